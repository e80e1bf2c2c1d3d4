"""Pure functions behind the VQA-accuracy presets `vqa_v2` and `fusion_brain_2021` (no evaluate, no state).

VQA v2 accuracy (GT-Vision-Lab/VQA ``PythonEvaluationTools/vqaEvaluation/vqaEval.py`` @ a013f00, the
official evaluation of VQA v1/v2 and VQA-CP, run under Python 2.7)::

    acc_q = 1/N * sum_i min(1, #{j != i : gt_j == pred} / 3)      (leave-one-out over the N answers)

* Every GT answer and the prediction: ``\\n`` and ``\\t`` become spaces, then ``strip()``.
* ``normalize="official"``: only when the N GT answers are not all identical, every GT answer and the
  prediction go through :func:`process_punctuation` then :func:`process_digit_article`. With unanimous
  GT nothing is normalised ("two" vs ten "2" scores 0; "Yes" vs ten "yes" scores 0).
  ``"always"`` normalises every question the same way; ``"never"`` compares the stripped strings;
  ``"lmms_eval"`` / ``"vlmevalkit"`` normalise every question with that harness's answer processor and
  average as it does (``HARNESSES``), equal to it question by question.
* Exclusion is by position (the official code compares answer dicts that differ by ``answer_id``).
* The per-question mean is the left-to-right float sum of the N terms divided by N, exactly as the
  reference (Python 2.7 / 3.11 ``sum``), so per-question scores are bit-identical to it. In closed form,
  with m = #GT equal to the prediction: ``(m*min(1,(m-1)/3) + (N-m)*min(1,m/3)) / N``
  (0, .3, .6, .9, 1 for m = 0..4 with N = 10), equal up to the last bit.

Quirks reproduced (seeds_reference.md 3.1): only the 21 characters of ``PUNCT`` are handled (not the
apostrophe, colon, ``# $ % & * ~ ^ |``); a punctuation mark is deleted (not replaced by a space) when
it touches a space anywhere in the text or when the text contains digit,digit; the period regex
``(?!<=\\d)(\\.)(?!\\d)`` has a look-behind typo (every period not followed by a digit goes) and gets
``re.UNICODE`` (= 32) as its ``count`` argument, so at most 32 periods are removed; the contraction
keys with capitals (``Im``, ``Ive``, ``Id've``, ``I'dve``) never fire (the text is lower-cased first).
Python 2's ``re`` without the UNICODE flag makes ``\\d`` ASCII-only (``ascii_digits=True``); the AIJ 2021
copy runs under Python 3, where ``\\d`` is any Unicode digit (``ascii_digits=False``).

Fusion Brain 2021 (AIJ 2021 ``evaluation/VQA_accuracy/vqaEval.py``): only the prediction is
normalised (``\\n``/``\\t`` -> space, strip, :func:`process_punctuation`, then
:func:`process_digit_article` in its language: English tables, or for ``"ru"`` every token replaced by
its pymorphy lemma then the Russian number map, no article removal); the score is 1 if the result
equals one of the GT strings, used as given, else 0.
"""

import itertools
import re
from functools import lru_cache

import numpy as np

from ..resources.russian import NUMBER_WORDS, first_lemma

NORMALIZE_MODES = ("official", "always", "never", "lmms_eval", "vlmevalkit")
# The harnesses' answer processors (Python 3: ``\d`` is any Unicode digit), each normalising every question:
# lmms-eval 0.7.3 (lmms_eval/tasks/vqav2/utils.py + _task_utils/vqa_eval_metric.py: comma rule
# ``(?<=\d)(\,)+(?=\d)``, so "1,,2" counts as digit,digit; the official period regex; the mean by
# ``statistics.mean``) and VLMEvalKit (vlmeval/dataset/utils/vqa_eval.py @ 0a04a1d, vlmeval/smp/misc.py
# @ 4e85dcd: the official comma rule; the period regex ``(?<!\d)\.(?!\d)``, so a period after a digit
# stays; the mean by ``np.mean``).
HARNESSES = ("lmms_eval", "vlmevalkit")
LANGUAGES = ("en", "ru")

