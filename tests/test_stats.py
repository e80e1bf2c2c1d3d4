"""The shared resampling helper (multimodal_metrics.stats): bootstrap intervals and paired tests.

Coverage of the percentile interval on data with a known mean, calibration of the paired tests under
the null (0/1, discrete and continuous scores, ties counted) and their power on a real difference,
sacrebleu 2.6.0 as an oracle (p_value="sacrebleu") for the paired bootstrap
and the approximate randomisation test (same seed -> same resample indices -> same p-values), and
the vectorised statistics against the metrics' own scalar code.
"""

import time

import numpy as np
import pytest

from multimodal_metrics import stats as S  # noqa: E402
from multimodal_metrics.fid_clip import resampling as R  # noqa: E402
from multimodal_metrics.results import Signature  # noqa: E402


# ----------------------------------------------------------------------------------------------
# Options
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"confidence": 1.0}, ValueError, "confidence"),
        ({"confidence": 0}, ValueError, "confidence"),
        ({"confidence": True}, TypeError, "confidence"),
        ({"confidence": "0.95"}, TypeError, "confidence"),
        ({"confidence": float("nan")}, ValueError, "confidence"),
        ({"confidence": 0.9, "n_resamples": 0}, ValueError, "n_resamples"),
        ({"confidence": 0.9, "n_resamples": 10**7}, ValueError, "n_resamples"),
        ({"confidence": 0.9, "n_resamples": 10.0}, TypeError, "n_resamples"),
        ({"confidence": 0.9, "n_resamples": True}, TypeError, "n_resamples"),
        ({"confidence": 0.9, "seed": -1}, ValueError, "seed"),
        ({"confidence": 0.9, "seed": "1"}, TypeError, "seed"),
    ],
)
def test_bad_resampling_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        S.Resampling(**kwargs)


def test_resampling_defaults_and_signature_fields():
    off = S.Resampling()
    assert not off.enabled and off.signature_fields() == {}
    on = S.Resampling(np.float64(0.9), np.int64(200), 7)
    assert on.signature_fields() == {"ci": "bs-pct", "conf": 0.9, "bs": 200, "seed": 7}
    assert S.Resampling(0.95).signature_fields() == {"ci": "bs-pct", "conf": 0.95, "bs": 1000, "seed": 12345}


# ----------------------------------------------------------------------------------------------
# Bootstrap intervals
# ----------------------------------------------------------------------------------------------
def test_resampled_sums_are_those_of_sacrebleus_index_matrix():
    """One chunk: row r of rng.choice(n, size=(R, n)) with default_rng(seed), as sacrebleu draws them."""
    x = np.random.default_rng(3).random((57, 3))
    (sums,) = S.bootstrap_sums([x], 40, 99)
    idx = np.random.default_rng(99).choice(57, size=(40, 57), replace=True)
    expected = np.array([x[row].sum(axis=0) for row in idx])
    np.testing.assert_allclose(sums, expected, rtol=1e-12)


def test_interval_is_deterministic_and_seeded(monkeypatch):
    scores = np.random.default_rng(0).random(500)
    a = S.bootstrap_mean_interval(scores, 0.95, 300, 5)
    assert a == S.bootstrap_mean_interval(scores, 0.95, 300, 5)
    assert a != S.bootstrap_mean_interval(scores, 0.95, 300, 6)
    assert a[0] < scores.mean() < a[1]
    # many chunks: still deterministic, and close to the one-chunk interval
    monkeypatch.setattr(S, "CHUNK_ELEMENTS", 1000)
    b = S.bootstrap_mean_interval(scores, 0.95, 300, 5)
    assert b == S.bootstrap_mean_interval(scores, 0.95, 300, 5)
    assert abs(b[0] - a[0]) < 0.01 and abs(b[1] - a[1]) < 0.01


def test_degenerate_inputs():
    assert S.bootstrap_mean_interval([0.25], 0.95, 100, 1) == (0.25, 0.25)
    assert S.bootstrap_mean_interval(np.ones(50), 0.9, 100, 1) == (1.0, 1.0)
    low, high = S.bootstrap_interval(S.mean_statistic({"x": []}), 0.95, 10, 1)["x"]
    assert np.isnan(low) and np.isnan(high)


