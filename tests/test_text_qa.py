"""text_qa: reference vectors (seeds_reference.md 6.1, 6.2), an official transcription, properties, bad input, demo."""

import pytest
from helpers import check_mean_of_per_example, load_metric, served_compute
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.fb2022_text import official_scores

from multimodal_metrics.text_qa import core

# seeds_reference.md 6.1: AIJ 2022 TextQA F1, one example each
F1_VECTORS = [
    ("F1a", ["на 0,3 секунды"], "На 0.3 секунды", 1.0),
    ("F1b", ["Авиаконструктора Сухого"], "улица Авиаконструктора Сухого", 0.8),
    ("F1c", ["a", "на велосипеде", "a на велосипеде"], "a) на велосипеде", 1.0),
    ("F1d", ["a", "b на лошади"], "ответ: b", 0.5),
    ("F1e", ["cat dog bird"], "cat a b", 0.0),
    ("F1f", ["3 кота"], "три кота", 1.0),
    ("F1g", ["кот"], "", 0.0),
    ("F1h", ["Авиаконструктора Сухого"], "«Авиаконструктора Сухого»", 0.0),
    ("F1i", ["желтый"], "жёлтого", 1.0),
]

# seeds_reference.md 6.2: AIJ 2022 MathQA EM
EM_VECTORS = [
    ("EMa", ["d", "-3", "d -3"], "d", 1.0),
    ("EMb", ["d", "-3", "d -3"], "d) -3", 1.0),
    ("EMc", ["d", "-3", "d -3"], "answer is d", 0.0),
    ("EMd", ["-3"], "3", 0.0),
    ("EMe", ["b"], "the answer is b", 0.0),
]


@pytest.mark.parametrize("preset", ["default", "textqa"])
@pytest.mark.parametrize("vid,golds,pred,score", F1_VECTORS, ids=[v[0] for v in F1_VECTORS])
def test_f1_vectors_default_and_textqa_presets(vid, golds, pred, score, preset):
    r = load_metric("text_qa", preset).compute(predictions=[pred], references=[golds])
    assert list(r)[:2] == ["f1", "signature"]
    assert r["f1"] == pytest.approx(score, abs=1e-9)


@pytest.mark.parametrize("vid,golds,pred,score", EM_VECTORS, ids=[v[0] for v in EM_VECTORS])
def test_em_vectors_mathqa_preset(vid, golds, pred, score):
    r = load_metric("text_qa", "mathqa").compute(predictions=[pred], references=[golds])
    assert list(r)[:2] == ["exact_match", "signature"]
    assert r["exact_match"] == score


def test_normalize_answer_examples():
    assert core.normalize_answer("На 0,3 секунды!") == "на 03 секунда"
    assert core.normalize_answer("Три кошки") == "3 кошка"
    assert core.normalize_answer("d) -3", keep_hyphen=True) == "d -3"
    assert core.normalize_answer("d) -3") == "d 3"
    assert core.get_tokens("") == []
    # number words after lemmatisation: "одного" -> "один" -> "1"; no number map on digits
    assert core.normalize_answer("одного десять") == "1 10"


def test_plain_preset_and_options():
    golds, pred = [["a", "b на лошади"], ["cat dog bird"]], ["ответ: b", "cat a b"]
    plain = load_metric("text_qa", "plain").compute(
        predictions=pred, references=golds, return_per_example=True
    )
    assert plain["per_example"] == pytest.approx([0.4, 1 / 3])
    assert "|fallback:no|" in plain["signature"]
    official = load_metric("text_qa").compute(predictions=pred, references=golds, return_per_example=True)
    assert official["per_example"] == pytest.approx([0.5, 0.0])  # the fallback can lower a score
    em = load_metric("text_qa").compute(
        predictions=["D", "-3"], references=[["d"], ["-3"]], measure="exact_match"
    )
    assert list(em)[0] == "exact_match" and em["exact_match"] == 1.0  # "-" removed on both sides by default
    kept = load_metric("text_qa").compute(predictions=["3"], references=[["-3"]], keep_hyphen=True)
    assert kept["f1"] == 0.0


def test_signature():
    sig = load_metric("text_qa", "mathqa").compute(predictions=["a"], references=["a"])["signature"]
    assert sig.startswith(
        "text_qa|preset:mathqa|measure:exact_match|hyphen:yes|fallback:yes|lemma:pymorphy3-2.0.6/ru-"
    )
    assert sig.endswith("|v:0.1.0")


def test_lemmas_are_cached():
    """A token is lemmatised once (the cache), a string normalised once per call: 20 questions of the same
    strings cost two parses and the two repeats of the first string's token."""
    core.lemmatize.cache_clear()
    core.text_qa_per_example(["кошки кошки кошки"] * 20, [["кошка"]] * 20)
    info = core.lemmatize.cache_info()
    assert info.misses == 2 and info.hits == 2
    core.text_qa_per_example(["кошки кошки кошки"] * 20, [["кошка"]] * 20)
    assert core.lemmatize.cache_info().misses == 2


