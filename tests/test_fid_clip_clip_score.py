"""fid_clip's CLIP score: the YTTM reader, the ruCLIP layout against an independent transcription of its
architecture, transformers CLIP against its own forward pass; tiny random models, nothing downloaded."""

import numpy as np
import PIL
import pytest
import torch
from _fid_clip_fixtures import (
    RUCLIP_CFG,
    bpe_ids,
    random_images,
    tiny_models,
)
from helpers import load_metric
from PIL import Image

from multimodal_metrics.fid_clip import clip

pytestmark = pytest.mark.filterwarnings("ignore:FID.*fewer samples than dimensions:UserWarning")


@pytest.fixture(scope="module")
def models():
    return tiny_models()


# ------------------------------------------------------------------------------------------------
# CLIP score: the YTTM reader, ruCLIP layout vs an independent transcription, transformers CLIP
# ------------------------------------------------------------------------------------------------
def test_yttm_bpe_encoding_by_hand(models):
    tok = clip.YttmBpe(models["ruclip"] / "bpe.model")
    ids, _ = bpe_ids()
    assert (tok.unk_id, tok.pad_id, tok.bos_id, tok.eos_id) == (1, 0, 2, 3)
    # rules in priority order: к+о, ко+т, ▁+кот, ▁+с, ф+о, ▁+фо
    assert tok.encode("кот") == [ids["▁кот"]]
    assert tok.encode("кос") == [ids["▁"], ids["ко"], ids["с"]]  # no rule for ▁+ко; ▁+с not adjacent
    assert tok.encode("фото") == [ids["▁фо"], ids["т"], ids["о"]]
    assert tok.encode("котофото") == [ids["▁кот"], ids["о"], ids["фо"], ids["т"], ids["о"]]
    # a run of unknown characters is one unk token; ASCII whitespace and U+2581 split, NBSP does not
    assert tok.encode("ёё́жк кот") == [ids["▁"], 1, ids["ж"], ids["к"], ids["▁кот"]]
    assert tok.encode("  кот\t\n кот\u2581кот  ") == [ids["▁кот"]] * 3
    assert tok.encode("кот\u00a0кот") == [ids["▁кот"], 1, ids["кот"]]
    assert tok.encode("") == [] and tok.encode("   ") == []


def test_ruclip_checkpoint_loads_into_clipmodel_equal_to_the_reference_architecture(models):
    scorer = clip.load_clip(models["ruclip"])
    ref = models["ruclip_ref"]
    assert scorer.kind == "ruclip" and scorer.model.config.text_config.eos_token_id == 3
    assert (
        scorer.model.config.text_config.hidden_act
        == "quick_gelu"
        == scorer.model.config.vision_config.hidden_act
    )
    ids = torch.tensor([[2, 5, 6, 7, 3, 0, 0, 0, 0, 0, 0, 0], [2, 9, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]])
    px = torch.randn(2, 3, 28, 28)
    with torch.inference_mode():
        np.testing.assert_allclose(
            clip._as_tensor(scorer.model.get_text_features(input_ids=ids)).numpy(),
            ref.encode_text(ids).numpy(),
            atol=2e-5,
        )
        np.testing.assert_allclose(
            clip._as_tensor(scorer.model.get_image_features(pixel_values=px)).numpy(),
            ref.encode_image(px).numpy(),
            atol=2e-5,
        )


def ruclip_oracle(ref, tok, image: np.ndarray, text: str) -> float:
    """ruclip Predictor semantics (seeds_reference 1.3) on the reference model."""
    img = Image.fromarray(image).convert("RGB")
    w, h = img.size
    s = min(w, h)
    top, left = (h - s) // 2, (w - s) // 2
    img = img.crop((left, top, left + s, top + s)).resize((28, 28), Image.BILINEAR)
    x = np.asarray(img).transpose(2, 0, 1) / 255.0
    mean, std = np.array(RUCLIP_CFG["mean"])[:, None, None], np.array(RUCLIP_CFG["std"])[:, None, None]
    px = torch.tensor((x - mean) / std, dtype=torch.float32)[None]
    with torch.inference_mode():
        image_latent = ref.encode_image(px)[0]
        image_latent = image_latent / image_latent.norm()
        label = text.lower().strip()
        feats = []
        for template in clip.RUCLIP_TEMPLATES:
            ids = tok.encode(template.format(label).lower())[: 12 - 2]
            ids = [2] + ids + [3] + [0] * (12 - len(ids) - 2)
            feats.append(ref.encode_text(torch.tensor([ids]))[0])
        text_latent = torch.stack(feats).mean(0)
        text_latent = text_latent / text_latent.norm()
    return float(image_latent @ text_latent)


