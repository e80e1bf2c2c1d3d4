"""Regression tests of issue 9 (hostile inputs): each case the issue's fuzzer found, at its cause."""

import numpy as np
import pytest
from helpers import load_metric

BOX = [[0, 0, 2, 2]]


# ----------------------------------------------------------------------------------------------
# det_f1
# ----------------------------------------------------------------------------------------------
def _det(pred, ref=None, **options):
    return load_metric("det_f1").compute(predictions=[pred], references=[ref or {"cat": BOX}], **options)


@pytest.mark.parametrize("value", [10**400, -(10**400), 2**1100])
def test_det_f1_integer_beyond_float_range_is_named(value):
    with pytest.raises(
        ValueError, match=r"`predictions\[0\]` class 'cat', box 0: .*beyond the float64 range"
    ):
        _det({"cat": [[value, 0, 1, 1]]})


def test_det_f1_huge_but_finite_integer_is_a_coordinate():
    # 2**64 does not fit numpy's integer types (object array): it is still a number, and scored
    big = [[2**64, 0, 2**64, 2**64]]
    r = _det({"cat": big}, {"cat": big}, return_per_example=True)
    assert r["f1"] == 1.0


def test_det_f1_lone_surrogate_class_name_is_named():
    with pytest.raises(ValueError, match=r"`predictions\[0\]`: class name 'a\\ud800' is not valid Unicode"):
        _det({"a\ud800": [], "cat": BOX})
    with pytest.raises(ValueError, match=r"`references\[0\]`: class name"):
        _det({"cat": BOX}, {"classes": ["\udfff"], "boxes": [BOX]})


@pytest.mark.parametrize("size", [1e154, 1e200, 1e300, 1e-154, 1e-300, 5e-324 * 2**10])
def test_det_f1_identical_boxes_at_extreme_scales_match(size):
    box = [[0, 0, size, size]]
    assert _det({"cat": box}, {"cat": box})["f1"] == 1.0
    shifted = [[size / 2, 0, size, size]]  # IoU 1/3: a miss at 0.5, a hit at 0.3
    assert _det({"cat": shifted}, {"cat": box})["f1"] == 0.0
    assert _det({"cat": shifted}, {"cat": box}, iou_threshold=0.3)["f1"] == 1.0


def test_det_f1_iou_scaling_is_exact_in_the_usual_range():
    from multimodal_metrics.det_f1 import boxes

    rng = np.random.default_rng(0)
    a = rng.uniform(0, 1000, size=(500, 4))
    b = rng.uniform(0, 1000, size=(500, 4))
    a[:, 2:] += a[:, :2]
    b[:, 2:] += b[:, :2]
    plain = boxes.paired_iou(a, b)
    for power in (600, -600):  # scaled path: the same numbers after an exact power-of-two scaling
        scale = 2.0**power
        assert np.array_equal(boxes.paired_iou(a * scale, b * scale), plain)


def test_det_f1_xywh_corner_beyond_float_range_is_named():
    with pytest.raises(ValueError, match=r"class 'cat', box 0: .*beyond the float64 range"):
        _det({"cat": [[1e308, 0, 1e308, 1]]})


@pytest.mark.parametrize(
    "bad, reason",
    [
        ([float("nan"), 0, 1, 1], "NaN or infinite"),
        ([0, 0, float("inf"), 1], "NaN or infinite"),
        ([0, 0, -1, 1], "negative width"),
    ],
)
def test_det_f1_bad_boxes_in_unrequested_classes_are_refused(bad, reason):
    with pytest.raises(ValueError, match=rf"`predictions\[0\]` class 'dog', box 0: {reason}"):
        _det({"cat": BOX, "dog": [bad]})
    with pytest.raises(ValueError, match=rf"`predictions\[0\]` class 'dog', box 0: {reason}"):
        _det({"classes": ["dog", "cat"], "boxes": [[bad], BOX]})
    from multimodal_metrics.det_f1 import core

    with pytest.raises(ValueError, match=rf"`predictions\[0\]` class 'dog', box 0: {reason}"):
        core.det_f1([{"cat": BOX, "dog": [bad]}], [{"cat": BOX}])


def test_det_f1_empty_record_is_ambiguous():
    with pytest.raises(ValueError, match=r"`predictions\[0\]` is ambiguous"):
        _det({"classes": [], "boxes": []})
    # a class dict with classes named "classes" and "boxes" that do hold boxes is read as such
    r = _det({"classes": BOX, "boxes": BOX}, {"classes": BOX, "boxes": [[]]}, return_per_example=True)
    assert (r["tp"], r["fp"], r["fn"]) == (1.0, 1.0, 0.0)  # class "boxes" requested with no box: FP


