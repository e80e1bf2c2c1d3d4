"""One rank of the torchrun tests (tests/test_distributed.py): ``torchrun --nproc_per_node=2 _dist_worker.py
SCENARIO OUT_DIR N METRIC...``. Each rank writes OUT_DIR/rank<r>.json.

Scenarios:
  padded   every metric: the examples of torch's DistributedSampler(shuffle=False) (strided, the last
           batch padded with repeated examples), scored in batches of 64, then all_gather and result
  empty    every metric: rank 0 scores all examples, the other ranks none
  collide  anls: each rank scores its own examples, and rank 1 gives index 2 (rank 0's) to another
           question that also scores 1.0; then rank 1 leaves out examples 6-9 of a job of 10
  fail     rank 1 raises inside guard() after its first batch; the other ranks call all_gather
  timeout  rank 1 calls all_gather 4 s late; the others wait at most 1.5 s
  exits    three guard() blocks in a row: rank 1 calls sys.exit(3) in the first and raises
           KeyboardInterrupt in the second (the other ranks call all_gather), and in the third it raises
           OSError after an all_gather of every rank (writing a report), when the others have left
  killed   (launched without torchrun, which would stop every rank) rank 1 kills itself with SIGKILL
           between the two collectives of the exchange; the other ranks are in the second
"""

import json
import os
import signal
import sys
import time
import warnings

import torch.distributed as dist
from engine_cases import as_json, case
from torch.utils.data import DistributedSampler

from multimodal_metrics.distributed import all_gather, guard

BATCH = 64


def batches(ids):
    for start in range(0, len(ids), BATCH):
        yield ids[start : start + BATCH]


def score_rank(metric: str, n: int, ids: list[int]):
    c = case(metric, n)
    state = c.module.state(**c.options, total=n)  # the job's size: an empty rank is not a missing one
    for batch in batches(ids):
        state.update(**c.take(batch), index=batch)
    return all_gather(state, timeout=120)


def main() -> None:
    scenario, out_dir, n, metrics = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    warnings.simplefilter("ignore")
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    out: dict = {"rank": rank, "world": world}
    start = time.monotonic()
    if scenario in ("padded", "empty"):
        for metric in metrics:
            if scenario == "padded":
                ids = list(DistributedSampler(range(n), num_replicas=world, rank=rank, shuffle=False))
            else:
                ids = list(range(n)) if rank == 0 else []
            merged = score_rank(metric, n, ids)
            out[metric] = {
                "shard": len(ids),
                "held": len(merged),
                "result": as_json(merged.result(**case(metric, n).result_kwargs)),
            }
    elif scenario == "collide":
        from multimodal_metrics import anls

        collide = ([0, 1, 2], ["a", "b", "c"]) if rank == 0 else ([2, 3], ["x", "y"])  # 2: two questions
        missing = (list(range(6)), list("abcdef")) if rank == 0 else ([], [])  # 6-9 of the job's 10: none
        out["errors"] = []
        for ids, answers in (collide, missing):
            state = anls.state(total=10)
            if ids:
                state.update(answers, [[a] for a in answers], index=ids)
            try:
                all_gather(state, timeout=60).result()
                out["errors"].append(None)
            except ValueError as exc:
                out["errors"].append(str(exc))
    elif scenario == "fail":
        c = case(metrics[0], n)
        state = c.module.state(**c.options)
        try:
            with guard(timeout=60):
                state.update(**c.take([rank]), index=[rank])
                if rank == 1:
                    raise ValueError("rank 1 could not read its shard")
                state = all_gather(state, timeout=60)
            out["error"] = None
        except Exception as exc:  # noqa: BLE001 (the test reads which error each rank got)
            out["error"] = {
                "type": type(exc).__name__,
                "message": str(exc),
                "rank": getattr(exc, "rank", None),
            }
    elif scenario == "exits":
        c = case(metrics[0], n)
        state = c.module.state(**c.options).update(**c.take([rank]), index=[rank])
        out["blocks"] = []
        for failure in (SystemExit(3), KeyboardInterrupt(), OSError("could not write the report")):
            start_block = time.monotonic()
            try:
                with guard(timeout=60):
                    if rank == 1 and not isinstance(failure, OSError):
                        raise failure
                    all_gather(state, timeout=60)
                    if rank == 1:
                        raise failure  # after the last all_gather: the others have left their guard()
                error = None
            except BaseException as exc:  # noqa: BLE001 (the test reads which error each rank got)
                error = {"type": type(exc).__name__, "message": str(exc), "rank": getattr(exc, "rank", None)}
            out["blocks"].append({"error": error, "seconds": time.monotonic() - start_block})
    elif scenario == "killed":
        c = case(metrics[0], n)
        state = c.module.state(**c.options).update(**c.take([rank]), index=[rank])
        if rank == 1:
            collective = dist.all_gather

            def dies_in_the_second(*args, **kwargs):
                if getattr(dies_in_the_second, "called", False):
                    os.kill(os.getpid(), signal.SIGKILL)
                dies_in_the_second.called = True
                return collective(*args, **kwargs)

            dist.all_gather = dies_in_the_second
        try:
            all_gather(state, timeout=20)
            out["error"] = None
        except Exception as exc:  # noqa: BLE001
            out["error"] = {
                "type": type(exc).__name__,
                "message": str(exc),
                "rank": getattr(exc, "rank", None),
            }
    elif scenario == "timeout":
        c = case(metrics[0], n)
        state = c.module.state(**c.options).update(**c.take([rank]), index=[rank])
        if rank == 1:
            time.sleep(4)
        try:
            all_gather(state, timeout=1.5)
            out["error"] = None
        except Exception as exc:  # noqa: BLE001
            out["error"] = {
                "type": type(exc).__name__,
                "message": str(exc),
                "ranks": getattr(exc, "ranks", None),
            }
    out["seconds"] = time.monotonic() - start
    with open(f"{out_dir}/rank{rank}.json", "w", encoding="utf-8") as f:
        json.dump(out, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
