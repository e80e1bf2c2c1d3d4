"""py-tree-sitter 0.2.0 (the official CodeBLEU scorers' binding) as an oracle for codebleu's legacy runtime.

Two roles, like tests/oracles/codebleu_pypi.py:
* imported by tests/test_codebleu_legacy.py and benchmarks/bench_codebleu_grammars.py (main venv):
  `run_legacy_oracle(jobs)` runs THIS file with the separate venv .build/venv-ts020
  (scripts/setup.d/codebleu_legacy_ts.sh: the PyPI sdist tree_sitter==0.2.0 built on Python 3.11, plus
  the PyPI `codebleu` 0.7.0 package without its dependencies, for its copies of CodeXGLUE's
  parser/DFG.py, parser/utils.py, bleu.py and weighted_ngram_match.py) in a subprocess;
  `tree_records(root, field_of)` is shared by both sides so that they describe trees the same way;
* run as a script by that venv's python (`-I`): reads a JSON job on stdin, writes results on stdout.

Jobs:
* {"kind": "trees", "library", "lang", "snippets"}: for every snippet, every node in pre-order
  (type, named, missing, has_error, byte span, points, field name, child count, and the children
  found by `child_by_field_name` for a few field names) and `get_all_sub_trees`' `node.sexp()` list.
* {"kind": "codebleu", "library", "lang", "predictions", "references", "keywords", "remove_comments"
  ("java" | "none"), "strip"}: the CodeXGLUE scorer (calc_code_bleu.py with its bleu,
  weighted_ngram_match, syntax_match and dataflow_match modules) on trees of 0.2.0 and `library`,
  written out here from the official driver code; the package modules supply the functions it calls
  (DFG_python / DFG_java, tree_to_token_index, index_to_code_token, remove_comments_and_docstrings,
  the two corpus_bleu). Where the official code builds `list(set(...))` the order is first-seen (as in
  our module), so that results do not depend on PYTHONHASHSEED. A corpus without reference data flow
  scores 0 (Fusion Brain 2021's guard; CodeXGLUE divides by zero).
"""

import json
import random
import sys
from pathlib import Path

if __package__:
    from .isolated import OrderedSet, run
else:  # run as a script by the oracle's venv (-I: this folder is not on sys.path)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from isolated import OrderedSet, run

ROOT = Path(__file__).resolve().parent.parent.parent
ORACLE_PYTHON = ROOT / ".build" / "venv-ts020" / "bin" / "python"
NPM_LIBRARY = ROOT / ".build" / "legacy_ts" / "languages-npm-2020.so"
FIELDS = (
    "name",
    "value",
    "left",
    "right",
    "body",
    "type",
    "condition",
    "declarator",
    "parameters",
    "function",
)
# keywords/python.txt of CodeXGLUE and Fusion Brain 2021 (35 entries)
PY_KEYWORDS_2020 = (
    "False None True and as assert async await break class continue def del elif else except finally for "
    "from global if import in is lambda nonlocal not or pass raise return try while with yield"
).split()


# ------------------------------------------------------------------------------------------------------
# Generated inputs (main venv)
# ------------------------------------------------------------------------------------------------------
# Fusion Brain 2021 style: TransCoder tokens on one line, with NEW_LINE / INDENT / DEDENT pseudo-tokens.
PSEUDO = [
    "def areaSquare ( side ) : NEW_LINE INDENT area = side * side NEW_LINE return area NEW_LINE DEDENT",
    "def power ( n ) : NEW_LINE INDENT if n == 1 : NEW_LINE INDENT return 2 NEW_LINE DEDENT return 2 * power ( n - 1 ) NEW_LINE DEDENT",
    "def cassini ( n ) : NEW_LINE INDENT return - 1 if ( n & 1 ) else 1 NEW_LINE DEDENT",
    "def find ( x , par ) : NEW_LINE INDENT if par [ x ] == x : NEW_LINE INDENT return x NEW_LINE DEDENT par [ x ] = find ( par [ x ] , par ) NEW_LINE return par [ x ] NEW_LINE DEDENT",
    "static int count ( int n ) { int c = 0 ; for ( int i = 0 ; i < n ; i ++ ) c += i ; return c ; }",
    "public static boolean isEven ( int n ) { return ( n % 2 == 0 ) ; }",
]
NOISE = list("()[]{}:;,.=+-*/%<>!&|^~?@$`#'\"\\\n\t ") + [
    "é",
    "λ",
    "ß",
    "NEW_LINE",
    "INDENT",
    "def",
    "class",
    "x",
    "1",
]


