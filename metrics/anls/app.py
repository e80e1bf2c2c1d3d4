"""Gradio demo of the `anls` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space; the
demo itself is the library's text-pair demo (`multimodal_metrics.demo.TextPairDemo`) over `anls`'s options.
"""

from pathlib import Path

from multimodal_metrics import anls
from multimodal_metrics.demo import TextPairDemo

HERE = Path(__file__).resolve().parent
EXAMPLE_PREDICTIONS = "hello world\nreciept\nac\n12.0\n new york "
EXAMPLE_REFERENCES = "Hello World\nreceipt\nab\n$12.00 | 12\nnew  york"

DEMO = TextPairDemo(
    anls,
    HERE / "anls.py",
    intro="**ANLS** for DocVQA-style answers.",
    example_predictions=EXAMPLE_PREDICTIONS,
    example_references=EXAMPLE_REFERENCES,
)
compute, build_ui = DEMO.compute, DEMO.build_ui
demo = DEMO.blocks("ANLS", "# ANLS: Average Normalized Levenshtein Similarity", HERE / "README.md")

if __name__ == "__main__":
    demo.launch()
