"""Gradio demo of the `ru_meteor` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space; the
page is the library's (`multimodal_metrics.demo.MetricPage`) over `ru_meteor`'s presets and options.
Besides the scores it shows, for one chosen example, the best reference and the aligned words coloured by
the stage that aligned them (exact / stem / synonym / numeric: `multimodal_metrics.demo.alignment`).
"""

from pathlib import Path

from multimodal_metrics import ru_meteor
from multimodal_metrics.demo import Box, MetricPage, alignment
from multimodal_metrics.demo.text_pair import read_pair

HERE = Path(__file__).resolve().parent
EXAMPLE_PREDICTIONS = "две птицы летали над водою\nнад водой летают две птицы\nкошка спит на диване"
EXAMPLE_REFERENCES = (
    "две птицы летают над водой | птицы над озером\nдве птицы летают над водой\nкот спит на диване"
)
INTRO = (
    "**METEOR** for Russian captions and VQA answers (Fusion Brain 2022) and for English (NLTK). One example "
    "per line; a reference line may list several references separated by ` | ` (space, bar, space; a bar "
    "without spaces is part of the text, and the page says so), or paste JSON lists. The synonyms "
    "dropdown offers the preset's source (*preset*) and the sources that run on this machine; a preset "
    "whose source is not installed here is refused, saying what to install."
)

DEMO = MetricPage(
    ru_meteor,
    HERE / "ru_meteor.py",
    INTRO,
    boxes=[
        Box("preds", "predictions", EXAMPLE_PREDICTIONS, lines=5),
        Box("refs", "references", EXAMPLE_REFERENCES, lines=5),
    ],
    read=read_pair,
    offered=alignment.offered_synonyms,
    shown=1,
    inputs=alignment.synonyms_note,
    controls=alignment.example_picker,
    outputs=alignment.alignment_output,
    extras=alignment.alignment_of,
    wire=alignment.wire_picker,
)
compute, build_ui = DEMO.compute, DEMO.build_ui
demo = DEMO.blocks("ruMETEOR", "# ruMETEOR: METEOR with Russian stemming and RuWordNet", HERE / "README.md")

if __name__ == "__main__":
    demo.launch()
