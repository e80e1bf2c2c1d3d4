"""The metric a page scores through (evaluate.load on the script beside app.py)."""

from pathlib import Path

import evaluate

_LOADED = {}


def load_metric(script: Path, preset: str):
    """evaluate.load on the module script beside app.py (works in the Space and in the repo), cached."""
    key = (str(script), preset)
    if key not in _LOADED:
        _LOADED[key] = evaluate.load(str(script), preset)
    return _LOADED[key]
