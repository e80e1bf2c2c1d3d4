"""ru_meteor: reference vectors (seeds_reference.md 6.4, 6.5, 6.13), NLTK's meteor_score and a transcription of
the official Fusion Brain 2022 loops as oracles, tokenizer stand-in, properties, bad input, Trainer, demo."""

import math
import random

import pytest
from helpers import ROOT, load_metric, predict_by_name, run_in_trainer, serve_app
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import ru_meteor as oracle

from multimodal_metrics.ru_meteor import core
from multimodal_metrics.ru_meteor import numeric as ru_meteor_numeric
from multimodal_metrics.ru_meteor import stemmers as ru_meteor_stemmers
from multimodal_metrics.ru_meteor import synonyms as ru_meteor_synonyms
from multimodal_metrics.ru_meteor import text as ru_meteor_text


@pytest.fixture(scope="session")
def rwn(tmp_path_factory):
    """A RuWordNet-schema SQLite file with the stub entries of 6.4/6.5 (КОШКА -> ЖИВОТНОЕ, КОШАЧИЙ)."""
    return oracle.make_ruwordnet_db(tmp_path_factory.mktemp("rwn") / "ruwordnet.db")


def score(preset, pred, refs, **kw):
    return load_metric("ru_meteor", preset).compute(predictions=[pred], references=[refs], **kw)["meteor"]


# ------------------------------------------------------------------------------------------------
# reference vectors
# ------------------------------------------------------------------------------------------------
NLTK_VECTORS = [  # 6.13, NLTK 3.9.1
    ("dog", "dog", 0.5),
    ("dogs", "dog", 0.5),
    ("automobile", "car", 0.0),
    ("black dog", "dog", 0.263158),
    ("dog", "cat", 0.0),
    ("red and blue", "blue and red", 0.5),
]


@pytest.mark.parametrize("ref,hyp,expected", NLTK_VECTORS)
def test_nltk_vectors(ref, hyp, expected):
    assert score("nltk", hyp, [ref]) == pytest.approx(expected, abs=1e-6)


CAPTION_VECTORS = [  # 6.5
    ("C1", ["Две птицы летают над водой."], "Две птицы летают над водой", 0.996),
    ("C2", ["две птицы летают над водой"], "две птицы летали над водою", 0.996),
    ("C3", ["две птицы летают над водой"], "над водой летают две птицы", 0.892),
    ("C4", ["птицы летают", "два сокола летят над озером"], "два сокола над озером", 0.765306),
    ("C5", ["кошка спит"], "собака бежит", 0.0),
    ("stub", ["животное спит"], "кошка спит", 0.25),  # the RuWordNet stage gets stems: does not fire
]


@pytest.mark.parametrize("preset", ["default", "captioning"])
@pytest.mark.parametrize("vid,refs,hyp,expected", CAPTION_VECTORS, ids=[v[0] for v in CAPTION_VECTORS])
def test_captioning_vectors(vid, refs, hyp, expected, preset, rwn):
    assert score(preset, hyp, refs, ruwordnet_path=rwn) == pytest.approx(expected, abs=1e-6)


VQA_VECTORS = [  # 6.4 († = POS stub tagging -?\d+(\.\d+)? as CD, RuWordNet stub)
    ("Q1", ["желтого", "ярко-желтого"], "Желтый", 1.0),
    ("Q2", ["3"], "2", 0.666667),
    ("Q3", ["2"], "5", 0.4),
    ("Q4", ["3"], "три", 1.0),
    ("Q5", ["3"], "three", 1.0),
    ("Q6", ["3"], "много", 0.0),
    ("Q7", ["на велосипеде"], "велосипед", 0.526316),
    ("Q8", ["0"], "0", 1.0),
    ("Q9", ["4"], "ноль", 0.0),
    ("Q10", ["2.5"], "2.5", 1.0),
    ("Q11", ["2.5"], "2", 0.08),
    ("Q12", ["5", "пять"], "4", 0.8),
    ("Q13", ["3"], "-3", 1.0),
    ("Q14", ["4"], "2 или 4", 0.5),
    ("stub1", ["животное"], "Кошки", 1.0),
    ("stub2", ["кошачий"], "кошка", 1.0),
    ("stub3", ["кошка"], "животное", 0.0),
]


