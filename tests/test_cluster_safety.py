"""evaluate's cache under the conditions of a shared cluster: several computes in a row in distributed mode
with no barrier, a full disk while add_batch writes the cache, and an interrupted add_batch.

* Distributed mode (``num_process=2``, one ``experiment_id``, two real processes): a process other than 0
  returns from ``compute`` only once process 0 has gathered its rows, so the next computation cannot
  overwrite them; process 0 gets each computation's score.
* A batch whose ``add_batch`` raised (a full disk, Ctrl-C, any error) adds nothing: the batches added
  before are kept, no partial cache file stays, and the object keeps working.
"""

import time
import uuid

from helpers import METRICS, run_two_ranks

# ----------------------------------------------------------------------------------------------
# compute twice in a row in distributed mode, no barrier
# ----------------------------------------------------------------------------------------------
_BOX = {"cat": [[0, 0, 10, 10]]}
_FAR = {"cat": [[50, 50, 5, 5]]}
_ROUNDS = {  # name -> (right predictions, wrong predictions, references), 4 examples; process r takes 2r, 2r+1
    "anls": (
        ["alpha", "beta", "gamma", "delta"],
        ["zzzzzz", "qqqq", "xxxxx", "wwwww"],
        [["alpha"], ["beta"], ["gamma"], ["delta"]],
    ),
    "det_f1": ([_BOX] * 4, [_FAR] * 4, [_BOX] * 4),
}
_KEY = {"anls": "anls", "det_f1": "f1"}


def _rounds_rank(rank, exp, cache_dir, queue):
    """Two computes in a row (all answers right, then all wrong) for each metric and both paths; process 0
    is the slower one in the first computation (a slow step before compute on the add_batch path, a slow
    gather on the direct path), which is when process 1 used to overwrite its rows with the next ones."""
    import evaluate

    out = []
    part = slice(2 * rank, 2 * rank + 2)
    for name, (right, wrong, refs) in _ROUNDS.items():
        for path in ("direct", "add_batch"):
            metric = evaluate.load(
                str(METRICS / name),
                num_process=2,
                process_id=rank,
                cache_dir=cache_dir,
                experiment_id=f"{exp}-{name}-{path}",
                timeout=8,
            )
            if rank == 0 and path == "direct":
                finalize = metric._finalize

                def slow_finalize(finalize=finalize):
                    time.sleep(1.5)
                    return finalize()

                metric._finalize = slow_finalize
            for step, preds in enumerate((right, wrong)):
                try:
                    if path == "direct":
                        result = metric.compute(predictions=preds[part], references=refs[part])
                    else:
                        metric.add_batch(predictions=preds[part], references=refs[part])
                        if rank == 0 and step == 0:
                            time.sleep(1.5)
                        result = metric.compute()
                except Exception as err:  # noqa: BLE001 (reported to the test)
                    result = f"{type(err).__name__}: {err}"
                out.append(
                    (
                        name,
                        path,
                        step,
                        result if result is None or isinstance(result, str) else result[_KEY[name]],
                    )
                )
                if rank == 0 and path == "direct":
                    metric._finalize = finalize
    queue.put((rank, out))


def test_distributed_computes_in_a_row_each_get_their_own_rows(tmp_path):
    """Process 0 returns 1.0 for the computation where every answer is right and 0.0 for the next one, on
    the direct and the add_batch paths of anls and det_f1; process 1 returns None; nothing is left in the
    cache. Before, process 0 returned 0.5 (its rows of the first computation with process 1's rows of the
    second) and then waited for a lock until its timeout."""
    start = time.monotonic()
    results = run_two_ranks(_rounds_rank, uuid.uuid4().hex, str(tmp_path), method="spawn", timeout=240)
    wanted = [
        (name, path, step, score)
        for name in _ROUNDS
        for path in ("direct", "add_batch")
        for step, score in enumerate((1.0, 0.0))
    ]
    assert results[0] == wanted
    assert results[1] == [(name, path, step, None) for name, path, step, _ in wanted]
    assert time.monotonic() - start < 120  # no wait for a lock's timeout
    assert [p.name for p in tmp_path.rglob("*.arrow")] == []
