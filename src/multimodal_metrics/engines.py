"""What the engine adapters share (``multimodal_metrics.ray``, ``.spark``, ``.torchmetrics``): the
metric's module by name, the names of its per-example inputs, which keywords name input columns, a new state
told how many examples the whole job has, and a metric's error told with the example's global index.

The states themselves, their merge and their bytes are :mod:`multimodal_metrics.state`'s.
"""

from __future__ import annotations

import importlib
import inspect
import re

from .state import MetricState

__all__ = [
    "input_columns",
    "input_names",
    "locate_error",
    "metric_module",
    "new_state",
    "split_inputs",
]

_ROW_REF = re.compile(r"`(\w+)\[(\d+)\]")


def metric_module(metric, engine: str):
    """The library module of ``metric`` (a name such as ``"anls"`` or the module itself) that has a mergeable
    ``State``; ``engine`` names the adapter in the errors."""
    from . import METRICS

    if inspect.ismodule(metric):
        name = metric.__name__.rpartition(".")[2]
    elif isinstance(metric, str):
        name = metric
    else:
        raise TypeError(f"`metric` must be a metric name or module, got {type(metric).__name__}")
    if name not in METRICS:
        raise ValueError(f"`metric` must be one of {list(METRICS)}, got {name!r}")
    module = importlib.import_module(f"{__package__}.{name}")
    if not hasattr(module, "State"):
        raise ValueError(f"{name} has no mergeable state in this version: it cannot be scored on {engine}")
    return module


def input_names(module) -> list[str]:
    """The per-example arguments of the metric's ``State.update``, in order (``index`` aside):
    ``predictions``, ``references``, then the metric's others (vqa_acc's ``question_types``, ...)."""
    params = inspect.signature(module.State.update).parameters
    return [p for p in params if p not in ("self", "index")]


def split_inputs(module, kwargs: dict) -> tuple[dict, dict]:
    """(inputs, options) of an adapter's keywords: a keyword named after a per-example input of the metric
    (:func:`input_names`) is an input, every other keyword an option of the metric."""
    names = set(input_names(module))
    inputs = {k: v for k, v in kwargs.items() if k in names}
    return inputs, {k: v for k, v in kwargs.items() if k not in names}


def new_state(module, preset, options: dict, total: int | None = None) -> MetricState:
    """An empty state of the metric with ``preset`` and ``options`` (checked here: the metric's own errors).
    ``total``: how many examples the whole job has, where the engine knows it (a DataFrame's row count, a
    dataset's length): such a state refuses a result while examples are missing."""
    preset = module.OPTIONS.default_preset if preset is None else preset
    return module.state(preset, total=total, **options)


def input_columns(module, columns: dict, index, available: list[str], what: str = "dataset") -> dict:
    """{input name: column} of the metric's per-example inputs (``columns``: the keywords of
    :func:`split_inputs`; ``predictions`` and ``references`` default to columns of those names), every column
    and ``index`` checked against the ``available`` column names (a ValueError naming the argument)."""
    inputs = {}
    for name in input_names(module):
        column = columns.get(name, name if name in ("predictions", "references") else None)
        if column is not None:
            inputs[name] = column
    for name, column in [*inputs.items(), *([("index", index)] if index is not None else [])]:
        if not isinstance(column, str):
            raise TypeError(f"`{name}` must be a column name (str), got {type(column).__name__}")
        if column not in available:
            raise ValueError(f"`{name}`: the {what} has no column {column!r} (its columns: {available})")
    return inputs


def locate_error(err: Exception, index, what: str = "index column value") -> str:
    """The metric's error message with a batch position (`predictions[3]`) told as the example's global index
    (``index``: the global indexes of the batch, said to be ``what``; None: the position is said to be within
    a batch)."""
    message = str(err)
    match = _ROW_REF.search(message)
    if match and index is not None and int(match.group(2)) < len(index):
        global_index = index[int(match.group(2))]
        return f"{message[: match.start(2)]}{global_index}{message[match.end(2) :]} ({what})"
    if match:
        return f"{message} (position in a batch of the dataset)"
    return message
