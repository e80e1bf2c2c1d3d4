"""CLIP score: any transformers CLIP checkpoint, and ruCLIP (Fusion Brain 2022) loaded by our own code.

* ``YttmBpe``: a reader and encoder of YouTokenToMe ``bpe.model`` files (ruCLIP's tokenizer) without
  youtokentome (which does not build on Python 3.11). File format (YTTM ``BPEState::dump``):
  ``n_chars n_rules`` / n_chars lines ``codepoint id`` / n_rules lines ``x y z`` (tokens x, y merge
  into z, in rule order) / ``unk pad bos eos``. Encoding (YTTM ``encode_sentence``, dropout 0): drop
  trailing whitespace, split on whitespace (ASCII whitespace below U+0100, and U+2581), each word is
  ``[id('\u2581')] + char ids`` with every maximal run of unknown characters as ONE unk token, then
  merge the adjacent pair with the lowest rule index (leftmost on ties) until no rule applies.
* ``load_clip(path)``: a directory holding either a transformers CLIP checkpoint (``config.json`` of
  model_type clip, weights, tokenizer and preprocessor files) or the ruCLIP layout (``bpe.model``,
  ruCLIP ``config.json``, ``pytorch_model.bin`` = the ``state_dict`` of ruclip's ``CLIP``). ruCLIP
  is built as ``transformers.CLIPModel`` with quick_gelu in both towers, end token id 3 (pooling at
  the first id 3, not at the argmax id), LayerNorm eps 1e-5, and its keys renamed
  (``in_proj_weight`` split into q/k/v, ``text_projection``/``visual.proj`` transposed, ...).
* Text features: every text (optionally lower-cased and stripped) is embedded with each prompt
  template; the mean of the unnormalised template embeddings is L2-normalised (ruCLIP Predictor).
  Truncation ``keep_end`` keeps the end token (ruCLIP: ``context_length - 2`` tokens between BOS
  and EOS; transformers tokenizers: ``truncation=True``); ``slice`` cuts the token ids after
  tokenisation (torchmetrics' CLIPScore: a long text loses its end token and is pooled elsewhere).
* Image features: ``processor`` = the checkpoint's own CLIP image processor (PIL backend: resize the
  shorter side bicubic, centre crop); ``center_square_bilinear`` = ruCLIP's ``RandomResizedCrop(size,
  scale=(1, 1), ratio=(1, 1))``: the centred max square (offsets floor((H - s)/2), floor((W - s)/2))
  then a PIL bilinear resize; then /255 and the mean/std normalisation. L2-normalised.
* Score per pair: ``scale * cos`` (raw cosine by default), clamped at 0 per pair or after the mean.
"""

import json
import os
from pathlib import Path

RUCLIP_TEMPLATES = (
    "{}",
    "фото, на котором изображено {}",
    "изображение с {}",
    "картинка с {}",
    "фото с {}",
    "на фото видно {}",
)
OPENAI_MEAN = (0.48145466, 0.4578275, 0.40821073)
OPENAI_STD = (0.26862954, 0.26130258, 0.27577711)
SPACE = "\u2581"


