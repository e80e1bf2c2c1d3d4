"""vqa_acc: reference vectors (seeds_reference.md 6.9-6.13), oracles, properties, bad inputs, Trainer, demo (the command line: test_mm_score.py)."""

import math
import random
import warnings

import numpy as np
import pytest
from helpers import METRICS, ROOT, load_metric, predict_by_name, run_in_trainer, serve_app
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import vqa as oracle

from multimodal_metrics.resources import wordnet
from multimodal_metrics.vqa_acc import bleu, core, tdiuc, wups

# ------------------------------------------------------------------------------------------------
# 6.10 VQA v2 official accuracy (GT-Vision-Lab, Python 2.7): (10 GT answers, prediction, per-question)
# ------------------------------------------------------------------------------------------------
VQA_V2 = oracle.VQA_V2

# processPunctuation -> processDigitArticle examples of 6.10
NORMALISATION = [
    ("a.b", "ab"),
    ("2.", "2"),
    ("3.14", "3.14"),
    ("red, blue", "red blue"),
    ("red,blue", "red blue"),
    ("100,978", "100978"),
    ("e-mail", "e mail"),
    ("well - done", "well done"),
    ("dont", "don't"),
    ("Im", "im"),
    ("the dog", "dog"),
    ("None", "0"),
    ("#1", "#1"),
    ("50%", "50%"),
    ("yes!!", "yes"),
    ("U.S.A.", "usa"),
]


@pytest.mark.parametrize("case", sorted(VQA_V2))
def test_vqa_v2_reference_vectors_pure(case):
    refs, pred, expected = VQA_V2[case]
    assert core.vqa_v2_per_question([pred], [refs]).tolist() == [expected]
    assert oracle.official_scores([pred], [refs]) == [expected]


def test_vqa_v2_reference_vectors_through_evaluate():
    metric = load_metric("vqa_acc", "vqa_v2")
    cases = sorted(VQA_V2)
    r = metric.compute(
        predictions=[VQA_V2[c][1] for c in cases],
        references=[VQA_V2[c][0] for c in cases],
        return_per_example=True,
    )
    assert r["per_example"] == [VQA_V2[c][2] for c in cases]
    assert r["accuracy"] == pytest.approx(np.mean([VQA_V2[c][2] for c in cases]))
    assert list(r)[0] == "accuracy"
    assert r["signature"] == "vqa_acc|preset:vqa_v2|norm:official|answers:10|v:0.1.0"


@pytest.mark.parametrize("text, expected", NORMALISATION)
def test_official_normalisation_examples(text, expected):
    assert core.process_digit_article(core.process_punctuation(text)) == expected
    official = oracle.OfficialVQAEval()
    assert official.processDigitArticle(official.processPunctuation(text)) == expected


def test_normalisation_quirks():
    # the period regex gets re.UNICODE (32) as `count`: only the first 32 periods go
    assert core.process_punctuation("a." * 40) == "a" * 32 + "a." * 8
    # Python 2 `\d` is ASCII (vqa_v2); the AIJ 2021 copy runs on Python 3 (Unicode digits)
    assert core.process_punctuation("1.\u0665", ascii_digits=True) == "1\u0665"
    assert core.process_punctuation("1.\u0665", ascii_digits=False) == "1.\u0665"
    # digit,digit anywhere deletes every handled mark instead of replacing it by a space
    assert core.process_punctuation("a-b 1,2") == "ab 12"
    # apostrophe, colon and # $ % & * ~ ^ | are not handled
    assert core.process_punctuation("it's 1:30 #$%&*~^|") == "it's 1:30 #$%&*~^|"
    # unanimous annotators: nothing is normalised, not even the case
    assert core.vqa_v2_per_question(["Yes"], [["yes"] * 10]).tolist() == [0.0]
    assert core.vqa_v2_per_question(["Yes"], [["yes"] * 10], normalize="always").tolist() == [1.0]
    assert core.vqa_v2_per_question(["2"], [["two"] * 7 + ["2"] * 3], normalize="never").tolist() == [0.9]


