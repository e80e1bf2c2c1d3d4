"""How sure is a score: bootstrap confidence intervals and paired significance tests (numpy only).

Every metric of the collection reduces per-example *sufficient statistics* (an ``(n, m)`` array: one
row per example, e.g. the score itself, or tp/fp/fn, or n-gram match counts) to its scores by a
function of their column sums. Resampling examples therefore only needs resampled column sums:

* Bootstrap (Efron): draw ``R`` resamples of the ``n`` rows with replacement, score every resample from
  its column sums, and take the percentile interval ``[q((1-c)/2), q((1+c)/2)]`` of the ``R`` scores
  (``numpy.quantile``, linear interpolation; NaN resample scores are ignored).
* Paired tests: both count the null statistics AT LEAST as extreme as the observed one, ties included
  (the randomisation test's own definition, Noreen 1989; ``null >= observed - tol`` with
  ``tol = 1e-9 * max(1, |A|, |B|)``, so a tie computed with rounding error still counts), with the
  ``+ 1`` of a valid Monte-Carlo p-value: ``p = (#{t : null_t >= |A - B| - tol} + 1) / (T + 1)``, and
  exactly 1 for two identical systems.

  * Approximate randomisation (Riezler & Maxwell 2005, the swap draws of sacrebleu ``--paired-ar``):
    each trial swaps the rows of A and B with probability 1/2 independently per example;
    ``null_t = |A'_t - B'_t|``.
  * Paired bootstrap resampling (Koehn 2004, the resamples of sacrebleu ``--paired-bs``): the same
    resampled rows score A and B; ``d_r = A_r - B_r``, and the null distribution is the resampled
    difference shifted to 0, ``null_r = |d_r - (A - B)|`` (Efron & Tibshirani 1993, 16.4).

  On 0/1 scores (VQA accuracy, exact match) most trials tie with the observed difference; counting only
  ``null > observed``, as sacrebleu does, then rejects about 10% of equally good systems at 0.05.
  sacrebleu's rule stays available as ``p_value="sacrebleu"`` (its p-values to the last digit on its
  BLEU statistics: ``#{t : null_t > |A - B|}`` with, for the bootstrap, ``null_r = |d_r| - mean(|d_r|)``,
  and 1 for a difference of exactly 0); the rule is recorded in the compare signature (``p:ge`` /
  ``p:sacrebleu``).

Random numbers come from ``numpy.random.default_rng(seed)`` (default seed 12345, sacrebleu's):
the bootstrap row indices of resample r are row r of ``rng.integers(0, n, size=(R, n))`` and the AR
swap masks those of ``rng.integers(2, size=(T, n), dtype=bool)``, drawn in chunks of at most
``CHUNK_ELEMENTS`` numbers (whole rows), so memory stays bounded and the same (data, R, seed)
always gives the same numbers. When one chunk holds everything (R * n <= CHUNK_ELEMENTS) the
indices are exactly sacrebleu's ``rng.choice(n, size=(R, n))``. Nothing loops over resamples in
Python: a chunk's sums are ``take(column, indices).sum(axis=1)``, a matrix product for AR.

The evaluate side (intervals in ``compute``, ``metric.compare``) is the ``PairedComparison`` mixin of
``multimodal_metrics.hf``; the FID bootstrap lives with FID in ``multimodal_metrics.fid_clip.resampling``.
"""

import math
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .inputs import check_text_system, naming_system

# the resampling options are declared with the other option checks (options.py); read here as stats.*
from .options import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    RESAMPLING,
    Resampling,
    check_choice,
    check_confidence,
    check_resamples,
    check_seed,
)
from .results import Result, Signature