@pytest.mark.parametrize("vid,refs,hyp,expected", VQA_VECTORS, ids=[v[0] for v in VQA_VECTORS])
def test_vqa_vectors(vid, refs, hyp, expected, rwn):
    assert score("vqa", hyp, refs, ruwordnet_path=rwn) == pytest.approx(expected, abs=1e-6)


def test_identical_caption_is_not_one_and_vqa_gamma_zero_is():
    # captioning keeps gamma = 0.5: 5 words in one chunk -> 1 - 0.5 / 125
    assert (
        score("captioning", "две птицы летают над водой", ["две птицы летают над водой"], synonyms="none")
        == 0.996
    )
    assert score("vqa", "две птицы", ["две птицы"], synonyms="none") == 1.0


# ------------------------------------------------------------------------------------------------
# oracles: NLTK's meteor_score, the official Fusion Brain loops
# ------------------------------------------------------------------------------------------------
def test_nltk_meteor_score_is_the_oracle_on_600_generated_pairs():
    from nltk.tokenize import word_tokenize
    from nltk.translate.meteor_score import meteor_score

    rng = random.Random(7)
    preds, refs = oracle.make_captions(600, oracle.EN_WORDS, seed=11)
    refs = [r[: rng.randint(2, 5)] for r in refs]  # several references, 2 to 5
    refs[0] = ["The cat can't sit on the mat, (really)!", 'a "quoted" dog... runs']
    preds[0] = "the cats cannot sit on mats -- really?"
    ours = core.meteor_per_example(preds, refs, **oracle.nltk_options())
    tok = lambda s: word_tokenize(s, preserve_line=True)  # noqa: E731
    theirs = [meteor_score([tok(r) for r in rs], tok(p)) for p, rs in zip(preds, refs)]
    assert ours == theirs  # identical floats
    assert len({round(s, 6) for s in ours}) > 100  # not a degenerate sample
    assert any(0 < s < 1 for s in ours)


def test_synonym_stage_fires_like_nltk():
    from nltk.translate.meteor_score import meteor_score

    # WordNet sees Porter stems: couch/sofa are their own stems and synonyms, car/automobile are not
    assert score("nltk", "a sofa", ["a couch"]) == meteor_score([["a", "couch"]], ["a", "sofa"]) > 0.4
    explained = core.explain("a sofa", ["a couch"], **oracle.nltk_options())
    assert [p["stage"] for p in explained["pairs"]] == ["exact", "synonym"]


def test_official_captioning_loop_is_the_oracle(rwn):
    wordnet = oracle.SqliteRuWordNet(rwn)
    preds, refs = oracle.make_captions(150, oracle.RU_WORDS, seed=5, refs_per=3)
    preds += ["Кот спит в доме", "котик (кот) у дома!", "три кота, «два» дома", "one hundred and five котов"]
    refs += [["кот спит в доме."], ["котик спит у дома"], ["3 кота и 2 дома"], ["105 котов"]]
    opts = {k: v for k, v in oracle.core_presets()["captioning"].items() if k != "corpus_score"}
    ours = core.meteor_per_example(preds, refs, ruwordnet_path=rwn, **opts)
    assert ours == oracle.fb_captioning_scores(preds, refs, wordnet)
    assert ours[-4] == 1 - 0.5 / 4**3 and ours[-1] > 0  # 4 words in one chunk


def test_official_vqa_loop_is_the_oracle(rwn):
    wordnet = oracle.SqliteRuWordNet(rwn)
    preds, refs = oracle.make_vqa(300, seed=9)
    opts = {k: v for k, v in oracle.core_presets()["vqa"].items() if k != "corpus_score"}
    assert core.meteor_per_example(preds, refs, ruwordnet_path=rwn, **opts) == oracle.fb_vqa_scores(
        preds, refs, wordnet
    )