def test_vqa_v2_breakdowns():
    metric = load_metric("vqa_acc")
    cases = ["A1", "A3", "A4", "A6"]
    r = metric.compute(
        predictions=[VQA_V2[c][1] for c in cases],
        references=[VQA_V2[c][0] for c in cases],
        question_types=["how many", "what color", "how many", "what"],
        answer_types=["number", "other", "number", ""],
    )
    assert r["accuracy"] == pytest.approx((1 + 0.3 + 0 + 1) / 4)
    assert r["accuracy_question_type/how many"] == pytest.approx(0.5)
    assert r["accuracy_question_type/what color"] == pytest.approx(0.3)
    assert r["accuracy_question_type/what"] == pytest.approx(1.0)
    assert r["accuracy_answer_type/number"] == pytest.approx(0.5)
    assert r["accuracy_answer_type/other"] == pytest.approx(0.3)
    assert not [k for k in r if k.startswith("accuracy_answer_type/") and k.endswith("/")]


def test_vqa_v2_add_batch_and_add_accumulate():
    metric = load_metric("vqa_acc")
    metric.add_batch(
        predictions=["2", "red"], references=[VQA_V2["A1"][0], VQA_V2["A3"][0]], answer_types=["n", "o"]
    )
    metric.add(prediction="two", reference=VQA_V2["A4"][0], answer_types="n")
    r = metric.compute()
    assert r["accuracy"] == pytest.approx(1.3 / 3)
    assert r["accuracy_answer_type/n"] == pytest.approx(0.5)


# ------------------------------------------------------------------------------------------------
# 6.9 AIJ 2021 Fusion Brain VQA
# ------------------------------------------------------------------------------------------------
def test_fusion_brain_2021_reference_vectors():
    metric = load_metric("vqa_acc", "fusion_brain_2021")
    r = metric.compute(predictions=["Two.", "A dog!"], references=["2", "dog"], languages=["en", "en"])
    assert r["accuracy"] == 1.0
    r = metric.compute(predictions=["Кошки", "три"], references=["кошка", "3"], languages=["ru", "ru"])
    assert r["accuracy"] == 1.0
    assert metric.compute(predictions=["dog"], references=["Dog"])["accuracy"] == 0.0  # GT not normalised
    assert metric.compute(predictions=["Dark-red"], references=[["red", "dark red"]])["accuracy"] == 1.0
    r = metric.compute(
        predictions=["dog", "cat", "two"], references=["dog", "dog", "3"], return_per_example=True
    )
    assert r["accuracy"] == pytest.approx(1 / 3) and r["per_example"] == [1.0, 0.0, 0.0]
    assert metric.compute(predictions=["dont"], references=["don't"])["accuracy"] == 1.0
    # the shape of the repo sample (2 of 12 right -> 0.167): Russian digits and words survive lemmatisation
    r = metric.compute(
        predictions=["4", "возможно", "yes"], references=["4", "возможно", "3"], languages=["ru"] * 3
    )
    assert r["accuracy"] == pytest.approx(2 / 3)
    r = metric.compute(predictions=["Two.", "три"], references=["2", "3"], languages=["en", "ru"])
    assert r["accuracy_language/en"] == 1.0 and r["accuracy_language/ru"] == 1.0


# ------------------------------------------------------------------------------------------------
# 6.11 TDIUC (Kafle script semantics)
# ------------------------------------------------------------------------------------------------
def test_tdiuc_t1():
    metric = load_metric("vqa_acc", "tdiuc")
    r = metric.compute(
        predictions=["red", "red", "red", "red", "2", "2"],
        references=["red", "red", "red", "blue", "2", "3"],
        question_types=["color"] * 4 + ["counting"] * 2,
        return_per_example=True,
    )
    assert list(r)[:5] == ["accuracy", "arithmetic_mpt", "harmonic_mpt", "arithmetic_nmpt", "harmonic_nmpt"]
    assert r["accuracy_question_type/color"] == 0.75 and r["accuracy_question_type/counting"] == 0.5
    assert r["arithmetic_mpt"] == pytest.approx(0.625) and r["harmonic_mpt"] == pytest.approx(0.6)
    assert r["normalized_accuracy_question_type/color"] == 0.5
    assert r["arithmetic_nmpt"] == pytest.approx(0.5) and r["harmonic_nmpt"] == pytest.approx(0.5)
    assert r["accuracy"] == pytest.approx(2 / 3)
    # the Cadene/block.bootstrap copy would average (75, 50, 50, 50) here: 0.5625
    assert r["arithmetic_nmpt"] != pytest.approx(0.5625)
    assert r["per_example"] == [1.0, 1.0, 1.0, 0.0, 1.0, 0.0]


