"""One metric object shared by threads (issue 24 item 4): every compute returns its own caller's result.

evaluate keeps a computation's state on the metric object (writer, data, cache files); the demos cache
one object per metric and Gradio serves requests on threads. ``compute`` and ``compare`` hold the
object's lock (``multimodal_metrics.hf.direct.metric_lock``): before, 150 computes per thread on one
anls object gave 5 results of the other thread and 31 errors.
"""

import threading

import pytest
from helpers import metric_names

from multimodal_metrics import examples


def _cases(name):
    """Two different inputs of the metric (its bundled example runs, or halves of its first run)."""
    runs = [r for r in examples.load(name)["runs"] if r.get("config_name", "default") == "default" and not r.get("kwargs")]
    if len(runs) >= 2:
        return runs[:2]
    run = runs[0] if runs else examples.load(name)["runs"][0]
    half = max(1, len(run["predictions"]) // 2)
    return [run, {**run, **{k: v[:half] for k, v in run.items() if isinstance(v, list) and len(v) == len(run["predictions"])}}]


@pytest.mark.parametrize("name", metric_names())
def test_threads_sharing_one_metric_object_get_their_own_results(name):
    import evaluate
    from helpers import METRICS

    metric = evaluate.load(str(METRICS / name))
    cases = [{k: v for k, v in run.items() if k not in ("config_name", "kwargs", "expected", "note")} for run in _cases(name)]
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
