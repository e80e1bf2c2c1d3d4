"""det_f1's mergeable state: per-image (tp, fp, fn) rows merged in any order equal ``score`` bit for bit
on every preset and option set (intervals and per-image dicts included); update's errors are score's;
other options are refused."""

import random

import numpy as np
import pytest
from state_checks import (
    StateCase,
    assert_covers_presets,
    assert_same_result,
    case_id,
    check_case,
    check_empty_states_raise_the_error_of_score,
    check_merges_equal_score,
    error_of,
)

from multimodal_metrics import det_f1, vqa_acc
from multimodal_metrics import state as mmstate

CLASSES = ["cat", "dog", "red car", "человек"]


def _box(rng, xyxy: bool) -> list:
    x, y, w, h = rng.randint(0, 50), rng.randint(0, 50), rng.randint(1, 30), rng.randint(1, 30)
    return [x, y, x + w, y + h] if xyxy else [x, y, w, h]


def _near(rng, box: list, xyxy: bool) -> list:
    """The box moved by a few units (IoU above or below the threshold), or itself (IoU 1)."""
    dx, dy = rng.choice([0, 0, 1, -1, 3, 8]), rng.choice([0, 0, 1, -2, 5])
    return [box[0] + dx, box[1] + dy, *([box[2] + dx, box[3] + dy] if xyxy else box[2:])]


def det_case(n=250, seed=0, records=False, **options) -> StateCase:
    """``n`` generated images: per image 1 to 3 requested classes (some with no GT box: negative requests),
    predictions near the GT boxes, exact and consecutive duplicates, extra boxes; under missing_class
    'empty' some requested classes are left out of the prediction."""
    rng = random.Random(seed)
    preset = options.get("preset", "default")
    xyxy = options.get("box_format", det_f1.PRESETS[preset]["box_format"]) == "xyxy"
    drop = options.get("missing_class", det_f1.PRESETS[preset]["missing_class"]) == "empty"
    predictions, references = [], []
    for _ in range(n):
        classes = rng.sample(CLASSES, rng.randint(1, 3))
        reference = {c: [_box(rng, xyxy) for _ in range(rng.choice([0, 1, 1, 2, 4]))] for c in classes}
        prediction = {}
        for c, boxes in reference.items():
            if drop and rng.random() < 0.15:
                continue
            found = [_near(rng, b, xyxy) for b in boxes if rng.random() < 0.8]
            found += [_box(rng, xyxy) for _ in range(rng.choice([0, 0, 1, 2]))]
            if found and rng.random() < 0.2:
                found.insert(rng.randrange(len(found)), found[0])  # a duplicate, consecutive or not
            prediction[c] = found
        if records:  # the record form: {"classes": [...], "boxes": [...]} on the reference side
            reference = {"classes": list(reference), "boxes": list(reference.values())}
        predictions.append(prediction)
        references.append(reference)
    return StateCase(det_f1, {"predictions": predictions, "references": references}, options)


CASES = [
    {"preset": "default"},
    {"preset": "fusion_brain_2021", "iou_boundary": "strict"},
    {"preset": "one_to_one"},
    {"preset": "one_to_one", "box_format": "xyxy", "iou_threshold": 0.3},
    {"preset": "default", "matching": "one_to_one", "iou_threshold": 0.75},
]


@pytest.mark.parametrize("options", CASES, ids=case_id)
def test_merged_states_equal_score(options):
    check_case(det_case(**options), splits=3)


def test_every_preset_is_covered():
    assert_covers_presets(CASES, det_f1)


def test_records_and_the_counts_of_the_result():
    case = det_case(120, seed=4, records=True, preset="one_to_one")
    check_merges_equal_score(case, splits=1)
    result = case.shard_state(range(120)).result()
    reference = case.reference()
    assert result.counts.dtype == np.int64 and np.array_equal(result.counts, reference.counts)
    assert 0 < result["f1"] < 1 and result["fp"] > 0 and result["fn"] > 0  # nothing degenerate
    assert type(mmstate.from_bytes(case.shard_state(range(3)).to_bytes())) is det_f1.State


def test_a_shard_without_data_and_padding_duplicates():
    case = det_case(40, seed=1)
    empty = det_f1.state()
    state = det_f1.state().update(**case.take(range(25)))
    state.update(**case.take(range(25, 40)))  # indexes 25..39 follow on
    state.update(**case.take([0, 1]), index=[0, 1])  # DistributedSampler's padding
    merged = det_f1.State.from_bytes(empty.to_bytes()).merge(state, empty)
    assert merged.index.tolist() == list(range(40))
    kwargs = {"return_per_example": True, "confidence": 0.9, "n_resamples": 300, "seed": 5}
    assert_same_result(merged.result(**kwargs), det_f1.score(**case.inputs, **kwargs))


