"""Russian text QA: token F1 (AIJ 2022 TextQA) and exact match (AIJ 2022 MathQA) after pymorphy3 lemmatisation.

    from multimodal_metrics import text_qa
    r = text_qa.score(["три кота", "ответ: b"], [["3 кота"], ["a", "b на лошади"]], confidence=0.95)
    r["f1"], r.signature, r.per_example

Presets: ``default`` = ``textqa`` (the official AIJ 2022 TextQA ``calculate_f1.py``), ``mathqa`` (the
official MathQA ``calculate_exact_score.py``: exact match, ``-`` kept), ``plain`` (token F1 without the
[abcde] letter fallback). Needs ``pymorphy3`` and its Russian dictionary at scoring time (imported
inside the functions). The pure functions are in :mod:`multimodal_metrics.text_qa.core`.
"""

from .core import (
    NUMBER_WORDS,
    example_score,
    get_tokens,
    lemmatize,
    lemmatizer_version,
    normalize_answer,
    text_qa_per_example,
    token_f1,
)
from .scoring import OPTIONS, PRESETS, State, compare, score, score_checked, state

__all__ = [
    "NUMBER_WORDS",
    "OPTIONS",
    "PRESETS",
    "State",
    "compare",
    "example_score",
    "get_tokens",
    "lemmatize",
    "lemmatizer_version",
    "normalize_answer",
    "score",
    "score_checked",
    "state",
    "text_qa_per_example",
    "token_f1",
]
