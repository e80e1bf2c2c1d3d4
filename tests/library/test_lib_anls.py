"""The library's anls without evaluate: score, Result, compare, the option table."""

import pytest

from multimodal_metrics import anls


def test_score_seed_vectors():
    r = anls.score(["hello world", "ac", "xyz"], [["Hello World"], ["ab"], ["abc"]], return_per_example=True)
    assert r["anls"] == 0.5 and r.per_example == [1.0, 0.5, 0.0] == r["per_example"]
    assert r.signature == "anls|preset:default|thr:0.5|bound:inclusive|norm:ws+lower|len:raw_upper|v:0.1.0"
    assert anls.score(["ac"], ["ab"], boundary="strict")["anls"] == 0.0
    assert anls.score(["ac"], ["ab"], preset="stvqa")["anls"] == 0.0


def test_result_forms():
    r = anls.score(["a", "b", "c", "d"], ["a", "b", "c", "x"], confidence=0.9)
    assert (r["anls"], r["anls_ci_low"], r["anls_ci_high"]) == (0.75, 0.25, 1.0)
    assert type(r.to_dict()) is dict and "per_example" not in r and r.per_example == [1.0, 1.0, 1.0, 0.0]
    assert r.for_trainer() == {"anls": 0.75, "anls_ci_low": 0.25, "anls_ci_high": 1.0}
    assert r.for_trainer("val") == {"val_anls": 0.75, "val_anls_ci_low": 0.25, "val_anls_ci_high": 1.0}


def test_compare():
    out = anls.compare(["a", "b"], ["a", "c"], ["a", "b"], test="paired_bootstrap", n_resamples=100)
    assert out["anls_a"] == 1.0 and out["anls_b"] == 0.5 and "test:paired-bs|n:100" in out["signature"]
    with pytest.raises(ValueError, match="predictions_b"):
        anls.compare(["a"], None, ["a"])


def test_option_table_drives_the_checks():
    assert anls.OPTIONS.names == ["threshold", "boundary", "text_norm", "length_norm"]
    assert set(anls.PRESETS) == {"default", "stvqa", "layoutlmv2", "anls_star"}
    with pytest.raises(ValueError, match="`boundary` must be one of"):
        anls.score(["a"], ["a"], boundary="both")
    with pytest.raises(ValueError, match="unknown option 'treshold'"):
        anls.score(["a"], ["a"], treshold=0.4)
    with pytest.raises(ValueError, match="unknown preset"):
        anls.score(["a"], ["a"], preset="docvqa")
    with pytest.raises(ValueError, match="`predictions` has 1 examples but `references` has 2"):
        anls.score(["a"], ["a", "b"])
    assert "threshold (`float`, optional)" in anls.OPTIONS.describe()
