"""The evaluate glue of fid_clip: images / feature vectors / texts as evaluate features, checked
``add_batch``, the library's ``score_checked`` of the stored rows and texts, and ``compare`` of CLIP scores.

``class FidClip(FidClipMetric, evaluate.Metric)`` with ``library = multimodal_metrics.fid_clip``.
"""

from ..options import check_bool
from .arrow import checked_features
from .direct import OptionsCheckedFirst
from .mixins import LibraryMetric, PairedComparison, TrainerResults, check_one_example


class FidClipMetric(LibraryMetric, TrainerResults, PairedComparison, OptionsCheckedFirst):
    """fid_clip's evaluate module over its library module (``library``).

    Every example is stored as ``{"kind", "text", "data"}`` (``images.pack``: a path, the bytes of an image
    file, an image in memory as its RGB pixels, a feature vector as float64 bytes, or ``"none"`` where a
    side has no example) with its text (a list of zero or one string), so Arrow never sees pixels as
    nested lists; the two sides may differ in length.
    ``compute`` checks, in order: ``for_trainer``, the resampling options, ``return_per_example``, the
    options, then the inputs (``add_batch``).
    """

    extra_inputs = ("texts",)  # stored beside the two sides: _compute hands them to score_stored

    @staticmethod
    def input_features():
        import datasets

        item = {
            "kind": datasets.Value("string"),
            "text": datasets.Value("string"),
            "data": datasets.Value("binary"),
        }
        # add_batch checks every example and packs it to the stored Python types (str, bytes, None):
        # evaluate's per-value encoding is skipped
        return checked_features(
            datasets.Features(
                {
                    "predictions": dict(item),
                    "references": dict(item),
                    "texts": datasets.Sequence(datasets.Value("string")),
                }
            )
        )

    def compute(self, *, predictions=None, references=None, texts=None, **kwargs):
        """Compute FID / CLIP score / score on the given and the already added examples."""
        return super().compute(predictions=predictions, references=references, texts=texts, **kwargs)

    def add_batch(self, *, predictions=None, references=None, texts=None, **kwargs):
        """Check and pack a batch (errors name the argument and the index); the sides may differ in length."""
        packed_p, packed_r, texts = self.library.pack_batch(predictions, references, texts)
        texts = [[] if t is None else [t] for t in texts]  # [] = no text (Arrow-safe null)
        return super().add_batch(predictions=packed_p, references=packed_r, texts=texts, **kwargs)

    def add(self, *, prediction=None, reference=None, text=None, **kwargs):
        """Add one example (a generated and/or a real image, and optionally its text)."""
        check_one_example(kwargs)
        return self.add_batch(
            predictions=None if prediction is None else [prediction],
            references=None if reference is None else [reference],
            texts=None if text is None else [text],
            **kwargs,
        )

    def score_stored(self, inputs, options, resampling, return_per_example, default_resamples):
        """The library's ``Result`` of the stored rows and texts (a list of zero or one string per row);
        ``default_resamples``: FID then takes ``FID_RESAMPLES`` bootstrap resamples."""
        predictions, references, texts = inputs
        check_bool(return_per_example, "return_per_example")
        return self.library.score_checked(
            predictions,
            references,
            [t[0] if t else None for t in texts],
            self.config_name,
            options,
            resampling,
            return_per_example,
            default_resamples=default_resamples,
        )

    def compare(self, **kwargs):
        """Paired test of the CLIP scores of two image sets on the same texts (``texts`` required):
        FID is a set-level score without per-example values, so it has no paired test here."""
        if kwargs.get("texts") is None:
            raise ValueError(
                "`texts`: compare() runs a paired test of CLIP scores (one per image-text pair); FID has no "
                "per-example values to pair (use `confidence=` for its bootstrap interval)"
            )
        return super().compare(**kwargs)
