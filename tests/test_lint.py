"""The code base passes ruff (configuration in pyproject.toml)."""

import subprocess
import sys

from helpers import ROOT


def test_ruff_is_clean():
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "src", "metrics", "scripts", "spaces", "tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
