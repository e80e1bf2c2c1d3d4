"""Content digests of files, for signatures and pinned downloads (standard library only).

One function, used wherever a file is named by its content: codebleu's grammar library and the pinned
tree-sitter sources, fid_clip's Inception weights and the demo's duplicate uploads, ru_meteor's RuWordNet
database.
"""

import hashlib


def file_sha256(path) -> str:
    """The SHA-256 hex digest of the file at ``path``, read in 1 MiB blocks (constant memory)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
