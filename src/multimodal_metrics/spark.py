"""Score a Spark DataFrame: each partition is scored where it lies into a mergeable state, the driver merges.

    import multimodal_metrics.spark as mmspark
    df = spark.read.parquet(...)                           # one row per example
    r = mmspark.score(df, "anls", predictions="answer", references="answers", index="id", preset="stvqa",
                      confidence=0.95, seed=1)             # equal to anls.score on the rows in index order
    st = mmspark.state(df, "anls", ...)                    # the merged state itself (to save, or merge more)

``mapInArrow`` turns each partition into one row holding the bytes of its state
(:mod:`multimodal_metrics.state`: the per-example rows of the metric, never the inputs), its partition
number and row count; only those rows travel to the driver, which merges the states and reduces them in index
order, so the result is the one ``score`` gives on all rows however Spark partitions, orders or retries them.

The columns as in :mod:`multimodal_metrics.ray`: ``predictions=`` and ``references=`` name their columns
(default: columns of those names), a metric's other per-example inputs name theirs the same way
(``question_types="qtype"``), every other keyword is an option of the metric. ``index="id"``: a column of
global example indexes (whole numbers, unique per example; a repeated index must repeat the same example);
by default a row's index is its position in the DataFrame (partition by partition, in the order ``collect``
returns the rows). ``repartition(n)`` deals the rows out again (round-robin: another order), so a DataFrame
that was shuffled, joined or repartitioned needs an index column for a result in the original order;
``coalesce`` keeps the order.

The job's size: the DataFrame's row count (counted while scoring) is the merged state's ``total`` (as on Ray;
``total=`` says otherwise), so a result holding fewer examples (two rows given one index) is refused.

A metric's error on a row is sent back as text (Spark keeps only a task's traceback) and raised on the driver
as the metric's ValueError/TypeError, the example named by its index column value (or its row in its
partition). PySpark is an optional dependency (``pip install 'multimodal-metrics[spark]'``, and a Java runtime);
the library imports it only when these functions run. Every executor needs the library installed (the same
version, with the extras of the metric: ``[ru]``, ``[code]``, ... and its resources: see the README's cluster
section).
"""

from __future__ import annotations

from .engines import input_columns, locate_error, metric_module, new_state, split_inputs
from .state import MetricState
from .state import from_bytes as state_from_bytes

__all__ = ["score", "state"]

_MERGE_CHUNK = 64  # states decoded and merged at once on the driver
_SCHEMA = "partition int, rows long, state binary, error string"


def _spark():
    try:
        import pyspark.sql  # noqa: F401
    except ImportError as err:
        raise ImportError(
            f"multimodal_metrics.spark needs PySpark ({err}): pip install 'multimodal-metrics[spark]'"
        ) from None


# ----------------------------------------------------------------------------------------------
# One partition -> one state (runs on the executors)
# ----------------------------------------------------------------------------------------------
def _values(batch, column: str) -> list:
    """A column of an Arrow record batch as Python values (a map column's rows as dicts)."""
    import pyarrow as pa

    data = batch.column(column)
    if pa.types.is_map(data.type):
        return [None if row is None else dict(row) for row in data.to_pylist()]
    return data.to_pylist()


class PartitionScorer:
    """The ``mapInArrow`` function: the record batches of one partition in, one row out with the partition's
    number, its row count, the bytes of its state and, where the metric refused a row, the error (its type and
    message, the example named by its index column value or its row in the partition)."""

    def __init__(self, metric: str, preset, options: dict, inputs: dict, index: str | None):
        self.metric, self.preset, self.options, self.inputs, self.index = (
            metric,
            preset,
            options,
            inputs,
            index,
        )

    def __call__(self, batches):
        import pyarrow as pa
        from pyspark import TaskContext

        module = metric_module(self.metric, "Spark")
        partition = TaskContext.get().partitionId()
        state = new_state(module, self.preset, self.options)  # one partition, not the job: no total
        rows, error = 0, None
        for batch in batches:
            n = batch.num_rows
            if error is None and n:
                if self.index is not None:
                    index, what = _values(batch, self.index), "index column value"
                else:
                    index, what = list(range(rows, rows + n)), f"row of partition {partition}"
                kwargs = {name: _values(batch, column) for name, column in self.inputs.items()}
                try:
                    state.update(**kwargs, index=index)
                except (ValueError, TypeError) as err:  # sent as a row, raised on the driver
                    error = f"{type(err).__name__}\n{locate_error(err, index, what)}"
            rows += n
        yield pa.RecordBatch.from_pydict(
            {
                "partition": pa.array([partition], pa.int32()),
                "rows": pa.array([rows], pa.int64()),
                "state": pa.array([b"" if error else state.to_bytes()], pa.binary()),
                "error": pa.array([error], pa.string()),
            }
        )


# ----------------------------------------------------------------------------------------------
# The driver
# ----------------------------------------------------------------------------------------------
def state(
    df, metric, *, index: str | None = None, preset: str | None = None, total: int | None = None, **kwargs
) -> MetricState:
    """The merged state of every row of ``df`` (see the module docstring for the arguments): the column of each
    per-example input (``predictions=``, ``references=`` default to columns of those names; a metric's other
    inputs, e.g. ``question_types=``, by name), ``index`` (a column of global example indexes, or None: the
    row's position in the DataFrame), ``preset`` and the metric's options; ``total``: the job's number of
    examples (default: the DataFrame's row count)."""
    _spark()
    module = metric_module(metric, "Spark")
    name = module.__name__.rpartition(".")[2]
    columns, options = split_inputs(module, kwargs)
    preset = module.OPTIONS.default_preset if preset is None else preset
    new_state(module, preset, options)  # bad options: the metric's own error, here and now
    inputs = input_columns(module, columns, index, list(df.columns), "DataFrame")
    wanted = list(dict.fromkeys([*inputs.values(), *([index] if index is not None else [])]))
    scorer = PartitionScorer(name, preset, options, inputs, index)
    out = df.select(*wanted).mapInArrow(scorer, _SCHEMA).collect()
    parts = sorted(out, key=lambda row: row["partition"])
    for row in parts:
        if row["error"] is not None:
            kind, _, message = row["error"].partition("\n")
            raise (TypeError if kind == "TypeError" else ValueError)(f"{name} on Spark: {message}")
    rows = sum(row["rows"] for row in parts)
    merged = new_state(module, preset, options, rows if total is None else total)
    offset, pending = 0, []
    for row in parts:
        part = state_from_bytes(bytes(row["state"]))
        if index is None:  # positions within the partition, moved to the partition's place in the DataFrame
            part.shift_index(offset)
        offset += row["rows"]
        pending.append(part)
        if len(pending) == _MERGE_CHUNK:
            merged.merge(*pending)
            pending = []
    return merged.merge(*pending)


def score(
    df,
    metric,
    *,
    return_per_example: bool = False,
    confidence: float | None = None,
    n_resamples: int | None = None,
    seed: int | None = None,
    **kwargs,
):
    """The metric's :class:`~multimodal_metrics.results.Result` of every row of ``df``: equal bit for bit to
    ``<metric>.score`` on the same rows in index order (value, per-example list, seeded interval, signature).
    ``kwargs``: those of :func:`state` (columns, ``index``, ``preset``, ``total``, options)."""
    merged = state(df, metric, **kwargs)
    return merged.result(
        return_per_example=return_per_example, confidence=confidence, n_resamples=n_resamples, seed=seed
    )
