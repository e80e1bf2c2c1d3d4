"""fid_clip against hostile inputs: statistics, files, numbers,
extractors, options, images and weights that must be refused with a ValueError / TypeError naming the
argument (and the example index), never scored, never unpickled, never downloaded.

``HOSTILE`` counts the hostile cases each parametrised list runs (reported in the issue's note).
"""

import io
import os
import pickle
import shutil
import signal
import socket
import struct
import warnings
import zipfile
import zlib

import numpy as np
import pytest
import torch
from _fid_clip_fixtures import (
    random_images,
    tiny_hf_clip,
    tiny_inception,
    tiny_inception_weights,
    tiny_ruclip,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from multimodal_metrics import fid_clip, stats
from multimodal_metrics.fid_clip import images as fc_images
from multimodal_metrics.fid_clip import inception

pytestmark = pytest.mark.filterwarnings("ignore:FID.*fewer samples than dimensions:UserWarning")

D = 3
RNG = np.random.default_rng(0)
FEATS = RNG.normal(size=(12, D))  # 12 generated feature vectors of 3 dims
GOOD_MU = np.zeros(D)
GOOD_SIGMA = np.eye(D)


class MeanColour(torch.nn.Module):
    """A tiny feature extractor: the mean of each channel, (B, 3)."""

    def forward(self, x):
        return x.mean(dim=(2, 3))


class Returns(torch.nn.Module):
    """An extractor whose output is `make(x)` (hostile outputs)."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def forward(self, x):
        return self.make(x)


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    return tiny_inception_weights(inception, tmp_path_factory.mktemp("w"))


class Exploit:
    """A pickle that runs code when unpickled: it would create the file `marker`."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _score_stats(stats, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fid_clip.score(FEATS, reference_stats=stats, **kw)


# ----------------------------------------------------------------------------------------------
# family 1: statistics that are the covariance of no data (Hypothesis strategies for the matrices)
# ----------------------------------------------------------------------------------------------
_dims = st.integers(1, 6)


@st.composite
def psd(draw, d=None):
    """A symmetric positive semi-definite matrix A A^T (rank may be below d)."""
    d = d or draw(_dims)
    k = draw(st.integers(1, d))
    a = np.array(draw(st.lists(st.floats(-3, 3), min_size=d * k, max_size=d * k))).reshape(d, k)
    return a @ a.T


@st.composite
def not_a_covariance(draw):
    """(sigma, kind): negative definite, asymmetric, indefinite or complex, never the covariance of data."""
    d = draw(st.integers(2, 6))
    base = draw(psd(d))
    scale = 1.0 + np.abs(base).max()
    kind = draw(st.sampled_from(["negative", "asymmetric", "indefinite", "complex"]))
    if kind == "negative":
        return -base - scale * np.eye(d), kind
    if kind == "asymmetric":
        i, j = draw(st.integers(0, d - 1)), draw(st.integers(0, d - 1).filter(lambda j: True))
        j = (i + 1 + j % (d - 1)) % d
        skew = np.zeros((d, d))
        skew[i, j] = draw(st.floats(0.01, 10)) * scale
        return base + skew, kind
    if kind == "indefinite":
        v = np.zeros(d)
        v[draw(st.integers(0, d - 1))] = 1.0
        return base - (np.abs(base).sum() + 1.0) * np.outer(v, v) + scale * np.eye(d) * 0.0, kind
    return base + 1j * draw(st.floats(0.01, 5)) * np.eye(d), kind


@settings(max_examples=60, deadline=None, derandomize=True)
@given(not_a_covariance())
def test_statistics_that_are_no_covariance_are_refused(case):
    sigma, kind = case
    d = len(sigma)
    feats = np.random.default_rng(d).normal(size=(d + 3, d))
    with pytest.raises(ValueError, match=r"`reference_stats`: .*(sigma|real numbers)"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fid_clip.score(feats, reference_stats={"mu": np.zeros(d), "sigma": sigma})
    with pytest.raises(ValueError, match=r"`statistics`"):
        fid_clip.frechet_distance((np.zeros(d), sigma), (np.zeros(d), np.eye(d)))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(psd(), st.sampled_from([np.float64, np.float32]))
def test_every_covariance_is_accepted_and_the_distance_is_finite_and_non_negative(sigma, dtype):
    """Real covariances (singular ones, float32-saved ones included) pass the checks."""
    d = len(sigma)
    sigma = sigma.astype(dtype)
    feats = np.random.default_rng(d).normal(size=(d + 3, d))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fid = fid_clip.score(feats, reference_stats={"mu": np.zeros(d, dtype), "sigma": sigma, "n": 50})[
            "fid"
        ]
    assert np.isfinite(fid) and fid > -1e-6 * (1 + np.trace(sigma))


HUGE = [1e100, -1e100, 1e51, 1e300]


@pytest.mark.parametrize("value", HUGE)
def test_features_beyond_the_float64_range_of_the_distance_are_refused(value):
    """Decision (card): feature values beyond ±1e50 are refused (FID multiplies four of them: 1e100
    gave NaN for FID and both interval ends); up to 1e50 the distance stays finite."""
    x = FEATS.copy()
    x[5, 1] = value
    with pytest.raises(ValueError, match=r"`predictions\[5\]`: feature values beyond ±1e\+50"):
        fid_clip.score(x, FEATS)
    with pytest.raises(ValueError, match=r"`predictions\[5\]`: feature values beyond ±1e\+50"):
        fid_clip.score(list(x), FEATS, confidence=0.9, n_resamples=20)
    big = FEATS * 1e49
    r = fid_clip.score(big, big[::-1] + 1e49, confidence=0.9, n_resamples=20)
    assert all(np.isfinite(r[k]) for k in ("fid", "fid_ci_low", "fid_ci_high"))


def test_an_extractor_giving_huge_features_is_refused():
    imgs = random_images(4)
    with pytest.raises(ValueError, match=r"`predictions\[0\]`: feature values beyond"):
        fid_clip.score(
            imgs, imgs, feature_extractor=Returns(lambda x: x.mean(dim=(2, 3)).double() * 1e100 + 1e100)
        )


# ----------------------------------------------------------------------------------------------
# family 2: every malformed reference_stats is a ValueError naming it; nothing is ever unpickled
# ----------------------------------------------------------------------------------------------
def _zip(path, members: dict):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _npy(array) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=True)
    return buf.getvalue()


def _stats_files(tmp):
    marker = tmp / "pwned"
    files = {}
    np.save(tmp / "a.npy", GOOD_SIGMA)
    files["npy"] = tmp / "a.npy"
    with open(tmp / "p.pkl", "wb") as f:
        pickle.dump(Exploit(marker), f)
    files["pickle"] = tmp / "p.pkl"
    files["pickle_named_npz"] = shutil.copy(tmp / "p.pkl", tmp / "p.npz")
    np.savez(tmp / "obj.npz", mu=np.array([Exploit(marker)] * D, dtype=object), sigma=GOOD_SIGMA)
    files["object_mu"] = tmp / "obj.npz"
    files["pickled_member"] = _zip(
        tmp / "pm.npz", {"mu.npy": pickle.dumps(Exploit(marker)), "sigma.npy": _npy(GOOD_SIGMA)}
    )
    files["zip_not_npz"] = _zip(tmp / "z.npz", {"readme.txt": "hello"})
    files["zip_garbage_members"] = _zip(tmp / "g.npz", {"mu.npy": b"garbage", "sigma.npy": b"\x93NUMPY junk"})
    files["truncated_zip"] = tmp / "t.npz"
    np.savez(tmp / "full.npz", mu=GOOD_MU, sigma=GOOD_SIGMA)
    files["truncated_zip"].write_bytes((tmp / "full.npz").read_bytes()[:100])
    files["text"] = tmp / "x.npz"
    files["text"].write_text("mu, sigma")
    files["empty"] = tmp / "e.npz"
    files["empty"].write_bytes(b"")
    files["dev_zero"] = "/dev/zero"
    files["directory"] = tmp
    os.mkfifo(tmp / "fifo.npz")
    files["fifo"] = tmp / "fifo.npz"
    bad = {
        "n_text": dict(n="many"),
        "n_nan": dict(n=np.nan),
        "n_array": dict(n=np.array([3, 4])),
        "n_negative": dict(n=-5),
        "n_fraction": dict(n=2.5),
        "n_complex": dict(n=3 + 1j),
        "mu_text": dict(mu=np.array(["a", "b", "c"])),
        "sigma_text": dict(sigma=np.full((D, D), "s")),
        "mu_3d": dict(mu=np.zeros((1, 1, D))),
        "sigma_3d": dict(sigma=np.zeros((D, D, 1))),
        "mu_bool": dict(mu=np.zeros(D, bool)),
        "sigma_complex": dict(sigma=GOOD_SIGMA + 1j),
        "sigma_negative": dict(sigma=-GOOD_SIGMA),
        "sigma_asymmetric": dict(sigma=GOOD_SIGMA + np.triu(np.ones((D, D)), 1)),
        "sigma_nan": dict(sigma=GOOD_SIGMA * np.nan),
        "mu_empty": dict(mu=np.zeros(0), sigma=np.zeros((0, 0))),
        "sigma_huge": dict(sigma=GOOD_SIGMA * 1e200),
    }
    for name, override in bad.items():
        arrays = {"mu": GOOD_MU, "sigma": GOOD_SIGMA, **override}
        np.savez(tmp / f"{name}.npz", **arrays)
        files[name] = tmp / f"{name}.npz"
    big = tmp / "bomb.npz"  # a zip bomb: a member far larger decompressed (the limit is made 1 MiB below)
    with zipfile.ZipFile(big, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mu.npy", _npy(np.zeros(512)))
        z.writestr("sigma.npy", _npy(np.zeros((512, 512))))
    files["zip_bomb"] = big
    return files, bad, marker


STATS_FILE_CASES = [
    "npy",
    "pickle",
    "pickle_named_npz",
    "object_mu",
    "pickled_member",
    "zip_not_npz",
    "zip_garbage_members",
    "truncated_zip",
    "text",
    "empty",
    "dev_zero",
    "directory",
    "fifo",
    "n_text",
    "n_nan",
    "n_array",
    "n_negative",
    "n_fraction",
    "n_complex",
    "mu_text",
    "sigma_text",
    "mu_3d",
    "sigma_3d",
    "mu_bool",
    "sigma_complex",
    "sigma_negative",
    "sigma_asymmetric",
    "sigma_nan",
    "mu_empty",
    "sigma_huge",
    "zip_bomb",
]


@pytest.fixture(scope="module")
def stats_files(tmp_path_factory):
    return _stats_files(tmp_path_factory.mktemp("stats"))


class Hung(BaseException):
    """Raised by the alarm: not an OSError (TimeoutError is one), so no handler can turn a hang into a pass."""


def _alarm(seconds):
    def raise_timeout(*_):
        raise Hung("hung: a FIFO or device was read")

    signal.signal(signal.SIGALRM, raise_timeout)
    signal.alarm(seconds)


@pytest.mark.parametrize("name", STATS_FILE_CASES)
def test_every_malformed_statistics_file_is_a_value_error_naming_reference_stats(
    stats_files, name, monkeypatch
):
    files, _, marker = stats_files
    monkeypatch.setattr(fid_clip.moments, "MAX_STATS_BYTES", 1 << 20, raising=False)
    _alarm(10)  # a FIFO must not hang, /dev/zero must not be read forever
    try:
        with pytest.raises(ValueError, match=r"^`reference_stats`"):
            _score_stats(str(files[name]))
    finally:
        signal.alarm(0)
    assert not marker.exists(), "a pickle was unpickled"


@pytest.mark.parametrize("name", [n for n in STATS_FILE_CASES if n.startswith(("n_", "mu_", "sigma_"))])
def test_every_malformed_statistics_dict_is_a_value_error_naming_reference_stats(stats_files, name):
    _, bad, _ = stats_files
    with pytest.raises(ValueError, match=r"^`reference_stats`"):
        _score_stats({"mu": GOOD_MU, "sigma": GOOD_SIGMA, **bad[name]})


def test_good_statistics_files_and_counts_still_load(tmp_path):
    np.savez(
        tmp_path / "s.npz", mu=GOOD_MU.astype(np.float32), sigma=GOOD_SIGMA.astype(np.float32), n=np.int64(40)
    )
    a = _score_stats(str(tmp_path / "s.npz"))["fid"]
    b = _score_stats({"mu": GOOD_MU, "sigma": GOOD_SIGMA, "n": 40.0})["fid"]
    c = _score_stats({"mu": list(GOOD_MU), "sigma": GOOD_SIGMA.tolist(), "n": np.uint16(40)})["fid"]
    assert a == pytest.approx(b) == pytest.approx(c)


# ----------------------------------------------------------------------------------------------
# families 1-2: options and extractors
# ----------------------------------------------------------------------------------------------
EXTRACTOR_OUTPUTS = [
    (
        "1-D",
        lambda x: x.mean(dim=(1, 2, 3)),
        ValueError,
        r"`feature_extractor` must return \(B, d\) features",
    ),
    (
        "list",
        lambda x: x.mean(dim=(2, 3)).tolist(),
        TypeError,
        r"`feature_extractor` must return a torch tensor",
    ),
    (
        "numpy",
        lambda x: x.mean(dim=(2, 3)).numpy(),
        TypeError,
        r"`feature_extractor` must return a torch tensor",
    ),
    ("tuple", lambda x: (x.mean(dim=(2, 3)),), TypeError, r"`feature_extractor` must return a torch tensor"),
    ("None", lambda x: None, TypeError, r"`feature_extractor` must return a torch tensor"),
    ("scalar", lambda x: x.sum(), ValueError, r"`feature_extractor` must return \(B, d\)"),
    (
        "other batch",
        lambda x: x.mean(dim=(2, 3))[:1],
        ValueError,
        r"`feature_extractor` must return \(B, d\)",
    ),
    ("empty rows", lambda x: x[:, :0, 0, 0], ValueError, r"`feature_extractor` must return \(B, d\)"),
    (
        "complex",
        lambda x: x.mean(dim=(2, 3)) * 1j,
        TypeError,
        r"`feature_extractor` must return real numbers",
    ),
]


@pytest.mark.parametrize(
    "make,exc,match", [c[1:] for c in EXTRACTOR_OUTPUTS], ids=[c[0] for c in EXTRACTOR_OUTPUTS]
)
def test_a_custom_extractor_with_a_bad_output_is_refused(make, exc, match):
    imgs = random_images(4)
    with pytest.raises(exc, match=match):
        fid_clip.score(imgs, imgs, feature_extractor=Returns(make))


OPTION_CASES = [
    (dict(pre_resize=2.5), ValueError, r"`pre_resize` must be a whole number"),
    (dict(pre_resize=np.float64(255.5)), ValueError, r"`pre_resize` must be a whole number"),
    (dict(max_pixels=10.5), ValueError, r"`max_pixels` must be a whole number"),
    (dict(max_pixels=0), ValueError, r"`max_pixels`"),
    (dict(inception_weights=""), ValueError, r"`inception_weights` must be a non-empty path"),
    (dict(inception_weights="  "), ValueError, r"`inception_weights` must be a non-empty path"),
    (dict(inception_weights="a\0b"), ValueError, r"`inception_weights` must be a non-empty path"),
    (dict(clip_model=""), ValueError, r"`clip_model` must be a non-empty path"),
    (
        dict(clip_templates=["Single '}' {}"]),
        ValueError,
        r"`clip_templates\[0\]` must be a string with exactly one",
    ),
    (dict(clip_templates=["{}", "a { {}"]), ValueError, r"`clip_templates\[1\]`"),
    (dict(clip_templates=["{0}"]), ValueError, r"`clip_templates\[0\]`"),
    (dict(clip_templates=["{x}"]), ValueError, r"`clip_templates\[0\]`"),
    (dict(clip_templates=["{}{}"]), ValueError, r"`clip_templates\[0\]`"),
    (dict(clip_templates=["{!r}"]), ValueError, r"`clip_templates\[0\]`"),
    (dict(clip_templates=["{:>9}"]), ValueError, r"`clip_templates\[0\]`"),
    (dict(clip_templates=["{{}}"]), ValueError, r"`clip_templates\[0\]`"),
    (dict(clip_templates=["{}", 3]), TypeError, r"`clip_templates\[1\]` must be a string"),
]


@pytest.mark.parametrize("options,exc,match", OPTION_CASES, ids=[str(c[0])[:40] for c in OPTION_CASES])
def test_options_scored_or_crashing_before_are_refused(options, exc, match):
    with pytest.raises(exc, match=match):
        fid_clip.score(FEATS, FEATS, **options)


def test_whole_numbers_and_escaped_braces_are_accepted():
    for value in (256, 256.0, np.int64(256)):
        assert fid_clip.OPTIONS.resolve("default", {"pre_resize": value})["pre_resize"] == 256
    opts = fid_clip.OPTIONS.resolve("default", {"clip_templates": ["{{a}} {}", "{}"]})
    assert opts["clip_templates"] == ("{{a}} {}", "{}")


# ----------------------------------------------------------------------------------------------
# family 3: images: the pixel limit, decompression bombs, decode once
# ----------------------------------------------------------------------------------------------
def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims width x height (8-bit grey) and that holds no pixels."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IEND", b"")


def png_bomb(width: int, height: int) -> bytes:
    """A complete, valid 1-bit PNG of width x height zeros (a few hundred KB, streamed: no big buffer)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    comp = zlib.compressobj(9)
    row = bytes(1 + (width + 7) // 8)
    data = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", ihdr)
        + _png_chunk(b"IDAT", data)
        + _png_chunk(b"IEND", b"")
    )


@pytest.fixture(scope="module")
def bombs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bombs")
    (tmp / "bomb.png").write_bytes(png_bomb(20_000, 20_000))
    (tmp / "header.png").write_bytes(png_header_only(20_000, 20_000))
    (tmp / "huge_header.png").write_bytes(png_header_only(2**31 - 1, 2**31 - 1))
    os.mkfifo(tmp / "fifo.png")
    return tmp


BOMB_CASES = [
    "bomb file",
    "header-only file",
    "bomb bytes",
    "header-only bytes",
    "2^31 header",
    "fifo",
    "dev_zero",
]


def _bomb(bombs, name):
    return {
        "bomb file": str(bombs / "bomb.png"),
        "header-only file": str(bombs / "header.png"),
        "bomb bytes": (bombs / "bomb.png").read_bytes(),
        "header-only bytes": (bombs / "header.png").read_bytes(),
        "2^31 header": str(bombs / "huge_header.png"),
        "fifo": str(bombs / "fifo.png"),
        "dev_zero": "/dev/zero",
    }[name]


@pytest.mark.parametrize("name", BOMB_CASES)
@pytest.mark.parametrize("side", ["predictions", "references"])
def test_decompression_bombs_are_refused_naming_the_input_and_index(bombs, name, side):
    imgs = random_images(3)
    bad = [imgs[0], imgs[1], _bomb(bombs, name)]
    kwargs = {"predictions": imgs, "references": imgs, side: bad}
    match = rf"^`{side}\[2\]`: .*(over the limit of 178,956,970|not a regular file)"
    _alarm(10)
    try:
        with pytest.raises(ValueError, match=match):
            fid_clip.score(**kwargs, feature_extractor=MeanColour())
        if name in ("fifo", "dev_zero"):  # refused by evaluate's add_batch too
            with pytest.raises(ValueError, match=match):
                fid_clip.pack_batch(**kwargs, texts=None)
            return
        # evaluate's add_batch: the header checked, no limit yet (the option comes with compute)
        packed = fid_clip.pack_batch(**kwargs, texts=None)
        with pytest.raises(ValueError, match=match):
            fid_clip.score_checked(
                *packed,
                "default",
                fid_clip.OPTIONS.resolve("default", {"feature_extractor": MeanColour()}),
                stats.Resampling(None, None, None),
            )
    finally:
        signal.alarm(0)


def test_the_pixel_limit_is_an_option_and_large_valid_images_are_accepted_up_to_it(tmp_path, monkeypatch):
    imgs = [np.full((40, 50, 3), i * 20, np.uint8) for i in range(4)]
    for i, img in enumerate(imgs):
        Image.fromarray(img).save(tmp_path / f"{i}.png")
    paths = [str(tmp_path / f"{i}.png") for i in range(4)]
    ext = MeanColour()
    at_limit = fid_clip.score(paths, imgs[::-1], feature_extractor=ext, max_pixels=2000)["fid"]
    with pytest.raises(
        ValueError, match=r"`predictions\[0\]`: .* 50 x 40 = 2,000 pixels, over the limit of 1,999"
    ):
        fid_clip.score(paths, imgs, feature_extractor=ext, max_pixels=1999)
    with pytest.raises(
        ValueError, match=r"`references\[0\]`: the image is 50 x 40 pixels, over the limit of 1,999"
    ):
        fid_clip.pack_batch(None, imgs, None, max_pixels=1999)
    # above PIL's own bomb limit (made small here) and within max_pixels: decoded, PIL's limit restored
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 500)
    above_pil = fid_clip.score(paths, imgs[::-1], feature_extractor=ext, max_pixels=2000)["fid"]
    assert above_pil == at_limit and Image.MAX_IMAGE_PIXELS == 500
    with pytest.raises(ValueError, match=r"`predictions\[0\]`: .*2,000 pixels, over the limit of 1,999"):
        fid_clip.score(paths, imgs, feature_extractor=ext, max_pixels=1999)
    # 15,000 x 15,000 (225 Mpx, over PIL's limit) passes the header check under a limit that allows it
    header = io.BytesIO(png_header_only(15_000, 15_000))
    assert fc_images.check_header(header, "x", max_pixels=225_000_000) == 225_000_000
    with pytest.raises(ValueError, match=r"^`x`: .*225,000,000 pixels, over the limit of 178,956,970"):
        fc_images.check_header(
            io.BytesIO(png_header_only(15_000, 15_000)), "x", max_pixels=fc_images.MAX_PIXELS
        )


def test_each_image_file_is_decoded_once(tmp_path, monkeypatch):
    """add_batch / score check the header; the pixels are decoded once, when scored."""
    from PIL import ImageFile

    paths = []
    for i, img in enumerate(random_images(5)):
        Image.fromarray(img).save(tmp_path / f"{i}.png")
        paths.append(str(tmp_path / f"{i}.png"))
    loads = []
    real_load = ImageFile.ImageFile.load

    def counting_load(self):
        if self.tile:  # pixels not decoded yet (PIL clears the tiles once decoded)
            loads.append(getattr(self, "filename", None))
        return real_load(self)

    monkeypatch.setattr(ImageFile.ImageFile, "load", counting_load)
    fid_clip.score(paths, paths[::-1], feature_extractor=MeanColour())
    assert sorted(loads) == sorted(paths + paths)  # each file once per side it is on


def test_library_score_reads_each_header_once_before_decoding(tmp_path, monkeypatch):
    """The library's score checks each file's header once (with ``max_pixels``, when the inputs are
    stored), then decodes it once: no second header pass before the model runs."""
    from multimodal_metrics.fid_clip import images

    paths = []
    for i, img in enumerate(random_images(4)):
        Image.fromarray(img).save(tmp_path / f"{i}.png")
        paths.append(str(tmp_path / f"{i}.png"))
    opened = []
    real_opened = images._opened

    def counting(source, where, max_pixels, decode=False):
        opened.append((str(source), decode))
        return real_opened(source, where, max_pixels, decode)

    monkeypatch.setattr(images, "_opened", counting)
    fid_clip.score(paths, paths[::-1], feature_extractor=MeanColour(), num_workers=0)
    assert sorted(p for p, decode in opened if not decode) == sorted(paths + paths)  # one header check each
    assert sorted(p for p, decode in opened if decode) == sorted(paths + paths)
    with pytest.raises(ValueError, match=r"`predictions\[0\]`.*over the limit"):
        fid_clip.score(paths, paths, feature_extractor=MeanColour(), max_pixels=100)


# ----------------------------------------------------------------------------------------------
# Nothing downloads; corrupt or malicious weights are ValueErrors naming the option
# ----------------------------------------------------------------------------------------------
@pytest.fixture()
def offline_unset_no_network(monkeypatch, tmp_path):
    def no_network(*args, **kwargs):
        raise AssertionError("fid_clip went to the network")

    for var in ("HF_HUB_OFFLINE", "HF_EVALUATE_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setattr(torch.hub, "load_state_dict_from_url", no_network)
    monkeypatch.setattr(torch.hub, "download_url_to_file", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    fid_clip.extract.MODELS.clear()


def test_no_inception_weights_downloads_nothing(offline_unset_no_network):
    imgs = random_images(3)
    with pytest.raises(ValueError, match=r"^`inception_weights`: .*nothing is downloaded.*put it at"):
        fid_clip.score(imgs, imgs)


def _bad_weight_files(tmp, marker):
    files = {
        "random bytes": os.urandom(4096),
        "text": b"not a checkpoint",
        "empty": b"",
        "pickle with code": pickle.dumps({"w": Exploit(marker)}),
        "a list": None,
        "truncated": None,
    }
    buf = io.BytesIO()
    torch.save([torch.zeros(2)], buf)
    files["a list"] = buf.getvalue()
    buf = io.BytesIO()
    torch.save(tiny_inception(inception).state_dict(), buf)
    files["truncated"] = buf.getvalue()[:5000]
    buf = io.BytesIO()
    torch.save({"w": Exploit(marker)}, buf)  # torch's zip format with a code-running object inside
    files["torch zip with code"] = buf.getvalue()
    return files


WEIGHT_CASES = [
    "random bytes",
    "text",
    "empty",
    "pickle with code",
    "a list",
    "truncated",
    "torch zip with code",
]


@pytest.mark.parametrize("name", WEIGHT_CASES)
def test_corrupt_or_malicious_inception_weights_are_value_errors(tmp_path, name, offline_unset_no_network):
    marker = tmp_path / "pwned"
    data = _bad_weight_files(tmp_path, marker)[name]
    for suffix in (".pth", ".safetensors"):
        path = tmp_path / f"w{suffix}"
        path.write_bytes(data)
        imgs = random_images(3)
        with pytest.raises(ValueError, match=r"^`inception_weights`"):
            fid_clip.score(imgs, imgs, inception_weights=str(path))
    assert not marker.exists()


def test_safetensors_inception_weights_load_like_the_pth(tmp_path, weights):
    from safetensors.torch import save_file

    state = torch.load(weights, weights_only=True)
    save_file({k: v.contiguous() for k, v in state.items()}, tmp_path / "w.safetensors")
    a = inception.load_fid_inception(weights).state_dict()
    b = inception.load_fid_inception(tmp_path / "w.safetensors").state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def clip_folders(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("clip")
    tiny_ruclip(tmp / "ruclip")
    tiny_hf_clip(tmp / "hf")
    return tmp


@pytest.mark.parametrize("name", WEIGHT_CASES)
@pytest.mark.parametrize("layout", ["ruclip", "hf"])
def test_corrupt_or_malicious_clip_checkpoints_are_value_errors(
    tmp_path, clip_folders, layout, name, offline_unset_no_network
):
    marker = tmp_path / "pwned"
    folder = shutil.copytree(clip_folders / layout, tmp_path / layout)
    for f in list(folder.glob("*.safetensors")) + list(folder.glob("*.bin")):
        f.unlink()
    (folder / "pytorch_model.bin").write_bytes(_bad_weight_files(tmp_path, marker)[name])
    imgs = random_images(2)
    with pytest.raises(ValueError, match=r"^`clip_model`"):
        fid_clip.score(imgs, texts=["a", "b"], clip_model=str(folder))
    assert not marker.exists()


@pytest.mark.parametrize("name", ["config.json", "preprocessor_config.json", "bpe.model"])
@pytest.mark.parametrize("layout", ["ruclip", "hf"])
def test_corrupt_clip_configs_are_value_errors(
    tmp_path, clip_folders, layout, name, offline_unset_no_network
):
    folder = shutil.copytree(clip_folders / layout, tmp_path / layout)
    if not (folder / name).exists():
        pytest.skip(f"{layout} has no {name}")
    (folder / name).write_text("{ not json")
    imgs = random_images(2)
    with pytest.raises(ValueError, match=r"^`clip_model`"):
        fid_clip.score(imgs, texts=["a", "b"], clip_model=str(folder))


HOSTILE = {
    "statistics (Hypothesis: not a covariance)": 60,
    "huge features": 2 * len(HUGE) + 1,
    "statistics files": len(STATS_FILE_CASES),
    "statistics dicts": len([n for n in STATS_FILE_CASES if n.startswith(("n_", "mu_", "sigma_"))]),
    "extractor outputs": len(EXTRACTOR_OUTPUTS),
    "options": len(OPTION_CASES),
    "images (bombs, non-regular files)": 2 * 2 * len(BOMB_CASES) + 3,
    "weights": 2 * len(WEIGHT_CASES) + 2 * len(WEIGHT_CASES) + 1,
    "checkpoint configs": 4,  # config.json and bpe.model (ruCLIP), config.json and preprocessor_config.json (hf)
}
