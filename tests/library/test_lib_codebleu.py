"""The library's codebleu without evaluate: score, Result, compare, the option table, and the
tree-sitter runtime of 2020 (where `grammar_library=` finds it, and the command that builds it)."""

import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from multimodal_metrics import codebleu
from multimodal_metrics.codebleu import build_runtime as builder
from multimodal_metrics.codebleu import legacy_runtime

ROOT = Path(__file__).resolve().parents[2]
PRED = "def add(a, b):\n    return a + b"
REF = "def sum(first, second):\n    return second + first"
SIGNATURE = "codebleu|preset:default|lang:python|w:0.25,0.25,0.25,0.25|kw:codexglue|cmt:java|strip:yes|df0:zero|astclip:no|tok:split|grammar:tree-sitter-python@0.25.0|ts:0.26.1|v:0.1.0"
BUILT_SDIST = (
    ROOT / ".build" / "legacy_ts" / "dl" / builder.SDIST_FILE
)  # kept by scripts/setup.d/codebleu_legacy_ts.sh


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def test_score_seed_vectors():
    """The module's doctest and the PyPI codebleu 0.7.0 golden values (tests/test_codebleu.py)."""
    r = codebleu.score([PRED], [REF], lang="python", grammar_library="wheels")  # the PyPI package's grammars
    assert {k: round(v, 4) for k, v in r.items() if k != "signature"} == {
        "codebleu": 0.5233,
        "ngram_match": 0.0435,
        "weighted_ngram_match": 0.0497,
        "syntax_match": 1.0,
        "dataflow_match": 1.0,
    }
    assert r.signature == SIGNATURE == r["signature"]
    java = codebleu.score(
        ["public int add(int a, int b) { return a + b; }"],
        [["public int sum(int x, int y) { return x + y; }"]],
        "pypi",
        lang="java",
    )
    assert java["codebleu"] == pytest.approx(0.5306039104748079, abs=1e-12)
    assert _quiet(codebleu.score, ["pass"], ["import os"], "pypi", lang="python")["codebleu"] == 0.25
    assert _quiet(codebleu.score, ["pass"], ["import os"], lang="python")["codebleu"] == 0.0
    with pytest.warns(UserWarning, match="no data flow"):
        codebleu.score(["pass"], ["import os"], lang="python")


def test_result_forms():
    r = codebleu.score(
        [PRED, "x = 1"],
        [REF, ["x = 2", "x = 1"]],
        lang="python",
        return_per_example=True,
        confidence=0.9,
        n_resamples=50,
    )
    assert list(r)[:5] == list(codebleu.KEYS) and "codebleu_ci_low" in r and "dataflow_match_ci_high" in r
    assert r.per_example == r["per_example"] and len(r.per_example) == 2
    assert set(r.per_example[0]) == {*codebleu.KEYS, "dataflow_limited"}
    assert r.signature.endswith("|ci:bs-pct|conf:0.9|bs:50|seed:12345|v:0.1.0") and "|grammar:" in r.signature
    assert r.for_trainer()["codebleu"] == r["codebleu"] and "signature" not in r.for_trainer()
    assert type(r.to_dict()) is dict and r.statistic.n == 2
    assert codebleu.score([PRED], [REF], lang="python").per_example is None  # per example only when asked


def test_compare():
    out = codebleu.compare(
        [PRED, "x = 1"],
        ["pass", "y = 2"],
        [REF, "x = 1"],
        lang="python",
        test="paired_bootstrap",
        n_resamples=100,
    )
    assert out["codebleu_a"] > out["codebleu_b"] and "test:paired-bs|n:100" in out["signature"]
    with pytest.raises(ValueError, match="predictions_b"):
        codebleu.compare([PRED], None, [REF], lang="python")


