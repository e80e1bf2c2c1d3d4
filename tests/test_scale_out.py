"""The README's "Scale out" examples run as written: torchrun with two processes, Ray Data, the Dask recipe
(a state per partition, no adapter) and the mm-score shards merged; each asserts that its result equals
one score() call on all examples."""

import os
import re
import subprocess
import sys

import pytest
from helpers import ROOT


def _blocks() -> list[tuple[str, str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Scale out") :]
    section = section[: section.index("\n## ", 1)]
    return re.findall(r"```(python|bash)\n(.*?)```", section, re.S)


BLOCKS = _blocks()
RUN = {1: "torchrun", 2: "ray", 3: "dask", 4: "mm_score"}  # block 0: the API at a glance (not a program)
EXPECTED = {
    "torchrun": "anls 0.744898 over 1001 questions, equal to one score() call",
    "ray": "anls 0.744898",
    "dask": "anls 0.744898 from 4 partitions",
    "mm_score": "the merged shards print the one-command result",
}


def test_the_scale_out_examples_are_documented():
    # the last block, fid-clip in shards, names model weights that are not here: the same commands run
    # on tiny models in tests/test_mm_score_fid_clip.py
    assert [lang for lang, _ in BLOCKS] == ["python", "bash", "python", "python", "bash", "bash"]
    assert "mm-score fid-clip" in BLOCKS[5][1] and "--save-state" in BLOCKS[5][1]


@pytest.mark.parametrize("index", sorted(RUN), ids=[RUN[i] for i in sorted(RUN)])
def test_scale_out_example_runs_as_written(index):
    lang, code = BLOCKS[index]
    command = [sys.executable, "-c", code] if lang == "python" else ["bash", "-euo", "pipefail", "-c", code]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, env=os.environ.copy(), timeout=240
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert EXPECTED[RUN[index]] in done.stdout
