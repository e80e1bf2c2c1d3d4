"""det_f1's columnar path: the C-level walk of plain class dicts (`_pack_plain`) must give exactly what
the checked per-image path gives, or step aside (None) so that the checked path names the problem;
the Arrow columns written by `add_batch` read back unchanged; classes in another order, extra and
missing classes are aligned like the per-image rule."""

import marshal
import random
import struct

import numpy as np
import pytest
from helpers import load_metric
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import det_f1 as oracle

from multimodal_metrics.det_f1 import boxes as det_boxes
from multimodal_metrics.det_f1 import columns as det_columns
from multimodal_metrics.det_f1 import core as det_core
from multimodal_metrics.det_f1 import matching as det_matching
from multimodal_metrics.det_f1 import stream as det_stream


class Int(int):
    pass


class Float(float):
    pass


# values a coordinate may hold: the plain ones and everything the fast walk must not take as plain
COORDS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [
            0,
            1,
            2**53 + 1,
            2**64,
            2**1100,
            -(10**400),
            True,
            False,
            np.bool_(True),
            np.float32(0.5),
            np.int64(3),
            np.uint64(2**64 - 1),
            np.float16(0.1),
            "1",
            b"1",
            None,
            Int(2),
            Float(1.5),
            1j,
            [1],
            (1,),
        ]
    ),
)
PLAIN = st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False))
BOX = st.one_of(
    st.lists(PLAIN, min_size=4, max_size=4),
    st.lists(COORDS, min_size=4, max_size=4),
    st.lists(PLAIN, min_size=0, max_size=6),
    st.lists(PLAIN, min_size=4, max_size=4).map(tuple),
    st.lists(PLAIN, min_size=4, max_size=4).map(lambda b: np.asarray(b, dtype=np.float64)),
    st.sampled_from(["abcd", b"abcd", None, {1, 2, 3, 4}, {"a": 1}, range(4), 7]),
)
BOX_LIST = st.one_of(
    st.lists(st.lists(PLAIN, min_size=4, max_size=4), max_size=3),
    st.lists(BOX, max_size=3),
    st.just([[]]),
    st.just([[], [1, 2, 3, 4]]),
    st.lists(st.lists(PLAIN, min_size=4, max_size=4), max_size=3).map(tuple),
    st.sampled_from([None, "cat", np.zeros((2, 4)), np.zeros((0, 4)), {(1, 2, 3, 4)}, 5]),
)
CLASS = st.one_of(
    st.sampled_from(["cat", "dog", "a lamp", "ёж", "classes", "boxes", "a\ud800", "", "counts"]),
    st.text(max_size=3),
)
IMAGE = st.one_of(
    st.dictionaries(CLASS, st.lists(st.lists(PLAIN, min_size=4, max_size=4), max_size=3), max_size=4),
    st.dictionaries(CLASS, BOX_LIST, max_size=4),
    st.dictionaries(st.sampled_from([1, b"cat", None, 1.5]), BOX_LIST, min_size=1, max_size=2),
    st.sampled_from(
        [None, "cat", [], 3, {"classes": ["cat"], "boxes": [[[0, 0, 1, 1]]]}, {"classes": [], "boxes": []}]
    ),
)


def _same(a, b) -> bool:
    return (
        np.array_equal(a.offsets, b.offsets)
        and det_columns.class_list(a.classes) == det_columns.class_list(b.classes)
        and np.array_equal(a.counts, b.counts)
        and a.coords.shape == b.coords.shape
        and np.array_equal(a.coords, b.coords, equal_nan=True)
    )


@settings(max_examples=400, deadline=None)
@given(st.lists(IMAGE, min_size=1, max_size=5))
def test_fast_walk_equals_the_checked_path_or_steps_aside(images):
    fast = det_columns._pack_plain(images)
    if fast is None:
        return  # the checked path decides (and names what is wrong)
    checked = det_columns._pack_checked(images, "predictions", 0)  # must accept what the fast walk accepted
    assert _same(fast, checked)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.dictionaries(CLASS, st.lists(st.lists(PLAIN, min_size=4, max_size=4), max_size=3), max_size=4),
        min_size=1,
        max_size=6,
    )
)
def test_plain_batches_take_the_fast_walk(images):
    if any("classes" in im or not "".join(im).isprintable() or "\ud800" in "".join(im) for im in images):
        return
    fast = det_columns._pack_plain(images)
    assert fast is not None
    assert _same(fast, det_columns._pack_checked(images, "predictions", 0))


