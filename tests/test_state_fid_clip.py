"""fid_clip's mergeable state: shards of generated and reference examples scored in separate states and
merged in any order give ``fid_clip.score`` on all of them: CLIP scores and everything per example bit for
bit; FID bit for bit from kept vectors (``keep_features``, sides with fewer vectors than dimensions) and
from moments merged one block of the index at a time in block order, else within 1e-12 relative. Feature
arrays where possible; images through the tiny models of ``_fid_clip_fixtures`` (batch_size=1: a float32
network gives an image the same values in every batch only when it runs alone)."""

import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from state_checks import (
    StateCase,
    assert_same_result,
    check_merges_equal_score,
    check_round_trip,
    random_shards,
    state_header,
    strided_with_padding,
    with_edited_header,
)

from multimodal_metrics import fid_clip
from multimodal_metrics import state as mmstate
from multimodal_metrics.fid_clip import moments

pytestmark = pytest.mark.filterwarnings("ignore:FID.*fewer samples than dimensions:UserWarning")
BLOCK = moments.BLOCK
PRESETS = list(fid_clip.PRESETS)


def features(n: int, d: int, seed: int, shift: float = 0.0) -> np.ndarray:
    """Inception-like vectors: non-negative, correlated."""
    rng = np.random.default_rng(seed)
    mix = rng.normal(size=(d, d)) / np.sqrt(d)
    return np.abs(rng.normal(size=(n, d)) @ mix) + shift


@dataclass
class FidCase(StateCase):
    """A StateCase whose states take ``state_options`` too (``keep_features``, ``fid``: not options of ``score``)."""

    state_options: dict = field(default_factory=dict)

    def shard_state(self, ids):
        state = self.module.state(**self.options, **self.state_options)
        if ids:
            state.update(**self.take(ids), index=list(ids))
        return state


def feature_case(n=120, d=16, seed=0, keep=False, **options) -> FidCase:
    p, r = features(n, d, seed), features(n, d, seed + 1, shift=0.05)
    kwargs = {"return_per_example": True}
    if keep:
        kwargs.update(confidence=0.9, n_resamples=20, seed=3)
    return FidCase(fid_clip, {"predictions": list(p), "references": list(r)}, options, kwargs,
                   state_options={"keep_features": keep})  # fmt: skip


def assert_close_result(merged, reference, rel: float = 1e-12) -> None:
    """Everything equal but FID (and the score it enters), within ``rel``."""
    assert list(merged) == list(reference) and merged.signature == reference.signature
    assert merged.per_example == reference.per_example
    for key, value in reference.items():
        if key in ("fid", "score"):
            assert merged[key] == pytest.approx(value, rel=rel, abs=1e-300), key
        else:
            assert merged[key] == value, key


def merged_states(case: FidCase, shards, rng: random.Random, via_bytes: float = 0.5):
    states = [case.shard_state(ids) for ids in shards]
    rng.shuffle(states)
    states = [type(s).from_bytes(s.to_bytes()) if rng.random() < via_bytes else s for s in states]
    merged = states[0]
    for other in states[1:]:
        merged = merged.merge(other)
    return merged


# ------------------------------------------------------------------------------------------------
# feature vectors
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", PRESETS)
def test_kept_vectors_merge_bit_for_bit_with_the_interval(preset):
    """keep_features=True: any split, any order, through bytes or not, DistributedSampler padding included:
    FID, its bootstrap interval, the signature: bit for bit."""
    case = feature_case(keep=True, preset=preset)
    check_merges_equal_score(case, seed=1, splits=3)
    check_round_trip(case)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize(("n", "d"), [(300, 12), (BLOCK + 350, 6)])
def test_moments_merge_within_1e_12_in_any_sharding(preset, n, d):
    """Moments only (n >= d): strided shards with padding, random shards, merged in random orders (half of
    them through bytes): FID within 1e-12 relative of one score() call, the rest equal."""
    case = feature_case(n, d, seed=n, preset=preset)
    reference = case.reference()
    rng = random.Random(n)
    layouts = [strided_with_padding(n, 2), strided_with_padding(n, 3)]
    layouts += [random_shards(n, rng.randint(2, 5), rng) for _ in range(3)]
    for shards in layouts:
        merged = merged_states(case, shards, rng)
        assert len(merged) == n and merged.index.tolist() == list(range(n))
        assert_close_result(merged.result(return_per_example=True), reference)


