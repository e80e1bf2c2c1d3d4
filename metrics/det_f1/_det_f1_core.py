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

IoUs are computed with numpy over all (prediction, ground truth) pairs of all groups at once, with
the same floating-point operations in the same order as the script (so IoU = t ties decide alike).
A ``[[]]`` box list means "no box" (the script does this for predictions; here for both sides).
"""

from collections.abc import Mapping, Sequence

import numpy as np

MATCHINGS = ("any", "one_to_one")
BOUNDARIES = ("inclusive", "strict")
BOX_FORMATS = ("xywh", "xyxy")
MISSING_CLASS = ("error", "empty")
COUNT_KEYS = ("tp", "fp", "fn")


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
    clip(min y2 - max y1), union = (area_a + area_b) - inter, IoU = inter / union, 0 where union = 0.
    """
    wx = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0])
    wy = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1])
    inter = np.maximum(wx, 0.0) * np.maximum(wy, 0.0)
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    union = area_a + area_b - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


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
        isinstance(example, Mapping)
        and set(example) == {"classes", "boxes"}
        and isinstance(example["classes"], Sequence)
        and not isinstance(example["classes"], str)
        and all(isinstance(c, str) for c in example["classes"])
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
        if not (np.issubdtype(boxes.dtype, np.number) and not np.issubdtype(boxes.dtype, np.bool_)):
            raise TypeError(f"{where}: box coordinates must be numbers, got dtype {boxes.dtype}")
        return boxes.astype(np.float64)
    if not isinstance(boxes, Sequence):
        raise TypeError(f"{where}: expected a list of boxes, got {type(boxes).__name__}")
    if len(boxes) == 1 and isinstance(boxes[0], Sequence) and len(boxes[0]) == 0:
        return np.zeros((0, 4), dtype=np.float64)  # the script's `[[]]` = no box
    for j, box in enumerate(boxes):
        if hasattr(box, "tolist"):
            box = box.tolist()
        if isinstance(box, str | bytes) or not isinstance(box, Sequence):
            raise TypeError(f"{where}, box {j}: expected 4 numbers, got {type(box).__name__} ({box!r})")
        if len(box) != 4:
            raise ValueError(f"{where}, box {j}: a box has 4 numbers, got {len(box)} ({list(box)!r})")
        for v in box:
            if isinstance(v, bool) or not isinstance(v, int | float | np.number):
                raise TypeError(f"{where}, box {j}: coordinates must be numbers, got {type(v).__name__} ({v!r})")
    if not boxes:
        return np.zeros((0, 4), dtype=np.float64)
    return np.asarray([list(b) for b in boxes], dtype=np.float64).reshape(-1, 4)


def normalize_example(example, arg: str, index: int) -> dict:
    """One image's input as the record ``{"classes": [str], "boxes": [(N_c, 4) lists]}``.

    Accepts the record form (``classes`` and ``boxes`` of equal length) or a class dict
    ``{class: boxes}``. Box lists become lists of [float]*4; ``[[]]`` becomes ``[]``.
    """
    where0 = f"`{arg}[{index}]`"
    if example is None:
        raise TypeError(f"{where0} is None: expected {{class: [[x, y, w, h], ...]}} or {{'classes': [...], 'boxes': [...]}}")
    if not isinstance(example, Mapping):
        raise TypeError(
            f"{where0} must be a dict {{class: boxes}} or {{'classes': [...], 'boxes': [...]}}, got {type(example).__name__}"
        )
    if is_record(example):
        classes, lists = list(example["classes"]), example["boxes"]
        if lists is None or isinstance(lists, str | bytes | Mapping) or not hasattr(lists, "__len__"):
            raise TypeError(f"{where0}['boxes'] must be a list with one box list per class")
        if len(lists) != len(classes):
            raise ValueError(
                f"{where0}: 'classes' has {len(classes)} entries but 'boxes' has {len(lists)}: one box list per class"
            )
        lists = list(lists)
    else:
        classes, lists = list(example.keys()), list(example.values())
        for c in classes:
            if not isinstance(c, str):
                raise TypeError(f"{where0}: class names must be strings, got {type(c).__name__} ({c!r})")
    if len(set(classes)) != len(classes):
        dup = next(c for c in classes if classes.count(c) > 1)
        raise ValueError(f"{where0}: class {dup!r} is listed twice")
    boxes = [box_array(b, f"{where0} class {c!r}").tolist() for c, b in zip(classes, lists)]
    return {"classes": classes, "boxes": boxes}


