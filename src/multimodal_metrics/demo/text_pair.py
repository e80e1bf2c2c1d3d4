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
