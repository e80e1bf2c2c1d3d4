"""The bundled examples: one JSON file per metric, ``{"metric": name, "runs": [...]}``, each run holding
the inputs (``predictions``, ``references``, ...), optionally ``config_name`` (the preset), ``kwargs``
(options), ``expected`` (the scores the official code gives) and a ``note``. The main job scores them
(``scripts/run_examples.py``); they ship in the wheel."""

import json
from pathlib import Path

FOLDER = Path(__file__).resolve().parent


def path(metric: str) -> Path:
    """The example file of ``metric``."""
    return FOLDER / f"{metric}.json"


def load(metric: str) -> dict:
    """The parsed example file of ``metric``."""
    return json.loads(path(metric).read_text(encoding="utf-8"))


def names() -> list[str]:
    """Every metric with an example file."""
    return sorted(p.stem for p in FOLDER.glob("*.json"))
