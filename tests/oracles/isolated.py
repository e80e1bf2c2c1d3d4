"""What the codebleu oracles share: running one of them in its own virtual environment, and the
insertion-ordered set they put in place of ``set`` inside the official modules.

An oracle module is run as a script by its venv's python with ``-I`` (neither tests/ nor the library is
on sys.path, so ``import codebleu`` is the PyPI package); it reads a JSON job on stdin and prints one
JSON line of results. The standard library only: this module is imported on both sides.
"""

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


class OrderedSet(dict):
    """``set`` with first-seen order (``list(set(names))`` in the official data-flow code depends on
    PYTHONHASHSEED; the library uses first-seen order)."""

    def __init__(self, items=()):
        super().__init__(dict.fromkeys(items))

    def add(self, item):
        self[item] = None


def run(python: Path, script: str, payload: dict, hash_seed: str = "0", timeout: float = 600):
    """Run ``script`` (an oracle module's file) with ``python -I`` in .build/, the JSON ``payload`` on
    stdin; returns the JSON of its last output line."""
    env = dict(os.environ, PYTHONHASHSEED=str(hash_seed))
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [str(python), "-I", str(Path(script).resolve())],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=str(ROOT / ".build"),
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{Path(script).stem} oracle failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])
