"""The command line's words: where an error of the library points in the files (``locate``: the file, the
record and the field), library syntax told as flags (``in_flags``: `` `lang` `` -> ``--lang``,
``synonyms="none"`` -> ``--synonyms none``), values that start with "-" given to their flag
(``joined_negative_values``), and the one line of a missing optional dependency (``missing_dependency``)."""

import argparse
import re

from .formats import Loaded

_INDEXED = re.compile(r"`(\w+)\[(\d+)\]((?:\[\d+\])*)`")


def locate(err: Exception, loaded: Loaded, start: int = 0) -> str:
    """A metric error about an example of the inputs (`predictions[i]`, `references[i]`, a column such as
    `languages[i]`), told one way: the file, the record and, where the format names it, the field
    (``path: record 7: field 'answers': has 9 answers ...``). An index of anything else (an option's
    `weights[0]`) is left as it is."""
    message = str(err)
    inputs = {"predictions", "references", *loaded.columns}
    tokens = [m for m in _INDEXED.finditer(message) if m.group(1) in inputs]
    if not tokens or start + int(tokens[0].group(2)) >= len(loaded.ids):
        return message
    first = tokens[0]
    index = start + int(first.group(2))
    path = loaded.pred_path if first.group(1) == "predictions" else loaded.gt_path
    where = f"{path}: {loaded.unit} {loaded.ids[index]!r}"

    def what(match) -> str:
        name, field_name = match.group(1), loaded.fields.get(match.group(1))
        items = "".join(f" item {int(j) + 1}" for j in re.findall(r"\d+", match.group(3)))
        if field_name:
            return f"field {field_name!r}{items}"
        return {"predictions": "the prediction", "references": "the ground truth"}.get(
            name, f"`{name}`"
        ) + items

    same = [m for m in tokens if m.group(2) == first.group(2)]  # every input of that example named
    if len(same) == 1 and first.start() == 0 and loaded.fields.get(first.group(1)):
        return f"{where}: {what(first)}: {message[first.end() :].strip()}"  # "field 'answers': has 9 answers"
    for match in reversed(same):
        message = message[: match.start()] + what(match) + message[match.end() :]
    return f"{where}: {message}"


_VALUE = r"""("[^"]*"|'[^']*'|[^\s,;)`'"]*)"""


def command_flags(parser, command: str) -> dict:
    """``{dest: flag}`` of the options of ``command`` (``--text-norm`` for ``text_norm``; a boolean's
    ``--flag``); none for a parser without that command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            flags = {}
            for a in action.choices[command]._actions:
                strings = [o for o in a.option_strings if o.startswith("--") and o != "--help"]
                if strings:
                    own = "--" + a.dest.replace("_", "-")
                    flags[a.dest] = own if own in strings else strings[0]
                    if a.dest.startswith("codebleu_"):  # fusion-brain-2021's flag of codebleu's option
                        flags.setdefault(a.dest.removeprefix("codebleu_"), flags[a.dest])
            return flags
    return {}


def in_flags(message: str, flags: dict) -> str:
    """``message`` of the library in command-line words: `` `threshold` `` -> ``--threshold``,
    `` `weights[0]` `` -> ``value 1 of --weights``, ``synonyms="none"`` / ``compute(..., lang='python')`` ->
    ``--synonyms none`` / ``--lang python``, ``ruwordnet_path=`` -> ``--ruwordnet-path``,
    ``letter_fallback=False`` -> ``--no-letter-fallback`` (booleans as flags)."""

    def value_flag(dest, flag, value):
        value = value[1:-1] if value[:1] in "'\"" and len(value) > 1 else value
        if value in ("True", "False") and flag.startswith("--"):
            return flag if value == "True" else "--no-" + flag[2:]
        return f"{flag} {value}" if value else flag

    for dest in sorted(flags, key=len, reverse=True):
        flag, name = flags[dest], re.escape(dest)
        message = re.sub(rf"`{name}\[(\d+)\]`", lambda m, f=flag: f"value {int(m[1]) + 1} of {f}", message)
        message = re.sub(rf"\b(?:compute|score)\(\.\.\., {name}={_VALUE}\)",
                         lambda m, d=dest, f=flag: value_flag(d, f, m[1]), message)  # fmt: skip
        message = re.sub(rf"`{name}={_VALUE}`", lambda m, d=dest, f=flag: value_flag(d, f, m[1]), message)
        message = re.sub(
            rf"(?<![\w.-]){name}={_VALUE}", lambda m, d=dest, f=flag: value_flag(d, f, m[1]), message
        )
        message = message.replace(f"`{dest}`", flag)
    return message


def joined_negative_values(parser, argv: list) -> list:
    """``--weights -1,1,1,1`` as ``--weights=-1,1,1,1``: argparse takes a value that starts with "-" for a
    flag unless it is a plain negative number; a flag that takes one value gets any value that starts
    with -<digit>, -.<digit>, -inf or -nan."""
    commands = [a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    takes_value = {flag for choices in commands for sub in choices.values() for a in sub._actions
                   if isinstance(a, argparse._StoreAction) and a.nargs is None for flag in a.option_strings}  # fmt: skip
    out = []
    for token in argv:
        if out and out[-1] in takes_value and re.match(r"-(\d|\.\d|inf|nan)", token, re.IGNORECASE):
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


def missing_dependency(err: ImportError) -> str:
    """The one line of a missing optional dependency: the library's own message (it names the extra), or for
    a module it imported without one, the module and the extra that installs it."""
    from ..extras import MissingExtra, extra_of

    if isinstance(err, MissingExtra):
        return str(err)
    extra = extra_of(err.name or "")
    install = (
        f"pip install 'multimodal-metrics[{extra}]'" if extra else "pip install 'multimodal-metrics[all]'"
    )
    return f"{' '.join(str(err).split())}: a dependency of this command is not installed ({install})"
