"""The page of a text-pair metric (anls, ned, text_qa): predictions and references side by side, one
example per line, a reference line listing accepted answers separated by ' | '."""

from pathlib import Path

from .metric_page import Box, MetricPage
from .parsing import parse_alternatives, parse_items

PAIR_HELP = (
    " One example per line; a reference line may list accepted answers separated by "
    "` | ` (space, bar, space; a bar without spaces is part of the answer, and the page says so), or "
    "paste JSON lists. Options left on *preset* (or empty) use the preset's value."
)


def read_pair(run) -> tuple[dict, dict]:
    """The `predictions` box (one per line) and the `references` box (alternatives split): (kwargs, columns)."""
    preds = parse_items(run.values["preds"], "predictions")
    refs = parse_alternatives(run.values["refs"], "references")
    return {"predictions": preds, "references": refs}, {"prediction": preds, "references": refs}


class TextPairDemo(MetricPage):
    """The demo of a text-pair metric: two boxes (predictions; one or more references per example), the
    preset, a widget per option of ``library.OPTIONS``, Compute, the result panel. ``compute`` is the API
    endpoint (predictions, references, preset, the options in table order)."""

    def __init__(self, library, script: Path, intro: str, example_predictions: str, example_references: str):
        boxes = [
            Box("preds", "predictions", example_predictions),
            Box("refs", "references", example_references),
        ]
        super().__init__(
            library, script, intro + PAIR_HELP, boxes=boxes, read=read_pair, shown=len(library.OPTIONS.names)
        )


# Each text-pair page: (the browser tab's title, the page's heading, the example predictions, the example
# references: one example a line, accepted answers separated by ' | ').
TEXT_PAIR_PAGES = {
    "anls": (
        "ANLS",
        "# ANLS: Average Normalized Levenshtein Similarity",
        "hello world\nreciept\nac\n12.0\n new york ",
        "Hello World\nreceipt\nab\n$12.00 | 12\nnew  york",
    ),
    "ned": (
        "1 - NED",
        "# 1 - NED: normalised edit distance for text recognition",
        "хоп\nabce\nHello\nＡＢＣ\n",
        "хор\nabcd | abce\nhello\nABC\n",
    ),
    "text_qa": (
        "Text QA",
        "# Text QA: token F1 and exact match for Russian answers (AIJ 2022)",
        "На 0.3 секунды\nулица Авиаконструктора Сухого\nтри кота\nответ: b\nжёлтого\n",
        "на 0,3 секунды\nАвиаконструктора Сухого\n3 кота\na | b на лошади\nжелтый\n",
    ),
}


def text_pair_app(name: str, app_file: str, intro: str) -> tuple:
    """What the app.py of the text-pair metric ``name`` (a key of ``TEXT_PAIR_PAGES``) exports, from its
    ``__file__`` (the metric script ``<name>.py`` and the card README.md lie beside it) and the page's first
    sentence ``intro``: (the ``TextPairDemo``, its ``compute``, its ``build_ui``, the Space's gr.Blocks)."""
    import importlib

    here = Path(app_file).resolve().parent
    title, heading, example_predictions, example_references = TEXT_PAIR_PAGES[name]
    library = importlib.import_module(f"multimodal_metrics.{name}")
    page = TextPairDemo(library, here / f"{name}.py", intro, example_predictions, example_references)
    return page, page.compute, page.build_ui, page.blocks(title, heading, here / "README.md")
