"""The library's ru_meteor without evaluate: score, Result, compare, the option table, local resources."""

import pytest
from oracles.ru_meteor import make_ruwordnet_db

from multimodal_metrics import ru_meteor


@pytest.fixture(scope="module")
def rwn(tmp_path_factory):
    """A RuWordNet-schema SQLite file with the stub entries of seeds_reference.md 6.4/6.5."""
    return make_ruwordnet_db(tmp_path_factory.mktemp("rwn") / "ruwordnet.db")


def meteor(preset, prediction, references, **options):
    return ru_meteor.score([prediction], [references], preset=preset, **options)["meteor"]


# the seeds' vectors of tests/test_ru_meteor.py (6.13 NLTK, 6.5 captioning, 6.4 VQA)
@pytest.mark.parametrize(
    "preset,hyp,refs,expected",
    [
        ("nltk", "dogs", ["dog"], 0.5),
        ("nltk", "dog", ["black dog"], 0.263158),
        ("nltk", "blue and red", ["red and blue"], 0.5),
        ("captioning", "Две птицы летают над водой", ["Две птицы летают над водой."], 0.996),
        ("captioning", "над водой летают две птицы", ["две птицы летают над водой"], 0.892),
        ("captioning", "два сокола над озером", ["птицы летают", "два сокола летят над озером"], 0.765306),
        ("default", "две птицы летали над водою", ["две птицы летают над водой"], 0.996),
        ("vqa", "Желтый", ["желтого", "ярко-желтого"], 1.0),
        ("vqa", "2", ["3"], 0.666667),
        ("vqa", "три", ["3"], 1.0),
        ("vqa", "Кошки", ["животное"], 1.0),  # the official RuWordNet stage: hypernym title
        ("vqa", "животное", ["кошка"], 0.0),  # directional
    ],
)
def test_score_seed_vectors(preset, hyp, refs, expected, rwn):
    assert meteor(preset, hyp, refs, ruwordnet_path=rwn) == pytest.approx(expected, abs=1e-6)


def test_synonyms_none_runs_without_resources_and_is_in_the_signature():
    r = ru_meteor.score(["кошка спит"], ["кошки спят"], synonyms="none", return_per_example=True)
    assert r["meteor"] == 0.25 and r.per_example == [0.25] == r["per_example"]
    assert r.signature == (
        "ru_meteor|preset:default|prep:fb_captioning|num:wordtodigits|tok:nltk|stem:snowball_ru|syn:none|res:none|"
        "a:0.9|b:3|g:0.5|numeric:none|refs:max|corpus:no|lib:nltk-3.10.4+razdel-0.5.0+wordtodigits-1.0.2|v:0.1.0"
    )


def test_result_forms_and_corpus_score(rwn):
    r = ru_meteor.score(
        ["Машины едут мимо дома.", "кошки спят"], [["автомобиль едет мимо здания"], ["кошка спит", "котик спит"]],
        preset="ru", ruwordnet_path=rwn, confidence=0.9, n_resamples=200,
    )  # fmt: skip
    assert list(r)[:2] == ["meteor", "meteor_corpus"] and "per_example" not in r and type(r.to_dict()) is dict
    assert r.per_example == pytest.approx([1 - 0.5 / 64, 1 - 0.5 / 8])
    assert r["meteor_corpus"] == pytest.approx(1 - 0.5 * (2 / 6) ** 3)
    assert r["meteor_ci_low"] <= r["meteor"] <= r["meteor_ci_high"]
    assert r["meteor_corpus_ci_low"] <= r["meteor_corpus"] <= r["meteor_corpus_ci_high"]
    assert "|corpus:yes|" in r.signature and r.signature.endswith(
        "|ci:bs-pct|conf:0.9|bs:200|seed:12345|v:0.1.0"
    )
    assert r.statistic.keys == ("meteor", "meteor_corpus") and r.statistic.n == 2
    assert set(r.for_trainer()) == {
        "ru_meteor_meteor", "ru_meteor_meteor_corpus", "ru_meteor_meteor_ci_low", "ru_meteor_meteor_ci_high",
        "ru_meteor_meteor_corpus_ci_low", "ru_meteor_meteor_corpus_ci_high",
    }  # fmt: skip


