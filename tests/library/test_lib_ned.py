"""The library's ned without evaluate: score, Result, compare, the option table."""

import numpy as np
import pytest

from multimodal_metrics import ned


def test_score_seed_vectors():
    # seeds_reference.md 6.3 (AIJ 2022 TRitW), the doctest of the evaluate module
    r = ned.score(["хоп", "abce", "abc"], [["хор"], ["abcd", "abce"], ["ABC"]], return_per_example=True)
    assert (round(r["one_minus_ned"], 4), round(r["string_accuracy"], 4), round(r["cer"], 4)) == (
        0.5556,
        0.3333,
        0.4,
    )
    assert r.signature == "ned|preset:default|case:none|fw2hw:no|empty:0|v:0.1.0"
    assert r.per_example == r["per_example"] and r.per_example[1] == {
        "one_minus_ned": 1.0,
        "string_accuracy": 1.0,
        "cer": 0.0,
    }
    assert list(r) == ["one_minus_ned", "string_accuracy", "cer", "signature", "per_example"]
    assert ned.score(["abc"], ["ABC"], case_fold="latin")["one_minus_ned"] == 1.0
    assert (
        ned.score([""], [""])["one_minus_ned"] == 0.0
    )  # N5: the official AIJ 2022 scores two empty strings 0
    assert ned.score([""], [""], preset="empty_match")["one_minus_ned"] == 1.0
    r = ned.score(["ＡＢＣ", "Хор"], ["abc", "хор"], preset="icdar2019")
    assert r.signature == "ned|preset:icdar2019|case:latin|fw2hw:yes|empty:1|v:0.1.0"
    assert r["one_minus_ned"] == pytest.approx((1.0 + 2 / 3) / 2)


def test_per_example_made_when_asked_for():
    """Without return_per_example the per-example dicts are made on first use of ``r.per_example``: the same
    values as when asked for. References as plain strings and as lists (checked column by column) give the
    same result."""
    preds, refs = ["хоп", "abce", "abc", ""], [["хор"], ["abcd", "abce"], ["ABC"], ["x"]]
    asked = ned.score(preds, refs, return_per_example=True)
    lazy = ned.score(preds, refs)
    assert "per_example" not in lazy and type(lazy._per_example) is not list
    assert (
        lazy.per_example == asked.per_example == asked["per_example"] and lazy.per_example is lazy.per_example
    )
    assert (
        ned.score(preds, [r[-1] for r in refs]).to_dict()
        == ned.score(preds, [r[-1:] for r in refs]).to_dict()
    )


def test_result_forms():
    r = ned.score(["Hello", "World", "!"], ["Hello", "world", "!"], confidence=0.9, n_resamples=200)
    assert r["string_accuracy"] == pytest.approx(2 / 3, abs=1e-15)
    assert list(r)[:9] == [
        "one_minus_ned", "string_accuracy", "cer",
        "one_minus_ned_ci_low", "one_minus_ned_ci_high", "string_accuracy_ci_low", "string_accuracy_ci_high",
        "cer_ci_low", "cer_ci_high",
    ]  # fmt: skip
    assert r.signature.endswith("|ci:bs-pct|conf:0.9|bs:200|seed:12345|v:0.1.0")
    assert type(r.to_dict()) is dict and "per_example" not in r and len(r.per_example) == 3
    assert set(r.for_trainer()) == {f"ned_{k}" for k in r if k != "signature"}
    assert r.for_trainer("val")["val_cer"] == r["cer"]
    assert r.statistic.keys == ("one_minus_ned", "string_accuracy", "cer")
    assert np.allclose(r.statistic.value(), [r["one_minus_ned"], r["string_accuracy"], r["cer"]])


def test_compare():
    out = ned.compare(
        ["abc", "xyz"], ["abd", "xyz"], ["abc", "xyz"], test="paired_bootstrap", n_resamples=100
    )
    assert out["one_minus_ned_a"] == 1.0 and out["one_minus_ned_b"] == pytest.approx(5 / 6)
    assert out["cer_a"] == 0.0 and "cer_p_value" in out and "test:paired-bs|n:100" in out["signature"]
    with pytest.raises(ValueError, match="predictions_b"):
        ned.compare(["a"], None, ["a"])


def test_option_table_drives_the_checks():
    assert ned.OPTIONS.names == ["case_fold", "fullwidth_to_halfwidth", "both_empty", "cer_strip"]
    assert set(ned.PRESETS) == {"default", "icdar2019", "empty_match"}
    with pytest.raises(ValueError, match="`case_fold` must be one of"):
        ned.score(["a"], ["a"], case_fold="upper")
    with pytest.raises(ValueError, match=r"`both_empty` must be one of \[0.0, 1.0\], got 0.5"):
        ned.score(["a"], ["a"], both_empty=0.5)
    with pytest.raises(TypeError, match="`both_empty` must be a number"):
        ned.score(["a"], ["a"], both_empty="1")
    assert ned.score([""], [""], both_empty=1)["one_minus_ned"] == 1.0  # an int is a number
    with pytest.raises(TypeError, match="`fullwidth_to_halfwidth` must be True or False"):
        ned.score(["a"], ["a"], fullwidth_to_halfwidth=1)
    with pytest.raises(ValueError, match="unknown option 'casefold'"):
        ned.score(["a"], ["a"], casefold="none")
    with pytest.raises(ValueError, match="unknown preset"):
        ned.score(["a"], ["a"], preset="fbc2022")
    with pytest.raises(ValueError, match="`predictions` has 2 examples but `references` has 1"):
        ned.score(["a", "b"], ["a"])
    with pytest.raises(ValueError, match=r"`references\[0\]` is an empty list"):
        ned.score(["a"], [[]])
    # options before resampling before inputs, as compute checks them
    with pytest.raises(ValueError, match="`case_fold`"):
        ned.score(None, ["a"], case_fold="upper", confidence=2.0)
    with pytest.raises(ValueError, match="`confidence`"):
        ned.score(None, ["a"], confidence=2.0)
    assert "both_empty (`float`, optional)" in ned.OPTIONS.describe()


def test_one_reference_per_example_equals_the_general_path():
    """With one reference per example the chosen reference is that one: the same per-example values as
    the same reference given twice (the path that picks the first best one)."""
    import random

    rng = random.Random(3)
    preds = ["".join(rng.choice("abcАБ ") for _ in range(rng.randint(0, 12))) for _ in range(300)]
    refs = ["".join(rng.choice("abcАБ ") for _ in range(rng.randint(0, 12))) for _ in range(300)]
    for preset in ned.PRESETS:
        for cer_strip in (False, True):
            one = ned.core.ned_per_example(
                preds, [[r] for r in refs], **{**ned.PRESETS[preset], "cer_strip": cer_strip}
            )
            two = ned.core.ned_per_example(
                preds, [[r, r] for r in refs], **{**ned.PRESETS[preset], "cer_strip": cer_strip}
            )
            assert {k: v.tolist() for k, v in one.items()} == {k: v.tolist() for k, v in two.items()}
