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


# Strings that exercise every step of the normalisation: each whitespace code point (str.split's),
# leading/trailing/doubled whitespace, case mappings that change the length (İ -> i̇, ß -> SS, ŉ, ǰ),
# the context-sensitive final sigma, combining marks, NUL.
_ALPHABET = list("aBz  .'") + [chr(c) for c in (9, 10, 11, 12, 13, 28, 31, 133, 160, 5760, 8192, 8232, 12288)]
_ALPHABET += list("ßŉİǰﬁΣσςΑ\u0301") + ["\x00"]


def _strings(rng, n, long=False):
    sizes = [rng.choice([rng.randint(0, 8), rng.randint(40, 120) if long else 3]) for _ in range(n)]
    return ["".join(rng.choice(_ALPHABET) for _ in range(k)) for k in sizes]


def test_normalisation_of_a_batch_equals_each_string_alone():
    import random

    from multimodal_metrics.anls import core

    rng = random.Random(5)
    for _ in range(300):
        strings = _strings(rng, rng.randint(0, 6))
        for text_norm in core.TEXT_NORMS:
            assert core._normalize_all(strings, text_norm) == [
                core.normalize_text(s, text_norm) for s in strings
            ]
            for length_norm in core.LENGTH_NORMS:
                normed, lengths, counts = core._prepare(strings, text_norm, length_norm)
                raw = {"raw_upper": [len(s.upper()) for s in strings], "raw": [len(s) for s in strings]}
                raw["normalized_upper"] = [len(s.upper()) for s in normed]
                raw["normalized"] = [len(s) for s in normed]
                assert lengths.tolist() == raw[length_norm] and counts.tolist() == [len(s) for s in normed]


def _plain_anls(pred, answers, threshold, boundary, text_norm, length_norm):
    """One question as the module docstring writes it, pair by pair (the reference of the batch code)."""
    from rapidfuzz.distance import Levenshtein

    from multimodal_metrics.anls import core

    best = 0.0
    for answer in answers:
        a, o = core.normalize_text(pred, text_norm), core.normalize_text(answer, text_norm)
        raw = length_norm.startswith("raw")
        x, y = (pred, answer) if raw else (a, o)
        if length_norm.endswith("upper"):
            x, y = x.upper(), y.upper()
        length = max(len(x), len(y))
        s = 1.0 - Levenshtein.distance(a, o) / length if length else 1.0
        if s >= threshold if boundary == "inclusive" else s > threshold:
            best = max(best, s)
    return best


def test_scores_equal_the_plain_formula_bit_for_bit_short_and_long_pairs():
    """Short pairs whose lengths alone fail the threshold are measured anyway, long ones are skipped:
    both give the formula's scores exactly, under every option."""
    import random

    from multimodal_metrics.anls import core

    rng = random.Random(11)
    for _ in range(60):
        n = rng.randint(1, 5)
        preds = _strings(rng, n, long=True)
        refs = [_strings(rng, rng.randint(1, 3), long=True) for _ in range(n)]
        for text_norm in core.TEXT_NORMS:
            for length_norm in core.LENGTH_NORMS:
                for boundary in core.BOUNDARIES:
                    threshold = rng.choice([0.0, 0.5, 0.8])
                    got = core.anls_per_question(preds, refs, threshold, boundary, text_norm, length_norm)
                    want = [
                        _plain_anls(p, r, threshold, boundary, text_norm, length_norm)
                        for p, r in zip(preds, refs)
                    ]
                    assert got.tolist() == want
