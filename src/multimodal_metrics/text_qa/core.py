"""Pure functions behind the text_qa metric (no evaluate, no state): usable on their own.

AIJ 2022 FusionBrain Challenge 2.0, sub-tasks 1 (TextQA, token F1: ``ai-forever/fbc2_aij2022:
evaluation/textqa/metric/calculate_f1.py``) and 2 (MathQA, exact match: ``evaluation/mathqa/metric/
calculate_exact_score.py``), reproduced exactly (seeds_reference.md 1.1, 1.2):

``normalize_answer(s)``, in this order:
    1. ``s.lower()``;
    2. delete every character of Python's ``string.punctuation`` (the 32 ASCII characters; MathQA keeps
       ``-``). Non-ASCII punctuation (« » — … “ ”) is NOT removed;
    3. split on whitespace; each token -> its pymorphy lemma ``MorphAnalyzer(lang="ru").parse(tok)[0]
       .normal_form`` (the official code uses pymorphy2, which does not import on Python >= 3.11;
       pymorphy3 gives the same lemmas), then the Russian number-word map (ноль/нисколько/никакой -> 0,
       один -> 1, ..., десять -> 10);
    4. re-join with single spaces.

Per pair (gold, prediction):
    * ``f1``: SQuAD-style token F1 on ``normalize_answer(.).split()``: common = multiset intersection;
      if either token list is empty -> 1 if both are empty else 0; common = 0 -> 0; else
      P = common/|pred|, R = common/|gold|, F1 = 2PR/(P+R).
    * ``exact_match``: 1 if the normalised strings are equal, else 0.

Per example: the max over the gold options. Letter fallback (``letter_fallback=True``, official): when
that score is <= 0.5, ``re.search("[abcde]", raw_prediction)`` on the RAW prediction (not lower-cased,
Latin only, may hit a letter inside any word, e.g. the "a" of "answer"); if found, the prediction is
replaced by that single letter and the score recomputed as the max over golds, unconditionally
replacing the old score (even when lower). Aggregate: the mean over examples.

Lemmas are cached per token (``functools.lru_cache``), the analyzer is created once, lazily;
pymorphy3 is imported inside the functions. The number-word map and the lemma of the most probable
parse (with the workaround for letters without a Unicode name) are the shared
:mod:`multimodal_metrics.resources.russian`.
"""

import functools
import re
import string
from collections import Counter

# manualMap_ru of AIJ 2022 TextQA (seeds 000/001, evaluation/textqa/metric/calculate_f1.py;
# seeds_reference.md 1.1), applied to the lemma of every token: the 13 entries that vqa_acc's and
# ru_meteor's official scripts share, declared once in resources/russian.py. `NUMBER_WORDS` stays a
# name of this module (the same dict).
from ..resources.russian import NUMBER_WORDS, first_lemma
from ..results import mean

MEASURES = ("f1", "exact_match")

_DELETE_PUNCT = str.maketrans("", "", string.punctuation)
_DELETE_PUNCT_KEEP_HYPHEN = str.maketrans("", "", string.punctuation.replace("-", ""))
# The same deletions as one regular expression each: str.translate with a dict table looks every
# character up (~0.3 us per character of Cyrillic text), the regex scans in C and copies only on a match.
_PUNCT = re.compile("[" + re.escape(string.punctuation) + "]+")
_PUNCT_KEEP_HYPHEN = re.compile("[" + re.escape(string.punctuation.replace("-", "")) + "]+")
_LETTER = re.compile("[abcde]")

# the pymorphy3 lemmatiser and its Russian dictionary (no download at run time): the `ru` extra
_LEMMATISER = ("pymorphy3", "pymorphy3_dicts_ru")


@functools.lru_cache(maxsize=1)
def _analyzer():
    from ..extras import MissingExtra, require

    require("text_qa", _LEMMATISER, ["ru"])
    import pymorphy3

    try:
        return pymorphy3.MorphAnalyzer(lang="ru")
    except (ValueError, OSError, ImportError) as err:
        raise MissingExtra(f"text_qa ({err})", _LEMMATISER, ["ru"]) from err


@functools.cache
def lemmatizer_version() -> str:
    """``pymorphy3-<version>/ru-<dictionary version>``: the lemmatiser the scores depend on (read from the
    package metadata once per process: a missing package raises each time, it is not cached)."""
    from importlib.metadata import PackageNotFoundError, version

    from ..extras import require

    require("text_qa", _LEMMATISER, ["ru"])
    try:
        return f"pymorphy3-{version('pymorphy3')}/ru-{version('pymorphy3-dicts-ru')}"
    except PackageNotFoundError as err:  # importable but not installed as a distribution
        from ..extras import MissingExtra

        raise MissingExtra("text_qa", _LEMMATISER, ["ru"]) from err


