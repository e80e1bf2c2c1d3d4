"""Conventions shared by every metric of the Multimodal Metrics collection.

One job: check inputs, resolve presets into options, and build the result dict with its
``signature``. It holds no metric logic.

This file is copied byte for byte into every ``metrics/<name>/`` folder, because each folder is a
standalone Hub Space and evaluate's loader copies only the files imported by the main script.
The canonical copy is ``scripts/common/_mm_common.py``: edit it there and run
``python scripts/sync_common.py``; ``tests/test_conventions.py`` fails when a copy drifts or when
a module does not go through these functions.

Errors: every check raises ``ValueError`` (bad value) or ``TypeError`` (bad type) whose message
names the argument, the example index and what was expected.
"""

import itertools
import math
import numbers
import os
from collections.abc import Iterable, Mapping, Sequence

COLLECTION_VERSION = "0.1.0"
RESAMPLING_OPTIONS = ("confidence", "n_resamples", "seed")  # _mm_stats' options, beside every module's own


# ----------------------------------------------------------------------------------------------
# Presets and options
# ----------------------------------------------------------------------------------------------
def check_preset(name: str, config_name: str, presets: Mapping[str, Mapping]) -> str:
    """Return ``config_name`` if it names a preset of metric ``name``, else raise ValueError."""
    if config_name not in presets:
        raise ValueError(
            f"{name}: unknown preset (config_name) {config_name!r}; expected one of {sorted(presets)}"
        )
    return config_name


def resolve_options(
    name: str, config_name: str, presets: Mapping[str, Mapping], overrides: Mapping[str, object]
) -> dict:
    """Preset defaults updated with every override that is not None (None = "not passed")."""
    check_preset(name, config_name, presets)
    options = dict(presets[config_name])
    for key, value in overrides.items():
        if key not in options:
            raise ValueError(f"{name}: unknown option {key!r}; expected one of {sorted(options)}")
        if value is not None:
            options[key] = value
    return options


