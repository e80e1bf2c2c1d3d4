"""det_f1: reference vectors (seeds_reference.md 6.8), the Fusion Brain 2021 loop as an oracle,
one-to-one expectations, properties, bad input, evaluate.load, Trainer, demo, file CLI."""

import json

import numpy as np
import pytest
from helpers import ROOT, load_metric, run_in_trainer, serve_app
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import det_f1 as oracle  # holds the transcription of the official loop (reference_counts)
from oracles.det_f1 import VECTORS

from multimodal_metrics import det_f1 as det
from multimodal_metrics.det_f1 import PRESETS

B = [0, 0, 10, 10]
IDS = [v[0] for v in VECTORS]


@pytest.mark.parametrize("vid,refs,preds,official,one_to_one", VECTORS, ids=IDS)
def test_vectors_default_preset_is_the_official_script(vid, refs, preds, official, one_to_one):
    r = load_metric("det_f1").compute(predictions=preds, references=refs)
    assert r["f1"] == pytest.approx(official, abs=1e-6)
    fb_true = {f"{i}.jpg": x for i, x in enumerate(refs)}
    fb_pred = {f"{i}.jpg": x for i, x in enumerate(preds)}
    assert (r["tp"], r["fp"], r["fn"]) == oracle.reference_counts(fb_true, fb_pred)


@pytest.mark.parametrize("vid,refs,preds,official,one_to_one", VECTORS, ids=IDS)
def test_vectors_one_to_one_preset(vid, refs, preds, official, one_to_one):
    r = load_metric("det_f1", "one_to_one").compute(predictions=preds, references=refs)
    assert r["f1"] == pytest.approx(one_to_one, abs=1e-6)
    assert r == load_metric("det_f1").compute(predictions=preds, references=refs, matching="one_to_one") | {
        "signature": r["signature"]
    }


def test_counts_keys_and_per_example():
    refs, preds = VECTORS[9][1], VECTORS[9][2]
    r = load_metric("det_f1").compute(predictions=preds, references=refs, return_per_example=True)
    assert list(r) == ["f1", "precision", "recall", "tp", "fp", "fn", "signature", "per_example"]
    assert (r["tp"], r["fp"], r["fn"]) == (1.0, 1.0, 1.0)
    assert r["per_example"] == [
        {"f1": 1.0, "precision": 1.0, "recall": 1.0, "tp": 1.0, "fp": 0.0, "fn": 0.0},
        {"f1": 0.0, "precision": 0.0, "recall": 0.0, "tp": 0.0, "fp": 1.0, "fn": 1.0},
    ]
    assert all(isinstance(v, float) for k, v in r.items() if k not in ("signature", "per_example"))


def test_iou_boundary_threshold_and_box_format_options():
    m = load_metric("det_f1")
    refs, preds = [{"cat": [B]}], [{"cat": [[0, 0, 10, 5]]}]  # IoU = 0.5
    assert m.compute(predictions=preds, references=refs, iou_boundary="strict")["f1"] == 0.0
    assert m.compute(predictions=preds, references=refs, iou_threshold=0.6)["f1"] == 0.0
    assert (
        m.compute(predictions=preds, references=refs, iou_threshold=0.0, iou_boundary="strict")["f1"] == 1.0
    )
    xyxy = m.compute(
        predictions=[{"cat": [[0, 0, 10, 5]]}], references=[{"cat": [[0, 0, 10, 10]]}], box_format="xyxy"
    )
    assert xyxy["f1"] == 1.0
    r = m.compute(
        predictions=preds, references=refs, iou_boundary="strict", box_format="xyxy", matching="one_to_one"
    )
    assert (
        r["signature"]
        == "det_f1|preset:default|match:one_to_one|iou:0.5|bound:strict|fmt:xyxy|miss:error|v:0.1.0"
    )


def test_presets_and_signatures():
    refs, preds = [{"cat": [B]}], [{"cat": [B]}]
    sig = {
        p: load_metric("det_f1", p).compute(predictions=preds, references=refs)["signature"]
        for p in ("default", "fusion_brain_2021", "one_to_one")
    }
    assert (
        sig["default"]
        == "det_f1|preset:default|match:any|iou:0.5|bound:inclusive|fmt:xywh|miss:error|v:0.1.0"
    )
    assert sig["fusion_brain_2021"] == sig["default"].replace("preset:default", "preset:fusion_brain_2021")
    assert (
        sig["one_to_one"]
        == "det_f1|preset:one_to_one|match:one_to_one|iou:0.5|bound:inclusive|fmt:xywh|miss:empty|v:0.1.0"
    )


