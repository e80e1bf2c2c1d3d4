"""ned: reference vectors (seeds_reference.md 6.3, 6.9 HTR), the nltk oracle, properties, bad input, demo."""

import random

import pytest
from helpers import load_metric, served_compute
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.ned import official_calculate_ned

from multimodal_metrics.ned import core

# seeds_reference.md 6.3: AIJ 2022 TRitW 1-NED, one example each
VECTORS = [
    ("N1", ["хор"], "хор", 1.0),
    ("N2", ["хор"], "хоп", 0.666667),
    ("N3", ["Хор"], "хор", 0.666667),
    ("N4", ["abcd", "abce"], "abce", 1.0),
    ("N5", [""], "", 0.0),
    ("N6", ["ab"], "abcd", 0.5),
    ("N8", ["ABC"], "abc", 0.0),
]


@pytest.mark.parametrize("vid,refs,pred,score", VECTORS, ids=[v[0] for v in VECTORS])
def test_vectors_default_preset_is_official_aij2022(vid, refs, pred, score):
    r = load_metric("ned").compute(predictions=[pred], references=[refs])
    assert r["one_minus_ned"] == pytest.approx(score, abs=1e-6)


def test_vector_n7_mean_over_examples():
    r = load_metric("ned").compute(
        predictions=["abc", "xyw"], references=[["abc"], ["xyz"]], return_per_example=True
    )
    assert r["one_minus_ned"] == pytest.approx(0.833333, abs=1e-6)
    assert [p["one_minus_ned"] for p in r["per_example"]] == pytest.approx([1.0, 2 / 3])
    assert list(r) == ["one_minus_ned", "string_accuracy", "cer", "signature", "per_example"]


def test_vectors_htr_string_accuracy():
    # seeds_reference.md 6.9 (AIJ 2021 HTR)
    m = load_metric("ned")
    r = m.compute(predictions=["Hello", "World", "!"], references=["Hello", "world", "!"])
    assert r["string_accuracy"] == pytest.approx(0.6666666666666666, abs=1e-15)
    assert m.compute(predictions=["a b "], references=["a b"])["string_accuracy"] == 0.0
    # GT {"a", ""} with the second prediction missing (read as "") -> 1.0; 1-NED scores that pair 0
    r = m.compute(predictions=["a", ""], references=["a", ""])
    assert r["string_accuracy"] == 1.0
    assert r["one_minus_ned"] == 0.5


def test_presets_icdar2019_and_empty_match():
    preds = ["abc", "", "ＡＢＣ１", "a\u3000b", "Хор"]
    refs = ["ABC", "", "abc1", "a b", "хор"]
    r = load_metric("ned", "icdar2019").compute(predictions=preds, references=refs, return_per_example=True)
    # Latin folded, full-width = half-width, "" vs "" = 1; Cyrillic is not folded (Latin only)
    assert [p["one_minus_ned"] for p in r["per_example"]] == pytest.approx([1.0, 1.0, 1.0, 1.0, 2 / 3])
    assert r["signature"] == "ned|preset:icdar2019|case:latin|fw2hw:yes|empty:1|v:0.1.0"
    r = load_metric("ned", "empty_match").compute(predictions=preds, references=refs, return_per_example=True)
    assert [p["one_minus_ned"] for p in r["per_example"]] == pytest.approx([0.0, 1.0, 0.0, 2 / 3, 2 / 3])
    assert r["signature"] == "ned|preset:empty_match|case:none|fw2hw:no|empty:1|v:0.1.0"
    r = load_metric("ned").compute(predictions=preds, references=refs, case_fold="all")
    assert r["signature"] == "ned|preset:default|case:all|fw2hw:no|empty:0|v:0.1.0"
    assert r["one_minus_ned"] == pytest.approx((1.0 + 0.0 + 0.0 + 2 / 3 + 1.0) / 5)


def test_one_empty_side_scores_zero_in_every_preset():
    for preset in ("default", "icdar2019", "empty_match"):
        r = load_metric("ned", preset).compute(predictions=["", "abc"], references=["abc", ""])
        assert r["one_minus_ned"] == 0.0


def test_cer_uses_the_reference_chosen_for_ned():
    r = load_metric("ned").compute(
        predictions=["abce", "abc", "xy", "abc"],
        references=[["abcd", "abce"], ["abd", "xbc"], [""], ["a"]],
        return_per_example=True,
    )
    # chosen: "abce" (0 edits, 4 chars), "abd" (first of a tie: 1 edit, 3 chars), "" (2 edits, 0 -> 1), "a" (2, 1)
    assert r["cer"] == pytest.approx((0 + 1 + 2 + 2) / (4 + 3 + 0 + 1))
    assert [p["cer"] for p in r["per_example"]] == pytest.approx([0.0, 1 / 3, 2.0, 2.0])
    assert r["cer"] > 0.5


# Transcription of AIJ 2022 calculate_NED.py (nltk.edit_distance, no normalisation).
_official_calculate_ned = official_calculate_ned


