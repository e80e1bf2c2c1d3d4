"""fid_clip: seeds_reference.md 6.6 vectors, the pytorch-fid sqrtm formula as an oracle, the FID
Inception layout against pytorch-fid's parameter list, ruCLIP against an independent transcription of
its architecture, tiny random models loaded through the real loading code, properties, bad input,
evaluate.load, Trainer, demo. Nothing is downloaded."""

import hashlib
import json
import math
import warnings
from pathlib import Path

import numpy as np
import PIL
import pytest
import torch
from _fid_clip_fixtures import (
    random_images,
    tiny_inception,
    tiny_models,
)
from helpers import ROOT, decode_ids, load_metric, predict_by_name, run_in_seq2seq_trainer, serve_app
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import fid as oracle  # holds the transcription of pytorch-fid's calculate_frechet_distance
from PIL import Image

from multimodal_metrics.fid_clip import core, inception, moments

X1 = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
# tiny test sets have fewer images than feature dimensions: the warning is tested once, silenced elsewhere
pytestmark = pytest.mark.filterwarnings("ignore:FID.*fewer samples than dimensions:UserWarning")


@pytest.fixture(scope="module")
def models():
    return tiny_models()


def fid_oracle(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return oracle.pytorch_fid_distance(a.mean(0), np.cov(a, rowvar=False), b.mean(0), np.cov(b, rowvar=False))


# ------------------------------------------------------------------------------------------------
# seeds_reference.md 6.6
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "clip_score,fid,expected", [(0.25, 50, 0.5), (0.25, 250, 0.125), (0.25, 0, 0.625), (0.3, 120.5, 0.34875)]
)
def test_generation_score_vectors(clip_score, fid, expected):
    assert core.generation_score(clip_score, fid) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "other,expected",
    [([[a + 1, b] for a, b in X1], 1.0), ([[2 * a, 2 * b] for a, b in X1], 1.166667), (X1, 0.0)],
)
def test_frechet_vectors_through_the_module(other, expected):
    r = load_metric("fid_clip").compute(predictions=other, references=X1)
    assert r["fid"] == pytest.approx(expected, abs=1e-6)
    assert r["fid"] == pytest.approx(fid_oracle(other, X1), abs=1e-12)
    assert list(r) == ["fid", "signature"] and r["signature"] == "fid_clip|preset:default|feat:given|v:0.1.0"


def test_captioning_score_formula():
    assert core.captioning_score(0.3, 0.5) == 0.4