_INTEGER = re.compile("-?[0-9]+")


@functools.lru_cache(maxsize=1 << 18)
def lemmatize(token: str) -> str:
    """pymorphy3 normal form of the most probable parse of ``token`` (cached per token; letters without a
    Unicode name are handled by ``resources.russian.first_lemma``).

    An integer (ASCII digits, one optional leading ``-``) is its own lemma without a parse: no such word
    is in the dictionary, so pymorphy3's ``NumberAnalyzer`` gives its one parse, whose normal form is the
    lower-cased word (tests/test_text_qa.py holds both facts on the installed dictionary)."""
    if _INTEGER.fullmatch(token):
        return token
    return first_lemma(_analyzer(), token)


def normalize_answer(text: str, keep_hyphen: bool = False) -> str:
    """The official normalisation: lower-case, delete ASCII punctuation, lemmatise, map number words."""
    text = (_PUNCT_KEEP_HYPHEN if keep_hyphen else _PUNCT).sub("", text.lower())
    lemmas = (lemmatize(token) for token in text.split())
    return " ".join(NUMBER_WORDS.get(lemma, lemma) for lemma in lemmas)


def get_tokens(text: str, keep_hyphen: bool = False) -> list[str]:
    """Tokens of the normalised answer (``[]`` for an empty one)."""
    return normalize_answer(text, keep_hyphen).split()


def token_f1(gold_tokens: list[str], pred_tokens: list[str]) -> float:
    """SQuAD-style F1 of two token lists (both empty -> 1, one empty -> 0)."""
    if not gold_tokens or not pred_tokens:
        return float(gold_tokens == pred_tokens)
    common = sum((Counter(gold_tokens) & Counter(pred_tokens)).values())
    if common == 0:
        return 0.0
    precision = common / len(pred_tokens)
    recall = common / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def _normalizer(measure: str, keep_hyphen: bool):
    """What a string becomes before scoring, remembered per distinct string: the normalised answer
    (exact match) or its tokens (F1)."""
    if measure not in MEASURES:
        raise ValueError(f"`measure` must be one of {list(MEASURES)}, got {measure!r}")
    seen = {}

    def normalized(text: str):
        value = seen.get(text)
        if value is None:
            value = normalize_answer(text, keep_hyphen)
            value = seen[text] = value.split() if measure == "f1" else value
        return value

    return normalized


def _score(normed_golds: list, prediction: str, measure: str, normalized, letter_fallback: bool) -> float:
    """Score of one example from its normalised golds: max over them, then the optional letter fallback."""
    pred = normalized(prediction)
    if measure == "f1":
        score = max(token_f1(gold, pred) for gold in normed_golds)
    else:
        score = float(pred in normed_golds)
    if letter_fallback and score <= 0.5:
        match = _LETTER.search(prediction)
        if match:
            letter = normalized(match.group(0))
            if measure == "f1":
                score = max(token_f1(gold, letter) for gold in normed_golds)
            else:
                score = float(letter in normed_golds)
    return score


def example_score(
    prediction: str,
    golds: list[str],
    measure: str = "f1",
    keep_hyphen: bool = False,
    letter_fallback: bool = True,
) -> float:
    """Score of one example: max over ``golds`` (non-empty), then the optional letter fallback."""
    normalized = _normalizer(measure, keep_hyphen)
    return _score([normalized(g) for g in golds], prediction, measure, normalized, letter_fallback)


def text_qa_per_example(
    predictions: list[str],
    references: list[list[str]],
    measure: str = "f1",
    keep_hyphen: bool = False,
    letter_fallback: bool = True,
) -> list[float]:
    """Per-example scores; the defaults are the official AIJ 2022 TextQA (``measure="exact_match",
    keep_hyphen=True`` is the official MathQA). Inputs are assumed valid (``scoring.score`` and the
    evaluate module check them). Each distinct string is normalised once per call."""
    normalized = _normalizer(measure, keep_hyphen)
    return [
        _score([normalized(g) for g in golds], pred, measure, normalized, letter_fallback)
        for pred, golds in zip(predictions, references)
    ]


def text_qa(predictions: list[str], references: list[list[str]], **options) -> float:
    """Dataset score: the mean of :func:`text_qa_per_example`, summed left to right as the AIJ script's
    ``sum(...) / len(...)`` on Python <= 3.11 (``results.mean``; 0.0 for no examples)."""
    scores = text_qa_per_example(predictions, references, **options)
    return mean(scores)