def test_integers_are_their_own_lemmas_as_pymorphy3_parses_them():
    """The shortcut of ``lemmatize``: no `-?[0-9]+` word is in the installed dictionary, so pymorphy3's
    NumberAnalyzer gives such a token its only parse, whose normal form is the token; the parse says so
    on a sample of integers of every length up to 30 digits."""
    import random

    analyzer = core._analyzer()
    keys = [k for d in "0123456789-" for k in analyzer.dictionary.words.keys(d)]
    assert keys and not [k for k in keys if core._INTEGER.fullmatch(k)]
    rng = random.Random(0)
    tokens = [str(i) for i in range(200)] + ["-0", "-7", "000", "007", "-0012"]
    tokens += [rng.choice(["", "-"]) + str(rng.randrange(10 ** rng.randint(1, 30))) for _ in range(300)]
    for token in tokens:
        assert core._INTEGER.fullmatch(token)
        assert analyzer.parse(token)[0].normal_form == token == core.lemmatize(token)
    assert not core._INTEGER.fullmatch("3-") and not core._INTEGER.fullmatch("--3")


words = st.sampled_from(
    ["кот", "кота", "три", "один", "Один", "a", "b", "e", "-3", "3", "0,3", "d)", "«да»", "x", "!"]
)
answers = st.lists(words, max_size=5).map(" ".join)
examples = st.lists(st.tuples(answers, st.lists(answers, min_size=1, max_size=3)), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(examples, st.booleans())
def test_official_transcription_as_oracle(data, exact):
    preds = [p for p, _ in data]
    refs = [r for _, r in data]
    opts = (
        {"measure": "exact_match", "keep_hyphen": True} if exact else {"measure": "f1", "keep_hyphen": False}
    )
    ours = core.text_qa_per_example(preds, refs, letter_fallback=True, **opts)
    assert ours == pytest.approx(official_scores(preds, refs, exact), abs=1e-12)


# ------------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------------
PRESETS = ["default", "textqa", "mathqa", "plain"]
free_text = st.text(alphabet="абвкотыАБabcdeXY019 ,.-«»!", max_size=14)
free_examples = st.lists(
    st.tuples(free_text, st.lists(free_text, min_size=1, max_size=3)), min_size=1, max_size=8
)


def _preset_options(preset):
    from multimodal_metrics import text_qa

    return text_qa.PRESETS[preset]


@settings(max_examples=60, deadline=None)
@given(free_examples, st.sampled_from(PRESETS))
def test_properties(data, preset):
    preds = [p for p, _ in data]
    refs = [r for _, r in data]
    opts = _preset_options(preset)
    scores = core.text_qa_per_example(preds, refs, **opts)
    assert all(0.0 <= s <= 1.0 for s in scores)
    # identity gives the maximum, whatever the text (empty and punctuation-only answers included)
    assert core.text_qa_per_example(preds, [[p] for p in preds], **opts) == [1.0] * len(preds)
    # order of examples does not change the aggregate
    perm = list(range(len(preds)))[::-1]
    shuffled = core.text_qa([preds[i] for i in perm], [refs[i] for i in perm], **opts)
    assert shuffled == pytest.approx(sum(scores) / len(scores))
    if not opts["letter_fallback"]:  # without the fallback, adding a reference never lowers a score
        more = core.text_qa_per_example(preds, [r + ["x y"] for r in refs], **opts)
        assert all(m >= s for m, s in zip(more, scores))


@settings(max_examples=20, deadline=None)
@given(free_examples)
def test_module_per_example_mean_equals_aggregate(data):
    check_mean_of_per_example("text_qa", "f1", data)


def test_single_and_multi_reference_schemas_agree_and_add_accumulates():
    m = load_metric("text_qa")
    a = m.compute(predictions=["кот", "пёс"], references=["кота", "собака"])
    assert a == m.compute(predictions=["кот", "пёс"], references=[["кота"], ["собака"]])
    assert a["f1"] == 0.5
    m.add_batch(predictions=["три кота", "x"], references=[["3 кот"], "y"])
    m.add(prediction="a", reference=["b", "a"])
    assert m.compute()["f1"] == pytest.approx(2 / 3)


# ------------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options,exc,match",
    [
        (dict(measure="bleu"), ValueError, r"`measure` must be one of"),
        (dict(keep_hyphen="yes"), TypeError, r"`keep_hyphen` must be True or"),
        (dict(letter_fallback=1), TypeError, r"`letter_fallback` must be True"),
    ],
)
def test_bad_input(options, exc, match):
    with pytest.raises(exc, match=match):
        load_metric("text_qa").compute(predictions=["a"], references=["a"], **options)


# ------------------------------------------------------------------------------------------------
# docs, integration: doctests, Trainer, demo
# ------------------------------------------------------------------------------------------------
def test_demo_serves_and_computes():
    with served_compute("text_qa") as compute:
        result = compute("три кота\nответ: b", "3 кота\na | b на лошади", "default")
        assert result["f1"] == pytest.approx(0.75)
        assert result["per_example"] == pytest.approx([1.0, 0.5])
        assert compute("d) -3", "d -3", "mathqa")["exact_match"] == 1.0
        with pytest.raises(Exception, match="`predictions` has 2 examples"):
            compute("a\nb", "a", "default")
