"""mm-score: score official benchmark and contest files with the Multimodal Metrics library.

    mm-score anls --gt val_v1.0.json --pred submission.json               # DocVQA / InfographicVQA
    mm-score vqa-acc --annotations A.json --results R.json [--questions Q.json]   # VQA v2 / VQA-CP
    mm-score vqa-acc --format fusion_brain_2021 --gt true_VQA.json --pred prediction_VQA.json
    mm-score codebleu --gt true_C2C.json --pred prediction_C2C.json       # Fusion Brain 2021 C2C
    mm-score ned --format fusion_brain_2021 --gt true_HTR.json --pred prediction_HTR.json
    mm-score det-f1 --gt true_zsOD.json --pred prediction_zsOD.json
    mm-score text-qa --preset mathqa --gt mathqa_gt.json --pred mathqa_pred.json  # Fusion Brain 2022
    mm-score ru-meteor --gt captioning_gt.json --pred captioning_pred.json --ruwordnet-path ruwordnet.db
    mm-score ru-meteor --format fusion_brain_2022_vqa --gt vqa_gt.json --pred vqa_pred.json --synonyms none
    mm-score fusion-brain-2021 FOLDER        # integral score: sum of the four rounded sub-task scores
    mm-score fusion-brain-2022 FOLDER        # integral score: (1/15) x sum of the open sub-task scores
    mm-score anls --gt G.json --pred A.json --confidence 0.95             # + bootstrap interval(s)
    mm-score anls --gt G.json --pred A.json --compare-pred B.json         # paired test of A against B

(`python -m multimodal_metrics.cli ...` is the same command.) Every metric command takes `--preset`, the
metric's options, `--per-example out.jsonl`, `--json`; `mm-score COMMAND --help` describes the file
formats with minimal examples. A malformed file gives one error line naming the file, the record
and the field, and exit status 2; so do a badly typed flag, an input that is not a regular file (refused
before it is opened), a JSON object that repeats a key, and an output path that cannot be written
(checked before any scoring starts: cli/paths.py).

Scoring is the library's functional API, `multimodal_metrics.<metric>.score(...)` / `.compare(...)`, from
any working directory: no evaluate, no checkout, no Hub. The option flags are the metric's option table
(`OPTIONS.add_arguments`: `--text-norm` for `text_norm`, booleans as `--flag/--no-flag`).

The modules, one job each: main.py (this one) assembles the parser and runs a command, one error line
on failure; commands.py holds the metric commands, their file formats and `run_metric` (adding a metric
command is one function registered with `@command(...)`; a new file format is one reader in formats.py
plus a `Format` entry in FORMATS); arguments.py builds the flags from the declarations (option tables,
PRESETS, stats.RESAMPLING); scoring.py calls the library; output.py prints and writes results;
generation.py is fid-clip; state_commands.py is --shard / --save-state and merge; integral.py the contests'
integral scores (which files, which metric per sub-task, how the scores combine); paths.py the checks of
the paths given; words.py how errors are worded (files, records, flags).
"""

import argparse
import sys

from . import integral as mm_integral
from . import paths as mm_paths
from . import state_commands as mm_state
from .arguments import COMMON_EPILOG, Parser  # noqa: F401 (the parser's pieces, by name)
from .commands import COMMANDS, FORMATS, Command, Format, add_parser, command  # noqa: F401
from .generation import add_generation_parser
from .integral import INTEGRALS  # noqa: F401 (the integral commands, by name)
from .output import print_result, write_per_example  # noqa: F401
from .scoring import CHUNK, PROGRESS_MIN, library, score  # noqa: F401
from .words import command_flags, in_flags, joined_negative_values, locate, missing_dependency  # noqa: F401


def build_parser() -> argparse.ArgumentParser:
    from .._version import __version__

    parser = Parser(
        prog="mm-score",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run `mm-score COMMAND --help` for the file formats of a command.",
    )
    parser.add_argument("--version", action="version", version=f"mm-score {__version__} (multimodal-metrics)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for cmd in COMMANDS.values():
        add_parser(sub, cmd)
    add_generation_parser(sub)
    mm_integral.add_parsers(sub, score, PROGRESS_MIN)
    mm_state.add_merge_parser(sub)
    return parser


def main(argv=None) -> int:
    import warnings

    parser = build_parser()
    argv = joined_negative_values(parser, list(sys.argv[1:] if argv is None else argv))
    try:
        args, unknown = parser.parse_known_args(argv)
    except SystemExit as exit_:  # --help, --version (0) or a one-line usage error (2)
        return exit_.code if isinstance(exit_.code, int) else 2
    if unknown:  # named by the command they were given to
        print(
            f"mm-score {args.command}: error: unrecognized arguments: {' '.join(unknown)} "
            f"(see mm-score {args.command} --help)",
            file=sys.stderr,
        )
        return 2
    flags = command_flags(parser, args.command)

    def one_line(message, category, filename, lineno, file=None, line=None):
        print(
            f"mm-score {args.command}: warning: {in_flags(' '.join(str(message).split()), flags)}",
            file=sys.stderr,
        )

    shown = warnings.showwarning
    warnings.showwarning = one_line
    try:
        mm_paths.check_paths(args)
        return args.run(args)
    except (
        ValueError,
        TypeError,
        RuntimeError,
        OSError,
    ) as err:  # FormatError is a ValueError; RuntimeError: a missing build
        print(
            f"mm-score {args.command}: error: {in_flags(' '.join(str(err).split()), flags)}", file=sys.stderr
        )
        return 2
    except ImportError as err:  # an optional dependency of the metric (the library imports them when scoring)
        print(f"mm-score {args.command}: error: {missing_dependency(err)}", file=sys.stderr)
        return 2
    except MemoryError:
        print(
            f"mm-score {args.command}: error: out of memory: an input is too large for this machine",
            file=sys.stderr,
        )
        return 2
    finally:
        warnings.showwarning = shown


if __name__ == "__main__":
    sys.exit(main())