def test_option_table_drives_the_checks():
    assert codebleu.OPTIONS.names == [
        "lang",
        "weights",
        "keywords",
        "remove_comments",
        "strip",
        "missing_dataflow",
        "ast_clipping",
        "grammar_library",
    ]
    assert set(codebleu.PRESETS) == {"default", "paper", "pypi", "k4black", "fusion_brain_2021"}
    with pytest.raises(ValueError, match=r"`lang` is required: one of \['python'"):
        codebleu.score(["x"], ["x"], weights=[1, 2])  # lang first, then the others
    with pytest.raises(TypeError, match=r"`weights` must be a list of 4 numbers"):
        codebleu.score(["x"], ["x"], lang="python", weights=[1, 2])
    with pytest.raises(ValueError, match=r"`weights\[1\]` must be a finite number >= 0.0"):
        codebleu.score(["x"], ["x"], lang="python", weights=[1, -1, 0, 0])
    # the order compute has always checked them in: missing_dataflow before strip
    with pytest.raises(ValueError, match="`missing_dataflow` must be one of"):
        codebleu.score(["x"], ["x"], lang="python", strip=1, missing_dataflow="two")
    with pytest.raises(TypeError, match="grammar_library"):
        codebleu.score(["x"], ["x"], lang="python", grammar_library=3)
    with pytest.raises(ValueError, match="unknown option 'language'"):
        codebleu.score(["x"], ["x"], language="python")
    with pytest.raises(ValueError, match="unknown preset"):
        codebleu.score(["x"], ["x"], preset="codexglue", lang="python")
    with pytest.raises(ValueError, match="`predictions` has 1 examples but `references` has 2"):
        codebleu.score(["x"], ["x", "y"], lang="python")
    fb = codebleu.score(["x = 1"], ["x = 1"], "fusion_brain_2021")  # the one preset with a language
    assert "|lang:python|" in fb.signature and "|strip:no|" in fb.signature
    assert "weights (`list of 4 float`, optional)" in codebleu.OPTIONS.describe()


def test_the_formula_and_its_parts():
    """``corpus`` is the formula over the parts in ``keywords``, ``trees``, ``dataflow`` and ``ngrams``; the
    package exports the public names; no module of the package grows past 800 lines."""
    from multimodal_metrics.codebleu import corpus, keywords

    assert (codebleu.corpus_codebleu, codebleu.KEYS) == (corpus.corpus_codebleu, corpus.KEYS)
    assert (codebleu.KEYWORDS, codebleu.LANGUAGES, codebleu.remove_comments) == (
        keywords.KEYWORDS,
        keywords.LANGUAGES,
        keywords.remove_comments,
    )
    assert all(hasattr(codebleu, name) for name in codebleu.__all__)
    folder = Path(corpus.__file__).parent
    assert not (folder / "core.py").exists()
    assert all(len(p.read_text().splitlines()) < 800 for p in folder.glob("*.py"))


