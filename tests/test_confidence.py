"""Confidence intervals and paired comparisons through every metric (`confidence=`, `compare`).

The key property: a metric's sufficient statistics, summed over any resample of its examples, give
exactly what the metric computes on that resample (so intervals resample the right unit, and corpus
metrics are recomputed from pooled counts, not averaged per example). Checked on the bundled
examples of every preset, with repeated examples.
"""

import json

import numpy as np
import pytest
from helpers import load_metric

from multimodal_metrics.examples import FOLDER as EXAMPLES

METRICS = ["anls", "ned", "text_qa", "vqa_acc", "det_f1", "codebleu", "ru_meteor"]
NOT_INPUTS = ("config_name", "predictions", "references", "kwargs", "expected", "note")


def _runs():
    for name in METRICS:
        for k, run in enumerate(json.loads((EXAMPLES / f"{name}.json").read_text())["runs"]):
            yield pytest.param(name, run, id=f"{name}-{run.get('config_name')}-{k}")


def _inputs(run, rows=None):
    """compute kwargs of an example run, restricted to (and repeating) `rows` when given."""
    pick = (lambda xs: [xs[i] for i in rows]) if rows is not None else list
    out = {"predictions": pick(run["predictions"]), "references": pick(run["references"])}
    out.update({k: pick(v) for k, v in run.items() if k not in NOT_INPUTS})
    out.update(run.get("kwargs", {}))
    return out


@pytest.mark.parametrize("name, run", list(_runs()))
def test_resampled_statistics_equal_the_metric_on_the_resample(name, run):
    metric = load_metric(name, run.get("config_name"))
    full = metric.compute(**_inputs(run), confidence=0.9, n_resamples=200, seed=3)
    statistic, signature = metric._last_statistic
    n = len(run["predictions"])
    assert statistic.n == n, "one row of sufficient statistics per example (the resampled unit)"
    assert (
        signature.format() == full["signature"]
        and "|ci:bs-pct|conf:0.9|bs:200|seed:3|v:" in full["signature"]
    )
    for key, value in zip(statistic.keys, statistic.value()):
        assert value == pytest.approx(full[key], rel=1e-12, abs=1e-15)
        assert full[f"{key}_ci_low"] <= full[f"{key}_ci_high"]
        assert list(full).index(f"{key}_ci_low") > list(full).index(statistic.keys[-1])
    rng = np.random.default_rng(len(name))
    for _ in range(3):
        rows = rng.integers(0, n, size=n).tolist()
        resample = metric.compute(**_inputs(run, rows))
        sums = statistic.stats[rows].sum(axis=0)
        for key, value in zip(statistic.keys, statistic.scores(sums)):
            assert value == pytest.approx(resample[key], rel=1e-9, abs=1e-12), (key, rows)


@pytest.mark.parametrize("name", METRICS)
def test_interval_is_seeded_and_off_by_default(name):
    run = json.loads((EXAMPLES / f"{name}.json").read_text())["runs"][0]
    metric = load_metric(name, run.get("config_name"))
    plain = metric.compute(**_inputs(run))
    assert not any(key.endswith(("_ci_low", "_ci_high")) for key in plain)
    assert "ci:" not in plain["signature"]
    a = metric.compute(**_inputs(run), confidence=0.95, seed=1)
    assert a == metric.compute(**_inputs(run), confidence=0.95, seed=1)
    b = metric.compute(**_inputs(run), confidence=0.95, n_resamples=50, seed=2)
    assert b["signature"] != a["signature"]
    assert {k: v for k, v in a.items() if "_ci_" not in k and k != "signature"} == {
        k: v for k, v in plain.items() if k != "signature"
    }
    trainer = metric.compute(**_inputs(run), confidence=0.95, for_trainer=True)
    assert all(isinstance(v, float) for v in trainer.values()) and any(k.endswith("_ci_low") for k in trainer)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"confidence": 1.5}, ValueError, "confidence"),
        ({"confidence": "95%"}, TypeError, "confidence"),
        ({"confidence": 0.95, "n_resamples": 0}, ValueError, "n_resamples"),
        ({"confidence": 0.95, "seed": 1.5}, TypeError, "seed"),
    ],
)
def test_bad_resampling_options_name_the_argument(kwargs, error, match):
    metric = load_metric("anls")
    with pytest.raises(error, match=match):
        metric.compute(predictions=["a"], references=["a"], **kwargs)
    assert metric.compute(predictions=["a"], references=["a"])["anls"] == 1.0


def test_interval_covers_the_score_on_a_larger_set():
    rng = np.random.default_rng(0)
    refs = ["".join(rng.choice(list("abcdef"), size=8)) for _ in range(400)]
    preds = [r if rng.random() < 0.6 else r[:5] + "xyz" for r in refs]
    r = load_metric("anls").compute(predictions=preds, references=refs, confidence=0.95)
    assert r["anls_ci_low"] < r["anls"] < r["anls_ci_high"]
    assert 0.01 < r["anls_ci_high"] - r["anls_ci_low"] < 0.2


