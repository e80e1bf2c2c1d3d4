"""Score a Ray Data dataset: each block is scored where it lies into a mergeable state, the driver merges.

    import ray
    import multimodal_metrics.ray as mmray
    ds = ray.data.read_parquet(...)                     # or from_items / read_json / from_pandas
    r = mmray.score(ds, "anls", predictions="answer", references="answers", preset="stvqa",
                    confidence=0.95, seed=1)            # equal to anls.score on the same rows, bit for bit
    st = mmray.state(ds, "anls", ...)                   # the merged state itself (to save, or merge more)

``map_batches`` turns each batch of rows into one row holding the bytes of its state
(:mod:`multimodal_metrics.state`: the per-example rows of the metric, never the inputs); only those bytes
travel to the driver, which merges them and reduces in index order, so the result is the one ``score``
gives on all rows however Ray splits, orders or retries the blocks.

Rows carry their global example index: ``index="column"`` (whole numbers, unique per example; a repeated
index must repeat the same example) or, by default, the position of the row in the dataset, counted in the
dataset's order (the blocks are read in order for this: ``preserve_order`` is set on the scoring run), so
``repartition`` (without shuffle) does not change the result.

A row the metric refuses is named in the error by its place in the dataset, whatever batch it was scored
in: ``predictions[7]`` ... ``(dataset row 7)`` without an index column; with one, its index value and its
row (``predictions[17]`` ... ``(dataset row 7, index column 'i' = 17)``), or the row alone where the index
value itself is what is wrong (``index[7]`` ... ``(dataset row 7, index column 'i' = None)``).

Other per-example inputs of a metric (the arguments of its ``State.update``, e.g. fid_clip's ``texts``)
name their column the same way (``texts="prompt"``); every other keyword is a metric option.

Compute: by default each batch is a Ray task (``num_cpus`` each). ``concurrency=`` (and ``num_gpus=``)
runs the batches in a pool of actors instead: :class:`BlockScorer` is built once per actor, which is where a
metric that runs a network on its inputs (fid_clip's feature extraction) keeps its model on the actor's
device between batches. ``batch_size=`` bounds the rows per state (default: one state per block).

Ray is an optional dependency (``pip install 'multimodal-metrics[ray]'``); the library imports it only
when this module's functions run.
"""

from __future__ import annotations

import json
import numbers
import re

from .engines import input_columns, metric_module, new_state, split_inputs
from .state import MetricState
from .state import from_bytes as _state_from_bytes

__all__ = ["BlockScorer", "score", "state"]

_MERGE_CHUNK = 64  # states merged at once on the driver (one sort per chunk)
_ROW_REF = re.compile(r"`(\w+)\[(\d+)\]")


def _ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as err:
        raise ImportError(
            f"multimodal_metrics.ray needs Ray Data ({err}): pip install 'multimodal-metrics[ray]'"
        ) from None
    return ray


# ----------------------------------------------------------------------------------------------
# One batch -> one state (runs on the workers)
# ----------------------------------------------------------------------------------------------
def _values(batch, column: str):
    """A column of an Arrow batch as Python values (tensor columns as numpy arrays, one per row)."""
    import pyarrow as pa

    data = batch.column(column)
    if isinstance(data.type, pa.ExtensionType):  # Ray's tensor columns: one ndarray per row
        return [row for chunk in data.chunks for row in chunk.to_numpy()]
    return data.to_pylist()


def _refusal(err: Exception, index) -> dict:
    """What a worker sends of the metric's error: its type and message, the batch position of the example
    it names (``predictions[3]``; None: it names none), and that row's index column value (its repr; and the
    value itself where it is a usable index and the error is not about the index)."""
    message = str(err)
    match = _ROW_REF.search(message)
    position = int(match.group(2)) if match else None
    value = None
    if position is not None and index is not None and position < len(index):
        value = index[position]
    usable = isinstance(value, numbers.Integral) and not isinstance(value, bool) and match.group(1) != "index"
    return {
        "kind": type(err).__name__,
        "message": message,
        "position": position,
        "label": None if index is None else repr(int(value) if usable else value)[:80],
        "key": int(value) if usable else None,
    }


def _located(refusal: dict, first_row: int, rows: int, index: str | None) -> str:
    """The worker's refusal told by the dataset row: ``first_row`` is the dataset row of the batch's first
    row (the batches come in the dataset's order), ``index`` the index column's name (None: positions)."""
    message, position = refusal["message"], refusal["position"]
    if position is None or position >= rows:
        return f"{message} (in dataset rows {first_row}-{first_row + rows - 1})"
    row = first_row + position
    match = _ROW_REF.search(message)
    shown = refusal["key"] if refusal["key"] is not None else row
    message = f"{message[: match.start(2)]}{shown}{message[match.end(2) :]}"
    if index is None:
        return f"{message} (dataset row {row})"
    return f"{message} (dataset row {row}, index column {index!r} = {refusal['label']})"


