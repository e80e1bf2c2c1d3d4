"""The shared WordNet piece (multimodal_metrics.resources.wordnet) as the two metrics that read it use it:
vqa_acc `wups` and ru_meteor `nltk`.

- Debian's wordnet-base files (/usr/share/wordnet, what a Space installs from packages.txt) are found
  when NLTK has no wordnet corpus, and give the numbers NLTK's own corpus gives (NLTK's meteor_score
  for ru_meteor);
- `wordnet_path` is on `nltk.data.path` only while a computation runs (also when it fails);
- NLTK's zipped layout (corpora/wordnet.zip) is found, as nltk.corpus.wordnet finds it;
- a missing WordNet is a ValueError saying how to install it and how to run without it.
"""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
from helpers import METRICS, ROOT, load_metric
from oracles.ru_meteor import NLTK_OPTIONS

from multimodal_metrics.resources import wordnet

NLTK_WORDNET = ROOT / ".build" / "nltk_data" / "corpora" / "wordnet"  # built by scripts/setup_env.sh

# metric, preset, inputs whose scores read WordNet (synonyms for ru_meteor, Wu-Palmer for vqa_acc)
CASES = {
    "vqa_acc": ("wups", {
        "predictions": ["cat", "table,chair", "couch", "Dogs", "xyzzy"],
        "references": [["dog"], ["chair,table"], ["sofa"], ["puppy"], ["cat"]],
        "threshold": 0.0,
    }),
    "ru_meteor": ("nltk", {
        "predictions": ["a sofa", "the kids ran over the big hill", "a man drives an automobile", "xyzzy"],
        "references": [["a couch"], ["children run up a large mound", "the kid"], ["a car driven by a man"], ["y"]],
    }),
}  # fmt: skip

