"""The evaluate glue of the library (needs ``evaluate``; imported only by the thin metric scripts).

A metric script is ``class Anls(TextPairMetric, evaluate.Metric)`` with ``library = anls``, decorated with
``@documented(_DESCRIPTION, _KWARGS_DESCRIPTION)``: the script holds the docs (with their doctest examples), ``sources.SOURCES`` the
citation, home page and references, the metric's library module the rest; the mixins build evaluate's
``MetricInfo`` from the three.
"""

from ..stats import RESAMPLING
from . import arrow  # the Arrow columns of evaluate's writer and ``_compute`` (hf.arrow.read_strings, ...)
from .direct import (
    DIRECT_PATH_EVALUATE,
    DirectData,
    OptionsCheckedFirst,
    captured_batches,
    direct_path_supported,
    release_cache,
)
from .mixins import (
    LibraryMetric,
    PairedComparison,
    TextPairInputs,
    TextPairMetric,
    TrainerResults,
    documented,
)
from .sources import SOURCES

__all__ = [
    "arrow",
    "DIRECT_PATH_EVALUATE",
    "RESAMPLING",
    "SOURCES",
    "DirectData",
    "LibraryMetric",
    "OptionsCheckedFirst",
    "PairedComparison",
    "TextPairInputs",
    "TextPairMetric",
    "TrainerResults",
    "captured_batches",
    "direct_path_supported",
    "documented",
    "options_doc",
    "release_cache",
    "resampling_doc",
    "text_pair_args",
]


def resampling_doc(
    help=None, per_example: str = "also return the score of every example. Default False."
) -> str:
    """The ``Args`` lines of the resampling options (``stats.RESAMPLING``; ``help``: the script's own sentence
    for some of them, such as what its interval resamples: ``{"confidence": ...}``) and of
    ``return_per_example`` (``per_example``: what it returns)."""
    return RESAMPLING.describe(help=help) + f"\n    return_per_example (`bool`, optional): {per_example}"


RESAMPLING_DOC = resampling_doc()


def options_doc(library, **kwargs) -> str:
    """The ``Args`` lines that follow a script's inputs: the options of ``library.OPTIONS``, then
    :func:`resampling_doc` (``kwargs``)."""
    return f"{library.OPTIONS.describe()}\n{resampling_doc(**kwargs)}"


def text_pair_args(library, predictions: str, references: str, **kwargs) -> str:
    """The ``Args`` section of a text-pair script (:class:`TextPairMetric`): ``predictions`` and ``references``
    say what one prediction and the reference(s) of one example are; then :func:`options_doc` (``kwargs``)."""
    return (
        "\nArgs:\n"
        f"    predictions (`list` of `str`): {predictions}.\n"
        f"    references (`list` of `str` or `list` of `list` of `str`): {references}.\n"
        f"{options_doc(library, **kwargs)}\n"
    )
