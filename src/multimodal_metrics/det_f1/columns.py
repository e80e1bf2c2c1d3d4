"""The inputs of det_f1 as flat columns: checked structure, the plain / packed / Arrow readers.

One side of a batch (predictions or references) becomes :class:`Columns` (class offsets per image,
box counts per (image, class) group, an (N, 4) float64 array of all boxes): from class dicts or
records (:func:`pack`: structure and number types checked, errors name the argument, the image and
the class), from the packed form ``{"classes", "counts", "coords"}`` (:func:`normalize_batch`), or
from the Arrow column the evaluate module stores (:func:`to_arrow`, :func:`from_arrow`);
:func:`from_fusion_brain` reads the official JSON dicts. Coordinate values are checked when scoring
(:mod:`multimodal_metrics.det_f1.core`).
"""

import collections
import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from ..options import short_repr
from .stream import plain_boxes


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
    return (
        isinstance(example, Mapping)
        and len(example) == 3
        and example.keys() == {"classes", "counts", "coords"}
    )


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
        return _exact(boxes, boxes.astype(np.float64), where)
    if not isinstance(boxes, Sequence):
        raise TypeError(f"{where}: expected a list of boxes, got {type(boxes).__name__}")
    if _is_no_box(boxes):
        return np.zeros((0, 4), dtype=np.float64)
    for j, box in enumerate(boxes):
        if hasattr(box, "tolist"):
            box = box.tolist()
        if isinstance(box, str | bytes) or not isinstance(box, Sequence):
            raise TypeError(
                f"{where}, box {j}: expected 4 numbers, got {type(box).__name__} ({short_repr(box)})"
            )
        if len(box) != 4:
            raise ValueError(
                f"{where}, box {j}: a box has 4 numbers, got {len(box)} ({short_repr(list(box))})"
            )
        for v in box:
            if isinstance(v, bool | np.bool_) or not isinstance(v, int | float | np.number):
                raise TypeError(
                    f"{where}, box {j}: coordinates must be numbers, got {type(v).__name__} ({short_repr(v)})"
                )
            if isinstance(v, int) and not -_MAX_INT_COORD <= v <= _MAX_INT_COORD:
                raise ValueError(
                    f"{where}, box {j}: a coordinate (an integer of {v.bit_length()} bits) is beyond the float64 range"
                )
    rows = [list(b) for b in boxes]
    return _exact(rows, np.asarray(rows, dtype=np.float64).reshape(-1, 4), where)


_MAX_INT_COORD = int(np.finfo(np.float64).max)
_EXACT_INT = 2.0**53  # every integer up to this magnitude is exact in float64


def _first_inexact(values, coords: np.ndarray) -> int | None:
    """Flat index of the first integer coordinate of ``values`` (rows of 4: an integer array, an object
    array or lists of Python / numpy numbers) that ``coords`` (their float64 values) does not hold
    exactly: beyond 2**53, an integer is rounded to a multiple of its float64 spacing, and two
    different coordinates (x1 < x2) may become one (int64 / uint64 near their limits). None if all
    are exact. Only the coordinates beyond 2**53 in magnitude are looked at (usually none)."""
    flat = coords.reshape(-1)
    with np.errstate(invalid="ignore"):
        big = np.flatnonzero(np.abs(flat) > _EXACT_INT)
    if not len(big):
        return None
    if isinstance(values, np.ndarray):
        if values.dtype.kind == "f":
            return None
        values = values.reshape(-1)
    else:
        values = list(itertools.chain.from_iterable(values))
    for k in big.tolist():
        v = values[k]
        if isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_) and int(v) != int(flat[k]):
            return k
    return None


def _inexact_message(value, k: int) -> str:
    return (
        f"box {k // 4}: the integer coordinate {int(value)} is not exact in float64 (integers beyond 2**53 are "
        "rounded, so different coordinates may become one and a box of positive size get area 0); give "
        "coordinates within 2**53 or as floats"
    )


