"""Benchmark fid_clip's Frechet distance against pytorch-fid's scipy.linalg.sqrtm formula.

    .venv/bin/python benchmarks/bench_fid_clip.py            # 2,048-d features, 10,000 samples per side
    .venv/bin/python benchmarks/bench_fid_clip.py --quick    # 256-d, 1,000 samples per side
    .venv/bin/python benchmarks/bench_fid_clip.py --scale    # also 10x samples (streamed) and peak memory
    .venv/bin/python benchmarks/bench_fid_clip.py --bootstrap 20 --n 5000   # only: FID bootstrap cost
    .venv/bin/python benchmarks/bench_fid_clip.py --distance   # only: the distance alone, N = 10 ... 10,000
    .venv/bin/python benchmarks/bench_fid_clip.py --small      # only: fid_clip.score end to end, N = 10, 100, 1,000
    .venv/bin/python benchmarks/bench_fid_clip.py --images 40  # only: images/s from file paths (see below)
    .venv/bin/python benchmarks/bench_fid_clip.py --moments    # only: the statistics, ours vs np.cov, N = 5,000, 20,000
    .venv/bin/python benchmarks/bench_fid_clip.py --clip 500 --repeat 5  # only: CLIP score vs torchmetrics, per input form

In the same run, on the same generated Inception-like features (non-negative, correlated):
1. the Frechet distance from (mu, sigma): ours (Cholesky factor + symmetric eigenvalues) vs the
   transcription of pytorch-fid 0.3.0 `calculate_frechet_distance` (scipy.linalg.sqrtm, eps retry,
   imaginary-part check); asserts equal values (1e-6 relative) and prints the ratio;
2. statistics + distance from the feature arrays: ours (running float64 sums) vs pytorch-fid
   (`np.mean`, `np.cov`, sqrtm); and `evaluate.load("metrics/fid_clip").compute` end to end;
3. with --scale, 10x the samples: ours streams them in chunks (memory O(d^2)); pytorch-fid holds
   the full (N, d) array; peak traced memory of both. 100x (1,000,000 x 2,048 float64 = 16 GB per
   side for pytorch-fid) does not fit the machine: the distance itself does not depend on N;
With --distance (alone): the distance alone from two sides' statistics, N = 10, 100, 1,000, 2,047 and
10,000 per side (--sizes) at 2,048-d: ours (the N x N route when N < d), the d x d route every N took
before (Cholesky, or a full eigh when the covariance is singular) and pytorch-fid's sqrtm formula, with
the relative differences (and, at N <= 12, the exact value in 40-digit arithmetic) and peak traced memory.
With --images N (alone): N PNG files (256x256, half generated, half real) scored from their paths by
our `fid_clip.score` (decoding overlapped with the forward pass by `num_workers` worker processes, or not), by
torchmetrics' FrechetInceptionDistance (custom feature module, the images decoded by PIL in the loop)
and by pytorch-fid's loop (`get_activations`: ImagePathDataset + torch DataLoader with worker processes,
transcribed: pytorch-fid needs torchvision, which replaces the CPU torch), all three on the same FID
Inception module with the same random state dict (--width 1.0: the real size; --extractor pool: a nearly
free 4x4 channel pool instead, so that decoding alone bounds the throughput, as on a GPU); at batch 20 and 50
(--batches), with and without workers; each configuration in its own process: images per second, per
CPU-second (all threads, worker processes included) and peak resident memory. --device cuda on a GPU
machine (benchmarks/bench_fid_clip_gpu.sh).
With --moments (alone): the mean and covariance of N feature vectors (--sizes, default 5,000 and 20,000;
--dims, default 2,048): `np.mean` + `np.cov` against `FrechetStats` (one syrk per block of 4,096 indexes,
blocks added in order) from the whole array and streamed in batches of 50 (the image path), best of 3,
wall and CPU seconds (all BLAS threads), the largest relative difference of the covariances, and the wall
seconds of one BLAS dsyrk of the whole centred array (the product both compute: what is left is the rest).
With --bootstrap R (alone): R resamples of the FID interval (`multimodal_metrics.fid_clip.resampling`'s
`bootstrap_fid`: moments from multinomial counts, one syrk + one eigvalsh per resample) on n generated
features against the other side's fixed moments, vs the naive loop (copy the resample, np.cov, pytorch-fid's sqrtm formula) on a
few of the same resamples (values asserted equal), the Monte Carlo error of the interval's ends for
100 to 1,000 resamples, and `compute(confidence=0.95, n_resamples=R)`.
Timings on a shared machine are noisy: compare the ratios, which are taken in the same run.
"""

