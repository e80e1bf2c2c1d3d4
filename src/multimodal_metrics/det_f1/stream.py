"""The marshal reader of det_f1: plain box lists read without a Python-level pass over boxes or numbers.

``marshal.dumps`` walks the box lists in C (it writes exact builtin types only and runs no code of
the objects) and numpy parses its byte stream; every token and every list's item count is checked,
so a stream is taken only when its one decoding is plain box lists, with the exact numbers. Used by
:func:`multimodal_metrics.det_f1.columns.pack` (its plain path, ``_pack_plain``).
"""

import marshal

import numpy as np

# marshal format 2 tokens: '[' + int32 item count (a list), 'i' + int32, 'g' + float64, all little-endian
_LIST, _INT, _FLOAT = 0x5B, 0x69, 0x67


def plain_boxes(lists: list) -> tuple | None:
    """(box count of each list, (N, 4) float64 coordinates) when every box list is a ``list`` of
    ``list`` boxes of 4 numbers that are exactly ``int`` (of 32 bits) or ``float``, or is ``[[]]``
    (no box: count 0); else None.

    ``marshal.dumps`` walks the lists in C and runs no code of the objects; it writes exact builtin
    types only (a bool, tuple, set, str, None or big int becomes another token; a subclass, a numpy
    number or array becomes bytes or a ValueError). The stream is parsed with numpy by
    :func:`_int_stream` (integer coordinates: every token is 5 bytes) or :func:`_token_stream`; both
    check every token and the item count of every list, so a stream is taken only when its one
    decoding is box lists as above, and the numbers are the exact values (int32 or float64 bits).
    """
    try:
        stream = marshal.dumps(lists, 2)
    except ValueError:  # an object marshal refuses (a subclass, a tensor, ...)
        return None
    return _stream_boxes(stream, len(lists))


def _stream_boxes(stream: bytes, n_lists: int) -> tuple | None:
    """:func:`plain_boxes` of the marshal stream of ``n_lists`` box lists."""
    if n_lists >= 2**31 or stream[:5] != b"[" + n_lists.to_bytes(4, "little"):
        return None
    if not n_lists:
        return (np.zeros(0, dtype=np.int64), np.zeros((0, 4), dtype=np.float64)) if len(stream) == 5 else None
    parsed = _int_stream(stream, n_lists)
    return parsed if parsed is not None else _token_stream(stream, n_lists)


def _int_stream(stream: bytes, n_lists: int) -> tuple | None:
    """:func:`plain_boxes` of a stream whose tokens are all 5 bytes ('[' + count, 'i' + int32): after
    the 5-byte header it is an array of tokens, read as strided views; None otherwise."""
    n_tokens, rest = divmod(len(stream) - 5, 5)
    if rest or not n_tokens:
        return None
    ops = np.ndarray((n_tokens,), np.uint8, stream, 5, (5,))
    payload = np.ndarray((n_tokens,), "<i4", stream, 6, (5,))
    is_list = ops == _LIST
    brackets = np.flatnonzero(is_list)
    if not len(brackets) or brackets[0] or len(brackets) + np.count_nonzero(ops == _INT) != n_tokens:
        return None
    items = payload[brackets]
    ints = np.diff(brackets, append=n_tokens) - 1  # the ints right after each '['
    is_box = ints == 4
    if not ((ints == 0) | is_box & (items == 4)).all():  # ints only as the 4 numbers of a box
        return None
    counts = _box_counts(is_box, items, n_lists)
    if counts is None:
        return None
    return counts, payload[~is_list].astype(np.float64).reshape(-1, 4)


