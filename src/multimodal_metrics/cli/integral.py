"""The integral scores of the two contests (`mm-score fusion-brain-2021 FOLDER`, `mm-score fusion-brain-2022
FOLDER`): which sub-task files are looked up, which metric, preset and result key score each, and how the
sub-task scores combine (AIJ 2021: the sum of the four, each rounded to 3 decimals; AIJ 2022: (1/15) x the sum
of the open sub-tasks). Each sub-task is scored by the command line's ``score`` (cli/main.py), passed in.
"""

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..results import sequential_sum
from . import formats as mm_formats
from . import paths as mm_paths
from .formats import FormatError


@dataclass
class SubTask:
    name: str
    metric: str | None  # None: no scorer in this version yet
    preset: str = "default"
    key: str = ""  # the result key that is the sub-task score
    read: Callable | None = None  # (gt_path, pred_path) -> Loaded
    gt_file: str = ""
    pred_file: str = ""
    note: str = ""


FB2021_TASKS = [
    SubTask(
        "C2C",
        "codebleu",
        "fusion_brain_2021",
        "codebleu",
        mm_formats.fb2021_code,
        "true_C2C.json",
        "prediction_C2C.json",
    ),
    SubTask(
        "zsOD", "det_f1", "default", "f1", mm_formats.fb2021_zsod, "true_zsOD.json", "prediction_zsOD.json"
    ),
    SubTask(
        "HTR",
        "ned",
        "default",
        "string_accuracy",
        mm_formats.fb2021_htr,
        "true_HTR.json",
        "prediction_HTR.json",
    ),
    SubTask(
        "VQA",
        "vqa_acc",
        "fusion_brain_2021",
        "accuracy",
        mm_formats.fb2021_vqa,
        "true_VQA.json",
        "prediction_VQA.json",
    ),
]
# The six open sub-tasks of AIJ 2022 (split_tasks.py names: <task>/<task>_gt.json, <task>_pred.json).
FB2022_TASKS = [
    SubTask("textqa", "text_qa", "textqa", "f1", mm_formats.fb2022_text),
    SubTask("mathqa", "text_qa", "mathqa", "exact_match", mm_formats.fb2022_text),
    SubTask("text_recognition", "ned", "default", "one_minus_ned", mm_formats.fb2022_text),
    SubTask("generation", None, note="image folders and model weights: score it with `mm-score fid-clip`"),
    SubTask(
        "captioning",
        None,
        note="0.5 x (METEOR + ruCLIP) needs the images and ruCLIP weights: not wired into this "
        "command; METEOR alone: `mm-score ru-meteor`",
    ),
    SubTask("vqa", "ru_meteor", "vqa", "meteor", mm_formats.fb2022_text),
]
for _task in FB2022_TASKS:
    _task.gt_file, _task.pred_file = f"{_task.name}_gt.json", f"{_task.name}_pred.json"


def find_file(folder: Path, name: str) -> Path | None:
    """``folder/name``, else the one file of that name below ``folder`` (several: an error)."""
    if (folder / name).is_file():
        return folder / name
    found = sorted(folder.rglob(name))
    if len(found) > 1:
        raise FormatError(
            folder, f"{len(found)} files named {name} below this folder: {[str(p) for p in found[:3]]}"
        )
    return found[0] if found else None


def run_integral(contest: str, tasks: list, combine: Callable, args, score: Callable) -> int:
    """The integral score of ``contest`` from the files of ``args.folder``; ``score``: the command line's
    ``score(metric, preset, loaded, options, per_example, progress)`` of each sub-task."""
    gt_dir, pred_dir = Path(args.folder), Path(args.pred_dir or args.folder)
    for folder in (gt_dir, pred_dir):
        if not folder.is_dir():
            raise FormatError(folder, "folder not found")
    if contest == "fusion-brain-2022" and (gt_dir / "ids.json").is_file():
        import tempfile

        gt_file = next(
            (gt_dir / n for n in ("ground_truth.json", "output.json") if (gt_dir / n).is_file()), None
        )
        if gt_file is None:
            raise FormatError(gt_dir, "has ids.json but no ground_truth.json (or output.json) beside it")
        with tempfile.TemporaryDirectory() as split_dir:
            mm_formats.split_fb2022(gt_dir / "ids.json", gt_file, pred_dir / "predictions.json", split_dir)
            args.folder, args.pred_dir = split_dir, None
            return run_integral(contest, tasks, combine, args, score)
    scores, report, missing = {}, {}, {}
    for task in tasks:
        gt = find_file(gt_dir, task.gt_file) if task.metric else None
        pred = find_file(pred_dir, task.pred_file) if task.metric else None
        if task.metric is None or gt is None or pred is None:
            absent = [f for f, p in ((task.gt_file, gt), (task.pred_file, pred)) if p is None]
            missing[task.name] = task.note or f"not found: {', '.join(absent)}"
            continue
        loaded = task.read(gt, pred)
        for warning in loaded.warnings:
            print(f"mm-score {contest}: warning: {warning}", file=sys.stderr)
        options = {}
        if task.metric == "codebleu" and getattr(args, "codebleu_grammar_library", None):
            options["grammar_library"] = args.codebleu_grammar_library
        if task.metric == "ru_meteor":
            options["ruwordnet_path"] = getattr(args, "ruwordnet_path", None)
            if options["ruwordnet_path"] is None and _default_ruwordnet() is None:
                missing[task.name] = (
                    "no RuWordNet for its METEOR (pass --ruwordnet-path or set RUWORDNET_DB; "
                    "RuWordNet is not on PyPI, see `mm-score ru-meteor --help`)"
                )
                continue
        result = score(task.metric, task.preset, loaded, options, False, args.progress)
        scores[task.name] = result[task.key]
        report[task.name] = {
            "score": result[task.key],
            "key": task.key,
            "signature": result["signature"],
            "examples": len(loaded.ids),
        }
    if missing and not args.partial:
        detail = "; ".join(f"{k}: {v}" for k, v in missing.items())
        raise FormatError(gt_dir, f"sub-task(s) not scored ({detail}); pass --partial to count them as 0")
    if not scores:
        expected = ", ".join(f"{t.gt_file} + {t.pred_file}" for t in tasks if t.metric)
        raise FormatError(gt_dir, f"no sub-task files found (expected {expected})")
    total, parts = combine(scores)
    for name, part in parts.items():
        report[name]["contribution"] = part
    out = {"score": total, "sub_tasks": report, "missing": sorted(missing)}
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print(f"{contest} integral score  {total:.6f}")
        for name, entry in report.items():
            print(f"  {name:<17} {entry['key']:<16} {entry['score']:.6f}  -> {entry['contribution']:.6f}")
        for name, why in missing.items():
            print(f"  {name:<17} missing (counted as 0): {why}")
    return 0


