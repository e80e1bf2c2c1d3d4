"""multimodal_metrics.spark on a local Spark (``local[2]``, one SparkSession started once for this file: about
10 s for the JVM, 25 s in all on 2 cores).

anls, vqa_acc (with its question and answer types as more per-example columns) and codebleu: the result of
``mmspark.score`` over a DataFrame equals ``score()`` on the same rows bit for bit (value, per-example list,
seeded interval, signature), the index from a column of rows stored shuffled under ``repartition(1)``, ``(3)``
and ``(7)``, and from the DataFrame's order (partitions in order, ``coalesce``). A bad column, option or row is
named.
"""

import json
import os
import random
import sys

import pytest
from engine_cases import as_json, case

N = 101
NAMES = {"predictions": "pred", "references": "refs"}


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    os.environ.setdefault(
        "PYSPARK_PYTHON", sys.executable
    )  # the executors run this Python (and its PYTHONPATH)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("multimodal-metrics tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def frame(spark, c, order, partitions: int):
    rows = [{"row_id": i, **{NAMES.get(k, k): v[i] for k, v in c.inputs.items()}} for i in order]
    return spark.createDataFrame(rows).coalesce(partitions) if partitions else spark.createDataFrame(rows)


def run(df, c, **kwargs):
    import multimodal_metrics.spark as mmspark

    metric = c.module.__name__.rpartition(".")[2]
    extra = {k: k for k in c.inputs if k not in NAMES}  # vqa_acc's question_types, answer_types
    result = mmspark.score(
        df, metric, predictions="pred", references="refs", **extra, **c.options, **c.result_kwargs, **kwargs
    )
    return json.loads(json.dumps(as_json(result)))


@pytest.mark.parametrize("metric", ["anls", "vqa_acc", "codebleu"])
def test_spark_equals_score_under_repartition(spark, metric):
    c = case(metric, N, seed=3)
    reference = json.loads(json.dumps(as_json(c.reference())))
    shuffled = list(range(N))
    random.Random(1).shuffle(shuffled)
    df = frame(spark, c, shuffled, 0)
    for partitions in (1, 3, 7):
        assert run(df.repartition(partitions), c, index="row_id") == reference, f"repartition({partitions})"
    ordered = spark.createDataFrame(frame(spark, c, range(N), 0).collect()).repartition(1)
    assert run(ordered, c) == reference  # no index: the rows' positions in the DataFrame
    assert run(frame(spark, c, range(N), 0).coalesce(2), c) == reference


def test_state_holds_every_row_once_with_the_row_count_as_total(spark):
    import multimodal_metrics.spark as mmspark

    c = case("anls", N, seed=4)
    df = frame(spark, c, range(N), 0).coalesce(3)
    merged = mmspark.state(df, "anls", predictions="pred", references="refs", **c.options)
    assert list(merged.index) == list(range(N))
    assert merged.total == N  # the DataFrame's row count
    blob = merged.to_bytes()
    assert mmspark.state(df.repartition(5), "anls", predictions="pred", references="refs", index="row_id",
                         **c.options).to_bytes() == blob  # fmt: skip


def test_errors_name_the_argument_column_and_example(spark):
    import multimodal_metrics.spark as mmspark

    df = spark.createDataFrame(
        [(10 + k, p, ["a"]) for k, p in enumerate(["a", None, "b"])], "i long, p string, r array<string>"
    )
    with pytest.raises(ValueError, match=r"`predictions`: the DataFrame has no column 'answer'"):
        mmspark.score(df, "anls", predictions="answer", references="r")
    with pytest.raises(ValueError, match=r"`index`: the DataFrame has no column 'id'"):
        mmspark.score(df, "anls", predictions="p", references="r", index="id")
    with pytest.raises(TypeError, match="`references` must be a column name"):
        mmspark.score(df, "anls", predictions="p", references=["r"])
    with pytest.raises(ValueError, match="threshold"):
        mmspark.score(df, "anls", predictions="p", references="r", threshold=7)
    with pytest.raises(ValueError, match="`metric` must be one of"):
        mmspark.score(df, "bleu", predictions="p", references="r")
    with pytest.raises(
        (TypeError, ValueError), match=r"anls on Spark: .*predictions\[11\].*index column value"
    ):
        mmspark.score(df, "anls", predictions="p", references="r", index="i")
    with pytest.raises((TypeError, ValueError), match=r"predictions\[1\].*row of partition 0"):
        mmspark.score(df.coalesce(1), "anls", predictions="p", references="r")


def test_the_readme_example_runs_as_written(spark, capsys):
    """The README's Spark example, run last in this file: its ``getOrCreate`` finds this file's session
    (one Java process for the file), and its ``spark.stop()`` ends it."""
    from helpers import readme_blocks

    language, code = readme_blocks("Scale out")[4]
    assert language == "python" and "mmspark.score(" in code
    exec(compile(code, "README.md (Scale out, Spark)", "exec"), {"__name__": "readme_spark"})
    assert "anls 0.744898 from 7 partitions" in capsys.readouterr().out
