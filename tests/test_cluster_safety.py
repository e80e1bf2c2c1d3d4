"""evaluate's cache under the conditions of a shared cluster: several computes in a row in distributed mode
with no barrier, a full disk while add_batch writes the cache, and an interrupted add_batch.

* Distributed mode (``num_process=2``, one ``experiment_id``, two real processes): a process other than 0
  returns from ``compute`` only once process 0 has gathered its rows, so the next computation cannot
  overwrite them; process 0 gets each computation's score.
* A batch whose ``add_batch`` raised (a full disk, Ctrl-C, any error) adds nothing: the batches added
  before are kept, no partial cache file stays, and the object keeps working.
"""

import errno
import os
import time
import uuid

import pytest
from helpers import METRICS, load_rank, run_two_ranks

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
    out = []
    part = slice(2 * rank, 2 * rank + 2)
    for name, (right, wrong, refs) in _ROUNDS.items():
        for path in ("direct", "add_batch"):
            metric = load_rank(name, rank, f"{exp}-{name}-{path}", cache_dir, 8)
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


# ----------------------------------------------------------------------------------------------
# a full disk while add_batch writes the cache
# ----------------------------------------------------------------------------------------------
_DISK_SCRIPT = r"""
import errno, json, os, resource, signal, sys

import evaluate

mode, cache_dir, metrics_dir = sys.argv[1:4]
limit = 1 << 20


def examples(name, n, start=0):
    if name == "anls":
        preds = [f"answer number {i} " * 3 for i in range(start, start + n)]
        return preds, [[p] for p in preds]
    boxes = [{"cat": [[i % 50, 0, 10, 10]]} for i in range(start, start + n)]
    return boxes, boxes


def files():
    out = []
    for dirpath, _, names in os.walk(cache_dir):
        out += [(name, os.path.getsize(os.path.join(dirpath, name))) for name in names if name.endswith(".arrow")]
    return out


def failed(call):
    try:
        call()
    except OSError as err:
        return [errno.errorcode.get(err.errno), any("examples added before it" in n for n in getattr(err, "__notes__", []))]
    return "no error"


metrics = {name: evaluate.load(os.path.join(metrics_dir, name), cache_dir=cache_dir) for name in ("anls", "det_f1")}
if mode == "fsize":  # a file cannot grow past 1 MiB (the disk is "full" for the cache file only)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
out = {}
for name, metric in metrics.items():
    key = "anls" if name == "anls" else "f1"
    big, small, more = examples(name, 60000), examples(name, 3), examples(name, 2, start=7)
    r = out[name] = {}
    r["first batch"] = failed(lambda: metric.add_batch(predictions=big[0], references=big[1]))
    r["files after"], r["len after"] = files(), len(metric)
    r["direct compute"] = metric.compute(predictions=small[0], references=small[1])[key]
    metric.add_batch(predictions=small[0], references=small[1])
    r["later batch"] = failed(lambda: metric.add_batch(predictions=big[0], references=big[1]))
    r["len kept"] = len(metric)
    metric.add_batch(predictions=more[0], references=more[1])
    result = metric.compute(return_per_example=True)
    r["compute"] = [result[key], len(result["per_example"])]
    r["files at the end"] = files()
print(json.dumps(out))
"""


def _disk_full_run(mode: str, cache_dir) -> dict:
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", _DISK_SCRIPT, mode, str(cache_dir), str(METRICS)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _check_disk_full(results: dict, code: str) -> None:
    for name, r in results.items():
        assert r["first batch"] == [code, True], name  # the error, with a note saying what is kept
        assert r["files after"] == [], name  # no partial cache file
        assert r["len after"] == 0, name
        assert r["direct compute"] == 1.0, name  # the object still scores, data given directly
        assert r["later batch"] == [code, True], name
        assert r["len kept"] == 3, name  # the batch added before is kept
        assert r["compute"] == [1.0, 5], name  # the batches around the failed one, nothing of it
        assert r["files at the end"] == [], name


