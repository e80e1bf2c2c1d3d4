"""What every metric of the collection must do alike, one parametrized suite over the metrics (in the
spirit of torchmetrics' ``MetricTester``: the library's function and evaluate's module are held to the
same expectation).

* a light import: ``import multimodal_metrics.<name>`` loads no heavy or optional library;
* an unknown preset is refused, naming it and the metric's ``PRESETS``, by ``score`` and ``evaluate.load``;
* the examples in each module's documentation run as written (doctests of the evaluate module);
* the text-pair metrics refuse malformed predictions / references alike, naming the argument and the
  example index, in the library's ``score`` and in evaluate's ``compute``;
* the text metrics score inside a ``transformers.Trainer`` (``compute_metrics``).

Each metric's own options, refusals and numbers are in its test_<name>.py.
"""

import doctest
import importlib
import inspect
import subprocess
import sys

import pytest
from helpers import ROOT, load_metric, metric_names, run_in_trainer

NAMES = metric_names()


def library(name: str):
    return importlib.import_module(f"multimodal_metrics.{name}")


# ------------------------------------------------------------------------------------------------
# import
# ------------------------------------------------------------------------------------------------
HEAVY = {
    "torch", "transformers", "nltk", "tree_sitter", "pymorphy3", "gradio", "evaluate", "datasets", "pyarrow",
    "PIL", "tqdm", "rapidfuzz", "razdel", "wordtodigits",
}  # fmt: skip
LIGHT_ALSO = {"codebleu": {"multimodal_metrics.codebleu.build_runtime"}}  # left to the first call needing it
IMPORTED_ALSO = {"det_f1": ", multimodal_metrics.det_f1.core"}


@pytest.mark.parametrize("name", NAMES)
def test_import_is_light(name):
    modules = f"multimodal_metrics, multimodal_metrics.{name}" + IMPORTED_ALSO.get(name, "")
    heavy = sorted(HEAVY | LIGHT_ALSO.get(name, set()))
    code = f"import sys, {modules}\nprint(sorted(set({heavy!r}) & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------------------------------------
# presets
# ------------------------------------------------------------------------------------------------
def _unknown_preset(name: str) -> str:
    return rf"^{name}: unknown preset \(config_name\) 'no_such_preset'; expected one of " + (
        str(sorted(library(name).PRESETS)).replace("[", r"\[").replace("]", r"\]")
    )


@pytest.mark.parametrize("name", NAMES)
def test_unknown_preset_through_evaluate(name):
    import evaluate

    assert "default" in library(name).PRESETS
    with pytest.raises(ValueError, match=_unknown_preset(name)):
        evaluate.load(str(ROOT / "metrics" / name), "no_such_preset")


@pytest.mark.parametrize("name", NAMES)
def test_unknown_preset_through_the_library(name):
    with pytest.raises(ValueError, match=_unknown_preset(name)):
        library(name).state(preset="no_such_preset")


# ------------------------------------------------------------------------------------------------
# documentation
# ------------------------------------------------------------------------------------------------
DOCTEST_EXAMPLES = {"det_f1": 5}  # the least number of examples each module's documentation runs


@pytest.mark.parametrize("name", NAMES)
def test_module_doctests(name, monkeypatch):
    import evaluate

    monkeypatch.chdir(ROOT)
    module = inspect.getmodule(type(load_metric(name)))
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    attempted = 0
    for test in doctest.DocTestFinder().find(module, globs={"evaluate": evaluate}):
        runner.run(test)
        attempted += len(test.examples)
    assert attempted >= DOCTEST_EXAMPLES.get(name, 4) and runner.failures == 0


# ------------------------------------------------------------------------------------------------
# bad input of the text-pair metrics: one list of predictions (strings), one of references (a string
# or a list of strings per example)
# ------------------------------------------------------------------------------------------------
TEXT_PAIR = {"anls": {}, "ned": {}, "text_qa": {}, "vqa_acc": {}, "ru_meteor": {"preset": "nltk"},
             "codebleu": {"lang": "python"}}  # fmt: skip
BAD_TEXT_PAIRS = [
    (
        dict(predictions=["a", "b"], references=["a"]),
        ValueError,
        r"`predictions` has 2 .* `references` has 1",
    ),
    (dict(predictions=None, references=["a"]), ValueError, r"`predictions` is required"),
    (dict(predictions="abc", references=["a"]), TypeError, r"`predictions` must be a list"),
    (dict(predictions=[], references=[]), ValueError, r"`predictions` is empty"),
    (dict(predictions=["a", None], references=["a", "b"]), TypeError, r"`predictions\[1\]`"),
    (dict(predictions=["a", 3], references=["a", "b"]), TypeError, r"`predictions\[1\]` must be a string"),
    (dict(predictions=["\ud800"], references=["a"]), ValueError, r"`predictions\[0\]` is not valid Unicode"),
    (dict(predictions=["a"], references=[[]]), ValueError, r"`references\[0\]` is an empty list"),
    (dict(predictions=["a", "b"], references=["a", ["b", 2]]), TypeError, r"`references\[1\]\[1\]`"),
    (dict(predictions=["a"], references=[None]), TypeError, r"`references\[0\]` is None"),
]
BAD_IDS = ["length", "none", "not_a_list", "empty", "pred_none", "pred_int", "surrogate", "ref_empty",
           "ref_item_int", "ref_none"]  # fmt: skip


@pytest.mark.parametrize("kwargs,exc,match", BAD_TEXT_PAIRS, ids=BAD_IDS)
@pytest.mark.parametrize("name", sorted(TEXT_PAIR))
def test_text_pair_bad_input_through_the_library(name, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        library(name).score(**kwargs, **TEXT_PAIR[name])


@pytest.mark.parametrize("kwargs,exc,match", BAD_TEXT_PAIRS, ids=BAD_IDS)
@pytest.mark.parametrize("name", sorted(TEXT_PAIR))
def test_text_pair_bad_input_through_evaluate(name, kwargs, exc, match):
    options = dict(TEXT_PAIR[name])
    metric = load_metric(name, options.pop("preset", None))
    with pytest.raises(exc, match=match):
        metric.compute(**kwargs, **options)


# ------------------------------------------------------------------------------------------------
# a transformers.Trainer's compute_metrics (a tiny classifier; its labels index a vocabulary)
# ------------------------------------------------------------------------------------------------
def _ned_figures(metrics):
    assert 0.0 <= metrics["eval_string_accuracy"] <= metrics["eval_one_minus_ned"]
    assert "eval_cer" in metrics


TRAINER = {  # name: (vocabulary, the main value's key, more checks)
    "anls": (["yes", "no", "two", "red"], "anls", None),
    "ned": (["hello", "help", "world", "word"], "one_minus_ned", _ned_figures),
    "text_qa": (["кот", "три кота", "b", "ответ: b"], "f1", None),
}


@pytest.mark.parametrize("name", sorted(TRAINER))
def test_trainer_compute_metrics(name):
    import numpy as np

    vocab, key, more = TRAINER[name]
    metric = load_metric(name)

    def compute_metrics(eval_pred):
        logits, labels = eval_pred
        preds = [vocab[i] for i in np.argmax(logits, axis=-1)]
        refs = [vocab[i] for i in labels]
        result = metric.compute(predictions=preds, references=refs)
        result.pop("signature")
        return result

    metrics = run_in_trainer(compute_metrics)
    assert 0.0 <= metrics[f"eval_{key}"] <= 1.0
    if more:
        more(metrics)
