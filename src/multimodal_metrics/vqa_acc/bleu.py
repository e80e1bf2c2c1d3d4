"""Pure functions behind the `bleu1` preset: unigram BLEU for short answers (no evaluate, no state).

Seed 003 (FlagEval) scores short answers with unigram BLEU; its code is not public, so the reference is
NLTK's ``sentence_bleu(refs, hyp, weights=(1, 0, 0, 0))`` / ``corpus_bleu`` (3.9.1, 3.10.4):

    BLEU-1 = BP * p1,   p1 = sum_w min(c_hyp(w), max_r c_r(w)) / |hyp|
    BP     = 1 if c > r else (0 if c == 0 else exp(1 - r / c)),  r = closest ref length (ties: shorter)

computed like NLTK as ``BP * exp(log(p1))`` (0 when nothing matches). The corpus form pools the clipped
counts, hypothesis lengths and closest reference lengths over all questions before dividing.
Tokens: ``str.split()`` of the raw string (whitespace split, case kept), optionally lower-cased.
"""

import math
from collections import Counter

import numpy as np


def tokenize(text: str, lowercase: bool = False) -> list[str]:
    """Whitespace tokens of an answer (lower-cased first when asked)."""
    return (text.lower() if lowercase else text).split()


def _closest_ref_length(ref_lens: list[int], hyp_len: int) -> int:
    return min(ref_lens, key=lambda ref_len: (abs(ref_len - hyp_len), ref_len))


def _brevity_penalty(closest_ref_len: int, hyp_len: int) -> float:
    if hyp_len > closest_ref_len:
        return 1.0
    if hyp_len == 0:
        return 0.0
    return math.exp(1 - closest_ref_len / hyp_len)


def _bleu(numerator: int, denominator: int, ref_len: int, hyp_len: int) -> float:
    if numerator == 0:
        return 0.0
    return _brevity_penalty(ref_len, hyp_len) * math.exp(math.fsum([math.log(numerator / denominator)]))


def _counts(hyp: list[str], refs: list[list[str]]) -> tuple[int, int, int, int]:
    hyp_counts = Counter(hyp)
    max_ref: Counter = Counter()
    for ref in refs:
        for word, count in Counter(ref).items():
            if count > max_ref[word]:
                max_ref[word] = count
    clipped = sum(min(count, max_ref[word]) for word, count in hyp_counts.items())
    hyp_len = len(hyp)
    return clipped, max(1, hyp_len), _closest_ref_length([len(r) for r in refs], hyp_len), hyp_len


def bleu1_scores(
    predictions: list[str], references: list[list[str]], lowercase: bool = False, return_counts: bool = False
):
    """(sentence BLEU-1 of every question, corpus BLEU-1 over all of them); with ``return_counts`` also
    the ``(n, 4)`` array of per-question (clipped matches, max(1, hyp_len), closest ref_len, hyp_len),
    whose column sums give the corpus form."""
    per_example = np.empty(len(predictions), dtype=np.float64)
    counts = np.zeros((len(predictions), 4), dtype=np.float64)
    totals = [0, 0, 0, 0]
    for i, (pred, refs) in enumerate(zip(predictions, references)):
        row = _counts(tokenize(pred, lowercase), [tokenize(r, lowercase) for r in refs])
        per_example[i] = _bleu(*row)
        counts[i] = row
        for k in range(4):
            totals[k] += row[k]
    corpus = _bleu(*totals) if len(predictions) else 0.0
    return (per_example, corpus, counts) if return_counts else (per_example, corpus)


def corpus_bleu1(counts) -> float:
    """Corpus BLEU-1 from the per-question counts of :func:`bleu1_scores` (``return_counts``), pooled as
    it pools them: the column sums as whole numbers (0.0 for no questions)."""
    counts = np.asarray(counts)
    if not len(counts):
        return 0.0
    return _bleu(*np.asarray(counts, dtype=np.int64).sum(axis=0).tolist())
