"""Per-example inputs checked by Arrow: the conversion to pyarrow arrays is the check (one C pass), and
only a failed conversion walks the values in Python to name the bad one (``multimodal_metrics.inputs``).

Used by the library where a metric scores Arrow columns (vqa_acc) and by the evaluate glue, whose
``add_batch`` hands these arrays to evaluate's writer as they are (``multimodal_metrics.hf.arrow``).
pyarrow is imported inside the functions.
"""

import itertools

from .inputs import check_list, check_reference_lists, check_strings


def strings_to_arrow(values, arg: str):
    """``check_strings`` done by Arrow: ``(strings, array)``, the checked list and its pyarrow
    ``string`` array.

    When every value is a ``str``, pyarrow converts the list in C and its UTF-8 encoding is the
    validity check (a lone surrogate raises); anything else, or a failed conversion, goes through
    ``check_strings``, whose error names the index.
    """
    import pyarrow as pa

    values = check_list(values, arg)
    if set(map(type, values)) <= {str}:
        try:
            return values, pa.array(values, type=pa.string())
        except (UnicodeError, pa.ArrowException):
            pass
    values = check_strings(values, arg)
    return values, pa.array(values, type=pa.string())


def reference_lists_to_arrow(values, arg: str = "references"):
    """``check_reference_lists`` done by Arrow: ``(flat, counts, array)``, every reference in example
    order, the number of references of each example (int64 numpy array) and the pyarrow
    ``list<string>`` array (a single string is a list of one).

    Fast paths for a batch of strings and for a batch of non-empty lists of strings (types checked
    in C, UTF-8 validity by the conversion); anything else, or a failed conversion, goes through
    ``check_reference_lists``, whose errors name the index.
    """
    import numpy as np
    import pyarrow as pa

    values = check_list(values, arg)
    types = set(map(type, values))
    flat = None
    if types <= {str}:
        flat, counts = values, np.ones(len(values), dtype=np.int64)
    elif types <= {list} and min(map(len, values)) > 0:
        flat = list(itertools.chain.from_iterable(values))
        counts = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        if not set(map(type, flat)) <= {str}:
            flat = None
    if flat is not None:
        try:
            return flat, counts, _list_array(flat, counts)
        except (UnicodeError, pa.ArrowException):
            pass
    nested = check_reference_lists(values, arg)
    flat = list(itertools.chain.from_iterable(nested))
    counts = np.fromiter(map(len, nested), dtype=np.int64, count=len(nested))
    return flat, counts, _list_array(flat, counts)


def _list_array(flat: list, counts):
    """The pyarrow ``list<string>`` array of ``flat`` strings split by ``counts``."""
    import numpy as np
    import pyarrow as pa

    strings = pa.array(flat, type=pa.string())
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
    if isinstance(strings, pa.ChunkedArray):  # over 2 GB of text: pyarrow chunks the nested form
        return pa.array(
            [flat[a:b] for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())],
            type=pa.list_(pa.string()),
        )
    return pa.ListArray.from_arrays(pa.array(offsets), strings)
