"""Hostile text: letters without a Unicode name (Tangut) through pymorphy3, the Russian number maps of
the three cores, str subclasses scored like their text through every path, megabyte strings, and WUPS
with its WordNet path."""

import importlib
import time

import numpy as np
import pytest
from helpers import load_metric
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TEXT_METRICS = ("anls", "text_qa", "ru_meteor")
TEXT_OPTIONS = {"anls": {}, "text_qa": {}, "ru_meteor": {"synonyms": "none"}}


def _library(name):
    return importlib.import_module(f"multimodal_metrics.{name}")


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

    from multimodal_metrics.ru_meteor import stemmers as ru_meteor_stemmers
    from multimodal_metrics.ru_meteor import text as ru_meteor_text

    letter = "\U00018d03"  # used by no other test, so the first parse below meets pymorphy3's ValueError
    shapes._latin_letters_cache.pop(letter, None)
    with pytest.raises(ValueError):
        ru_meteor_stemmers.morph_analyzer().parse(letter + "кошки")
    shapes._latin_letters_cache.pop(letter, None)
    assert ru_meteor_text.fb_vqa_normalize(letter + "Кошки!") == letter + "кошка"
    assert ru_meteor_text.fb_vqa_normalize(letter + " мячи") == letter + " мяч"
    assert ru_meteor_text.fb_vqa_normalize("два") == "2" and ru_meteor_stemmers.lemma_of("мячи") == "мяч"
    other = "\U00018d04"  # through evaluate.load as well (its own copy of the core), also fresh
    shapes._latin_letters_cache.pop(other, None)
    m = load_metric("ru_meteor", "vqa")
    r = m.compute(predictions=[other + "кошки"], references=[[other + "кошка"]], synonyms="none")
    assert r["meteor"] == 1.0, r


def test_unnamed_letter_workaround_is_one_source_in_three_cores():
    import inspect
    import re

    from multimodal_metrics.resources import russian
    from multimodal_metrics.ru_meteor import stemmers as ru_meteor_stemmers
    from multimodal_metrics.text_qa import core as text_qa_core
    from multimodal_metrics.vqa_acc import core as vqa_core

    for core in (text_qa_core, vqa_core, ru_meteor_stemmers):
        assert core.first_lemma is russian.first_lemma
        assert not re.search(r"def \w*unnamed", inspect.getsource(core))  # no copy of the workaround


def test_russian_number_maps_of_the_three_cores_agree():
    """Each core transcribes its official script's manualMap_ru (AIJ 2022 TextQA, AIJ 2022 VisualQA,
    AIJ 2021 VQA); they are the same 13 entries, so a change to one must be a deliberate change to all."""
    from multimodal_metrics.ru_meteor import text as ru_meteor_text
    from multimodal_metrics.text_qa import core as text_qa_core
    from multimodal_metrics.vqa_acc import core as vqa_core

    maps = [text_qa_core.NUMBER_WORDS, vqa_core.MANUAL_MAP_RU, ru_meteor_text.RU_NUMBER_WORDS]
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


# ----------------------------------------------------------------------------------------------
# Family 1: a str subclass scores like its plain text, through every path
# ----------------------------------------------------------------------------------------------
class Tricky(str):
    """A str whose methods lie: a metric that calls them scores something else than the text."""

    def lower(self):
        return "zzzz"

    def upper(self):
        return "ZZZZZZZZZZZZZZZZ"

    def strip(self, *args):
        return Tricky("qq")

    def split(self, *args, **kwargs):
        return ["x", "y"]

    def __len__(self):
        return 99

    def __str__(self):
        return "other"

    def __iter__(self):
        return iter("other")

    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0


class Plain(str):
    pass


PAIRS = [("the cat sat", "a cat sat"), ("Hello World", "hello  world"), ("две птицы", "две птицы летают")]


def _scores(name, predictions, references):
    options = TEXT_OPTIONS[name]
    key = {"anls": "anls", "text_qa": "f1", "ru_meteor": "meteor"}[name]
    library = _library(name).score(predictions, references, return_per_example=True, **options)
    metric = load_metric(name)
    computed = metric.compute(
        predictions=predictions, references=references, return_per_example=True, **options
    )
    for p, r in zip(predictions, references):
        metric.add_batch(predictions=[p], references=[r])
    batched = metric.compute(return_per_example=True, **options)
    return [(x[key], x["per_example"]) for x in (library, computed, batched)]


@pytest.mark.parametrize("cls", [Tricky, Plain, np.str_])
@pytest.mark.parametrize("name", TEXT_METRICS)
def test_str_subclass_scores_like_its_text_through_every_path(name, cls):
    preds, refs = [p for p, _ in PAIRS], [r for _, r in PAIRS]
    expected = _scores(name, preds, refs)
    assert _scores(name, [cls(p) for p in preds], [cls(r) for r in refs]) == expected
    assert _scores(name, [cls(p) for p in preds], [[cls(r)] for r in refs]) == expected


@given(st.lists(st.tuples(st.text(max_size=12), st.text(max_size=12)), min_size=1, max_size=4))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_str_subclass_anls_library_equals_plain(pairs):
    pairs = [
        (p, r)
        for p, r in pairs
        if p.encode("utf-8", "surrogatepass") and not any(0xD800 <= ord(c) < 0xE000 for c in p + r)
    ]
    if not pairs:
        return
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    anls = _library("anls")
    plain = anls.score(preds, refs, return_per_example=True)["per_example"]
    assert (
        anls.score([Tricky(p) for p in preds], [Tricky(r) for r in refs], return_per_example=True)[
            "per_example"
        ]
        == plain
    )


def _unrelated(n, seed):
    rng = np.random.default_rng(seed)
    return "".join(rng.choice(list("abcdefghij klmnop"), size=n).tolist())


def test_anls_two_unrelated_megabyte_strings_are_refused_at_once():
    a, b = _unrelated(1_000_000, 1), _unrelated(1_000_000, 2)
    anls = _library("anls")
    start = time.process_time()
    with pytest.raises(
        ValueError, match=r"`predictions\[1\]` and `references\[1\]\[0\]`: [\d,]+ and [\d,]+ characters"
    ):
        anls.score(["a", a], ["a", b])
    with pytest.raises(ValueError, match=r"`predictions\[0\]` and `references\[0\]`"):
        anls.core.pair_similarities([a], [b])
    with pytest.raises(ValueError, match=r"`predictions\[0\]` and `references\[0\]\[1\]`"):
        load_metric("anls").compute(predictions=[a], references=[["x", b]])
    assert time.process_time() - start < 10


def test_anls_long_pair_that_cannot_pass_scores_zero_without_the_distance():
    a, b = _unrelated(1_000_000, 1), _unrelated(300_000, 2)  # s <= 1 - 700,000 / 1,000,000 < 0.5
    start = time.process_time()
    assert _library("anls").score([a, "abc"], [b, "abd"], return_per_example=True)["per_example"][0] == 0.0
    assert time.process_time() - start < 3


def test_anls_megabyte_near_copy_is_still_scored_exactly():
    a = _unrelated(1_000_000, 1)
    b = "x" + a[1:500_000] + "yz" + a[500_001:-1] + "w"  # 4 edits, none in a common prefix or suffix
    start = time.process_time()
    got = _library("anls").core.pair_similarities([a], [b], text_norm="none", length_norm="raw")
    assert got.tolist() == [1.0 - 4 / 1_000_001]
    assert time.process_time() - start < 3