# ------------------------------------------------------------------------------------------------
# Frechet distance vs pytorch-fid's scipy.linalg.sqrtm formula; running statistics
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,d,seed", [(400, 64, 0), (300, 128, 1), (50, 64, 2), (2000, 32, 3)])
def test_frechet_distance_equals_the_sqrtm_formula(n, d, seed):
    a = oracle.features(n, d, seed)
    b = oracle.features(n + 7, d, seed + 10, shift=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ours = core.frechet_distance(
            moments.FrechetStats.from_features(a), moments.FrechetStats.from_features(b)
        )
    assert ours == pytest.approx(fid_oracle(a, b), rel=1e-6)


def test_fewer_samples_than_dimensions_warns():
    a, b = oracle.features(20, 64, 0), oracle.features(20, 64, 1)
    with pytest.warns(UserWarning, match=r"`predictions` has 20 samples for 64-d features"):
        load_metric("fid_clip").compute(predictions=a, references=b)


def test_running_sums_merge_exactly_and_survive_a_large_offset():
    x = oracle.features(900, 48, 4, shift=1e4)  # large common offset: naive sums lose digits
    whole = moments.FrechetStats.from_features(x)
    parts = [moments.FrechetStats.from_features(x[i : i + 200]) for i in range(0, 900, 200)]
    merged = moments.FrechetStats(48)
    for p in parts[::-1]:
        merged.merge(p)
    np.testing.assert_allclose(merged.mean, x.mean(0), rtol=1e-13)
    np.testing.assert_allclose(merged.covariance, np.cov(x, rowvar=False), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(whole.covariance, np.cov(x, rowvar=False), rtol=1e-8, atol=1e-10)
    stream = moments.FrechetStats(48)
    for i in range(0, 900, 64):
        stream.update(x[i : i + 64])
    assert stream.n == 900
    np.testing.assert_allclose(stream.covariance, whole.covariance, rtol=1e-10, atol=1e-10)


def test_statistics_files_pytorch_fid_format(tmp_path):
    a, b = oracle.features(300, 16, 5), oracle.features(280, 16, 6)
    m = load_metric("fid_clip")
    r = m.compute(predictions=a, references=b, save_stats=str(tmp_path / "stats"))
    with np.load(
        tmp_path / "stats" / "references.npz"
    ) as f:  # what pytorch-fid's _compute_statistics_of_path reads
        mu, sigma = f["mu"][:], f["sigma"][:]
        assert int(f["n"]) == 280
    np.testing.assert_allclose(sigma, np.cov(b, rowvar=False), rtol=1e-10)
    from_file = m.compute(
        predictions=a, references=a[:2], reference_stats=str(tmp_path / "stats" / "references.npz")
    )
    from_dict = m.compute(predictions=a, references=a[:2], reference_stats={"mu": mu, "sigma": sigma})
    assert from_file["fid"] == pytest.approx(r["fid"], rel=1e-12) and from_dict["fid"] == pytest.approx(
        r["fid"], rel=1e-12
    )
    # saved statistics with their count merge back exactly
    merged = moments.load_stats(str(tmp_path / "stats" / "predictions.npz")).merge(
        moments.load_stats(str(tmp_path / "stats" / "references.npz"))
    )
    np.testing.assert_allclose(merged.covariance, np.cov(np.concatenate([a, b]), rowvar=False), rtol=1e-9)
    np.savez(tmp_path / "plain.npz", mu=mu, sigma=sigma)  # pytorch-fid --save-stats: no n
    assert moments.load_stats(str(tmp_path / "plain.npz")).covariance is not None


# ------------------------------------------------------------------------------------------------
# FID Inception network
# ------------------------------------------------------------------------------------------------
def test_inception_parameter_names_and_shapes_equal_pytorch_fid():
    with torch.device("meta"):
        net = inception.build(1.0)
    ours = {k: list(v.shape) for k, v in net.state_dict().items()}
    assert len(ours) == 566 and sum(p.numel() for p in net.parameters()) == 23_850_960
    assert ours["fc.weight"] == [1008, 2048] and ours["Mixed_7c.branch_pool.conv.weight"] == [192, 2048, 1, 1]
    # shared/reference/fid_inception_state_dict.json: pytorch-fid 0.3.0's FIDInceptionV3 built for real
    expected = json.loads((ROOT / "tests" / "data" / "fid_inception_state_dict.json").read_text())
    assert ours == expected and list(ours) == list(expected)


def test_inception_weights_load_strictly_and_give_the_same_features(models, tmp_path):
    net = inception.load_fid_inception(models["inception"])
    ref = tiny_inception(inception)
    x = torch.rand(1, 3, 37, 53)
    with torch.inference_mode():
        np.testing.assert_array_equal(net(x).numpy(), ref(x).numpy())
    # torch-fidelity-style files carry no BatchNorm counters: still loaded, same outputs
    state = {k: v for k, v in ref.state_dict().items() if not k.endswith("num_batches_tracked")}
    torch.save(state, tmp_path / "no_counters.pth")
    with torch.inference_mode():
        np.testing.assert_array_equal(
            inception.load_fid_inception(tmp_path / "no_counters.pth")(x).numpy(), ref(x).numpy()
        )
    # a wrong file is refused with the option named
    torch.save({"Conv2d_1a_3x3.conv.weight": torch.zeros(32, 3, 3, 3)}, tmp_path / "partial.pth")
    with pytest.raises(ValueError, match=r"`inception_weights`: .* does not fit the FID Inception network"):
        inception.load_fid_inception(tmp_path / "partial.pth")


def test_missing_weights_say_where_to_put_them(monkeypatch, tmp_path):
    """Nothing downloads: online (no offline variable) and without `inception_weights`, a
    missing file is a ValueError saying where to put it; torch.hub and the network are never called."""
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("fid_clip went to the network")

    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    m = load_metric("fid_clip")
    for var in ("HF_HUB_OFFLINE", "HF_EVALUATE_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(torch.hub, "load_state_dict_from_url", no_network)
    monkeypatch.setattr(torch.hub, "download_url_to_file", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    imgs = random_images(2)
    with pytest.raises(
        ValueError,
        match=r"`inception_weights`: .*not found in the torch hub cache .*hub/checkpoints/"
        r"pt_inception-2015-12-05-6726825d.pth.*nothing is downloaded.*"
        r"pytorch-fid/releases/download.*put it at",
    ):
        m.compute(predictions=imgs, references=imgs)
    with pytest.raises(
        ValueError, match=r"`inception_weights` file '/nowhere/w.pth' does not exist.*put it at"
    ):
        m.compute(predictions=imgs, references=imgs, inception_weights="/nowhere/w.pth")


def test_every_image_input_form_decodes_to_the_same_pixels(tmp_path):
    from multimodal_metrics.fid_clip import images

    gen = random_images(2, seed=1)
    paths = []
    for i, arr in enumerate(gen):
        paths.append(tmp_path / f"g{i}.png")
        Image.fromarray(arr).save(paths[-1])
    forms = {
        "pil": [Image.fromarray(a) for a in gen],
        "paths": [str(p) for p in paths],
        "pathlib": paths,
        "bytes": [p.read_bytes() for p in paths],
        "numpy_hwc_uint8": gen,
        "numpy_chw_uint8": [a.transpose(2, 0, 1) for a in gen],
        "numpy_int64": [a.astype(np.int64) for a in gen],
        "torch_chw_uint8": [torch.from_numpy(a).permute(2, 0, 1) for a in gen],
        "torch_hwc_uint8": [torch.from_numpy(a) for a in gen],
        "torch_float01": [torch.from_numpy(a).permute(2, 0, 1).float() / 255 for a in gen],
        "numpy_float01": [a / 255.0 for a in gen],
        "rgba_pil": [Image.fromarray(np.dstack([a, np.full(a.shape[:2], 7, np.uint8)])) for a in gen],
    }
    for name, values in forms.items():
        for i, value in enumerate(values):
            kind, img = images.unpack(images.pack(value, f"predictions[{i}]"))
            assert kind == "image" and img.mode == "RGB", name
            np.testing.assert_array_equal(np.asarray(img), gen[i], err_msg=name)
    grey = np.arange(12, dtype=np.uint8).reshape(3, 4)
    for value in (grey, grey[:, :, None], torch.from_numpy(grey)):
        assert (
            np.asarray(images.unpack(images.pack(value, "x"))[1]).tolist() == np.dstack([grey] * 3).tolist()
        )


def test_fid_from_images_batches_and_paths(models, tmp_path):
    m = load_metric("fid_clip")
    gen, real = random_images(3, seed=1), random_images(3, seed=2, size=(30, 30))
    w = str(models["inception"])
    expected = m.compute(predictions=gen, references=real, inception_weights=w, batch_size=2)
    paths = []
    for i, arr in enumerate(real):
        paths.append(tmp_path / f"r{i}.png")
        Image.fromarray(arr).save(paths[-1])
    batch = torch.from_numpy(np.stack(gen)).permute(0, 3, 1, 2)  # one (N, C, H, W) tensor
    r = m.compute(predictions=batch, references=[str(p) for p in paths], inception_weights=w)
    assert r["fid"] == pytest.approx(expected["fid"], rel=1e-4)  # float32 network, other batch split
    # tiny random weights with the real file's layer names: named by their content, never as pytorch-fid's file
    digest = hashlib.sha256(Path(w).read_bytes()).hexdigest()
    # images are decoded (and resized) by Pillow, whose version changes the pixels: recorded
    pil = f"pil:{PIL.__version__}"
    assert (
        expected["signature"]
        == f"fid_clip|preset:default|feat:inception-sha256-{digest[:12]}|pre:none|{pil}|v:0.1.0"
    )


def test_signature_names_the_weights_file_by_content(models, tmp_path, monkeypatch):
    """Only pytorch-fid's file (its SHA-256 begins with the 6726825d of its name) is `inception-2015-12-05`;
    any other file with the same layer names is named by its content, whatever its file name."""
    import shutil

    from multimodal_metrics.fid_clip import inception as weights

    renamed = tmp_path / weights.FID_WEIGHTS_FILE  # tiny random weights under the real file's name
    shutil.copy(models["inception"], renamed)
    digest = hashlib.sha256(renamed.read_bytes()).hexdigest()
    assert (
        weights.weights_tag(renamed)
        == weights.weights_tag(models["inception"])
        == f"inception-sha256-{digest[:12]}"
    )
    monkeypatch.setattr(weights, "weights_digest", lambda path: weights.FID_WEIGHTS_SHA256_PREFIX + "0" * 56)
    assert weights.weights_tag(renamed) == "inception-2015-12-05"


def test_fid_from_images_is_fid_of_the_network_features_and_the_fusion_brain_resize(models):
    gen, real = random_images(3, seed=3, size=(61, 47)), random_images(2, seed=4)
    net = tiny_inception(inception)

    def feats(images, pre):
        with torch.inference_mode():
            out = []
            for a in images:
                img = Image.fromarray(a)
                if pre:
                    img = img.resize(
                        (256, 256), Image.BILINEAR
                    )  # torchvision Resize((256, 256)) on a PIL image
                x = torch.from_numpy(np.asarray(img).transpose(2, 0, 1).copy()).float() / 255
                out.append(net(x[None])[0].double().numpy())
            return np.stack(out)

    w = str(models["inception"])
    for preset, pre in (("default", False), ("fusion_brain_2022", True)):
        r = load_metric("fid_clip", preset).compute(predictions=gen, references=real, inception_weights=w)
        assert r["fid"] == pytest.approx(
            fid_oracle(feats(gen, pre), feats(real, pre)), rel=1e-4
        )  # float32 batches
        assert ("|pre:256|" in r["signature"]) == pre


def test_any_torch_module_as_extractor_and_batching():
    class MeanColour(torch.nn.Module):
        def forward(self, x):
            return torch.cat([x.mean(dim=(2, 3)), x.std(dim=(2, 3))], dim=1)

    gen, real = random_images(9, seed=5), random_images(7, seed=6, size=(20, 24))
    m = load_metric("fid_clip")
    r1 = m.compute(predictions=gen, references=real, feature_extractor=MeanColour(), batch_size=2)
    r2 = m.compute(
        predictions=gen, references=real, feature_extractor=MeanColour(), batch_size=50, progress=True
    )
    assert r1["fid"] == pytest.approx(r2["fid"], rel=1e-4)  # float32 features, batched differently
    manual = [
        MeanColour()(torch.from_numpy(a).permute(2, 0, 1)[None].float() / 255)[0].double().numpy()
        for a in gen
    ]
    manual_real = [
        MeanColour()(torch.from_numpy(a).permute(2, 0, 1)[None].float() / 255)[0].double().numpy()
        for a in real
    ]
    assert r1["fid"] == pytest.approx(fid_oracle(manual, manual_real), rel=1e-4)
    assert "|feat:custom(MeanColour)|" in r1["signature"]


def test_add_batch_sides_of_different_sizes_accumulate():
    a, b = oracle.features(40, 8, 7), oracle.features(25, 8, 8)
    m = load_metric("fid_clip")
    expected = m.compute(predictions=a, references=b)["fid"]
    m.add_batch(predictions=a[:30])
    m.add_batch(references=b[:10])
    m.add_batch(predictions=a[30:], references=b[10:])
    assert m.compute()["fid"] == pytest.approx(expected, rel=1e-8)
    for row in a[:5]:
        m.add(prediction=row)
    for row in b[:6]:
        m.add(reference=row)
    assert m.compute()["fid"] == pytest.approx(
        fid_oracle(a[:5], b[:6]), rel=1e-6
    )  # singular: sqrtm's own error


# ------------------------------------------------------------------------------------------------
# the Fusion Brain 2022 combinations through the module
# ------------------------------------------------------------------------------------------------
class Stats4(torch.nn.Module):
    def forward(self, x):
        return torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3)) - x.amin(dim=(2, 3))], dim=1) * 40