def test_fusion_brain_2022_clip_score_is_the_ruclip_predictor(models):
    images = random_images(3, seed=9, size=(50, 36)) + random_images(2, seed=10, size=(28, 28))
    texts = ["  Кот на фото ", "ФОТО кос", "котофото", "ёж", "кот " * 20]  # the last one is truncated
    r = load_metric("fid_clip", "fusion_brain_2022").compute(
        predictions=images, texts=texts, clip_model=str(models["ruclip"]), return_per_example=True
    )
    tok = clip.YttmBpe(models["ruclip"] / "bpe.model")
    expected = [ruclip_oracle(models["ruclip_ref"], tok, im, t) for im, t in zip(images, texts)]
    np.testing.assert_allclose(r["per_example"], expected, atol=2e-5)
    assert r["clip_score"] == pytest.approx(np.mean(expected), abs=2e-5)
    assert list(r) == ["clip_score", "signature", "per_example"]
    assert r["signature"] == (
        "fid_clip|preset:fusion_brain_2022|clip:ruclip-tiny|tmpl:ruclip6|lower:yes|"
        f"crop:center_square_bilinear|trunc:keep_end|scale:1|clamp:none|pil:{PIL.__version__}|v:0.1.0"
    )


def hf_oracle(model, tok, processor, images, texts, max_length=16):
    with torch.inference_mode():
        px = processor(images=[Image.fromarray(a) for a in images], return_tensors="pt")["pixel_values"]
        i = clip._as_tensor(model.get_image_features(pixel_values=px))
        enc = tok(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        t = clip._as_tensor(
            model.get_text_features(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"])
        )
    return torch.nn.functional.cosine_similarity(i, t).numpy()


def test_transformers_clip_raw_cosine_and_the_conventions(models):
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    images = random_images(4, seed=11, size=(40, 52))
    texts = ["a cat", "a dog", "cat dog", "x"]
    processor = CLIPImageProcessorPil.from_pretrained(str(models["hf"]))
    cos = hf_oracle(models["hf_model"], models["hf_tok"], processor, images, texts)
    m = load_metric("fid_clip")
    path = str(models["hf"])
    r = m.compute(predictions=images, texts=texts, clip_model=path, return_per_example=True)
    np.testing.assert_allclose(r["per_example"], cos, atol=1e-5)
    assert r["clip_score"] == pytest.approx(float(np.mean(r["per_example"])), abs=1e-12)
    s = m.compute(
        predictions=images,
        texts=texts,
        clip_model=path,
        clip_scale=2.5,
        clip_clamp="per_example",
        return_per_example=True,
    )
    np.testing.assert_allclose(s["per_example"], np.maximum(2.5 * cos, 0), atol=3e-5)
    t = m.compute(predictions=images, texts=texts, clip_model=path, clip_scale=100.0, clip_clamp="mean")
    assert t["clip_score"] == pytest.approx(max(100 * float(np.mean(cos)), 0.0), abs=2e-3)
    cs = load_metric("fid_clip", "clipscore").compute(
        predictions=images, texts=texts, clip_model=path, return_per_example=True
    )
    prefixed = hf_oracle(
        models["hf_model"], models["hf_tok"], processor, images, [f"A photo depicts {x}" for x in texts]
    )
    np.testing.assert_allclose(cs["per_example"], np.maximum(2.5 * prefixed, 0), atol=3e-5)
    assert "|scale:2.5|clamp:per_example|" in cs["signature"]


def test_truncation_keeps_the_end_token(models):
    scorer = clip.load_clip(models["hf"])
    long_text = "cat dog " * 30
    ids, _ = scorer.tokenize([long_text, "cat"], "keep_end")
    eos = models["hf_model"].config.text_config.eos_token_id
    assert ids.shape[1] == 16 and ids[0, -1].item() == eos
    sliced, _ = scorer.tokenize([long_text], "slice")
    assert sliced.shape[1] == 16 and eos not in sliced[0].tolist()  # torchmetrics: the end token is lost
    images = random_images(1, seed=12)
    m = load_metric("fid_clip")
    keep = m.compute(predictions=images, texts=[long_text], clip_model=str(models["hf"]))["clip_score"]
    cut = m.compute(
        predictions=images, texts=[long_text], clip_model=str(models["hf"]), clip_truncation="slice"
    )
    assert keep == pytest.approx(
        hf_oracle(models["hf_model"], models["hf_tok"], scorer.image_processor, images, [long_text])[0],
        abs=1e-5,
    )
    assert abs(keep - cut["clip_score"]) > 1e-4 and "|trunc:slice|" in cut["signature"]
    ru = clip.load_clip(models["ruclip"])
    ids, _ = ru.tokenize(["кот " * 30], "keep_end")
    assert ids[0, -1].item() == 3 and ids[0, 0].item() == 2
