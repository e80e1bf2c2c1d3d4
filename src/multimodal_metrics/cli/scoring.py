"""How `mm-score` scores loaded inputs: the library's functional API, ``multimodal_metrics.<metric>.score``
/ ``.compare``, of all examples at once (a progress report on stderr meanwhile); an error about an example
names the file and the record it came from (words.locate)."""

import argparse
import importlib
import inspect
import sys
import time

from ..stats import RESAMPLING
from .formats import FormatError, Loaded
from .words import locate

PROGRESS_MIN = 2000  # a progress report from this many examples on (on a terminal)
CHUNK = 1000  # kept for callers sizing inputs by it (the library scores all examples in one call)


def library(metric: str):
    """``multimodal_metrics.<metric>``: the metric's ``OPTIONS``, ``PRESETS``, ``score`` and ``compare``."""
    return importlib.import_module(f"..{metric}", __package__)


def input_columns(lib, preset: str, columns: dict) -> dict:
    """The per-example columns a format read that the metric's ``score`` takes: its keyword-only inputs
    (``question_types=``, ``texts=``, found from its signature), for vqa_acc only those of the preset."""
    params = inspect.signature(lib.score).parameters.values()
    takes = {p.name for p in params if p.kind is p.KEYWORD_ONLY} - {"return_per_example", *RESAMPLING.names}
    if hasattr(lib, "extra_inputs"):  # vqa_acc: each preset takes its own per-question inputs
        takes &= set(lib.extra_inputs(preset))
    return {name: values for name, values in columns.items() if name in takes}


class Progress:
    """ "<metric>: scoring" and the number of examples on stderr while the library scores them (``show``),
    then the count done and the time taken."""

    def __init__(self, total: int, desc: str, show: bool):
        self.total, self.desc, self.show, self.start = total, desc, show, time.perf_counter()
        if show:
            print(f"{desc}: 0/{total} ex", end="", file=sys.stderr, flush=True)

    def close(self, done: bool = True) -> None:
        if self.show:
            count = self.total if done else 0
            print(
                f"\r{self.desc}: {count}/{self.total} ex [{time.perf_counter() - self.start:.1f}s]",
                file=sys.stderr,
            )
            self.show = False


def score(
    metric_name: str, preset: str, loaded: Loaded, options: dict, per_example: bool, progress=None
) -> dict:
    """The metric's result on loaded inputs: ``multimodal_metrics.<metric_name>.score`` of all examples at
    once (a progress report on stderr meanwhile, see ``Progress``); errors name the file and the record."""
    lib = library(metric_name)
    lib.OPTIONS.check_preset(preset)
    columns = input_columns(lib, preset, loaded.columns)
    n = len(loaded.predictions)
    if n == 0:
        raise FormatError(loaded.gt_path, "holds no examples")
    # progress: None = on a terminal from PROGRESS_MIN examples on; True / False = always / never
    show = progress if progress is not None else (n >= PROGRESS_MIN and sys.stderr.isatty())
    bar = Progress(n, f"{metric_name}: scoring", bool(show))
    try:
        result = lib.score(loaded.predictions, loaded.references, preset, return_per_example=per_example,
                           **columns, **{k: v for k, v in options.items() if v is not None})  # fmt: skip
    except (ValueError, TypeError) as err:
        bar.close(done=False)
        raise ValueError(locate(err, loaded)) from None
    bar.close()
    return result  # a Result: the flat dict, with its signature and options as data


def compare(cmd, args, preset: str, loaded: Loaded, options: dict) -> dict:
    """``multimodal_metrics.<metric>.compare`` of --pred (system A) against --compare-pred (system B) on the
    same ground truth."""
    if args.per_example or options.get("confidence") is not None:
        raise ValueError("--compare-pred prints a paired test: leave out --per-example and --confidence")
    loaded_b = cmd.formats[args.format].read(argparse.Namespace(**{**vars(args), "pred": args.compare_pred}))
    if cmd.prepare:
        loaded_b = cmd.prepare(loaded_b, preset)
    if loaded_b.ids != loaded.ids:
        raise FormatError(args.compare_pred, "does not cover the same ground-truth records as --pred")
    lib = library(cmd.metric)
    lib.OPTIONS.check_preset(preset)
    columns = input_columns(lib, preset, loaded.columns)
    kwargs = {k: v for k, v in options.items() if v is not None and k not in RESAMPLING}
    rule = {"p_value": args.p_value} if args.p_value is not None else {}  # else the library's default
    return lib.compare(loaded.predictions, loaded_b.predictions, loaded.references, args.test,
                       n_resamples=options.get("n_resamples"), seed=options.get("seed"), preset=preset,
                       **columns, **rule, **kwargs)  # fmt: skip