class BlockScorer:
    """The ``map_batches`` function (a callable class, for an actor pool): a batch of rows (Arrow) in, one
    row out with the bytes of its state (``state``), its row count (``rows``) and, where the metric refused
    a row, the error (``error``: JSON of :func:`_refusal`; the driver names the row, see :func:`_located`)."""

    def __init__(self, metric: str, preset, options: dict, inputs: dict, index: str | None):
        self.module = metric_module(metric, "Ray Data")
        self.preset, self.options, self.inputs, self.index = preset, options, inputs, index
        self.module.state(preset, **options)  # options checked (and resources opened) once per worker

    def __call__(self, batch):
        import pyarrow as pa

        state = self.module.state(self.preset, **self.options)
        index = _values(batch, self.index) if self.index is not None else None
        error = None
        if batch.num_rows:
            kwargs = {name: _values(batch, column) for name, column in self.inputs.items()}
            try:
                state.update(**kwargs, index=index)
            except (ValueError, TypeError) as err:  # sent as a row: Ray keeps only the text of a task's error
                error = json.dumps(_refusal(err, index))
        return pa.table(
            {
                "state": pa.array([b"" if error else state.to_bytes()], pa.large_binary()),
                "rows": pa.array([batch.num_rows], pa.int64()),
                "error": pa.array([error], pa.string()),
            }
        )


def _score_batch(batch, metric, preset, options, inputs, index):
    return BlockScorer(metric, preset, options, inputs, index)(batch)


# ----------------------------------------------------------------------------------------------
# The driver
# ----------------------------------------------------------------------------------------------
def _plan(ds, metric, columns: dict, index, preset, options):
    """Checks on the driver before any block is scored: the metric, its options, the columns."""
    module = metric_module(metric, "Ray Data")
    preset = module.OPTIONS.default_preset if preset is None else preset
    template = new_state(module, preset, options)  # bad options: the metric's own error, here and now
    schema = ds.schema()
    available = list(schema.names) if schema is not None else []
    inputs = input_columns(module, columns, index, available)
    return module, preset, template, inputs


def _state_rows(
    ds, module, preset, options, inputs, index, batch_size, num_cpus, num_gpus, concurrency, ray_args
):
    """(state bytes, dataset row of the batch's first row, its row count) per batch, in the dataset's order (so that a
    refused row is named by its dataset row, and positions count in that order when ``index`` is None)."""
    name = module.__name__.rpartition(".")[2]
    args = dict(batch_format="pyarrow", batch_size=batch_size, zero_copy_batch=True, **dict(ray_args or {}))
    if num_cpus is not None:
        args["num_cpus"] = num_cpus
    if num_gpus is not None:
        args["num_gpus"] = num_gpus
    fields = (name, preset, dict(options), dict(inputs), index)
    if concurrency is not None or num_gpus is not None:
        out = ds.map_batches(BlockScorer, fn_constructor_args=fields, concurrency=concurrency, **args)
    else:
        out = ds.map_batches(_score_batch, fn_args=fields, **args)
    context = out.context
    before = context.execution_options.preserve_order
    context.execution_options.preserve_order = True  # batches (and positions) in the dataset's order
    first_row = 0
    try:
        for batch in out.iter_batches(batch_format="pyarrow", batch_size=None):
            columns = (batch.column(c).to_pylist() for c in ("state", "rows", "error"))
            for blob, rows, error in zip(*columns, strict=True):
                if error is not None:
                    refusal = json.loads(error)
                    kind = TypeError if refusal["kind"] == "TypeError" else ValueError
                    raise kind(f"{name} on Ray Data: {_located(refusal, first_row, rows, index)}")
                yield blob, first_row, rows
                first_row += rows
    finally:
        context.execution_options.preserve_order = before


def state(
    ds,
    metric,
    *,
    index: str | None = None,
    preset: str | None = None,
    batch_size: int | None = None,
    num_cpus: float | None = None,
    num_gpus: float | None = None,
    concurrency=None,
    ray_remote_args: dict | None = None,
    **columns_and_options,
) -> MetricState:
    """The merged state of every row of ``ds`` (see the module docstring for the arguments): the column of
    each per-example input (``predictions=``, ``references=`` default to columns of those names; a metric's
    other inputs, e.g. ``texts=``, by name), ``index`` (a column of global example indexes, or None: the row's
    position in the dataset), ``preset`` and the metric's options, and where the blocks are scored. The
    state's ``total`` is the dataset's row count (unless ``total=`` says otherwise), so its ``result``
    refuses a state that holds fewer examples (two rows given one index and the same inputs, say)."""
    module = metric_module(metric, "Ray Data")
    columns, options = split_inputs(module, columns_and_options)
    module, preset, merged, inputs = _plan(ds, module, columns, index, preset, options)
    pending, count = [], 0
    for blob, first_row, rows in _state_rows(
        ds,
        module,
        preset,
        options,
        inputs,
        index,
        batch_size,
        num_cpus,
        num_gpus,
        concurrency,
        ray_remote_args,
    ):
        part = _state_from_bytes(blob)
        if index is None:  # positions within the batch, moved to the batch's place in the dataset
            part.shift_index(first_row)
        count += rows
        pending.append(part)
        if len(pending) == _MERGE_CHUNK:
            merged.merge(*pending)
            pending = []
    merged.merge(*pending)
    if merged.total is None:  # the dataset's count: a result holding fewer examples is refused
        merged.total = count
    return merged


def score(
    ds,
    metric,
    *,
    return_per_example: bool = False,
    confidence: float | None = None,
    n_resamples: int | None = None,
    seed: int | None = None,
    allow_partial: bool = False,
    **kwargs,
):
    """The metric's :class:`~multimodal_metrics.results.Result` of every row of ``ds``: equal bit for bit
    to ``<metric>.score`` on the same rows in index order (value, per-example list, seeded interval,
    signature). ``kwargs``: those of :func:`state` (columns, ``index``, ``preset``, options, compute)."""
    merged = state(ds, metric, **kwargs)
    return merged.result(
        return_per_example=return_per_example,
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
        allow_partial=allow_partial,
    )
