"""Score shards anywhere, merge them into the one-process result: ``--save-state``, ``--shard``, ``mm-score merge``.

Every metric command (those with a mergeable state, :mod:`multimodal_metrics.state`) takes

    --shard I/N          score only block I (0 <= I < N) of the N contiguous blocks of the ground-truth
                         records (a Slurm array task, a Kubernetes job index); each example keeps its
                         position in the whole file as its index
    --index-start K      the index of the first record (files split beforehand: the records before them)
    --total N            the number of examples of the whole job (default with --shard: the file's record
                         count, unless --index-start says the file is one part of the job)
    --save-state FILE    write the state of the examples scored (bytes of ``State.to_bytes``)

and ``mm-score merge FILE... [--json]`` merges saved states of one metric, preset and options into the
result that one ``mm-score`` run over all records prints (value, per-example list in index order, seeded
interval, signature: bit for bit)::

    for i in 0 1 2 3; do mm-score anls --gt val.json --pred sub.json --shard $i/4 --save-state s$i.state & done
    wait; mm-score merge s*.state --confidence 0.95        # = mm-score anls --gt val.json --pred sub.json --confidence 0.95

Shards of one run hold disjoint examples: ``merge`` refuses two files that hold the same index (two
shards given the same place) unless ``--allow-duplicates`` (states written by a padded sampler, whose
repeated examples the merge drops when their inputs are identical). A state knows the job's size, so a
merge that lacks a shard is refused, naming the missing examples, unless ``--allow-partial`` (then the
result says so: a warning and ``partial:<held>/<total>`` in its signature).
"""

import argparse
import functools
import sys
import warnings

from ..stats import RESAMPLING
from . import paths as mm_paths
from .arguments import add_resampling_arguments
from .formats import Loaded, read_bytes
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
    group.add_argument(
        "--total",
        type=_count,
        metavar="N",
        help="the number of examples of the whole job, recorded in the state so that `mm-score merge` "
        "refuses a merge that lacks some (default with --shard: the number of records, unless --index-start)",
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
    args.state_total = job_total(args, n)
    return start, stop


def job_total(args, n: int) -> int | None:
    """The number of examples of the whole job: ``--total``, else the ``n`` records of the file when it is
    the whole job split by ``--shard`` (and no ``--index-start``), else unknown (None: a file scored whole
    may be one part of a job split beforehand)."""
    total = getattr(args, "total", None)
    if total is not None:
        if args.index_start + n > total:
            raise ValueError(
                f"--total {total}: the records of this file are examples {args.index_start}.."
                f"{args.index_start + n - 1}, past the job's {total}"
            )
        return total
    return n if args.shard and args.index_start == 0 else None


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
    state = lib.state(preset, total=args.state_total, **kwargs)
    if loaded.ids:
        try:
            state.update(loaded.predictions, loaded.references, **columns, index=args.state_index)
        except (ValueError, TypeError) as err:
            raise ValueError(locate(err, loaded)) from None
        state.name_records(args.state_index, loaded.ids)  # merge --per-example writes the records' ids
    out.write(state.to_bytes())
    if not loaded.ids:
        print(f"mm-score {cmd.name}: note: no examples in this shard: saved an empty state", file=sys.stderr)
        return {"per_example": []} if args.per_example else {}
    resampling = {k: options.get(k) for k in RESAMPLING.names}
    with warnings.catch_warnings():  # a shard's own score is partial by design: said once, below
        warnings.simplefilter("ignore", UserWarning)
        result = state.result(return_per_example=bool(args.per_example), allow_partial=True, **resampling)
    partial = result.signature_fields.get("partial")
    if partial is not None:
        print(
            f"mm-score {cmd.name}: note: this shard's score covers {partial} of the job's examples "
            "(partial in its signature); `mm-score merge` of every shard's --save-state gives the whole score",
            file=sys.stderr,
        )
    return dict(result)


# ----------------------------------------------------------------------------------------------
# mm-score merge
# ----------------------------------------------------------------------------------------------
MERGE_DOC = """Merges states saved by metric commands (--save-state) of one metric, preset and options into the
result that one mm-score run over all their records prints: value, per-example list in index order,
seeded interval (--confidence, --n-resamples, --seed here), signature, bit for bit:

  for i in 0 1 2 3; do mm-score anls --gt val.json --pred sub.json --shard $i/4 --save-state s$i.state; done
  mm-score merge s*.state --confidence 0.95    # = mm-score anls --gt val.json --pred sub.json --confidence 0.95

Files of another metric, preset, option value, resource, library version or job size are refused, naming
what differs; then two files holding the same example index (two shards given the same place), unless
--allow-duplicates. Each state records the job's number of examples (the record count with --shard, or
--total): a merge that lacks examples is refused, naming them ("examples 75-99 are missing"), unless
--allow-partial, which scores the examples held and says so (a warning and partial:<held>/<total> in the
signature). --per-example writes one JSON line per example, as one command writes it: {"id": <the record's
id>, "<score>": ...} ({"index": ...} for states saved without record ids)."""


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
        help="accept an example index held by several files (kept once when its inputs are identical)",
    )
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="score the examples held when the states lack some of the job's (the signature says partial)",
    )
    p.add_argument(
        "--total",
        type=_count,
        metavar="N",
        help="the job's number of examples, for states saved without one (refused if theirs differs)",
    )
    mm_paths.add_argument(p, "--per-example", "output", metavar="FILE",
                          help='write {"id": ..., "<score>": ...} JSON lines, as one command does')  # fmt: skip
    p.add_argument("--save-state", metavar="FILE", help="write the merged state")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(run=run_merge)


