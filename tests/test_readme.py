"""The README's "Three ways in" examples run as written (evaluate.load, Trainer, the command line)."""

import re

import pytest
from helpers import readme_blocks, run_readme_block

BLOCKS = readme_blocks("Three ways in")


def test_the_three_ways_are_documented():
    assert [lang for lang, _ in BLOCKS] == ["python", "python", "bash"]


@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=["evaluate_load", "trainer", "command_line"])
def test_readme_example_runs_as_written(index):
    stdout = run_readme_block(BLOCKS[index], timeout=300)
    if index == 0:
        assert "'anls': 0.857" in stdout and "'per_example': [0.714" in stdout
    elif index == 1:
        assert "eval_ned_one_minus_ned" in stdout and "anls|preset:default|" in stdout
        objective = float(stdout.strip().splitlines()[-2])
        assert objective >= 0
    else:
        assert re.search(r"^anls\s+0\.900000$", stdout, re.M) and re.search(r"^examples\s+2$", stdout, re.M)
        assert '{"id": 1, "anls": 0.8}\n{"id": 2, "anls": 1.0}' in stdout