DEFAULT_AR_TRIALS = 10000
CHUNK_ELEMENTS = 1 << 22
TESTS = ("paired_bootstrap", "approximate_randomization")
P_VALUES = ("ge", "sacrebleu")  # ties counted (default) / sacrebleu's strict count
DEFAULT_P_VALUE = "ge"
TIE_TOLERANCE = 1e-9  # relative to max(1, |A|, |B|)
_TEST_TAGS = {"paired_bootstrap": "paired-bs", "approximate_randomization": "paired-ar"}


def check_test(test, arg: str = "test") -> str:
    """The name of a paired test (one of ``TESTS``), as the plain ``str``; an array, a list or another
    non-string is a TypeError naming ``arg`` (never "unhashable type" or an ambiguous truth value)."""
    return check_choice(test, TESTS, arg)


def split_resampling(options: Mapping[str, object]) -> tuple[dict, Resampling]:
    """(the other options, the checked :class:`Resampling`) of a dict of ``compute`` options."""
    rest = {key: value for key, value in options.items() if key not in RESAMPLING}
    return rest, Resampling(**{key: options.get(key) for key in RESAMPLING.names})


# ----------------------------------------------------------------------------------------------
# Sufficient statistics
# ----------------------------------------------------------------------------------------------
class Statistic:
    """Per-example sufficient statistics and the scores they give.

    ``stats``: ``(n, m)`` array, one row per resampling unit (question, image, code pair).
    ``fn(sums)``: maps column sums, shape ``(..., m)``, to the scores, shape ``(..., len(keys))``,
    vectorised over the leading axes; it is called with sums over ``n`` rows (a resample, a shuffled
    system and the full data all have ``n`` rows). ``fn(stats.sum(0))`` equals the metric's result.
    """

    def __init__(self, keys: Sequence[str], stats, fn: Callable[[np.ndarray], np.ndarray]):
        self.keys = tuple(keys)
        stats = np.asarray(stats, dtype=np.float64)
        if stats.ndim == 1:
            stats = stats[:, None]
        if stats.ndim != 2:
            raise ValueError(f"sufficient statistics must be an (n, m) array, got shape {stats.shape}")
        self.stats = np.asfortranarray(stats)  # columns contiguous: resampling gathers column by column
        self.fn = fn

    @property
    def n(self) -> int:
        return self.stats.shape[0]

    def scores(self, sums) -> np.ndarray:
        out = np.asarray(self.fn(np.asarray(sums, dtype=np.float64)), dtype=np.float64)
        return out.reshape(*np.shape(sums)[:-1], len(self.keys))

    def value(self) -> np.ndarray:
        """The scores on the full data, shape ``(len(keys),)``."""
        return self.scores(self.stats.sum(axis=0))


def mean_statistic(columns: Mapping[str, Sequence[float]]) -> Statistic:
    """Scores that are means over examples: ``{key: per-example values}`` -> Statistic of the means."""
    keys = list(columns)
    stats = np.column_stack([np.asarray(columns[k], dtype=np.float64).reshape(-1) for k in keys])
    n = stats.shape[0]
    return Statistic(keys, stats, lambda sums: sums / max(n, 1))


def ratio(numerator, denominator, empty: float = 0.0) -> np.ndarray:
    """``numerator / denominator`` elementwise, ``empty`` where the denominator is 0."""
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast(num, den).shape, float(empty))
    np.divide(num, den, out=out, where=den != 0)
    return out


