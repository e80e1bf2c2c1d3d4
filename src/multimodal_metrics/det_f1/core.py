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

The code is split by concern; this module gathers every name (the private helpers that the tests use
too), so ``multimodal_metrics.det_f1.core`` offers what ``metrics/det_f1/_det_f1_core.py`` did:

* :mod:`.boxes`: the options' choices, boxes and IoU, the whole-array coordinate tests;
* :mod:`.stream`: the marshal reader of plain box lists (the fast path of :func:`pack`);
* :mod:`.columns`: :class:`Columns`, the checked readers (:func:`pack`, packed dicts, Arrow,
  :func:`from_fusion_brain`);
* :mod:`.matching`: the rules inside a group (the official "any" rule, greedy one-to-one), per-box status;
* :mod:`.counting`: groups, the coordinate checks that name the box, counts and scores.

The tunables live where they are read: ``columns.PLAIN_CHUNK``, ``matching.PAIR_CHUNK``,
``counting.GROUP_BLOCK`` (the values here are copies: set those modules' attributes to change them).
"""

from .boxes import (  # noqa: F401 (private helpers re-exported for the tests)
    _ORDINARY,
    _SAFE_HIGH,
    _SAFE_LOW,
    BOUNDARIES,
    BOX_FORMATS,
    MATCHINGS,
    MISSING_CLASS,
    _area,
    _columns,
    _in_safe_range,
    _iou,
    _no_tiny,
    _ordinary_values,
    _values_ok,
    _xyxy_columns,
    paired_iou,
    pairwise_iou,
    passes,
    to_xyxy,
)
from .columns import (  # noqa: F401
    _MAX_INT_COORD,
    PLAIN_CHUNK,
    Columns,
    _class_at,
    _flat,
    _is_no_box,
    _offsets,
    _pack_checked,
    _pack_packed,
    _pack_plain,
    _parts,
    _pylist,
    _ranges,
    _same_classes,
    as_class_dict,
    box_array,
    columns_of,
    from_arrow,
    from_fusion_brain,
    is_arrow,
    is_packed,
    is_record,
    normalize_batch,
    normalize_example,
    pack,
    packed_dicts,
    to_arrow,
    unpack,
)
from .counting import (  # noqa: F401
    GROUP_BLOCK,
    _check_values,
    _groups,
    _missing,
    count_per_group,
    count_per_image,
    det_f1,
    prf,
    scores,
)
from .matching import PAIR_CHUNK, _count_block, _greedy_one_to_one, _hit_pairs, box_status  # noqa: F401
from .stream import (  # noqa: F401
    _FLOAT,
    _INT,
    _LIST,
    _box_counts,
    _int_stream,
    _plain_boxes,
    _stream_boxes,
    _tiled,
    _token_stream,
)

__all__ = [
    "BOUNDARIES",
    "BOX_FORMATS",
    "GROUP_BLOCK",
    "MATCHINGS",
    "MISSING_CLASS",
    "PAIR_CHUNK",
    "PLAIN_CHUNK",
    "Columns",
    "as_class_dict",
    "box_array",
    "box_status",
    "columns_of",
    "count_per_group",
    "count_per_image",
    "det_f1",
    "from_arrow",
    "from_fusion_brain",
    "is_arrow",
    "is_packed",
    "is_record",
    "normalize_batch",
    "normalize_example",
    "pack",
    "packed_dicts",
    "paired_iou",
    "pairwise_iou",
    "passes",
    "prf",
    "scores",
    "to_arrow",
    "to_xyxy",
    "unpack",
]
