"""Scale-out benchmark: one process vs Ray Data (2 worker CPUs, multimodal_metrics.ray) vs torchrun (2 gloo
processes, multimodal_metrics.distributed.all_gather), on ANLS of N generated questions (default 1,000,000)
and on fid_clip's FID from N generated feature rows per side (default 16,384 x 256-d). Prints one markdown
table per metric: wall time, CPU time, peak memory per process and the bytes that travel between
processes; checks that the three results are the same (ANLS: value, signature and a hash of the
per-example list, bit for bit; FID: signature, and the value bit for bit or within 1e-12 relative, the
bound the library states for moments merged from shards).

    python benchmarks/bench_scale_out.py                               # both metrics, about 2 minutes on 2 cores
    python benchmarks/bench_scale_out.py --metric anls --rows 100000   # quicker
    python benchmarks/bench_scale_out.py --metric fid_clip --fid-rows 20000 --dim 2048   # full-size features
    python benchmarks/bench_scale_out.py --metric fid_clip --keep-features  # states keep the vectors

Each way runs in its own process (its peak memory is its own). The data are generated in every process
from one seed (not timed); the timed part is the scoring, the transfer of states and the reduction, from
the inputs in memory to the result. Ray: the dataset is 8 blocks of an Arrow table put in the object
store by the driver (its bytes are counted as inputs moved); ``ray.init`` is timed apart. torchrun: for
ANLS rank r scores examples r, r + 2, ... (a DistributedSampler's split), for fid_clip each rank holds one
contiguous half of the rows (feature rows of one shard, as a data loader over a sharded image folder gives
them); then all_gather. The launcher's wall time (process start, imports, data generation included) is
shown beside the ranks' scoring time. fid_clip's states hold the Frechet moments (a fixed size: two
d x d triangles) unless ``--keep-features``.
"""

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

WORDS = [
    "receipt", "Paris", "total 12", "the bill", "N/A", "42", "dr. who", "$ 12.50", "12.50", "Rue de Rivoli",
    "the total amount due", "invoice no. 4711", "ACME Corporation", "March 3, 2021", "yes", "no", "Smith",
    "1,000", "the second floor", "not available",
]  # fmt: skip
SUFFIXES = ["", "s", " ", "x"]
BLOCKS = 8


def generate(n: int, ids=None):
    """Predictions and references of questions ``ids`` (default all) of the n generated from seed 0."""
    rng = np.random.default_rng(0)
    word, suffix = rng.integers(0, len(WORDS), n), rng.integers(0, len(SUFFIXES), n)
    count, refs = rng.integers(1, 4, n), rng.integers(0, len(WORDS), (n, 3))
    ids = range(n) if ids is None else ids
    predictions = [WORDS[word[i]] + SUFFIXES[suffix[i]] for i in ids]
    references = [[WORDS[j] for j in refs[i, : count[i]]] for i in ids]
    return predictions, references


def features(n: int, d: int, ids=None):
    """Generated and reference feature rows ``ids`` (default all) of the n generated from seed 1: non-negative
    and skewed, as Inception pool features are (paired rows: row i of each side takes index i)."""
    rng = np.random.default_rng(1)
    predictions = rng.gamma(1.5, 1.0, (n, d))
    references = rng.gamma(1.5, 1.0, (n, d)) + 0.05
    ids = slice(None) if ids is None else ids
    return predictions[ids], references[ids]


def fid_summary(result) -> dict:
    return {"fid": result["fid"], "signature": result.signature}


def summary(result) -> dict:
    per_example = np.asarray(result.per_example, dtype=np.float64)
    return {
        "anls": result["anls"],
        "signature": result.signature,
        "per_example_sha256": hashlib.sha256(per_example.tobytes()).hexdigest()[:16],
    }


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# ----------------------------------------------------------------------------------------------
# The three ways (each in its own process)
# ----------------------------------------------------------------------------------------------
def run_single(args) -> dict:
    from multimodal_metrics import anls, fid_clip

    if args.metric == "fid_clip":
        predictions, references = features(args.fid_rows, args.dim)
        score = lambda: fid_clip.score(predictions, references)  # noqa: E731
    else:
        predictions, references = generate(args.rows)
        score = lambda: anls.score(predictions, references, return_per_example=True)  # noqa: E731
    cpu, start = cpu_seconds(), time.perf_counter()
    result = score()
    return {
        "wall": time.perf_counter() - start,
        "cpu": cpu_seconds() - cpu,
        "peak_mib": [peak_rss_mib()],
        "moved": 0,
        **(fid_summary(result) if args.metric == "fid_clip" else summary(result)),
    }