def test_percentile_interval_ignores_nan():
    samples = np.array([[np.nan], [1.0], [2.0], [3.0]])
    low, high = S.percentile_interval(samples, 0.5)
    assert (low[0], high[0]) == (1.5, 2.5)


def test_coverage_of_the_95_percent_interval_on_a_known_mean():
    """1,000 seeded trials of 200 draws from Beta(2, 5) (mean 2/7): the interval covers it ~95%."""
    rng = np.random.default_rng(2024)
    true_mean = 2 / 7
    covered = 0
    for trial in range(1000):
        scores = rng.beta(2, 5, size=200)
        low, high = S.bootstrap_mean_interval(scores, 0.95, 400, trial)
        covered += low <= true_mean <= high
    assert 0.925 <= covered / 1000 <= 0.97, covered


def test_coverage_of_a_ratio_of_sums():
    """Micro precision tp/(tp+fp) over 'images' with random counts: the interval covers the
    population ratio in ~90% of 500 trials at confidence 0.9."""
    rng = np.random.default_rng(7)
    p_true = 0.6
    covered = 0
    for trial in range(500):
        total = rng.integers(1, 6, size=150)
        tp = rng.binomial(total, p_true)
        stat = S.Statistic(
            ["precision"], np.column_stack([tp, total - tp]), lambda s: S.ratio(s[..., 0], s.sum(-1))
        )
        low, high = S.bootstrap_interval(stat, 0.9, 300, trial)["precision"]
        covered += low <= p_true <= high
    assert 0.86 <= covered / 500 <= 0.94, covered


def test_one_thousand_resamples_of_100k_scores_is_fast():
    """The vectorised path (no Python loop over resamples); the benchmark is benchmarks/bench_stats.py."""
    scores = np.random.default_rng(1).random(100_000)
    start = time.process_time()
    low, high = S.bootstrap_mean_interval(scores, 0.95, 1000, 1)
    elapsed = time.process_time() - start
    assert low < scores.mean() < high and high - low < 0.01
    assert elapsed < 10.0, f"{elapsed:.2f} s of CPU (about 0.4 s expected)"


def test_multi_column_statistics_share_the_resample_indices():
    x = np.random.default_rng(4).random(300)
    stat = S.mean_statistic({"a": x, "b": x})
    ci = S.bootstrap_interval(stat, 0.95, 200, 3)
    assert ci["a"] == ci["b"] == S.bootstrap_mean_interval(x, 0.95, 200, 3)


# ----------------------------------------------------------------------------------------------
# Paired tests
# ----------------------------------------------------------------------------------------------
def _pair(a, b):
    return S.mean_statistic({"score": a}), S.mean_statistic({"score": b})


def _rejection_margin(trials: int, level: float = 0.05) -> float:
    """level + 3 binomial standard deviations of a rejection rate over ``trials`` independent trials."""
    return level + 3 * np.sqrt(level * (1 - level) / trials)


def _equal_systems(rng, kind: str, n: int = 100):
    """Two equally good systems on ``n`` examples: 0/1 scores with exactly 20 discordant examples (each
    won by A or B with probability 1/2), discrete scores (levels of 1/4, many ties) or continuous ones."""
    if kind == "binary":
        a, b = np.zeros(n), np.zeros(n)
        a[:40] = b[:40] = 1.0
        who = rng.integers(2, size=20).astype(np.float64)
        a[40:60], b[40:60] = who, 1.0 - who
        return a, b
    if kind == "discrete":
        return rng.integers(0, 5, size=(2, n)) / 4.0
    return rng.random((2, n))


@pytest.mark.parametrize("kind", ["binary", "discrete", "continuous"])
def test_paired_tests_are_calibrated_under_the_null(kind):
    """300 pairs of equally good systems on 100 examples: both tests (ties counted) reject at most 5% at
    0.05, up to three binomial standard deviations of 300 trials (counting only `null >
    observed` rejected 10% on 0/1 scores)."""
    rng = np.random.default_rng(22)
    rejected = {"bs": 0, "ar": 0}
    p_ar = []
    for trial in range(300):
        a, b = _pair(*_equal_systems(rng, kind))
        rejected["bs"] += S.paired_bootstrap(a, b, 1000, trial)["score"]["p_value"] < 0.05
        p = S.approximate_randomization(a, b, 2000, trial, n_resamples=10)["score"]["p_value"]
        rejected["ar"] += p < 0.05
        p_ar.append(p)
    for test, count in rejected.items():
        assert count / 300 <= _rejection_margin(300), (test, count)
    if kind == "continuous":  # and not conservative to uselessness: p-values roughly uniform
        p_ar = np.sort(p_ar)
        assert np.max(np.abs(p_ar - np.arange(1, 301) / 300)) < 0.12
        assert rejected["ar"] >= 3


