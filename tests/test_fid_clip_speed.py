"""fid_clip speed: the Frechet distance of small sets through the N x N route, and image
decoding overlapped with the forward pass (``num_workers``)."""

import os
import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import fid as oracle

from multimodal_metrics.fid_clip import core, moments

pytestmark = pytest.mark.filterwarnings("ignore:FID.*fewer samples than dimensions:UserWarning")


def _stats(x):
    return moments.FrechetStats.from_features(x)


class _Sizes:
    """Records the size of every matrix numpy.linalg decomposes."""

    def __init__(self, monkeypatch):
        self.sizes = []
        for name in ("cholesky", "eigh", "eigvalsh", "svd", "eig", "eigvals"):
            original = getattr(np.linalg, name)

            def wrapper(a, *args, _original=original, **kwargs):
                self.sizes.append(max(np.shape(a)[-2:]))
                return _original(a, *args, **kwargs)

            monkeypatch.setattr(np.linalg, name, wrapper)


@pytest.mark.parametrize("n1,n2", [(10, 12), (12, 10), (10, 400), (400, 10)])
def test_small_sets_do_not_decompose_the_d_by_d_covariance(monkeypatch, n1, n2):
    """N < d: the trace of the square root comes from an N x N matrix (a full 2,048 x 2,048
    eigh took 92.6 s for 10 vs 10 images); a side with N >= d is used through its covariance."""
    d = 64
    s1, s2 = _stats(oracle.features(n1, d, 1)), _stats(oracle.features(n2, d, 2, shift=0.05))
    sizes = _Sizes(monkeypatch)
    value = core.frechet_distance(s1, s2, warn=False)
    small = max(n for n in (n1, n2) if n < d)  # N1 x N1 (one small side) or N1 x N2 (both)
    assert np.isfinite(value) and sizes.sizes and max(sizes.sizes) <= small


@pytest.mark.parametrize("n_gen,n_ref", [(10, 12), (40, 20), (200, 30)])
def test_fid_interval_of_a_small_reference_decomposes_no_d_by_d_matrix(monkeypatch, n_gen, n_ref):
    """The FID interval against a reference with fewer vectors than dimensions takes the reference's
    centred vectors as the factor of its covariance (no d x d Cholesky or eigh of a singular matrix:
    2.2 s -> 0.1 s CPU for 10 vs 10 at 2,048-d); the resampled values equal the d x d factor's route."""
    from multimodal_metrics.fid_clip import resampling

    d = 64
    gen, ref = oracle.features(n_gen, d, 1), oracle.features(n_ref, d, 2, shift=0.05)
    stats = _stats(ref)
    before = resampling.bootstrap_fid(gen, stats.mean, stats.covariance, 30, 7)
    sizes = _Sizes(monkeypatch)
    thin = resampling.bootstrap_fid(
        gen, stats.mean, stats.covariance, 30, 7, ref_factor=stats.centred_rows().T
    )
    assert max(sizes.sizes) <= n_ref  # the Gram matrices of A = Y B^T: at most n_ref x n_ref
    np.testing.assert_allclose(thin, before, rtol=1e-9)
    with pytest.raises(ValueError, match="ref_factor"):
        resampling.bootstrap_fid(gen, stats.mean, stats.covariance, 3, 7, ref_factor=np.ones((d - 1, 3)))


