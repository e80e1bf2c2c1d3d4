"""Russian text QA: token F1 (AIJ 2022 TextQA) and exact match (AIJ 2022 MathQA), as an evaluate module."""

import evaluate

from ._mm_common import (
    TextPairInputs,
    build_signature,
    check_bool,
    check_choice,
    check_preset,
    make_result,
    mean,
    resolve_options,
)
from ._mm_stats import PairedComparison, Resampling, mean_statistic
from ._text_qa_core import MEASURES, lemmatizer_version, text_qa_per_example

_CITATION = """\
@misc{fbc2_aij2022,
  title={FusionBrain Challenge 2.0 (AI Journey 2022): evaluation code},
  author={{Sber AI}},
  year={2022},
  howpublished={\\url{https://github.com/ai-forever/fbc2_aij2022}}
}
@inproceedings{rajpurkar2016squad,
  title={SQuAD: 100,000+ Questions for Machine Comprehension of Text},
  author={Rajpurkar, Pranav and Zhang, Jian and Lopyrev, Konstantin and Liang, Percy},
  booktitle={EMNLP},
  year={2016}
}
"""

_DESCRIPTION = """\
Scores short Russian (or mixed) answers against their accepted answers the way the AIJ 2022
FusionBrain Challenge 2.0 did: lower-case, delete ASCII punctuation, lemmatise every token with
pymorphy3 and map Russian number words to digits, then SQuAD-style token F1 (preset `textqa`, the
default, sub-task TextQA) or exact match (preset `mathqa`, sub-task MathQA, which keeps `-`), the max
over the accepted answers, averaged over examples. Both official scripts add a letter fallback: when
an example scores <= 0.5 and the raw prediction contains one of the Latin letters a-e, the prediction
is replaced by the first such letter and re-scored (the score can go down). It is the option
`letter_fallback`; preset `plain` is token F1 without it. Every choice is recorded in `signature`.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): one predicted answer per question.
    references (`list` of `str` or `list` of `list` of `str`): the accepted answer(s) per question.
    measure (`str`, optional): "f1" (token F1, TextQA) or "exact_match" (MathQA). It names the result key.
    keep_hyphen (`bool`, optional): keep `-` when deleting ASCII punctuation (MathQA: negative numbers).
    letter_fallback (`bool`, optional): the official [abcde] fallback for scores <= 0.5 (see above).
    confidence (`float`, optional): e.g. 0.95: also return the percentile bootstrap interval of the
        score, resampling questions. Default None (no interval).
    n_resamples (`int`, optional): bootstrap resamples of `confidence`. Default 1000.
    seed (`int`, optional): seed of the resampling (numpy default_rng). Default 12345.
    return_per_example (`bool`, optional): also return the score of every question. Default False.
Returns:
    f1 or exact_match (`float`): mean over questions of the best score over accepted answers, in [0, 1].
    f1_ci_low, f1_ci_high (or exact_match_ci_low, ...) (`float`): with `confidence`, its bootstrap interval.
    signature (`str`): every option that changes the number, and the lemmatiser version.
    per_example (`list` of `float`): with `return_per_example=True`, one score per question.
Examples:
    >>> text_qa = evaluate.load("metrics/text_qa")
    >>> r = text_qa.compute(predictions=["улица Авиаконструктора Сухого", "три кота", "ответ: b"],
    ...                     references=[["Авиаконструктора Сухого"], ["3 кота"], ["a", "b на лошади"]])
    >>> round(r["f1"], 4), r["signature"].split("|")[:5]
    (0.7667, ['text_qa', 'preset:default', 'measure:f1', 'hyphen:no', 'fallback:yes'])
    >>> text_qa.compute(predictions=["ответ: b"], references=[["a", "b на лошади"]], letter_fallback=False)["f1"]
    0.4
    >>> mathqa = evaluate.load("metrics/text_qa", "mathqa")
    >>> mathqa.compute(predictions=["d) -3", "3", "answer is d"], references=[["d -3"], ["-3"], ["d"]])["exact_match"]
    0.3333333333333333
"""

PRESETS = {
    # Official AIJ 2022 TextQA calculate_f1.py (seeds_reference.md 1.1).
    "default": {"measure": "f1", "keep_hyphen": False, "letter_fallback": True},
    "textqa": {"measure": "f1", "keep_hyphen": False, "letter_fallback": True},
    # Official AIJ 2022 MathQA calculate_exact_score.py (seeds_reference.md 1.2).
    "mathqa": {"measure": "exact_match", "keep_hyphen": True, "letter_fallback": True},
    # TextQA normalisation and token F1 without the [abcde] letter fallback.
    "plain": {"measure": "f1", "keep_hyphen": False, "letter_fallback": False},
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class TextQa(TextPairInputs, PairedComparison, evaluate.Metric):
    def _info(self):
        check_preset("text_qa", self.config_name, PRESETS)
        info = evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=self.text_pair_features(),
            homepage="https://github.com/ai-forever/fbc2_aij2022",
            reference_urls=["https://github.com/no-plagiarism/pymorphy3", "https://arxiv.org/abs/1606.05250"],
        )
        # _compute reads the Arrow columns (strings decoded in C; see TextPairInputs.text_pair_lists).
        # Set after construction: MetricInfo refuses a format for non-Value features.
        info.format = "arrow"
        return info

    def _options(self, passed):
        opts = resolve_options("text_qa", self.config_name, PRESETS, passed)
        opts["measure"] = check_choice(opts["measure"], MEASURES, "measure")
        check_bool(opts["keep_hyphen"], "keep_hyphen")
        check_bool(opts["letter_fallback"], "letter_fallback")
        return opts

    def _compute(
        self,
        predictions,
        references,
        measure=None,
        keep_hyphen=None,
        letter_fallback=None,
        confidence=None,
        n_resamples=None,
        seed=None,
        return_per_example=False,
    ):
        resampling = Resampling(confidence, n_resamples, seed)
        opts = self._options({"measure": measure, "keep_hyphen": keep_hyphen, "letter_fallback": letter_fallback})
        lemmatizer = lemmatizer_version()
        predictions, references = self.text_pair_lists(predictions, references)
        scores = text_qa_per_example(predictions, references, **opts)
        signature = build_signature(
            "text_qa",
            self.config_name,
            {
                "measure": opts["measure"],
                "hyphen": opts["keep_hyphen"],
                "fallback": opts["letter_fallback"],
                "lemma": lemmatizer,
                **resampling.signature_fields(),
            },
        )
        key = opts["measure"]
        values = self._with_intervals({key: mean(scores)}, mean_statistic({key: scores}), resampling, signature)
        return make_result(values, signature, scores, return_per_example)