def test_ruwordnet_stage_fires_on_stems_equal_to_lemmas(rwn):
    # кот -> Snowball stem "кот" = lemma КОТ: derivation КОТИК matches the reference stem "котик"
    explained = core.explain(
        "кот",
        ["котик"],
        ruwordnet_path=rwn,
        **{
            k: v
            for k, v in oracle.core_presets()["captioning"].items()
            if k not in ("corpus_score", "reference_agg")
        },
    )
    assert explained["pairs"] == [{"hyp": 0, "ref": 0, "stage": "synonym"}]


# ------------------------------------------------------------------------------------------------
# the word_tokenize stand-in
# ------------------------------------------------------------------------------------------------
word = st.sampled_from(
    [
        "the",
        "Dog",
        "кошка",
        "Ёлка",
        "cannot",
        "gonna",
        "wanna",
        "3",
        "2.5",
        "1,000",
        "U.S.",
        "don't",
        "it's",
        "'tis",
        "(a)",
        "x-ray",
        "«да»",
        '"q"',
        "...",
        "--",
        "a.",
        "b!",
        "c?",
        "$5",
        "50%",
        "ß",
        "_x",
        "naïve",
        "—",
    ]
)
texts = st.lists(word, max_size=8).map(" ".join) | st.text(alphabet="abcXYZкотЁ019 .,'\"-!?()", max_size=24)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_tokenizer_equals_word_tokenize_without_sentence_split(text):
    from nltk.tokenize import word_tokenize

    assert ru_meteor_text.nltk_tokenize(text) == word_tokenize(text, preserve_line=True)


def test_tokenizer_fast_path_is_taken_for_plain_captions(monkeypatch):
    from multimodal_metrics.ru_meteor import text

    calls = []
    real = text._nltk_word_tokenizer

    def spy():
        calls.append(1)
        return real()

    monkeypatch.setattr(text, "_nltk_word_tokenizer", spy)
    assert ru_meteor_text.nltk_tokenize("A man rides a horse .") == ["A", "man", "rides", "a", "horse", "."]
    assert ru_meteor_text.nltk_tokenize("две птицы летают над водой.") == [
        "две",
        "птицы",
        "летают",
        "над",
        "водой",
        ".",
    ]
    assert not calls
    assert ru_meteor_text.nltk_tokenize("I cannot go") == ["I", "can", "not", "go"]
    assert calls


def test_number_stand_in_rule():
    assert [
        ru_meteor_numeric.is_number(t) for t in ["3", "-3", "2.5", "25", "٣", "1e5", "three", "3.", "½"]
    ] == [
        True,
        True,
        True,
        True,
        True,
        False,
        False,
        False,
        False,
    ]


# ------------------------------------------------------------------------------------------------
# presets and options
# ------------------------------------------------------------------------------------------------
def test_ru_preset_lemmas_synonyms_and_corpus_score(rwn):
    m = load_metric("ru_meteor", "ru")
    r = m.compute(
        predictions=["Машины едут мимо дома.", "кошки спят"],
        references=[["автомобиль едет мимо здания"], ["кошка спит", "котик спит"]],
        ruwordnet_path=rwn,
        return_per_example=True,
    )
    assert list(r)[:3] == ["meteor", "meteor_corpus", "signature"]
    # every word aligned: машины~автомобиль (synset member of the lemma), едут~едет (lemma), дома~здания
    assert r["per_example"][0] == pytest.approx(1 - 0.5 / 64)
    assert r["per_example"][1] == pytest.approx(1 - 0.5 / 8)
    assert r["meteor_corpus"] == pytest.approx(1 - 0.5 * (2 / 6) ** 3)
    assert "|syn:ruwordnet_synsets|res:ruwordnet-" in r["signature"] and "|corpus:yes|" in r["signature"]
    # the official RuWordNet stage does not treat synset members as synonyms
    official = m.compute(
        predictions=["машина"], references=["автомобиль"], synonyms="ruwordnet_fb", ruwordnet_path=rwn
    )
    assert official["meteor"] == 0.0


