"""Gradio demo of the `det_f1` metric: scores detections and draws them, so hits and misses are visible.

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space; the
page is the library's (`multimodal_metrics.demo.MetricPage`), the picture `multimodal_metrics.det_f1.drawing`.
"""

from pathlib import Path

from multimodal_metrics import det_f1
from multimodal_metrics.demo import Box, MetricPage, parsing
from multimodal_metrics.det_f1.drawing import draw_images, picture_note, picture_text

HERE = Path(__file__).resolve().parent
REFS = {"street.jpg": {"cat": [[20, 20, 100, 80], [200, 40, 60, 60], [300, 150, 80, 60]], "dog": []},
        "room.jpg": {"a red chair": [[40, 60, 120, 140]], "a lamp": [[250, 30, 40, 120]]}}  # fmt: skip
PREDS = {"street.jpg": {"cat": [[22, 18, 100, 80], [25, 25, 95, 80], [18, 22, 100, 78]], "dog": [[200, 40, 60, 60]]},
         "room.jpg": {"a red chair": [[60, 90, 120, 140]], "a lamp": [[250, 30, 40, 120], [320, 200, 30, 30]]}}  # fmt: skip
HINT = 'paste JSON such as {"street.jpg": {"cat": [[x, y, w, h], ...], "dog": []}} (one entry per image)'
INTRO = (
    "**det_f1**: detection F1 at an IoU threshold (Fusion Brain 2021 zero-shot detection). Paste JSON "
    "`{image: {class: [[x, y, w, h], ...]}}` (or a list of per-image `{class: boxes}`); the ground-truth "
    "classes are the requested ones, `[]` = class absent. Picture: ground truth **green** (dashed "
    "**orange** when no prediction hits it), hits **blue**, false positives **red**, uncounted "
    "consecutive duplicates grey. Options left on *preset* (or empty) use the preset's value."
)


def read(run) -> tuple[dict, dict]:
    """Both boxes as images: (kwargs, table columns)."""
    preds, refs, names = parsing.image_pairs(run.values["refs"], run.values["preds"], HINT)
    return {"predictions": preds, "references": refs}, {"image": names}


def picture(run) -> tuple:
    """The picture (its text alternative: what it draws, hits and misses per class) and the note under
    it, drawn with the options the metric resolved."""
    import gradio as gr

    args = (run.columns["image"], run.kwargs["predictions"], run.kwargs["references"], run.resolved())
    return gr.update(value=draw_images(*args), alt_text=picture_text(*args)), picture_note(*args, run.result)


def outputs(prefix: str) -> list:
    import gradio as gr

    return [gr.Image(label="boxes", show_label=False, type="pil", elem_id=f"{prefix}picture",
                     alt_text="the boxes of the images, drawn after Compute"),
            gr.Markdown("", elem_id=f"{prefix}picture_note")]  # fmt: skip


DEMO = MetricPage(det_f1, HERE / "det_f1.py", INTRO, read=read, outputs=outputs, extras=picture, table_label="per image",
                  boxes=[Box("refs", "references (ground truth)", parsing.one_key_per_line(REFS), lines=5, code=True),
                         Box("preds", "predictions", parsing.one_key_per_line(PREDS), lines=5, code=True)])  # fmt: skip
compute, build_ui = DEMO.compute, DEMO.build_ui
demo = DEMO.blocks("det_f1", "# det_f1: zero-shot detection F1 @ IoU", HERE / "README.md")

if __name__ == "__main__":
    demo.launch()
