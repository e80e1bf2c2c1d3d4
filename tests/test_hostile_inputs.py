"""Regression tests of issue 21 (hostile inputs, second round), families 1, 2 and 4 outside fid_clip,
and issue 24 item 6 (det_f1 one_to_one memory): each case at its cause, through every path."""

import importlib
import time
import tracemalloc

import numpy as np
import pytest
from helpers import load_metric
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from multimodal_metrics import det_f1, stats

BOX = [[0, 0, 2, 2]]


# ----------------------------------------------------------------------------------------------
# Family 2: resampling options and the paired test name the argument
# ----------------------------------------------------------------------------------------------
TEXT_METRICS = ("anls", "text_qa", "ru_meteor")
TEXT_OPTIONS = {"anls": {}, "text_qa": {}, "ru_meteor": {"synonyms": "none"}}


def _library(name):
    return importlib.import_module(f"multimodal_metrics.{name}")


@pytest.mark.parametrize("value", [10**400, -(10**400), 2**1100])
@pytest.mark.parametrize("arg", ["confidence", "n_resamples", "seed"])
def test_huge_integer_resampling_option_is_a_value_error_naming_it(arg, value):
    kwargs = {"confidence": 0.9, arg: value}
    with pytest.raises(ValueError, match=rf"`{arg}`"):
        stats.Resampling(**kwargs)
    with pytest.raises(ValueError, match=rf"`{arg}`"):
        _library("anls").score(["a"], ["a"], **kwargs)
    with pytest.raises(ValueError, match=rf"`{arg}`"):
        load_metric("anls").compute(predictions=["a"], references=["a"], **kwargs)
    with pytest.raises(ValueError, match=rf"`{arg}`"):
        _library("anls").compare(["a"], ["b"], ["a"], **kwargs)


@given(st.integers(min_value=2**64))
@settings(max_examples=30, deadline=None)
def test_every_integer_beyond_the_seed_range_is_refused(seed):
    with pytest.raises(ValueError, match="`seed`"):
        stats.Resampling(0.9, 10, seed)
    assert stats.Resampling(0.9, 10, 2**64 - 1).seed == 2**64 - 1


@pytest.mark.parametrize(
    "test",
    [
        np.array(["paired_bootstrap"]),
        np.array(["a", "b"]),
        np.array("paired_bootstrap"),
        ["x"],
        {"a": 1},
        1,
        None,
    ],
)
def test_compare_test_that_is_not_a_string_names_test(test):
    with pytest.raises((TypeError, ValueError), match="`test`"):
        _library("anls").compare(["a"], ["b"], ["a"], test=test)
    with pytest.raises((TypeError, ValueError), match="`test`"):
        load_metric("anls").compare(predictions_a=["a"], predictions_b=["b"], references=["a"], test=test)
    with pytest.raises((TypeError, ValueError), match="`test`"):
        load_metric("det_f1").compare(
            predictions_a=[{"cat": BOX}], predictions_b=[{"cat": []}], references=[{"cat": BOX}], test=test
        )


def test_compare_test_as_numpy_str_is_the_plain_name():
    out = _library("anls").compare(["a"], ["b"], ["a"], test=np.str_("paired_bootstrap"), n_resamples=10)
    assert "test:paired-bs" in out["signature"]


# ----------------------------------------------------------------------------------------------
# Family 1: a str subclass scores like its plain text, through every path
# ----------------------------------------------------------------------------------------------
class Tricky(str):
    """A str whose methods lie: a metric that calls them scores something else than the text."""

    def lower(self):
        return "zzzz"

    def upper(self):
        return "ZZZZZZZZZZZZZZZZ"

    def strip(self, *args):
        return Tricky("qq")

    def split(self, *args, **kwargs):
        return ["x", "y"]

    def __len__(self):
        return 99

    def __str__(self):
        return "other"

    def __iter__(self):
        return iter("other")

    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0


class Plain(str):
    pass


PAIRS = [("the cat sat", "a cat sat"), ("Hello World", "hello  world"), ("две птицы", "две птицы летают")]


