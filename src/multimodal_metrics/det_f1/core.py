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
IoUs are computed with numpy over the (prediction, ground truth) pairs of a block of groups at a
time (:func:`_blocks`), at most about ``PAIR_CHUNK`` pairs at once (bounded memory), with the same
floating-point operations in the same order as the script (so IoU = t ties decide alike). The cost is quadratic within a class of an image (every
prediction against every ground-truth box, as in the script): 10,000 boxes on each side is 1e8 pairs.
A ``[[]]`` box list means "no box" (the script does this for predictions; here for both sides).

This module is the formula: :func:`count_per_group` aligns the predicted and the requested classes,
checks the coordinates and counts a block of groups at a time with the rules of :mod:`.matching`;
:func:`count_per_image`, :func:`prf`, :func:`scores` and :func:`det_f1` give the micro scores. The other
parts, by concern:

* :mod:`.boxes`: the options' choices, boxes and IoU, the whole-array coordinate tests;
* :mod:`.stream`: the marshal reader of plain box lists (the fast path of :func:`.columns.pack`);
* :mod:`.columns`: :class:`.columns.Columns`, the checked readers (``pack``, packed dicts, Arrow,
  ``from_fusion_brain``);
* :mod:`.matching`: the rules inside a group (the official "any" rule, greedy one-to-one), per-box status.

