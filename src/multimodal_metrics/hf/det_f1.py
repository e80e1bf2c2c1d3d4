"""The evaluate glue of det_f1 (``multimodal_metrics.require("0.1.0", "hf.det_f1")``): the packed image
features and the checked ``add_batch`` that hands evaluate Arrow arrays; ``LibraryMetric._compute`` reads them
back as Arrow for the library's ``score_checked``.
"""

from ..det_f1.columns import pack, to_arrow
from ..det_f1.scoring import check_system
from ..inputs import check_list, check_same_length
from .arrow import ArrowColumn, checked_features
from .direct import OptionsCheckedFirst
from .mixins import LibraryMetric, PairedComparison, TrainerResults, check_one_example


class DetF1Metric(LibraryMetric, TrainerResults, PairedComparison, OptionsCheckedFirst):
    """det_f1 over its library module (``library = multimodal_metrics.det_f1``):
    ``class DetF1(DetF1Metric, evaluate.Metric)``.

    ``compute`` checks, in order: ``for_trainer`` (``TrainerResults``), the resampling options
    (``PairedComparison``), ``return_per_example`` and the options (``OptionsCheckedFirst``), then the
    inputs in ``add_batch``; the coordinates and missing classes when counting.
    """

    check_system = staticmethod(check_system)  # compare checks both systems before scoring either
    arrow_inputs = True  # _compute reads the packed columns as Arrow: offsets and values as numpy

    @staticmethod
    def input_features():
        """The stored (Arrow) form of one image on each side, written by ``add_batch`` from the user's class
        dict or record: ``counts[k]`` boxes for ``classes[k]``, their 4 coordinates each in the flat ``coords``
        (flat lists are encoded and read back far faster than triple-nested ones). ``add_batch`` checks
        every image and hands evaluate Arrow arrays (``ArrowColumn``): no per-value encoding."""
        import datasets

        image = {
            "classes": datasets.Sequence(datasets.Value("string")),
            "counts": datasets.Sequence(datasets.Value("int64")),
            "coords": datasets.Sequence(datasets.Value("float64")),
        }
        return checked_features(datasets.Features({"predictions": dict(image), "references": dict(image)}))

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
        check_one_example(kwargs)
        return self.add_batch(predictions=[prediction], references=[reference], **kwargs)