def test_tdiuc_t2_zero_type_and_epsilon():
    metric = load_metric("vqa_acc", "tdiuc")
    r = metric.compute(
        predictions=["red", "3", "2"],
        references=["red", "2", "3"],
        question_types=["color", "counting", "counting"],
    )
    assert r["arithmetic_mpt"] == pytest.approx(0.5) and r["arithmetic_nmpt"] == pytest.approx(0.5)
    assert r["harmonic_mpt"] == pytest.approx(2e-12, rel=1e-6)  # 2e-10 on the script's 0-100 scale
    assert r["harmonic_nmpt"] == pytest.approx(2e-12, rel=1e-6)
    assert r["accuracy"] == pytest.approx(1 / 3)


def test_tdiuc_t3_answer_key():
    metric = load_metric("vqa_acc", "tdiuc")
    kw = dict(predictions=["red", "red"], references=["green", "red"], question_types=["color", "color"])
    for r in (metric.compute(**kw), metric.compute(**kw, answer_key=["red", "blue"])):
        for k in ("accuracy", "arithmetic_mpt", "harmonic_mpt", "arithmetic_nmpt", "harmonic_nmpt"):
            assert r[k] == pytest.approx(0.5)
    # GTs outside the key are always wrong and form ONE answer class in N-MPT
    summary, correct, _, nacc = tdiuc.tdiuc_scores(
        ["x", "y", "red"], ["x", "y", "red"], ["t", "t", "t"], answer_key=["red"]
    )
    assert correct.tolist() == [0.0, 0.0, 1.0] and nacc["t"] == pytest.approx(0.5)
    r = metric.compute(**kw, answer_key=["red"])
    assert r["signature"].startswith("vqa_acc|preset:tdiuc|answers:1|eps:1e-10|key:")
    assert "key:none" not in r["signature"]


def test_tdiuc_free_form_answers_no_keyerror():
    metric = load_metric("vqa_acc", "tdiuc")
    r = metric.compute(
        predictions=["a brand new answer", "red"],
        references=["red", "red"],
        question_types=["color", "color"],
    )
    assert r["accuracy"] == 0.5


# ------------------------------------------------------------------------------------------------
# 6.12 WUPS (WordNet 3.0)
# ------------------------------------------------------------------------------------------------
WUP_PAIRS = [
    ("dog", "cat", 0.857143, 0.085714),
    ("car", "automobile", 1.0, 1.0),
    ("chair", "table", 0.842105, 0.084211),
    ("red", "blue", 0.875, 0.0875),
    ("sofa", "couch", 1.0, 1.0),
    ("dog", "xyzzy", 0.0, 0.0),
    ("Dog", "dog", 1.0, 1.0),
]


@pytest.fixture(scope="module")
def nltk_wn():
    from nltk.corpus import wordnet as wn

    assert wn.get_version() == "3.0"
    return wn


@pytest.mark.parametrize("a, b, raw, at09", WUP_PAIRS)
def test_wups_elements_against_nltk(nltk_wn, a, b, raw, at09):
    ours = wordnet.load_wordnet()
    assert wups.wup_measure(a, b, 0.0, ours) == pytest.approx(raw, abs=1e-6)
    assert wups.wup_measure(a, b, 0.9, ours) == pytest.approx(at09, abs=1e-6)
    if a != b:  # NLTK's own wup_similarity over all noun synset pairs, directly
        pairs = [
            x.wup_similarity(y) or 0.0
            for x in nltk_wn.synsets(a, pos="n")
            for y in nltk_wn.synsets(b, pos="n")
        ]
        assert wups.max_wup(a, b, ours) == max(pairs, default=0.0)


