"""CodeBLEU's n-gram components: BLEU-4 and the keyword-weighted n-gram match, from per-example counts.

Pure standard-library code (a component of :mod:`multimodal_metrics.codebleu.corpus`).
"""

import math
import operator
from collections import _count_elements  # the C counting loop of Counter
from itertools import repeat

EPSILON = 0.1
OTHER_TOKEN_WEIGHT = 0.2
_POSITIVE = (0).__lt__


def ngram_counts(tokens, max_n=4) -> list:
    """[counts of the unigrams (keyed by the token), of the bigrams (keyed by token tuples), ...,
    of the max_n-grams]: plain dicts, filled by the C counting loop of ``collections.Counter``."""
    out = [{}]
    _count_elements(out[0], tokens)
    shifted = [tokens]
    for n in range(2, max_n + 1):
        shifted.append(tokens[n - 1 :])
        counts = {}
        _count_elements(counts, zip(*shifted))
        out.append(counts)
    return out


def _closest_ref_length(ref_lens, hyp_len) -> int:
    return min(ref_lens, key=lambda r: (abs(r - hyp_len), r))


def _brevity_penalty(closest_ref_len, hyp_len) -> float:
    if hyp_len > closest_ref_len:
        return 1
    if hyp_len == 0:
        return 0
    return math.exp(1 - closest_ref_len / hyp_len)


def _combine(numerators, denominators, ref_len, hyp_len, max_n=4) -> float:
    if numerators[0] == 0:
        return 0.0
    bp = _brevity_penalty(ref_len, hyp_len)
    logs = []
    for num, den in zip(numerators, denominators):
        if num == 0:
            num = num + EPSILON
        logs.append((1.0 / max_n) * math.log(num / den))
    return float(bp * math.exp(math.fsum(logs)))


def clipped_overlap(a: dict, b: dict, a_total: int = -1, b_total: int = -1) -> int:
    """sum over keys of min(count_a, count_b) (symmetric: clipped matches either way). ``a_total``,
    ``b_total``: the sums of the counts, when known. A side whose every count is 1 (as many keys as
    its total, the usual case for longer n-grams) makes it the number of common keys; otherwise it is
    total_a - sum of the positive (count_a - count_b), with C-level passes only."""
    if len(a) == a_total or len(b) == b_total:
        return len(a.keys() & b.keys())
    if len(a) > len(b):
        a, b, a_total = b, a, b_total
    if a_total < 0:
        a_total = sum(a.values())
    return a_total - sum(filter(_POSITIVE, map(operator.sub, a.values(), map(b.get, a, repeat(0)))))


def ngram_stats(hyp, refs, hyp_len, ref_lens, keywords, max_n=4):
    """Sufficient statistics of one example for BLEU and for the weighted n-gram match:
    two tuples (numerators, denominators, ref_len, hyp_len). ``hyp`` and each of ``refs``: the
    ``ngram_counts`` of a token list (counted once per distinct code string); ``hyp_len``, ``ref_lens``:
    the token counts; unigrams in ``keywords`` weigh 1, others OTHER_TOKEN_WEIGHT."""
    single = len(refs) == 1
    # BLEU: modified precision, clipped by the max count over the references
    b_nums, b_dens = [], []
    for k in range(max_n):
        counts = hyp[k]
        if single:
            b_nums.append(clipped_overlap(counts, refs[0][k], max(0, hyp_len - k), max(0, ref_lens[0] - k)))
        else:
            b_nums.append(sum(min(c, max(r[k].get(g, 0) for r in refs)) for g, c in counts.items()))
        b_dens.append(max(1, hyp_len - k))
    bleu = (b_nums, b_dens, _closest_ref_length(ref_lens, hyp_len), hyp_len)
    # weighted n-gram match: recall over every reference, unigrams weighted by keyword-ness
    w_nums, w_dens = [0] * max_n, [0] * max_n
    h = hyp[0].get
    for ref_len, ref in zip(ref_lens, refs):
        num = den = 0
        for gram, count in ref[0].items():  # same order and float operations as the reference
            w = 1 if gram in keywords else OTHER_TOKEN_WEIGHT
            num += min(count, h(gram, 0)) * w
            den += count * w
        w_nums[0] += num
        w_dens[0] += max(1, den)
        for k in range(1, max_n):
            w_nums[k] += (
                b_nums[k]
                if single
                else clipped_overlap(hyp[k], ref[k], max(0, hyp_len - k), max(0, ref_len - k))
            )
            w_dens[k] += max(1, ref_len - k)
    # Reference quirk: its brevity penalty measures each [tokens, weights] pair, so every reference
    # has "length" 2 and BP = 1 as soon as the hypothesis has more than 2 tokens.
    weighted = (w_nums, w_dens, 2, hyp_len)
    return bleu, weighted


def corpus_bleu(stats) -> float:
    nums = [0] * 4
    dens = [0] * 4
    ref_len = hyp_len = 0
    for n_, d_, r, h in stats:
        for i in range(4):
            nums[i] += n_[i]
            dens[i] += d_[i]
        ref_len += r
        hyp_len += h
    return _combine(nums, dens, ref_len, hyp_len)
