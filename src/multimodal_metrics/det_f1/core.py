"""Pure functions behind the det_f1 metric (no evaluate, no state): usable on their own.

Zero-shot object detection F1 at a fixed IoU threshold, the scoring rule of the AIJ 2021 Fusion
Brain Challenge, sub-task zsOD (official script ``ai-forever/fusion_brain_aij2021:
evaluation/zsOD_F1/evaluate.py``; seed 002, seeds_reference.md section 2.3).

Data: per image, the *requested* classes (a free-text query each) with their ground-truth boxes; a
requested class with no ground-truth box is a negative request. The predictions give boxes per
class. Counting happens per (image, requested class) group, micro-summed over all groups:

    precision = TP / (TP + FP)      (0 when TP + FP = 0)
    recall    = TP / (TP + FN)      (0 when TP + FN = 0)
    F1        = 2 P R / (P + R)     (0 when P = R = 0)

    IoU(a, b) = inter / (area_a + area_b - inter)   on [x1, y1, x2, y2] boxes; 0/0 -> 0
    xywh -> xyxy: [x, y, x + w, y + h]  (no +1: continuous coordinates)

``matching="any"`` (the official script, default):

* no ground truth, k predictions -> FP += k (every box, duplicates included);
* ground truth g > 0, no prediction -> FN += g;
* both non-empty -> FN += max(0, g - k) (k = number of predicted boxes, duplicates included);
  then each predicted box is a TP when its IoU with *any* ground-truth box of the group passes the
  threshold, else an FP. Ground-truth boxes are reusable (no one-to-one matching: three
  predictions on one of three objects give TP = 3, FN = 0). Identical *consecutive* predicted
  boxes count once (the script groups the (pred, gt) pairs with ``itertools.groupby`` keyed on the
  predicted box value); non-consecutive duplicates count separately.

``matching="one_to_one"`` (the usual detection convention, PASCAL VOC / COCO style without
scores): inside each group, greedy matching by decreasing IoU (ties: earlier prediction, then
earlier ground-truth box), each box matched at most once, only pairs that pass the threshold;
matched predictions are TP, unmatched predictions FP, unmatched ground-truth boxes FN.

The threshold test is ``iou >= t`` with ``iou_boundary="inclusive"`` (the script: it counts a
box as FP only when IoU < 0.5 for all ground-truth boxes, so IoU = 0.5 exactly is a TP) or
``iou > t`` with ``"strict"`` (the seed text: "IoU > 0.5").

Inputs are turned into flat columns (:class:`Columns`: class offsets per image, box counts per
group, an (N, 4) float64 array of all boxes), which is also what the evaluate module stores in Arrow.
IoUs are computed with numpy over the (prediction, ground truth) pairs of ``GROUP_BLOCK`` groups at a
time, at most about ``PAIR_CHUNK`` pairs at once (bounded memory), with the same floating-point
operations in the same order as the script (so IoU = t ties decide alike). The cost is quadratic within a class of an image (every
prediction against every ground-truth box, as in the script): 10,000 boxes on each side is 1e8 pairs.
A ``[[]]`` box list means "no box" (the script does this for predictions; here for both sides).
"""

import collections
import itertools
import marshal
from collections.abc import Mapping, Sequence

import numpy as np

MATCHINGS = ("any", "one_to_one")
BOUNDARIES = ("inclusive", "strict")
BOX_FORMATS = ("xywh", "xyxy")
MISSING_CLASS = ("error", "empty")


# ----------------------------------------------------------------------------------------------
# Boxes and IoU
# ----------------------------------------------------------------------------------------------
def to_xyxy(boxes, box_format: str = "xywh") -> np.ndarray:
    """(N, 4) float64 boxes as [x1, y1, x2, y2]; ``xywh`` -> [x, y, x + w, y + h]."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    if box_format == "xyxy":
        return boxes
    if box_format == "xywh":
        out = boxes.copy()
        out[:, 2:] = boxes[:, :2] + boxes[:, 2:]
        return out
    raise ValueError(f"`box_format` must be one of {list(BOX_FORMATS)}, got {box_format!r}")


def paired_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of xyxy boxes ``a[..., :]`` vs ``b[..., :]`` (aligned rows, or any broadcastable shapes).

    Same operations, in the same order, as the official script: inter = clip(min x2 - max x1) *
    clip(min y2 - max y1), union = (area_a + area_b - inter), IoU = inter / union, 0 where union = 0.

    Coordinates beyond 2**500 in magnitude (or nonzero below 2**-500) would overflow (underflow) the
    areas: two identical [0, 0, 1e154, 1e154] boxes would get IoU inf/inf. Then every pair is first
    scaled by a power of two (exact in floating point) that brings its largest coordinate near 1;
    IoU is scale-invariant, so the result equals the exact IoU rounded once, and inputs in the usual
    range take the unscaled path bit for bit.
    """
    if not (_in_safe_range(a) and _in_safe_range(b)):
        _, exponent = np.frexp(np.maximum(np.abs(a).max(axis=-1), np.abs(b).max(axis=-1)))
        shift = -exponent[..., None]
        a, b = np.ldexp(a, shift), np.ldexp(b, shift)  # x * 2**shift, no intermediate overflow
    a, b = _columns(a), _columns(b)
    return _iou(a, b, _area(a), _area(b))


def _columns(x: np.ndarray) -> tuple:
    """The 4 coordinates of xyxy boxes ``x[..., 4]`` as 4 arrays."""
    return x[..., 0], x[..., 1], x[..., 2], x[..., 3]


def _area(c: tuple) -> np.ndarray:
    return (c[2] - c[0]) * (c[3] - c[1])


def _iou(a: tuple, b: tuple, area_a: np.ndarray, area_b: np.ndarray) -> np.ndarray:
    """IoU of aligned xyxy boxes given as coordinate columns (:func:`_columns`) and their areas
    (:func:`paired_iou` without the scaling)."""
    wx = np.minimum(a[2], b[2]) - np.maximum(a[0], b[0])
    wy = np.minimum(a[3], b[3]) - np.maximum(a[1], b[1])
    inter = np.maximum(wx, 0.0) * np.maximum(wy, 0.0)
    union = area_a + area_b - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


_SAFE_HIGH, _SAFE_LOW = 2.0**500, 2.0**-500


def _in_safe_range(x: np.ndarray) -> bool:
    """True when no coordinate is beyond 2**500 in magnitude nor nonzero below 2**-500 (areas and
    their sums then neither overflow nor underflow)."""
    if not x.size:
        return True
    magnitude = np.abs(x)
    return bool(magnitude.max() <= _SAFE_HIGH) and not magnitude[magnitude < _SAFE_LOW].any()


def pairwise_iou(a, b, box_format: str = "xyxy") -> np.ndarray:
    """(N, M) IoU matrix between two box sets, by broadcasting (0 where the union is 0)."""
    a = to_xyxy(a, box_format)
    b = to_xyxy(b, box_format)
    return paired_iou(a[:, None, :], b[None, :, :])


