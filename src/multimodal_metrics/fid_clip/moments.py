"""Feature statistics for FID: running moments that merge exactly, their files and input checks.

numpy and scipy's BLAS wrappers, no evaluate, no torch: usable on its own.

``FrechetStats`` accumulates, in float64, the count, the sum and the sum of outer products of
feature vectors (shifted by the first vector seen, which keeps the covariance accurate when the
features have a large common offset). Memory is O(d^2) whatever the number of images; two
accumulators (batches, processes) merge exactly with ``merge``. ``mean`` is the sample mean and
``covariance`` the unbiased sample covariance (divisor N - 1), i.e. ``np.cov(x, rowvar=False)``
as in pytorch-fid. While fewer vectors than dimensions were added, the vectors themselves are kept
too (``rows``: at most d x d values, as the sum of outer products; dropped at N >= d), for the
N x N route of ``core.trace_sqrt_small``. ``save``/``load_stats`` read and write pytorch-fid's ``.npz`` (keys ``mu``,
``sigma``; we add ``n`` so that saved statistics can be merged again).
The distance between two of them is ``core.frechet_distance``.
"""

import copy
import math
import os

import numpy as np

# Feature values are refused beyond this magnitude (mu likewise, sigma beyond its square): the
# distance multiplies covariances (values^4 times d^2), which stays finite in float64 for d up to
# ~10^5 and values up to 10^50; Inception and CLIP features are O(1). Features of 1e100 are refused,
# not scored as NaN.
MAX_FEATURE = 1e50

# Rows of the global example index per block: the moments are accumulated block by block, each block
# [k * BLOCK, (k + 1) * BLOCK) with BLAS syrk calls on its vectors in index order (``SYRK_BYTES`` a call),
# and the blocks' sums are added in block order (see FrechetStats). A module constant, not an option: the
# value is the same for every run, so that statistics of one block computed anywhere add up to those of one
# process.
BLOCK = 4096
# Vectors of incomplete blocks kept before they are added as one piece (a stream in index order never
# reaches it: its blocks complete one after the other; shards of strided or shuffled indexes do).
PENDING_ROWS = BLOCK
# Bytes of the vectors x - c of a piece given to one syrk call (the piece's products are the sum of those
# of its chunks of rows, added in order): they are centred into a buffer that stays in the cache.
SYRK_BYTES = 1 << 22
SUM_BYTES = 1 << 19  # of those, summed at once (read from the cache)
STRIP_BYTES = 1 << 18  # of the covariance, computed and mirrored at once (see _covariance)


def _shares(x: np.ndarray, features) -> bool:
    """Whether the checked array ``x`` is (a view of) the caller's array ``features``."""
    return isinstance(features, np.ndarray) and np.may_share_memory(x, features)


