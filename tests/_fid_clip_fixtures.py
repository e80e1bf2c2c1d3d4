"""Tiny random models for the fid_clip tests, written to disk in the real checkpoint layouts.

* ``tiny_inception_weights``: a FID Inception of reduced width (same module names, random weights
  with a variance-keeping init so that features vary between images), saved as a .pth state dict.
* ``RuClipReference``: an independent torch transcription of ruclip's ``CLIP`` architecture (OpenAI
  CLIP code: nn.MultiheadAttention, QuickGELU, causal text mask, pooling at the first end token 3),
  with ruCLIP's parameter names. Saved with a ruCLIP config.json and a hand-written YTTM bpe.model,
  it is the oracle for our renamed-keys CLIPModel route.
* ``tiny_hf_clip``: a transformers CLIPModel built from a config with a byte-level CLIP tokenizer
  (vocab.json + merges.txt) and a PIL image processor config.
"""

import atexit
import functools
import json
import math
import shutil
import tempfile
from collections import OrderedDict
from pathlib import Path

import numpy as np
import torch
from torch import nn

# ----------------------------------------------------------------------------------------------
# FID Inception
# ----------------------------------------------------------------------------------------------


def tiny_inception(core_module, width: float = 0.125, seed: int = 0):
    torch.manual_seed(seed)
    net = core_module.build(width)
    for mod in net.modules():
        if isinstance(mod, nn.Conv2d):
            nn.init.kaiming_normal_(mod.weight, mode="fan_in", nonlinearity="relu")
        elif isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.05, 0.05)
            mod.running_var.uniform_(0.8, 1.2)
            mod.weight.data.uniform_(0.8, 1.2)
            mod.bias.data.uniform_(-0.05, 0.05)
    return net.eval()


def tiny_inception_weights(core_module, folder: Path, width: float = 0.125) -> Path:
    path = Path(folder) / "pt_inception-tiny.pth"
    torch.save(tiny_inception(core_module, width).state_dict(), path)
    return path


# ----------------------------------------------------------------------------------------------
# ruCLIP layout
# ----------------------------------------------------------------------------------------------
class QuickGELU(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(1.702 * x)


class ResidualAttentionBlock(nn.Module):
    def __init__(self, d, heads, attn_mask=None):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads)
        self.ln_1 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(
            OrderedDict(
                [("c_fc", nn.Linear(d, 4 * d)), ("gelu", QuickGELU()), ("c_proj", nn.Linear(4 * d, d))]
            )
        )
        self.ln_2 = nn.LayerNorm(d)
        self.attn_mask = attn_mask

    def forward(self, x):
        y = self.ln_1(x)
        mask = None if self.attn_mask is None else self.attn_mask.to(x.dtype)
        x = x + self.attn(y, y, y, need_weights=False, attn_mask=mask)[0]
        return x + self.mlp(self.ln_2(x))


class Transformer(nn.Module):
    def __init__(self, width, layers, heads, attn_mask=None):
        super().__init__()
        self.resblocks = nn.Sequential(
            *[ResidualAttentionBlock(width, heads, attn_mask) for _ in range(layers)]
        )

    def forward(self, x):
        return self.resblocks(x)


