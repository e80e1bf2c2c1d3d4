"""Results of the collection: the signature, the flat result dict and its ``Result`` form, the Trainer form.

A result is a flat dict of floats: the primary key first, then ``signature`` (string), and with
``return_per_example=True`` a ``per_example`` list. The library's ``score(...)`` functions return a
:class:`Result`: that dict (``r["anls"]``, ``dict(r)`` is exactly what ``compute`` returns) with the
signature as data (:class:`Signature`, ``r.get_signature()``), the options the call resolved
(``r.options``), the per-example list, the Trainer form and, for ``compare``, the per-example sufficient
statistics as attributes. The signature string is written by :meth:`Signature.format` only; code that
needs a field reads ``r.signature_fields`` (or ``r.options``), never the string.

Directions (as torchmetrics' ``higher_is_better``): every metric declares once, beside its option table,
``HIGHER_IS_BETTER = {key: True | False | None}`` in its ``scoring`` module: True for a score to maximise
(accuracy, ANLS, F1, CodeBLEU), False for one to minimise (CER, FID), None for a raw count (det_f1's tp,
fp, fn), which is no objective and stays out of the Trainer form. A key ending in ``*`` covers every key
with that prefix (vqa_acc's ``accuracy_question_type/<type>``); ``<key>_ci_low``/``_ci_high`` take the
direction of ``<key>``. :func:`higher_is_better` reads them.
"""

import functools
import importlib
import operator
from collections.abc import Mapping, Sequence

from ._version import __version__ as COLLECTION_VERSION  # noqa: N812 (the version every signature records)


def _format_option(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        # exact (shortest round-trip) form: 0.5 and 0.5000001 must not share a signature
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, list | tuple):
        return ",".join(_format_option(v) for v in value)
    return str(value)


class Signature:
    """What a number depends on, as data, in the manner of sacrebleu's ``Signature``
    (``sacrebleu/metrics/base.py``): the metric's name, the preset, ``fields`` (a dict: short key -> value
    of every option, resource and resampling setting that changes the number, in a fixed order) and the
    collection's version. :meth:`format` (also ``str(signature)``) writes it in one place, the version
    always last::

        anls|preset:default|thr:0.5|bound:inclusive|norm:ws+lower|len:raw_upper|v:0.4.0

    Values are kept as given (``0.5``, ``True``) and written by :meth:`format` (``0.5``, ``yes``). A
    signature is immutable: :meth:`with_fields` returns a new one with more fields (before the version).
    Two runs with the same signature on the same data give the same number.
    """

    __slots__ = ("_fields", "metric", "preset", "version")

    def __init__(
        self, metric: str, preset: str, fields: Mapping[str, object] = (), version: str | None = None
    ):
        self.metric = metric
        self.preset = preset
        self._fields = dict(fields)
        self.version = COLLECTION_VERSION if version is None else version

    @property
    def fields(self) -> dict:
        """``{short key: value}`` between the preset and the version, in signature order (a copy)."""
        return dict(self._fields)

    def with_fields(self, fields: Mapping[str, object] = (), /, **more) -> "Signature":
        """This signature with ``fields`` then ``more`` added after its fields, the version still last (a
        resampling's ``signature_fields()``, a paired test's fields). A key it holds already is a ValueError:
        a signature names each setting once."""
        added = {**dict(fields), **more}
        clash = [key for key in added if key in self._fields]
        if clash:
            raise ValueError(f"the signature already has the field(s) {clash}: {self}")
        return Signature(self.metric, self.preset, {**self._fields, **added}, self.version)

    def as_dict(self) -> dict:
        """Every field in signature order: ``{"metric": name, "preset": P, **fields, "v": VERSION}``."""
        return {"metric": self.metric, "preset": self.preset, **self._fields, "v": self.version}

    def format(self) -> str:
        """``name|preset:P|key:value|...|v:VERSION``: the string a result's ``"signature"`` key holds."""
        parts = [self.metric, f"preset:{self.preset}"]
        parts += [f"{key}:{_format_option(value)}" for key, value in self._fields.items()]
        parts.append(f"v:{self.version}")
        return "|".join(parts)

    __str__ = format

    def __repr__(self) -> str:
        return f"Signature({self.format()!r})"

    def __eq__(self, other) -> bool:
        if not isinstance(other, Signature):
            return NotImplemented
        return list(self.as_dict().items()) == list(other.as_dict().items())

    def __hash__(self) -> int:
        return hash(self.format())


def build_signature(name: str, preset: str, fields: Mapping[str, object]) -> str:
    """The formatted :class:`Signature` ``name|preset:P|key:value|...|v:VERSION`` (``fields``: short key ->
    value of every option that changes the number, in a fixed order)."""
    return Signature(name, preset, fields).format()


