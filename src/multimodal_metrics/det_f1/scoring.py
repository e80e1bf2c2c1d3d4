"""det_f1's option table, presets and ``score``: the functional API the evaluate module calls too."""

import numpy as np

from ..inputs import check_list, check_same_length, score_function
from ..options import Option, OptionTable, check_bool
from ..results import Result, make_result
from ..state import MetricState, state_function
from ..state_columns import Column
from ..stats import Resampling, Statistic, compare_function, interval_values, precision_recall_f1
from .boxes import BOUNDARIES, BOX_FORMATS, MATCHINGS, MISSING_CLASS
from .columns import image_digests, pack
from .core import count_per_image, scores

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

# Whether a larger value of each result key is better (torchmetrics' higher_is_better; None: a raw
# count, left out of the Trainer form): see multimodal_metrics.results.key_direction.
HIGHER_IS_BETTER = {"f1": True, "precision": True, "recall": True, "tp": None, "fp": None, "fn": None}

OPTIONS = OptionTable(
    "det_f1",
    [
        Option(
            "matching",
            "'any' (official script: a prediction is a TP if it hits any ground-truth box, "
            "FN = max(0, #GT - #pred), identical consecutive predictions count once) or 'one_to_one' (greedy "
            "by IoU, each box matched at most once; unmatched GT boxes are FN, unmatched predictions FP).",
            choices=MATCHINGS,
            sig="match",
        ),
        Option("iou_threshold", "IoU threshold in [0, 1].", kind="number", low=0.0, high=1.0, sig="iou"),
        Option(
            "iou_boundary",
            "'inclusive' (IoU >= threshold is a hit, the script) or 'strict' (IoU > threshold, "
            "the seed text).",
            choices=BOUNDARIES,
            sig="bound",
        ),
        Option(
            "box_format",
            "'xywh' ([x, y, width, height], the Fusion Brain files) or 'xyxy' ([x1, y1, x2, y2]).",
            choices=BOX_FORMATS,
            sig="fmt",
        ),
        Option(
            "missing_class",
            "what a requested class absent from the prediction means: 'error' (ValueError, "
            "as the script's assertion) or 'empty' (no box predicted).",
            choices=MISSING_CLASS,
            sig="miss",
            demo=False,
        ),
    ],
    PRESETS,
)

SCORE_KEYS = ("f1", "precision", "recall")  # the scores with an interval (tp, fp, fn are counts)


def count_statistic(counts) -> Statistic:
    """Per-image (tp, fp, fn) as the sufficient statistics; micro F1, precision and recall from the pooled counts."""

    def prf(sums):
        precision, recall, f1 = precision_recall_f1(sums[..., 0], sums[..., 1], sums[..., 2])
        return np.stack([f1, precision, recall], axis=-1)

    return Statistic(SCORE_KEYS, counts, prf)


class DetF1Result(Result):
    """det_f1's :class:`~multimodal_metrics.results.Result`, with ``counts`` (per-image tp, fp, fn: an
    (n_images, 3) int64 array). ``per_example`` (one scores dict per image) is built on first use, so a
    ``compute`` that does not ask for it does not pay for it."""

    def __init__(self, values, counts, statistic, per_example=None, **described):
        self.counts = counts
        super().__init__(values, "det_f1", per_example, statistic, **described)

    @property
    def per_example(self) -> list[dict]:
        if self._per_example is None:
            self._per_example = [scores(*row) for row in self.counts.tolist()]
        return self._per_example

    @per_example.setter
    def per_example(self, value) -> None:
        self._per_example = value


def example_rows(predictions, references, preset, options) -> tuple[dict, dict]:
    """The per-image rows of checked inputs (as :func:`score_checked` takes them): ``{"counts": (tp, fp,
    fn) per image, an (n_images, 3) int64 array}``, and their context (no resources: empty). Coordinate
    values and missing classes are checked here (errors name the image, class and box)."""
    return {"counts": count_per_image(predictions, references, **options)}, {}


def reduce_rows(rows, context, preset, options, resampling, return_per_example=False) -> DetF1Result:
    """det_f1 from the per-image rows of :func:`example_rows` in image order (what :func:`score_checked`
    and a merged state both call): the counts are summed (integers: any order gives the same sums), the
    intervals resample the images in this order."""
    counts = rows["counts"]
    values = scores(*counts.sum(axis=0).tolist())
    signature = OPTIONS.signature(preset, options, resampling)
    per_example = [scores(*row) for row in counts.tolist()] if return_per_example else None
    statistic = count_statistic(counts)
    values = {**values, **interval_values(statistic, resampling)}
    values = make_result(values, signature, per_example, return_per_example)
    return DetF1Result(values, counts, statistic, per_example, signature=signature, options=options)


