"""Checked inputs on their way to evaluate's Arrow cache, and back: the columns ``_compute`` reads.

A module's ``add_batch`` checks every value while converting it to the Arrow arrays evaluate stores
(``strings_to_arrow``, ``reference_lists_to_arrow``), and ``checked_features`` lets evaluate pass them
on as they are; ``_compute`` reads the columns back in C (``read_strings``, ``read_flat_references``).
"""

import itertools
from collections.abc import Sequence

from ..arrow_inputs import reference_lists_to_arrow, strings_to_arrow  # noqa: F401 (re-exported)


class ArrowColumn(Sequence):
    """A checked batch column on its way to evaluate's writer: the pyarrow array that
    ``checked_features``' ``encode_batch`` hands to the writer as it is (no second conversion).

    evaluate's ``add_batch`` only looks at the length and the first example of a column (to choose
    the feature schema and to check string types); to it this is a sequence of Python values.
    """

    def __init__(self, array):
        self.array = array

    def __len__(self) -> int:
        return len(self.array)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self.array[index].to_pylist()
        return self.array[index].as_py()


def _unchecked_column(column):
    """What ``checked_features`` gives the writer for one column: the Arrow array of an
    ``ArrowColumn``, else the values as a list."""
    if isinstance(column, ArrowColumn):
        return column.array
    return column if type(column) is list else list(column)


def read_strings(column) -> list:
    """A string column as ``_compute`` receives it under ``info.format = "arrow"`` (a pyarrow
    (Chunked)Array), as a list of ``str`` (decoded in C). A Python sequence is returned as a list."""
    if hasattr(column, "to_pylist"):
        return column.to_pylist()
    return list(column)


def read_reference_lists(column) -> list:
    """A references column as ``_compute`` receives it under ``info.format = "arrow"`` (``list<string>``,
    or ``string`` for one reference each), as a list of lists of ``str``."""
    values = column.to_pylist() if hasattr(column, "to_pylist") else list(column)
    if set(map(type, values)) <= {list}:
        return values
    return [[refs] if isinstance(refs, str) else list(refs) for refs in values]


def read_flat_references(column):
    """A references column (see ``read_reference_lists``) as ``(flat, counts)``: every reference in
    order as one list of ``str``, and the number of references of each example (int64 numpy array)."""
    import numpy as np

    if not hasattr(column, "type"):  # Python lists
        values = [[refs] if isinstance(refs, str) else list(refs) for refs in column]
        counts = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        return list(itertools.chain.from_iterable(values)), counts
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    flat, counts = [], []
    for chunk in chunks:
        if pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type):
            flat += chunk.to_pylist()
            counts.append(np.ones(len(chunk), dtype=np.int64))
        else:
            flat += chunk.flatten().to_pylist()
            counts.append(chunk.value_lengths().to_numpy(zero_copy_only=False).astype(np.int64))
    return flat, (np.concatenate(counts) if counts else np.zeros(0, dtype=np.int64))


_CHECKED_FEATURES = []


def checked_features(features):
    """``features`` (a ``datasets.Features`` or a list of them) as ``Features`` that skip evaluate's
    per-value Python encoding.

    evaluate's ``add_batch`` runs ``Features.encode_batch``, which walks every value of every example
    in Python (``encode_nested_example``) before Arrow converts the lists in C. Our modules' own
    ``add_batch`` has already checked every value and turned it into the stored Python type (str,
    int, float, lists of them), so that walk changes nothing and costs more than most metrics: these
    features pass the columns on as lists, or as the Arrow arrays an ``ArrowColumn`` carries (built
    by the module's checks: ``strings_to_arrow``, ``reference_lists_to_arrow``). Use them only in a
    module whose ``add_batch`` (and so ``add`` and ``compute``) checks and converts every input
    first. Schema, stored data and results are unchanged.
    """
    if isinstance(features, list):
        return [checked_features(f) for f in features]
    if not _CHECKED_FEATURES:
        import datasets

        class CheckedFeatures(datasets.Features):
            """Features whose ``encode_batch`` keeps the (already checked) columns as they are."""

            def encode_batch(self, batch):
                if set(batch) != set(self):
                    raise ValueError(f"Column mismatch between batch {set(batch)} and features {set(self)}")
                return {key: _unchecked_column(column) for key, column in batch.items()}

        _CHECKED_FEATURES.append(CheckedFeatures)
    return _CHECKED_FEATURES[0](features)
