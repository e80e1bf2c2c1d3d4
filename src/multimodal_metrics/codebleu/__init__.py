r"""CodeBLEU (n-gram, keyword-weighted n-gram, AST and data-flow match) for 10 programming languages.

    from multimodal_metrics import codebleu
    r = codebleu.score(["def add(a, b):\n    return a + b"], ["def sum(x, y):\n    return y + x"], lang="python")
    r["codebleu"], r["syntax_match"], r.signature

Presets: ``default`` (the CodeXGLUE evaluator, quirks included), ``paper`` (weights 0.1/0.1/0.4/0.4),
``pypi`` / ``k4black`` (the PyPI ``codebleu`` 0.7.0 package), ``fusion_brain_2021`` (the AIJ 2021 copy).
The formula is :mod:`multimodal_metrics.codebleu.corpus` (``corpus_codebleu``), over its parts in
``keywords``, ``trees``, ``dataflow``, ``dataflow_walk`` and ``ngrams``. The ``grammar_library`` option parses with
the tree-sitter runtime of 2020 (:mod:`multimodal_metrics.codebleu.legacy_runtime`), built once with
``python -m multimodal_metrics.codebleu.build_runtime``. tree-sitter is imported on first use only.
"""

from .corpus import KEYS, corpus_codebleu
from .keywords import KEYWORDS, LANGUAGES, keywords_for, remove_comments
from .scoring import OPTIONS, PRESETS, State, compare, score, score_checked, state

__all__ = [
    "KEYS",
    "KEYWORDS",
    "LANGUAGES",
    "OPTIONS",
    "PRESETS",
    "State",
    "compare",
    "corpus_codebleu",
    "keywords_for",
    "remove_comments",
    "score",
    "score_checked",
    "state",
]
