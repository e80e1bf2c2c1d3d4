"""``compute`` given the whole data takes the direct path (``hf.direct.OptionsCheckedFirst``):
evaluate's own ``compute`` and ``add_batch`` run, but its writer keeps the table in memory, so no cache
file, lock or writer on disk is made. These tests hold it to evaluate's path, for every metric:

* the result (per example, intervals, ``for_trainer`` included) equals ``add_batch`` + ``compute()``,
  which writes and reads evaluate's cache file, on normal and hostile inputs;
* ``_compute`` receives the same columns (Arrow chunks or Python lists) as from the cache file;
* nothing is written under the cache directory and evaluate's file writer is never created;
* a bad input fails with the same error (type and message) as through ``add_batch``, and evaluate's
  own errors (format, lengths, missing or unknown inputs) are the ones a plain ``evaluate.Metric`` gives;
* ``add_batch`` then ``compute``, ``keep_in_memory`` and a failed ``_compute`` keep their behaviour.
"""

import os
import random

import numpy as np
import pytest
from helpers import METRICS, metric_names
from test_compute_paths import _images, _texts

INTERVALS = {"confidence": 0.9, "n_resamples": 40, "seed": 7}


def _vqa_refs(refs, k=10):
    return [(([r] if isinstance(r, str) else list(r)) * k)[:k] for r in refs]


def _hostile_texts(n: int, seed: int):
    """Text pairs with empty strings, non-Latin letters, emoji, NUL, numpy strings, tuples, single
    strings mixed with lists, over 1,000 examples (several Arrow record batches)."""
    preds, refs = _texts(n, seed)
    odd = ["", "\x00", "😀 ok", "ǅ", "Ⅻ", "a\u0301", " spaced  out ", "\t", "ß", "ё"]
    rng = random.Random(seed)
    for i in range(0, n, 7):
        preds[i] = np.str_(rng.choice(odd)) if i % 2 else rng.choice(odd)
        refs[i] = tuple(rng.choice(odd) for _ in range(rng.randint(1, 3))) if i % 3 else rng.choice(odd)
    return preds, refs


def _code():
    preds = ["def add(a, b):\n    return a + b", "x = 1  # one", "for i in range(3):\n    print(i)", ""]
    refs = [["def sum(x, y):\n    return y + x"], "x = 2", ("for j in range(3): print(j)", "pass"), "y = 0"]
    return {"predictions": preds, "references": refs}


def _features(n: int, d: int, seed: int):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d))


def _columns(case: str) -> dict:
    """Inputs of one case, ``"<metric>[/<preset>]:<kind>"``."""
    name, _, kind = case.partition(":")
    metric = name.split("/")[0]
    if metric == "det_f1":
        preds, refs = _images(1500 if kind == "big" else 60, 4)
        return {"predictions": preds, "references": refs}
    if metric == "codebleu":
        return _code()
    if metric == "fid_clip":
        return {"predictions": _features(40, 5, 1), "references": list(_features(30, 5, 2))}
    preds, refs = _hostile_texts(2100, 5) if kind == "big" else _texts(50, 6)
    rng = random.Random(8)
    if name == "vqa_acc":
        types = [rng.choice(["color", "count", ""]) for _ in preds]
        return {
            "predictions": preds,
            "references": _vqa_refs(refs),
            "question_types": types,
            "answer_types": types[::-1],
        }
    if name == "vqa_acc/tdiuc":
        first = [r if isinstance(r, str) else r[0] for r in refs]
        return {
            "predictions": preds,
            "references": first,
            "question_types": [rng.choice("abc") for _ in preds],
        }
    if name == "vqa_acc/fusion_brain_2021":
        return {
            "predictions": preds,
            "references": refs,
            "languages": [rng.choice(["en", "ru"]) for _ in preds],
        }
    return {"predictions": preds, "references": refs}


CASES = [
    "anls:big", "anls/stvqa:small", "ned:big", "text_qa:big", "text_qa/mathqa:small", "ru_meteor/nltk:big",
    "vqa_acc:big", "vqa_acc/tdiuc:big", "vqa_acc/fusion_brain_2021:small", "vqa_acc/bleu1:big",
    "codebleu:small", "det_f1:big", "det_f1/one_to_one:small", "fid_clip:small",
]  # fmt: skip
OPTIONS = {"codebleu": {"lang": "python"}, "ru_meteor": {"synonyms": "none"}}
INTERVAL_OPTIONS = {"fid_clip": {"confidence": 0.9, "n_resamples": 20, "seed": 7}}


def test_every_metric_has_a_case():
    assert {case.split("/")[0].split(":")[0] for case in CASES} == set(metric_names())


