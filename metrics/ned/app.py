"""Gradio demo of the `ned` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space; the
demo itself is the library's text-pair demo (`multimodal_metrics.demo.TextPairDemo`) over `ned`'s options.
"""

from pathlib import Path

from multimodal_metrics import ned
from multimodal_metrics.demo import TextPairDemo

HERE = Path(__file__).resolve().parent
EXAMPLE_PREDICTIONS = "хоп\nabce\nHello\nＡＢＣ\n"
EXAMPLE_REFERENCES = "хор\nabcd | abce\nhello\nABC\n"

DEMO = TextPairDemo(
    ned,
    HERE / "ned.py",
    intro="**1 - NED**, string accuracy and CER for text recognition (an empty line is an empty string).",
    example_predictions=EXAMPLE_PREDICTIONS,
    example_references=EXAMPLE_REFERENCES,
)
compute, build_ui = DEMO.compute, DEMO.build_ui
demo = DEMO.blocks("1 - NED", "# 1 - NED: normalised edit distance for text recognition", HERE / "README.md")

if __name__ == "__main__":
    demo.launch()