# ----------------------------------------------------------------------------------------------
# Options: strict types
# ----------------------------------------------------------------------------------------------
TEXT = {"predictions": ["ac"], "references": [["ab"]]}


@pytest.mark.parametrize(
    "name, option, value",
    [
        ("anls", "length_norm", np.array(["raw_upper"])),
        ("anls", "length_norm", np.array(["raw_upper", "raw"])),
        ("anls", "boundary", ["strict"]),
        ("anls", "boundary", b"strict"),
        ("text_qa", "measure", np.array(["f1"])),
        ("text_qa", "measure", {"f1"}),
        ("ned", "case_fold", np.array("none")),
        ("ned", "both_empty", np.array([1.0])),
        ("anls", "threshold", np.array([0.5])),
        ("anls", "threshold", 10**400),
        ("anls", "threshold", np.bool_(True)),
        ("codebleu", "lang", np.array(["python"])),
        ("codebleu", "lang", ["python"]),
    ],
)
def test_array_and_container_options_are_refused(name, option, value):
    with pytest.raises((TypeError, ValueError), match=f"`{option}`"):
        load_metric(name).compute(**TEXT, **{option: value})


def test_numpy_string_scalar_option_gives_the_plain_signature():
    r = load_metric("anls").compute(**TEXT, length_norm=np.str_("raw_upper"), boundary=np.str_("inclusive"))
    assert r == load_metric("anls").compute(**TEXT)
    assert "numpy" not in r["signature"] and "[" not in r["signature"]


@pytest.mark.parametrize("path", ["a\x00b", "", b"/tmp", "\ud800", 3])
def test_wups_wordnet_path_is_checked(path):
    with pytest.raises((TypeError, ValueError), match="`wordnet_path`"):
        load_metric("vqa_acc", "wups").compute(predictions=["dog"], references=["cat"], wordnet_path=path)


def test_check_number_overflowing_integer_is_a_value_error():
    from multimodal_metrics import options as common

    with pytest.raises(ValueError, match="`x` must be a number"):
        common.check_number(10**400, "x", 0, 1)
    with pytest.raises(ValueError, match="`x` must be one of"):
        common.check_choice("z" * 10**6, ["a"], "x")
    assert len(str(pytest.raises(ValueError, common.check_choice, "z" * 10**6, ["a"], "x").value)) < 300


# ----------------------------------------------------------------------------------------------
# Letters without a Unicode name (Tangut) through pymorphy3
# ----------------------------------------------------------------------------------------------
TANGUT = [
    "\U00017d3b",
    "\U00017000",
    "\U000187f7",
    "\U00018d00",
    "a\U00017d3bб",
    "\U00017d3b\U00017d3c ответ",
]


@pytest.mark.parametrize("preset", ["default", "textqa", "mathqa", "plain"])
def test_text_qa_tangut_letters_are_text(preset):
    m = load_metric("text_qa", preset)
    r = m.compute(predictions=TANGUT, references=[[t] for t in TANGUT], return_per_example=True)
    assert r["per_example"] == [1.0] * len(TANGUT)
    assert m.compute(predictions=["\U00017d3b"], references=["a"])[r and list(r)[0]] == 0.0


def test_vqa_fusion_brain_ru_tangut_letters_are_text():
    m = load_metric("vqa_acc", "fusion_brain_2021")
    n = len(TANGUT)
    r = m.compute(predictions=TANGUT, references=TANGUT, languages=["ru"] * n, return_per_example=True)
    assert r["per_example"] == [1.0] * n


def test_unnamed_letters_do_not_change_other_lemmas():
    from multimodal_metrics.text_qa import core

    words = ["Пять", "яблоки", "answer", "x-ray", "ёлки"]
    before = [core.normalize_answer(w) for w in words]
    core.normalize_answer("\U00017d3b")
    assert [core.normalize_answer(w) for w in words] == before == ["5", "яблоко", "answer", "xray", "ёлка"]


def test_ru_meteor_fb_vqa_parses_unnamed_letters_as_non_latin():
    """Before the fix ru_meteor kept such text whole (no lemma): `<tangut>кошки` stayed `<tangut>кошки`."""
    from pymorphy3 import shapes

    from multimodal_metrics.ru_meteor import core

    letter = "\U00018d03"  # used by no other test, so the first parse below meets pymorphy3's ValueError
    shapes._latin_letters_cache.pop(letter, None)
    with pytest.raises(ValueError):
        core._morph().parse(letter + "кошки")
    shapes._latin_letters_cache.pop(letter, None)
    assert core.fb_vqa_normalize(letter + "Кошки!") == letter + "кошка"
    assert core.fb_vqa_normalize(letter + " мячи") == letter + " мяч"
    assert core.fb_vqa_normalize("два") == "2" and core.lemma_of("мячи") == "мяч"
    other = "\U00018d04"  # through evaluate.load as well (its own copy of the core), also fresh
    shapes._latin_letters_cache.pop(other, None)
    m = load_metric("ru_meteor", "vqa")
    r = m.compute(predictions=[other + "кошки"], references=[[other + "кошка"]], synonyms="none")
    assert r["meteor"] == 1.0, r


