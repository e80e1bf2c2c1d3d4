"""codebleu with `grammar_library=`: the tree-sitter runtime of 2020 (ctypes over the C core of the PyPI
sdist tree_sitter==0.2.0) against py-tree-sitter 0.2.0 itself, on an ABI-11 library built from the npm
grammars tree-sitter-python 0.16.1 / tree-sitter-java 0.16.0 (scripts/setup.d/codebleu_legacy_ts.sh).

(a) trees: node types, byte spans, points, fields, named/missing/error flags and the `node.sexp()` list
    of every subtree equal the 0.2.0 binding's, on generated snippets (valid, mutated, pseudo-code, noise);
(b) the whole CodeBLEU through the option equals the CodeXGLUE algorithm run on 0.2.0's trees
    (tests/oracles/codebleu_codexglue.py), for the `default` and `fusion_brain_2021` presets.
"""

import contextlib
import json
import os
import shutil
import warnings

import pytest
from helpers import ROOT, load_metric, run_python_json
from oracles import codebleu_codexglue as legacy_oracle
from test_codebleu import AIJ, SAMPLE_PRED, SAMPLE_REFS

from multimodal_metrics import codebleu
from multimodal_metrics.codebleu import legacy_runtime as ts_legacy
from multimodal_metrics.codebleu import trees as cb_trees
from multimodal_metrics.digests import file_sha256

LIBRARY = legacy_oracle.NPM_LIBRARY
LEGACY_LANGS = ["python", "java"]
N_SNIPPETS = 240

needs_legacy = pytest.mark.skipif(
    not legacy_oracle.oracle_available(),
    reason="run scripts/setup.d/codebleu_legacy_ts.sh (builds .build/legacy_ts and .build/venv-ts020)",
)
pytestmark = needs_legacy


@pytest.fixture(scope="module")
def library():
    return ts_legacy.open_library(LIBRARY, codebleu.LANGUAGES)


@pytest.fixture(scope="module")
def oracle_trees():
    snippets = {lang: legacy_oracle.legacy_snippets(lang, N_SNIPPETS) for lang in LEGACY_LANGS}
    jobs = [
        {"kind": "trees", "library": str(LIBRARY), "lang": lang, "snippets": snippets[lang]}
        for lang in LEGACY_LANGS
    ]
    return snippets, dict(zip(LEGACY_LANGS, legacy_oracle.run_legacy_oracle(jobs)))


def test_library_languages_and_hash(library):
    assert sorted(library.languages) == ["java", "python"]
    assert library.sha256 == file_sha256(LIBRARY) and len(library.sha256) == 64
    with pytest.raises(ValueError, match="grammar_library.*no grammar for lang='go'.*java, python"):
        library.parser("go")


@pytest.mark.parametrize("lang", LEGACY_LANGS)
def test_trees_equal_tree_sitter_020(library, oracle_trees, lang, monkeypatch):
    """(a) Same nodes (type, flags, spans, points, field, child count, field children) as py-tree-sitter
    0.2.0 on the same library, and the same subtrees: our ids equal the ids of its `node.sexp()` strings
    (read back with the same `printed_id`), as multisets. The one-printout path is taken every time
    (its per-subtree fallback is never needed)."""
    monkeypatch.setattr(ts_legacy, "_core_rendered", lambda root: pytest.fail("fallback used"))
    snippets, theirs = oracle_trees
    parser = library.parser(lang)
    intern = _interner()
    broken = 0
    for i, (code, expected) in enumerate(zip(snippets[lang], theirs[lang])):
        root = parser.parse(code.encode("utf8")).root_node
        broken += root.has_error
        assert legacy_oracle.tree_records(root, lambda c: c.field_name) == expected["nodes"], (i, code)
        ids, exact = ts_legacy.subtree_ids(root, intern)
        assert exact
        assert sorted(ids) == sorted(ts_legacy.printed_id(s, intern) for s in expected["sexps"]), (i, code)
    assert broken > N_SNIPPETS // 4  # the inputs exercise error recovery


def _interner():
    ids = {}
    return lambda key: ids.setdefault(key, len(ids))