def test_fast_walk_across_chunks(monkeypatch):
    true_annot, predictions = oracle.generate(700, seed=3)
    preds, _, _ = det_columns.from_fusion_brain(true_annot, predictions)
    whole = det_columns._pack_plain(preds)
    assert whole is not None and _same(whole, det_columns._pack_checked(preds, "predictions", 0))
    monkeypatch.setattr(det_columns, "PLAIN_CHUNK", 7)
    assert _same(det_columns._pack_plain(preds), whole)
    bad = [dict(p) for p in preds]
    bad[650]["x"] = [[True, 0, 1, 1]]  # a bool in a late chunk: the checked path names it
    assert det_columns._pack_plain(bad) is None
    with pytest.raises(
        TypeError, match=r"`predictions\[650\]` class 'x', box 0: coordinates must be numbers"
    ):
        det_columns.pack(bad, "predictions")


def test_arrow_columns_read_back_unchanged():
    import pyarrow as pa

    true_annot, predictions = oracle.generate(300, seed=4)
    preds, refs, _ = det_columns.from_fusion_brain(true_annot, predictions)
    for side in (preds, refs, [{}] + refs[:3] + [{"cat": []}]):
        cols = det_columns.pack(side, "predictions")
        array = det_columns.to_arrow(cols)
        assert array.to_pylist() == det_columns.normalize_batch(side, "predictions")
        assert _same(det_columns.from_arrow(pa.chunked_array([array[:7], array[7:]])), cols)
        assert _same(
            det_columns.from_arrow(array[5:]), det_columns.pack(side[5:], "predictions")
        )  # slices honoured


def _shuffled(images, rng, extra=False, records=False):
    out = []
    for im in images:
        classes = list(im)
        rng.shuffle(classes)
        boxes = [im[c] for c in classes]
        if extra:
            classes.append("not requested")
            boxes.append([[1, 2, 3, 4]])
        out.append({"classes": classes, "boxes": boxes} if records else dict(zip(classes, boxes)))
    return out


@pytest.mark.parametrize("extra, records", [(False, False), (True, False), (True, True)])
@pytest.mark.parametrize("matching", ["any", "one_to_one"])
def test_classes_in_another_order_or_extra_give_the_same_counts(extra, records, matching):
    true_annot, predictions = oracle.generate(400, seed=5)
    preds, refs, _ = det_columns.from_fusion_brain(true_annot, predictions)
    expected = det_core.count_per_image(preds, refs, matching=matching)
    if matching == "any":
        assert tuple(expected.sum(axis=0)) == oracle.reference_counts(true_annot, predictions)
    moved = _shuffled(preds, random.Random(6), extra, records)
    assert np.array_equal(det_core.count_per_image(moved, refs, matching=matching), expected)
    metric = load_metric("det_f1", "one_to_one" if matching == "one_to_one" else None)
    r = metric.compute(predictions=moved, references=refs)
    assert (r["tp"], r["fp"], r["fn"]) == tuple(float(x) for x in expected.sum(axis=0))


def test_missing_class_named_in_image_order_on_every_path():
    refs = [{"cat": [[0, 0, 1, 1]]}, {"cat": [], "dog": [], "owl": []}, {"bat": [], "owl": []}]
    preds = [{"cat": []}, {"owl": [], "cat": []}, {"owl": []}]
    for p in (preds, _shuffled(preds, random.Random(0), records=True)):
        with pytest.raises(ValueError, match=r"`predictions\[1\]` has no entry for requested class 'dog'"):
            det_core.det_f1(p, refs)
        with pytest.raises(ValueError, match=r"`predictions\[1\]` has no entry for requested class 'dog'"):
            load_metric("det_f1").compute(predictions=p, references=refs)
    r = det_core.det_f1(preds, refs, missing_class="empty")
    assert (r["tp"], r["fp"], r["fn"]) == (0.0, 0.0, 1.0)


