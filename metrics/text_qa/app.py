"""Gradio demo of the `text_qa` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
"""

from pathlib import Path

import gradio as gr
from _mm_demo import card_body, load_metric, parse_alternatives, parse_items, safe_compute

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "text_qa.py"
PRESETS = ["default", "textqa", "mathqa", "plain"]

EXAMPLE_PREDICTIONS = "На 0.3 секунды\nулица Авиаконструктора Сухого\nтри кота\nответ: b\nжёлтого\n"
EXAMPLE_REFERENCES = "на 0,3 секунды\nАвиаконструктора Сухого\n3 кота\na | b на лошади\nжелтый\n"

_BOOLS = {"": None, "yes": True, "no": False}


def compute(predictions: str, references: str, preset: str, measure: str, keep_hyphen: str, letter_fallback: str):
    """Score the answers; empty option fields fall back to the preset's values."""
    metric = load_metric(SCRIPT, preset)
    return safe_compute(
        metric,
        predictions=parse_items(predictions, "predictions"),
        references=parse_alternatives(references, "references"),
        measure=measure or None,
        keep_hyphen=_BOOLS[keep_hyphen or ""],
        letter_fallback=_BOOLS[letter_fallback or ""],
        return_per_example=True,
    )


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**Text QA** (AIJ 2022 TextQA token F1 / MathQA exact match, Russian lemmatisation). One answer per "
        "line; a reference line may list accepted answers separated by ` | ` (or paste JSON lists). Leave an "
        "option empty to use the preset's value."
    )
    with gr.Row():
        predictions = gr.Textbox(EXAMPLE_PREDICTIONS, lines=6, label="predictions", elem_id=f"{api_prefix}preds")
        references = gr.Textbox(EXAMPLE_REFERENCES, lines=6, label="references", elem_id=f"{api_prefix}refs")
    with gr.Row():
        preset = gr.Dropdown(PRESETS, value="default", label="preset")
        measure = gr.Dropdown(["", "f1", "exact_match"], value="", label="measure")
        keep_hyphen = gr.Dropdown(["", "yes", "no"], value="", label="keep_hyphen")
        letter_fallback = gr.Dropdown(["", "yes", "no"], value="", label="letter_fallback")
    button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
    output = gr.JSON(label="result")
    button.click(
        compute,
        inputs=[predictions, references, preset, measure, keep_hyphen, letter_fallback],
        outputs=output,
        api_name=f"{api_prefix}compute",
    )


with gr.Blocks(title="Text QA") as demo:
    gr.Markdown("# Text QA: token F1 and exact match for Russian answers (AIJ 2022)")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