def _default_ruwordnet():
    """Where ru_meteor finds RuWordNet without ``ruwordnet_path`` ($RUWORDNET_DB, the ruwordnet package), or None."""
    from ..ru_meteor.synonyms import default_ruwordnet_path

    return default_ruwordnet_path()


def combine_2021(scores: dict) -> tuple:
    """S = S_C2C + S_zsOD + S_HTR + S_VQA, each rounded to 3 decimals (AIJ 2021 README)."""
    parts = {name: round(value, 3) for name, value in scores.items()}
    return sequential_sum(parts.values()), parts


def combine_2022(scores: dict) -> tuple:
    """S = (1/15) * sum of the 6 open sub-task scores (AIJ 2022 README; the hidden ones add
    (1/10) * sum of 6 more, not public)."""
    parts = {name: value / 15 for name, value in scores.items()}
    return sequential_sum(parts.values()), parts


INTEGRALS = {
    "fusion-brain-2021": (
        FB2021_TASKS,
        combine_2021,
        "AIJ 2021 Fusion Brain integral score: S = C2C CodeBLEU + zsOD F1 + HTR string accuracy + VQA accuracy,\n"
        "each rounded to 3 decimals.",
    ),
    "fusion-brain-2022": (
        FB2022_TASKS,
        combine_2022,
        "AIJ 2022 FusionBrain 2.0 integral score over the open sub-tasks: S = (1/15) x sum of the sub-task scores\n"
        "(TextQA F1, MathQA exact match, text recognition 1 - NED, VisualQA METEOR with RuWordNet from $RUWORDNET_DB\n"
        "or the ruwordnet package; generation is scored by `mm-score fid-clip` and captioning needs METEOR + ruCLIP:\n"
        "--partial counts them as 0). FOLDER holds the split files of the official\n"
        "split_tasks.py, or the unsplit ids.json + ground_truth.json (or output.json) + predictions.json.",
    ),
}


# the file flags a contest command adds when one of its tasks is scored by the metric: (flag, metavar, help)
_INPUT_PATHS = {
    "ru_meteor": (
        "--ruwordnet-path",
        "DB",
        "VisualQA METEOR: the RuWordNet SQLite file (default: $RUWORDNET_DB, then the ruwordnet "
        "package's); without one, --partial counts VisualQA as 0",
    ),
    "codebleu": (
        "--codebleu-grammar-library",
        "SO",
        "C2C: codebleu grammar_library: '2020' (default: the 2020 grammars, where built), "
        "'wheels', or the official parser/my-languages.so",
    ),
}


def add_parsers(sub, score: Callable, progress_min: int) -> None:
    """One sub-command per contest of ``INTEGRALS`` (``score``: see :func:`run_integral`)."""
    for name, (tasks, combine, description) in INTEGRALS.items():
        files = "\n".join(f"  {t.name:<17} {t.gt_file} + {t.pred_file}" for t in tasks)
        p = sub.add_parser(
            name,
            help=description.split(":")[0],  # the heading, a whole phrase (the formula follows in --help)
            description=description,
            epilog=f"Files looked up in FOLDER (or anywhere below it):\n{files}\n"
            "See the metric commands' --help for each file's format.",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.add_argument("folder", metavar="FOLDER", help="folder of the ground-truth (and prediction) files")
        p.add_argument(
            "--pred-dir", metavar="FOLDER", help="folder of the prediction files (default: FOLDER)"
        )
        p.add_argument("--partial", action="store_true", help="count sub-tasks without files or scorer as 0")
        p.add_argument("--json", action="store_true", help="print the result as JSON")
        p.add_argument(
            "--progress",
            action=argparse.BooleanOptionalAction,
            default=None,
            help=f"progress bar on stderr (default: on a terminal, from {progress_min} examples on)",
        )
        for metric, (flag, metavar, help_) in _INPUT_PATHS.items():
            if any(t.metric == metric for t in tasks):
                mm_paths.add_argument(p, flag, "input", metavar=metavar, help=help_)
        p.set_defaults(
            run=lambda args, name=name, tasks=tasks, combine=combine: run_integral(
                name, tasks, combine, args, score
            )
        )