@pytest.mark.parametrize("matching", ["any", "one_to_one"])
def test_groups_counted_in_blocks_give_the_same_counts(monkeypatch, matching):
    true_annot, predictions = oracle.generate(300, seed=7, dense=True)
    preds, refs, _ = det_columns.from_fusion_brain(true_annot, predictions)
    whole = det_core.count_per_image(preds, refs, matching=matching)
    for block, chunk in ((1, det_matching.PAIR_CHUNK), (7, 5), (100, 1)):
        monkeypatch.setattr(det_core, "GROUP_BLOCK", block)
        monkeypatch.setattr(det_matching, "PAIR_CHUNK", chunk)
        assert np.array_equal(det_core.count_per_image(preds, refs, matching=matching), whole)
    monkeypatch.undo()


def test_first_bad_box_named_like_a_single_pass(monkeypatch):
    """Bad boxes in several blocks: references are named before predictions, then unrequested
    classes, whatever block they are in."""
    monkeypatch.setattr(det_core, "GROUP_BLOCK", 2)
    refs = [{"cat": [[0, 0, 1, 1]]} for _ in range(6)]
    preds = [{"cat": [[0, 0, 1, 1]]} for _ in range(6)]
    preds[1] = {"cat": [[0, 0, -1, 1]], "dog": [[0, 0, float("nan"), 1]]}
    refs[5] = {"cat": [[0, 0, float("inf"), 1]]}
    with pytest.raises(ValueError, match=r"`references\[5\]` class 'cat', box 0: NaN or infinite"):
        det_core.det_f1(preds, refs)
    refs[5] = {"cat": [[0, 0, 1, 1]]}
    with pytest.raises(ValueError, match=r"`predictions\[1\]` class 'cat', box 0: negative width"):
        det_core.det_f1(preds, refs)
    preds[1]["cat"] = [[0, 0, 1, 1]]
    with pytest.raises(ValueError, match=r"`predictions\[1\]` class 'dog', box 0: NaN or infinite"):
        det_core.det_f1(preds, refs)


SMALL_BOX = st.lists(st.integers(0, 20), min_size=4, max_size=4)


@st.composite
def _aligned_or_not(draw):
    """(predictions, references): random requested classes, predictions with classes missing, extra,
    in another order, or no class at all; class dicts or records."""
    names = ["cat", "dog", "owl", "bat"]
    refs, preds = [], []
    for _ in range(draw(st.integers(1, 6))):
        wanted = draw(st.lists(st.sampled_from(names), unique=True, max_size=4))
        refs.append({c: draw(st.lists(SMALL_BOX, max_size=3)) for c in wanted})
        given = draw(st.lists(st.sampled_from(names), unique=True, max_size=4))
        pred = {c: draw(st.lists(SMALL_BOX, max_size=3)) for c in given}
        if pred and draw(st.booleans()):
            pred = {"classes": list(pred), "boxes": list(pred.values())}
        preds.append(pred)
    return preds, refs


@settings(max_examples=150, deadline=None)
@given(_aligned_or_not(), st.sampled_from(["any", "one_to_one"]))
def test_alignment_against_the_per_image_rule(data, matching):
    preds, refs = data
    got = det_core.count_per_image(preds, refs, matching=matching, missing_class="empty")
    for i, (pred, ref) in enumerate(zip(preds, refs)):
        pred = det_columns.as_class_dict(pred)
        complete = {c: pred.get(c, []) for c in ref}  # a missing class: no box
        if matching == "any":
            expected = oracle.reference_counts({"im": ref}, {"im": complete})
        else:
            expected = tuple(det_core.count_per_image([complete], [ref], matching=matching)[0])
        assert tuple(got[i]) == expected
    if any(not set(r) <= set(det_columns.as_class_dict(p)) for p, r in zip(preds, refs)):
        with pytest.raises(ValueError, match=r"has no entry for requested class"):
            det_core.count_per_image(preds, refs, matching=matching)


# ----------------------------------------------------------------------------------------------
# The marshal walk of plain box lists (`_plain_boxes`): taken only when the stream's one decoding is
# plain box lists, with the exact numbers; anything else steps aside for the checked path.
# ----------------------------------------------------------------------------------------------
INT32 = (-(2**31), 2**31)


