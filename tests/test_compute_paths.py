"""Every way of feeding a metric gives the same result: compute in one call, add_batch in pieces, add
one example at a time, and evaluate's distributed mode (num_process=2, two real processes sharing
a cache directory). Guards the fast Arrow paths (checked_features, the text modules' Arrow writing
and reading, det_f1's Arrow reader)."""

import random
import re

import numpy as np
import pytest
from helpers import METRICS, run_two_ranks

METRICS_CHECKED = ["anls", "det_f1", "ned", "ru_meteor", "text_qa", "vqa_acc"]
TEXT_METRICS = ["anls", "ned", "ru_meteor", "text_qa"]  # TextPairInputs modules that read Arrow columns
CONFIGS = {"ru_meteor": "nltk"}  # WordNet comes with the test set-up; RuWordNet does not


def _texts(n: int, seed: int):
    rng = random.Random(seed)
    words = ["cat", "two", "red", "the lamp", "Yes", "no", "a b", "ёж", "1,000", ""]
    preds = [rng.choice(words) for _ in range(n)]
    refs = [
        rng.choice(words[:-1])
        if rng.random() < 0.3
        else [rng.choice(words[:-1]) for _ in range(rng.randint(1, 3))]
        for _ in range(n)
    ]
    return preds, refs


def _images(n: int, seed: int):
    rng = random.Random(seed)
    classes = ["cat", "dog", "lamp"]

    def boxes(k):
        return [
            [rng.randint(0, 50), rng.randint(0, 50), rng.randint(1, 30), rng.randint(1, 30)] for _ in range(k)
        ]

    refs, preds = [], []
    for i in range(n):
        wanted = rng.sample(classes, rng.randint(1, 3)) if i % 7 != 6 else []  # an image with no request
        refs.append({c: boxes(rng.randint(0, 3)) for c in wanted})
        if not wanted:  # nothing requested: a predicted class is not scored
            preds.append({"bird": boxes(1)})
        elif i % 5 == 4:  # the script's [[]] for "no box", numpy boxes
            preds.append(
                {c: [[]] if k % 2 else np.array(boxes(2), dtype=float) for k, c in enumerate(wanted)}
            )
        elif i % 3 == 0:  # record form, classes in another order
            order = wanted[::-1]
            preds.append({"classes": order, "boxes": [boxes(rng.randint(0, 3)) for _ in order]})
        elif i % 3 == 1:
            preds.append({c: boxes(rng.randint(0, 3)) for c in wanted})
        else:  # extra class and float coordinates
            preds.append(
                {c: [[x + 0.5 for x in b] for b in boxes(rng.randint(0, 2))] for c in wanted + ["bird"]}
            )
    return preds, refs


def _inputs(name: str, n: int = 60):
    if name == "det_f1":
        return _images(n, 1)
    preds, refs = _texts(n, 2)
    if name == "vqa_acc":  # the default preset (VQA v2) wants 10 answers per question
        refs = [([r] if isinstance(r, str) else r) * 10 for r in refs]
        refs = [r[:10] for r in refs]
    return preds, refs


def _columns(name: str) -> dict:
    """Every input column of `name` ("<metric>" or "<metric>/<preset>"), with the optional per-example
    inputs of the vqa_acc presets (stored as Arrow columns of their own)."""
    preds, refs = _inputs(name.split("/")[0])
    rng = random.Random(3)
    types = [rng.choice(["color", "count", ""]) for _ in preds]
    if name == "vqa_acc":
        return {
            "predictions": preds,
            "references": refs,
            "question_types": types,
            "answer_types": types[::-1],
        }
    if name == "vqa_acc/tdiuc":
        return {
            "predictions": preds,
            "references": [r[0] for r in _lists(refs)],
            "question_types": [t or "yes/no" for t in types],
        }
    return {"predictions": preds, "references": refs}


def _lists(refs):
    return [[r] if isinstance(r, str) else r for r in refs]


def _load(name, **kwargs):
    import evaluate

    path, _, preset = name.partition("/")
    return evaluate.load(str(METRICS / path), preset or CONFIGS.get(path), **kwargs)


def _worker(rank, name, cache_dir, queue):
    columns = _columns(name)
    half = len(columns["predictions"]) // 2
    part = slice(0, half) if rank == 0 else slice(half, None)
    metric = _load(name, num_process=2, process_id=rank, experiment_id="paths", cache_dir=cache_dir)
    metric.add_batch(**{key: values[part] for key, values in columns.items()})
    queue.put((rank, metric.compute(return_per_example=True)))