class YttmBpe:
    """YouTokenToMe BPE model (``bpe.model``), encoding with dropout 0."""

    def __init__(self, path):
        text = Path(path).read_text(encoding="utf-8")
        lines = text.split("\n")
        try:
            n_chars, n_rules = (int(v) for v in lines[0].split())
            self.char_ids = {}
            for line in lines[1 : 1 + n_chars]:
                cp, tid = line.split()
                self.char_ids[chr(int(cp))] = int(tid)
            self.rules = {}
            for rank, line in enumerate(lines[1 + n_chars : 1 + n_chars + n_rules]):
                x, y, z = (int(v) for v in line.split())
                self.rules[(x, y)] = (rank, z)
            self.unk_id, self.pad_id, self.bos_id, self.eos_id = (
                int(v) for v in lines[1 + n_chars + n_rules].split()
            )
        except (ValueError, IndexError):
            raise ValueError(f"{str(path)!r} is not a YouTokenToMe bpe.model file") from None
        self.vocab_size = 4 + len(self.char_ids) + len(self.rules)
        self._cache = {}

    @staticmethod
    def _is_space(ch: str) -> bool:
        cp = ord(ch)
        return (cp < 256 and ch in " \t\n\v\f\r") or ch == SPACE

    def _split(self, text: str) -> list[str]:
        words, current = [], []
        for ch in text:
            if self._is_space(ch):
                if current:
                    words.append("".join(current))
                    current = []
            else:
                current.append(ch)
        if current:
            words.append("".join(current))
        return words

    def _encode_word(self, word: str) -> list[int]:
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        ids = [self.char_ids.get(SPACE, self.unk_id)]
        unknown_run = False
        for ch in word:
            tid = self.char_ids.get(ch)
            if tid is None:
                if not unknown_run:
                    ids.append(self.unk_id)
                unknown_run = True
            else:
                ids.append(tid)
                unknown_run = False
        rules = self.rules
        while len(ids) > 1:
            best = None
            for pos in range(len(ids) - 1):
                rule = rules.get((ids[pos], ids[pos + 1]))
                if rule is not None and (best is None or rule[0] < best[0]):
                    best = (rule[0], pos, rule[1])
            if best is None:
                break
            _, pos, new = best
            ids[pos : pos + 2] = [new]
        if len(self._cache) < 100_000:
            self._cache[word] = ids
        return ids

    def encode(self, text: str) -> list[int]:
        out = []
        for word in self._split(text):
            out.extend(self._encode_word(word))
        return out


# ----------------------------------------------------------------------------------------------
# loading
# ----------------------------------------------------------------------------------------------
def is_ruclip_dir(path: Path) -> bool:
    return (path / "bpe.model").is_file()


def ruclip_to_hf_config(cfg: dict):
    """transformers CLIPConfig equivalent to a ruCLIP config.json."""
    from transformers import CLIPConfig

    tw, vw = cfg["transformer_width"], cfg["vision_width"]
    return CLIPConfig(
        text_config=dict(
            vocab_size=cfg["vocab_size"],
            hidden_size=tw,
            intermediate_size=4 * tw,
            num_hidden_layers=cfg["transformer_layers"],
            num_attention_heads=cfg["transformer_heads"],
            max_position_embeddings=cfg["context_length"],
            hidden_act="quick_gelu",
            layer_norm_eps=1e-5,
            bos_token_id=2,
            eos_token_id=3,
            pad_token_id=0,
        ),
        vision_config=dict(
            hidden_size=vw,
            intermediate_size=4 * vw,
            num_hidden_layers=cfg["vision_layers"],
            num_attention_heads=vw // 64,
            image_size=cfg["image_resolution"],
            patch_size=cfg["vision_patch_size"],
            hidden_act="quick_gelu",
            layer_norm_eps=1e-5,
        ),
        projection_dim=cfg["embed_dim"],
    )


_BLOCK_NAMES = {
    "attn.out_proj.weight": "self_attn.out_proj.weight",
    "attn.out_proj.bias": "self_attn.out_proj.bias",
    "ln_1.weight": "layer_norm1.weight",
    "ln_1.bias": "layer_norm1.bias",
    "ln_2.weight": "layer_norm2.weight",
    "ln_2.bias": "layer_norm2.bias",
    "mlp.c_fc.weight": "mlp.fc1.weight",
    "mlp.c_fc.bias": "mlp.fc1.bias",
    "mlp.c_proj.weight": "mlp.fc2.weight",
    "mlp.c_proj.bias": "mlp.fc2.bias",
}
_TOP_NAMES = {
    "token_embedding.weight": "text_model.embeddings.token_embedding.weight",
    "positional_embedding": "text_model.embeddings.position_embedding.weight",
    "ln_final.weight": "text_model.final_layer_norm.weight",
    "ln_final.bias": "text_model.final_layer_norm.bias",
    "visual.class_embedding": "vision_model.embeddings.class_embedding",
    "visual.conv1.weight": "vision_model.embeddings.patch_embedding.weight",
    "visual.positional_embedding": "vision_model.embeddings.position_embedding.weight",
    "visual.ln_pre.weight": "vision_model.pre_layrnorm.weight",
    "visual.ln_pre.bias": "vision_model.pre_layrnorm.bias",
    "visual.ln_post.weight": "vision_model.post_layernorm.weight",
    "visual.ln_post.bias": "vision_model.post_layernorm.bias",
    "logit_scale": "logit_scale",
}