def _vm_hwm_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def run_ray(args) -> dict:
    import psutil
    import pyarrow as pa
    import ray

    import multimodal_metrics.ray as mmray

    if args.metric == "fid_clip":
        n = args.fid_rows
        predictions, references = features(n, args.dim)
        table = pa.table(
            {
                "answer": pa.FixedSizeListArray.from_arrays(pa.array(predictions.ravel()), args.dim),
                "answers": pa.FixedSizeListArray.from_arrays(pa.array(references.ravel()), args.dim),
            }
        )
        options = {"keep_features": True} if args.keep_features else {}
    else:
        n = args.rows
        predictions, references = generate(n)
        table = pa.table({"answer": predictions, "answers": references})
        options = {"return_per_example": True}
    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    init = time.perf_counter() - start

    def tree():
        out = {}
        for p in psutil.Process().children(recursive=True):
            try:
                t = p.cpu_times()
                out[p.pid] = (" ".join(p.cmdline())[:60], t.user + t.system)
            except psutil.Error:
                pass
        return out

    moved = []
    read = mmray._state_from_bytes
    mmray._state_from_bytes = lambda blob: (moved.append(len(blob)), read(blob))[1]  # count the states' bytes
    before, cpu, start = tree(), cpu_seconds(), time.perf_counter()
    rows = -(-n // BLOCKS)
    ds = ray.data.from_arrow([table.slice(k * rows, rows) for k in range(BLOCKS)])
    result = mmray.score(ds, args.metric, predictions="answer", references="answers", **options)
    wall, driver_cpu, after = time.perf_counter() - start, cpu_seconds() - cpu, tree()
    workers = {pid: c for pid, (cmd, c) in after.items() if cmd.startswith("ray::")}
    worker_cpu = sum(c - before.get(pid, ("", 0.0))[1] for pid, c in workers.items())
    system_cpu = sum(
        c - before.get(pid, ("", 0.0))[1] for pid, (cmd, c) in after.items() if pid not in workers
    )
    busy = [pid for pid, c in workers.items() if c - before.get(pid, ("", 0.0))[1] > 0.05]
    peaks = [peak_rss_mib(), *(_vm_hwm_mib(pid) for pid in busy)]
    ray.shutdown()
    return {
        "wall": wall,
        "init": init,
        "cpu": driver_cpu + worker_cpu,
        "cpu_detail": f"driver {driver_cpu:.1f} + workers {worker_cpu:.1f} (+ Ray's own processes {system_cpu:.1f})",
        "peak_mib": peaks,
        "moved": sum(moved),
        "inputs": table.nbytes,
        "states": len(moved),
        **(fid_summary(result) if args.metric == "fid_clip" else summary(result)),
    }


def run_torchrun_rank(args) -> None:
    import torch.distributed as dist

    from multimodal_metrics import anls, fid_clip
    from multimodal_metrics.distributed import all_gather

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.metric == "fid_clip":
        n = args.fid_rows
        ids = list(range(rank * n // world, (rank + 1) * n // world))  # one contiguous shard per rank
        predictions, references = features(n, args.dim, ids)
        state, kwargs = fid_clip.state(keep_features=args.keep_features), {}
    else:
        n = args.rows
        ids = list(range(rank, n, world))
        predictions, references = generate(n, ids)
        state, kwargs = anls.state(), {"return_per_example": True}
    dist.barrier()
    cpu, start = cpu_seconds(), time.perf_counter()
    state.update(predictions=predictions, references=references, index=ids)
    sent = len(state.to_bytes())
    merged = all_gather(state)
    result = merged.result(**kwargs)
    out = {
        "wall": time.perf_counter() - start,
        "cpu": cpu_seconds() - cpu,
        "peak_mib": peak_rss_mib(),
        "sent": sent,
    }
    with open(os.path.join(args.out, f"rank{rank}.json"), "w") as f:
        json.dump({**out, **(fid_summary(result) if args.metric == "fid_clip" else summary(result))}, f)
    dist.destroy_process_group()


def run_torchrun(args) -> dict:
    with tempfile.TemporaryDirectory() as out_dir:
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
                   __file__, "--mode", "rank", *passed(args), "--out", out_dir]  # fmt: skip
        start = time.perf_counter()
        subprocess.run(command, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"}, capture_output=True)
        launcher = time.perf_counter() - start
        ranks = [json.load(open(os.path.join(out_dir, f"rank{r}.json"))) for r in (0, 1)]
    keys = ("fid", "signature") if args.metric == "fid_clip" else ("anls", "signature", "per_example_sha256")
    assert [ranks[0][k] for k in keys] == [ranks[1][k] for k in keys], "the two ranks disagree"
    return {
        "wall": max(r["wall"] for r in ranks),
        "launcher": launcher,
        "cpu": sum(r["cpu"] for r in ranks),
        "peak_mib": [r["peak_mib"] for r in ranks],
        "moved": sum(r["sent"] for r in ranks),  # with 2 ranks, each rank's state goes to the other
        **{k: ranks[0][k] for k in keys},
    }


# ----------------------------------------------------------------------------------------------
def passed(args) -> list[str]:
    """The options of this run, for a child process."""
    out = [
        "--metric",
        args.metric,
        "--rows",
        str(args.rows),
        "--fid-rows",
        str(args.fid_rows),
        "--dim",
        str(args.dim),
    ]
    return out + (["--keep-features"] if args.keep_features else [])


def child(mode: str, args) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--mode", mode, *passed(args)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"{mode} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def mib(x: float) -> str:
    return f"{x / 2**20:.1f} MiB" if x >= 2**20 else f"{x / 1024:.1f} KiB"


def anls_table(rows: int, runs: dict) -> None:
    same = {(r["anls"], r["signature"], r["per_example_sha256"]) for r in runs.values()}
    assert len(same) == 1, runs
    single, ray_, torch_ = runs["single"], runs["ray"], runs["torchrun"]
    print(f"ANLS of {rows:,} questions (default preset); all three results identical: anls = "
          f"{single['anls']!r}, per-example hash {single['per_example_sha256']}\n")  # fmt: skip
    print("| way | wall (s) | CPU (s) | peak memory per process | bytes moved between processes |")
    print("|---|---|---|---|---|")
    print(f"| one process (`anls.score`) | {single['wall']:.2f} | {single['cpu']:.2f} | "
          f"{single['peak_mib'][0]:.0f} MiB | none |")  # fmt: skip
    engine_rows(ray_, torch_, "states")


def fid_table(args, runs: dict) -> None:
    single = runs["single"]
    assert {r["signature"] for r in runs.values()} == {single["signature"]}, runs
    worst = max(abs(r["fid"] - single["fid"]) / abs(single["fid"]) for r in runs.values())
    assert worst <= 1e-12, f"FID differs by {worst:.1e} relative: {runs}"
    how = "bit for bit" if worst == 0 else f"within {worst:.1e} relative"
    kept = "the feature vectors" if args.keep_features else "the Frechet moments"
    print(f"\nFID of {args.fid_rows:,} x {args.dim}-d feature rows per side (default preset; states hold {kept}); "
          f"the three results equal {how}: fid = {single['fid']!r}\n")  # fmt: skip
    print("| way | wall (s) | CPU (s) | peak memory per process | bytes moved between processes |")
    print("|---|---|---|---|---|")
    print(f"| one process (`fid_clip.score`) | {single['wall']:.2f} | {single['cpu']:.2f} | "
          f"{single['peak_mib'][0]:.0f} MiB | none |")  # fmt: skip
    engine_rows(runs["ray"], runs["torchrun"], "states")


def engine_rows(ray_: dict, torch_: dict, what: str) -> None:
    peaks = ", ".join(f"{p:.0f}" for p in ray_["peak_mib"][1:])
    print(f"| Ray Data, 2 CPUs (`multimodal_metrics.ray.score`, {BLOCKS} blocks) | {ray_['wall']:.2f} "
          f"(+ `ray.init` {ray_['init']:.1f}) | {ray_['cpu']:.2f} ({ray_['cpu_detail']}) | driver "
          f"{ray_['peak_mib'][0]:.0f} MiB, workers {peaks} MiB | {what} to the driver: {mib(ray_['moved'])} in "
          f"{ray_['states']} states (inputs into the object store: {mib(ray_['inputs'])}) |")  # fmt: skip
    print(f"| torchrun, 2 gloo processes (`all_gather`) | {torch_['wall']:.2f} (launcher, start to end: "
          f"{torch_['launcher']:.1f}) | {torch_['cpu']:.2f} | "
          f"{', '.join(f'{p:.0f}' for p in torch_['peak_mib'])} MiB | {what} between the ranks: "
          f"{mib(torch_['moved'])} (the inputs stay where they are) |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metric", choices=["all", "anls", "fid_clip"], default="all")
    parser.add_argument("--rows", type=int, default=1_000_000, help="ANLS questions")
    parser.add_argument("--fid-rows", type=int, default=16_384, help="fid_clip feature rows per side")
    parser.add_argument("--dim", type=int, default=256, help="fid_clip feature dimension")
    parser.add_argument("--keep-features", action="store_true", help="fid_clip states keep the vectors")
    parser.add_argument("--mode", choices=["single", "ray", "torchrun", "rank"], help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mode == "rank":
        return run_torchrun_rank(args)
    if args.mode:
        print(json.dumps({"single": run_single, "ray": run_ray, "torchrun": run_torchrun}[args.mode](args)))
        return None
    for metric in ("anls", "fid_clip") if args.metric == "all" else (args.metric,):
        args.metric = metric
        runs = {mode: child(mode, args) for mode in ("single", "ray", "torchrun")}
        if metric == "anls":
            anls_table(args.rows, runs)
        else:
            fid_table(args, runs)
    return None


if __name__ == "__main__":
    main()