def test_every_choice_is_an_option_in_the_signature(rwn):
    m = load_metric("ru_meteor", "nltk")
    base = m.compute(predictions=["a cat"], references=[["the cat"]])["signature"]
    for kw in (
        {"alpha": 0.5},
        {"beta": 2.0},
        {"gamma": 0.0},
        {"stemmer": "none"},
        {"synonyms": "none"},
        {"tokenizer": "razdel"},
        {"preprocess": "ru"},
        {"number_words": "wordtodigits"},
        {"numeric": "fusion_brain"},
        {"reference_agg": "mean"},
        {"corpus_score": True},
        {"stemmer": "snowball_ru"},
        {"synonyms": "ruwordnet_fb", "ruwordnet_path": rwn},
    ):
        assert m.compute(predictions=["a cat"], references=[["the cat"]], **kw)["signature"] != base, kw
    assert base.startswith(
        "ru_meteor|preset:nltk|prep:none|num:none|tok:nltk|stem:porter|syn:wordnet|res:wordnet-3.0|"
    )
    assert base.endswith("|lib:nltk-3.10.4|v:0.1.0")


def test_reference_aggregation_and_default_equals_captioning(rwn):
    m = load_metric("ru_meteor", "nltk")
    refs = [["a dog runs", "cats"]]
    best = m.compute(predictions=["a dog runs"], references=refs)["meteor"]
    avg = m.compute(predictions=["a dog runs"], references=refs, reference_agg="mean")["meteor"]
    assert avg == pytest.approx(best / 2)
    from multimodal_metrics.ru_meteor import PRESETS  # the library's presets, the module's too

    assert PRESETS["default"] == PRESETS["captioning"]


def test_synonyms_none_needs_no_ruwordnet(monkeypatch):
    monkeypatch.delenv("RUWORDNET_DB", raising=False)
    monkeypatch.setattr(ru_meteor_synonyms, "default_ruwordnet_path", lambda: None)
    r = load_metric("ru_meteor").compute(
        predictions=["кошка спит"], references=["кошки спят"], synonyms="none"
    )
    assert r["meteor"] == 0.25 and "|syn:none|res:none|" in r["signature"]  # stems кошк = кошк, спит != спят


def test_ruwordnet_found_where_the_ruwordnet_package_keeps_it(monkeypatch, tmp_path, rwn):
    import shutil
    import sys

    package = tmp_path / "site" / "ruwordnet"
    (package / "static").mkdir(parents=True)
    (package / "__init__.py").write_text("raise ImportError('never imported: only located')\n")
    shutil.copy(rwn, package / "static" / "ruwordnet.db")  # where `ruwordnet download` writes it
    monkeypatch.delenv("RUWORDNET_DB", raising=False)
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site")] + sys.path)
    assert ru_meteor_synonyms.default_ruwordnet_path() == str(package / "static" / "ruwordnet.db")
    assert score("vqa", "Кошки", ["животное"]) == 1.0


def test_ruwordnet_found_through_the_environment(monkeypatch, rwn):
    monkeypatch.setenv("RUWORDNET_DB", rwn)
    assert score("vqa", "Кошки", ["животное"]) == 1.0


# ------------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------------
en_words = st.sampled_from("a the dog dogs cat sofa couch runs running ran red blue and on mat 3 .".split())
sentences = st.lists(en_words, max_size=7).map(" ".join)
examples = st.lists(st.tuples(sentences, st.lists(sentences, min_size=1, max_size=3)), min_size=1, max_size=6)


