"""Multimodal Metrics: evaluation metrics for multimodal models, as a library and as evaluate modules.

One module per metric, each with a functional API::

    from multimodal_metrics import anls
    r = anls.score(predictions, references, preset="stvqa", confidence=0.95)
    r["anls"], r.signature, r.per_example, r.to_dict(), r.for_trainer()
    anls.compare(predictions_a, predictions_b, references)       # paired significance test
    anls.OPTIONS, anls.PRESETS                                   # the option table and the presets

Importing the package is light (no evaluate, torch, nltk, tree_sitter, pymorphy3 or gradio): each
metric module is imported on first use, and heavy dependencies inside the functions that need them.
The evaluate glue is ``multimodal_metrics.hf``, the demo helpers ``multimodal_metrics.demo``, the
command line ``multimodal_metrics.cli`` (``mm-score``).
"""

import importlib

from ._version import __version__

METRICS = ("anls", "codebleu", "det_f1", "fid_clip", "ned", "ru_meteor", "text_qa", "vqa_acc")
PIP_NAME = "multimodal-metrics"

__all__ = ["METRICS", "__version__", "require", *METRICS]


def __getattr__(name: str):
    if name in METRICS:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _release(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit()) or "0"
        parts.append(int(digits))
        if not piece.isdigit():
            break
    return tuple(parts)


def require(written_for: str, metric: str):
    """The library module of ``metric``, after checking that the installed library fits a script written
    for version ``written_for``: the same major.minor release, at least that patch. Otherwise an
    ImportError that names the exact ``pip install`` command."""
    have, want = _release(__version__), _release(written_for)
    if have[:2] != want[:2] or have < want:
        raise ImportError(
            f"the {metric} module was written for {PIP_NAME}=={written_for}, but {__version__} is installed: "
            f"pip install {PIP_NAME}=={written_for}"
        )
    return importlib.import_module(f".{metric}", __name__)