PUNCT = (
    ";",
    "/",
    "[",
    "]",
    '"',
    "{",
    "}",
    "(",
    ")",
    "=",
    "+",
    "\\",
    "_",
    "-",
    ">",
    "<",
    "@",
    "`",
    ",",
    "?",
    "!",
)
ARTICLES = ("a", "an", "the")
MANUAL_MAP = {
    "none": "0", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
}  # fmt: skip
# manualMap_ru of AIJ 2021 VQA (seed 002, evaluation/VQA_accuracy/vqaEval.py; seeds_reference.md 2.4):
# applied to the lemma of every token. The same 13 entries as the AIJ 2022 scripts of text_qa and
# ru_meteor: the library keeps them once (multimodal_metrics.resources.russian.NUMBER_WORDS).
MANUAL_MAP_RU = NUMBER_WORDS
CONTRACTIONS = {
    "aint": "ain't", "arent": "aren't", "cant": "can't", "couldve": "could've", "couldnt": "couldn't",
    "couldn'tve": "couldn't've", "couldnt've": "couldn't've", "didnt": "didn't", "doesnt": "doesn't",
    "dont": "don't", "hadnt": "hadn't", "hadnt've": "hadn't've", "hadn'tve": "hadn't've", "hasnt": "hasn't",
    "havent": "haven't", "hed": "he'd", "hed've": "he'd've", "he'dve": "he'd've", "hes": "he's",
    "howd": "how'd", "howll": "how'll", "hows": "how's", "Id've": "I'd've", "I'dve": "I'd've", "Im": "I'm",
    "Ive": "I've", "isnt": "isn't", "itd": "it'd", "itd've": "it'd've", "it'dve": "it'd've", "itll": "it'll",
    "let's": "let's", "maam": "ma'am", "mightnt": "mightn't", "mightnt've": "mightn't've",
    "mightn'tve": "mightn't've", "mightve": "might've", "mustnt": "mustn't", "mustve": "must've",
    "neednt": "needn't", "notve": "not've", "oclock": "o'clock", "oughtnt": "oughtn't",
    "ow's'at": "'ow's'at", "'ows'at": "'ow's'at", "'ow'sat": "'ow's'at", "shant": "shan't",
    "shed've": "she'd've", "she'dve": "she'd've", "she's": "she's", "shouldve": "should've",
    "shouldnt": "shouldn't", "shouldnt've": "shouldn't've", "shouldn'tve": "shouldn't've",
    "somebody'd": "somebodyd", "somebodyd've": "somebody'd've", "somebody'dve": "somebody'd've",
    "somebodyll": "somebody'll", "somebodys": "somebody's", "someoned": "someone'd",
    "someoned've": "someone'd've", "someone'dve": "someone'd've", "someonell": "someone'll",
    "someones": "someone's", "somethingd": "something'd", "somethingd've": "something'd've",
    "something'dve": "something'd've", "somethingll": "something'll", "thats": "that's",
    "thered": "there'd", "thered've": "there'd've", "there'dve": "there'd've", "therere": "there're",
    "theres": "there's", "theyd": "they'd", "theyd've": "they'd've", "they'dve": "they'd've",
    "theyll": "they'll", "theyre": "they're", "theyve": "they've", "twas": "'twas", "wasnt": "wasn't",
    "wed've": "we'd've", "we'dve": "we'd've", "weve": "we've", "werent": "weren't", "whatll": "what'll",
    "whatre": "what're", "whats": "what's", "whatve": "what've", "whens": "when's", "whered": "where'd",
    "wheres": "where's", "whereve": "where've", "whod": "who'd", "whod've": "who'd've",
    "who'dve": "who'd've", "wholl": "who'll", "whos": "who's", "whove": "who've", "whyll": "why'll",
    "whyre": "why're", "whys": "why's", "wont": "won't", "wouldve": "would've", "wouldnt": "wouldn't",
    "wouldnt've": "wouldn't've", "wouldn'tve": "wouldn't've", "yall": "y'all", "yall'll": "y'all'll",
    "y'allll": "y'all'll", "yall'd've": "y'all'd've", "y'alld've": "y'all'd've", "y'all'dve": "y'all'd've",
    "youd": "you'd", "youd've": "you'd've", "you'dve": "you'd've", "youll": "you'll", "youre": "you're",
    "youve": "you've",
}  # fmt: skip

