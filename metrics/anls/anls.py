"""ANLS (Average Normalized Levenshtein Similarity) for DocVQA / InfographicVQA / ST-VQA, as an evaluate module."""

import evaluate

import multimodal_metrics  # From: "multimodal-metrics[hf]==0.1.0"

anls = multimodal_metrics.require("0.1.0", "anls")
hf = multimodal_metrics.require("0.1.0", "hf")

_DESCRIPTION = """\
ANLS scores a predicted answer against the accepted answers of a question with the normalised
Levenshtein similarity s = 1 - NL, keeps the best answer, sets scores below a threshold (0.5) to 0,
and averages over questions. The default preset reproduces the official RRC scoring script of
DocVQA / InfographicVQA (lower-case, strip and collapse whitespace for the distance, length
normaliser over the raw strings, a score of exactly 0.5 is kept). Presets `stvqa` (the ST-VQA paper
and the PyPI `anls` package: NL < 0.5 strictly) and `layoutlmv2` (the widely copied eval_docvqa.py
snippet) reproduce the other conventions; every choice is an option and is recorded in `signature`.
"""

_KWARGS_DESCRIPTION = (
    hf.text_pair_args(anls, "one predicted answer per question", "the accepted answer(s) per question")
    + """\
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
)


@hf.documented(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Anls(hf.TextPairMetric, evaluate.Metric):
    library = anls
