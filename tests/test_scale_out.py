"""The README's "Scale out" examples run as written: torchrun with two processes, Ray Data, the Dask recipe
(a state per partition, no adapter) and the mm-score shards merged; each asserts that its result equals
one score() call on all examples."""

import os
import subprocess
import sys

import pytest
from helpers import ROOT, readme_blocks

BLOCKS = readme_blocks("Scale out")
RUN = {1: "torchrun", 2: "ray", 3: "dask", 4: "mm_score"}  # block 0: the API at a glance (not a program)
EXPECTED = {
    "torchrun": "anls 0.744898 over 1001 questions, equal to one score() call",
    "ray": "anls 0.744898",
    "dask": "anls 0.744898 from 4 partitions",
    "mm_score": "the merged shards print the one-command result",
}


def test_the_scale_out_examples_are_documented():
    assert [lang for lang, _ in BLOCKS] == ["python", "bash", "python", "python", "bash"]


@pytest.mark.parametrize("index", sorted(RUN), ids=[RUN[i] for i in sorted(RUN)])
def test_scale_out_example_runs_as_written(index):
    lang, code = BLOCKS[index]
    command = [sys.executable, "-c", code] if lang == "python" else ["bash", "-euo", "pipefail", "-c", code]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, env=os.environ.copy(), timeout=240
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert EXPECTED[RUN[index]] in done.stdout