texts = st.text(alphabet="abcAБбх ＡＢ\u3000.", max_size=10)
examples = st.lists(st.tuples(texts, st.lists(texts, min_size=1, max_size=3)), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(examples)
def test_nltk_transcription_of_official_function_as_oracle(data):
    preds = [p for p, _ in data]
    refs = [r for _, r in data]
    ours = core.ned_per_example(preds, refs)["one_minus_ned"].tolist()
    assert ours == pytest.approx(_official_calculate_ned(preds, refs), abs=1e-12)


def _icdar2019_norm(text: str, fullwidth: bool = True, latin: bool = True) -> str:
    """ReCTS's equivalences spelled out per character: full-width U+FF01..U+FF5E -> U+0021..U+007E and the
    ideographic space U+3000 -> " " (``fullwidth``), then Latin A-Z -> a-z (``latin``)."""
    out = []
    for ch in text:
        cp = ord(ch)
        if fullwidth and 0xFF01 <= cp <= 0xFF5E:
            ch = chr(cp - 0xFEE0)
        elif fullwidth and cp == 0x3000:
            ch = " "
        out.append(ch.lower() if latin and "A" <= ch <= "Z" else ch)
    return "".join(out)


def _icdar2019_transcription(
    preds: list[str], refs: list[list[str]], fullwidth: bool = True, latin: bool = True
) -> list[float]:
    """ReCTS rules spelled out per character (:func:`_icdar2019_norm`), "" vs "" = 1."""
    from nltk.metrics.distance import edit_distance

    def norm(text):
        return _icdar2019_norm(text, fullwidth, latin)

    scores = []
    for pred, gts in zip(preds, refs):
        p = norm(pred)
        values = []
        for gt in map(norm, gts):
            if not gt and not p:
                values.append(1.0)
            elif not gt or not p:
                values.append(0.0)
            else:
                values.append(1 - edit_distance(p, gt) / max(len(gt), len(p)))
        scores.append(max(values))
    return scores


@settings(max_examples=100, deadline=None)
@given(examples)
def test_icdar2019_preset_against_a_per_character_transcription(data):
    preds = [p for p, _ in data]
    refs = [r for _, r in data]
    ours = core.ned_per_example(preds, refs, **_preset_options("icdar2019"))["one_minus_ned"].tolist()
    assert ours == pytest.approx(_icdar2019_transcription(preds, refs), abs=1e-12)


# (first, last) code point of every range the ICDAR 2019 options map: the full-width forms (to U+0021..U+007E),
# the ideographic space (to U+0020), the Latin capitals (folded), and where the maps meet, the full-width
# capitals (mapped, then folded) and small letters (mapped).
MAPPED_RANGES = {
    "full-width forms": (0xFF01, 0xFF5E),
    "ideographic space": (0x3000, 0x3000),
    "Latin capitals": (0x41, 0x5A),
    "full-width Latin capitals": (0xFF21, 0xFF3A),
    "full-width Latin small letters": (0xFF41, 0xFF5A),
}


@pytest.mark.parametrize("case_fold", ["latin", "none"])
@pytest.mark.parametrize("fullwidth_to_halfwidth", [True, False])
def test_icdar2019_maps_every_range_from_its_first_to_its_last_code_point(case_fold, fullwidth_to_halfwidth):
    """The first and last code point of every mapped range, and the code point just outside each end, each
    scored against every character one of them may become (itself, its image under each map, the image of
    a map one code point off): 1 - NED and string accuracy equal the per-character transcription of the
    ReCTS rules (a map cut short at U+FF5E, or one that reaches U+FF00 or U+FF5F, scores a pair wrong)."""
    edges = [chr(cp) for first, last in MAPPED_RANGES.values() for cp in (first - 1, first, last, last + 1)]
    targets = set(edges)
    targets |= {
        _icdar2019_norm(ch, fw, latin) for ch in edges for fw in (True, False) for latin in (True, False)
    }
    targets |= {chr(ord(ch) - 0xFEE0) for ch in edges if ord(ch) > 0xFEE0}
    targets = sorted(targets)
    preds = [ch for ch in edges for _ in targets]
    refs = [[t] for _ in edges for t in targets]
    latin = case_fold == "latin"
    per = core.ned_per_example(
        preds, refs, case_fold=case_fold, fullwidth_to_halfwidth=fullwidth_to_halfwidth, both_empty=1.0
    )
    assert per["one_minus_ned"].tolist() == _icdar2019_transcription(
        preds, refs, fullwidth_to_halfwidth, latin
    )
    same = [
        float(
            _icdar2019_norm(p, fullwidth_to_halfwidth, latin)
            == _icdar2019_norm(r[0], fullwidth_to_halfwidth, latin)
        )
        for p, r in zip(preds, refs)
    ]
    assert per["string_accuracy"].tolist() == same
    assert 0.0 < sum(same) < len(same)


def test_random_oracle_through_the_module():
    rng = random.Random(0)
    alphabet = "abcxyz хорХОР"

    def word():
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))

    preds = [word() for _ in range(300)]
    refs = [[word() for _ in range(rng.randint(1, 3))] for _ in range(300)]
    r = load_metric("ned").compute(predictions=preds, references=refs, return_per_example=True)
    assert [p["one_minus_ned"] for p in r["per_example"]] == pytest.approx(
        _official_calculate_ned(preds, refs)
    )
    exact = [float(any(p == g for g in gs)) for p, gs in zip(preds, refs)]
    assert [p["string_accuracy"] for p in r["per_example"]] == exact