_CHILD = """
import json, sys
import evaluate, nltk

try:
    nltk.data.find("corpora/wordnet")
    sys.exit("NLTK's own wordnet corpus is on the data path: the fallback is not tested")
except LookupError:
    pass
cases, debian = json.loads(sys.argv[1]), sys.argv[2]
before = list(nltk.data.path)
out = {}
for folder, (preset, kwargs) in cases.items():
    metric = evaluate.load(folder, preset)
    fallback = metric.compute(**kwargs, return_per_example=True)
    assert nltk.data.path == before, nltk.data.path
    by_path = metric.compute(**kwargs, wordnet_path=debian, return_per_example=True)
    assert nltk.data.path == before, nltk.data.path
    out[folder] = [fallback, by_path]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def without_nltk_wordnet(tmp_path_factory):
    """Both metrics computed in a process whose NLTK data path holds no WordNet: {folder: [result with
    the Debian fallback, result with wordnet_path=/usr/share/wordnet]}."""
    home = tmp_path_factory.mktemp("no_nltk")
    env = {**os.environ, "NLTK_DATA": str(home / "nltk_data"), "HOME": str(home)}
    cases = json.dumps({str(METRICS / name): case for name, case in CASES.items()})
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, cases, wordnet.DEBIAN_WORDNET], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(CASES))
def test_debian_files_are_read_when_nltk_has_no_wordnet(name, without_nltk_wordnet):
    """The Space's case: no NLTK wordnet corpus, only Debian's wordnet-base (no `lexnames` file)."""
    assert wordnet._is_dict_dir(wordnet.Path(wordnet.DEBIAN_WORDNET)), "apt-get install wordnet-base"
    assert not (wordnet.Path(wordnet.DEBIAN_WORDNET) / "lexnames").exists()
    preset, kwargs = CASES[name]
    expected = load_metric(name, preset).compute(**kwargs, return_per_example=True)  # NLTK's copy (NLTK_DATA)
    fallback, by_path = without_nltk_wordnet[str(METRICS / name)]
    assert fallback == by_path == expected
    assert any(0 < s < 1 for s in expected["per_example"])  # WordNet decided some scores
    if name == "ru_meteor":  # NLTK's meteor_score (its own lazy WordNet reader) is the oracle
        from nltk.tokenize import word_tokenize
        from nltk.translate.meteor_score import meteor_score

        tok = lambda s: word_tokenize(s, preserve_line=True)  # noqa: E731
        pairs = zip(kwargs["predictions"], kwargs["references"])
        assert fallback["per_example"] == [meteor_score([tok(r) for r in rs], tok(p)) for p, rs in pairs]
        assert "|res:wordnet-3.0|" in fallback["signature"]


def test_lexnames_table_equals_the_file_built_from_debians_man_page():
    assert wordnet.lexnames_text() == (NLTK_WORDNET / "lexnames").read_text()


def _scoring_module(metric):
    """Where the metric's scoring runs: its library's ``scoring`` module (a metric moved into
    multimodal_metrics), else the evaluate script itself."""
    library = getattr(type(metric), "library", None)
    return sys.modules[library.score.__module__ if library is not None else type(metric).__module__]


@pytest.mark.parametrize("name", sorted(CASES))
def test_wordnet_path_is_on_nltk_data_path_only_during_a_computation(name, tmp_path, monkeypatch):
    import nltk

    preset, kwargs = CASES[name]
    metric = load_metric(name, preset)
    expected = metric.compute(**kwargs)
    before = list(nltk.data.path)
    for path in (str(NLTK_WORDNET.parent.parent), str(NLTK_WORDNET), wordnet.DEBIAN_WORDNET):
        assert metric.compute(**kwargs, wordnet_path=path) == expected
        assert nltk.data.path == before
    # a computation that fails half-way takes the folder off the path too
    script = _scoring_module(metric)
    scorer = "wups_per_question" if name == "vqa_acc" else "meteor_per_example"
    seen = []

    def broken(*args, **kw):
        seen.append(list(nltk.data.path))
        raise RuntimeError("boom")

    monkeypatch.setattr(script, scorer, broken)
    with pytest.raises(RuntimeError, match="boom"):
        metric.compute(**kwargs, wordnet_path=str(NLTK_WORDNET))
    assert seen and seen[0][0] == str(NLTK_WORDNET.parent.parent) and nltk.data.path == before


def test_the_core_reads_only_the_wordnet_it_is_handed():
    """The cores never look for WordNet: the main script hands them the reader."""
    from multimodal_metrics.ru_meteor import core as meteor
    from multimodal_metrics.vqa_acc import wups

    with pytest.raises(TypeError, match="`wordnet`"):
        wups.max_wup("dog", "cat", None)
    with pytest.raises(TypeError, match="`wordnet`"):
        meteor.meteor_per_example(["a"], [["a"]], **NLTK_OPTIONS)
    assert wups.wups_per_question(["dog"], [["dog, cat"]], threshold=-1).tolist() == [
        0.0
    ]  # no WordNet needed


def test_nltks_zipped_corpus_is_found(tmp_path, monkeypatch):
    """`nltk.download("wordnet")` may leave corpora/wordnet.zip: found on NLTK's data path (directory
    first, then the zip, as nltk.corpus.wordnet) and under `wordnet_path`."""
    import nltk

    (tmp_path / "corpora").mkdir()
    with zipfile.ZipFile(tmp_path / "corpora" / "wordnet.zip", "w", zipfile.ZIP_STORED) as archive:
        for file in sorted(NLTK_WORDNET.iterdir()):
            archive.write(file, f"wordnet/{file.name}")
    location = f"{tmp_path / 'corpora' / 'wordnet.zip'}/wordnet/"
    assert wordnet.locate_wordnet(str(tmp_path)) == (str(tmp_path), location)
    with wordnet.open_wordnet(str(tmp_path)) as reader:
        assert [s.name() for s in reader.synsets("dog")] == [
            s.name() for s in wordnet.load_wordnet().synsets("dog")
        ]
        assert reader.get_version() == "3.0"
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    assert wordnet.locate_wordnet() == (None, location)
    shutil.copytree(NLTK_WORDNET, tmp_path / "corpora" / "wordnet")
    assert wordnet.locate_wordnet() == (None, str(tmp_path / "corpora" / "wordnet"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_missing_wordnet_says_how_to_install_it_and_how_to_do_without(name, tmp_path, monkeypatch):
    import nltk

    preset, kwargs = CASES[name]
    metric = load_metric(name, preset)
    without = r"threshold=-1" if name == "vqa_acc" else r"synonyms=\"none\""
    with pytest.raises(
        ValueError, match=rf"not found under `wordnet_path`=.*wordnet-base.*packages\.txt.*{without}"
    ):
        metric.compute(**kwargs, wordnet_path=str(tmp_path))
    # nothing anywhere: not on NLTK's data path, not in the Debian folder
    shared = _scoring_module(metric).load_wordnet.__globals__
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    monkeypatch.setitem(shared, "DEBIAN_WORDNET", str(tmp_path / "wordnet"))
    with pytest.raises(
        ValueError, match=rf"not found on NLTK's data path nor in .*apt-get install wordnet-base.*{without}"
    ):
        metric.compute(**kwargs)
    off = {"threshold": -1} if name == "vqa_acc" else {"synonyms": "none"}
    assert metric.compute(**{**kwargs, **off})  # runs without any WordNet