def passes(iou: np.ndarray, iou_threshold: float = 0.5, iou_boundary: str = "inclusive") -> np.ndarray:
    """Boolean mask of the IoUs that count as a hit."""
    if iou_boundary == "inclusive":
        return iou >= iou_threshold
    if iou_boundary == "strict":
        return iou > iou_threshold
    raise ValueError(f"`iou_boundary` must be one of {list(BOUNDARIES)}, got {iou_boundary!r}")


# ----------------------------------------------------------------------------------------------
# Inputs
# ----------------------------------------------------------------------------------------------
def is_record(example) -> bool:
    """True for the record form ``{"classes": [str, ...], "boxes": [...]}`` (else a class dict)."""
    return (
        (type(example) is dict or isinstance(example, Mapping))
        and len(example) == 2
        and "classes" in example
        and "boxes" in example
        and isinstance(example["classes"], Sequence | np.ndarray)
        and not isinstance(example["classes"], str)
        and all(isinstance(c, str) for c in example["classes"])
    )


def is_packed(example) -> bool:
    """True for the packed (stored) form ``{"classes": [str], "counts": [int], "coords": [float]}``."""
    return isinstance(example, Mapping) and len(example) == 3 and example.keys() == {"classes", "counts", "coords"}


def box_array(boxes, where: str) -> np.ndarray:
    """One class's box list (list of 4-number lists, numpy array, torch tensor) as (N, 4) float64.

    ``[]``, ``[[]]`` and arrays of size 0 give (0, 4). Raises TypeError/ValueError naming ``where``.
    """
    if boxes is None:
        raise TypeError(f"{where}: box list is None; expected a list of [4 numbers] boxes (or [])")
    if isinstance(boxes, str | bytes | Mapping):
        raise TypeError(f"{where}: expected a list of boxes, got {type(boxes).__name__}")
    if hasattr(boxes, "detach"):  # torch tensor
        boxes = boxes.detach().cpu().numpy()
    if isinstance(boxes, np.ndarray):
        if boxes.size == 0:
            return np.zeros((0, 4), dtype=np.float64)
        if boxes.ndim != 2 or boxes.shape[1] != 4:
            raise ValueError(f"{where}: boxes must have shape (N, 4), got array of shape {boxes.shape}")
        if boxes.dtype.kind not in "iuf":
            raise TypeError(f"{where}: box coordinates must be numbers, got dtype {boxes.dtype}")
        return boxes.astype(np.float64)
    if not isinstance(boxes, Sequence):
        raise TypeError(f"{where}: expected a list of boxes, got {type(boxes).__name__}")
    if _is_no_box(boxes):
        return np.zeros((0, 4), dtype=np.float64)
    for j, box in enumerate(boxes):
        if hasattr(box, "tolist"):
            box = box.tolist()
        if isinstance(box, str | bytes) or not isinstance(box, Sequence):
            raise TypeError(f"{where}, box {j}: expected 4 numbers, got {type(box).__name__} ({box!r})")
        if len(box) != 4:
            raise ValueError(f"{where}, box {j}: a box has 4 numbers, got {len(box)} ({list(box)!r})")
        for v in box:
            if isinstance(v, bool | np.bool_) or not isinstance(v, int | float | np.number):
                raise TypeError(f"{where}, box {j}: coordinates must be numbers, got {type(v).__name__} ({v!r})")
            if isinstance(v, int) and not -_MAX_INT_COORD <= v <= _MAX_INT_COORD:
                raise ValueError(f"{where}, box {j}: a coordinate (an integer of {v.bit_length()} bits) is beyond the float64 range")
    return np.asarray([list(b) for b in boxes], dtype=np.float64).reshape(-1, 4)


_MAX_INT_COORD = int(np.finfo(np.float64).max)


def _is_no_box(boxes) -> bool:
    """``[[]]``: the script's spelling of "no box" (treated as ``[]``)."""
    if len(boxes) != 1 or not hasattr(boxes[0], "__len__") or isinstance(boxes[0], str | bytes | Mapping):
        return False
    try:
        return len(boxes[0]) == 0
    except TypeError:  # a 0-d numpy array has __len__ but no length
        return False


def _parts(example, arg: str, index: int) -> tuple[list, list]:
    """(classes, box lists) of one image given as a record or as a class dict, structurally checked."""
    where0 = f"`{arg}[{index}]`"
    if example is None:
        raise TypeError(f"{where0} is None: expected {{class: [[x, y, w, h], ...]}} or {{'classes': [...], 'boxes': [...]}}")
    if not isinstance(example, Mapping):
        raise TypeError(
            f"{where0} must be a dict {{class: boxes}} or {{'classes': [...], 'boxes': [...]}}, got {type(example).__name__}"
        )
    if is_record(example):
        classes, lists = list(example["classes"]), example["boxes"]
        if not classes and hasattr(lists, "__len__") and not isinstance(lists, str | bytes) and len(lists) == 0:
            raise ValueError(
                f"{where0} is ambiguous: a record with no class, or a class dict whose classes 'classes' and "
                "'boxes' have no box; give a record with at least one class, or add another class"
            )
        if lists is None or isinstance(lists, str | bytes | Mapping) or not hasattr(lists, "__len__"):
            raise TypeError(f"{where0}['boxes'] must be a list with one box list per class")
        if len(lists) != len(classes):
            raise ValueError(
                f"{where0}: 'classes' has {len(classes)} entries but 'boxes' has {len(lists)}: one box list per class"
            )
        lists = list(lists)
        if len(set(classes)) != len(classes):
            dup = next(c for c in classes if classes.count(c) > 1)
            raise ValueError(f"{where0}: class {dup!r} is listed twice")
    else:
        classes, lists = list(example.keys()), list(example.values())
    if not set(map(type, classes)) <= {str} or not "".join(classes).isascii():
        for c in classes:
            if not isinstance(c, str):
                raise TypeError(f"{where0}: class names must be strings, got {type(c).__name__} ({c!r})")
            try:
                c.encode("utf-8")
            except UnicodeEncodeError as err:
                raise ValueError(
                    f"{where0}: class name {c!r} is not valid Unicode text ({err.reason} at position {err.start})"
                ) from None
    return classes, lists


class Columns:
    """One side of a batch (predictions or references) as flat columns, what the module stores in Arrow.

    Image ``i`` owns the groups ``offsets[i]:offsets[i + 1]``; group ``g`` is the class ``classes[g]``
    with ``counts[g]`` boxes, whose ``[4 numbers]`` rows follow each other in ``coords`` group after
    group (in the input's box format). ``classes`` is a list of str, or a pyarrow string array when
    read back from Arrow. ``len()`` is the number of images.
    """

    __slots__ = ("offsets", "classes", "counts", "coords")

    def __init__(self, offsets, classes, counts, coords):
        self.offsets = offsets  # (n_images + 1,) int64, offsets[0] = 0
        self.classes = classes  # n_groups class names
        self.counts = counts  # (n_groups,) int64
        self.coords = coords  # (n_boxes, 4) float64

    def __len__(self) -> int:
        return len(self.offsets) - 1


