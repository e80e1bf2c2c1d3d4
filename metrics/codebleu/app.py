"""Gradio demo of the `codebleu` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space; the
page is the library's (`multimodal_metrics.demo.MetricPage`) over `codebleu`'s presets and options. The
metric is loaded by script path through evaluate (never `import codebleu`, which would be the PyPI package).
"""

from pathlib import Path

from multimodal_metrics import codebleu
from multimodal_metrics.demo import Box, MetricPage
from multimodal_metrics.demo.parsing import SEPARATOR_LINE, split_snippets

HERE = Path(__file__).resolve().parent
# Four pairs, so that the interval and the histogram say something (one pair: a point and one bar).
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
INTRO = (
    "**CodeBLEU**: n-gram, keyword-weighted n-gram, AST-subtree and data-flow match between a generated "
    "snippet and a reference. Pick the language; the result shows the four components and the signature. "
    "Weights left empty are the preset's. Several examples: separate the snippets in both boxes by a line "
    f"`{SEPARATOR_LINE}` (nothing else on the line), in the same order; code that itself holds that line: "
    'paste each box as a JSON list of strings, `["def f(): ...", "def g(): ..."]`.'
)


def read(run) -> tuple[dict, dict]:
    """The snippets of both boxes (in the same order): (kwargs, table columns)."""
    predictions, references = split_snippets(run.values["preds"]), split_snippets(run.values["refs"])
    return {"predictions": predictions, "references": references}, {
        "prediction": predictions,
        "reference": references,
    }


DEMO = MetricPage(codebleu, HERE / "codebleu.py", INTRO, read=read, boxes=[
    Box("preds", "predictions",
        f"{SEPARATOR_LINE}\n".join(p for p, _ in EXAMPLE_PAIRS), lines=10, code=True),
    Box("refs", "references (same order)", f"{SEPARATOR_LINE}\n".join(r for _, r in EXAMPLE_PAIRS), lines=10, code=True),
])  # fmt: skip
compute, build_ui = DEMO.compute, DEMO.build_ui
demo = DEMO.blocks("CodeBLEU", "# CodeBLEU", HERE / "README.md")

if __name__ == "__main__":
    demo.launch()