def precision_recall_f1(tp, fp, fn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Micro precision, recall and F1 from pooled counts; 0 for a 0 denominator (F1 0 when P = R = 0)."""
    tp = np.asarray(tp, dtype=np.float64)
    precision = ratio(tp, tp + np.asarray(fp, dtype=np.float64))
    recall = ratio(tp, tp + np.asarray(fn, dtype=np.float64))
    f1 = ratio(2 * precision * recall, precision + recall)
    return precision, recall, f1


def brevity_penalty(ref_len, hyp_len) -> np.ndarray:
    """BLEU's brevity penalty: 1 if hyp_len > ref_len, 0 if hyp_len = 0, else exp(1 - ref_len / hyp_len)."""
    ref_len = np.asarray(ref_len, dtype=np.float64)
    hyp_len = np.asarray(hyp_len, dtype=np.float64)
    short = np.exp(1.0 - ratio(ref_len, hyp_len, empty=0.0))
    return np.where(hyp_len > ref_len, 1.0, np.where(hyp_len == 0, 0.0, short))


def bleu(
    numerators, denominators, ref_len, hyp_len, weights=None, zero_floor: float | None = None
) -> np.ndarray:
    """Corpus BLEU from pooled counts, vectorised over leading axes.

    ``numerators``/``denominators``: ``(..., N)`` clipped n-gram matches and n-gram totals;
    ``BLEU = BP(ref_len, hyp_len) * exp(sum_k w_k * log(p_k))``, ``p_k = num_k / den_k``, ``w_k = 1/N``
    by default. 0 when no unigram matches. A zero numerator of a higher order is replaced by
    ``zero_floor`` (CodeXGLUE's epsilon 0.1 = sacrebleu's "floor" smoothing); with no floor it gives 0.
    """
    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    order = num.shape[-1]
    w = np.full(order, 1.0 / order) if weights is None else np.asarray(weights, dtype=np.float64)
    if zero_floor is not None:
        num = np.where(num == 0, zero_floor, num)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(ratio(num, den)) * w
    score = brevity_penalty(ref_len, hyp_len) * np.exp(logs.sum(axis=-1))
    no_match = np.asarray(numerators, dtype=np.float64)[..., 0] == 0
    return np.where(no_match, 0.0, np.nan_to_num(score, nan=0.0))


# ----------------------------------------------------------------------------------------------
# Resampling
# ----------------------------------------------------------------------------------------------
def _chunks(n_rows: int, n: int):
    step = max(1, CHUNK_ELEMENTS // max(n, 1))
    for start in range(0, n_rows, step):
        yield start, min(step, n_rows - start)


def bootstrap_indices(n: int, n_resamples: int, seed: int):
    """``(start, indices)`` chunks of the bootstrap row indices: exactly those of :func:`bootstrap_sums`
    (same seed, same chunks), so a FID resample and a CLIP-score resample pick the same images."""
    rng = np.random.default_rng(seed)
    for start, rows in _chunks(n_resamples, n):
        yield start, rng.integers(0, n, size=(rows, n))


def resampled_sums(stats: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Column sums of the rows picked by every row of ``indices``: ``(rows, m)``."""
    return np.stack([np.take(column, indices, mode="clip").sum(axis=1) for column in stats.T], axis=-1)


def bootstrap_sums(stats_list: Sequence[np.ndarray], n_resamples: int, seed: int) -> list[np.ndarray]:
    """Resampled column sums ``(R, m_j)`` of each ``(n, m_j)`` array, all with the SAME row indices."""
    n = stats_list[0].shape[0]
    out = [np.empty((n_resamples, s.shape[1])) for s in stats_list]
    for start, indices in bootstrap_indices(n, n_resamples, seed):
        for stats, sums in zip(stats_list, out):
            sums[start : start + len(indices)] = resampled_sums(stats, indices)
    return out


def percentile_interval(samples, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of bootstrap scores ``(R, k)`` along axis 0; NaN scores are ignored."""
    samples = np.asarray(samples, dtype=np.float64)
    alpha = (1.0 - confidence) / 2.0
    if np.isnan(samples).any():
        low, high = np.nanquantile(samples, [alpha, 1.0 - alpha], axis=0)
    else:
        low, high = np.quantile(samples, [alpha, 1.0 - alpha], axis=0)
    return low, high


def bootstrap_interval(
    statistic: Statistic,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, tuple[float, float]]:
    """Percentile bootstrap interval of every score of ``statistic``: ``{key: (low, high)}``."""
    confidence = check_confidence(confidence)
    n_resamples = check_resamples(n_resamples)
    seed = check_seed(seed)
    if statistic.n == 0:
        return {key: (math.nan, math.nan) for key in statistic.keys}
    (sums,) = bootstrap_sums([statistic.stats], n_resamples, seed)
    low, high = percentile_interval(statistic.scores(sums), confidence)
    return {key: (float(lo), float(hi)) for key, lo, hi in zip(statistic.keys, low, high)}


def bootstrap_mean_interval(
    scores, confidence: float = 0.95, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of per-example ``scores``."""
    return bootstrap_interval(mean_statistic({"mean": scores}), confidence, n_resamples, seed)["mean"]


def interval_values(statistic: Statistic, resampling: Resampling) -> dict[str, float]:
    """``{"<key>_ci_low": ..., "<key>_ci_high": ...}`` for every key, or ``{}`` when no interval is asked."""
    if not resampling.enabled:
        return {}
    out = {}
    intervals = bootstrap_interval(statistic, resampling.confidence, resampling.n_resamples, resampling.seed)
    for key, (low, high) in intervals.items():
        out[f"{key}_ci_low"] = low
        out[f"{key}_ci_high"] = high
    return out


# ----------------------------------------------------------------------------------------------
# Paired tests
# ----------------------------------------------------------------------------------------------
def _check_pair(a: Statistic, b: Statistic) -> None:
    if a.keys != b.keys or a.stats.shape != b.stats.shape:
        raise ValueError(
            f"the two systems must be scored on the same examples with the same options "
            f"(keys {a.keys} vs {b.keys}, statistics {a.stats.shape} vs {b.stats.shape})"
        )
    if a.n == 0:
        raise ValueError("a paired test needs at least one example")


def check_p_value(rule, arg: str = "p_value") -> str:
    """``"ge"`` (ties counted, the default) or ``"sacrebleu"`` (sacrebleu's strict count)."""
    if not isinstance(rule, str) or rule not in P_VALUES:
        raise ValueError(f"`{arg}` must be one of {list(P_VALUES)}, got {rule!r}")
    return rule


def tie_tolerance(value_a, value_b) -> np.ndarray:
    """``TIE_TOLERANCE * max(1, |A|, |B|)`` per key: how far below the observed statistic a null statistic
    still counts as a tie (both are computed from sums in floating point)."""
    scale = np.maximum(1.0, np.maximum(np.abs(value_a), np.abs(value_b)))
    return TIE_TOLERANCE * np.nan_to_num(scale, nan=1.0, posinf=1.0)


def p_value(null_statistics, observed, tolerance=0.0, rule: str = DEFAULT_P_VALUE) -> np.ndarray:
    """Monte-Carlo p-value per column. ``rule="ge"``: ``(#{t : null_t >= observed - tolerance} + 1) / (T + 1)``
    (ties count; 1 when every null statistic ties, e.g. two identical systems). ``rule="sacrebleu"``:
    ``(#{t : null_t > observed} + 1) / (T + 1)``, and 1 where the observed difference is exactly 0 (multeval /
    sacrebleu)."""
    null_statistics = np.asarray(null_statistics, dtype=np.float64)
    observed = np.asarray(observed, dtype=np.float64)
    if rule == "sacrebleu":
        count = (null_statistics > observed).sum(axis=0)
        return np.where(observed == 0, 1.0, (count + 1.0) / (null_statistics.shape[0] + 1.0))
    count = (null_statistics >= observed - tolerance).sum(axis=0)
    return np.minimum(1.0, (count + 1.0) / (null_statistics.shape[0] + 1.0))


def paired_bootstrap(
    a: Statistic,
    b: Statistic,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    p_value_rule: str = DEFAULT_P_VALUE,
) -> dict[str, dict[str, float]]:
    """Paired bootstrap resampling of systems A and B on the same examples.

    Per key: ``score_a``, ``score_b``, ``difference`` (A - B on the full data), ``ci_low``/``ci_high``
    (percentile interval of the resampled A - B) and the two-sided ``p_value``: with ``p_value_rule="ge"``
    (default) the share of resampled differences shifted to 0, ``|d_r - (A - B)|``, at least as large as
    ``|A - B|`` (ties counted); with ``"sacrebleu"`` sacrebleu's paired-bs count (``|d_r|`` centred on its
    mean, strictly larger than ``|A - B|``).
    """
    _check_pair(a, b)
    n_resamples = check_resamples(n_resamples)
    seed = check_seed(seed)
    confidence = check_confidence(confidence)
    p_value_rule = check_p_value(p_value_rule)
    sums_a, sums_b = bootstrap_sums([a.stats, b.stats], n_resamples, seed)
    diffs = a.scores(sums_a) - b.scores(sums_b)
    value_a, value_b = a.value(), b.value()
    observed = np.abs(value_a - value_b)
    if p_value_rule == "sacrebleu":
        spread = np.abs(diffs)
        p = p_value(spread - spread.mean(axis=0), observed, rule="sacrebleu")
    else:
        p = p_value(np.abs(diffs - (value_a - value_b)), observed, tie_tolerance(value_a, value_b))
    low, high = percentile_interval(diffs, confidence)
    return _paired_result(a.keys, value_a, value_b, low, high, p)


def approximate_randomization(
    a: Statistic,
    b: Statistic,
    n_trials: int = DEFAULT_AR_TRIALS,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    p_value_rule: str = DEFAULT_P_VALUE,
) -> dict[str, dict[str, float]]:
    """Paired approximate randomisation test of A and B on the same examples (sacrebleu paired-ar's draws).

    Per key the same fields as :func:`paired_bootstrap`; ``p_value`` from ``n_trials`` random swaps
    (``p_value_rule="ge"``: trials at least as far apart as A and B count, ties included; ``"sacrebleu"``:
    strictly farther), the interval of A - B from a paired bootstrap with ``n_resamples`` (same seed).
    """
    _check_pair(a, b)
    n_trials = check_resamples(n_trials)
    seed = check_seed(seed)
    p_value_rule = check_p_value(p_value_rule)
    n = a.n
    total_a, total_b = a.stats.sum(axis=0), b.stats.sum(axis=0)
    delta = a.stats - b.stats
    rng = np.random.default_rng(seed)
    spread = np.empty((n_trials, len(a.keys)))
    for start, rows in _chunks(n_trials, n):
        swap = rng.integers(2, size=(rows, n), dtype=bool)
        moved = swap.astype(np.float64) @ delta  # rows swapped: A' = A - moved, B' = B + moved
        spread[start : start + rows] = np.abs(a.scores(total_a - moved) - b.scores(total_b + moved))
    value_a, value_b = a.value(), b.value()
    p = p_value(spread, np.abs(value_a - value_b), tie_tolerance(value_a, value_b), p_value_rule)
    interval = paired_bootstrap(a, b, n_resamples, seed, confidence)
    low = np.array([interval[k]["ci_low"] for k in a.keys])
    high = np.array([interval[k]["ci_high"] for k in a.keys])
    return _paired_result(a.keys, value_a, value_b, low, high, p)


def _paired_result(keys, value_a, value_b, low, high, p) -> dict[str, dict[str, float]]:
    return {
        key: {
            "score_a": float(value_a[i]),
            "score_b": float(value_b[i]),
            "difference": float(value_a[i] - value_b[i]),
            "ci_low": float(low[i]),
            "ci_high": float(high[i]),
            "p_value": float(p[i]),
        }
        for i, key in enumerate(keys)
    }


MIN_BOOTSTRAP_EXAMPLES = (
    30  # below it the paired bootstrap's p-value is too small (tests/test_careful_warnings.py)
)


def _warn_if_too_few(n: int, test: str) -> None:
    """A warning when ``n`` examples are too few for ``test``: the paired bootstrap rejects a true null more
    often than its level says (on 1 example every difference gets p = 1 / (n_resamples + 1)), and the
    randomisation test cannot give a p-value below 2 ** (1 - n)."""
    if test == "paired_bootstrap" and n < MIN_BOOTSTRAP_EXAMPLES:
        warnings.warn(
            f"paired_bootstrap on {n} example(s): with fewer than {MIN_BOOTSTRAP_EXAMPLES} its p-value is too small "
            "(a true null is rejected more often than the level says; on 1 example every difference gets "
            'p = 1 / (n_resamples + 1)): use test="approximate_randomization" (valid, if cautious, on few examples)',
            UserWarning,
            stacklevel=4,
        )
    elif test == "approximate_randomization" and 2.0 ** (1 - n) > 0.05:
        warnings.warn(
            f"approximate_randomization on {n} example(s): no p-value below 2 ** (1 - n) = {2.0 ** (1 - n):g} "
            "is possible, so no difference can be significant at 0.05 (6 examples at least)",
            UserWarning,
            stacklevel=4,
        )


def paired_test(
    a: Statistic,
    b: Statistic,
    test: str = "paired_bootstrap",
    n_resamples=None,
    seed=None,
    confidence=0.95,
    p_value=DEFAULT_P_VALUE,
) -> tuple[dict[str, dict[str, float]], dict]:
    """Run ``test`` ("paired_bootstrap" or "approximate_randomization"); returns (results per key,
    signature fields ``{"test", "n", "conf", "seed", "p"}``). ``n_resamples`` defaults to 1000 resamples
    (bootstrap) or 10000 trials (randomisation), ``seed`` to 12345, ``p_value`` to "ge" (ties counted;
    "sacrebleu": sacrebleu's strict count)."""
    test = check_test(test)
    rule = check_p_value(p_value)
    seed = DEFAULT_SEED if seed is None else check_seed(seed)
    confidence = check_confidence(confidence)
    _warn_if_too_few(a.n, test)
    if test == "paired_bootstrap":
        n = DEFAULT_RESAMPLES if n_resamples is None else check_resamples(n_resamples)
        results = paired_bootstrap(a, b, n, seed, confidence, p_value_rule=rule)
    else:
        n = DEFAULT_AR_TRIALS if n_resamples is None else check_resamples(n_resamples)
        results = approximate_randomization(a, b, n, seed, confidence, p_value_rule=rule)
    return results, {"test": _TEST_TAGS[test], "n": n, "conf": confidence, "seed": seed, "p": rule}


def paired_comparison(
    a: Statistic,
    b: Statistic,
    signature,
    test="approximate_randomization",
    n_resamples=None,
    seed=None,
    confidence=0.95,
    p_value=DEFAULT_P_VALUE,
) -> dict:
    """The flat result of ``compare``: per score key ``<key>_a``, ``<key>_b``, ``<key>_difference`` (A - B),
    ``<key>_difference_ci_low``/``_high`` and ``<key>_p_value``, then ``signature`` (the scoring
    signature of A plus the test, its size, seed and p-value rule, before ``v:``). ``signature``: A's
    :class:`~multimodal_metrics.results.Signature` (``result.get_signature()``)."""
    results, fields = paired_test(a, b, test, n_resamples, seed, confidence, p_value)
    out = {}
    for key, values in results.items():
        out[f"{key}_a"] = values["score_a"]
        out[f"{key}_b"] = values["score_b"]
        out[f"{key}_difference"] = values["difference"]
        out[f"{key}_difference_ci_low"] = values["ci_low"]
        out[f"{key}_difference_ci_high"] = values["ci_high"]
        out[f"{key}_p_value"] = values["p_value"]
    if not isinstance(signature, Signature):
        raise TypeError(
            f"`signature` must be a Signature (result.get_signature()), got {type(signature).__name__}"
        )
    out["signature"] = signature.with_fields(fields).format()
    return out


def check_compare(test, p_value, options: Mapping) -> str:
    """``compare``'s checks of its own arguments, before anything is scored: the name of the ``test`` (returned
    as the plain ``str``), the ``p_value`` rule, and no resampling option or ``return_per_example`` among the
    ``options`` of the two scoring runs."""
    test = check_test(test)
    check_p_value(p_value)
    for arg in (*RESAMPLING.names, "return_per_example"):
        if arg in options:
            raise ValueError(f"`{arg}` is not an option of compare's scoring runs")
    return test


def check_systems(systems, references, check_system=check_text_system) -> None:
    """``compare``'s check of both systems (``(("predictions_a", ...), ("predictions_b", ...))``) before either
    is scored: each given, and ``check_system(predictions, arg, references)`` (None: no such check)."""
    for arg, predictions in systems:
        if predictions is None:
            raise ValueError(f"`{arg}` is required (got None)")
        if check_system is not None:
            check_system(predictions, arg, references)


def compare_scores(
    score,
    predictions_a,
    predictions_b,
    references,
    test="approximate_randomization",
    n_resamples=None,
    seed=None,
    confidence=0.95,
    p_value=DEFAULT_P_VALUE,
    *,
    check_system=check_text_system,
    **kwargs,
) -> dict:
    """The library's ``compare``: ``score(predictions, references, **kwargs)`` of systems A and B (the
    same options, no resampling options), then :func:`paired_comparison` of their statistics
    (``p_value``: "ge", ties counted, or "sacrebleu"). ``check_system(predictions, arg, references)`` checks
    both systems before either is scored (None: no such check); errors name ``predictions_a``/``_b``. A
    ``score`` that returns a :class:`~multimodal_metrics.results.Result` hands its ``Signature`` on;
    another returns an object with ``metric``, ``statistic`` and ``signature`` (a ``Signature``)."""
    test = check_compare(test, p_value, kwargs)
    systems = (("predictions_a", predictions_a), ("predictions_b", predictions_b))
    check_systems(systems, references, check_system)
    results = []
    for arg, predictions in systems:
        with naming_system(arg):
            results.append(score(predictions, references, **kwargs))
    a, b = results
    if a.statistic is None:
        raise ValueError(f"{a.metric}: this score has no per-example statistics to pair")
    signature = a.get_signature() if isinstance(a, Result) else a.signature
    return paired_comparison(
        a.statistic, b.statistic, signature, test, n_resamples, seed, confidence, p_value
    )


COMPARE_DOC = """Paired significance test of systems A and B on the same references (see
    ``stats.paired_comparison``); ``kwargs``: ``preset`` and the options, the same for both."""


def compare_function(score, doc: str | None = None, check_system=check_text_system):
    """A metric's ``compare(predictions_a, predictions_b, references, test="approximate_randomization", *,
    n_resamples=None, seed=None, confidence=0.95, p_value="ge", **kwargs)``, with ``doc`` as its docstring
    (default :data:`COMPARE_DOC`), defined in ``score``'s module: :func:`compare_scores` of ``score``
    (``p_value``: "ge", ties counted, or "sacrebleu"), both systems checked by ``check_system``."""

    def compare(
        predictions_a,
        predictions_b,
        references,
        test="approximate_randomization",
        *,
        n_resamples=None,
        seed=None,
        confidence=0.95,
        p_value=DEFAULT_P_VALUE,
        **kwargs,
    ) -> dict:
        systems = (predictions_a, predictions_b, references)
        test_options = {"test": test, "n_resamples": n_resamples, "seed": seed, "confidence": confidence}
        return compare_scores(
            score, *systems, p_value=p_value, check_system=check_system, **test_options, **kwargs
        )

    compare.__doc__ = doc or COMPARE_DOC
    compare.__module__, compare.__qualname__ = score.__module__, "compare"
    return compare