The tunables live where they are read: ``columns.PLAIN_CHUNK``, ``matching.PAIR_CHUNK``, ``GROUP_BLOCK``
here.
"""

import itertools

import numpy as np

from .boxes import (
    BOUNDARIES,
    BOX_FORMATS,
    MATCHINGS,
    MISSING_CLASS,
    coordinates_ok,
    ordinary_values,
    size_lost,
)
from .columns import (
    Columns,
    class_at,
    class_list,
    columns_of,
    concat_ranges,
    from_fusion_brain,  # noqa: F401 (mm-score's file formats read it here)
    same_classes,
    size_offsets,
)
from .matching import count_block


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
    if np.array_equal(pred.offsets, ref.offsets) and same_classes(pred.classes, ref.classes):
        return g_img, ref.counts, pred.counts, ref.coords, pred.coords, None
    ref_cls, pred_cls = class_list(ref.classes), class_list(pred.classes)
    p_img = np.repeat(np.arange(len(pred), dtype=np.int64), np.diff(pred.offsets))
    where = dict(zip(zip(p_img.tolist(), pred_cls), range(len(pred_cls))))
    keys = zip(g_img.tolist(), ref_cls)
    idx = np.fromiter(map(where.get, keys, itertools.repeat(-1)), dtype=np.int64, count=len(ref_cls))
    found = idx >= 0
    if not found.all() and missing_class == "error":
        g = int(np.argmin(found))
        _missing(int(g_img[g]), ref_cls[g], missing_class)
    pred_start = size_offsets(pred.counts)[:-1]
    n_pred = np.zeros(len(ref_cls), dtype=np.int64)
    n_pred[found] = pred.counts[idx[found]]
    pr = pred.coords[concat_ranges(pred_start[idx[found]], n_pred[found])]
    unused = np.ones(len(pred_cls), dtype=bool)
    unused[idx[found]] = False
    unrequested = None
    if unused.any():
        u = np.flatnonzero(unused)
        boxes = pred.coords[concat_ranges(pred_start[u], pred.counts[u])]
        unrequested = (p_img[u], [pred_cls[k] for k in u.tolist()], pred.counts[u], boxes)
    return g_img, ref.counts, n_pred, ref.coords, pr, unrequested


def _missing(index: int, cls: str, missing_class: str) -> list:
    if missing_class == "error":
        raise ValueError(
            f"`predictions[{index}]` has no entry for requested class {cls!r} (a class of `references[{index}]`); "
            "give [] for no box, or pass missing_class='empty'"
        )
    return []


LOST_SIZE = (
    "a positive width or height vanishes in x + w, y + h in float64 (the box would have area 0 and "
    "IoU 0 even with itself); give the boxes in 'xyxy' or move them nearer the origin"
)


def _check_values(boxes, arg, counts, g_img, g_cls, box_format) -> None:
    """NaN/inf coordinates, negative sizes or (xywh) a positive size that float64 loses next to its
    corner -> ValueError naming the image, class and box."""
    if coordinates_ok(boxes, box_format):
        return
    finite = np.isfinite(boxes).all(axis=1)
    lost = np.zeros(len(boxes), dtype=bool)
    if box_format == "xywh":
        with np.errstate(over="ignore", invalid="ignore"):
            ends = boxes[:, :2] + boxes[:, 2:]
            size_ok = (boxes[:, 2] >= 0) & (boxes[:, 3] >= 0) & np.isfinite(ends).all(axis=1)
            lost = size_lost(boxes, ends)
        what = "negative width/height or x + w, y + h beyond the float64 range (box_format 'xywh')"
    else:
        size_ok = (boxes[:, 2] >= boxes[:, 0]) & (boxes[:, 3] >= boxes[:, 1])
        what = "x2 < x1 or y2 < y1 (box_format 'xyxy' needs x2 >= x1 and y2 >= y1)"
    bad = ~(finite & size_ok) | lost
    if not bad.any():
        return
    k = int(np.flatnonzero(bad)[0])
    owner = np.repeat(np.arange(len(counts)), counts)
    g = int(owner[k])
    j = k - int(size_offsets(counts)[g])
    reason = "NaN or infinite coordinate" if not finite[k] else what if not size_ok[k] else LOST_SIZE
    cls = class_at(g_cls, g)
    raise ValueError(f"`{arg}[{g_img[g]}]` class {cls!r}, box {j}: {reason}, got {boxes[k].tolist()!r}")


# ----------------------------------------------------------------------------------------------
# Counting
# ----------------------------------------------------------------------------------------------
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
        raise ValueError(
            f"`predictions` has {len(predictions)} examples but `references` has {len(references)}"
        )
    if missing_class not in MISSING_CLASS:
        raise ValueError(f"`missing_class` must be one of {list(MISSING_CLASS)}, got {missing_class!r}")
    pred, ref = columns_of(predictions, "predictions"), columns_of(references, "references")
    g_img, n_gt, n_pred, gt_raw, pr_raw, unrequested = _groups(pred, ref, missing_class)
    # column-major boxes: the coordinate tests and IoUs work on whole columns (numpy's loops run along
    # a column instead of over rows of 2 or 4 numbers: several times faster on (N, 2) slices)
    gt_raw, pr_raw = np.asfortranarray(gt_raw), np.asfortranarray(pr_raw)
    _check_group_sizes(g_img, n_gt, n_pred, ref.classes, matching)
    options = (box_format, iou_threshold, iou_boundary, matching)
    tp, fp, fn = (np.zeros(len(n_gt), dtype=np.int64) for _ in range(3))
    gt_end, pred_end = size_offsets(n_gt), size_offsets(n_pred)
    # usual coordinates pass every check of every block at once (else: checked block by block)
    ordinary = ordinary_values(gt_raw, box_format) and ordinary_values(pr_raw, box_format)
    values_ok = True
    for lo, hi in _blocks(n_gt, n_pred):
        gt = gt_raw[gt_end[lo] : gt_end[hi]]
        pr = pr_raw[pred_end[lo] : pred_end[hi]]
        values_ok = ordinary or coordinates_ok(gt, box_format) and coordinates_ok(pr, box_format)
        if not values_ok:
            break
        block = count_block(n_gt[lo:hi], n_pred[lo:hi], gt, pr, *options, safe=ordinary or None)
        tp[lo:hi], fp[lo:hi], fn[lo:hi] = block
    if not values_ok:  # name the first bad box: all references first, then all predictions
        _check_values(gt_raw, "references", n_gt, g_img, ref.classes, box_format)
        _check_values(pr_raw, "predictions", n_pred, g_img, ref.classes, box_format)
    if unrequested is not None:  # not scored (as in the script), but a bad box there is still an error
        u_img, u_cls, u_counts, u_boxes = unrequested
        _check_values(u_boxes, "predictions", u_counts, u_img, u_cls, box_format)
    return g_img, tp, fp, fn


# the most (prediction, ground truth) pairs of one (image, class) group: det_f1 compares every pair
# (like the official script), so time grows with n_pred * n_gt (about 40 million pairs a second on one
# core); one_to_one also holds the pairs that pass the threshold (16 bytes each) and sorts them
MAX_GROUP_PAIRS = {"any": 2**28, "one_to_one": 2**22}


def _check_group_sizes(g_img, n_gt, n_pred, classes, matching: str) -> None:
    """ValueError naming the first (image, class) group with more pairs than ``MAX_GROUP_PAIRS`` allows,
    before any IoU is computed (a quadratic group would otherwise run for minutes or exhaust memory)."""
    limit = MAX_GROUP_PAIRS[matching]
    if not len(n_gt) or int(n_gt.max()) * int(n_pred.max()) <= limit:
        return
    pairs = n_gt.astype(np.int64) * n_pred.astype(np.int64)
    if not (pairs > limit).any():
        return
    g = int(np.argmax(pairs > limit))
    i, cls = int(g_img[g]), class_at(classes, g)
    raise ValueError(
        f"`predictions[{i}]` class {cls!r}: {int(n_pred[g]):,} predicted x {int(n_gt[g]):,} reference boxes = "
        f"{int(pairs[g]):,} (prediction, reference) pairs in one image and class; det_f1 compares every pair, "
        f"so at most {limit:,} pairs per image and class are accepted with matching={matching!r} "
        "(split the image into tiles, or keep the top-scoring predictions)"
    )


# groups counted at a time: the temporaries stay small (in the CPU cache, and reused by the allocator
# instead of fresh pages for every large array). A block is about BLOCK_UNITS x GROUP_BLOCK units of work,
# a group one unit and each of its boxes (either side) one more: GROUP_BLOCK groups of the usual 3 boxes,
# and many more groups without boxes (negative requests), so that these do not each pay a share of a
# block's fixed numpy calls
GROUP_BLOCK = 2048
BLOCK_UNITS = 4


def _blocks(n_gt: np.ndarray, n_pred: np.ndarray) -> list[tuple[int, int]]:
    """``(lo, hi)`` group ranges of about ``BLOCK_UNITS * GROUP_BLOCK`` units of work each (at least one
    group), in order."""
    if not len(n_gt):
        return []
    work = np.cumsum(1 + n_gt + n_pred)
    budget = BLOCK_UNITS * GROUP_BLOCK
    bounds = [0]
    while bounds[-1] < len(n_gt):
        lo = bounds[-1]
        done = int(work[lo - 1]) if lo else 0
        bounds.append(max(lo + 1, int(np.searchsorted(work, done + budget, side="right"))))
    return list(zip(bounds[:-1], bounds[1:]))


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
    return {
        "f1": f1,
        "precision": precision,
        "recall": recall,
        "tp": float(tp),
        "fp": float(fp),
        "fn": float(fn),
    }


def det_f1(predictions, references, return_per_example: bool = False, **options):
    """Micro F1 over all (image, requested class) groups; options as :func:`count_per_group`.

    Returns the :func:`scores` dict, plus ``per_example`` (one scores dict per image) on request.
    """
    counts = count_per_image(predictions, references, **options)
    result = scores(*counts.sum(axis=0).tolist())
    if return_per_example:
        result["per_example"] = [scores(*row) for row in counts.tolist()]
    return result
