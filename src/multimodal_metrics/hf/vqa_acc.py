"""The evaluate glue of vqa_acc: ``class VqaAcc(VqaAccMetric, evaluate.Metric)`` with ``library = vqa_acc``.

What ``TextPairMetric`` does not cover: the features depend on the preset (its per-question inputs,
``question_types`` / ``answer_types`` / ``languages``, are Arrow columns of their own), ``add_batch`` checks
them too, ``compute`` lets the optional ones be left out, and ``_compute`` hands the stored columns, read
as Arrow, to the library's ``score_checked``. The checks keep the module's order: ``for_trainer``, the
resampling options, ``return_per_example``, the options, then the inputs (``add_batch``).
"""

from ..inputs import check_same_length, check_text_system
from ..stats import Resampling
from .arrow import ArrowColumn, checked_features, reference_lists_to_arrow, strings_to_arrow
from .direct import OptionsCheckedFirst
from .mixins import LibraryMetric, PairedComparison, TrainerResults, check_one_example


class VqaAccMetric(LibraryMetric, TrainerResults, PairedComparison, OptionsCheckedFirst):
    """Mixin of the vqa_acc script (listed before ``evaluate.Metric``); ``library`` is
    ``multimodal_metrics.vqa_acc``."""

    check_system = staticmethod(check_text_system)  # compare checks both systems before scoring either

    arrow_inputs = (
        True  # _compute reads the stored columns as Arrow (answers as ids of a dictionary built in C)
    )

    def input_features(self) -> list:
        """The two feature schemas of the preset (references as lists of strings or one string each),
        with its per-question inputs; the preset is checked first."""
        import datasets

        self.library.OPTIONS.check_preset(self.config_name)
        extra = {name: datasets.Value("string") for name in self.library.extra_inputs(self.config_name)}
        string = datasets.Value("string")
        # add_batch checks every value while converting it to Arrow (ArrowColumn): stored as it is
        return checked_features(
            [
                datasets.Features({"predictions": string, "references": datasets.Sequence(string), **extra}),
                datasets.Features({"predictions": string, "references": string, **extra}),
            ]
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Like `evaluate.Metric.compute`; the optional per-question inputs (question_types, answer_types,
        languages) may be left out and then take their defaults."""
        if predictions is not None or references is not None:
            for name in self.library.extra_inputs(self.config_name):
                kwargs.setdefault(name, None)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Check the batch (errors name the argument and example index) while converting it to the
        Arrow arrays evaluate's writer stores as they are (``ArrowColumn``)."""
        import pyarrow as pa

        predictions, pred_array = strings_to_arrow(predictions, "predictions")
        _, counts, ref_array = reference_lists_to_arrow(references, "references")
        check_same_length("predictions", predictions, "references", counts)
        self.library.unknown_inputs(self.config_name, kwargs)
        columns = self.library.check_extra_inputs(self.config_name, predictions, kwargs)
        columns = {name: ArrowColumn(pa.array(values, type=pa.string())) for name, values in columns.items()}
        return super().add_batch(
            predictions=ArrowColumn(pred_array), references=ArrowColumn(ref_array), **columns
        )

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example (checked like a batch of one)."""
        check_one_example(kwargs)
        return self.add_batch(
            predictions=[prediction],
            references=[reference],
            **{k: [v] for k, v in kwargs.items() if v is not None},
        )

    def _options(self, passed):
        return self.library.checked_options(self.config_name, passed)

    def _compute(
        self,
        predictions,
        references,
        question_types=None,
        answer_types=None,
        languages=None,
        normalize=None,
        num_answers=None,
        epsilon=None,
        answer_key=None,
        threshold=None,
        wordnet_path=None,
        lowercase=None,
        confidence=None,
        n_resamples=None,
        seed=None,
        return_per_example=False,
    ):
        resampling = Resampling(confidence, n_resamples, seed)
        options = self._options(
            {
                "normalize": normalize,
                "num_answers": num_answers,
                "epsilon": epsilon,
                "answer_key": answer_key,
                "threshold": threshold,
                "wordnet_path": wordnet_path,
                "lowercase": lowercase,
            }
        )
        # The stored columns come as Arrow (info.format): the library reads them without Python lists.
        columns = {"question_types": question_types, "answer_types": answer_types, "languages": languages}
        result = self.library.score_checked(
            self.config_name, predictions, references, columns, options, resampling, return_per_example
        )
        return self.scored(result)
