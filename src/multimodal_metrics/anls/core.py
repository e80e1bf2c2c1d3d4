"""Pure functions behind the ANLS metric (no evaluate, no state): usable on their own.

ANLS (Average Normalized Levenshtein Similarity, Biten et al. 2019; DocVQA, InfographicVQA, ST-VQA):

    NL(a, o)   = Levenshtein(norm(a), norm(o)) / L(a, o)          (NL = 0 when L = 0)
    s(a, o)    = 1 - NL(a, o)
    score_q    = max_a s(a, o)   if it passes the threshold, else 0
    ANLS       = mean_q score_q

The conventions in use differ in three places, each an option here:

* ``text_norm`` (what the distance sees): ``"ws+lower"`` strips, lower-cases and collapses runs of
  whitespace to one space (RRC script, PyPI ``anls``); ``"lower"`` only lower-cases (the seed's
  layoutlmv2 snippet); ``"none"`` compares the raw strings.
* ``length_norm`` (the denominator L): ``"raw_upper"`` = max(len(a.upper()), len(o.upper())) over the
  raw, un-normalised strings (RRC script: so "ß" counts 2 and padding whitespace counts);
  ``"normalized_upper"`` = the same over the normalised strings (PyPI ``anls``); ``"raw"`` =
  max(len(a), len(o)) over the raw strings (layoutlmv2 snippet); ``"normalized"`` = max(len(a), len(o))
  over the normalised strings (ANLS*, PyPI ``anls_star`` 1.0.1: ``"ǰ"`` counts 1, not 2).
* ``boundary`` with ``threshold`` t (applied to the similarity s, as the RRC ``--anls_threshold``):
  ``"inclusive"`` keeps s >= t (RRC: NL = 0.5 keeps 0.5); ``"strict"`` keeps s > t, i.e. the paper's
  NL < tau with tau = 1 - t (PyPI ``anls`` and the layoutlmv2 snippet: NL = 0.5 scores 0).

Two empty strings score 1 (L = 0). Edit distances run in C++ through rapidfuzz (``cpdist``); there
is no Python loop over characters. The distance is quadratic in the lengths: a pair whose length
difference alone puts it under the threshold scores 0 without it, and a pair of more than
``MAX_PAIR_CELLS`` (length x length) is computed only up to a cutoff (near copies), else refused with
a ValueError naming it.
"""

import itertools

import numpy as np

from ..results import mean

TEXT_NORMS = ("ws+lower", "lower", "none")
LENGTH_NORMS = ("raw_upper", "normalized_upper", "raw", "normalized")
BOUNDARIES = ("inclusive", "strict")


def normalize_text(text: str, text_norm: str = "ws+lower") -> str:
    """The string the edit distance sees under ``text_norm``."""
    norm = _normalizer(text_norm)
    return text if norm is None else norm(text)


def _normalizer(text_norm: str):
    if text_norm == "ws+lower":
        return lambda s: " ".join(s.strip().lower().split())
    if text_norm == "lower":
        return str.lower
    if text_norm == "none":
        return None
    raise ValueError(f"`text_norm` must be one of {list(TEXT_NORMS)}, got {text_norm!r}")


def _normalize_all(strings: list[str], text_norm: str) -> list[str]:
    """``[normalize_text(s, text_norm) for s in strings]`` with no Python frame per string (``map`` of the
    string methods; ``str.split()`` drops leading and trailing whitespace, so the strip is implied)."""
    if text_norm == "ws+lower":
        return list(map(" ".join, map(str.split, map(str.lower, strings))))
    if text_norm == "lower":
        return list(map(str.lower, strings))
    _normalizer(text_norm)  # "none", or the error
    return strings


