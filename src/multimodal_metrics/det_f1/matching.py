"""The counting rules of det_f1 inside (image, class) groups: the official loop's "any" rule and greedy
one-to-one matching (the rules are described in :mod:`multimodal_metrics.det_f1.core`).

:func:`_hit_pairs` finds the (prediction, ground truth) pairs that pass the IoU test, prediction by
prediction like the script's ``itertools.product(pred, true)``, ``PAIR_CHUNK`` pairs at a time;
:func:`count_block` turns them into TP / FP / FN with either rule; :func:`box_status` gives the
outcome of every box of one image (for drawing).
"""

import numpy as np

from .boxes import column_area, column_iou, in_safe_range, paired_iou, pairwise_iou, passes, xyxy_columns
from .columns import as_class_dict, box_array, concat_ranges, size_offsets

PAIR_CHUNK = 1 << 20  # (prediction, ground truth) pairs whose IoUs are held in memory at once


def _hit_pairs(
    pr_raw,
    gt_raw,
    box_format,
    n_gt,
    n_pred,
    iou_threshold,
    iou_boundary,
    want_pairs=True,
    safe=None,
    pred_group=None,
):
    """(pred_idx, gt_idx, iou) of the (prediction, ground truth) pairs of every group that pass the
    threshold (when ``want_pairs`` is False: only the predictions that pass with some ground-truth box,
    each once, the others empty). ``safe``: True when
    the caller knows that no coordinate needs scaling (:func:`ordinary_values`), None to test it;
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
    first_gt = size_offsets(n_gt)[:-1][pred_group]  # first ground-truth box of each prediction's group
    pair_end = np.cumsum(per_pred)
    pr_cols, gt_cols = xyxy_columns(pr_raw, box_format), xyxy_columns(gt_raw, box_format)
    if safe is None:
        safe = in_safe_range(np.concatenate(pr_cols + gt_cols))
    if safe:
        area_pr, area_gt = column_area(pr_cols), column_area(gt_cols)
    else:
        pr, gt = np.stack(pr_cols, axis=-1), np.stack(gt_cols, axis=-1)
    parts, lo = [], 0
    hit_any = None if want_pairs else np.zeros(len(pr_raw), dtype=bool)
    index = np.int32 if max(len(pr_raw), len(gt_raw)) < 2**31 else np.int64  # 16 bytes per kept pair, not 24
    while lo < len(pr_raw):
        done = int(pair_end[lo - 1]) if lo else 0
        hi = max(lo + 1, int(np.searchsorted(pair_end, done + PAIR_CHUNK, side="right")))
        pred_idx = np.repeat(np.arange(lo, hi), per_pred[lo:hi])
        gt_idx = concat_ranges(first_gt[lo:hi], per_pred[lo:hi])
        if safe:
            a = tuple(np.take(c, pred_idx) for c in pr_cols)
            b = tuple(np.take(c, gt_idx) for c in gt_cols)
            iou = column_iou(a, b, np.take(area_pr, pred_idx), np.take(area_gt, gt_idx))
        else:
            iou = paired_iou(np.take(pr, pred_idx, axis=0), np.take(gt, gt_idx, axis=0))
        hit = passes(iou, iou_threshold, iou_boundary)
        if want_pairs:
            parts.append((pred_idx[hit].astype(index), gt_idx[hit].astype(index), iou[hit]))
        else:  # only which predictions hit: a mask, not one entry per passing pair
            hit_any[pred_idx[hit]] = True
        lo = hi
    empty = np.zeros(0, dtype=np.int64)
    if not want_pairs:
        return np.flatnonzero(hit_any), empty, np.zeros(0)
    if not parts:
        return empty, empty, np.zeros(0)
    found = [np.concatenate(x) for x in zip(*parts)]
    return tuple(found)


def count_block(n_gt, n_pred, gt_raw, pr_raw, box_format, iou_threshold, iou_boundary, matching, safe=None):
    """(tp, fp, fn) of consecutive groups (see :func:`count_per_group`; ``safe``: as :func:`_hit_pairs`)."""
    n_groups, n_boxes = len(n_gt), len(pr_raw)
    pred_group = np.repeat(np.arange(n_groups), n_pred)
    want_pairs = matching != "any"  # "any" counts the hits of each prediction, not which pairs
    hit_pred, hit_gt, hit_iou = _hit_pairs(
        pr_raw, gt_raw, box_format, n_gt, n_pred, iou_threshold, iou_boundary, want_pairs, safe, pred_group
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
        fp_scored = np.bincount(pred_group, weights=(keep & ~hit & scored), minlength=n_groups).astype(
            np.int64
        )
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
    for lo in range(0, len(order), GREEDY_CHUNK):  # Python ints for a chunk at a time (bounded memory)
        part = order[lo : lo + GREEDY_CHUNK]
        for p, g in zip(pred_idx[part].tolist(), gt_idx[part].tolist()):
            if not matched_pred[p] and not used_gt[g]:
                matched_pred[p] = True
                used_gt[g] = True
    return matched_pred, used_gt


BOX_STATUS_PAIRS = 1 << 22  # the largest IoU matrix box_status builds (32 MiB of float64)
GREEDY_CHUNK = 1 << 16  # candidate pairs turned into Python ints at a time by the greedy loop


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
        if len(p_raw) * len(g_raw) > BOX_STATUS_PAIRS:  # the full IoU matrix is held: refuse before it
            raise ValueError(
                f"class {c!r}: {len(p_raw):,} predicted x {len(g_raw):,} reference boxes; box_status holds the "
                f"IoU matrix of one image and class, at most {BOX_STATUS_PAIRS:,} pairs"
            )
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
            gt = [
                "hit" if h else "miss"
                for h in (hit.any(axis=0).tolist() if len(p_raw) else [False] * len(g_raw))
            ]
        out[c] = {"pred": pred, "gt": gt}
    return out
