"""Gradio demo of the `vqa_acc` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
"""

from pathlib import Path

import gradio as gr

from multimodal_metrics import vqa_acc
from multimodal_metrics.demo import (
    CONFIDENCE,
    TEXT_LINES,
    ResultPanel,
    card_body,
    connect,
    follow_preset,
    load_metric,
    option_value,
    option_widget,
    page_blocks,
    parse_alternatives,
    parse_items,
)

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "vqa_acc.py"
PRESETS = list(vqa_acc.PRESETS)
# One widget per row of the library's option table that the demo shows (the API's order; epsilon,
# answer_key and wordnet_path keep their preset values here).
OPTIONS = [vqa_acc.OPTIONS[name] for name in ("normalize", "num_answers", "threshold", "lowercase")]

# Pre-filled inputs per scoring procedure: predictions, references, per-question types / languages.
_BY_SCORER = {
    "vqa_v2": (
        "2\nred\ntwo\nA dog.",
        "two | two | two | 2 | 2 | 2 | three | three | three | three\n"
        "red | blue | blue | blue | blue | blue | blue | blue | blue | blue\n"
        "2 | 2 | 2 | 2 | 2 | 2 | 2 | 2 | 2 | 2\n"
        "dog | dog | dog | dog | dog | a dog | a dog | a dog | a dog | a dog",
        "how many\nwhat color is the\nhow many\nwhat animal is",
        "number\nother\nnumber\nother",
    ),
    "fusion_brain_2021": ("Two.\nA dog!\nКошки\nтри", "2\ndog\nкошка\n3", "", "en\nen\nru\nru"),
    "tdiuc": (
        "red\nred\nred\nred\n2\n2",
        "red\nred\nred\nblue\n2\n3",
        "color\ncolor\ncolor\ncolor\ncounting\ncounting",
        "",
    ),
    "wups": ("cat\ntable, chair\ncouch", "dog\nchair,table\nsofa", "", ""),
    "bleu1": ("dog\na dog\ndog", "dog\ndog\nblack dog | dog", "", ""),
}
# every preset's example: the one of its scoring procedure (the harness presets score vqa_v2's inputs)
EXAMPLES = {preset: _BY_SCORER[vqa_acc.SCORERS[preset]] for preset in PRESETS}


def example_of(preset: str) -> tuple:
    """The preset's example (predictions, references, the two per-question columns)."""
    if preset not in EXAMPLES:
        raise ValueError(f"`preset` must be one of {', '.join(PRESETS)}, got {preset!r}")
    return EXAMPLES[preset]


def _column(text: str, arg: str):
    items = parse_items(text, arg)
    return items if items else None


def compute(predictions: str, references: str, preset: str, types_a: str, types_b: str, *options):
    """Score the answers: (result, table columns). Options left on "preset" / empty use the preset's
    values; a per-question column that the preset does not use is not read."""
    preds = parse_items(predictions, "predictions")
    refs = parse_alternatives(references, "references")
    columns = {"prediction": preds, "references": refs}
    texts = {"question_types": types_a, "answer_types": types_b, "languages": types_b}
    kwargs = {name: _column(texts[name], name) for name in vqa_acc.extra_inputs(preset)}
    # every option set is passed: the page disables the ones the preset does not use, and the library
    # refuses them from an API client, naming the preset that takes them
    kwargs.update({o.name: option_value(o, sent) for o, sent in zip(OPTIONS, options, strict=True)})
    for key in ("question_types", "answer_types", "languages"):
        if kwargs.get(key):
            columns[key] = kwargs[key]
    result = load_metric(SCRIPT, preset).compute(
        predictions=preds,
        references=refs,
        return_per_example=True,
        confidence=CONFIDENCE,
        **{k: v for k, v in kwargs.items() if v is not None},
    )
    return result, columns


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**VQA accuracy** (VQA v2 official, Fusion Brain 2021, TDIUC, WUPS, BLEU-1). One answer per line; a "
        "reference line lists the annotator / accepted answers separated by ` | ` (space, bar, space; a bar "
        "without spaces is part of the answer, and the page says so), or paste JSON lists. "
        "Per-question columns (types, languages) are one value per line. Options left on *preset* (or "
        "empty) use the preset's value. Picking a preset never touches the inputs: *load the preset's example* "
        "replaces them by the preset's example."
    )
    first = EXAMPLES["default"]
    with gr.Row():
        with gr.Column():
            with gr.Row():
                preset = gr.Dropdown(PRESETS, value="default", label="preset", elem_id=f"{api_prefix}preset")
                widgets = [
                    option_widget(o, f"{api_prefix}opt_{o.name}", vqa_acc.OPTIONS, "default") for o in OPTIONS
                ]
            with gr.Row():
                predictions = gr.Textbox(
                    first[0],
                    lines=6,
                    max_lines=TEXT_LINES,
                    label="predictions",
                    elem_id=f"{api_prefix}preds",
                    elem_classes="mm-lines",
                )
                references = gr.Textbox(
                    first[1],
                    lines=6,
                    max_lines=TEXT_LINES,
                    label="references",
                    elem_id=f"{api_prefix}refs",
                    elem_classes="mm-lines",
                )
            with gr.Row():
                types_a = gr.Textbox(
                    first[2],
                    lines=4,
                    max_lines=TEXT_LINES,
                    label="question_types (vqa_v2, tdiuc)",
                    elem_id=f"{api_prefix}types_a",
                    elem_classes="mm-lines",
                )
                types_b = gr.Textbox(
                    first[3],
                    lines=4,
                    max_lines=TEXT_LINES,
                    label="answer_types (vqa_v2) / languages (fusion_brain_2021)",
                    elem_id=f"{api_prefix}types_b",
                    elem_classes="mm-lines",
                )
            with gr.Row():
                load = gr.Button("load the preset's example", elem_id=f"{api_prefix}load_example")
                button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
        with gr.Column():
            panel = ResultPanel(api_prefix)
    # an explicit action: choosing a preset leaves what was typed alone
    load.click(
        example_of,
        inputs=preset,
        outputs=[predictions, references, types_a, types_b],
        api_name=f"{api_prefix}example",
    )
    follow_preset(preset, widgets, OPTIONS, vqa_acc.OPTIONS)
    connect(
        button,
        compute,
        [predictions, references, preset, types_a, types_b, *widgets],
        panel,
        f"{api_prefix}compute",
    )


with page_blocks("VQA accuracy") as demo:
    gr.Markdown("# VQA accuracy: VQA v2, Fusion Brain 2021, TDIUC, WUPS, BLEU-1")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