def from_fusion_brain(true_annot: Mapping, predictions: Mapping):
    """Fusion Brain 2021 JSON dicts ``{img: {class: [[x, y, w, h], ...]}}`` -> (predictions, references, images).

    Records in the order of the ground-truth images. The script's assertions become ValueErrors:
    the two files must hold the same image keys, and every ground-truth class of an image must be
    present in its predictions. Prediction classes absent from the ground truth are dropped (the
    script ignores them).
    """
    for arg, value in (("true_annot", true_annot), ("predictions", predictions)):
        if not isinstance(value, Mapping):
            raise TypeError(f"`{arg}` must be a dict {{image: {{class: boxes}}}}, got {type(value).__name__}")
    missing = [k for k in true_annot if k not in predictions]
    extra = [k for k in predictions if k not in true_annot]
    if missing or extra:
        raise ValueError(
            f"`predictions` and the ground truth must have the same images (not all images have predictions): "
            f"{len(missing)} missing from predictions {missing[:5]!r}, {len(extra)} not in the ground truth {extra[:5]!r}"
        )
    images = list(true_annot)
    preds, refs = [], []
    for i, img in enumerate(images):
        gt, pr = true_annot[img], predictions[img]
        for arg, value in (("true_annot", gt), ("predictions", pr)):
            if not isinstance(value, Mapping):
                raise TypeError(f"`{arg}[{img!r}]` must be a dict {{class: boxes}}, got {type(value).__name__}")
        absent = [c for c in gt if c not in pr]
        if absent:
            raise ValueError(
                f"`predictions[{img!r}]` (image {i}) has no entry for requested class {absent[0]!r}: "
                "every ground-truth class must be present in the predictions (use [] for no box)"
            )
        refs.append({"classes": list(gt), "boxes": [gt[c] for c in gt]})
        preds.append({"classes": list(gt), "boxes": [pr[c] for c in gt]})
    return preds, refs, images


# ----------------------------------------------------------------------------------------------
# Flattening and checks
# ----------------------------------------------------------------------------------------------
def _flatten(predictions, references, missing_class: str):
    """Every (image, requested class) group and its boxes as flat arrays.

    Returns (group_image, n_gt, n_pred, gt_boxes, pred_boxes, group_class) where boxes are (N, 4)
    float64 in the input format, stored group after group, and group_class the class names.
    """
    if missing_class not in MISSING_CLASS:
        raise ValueError(f"`missing_class` must be one of {list(MISSING_CLASS)}, got {missing_class!r}")
    g_img, n_gt, n_pred, g_cls = [], [], [], []
    gt_flat, pred_flat = [], []
    for i, (pred, ref) in enumerate(zip(predictions, references)):
        pred_map = dict(zip(pred["classes"], pred["boxes"]))
        for c, gboxes in zip(ref["classes"], ref["boxes"]):
            pboxes = pred_map.get(c)
            if pboxes is None:
                if missing_class == "error":
                    raise ValueError(
                        f"`predictions[{i}]` has no entry for requested class {c!r} (a class of `references[{i}]`); "
                        "give [] for no box, or pass missing_class='empty'"
                    )
                pboxes = []
            if _is_empty_box_list(gboxes):
                gboxes = []
            if _is_empty_box_list(pboxes):
                pboxes = []
            g_img.append(i)
            g_cls.append(c)
            n_gt.append(len(gboxes))
            n_pred.append(len(pboxes))
            gt_flat.extend(gboxes)
            pred_flat.extend(pboxes)
    n_gt = np.asarray(n_gt, dtype=np.int64)
    n_pred = np.asarray(n_pred, dtype=np.int64)
    gt = _as_boxes(gt_flat, references, "references", n_gt, g_img, g_cls)
    pr = _as_boxes(pred_flat, predictions, "predictions", n_pred, g_img, g_cls)
    return np.asarray(g_img, dtype=np.int64), n_gt, n_pred, gt, pr, g_cls


def _is_empty_box_list(boxes) -> bool:
    """``[]``, ``[[]]`` (the script's "no box") or an array of size 0."""
    if isinstance(boxes, np.ndarray):
        return boxes.size == 0
    return len(boxes) == 0 or (len(boxes) == 1 and hasattr(boxes[0], "__len__") and len(boxes[0]) == 0)


