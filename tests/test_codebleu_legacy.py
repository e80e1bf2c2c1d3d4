"""codebleu with `grammar_library=`: the tree-sitter runtime of 2020 (ctypes over the C core of the PyPI
sdist tree_sitter==0.2.0) against py-tree-sitter 0.2.0 itself, on an ABI-11 library built from the npm
grammars tree-sitter-python 0.16.1 / tree-sitter-java 0.16.0 (scripts/setup.d/codebleu_legacy_ts.sh).

(a) trees: node types, byte spans, points, fields, named/missing/error flags and the `node.sexp()` list
    of every subtree equal the 0.2.0 binding's, on generated snippets (valid, mutated, pseudo-code, noise);
(b) the whole CodeBLEU through the option equals the CodeXGLUE algorithm run on 0.2.0's trees
    (tests/_codebleu_legacy_oracle.py), for the `default` and `fusion_brain_2021` presets.
"""

import random

import _codebleu_legacy_oracle as legacy_oracle
import _codebleu_oracle as oracle
import pytest
from helpers import load_core

ts_legacy = load_core("codebleu", "_ts_legacy")
core = load_core("codebleu", "_codebleu_core")
LIBRARY = legacy_oracle.NPM_LIBRARY
LEGACY_LANGS = ["python", "java"]
N_SNIPPETS = 240

needs_legacy = pytest.mark.skipif(
    not legacy_oracle.oracle_available(),
    reason="run scripts/setup.d/codebleu_legacy_ts.sh (builds .build/legacy_ts and .build/venv-ts020)",
)
pytestmark = needs_legacy

# Fusion Brain 2021 style: TransCoder tokens on one line, with NEW_LINE / INDENT / DEDENT pseudo-tokens.
PSEUDO = [
    "def areaSquare ( side ) : NEW_LINE INDENT area = side * side NEW_LINE return area NEW_LINE DEDENT",
    "def power ( n ) : NEW_LINE INDENT if n == 1 : NEW_LINE INDENT return 2 NEW_LINE DEDENT return 2 * power ( n - 1 ) NEW_LINE DEDENT",
    "def cassini ( n ) : NEW_LINE INDENT return - 1 if ( n & 1 ) else 1 NEW_LINE DEDENT",
    "def find ( x , par ) : NEW_LINE INDENT if par [ x ] == x : NEW_LINE INDENT return x NEW_LINE DEDENT par [ x ] = find ( par [ x ] , par ) NEW_LINE return par [ x ] NEW_LINE DEDENT",
    "static int count ( int n ) { int c = 0 ; for ( int i = 0 ; i < n ; i ++ ) c += i ; return c ; }",
    "public static boolean isEven ( int n ) { return ( n % 2 == 0 ) ; }",
]
NOISE = list("()[]{}:;,.=+-*/%<>!&|^~?@$`#'\"\\\n\t ") + ["é", "λ", "ß", "NEW_LINE", "INDENT", "def", "class", "x", "1"]