def test_sacrebleu_rule_is_anticonservative_on_binary_scores():
    """The same 0/1 systems under p_value_rule="sacrebleu" (ties not counted): the rejection rate is well
    above 5% (about 10% in the issue), which is why it is only a named option."""
    rng = np.random.default_rng(22)
    rejected = 0
    for trial in range(300):
        a, b = _pair(*_equal_systems(rng, "binary"))
        rejected += (
            S.approximate_randomization(a, b, 2000, trial, n_resamples=10, p_value_rule="sacrebleu")["score"][
                "p_value"
            ]
            < 0.05
        )
    assert rejected / 300 > 0.07, rejected


def test_paired_bootstrap_interval_under_the_null():
    """Exchangeable continuous systems: the paired bootstrap interval of A - B excludes 0 in about 5% of
    the trials; sacrebleu's paired-bs p-value (|A_r - B_r| centred on its mean, strict count) stays below
    about 0.45 and falls under 0.05 in about 10% of them (reproduced as sacrebleu defines it)."""
    rng = np.random.default_rng(11)
    p_sacrebleu, excludes_zero = [], 0
    for trial in range(300):
        scores = rng.random((2, 120))
        a, b = _pair(scores[0], scores[1])
        bs = S.paired_bootstrap(a, b, 300, trial)["score"]
        excludes_zero += not (bs["ci_low"] <= 0 <= bs["ci_high"])
        p_sacrebleu.append(S.paired_bootstrap(a, b, 300, trial, p_value_rule="sacrebleu")["score"]["p_value"])
    assert 0.01 <= excludes_zero / 300 <= 0.1, excludes_zero
    assert max(p_sacrebleu) < 0.6 and 0.03 <= np.mean(np.array(p_sacrebleu) < 0.05) <= 0.2


@pytest.mark.parametrize("test", list(S.TESTS))
def test_few_examples_give_large_p_values(test):
    """4 examples where the systems differ on 2 (one each way, or both the same way): the exact
    randomisation p-values are 1 and 0.5 (the bootstrap's, 1 and 2/16: a resample of 4 rows is
    all-or-nothing with probability 1/8); with 2 examples, at least 0.5. Never 1 / (T + 1)."""
    one_each = _pair([1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0, 1.0])
    same_way = _pair([1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0])
    two = _pair([1.0, 0.0], [0.0, 0.0])
    results, _ = S.paired_test(*one_each, test=test)
    assert results["score"]["p_value"] == 1.0
    results, _ = S.paired_test(*same_way, test=test)
    assert results["score"]["p_value"] >= (0.45 if test == "approximate_randomization" else 0.1)
    results, _ = S.paired_test(*two, test=test)
    assert results["score"]["p_value"] >= 0.45