def test_printed_id_is_injective(library, oracle_trees):
    """Equal ids exactly when the printouts are equal, over every subtree printout of the inputs and a
    few hand-made ones with quotes and parentheses inside MISSING / UNEXPECTED."""
    snippets, _ = oracle_trees
    texts = {
        '(MISSING ")")',
        '(MISSING """)',
        '(MISSING "(")',
        "(MISSING identifier)",
        "(UNEXPECTED ')')",
        "(UNEXPECTED ' ')",
        "(UNEXPECTED '\\n')",
        "(UNEXPECTED 233)",
        "(UNEXPECTED '\\')",
        "(a (UNEXPECTED '\\') (b))",
        "(a (UNEXPECTED '('))",
        '(a (MISSING ")") (b))',
        '("_hidden") (x)',
        "(a f: (b) (c))",
        "(a (b f: (c)))",
        "(a (b) f: (c))",
    }
    for lang in LEGACY_LANGS:
        parser = library.parser(lang)
        for code in snippets[lang]:
            texts.update(ts_legacy._core_rendered(parser.parse(code.encode("utf8")).root_node))
    intern = _interner()
    by_id = {}
    for text in texts:
        by_id.setdefault(ts_legacy.printed_id(text, intern), set()).add(text)
    assert all(len(group) == 1 for group in by_id.values())
    assert len(by_id) == len(texts) > 1000


def _flat_records(tree) -> list:
    """Everything the metric reads of a flat tree but the subtree ids, node by node (iteratively)."""
    firsts = tree.first_parents or set()
    out = [tree.types, tree.starts, tree.ends, tree.has_error, tree.unprinted, len(firsts)]
    stack = [tree.root]
    while stack:
        node = stack.pop()
        if node.__class__ is int:
            out.append(node)
            continue
        kids = node.kids
        fields = {name: kids.index(child) for name, child in (node.fields or {}).items()}
        skids = [kids.index(child) for child in node.skids or ()]
        out.append((node.type, node.lo, node.hi, node.special, fields, skids, node in firsts, len(kids)))
        stack.extend(reversed(kids))
    return out


def _hostile(lang) -> list:
    """Snippets past the data-flow work limit, with long assignment chains and branch chains, nested loops,
    comprehensions, increments and non-ASCII text, and rule nesting deeper than the C data flow's."""
    if lang == "python":
        return [
            "def f(x):\n"
            + "".join("    " * (i + 1) + f"while x{i} < n:\n" for i in range(22))
            + "    " * 23
            + "x += 1\n",
            "a = " + " = ".join(f"v{i}" for i in range(1500)) + "\n",
            "if a:\n  x = 1\n"
            + "".join(f"elif b{i}:\n  x{i % 7} = y + {i}\n" for i in range(200))
            + "else:\n  z = x\n",
            "for i, j in zip(a, b):\n  for k in [x for x in y if x]:\n    s += i * j * k\n  else:\n    t = s\n",
            "x = [a for a, b in c for d in b]\nwhile x:\n  x, y = y, x\n  if y: break\n",
            "def g(a=1, b=c, *d, **e):\n  a += b; c = a if b else d\n  return lambda q=a: q + a\n",
            "x = 'é' + y\nz = x\n",
            "".join(" " * i + f"if x{i % 5}:\n" for i in range(450)) + " " * 450 + "y = x1\n",
        ]
    return [
        "class A { void f() { "
        + "".join(f"while (x{i} < n) {{ " for i in range(22))
        + "x++;"
        + "}" * 22
        + " } }",
        "class A { void f() { a = " + " = ".join(f"v{i}" for i in range(1500)) + "; } }",
        "class A { void f() { "
        + " ".join(f"if (b{i}) x{i % 7} = y + {i}; else" for i in range(200))
        + " z = x; } }",
        "class A { void f(int[] a) { for (int i = 0, j = 1; i < n; i++, j--) { for (int v : a) { s += v * i; } } } }",
        "class A { int f() { int x = 1, y; y = x; x += y; return x > y ? x : y; } }",
        "class A { void f() { a++ + b++ + c++ + d++; } }",
        "class A { int x = 'é'; int y = x; }",
        "class A { void f() { while (c) { x[i]++; for (;;) { y[j][k]--; a = b = x[i]; } } } }",
        "class A { void f() { " + "if (a) { x = y; " * 450 + "}" * 450 + " } }",
    ]


