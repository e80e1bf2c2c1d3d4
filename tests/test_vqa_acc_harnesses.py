"""vqa_acc presets ``lmms_eval`` and ``vlmevalkit``: equal, question by question and bit for
bit, to those harnesses' own scoring code (transcribed in ``oracles/vqa.py``) on generated inputs."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.vqa import lmms_eval_vqav2, vlmevalkit_vqa_score

from multimodal_metrics.vqa_acc import core, scoring

# Pieces that hit every rule the processors differ on: repeated / single digit commas, non-ASCII digits
# (Arabic-Indic, Devanagari, full-width), periods after / before digits, more than 32 periods, the
# punctuation marks next to spaces, number words, articles, contractions, case, \n \t and Unicode spaces.
PIECES = [
    "1,,2", "1,2", "12", "1 2", "٣,٣", "٣٣", "١٢", "१,२", "１,２", "1.", "1", ".5", "2.5", "2.50", "Two.", "two",
    "2", "10", "ten", "None", "0", "a", "the", "An", "dog", "Dog", "dogs", "(x)", "x", "x)", "dont", "don't",
    "Im", "yall'll", "y'all'll", "yes", "Yes!", "no?", "-", ",", ".", ". ", "...", "." * 40, "a.b", "e.g.",
    "\n", "\t", " ", "  ", "\u180e", "\u00a0", "\u2003", "İ", "ǰ", "Ꭰ", "ꭰ", "@", "<b>", "x_y", "c/d", "'",
]  # fmt: skip


def _answer(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) + rng.choice(["", " ", "", ","]) for _ in range(rng.randint(0, 4)))


def _cases(n: int, seed: int, size=10):
    """``n`` questions: a prediction and ``size`` answers drawn so that matches are frequent (answers are
    often copies or near-copies of the prediction, as real annotations are)."""
    rng = random.Random(seed)
    preds, refs = [], []
    for _ in range(n):
        pred = _answer(rng)
        variants = [pred, pred.upper(), pred.strip() + ".", pred.replace(",", ""), pred.replace(".", "")]
        k = size if size else rng.randint(1, 12)
        close = rng.randint(0, min(k, 5))  # answers that are the prediction or a variant of it
        answers = [rng.choice(variants) for _ in range(close)] + [_answer(rng) for _ in range(k - close)]
        rng.shuffle(answers)
        refs.append(answers)
        preds.append(pred)
    return preds, refs


@pytest.mark.parametrize(
    "preset, oracle, size", [("lmms_eval", lmms_eval_vqav2, 10), ("vlmevalkit", vlmevalkit_vqa_score, 0)]
)
def test_harness_presets_equal_the_harness_code_on_4000_generated_questions(preset, oracle, size):
    preds, refs = _cases(4000, seed=22, size=size)
    got = scoring.score(preds, refs, preset=preset, return_per_example=True)
    expected = [oracle(p, r) for p, r in zip(preds, refs)]
    assert got.per_example == expected  # bit for bit
    assert 0.1 < got["accuracy"] < 0.9  # the cases are neither all hits nor all misses
    official = core.vqa_v2_per_question(preds, refs, normalize="always").tolist()
    assert sum(a != b for a, b in zip(official, expected)) > 0  # "always" alone would not reproduce it


@pytest.mark.parametrize(
    "prediction, answers, preset, expected, official_always",
    [
        ("1,,2 (x)", ["12 x"] * 5 + ["z"] * 5, "lmms_eval", 1.0, 0.0),  # repeated digit commas
        ("٣,٣", ["٣٣"] * 5 + ["z"] * 5, "lmms_eval", 1.0, 0.0),  # Python 3 \d: Arabic-Indic digits
        ("1.", ["1"] * 10, "vlmevalkit", 0.0, 1.0),  # a period after a digit stays
        ("٣,٣", ["٣٣"] * 10, "vlmevalkit", 1.0, 0.0),
    ],
)
def test_issue_examples(prediction, answers, preset, expected, official_always):
    assert scoring.score([prediction], [answers], preset=preset, num_answers=0)["accuracy"] == expected
    assert core.vqa_v2_per_question([prediction], [answers], normalize="always").tolist() == [official_always]


TEXT = st.lists(
    st.sampled_from(list("ab1٣ .,-!?;/'\"()\n\t") + ["\u180e", "Two", "the ", "dont"]), max_size=10
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, st.lists(TEXT, min_size=1, max_size=12)), min_size=1, max_size=6))
def test_harness_normalize_values_equal_the_oracles(rows):
    preds = [p for p, _ in rows]
    refs = [r for _, r in rows]
    for normalize, oracle in (("lmms_eval", lmms_eval_vqav2), ("vlmevalkit", vlmevalkit_vqa_score)):
        got = core.vqa_v2_per_question(preds, refs, normalize=normalize).tolist()
        assert got == [oracle(p, r) for p, r in zip(preds, refs)]


def test_harness_presets_in_signature_and_option_table():
    result = scoring.score(["a"], [["a"] * 10], preset="lmms_eval")
    assert "norm:lmms_eval" in result["signature"]
    assert {"lmms_eval", "vlmevalkit"} <= set(scoring.OPTIONS.options["normalize"].choices)
    with pytest.raises(ValueError, match="normalize"):
        scoring.score(["a"], [["a"] * 10], normalize="lmms")


@pytest.mark.parametrize("seed", [22, 24])
def test_vlmevalkit_overall_is_the_harness_value(seed):
    """VLMEvalKit reports ``np.mean(hit) * 100`` (vlmeval/dataset/image_vqa.py, ImageVQADataset.evaluate):
    the preset's accuracy x 100 is that number bit for bit (numpy's pairwise sum; on these inputs
    ``sum / len`` differs in the last bits), the per-question scores stay the oracle's."""
    import numpy as np

    preds, refs = _cases(4000, seed=seed, size=0)
    hit = [vlmevalkit_vqa_score(p, r) for p, r in zip(preds, refs)]
    got = scoring.score(preds, refs, preset="vlmevalkit", return_per_example=True)
    assert got.per_example == hit
    assert got["accuracy"] * 100 == np.mean(hit) * 100
    assert sum(hit) / len(hit) * 100 != np.mean(hit) * 100  # the inputs tell the two sums apart
    # the other presets keep their reference's mean (lmms-eval: sum / len)
    assert scoring.score(preds, refs, preset="vqa_v2", num_answers=0)["accuracy"] == sum(
        scoring.score(preds, refs, preset="vqa_v2", num_answers=0, return_per_example=True).per_example
    ) / len(preds)
