"""What every scripts/bench_<name>.py needs: the offline environment, a metric's pure core, a timer."""

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


def load_core(metric: str, module: str):
    """Import metrics/<metric>/<module>.py as a plain module (pure functions, no evaluate)."""
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