def _token_stream(stream: bytes, n_lists: int) -> tuple | None:
    """:func:`plain_boxes` of a stream with 'g' (float) numbers too. Every '[' byte followed by a
    possible item count and a token is a candidate token; a '[' 4 followed by 4 numbers is a box (read
    in 4 vectorised steps); the tokens must tile the stream exactly (each one ending where the next
    one starts), which makes them its decoding, else the '[' bytes inside a box's numbers are dropped
    and the rest must tile it. None otherwise."""
    size = len(stream)
    data = np.frombuffer(stream, dtype=np.uint8)
    int32_at = np.ndarray((size - 3,), "<i4", stream, 0, (1,))  # the int32 starting at each byte
    starts = np.flatnonzero(data[5 : size - 4] == _LIST) + 5
    items = int32_at[starts + 1]
    # a token has 0 to size / 5 items (5 bytes each at least) and is followed by a token or the end:
    # most '[' bytes inside numbers are not (dropping a token here only makes the stream untiled)
    after = data[np.minimum(starts + 5, size - 1)]
    plausible = (items.view(np.uint32) <= size // 5) & (
        (after == _LIST) | (after == _FLOAT) | (after == _INT) | (starts + 5 == size)
    )
    starts, items = starts[plausible], items[plausible]
    maybe = np.flatnonzero(items == 4)
    pos = starts[maybe] + 5
    ok, every_float = np.ones(len(maybe), dtype=bool), np.ones(len(maybe), dtype=bool)
    floats = np.empty((4, len(maybe)), dtype=bool)
    for k in range(4):
        op = data[np.minimum(pos, size - 1)]
        floats[k] = is_float = op == _FLOAT
        ok &= is_float | (op == _INT)
        every_float &= is_float
        pos += 5 + 4 * is_float
    ok &= pos <= size
    boxes = maybe[ok]
    is_box = np.zeros(len(starts), dtype=bool)
    is_box[boxes] = True
    ends = starts + 5
    ends[boxes] = pos[ok]
    kept = slice(None)
    if not _tiled(starts, ends, size):  # drop the '[' bytes inside the numbers of the box before them
        if not len(boxes):
            return None
        last = np.maximum(np.cumsum(is_box) - 1, 0)
        first = is_box.argmax()
        token = (starts < starts[first]) | (starts == starts[boxes][last]) | (starts >= ends[boxes][last])
        kept = token[boxes]
        starts, ends, is_box, items = starts[token], ends[token], is_box[token], items[token]
        if not _tiled(starts, ends, size):
            return None
    counts = _box_counts(is_box, items, n_lists)
    if counts is None:
        return None
    first_number = starts[is_box] + 6  # the payload of each box's first number
    float64_at = np.ndarray((size - 7,), "<f8", stream, 0, (1,))  # the float64 starting at each byte
    if every_float[ok].all():  # float coordinates: 'g' + 8 bytes each
        return counts, float64_at[first_number[:, None] + np.arange(0, 36, 9)]
    floats = floats[:, np.flatnonzero(ok)[kept]]
    numbers = np.empty((len(first_number), 4), dtype=np.int64)
    numbers[:, 0] = first_number
    for k in range(3):
        numbers[:, k + 1] = numbers[:, k] + 5 + 4 * floats[k]
    coords = int32_at[numbers].astype(np.float64)
    coords[floats.T] = float64_at[numbers[floats.T]]
    return counts, coords


def _tiled(starts: np.ndarray, ends: np.ndarray, size: int) -> bool:
    """True when the tokens ``[starts[k], ends[k])`` cover the stream after its 5-byte header exactly."""
    return bool(len(starts)) and starts[0] == 5 and ends[-1] == size and np.array_equal(ends[:-1], starts[1:])


def _box_counts(is_box: np.ndarray, items: np.ndarray, n_lists: int) -> np.ndarray | None:
    """The box count of each of ``n_lists`` box lists, from the '[' tokens of their stream in order
    (``is_box``: a box of 4 numbers; ``items``: each token's item count); None unless the tokens are
    exactly that: list, its boxes, next list... A box is a box of 4 or, as the only box of its list, an
    empty list (``[[]]``, counted as no box)."""
    plain = ~is_box
    after_one = np.zeros(len(items), dtype=bool)
    after_one[1:] = plain[:-1] & (items[:-1] == 1)
    empty = plain & (items == 0) & after_one  # '[' 0 right after a list of 1: the empty box of [[]]
    heads = np.flatnonzero(plain & ~empty)
    if len(heads) != n_lists or heads[0]:
        return None
    counts = items[heads].astype(np.int64)
    if not np.array_equal(np.diff(heads, append=len(items)) - 1, counts):  # each list followed by its boxes
        return None
    counts[empty[np.minimum(heads + 1, len(items) - 1)]] = 0
    return counts
