"""multimodal_metrics.torchmetrics: every metric as a torchmetrics ``Metric``, in one process and across ranks.

Across ranks (about 45 s on 2 cores, each run started once for this file: tests/_torchmetrics_worker.py):

* a Lightning ``Trainer(strategy="ddp", accelerator="cpu", devices=2)`` (gloo) validating a tiny model on 1,001
  examples for two epochs: every logged value (anls, vqa_acc, det_f1 and a ``MetricCollection`` of three) equals
  ``score()`` on all examples bit for bit on both ranks, each epoch on its own examples (reset works), with the
  whole Result (per-example list, seeded interval, signature) one attribute away;
* the same metrics in a plain torchrun loop over DistributedSampler's shares.

In one process: each metric's object equals ``score`` (update and forward mixed), forward gives the batch's
value, state_dict, merge_state, the numbering without an index, and the errors.
"""

import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from engine_cases import RESULT_KWARGS, as_json, case, stateful_metrics

N = 1001
WORKER = Path(__file__).with_name("_torchmetrics_worker.py")


def _json(result) -> dict:
    return json.loads(json.dumps(as_json(result)))


def _run(mode: str, out: Path, limit: float = 240) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    if mode == "lightning":
        command = [sys.executable, str(WORKER), mode, str(out), str(N)]
    else:
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
                   str(WORKER), mode, str(out), str(N)]  # fmt: skip
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=limit)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    ranks = [json.loads((out / f"{mode}_rank{r}.json").read_text()) for r in (0, 1)]
    return {"ranks": ranks, "elapsed": time.monotonic() - start}


@pytest.fixture(scope="module")
def lightning_run(tmp_path_factory):
    return _run("lightning", tmp_path_factory.mktemp("lightning"))


@pytest.fixture(scope="module")
def torchrun_run(tmp_path_factory):
    return _run("torchrun", tmp_path_factory.mktemp("torchrun"))


def _reference(metric: str, seed: int = 0, n: int = N):
    c = case(metric, n, seed=seed)
    return c.module.score(**c.inputs, **c.options, **RESULT_KWARGS)


def _collection_reference(metric: str, seed: int):
    """The collection scores the answers of the ned case with each metric's default preset."""
    inputs = case("ned", N, seed=seed).inputs
    result = case(metric, 1).module.score(**inputs)
    return result[next(iter(result))]


# ----------------------------------------------------------------------------------------------
# Lightning, DDP on 2 CPU ranks
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("metric", ["anls", "vqa_acc", "det_f1"])
def test_lightning_ddp_logs_score_of_all_examples_bit_for_bit(lightning_run, metric):
    for rank in lightning_run["ranks"]:
        assert len(rank["epochs"]) == 2
        for epoch, logged in enumerate(rank["epochs"]):
            reference = _reference(metric, seed=epoch)
            value = logged["logged"][f"val/{metric}"]
            assert value == reference[next(iter(reference))], (rank["rank"], epoch)
            assert logged["dtypes"][f"val/{metric}"] == "torch.float64"


def test_lightning_metric_collection_of_three(lightning_run):
    for rank in lightning_run["ranks"]:
        for epoch, logged in enumerate(rank["epochs"]):
            for metric in ("anls", "ned", "text_qa"):
                assert logged["logged"][f"val/coll/{metric}"] == _collection_reference(metric, epoch)


def test_lightning_result_is_one_attribute_away_and_each_epoch_is_its_own(lightning_run):
    """``.result`` is the whole Result of all examples; epoch 1 scores other rows at the same indexes, which a
    state kept from epoch 0 would refuse; after the epoch each rank's object holds its own share again."""
    values = set()
    for rank in lightning_run["ranks"]:
        for epoch, logged in enumerate(rank["epochs"]):
            for metric in ("anls", "det_f1"):  # det_f1: no index, total=N (the padded repeat found by number)
                assert logged[metric] == _json(_reference(metric, seed=epoch))
            assert logged["held"] == {"anls": 501, "vqa_acc": 501, "det_f1": 501}
            values.add((epoch, logged["logged"]["val/anls"]))
    assert len(values) == 2  # both ranks log the same value per epoch, and the epochs differ


# ----------------------------------------------------------------------------------------------
# A plain torchrun loop
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("metric", ["anls", "vqa_acc", "det_f1"])
def test_torchrun_loop_equals_score(torchrun_run, metric):
    reference = _json(_reference(metric))
    for rank in torchrun_run["ranks"]:
        out = rank[metric]
        assert rank["shard"] == 501
        assert out["result"] == reference
        assert out["value"] == reference[next(iter(reference))] and out["dtype"] == "torch.float64"
        assert out["held_after"] == 501  # compute merged a copy; the rank keeps its own examples


def test_torchrun_forward_returns_each_batch_own_value(torchrun_run):
    from torch.utils.data import DistributedSampler

    c = case("vqa_acc", N)
    for rank in torchrun_run["ranks"]:
        ids = list(DistributedSampler(range(N), num_replicas=2, rank=rank["rank"], shuffle=False))
        expected = []
        for start in range(0, len(ids), 64):
            unique = sorted(set(ids[start : start + 64]))
            expected.append(c.module.score(**c.take(unique), **c.options)["accuracy"])
        assert rank["vqa_acc"]["batch_values"] == expected


# ----------------------------------------------------------------------------------------------
# One process
# ----------------------------------------------------------------------------------------------
def _split(inputs: dict) -> tuple:
    inputs = dict(inputs)
    return inputs.pop("predictions"), inputs.pop("references"), inputs


