"""ru_meteor's page: the aligned words of one example coloured by the stage that aligned them (exact /
stem / synonym / numeric, from ``ru_meteor.explain``), the example picker that chooses it, and the synonym
sources this machine can run (the page offers only those).

Names of the metric used here: ``ru_meteor.OPTIONS``, ``ru_meteor.explain``, ``ru_meteor.synonym_source``.
"""

import functools
import html

from .. import ru_meteor
from ..resources.wordnet import open_wordnet
from .errors import readable
from .headline import message_html

SYNONYMS = "synonyms"  # the option whose choices are synonym sources, each with its own resource
RUWORDNET_INSTALL = "pip install ruwordnet && ruwordnet download"
COLOURS = {"exact": "#b7e4c7", "stem": "#ffe8a3", "synonym": "#a9d6f5", "numeric": "#e0c3fc"}
STYLE = "".join(
    f".mm-{stage}{{background:{colour};border-radius:3px;padding:0 2px}}" for stage, colour in COLOURS.items()
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
        ru_meteor.synonym_source(source)
        return True
    except (ValueError, LookupError, OSError, ImportError):
        return False


def tokens_html(tokens: list, stages: dict) -> str:
    """The tokens, each aligned one in a span of its stage's colour."""
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
        f"<p><b>prediction</b>: {tokens_html(explained['hypothesis'], hyp_stages)}</p>"
        f"<p><b>best reference</b> (#{explained['best']} of the line, counted from 0; METEOR {best['score']:.4f}): "
        f"{tokens_html(best['tokens'], ref_stages)}</p><p>{legend}</p></div>"
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


def offered_synonyms(option) -> list | None:
    """The synonym sources offered beside "preset" (MetricPage `offered`): those that run on this machine
    ("none" always), in the table's order; None for other options. A preset whose own source does not
    run here is refused on Compute with the metric's message (what to install)."""
    if option.name != SYNONYMS:
        return None
    return [c for c in option.choices if runs_here(c)]


def missing_note(presets: dict) -> str:
    """The line that says which synonym sources do not run here (what to install for each) and which
    presets are refused for it with synonyms on "preset" ("" when every source runs). `presets`: the
    metric's presets."""
    missing = [c for c in ru_meteor.OPTIONS[SYNONYMS].choices if not runs_here(c)]
    if not missing:
        return ""
    refused = [name for name, values in presets.items() if values.get(SYNONYMS) in missing]
    install = [f"RuWordNet: `{RUWORDNET_INSTALL}`"] if any(c.startswith("ruwordnet") for c in missing) else []
    install += ["WordNet: NLTK's `wordnet` corpus"] if "wordnet" in missing else []
    offered = [c for c in ru_meteor.OPTIONS[SYNONYMS].choices if c not in missing]
    return (
        f"*Not installed on this machine: {', '.join(missing)} ({'; '.join(install)}). With synonyms on "
        f"preset, the presets {', '.join(refused)} are refused here, saying what to install; choose synonyms "
        f"{' or '.join(offered)} to score with them (none: the exact and stem stages only).*"
    )


def synonyms_note(prefix: str) -> dict:
    """The line that says which presets are refused here and why (MetricPage `inputs`)."""
    import gradio as gr

    note = missing_note(ru_meteor.PRESETS)
    return {"synonyms_note": gr.Markdown(note, elem_id=f"{prefix}synonyms_note")} if note else {}


def example_picker(prefix: str) -> dict:
    """The number of the example aligned (MetricPage `controls`); no minimum: a number outside the
    examples shows the nearest one."""
    import gradio as gr

    label = "show the alignment of example # (the table's #, from 0)"
    return {"example": gr.Number(0, precision=0, label=label, elem_id=f"{prefix}example")}


def alignment_output(prefix: str) -> list:
    """Where the alignment is shown (MetricPage `outputs`)."""
    import gradio as gr

    return [gr.HTML(aligned_example(None, 0), label="alignment", elem_id=f"{prefix}alignment")]


def alignment_of(run) -> tuple:
    """The alignment of the picked example of a run (MetricPage `extras`), with the resolved options."""
    computed = (run.kwargs["predictions"], run.kwargs["references"], run.resolved())
    return (aligned_example(computed, run.values["example"]),)


def wire_picker(page, parts: dict, panel, prefix: str) -> None:
    """The picker's event (MetricPage `wire`): the chosen example's alignment from the inputs as they
    are (no scoring); an error is a message in its place, never "Error" badges."""

    def realign(*sent) -> str:
        try:
            return alignment_of(page.prepare(*sent))[0]
        except Exception as err:  # noqa: BLE001 - a message in place of the alignment
            return f"<p>Not aligned: {message_html(readable(err))}</p>"

    parts["example"].change(realign, [parts[n] for n in page.names], parts["outputs"][0], api_name=False)