def test_metric_compare_on_few_examples():
    """``ned.compare`` on 4 lines where the systems differ on 2 gave p = 0.0001 (exact: 0.5); two-example
    det_f1 and codebleu comparisons too. With ties counted: about 0.5 (randomisation, 10,000 trials), and
    the sacrebleu rule, asked for by name, still gives its 1 / (T + 1) and says so in the signature."""
    import warnings

    from multimodal_metrics import codebleu, det_f1, ned

    refs = ["abc", "def", "ghi", "jkl"]
    out = ned.compare(refs, ["abc", "def", "xyz", "uvw"], refs)
    for key in ("string_accuracy", "one_minus_ned", "cer"):
        assert out[f"{key}_p_value"] == pytest.approx(0.5, abs=0.02), key
    assert "|test:paired-ar|n:10000|conf:0.95|seed:12345|p:ge|v:" in out["signature"]
    strict = ned.compare(refs, ["abc", "def", "xyz", "uvw"], refs, p_value="sacrebleu")
    assert (
        strict["string_accuracy_p_value"] == pytest.approx(1 / 10001)
        and "|p:sacrebleu|" in strict["signature"]
    )
    with pytest.raises(ValueError, match="p_value"):
        ned.compare(refs, refs, refs, p_value="strict")
    # the evaluate module's compare: the same numbers, the same rule option
    from helpers import load_metric

    metric = load_metric("ned")
    via_module = metric.compare(
        predictions_a=refs, predictions_b=["abc", "def", "xyz", "uvw"], references=refs
    )
    assert via_module == out
    strict_module = metric.compare(
        predictions_a=refs, predictions_b=["abc", "def", "xyz", "uvw"], references=refs, p_value="sacrebleu"
    )
    assert strict_module == strict
    with pytest.raises(ValueError, match="p_value"):
        metric.compare(predictions_a=refs, predictions_b=refs, references=refs, p_value=1)

    boxes = [{"cat": [[0, 0, 10, 10]]}, {"cat": [[0, 0, 10, 10]]}]
    out = det_f1.compare(boxes, [{"cat": [[0, 0, 10, 10]]}, {"cat": [[50, 50, 10, 10]]}], boxes)
    assert out["f1_difference"] > 0 and out["f1_p_value"] >= 0.45

    code = ["def f(a):\n    return a + 1", "x = [i * 2 for i in range(3)]"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = codebleu.compare(code, ["def g(b):\n    pass", "y = 0"], code, lang="python")
    assert out["codebleu_difference"] > 0 and out["codebleu_p_value"] >= 0.45


def test_ties_within_the_tolerance_count():
    """A null statistic that equals the observed one up to rounding (sums of 0.1s) is a tie."""
    obs = np.array([0.3])
    null = np.array([[0.1 + 0.2], [0.0]])  # 0.30000000000000004 > 0.3 > 0.1 + 0.2 - 1e-9
    assert S.p_value(np.array([[0.3 - 1e-12], [0.0]]), obs, S.tie_tolerance(0.3, 0.0))[0] == pytest.approx(
        2 / 3
    )
    assert S.p_value(null, obs, 0.0)[0] == pytest.approx(2 / 3)
    assert S.p_value(np.array([[0.3 - 1e-12], [0.0]]), obs, rule="sacrebleu")[0] == pytest.approx(1 / 3)


def test_p_value_rule_is_checked_and_signed():
    a, b = _pair([1.0, 0.0, 1.0], [0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="p_value"):
        S.paired_test(a, b, p_value="strict")
    with pytest.raises(ValueError, match="p_value"):
        S.paired_comparison(a, b, Signature("x", "p", version="1"), p_value=None)
    assert "|p:ge|v:1" in S.paired_comparison(a, b, Signature("x", "p", version="1"))["signature"]
    assert (
        "|p:sacrebleu|v:1"
        in S.paired_comparison(a, b, Signature("x", "p", version="1"), p_value="sacrebleu")["signature"]
    )


def test_paired_tests_detect_a_real_difference():
    rng = np.random.default_rng(12)
    base = rng.random(400)
    better = np.clip(base + rng.normal(0.05, 0.05, size=400), 0, 1)
    a, b = _pair(better, base)
    bs = S.paired_bootstrap(a, b, 1000, 1)["score"]
    ar = S.approximate_randomization(a, b, 2000, 1)["score"]
    for res in (bs, ar):
        assert res["difference"] == pytest.approx(better.mean() - base.mean())
        assert res["p_value"] < 0.01
        assert 0 < res["ci_low"] < res["difference"] < res["ci_high"]
    # a system against itself: difference 0, p = 1 (every null statistic ties; sacrebleu: a special case)
    for same in (
        S.paired_bootstrap(b, b, 200, 1)["score"],
        S.approximate_randomization(b, b, 200, 1)["score"],
    ):
        assert same["difference"] == 0 and same["p_value"] == 1.0 and same["ci_low"] == same["ci_high"] == 0
    assert S.paired_bootstrap(b, b, 200, 1, p_value_rule="sacrebleu")["score"]["p_value"] == 1.0


def test_paired_test_refuses_mismatched_systems():
    a = S.mean_statistic({"score": np.ones(5)})
    with pytest.raises(ValueError, match="same examples"):
        S.paired_bootstrap(a, S.mean_statistic({"score": np.ones(6)}))
    with pytest.raises(ValueError, match="test"):
        S.paired_test(a, a, test="t-test")


def _sacrebleu_systems(seed=0, n=60, noise_a=0.3, noise_b=0.32):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(30)]
    refs = [" ".join(rng.choice(vocab, size=rng.integers(8, 16))) for _ in range(n)]

    def noisy(p):
        out = []
        for ref in refs:
            toks = [t if rng.random() > p else str(rng.choice(vocab)) for t in ref.split()]
            out.append(" ".join(toks))
        return out

    return refs, noisy(noise_a), noisy(noise_b)


def _bleu_statistic(stats):
    # sacrebleu BLEU stats per segment: [hyp_len, ref_len, correct_1..4, total_1..4]
    def fn(s):
        return 100 * S.bleu(s[..., 2:6], s[..., 6:10], s[..., 1], s[..., 0], zero_floor=0.1)

    return S.Statistic(["bleu"], stats, fn)


@pytest.mark.parametrize("test_type", ["bs", "ar"])
@pytest.mark.parametrize("seed", [0, 1])
def test_sacrebleu_paired_tests_as_oracle(test_type, seed):
    """p_value_rule="sacrebleu": same seed (12345) -> same resample indices / swap masks -> the same p-value
    as sacrebleu; the default rule (ties counted) gives a p-value at least as large."""
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    refs, sys_a, sys_b = _sacrebleu_systems(seed)
    metric = BLEU(smooth_method="floor", smooth_value=0.1)
    n_samples = 1000 if test_type == "bs" else 2000
    _, scores = PairedTest(
        [("baseline", sys_b), ("system", sys_a)],
        {"BLEU": metric},
        [refs],
        test_type=test_type,
        n_samples=n_samples,
    )()
    base_result, sys_result = scores["BLEU"]
    stats_a = np.array(metric._extract_corpus_statistics(sys_a, [refs]), dtype=np.float64)
    stats_b = np.array(metric._extract_corpus_statistics(sys_b, [refs]), dtype=np.float64)
    a, b = _bleu_statistic(stats_a), _bleu_statistic(stats_b)
    assert a.value()[0] == pytest.approx(sys_result.score, abs=1e-9)
    assert b.value()[0] == pytest.approx(base_result.score, abs=1e-9)
    if test_type == "bs":
        ours = S.paired_bootstrap(a, b, n_samples, 12345, p_value_rule="sacrebleu")["bleu"]
        default = S.paired_bootstrap(a, b, n_samples, 12345)["bleu"]
    else:
        ours = S.approximate_randomization(a, b, n_samples, 12345, n_resamples=10, p_value_rule="sacrebleu")[
            "bleu"
        ]
        default = S.approximate_randomization(a, b, n_samples, 12345, n_resamples=10)["bleu"]
        assert default["p_value"] >= ours["p_value"]
    assert 0.01 < sys_result.p_value < 0.5  # cases where the decision is not trivial
    assert ours["p_value"] == pytest.approx(sys_result.p_value, rel=1e-9)  # identical counts
    assert (ours["p_value"] < 0.05) == (sys_result.p_value < 0.05)


def test_sacrebleu_baseline_interval_from_the_same_resamples():
    """sacrebleu's bootstrap CI (mean +- half-width of the 2.5/97.5 order statistics) uses the same
    resampled scores as ours: its order statistics lie inside our percentile interval's neighbours."""
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import _bootstrap_resample

    refs, sys_a, _ = _sacrebleu_systems(1)
    metric = BLEU(smooth_method="floor", smooth_value=0.1)
    stats = metric._extract_corpus_statistics(sys_a, [refs])
    _, theirs = _bootstrap_resample(stats, metric, 1000)
    theirs = np.sort([s.score for s in theirs])
    stat = _bleu_statistic(np.array(stats, dtype=np.float64))
    (sums,) = S.bootstrap_sums([stat.stats], 1000, 12345)
    ours = np.sort(stat.scores(sums)[:, 0])
    np.testing.assert_allclose(ours, theirs, atol=1e-6)


# ----------------------------------------------------------------------------------------------
# Vectorised statistics = the metrics' scalar code
# ----------------------------------------------------------------------------------------------
def test_precision_recall_f1_equals_det_f1():
    from multimodal_metrics.det_f1 import core

    rng = np.random.default_rng(5)
    counts = rng.integers(0, 4, size=(200, 3))
    counts[:10] = 0
    p, r, f = S.precision_recall_f1(counts[:, 0], counts[:, 1], counts[:, 2])
    for i, row in enumerate(counts):
        assert (p[i], r[i], f[i]) == pytest.approx(core.prf(*row), abs=1e-15)


def test_bleu_equals_codebleu_and_nltk_bleu1_combination():
    from multimodal_metrics.codebleu import ngrams as cb
    from multimodal_metrics.vqa_acc import bleu as vb

    rng = np.random.default_rng(6)
    for _ in range(300):
        hyp_len = int(rng.integers(0, 12))
        ref_len = int(rng.integers(1, 12))
        dens = [max(1, hyp_len - k) for k in range(4)]
        nums = [int(rng.integers(0, d + 1)) if hyp_len else 0 for d in dens]
        ours = S.bleu(nums, dens, ref_len, hyp_len, zero_floor=cb.EPSILON)
        assert float(ours) == pytest.approx(cb._combine(nums, dens, ref_len, hyp_len), rel=1e-12, abs=1e-15)
        one = S.bleu(nums[:1], dens[:1], ref_len, hyp_len)
        assert float(one) == pytest.approx(vb._bleu(nums[0], dens[0], ref_len, hyp_len), rel=1e-12, abs=1e-15)


def test_frechet_distance_from_resampled_moments():
    """FID of a resample from the weighted first/second moments = FID of the copied resample with
    np.cov and scipy's sqrtm (the pytorch-fid formula)."""
    from scipy import linalg

    rng = np.random.default_rng(8)
    gen = rng.normal(size=(80, 6)) @ rng.normal(size=(6, 6))
    ref = rng.normal(0.3, 1.0, size=(120, 6))
    mu_ref, sigma_ref = ref.mean(axis=0), np.cov(ref, rowvar=False)
    idx = np.random.default_rng(12345).integers(0, 80, size=(3, 80))
    for row in idx:
        mu, sigma = R.weighted_moments(gen, np.bincount(row, minlength=80))
        np.testing.assert_allclose(mu, gen[row].mean(axis=0), rtol=1e-12)
        np.testing.assert_allclose(sigma, np.cov(gen[row], rowvar=False), rtol=1e-9, atol=1e-12)
        diff = mu_ref - mu
        covmean = linalg.sqrtm(sigma_ref @ sigma).real
        expected = diff @ diff + np.trace(sigma_ref) + np.trace(sigma) - 2 * np.trace(covmean)
        assert R.frechet_distance(mu_ref, sigma_ref, mu, sigma) == pytest.approx(expected, rel=1e-8)
    low, high = R.bootstrap_fid_interval(gen, mu_ref, sigma_ref, 0.9, 100, 1)
    point = R.frechet_distance(mu_ref, sigma_ref, gen.mean(axis=0), np.cov(gen, rowvar=False))
    assert low < point < high
    assert (low, high) == R.bootstrap_fid_interval(gen, mu_ref, sigma_ref, 0.9, 100, 1)


@pytest.mark.parametrize("n, d", [(40, 8), (12, 30)])  # k x k Gram route (n < d) and d x d route
def test_bootstrap_fid_equals_a_brute_force_loop_over_the_same_resamples(n, d):
    """bootstrap_fid (moments from multinomial counts, one trace-sqrt per resample) = FID of every
    materialised resample (copied rows, np.cov), with the row indices of bootstrap_sums (sacrebleu's
    index matrix); counts from resample_counts = np.bincount of each row."""
    rng = np.random.default_rng(n + d)
    gen = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) / np.sqrt(d) + 0.5
    ref = rng.normal(0.2, 1.0, size=(3 * d, d))
    mu_ref, sigma_ref = ref.mean(axis=0), np.cov(ref, rowvar=False)
    copy = gen.copy()
    values = R.bootstrap_fid(gen, mu_ref, sigma_ref, 25, 7)
    assert np.array_equal(gen, copy), "the caller's features are left alone unless overwrite=True"
    indices = np.random.default_rng(7).integers(0, n, size=(25, n))
    (sums,) = S.bootstrap_sums([np.arange(n, dtype=float)[:, None]], 25, 7)
    assert np.array_equal(sums[:, 0], indices.sum(axis=1)), "the FID resamples are the CLIP-score resamples"
    counts = R.resample_counts(indices, n)
    assert np.array_equal(counts, [np.bincount(row, minlength=n) for row in indices])
    brute = [
        R.frechet_distance(mu_ref, sigma_ref, gen[row].mean(axis=0), np.cov(gen[row], rowvar=False))
        for row in indices
    ]
    # d x d eigenvalues of a singular resample covariance carry sqrt(round-off) terms (~1e-8 relative)
    np.testing.assert_allclose(values, brute, rtol=1e-7 if n < d else 1e-9)
    root = R._psd_sqrt(
        sigma_ref
    )  # Tr((S_r S_ref)^1/2) = nuclear norm of (rows - mean) S_ref^1/2 / sqrt(n - 1)
    exact = []
    for row in indices:
        x = gen[row]
        nuclear = np.linalg.svd((x - x.mean(axis=0)) @ root, compute_uv=False).sum() / np.sqrt(n - 1)
        diff = x.mean(axis=0) - mu_ref
        exact.append(diff @ diff + np.trace(np.cov(x, rowvar=False)) + np.trace(sigma_ref) - 2 * nuclear)
    np.testing.assert_allclose(values, exact, rtol=1e-10)
    assert np.array_equal(values, R.bootstrap_fid(gen, mu_ref, sigma_ref, 25, 7)), "seeded"
    assert not np.array_equal(values, R.bootstrap_fid(gen, mu_ref, sigma_ref, 25, 8))
    own = gen.copy()
    assert np.array_equal(values, R.bootstrap_fid(own, mu_ref, sigma_ref, 25, 7, overwrite=True))
    shift = values.mean() - R.frechet_distance(mu_ref, sigma_ref, gen.mean(axis=0), np.cov(gen, rowvar=False))
    expected = tuple(np.quantile(values - shift, [0.05, 0.95]))
    assert R.bootstrap_fid_interval(gen, mu_ref, sigma_ref, 0.9, 25, 7) == pytest.approx(expected, rel=1e-12)
    assert R.bootstrap_fid_interval(gen, mu_ref, sigma_ref, 0.9, 25, 7, shifted=False) == pytest.approx(
        tuple(np.quantile(values, [0.05, 0.95])), rel=1e-12
    )


