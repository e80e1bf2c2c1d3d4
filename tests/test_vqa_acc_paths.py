"""vqa_acc reads evaluate's Arrow columns: every preset gives the pure functions' numbers
exactly through compute, add_batch in pieces, add and keep_in_memory (distributed mode, num_process=2:
tests/test_compute_paths.py); the Arrow readers of multimodal_metrics.vqa_acc.arrow on their own."""

import random

import numpy as np
import pyarrow as pa
import pytest
from helpers import METRICS

from multimodal_metrics.resources.wordnet import load_wordnet
from multimodal_metrics.vqa_acc import arrow, bleu, core, tdiuc, wups

WORDS = ["yes", "Yes", "yes!", "2", "two", "red", "dark-red", "a dog", "dog", "ёж", "  yes ", "", "chair, table",
         "table", "U.S.A.", "usa", "100,978", "cat\n", "😀 emoji"]  # fmt: skip


def _inputs(preset: str, n: int = 48, seed: int = 5) -> dict:
    """Per-question inputs of `preset`, with repeated strings, unanimous and mixed answer sets."""
    rng = random.Random(seed)
    preds = [rng.choice(WORDS) for _ in range(n)]
    if preset == "vqa_v2":
        refs = []
        for i in range(n):
            pool = [rng.choice(WORDS)] if i % 3 == 0 else rng.sample(WORDS, 3)
            refs.append([rng.choice(pool) for _ in range(10)])
        return {
            "predictions": preds,
            "references": refs,
            "question_types": [rng.choice(["what color", "how many", ""]) for _ in range(n)],
            "answer_types": [rng.choice(["other", "number", "yes/no"]) for _ in range(n)],
        }
    if preset == "tdiuc":
        return {
            "predictions": preds,
            "references": [rng.choice(WORDS) for _ in range(n)],
            "question_types": [rng.choice(["color", "counting", "absurd"]) for _ in range(n)],
        }
    refs = [
        rng.choice(WORDS) if rng.random() < 0.3 else rng.sample(WORDS, rng.randint(1, 3)) for _ in range(n)
    ]
    out = {"predictions": preds, "references": refs}
    if preset == "fusion_brain_2021":
        out["languages"] = [rng.choice(["en", "en", "ru"]) for _ in range(n)]
    return out


def _lists(refs) -> list[list[str]]:
    return [[r] if isinstance(r, str) else list(r) for r in refs]


def _pure(preset: str, inputs: dict) -> tuple[list[float], dict]:
    """Per-question scores and breakdowns from the pure functions on Python lists (the oracle)."""
    preds, refs = inputs["predictions"], _lists(inputs["references"])
    groups = {}
    if preset == "vqa_v2":
        scores = core.vqa_v2_per_question(preds, refs)
        for kind in ("question_type", "answer_type"):
            labels = np.array(inputs[f"{kind}s"], dtype=object)
            for t in sorted({t for t in inputs[f"{kind}s"] if t}):
                groups[f"accuracy_{kind}/{t}"] = float(scores[labels == t].mean())  # the former group_means
    elif preset == "fusion_brain_2021":
        scores = core.fusion_brain_per_question(preds, refs, inputs["languages"])
    elif preset == "tdiuc":
        summary, scores, acc, _ = tdiuc.tdiuc_scores(preds, [r[0] for r in refs], inputs["question_types"])
        groups = {**summary, **{f"accuracy_question_type/{t}": v for t, v in acc.items()}}
    elif preset == "wups":
        scores = wups.wups_per_question(preds, refs, wordnet=load_wordnet())
    else:
        scores = bleu.bleu1_scores(preds, refs)[0]
    return scores.tolist(), groups


def _load(preset, **kwargs):
    import evaluate

    return evaluate.load(str(METRICS / "vqa_acc"), preset, **kwargs)


def _part(inputs: dict, part: slice) -> dict:
    return {k: v[part] for k, v in inputs.items()}