# The reference's patterns, verbatim; `re.ASCII` = Python 2 semantics of `\d` (no UNICODE flag).
_PERIOD = {True: re.compile(r"(?!<=\d)(\.)(?!\d)", re.ASCII), False: re.compile(r"(?!<=\d)(\.)(?!\d)")}
_COMMA = {True: re.compile(r"(\d)(\,)(\d)", re.ASCII), False: re.compile(r"(\d)(\,)(\d)")}
_HARNESS_PERIOD = {"lmms_eval": _PERIOD[False], "vlmevalkit": re.compile(r"(?<!\d)\.(?!\d)")}
_HARNESS_COMMA = {"lmms_eval": re.compile(r"(?<=\d)(\,)+(?=\d)"), "vlmevalkit": _COMMA[False]}
PERIOD_COUNT = 32  # re.UNICODE passed positionally as `count` by the reference


def clean_whitespace(text: str) -> str:
    """Step 1 of the reference: ``\\n`` and ``\\t`` become spaces, then strip."""
    return text.replace("\n", " ").replace("\t", " ").strip()


def process_punctuation(text: str, ascii_digits: bool = True, harness: str | None = None) -> str:
    """The reference's ``processPunctuation`` (quirks included, see the module docstring); ``harness``
    (one of ``HARNESSES``): that harness's variant (its comma and period patterns, Unicode ``\\d``)."""
    out = text
    comma = _COMMA[ascii_digits] if harness is None else _HARNESS_COMMA[harness]
    period = _PERIOD[ascii_digits] if harness is None else _HARNESS_PERIOD[harness]
    delete = comma.search(text) is not None
    for p in PUNCT:
        if p in text:  # replacing never creates another mark, so presence in `text` is presence in `out`
            if delete or (p + " " in text) or (" " + p in text):
                out = out.replace(p, "")
            else:
                out = out.replace(p, " ")
    return period.sub("", out, count=PERIOD_COUNT)


@lru_cache(maxsize=65536)
def _ru_lemma(word: str) -> str:
    """pymorphy3's lemma of ``word`` (letters without a Unicode name handled: ``mark_unnamed_letters``)."""
    return first_lemma(_morph(), word)


@lru_cache(maxsize=1)
def _morph():
    from ..extras import require

    require("vqa_acc with language 'ru'", ["pymorphy3", "pymorphy3_dicts_ru"], ["ru"])
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