@pytest.mark.parametrize("name, run", [p for p in _runs() if "-0" in p.id])
def test_compare_two_systems_through_the_module(name, run):
    metric = load_metric(name, run.get("config_name"))
    inputs = _inputs(run)
    preds = inputs.pop("predictions")
    same = metric.compare(predictions_a=preds, predictions_b=preds, **inputs)
    statistic, signature = metric._last_statistic
    primary = statistic.keys[0]
    assert same[f"{primary}_difference"] == 0 and same[f"{primary}_p_value"] == 1.0
    assert same["signature"].endswith("|test:paired-ar|n:10000|conf:0.95|seed:12345|p:ge|v:0.1.0")
    assert same["signature"].startswith(signature.format().rpartition("|v:")[0])
    # system B: the first prediction replaced by (the first of) its references
    first = inputs["references"][0]
    other = [first if isinstance(first, str | dict) else first[0]] + preds[1:]
    res = metric.compare(
        predictions_a=preds, predictions_b=other, test="paired_bootstrap", n_resamples=300, **inputs
    )
    assert "paired-bs|n:300" in res["signature"]
    for key in statistic.keys:
        assert res[f"{key}_difference"] == pytest.approx(res[f"{key}_a"] - res[f"{key}_b"])
        assert 0 < res[f"{key}_p_value"] <= 1
        assert res[f"{key}_difference_ci_low"] <= res[f"{key}_difference_ci_high"]


def test_compare_finds_a_real_difference_and_refuses_bad_calls():
    rng = np.random.default_rng(1)
    refs = ["".join(rng.choice(list("abcdef"), size=6)) for _ in range(300)]
    good = [r if rng.random() < 0.8 else "zzz" for r in refs]
    bad = [r if rng.random() < 0.6 else "zzz" for r in refs]
    metric = load_metric("anls")
    res = metric.compare(predictions_a=good, predictions_b=bad, references=refs, n_resamples=2000)
    assert res["anls_difference"] > 0.1 and res["anls_p_value"] < 0.01
    assert 0 < res["anls_difference_ci_low"] < res["anls_difference"] < res["anls_difference_ci_high"]
    with pytest.raises(ValueError, match="test"):
        metric.compare(predictions_a=good, predictions_b=bad, references=refs, test="t")
    with pytest.raises(ValueError, match="predictions_b"):
        metric.compare(predictions_a=good, references=refs)
    with pytest.raises(ValueError, match="confidence"):
        metric.compare(predictions_a=good, predictions_b=bad, references=refs, confidence=2.0)
    with pytest.raises(ValueError, match="return_per_example"):
        metric.compare(predictions_a=good, predictions_b=bad, references=refs, return_per_example=True)


def test_command_line_interval_and_paired_test(tmp_path, capsys):

    from multimodal_metrics.cli import main

    rng = np.random.default_rng(2)
    answers = ["".join(rng.choice(list("abcdef"), size=6)) for _ in range(60)]
    gt = {
        "dataset_name": "docvqa",
        "data": [{"questionId": i, "answers": [a]} for i, a in enumerate(answers)],
    }
    sys_a = [{"questionId": i, "answer": a if i % 4 else "zzz"} for i, a in enumerate(answers)]
    sys_b = [{"questionId": i, "answer": a if i % 2 else "zzz"} for i, a in enumerate(answers)]
    paths = {}
    for name, obj in (("gt", gt), ("a", sys_a), ("b", sys_b)):
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(obj))

    def run(*argv):
        code = main(
            ["anls", "--gt", str(paths["gt"]), "--pred", str(paths["a"]), *argv, "--no-progress", "--json"]
        )
        out = capsys.readouterr()
        return code, (json.loads(out.out) if code == 0 else out.err)

    code, out = run("--confidence", "0.9", "--n-resamples", "300", "--seed", "4")
    direct = load_metric("anls").compute(
        predictions=[r["answer"] for r in sys_a], references=answers, confidence=0.9, n_resamples=300, seed=4
    )
    assert code == 0 and {k: out[k] for k in direct} == direct
    code, out = run("--compare-pred", str(paths["b"]), "--test", "paired_bootstrap", "--n-resamples", "500")
    assert code == 0 and out["anls_difference"] == pytest.approx(0.75 - 0.5) and out["anls_p_value"] < 0.05
    assert "test:paired-bs|n:500|conf:0.95|seed:12345" in out["signature"] and out["examples"] == 60
    code, err = run("--compare-pred", str(paths["b"]), "--confidence", "0.9")
    assert code == 2 and "--compare-pred" in err and "Traceback" not in err
    code, err = run("--confidence", "2")
    assert code == 2 and "--confidence" in err and len(err.strip().splitlines()) == 1
