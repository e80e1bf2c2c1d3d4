"""1 - NED (normalised edit distance), string accuracy and CER for text recognition, as an evaluate module."""

import evaluate
import numpy as np

from ._mm_common import (
    TextPairInputs,
    build_signature,
    check_bool,
    check_choice,
    check_number,
    check_preset,
    make_result,
    mean,
    resolve_options,
)
from ._mm_stats import PairedComparison, Resampling, Statistic
from ._ned_core import BOTH_EMPTY_SCORES, CASE_FOLDS, cer_per_example, corpus_cer, ned_per_example_flat

_CITATION = """\
@misc{fbc2_aij2022,
  title={FusionBrain Challenge 2.0 (AI Journey 2022): evaluation code},
  author={{Sber AI}},
  year={2022},
  howpublished={\\url{https://github.com/ai-forever/fbc2_aij2022}}
}
@misc{fusion_brain_aij2021,
  title={Fusion Brain Challenge (AI Journey 2021): evaluation code},
  author={{Sber AI}},
  year={2021},
  howpublished={\\url{https://github.com/ai-forever/fusion_brain_aij2021}}
}
@inproceedings{liu2019rects,
  title={ICDAR 2019 Robust Reading Challenge on Reading Chinese Text on Signboard},
  author={Liu, Xi and Zhang, Rui and Zhou, Yongsheng and Jiang, Qianyi and Song, Qi and Li, Nan and others},
  booktitle={ICDAR},
  year={2019}
}
"""

_DESCRIPTION = """\
1 - NED scores a recognised text line against its accepted transcriptions with 1 - Levenshtein /
max(len), keeps the best transcription and averages over examples. The default preset reproduces the
official AIJ 2022 FusionBrain "Text Recognition in the Wild" scoring (calculate_NED.py): no
normalisation at all, and a pair where either string is empty scores 0 (two empty strings too).
The result also holds the AIJ 2021 handwritten-text `string_accuracy` (exact string match) and the
corpus character error rate `cer`. Presets `icdar2019` (ReCTS: Latin case-insensitive, full-width =
half-width, two empty strings score 1) and `empty_match` (only the two-empty-strings rule changed)
cover the other conventions; every choice is an option and is recorded in `signature`.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): one recognised text per example.
    references (`list` of `str` or `list` of `list` of `str`): the accepted transcription(s) per example.
    case_fold (`str`, optional): "none" (official, case-sensitive), "latin" (ASCII A-Z folded to
        a-z, ICDAR 2019 ReCTS), "all" (`str.lower()` on every script).
    fullwidth_to_halfwidth (`bool`, optional): treat full-width forms U+FF01..U+FF5E and U+3000 as
        their ASCII counterparts (ICDAR 2019 ReCTS). Default False.
    both_empty (`float`, optional): score of a pair of two empty strings, 0 (official AIJ 2022) or 1
        (ICDAR / mmocr). A pair with one empty string always scores 0.
    confidence (`float`, optional): e.g. 0.95: also return percentile bootstrap intervals of the three
        scores, resampling examples (`cer` recomputed from the resampled edit and length sums).
        Default None (no interval).
    n_resamples (`int`, optional): bootstrap resamples of `confidence`. Default 1000.
    seed (`int`, optional): seed of the resampling (numpy default_rng). Default 12345.
    return_per_example (`bool`, optional): also return the scores of every example. Default False.
Returns:
    one_minus_ned (`float`): mean over examples of the best 1 - NED, in [0, 1].
    string_accuracy (`float`): fraction of examples whose prediction equals a reference exactly
        (after the same normalisation), in [0, 1].
    cer (`float`): corpus character error rate, sum of edit distances to the chosen references over
        the sum of their lengths (at least 1); it can exceed 1.
    one_minus_ned_ci_low, one_minus_ned_ci_high, string_accuracy_ci_low, ..., cer_ci_high (`float`):
        with `confidence`, the bootstrap interval of each score.
    signature (`str`): every option that changes the numbers.
    per_example (`list` of `dict`): with `return_per_example=True`, per example a dict with
        `one_minus_ned`, `string_accuracy` and `cer` (edits / max(1, reference length)).
Examples:
    >>> ned = evaluate.load("metrics/ned")
    >>> r = ned.compute(predictions=["хоп", "abce", "abc"], references=[["хор"], ["abcd", "abce"], ["ABC"]])
    >>> round(r["one_minus_ned"], 4), round(r["string_accuracy"], 4), round(r["cer"], 4)
    (0.5556, 0.3333, 0.4)
    >>> r["signature"]
    'ned|preset:default|case:none|fw2hw:no|empty:0|v:0.1.0'
    >>> ned.compute(predictions=["abc"], references=["ABC"], case_fold="latin")["one_minus_ned"]
    1.0
    >>> ned.compute(predictions=["", "a"], references=["", "b"], return_per_example=True)["per_example"][0]
    {'one_minus_ned': 0.0, 'string_accuracy': 1.0, 'cer': 0.0}
"""

