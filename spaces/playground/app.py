"""Playground Space: every metric of the Multimodal Metrics collection in one Gradio app.

Each tab is the metric's own demo (`metrics/<name>/app.py:build_ui`), so the playground and the
per-metric Spaces never drift apart, followed by a summary of the metric's card, its citation and
the whole card (`multimodal_metrics.demo.about_metric`). Run from the repo (`python spaces/playground/app.py`) or from
the staged Space (scripts/publish.py copies each metric's script, app.py and card into `metrics/`
beside this file). The apps import the library (`multimodal_metrics.demo`), which the Space installs
from requirements.txt: no helper is copied.
"""

import importlib.util
import sys
from pathlib import Path

import gradio as gr

from multimodal_metrics.demo import about_metric

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


def metric_names() -> list[str]:
    found = [p.name for p in METRICS.iterdir() if (p / "app.py").is_file() and (p / f"{p.name}.py").is_file()]
    return sorted(found, key=lambda n: (list(TITLES).index(n) if n in TITLES else len(TITLES), n))


def import_app(name: str):
    """Import metrics/<name>/app.py. A folder not yet converted to the library still imports its copied
    helpers (`_mm_demo.py`, ...) as siblings: only such a folder goes on sys.path."""
    folder = METRICS / name
    if any(folder.glob("_*.py")) and str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location(f"playground_app_{name}", folder / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NAMES = metric_names()
APPS = {name: import_app(name) for name in NAMES}

with gr.Blocks(title="Multimodal Metrics playground") as demo:
    gr.Markdown(
        "# Multimodal Metrics playground\n"
        "Evaluation metrics for vision-language, OCR, code and image-generation models, each equal to "
        "its official scoring script by default, every convention a preset or an option, and a "
        "`signature` that records them. Pick a metric; the example inputs are pre-filled."
    )
    # "wrap": on a phone every tab shows (on more lines) instead of hiding behind a "..." menu
    with gr.Tabs(overflow_behavior="wrap"):
        for name in NAMES:
            with gr.Tab(TITLES.get(name, name)):
                APPS[name].build_ui(api_prefix=f"{name}_")
                about_metric(METRICS / name / "README.md", api_prefix=f"{name}_")

if __name__ == "__main__":
    demo.launch()