def _load(name: str, cache_dir, **kwargs):
    import evaluate

    path, _, preset = name.partition("/")
    return evaluate.load(str(METRICS / path), preset or None, cache_dir=str(cache_dir), **kwargs)


def _files(root) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, files in os.walk(root) for f in files)


class _NoCache:
    """During a direct compute: evaluate's cache file and its ArrowWriter must never be created."""

    def __init__(self, monkeypatch):
        import evaluate.module

        def refuse(*args, **kwargs):
            raise AssertionError("the direct path created evaluate's cache file or writer")

        monkeypatch.setattr(evaluate.module.EvaluationModule, "_create_cache_file", refuse)
        monkeypatch.setattr(evaluate.module, "ArrowWriter", refuse)
        self.monkeypatch = monkeypatch

    def undo(self):
        self.monkeypatch.undo()


def _spy_compute(metric) -> list:
    """Record what evaluate hands ``metric._compute`` (instance attribute: evaluate calls self._compute)."""
    seen = []
    original = metric._compute

    def spy(**kwargs):
        seen.append(kwargs)
        return original(**kwargs)

    metric._compute = spy
    return seen


def _same_column(a, b) -> None:
    assert type(a) is type(b)
    if hasattr(a, "chunks"):  # Arrow: same type, values and record batches as read from the file
        assert a.type == b.type and a.equals(b)
        assert [len(c) for c in a.chunks] == [len(c) for c in b.chunks]
    else:
        assert a == b


def _both_paths(case: str, options: dict, tmp_path, monkeypatch):
    """(direct result, evaluate-path result, columns seen by each _compute); checks no file is written."""
    name = case.split(":")[0]
    columns = _columns(case)
    options = {**OPTIONS.get(name.split("/")[0], {}), **options}
    direct = _load(name, tmp_path / "direct")
    seen_direct = _spy_compute(direct)
    before = _files(tmp_path / "direct")
    guard = _NoCache(monkeypatch)
    got = direct.compute(**columns, **options)
    guard.undo()
    assert _files(tmp_path / "direct") == before, "the direct path wrote under the cache directory"
    assert direct.writer is None and direct.data is None and direct.filelocks is None

    import evaluate.module

    created = []
    original = evaluate.module.EvaluationModule._create_cache_file
    monkeypatch.setattr(
        evaluate.module.EvaluationModule,
        "_create_cache_file",
        lambda self, *a, **k: created.append(1) or original(self, *a, **k),
    )
    cached = _load(name, tmp_path / "cached")
    seen_cached = _spy_compute(cached)
    cached.add_batch(**columns)
    expected = cached.compute(**options)
    monkeypatch.undo()
    assert created, "the comparison did not go through evaluate's cache file"
    return got, expected, seen_direct, seen_cached


@pytest.mark.parametrize("case", CASES)
def test_direct_compute_equals_the_cache_path(case, tmp_path, monkeypatch):
    got, expected, seen_direct, seen_cached = _both_paths(
        case, {"return_per_example": True}, tmp_path, monkeypatch
    )
    assert got == expected
    assert len(seen_direct) == len(seen_cached) == 1
    assert seen_direct[0].keys() == seen_cached[0].keys()
    for key in seen_direct[0]:
        _same_column(seen_direct[0][key], seen_cached[0][key])


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.endswith(":small") or c.startswith(("anls", "vqa_acc/tdiuc"))]
)
def test_direct_intervals_and_trainer_equal_the_cache_path(case, tmp_path, monkeypatch):
    name = case.split("/")[0].split(":")[0]
    intervals = INTERVAL_OPTIONS.get(name, INTERVALS)
    got, expected, _, _ = _both_paths(case, intervals, tmp_path / "ci", monkeypatch)
    assert got == expected and any(key.endswith("_ci_low") for key in got)
    got, expected, _, _ = _both_paths(case, {"for_trainer": True}, tmp_path / "trainer", monkeypatch)
    assert got == expected and "signature" not in got


