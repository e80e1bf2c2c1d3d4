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

Every example is also kept with a digest of its inputs (:func:`~multimodal_metrics.digests.example_digests`:
128 bits of its prediction, references and per-example inputs in the form the metric checked them), so a
repeated example is recognised by what it is, not by what it scored. Rules of merging:

* an index held twice with the same digest is one example seen twice and is kept once (a
  ``DistributedSampler`` pads the last batch by repeating examples); an index held twice with another
  digest is a ValueError naming the index (two examples given one index), as is one example that scored
  two different rows;
* a state of another metric, preset, option value, resource (``context``: e.g. the lemmatiser's version),
  library version or job size (``total``) is refused with a ValueError naming what differs;
* an empty state merges as a no-op; the ``result`` of an empty state raises the error of ``score([], [])``.

The whole job's size: ``state(total=N)`` says the job has N examples (``DistributedSampler`` knows the
dataset's length, ``mm-score --shard`` the record count, Ray the dataset's count). ``result`` then refuses a
state that does not hold N examples, naming the missing indexes ("examples 75-99 are missing (25 of 100):
a shard that did not arrive?"); ``result(allow_partial=True)`` scores the subset, warns, and records
``partial:<held>/<total>`` in the signature, so a partial number never passes for the whole one.

Wire format (``to_bytes``; :mod:`multimodal_metrics.state_format` frames it with a SHA-256 checksum that is
checked before anything is parsed): a JSON header (format version, library version, metric, preset,
options, context, ``total``, the number of rows and each column's name, dtype (``<f8``, ``<i8``, ``|b1`` or
``str``) and shape), then the payload: the index (int64 x n), the digests (16 bytes x n), numeric columns
as raw little-endian C-order bytes, text columns as one UTF-8 JSON list. ``from_bytes`` checks every length
and type, and every column against the metric's own description (:mod:`multimodal_metrics.state_columns`:
names, dtypes, shapes, ranges), before it builds anything, and never unpickles.