class VisionTransformer(nn.Module):
    def __init__(self, resolution, patch, width, layers, heads, out):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, patch, stride=patch, bias=False)
        scale = width**-0.5
        self.class_embedding = nn.Parameter(scale * torch.randn(width))
        self.positional_embedding = nn.Parameter(scale * torch.randn((resolution // patch) ** 2 + 1, width))
        self.ln_pre = nn.LayerNorm(width)
        self.transformer = Transformer(width, layers, heads)
        self.ln_post = nn.LayerNorm(width)
        self.proj = nn.Parameter(scale * torch.randn(width, out))

    def forward(self, x):
        x = self.conv1(x)
        x = x.reshape(x.shape[0], x.shape[1], -1).permute(0, 2, 1)
        cls = self.class_embedding.to(x.dtype) + torch.zeros(x.shape[0], 1, x.shape[-1], dtype=x.dtype)
        x = torch.cat([cls, x], dim=1) + self.positional_embedding
        x = self.ln_pre(x).permute(1, 0, 2)
        x = self.transformer(x).permute(1, 0, 2)
        return self.ln_post(x[:, 0, :]) @ self.proj


class RuClipReference(nn.Module):
    """ruclip/model.py's CLIP, re-typed from its description (names and forward), random weights."""

    def __init__(self, cfg):
        super().__init__()
        self.eos_id = 3
        self.visual = VisionTransformer(
            cfg["image_resolution"],
            cfg["vision_patch_size"],
            cfg["vision_width"],
            cfg["vision_layers"],
            cfg["vision_width"] // 64,
            cfg["embed_dim"],
        )
        n = cfg["context_length"]
        mask = torch.full((n, n), float("-inf")).triu_(1)
        self.transformer = Transformer(
            cfg["transformer_width"], cfg["transformer_layers"], cfg["transformer_heads"], mask
        )
        self.token_embedding = nn.Embedding(cfg["vocab_size"], cfg["transformer_width"])
        self.positional_embedding = nn.Parameter(0.01 * torch.randn(n, cfg["transformer_width"]))
        self.ln_final = nn.LayerNorm(cfg["transformer_width"])
        self.text_projection = nn.Parameter(
            cfg["transformer_width"] ** -0.5 * torch.randn(cfg["transformer_width"], cfg["embed_dim"])
        )
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))
        for p in self.parameters():  # non-trivial LayerNorm / bias values
            if p.dim() == 1 and p is not self.visual.class_embedding:
                p.data.add_(0.1 * torch.randn_like(p))

    def encode_image(self, pixels):
        return self.visual(pixels)

    def encode_text(self, ids):
        x = self.token_embedding(ids) + self.positional_embedding
        x = self.transformer(x.permute(1, 0, 2)).permute(1, 0, 2)
        x = self.ln_final(x)
        return x[torch.arange(x.shape[0]), torch.where(ids == self.eos_id)[1]] @ self.text_projection


RUCLIP_CFG = {
    "embed_dim": 16,
    "image_resolution": 28,
    "vision_layers": 2,
    "vision_width": 64,
    "vision_patch_size": 7,
    "context_length": 12,
    "vocab_size": 40,
    "transformer_width": 32,
    "transformer_heads": 4,
    "transformer_layers": 2,
    "mean": [0.48145466, 0.4578275, 0.40821073],
    "std": [0.26862954, 0.26130258, 0.27577711],
}

# A hand-written YTTM model: ids 0-3 special (pad 0, unk 1, bos 2, eos 3), characters 4..,
# then merge rules in priority order.
BPE_CHARS = [
    "\u2581",
    "к",
    "о",
    "т",
    "с",
    "а",
    "ф",
    "н",
    "и",
    "з",
    "e",
    "д",
    "ж",
    "ь",
    "л",
    "п",
    "р",
    "ц",
    "в",
    "х",
    "у",
    "я",
    "б",
]
BPE_RULES = [("к", "о"), ("ко", "т"), ("\u2581", "кот"), ("\u2581", "с"), ("ф", "о"), ("\u2581", "фо")]


def bpe_ids():
    ids = {ch: 4 + i for i, ch in enumerate(BPE_CHARS)}
    rules = []
    for x, y in BPE_RULES:
        ids[x + y] = len(ids) + 4
        rules.append((ids[x], ids[y], ids[x + y]))
    return ids, rules


def write_bpe_model(path: Path) -> dict:
    ids, rules = bpe_ids()
    lines = [f"{len(BPE_CHARS)} {len(rules)}"]
    lines += [f"{ord(ch)} {ids[ch]}" for ch in BPE_CHARS]
    lines += [f"{x} {y} {z}" for x, y, z in rules]
    lines.append("1 0 2 3")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ids


def tiny_ruclip(folder: Path, seed: int = 0):
    """Write a random ruCLIP-layout checkpoint; returns the reference model (the oracle)."""
    torch.manual_seed(seed)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ref = RuClipReference(RUCLIP_CFG).eval()
    torch.save(ref.state_dict(), folder / "pytorch_model.bin")
    (folder / "config.json").write_text(json.dumps(RUCLIP_CFG), encoding="utf-8")
    write_bpe_model(folder / "bpe.model")
    return ref


# ----------------------------------------------------------------------------------------------
# transformers CLIP
# ----------------------------------------------------------------------------------------------
def _bytes_to_unicode():
    bs = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


def tiny_hf_clip(folder: Path, seed: int = 0, max_positions: int = 16):
    """A random transformers CLIPModel with a byte-level CLIP tokenizer and a PIL image processor."""
    from transformers import CLIPConfig, CLIPModel, CLIPTokenizer
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    chars = _bytes_to_unicode()
    vocab = {}
    for ch in chars:
        vocab[ch] = len(vocab)
    for ch in chars:
        vocab[ch + "</w>"] = len(vocab)
    merges = [("c", "a"), ("ca", "t</w>"), ("d", "o"), ("do", "g</w>")]
    for a, b in merges:
        vocab[a + b] = len(vocab)
    vocab["<|startoftext|>"] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (folder / "merges.txt").write_text(
        "#version: 0.2\n" + "\n".join(f"{a} {b}" for a, b in merges) + "\n", encoding="utf-8"
    )
    tok = CLIPTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
    tok.save_pretrained(str(folder))
    torch.manual_seed(seed)
    eos = vocab["<|endoftext|>"]
    config = CLIPConfig(
        text_config=dict(
            vocab_size=len(vocab),
            hidden_size=32,
            intermediate_size=37,
            num_hidden_layers=2,
            num_attention_heads=4,
            max_position_embeddings=max_positions,
            bos_token_id=vocab["<|startoftext|>"],
            eos_token_id=eos,
            pad_token_id=eos,
        ),
        vision_config=dict(
            image_size=32,
            patch_size=8,
            hidden_size=32,
            intermediate_size=37,
            num_hidden_layers=2,
            num_attention_heads=4,
        ),
        projection_dim=16,
    )
    model = CLIPModel(config).eval()
    model.save_pretrained(str(folder))
    CLIPImageProcessorPil(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}).save_pretrained(
        str(folder)
    )
    return model, tok


