"""CodeBLEU (n-gram, keyword-weighted n-gram, AST and data-flow match) for 10 programming languages, as an evaluate module."""

import math
import os
import warnings

import evaluate
import numpy as np

from ._codebleu_core import (
    COMMENT_RULES,
    DATAFLOW_WORK_PER_TOKEN,
    EPSILON,
    KEYS,
    KEYWORD_SETS,
    LANGUAGES,
    MAX_PRINT_DEPTH,
    MISSING_DATAFLOW,
    corpus_codebleu,
)
from ._mm_common import (
    TextPairInputs,
    build_signature,
    check_bool,
    check_choice,
    check_number,
    check_preset,
    make_result,
    resolve_options,
)
from ._mm_stats import PairedComparison, Resampling, Statistic, bleu, ratio
from ._ts_legacy import open_library

_CITATION = """\
@article{ren2020codebleu,
  title={CodeBLEU: a Method for Automatic Evaluation of Code Synthesis},
  author={Ren, Shuo and Guo, Daya and Lu, Shuai and Zhou, Long and Liu, Shujie and Tang, Duyu and Sundaresan, Neel
          and Zhou, Ming and Blanco, Ambrosio and Ma, Shuai},
  journal={arXiv preprint arXiv:2009.10297},
  year={2020}
}
@article{lu2021codexglue,
  title={CodeXGLUE: A Machine Learning Benchmark Dataset for Code Understanding and Generation},
  author={Lu, Shuai and Guo, Daya and Ren, Shuo and others},
  journal={arXiv preprint arXiv:2102.04664},
  year={2021}
}
"""

_DESCRIPTION = """\
CodeBLEU = a*BLEU + b*BLEU_weighted + c*Match_ast + d*Match_df (default 0.25 each): corpus BLEU-4 on
whitespace tokens, a keyword-weighted n-gram match, the share of reference AST subtrees (tree-sitter
s-expressions) found in the candidate, and the share of reference data-flow edges (variable names
normalised) found in the candidate. The default preset reproduces the CodeXGLUE evaluator
(microsoft/CodeXGLUE code-to-code-trans/evaluator/CodeBLEU), quirks included; `pypi` reproduces the
PyPI `codebleu` 0.7.0 package, `fusion_brain_2021` the AIJ 2021 Fusion Brain copy, `paper` uses the
paper's weights 0.1/0.1/0.4/0.4. Languages: python, java, javascript, c_sharp, php, c, cpp, go, ruby,
rust (individual tree-sitter grammar wheels). Every convention is an option recorded in `signature`.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): one generated code snippet per example.
    references (`list` of `str` or `list` of `list` of `str`): the reference snippet(s) per example.
    lang (`str`): programming language, one of python, java, javascript, c_sharp, php, c, cpp, go, ruby,
        rust. Required (no default) except in the `fusion_brain_2021` preset (python).
    weights (`list` of 4 `float`, optional): weights of ngram_match, weighted_ngram_match,
        syntax_match, dataflow_match. Default [0.25, 0.25, 0.25, 0.25] (`paper` preset: 0.1, 0.1, 0.4, 0.4).
        Finite, >= 0, not all 0, with a finite sum; a 1-D numpy array is accepted.
    keywords (`str`, optional): keyword lists of the weighted n-gram match: "codexglue" (python: the 35
        keywords of 2020) or "pypi" (python: 38, adds match/case/type). Other languages: same lists.
    remove_comments (`str`, optional): comment removal before the AST and data-flow matches: "java"
        (CodeXGLUE: C-style comments removed whatever the language), "lang" (PyPI codebleu: per
        language, python docstrings too), "none" (AIJ 2021).
    strip (`bool`, optional): strip leading/trailing whitespace of every snippet first (CodeXGLUE reads
        one stripped line per example; PyPI strips; AIJ does not).
    missing_dataflow (`str`, optional): "zero" (CodeXGLUE/AIJ: a corpus without reference data flow
        scores 0 on that component, with a warning), "one" (it counts as 1 in the combination),
        "zero_is_one" (PyPI `or 1`: any data-flow score of 0 counts as 1 in the combination).
        The `dataflow_match` key always shows the measured value.
    ast_clipping (`bool`, optional): False (reference code: a reference subtree counts when it occurs
        anywhere in the candidate), True (the paper's clipped count min(count_ref, count_cand)).
    grammar_library (`str` or path, optional): a tree-sitter grammar library (shared object exporting
        `tree_sitter_<lang>`, language ABI 9 to 12), parsed with the tree-sitter runtime of 2020 (the C core
        of py-tree-sitter 0.2.0, built by `bash scripts/setup_env.sh`) for the AST and data-flow matches.
        With the `my-languages.so` that CodeXGLUE and Fusion Brain 2021 ship, the `default` and
        `fusion_brain_2021` presets give the official numbers exactly. Recorded in the signature as
        `grammar:<file name>@<sha256 prefix>`. Default: the grammar wheels of tree-sitter 0.26.
    confidence (`float`, optional): e.g. 0.95: also return percentile bootstrap intervals of the 5 scores,
        resampling code pairs (corpus scores recomputed from the resampled n-gram, syntax and data-flow
        counts, not by re-parsing). Default None (no interval).
    n_resamples (`int`, optional): bootstrap resamples of `confidence`. Default 1000.
    seed (`int`, optional): seed of the resampling (numpy default_rng). Default 12345.
    return_per_example (`bool`, optional): also return a dict of the 5 scores per example (each computed
        as a corpus of one), plus `dataflow_limited` (True when a data flow of the example was left out
        by the work limit). Default False.
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
    'codebleu|preset:default|lang:python|w:0.25,0.25,0.25,0.25|kw:codexglue|cmt:java|strip:yes|df0:zero|astclip:no|tok:split|v:0.1.0'
    >>> round(codebleu.compute(predictions=["pass"], references=["import os"], lang="python",
    ...                        missing_dataflow="zero_is_one")["codebleu"], 4)
    0.25
"""