import argparse
import os
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
from timing import ROOT, measure, offline_env

# isort: split
from oracles.fid import features, pytorch_fid_distance, pytorch_fid_from_features


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
        ends = np.array(
            [stats.shifted_percentile_interval(values[k : k + r], point, 0.95) for k in range(0, total, r)]
        )
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
    _, wall1, cpu1 = measure(lambda: stats.bootstrap_fid(gen, mu_ref, sigma_ref, 1, 12345))
    values, wall, cpu = measure(lambda: stats.bootstrap_fid(gen, mu_ref, sigma_ref, resamples + 1, 12345))
    per_wall, per_cpu = (wall - wall1) / resamples, (cpu - cpu1) / resamples
    print(
        f"  ours: set-up + 1 resample {wall1:.2f} s wall, {cpu1:.2f} s CPU; each further resample "
        f"{per_wall:.3f} s wall, {per_cpu:.3f} s CPU ({resamples} timed); 200 resamples ~{wall1 + 199 * per_wall:.0f} s "
        f"wall ({cpu1 + 199 * per_cpu:.0f} s CPU), 1,000 ~{wall1 + 999 * per_wall:.0f} s wall"
    )
    indices = np.random.default_rng(12345).integers(0, n, size=(1, n))  # the first row of the same stream
    naive, wall_n, cpu_n = measure(
        lambda: pytorch_fid_distance(
            gen[indices[0]].mean(0), np.cov(gen[indices[0]], rowvar=False), mu_ref, sigma_ref
        )
    )
    print(
        f"  naive (copy, np.cov, sqrtm): {wall_n:.2f} s wall, {cpu_n:.2f} s CPU per resample; ratio "
        f"{wall_n / per_wall:.1f}x wall, {cpu_n / per_cpu:.1f}x CPU per resample"
    )
    rel = abs(values[0] - naive) / abs(naive)
    print(f"  same resample, rel. diff {rel:.1e}")
    assert rel < 1e-6, "values differ"
    monte_carlo_error(stats)
    import evaluate

    metric = evaluate.load(str(ROOT / "metrics" / "fid_clip"))
    r, wall_e, cpu_e = measure(lambda: metric.compute(predictions=gen, reference_stats={"mu": mu_ref, "sigma": sigma_ref},
                                                     confidence=0.95, n_resamples=resamples))  # fmt: skip
    print(
        f"  compute(confidence=0.95, n_resamples={resamples}): {wall_e:.2f} s wall, {cpu_e:.2f} s CPU; "
        f"FID {r['fid']:.4f} [{r['fid_ci_low']:.4f}, {r['fid_ci_high']:.4f}]"
    )
    return 0


def _exact_trace_sqrt(x1, x2, dps: int = 40) -> float:
    """Tr((S1 S2)^1/2) in 40-digit arithmetic: the sum of the singular values of B1 B2^T (small N only)."""
    import mpmath

    mpmath.mp.dps = dps

    def centred(x):
        rows = [[mpmath.mpf(float(v)) for v in row] for row in x]
        mean = [sum(r[j] for r in rows) / len(rows) for j in range(len(rows[0]))]
        scale = mpmath.sqrt(len(rows) - 1)
        return mpmath.matrix([[(r[j] - mean[j]) / scale for j in range(len(r))] for r in rows])

    return float(sum(mpmath.svd_r(centred(x1) * centred(x2).T, compute_uv=False)))