def lemmatizer_version() -> str:
    """``pymorphy3-<version>/ru-<dictionary version>``: the Russian lemmatiser the scores depend on."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"pymorphy3-{version('pymorphy3')}/ru-{version('pymorphy3-dicts-ru')}"
    except PackageNotFoundError:
        return "pymorphy3-missing"


def process_digit_article(text: str, lang: str = "en") -> str:
    """The reference's ``processDigitArticle``: lower-case, split, number words -> digits, drop
    articles, add missing apostrophes (English); pymorphy lemma + Russian number map for ``"ru"``."""
    words = text.lower().split()
    if lang == "ru":
        out = []
        for word in words:
            lemma = _ru_lemma(word)
            out.append(MANUAL_MAP_RU.get(lemma, lemma))
        return " ".join(out)
    out = [MANUAL_MAP.get(w, w) for w in words]
    return " ".join(CONTRACTIONS.get(w, w) for w in out if w not in ARTICLES)


def normalize_answer(
    text: str, lang: str = "en", ascii_digits: bool = True, harness: str | None = None
) -> str:
    """Full normalisation of one answer: whitespace clean-up, punctuation, digits/articles."""
    return process_digit_article(process_punctuation(clean_whitespace(text), ascii_digits, harness), lang)


def _ids(strings, index: dict) -> np.ndarray:
    """Integer id of every string; new strings get the next ids in first-seen order (``index`` is
    updated). One Python step per distinct string, C loops over the rest."""
    for s in dict.fromkeys(strings):
        if s not in index:
            index[s] = len(index)
    return np.fromiter(map(index.__getitem__, strings), dtype=np.int64, count=len(strings))


def vqa_v2_per_question(
    predictions: list[str],
    references: list[list[str]],
    normalize: str = "official",
    ascii_digits: bool = True,
) -> np.ndarray:
    """Official VQA accuracy of every question, as a fraction (the reference reports 100x, rounded).

    ``references[i]`` is the non-empty list of annotator answers of question i (10 in VQA v2). Strings
    become ids (:func:`_ids`), then :func:`vqa_v2_scores_from_ids` scores them.
    """
    _check_normalize(normalize)
    n = len(predictions)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    counts = np.fromiter(map(len, references), dtype=np.int64, count=n)
    raw_index: dict = {}
    gt_raw = _ids(list(itertools.chain.from_iterable(references)), raw_index)
    pred_raw = _ids(predictions, raw_index)
    return vqa_v2_scores_from_ids(pred_raw, gt_raw, counts, list(raw_index), normalize, ascii_digits)


def _check_normalize(normalize: str) -> None:
    if normalize not in NORMALIZE_MODES:
        raise ValueError(f"`normalize` must be one of {list(NORMALIZE_MODES)}, got {normalize!r}")


def vqa_v2_scores_from_ids(
    pred_ids: np.ndarray,
    gt_ids: np.ndarray,
    counts: np.ndarray,
    strings: list[str],
    normalize: str = "official",
    ascii_digits: bool = True,
) -> np.ndarray:
    """:func:`vqa_v2_per_question` on strings given as ids: ``strings[pred_ids[i]]`` is the prediction of
    question i, ``gt_ids`` the answers of all questions one after the other (``counts[i] >= 1`` of
    question i). Equal strings may have different ids (``strings`` may repeat).

    Each string of ``strings`` is cleaned once and normalised once per distinct cleaned form; matches
    are counted with numpy; the leave-one-out mean is summed left to right like the reference, so the
    result is bit-identical to it.
    """
    _check_normalize(normalize)
    n = len(pred_ids)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    clean_index: dict = {}
    clean_of_raw = _ids([clean_whitespace(s) for s in strings], clean_index)
    gt_c, pred_c = clean_of_raw[gt_ids], clean_of_raw[pred_ids]
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    if normalize == "never":
        use_norm = np.zeros(n, dtype=bool)
    elif normalize == "always" or normalize in HARNESSES:
        use_norm = np.ones(n, dtype=bool)
    else:  # normalise only when the annotators disagree
        use_norm = np.minimum.reduceat(gt_c, starts) != np.maximum.reduceat(gt_c, starts)
    gt_sel, pred_sel = gt_c, pred_c
    if use_norm.any():
        norm_index: dict = {}
        harness = normalize if normalize in HARNESSES else None
        norm_of_clean = _ids(
            [normalize_answer(s, "en", ascii_digits, harness) for s in clean_index], norm_index
        )
        gt_sel = np.where(np.repeat(use_norm, counts), norm_of_clean[gt_c], gt_c)
        pred_sel = np.where(use_norm, norm_of_clean[pred_c], pred_c)
    sizes = np.unique(counts)
    if len(sizes) == 1:  # every question has the same number of answers (VQA v2: 10): a plain grid
        size = int(sizes[0])
        return _leave_one_out(gt_sel.reshape(n, size) == pred_sel[:, None], normalize)
    match = gt_sel == np.repeat(pred_sel, counts)
    scores = np.empty(n, dtype=np.float64)
    for size in sizes:
        rows = np.nonzero(counts == size)[0]
        scores[rows] = _leave_one_out(match[starts[rows][:, None] + np.arange(size)], normalize)
    return scores


def _leave_one_out(grid: np.ndarray, normalize: str = "official") -> np.ndarray:
    """Per row of ``grid`` (questions x N answers, True where the answer equals the prediction):
    1/N * sum_i min(1, #{j != i matching} / 3), summed left to right like the reference; for a harness
    (``normalize`` in ``HARNESSES``) averaged as that harness averages (:func:`_harness_means`)."""
    if normalize in HARNESSES:
        return _harness_means(grid, normalize)
    m = grid.sum(axis=1).astype(np.float64)
    hit = np.minimum(1.0, (m - 1.0) / 3.0)  # term of an answer equal to the prediction
    miss = np.minimum(1.0, m / 3.0)  # term of any other answer
    terms = np.where(grid, hit[:, None], miss[:, None])
    total = np.zeros(len(grid), dtype=np.float64)
    for j in range(grid.shape[1]):  # left-to-right, as Python's sum() in the reference
        total += terms[:, j]
    return total / float(grid.shape[1])


def _harness_means(grid: np.ndarray, harness: str) -> np.ndarray:
    """The leave-one-out terms of every row of ``grid`` averaged as ``harness`` does: lmms-eval by
    ``statistics.mean`` (the exact mean, rounded once), VLMEvalKit by ``np.mean`` (numpy's pairwise sum:
    the result depends on where the matches are). One call per distinct row pattern."""
    import statistics

    if grid.size == 0:
        return np.zeros(len(grid), dtype=np.float64)
    patterns, inverse = np.unique(grid, axis=0, return_inverse=True)
    values = np.empty(len(patterns), dtype=np.float64)
    for k, row in enumerate(patterns.tolist()):
        m = sum(row)
        terms = [min(1, float(m - 1 if hit else m) / 3) for hit in row]
        values[k] = statistics.mean(terms) if harness == "lmms_eval" else np.mean(terms)
    return values[np.asarray(inverse).reshape(-1)]


def fusion_brain_per_question(
    predictions: list[str], references: list[list[str]], languages: list[str] | None = None
) -> np.ndarray:
    """AIJ 2021 Fusion Brain VQA score of every question: 1.0 if the normalised prediction (in its
    language, default "en") equals one of the GT strings (not normalised), else 0.0."""
    languages = languages if languages is not None else ["en"] * len(predictions)
    cache: dict = {}
    scores = np.empty(len(predictions), dtype=np.float64)
    for i, (pred, refs, lang) in enumerate(zip(predictions, references, languages)):
        key = (pred, lang)
        if key not in cache:
            cache[key] = normalize_answer(pred, lang, ascii_digits=False)
        scores[i] = 1.0 if cache[key] in refs else 0.0
    return scores


def group_means(scores, groups: list[str]) -> dict[str, float]:
    """Mean score per group label (sorted by label); empty labels are left out."""
    index: dict = {}
    ids = _ids(list(groups), index)
    return group_means_from_ids(scores, ids, list(index))


def group_means_from_ids(scores, ids: np.ndarray, labels: list[str]) -> dict[str, float]:
    """:func:`group_means` with the label of question i given as ``labels[ids[i]]`` (labels may repeat).

    Each mean is numpy's mean of the group's scores in question order (what ``scores[mask].mean()``
    gives), found through one stable sort: time n log n whatever the number of groups."""
    scores = np.asarray(scores, dtype=np.float64)
    ids = np.asarray(ids, dtype=np.int64)
    names = sorted({label for label in labels if label})
    if not names:
        return {}
    rank = {name: k for k, name in enumerate(names)}
    group_of_id = np.array([rank.get(label, -1) for label in labels], dtype=np.int64)
    group = group_of_id[ids]
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(len(names) + 1))
    out = {}
    for k, name in enumerate(names):
        rows = order[bounds[k] : bounds[k + 1]]
        if len(rows):
            out[name] = float(scores[rows].mean())
    return out