def test_generation_and_captioning_scores(models):
    gen, real = random_images(5, seed=13), random_images(5, seed=14, size=(44, 44))
    texts = ["a cat"] * 3 + ["a dog"] * 2
    m = load_metric("fid_clip")
    with pytest.warns(UserWarning, match="fewer samples than dimensions"):
        r = m.compute(
            predictions=gen,
            references=real,
            texts=texts,
            clip_model=str(models["hf"]),
            feature_extractor=Stats4(),
        )
    assert list(r) == ["fid", "clip_score", "score", "signature"]
    assert r["score"] == pytest.approx(0.5 * (r["clip_score"] + (200 - min(200, r["fid"])) / 200), abs=1e-12)
    assert r["signature"].endswith("|comb:generation|v:0.1.0")
    cap = m.compute(references=real, texts=texts, clip_model=str(models["hf"]), meteor=0.31)
    assert list(cap) == ["clip_score", "score", "signature"]
    assert cap["score"] == pytest.approx(0.5 * (0.31 + cap["clip_score"]), abs=1e-12)
    assert "|comb:captioning|" in cap["signature"]


# ------------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(st.integers(3, 40), st.integers(1, 6), st.integers(0, 10_000), st.floats(0, 3))
def test_fid_properties(n, d, seed, shift):
    rng = np.random.default_rng(seed)
    a, b = rng.random((n, d)), rng.random((n + 2, d)) + shift
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        sa, sb = moments.FrechetStats.from_features(a), moments.FrechetStats.from_features(b)
        fid = core.frechet_distance(sa, sb)
        assert fid >= -1e-7  # a distance (round-off only below 0: singular covariances, sqrt of ~1e-17)
        assert fid == pytest.approx(core.frechet_distance(sb, sa), rel=1e-7, abs=1e-7)  # symmetric
        assert core.frechet_distance(sa, moments.FrechetStats.from_features(a[::-1])) == pytest.approx(
            0, abs=1e-7
        )
        assert fid == pytest.approx(fid_oracle(a, b), rel=1e-6, abs=1e-7)


