"""Gradio demo of the `ned` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
"""

from pathlib import Path

import gradio as gr

from multimodal_metrics import ned
from multimodal_metrics.demo import (
    CONFIDENCE,
    ResultPanel,
    card_body,
    connect,
    load_metric,
    option_value,
    option_widget,
    parse_alternatives,
    parse_items,
)

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "ned.py"
PRESETS = list(ned.PRESETS)
OPTIONS = list(ned.OPTIONS)  # one widget per row of the library's option table

EXAMPLE_PREDICTIONS = "хоп\nabce\nHello\nＡＢＣ\n"
EXAMPLE_REFERENCES = "хор\nabcd | abce\nhello\nABC\n"


def compute(predictions: str, references: str, preset: str, *options):
    """Score the transcriptions: (result, table columns). Options left on "preset" use the preset's values."""
    preds = parse_items(predictions, "predictions")
    refs = parse_alternatives(references, "references")
    chosen = {o.name: option_value(o, sent) for o, sent in zip(OPTIONS, options, strict=True)}
    result = load_metric(SCRIPT, preset).compute(
        predictions=preds, references=refs, return_per_example=True, confidence=CONFIDENCE, **chosen
    )
    return result, {"prediction": preds, "references": refs}


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**1 - NED**, string accuracy and CER for text recognition. One text per line (an empty line is an "
        "empty string); a reference line may list accepted transcriptions separated by ` | ` (or paste JSON "
        "lists). Options left on *preset* use the preset's value."
    )
    with gr.Row():
        with gr.Column():
            with gr.Row():
                predictions = gr.Textbox(EXAMPLE_PREDICTIONS, lines=6, label="predictions", elem_id=f"{api_prefix}preds")
                references = gr.Textbox(EXAMPLE_REFERENCES, lines=6, label="references", elem_id=f"{api_prefix}refs")
            with gr.Row():
                preset = gr.Dropdown(PRESETS, value="default", label="preset", elem_id=f"{api_prefix}preset")
                widgets = [option_widget(o, elem_id=f"{api_prefix}opt_{o.name}") for o in OPTIONS]
            button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
        with gr.Column():
            panel = ResultPanel(api_prefix)
    connect(button, compute, [predictions, references, preset, *widgets], panel, f"{api_prefix}compute")


with gr.Blocks(title="1 - NED") as demo:
    gr.Markdown("# 1 - NED: normalised edit distance for text recognition")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