def random_images(n: int, seed: int = 0, size=(48, 40)) -> list:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8) for _ in range(n)]


def generation_split(folder: Path, words: list) -> tuple[dict, dict]:
    """A FusionBrain 2.0 generation split in ``folder``: gt_images/ and images/ with one random 40 x 32 PNG
    per prompt each (seeds 1 and 2); returns (prompts, predictions) as the JSON files hold them: prompt ``i``
    asks for ``words[i]``, its prediction is images/<i>.png."""
    from PIL import Image

    for name, seed in (("gt_images", 1), ("images", 2)):
        (folder / name).mkdir(parents=True)
        for i, array in enumerate(random_images(len(words), seed=seed, size=(40, 32))):
            Image.fromarray(array).save(folder / name / f"{i}.png")
    prompts = {str(i): [{"type": "text", "content": "Сгенерируй."}, {"type": "text", "content": t}]
               for i, t in enumerate(words)}  # fmt: skip
    pred = {str(i): [{"type": "text", "content": ""}, {"type": "image", "content": f"images/{i}.png"}]
            for i in range(len(words))}  # fmt: skip
    return prompts, pred


@functools.cache
def tiny_models() -> dict:
    """The tiny random models of the fid_clip tests (FID Inception weights, ruCLIP with its reference
    network, transformers CLIP with its tokenizer), built once per test process in a temporary folder
    (the test files that use them share one set; nothing writes into it)."""
    from multimodal_metrics.fid_clip import inception

    folder = Path(tempfile.mkdtemp(prefix="fid_clip_models_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    weights = tiny_inception_weights(inception, folder)
    ruclip_ref = tiny_ruclip(folder / "ruclip-tiny")
    hf_model, hf_tok = tiny_hf_clip(folder / "clip-tiny")
    return {
        "folder": folder,
        "inception": weights,
        "ruclip": folder / "ruclip-tiny",
        "ruclip_ref": ruclip_ref,
        "hf": folder / "clip-tiny",
        "hf_model": hf_model,
        "hf_tok": hf_tok,
    }
