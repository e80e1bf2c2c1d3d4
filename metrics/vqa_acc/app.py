"""Gradio demo of the `vqa_acc` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

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
    option_number,
    parse_alternatives,
    parse_items,
)

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "vqa_acc.py"
PRESETS = ["default", "vqa_v2", "fusion_brain_2021", "tdiuc", "wups", "bleu1"]

# Pre-filled inputs per preset: predictions, references, per-question types / languages.
EXAMPLES = {
    "default": (
        "2\nred\ntwo\nA dog.",
        "two | two | two | 2 | 2 | 2 | three | three | three | three\n"
        "red | blue | blue | blue | blue | blue | blue | blue | blue | blue\n"
        "2 | 2 | 2 | 2 | 2 | 2 | 2 | 2 | 2 | 2\n"
        "dog | dog | dog | dog | dog | a dog | a dog | a dog | a dog | a dog",
        "how many\nwhat color is the\nhow many\nwhat animal is",
        "number\nother\nnumber\nother",
    ),
    "fusion_brain_2021": ("Two.\nA dog!\nКошки\nтри", "2\ndog\nкошка\n3", "", "en\nen\nru\nru"),
    "tdiuc": ("red\nred\nred\nred\n2\n2", "red\nred\nred\nblue\n2\n3", "color\ncolor\ncolor\ncolor\ncounting\ncounting", ""),
    "wups": ("cat\ntable, chair\ncouch", "dog\nchair,table\nsofa", "", ""),
    "bleu1": ("dog\na dog\ndog", "dog\ndog\nblack dog | dog", "", ""),
}
EXAMPLES["vqa_v2"] = EXAMPLES["default"]


def _column(text: str, arg: str):
    items = parse_items(text, arg)
    return items if items else None


def compute(
    predictions: str,
    references: str,
    preset: str,
    types_a: str,
    types_b: str,
    normalize: str,
    num_answers: str,
    threshold: str,
    lowercase: str,
):
    """Score the answers: (result, table columns). Options left on "preset" / empty use the preset's
    values; the per-question columns are read only by the presets that use them."""
    preds = parse_items(predictions, "predictions")
    refs = parse_alternatives(references, "references")
    columns = {"prediction": preds, "references": refs}
    kwargs = {}
    if preset in ("default", "vqa_v2"):
        kwargs = {"question_types": _column(types_a, "question_types"), "answer_types": _column(types_b, "answer_types")}
        kwargs["normalize"] = chosen(normalize)
    elif preset == "tdiuc":
        kwargs = {"question_types": _column(types_a, "question_types")}
    elif preset == "fusion_brain_2021":
        kwargs = {"languages": _column(types_b, "languages")}
    elif preset == "wups":
        kwargs = {"threshold": chosen_number(threshold, "threshold")}
    elif preset == "bleu1":
        kwargs = {"lowercase": chosen_bool(lowercase, "lowercase")}
    for key in ("question_types", "answer_types", "languages"):
        if kwargs.get(key):
            columns[key] = kwargs[key]
    result = load_metric(SCRIPT, preset).compute(
        predictions=preds,
        references=refs,
        num_answers=chosen_number(num_answers, "num_answers", integer=True),
        return_per_example=True,
        confidence=CONFIDENCE,
        **{k: v for k, v in kwargs.items() if v is not None},
    )
    return result, columns


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**VQA accuracy** (VQA v2 official, Fusion Brain 2021, TDIUC, WUPS, BLEU-1). One answer per line; a "
        "reference line lists the annotator / accepted answers separated by ` | ` (or paste JSON lists). "
        "Per-question columns (types, languages) are one value per line. Options left on *preset* (or "
        "empty) use the preset's value; picking a preset loads its example."
    )
    first = EXAMPLES["default"]
    with gr.Row():
        with gr.Column():
            with gr.Row():
                preset = gr.Dropdown(PRESETS, value="default", label="preset", elem_id=f"{api_prefix}preset")
                normalize = option_choice(
                    "normalize (vqa_v2)", ["official", "always", "never"], elem_id=f"{api_prefix}opt_normalize"
                )
                num_answers = option_number("num_answers (0 = any)", elem_id=f"{api_prefix}opt_num_answers")
                threshold = option_number("threshold (wups; -1 = set accuracy)", elem_id=f"{api_prefix}opt_threshold")
                lowercase = option_choice("lowercase (bleu1)", ["yes", "no"], elem_id=f"{api_prefix}opt_lowercase")
            with gr.Row():
                predictions = gr.Textbox(first[0], lines=6, label="predictions", elem_id=f"{api_prefix}preds")
                references = gr.Textbox(first[1], lines=6, label="references", elem_id=f"{api_prefix}refs")
            with gr.Row():
                types_a = gr.Textbox(first[2], lines=4, label="question_types (vqa_v2, tdiuc)", elem_id=f"{api_prefix}types_a")
                types_b = gr.Textbox(
                    first[3],
                    lines=4,
                    label="answer_types (vqa_v2) / languages (fusion_brain_2021)",
                    elem_id=f"{api_prefix}types_b",
                )
            button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
        with gr.Column():
            panel = ResultPanel(api_prefix)
    preset.change(
        lambda p: EXAMPLES[p],
        inputs=preset,
        outputs=[predictions, references, types_a, types_b],
        api_name=f"{api_prefix}example",
    )
    connect(
        button,
        compute,
        [predictions, references, preset, types_a, types_b, normalize, num_answers, threshold, lowercase],
        panel,
        f"{api_prefix}compute",
    )


with gr.Blocks(title="VQA accuracy") as demo:
    gr.Markdown("# VQA accuracy: VQA v2, Fusion Brain 2021, TDIUC, WUPS, BLEU-1")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
