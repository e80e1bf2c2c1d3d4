"""fid_clip's mergeable state: feature extraction where the images are, Frechet moments merged anywhere.

    from multimodal_metrics import fid_clip
    st = fid_clip.state(inception_weights=w, device="cuda")            # options checked and fixed here
    st.update(predictions=images, texts=prompts, index=ids)           # generated images: their global index
    st.update(references=real_images, reference_index=ref_ids)        # real images: an index of their own
    st.merge(other)                                                   # in place, any order
    blob = st.to_bytes(); st = fid_clip.State.from_bytes(blob)        # versioned, self-describing, no pickle
    r = st.result(return_per_example=True)                            # = fid_clip.score(all of them, ...)

``update`` checks a batch as ``score`` does and runs the networks on this process's device (the same
extractors, batches and options as ``score``); the state keeps, per side, the Frechet statistics of the
feature vectors (``moments.FrechetStats``: count, frame, sum and the upper triangle of the sum of outer
products, added block by block of the global index) and per example only its index, a 64-bit digest of its
feature vector and its CLIP cosine (on the side with texts). ``keep_features=True`` keeps the vectors
instead of the moments: the bootstrap interval of FID needs them.

The two sides are two sets: ``index`` numbers the generated images (``predictions``, and their ``texts``),
``reference_index`` the real ones (their own numbering; by default ``index`` when a batch has one
reference per generated image, i.e. paired data, else the indexes after the last reference held). A batch
without generated images takes ``index`` for its references (captioning: ``references`` with ``texts``).
``reference_stats=`` (precomputed statistics) gives the reference side once, at creation: it is part of the
state (its moments travel in the bytes; two states merge when they hold the same statistics).

What equals one ``score`` call on all examples (the examples in index order, the same options):
* the CLIP score, its per-example list and its interval, and everything else per example: bit for bit;
* FID with ``keep_features=True``, or while a side has fewer vectors than dimensions (the state then holds
  the vectors, regrouped by block when merged): bit for bit, in any sharding and any order of merges;
* FID from moments: bit for bit when the states are merged in block order one block of ``BLOCK`` (4,096)
  indexes at a time (e.g. one state per block: a block's moments are syrk calls on fixed chunks of its
  vectors, computed alike anywhere, and ``score`` adds the blocks in the same order), within 1e-12 relative
  otherwise (strided or random shards: measured 1e-15 to 3e-14).

Duplicates: an index held twice with the same feature vector (digest) and CLIP cosine is counted once (a
``DistributedSampler`` pads its last batch with the first examples); with different values it is refused,
naming the index. Once a side holds d vectors its moments no longer hold them: the state keeps the
vectors of its first and last examples (in the order given), which is where ``DistributedSampler``'s
padding lies (the last example of a rank repeats the first of another), and removes a repeated one from
the moments (to the last bits: 1e-12 relative); any other index held by two such states is refused.
"""

import hashlib
import os

import numpy as np

from ..options import check_bool
from ..state import MetricState, canonical
from ..state_index import check_index, check_offset, mark_partial, merge_record_ids
from .extract import clip_cosines, side_features
from .images import IMAGE_KINDS
from .moments import FrechetStats, load_stats
from .scoring import (
    OPTIONS,
    PRESETS,
    check_fid_sides,
    clip_fields,
    clip_name,
    clip_pairs,
    feature_tag,
    fid_fields,
    fid_value,
    finish_scores,
    pack_batch,
    pillow_version,
    score,
)

SIDES = ("predictions", "references")
INDEX_ARG = {"predictions": "index", "references": "reference_index"}
# how this process computes, not what: neither recorded in the bytes nor compared when merging (a state
# read from bytes takes the preset's values); the extractor module is named by its tag instead
LOCAL = ("device", "batch_size", "num_workers", "progress", "save_stats", "max_pixels", "feature_extractor")


def _digests(features: np.ndarray | None, n: int) -> np.ndarray:
    """A 64-bit digest of each feature vector's float64 bytes (zeros without vectors)."""
    if features is None:
        return np.zeros(n, dtype=np.int64)
    rows = np.ascontiguousarray(features, dtype=np.float64)
    return np.array(
        [
            int.from_bytes(hashlib.blake2b(row.tobytes(), digest_size=8).digest(), "little", signed=True)
            for row in rows
        ],
        dtype=np.int64,
    )


