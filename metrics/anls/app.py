"""Gradio demo of the `anls` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
"""

from pathlib import Path

import gradio as gr
from _mm_demo import card_body, load_metric, parse_alternatives, parse_items, safe_compute

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "anls.py"
PRESETS = ["default", "stvqa", "layoutlmv2"]

EXAMPLE_PREDICTIONS = "hello world\nreciept\nac\n12.0\n new york "
EXAMPLE_REFERENCES = "Hello World\nreceipt\nab\n$12.00 | 12\nnew  york"


def compute(predictions: str, references: str, preset: str, threshold, boundary: str, text_norm: str, length_norm: str):
    """Score the answers; empty option fields fall back to the preset's values."""
    metric = load_metric(SCRIPT, preset)
    result = safe_compute(
        metric,
        predictions=parse_items(predictions, "predictions"),
        references=parse_alternatives(references, "references"),
        threshold=None if threshold in (None, "") else float(threshold),
        boundary=boundary or None,
        text_norm=text_norm or None,
        length_norm=length_norm or None,
        return_per_example=True,
    )
    return result


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**ANLS** for DocVQA-style answers. One answer per line; a reference line may list accepted "
        "answers separated by ` | ` (or paste JSON lists). Leave an option on *preset* to use the preset's value."
    )
    with gr.Row():
        predictions = gr.Textbox(EXAMPLE_PREDICTIONS, lines=6, label="predictions", elem_id=f"{api_prefix}preds")
        references = gr.Textbox(EXAMPLE_REFERENCES, lines=6, label="references", elem_id=f"{api_prefix}refs")
    with gr.Row():
        preset = gr.Dropdown(PRESETS, value="default", label="preset")
        threshold = gr.Number(None, label="threshold (empty = preset)", minimum=0, maximum=1)
        boundary = gr.Dropdown(["", "inclusive", "strict"], value="", label="boundary")
        text_norm = gr.Dropdown(["", "ws+lower", "lower", "none"], value="", label="text_norm")
        length_norm = gr.Dropdown(["", "raw_upper", "normalized_upper", "raw"], value="", label="length_norm")
    button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
    output = gr.JSON(label="result")
    button.click(
        compute,
        inputs=[predictions, references, preset, threshold, boundary, text_norm, length_norm],
        outputs=output,
        api_name=f"{api_prefix}compute",
    )


with gr.Blocks(title="ANLS") as demo:
    gr.Markdown("# ANLS: Average Normalized Levenshtein Similarity")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
