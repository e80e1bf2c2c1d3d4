"""Engines benchmark: one process vs 2 workers on torchrun, Ray Data, Spark and `mm-score --shard` + `merge`, on
CPU-heavy metrics: codebleu `default` (python, generated ~20-line functions, the 2020 grammars) and ru_meteor
`captioning` (Russian captions x 5 references, `synonyms="none"`), 20,000 examples each by default.

    python benchmarks/bench_engines.py                          # both metrics, every engine (about 10 minutes on 2 cores)
    python benchmarks/bench_engines.py --metric ru_meteor --rows 5000 --engines single,torchrun

Prints one markdown table per metric: wall time (from the inputs in memory to the result), the CPU time of every
process involved, the start-up cost (what an engine spends before it scores: `ray.init`, the SparkSession, the
launcher and the ranks' imports, the processes of `mm-score`), the bytes that move between processes, and from
these where the engine starts to pay off (see `payoff`). Every engine's result is checked against the one
process's: the value, the signature and a hash of the per-example list, bit for bit.

How each runs (each in its own process tree; the inputs are generated from one seed in every process, not timed):
* one process: `<metric>.score` on all examples.
* torchrun: 2 gloo ranks; rank r scores examples r, r + 2, ... (DistributedSampler's share) into a state, then
  `all_gather` and `result` on both. Wall: the ranks' scoring + gather + result; start-up: the launcher's wall
  minus that.
* Ray Data: `ray.init(num_cpus=2)` (start-up), then `multimodal_metrics.ray.score` over 8 blocks of an Arrow
  table put in the object store by the driver (its bytes count as moved); CPU of the driver and the workers.
* Spark: a `local[2]` SparkSession (start-up), a DataFrame made from the Arrow table (with an `id` column) on
  the driver (moved to the JVM: counted), `repartition(8)`, then `multimodal_metrics.spark.score(...,
  index="id")`; CPU of the driver, the JVM and the Python workers.
* mm-score: the metric's official files written once (not timed); `mm-score <cmd> --shard 0/2` and `1/2
  --save-state` as two processes at once, then `mm-score merge`; wall and CPU of all three; start-up: the
  same three commands on a 2-example file.
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
from pathlib import Path

from bench_scale_out import cpu_seconds, mib
from timing import ROOT, offline_env

# isort: split
from engine_cases import CASES

offline_env()
ENGINES = ("single", "torchrun", "ray", "spark", "mm_score")
BLOCKS = 8
OPTIONS = {
    "codebleu": {"preset": "default", "lang": "python"},
    "ru_meteor": {"preset": "captioning", "synonyms": "none"},
}
KEYS = {"codebleu": "codebleu", "ru_meteor": "meteor"}


def inputs(metric: str, n: int, ids=None):
    """(predictions, references) of examples ``ids`` (default all) of the n generated from seed 0."""
    if metric == "codebleu":
        from bench_codebleu import make_pairs

        predictions, references = make_pairs("python", n)
        references = [[r] for r in references]
    else:
        from oracles.ru_meteor import RU_WORDS, make_captions

        predictions, references = make_captions(n, RU_WORDS)
    if ids is None:
        return predictions, references
    return [predictions[i] for i in ids], [references[i] for i in ids]


def summary(result, metric: str) -> dict:
    """The value, the signature and a hash of the per-example list (floats as their shortest repr: every bit)."""
    per_example = json.dumps(result.per_example, sort_keys=True).encode()
    return {
        "value": result[KEYS[metric]],
        "signature": result.signature,
        "per_example_sha256": hashlib.sha256(per_example).hexdigest()[:16],
    }


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _tree_cpu() -> dict:
    """CPU seconds of every process below this one (psutil), by pid."""
    import psutil

    out = {}
    for p in psutil.Process().children(recursive=True):
        try:
            t = p.cpu_times()
            out[p.pid] = t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return out


def _grown(before: dict, after: dict) -> float:
    return sum(c - before.get(pid, 0.0) for pid, c in after.items())


# ----------------------------------------------------------------------------------------------
# The engines (each in its own process)
# ----------------------------------------------------------------------------------------------
def run_single(args) -> dict:
    import importlib

    module = importlib.import_module(f"multimodal_metrics.{args.metric}")
    predictions, references = inputs(args.metric, args.rows)
    module.score(predictions[:50], references[:50], **OPTIONS[args.metric])  # resources opened, not timed
    cpu, start = cpu_seconds(), time.perf_counter()
    result = module.score(predictions, references, **OPTIONS[args.metric], return_per_example=True)
    return {"wall": time.perf_counter() - start, "cpu": cpu_seconds() - cpu, "startup": 0.0, "moved": 0,
            **summary(result, args.metric)}  # fmt: skip


def run_rank(args) -> None:
    import importlib

    import torch.distributed as dist

    from multimodal_metrics.distributed import all_gather

    module = importlib.import_module(f"multimodal_metrics.{args.metric}")
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    ids = list(range(rank, args.rows, world))
    predictions, references = inputs(args.metric, args.rows, ids)
    module.score(predictions[:50], references[:50], **OPTIONS[args.metric])
    dist.barrier()
    cpu, start = cpu_seconds(), time.perf_counter()
    state = module.state(**OPTIONS[args.metric]).update(predictions, references, index=ids)
    sent = len(state.to_bytes())
    result = all_gather(state).result(return_per_example=True)
    out = {
        "wall": time.perf_counter() - start,
        "cpu": cpu_seconds() - cpu,
        "sent": sent,
        **summary(result, args.metric),
    }
    with open(os.path.join(args.out, f"rank{rank}.json"), "w") as f:
        json.dump(out, f)
    dist.destroy_process_group()


def run_torchrun(args) -> dict:
    with tempfile.TemporaryDirectory() as out_dir:
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", __file__,
                   "--mode", "rank", *passed(args), "--out", out_dir]  # fmt: skip
        cpu, start = _children_cpu(), time.perf_counter()
        subprocess.run(command, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"}, capture_output=True)
        launcher, cpu = time.perf_counter() - start, _children_cpu() - cpu
        ranks = [json.load(open(os.path.join(out_dir, f"rank{r}.json"))) for r in (0, 1)]
    keys = ("value", "signature", "per_example_sha256")
    assert [ranks[0][k] for k in keys] == [ranks[1][k] for k in keys], "the two ranks disagree"
    wall = max(r["wall"] for r in ranks)
    return {"wall": wall, "cpu": sum(r["cpu"] for r in ranks), "cpu_all": cpu, "startup": launcher - wall,
            "moved": sum(r["sent"] for r in ranks), **{k: ranks[0][k] for k in keys}}  # fmt: skip


def _table(args):
    import pyarrow as pa

    predictions, references = inputs(args.metric, args.rows)
    return pa.table({"answer": predictions, "answers": references})


def run_ray(args) -> dict:
    import ray

    import multimodal_metrics.ray as mmray

    table = _table(args)
    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    startup = time.perf_counter() - start
    moved = []
    read = mmray._state_from_bytes
    mmray._state_from_bytes = lambda blob: (moved.append(len(blob)), read(blob))[1]  # count the states' bytes
    before, cpu, start = _tree_cpu(), cpu_seconds(), time.perf_counter()
    rows = -(-args.rows // BLOCKS)
    ds = ray.data.from_arrow([table.slice(k * rows, rows) for k in range(BLOCKS)])
    result = mmray.score(ds, args.metric, predictions="answer", references="answers", return_per_example=True,
                         **OPTIONS[args.metric])  # fmt: skip
    wall, driver = time.perf_counter() - start, cpu_seconds() - cpu
    others = _grown(before, _tree_cpu())
    ray.shutdown()
    return {"wall": wall, "cpu": driver + others, "startup": startup, "moved": sum(moved) + table.nbytes,
            "states": sum(moved), **summary(result, args.metric)}  # fmt: skip


def run_spark(args) -> dict:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import pyarrow as pa
    from pyspark.sql import SparkSession

    import multimodal_metrics.spark as mmspark

    table = _table(args)
    start = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    startup = time.perf_counter() - start
    moved = []
    read = mmspark.state_from_bytes
    mmspark.state_from_bytes = lambda blob: (moved.append(len(blob)), read(blob))[1]
    before, cpu, start = _tree_cpu(), cpu_seconds(), time.perf_counter()
    df = spark.createDataFrame(table.append_column("id", pa.array(range(args.rows))).to_pandas())
    df = df.repartition(BLOCKS)  # round-robin: the rows in another order, so their index is a column
    result = mmspark.score(df, args.metric, predictions="answer", references="answers", index="id",
                           return_per_example=True, **OPTIONS[args.metric])  # fmt: skip
    wall, driver = time.perf_counter() - start, cpu_seconds() - cpu
    others = _grown(before, _tree_cpu())
    spark.stop()
    return {"wall": wall, "cpu": driver + others, "startup": startup, "moved": sum(moved) + table.nbytes,
            "states": sum(moved), **summary(result, args.metric)}  # fmt: skip


def _mm_score_runs(args, folder: Path, n: int) -> tuple[float, float, int, dict]:
    """(wall, CPU, state bytes, merged result) of the two shards at once and the merge, on n examples."""
    command, flags, write = CASES[args.metric].cli
    predictions, references = inputs(args.metric, n)
    gt, pred = folder / f"gt{n}.json", folder / f"pred{n}.json"
    write({"predictions": predictions, "references": references}, gt, pred)
    options = ["--preset", OPTIONS[args.metric]["preset"], *flags]
    if args.metric == "codebleu":
        options += ["--lang", "python"]
    mm = [
        sys.executable,
        "-m",
        "multimodal_metrics.cli",
        command,
        "--gt",
        str(gt),
        "--pred",
        str(pred),
        *options,
    ]
    cpu, start = _children_cpu(), time.perf_counter()
    shards = [subprocess.Popen([*mm, "--shard", f"{i}/2", "--save-state", str(folder / f"s{n}_{i}.state")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for i in (0, 1)]  # fmt: skip
    for p in shards:
        assert p.wait() == 0, p.stderr.read().decode()[-2000:]
    out = folder / f"per_example{n}.json"
    merge = subprocess.run([sys.executable, "-m", "multimodal_metrics.cli", "merge", *(str(folder / f"s{n}_{i}.state") for i in (0, 1)),
                            "--json", "--per-example", str(out)], capture_output=True, text=True, check=True)  # fmt: skip
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    moved = sum((folder / f"s{n}_{i}.state").stat().st_size for i in (0, 1))
    return wall, cpu, moved, {"merged": json.loads(merge.stdout), "per_example_file": out}


def run_mm_score(args) -> dict:
    from multimodal_metrics.results import Result

    with tempfile.TemporaryDirectory() as folder:
        startup, _, _, _ = _mm_score_runs(args, Path(folder), 2)
        wall, cpu, moved, out = _mm_score_runs(args, Path(folder), args.rows)
        merged = out["merged"]
        rows = [json.loads(line) for line in out["per_example_file"].read_text().splitlines()]
    primary = next(
        iter(merged)
    )  # a line: {"index": i, primary: score} or {"index": i, **the example's scores}
    rows = [{k: v for k, v in row.items() if k not in ("id", "index")} for row in rows]
    per_example = [row[primary] if list(row) == [primary] else row for row in rows]
    result = Result(merged, args.metric, per_example)
    return {"wall": wall, "cpu": cpu, "startup": startup, "moved": moved, **summary(result, args.metric)}


# ----------------------------------------------------------------------------------------------
def passed(args) -> list[str]:
    return ["--metric", args.metric, "--rows", str(args.rows)]


def child(mode: str, args) -> dict:
    done = subprocess.run([sys.executable, __file__, "--mode", mode, *passed(args)], capture_output=True, text=True,
                          check=False, cwd=ROOT)  # fmt: skip
    if done.returncode:
        raise SystemExit(f"{mode} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


NAMES = {
    "single": "one process (`{metric}.score`)",
    "torchrun": "torchrun, 2 gloo ranks (`all_gather`)",
    "ray": "Ray Data, 2 CPUs (`multimodal_metrics.ray.score`, 8 blocks)",
    "spark": "Spark `local[2]` (`multimodal_metrics.spark.score`, 8 partitions)",
    "mm_score": "`mm-score --shard 0/2`, `1/2` at once + `merge`",
}


def payoff(single: dict, run: dict, rows: int) -> str:
    """The size above which the engine's wall (start-up included) beats one process, from this run's figures:
    start-up / (one process's seconds per example - the engine's), if the engine scores faster per example."""
    saved = single["wall"] / rows - run["wall"] / rows
    if run is single:
        return "-"
    total = run["wall"] + run["startup"]
    if saved <= 0:
        return "not on this machine (no faster per example)"
    above = run["startup"] / saved
    verdict = "pays off at this size" if total < single["wall"] else "not yet at this size"
    return f"above about {above:,.0f} examples ({verdict})"


def table(metric: str, rows: int, runs: dict) -> None:
    single = runs["single"]
    same = {(r["value"], r["signature"], r["per_example_sha256"]) for r in runs.values()}
    assert len(same) == 1, runs
    print(f"\n{metric} `{OPTIONS[metric]['preset']}`, {rows:,} examples; every engine's result identical: "
          f"{KEYS[metric]} = {single['value']!r}, per-example hash {single['per_example_sha256']}\n")  # fmt: skip
    print("| way | wall (s) | CPU (s) | start-up (s) | bytes moved between processes | pays off |")
    print("|---|---|---|---|---|---|")
    for mode, run in runs.items():
        moved = "none" if mode == "single" else mib(run["moved"])
        if "states" in run:
            moved += f" (states {mib(run['states'])}, the rest inputs)"
        print(f"| {NAMES[mode].format(metric=metric)} | {run['wall']:.2f} | {run['cpu']:.2f} | {run['startup']:.2f} "
              f"| {moved} | {payoff(single, run, rows)} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metric", choices=["all", *OPTIONS], default="all")
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--engines", default=",".join(ENGINES), help=f"some of {','.join(ENGINES)}")
    parser.add_argument("--mode", choices=[*ENGINES, "rank"], help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mode == "rank":
        return run_rank(args)
    if args.mode:
        runner = {"single": run_single, "torchrun": run_torchrun, "ray": run_ray, "spark": run_spark,
                  "mm_score": run_mm_score}[args.mode]  # fmt: skip
        print(json.dumps(runner(args)))
        return None
    engines = ["single", *(e for e in args.engines.split(",") if e != "single")]
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for metric in OPTIONS if args.metric == "all" else (args.metric,):
        args.metric = metric
        table(metric, args.rows, {mode: child(mode, args) for mode in engines})
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")
    return None


if __name__ == "__main__":
    main()
