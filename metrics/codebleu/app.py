"""Gradio demo of the `codebleu` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
The metric is loaded by script path through evaluate (never `import codebleu`, which would be the PyPI package).
"""

from pathlib import Path

import gradio as gr
from _mm_demo import CONFIDENCE, ResultPanel, card_body, connect, load_metric

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "codebleu.py"
PRESETS = ["default", "paper", "pypi", "fusion_brain_2021"]
LANGUAGES = ["python", "java", "javascript", "c_sharp", "php", "c", "cpp", "go", "ruby", "rust"]
# gr.Code highlighting where gradio has a mode for the language
_HIGHLIGHT = {"python": "python", "javascript": "javascript", "c": "c", "cpp": "cpp", "java": "cpp", "c_sharp": "cpp",
              "go": "cpp", "rust": "cpp", "php": "cpp", "ruby": None}

EXAMPLE_PREDICTION = "def add(a, b):\n    return a + b\n"
EXAMPLE_REFERENCE = "def sum(first, second):\n    return second + first\n"


def _weights(text: str):
    text = (text or "").strip()
    if not text:
        return None
    try:
        return [float(x) for x in text.replace(" ", "").split(",")]
    except ValueError:
        raise ValueError("`weights` must be 4 comma-separated numbers, e.g. 0.25,0.25,0.25,0.25") from None


def compute(prediction: str, reference: str, lang: str, preset: str, weights: str):
    """Score one prediction against one reference: (result, table columns); an empty weights field
    uses the preset's weights."""
    result = load_metric(SCRIPT, preset).compute(
        predictions=[prediction or ""],
        references=[reference or ""],
        lang=lang,
        weights=_weights(weights),
        return_per_example=True,
        confidence=CONFIDENCE,
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
                    EXAMPLE_PREDICTION, language="python", lines=10, label="prediction", elem_id=f"{api_prefix}preds"
                )
                reference = gr.Code(
                    EXAMPLE_REFERENCE, language="python", lines=10, label="reference", elem_id=f"{api_prefix}refs"
                )
            with gr.Row():
                lang = gr.Dropdown(LANGUAGES, value="python", label="language", elem_id=f"{api_prefix}lang")
                preset = gr.Dropdown(PRESETS, value="default", label="preset", elem_id=f"{api_prefix}preset")
                weights = gr.Textbox(
                    "",
                    label="weights",
                    placeholder="empty = preset, e.g. 0.25,0.25,0.25,0.25",
                    elem_id=f"{api_prefix}opt_weights",
                )
            button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
        with gr.Column():
            panel = ResultPanel(api_prefix)
    connect(button, compute, [prediction, reference, lang, preset, weights], panel, f"{api_prefix}compute")

    def _highlight(name):
        return gr.update(language=_HIGHLIGHT.get(name)), gr.update(language=_HIGHLIGHT.get(name))

    lang.change(_highlight, inputs=lang, outputs=[prediction, reference], api_name=False)


with gr.Blocks(title="CodeBLEU") as demo:
    gr.Markdown("# CodeBLEU")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