def test_wups_sets():
    metric = load_metric("vqa_acc", "wups")
    kw = dict(predictions=["cat", "table,chair", "couch"], references=["dog", "chair,table", "sofa"])
    r = metric.compute(**kw, return_per_example=True)
    assert r["wups"] == pytest.approx(0.695238, abs=1e-6)
    assert r["per_example"] == pytest.approx([0.085714, 1.0, 1.0], abs=1e-6)
    assert r["signature"] == "vqa_acc|preset:wups|thr:0.9|answers:any|wn:3.0|v:0.1.0"
    assert metric.compute(**kw, threshold=0.0)["wups"] == pytest.approx(0.952381, abs=1e-6)
    assert metric.compute(predictions=["chair"], references=["chair,table"])["wups"] == pytest.approx(
        0.084211, abs=1e-6
    )
    assert metric.compute(predictions=["table"], references=["dining table"])["wups"] == 0.0
    r = metric.compute(predictions=["dog", "table, chair"], references=["dog", "chair,table"], threshold=-1)
    assert r["wups"] == 1.0 and "wn:none" in r["signature"]


def test_wups_wordnet_path_option(tmp_path):
    nltk_root = ROOT / ".build" / "nltk_data"
    metric = load_metric("vqa_acc", "wups")
    for path in (str(nltk_root), str(nltk_root / "corpora" / "wordnet")):
        assert metric.compute(predictions=["cat"], references=["dog"], wordnet_path=path)[
            "wups"
        ] == pytest.approx(0.085714, abs=1e-6)
    with pytest.raises(ValueError, match=r"wordnet_path.*wordnet-base.*packages\.txt"):
        metric.compute(predictions=["cat"], references=["dog"], wordnet_path=str(tmp_path))


# ------------------------------------------------------------------------------------------------
# 6.13 BLEU-1 (NLTK semantics) + NLTK oracle
# ------------------------------------------------------------------------------------------------
def test_bleu1_reference_vectors():
    metric = load_metric("vqa_acc", "bleu1")
    cases = [("dog", ["dog"], 1.0), ("cat", ["dog"], 0.0), ("a dog", ["dog"], 0.5), ("dog", ["black dog"], 0.367879),
             ("dog", ["dog", "black dog"], 1.0)]  # fmt: skip
    r = metric.compute(
        predictions=[c[0] for c in cases], references=[c[1] for c in cases], return_per_example=True
    )
    assert r["per_example"] == pytest.approx([c[2] for c in cases], abs=1e-6)
    assert list(r)[:2] == ["bleu1", "bleu1_corpus"]
    r = metric.compute(predictions=["dog", "dog"], references=[["dog"], ["black dog"]])
    assert r["bleu1_corpus"] == pytest.approx(0.606531, abs=1e-6)
    assert metric.compute(predictions=["Dog"], references=["dog"], lowercase=True)["bleu1"] == 1.0
    assert metric.compute(predictions=["Dog"], references=["dog"])["bleu1"] == 0.0


