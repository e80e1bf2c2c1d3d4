"""Frechet distance from running feature statistics, and the Fusion Brain 2022 score combinations.

numpy and scipy's BLAS wrappers, no evaluate, no torch: usable on its own.

* ``FrechetStats`` accumulates, in float64, the count, the sum and the sum of outer products of
  feature vectors (shifted by the first vector seen, which keeps the covariance accurate when the
  features have a large common offset). Memory is O(d^2) whatever the number of images; two
  accumulators (batches, processes) merge exactly with ``merge``. ``mean`` is the sample mean and
  ``covariance`` the unbiased sample covariance (divisor N - 1), i.e. ``np.cov(x, rowvar=False)``
  as in pytorch-fid. While fewer vectors than dimensions were added, the vectors themselves are kept
  too (``rows``: at most d x d values, as the sum of outer products; dropped at N >= d), for the
  N x N route below. ``save``/``load_stats`` read and write pytorch-fid's ``.npz`` (keys ``mu``,
  ``sigma``; we add ``n`` so that saved statistics can be merged again).
* ``frechet_distance``: ``||mu1 - mu2||^2 + Tr(S1) + Tr(S2) - 2 Tr((S1 S2)^(1/2))``.
  ``S1 S2`` is similar to the symmetric positive semi-definite ``L^T S2 L`` where ``S1 = L L^T``
  (Cholesky factor, or ``V sqrt(W) V^T`` from an eigendecomposition when S1 is singular), so the
  trace of the square root is the sum of the square roots of that matrix's eigenvalues (negative
  round-off eigenvalues are clipped to 0). No scipy.linalg.sqrtm, no imaginary parts; equal to
  pytorch-fid's sqrtm formula to ~1e-9 relative on well-conditioned inputs.
  When a side has N < d vectors (its covariance is singular: small sets, per-class FID), the trace
  comes from an N x N matrix instead (``trace_sqrt_small``): ``S = B^T B`` with
  ``B = (X - mean) / sqrt(N - 1)`` (N x d), so ``S1 S2`` has the non-zero eigenvalues of
  ``B1 S2 B1^T`` (N1 x N1), and when both sides are small ``Tr((S1 S2)^(1/2))`` is the sum of the
  singular values of ``B1 B2^T`` (N1 x N2); ``Tr(S)`` is the sum of squares of ``B``. O(N d min(N, d))
  (O(N d^2) with a large other side) instead of O(d^3), no square roots of round-off eigenvalues:
  ~1e-16 relative from the exact value where the d x d route is 1e-8 to 5e-7 off (tested). With
  N >= d on both sides (or moments loaded without their vectors) the d x d route, as before.
* ``generation_score`` (seed 000 sub-task 3) and ``captioning_score`` (sub-task 4).
"""

import math
import os
import warnings

import numpy as np

# pytorch-fid `calculate_frechet_distance`: retry offset and the imaginary-part tolerance
PYTORCH_FID_EPS = 1e-6
# Feature values are refused beyond this magnitude (mu likewise, sigma beyond its square): the
# distance multiplies covariances (values^4 times d^2), which stays finite in float64 for d up to
# ~10^5 and values up to 10^50; Inception and CLIP features are O(1). Features of 1e100 are refused,
# not scored as NaN.
MAX_FEATURE = 1e50


