"""The README's "Scale out" examples run as written: torchrun with two processes, Lightning's validation with
the torchmetrics objects, Ray Data, the Dask recipe (a state per partition, no adapter) and the mm-score
shards merged; each asserts that its result equals one score() call on all examples. The Spark example runs
in tests/test_spark.py, in the Java process that file starts once."""

import pytest
from helpers import readme_blocks, run_readme_block

BLOCKS = readme_blocks("Scale out")
# block 0: the API at a glance (not a program)
RUN = {1: "torchrun", 2: "lightning", 3: "ray", 5: "dask", 6: "mm_score"}  # 4: tests/test_spark.py
EXPECTED = {
    "torchrun": "anls 0.744898 over 1001 questions, equal to one score() call",
    "lightning": "anls 0.744898 over 1001 questions, anls|preset:default|",
    "ray": "anls 0.744898",
    "dask": "anls 0.744898 from 4 partitions",
    "mm_score": "the merged shards print the one-command result",
}


def test_the_scale_out_examples_are_documented():
    # the last block, fid-clip in shards, names model weights that are not here: the same commands run
    # on tiny models in tests/test_mm_score_fid_clip.py
    assert [lang for lang, _ in BLOCKS] == [
        "python",
        "bash",
        "python",
        "python",
        "python",
        "python",
        "bash",
        "bash",
    ]
    assert "mm-score fid-clip" in BLOCKS[7][1] and "--save-state" in BLOCKS[7][1]
    assert "mmspark.score(" in BLOCKS[4][1]  # run by tests/test_spark.py


@pytest.mark.parametrize("index", sorted(RUN), ids=[RUN[i] for i in sorted(RUN)])
def test_scale_out_example_runs_as_written(index):
    stdout = run_readme_block(BLOCKS[index], timeout=240)
    assert EXPECTED[RUN[index]] in stdout
