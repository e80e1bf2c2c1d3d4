"""Benchmark fid_clip's Frechet distance against pytorch-fid's scipy.linalg.sqrtm formula.

    .venv/bin/python scripts/bench_fid_clip.py            # 2,048-d features, 10,000 samples per side
    .venv/bin/python scripts/bench_fid_clip.py --quick    # 256-d, 1,000 samples per side
    .venv/bin/python scripts/bench_fid_clip.py --scale    # also 10x samples (streamed) and peak memory
    .venv/bin/python scripts/bench_fid_clip.py --images 40  # also the FID Inception's images/s on CPU
    .venv/bin/python scripts/bench_fid_clip.py --bootstrap 20 --n 5000   # only: FID bootstrap cost

In the same run, on the same generated Inception-like features (non-negative, correlated):
1. the Frechet distance from (mu, sigma): ours (Cholesky factor + symmetric eigenvalues) vs the
   transcription of pytorch-fid 0.3.0 `calculate_frechet_distance` (scipy.linalg.sqrtm, eps retry,
   imaginary-part check); asserts equal values (1e-6 relative) and prints the ratio;
2. statistics + distance from the feature arrays: ours (running float64 sums) vs pytorch-fid
   (`np.mean`, `np.cov`, sqrtm); and `evaluate.load("metrics/fid_clip").compute` end to end;
3. with --scale, 10x the samples: ours streams them in chunks (memory O(d^2)); pytorch-fid holds
   the full (N, d) array; peak traced memory of both. 100x (1,000,000 x 2,048 float64 = 16 GB per
   side for pytorch-fid) does not fit the machine: the distance itself does not depend on N;
4. with --images N, images/s of our FIDInceptionV3 (real size, random weights: same cost as the
   real weights) on 256x256 images, CPU (no GPU is lent to this task).
With --bootstrap R (alone): R resamples of the FID interval (`multimodal_metrics.fid_clip.resampling`'s
`bootstrap_fid`: moments from multinomial counts, one syrk + one eigvalsh per resample) on n generated
features against the other side's fixed moments, vs the naive loop (copy the resample, np.cov, pytorch-fid's sqrtm formula) on a
few of the same resamples (values asserted equal), the Monte Carlo error of the interval's ends for
100 to 1,000 resamples, and `compute(confidence=0.95, n_resamples=R)`.
Timings on a shared machine are noisy: compare the ratios, which are taken in the same run.
"""

import argparse
import sys
import time
import tracemalloc
import warnings

import numpy as np
from _bench import ROOT, offline_env


# ------------------------------------------------------------------------------------------------
# pytorch-fid 0.3.0 src/pytorch_fid/fid_score.py calculate_frechet_distance (transcribed; `disp`
# is gone from scipy.linalg.sqrtm in recent SciPy, so the call drops it: same computation).
# ------------------------------------------------------------------------------------------------
def pytorch_fid_distance(mu1, sigma1, mu2, sigma2, eps=1e-6):
    from scipy import linalg

    mu1, mu2 = np.atleast_1d(mu1), np.atleast_1d(mu2)
    sigma1, sigma2 = np.atleast_2d(sigma1), np.atleast_2d(sigma2)
    assert mu1.shape == mu2.shape and sigma1.shape == sigma2.shape
    diff = mu1 - mu2
    covmean = linalg.sqrtm(sigma1.dot(sigma2))
    if not np.isfinite(covmean).all():
        offset = np.eye(sigma1.shape[0]) * eps
        covmean = linalg.sqrtm((sigma1 + offset).dot(sigma2 + offset))
    if np.iscomplexobj(covmean):
        if not np.allclose(np.diagonal(covmean).imag, 0, atol=1e-3):
            raise ValueError(f"Imaginary component {np.max(np.abs(covmean.imag))}")
        covmean = covmean.real
    return float(diff.dot(diff) + np.trace(sigma1) + np.trace(sigma2) - 2 * np.trace(covmean))


def pytorch_fid_from_features(act1, act2):
    """fid_score.calculate_activation_statistics on both sides, then the distance."""
    return pytorch_fid_distance(np.mean(act1, axis=0), np.cov(act1, rowvar=False),
                                np.mean(act2, axis=0), np.cov(act2, rowvar=False))


def features(n: int, d: int, seed: int, shift: float = 0.0) -> np.ndarray:
    """Inception-like pool3 activations: non-negative, skewed, correlated through a low-rank part."""
    rng = np.random.default_rng(seed)
    scale = rng.gamma(2.0, 0.2, size=d)
    x = rng.gamma(1.5, 1.0, size=(n, d)) * scale
    x += np.abs(rng.standard_normal((n, 32)) @ rng.standard_normal((32, d))) * 0.05
    return x + shift


