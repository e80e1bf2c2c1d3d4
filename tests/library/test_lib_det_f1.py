"""The library's det_f1 without evaluate: score, Result, compare, the option table, the modules' names."""

import numpy as np
import pytest
from oracles.det_f1 import VECTORS

from multimodal_metrics import det_f1
from multimodal_metrics.det_f1 import core

B = [0, 0, 10, 10]
# VECTORS (tests/oracles/det_f1.py): (id, references, predictions, F1 official, F1 one_to_one)


@pytest.mark.parametrize("vid,refs,preds,official,one_to_one", VECTORS, ids=[v[0] for v in VECTORS])
def test_score_seed_vectors(vid, refs, preds, official, one_to_one):
    assert det_f1.score(preds, refs)["f1"] == pytest.approx(official, abs=1e-12)
    assert det_f1.score(preds, refs, preset="one_to_one")["f1"] == pytest.approx(one_to_one, abs=1e-12)
    assert det_f1.score(preds, refs, matching="one_to_one")["f1"] == pytest.approx(one_to_one, abs=1e-12)
    assert det_f1.score(preds, refs) == core.det_f1(preds, refs) | {
        "signature": det_f1.score(preds, refs).signature
    }


def test_docstring_example_and_signature():
    refs = [{"cat": [[0, 0, 10, 10]], "dog": []}]
    preds = [{"cat": [[0, 0, 10, 5]], "dog": [[5, 5, 5, 5]]}]
    r = det_f1.score(preds, refs)
    assert (round(r["f1"], 4), r["tp"], r["fp"], r["fn"]) == (0.6667, 1.0, 1.0, 0.0)
    assert (
        r.signature == "det_f1|preset:default|match:any|iou:0.5|bound:inclusive|fmt:xywh|miss:error|v:0.1.0"
    )
    assert det_f1.score(preds, refs, iou_boundary="strict")["f1"] == 0.0
    assert det_f1.score(preds, refs, preset="fusion_brain_2021").signature == r.signature.replace(
        "preset:default", "preset:fusion_brain_2021"
    )


def test_result_forms():
    refs, preds = VECTORS[9][1], VECTORS[9][2]
    r = det_f1.score(preds, refs, return_per_example=True)
    assert list(r) == ["f1", "precision", "recall", "tp", "fp", "fn", "signature", "per_example"]
    assert (
        r.per_example
        == r["per_example"]
        == [
            {"f1": 1.0, "precision": 1.0, "recall": 1.0, "tp": 1.0, "fp": 0.0, "fn": 0.0},
            {"f1": 0.0, "precision": 0.0, "recall": 0.0, "tp": 0.0, "fp": 1.0, "fn": 1.0},
        ]
    )
    assert r.counts.tolist() == [[1, 0, 0], [0, 1, 1]]
    plain = det_f1.score(preds, refs, confidence=0.9, n_resamples=200)
    assert type(plain.to_dict()) is dict and "per_example" not in plain
    assert plain.per_example == r.per_example  # built on first use when not asked for in the dict
    assert [k for k in plain if k.endswith("_ci_low")] == ["f1_ci_low", "precision_ci_low", "recall_ci_low"]
    assert plain.signature.endswith("|ci:bs-pct|conf:0.9|bs:200|seed:12345|v:0.1.0")
    assert (
        plain.for_trainer()["det_f1_f1"] == 0.5 and "det_f1_fn" not in plain.for_trainer()
    )  # counts: no direction
    assert "det_f1_fn" in plain.for_trainer(counts=True)
    assert set(plain.for_trainer("val")) >= {"val_f1", "val_f1_ci_low"}
    assert plain.statistic.keys == ("f1", "precision", "recall")


def test_compare():
    refs = [{"cat": [B]}, {"cat": [[50, 50, 10, 10]]}]
    good = [{"cat": [B]}, {"cat": [[50, 50, 10, 10]]}]
    bad = [{"cat": [B]}, {"cat": [[0, 50, 10, 10]]}]
    out = det_f1.compare(good, bad, refs, test="paired_bootstrap", n_resamples=100)
    # the miss of B is an FP but no FN (as many predictions as objects: the official rule)
    assert out["f1_a"] == 1.0 and out["f1_b"] == pytest.approx(2 / 3) and out["recall_b"] == 1.0
    assert "test:paired-bs|n:100" in out["signature"]
    assert out["signature"].startswith("det_f1|preset:default|match:any|")
    with pytest.raises(ValueError, match="predictions_b"):
        det_f1.compare(good, None, refs)