PRESETS = {
    # Official AIJ 2022 FusionBrain calculate_NED.py (seeds_reference.md section 1.6).
    "default": {"case_fold": "none", "fullwidth_to_halfwidth": False, "both_empty": 0.0},
    # ICDAR 2019 ReCTS task rules: Latin case-insensitive, full-width = half-width, "" vs "" = 1.
    "icdar2019": {"case_fold": "latin", "fullwidth_to_halfwidth": True, "both_empty": 1.0},
    # Official AIJ 2022 except that two empty strings score 1 (mmocr OneMinusNormEditDistance).
    "empty_match": {"case_fold": "none", "fullwidth_to_halfwidth": False, "both_empty": 1.0},
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Ned(TextPairInputs, PairedComparison, evaluate.Metric):
    def _info(self):
        check_preset("ned", self.config_name, PRESETS)
        info = evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=self.text_pair_features(),
            homepage="https://github.com/ai-forever/fbc2_aij2022",
            reference_urls=[
                "https://github.com/ai-forever/fusion_brain_aij2021",
                "https://rrc.cvc.uab.es/?ch=12",
                "https://github.com/clovaai/deep-text-recognition-benchmark",
            ],
        )
        # _compute reads the Arrow columns (strings decoded in C, references flat with their counts;
        # see TextPairInputs.text_pairs).
        # Set after construction: MetricInfo refuses a format for non-Value features.
        info.format = "arrow"
        return info

    def _options(self, passed):
        opts = resolve_options("ned", self.config_name, PRESETS, passed)
        opts["case_fold"] = check_choice(opts["case_fold"], CASE_FOLDS, "case_fold")
        opts["fullwidth_to_halfwidth"] = check_bool(opts["fullwidth_to_halfwidth"], "fullwidth_to_halfwidth")
        opts["both_empty"] = check_choice(
            check_number(opts["both_empty"], "both_empty", 0.0, 1.0), BOTH_EMPTY_SCORES, "both_empty"
        )
        return opts

    def _compute(
        self,
        predictions,
        references,
        case_fold=None,
        fullwidth_to_halfwidth=None,
        both_empty=None,
        confidence=None,
        n_resamples=None,
        seed=None,
        return_per_example=False,
    ):
        resampling = Resampling(confidence, n_resamples, seed)
        opts = self._options(
            {"case_fold": case_fold, "fullwidth_to_halfwidth": fullwidth_to_halfwidth, "both_empty": both_empty}
        )
        predictions, flat_references, counts = self.text_pairs(predictions, references)
        per = ned_per_example_flat(predictions, flat_references, counts, **opts)
        ned_scores = per["one_minus_ned"].tolist()
        exact = per["string_accuracy"].tolist()
        signature = build_signature(
            "ned",
            self.config_name,
            {
                "case": opts["case_fold"],
                "fw2hw": opts["fullwidth_to_halfwidth"],
                "empty": opts["both_empty"],
                **resampling.signature_fields(),
            },
        )
        per_example = None
        if return_per_example is True:
            cers = cer_per_example(per["edits"], per["ref_chars"]).tolist()
            per_example = [
                {"one_minus_ned": s, "string_accuracy": e, "cer": c} for s, e, c in zip(ned_scores, exact, cers)
            ]
        values = {
            "one_minus_ned": mean(ned_scores),
            "string_accuracy": mean(exact),
            "cer": corpus_cer(per["edits"], per["ref_chars"]),
        }
        statistic = _statistic(per["one_minus_ned"], per["string_accuracy"], per["edits"], per["ref_chars"])
        return make_result(
            self._with_intervals(values, statistic, resampling, signature),
            signature,
            per_example,
            return_per_example,
        )


def _statistic(one_minus_ned, exact, edits, ref_chars) -> Statistic:
    """Per-example sufficient statistics: the two means, and ``cer`` = sum(edits) / max(1, sum(lengths))."""
    n = len(one_minus_ned)

    def scores(sums):
        return np.stack(
            [sums[..., 0] / max(n, 1), sums[..., 1] / max(n, 1), sums[..., 2] / np.maximum(sums[..., 3], 1.0)],
            axis=-1,
        )

    stats = np.column_stack([one_minus_ned, exact, edits, ref_chars])
    return Statistic(("one_minus_ned", "string_accuracy", "cer"), stats, scores)
