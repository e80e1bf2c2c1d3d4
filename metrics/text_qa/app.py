"""Gradio demo of the `text_qa` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
"""

from pathlib import Path

import gradio as gr
from _mm_demo import (
    CONFIDENCE,
    ResultPanel,
    card_body,
    chosen,
    chosen_bool,
    connect,
    load_metric,
    option_choice,
    parse_alternatives,
    parse_items,
)

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "text_qa.py"
PRESETS = ["default", "textqa", "mathqa", "plain"]

EXAMPLE_PREDICTIONS = "На 0.3 секунды\nулица Авиаконструктора Сухого\nтри кота\nответ: b\nжёлтого\n"
EXAMPLE_REFERENCES = "на 0,3 секунды\nАвиаконструктора Сухого\n3 кота\na | b на лошади\nжелтый\n"


def compute(predictions: str, references: str, preset: str, measure: str, keep_hyphen: str, letter_fallback: str):
    """Score the answers: (result, table columns). Options left on "preset" use the preset's values."""
    preds = parse_items(predictions, "predictions")
    refs = parse_alternatives(references, "references")
    result = load_metric(SCRIPT, preset).compute(
        predictions=preds,
        references=refs,
        measure=chosen(measure),
        keep_hyphen=chosen_bool(keep_hyphen, "keep_hyphen"),
        letter_fallback=chosen_bool(letter_fallback, "letter_fallback"),
        return_per_example=True,
        confidence=CONFIDENCE,
    )
    return result, {"prediction": preds, "references": refs}


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**Text QA** (AIJ 2022 TextQA token F1 / MathQA exact match, Russian lemmatisation). One answer per "
        "line; a reference line may list accepted answers separated by ` | ` (or paste JSON lists). Options "
        "left on *preset* use the preset's value."
    )
    with gr.Row():
        with gr.Column():
            with gr.Row():
                predictions = gr.Textbox(EXAMPLE_PREDICTIONS, lines=6, label="predictions", elem_id=f"{api_prefix}preds")
                references = gr.Textbox(EXAMPLE_REFERENCES, lines=6, label="references", elem_id=f"{api_prefix}refs")
            with gr.Row():
                preset = gr.Dropdown(PRESETS, value="default", label="preset", elem_id=f"{api_prefix}preset")
                measure = option_choice("measure", ["f1", "exact_match"], elem_id=f"{api_prefix}opt_measure")
                keep_hyphen = option_choice("keep_hyphen", ["yes", "no"], elem_id=f"{api_prefix}opt_keep_hyphen")
                letter_fallback = option_choice(
                    "letter_fallback", ["yes", "no"], elem_id=f"{api_prefix}opt_letter_fallback"
                )
            button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
        with gr.Column():
            panel = ResultPanel(api_prefix)
    connect(
        button,
        compute,
        [predictions, references, preset, measure, keep_hyphen, letter_fallback],
        panel,
        f"{api_prefix}compute",
    )


with gr.Blocks(title="Text QA") as demo:
    gr.Markdown("# Text QA: token F1 and exact match for Russian answers (AIJ 2022)")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
