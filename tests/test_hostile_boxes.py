"""det_f1 on hostile boxes: integers beyond the float range, sets and dicts as boxes, coordinates at
dtype limits, extreme scales, bad boxes in unrequested classes, and quadratic groups bounded or refused
early (each case at its cause, through every path)."""

import time
import tracemalloc

import numpy as np
import pytest
from helpers import load_metric
from hypothesis import given, settings
from hypothesis import strategies as st

from multimodal_metrics import det_f1

BOX = [[0, 0, 2, 2]]


# ----------------------------------------------------------------------------------------------
# det_f1
# ----------------------------------------------------------------------------------------------
def _det(pred, ref=None, **options):
    return load_metric("det_f1").compute(predictions=[pred], references=[ref or {"cat": BOX}], **options)


@pytest.mark.parametrize("value", [10**400, -(10**400), 2**1100])
def test_det_f1_integer_beyond_float_range_is_named(value):
    with pytest.raises(
        ValueError, match=r"`predictions\[0\]` class 'cat', box 0: .*beyond the float64 range"
    ):
        _det({"cat": [[value, 0, 1, 1]]})


def test_det_f1_huge_but_finite_integer_is_a_coordinate():
    # 2**64 does not fit numpy's integer types (object array): it is still a number, and scored
    big = [[2**64, 0, 2**64, 2**64]]
    r = _det({"cat": big}, {"cat": big}, return_per_example=True)
    assert r["f1"] == 1.0


def test_det_f1_lone_surrogate_class_name_is_named():
    with pytest.raises(ValueError, match=r"`predictions\[0\]`: class name 'a\\ud800' is not valid Unicode"):
        _det({"a\ud800": [], "cat": BOX})
    with pytest.raises(ValueError, match=r"`references\[0\]`: class name"):
        _det({"cat": BOX}, {"classes": ["\udfff"], "boxes": [BOX]})


@pytest.mark.parametrize("size", [1e154, 1e200, 1e300, 1e-154, 1e-300, 5e-324 * 2**10])
def test_det_f1_identical_boxes_at_extreme_scales_match(size):
    box = [[0, 0, size, size]]
    assert _det({"cat": box}, {"cat": box})["f1"] == 1.0
    shifted = [[size / 2, 0, size, size]]  # IoU 1/3: a miss at 0.5, a hit at 0.3
    assert _det({"cat": shifted}, {"cat": box})["f1"] == 0.0
    assert _det({"cat": shifted}, {"cat": box}, iou_threshold=0.3)["f1"] == 1.0


def test_det_f1_iou_scaling_is_exact_in_the_usual_range():
    from multimodal_metrics.det_f1 import boxes

    rng = np.random.default_rng(0)
    a = rng.uniform(0, 1000, size=(500, 4))
    b = rng.uniform(0, 1000, size=(500, 4))
    a[:, 2:] += a[:, :2]
    b[:, 2:] += b[:, :2]
    plain = boxes.paired_iou(a, b)
    for power in (600, -600):  # scaled path: the same numbers after an exact power-of-two scaling
        scale = 2.0**power
        assert np.array_equal(boxes.paired_iou(a * scale, b * scale), plain)


def test_det_f1_xywh_corner_beyond_float_range_is_named():
    with pytest.raises(ValueError, match=r"class 'cat', box 0: .*beyond the float64 range"):
        _det({"cat": [[1e308, 0, 1e308, 1]]})


@pytest.mark.parametrize(
    "bad, reason",
    [
        ([float("nan"), 0, 1, 1], "NaN or infinite"),
        ([0, 0, float("inf"), 1], "NaN or infinite"),
        ([0, 0, -1, 1], "negative width"),
    ],
)
def test_det_f1_bad_boxes_in_unrequested_classes_are_refused(bad, reason):
    with pytest.raises(ValueError, match=rf"`predictions\[0\]` class 'dog', box 0: {reason}"):
        _det({"cat": BOX, "dog": [bad]})
    with pytest.raises(ValueError, match=rf"`predictions\[0\]` class 'dog', box 0: {reason}"):
        _det({"classes": ["dog", "cat"], "boxes": [[bad], BOX]})
    from multimodal_metrics.det_f1 import core

    with pytest.raises(ValueError, match=rf"`predictions\[0\]` class 'dog', box 0: {reason}"):
        core.det_f1([{"cat": BOX, "dog": [bad]}], [{"cat": BOX}])