def _distance_case(core, n: int, d: int) -> None:
    """One row of --distance."""
    from multimodal_metrics.fid_clip import moments

    a, b = features(n, d, 1), features(n, d, 2, shift=0.01)
    s1, s2 = moments.FrechetStats.from_features(a), moments.FrechetStats.from_features(b)
    mu1, mu2, c1, c2 = s1.mean, s2.mean, s1.covariance, s2.covariance
    tracemalloc.start()
    ours, t_ours, c_ours = measure(lambda: core.frechet_distance(s1, s2, warn=False))
    peak_ours = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()

    def before():  # the d x d route on the same statistics (frechet_distance before the N x N route)
        diff = mu1 - mu2
        return float(diff @ diff + np.trace(c1) + np.trace(c2) - 2.0 * core.trace_sqrt_product(c1, c2))

    old, t_old, c_old = measure(before)
    tracemalloc.start()
    try:
        theirs, t_theirs, c_theirs = measure(lambda: pytorch_fid_distance(mu1, c1, mu2, c2))
    except ValueError as err:  # "Imaginary component ..."
        theirs, t_theirs, c_theirs = float("nan"), float("nan"), float("nan")
        print(f"  pytorch-fid at N = {n}: {err}")
    peak_theirs = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    c_ours = max(c_ours, 1e-4)  # the process clock's resolution
    print(
        f"  {n:>6,} | {c_ours:7.4f}s ({t_ours:6.3f}s) | {c_old:8.2f}s ({t_old:6.1f}s) | {c_theirs:7.2f}s ({t_theirs:6.1f}s) | "
        f"{c_old / c_ours:9.0f}x, {c_theirs / c_ours:7.0f}x | {abs(ours - old) / abs(old):.1e}, "
        f"{abs(ours - theirs) / abs(theirs):.1e}"
        f" | {peak_ours / 2**20:.0f} / {peak_theirs / 2**20:.0f}   FID {ours:.8f}"
    )
    if n <= 12:
        exact = _exact_trace_sqrt(a, b)
        tr_ours = (float((mu1 - mu2) @ (mu1 - mu2)) + np.trace(c1) + np.trace(c2) - ours) / 2
        tr_old = (float((mu1 - mu2) @ (mu1 - mu2)) + np.trace(c1) + np.trace(c2) - old) / 2
        print(
            f"         Tr((S1 S2)^1/2) vs the exact value (40 digits): ours {abs(tr_ours - exact) / exact:.1e}, "
            f"d x d route {abs(tr_old - exact) / exact:.1e} relative"
        )


def bench_moments(sizes, d: int, repeat: int) -> int:
    from scipy.linalg.blas import dsyrk

    from multimodal_metrics.fid_clip import moments

    def timed(fn):
        wall = cpu = float("inf")
        for _ in range(repeat):
            w, c = time.perf_counter(), time.process_time()
            out = fn()
            wall, cpu = min(wall, time.perf_counter() - w), min(cpu, time.process_time() - c)
        return out, wall, cpu

    def streamed(x, batch=50):
        stats = moments.FrechetStats(x.shape[1])
        for start in range(0, len(x), batch):  # as the image path: each batch a new array given away
            stats.update(x[start : start + batch], copy=False)
        return stats.mean, stats.covariance

    print(f"Mean and covariance of N x {d} feature vectors, best of {repeat}: wall s (CPU s)")
    for n in sizes:
        x = features(n, d, 1)
        (mu0, c0), w0, p0 = timed(lambda x=x: (np.mean(x, axis=0), np.cov(x, rowvar=False)))
        (_, c1), w1, p1 = timed(
            lambda x=x: (lambda s: (s.mean, s.covariance))(moments.FrechetStats.from_features(x))
        )
        (_, c2), w2, p2 = timed(lambda x=x: streamed(x))
        rel = max(np.abs(c1 - c0).max(), np.abs(c2 - c0).max()) / np.abs(c0).max()
        centred = x - x[0]
        _, w3, _ = timed(lambda y=centred: dsyrk(1.0, y.T, trans=0, lower=0))
        print(
            f"  N = {n:>7,}: np.cov {w0:6.2f} ({p0:6.2f})   ours {w1:6.2f} ({p1:6.2f}) {w0 / w1:4.2f}x   "
            f"ours in batches of 50 {w2:6.2f} ({p2:6.2f}) {w0 / w2:4.2f}x   max rel. diff {rel:.1e}   "
            f"one BLAS dsyrk of the centred vectors (the kernel both use) {w3:6.3f}"
        )
    return 0


def bench_distance(sizes, d: int) -> int:
    """The distance alone, from the statistics of two sides of N vectors: ours, the d x d route (what
    every N used before the N x N route) and pytorch-fid's sqrtm formula, one run each (same data)."""
    from multimodal_metrics.fid_clip import core

    print(
        f"Frechet distance alone, {d}-d features, N per side; one run each, same data; the statistics "
        "(running sums) are built before the clock starts; CPU seconds (all threads), wall in brackets; "
        "OPENBLAS_NUM_THREADS=1 gives the stable figure on a loaded machine"
    )
    print(
        f"  {'N':>6} | {'ours':>17} | {'d x d route (before)':>20} | {'pytorch-fid sqrtm':>17} | CPU speed-up vs before, "
        "vs sqrtm | rel. diff ours-before, ours-sqrtm | peak MiB ours / sqrtm"
    )
    for n in sizes:
        _distance_case(core, n, d)
    return 0


