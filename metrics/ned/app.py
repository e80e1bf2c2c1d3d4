"""Gradio demo of the `ned` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

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
    chosen_number,
    connect,
    load_metric,
    option_choice,
    parse_alternatives,
    parse_items,
)

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "ned.py"
PRESETS = ["default", "icdar2019", "empty_match"]

EXAMPLE_PREDICTIONS = "хоп\nabce\nHello\nＡＢＣ\n"
EXAMPLE_REFERENCES = "хор\nabcd | abce\nhello\nABC\n"


def compute(predictions: str, references: str, preset: str, case_fold: str, fullwidth: str, both_empty: str):
    """Score the transcriptions: (result, table columns). Options left on "preset" use the preset's values."""
    preds = parse_items(predictions, "predictions")
    refs = parse_alternatives(references, "references")
    result = load_metric(SCRIPT, preset).compute(
        predictions=preds,
        references=refs,
        case_fold=chosen(case_fold),
        fullwidth_to_halfwidth=chosen_bool(fullwidth, "fullwidth_to_halfwidth"),
        both_empty=chosen_number(both_empty, "both_empty"),
        return_per_example=True,
        confidence=CONFIDENCE,
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
                case_fold = option_choice("case_fold", ["none", "latin", "all"], elem_id=f"{api_prefix}opt_case_fold")
                fullwidth = option_choice("fullwidth_to_halfwidth", ["yes", "no"], elem_id=f"{api_prefix}opt_fullwidth")
                both_empty = option_choice("both_empty", ["0", "1"], elem_id=f"{api_prefix}opt_both_empty")
            button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
        with gr.Column():
            panel = ResultPanel(api_prefix)
    connect(
        button, compute, [predictions, references, preset, case_fold, fullwidth, both_empty], panel, f"{api_prefix}compute"
    )


with gr.Blocks(title="1 - NED") as demo:
    gr.Markdown("# 1 - NED: normalised edit distance for text recognition")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