def test_blocks_merged_in_block_order_are_bit_for_bit():
    """One state per block of BLOCK indexes (the last one partial), merged in block order, through bytes or
    not: FID bit for bit (each block's moments are one syrk of its vectors, added in block order as score
    adds them); so is a first state holding several blocks. Strided shards: within 1e-12."""
    n, d = 2 * BLOCK + 777, 5
    case = feature_case(n, d, seed=4)
    reference = case.reference()
    blocks = [list(range(a, min(a + BLOCK, n))) for a in range(0, n, BLOCK)]
    for via_bytes in (0.0, 1.0):
        for layout in (blocks, [blocks[0] + blocks[1], blocks[2]]):
            states = [case.shard_state(ids) for ids in layout]
            states = [type(s).from_bytes(s.to_bytes()) if via_bytes else s for s in states]
            merged = states[0]
            for other in states[1:]:
                merged.merge(other)
            assert_same_result(merged.result(return_per_example=True), reference)
    strided = merged_states(case, strided_with_padding(n, 2), random.Random(0), via_bytes=1.0)
    assert_close_result(strided.result(), case.module.score(**case.inputs))


def test_sides_with_fewer_vectors_than_dimensions_are_bit_for_bit_in_any_sharding():
    """n < d: the state holds the vectors (the N x N route), sorted by index when merged: bit for bit."""
    case = feature_case(40, 64, seed=9)
    check_merges_equal_score(case, seed=2, splits=4)
    state = case.shard_state(range(40))
    assert state._sides["predictions"].stats._outer is None  # no d x d product formed


def test_batches_and_default_indexes():
    """Batches of any size with the default index (after the last one held, per side) give one update."""
    p, r = features(50, 8, 1), features(70, 8, 2)
    one = fid_clip.state().update(predictions=p, references=r)
    many = fid_clip.state()
    for a in range(0, 50, 7):
        many.update(predictions=p[a : a + 7])
    for a in range(0, 70, 9):
        many.update(references=r[a : a + 9])
    assert many.index.tolist() == list(range(50)) and many.reference_index.tolist() == list(range(70))
    assert_same_result(many.result(), one.result())
    assert_same_result(one.result(), fid_clip.score(p, r))
    # paired data: references take `index` when there is one per generated image, else their own
    st = fid_clip.state().update(predictions=p[:3], references=r[:3], index=[10, 11, 12])
    assert st.reference_index.tolist() == [10, 11, 12]
    st.update(predictions=p[3:5], references=r[3:4], index=[13, 14])
    assert st.reference_index.tolist() == [10, 11, 12, 13]
    st.update(references=r[4:6], index=[40, 41])  # no generated images: `index` numbers the references
    assert st.reference_index.tolist() == [10, 11, 12, 13, 40, 41]


def test_batches_numbered_from_zero_move_to_their_place():
    """shift_index: states of batches scored with their positions (Ray Data without an index column) moved
    to the batches' places in the dataset, both sides: bit for bit with kept vectors, 1e-12 from moments."""
    p, r = features(500, 6, 11), features(500, 6, 12)
    for keep, close in ((True, assert_same_result), (False, assert_close_result)):
        parts = [fid_clip.state(keep_features=keep).update(predictions=p[a : a + 120], references=r[a : a + 120])
                 for a in range(0, 500, 120)]  # fmt: skip
        merged = parts[-1].shift_index(480)
        for a, part in zip(range(0, 480, 120), parts[:-1]):
            merged.merge(fid_clip.State.from_bytes(part.shift_index(a).to_bytes()))
        assert merged.index.tolist() == merged.reference_index.tolist() == list(range(500))
        close(merged.result(), fid_clip.score(p, r))