def ruclip_to_hf_state_dict(state: dict) -> dict:
    """Rename the keys of ruclip's CLIP.state_dict() into transformers CLIPModel's."""
    out = {}
    for key, value in state.items():
        if key in _TOP_NAMES:
            out[_TOP_NAMES[key]] = value
        elif key == "text_projection":
            out["text_projection.weight"] = value.t().contiguous()
        elif key == "visual.proj":
            out["visual_projection.weight"] = value.t().contiguous()
        elif key.startswith(("transformer.resblocks.", "visual.transformer.resblocks.")):
            tower = "vision_model" if key.startswith("visual.") else "text_model"
            rest = key.split("resblocks.", 1)[1]
            index, name = rest.split(".", 1)
            prefix = f"{tower}.encoder.layers.{index}."
            if name in ("attn.in_proj_weight", "attn.in_proj_bias"):
                kind = "weight" if name.endswith("weight") else "bias"
                for part, chunk in zip("qkv", value.chunk(3, dim=0)):
                    out[f"{prefix}self_attn.{part}_proj.{kind}"] = chunk.contiguous()
            elif name in _BLOCK_NAMES:
                out[prefix + _BLOCK_NAMES[name]] = value
            else:
                raise ValueError(f"unexpected ruCLIP checkpoint key {key!r}")
        else:
            raise ValueError(f"unexpected ruCLIP checkpoint key {key!r}")
    return out


