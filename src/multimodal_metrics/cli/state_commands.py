"""Score shards anywhere, merge them into the one-process result: ``--save-state``, ``--shard``, ``mm-score merge``.

Every metric command (those with a mergeable state, :mod:`multimodal_metrics.state`) takes

    --shard I/N          score only block I (0 <= I < N) of the N contiguous blocks of the ground-truth
                         records (a Slurm array task, a Kubernetes job index); each example keeps its
                         position in the whole file as its index
    --index-start K      the index of the first record (files split beforehand: the records before them)
    --save-state FILE    write the state of the examples scored (bytes of ``State.to_bytes``)

and ``mm-score merge FILE... [--json]`` merges saved states of one metric, preset and options into the
result that one ``mm-score`` run over all records prints (value, per-example list in index order, seeded
interval, signature: bit for bit)::

    for i in 0 1 2 3; do mm-score anls --gt val.json --pred sub.json --shard $i/4 --save-state s$i.state & done
    wait; mm-score merge s*.state --confidence 0.95        # = mm-score anls --gt val.json --pred sub.json --confidence 0.95

Shards of one run hold disjoint examples: ``merge`` refuses two files that hold the same index (two
shards given the same place) unless ``--allow-duplicates`` (states written by a padded sampler, whose
repeated examples the merge drops when their rows are identical).
"""

import argparse
import sys

from ..stats import RESAMPLING
from . import paths as mm_paths
from .arguments import add_resampling_arguments
from .formats import FormatError, Loaded, read_bytes
from .output import generation_result, print_result
from .scoring import input_columns, library
from .words import locate

SHARD_HELP = (
    "score only block I of N contiguous blocks of {records} (0 <= I < N), keeping each "
    "example's position in the whole file as its index; with --save-state, `mm-score merge` joins the blocks"
)


def _shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected I/N (e.g. 0/4), got {text!r}") from None
    if not (n >= 1 and 0 <= i < n):
        raise argparse.ArgumentTypeError(f"expected I/N with 0 <= I < N, got {text!r}")
    return i, n


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return value


def add_arguments(
    parser, records: str = "the ground-truth records", first: str = "ground-truth record"
) -> None:
    """The flags of a metric command: ``--save-state``, ``--shard`` (blocks of ``records``), ``--index-start``
    (the index of the ``first``)."""
    group = parser.add_argument_group("shards and mergeable state (see `mm-score merge --help`)")
    group.add_argument("--save-state", metavar="FILE", help="write the scoring state of the examples scored")
    group.add_argument("--shard", type=_shard, metavar="I/N", help=SHARD_HELP.format(records=records))
    group.add_argument(
        "--index-start",
        type=_count,
        default=0,
        metavar="K",
        help=f"the index of the first {first} (for files split beforehand; default 0)",
    )


# ----------------------------------------------------------------------------------------------
# A metric command: the shard, then the state
# ----------------------------------------------------------------------------------------------
def block(args, n: int) -> tuple[int, int]:
    """(start, stop) of ``--shard``'s block of ``n`` records (all of them without ``--shard``), and
    ``args.state_index``: the global index of each record of the block."""
    start, stop = 0, n
    if args.shard:
        i, parts = args.shard
        start, stop = n * i // parts, n * (i + 1) // parts
    args.state_index = list(range(args.index_start + start, args.index_start + stop))
    return start, stop


def select(args, loaded):
    """``loaded`` cut to ``--shard``'s block; ``args.state_index``: the global index of each example kept."""
    if args.compare_pred and (args.shard or args.save_state):
        raise ValueError("--compare-pred compares whole files: leave out --shard and --save-state")
    n = len(loaded.ids)
    start, stop = block(args, n)
    if (start, stop) == (0, n):
        return loaded
    return Loaded(
        loaded.ids[start:stop],
        loaded.predictions[start:stop],
        loaded.references[start:stop],
        {k: v[start:stop] for k, v in loaded.columns.items()},
        loaded.gt_path,
        loaded.pred_path,
        loaded.warnings,
    )


def score_and_save(cmd, args, preset: str, loaded, options: dict) -> dict:
    """The command's result from a state of the examples of ``loaded`` (equal to ``score``), the state
    written to ``--save-state``. An empty shard saves an empty state and prints no score."""
    out = mm_paths.Output(args.save_state, "--save-state")  # checked before any scoring starts
    lib = library(cmd.metric)
    if not hasattr(lib, "state"):
        raise ValueError(
            f"{cmd.metric} has no mergeable state in this version: --save-state is not available"
        )
    lib.OPTIONS.check_preset(preset)
    columns = input_columns(lib, preset, loaded.columns)
    kwargs = {k: v for k, v in options.items() if v is not None and k not in RESAMPLING}
    state = lib.state(preset, **kwargs)
    if loaded.ids:
        try:
            state.update(loaded.predictions, loaded.references, **columns, index=args.state_index)
        except (ValueError, TypeError) as err:
            raise ValueError(locate(err, loaded)) from None
    out.write(state.to_bytes())
    if not loaded.ids:
        print(f"mm-score {cmd.name}: note: no examples in this shard: saved an empty state", file=sys.stderr)
        return {"per_example": []} if args.per_example else {}
    resampling = {k: options.get(k) for k in RESAMPLING.names}
    return dict(state.result(return_per_example=bool(args.per_example), **resampling))