def pack(examples, arg: str, start: int = 0) -> Columns:
    """Check a batch of images (class dicts or records) and convert it to :class:`Columns`.

    Box lists may be lists, tuples, numpy arrays or torch tensors; ``[[]]`` is ``[]``. Structure and
    number types are checked, errors name ``arg``, the image index (``start`` + position) and the
    class. Coordinate values (NaN, negative sizes) are checked when scoring (they depend on
    ``box_format``). Plain inputs (dicts of string classes to lists of ``[4 ints/floats]``) are read
    without a Python-level pass over their boxes (:func:`_pack_plain`); anything else takes the
    per-image path, which names what is wrong.
    """
    examples = examples if type(examples) is list else list(examples)
    columns = _pack_plain(examples)
    return columns if columns is not None else _pack_checked(examples, arg, start)


def _pack_plain(examples) -> Columns | None:
    """:func:`pack` of plain class dicts without a Python-level pass over boxes or numbers; None when
    any image is not plain (not a ``dict``, a class that is not a ``str`` or is named "classes" (a
    record?), a lone surrogate, a box list or box that is not a ``list``, a box without 4 numbers, a
    number that is not exactly ``int`` (of 32 bits) or ``float``, ...): the checked path then decides
    and names what is wrong.

    ``PLAIN_CHUNK`` images at a time: their class names and box lists are gathered in C-level passes,
    and the box lists are read by :func:`_plain_boxes` (one ``marshal.dumps``, parsed with numpy).
    """
    if not examples or not set(map(type, examples)) <= {dict}:
        return None
    classes, n_classes, counts, coords = [], [], [], []
    for lo in range(0, len(examples), PLAIN_CHUNK):
        part = examples[lo : lo + PLAIN_CHUNK]
        n_classes += map(len, part)
        names = _flat(part)
        if "classes" in names or not set(map(type, names)) <= {str}:
            return None
        try:
            "".join(names).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: the checked path names it
            return None
        boxes = _plain_boxes(_flat(map(dict.values, part)))
        if boxes is None:
            return None
        classes += names
        counts.append(boxes[0])
        coords.append(boxes[1])
    n_classes = np.array(n_classes, dtype=np.int64)
    return Columns(_offsets(n_classes), classes, np.concatenate(counts), np.concatenate(coords))


PLAIN_CHUNK = 512  # images per marshal stream (about 100 KB: the numpy temporaries of its parsing stay small)

# marshal format 2 tokens: '[' + int32 item count (a list), 'i' + int32, 'g' + float64, all little-endian
_LIST, _INT, _FLOAT = 0x5B, 0x69, 0x67


def _plain_boxes(lists: list) -> tuple | None:
    """(box count of each list, (N, 4) float64 coordinates) when every box list is a ``list`` of
    ``list`` boxes of 4 numbers that are exactly ``int`` (of 32 bits) or ``float``, or is ``[[]]``
    (no box: count 0); else None.

    ``marshal.dumps`` walks the lists in C and runs no code of the objects; it writes exact builtin
    types only (a bool, tuple, set, str, None or big int becomes another token; a subclass, a numpy
    number or array becomes bytes or a ValueError). The stream is parsed with numpy by
    :func:`_int_stream` (integer coordinates: every token is 5 bytes) or :func:`_token_stream`; both
    check every token and the item count of every list, so a stream is taken only when its one
    decoding is box lists as above, and the numbers are the exact values (int32 or float64 bits).
    """
    try:
        stream = marshal.dumps(lists, 2)
    except ValueError:  # an object marshal refuses (a subclass, a tensor, ...)
        return None
    return _stream_boxes(stream, len(lists))


def _stream_boxes(stream: bytes, n_lists: int) -> tuple | None:
    """:func:`_plain_boxes` of the marshal stream of ``n_lists`` box lists."""
    if n_lists >= 2**31 or stream[:5] != b"[" + n_lists.to_bytes(4, "little"):
        return None
    if not n_lists:
        return (np.zeros(0, dtype=np.int64), np.zeros((0, 4), dtype=np.float64)) if len(stream) == 5 else None
    parsed = _int_stream(stream, n_lists)
    return parsed if parsed is not None else _token_stream(stream, n_lists)


def _int_stream(stream: bytes, n_lists: int) -> tuple | None:
    """:func:`_plain_boxes` of a stream whose tokens are all 5 bytes ('[' + count, 'i' + int32): after
    the 5-byte header it is an array of tokens, read as strided views; None otherwise."""
    n_tokens, rest = divmod(len(stream) - 5, 5)
    if rest or not n_tokens:
        return None
    ops = np.ndarray((n_tokens,), np.uint8, stream, 5, (5,))
    payload = np.ndarray((n_tokens,), "<i4", stream, 6, (5,))
    is_list = ops == _LIST
    brackets = np.flatnonzero(is_list)
    if not len(brackets) or brackets[0] or len(brackets) + np.count_nonzero(ops == _INT) != n_tokens:
        return None
    items = payload[brackets]
    ints = np.diff(brackets, append=n_tokens) - 1  # the ints right after each '['
    is_box = ints == 4
    if not ((ints == 0) | is_box & (items == 4)).all():  # ints only as the 4 numbers of a box
        return None
    counts = _box_counts(is_box, items, n_lists)
    if counts is None:
        return None
    return counts, payload[~is_list].astype(np.float64).reshape(-1, 4)