WORDS = st.sampled_from(["dog", "cat", "a", "the", "black", "red", "Dog", "two"])
ANSWER = st.lists(WORDS, min_size=0, max_size=5).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(ANSWER, st.lists(ANSWER, min_size=1, max_size=3)), min_size=1, max_size=6))
def test_bleu1_matches_nltk(pairs):
    from nltk.translate.bleu_score import corpus_bleu, sentence_bleu

    preds = [p for p, _ in pairs]
    refs = [r for _, r in pairs]
    per, corpus = bleu.bleu1_scores(preds, refs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = [
            sentence_bleu([r.split() for r in rs], p.split(), weights=(1, 0, 0, 0)) for p, rs in pairs
        ]
        expected_corpus = corpus_bleu([[r.split() for r in rs] for rs in refs], [p.split() for p in preds],
                                      weights=(1, 0, 0, 0))  # fmt: skip
    assert per.tolist() == expected
    assert corpus == expected_corpus


def pycocoevalcap_bleu1_corpus(predictions, references) -> float:
    """Corpus BLEU-1 as pycocoevalcap computes it (pycocoevalcap/bleu/bleu_scorer.py, BleuScorer.compute_score
    with option='closest', n=1; transcribed): guess = the prediction's length, tiny / small smoothing terms."""
    tiny, small = 1e-15, 1e-9
    testlen = reflen = guess = correct = 0
    for prediction, refs in zip(predictions, references):
        words, ref_words = prediction.split(), [r.split() for r in refs]
        maxcounts = {}
        for ref in ref_words:
            for w in set(ref):
                maxcounts[w] = max(maxcounts.get(w, 0), ref.count(w))
        testlen += len(words)
        reflen += min((abs(len(r) - len(words)), len(r)) for r in ref_words)[1]
        guess += max(len(words), 0)
        correct += sum(min(maxcounts.get(w, 0), words.count(w)) for w in set(words))
    score = (correct + tiny) / (guess + small)
    ratio = (testlen + tiny) / (reflen + small)
    return score * math.exp(1 - 1 / ratio) if ratio < 1 else score


def test_bleu1_corpus_differs_from_pycocoevalcap_only_with_an_empty_prediction():
    """The card's note: NLTK (this preset) counts an empty prediction as 1 word in the precision's denominator,
    pycocoevalcap as 0; otherwise the two corpus values differ only by pycocoevalcap's 1e-9 smoothing."""
    preds = ["a black dog", "two cats", "red", "the dog runs fast"]
    refs = [["a dog", "black dog"], ["two cats", "2 cats"], ["red car"], ["a dog runs", "the dog runs"]]
    _, corpus = bleu.bleu1_scores(preds, refs)
    assert corpus == pytest.approx(pycocoevalcap_bleu1_corpus(preds, refs), rel=1e-8)
    _, corpus = bleu.bleu1_scores([*preds, ""], [*refs, ["empty"]])
    coco = pycocoevalcap_bleu1_corpus([*preds, ""], [*refs, ["empty"]])
    assert abs(corpus - coco) > 1e-3  # 9 / 11 against 9 / 10 before the brevity penalty


# ------------------------------------------------------------------------------------------------
# Properties
# ------------------------------------------------------------------------------------------------
VQA_WORDS = st.sampled_from(
    ["2", "two", "Two.", "yes", "Yes", "red", "a dog", "dog", "100,978", "2.5", "dont", " no "]
)
PUNCT_TEXT = st.one_of(
    st.text(alphabet=st.sampled_from(list("ab1 2.,-!?;/'\":#()") + ["\u0665"]), max_size=14),
    st.lists(st.sampled_from(["dont", "Im", "The", "a", "None", "two", "TEN", "yall'll", "3.5", ",", "-", ". ", "!", "x"]),
             max_size=8).map(" ".join),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(VQA_WORDS, st.lists(VQA_WORDS, min_size=1, max_size=12)), min_size=1, max_size=8),
    st.sampled_from(("official", "always", "never")),
)  # fmt: skip (the harnesses: test_vqa_acc_harnesses.py)
def test_vqa_v2_vectorised_equals_the_reference_loop(rows, normalize):
    preds = [p for p, _ in rows]
    refs = [r for _, r in rows]
    fast = core.vqa_v2_per_question(preds, refs, normalize=normalize)
    assert fast.tolist() == oracle.official_scores(preds, refs, normalize)  # bit-identical
    for score, p, r in zip(fast, preds, refs):  # closed form in m (exclusion by position)
        if normalize == "never":
            m = [a.strip() for a in r].count(p.strip())
        else:
            m = (
                [core.normalize_answer(a) for a in r].count(core.normalize_answer(p))
                if normalize == "always"
                else None
            )
        if m is not None:
            n = len(r)
            assert score == pytest.approx((m * min(1, (m - 1) / 3) + (n - m) * min(1, m / 3)) / n, abs=1e-12)
        assert 0.0 <= score <= 1.0