def _reference_boxes(lists):
    """What `_plain_boxes` must give for `lists`, by a Python walk: (counts, coords) or None."""
    if type(lists) is not list:
        return None
    counts, coords = [], []
    for boxes in lists:
        if type(boxes) is not list or not all(type(b) is list for b in boxes):
            return None
        if len(boxes) == 1 and not boxes[0]:  # [[]]: no box
            counts.append(0)
            continue
        for box in boxes:
            if len(box) != 4 or not all(
                type(v) is float or type(v) is int and INT32[0] <= v < INT32[1] for v in box
            ):
                return None
            coords.append([float(v) for v in box])
        counts.append(len(boxes))
    return np.array(counts, dtype=np.int64), np.array(coords, dtype=np.float64).reshape(-1, 4)


def _same_boxes(got, expected) -> bool:
    if got is None or expected is None:
        return got is None and expected is None
    return np.array_equal(got[0], expected[0]) and np.array_equal(
        got[1].view(np.int64),
        expected[1].view(np.int64),  # bit for bit (NaN payloads, -0.0)
    )


def _tricky_float(rng) -> float:
    """A float whose bytes hold marshal token bytes ('[', 'i', 'g', a count of 4), NaN payloads, -0.0..."""
    pieces = [b"[", b"i", b"g", b"\x04\x00\x00\x00", b"\x00", b"\x01", bytes([rng.randrange(256)])]
    raw = b"".join(rng.choice(pieces) for _ in range(8))[:8].ljust(8, b"[")
    return struct.unpack("<d", raw)[0]


def _tricky_int(rng) -> int:
    pieces = [b"[", b"i", b"g", b"\x04", b"\x00", b"\xff", bytes([rng.randrange(256)])]
    raw = b"".join(rng.choice(pieces) for _ in range(4))[:4].ljust(4, b"\x00")
    return int.from_bytes(raw, "little", signed=True)


def _random_box_lists(rng, n_lists=None):
    """Plain box lists: ints (some at the int32 edges), floats (some with token bytes), both mixed,
    [[]], [] and lists of 4 boxes (a list of 4 items, like a box)."""
    kind = rng.choice(["int", "float", "mixed"])

    def number():
        k = kind if kind != "mixed" else rng.choice(["int", "float"])
        if k == "int":
            return rng.choice(
                [rng.randint(-1000, 1000), _tricky_int(rng), INT32[0], INT32[1] - 1, 0x5B5B5B5B]
            )
        return rng.choice(
            [rng.uniform(-1e3, 1e3), _tricky_float(rng), -0.0, float("nan"), float("inf"), 1e308]
        )

    out = []
    for _ in range(rng.randint(0, 8) if n_lists is None else n_lists):
        shape = rng.random()
        if shape < 0.15:
            out.append([[]])
        elif shape < 0.25:
            out.append([])
        else:
            out.append([[number() for _ in range(4)] for _ in range(rng.choice([1, 2, 4, 4, 5]))])
    return out


@pytest.mark.parametrize("seed", range(3))
def test_plain_box_lists_read_exactly(seed):
    rng = random.Random(seed)
    for _ in range(300):
        lists = _random_box_lists(rng)
        expected = _reference_boxes(lists)
        assert expected is not None
        assert _same_boxes(det_stream.plain_boxes(lists), expected)


NOT_PLAIN = [
    [[1, 2, 3, 4]],  # a box instead of a list of boxes
    [[[[1, 2, 3, 4]]]],  # one level too deep
    [[[], [1, 2, 3, 4]]],  # an empty box next to another
    [[[], []]],
    [[[], [], [], []]],  # a list of 4 empty boxes (4 items, like a box)
    [[[1, 2, 3]]],
    [[[1, 2, 3, 4, 5]]],
    [[[1, 2, 3, [4]]]],
    [[[True, 2, 3, 4]]],
    [[[1, 2, 3, False]]],
    [[[None, 2, 3, 4]]],
    [[[2**31, 2, 3, 4]]],  # beyond int32: the checked path converts it
    [[[-(2**31) - 1, 2, 3, 4]]],
    [[[2**64, 2, 3, 4]]],
    [[[1j, 2, 3, 4]]],
    [[["1", 2, 3, 4]]],
    [[[b"[", 2, 3, 4]]],
    [[(1, 2, 3, 4)]],
    [([1, 2, 3, 4],)],
    [[{1, 2, 3, 4}]],
    [[frozenset({1, 2, 3, 4})]],
    [[{1: 2, 3: 4, 5: 6, 7: 8}]],
    [[[Int(1), 2, 3, 4]]],
    [[[Float(1.5), 2, 3, 4]]],
    [[[np.float64(1.5), 2, 3, 4]]],
    [[[np.int32(1), 2, 3, 4]]],
    [[[np.bool_(True), 2, 3, 4]]],
    [[np.zeros(4)]],
    [np.zeros((1, 4))],
    [[bytearray(b"[\x04\x00\x00\x00")]],
    [[range(4)]],
    [None],
    ["[\x04\x00\x00\x00"],
    [b"[\x04\x00\x00\x00i\x01\x00\x00\x00i\x02\x00\x00\x00i\x03\x00\x00\x00i\x04\x00\x00\x00"],
]