def test_input_forms_agree_numpy_torch_records_and_accumulation():
    import torch

    refs = [{"cat": [B, [50, 50, 10, 10]], "dog": []}, {"cat": []}]
    preds = [{"cat": [[1, 1, 10, 10]], "dog": [[0, 0, 3, 3]], "unrequested": [B]}, {"cat": [[]]}]
    m = load_metric("det_f1")
    expected = m.compute(predictions=preds, references=refs)
    records = [{"classes": list(x), "boxes": list(x.values())} for x in refs]
    arrays = [
        {
            "cat": np.array([[1, 1, 10, 10]]),
            "dog": torch.tensor([[0.0, 0, 3, 3]]),
            "unrequested": np.zeros((0, 4)),
        },
        {"classes": ["cat"], "boxes": [np.zeros((0, 4))]},
    ]
    assert m.compute(predictions=arrays, references=records) == expected
    m.add_batch(predictions=preds[:1], references=refs[:1])
    m.add(prediction=preds[1], reference=refs[1])
    assert m.compute() == expected
    assert (expected["tp"], expected["fp"], expected["fn"]) == (1.0, 1.0, 1.0)


def test_missing_class_option():
    refs, preds = [{"cat": [B], "dog": [B]}], [{"cat": [B]}]
    with pytest.raises(ValueError, match=r"`predictions\[0\]` has no entry for requested class 'dog'"):
        load_metric("det_f1").compute(predictions=preds, references=refs)
    r = load_metric("det_f1").compute(predictions=preds, references=refs, missing_class="empty")
    assert (r["tp"], r["fp"], r["fn"]) == (1.0, 0.0, 1.0)
    assert load_metric("det_f1", "one_to_one").compute(predictions=preds, references=refs)["fn"] == 1.0


def test_pairwise_iou_matches_the_scalar_reference():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 20, size=(30, 4)).astype(float)
    b = rng.integers(0, 20, size=(20, 4)).astype(float)
    matrix = det.pairwise_iou(a, b, "xywh")
    assert matrix.shape == (30, 20)
    xyxy = [[x, y, x + w, y + h] for x, y, w, h in a.tolist()]
    for i, p in enumerate(xyxy):
        for j, (x, y, w, h) in enumerate(b.tolist()):
            assert matrix[i, j] == oracle.reference_iou(p, [x, y, x + w, y + h])
    assert det.pairwise_iou(np.zeros((0, 4)), b).shape == (0, 20)
    assert det.pairwise_iou([[0, 0, 0, 0]], [[0, 0, 0, 0]]).tolist() == [[0.0]]  # 0/0 -> 0


# ------------------------------------------------------------------------------------------------
# the official loop as an oracle on generated images
# ------------------------------------------------------------------------------------------------
CLASSES = ["cat", "a red chair", "two green eyes"]
small_box = st.lists(st.integers(0, 8), min_size=4, max_size=4)  # small grid: exact IoU ties, zero sizes
float_box = st.lists(st.integers(0, 80).map(lambda v: v / 10), min_size=4, max_size=4)  # inexact floats


@st.composite
def image(draw, positive_area=False, floats=False):
    box = float_box if floats else small_box
    if positive_area:
        box = box.map(lambda b: [b[0], b[1], max(b[2], 1), max(b[3], 1)])
    classes = draw(st.lists(st.sampled_from(CLASSES), min_size=1, max_size=3, unique=True))
    gt = {c: draw(st.lists(box, max_size=3)) for c in classes}
    pred = {}
    for c in classes:
        boxes = draw(st.lists(st.sampled_from(gt[c]) | box if gt[c] else box, max_size=4))
        if boxes and draw(st.booleans()):  # a consecutive duplicate
            k = draw(st.integers(0, len(boxes) - 1))
            boxes.insert(k, boxes[k])
        pred[c] = [list(b) for b in boxes] if boxes or draw(st.booleans()) else [[]]
    if draw(st.booleans()):
        pred["not requested"] = draw(st.lists(box, max_size=2))
    return gt, pred


datasets_ = st.lists(image(), min_size=1, max_size=25)


