"""CodeBLEU (n-gram, keyword-weighted n-gram, AST and data-flow match) for 10 programming languages, as an evaluate module."""

import evaluate

import multimodal_metrics  # From: "multimodal-metrics[hf,code]==0.1.0"

codebleu = multimodal_metrics.require("0.1.0", "codebleu")
hf = multimodal_metrics.require("0.1.0", "hf")

_DESCRIPTION = """\
CodeBLEU = a*BLEU + b*BLEU_weighted + c*Match_ast + d*Match_df (default 0.25 each): corpus BLEU-4 on
whitespace tokens, a keyword-weighted n-gram match, the share of reference AST subtrees (tree-sitter
s-expressions) found in the candidate, and the share of reference data-flow edges (variable names
normalised) found in the candidate. The default preset reproduces the CodeXGLUE evaluator
(microsoft/CodeXGLUE code-to-code-trans/evaluator/CodeBLEU), quirks included, with the 2020 grammars
(built by `python -m multimodal_metrics.codebleu.build_runtime`; without them it warns and parses with
the grammar wheels, whose numbers differ); `pypi` gives the PyPI `codebleu` 0.7.0 package's numbers
(the grammar wheels), `fusion_brain_2021` the AIJ 2021 Fusion Brain copy, `paper` the paper's weights
0.1/0.1/0.4/0.4 (both with the 2020 grammars). Languages: python, java, javascript, c_sharp, php, c,
cpp, go, ruby, rust (individual tree-sitter grammar wheels; python and java also in the 2020 grammars).
Every convention, the grammars included, is an option recorded in `signature`.
"""

_CONFIDENCE = (
    "e.g. 0.95: also return percentile bootstrap intervals of the 5 scores, resampling code pairs (corpus "
    "scores recomputed from the resampled n-gram, syntax and data-flow counts, not by re-parsing). Default "
    "None (no interval)."
)

_PER_EXAMPLE = (
    "also return a dict of the 5 scores per example (each computed\n        as a corpus of one), plus "
    "`dataflow_limited` (True when a data flow of the example was left out\n        by the work limit). Default False."
)

_KWARGS_DESCRIPTION = (
    hf.text_pair_args(
        codebleu,
        "one generated code snippet per example",
        "the reference snippet(s) per example",
        help={"confidence": _CONFIDENCE},
        per_example=_PER_EXAMPLE,
    )
    + """\
Returns:
    codebleu (`float`): the weighted combination, in [0, 1] when the weights sum to 1.
    ngram_match (`float`), weighted_ngram_match (`float`), syntax_match (`float`), dataflow_match (`float`).
    codebleu_ci_low, codebleu_ci_high, ngram_match_ci_low, ... (`float`): with `confidence`, the
        bootstrap interval of each of the 5 scores.
    signature (`str`): every option that changes the number.
    per_example (`list` of `dict`): with `return_per_example=True`.
Examples:
    >>> codebleu = evaluate.load("metrics/codebleu")
    >>> r = codebleu.compute(predictions=["def add(a, b):\\n    return a + b"],
    ...                      references=["def sum(first, second):\\n    return second + first"], lang="python")
    >>> {k: round(v, 4) for k, v in r.items() if k != "signature"}
    {'codebleu': 0.5233, 'ngram_match': 0.0435, 'weighted_ngram_match': 0.0497, 'syntax_match': 1.0, 'dataflow_match': 1.0}
    >>> r["signature"]
    'codebleu|preset:default|lang:python|w:0.25,0.25,0.25,0.25|kw:codexglue|cmt:java|strip:yes|df0:zero|astclip:no|tok:split|grammar:...|ts:...|v:0.1.0'
    >>> round(codebleu.compute(predictions=["pass"], references=["import os"], lang="python",
    ...                        missing_dataflow="zero_is_one")["codebleu"], 4)
    0.25
"""
)


@hf.documented(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Codebleu(hf.TextPairMetric, evaluate.Metric):
    library = codebleu
