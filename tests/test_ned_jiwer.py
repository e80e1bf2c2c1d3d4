"""ned's ``cer`` against its peers on 3,000 generated lines: ``cer_strip=True`` equals jiwer 4.0.0's
default ``cer`` (run in its own venv), per line and over the corpus; the default equals torchmetrics'
``CharErrorRate``, per line and over the corpus."""

import random

import pytest
from oracles.peers import available, run, why_missing

from multimodal_metrics.ned import scoring

needs_jiwer = pytest.mark.skipif(not available("jiwer"), reason=why_missing("jiwer"))

# Leading / trailing whitespace of every kind Python strips (and U+180E / U+200B, which it does not strip),
# Cyrillic, combining marks, CJK, full-width forms, punctuation.
PIECES = [
    " ", "  ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "\u180e", "\u200b", "у", "У", ",", ".", "ab", "AB",
    "e\u0301", "é", "日本", "ｆ", "f", "0", "12", "Ǆ", "ǆ", "-", "'",
]  # fmt: skip


def _lines(n: int, seed: int):
    rng = random.Random(seed)
    refs, hyps = [], []
    for _ in range(n):
        ref = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))
        hyp = list(ref)
        for _ in range(rng.randint(0, 3)):  # a few edits, often at the ends
            k = rng.choice([0, len(hyp), rng.randint(0, len(hyp))])
            op = rng.random()
            if op < 0.4:
                hyp.insert(k, rng.choice(PIECES))
            elif hyp and op < 0.7:
                del hyp[min(k, len(hyp) - 1)]
            elif hyp:
                hyp[min(k, len(hyp) - 1)] = rng.choice(PIECES)
        refs.append(ref)
        hyps.append("".join(hyp))
    return refs, hyps


@needs_jiwer
def test_cer_strip_equals_jiwer_cer_on_3000_generated_lines():
    refs, hyps = _lines(3000, seed=22)
    expected = run("jiwer", [refs, hyps])
    got = scoring.score(hyps, refs, cer_strip=True, return_per_example=True)
    assert [e["cer"] for e in got.per_example] == expected["per_pair"]
    assert got["cer"] == expected["corpus"]
    default = scoring.score(hyps, refs, return_per_example=True)
    assert (
        sum(e["cer"] != j for e, j in zip(default.per_example, expected["per_pair"])) > 0
    )  # strip matters here
    assert default["cer"] != expected["corpus"]
    # the other scores do not depend on the option
    assert (
        got["one_minus_ned"] == default["one_minus_ned"]
        and got["string_accuracy"] == default["string_accuracy"]
    )


def test_default_cer_equals_torchmetrics_char_error_rate_on_3000_generated_lines():
    from torchmetrics.text import CharErrorRate

    refs, hyps = _lines(3000, seed=23)
    nonempty = [k for k, r in enumerate(refs) if r]  # torchmetrics divides by the reference length
    refs, hyps = [refs[k] for k in nonempty], [hyps[k] for k in nonempty]
    got = scoring.score(hyps, refs, return_per_example=True)
    per_line = [float(CharErrorRate()(h, r)) for h, r in zip(hyps, refs)]
    assert [e["cer"] for e in got.per_example] == pytest.approx(per_line, rel=1e-6)  # torchmetrics: float32
    assert got["cer"] == pytest.approx(float(CharErrorRate()(hyps, refs)), rel=1e-6)


def test_issue_example_and_signature():
    stripped = scoring.score(["у, "], ["у,"], cer_strip=True)
    assert stripped["cer"] == 0.0 and scoring.score(["у, "], ["у,"])["cer"] == 0.5
    assert "cer:jiwer" in stripped["signature"]
    assert "cer:jiwer" not in scoring.score(["у, "], ["у,"])["signature"]
    with pytest.raises((TypeError, ValueError), match="cer_strip"):
        scoring.score(["a"], ["a"], cer_strip="yes")
