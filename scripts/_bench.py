"""What every scripts/bench_<name>.py needs: the offline environment, a metric's pure core, a timer."""

import importlib
import importlib.util
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def offline_env() -> None:
    """Offline Hub/evaluate settings and an HF_HOME inside .build/ (call before importing evaluate)."""
    os.environ.setdefault("HF_HOME", str(ROOT / ".build" / "hf_home"))
    for var in ("HF_EVALUATE_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("NLTK_DATA", str(ROOT / ".build" / "nltk_data"))


# Where the pure code of each former metric-folder helper lives in the library (issue 19).
LIBRARY_MODULES = {
    ("anls", "_anls_core"): "multimodal_metrics.anls.core",
    ("ned", "_ned_core"): "multimodal_metrics.ned.core",
    ("text_qa", "_text_qa_core"): "multimodal_metrics.text_qa.core",
    ("vqa_acc", "_vqa_core"): "multimodal_metrics.vqa_acc.core",
    ("vqa_acc", "_vqa_arrow"): "multimodal_metrics.vqa_acc.arrow",
    ("vqa_acc", "_vqa_bleu"): "multimodal_metrics.vqa_acc.bleu",
    ("vqa_acc", "_vqa_tdiuc"): "multimodal_metrics.vqa_acc.tdiuc",
    ("vqa_acc", "_vqa_wups"): "multimodal_metrics.vqa_acc.wups",
    ("vqa_acc", "_mm_wordnet"): "multimodal_metrics.resources.wordnet",
    ("ru_meteor", "_mm_wordnet"): "multimodal_metrics.resources.wordnet",
    ("ru_meteor", "_ru_meteor_core"): "multimodal_metrics.ru_meteor.core",
    ("codebleu", "_ts_legacy"): "multimodal_metrics.codebleu.legacy_runtime",
    ("fid_clip", "_fid_core"): "multimodal_metrics.fid_clip.core",
    ("fid_clip", "_clip"): "multimodal_metrics.fid_clip.clip",
    ("fid_clip", "_images"): "multimodal_metrics.fid_clip.images",
    ("fid_clip", "_inception"): "multimodal_metrics.fid_clip.inception",
    ("fid_clip", "_mm_stats"): "multimodal_metrics.fid_clip.resampling",
    ("anls", "_mm_stats"): "multimodal_metrics.stats",
}


def load_core(metric: str, module: str):
    """The library module that holds what was metrics/<metric>/<module>.py (``LIBRARY_MODULES``), or that
    file imported as a plain module while it is still there (pure functions, no evaluate)."""
    if not (ROOT / "metrics" / metric / f"{module}.py").exists() and (metric, module) in LIBRARY_MODULES:
        return importlib.import_module(LIBRARY_MODULES[(metric, module)])
    key = f"bench_{metric}_{module}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, ROOT / "metrics" / metric / f"{module}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[key] = mod
    spec.loader.exec_module(mod)
    return mod


def timed(fn):
    """(fn(), wall seconds)."""
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def max_rss_mib() -> float:
    """Peak resident memory of this process so far (MiB; Linux reports KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_scale(script: str, base_n: int, factors=(1, 10, 100), budget_s: float = 120.0) -> None:
    """`--scale`: run `script --scale-child N` in a fresh process per size (so peak memory is that size's),
    for N = base_n x each factor; stops before a size whose predicted time exceeds `budget_s`."""
    import subprocess

    print(
        f"{Path(script).name} --scale: one fresh process per size; CPU time per example, peak RSS (2 shared cores)"
    )
    for factor in factors:
        n = base_n * factor
        out = subprocess.run(
            [sys.executable, script, "--scale-child", str(n)], capture_output=True, text=True
        )
        print(out.stdout.rstrip() or out.stderr[-2000:])
        work = [float(w.split()[1]) for w in out.stdout.split("[")[1:] if w.startswith("work ")]
        if factor != factors[-1] and (not work or work[-1] * 10 > budget_s):  # this size's CPU s, x10
            print(f"  (next size skipped: it would exceed {budget_s:.0f} s)")
            break


def scale_child_line(n: int, rss_inputs: float, pure_s: float, compute_s: float | None) -> str:
    """One `--scale` line: per-example CPU time of the pure function and of compute, peak RSS."""
    comp = f"compute {compute_s / n * 1e6:8.2f} us/ex" if compute_s is not None else "compute  (skipped)"
    return (
        f"  {n:>10,} examples: pure {pure_s / n * 1e6:8.2f} us/ex   {comp}   "
        f"peak RSS {max_rss_mib():7.1f} MiB (after inputs {rss_inputs:7.1f} MiB) [work {time.process_time():.1f} s]"
    )


def scale_child(n: int, make_inputs, pure, compute) -> None:
    """One size of `--scale` (in its fresh process): inputs, a warm-up on 5 examples, then CPU time of
    pure(p, r) and compute(p, r)."""
    preds, refs = make_inputs(n)
    pure(preds[:5], refs[:5])  # one-time imports and set-up (evaluate's writer, lazy modules) not timed
    compute(preds[:5], refs[:5])
    rss_inputs = max_rss_mib()
    start = time.process_time()
    pure(preds, refs)
    pure_s = time.process_time() - start
    start = time.process_time()
    compute(preds, refs)
    print(scale_child_line(n, rss_inputs, pure_s, time.process_time() - start))