def test_det_f1_empty_record_is_ambiguous():
    with pytest.raises(ValueError, match=r"`predictions\[0\]` is ambiguous"):
        _det({"classes": [], "boxes": []})
    # a class dict with classes named "classes" and "boxes" that do hold boxes is read as such
    r = _det({"classes": BOX, "boxes": BOX}, {"classes": BOX, "boxes": [[]]}, return_per_example=True)
    assert (r["tp"], r["fp"], r["fn"]) == (1.0, 1.0, 0.0)  # class "boxes" requested with no box: FP


# ----------------------------------------------------------------------------------------------
# Family 1: det_f1 boxes that are not ordered sequences, coordinates at dtype limits
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("box", [{0, 1, 2, 3}, frozenset({0, 1, 2, 3}), {0: 0, 1: 0, 2: 2, 3: 2}])
@pytest.mark.parametrize("side", ["predictions", "references"])
def test_det_f1_box_that_is_a_set_is_refused(box, side):
    hostile = {"cat": [box]}
    pred, ref = (hostile, {"cat": BOX}) if side == "predictions" else ({"cat": BOX}, hostile)
    with pytest.raises(TypeError, match=rf"`{side}\[0\]` class 'cat', box 0: expected 4 numbers, got"):
        _det(pred, ref)
    with pytest.raises(TypeError, match=rf"`{side}\[0\]` class 'cat', box 0"):
        det_f1.det_f1([pred], [ref])
    with pytest.raises(TypeError, match=rf"`{side}\[0\]` class 'cat', box 0"):
        det_f1.det_f1([{"classes": ["cat"], "boxes": [pred["cat"]]}], [ref])


INT_LIMITS = [
    np.iinfo(np.int64).max,
    np.iinfo(np.int64).max - 10,
    np.iinfo(np.int64).min,
    np.iinfo(np.uint64).max,
    np.iinfo(np.uint64).max - 10,
    2**62 + 1,
    2**53 + 1,
]


def _as_forms(box, dtype):
    """The same box as a numpy array, a list of numpy scalars and a list of Python ints."""
    return [np.array([box], dtype=dtype), [[dtype(v) for v in box]], [[int(v) for v in box]]]


@pytest.mark.parametrize("value", INT_LIMITS)
@pytest.mark.parametrize("box_format", ["xywh", "xyxy"])
def test_det_f1_integer_coordinates_at_dtype_limits_are_exact_or_refused(value, box_format):
    dtype = np.uint64 if value > np.iinfo(np.int64).max else np.int64
    x = value - 5 if value > 0 else value
    box = [x, x, 5, 5] if box_format == "xywh" else [x, x, x + 5, x + 5]
    for form in _as_forms(box, dtype):
        try:
            f1 = _det({"cat": form}, {"cat": form}, box_format=box_format)["f1"]
        except ValueError as err:
            assert "`predictions[0]` class 'cat', box 0" in str(
                err
            ) or "`references[0]` class 'cat', box 0" in str(err)
            assert "float64" in str(err)
        else:
            assert f1 == 1.0, (form, box_format)  # identical boxes of positive size: never a silent 0


@given(
    st.integers(-(2**64), 2**64),
    st.integers(-(2**64), 2**64),
    st.integers(1, 2**64),
    st.integers(1, 2**64),
    st.sampled_from(["xywh", "xyxy"]),
)
@settings(max_examples=60, deadline=None)
def test_det_f1_identical_integer_boxes_of_positive_size_score_one_or_are_named(x, y, w, h, box_format):
    box = [x, y, w, h] if box_format == "xywh" else [x, y, x + w, y + h]
    try:
        f1 = det_f1.det_f1([{"cat": [box]}], [{"cat": [box]}], box_format=box_format)["f1"]
    except ValueError as err:
        assert "class 'cat', box 0" in str(err) and "float64" in str(err)
    else:
        assert f1 == 1.0


