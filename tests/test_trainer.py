"""Metrics inside a real `Seq2SeqTrainer`: two of them at once, `log_metrics` and the
hyperparameter-search objective, through `compute(..., for_trainer=True)`."""

import numpy as np
import pytest
from helpers import decode_ids, load_metric, run_in_seq2seq_trainer
from transformers.trainer_utils import default_compute_objective


def test_two_metrics_in_seq2seq_trainer_log_metrics_and_objective(capsys):
    anls, ned = load_metric("anls"), load_metric("ned")
    seen = {}

    def compute_metrics(eval_pred):
        predictions = np.array(decode_ids(eval_pred.predictions))  # decoded batches are numpy arrays of str
        references = np.array(decode_ids(eval_pred.label_ids))
        seen["plain"] = anls.compute(predictions=predictions, references=references)
        return {
            **anls.compute(predictions=predictions, references=references, for_trainer=True),
            **ned.compute(predictions=predictions, references=references, for_trainer=True),
        }

    metrics = run_in_seq2seq_trainer(compute_metrics)
    assert {"eval_anls", "eval_ned_one_minus_ned", "eval_ned_string_accuracy", "eval_ned_cer"} <= set(metrics)
    assert all(isinstance(v, int | float) for v in metrics.values()), metrics
    assert metrics["eval_anls"] == seen["plain"]["anls"]
    assert "eval_anls" in capsys.readouterr().out  # trainer.log_metrics printed them
    objective = default_compute_objective(metrics)  # hyperparameter_search's default objective
    dropped = ("eval_loss", "epoch")  # and the speed entries, as transformers' objective does
    speed = ("_runtime", "_per_second", "_compilation_time")
    expected = sum(v for k, v in metrics.items() if k not in dropped and not k.endswith(speed))
    assert objective == pytest.approx(expected)
    # the signatures of the calls stay available on the metric objects
    assert anls.last_signature == seen["plain"]["signature"] and anls.last_signature.startswith("anls|")
    assert ned.last_signature.startswith("ned|preset:default|")


def test_plain_results_are_what_breaks_the_objective():
    """Why `for_trainer` exists: the plain result carries a string, and merging two collides."""
    anls, ned = load_metric("anls"), load_metric("ned")
    merged = {
        **anls.compute(predictions=["a"], references=["a"]),
        **ned.compute(predictions=["a"], references=["a"]),
    }
    assert merged["signature"].startswith("ned|")  # anls's signature was overwritten
    with pytest.raises(TypeError):
        default_compute_objective({f"eval_{k}": v for k, v in merged.items()})


def test_for_trainer_prefix_and_errors():
    vqa = load_metric("vqa_acc", "fusion_brain_2021")
    scores = vqa.compute(predictions=["yes"], references=[["yes"]], for_trainer="fb_vqa")
    assert scores == {"fb_vqa_accuracy": 1.0, "fb_vqa_accuracy_language/en": 1.0}
    det = load_metric("det_f1")
    scores = det.compute(
        predictions=[{"cat": [[0, 0, 2, 2]]}], references=[{"cat": [[0, 0, 2, 2]]}], for_trainer=True
    )
    assert scores["det_f1_f1"] == 1.0 and set(scores) >= {"det_f1_precision", "det_f1_recall"}
    assert det.last_signature.startswith("det_f1|preset:default|")
    anls = load_metric("anls")
    with pytest.raises(ValueError, match="return_per_example.*for_trainer"):
        anls.compute(predictions=["a"], references=["a"], for_trainer=True, return_per_example=True)
    for bad in ("", 1, None):
        with pytest.raises(TypeError, match="`for_trainer`"):
            anls.compute(predictions=["a"], references=["a"], for_trainer=bad)


# ----------------------------------------------------------------------------------------------
# Directions: every key says whether higher is better; select by one key in its direction
# ----------------------------------------------------------------------------------------------
METRICS = ("anls", "codebleu", "det_f1", "fid_clip", "ned", "ru_meteor", "text_qa", "vqa_acc")


def _golden_keys(name: str) -> set:
    import json

    from helpers import ROOT

    keys = set()

    def walk(obj):
        if isinstance(obj, dict):
            if isinstance(obj.get("signature"), str):
                keys.update(k for k in obj if k not in ("signature", "per_example"))
            for value in obj.values():
                walk(value)
        elif isinstance(obj, list):
            for value in obj:
                walk(value)

    walk(json.loads((ROOT / "tests" / "data" / "golden" / f"{name}.json").read_text(encoding="utf-8")))
    return keys


@pytest.mark.parametrize("name", METRICS)
def test_every_result_key_has_a_direction(name):
    """Every key of every recorded result (examples, sweep, fuzz: every preset) has a direction in the metric's
    one table, which the library's Result and the evaluate module both expose."""
    from multimodal_metrics.results import directions_of, key_direction

    table = directions_of(name)
    keys = _golden_keys(name)
    assert keys
    for key in keys:
        assert key_direction(table, key) in (True, False, None), key
    with pytest.raises(KeyError, match="no direction"):
        key_direction(table, "no_such_key")
    assert load_metric(name).higher_is_better == table