def sequential_sum(values) -> float:
    """``(((0.0 + v[0]) + v[1]) + ...) + v[n-1]``: the float sum of ``values`` (a sequence of numbers or a
    numpy array), added left to right in double precision with each addition rounded; 0.0 for no values.

    This is the arithmetic of CPython's built-in ``sum()`` of floats up to 3.11 and of a ``total += x`` loop
    on every version: how the reference scorers (contest scripts run on Python 3.8 or older) summed their
    scores. CPython 3.12 made ``sum()`` of floats compensated (Neumaier), which changes the last bits of a
    mean over many examples, so the collection never sums floats with ``sum()``: a score sums with this
    function, or with numpy's pairwise ``np.mean`` where its reference did. An array is summed by
    ``np.add.accumulate`` (sequential: every partial sum is an output, nothing is reordered; about as fast
    as ``sum()`` of a list), anything else by ``functools.reduce``; both give the same bits
    (tests/test_other_pythons.py). ``+ 0.0`` gives the sign of a zero sum as the loop from 0.0 does."""
    if hasattr(values, "dtype"):
        import numpy as np

        flat = np.asarray(values, dtype=np.float64).reshape(-1)
        return float(np.add.accumulate(flat)[-1]) + 0.0 if flat.size else 0.0
    return float(functools.reduce(operator.add, values, 0.0))


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean as a Python float, ``sequential_sum(values) / len(values)`` (0.0 for no values)."""
    return sequential_sum(values) / len(values) if len(values) else 0.0


def make_result(
    scores: Mapping[str, float], signature: "Signature | str", per_example=None, return_per_example=False
) -> dict:
    """Flat result: the scores (primary key first) as floats, ``signature`` (formatted), optional
    ``per_example``."""
    if not isinstance(return_per_example, bool):
        raise TypeError(
            f"`return_per_example` must be True or False, got {type(return_per_example).__name__}"
        )
    result = {key: float(value) for key, value in scores.items()}
    result["signature"] = str(signature)
    if return_per_example:
        result["per_example"] = per_example() if type(per_example) is LazyRows else list(per_example)
    return result


def directions_of(metric: str) -> dict:
    """The ``HIGHER_IS_BETTER`` table of a metric of the collection (``multimodal_metrics.<metric>.scoring``)."""
    module = importlib.import_module(f"{__package__}.{metric}.scoring")
    return dict(module.HIGHER_IS_BETTER)


_INTERVAL_SUFFIXES = ("_ci_low", "_ci_high")


def key_direction(directions: Mapping[str, object], key: str):
    """True (higher is better), False (lower is better) or None (a raw count) for a result key; a
    ``KeyError`` naming the key when the table does not cover it."""
    if key in directions:
        return directions[key]
    for suffix in _INTERVAL_SUFFIXES:
        if key.endswith(suffix) and key[: -len(suffix)] in directions:
            return directions[key[: -len(suffix)]]
    base = next((key[: -len(s)] for s in _INTERVAL_SUFFIXES if key.endswith(s)), key)
    matches = [p for p in directions if p.endswith("*") and base.startswith(p[:-1])]
    if matches:
        return directions[max(matches, key=len)]
    raise KeyError(f"no direction declared for the result key {key!r}")


def higher_is_better(result: Mapping, metric: str) -> dict:
    """``{key: True | False | None}`` for every number of ``result`` (``signature`` and ``per_example`` left
    out), from the metric's ``HIGHER_IS_BETTER`` table."""
    directions = directions_of(metric)
    return {key: key_direction(directions, key) for key in result if key not in ("signature", "per_example")}


def trainer_scores(
    result: Mapping, prefix: str, directions: Mapping | None = None, counts: bool = False
) -> dict:
    """The numbers of a result dict under metric-prefixed keys, for ``transformers.Trainer``.

    ``signature`` (a string) and ``per_example`` (a list) are left out: Trainer's ``log_metrics``
    formats every value as a number. With ``directions`` (the metric's ``HIGHER_IS_BETTER``), raw counts
    (direction None: det_f1's tp/fp/fn) are left out too unless ``counts=True``: they are no score to
    select a model by. A key equal to ``prefix`` or starting with ``prefix + "_"`` is kept; any other key
    becomes ``prefix_key`` (``{"f1": ...}`` of det_f1 -> ``{"det_f1_f1": ...}``), so the results of several
    metrics merge without collisions. The keys still mix directions (CER and FID are lower-is-better):
    select by one key, ``metric_for_best_model`` with ``greater_is_better``, or ``compute_objective`` with
    ``direction`` in ``hyperparameter_search``, never by the sum of all of them.
    """
    out = {}
    for key, value in result.items():
        if key in ("signature", "per_example"):
            continue
        if directions is not None and not counts and key_direction(directions, key) is None:
            continue
        name = key if key == prefix or key.startswith(prefix + "_") else f"{prefix}_{key}"
        out[name] = float(value)
    return out