@pytest.mark.parametrize("box", [[1e17, 0, 1, 1], [0, 1e300, 1, 1e-10], [1.0, 1.0, 1e-300, 1.0]])
def test_det_f1_xywh_size_lost_next_to_its_corner_is_named(box):
    with pytest.raises(ValueError, match=r"`references\[0\]` class 'cat', box 0: .*float64"):
        _det({"cat": [box]}, {"cat": [box]})


def test_det_f1_huge_integer_box_with_huge_size_is_still_scored():
    big = [[2**64, 0, 2**64, 2**64]]  # exact in float64, and the size survives the sum
    assert _det({"cat": big}, {"cat": big})["f1"] == 1.0


# ----------------------------------------------------------------------------------------------
# Scale: quadratic groups and long strings, bounded or refused early


# ----------------------------------------------------------------------------------------------
def _identical_boxes(n):
    return np.tile(np.array([[10.0, 10.0, 50.0, 50.0]]), (n, 1))


def _peak(fn):
    tracemalloc.start()
    try:
        start = time.process_time()
        out = fn()
        return out, tracemalloc.get_traced_memory()[1], time.process_time() - start
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("matching", ["any", "one_to_one"])
def test_det_f1_100000_boxes_of_one_class_is_refused_at_once(matching):
    rng = np.random.default_rng(0)
    boxes = np.hstack([rng.uniform(0, 1e4, (100_000, 2)), rng.uniform(5, 50, (100_000, 2))])
    start = time.process_time()
    with pytest.raises(
        ValueError, match=r"`predictions\[1\]` class 'car': 100,000 predicted x 100,000 reference boxes"
    ):
        det_f1.det_f1([{"car": BOX}, {"car": boxes}], [{"car": BOX}, {"car": boxes}], matching=matching)
    assert time.process_time() - start < 5


def test_det_f1_one_to_one_memory_stays_bounded_below_the_limit():
    n = 2000  # 4,000,000 pairs, every one a hit (identical boxes): main held +0.46 GB here
    result, peak, _ = _peak(
        lambda: det_f1.det_f1(
            [{"c": _identical_boxes(n)}], [{"c": _identical_boxes(n)}], matching="one_to_one"
        )
    )
    assert result["f1"] == 1.0 and result["tp"] == n
    assert peak < 300 * 2**20, f"peak {peak / 2**20:.0f} MiB"


def test_det_f1_any_holds_no_entry_per_passing_pair():
    n = 6000  # 36,000,000 passing pairs: a mask of predictions is enough for the any rule
    result, peak, _ = _peak(lambda: det_f1.det_f1([{"c": _identical_boxes(n)}], [{"c": _identical_boxes(n)}]))
    assert result["f1"] == 1.0
    assert peak < 150 * 2**20, f"peak {peak / 2**20:.0f} MiB"


def test_det_f1_box_status_refuses_a_huge_matrix():
    boxes = _identical_boxes(3000)
    with pytest.raises(ValueError, match="class 'c': 3,000 predicted x 3,000 reference boxes"):
        det_f1.box_status({"c": boxes}, {"c": boxes})


def test_det_f1_pairs_in_chunks_give_the_same_counts(monkeypatch):
    from multimodal_metrics.det_f1 import core
    from multimodal_metrics.det_f1 import matching as det_matching

    rng = np.random.default_rng(1)
    preds, refs = [], []
    for _ in range(5):
        g = rng.uniform(0, 50, (30, 4))
        p = np.concatenate([g[:20] + rng.normal(0, 1, (20, 4)), rng.uniform(0, 50, (15, 4))])
        refs.append({"a": np.abs(g).tolist(), "b": np.abs(g[:7]).tolist()})
        preds.append({"a": np.abs(p).tolist(), "b": np.abs(p[:9]).tolist()})
    for matching in ("any", "one_to_one"):
        whole = core.count_per_image(preds, refs, matching=matching)
        monkeypatch.setattr(
            det_matching, "PAIR_CHUNK", 37
        )  # read there (core has a copy); borders inside groups
        assert np.array_equal(core.count_per_image(preds, refs, matching=matching), whole)
        monkeypatch.undo()