def test_disk_full_while_add_batch_writes_the_cache_file_size_limit(tmp_path):
    """A cache file that may not grow past 1 MiB (RLIMIT_FSIZE; any user can set it) while add_batch writes
    60,000 examples: the OSError says what is kept, no partial cache file stays, and the object keeps
    working (a direct compute, then batches added and computed). Before, a 1 MiB file with the batch's
    first rows stayed and every later compute failed with "I/O operation on closed file"."""
    _check_disk_full(_disk_full_run("fsize", tmp_path / "cache"), "EFBIG")


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 1 MiB tmpfs (needs root; skipped where mounting is not allowed)."""
    import subprocess

    mount = tmp_path / "tmpfs"
    mount.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True
        ).returncode
    ):
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_disk_full_while_add_batch_writes_the_cache_tmpfs(small_tmpfs):
    """The same on a real full disk: a 1 MiB tmpfs as evaluate's cache_dir (ENOSPC)."""
    _check_disk_full(_disk_full_run("tmpfs", small_tmpfs / "cache"), "ENOSPC")


def test_full_disk_at_compute_keeps_the_data(tmp_path, monkeypatch):
    """The disk fills between add_batch and compute (the end of the cache file cannot be written): compute
    raises, the examples stay, and compute succeeds once there is room again."""
    import evaluate

    from multimodal_metrics.hf import cache

    metric = evaluate.load(str(METRICS / "anls"), cache_dir=str(tmp_path))
    metric.add_batch(predictions=["a", "b", "c"], references=[["a"], ["x"], ["c"]])

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache, "_write", full)
    with pytest.raises(OSError, match="No space left"):
        metric.compute()
    assert len(metric) == 3
    monkeypatch.undo()
    assert metric.compute(return_per_example=True)["per_example"] == [1.0, 0.0, 1.0]
    assert list(tmp_path.rglob("*.arrow")) == []


# ----------------------------------------------------------------------------------------------
# Ctrl-C in the middle of add_batch
# ----------------------------------------------------------------------------------------------
def _interrupting(write, after: int):
    """``write`` (a stream class's method) raising KeyboardInterrupt at its ``after``-th call, as a Ctrl-C does
    while pyarrow writes a record batch of a large batch."""
    calls = []

    def wrapper(self, data):
        calls.append(1)
        if len(calls) == after:
            raise KeyboardInterrupt
        return write(self, data)

    return wrapper


def _answers(n, start=0):
    preds = [f"answer {i}" for i in range(start, start + n)]
    return preds, [[p] for p in preds]


@pytest.mark.parametrize("keep_in_memory", [False, True])
@pytest.mark.parametrize("first", [True, False])
def test_ctrl_c_in_add_batch_keeps_only_the_batches_that_finished(
    tmp_path, monkeypatch, first, keep_in_memory
):
    """Ctrl-C while add_batch writes a batch of 20,000 examples (after some of its record batches were
    written): the interrupted batch adds nothing, the batches added before it are kept, the
    KeyboardInterrupt goes on with a note saying so, and the loop may go on. Before, the rows already
    written stayed (and were counted whole)."""
    import evaluate

    metric = evaluate.load(str(METRICS / "anls"), cache_dir=str(tmp_path), keep_in_memory=keep_in_memory)
    probe = evaluate.load(
        str(METRICS / "anls"), cache_dir=str(tmp_path / "probe"), keep_in_memory=keep_in_memory
    )
    probe.add_batch(predictions=["a"], references=[["a"]])
    stream_type = type(probe.writer.stream)
    before = [] if first else [_answers(5)]
    for preds, refs in before:
        metric.add_batch(predictions=preds, references=refs)
    if not hasattr(stream_type, "write") or stream_type.__module__.startswith("pyarrow"):
        pytest.fail(f"the cache is written by {stream_type!r}, which a Ctrl-C cannot stop half way")
    monkeypatch.setattr(stream_type, "write", _interrupting(stream_type.write, after=40))
    preds, refs = _answers(20000, start=100)
    with pytest.raises(KeyboardInterrupt) as caught:
        metric.add_batch(predictions=preds, references=refs)
    monkeypatch.undo()
    kept = 0 if first else 5
    assert len(metric) == kept
    assert any(f"the {kept} examples added before it" in note for note in caught.value.__notes__)
    if not keep_in_memory and first:
        assert list(tmp_path.glob("anls/**/*.arrow")) == []
    preds, refs = _answers(3, start=50)
    wrong = ["nothing like it"]
    metric.add_batch(predictions=preds + wrong, references=refs + [["answer 0"]])
    result = metric.compute(return_per_example=True)
    assert result["per_example"] == [1.0] * kept + [1.0, 1.0, 1.0, 0.0]
