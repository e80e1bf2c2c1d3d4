"""``mm-score``: the command line of the library (``python -m multimodal_metrics.cli``)."""

from .main import main

__all__ = ["main"]
