"""Gradio demo of the `codebleu` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
The metric is loaded by script path through evaluate (never `import codebleu`, which would be the PyPI package).
"""

import json
import re
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
    page_blocks,
)

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "codebleu.py"
PRESETS = [p for p in codebleu.PRESETS if p != "k4black"]  # k4black: another name of pypi
LANGUAGES = [str(lang) for lang in codebleu.OPTIONS["lang"].choices]
# The language has no preset value (required): its own dropdown, first. The other widgets: the rows of the
# option table shown in the demo (weights; a text box, empty = the preset's).
OPTIONS = [o for o in codebleu.OPTIONS if o.demo and o.name != "lang"]
# Several examples in one box: snippets separated by a line `=== next example ===` (nothing else on it;
# code holds no such line, while `-----` underlines every numpydoc section); code that does holds it
# goes in as a JSON list of strings. The pre-filled example has four pairs, so that its interval and
# histogram say something (one pair gives a point interval and a single bar).
SEPARATOR_LINE = "=== next example ==="
SEPARATOR = re.compile(r"^[ \t]*=== next example ===[ \t]*(?:\r?\n|\Z)", re.M)
EXAMPLE_PAIRS = [
    ("def add(a, b):\n    return a + b\n", "def sum(first, second):\n    return second + first\n"),
    ("def is_even(n):\n    return n % 2 == 0\n", "def even(x):\n    return x % 2 == 0\n"),
    (
        "def maximum(xs):\n    best = xs[0]\n    for x in xs:\n        if x > best:\n            best = x\n    return best\n",
        "def largest(values):\n    result = values[0]\n    for v in values[1:]:\n        if v > result:\n"
        "            result = v\n    return result\n",
    ),
    ('def greet(name):\n    print("Hello " + name)\n', 'def greet(name):\n    return f"Hello, {name}!"\n'),
]
EXAMPLE_PREDICTION = f"{SEPARATOR_LINE}\n".join(p for p, _ in EXAMPLE_PAIRS)
EXAMPLE_REFERENCE = f"{SEPARATOR_LINE}\n".join(r for _, r in EXAMPLE_PAIRS)


def split_snippets(text: str, arg: str) -> list[str]:
    """The snippets of a box: a JSON list of strings (code that holds the separator line), else one
    snippet, or several separated by `=== next example ===` lines (see SEPARATOR)."""
    text = text or ""
    if text.lstrip().startswith("["):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None  # code that starts with "[": one snippet
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return value
    return SEPARATOR.split(text)


def compute(prediction: str, reference: str, lang: str, preset: str, *options):
    """Score the predictions against the references (one snippet each, several separated by
    `=== next example ===` lines, or JSON lists of strings; in the same order): (result, table columns);
    an empty weights field uses the preset's weights."""
    chosen = {o.name: option_value(o, sent) for o, sent in zip(OPTIONS, options, strict=True)}
    predictions, references = (
        split_snippets(prediction, "predictions"),
        split_snippets(reference, "references"),
    )
    result = load_metric(SCRIPT, preset).compute(
        predictions=predictions,
        references=references,
        lang=lang,
        return_per_example=True,
        confidence=CONFIDENCE,
        **chosen,
    )
    return result, {"prediction": predictions, "reference": references}


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**CodeBLEU**: n-gram, keyword-weighted n-gram, AST-subtree and data-flow match between a generated "
        "snippet and a reference. Pick the language; the result shows the four components and the signature. "
        "Weights left empty are the preset's. Several examples: separate the snippets in both boxes by a line "
        f"`{SEPARATOR_LINE}` (nothing else on the line), in the same order; code that itself holds that line: "
        'paste each box as a JSON list of strings, `["def f(): ...", "def g(): ..."]`.'
    )
    with gr.Row():
        with gr.Column():
            with gr.Row():
                # text boxes, not code editors: Tab moves on (an editor kept the focus and indented the code)
                prediction = gr.Textbox(
                    EXAMPLE_PREDICTION, lines=10, max_lines=CODE_LINES, label=f"predictions (snippets separated by {SEPARATOR_LINE} lines)",
                    elem_id=f"{api_prefix}preds", elem_classes="mm-lines mm-code",
                )  # fmt: skip
                reference = gr.Textbox(
                    EXAMPLE_REFERENCE, lines=10, max_lines=CODE_LINES, label="references (same order)",
                    elem_id=f"{api_prefix}refs", elem_classes="mm-lines mm-code",
                )  # fmt: skip
            with gr.Row():
                lang = gr.Dropdown(LANGUAGES, value="python", label="language", elem_id=f"{api_prefix}lang")
                preset = gr.Dropdown(PRESETS, value="default", label="preset", elem_id=f"{api_prefix}preset")
                widgets = [
                    option_widget(o, f"{api_prefix}opt_{o.name}", codebleu.OPTIONS, "default")
                    for o in OPTIONS
                ]
            button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
        with gr.Column():
            panel = ResultPanel(api_prefix)
    connect(button, compute, [prediction, reference, lang, preset, *widgets], panel, f"{api_prefix}compute")
    follow_preset(preset, widgets, OPTIONS, codebleu.OPTIONS)


with page_blocks("CodeBLEU") as demo:
    gr.Markdown("# CodeBLEU")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