def test_clip_properties(models):
    images = random_images(6, seed=15)
    texts = ["a cat", "a dog", "dog", "cat", "a", "b"]
    m = load_metric("fid_clip")
    r = m.compute(predictions=images, texts=texts, clip_model=str(models["hf"]), return_per_example=True)
    assert all(-1 <= s <= 1 for s in r["per_example"])
    assert r["clip_score"] == pytest.approx(np.mean(r["per_example"]), abs=1e-12)
    rev = m.compute(
        predictions=images[::-1], texts=texts[::-1], clip_model=str(models["hf"]), return_per_example=True
    )
    assert rev["per_example"] == pytest.approx(r["per_example"][::-1], abs=1e-6)
    assert rev["clip_score"] == pytest.approx(r["clip_score"], abs=1e-6)


# ------------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------------
def test_bad_inputs(models, tmp_path):
    m = load_metric("fid_clip")
    w = str(models["inception"])
    img = random_images(3)
    (tmp_path / "not_an_image.png").write_text("hello")
    nan = np.array(X1)
    nan[2, 1] = np.nan
    cases = [
        (
            dict(predictions=img[:1], references=img, inception_weights=w),
            ValueError,
            r"at least 2 images per side; `predictions` has 1",
        ),
        (
            dict(predictions=X1, references=X1[:1]),
            ValueError,
            r"at least 2 images per side; `references` has 1",
        ),
        (dict(predictions=nan, references=X1), ValueError, r"`predictions\[2\]` contains NaN"),
        (dict(predictions=X1, references=[[0, 0, 0]] * 3), ValueError, r"feature sizes differ: .*2-d.*3-d"),
        (
            dict(predictions=[[0, 0], [1, 1], [0, 1, 2]], references=X1),
            ValueError,
            r"`predictions\[2\]` has a 3-d feature vector",
        ),
        (
            dict(predictions=[img[0], str(tmp_path / "not_an_image.png")], references=img),
            ValueError,
            r"`predictions\[1\]`: .*not_an_image.png' is not a decodable image",
        ),
        (
            dict(predictions=img, references=[b"\x89PNG garbage", img[0]]),
            ValueError,
            r"`references\[0\]`: the given bytes is not a decodable image",
        ),
        (
            dict(predictions=img, references=[str(tmp_path / "missing.png")]),
            ValueError,
            r"`references\[0\]`: no such image file",
        ),
        (
            dict(predictions=[img[0] / 100.0], references=img),
            ValueError,
            r"`predictions\[0\]`: float images must be in \[0, 1\]",
        ),
        (
            dict(predictions=[np.zeros((5, 5, 7))], references=img),
            ValueError,
            r"`predictions\[0\]`: .*no channel axis",
        ),
        (
            dict(predictions=[img[0], X1[0]], references=img, inception_weights=w),
            ValueError,
            r"`predictions` mixes images and feature vectors",
        ),
        (dict(predictions="a.png", references=img), TypeError, r"`predictions` must be a list"),
        (dict(predictions=[{"a": 1}], references=img), TypeError, r"`predictions\[0\]` must be an image"),
        (
            dict(predictions=img, texts=["a", "b"]),
            ValueError,
            r"`texts` has 2 entries but `predictions` has 3",
        ),
        (dict(predictions=img, texts=["a", None, "c"]), TypeError, r"`texts\[1\]` must be a string"),
        (
            dict(predictions=img, texts=["a", "b", "c"]),
            ValueError,
            r"`clip_model` is required .*local folder",
        ),
        (
            dict(predictions=img, texts=["a"] * 3, clip_model=str(tmp_path)),
            ValueError,
            r"`clip_model`: .* has no config.json",
        ),
        (dict(predictions=img, references=img), ValueError, r"not found in the torch hub cache|inception"),
        (dict(predictions=X1), ValueError, r"FID needs `references`"),
        (dict(predictions=[img[0], None], references=img), TypeError, r"`predictions\[1\]` is None"),
        (
            dict(predictions=img, references=img, for_trainer=1),
            TypeError,
            r"`for_trainer` must be True, False",
        ),
        (
            dict(predictions=X1, references=X1, meteor=0.5),
            ValueError,
            r"`meteor` combines with a CLIP score only",
        ),
        (
            dict(predictions=X1, references=X1, meteor=1.5),
            ValueError,
            r"`meteor` must be a number in \[0.0, 1.0\]",
        ),
        (dict(predictions=X1, references=X1, clip_clamp="yes"), ValueError, r"`clip_clamp` must be one of"),
        (
            dict(predictions=X1, references=X1, clip_templates=["photo of"]),
            ValueError,
            r"`clip_templates\[0\]` must be a string with exactly one",
        ),
        (dict(predictions=X1, references=X1, device="gpu"), ValueError, r"`device` must be 'cpu', 'cuda'"),
        (
            dict(predictions=X1, references=X1, batch_size=0),
            ValueError,
            r"`batch_size` must be a positive integer",
        ),
        (dict(predictions=X1, references=X1, pre_resize=-1), ValueError, r"`pre_resize`"),
        (
            dict(predictions=X1, references=X1, reference_stats=str(tmp_path / "none.npz")),
            ValueError,
            r"`reference_stats`: no such file",
        ),
        (
            dict(predictions=X1, references=X1, reference_stats={"mu": [0, 0]}),
            ValueError,
            r"`reference_stats` must have the keys 'mu' and 'sigma'",
        ),
        (
            dict(predictions=X1, references=X1, feature_extractor="inception"),
            TypeError,
            r"`feature_extractor` must be a torch module",
        ),
    ]
    if not torch.cuda.is_available():
        cases.append(
            (dict(predictions=X1, references=X1, device="cuda"), ValueError, r"torch sees no CUDA device")
        )
    for kwargs, exc, match in cases:
        with pytest.raises(exc, match=match):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                m.compute(**kwargs)