A metric whose state is not only per-example rows (fid_clip: the Frechet moments, a d x d matrix whatever
the number of images) adds named numeric arrays of any shape after the columns (header ``arrays``: name,
dtype, shape, bytes; raw C-order bytes, like the numeric columns) and a JSON object (header ``extra``),
through ``_extra_state`` / ``_restore_extra``; the options it records are ``_portable_options`` (those
that do not travel as JSON, such as a torch module or a local path, are left out or named).
"""

from __future__ import annotations

import importlib
import json
import math
import numbers
import warnings
from collections.abc import Mapping

import numpy as np

from ._version import __version__
from .digests import EXAMPLE_DIGEST_SIZE, example_digests
from .state_columns import check_rows
from .state_format import FORMAT, MAGIC, PayloadReader, check_header, pack, read_file, unpack
from .state_index import (
    check_index,
    check_offset,
    check_record_ids,
    check_total,
    mark_partial,
    merge_record_ids,
    missing_message,
    read_record_ids,
)

_NUMERIC = {"<f8": np.float64, "<i8": np.int64, "|b1": np.bool_}
_NO_DIGESTS = np.zeros((0, EXAMPLE_DIGEST_SIZE), dtype=np.uint8)

__all__ = [
    "FORMAT",
    "MAGIC",
    "MetricState",
    "TextPairState",
    "canonical",
    "from_bytes",
    "merge_all",
    "read_state",
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
    the table's), ``columns`` (``{name: Column}``: what a row holds, checked on load; or overrides
    :meth:`_schema` where it depends on the preset), ``reduce_rows(columns, context, preset, options,
    resampling, return_per_example) -> Result`` (the metric's own reduction of rows in index order: what
    its ``score`` runs too) and ``score`` (whose error on no examples is the empty state's), and implements
    ``update`` (check a batch, compute its rows with the metric's own per-example function and the digests
    of its inputs, then :meth:`_add`). A state that is more than rows overrides :meth:`_reduce` and
    :meth:`_empty_error` (or :meth:`result`) instead.
    """

    metric: str = ""
    options = None  # the metric's OptionTable
    columns: dict = {}  # name -> state_columns.Column
    reduce_rows = None
    score = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.metric and cls.options is not None:
            cls.metric = cls.options.metric

    def __init__(self, preset: str | None = None, *, total: int | None = None, **options):
        table = type(self).options
        preset = table.default_preset if preset is None else preset
        if isinstance(preset, str):
            preset = str.__str__(preset)
        elif not isinstance(preset, str):
            raise TypeError(f"`preset` must be a preset name (str), got {type(preset).__name__}")
        self.total = check_total(total)
        self.options_resolved = table.resolve(preset, options)
        self.preset = preset
        self.version = __version__
        self.context: dict | None = None  # fields fixed by the scoring resources, set by the first update
        self._clear_rows()

    def _clear_rows(self) -> None:
        self.record_ids: dict[int, str | int] = {}  # index -> the record's own id, where a caller named it
        self._index = np.zeros(0, dtype=np.int64)
        self._digest = _NO_DIGESTS
        self._columns: dict[str, np.ndarray] | None = None
        self._pending: list[tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]] = []

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
            try:
                checked = option.checked(value)
            except (TypeError, ValueError) as err:
                raise ValueError(
                    f"{self.metric} state: option {name!r} = {value!r} is refused: {err}"
                ) from None
            if canonical(checked, name) != value:
                raise ValueError(
                    f"{self.metric} state: option {name!r} = {value!r} is not in its checked form"
                )
            options[name] = checked
        self.options_resolved = options
        self.preset = preset
        self.version = __version__
        self.context = None
        self.total = None
        self._clear_rows()

    # -- what subclasses provide --------------------------------------------------------------
    def update(self, *args, **kwargs) -> MetricState:  # pragma: no cover - every metric overrides it
        raise NotImplementedError

    def _schema(self) -> dict:
        """The columns a row of this state holds (``{name: Column}``), checked when bytes are read:
        ``columns``, or ``columns(options)`` where it is a function of the resolved options."""
        columns = type(self).columns
        return columns(self.options_resolved) if callable(columns) else columns

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

    def check_mergeable(self, other: MetricState) -> None:
        """A ValueError naming what differs when ``other`` cannot merge into this state (another metric,
        preset, option, resource, library version or job size); nothing changes."""
        context = self.context
        try:
            self._check_same(other)
        finally:
            self.context = context

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
        if None not in (self.total, other.total) and self.total != other.total:
            raise ValueError(
                f"cannot merge {self.metric} states of jobs of different sizes: `total` is {other.total} in "
                f"one and {self.total} in the other"
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

    def _add(
        self, index, columns: Mapping[str, object], context: Mapping | None, digests: np.ndarray
    ) -> MetricState:
        """Add the rows of one checked batch (``columns``: name -> per-example values, all of one length;
        ``digests``: what each example is, :func:`~multimodal_metrics.digests.example_digests`)."""
        n = len(next(iter(columns.values()))) if columns else 0
        checked = _check_columns(columns, n, self.metric)
        start = self._next_index() if index is None else 0
        index = check_index(index, n, start)
        digests = np.asarray(digests, dtype=np.uint8)
        if digests.shape != (n, EXAMPLE_DIGEST_SIZE):  # pragma: no cover - the metric's own update
            raise ValueError(f"{self.metric} state: {digests.shape} digests for {n} examples")
        context = None if context is None else canonical(dict(context), f"{self.metric} state context")
        if n:
            self._check_context(context)
            self._pending.append((index, digests, checked))
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
        """Fold pending batches into the sorted rows: an index repeated with the same digest (and rows) is
        kept once; one repeated with another digest, or the same digest with other rows, is refused."""
        if not self._pending:
            return
        held = [(self._index, self._digest, self._columns)] if self._columns is not None else []
        parts = held + self._pending
        names = list(parts[0][2])
        for _, _, columns in parts[1:]:
            if list(columns) != names:
                raise ValueError(
                    f"{self.metric} state: batches with different columns ({names} vs {list(columns)})"
                )
        index = np.concatenate([p[0] for p in parts])
        digest = np.concatenate([p[1] for p in parts])
        columns = {name: np.concatenate([p[2][name] for p in parts]) for name in names}
        order = np.argsort(index, kind="stable")
        index, digest = index[order], digest[order]
        columns = {name: column[order] for name, column in columns.items()}
        repeated = np.flatnonzero(index[1:] == index[:-1]) + 1
        if len(repeated):
            for j in repeated.tolist():
                first = j - 1
                while first > 0 and index[first - 1] == index[j]:
                    first -= 1
                if not np.array_equal(digest[first], digest[j]):
                    raise ValueError(
                        f"{self.metric} state: example index {int(index[j])} was given to two different "
                        "examples (their inputs differ): each example needs an index of its own"
                    )
                if not _row_equal(columns, first, j):
                    raise ValueError(
                        f"{self.metric} state: example index {int(index[j])} was scored twice with different "
                        "results from the same inputs (a scorer that is not deterministic?)"
                    )
            keep = np.ones(len(index), dtype=bool)
            keep[repeated] = False
            index, digest = index[keep], digest[keep]
            columns = {name: column[keep] for name, column in columns.items()}
        self._index, self._digest, self._columns, self._pending = index, digest, columns, []

    def __len__(self) -> int:
        self._consolidate()
        return len(self._index)

    def shift_index(self, offset: int) -> MetricState:
        """Add ``offset`` to every index held (a shard numbered from 0 moved to its place in the whole
        set, e.g. a batch of a dataset scored without an index column); returns ``self``. An offset that
        would take an index below 0 or past 2**63 - 1 is a ValueError, and nothing changes."""
        self._consolidate()
        offset = check_offset(offset, self._index, self.metric)
        self._index = self._index + np.int64(offset)
        return self

    def name_records(self, index, ids) -> MetricState:
        """Keep each example's record id (``ids``: a string or whole number per entry of ``index``), e.g.
        the ``questionId`` of a DocVQA record, so that a merged state can write per-example lines under the
        ids one command writes (``mm-score merge --per-example``). An index already named otherwise is a
        ValueError. Returns ``self``."""
        named = check_record_ids(index, ids)
        clash = [i for i, rid in named.items() if self.record_ids.get(i, rid) != rid]
        if clash:
            raise ValueError(
                f"example index {clash[0]} already has the record id {self.record_ids[clash[0]]!r}"
            )
        self.record_ids.update(named)
        return self

    @property
    def index(self) -> np.ndarray:
        """The global indexes held, sorted, each once."""
        self._consolidate()
        return self._index.copy()

    @property
    def digests(self) -> np.ndarray:
        """What each example held is (``(n, 16)`` uint8, in index order): the digest of its inputs."""
        self._consolidate()
        return self._digest.copy()

    def __repr__(self) -> str:
        total = "" if self.total is None else f" of {self.total}"
        return f"<{self.metric} state: preset {self.preset!r}, {len(self)}{total} example(s)>"

    # -- merge --------------------------------------------------------------------------------
    def merge(self, *others: MetricState) -> MetricState:
        """Add the rows of ``others`` (states of the same metric, preset, options, resources, library
        version and job size) to this state, in place; returns ``self``. Any order of merges gives the
        same state."""
        for other in others:
            self._check_same(other)
        merged_ids = merge_record_ids(self.record_ids, *(other.record_ids for other in others))
        for other in others:
            self.total = self.total if other.total is None else other.total
            other._consolidate()
            if other._columns is not None and len(other._index):
                self._check_context(other.context)
                self._pending.append(
                    (
                        other._index.copy(),
                        other._digest.copy(),
                        {k: v.copy() for k, v in other._columns.items()},
                    )
                )
        self._fold()
        self.record_ids = merged_ids
        return self

    # -- result -------------------------------------------------------------------------------
    def _result_call(self, return_per_example, confidence, n_resamples, seed, allow_partial=False):
        """``result``'s checks of its own arguments and of the library version that wrote this state; the
        checked resampling options."""
        from .options import check_bool
        from .stats import Resampling

        check_bool(return_per_example, "return_per_example")
        check_bool(allow_partial, "allow_partial")
        resampling = Resampling(confidence, n_resamples, seed)
        if self.version != __version__:
            raise ValueError(
                f"this {self.metric} state was written by multimodal-metrics {self.version}, this is {__version__}: "
                f"score the examples again with this version"
            )
        return resampling

    def _coverage(self, index: np.ndarray, allow_partial: bool) -> str | None:
        """None when the state holds the whole job (or no ``total`` is known); ``"<held>/<total>"`` for a
        subset that ``allow_partial`` accepts (with a warning); else the ValueError naming what is missing."""
        if self.total is None:
            return None
        message = missing_message(index, self.total, self.metric)
        if message is None:
            return None
        if not allow_partial or len(index) > self.total:
            hint = "" if len(index) > self.total else "; pass allow_partial=True to score the examples held"
            raise ValueError(message + hint)
        warnings.warn(
            f"{message}; scoring the {len(index)} held (allow_partial=True): the signature says partial",
            UserWarning,
            stacklevel=3,
        )
        return f"{len(index)}/{self.total}"

    def result(
        self, return_per_example=False, confidence=None, n_resamples=None, seed=None, allow_partial=False
    ):
        """The metric's :class:`~multimodal_metrics.results.Result` of every example held, in index order:
        equal bit for bit to ``score`` on all of them with this state's preset and options. With a
        ``total``, a state that lacks examples of the job is a ValueError naming them, unless
        ``allow_partial=True`` (then a warning, and ``partial:<held>/<total>`` in the signature)."""
        resampling = self._result_call(return_per_example, confidence, n_resamples, seed, allow_partial)
        partial = self._coverage(self.index, allow_partial)
        if not len(self):
            raise self._empty_error()
        return mark_partial(self._reduce(dict(self._columns), resampling, return_per_example), partial)

    # -- bytes --------------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The state as bytes (see the module docstring for the format); ``State.from_bytes`` reads it."""
        self._consolidate()
        columns = self._columns or {}
        payloads = [self._index.astype("<i8").tobytes(), np.ascontiguousarray(self._digest).tobytes()]
        specs = []
        for name, column in columns.items():
            if column.dtype == object:
                data = json.dumps(column.tolist(), ensure_ascii=False).encode("utf-8", "surrogatepass")
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
            "total": self.total,
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
        if self.record_ids:  # last, so that no other part moves
            data = json.dumps(sorted(self.record_ids.items()), ensure_ascii=False).encode(
                "utf-8", "surrogatepass"
            )
            header["record_ids"] = len(data)
            payloads.append(data)
        return pack(header, payloads)

    @classmethod
    def from_bytes(cls, blob, where: str = "these bytes") -> MetricState:
        """A state from :meth:`to_bytes`. On the class of a metric (``anls.State.from_bytes``), a state of
        another metric is refused; on ``MetricState`` (or :func:`from_bytes`) the metric is read from the
        header. The checksum, every length and type, every option and every column (against the metric's
        own description) are checked; a malformed blob is a ValueError (``where``: the file's name, for
        the message)."""
        header, payload = _read_header(blob, where)
        metric = header["metric"]
        if cls.metric and metric != cls.metric:
            raise ValueError(f"{where}: a {metric} state, not a state of {cls.metric}")
        target = cls if cls.metric else _state_class(metric)
        try:
            return target._from_parts(header, payload)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None

    @classmethod
    def _from_parts(cls, header: dict, payload: memoryview) -> MetricState:
        state = cls.__new__(cls)
        state._restore(header["preset"], header["options"])
        state.version = header["version"]
        state.context = header["context"]
        state.total = header["total"]
        n = header["n"]
        reader = PayloadReader(payload)
        index = np.frombuffer(reader.take(n * 8, "index"), dtype="<i8").astype(np.int64)
        digest = np.frombuffer(reader.take(n * EXAMPLE_DIGEST_SIZE, "digests"), dtype=np.uint8)
        digest = digest.reshape(n, EXAMPLE_DIGEST_SIZE).copy()
        columns = {}
        for spec in header["columns"]:
            name, dtype, shape, nbytes = spec["name"], spec["dtype"], tuple(spec["shape"]), spec["nbytes"]
            if name in columns:
                raise ValueError(f"state column {name!r} appears twice")
            if shape[:1] != (n,):
                raise ValueError(f"state column {name!r} has shape {list(shape)}, expected {n} rows")
            data = reader.take(nbytes, f"column {name!r}")
            if dtype == "str":
                try:
                    values = json.loads(bytes(data).decode("utf-8", "surrogatepass"))
                except (UnicodeDecodeError, ValueError, RecursionError):
                    values = None
                if (
                    not isinstance(values, list)
                    or len(values) != n
                    or len(shape) != 1
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
        if n:
            check_rows(columns, state._schema(), state.metric)
        arrays = {}
        for spec in header.get("arrays", []):
            name, dtype, shape, nbytes = spec["name"], spec["dtype"], tuple(spec["shape"]), spec["nbytes"]
            data = reader.take(nbytes, f"array {name!r}")
            if math.prod(shape) * np.dtype(dtype).itemsize != nbytes or name in arrays:
                raise ValueError(f"state array {name!r}: {nbytes} bytes do not fit shape {list(shape)}")
            arrays[name] = np.frombuffer(data, dtype=dtype).reshape(shape).astype(_NUMERIC[dtype])
        if "record_ids" in header:
            state.record_ids = read_record_ids(reader.take(header["record_ids"], "record ids"))
        reader.finish()
        if n:
            if (index < 0).any() or (np.diff(index) <= 0).any():
                raise ValueError("state index must hold whole numbers >= 0, sorted, each once")
            state._index, state._digest, state._columns = index, digest, columns
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
        held). The checks and errors are those of ``score``. Each example's digest is that of its
        prediction and its list of references (a single reference counts as a list of one)."""
        from .inputs import nest, text_pairs

        predictions, flat, counts = text_pairs(predictions, references)
        columns, context = type(self).example_rows(
            predictions, flat, counts, self.preset, dict(self.options_resolved)
        )
        return self._add(index, columns, context, example_digests(predictions, nest(flat, counts)))


def text_pair_state(
    options, example_rows, reduce_rows, score, doc: str, columns: dict
) -> type[TextPairState]:
    """The ``State`` class of a text-pair metric: a :class:`TextPairState` with the metric's option table,
    the two halves of its ``score_checked``, its ``score``, ``doc`` (what a state of it holds per example)
    and ``columns`` (``{name: Column}``: what a row holds, or a function of the resolved options that
    returns it), defined in the metric's module (that of
    ``reduce_rows``) as ``State``."""
    namespace = {
        "__doc__": doc,
        "__module__": reduce_rows.__module__,
        "__qualname__": "State",
        "columns": staticmethod(columns) if callable(columns) else dict(columns),
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
    columns: dict,
    compare_doc=None,
    score_checked=None,
    state_note=None,
) -> tuple:
    """``(score_checked, score, compare, State, state)`` of a text-pair metric from its option table, the two
    halves of its scoring (``example_rows``, ``reduce_rows``), the docstrings of ``score`` and ``State`` and
    what a state's row holds (``columns``: ``{name: Column}``, checked when bytes are read) (``compare_doc``:
    ``compare``'s, default the generic one; ``score_checked``: the metric's own, default ``example_rows``
    then ``reduce_rows``; ``state_note``: what ``state``'s docstring adds)."""
    from .inputs import text_pair_score, text_pair_score_checked
    from .stats import compare_function

    score_checked = score_checked or text_pair_score_checked(example_rows, reduce_rows)
    score = text_pair_score(score_checked, options, score_doc)
    compare = compare_function(score, compare_doc)
    state_class = text_pair_state(options, example_rows, reduce_rows, score, state_doc, columns)
    return score_checked, score, compare, state_class, state_function(state_class, state_note)