class ClipScorer:
    """A loaded CLIP model with its tokenizer and image preprocessing (one per checkpoint)."""

    def __init__(self, model, kind, tokenizer, context_length, mean, std, image_size, image_processor=None):
        self.model = model.eval()
        self.kind = kind  # "ruclip" | "transformers"
        self.tokenizer = tokenizer
        self.context_length = context_length
        self.mean, self.std = tuple(mean), tuple(std)
        self.image_size = image_size
        self.image_processor = image_processor
        self.device = "cpu"

    def to(self, device: str) -> "ClipScorer":
        if device != self.device:
            self.model.to(device)
            self.device = device
        return self

    # -- text ----------------------------------------------------------------------------------
    def tokenize(self, texts: list[str], truncation: str):
        """(B, L) int64 ids (right-padded) for the model; ``keep_end`` or ``slice`` truncation."""
        import torch

        n = self.context_length
        if self.kind == "ruclip":
            tok = self.tokenizer
            rows = []
            for text in texts:
                ids = tok.encode(text.lower())
                if truncation == "keep_end":
                    ids = [tok.bos_id] + ids[: n - 2] + [tok.eos_id]
                else:
                    ids = ([tok.bos_id] + ids + [tok.eos_id])[:n]
                rows.append(ids + [tok.pad_id] * (n - len(ids)))
            return torch.tensor(rows, dtype=torch.long), None
        if truncation == "keep_end":
            enc = self.tokenizer(texts, padding=True, truncation=True, max_length=n, return_tensors="pt")
            return enc["input_ids"], enc["attention_mask"]
        enc = self.tokenizer(texts, padding=True, return_tensors="pt")
        return enc["input_ids"][:, :n], enc["attention_mask"][:, :n]

    def text_features(self, texts: list[str], templates, truncation: str, lowercase: bool):
        """(B, D) L2-normalised mean over the templates of the unnormalised text embeddings."""
        return next(self.text_feature_batches(texts, templates, truncation, lowercase, max(len(texts), 1)))

    def text_feature_batches(
        self, texts: list[str], templates, truncation: str, lowercase: bool, batch_size: int
    ):
        """:meth:`text_features` of ``texts[k : k + batch_size]`` for k = 0, batch_size, ... The texts are
        tokenised once, all of them (one tokenizer call per template instead of one per batch); each
        batch is cut to its own longest text, so the model sees the ids and mask that tokenising the
        batch alone gives (right padding: the padded columns past a batch's longest text are dropped)."""
        import torch

        if lowercase:
            texts = [t.lower().strip() for t in texts]
        tokens = [self.tokenize([template.format(t) for t in texts], truncation) for template in templates]
        for start in range(0, len(texts), batch_size):
            total = None
            with torch.inference_mode():
                for ids, mask in tokens:
                    ids, mask = ids[start : start + batch_size], mask
                    kwargs = {}
                    if mask is not None:
                        mask = mask[start : start + batch_size]
                        width = int(mask.sum(dim=1).max())
                        ids, mask = ids[:, :width], mask[:, :width]
                        kwargs["attention_mask"] = mask.to(self.device)
                    feats = _as_tensor(
                        self.model.get_text_features(input_ids=ids.to(self.device), **kwargs)
                    ).float()
                    total = feats if total is None else total + feats
                mean = total / len(templates)
                yield mean / mean.norm(dim=-1, keepdim=True)

    # -- images --------------------------------------------------------------------------------
    def pixel_values(self, images, preprocess: str):
        """(B, 3, S, S) float32 pixels for the model. ``images``: RGB PIL images, or (H, W, 3) uint8 arrays
        of their pixels (the checkpoint's processor reads those as channels-last, what it does with PIL
        images: the same values; ``center_square_bilinear`` makes PIL images of them)."""
        import numpy as np
        import torch
        from PIL import Image

        if preprocess == "processor":
            if self.image_processor is None:
                raise ValueError(
                    "`clip_preprocess='processor'` needs the checkpoint's preprocessor_config.json"
                )
            if all(isinstance(x, np.ndarray) for x in images):  # RGB pixels (images.unpack_rgb), as given
                return self.image_processor(
                    images=list(images), return_tensors="pt", input_data_format="channels_last"
                )["pixel_values"]
            return self.image_processor(images=list(images), return_tensors="pt")["pixel_values"]
        size = self.image_size
        mean = np.asarray(self.mean, dtype=np.float32)[:, None, None]
        std = np.asarray(self.std, dtype=np.float32)[:, None, None]
        out = []
        for img in images:
            if isinstance(img, np.ndarray):
                img = Image.fromarray(img)
            w, h = img.size
            s = min(w, h)
            top, left = (h - s) // 2, (w - s) // 2
            img = img.crop((left, top, left + s, top + s)).resize((size, size), Image.BILINEAR)
            x = np.asarray(img, dtype=np.uint8).transpose(2, 0, 1).astype(np.float32) / 255.0
            out.append((x - mean) / std)
        return torch.from_numpy(np.stack(out))

    def image_features(self, images, preprocess: str):
        import torch

        pixels = self.pixel_values(images, preprocess).to(self.device)
        with torch.inference_mode():
            feats = _as_tensor(self.model.get_image_features(pixel_values=pixels)).float()
        return feats / feats.norm(dim=-1, keepdim=True)


def _as_tensor(out):
    """get_*_features returns a tensor (or, in some transformers versions, an output object)."""
    if hasattr(out, "pooler_output") and not hasattr(out, "shape"):
        return out.pooler_output
    return out


