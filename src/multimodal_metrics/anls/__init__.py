"""ANLS (Average Normalized Levenshtein Similarity) for DocVQA / InfographicVQA / ST-VQA answers.

    from multimodal_metrics import anls
    r = anls.score(["reciept"], [["receipt"]], preset="default", confidence=0.95)
    r["anls"], r.signature, r.per_example

Presets: ``default`` (the official RRC DocVQA / InfographicVQA script), ``stvqa`` (the ST-VQA paper and
the PyPI ``anls`` package), ``layoutlmv2`` (the widely copied eval_docvqa.py snippet). The pure
functions are in :mod:`multimodal_metrics.anls.core`.
"""

from .core import anls_per_question, anls_per_question_flat, normalize_text, pair_similarities
from .scoring import OPTIONS, PRESETS, State, compare, score, score_checked, state

__all__ = [
    "OPTIONS",
    "PRESETS",
    "State",
    "anls_per_question",
    "anls_per_question_flat",
    "compare",
    "normalize_text",
    "pair_similarities",
    "score",
    "score_checked",
    "state",
]
