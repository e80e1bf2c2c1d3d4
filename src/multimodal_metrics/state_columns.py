"""What a metric's state may hold per example: each column's dtype, shape and range, checked on load.

A state read from bytes is checked twice: its framing and checksum (:mod:`multimodal_metrics.state_format`)
prove that the bytes are those that were written; the column descriptions of its metric, declared here
once per metric as :class:`Column` rows, prove that what was written is a possible row of that metric (a
score in [0, 1], counts that are whole and not negative, ...), so that a state forged with a correct
checksum still cannot make a score out of an impossible row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Column", "check_rows"]

_KINDS = {"<f8": "f", "<i8": "i", "|b1": "b", "str": "O"}


@dataclass(frozen=True)
class Column:
    """One per-example column of a metric's state: its wire ``dtype`` (``<f8``, ``<i8``, ``|b1`` or ``str``),
    the ``shape`` of one example's value (``()`` for a number, ``(4,)`` for four counts), and for numbers
    the closed range ``[low, high]`` every value lies in (None: unbounded on that side; numbers are always
    finite) and whether they are ``whole`` (counts). ``choices``: for text, the values allowed (None: any)."""

    dtype: str
    shape: tuple = ()
    low: float | None = None
    high: float | None = None
    whole: bool = False
    choices: tuple | None = None

    def check(self, name: str, column: np.ndarray, metric: str) -> None:
        """A ValueError naming ``metric``, the column ``name`` and the first example whose value is not
        of this description."""
        where = f"{metric} state column {name!r}"
        if column.dtype.kind != _KINDS[self.dtype] or tuple(column.shape[1:]) != tuple(self.shape):
            raise ValueError(
                f"{where} has dtype {column.dtype} and shape {list(column.shape[1:])} per example; a "
                f"{metric} state holds {self.dtype} of shape {list(self.shape)}"
            )
        if self.dtype == "|b1":
            return
        if self.dtype == "str":
            if self.choices is not None:
                bad = [i for i, v in enumerate(column.tolist()) if v not in self.choices]
                if bad:
                    raise ValueError(
                        f"{where}: row {bad[0]} holds {column[bad[0]]!r}, not one of {list(self.choices)}"
                    )
            return
        flat = column.reshape(len(column), -1)
        bad = ~np.isfinite(flat) if self.dtype == "<f8" else np.zeros(flat.shape, dtype=bool)
        if self.low is not None:
            bad |= flat < self.low
        if self.high is not None:
            bad |= flat > self.high
        if self.whole and self.dtype == "<f8":
            bad |= np.isfinite(flat) & (flat != np.floor(flat))
        rows = np.flatnonzero(bad.any(axis=1))
        if len(rows):
            i = int(rows[0])
            span = f"[{self.low if self.low is not None else '-inf'}, {self.high if self.high is not None else 'inf'}]"
            kind = "whole numbers" if self.whole else "finite numbers"
            raise ValueError(
                f"{where}: row {i} holds {column[i].tolist()!r}; its values are {kind} in {span}"
            )


def check_rows(columns: dict[str, np.ndarray], schema: dict[str, Column], metric: str) -> None:
    """``columns`` (name -> array of one value per example) are exactly the columns of ``schema``, in its
    order, each as described; else a ValueError naming the metric and the column."""
    if list(columns) != list(schema):
        raise ValueError(
            f"a {metric} state holds the columns {list(schema)} here; these bytes hold {list(columns)}"
        )
    for name, column in columns.items():
        schema[name].check(name, column, metric)
