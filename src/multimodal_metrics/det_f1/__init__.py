"""Detection F1 at an IoU threshold for zero-shot (request-based) object detection (AIJ 2021 Fusion Brain zsOD).

    from multimodal_metrics import det_f1
    r = det_f1.score([{"cat": [[0, 0, 10, 5]]}], [{"cat": [[0, 0, 10, 10]]}], preset="default", confidence=0.95)
    r["f1"], r.signature, r.per_example, r.counts

Presets: ``default`` = ``fusion_brain_2021`` (the official AIJ 2021 zsOD script, quirks included) and
``one_to_one`` (greedy one-to-one matching, the usual detection convention). The formula is
:mod:`multimodal_metrics.det_f1.core` (``det_f1``, ``count_per_image``, ...), the input readers
:mod:`~multimodal_metrics.det_f1.columns` (``pack``, ``from_fusion_brain``, ...).
"""

from .boxes import pairwise_iou
from .columns import (
    Columns,
    as_class_dict,
    from_arrow,
    from_fusion_brain,
    normalize_batch,
    normalize_example,
    pack,
    to_arrow,
    unpack,
)
from .core import count_per_group, count_per_image, det_f1, prf, scores
from .matching import box_status
from .scoring import (
    OPTIONS,
    PRESETS,
    DetF1Result,
    State,
    compare,
    count_statistic,
    score,
    score_checked,
    state,
)

__all__ = [
    "OPTIONS",
    "PRESETS",
    "Columns",
    "DetF1Result",
    "State",
    "as_class_dict",
    "box_status",
    "compare",
    "count_per_group",
    "count_per_image",
    "count_statistic",
    "det_f1",
    "from_arrow",
    "from_fusion_brain",
    "normalize_batch",
    "normalize_example",
    "pack",
    "pairwise_iou",
    "prf",
    "score",
    "score_checked",
    "scores",
    "state",
    "to_arrow",
    "unpack",
]