def _moments_digest(stats: FrechetStats) -> str:
    """The content of loaded reference statistics, as a short name (compared when two states merge)."""
    h = hashlib.sha256()
    for array in (stats.mean, stats.covariance, np.int64(stats.n)):
        h.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
    return "sha256:" + h.hexdigest()[:16]


class _Side:
    """The examples of one side held by a state: index (sorted), digest, CLIP cosine (the side with texts),
    and either the feature vectors (``keep_features``) or their ``FrechetStats`` plus edge vectors."""

    def __init__(self, name: str):
        self.name = name
        self.kind = None  # "features" or "images" (FID vectors), None: none yet
        self.clip = None  # True: every example has a CLIP cosine, False: none has, None: no example yet
        self.dims = None
        self.next = 0
        self.index = np.zeros(0, dtype=np.int64)
        self.digest = np.zeros(0, dtype=np.int64)
        self.cos = None
        self.features = None
        self.stats = None
        self.edges = {}  # index -> vector: the first and last examples given, and those of merged states
        self.own_first = self.own_last = None  # this state's own first and last (replaced by the next update)

    def __len__(self) -> int:
        return len(self.index)

    def positions(self, idx: np.ndarray) -> np.ndarray:
        """Where each of ``idx`` is held (-1: not held)."""
        if not len(self.index):
            return np.full(len(idx), -1)
        pos = np.searchsorted(self.index, idx)
        found = (pos < len(self.index)) & (self.index[np.minimum(pos, len(self.index) - 1)] == idx)
        return np.where(found, pos, -1)

    def vector(self, index: int) -> np.ndarray | None:
        """The feature vector of ``index`` while it is held as a vector."""
        if self.stats is not None:
            held = self.stats.pending_vector(index)
            if held is not None:
                return held
        return self.edges.get(int(index))

    def add_rows(self, idx, digest, cos, features) -> None:
        order = np.argsort(np.concatenate([self.index, idx]), kind="stable")
        self.index = np.concatenate([self.index, idx])[order]
        self.digest = np.concatenate([self.digest, digest])[order]
        if cos is not None:
            self.cos = np.concatenate([self.cos if self.cos is not None else np.zeros(0), cos])[order]
        if features is not None:
            old = self.features if self.features is not None else np.zeros((0, features.shape[1]))
            self.features = np.concatenate([old, features])[order]
        if len(idx):
            self.next = max(self.next, int(idx.max()) + 1)

    def shift(self, offset: int) -> None:
        self.index = self.index + offset
        self.next += offset
        self.edges = {k + offset: v for k, v in self.edges.items()}
        self.own_first, self.own_last = (
            None if k is None else k + offset for k in (self.own_first, self.own_last)
        )
        if self.stats is not None:
            self.stats.shift_index(offset)

    def arrays(self) -> dict:
        out = {"index": self.index, "digest": self.digest}
        if self.cos is not None:
            out["cos"] = self.cos
        if self.features is not None:
            out["features"] = self.features
        if self.stats is not None:
            out.update({f"stats.{k}": v for k, v in self.stats.to_arrays().items()})
        if self.edges:
            keys = sorted(self.edges)
            out["edges.index"] = np.array(keys, dtype=np.int64)
            out["edges.vectors"] = np.stack([self.edges[k] for k in keys])
        return out

    def extra(self) -> dict:
        return {
            "kind": self.kind,
            "clip": self.clip,
            "dims": self.dims,
            "next": self.next,
            "own_first": self.own_first,
            "own_last": self.own_last,
        }

    @classmethod
    def restore(cls, name: str, extra: dict, arrays: dict) -> "_Side":
        side = cls(name)
        where = f"fid_clip state bytes ({name})"
        keys = ("kind", "clip", "dims", "next", "own_first", "own_last")
        if not isinstance(extra, dict) or set(extra) != set(keys):
            raise ValueError(f"{where}: malformed side description")
        side.kind, side.clip, side.dims, side.next, side.own_first, side.own_last = (extra[k] for k in keys)
        if side.kind not in (None, "features", "images") or side.clip not in (None, True, False):
            raise ValueError(f"{where}: malformed side description")
        for key in ("dims", "next", "own_first", "own_last"):
            value = getattr(side, key)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                raise ValueError(f"{where}: {key!r} must be a whole number >= 0")
        if "index" not in arrays or "digest" not in arrays:
            raise ValueError(f"{where}: the index or the digests are missing")
        side.index, side.digest = arrays.pop("index"), arrays.pop("digest")
        n = len(side.index)
        if (
            side.index.ndim != 1
            or side.digest.shape != (n,)
            or (n and ((np.diff(side.index) <= 0).any() or side.index[0] < 0))
        ):
            raise ValueError(
                f"{where}: the index must be sorted whole numbers >= 0, each once, with one digest each"
            )
        side.cos = arrays.pop("cos", None)
        if (side.cos is not None) != bool(side.clip) or (side.cos is not None and side.cos.shape != (n,)):
            raise ValueError(f"{where}: the CLIP cosines do not match the examples")
        if side.cos is not None and not (np.isfinite(side.cos) & (np.abs(side.cos) <= 1.0)).all():
            raise ValueError(f"{where}: a CLIP cosine is not a finite number in [-1, 1]")
        side.features = arrays.pop("features", None)
        if side.features is not None and (side.dims is None or side.features.shape != (n, side.dims)):
            raise ValueError(f"{where}: the feature vectors do not match the examples")
        if side.features is not None and not np.isfinite(side.features).all():
            raise ValueError(f"{where}: a feature vector holds a number that is not finite")
        stats = {k[6:]: arrays.pop(k) for k in [k for k in arrays if k.startswith("stats.")]}
        if stats:
            if side.dims is None:
                raise ValueError(f"{where}: statistics without a feature size")
            side.stats = FrechetStats.from_arrays(side.dims, stats, where)
            if side.stats.n != n:
                raise ValueError(f"{where}: the statistics count {side.stats.n} vectors for {n} examples")
        if "edges.index" in arrays:
            keys, vectors = arrays.pop("edges.index"), arrays.pop("edges.vectors", None)
            if vectors is None or keys.ndim != 1 or vectors.shape != (len(keys), side.dims):
                raise ValueError(f"{where}: malformed edge vectors")
            side.edges = {int(k): v.copy() for k, v in zip(keys, vectors)}
        if arrays:
            raise ValueError(f"{where}: unexpected arrays {sorted(arrays)}")
        return side


