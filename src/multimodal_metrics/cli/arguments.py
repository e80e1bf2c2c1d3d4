"""How `mm-score` builds a command's flags from the declarations: ``--preset`` from the metric's
``PRESETS``, one flag per option of its option table (``OPTIONS.add_arguments``; the flags naming paths
recorded for ``paths.check_paths``), the resampling flags from ``stats.RESAMPLING``, the output flags, and
the one-line usage errors of ``Parser``. The metric commands (commands.py), fid-clip (generation.py) and
merge (state_commands.py) all use these."""

import argparse

from ..stats import RESAMPLING
from . import paths as mm_paths
from .scoring import library

COMMON_EPILOG = """Output: the result dict (scores, signature, examples) as text, or as JSON with --json.
--per-example FILE writes one JSON line per example: {"id": ..., "<score>": ...}.
--confidence 0.95 adds <score>_ci_low / <score>_ci_high (percentile bootstrap over the examples).
--compare-pred B.json prints, per score, <score>_a, <score>_b, <score>_difference (A - B), its interval
and <score>_p_value (approximate randomisation, 10,000 trials, or --test paired_bootstrap, 1,000 resamples;
--p-value sacrebleu: sacrebleu's strict count, ties left out; the default counts them).
Errors (a malformed file, a metric error) are one line naming the file, the record and the field; exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error: a bad value of a typed flag (``--iou-threshold abc``), an unknown
    flag or a missing file flag is ``mm-score <command>: error: ...`` and exit status 2, without the usage."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n")


def presets_help(metric: str, notes: dict) -> str:
    """The presets of ``metric`` as --help lists them: every name of its ``PRESETS``, in order, with the
    command's note where it has one."""
    return ", ".join(f"{name} ({notes[name]})" if name in notes else name for name in library(metric).PRESETS)


def add_preset_argument(parser, metric: str, help_: str, default=None) -> None:
    """``--preset``: one of the metric's ``PRESETS``."""
    parser.add_argument("--preset", default=default, choices=list(library(metric).PRESETS), metavar="PRESET",
                        help=help_)  # fmt: skip


def add_option_arguments(parser, metric: str, skip=(), files=None, own=None) -> set:
    """The metric's option flags, from its option table (``OPTIONS.add_arguments``, skipping ``skip``; the
    flags naming paths recorded for ``paths.check_paths``), then the options read from files (``files``:
    name -> (help, reader)) and the command's own flags (``own(group)``). Returns the dests the parser had
    before them (the command's ``option_dests`` are those added from here on)."""
    table = library(metric).OPTIONS
    files = files or {}
    before = {a.dest for a in parser._actions}
    group = parser.add_argument_group("metric options (override the preset; default: the preset's value)")
    table.add_arguments(group, skip=(*skip, *files))
    mm_paths.register(parser, mm_paths.table_roles(table, skip=(*skip, *files)))
    for name, (help_, _) in files.items():
        group.add_argument("--" + name.replace("_", "-"), dest=name, metavar="FILE", help=help_)
    if own is not None:
        own(group)
    return before


def add_resampling_arguments(parser, title: str, n_resamples: str) -> None:
    """``--confidence``, ``--n-resamples``, ``--seed``: the options of ``stats.RESAMPLING`` (flag, type and
    default from the table; ``n_resamples``: this command's help of the number of resamples)."""
    defaults = RESAMPLING.presets[RESAMPLING.default_preset]
    help_ = {
        "confidence": "add the C interval of the scores, e.g. 0.95",
        "n_resamples": n_resamples.format(default=defaults["n_resamples"]),
        "seed": f"seed of the resampling (default {defaults['seed']})",
    }
    metavar = {"confidence": "C", "n_resamples": "N"}
    group = parser.add_argument_group(title)
    for option in RESAMPLING:
        group.add_argument("--" + option.name.replace("_", "-"), dest=option.name, type=option.cli,
                           metavar=metavar.get(option.name), help=help_[option.name])  # fmt: skip


def add_output_arguments(parser, per_example: str, progress: str | None) -> None:
    """``--per-example FILE`` (a path checked before scoring), ``--json`` and ``--progress`` (unless None)."""
    mm_paths.add_argument(parser, "--per-example", "output", metavar="FILE", help=per_example)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    if progress is not None:
        parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help=progress)