def state_function(state_class: type[MetricState], doc: str | None = None):
    """A metric's ``state(preset="default", total=None, **options)``: an empty ``state_class`` with ``preset``
    and ``options`` checked and fixed (as ``score`` takes them) and ``total``, the number of examples of the
    whole job where the caller knows it; ``doc`` says more where the metric needs it."""

    def state(preset=state_class.options.default_preset, total=None, **options):
        return state_class(preset, total=total, **options)

    state.__doc__ = (
        "An empty :class:`State` with ``preset`` and ``options`` checked and fixed (as ``score`` takes them); "
        "``total``: the number of examples of the whole job, where it is known (``result`` then refuses a "
        "state that lacks some, unless ``allow_partial=True``)" + (f"; {doc}" if doc else ".")
    )
    state.__module__, state.__qualname__ = state_class.__module__, "state"
    state.__annotations__["return"] = state_class
    return state


# ----------------------------------------------------------------------------------------------
# Reading bytes of any metric
# ----------------------------------------------------------------------------------------------
def _read_header(blob, where: str = "these bytes") -> tuple[dict, memoryview]:
    """(header, payload) of a state's bytes: framing and checksum (``state_format.unpack``), then every
    field of the header checked (``state_format.check_header``)."""
    header, payload = unpack(blob, where)
    try:
        check_header(header)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None
    return header, payload


def _state_class(metric: str) -> type[MetricState]:
    from . import METRICS

    if metric not in METRICS:
        raise ValueError(f"state of an unknown metric {metric!r}; expected one of {list(METRICS)}")
    module = importlib.import_module(f"{__package__}.{metric}")
    state_class = getattr(module, "State", None)
    if state_class is None:
        raise ValueError(f"{metric} has no mergeable state in this version")
    return state_class


def from_bytes(blob, where: str = "these bytes") -> MetricState:
    """The state of whichever metric ``blob`` (from ``to_bytes``) holds (``where``: a file's name, for the
    messages)."""
    return MetricState.from_bytes(blob, where)


def read_state(path) -> MetricState:
    """The state saved in the file at ``path`` (its bytes, from ``to_bytes``): the file's size is checked
    against its header before the rest is read, and every error names the file."""
    import os

    return from_bytes(read_file(path), os.fsdecode(path))


def merge_all(states) -> MetricState:
    """One state holding the rows of every state in ``states`` (a new object; the inputs are unchanged)."""
    states = list(states)
    if not states:
        raise ValueError("merge_all needs at least one state")
    first = type(states[0]).from_bytes(states[0].to_bytes())
    return first.merge(*states[1:])