class State(MetricState):
    """fid_clip's mergeable state (see :mod:`multimodal_metrics.fid_clip.mergeable` and
    :mod:`multimodal_metrics.state`).

    ``update(predictions=None, references=None, texts=None, index=None, reference_index=None)`` checks and
    extracts a batch on this process's device; ``merge``, ``to_bytes`` / ``State.from_bytes`` and
    ``result(return_per_example, confidence, n_resamples, seed)`` as every metric's state. ``len(state)``:
    the generated images held (the references when there are none).

    Bytes of ``to_bytes`` (measured; the formula is tested in tests/test_state_fid_clip.py): per side with
    FID moments, (d (d + 1) / 2 + 2 d) float64 plus a few counts, fixed whatever the number of images:
    16.8 MB at 2,048-d (33,864,246 bytes for 5,000 generated and 5,000 reference images: 2 x 16,818,176 for
    the moments, 2 x 5,000 x 16 for the examples, 4 x 16 KB of edge vectors, 2 KB of header); while a side
    has fewer than d vectors it holds them instead (at most d x d values). Per example 16 bytes (its index
    and digest; 24 with a CLIP cosine); two 8 d-byte edge vectors per side and merged state. With
    ``keep_features=True`` the vectors instead of the moments: 8 d bytes per image, 16 KB at 2,048-d
    (16,401,326 bytes for 1,000 images). ``reference_stats=`` adds its moments once.
    """

    metric = "fid_clip"
    options = OPTIONS

    def __init__(
        self, preset: str | None = None, *, keep_features: bool = False, fid: bool = True, **options
    ):
        check_bool(keep_features, "keep_features")
        check_bool(fid, "fid")
        super().__init__(preset, **options)
        self._init_parts(keep_features, fid)
        reference = self.options_resolved["reference_stats"]
        if reference is not None:
            if not fid:
                raise ValueError(
                    "`reference_stats` is FID's reference side: this state scores no FID (fid=False)"
                )
            self._reference = load_stats(reference)
            self._reference_digest = _moments_digest(self._reference)

    def _init_parts(self, keep_features: bool, fid: bool) -> None:
        self.keep_features, self.fid = keep_features, fid
        self._sides = {name: _Side(name) for name in SIDES}
        self._text_side = None
        self._feat_tag = None  # the extractor image features came from (signature)
        self._clip_name = None  # the CLIP model's name (signature)
        self._pillow = None  # the Pillow version that decoded the images (signature)
        self._reference = None
        self._reference_digest = None

    # -- options and identity ------------------------------------------------------------------
    def _portable_options(self) -> dict:
        options = {k: (None if k in LOCAL else v) for k, v in self.options_resolved.items()}
        options["reference_stats"] = self._reference_digest
        for key in ("inception_weights", "clip_model"):
            if options[key] is not None:
                options[key] = os.fsdecode(os.fspath(options[key]))
        return canonical(options, "options")

    def _restore(self, preset: str, stored: dict) -> None:
        super()._restore(preset, stored)
        for key in LOCAL:  # this process's own way to compute: the preset's
            self.options_resolved[key] = PRESETS[preset][key]
        self._init_parts(False, True)

    def _identity(self) -> dict:
        return {**super()._identity(), "keep_features": self.keep_features, "fid": self.fid}

    # -- update --------------------------------------------------------------------------------
    def update(
        self, predictions=None, references=None, texts=None, index=None, reference_index=None
    ) -> "State":
        """Check and score a batch: ``predictions`` (generated images or feature vectors) with their global
        ``index`` and ``texts`` (one per generated image: the CLIP score), ``references`` (real images or
        feature vectors) with ``reference_index`` (see the module docstring). The checks and errors are
        those of ``score``; the networks run on this state's ``device``. A refused batch leaves the state
        as it was."""
        opts = self.options_resolved
        if predictions is None and references is None and texts is None:
            return self
        packed_p, packed_r, packed_t = pack_batch(predictions, references, texts, opts["max_pixels"])
        preds = [p for p in packed_p if p["kind"] != "none"]
        refs = [r for r in packed_r if r["kind"] != "none"]
        has_texts = any(t is not None for t in packed_t)
        text_side = None if not has_texts else ("predictions" if preds else "references")
        items = {"predictions": preds, "references": refs}
        if preds:
            ref_index = (
                index
                if reference_index is None and index is not None and len(refs) == len(preds)
                else reference_index
            )
        else:
            ref_index = reference_index if reference_index is not None else index
        given = {"predictions": index, "references": ref_index}
        indexes = {}
        for name in SIDES:
            if items[name]:
                try:
                    indexes[name] = check_index(given[name], len(items[name]), self._sides[name].next)
                except (TypeError, ValueError) as err:
                    arg = "index" if given[name] is index else INDEX_ARG[name]
                    raise type(err)(str(err).replace("`index", f"`{arg}", 1)) from None
            elif name == "predictions" and index is not None and refs and given["references"] is not index:
                raise ValueError(
                    "`index` numbers the generated images, and this batch has none: give "
                    "`reference_index` for the references"
                )
        self._check_batch(items, text_side)

        # what each example is: its FID vector (digest) and its CLIP cosine
        features, kinds = {}, {}
        for name in [n for n in SIDES if items[n] and self.fid]:
            kinds[name], features[name] = side_features(items[name], name, opts)
        cos = None
        if text_side is not None:
            side_items = packed_p if text_side == "predictions" else packed_r
            cos = clip_cosines(clip_pairs(side_items, packed_t, text_side), opts)
        rows = {}
        for name in SIDES:
            if not items[name]:
                continue
            feats = features.get(name)
            rows[name] = self._new_rows(
                name,
                indexes[name],
                _digests(feats, len(items[name])),
                cos if name == text_side else None,
                feats,
            )
        # nothing is changed before here: every check passed
        if "images" in kinds.values() and self._feat_tag is None:
            self._feat_tag = feature_tag(opts)
        if any(item["kind"] in IMAGE_KINDS for item in (*preds, *refs)):
            self._pillow = self._pillow or pillow_version()
        if text_side is not None:
            self._text_side = text_side
            self._clip_name = self._clip_name or clip_name(opts)
        for name, (idx, digest, c, feats) in rows.items():
            self._commit(name, kinds.get(name), idx, digest, c, feats, name == text_side)
        return self

    def _check_batch(self, items: dict, text_side) -> None:
        """The batch fits this state (before any network runs)."""
        preds, refs = items["predictions"], items["references"]
        if refs and self._reference is not None:
            raise ValueError("`references`: this state has `reference_stats` as its reference side")
        if not self.fid:
            if preds and any(p["kind"] == "features" for p in preds) or refs and text_side != "references":
                raise ValueError(
                    "this state scores the CLIP score only (fid=False): feature vectors and "
                    "reference images without texts have nothing to score"
                )
        if text_side is not None and self._text_side not in (None, text_side):
            raise ValueError(
                f"`texts` go with the {self._text_side} of this state (one text per image); this "
                f"batch has texts for its {text_side}"
            )
        for name in SIDES:
            side = self._sides[name]
            kinds = {item["kind"] for item in items[name]}
            if (
                self.fid
                and side.kind is not None
                and kinds
                and (kinds != {"features"}) != (side.kind == "images")
            ):
                raise ValueError(
                    f"`{name}` mixes images and feature vectors (this state holds {side.kind}): give one kind per side"
                )
            if items[name] and side.clip is not None and side.clip != (name == text_side):
                raise ValueError(
                    f"`texts`: every image of `{name}` in this state {'has' if side.clip else 'has no'} text; give "
                    "one text per image, in every batch"
                )

    def _new_rows(self, name: str, idx, digest, cos, feats):
        """The batch's rows that are new: a repeated index with the same values is dropped, one with other
        values refused (naming it)."""
        side = self._sides[name]
        if feats is not None and side.dims is not None and feats.shape[1] != side.dims:
            raise ValueError(
                f"`{name}` has {feats.shape[1]}-d feature vectors; this state holds {side.dims}-d ones"
            )
        keep = np.ones(len(idx), dtype=bool)
        first = {}
        for i, value in enumerate(idx.tolist()):
            j = first.setdefault(value, i)
            if j != i:
                self._same(name, value, digest[i], digest[j], cos, i, j, cos)
                keep[i] = False
        pos = side.positions(idx)
        for i in np.flatnonzero((pos >= 0) & keep).tolist():
            self._same(name, int(idx[i]), digest[i], side.digest[pos[i]], cos, i, pos[i], side.cos)
            keep[i] = False
        return (
            idx[keep],
            digest[keep],
            None if cos is None else cos[keep],
            None if feats is None else feats[keep],
        )

    @staticmethod
    def _same(name, value, digest_a, digest_b, cos_a, i, j, cos_b) -> None:
        same = digest_a == digest_b and (
            cos_a is None or np.float64(cos_a[i]).tobytes() == np.float64(cos_b[j]).tobytes()
        )
        if not same:
            raise ValueError(
                f"fid_clip state: example index {value} of `{name}` was scored twice with different "
                "results (a duplicate index must repeat the same example)"
            )

    def _commit(self, name: str, kind, idx, digest, cos, feats, clip: bool) -> None:
        side = self._sides[name]
        side.clip = clip
        if feats is not None:
            side.kind, side.dims = kind, feats.shape[1]
        if not len(idx):
            return
        if feats is not None and not self.keep_features:
            side.stats = side.stats or FrechetStats(side.dims)
            if side.own_first is None:
                side.own_first = int(idx[0])
                side.edges[side.own_first] = feats[0].copy()
            if side.own_last not in (None, side.own_first):
                side.edges.pop(side.own_last, None)
            side.own_last = int(idx[-1])
            side.edges[side.own_last] = feats[-1].copy()
            side.stats.update(feats, name, index=idx, copy=False)  # this batch's own array
        side.add_rows(idx, digest, cos, feats if self.keep_features else None)

    # -- merge ---------------------------------------------------------------------------------
    def merge(self, *others: "State") -> "State":
        """Add the examples of ``others`` (fid_clip states of the same preset, options, resources and
        library version) to this state, in place; returns ``self``. A refused merge leaves it unchanged."""
        for other in others:
            self._check_same(other)
        record_ids = merge_record_ids(self.record_ids, *(other.record_ids for other in others))
        for other in others:
            self._merge_one(other)
            self.total = self.total if other.total is None else other.total
        self.record_ids = record_ids
        return self

    def _merge_one(self, other: "State") -> None:
        if other._reference_digest != self._reference_digest:
            raise ValueError("cannot merge fid_clip states with different `reference_stats`")
        for attr, what in (
            ("_text_side", "`texts` go with"),
            ("_feat_tag", "image features come from"),
            ("_clip_name", "the CLIP model is"),
            ("_pillow", "the images were decoded by Pillow"),
        ):
            mine, theirs = getattr(self, attr), getattr(other, attr)
            if mine is not None and theirs is not None and mine != theirs:
                raise ValueError(
                    f"cannot merge fid_clip states: {what} {theirs!r} in one and {mine!r} in the other"
                )
        plans = {}
        for name in SIDES:
            mine, theirs = self._sides[name], other._sides[name]
            if not len(theirs):
                continue
            if len(mine):
                if mine.kind != theirs.kind and mine.kind and theirs.kind:
                    raise ValueError(
                        f"cannot merge fid_clip states: `{name}` holds {theirs.kind} in one and "
                        f"{mine.kind} in the other (one kind per side)"
                    )
                if mine.clip != theirs.clip:
                    raise ValueError(
                        f"cannot merge fid_clip states: the `{name}` of one have texts, of the other not"
                    )
                if mine.dims != theirs.dims:
                    raise ValueError(
                        f"cannot merge fid_clip states: `{name}` has {theirs.dims}-d feature vectors "
                        f"in one and {mine.dims}-d in the other"
                    )
            plans[name] = self._merge_plan(name, mine, theirs)
        # every check passed: change this state
        self._text_side = self._text_side or other._text_side
        self._feat_tag = self._feat_tag or other._feat_tag
        self._clip_name = self._clip_name or other._clip_name
        self._pillow = self._pillow or other._pillow
        for name, plan in plans.items():
            self._apply(self._sides[name], other._sides[name], *plan)

    def _merge_plan(self, name: str, mine: _Side, theirs: _Side):
        """(their positions to add, the repeated indexes with the vector of each) once every repeated index
        was checked: the same digest and cosine, and a vector to take it out of the moments."""
        pos = mine.positions(theirs.index)
        repeated = np.flatnonzero(pos >= 0)
        for j in repeated.tolist():
            self._same(
                name,
                int(theirs.index[j]),
                theirs.digest[j],
                mine.digest[pos[j]],
                theirs.cos,
                j,
                pos[j],
                mine.cos,
            )
        if (
            len(repeated) == len(theirs) == len(mine)
            and mine.stats is not None
            and theirs.stats is not None
            and all(np.array_equal(a, b) for a, b in zip(_stats_arrays(mine), _stats_arrays(theirs)))
        ):
            return np.zeros(
                0, dtype=np.int64
            ), None  # the same side twice (references given to every process)
        removals = []
        if mine.stats is not None and len(repeated):
            for j in repeated.tolist():
                value = int(theirs.index[j])
                vector = theirs.stats.pending_vector(value)
                if vector is not None:
                    removals.append((value, "theirs", None))
                    continue
                vector = mine.vector(value)
                if vector is None:
                    vector = theirs.vector(value)
                if vector is None:
                    raise ValueError(
                        f"cannot merge fid_clip states: example index {value} of `{name}` is held by both, and their "
                        "FID statistics no longer hold its feature vector (past d vectors a state keeps only those of "
                        "its first and last examples, where a DistributedSampler's padding lies): score each index "
                        "once, or create the states with keep_features=True"
                    )
                removals.append((value, "mine", vector))
        return np.flatnonzero(pos < 0), removals

    @staticmethod
    def _apply(mine: _Side, theirs: _Side, add: np.ndarray, removals) -> None:
        if removals is None:
            return
        mine.kind = mine.kind or theirs.kind
        mine.clip = theirs.clip if mine.clip is None else mine.clip
        mine.dims = mine.dims or theirs.dims
        skip = set()
        for value, where, vector in removals:
            if where == "theirs":
                skip.add(value)
            else:
                mine.stats.discard(value, vector)
        if theirs.stats is not None:
            mine.stats = mine.stats or FrechetStats(theirs.dims)
            mine.stats.merge(theirs.stats, skip=skip)
        for key, vector in theirs.edges.items():
            mine.edges.setdefault(key, vector.copy())
        mine.add_rows(
            theirs.index[add],
            theirs.digest[add],
            None if theirs.cos is None else theirs.cos[add],
            None if theirs.features is None else theirs.features[add],
        )
        mine.next = max(mine.next, theirs.next)

    # -- what a state holds ----------------------------------------------------------------------
    def __len__(self) -> int:
        p, r = (len(self._sides[name]) for name in SIDES)
        return p or r

    def shift_index(self, offset: int) -> "State":
        """Add ``offset`` to every index held, on both sides (a shard numbered from 0 moved to its place:
        paired rows of a dataset scored without an index column). Moments already added keep the blocks
        they were added in: FID from them is then within 1e-12 of one process (kept vectors: bit for bit)."""
        for side in self._sides.values():
            check_offset(offset, side.index, self.metric)
            check_offset(offset, np.array([side.next]), self.metric)
        for side in self._sides.values():
            side.shift(int(offset))
        return self

    @property
    def index(self) -> np.ndarray:
        """The global indexes of the generated images held, sorted."""
        return self._sides["predictions"].index.copy()

    @property
    def reference_index(self) -> np.ndarray:
        """The global indexes of the reference images held, sorted."""
        return self._sides["references"].index.copy()

    def __repr__(self) -> str:
        p, r = (len(self._sides[name]) for name in SIDES)
        return f"<fid_clip state: preset {self.preset!r}, {p} generated and {r} reference example(s)>"

    # -- result --------------------------------------------------------------------------------
    def result(
        self, return_per_example=False, confidence=None, n_resamples=None, seed=None, allow_partial=False
    ):
        """fid_clip's :class:`~multimodal_metrics.results.Result` of every example held, in index order:
        what ``score`` gives on all of them with this state's preset and options (see the module docstring
        for what is equal bit for bit). ``total`` counts the generated images (the references where there
        are none): a state that lacks some is refused unless ``allow_partial=True`` (see
        :meth:`MetricState.result`)."""
        resampling = self._result_call(return_per_example, confidence, n_resamples, seed, allow_partial)
        p, r = self._sides["predictions"], self._sides["references"]
        partial = self._coverage(p.index if len(p) else r.index, allow_partial)
        return mark_partial(self._result(resampling, return_per_example, n_resamples), partial)

    def _result(self, resampling, return_per_example, n_resamples):
        p, r = self._sides["predictions"], self._sides["references"]
        if not len(p) and not len(r):
            raise self._empty_error()
        opts = self.options_resolved
        has_texts = self._text_side is not None
        ref_side = bool(len(r)) or self._reference is not None
        check_fid_sides(bool(len(p)), ref_side, has_texts)
        fid, fields = None, {}
        if len(p) and ref_side:
            if not self.fid:
                raise ValueError(
                    "this state scores the CLIP score only (fid=False) but holds reference images "
                    "beside generated ones"
                )
            stats_p = _side_stats(p)
            stats_r, kind_r = (
                (self._reference, "stats") if self._reference is not None else (_side_stats(r), r.kind)
            )
            value = fid_value(stats_p, stats_r, opts["save_stats"], kind_r != "stats")
            fid = (value, None if p.features is None else p.features.copy(), stats_r)
            fields.update(fid_fields(opts, {p.kind, kind_r}, tag=self._feat_tag))
        cos = None
        if has_texts:
            cos = self._sides[self._text_side].cos
            fields.update(clip_fields(opts, name=self._clip_name))
        if self._pillow is not None:
            fields["pil"] = self._pillow
        return finish_scores(
            self.preset, opts, resampling, return_per_example, n_resamples is None, fields, fid, cos
        )

    def _empty_error(self) -> Exception:
        try:
            score(None, None, self.preset, **self.options_resolved)
        except (ValueError, TypeError) as err:
            return err
        return ValueError("fid_clip: no examples to score")  # pragma: no cover

    # -- bytes ---------------------------------------------------------------------------------
    def _extra_state(self):
        extra = {
            "keep_features": self.keep_features,
            "fid": self.fid,
            "text_side": self._text_side,
            "feat_tag": self._feat_tag,
            "clip_name": self._clip_name,
            "pillow": self._pillow,
            "sides": {name: self._sides[name].extra() for name in SIDES},
        }
        arrays = {f"{name}.{k}": v for name in SIDES for k, v in self._sides[name].arrays().items()}
        if self._reference is not None:
            arrays.update({f"reference.{k}": v for k, v in self._reference.to_arrays().items()})
        return extra, arrays

    def _restore_extra(self, extra, arrays) -> None:
        keys = {"keep_features", "fid", "text_side", "feat_tag", "clip_name", "pillow", "sides"}
        if (
            not isinstance(extra, dict)
            or set(extra) != keys
            or not isinstance(extra["sides"], dict)
            or set(extra["sides"]) != set(SIDES)
        ):
            raise ValueError("fid_clip state bytes: malformed 'extra'")
        for key in ("keep_features", "fid"):
            if not isinstance(extra[key], bool):
                raise ValueError(f"fid_clip state bytes: {key!r} must be true or false")
        self._init_parts(extra["keep_features"], extra["fid"])
        if extra["text_side"] not in (None, *SIDES):
            raise ValueError("fid_clip state bytes: malformed 'text_side'")
        for key in ("feat_tag", "clip_name", "pillow"):
            if extra[key] is not None and not isinstance(extra[key], str):
                raise ValueError(f"fid_clip state bytes: {key!r} must be a string")
        self._text_side, self._feat_tag = extra["text_side"], extra["feat_tag"]
        self._clip_name, self._pillow = extra["clip_name"], extra["pillow"]
        arrays = dict(arrays)
        for name in SIDES:
            own = {k[len(name) + 1 :]: arrays.pop(k) for k in [k for k in arrays if k.startswith(name + ".")]}
            if not own and extra["sides"][name] != _Side(name).extra():
                raise ValueError(f"fid_clip state bytes: the {name} side is described but not there")
            self._sides[name] = _Side.restore(name, extra["sides"][name], own) if own else _Side(name)
        reference = {k[10:]: arrays.pop(k) for k in [k for k in arrays if k.startswith("reference.")]}
        if arrays:
            raise ValueError(f"fid_clip state bytes: unexpected arrays {sorted(arrays)}")
        digest = self.options_resolved["reference_stats"]
        if reference:
            if "mu" in reference:
                dims = len(reference["mu"])
            elif "shift" in reference:
                dims = len(reference["shift"])
            else:
                raise ValueError("fid_clip state bytes: malformed reference statistics")
            self._reference = FrechetStats.from_arrays(
                dims, reference, "fid_clip state bytes (reference_stats)"
            )
            self._reference_digest = _moments_digest(self._reference)
        if self._reference_digest != digest:
            raise ValueError("fid_clip state bytes: the reference statistics do not match `reference_stats`")
        for name in SIDES:
            side = self._sides[name]
            if (
                self.keep_features
                and side.stats is not None
                or not self.fid
                and (side.stats or side.features) is not None
            ):
                raise ValueError("fid_clip state bytes: the sides do not match keep_features / fid")


def _stats_arrays(side: _Side) -> list:
    return list(side.stats.to_arrays().values())


def _side_stats(side: _Side) -> FrechetStats:
    """The Frechet statistics of a side: computed from its vectors in index order (``keep_features``: the
    computation of ``score``), or (a copy of) its running statistics."""
    if side.features is not None:
        return FrechetStats(side.dims).update(side.features, side.name, index=side.index)
    return side.stats.copy()  # reading the covariance adds the waiting vectors: not to the state's own


def state(preset="default", *, keep_features=False, fid=True, **options) -> State:
    """An empty :class:`State` with ``preset`` and ``options`` checked and fixed (as ``score`` takes them).
    ``keep_features``: keep the feature vectors (the FID interval needs them; 8 d bytes per image) instead of
    the moments; ``fid=False``: CLIP score only (no FID network runs; references only with texts)."""
    return State(preset, keep_features=keep_features, fid=fid, **options)