def _fid_coverage(d, n, trials, rng):
    """Share of `trials` seeded draws of n generated d-d Gaussian features whose 95% interval (bias-shifted,
    plain percentile; 200 resamples) covers E[FID_n] against the fixed reference N(0, I)."""
    mix = rng.normal(size=(d, d)) / np.sqrt(d)
    mu_ref, sigma_ref = np.zeros(d), np.eye(d)

    def draw():
        return rng.normal(size=(n, d)) @ mix.T * 1.3 + 0.1

    def fid(x):
        return R.frechet_distance(mu_ref, sigma_ref, x.mean(axis=0), np.cov(x, rowvar=False))

    target = np.mean([fid(draw()) for _ in range(3000)])  # E[FID_n]: FID is biased in n
    shifted = plain = 0
    for trial in range(trials):
        x = draw()
        values = R.bootstrap_fid(x, mu_ref, sigma_ref, 200, trial)
        low, high = R.shifted_percentile_interval(values, fid(x), 0.95)
        shifted += low <= target <= high
        low, high = np.quantile(values, [0.025, 0.975])
        plain += low <= target <= high
    return shifted / trials, plain / trials


def test_fid_interval_covers_the_expected_fid_at_n():
    """Synthetic Gaussian features: the 95% bias-shifted interval covers E[FID_n] (the FID this generator
    gets at this n against this reference) in about 95% of seeded trials, at d = 8 and at d = 32 with
    n = 200, where resampled FIDs are biased upwards so much that the plain percentile interval misses."""
    rng = np.random.default_rng(2024)
    shifted, plain = _fid_coverage(8, 200, 200, rng)
    assert 0.9 <= shifted <= 0.99 and plain >= 0.85, (shifted, plain)
    shifted, plain = _fid_coverage(32, 200, 100, rng)
    assert 0.88 <= shifted <= 1.0 and plain <= 0.75, (shifted, plain)