@settings(max_examples=300, deadline=None)
@given(PUNCT_TEXT)
def test_normalisers_equal_the_verbatim_transcription(text):
    official = oracle.OfficialVQAEval()
    assert core.process_punctuation(text) == official.processPunctuation(text)
    assert core.process_digit_article(text) == official.processDigitArticle(text)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(VQA_WORDS, st.lists(VQA_WORDS, min_size=10, max_size=10)), min_size=1, max_size=8),
       st.randoms(use_true_random=False))  # fmt: skip
def test_vqa_v2_bounds_order_invariance_and_mean(rows, rnd):
    preds = [p for p, _ in rows]
    refs = [r for _, r in rows]
    per = core.vqa_v2_per_question(preds, refs)
    order = list(range(len(rows)))
    rnd.shuffle(order)
    shuffled = core.vqa_v2_per_question([preds[i] for i in order], [refs[i] for i in order])
    assert sorted(shuffled.tolist()) == sorted(per.tolist())
    assert math.isclose(float(np.mean(shuffled)), float(np.mean(per)), abs_tol=1e-12)
    assert ((0 <= per) & (per <= 1)).all()
    # identity: predicting a unanimous answer (>= 4 matches) scores 1
    assert core.vqa_v2_per_question([r[0] for r in refs], [[r[0]] * 10 for r in refs]).tolist() == [
        1.0
    ] * len(refs)


def test_properties_through_evaluate_every_preset():
    rng = random.Random(0)
    words = ["dog", "cat", "red", "two", "2", "table", "chair,table"]
    n = 12
    preds = [rng.choice(words) for _ in range(n)]
    refs = [[rng.choice(words) for _ in range(10)] for _ in range(n)]
    types = [rng.choice(["t1", "t2", "t3"]) for _ in range(n)]
    order = list(range(n))
    rng.shuffle(order)
    cases = {
        "vqa_v2": ("accuracy", {"references": refs}),
        "fusion_brain_2021": ("accuracy", {"references": refs}),
        "tdiuc": ("accuracy", {"references": [r[0] for r in refs], "question_types": types}),
        "wups": ("wups", {"references": [r[0] for r in refs]}),
        "bleu1": ("bleu1", {"references": refs}),
    }
    for preset, (key, inputs) in cases.items():
        metric = load_metric("vqa_acc", preset)
        r = metric.compute(predictions=preds, **inputs, return_per_example=True)
        assert 0.0 <= r[key] <= 1.0
        assert r[key] == pytest.approx(float(np.mean(r["per_example"])), abs=1e-12), (
            preset
        )  # mean of per-example
        shuffled = {k: [v[i] for i in order] for k, v in inputs.items()}
        r2 = metric.compute(predictions=[preds[i] for i in order], **shuffled)
        for k in r:
            if k not in ("signature", "per_example"):
                assert r2[k] == pytest.approx(r[k], abs=1e-12), (preset, k)
        # identity -> maximum
        ident = {k: v for k, v in inputs.items()}
        ident["references"] = [[p] * 10 for p in preds] if preset == "vqa_v2" else [p for p in preds]
        if preset == "fusion_brain_2021":  # the GT is used as is: identity means GT = normalised prediction
            ident["references"] = [core.normalize_answer(p, ascii_digits=False) for p in preds]
        best = metric.compute(predictions=preds, **ident)
        assert best[key] == 1.0, preset
        if preset == "tdiuc":
            for k in ("arithmetic_mpt", "harmonic_mpt", "arithmetic_nmpt", "harmonic_nmpt"):
                assert best[k] == pytest.approx(1.0)