class LazyRows:
    """Per-example values made only when asked for (``Result.per_example``, ``make_result``): calling it
    returns ``build(*columns)``."""

    __slots__ = ("build", "columns")

    def __init__(self, build, *columns):
        self.build = build
        self.columns = columns

    def __call__(self) -> list:
        return self.build(*self.columns)


class Result(dict):
    """A metric's result: the flat dict ``compute`` returns (``r["anls"]``, ``r["signature"]``, and with
    ``return_per_example=True`` ``r["per_example"]``), plus

    * ``signature``: the signature string (``r["signature"]``); ``get_signature()``: the same as a
      :class:`Signature` (data: ``.metric``, ``.preset``, ``.fields``, ``.version``; ``.with_fields(...)``
      adds fields before the version), as sacrebleu's ``metric.get_signature()``; ``signature_fields``:
      its fields (``{"thr": 0.5, "bound": "inclusive", ..., "conf": 0.95, "bs": 1000, "seed": 12345}``);
    * ``options``: every option of the metric's table as this call resolved it (the preset's defaults
      updated with the passed values, checked: ``{"threshold": 0.5, "boundary": "inclusive", ...}``);
      ``preset``: the preset's name;
    * ``per_example``: the per-example scores (also when they were not asked for in the dict; ``None``
      for a set-level score such as FID);
    * ``statistic``: the per-example sufficient statistics (``multimodal_metrics.stats.Statistic``),
      what ``compare`` pairs; ``None`` where there are none;
    * ``to_dict()``: the plain dict; ``for_trainer(prefix)``: the numbers under prefixed keys (raw
      counts left out unless ``counts=True``);
    * ``higher_is_better``: ``{key: True | False | None}`` for every number (None: a raw count).

    A ``Result`` built without ``signature`` / ``options`` (by hand) has ``get_signature()`` None,
    ``signature_fields`` and ``options`` empty.
    """

    def __init__(
        self,
        values: Mapping,
        metric: str,
        per_example=None,
        statistic=None,
        *,
        signature: Signature | None = None,
        options: Mapping | None = None,
    ):
        super().__init__(values)
        self.metric = metric
        self._per_example = per_example  # a list, or LazyRows made into one on first use
        self.statistic = statistic
        self._signature = signature
        self.options = dict(options or {})

    @classmethod
    def from_values(
        cls, values: Mapping, signature: Signature, per_example, statistic, options, return_per_example=False
    ) -> "Result":
        """The result of a metric (``signature.metric``) from its scores ``values`` (:func:`make_result`: the
        per-example list in the dict with ``return_per_example``), with its signature and resolved options."""
        flat = make_result(values, signature, per_example, return_per_example)
        return cls(flat, signature.metric, per_example, statistic, signature=signature, options=options)

    @property
    def per_example(self):
        value = self._per_example
        if type(value) is LazyRows:
            value = self._per_example = value()
        return value

    @per_example.setter
    def per_example(self, value) -> None:
        self._per_example = value

    @property
    def signature(self) -> str:
        """The signature string (``self["signature"]``)."""
        return self["signature"]

    def get_signature(self) -> Signature | None:
        """The signature as a :class:`Signature` (None for a ``Result`` built without one)."""
        return self._signature

    @property
    def signature_fields(self) -> dict:
        """The signature's fields between the preset and the version (``{}`` without a signature)."""
        return {} if self._signature is None else self._signature.fields

    @property
    def preset(self) -> str | None:
        """The preset's name (None without a signature)."""
        return None if self._signature is None else self._signature.preset

    def to_dict(self) -> dict:
        """Exactly the dict ``evaluate``'s ``compute`` returns."""
        return dict(self)

    @property
    def higher_is_better(self) -> dict:
        """``{key: True | False | None}``: whether a larger value of each number is better (None: a raw count)."""
        return higher_is_better(self, self.metric)

    def for_trainer(self, prefix: str | None = None, counts: bool = False) -> dict:
        """The numbers under metric-prefixed keys (``transformers.Trainer(compute_metrics=...)``); raw counts
        (direction None) only with ``counts=True``."""
        return trainer_scores(self, prefix or self.metric, directions_of(self.metric), counts)

    def __repr__(self) -> str:
        return f"Result({dict.__repr__(self)})"
