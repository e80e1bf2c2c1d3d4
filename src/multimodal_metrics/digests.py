"""Content digests: of files, for signatures and pinned downloads, and of examples, for scoring states.

:func:`file_sha256` names a file by its content wherever one is: codebleu's grammar library and the
pinned tree-sitter sources, fid_clip's Inception weights and the demo's duplicate uploads, ru_meteor's
RuWordNet database. :func:`example_digests` names an example of a scoring state by its inputs, so that a
repeated example (a ``DistributedSampler``'s padding) is told from another example given the same index.
"""

import hashlib
import json

import numpy as np


def file_sha256(path) -> str:
    """The SHA-256 hex digest of the file at ``path``, read in 1 MiB blocks (constant memory)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


EXAMPLE_DIGEST_SIZE = 16  # bytes: a 128-bit BLAKE2b digest per example of a scoring state


def row_digests(rows) -> np.ndarray:
    """One 128-bit BLAKE2b digest per item of ``rows`` (bytes each), as an ``(n, 16)`` uint8 array."""
    blake = hashlib.blake2b
    joined = b"".join([blake(row, digest_size=EXAMPLE_DIGEST_SIZE).digest() for row in rows])
    return np.frombuffer(joined, dtype=np.uint8).reshape(-1, EXAMPLE_DIGEST_SIZE).copy()


def example_digests(*fields) -> np.ndarray:
    """What each example of a state is, as a 128-bit digest: the BLAKE2b digest of the compact JSON text
    of its values in ``fields`` (sequences of one value per example: a string, a list of strings, a
    number, ``None``), e.g. ``example_digests(predictions, references)``. Two examples have the same
    digest exactly when their values are the same (up to a 2**-128 chance), whatever they scored."""
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
    return row_digests([encode(values).encode("utf-8", "surrogatepass") for values in zip(*fields)])
