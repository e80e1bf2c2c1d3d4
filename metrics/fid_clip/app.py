"""Gradio demo of the `fid_clip` metric: upload generated and real images and the prompts; get FID,
the CLIP score per image (table and histogram) and the Fusion Brain 2022 score.

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space; the
page is the library's (`multimodal_metrics.demo.MetricPage`), its uploads `multimodal_metrics.demo.uploads`.
Model weights: the FID Inception file comes from an upload, a local path or the torch hub cache (never
downloaded: put it there first); the CLIP checkpoint is a local folder or, when online, a Hub
repository id fetched with huggingface_hub (the metric itself only reads local folders).
"""

from pathlib import Path

from multimodal_metrics import fid_clip
from multimodal_metrics.demo import Box, MetricPage, uploads

HERE = Path(__file__).resolve().parent
EXAMPLE_PROMPTS = "a red apple on a table\na cat sleeping on a sofa"
INTRO = (
    "**fid_clip**: FID between generated and real images, CLIP score of each generated image with its "
    "prompt, and the Fusion Brain 2022 generation score 0.5 * (CLIP + (200 - min(200, FID)) / 200). "
    "Upload both image sets (FID needs at least 2 per side; meaningful values need thousands) and one "
    "prompt per generated image (in upload order). The FID Inception weights are read from the path given "
    "or from the torch hub cache; the CLIP model is a local checkpoint folder or a Hub repo id. Options "
    "left empty use the preset's value.\n\n"
    "**What needs weights.** Images need the FID Inception weights (`pt_inception-2015-12-05` file: upload "
    "it under *Inception weights file*, give its path in *inception_weights*, or put it in the torch hub "
    "cache) and, for the CLIP score, a CLIP checkpoint (a local folder, or a Hub repo id on a machine that "
    f"is online). {uploads.PATHS_NOTE} Each file is at most 128 MB; `pre_resize` at most {uploads.MAX_PRE_RESIZE}. "
    "A Space without them can still give FID from files: below, *FID from feature or statistics files* needs "
    "no weights. The signature names the Inception file by its content (`inception-2015-12-05` only for "
    "pytorch-fid's file, `inception-sha256-...` for any other). A file uploaded twice (same content) "
    "is scored once, and the page says so."
)

DEMO = MetricPage(
    fid_clip,
    HERE / "fid_clip.py",
    INTRO,
    inputs=uploads.image_inputs,
    boxes=[Box("prompts", "prompts (one per generated image)", EXAMPLE_PROMPTS, lines=4)],
    read=uploads.read_images,
    errors=uploads.upload_errors,
    prefilled=uploads.PREFILLED,
    notes=uploads.NOTES,
    shown=3,
    below=uploads.features_form,
    wire=uploads.wire_features,
    table_label="CLIP score per generated image",
    score="clip_score",  # one CLIP score per image beside one FID
)
compute, build_ui = DEMO.compute, DEMO.build_ui
demo = DEMO.blocks(
    "fid_clip", "# fid_clip: FID, CLIP score and the Fusion Brain 2022 scores", HERE / "README.md"
)

if __name__ == "__main__":
    demo.launch()
