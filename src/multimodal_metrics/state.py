"""Mergeable scoring states: score shards anywhere, merge them in any order, get one process's result.

Every metric of the collection scores each example on its own and then reduces per-example rows (its
sufficient statistics: a score, tp/fp/fn counts, n-gram match counts, ...) to the result. A state keeps
those rows together with each example's global index::

    from multimodal_metrics import anls
    st = anls.state(preset="stvqa", threshold=0.5)          # options checked and fixed here
    st.update(predictions, references, index=ids)           # ids: global example indexes, any order
    st.merge(other)                                         # in place, returns self; any order
    blob = st.to_bytes(); st = anls.State.from_bytes(blob)  # versioned, self-describing, no pickle
    r = st.result(return_per_example=True, confidence=0.95, seed=1)

``result`` sorts the rows by index and hands them to the metric's own reduction, the very function its
``score`` runs on the rows of all examples. So ``r`` equals ``score(all predictions, all references,
...)`` bit for bit (value, per-example list in index order, bootstrap interval, signature) however the
examples were split and whatever the order of the merges: the reduction sees the same array in the same
order (a sum or mean in rank order would not give the same last bits).

Rules of merging:

* a duplicate index with identical rows (bit for bit) is dropped once: a ``DistributedSampler`` pads
  the last batch by repeating examples; a duplicate index with different rows is a ValueError naming
  the index;
* a state of another metric, preset, option value, resource (``context``: e.g. the lemmatiser's version)
  or library version is refused with a ValueError naming what differs;
* an empty state merges as a no-op; the ``result`` of an empty state raises the error of ``score([], [])``.

Wire format (``to_bytes``), little-endian::

    b"MMSTATE\\0" | uint32 header length | header (UTF-8 JSON) | index (int64 x n) | column payloads

The header names the format version, the library version, the metric, preset, options and context, the
number of rows and each column's name, dtype (``<f8``, ``<i8``, ``|b1`` or ``str``) and shape; numeric
columns follow as raw C-order bytes, text columns as one UTF-8 JSON list. ``from_bytes`` checks every
length and type before it builds anything and never unpickles.

A metric whose state is not only per-example rows (fid_clip: the Frechet moments, a d x d matrix whatever
the number of images) adds named numeric arrays of any shape after the columns (header ``arrays``: name,
dtype, shape, bytes; raw C-order bytes, like the numeric columns) and a JSON object (header ``extra``),
through ``_extra_state`` / ``_restore_extra``; the options it records are ``_portable_options`` (those
that do not travel as JSON, such as a torch module or a local path, are left out or named). A state
without them writes neither key, so its bytes are unchanged.
"""

from __future__ import annotations

import importlib
import json
import math
import numbers
import struct
from collections.abc import Mapping

import numpy as np

from ._version import __version__

MAGIC = b"MMSTATE\x00"
FORMAT = 1
_NUMERIC = {"<f8": np.float64, "<i8": np.int64, "|b1": np.bool_}
_MAX_INDEX = 2**63 - 1

__all__ = [
    "FORMAT",
    "MAGIC",
    "MetricState",
    "TextPairState",
    "canonical",
    "check_index",
    "from_bytes",
    "merge_all",
    "state_function",
    "text_pair_metric",
    "text_pair_state",
]


