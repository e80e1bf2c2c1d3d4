"""Gradio demo of the `ru_meteor` metric (our own app: evaluate's launch_gradio_widget breaks on gradio >= 4).

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
Besides the scores it shows, for one chosen example, the best reference and the aligned words coloured by
the stage that aligned them (exact / stem / synonym / numeric).
"""

import functools
import html
from pathlib import Path

import gradio as gr

from multimodal_metrics import ru_meteor
from multimodal_metrics.demo import (
    CONFIDENCE,
    PRESET,
    TEXT_LINES,
    ResultPanel,
    card_body,
    connect,
    follow_preset,
    load_metric,
    option_value,
    option_widget,
    page_blocks,
    parse_alternatives,
    parse_items,
    readable,
)
from multimodal_metrics.resources.wordnet import open_wordnet
from multimodal_metrics.ru_meteor.core import synonym_source

HERE = Path(__file__).resolve().parent
RUWORDNET_NOTE = (  # one line: why the RuWordNet sources are not in the synonyms dropdown
    "*RuWordNet synonyms are not offered here: this machine has no RuWordNet database "
    "(`pip install ruwordnet && ruwordnet download`).*"
)
SCRIPT = HERE / "ru_meteor.py"
PRESETS = list(ru_meteor.PRESETS)
SYNONYMS = ru_meteor.OPTIONS["synonyms"]  # its dropdown starts on "none": RuWordNet is not on PyPI
# one widget per other row of the library's option table (the resource paths are not the visitor's to set)
OPTIONS = [o for o in ru_meteor.OPTIONS if o.demo and o.name != "synonyms"]
COLOURS = {"exact": "#b7e4c7", "stem": "#ffe8a3", "synonym": "#a9d6f5", "numeric": "#e0c3fc"}
STYLE = "".join(
    f".mm-{stage}{{background:{colour};border-radius:3px;padding:0 2px}}" for stage, colour in COLOURS.items()
)

EXAMPLE_PREDICTIONS = "две птицы летали над водою\nнад водой летают две птицы\nкошка спит на диване"
EXAMPLE_REFERENCES = (
    "две птицы летают над водой | птицы над озером\nдве птицы летают над водой\nкот спит на диване"
)


@functools.cache
def runs_here(source: str) -> bool:
    """Whether the synonym source `source` can run on this machine (its resource is found)."""
    if source == "none":
        return True
    try:
        if source == "wordnet":
            with open_wordnet(None, needed=True):
                return True
        synonym_source(source)
        return True
    except (ValueError, LookupError, OSError, ImportError):
        return False


def synonym_choices(preset: str) -> list[str]:
    """The synonyms choices offered with `preset`: the sources that run here, and "preset" when the
    preset's own source runs."""
    offered = [c for c in SYNONYMS.choices if runs_here(c)]
    return ([PRESET] if runs_here(ru_meteor.PRESETS[preset]["synonyms"]) else []) + offered


def follow_synonyms(preset: str, current: str):
    """The synonyms dropdown after a preset change: its choices, the current choice kept where offered."""
    choices = synonym_choices(preset)
    return gr.update(choices=choices, value=current if current in choices else "none")


def _tokens_html(tokens: list, stages: dict) -> str:
    out = []
    for k, token in enumerate(tokens):
        text = html.escape(token)
        stage = stages.get(k)
        out.append(f'<span class="mm-{stage}">{text}</span>' if stage else text)
    return " ".join(out)


def alignment_html(prediction: str, references: list, options: dict, heading: str = "") -> str:
    """The example's tokens and its best reference's tokens, aligned words coloured by stage, under
    `heading`. ``options``: the resolved options of the computation (``ru_meteor.OPTIONS.resolve``),
    WordNet found as it found it."""
    needed = options["synonyms"] == "wordnet"
    with open_wordnet(options["wordnet_path"], needed=needed) as wordnet:
        explained = ru_meteor.explain(prediction, references, wordnet=wordnet, **options)
    hyp_stages = {p["hyp"]: p["stage"] for p in explained["pairs"]}
    ref_stages = {p["ref"]: p["stage"] for p in explained["pairs"]}
    best = explained["references"][explained["best"]]
    legend = " ".join(f'<span class="mm-legend mm-{stage}">{stage}</span>' for stage in COLOURS)
    return (
        f"<style>{STYLE}</style><div>{heading}"
        f"<p><b>prediction</b>: {_tokens_html(explained['hypothesis'], hyp_stages)}</p>"
        f"<p><b>best reference</b> (#{explained['best']} of the line, counted from 0; METEOR {best['score']:.4f}): "
        f"{_tokens_html(best['tokens'], ref_stages)}</p><p>{legend}</p></div>"
    )


def aligned_example(computed, example) -> str:
    """The alignment of example # `example` (the table's #, from 0) of `computed` (predictions, references,
    resolved options); a number outside the examples shows the nearest one and says so (the score is
    never withheld for it)."""
    if not computed or not computed[0]:
        return "<p><i>Press Compute: the alignment of the chosen example appears here.</i></p>"
    preds, refs, options = computed
    try:
        asked = int(float(example))
    except (TypeError, ValueError, OverflowError):
        asked = 0
    index = min(max(asked, 0), len(preds) - 1)
    heading = f"<p><b>Alignment of example #{index}</b> (the table's row {index})</p>"
    if index != asked:
        heading += (
            f"<p><i>There is no example #{html.escape(str(example))}: the examples are numbered 0 to "
            f"{len(preds) - 1}; showing #{index}.</i></p>"
        )
    chosen_refs = refs[index] if isinstance(refs[index], list) else [refs[index]]
    return alignment_html(preds[index], chosen_refs, options, heading)