def _exact(values, coords: np.ndarray, where: str) -> np.ndarray:
    """``coords`` when every integer of ``values`` is exact in float64, else ValueError naming the box."""
    k = _first_inexact(values, coords)
    if k is not None:
        value = (
            values.reshape(-1)[k]
            if isinstance(values, np.ndarray)
            else list(itertools.chain.from_iterable(values))[k]
        )
        raise ValueError(f"{where}, {_inexact_message(value, k)}")
    return coords


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
        raise TypeError(
            f"{where0} is None: expected {{class: [[x, y, w, h], ...]}} or {{'classes': [...], 'boxes': [...]}}"
        )
    if not isinstance(example, Mapping):
        raise TypeError(
            f"{where0} must be a dict {{class: boxes}} or {{'classes': [...], 'boxes': [...]}}, got {type(example).__name__}"
        )
    if is_record(example):
        classes, lists = list(example["classes"]), example["boxes"]
        if (
            not classes
            and hasattr(lists, "__len__")
            and not isinstance(lists, str | bytes)
            and len(lists) == 0
        ):
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
                raise TypeError(
                    f"{where0}: class names must be strings, got {type(c).__name__} ({short_repr(c)})"
                )
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
    any image is not plain (not a ``dict``, a class that is not a ``str``, a dict of 2 or 3 entries with
    one named "classes" (a record or a packed dict?), a lone surrogate, a box list or box that is not a ``list``, a box without 4 numbers, a
    number that is not exactly ``int`` (of 32 bits) or ``float``, ...): the checked path then decides
    and names what is wrong.

    ``PLAIN_CHUNK`` images at a time: their class names and box lists are gathered in C-level passes,
    and the box lists are read by :func:`plain_boxes` (one ``marshal.dumps``, parsed with numpy).
    """
    if not examples or not set(map(type, examples)) <= {dict}:
        return None
    classes, n_classes, counts, coords = [], [], [], []
    for lo in range(0, len(examples), PLAIN_CHUNK):
        part = examples[lo : lo + PLAIN_CHUNK]
        sizes = np.fromiter(map(len, part), dtype=np.int64, count=len(part))
        # a record has 2 keys, a packed dict 3, both "classes" among them: such dicts take the checked path
        for i in np.flatnonzero((sizes == 2) | (sizes == 3)).tolist():
            if "classes" in part[i]:
                return None
        n_classes.append(sizes)
        names = _flat(part)
        try:  # str.join refuses anything but str (a str subclass is a class name too, as on the checked path)
            joined = "".join(names)
            if not joined.isascii():
                joined.encode("utf-8")
        except (TypeError, UnicodeEncodeError):  # not a string, a lone surrogate: the checked path names it
            return None
        boxes = plain_boxes(_flat(map(dict.values, part)))
        if boxes is None:
            return None
        classes += names
        counts.append(boxes[0])
        coords.append(boxes[1])
    return Columns(
        size_offsets(np.concatenate(n_classes)), classes, np.concatenate(counts), np.concatenate(coords)
    )


PLAIN_CHUNK = 512  # images per marshal stream (about 100 KB: the numpy temporaries of its parsing stay small)


def _flat(lists) -> list:
    """The items of an iterable of lists in one list (``list.extend`` per list: no iterator objects)."""
    out = []
    collections.deque(map(out.extend, lists), maxlen=0)
    return out


def size_offsets(sizes: np.ndarray) -> np.ndarray:
    """[0, cumsum(sizes)...] as int64."""
    out = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=out[1:])
    return out


def concat_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + n)`` for every (s, n), vectorised."""
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(starts - size_offsets(lengths)[:-1], lengths) + np.arange(total, dtype=np.int64)


def _pack_checked(examples, arg: str, start: int) -> Columns:
    """:func:`pack`, image by image: every structure and type checked, errors name the first bad entry."""
    classes_of, lists_of = [], []
    for i, example in enumerate(examples):
        classes, lists = _parts(example, arg, start + i)
        if not set(map(type, lists)) <= {list}:  # numpy arrays, torch tensors, tuples
            where = f"`{arg}[{start + i}]` class"
            lists = [
                b if type(b) is list else box_array(b, f"{where} {c!r}").tolist()
                for c, b in zip(classes, lists)
            ]
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
            # fast path: plain Python boxes (lists or tuples: a set or a dict has no order) of 4
            # ints/floats, one C pass each
            plain = (
                set(map(type, flat)) <= {list, tuple}
                and set(map(len, flat)) == {4}
                and set(map(type, chain(flat))) <= {float, int}
            )
        except TypeError:  # a box without len() or not iterable: the checked path names it
            plain = False
        if plain:
            try:
                coords = np.fromiter(chain(flat), dtype=np.float64, count=4 * len(flat))
            except OverflowError:  # an int beyond the float64 range: the checked path names it
                plain = False
            else:  # an int that float64 rounds: the checked path names it
                plain = _first_inexact(flat, coords) is None
        if not plain:
            try:
                arr = np.array(flat)
                ok = arr.ndim == 2 and arr.shape[1] == 4 and arr.dtype.kind in "iuf"
                # numpy turns a bool mixed with numbers into 1/0: refuse it like box_array does
                ok = ok and not ({bool, np.bool_} & set(map(type, chain(flat))))
                ok = ok and _first_inexact(flat, arr.astype(np.float64)) is None  # box_array names it
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
    return Columns(
        size_offsets(n_classes), classes, np.asarray(counts, dtype=np.int64), coords.reshape(-1, 4)
    )


