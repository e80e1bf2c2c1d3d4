"""Gradio demo of the `fid_clip` metric: upload generated and real images and the prompts; get FID,
the CLIP score per image (table and histogram) and the Fusion Brain 2022 score.

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
Model weights: the FID Inception file comes from a local path or the torch hub cache (downloaded
there when the machine is online); the CLIP checkpoint is a local folder or, when online, a Hub
repository id fetched with huggingface_hub (the metric itself only reads local folders).
"""

import os
from pathlib import Path

import gradio as gr
from _mm_demo import card_body, load_metric, parse_items, safe_compute

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "fid_clip.py"
PRESETS = ["default", "fusion_brain_2022", "clipscore"]
EXAMPLE_PROMPTS = "a red apple on a table\na cat sleeping on a sofa"


def resolve_clip_model(text: str):
    """A local checkpoint folder as is; otherwise a Hub repo id downloaded (online only)."""
    text = (text or "").strip()
    if not text or os.path.isdir(text):
        return text or None
    try:
        from huggingface_hub import snapshot_download

        patterns = ["*.json", "*.txt", "*.model", "*.safetensors", "pytorch_model.bin"]  # no TF/Flax weights
        return snapshot_download(text, allow_patterns=patterns)
    except Exception as err:  # noqa: BLE001 - any Hub failure becomes a readable UI error
        raise gr.Error(f"clip_model: {text!r} is neither a local folder nor a downloadable Hub repo ({err})") from None


def _paths(files) -> list:
    if not files:
        return []
    return [f if isinstance(f, str) else getattr(f, "name", f) for f in files]


def histogram(scores: list, bins: int = 10):
    """A small bar chart (PIL) of the per-image CLIP scores."""
    from PIL import Image, ImageDraw

    width, height, pad = 420, 220, 30
    img = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    if not scores:
        draw.text((pad, height // 2), "no CLIP scores", fill=(0, 0, 0))
        return img
    low, high = min(scores), max(scores)
    if high - low < 1e-9:
        low, high = low - 0.05, high + 0.05
    counts = [0] * bins
    for s in scores:
        counts[min(bins - 1, int((s - low) / (high - low) * bins))] += 1
    bar_w = (width - 2 * pad) / bins
    top = max(counts)
    for k, c in enumerate(counts):
        h = (height - 2 * pad) * c / top
        x0 = pad + k * bar_w
        draw.rectangle((x0 + 1, height - pad - h, x0 + bar_w - 1, height - pad), fill=(70, 110, 200))
        if c:
            draw.text((x0 + bar_w / 2 - 3, height - pad - h - 12), str(c), fill=(0, 0, 0))
    draw.line((pad, height - pad, width - pad, height - pad), fill=(0, 0, 0))
    draw.text((pad, height - pad + 4), f"{low:.3f}", fill=(0, 0, 0))
    draw.text((width - pad - 40, height - pad + 4), f"{high:.3f}", fill=(0, 0, 0))
    draw.text((pad, 6), "CLIP score per image", fill=(0, 0, 0))
    return img


def compute(generated, real, prompts: str, preset: str, inception_weights: str, clip_model: str, pre_resize):
    """FID (generated vs real), CLIP score (generated image vs prompt), and the score when both exist."""
    gen, ref = _paths(generated), _paths(real)
    texts = parse_items(prompts, "prompts") if (prompts or "").strip() else None
    if texts is not None and len(texts) != len(gen):
        raise gr.Error(f"give one prompt per generated image: {len(texts)} prompts for {len(gen)} images")
    if not gen:
        raise gr.Error("upload the generated images")
    metric = load_metric(SCRIPT, preset)
    kwargs = dict(
        predictions=gen,
        references=ref or None,
        inception_weights=(inception_weights or "").strip() or None,
        pre_resize=None if pre_resize in (None, "") else int(pre_resize),
    )
    if texts is not None:
        kwargs.update(texts=texts, clip_model=resolve_clip_model(clip_model), return_per_example=True)
    result = safe_compute(metric, **kwargs)
    per = result.get("per_example", [])
    table = [[Path(p).name, t, round(s, 6)] for p, t, s in zip(gen, texts or [], per)]
    return result, table, histogram(per)


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**fid_clip**: FID between generated and real images, CLIP score of each generated image with its "
        "prompt, and the Fusion Brain 2022 generation score 0.5 * (CLIP + (200 - min(200, FID)) / 200). "
        "Upload both image sets (FID needs at least 2 per side; meaningful values need thousands) and one "
        "prompt per generated image (in upload order). The FID Inception weights are read from the path given "
        "or from the torch hub cache; the CLIP model is a local checkpoint folder or a Hub repo id."
    )
    with gr.Row():
        generated = gr.File(file_count="multiple", file_types=["image"], type="filepath", label="generated images")
        real = gr.File(file_count="multiple", file_types=["image"], type="filepath", label="real images")
    prompts = gr.Textbox(EXAMPLE_PROMPTS, lines=4, label="prompts (one per generated image)")
    with gr.Row():
        preset = gr.Dropdown(PRESETS, value="default", label="preset")
        inception_weights = gr.Textbox("", label="inception_weights (empty = torch hub cache)")
        clip_model = gr.Textbox("openai/clip-vit-base-patch32", label="clip_model (local folder or Hub repo id)")
        pre_resize = gr.Number(None, label="pre_resize (empty = preset)", minimum=0, precision=0)
    button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
    with gr.Row():
        output = gr.JSON(label="result")
        picture = gr.Image(label="CLIP score histogram", type="pil")
    table = gr.Dataframe(headers=["image", "prompt", "clip_score"], label="CLIP score per generated image")
    button.click(
        compute,
        inputs=[generated, real, prompts, preset, inception_weights, clip_model, pre_resize],
        outputs=[output, table, picture],
        api_name=f"{api_prefix}compute",
    )


with gr.Blocks(title="fid_clip") as demo:
    gr.Markdown("# fid_clip: FID, CLIP score and the Fusion Brain 2022 scores")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