def test_directions_of_the_lower_is_better_keys_and_counts():
    from multimodal_metrics import det_f1, ned

    r = ned.score(["abc", "abd"], ["abc", "abc"], confidence=0.9, n_resamples=50)
    assert r.higher_is_better == {
        "one_minus_ned": True,
        "string_accuracy": True,
        "cer": False,
        "one_minus_ned_ci_low": True,
        "one_minus_ned_ci_high": True,
        "string_accuracy_ci_low": True,
        "string_accuracy_ci_high": True,
        "cer_ci_low": False,
        "cer_ci_high": False,
    }
    d = det_f1.score([{"cat": [[0, 0, 2, 2]]}], [{"cat": [[0, 0, 2, 2]]}])
    assert d.higher_is_better == {
        "f1": True,
        "precision": True,
        "recall": True,
        "tp": None,
        "fp": None,
        "fn": None,
    }
    assert set(d.for_trainer()) == {"det_f1_f1", "det_f1_precision", "det_f1_recall"}
    assert set(d.for_trainer(counts=True)) >= {"det_f1_tp", "det_f1_fp", "det_f1_fn"}
    assert load_metric("fid_clip").higher_is_better["fid"] is False


def test_raw_counts_stay_out_of_the_trainer_form():
    det = load_metric("det_f1")
    scores = det.compute(
        predictions=[{"cat": [[0, 0, 2, 2]]}], references=[{"cat": [[0, 0, 2, 2]]}], for_trainer=True
    )
    assert set(scores) == {"det_f1_f1", "det_f1_precision", "det_f1_recall"}


def _ned_metrics():
    ned = load_metric("ned")

    def compute_metrics(eval_pred):
        predictions = np.array(decode_ids(eval_pred.predictions))
        references = np.array(decode_ids(eval_pred.label_ids))
        return ned.compute(predictions=predictions, references=references, for_trainer=True)

    return ned, compute_metrics


def test_best_model_by_cer_in_a_real_trainer():
    """README: metric_for_best_model="ned_cer" with greater_is_better from the table (False) keeps the
    checkpoint of the LOWEST CER; transformers' own default for a key not ending in "loss" would keep the
    highest."""
    from helpers import train_in_seq2seq_trainer

    ned, compute_metrics = _ned_metrics()
    trainer = train_in_seq2seq_trainer(
        compute_metrics,
        epochs=3,
        load_best_model_at_end=True,
        metric_for_best_model="ned_cer",
        greater_is_better=ned.higher_is_better["cer"],
    )
    assert trainer.args.greater_is_better is False
    trainer.train()
    cers = [h["eval_ned_cer"] for h in trainer.state.log_history if "eval_ned_cer" in h]
    assert len(cers) == 3 and len(set(cers)) > 1, cers  # the CER moved while training
    assert trainer.state.best_metric == min(cers)
    assert trainer.evaluate()["eval_ned_cer"] == min(cers)  # the best model was loaded at the end


def test_hyperparameter_search_on_one_key_in_its_direction(monkeypatch):
    """`hyperparameter_search` minimises by default and its default objective sums every logged number (CER
    and accuracies together); the README's call passes compute_objective on one key and the direction from
    the table. Run through Trainer.hyperparameter_search with a two-point grid backend (optuna is not a
    dependency of the suite)."""
    import inspect

    import transformers.trainer as trainer_module
    from helpers import train_in_seq2seq_trainer
    from transformers import Trainer
    from transformers.hyperparameter_search import HyperParamSearchBackendBase
    from transformers.trainer_utils import BestRun, HPSearchBackend

    assert inspect.signature(Trainer.hyperparameter_search).parameters["direction"].default == "minimize"
    seen = []

    class Grid(HyperParamSearchBackendBase):
        name = "optuna"

        @staticmethod
        def is_available():
            return True

        def default_hp_space(self, trial):
            return {}

        def run(self, trainer, n_trials, direction, **kwargs):
            runs = []
            for lr in (1e-6, 3e-2)[:n_trials]:
                trainer.args.learning_rate = lr
                trainer.train()
                metrics = trainer.evaluate()
                runs.append(BestRun(str(lr), trainer.compute_objective(metrics), {"learning_rate": lr}))
                seen.append((lr, metrics))
            pick = min if direction == "minimize" else max
            return pick(runs, key=lambda run: run.objective)

    monkeypatch.setitem(trainer_module.ALL_HYPERPARAMETER_SEARCH_BACKENDS, HPSearchBackend.OPTUNA, Grid)
    ned, compute_metrics = _ned_metrics()
    trainer = train_in_seq2seq_trainer(compute_metrics, epochs=3)
    best = trainer.hyperparameter_search(
        compute_objective=lambda m: m["eval_ned_cer"],
        direction="maximize" if ned.higher_is_better["cer"] else "minimize",
        backend="optuna",
        n_trials=2,
    )
    cers = {lr: m["eval_ned_cer"] for lr, m in seen}
    assert cers[1e-6] != cers[3e-2], cers
    assert best.hyperparameters["learning_rate"] == min(cers, key=cers.get)
    assert best.objective == min(cers.values())
    # the default objective mixes directions: CER counts with the same sign as the accuracies
    metrics = seen[0][1]
    parts = default_compute_objective(metrics)
    assert parts == pytest.approx(
        sum(
            v
            for k, v in metrics.items()
            if k not in ("eval_loss", "epoch") and not k.endswith(("_runtime", "_per_second"))
        )
    )
    assert "eval_ned_cer" in metrics and "eval_ned_string_accuracy" in metrics