def _syrk(y: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out += y^T y`` for a C-ordered (n, d) array ``y``: the upper triangle of the Fortran-ordered (d, d)
    array ``out``, changed in place (BLAS syrk on ``y.T``, which is Fortran-ordered: no copy; below the
    diagonal ``out`` is not touched)."""
    from scipy.linalg.blas import dsyrk

    return dsyrk(1.0, y.T, beta=1.0, c=out, trans=0, lower=0, overwrite_c=1)


def _covariance(upper: np.ndarray, total: np.ndarray, n: int, out: np.ndarray | None = None) -> np.ndarray:
    """The unbiased covariance ``(M - n m m^T) / (n - 1)``, ``m = sum / n``, from the upper triangle of
    ``M = sum((x - shift)(x - shift)^T)`` (Fortran order; below the diagonal: not read) and ``sum(x - shift)``
    of ``n`` vectors, into a new C-ordered array (or into ``out``, a Fortran-ordered (d, d) array nobody else
    holds: its transpose is returned). One pass by strips of ``STRIP_BYTES`` rows below the diagonal (where
    ``upper`` read as its transpose is C-ordered), each strip mirrored above while it is in the cache."""
    d = len(total)
    cov = np.empty((d, d)) if out is None else out.T
    m = total / n
    lower = upper.T
    rows = max(1, STRIP_BYTES // (8 * d))
    buf = np.empty(min(d, rows) * d)
    full = np.triu_indices(min(d, rows), 1)  # above the diagonal of a strip's square
    for a in range(0, d, rows):
        b = min(d, a + rows)
        part = np.multiply.outer(m[a:b], m[:b], out=buf[: (b - a) * b].reshape(b - a, b))
        part *= n
        strip = cov[a:b, :b]
        np.subtract(lower[a:b, :b], part, out=strip)
        strip /= n - 1
        cov[:a, a:b] = strip[:, :a].T
        square, above = cov[a:b, a:b], full if b - a == rows else np.triu_indices(b - a, 1)
        square[above] = square.T[above]
    return cov  # exactly symmetric: each value above the diagonal is the one below it


def _first_moments(shift, total, count: int, c: np.ndarray, s: np.ndarray, n: int):
    """(shift, sum, count) after adding a piece of ``n`` vectors with ``s = sum(x - c)`` to ``sum(x - shift)``
    of ``count`` vectors: the arithmetic of ``FrechetStats._combine`` on the first moments alone."""
    if count == 0:
        return c.copy(), s.copy(), n
    return shift, total + (s + n * (c - shift)), count + n


def _chunk_rows(d: int) -> tuple[int, int]:
    """Rows of d values summed at once (``SUM_BYTES``), and given to one syrk call (a multiple: ``SYRK_BYTES``)."""
    step = max(1, min(SUM_BYTES, SYRK_BYTES) // (8 * d))
    return step, step * max(1, SYRK_BYTES // (8 * d * step))


def _piece_moments(parts: list, c: np.ndarray, scratch: np.ndarray, outer: np.ndarray | None = None):
    """``sum(x - c)`` of the vectors of ``parts`` (arrays of rows, in order) and, with ``outer`` (a zero
    Fortran-ordered (d, d) array), the upper triangle of ``sum((x - c)(x - c)^T)`` added to it. The rows are
    centred into ``scratch`` (which stays in the cache) by chunks of ``step`` rows, each chunk's sum read while
    it is there, and given to syrk ``rows`` at a time: both fixed by ``d`` alone, so the values do not depend
    on how the vectors were split into arrays."""
    step, rows = _chunk_rows(len(c))  # len(scratch) >= min(rows, the vectors)
    total, pos, k, off = None, 0, 0, 0  # the sum; rows in scratch; the array and row read next
    while k < len(parts):
        start = pos
        while pos < start + step and k < len(parts):
            take = min(start + step - pos, len(parts[k]) - off)
            np.subtract(parts[k][off : off + take], c, out=scratch[pos : pos + take])
            pos, off = pos + take, off + take
            if off == len(parts[k]):
                k, off = k + 1, 0
        s = scratch[start:pos].sum(axis=0)
        total = s if total is None else np.add(total, s, out=total)
        if pos == rows or k == len(parts):
            outer = outer if outer is None else _syrk(scratch[:pos], outer)
            pos = 0
    return total, outer


def _segments(pending: list, a: int, b: int) -> list:
    """Views ``(idx, rows)`` of the pending vectors at positions [a, b) of their concatenation."""
    out, start = [], 0
    for idx, rows in pending:
        stop = start + len(idx)
        lo, hi = max(a, start), min(b, stop)
        if lo < hi:
            out.append((idx[lo - start : hi - start], rows[lo - start : hi - start]))
        start = stop
    return out


def _pieces(index: np.ndarray) -> list[tuple[np.ndarray, bool]]:
    """The pieces that sorted vectors with these (sorted) global indexes are added in: every complete block
    (all BLOCK indexes of [k * BLOCK, (k + 1) * BLOCK), each once) on its own, the other vectors together as
    one piece; each piece as (the positions of its vectors, complete), in the order of their first index."""
    if len(index) == 0:
        return []
    blocks = index // BLOCK
    cuts = np.flatnonzero(np.diff(blocks)) + 1
    starts, stops = np.concatenate([[0], cuts]), np.concatenate([cuts, [len(index)]])
    complete, rest = [], []
    for a, b in zip(starts.tolist(), stops.tolist()):
        first = int(blocks[a]) * BLOCK
        whole = b - a == BLOCK and index[a] == first and (np.diff(index[a:b]) == 1).all()
        (complete if whole else rest).append(np.arange(a, b))
    pieces = [(p, True) for p in complete] + ([(np.concatenate(rest), False)] if rest else [])
    return sorted(pieces, key=lambda p: int(index[p[0][0]]))


class FrechetStats:
    """Running float64 statistics of feature vectors of dimension ``dims`` (mergeable; see the module
    docstring). Each vector has a global index (by default the next one after those added): the vectors
    are added block by block of the index (``BLOCK``), each complete block with syrk calls on chunks of its
    rows (``_piece_moments``)."""

    def __init__(self, dims: int):
        if not isinstance(dims, int) or isinstance(dims, bool) or dims < 1:
            raise ValueError(f"`dims` must be a positive integer, got {dims!r}")
        self.dims = dims
        self.n = 0  # vectors counted (added to the moments below, or pending)
        # the moments of the vectors added so far: count, frame (`shift`), sum(x - shift) and the upper
        # triangle of sum((x - shift)(x - shift)^T) (Fortran order; None until a piece is added)
        self.shift = None
        self._count = 0
        self._sum = np.zeros(dims, dtype=np.float64)
        self._outer = None
        self._fixed = None  # (mu, sigma) of statistics loaded without their sums
        # vectors not yet added, with their indexes: every vector while n < dims (the N x N route needs only
        # them, so no d x d product is formed: 30 ms per block at 2,048-d), then the incomplete blocks
        self._pending = []
        self._pending_rows = 0
        self._blocks = {}  # block -> pending vectors in it
        self._next = 0  # the default index of the next vector

    # -- accumulation ------------------------------------------------------------------------
    def update(
        self, features, arg: str = "features", start: int | None = None, index=None, copy: bool = True
    ) -> "FrechetStats":
        """Add a (B, dims) batch of feature vectors with their global ``index`` (B whole numbers; default:
        the next ones after the largest index added); errors name `arg` and the example index (``start``:
        the index of the first vector in messages, default the first index of the batch). ``copy=False``:
        the array is not changed afterwards (a new array the caller gives away), so vectors waiting for
        their block may stay in it."""
        first = (
            (self._next if index is None or not len(index) else int(np.min(index)))
            if start is None
            else start
        )
        x = check_features(features, arg, self.dims, first)
        return self._add(x, index, copy and _shares(x, features))

    def _add(self, x: np.ndarray, index, copy: bool) -> "FrechetStats":
        """``update`` on checked vectors ``x`` (``copy``: ``x`` may be changed by the caller afterwards)."""
        if self._fixed is not None:
            raise ValueError("these statistics were loaded from mu/sigma only: they cannot be updated")
        if len(x) == 0:
            return self
        if index is None:
            idx = np.arange(self._next, self._next + len(x), dtype=np.int64)
        else:
            idx = np.asarray(index, dtype=np.int64).reshape(-1)
            if len(idx) != len(x):
                raise ValueError(f"`index` has {len(idx)} entries for {len(x)} feature vectors")
        self._add_pending(idx, x)
        self.n += len(x)
        self._settle()
        if copy:  # vectors still pending are kept: the caller may reuse its buffer
            self._pending = [(i, r.copy() if np.may_share_memory(r, x) else r) for i, r in self._pending]
        return self

    def _add_pending(self, idx: np.ndarray, x: np.ndarray) -> None:
        if not len(idx):
            return
        self._pending.append((idx, x))
        self._pending_rows += len(idx)
        blocks, counts = np.unique(idx // BLOCK, return_counts=True)
        for block, count in zip(blocks.tolist(), counts.tolist()):
            self._blocks[block] = self._blocks.get(block, 0) + count
        self._next = max(self._next, int(idx.max()) + 1)

    def _settle(self) -> None:
        """While n < dims nothing is added (the vectors are the statistics); then complete blocks are added
        as they complete, and the other vectors together once more than PENDING_ROWS of them wait."""
        if self.n < self.dims or not self._pending:
            return
        if any(count >= BLOCK for count in self._blocks.values()):
            self._fold(complete_only=True)
        if self._pending_rows > PENDING_ROWS:
            self._fold()

    def _consolidated(self) -> tuple[np.ndarray, np.ndarray]:
        """The pending vectors as one batch sorted by index (stable), kept as such."""
        if not self._pending:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.dims))
        if len(self._pending) > 1:
            idx = np.concatenate([p[0] for p in self._pending])
            rows = np.concatenate([p[1] for p in self._pending])
        else:
            idx, rows = self._pending[0]
        if len(idx) > 1 and (np.diff(idx) < 0).any():
            order = np.argsort(idx, kind="stable")
            idx, rows = idx[order], rows[order]
        self._pending = [(idx, rows)]
        return idx, rows

    def _piece_rows(self, complete_only: bool = False) -> tuple[np.ndarray, list]:
        """The pieces (``_pieces``) the pending vectors are added in, each as (its positions in the pending
        vectors' concatenation, sorted by index first; the arrays of its rows, in order: views, no copy when
        the vectors came in index order); ``complete_only``: the complete blocks alone."""
        idx = np.concatenate([p[0] for p in self._pending]) if len(self._pending) > 1 else self._pending[0][0]
        if len(idx) > 1 and (np.diff(idx) < 0).any():
            idx = self._consolidated()[0]
        out = []
        for piece, whole in _pieces(idx):
            if complete_only and not whole:
                continue
            a, b = int(piece[0]), int(piece[-1]) + 1
            if b - a == len(piece):
                parts = [rows for _, rows in _segments(self._pending, a, b)]
            else:  # vectors of several blocks, not contiguous: gathered
                parts = [self._consolidated()[1][piece]]
            out.append((piece, parts))
        return idx, out

    def _fold(self, complete_only: bool = False) -> np.ndarray | None:
        """Add the pending vectors to the moments, piece by piece (``_pieces``); ``complete_only``: only the
        complete blocks, the others stay pending. Returns the (d, d) buffer a piece's products were formed in
        before they were added (None if there was none): free memory, already paged in."""
        if not self._pending:
            return None
        idx, pieces = self._piece_rows(complete_only)
        if not pieces:
            return None
        scratch = np.empty((min(max(len(p) for p, _ in pieces), _chunk_rows(self.dims)[1]), self.dims))
        spare = None  # the products of a piece added to those held (one buffer for every such piece)
        for piece, parts in pieces:
            c = parts[0][0].copy()
            own = self._count == 0
            if own:
                outer = np.zeros((self.dims, self.dims), order="F")
            elif spare is None:
                outer = spare = np.zeros((self.dims, self.dims), order="F")
            else:
                outer = spare
                outer.fill(0.0)
            s, outer = _piece_moments(parts, c, scratch, outer)
            self._combine(c, s, outer, len(piece), own=own)
        keep = np.ones(len(idx), dtype=bool)
        for piece, _ in pieces:
            keep[piece] = False
        edges = np.flatnonzero(np.diff(np.concatenate([[0], keep.view(np.int8), [0]]))).tolist()
        self._pending = [
            seg for a, b in zip(edges[::2], edges[1::2]) for seg in _segments(self._pending, a, b)
        ]
        idx = idx[keep]
        self._pending_rows = len(idx)
        blocks, counts = np.unique(idx // BLOCK, return_counts=True)
        self._blocks = dict(zip(blocks.tolist(), counts.tolist()))
        return spare

    def _combine(self, c: np.ndarray, s: np.ndarray, outer: np.ndarray, n: int, own: bool = False) -> None:
        """Add ``n`` vectors given by their frame ``c``, ``s = sum(x - c)`` and the upper triangle of
        ``sum((x - c)(x - c)^T)`` (Fortran order; ``own``: a new array these statistics may keep) to the
        moments: with ``delta = c - shift``, ``sum((x - shift)(x - shift)^T) = outer + u delta^T + delta u^T``,
        ``u = s + n delta / 2`` (BLAS syr2)."""
        from scipy.linalg.blas import dsyr2

        if self._count == 0:
            self.shift, self._sum, self._count = c.copy(), s.copy(), n
            self._outer = outer if own else np.array(outer, dtype=np.float64, order="F")
            return
        delta = c - self.shift
        _, self._sum, self._count = _first_moments(self.shift, self._sum, self._count, c, s, n)
        np.add(self._outer, outer, out=self._outer)
        self._outer = dsyr2(1.0, s + (0.5 * n) * delta, delta, lower=0, a=self._outer, overwrite_a=1)

    def merge(self, other: "FrechetStats", skip=()) -> "FrechetStats":
        """Add the vectors counted by ``other`` (another batch, another process) to these ones: its moments
        as one piece, its pending vectors as pending vectors (``other`` is not changed); ``skip``: indexes
        of pending vectors of ``other`` left out (examples these statistics hold already)."""
        if not isinstance(other, FrechetStats):
            raise TypeError(f"can only merge FrechetStats, got {type(other).__name__}")
        if other.dims != self.dims:
            raise ValueError(f"cannot merge statistics of {other.dims}-d features into {self.dims}-d ones")
        if self._fixed is not None or other._fixed is not None:
            raise ValueError("statistics loaded from mu/sigma without `n` cannot be merged")
        if other.n == 0:
            return self
        if other._count:
            self._combine(other.shift, other._sum, other._outer, other._count)
        added = other._count
        for idx, rows in other._pending:
            keep = ~np.isin(idx, np.fromiter(skip, dtype=np.int64, count=len(skip))) if skip else slice(None)
            self._add_pending(idx[keep].copy(), rows[keep].copy())
            added += len(idx[keep])
        self.n += added
        self._settle()
        return self

    def discard(self, index: int, vector=None) -> None:
        """Remove the vector of global ``index`` counted once too often (an example scored twice): from the
        pending vectors, or else subtracted from the moments (``vector``: the vector itself)."""
        from scipy.linalg.blas import dsyr

        for k, (idx, rows) in enumerate(self._pending):
            hit = np.flatnonzero(idx == index)
            if len(hit):
                keep = np.arange(len(idx)) != hit[0]
                self._pending[k] = (idx[keep], rows[keep])
                self._pending_rows -= 1
                self._blocks[int(index) // BLOCK] -= 1
                self.n -= 1
                return
        if vector is None or self._count == 0:
            raise ValueError(f"the vector of index {index} is not held: it cannot be removed")
        y = np.asarray(vector, dtype=np.float64) - self.shift
        self._sum = self._sum - y
        self._outer = dsyr(-1.0, y, lower=0, a=self._outer, overwrite_a=1)
        self._count -= 1
        self.n -= 1

    def shift_index(self, offset: int) -> None:
        """Add ``offset`` to the index of every vector held (those added to the moments keep their pieces)."""
        self._pending = [(idx + offset, rows) for idx, rows in self._pending]
        blocks = (
            np.concatenate([p[0] for p in self._pending]) // BLOCK if self._pending else np.zeros(0, np.int64)
        )
        values, counts = np.unique(blocks, return_counts=True)
        self._blocks = dict(zip(values.tolist(), counts.tolist()))
        self._next += offset

    def copy(self) -> "FrechetStats":
        """Statistics that change independently of these (the arrays that are changed in place, copied)."""
        other = copy.copy(self)
        other._pending = list(self._pending)
        other._blocks = dict(self._blocks)
        other._outer = None if self._outer is None else self._outer.copy(order="F")
        return other

    def pending_vector(self, index: int) -> np.ndarray | None:
        """The vector of ``index`` if it is still held as a vector (not yet added to the moments)."""
        for idx, rows in self._pending:
            hit = np.flatnonzero(idx == index)
            if len(hit):
                return rows[hit[0]].copy()
        return None

    @classmethod
    def from_features(cls, features, arg: str = "features") -> "FrechetStats":
        x = check_features(features, arg)
        return cls(x.shape[1])._add(x, None, copy=_shares(x, features))

    @classmethod
    def from_moments(cls, mu, sigma, n=None, arg: str = "statistics") -> "FrechetStats":
        """Statistics given by their mean and unbiased covariance (and count, if known), checked:
        real finite numbers, mu (d,), sigma (d, d) symmetric positive semi-definite (``check_moments``),
        n a whole number >= 0 (errors name `arg`)."""
        mu, sigma = check_moments(mu, sigma, arg)
        n = _check_count(n, arg)
        stats = cls(len(mu))
        if n is None or int(n) < 2:
            stats._fixed = (mu, sigma)
            stats.n = n or 0
            return stats
        stats.shift = np.zeros(len(mu))
        stats._sum = n * mu
        stats._outer = np.asfortranarray(np.triu((n - 1) * sigma + n * np.outer(mu, mu)))
        stats._count = stats.n = n
        return stats

    # -- moments -----------------------------------------------------------------------------
    @property
    def mean(self) -> np.ndarray:
        """The sample mean: the frame plus the sum over the count, the pending vectors taken as they would
        be added (no d x d work)."""
        if self._fixed is not None:
            return self._fixed[0]
        if self.n == 0:
            raise ValueError("no feature vectors were added")
        shift, total, count = self.shift, self._sum, self._count
        if self._pending:
            _, pieces = self._piece_rows()
            scratch = np.empty((min(max(len(p) for p, _ in pieces), _chunk_rows(self.dims)[1]), self.dims))
            for piece, parts in pieces:
                c = parts[0][0].copy()
                s = _piece_moments(parts, c, scratch)[0]
                shift, total, count = _first_moments(shift, total, count, c, s, len(piece))
        return shift + total / count

    @property
    def covariance(self) -> np.ndarray:
        """Unbiased sample covariance (N - 1), as np.cov(rowvar=False)."""
        if self._fixed is not None:
            return self._fixed[1]
        if self.n < 2:
            raise ValueError(f"the covariance needs at least 2 feature vectors, got {self.n}")
        # the vectors stay pending while n < dims (the N x N route): a folded copy then
        folded = self.copy() if self.n < self.dims and self._pending else self
        spare = folded._fold()
        return _covariance(folded._outer, folded._sum, self.n, out=spare)

    @property
    def rows(self) -> np.ndarray | None:
        """The (n, dims) vectors added, in index order, while n < dims (None once n >= dims, or for loaded
        moments)."""
        if self._count or self.n == 0 or self.n >= self.dims or self._fixed is not None:
            return None
        return self._consolidated()[1]

    def centred_rows(self) -> np.ndarray | None:
        """``B = (X - mean) / sqrt(n - 1)`` with ``B^T B`` = the covariance, while n < dims (else None)."""
        x = self.rows
        if x is None or self.n < 2:
            return None
        return (x - x.mean(axis=0)) / np.sqrt(self.n - 1.0)

    # -- arrays (a mergeable state's bytes) --------------------------------------------------
    def to_arrays(self) -> dict:
        """The statistics as named arrays (``from_arrays`` reads them): the moments (their upper triangle),
        and the pending vectors with their indexes; from d vectors on, the pending vectors are added first,
        so the size is fixed: (d (d + 1) / 2 + 2 d) float64."""
        if self.n >= self.dims:
            self._fold()
        idx, rows = self._consolidated()
        out = {"n": np.array([self.n, self._count, self._next], dtype=np.int64)}
        if self._count:
            out["shift"], out["sum"] = self.shift, self._sum
            out["outer"] = self._outer.T[np.tri(self.dims, dtype=bool)]
        if len(idx):
            out["index"], out["vectors"] = idx, rows
        if self._fixed is not None:
            out["mu"], out["sigma"] = self._fixed
        return out

    @classmethod
    def from_arrays(cls, dims: int, arrays: dict, where: str = "statistics") -> "FrechetStats":
        """The statistics of ``to_arrays``, every shape checked (ValueError naming ``where``)."""
        stats = cls(dims)

        def get(name, shape):
            value = arrays.get(name)
            if value is None or value.shape != shape:
                got = None if value is None else value.shape
                raise ValueError(f"{where}: {name!r} must have shape {shape}, got {got}")
            return value

        n, count, next_index = get("n", (3,)).tolist()
        if "mu" in arrays:
            stats._fixed = (get("mu", (dims,)), get("sigma", (dims, dims)))
            stats.n = n
            return stats
        if count:
            stats.shift, stats._sum = get("shift", (dims,)).copy(), get("sum", (dims,)).copy()
            outer = np.zeros((dims, dims), order="F")
            outer.T[np.tri(dims, dtype=bool)] = get("outer", (dims * (dims + 1) // 2,))
            stats._outer, stats._count = outer, count
        if "index" in arrays:
            idx = arrays["index"]
            if idx.ndim != 1:
                raise ValueError(f"{where}: 'index' must be 1-D")
            stats._add_pending(idx.copy(), get("vectors", (len(idx), dims)).copy())
        if stats._count + stats._pending_rows != n or n < 0 or next_index < 0:
            raise ValueError(
                f"{where}: the counts do not add up ({count} + {stats._pending_rows} vectors, n = {n})"
            )
        stats.n, stats._next = n, max(stats._next, next_index)
        return stats

    # -- files -------------------------------------------------------------------------------
    def save(self, path) -> None:
        """Write pytorch-fid's .npz (``mu``, ``sigma``) plus ``n``."""
        np.savez(path, mu=self.mean, sigma=self.covariance, n=np.int64(self.n))


def load_stats(source, arg: str = "reference_stats") -> FrechetStats:
    """Statistics from a pytorch-fid / clean-fid style ``.npz`` path (keys ``mu``, ``sigma``, optional
    ``n``), a mapping with those keys, or a FrechetStats (returned as is); a list of them: their merge, in
    order (each needs its count ``n``: the files ``save`` writes, e.g. of several shards). Every malformed
    source is a ValueError/TypeError naming `arg`: the file must be a regular file holding an npz archive of
    plain numeric arrays (read with ``allow_pickle=False``: nothing is ever unpickled)."""
    if isinstance(source, FrechetStats):
        return source
    if isinstance(source, list | tuple):
        if not source:
            raise ValueError(f"`{arg}` is an empty list: give statistics files, or leave it out")
        merged = None
        for i, part in enumerate(source):
            stats = load_stats(part, f"{arg}[{i}]")
            if stats._fixed is not None:
                raise ValueError(
                    f"`{arg}[{i}]`: statistics without `n` (their count) cannot be merged with others"
                )
            if merged is not None and stats.dims != merged.dims:
                raise ValueError(f"`{arg}[{i}]` holds {stats.dims}-d statistics, `{arg}[0]` {merged.dims}-d")
            merged = (merged or FrechetStats(stats.dims)).merge(stats)
        return merged
    if isinstance(source, dict):
        if "mu" not in source or "sigma" not in source:
            raise ValueError(
                f"`{arg}` must have the keys 'mu' and 'sigma', got {sorted(map(str, source))[:10]}"
            )
        return FrechetStats.from_moments(source["mu"], source["sigma"], source.get("n"), arg)
    if not isinstance(source, str) and not hasattr(source, "__fspath__"):
        raise TypeError(
            f"`{arg}` must be a .npz path, a dict with 'mu' and 'sigma', or FrechetStats; got {type(source).__name__}"
        )
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
            raise ValueError(
                f"`{arg}`: {path!r} is not an .npz archive (a zip of .npy arrays with keys mu and sigma)"
            )
        with np.load(path, allow_pickle=False) as data:
            keys = set(data.files)
            if not {"mu", "sigma"} <= keys:
                raise ValueError(
                    f"`{arg}`: {path!r} has keys {sorted(keys)[:10]}; expected 'mu' and 'sigma' (pytorch-fid .npz)"
                )
            for key in ("mu", "sigma", "n"):
                if key in keys and data.zip.getinfo(key + ".npy").file_size > MAX_STATS_BYTES:
                    raise ValueError(f"`{arg}`: {path!r}: {key!r} is larger than {MAX_STATS_BYTES >> 30} GiB")
            return data["mu"], data["sigma"], (data["n"] if "n" in keys else None)
    except ValueError as err:
        if str(err).startswith(f"`{arg}`"):
            raise
        raise ValueError(
            f"`{arg}`: {str(source)!r} is not a readable .npz of numeric arrays ({err})"
        ) from None
    except (
        OSError,
        EOFError,
        KeyError,
        TypeError,
        MemoryError,
        zipfile.BadZipFile,
        RuntimeError,
        NotImplementedError,
    ) as err:
        raise ValueError(
            f"`{arg}`: {str(source)!r} is not a readable .npz file ({type(err).__name__}: {err})"
        ) from None


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
            raise ValueError(
                f"`{arg}`: n must be a single whole number >= 0, got an array of dtype {x.dtype} and shape {x.shape}"
            )
        x = x.item()
    if (
        isinstance(x, int) and not isinstance(x, bool) and x >= 2**63
    ):  # math.isfinite would raise OverflowError
        raise ValueError(
            f"`{arg}`: n must be a whole number below 2**63, got an integer of {x.bit_length()} bits"
        )
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
        raise ValueError(
            f"`{arg}`: mu must have shape (d,) and sigma (d, d); got {mu.shape} and {sigma.shape}"
        )
    if not (np.isfinite(mu).all() and np.isfinite(sigma).all()):
        raise ValueError(f"`{arg}`: mu/sigma contain NaN or infinite values")
    if np.abs(mu).max() > MAX_FEATURE or np.abs(sigma).max() > MAX_FEATURE**2:
        raise ValueError(
            f"`{arg}`: mu beyond ±{MAX_FEATURE:g} or sigma beyond ±{MAX_FEATURE**2:g} "
            "(the distance would overflow)"
        )
    scale = float(np.abs(sigma).max())
    if scale > 0 and np.abs(sigma - sigma.T).max() > 1e-6 * scale:
        raise ValueError(f"`{arg}`: sigma is not symmetric (a covariance matrix is)")
    sigma = (sigma + sigma.T) / 2
    diag = np.diag(sigma)
    if (diag < 0).any():
        raise ValueError(
            f"`{arg}`: sigma has a negative variance on its diagonal (index {int(np.argmax(diag < 0))})"
        )
    tol = 1e-6 * float(diag.max()) if len(diag) else 0.0
    if tol > 0:
        try:
            np.linalg.cholesky(sigma + tol * np.eye(len(sigma)))
        except np.linalg.LinAlgError:
            raise ValueError(
                f"`{arg}`: sigma is not positive semi-definite (a covariance matrix is)"
            ) from None
    elif scale > 0:  # zero diagonal with non-zero entries: indefinite
        raise ValueError(f"`{arg}`: sigma is not positive semi-definite (a covariance matrix is)")
    return mu, sigma


def _in_range(x: np.ndarray) -> bool:
    """Every value finite and within ±MAX_FEATURE (NaN fails both comparisons): the minimum and maximum of
    chunks that stay in the cache, no copy."""
    step = max(1, (1 << 16) // max(1, x.shape[-1]))  # 512 KiB: min and max read it from the cache
    for start in range(0, len(x), step):
        chunk = x[start : start + step]
        if not (-MAX_FEATURE <= chunk.min() and chunk.max() <= MAX_FEATURE):
            return False
    return True


def check_features(features, arg: str, dims: int | None = None, start: int = 0) -> np.ndarray:
    """A (N, d) float64 array of finite values; errors name `arg` and the first bad example."""
    try:
        x = np.asarray(features, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"`{arg}` must be a (N, d) array of numbers (one feature vector per example)"
        ) from None
    if x.ndim == 1 and dims is not None and x.size == dims:
        x = x[None, :]
    if x.ndim != 2:
        raise ValueError(f"`{arg}` must be a 2-D (N, d) array of feature vectors, got shape {x.shape}")
    if dims is not None and x.shape[1] != dims:
        raise ValueError(
            f"`{arg}` has {x.shape[1]}-d feature vectors; expected {dims}-d (as the other vectors)"
        )
    if x.size and _in_range(x):
        return x
    bad = ~np.isfinite(x).all(axis=1)
    if bad.any():
        raise ValueError(f"`{arg}[{start + int(np.argmax(bad))}]` contains NaN or infinite values")
    big = (np.abs(x) > MAX_FEATURE).any(axis=1)
    if big.any():
        raise ValueError(
            f"`{arg}[{start + int(np.argmax(big))}]`: feature values beyond ±{MAX_FEATURE:g} "
            "would overflow the distance (products of four values)"
        )
    return x