_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-300, 300),
    st.integers(10**300, 10**400),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.binary(max_size=12),
    st.complex_numbers(max_magnitude=5),
)
_array = st.tuples(
    st.lists(st.integers(0, 5), min_size=0, max_size=4),
    st.sampled_from(["uint8", "int64", "float32", "float64", "bool", "complex64", "object", "U2"]),
    st.sampled_from([0.0, 0.5, 1.0, 255.0, -1.0, float("nan"), float("inf"), 300.0]),
).map(
    lambda t: (
        np.full(t[0], t[2]).astype(t[1]) if t[1] not in ("U2", "object") else np.full(t[0], t[2]).astype(t[1])
    )
)
_image = st.tuples(
    st.integers(0, 4), st.integers(0, 4), st.sampled_from(["RGB", "L", "RGBA", "P", "1", "I;16"])
).map(lambda t: Image.new(t[2], (t[0], t[1])))
_example = st.one_of(
    _leaf,
    _array,
    _image,
    st.lists(_leaf, max_size=3),
    st.dictionaries(st.text(max_size=2), _leaf, max_size=2),
)
_side = st.one_of(st.none(), st.lists(_example, min_size=1, max_size=4), _array)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(_side, _side, st.one_of(st.none(), st.lists(st.one_of(st.text(max_size=6), _leaf), max_size=4)))
def test_seeded_fuzz_nothing_but_value_and_type_errors_escape(predictions, references, texts):
    """Hostile examples of every kind on both sides: a result or a ValueError/TypeError, nothing else."""
    m = load_metric("fid_clip")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = m.compute(
                predictions=predictions,
                references=references,
                texts=texts,
                feature_extractor=torch.nn.Flatten(),
            )
    except (ValueError, TypeError):
        return
    assert set(r) <= {"fid", "clip_score", "score", "signature"} and math.isfinite(r.get("fid", 0.0))