def _token_stream(stream: bytes, n_lists: int) -> tuple | None:
    """:func:`_plain_boxes` of a stream with 'g' (float) numbers too. Every '[' byte followed by a
    possible item count and a token is a candidate token; a '[' 4 followed by 4 numbers is a box (read
    in 4 vectorised steps); the tokens must tile the stream exactly (each one ending where the next
    one starts), which makes them its decoding, else the '[' bytes inside a box's numbers are dropped
    and the rest must tile it. None otherwise."""
    size = len(stream)
    data = np.frombuffer(stream, dtype=np.uint8)
    int32_at = np.ndarray((size - 3,), "<i4", stream, 0, (1,))  # the int32 starting at each byte
    starts = np.flatnonzero(data[5 : size - 4] == _LIST) + 5
    items = int32_at[starts + 1]
    # a token has 0 to size / 5 items (5 bytes each at least) and is followed by a token or the end:
    # most '[' bytes inside numbers are not (dropping a token here only makes the stream untiled)
    after = data[np.minimum(starts + 5, size - 1)]
    plausible = (items.view(np.uint32) <= size // 5) & (
        (after == _LIST) | (after == _FLOAT) | (after == _INT) | (starts + 5 == size)
    )
    starts, items = starts[plausible], items[plausible]
    maybe = np.flatnonzero(items == 4)
    pos = starts[maybe] + 5
    ok, every_float = np.ones(len(maybe), dtype=bool), np.ones(len(maybe), dtype=bool)
    floats = np.empty((4, len(maybe)), dtype=bool)
    for k in range(4):
        op = data[np.minimum(pos, size - 1)]
        floats[k] = is_float = op == _FLOAT
        ok &= is_float | (op == _INT)
        every_float &= is_float
        pos += 5 + 4 * is_float
    ok &= pos <= size
    boxes = maybe[ok]
    is_box = np.zeros(len(starts), dtype=bool)
    is_box[boxes] = True
    ends = starts + 5
    ends[boxes] = pos[ok]
    kept = slice(None)
    if not _tiled(starts, ends, size):  # drop the '[' bytes inside the numbers of the box before them
        if not len(boxes):
            return None
        last = np.maximum(np.cumsum(is_box) - 1, 0)
        first = is_box.argmax()
        token = (starts < starts[first]) | (starts == starts[boxes][last]) | (starts >= ends[boxes][last])
        kept = token[boxes]
        starts, ends, is_box, items = starts[token], ends[token], is_box[token], items[token]
        if not _tiled(starts, ends, size):
            return None
    counts = _box_counts(is_box, items, n_lists)
    if counts is None:
        return None
    first_number = starts[is_box] + 6  # the payload of each box's first number
    float64_at = np.ndarray((size - 7,), "<f8", stream, 0, (1,))  # the float64 starting at each byte
    if every_float[ok].all():  # float coordinates: 'g' + 8 bytes each
        return counts, float64_at[first_number[:, None] + np.arange(0, 36, 9)]
    floats = floats[:, np.flatnonzero(ok)[kept]]
    numbers = np.empty((len(first_number), 4), dtype=np.int64)
    numbers[:, 0] = first_number
    for k in range(3):
        numbers[:, k + 1] = numbers[:, k] + 5 + 4 * floats[k]
    coords = int32_at[numbers].astype(np.float64)
    coords[floats.T] = float64_at[numbers[floats.T]]
    return counts, coords


def _tiled(starts: np.ndarray, ends: np.ndarray, size: int) -> bool:
    """True when the tokens ``[starts[k], ends[k])`` cover the stream after its 5-byte header exactly."""
    return bool(len(starts)) and starts[0] == 5 and ends[-1] == size and np.array_equal(ends[:-1], starts[1:])


def _box_counts(is_box: np.ndarray, items: np.ndarray, n_lists: int) -> np.ndarray | None:
    """The box count of each of ``n_lists`` box lists, from the '[' tokens of their stream in order
    (``is_box``: a box of 4 numbers; ``items``: each token's item count); None unless the tokens are
    exactly that: list, its boxes, next list... A box is a box of 4 or, as the only box of its list, an
    empty list (``[[]]``, counted as no box)."""
    plain = ~is_box
    after_one = np.zeros(len(items), dtype=bool)
    after_one[1:] = plain[:-1] & (items[:-1] == 1)
    empty = plain & (items == 0) & after_one  # '[' 0 right after a list of 1: the empty box of [[]]
    heads = np.flatnonzero(plain & ~empty)
    if len(heads) != n_lists or heads[0]:
        return None
    counts = items[heads].astype(np.int64)
    if not np.array_equal(np.diff(heads, append=len(items)) - 1, counts):  # each list followed by its boxes
        return None
    counts[empty[np.minimum(heads + 1, len(items) - 1)]] = 0
    return counts


def _flat(lists) -> list:
    """The items of an iterable of lists in one list (``list.extend`` per list: no iterator objects)."""
    out = []
    collections.deque(map(out.extend, lists), maxlen=0)
    return out


def _offsets(sizes: np.ndarray) -> np.ndarray:
    """[0, cumsum(sizes)...] as int64."""
    out = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=out[1:])
    return out


def _pack_checked(examples, arg: str, start: int) -> Columns:
    """:func:`pack`, image by image: every structure and type checked, errors name the first bad entry."""
    classes_of, lists_of = [], []
    for i, example in enumerate(examples):
        classes, lists = _parts(example, arg, start + i)
        if not set(map(type, lists)) <= {list}:  # numpy arrays, torch tensors, tuples
            where = f"`{arg}[{start + i}]` class"
            lists = [b if type(b) is list else box_array(b, f"{where} {c!r}").tolist() for c, b in zip(classes, lists)]
        classes_of.append(classes)
        lists_of.append(lists)
    all_lists = [b for lists in lists_of for b in lists]
    counts = list(map(len, all_lists))
    for g in [g for g, n in enumerate(counts) if n == 1]:
        first = all_lists[g][0]
        if isinstance(first, list | tuple) and len(first) == 0:  # the script's [[]] = no box
            all_lists[g] = []
            counts[g] = 0
    flat = [box for b in all_lists for box in b]
    coords = np.zeros((0, 4), dtype=np.float64)
    if flat:
        chain = itertools.chain.from_iterable
        try:
            # fast path: plain Python boxes of 4 ints/floats, one C pass each
            plain = set(map(len, flat)) == {4} and set(map(type, chain(flat))) <= {float, int}
        except TypeError:  # a box without len() or not iterable: the checked path names it
            plain = False
        if plain:
            try:
                coords = np.fromiter(chain(flat), dtype=np.float64, count=4 * len(flat))
            except OverflowError:  # an int beyond the float64 range: the checked path names it
                plain = False
        if not plain:
            try:
                arr = np.array(flat)
                ok = arr.ndim == 2 and arr.shape[1] == 4 and arr.dtype.kind in "iuf"
                # numpy turns a bool mixed with numbers into 1/0: refuse it like box_array does
                ok = ok and not ({bool, np.bool_} & set(map(type, chain(flat))))
            except (ValueError, TypeError):
                ok = False
            if not ok:  # name the first bad box; numbers numpy keeps as objects (2**64) are fine
                arrays = [
                    box_array(b, f"`{arg}[{start + i}]` class {c!r}")
                    for i, (classes, lists) in enumerate(zip(classes_of, lists_of))
                    for c, b in zip(classes, lists)
                ]
                arr = np.concatenate(arrays) if arrays else np.zeros((0, 4), dtype=np.float64)
            coords = arr.astype(np.float64, copy=False)
    n_classes = np.fromiter(map(len, classes_of), dtype=np.int64, count=len(classes_of))
    classes = [c for classes in classes_of for c in classes]
    return Columns(_offsets(n_classes), classes, np.asarray(counts, dtype=np.int64), coords.reshape(-1, 4))


def _pack_packed(examples) -> Columns:
    """:class:`Columns` of images already in the packed form (structure assumed valid)."""
    chain = itertools.chain.from_iterable
    n_classes = np.fromiter((len(x["classes"]) for x in examples), dtype=np.int64, count=len(examples))
    classes = list(chain(x["classes"] for x in examples))
    counts = np.fromiter(chain(x["counts"] for x in examples), dtype=np.int64, count=len(classes))
    coords = np.fromiter(chain(x["coords"] for x in examples), dtype=np.float64)
    return Columns(_offsets(n_classes), classes, counts, coords.reshape(-1, 4))