# ----------------------------------------------------------------------------------------------
# mm-score merge
# ----------------------------------------------------------------------------------------------
MERGE_DOC = """Merges states saved by metric commands (--save-state) of one metric, preset and options into the
result that one mm-score run over all their records prints: value, per-example list in index order,
seeded interval (--confidence, --n-resamples, --seed here), signature, bit for bit:

  for i in 0 1 2 3; do mm-score anls --gt val.json --pred sub.json --shard $i/4 --save-state s$i.state; done
  mm-score merge s*.state --confidence 0.95    # = mm-score anls --gt val.json --pred sub.json --confidence 0.95

Files of another metric, preset, option value, resource or library version are refused, naming what
differs; then two files holding the same example index (two shards given the same place), unless
--allow-duplicates. --per-example writes one JSON line per example: {"index": ..., "<score>": ...}."""


def add_merge_parser(sub) -> None:
    summary = "merge saved scoring states (--save-state) into the one-process result"
    p = sub.add_parser(
        "merge",
        help=summary,
        description=summary,
        epilog=MERGE_DOC,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="states written by --save-state (any order)")
    add_resampling_arguments(
        p, "confidence interval (bootstrap over the examples)", "bootstrap resamples (default: the metric's)"
    )
    p.add_argument(
        "--allow-duplicates",
        action="store_true",
        help="accept an example index held by several files (dropped when its rows are identical)",
    )
    mm_paths.add_argument(p, "--per-example", "output", metavar="FILE",
                          help='write {"index": ..., "<score>": ...} JSON lines')  # fmt: skip
    p.add_argument("--save-state", metavar="FILE", help="write the merged state")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(run=run_merge)


def run_merge(args) -> int:
    import json

    import numpy as np

    from .. import state as mm_state

    save = mm_paths.Output(args.save_state, "--save-state") if args.save_state else None
    states = []
    for path in args.files:
        try:
            states.append(mm_state.from_bytes(read_bytes(path, "a state file (--save-state)")))
        except FormatError:
            raise
        except ValueError as err:
            raise FormatError(path, str(err)) from None
    for path, state in zip(args.files[1:], states[1:], strict=True):  # what they are, before what they hold
        try:
            state._check_same(states[0])  # "<key> differs (<first file's> vs <this one's>)"
        except ValueError as err:
            raise ValueError(f"{args.files[0]} and {path}: {err}") from None
    if not args.allow_duplicates:
        owner = {}
        for path, state in zip(args.files, states, strict=True):
            index = state.index
            for other, seen in owner.items():
                common = np.intersect1d(index, seen, assume_unique=True)
                if len(common):
                    raise ValueError(
                        f"{other} and {path} both hold example index {int(common[0])}: shards of one run "
                        "hold disjoint examples (score each with --shard I/N, or --index-start K for files "
                        "split beforehand; --allow-duplicates accepts repeated identical examples)"
                    )
            owner[path] = index
    try:
        merged = mm_state.merge_all(states)
    except ValueError as err:
        raise ValueError(f"{' '.join(args.files)}: {err}") from None
    if save is not None:
        save.write(merged.to_bytes())
    result = dict(
        merged.result(
            return_per_example=bool(args.per_example),
            confidence=args.confidence,
            n_resamples=args.n_resamples,
            seed=args.seed,
        )
    )
    if args.per_example and merged.metric == "fid_clip" and "clip_score" not in result:
        raise ValueError("--per-example writes the CLIP score of every prompt: these states hold FID alone")
    if args.per_example:
        primary = "clip_score" if merged.metric == "fid_clip" else next(iter(result))
        lines = []
        for i, value in zip(merged.index.tolist(), result.pop("per_example"), strict=True):
            row = {"index": i, **value} if isinstance(value, dict) else {"index": i, primary: value}
            lines.append(json.dumps(row, ensure_ascii=False) + "\n")
        args.per_example_out.write("".join(lines))
    if merged.metric == "fid_clip":  # as `mm-score fid-clip` prints it
        result = generation_result(result, len(merged))
    else:
        result["examples"] = len(merged)
    print_result(result, args.json)
    return 0