def test_a_refused_compute_leaves_the_module_usable():
    m = load_metric("fid_clip")
    with pytest.raises(ValueError):
        m.compute(predictions=X1, references=X1, clip_clamp="yes")
    with pytest.raises(ValueError):
        m.compute(predictions=X1, references=[[0.0, 0.0, 0.0]] * 3)
    assert m.compute(predictions=X1, references=X1)["fid"] == pytest.approx(0.0, abs=1e-12)


# ------------------------------------------------------------------------------------------------
# Trainer: CLIP score of generated captions
# ------------------------------------------------------------------------------------------------
def test_trainer_clip_score_on_generated_captions(models):
    """Seq2SeqTrainer(predict_with_generate=True): the generated captions of the eval images are scored."""
    m = load_metric("fid_clip")
    images = random_images(12, seed=16, size=(32, 32))
    seen = {}

    def compute_metrics(eval_pred):
        captions = decode_ids(eval_pred.predictions)  # tokenizer.batch_decode in a real run
        seen["captions"] = captions
        out = m.compute(
            references=images, texts=captions, clip_model=str(models["hf"]), meteor=0.25, for_trainer=True
        )
        seen["signature"] = m.last_signature
        return out

    metrics = run_in_seq2seq_trainer(compute_metrics, n_eval=12)
    direct = m.compute(references=images, texts=seen["captions"], clip_model=str(models["hf"]))
    assert metrics["eval_fid_clip_clip_score"] == pytest.approx(direct["clip_score"], abs=1e-9)
    assert metrics["eval_fid_clip_score"] == pytest.approx(0.5 * (0.25 + direct["clip_score"]), abs=1e-9)
    assert seen["signature"].endswith("|comb:captioning|v:0.1.0")