def test_option_table_drives_the_checks():
    assert det_f1.OPTIONS.names == [
        "matching",
        "iou_threshold",
        "iou_boundary",
        "box_format",
        "missing_class",
    ]
    assert set(det_f1.PRESETS) == {"default", "one_to_one", "fusion_brain_2021"}
    assert [o.sig for o in det_f1.OPTIONS] == ["match", "iou", "bound", "fmt", "miss"]
    assert [o.name for o in det_f1.OPTIONS if o.demo] == [
        "matching",
        "iou_threshold",
        "iou_boundary",
        "box_format",
    ]
    ok = [{"cat": [B]}]
    with pytest.raises(ValueError, match="`matching` must be one of"):
        det_f1.score(ok, ok, matching="hungarian")
    with pytest.raises(ValueError, match=r"`iou_threshold` must be a number in \[0.0, 1.0\]"):
        det_f1.score(ok, ok, iou_threshold=1.5)
    with pytest.raises(ValueError, match="unknown option 'iou'"):
        det_f1.score(ok, ok, iou=0.4)
    with pytest.raises(ValueError, match="unknown preset"):
        det_f1.score(ok, ok, preset="coco")
    assert "iou_threshold (`float`, optional)" in det_f1.OPTIONS.describe()


def test_checks_come_in_compute_order():
    """preset, resampling, return_per_example, options, then the inputs (as evaluate's compute does)."""
    with pytest.raises(ValueError, match="unknown preset"):
        det_f1.score(None, None, preset="coco", confidence=2.0)
    with pytest.raises(ValueError, match="`confidence`"):
        det_f1.score(None, None, confidence=2.0, return_per_example=1, matching="x")
    with pytest.raises(TypeError, match="`return_per_example`"):
        det_f1.score(None, None, return_per_example=1, matching="x")
    with pytest.raises(ValueError, match="`matching`"):
        det_f1.score(None, None, matching="x")
    with pytest.raises(ValueError, match="`predictions` is required"):
        det_f1.score(None, None)
    with pytest.raises(ValueError, match=r"`predictions` has 2 examples but `references` has 1"):
        det_f1.score([{"cat": [B]}] * 2, [{"cat": [B]}])
    with pytest.raises(ValueError, match=r"`references\[0\]` class 'cat', box 0: a box has 4 numbers"):
        det_f1.score([{"cat": [B]}], [{"cat": [[0, 0, 1]]}])
    with pytest.raises(ValueError, match=r"`predictions\[0\]` has no entry for requested class 'dog'"):
        det_f1.score([{"cat": [B]}], [{"cat": [B], "dog": []}])
    # a packed dict is a class dict to compute's add_batch, and so to score
    with pytest.raises(TypeError, match=r"`predictions\[0\]` class 'classes', box 0: expected 4 numbers"):
        det_f1.score(det_f1.normalize_batch([{"cat": [B]}], "predictions"), [{"cat": [B]}])


def test_core_is_the_formula_and_the_package_names_the_public_functions():
    """``core`` counts and scores; the readers, boxes and matching rules live in their own modules, and the
    package exports the public functions of each."""
    from multimodal_metrics.det_f1 import boxes, columns, matching

    assert (det_f1.det_f1, det_f1.count_per_image, det_f1.prf, det_f1.scores) == (
        core.det_f1,
        core.count_per_image,
        core.prf,
        core.scores,
    )
    assert (det_f1.pack, det_f1.from_fusion_brain, det_f1.box_status, det_f1.pairwise_iou) == (
        columns.pack,
        columns.from_fusion_brain,
        matching.box_status,
        boxes.pairwise_iou,
    )
    assert all(hasattr(det_f1, name) for name in det_f1.__all__)
    preds, refs, images = det_f1.from_fusion_brain({"a.jpg": {"cat": [B]}}, {"a.jpg": {"cat": [B], "x": []}})
    assert images == ["a.jpg"] and core.det_f1(preds, refs)["f1"] == 1.0
    assert np.array_equal(core.count_per_image(preds, refs), [[1, 0, 0]])
