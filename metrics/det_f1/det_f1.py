"""Zero-shot object detection F1 at an IoU threshold (AIJ 2021 Fusion Brain zsOD), as an evaluate module."""

import datasets
import evaluate
import numpy as np

from ._det_f1_core import (
    BOUNDARIES,
    BOX_FORMATS,
    MATCHINGS,
    MISSING_CLASS,
    count_per_image,
    pack,
    scores,
    to_arrow,
)
from ._mm_common import (
    ArrowColumn,
    OptionsCheckedFirst,
    TrainerResults,
    build_signature,
    check_choice,
    check_list,
    check_number,
    check_preset,
    check_same_length,
    checked_features,
    make_result,
    resolve_options,
)
from ._mm_stats import PairedComparison, Resampling, Statistic, precision_recall_f1

_CITATION = """\
@misc{fusionbrain2021,
  title={Fusion Brain Challenge (AI Journey 2021): Zero-shot Object Detection},
  author={{Sber AI}},
  year={2021},
  howpublished={\\url{https://github.com/ai-forever/fusion_brain_aij2021}}
}
"""

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

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `dict`): one entry per image, either `{class: [[x, y, w, h], ...]}` or
        the record `{"classes": [str, ...], "boxes": [[[x, y, w, h], ...], ...]}` (one box list
        per class; numpy arrays / torch tensors of shape (N, 4) accepted). `[]` or `[[]]`: no box.
        Classes that are not requested by the reference are ignored.
    references (`list` of `dict`): the same forms; the classes of `references[i]` are the classes
        requested for image i (an empty box list = the class is absent: any prediction is an FP).
    matching (`str`, optional): "any" (official script: a prediction is a TP if it hits any
        ground-truth box, FN = max(0, #GT - #pred), identical consecutive predictions count once)
        or "one_to_one" (greedy by IoU, each box matched at most once; unmatched GT boxes are FN,
        unmatched predictions FP).
    iou_threshold (`float`, optional): IoU threshold in [0, 1]. Default 0.5.
    iou_boundary (`str`, optional): "inclusive" (IoU >= threshold is a hit, the script) or
        "strict" (IoU > threshold, the seed text).
    box_format (`str`, optional): "xywh" ([x, y, width, height], the Fusion Brain files) or
        "xyxy" ([x1, y1, x2, y2]).
    missing_class (`str`, optional): what a requested class absent from the prediction means:
        "error" (ValueError, as the script's assertion) or "empty" (no box predicted).
    confidence (`float`, optional): e.g. 0.95: also return percentile bootstrap intervals of f1,
        precision and recall, resampling images (micro scores recomputed from the resampled counts).
        Default None (no interval).
    n_resamples (`int`, optional): bootstrap resamples of `confidence`. Default 1000.
    seed (`int`, optional): seed of the resampling (numpy default_rng). Default 12345.
    return_per_example (`bool`, optional): also return the scores and counts of every image.
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

PRESETS = {
    # Official AIJ 2021 Fusion Brain zsOD script (seeds_reference.md 2.3), quirks included.
    "default": {
        "matching": "any",
        "iou_threshold": 0.5,
        "iou_boundary": "inclusive",
        "box_format": "xywh",
        "missing_class": "error",
    },
    # The usual detection convention: each ground-truth box matched at most once (greedy by IoU);
    # a class the model did not output means "no box".
    "one_to_one": {
        "matching": "one_to_one",
        "iou_threshold": 0.5,
        "iou_boundary": "inclusive",
        "box_format": "xywh",
        "missing_class": "empty",
    },
}
PRESETS["fusion_brain_2021"] = dict(PRESETS["default"])

# Stored (Arrow) form of one image, written by add_batch from the user's class dict / record:
# `counts[k]` boxes for `classes[k]`, their 4 coordinates each in the flat `coords` (flat lists are
# encoded and read back far faster than triple-nested ones).
_IMAGE = {
    "classes": datasets.Sequence(datasets.Value("string")),
    "counts": datasets.Sequence(datasets.Value("int64")),
    "coords": datasets.Sequence(datasets.Value("float64")),
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DetF1(TrainerResults, PairedComparison, OptionsCheckedFirst, evaluate.Metric):
    def _info(self):
        check_preset("det_f1", self.config_name, PRESETS)
        info = evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # add_batch checks every image and hands evaluate Arrow arrays (ArrowColumn): no per-value encoding
            features=checked_features(datasets.Features({"predictions": dict(_IMAGE), "references": dict(_IMAGE)})),
            homepage="https://github.com/ai-forever/fusion_brain_aij2021",
            reference_urls=["https://github.com/ai-forever/fusion_brain_aij2021/tree/main/evaluation/zsOD_F1"],
        )
        # _compute reads the packed columns as Arrow arrays (list offsets and values as numpy, no Python
        # object per box). Set after construction: MetricInfo refuses any format for non-Value features,
        # a check meant for "numpy"; the "arrow" formatter handles struct columns.
        info.format = "arrow"
        return info

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Check the batch (errors name the argument, image index and class) and convert it, in one
        pass per side, to the columns stored in Arrow (per image `{"classes", "counts", "coords"}`),
        built from numpy arrays: evaluate writes them without converting any value again."""
        predictions = check_list(predictions, "predictions")
        references = check_list(references, "references")
        check_same_length("predictions", predictions, "references", references)
        predictions = ArrowColumn(to_arrow(pack(predictions, "predictions")))
        references = ArrowColumn(to_arrow(pack(references, "references")))
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one image (checked like a batch of one)."""
        return self.add_batch(predictions=[prediction], references=[reference], **kwargs)

    def _options(self, passed):
        opts = resolve_options("det_f1", self.config_name, PRESETS, passed)
        opts["matching"] = check_choice(opts["matching"], MATCHINGS, "matching")
        opts["iou_threshold"] = check_number(opts["iou_threshold"], "iou_threshold", 0.0, 1.0)
        opts["iou_boundary"] = check_choice(opts["iou_boundary"], BOUNDARIES, "iou_boundary")
        opts["box_format"] = check_choice(opts["box_format"], BOX_FORMATS, "box_format")
        opts["missing_class"] = check_choice(opts["missing_class"], MISSING_CLASS, "missing_class")
        return opts

    def _compute(
        self,
        predictions,
        references,
        matching=None,
        iou_threshold=None,
        iou_boundary=None,
        box_format=None,
        missing_class=None,
        confidence=None,
        n_resamples=None,
        seed=None,
        return_per_example=False,
    ):
        resampling = Resampling(confidence, n_resamples, seed)
        opts = self._options(
            {
                "matching": matching,
                "iou_threshold": iou_threshold,
                "iou_boundary": iou_boundary,
                "box_format": box_format,
                "missing_class": missing_class,
            }
        )
        check_choice(opts["matching"], MATCHINGS, "matching")
        opts["iou_threshold"] = check_number(opts["iou_threshold"], "iou_threshold", 0.0, 1.0)
        check_choice(opts["iou_boundary"], BOUNDARIES, "iou_boundary")
        check_choice(opts["box_format"], BOX_FORMATS, "box_format")
        check_choice(opts["missing_class"], MISSING_CLASS, "missing_class")
        counts = count_per_image(predictions, references, **opts)
        result = scores(*counts.sum(axis=0).tolist())
        signature = build_signature(
            "det_f1",
            self.config_name,
            {
                "match": opts["matching"],
                "iou": opts["iou_threshold"],
                "bound": opts["iou_boundary"],
                "fmt": opts["box_format"],
                "miss": opts["missing_class"],
                **resampling.signature_fields(),
            },
        )
        per_example = [scores(*row) for row in counts.tolist()] if return_per_example else None
        values = self._with_intervals(result, _statistic(counts), resampling, signature)
        return make_result(values, signature, per_example, return_per_example)


def _statistic(counts) -> Statistic:
    """Per-image (tp, fp, fn); micro F1, precision and recall from the pooled counts."""

    def prf(sums):
        precision, recall, f1 = precision_recall_f1(sums[..., 0], sums[..., 1], sums[..., 2])
        return np.stack([f1, precision, recall], axis=-1)

    return Statistic(("f1", "precision", "recall"), counts, prf)
