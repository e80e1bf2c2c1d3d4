"""The indexes of a scoring state: checked on the way in, moved safely, and held against the job's size.

Every example of a state carries a global index, a whole number in [0, 2**63 - 1]. These functions refuse
what would leave that range (an update numbered past the last index, a shift below 0 or past the top)
before anything changes, and tell whether the indexes a state holds cover the whole job (``total``
examples) or what is missing.
"""

from __future__ import annotations

import numbers

import numpy as np

MAX_INDEX = 2**63 - 1

__all__ = [
    "MAX_INDEX",
    "check_index",
    "check_offset",
    "check_record_ids",
    "check_total",
    "mark_partial",
    "merge_record_ids",
    "missing_message",
    "read_record_ids",
]


def check_index(index, n: int, start: int) -> np.ndarray:
    """The global indexes of ``n`` new examples: ``start, start + 1, ...`` when ``index`` is None (a
    ValueError naming ``index`` when they would pass 2**63 - 1), else ``n`` whole numbers in
    [0, 2**63 - 1] (list, tuple, numpy or torch integers; bools refused)."""
    if index is None:
        if n and start + n - 1 > MAX_INDEX:
            raise ValueError(
                f"`index`: the {n} new example(s) would be numbered from {start}, past the largest "
                "index 2**63 - 1: pass `index` explicitly"
            )
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
        if not 0 <= value <= MAX_INDEX:
            raise ValueError(f"`index[{i}]` must be in [0, 2**63 - 1], got {value!r}")
    return array.astype(np.int64)


def check_total(total) -> int | None:
    """``total`` (the number of examples of the whole job) checked: None or a whole number >= 0."""
    if total is None:
        return None
    if isinstance(total, bool) or not isinstance(total, numbers.Integral):
        raise TypeError(
            f"`total` must be a whole number (the job's number of examples), got {type(total).__name__}"
        )
    if not 0 <= total <= MAX_INDEX:
        raise ValueError(f"`total` must be in [0, 2**63 - 1], got {total!r}")
    return int(total)


def _ranges(values: np.ndarray, limit: int = 5) -> str:
    """Sorted whole numbers as ranges: ``"3, 7, 10-12"`` (the first ``limit`` ranges, then a count)."""
    if not len(values):
        return ""
    runs = np.split(values, np.flatnonzero(np.diff(values) != 1) + 1)
    parts = [f"{int(r[0])}" if len(r) == 1 else f"{int(r[0])}-{int(r[-1])}" for r in runs[:limit]]
    more = len(runs) - limit
    return ", ".join(parts) + (f" and {more} more range(s)" if more > 0 else "")


def missing_message(index: np.ndarray, total: int, metric: str) -> str | None:
    """None when ``index`` (sorted, unique) covers a job of ``total`` examples, else what is missing or
    too much: the missing indexes named when the indexes are positions in [0, total)."""
    held = len(index)
    if held == total:
        return None
    if held > total:
        return (
            f"{metric} state holds {held} examples where the job has {total} (`total`): states of "
            "another job, or a wrong total"
        )
    if held and index[-1] >= total:
        return (
            f"{metric} state holds {held} of the job's {total} examples (`total`): {total - held} are "
            "missing (the indexes are not positions 0..total-1, so they cannot be named)"
        )
    missing = np.setdiff1d(np.arange(total, dtype=np.int64), index, assume_unique=True)
    what = f"example {_ranges(missing)} is" if len(missing) == 1 else f"examples {_ranges(missing)} are"
    return (
        f"{metric} state: {what} missing ({len(missing)} of the job's {total}): a shard or rank that "
        "did not arrive?"
    )


def check_offset(offset, index: np.ndarray, metric: str) -> int:
    """``offset`` (``shift_index``'s argument) checked: a whole number that keeps every index of
    ``index`` (sorted) in [0, 2**63 - 1]; else a TypeError / ValueError naming ``offset``."""
    if isinstance(offset, bool) or not isinstance(offset, numbers.Integral):
        raise TypeError(f"`offset` must be a whole number, got {type(offset).__name__}")
    offset = int(offset)
    if len(index) and (int(index[0]) + offset < 0 or int(index[-1]) + offset > MAX_INDEX):
        raise ValueError(
            f"`offset` = {offset} would move the {metric} state's indexes {int(index[0])}..{int(index[-1])} "
            "out of [0, 2**63 - 1]"
        )
    return offset


def mark_partial(result, partial: str | None):
    """``result`` with ``partial:<held>/<total>`` added to its signature (``partial`` None: unchanged)."""
    if partial is None:
        return result
    signature = result.get_signature().with_fields(partial=partial)
    result._signature = signature
    result["signature"] = signature.format()
    return result


def _record_id_ok(value) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def check_record_ids(index, ids) -> dict:
    """``{index: id}`` of the examples ``index`` (checked as ``update`` checks it) and their record ids
    (``ids``: one string or whole number each); else a TypeError / ValueError naming ``ids``."""
    ids = list(ids)
    index = check_index(index, len(ids), 0).tolist()
    for i, value in enumerate(ids):
        if not _record_id_ok(value):
            raise TypeError(f"`ids[{i}]` must be a string or a whole number, got {type(value).__name__}")
    named = {}
    for i, value in zip(index, ids):
        if named.setdefault(i, value) != value:
            raise ValueError(f"`ids`: example index {i} is given two record ids, {named[i]!r} and {value!r}")
    return named


def merge_record_ids(*parts: dict) -> dict:
    """The union of several ``{index: id}``; an index named otherwise in two of them is a ValueError."""
    out: dict = {}
    for part in parts:
        for i, value in part.items():
            if out.setdefault(i, value) != value:
                raise ValueError(
                    f"example index {i} has the record id {out[i]!r} in one state and {value!r} in another"
                )
    return out


def read_record_ids(data) -> dict:
    """``{index: id}`` from the bytes a state wrote (a JSON list of [index, id] pairs, sorted, each index
    once); else a ValueError."""
    import json

    try:
        pairs = json.loads(bytes(data).decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        pairs = None
    ok = isinstance(pairs, list) and all(
        isinstance(p, list)
        and len(p) == 2
        and isinstance(p[0], int)
        and not isinstance(p[0], bool)
        and 0 <= p[0] <= MAX_INDEX
        and _record_id_ok(p[1])
        for p in pairs
    )
    if not ok or any(a[0] >= b[0] for a, b in zip(pairs, pairs[1:])):
        raise ValueError("state record ids must be [index, id] pairs, sorted, each index once")
    return dict(map(tuple, pairs))
