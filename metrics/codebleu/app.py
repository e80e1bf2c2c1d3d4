"""Gradio demo of the `codebleu` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
The metric is loaded by script path through evaluate (never `import codebleu`, which would be the PyPI package).
"""

from pathlib import Path

import gradio as gr

from multimodal_metrics import codebleu
from multimodal_metrics.demo import (
    CODE_LINES,
    CONFIDENCE,
    ResultPanel,
    card_body,
    connect,
    follow_preset,
    load_metric,
    option_value,
    option_widget,
)

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "codebleu.py"
PRESETS = [p for p in codebleu.PRESETS if p != "k4black"]  # k4black: another name of pypi
LANGUAGES = [str(lang) for lang in codebleu.OPTIONS["lang"].choices]
# The language has no preset value (required): its own dropdown, first. The other widgets: the rows of the
# option table shown in the demo (weights; a text box, empty = the preset's).
OPTIONS = [o for o in codebleu.OPTIONS if o.demo and o.name != "lang"]
# gr.Code highlighting where gradio has a mode for the language
_HIGHLIGHT = {"python": "python", "javascript": "javascript", "c": "c", "cpp": "cpp", "java": "cpp", "c_sharp": "cpp",
              "go": "cpp", "rust": "cpp", "php": "cpp", "ruby": None}

EXAMPLE_PREDICTION = "def add(a, b):\n    return a + b\n"
EXAMPLE_REFERENCE = "def sum(first, second):\n    return second + first\n"


def compute(prediction: str, reference: str, lang: str, preset: str, *options):
    """Score one prediction against one reference: (result, table columns); an empty weights field
    uses the preset's weights."""
    chosen = {o.name: option_value(o, sent) for o, sent in zip(OPTIONS, options, strict=True)}
    result = load_metric(SCRIPT, preset).compute(
        predictions=[prediction or ""],
        references=[reference or ""],
        lang=lang,
        return_per_example=True,
        confidence=CONFIDENCE,
        **chosen,
    )
    return result, {"prediction": [prediction or ""], "reference": [reference or ""]}


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**CodeBLEU**: n-gram, keyword-weighted n-gram, AST-subtree and data-flow match between a generated "
        "snippet and a reference. Pick the language; the result shows the four components and the signature. "
        "Weights left empty are the preset's."
    )
    with gr.Row():
        with gr.Column():
            with gr.Row():
                prediction = gr.Code(
                    EXAMPLE_PREDICTION, language="python", lines=10, max_lines=CODE_LINES, label="prediction", elem_id=f"{api_prefix}preds"
                )
                reference = gr.Code(
                    EXAMPLE_REFERENCE, language="python", lines=10, max_lines=CODE_LINES, label="reference", elem_id=f"{api_prefix}refs"
                )
            with gr.Row():
                lang = gr.Dropdown(LANGUAGES, value="python", label="language", elem_id=f"{api_prefix}lang")
                preset = gr.Dropdown(PRESETS, value="default", label="preset", elem_id=f"{api_prefix}preset")
                widgets = [option_widget(o, f"{api_prefix}opt_{o.name}", codebleu.OPTIONS, "default") for o in OPTIONS]
            button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
        with gr.Column():
            panel = ResultPanel(api_prefix)
    connect(button, compute, [prediction, reference, lang, preset, *widgets], panel, f"{api_prefix}compute")

    def _highlight(name):
        return gr.update(language=_HIGHLIGHT.get(name)), gr.update(language=_HIGHLIGHT.get(name))

    follow_preset(preset, widgets, OPTIONS, codebleu.OPTIONS)
    lang.change(_highlight, inputs=lang, outputs=[prediction, reference], api_name=False)


with gr.Blocks(title="CodeBLEU") as demo:
    gr.Markdown("# CodeBLEU")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
