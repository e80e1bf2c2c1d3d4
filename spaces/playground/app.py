"""Playground Space: every metric of the Multimodal Metrics collection in one Gradio app.

Each tab is the metric's own demo (`metrics/<name>/app.py:build_ui`), so the playground and the
per-metric Spaces never drift apart, followed by a summary of the metric's card, its citation and
the whole card (`about_metric`). Run from the repo (`python spaces/playground/app.py`) or from
the staged Space (scripts/publish.py copies each metric's script, app.py and card into `metrics/`
beside this file). The apps import the library (`multimodal_metrics.demo`), which the Space installs
from requirements.txt: no helper is copied.
"""

import importlib.util
import re
from pathlib import Path

import gradio as gr

from multimodal_metrics.demo import card_body, page_blocks

HERE = Path(__file__).resolve().parent
METRICS = HERE / "metrics" if (HERE / "metrics").is_dir() else HERE.parent.parent / "metrics"
TITLES = {
    "anls": "ANLS (DocVQA)",
    "ned": "1 - NED (OCR)",
    "text_qa": "TextQA / MathQA",
    "vqa_acc": "VQA accuracy",
    "det_f1": "Detection F1",
    "codebleu": "CodeBLEU",
    "ru_meteor": "ruMETEOR",
    "fid_clip": "FID + CLIP",
}


def card_section(card: Path, title: str) -> str:
    """The text of the card's `## <title>` section (up to the next `## `), stripped; "" when absent."""
    found = re.search(rf"^## {re.escape(title)}[ \t]*\n(.*?)(?=^## |\Z)", card_body(card), re.S | re.M)
    return found[1].strip() if found else ""


def card_summary(card: Path) -> str:
    """The first paragraph of the card's Metric Description (what the metric is, in a few lines)."""
    paragraphs = card_section(card, "Metric Description").split("\n\n")
    summary = paragraphs[0].strip()
    if summary.endswith(":") and len(paragraphs) > 1:  # a sentence announcing a list: the list too
        summary += "\n\n" + paragraphs[1].strip()
    return summary


def card_citation(card: Path) -> str:
    """The BibTeX of the card's Citation section (its code block), or the section's text."""
    text = card_section(card, "Citation")
    block = re.search(r"```\w*\n(.*?)```", text, re.S)
    return (block[1] if block else text).strip()


def about_metric(card: Path, api_prefix: str = "") -> None:
    """Under a demo (the playground's tabs): the card's summary, its citation and the whole card, each
    in the page (elem ids `<prefix>about`, `<prefix>citation`)."""
    gr.Markdown(f"**About this metric** (from its card). {card_summary(card)}", elem_id=f"{api_prefix}about")
    with gr.Accordion("Citation (BibTeX)", open=False, elem_id=f"{api_prefix}citation"):
        gr.Markdown(f"```bibtex\n{card_citation(card)}\n```")  # text to copy, not an editor (no Tab trap)
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(card))


def metric_names() -> list[str]:
    """The metric folders that hold an app and a metric script, in the order of TITLES."""
    found = [p.name for p in METRICS.iterdir() if (p / "app.py").is_file() and (p / f"{p.name}.py").is_file()]
    return sorted(found, key=lambda n: (list(TITLES).index(n) if n in TITLES else len(TITLES), n))


def import_app(name: str):
    """Import metrics/<name>/app.py (it builds its page from the library's demo helpers)."""
    spec = importlib.util.spec_from_file_location(f"playground_app_{name}", METRICS / name / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NAMES = metric_names()
APPS = {name: import_app(name) for name in NAMES}

with page_blocks("Multimodal Metrics playground") as demo:
    gr.Markdown(
        "# Multimodal Metrics playground\n"
        "Evaluation metrics for vision-language, OCR, code and image-generation models, each equal to "
        "its official scoring script by default, every convention a preset or an option, and a "
        "`signature` that records them. Pick a metric; the example inputs are pre-filled. The address "
        "names the tab (`?tab=ned`): copy it to link to one metric."
    )
    # "wrap": on a phone every tab shows (on more lines) instead of hiding behind a "..." menu
    with gr.Tabs(overflow_behavior="wrap"):
        for name in NAMES:
            # the tab's id is the metric's name: `?tab=<name>` opens it, and the address follows the tab
            # chosen (the page's script: multimodal_metrics.demo.PAGE_JS)
            with gr.Tab(TITLES.get(name, name), id=name):
                APPS[name].build_ui(api_prefix=f"{name}_")
                about_metric(METRICS / name / "README.md", api_prefix=f"{name}_")

if __name__ == "__main__":
    demo.launch()