@pytest.mark.parametrize("name", METRICS_CHECKED)
def test_add_batch_add_and_compute_agree(name, tmp_path):
    preds, refs = _inputs(name)
    metric = _load(name, cache_dir=str(tmp_path))
    whole = metric.compute(predictions=preds, references=refs, return_per_example=True)
    for cut in (1, 17, 59):
        metric.add_batch(predictions=preds[:cut], references=refs[:cut])
        metric.add_batch(predictions=preds[cut:], references=refs[cut:])
        assert metric.compute(return_per_example=True) == whole
        metric.add_batch(predictions=preds[:cut], references=refs[:cut])  # then compute with the rest
        assert (
            metric.compute(predictions=preds[cut:], references=refs[cut:], return_per_example=True) == whole
        )
    for p, r in zip(preds, refs):
        metric.add(prediction=p, reference=r)
    assert metric.compute(return_per_example=True) == whole
    in_memory = _load(name, keep_in_memory=True)
    assert in_memory.compute(predictions=preds, references=refs, return_per_example=True) == whole


@pytest.mark.parametrize("name", ["det_f1", "vqa_acc", "vqa_acc/tdiuc", "anls", "ned", "text_qa"])
def test_distributed_mode_agrees(name, tmp_path):
    whole = _load(name, cache_dir=str(tmp_path / "single")).compute(**_columns(name), return_per_example=True)
    results = run_two_ranks(_worker, name, str(tmp_path / "dist"))
    assert results[1] is None
    assert results[0] == whole


@pytest.mark.parametrize("name", TEXT_METRICS)
def test_reference_forms_agree(name, tmp_path):
    """Every accepted form of the references (one string each, lists, tuples, numpy arrays, a mix,
    numpy strings) is stored alike: the Arrow fast paths and the checked fallback give one result."""
    import numpy as np

    preds = ["cat", "two", "the lamp", "ёж", "", "a b"]
    singles = ["cat", "three", "lamp", "еж", "x", "a  b"]
    metric = _load(name, cache_dir=str(tmp_path))
    whole = metric.compute(predictions=preds, references=[[r] for r in singles], return_per_example=True)
    forms = [
        singles,
        [(r,) for r in singles],
        [np.array([r]) for r in singles],
        [r if i % 2 else [r] for i, r in enumerate(singles)],
        [np.str_(r) for r in singles],
        np.array(singles),
    ]
    for refs in forms:
        assert metric.compute(predictions=preds, references=refs, return_per_example=True) == whole
    assert metric.compute(predictions=np.array(preds), references=singles, return_per_example=True) == whole
    assert (
        metric.compute(predictions=[np.str_(p) for p in preds], references=singles, return_per_example=True)
        == whole
    )


@pytest.mark.parametrize("name", TEXT_METRICS)
def test_arrow_checks_name_the_example(name, tmp_path):
    """The checks done by the Arrow conversion still name the argument and the index, and leave
    nothing half-written: the next compute works."""
    metric = _load(name, cache_dir=str(tmp_path))
    expected = metric.compute(predictions=["a", "b"], references=["a", "c"])
    bad = [
        (dict(predictions=["a", "b\ud800"], references=["a", "b"]), ValueError, "predictions[1]"),
        (dict(predictions=["a", None], references=["a", "b"]), TypeError, "predictions[1]"),
        (dict(predictions=["a", b"b"], references=["a", "b"]), TypeError, "predictions[1]"),
        (dict(predictions=["a", "b"], references=["a", "\udfff"]), ValueError, "references[1]"),
        (dict(predictions=["a", "b"], references=[["a"], ["b", "\ud800"]]), ValueError, "references[1][1]"),
        (dict(predictions=["a", "b"], references=[["a"], []]), ValueError, "references[1]"),
        (dict(predictions=["a", "b"], references=[["a"], ["b", None]]), TypeError, "references[1][1]"),
        (dict(predictions=["a", "b"], references=["a", 3]), TypeError, "references[1]"),
        (dict(predictions=["a", "b"], references=["a"]), ValueError, "references"),
    ]
    for kwargs, error, where in bad:
        with pytest.raises(error, match=re.escape(where)):
            metric.compute(**kwargs)
        with pytest.raises(error, match=re.escape(where)):
            metric.add_batch(**kwargs)
    assert metric.compute(predictions=["a", "b"], references=["a", "c"]) == expected