def _as_boxes(flat, examples, arg, counts, g_img, g_cls) -> np.ndarray:
    try:
        return np.asarray(flat, dtype=np.float64).reshape(-1, 4)
    except (ValueError, TypeError):
        pass
    # A malformed box somewhere: re-check group by group to name it.
    start = 0
    for g, n in enumerate(counts):
        box_array(flat[start : start + n], f"`{arg}[{g_img[g]}]` class {g_cls[g]!r}")
        start += n
    raise ValueError(f"`{arg}`: boxes must be lists of 4 numbers")  # pragma: no cover


def _check_values(boxes, arg, counts, g_img, g_cls, box_format) -> None:
    """NaN/inf coordinates or negative sizes -> ValueError naming the image, class and box."""
    if not len(boxes):
        return
    finite = np.isfinite(boxes).all(axis=1)
    if box_format == "xywh":
        size_ok = (boxes[:, 2] >= 0) & (boxes[:, 3] >= 0)
        what = "negative width/height (w, h must be >= 0 in box_format 'xywh')"
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


# ----------------------------------------------------------------------------------------------
# Counting
# ----------------------------------------------------------------------------------------------
def _pairs(n_gt: np.ndarray, n_pred: np.ndarray):
    """Index arrays (pred_idx, gt_idx) of every (prediction, ground truth) pair inside each group,
    ordered like ``itertools.product(pred, true)`` group after group."""
    n_pairs = n_gt * n_pred
    total = int(n_pairs.sum())
    if total == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    pred_start = np.concatenate(([0], np.cumsum(n_pred)[:-1]))
    gt_start = np.concatenate(([0], np.cumsum(n_gt)[:-1]))
    group = np.repeat(np.arange(len(n_gt)), n_pairs)
    pair_start = np.concatenate(([0], np.cumsum(n_pairs)[:-1]))
    local = np.arange(total) - pair_start[group]  # position inside the group's product
    m = n_gt[group]
    pred_idx = pred_start[group] + local // m
    gt_idx = gt_start[group] + local % m
    return pred_idx, gt_idx


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

    ``predictions`` / ``references``: one record ``{"classes": [str], "boxes": [[[4 numbers]], ...]}``
    per image (see :func:`normalize_example`); the requested classes of image i are the classes of
    ``references[i]``. Returns ``(group_image, tp, fp, fn)`` int64 arrays, one entry per group.
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
    gt, pr = to_xyxy(gt_raw, box_format), to_xyxy(pr_raw, box_format)

    n_groups = len(n_gt)
    pred_group = np.repeat(np.arange(n_groups), n_pred)
    pred_idx, gt_idx = _pairs(n_gt, n_pred)
    iou = paired_iou(pr[pred_idx], gt[gt_idx])
    hit_pair = passes(iou, iou_threshold, iou_boundary)
    positive = n_gt > 0
    fn = np.zeros(n_groups, dtype=np.int64)
    if matching == "any":
        hit = np.bincount(pred_idx[hit_pair], minlength=len(pr)) > 0
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
        matched_pred = _greedy_one_to_one(pred_idx[hit_pair], gt_idx[hit_pair], iou[hit_pair], len(pr), len(gt))
        tp = np.bincount(pred_group, weights=matched_pred, minlength=n_groups).astype(np.int64)
        fp = n_pred - tp
        fn = n_gt - tp
    return g_img, tp, fp, fn


def _greedy_one_to_one(pred_idx, gt_idx, iou, n_pred: int, n_gt: int) -> np.ndarray:
    """Greedy matching over candidate pairs by decreasing IoU (ties: lower pred, then lower GT index).

    Candidates only pair boxes of the same group, so one global pass matches every group.
    Returns a boolean mask of the matched predictions.
    """
    matched_pred = np.zeros(n_pred, dtype=bool)
    if not len(iou):
        return matched_pred
    order = np.lexsort((gt_idx, pred_idx, -iou))
    p_sorted, g_sorted = pred_idx[order].tolist(), gt_idx[order].tolist()
    used_gt = np.zeros(n_gt, dtype=bool)
    for p, g in zip(p_sorted, g_sorted):
        if not matched_pred[p] and not used_gt[g]:
            matched_pred[p] = True
            used_gt[g] = True
    return matched_pred


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
