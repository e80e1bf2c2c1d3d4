"""The wire format of a scoring state: framing, checksum and header checks (standard library and numpy).

A state's bytes (``MetricState.to_bytes``) are, little-endian::

    b"MMSTATE\\0" | uint32 format (2) | uint32 header length | uint64 payload length
    | header (UTF-8 JSON object) | payload | SHA-256 of every byte before it (32 bytes)

The reader (:func:`unpack`) trusts nothing before the checksum matches: it checks the magic, the format,
that the two lengths add up to the size of the blob (a file's size is checked before its payload is read:
:func:`read_file`) and the SHA-256 digest, and only then parses the header, at most ``MAX_HEADER`` bytes
nested at most ``MAX_DEPTH`` deep. So a flipped bit anywhere, a truncated or lengthened file or a forged
header without a recomputed digest is a ``ValueError`` saying what is wrong, never a changed score. What a
correct digest does not prove (a state forged with a recomputed digest) is caught by the checks of the
header's fields here and of each metric's columns in :mod:`multimodal_metrics.state`.

Format 1 (the first release of states: no checksum, no per-example digest, no total) is refused with a
message that says to score the examples again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct

import numpy as np

MAGIC = b"MMSTATE\x00"
FORMAT = 2
_PREFIX = struct.Struct("<IIQ")  # format, header length, payload length
PREFIX_SIZE = len(MAGIC) + _PREFIX.size
CHECKSUM_SIZE = 32  # SHA-256
MAX_HEADER = 1 << 20  # bytes of header JSON: options, context and column descriptions are small
MAX_DEPTH = 16  # nesting of the header JSON (objects and lists)

__all__ = [
    "CHECKSUM_SIZE",
    "FORMAT",
    "MAGIC",
    "MAX_DEPTH",
    "MAX_HEADER",
    "PREFIX_SIZE",
    "PayloadReader",
    "check_file_head",
    "check_header",
    "pack",
    "read_file",
    "unpack",
]


def pack(header: dict, payloads: list[bytes]) -> bytes:
    """The bytes of a state: the framing around ``header`` (JSON data) and ``payloads`` (concatenated),
    closed by the SHA-256 digest of everything before it."""
    head = json.dumps(header, sort_keys=True, allow_nan=False, ensure_ascii=False).encode("utf-8")
    if len(head) > MAX_HEADER:
        raise ValueError(f"a state header of {len(head)} bytes is over the format's {MAX_HEADER}")
    payload_size = sum(len(p) for p in payloads)
    parts = [MAGIC, _PREFIX.pack(FORMAT, len(head), payload_size), head, *payloads]
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return b"".join([*parts, digest.digest()])


def _check_prefix(prefix: bytes, size: int | None, where: str) -> tuple[int, int]:
    """(header length, payload length) from the first ``PREFIX_SIZE`` bytes; ``size``: the whole blob's
    length, checked against them (None: not known yet)."""
    if len(prefix) < len(MAGIC) or prefix[: len(MAGIC)] != MAGIC:
        raise ValueError(f"{where} is not a multimodal-metrics state (no MMSTATE header)")
    if len(prefix) < PREFIX_SIZE:
        raise ValueError(f"{where}: the state is truncated (its framing)")
    fmt, head_size, payload_size = _PREFIX.unpack(prefix[len(MAGIC) : PREFIX_SIZE])
    if fmt != FORMAT:
        if prefix[len(MAGIC) + 4 : len(MAGIC) + 5] == b"{":  # format 1: the header's JSON followed its length
            raise ValueError(
                f"{where}: a state of format 1 (written by an earlier multimodal-metrics, without a "
                f"checksum or per-example digests); this version reads format {FORMAT}: score the examples "
                "again with this version"
            )
        raise ValueError(f"{where}: state format {fmt} is not supported (this library reads format {FORMAT})")
    if head_size > MAX_HEADER:
        raise ValueError(f"{where}: a state header of {head_size} bytes is over the format's {MAX_HEADER}")
    if size is not None:
        expected = PREFIX_SIZE + head_size + payload_size + CHECKSUM_SIZE
        if size != expected:
            raise ValueError(
                f"{where}: {size} bytes where the state's framing announces {expected}: the state is "
                f"{'truncated' if size < expected else 'followed by other bytes'}"
            )
    return head_size, payload_size


def _json_depth(text: bytes) -> int:
    """The deepest nesting of objects and lists in JSON ``text`` (brackets inside strings not counted)."""
    bare = re.sub(rb'"(?:[^"\\]|\\.)*"', b'""', text)
    codes = np.frombuffer(bare, dtype=np.uint8)
    step = np.isin(codes, (ord("{"), ord("["))).astype(np.int64) - np.isin(codes, (ord("}"), ord("]")))
    return int(np.cumsum(step).max(initial=0))


def _no_constant(name: str):
    raise ValueError(f"a state header holds {name}, which is not a number of JSON")


def unpack(blob, where: str = "these bytes") -> tuple[dict, memoryview]:
    """(header, payload) of a state's bytes, after checking the framing and the checksum; every defect is
    a ValueError naming ``where`` (a file's name) and what is wrong."""
    if not isinstance(blob, bytes | bytearray | memoryview):
        raise TypeError(f"state bytes must be bytes, got {type(blob).__name__}")
    view = memoryview(blob).cast("B")
    head_size, payload_size = _check_prefix(bytes(view[:PREFIX_SIZE]), len(view), where)
    end = len(view) - CHECKSUM_SIZE
    if hashlib.sha256(view[:end]).digest() != bytes(view[end:]):
        raise ValueError(f"{where}: the state's checksum does not match its bytes (the state is damaged)")
    text = bytes(view[PREFIX_SIZE : PREFIX_SIZE + head_size])
    if _json_depth(text) > MAX_DEPTH:
        raise ValueError(f"{where}: the state header is nested deeper than {MAX_DEPTH} levels")
    try:
        header = json.loads(text.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError, RecursionError) as err:
        raise ValueError(f"{where}: the state header is not valid JSON ({err})") from None
    if not isinstance(header, dict):
        raise ValueError(f"{where}: the state header is not a JSON object")
    return header, view[PREFIX_SIZE + head_size : PREFIX_SIZE + head_size + payload_size]


def check_file_head(size: int, handle, where: str) -> None:
    """A state file's framing (its first ``PREFIX_SIZE`` bytes, read from ``handle``) against its ``size``,
    before its payload is read: a file that is not a state, or whose size differs from what its framing
    announces, is refused after reading ``PREFIX_SIZE`` bytes."""
    _check_prefix(handle.read(PREFIX_SIZE), size, where)


def read_file(path) -> bytes:
    """The bytes of the state file at ``path``, read once :func:`check_file_head` accepted its framing. The
    checksum and the rest are :func:`unpack`'s."""
    with open(path, "rb") as handle:
        check_file_head(os.fstat(handle.fileno()).st_size, handle, os.fsdecode(path))
        handle.seek(0)
        return handle.read()


_MAX_COUNT = 2**63 - 1
_NUMERIC_DTYPES = ("<f8", "<i8", "|b1")


def _whole(value, high: int = _MAX_COUNT) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= high


def _check_specs(specs: list, dtypes: tuple, what: str) -> None:
    """Each description of a header's ``columns``/``arrays``: a name, a dtype among ``dtypes``, a shape of
    at most 8 whole numbers >= 0 and a byte count >= 0 (else a ValueError naming ``what`` and the
    description)."""
    for spec in specs:
        ok = (
            isinstance(spec, dict)
            and set(spec) == {"name", "dtype", "shape", "nbytes"}
            and isinstance(spec["name"], str)
            and spec["dtype"] in dtypes
            and isinstance(spec["shape"], list)
            and len(spec["shape"]) <= 8
            and all(_whole(d) for d in spec["shape"])
            and _whole(spec["nbytes"])
        )
        if not ok:
            raise ValueError(f"state header has a malformed {what} description: {str(spec)[:200]}")


def check_header(header: dict) -> None:
    """Every field of a state's header has its type and range (a ValueError naming the field): the
    library, the format, ``version``, ``metric``, ``preset`` (text), ``options`` and ``context`` (objects),
    ``total`` (None or a whole number), ``n`` (a whole number) and the descriptions of ``columns`` and of
    the optional ``arrays`` and ``extra``."""
    if header.get("library") != "multimodal-metrics":
        raise ValueError("these bytes are not a multimodal-metrics state")
    if header.get("format") != FORMAT:
        raise ValueError(f"the state header says format {header.get('format')!r}, its framing {FORMAT}")
    expected = {"version": str, "metric": str, "preset": str, "options": dict, "columns": list}
    for key, kind in expected.items():
        if not isinstance(header.get(key), kind):
            raise ValueError(f"state header field {key!r} is missing or not a {kind.__name__}")
    if not _whole(header.get("n")):
        raise ValueError(f"state header field 'n' must be a whole number >= 0, got {header.get('n')!r}")
    if "total" not in header or not (header["total"] is None or _whole(header["total"])):
        raise ValueError(
            f"state header field 'total' must be null or a whole number >= 0, got {header.get('total')!r}"
        )
    if not (header.get("context") is None or isinstance(header["context"], dict)):
        raise ValueError("state header field 'context' must be null or an object")
    if not isinstance(header.get("extra", {}), dict) or not isinstance(header.get("arrays", []), list):
        raise ValueError("state header has a malformed 'extra' or 'arrays' field")
    known = {
        "library",
        "format",
        "version",
        "metric",
        "preset",
        "options",
        "context",
        "total",
        "n",
        "columns",
    }
    if "record_ids" in header and not _whole(header["record_ids"]):
        raise ValueError("state header field 'record_ids' must be a whole number of bytes")
    unknown = sorted(set(header) - known - {"extra", "arrays", "record_ids"})
    if unknown:
        raise ValueError(f"state header has unknown field(s) {unknown}")
    _check_specs(header.get("arrays", []), _NUMERIC_DTYPES, "array")
    _check_specs(header["columns"], (*_NUMERIC_DTYPES, "str"), "column")


class PayloadReader:
    """Reads a payload's parts in order; a part that runs past the end, or bytes left after the last, is a
    ValueError naming the part."""

    def __init__(self, payload: memoryview):
        self.payload, self.offset = payload, 0

    def take(self, nbytes: int, what: str) -> memoryview:
        data = self.payload[self.offset : self.offset + nbytes]
        if len(data) != nbytes:
            raise ValueError(f"state bytes are truncated ({what})")
        self.offset += nbytes
        return data

    def finish(self) -> None:
        if self.offset != len(self.payload):
            raise ValueError(f"state bytes have {len(self.payload) - self.offset} bytes after the last part")