PRESETS = {
    # microsoft/CodeXGLUE Code-Code/code-to-code-trans/evaluator/CodeBLEU (calc_code_bleu.py).
    "default": {
        "lang": None,
        "weights": [0.25, 0.25, 0.25, 0.25],
        "keywords": "codexglue",
        "remove_comments": "java",
        "strip": True,
        "missing_dataflow": "zero",
        "ast_clipping": False,
        "grammar_library": None,
    },
    # Same code, the paper's recommended weights (Ren et al. 2020, section 4).
    "paper": {
        "lang": None,
        "weights": [0.1, 0.1, 0.4, 0.4],
        "keywords": "codexglue",
        "remove_comments": "java",
        "strip": True,
        "missing_dataflow": "zero",
        "ast_clipping": False,
        "grammar_library": None,
    },
    # PyPI `codebleu` 0.7.0 (k4black/codebleu): calc_codebleu(references, predictions, lang).
    "pypi": {
        "lang": None,
        "weights": [0.25, 0.25, 0.25, 0.25],
        "keywords": "pypi",
        "remove_comments": "lang",
        "strip": True,
        "missing_dataflow": "zero_is_one",
        "ast_clipping": False,
        "grammar_library": None,
    },
    # ai-forever/fusion_brain_aij2021 evaluation/C2C_codeBLEU (python target, pseudo-code tokens).
    "fusion_brain_2021": {
        "lang": "python",
        "weights": [0.25, 0.25, 0.25, 0.25],
        "keywords": "codexglue",
        "remove_comments": "none",
        "strip": False,
        "missing_dataflow": "zero",
        "ast_clipping": False,
        "grammar_library": None,
    },
}
PRESETS["k4black"] = dict(PRESETS["pypi"])


def _check_weights(weights) -> list:
    """4 finite weights >= 0, not all 0, whose sum is finite (the score is at most their sum); a
    list, tuple or 1-D numpy array."""
    if type(weights).__module__ == "numpy" and getattr(weights, "ndim", None) == 1:
        weights = weights.tolist()
    if isinstance(weights, str | bytes) or not isinstance(weights, list | tuple) or len(weights) != 4:
        raise TypeError(f"`weights` must be a list of 4 numbers (ngram, weighted, syntax, dataflow), got {weights!r:.80}")
    values = [check_number(w, f"weights[{i}]", 0.0, None) for i, w in enumerate(weights)]
    total = sum(values)
    if total == 0:
        raise ValueError("`weights` must not all be 0 (the score would be 0 whatever the code)")
    if math.isinf(total):
        raise ValueError(f"`weights` must sum to a finite number (the score is at most their sum), got {weights!r:.80}")
    return values


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Codebleu(TextPairInputs, PairedComparison, evaluate.Metric):
    def _info(self):
        check_preset("codebleu", self.config_name, PRESETS)
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=self.text_pair_features(),
            homepage="https://github.com/microsoft/CodeXGLUE/tree/main/Code-Code/code-to-code-trans/evaluator/CodeBLEU",
            reference_urls=["https://arxiv.org/abs/2009.10297", "https://github.com/k4black/codebleu"],
        )

    def _options(self, passed):
        return check_codebleu_options(resolve_options("codebleu", self.config_name, PRESETS, passed))

    def _compute(
        self,
        predictions,
        references,
        lang=None,
        weights=None,
        keywords=None,
        remove_comments=None,
        strip=None,
        missing_dataflow=None,
        ast_clipping=None,
        grammar_library=None,
        confidence=None,
        n_resamples=None,
        seed=None,
        return_per_example=False,
    ):
        resampling = Resampling(confidence, n_resamples, seed)
        opts = self._options(
            {
                "lang": lang,
                "weights": weights,
                "keywords": keywords,
                "remove_comments": remove_comments,
                "strip": strip,
                "missing_dataflow": missing_dataflow,
                "ast_clipping": ast_clipping,
                "grammar_library": grammar_library,
            },
        )
        check_bool(return_per_example, "return_per_example")
        trees = opts.pop("grammar_library")
        if trees is not None:
            trees = open_library(trees, LANGUAGES)
            trees.parser(opts["lang"])  # a library without this language: ValueError before any work
        references = [[refs] if isinstance(refs, str) else list(refs) for refs in references]
        scores, per_example, notes = corpus_codebleu(
            list(predictions), references, per_example=return_per_example, trees=trees, **opts
        )
        _warn(notes, opts["lang"])
        signature = build_signature(
            "codebleu",
            self.config_name,
            {
                "lang": opts["lang"],
                "w": opts["weights"],
                "kw": opts["keywords"],
                "cmt": opts["remove_comments"],
                "strip": opts["strip"],
                "df0": opts["missing_dataflow"],
                "astclip": opts["ast_clipping"],
                "tok": "split",
                **({"grammar": trees.label()} if trees is not None else {}),
                **resampling.signature_fields(),
            },
        )
        statistic = _statistic(notes["stats"], opts["weights"], opts["missing_dataflow"])
        values = self._with_intervals({key: scores[key] for key in KEYS}, statistic, resampling, signature)
        return make_result(values, signature, per_example, return_per_example)