def test_fid_only_has_no_per_example_values():
    r = load_metric("fid_clip").compute(predictions=X1, references=X1, return_per_example=True)
    assert r["per_example"] == [] and list(r) == ["fid", "signature", "per_example"]


# ------------------------------------------------------------------------------------------------
# demo
# ------------------------------------------------------------------------------------------------
def _predict(client, demo, generated, real, prompts, preset, inception_weights, clip_model):
    return predict_by_name(
        client,
        demo,
        gen=generated,
        real=real,
        prompts=prompts,
        preset=preset,
        opt_inception_weights=inception_weights,
        opt_clip_model=clip_model,
    )


def test_demo_scores_uploads(models, tmp_path):
    from gradio_client import handle_file

    gen, real = [], []
    for i, arr in enumerate(random_images(3, seed=20)):
        gen.append(tmp_path / f"gen{i}.png")
        Image.fromarray(arr).save(gen[-1])
    for i, arr in enumerate(random_images(3, seed=21, size=(30, 30))):
        real.append(tmp_path / f"real{i}.jpg")
        Image.fromarray(arr).save(real[-1])
    demo, client = serve_app(ROOT / "metrics" / "fid_clip" / "app.py")
    try:
        result, headline, signature, table, histogram = _predict(
            client,
            demo,
            [handle_file(str(p)) for p in gen],
            [handle_file(str(p)) for p in real],
            "a cat\na dog\ncat dog",
            "default",
            str(models["inception"]),
            str(models["hf"]),
        )
        expected = load_metric(
            "fid_clip"
        ).compute(
            predictions=[str(p) for p in gen],
            references=[str(p) for p in real],
            texts=["a cat", "a dog", "cat dog"],
            inception_weights=str(models["inception"]),
            clip_model=str(models["hf"]),
            return_per_example=True,
            confidence=0.95,  # the demo shows 95% bootstrap intervals (module defaults: 200 resamples with FID)
        )
        assert result["fid"] == pytest.approx(expected["fid"], rel=1e-9)
        for key in ("fid", "clip_score", "score"):
            assert [result[f"{key}_ci_low"], result[f"{key}_ci_high"]] == pytest.approx(
                [expected[f"{key}_ci_low"], expected[f"{key}_ci_high"]], rel=1e-9
            )
        # value [low, high] each (the primary on its line, the others in the table; NBSP keeps each pair whole)
        assert headline.count("\xa0[") == 3 and "bias estimate" in headline
        assert result["score"] == pytest.approx(expected["score"], rel=1e-9)
        assert signature == expected["signature"]
        rows = table["data"] if isinstance(table, dict) else table
        assert [r[2] for r in rows] == [p.name for p in gen]  # columns: #, clip_score, image, prompt
        assert [float(r[1]) for r in rows] == pytest.approx(expected["per_example"], abs=1e-4)
        assert result["per_example"] == pytest.approx(expected["per_example"], abs=1e-9)
        fid_only = _predict(
            client,
            demo,
            [handle_file(str(p)) for p in gen],
            [handle_file(str(p)) for p in real],
            "",
            "default",
            str(models["inception"]),
            "",
        )[0]
        assert fid_only["fid_ci_low"] == pytest.approx(
            expected["fid_ci_low"], rel=1e-9
        )  # FID alone: its interval
        with pytest.raises(Exception, match="one prompt per generated image"):
            _predict(client, demo, [handle_file(str(p)) for p in gen], [], "a cat", "default", "", "")
        with pytest.raises(Exception, match="at least 2 images per side"):
            _predict(
                client,
                demo,
                [handle_file(str(gen[0]))],
                [handle_file(str(p)) for p in real],
                "",
                "default",
                str(models["inception"]),
                "",
            )
    finally:
        demo.close()