def normalize_batch(examples, arg: str, start: int = 0) -> list[dict]:
    """Every image of a batch in the packed form ``{"classes": [str], "counts": [int], "coords": [float]}``
    (checked like :func:`pack`): ``counts[k]`` boxes of ``classes[k]``, their 4 numbers each in ``coords``."""
    return packed_dicts(pack(examples, arg, start))


def packed_dicts(columns: Columns) -> list[dict]:
    """:class:`Columns` as one packed dict per image."""
    classes = _pylist(columns.classes)
    counts = columns.counts.tolist()
    box_offsets = _offsets(columns.counts).tolist()
    coords = columns.coords.ravel().tolist()
    out, offsets = [], columns.offsets.tolist()
    for lo, hi in zip(offsets[:-1], offsets[1:]):
        out.append(
            {
                "classes": classes[lo:hi],
                "counts": counts[lo:hi],
                "coords": coords[4 * box_offsets[lo] : 4 * box_offsets[hi]],
            }
        )
    return out


def normalize_example(example, arg: str, index: int) -> dict:
    """One image in the packed form (see :func:`normalize_batch`)."""
    return normalize_batch([example], arg, start=index)[0]


def unpack(example) -> dict:
    """A packed image back to the class dict ``{class: [[4 floats], ...]}``."""
    out, pos = {}, 0
    coords = example["coords"]
    for c, n in zip(example["classes"], example["counts"]):
        out[c] = [list(coords[p : p + 4]) for p in range(pos, pos + 4 * n, 4)]
        pos += 4 * n
    return out


def as_class_dict(example) -> dict:
    """One image (class dict, record or packed form) as the class dict ``{class: boxes}``."""
    if is_packed(example):
        return unpack(example)
    if is_record(example):
        return dict(zip(example["classes"], example["boxes"]))
    return dict(example)


def from_fusion_brain(true_annot: Mapping, predictions: Mapping):
    """Fusion Brain 2021 JSON dicts ``{img: {class: [[x, y, w, h], ...]}}`` -> (predictions, references, images).

    Returns one class dict per image for each side, in the order of the ground-truth images, ready
    for :func:`det_f1` or the evaluate module. The script's assertions become ValueErrors: the two
    files must hold the same image keys, and every ground-truth class of an image must be present
    in its predictions. Prediction classes absent from the ground truth are ignored when scoring
    (as in the script).
    """
    for arg, value in (("true_annot", true_annot), ("predictions", predictions)):
        if not isinstance(value, Mapping):
            raise TypeError(f"`{arg}` must be a dict {{image: {{class: boxes}}}}, got {type(value).__name__}")
    if true_annot.keys() != predictions.keys():
        missing = [k for k in true_annot if k not in predictions]
        extra = [k for k in predictions if k not in true_annot]
        raise ValueError(
            "`predictions` and the ground truth must have the same images (not all images have predictions): "
            f"{len(missing)} missing from predictions {missing[:5]!r}, {len(extra)} not in the ground truth {extra[:5]!r}"
        )
    images = list(true_annot)
    refs = list(true_annot.values())
    preds = [predictions[k] for k in images]
    for i, (img, gt, pr) in enumerate(zip(images, refs, preds)):
        if not (isinstance(gt, Mapping) and isinstance(pr, Mapping)):
            arg, value = ("true_annot", gt) if not isinstance(gt, Mapping) else ("predictions", pr)
            raise TypeError(f"`{arg}[{img!r}]` must be a dict {{class: boxes}}, got {type(value).__name__}")
        if not gt.keys() <= pr.keys():
            absent = next(c for c in gt if c not in pr)
            raise ValueError(
                f"`predictions[{img!r}]` (image {i}) has no entry for requested class {absent!r}: "
                "every ground-truth class must be present in the predictions (use [] for no box)"
            )
    return preds, refs, images


# ----------------------------------------------------------------------------------------------
# Arrow (what the evaluate module stores)
# ----------------------------------------------------------------------------------------------
def is_arrow(column) -> bool:
    """True for a pyarrow (Chunked)Array: the packed column as the evaluate module reads it."""
    return hasattr(column, "to_pylist") and hasattr(column, "type") and not isinstance(column, np.ndarray)


def to_arrow(columns: Columns):
    """:class:`Columns` as a pyarrow struct array ``{classes: list<string>, counts: list<int64>,
    coords: list<double>}``, one row per image, built from the numpy columns (no Python object per
    box or coordinate)."""
    import pyarrow as pa

    box_offsets = _offsets(columns.counts)[columns.offsets]
    if max(box_offsets[-1] * 4, columns.offsets[-1]) > np.iinfo(np.int32).max:  # Arrow list offsets are int32
        raise ValueError(f"at most {np.iinfo(np.int32).max // 4:,} boxes and {np.iinfo(np.int32).max:,} classes in all")
    offsets = pa.array(columns.offsets.astype(np.int32))
    classes = columns.classes if is_arrow(columns.classes) else pa.array(columns.classes, type=pa.string())
    fields = [
        pa.ListArray.from_arrays(offsets, classes),
        pa.ListArray.from_arrays(offsets, pa.array(columns.counts, type=pa.int64())),
        pa.ListArray.from_arrays(pa.array((4 * box_offsets).astype(np.int32)), pa.array(columns.coords.ravel())),
    ]
    return pa.StructArray.from_arrays(fields, names=["classes", "counts", "coords"])


def from_arrow(column) -> Columns:
    """:class:`Columns` of a pyarrow packed column (as written by :func:`to_arrow`), read as numpy
    without making a Python object per box; ``classes`` stays a pyarrow string array."""
    if hasattr(column, "combine_chunks"):
        column = column.combine_chunks()
    fields = dict(zip((f.name for f in column.type), column.flatten()))  # flatten() honours slicing
    classes = fields["classes"]
    offsets = np.asarray(classes.offsets, dtype=np.int64)
    counts = fields["counts"].flatten().to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    coords = fields["coords"].flatten().to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
    return Columns(offsets - offsets[0], classes.flatten(), counts, coords.reshape(-1, 4))


def columns_of(images, arg: str) -> Columns:
    """One side of the input as :class:`Columns`: Columns as they are, Arrow columns read as numpy,
    packed dicts (of :func:`normalize_batch`) taken as they are, anything else checked by :func:`pack`."""
    if isinstance(images, Columns):
        return images
    if is_arrow(images):
        return from_arrow(images)
    images = images if type(images) is list else list(images)
    columns = _pack_plain(images)  # plain class dicts (a packed dict has a class "classes": not plain)
    if columns is not None:
        return columns
    if images and all(map(is_packed, images)):
        return _pack_packed(images)
    if any(map(is_packed, images)):
        return pack([unpack(x) if is_packed(x) else x for x in images], arg)
    return _pack_checked(images, arg, 0)


def _pylist(classes) -> list:
    return classes.to_pylist() if is_arrow(classes) else list(classes)


def _class_at(classes, g: int) -> str:
    return classes[g].as_py() if is_arrow(classes) else classes[g]