@settings(max_examples=80, deadline=None)
@given(examples, st.floats(0, 1), st.floats(0, 4), st.floats(0, 1))
def test_properties(data, alpha, beta, gamma):
    preds, refs = [p for p, _ in data], [r for _, r in data]
    opts = oracle.nltk_options(alpha=alpha, beta=beta, gamma=gamma)
    scores = core.meteor_per_example(preds, refs, **opts)
    assert all(0.0 <= s <= 1.0 for s in scores)
    # identity: one chunk of n tokens -> 1 - gamma / n**beta
    for p, s in zip(preds, core.meteor_per_example(preds, [[p] for p in preds], **opts)):
        n = len(ru_meteor_text.nltk_tokenize(p))
        assert s == (pytest.approx(1 - gamma * (1 / n) ** beta) if n else 0.0)
    # order of examples does not change the per-example scores; a further reference never lowers the max
    order = list(range(len(preds)))[::-1]
    assert core.meteor_per_example([preds[i] for i in order], [refs[i] for i in order], **opts) == [
        scores[i] for i in order
    ]
    more = core.meteor_per_example(preds, [r + ["dog"] for r in refs], **opts)
    assert all(m >= s for m, s in zip(more, scores))


@settings(max_examples=15, deadline=None)
@given(examples)
def test_module_per_example_mean_equals_aggregate_and_corpus_bounds(data):
    r = load_metric("ru_meteor", "nltk").compute(
        predictions=[p for p, _ in data],
        references=[r for _, r in data],
        return_per_example=True,
        corpus_score=True,
    )
    assert r["meteor"] == pytest.approx(sum(r["per_example"]) / len(data))
    assert 0.0 <= r["meteor_corpus"] <= 1.0


def test_corpus_score_of_one_example_equals_its_sentence_score():
    stats = core.meteor_per_example(
        ["the cat sat on a mat"], [["a cat sat on the mat"]], return_stats=True, **oracle.nltk_options()
    )
    assert core.corpus_meteor(stats[1]) == stats[0][0]
    assert math.isclose(
        core.corpus_meteor([(2, 4, 4, 1), (1, 2, 1, 1)]), core.meteor_formula(3, 6, 5, 2, 0.9, 3.0, 0.5)
    )


def test_caches_are_used():
    ru_meteor_stemmers.STEM_CACHES.clear()
    core.meteor_per_example(["dogs running"] * 50, [["dog runs", "the dogs"]] * 50, **oracle.nltk_options())
    assert set(ru_meteor_stemmers.STEM_CACHES["porter"]) == {"dogs", "running", "dog", "runs", "the"}


fuzz_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20) | st.sampled_from(
    [
        "@@UNKNOWN@@",
        "one hundred and five",
        "point five",
        "I cannot",
        "2.5",
        "-3",
        "«да» — нет…",
        "",
        " ",
        "\u200b\u0301",
    ]
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.sampled_from(["captioning", "vqa", "nltk", "ru"]),
    fuzz_text,
    st.lists(fuzz_text, min_size=1, max_size=3),
)
def test_seeded_fuzz_nothing_escapes(rwn, preset, prediction, references):
    """Any text through every preset's pipeline: a score in [0, 1], never an exception."""
    opts = {k: v for k, v in oracle.core_presets()[preset].items() if k != "corpus_score"}
    if preset != "nltk":
        opts["ruwordnet_path"] = rwn
    else:
        opts["wordnet"] = oracle.nltk_options()["wordnet"]
    (value,) = core.meteor_per_example([prediction], [references], **opts)
    assert 0.0 <= value <= 1.0


# ------------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options,exc,match",
    [
        (dict(predictions=["a\ud800"]), ValueError, r"`predictions\[0\]` is not valid Unicode"),
        (dict(stemmer="lancaster"), ValueError, r"`stemmer` must be one of"),
        (dict(synonyms="wiki"), ValueError, r"`synonyms` must be one of"),
        (dict(alpha=1.5), ValueError, r"`alpha` must be a number in"),
        (dict(gamma=float("nan")), ValueError, r"`gamma` must be a number"),
        (dict(beta="3"), TypeError, r"`beta` must be a number"),
        (dict(corpus_score=1), TypeError, r"`corpus_score` must be True"),
        (dict(return_per_example="yes"), TypeError, r"`return_per_example`"),
        (dict(corpus_score=True, numeric="fusion_brain"), ValueError, r"corpus_score"),
        (dict(ruwordnet_path=3, synonyms="ruwordnet_fb"), TypeError, r"`ruwordnet_path`"),
        (dict(wordnet_path="/nonexistent"), ValueError, r"WordNet .* `wordnet_path`"),
    ],
)
def test_bad_input(options, exc, match):
    """``options`` on one valid pair (a `predictions` of its own replaces the valid one)."""
    with pytest.raises(exc, match=match):
        load_metric("ru_meteor", "nltk").compute(**{"predictions": ["a"], "references": ["a"], **options})


