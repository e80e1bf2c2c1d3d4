"""The README's "Three ways in" examples run as written (evaluate.load, Trainer, the command line)."""

import os
import re
import subprocess
import sys

import pytest
from helpers import ROOT, readme_blocks

BLOCKS = readme_blocks("Three ways in")


def test_the_three_ways_are_documented():
    assert [lang for lang, _ in BLOCKS] == ["python", "python", "bash"]


@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=["evaluate_load", "trainer", "command_line"])
def test_readme_example_runs_as_written(index):
    lang, code = BLOCKS[index]
    command = [sys.executable, "-c", code] if lang == "python" else ["bash", "-euo", "pipefail", "-c", code]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, env=os.environ.copy(), timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    if index == 0:
        assert "'anls': 0.857" in done.stdout and "'per_example': [0.714" in done.stdout
    elif index == 1:
        assert "eval_ned_one_minus_ned" in done.stdout and "anls|preset:default|" in done.stdout
        objective = float(done.stdout.strip().splitlines()[-2])
        assert objective >= 0
    else:
        assert re.search(r"^anls\s+0\.900000$", done.stdout, re.M) and re.search(
            r"^examples\s+2$", done.stdout, re.M
        )
        assert '{"id": 1, "anls": 0.8}\n{"id": 2, "anls": 1.0}' in done.stdout