@pytest.mark.parametrize("preset", ["vqa_v2", "fusion_brain_2021", "tdiuc", "wups", "bleu1"])
def test_every_path_gives_the_pure_numbers(preset, tmp_path):
    inputs = _inputs(preset)
    per_question, groups = _pure(preset, inputs)
    metric = _load(preset, cache_dir=str(tmp_path))
    whole = metric.compute(**inputs, return_per_example=True)
    assert whole["per_example"] == per_question
    for key, value in groups.items():
        assert whole[key] == value, key
    n = len(inputs["predictions"])
    for cuts in ((1,), (17, 30), (n - 1,)):
        bounds = [0, *cuts, n]
        for a, b in zip(bounds, bounds[1:]):
            metric.add_batch(**_part(inputs, slice(a, b)))
        assert metric.compute(return_per_example=True) == whole, cuts
    for i in range(n):
        extras = {k: v[i] for k, v in inputs.items() if k not in ("predictions", "references")}
        metric.add(prediction=inputs["predictions"][i], reference=inputs["references"][i], **extras)
    assert metric.compute(return_per_example=True) == whole
    in_memory = _load(preset, keep_in_memory=True)
    assert in_memory.compute(**inputs, return_per_example=True) == whole


def test_slow_path_inputs_give_the_same_numbers():
    """Tuples, numpy arrays, single strings and str subclasses (checked one by one) equal plain lists."""
    inputs = _inputs("vqa_v2", n=12)
    metric = _load("vqa_v2")
    whole = metric.compute(**inputs, return_per_example=True)
    refs = inputs["references"]
    variants = [
        [tuple(r) for r in refs],
        [np.array(r) for r in refs],
        tuple(refs),
        [[np.str_(a) for a in r] for r in refs],
    ]
    for variant in variants:
        assert metric.compute(**{**inputs, "references": variant}, return_per_example=True) == whole
    single = metric.compute(predictions=["yes", "no"], references=["yes", ["no", "no"]], num_answers=0,
                            return_per_example=True)  # fmt: skip
    assert single["per_example"] == core.vqa_v2_per_question(["yes", "no"], [["yes"], ["no", "no"]]).tolist()


@pytest.mark.parametrize(
    "bad, error, message",
    [
        (b"yes", TypeError, r"`references\[1\]\[2\]` must be a string.*bytes"),
        (None, TypeError, r"`references\[1\]\[2\]` must be a string.*None"),
        (3, TypeError, r"`references\[1\]\[2\]` must be a string.*int"),
        (float("nan"), TypeError, r"`references\[1\]\[2\]` must be a string.*float"),
        ("a\ud800", ValueError, r"`references\[1\]\[2\]` is not valid Unicode text"),
    ],
)
def test_bad_answers_are_named(bad, error, message, tmp_path):
    refs = [["yes"] * 10, ["yes"] * 2 + [bad] + ["yes"] * 7]
    metric = _load("vqa_v2", cache_dir=str(tmp_path))
    with pytest.raises(error, match=message):
        metric.compute(predictions=["yes", "no"], references=refs)
    assert (
        metric.compute(predictions=["yes"], references=[["yes"] * 10])["accuracy"] == 1.0
    )  # nothing left over