def test_missing_ruwordnet_says_how_to_provide_it(monkeypatch, tmp_path):
    monkeypatch.delenv("RUWORDNET_DB", raising=False)
    monkeypatch.setattr(ru_meteor_synonyms, "default_ruwordnet_path", lambda: None)
    m = load_metric("ru_meteor")
    with pytest.raises(
        ValueError,
        match=r"RuWordNet database was not found .*ruwordnet download.*ruwordnet_path.*synonyms=\"none\"",
    ):
        m.compute(predictions=["a"], references=["a"], ruwordnet_path=str(tmp_path / "missing.db"))
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(ValueError, match="not a RuWordNet"):
        m.compute(predictions=["a"], references=["a"], ruwordnet_path=str(junk))


# ------------------------------------------------------------------------------------------------
# integration: add_batch, Trainer, demo
# ------------------------------------------------------------------------------------------------
def test_schemas_agree_and_add_accumulates():
    m = load_metric("ru_meteor", "nltk")
    a = m.compute(predictions=["a dog", "cat"], references=["the dog", "cat"])
    assert a == m.compute(predictions=["a dog", "cat"], references=[["the dog"], ["cat"]])
    m.add_batch(predictions=["a dog"], references=[["the dog"]])
    m.add(prediction="cat", reference=["dog", "cat"])
    assert m.compute()["meteor"] == pytest.approx(a["meteor"])


def test_trainer_compute_metrics():
    import numpy as np

    vocab = ["a dog runs", "the cat sits", "two birds fly", "a red car"]
    metric = load_metric("ru_meteor", "nltk")

    def compute_metrics(eval_pred):
        logits, labels = eval_pred
        return metric.compute(
            predictions=[vocab[i] for i in np.argmax(logits, axis=-1)],
            references=[vocab[i] for i in labels],
            for_trainer=True,
            corpus_score=True,
        )

    metrics = run_in_trainer(compute_metrics)
    assert (
        0.0 <= metrics["eval_ru_meteor_meteor"] <= 1.0
        and 0.0 <= metrics["eval_ru_meteor_meteor_corpus"] <= 1.0
    )
    assert (
        metric.last_signature.startswith("ru_meteor|preset:nltk|") and "|corpus:yes|" in metric.last_signature
    )


def test_demo_serves_computes_and_highlights():
    demo, client = serve_app(ROOT / "metrics" / "ru_meteor" / "app.py")
    try:
        result, *_, html = predict_by_name(
            client,
            demo,
            preds="две птицы летали над водою\nкошка",
            refs="две птицы летают над водой | птицы\nкошки",
            preset="captioning",
            opt_synonyms="none",
            example=0,
        )
        assert result["per_example"] == pytest.approx([0.996, 0.5])
        assert "|syn:none|" in result["signature"]
        assert html.count('class="mm-exact"') == 6 and html.count('class="mm-stem"') == 4  # both sides
        result, *_, html = predict_by_name(
            client, demo, preds="a sofa", refs="a couch", preset="nltk", opt_synonyms="wordnet", example=0
        )
        assert 'class="mm-synonym"' in html
        with pytest.raises(Exception, match="`predictions` has 2 examples"):
            predict_by_name(
                client, demo, preds="a\nb", refs="a", preset="nltk", opt_synonyms="none", example=0
            )
    finally:
        demo.close()


