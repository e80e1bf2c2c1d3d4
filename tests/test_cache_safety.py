"""A refused option or a failed computation leaves evaluate's cache clean.

evaluate writes the batch to an Arrow file under a file lock before `_compute` runs; an option error
raised there used to keep the lock: the next compute on the same object waited, and in distributed
mode both processes failed. Options are now checked first (`multimodal_metrics.hf.direct.OptionsCheckedFirst`).
"""

import os
import uuid

import pytest
from helpers import METRICS, load_rank, metric_names, run_two_ranks

# name -> (preset, one valid example, one refused option)
CASES = {
    "anls": (None, {"predictions": ["ac"], "references": [["ab"]]}, {"threshold": 2.0}),
    "ned": (None, {"predictions": ["ac"], "references": [["ab"]]}, {"case_fold": "upper"}),
    "text_qa": (None, {"predictions": ["a b"], "references": [["a"]]}, {"measure": "bleu"}),
    "codebleu": (None, {"predictions": ["x = 1"], "references": [["x = 1"]]}, {"lang": "cobol"}),
    "det_f1": (
        None,
        {"predictions": [{"cat": [[0, 0, 2, 2]]}], "references": [{"cat": [[0, 0, 2, 2]]}]},
        {"iou_threshold": float("nan")},
    ),
    "vqa_acc": (None, {"predictions": ["yes"], "references": [["yes"] * 10]}, {"normalize": "sometimes"}),
    "ru_meteor": (None, {"predictions": ["кот сидит"], "references": [["кот сидел"]]}, {"alpha": 2.0}),
    "fid_clip": (
        None,
        {
            "predictions": [[0.0, 1.0], [1.0, 0.5], [2.0, 0.0]],
            "references": [[0.5, 1.0], [1.5, 0.0], [0.0, 0.2]],
        },
        {"batch_size": 0},
    ),
}
GOOD_OPTIONS = {"codebleu": {"lang": "python"}, "ru_meteor": {"synonyms": "none"}}


def test_every_metric_has_a_case():
    assert set(CASES) == set(metric_names())


def _leftovers(cache_dir) -> list[str]:
    """Arrow cache files and *held* locks under ``cache_dir`` (filelock may leave unlocked lock files)."""
    from filelock import FileLock

    left = []
    for dirpath, _, files in os.walk(cache_dir):
        for f in files:
            path = os.path.join(dirpath, f)
            if f.endswith(".arrow"):
                left.append(path)
            elif f.endswith(".lock"):
                lock = FileLock(path)
                try:
                    lock.acquire(timeout=0)
                except Exception:
                    left.append(path)
                else:
                    lock.release()
    return left


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("keep_in_memory", [False, True])
def test_bad_option_then_good_compute_on_the_same_object(name, keep_in_memory, tmp_path):
    import evaluate

    preset, example, bad = CASES[name]
    good = GOOD_OPTIONS.get(name, {})
    metric = evaluate.load(
        str(METRICS / name), preset, cache_dir=str(tmp_path), keep_in_memory=keep_in_memory
    )
    for _ in range(3):
        with pytest.raises((ValueError, TypeError), match=f"`?{next(iter(bad))}`?"):
            metric.compute(**example, **good, **bad)
        assert _leftovers(tmp_path) == []
    expected = metric.compute(**example, **good)
    # data added with add_batch survives a refused compute, and is scored by the next good one
    metric.add_batch(**example)
    with pytest.raises((ValueError, TypeError)):
        metric.compute(**good, **bad)
    assert metric.compute(**good) == expected
    with pytest.raises(TypeError, match="return_per_example"):
        metric.compute(**example, **good, return_per_example="yes")
    assert metric.compute(**example, **good) == expected
    assert _leftovers(tmp_path) == []


def test_ru_meteor_missing_ruwordnet_is_refused_before_the_cache_is_written(tmp_path, monkeypatch):
    import evaluate

    metric = evaluate.load(str(METRICS / "ru_meteor"), cache_dir=str(tmp_path / "cache"))
    example = CASES["ru_meteor"][1]
    expected = metric.compute(**example, synonyms="none")
    calls = []
    monkeypatch.setattr(metric, "_compute", lambda *a, **k: calls.append(1))
    missing = str(tmp_path / "missing.db")
    with pytest.raises(ValueError, match="RuWordNet database was not found at `ruwordnet_path`"):
        metric.compute(**example, ruwordnet_path=missing)
    assert calls == [] and _leftovers(tmp_path) == []
    metric.add_batch(**example)
    held = _leftovers(tmp_path)  # the added batch's file and lock, until a compute finishes
    with pytest.raises(ValueError, match="RuWordNet database was not found at `ruwordnet_path`"):
        metric.compute(ruwordnet_path=missing)
    assert calls == [] and _leftovers(tmp_path) == held
    monkeypatch.undo()
    assert metric.compute(synonyms="none") == expected  # the batch added before the refusal is kept
    assert _leftovers(tmp_path) == []