def bench_small(sizes, d: int) -> int:
    """``fid_clip.score`` end to end (input checks, statistics, distance; then with a 95% interval, 200
    resamples) on N feature vectors per side: best of 3, CPU seconds. Run it with PYTHONPATH pointing at
    another checkout's src/ to compare versions on the same data."""
    import evaluate

    from multimodal_metrics.fid_clip import score

    metric = evaluate.load(str(ROOT / "metrics" / "fid_clip"))
    print(
        f"fid_clip.score and evaluate's compute on N {d}-d feature vectors per side (best of 3, CPU; "
        "OPENBLAS_NUM_THREADS=1 for the stable figure)"
    )
    rng = np.random.default_rng(0)
    for n in sizes:
        a, b = np.abs(rng.normal(size=(n, d))), np.abs(rng.normal(size=(n, d))) + 0.1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            score(a[:2], b[:2])  # imports
            plain = measure(lambda a=a, b=b: score(a, b), 3).cpu
            metric.compute(predictions=a[:2], references=b[:2])
            through = measure(lambda a=a, b=b: metric.compute(predictions=a, references=b), 3).cpu
            result, _, interval = measure(lambda a=a, b=b: score(a, b, confidence=0.95))
        print(
            f"  N = {n:>6,}: score {plain * 1000:9.1f} ms | compute {through * 1000:9.1f} ms | with confidence=0.95 {interval:7.3f} s | "
            f"FID {result['fid']:.10f} [{result['fid_ci_low']:.10f}, {result['fid_ci_high']:.10f}]"
        )
    return 0


# ------------------------------------------------------------------------------------------------
# --images: the image path from file paths, ours vs torchmetrics vs pytorch-fid's loop
# ------------------------------------------------------------------------------------------------
class ImagePathDataset:
    """pytorch-fid 0.3.0 fid_score.ImagePathDataset with its transform ``TF.ToTensor()`` (transcribed
    without torchvision: uint8 HWC -> float CHW / 255, what ToTensor does to an RGB PIL image)."""

    def __init__(self, files):
        self.files = files

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        import torch
        from PIL import Image

        img = np.asarray(Image.open(self.files[i]).convert("RGB"), dtype=np.uint8)
        return torch.from_numpy(img.transpose(2, 0, 1).astype(np.float32) / 255.0)


class ChannelPool:
    """--extractor pool: 48 features per image (the 4x4 average of each channel), nearly free, so
    that the image path is bound by decoding as it is on a GPU; a torch module, built lazily."""

    def __new__(cls):
        import torch

        class _Pool(torch.nn.Module):
            def forward(self, x):
                return torch.nn.functional.adaptive_avg_pool2d(x, 4).flatten(1)

        return _Pool()


def _loader(files, batch: int, workers: int):
    import torch

    return torch.utils.data.DataLoader(
        ImagePathDataset(files), batch_size=batch, shuffle=False, drop_last=False, num_workers=workers
    )


def _cpu_now(children: bool = True) -> float:
    t = os.times()
    return t.user + t.system + (t.children_user + t.children_system if children else 0.0)