# ----------------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------------
BAD = {
    "anls": [
        {"predictions": ["a", None], "references": ["a", "b"]},
        {"predictions": ["a", "b\ud800"], "references": ["a", "b"]},
        {"predictions": ["a", "b"], "references": [["a"], []]},
        {"predictions": ["a", "b"], "references": ["a"]},
        {"predictions": "ab", "references": ["a", "b"]},
        {"predictions": ["a"], "references": None},
        {"predictions": [], "references": []},
    ],
    "vqa_acc/tdiuc": [
        {"predictions": ["a"], "references": ["a"]},
        {"predictions": ["a"], "references": ["a"], "question_types": [""]},
        {"predictions": ["a"], "references": ["a"], "question_types": ["t", "u"]},
        {"predictions": ["a"], "references": [3], "question_types": ["t"]},
    ],
    "vqa_acc": [
        {
            "predictions": ["a"],
            "references": [["a"] * 3],
        },  # raised in _compute (num_answers), after the batch
        {"predictions": ["a"], "references": [["a"] * 10], "languages": ["en"]},
    ],
    "det_f1": [
        {"predictions": [{"cat": [[0, 0, 1]]}], "references": [{"cat": [[0, 0, 1, 1]]}]},
        {"predictions": [{"cat": [[0, 0, 1, 1]]}], "references": [{"cat": [[0, 0, 1, True]]}]},
        {"predictions": [{}], "references": [{"cat": []}, {}]},
        {"predictions": [{}], "references": [{"cat": [[0, 0, 1, 1]]}]},  # missing class: raised in _compute
    ],
    "codebleu": [
        {"predictions": ["x = 1", 2], "references": ["x", "y"], "lang": "python"},
        {
            "predictions": ["x = 1"],
            "references": [["x = 1"]],
            "lang": "python",
            "grammar_library": "/nonexistent.so",
        },
    ],
    "fid_clip": [
        {"predictions": [[0.0, 1.0], [1.0]], "references": [[0.0, 1.0]]},
        {"predictions": [[0.0, float("nan")]], "references": [[0.0, 1.0]]},
        {"predictions": [[0.0, 1.0], [1.0, 2.0]], "references": [[0.0, 1.0, 2.0], [1.0, 2.0, 3.0]]},
        {"predictions": [], "references": []},
        {"predictions": [[0.0, 1.0]], "texts": ["a", "b"]},
    ],
    "ned": [{"predictions": ["a"], "references": [("a", 1)]}],
    "text_qa": [{"predictions": np.array(["a", "b"]), "references": ["a"]}],
    "ru_meteor/nltk": [{"predictions": ["a"], "references": [[b"a"]], "synonyms": "none"}],
}


def _outcome(fn, *args, **kwargs):
    try:
        return ("result", fn(*args, **kwargs))
    except (ValueError, TypeError, KeyError) as err:
        return (type(err), str(err))


def _add_then_compute(metric, inputs: dict, options: dict):
    metric.add_batch(**inputs)
    return metric.compute(**options)


def test_every_metric_has_bad_inputs():
    assert {name.split("/")[0] for name in BAD} == set(metric_names())


@pytest.mark.parametrize("name", sorted(BAD))
def test_direct_errors_equal_the_cache_path(name, tmp_path, monkeypatch):
    for i, bad in enumerate(BAD[name]):
        direct = _load(name, tmp_path / f"direct{i}")
        before = _files(tmp_path / f"direct{i}")
        guard = _NoCache(monkeypatch)
        got = _outcome(direct.compute, **bad)
        guard.undo()
        assert got[0] in (ValueError, TypeError), (bad, got)
        assert _files(tmp_path / f"direct{i}") == before
        assert direct.writer is None and direct.data is None and direct.selected_feature_format is None
        cached = _load(name, tmp_path / f"cached{i}")
        inputs = {
            k: v
            for k, v in bad.items()
            if k in ("predictions", "references", "question_types", "languages", "texts")
        }
        options = {k: v for k, v in bad.items() if k not in inputs}
        expected = _outcome(_add_then_compute, cached, inputs, options)
        assert got == expected, bad
        # the object is clean: a good compute follows on the direct path
        good = (
            _columns(name + ":small")
            if name != "ru_meteor/nltk"
            else {"predictions": ["a"], "references": ["a"]}
        )
        options = {**OPTIONS.get(name.split("/")[0], {})}
        guard = _NoCache(monkeypatch)
        direct.compute(**good, **options)
        guard.undo()


def _describe(column) -> str:
    """Type and values of a column as _compute receives it (Arrow: type and record batches)."""
    if hasattr(column, "chunks"):
        return f"{type(column).__name__} {column.type} {[chunk.to_pylist() for chunk in column.chunks]}"
    if isinstance(column, np.ndarray):
        return f"ndarray {column.dtype} {column.tolist()}"
    return f"{type(column).__name__} {column!r}"