def _short(value, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters (error messages must stay readable for 1 MB inputs)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def check_choice(value, allowed: Iterable, arg: str):
    """Return the entry of ``allowed`` equal to ``value`` and of the same type, else raise.

    Strict on type: ``True`` is not ``1``, a numpy array (even of one element) or a list is never a
    choice (TypeError); a ``str`` subclass such as ``numpy.str_`` is accepted and returned as the plain
    ``str`` of ``allowed``, so signatures always show the canonical value.
    """
    allowed = list(allowed)
    for choice in allowed:
        if isinstance(choice, str) and isinstance(value, str):
            if value == choice:
                return choice
        elif type(value) is type(choice) and value == choice:
            return choice
    if any(isinstance(value, str) if isinstance(c, str) else type(value) is type(c) for c in allowed):
        raise ValueError(f"`{arg}` must be one of {allowed}, got {_short(value)}")
    raise TypeError(f"`{arg}` must be one of {allowed}, got {type(value).__name__} ({_short(value)})")


def check_path(value, arg: str) -> str:
    """A file-system path given as ``str`` or ``os.PathLike``, returned as ``str`` (NUL and lone
    surrogates refused with a ValueError naming ``arg``)."""
    if isinstance(value, bytes) or not isinstance(value, str | os.PathLike):
        raise TypeError(f"`{arg}` must be a path (str or os.PathLike), got {type(value).__name__} ({_short(value)})")
    path = os.fspath(value)
    if not isinstance(path, str):
        raise TypeError(f"`{arg}` must be a text path, got {type(path).__name__} ({_short(path)})")
    if "\x00" in path or not path:
        raise ValueError(f"`{arg}` must be a non-empty path without NUL characters, got {_short(path)}")
    check_string(path, arg)
    return path


def check_bool(value, arg: str) -> bool:
    """Raise TypeError unless ``value`` is True or False (1/0 and strings are refused)."""
    if not isinstance(value, bool):
        raise TypeError(f"`{arg}` must be True or False, got {type(value).__name__} ({_short(value)})")
    return value


def _bounds(low, high, allow_inf: bool = False) -> str:
    """"in [low, high]", ">= low", "<= high" or "that is finite" (or "... not NaN") for an error message."""
    if low is not None and high is not None:
        return f"in [{low}, {high}]"
    if low is not None:
        return f">= {low}"
    if high is not None:
        return f"<= {high}"
    return "that is not NaN" if allow_inf else "that is finite"


def check_number(
    value, arg: str, low: float | None = None, high: float | None = None, allow_inf: bool = False
) -> float:
    """A real number (numpy scalars included, bools refused) within [low, high], bounds inclusive.

    None as a bound means unbounded; NaN is always refused and infinity unless ``allow_inf``.
    """
    if isinstance(value, bool) or type(value).__name__ == "bool_" or not isinstance(value, numbers.Real):
        raise TypeError(f"`{arg}` must be a number, got {type(value).__name__} ({_short(value)})")
    try:
        value = float(value)
    except OverflowError:  # an int beyond the float range (10**400)
        raise ValueError(f"`{arg}` must be a number {_bounds(low, high, allow_inf)}, got {_short(value)}") from None
    if (
        math.isnan(value)
        or (math.isinf(value) and not allow_inf)
        or (low is not None and value < low)
        or (high is not None and value > high)
    ):
        raise ValueError(f"`{arg}` must be a number {_bounds(low, high, allow_inf)}, got {value!r}")
    return value


class OptionsCheckedFirst:
    """Mixin for an ``evaluate.Metric`` (listed before it): options are checked before evaluate
    touches its cache, a computation that fails anyway leaves no lock or file, and a ``compute``
    given the whole data writes no cache at all (the direct path).

    evaluate's ``compute`` writes the batch to an Arrow cache file under a file lock, reads it back
    and only then calls ``_compute``; an option error raised there would leave the lock held (the
    next compute waits, and in distributed mode every process fails). So the module declares its
    options once, in ``_options(passed)``: resolve the preset with ``resolve_options`` and check
    every value, returning the options ``_compute`` uses (``_compute`` calls it too). ``compute``
    runs it, and checks ``return_per_example``, before anything else. If ``_compute`` still raises
    (a resource missing at compute time, a bug), the cache files of this computation are removed and
    their locks released, as evaluate does after a success; data added before a refused ``compute``
    is kept.

    **Direct path.** When ``compute`` is given the data (some input not None) with nothing added
    before (no writer), one process (``num_process == 1``) and not ``keep_in_memory``, evaluate's own
    ``compute`` still runs every step (its checks of unknown and missing inputs, the module's
    ``add_batch`` and evaluate's, the feature schema chosen from the first example, the format
    errors, ``set_format(info.format)``, ``temp_seed(self.seed)``), but nothing is written: the writer
    evaluate opens is a :func:`captured_batches` writer that converts and casts the batch exactly as
    ``datasets.ArrowWriter`` does before writing and keeps the table in memory, and ``_finalize``
    hands evaluate a :class:`DirectData` over that table (the record batches of the file, so
    ``_compute`` gets the same Arrow chunks or Python lists as from the file). No cache file, no
    lock, no ``rdv`` file: about 5 to 7 ms less per call (issue 11). ``add``/``add_batch`` then
    ``compute()``, ``keep_in_memory`` and the distributed mode (``num_process``, ``process_id``) keep
    evaluate's cache, as before.

    ``config_name`` is checked at construction: ``""`` or a non-string is refused (evaluate would
    silently read them as the default preset); ``None`` (what ``evaluate.load(path)`` passes) is the
    default preset.
    """

    _mm_direct = False  # inside a compute that may take the direct path (see the class docstring)
    _mm_inputs = None  # a module's own shortcut to the checked inputs of a direct compute (TextPairInputs)
    _mm_finalized = False

    def __init__(self, config_name=None, *args, **kwargs):
        if config_name is not None and (not isinstance(config_name, str) or not config_name):
            kind = TypeError if not isinstance(config_name, str) else ValueError
            raise kind(f"`config_name` must be a preset name (a non-empty string) or None, got {_short(config_name)}")
        super().__init__(str(config_name) if config_name is not None else None, *args, **kwargs)

    def _options(self, passed: Mapping[str, object]) -> dict:
        """Resolved and checked options (``passed``: option name -> value, None = not passed)."""
        raise NotImplementedError

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Like ``evaluate.Metric.compute``; options are checked before the cache is touched, and a
        compute given the whole data in one process writes no cache (see the class docstring)."""
        features = set(self._feature_names())
        options = {key: value for key, value in kwargs.items() if key not in features}
        for key in RESAMPLING_OPTIONS:  # checked by _mm_stats.Resampling in _compute (cache released if refused)
            options.pop(key, None)
        check_bool(options.pop("return_per_example", False), "return_per_example")
        self._options(options)
        self._mm_finalized = False
        self._mm_direct = self.writer is None and self.num_process == 1 and not self.keep_in_memory
        self._mm_inputs = None
        try:
            return super().compute(predictions=predictions, references=references, **kwargs)
        except BaseException:
            if self._mm_finalized:
                release_cache(self)
            raise
        finally:
            if self._mm_direct:
                self._mm_direct, self._mm_inputs = False, None
                if isinstance(self.writer, _captured_batches_class()) or isinstance(self.data, DirectData):
                    # evaluate deletes its data with the cache files; a direct compute has none
                    self.writer, self.data, self.selected_feature_format = None, None, None
                    self.file_paths, self.filelocks = None, None

    def _init_writer(self, timeout=1):
        if not self._mm_direct:
            return super()._init_writer(timeout=timeout)
        # evaluate's add_batch, first batch of a direct compute: no file, no lock
        features, size = self.selected_feature_format, self.writer_batch_size
        known = self.__dict__.get("_mm_writer_format")  # (features, size, record batch size, schema) of the last one
        self.buf_writer = None
        if known is not None and known[0] is features and known[1] == size:
            self.writer = captured_batches(features, known[2], known[3])
        else:
            self.writer = captured_batches(features, size)
            self._mm_writer_format = (features, size, self.writer.writer_batch_size, self.writer.schema)

    def _finalize(self):
        if self._mm_direct and isinstance(self.writer, _captured_batches_class()):
            self.data = DirectData(self.writer.table(), self.selected_feature_format)
            self.writer = None
            self.file_paths, self.filelocks = [], []  # nothing for evaluate to remove or release
        else:
            super()._finalize()
        self._mm_finalized = True


_CAPTURED_BATCHES = []


def _captured_batches_class():
    """The ``ArrowWriter`` subclass of :func:`captured_batches` (built on first use: ``datasets`` is
    imported by evaluate, not by this file)."""
    if not _CAPTURED_BATCHES:
        import pyarrow as pa
        from datasets.arrow_writer import ArrowWriter
        from datasets.table import table_cast

        class CapturedBatches(ArrowWriter):
            """``ArrowWriter`` that keeps its tables in memory: ``write_batch`` runs datasets' own
            conversion (Arrow arrays cast to the features, Python lists through its typed sequences),
            and ``_write_table`` does what it does before writing (``combine_chunks``, cast to the
            schema) but appends the table to ``tables`` instead of a file or stream."""

            def __init__(self, features, writer_batch_size=None, schema=None):
                super().__init__(features=features, stream=pa.BufferOutputStream(), writer_batch_size=writer_batch_size)
                self.tables = []
                self._mm_schema = schema

            @property
            def schema(self):
                if self._mm_schema is None:  # the features' schema, built once (datasets rebuilds it per use)
                    self._mm_schema = super().schema
                return self._mm_schema

            def write_batch(self, batch_examples, writer_batch_size=None, try_original_type=True):
                """datasets' ``write_batch``, except that a batch of Arrow arrays that already have the
                schema's types (what ``checked_features`` hands on) becomes the table as it is: datasets'
                per-column cast to the same type, which rebuilds list and struct arrays with the same
                values, is skipped."""
                schema = self.schema
                if set(batch_examples) == set(schema.names) and all(
                    isinstance(batch_examples[field.name], pa.Array) and batch_examples[field.name].type == field.type
                    for field in schema
                ):
                    columns = [batch_examples[name] for name in schema.names]
                    if len(columns[0]):  # datasets ignores an empty batch
                        self._write_table(pa.Table.from_arrays(columns, schema=schema), writer_batch_size)
                    return
                super().write_batch(batch_examples, writer_batch_size, try_original_type)

            def _write_table(self, pa_table, writer_batch_size=None):
                pa_table = table_cast(pa_table.combine_chunks(), self.schema)
                self._num_bytes += pa_table.nbytes
                self._num_examples += pa_table.num_rows
                self.tables.append((pa_table, writer_batch_size or self.writer_batch_size))

            def finalize(self, close_stream=True):
                self.write_examples_on_file()
                self.write_rows_on_file()
                return self._num_examples, self._num_bytes

            def table(self):
                """The table a reader of the file would see: every written table split into record
                batches of at most ``writer_batch_size`` rows (the file's record batches)."""
                self.finalize()
                batches = [b for table, size in self.tables for b in table.to_batches(max_chunksize=size)]
                return pa.Table.from_batches(batches, schema=self.schema)

        _CAPTURED_BATCHES.append(CapturedBatches)
    return _CAPTURED_BATCHES[0]


def captured_batches(features, writer_batch_size=None, schema=None):
    """A writer for evaluate's ``add_batch`` that writes nothing (see ``OptionsCheckedFirst``);
    ``schema``: ``pa.schema(features.type)`` when already known."""
    return _captured_batches_class()(features, writer_batch_size, schema)


class DirectData:
    """What evaluate's ``compute`` reads its inputs from after ``_finalize`` (a ``datasets.Dataset``
    over the cache file), for a table held in memory: ``set_format(type)`` then
    ``data[name][:]``. Under ``"arrow"`` a column is the table's ``ChunkedArray`` (one chunk per
    record batch, as read from the file); under the default (Python) format it is
    ``to_pylist()`` (the python formatter's result when no feature needs decoding); any other format,
    or a feature that needs decoding (images, audio), goes through a real in-memory ``Dataset``."""

    def __init__(self, table, features):
        self.table, self.features, self.format = table, features, None
        self._dataset = None

    def set_format(self, type=None, **kwargs):  # noqa: A002 (datasets' argument name)
        from datasets.features.features import require_decoding

        self.format = type
        simple = type == "arrow" or (type in (None, "python") and not any(map(require_decoding, self.features.values())))
        if simple and not kwargs:
            self._dataset = None
            return
        from datasets import Dataset, DatasetInfo
        from datasets.table import InMemoryTable

        self._dataset = Dataset(InMemoryTable(self.table), info=DatasetInfo(features=self.features))
        self._dataset.set_format(type=type, **kwargs)

    def __getitem__(self, name):
        if self._dataset is not None:
            return self._dataset[name]
        column = self.table.column(name)
        return column if self.format == "arrow" else column.to_pylist()

    def __len__(self) -> int:
        return self.table.num_rows


def release_cache(metric) -> None:
    """After ``_compute`` of a finalized ``evaluate`` module raised: remove the gathered cache files
    and release their locks (what evaluate does after a successful compute), drop the data."""
    metric._mm_finalized = False
    metric.data = None
    metric.writer = None
    metric.buf_writer = None
    if metric.keep_in_memory or metric.process_id != 0:
        return
    locks, paths = metric.filelocks or [], metric.file_paths or []
    metric.filelocks, metric.file_paths = None, None
    for lock, path in reversed(list(zip(locks, paths))):
        try:
            os.remove(path)
        except OSError:
            pass
        if lock is not None:
            lock.release()


# ----------------------------------------------------------------------------------------------
# Inputs
# ----------------------------------------------------------------------------------------------
def as_list(values, arg: str) -> list:
    """The per-example container ``values`` as a new Python list.

    Accepted wherever a list is: list, tuple, numpy array (elements become Python str/int/float,
    rows of a 2-d array become lists), pandas Series/Index, a ``datasets`` column, torch tensor and
    any other ``Sequence``. A bare string, a dict, a set, a generator, a 0-d array and None are
    refused with an error naming ``arg``.
    """
    if values is None:
        raise ValueError(f"`{arg}` is required (got None)")
    if type(values) is list:
        return list(values)
    if isinstance(values, str | bytes | Mapping):
        raise TypeError(f"`{arg}` must be a list with one entry per example, got {type(values).__name__}")
    if callable(getattr(values, "tolist", None)) and getattr(values, "ndim", None) is not None:
        if values.ndim == 0:
            raise TypeError(f"`{arg}` must be a list with one entry per example, got a 0-d {type(values).__name__}")
        return values.tolist()  # numpy, pandas, torch: native Python elements
    if not isinstance(values, Sequence):
        raise TypeError(
            f"`{arg}` must be a list (or tuple, numpy array, pandas Series, datasets column) with one entry "
            f"per example, got {type(values).__name__}"
        )
    return list(values)


def check_list(values, arg: str, allow_empty: bool = False) -> list:
    """A list-like of examples (see ``as_list``; not a bare string), returned as a list."""
    values = as_list(values, arg)
    if not allow_empty and len(values) == 0:
        raise ValueError(f"`{arg}` is empty: at least one example is needed")
    return values


def check_same_length(arg_a: str, a: Sequence, arg_b: str, b: Sequence) -> None:
    """Raise ValueError when two per-example inputs differ in length."""
    if len(a) != len(b):
        raise ValueError(
            f"`{arg_a}` has {len(a)} examples but `{arg_b}` has {len(b)}: one entry per example is expected"
        )


def check_string(value, where: str) -> str:
    """One string that Arrow can store (UTF-8 encodable: no lone surrogates)."""
    if not isinstance(value, str):
        raise TypeError(f"`{where}` must be a string, got {type(value).__name__} ({_short(value)})")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as err:
            raise ValueError(f"`{where}` is not valid Unicode text ({err.reason} at position {err.start})") from None
    return value


def _all_valid_text(strings: list) -> bool:
    """True when every element is a ``str`` that Arrow can store, checked in a few C passes (the
    per-element checks then only run to name the first bad one)."""
    if not set(map(type, strings)) <= {str}:
        return False
    joined = "".join(strings)
    if joined.isascii():
        return True
    try:
        joined.encode("utf-8")  # any lone surrogate fails, joined or not
    except UnicodeEncodeError:
        return False
    return True


def check_strings(values, arg: str) -> list[str]:
    """One string per example; None or any non-string is an error naming its index."""
    values = check_list(values, arg)
    if _all_valid_text(values):
        return values
    for i, value in enumerate(values):
        check_string(value, f"{arg}[{i}]")
    return values


def check_reference_lists(values, arg: str = "references") -> list[list[str]]:
    """Per example either one string or a non-empty list of strings; returns lists of strings."""
    values = check_list(values, arg)
    if set(map(type, values)) <= {list} and min(map(len, values)) > 0:
        out = list(map(list, values))
        if _all_valid_text(list(itertools.chain.from_iterable(out))):
            return out
    out = []
    for i, refs in enumerate(values):
        if isinstance(refs, str):
            out.append([check_string(refs, f"{arg}[{i}]")])
            continue
        if refs is None:
            raise TypeError(f"`{arg}[{i}]` is None: expected a string or a list of strings")
        if type(refs) is not list:
            if isinstance(refs, bytes | Mapping) or not (isinstance(refs, Sequence) or hasattr(refs, "tolist")):
                raise TypeError(f"`{arg}[{i}]` must be a string or a list of strings, got {type(refs).__name__}")
            refs = as_list(refs, f"{arg}[{i}]")
        if len(refs) == 0:
            raise ValueError(f"`{arg}[{i}]` is an empty list: give at least one reference")
        for j, ref in enumerate(refs):
            check_string(ref, f"{arg}[{i}][{j}]")
        out.append(list(refs))
    return out


def trainer_scores(result: Mapping, prefix: str) -> dict:
    """The numbers of a result dict under metric-prefixed keys, for ``transformers.Trainer``.

    ``signature`` (a string) and ``per_example`` (a list) are left out: Trainer's ``log_metrics``
    formats every value as a number and ``hyperparameter_search``'s default objective sums them.
    A key equal to ``prefix`` or starting with ``prefix + "_"`` is kept; any other key becomes
    ``prefix_key`` (``{"f1": ...}`` of det_f1 -> ``{"det_f1_f1": ...}``), so the results of several
    metrics merge without collisions.
    """
    out = {}
    for key, value in result.items():
        if key in ("signature", "per_example"):
            continue
        name = key if key == prefix or key.startswith(prefix + "_") else f"{prefix}_{key}"
        out[name] = float(value)
    return out


class TrainerResults:
    """Mixin for every metric of the collection: ``compute(..., for_trainer=True)``.

    With ``for_trainer=True`` (or a prefix string such as ``for_trainer="val_anls"``) ``compute``
    returns only numbers under metric-prefixed keys (``trainer_scores``), ready for
    ``Trainer(compute_metrics=...)``, ``trainer.log_metrics`` and ``hyperparameter_search``, and
    mergeable with another metric's result. The signature of that call stays available as
    ``metric.last_signature`` (every ``compute`` sets it).
    """

    last_signature = None

    def compute(self, *, for_trainer=False, **kwargs):
        """Like ``evaluate.Metric.compute``; ``for_trainer=True`` (or a key prefix string) returns
        only the numbers, keys prefixed with the metric name; the signature is kept in
        ``self.last_signature``."""
        if for_trainer is not False:
            if for_trainer is True:
                prefix = self.name
            elif isinstance(for_trainer, str) and for_trainer.strip():
                prefix = for_trainer
            else:
                raise TypeError(f"`for_trainer` must be True, False or a non-empty key prefix, got {for_trainer!r}")
            if kwargs.get("return_per_example", False) is not False:
                raise ValueError(
                    "`return_per_example=True` cannot be combined with `for_trainer`: Trainer logs only numbers; "
                    "call compute without `for_trainer` to get the per-example scores"
                )
        result = super().compute(**kwargs)
        if result is None:  # a non-main process of a distributed run
            return None
        self.last_signature = result.get("signature")
        return result if for_trainer is False else trainer_scores(result, prefix)


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
        return pa.array([flat[a:b] for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())], type=pa.list_(pa.string()))
    return pa.ListArray.from_arrays(pa.array(offsets), strings)


def nest(flat: list, counts) -> list:
    """``flat`` split into consecutive lists of ``counts[i]`` items."""
    items = iter(flat)
    return [list(itertools.islice(items, count)) for count in counts.tolist()]


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


class TextPairInputs(TrainerResults, OptionsCheckedFirst):
    """Mixin for an ``evaluate.Metric`` whose example is one predicted string and one or more
    reference strings (``class Anls(TextPairInputs, evaluate.Metric)``), with ``for_trainer``
    (``TrainerResults``) and options checked first (``OptionsCheckedFirst``: the module defines ``_options``).

    It declares the two feature schemas (references as a list of strings or as one string) and
    checks every batch, with errors naming the argument and the example index, while converting it
    to the Arrow arrays evaluate stores; single references are stored as lists of one. A module
    that sets ``info.format = "arrow"`` reads its inputs in ``_compute`` with ``text_pairs`` (flat
    references) or ``text_pair_lists``.
    """

    @staticmethod
    def text_pair_features() -> list:
        import datasets

        string = datasets.Value("string")
        # add_batch below checks every value, so evaluate's per-value encoding is skipped
        return checked_features(
            [
                datasets.Features({"predictions": string, "references": datasets.Sequence(string)}),
                datasets.Features({"predictions": string, "references": string}),
            ]
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Check the batch (errors name the argument and example index) while converting it to the
        Arrow arrays that evaluate's writer stores as they are (``ArrowColumn``)."""
        predictions, pred_array = strings_to_arrow(predictions, "predictions")
        flat, counts, ref_array = reference_lists_to_arrow(references, "references")
        check_same_length("predictions", predictions, "references", counts)
        result = super().add_batch(predictions=ArrowColumn(pred_array), references=ArrowColumn(ref_array), **kwargs)
        if self._mm_direct:  # a direct compute (OptionsCheckedFirst): keep the checked inputs for text_pairs
            self._mm_inputs = (predictions, flat, counts)
        return result

    def text_pairs(self, predictions, references):
        """``(predictions, flat references, counts)`` for ``_compute`` under ``info.format = "arrow"``:
        the checked inputs of a direct ``compute`` (``OptionsCheckedFirst``: given the whole data, one
        process; they are what the Arrow columns hold), else the Arrow columns read back
        (``read_strings``, ``read_flat_references``: data added in batches or gathered from several
        processes)."""
        direct = self._mm_inputs
        if direct is not None and len(direct[0]) == len(predictions):
            return direct
        flat, counts = read_flat_references(references)
        return read_strings(predictions), flat, counts

    def text_pair_lists(self, predictions, references):
        """``(predictions, references as lists of strings)`` for ``_compute``: ``text_pairs`` for a core
        that takes one list of references per example."""
        direct = self._mm_inputs
        if direct is not None and len(direct[0]) == len(predictions):
            return direct[0], nest(direct[1], direct[2])
        return read_strings(predictions), read_reference_lists(references)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example (checked like a batch of one)."""
        return self.add_batch(predictions=[prediction], references=[reference], **kwargs)


# ----------------------------------------------------------------------------------------------
# Results
# ----------------------------------------------------------------------------------------------
def _format_option(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        # exact (shortest round-trip) form: 0.5 and 0.5000001 must not share a signature
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, list | tuple):
        return ",".join(_format_option(v) for v in value)
    return str(value)


def build_signature(name: str, preset: str, fields: Mapping[str, object]) -> str:
    """sacrebleu-style signature: ``name|preset:P|key:value|...|v:VERSION``.

    ``fields`` maps a short key to every option value that changes the number, in a fixed order.
    Two runs with the same signature on the same data give the same number.
    """
    parts = [name, f"preset:{preset}"]
    parts += [f"{key}:{_format_option(value)}" for key, value in fields.items()]
    parts.append(f"v:{COLLECTION_VERSION}")
    return "|".join(parts)


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean as a Python float (0.0 for no values)."""
    return float(sum(values) / len(values)) if len(values) else 0.0


def make_result(scores: Mapping[str, float], signature: str, per_example=None, return_per_example=False) -> dict:
    """Flat result: the scores (primary key first) as floats, ``signature``, optional ``per_example``."""
    check_bool(return_per_example, "return_per_example")
    result = {key: float(value) for key, value in scores.items()}
    result["signature"] = signature
    if return_per_example:
        result["per_example"] = list(per_example)
    return result
