"""Time the shared resampling helper (multimodal_metrics.stats) against sacrebleu 2.6.0's procedure on the same data.

    .venv/bin/python benchmarks/bench_stats.py            # 100,000 per-example scores, 1,000 resamples
    .venv/bin/python benchmarks/bench_stats.py --quick    # 10,000 scores

Rows: the percentile interval of a mean; the paired bootstrap (1,000 resamples) and the approximate
randomisation test (10,000 trials) of two systems; and sacrebleu's way of computing the same bootstrap
scores (one (R, n) index matrix, then one statistic call per resample in Python: sacrebleu's
``_bootstrap_resample`` with a mean statistic). Prints CPU and wall seconds (the machine may be shared).
"""

import argparse

import numpy as np
from timing import measure

from multimodal_metrics import stats as S


def sacrebleu_style(scores: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """sacrebleu 2.6.0 significance._bootstrap_resample for a mean: index matrix, Python loop per resample."""
    rng = np.random.default_rng(seed)
    idxs = rng.choice(len(scores), size=(n_resamples, len(scores)), replace=True)
    stats = scores.astype("float32")[:, None]
    return np.array([s.sum(0)[0] / len(scores) for s in stats[idxs]])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="10,000 scores instead of 100,000")
    args = parser.parse_args()
    n = 10_000 if args.quick else 100_000
    rng = np.random.default_rng(0)
    a = rng.random(n)
    b = np.clip(a + rng.normal(0.002, 0.05, size=n), 0, 1)
    S.bootstrap_mean_interval(a[:1000], 0.95, 100, 1)  # warm-up

    (low, high), wall, cpu = measure(lambda: S.bootstrap_mean_interval(a, 0.95, 1000, 12345))
    print(
        f"interval of a mean, n={n:,}, 1,000 resamples: {cpu:.3f} s CPU, {wall:.3f} s wall  [{low:.5f}, {high:.5f}]"
    )
    theirs, wall_s, cpu_s = measure(lambda: sacrebleu_style(a, 1000, 12345))
    lo_s, hi_s = np.quantile(theirs, [0.025, 0.975])
    print(
        f"  sacrebleu-style (index matrix + Python loop): {cpu_s:.3f} s CPU, {wall_s:.3f} s wall "
        f"[{lo_s:.5f}, {hi_s:.5f}]  ratio {cpu_s / cpu:.1f}x (CPU)"
    )
    sa, sb = S.mean_statistic({"score": a}), S.mean_statistic({"score": b})
    res, wall, cpu = measure(lambda: S.paired_bootstrap(sa, sb, 1000, 12345)["score"])
    print(f"paired bootstrap, 1,000 resamples: {cpu:.3f} s CPU, {wall:.3f} s wall  p={res['p_value']:.4f}")
    res, wall, cpu = measure(lambda: S.approximate_randomization(sa, sb, 10_000, 12345)["score"])
    print(
        f"approximate randomisation, 10,000 trials (+1,000 resamples for the interval): "
        f"{cpu:.3f} s CPU, {wall:.3f} s wall  p={res['p_value']:.4f}"
    )


if __name__ == "__main__":
    main()