def _fb(data):
    return {f"{i}.jpg": gt for i, (gt, _) in enumerate(data)}, {
        f"{i}.jpg": p for i, (_, p) in enumerate(data)
    }


def _counts(result):
    return int(result["tp"]), int(result["fp"]), int(result["fn"])


@settings(max_examples=40, deadline=None)
@given(datasets_, st.sampled_from([0.5, 0.5, 0.25, 0.75]), st.sampled_from(["inclusive", "strict"]))
def test_official_loop_transcription_as_oracle(data, threshold, boundary):
    true_annot, predictions = _fb(data)
    preds, refs, _ = det.from_fusion_brain(true_annot, predictions)
    ours = det.det_f1(preds, refs, iou_threshold=threshold, iou_boundary=boundary)
    theirs = oracle.reference_counts(
        true_annot, predictions, threshold=threshold, strict=boundary == "strict"
    )
    assert _counts(ours) == theirs
    assert ours["f1"] == oracle.reference_f1(*theirs)


@settings(max_examples=20, deadline=None)
@given(st.lists(image(floats=True), min_size=1, max_size=25), st.sampled_from(["inclusive", "strict"]))
def test_official_loop_oracle_on_float_boxes(data, boundary):
    true_annot, predictions = _fb(data)
    preds, refs, _ = det.from_fusion_brain(true_annot, predictions)
    ours = det.det_f1(preds, refs, iou_boundary=boundary)
    assert _counts(ours) == oracle.reference_counts(true_annot, predictions, strict=boundary == "strict")


def _one_to_one_oracle(data, threshold=0.5):
    """Greedy one-to-one matching per (image, class), pure Python, scalar IoU."""
    tp = fp = fn = 0
    for gt, pred in data:
        for c, g in gt.items():
            p = pred.get(c, [])
            p = [] if p == [[]] else p
            xy = [[x, y, x + w, y + h] for x, y, w, h in p]
            gxy = [[x, y, x + w, y + h] for x, y, w, h in g]
            cands = sorted(
                (-oracle.reference_iou(a, b), j, k) for j, a in enumerate(xy) for k, b in enumerate(gxy)
            )
            used_p, used_g = set(), set()
            for neg, j, k in cands:
                if -neg >= threshold and j not in used_p and k not in used_g:
                    used_p.add(j)
                    used_g.add(k)
            tp += len(used_p)
            fp += len(p) - len(used_p)
            fn += len(g) - len(used_g)
    return tp, fp, fn


@settings(max_examples=30, deadline=None)
@given(datasets_)
def test_one_to_one_against_a_pure_python_greedy(data):
    preds, refs, _ = det.from_fusion_brain(*_fb(data))
    assert _counts(det.det_f1(preds, refs, matching="one_to_one")) == _one_to_one_oracle(data)


def test_oracle_on_a_few_hundred_random_images():
    true_annot, predictions = oracle.generate(300, seed=3)
    preds, refs, _ = det.from_fusion_brain(true_annot, predictions)
    assert _counts(det.det_f1(preds, refs)) == oracle.reference_counts(true_annot, predictions)
    r = load_metric("det_f1").compute(predictions=preds, references=refs)
    assert _counts(r) == oracle.reference_counts(true_annot, predictions)


# ------------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(datasets_, st.sampled_from(["any", "one_to_one"]))
def test_properties(data, matching):
    preds = [p for _, p in data]
    refs = [g for g, _ in data]
    r = det.det_f1(preds, refs, matching=matching, return_per_example=True)
    for key in ("f1", "precision", "recall"):
        assert 0.0 <= r[key] <= 1.0
    # per-example counts sum to the totals
    for key in ("tp", "fp", "fn"):
        assert sum(x[key] for x in r["per_example"]) == r[key]
    # order of images does not change the aggregate
    rev = det.det_f1(preds[::-1], refs[::-1], matching=matching)
    assert rev == {k: v for k, v in r.items() if k != "per_example"}
    if matching == "one_to_one":
        n_gt = sum(len(b) for g in refs for b in g.values())
        assert r["tp"] + r["fn"] == n_gt


@settings(max_examples=30, deadline=None)
@given(st.lists(image(positive_area=True), min_size=1, max_size=15), st.sampled_from(["any", "one_to_one"]))
def test_identical_predictions_score_one(data, matching):
    refs = [g for g, _ in data]
    r = det.det_f1(refs, refs, matching=matching)
    has_gt = any(b for g in refs for b in g.values())
    assert r["f1"] == (1.0 if has_gt else 0.0)
    assert r["fp"] == 0 and r["fn"] == 0