# ------------------------------------------------------------------------------------------------
# multimodal_metrics.vqa_acc.arrow on its own
# ------------------------------------------------------------------------------------------------
def test_readers_on_chunked_and_sliced_columns():
    lists = [["a", "b"], ["c"], ["a", "a", "d"], ["b"], ["e", "a"]]
    array = pa.array(lists, type=pa.list_(pa.string()))
    column = pa.chunked_array([array.slice(1, 2), array.slice(3), array.slice(0, 1)])  # sliced chunks
    order = [1, 2, 3, 4, 0]
    counts, flat = arrow.answer_lists(column)
    assert counts.tolist() == [len(lists[i]) for i in order]
    assert flat.to_pylist() == [a for i in order for a in lists[i]]
    counts, flat = arrow.answer_lists(pa.chunked_array([pa.array(["x", "y"]), pa.array(["z"])]))
    assert counts.tolist() == [1, 1, 1] and flat.to_pylist() == ["x", "y", "z"]
    counts, flat = arrow.answer_lists(["x", ("y", "z")])  # Python input (direct calls)
    assert counts.tolist() == [1, 2] and flat.to_pylist() == ["x", "y", "z"]
    preds = pa.chunked_array([pa.array(["c", "q"]), pa.array(["a"])])
    (pred_ids, gt_ids), strings = arrow.string_ids(preds, flat)
    assert [strings[i] for i in pred_ids] == ["c", "q", "a"]
    assert [strings[i] for i in gt_ids] == ["x", "y", "z"]
    assert len(set(strings)) == len(strings)
    (ids,), strings = arrow.string_ids(pa.chunked_array([], type=pa.string()))
    assert len(ids) == 0 and strings == []


def test_scores_from_ids_allow_repeated_strings():
    rng = random.Random(2)
    preds = [rng.choice(WORDS) for _ in range(200)]
    refs = [[rng.choice(WORDS[:6]) for _ in range(rng.choice([3, 10]))] for _ in range(200)]
    expected = core.vqa_v2_per_question(preds, refs).tolist()
    strings = WORDS + WORDS  # every string twice: ids of the second copy for the answers
    counts = np.array([len(r) for r in refs])
    gt_ids = np.array([WORDS.index(a) + len(WORDS) for r in refs for a in r])
    pred_ids = np.array([WORDS.index(p) for p in preds])
    for normalize in core.NORMALIZE_MODES:
        got = core.vqa_v2_scores_from_ids(pred_ids, gt_ids, counts, strings, normalize)
        assert got.tolist() == core.vqa_v2_per_question(preds, refs, normalize).tolist()
    assert core.vqa_v2_scores_from_ids(pred_ids, gt_ids, counts, strings).tolist() == expected


def test_group_means_equal_the_masked_means():
    rng = np.random.default_rng(0)
    scores = rng.random(5000)
    for n_labels in (1, 3, 2000):
        labels = [f"t{k}" if k else "" for k in rng.integers(n_labels + 1, size=5000)]
        mask = np.array(labels, dtype=object)
        expected = {t: float(scores[mask == t].mean()) for t in sorted(set(labels) - {""})}
        assert core.group_means(scores, labels) == expected


@pytest.mark.parametrize("seed", range(6))
def test_tdiuc_counts_equal_kafle_script(seed):
    """The counting on ids equals the transcription of Kafle's script (per-type accuracies exactly; the
    normalised sums up to the last bit: the script adds them in set order), with and without key."""

    from oracles import vqa as oracle

    rng = random.Random(seed)
    words = [f"w{k}" for k in range(rng.randint(1, 40))]
    key = rng.sample(words, max(1, len(words) * 3 // 4))
    n = rng.randint(1, 500)
    gts = [rng.choice(words) for _ in range(n)]
    preds = [g if g in key and rng.random() < 0.5 else rng.choice(key) for g in gts]
    types = [rng.choice(["color", "counting", "absurd", "sport"]) for _ in range(n)]
    expected = oracle.kafle_tdiuc(preds, gts, types, {a: k for k, a in enumerate(key)})
    summary, correct, acc, _ = tdiuc.tdiuc_scores(preds, gts, types, answer_key=key)
    for name, value in expected.items():
        assert summary[name] == pytest.approx(min(value / 100, 1.0), abs=1e-12), name
    assert correct.tolist() == [float(g in key and p == g) for p, g in zip(preds, gts)]
    for t in set(types):
        rows = [i for i, u in enumerate(types) if u == t]
        assert acc[t] == 100 * (sum(correct[i] == 1.0 for i in rows) / len(rows)) / 100