def check_file_head_of(size: int, handle, where: str) -> None:
    from ..state_format import check_file_head

    check_file_head(size, handle, where)


def run_merge(args) -> int:
    import json

    import numpy as np

    from .. import state as mm_state

    save = mm_paths.Output(args.save_state, "--save-state") if args.save_state else None
    states = []
    for path in args.files:
        where = str(path)
        head = functools.partial(check_file_head_of, where=where)
        states.append(mm_state.from_bytes(read_bytes(path, "a state file (--save-state)", head), where))
    for path, state in zip(args.files[1:], states[1:], strict=True):  # what they are, before what they hold
        try:
            state.check_mergeable(states[0])  # "<key> differs (<first file's> vs <this one's>)"
        except ValueError as err:
            raise ValueError(f"{args.files[0]} and {path}: {err}") from None
    if args.total is not None:
        for path, state in zip(args.files, states, strict=True):
            if state.total not in (None, args.total):
                raise ValueError(
                    f"{path}: the state's job has {state.total} examples, not --total {args.total}"
                )
            state.total = args.total
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
            allow_partial=args.allow_partial,
        )
    )
    if args.per_example and merged.metric == "fid_clip" and "clip_score" not in result:
        raise ValueError("--per-example writes the CLIP score of every prompt: these states hold FID alone")
    if args.per_example:
        primary = "clip_score" if merged.metric == "fid_clip" else next(iter(result))
        lines = []
        index = merged.index.tolist()
        named = all(i in merged.record_ids for i in index)  # as one command writes them, else by index
        for i, value in zip(index, result.pop("per_example"), strict=True):
            key = ("id", merged.record_ids[i]) if named else ("index", i)
            row = {key[0]: key[1], **value} if isinstance(value, dict) else {key[0]: key[1], primary: value}
            lines.append(json.dumps(row, ensure_ascii=False) + "\n")
        args.per_example_out.write("".join(lines))
    if merged.metric == "fid_clip":  # as `mm-score fid-clip` prints it
        result = generation_result(result, len(merged))
    else:
        result["examples"] = len(merged)
    print_result(result, args.json)
    return 0
