"""What every benchmarks/bench_<name>.py shares: the offline environment, the one timer (`measure`),
peak memory and the `--scale` runs (a fresh process per size).

The benchmarks import the library (``multimodal_metrics.<metric>.<module>``) and, for the references
transcribed from official scripts, ``tests/oracles/`` (importing this module puts ``tests/`` on the path;
a benchmark imports its oracles after it, below an ``# isort: split`` line).
"""

import gc
import os
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
if str(TESTS) not in sys.path:  # ``from oracles import ...``: the references transcribed in tests/oracles/
    sys.path.insert(0, str(TESTS))


def offline_env() -> None:
    """Offline Hub/evaluate settings and an HF_HOME inside .build/ (call before importing evaluate)."""
    os.environ.setdefault("HF_HOME", str(ROOT / ".build" / "hf_home"))
    for var in ("HF_EVALUATE_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("NLTK_DATA", str(ROOT / ".build" / "nltk_data"))


class Timing(NamedTuple):
    """What `measure` returns: the last result, and the least wall and CPU seconds over the runs."""

    out: Any
    wall: float
    cpu: float


def measure(
    fn, repeat: int = 1, *, warmup: bool = False, collect: bool = False, thread: bool = False
) -> Timing:
    """Run ``fn()`` ``repeat`` times: (its last result, least wall seconds, least CPU seconds).

    ``warmup``: one untimed call first (imports, grammar loads, caches); ``collect``: ``gc.collect()``
    before each run, so garbage left by what ran before is not timed (a WordNet reader is ~10^6
    objects); ``thread``: CPU time of this thread only (``time.thread_time``: BLAS or decoding threads
    and a spinning OpenBLAS pool are left out), else of the whole process (``time.process_time``).
    """
    cpu_clock = time.thread_time if thread else time.process_time
    if warmup:
        fn()
    out, wall, cpu = None, float("inf"), float("inf")
    for _ in range(repeat):
        if collect:
            gc.collect()
        w, c = time.perf_counter(), cpu_clock()
        out = fn()
        wall, cpu = min(wall, time.perf_counter() - w), min(cpu, cpu_clock() - c)
    return Timing(out, wall, cpu)


def interleaved(
    fns: dict, rounds: int = 5, *, thread: bool = False, collect: bool = True
) -> dict[str, Timing]:
    """``{name: Timing}`` of several callables timed in turns (one run of each per round, ``rounds``
    rounds, after one untimed warm-up call each), the least wall and CPU seconds of each: on a shared
    machine a burst of load then falls on every side alike instead of on whichever ran during it.
    ``thread``/``collect``: as in :func:`measure`."""
    cpu_clock = time.thread_time if thread else time.process_time
    out = {name: fn() for name, fn in fns.items()}
    wall = dict.fromkeys(fns, float("inf"))
    cpu = dict.fromkeys(fns, float("inf"))
    for _ in range(rounds):
        for name, fn in fns.items():
            if collect:
                gc.collect()
            w, c = time.perf_counter(), cpu_clock()
            out[name] = fn()
            wall[name], cpu[name] = min(wall[name], time.perf_counter() - w), min(cpu[name], cpu_clock() - c)
    return {name: Timing(out[name], wall[name], cpu[name]) for name in fns}


def cpu_on_a_tenth(fn, inputs, n: int) -> float:
    """CPU seconds of one run of ``fn`` on the first tenth of each input, scaled to ``n`` (for the slow,
    linear reference loops)."""
    tenth = max(n // 10, 1)
    return measure(lambda: fn(*(x[:tenth] for x in inputs))).cpu * n / tenth


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