@settings(max_examples=8, deadline=None)
@given(st.lists(image(), min_size=1, max_size=10), st.sampled_from(["default", "one_to_one"]))
def test_module_equals_core(data, preset):
    preds = [p for _, p in data]
    refs = [g for g, _ in data]
    r = load_metric("det_f1", preset).compute(predictions=preds, references=refs, return_per_example=True)
    opts = dict(PRESETS[preset])
    expected = det.det_f1(preds, refs, return_per_example=True, **opts)
    assert {k: v for k, v in r.items() if k != "signature"} == expected


# ------------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------------
OK = {"cat": [B]}


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        (
            dict(predictions=[OK, OK], references=[OK]),
            ValueError,
            r"`predictions` has 2 .* `references` has 1",
        ),
        (dict(predictions=None, references=[OK]), ValueError, r"`predictions` is required"),
        (dict(predictions=[OK, None], references=[OK, OK]), TypeError, r"`predictions\[1\]` is None"),
        (dict(predictions=[OK], references=["cat"]), TypeError, r"`references\[0\]` must be a dict"),
        (
            dict(predictions=[{"cat": [[0, 0, 1]]}], references=[OK]),
            ValueError,
            r"`predictions\[0\]` class 'cat', box 0: a box has 4 numbers, got 3",
        ),
        (
            dict(predictions=[OK, {"cat": [B, [1, 2, 3, 4, 5]]}], references=[OK, OK]),
            ValueError,
            r"`predictions\[1\]` class 'cat', box 1: a box has 4 numbers",
        ),
        (
            dict(predictions=[OK], references=[{"cat": [[0, 0, "1", 1]]}]),
            TypeError,
            r"`references\[0\]` class 'cat', box 0: coordinates must be numbers",
        ),
        (
            dict(predictions=[OK], references=[{"cat": None}]),
            TypeError,
            r"`references\[0\]` class 'cat': box list is None",
        ),
        (
            dict(predictions=[{"classes": ["cat", "dog"], "boxes": [[B]]}], references=[OK]),
            ValueError,
            r"`predictions\[0\]`: 'classes' has 2 entries but 'boxes' has 1",
        ),
        (
            dict(predictions=[{"classes": ["cat", "cat"], "boxes": [[B], [B]]}], references=[OK]),
            ValueError,
            r"`predictions\[0\]`: class 'cat' is listed twice",
        ),
        (
            dict(predictions=[OK], references=[{"cat": [[0, 0, float("nan"), 1]]}]),
            ValueError,
            r"`references\[0\]` class 'cat', box 0: NaN or infinite coordinate",
        ),
        (
            dict(predictions=[OK, {"dog": [], "cat": [B, [0, 0, -1, 5]]}], references=[OK, OK]),
            ValueError,
            r"`predictions\[1\]` class 'cat', box 1: negative width/height",
        ),
        (
            dict(predictions=[{"cat": [[5, 0, 4, 10]]}], references=[OK], box_format="xyxy"),
            ValueError,
            r"`predictions\[0\]` class 'cat', box 0: x2 < x1",
        ),
        (
            dict(predictions=[{"cat": np.zeros((2, 3))}], references=[OK]),
            ValueError,
            r"`predictions\[0\]` class 'cat': boxes must have shape \(N, 4\)",
        ),
        (
            dict(predictions=[OK], references=[OK], matching="hungarian"),
            ValueError,
            r"`matching` must be one of",
        ),
        (dict(predictions=[OK], references=[OK], iou_threshold=1.5), ValueError, r"`iou_threshold`"),
        (
            dict(predictions=[OK], references=[OK], iou_boundary="open"),
            ValueError,
            r"`iou_boundary` must be one of",
        ),
        (
            dict(predictions=[OK], references=[OK], box_format="cxcywh"),
            ValueError,
            r"`box_format` must be one of",
        ),
        (
            dict(predictions=[OK], references=[OK], missing_class="skip"),
            ValueError,
            r"`missing_class` must be one of",
        ),
    ],
)
def test_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        load_metric("det_f1").compute(**kwargs)


