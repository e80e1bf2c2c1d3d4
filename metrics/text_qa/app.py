"""Gradio demo of the `text_qa` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space; the
demo itself is the library's text-pair demo (`multimodal_metrics.demo.TextPairDemo`) over `text_qa`'s options.
"""

from pathlib import Path

from multimodal_metrics import text_qa
from multimodal_metrics.demo import TextPairDemo

HERE = Path(__file__).resolve().parent
EXAMPLE_PREDICTIONS = "На 0.3 секунды\nулица Авиаконструктора Сухого\nтри кота\nответ: b\nжёлтого\n"
EXAMPLE_REFERENCES = "на 0,3 секунды\nАвиаконструктора Сухого\n3 кота\na | b на лошади\nжелтый\n"

DEMO = TextPairDemo(
    text_qa,
    HERE / "text_qa.py",
    intro="**Text QA** (AIJ 2022 TextQA token F1 / MathQA exact match, Russian lemmatisation).",
    example_predictions=EXAMPLE_PREDICTIONS,
    example_references=EXAMPLE_REFERENCES,
)
compute, build_ui = DEMO.compute, DEMO.build_ui
demo = DEMO.blocks(
    "Text QA", "# Text QA: token F1 and exact match for Russian answers (AIJ 2022)", HERE / "README.md"
)

if __name__ == "__main__":
    demo.launch()