# ----------------------------------------------------------------------------------------------
# Checks
# ----------------------------------------------------------------------------------------------
def canonical(value, where: str):
    """``value`` as plain JSON data (tuples become lists); anything else is a TypeError naming ``where``."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, list | tuple):
        return [canonical(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        return {str(k): canonical(v, f"{where}[{k!r}]") for k, v in value.items()}
    raise TypeError(f"{where} cannot be kept in a state (got {type(value).__name__}): expected JSON data")


def check_index(index, n: int, start: int) -> np.ndarray:
    """The global indexes of ``n`` new examples: ``start, start + 1, ...`` when ``index`` is None, else
    ``n`` whole numbers in [0, 2**63 - 1] (list, tuple, numpy or torch integers; bools refused)."""
    if index is None:
        return np.arange(start, start + n, dtype=np.int64)
    from .inputs import as_list

    values = as_list(index, "index")
    if len(values) != n:
        raise ValueError(
            f"`index` has {len(values)} entries but the batch has {n} examples: one index per example"
        )
    array = np.asarray(values, dtype=object) if values else np.zeros(0, dtype=object)
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(
                f"`index[{i}]` must be a whole number (a global example index), got {type(value).__name__}"
            )
        if not 0 <= value <= _MAX_INDEX:
            raise ValueError(f"`index[{i}]` must be in [0, 2**63 - 1], got {value!r}")
    return array.astype(np.int64)


def _row_equal(columns: Mapping[str, np.ndarray], i: int, j: int) -> bool:
    """Rows ``i`` and ``j`` are identical bit for bit in every column (NaN equals NaN, 0.0 is not -0.0)."""
    for column in columns.values():
        a, b = column[i], column[j]
        if column.dtype == object:
            if a != b:
                return False
        elif np.asarray(a).tobytes() != np.asarray(b).tobytes():
            return False
    return True


def _check_columns(columns: Mapping[str, object], n: int, metric: str) -> dict[str, np.ndarray]:
    """The per-example columns of one batch as arrays of ``n`` rows (numbers: float64, int64 or bool;
    text: an object array of str)."""
    out = {}
    for name, values in columns.items():
        if isinstance(values, np.ndarray) and values.dtype.kind in "fiub":
            array = values.astype(
                {"f": np.float64, "i": np.int64, "u": np.int64, "b": np.bool_}[values.dtype.kind]
            )
        else:
            values = list(values)
            if all(isinstance(v, str) for v in values):
                array = np.empty(len(values), dtype=object)
                array[:] = values
            else:
                array = np.asarray(values)
                if array.dtype.kind not in "fiub":
                    raise TypeError(f"{metric} state: column {name!r} must hold numbers or strings")
                array = array.astype(
                    {"f": np.float64, "i": np.int64, "u": np.int64, "b": np.bool_}[array.dtype.kind]
                )
        if array.shape[:1] != (n,):
            raise ValueError(f"{metric} state: column {name!r} has {array.shape[:1]} rows, expected {n}")
        out[name] = array
    return out


# ----------------------------------------------------------------------------------------------
# The state
# ----------------------------------------------------------------------------------------------
class MetricState:
    """The mergeable state of one metric under one preset and set of options (see the module docstring).

    A metric subclasses it (or :class:`TextPairState`: :func:`text_pair_state` makes one) and sets
    ``options`` (its :class:`~multimodal_metrics.options.OptionTable`; ``metric``, its name, defaults to
    the table's), ``reduce_rows(columns, context, preset, options, resampling, return_per_example) ->
    Result`` (the metric's own reduction of rows in index order: what its ``score`` runs too) and ``score``
    (whose error on no examples is the empty state's), and implements ``update`` (check a batch, compute its
    rows with the metric's own per-example function, then :meth:`_add`). A state that is more than rows
    overrides :meth:`_reduce` and :meth:`_empty_error` (or :meth:`result`) instead.
    """

    metric: str = ""
    options = None  # the metric's OptionTable
    reduce_rows = None
    score = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.metric and cls.options is not None:
            cls.metric = cls.options.metric

    def __init__(self, preset: str | None = None, **options):
        table = type(self).options
        preset = table.default_preset if preset is None else preset
        if isinstance(preset, str):
            preset = str.__str__(preset)
        elif not isinstance(preset, str):
            raise TypeError(f"`preset` must be a preset name (str), got {type(preset).__name__}")
        self.options_resolved = table.resolve(preset, options)
        self.preset = preset
        self.version = __version__
        self.context: dict | None = None  # fields fixed by the scoring resources, set by the first update
        self._index = np.zeros(0, dtype=np.int64)
        self._columns: dict[str, np.ndarray] | None = None
        self._pending: list[tuple[np.ndarray, dict[str, np.ndarray]]] = []

    def _restore(self, preset: str, stored: dict) -> None:
        """Options read from bytes: the preset must exist, the names must be those the preset sets (every
        option of the table, or a preset's own subset where the table allows it: vqa_acc), and every value
        must pass its option's own check and come back unchanged. Resource paths (``kind="path"``) are
        kept as written, unopened: the state holds rows, not resources, so it merges and gives its result
        on a machine without them (their content is recorded in ``context``)."""
        table = type(self).options
        table.check_preset(preset)
        names = list(table.presets[preset])
        if sorted(stored) != sorted(names):
            unknown = sorted(set(stored) - set(names))
            missing = sorted(set(names) - set(stored))
            raise ValueError(
                f"{self.metric} state: unknown option(s) {unknown} / missing option(s) {missing} in the bytes"
            )
        options = {}
        for name, value in stored.items():
            option = table[name]
            if value is None or option.kind == "path":
                if value is not None and not isinstance(value, str):
                    raise ValueError(f"{self.metric} state: option {name!r} must be a path, got {value!r}")
                options[name] = value
                continue
            checked = option.checked(value)
            if canonical(checked, name) != value:
                raise ValueError(
                    f"{self.metric} state: option {name!r} = {value!r} is not in its checked form"
                )
            options[name] = checked
        self.options_resolved = options
        self.preset = preset
        self.version = __version__
        self.context = None
        self._index = np.zeros(0, dtype=np.int64)
        self._columns = None
        self._pending = []

    # -- what subclasses provide --------------------------------------------------------------
    def update(self, *args, **kwargs) -> MetricState:  # pragma: no cover - every metric overrides it
        raise NotImplementedError

    def _reduce(self, columns: dict[str, np.ndarray], resampling, return_per_example: bool):
        """The metric's ``reduce_rows`` of the rows in index order, with this state's preset and options."""
        reduce_rows = type(self).reduce_rows
        return reduce_rows(
            columns, self.context, self.preset, dict(self.options_resolved), resampling, return_per_example
        )

    def _empty_error(self) -> Exception:
        """The error of the metric's ``score`` on no examples, with this state's preset and options."""
        try:
            type(self).score([], [], self.preset, **self.options_resolved)
        except (ValueError, TypeError) as err:
            return err
        return ValueError(f"{self.metric}: no examples to score")  # pragma: no cover - score refuses none

    # -- what the bytes hold besides the rows ------------------------------------------------------
    def _portable_options(self) -> dict:
        """The options as JSON data: what the bytes record and two states compare. A metric whose options
        hold values that do not travel as JSON (a torch module, arrays) overrides it (and ``_restore``, which
        ``from_bytes`` calls on the recorded ones)."""
        return canonical(self.options_resolved, "options")

    def _extra_state(self) -> tuple[dict | None, dict[str, np.ndarray]]:
        """(JSON object, named numeric arrays) kept beside the rows in the bytes: nothing by default."""
        return None, {}

    def _restore_extra(self, extra: dict | None, arrays: dict[str, np.ndarray]) -> None:
        """Take back what ``_extra_state`` gave (after the rows are read); by default there is none."""
        if extra is not None or arrays:
            raise ValueError(f"these {self.metric} state bytes hold data a {self.metric} state does not read")

    # -- identity -----------------------------------------------------------------------------
    def _identity(self) -> dict:
        """What two states must share to merge, in the order a difference is reported."""
        return {
            "metric": self.metric,
            "library version": self.version,
            "preset": self.preset,
            **{
                f"option {k!r}": v
                for k, v in self._portable_options().items()
                if type(self).options[k].kind != "path"  # where a resource lies: its content is in `context`
            },
        }

    def _check_same(self, other: MetricState) -> None:
        if not isinstance(other, MetricState):
            raise TypeError(f"can only merge a state of a metric, got {type(other).__name__}")
        mine, theirs = self._identity(), other._identity()
        for key in [*mine, *(k for k in theirs if k not in mine)]:
            if mine.get(key) != theirs.get(key):
                raise ValueError(
                    f"cannot merge {other.metric} state into {self.metric} state: {key} differs "
                    f"({theirs.get(key)!r} vs {mine.get(key)!r})"
                )
        self._check_context(other.context)

    def _check_context(self, context: dict | None) -> None:
        if context is None or self.context is None:
            if self.context is None:
                self.context = None if context is None else dict(context)
            return
        for key in sorted(set(self.context) | set(context)):
            if self.context.get(key) != context.get(key):
                raise ValueError(
                    f"cannot merge {self.metric} states scored with different resources: {key!r} is "
                    f"{context.get(key)!r} in one and {self.context.get(key)!r} in the other"
                )

    # -- rows ---------------------------------------------------------------------------------
    def _next_index(self) -> int:
        self._consolidate()
        return int(self._index[-1]) + 1 if len(self._index) else 0

    def _add(self, index, columns: Mapping[str, object], context: Mapping | None = None) -> MetricState:
        """Add the rows of one checked batch (``columns``: name -> per-example values, all of one length)."""
        n = len(next(iter(columns.values()))) if columns else 0
        checked = _check_columns(columns, n, self.metric)
        start = self._next_index() if index is None else 0
        index = check_index(index, n, start)
        context = None if context is None else canonical(dict(context), f"{self.metric} state context")
        if n:
            self._check_context(context)
            self._pending.append((index, checked))
            self._fold()
        return self

    def _fold(self) -> None:
        """:meth:`_consolidate`; a refused batch is dropped, so the state stays as it was before it."""
        try:
            self._consolidate()
        except ValueError:
            self._pending = []
            raise

    def _consolidate(self) -> None:
        """Fold pending batches into the sorted rows; drop identical duplicates, refuse conflicting ones."""
        if not self._pending:
            return
        parts = ([(self._index, self._columns)] if self._columns is not None else []) + self._pending
        names = list(parts[0][1])
        for _, columns in parts[1:]:
            if list(columns) != names:
                raise ValueError(
                    f"{self.metric} state: batches with different columns ({names} vs {list(columns)})"
                )
        index = np.concatenate([p[0] for p in parts])
        columns = {name: np.concatenate([p[1][name] for p in parts]) for name in names}
        order = np.argsort(index, kind="stable")
        index = index[order]
        columns = {name: column[order] for name, column in columns.items()}
        repeated = np.flatnonzero(index[1:] == index[:-1]) + 1
        if len(repeated):
            for j in repeated.tolist():
                first = j - 1
                while first > 0 and index[first - 1] == index[j]:
                    first -= 1
                if not _row_equal(columns, first, j):
                    raise ValueError(
                        f"{self.metric} state: example index {int(index[j])} was scored twice with different "
                        f"results (a duplicate index must repeat the same example)"
                    )
            keep = np.ones(len(index), dtype=bool)
            keep[repeated] = False
            index = index[keep]
            columns = {name: column[keep] for name, column in columns.items()}
        self._index, self._columns, self._pending = index, columns, []

    def __len__(self) -> int:
        self._consolidate()
        return len(self._index)

    def shift_index(self, offset: int) -> MetricState:
        """Add ``offset`` to every index held (a shard numbered from 0 moved to its place in the whole
        set, e.g. a batch of a dataset scored without an index column); returns ``self``."""
        self._consolidate()
        self._index = self._index + int(offset)
        return self

    @property
    def index(self) -> np.ndarray:
        """The global indexes held, sorted, each once."""
        self._consolidate()
        return self._index.copy()

    def __repr__(self) -> str:
        return f"<{self.metric} state: preset {self.preset!r}, {len(self)} example(s)>"

    # -- merge --------------------------------------------------------------------------------
    def merge(self, *others: MetricState) -> MetricState:
        """Add the rows of ``others`` (states of the same metric, preset, options, resources and library
        version) to this state, in place; returns ``self``. Any order of merges gives the same state."""
        for other in others:
            self._check_same(other)
        for other in others:
            other._consolidate()
            if other._columns is not None and len(other._index):
                self._check_context(other.context)
                self._pending.append((other._index.copy(), {k: v.copy() for k, v in other._columns.items()}))
        self._fold()
        return self

    # -- result -------------------------------------------------------------------------------
    def _result_call(self, return_per_example, confidence, n_resamples, seed):
        """``result``'s checks of its own arguments and of the library version that wrote this state; the
        checked resampling options."""
        from .options import check_bool
        from .stats import Resampling

        check_bool(return_per_example, "return_per_example")
        resampling = Resampling(confidence, n_resamples, seed)
        if self.version != __version__:
            raise ValueError(
                f"this {self.metric} state was written by multimodal-metrics {self.version}, this is {__version__}: "
                f"score the examples again with this version"
            )
        return resampling

    def result(self, return_per_example=False, confidence=None, n_resamples=None, seed=None):
        """The metric's :class:`~multimodal_metrics.results.Result` of every example held, in index order:
        equal bit for bit to ``score`` on all of them with this state's preset and options."""
        resampling = self._result_call(return_per_example, confidence, n_resamples, seed)
        if not len(self):
            raise self._empty_error()
        return self._reduce(dict(self._columns), resampling, return_per_example)

    # -- bytes --------------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The state as bytes (see the module docstring for the format); ``State.from_bytes`` reads it."""
        self._consolidate()
        columns = self._columns or {}
        specs, payloads = [], [self._index.astype("<i8").tobytes()]
        for name, column in columns.items():
            if column.dtype == object:
                data = json.dumps(column.tolist(), ensure_ascii=False).encode("utf-8")
                specs.append({"name": name, "dtype": "str", "shape": list(column.shape), "nbytes": len(data)})
            else:
                dtype = {"f": "<f8", "i": "<i8", "b": "|b1"}[column.dtype.kind]
                data = np.ascontiguousarray(column, dtype=dtype).tobytes()
                specs.append({"name": name, "dtype": dtype, "shape": list(column.shape), "nbytes": len(data)})
            payloads.append(data)
        header = {
            "format": FORMAT,
            "library": "multimodal-metrics",
            "version": self.version,
            "metric": self.metric,
            "preset": self.preset,
            "options": self._portable_options(),
            "context": self.context,
            "n": len(self._index),
            "columns": specs,
        }
        extra, arrays = self._extra_state()
        if extra is not None:
            header["extra"] = canonical(extra, f"{self.metric} state")
        if arrays:
            header["arrays"] = []
            for name, array in arrays.items():
                array = np.asarray(array)
                dtype = {"f": "<f8", "i": "<i8", "u": "<i8", "b": "|b1"}[array.dtype.kind]
                data = np.ascontiguousarray(array, dtype=dtype).tobytes()
                header["arrays"].append(
                    {"name": name, "dtype": dtype, "shape": list(array.shape), "nbytes": len(data)}
                )
                payloads.append(data)
        head = json.dumps(header, sort_keys=True, allow_nan=True).encode("utf-8")
        return b"".join([MAGIC, struct.pack("<I", len(head)), head, *payloads])

    @classmethod
    def from_bytes(cls, blob) -> MetricState:
        """A state from :meth:`to_bytes`. On the class of a metric (``anls.State.from_bytes``), a state of
        another metric is refused; on ``MetricState`` (or :func:`from_bytes`) the metric is read from the
        header. Every length, type and option is checked; a malformed blob is a ValueError."""
        header, payload = _read_header(blob)
        metric = header["metric"]
        if cls.metric and metric != cls.metric:
            raise ValueError(f"these bytes hold a {metric} state, not a state of {cls.metric}")
        target = cls if cls.metric else _state_class(metric)
        state = target.__new__(target)
        state._restore(header["preset"], header["options"])
        state.version = header["version"]
        state.context = header["context"]
        n = header["n"]
        offset = n * 8
        if len(payload) < offset:
            raise ValueError("state bytes are truncated (index)")
        index = np.frombuffer(payload[:offset], dtype="<i8").astype(np.int64)
        columns = {}
        for spec in header["columns"]:
            name, dtype, shape, nbytes = spec["name"], spec["dtype"], tuple(spec["shape"]), spec["nbytes"]
            data = payload[offset : offset + nbytes]
            if len(data) != nbytes:
                raise ValueError(f"state bytes are truncated (column {name!r})")
            offset += nbytes
            if shape[:1] != (n,):
                raise ValueError(f"state column {name!r} has shape {list(shape)}, expected {n} rows")
            if dtype == "str":
                values = json.loads(bytes(data).decode("utf-8"))
                if (
                    not isinstance(values, list)
                    or len(values) != n
                    or not all(isinstance(v, str) for v in values)
                ):
                    raise ValueError(f"state column {name!r} must hold {n} strings")
                column = np.empty(n, dtype=object)
                column[:] = values
            else:
                if math.prod(shape) * np.dtype(dtype).itemsize != nbytes:
                    raise ValueError(f"state column {name!r}: {nbytes} bytes do not fit shape {list(shape)}")
                column = np.frombuffer(data, dtype=dtype).reshape(shape).astype(_NUMERIC[dtype])
            columns[name] = column
        arrays = {}
        for spec in header.get("arrays", []):
            name, dtype, shape, nbytes = spec["name"], spec["dtype"], tuple(spec["shape"]), spec["nbytes"]
            data = payload[offset : offset + nbytes]
            if len(data) != nbytes:
                raise ValueError(f"state bytes are truncated (array {name!r})")
            offset += nbytes
            if math.prod(shape) * np.dtype(dtype).itemsize != nbytes or name in arrays:
                raise ValueError(f"state array {name!r}: {nbytes} bytes do not fit shape {list(shape)}")
            arrays[name] = np.frombuffer(data, dtype=dtype).reshape(shape).astype(_NUMERIC[dtype])
        if offset != len(payload):
            raise ValueError(f"state bytes have {len(payload) - offset} trailing bytes")
        if n:
            if (index < 0).any():
                raise ValueError("state index holds a negative number")
            state._pending = [(index, columns)]
            state._consolidate()
        state._restore_extra(header.get("extra"), arrays)
        return state


class TextPairState(MetricState):
    """The state of a text-pair metric (one prediction, one or several references per example).

    Subclasses (:func:`text_pair_state`) set ``example_rows(predictions, flat_references, counts, preset,
    options) -> (columns, context)`` and ``reduce_rows`` (the two halves of the metric's ``score_checked``),
    and ``score`` (for the empty error)."""

    example_rows = None

    def update(self, predictions, references, index=None) -> TextPairState:
        """Score a batch: ``predictions`` (one string per example), ``references`` (one string or a list of
        strings per example), ``index`` (the global index of each example; default: after the last one
        held). The checks and errors are those of ``score``."""
        from .inputs import text_pairs

        predictions, flat, counts = text_pairs(predictions, references)
        columns, context = type(self).example_rows(
            predictions, flat, counts, self.preset, dict(self.options_resolved)
        )
        return self._add(index, columns, context)


def text_pair_state(options, example_rows, reduce_rows, score, doc: str) -> type[TextPairState]:
    """The ``State`` class of a text-pair metric: a :class:`TextPairState` with the metric's option table,
    the two halves of its ``score_checked``, its ``score`` and ``doc`` (what a state of it holds per
    example), defined in the metric's module (that of ``reduce_rows``) as ``State``."""
    namespace = {
        "__doc__": doc,
        "__module__": reduce_rows.__module__,
        "__qualname__": "State",
        "options": options,
        "example_rows": staticmethod(example_rows),
        "reduce_rows": staticmethod(reduce_rows),
        "score": staticmethod(score),
    }
    return type("State", (TextPairState,), namespace)


def text_pair_metric(
    options,
    example_rows,
    reduce_rows,
    score_doc: str,
    state_doc: str,
    compare_doc=None,
    score_checked=None,
    state_note=None,
) -> tuple:
    """``(score_checked, score, compare, State, state)`` of a text-pair metric from its option table, the two
    halves of its scoring (``example_rows``, ``reduce_rows``) and the docstrings of ``score`` and ``State``
    (``compare_doc``: ``compare``'s, default the generic one; ``score_checked``: the metric's own, default
    ``example_rows`` then ``reduce_rows``; ``state_note``: what ``state``'s docstring adds)."""
    from .inputs import text_pair_score, text_pair_score_checked
    from .stats import compare_function

    score_checked = score_checked or text_pair_score_checked(example_rows, reduce_rows)
    score = text_pair_score(score_checked, options, score_doc)
    compare = compare_function(score, compare_doc)
    state_class = text_pair_state(options, example_rows, reduce_rows, score, state_doc)
    return score_checked, score, compare, state_class, state_function(state_class, state_note)


def state_function(state_class: type[MetricState], doc: str | None = None):
    """A metric's ``state(preset="default", **options)``: an empty ``state_class`` with ``preset`` and
    ``options`` checked and fixed (as ``score`` takes them); ``doc`` says more where the metric needs it."""

    def state(preset=state_class.options.default_preset, **options):
        return state_class(preset, **options)

    state.__doc__ = (
        "An empty :class:`State` with ``preset`` and ``options`` checked and fixed (as ``score`` takes them)"
        + (f"; {doc}" if doc else ".")
    )
    state.__module__, state.__qualname__ = state_class.__module__, "state"
    state.__annotations__["return"] = state_class
    return state


# ----------------------------------------------------------------------------------------------
# Reading bytes of any metric
# ----------------------------------------------------------------------------------------------
def _check_specs(specs: list, dtypes: tuple, what: str) -> None:
    """Each description of a header's ``columns``/``arrays``: a name, a dtype among ``dtypes``, a shape of
    whole numbers >= 0 and a byte count >= 0 (else a ValueError naming ``what`` and the description)."""
    for spec in specs:
        ok = (
            isinstance(spec, dict)
            and isinstance(spec.get("name"), str)
            and spec.get("dtype") in dtypes
            and isinstance(spec.get("shape"), list)
            and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in spec["shape"])
            and isinstance(spec.get("nbytes"), int)
            and not isinstance(spec["nbytes"], bool)
            and spec["nbytes"] >= 0
        )
        if not ok:
            raise ValueError(f"state header has a malformed {what} description: {str(spec)[:200]}")


def _read_header(blob) -> tuple[dict, memoryview]:
    if not isinstance(blob, bytes | bytearray | memoryview):
        raise TypeError(f"state bytes must be bytes, got {type(blob).__name__}")
    blob = memoryview(blob).cast("B")
    if len(blob) < len(MAGIC) + 4 or bytes(blob[: len(MAGIC)]) != MAGIC:
        raise ValueError("these bytes are not a multimodal-metrics state (no MMSTATE header)")
    (size,) = struct.unpack("<I", blob[len(MAGIC) : len(MAGIC) + 4])
    start = len(MAGIC) + 4
    if len(blob) < start + size:
        raise ValueError("state bytes are truncated (header)")
    try:
        header = json.loads(bytes(blob[start : start + size]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"state header is not valid JSON: {err}") from None
    if not isinstance(header, dict) or header.get("library") != "multimodal-metrics":
        raise ValueError("these bytes are not a multimodal-metrics state")
    if header.get("format") != FORMAT:
        raise ValueError(
            f"state format {header.get('format')!r} is not supported (this library reads format {FORMAT})"
        )
    expected = {"version": str, "metric": str, "preset": str, "options": dict, "n": int, "columns": list}
    for key, kind in expected.items():
        if not isinstance(header.get(key), kind) or isinstance(header.get(key), bool):
            raise ValueError(f"state header field {key!r} is missing or not a {kind.__name__}")
    if header["n"] < 0 or not (header.get("context") is None or isinstance(header["context"], dict)):
        raise ValueError("state header has a bad row count or context")
    if not isinstance(header.get("extra", {}), dict) or not isinstance(header.get("arrays", []), list):
        raise ValueError("state header has a malformed 'extra' or 'arrays' field")
    _check_specs(header.get("arrays", []), _NUMERIC, "array")
    _check_specs(header["columns"], (*_NUMERIC, "str"), "column")
    return header, blob[start + size :]


def _state_class(metric: str) -> type[MetricState]:
    from . import METRICS

    if metric not in METRICS:
        raise ValueError(f"state of an unknown metric {metric!r}; expected one of {list(METRICS)}")
    module = importlib.import_module(f"{__package__}.{metric}")
    state_class = getattr(module, "State", None)
    if state_class is None:
        raise ValueError(f"{metric} has no mergeable state in this version")
    return state_class


def from_bytes(blob) -> MetricState:
    """The state of whichever metric ``blob`` (from ``to_bytes``) holds."""
    header, _ = _read_header(blob)
    return _state_class(header["metric"]).from_bytes(blob)


def merge_all(states) -> MetricState:
    """One state holding the rows of every state in ``states`` (a new object; the inputs are unchanged)."""
    states = list(states)
    if not states:
        raise ValueError("merge_all needs at least one state")
    first = type(states[0]).from_bytes(states[0].to_bytes())
    return first.merge(*states[1:])
