"""Detection F1 at an IoU threshold for zero-shot (request-based) object detection (AIJ 2021 Fusion Brain zsOD).

    from multimodal_metrics import det_f1
    r = det_f1.score([{"cat": [[0, 0, 10, 5]]}], [{"cat": [[0, 0, 10, 10]]}], preset="default", confidence=0.95)
    r["f1"], r.signature, r.per_example, r.counts

Presets: ``default`` = ``fusion_brain_2021`` (the official AIJ 2021 zsOD script, quirks included) and
``one_to_one`` (greedy one-to-one matching, the usual detection convention). The pure functions are in
:mod:`multimodal_metrics.det_f1.core` (``det_f1``, ``count_per_image``, ``from_fusion_brain``, ...).
"""

from .core import (
    Columns,
    as_class_dict,
    box_status,
    count_per_group,
    count_per_image,
    det_f1,
    from_arrow,
    from_fusion_brain,
    normalize_batch,
    normalize_example,
    pack,
    pairwise_iou,
    prf,
    scores,
    to_arrow,
    unpack,
)
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