class FrechetStats:
    """Running float64 statistics of feature vectors of dimension ``dims`` (mergeable)."""

    def __init__(self, dims: int):
        if not isinstance(dims, int) or isinstance(dims, bool) or dims < 1:
            raise ValueError(f"`dims` must be a positive integer, got {dims!r}")
        self.dims = dims
        self.n = 0
        self.shift = None
        self._sum = np.zeros(dims, dtype=np.float64)
        self._outer = np.zeros((dims, dims), dtype=np.float64)
        self._fixed = None  # (mu, sigma) of statistics loaded without their sums
        self._rows = []  # the vectors themselves while n < dims (None after): the N x N route
        # batches kept in _rows whose y^T y is not yet in _outer: while n < dims the distance needs only
        # the rows, so the d x d update (30 ms per batch at 2,048-d) waits until _outer is read, then runs
        # batch by batch in the order they came (the same sums as an eager update, bit for bit)
        self._deferred = []

    # -- accumulation ------------------------------------------------------------------------
    def update(self, features, arg: str = "features", start: int = 0) -> "FrechetStats":
        """Add a (B, dims) batch of feature vectors; errors name `arg` and the example index."""
        x = check_features(features, arg, self.dims, start)
        if self._fixed is not None:
            raise ValueError("these statistics were loaded from mu/sigma only: they cannot be updated")
        if len(x) == 0:
            return self
        if self.shift is None:
            self.shift = x[0].copy()
        y = x - self.shift
        self._sum += y.sum(axis=0)
        self.n += len(x)
        if self._rows is not None and self.n < self.dims:
            kept = x.copy()
            self._rows = self._rows + [kept]
            self._deferred.append(kept)
            return self
        self._flush()
        self._rows = None
        self._outer += y.T @ y
        return self

    def _flush(self) -> None:
        """Add the deferred batches' outer products to the running sum, in their order."""
        for x in self._deferred:
            y = x - self.shift
            self._outer += y.T @ y
        self._deferred = []

    def merge(self, other: "FrechetStats") -> "FrechetStats":
        """Add the vectors counted by ``other`` (another batch, another process) to these ones."""
        if not isinstance(other, FrechetStats):
            raise TypeError(f"can only merge FrechetStats, got {type(other).__name__}")
        if other.dims != self.dims:
            raise ValueError(f"cannot merge statistics of {other.dims}-d features into {self.dims}-d ones")
        if self._fixed is not None or other._fixed is not None:
            raise ValueError("statistics loaded from mu/sigma without `n` cannot be merged")
        if other.n == 0:
            return self
        self._flush()
        other._flush()
        if self.n == 0:
            self.shift = other.shift.copy()
            self._sum, self._outer, self.n = other._sum.copy(), other._outer.copy(), other.n
            self._rows = None if other._rows is None else list(other._rows)
            return self
        keep = self._rows is not None and other._rows is not None and self.n + other.n < self.dims
        self._rows = self._rows + other._rows if keep else None
        delta = other.shift - self.shift
        self._sum += other._sum + other.n * delta
        self._outer += (
            other._outer + np.outer(other._sum, delta) + np.outer(delta, other._sum) + other.n * np.outer(delta, delta)
        )
        self.n += other.n
        return self

    @classmethod
    def from_features(cls, features, arg: str = "features") -> "FrechetStats":
        x = check_features(features, arg)
        return cls(x.shape[1]).update(x, arg)

    @classmethod
    def from_moments(cls, mu, sigma, n=None, arg: str = "statistics") -> "FrechetStats":
        """Statistics given by their mean and unbiased covariance (and count, if known), checked:
        real finite numbers, mu (d,), sigma (d, d) symmetric positive semi-definite (``check_moments``),
        n a whole number >= 0 (errors name `arg`)."""
        mu, sigma = check_moments(mu, sigma, arg)
        n = _check_count(n, arg)
        stats = cls(len(mu))
        stats._rows = None  # moments only: the d x d route
        if n is None or int(n) < 2:
            stats._fixed = (mu, sigma)
            stats.n = n or 0
            return stats
        stats.shift = np.zeros(len(mu))
        stats._sum = n * mu
        stats._outer = (n - 1) * sigma + n * np.outer(mu, mu)
        stats.n = n
        return stats

    # -- moments -----------------------------------------------------------------------------
    @property
    def mean(self) -> np.ndarray:
        if self._fixed is not None:
            return self._fixed[0]
        if self.n == 0:
            raise ValueError("no feature vectors were added")
        return self.shift + self._sum / self.n

    @property
    def covariance(self) -> np.ndarray:
        """Unbiased sample covariance (N - 1), as np.cov(rowvar=False)."""
        if self._fixed is not None:
            return self._fixed[1]
        if self.n < 2:
            raise ValueError(f"the covariance needs at least 2 feature vectors, got {self.n}")
        self._flush()
        m = self._sum / self.n
        cov = (self._outer - self.n * np.outer(m, m)) / (self.n - 1)
        return (cov + cov.T) / 2

    @property
    def rows(self) -> np.ndarray | None:
        """The (n, dims) vectors added, while n < dims (None once n >= dims, or for loaded moments)."""
        if self._rows is None or self.n == 0:
            return None
        if len(self._rows) > 1:
            self._rows = [np.concatenate(self._rows)]
        return self._rows[0]

    def centred_rows(self) -> np.ndarray | None:
        """``B = (X - mean) / sqrt(n - 1)`` with ``B^T B`` = the covariance, while n < dims (else None)."""
        x = self.rows
        if x is None or self.n < 2:
            return None
        return (x - x.mean(axis=0)) / np.sqrt(self.n - 1.0)

    # -- files -------------------------------------------------------------------------------
    def save(self, path) -> None:
        """Write pytorch-fid's .npz (``mu``, ``sigma``) plus ``n``."""
        np.savez(path, mu=self.mean, sigma=self.covariance, n=np.int64(self.n))