def test_clip_score_interval_and_paired_comparison(models):
    """confidence= resamples image-text pairs (the statistic of a resample = the metric on it);
    compare() pairs two image sets on the same texts; FID alone has no interval (clear error)."""
    images, other = random_images(6, seed=21), random_images(6, seed=22)
    texts = ["a cat", "a dog", "dog", "cat", "a", "b"]
    m = load_metric("fid_clip")
    r = m.compute(
        predictions=images, texts=texts, clip_model=str(models["hf"]), confidence=0.9, n_resamples=200
    )
    assert (
        r["clip_score_ci_low"] <= r["clip_score_ci_high"] and "|ci:bs-pct|conf:0.9|bs:200|" in r["signature"]
    )
    statistic, _ = m._last_statistic
    rows = [3, 3, 0, 5, 1, 1]
    again = m.compute(
        predictions=[images[i] for i in rows], texts=[texts[i] for i in rows], clip_model=str(models["hf"])
    )
    assert statistic.scores(statistic.stats[rows].sum(axis=0))[0] == pytest.approx(
        again["clip_score"], abs=1e-6
    )
    res = m.compare(
        predictions_a=images, predictions_b=other, texts=texts, clip_model=str(models["hf"]), n_resamples=500
    )
    assert res["clip_score_difference"] == pytest.approx(res["clip_score_a"] - res["clip_score_b"])
    assert 0 < res["clip_score_p_value"] <= 1 and "test:paired-ar|n:500" in res["signature"]
    with pytest.raises(ValueError, match="`texts`: compare"):
        m.compare(predictions_a=X1, predictions_b=X1, references=X1)