@pytest.mark.parametrize("metric", stateful_metrics())
def test_every_metric_object_equals_score(metric):
    from multimodal_metrics.torchmetrics import metric_class

    c = case(metric, 60, seed=2)
    reference = c.reference()
    m = metric_class(metric)(**c.options, **c.result_kwargs)
    for start in range(0, 60, 16):
        ids = list(range(start, min(start + 16, 60)))
        preds, target, more = _split(c.take(ids))
        if start % 32:
            batch_value = m(preds, target, **more)  # forward: the batch's own value
            alone = c.module.score(
                preds, target, **more, **{k: v for k, v in c.options.items() if k not in c.state_only}
            )
            assert batch_value.item() == alone[next(iter(alone))]
        else:
            m.update(preds, target, **more)
    value = m.compute()
    assert value.item() == reference[next(iter(reference))]
    assert _json(m.result) == _json(reference)
    m.reset()
    assert len(m.state) == 0


def test_collection_state_dict_merge_and_device():
    import torch
    from torchmetrics import MetricCollection

    from multimodal_metrics import anls, vqa_acc
    from multimodal_metrics.torchmetrics import ANLS, VQAAccuracy

    coll = MetricCollection({"anls": ANLS(), "vqa": VQAAccuracy(num_answers=0)})
    coll.update(["a", "b"], [["a"], ["c"]], question_types=["x", "y"])  # question_types reaches vqa alone
    coll.update(["c"], [["c"]], index=[5], question_types=["x"])
    out = coll.compute()
    assert out["anls"].item() == anls.score(["a", "b", "c"], [["a"], ["c"], ["c"]])["anls"]
    assert (
        out["vqa"].item() == vqa_acc.score(["a", "b", "c"], [["a"], ["c"], ["c"]], num_answers=0)["accuracy"]
    )

    m = ANLS(preset="stvqa").to("cpu")
    assert m.state_dict() == {}  # as torchmetrics: states leave state_dict until persistent(True)
    m.persistent(True)
    m.update(["a", "bb"], [["a"], ["b"]], index=[3, 9])
    saved = m.state_dict()
    assert saved["state"].dtype == torch.uint8 and saved["state"].numpy().tobytes() == m.state.to_bytes()
    again = ANLS(preset="stvqa")
    again.load_state_dict(saved)
    assert again.state.to_bytes() == m.state.to_bytes() and again.compute().item() == m.compute().item()
    with pytest.raises(ValueError, match="preset differs"):
        ANLS().load_state_dict(saved)
    other = ANLS(preset="stvqa")
    other.update(["c"], [["c"]], index=[4])
    m.merge_state(other)
    assert list(m.state.index) == [3, 4, 9]
    assert m.compute().device == m.device


def test_without_index_the_ranks_number_as_the_sampler_deals(monkeypatch):
    """k-th example of rank r: r + W k; with ``total`` the padded repeats fold onto the examples they repeat
    (dropped by the merge); without, a warning says they count twice."""
    from multimodal_metrics import anls
    from multimodal_metrics.torchmetrics import ANLS

    preds, refs = ["a", "b", "c", "d", "e"], [["a"], ["x"], ["c"], ["y"], ["e"]]
    shares = {0: [0, 2, 4], 1: [1, 3, 0]}  # DistributedSampler(5 examples, 2 ranks): example 0 pads rank 1
    ranks = {}
    for rank, ids in shares.items():
        m = ANLS(total=5)
        monkeypatch.setattr(m, "_rank_world", lambda rank=rank: (rank, 2))
        m.update([preds[i] for i in ids[:2]], [refs[i] for i in ids[:2]])
        m.update([preds[i] for i in ids[2:]], [refs[i] for i in ids[2:]])
        ranks[rank] = m
    assert list(ranks[1].state.index) == [0, 1, 3]
    ranks[0].merge_state(ranks[1])
    assert ranks[0].compute().item() == anls.score(preds, refs)["anls"]
    loose = ANLS()
    monkeypatch.setattr(loose, "_rank_world", lambda: (1, 2))
    with pytest.warns(
        UserWarning, match=r"DistributedSampler repeats \(so that every rank has as many\) count twice"
    ):
        loose.update(["b"], [["x"]])


def test_errors_name_the_argument():
    from multimodal_metrics.torchmetrics import ANLS, DetF1, metric_class

    with pytest.raises(ValueError, match="threshold"):
        ANLS(threshold=7)
    with pytest.raises(ValueError, match="`total` must be"):
        ANLS(total=0)
    with pytest.raises(ValueError, match="`key`: anls has no result key 'f1'"):
        ANLS(key="f1")
    with pytest.raises(TypeError, match="dist_sync_fn"):
        ANLS(dist_sync_fn=lambda x: x)
    with pytest.raises(TypeError, match=r"unexpected argument\(s\) \['question_types'\]"):
        ANLS().update(["a"], [["a"]], question_types=["x"])
    with pytest.raises(ValueError, match="`metric` must be one of"):
        metric_class("bleu")
    m = ANLS()
    with pytest.raises(TypeError, match=r"predictions"):
        m.update([1], [["a"]])
    assert len(m.state) == 0  # a refused batch leaves the state as it was
    assert (
        DetF1(key="precision").higher_is_better is True and metric_class("fid_clip").higher_is_better is False
    )


def test_importing_the_library_imports_neither_torchmetrics_nor_pyspark():
    code = (
        "import sys, multimodal_metrics, multimodal_metrics.engines, multimodal_metrics.spark\n"
        "from multimodal_metrics import anls\n"
        "anls.state().update(['a'], ['a']).result()\n"
        "print(','.join(m for m in ('torchmetrics', 'lightning', 'pyspark', 'torch') if m in sys.modules))\n"
    )
    with warnings.catch_warnings():
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy()
        )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == ""