class Boxes(list):
    pass


@pytest.mark.parametrize("bad", NOT_PLAIN + [[Boxes([[1, 2, 3, 4]])], [[Boxes([1, 2, 3, 4])]]], ids=repr)
def test_not_plain_box_lists_step_aside(bad):
    assert _reference_boxes(bad) is None
    assert det_stream.plain_boxes(bad) is None
    for lists in (bad + [[[1, 2, 3, 4]]], [[[0.5, 2, 3, 4]], [[]]] + bad):  # with plain lists around
        assert det_stream.plain_boxes(lists) is None
    images = [{"cat": [[1, 2, 3, 4]]}, {"dog": bad[0], "cat": [[0.5, 1, 2, 3]]}]
    assert det_columns._pack_plain(images) is None


def test_self_referencing_box_list_steps_aside():
    loop = [[1, 2, 3, 4]]
    loop.append(loop)
    assert det_stream.plain_boxes([loop]) is None
    with pytest.raises((TypeError, ValueError)):
        det_columns.pack([{"cat": loop}], "predictions")


def _mutated(rng, stream: bytes) -> bytes:
    out = bytearray(stream)
    for _ in range(rng.randint(1, 3)):
        what, at = rng.random(), rng.randrange(len(out))
        if what < 0.5:
            out[at] = rng.choice([0x5B, 0x69, 0x67, 0x00, 0x01, 0x04, rng.randrange(256)])
        elif what < 0.7:
            del out[at : at + rng.choice([1, 4, 5, 9])]
        elif what < 0.9:
            out[at:at] = rng.choice(
                [
                    b"[\x00\x00\x00\x00",
                    b"[\x04\x00\x00\x00",
                    b"i\x01\x00\x00\x00",
                    b"g" + bytes(8),
                    b"[\x01\x00\x00\x00",
                ]
            )
        else:
            span = out[at : at + rng.choice([5, 9, 25, 41])]
            out[at:at] = span
        if not out:
            break
    return bytes(out)


@pytest.mark.parametrize("seed", range(4))
def test_mutated_streams_taken_only_when_they_decode_to_plain_boxes(seed):
    """Corrupted marshal streams (bytes changed, removed, inserted, repeated): whenever the parser
    takes one, marshal itself decodes it to plain box lists with exactly those numbers."""
    rng = random.Random(100 + seed)
    taken = 0
    for _ in range(1500):
        lists = _random_box_lists(rng, n_lists=rng.randint(1, 6))
        stream = marshal.dumps(lists, 2)
        assert _same_boxes(det_stream._stream_boxes(stream, len(lists)), _reference_boxes(lists))
        bad = _mutated(rng, stream)
        for n_lists in {len(lists), len(lists) - 1, len(lists) + 1}:
            got = det_stream._stream_boxes(bad, n_lists)
            if got is not None:
                taken += 1
                decoded = marshal.loads(bad)
                assert len(decoded) == n_lists and marshal.dumps(decoded, 2) == bad  # the whole stream
                assert _same_boxes(got, _reference_boxes(decoded))
    assert taken > 100  # mutations inside numbers (and others) still decode: the check is exercised


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(
            st.lists(
                st.one_of(PLAIN, st.sampled_from([2**31 - 1, -(2**31), -0.0, 1e308])), min_size=4, max_size=4
            ),
            max_size=4,
        )
        | st.just([[]]),
        max_size=6,
    )
)
def test_plain_box_lists_hypothesis(lists):
    assert _same_boxes(det_stream.plain_boxes(lists), _reference_boxes(lists))