def _keywords(lang: str) -> frozenset:
    from multimodal_metrics.codebleu.keywords import KEYWORDS

    return KEYWORDS[lang]


def legacy_snippets(lang: str, n: int, seed: int = 0) -> list:
    """Valid seeds, their mutations (dropped/duplicated/swapped lines, truncation), pseudo-code with
    shuffled tokens and token noise: enough broken code for ERROR, MISSING and UNEXPECTED nodes."""
    from oracles import codebleu_pypi as oracle

    rng = random.Random(f"legacy-{lang}-{seed}")
    preds, refs = oracle.mutated_pairs(lang, n // 2, seed, _keywords(lang))
    out = list(oracle.SEEDS[lang]) + preds + [r if isinstance(r, str) else r[-1] for r in refs[: n // 8]]
    while len(out) < n:
        out.append(_pseudo_code(rng, PSEUDO))
    return out[:n]


def _pseudo_code(rng: random.Random, pool) -> str:
    """One of ``pool`` with two tokens swapped, the tail cut, or a noise token inserted."""
    toks = rng.choice(pool).split()
    kind = rng.randrange(3)
    if kind == 0:
        i, j = rng.randrange(len(toks)), rng.randrange(len(toks))
        toks[i], toks[j] = toks[j], toks[i]
    elif kind == 1:
        del toks[rng.randrange(1, len(toks)) :]
    else:
        toks.insert(rng.randrange(len(toks) + 1), rng.choice(NOISE))
    return " ".join(toks)


def preset_pairs(preset: str, lang: str, n: int):
    """(predictions, references) for a preset: mutated functions for "default"/"pypi" (the seeds of
    tests/oracles/codebleu_pypi.py), TransCoder pseudo-code for "fusion_brain_2021" (python)."""
    if preset != "fusion_brain_2021":
        from oracles import codebleu_pypi as oracle

        return oracle.mutated_pairs(lang, n, 1, _keywords(lang))
    # Fusion Brain 2021: pseudo-code references (some intact), mutated pseudo-code predictions
    rng = random.Random("fb2021")
    pool = [p for p in PSEUDO if "NEW_LINE" in p]
    refs = [rng.choice(pool) if i % 4 == 0 else _pseudo_code(rng, pool) for i in range(n)]
    preds = [_pseudo_code(rng, [r]) if i % 2 else _pseudo_code(rng, pool) for i, r in enumerate(refs)]
    return preds, refs


def oracle_available() -> bool:
    return ORACLE_PYTHON.is_file() and NPM_LIBRARY.is_file()


def tree_records(root, field_of) -> list:
    """Every node of a tree in pre-order: [type, named, missing, has_error, start_byte, end_byte,
    start_point, end_point, field, child_count, {field: [type, start_byte, end_byte] or None}].
    ``field_of(cursor)`` reads the cursor's field name (the two bindings spell it differently)."""
    out = []
    cursor = root.walk()
    while True:
        node = cursor.node
        fields = {}
        for name in FIELDS:
            child = node.child_by_field_name(name)
            fields[name] = None if child is None else [child.type, child.start_byte, child.end_byte]
        out.append(
            [
                node.type,
                bool(node.is_named),
                bool(node.is_missing),
                bool(node.has_error),
                node.start_byte,
                node.end_byte,
                list(node.start_point),
                list(node.end_point),
                field_of(cursor),
                node.child_count,
                fields,
            ]
        )
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


def get_all_sub_trees(root_node) -> list:
    """CodeXGLUE syntax_match.py: the root and every descendant with children, ``node.sexp()``."""
    node_stack = [root_node]
    out = []
    while node_stack:
        cur = node_stack.pop()
        out.append(cur.sexp())
        for child in cur.children:
            if len(child.children) != 0:
                node_stack.append(child)
    return out


def run_legacy_oracle(jobs, timeout=600):
    """Run the jobs in ONE subprocess of the oracle venv; returns one result per job."""
    return run(ORACLE_PYTHON, __file__, {"jobs": jobs}, "0", timeout)


# ------------------------------------------------------------------------------------------------------
# Below: runs inside .build/venv-ts020 only
# ------------------------------------------------------------------------------------------------------
def _get_data_flow(code, parser, dfg_function, utils):
    """CodeXGLUE dataflow_match.get_data_flow (ordered sets)."""
    try:
        tree = parser.parse(bytes(code, "utf8"))
        root_node = tree.root_node
        tokens_index = utils.tree_to_token_index(root_node)
        lines = code.split("\n")
        code_tokens = [utils.index_to_code_token(x, lines) for x in tokens_index]
        index_to_code = {}
        for idx, (index, tok) in enumerate(zip(tokens_index, code_tokens)):
            index_to_code[index] = (idx, tok)
        try:
            dfg, _ = dfg_function(root_node, index_to_code, {})
        except Exception:
            dfg = []
        dfg = sorted(dfg, key=lambda x: x[1])
        indexs = set()
        for d in dfg:
            if len(d[-1]) != 0:
                indexs.add(d[1])
            for x in d[-1]:
                indexs.add(x)
        dfg = [d for d in dfg if d[1] in indexs]
    except Exception:
        dfg = []
    dic = {}
    for d in dfg:
        if d[1] not in dic:
            dic[d[1]] = d
        else:
            dic[d[1]] = (
                d[0],
                d[1],
                d[2],
                list(OrderedSet(dic[d[1]][3] + d[3])),
                list(OrderedSet(dic[d[1]][4] + d[4])),
            )
    return list(dic.values())


def _normalize_dataflow(dataflow):
    var_dict = {}
    out = []
    for item in dataflow:
        for name in item[3]:
            if name not in var_dict:
                var_dict[name] = "var_" + str(len(var_dict))
        if item[0] not in var_dict:
            var_dict[item[0]] = "var_" + str(len(var_dict))
        out.append((var_dict[item[0]], item[2], [var_dict[x] for x in item[3]]))
    return out


def _codexglue(job, parser, modules):
    """calc_code_bleu.py of CodeXGLUE (and Fusion Brain 2021 with remove_comments="none", strip=False)."""
    bleu, weighted_ngram_match, utils, dfg_module = modules
    lang = job["lang"]
    strip = (lambda s: s.strip()) if job["strip"] else (lambda s: s)
    hypothesis = [strip(x) for x in job["predictions"]]
    references = [[strip(r) for r in refs] for refs in job["references"]]
    tokenized_hyps = [x.split() for x in hypothesis]
    tokenized_refs = [[x.split() for x in reference] for reference in references]
    ngram_match_score = bleu.corpus_bleu(tokenized_refs, tokenized_hyps)
    keywords = job["keywords"]
    if keywords is None:  # the package's keyword file of this language (java: same list as CodeXGLUE's)
        keywords_file = Path(bleu.__file__).parent / "keywords" / f"{lang}.txt"
        keywords = [x.strip() for x in keywords_file.read_text(encoding="utf-8").splitlines()]

    def make_weights(reference_tokens, key_word_list):
        return {token: 1 if token in key_word_list else 0.2 for token in reference_tokens}

    tokenized_refs_with_weights = [
        [[reference_tokens, make_weights(reference_tokens, keywords)] for reference_tokens in reference]
        for reference in tokenized_refs
    ]
    weighted_ngram_match_score = weighted_ngram_match.corpus_bleu(tokenized_refs_with_weights, tokenized_hyps)

    def clean(code):
        if job["remove_comments"] == "none":
            return code
        try:
            return utils.remove_comments_and_docstrings(code, "java")
        except Exception:
            return code

    dfg_function = {"python": dfg_module.DFG_python, "java": dfg_module.DFG_java}[lang]
    syn_match = syn_total = df_match = df_total = 0
    for candidate, references_sample in zip(hypothesis, references):
        cand_syn = cand_df = candidate
        for reference in references_sample:
            # syntax_match.py
            cand_syn = clean(cand_syn)
            ref = clean(reference)
            cand_sexps = get_all_sub_trees(parser.parse(bytes(cand_syn, "utf8")).root_node)
            ref_sexps = get_all_sub_trees(parser.parse(bytes(ref, "utf8")).root_node)
            for sub_tree in ref_sexps:
                if sub_tree in cand_sexps:
                    syn_match += 1
            syn_total += len(ref_sexps)
            # dataflow_match.py
            cand_df = clean(cand_df)
            cand_dfg = _normalize_dataflow(_get_data_flow(cand_df, parser, dfg_function, utils))
            ref_dfg = _normalize_dataflow(_get_data_flow(ref, parser, dfg_function, utils))
            if len(ref_dfg) > 0:
                df_total += len(ref_dfg)
                for dataflow in ref_dfg:
                    if dataflow in cand_dfg:
                        df_match += 1
                        cand_dfg.remove(dataflow)
    syntax_match_score = syn_match / syn_total
    dataflow_match_score = df_match / df_total if df_total else 0.0
    a, b, c, d = job.get("weights") or (0.25, 0.25, 0.25, 0.25)
    code_bleu_score = (
        a * ngram_match_score
        + b * weighted_ngram_match_score
        + c * syntax_match_score
        + d * dataflow_match_score
    )
    return {
        "codebleu": code_bleu_score,
        "ngram_match": ngram_match_score,
        "weighted_ngram_match": weighted_ngram_match_score,
        "syntax_match": syntax_match_score,
        "dataflow_match": dataflow_match_score,
    }


def _oracle_main():  # runs inside .build/venv-ts020
    import tree_sitter
    from tree_sitter import Language, Parser

    assert "site-packages" in tree_sitter.__file__ and hasattr(Language, "build_library"), (
        tree_sitter.__file__
    )
    job = json.loads(sys.stdin.read())
    parsers = {}

    def parser_for(library, lang):
        key = (library, lang)
        if key not in parsers:
            parser = Parser()
            parser.set_language(Language(library, lang))
            parsers[key] = parser
        return parsers[key]

    modules = None
    out = []
    for j in job["jobs"]:
        parser = parser_for(j["library"], j["lang"])
        if j["kind"] == "trees":
            res = []
            for code in j["snippets"]:
                root = parser.parse(code.encode("utf8")).root_node
                res.append(
                    {
                        "nodes": tree_records(root, lambda c: c.current_field_name()),
                        "sexps": get_all_sub_trees(root),
                    }
                )
            out.append(res)
        elif j["kind"] == "codebleu":
            if modules is None:
                from codebleu import bleu, weighted_ngram_match
                from codebleu.parser import DFG as dfg_module
                from codebleu.parser import utils

                dfg_module.set = OrderedSet
                modules = (bleu, weighted_ngram_match, utils, dfg_module)
            out.append(_codexglue(j, parser, modules))
        else:
            raise ValueError(j["kind"])
    print(json.dumps(out))


if __name__ == "__main__":
    _oracle_main()