def test_fusion_brain_loader_errors():
    gt = {"a.jpg": {"cat": [B], "dog": []}, "b.jpg": {"cat": []}}
    with pytest.raises(ValueError, match=r"same images .*1 missing from predictions \['b.jpg'\]"):
        det.from_fusion_brain(gt, {"a.jpg": {"cat": [B], "dog": []}})
    with pytest.raises(
        ValueError, match=r"`predictions\['a.jpg'\]` \(image 0\) has no entry for requested class 'dog'"
    ):
        det.from_fusion_brain(gt, {"a.jpg": {"cat": [B]}, "b.jpg": {"cat": []}})
    preds, refs, images = det.from_fusion_brain(
        gt, {"b.jpg": {"cat": [[]], "x": [B]}, "a.jpg": {"dog": [], "cat": [B]}}
    )
    assert images == ["a.jpg", "b.jpg"] and det.det_f1(preds, refs)["f1"] == 1.0


# ------------------------------------------------------------------------------------------------
# integration: docstring, Trainer, demo
# ------------------------------------------------------------------------------------------------
def test_trainer_compute_metrics():
    official, one_to_one = load_metric("det_f1"), load_metric("det_f1", "one_to_one")

    def box(label):  # one box per class id, far apart: a wrong label never overlaps the right box
        return [[30 * int(label), 0, 10, 10]]

    seen = {}

    def compute_metrics(eval_pred):
        logits, labels = eval_pred
        pred_ids = np.argmax(logits, axis=-1)
        preds = [{"object": box(p)} for p in pred_ids]
        refs = [{"object": box(t)} for t in labels]
        seen["accuracy"] = float((pred_ids == labels).mean())
        result = official.compute(predictions=preds, references=refs)
        result.pop("signature")
        result["one_to_one_f1"] = one_to_one.compute(predictions=preds, references=refs)["f1"]
        return result

    metrics = run_in_trainer(compute_metrics)
    # official rule: a wrong box is an FP but no FN (as many predictions as objects) -> recall 1
    assert metrics["eval_precision"] == pytest.approx(seen["accuracy"])
    assert metrics["eval_recall"] == 1.0
    # one-to-one: a wrong box is an FP and leaves its object as an FN -> F1 = accuracy
    assert metrics["eval_one_to_one_f1"] == pytest.approx(seen["accuracy"])
    assert metrics["eval_tp"] + metrics["eval_fp"] == 16


def test_demo_serves_scores_and_draws():
    demo, client = serve_app(ROOT / "metrics" / "det_f1" / "app.py")
    try:
        refs = json.dumps({"a.jpg": {"cat": [[0, 0, 10, 10], [50, 50, 10, 10]], "dog": []}})
        preds = json.dumps({"a.jpg": {"cat": [[0, 0, 10, 5], [1, 1, 10, 10]], "dog": [[5, 5, 5, 5]]}})
        result, *_, picture, note = client.predict(
            refs, preds, "default", "preset", "", "preset", "preset", api_name="/compute"
        )
        assert (result["tp"], result["fp"], result["fn"]) == (2.0, 1.0, 0.0)
        assert result["per_example"][0]["f1"] == result["f1"]
        from PIL import Image

        path = picture["path"] if isinstance(picture, dict) else picture
        with Image.open(path) as img:
            assert img.width > 100 and img.height > 100
        result, *_ = client.predict(
            refs, preds, "one_to_one", "preset", "", "strict", "preset", api_name="/compute"
        )
        assert (result["tp"], result["fp"], result["fn"]) == (1.0, 2.0, 1.0)
        assert "|bound:strict|" in result["signature"]
        for wrong, match in (
            ({"b.jpg": {"cat": []}}, "same images"),
            ({"a.jpg": {"cat": [[0, 0, -1, 5]], "dog": []}}, "negative width/height"),
        ):
            with pytest.raises(Exception, match=match):
                client.predict(
                    refs, json.dumps(wrong), "default", "preset", "", "preset", "preset", api_name="/compute"
                )
    finally:
        demo.close()


def test_bool_coordinates_are_refused_in_every_container():
    for boxes in ([[True, 0, 10, 10]], ([True, 0, 10, 10],)):
        with pytest.raises(TypeError, match=r"`predictions\[0\]` class 'c'"):
            load_metric("det_f1").compute(predictions=[{"c": boxes}], references=[{"c": [[1, 0, 10, 10]]}])