def load_clip(path) -> ClipScorer:
    """Load a CLIP checkpoint directory (transformers layout or ruCLIP layout), CPU, eval mode."""
    from ..extras import require

    require("fid_clip's CLIP score", ["torch", "transformers"], ["vision"])
    folder = Path(os.fspath(path))
    if not folder.is_dir():
        raise ValueError(
            f"`clip_model`: {str(folder)!r} is not a directory. Pass the local folder of a CLIP checkpoint: a "
            "transformers one (e.g. a snapshot of openai/clip-vit-large-patch14) or ruCLIP's (bpe.model, "
            "config.json, pytorch_model.bin from ai-forever/ruclip-vit-large-patch14-336)"
        )
    if is_ruclip_dir(folder):
        return _load_ruclip(folder)
    if not (folder / "config.json").is_file():
        raise ValueError(
            f"`clip_model`: {str(folder)!r} has no config.json (neither a transformers nor a ruCLIP checkpoint)"
        )
    from transformers import AutoTokenizer, CLIPModel

    try:  # local files only: nothing is downloaded; transformers reads .bin with torch.load(weights_only=True)
        model = CLIPModel.from_pretrained(str(folder), local_files_only=True)
        tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    except Exception as err:  # noqa: BLE001 - OSError, UnpicklingError, JSON errors...: a bad checkpoint folder
        raise ValueError(
            f"`clip_model`: cannot load {str(folder)!r} as a transformers CLIP checkpoint "
            f"({type(err).__name__}: {str(err)[:300]})"
        ) from None
    processor = None
    if (folder / "preprocessor_config.json").is_file():
        from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

        try:
            processor = CLIPImageProcessorPil.from_pretrained(str(folder), local_files_only=True)
        except Exception as err:  # noqa: BLE001 - bad JSON or values: a bad checkpoint folder
            raise ValueError(
                f"`clip_model`: cannot read {str(folder / 'preprocessor_config.json')!r} "
                f"({type(err).__name__}: {str(err)[:200]})"
            ) from None
    mean = getattr(processor, "image_mean", None) or OPENAI_MEAN
    std = getattr(processor, "image_std", None) or OPENAI_STD
    cfg = model.config
    return ClipScorer(
        model,
        "transformers",
        tokenizer,
        cfg.text_config.max_position_embeddings,
        mean,
        std,
        cfg.vision_config.image_size,
        processor,
    )


def _load_ruclip(folder: Path) -> ClipScorer:
    from transformers import CLIPModel

    from .inception import read_state_dict

    weights = folder / "model.safetensors"
    if not weights.is_file():
        weights = folder / "pytorch_model.bin"
    for path in (folder / "config.json", weights):
        if not path.is_file():
            raise ValueError(
                f"`clip_model`: the ruCLIP folder {str(folder)!r} lacks {path.name} "
                "(expected bpe.model, config.json, pytorch_model.bin)"
            )
    try:
        cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        tokenizer = YttmBpe(folder / "bpe.model")
        model = CLIPModel(ruclip_to_hf_config(cfg))
    except Exception as err:  # noqa: BLE001 - bad JSON, missing or wrong config keys, a bad bpe.model
        raise ValueError(
            f"`clip_model`: {str(folder)!r} is not a ruCLIP checkpoint (config.json / bpe.model: "
            f"{type(err).__name__}: {str(err)[:200]})"
        ) from None
    state = read_state_dict(weights, "clip_model")
    try:
        missing, unexpected = model.load_state_dict(ruclip_to_hf_state_dict(state), strict=False)
    except (RuntimeError, ValueError, IndexError) as err:
        raise ValueError(f"`clip_model`: {str(folder)!r} does not match its ruCLIP config ({err})") from None
    missing = [k for k in missing if not k.endswith("position_ids")]
    if missing or unexpected:
        raise ValueError(
            f"`clip_model`: ruCLIP checkpoint keys do not match: missing {missing[:5]}, unexpected {unexpected[:5]}"
        )
    return ClipScorer(
        model,
        "ruclip",
        tokenizer,
        cfg["context_length"],
        cfg.get("mean", OPENAI_MEAN),
        cfg.get("std", OPENAI_STD),
        cfg["image_resolution"],
    )


def clip_scores(cos, scale: float, clamp: str):
    """Per-pair scores ``scale * cos`` (clamped at 0 when ``clamp == 'per_example'``) and their mean
    (clamped at 0 when ``clamp == 'mean'``, torchmetrics' rule)."""
    import numpy as np

    per = scale * np.asarray(cos, dtype=np.float64)
    if clamp == "per_example":
        per = np.maximum(per, 0.0)
    mean = float(per.mean()) if len(per) else 0.0
    if clamp == "mean":
        mean = max(mean, 0.0)
    return per, mean