EDGE = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    2.0**-600,
    -(2.0**-600),
    2.0**-500,
    2.0**-499,
    2.0**499,
    -(2.0**499),
    2.0**500,
    2.0**501,
    1e308,
    float("inf"),
    -float("inf"),
    float("nan"),
    5e-324,
]
COORD = st.one_of(st.sampled_from(EDGE), st.floats(-1e3, 1e3), st.integers(-1000, 1000).map(float))


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.lists(COORD, min_size=4, max_size=4), max_size=8),
    st.sampled_from(["xywh", "xyxy"]),
    st.integers(0, 8),
    st.integers(0, 8),
)
def test_ordinary_values_pass_every_block_check(rows, box_format, lo, hi):
    """`_ordinary_values` (one test of the whole array) only says True when every block would pass
    the value check and need no IoU scaling."""
    boxes = np.array(rows, dtype=np.float64).reshape(-1, 4)
    if det_boxes.ordinary_values(boxes, box_format):
        block = boxes[min(lo, hi) : max(lo, hi)]
        assert det_boxes.coordinates_ok(block, box_format)
        assert det_boxes.in_safe_range(np.concatenate(det_boxes.xyxy_columns(block, box_format)))


def test_usual_coordinates_are_ordinary():
    true_annot, predictions = oracle.generate(200, seed=8)
    for side in det_columns.from_fusion_brain(true_annot, predictions)[:2]:
        coords = det_columns.pack(side, "predictions").coords
        assert det_boxes.ordinary_values(coords, "xywh")
        assert det_boxes.ordinary_values(det_boxes.to_xyxy(coords), "xyxy")
        assert not det_boxes.ordinary_values(np.vstack([coords, [[0, 0, -1, 1]]]), "xywh")
        assert not det_boxes.ordinary_values(np.vstack([coords, [[2.0**-600, 0, 1, 1]]]), "xyxy")


def test_blocks_cover_the_groups_in_order_and_share_negative_requests():
    """Groups without boxes cost one unit of a block's work (40,000 mostly empty groups fill a few blocks,
    not one per 2,048 groups); the blocks tile the groups in order, each holds at most its budget (or is
    one group), and two neighbours hold more than it (no needless block)."""
    rng = np.random.default_rng(0)
    n_gt = rng.choice([0, 0, 0, 0, 0, 1, 2], size=40_000)
    n_pred = rng.choice([0, 0, 0, 0, 1, 3], size=40_000)
    n_pred[123] = 50_000  # a group heavier than a block is a block of its own
    blocks = det_core._blocks(n_gt, n_pred)
    assert [lo for lo, _ in blocks] == [0] + [hi for _, hi in blocks[:-1]] and blocks[-1][1] == 40_000
    work = 1 + n_gt + n_pred
    budget = det_core.BLOCK_UNITS * det_core.GROUP_BLOCK
    assert all(hi - lo == 1 or work[lo:hi].sum() <= budget for lo, hi in blocks)
    assert all(work[a:c].sum() > budget for (a, _), (_, c) in zip(blocks, blocks[1:]))
    assert len(det_core._blocks(n_gt[:20_000], n_pred[:20_000] * 0)) <= 4
    assert det_core._blocks(n_gt[:0], n_pred[:0]) == []


def test_a_class_named_classes_in_a_larger_dict_takes_the_fast_walk():
    """Only a dict of 2 or 3 entries with a class "classes" may be a record or a packed dict: those take the
    checked path; a class dict of more classes with one named "classes" is plain, with the same columns."""
    images = [{"classes": [[0, 0, 1, 1]], "dog": [], "cat": [[1, 2, 3, 4]], "x": []}, {"a": []}]
    fast = det_columns._pack_plain(images)
    assert fast is not None and _same(fast, det_columns._pack_checked(images, "predictions", 0))
    assert det_columns._pack_plain([{"classes": ["cat"], "boxes": [[[0, 0, 1, 1]]]}]) is None
    assert det_columns._pack_plain([{"classes": ["cat"], "counts": [0], "coords": []}]) is None
