"""Russian text QA: token F1 (AIJ 2022 TextQA) and exact match (AIJ 2022 MathQA), as an evaluate module."""

import evaluate

import multimodal_metrics  # From: "multimodal-metrics[hf,ru]==0.1.0"

text_qa = multimodal_metrics.require("0.1.0", "text_qa")
hf = multimodal_metrics.require("0.1.0", "hf")

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

_KWARGS_DESCRIPTION = (
    hf.text_pair_args(text_qa, "one predicted answer per question", "the accepted answer(s) per question")
    + """\
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
)


@hf.documented(_DESCRIPTION, _KWARGS_DESCRIPTION)
class TextQa(hf.TextPairMetric, evaluate.Metric):
    library = text_qa
