"""multimodal_metrics.distributed on real processes: torchrun with two gloo (CPU) ranks.

Every metric with a mergeable state (tests/engine_cases.py) scores 1,001 examples split as torch's
DistributedSampler splits them (strided, the last batch padded with repeated examples), and again with one
rank holding no data; after ``all_gather`` every rank's result (value, per-example list, seeded interval,
signature) equals ``score()`` on all examples bit for bit. A rank that raises, and a rank that comes late:
every rank ends with the error, within the timeout.
"""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from engine_cases import CASES, as_json, case, stateful_metrics

from multimodal_metrics import anls
from multimodal_metrics import distributed as mmdist

N = 1001
WORKER = Path(__file__).with_name("_dist_worker.py")
METRICS = stateful_metrics()


def torchrun(scenario: str, tmp_path: Path, metrics, n: int = N, limit: float = 55) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", str(WORKER),
               scenario, str(tmp_path), str(n), *metrics]  # fmt: skip
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=limit)
    elapsed = time.monotonic() - start
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    ranks = {r: json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)}
    return {"ranks": ranks, "elapsed": elapsed}


def test_every_metric_with_a_state_has_an_engine_case():
    assert set(METRICS) <= set(CASES), f"add a row to tests/engine_cases.py for {set(METRICS) - set(CASES)}"
    assert {"anls", "ned", "text_qa"} <= set(METRICS)


@pytest.fixture(scope="module")
def padded(tmp_path_factory):
    return torchrun("padded", tmp_path_factory.mktemp("padded"), METRICS)


@pytest.fixture(scope="module")
def empty_rank(tmp_path_factory):
    return torchrun("empty", tmp_path_factory.mktemp("empty"), METRICS)


def _reference(metric: str) -> dict:
    return json.loads(json.dumps(as_json(case(metric, N).reference())))


@pytest.mark.parametrize("metric", METRICS)
def test_strided_padded_ranks_equal_score(padded, metric):
    reference = _reference(metric)
    shards = [padded["ranks"][r][metric]["shard"] for r in (0, 1)]
    assert shards == [501, 501]  # 1,001 examples, one repeated to pad the last batch
    for r in (0, 1):
        out = padded["ranks"][r][metric]
        assert out["held"] == N
        assert out["result"] == reference  # value, interval, signature, per-example list: bit for bit


@pytest.mark.parametrize("metric", METRICS)
def test_rank_without_data_equals_score(empty_rank, metric):
    reference = _reference(metric)
    assert [empty_rank["ranks"][r][metric]["shard"] for r in (0, 1)] == [N, 0]
    for r in (0, 1):
        assert empty_rank["ranks"][r][metric]["result"] == reference


def test_an_index_given_to_two_examples_and_a_missing_share_are_refused_on_every_rank(tmp_path):
    """Rank 1 gives index 2 to another question than rank 0's, both scoring 1.0 (no longer taken for a
    sampler's padding); then the ranks hold 6 of a job of 10 examples (a rank's share lost)."""
    run = torchrun("collide", tmp_path, ["anls"], n=10, limit=50)
    for r in (0, 1):
        collided, missing = run["ranks"][r]["errors"]
        assert "example index 2 was given to two different examples" in collided
        assert "examples 6-9 are missing (4 of the job's 10)" in missing


def test_a_failing_rank_reaches_every_rank(tmp_path):
    run = torchrun("fail", tmp_path, ["anls"], n=10, limit=50)
    errors = [run["ranks"][r]["error"] for r in (0, 1)]
    assert errors[1] == {"type": "ValueError", "message": "rank 1 could not read its shard", "rank": None}
    assert errors[0]["type"] == "RankFailed" and errors[0]["rank"] == 1
    assert "rank 1 failed: ValueError: rank 1 could not read its shard" in errors[0]["message"]
    assert all(run["ranks"][r]["seconds"] < 30 for r in (0, 1))


def test_any_exception_in_guard_reaches_every_rank_and_a_failure_after_the_last_gather_is_at_once(tmp_path):
    """sys.exit() and KeyboardInterrupt inside guard() reach the other rank at once (they used to wait the
    whole timeout for a GatherTimeout) and still propagate on the rank that raised them; an error raised
    after the last all_gather (writing a report) fails at once, not after the timeout (60 s here) spent
    waiting for a rank that has left its guard()."""
    run = torchrun("exits", tmp_path, ["anls"], n=10, limit=50)
    mine, other = ([b["error"] for b in run["ranks"][r]["blocks"]] for r in (1, 0))
    assert [e["type"] for e in mine] == ["SystemExit", "KeyboardInterrupt", "OSError"]
    assert mine[0]["message"] == "3" and mine[2]["message"] == "could not write the report"
    assert [e["type"] if e else None for e in other] == ["RankFailed", "RankFailed", None]
    assert "rank 1 failed: SystemExit: 3" in other[0]["message"] and other[0]["rank"] == 1
    assert "rank 1 failed: KeyboardInterrupt" in other[1]["message"] and other[1]["rank"] == 1
    for r in (0, 1):
        assert all(b["seconds"] < 10 for b in run["ranks"][r]["blocks"]), run["ranks"][r]["blocks"]