def test_unnamed_letter_workaround_is_one_source_in_three_cores():
    import inspect
    import re

    from multimodal_metrics.resources import russian
    from multimodal_metrics.ru_meteor import core as ru_meteor_core
    from multimodal_metrics.text_qa import core as text_qa_core
    from multimodal_metrics.vqa_acc import core as vqa_core

    for core in (text_qa_core, vqa_core, ru_meteor_core):
        assert core.first_lemma is russian.first_lemma
        assert not re.search(r"def \w*unnamed", inspect.getsource(core))  # no copy of the workaround


def test_russian_number_maps_of_the_three_cores_agree():
    """Each core transcribes its official script's manualMap_ru (AIJ 2022 TextQA, AIJ 2022 VisualQA,
    AIJ 2021 VQA); they are the same 13 entries, so a change to one must be a deliberate change to all."""
    from multimodal_metrics.ru_meteor import core as ru_meteor_core
    from multimodal_metrics.text_qa import core as text_qa_core
    from multimodal_metrics.vqa_acc import core as vqa_core

    maps = [text_qa_core.NUMBER_WORDS, vqa_core.MANUAL_MAP_RU, ru_meteor_core.RU_NUMBER_WORDS]
    assert all(list(m.items()) == list(maps[0].items()) for m in maps) and len(maps[0]) == 13
    assert maps[0]["нисколько"] == "0" and maps[0]["десять"] == "10"


# ----------------------------------------------------------------------------------------------
# wups: wordnet_path does not leak into NLTK's data path; distinct-pair scoring equals the reference
# ----------------------------------------------------------------------------------------------
def test_wups_wordnet_path_does_not_stay_on_nltk_data_path(root):
    import nltk

    before = list(nltk.data.path)
    path = str(root / ".build" / "nltk_data")
    m = load_metric("vqa_acc", "wups")
    r = m.compute(predictions=["dog"], references=["cat"], wordnet_path=path)
    assert 0 < r["wups"] < 1 and "|wn:3.0|" in r["signature"]
    assert nltk.data.path == before


def _reference_score(gt, pred, measure):
    """score_it of calculate_wups.py, transcribed (every item pair, in order)."""
    A, T = [x.strip() for x in gt.split(",")], [x.strip() for x in pred.split(",")]

    def member(x, S):
        return max(measure(x, s) for s in S) if S else 0

    return float(min(np.prod([member(a, T) for a in A]), np.prod([member(t, A) for t in T])))


def test_wups_distinct_pair_scoring_equals_the_reference():
    import random

    from multimodal_metrics.resources.wordnet import load_wordnet
    from multimodal_metrics.vqa_acc import wups

    wordnet = load_wordnet()
    rng = random.Random(0)
    words = ["dog", "cat", "chair", "table", "xyzzy", "animal", "Dog", "red", "car"]
    for _ in range(150):
        gt = ", ".join(rng.choice(words) for _ in range(rng.randint(1, 5)))
        pred = ",".join(rng.choice(words) for _ in range(rng.randint(1, 5)))
        for thr in (0.9, 0.0, -1):
            measure = lambda a, b, thr=thr: wups.wup_measure(a, b, thr, wordnet)  # noqa: E731
            assert wups.wups_score(gt, pred, thr, wordnet) == _reference_score(gt, pred, measure), (
                gt,
                pred,
                thr,
            )


def test_det_f1_pairs_in_chunks_give_the_same_counts(monkeypatch):
    from multimodal_metrics.det_f1 import core
    from multimodal_metrics.det_f1 import matching as det_matching

    rng = np.random.default_rng(1)
    preds, refs = [], []
    for _ in range(5):
        g = rng.uniform(0, 50, (30, 4))
        p = np.concatenate([g[:20] + rng.normal(0, 1, (20, 4)), rng.uniform(0, 50, (15, 4))])
        refs.append({"a": np.abs(g).tolist(), "b": np.abs(g[:7]).tolist()})
        preds.append({"a": np.abs(p).tolist(), "b": np.abs(p[:9]).tolist()})
    for matching in ("any", "one_to_one"):
        whole = core.count_per_image(preds, refs, matching=matching)
        monkeypatch.setattr(
            det_matching, "PAIR_CHUNK", 37
        )  # read there (core has a copy); borders inside groups
        assert np.array_equal(core.count_per_image(preds, refs, matching=matching), whole)
        monkeypatch.undo()
