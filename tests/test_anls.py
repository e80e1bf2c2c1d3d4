"""anls: reference vectors (seeds_reference.md 6.14), the PyPI `anls` oracle, properties, bad input, demo."""

import random

import pytest
from helpers import check_mean_of_per_example, load_metric, reference_levenshtein, served_compute
from hypothesis import given, settings
from hypothesis import strategies as st

from multimodal_metrics.anls import core

# (id, references, prediction, official RRC score, seed-004 layoutlmv2 snippet score)
VECTORS = [
    ("D1", ["Hello World"], "hello world", 1.0, 1.0),
    ("D2", ["receipt"], "reciept", 0.714286, 0.714286),
    ("D3", ["ab"], "ac", 0.5, 0.0),
    ("D4", ["abc"], "xyz", 0.0, 0.0),
    ("D5", ["$12.00", "12"], "12.0", 0.666667, 0.666667),
    ("D6", ["new  york"], " new york ", 1.0, 0.7),
    ("D7", [""], "", 1.0, None),  # the snippet raises ZeroDivisionError; we score 1 (documented)
    ("D8", ["abc"], "", 0.0, 0.0),
    ("D9", ["straße"], "strasse", 0.714286, 0.714286),
    ("D10", ["ß"], "s", 0.5, 0.0),
]


@pytest.mark.parametrize("vid,refs,pred,official,snippet", VECTORS, ids=[v[0] for v in VECTORS])
def test_vectors_default_preset_is_official_rrc(vid, refs, pred, official, snippet):
    r = load_metric("anls").compute(predictions=[pred], references=[refs])
    assert r["anls"] == pytest.approx(official, abs=1e-6)


@pytest.mark.parametrize("vid,refs,pred,official,snippet", VECTORS, ids=[v[0] for v in VECTORS])
def test_vectors_layoutlmv2_preset_is_seed_snippet(vid, refs, pred, official, snippet):
    r = load_metric("anls", "layoutlmv2").compute(predictions=[pred], references=[refs])
    assert r["anls"] == pytest.approx(1.0 if snippet is None else snippet, abs=1e-6)


def test_corpus_vector():
    r = load_metric("anls").compute(
        predictions=["ac", "xyz", "hello"], references=[["ab"], ["abc"], ["Hello"]], return_per_example=True
    )
    assert r["anls"] == pytest.approx(0.5)
    assert r["per_example"] == pytest.approx([0.5, 0.0, 1.0])
    assert list(r)[:2] == ["anls", "signature"]


def test_pypi_anls_values_quoted_in_reference():
    # seeds_reference.md 6.14: PyPI anls 0.0.2 gives D3 = 0.0 and D6 = 1.0
    r = load_metric("anls", "stvqa").compute(
        predictions=["ac", " new york "], references=[["ab"], ["new  york"]], return_per_example=True
    )
    assert r["per_example"] == [0.0, 1.0]


def _random_cases(n: int, seed: int = 0):
    rng = random.Random(seed)
    alphabet = "abcAB  ßxyz.-"

    def word():
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))

    preds, refs = [], []
    for _ in range(n):
        base = word()
        preds.append(base if rng.random() < 0.3 else word())
        refs.append([base] + [word() for _ in range(rng.randint(0, 2))])
    return preds, refs


def test_pypi_anls_package_as_oracle():
    from anls import anls_score

    preds, refs = _random_cases(400)
    ours = load_metric("anls", "stvqa").compute(predictions=preds, references=refs, return_per_example=True)
    theirs = [anls_score(p, r, threshold=0.5) for p, r in zip(preds, refs)]
    assert ours["per_example"] == pytest.approx(theirs, abs=1e-12)


def _official_rrc(pred: str, answers: list[str], threshold: float = 0.5) -> float:
    """Transcription of the RRC DocVQA scoring loop (seeds_reference.md section 4), pure Python."""
    values = []
    for ans in answers:
        dist = reference_levenshtein(
            " ".join(ans.strip().lower().split()), " ".join(pred.strip().lower().split())
        )
        length = max(len(ans.upper()), len(pred.upper()))
        values.append(0.0 if length == 0 else dist / length)
    score = 1 - min(values)
    return 0.0 if score < threshold else score


def test_official_transcription_as_oracle():
    preds, refs = _random_cases(400, seed=1)
    ours = core.anls_per_question(preds, refs)
    assert ours.tolist() == pytest.approx([_official_rrc(p, r) for p, r in zip(preds, refs)], abs=1e-12)


