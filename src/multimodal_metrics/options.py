"""Options of a metric: the checks every option goes through, and the one table that declares them.

Each metric declares its options once, as an :class:`OptionTable` of :class:`Option` rows (name,
kind, choices or range, signature abbreviation, help text) together with its presets (named sets of
option defaults). Every surface reads that table:

* the checks (:meth:`OptionTable.resolve`: the preset's defaults updated with the passed values, every
  value checked strictly: no arrays, no 1 for True; an unknown option or preset is a ValueError);
* the signature (:attr:`Option.sig`, :meth:`OptionTable.signature`: a ``results.Signature``);
* the evaluate docstring (:meth:`OptionTable.describe`);
* the ``mm-score`` flags (:meth:`OptionTable.add_arguments`, :meth:`OptionTable.from_arguments`);
* the demo widgets (``multimodal_metrics.demo.widgets.option_widget``).

Errors: every check raises ``ValueError`` (bad value) or ``TypeError`` (bad type) whose message names
the argument and what was expected.
"""

import math
import numbers
import os
import reprlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .results import Signature


# ----------------------------------------------------------------------------------------------
# Presets and options
# ----------------------------------------------------------------------------------------------
def check_preset(name: str, config_name: str, presets: Mapping[str, Mapping]) -> str:
    """Return ``config_name`` if it names a preset of metric ``name``, else raise ValueError (TypeError for a
    non-string, which may not even be hashable)."""
    if not isinstance(config_name, str):
        raise TypeError(
            f"{name}: `preset` (config_name) must be a preset name (a string), got {short_repr(config_name)}; "
            f"expected one of {sorted(presets)}"
        )
    if config_name not in presets:
        raise ValueError(
            f"{name}: unknown preset (config_name) {config_name!r}; expected one of {sorted(presets)}"
        )
    return config_name


def resolve_options(
    name: str, config_name: str, presets: Mapping[str, Mapping], overrides: Mapping[str, object]
) -> dict:
    """Preset defaults updated with every override that is not None (None = "not passed")."""
    check_preset(name, config_name, presets)
    options = dict(presets[config_name])
    for key, value in overrides.items():
        if key not in options:
            elsewhere = sorted(preset for preset, values in presets.items() if key in values)
            hint = (
                f" (preset {config_name!r} does not take it; preset {' / '.join(map(repr, elsewhere))} does)"
                if elsewhere
                else ""
            )
            raise ValueError(f"{name}: unknown option {key!r}; expected one of {sorted(options)}{hint}")
        if value is not None:
            options[key] = value
    return options


