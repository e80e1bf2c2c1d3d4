"""multimodal_metrics.ray on two Ray nodes: Ray's own multi-node harness (``ray.cluster_utils.Cluster``) starts a
head node and a worker node on this machine, one CPU each, with their own raylets and object stores (started
once for this file: about 20 s on 2 cores, 40 s in all).

The blocks are scored where Ray places them: pinned to the worker node (a resource only it has), the library is
imported there and finds the resources of the metric there (the 2020 grammars of codebleu, the Russian
lemmatiser of ru_meteor, WordNet for vqa_acc's wups; each state records them in its ``context``, and the
driver's state of the same rows records the same), and the result equals ``score()`` bit for bit; pinned to the
head node, and spread over both, the same.
"""

import json
import os
from pathlib import Path

import pytest
from engine_cases import as_json, case

N = 101
NAMES = {"predictions": "pred", "references": "refs"}


@pytest.fixture(scope="module")
def cluster():
    import ray
    from ray.cluster_utils import Cluster

    path = os.pathsep.join([str(Path(__file__).parent), *filter(None, [os.environ.get("PYTHONPATH")])])
    env = {"PYTHONPATH": path, **{k: os.environ[k] for k in ("NLTK_DATA",) if k in os.environ}}
    nodes = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "resources": {"head_node": 1}, "include_dashboard": False},
    )
    nodes.add_node(num_cpus=1, resources={"worker_node": 1})
    ray.init(address=nodes.address, log_to_driver=False, runtime_env={"env_vars": env})
    nodes.wait_for_nodes()
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    yield ray
    ray.shutdown()
    nodes.shutdown()


def dataset(ray, c):
    rows = [{"row_id": i, **{NAMES.get(k, k): v[i] for k, v in c.inputs.items()}} for i in range(c.n)]
    return ray.data.from_items(rows)


def run(ds, c, function="score", **kwargs):
    import multimodal_metrics.ray as mmray

    metric = c.module.__name__.rpartition(".")[2]
    extra = {k: k for k in c.inputs if k not in NAMES}
    if function == "state":
        return mmray.state(ds, metric, predictions="pred", references="refs", index="row_id", **extra,
                           **c.options, **kwargs)  # fmt: skip
    result = mmray.score(ds, metric, predictions="pred", references="refs", index="row_id", **extra,
                         **c.options, **c.result_kwargs, **kwargs)  # fmt: skip
    return json.loads(json.dumps(as_json(result)))


def on(node: str) -> dict:
    return {"ray_remote_args": {"resources": {node: 0.01}}}


def _wups(n, seed):
    c = case("vqa_acc", n, seed)
    c.options = {"preset": "wups"}
    c.inputs = {k: c.inputs[k] for k in NAMES}  # wups takes no question or answer types
    return c


CASES = {
    "anls": lambda: case("anls", N, seed=5),
    "codebleu": lambda: case("codebleu", N, seed=5),  # the 2020 runtime and grammars
    "ru_meteor": lambda: case("ru_meteor", N, seed=5),  # pymorphy3's dictionaries, the stemmer
    "vqa_acc_wups": lambda: _wups(N, 5),  # WordNet 3.0 through NLTK_DATA
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_blocks_scored_on_the_worker_node_equal_score(cluster, name):
    c = CASES[name]()
    reference = json.loads(json.dumps(as_json(c.reference())))
    ds = dataset(cluster, c).repartition(3)
    assert run(ds, c, **on("worker_node")) == reference
    remote = run(ds, c, "state", **on("worker_node"))
    local = c.module.state(**c.options, total=c.n).update(**c.inputs, index=list(range(c.n)))
    assert remote.context == local.context  # the worker found the resources the driver finds
    assert remote.to_bytes() == local.to_bytes()


def test_blocks_on_the_head_node_and_spread_over_both(cluster):
    ray = cluster
    c = case("anls", N, seed=6)
    reference = json.loads(json.dumps(as_json(c.reference())))
    assert run(dataset(ray, c).repartition(4), c, **on("head_node")) == reference

    @ray.remote(num_cpus=0)
    class Nodes:
        def __init__(self):
            self.seen = set()

        def add(self, node):
            self.seen.add(node)

        def get(self):
            return sorted(self.seen)

    nodes = Nodes.options(name="nodes").remote()

    def where(batch):  # fused with the scoring into one task per block: the node that scores the block
        import ray

        ray.get(ray.get_actor("nodes").add.remote(ray.get_runtime_context().get_node_id()))
        return batch

    ds = dataset(ray, c).repartition(7).map_batches(where, batch_format="pyarrow", batch_size=None)
    assert run(ds, c, ray_remote_args={"scheduling_strategy": "SPREAD"}) == reference
    assert ray.get(nodes.get.remote()) == sorted(n["NodeID"] for n in ray.nodes() if n["Alive"])