def test_threshold_and_boundary_options():
    m = load_metric("anls")
    assert m.compute(predictions=["ac"], references=["ab"], boundary="strict")["anls"] == 0.0
    assert m.compute(predictions=["ac"], references=["ab"], threshold=0.6)["anls"] == 0.0
    assert m.compute(predictions=["ac"], references=["ab"], threshold=0.0)["anls"] == 0.5
    r = m.compute(predictions=[" new york "], references=["new  york"], length_norm="raw", text_norm="lower")
    assert r["anls"] == pytest.approx(0.7)
    assert "thr:0.5|bound:inclusive|norm:lower|len:raw" in r["signature"]


def test_signature_keeps_exact_float_options():
    m = load_metric("anls")
    a = m.compute(predictions=["ac"], references=["ab"], threshold=0.5)
    b = m.compute(predictions=["ac"], references=["ab"], threshold=0.5000001)
    assert a["anls"] != b["anls"] and a["signature"] != b["signature"]
    assert "thr:0.5000001|" in b["signature"]


def test_numpy_scalar_options_are_numbers():
    import numpy as np

    r = load_metric("anls").compute(predictions=["ac"], references=["ab"], threshold=np.float32(0.5))
    assert r["anls"] == 0.5


def test_signature_records_preset_and_options():
    sig = load_metric("anls", "stvqa").compute(predictions=["a"], references=["a"])["signature"]
    assert sig == "anls|preset:stvqa|thr:0.5|bound:strict|norm:ws+lower|len:normalized_upper|v:0.1.0"


def test_single_and_multi_reference_schemas_agree():
    m = load_metric("anls")
    a = m.compute(predictions=["x", "y"], references=["x", "z"])
    b = m.compute(predictions=["x", "y"], references=[["x"], ["z"]])
    assert a == b


def test_add_batch_and_add_accumulate():
    m = load_metric("anls")
    m.add_batch(predictions=["a", "b"], references=[["a"], "c"])
    m.add(prediction="d", reference=["d", "e"])
    assert m.compute()["anls"] == pytest.approx(2 / 3)


# ------------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------------
texts = st.text(alphabet="abcdeABß ./", max_size=12)
examples = st.lists(st.tuples(texts, st.lists(texts, min_size=1, max_size=3)), min_size=1, max_size=15)


@settings(max_examples=60, deadline=None)
@given(examples, st.sampled_from(["default", "stvqa", "layoutlmv2"]))
def test_properties(data, preset):
    preds = [p for p, _ in data]
    refs = [r for _, r in data]
    from_core = core.anls_per_question(preds, refs, **_preset_options(preset))
    assert ((from_core >= 0) & (from_core <= 1)).all()
    # identity scores 1
    assert core.anls_per_question(preds, [[p] for p in preds], **_preset_options(preset)).tolist() == [
        1.0
    ] * len(preds)
    # order of questions does not change the aggregate; per-question mean is the aggregate
    perm = list(range(len(preds)))[::-1]
    shuffled = core.anls_per_question(
        [preds[i] for i in perm], [refs[i] for i in perm], **_preset_options(preset)
    )
    assert shuffled.mean() == pytest.approx(from_core.mean())
    # adding a reference never lowers a score (max over references)
    more = core.anls_per_question(preds, [r + [p] for r, p in zip(refs, preds)], **_preset_options(preset))
    assert (more >= from_core).all()


def _preset_options(preset):

    from multimodal_metrics import anls

    return anls.PRESETS[preset]


@settings(max_examples=25, deadline=None)
@given(examples)
def test_module_per_example_mean_equals_aggregate(data):
    check_mean_of_per_example("anls", "anls", data)


# ------------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options,exc,match",
    [
        (dict(threshold=1.5), ValueError, r"`threshold`"),
        (dict(boundary="open"), ValueError, r"`boundary` must be one of"),
        (dict(text_norm="nfkc"), ValueError, r"`text_norm` must be one of"),
        (dict(length_norm="x"), ValueError, r"`length_norm` must be one of"),
        (dict(threshold=float("inf")), ValueError, r"`threshold`"),
        (dict(return_per_example="no"), TypeError, r"`return_per_example`"),
    ],
)
def test_bad_input(options, exc, match):
    with pytest.raises(exc, match=match):
        load_metric("anls").compute(predictions=["a"], references=["a"], **options)


# ------------------------------------------------------------------------------------------------
# integration: Trainer, demo
# ------------------------------------------------------------------------------------------------
def test_demo_serves_and_computes():
    with served_compute("anls") as compute:
        result = compute("hello world\nac", "Hello World\nab | x", "default", opt_threshold="")
        assert result["anls"] == pytest.approx(0.75)
        assert result["per_example"] == [1.0, 0.5]
        with pytest.raises(Exception, match="`predictions` has 2 examples"):
            compute("a\nb", "a", "default", opt_threshold="")
