"""Gradio demo of the `vqa_acc` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space; the
page is the library's (`multimodal_metrics.demo.MetricPage`) over `vqa_acc`'s presets and options.
"""

from pathlib import Path

from multimodal_metrics import vqa_acc
from multimodal_metrics.demo import Box, MetricPage, parse_alternatives, parse_items

HERE = Path(__file__).resolve().parent
COLUMNS = ("question_types", "answer_types", "languages")  # per-question inputs: `types_a` and `types_b`
# Pre-filled inputs per scoring procedure: predictions, references, per-question types / languages.
BY_SCORER = {
    "vqa_v2": ("2\nred\ntwo\nA dog.", "two | two | two | 2 | 2 | 2 | three | three | three | three\n"
               "red | blue | blue | blue | blue | blue | blue | blue | blue | blue\n2 | 2 | 2 | 2 | 2 | 2 | 2 | 2 | 2 | 2\n"
               "dog | dog | dog | dog | dog | a dog | a dog | a dog | a dog | a dog",
               "how many\nwhat color is the\nhow many\nwhat animal is", "number\nother\nnumber\nother"),
    "fusion_brain_2021": ("Two.\nA dog!\nКошки\nтри", "2\ndog\nкошка\n3", "", "en\nen\nru\nru"),
    "tdiuc": ("red\nred\nred\nred\n2\n2", "red\nred\nred\nblue\n2\n3",
              "color\ncolor\ncolor\ncolor\ncounting\ncounting", ""),
    "wups": ("cat\ntable, chair\ncouch", "dog\nchair,table\nsofa", "", ""),
    "bleu1": ("dog\na dog\ndog", "dog\ndog\nblack dog | dog", "", ""),
}  # fmt: skip
EXAMPLES = {preset: BY_SCORER[vqa_acc.SCORERS[preset]] for preset in vqa_acc.PRESETS}  # its scorer's
INTRO = (
    "**VQA accuracy** (VQA v2 official, Fusion Brain 2021, TDIUC, WUPS, BLEU-1). One answer per line; a "
    "reference line lists the annotator / accepted answers separated by ` | ` (space, bar, space; a bar "
    "without spaces is part of the answer, and the page says so), or paste JSON lists. "
    "Per-question columns are one value per line: *question_types* (vqa_v2, tdiuc), *answer_types / "
    "languages* (answer types for vqa_v2, languages for fusion_brain_2021). Options left on *preset* (or "
    "empty) use the preset's value. Picking a preset never touches the inputs: *load the preset's example* "
    "replaces them by the preset's example."
)


def read(run) -> tuple[dict, dict]:
    """The answers, and the per-question columns the preset reads: (kwargs, table columns)."""
    texts = dict(zip(COLUMNS, (run.values["types_a"], run.values["types_b"], run.values["types_b"])))
    kwargs = {"predictions": parse_items(run.values["preds"], "predictions"),
              "references": parse_alternatives(run.values["refs"], "references")}  # fmt: skip
    kwargs.update(
        {name: col for name in vqa_acc.extra_inputs(run.preset) if (col := parse_items(texts[name], name))}
    )
    columns = {"prediction": kwargs["predictions"], "references": kwargs["references"]}
    return kwargs, {**columns, **{name: kwargs[name] for name in COLUMNS if kwargs.get(name)}}


first = EXAMPLES[vqa_acc.OPTIONS.default_preset]
DEMO = MetricPage(vqa_acc, HERE / "vqa_acc.py", INTRO, read=read, options_first=True, examples=EXAMPLES,
                  boxes=[[Box("preds", "predictions", first[0]), Box("refs", "references", first[1])],
                         [Box("types_a", "question_types", first[2], lines=4),
                          Box("types_b", "answer_types / languages", first[3], lines=4)]])  # fmt: skip
compute, build_ui, example_of = DEMO.compute, DEMO.build_ui, DEMO.example_of
demo = DEMO.blocks(
    "VQA accuracy", "# VQA accuracy: VQA v2, Fusion Brain 2021, TDIUC, WUPS, BLEU-1", HERE / "README.md"
)

if __name__ == "__main__":
    demo.launch()
