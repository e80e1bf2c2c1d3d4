"""codebleu's C walker for the grammar wheels (``wheels_walk.c``, the `pypi` preset's trees): the numbers of the
Python walk bit for bit, in every language, on generated code with parse errors, MISSING tokens, non-ASCII text,
comments and trees deeper than the printer's limit; its subtree ids equal exactly where the Python path's keys
are. Needs the walker built (``python -m multimodal_metrics.codebleu.build_runtime``, run by
scripts/setup.d/codebleu_legacy_ts.sh); about 20 s."""

import os
import random
import shutil
import warnings
from pathlib import Path

import pytest
from oracles import codebleu_pypi as oracle

from multimodal_metrics import codebleu
from multimodal_metrics.codebleu import build_runtime as builder
from multimodal_metrics.codebleu import corpus, scoring, trees, wheels_runtime

LANGS = ("python", "java", "javascript", "c_sharp", "php", "c", "cpp", "go", "ruby", "rust")
PIECES = ["x", "y", "=", "+", "(", ")", "{", "}", "[", "]", ";", ",", ":", "if", "for", "while", "def", "return",
          "class", "'s'", '"t"', "1", "2.5", "\n", "    ", "é", "名前", "//c", "#c", "/*", "*/", "->", "=>", "fn",
          "int", "func", "$a", "end", "do", "<?php", "?>", "\\", "`", "@", "&&", "||", "!", "?"]  # fmt: skip


@pytest.fixture(scope="module")
def walker():
    found = wheels_runtime.walker()
    if found is None:
        pytest.skip(
            "the grammar wheels' walker is not built (python -m multimodal_metrics.codebleu.build_runtime)"
        )
    return found


def _corpus(lang, seed):
    """Generated pairs of the language, a third truncated (errors, MISSING tokens), some token soup, some
    non-ASCII, and the edge cases: empty, one token, a string or comment alone, 2,500 nested parentheses."""
    rng = random.Random(f"{lang}-{seed}")
    preds, refs = [], []
    for p, r in zip(*oracle.mutated_pairs(lang, 40, seed)):
        r = r if isinstance(r, str) else r[0]
        k = rng.random()
        if k < 0.3:
            p = p[: rng.randrange(len(p) + 1)]
        elif k < 0.5:
            p = "".join(rng.choice(PIECES) + rng.choice(["", " "]) for _ in range(rng.randint(0, 40)))
        elif k < 0.6:
            p = p.replace("x", "é") + "\n# ünïcode"
        preds.append(p)
        refs.append(r)
    preds += ["", "x", "(" * 2500, "1", '"s"', "//only a comment", "((((" * 10 + "x"]
    refs += ["x", "", "x", "(" * 2500 + "x", "'c'", "y", "(x)"]
    return preds, refs


def _both(preds, refs, lang, walker):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kw = dict(keywords="pypi", remove_comments="lang", missing_dataflow="zero_is_one", per_example=True)
        python = corpus.corpus_codebleu(preds, [[r] for r in refs], lang, **kw)
        native = corpus.corpus_codebleu(preds, [[r] for r in refs], lang, trees=walker, **kw)
    return python, native


@pytest.mark.parametrize("lang", LANGS)
def test_walker_gives_the_python_walks_numbers(walker, lang):
    for seed in (0, 1):
        preds, refs = _corpus(lang, seed)
        python, native = _both(preds, refs, lang, walker)
        assert native[0] == python[0] and native[1] == python[1]
        assert native[2] == python[2]  # parse errors, data-flow limits, unprinted subtrees, the statistics


def test_subtrees_too_deep_to_print_are_counted_alike(walker):
    deep = "(" * (trees.MAX_PRINT_DEPTH + 100) + "a" + ")" * (trees.MAX_PRINT_DEPTH + 100)
    code = "def f(a, b):\n    c = " + deep + " return c\n"
    other = "def f(a, b):\n    c = (a) return c\n"
    python, native = _both([code, other, code], [code, code, other], "python", walker)
    assert native == python and python[2]["unprinted"] == [0, 1, 2]
    assert corpus.parse_flat(code, "python", trees.new_interner(), walker).unprinted == 1


@pytest.mark.parametrize("lang", ["python", "java", "ruby", "php"])
def test_subtree_ids_are_equal_exactly_where_the_python_keys_are(walker, lang):
    """Both walks list a snippet's subtrees in the same order (as each node closes); across the snippets of one
    computation a walker id and a Python id always go together (a bijection): they tell the same subtrees apart."""
    preds, refs = _corpus(lang, 2)
    native_ids, python_ids = trees.new_interner(), trees.new_interner()
    pairs = {}
    for code in preds + refs:
        a = corpus.parse_flat(code, lang, python_ids).subtrees
        b = corpus.parse_flat(code, lang, native_ids, walker).subtrees
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert pairs.setdefault(y, x) == x
    assert len(set(pairs.values())) == len(pairs) > 100


def test_pypi_preset_scores_with_the_walker(walker):
    """`grammar_library="wheels"` (the `pypi` preset) takes the walker; the scores equal the Python walk's."""
    assert scoring.tree_source("wheels", "java")[0] is walker
    preds, refs = _corpus("java", 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        native = codebleu.score(preds, refs, "pypi", lang="java", return_per_example=True)
        wheels_runtime._WALKERS["walker"] = None
        try:
            python = codebleu.score(preds, refs, "pypi", lang="java", return_per_example=True)
        finally:
            wheels_runtime._WALKERS["walker"] = walker
    assert dict(native) == dict(python) and native.per_example == python.per_example


WHEELS_SDIST = (
    Path(__file__).resolve().parent.parent / ".build" / "legacy_ts" / "dl" / builder.WHEELS_SDIST_FILE
)


@pytest.mark.skipif(
    shutil.which(os.environ.get("CC", "cc")) is None or not WHEELS_SDIST.is_file(),
    reason="needs cc and the tree-sitter sdist kept by scripts/setup.d/codebleu_legacy_ts.sh",
)
def test_build_the_walker_from_the_pinned_sdist(tmp_path):
    """The library command builds a loadable walker from the pinned sdist, once (its stamp), about 15 s."""
    built = builder.build_wheels_walker(tmp_path, sdist=WHEELS_SDIST, quiet=True)
    assert built == tmp_path / wheels_runtime.WALKER_FILE and (tmp_path / builder.WHEELS_STAMP_FILE).is_file()
    mtime = built.stat().st_mtime_ns
    assert builder.build_wheels_walker(tmp_path, sdist=WHEELS_SDIST, quiet=True) == built
    assert built.stat().st_mtime_ns == mtime  # up to date: not rebuilt
    loaded = wheels_runtime.WheelsWalker(built)
    tree = loaded.flatten("python", "def f(x):\n    return x\n", trees.new_interner())
    assert tree.subtrees and tree.dataflow is not None
    with pytest.raises(builder.BuildError, match="is not the pinned"):
        builder.build_wheels_walker(
            tmp_path, sdist=tmp_path / wheels_runtime.WALKER_FILE, force=True, quiet=True
        )