# ------------------------------------------------------------------------------------------------
# the command line (mm-score ru-meteor, the Fusion Brain 2022 integral's VisualQA sub-task)
# ------------------------------------------------------------------------------------------------
def _write_json(path, obj):
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    return str(path)


def _cli(capsys, *argv):
    import json

    from multimodal_metrics.cli import main

    code = main([*argv, "--no-progress"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 and "--json" in argv else out.out), out.err


def test_mm_score_ru_meteor_official_files(tmp_path, capsys, rwn):
    gt = _write_json(tmp_path / "captioning_gt.json", {
        "0": [{"type": "text", "content": ["Две птицы летают над водой.", "птицы"]}],
        "1": [{"type": "text", "content": ["кошка спит"]}],
    })  # fmt: skip
    pred = _write_json(tmp_path / "captioning_pred.json", {
        "0": [{"type": "image", "content": "x.jpg"}, {"type": "text", "content": "Две птицы летают над водой"}],
        "1": [{"type": "image", "content": "y.jpg"}],  # no text element: "" as in the official loop -> 0
    })  # fmt: skip
    code, out, err = _cli(capsys, "ru-meteor", "--gt", gt, "--pred", pred, "--ruwordnet-path", rwn, "--json")
    assert code == 0, err
    assert out["meteor"] == pytest.approx(0.996 / 2) and out["signature"].startswith(
        "ru_meteor|preset:captioning|"
    )
    gt = _write_json(
        tmp_path / "vqa_gt.json",
        {"0": [{"type": "text", "content": ["животное"]}], "1": [{"type": "text", "content": ["3"]}]},
    )
    pred = _write_json(
        tmp_path / "vqa_pred.json",
        {"0": [{"type": "text", "content": "Кошки"}], "1": [{"type": "text", "content": "2"}]},
    )
    code, out, err = _cli(
        capsys,
        "ru-meteor",
        "--format",
        "fusion_brain_2022_vqa",
        "--gt",
        gt,
        "--pred",
        pred,
        "--ruwordnet-path",
        rwn,
        "--json",
    )
    assert code == 0, err
    assert out["meteor"] == pytest.approx((1 + 2 / 3) / 2) and "|preset:vqa|" in out["signature"]
    code, _, err = _cli(
        capsys, "ru-meteor", "--gt", gt, "--pred", pred, "--ruwordnet-path", str(tmp_path / "none.db")
    )
    assert code == 2 and len(err.strip().splitlines()) == 1 and "RuWordNet database was not found" in err
    code, _, err = _cli(capsys, "ru-meteor", "--gt", gt, "--pred", pred, "--gamma", "2")
    assert code == 2 and "--gamma must be" in err and "`gamma`" not in err


def test_fusion_brain_2022_integral_scores_visual_qa(tmp_path, capsys, rwn, monkeypatch):
    monkeypatch.setenv("RUWORDNET_DB", rwn)
    _write_json(tmp_path / "textqa" / "textqa_gt.json", {"0": [{"type": "text", "content": ["Сухого"]}]})
    _write_json(tmp_path / "textqa" / "textqa_pred.json", {"0": [{"type": "text", "content": "Сухого"}]})
    _write_json(
        tmp_path / "vqa" / "vqa_gt.json",
        {"0": [{"type": "text", "content": ["3"]}], "1": [{"type": "text", "content": ["кошачий"]}]},
    )
    _write_json(
        tmp_path / "vqa" / "vqa_pred.json",
        {"0": [{"type": "text", "content": "2"}], "1": [{"type": "text", "content": "кошка"}]},
    )
    code, out, err = _cli(capsys, "fusion-brain-2022", str(tmp_path), "--partial", "--json")
    assert code == 0, err
    assert out["sub_tasks"]["vqa"]["score"] == pytest.approx((2 / 3 + 1) / 2)
    assert out["sub_tasks"]["vqa"]["signature"].startswith("ru_meteor|preset:vqa|")
    assert out["missing"] == ["captioning", "generation", "mathqa", "text_recognition"]
    assert out["score"] == pytest.approx((1 + (2 / 3 + 1) / 2) / 15)
