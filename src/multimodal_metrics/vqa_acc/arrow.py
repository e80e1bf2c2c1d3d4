"""The stored columns of the vqa_acc evaluate module read back as numpy ids, without a Python object
per answer (no evaluate, no state).

evaluate stores every batch in an Arrow table and, by default, gives ``_compute`` Python lists again
(``Table.to_pydict``: one Python object per answer, most of a ``compute`` call on 200,000 questions x
10 answers). The module reads its columns as Arrow instead (``info.format = "arrow"``; the batch is
written by ``multimodal_metrics.hf.arrow``'s ``strings_to_arrow`` / ``reference_lists_to_arrow``), and:

* :func:`answer_lists` gives the number of answers of every question (numpy) and all answers one
  question after the other (an Arrow string column), from a ``list<string>`` column (or a ``string``
  column: one answer each).
* :func:`string_ids` turns string columns into ids of one shared dictionary (Arrow's hash kernel,
  ``dictionary_encode``): equal strings <=> equal ids, and the distinct strings as a Python list. The
  metric then works on the few distinct strings in Python and on the ids with numpy.

Python lists are accepted too (converted with ``pa.array``), so the readers also serve direct calls
(the library's ``vqa_acc.score``). pyarrow is imported with this module: ``import multimodal_metrics.vqa_acc``
does not import it (the scoring imports this module when it runs).
"""

import numpy as np
import pyarrow as pa


def _chunked(column, type_=None) -> pa.ChunkedArray:
    """``column`` (ChunkedArray, Array or Python list, of ``type_``, default string) as a ChunkedArray."""
    if isinstance(column, pa.ChunkedArray):
        return column
    if isinstance(column, pa.Array):
        return pa.chunked_array([column])
    array = pa.array(list(column), type=type_ or pa.string())
    return array if isinstance(array, pa.ChunkedArray) else pa.chunked_array([array])


def string_column(column) -> pa.ChunkedArray:
    """A per-question string column (Arrow or a Python list of str) as an Arrow ``string`` column."""
    return _chunked(column).cast(pa.string())


def answer_lists(references) -> tuple[np.ndarray, pa.ChunkedArray]:
    """(number of answers of each question, all answers one question after the other) of a
    ``list<string>`` column, a ``string`` column (one answer per question), or a Python list whose
    entries are strings or lists of strings."""
    if not isinstance(references, (pa.Array, pa.ChunkedArray)):
        references = [[refs] if isinstance(refs, str) else list(refs) for refs in references]
        references = _chunked(references, pa.list_(pa.string()))
    column = _chunked(references)
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        return np.ones(len(column), dtype=np.int64), column.cast(pa.string())
    counts = np.zeros(len(column), dtype=np.int64)
    flat, start = [], 0
    for chunk in column.chunks:
        counts[start : start + len(chunk)] = chunk.value_lengths().to_numpy(zero_copy_only=False)
        start += len(chunk)
        flat.append(chunk.flatten().cast(pa.string()))
    return counts, pa.chunked_array(flat, type=pa.string())


def string_ids(*columns: pa.ChunkedArray) -> tuple[list[np.ndarray], list[str]]:
    """Ids (numpy int32, Arrow's dictionary indices) of the strings of ``columns`` in one shared
    dictionary, and the dictionary as a list: ``strings[ids[c][i]] == columns[c][i]``, and equal
    strings have equal ids."""
    chunks = [chunk for column in columns for chunk in column.chunks]
    sizes = [len(column) for column in columns]
    if not chunks or sum(sizes) == 0:
        return [np.zeros(0, dtype=np.int32) for _ in columns], []
    encoded = pa.chunked_array(chunks, type=pa.string()).dictionary_encode()
    last = encoded.chunks[-1].dictionary
    if any(len(chunk.dictionary) != len(last) for chunk in encoded.chunks):  # not one dictionary: unify
        encoded = encoded.unify_dictionaries()
        last = encoded.chunks[-1].dictionary
    ids = np.concatenate([chunk.indices.to_numpy(zero_copy_only=False) for chunk in encoded.chunks])
    bounds = np.cumsum([0, *sizes])
    return [ids[bounds[k] : bounds[k + 1]] for k in range(len(columns))], last.to_pylist()
