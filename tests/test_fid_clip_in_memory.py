"""fid_clip's images in memory (numpy arrays, torch tensors, PIL images): stored as their RGB pixels, no
codec, and scored exactly as a lossless file of the same pixels; the texts tokenised once per call. Tiny
random models (tests/_fid_clip_fixtures.py), nothing downloaded; about 20 s."""

import io

import numpy as np
import pytest
import torch
from _fid_clip_fixtures import tiny_models
from helpers import load_metric
from PIL import Image

from multimodal_metrics import fid_clip
from multimodal_metrics.fid_clip import clip, images

pytestmark = pytest.mark.filterwarnings("ignore:FID.*fewer samples than dimensions:UserWarning")


@pytest.fixture(scope="module")
def models():
    return tiny_models()


def _png_pixels(img: Image.Image) -> np.ndarray:
    """The RGB pixels of ``img`` saved as PNG and decoded: what the stored form held before (lossless)."""
    buf = io.BytesIO()
    img.convert("RGB").save(buf, format="PNG", compress_level=1)
    return np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))


def _forms():
    """(value, the PIL image the value stands for) for every in-memory form and channel layout."""
    rng = np.random.default_rng(3)
    rgb = rng.integers(0, 256, (7, 5, 3), dtype=np.uint8)
    rgba = rng.integers(0, 256, (4, 9, 4), dtype=np.uint8)
    grey = rng.integers(0, 256, (3, 6), dtype=np.uint8)
    unit = rng.random((5, 4, 3))
    out = [
        (rgb, Image.fromarray(rgb)),
        (rgba, Image.fromarray(rgba)),
        (grey, Image.fromarray(grey)),
        (grey[:, :, None], Image.fromarray(grey)),
        (rgb.astype(np.int16), Image.fromarray(rgb)),
        (rgb.transpose(1, 0, 2), Image.fromarray(np.ascontiguousarray(rgb.transpose(1, 0, 2)))),
        (unit, Image.fromarray(np.rint(unit * 255.0).astype(np.uint8))),
        (torch.from_numpy(rgb).permute(2, 0, 1), Image.fromarray(rgb)),
        (
            torch.from_numpy(unit).permute(2, 0, 1).float(),
            Image.fromarray(np.rint(unit.astype(np.float32) * 255.0).astype(np.uint8)),
        ),
        (np.zeros((3, 3, 3), dtype=np.uint8) + 7, Image.fromarray(np.zeros((3, 3, 3), dtype=np.uint8) + 7)),
    ]
    for mode in ("RGB", "RGBA", "L", "P", "LA", "I;16", "CMYK", "1"):
        img = Image.fromarray(rgb).convert(mode)
        out.append((img, img))
    return out


def test_in_memory_images_are_stored_as_the_pixels_their_png_decodes_to():
    for value, img in _forms():
        stored = images.pack(value, "predictions[0]")
        assert stored["kind"] == "pixels" and stored["text"] == f"{img.size[0]} {img.size[1]}"
        want = _png_pixels(img)
        got = images.unpack_rgb(stored)
        assert got.dtype == np.uint8 and got.shape == want.shape and np.array_equal(got, want)
        kind, pil = images.unpack(stored)
        assert kind == "image" and pil.mode == "RGB" and np.array_equal(np.asarray(pil), want)


def test_stored_pixels_are_checked():
    value = np.zeros((20, 30, 3), dtype=np.uint8)
    with pytest.raises(
        ValueError, match=r"`references\[2\]`: the image is 30 x 20 pixels, over the limit of 500"
    ):
        images.pack(value, "references[2]", max_pixels=500)
    stored = images.pack(value, "x")
    with pytest.raises(ValueError, match=r"`predictions\[4\]`: the image is 30 x 20 = 600 pixels"):
        images.check_pixels([images.NONE] * 4 + [stored], "predictions", 599)
    images.check_pixels([stored], "predictions", 600)
    with pytest.raises(ValueError, match="do not match their 1,799 bytes"):
        images.unpack_rgb({**stored, "data": stored["data"][:-1]})
    with pytest.raises(ValueError, match="stored pixels have no size"):
        images.unpack({**stored, "text": ""})