def test_compare():
    refs = ["a dog runs", "the cat sits", "two birds fly", "a red car"]
    out = ru_meteor.compare(
        refs,
        ["a dog", "a cat", "birds", "car"],
        refs,
        preset="nltk",
        test="paired_bootstrap",
        n_resamples=100,
    )
    assert out["meteor_a"] > out["meteor_b"] and out["meteor_difference"] == out["meteor_a"] - out["meteor_b"]
    assert "|syn:wordnet|res:wordnet-3.0|" in out["signature"] and "test:paired-bs|n:100" in out["signature"]
    with pytest.raises(ValueError, match="predictions_b"):
        ru_meteor.compare(["a"], None, ["a"], preset="nltk")


def test_option_table_drives_the_checks(tmp_path):
    assert ru_meteor.OPTIONS.names == [
        "preprocess", "number_words", "tokenizer", "stemmer", "synonyms", "alpha", "beta", "gamma", "numeric",
        "reference_agg", "corpus_score", "wordnet_path", "ruwordnet_path",
    ]  # fmt: skip
    assert set(ru_meteor.PRESETS) == {"captioning", "vqa", "nltk", "ru", "default"}
    assert ru_meteor.PRESETS["default"] == ru_meteor.PRESETS["captioning"]
    assert "stemmer (`str`, optional): stage 2" in ru_meteor.OPTIONS.describe()
    with pytest.raises(ValueError, match="`stemmer` must be one of"):
        ru_meteor.score(["a"], ["a"], stemmer="lancaster", synonyms="none")
    with pytest.raises(ValueError, match=r"`alpha` must be a number in \[0.0, 1.0\], got 1.5"):
        ru_meteor.score(["a"], ["a"], alpha=1.5, synonyms="none")
    with pytest.raises(TypeError, match="`corpus_score` must be True or False"):
        ru_meteor.score(["a"], ["a"], corpus_score=1, synonyms="none")
    with pytest.raises(ValueError, match="`corpus_score=True` needs"):
        ru_meteor.score(["a"], ["a"], preset="vqa", corpus_score=True, synonyms="none")
    # the checks' order: the choices, then alpha / beta / gamma, then the resource paths
    with pytest.raises(ValueError, match="`numeric` must be one of"):
        ru_meteor.score(["a"], ["a"], alpha=2.0, numeric="x", ruwordnet_path=3)
    with pytest.raises(TypeError, match=r"`ruwordnet_path` must be a path \(str\), got int \(3\)"):
        ru_meteor.score(["a"], ["a"], ruwordnet_path=3)
    # an unknown option: the list names every option, the resource paths included
    with pytest.raises(
        ValueError,
        match=r"unknown option 'stemer'; expected one of \['alpha', 'beta', .*'tokenizer', 'wordnet_path'\]$",
    ):
        ru_meteor.score(["a"], ["a"], stemer="porter")
    with pytest.raises(ValueError, match="unknown preset"):
        ru_meteor.score(["a"], ["a"], preset="meteor15")
    with pytest.raises(TypeError, match="`return_per_example` must be True or False"):
        ru_meteor.score(["a"], ["a"], return_per_example="yes", alpha=2.0)  # before the options
    with pytest.raises(ValueError, match="`predictions` has 1 examples but `references` has 2"):
        ru_meteor.score(["a"], ["a", "b"], synonyms="none")


def test_resources_are_read_from_local_paths(tmp_path, monkeypatch):
    monkeypatch.delenv("RUWORDNET_DB", raising=False)
    with pytest.raises(
        ValueError, match=r"RuWordNet database was not found at `ruwordnet_path`=.*ruwordnet download"
    ):
        ru_meteor.score(["a"], ["a"], ruwordnet_path=str(tmp_path / "missing.db"))
    with pytest.raises(
        ValueError, match=r"WordNet 3.0 was not found under `wordnet_path`=.*synonyms=\"none\""
    ):
        ru_meteor.score(["a sofa"], ["a couch"], preset="nltk", wordnet_path=str(tmp_path))
    assert meteor("nltk", "a sofa", ["a couch"]) > 0.4  # NLTK's data path (NLTK_DATA) or Debian's files
    assert meteor("nltk", "a sofa", ["a couch"], synonyms="none") == 0.25