def test_score_interval_uses_the_small_reference_route(monkeypatch):
    from multimodal_metrics.fid_clip import resampling, score

    def no_square_factor(matrix):
        raise AssertionError("a d x d factor of the reference covariance was computed")

    monkeypatch.setattr(resampling, "_sqrt_factor", no_square_factor)
    gen, ref = oracle.features(30, 64, 1), oracle.features(20, 64, 2, shift=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r = score(gen, ref, confidence=0.9, n_resamples=50)
    assert r["fid_ci_low"] <= r["fid"] <= r["fid_ci_high"]


def _exact_trace_sqrt(x1, x2, dps: int = 40) -> float:
    """Tr((S1 S2)^1/2) computed exactly in the subspace that the samples span: with S = B^T B,
    B = (X - mean) / sqrt(N - 1), the non-zero eigenvalues of S1 S2 are those of (B1 B2^T)(B1 B2^T)^T,
    so the trace is the sum of the singular values of B1 B2^T, here in 40-digit arithmetic (mpmath)."""
    mpmath.mp.dps = dps

    def centred(x):
        rows = [[mpmath.mpf(float(v)) for v in row] for row in x]
        n = len(rows)
        mean = [sum(r[j] for r in rows) / n for j in range(len(rows[0]))]
        scale = mpmath.sqrt(n - 1)
        return mpmath.matrix([[(r[j] - mean[j]) / scale for j in range(len(r))] for r in rows])

    b1, b2 = centred(x1), centred(x2)
    return float(sum(mpmath.svd_r(b1 * b2.T, compute_uv=False)))


def _fid_with_trace(x1, x2, tr) -> float:
    d = x1.mean(0) - x2.mean(0)
    return float(d @ d + np.trace(np.cov(x1, rowvar=False)) + np.trace(np.cov(x2, rowvar=False)) - 2 * tr)


@settings(max_examples=12, deadline=None)
@given(
    n1=st.integers(3, 14),
    n2=st.integers(3, 14),
    d=st.sampled_from([16, 40]),
    seed=st.integers(0, 99),
    kind=st.sampled_from(["generic", "duplicates", "subspace", "constant_columns"]),
)
def test_small_sets_accuracy_against_the_exact_subspace_computation(n1, n2, d, seed, kind):
    """Rank-deficient covariances (N < d always; plus duplicated rows, rows in a 3-d subspace, constant
    features): the trace of the square root is within 1e-12 relative of the exact value (mpmath, 40
    digits); the d x d eigendecomposition route (kept for N >= d) is off by ~1e-8 on these inputs,
    from the square roots of the round-off eigenvalues of the null space."""
    rng = np.random.default_rng(seed)
    x1, x2 = oracle.features(n1, d, seed), oracle.features(n2, d, seed + 1, shift=0.05)
    if kind == "duplicates":
        x1 = x1[rng.integers(0, max(2, n1 // 2), size=n1)]
        x1[0] += 1.0  # at least two distinct rows
    elif kind == "subspace":
        basis = rng.standard_normal((3, d))
        x1, x2 = rng.standard_normal((n1, 3)) @ basis, rng.standard_normal((n2, 3)) @ basis + 0.1
    elif kind == "constant_columns":
        x1[:, : d // 2] = 1.5
        x2[:, d // 4 :] = -0.5
    exact = _exact_trace_sqrt(x1, x2)
    ours = core.frechet_distance(_stats(x1), _stats(x2), warn=False)
    scale = np.trace(np.cov(x1, rowvar=False)) + np.trace(np.cov(x2, rowvar=False))
    assert abs(ours - _fid_with_trace(x1, x2, exact)) <= 1e-12 * scale


@pytest.mark.parametrize("batches", [[3, 4], [5, 5, 5, 5], [1, 30, 2], [40], [7, 7, 7, 7, 7, 7, 7]])
def test_small_sets_skip_the_d_by_d_update_and_keep_every_sum_bit_for_bit(batches):
    """While a side has fewer vectors than dimensions the distance needs only the vectors: no d x d
    product is accumulated (the cost of FID for a few images at 2,048-d), and reading the covariance does
    not drop them. The moments do not depend on how the vectors were batched: those of one block of the
    index are syrk calls on fixed chunks of its vectors in index order (here one block, one chunk), bit for bit."""
    d = 32
    rng = np.random.default_rng(len(batches))
    xs = [np.abs(rng.normal(size=(b, d))) for b in batches]
    lazy = moments.FrechetStats(d)
    for x in xs:
        lazy.update(x)
    n = sum(batches)
    if n < d:
        assert lazy._outer is None and lazy.rows.shape == (n, d)  # nothing accumulated yet
    x = np.concatenate(xs)
    y = x - x[0]  # one block: its first vector is the frame, one product of all its vectors
    m = y.sum(axis=0) / n
    outer = np.triu(y.T @ y) - n * np.triu(np.outer(m, m))
    cov = (outer + np.triu(outer, 1).T) / (n - 1)
    np.testing.assert_allclose(
        lazy.covariance, cov, rtol=1e-13, atol=1e-15
    )  # BLAS kernels differ in the last bits
    whole = moments.FrechetStats.from_features(x)
    assert np.array_equal(lazy.covariance, whole.covariance) and np.array_equal(lazy.mean, whole.mean)
    assert np.array_equal(lazy.mean, x[0] + y.sum(axis=0) / n)
    if n < d:
        assert lazy.rows is not None  # still the N x N route after reading the covariance
    merged = (
        moments.FrechetStats(d)
        .update(xs[0])
        .merge(
            moments.FrechetStats(d).update(np.concatenate(xs[1:] or [x[:0]]), index=np.arange(len(xs[0]), n))
        )
    )
    assert np.array_equal(merged.covariance, whole.covariance)


def test_fid_of_a_few_vectors_does_no_d_by_d_work(monkeypatch):
    """10 + 10 feature vectors at 2,048-d: no d x d matrix is formed (the score is milliseconds)."""
    from multimodal_metrics.fid_clip import score

    rng = np.random.default_rng(0)
    a, b = np.abs(rng.normal(size=(10, 2048))), np.abs(rng.normal(size=(10, 2048))) + 0.1
    products = []
    monkeypatch.setattr(moments, "_syrk", lambda y, out: products.append(y.shape))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fid = score(a, b)["fid"]
    assert not products  # no d x d product was ever formed
    b1, b2 = (a - a.mean(0)) / 3.0, (b - b.mean(0)) / 3.0  # B^T B = the covariance (n - 1 = 9)
    diff = a.mean(0) - b.mean(0)
    exact = diff @ diff + (b1**2).sum() + (b2**2).sum() - 2 * np.linalg.svd(b1 @ b2.T, compute_uv=False).sum()
    assert fid == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize(
    "n1,n2,d,seed", [(10, 12, 64, 0), (30, 20, 64, 1), (50, 400, 64, 2), (200, 120, 256, 3)]
)
def test_small_sets_equal_the_d_by_d_route(n1, n2, d, seed):
    """The N x N route against the d x d one (``trace_sqrt_product``, what every N used before): equal to
    1e-7 relative on FID; the difference is the d x d route's own round-off (see the test above)."""
    x1, x2 = oracle.features(n1, d, seed), oracle.features(n2, d, seed + 10, shift=0.05)
    s1, s2 = _stats(x1), _stats(x2)
    ours = core.frechet_distance(s1, s2, warn=False)
    dense = float(
        ((s1.mean - s2.mean) ** 2).sum()
        + np.trace(s1.covariance)
        + np.trace(s2.covariance)
        - 2 * core.trace_sqrt_product(s1.covariance, s2.covariance)
    )
    assert ours == pytest.approx(dense, rel=1e-7)
    assert ours == pytest.approx(
        oracle.pytorch_fid_distance(s1.mean, s1.covariance, s2.mean, s2.covariance), rel=1e-6
    )


def test_well_conditioned_sets_keep_their_value():
    """N >= d on both sides (non-singular covariances): the value is the d x d route's, unchanged."""
    x1, x2 = oracle.features(300, 32, 5), oracle.features(280, 32, 6, shift=0.05)
    s1, s2 = _stats(x1), _stats(x2)
    dense = float(
        ((s1.mean - s2.mean) ** 2).sum()
        + np.trace(s1.covariance)
        + np.trace(s2.covariance)
        - 2 * core.trace_sqrt_product(s1.covariance, s2.covariance)
    )
    assert core.frechet_distance(s1, s2) == dense


def test_vectors_are_kept_while_fewer_than_dimensions_and_merge():
    x = oracle.features(30, 64, 7)
    parts = [_stats(x[:10]), _stats(x[10:25]), _stats(x[25:])]
    merged = moments.FrechetStats(64)
    for p in parts:
        merged.merge(p)
    streamed = moments.FrechetStats(64)
    for i in range(0, 30, 7):
        streamed.update(x[i : i + 7])
    other = _stats(oracle.features(20, 64, 8))
    whole = core.frechet_distance(_stats(x), other, warn=False)
    for s in (merged, streamed):
        assert core.frechet_distance(s, other, warn=False) == pytest.approx(whole, rel=1e-12)
    big = _stats(oracle.features(70, 64, 9))  # N >= d: the vectors are dropped (memory stays O(d^2))
    assert big.rows is None and merged.merge(big).rows is None and _stats(x).rows.shape == (30, 64)
    loaded = moments.FrechetStats.from_moments(
        x.mean(0), np.cov(x, rowvar=False), 30
    )  # no vectors: d x d route
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert core.frechet_distance(loaded, other) == pytest.approx(whole, rel=1e-6)


def test_a_piece_is_added_by_chunks_of_rows_alike_however_the_vectors_come(monkeypatch):
    """A piece's products are syrk calls on chunks of its rows (``SYRK_BYTES``: here 6 rows), centred into a
    buffer and added in order, their sums by 3 rows (``SUM_BYTES``), the chunks fixed by the piece alone: the
    whole array, batches of any size and one state per block merged in block order give the same bits;
    np.cov's values to 1e-12 with a large common offset; below the diagonal the products stay 0."""
    d, n = 6, moments.BLOCK + 300
    monkeypatch.setattr(moments, "SYRK_BYTES", 8 * d * 7)
    monkeypatch.setattr(moments, "SUM_BYTES", 8 * d * 3)
    calls = []
    syrk = moments._syrk
    monkeypatch.setattr(moments, "_syrk", lambda y, out: calls.append(len(y)) or syrk(y, out))
    x = oracle.features(n, d, 5, shift=1e4)
    whole = _stats(x)
    assert sum(calls) == moments.BLOCK  # the complete block; the others wait for more vectors of theirs
    cov = whole.covariance
    assert max(calls) == 6 and sum(calls) == n
    for batch in (50, 13, 1000):
        streamed = moments.FrechetStats(d)
        for i in range(0, n, batch):
            streamed.update(x[i : i + batch], copy=False)
        assert np.array_equal(streamed.mean, whole.mean) and np.array_equal(
            streamed.covariance, whole.covariance
        )
    merged = moments.FrechetStats(d).update(x[: moments.BLOCK])
    merged.merge(moments.FrechetStats(d).update(x[moments.BLOCK :], index=np.arange(moments.BLOCK, n)))
    assert np.array_equal(merged.mean, whole.mean) and np.array_equal(merged.covariance, whole.covariance)
    ref = np.cov(x, rowvar=False)
    assert np.abs(cov - ref).max() <= 1e-12 * np.abs(ref).max()
    assert np.abs(whole.mean - x.mean(axis=0)).max() <= 1e-12 * np.abs(x).max()
    assert not np.tril(whole._outer, -1).any()


@pytest.mark.parametrize("rows", [1, 3, 7, 50])
def test_the_covariance_by_strips_is_the_formula_on_every_value(monkeypatch, rows):
    """``_covariance`` by strips of ``rows`` rows (``STRIP_BYTES``; 3 leaves a shorter last strip of 7): every
    value is ``(M - (m m^T) n) / (n - 1)`` computed on the whole upper triangle at once, bit for bit, the
    result exactly symmetric, into a new array or into ``out`` (a Fortran-ordered buffer, returned
    transposed); what lies below the accumulator's diagonal is never read."""
    d, n = 7, 40
    monkeypatch.setattr(moments, "STRIP_BYTES", 8 * d * rows)
    x = oracle.features(n, d, 3, shift=10.0)
    stats = _stats(x)
    stats._fold()  # the moments of the vectors (n < BLOCK: they were pending)
    upper, total = stats._outer.copy(order="F"), stats._sum
    upper[np.tril_indices(d, -1)] = np.nan  # garbage below the diagonal
    m = total / n
    formula = (upper - np.multiply.outer(m, m) * n) / (n - 1)
    expected = np.triu(formula) + np.triu(formula, 1).T
    for out in (None, np.full((d, d), np.nan, order="F")):
        cov = moments._covariance(upper, total, n, out=out)
        assert cov.flags.c_contiguous and np.array_equal(cov, expected) and np.array_equal(cov, cov.T)
        assert out is None or np.shares_memory(cov, out)
    assert np.abs(expected - np.cov(x, rowvar=False)).max() <= 1e-12 * np.abs(expected).max()


# ------------------------------------------------------------------------------------------------
# images: decoding overlapped with the forward pass (num_workers)
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def image_files(tmp_path_factory):
    import torch  # noqa: F401 - the fixtures module needs it
    from _fid_clip_fixtures import random_images, tiny_hf_clip, tiny_inception_weights
    from PIL import Image

    folder = tmp_path_factory.mktemp("speed")
    from multimodal_metrics.fid_clip import inception

    weights = tiny_inception_weights(inception, folder)
    tiny_hf_clip(folder / "clip-tiny")
    paths = []
    for i, arr in enumerate(
        random_images(7, seed=11, size=(40, 36)) + random_images(4, seed=12, size=(52, 30))
    ):
        paths.append(str(folder / f"img{i}.png"))
        Image.fromarray(arr).save(paths[-1])
    return {"paths": paths, "weights": str(weights), "clip": str(folder / "clip-tiny"), "folder": folder}


def test_features_are_identical_with_and_without_workers(image_files):
    """The same batches through the same network, decoded in the calling thread or by 1 or 4 threads:
    bit-identical statistics (FID, the saved mu and sigma) and CLIP scores; not in the signature."""
    from multimodal_metrics.fid_clip import score

    paths, folder = image_files["paths"], image_files["folder"]
    results = {}
    for workers in (0, 1, 4):
        results[workers] = score(
            paths[:6],
            paths[6:],
            texts=[f"a photo {i}" for i in range(6)],
            batch_size=4,
            inception_weights=image_files["weights"],
            clip_model=image_files["clip"],
            num_workers=workers,
            save_stats=str(folder / f"w{workers}"),
            return_per_example=True,
        )
    for workers in (1, 4):
        assert dict(results[workers]) == dict(results[0])
        for side in ("predictions", "references"):
            with (
                np.load(folder / "w0" / f"{side}.npz") as a,
                np.load(folder / f"w{workers}" / f"{side}.npz") as b,
            ):
                assert np.array_equal(a["mu"], b["mu"]) and np.array_equal(a["sigma"], b["sigma"])
    assert "num_workers" not in results[0]["signature"] and "worker" not in results[0]["signature"]


def test_num_workers_is_checked():
    from multimodal_metrics.fid_clip import OPTIONS, score

    assert "num_workers" in OPTIONS.names and OPTIONS["num_workers"].sig is None
    x = oracle.features(5, 3, 0)
    for bad, err in ((-1, ValueError), (1.5, ValueError), (True, TypeError), ("2", TypeError)):
        with pytest.raises(err, match="num_workers"):
            score(x, x, num_workers=bad)
    assert score(x, x, num_workers=2)["fid"] == score(x, x)["fid"]


def test_default_workers_follow_the_cpus(monkeypatch):
    """num_workers=None: no decoding workers below 4 CPUs (on 2 they slow the image path down: the card's
    Speed section), else one per CPU up to 8."""
    from multimodal_metrics.fid_clip import extract

    for cpus, workers in ((1, 0), (2, 0), (3, 0), (4, 4), (16, 8)):
        monkeypatch.setattr(extract, "usable_cpus", lambda cpus=cpus: cpus)
        assert extract.default_workers() == workers


def test_decoding_overlaps_the_forward_pass_and_keeps_the_order_of_errors():
    import threading
    import time

    from multimodal_metrics.fid_clip.extract import decoded_batches

    def run(workers):
        events = []

        def convert(i):
            time.sleep(0.02)
            events.append(("decoded", i, threading.current_thread() is threading.main_thread()))
            return i

        out = []
        for start, batch in decoded_batches(list(range(6)), 2, convert, workers):
            out.append((start, batch))
            time.sleep(0.15)  # the forward pass of this batch
            events.append(("forward", start, None))
        return out, events

    plain, events0 = run(0)
    overlapped, events2 = run(2)
    assert plain == overlapped == [(0, [0, 1]), (2, [2, 3]), (4, [4, 5])]
    assert all(main for kind, _, main in events0 if kind == "decoded")
    assert not any(main for kind, _, main in events2 if kind == "decoded")

    def decoded_before_first_forward(events):
        return {i for kind, i, _ in events[: events.index(("forward", 0, None))] if kind == "decoded"}

    assert decoded_before_first_forward(events0) == {0, 1}
    assert decoded_before_first_forward(events2) >= {0, 1, 2, 3}  # batch 2 decoded during batch 1's forward

    def convert(i):
        if i in (3, 5):
            raise ValueError(f"`predictions[{i}]`: not a decodable image")
        return i

    for workers in (0, 3):
        with pytest.raises(ValueError, match=r"predictions\[3\]"):
            list(decoded_batches(list(range(8)), 2, convert, workers))


def test_fid_batches_are_converted_in_worker_processes_in_order():
    """FID's image path with workers and more than one batch: a DataLoader with forked worker
    processes converts whole batches (not the calling process), in input order; errors come back as
    the first failing item's own exception and message; no worker outlives the call."""
    import multiprocessing

    from multimodal_metrics.fid_clip.extract import can_fork, process_batches

    if not can_fork():
        pytest.skip("worker processes are forked on Linux only")

    def convert(i):
        return (i, os.getpid())

    out = list(process_batches(list(range(7)), 3, convert, list, workers=2))
    assert [start for start, _ in out] == [0, 3, 6]
    assert [i for _, batch in out for i, _ in batch] == list(range(7))
    assert all(pid != os.getpid() for _, batch in out for _, pid in batch)

    def failing(i):
        if i in (4, 5):
            raise ValueError(f"`predictions[{i}]`: not a decodable image")
        return i

    with pytest.raises(ValueError, match=r"^`predictions\[4\]`: not a decodable image$"):
        list(process_batches(list(range(12)), 2, failing, list, workers=2))
    assert multiprocessing.active_children() == []


def test_image_path_uses_worker_processes_and_names_the_failing_file(image_files, tmp_path):
    """Through ``score``: several batches with num_workers=2 go through the worker processes (the
    conversion runs outside this process) and give the in-thread features bit for bit; an undecodable
    file among them is named with its index, as without workers."""
    from unittest import mock

    from multimodal_metrics.fid_clip import extract, score

    paths, weights = image_files["paths"], image_files["weights"]
    seen = []
    real = extract.process_batches

    def spy(*args, **kwargs):
        seen.append(kwargs.get("pin_memory"))
        yield from real(*args, **kwargs)

    with mock.patch.object(extract, "process_batches", spy):
        with_workers = score(paths, paths[::-1], batch_size=3, inception_weights=weights, num_workers=2)
    plain = score(paths, paths[::-1], batch_size=3, inception_weights=weights, num_workers=0)
    assert seen == [False, False] if extract.can_fork() else seen == []
    assert dict(with_workers) == dict(plain)

    broken = tmp_path / "broken.png"
    broken.write_bytes(open(paths[0], "rb").read()[:60])  # a valid header, truncated pixel data
    for workers in (0, 2):
        with pytest.raises(ValueError, match=r"`predictions\[4\]`.*broken\.png.*not a decodable image"):
            score(
                paths[:4] + [str(broken)] + paths[4:],
                paths,
                batch_size=2,
                inception_weights=weights,
                num_workers=workers,
            )