def score_checked(
    predictions, references, preset, options, resampling, return_per_example=False
) -> DetF1Result:
    """det_f1 of checked inputs (each side as :class:`~multimodal_metrics.det_f1.core.Columns` or the Arrow
    column the evaluate module stores) with resolved ``options`` (``OPTIONS.resolve``) and a checked
    ``Resampling``. Coordinate values and missing classes are checked here (errors name the image,
    class and box)."""
    rows, context = example_rows(predictions, references, preset, options)
    return reduce_rows(rows, context, preset, options, resampling, return_per_example)


def checked_images(predictions, references) -> tuple:
    """The two sides of ``score`` / ``State.update`` checked (a list each, the same length) and packed
    (:func:`~multimodal_metrics.det_f1.columns.pack`: errors name the side, image and class)."""
    predictions = check_list(predictions, "predictions")
    references = check_list(references, "references")
    check_same_length("predictions", predictions, "references", references)
    return pack(predictions, "predictions"), pack(references, "references")


def _score(
    predictions, references, preset, return_per_example, confidence, n_resamples, seed, options
) -> DetF1Result:
    """``score``: the checks in compute's order (preset, resampling, ``return_per_example``, options, then
    the inputs), then :func:`score_checked`."""
    OPTIONS.check_preset(preset)  # evaluate.load checks it
    resampling = Resampling(confidence, n_resamples, seed)  # compute checks these first (PairedComparison)
    check_bool(return_per_example, "return_per_example")
    opts = OPTIONS.resolve(preset, options)
    predictions, references = checked_images(predictions, references)
    return score_checked(predictions, references, preset, opts, resampling, return_per_example)


score = score_function(
    _score,
    """Detection F1 of ``predictions`` against ``references``, one entry per image on each side: a class
    dict ``{class: [[x, y, w, h], ...]}`` or a record ``{"classes": [...], "boxes": [...]}``; the classes
    of ``references[i]`` are the classes requested for image i.

    ``preset`` and ``options`` (``matching``, ``iou_threshold``, ``iou_boundary``, ``box_format``,
    ``missing_class``: see ``OPTIONS``) set the convention; ``confidence`` adds the bootstrap intervals
    ``f1_ci_low``/``_high``, ... (``n_resamples`` resamples of the images, ``seed``). Returns a
    :class:`DetF1Result` equal to what the evaluate module's ``compute`` returns; its errors are
    compute's, in compute's order (preset, resampling, ``return_per_example``, options, then the inputs).
    """,
    __name__,
)


def check_system(predictions, arg: str, references) -> None:
    """``compare``'s check of one system (``arg``: ``predictions_a`` / ``_b``) before either is scored: one image
    per reference, each a class dict or record of boxes (coordinates are checked when scoring)."""
    predictions = check_list(predictions, arg)
    if references is not None:
        check_same_length(arg, predictions, "references", check_list(references, "references"))
    pack(predictions, arg)


compare = compare_function(
    score,
    """Paired significance test of systems A and B on the same references (see ``stats.paired_comparison``),
    resampling images; ``kwargs``: ``preset`` and the options, the same for both.""",
    check_system=check_system,
)


class State(MetricState):
    """det_f1's mergeable state (see :mod:`multimodal_metrics.state`): per image its (tp, fp, fn) counts
    kept with its global index; ``result`` equals ``score`` on all images bit for bit. 32 bytes per image
    (24 for the counts, 8 for the index)."""

    options = OPTIONS
    columns = {"counts": Column("<i8", (3,), low=0)}
    reduce_rows = staticmethod(reduce_rows)
    score = staticmethod(score)

    def update(self, predictions, references, index=None) -> "State":
        """Score a batch: ``predictions`` and ``references`` (one entry per image each, as ``score`` takes
        them) and ``index`` (the global index of each image; default: after the last one held). The checks
        and errors are those of ``score``."""
        predictions, references = checked_images(predictions, references)
        rows, context = example_rows(predictions, references, self.preset, dict(self.options_resolved))
        return self._add(index, rows, context, image_digests(predictions, references))


state = state_function(State)