@pytest.mark.parametrize("lang", LEGACY_LANGS)
def test_c_walker_equals_the_python_walk(library, lang, monkeypatch):
    """The C walker compiled into the runtime (legacy_walk.c: one call per snippet) gives the flat trees, subtree
    ids and data flow of the Python walk over the node API and the Python data flow (ids up to renaming over
    a whole computation; data-flow items as ids of the walker's table), on valid, broken and noisy snippets (a
    stray backslash: (UNEXPECTED '\\')), hostile ones (``_hostile``: work limit, deep rule nesting, non-ASCII),
    and trees deeper than MAX_RENDER_DEPTH, which take the Python path with ids in the same table."""
    from multimodal_metrics.codebleu import corpus, dataflow, dataflow_walk, trees

    assert library.runtime.walker, (
        "a runtime built without the walker: bash scripts/setup.d/codebleu_legacy_ts.sh"
    )
    snippets = legacy_oracle.legacy_snippets(lang, N_SNIPPETS, seed=5) + _hostile(lang)
    deep = "(" * (ts_legacy.MAX_RENDER_DEPTH + 50) + "1" + ")" * (ts_legacy.MAX_RENDER_DEPTH + 50)
    for code in snippets[:6]:
        snippets.append(
            code + ("\nx = " + deep if lang == "python" else "\nclass B { int f() { return " + deep + "; } }")
        )
    snippets += ["", "x", "'s'", "# c", "/* c */", "a \\ b", "(" * 40, "x = 'a' 'b' \\\n"]
    ours, python = trees.new_interner(), trees.new_interner()
    flats, lefts = [], []
    for code in snippets:  # with the work left of the data flow's budget where it ran in C
        flats.append(library.flatten(lang, code, ours, full=True))
        out = ours.native.out
        lefts.append(out.flow_left if out.flow_status != 2 and flats[-1].root is not None else None)
    assert corpus.parse_flat(snippets[0], lang, ours, library).dataflow == flats[0].dataflow
    monkeypatch.setattr(library.runtime, "walker", False)
    expected = [corpus.parse_flat(code, lang, python, library) for code in snippets]
    assert getattr(python, "native", None) is None
    renamed, back = {}, {}
    limited = 0
    for code, flat, exp, left in zip(snippets, flats, expected, lefts):
        assert _flat_records(flat) == _flat_records(exp), code
        if left is not None:  # the same work counted, step for step, up to where the walk ended
            walk = dataflow_walk.Flow(
                dataflow.RULES[lang],
                exp,
                dataflow.DATAFLOW_WORK_PER_TOKEN * len(exp.types) + dataflow.DATAFLOW_WORK_FLOOR,
            )
            with contextlib.suppress(Exception):
                walk.run(exp.root)
            assert walk.left == left, code
        items, exp_limited = dataflow.data_flow(exp, lang)
        assert flat.dataflow == (list(map(ours.native.intern_flow, items)), exp_limited), code
        limited += exp_limited
        assert len(flat.subtrees) == len(exp.subtrees), code
        for a, b in zip(exp.subtrees, flat.subtrees):
            assert renamed.setdefault(a, b) == b and back.setdefault(b, a) == a, code
    assert len(renamed) > 1000 and limited >= 2


def test_c_walker_in_threads(library):
    """Computations in several threads at once (each with its own table and its own parser per thread) give
    the numbers of one thread."""
    import concurrent.futures

    from multimodal_metrics import codebleu

    preds, refs = legacy_oracle.preset_pairs("default", "java", 60)
    refs = [r if isinstance(r, str) else r[0] for r in refs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = codebleu.score(preds, refs, lang="java").to_dict()
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda _: codebleu.score(preds, refs, lang="java").to_dict(), range(8)))
    assert all(r == alone for r in results)


