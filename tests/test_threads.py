"""One metric object shared by threads: every compute returns its own caller's result.

evaluate keeps a computation's state on the metric object (writer, data, cache files); the demos cache
one object per metric and Gradio serves requests on threads. ``compute`` and ``compare`` hold the
object's lock (``multimodal_metrics.hf.direct.metric_lock``): before, 150 computes per thread on one
anls object gave 5 results of the other thread and 31 errors. The same through a served demo: parallel
requests with Gradio's concurrency raised (without the lock: "Evaluation module cache file doesn't exist").
"""

import threading

import pytest
from helpers import metric_names

from multimodal_metrics import examples


def _cases(name):
    """``(preset, [two different inputs])`` of the metric: two bundled example runs with the same preset
    and options, or the first run and its first half."""
    import json

    runs = examples.load(name)["runs"]
    groups = {}
    for run in runs:
        groups.setdefault(
            (run.get("config_name", "default"), json.dumps(run.get("kwargs", {}), sort_keys=True)), []
        ).append(run)
    (preset, _), chosen = max(groups.items(), key=lambda item: len(item[1]))
    inputs = [
        {
            **{k: v for k, v in run.items() if k not in ("config_name", "kwargs", "expected", "note")},
            **run.get("kwargs", {}),
        }
        for run in chosen[:2]
    ]
    if len(inputs) == 1:
        first, n = inputs[0], len(inputs[0]["predictions"])
        inputs.append(
            {k: v[: max(1, n // 2)] if isinstance(v, list) and len(v) == n else v for k, v in first.items()}
        )
    return preset, inputs


@pytest.mark.parametrize("name", metric_names())
def test_threads_sharing_one_metric_object_get_their_own_results(name):
    import evaluate
    from helpers import METRICS

    preset, cases = _cases(name)
    metric = evaluate.load(str(METRICS / name), preset)
    wanted = [metric.compute(**case) for case in cases]
    assert wanted[0] != wanted[1] or cases[0] == cases[1]
    wrong, raised = [], []

    def work(k):
        for _ in range(40):
            try:
                got = metric.compute(**cases[k])
            except Exception as err:  # noqa: BLE001 (counted: any error is a failure here)
                raised.append(repr(err)[:200])
                continue
            if got != wanted[k]:
                wrong.append((k, got))

    threads = [threading.Thread(target=work, args=(k % 2,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (wrong, raised) == ([], [])


_WORDS = [
    "hello world",
    "receipt",
    "ac",
    "12.0",
    "new york",
    "straße",
    "abc",
    "Yes",
    "kitten",
    "sitting",
    "x",
    "",
]


def _request(k: int) -> tuple:
    """(predictions, references) of request ``k``: a different number of examples and answers per request."""
    preds = [_WORDS[(k + i) % len(_WORDS)] for i in range(k + 1)]
    refs = [f"{_WORDS[(2 * k + i) % len(_WORDS)]} | {_WORDS[(k * i) % len(_WORDS)]}" for i in range(k + 1)]
    return "\n".join(preds), "\n".join(refs)


@pytest.mark.parametrize("name", ["anls", "ned"])
def test_parallel_requests_against_a_running_demo(name, monkeypatch):
    """A served demo (one metric object per preset, shared by Gradio's worker threads) with concurrency
    allowed (GRADIO_DEFAULT_CONCURRENCY_LIMIT, as a Space operator sets it): 12 different requests, each sent
    4 times at once, 48 in flight; every answer is its own request's, as served one at a time."""
    import json
    from concurrent.futures import ThreadPoolExecutor

    from helpers import ROOT, serve_app

    monkeypatch.setenv("GRADIO_DEFAULT_CONCURRENCY_LIMIT", "16")
    demo, client = serve_app(ROOT / "metrics" / name / "app.py")
    try:
        requests = [_request(k) for k in range(12)]
        wanted = [client.predict(*request, "default", api_name="/compute")[0] for request in requests]
        assert len({json.dumps(w, sort_keys=True) for w in wanted}) == len(wanted)  # every answer differs
        with ThreadPoolExecutor(max_workers=16) as pool:
            futures = [
                (k, pool.submit(client.predict, *requests[k], "default", api_name="/compute"))
                for _ in range(4)
                for k in range(len(requests))
            ]
            wrong = [(k, got) for k, future in futures if (got := future.result(timeout=300)[0]) != wanted[k]]
        assert wrong == []
    finally:
        demo.close()