# ------------------------------------------------------------------------------------------------
# Bad inputs
# ------------------------------------------------------------------------------------------------
def test_bad_inputs_name_argument_and_index(tmp_path):
    vqa = load_metric("vqa_acc")
    ten = ["yes"] * 10
    with pytest.raises(ValueError, match=r"`predictions` has 2 examples but `references` has 1"):
        vqa.compute(predictions=["a", "b"], references=[ten])
    with pytest.raises(TypeError, match=r"`predictions\[1\]` must be a string.*None"):
        vqa.compute(predictions=["a", None], references=[ten, ten])
    with pytest.raises(TypeError, match=r"`references\[0\]\[3\]` must be a string.*int"):
        vqa.compute(predictions=["a"], references=[["yes"] * 3 + [3] + ["yes"] * 6])
    with pytest.raises(ValueError, match=r"`references\[1\]` has 9 answers but num_answers=10"):
        vqa.compute(predictions=["a", "b"], references=[ten, ["yes"] * 9])
    assert vqa.compute(predictions=["yes"], references=[["yes"] * 9], num_answers=0)["accuracy"] == 1.0
    with pytest.raises(ValueError, match=r"`normalize` must be one of"):
        vqa.compute(predictions=["a"], references=[ten], normalize="sometimes")
    with pytest.raises(ValueError, match=r"unknown option 'threshold'"):
        vqa.compute(predictions=["a"], references=[ten], threshold=0.5)
    with pytest.raises(ValueError, match=r"`num_answers` must be a finite number >= 0, got -1"):
        vqa.compute(predictions=["a"], references=[ten], num_answers=-1)
    with pytest.raises(ValueError, match=r"`predictions` has 1 examples but `answer_types` has 2"):
        vqa.compute(predictions=["a"], references=[ten], answer_types=["x", "y"])
    with pytest.raises(TypeError, match=r"`question_types\[0\]` must be a string"):
        vqa.compute(predictions=["a"], references=[ten], question_types=[None])
    with pytest.raises(ValueError, match=r"unknown input\(s\) \['languages'\]"):
        vqa.compute(predictions=["a"], references=[ten], languages=["en"])
    with pytest.raises(ValueError, match=r"`references\[0\]` is an empty list"):
        load_metric("vqa_acc", "bleu1").compute(predictions=["a"], references=[[]])

    fb = load_metric("vqa_acc", "fusion_brain_2021")
    with pytest.raises(ValueError, match=r"`languages\[1\]` must be one of \['en', 'ru'\], got 'fr'"):
        fb.compute(predictions=["a", "b"], references=["a", "b"], languages=["en", "fr"])

    td = load_metric("vqa_acc", "tdiuc")
    with pytest.raises(ValueError, match=r"`question_types` is required for preset 'tdiuc'"):
        td.compute(predictions=["a"], references=["a"])
    with pytest.raises(ValueError, match=r"`question_types\[1\]` is empty"):
        td.compute(predictions=["a", "b"], references=["a", "b"], question_types=["color", ""])
    with pytest.raises(ValueError, match=r"`references\[0\]` has 2 answers but num_answers=1"):
        td.compute(predictions=["a"], references=[["a", "b"]], question_types=["color"])
    with pytest.raises(TypeError, match=r"`answer_key\[1\]` must be a string"):
        td.compute(predictions=["a"], references=["a"], question_types=["c"], answer_key=["a", 1])

    wu = load_metric("vqa_acc", "wups")
    with pytest.raises(ValueError, match=r"`threshold` must be"):
        wu.compute(predictions=["a"], references=["a"], threshold=2)
    with pytest.raises(ValueError, match=r"`threshold` must be -1 .* or a number in \[0, 1\]"):
        wu.compute(predictions=["a"], references=["a"], threshold=-0.5)
    with pytest.raises(TypeError, match=r"`lowercase` must be True or False"):
        load_metric("vqa_acc", "bleu1").compute(predictions=["a"], references=["a"], lowercase="yes")
    with pytest.raises(TypeError, match=r"`return_per_example` must be True or False"):
        load_metric("vqa_acc", "bleu1").compute(predictions=["a"], references=["a"], return_per_example="no")


