"""evaluate's ``compute`` with options checked first, and the direct path that writes no cache.

The direct path works through private internals of ``evaluate.Metric`` (``_init_writer``,
``_finalize``, ``writer``, ``data``, ``file_paths``, ``filelocks``), as they are in the evaluate
versions of ``DIRECT_PATH_EVALUATE``. With any other installed version, ``compute`` takes evaluate's
normal path (the cache file and its lock), which gives the same results, only slower.
"""

import os
import threading
from collections.abc import Mapping

from ..options import check_bool, short_repr
from ..stats import RESAMPLING
from .cache import drop_failed_batch, is_rollback_writer, rollback_writer

DIRECT_PATH_EVALUATE = ("0.4.6",)  # the evaluate versions whose internals the direct path was written for


_LOCK_GUARD = threading.Lock()


def metric_lock(metric) -> threading.RLock:
    """The re-entrant lock of one metric object: ``compute`` and ``compare`` hold it, so one object shared
    by threads (a demo serving requests) runs one computation at a time and each caller gets its own
    result (evaluate keeps a computation's state on the object: writer, data, cache files)."""
    lock = metric.__dict__.get("_mm_lock")
    if lock is None:
        with _LOCK_GUARD:
            lock = metric.__dict__.setdefault("_mm_lock", threading.RLock())
    return lock


def wait_for_process_0(metric, poll: float = 0.05) -> None:
    """In evaluate's distributed mode, on a process other than 0 whose ``compute`` has returned (None): wait
    until process 0 has finished that compute, so that a next compute meets it at evaluate's next rendez-vous
    (without the wait it may pass that rendez-vous on process 0's lock of the finished compute, and process 0
    then waits ``timeout`` seconds for a file that never comes).

    Process 0 holds its cache file's lock from the rendez-vous to the end of its compute; at the end it
    removes every process's file, then releases its lock; a next compute takes the rendez-vous lock, then its
    own lock again, and holds the rendez-vous lock until every process has come. So this process waits, with
    no time limit (process 0 may score for long), until process 0's lock is free, or until its own file is
    gone and the rendez-vous lock is held (process 0 is in its next compute). Process 0's lock free while
    this process's file is still there means process 0 left its compute without gathering it (an error, or
    the process died): a ValueError at once. The names are evaluate's own (``_create_cache_file``,
    ``_check_rendez_vous``) in the versions of ``DIRECT_PATH_EVALUATE``."""
    import time

    from datasets.utils.filelock import FileLock, Timeout

    base = os.path.join(metric.data_dir, f"{metric.experiment_id}-{metric.num_process}")
    own = f"{base}-{metric.process_id}.arrow"
    main_lock, rendez_vous = FileLock(f"{base}-0.arrow.lock"), FileLock(f"{base}-rdv.lock")

    def free(lock) -> bool:
        try:
            lock.acquire(timeout=0)
        except Timeout:
            return False
        lock.release()
        return True

    while True:
        if free(main_lock):
            if os.path.exists(own):
                raise ValueError(
                    f"process 0 ended its compute without gathering the data of process {metric.process_id} "
                    f"(its cache file {own} is still there): see process 0's error"
                )
            return
        if not os.path.exists(own) and not free(rendez_vous):
            return
        time.sleep(poll)


def direct_path_supported() -> bool:
    """Whether the installed evaluate is one the direct path was written for."""
    import evaluate

    return evaluate.__version__ in DIRECT_PATH_EVALUATE


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
    lock, no ``rdv`` file: about 5 to 7 ms less per call. ``add``/``add_batch`` then
    ``compute()``, ``keep_in_memory`` and the distributed mode (``num_process``, ``process_id``) keep
    evaluate's cache, as before.

    **One batch or nothing.** Outside the direct path the cache is written by ``cache.rollback_writer``: an
    ``add_batch`` that raises (a full disk, Ctrl-C, any error) leaves none of its examples in the cache and
    keeps the batches added before (``cache.drop_failed_batch``).

    **Distributed mode** (``num_process`` > 1): a process other than 0 returns from ``compute`` (None) once
    process 0 has finished that computation (``wait_for_process_0``), as ``torch.distributed`` users
    expect of a collective call. evaluate's own ``compute`` returns at once, and a next ``add_batch``
    then rewrites the process's cache file, under the same name, while process 0 may not have read it
    yet: process 0 silently scored its own rows with the other process's rows of the next computation.

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
            raise kind(
                f"`config_name` must be a preset name (a non-empty string) or None, got {short_repr(config_name)}"
            )
        super().__init__(str(config_name) if config_name is not None else None, *args, **kwargs)

    def _options(self, passed: Mapping[str, object]) -> dict:
        """Resolved and checked options (``passed``: option name -> value, None = not passed)."""
        raise NotImplementedError

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Like ``evaluate.Metric.compute``; options are checked before the cache is touched, and a
        compute given the whole data in one process writes no cache (see the class docstring)."""
        features = set(self._feature_names())
        options = {key: value for key, value in kwargs.items() if key not in features}
        for key in RESAMPLING.names:  # checked by stats.Resampling in _compute (cache released if refused)
            options.pop(key, None)
        check_bool(options.pop("return_per_example", False), "return_per_example")
        self._options(options)
        self._mm_finalized = False
        self._mm_direct = (
            self.writer is None
            and self.num_process == 1
            and not self.keep_in_memory
            and direct_path_supported()
        )
        self._mm_inputs = None
        try:
            result = super().compute(predictions=predictions, references=references, **kwargs)
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
        if self.num_process > 1 and self.process_id != 0 and direct_path_supported():
            wait_for_process_0(
                self
            )  # else a next compute could overwrite the rows process 0 has yet to gather
        return result

    def add_batch(self, **inputs):
        """evaluate's ``add_batch``, one whole batch or nothing: if it raises (a full disk, Ctrl-C), none of
        the batch's examples stay in the cache and the examples added before do (``cache.drop_failed_batch``)."""
        writer = self.writer
        mark = writer.mark() if is_rollback_writer(writer) else None
        try:
            return super().add_batch(**inputs)
        except BaseException as error:
            drop_failed_batch(self, writer, mark, error)
            raise

    def _init_writer(self, timeout=1):
        if not self._mm_direct:
            super()._init_writer(timeout=timeout)
            if direct_path_supported():  # the same cache, written so that a failed batch can be taken back
                self.writer = rollback_writer(self)
            return
        # evaluate's add_batch, first batch of a direct compute: no file, no lock
        features, size = self.selected_feature_format, self.writer_batch_size
        known = self.__dict__.get(
            "_mm_writer_format"
        )  # (features, size, record batch size, schema) of the last one
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
                super().__init__(
                    features=features, stream=pa.BufferOutputStream(), writer_batch_size=writer_batch_size
                )
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
                    isinstance(batch_examples[field.name], pa.Array)
                    and batch_examples[field.name].type == field.type
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
        simple = type == "arrow" or (
            type in (None, "python") and not any(map(require_decoding, self.features.values()))
        )
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