def load_stats(source, arg: str = "reference_stats") -> FrechetStats:
    """Statistics from a pytorch-fid / clean-fid style ``.npz`` path (keys ``mu``, ``sigma``, optional
    ``n``), a mapping with those keys, or a FrechetStats (returned as is). Every malformed source is a
    ValueError/TypeError naming `arg`: the file must be a regular file holding an npz archive of plain
    numeric arrays (read with ``allow_pickle=False``: nothing is ever unpickled)."""
    if isinstance(source, FrechetStats):
        return source
    if isinstance(source, dict):
        if "mu" not in source or "sigma" not in source:
            raise ValueError(f"`{arg}` must have the keys 'mu' and 'sigma', got {sorted(map(str, source))[:10]}")
        return FrechetStats.from_moments(source["mu"], source["sigma"], source.get("n"), arg)
    if not isinstance(source, str) and not hasattr(source, "__fspath__"):
        raise TypeError(f"`{arg}` must be a .npz path, a dict with 'mu' and 'sigma', or FrechetStats; got {type(source).__name__}")
    mu, sigma, n = _read_npz(source, arg)
    return FrechetStats.from_moments(mu, sigma, n, arg)


MAX_STATS_BYTES = 4 << 30  # an npz member larger than this once decompressed is refused (a zip bomb)


def _read_npz(source, arg: str):
    """(mu, sigma, n or None) read from an .npz file without unpickling anything."""
    import stat
    import zipfile

    try:
        path = os.fspath(source)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not path or "\0" in path:
            raise ValueError(f"`{arg}` must be a non-empty .npz path, got {source!r}")
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            raise ValueError(f"`{arg}`: no such file {path!r}") from None
        if not stat.S_ISREG(mode):
            raise ValueError(f"`{arg}`: {path!r} is not a regular file (expected a pytorch-fid .npz)")
        if not zipfile.is_zipfile(path):
            raise ValueError(f"`{arg}`: {path!r} is not an .npz archive (a zip of .npy arrays with keys mu and sigma)")
        with np.load(path, allow_pickle=False) as data:
            keys = set(data.files)
            if not {"mu", "sigma"} <= keys:
                raise ValueError(f"`{arg}`: {path!r} has keys {sorted(keys)[:10]}; expected 'mu' and 'sigma' (pytorch-fid .npz)")
            for key in ("mu", "sigma", "n"):
                if key in keys and data.zip.getinfo(key + ".npy").file_size > MAX_STATS_BYTES:
                    raise ValueError(f"`{arg}`: {path!r}: {key!r} is larger than {MAX_STATS_BYTES >> 30} GiB")
            return data["mu"], data["sigma"], (data["n"] if "n" in keys else None)
    except ValueError as err:
        if str(err).startswith(f"`{arg}`"):
            raise
        raise ValueError(f"`{arg}`: {str(source)!r} is not a readable .npz of numeric arrays ({err})") from None
    except (OSError, EOFError, KeyError, TypeError, MemoryError, zipfile.BadZipFile, RuntimeError, NotImplementedError) as err:
        raise ValueError(f"`{arg}`: {str(source)!r} is not a readable .npz file ({type(err).__name__}: {err})") from None


def _real_array(value, what: str, arg: str) -> np.ndarray:
    """A float64 array of real numbers (bool, complex, text, objects refused: ValueError naming `arg`)."""
    try:
        x = np.asarray(value)
    except Exception as err:  # noqa: BLE001 - ragged lists, exotic objects: all refused alike
        raise ValueError(f"`{arg}`: {what} is not an array of numbers ({type(err).__name__})") from None
    if x.dtype.kind not in "iuf":
        raise ValueError(f"`{arg}`: {what} must hold real numbers, got dtype {x.dtype}")
    return x.astype(np.float64)


def _check_count(n, arg: str):
    """None, or `n` (the number of feature vectors) as a Python int >= 0."""
    if n is None:
        return None
    x = np.asarray(n) if not isinstance(n, int | float) else n
    if isinstance(x, np.ndarray):
        if x.ndim != 0 or x.dtype.kind not in "iuf":
            raise ValueError(f"`{arg}`: n must be a single whole number >= 0, got an array of dtype {x.dtype} and shape {x.shape}")
        x = x.item()
    if isinstance(x, int) and not isinstance(x, bool) and x >= 2**63:  # math.isfinite would raise OverflowError
        raise ValueError(f"`{arg}`: n must be a whole number below 2**63, got an integer of {x.bit_length()} bits")
    if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x) or x < 0 or x != int(x):
        raise ValueError(f"`{arg}`: n must be a whole number >= 0, got {x!r}"[:200])
    return int(x)


