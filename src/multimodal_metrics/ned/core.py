"""Pure functions behind the NED metric (no evaluate, no state): usable on their own.

1 - NED (normalised edit distance) for text recognition, AIJ 2022 FusionBrain Challenge 2.0
"Text Recognition in the Wild" (``ai-forever/fbc2_aij2022:evaluation/text_recognition/metric/
calculate_NED.py``, itself the "ICDAR2019 Normalized Edit Distance" block of
``clovaai/deep-text-recognition-benchmark:test.py``):

    s(gt, pred) = 0                                             if len(gt) == 0 or len(pred) == 0
                = 1 - Levenshtein(pred, gt) / max(len(gt), len(pred))    otherwise
    score_i     = max over the references gt of example i of s(gt, pred_i)
    one_minus_ned = mean_i score_i

Levenshtein: unit costs, no transpositions, counted in Unicode code points (as ``nltk.edit_distance``).
The official code applies no normalisation at all and scores two empty strings 0. The options:

* ``case_fold``: ``"none"`` (official), ``"latin"`` (ASCII A-Z -> a-z only: ICDAR 2019 ReCTS treats
  Latin letters case-insensitively), ``"all"`` (``str.lower()`` on every script, e.g. Cyrillic too).
* ``fullwidth_to_halfwidth``: map U+FF01..U+FF5E to U+0021..U+007E and U+3000 (ideographic space)
  to U+0020 before comparing (ICDAR 2019 ReCTS: full-width = half-width). Applied before case folding,
  so a full-width Latin letter also folds.
* ``both_empty``: the score of a pair whose two strings are empty: 0 (official AIJ 2022) or 1
  (ICDAR / mmocr ``OneMinusNormEditDistance``: 1 - 0/0 read as a perfect match). A pair with only one
  empty string scores 0 under every convention (1 - len/len).

Two companion numbers are computed from the same distances:

* ``string_accuracy`` (AIJ 2021 HTR, ``fusion_brain_aij2021:evaluation/HTR_string_accuracy``): 1 if the
  prediction equals a reference exactly (after the same normalisation; none by default), else 0; two
  empty strings are equal (1). Mean over examples.
* ``cer`` (character error rate, corpus level, as torchmetrics' ``CharErrorRate``): sum over examples of the
  edit distance to the reference chosen for the NED score (the first reference with the best score),
  divided by the sum of those references' lengths (clamped to at least 1, so an all-empty corpus
  of references gives the number of inserted characters). Per example: edits / max(1, len(ref)).
  CER is an error rate: it can exceed 1 and is not the mean of the per-example values.
  ``cer_strip=True`` strips both strings (``str.strip()``) before the CER's edit distance and length,
  as jiwer 4's default ``cer`` does (its ``cer_default`` transform: ``Strip``, then characters); 1 - NED
  and string accuracy are unchanged. torchmetrics' ``CharErrorRate`` does not strip (the default).

Edit distances run in C++ through rapidfuzz (``cpdist``); there is no Python loop over characters.
"""

import itertools

import numpy as np

from ..results import mean

CASE_FOLDS = ("none", "latin", "all")
BOTH_EMPTY_SCORES = (0.0, 1.0)

# U+FF01..U+FF5E -> U+0021..U+007E, U+3000 -> U+0020 (ICDAR 2019 ReCTS).
_FULLWIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}
_FULLWIDTH[0x3000] = 0x20
_LATIN_LOWER = {cp: cp + 32 for cp in range(ord("A"), ord("Z") + 1)}


def normalize(text: str, case_fold: str = "none", fullwidth_to_halfwidth: bool = False) -> str:
    """The string the edit distance sees: full-width -> half-width first, then case folding."""
    if fullwidth_to_halfwidth:
        text = text.translate(_FULLWIDTH)
    if case_fold == "latin":
        return text.translate(_LATIN_LOWER)
    if case_fold == "all":
        return text.lower()
    if case_fold == "none":
        return text
    raise ValueError(f"`case_fold` must be one of {list(CASE_FOLDS)}, got {case_fold!r}")


def _normalize_all(strings: list[str], case_fold: str, fullwidth_to_halfwidth: bool) -> list[str]:
    if case_fold == "none" and not fullwidth_to_halfwidth:
        return list(strings)
    return [normalize(s, case_fold, fullwidth_to_halfwidth) for s in strings]