def _prepare(
    strings: list[str], text_norm: str, length_norm: str
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The normalised strings, their length-normaliser contributions and their lengths (code points).

    ``len(s.upper())`` is the length of ``s`` unless upper-casing expands a character ("ß" -> "SS"):
    ASCII strings (one test of all of them joined) keep their lengths; others are upper-cased one by one."""
    normed = _normalize_all(strings, text_norm)
    counts = _char_counts(normed)
    raw_counts = counts if normed is strings else None
    if length_norm == "raw_upper":
        lengths = _upper_lengths(strings, raw_counts)
    elif length_norm == "normalized_upper":
        lengths = _upper_lengths(normed, counts)
    elif length_norm == "raw":
        lengths = _char_counts(strings) if raw_counts is None else raw_counts
    elif length_norm == "normalized":
        lengths = counts
    else:
        raise ValueError(f"`length_norm` must be one of {list(LENGTH_NORMS)}, got {length_norm!r}")
    return normed, lengths, counts


def _upper_lengths(strings: list[str], counts: np.ndarray | None) -> np.ndarray:
    """``len(s.upper())`` of each string; ``counts``: their lengths when known."""
    if "".join(strings).isascii():
        return _char_counts(strings) if counts is None else counts
    return np.fromiter(map(len, map(str.upper, strings)), dtype=np.int64, count=len(strings))


MAX_PAIR_CELLS = 2 * 10**10
"""The most work (length x length of the normalised pair) spent on one edit distance: rapidfuzz takes
about 0.3 s per 10**10 on one core (two 141,000-character strings). A longer pair is computed with
the cutoff ``MAX_PAIR_CELLS // its longer length`` (a band: two 1 MB strings within 20,000 edits of
each other take 0.03 s); when its distance is beyond that cutoff, it is refused with a ValueError
naming it, unless the length difference alone already puts its similarity under the threshold (then
it scores 0 without the distance)."""


def _similarities(pred, ref, names=None) -> np.ndarray:
    """s = 1 - NL of aligned pairs, each side ``(normalised strings, length normalisers, code points)``
    (:func:`_prepare`); ``names(k)``: the arguments of pair k for the size error."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cpdist

    (pred_n, pred_len, pred_chars), (ref_n, ref_len, ref_chars) = pred, ref
    if not pred_n:
        return np.zeros(0, dtype=np.float64)
    longer = np.maximum(pred_chars, ref_chars)
    heavy = np.flatnonzero(pred_chars.astype(np.float64) * ref_chars > MAX_PAIR_CELLS)
    if len(heavy):
        light = np.ones(len(pred_n), dtype=bool)
        light[heavy] = False
        dist = np.zeros(len(pred_n), dtype=np.float64)
        keep = np.flatnonzero(light).tolist()
        if keep:
            dist[keep] = cpdist(
                [pred_n[k] for k in keep], [ref_n[k] for k in keep], scorer=Levenshtein.distance, workers=1
            )
        for k in heavy.tolist():
            cutoff = max(1, MAX_PAIR_CELLS // int(longer[k]))
            d = Levenshtein.distance(pred_n[k], ref_n[k], score_cutoff=cutoff)  # exact when <= cutoff
            if d > cutoff:
                where = names(k) if names is not None else f"pair {k}"
                raise ValueError(
                    f"{where}: {len(pred_n[k]):,} and {len(ref_n[k]):,} characters more than {cutoff:,} edits apart; "
                    f"the edit distance of so long and so different strings takes time proportional to the product "
                    f"of their lengths (at most {MAX_PAIR_CELLS:,} is spent; ANLS is meant for short answers)"
                )
            dist[k] = d
    else:
        dist = np.asarray(cpdist(pred_n, ref_n, scorer=Levenshtein.distance, workers=1), dtype=np.float64)
    length = np.maximum(pred_len, ref_len)
    nl = np.divide(dist, length, out=np.zeros_like(dist), where=length > 0)
    return 1.0 - nl


def _char_counts(strings: list[str]) -> np.ndarray:
    return np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))


SHORT_PAIR_CELLS = 4096
"""A pair of at most this much work (length x length) has its distance computed even when its lengths
alone fail the threshold: skipping it costs more than the distance (rapidfuzz's bit-parallel kernel)."""


