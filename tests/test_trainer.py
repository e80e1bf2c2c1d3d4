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
    merged = {**anls.compute(predictions=["a"], references=["a"]), **ned.compute(predictions=["a"], references=["a"])}
    assert merged["signature"].startswith("ned|")  # anls's signature was overwritten
    with pytest.raises(TypeError):
        default_compute_objective({f"eval_{k}": v for k, v in merged.items()})


def test_for_trainer_prefix_and_errors():
    vqa = load_metric("vqa_acc", "fusion_brain_2021")
    scores = vqa.compute(predictions=["yes"], references=[["yes"]], for_trainer="fb_vqa")
    assert scores == {"fb_vqa_accuracy": 1.0, "fb_vqa_accuracy_language/en": 1.0}
    det = load_metric("det_f1")
    scores = det.compute(predictions=[{"cat": [[0, 0, 2, 2]]}], references=[{"cat": [[0, 0, 2, 2]]}], for_trainer=True)
    assert scores["det_f1_f1"] == 1.0 and set(scores) >= {"det_f1_precision", "det_f1_recall"}
    assert det.last_signature.startswith("det_f1|preset:default|")
    anls = load_metric("anls")
    with pytest.raises(ValueError, match="return_per_example.*for_trainer"):
        anls.compute(predictions=["a"], references=["a"], for_trainer=True, return_per_example=True)
    for bad in ("", 1, None):
        with pytest.raises(TypeError, match="`for_trainer`"):
            anls.compute(predictions=["a"], references=["a"], for_trainer=bad)