def _files(tmp_path, arrays):
    paths = []
    for i, a in enumerate(arrays):
        paths.append(str(tmp_path / f"{i}.png"))
        Image.fromarray(a).save(paths[-1])
    return paths


@pytest.mark.parametrize("preprocess", ["processor", "center_square_bilinear"])
def test_clip_score_of_images_in_memory_equals_that_of_their_files(models, tmp_path, preprocess):
    """Every form, odd sizes included (a side of 1 or 3 pixels: channels-last whatever the shape), in
    batches of 2: the same per-pair scores bit for bit as PNG files of the same pixels."""
    rng = np.random.default_rng(5)
    sizes = [(40, 48), (3, 64), (64, 3), (1, 1), (3, 3), (17, 29)]
    arrays = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in sizes]
    texts = ["a cat", "dog dog", "a cat and a dog, sitting on a mat under the sun", "x", "", "cat"]
    opts = dict(clip_model=str(models["hf"]), clip_preprocess=preprocess, batch_size=2, progress=False)
    want = fid_clip.score(references=_files(tmp_path, arrays), texts=texts, return_per_example=True, **opts)
    for value in (
        arrays,
        [Image.fromarray(a) for a in arrays],
        [torch.from_numpy(a).permute(2, 0, 1) for a in arrays],
    ):
        got = fid_clip.score(references=value, texts=texts, return_per_example=True, **opts)
        assert got.per_example == want.per_example and got["clip_score"] == want["clip_score"]
        assert got.signature == want.signature
    m = load_metric("fid_clip")
    r = m.compute(references=arrays, texts=texts, return_per_example=True, **opts)
    assert r["per_example"] == want.per_example


def test_fid_of_images_in_memory_equals_that_of_their_files(models, tmp_path):
    rng = np.random.default_rng(6)
    gen = [rng.integers(0, 256, (24, 20, 3), dtype=np.uint8) for _ in range(6)]
    ref = [rng.integers(0, 256, (20, 24, 3), dtype=np.uint8) for _ in range(5)]
    opts = dict(inception_weights=str(models["inception"]), batch_size=4, progress=False, num_workers=0)
    (tmp_path / "gen").mkdir()
    (tmp_path / "ref").mkdir()
    want = fid_clip.score(_files(tmp_path / "gen", gen), _files(tmp_path / "ref", ref), **opts)
    got = fid_clip.score(gen, [Image.fromarray(a) for a in ref], **opts)
    assert got["fid"] == want["fid"]


def test_texts_tokenised_once_give_each_batch_what_it_gives_alone(models):
    """``text_feature_batches`` tokenises every text once and cuts each batch to its own longest text: the
    features of each batch equal those of the batch tokenised alone (the former per-batch call), bit for
    bit, for both truncations, several templates, texts longer than the context."""
    scorer = clip.load_clip(models["hf"])
    texts = ["cat", "a dog " * 9, "", "cat dog cat", "dog", "x " * 40, "a"]
    for truncation in ("keep_end", "slice"):
        for templates in (("{}",), ("{}", "a photo of {}")):
            batches = list(scorer.text_feature_batches(texts, templates, truncation, True, 3))
            for k, got in enumerate(batches):
                alone = scorer.text_features(texts[3 * k : 3 * k + 3], templates, truncation, True)
                assert torch.equal(got, alone)
            ones = list(scorer.text_feature_batches(texts, templates, truncation, True, 1))
            assert all(
                torch.equal(one, scorer.text_features([t], templates, truncation, True))
                for one, t in zip(ones, texts)
            )
    ru = clip.load_clip(models["ruclip"])
    batches = torch.cat(
        list(ru.text_feature_batches(["кот", "фото кот", "кот " * 30], ("{}",), "keep_end", True, 2))
    )
    alone = torch.cat(
        [
            ru.text_features(["кот", "фото кот"], ("{}",), "keep_end", True),
            ru.text_features(["кот " * 30], ("{}",), "keep_end", True),
        ]
    )
    assert torch.equal(batches, alone)