def test_deep_trees_no_crash(library):
    """The core's printer recurses once per level (py-tree-sitter 0.2.0 itself crashes past ~30,000):
    deeper than MAX_RENDER_DEPTH the ids come from the node API alone and are flagged inexact."""
    intern = _interner()
    for n in (100, 60000):
        code = "x = " + "(" * n + "1" + ")" * n + "\n"
        ids, exact = ts_legacy.subtree_ids(library.parse("python", code.encode()), intern)
        assert exact == (n < ts_legacy.MAX_RENDER_DEPTH) and len(ids) > n


def test_runtime_missing_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv(ts_legacy.RUNTIME_ENV, str(tmp_path / "nope.so"))
    with pytest.raises(RuntimeError, match="scripts/setup_env.sh"):
        ts_legacy.find_runtime()


def test_bad_library_path(tmp_path):
    with pytest.raises(ValueError, match="grammar_library.*no such file"):
        ts_legacy.open_library(tmp_path / "missing.so", codebleu.LANGUAGES)
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"not a shared library")
    with pytest.raises(ValueError, match="grammar_library.*not a loadable shared library"):
        ts_legacy.open_library(junk, codebleu.LANGUAGES)
    with pytest.raises(TypeError, match="grammar_library"):
        ts_legacy.open_library(3, codebleu.LANGUAGES)


def test_beside_tree_sitter_026(library):
    """Both runtimes in one process: same symbol names in two shared objects, no interference."""
    modern = cb_trees.get_parser("python").parse(b"x = 1\n").root_node
    old = library.parser("python").parse(b"x = 1\n").root_node
    assert str(modern) == "(module (expression_statement (assignment left: (identifier) right: (integer))))"
    # the 2020 grammar wraps both sides in expression_list
    assert old.sexp() == (
        "(module (expression_statement (assignment left: (expression_list (identifier)) "
        "right: (expression_list (integer)))))"
    )
    assert old.children[0].children[0].child_by_field_name("right").type == "expression_list"
    assert str(cb_trees.get_parser("python").parse(b"y = 2\n").root_node).count("expression_list") == 0


# ----------------------------------------------------------------------------------------------
# (b) The whole CodeBLEU through `grammar_library=` vs the CodeXGLUE algorithm on 0.2.0's trees
# ----------------------------------------------------------------------------------------------
N_PAIRS = 150
# preset -> (oracle flags, languages)
PRESET_FLAGS = {
    "default": ({"remove_comments": "java", "strip": True}, LEGACY_LANGS),
    "fusion_brain_2021": ({"remove_comments": "none", "strip": False}, ["python"]),
}


@pytest.fixture(scope="module")
def oracle_codebleu():
    cases, jobs = [], []
    for preset, (flags, langs) in PRESET_FLAGS.items():
        for lang in langs:
            preds, refs = legacy_oracle.preset_pairs(preset, lang, N_PAIRS)
            refs = [[r] if isinstance(r, str) else r for r in refs]
            keywords = legacy_oracle.PY_KEYWORDS_2020 if lang == "python" else None
            cases.append((preset, lang, preds, refs))
            jobs.append(
                {
                    "kind": "codebleu",
                    "library": str(LIBRARY),
                    "lang": lang,
                    "predictions": preds,
                    "references": refs,
                    "keywords": keywords,
                    **flags,
                }
            )
    return dict(zip([(c[0], c[1]) for c in cases], zip(cases, legacy_oracle.run_legacy_oracle(jobs))))