def pair_scores(
    predictions: list[str],
    references: list[str],
    case_fold: str = "none",
    fullwidth_to_halfwidth: bool = False,
    both_empty: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For aligned pairs: (1 - NED, edit distance, reference length), after normalisation."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cpdist

    preds = _normalize_all(predictions, case_fold, fullwidth_to_halfwidth)
    refs = _normalize_all(references, case_fold, fullwidth_to_halfwidth)
    n = len(preds)
    if n == 0:
        empty = np.zeros(0, dtype=np.float64)
        return empty, empty.astype(np.int64), empty.astype(np.int64)
    pred_len = np.fromiter(map(len, preds), dtype=np.int64, count=n)
    ref_len = np.fromiter(map(len, refs), dtype=np.int64, count=n)
    dist = np.asarray(cpdist(preds, refs, scorer=Levenshtein.distance, workers=1), dtype=np.int64)
    longest = np.maximum(pred_len, ref_len)
    sim = 1.0 - np.divide(dist, longest, out=np.ones(n, dtype=np.float64), where=longest > 0)
    sim[(pred_len == 0) | (ref_len == 0)] = 0.0
    sim[(pred_len == 0) & (ref_len == 0)] = float(both_empty)
    return sim, dist, ref_len


def ned_per_example(
    predictions: list[str],
    references: list[list[str]],
    case_fold: str = "none",
    fullwidth_to_halfwidth: bool = False,
    both_empty: float = 0.0,
    cer_strip: bool = False,
) -> dict[str, np.ndarray]:
    """Per-example arrays: ``one_minus_ned``, ``string_accuracy``, ``edits`` and ``ref_chars``.

    ``references[i]`` is the non-empty list of accepted transcriptions of example i. ``edits`` and
    ``ref_chars`` are taken against the chosen reference: the first one with the best 1 - NED.
    Inputs are assumed valid (``scoring.score`` and the evaluate module check them); the defaults are the
    official AIJ 2022.
    """
    counts = np.fromiter(map(len, references), dtype=np.int64, count=len(references))
    flat_refs = list(itertools.chain.from_iterable(references))
    return ned_per_example_flat(
        predictions, flat_refs, counts, case_fold, fullwidth_to_halfwidth, both_empty, cer_strip
    )


def ned_per_example_flat(
    predictions: list[str],
    flat_references: list[str],
    counts: np.ndarray,
    case_fold: str = "none",
    fullwidth_to_halfwidth: bool = False,
    both_empty: float = 0.0,
    cer_strip: bool = False,
) -> dict[str, np.ndarray]:
    """:func:`ned_per_example` with the references given flat: every reference in example order and
    ``counts[i]`` (>= 1) references for example i (the layout the evaluate module reads from Arrow)."""
    if case_fold not in CASE_FOLDS:
        raise ValueError(f"`case_fold` must be one of {list(CASE_FOLDS)}, got {case_fold!r}")
    n = len(predictions)
    owner = np.arange(n) if len(flat_references) == n else np.repeat(np.arange(n), counts)
    preds = predictions if len(flat_references) == n else list(map(predictions.__getitem__, owner.tolist()))
    sim, dist, ref_len = pair_scores(preds, flat_references, case_fold, fullwidth_to_halfwidth, both_empty)
    if n == 0:
        zeros = np.zeros(0, dtype=np.float64)
        return {"one_minus_ned": zeros, "string_accuracy": zeros, "edits": zeros, "ref_chars": zeros}
    if len(flat_references) == n:  # one reference per example: it is the chosen one
        best, exact, edits, ref_chars = sim, (dist == 0).astype(np.float64), dist, ref_len
        chosen = owner
    else:
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        best = np.maximum.reduceat(sim, starts)
        # First reference reaching the best score of its example.
        hits = np.flatnonzero(sim == best[owner])
        _, first = np.unique(owner[hits], return_index=True)
        chosen = hits[first]
        exact = np.maximum.reduceat((dist == 0).astype(np.float64), starts)
        edits, ref_chars = dist[chosen], ref_len[chosen]
    if cer_strip:  # jiwer's CER: the chosen pair again, both strings stripped
        stripped_refs = [flat_references[k].strip() for k in chosen.tolist()]
        _, edits, ref_chars = pair_scores(
            [p.strip() for p in predictions], stripped_refs, case_fold, fullwidth_to_halfwidth
        )
    return {
        "one_minus_ned": best,
        "string_accuracy": exact,
        "edits": edits.astype(np.float64),
        "ref_chars": ref_chars.astype(np.float64),
    }


def cer_per_example(edits: np.ndarray, ref_chars: np.ndarray) -> np.ndarray:
    """Per-example character error rate: edits / max(1, reference length)."""
    return edits / np.maximum(ref_chars, 1.0)


def corpus_cer(edits: np.ndarray, ref_chars: np.ndarray) -> float:
    """Corpus character error rate: sum of edits / max(1, sum of reference lengths)."""
    return float(edits.sum() / max(float(ref_chars.sum()), 1.0))


def ned(predictions: list[str], references: list[list[str]], **options) -> dict[str, float]:
    """Dataset scores: ``one_minus_ned`` and ``string_accuracy`` (means summed left to right, as the AIJ
    script's ``sum(...) / len(...)`` on Python <= 3.11: ``results.mean``) and the corpus ``cer``."""
    per = ned_per_example(predictions, references, **options)
    return {
        "one_minus_ned": mean(per["one_minus_ned"]),
        "string_accuracy": mean(per["string_accuracy"]),
        "cer": corpus_cer(per["edits"], per["ref_chars"]),
    }
