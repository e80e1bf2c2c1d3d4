"""Helpers shared by the Gradio demos (app.py) of the Multimodal Metrics collection.

Copied byte for byte into every metrics/<name>/ folder by scripts/sync_common.py (the canonical copy
is scripts/common/_mm_demo.py); app.py imports it as a sibling module. No metric logic here.
"""

import json
import sys
from pathlib import Path

import evaluate

_LOADED = {}


def load_metric(script: Path, preset: str):
    """evaluate.load on the module script beside app.py (works in the Space and in the repo), cached."""
    key = (str(script), preset)
    if key not in _LOADED:
        _LOADED[key] = evaluate.load(str(script), preset)
    return _LOADED[key]


def parse_items(text: str, arg: str) -> list:
    """A JSON list (text starting with '[') or one item per line (a trailing newline is ignored)."""
    text = text or ""
    if text.lstrip().startswith("["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"`{arg}` is not valid JSON: {err}") from None
        if not isinstance(value, list):
            raise ValueError(f"`{arg}` must be a JSON list")
        return value
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    return lines


def parse_alternatives(text: str, arg: str, separator: str = " | ") -> list:
    """Like parse_items, but a line may hold several alternatives separated by ' | '."""
    items = parse_items(text, arg)
    if text.lstrip().startswith("["):
        return items
    return [line.split(separator) if separator in line else line for line in items]


def safe_compute(metric, **kwargs) -> dict:
    """metric.compute(...) with bad input shown as a readable error in the UI, not a traceback."""
    import gradio as gr

    try:
        return metric.compute(**kwargs)
    except (ValueError, TypeError) as err:
        raise gr.Error(str(err)) from None


def card_body(card: Path) -> str:
    """The metric card without its YAML front matter (shown under the demo)."""
    text = card.read_text(encoding="utf-8") if card.exists() else ""
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            text = text[end + 4 :]
    return text


def ensure_importable(folder: Path) -> None:
    """Put a metric folder on sys.path (the playground imports several apps)."""
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
