"""Every metric accepts the containers users already have wherever a list is expected.

numpy arrays (of str; of numbers where numbers are expected), pandas Series, tuples and `datasets`
columns give the same result as plain lists; anything else is a TypeError naming the argument.
The conversion is one shared function (`multimodal_metrics.inputs.as_list`) called by the shared checks.
"""

import datasets
import numpy as np
import pandas as pd
import pytest
from helpers import load_metric, metric_names

# One small batch per metric: (predictions, references, compute options), as plain lists.
SAMPLES = {
    "anls": (["reciept", "Paris", ""], [["receipt", "bill"], ["paris"], ["x"]], {}),
    "ned": (["hello", "wrld", "abc"], [["hello"], ["world", "word"], ["abd"]], {}),
    "text_qa": (["кошки", "на 0,3 секунды", "b"], [["кошка"], ["0,3 секунды", "a"], ["b"]], {}),
    "vqa_acc": (["two", "yes", "red"], [["2"] * 9 + ["two"], ["yes"] * 10, ["red", "blue"] * 5], {}),
    "codebleu": (
        ["def f ( x ) : return x + 1", "def g ( a , b ) : return a"],
        [["def f ( x ) : return x + 2"], ["def g ( a , b ) : return b"]],
        {"lang": "python"},
    ),
    "ru_meteor": (
        ["две птицы летали над водою", "кошка", "a dog"],
        [["две птицы летают над водой", "птицы"], ["кошки спят"], ["the dog"]],
        {"synonyms": "none"},  # RuWordNet is not on PyPI
    ),
    "fid_clip": ([[0.0, 1.0], [2.0, 0.5], [1.0, 1.0]], [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], {}),
    "det_f1": (
        [
            {"cat": [[0.0, 0.0, 10.0, 10.0]], "dog": []},
            {"cat": [[5.0, 5.0, 4.0, 4.0], [50.0, 50.0, 5.0, 5.0]]},
        ],
        [{"cat": [[1.0, 1.0, 10.0, 10.0]], "dog": [[20.0, 20.0, 5.0, 5.0]]}, {"cat": [[5.0, 5.0, 4.0, 4.0]]}],
        {},
    ),
}
NAMES = metric_names()


def _sample(name):
    if name not in SAMPLES:
        pytest.fail(f"add a sample batch for {name!r} to SAMPLES in tests/test_inputs.py")
    return SAMPLES[name]


def _column(values):
    """A `datasets` column (datasets >= 4 returns a lazy Column object, not a list)."""
    return datasets.Dataset.from_dict({"x": values})["x"]


def _numpy_boxes(images):
    """det_f1: every box list as a float numpy array of shape (N, 4)."""
    return [{c: np.asarray(b, dtype=np.float64).reshape(-1, 4) for c, b in image.items()} for image in images]


def _object_array(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


KINDS = {
    "tuple": lambda v: tuple(tuple(x) if isinstance(x, list) else x for x in v),
    "numpy": lambda v: np.asarray(v) if isinstance(v[0], str) else _object_array([np.asarray(x) for x in v]),
    "pandas": lambda v: pd.Series(v) if isinstance(v[0], str) else pd.Series([np.asarray(x) for x in v]),
    "datasets": _column,
}


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("name", NAMES)
def test_array_likes_give_the_list_result(name, kind):
    predictions, references, options = _sample(name)
    metric = load_metric(name)
    expected = metric.compute(
        predictions=predictions, references=references, return_per_example=True, **options
    )
    if name == "det_f1":
        convert = {
            "tuple": tuple,
            "numpy": lambda v: _object_array(_numpy_boxes(v)),
            "pandas": lambda v: pd.Series(_numpy_boxes(v)),
            "datasets": lambda v: _column([{"classes": list(im), "boxes": list(im.values())} for im in v]),
        }[kind]
        preds, refs = convert(predictions), convert(references)
    else:
        preds, refs = KINDS[kind](predictions), KINDS[kind](references)
    got = metric.compute(predictions=preds, references=refs, return_per_example=True, **options)
    assert got == expected


@pytest.mark.parametrize(
    "name", [n for n in NAMES if n not in ("det_f1", "fid_clip")]
)  # no multi-reference form
def test_numpy_2d_references_and_single_reference_arrays(name):
    predictions, references, options = _sample(name)
    metric = load_metric(name)
    width = max(map(len, references))
    padded = [
        refs + [refs[-1]] * (width - len(refs)) for refs in references
    ]  # repeat: max over refs unchanged
    expected = metric.compute(predictions=predictions, references=padded, **options)
    got = metric.compute(predictions=np.array(predictions), references=np.array(padded), **options)
    assert got == expected
    single = [refs[0] for refs in references]
    if name == "vqa_acc":
        options = {**options, "num_answers": 0}  # the VQA v2 preset expects 10 answers per question
    expected = metric.compute(predictions=predictions, references=single, **options)
    got = metric.compute(predictions=pd.Series(predictions), references=np.array(single), **options)
    assert got == expected


@pytest.mark.parametrize(
    "bad",
    [{"a", "b"}, (x for x in "ab"), {"0": "a"}, "ab", pd.DataFrame({"p": ["a", "b"]}), np.array("a"), 7],
    ids=["set", "generator", "dict", "str", "dataframe", "0d-array", "int"],
)
@pytest.mark.parametrize("name", NAMES)
def test_other_containers_are_a_type_error_naming_the_argument(name, bad):
    predictions, references, options = _sample(name)
    with pytest.raises(TypeError, match="`predictions`"):
        load_metric(name).compute(predictions=bad, references=references, **options)


@pytest.mark.parametrize("name", [n for n in NAMES if n != "det_f1"])
def test_missing_value_in_a_series_names_the_index(name):
    predictions, references, options = _sample(name)
    series = pd.Series(predictions[:1] + [None] + predictions[2:])  # pandas stores None as NaN in str columns
    with pytest.raises(TypeError, match=r"`predictions\[1\]`"):
        load_metric(name).compute(predictions=series, references=references, **options)


def test_det_f1_boxes_as_numpy_and_torch():
    import torch

    predictions, references, _ = SAMPLES["det_f1"]
    metric = load_metric("det_f1")
    expected = metric.compute(predictions=predictions, references=references)
    tensors = [
        {c: torch.tensor(b, dtype=torch.float32).reshape(-1, 4) for c, b in im.items()} for im in predictions
    ]
    assert metric.compute(predictions=tensors, references=np.array(_numpy_boxes(references))) == expected
    records = pd.DataFrame(
        {
            "classes": [np.array(list(im)) for im in predictions],
            "boxes": [[np.asarray(b, dtype=float).reshape(-1, 4) for b in im.values()] for im in predictions],
        }
    )
    assert (
        metric.compute(predictions=records.to_dict("records"), references=references) == expected
    )  # numpy classes
    bad = [{"cat": np.array([["a", "b", "c", "d"]])}, predictions[1]]
    with pytest.raises(TypeError, match=r"`predictions\[0\]` class 'cat'"):
        metric.compute(predictions=bad, references=references)