@pytest.mark.parametrize(
    "preset, lang", [(p, lang) for p, (_, langs) in PRESET_FLAGS.items() for lang in langs]
)
def test_codebleu_equals_codexglue_on_legacy_trees(oracle_codebleu, preset, lang):
    (_, _, preds, refs), expected = oracle_codebleu[(preset, lang)]
    metric = load_metric("codebleu", preset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = metric.compute(predictions=preds, references=refs, lang=lang, grammar_library=str(LIBRARY))
    for key in codebleu.KEYS:
        assert ours[key] == expected[key], key  # bit for bit
    assert f"|grammar:{LIBRARY.name}@{file_sha256(LIBRARY)[:12]}|ts:0.2.0|" in ours["signature"]
    # the preset's default ("2020": the same library, built beside the runtime) gives the same numbers
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = metric.compute(predictions=preds, references=refs, lang=lang)
    assert default == ours
    # and the grammars of 2020 do move the number away from today's wheels on these inputs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wheels = metric.compute(predictions=preds, references=refs, lang=lang, grammar_library="wheels")
    assert "|grammar:tree-sitter-" in wheels["signature"] and "|ts:0.26" in wheels["signature"]
    assert wheels["ngram_match"] == ours["ngram_match"]
    assert (wheels["syntax_match"], wheels["dataflow_match"]) != (
        ours["syntax_match"],
        ours["dataflow_match"],
    )


def test_option_errors():
    metric = load_metric("codebleu")
    with pytest.raises(ValueError, match="grammar_library.*no such file"):
        metric.compute(
            predictions=["x = 1"], references=["x = 1"], lang="python", grammar_library="/nonexistent.so"
        )
    with pytest.raises(ValueError, match="grammar_library.*no grammar for lang='go'"):
        metric.compute(predictions=["x := 1"], references=["x := 1"], lang="go", grammar_library=str(LIBRARY))
    with pytest.raises(TypeError, match="grammar_library"):
        metric.compute(predictions=["x = 1"], references=["x = 1"], lang="python", grammar_library=3)
    # the metric object still works afterwards (no held lock)
    code = "def f(a):\n    b = a + 1\n    return b"
    assert metric.compute(predictions=[code], references=[code], lang="python")["codebleu"] == pytest.approx(
        1.0
    )


def test_missing_runtime_through_compute(monkeypatch, tmp_path):
    monkeypatch.setenv(ts_legacy.RUNTIME_ENV, str(tmp_path / "nope.so"))
    metric = load_metric("codebleu")
    with pytest.raises(RuntimeError, match="bash scripts/setup_env.sh"):
        metric.compute(
            predictions=["x = 1"], references=["x = 1"], lang="python", grammar_library=str(LIBRARY)
        )


# ----------------------------------------------------------------------------------------------
# The official numbers (seeds_reference.md 6.7, computed by the AIJ 2021 code with its my-languages.so)
# ----------------------------------------------------------------------------------------------
OFFICIAL_ENV = (
    "CODEBLEU_OFFICIAL_GRAMMAR_LIBRARY"  # path to CodeXGLUE's / Fusion Brain 2021's my-languages.so
)


def _aij_checks(library_path) -> None:
    """Every AIJ column of 6.7 to 6 digits (the wheels miss T3-T7 on AST/data flow) and the repository
    sample at the contest's 0.08587211336633069 exactly (the wheels give 0.301789)."""
    metric = load_metric("codebleu", "fusion_brain_2021")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case, (preds, refs, aij, _modern) in sorted(AIJ.items()):
            r = metric.compute(predictions=preds, references=refs, grammar_library=str(library_path))
            assert tuple(r[k] for k in codebleu.KEYS) == pytest.approx(aij, abs=1e-6), case
        r = metric.compute(
            predictions=[SAMPLE_PRED] * 20, references=SAMPLE_REFS, grammar_library=str(library_path)
        )
    assert r["codebleu"] == 0.08587211336633069
    assert (r["syntax_match"], r["dataflow_match"]) == pytest.approx((0.046414, 0.0), abs=1e-6)


def test_fusion_brain_2021_official_numbers_npm_2020_grammar():
    """The npm grammar of 2020 agrees with the official library on the 6.7 inputs."""
    _aij_checks(LIBRARY)


@pytest.mark.skipif(
    not os.environ.get(OFFICIAL_ENV), reason=f"set {OFFICIAL_ENV}=<my-languages.so> to run it"
)
def test_fusion_brain_2021_official_numbers_official_library():
    """With the official my-languages.so (not in the repository: the user points at it)."""
    _aij_checks(os.environ[OFFICIAL_ENV])


def test_command_line_grammar_library(tmp_path, capsys):
    """mm-score codebleu --grammar-library and mm-score fusion-brain-2021 --codebleu-grammar-library:
    the repository sample at the contest's number; a missing runtime is one error line, exit 2."""
    from multimodal_metrics.cli import main

    gt = tmp_path / "true_C2C.json"
    pred = tmp_path / "prediction_C2C.json"
    gt.write_text(json.dumps({str(i): r for i, r in enumerate(SAMPLE_REFS)}), encoding="utf-8")
    pred.write_text(json.dumps({str(i): SAMPLE_PRED for i in range(len(SAMPLE_REFS))}), encoding="utf-8")
    argv = ["codebleu", "--gt", str(gt), "--pred", str(pred), "--json", "--no-progress"]
    assert main([*argv, "--grammar-library", str(LIBRARY)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["codebleu"] == 0.08587211336633069 and "grammar:languages-npm-2020.so@" in out["signature"]
    assert main([*argv, "--grammar-library", str(tmp_path / "none.so")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--grammar-library" in err[0] and "no such file" in err[0]
    assert (
        main(
            [
                "fusion-brain-2021",
                str(tmp_path),
                "--partial",
                "--json",
                "--no-progress",
                "--codebleu-grammar-library",
                str(LIBRARY),
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["sub_tasks"]["C2C"]["score"] == 0.08587211336633069


# ----------------------------------------------------------------------------------------------
# The runtime from anywhere: another working directory, evaluate's cached copy of the script
# ----------------------------------------------------------------------------------------------
_ELSEWHERE = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
import evaluate
from multimodal_metrics import codebleu
from multimodal_metrics.codebleu import legacy_runtime
library, metric_folder, preds, refs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
metric = evaluate.load(metric_folder, "fusion_brain_2021")  # evaluate imports its cached copy of the script
out = {
    "compute": metric.compute(predictions=preds, references=refs, grammar_library=library)["codebleu"],
    "score": codebleu.score(preds, refs, "fusion_brain_2021", grammar_library=library)["codebleu"],
    "script": sys.modules[type(metric).__module__].__file__,
    "runtimes": sorted(legacy_runtime._RUNTIMES),
}
print(json.dumps(out))
"""


def _elsewhere(cwd, env) -> dict:
    preds, refs = [SAMPLE_PRED] * len(SAMPLE_REFS), SAMPLE_REFS
    metric = str(ROOT / "metrics" / "codebleu")
    return run_python_json(
        _ELSEWHERE, str(LIBRARY), metric, json.dumps(preds), json.dumps(refs), cwd=cwd, env=env
    )


def test_grammar_library_from_another_working_directory(tmp_path):
    """From a directory outside the checkout, without CODEBLEU_TS_RUNTIME, through evaluate's cached copy of
    the script (a fresh HF_HOME) and through the library: the runtime is found from the library's own
    location (the checkout's .build/legacy_ts, or a per-user cache), never from the working directory, where
    a decoy sits; then a runtime in the per-user cache comes first. The contest's number both times."""
    work = tmp_path / "elsewhere"
    decoy = work / ".build" / "legacy_ts" / ts_legacy.RUNTIME_FILE
    decoy.parent.mkdir(parents=True)
    decoy.write_bytes(b"a decoy: loading it would fail")
    env = {k: v for k, v in os.environ.items() if k != ts_legacy.RUNTIME_ENV}
    env.update(
        PYTHONPATH=os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        HF_HOME=str(tmp_path / "hf_home"),
        XDG_CACHE_HOME=str(tmp_path / "empty_cache"),
    )
    checkout_runtime = ts_legacy.checkout_dir() / ts_legacy.RUNTIME_FILE
    out = _elsewhere(work, env)
    assert out["compute"] == out["score"] == 0.08587211336633069
    assert out["script"].startswith(str(tmp_path / "hf_home"))  # evaluate's copy, not metrics/codebleu
    assert out["runtimes"] == [str(checkout_runtime.resolve())]
    cache = tmp_path / "cache" / "multimodal_metrics" / "legacy_ts"
    cache.mkdir(parents=True)
    shutil.copy(checkout_runtime, cache / ts_legacy.RUNTIME_FILE)
    out = _elsewhere(work, {**env, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert out["compute"] == out["score"] == 0.08587211336633069
    assert out["runtimes"] == [str((cache / ts_legacy.RUNTIME_FILE).resolve())]


# ----------------------------------------------------------------------------------------------
# The 2020 grammars by default
# ----------------------------------------------------------------------------------------------
def test_presets_score_with_the_2020_grammars_by_default():
    """default / paper / fusion_brain_2021 use grammar_library="2020": the grammars built beside the runtime;
    the signature records grammar and runtime; "wheels" and pypi record the wheel and tree-sitter versions."""
    from multimodal_metrics import codebleu

    assert ts_legacy.find_grammars() is not None
    preds, refs = [SAMPLE_PRED] * len(SAMPLE_REFS), SAMPLE_REFS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = codebleu.score(preds, refs, "fusion_brain_2021")
        wheels = codebleu.score(preds, refs, "fusion_brain_2021", grammar_library="wheels")
        pypi = codebleu.score(["x = 1"], ["x = 1"], "pypi", lang="python")
    assert r["codebleu"] == 0.08587211336633069
    assert f"|grammar:{ts_legacy.GRAMMAR_FILE}@" in r.signature and r.signature.endswith("|ts:0.2.0|v:0.1.0")
    assert wheels["codebleu"] == pytest.approx(0.301789, abs=1e-6)
    assert "|grammar:tree-sitter-python@0.25.0|ts:0.26.1|" in wheels.signature
    assert "|grammar:tree-sitter-python@0.25.0|ts:0.26.1|" in pypi.signature
    for preset in ("default", "paper"):
        assert codebleu.PRESETS[preset]["grammar_library"] == "2020"


def test_presets_without_the_2020_grammars_warn_and_name_the_build_command(monkeypatch):
    from multimodal_metrics import codebleu

    monkeypatch.setattr(ts_legacy, "find_grammars", lambda: None)
    preds, refs = [SAMPLE_PRED] * len(SAMPLE_REFS), SAMPLE_REFS
    with pytest.warns(UserWarning, match=r"python -m multimodal_metrics\.codebleu\.build_runtime") as record:
        r = codebleu.score(preds, refs, "fusion_brain_2021")
    assert any("not built here" in str(w.message) for w in record)
    assert (
        r["codebleu"] == pytest.approx(0.301789, abs=1e-6) and "|grammar:tree-sitter-python@" in r.signature
    )
    monkeypatch.undo()
    with pytest.warns(UserWarning, match="has no c_sharp grammar"):
        r = codebleu.score(["int x = 1;"], ["int x = 1;"], lang="c_sharp")
    assert "|grammar:tree-sitter-c-sharp@" in r.signature


def test_build_command_builds_the_2020_grammars(tmp_path):
    """build_grammars from the pinned npm tarballs (the set-up's copies, no download): the same library,
    byte for byte, as the set-up's."""
    from multimodal_metrics.codebleu import build_runtime

    dl = tmp_path / "dl"
    dl.mkdir()
    for name, _, _ in build_runtime.NPM_GRAMMARS:
        shutil.copy(LIBRARY.parent / "dl" / name, dl / name)
    built = build_runtime.build_grammars(tmp_path, quiet=True)
    assert built == tmp_path / ts_legacy.GRAMMAR_FILE
    assert built.read_bytes() == LIBRARY.read_bytes()
    assert build_runtime.build_grammars(tmp_path, quiet=True) == built  # up to date: the stamp


def test_benchmark_runs_against_both_references():
    """benchmarks/bench_codebleu.py on a few pairs: its two references (the official evaluator in
    .build/venv-ts020, PyPI codebleu in .build/venv-codebleu) run in their interpreters and the benchmark's
    own equality checks hold, for python (three presets) and java."""
    import subprocess
    import sys

    from oracles import codebleu_pypi

    if not codebleu_pypi.oracle_available():
        pytest.skip("run scripts/setup.d/test/codebleu_oracle.sh (creates .build/venv-codebleu)")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_codebleu.py"), "--n", "4", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.count("identical results:") == 2, proc.stdout
    assert "official CodeXGLUE evaluator" in proc.stdout and "PyPI codebleu 0.7.0" in proc.stdout