def _inputs(predictions: str, references: str, preset: str, synonyms: str, options) -> tuple:
    """(predictions, references, the options passed) as read from the boxes and widgets."""
    preds = parse_items(predictions, "predictions")
    refs = parse_alternatives(references, "references")
    chosen = {o.name: option_value(o, sent) for o, sent in zip(OPTIONS, options, strict=False)}
    chosen = {"synonyms": option_value(SYNONYMS, synonyms), **chosen}
    return preds, refs, {name: value for name, value in chosen.items() if value is not None}


def compute(predictions: str, references: str, preset: str, synonyms: str, example, *options):
    """Score the examples: (result, table columns, alignment of one example). `synonyms="preset"` uses
    the preset's synonym source (it needs its resource); "none" (the demo's default) runs without. Other
    options left on "preset" / empty use the preset's values. `example`: the table's # of the example
    aligned (outside the examples: the nearest one, said above it)."""
    preds, refs, kwargs = _inputs(predictions, references, preset, synonyms, options)
    result = load_metric(SCRIPT, preset).compute(
        predictions=preds, references=refs, return_per_example=True, confidence=CONFIDENCE, **kwargs
    )
    computed = (preds, refs, ru_meteor.OPTIONS.resolve(preset, kwargs))
    return result, {"prediction": preds, "references": refs}, aligned_example(computed, example)


def realign(predictions: str, references: str, preset: str, synonyms: str, example, *options) -> str:
    """The picker's event: the chosen example's alignment from the inputs as they are (no scoring)."""
    try:
        preds, refs, kwargs = _inputs(predictions, references, preset, synonyms, options)
        return aligned_example((preds, refs, ru_meteor.OPTIONS.resolve(preset, kwargs)), example)
    except Exception as err:  # noqa: BLE001 - a message in place of the alignment, never "Error" badges
        return f"<p>Not aligned: {html.escape(readable(err))}</p>"


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**METEOR** for Russian captions and VQA answers (Fusion Brain 2022) and for English (NLTK). One example "
        "per line; a reference line may list several references separated by ` | ` (space, bar, space; a bar "
        "without spaces is part of the text, and the page says so), or paste JSON lists. The synonyms "
        "dropdown offers only the sources that run on this machine (*preset*: the preset's source)."
    )
    if not all(runs_here(c) for c in SYNONYMS.choices):
        gr.Markdown(RUWORDNET_NOTE, elem_id=f"{api_prefix}synonyms_note")
    with gr.Row():
        with gr.Column():
            with gr.Row():
                predictions = gr.Textbox(
                    EXAMPLE_PREDICTIONS,
                    lines=5,
                    max_lines=TEXT_LINES,
                    label="predictions",
                    elem_id=f"{api_prefix}preds",
                    elem_classes="mm-lines",
                )
                references = gr.Textbox(
                    EXAMPLE_REFERENCES,
                    lines=5,
                    max_lines=TEXT_LINES,
                    label="references",
                    elem_id=f"{api_prefix}refs",
                    elem_classes="mm-lines",
                )
            with gr.Row():
                preset = gr.Dropdown(
                    PRESETS, value="captioning", label="preset", elem_id=f"{api_prefix}preset"
                )
                synonyms = gr.Dropdown(
                    synonym_choices("captioning"),
                    value="none",
                    label="synonyms",
                    info=SYNONYMS.help,
                    elem_id=f"{api_prefix}opt_synonyms",
                )
                example = gr.Number(  # no minimum: a number outside the examples shows the nearest one
                    0,
                    precision=0,
                    label="show the alignment of example # (the table's #, from 0)",
                    elem_id=f"{api_prefix}example",
                )
            with gr.Accordion("more options (empty / preset: the preset's value)", open=False):
                widgets = [
                    option_widget(o, f"{api_prefix}opt_{o.name}", ru_meteor.OPTIONS, "captioning")
                    for o in OPTIONS
                ]
            button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
            aligned = gr.HTML(aligned_example(None, 0), label="alignment", elem_id=f"{api_prefix}alignment")
        with gr.Column():
            panel = ResultPanel(api_prefix)
    connect(
        button,
        compute,
        [predictions, references, preset, synonyms, example, *widgets],
        panel,
        f"{api_prefix}compute",
        extra_outputs=[aligned],
    )
    example.change(
        realign, [predictions, references, preset, synonyms, example, *widgets], aligned, api_name=False
    )
    follow_preset(preset, widgets, OPTIONS, ru_meteor.OPTIONS)
    preset.change(follow_synonyms, [preset, synonyms], synonyms, api_name=False)


with page_blocks("ruMETEOR") as demo:
    gr.Markdown("# ruMETEOR: METEOR with Russian stemming and RuWordNet")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