def legacy_snippets(lang: str, n: int, seed: int = 0) -> list:
    """Valid seeds, their mutations (dropped/duplicated/swapped lines, truncation), pseudo-code with
    shuffled tokens and token noise: enough broken code for ERROR, MISSING and UNEXPECTED nodes."""
    rng = random.Random(f"legacy-{lang}-{seed}")
    preds, refs = oracle.mutated_pairs(lang, n // 2, seed, core.KEYWORDS[lang])
    out = list(oracle.SEEDS[lang]) + preds + [r if isinstance(r, str) else r[-1] for r in refs[: n // 8]]
    while len(out) < n:
        toks = rng.choice(PSEUDO).split()
        kind = rng.randrange(3)
        if kind == 0:
            i, j = rng.randrange(len(toks)), rng.randrange(len(toks))
            toks[i], toks[j] = toks[j], toks[i]
        elif kind == 1:
            del toks[rng.randrange(len(toks)) :]
        else:
            toks.insert(rng.randrange(len(toks) + 1), rng.choice(NOISE))
        out.append(" ".join(toks))
    return out[:n]


@pytest.fixture(scope="module")
def library():
    return ts_legacy.open_library(LIBRARY, core.LANGUAGES)


@pytest.fixture(scope="module")
def oracle_trees():
    snippets = {lang: legacy_snippets(lang, N_SNIPPETS) for lang in LEGACY_LANGS}
    jobs = [{"kind": "trees", "library": str(LIBRARY), "lang": lang, "snippets": snippets[lang]} for lang in LEGACY_LANGS]
    return snippets, dict(zip(LEGACY_LANGS, legacy_oracle.run_legacy_oracle(jobs)))


def test_library_languages_and_hash(library):
    assert sorted(library.languages) == ["java", "python"]
    assert library.sha256 == ts_legacy.file_digest(LIBRARY) and len(library.sha256) == 64
    with pytest.raises(ValueError, match="grammar_library.*no grammar for lang='go'.*java, python"):
        library.parser("go")


@pytest.mark.parametrize("lang", LEGACY_LANGS)
def test_trees_equal_tree_sitter_020(library, oracle_trees, lang):
    """(a) Same nodes (type, flags, spans, points, field, child count, field children) and the same
    `node.sexp()` of every subtree as py-tree-sitter 0.2.0 on the same library."""
    snippets, theirs = oracle_trees
    parser = library.parser(lang)
    broken = 0
    for i, (code, expected) in enumerate(zip(snippets[lang], theirs[lang])):
        root = parser.parse(code.encode("utf8")).root_node
        broken += root.has_error
        assert legacy_oracle.tree_records(root, lambda c: c.field_name) == expected["nodes"], (i, code)
        assert sorted(ts_legacy.subtree_sexps(root)) == sorted(expected["sexps"]), (i, code)
    assert broken > N_SNIPPETS // 4  # the inputs exercise error recovery


def test_sexps_bottom_up_equal_core_rendering(library, oracle_trees):
    """The shortcut behind `subtree_sexps`: where the bottom-up assembly gives the core's rendering of the
    whole tree, it gives the core's rendering of every subtree; the core renders the others itself
    (hidden tokens the node API does not show, such as python's `(MISSING _newline)`), a minority."""
    snippets, _ = oracle_trees
    shortcut = total = 0
    for lang in LEGACY_LANGS:
        parser = library.parser(lang)
        for code in snippets[lang]:
            root = parser.parse(code.encode("utf8")).root_node
            sexps, needs_core, depth = ts_legacy.bottom_up_sexps(root)
            assert depth < ts_legacy.MAX_RENDER_DEPTH
            rendered = ts_legacy._core_rendered(root)
            total += 1
            if not needs_core and sexps[0] == rendered[0]:
                shortcut += 1
                assert sexps == rendered, code
    assert shortcut > 0.8 * total


def test_runtime_missing_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv(ts_legacy.RUNTIME_ENV, str(tmp_path / "nope.so"))
    with pytest.raises(RuntimeError, match="scripts/setup_env.sh"):
        ts_legacy.find_runtime()


def test_bad_library_path(tmp_path):
    with pytest.raises(ValueError, match="grammar_library.*no such file"):
        ts_legacy.open_library(tmp_path / "missing.so", core.LANGUAGES)
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"not a shared library")
    with pytest.raises(ValueError, match="grammar_library.*not a loadable shared library"):
        ts_legacy.open_library(junk, core.LANGUAGES)
    with pytest.raises(TypeError, match="grammar_library"):
        ts_legacy.open_library(3, core.LANGUAGES)


def test_beside_tree_sitter_026(library):
    """Both runtimes in one process: same symbol names in two shared objects, no interference."""
    modern = core.get_parser("python").parse(b"x = 1\n").root_node
    old = library.parser("python").parse(b"x = 1\n").root_node
    assert str(modern) == "(module (expression_statement (assignment left: (identifier) right: (integer))))"
    # the 2020 grammar wraps both sides in expression_list
    assert old.sexp() == (
        "(module (expression_statement (assignment left: (expression_list (identifier)) "
        "right: (expression_list (integer)))))"
    )
    assert old.children[0].children[0].child_by_field_name("right").type == "expression_list"
    assert str(core.get_parser("python").parse(b"y = 2\n").root_node).count("expression_list") == 0
