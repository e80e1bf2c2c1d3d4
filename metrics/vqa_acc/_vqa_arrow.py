"""Arrow in and out for the vqa_acc module: the checked batch encoded to Arrow arrays in C passes, and
the stored columns read back as numpy ids without a Python object per answer (no evaluate, no state).

evaluate stores every batch in an Arrow table and, by default, gives ``_compute`` Python lists again
(``Table.to_pydict``: one Python object per answer, most of a ``compute`` call on 200,000 questions x
10 answers). The module reads its columns as Arrow instead (``info.format = "arrow"``), and:

* :func:`plain_answer_lists` checks the usual batch of answers (a list of non-empty lists of ``str``)
  in C passes while building its Arrow array (flat strings plus numpy offsets); the module passes it
  to evaluate as an :class:`ArrowBacked` list and :class:`ArrowBatchFeatures` stores the array as it
  is (evaluate and the datasets writer would walk every answer in Python twice first).
* :func:`answer_lists` gives the number of answers of every question (numpy) and all answers one
  question after the other (an Arrow string column), from a ``list<string>`` column (or a ``string``
  column: one answer each).
* :func:`string_ids` turns string columns into ids of one shared dictionary (Arrow's hash kernel,
  ``dictionary_encode``): equal strings <=> equal ids, and the distinct strings as a Python list. The
  metric then works on the few distinct strings in Python and on the ids with numpy.

Python lists are accepted too (converted with ``pa.array``), so the readers also serve direct calls.
"""

import itertools

import datasets
import numpy as np
import pyarrow as pa

_MAX_INT32 = 2**31 - 1


class ArrowBacked(list):
    """A checked batch column: the Python list evaluate inspects (``len``, ``column[0]``), carrying the
    Arrow array it is stored as (``arrow``), built while checking it."""

    arrow: pa.Array


def backed(values: list, arrow: pa.Array | None) -> list:
    """``values`` as an :class:`ArrowBacked` column stored as ``arrow`` (``values`` itself when None)."""
    if arrow is None:
        return values
    column = ArrowBacked(values)
    column.arrow = arrow
    return column


def backed_strings(values: list) -> list:
    """Checked strings (one per question) with their Arrow ``string`` array (:func:`backed`)."""
    return backed(values, string_array(values))


def backed_answer_lists(lists: list) -> list:
    """Checked lists of strings with their Arrow ``list<string>`` array (:func:`backed`)."""
    return backed(lists, string_list_array(lists))


class ArrowBatchFeatures(datasets.Features):
    """``Features`` whose ``encode_batch`` stores already checked columns as Arrow arrays.

    For a module whose ``add_batch`` checks every value first (strings, lists of strings): evaluate's
    own encoding walks every value in Python twice (``encode_nested_example``, then the writer's
    ``cast_to_python_objects``) before Arrow converts them. Here an :class:`ArrowBacked` column is
    stored as its array; a plain ``Value("string")`` or ``Sequence(Value("string"))`` column is
    converted by :func:`string_array` / :func:`string_list_array`; anything else (or more than 2 GiB of
    text in one batch) is passed on as a list, the writer's usual path. Schema and data are the same.
    """

    def encode_batch(self, batch):
        if set(batch) != set(self):
            raise ValueError(f"Column mismatch between batch {set(batch)} and features {set(self)}")
        return {key: _encode_column(column, self[key]) for key, column in batch.items()}


def _is_string(feature) -> bool:
    return isinstance(feature, datasets.Value) and feature.dtype == "string"


def _encode_column(column, feature):
    if isinstance(column, ArrowBacked):
        return column.arrow
    column = column if type(column) is list else list(column)
    array = None
    if _is_string(feature):
        array = string_array(column)
    elif isinstance(feature, datasets.Sequence) and _is_string(feature.feature):
        array = string_list_array(column)
    return column if array is None else array


def string_array(values: list) -> pa.Array | None:
    """``values`` (Python strings) as one Arrow ``string`` array; None past 2 GiB of text (Arrow
    would chunk it). Raises ``ArrowTypeError``/``UnicodeEncodeError`` on a non-string / lone surrogate
    (Arrow accepts bytes and turns None into null: callers check types and None themselves)."""
    array = pa.array(values, type=pa.string())
    return array if isinstance(array, pa.Array) else None


def string_list_array(lists: list) -> pa.Array | None:
    """``lists`` (lists of Python strings) as an Arrow ``list<string>`` array, built from the flat
    strings and numpy offsets; None past 2**31 - 1 strings or 2 GiB of text. Raises like
    :func:`string_array`."""
    flat = list(itertools.chain.from_iterable(lists))
    values = string_array(flat) if len(flat) <= _MAX_INT32 else None
    return None if values is None else _list_array(lists, values)


def _list_array(lists: list, values: pa.Array) -> pa.Array:
    """The ``list<string>`` array of ``lists`` whose flattened strings are ``values``."""
    offsets = np.zeros(len(lists) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, lists), dtype=np.int32, count=len(lists)), out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), values)


def plain_answer_lists(references) -> ArrowBacked | None:
    """``references`` as an :class:`ArrowBacked` ``list<string>`` column when it is the plain form (a
    list of non-empty lists of strings, every string valid UTF-8), checked in C passes; None for
    anything else (the caller then checks it entry by entry, naming the bad one).

    The strings are checked by Arrow's own type inference over all of them: the result is a
    ``string`` array without nulls only when every value is a ``str`` (bytes make it ``binary``, None
    a null, a number or a lone surrogate an error)."""
    if type(references) is not list or not references or not set(map(type, references)) <= {list}:
        return None
    if min(map(len, references)) == 0:
        return None
    flat = list(itertools.chain.from_iterable(references))
    if len(flat) > _MAX_INT32:
        return None
    try:
        values = pa.array(flat)
    except (pa.ArrowException, UnicodeEncodeError, TypeError, ValueError, OverflowError):
        return None
    if not isinstance(values, pa.Array) or values.type != pa.string() or values.null_count:
        return None
    return backed(references, _list_array(references, values))


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
    """Ids of the strings of ``columns`` in one shared dictionary, and the dictionary as a list:
    ``strings[ids[c][i]] == columns[c][i]`` and equal strings have equal ids."""
    chunks = [chunk for column in columns for chunk in column.chunks]
    sizes = [len(column) for column in columns]
    if not chunks or sum(sizes) == 0:
        return [np.zeros(0, dtype=np.int64) for _ in columns], []
    encoded = pa.chunked_array(chunks, type=pa.string()).dictionary_encode()
    last = encoded.chunks[-1].dictionary
    if any(len(chunk.dictionary) != len(last) for chunk in encoded.chunks):  # not one dictionary: unify
        encoded = encoded.unify_dictionaries()
        last = encoded.chunks[-1].dictionary
    ids = np.concatenate([chunk.indices.to_numpy(zero_copy_only=False) for chunk in encoded.chunks])
    ids = ids.astype(np.int64)
    bounds = np.cumsum([0, *sizes])
    return [ids[bounds[k] : bounds[k + 1]] for k in range(len(columns))], last.to_pylist()