def _pack_packed(examples) -> Columns:
    """:class:`Columns` of images already in the packed form (structure assumed valid)."""
    chain = itertools.chain.from_iterable
    n_classes = np.fromiter((len(x["classes"]) for x in examples), dtype=np.int64, count=len(examples))
    classes = list(chain(x["classes"] for x in examples))
    counts = np.fromiter(chain(x["counts"] for x in examples), dtype=np.int64, count=len(classes))
    coords = np.fromiter(chain(x["coords"] for x in examples), dtype=np.float64)
    return Columns(size_offsets(n_classes), classes, counts, coords.reshape(-1, 4))


def normalize_batch(examples, arg: str, start: int = 0) -> list[dict]:
    """Every image of a batch in the packed form ``{"classes": [str], "counts": [int], "coords": [float]}``
    (checked like :func:`pack`): ``counts[k]`` boxes of ``classes[k]``, their 4 numbers each in ``coords``."""
    return packed_dicts(pack(examples, arg, start))


def packed_dicts(columns: Columns) -> list[dict]:
    """:class:`Columns` as one packed dict per image."""
    classes = class_list(columns.classes)
    counts = columns.counts.tolist()
    box_offsets = size_offsets(columns.counts).tolist()
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

    box_offsets = size_offsets(columns.counts)[columns.offsets]
    if max(box_offsets[-1] * 4, columns.offsets[-1]) > np.iinfo(np.int32).max:  # Arrow list offsets are int32
        raise ValueError(
            f"at most {np.iinfo(np.int32).max // 4:,} boxes and {np.iinfo(np.int32).max:,} classes in all"
        )
    offsets = pa.array(columns.offsets.astype(np.int32))
    classes = columns.classes if is_arrow(columns.classes) else pa.array(columns.classes, type=pa.string())
    fields = [
        pa.ListArray.from_arrays(offsets, classes),
        pa.ListArray.from_arrays(offsets, pa.array(columns.counts, type=pa.int64())),
        pa.ListArray.from_arrays(
            pa.array((4 * box_offsets).astype(np.int32)), pa.array(columns.coords.ravel())
        ),
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


def class_list(classes) -> list:
    return classes.to_pylist() if is_arrow(classes) else list(classes)


def class_at(classes, g: int) -> str:
    return classes[g].as_py() if is_arrow(classes) else classes[g]


def same_classes(a, b) -> bool:
    if type(a) is list and type(b) is list:
        return a == b
    if is_arrow(a) and is_arrow(b):
        return a.equals(b)
    return class_list(a) == class_list(b)


def image_digests(predictions: Columns, references: Columns) -> np.ndarray:
    """What each image of a batch is, for a scoring state: one 128-bit digest per image of its packed
    predictions and references (each side's class names and box counts as JSON, then its boxes' float64
    coordinates; the JSON fixes how many coordinate bytes follow, so the bytes of two images are equal
    exactly when their boxes are)."""
    import json

    from ..digests import row_digests

    sides = []
    for side in (predictions, references):
        classes, counts = class_list(side.classes), side.counts.tolist()
        box_start = np.concatenate([[0], np.cumsum(side.counts, dtype=np.int64)]).tolist()
        coords = np.ascontiguousarray(side.coords, dtype="<f8")
        offsets = side.offsets.tolist()
        parts = []
        for g0, g1 in zip(offsets[:-1], offsets[1:]):
            head = json.dumps([classes[g0:g1], counts[g0:g1]], ensure_ascii=False, separators=(",", ":"))
            parts.append(
                head.encode("utf-8", "surrogatepass") + coords[box_start[g0] : box_start[g1]].tobytes()
            )
        sides.append(parts)
    return row_digests([p + r for p, r in zip(*sides)])
