"""The code base passes ruff's linter and is in ruff's format (configuration in pyproject.toml)."""

import subprocess
import sys

import pytest
from helpers import ROOT

TREES = ["src", "metrics", "scripts", "spaces", "tests", "benchmarks"]


@pytest.mark.parametrize(
    "command", [["check", "--no-cache"], ["format", "--check", "--no-cache"]], ids=["check", "format"]
)
def test_ruff_is_clean(command):
    trees = [tree for tree in TREES if (ROOT / tree).is_dir()]
    out = subprocess.run(
        [sys.executable, "-m", "ruff", *command, *trees], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