def _same_classes(a, b) -> bool:
    if type(a) is list and type(b) is list:
        return a == b
    if is_arrow(a) and is_arrow(b):
        return a.equals(b)
    return _pylist(a) == _pylist(b)


# ----------------------------------------------------------------------------------------------
# Groups and checks
# ----------------------------------------------------------------------------------------------
def _groups(pred: Columns, ref: Columns, missing_class: str):
    """Every (image, requested class) group with its boxes on both sides.

    Returns (group_image, n_gt, n_pred, gt_boxes, pred_boxes, unrequested): boxes (N, 4) in the
    input format group after group; ``unrequested`` is None, or (image, class, counts, boxes) of the
    predicted classes that no reference requests (not scored, only checked).
    When every image predicts exactly its requested classes in the same order (the usual case),
    the columns are used as they are; otherwise predicted groups are looked up by (image, class).
    """
    if missing_class not in MISSING_CLASS:
        raise ValueError(f"`missing_class` must be one of {list(MISSING_CLASS)}, got {missing_class!r}")
    n_images = len(ref)
    g_img = np.repeat(np.arange(n_images, dtype=np.int64), np.diff(ref.offsets))
    if np.array_equal(pred.offsets, ref.offsets) and _same_classes(pred.classes, ref.classes):
        return g_img, ref.counts, pred.counts, ref.coords, pred.coords, None
    ref_cls, pred_cls = _pylist(ref.classes), _pylist(pred.classes)
    p_img = np.repeat(np.arange(len(pred), dtype=np.int64), np.diff(pred.offsets))
    where = dict(zip(zip(p_img.tolist(), pred_cls), range(len(pred_cls))))
    keys = zip(g_img.tolist(), ref_cls)
    idx = np.fromiter(map(where.get, keys, itertools.repeat(-1)), dtype=np.int64, count=len(ref_cls))
    found = idx >= 0
    if not found.all() and missing_class == "error":
        g = int(np.argmin(found))
        _missing(int(g_img[g]), ref_cls[g], missing_class)
    pred_start = _offsets(pred.counts)[:-1]
    n_pred = np.zeros(len(ref_cls), dtype=np.int64)
    n_pred[found] = pred.counts[idx[found]]
    pr = pred.coords[_ranges(pred_start[idx[found]], n_pred[found])]
    unused = np.ones(len(pred_cls), dtype=bool)
    unused[idx[found]] = False
    unrequested = None
    if unused.any():
        u = np.flatnonzero(unused)
        boxes = pred.coords[_ranges(pred_start[u], pred.counts[u])]
        unrequested = (p_img[u], [pred_cls[k] for k in u.tolist()], pred.counts[u], boxes)
    return g_img, ref.counts, n_pred, ref.coords, pr, unrequested


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + n)`` for every (s, n), vectorised."""
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(starts - _offsets(lengths)[:-1], lengths) + np.arange(total, dtype=np.int64)


def _missing(index: int, cls: str, missing_class: str) -> list:
    if missing_class == "error":
        raise ValueError(
            f"`predictions[{index}]` has no entry for requested class {cls!r} (a class of `references[{index}]`); "
            "give [] for no box, or pass missing_class='empty'"
        )
    return []


def _values_ok(boxes: np.ndarray, box_format: str) -> bool:
    """True when every coordinate is finite and every box has a nonnegative size (whole-array tests)."""
    if not len(boxes):
        return True
    with np.errstate(over="ignore", invalid="ignore"):
        if box_format == "xywh":
            ends_ok = np.isfinite(boxes[:, :2] + boxes[:, 2:]).all() and (boxes[:, 2:] >= 0).all()
        else:
            ends_ok = (boxes[:, 2:] >= boxes[:, :2]).all()
        return bool(ends_ok and np.isfinite(boxes).all())


def _ordinary_values(boxes: np.ndarray, box_format: str) -> bool:
    """True when every block of ``boxes`` passes :func:`_values_ok` and :func:`_in_safe_range` (with
    the xyxy coordinates), tested on the whole array with small temporaries (booleans): finite
    coordinates of magnitude at most 2**499 (then x + w, y + h stay within 2**500), nonnegative sizes
    (xywh) or x2 >= x1 and y2 >= y1 (xyxy), and no xyxy coordinate nonzero below 2**-500 in magnitude.
    False says nothing: the blocks are then checked one by one."""
    if not len(boxes):
        return True
    low, high = boxes.min(), boxes.max()  # NaN: both NaN, the test below is False
    if not (-_ORDINARY <= low and high <= _ORDINARY):
        return False
    if box_format == "xyxy":
        return bool((boxes[:, 2] >= boxes[:, 0]).all() and (boxes[:, 3] >= boxes[:, 1]).all()) and _no_tiny(boxes)
    if boxes[:, 2:].min() < 0 or not _no_tiny(boxes):
        return False
    # x + w >= max(x, w) when both are >= 0: it can only be tiny in a row with a negative x or y
    rows = boxes[(boxes[:, 0] < 0) | (boxes[:, 1] < 0)] if low < 0 else boxes[:0]
    return _no_tiny(rows[:, :2] + rows[:, 2:])


def _no_tiny(x: np.ndarray) -> bool:
    """True when no value is nonzero below 2**-500 in magnitude."""
    near_zero = x > -_SAFE_LOW
    near_zero &= x < _SAFE_LOW
    return bool(np.count_nonzero(near_zero) == np.count_nonzero(x == 0))


_ORDINARY = 2.0**499


def _check_values(boxes, arg, counts, g_img, g_cls, box_format) -> None:
    """NaN/inf coordinates or negative sizes -> ValueError naming the image, class and box."""
    if _values_ok(boxes, box_format):
        return
    finite = np.isfinite(boxes).all(axis=1)
    if box_format == "xywh":
        with np.errstate(over="ignore", invalid="ignore"):
            size_ok = (boxes[:, 2] >= 0) & (boxes[:, 3] >= 0) & np.isfinite(boxes[:, :2] + boxes[:, 2:]).all(axis=1)
        what = "negative width/height or x + w, y + h beyond the float64 range (box_format 'xywh')"
    else:
        size_ok = (boxes[:, 2] >= boxes[:, 0]) & (boxes[:, 3] >= boxes[:, 1])
        what = "x2 < x1 or y2 < y1 (box_format 'xyxy' needs x2 >= x1 and y2 >= y1)"
    bad = ~(finite & size_ok)
    if not bad.any():
        return
    k = int(np.flatnonzero(bad)[0])
    owner = np.repeat(np.arange(len(counts)), counts)
    g = int(owner[k])
    j = k - int(_offsets(counts)[g])
    reason = "NaN or infinite coordinate" if not finite[k] else what
    cls = _class_at(g_cls, g)
    raise ValueError(f"`{arg}[{g_img[g]}]` class {cls!r}, box {j}: {reason}, got {boxes[k].tolist()!r}")

# ----------------------------------------------------------------------------------------------
# Counting
# ----------------------------------------------------------------------------------------------
PAIR_CHUNK = 1 << 20  # (prediction, ground truth) pairs whose IoUs are held in memory at once


def _hit_pairs(
    pr_raw, gt_raw, box_format, n_gt, n_pred, iou_threshold, iou_boundary, want_pairs=True, safe=None, pred_group=None
):
    """(pred_idx, gt_idx, iou) of the (prediction, ground truth) pairs of every group that pass the
    threshold (only pred_idx, the others empty, when ``want_pairs`` is False). ``safe``: True when
    the caller knows that no coordinate needs scaling (:func:`_ordinary_values`), None to test it;
    ``pred_group``: the group of each prediction, when the caller has it.

    Pairs are formed prediction by prediction (each against every ground-truth box of its group, in
    order, like ``itertools.product(pred, true)``), for about ``PAIR_CHUNK`` pairs at a time (at least
    one prediction): memory stays bounded when one image has 10,000 boxes on each side (1e8 pairs).
    The xyxy coordinates and areas are computed once per box, as contiguous columns, when no
    coordinate needs :func:`paired_iou`'s scaling (the same operations, so the same IoUs).
    """
    if pred_group is None:
        pred_group = np.repeat(np.arange(len(n_gt)), n_pred)
    per_pred = n_gt[pred_group]  # pairs of each prediction
    first_gt = _offsets(n_gt)[:-1][pred_group]  # first ground-truth box of each prediction's group
    pair_end = np.cumsum(per_pred)
    pr_cols, gt_cols = _xyxy_columns(pr_raw, box_format), _xyxy_columns(gt_raw, box_format)
    if safe is None:
        safe = _in_safe_range(np.concatenate(pr_cols + gt_cols))
    if safe:
        area_pr, area_gt = _area(pr_cols), _area(gt_cols)
    else:
        pr, gt = np.stack(pr_cols, axis=-1), np.stack(gt_cols, axis=-1)
    parts, lo = [], 0
    while lo < len(pr_raw):
        done = int(pair_end[lo - 1]) if lo else 0
        hi = max(lo + 1, int(np.searchsorted(pair_end, done + PAIR_CHUNK, side="right")))
        pred_idx = np.repeat(np.arange(lo, hi), per_pred[lo:hi])
        gt_idx = _ranges(first_gt[lo:hi], per_pred[lo:hi])
        if safe:
            a = tuple(np.take(c, pred_idx) for c in pr_cols)
            b = tuple(np.take(c, gt_idx) for c in gt_cols)
            iou = _iou(a, b, np.take(area_pr, pred_idx), np.take(area_gt, gt_idx))
        else:
            iou = paired_iou(np.take(pr, pred_idx, axis=0), np.take(gt, gt_idx, axis=0))
        hit = passes(iou, iou_threshold, iou_boundary)
        parts.append((pred_idx[hit], gt_idx[hit], iou[hit]) if want_pairs else (pred_idx[hit],))
        lo = hi
    empty = np.zeros(0, dtype=np.int64)
    if not parts:
        return empty, empty, np.zeros(0)
    found = [np.concatenate(x) for x in zip(*parts)]
    return tuple(found) if want_pairs else (found[0], empty, np.zeros(0))


def _xyxy_columns(boxes: np.ndarray, box_format: str) -> tuple:
    """(x1, y1, x2, y2) contiguous columns of (N, 4) boxes (the arithmetic of :func:`to_xyxy`)."""
    x, y, c, d = (np.ascontiguousarray(boxes[:, k]) for k in range(4))
    return (x, y, x + c, y + d) if box_format == "xywh" else (x, y, c, d)


def count_per_group(
    predictions,
    references,
    iou_threshold: float = 0.5,
    iou_boundary: str = "inclusive",
    matching: str = "any",
    box_format: str = "xywh",
    missing_class: str = "error",
):
    """TP, FP, FN of every (image, requested class) group.

    ``predictions`` / ``references``: one image each, as a class dict ``{class: [[4 numbers], ...]}``,
    a record ``{"classes": [str], "boxes": [[[4 numbers], ...], ...]}`` or the packed form of
    :func:`normalize_batch`; or a whole side as :class:`Columns` or its Arrow column (what the
    evaluate module stores). The requested classes of image i are the classes of ``references[i]``.
    Structure and types are checked by :func:`pack` (not for packed forms, Columns and Arrow: the
    module checked them in ``add_batch``); coordinate values are checked here: NaN/inf or negative
    sizes raise ValueError naming the image, class and box.
    Returns ``(group_image, tp, fp, fn)`` int64 arrays, one entry per group.
    """
    if matching not in MATCHINGS:
        raise ValueError(f"`matching` must be one of {list(MATCHINGS)}, got {matching!r}")
    if box_format not in BOX_FORMATS:
        raise ValueError(f"`box_format` must be one of {list(BOX_FORMATS)}, got {box_format!r}")
    if iou_boundary not in BOUNDARIES:
        raise ValueError(f"`iou_boundary` must be one of {list(BOUNDARIES)}, got {iou_boundary!r}")
    if len(predictions) != len(references):
        raise ValueError(f"`predictions` has {len(predictions)} examples but `references` has {len(references)}")
    if missing_class not in MISSING_CLASS:
        raise ValueError(f"`missing_class` must be one of {list(MISSING_CLASS)}, got {missing_class!r}")
    pred, ref = columns_of(predictions, "predictions"), columns_of(references, "references")
    g_img, n_gt, n_pred, gt_raw, pr_raw, unrequested = _groups(pred, ref, missing_class)
    options = (box_format, iou_threshold, iou_boundary, matching)
    tp, fp, fn = (np.zeros(len(n_gt), dtype=np.int64) for _ in range(3))
    gt_end, pred_end = _offsets(n_gt), _offsets(n_pred)
    # usual coordinates pass every check of every block at once (else: checked block by block)
    ordinary = _ordinary_values(gt_raw, box_format) and _ordinary_values(pr_raw, box_format)
    values_ok = True
    for lo in range(0, len(n_gt), GROUP_BLOCK):
        hi = min(lo + GROUP_BLOCK, len(n_gt))
        gt = gt_raw[gt_end[lo] : gt_end[hi]]
        pr = pr_raw[pred_end[lo] : pred_end[hi]]
        values_ok = ordinary or _values_ok(gt, box_format) and _values_ok(pr, box_format)
        if not values_ok:
            break
        block = _count_block(n_gt[lo:hi], n_pred[lo:hi], gt, pr, *options, safe=ordinary or None)
        tp[lo:hi], fp[lo:hi], fn[lo:hi] = block
    if not values_ok:  # name the first bad box: all references first, then all predictions
        _check_values(gt_raw, "references", n_gt, g_img, ref.classes, box_format)
        _check_values(pr_raw, "predictions", n_pred, g_img, ref.classes, box_format)
    if unrequested is not None:  # not scored (as in the script), but a bad box there is still an error
        u_img, u_cls, u_counts, u_boxes = unrequested
        _check_values(u_boxes, "predictions", u_counts, u_img, u_cls, box_format)
    return g_img, tp, fp, fn


# groups counted at a time: the temporaries stay small (in the CPU cache, and reused by the allocator
# instead of fresh pages for every large array)
GROUP_BLOCK = 2048


def _count_block(n_gt, n_pred, gt_raw, pr_raw, box_format, iou_threshold, iou_boundary, matching, safe=None):
    """(tp, fp, fn) of consecutive groups (see :func:`count_per_group`; ``safe``: as :func:`_hit_pairs`)."""
    n_groups, n_boxes = len(n_gt), len(pr_raw)
    pred_group = np.repeat(np.arange(n_groups), n_pred)
    hit_pred, hit_gt, hit_iou = _hit_pairs(
        pr_raw, gt_raw, box_format, n_gt, n_pred, iou_threshold, iou_boundary, matching != "any", safe, pred_group
    )
    positive = n_gt > 0
    if matching == "any":
        hit = np.bincount(hit_pred, minlength=n_boxes) > 0
        # itertools.groupby on the predicted box value: a box equal to the previous one of the same
        # group joins its run and is not counted again
        keep = np.ones(n_boxes, dtype=bool)
        if n_boxes > 1:
            same = (pred_group[1:] == pred_group[:-1]) & (pr_raw[1:] == pr_raw[:-1]).all(axis=1)
            keep[1:] = ~same
        scored = positive[pred_group]
        tp = np.bincount(pred_group, weights=(keep & hit & scored), minlength=n_groups).astype(np.int64)
        fp_scored = np.bincount(pred_group, weights=(keep & ~hit & scored), minlength=n_groups).astype(np.int64)
        fp = np.where(positive, fp_scored, n_pred)
        fn = np.where(positive, np.maximum(n_gt - n_pred, 0), 0)
    else:
        matched_pred, _ = _greedy_one_to_one(hit_pred, hit_gt, hit_iou, n_boxes, len(gt_raw))
        tp = np.bincount(pred_group, weights=matched_pred, minlength=n_groups).astype(np.int64)
        fp = n_pred - tp
        fn = n_gt - tp
    return tp, fp, fn


def _greedy_one_to_one(pred_idx, gt_idx, iou, n_pred: int, n_gt: int) -> tuple[np.ndarray, np.ndarray]:
    """Greedy matching over candidate pairs by decreasing IoU (ties: lower pred, then lower GT index).

    Candidates only pair boxes of the same group, so one global pass matches every group.
    Returns boolean masks of the matched predictions and of the matched ground-truth boxes.
    """
    matched_pred = np.zeros(n_pred, dtype=bool)
    used_gt = np.zeros(n_gt, dtype=bool)
    if not len(iou):
        return matched_pred, used_gt
    order = np.lexsort((gt_idx, pred_idx, -iou))
    p_sorted, g_sorted = pred_idx[order].tolist(), gt_idx[order].tolist()
    for p, g in zip(p_sorted, g_sorted):
        if not matched_pred[p] and not used_gt[g]:
            matched_pred[p] = True
            used_gt[g] = True
    return matched_pred, used_gt


def count_per_image(predictions, references, **options):
    """TP, FP, FN per image: (n_images, 3) int64 array (columns tp, fp, fn)."""
    g_img, tp, fp, fn = count_per_group(predictions, references, **options)
    n = len(references)
    return np.stack(
        [np.bincount(g_img, weights=x, minlength=n).astype(np.int64) for x in (tp, fp, fn)], axis=1
    ).reshape(n, 3)


def prf(tp, fp, fn) -> tuple[float, float, float]:
    """(precision, recall, f1) from counts, computed like the official script (0 for 0 denominators)."""
    tp, fp, fn = int(tp), int(fp), int(fn)
    recall = tp / (tp + fn) if (tp + fn) > 0 else 0.0
    precision = tp / (tp + fp) if (tp + fp) > 0 else 0.0
    f1 = 2 * precision * recall / (precision + recall) if (precision > 0 or recall > 0) else 0.0
    return float(precision), float(recall), float(f1)


def scores(tp, fp, fn) -> dict:
    """``{"f1", "precision", "recall", "tp", "fp", "fn"}`` as floats (f1 first)."""
    precision, recall, f1 = prf(tp, fp, fn)
    return {"f1": f1, "precision": precision, "recall": recall, "tp": float(tp), "fp": float(fp), "fn": float(fn)}


def det_f1(predictions, references, return_per_example: bool = False, **options):
    """Micro F1 over all (image, requested class) groups; options as :func:`count_per_group`.

    Returns the :func:`scores` dict, plus ``per_example`` (one scores dict per image) on request.
    """
    counts = count_per_image(predictions, references, **options)
    result = scores(*counts.sum(axis=0).tolist())
    if return_per_example:
        result["per_example"] = [scores(*row) for row in counts.tolist()]
    return result


def box_status(prediction, reference, **options) -> dict:
    """Per-box outcome for ONE image (for drawing): ``{class: {"pred": [...], "gt": [...]}}``.

    ``prediction`` / ``reference``: one image in any accepted form (class dict, record, packed).

    ``pred[j]`` is "tp", "fp" or "dup" (a consecutive duplicate the "any" rule does not count);
    ``gt[k]`` is "hit" (some prediction passes the IoU test with it; with one_to_one: it is matched)
    or "miss". Under "any" the number of "miss" boxes can differ from FN, which the script derives
    from box counts. Options as :func:`count_per_group` (``missing_class`` is not checked here).
    """
    matching = options.get("matching", "any")
    box_format = options.get("box_format", "xywh")
    thr, bound = options.get("iou_threshold", 0.5), options.get("iou_boundary", "inclusive")
    pred_map = as_class_dict(prediction)
    out = {}
    for c, gboxes in as_class_dict(reference).items():
        g_raw = box_array(gboxes, f"reference class {c!r}")
        p_raw = box_array(pred_map.get(c, []), f"prediction class {c!r}")
        hit = passes(pairwise_iou(p_raw, g_raw, box_format), thr, bound)  # (n_pred, n_gt)
        if matching == "one_to_one":
            iou = pairwise_iou(p_raw, g_raw, box_format)
            pi, gi = np.nonzero(hit)
            matched, used = _greedy_one_to_one(pi, gi, iou[pi, gi], len(p_raw), len(g_raw))
            pred = ["tp" if m else "fp" for m in matched.tolist()]
            gt = ["hit" if u else "miss" for u in used.tolist()]
        else:
            any_hit = hit.any(axis=1) if len(g_raw) else np.zeros(len(p_raw), dtype=bool)
            pred = []
            for j in range(len(p_raw)):
                if len(g_raw) and j > 0 and (p_raw[j] == p_raw[j - 1]).all():
                    pred.append("dup")
                else:
                    pred.append("tp" if any_hit[j] else "fp")
            gt = ["hit" if h else "miss" for h in (hit.any(axis=0).tolist() if len(p_raw) else [False] * len(g_raw))]
        out[c] = {"pred": pred, "gt": gt}
    return out
