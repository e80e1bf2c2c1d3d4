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

IoUs are computed with numpy over all (prediction, ground truth) pairs of all groups, about a million
pairs at a time (bounded memory), with the same floating-point operations in the same order as the
script (so IoU = t ties decide alike). The cost is quadratic within a class of an image (every
prediction against every ground-truth box, as in the script): 10,000 boxes on each side is 1e8 pairs.
A ``[[]]`` box list means "no box" (the script does this for predictions; here for both sides).
"""

import itertools
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
    big = max(_magnitude(a), _magnitude(b))
    small = min(_smallest(a), _smallest(b))
    if big > _SAFE_HIGH or small < _SAFE_LOW:
        _, exponent = np.frexp(np.maximum(np.abs(a).max(axis=-1), np.abs(b).max(axis=-1)))
        shift = -exponent[..., None]
        a, b = np.ldexp(a, shift), np.ldexp(b, shift)  # x * 2**shift, no intermediate overflow
    wx = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0])
    wy = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1])
    inter = np.maximum(wx, 0.0) * np.maximum(wy, 0.0)
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    union = area_a + area_b - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


_SAFE_HIGH, _SAFE_LOW = 2.0**500, 2.0**-500


def _magnitude(x: np.ndarray) -> float:
    return float(np.abs(x).max()) if x.size else 0.0


def _smallest(x: np.ndarray) -> float:
    """Smallest nonzero magnitude (inf when there is none)."""
    nonzero = np.abs(x[x != 0]) if x.size else x
    return float(nonzero.min()) if nonzero.size else float("inf")


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


def _plain_class_dicts(examples) -> tuple:
    """(classes per image, box lists per image) when every image is a plain ``dict`` of string classes
    to ``list`` box lists and none could be a record (no class named "classes"): a few C-level
    passes over the whole batch instead of :func:`_parts` per image. (None, None) otherwise: the
    per-image path then checks, converts and names what is wrong."""
    examples = examples if type(examples) is list else list(examples)
    if not examples or not set(map(type, examples)) <= {dict}:
        return None, None
    chain = itertools.chain.from_iterable
    all_classes = list(chain(examples))
    if "classes" in all_classes or not set(map(type, all_classes)) <= {str}:
        return None, None
    try:  # a lone surrogate in a class name: the per-image path names it
        "".join(all_classes).encode("utf-8")
    except UnicodeEncodeError:
        return None, None
    lists_of = list(map(list, map(dict.values, examples)))
    if not set(map(type, chain(lists_of))) <= {list}:
        return None, None
    return list(map(list, examples)), lists_of


def normalize_batch(examples, arg: str, start: int = 0) -> list[dict]:
    """Every image of a batch in the packed form ``{"classes": [str], "counts": [int], "coords": [float]}``.

    ``counts[k]`` is the number of boxes of ``classes[k]``; ``coords`` holds their 4 numbers each,
    class after class (flat: Arrow stores and reads flat lists far faster than nested ones).
    Accepts records or class dicts ``{class: boxes}``; box lists may be lists, numpy arrays or torch
    tensors; ``[[]]`` is ``[]``. Structure and number types are checked (one vectorised check for
    the whole batch); errors name ``arg``, the image index (``start`` + position) and the class.
    Coordinate values (NaN, negative sizes) are checked when scoring (they depend on ``box_format``).
    """
    classes_of, lists_of = _plain_class_dicts(examples)
    if classes_of is None:
        classes_of, lists_of = [], []
        for i, example in enumerate(examples):
            classes, lists = _parts(example, arg, start + i)
            if not set(map(type, lists)) <= {list}:  # numpy arrays, torch tensors, tuples
                where = f"`{arg}[{start + i}]` class"
                lists = [
                    b if type(b) is list else box_array(b, f"{where} {c!r}").tolist() for c, b in zip(classes, lists)
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
    coords = []
    if flat:
        chain = itertools.chain.from_iterable
        try:
            # fast path: plain Python boxes of 4 ints/floats, one C pass each
            plain = set(map(len, flat)) == {4} and set(map(type, chain(flat))) <= {float, int}
        except TypeError:  # a box without len() or not iterable: the checked path names it
            plain = False
        if plain:
            try:
                coords = np.fromiter(chain(flat), dtype=np.float64, count=4 * len(flat)).tolist()
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
            coords = arr.astype(np.float64, copy=False).ravel().tolist()
    boxes_before = list(itertools.accumulate(counts, initial=0))  # boxes before each group
    out, group = [], 0
    for classes in classes_of:
        end = group + len(classes)
        out.append(
            {
                "classes": classes,
                "counts": counts[group:end],
                "coords": coords[4 * boxes_before[group] : 4 * boxes_before[end]],
            }
        )
        group = end
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
# Flattening and checks
# ----------------------------------------------------------------------------------------------
def _flatten(predictions, references, missing_class: str):
    """Every (image, requested class) group and its boxes as flat arrays.

    Returns (group_image, n_gt, n_pred, gt_boxes, pred_boxes, group_class) where boxes are (N, 4)
    float64 in the input format, stored group after group, and group_class the class names.
    Images may be packed (what the evaluate module stores), records or class dicts.
    """
    if missing_class not in MISSING_CLASS:
        raise ValueError(f"`missing_class` must be one of {list(MISSING_CLASS)}, got {missing_class!r}")
    if is_arrow(predictions) and is_arrow(references):
        flat = _flatten_arrow(predictions, references)
        if flat is not None:
            return flat
        predictions, references = predictions.to_pylist(), references.to_pylist()
    if all(is_packed(x) for x in predictions) and all(is_packed(x) for x in references):
        return _flatten_packed(predictions, references, missing_class)
    predictions = [unpack(x) if is_packed(x) else x for x in predictions]
    references = [unpack(x) if is_packed(x) else x for x in references]
    g_img, g_cls, ref_all, pred_all = [], [], [], []
    for i, (pred, ref) in enumerate(zip(predictions, references)):
        ref_is_record = is_record(ref)
        if ref_is_record:
            classes, ref_lists = list(ref["classes"]), ref["boxes"]
        else:
            classes, ref_lists = list(ref), list(ref.values())
        complete = True
        if is_record(pred):
            if pred["classes"] == classes:  # the usual case of records: same classes, same order
                pred_lists = pred["boxes"]
            else:
                pred_map = dict(zip(pred["classes"], pred["boxes"]))
                pred_lists = [pred_map.get(c) for c in classes]
                complete = False
        elif not ref_is_record and type(pred) is dict and pred.keys() >= ref.keys():
            pred_lists = [pred[c] for c in classes]  # the usual case of class dicts
        else:
            pred_lists = [pred.get(c) for c in classes]
            complete = False
        if not complete and any(b is None for b in pred_lists):
            pred_lists = [_missing(i, c, missing_class) if b is None else b for c, b in zip(classes, pred_lists)]
        g_cls += classes
        g_img += [i] * len(classes)
        ref_all += ref_lists
        pred_all += pred_lists
    boxes = []
    for arg, lists in (("references", ref_all), ("predictions", pred_all)):
        boxes.append(_boxes_of_lists(lists, arg, g_img, g_cls))
    (n_gt, gt), (n_pred, pr) = boxes
    return np.asarray(g_img, dtype=np.int64), n_gt, n_pred, gt, pr, g_cls


def _missing(index: int, cls: str, missing_class: str) -> list:
    if missing_class == "error":
        raise ValueError(
            f"`predictions[{index}]` has no entry for requested class {cls!r} (a class of `references[{index}]`); "
            "give [] for no box, or pass missing_class='empty'"
        )
    return []


def _flatten_packed(predictions, references, missing_class: str):
    g_img, g_cls, n_gt, n_pred, gt_coords, pred_coords = [], [], [], [], [], []
    for i, (pred, ref) in enumerate(zip(predictions, references)):
        classes = ref["classes"]
        g_cls += classes
        g_img += [i] * len(classes)
        n_gt += ref["counts"]
        gt_coords += ref["coords"]
        if pred["classes"] == classes:
            n_pred += pred["counts"]
            pred_coords += pred["coords"]
            continue
        where, pos = {}, 0
        for c, n in zip(pred["classes"], pred["counts"]):
            where[c] = (pos, n)
            pos += 4 * n
        for c in classes:
            if c in where:
                pos, n = where[c]
                n_pred.append(n)
                pred_coords += pred["coords"][pos : pos + 4 * n]
            else:
                _missing(i, c, missing_class)
                n_pred.append(0)
    gt = np.asarray(gt_coords, dtype=np.float64).reshape(-1, 4)
    pr = np.asarray(pred_coords, dtype=np.float64).reshape(-1, 4)
    return (
        np.asarray(g_img, dtype=np.int64),
        np.asarray(n_gt, dtype=np.int64),
        np.asarray(n_pred, dtype=np.int64),
        gt,
        pr,
        g_cls,
    )


def is_arrow(column) -> bool:
    """True for a pyarrow (Chunked)Array: the packed column as the evaluate module reads it."""
    return hasattr(column, "to_pylist") and hasattr(column, "type") and not isinstance(column, np.ndarray)


def _packed_fields(column):
    """(class offsets per image, flat classes, counts, (N, 4) coords) of a pyarrow packed column,
    read as numpy without making a Python object per box."""
    if hasattr(column, "combine_chunks"):
        column = column.combine_chunks()
    fields = dict(zip((f.name for f in column.type), column.flatten()))  # flatten() honours slicing
    classes = fields["classes"]
    offsets = np.asarray(classes.offsets, dtype=np.int64)
    counts = fields["counts"].flatten().to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    coords = fields["coords"].flatten().to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
    return offsets - offsets[0], classes.flatten(), counts, coords.reshape(-1, 4)


def _flatten_arrow(predictions, references):
    """:func:`_flatten_packed` straight from the Arrow columns, when every image's predicted classes
    are its requested classes in the same order (the usual case); None otherwise (the caller then
    takes the per-image path, which also handles missing classes)."""
    ref_off, ref_cls, n_gt, gt = _packed_fields(references)
    pred_off, pred_cls, n_pred, pr = _packed_fields(predictions)
    if not (np.array_equal(ref_off, pred_off) and ref_cls.equals(pred_cls)):
        return None
    g_img = np.repeat(np.arange(len(ref_off) - 1, dtype=np.int64), np.diff(ref_off))
    return g_img, n_gt, n_pred, gt, pr, ref_cls.to_pylist()


def _boxes_of_lists(lists: list, arg, g_img, g_cls):
    """(counts, (N, 4) float64 boxes) of one box list per group (fast path: one fromiter)."""
    try:
        counts = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        for g in np.flatnonzero(counts == 1).tolist():
            if len(lists[g][0]) == 0:  # the script's [[]] = no box
                lists[g] = []
                counts[g] = 0
        chain = itertools.chain.from_iterable
        if set(map(len, chain(lists))) <= {4}:
            n = int(counts.sum())
            coords = np.fromiter(chain(chain(lists)), dtype=np.float64, count=4 * n)
            return counts, coords.reshape(n, 4)
    except (TypeError, ValueError):
        pass
    # slow path: a malformed box to name
    counts, flat = [], []
    for g, b in enumerate(lists):
        arr = box_array(b, f"`{arg}[{g_img[g]}]` class {g_cls[g]!r}")
        counts.append(len(arr))
        flat.append(arr)
    return np.asarray(counts, dtype=np.int64), np.concatenate(flat) if flat else np.zeros((0, 4))


def _check_values(boxes, arg, counts, g_img, g_cls, box_format) -> None:
    """NaN/inf coordinates or negative sizes -> ValueError naming the image, class and box."""
    if not len(boxes):
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
    j = k - int(np.concatenate(([0], np.cumsum(counts)))[g])
    reason = "NaN or infinite coordinate" if not finite[k] else what
    raise ValueError(f"`{arg}[{g_img[g]}]` class {g_cls[g]!r}, box {j}: {reason}, got {boxes[k].tolist()!r}")


def _check_unrequested(predictions, references, box_format: str) -> None:
    """Boxes of predicted classes the reference does not request are not scored (as in the script),
    but a NaN/inf coordinate or a negative size there is still an error, as anywhere else."""
    if is_arrow(predictions) or is_arrow(references):  # the columns as the evaluate module reads them
        if is_arrow(predictions) and is_arrow(references):
            ref_off, ref_cls = _packed_fields(references)[:2]
            pred_off, pred_cls = _packed_fields(predictions)[:2]
            if np.array_equal(ref_off, pred_off) and ref_cls.equals(pred_cls):
                return  # every predicted class is requested
        predictions = predictions.to_pylist() if is_arrow(predictions) else predictions
        references = references.to_pylist() if is_arrow(references) else references
    g_img, g_cls, counts, arrays = [], [], [], []
    for i, (pred, ref) in enumerate(zip(predictions, references)):
        if is_packed(pred) and is_packed(ref):
            if pred["classes"] == ref["classes"]:
                continue
            requested, pos = set(ref["classes"]), 0
            for c, n in zip(pred["classes"], pred["counts"]):
                if c not in requested:
                    g_img.append(i)
                    g_cls.append(c)
                    counts.append(n)
                    arrays.append(np.asarray(pred["coords"][pos : pos + 4 * n], dtype=np.float64).reshape(-1, 4))
                pos += 4 * n
            continue
        requested = set(as_class_dict(ref))
        for c, boxes in as_class_dict(pred).items():
            if c not in requested:
                arr = box_array(boxes, f"`predictions[{i}]` class {c!r}")
                g_img.append(i)
                g_cls.append(c)
                counts.append(len(arr))
                arrays.append(arr)
    if arrays:
        _check_values(np.concatenate(arrays), "predictions", np.asarray(counts), g_img, g_cls, box_format)


# ----------------------------------------------------------------------------------------------
# Counting
# ----------------------------------------------------------------------------------------------
PAIR_CHUNK = 1 << 20  # (prediction, ground truth) pairs whose IoUs are held in memory at once


def _pairs(n_gt: np.ndarray, n_pred: np.ndarray, lo: int = 0, hi: int | None = None):
    """Index arrays (pred_idx, gt_idx) of the (prediction, ground truth) pairs number ``lo`` to
    ``hi - 1`` of all groups, numbered like ``itertools.product(pred, true)`` group after group."""
    n_pairs = n_gt * n_pred
    ends = np.cumsum(n_pairs)
    total = int(ends[-1]) if len(ends) else 0
    hi = total if hi is None else min(hi, total)
    if hi <= lo:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    pred_start = np.concatenate(([0], np.cumsum(n_pred)[:-1]))
    gt_start = np.concatenate(([0], np.cumsum(n_gt)[:-1]))
    pair_start = ends - n_pairs
    index = np.arange(lo, hi, dtype=np.int64)
    group = np.searchsorted(ends, index, side="right")
    local = index - pair_start[group]  # position inside the group's product
    m = n_gt[group]
    return pred_start[group] + local // m, gt_start[group] + local % m


def _hit_pairs(pr, gt, n_gt, n_pred, iou_threshold, iou_boundary):
    """(pred_idx, gt_idx, iou) of the pairs that pass the threshold, computed ``PAIR_CHUNK`` pairs at
    a time: memory stays bounded when one image has 10,000 boxes on each side (1e8 pairs)."""
    total = int((n_gt * n_pred).sum())
    parts = []
    for lo in range(0, max(total, 1), PAIR_CHUNK):
        pred_idx, gt_idx = _pairs(n_gt, n_pred, lo, lo + PAIR_CHUNK)
        iou = paired_iou(pr[pred_idx], gt[gt_idx])
        hit = passes(iou, iou_threshold, iou_boundary)
        parts.append((pred_idx[hit], gt_idx[hit], iou[hit]))
    return tuple(np.concatenate(x) for x in zip(*parts))


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
    :func:`normalize_batch`; the requested classes of image i are the classes of ``references[i]``.
    Structure is assumed valid (the evaluate module checks it in ``add_batch``); coordinate values
    are checked here: NaN/inf or negative sizes raise ValueError naming the image, class and box.
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
    g_img, n_gt, n_pred, gt_raw, pr_raw, g_cls = _flatten(predictions, references, missing_class)
    _check_values(gt_raw, "references", n_gt, g_img, g_cls, box_format)
    _check_values(pr_raw, "predictions", n_pred, g_img, g_cls, box_format)
    _check_unrequested(predictions, references, box_format)
    gt, pr = to_xyxy(gt_raw, box_format), to_xyxy(pr_raw, box_format)

    n_groups = len(n_gt)
    pred_group = np.repeat(np.arange(n_groups), n_pred)
    hit_pred, hit_gt, hit_iou = _hit_pairs(pr, gt, n_gt, n_pred, iou_threshold, iou_boundary)
    positive = n_gt > 0
    if matching == "any":
        hit = np.bincount(hit_pred, minlength=len(pr)) > 0
        # itertools.groupby on the predicted box value: a box equal to the previous one of the same
        # group joins its run and is not counted again
        keep = np.ones(len(pr), dtype=bool)
        if len(pr) > 1:
            same = (pred_group[1:] == pred_group[:-1]) & (pr_raw[1:] == pr_raw[:-1]).all(axis=1)
            keep[1:] = ~same
        scored = positive[pred_group]
        tp = np.bincount(pred_group, weights=(keep & hit & scored), minlength=n_groups).astype(np.int64)
        fp_scored = np.bincount(pred_group, weights=(keep & ~hit & scored), minlength=n_groups).astype(np.int64)
        fp = np.where(positive, fp_scored, n_pred)
        fn = np.where(positive, np.maximum(n_gt - n_pred, 0), 0)
    else:
        matched_pred, _ = _greedy_one_to_one(hit_pred, hit_gt, hit_iou, len(pr), len(gt))
        tp = np.bincount(pred_group, weights=matched_pred, minlength=n_groups).astype(np.int64)
        fp = n_pred - tp
        fn = n_gt - tp
    return g_img, tp, fp, fn


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