def test_conflicting_duplicate_is_refused_and_state_kept():
    hit, miss = {"cat": [[0, 0, 10, 10]]}, {"cat": [[50, 50, 10, 10]]}
    state = det_f1.state().update([hit, miss], [hit, hit], index=[7, 8])
    before = state.to_bytes()
    with pytest.raises(ValueError, match="index 8 was given to two different examples"):
        state.update([hit], [hit], index=[8])
    with pytest.raises(ValueError, match="index 7 was given to two different examples"):
        state.merge(det_f1.state().update([miss], [hit], index=[7]))
    assert state.to_bytes() == before
    state.update([miss], [hit], index=[8])  # the same image again: dropped
    assert state.to_bytes() == before


@pytest.mark.parametrize(
    ("other", "what"),
    [
        ({"preset": "one_to_one"}, "preset differs"),
        ({"preset": "fusion_brain_2021"}, "preset differs"),
        ({"matching": "one_to_one"}, "option 'matching' differs"),
        ({"iou_threshold": 0.7}, "option 'iou_threshold' differs"),
        ({"iou_boundary": "strict"}, "option 'iou_boundary' differs"),
        ({"box_format": "xyxy"}, "option 'box_format' differs"),
        ({"missing_class": "empty"}, "option 'missing_class' differs"),
    ],
)
def test_other_options_are_refused_naming_them(other, what):
    image = {"cat": [[0, 0, 10, 10]]}
    a = det_f1.state().update([image], [image])
    with pytest.raises(ValueError, match=what):
        a.merge(det_f1.state(**other).update([image], [image], index=[1]))
    with pytest.raises(ValueError, match=what):
        det_f1.State.from_bytes(det_f1.state(**other).to_bytes()).merge(a)


def test_other_metric_is_refused():
    with pytest.raises(ValueError, match="metric differs"):
        det_f1.state().merge(vqa_acc.state())
    with pytest.raises(ValueError, match="a vqa_acc state, not a state of det_f1"):
        det_f1.State.from_bytes(vqa_acc.state().to_bytes())


@pytest.mark.parametrize("preset", list(det_f1.PRESETS))
def test_empty_state_has_the_error_of_score(preset):
    check_empty_states_raise_the_error_of_score(det_f1, preset, iou_threshold=0.25)


BOX = [[0, 0, 10, 10]]


@pytest.mark.parametrize(
    ("options", "predictions", "references"),
    [
        ({}, [{"cat": BOX}], [{"cat": BOX}, {"cat": BOX}]),
        ({}, {"cat": BOX}, [{"cat": BOX}]),
        ({}, [{"dog": BOX}], [{"cat": BOX}]),  # missing_class='error'
        ({}, [{"cat": [[0, 0, -1, 10]]}], [{"cat": BOX}]),
        ({}, [{"cat": [[0, 0, float("nan"), 10]]}], [{"cat": BOX}]),
        ({}, [{"cat": [[0, 0, 10]]}], [{"cat": BOX}]),
        ({}, [{"cat": BOX}], [{"cat": [["0", 0, 10, 10]]}]),
        ({"box_format": "xyxy"}, [{"cat": [[5, 5, 1, 1]]}], [{"cat": BOX}]),
        ({"preset": "one_to_one"}, [{7: BOX}], [{"cat": BOX}]),
    ],
)
def test_update_errors_are_those_of_score(options, predictions, references):
    state = det_f1.state(**options)
    expected = error_of(lambda: det_f1.score(predictions, references, **options))
    assert error_of(lambda: state.update(predictions, references)) == expected
    assert len(state) == 0


def test_options_are_checked_at_creation():
    with pytest.raises(ValueError, match="iou_threshold"):
        det_f1.state(iou_threshold=1.5)
    with pytest.raises(ValueError, match="matching"):
        det_f1.state(matching="hungarian")
    with pytest.raises(ValueError, match="unknown preset"):
        det_f1.state(preset="coco")


def test_bytes_per_image():
    """48 bytes per image (tp, fp, fn and the index, int64 each, and the 16-byte digest of its boxes) plus
    a header of a few hundred bytes."""
    small, large = (len(det_case(n).shard_state(range(n)).to_bytes()) for n in (100, 1100))
    assert 0 <= large - small - 1000 * 48 < 16  # the header's counts grow by a few digits
    assert small < 100 * 48 + 1024
