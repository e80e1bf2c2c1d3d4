"""Zero-shot object detection F1 at an IoU threshold (AIJ 2021 Fusion Brain zsOD), as an evaluate module."""

import evaluate

import multimodal_metrics  # From: "multimodal-metrics[hf]==0.1.0"

det_f1 = multimodal_metrics.require("0.1.0", "det_f1")
hf = multimodal_metrics.require("0.1.0", "hf")
hf_det_f1 = multimodal_metrics.require("0.1.0", "hf.det_f1")

_DESCRIPTION = """\
Detection F1 at a fixed IoU threshold for request-based (zero-shot) object detection: for every
image the ground truth lists the requested classes (free-text queries) with their boxes, a
requested class without a box being a negative request; the model returns boxes per class.
Counts are summed over all (image, requested class) groups (micro precision, recall and F1).
The default preset reproduces the official AIJ 2021 Fusion Brain zsOD script exactly: xywh boxes,
IoU >= 0.5 counts (exactly 0.5 is a hit), a prediction is a TP when it overlaps ANY ground-truth
box of its class (no one-to-one matching), FN only when there are fewer predicted than
ground-truth boxes, identical consecutive predicted boxes count once. The preset `one_to_one`
gives the usual detection convention (greedy one-to-one matching by IoU). Every choice is an
option and is recorded in `signature`.
"""

_KWARGS_DESCRIPTION = (
    """
Args:
    predictions (`list` of `dict`): one entry per image, either `{class: [[x, y, w, h], ...]}` or
        the record `{"classes": [str, ...], "boxes": [[[x, y, w, h], ...], ...]}` (one box list
        per class; numpy arrays / torch tensors of shape (N, 4) accepted). `[]` or `[[]]`: no box.
        Classes that are not requested by the reference are ignored.
    references (`list` of `dict`): the same forms; the classes of `references[i]` are the classes
        requested for image i (an empty box list = the class is absent: any prediction is an FP).
"""
    + hf.options_doc(
        det_f1,
        help={
            "confidence": "e.g. 0.95: also return percentile bootstrap intervals of f1, precision and recall, "
            "resampling images (micro scores recomputed from the resampled counts). Default None (no interval)."
        },
        per_example="also return the scores and counts of every image.",
    )
    + """
Returns:
    f1 (`float`): micro F1 over all (image, requested class) groups, in [0, 1].
    precision (`float`): TP / (TP + FP), 0 when there is no prediction.
    recall (`float`): TP / (TP + FN), 0 when there is nothing to find.
    tp, fp, fn (`float`): the counts.
    f1_ci_low, f1_ci_high, precision_ci_low, ..., recall_ci_high (`float`): with `confidence`, the
        bootstrap interval of each score.
    signature (`str`): every option that changes the number.
    per_example (`list` of `dict`): with `return_per_example=True`, the same six keys per image.
Examples:
    >>> det_f1 = evaluate.load("metrics/det_f1")
    >>> refs = [{"cat": [[0, 0, 10, 10]], "dog": []}]
    >>> preds = [{"cat": [[0, 0, 10, 5]], "dog": [[5, 5, 5, 5]]}]
    >>> r = det_f1.compute(predictions=preds, references=refs)
    >>> round(r["f1"], 4), r["tp"], r["fp"], r["fn"]
    (0.6667, 1.0, 1.0, 0.0)
    >>> r["signature"]
    'det_f1|preset:default|match:any|iou:0.5|bound:inclusive|fmt:xywh|miss:error|v:0.1.0'
    >>> det_f1.compute(predictions=preds, references=refs, iou_boundary="strict")["f1"]
    0.0
    >>> three_on_one = [{"cat": [[0, 0, 10, 10], [0, 0, 10, 9], [1, 0, 10, 10]]}]
    >>> three_objects = [{"cat": [[0, 0, 10, 10], [50, 0, 10, 10], [100, 0, 10, 10]]}]
    >>> det_f1.compute(predictions=three_on_one, references=three_objects)["f1"]
    1.0
    >>> round(det_f1.compute(predictions=three_on_one, references=three_objects, matching="one_to_one")["f1"], 4)
    0.3333
"""
)


@hf.documented(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DetF1(hf_det_f1.DetF1Metric, evaluate.Metric):
    library = det_f1
