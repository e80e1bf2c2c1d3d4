"""Gradio demo of the `ru_meteor` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
Besides the scores it shows, for one chosen example, the best reference and the aligned words coloured by
the stage that aligned them (exact / stem / synonym / numeric).
"""

import html
import importlib.util
import inspect
import sys
from pathlib import Path

import gradio as gr
from _mm_demo import CONFIDENCE, ResultPanel, card_body, connect, load_metric, parse_alternatives, parse_items

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "ru_meteor.py"
PRESETS = ["captioning", "vqa", "nltk", "ru", "default"]
SYNONYM_CHOICES = ["none", "preset", "ruwordnet_fb", "ruwordnet_synsets", "wordnet"]
COLOURS = {"exact": "#b7e4c7", "stem": "#ffe8a3", "synonym": "#a9d6f5", "numeric": "#e0c3fc"}
STYLE = "".join(f".mm-{stage}{{background:{colour};border-radius:3px;padding:0 2px}}" for stage, colour in COLOURS.items())

EXAMPLE_PREDICTIONS = "две птицы летали над водою\nнад водой летают две птицы\nкошка спит на диване"
EXAMPLE_REFERENCES = "две птицы летают над водой | птицы над озером\nдве птицы летают над водой\nкот спит на диване"


def _core():
    """The metric's pure functions (the folder's _ru_meteor_core.py), for the alignment display."""
    name = "ru_meteor_demo_core"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "_ru_meteor_core.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _tokens_html(tokens: list, stages: dict) -> str:
    out = []
    for k, token in enumerate(tokens):
        text = html.escape(token)
        stage = stages.get(k)
        out.append(f'<span class="mm-{stage}">{text}</span>' if stage else text)
    return " ".join(out)


def alignment_html(prediction: str, references: list, options: dict, script) -> str:
    """The example's tokens and its best reference's tokens, aligned words coloured by stage. ``script``
    is the loaded metric's module: its ``open_wordnet`` finds the WordNet that `compute` used."""
    core = _core()
    with script.open_wordnet(None, needed=options["synonyms"] == "wordnet") as wordnet:
        explained = core.explain(prediction, references, wordnet=wordnet, **options)
    hyp_stages = {p["hyp"]: p["stage"] for p in explained["pairs"]}
    ref_stages = {p["ref"]: p["stage"] for p in explained["pairs"]}
    best = explained["references"][explained["best"]]
    legend = " ".join(f"<span class=\"mm-legend mm-{stage}\">{stage}</span>" for stage in COLOURS)
    return (
        f"<style>{STYLE}</style><div>"
        f"<p><b>prediction</b>: {_tokens_html(explained['hypothesis'], hyp_stages)}</p>"
        f"<p><b>best reference</b> (#{explained['best'] + 1}, METEOR {best['score']:.4f}): "
        f"{_tokens_html(best['tokens'], ref_stages)}</p><p>{legend}</p></div>"
    )


def compute(predictions: str, references: str, preset: str, synonyms: str, example):
    """Score the examples: (result, table columns, alignment of one example). `synonyms="preset"` uses
    the preset's synonym source (it needs its resource); "none" (the demo's default) runs without."""
    metric = load_metric(SCRIPT, preset)
    preds = parse_items(predictions, "predictions")
    refs = parse_alternatives(references, "references")
    kwargs = {} if synonyms in ("", "preset", None) else {"synonyms": synonyms}
    result = metric.compute(
        predictions=preds, references=refs, return_per_example=True, confidence=CONFIDENCE, **kwargs
    )
    index = int(example or 1) - 1
    if not 0 <= index < len(preds):
        raise ValueError(f"`example` must be between 1 and {len(preds)}")
    script = inspect.getmodule(type(metric))
    options = dict(script.PRESETS[preset], **kwargs)
    chosen = refs[index] if isinstance(refs[index], list) else [refs[index]]
    return result, {"prediction": preds, "references": refs}, alignment_html(preds[index], chosen, options, script)


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**METEOR** for Russian captions and VQA answers (Fusion Brain 2022) and for English (NLTK). One example "
        "per line; a reference line may list several references separated by ` | ` (or paste JSON lists). "
        "RuWordNet is not on PyPI, so the demo runs without the synonym stage unless you choose one whose "
        "resource this machine has (*preset*: the preset's source)."
    )
    with gr.Row():
        with gr.Column():
            with gr.Row():
                predictions = gr.Textbox(EXAMPLE_PREDICTIONS, lines=5, label="predictions", elem_id=f"{api_prefix}preds")
                references = gr.Textbox(EXAMPLE_REFERENCES, lines=5, label="references", elem_id=f"{api_prefix}refs")
            with gr.Row():
                preset = gr.Dropdown(PRESETS, value="captioning", label="preset", elem_id=f"{api_prefix}preset")
                synonyms = gr.Dropdown(SYNONYM_CHOICES, value="none", label="synonyms", elem_id=f"{api_prefix}opt_synonyms")
                example = gr.Number(
                    1, precision=0, minimum=1, label="show the alignment of example #", elem_id=f"{api_prefix}example"
                )
            button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
            aligned = gr.HTML(label="alignment", elem_id=f"{api_prefix}alignment")
        with gr.Column():
            panel = ResultPanel(api_prefix)
    connect(
        button,
        compute,
        [predictions, references, preset, synonyms, example],
        panel,
        f"{api_prefix}compute",
        extra_outputs=[aligned],
    )


with gr.Blocks(title="ruMETEOR") as demo:
    gr.Markdown("# ruMETEOR: METEOR with Russian stemming and RuWordNet")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