# ------------------------------------------------------------------------------------------------
# duplicates
# ------------------------------------------------------------------------------------------------
def test_padding_repeats_are_dropped_and_conflicts_refused():
    p, r = features(300, 8, 5), features(300, 8, 6)
    case = FidCase(
        fid_clip, {"predictions": list(p), "references": list(r)}, {}, {"return_per_example": True}
    )
    reference = case.reference()
    # DistributedSampler with 7 ranks pads 1..6 examples: each repeat is the last example of a rank and the
    # first of another, whose vectors the states keep after folding their moments (through bytes here)
    states = [
        fid_clip.State.from_bytes(case.shard_state(ids).to_bytes()) for ids in strided_with_padding(300, 7)
    ]
    merged = states[-1]
    for other in states[:-1]:
        merged.merge(other)
    assert len(merged) == 300
    assert_close_result(merged.result(return_per_example=True), reference)

    st = fid_clip.state().update(predictions=p[:4], references=r[:4], index=[0, 1, 2, 3])
    before = st.to_bytes()
    with pytest.raises(ValueError, match="example index 2 of `predictions` was scored twice with different"):
        st.update(predictions=p[5:6], index=[2])
    with pytest.raises(ValueError, match="example index 1 of `references` was scored twice"):
        st.update(references=r[7:8], reference_index=[1])
    with pytest.raises(ValueError, match="index 3 of `predictions` was scored twice"):
        st.merge(fid_clip.state().update(predictions=p[9:10], index=[3]))
    assert st.to_bytes() == before
    st.update(predictions=p[:4], references=r[:4], index=[0, 1, 2, 3])  # the same examples again: dropped
    assert st.to_bytes() == before


def test_a_repeat_without_its_vector_is_refused():
    """Two states past d vectors that share an index in the middle of both: its vector is gone, refused."""
    p, r = features(200, 6, 7), features(200, 6, 8)
    a = fid_clip.state().update(predictions=p[:100], references=r[:100], index=range(100))
    b = fid_clip.state().update(predictions=p[40:200], references=r[40:200], index=range(40, 200))
    a, b = (fid_clip.State.from_bytes(s.to_bytes()) for s in (a, b))
    with pytest.raises(
        ValueError, match="example index 41 of `predictions` is held by both.*keep_features=True"
    ):
        a.merge(b)
    kept = [fid_clip.state(keep_features=True).update(predictions=p[s], references=r[s], index=range(200)[s])
            for s in (slice(0, 100), slice(40, 200))]  # fmt: skip
    assert_same_result(kept[0].merge(kept[1]).result(), fid_clip.score(p, r))


def test_the_same_references_given_to_every_process_count_once():
    p, r = features(90, 5, 3), features(60, 5, 4)
    states = [
        fid_clip.state().update(predictions=p[k::3], index=range(k, 90, 3)).update(references=r)
        for k in range(3)
    ]
    states = [fid_clip.State.from_bytes(s.to_bytes()) for s in states]
    merged = states[0].merge(states[1], states[2])
    assert merged.reference_index.tolist() == list(range(60))
    assert_close_result(merged.result(), fid_clip.score(p, r))


# ------------------------------------------------------------------------------------------------
# reference statistics, saved statistics
# ------------------------------------------------------------------------------------------------
def test_reference_stats_travel_in_the_state(tmp_path):
    p, r = features(80, 6, 1), features(70, 6, 2)
    fid_clip.score(p, r, save_stats=str(tmp_path))
    path = str(tmp_path / "references.npz")
    reference = fid_clip.score(p, None, reference_stats=path, return_per_example=True)
    shards = [
        fid_clip.state(reference_stats=path).update(predictions=p[k::2], index=range(k, 80, 2))
        for k in (0, 1)
    ]
    blob = shards[1].to_bytes()
    os.remove(path)  # the statistics are in the bytes
    merged = shards[0].merge(fid_clip.State.from_bytes(blob))
    assert_close_result(merged.result(return_per_example=True), reference)
    with pytest.raises(ValueError, match="`references`: this state has `reference_stats`"):
        shards[0].update(references=r[:2])
    other = fid_clip.state(reference_stats={"mu": r.mean(0) + 1, "sigma": np.cov(r, rowvar=False)})
    with pytest.raises(ValueError, match="option 'reference_stats' differs"):
        shards[0].merge(other)