def _statistic(stats, weights, missing_dataflow: str) -> Statistic:
    """CodeBLEU and its four components from pooled per-example counts (columns of
    `_codebleu_core.STATS_COLUMNS`): corpus BLEU with CodeXGLUE's 0.1 floor for the two n-gram
    components, pooled match ratios for syntax and data flow, combined like `_codebleu_core.combine`."""
    a, b, c, d = weights

    def scores(s):
        ngram = bleu(s[..., 0:4], s[..., 4:8], s[..., 8], s[..., 9], zero_floor=EPSILON)
        weighted = bleu(s[..., 10:14], s[..., 14:18], s[..., 18], s[..., 19], zero_floor=EPSILON)
        syntax = ratio(s[..., 20], s[..., 21])
        dataflow = ratio(s[..., 22], s[..., 23])
        counted = dataflow
        if missing_dataflow == "one":
            counted = np.where(s[..., 23] == 0, 1.0, dataflow)
        elif missing_dataflow == "zero_is_one":
            counted = np.where(dataflow == 0, 1.0, dataflow)
        total = a * ngram + b * weighted + c * syntax + d * counted
        return np.stack([total, ngram, weighted, syntax, dataflow], axis=-1)

    return Statistic(KEYS, stats, scores)


def check_codebleu_options(opts: dict) -> dict:
    """Validate resolved options (unknown language / bad weights -> ValueError/TypeError)."""
    if opts["lang"] is None:
        raise ValueError(f"`lang` is required: one of {list(LANGUAGES)} (e.g. compute(..., lang='python'))")
    check_choice(opts["lang"], LANGUAGES, "lang")
    opts["weights"] = _check_weights(opts["weights"])
    check_choice(opts["keywords"], KEYWORD_SETS, "keywords")
    check_choice(opts["remove_comments"], COMMENT_RULES, "remove_comments")
    check_choice(opts["missing_dataflow"], MISSING_DATAFLOW, "missing_dataflow")
    check_bool(opts["strip"], "strip")
    check_bool(opts["ast_clipping"], "ast_clipping")
    library = opts.get("grammar_library")
    if library is not None and not isinstance(library, str | os.PathLike):
        raise TypeError(f"`grammar_library` must be a path to a tree-sitter shared library, got {library!r}")
    return opts


def _warn(notes: dict, lang: str) -> None:
    for key, arg in (("bad_predictions", "predictions"), ("bad_references", "references")):
        idx = notes[key]
        if idx:
            shown = ", ".join(str(i) for i in idx[:10]) + (", ..." if len(idx) > 10 else "")
            warnings.warn(
                f"codebleu: {len(idx)} of the `{arg}` do not parse cleanly as {lang} (indices {shown}); "
                "tree-sitter recovered with ERROR/MISSING nodes and they were scored as parsed",
                stacklevel=3,
            )
    for key, arg in (("limited_predictions", "predictions"), ("limited_references", "references")):
        idx = notes[key]
        if idx:
            shown = ", ".join(str(i) for i in idx[:10]) + (", ..." if len(idx) > 10 else "")
            warnings.warn(
                f"codebleu: the data flow of {len(idx)} of the `{arg}` (indices {shown}) was left out: "
                f"extracting it would exceed the work limit ({DATAFLOW_WORK_PER_TOKEN} units per token; deeply "
                "nested loops cost 2^depth, chained assignments quadratic); they count as code without data "
                "flow, and their per-example results say dataflow_limited=True",
                stacklevel=3,
            )
    if notes["unprinted"]:
        idx = notes["unprinted"]
        warnings.warn(
            f"codebleu: examples {', '.join(str(i) for i in idx[:10])}{', ...' if len(idx) > 10 else ''} hold a "
            f"tree-sitter error-recovery subtree nested more than {MAX_PRINT_DEPTH} levels deep over a hidden "
            "MISSING token; it is compared without that token (the reference's printer would crash there)",
            stacklevel=3,
        )
    if notes["no_dataflow"]:
        warnings.warn(
            "codebleu: no data flow was extracted from any reference; dataflow_match is 0 "
            "(see the `missing_dataflow` option)",
            stacklevel=3,
        )