def best(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return out, min(times)


def _timed(fn):
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - start, time.process_time() - cpu


def monte_carlo_error(stats, d: int = 32, n: int = 300, total: int = 20_000) -> None:
    """How much the ends of the 95% FID interval move between seeds at R resamples: `total` resamples of
    one synthetic set cut into blocks of R, the spread of the ends over the blocks / the mean width."""
    rng = np.random.default_rng(0)
    gen = rng.normal(size=(n, d)) * 1.2 + 0.1
    mu, sigma = np.zeros(d), np.eye(d)
    point = stats.frechet_distance(mu, sigma, gen.mean(0), np.cov(gen, rowvar=False))
    values = stats.bootstrap_fid(gen, mu, sigma, total, 0)
    print(f"  Monte Carlo error of the interval ends ({d}-d, n = {n}, {total:,} resamples in blocks of R):")
    for r in (100, 200, 500, 1000):
        ends = np.array([stats.shifted_percentile_interval(values[k : k + r], point, 0.95) for k in range(0, total, r)])
        width = np.mean(ends[:, 1] - ends[:, 0])
        low, high = ends.std(axis=0) / width
        print(f"    R = {r:5d}: sd of the low / high end = {low:.1%} / {high:.1%} of the interval width")


def bench_bootstrap(n: int, d: int, resamples: int) -> int:
    """Cost of the FID interval: set-up (centring, Cholesky factor, A = Y F) and then per resample, ours
    (counts, one syrk + one eigvalsh) vs the naive copy + np.cov + sqrtm loop on the same resamples."""
    from multimodal_metrics.fid_clip import resampling as stats
    gen, ref = features(n, d, 1), features(n, d, 2, shift=0.01)
    mu_ref, sigma_ref = ref.mean(0), np.cov(ref, rowvar=False)
    print(f"FID bootstrap, {d}-d features, {n:,} generated samples, reference moments fixed")
    stats.bootstrap_fid(gen[: min(n, 64)], mu_ref, sigma_ref, 2, 12345)  # warm-up (BLAS threads, LAPACK)
    _, wall1, cpu1 = _timed(lambda: stats.bootstrap_fid(gen, mu_ref, sigma_ref, 1, 12345))
    values, wall, cpu = _timed(lambda: stats.bootstrap_fid(gen, mu_ref, sigma_ref, resamples + 1, 12345))
    per_wall, per_cpu = (wall - wall1) / resamples, (cpu - cpu1) / resamples
    print(f"  ours: set-up + 1 resample {wall1:.2f} s wall, {cpu1:.2f} s CPU; each further resample "
          f"{per_wall:.3f} s wall, {per_cpu:.3f} s CPU ({resamples} timed); 200 resamples ~{wall1 + 199 * per_wall:.0f} s "
          f"wall ({cpu1 + 199 * per_cpu:.0f} s CPU), 1,000 ~{wall1 + 999 * per_wall:.0f} s wall")
    indices = np.random.default_rng(12345).integers(0, n, size=(1, n))  # the first row of the same stream
    naive, wall_n, cpu_n = _timed(lambda: pytorch_fid_distance(gen[indices[0]].mean(0),
                                                               np.cov(gen[indices[0]], rowvar=False), mu_ref, sigma_ref))
    print(f"  naive (copy, np.cov, sqrtm): {wall_n:.2f} s wall, {cpu_n:.2f} s CPU per resample; ratio "
          f"{wall_n / per_wall:.1f}x wall, {cpu_n / per_cpu:.1f}x CPU per resample")
    rel = abs(values[0] - naive) / abs(naive)
    print(f"  same resample, rel. diff {rel:.1e}")
    assert rel < 1e-6, "values differ"
    monte_carlo_error(stats)
    import evaluate

    metric = evaluate.load(str(ROOT / "metrics" / "fid_clip"))
    r, wall_e, cpu_e = _timed(lambda: metric.compute(predictions=gen, reference_stats={"mu": mu_ref, "sigma": sigma_ref},
                                                     confidence=0.95, n_resamples=resamples))  # fmt: skip
    print(f"  compute(confidence=0.95, n_resamples={resamples}): {wall_e:.2f} s wall, {cpu_e:.2f} s CPU; "
          f"FID {r['fid']:.4f} [{r['fid_ci_low']:.4f}, {r['fid_ci_high']:.4f}]")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="256-d, 1,000 samples per side")
    parser.add_argument("--n", type=int, default=None)
    parser.add_argument("--dims", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", action="store_true", help="also 10x samples, streamed, with peak memory")
    parser.add_argument("--images", type=int, default=0, help="also time the FID Inception on this many images")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="R", help="only time R FID bootstrap resamples")
    args = parser.parse_args()
    n = args.n or (1_000 if args.quick else 10_000)
    d = args.dims or (256 if args.quick else 2_048)
    offline_env()
    from multimodal_metrics.fid_clip import core
    warnings.simplefilter("ignore", UserWarning)
    if args.bootstrap:
        return bench_bootstrap(n, d, args.bootstrap)

    a, b = features(n, d, 1), features(n, d, 2, shift=0.01)
    mu1, s1, mu2, s2 = a.mean(0), np.cov(a, rowvar=False), b.mean(0), np.cov(b, rowvar=False)
    print(f"Frechet distance, {d}-d features, {n:,} samples per side (best of {args.repeat})")
    cpu = time.process_time()
    theirs, t_theirs = best(lambda: pytorch_fid_distance(mu1, s1, mu2, s2), args.repeat)
    cpu_theirs, cpu = time.process_time() - cpu, time.process_time()
    ours, t_ours = best(lambda: core.frechet_distance((mu1, s1), (mu2, s2)), args.repeat)
    cpu_ours = time.process_time() - cpu
    rel = abs(ours - theirs) / abs(theirs)
    print(f"  pytorch-fid sqrtm formula : {t_theirs:8.3f} s   FID = {theirs:.10f}")
    print(f"  ours (eigenvalue route)   : {t_ours:8.3f} s   FID = {ours:.10f}   rel. diff {rel:.1e}")
    print(f"  speed-up                  : {t_theirs / t_ours:8.1f}x wall (best run), "
          f"{cpu_theirs / cpu_ours:.1f}x CPU time (all {args.repeat} runs, all threads)")
    assert rel < 1e-6, "values differ"

    print("From the feature arrays (statistics + distance)")
    theirs2, t_theirs2 = best(lambda: pytorch_fid_from_features(a, b), 1)
    ours2, t_ours2 = best(lambda: core.frechet_distance(core.FrechetStats.from_features(a),
                                                        core.FrechetStats.from_features(b)), 1)
    print(f"  pytorch-fid (np.cov+sqrtm): {t_theirs2:8.3f} s   FID = {theirs2:.10f}")
    print(f"  ours (running sums)       : {t_ours2:8.3f} s   FID = {ours2:.10f}   ratio {t_theirs2 / t_ours2:.1f}x")
    assert abs(ours2 - theirs2) / abs(theirs2) < 1e-6
    import evaluate

    metric = evaluate.load(str(ROOT / "metrics" / "fid_clip"))
    r, t_eval = best(lambda: metric.compute(predictions=a, references=b), 1)
    print(f"  evaluate.load(...).compute: {t_eval:8.3f} s   FID = {r['fid']:.10f}   ratio {t_theirs2 / t_eval:.1f}x "
          "(Arrow write/read of the features included)")
    assert abs(r["fid"] - theirs2) / abs(theirs2) < 1e-6

    if args.scale:
        big = 10 * n
        print(f"10x: {big:,} samples per side")
        tracemalloc.start()

        def ours_streamed():
            stats = [core.FrechetStats(d), core.FrechetStats(d)]
            for k in range(0, big, n):
                stats[0].update(features(n, d, 100 + k))
                stats[1].update(features(n, d, 200 + k, shift=0.01))
            return core.frechet_distance(*stats)

        ours3, t3 = best(ours_streamed, 1)
        peak_ours = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()

        def theirs_full():
            x = np.concatenate([features(n, d, 100 + k) for k in range(0, big, n)])
            y = np.concatenate([features(n, d, 200 + k, shift=0.01) for k in range(0, big, n)])
            return pytorch_fid_from_features(x, y)

        theirs3, t4 = best(theirs_full, 1)
        peak_theirs = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"  pytorch-fid: {t4:8.2f} s  peak {peak_theirs / 2**30:6.2f} GiB   FID = {theirs3:.10f}")
        print(f"  ours       : {t3:8.2f} s  peak {peak_ours / 2**30:6.2f} GiB   FID = {ours3:.10f}   "
              f"ratio {t4 / t3:.1f}x (feature generation included on both sides)")
        assert abs(ours3 - theirs3) / abs(theirs3) < 1e-6

    if args.images:
        import torch

        from multimodal_metrics.fid_clip import inception
        net = inception.build(1.0)
        rng = np.random.default_rng(0)
        imgs = torch.from_numpy(rng.random((args.images, 3, 256, 256), dtype=np.float32))
        with torch.inference_mode():
            net(imgs[:2])
            start, cpu = time.perf_counter(), time.process_time()
            for k in range(0, args.images, 20):
                net(imgs[k : k + 20])
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"FID Inception forward, CPU ({torch.get_num_threads()} threads), batch 20, 256x256 input: "
              f"{args.images / elapsed:.1f} images/s wall ({elapsed:.1f} s for {args.images}), "
              f"{args.images / cpu:.1f} images per CPU-second (all threads); GPU: not lent to this task")
    return 0


if __name__ == "__main__":
    sys.exit(main())