def launch(scenario: str, tmp_path: Path, n: int = 10, limit: float = 60) -> dict:
    """Two gloo ranks started as plain processes (the env:// rendezvous of a Slurm or MPI launch; torchrun
    would stop every rank when one dies): {"codes": exit statuses, "ranks": {rank: output}}."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for rank in (0, 1):
        env = {**os.environ, "OMP_NUM_THREADS": "1", "RANK": str(rank), "LOCAL_RANK": str(rank),
               "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}  # fmt: skip
        procs.append(subprocess.Popen([sys.executable, str(WORKER), scenario, str(tmp_path), str(n), "anls"],
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))  # fmt: skip
    try:
        outputs = [p.communicate(timeout=limit)[0].decode(errors="replace") for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    files = {r: tmp_path / f"rank{r}.json" for r in (0, 1)}
    ranks = {r: json.loads(f.read_text()) for r, f in files.items() if f.exists()}
    return {"codes": [p.returncode for p in procs], "ranks": ranks, "outputs": outputs}


def test_a_rank_killed_during_the_exchange_is_named(tmp_path):
    """Rank 1 dies (SIGKILL) between the two collectives of the exchange: rank 0 gets RankFailed naming
    rank 1 within seconds, not gloo's raw "Connection reset by peer"."""
    run = launch("killed", tmp_path)
    assert run["codes"] == [0, -9], run["outputs"]
    error = run["ranks"][0]["error"]
    assert error["type"] == "RankFailed" and error["rank"] == 1, error
    assert "rank(s) [1] stopped during the exchange of the states" in error["message"]
    assert run["ranks"][0]["seconds"] < 15


def test_a_late_rank_is_named_by_every_rank(tmp_path):
    run = torchrun("timeout", tmp_path, ["anls"], n=10, limit=50)
    for r in (0, 1):
        error = run["ranks"][r]["error"]
        assert error["type"] == "GatherTimeout" and error["ranks"] == [1], error
        assert "rank(s) [1] of the group did not call all_gather within 1.5 s" in error["message"]
    assert run["ranks"][0]["seconds"] < 10  # waited 1.5 s, not the late rank's 4 s plus a collective


# ----------------------------------------------------------------------------------------------
# In one process: no process group; the store protocol with threads as ranks
# ----------------------------------------------------------------------------------------------
def test_without_process_group_returns_a_copy():
    state = anls.state().update(["a", "b"], ["a", "c"])
    gathered = mmdist.all_gather(state)
    assert gathered is not state and gathered.to_bytes() == state.to_bytes()
    with pytest.raises(KeyError):
        mmdist.all_gather(None, error=KeyError("x"))
    with pytest.raises(TypeError, match="`state` must be a metric's state"):
        mmdist.all_gather([1, 2])
    for timeout in (-1, float("inf")):
        with pytest.raises(ValueError, match="`timeout` must be a positive finite number"):
            with mmdist.guard(timeout=timeout):
                pass


def _meetings(world: int, timeout: float):
    import torch.distributed as dist

    store = dist.HashStore()
    out = []
    for rank in range(world):
        m = mmdist._Meeting.__new__(mmdist._Meeting)
        m.store, m.rank, m.world, m.timeout = store, rank, world, timeout
        m.prefix, m.group_prefix, m.where = "t/0/", "t/", f"rank {rank} of {world}"
        out.append(m)
    return out


def _run(meetings, actions):
    """Run ``actions[r](meeting)`` for every rank in threads; each rank's exception (or None)."""
    results = [None] * len(meetings)

    def one(r):
        try:
            actions[r](meetings[r])
        except Exception as exc:  # noqa: BLE001
            results[r] = exc

    threads = [threading.Thread(target=one, args=(r,)) for r in range(len(meetings))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    return results


def test_protocol_every_rank_ready():
    assert _run(_meetings(3, 5), [lambda m: m.agree()] * 3) == [None, None, None]


def test_protocol_first_error_wins_and_the_failed_rank_waits_for_readers():
    def late(m):
        time.sleep(0.5)
        m.agree()

    start = time.monotonic()
    results = _run(_meetings(3, 5), [late, lambda m: m.fail(ValueError("bad row")), lambda m: m.agree()])
    assert all(isinstance(e, mmdist.RankFailed) and e.rank == 1 for e in (results[0], results[2]))
    assert "rank 1 failed: ValueError: bad row" in str(results[0])
    assert results[1] is None  # fail() returns once every rank arrived; the caller raises its own error
    assert time.monotonic() - start < 4


def test_protocol_timeout_names_the_missing_rank_and_a_late_rank_agrees():
    def very_late(m):
        time.sleep(1.5)
        m.agree()

    results = _run(_meetings(3, 0.5), [lambda m: m.agree(), lambda m: m.agree(), very_late])
    assert all(isinstance(e, mmdist.GatherTimeout) and e.ranks == [2] for e in results), results


def test_protocol_a_failed_rank_waits_for_ranks_in_a_guard_not_for_ranks_that_left_theirs(monkeypatch):
    """Rank 1 fails. Rank 0 has left its guard() for good: not waited for past the grace. Rank 2 is
    inside its guard() and arrives after 1 s: waited for (it reads the error). Rank 3 left its guard() and
    reaches all_gather 0.1 s later (the guard, then all_gather): waited for within the grace."""
    monkeypatch.setattr(mmdist, "_LEFT_GRACE", 0.5)
    meetings = _meetings(4, 30)
    store = meetings[0].store
    for rank, status in ((0, "left"), (2, "in"), (3, "left")):
        store.set(f"t/guard/{rank}", status)
    took = {}

    def failing(m):
        start = time.monotonic()
        m.fail(OSError("could not write the report"))
        took["fail"] = time.monotonic() - start

    def after(seconds):
        def arrive(m):
            time.sleep(seconds)
            m.agree()

        return arrive

    results = _run(meetings, [lambda m: None, failing, after(1.0), after(0.1)])
    assert results[0] is results[1] is None
    assert all(isinstance(results[r], mmdist.RankFailed) and results[r].rank == 1 for r in (2, 3))
    assert 1.0 <= took["fail"] < 5  # waited for rank 2 (1 s), not the 30 s timeout for rank 0
