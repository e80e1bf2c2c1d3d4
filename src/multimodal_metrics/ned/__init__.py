"""1 - NED (normalised edit distance), string accuracy and CER for text recognition (OCR / HTR).

    from multimodal_metrics import ned
    r = ned.score(["хоп", "abce"], [["хор"], ["abcd", "abce"]], preset="default", confidence=0.95)
    r["one_minus_ned"], r["string_accuracy"], r["cer"], r.signature, r.per_example

Presets: ``default`` (the official AIJ 2022 FusionBrain ``calculate_NED.py``), ``icdar2019`` (ICDAR 2019
ReCTS: Latin case-insensitive, full-width = half-width, two empty strings score 1), ``empty_match``
(AIJ 2022 with two empty strings scoring 1). The pure functions are in :mod:`multimodal_metrics.ned.core`.
"""

from .core import cer_per_example, corpus_cer, ned_per_example, ned_per_example_flat, normalize, pair_scores
from .scoring import OPTIONS, PRESETS, State, compare, score, score_checked, state

__all__ = [
    "OPTIONS",
    "PRESETS",
    "State",
    "cer_per_example",
    "compare",
    "corpus_cer",
    "ned_per_example",
    "ned_per_example_flat",
    "normalize",
    "pair_scores",
    "score",
    "score_checked",
    "state",
]