# ----------------------------------------------------------------------------------------------
# The runtime of 2020: lookup order, never the working directory, the build command
# ----------------------------------------------------------------------------------------------
@pytest.fixture()
def places(monkeypatch, tmp_path):
    """No variable, an empty per-user cache under tmp/cache, a fake checkout under tmp/checkout."""
    monkeypatch.delenv(legacy_runtime.RUNTIME_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    checkout = tmp_path / "checkout" / ".build" / "legacy_ts"
    monkeypatch.setattr(legacy_runtime, "checkout_dir", lambda: checkout)
    cache = tmp_path / "cache" / "multimodal_metrics" / "legacy_ts"
    return cache, checkout


def _plant(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / legacy_runtime.RUNTIME_FILE
    path.write_bytes(b"not loaded by these tests")
    return path


def test_runtime_lookup_order(places, monkeypatch, tmp_path):
    cache, checkout = places
    assert legacy_runtime.cache_dir() == cache
    with pytest.raises(RuntimeError, match="build_runtime"):
        legacy_runtime.find_runtime()
    in_checkout = _plant(checkout)
    assert legacy_runtime.find_runtime() == in_checkout
    in_cache = _plant(cache)
    assert legacy_runtime.find_runtime() == in_cache  # the per-user cache before the checkout
    named = _plant(tmp_path / "env")
    monkeypatch.setenv(legacy_runtime.RUNTIME_ENV, str(named))
    assert legacy_runtime.find_runtime() == named  # the variable before the cache
    explicit = _plant(tmp_path / "explicit")
    assert legacy_runtime.find_runtime(explicit) == explicit  # an explicit path before everything
    with pytest.raises(RuntimeError, match="runtime_path=.*is not a file"):
        legacy_runtime.find_runtime(tmp_path / "none.so")
    monkeypatch.setenv(legacy_runtime.RUNTIME_ENV, str(tmp_path / "none.so"))
    with pytest.raises(RuntimeError, match="CODEBLEU_TS_RUNTIME=.*is not a file"):
        legacy_runtime.find_runtime()  # a variable naming no file is an error, not skipped
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # not absolute: ignored (XDG), ~/.cache instead
    assert legacy_runtime.cache_dir() == Path.home() / ".cache" / "multimodal_metrics" / "legacy_ts"


def test_runtime_never_from_the_working_directory(places, monkeypatch, tmp_path):
    """A runtime under the working directory's .build/legacy_ts (or its parents') is never loaded."""
    cwd = tmp_path / "work" / "sub"
    cwd.mkdir(parents=True)
    for folder in (cwd, cwd.parent):
        _plant(folder / ".build" / "legacy_ts")
    monkeypatch.chdir(cwd)
    with pytest.raises(RuntimeError, match="not built here"):
        legacy_runtime.find_runtime()
    assert all(cwd.parent not in path.parents for _, path in legacy_runtime.runtime_candidates())


def test_checkout_dir_is_found_from_the_library_itself():
    here = Path(legacy_runtime.__file__).resolve()
    if here.parents[2].name == "src" and (here.parents[3] / "setup.cfg").is_file():
        assert legacy_runtime.checkout_dir() == here.parents[3] / ".build" / "legacy_ts"
    else:  # an installed library: no checkout
        assert legacy_runtime.checkout_dir() is None


def test_where(places, capsys):
    cache, checkout = places
    path = _plant(checkout)
    assert builder.main(["--where"]) == 0
    out = capsys.readouterr().out
    assert f"per-user cache  {cache / legacy_runtime.RUNTIME_FILE}  (missing)" in out
    assert f"checkout        {path}  (found)" in out and f"loads: {path}" in out


def test_build_refuses_an_sdist_with_another_checksum(tmp_path, capsys):
    fake = tmp_path / builder.SDIST_FILE
    fake.write_bytes(b"not the sdist")
    with pytest.raises(builder.BuildError, match="sha256 .* is not the pinned 8dd2e44a"):
        builder.build_runtime(tmp_path / "out", sdist=fake)
    assert not (tmp_path / "out").exists()
    assert builder.main(["--dest", str(tmp_path / "out"), "--sdist", str(fake)]) == 1
    assert "build_runtime: error:" in capsys.readouterr().err


@pytest.mark.skipif(
    shutil.which(os.environ.get("CC", "cc")) is None or not BUILT_SDIST.is_file(),
    reason="needs cc and the sdist kept by scripts/setup.d/codebleu_legacy_ts.sh",
)
def test_build_runtime_from_the_pinned_sdist(tmp_path):
    """The command's library function builds a loadable runtime (byte-identical wherever it is built), once."""
    first = builder.build_runtime(tmp_path / "a", sdist=BUILT_SDIST, quiet=True)
    assert (
        first == tmp_path / "a" / legacy_runtime.RUNTIME_FILE
        and (tmp_path / "a" / builder.STAMP_FILE).is_file()
    )
    stamp = first.stat().st_mtime_ns
    assert builder.build_runtime(tmp_path / "a", sdist=BUILT_SDIST, quiet=True) == first
    assert first.stat().st_mtime_ns == stamp  # up to date: not rebuilt
    runtime = legacy_runtime.load_runtime(first)
    parser = runtime.parser_new()
    assert runtime.path == first and parser
    runtime.parser_delete(parser)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "multimodal_metrics.codebleu.build_runtime",
            "--quiet",
            "--no-grammars",
            "--dest",
            str(tmp_path / "b"),
            "--sdist",
            str(BUILT_SDIST),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    second = Path(out.stdout.strip())
    assert second == tmp_path / "b" / legacy_runtime.RUNTIME_FILE
    assert second.read_bytes() == first.read_bytes()