def short_repr(value, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters (error messages must stay readable for 1 MB inputs); a value
    nested too deeply for ``repr`` is shown to a few levels (``reprlib``)."""
    try:
        text = repr(value)
    except RecursionError:
        text = reprlib.repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def check_choice(value, allowed: Iterable, arg: str):
    """Return the entry of ``allowed`` equal to ``value`` and of the same type, else raise.

    Strict on type: ``True`` is not ``1``, a numpy array (even of one element) or a list is never a
    choice (TypeError); a ``str`` subclass such as ``numpy.str_`` is accepted and returned as the plain
    ``str`` of ``allowed``, so signatures always show the canonical value.
    """
    allowed = list(allowed)
    for choice in allowed:
        if isinstance(choice, str) and isinstance(value, str):
            if value == choice:
                return choice
        elif type(value) is type(choice) and value == choice:
            return choice
    if any(isinstance(value, str) if isinstance(c, str) else type(value) is type(c) for c in allowed):
        raise ValueError(f"`{arg}` must be one of {allowed}, got {short_repr(value)}")
    raise TypeError(f"`{arg}` must be one of {allowed}, got {type(value).__name__} ({short_repr(value)})")


def check_path(value, arg: str) -> str:
    """A file-system path given as ``str`` or ``os.PathLike``, returned as ``str`` (NUL and lone
    surrogates refused with a ValueError naming ``arg``)."""
    if isinstance(value, bytes) or not isinstance(value, str | os.PathLike):
        raise TypeError(
            f"`{arg}` must be a path (str or os.PathLike), got {type(value).__name__} ({short_repr(value)})"
        )
    path = os.fspath(value)
    if not isinstance(path, str):
        raise TypeError(f"`{arg}` must be a text path, got {type(path).__name__} ({short_repr(path)})")
    if "\x00" in path or not path:
        raise ValueError(f"`{arg}` must be a non-empty path without NUL characters, got {short_repr(path)}")
    check_string(path, arg)
    return path


def check_bool(value, arg: str) -> bool:
    """Raise TypeError unless ``value`` is True or False (1/0 and strings are refused)."""
    if not isinstance(value, bool):
        raise TypeError(f"`{arg}` must be True or False, got {type(value).__name__} ({short_repr(value)})")
    return value


def _bounds(low, high, allow_inf: bool = False) -> str:
    """ "in [low, high]", ">= low", "<= high" or "that is finite" (or "... not NaN") for an error message."""
    if low is not None and high is not None:
        return f"in [{low}, {high}]"
    if low is not None:
        return f">= {low}"
    if high is not None:
        return f"<= {high}"
    return "that is not NaN" if allow_inf else "that is finite"


def check_number(
    value, arg: str, low: float | None = None, high: float | None = None, allow_inf: bool = False
) -> float:
    """A real number (numpy scalars included, bools refused) within [low, high], bounds inclusive.

    None as a bound means unbounded; NaN is always refused and infinity unless ``allow_inf``.
    """
    if isinstance(value, bool) or type(value).__name__ == "bool_" or not isinstance(value, numbers.Real):
        raise TypeError(f"`{arg}` must be a number, got {type(value).__name__} ({short_repr(value)})")
    try:
        value = float(value)
    except OverflowError:  # an int beyond the float range (10**400)
        raise ValueError(
            f"`{arg}` must be a number {_bounds(low, high, allow_inf)}, got {short_repr(value)}"
        ) from None
    if (
        math.isnan(value)
        or (math.isinf(value) and not allow_inf)
        or (low is not None and value < low)
        or (high is not None and value > high)
    ):
        raise ValueError(f"`{arg}` must be a number {_bounds(low, high, allow_inf)}, got {value!r}")
    return value


def check_string(value, where: str) -> str:
    """One string that Arrow can store (UTF-8 encodable: no lone surrogates), returned as a plain ``str``:
    a ``str`` subclass (``numpy.str_``, or one that overrides ``lower``, ``split``, ``__len__``...) is
    copied to its plain text, so every path (the library, ``compute``, ``add_batch``, Arrow) sees the
    same characters and the same methods."""
    if not isinstance(value, str):
        raise TypeError(f"`{where}` must be a string, got {type(value).__name__} ({short_repr(value)})")
    if type(value) is not str:
        value = str.__str__(value)  # the characters, as an exact str (no method of the subclass runs)
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as err:
            raise ValueError(
                f"`{where}` is not valid Unicode text ({err.reason} at position {err.start})"
            ) from None
    return value


# ----------------------------------------------------------------------------------------------
# The option table
# ----------------------------------------------------------------------------------------------
KINDS = ("choice", "number", "integer", "bool", "path", "custom")


@dataclass(frozen=True)
class Option:
    """One option of a metric.

    ``kind``: ``"choice"`` (one of ``choices``), ``"number"`` (a real in [``low``, ``high``], ``None`` =
    unbounded; ``allow_inf``), ``"integer"`` (a number in range that is a whole number, returned as
    ``int``), ``"bool"``, ``"path"`` (str or os.PathLike) or ``"custom"`` (``check(value, name)``
    returns the canonical value). ``sig``: the abbreviation of the option in the signature (``None``:
    the option does not change the number, or the metric writes its field itself). ``help``: one
    sentence for the docstring, the command line and the demo. ``cli``: how ``mm-score`` reads the
    flag's text (``None``: from the kind; ``False``: no flag). ``demo``: whether the demo shows a
    widget for it. ``doc_type``: the type shown in the docstring (default from the kind).
    ``required``: a preset may leave it unset (None) and a call must then pass it (codebleu's ``lang``).
    ``per_preset``: only the presets that set it take it, the others refuse it (vqa_acc's procedures).
    ``sig_value``: how the signature writes the value (default: as it is).
    """

    name: str
    help: str
    kind: str = "choice"
    choices: tuple = ()
    low: float | None = None
    high: float | None = None
    allow_inf: bool = False
    sig: str | None = None
    check: Callable | None = None
    cli: Callable | bool | None = None
    demo: bool = True
    doc_type: str | None = None
    required: bool = False
    per_preset: bool = False
    sig_value: Callable | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"option {self.name!r}: unknown kind {self.kind!r}; expected one of {KINDS}")
        if self.kind == "custom" and self.check is None:
            raise ValueError(f"option {self.name!r}: a custom option needs its `check`")

    def checked(self, value, arg: str | None = None):
        """``value`` checked and in canonical form (errors name ``arg``, default the option's name)."""
        arg = arg or self.name
        if self.check is not None:
            return self.check(value, arg)
        if self.kind == "choice":
            return check_choice(value, self.choices, arg)
        if self.kind == "number":
            return check_number(value, arg, self.low, self.high, self.allow_inf)
        if self.kind == "integer":
            number = check_number(value, arg, self.low, self.high)
            if not number.is_integer():
                raise ValueError(f"`{arg}` must be a whole number, got {short_repr(value)}")
            return int(number)
        if self.kind == "bool":
            return check_bool(value, arg)
        return check_path(value, arg)

    @property
    def type_name(self) -> str:
        """The type shown in the docstring."""
        if self.doc_type:
            return self.doc_type
        return {"choice": "str", "number": "float", "integer": "int", "bool": "bool", "path": "str"}.get(
            self.kind, "object"
        )

    def signature_value(self, value):
        """``value`` as the signature writes it."""
        return value if self.sig_value is None else self.sig_value(value)

    def describe(self, default=None, help: str | None = None) -> str:
        """The docstring line(s) of this option: name, type, help (or the caller's own ``help``), choices or
        range, and ``default``."""
        text = help or self.help
        if self.kind == "choice" and self.choices and "one of" not in text:
            text += " One of " + ", ".join(repr(c) for c in self.choices) + "."
        if default is not None:
            text += f" Default {default!r}."
        return f"{self.name} (`{self.type_name}`, optional): {text}"


class OptionTable:
    """The options of one metric and its presets, declared once (see the module docstring).

    ``presets`` maps a preset name to the default value of every option it takes (``None`` = unset);
    the key order of a preset is the order its options are checked in (with several bad options, the
    first one is reported). Every preset sets every option, except the ``per_preset`` ones, which only
    the presets that set them take. :meth:`resolve` then runs two hooks: ``after_check(options,
    preset)`` returns the checked options (rules between options), and ``open_resources(options,
    preset)`` opens what the options point at (WordNet, a database: cached), so a missing resource is
    refused with the options; a state read back from bytes checks its options without opening anything.
    ``signature_order``: the signature abbreviations in the order the signature writes them (default:
    table order).
    """

    def __init__(
        self,
        metric: str,
        options: Sequence[Option],
        presets: Mapping[str, Mapping[str, object]],
        after_check: Callable | None = None,
        default_preset: str = "default",
        open_resources: Callable | None = None,
        signature_order: Sequence[str] | None = None,
    ):
        self.metric = metric
        self.options = {o.name: o for o in options}
        self.presets = {name: dict(values) for name, values in presets.items()}
        self.after_check = after_check
        self.open_resources = open_resources
        self.default_preset = default_preset
        everywhere = {o.name for o in self if not o.per_preset}
        for preset, values in self.presets.items():
            missing, extra = everywhere - set(values), set(values) - set(self.options)
            if missing or extra:
                raise ValueError(
                    f"{metric}: preset {preset!r} must set every option (missing {missing}, unknown {extra})"
                )
        unused = [
            o.name for o in self if o.per_preset and not any(o.name in v for v in self.presets.values())
        ]
        if unused:
            raise ValueError(f"{metric}: no preset takes the option(s) {unused}")
        sigs = [o.sig for o in self if o.sig is not None]
        self.signature_order = tuple(sigs if signature_order is None else signature_order)
        if sorted(self.signature_order) != sorted(sigs):
            raise ValueError(f"{metric}: signature_order {self.signature_order} must list every `sig` {sigs}")

    def __iter__(self):
        return iter(self.options.values())

    def __getitem__(self, name: str) -> Option:
        return self.options[name]

    def __contains__(self, name) -> bool:
        return name in self.options

    @property
    def names(self) -> list[str]:
        return list(self.options)

    def takes(self, preset: str) -> list[str]:
        """The options of ``preset``, in table order."""
        return [name for name in self.options if name in self.presets[preset]]

    def check_preset(self, preset) -> str:
        """``preset`` if it names a preset of this metric, else a ValueError."""
        return check_preset(self.metric, preset, self.presets)

    def resolve(self, preset, passed: Mapping[str, object]) -> dict:
        """The preset's options updated with every passed value that is not None, each one checked (in the
        preset's key order), then ``after_check`` and ``open_resources``. None is "not passed", also for an
        option of the table that this preset does not take; a required option left unset is refused first."""
        passed = {key: value for key, value in passed.items() if value is not None or key not in self.options}
        options = resolve_options(self.metric, preset, self.presets, passed)
        for option in self:
            if option.required and option.name in options and options[option.name] is None:
                example = (
                    f" (e.g. compute(..., {option.name}={option.choices[0]!r}))" if option.choices else ""
                )
                raise ValueError(f"`{option.name}` is required: one of {list(option.choices)}{example}")
        for name, value in options.items():
            if value is not None:  # None: unset (the metric's own default applies)
                options[name] = self.options[name].checked(value)
        if self.after_check is not None:
            options = self.after_check(options, preset)
        if self.open_resources is not None:
            self.open_resources(options, preset)
        return options

    def signature_fields(self, options: Mapping[str, object]) -> dict:
        """``{abbreviation: value as the signature writes it}`` of every option with a ``sig`` (in
        ``signature_order``); a ``per_preset`` option appears where ``options`` holds it."""
        by_sig = {o.sig: o for o in self if o.sig is not None}
        fields = {}
        for sig in self.signature_order:
            option = by_sig[sig]
            if option.name in options or not option.per_preset:
                fields[sig] = option.signature_value(options[option.name])
        return fields

    def signature(
        self, preset: str, options: Mapping[str, object], resampling=None, extra: Mapping[str, object] = ()
    ) -> Signature:
        """The :class:`~multimodal_metrics.results.Signature` of a result of this metric: the fields of the
        resolved ``options`` (:meth:`signature_fields`), then ``extra`` (what the metric records besides its
        options: a resource's version, the tokenizer), then the fields of ``resampling`` (a
        ``stats.Resampling``; none without an interval), the version last."""
        signature = Signature(self.metric, preset, {**self.signature_fields(options), **dict(extra)})
        return signature if resampling is None else signature.with_fields(resampling.signature_fields())

    def describe(self, indent: str = "    ", help: Mapping[str, str] | None = None) -> str:
        """The ``Args`` lines of every option (for the evaluate docstring), with the default preset's values;
        where some options are ``per_preset``, each line lists the presets that take it and their values.
        ``help``: the caller's own sentence for some options (a metric saying what its resampling resamples)."""
        help = help or {}
        if any(o.per_preset for o in self):
            lines = []
            for o in self:
                values = ", ".join(f"{p} {v[o.name]!r}" for p, v in self.presets.items() if o.name in v)
                lines.append(f"{indent}{o.describe(help=help.get(o.name))} Presets: {values}.")
            return "\n".join(lines)
        defaults = self.presets.get(self.default_preset, {})
        return "\n".join(f"{indent}{o.describe(defaults.get(o.name), help.get(o.name))}" for o in self)

    # -- command line -------------------------------------------------------------------------
    def cli_options(self) -> list[Option]:
        return [o for o in self if o.cli is not False]

    def add_arguments(self, parser, skip: Iterable[str] = (), help: Mapping[str, str] | None = None) -> None:
        """One ``--flag`` per option (``--text-norm`` for ``text_norm``), help from the table (or the caller's
        own ``help`` for some options), default None (= the preset's value): numbers and whole numbers typed
        by argparse, booleans as ``--flag``/``--no-flag``, other kinds read by the option's ``cli`` function
        when it has one."""
        import argparse

        skip = set(skip)
        for o in self.cli_options():
            if o.name in skip:
                continue
            flag = "--" + o.name.replace("_", "-")
            kwargs = {"dest": o.name, "default": None, "help": (help or {}).get(o.name, o.help)}
            if o.kind == "bool":
                kwargs["action"] = argparse.BooleanOptionalAction
            elif callable(o.cli):
                kwargs.update(type=_argument_type(o), metavar=o.name.upper())
            elif o.kind in ("number", "integer"):
                kwargs["type"] = float if o.kind == "number" else int
            parser.add_argument(flag, **kwargs)

    def from_arguments(self, namespace) -> dict:
        """The options given on the command line (``{name: value}``; None = not given)."""
        return {
            o.name: getattr(namespace, o.name)
            for o in self.cli_options()
            if getattr(namespace, o.name, None) is not None
        }


def _argument_type(option: Option):
    """argparse ``type`` of an option read by its ``cli`` function (a ValueError becomes argparse's one-line error)."""
    import argparse

    def read(text):
        try:
            return option.cli(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    read.__name__ = option.name
    return read


def parse_text(option: Option, text: str):
    """The value of ``option`` written as text (a command-line flag, a demo text box)."""
    if callable(option.cli):
        return option.cli(text)
    if option.kind == "bool":
        if text.strip().lower() in ("yes", "true", "1"):
            return True
        if text.strip().lower() in ("no", "false", "0"):
            return False
        raise ValueError(f"`{option.name}` must be yes or no, got {text!r}")
    if option.kind in ("number", "integer"):
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"`{option.name}` must be a number, got {text!r}") from None
        return int(number) if option.kind == "integer" and number.is_integer() else number
    if option.kind == "choice":
        for choice in option.choices:
            if str(choice) == text:
                return choice
    return text