def _scoring_module(metric):
    """Where the metric's scoring runs: its library's ``scoring`` module (a metric moved into
    multimodal_metrics), else the evaluate script itself."""
    import sys

    library = getattr(type(metric), "library", None)
    return sys.modules[library.score.__module__ if library is not None else type(metric).__module__]


@pytest.mark.parametrize("name, preset", [("ru_meteor", "nltk"), ("vqa_acc", "wups")])
@pytest.mark.parametrize("where", ["wordnet_path", "nowhere"])
def test_missing_wordnet_is_refused_before_the_cache_is_written(name, preset, where, tmp_path, monkeypatch):
    """WordNet absent under `wordnet_path`, or absent everywhere (no NLTK corpus, no Debian files)."""
    import evaluate
    import nltk

    metric = evaluate.load(str(METRICS / name), preset, cache_dir=str(tmp_path / "cache"))
    example = {"predictions": ["a sofa"], "references": [["a couch"]]}
    expected = metric.compute(**example)
    missing = str(tmp_path / "no_wordnet")
    bad = {"wordnet_path": missing} if where == "wordnet_path" else {}
    if where == "nowhere":  # the shared WordNet module of this metric: no Debian folder, no NLTK corpus
        shared = _scoring_module(metric).load_wordnet.__globals__
        monkeypatch.setitem(shared, "DEBIAN_WORDNET", missing)
        monkeypatch.setattr(nltk.data, "path", [missing])
    calls = []
    monkeypatch.setattr(metric, "_compute", lambda *a, **k: calls.append(1))
    with pytest.raises(ValueError, match="WordNet 3.0 was not found"):
        metric.compute(**example, **bad)
    assert calls == [] and _leftovers(tmp_path) == []
    metric.add_batch(**example)
    held = _leftovers(tmp_path)  # the added batch's file and lock, until a compute finishes
    with pytest.raises(ValueError, match="WordNet 3.0 was not found"):
        metric.compute(**bad)
    assert calls == [] and _leftovers(tmp_path) == held
    monkeypatch.undo()
    assert metric.compute() == expected  # the batch added before the refusal is kept
    assert _leftovers(tmp_path) == []


def test_a_failure_inside_compute_releases_the_cache(tmp_path, monkeypatch):
    import evaluate

    metric = evaluate.load(str(METRICS / "anls"), cache_dir=str(tmp_path))
    calls = []

    def broken(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("boom")

    monkeypatch.setattr(metric, "_compute", broken)
    with pytest.raises(RuntimeError):
        metric.compute(predictions=["a"], references=["a"])
    assert calls and _leftovers(tmp_path) == []
    monkeypatch.undo()
    assert metric.compute(predictions=["a"], references=["a"])["anls"] == 1.0
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("config_name", ["", 0, ["default"]])
def test_empty_or_non_string_preset_name_is_refused(config_name):
    import evaluate

    with pytest.raises((ValueError, TypeError), match="config_name"):
        evaluate.load(str(METRICS / "anls"), config_name)


def _rank(rank: int, exp: str, cache_dir: str, queue, barrier) -> None:
    os.environ["HF_EVALUATE_OFFLINE"] = "1"
    metric = load_rank("anls", rank, exp, cache_dir, 30)
    preds, refs = (["ac", "hello"], [["ab"], ["hello"]]) if rank == 0 else (["xyz"], [["abc"]])
    out = []
    try:
        metric.compute(predictions=preds, references=refs, threshold="high")
        out.append("accepted")
    except (ValueError, TypeError) as err:
        out.append("threshold" in str(err))
    out.append(metric.compute(predictions=preds, references=refs, return_per_example=True))
    barrier.wait(60)  # as torch.distributed users do: rank 0 holds every file until its compute is done
    metric.add_batch(predictions=preds, references=refs)  # data added before a refused compute is kept
    try:
        metric.compute(boundary=["strict"])
        out.append("accepted")
    except (ValueError, TypeError) as err:
        out.append("boundary" in str(err))
    out.append(metric.compute())
    queue.put((rank, out))


def test_distributed_bad_option_then_good_compute(tmp_path):
    results = run_two_ranks(_rank, uuid.uuid4().hex, str(tmp_path), method="spawn", barrier=True, timeout=180)
    assert results[1] == [True, None, True, None]
    refused, first, refused_again, second = results[0]
    assert refused is True and refused_again is True
    assert first["per_example"] == [0.5, 1.0, 0.0]  # rank 0's examples, then rank 1's
    assert first["anls"] == second["anls"] == pytest.approx(0.5)
    assert _leftovers(tmp_path) == []
