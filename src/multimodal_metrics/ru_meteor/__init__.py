"""METEOR for Russian captions and VQA answers (Fusion Brain 2022) and for English (NLTK).

    from multimodal_metrics import ru_meteor
    r = ru_meteor.score(["две птицы летали над водою"], [["две птицы летают над водой"]], synonyms="none")
    r["meteor"], r.signature, r.per_example

Presets: ``captioning`` (= ``default``: the Fusion Brain 2022 image-captioning scorer), ``vqa`` (its
VisualQA scorer), ``nltk`` (NLTK's ``meteor_score`` for English, WordNet synonyms) and ``ru`` (per-token
lemmas, RuWordNet synset members, a corpus score). WordNet and RuWordNet are read from local files
(``wordnet_path``, ``ruwordnet_path``); ``synonyms="none"`` runs any preset without them. The pure
functions: the formula in :mod:`multimodal_metrics.ru_meteor.core`, the steps before it in ``text``,
``stemmers``, ``synonyms``, ``alignment`` and ``numeric`` beside it.
"""

from .alignment import align
from .core import corpus_meteor, explain, meteor_formula, meteor_per_example
from .scoring import OPTIONS, PRESETS, State, compare, score, score_checked, state
from .synonyms import default_ruwordnet_path, synonym_source
from .text import nltk_tokenize, prepare

__all__ = [
    "OPTIONS",
    "PRESETS",
    "State",
    "align",
    "compare",
    "corpus_meteor",
    "default_ruwordnet_path",
    "explain",
    "meteor_formula",
    "meteor_per_example",
    "nltk_tokenize",
    "prepare",
    "score",
    "score_checked",
    "state",
    "synonym_source",
]