def check_moments(mu, sigma, arg: str = "statistics") -> tuple[np.ndarray, np.ndarray]:
    """``(mu, sigma)`` as float64 arrays, checked: mu (d,) and sigma (d, d) of real finite numbers with
    ``|mu| <= MAX_FEATURE`` and ``|sigma| <= MAX_FEATURE**2``; sigma symmetric (to 1e-6 of its largest
    entry: float32-saved statistics pass) and positive semi-definite (its smallest eigenvalue at least
    ``-1e-6 * max(diag)``: round-off of a singular covariance passes; a negative or indefinite one, which
    is the covariance of no data, is refused). sigma is returned exactly symmetrised."""
    mu = _real_array(mu, "mu", arg)
    sigma = _real_array(sigma, "sigma", arg)
    if mu.ndim != 1 or mu.size == 0 or sigma.shape != (len(mu), len(mu)):
        raise ValueError(f"`{arg}`: mu must have shape (d,) and sigma (d, d); got {mu.shape} and {sigma.shape}")
    if not (np.isfinite(mu).all() and np.isfinite(sigma).all()):
        raise ValueError(f"`{arg}`: mu/sigma contain NaN or infinite values")
    if np.abs(mu).max() > MAX_FEATURE or np.abs(sigma).max() > MAX_FEATURE**2:
        raise ValueError(f"`{arg}`: mu beyond ±{MAX_FEATURE:g} or sigma beyond ±{MAX_FEATURE**2:g} "
                         "(the distance would overflow)")
    scale = float(np.abs(sigma).max())
    if scale > 0 and np.abs(sigma - sigma.T).max() > 1e-6 * scale:
        raise ValueError(f"`{arg}`: sigma is not symmetric (a covariance matrix is)")
    sigma = (sigma + sigma.T) / 2
    diag = np.diag(sigma)
    if (diag < 0).any():
        raise ValueError(f"`{arg}`: sigma has a negative variance on its diagonal (index {int(np.argmax(diag < 0))})")
    tol = 1e-6 * float(diag.max()) if len(diag) else 0.0
    if tol > 0:
        try:
            np.linalg.cholesky(sigma + tol * np.eye(len(sigma)))
        except np.linalg.LinAlgError:
            raise ValueError(f"`{arg}`: sigma is not positive semi-definite (a covariance matrix is)") from None
    elif scale > 0:  # zero diagonal with non-zero entries: indefinite
        raise ValueError(f"`{arg}`: sigma is not positive semi-definite (a covariance matrix is)")
    return mu, sigma


def check_features(features, arg: str, dims: int | None = None, start: int = 0) -> np.ndarray:
    """A (N, d) float64 array of finite values; errors name `arg` and the first bad example."""
    try:
        x = np.asarray(features, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"`{arg}` must be a (N, d) array of numbers (one feature vector per example)") from None
    if x.ndim == 1 and dims is not None and x.size == dims:
        x = x[None, :]
    if x.ndim != 2:
        raise ValueError(f"`{arg}` must be a 2-D (N, d) array of feature vectors, got shape {x.shape}")
    if dims is not None and x.shape[1] != dims:
        raise ValueError(f"`{arg}` has {x.shape[1]}-d feature vectors; expected {dims}-d (as the other vectors)")
    bad = ~np.isfinite(x).all(axis=1)
    if bad.any():
        raise ValueError(f"`{arg}[{start + int(np.argmax(bad))}]` contains NaN or infinite values")
    big = (np.abs(x) > MAX_FEATURE).any(axis=1)
    if big.any():
        raise ValueError(f"`{arg}[{start + int(np.argmax(big))}]`: feature values beyond ±{MAX_FEATURE:g} "
                         "would overflow the distance (products of four values)")
    return x


def _sqrt_factor(s: np.ndarray) -> np.ndarray:
    """F with F F^T = S (Cholesky; the symmetric square root when S is singular)."""
    try:
        return np.linalg.cholesky(s)
    except np.linalg.LinAlgError:
        w, v = np.linalg.eigh(s)
        return (v * np.sqrt(np.clip(w, 0.0, None))) @ v.T


def trace_sqrt_product(sigma1: np.ndarray, sigma2: np.ndarray) -> float:
    """Tr((S1 S2)^(1/2)) for symmetric PSD S1, S2, from the eigenvalues of F^T S2 F (S1 = F F^T)."""
    from scipy.linalg.blas import dtrmm

    f = _sqrt_factor(sigma1)
    if np.allclose(np.triu(f, 1), 0.0, atol=0.0):  # Cholesky factor: triangular products (half the flops)
        m = dtrmm(1.0, f, dtrmm(1.0, f, sigma2, side=1, lower=1), side=0, lower=1, trans_a=1)
    else:
        m = f.T @ sigma2 @ f
    eig = np.linalg.eigvalsh((m + m.T) / 2)
    return float(np.sqrt(np.clip(eig, 0.0, None)).sum())


