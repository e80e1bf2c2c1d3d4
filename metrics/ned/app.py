"""Gradio demo of the `ned` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
"""

from pathlib import Path

import gradio as gr
from _mm_demo import card_body, load_metric, parse_alternatives, parse_items, safe_compute

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "ned.py"
PRESETS = ["default", "icdar2019", "empty_match"]

EXAMPLE_PREDICTIONS = "хоп\nabce\nHello\nＡＢＣ\n"
EXAMPLE_REFERENCES = "хор\nabcd | abce\nhello\nABC\n"

_BOOLS = {"": None, "yes": True, "no": False}


def compute(predictions: str, references: str, preset: str, case_fold: str, fullwidth: str, both_empty: str):
    """Score the transcriptions; empty option fields fall back to the preset's values."""
    metric = load_metric(SCRIPT, preset)
    return safe_compute(
        metric,
        predictions=parse_items(predictions, "predictions"),
        references=parse_alternatives(references, "references"),
        case_fold=case_fold or None,
        fullwidth_to_halfwidth=_BOOLS[fullwidth or ""],
        both_empty=None if both_empty in (None, "") else float(both_empty),
        return_per_example=True,
    )


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**1 - NED**, string accuracy and CER for text recognition. One text per line (an empty line is an "
        "empty string); a reference line may list accepted transcriptions separated by ` | ` (or paste JSON "
        "lists). Leave an option empty to use the preset's value."
    )
    with gr.Row():
        predictions = gr.Textbox(EXAMPLE_PREDICTIONS, lines=6, label="predictions", elem_id=f"{api_prefix}preds")
        references = gr.Textbox(EXAMPLE_REFERENCES, lines=6, label="references", elem_id=f"{api_prefix}refs")
    with gr.Row():
        preset = gr.Dropdown(PRESETS, value="default", label="preset")
        case_fold = gr.Dropdown(["", "none", "latin", "all"], value="", label="case_fold")
        fullwidth = gr.Dropdown(["", "yes", "no"], value="", label="fullwidth_to_halfwidth")
        both_empty = gr.Dropdown(["", "0", "1"], value="", label="both_empty")
    button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
    output = gr.JSON(label="result")
    button.click(
        compute,
        inputs=[predictions, references, preset, case_fold, fullwidth, both_empty],
        outputs=output,
        api_name=f"{api_prefix}compute",
    )


with gr.Blocks(title="1 - NED") as demo:
    gr.Markdown("# 1 - NED: normalised edit distance for text recognition")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