def test_missing_wordnet_message_says_how_to_provide_it(tmp_path):
    metric = load_metric("vqa_acc", "wups")
    with pytest.raises(
        ValueError, match=r"packages\.txt.*apt-get install wordnet-base.*wordnet_path.*threshold=-1"
    ):
        metric.compute(predictions=["a"], references=["b"], wordnet_path=str(tmp_path))
    with pytest.raises(TypeError, match=r"`wordnet` must be a WordNet reader"):
        wups.wups_per_question(["a"], [["b"]])  # the core is handed its reader: it never looks for one


# ------------------------------------------------------------------------------------------------
# Trainer, demo, CLI loaders
# ------------------------------------------------------------------------------------------------
def test_in_trainer():
    answers = ["yes", "no", "2", "red"]
    metric = load_metric("vqa_acc")

    def compute_metrics(eval_pred):
        logits, labels = eval_pred
        preds = np.argmax(logits, axis=-1)
        # 10 annotator answers per question: the label's answer 4 times (full credit) + 6 others
        refs = [[answers[int(lab)]] * 4 + ["other"] * 6 for lab in labels]
        result = metric.compute(predictions=[answers[int(p)] for p in preds], references=refs)
        return {"accuracy": result["accuracy"]}

    out = run_in_trainer(compute_metrics, n_eval=16, num_labels=4)
    assert 0.0 <= out["eval_accuracy"] <= 1.0


def test_demo_serves_compute():
    demo, client = serve_app(METRICS / "vqa_acc" / "app.py")
    try:
        preds, refs, qtypes, atypes = (
            "2\nred\ntwo\nA dog.",
            "two | two | two | 2 | 2 | 2 | three | three | three | three\n"
            "red | blue | blue | blue | blue | blue | blue | blue | blue | blue\n"
            "2 | 2 | 2 | 2 | 2 | 2 | 2 | 2 | 2 | 2\n"
            "dog | dog | dog | dog | dog | a dog | a dog | a dog | a dog | a dog",
            "how many\nwhat color\nhow many\nwhat",
            "number\nother\nnumber\nother",
        )
        r = predict_by_name(
            client, demo, preds=preds, refs=refs, preset="default", types_a=qtypes, types_b=atypes
        )[0]
        assert r["accuracy"] == pytest.approx((1 + 0.3 + 0 + 1) / 4)
        assert r["accuracy_answer_type/other"] == pytest.approx(0.65)
        r = predict_by_name(client, demo, preds="cat", refs="dog", preset="wups", opt_threshold="-1")[0]
        assert r["wups"] == 0.0
    finally:
        demo.close()


def test_tdiuc_scores_stay_fractions_for_a_perfect_model():
    r = load_metric("vqa_acc", "tdiuc").compute(
        predictions=["a", "b"], references=["a", "b"], question_types=["x", "y"]
    )
    for key in ("accuracy", "arithmetic_mpt", "harmonic_mpt", "arithmetic_nmpt", "harmonic_nmpt"):
        assert r[key] == 1.0, key


def test_fusion_brain_signature_records_the_lemmatiser_for_russian():
    r = load_metric("vqa_acc", "fusion_brain_2021").compute(
        predictions=["Кошки"], references=["кошка"], languages=["ru"]
    )
    assert r["accuracy"] == 1.0
    assert "ru:pymorphy3-2.0.6/ru-2.4.417150.4580142" in r["signature"]


def test_tdiuc_hmean_is_scipys_bit_for_bit():
    """The harmonic means skip scipy's wrapper (slower than a 1,000-question run): same floats, on
    per-type accuracies as the script forms them (acc + eps on the 0-100 scale, zeros included)."""
    from scipy import stats

    rng = np.random.default_rng(0)
    for _ in range(3000):
        k = int(rng.integers(1, 30))
        hits, totals = rng.integers(0, 8, size=k), rng.integers(1, 8, size=k)
        x = [100 * (min(h, t) / t) + 1e-10 for h, t in zip(hits.tolist(), totals.tolist())]
        x[0] = float(rng.random() * 100 + 1e-10)
        assert tdiuc.hmean(x) == float(stats.hmean(x))
