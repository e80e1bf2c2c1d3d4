"""multimodal_metrics.ray on a local Ray cluster (2 CPUs, started once for this file).

Every metric with a mergeable state (tests/engine_cases.py): the result of ``mmray.score`` over a Ray
dataset equals ``score()`` on the same rows bit for bit (value, per-example list, seeded interval,
signature), with the index taken from a column (rows stored shuffled) and from the dataset's order,
and does not change under ``repartition(1)``, ``repartition(3)`` and ``repartition(7)``.
"""

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from engine_cases import as_json, case, stateful_metrics

N = 101
METRICS = stateful_metrics()


@pytest.fixture(scope="module")
def ray_cluster():
    import ray

    path = os.pathsep.join([str(Path(__file__).parent), *filter(None, [os.environ.get("PYTHONPATH")])])
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={
            "env_vars": {**{k: os.environ[k] for k in ("NLTK_DATA",) if k in os.environ}, "PYTHONPATH": path}
        },
    )
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    yield ray
    ray.shutdown()


def rows(c, order):
    names = {"predictions": "pred", "references": "refs"}
    return [{"row_id": i, **{names.get(k, k): v[i] for k, v in c.inputs.items()}} for i in order]


def run(ds, c, **kwargs):
    import multimodal_metrics.ray as mmray

    metric = c.module.__name__.rpartition(".")[2]
    extra = {k: k for k in c.inputs if k not in ("predictions", "references")}  # e.g. question_types
    result = mmray.score(
        ds, metric, predictions="pred", references="refs", **extra, **c.options, **c.result_kwargs, **kwargs
    )
    return json.loads(json.dumps(as_json(result)))


@pytest.mark.parametrize("metric", METRICS)
def test_ray_equals_score_and_ignores_repartition(ray_cluster, metric):
    c = case(metric, N, seed=3)
    reference = json.loads(json.dumps(as_json(c.reference())))
    shuffled = list(range(N))
    random.Random(1).shuffle(shuffled)
    ds = ray_cluster.data.from_items(rows(c, shuffled))
    assert run(ds.repartition(3), c, index="row_id") == reference
    ordered = ray_cluster.data.from_items(rows(c, range(N)))
    for blocks in (1, 3, 7):
        assert run(ordered.repartition(blocks), c) == reference, f"repartition({blocks})"


def _first_block_late(batch):
    if batch["row_id"][0].as_py() == 0:
        time.sleep(1.5)
    return batch


def test_dataset_order_is_the_index_when_blocks_finish_out_of_order(ray_cluster):
    """The first block finishes last (a slow step before the scoring, fused into its task); the positions
    still follow the dataset's order."""
    c = case("anls", N, seed=4)
    reference = json.loads(json.dumps(as_json(c.reference())))
    ds = ray_cluster.data.from_items(rows(c, range(N))).repartition(7)
    ds = ds.map_batches(_first_block_late, batch_format="pyarrow", batch_size=None)
    assert run(ds, c) == reference


def test_actor_pool_hook(ray_cluster):
    """concurrency= runs the batches in an actor pool of BlockScorer (the hook for GPU feature extraction)."""
    c = case("ned", 40, seed=5)
    reference = json.loads(json.dumps(as_json(c.reference())))
    ds = ray_cluster.data.from_items(rows(c, range(40))).repartition(3)
    assert run(ds, c, concurrency=1) == reference


def test_errors_name_the_argument_column_and_example(ray_cluster):
    import multimodal_metrics.ray as mmray

    ds = ray_cluster.data.from_items(
        [{"i": 10 + k, "p": p, "r": ["a"]} for k, p in enumerate(["a", None, "b"])]
    )
    with pytest.raises(ValueError, match=r"the dataset has no column 'answer'"):
        mmray.score(ds, "anls", predictions="answer", references="r")
    with pytest.raises(ValueError, match="threshold"):
        mmray.score(ds, "anls", predictions="p", references="r", threshold=7)
    with pytest.raises(ValueError, match="`metric` must be one of"):
        mmray.score(ds, "bleu", predictions="p", references="r")
    with pytest.raises((TypeError, ValueError), match=r"predictions\[11\].*index column"):
        mmray.score(ds, "anls", predictions="p", references="r", index="i")


def test_a_refused_row_is_named_by_its_dataset_row(ray_cluster):
    """Row 7 of 10 (in the third of four blocks) refused: the error names the dataset row and the index
    column's value, never the row's position in its batch (`predictions[1]`) or an unusable index
    (`index[None]`)."""
    import multimodal_metrics.ray as mmray

    def dataset(bad_row: dict):
        items = [{"i": 10 + k, "p": "a", "r": ["a"]} for k in range(10)]
        items[7].update(bad_row)
        return ray_cluster.data.from_items(items).repartition(4)

    prediction = r"`predictions\[{}\]` must be a string, got NoneType \(None\) \({}\)"
    with pytest.raises(TypeError, match=prediction.format(7, r"dataset row 7")):
        mmray.score(dataset({"p": None}), "anls", predictions="p", references="r")
    with pytest.raises(TypeError, match=prediction.format(17, r"dataset row 7, index column 'i' = 17")):
        mmray.score(dataset({"p": None}), "anls", predictions="p", references="r", index="i")
    with pytest.raises(
        TypeError, match=r"`index\[7\]` must be a whole number .*\(dataset row 7, index column 'i' = None\)"
    ):
        mmray.score(dataset({"i": None}), "anls", predictions="p", references="r", index="i")
    with pytest.raises(TypeError, match=r"`predictions\[7\]` .*\(dataset row 7, index column 'i' = None\)"):
        mmray.score(dataset({"i": None, "p": None}), "anls", predictions="p", references="r", index="i")


def test_importing_the_library_does_not_import_ray_or_torch():
    code = (
        "import sys, multimodal_metrics, multimodal_metrics.state, multimodal_metrics.distributed\n"
        "import multimodal_metrics.ray\n"
        "from multimodal_metrics import anls\n"
        "anls.state().update(['a'], ['a']).result()\n"
        "print(','.join(m for m in ('ray', 'torch') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy())
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == ""


def test_a_ray_state_carries_the_dataset_positions_and_its_count(ray_cluster):
    """What a Ray state carries, not only what it returns: the indexes are the rows' positions (no block
    offset by one), and its total is the dataset's count."""
    import multimodal_metrics.ray as mmray

    c = case("anls", 37)
    ds = ray_cluster.data.from_items(rows(c, range(c.n))).repartition(5)
    st = mmray.state(ds, "anls", predictions="pred", references="refs")
    assert st.index.tolist() == list(range(c.n)) and st.total == c.n


def test_two_examples_given_one_index_are_refused_on_ray_even_when_they_score_alike(ray_cluster):
    """Rows 3 and 9 share id 3 and both score 1.0: refused by their inputs, not dropped as padding."""
    import multimodal_metrics.ray as mmray

    items = [{"id": i, "pred": f"w{i}", "refs": [f"w{i}"]} for i in range(10)]
    items[9]["id"] = 3
    ds = ray_cluster.data.from_items(items).repartition(3)
    with pytest.raises(ValueError, match="index 3 was given to two different examples"):
        mmray.score(ds, "anls", predictions="pred", references="refs", index="id")
    items[9] = {**items[3]}  # the same example twice (a repeated row): kept once, but the count says 10
    ds = ray_cluster.data.from_items(items).repartition(3)
    with pytest.raises(ValueError, match=r"example 9 is missing \(1 of the job's 10\)"):
        mmray.score(ds, "anls", predictions="pred", references="refs", index="id")