def _passing_similarities(pred, ref, threshold, boundary, names) -> np.ndarray:
    """:func:`_similarities` where a pair can pass the threshold, or is short; elsewhere 0 (it is
    thresholded to 0 anyway). The distance is at least the difference of the two lengths, so s <= 1 -
    |diff| / L in floating point too (division and subtraction are monotonic): a pair whose bound fails
    the threshold fails it, and its (possibly long) distance is not computed."""
    (pred_n, pred_len, pred_chars), (ref_n, ref_len, ref_chars) = pred, ref
    if threshold <= 0 or not len(pred_len):
        return _similarities(pred, ref, names)
    length = np.maximum(pred_len, ref_len)
    diff = np.abs(pred_chars - ref_chars).astype(np.float64)
    bound = 1.0 - np.divide(diff, length, out=np.zeros_like(diff), where=length > 0)
    skip = (apply_threshold(bound, threshold, boundary) <= 0) & (pred_chars * ref_chars > SHORT_PAIR_CELLS)
    if not skip.any():
        return _similarities(pred, ref, names)
    live = np.flatnonzero(~skip)
    out = np.zeros(len(bound), dtype=np.float64)
    sub = live.tolist()
    out[live] = _similarities(
        ([pred_n[k] for k in sub], pred_len[live], pred_chars[live]),
        ([ref_n[k] for k in sub], ref_len[live], ref_chars[live]),
        None if names is None else lambda k: names(sub[k]),
    )
    return out


def pair_similarities(
    predictions: list[str],
    references: list[str],
    text_norm: str = "ws+lower",
    length_norm: str = "raw_upper",
) -> np.ndarray:
    """s = 1 - NL for aligned pairs (``predictions[i]`` vs ``references[i]``), before any threshold."""
    pred = _prepare(predictions, text_norm, length_norm)
    ref = _prepare(references, text_norm, length_norm)
    return _similarities(pred, ref, lambda k: f"`predictions[{k}]` and `references[{k}]`")


def apply_threshold(
    similarity: np.ndarray, threshold: float = 0.5, boundary: str = "inclusive"
) -> np.ndarray:
    """Zero every similarity that does not pass the threshold (see the module docstring)."""
    if boundary == "inclusive":
        keep = similarity >= threshold
    elif boundary == "strict":
        keep = similarity > threshold
    else:
        raise ValueError(f"`boundary` must be one of {list(BOUNDARIES)}, got {boundary!r}")
    return np.where(keep, similarity, 0.0)


def anls_per_question(
    predictions: list[str],
    references: list[list[str]],
    threshold: float = 0.5,
    boundary: str = "inclusive",
    text_norm: str = "ws+lower",
    length_norm: str = "raw_upper",
) -> np.ndarray:
    """Score of every question: max over its references of the thresholded similarity.

    ``references[i]`` is the non-empty list of accepted answers of question i. Inputs are assumed
    valid (the evaluate module checks them); the defaults are the official RRC DocVQA scoring.
    """
    counts = np.fromiter(map(len, references), dtype=np.int64, count=len(references))
    flat_refs = list(itertools.chain.from_iterable(references))
    return anls_per_question_flat(predictions, flat_refs, counts, threshold, boundary, text_norm, length_norm)


def anls_per_question_flat(
    predictions: list[str],
    flat_references: list[str],
    counts: np.ndarray,
    threshold: float = 0.5,
    boundary: str = "inclusive",
    text_norm: str = "ws+lower",
    length_norm: str = "raw_upper",
) -> np.ndarray:
    """:func:`anls_per_question` with the references given flat: every answer in question order and
    ``counts[i]`` (>= 1) answers for question i (the layout the evaluate module reads from Arrow)."""
    pred = _prepare(predictions, text_norm, length_norm)
    ref = _prepare(flat_references, text_norm, length_norm)
    owner = np.repeat(np.arange(len(predictions)), counts)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)

    def names(k):
        i = int(owner[k])
        return f"`predictions[{i}]` and `references[{i}][{k - int(starts[i])}]`"

    if len(owner) == len(predictions):  # one reference per question: no re-indexing needed
        sims = _passing_similarities(pred, ref, threshold, boundary, names)
    else:
        pairs = list(map(pred[0].__getitem__, owner.tolist()))
        sims = _passing_similarities((pairs, pred[1][owner], pred[2][owner]), ref, threshold, boundary, names)
    sims = apply_threshold(sims, threshold=threshold, boundary=boundary)
    if len(sims) == 0:
        return np.zeros(len(counts), dtype=np.float64)
    return np.maximum.reduceat(sims, starts)


def anls(predictions: list[str], references: list[list[str]], **options) -> float:
    """Dataset ANLS: the mean of :func:`anls_per_question`, summed left to right as the RRC script's
    ``totalScore +=`` (``results.mean``; 0.0 for no questions)."""
    scores = anls_per_question(predictions, references, **options)
    return mean(scores)