def _scores(name, predictions, references):
    options = TEXT_OPTIONS[name]
    key = {"anls": "anls", "text_qa": "f1", "ru_meteor": "meteor"}[name]
    library = _library(name).score(predictions, references, return_per_example=True, **options)
    metric = load_metric(name)
    computed = metric.compute(
        predictions=predictions, references=references, return_per_example=True, **options
    )
    for p, r in zip(predictions, references):
        metric.add_batch(predictions=[p], references=[r])
    batched = metric.compute(return_per_example=True, **options)
    return [(x[key], x["per_example"]) for x in (library, computed, batched)]


@pytest.mark.parametrize("cls", [Tricky, Plain, np.str_])
@pytest.mark.parametrize("name", TEXT_METRICS)
def test_str_subclass_scores_like_its_text_through_every_path(name, cls):
    preds, refs = [p for p, _ in PAIRS], [r for _, r in PAIRS]
    expected = _scores(name, preds, refs)
    assert _scores(name, [cls(p) for p in preds], [cls(r) for r in refs]) == expected
    assert _scores(name, [cls(p) for p in preds], [[cls(r)] for r in refs]) == expected


@given(st.lists(st.tuples(st.text(max_size=12), st.text(max_size=12)), min_size=1, max_size=4))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_str_subclass_anls_library_equals_plain(pairs):
    pairs = [
        (p, r)
        for p, r in pairs
        if p.encode("utf-8", "surrogatepass") and not any(0xD800 <= ord(c) < 0xE000 for c in p + r)
    ]
    if not pairs:
        return
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    anls = _library("anls")
    plain = anls.score(preds, refs, return_per_example=True)["per_example"]
    assert (
        anls.score([Tricky(p) for p in preds], [Tricky(r) for r in refs], return_per_example=True)[
            "per_example"
        ]
        == plain
    )


# ----------------------------------------------------------------------------------------------
# Family 1: det_f1 boxes that are not ordered sequences, coordinates at dtype limits
# ----------------------------------------------------------------------------------------------
def _det(pred, ref=None, **options):
    return load_metric("det_f1").compute(predictions=[pred], references=[ref or {"cat": BOX}], **options)


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
# Family 4 (scale) and issue 24 item 6: quadratic groups and long strings, bounded or refused early
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


def _unrelated(n, seed):
    rng = np.random.default_rng(seed)
    return "".join(rng.choice(list("abcdefghij klmnop"), size=n).tolist())


def test_anls_two_unrelated_megabyte_strings_are_refused_at_once():
    a, b = _unrelated(1_000_000, 1), _unrelated(1_000_000, 2)
    anls = _library("anls")
    start = time.process_time()
    with pytest.raises(
        ValueError, match=r"`predictions\[1\]` and `references\[1\]\[0\]`: [\d,]+ and [\d,]+ characters"
    ):
        anls.score(["a", a], ["a", b])
    with pytest.raises(ValueError, match=r"`predictions\[0\]` and `references\[0\]`"):
        anls.core.pair_similarities([a], [b])
    with pytest.raises(ValueError, match=r"`predictions\[0\]` and `references\[0\]\[1\]`"):
        load_metric("anls").compute(predictions=[a], references=[["x", b]])
    assert time.process_time() - start < 10


def test_anls_long_pair_that_cannot_pass_scores_zero_without_the_distance():
    a, b = _unrelated(1_000_000, 1), _unrelated(300_000, 2)  # s <= 1 - 700,000 / 1,000,000 < 0.5
    start = time.process_time()
    assert _library("anls").score([a, "abc"], [b, "abd"], return_per_example=True)["per_example"][0] == 0.0
    assert time.process_time() - start < 3


def test_anls_megabyte_near_copy_is_still_scored_exactly():
    a = _unrelated(1_000_000, 1)
    b = "x" + a[1:500_000] + "yz" + a[500_001:-1] + "w"  # 4 edits, none in a common prefix or suffix
    start = time.process_time()
    got = _library("anls").core.pair_similarities([a], [b], text_norm="none", length_norm="raw")
    assert got.tolist() == [1.0 - 4 / 1_000_001]
    assert time.process_time() - start < 3