def _toy_classes():
    """A plain ``evaluate.Metric`` (evaluate's behaviour) and the same metric with
    ``OptionsCheckedFirst`` (the direct path), with evaluate's own feature encoding (no module checks):
    two columns with two schemas (int or list of ints), and three columns with one schema."""
    import datasets
    import evaluate

    from multimodal_metrics import hf as common

    two = [
        datasets.Features({"predictions": datasets.Value("int64"), "references": datasets.Value("int64")}),
        datasets.Features(
            {
                "predictions": datasets.Sequence(datasets.Value("int64")),
                "references": datasets.Sequence(datasets.Value("int64")),
            }
        ),
    ]
    three = datasets.Features(
        {
            "predictions": datasets.Value("string"),
            "references": datasets.Value("string"),
            "weights": datasets.Value("float64"),
        }
    )

    def make(features, fmt):
        class Toy(evaluate.Metric):
            def _info(self):
                info = evaluate.MetricInfo(
                    description="toy", citation="", inputs_description="", features=features
                )
                info.format = fmt
                return info

            def _compute(self, **columns):
                out = {name: _describe(column) for name, column in columns.items()}
                out["draw"] = float(np.random.random())  # evaluate's temp_seed(self.seed) around _compute
                return out

        class ToyDirect(common.OptionsCheckedFirst, Toy):
            def _options(self, passed):
                return {}

        return Toy, ToyDirect

    return {
        "two": make(two, None),
        "three": make(three, None),
        "three_arrow": make(three, "arrow"),
        "three_numpy": make(three, "numpy"),  # another format: DirectData reads through an in-memory Dataset
    }


TOY_INPUTS = {
    "two": [
        {"predictions": [1, 2], "references": [1, 3]},
        {"predictions": [[1], [2, 3]], "references": [[1], []]},
        {"predictions": ["a"], "references": [1]},
        {"predictions": [1, 2], "references": [1]},
        {"predictions": [1], "references": [[1]]},
        {"predictions": [1.5, 2], "references": [1, 3]},
        {"predictions": [1], "references": None},
        {"predictions": list(range(2500)), "references": list(range(2500))},
    ],
    "three": [
        {"predictions": ["a", "b"], "references": ["a", "c"], "weights": [0.5, 1.0]},
        {"predictions": ["a"], "references": ["a"]},
        {"predictions": ["a"], "references": ["a"], "weights": [1.0], "extra": [1]},
        {"predictions": ["a"], "references": [1], "weights": [1.0]},
        {"predictions": ["a", "b"], "references": ["a"], "weights": [1.0, 2.0]},
        {"predictions": ["a"], "references": ["b"], "weights": ["heavy"]},
        {"predictions": None, "references": None, "weights": [1.0]},
    ],
}
TOY_INPUTS["three_arrow"] = TOY_INPUTS["three_numpy"] = TOY_INPUTS["three"]


@pytest.mark.parametrize("kind", sorted(TOY_INPUTS))
def test_evaluate_checks_and_errors_are_kept(kind, tmp_path, monkeypatch):
    plain_class, direct_class = _toy_classes()[kind]
    for i, inputs in enumerate(TOY_INPUTS[kind]):
        plain = plain_class(cache_dir=str(tmp_path / f"plain{i}"), seed=11)
        direct = direct_class(cache_dir=str(tmp_path / f"direct{i}"), seed=11)
        expected = _outcome(plain.compute, **inputs)
        before = _files(tmp_path / f"direct{i}")
        guard = _NoCache(monkeypatch)
        got = _outcome(direct.compute, **inputs)
        guard.undo()
        assert got == expected, inputs
        assert _files(tmp_path / f"direct{i}") == before
        assert direct.writer is None and direct.data is None


def test_other_modes_keep_evaluates_cache(tmp_path, monkeypatch):
    """keep_in_memory, and a compute after add_batch, use evaluate's cache (file or memory), written by
    ``hf.cache``'s ArrowWriter that can take back a failed batch."""
    columns = _columns("anls:small")
    finalized = []
    for kwargs in ({"keep_in_memory": True}, {}):
        metric = _load("anls", tmp_path / str(len(finalized)), **kwargs)
        original = metric._finalize

        def spy(original=original, metric=metric):
            finalized.append(type(metric.writer).__name__)
            return original()

        metric._finalize = spy
        expected = metric.compute(**columns)
        metric.add_batch(predictions=columns["predictions"][:10], references=columns["references"][:10])
        rest = {key: values[10:] for key, values in columns.items()}
        assert metric.compute(**rest) == expected
    assert finalized == ["RollbackWriter", "RollbackWriter", "CapturedBatches", "RollbackWriter"]


def test_failed_compute_leaves_the_object_clean(tmp_path, monkeypatch):
    """A _compute that raises on the direct path (det_f1: a class the prediction lacks) leaves no
    writer or data, and the next compute works on the direct path."""
    metric = _load("det_f1", tmp_path)
    before = _files(tmp_path)
    guard = _NoCache(monkeypatch)
    with pytest.raises(ValueError, match="predictions"):
        metric.compute(predictions=[{}], references=[{"cat": [[0, 0, 1, 1]]}])
    assert metric.writer is None and metric.data is None and metric.filelocks is None
    assert (
        metric.compute(predictions=[{"cat": [[0, 0, 1, 1]]}], references=[{"cat": [[0, 0, 1, 1]]}])["f1"]
        == 1.0
    )
    guard.undo()
    assert _files(tmp_path) == before
