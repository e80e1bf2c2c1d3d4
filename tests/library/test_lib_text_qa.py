"""The library's text_qa without evaluate: score, Result, compare, the option table."""

import pytest

from multimodal_metrics import text_qa
from multimodal_metrics.resources import russian


def test_score_seed_vectors():
    # seeds_reference.md 6.1 (AIJ 2022 TextQA F1), the doctest of the evaluate module
    r = text_qa.score(
        ["улица Авиаконструктора Сухого", "три кота", "ответ: b"],
        [["Авиаконструктора Сухого"], ["3 кота"], ["a", "b на лошади"]],
        return_per_example=True,
    )
    assert round(r["f1"], 4) == 0.7667 and r.per_example == pytest.approx([0.8, 1.0, 0.5]) == r["per_example"]
    assert r.signature.split("|")[:5] == [
        "text_qa",
        "preset:default",
        "measure:f1",
        "hyphen:no",
        "fallback:yes",
    ]
    assert "|lemma:pymorphy3-" in r.signature and r.signature.endswith("|v:0.1.0")
    assert text_qa.score(["ответ: b"], [["a", "b на лошади"]], letter_fallback=False)["f1"] == 0.4
    assert text_qa.score(["ответ: b"], [["a", "b на лошади"]], preset="plain")["f1"] == 0.4
    # seeds_reference.md 6.2 (AIJ 2022 MathQA EM)
    em = text_qa.score(["d) -3", "3", "answer is d"], [["d -3"], ["-3"], ["d"]], preset="mathqa")
    assert list(em) == ["exact_match", "signature"] and em["exact_match"] == pytest.approx(1 / 3)
    assert text_qa.score(["на 0.3 секунды"], ["На 0,3 секунды"])["f1"] == 1.0  # a single string per question


def test_result_forms():
    r = text_qa.score(["кот", "пёс", "три"], ["кота", "собака", "3"], confidence=0.9, n_resamples=200)
    assert r["f1"] == pytest.approx(2 / 3) and list(r) == ["f1", "f1_ci_low", "f1_ci_high", "signature"]
    assert r.signature.endswith("|ci:bs-pct|conf:0.9|bs:200|seed:12345|v:0.1.0")
    assert type(r.to_dict()) is dict and "per_example" not in r and r.per_example == [1.0, 0.0, 1.0]
    assert r.for_trainer() == {
        "text_qa_f1": r["f1"],
        "text_qa_f1_ci_low": r["f1_ci_low"],
        "text_qa_f1_ci_high": r["f1_ci_high"],
    }
    assert r.for_trainer("val")["val_f1"] == r["f1"]
    assert r.statistic.keys == ("f1",)


def test_compare():
    out = text_qa.compare(
        ["кот", "три"], ["пёс", "три"], ["кота", "3"], test="paired_bootstrap", n_resamples=100
    )
    assert out["f1_a"] == 1.0 and out["f1_b"] == 0.5 and "test:paired-bs|n:100" in out["signature"]
    out = text_qa.compare(["d"], ["3"], ["d"], preset="mathqa", n_resamples=50)
    assert out["exact_match_a"] == 1.0 and "test:paired-ar|n:50" in out["signature"]
    with pytest.raises(ValueError, match="predictions_b"):
        text_qa.compare(["a"], None, ["a"])


def test_option_table_drives_the_checks():
    assert text_qa.OPTIONS.names == ["measure", "keep_hyphen", "letter_fallback"]
    assert set(text_qa.PRESETS) == {"default", "textqa", "mathqa", "plain"}
    with pytest.raises(ValueError, match="`measure` must be one of"):
        text_qa.score(["a"], ["a"], measure="bleu")
    with pytest.raises(TypeError, match="`keep_hyphen` must be True or False"):
        text_qa.score(["a"], ["a"], keep_hyphen="yes")
    with pytest.raises(TypeError, match="`letter_fallback` must be True or False"):
        text_qa.score(["a"], ["a"], letter_fallback=1)
    with pytest.raises(ValueError, match="unknown option 'fallback'"):
        text_qa.score(["a"], ["a"], fallback=False)
    with pytest.raises(ValueError, match="unknown preset"):
        text_qa.score(["a"], ["a"], preset="squad")
    with pytest.raises(ValueError, match="`predictions` has 1 examples but `references` has 2"):
        text_qa.score(["a"], ["a", "b"])
    with pytest.raises(TypeError, match=r"`references\[1\]\[1\]`"):
        text_qa.score(["a", "b"], ["a", ["b", 2]])
    # return_per_example, options, resampling, then the inputs: compute's order
    with pytest.raises(TypeError, match="`return_per_example`"):
        text_qa.score(None, ["a"], measure="bleu", return_per_example=1)
    with pytest.raises(ValueError, match="`measure`"):
        text_qa.score(None, ["a"], measure="bleu", confidence=2.0)
    with pytest.raises(ValueError, match="`confidence`"):
        text_qa.score(None, ["a"], confidence=2.0)
    assert "letter_fallback (`bool`, optional)" in text_qa.OPTIONS.describe()


def test_russian_resources_are_shared():
    from multimodal_metrics.text_qa import core

    assert (
        core.NUMBER_WORDS is russian.NUMBER_WORDS is text_qa.NUMBER_WORDS and len(russian.NUMBER_WORDS) == 13
    )
    assert core.first_lemma is russian.first_lemma  # with russian.mark_unnamed_letters inside
    assert text_qa.normalize_answer("Три кошки \U00017d3b") == "3 кошка \U00017d3b"
