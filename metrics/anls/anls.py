"""ANLS (Average Normalized Levenshtein Similarity) for DocVQA / InfographicVQA / ST-VQA, as an evaluate module."""

import evaluate

from ._anls_core import BOUNDARIES, LENGTH_NORMS, TEXT_NORMS, anls_per_question_flat
from ._mm_common import (
    TextPairInputs,
    build_signature,
    check_choice,
    check_number,
    check_preset,
    make_result,
    mean,
    resolve_options,
)
from ._mm_stats import PairedComparison, Resampling, mean_statistic

_CITATION = """\
@inproceedings{biten2019scene,
  title={Scene Text Visual Question Answering},
  author={Biten, Ali Furkan and Tito, Ruben and Mafla, Andres and Gomez, Lluis and Rusinol, Mar{\\c{c}}al
          and Valveny, Ernest and Jawahar, C. V. and Karatzas, Dimosthenis},
  booktitle={ICCV},
  year={2019}
}
@inproceedings{mathew2021docvqa,
  title={DocVQA: A Dataset for VQA on Document Images},
  author={Mathew, Minesh and Karatzas, Dimosthenis and Jawahar, C. V.},
  booktitle={WACV},
  year={2021}
}
"""

_DESCRIPTION = """\
ANLS scores a predicted answer against the accepted answers of a question with the normalised
Levenshtein similarity s = 1 - NL, keeps the best answer, sets scores below a threshold (0.5) to 0,
and averages over questions. The default preset reproduces the official RRC scoring script of
DocVQA / InfographicVQA (lower-case, strip and collapse whitespace for the distance, length
normaliser over the raw strings, a score of exactly 0.5 is kept). Presets `stvqa` (the ST-VQA paper
and the PyPI `anls` package: NL < 0.5 strictly) and `layoutlmv2` (the widely copied eval_docvqa.py
snippet) reproduce the other conventions; every choice is an option and is recorded in `signature`.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): one predicted answer per question.
    references (`list` of `str` or `list` of `list` of `str`): the accepted answer(s) per question.
    threshold (`float`, optional): similarity threshold t in [0, 1]; a score that does not pass it
        becomes 0. Default 0.5. (The paper's tau on the distance NL equals 1 - t.)
    boundary (`str`, optional): "inclusive" keeps s >= t (official RRC), "strict" keeps s > t
        (ST-VQA paper, PyPI `anls`, layoutlmv2 snippet).
    text_norm (`str`, optional): "ws+lower" (strip, lower-case, collapse whitespace), "lower", "none".
    length_norm (`str`, optional): "raw_upper" (max len(x.upper()) over raw strings, official),
        "normalized_upper" (same over normalised strings, PyPI `anls`), "raw" (max len over raw strings).
    confidence (`float`, optional): e.g. 0.95: also return the percentile bootstrap interval of `anls`,
        resampling questions. Default None (no interval).
    n_resamples (`int`, optional): bootstrap resamples of `confidence`. Default 1000.
    seed (`int`, optional): seed of the resampling (numpy default_rng). Default 12345.
    return_per_example (`bool`, optional): also return the score of every question. Default False.
Returns:
    anls (`float`): mean score over questions, in [0, 1].
    anls_ci_low, anls_ci_high (`float`): with `confidence`, the bootstrap interval of `anls`.
    signature (`str`): every option that changes the number.
    per_example (`list` of `float`): with `return_per_example=True`, one score per question.
Examples:
    >>> anls = evaluate.load("metrics/anls")
    >>> r = anls.compute(predictions=["hello world", "ac", "xyz"],
    ...                  references=[["Hello World"], ["ab"], ["abc"]])
    >>> round(r["anls"], 4), r["signature"]
    (0.5, 'anls|preset:default|thr:0.5|bound:inclusive|norm:ws+lower|len:raw_upper|v:0.1.0')
    >>> anls.compute(predictions=["ac"], references=["ab"], boundary="strict")["anls"]
    0.0
    >>> r = anls.compute(predictions=["a", "b", "c", "d"], references=["a", "b", "c", "x"], confidence=0.9)
    >>> r["anls"], r["anls_ci_low"], r["anls_ci_high"], r["signature"].split("|")[-5:]
    (0.75, 0.25, 1.0, ['ci:bs-pct', 'conf:0.9', 'bs:1000', 'seed:12345', 'v:0.1.0'])
"""

PRESETS = {
    # Official RRC DocVQA / InfographicVQA scoring script (seeds_reference.md section 4).
    "default": {"threshold": 0.5, "boundary": "inclusive", "text_norm": "ws+lower", "length_norm": "raw_upper"},
    # ST-VQA paper formula as implemented by the PyPI `anls` 0.0.2 package.
    "stvqa": {"threshold": 0.5, "boundary": "strict", "text_norm": "ws+lower", "length_norm": "normalized_upper"},
    # herobd/layoutlmv2 eval_docvqa.py, the snippet quoted in seed 004.
    "layoutlmv2": {"threshold": 0.5, "boundary": "strict", "text_norm": "lower", "length_norm": "raw"},
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Anls(TextPairInputs, PairedComparison, evaluate.Metric):
    def _info(self):
        check_preset("anls", self.config_name, PRESETS)
        info = evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=self.text_pair_features(),
            homepage="https://rrc.cvc.uab.es/?ch=17",
            reference_urls=["https://arxiv.org/abs/1905.13648", "https://arxiv.org/abs/2007.00398"],
        )
        # _compute reads the Arrow columns (strings decoded in C, references flat with their counts;
        # see TextPairInputs.text_pairs).
        # Set after construction: MetricInfo refuses a format for non-Value features.
        info.format = "arrow"
        return info

    def _options(self, passed):
        opts = resolve_options("anls", self.config_name, PRESETS, passed)
        opts["threshold"] = check_number(opts["threshold"], "threshold", 0.0, 1.0)
        opts["boundary"] = check_choice(opts["boundary"], BOUNDARIES, "boundary")
        opts["text_norm"] = check_choice(opts["text_norm"], TEXT_NORMS, "text_norm")
        opts["length_norm"] = check_choice(opts["length_norm"], LENGTH_NORMS, "length_norm")
        return opts

    def _compute(
        self,
        predictions,
        references,
        threshold=None,
        boundary=None,
        text_norm=None,
        length_norm=None,
        confidence=None,
        n_resamples=None,
        seed=None,
        return_per_example=False,
    ):
        resampling = Resampling(confidence, n_resamples, seed)
        opts = self._options(
            {"threshold": threshold, "boundary": boundary, "text_norm": text_norm, "length_norm": length_norm}
        )
        predictions, flat_references, counts = self.text_pairs(predictions, references)
        scores = anls_per_question_flat(predictions, flat_references, counts, **opts).tolist()
        signature = build_signature(
            "anls",
            self.config_name,
            {
                "thr": opts["threshold"],
                "bound": opts["boundary"],
                "norm": opts["text_norm"],
                "len": opts["length_norm"],
                **resampling.signature_fields(),
            },
        )
        values = self._with_intervals({"anls": mean(scores)}, mean_statistic({"anls": scores}), resampling, signature)
        return make_result(values, signature, scores, return_per_example)