def trace_sqrt_small(b1: np.ndarray, sigma2: np.ndarray | None = None, b2: np.ndarray | None = None) -> float:
    """Tr((S1 S2)^(1/2)) with ``S1 = b1^T b1`` (b1: N1 x d) and ``S2 = b2^T b2`` (b2: N2 x d) or ``sigma2``.

    Both factors: the sum of the singular values of ``b1 b2^T`` (N1 x N2). Else the square roots of the
    eigenvalues of ``b1 S2 b1^T`` (N1 x N1, PSD); eigenvalues below ``max * N1 * eps`` (round-off of the
    null space that the centring always leaves) count as 0, as in the bootstrap's ``trace_sqrt_weighted``.
    """
    if b2 is not None:
        return float(np.linalg.svd(b1 @ b2.T, compute_uv=False).sum())
    gram = b1 @ sigma2 @ b1.T
    eig = np.linalg.eigvalsh((gram + gram.T) / 2)
    tol = eig[-1] * len(eig) * np.finfo(np.float64).eps if len(eig) else 0.0
    return float(np.sqrt(eig[eig > tol]).sum())


def frechet_distance(stats1, stats2, warn: bool = True) -> float:
    """Frechet distance between two Gaussians fitted to feature statistics (FrechetStats or
    (mu, sigma) pairs). Warns (UserWarning) when a side has fewer samples than dimensions: the
    covariance is then singular and FID is strongly biased (pytorch-fid #78)."""
    s1 = stats1 if isinstance(stats1, FrechetStats) else FrechetStats.from_moments(*stats1)
    s2 = stats2 if isinstance(stats2, FrechetStats) else FrechetStats.from_moments(*stats2)
    if s1.dims != s2.dims:
        raise ValueError(f"feature sizes differ: {s1.dims}-d vs {s2.dims}-d (use the same extractor on both sides)")
    for name, s in (("predictions", s1), ("references", s2)):
        if s._fixed is None and s.n < 2:
            raise ValueError(f"FID needs at least 2 images per side; `{name}` has {s.n}")
        if warn and 0 < s.n < s.dims:
            warnings.warn(
                f"FID: `{name}` has {s.n} samples for {s.dims}-d features (fewer samples than dimensions): "
                "the covariance is singular and the value is strongly biased upwards; use at least "
                f"{s.dims} images per side for a comparable number",
                UserWarning,
                stacklevel=2,
            )
    diff = s1.mean - s2.mean
    b1, b2 = s1.centred_rows(), s2.centred_rows()
    if b1 is None and b2 is None:  # the d x d route
        sigma1, sigma2 = s1.covariance, s2.covariance
        return float(diff @ diff + np.trace(sigma1) + np.trace(sigma2) - 2.0 * trace_sqrt_product(sigma1, sigma2))
    # a side with N < d vectors: the N x N route, and its Tr(S) = sum of squares of B (no d x d matrix)
    traces = [float(np.einsum("ij,ij->", b, b)) if b is not None else float(np.trace(s.covariance))
              for b, s in ((b1, s1), (b2, s2))]
    if b1 is not None and b2 is not None:
        tr = trace_sqrt_small(b1, b2=b2)
    elif b1 is not None:
        tr = trace_sqrt_small(b1, s2.covariance)
    else:  # Tr((S1 S2)^1/2) = Tr((S2 S1)^1/2): similar matrices
        tr = trace_sqrt_small(b2, s1.covariance)
    return float(diff @ diff + traces[0] + traces[1] - 2.0 * tr)


def generation_score(clip_score, fid):
    """AIJ 2022 image generation: 0.5 * (CLIP + (200 - min(200, FID)) / 200). FID >= 200 adds 0;
    FID is not clipped below 0 (as the official script). Elementwise on arrays (bootstrap values);
    a float for two numbers."""
    score = 0.5 * (np.asarray(clip_score, dtype=np.float64) + (200.0 - np.minimum(200.0, fid)) / 200.0)
    return float(score) if score.ndim == 0 else score


def captioning_score(meteor: float, clip_score: float) -> float:
    """AIJ 2022 image captioning: 0.5 * (METEOR + CLIP), METEOR as the ru_meteor module computes it."""
    return 0.5 * (meteor + clip_score)