def test_saved_statistics_carry_their_count_and_merge(tmp_path):
    """Statistics saved by two runs (``save_stats``, mm-score --save-stats) merge into those of both sets:
    ``load_stats`` of a list, and ``reference_stats`` given as several files."""
    p, r = features(300, 6, 1), features(500, 6, 2, shift=0.1)
    fid_clip.score(p, r[:200], save_stats=str(tmp_path / "a"))
    fid_clip.score(p, r[200:], save_stats=str(tmp_path / "b"))
    files = [str(tmp_path / x / "references.npz") for x in "ab"]
    with np.load(files[1]) as saved:
        assert int(saved["n"]) == 300
    merged = fid_clip.load_stats(files)
    assert merged.n == 500
    np.testing.assert_allclose(merged.covariance, np.cov(r, rowvar=False), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(merged.mean, r.mean(0), rtol=1e-13)
    assert fid_clip.score(p, None, reference_stats=files)["fid"] == pytest.approx(
        fid_clip.score(p, r)["fid"], rel=1e-11
    )
    with pytest.raises(ValueError, match=r"reference_stats.*\[1\].*without `n`"):
        np.savez(tmp_path / "plain.npz", mu=r.mean(0), sigma=np.cov(r, rowvar=False))
        fid_clip.load_stats([files[0], str(tmp_path / "plain.npz")])


# ------------------------------------------------------------------------------------------------
# images, CLIP scores, captioning
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def models(tmp_path_factory):
    pytest.importorskip("torch")
    from _fid_clip_fixtures import random_images, tiny_models

    tiny = tiny_models()  # built once per test process, shared with the other fid_clip test files
    return {
        "weights": str(tiny["inception"]),
        "clip": str(tiny["hf"]),
        "ruclip": str(tiny["ruclip"]),
        "generated": random_images(11, seed=21, size=(40, 36)),
        "real": random_images(11, seed=22, size=(36, 44)),
    }


def _pool():
    """A cheap feature extractor (4 x 4 average pool of each channel: 48-d), so that many shards cost little."""
    import torch

    class Pool4(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.adaptive_avg_pool2d(x, 4).flatten(1)

    return Pool4()


@pytest.mark.parametrize("preset", PRESETS)
def test_images_with_texts_merge_bit_for_bit(models, preset):
    """Generated images with prompts, reference images, through a feature extractor and CLIP on each shard:
    FID, CLIP score, score, per-example values and intervals equal score() bit for bit."""
    clip = models["ruclip"] if preset == "fusion_brain_2022" else models["clip"]
    texts = [f"a cat number {i}" for i in range(11)]
    case = FidCase(
        fid_clip,
        {"predictions": models["generated"], "references": models["real"], "texts": texts},
        {
            "preset": preset,
            "feature_extractor": _pool(),
            "clip_model": clip,
            "batch_size": 1,
            "num_workers": 0,
        },
        {"return_per_example": True, "confidence": 0.9, "n_resamples": 20, "seed": 5},
        state_options={"keep_features": True},
    )
    check_merges_equal_score(case, seed=3, splits=1)
    merged = case.shard_state(range(11))
    assert merged._feat_tag == "custom(Pool4)" and merged._clip_name == Path(clip).name
    # without the vectors: the same, without FID's interval (which needs them)
    moments = fid_clip.state(**case.options).update(**case.inputs)
    reference = fid_clip.score(**case.inputs, **case.options, return_per_example=True)
    assert_same_result(moments.result(return_per_example=True), reference)
    with pytest.raises(ValueError, match="`confidence`: FID's interval .* keep_features=True"):
        moments.result(confidence=0.9)


def test_fid_inception_images_in_shards(models):
    """The FID Inception on each shard, the states merged through bytes: score() bit for bit, the weights
    named by their content in the signature."""
    options = {"inception_weights": models["weights"], "batch_size": 1, "num_workers": 0}
    generated, real = models["generated"][:5], models["real"][:4]
    reference = fid_clip.score(generated, real, **options)
    shards = [
        fid_clip.state(**options).update(predictions=generated[k::2], index=range(k, 5, 2)) for k in (0, 1)
    ]
    shards[1].update(references=real)
    merged = fid_clip.State.from_bytes(shards[1].to_bytes()).merge(
        fid_clip.State.from_bytes(shards[0].to_bytes())
    )
    assert_same_result(merged.result(), reference)
    assert "feat:inception-sha256-" in merged.result().signature


def test_captioning_and_clip_only_states(models):
    """CLIP score of captioned reference images (no FID network: fid=False), with METEOR: the captioning
    score; and CLIP scores of generated images alone."""
    texts = [f"a dog {i}" for i in range(11)]
    options = {"clip_model": models["clip"], "batch_size": 1, "num_workers": 0, "meteor": 0.25}
    case = FidCase(
        fid_clip, {"references": models["real"], "texts": texts}, options, state_options={"fid": False}
    )
    check_merges_equal_score(case, seed=4, splits=1)
    options.pop("meteor")
    case = FidCase(
        fid_clip, {"predictions": models["generated"], "texts": texts}, options, state_options={"fid": False}
    )
    check_merges_equal_score(case, seed=5, splits=1)
    st = fid_clip.state(fid=False, **options)
    with pytest.raises(ValueError, match="CLIP score only"):
        st.update(predictions=models["generated"][:2], references=models["real"][:2])


# ------------------------------------------------------------------------------------------------
# refusals, errors, bytes
# ------------------------------------------------------------------------------------------------
def test_states_that_differ_are_refused_naming_what():
    x = features(10, 4, 0)
    base = fid_clip.state().update(predictions=x, references=x)
    cases = [
        (fid_clip.state(preset="clipscore"), "preset differs"),
        (fid_clip.state(pre_resize=128), "option 'pre_resize' differs"),
        (fid_clip.state(keep_features=True), "keep_features differs"),
        (fid_clip.state(fid=False), "fid differs"),
    ]
    for other, what in cases:
        with pytest.raises(ValueError, match=what):
            base.merge(other)
    from multimodal_metrics import anls

    with pytest.raises(ValueError, match="metric differs"):
        base.merge(anls.state())
    with pytest.raises(ValueError, match="a fid_clip state, not a state of anls"):
        anls.State.from_bytes(base.to_bytes())
    old = fid_clip.state().update(predictions=x, references=x)
    old.version = "0.0.9"
    with pytest.raises(ValueError, match="library version differs"):
        base.merge(old)
    with pytest.raises(ValueError, match="written by multimodal-metrics 0.0.9"):
        old.result()
    with pytest.raises(ValueError, match="`predictions` has 5-d feature vectors; this state holds 4-d"):
        base.update(predictions=features(2, 5, 1))
    with pytest.raises(ValueError, match="`predictions` has 3-d feature vectors in one and 4-d"):
        base.merge(fid_clip.state().update(predictions=features(20, 3, 1), index=range(10, 30)))
    # the options that say how a process computes are not part of the identity
    local = fid_clip.state(batch_size=7, num_workers=0, progress=False).update(
        predictions=x, references=x, index=range(10, 20)
    )
    assert len(base.merge(local)) == 20


def test_batches_that_do_not_fit_are_refused(models):
    st = fid_clip.state(
        inception_weights=models["weights"], clip_model=models["clip"], batch_size=1, num_workers=0
    )
    st.update(predictions=models["generated"][:2], texts=["a", "b"])
    before = st.to_bytes()
    with pytest.raises(ValueError, match="every image of `predictions` in this state has text"):
        st.update(predictions=models["generated"][2:3])
    with pytest.raises(ValueError, match="`predictions` mixes images and feature vectors"):
        st.update(predictions=features(2, 256, 0), index=[5, 6])
    with pytest.raises(ValueError, match="texts.* go with the predictions of this state"):
        st.update(references=models["real"][:1], texts=["c"])
    with pytest.raises(
        ValueError, match=r"`predictions` example 0 is a feature vector: the CLIP score needs images"
    ):
        fid_clip.state().update(predictions=features(1, 4, 0), texts=["x"])
    with pytest.raises(ValueError, match=r"`reference_index` has 1 entries but the batch has 2"):
        st.update(references=models["real"][:2], reference_index=[3])
    with pytest.raises(TypeError, match=r"`index\[0\]` must be a whole number"):
        st.update(predictions=models["generated"][:1], texts=["a"], index=[0.5])
    assert st.to_bytes() == before


def test_empty_and_one_sided_states_give_the_errors_of_score():
    for options in ({}, {"preset": "clipscore"}):
        with pytest.raises(ValueError) as from_state:
            fid_clip.state(**options).result()
        with pytest.raises(ValueError) as from_score:
            fid_clip.score([], [], **options)
        assert str(from_state.value) == str(from_score.value)
    x = features(5, 3, 0)
    for kwargs in ({"predictions": x}, {"references": x}):
        with pytest.raises(ValueError) as from_state:
            fid_clip.state().update(**kwargs).result()
        with pytest.raises(ValueError) as from_score:
            fid_clip.score(**kwargs)
        assert str(from_state.value) == str(from_score.value)
    empty = fid_clip.state().update(predictions=x, references=x)
    assert (
        empty.merge(fid_clip.state()).to_bytes()
        == fid_clip.state().update(predictions=x, references=x).to_bytes()
    )
    assert len(fid_clip.State.from_bytes(fid_clip.state().to_bytes())) == 0


def test_bytes_round_trip_any_metric_reader_and_tampering():
    x, y = features(300, 8, 1), features(250, 8, 2)
    st = fid_clip.state(keep_features=False).update(predictions=x, references=y)
    blob = st.to_bytes()
    again = mmstate.from_bytes(blob)
    assert isinstance(again, fid_clip.State) and again.to_bytes() == blob
    assert_same_result(again.result(), st.result())
    header, _ = state_header(blob)
    assert header["options"]["device"] is None and header["options"]["feature_extractor"] is None
    cases = [
        (lambda h: h["arrays"][0].update(shape=[7]), "do not fit|truncated|after the last part"),
        (lambda h: h["arrays"][0].update(dtype="<O"), "malformed array"),
        (lambda h: h.update(arrays="x"), "malformed 'extra' or 'arrays'"),
        (lambda h: h["extra"].update(fid="yes"), "'fid' must be true or false"),
        (lambda h: h["extra"]["sides"]["predictions"].update(dims=9), "statistics|shape"),
        (lambda h: h["extra"].pop("sides"), "malformed 'extra'"),
        (
            lambda h: h["arrays"].append({"name": "x", "dtype": "<f8", "shape": [0], "nbytes": 0}),
            "unexpected arrays",
        ),
        (lambda h: h["options"].update(reference_stats="sha256:00"), "reference statistics do not match"),
    ]
    for edit, message in cases:
        with pytest.raises(ValueError, match=message):
            fid_clip.State.from_bytes(with_edited_header(blob, edit))
    with pytest.raises(ValueError, match="followed by other bytes"):
        fid_clip.State.from_bytes(blob + b"\0")


def test_bytes_are_fixed_size_moments_plus_16_bytes_per_example():
    """Moments: (d (d + 1) / 2 + 2 d) float64 per side whatever the number of examples, plus the index and
    digest of each example (16 bytes) and the edge vectors; keep_features: 8 d bytes per vector instead."""
    d = 64
    moments = (d * (d + 1) // 2 + 2 * d) * 8
    sizes = {}
    for n in (1500, 3000):
        st = fid_clip.state().update(predictions=features(n, d, 1), references=features(n, d, 2))
        sizes[n] = len(st.to_bytes())
        assert 2 * moments + 2 * 16 * n < sizes[n] < 2 * moments + 2 * 16 * n + 4 * 8 * d + 8192
    assert sizes[3000] - sizes[1500] == 2 * 1500 * 16  # only the per-example index and digest grow
    kept = len(fid_clip.state(keep_features=True).update(predictions=features(1000, d, 1)).to_bytes())
    assert 1000 * (8 * d + 16) < kept < 1000 * (8 * d + 16) + 4096


@pytest.mark.parametrize("core_type", ["Haswell", "SkylakeX"])
def test_merges_equal_score_under_other_blas_kernels(core_type):
    """OpenBLAS's kernels round differently: the equalities hold within each kernel (run in a process with
    OPENBLAS_CORETYPE set; a CPU without the kernel's instructions falls back to one it has)."""
    script = """
import numpy as np, random
from multimodal_metrics import fid_clip
from multimodal_metrics.fid_clip import core
from multimodal_metrics.fid_clip import moments
B = moments.BLOCK
rng = np.random.default_rng(0)
p, r = np.abs(rng.normal(size=(2 * B + 100, 24))), np.abs(rng.normal(size=(3000, 24))) + 0.1
whole = fid_clip.score(p, r)["fid"]
blocks = [fid_clip.State.from_bytes(fid_clip.state().update(predictions=p[a:a + B], index=range(a, min(a + B, len(p)))).to_bytes())
          for a in range(0, len(p), B)]
merged = blocks[0]
for s in blocks[1:]:
    merged.merge(s)
merged.update(references=r)
strided = [fid_clip.state().update(predictions=p[k::3], index=range(k, len(p), 3)) for k in range(3)]
strided[0].update(references=r)
other = strided[2].merge(strided[0], strided[1])
assert merged.result()["fid"] == whole, (merged.result()["fid"], whole)
assert abs(other.result()["fid"] - whole) <= 1e-12 * whole
print("ok", whole)
"""
    env = {**os.environ, "OPENBLAS_CORETYPE": core_type}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0 and done.stdout.startswith("ok"), done.stderr[-2000:]


def test_mm_score_save_stats_of_two_runs_merge(models, tmp_path, capsys):
    """`mm-score fid-clip --save-stats DIR` (an existing folder) writes predictions.npz / references.npz
    with their count: the generated images' statistics of two runs (two shards) merge into those of one
    run on all of them."""
    from PIL import Image

    from multimodal_metrics.cli.main import main as mm_score

    images = models["generated"][:6]
    for shard, part in (("a", images[:3]), ("b", images[3:])):
        split = tmp_path / shard
        for folder, arrays in (("images", part), ("gt_images", models["real"][:3])):
            (split / folder).mkdir(parents=True)
            for i, array in enumerate(arrays):
                Image.fromarray(array).save(split / folder / f"{i}.png")
        prompts = {
            str(i): [{"type": "text", "content": "Сгенерируй."}, {"type": "text", "content": "Кот"}]
            for i in range(3)
        }
        pred = {
            str(i): [{"type": "text", "content": ""}, {"type": "image", "content": f"images/{i}.png"}]
            for i in range(3)
        }
        (split / "input.json").write_text(json.dumps(prompts), encoding="utf-8")
        (split / "pred.json").write_text(json.dumps(pred), encoding="utf-8")
        (split / "stats").mkdir()
        argv = ["fid-clip", "--gt-images", str(split / "gt_images"), "--pred-images", str(split / "images"),
                "--input", str(split / "input.json"), "--pred", str(split / "pred.json"), "--preset", "default",
                "--inception-weights", models["weights"], "--clip-model", models["clip"], "--batch-size", "1",
                "--num-workers", "0", "--save-stats", str(split / "stats"), "--no-progress", "--json"]  # fmt: skip
        assert mm_score(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    merged = fid_clip.load_stats([str(tmp_path / s / "stats" / "predictions.npz") for s in "ab"])
    options = {"inception_weights": models["weights"], "batch_size": 1, "num_workers": 0}
    fid_clip.score(images, models["real"][:3], save_stats=str(tmp_path / "all"), **options)
    whole = fid_clip.load_stats(str(tmp_path / "all" / "predictions.npz"))
    assert merged.n == whole.n == 6
    # the same vectors (PNG files hold the arrays' pixels; one image per batch); the files hold mu and sigma
    np.testing.assert_allclose(merged.mean, whole.mean, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(merged.covariance, whole.covariance, rtol=1e-9, atol=1e-14)