def bench_one(args) -> int:
    """One --images configuration (tool, batch, workers) in this process; prints one JSON line."""
    import json
    import resource

    import torch

    from multimodal_metrics.fid_clip import inception, score

    tool, batch, workers, folder = args.one.split(",")
    batch, workers = int(batch), int(workers)
    files = sorted(str(p) for p in Path(folder).glob("*.png"))
    gen, real = files[: len(files) // 2], files[len(files) // 2 :]
    weights = str(Path(folder) / "inception.pth")
    device = args.device
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    pooled = args.extractor == "pool"
    if tool == "ours":
        model = {"feature_extractor": ChannelPool()} if pooled else {"inception_weights": weights}
        score(gen[:2], real[:2], device=device, num_workers=0, **model)  # load the model once

        def run():
            return score(gen, real, batch_size=batch, num_workers=workers, device=device, **model)["fid"]
    else:
        net = ChannelPool() if pooled else inception.load_fid_inception(weights).to(device)
        with torch.inference_mode():
            net.num_features = int(net(torch.rand(1, 3, 64, 64, device=device)).shape[1])
        if tool == "torchmetrics":
            from torchmetrics.image.fid import FrechetInceptionDistance

            metric = FrechetInceptionDistance(feature=net, normalize=True).to(device)

            def run():  # the update loop (compute, torchmetrics' own d x d eigenvalues, not timed)
                for side, real_side in ((gen, False), (real, True)):
                    for x in _loader(side, batch, workers):
                        metric.update(x.to(device), real=real_side)
                return None
        else:
            try:  # the package where it is installed (it needs torchvision): its own get_activations
                from pytorch_fid.fid_score import get_activations
            except ImportError:
                get_activations = None

            class Pool3(torch.nn.Module):  # pytorch-fid's InceptionV3 returns [pool3 (B, 2048, 1, 1)]
                def forward(self, x):
                    return [net(x)[:, :, None, None]]

            def run():  # pytorch-fid get_activations on both sides (np.cov + sqrtm, not timed)
                out = []
                if get_activations is not None:
                    for side in (gen, real):
                        out.append(get_activations(side, Pool3(), batch, net.num_features, device, workers))
                    return "package"
                with torch.no_grad():
                    for side in (gen, real):
                        acts = [net(x.to(device)).cpu().numpy() for x in _loader(side, batch, workers)]
                        out.append(np.concatenate(acts))
                return "transcribed"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sync()
        start, cpu, main = time.perf_counter(), _cpu_now(), _cpu_now(children=False)
        value = run()
        sync()
        wall, cpu, main = time.perf_counter() - start, _cpu_now() - cpu, _cpu_now(children=False) - main
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    gpu = torch.cuda.max_memory_allocated() / 2**20 if device.startswith("cuda") else 0.0
    print(
        json.dumps(
            {
                "n": len(files),
                "wall": wall,
                "cpu": cpu,
                "main_cpu": main,
                "peak_mib": peak,
                "child_peak_mib": children,
                "gpu_mib": gpu,
                "fid": value,
                "threads": torch.get_num_threads(),
            }
        )
    )
    return 0


def bench_images(args) -> int:
    import json
    import subprocess
    import tempfile

    import torch
    from PIL import Image

    from multimodal_metrics.fid_clip import inception
    from multimodal_metrics.fid_clip.extract import default_workers, usable_cpus

    workers = min(usable_cpus(), 8)  # pytorch-fid's default: min(CPUs, 8)
    tools = [t for t in (args.only or "ours,torchmetrics,pytorch-fid").split(",") if t]
    with tempfile.TemporaryDirectory() as folder:
        rng = np.random.default_rng(0)
        for i in range(args.images):  # photo-like: smooth colour field plus noise (PNG, 256x256)
            base = rng.integers(0, 256, (8, 8, 3), dtype=np.uint8)
            img = Image.fromarray(base).resize((256, 256), Image.BICUBIC)
            noisy = np.clip(np.asarray(img, dtype=np.int16) + rng.integers(-12, 13, (256, 256, 3)), 0, 255)
            Image.fromarray(noisy.astype(np.uint8)).save(Path(folder) / f"{i:05d}.png")
        torch.manual_seed(0)
        torch.save(inception.build(args.width).state_dict(), Path(folder) / "inception.pth")  # random weights
        model = (
            "a 4x4 channel pool (48 features; decoding-bound, as on a GPU)"
            if args.extractor == "pool"
            else f"FID Inception width {args.width} with random weights (the same state dict for every tool)"
        )
        print(
            f"Image path from {args.images} PNG files (256x256; half generated, half real), {model}, device {args.device}, "
            f"{usable_cpus()} CPUs for this process (num_workers=None gives {default_workers()}); each configuration in "
            "its own process; CPU seconds include every thread and worker process"
        )
        print(
            f"  {'tool':<20} {'batch':>5} {'workers':>7} | {'images/s':>9} | {'images/CPU-s':>12} | {'peak RSS MiB':>12}"
            f" | {'main ms/img':>11} | {'workers peak':>12} | {'GPU MiB':>7}"
        )
        for tool in tools:
            for batch in [int(b) for b in args.batches.split(",")]:
                for k in (0, workers):
                    cmd = [
                        sys.executable,
                        __file__,
                        "--images",
                        str(args.images),
                        "--device",
                        args.device,
                        "--extractor",
                        args.extractor,
                        "--one",
                        f"{tool},{batch},{k},{folder}",
                    ]
                    done = subprocess.run(cmd, capture_output=True, text=True)
                    if done.returncode != 0:
                        print(
                            f"  {tool:<20} {batch:>5} {k:>7} | failed: {done.stderr.strip().splitlines()[-1:]}"
                        )
                        continue
                    r = json.loads(done.stdout.strip().splitlines()[-1])
                    name = f"{tool} ({r['fid'][:5]}.)" if isinstance(r["fid"], str) else tool
                    print(
                        f"  {name:<20} {batch:>5} {k:>7} | {r['n'] / r['wall']:9.2f} | {r['n'] / r['cpu']:12.3f} | "
                        f"{r['peak_mib']:12.0f} | {1000 * r['main_cpu'] / r['n']:11.2f} | {r['child_peak_mib']:12.0f} | "
                        f"{r['gpu_mib']:7.0f}",
                        flush=True,
                    )
    print(
        "  main ms/img: CPU time of the scoring process itself per image (its threads included, worker processes "
        "not): what bounds the throughput once the network is fast (a GPU) and the workers keep up"
    )
    print(
        "  ours: fid_clip.score from the paths (input checks, decoding, network, statistics, the distance: "
        "ms at N < d); torchmetrics: its update() loop with pytorch-fid's dataset; pytorch-fid: get_activations "
        "of both sides (their d x d distances are not timed); (packa.): the installed pytorch-fid package, "
        "(trans.): its loop transcribed (no torchvision here)"
    )
    return 0


# ------------------------------------------------------------------------------------------------
# --clip: the CLIP score of in-memory images, files, ours vs torchmetrics' CLIPScore on one tiny model
# ------------------------------------------------------------------------------------------------
def _torchmetrics_clip(folder):
    """torchmetrics' CLIPScore on the checkpoint in ``folder``. torchmetrics 1.9 expects
    ``get_image_features`` / ``get_text_features`` to return tensors; transformers 5 returns an output
    object (its ``pooler_output`` is the tensor): the model is wrapped to return that."""
    import torch
    from torchmetrics.multimodal.clip_score import CLIPScore
    from transformers import CLIPModel, CLIPProcessor

    class Features(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model, self.config = model, model.config

        def get_image_features(self, *args, **kwargs):
            out = self.model.get_image_features(*args, **kwargs)
            return getattr(out, "pooler_output", out)

        def get_text_features(self, *args, **kwargs):
            out = self.model.get_text_features(*args, **kwargs)
            return getattr(out, "pooler_output", out)

    model = Features(CLIPModel.from_pretrained(str(folder), local_files_only=True).eval())
    processor = CLIPProcessor.from_pretrained(str(folder), local_files_only=True)
    return CLIPScore(model_name_or_path=lambda: (model, processor))


def bench_clip(n: int, size: int, rounds: int) -> int:
    """`--clip`: CPU time of the CLIP score of n (image, text) pairs on the tests' tiny transformers CLIP
    (tests/_fid_clip_fixtures.py: random weights, a 32 x 32 processor), one torch thread, for every
    input form, ours (``fid_clip.score``, ``clip_scale=100, clip_truncation="slice"``: torchmetrics'
    convention, here without the clamp at 0 on either side, so that the means are compared) against torchmetrics' CLIPScore fed the same images as the uint8 tensors
    it takes (converted in its timed loop: a numpy array, a PIL image, a decoded PNG file), in one
    call of n pairs and in calls of 20 (ours: ``batch_size``), in turns, best of ``rounds``."""
    import tempfile

    import torch
    from _fid_clip_fixtures import tiny_hf_clip
    from PIL import Image
    from timing import interleaved

    from multimodal_metrics.fid_clip import score

    torch.set_num_threads(1)
    folder = Path(tempfile.mkdtemp(prefix="bench_clip_"))
    tiny_hf_clip(folder / "clip")
    rng = np.random.default_rng(0)
    arrays = [rng.integers(0, 256, (size, size, 3), dtype=np.uint8) for _ in range(n)]
    texts = [f"a photo of a cat number {i}" if i % 2 else f"a dog, picture {i}" for i in range(n)]
    files = []
    for i, array in enumerate(arrays):
        files.append(str(folder / f"{i}.png"))
        Image.fromarray(array).save(files[-1])
    forms = {
        "numpy": (arrays, lambda a: torch.from_numpy(a).permute(2, 0, 1)),
        "PIL": (
            [Image.fromarray(a) for a in arrays],
            lambda im: torch.from_numpy(np.asarray(im)).permute(2, 0, 1),
        ),
        "torch": ([torch.from_numpy(a).permute(2, 0, 1).contiguous() for a in arrays], lambda t: t),
        "files": (
            files,
            lambda f: torch.from_numpy(np.asarray(Image.open(f).convert("RGB"))).permute(2, 0, 1),
        ),
    }
    metric = _torchmetrics_clip(folder / "clip")
    opts = dict(clip_model=str(folder / "clip"), clip_scale=100.0, clip_clamp="none", clip_truncation="slice")
    opts["progress"] = False

    def theirs(images, convert, batch):
        def run():
            metric.reset()
            for k in range(0, n, batch):
                metric.update([convert(x) for x in images[k : k + batch]], texts[k : k + batch])
            metric.compute()
            return float(metric.score / metric.n_samples)  # the mean before torchmetrics' clamp at 0

        return run

    def ours(images, batch):
        return lambda: score(references=images, texts=texts, batch_size=batch, **opts)["clip_score"]

    print(
        f"CLIP score of {n} pairs of {size} x {size} images, the tests' tiny CLIP (32 x 32), one torch thread: "
        f"CPU s, best of {rounds}, in turns (pairs per CPU-second ratio: torchmetrics / ours)"
    )
    for batch in (n, 20):
        fns = {}
        for name, (images, convert) in forms.items():
            fns[f"torchmetrics {name}"] = theirs(images, convert, batch)
            fns[f"ours {name}"] = ours(images, batch)
        t = interleaved(fns, rounds)
        print(f"  {'one call of all pairs' if batch == n else f'calls of {batch} pairs'}:")
        for name in forms:
            a, b = t[f"torchmetrics {name}"], t[f"ours {name}"]
            assert abs(a.out - b.out) <= 1e-4 * abs(a.out), (name, a.out, b.out)
            print(f"    {name:6s} torchmetrics {a.cpu:6.3f} s   ours {b.cpu:6.3f} s   {a.cpu / b.cpu:5.2f}x")
    print(
        f"  mean 100 cos = {t['ours numpy'].out:.6f} (torchmetrics {t['torchmetrics numpy'].out:.6f} in float32)"
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="256-d, 1,000 samples per side")
    parser.add_argument("--n", type=int, default=None)
    parser.add_argument("--dims", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", action="store_true", help="also 10x samples, streamed, with peak memory")
    parser.add_argument("--distance", action="store_true", help="only: the distance alone for --sizes")
    parser.add_argument(
        "--sizes",
        default=None,
        help="N per side: --distance (default 10,100,1000,2047,10000) / --small (10,100,1000)",
    )
    parser.add_argument(
        "--small", action="store_true", help="only: fid_clip.score end to end for --sizes (2,048-d)"
    )
    parser.add_argument("--images", type=int, default=0, help="only: images/s from this many PNG files")
    parser.add_argument("--batches", default="20,50", help="batch sizes for --images")
    parser.add_argument(
        "--width", type=float, default=1.0, help="FID Inception width for --images (1.0: real)"
    )
    parser.add_argument("--device", default="cpu", help="device for --images (cpu, cuda)")
    parser.add_argument(
        "--extractor",
        default="inception",
        choices=("inception", "pool"),
        help="--images: the FID Inception (--width) or a nearly free 4x4 channel pool, so that "
        "decoding alone bounds the throughput, as on a GPU",
    )
    parser.add_argument("--only", default="", help="--images: ours,torchmetrics,pytorch-fid (default all)")
    parser.add_argument(
        "--one", default="", help=argparse.SUPPRESS
    )  # one --images configuration (subprocess)
    parser.add_argument(
        "--bootstrap", type=int, default=0, metavar="R", help="only time R FID bootstrap resamples"
    )
    parser.add_argument(
        "--moments", action="store_true", help="only: the statistics, ours vs np.cov, for --sizes"
    )
    parser.add_argument(
        "--clip", type=int, default=0, metavar="N", help="only: CLIP score of N pairs vs torchmetrics"
    )
    parser.add_argument("--size", type=int, default=64, help="--clip: image side in pixels")
    args = parser.parse_args()
    n = args.n or (1_000 if args.quick else 10_000)
    d = args.dims or (256 if args.quick else 2_048)
    offline_env()
    from multimodal_metrics.fid_clip import core, moments

    warnings.simplefilter("ignore", UserWarning)
    if args.clip:
        return bench_clip(args.clip, args.size, args.repeat)
    if args.bootstrap:
        return bench_bootstrap(n, d, args.bootstrap)
    if args.moments:
        return bench_moments(
            [int(v) for v in (args.sizes or "5000,20000").split(",")], args.dims or 2_048, args.repeat
        )
    if args.small:
        return bench_small([int(v) for v in (args.sizes or "10,100,1000").split(",")], args.dims or 2_048)
    if args.distance:
        return bench_distance(
            [int(v) for v in (args.sizes or "10,100,1000,2047,10000").split(",")], args.dims or 2_048
        )
    if args.one:
        return bench_one(args)
    if args.images:
        return bench_images(args)

    a, b = features(n, d, 1), features(n, d, 2, shift=0.01)
    mu1, s1, mu2, s2 = a.mean(0), np.cov(a, rowvar=False), b.mean(0), np.cov(b, rowvar=False)
    print(f"Frechet distance, {d}-d features, {n:,} samples per side (best of {args.repeat})")
    cpu = time.process_time()
    theirs, t_theirs, _ = measure(lambda: pytorch_fid_distance(mu1, s1, mu2, s2), args.repeat)
    cpu_theirs, cpu = time.process_time() - cpu, time.process_time()
    ours, t_ours, _ = measure(lambda: core.frechet_distance((mu1, s1), (mu2, s2)), args.repeat)
    cpu_ours = time.process_time() - cpu
    rel = abs(ours - theirs) / abs(theirs)
    print(f"  pytorch-fid sqrtm formula : {t_theirs:8.3f} s   FID = {theirs:.10f}")
    print(f"  ours (eigenvalue route)   : {t_ours:8.3f} s   FID = {ours:.10f}   rel. diff {rel:.1e}")
    print(
        f"  speed-up                  : {t_theirs / t_ours:8.1f}x wall (best run), "
        f"{cpu_theirs / cpu_ours:.1f}x CPU time (all {args.repeat} runs, all threads)"
    )
    assert rel < 1e-6, "values differ"

    print("From the feature arrays (statistics + distance)")
    theirs2, t_theirs2, _ = measure(lambda: pytorch_fid_from_features(a, b))
    ours2, t_ours2, _ = measure(
        lambda: core.frechet_distance(
            moments.FrechetStats.from_features(a), moments.FrechetStats.from_features(b)
        )
    )
    print(f"  pytorch-fid (np.cov+sqrtm): {t_theirs2:8.3f} s   FID = {theirs2:.10f}")
    print(
        f"  ours (running sums)       : {t_ours2:8.3f} s   FID = {ours2:.10f}   ratio {t_theirs2 / t_ours2:.1f}x"
    )
    assert abs(ours2 - theirs2) / abs(theirs2) < 1e-6
    import evaluate

    metric = evaluate.load(str(ROOT / "metrics" / "fid_clip"))
    r, t_eval, _ = measure(lambda: metric.compute(predictions=a, references=b))
    print(
        f"  evaluate.load(...).compute: {t_eval:8.3f} s   FID = {r['fid']:.10f}   ratio {t_theirs2 / t_eval:.1f}x "
        "(Arrow write/read of the features included)"
    )
    assert abs(r["fid"] - theirs2) / abs(theirs2) < 1e-6

    if args.scale:
        big = 10 * n
        print(f"10x: {big:,} samples per side")
        tracemalloc.start()

        def ours_streamed():
            stats = [moments.FrechetStats(d), moments.FrechetStats(d)]
            for k in range(0, big, n):
                stats[0].update(features(n, d, 100 + k))
                stats[1].update(features(n, d, 200 + k, shift=0.01))
            return core.frechet_distance(*stats)

        ours3, t3, _ = measure(ours_streamed)
        peak_ours = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()

        def theirs_full():
            x = np.concatenate([features(n, d, 100 + k) for k in range(0, big, n)])
            y = np.concatenate([features(n, d, 200 + k, shift=0.01) for k in range(0, big, n)])
            return pytorch_fid_from_features(x, y)

        theirs3, t4, _ = measure(theirs_full)
        peak_theirs = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"  pytorch-fid: {t4:8.2f} s  peak {peak_theirs / 2**30:6.2f} GiB   FID = {theirs3:.10f}")
        print(
            f"  ours       : {t3:8.2f} s  peak {peak_ours / 2**30:6.2f} GiB   FID = {ours3:.10f}   "
            f"ratio {t4 / t3:.1f}x (feature generation included on both sides)"
        )
        assert abs(ours3 - theirs3) / abs(theirs3) < 1e-6

    return 0


if __name__ == "__main__":
    sys.exit(main())
