"""VQA accuracy: VQA v2 official, Fusion Brain 2021, TDIUC MPT, WUPS, BLEU-1.

    from multimodal_metrics import vqa_acc
    r = vqa_acc.score(["2", "red"], [["two"] * 3 + ["2"] * 3 + ["three"] * 4, ["red"] + ["blue"] * 9],
                      answer_types=["number", "other"], confidence=0.95)
    r["accuracy"], r.signature, r.per_example
    vqa_acc.score(["red", "2"], ["red", "3"], preset="tdiuc", question_types=["color", "counting"])

Presets: ``default`` = ``vqa_v2`` (GT-Vision-Lab vqaEval.py), ``fusion_brain_2021`` (AIJ 2021 VQA, en/ru),
``tdiuc`` (Kafle & Kanan's mean-per-type accuracies), ``wups`` (Wu-Palmer set similarity on WordNet 3.0),
``bleu1`` (NLTK's unigram BLEU). The pure functions are in :mod:`multimodal_metrics.vqa_acc.core`
(vqa_v2, fusion_brain_2021), ``.tdiuc``, ``.wups`` and ``.bleu``; ``.arrow`` reads evaluate's Arrow columns.
"""

from .core import (
    fusion_brain_per_question,
    normalize_answer,
    process_digit_article,
    process_punctuation,
    vqa_v2_per_question,
)
from .scoring import (
    EXTRA_INPUTS,
    OPTIONS,
    PRESETS,
    SCORERS,
    State,
    check_extra_inputs,
    checked_options,
    compare,
    extra_inputs,
    score,
    score_checked,
    state,
    unknown_inputs,
)

__all__ = [
    "EXTRA_INPUTS",
    "OPTIONS",
    "PRESETS",
    "SCORERS",
    "State",
    "check_extra_inputs",
    "checked_options",
    "compare",
    "extra_inputs",
    "fusion_brain_per_question",
    "normalize_answer",
    "process_digit_article",
    "process_punctuation",
    "score",
    "score_checked",
    "state",
    "unknown_inputs",
    "vqa_v2_per_question",
]
