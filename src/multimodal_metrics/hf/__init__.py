"""The evaluate glue of the library (needs ``evaluate``; imported only by the thin metric scripts).

A metric script is ``class Anls(TextPairMetric, evaluate.Metric)`` with ``library = anls``: features,
citation and docs in the script, everything else here and in the metric's library module.
"""

from ..stats import RESAMPLING
from .arrow import (
    ArrowColumn,
    checked_features,
    read_flat_references,
    read_reference_lists,
    read_strings,
    reference_lists_to_arrow,
    strings_to_arrow,
)
from .direct import (
    DIRECT_PATH_EVALUATE,
    DirectData,
    OptionsCheckedFirst,
    captured_batches,
    direct_path_supported,
    release_cache,
)
from .mixins import LibraryMetric, PairedComparison, TextPairInputs, TextPairMetric, TrainerResults

__all__ = [
    "DIRECT_PATH_EVALUATE",
    "RESAMPLING",
    "ArrowColumn",
    "DirectData",
    "LibraryMetric",
    "OptionsCheckedFirst",
    "PairedComparison",
    "TextPairInputs",
    "TextPairMetric",
    "TrainerResults",
    "captured_batches",
    "checked_features",
    "direct_path_supported",
    "read_flat_references",
    "read_reference_lists",
    "read_strings",
    "reference_lists_to_arrow",
    "release_cache",
    "strings_to_arrow",
]

# The Args lines of the resampling options (from multimodal_metrics.stats.RESAMPLING) and return_per_example.
RESAMPLING_DOC = (
    RESAMPLING.describe()
    + "\n    return_per_example (`bool`, optional): also return the score of every example. Default False."
)
