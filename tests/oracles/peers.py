"""Peers run as oracles in their own venvs (``scripts/setup.d/test/<peer>_oracle.sh`` creates
``.build/venv-<peer>``): one subprocess per call, JSON in on stdin, JSON out on stdout. The peer's code is
never imported here nor by the library.

* ``anls_star``: PyPI ``anls_star`` 1.0.1, ``anls_score(tuple(answers), prediction)`` per question;
* ``jiwer``: PyPI ``jiwer`` 4.0.0, ``cer(reference, hypothesis)`` per pair and over the corpus (its default
  transform ``cer_default``: ``Strip`` then characters).
"""

import json
import subprocess
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

PEERS = {
    "anls_star": """
import json, sys, warnings
warnings.simplefilter("ignore")
from anls_star import anls_score
cases = json.load(sys.stdin)
print(json.dumps([anls_score(tuple(refs), pred) for pred, refs in cases]))
""",
    "jiwer": """
import json, sys
import jiwer
refs, hyps = json.load(sys.stdin)
print(json.dumps({"per_pair": [jiwer.cer(r, h) for r, h in zip(refs, hyps)], "corpus": jiwer.cer(refs, hyps)}))
""",
}


def python(peer: str) -> Path:
    return ROOT / ".build" / f"venv-{peer}" / "bin" / "python"


def available(peer: str) -> bool:
    return python(peer).exists()


def why_missing(peer: str) -> str:
    return f"run scripts/setup.d/test/{peer}_oracle.sh (creates .build/venv-{peer})"


def run(peer: str, payload):
    """The peer's answer to ``payload`` (see ``PEERS``)."""
    with warnings.catch_warnings():
        proc = subprocess.run(
            [str(python(peer)), "-c", PEERS[peer]],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    if proc.returncode != 0:
        raise RuntimeError(f"{peer} oracle failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)