# ------------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------------
PRESETS = ["default", "icdar2019", "empty_match"]
nonempty = st.text(alphabet="abcAБбх ＡＢ\u3000.", min_size=1, max_size=10)


def _preset_options(preset):
    from multimodal_metrics import ned

    return ned.PRESETS[preset]


@settings(max_examples=60, deadline=None)
@given(examples, st.sampled_from(PRESETS), st.lists(nonempty, min_size=1, max_size=8))
def test_properties(data, preset, words):
    preds = [p for p, _ in data]
    refs = [r for _, r in data]
    opts = _preset_options(preset)
    per = core.ned_per_example(preds, refs, **opts)
    for key in ("one_minus_ned", "string_accuracy"):
        assert ((per[key] >= 0) & (per[key] <= 1)).all()
    assert (per["edits"] >= 0).all()
    # identity gives the maximum (non-empty strings in every preset; any string with empty_match)
    assert core.ned_per_example(words, [[w] for w in words], **opts)["one_minus_ned"].tolist() == [1.0] * len(
        words
    )
    ident = core.ned_per_example(preds, [[p] for p in preds], **_preset_options("empty_match"))
    assert ident["one_minus_ned"].tolist() == [1.0] * len(preds)
    assert ident["string_accuracy"].tolist() == [1.0] * len(preds)
    # order of examples does not change the aggregate
    perm = list(range(len(preds)))[::-1]
    a = core.ned(preds, refs, **opts)
    b = core.ned([preds[i] for i in perm], [refs[i] for i in perm], **opts)
    assert a == pytest.approx(b)
    # adding a reference never lowers a score (max over references)
    more = core.ned_per_example(preds, [r + [p] for r, p in zip(refs, preds)], **opts)
    assert (more["one_minus_ned"] >= per["one_minus_ned"]).all()


@settings(max_examples=25, deadline=None)
@given(examples)
def test_module_per_example_mean_equals_aggregate(data):
    r = load_metric("ned").compute(
        predictions=[p for p, _ in data], references=[r for _, r in data], return_per_example=True
    )
    n = len(data)
    assert r["one_minus_ned"] == pytest.approx(sum(p["one_minus_ned"] for p in r["per_example"]) / n)
    assert r["string_accuracy"] == pytest.approx(sum(p["string_accuracy"] for p in r["per_example"]) / n)
    assert 0.0 <= r["one_minus_ned"] <= 1.0 and 0.0 <= r["string_accuracy"] <= 1.0 and r["cer"] >= 0.0


def test_single_and_multi_reference_schemas_agree_and_add_accumulates():
    m = load_metric("ned")
    a = m.compute(predictions=["x", "y"], references=["x", "z"])
    assert a == m.compute(predictions=["x", "y"], references=[["x"], ["z"]])
    m.add_batch(predictions=["ab", "b"], references=[["ab"], "c"])
    m.add(prediction="d", reference=["d", "e"])
    assert m.compute()["one_minus_ned"] == pytest.approx(2 / 3)


# ------------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options,exc,match",
    [
        (dict(case_fold="upper"), ValueError, r"`case_fold` must be one of"),
        (dict(both_empty=0.5), ValueError, r"`both_empty` must be one of"),
        (dict(both_empty="1"), TypeError, r"`both_empty` must be a number"),
        (dict(fullwidth_to_halfwidth="yes"), TypeError, r"`fullwidth_to_halfwidth` must be True or False"),
        (dict(fullwidth_to_halfwidth=1), TypeError, r"`fullwidth_to_halfwidth`"),
    ],
)
def test_bad_input(options, exc, match):
    with pytest.raises(exc, match=match):
        load_metric("ned").compute(predictions=["a"], references=["a"], **options)


# ------------------------------------------------------------------------------------------------
# docs, integration: doctests, Trainer, demo
# ------------------------------------------------------------------------------------------------
def test_demo_serves_and_computes():
    with served_compute("ned") as compute:
        result = compute("хоп\nabce", "хор\nabcd | abce", "default")
        assert result["one_minus_ned"] == pytest.approx((2 / 3 + 1.0) / 2)
        assert result["string_accuracy"] == 0.5
        assert len(result["per_example"]) == 2
        assert compute("ABC", "abc", "icdar2019")["one_minus_ned"] == 1.0
        with pytest.raises(Exception, match="`predictions` has 2 examples"):
            compute("a\nb", "a", "default")
