"""CodeBLEU (Ren et al., 2020) as pure functions: no evaluate, no state.

    CodeBLEU = a * BLEU + b * BLEU_weighted + c * Match_ast + d * Match_df      (default 0.25 each)

Reference implementation: microsoft/CodeXGLUE ``Code-Code/code-to-code-trans/evaluator/CodeBLEU``
(copied by the AIJ 2021 Fusion Brain kit and by the PyPI ``codebleu`` package, k4black/codebleu).
Everything is corpus-level (micro-averaged); a per-example score is the same formula on a corpus of one.

* BLEU: NLTK-style corpus BLEU-4 on ``str.split()`` tokens. Modified precision clipped by the max
  count over the references, per-sentence denominator ``max(1, #hyp n-grams)``, numerators and
  denominators summed over the corpus; BP = 1 if c > r, 0 if c = 0, else exp(1 - r/c) with r the sum
  of the closest reference lengths (ties -> shorter); 0 when no unigram matches; Chen & Cherry
  method 1 smoothing (a zero numerator becomes epsilon = 0.1).
* Weighted BLEU: same skeleton, but p_n is a *recall*: for every reference, sum over its n-grams of
  min(count_ref, count_hyp) over max(1, sum count_ref), summed over references; for n = 1 every
  count is weighted by 1 (keyword of the language) or 0.2 (any other token), keyed by reference tokens.
* Match_ast: s-expressions of the root and of every node with children (tree-sitter); reference
  subtrees whose s-expression occurs in the candidate (membership, unclipped, as in the reference
  code) or min(count_ref, count_cand) (``ast_clipping=True``, the paper's Count_clip) over the number
  of reference subtrees.
* Match_df: the CodeXGLUE data-flow graph of each snippet (per-language rules below), edges kept when
  they have parents or are parents, merged by position, variable names normalised to ``var_i`` by
  first appearance; reference items found in the candidate (multiset intersection) over the number of
  reference items. A corpus without reference data flow scores 0 (the reference code warns; the PyPI
  package crashes nothing but adds ``or 1`` in the combination, see ``missing_dataflow``).

Determinism: wherever the reference code builds ``list(set(names))`` (loop merging, position merging)
this module keeps first-seen order instead, so results never depend on PYTHONHASHSEED.
"""

import bisect
import gc
import io
import math
import operator
import re
import tokenize
from collections import Counter

LANGUAGES = ("python", "java", "javascript", "c_sharp", "php", "c", "cpp", "go", "ruby", "rust")
KEYWORD_SETS = ("pypi", "codexglue")
COMMENT_RULES = ("none", "java", "lang")
MISSING_DATAFLOW = ("zero", "one", "zero_is_one")
EPSILON = 0.1
OTHER_TOKEN_WEIGHT = 0.2

# Keyword lists (one constant per language, same entries as the reference keyword files).
_PY_KEYWORDS_2020 = (
    "False None True and as assert async await break class continue def del elif else except finally for "
    "from global if import in is lambda nonlocal not or pass raise return try while with yield"
)
KEYWORDS = {
    "python": _PY_KEYWORDS_2020 + " match case type",
    "java": "abstract assert boolean break byte case catch char class const continue default do double else "
    "enum extends final finally float for goto if implements import instanceof int interface long native new "
    "package private protected public return short static strictfp super switch synchronized this throw "
    "throws transient try void volatile while",
    "javascript": "await break case catch class const continue debugger default delete do else enum export "
    "extends false finally for function if implements import in instanceof interface let new null package "
    "private protected public return super switch static this throw try True typeof var void while with yield",
    "c_sharp": "abstract as base bool break byte case catch char checked class const continue decimal default "
    "delegate do double else enum event explicit extern false finally fixed float for foreach goto if implicit "
    "in int interface internal is lock long namespace new null object operator out override params private "
    "protected public readonly ref return sbyte sealed short sizeof stackalloc static string struct switch "
    "this throw true try typeof uint ulong unchecked unsafe ushort using virtual void volatile while add alias "
    "ascending async await by descending dynamic equals from get global group into join let nameof notnull on "
    "orderby partial remove select set unmanaged value var when where yield",
    "php": "__halt_compiler abstract and array as break callable case catch class clone const continue declare "
    "default die do echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile eval exit "
    "extends final for foreach function global goto if implements include include_once instanceof insteadof "
    "interface isset list namespace new or print private protected public require require_once return static "
    "switch throw trait try unset use var while xor",
    "c": "auto else long switch break enum register typedef case extern return union char float short unsigned "
    "const for signed void continue goto sizeof volatile default if static while do int struct _Packed double",
    "cpp": "auto const double float int short struct unsigned break continue else for long signed switch void "
    "case default enum goto register sizeof typedef volatile char do extern if return static union while asm "
    "dynamic_cast namespace reinterpret_cast bool explicit new static_cast typeid catch false try operator "
    "template typename class friend private this using const_cast inline public throw virtual delete mutable "
    "protected true wchar_t and bitand compl not_eq or_eq xor_eq and_eq bitor not or xor cin endl INT_MIN "
    "iomanip main npos std cout include INT_MAX iostream MAX_RAND NULL string",
    "go": "break default func interface select case defer go map struct chan else goto package switch const "
    "fallthrough if range type continue for import return var false true",
    "ruby": "__ENCODING__ __LINE__ __FILE__ BEGIN END alias and begin break case class def defined? do else "
    "elsif end ensure false for if in module next nil not or redo rescue retry return self super then true "
    "undef unless until when while yield",
    "rust": "as async await block bool break char const continue crate default dyn else enum expr extern f32 "
    "f64 false fn for i128 i16 i32 i64 i8 ident if impl in isize item let lifetime literal loop macro_rules! "
    "match meta mod move mut pat path pub ref return self static stmt str struct super trait true tt ty type "
    "u128 u16 u32 u64 u8 union unsafe use usize vis where while yield",
}
KEYWORDS = {lang: frozenset(words.split()) for lang, words in KEYWORDS.items()}


def keywords_for(lang: str, keyword_set: str = "pypi") -> frozenset:
    """The keyword list of ``lang``: "pypi" (k4black lists; python has 38 entries incl. match/case/type)
    or "codexglue" (python: the 35 keywords of the 2020 CodeXGLUE/AIJ file; other languages as "pypi")."""
    if keyword_set == "codexglue" and lang == "python":
        return frozenset(_PY_KEYWORDS_2020.split())
    return KEYWORDS[lang]


# ----------------------------------------------------------------------------------------------
# tree-sitter languages and parsers (imported lazily, cached per language)
# ----------------------------------------------------------------------------------------------
_GRAMMAR_MODULES = {
    "python": ("tree_sitter_python", "language"),
    "java": ("tree_sitter_java", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "c_sharp": ("tree_sitter_c_sharp", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "go": ("tree_sitter_go", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "rust": ("tree_sitter_rust", "language"),
}
_PARSERS = {}


def get_parser(lang: str):
    """A cached ``tree_sitter.Parser`` for ``lang`` built from the individual grammar wheel."""
    parser = _PARSERS.get(lang)
    if parser is None:
        import importlib

        module_name, attr = _GRAMMAR_MODULES[lang]
        try:
            import tree_sitter

            module = importlib.import_module(module_name)
        except ImportError as err:
            pip_name = module_name.replace("_", "-")
            raise ImportError(
                f"codebleu: lang={lang!r} needs `tree-sitter` and `{pip_name}` "
                f"(pip install 'multimodal-metrics[code]' or see requirements.txt): {err}"
            ) from None
        language = tree_sitter.Language(getattr(module, attr)())
        parser = tree_sitter.Parser(language)
        _PARSERS[lang] = parser
    return parser


# ----------------------------------------------------------------------------------------------
# Comment removal (applied before the AST and data-flow matches only)
# ----------------------------------------------------------------------------------------------
_C_LIKE_COMMENT = re.compile(r"//.*?$|/\*.*?\*/|'(?:\\.|[^\\'])*'|\"(?:\\.|[^\\\"])*\"", re.DOTALL | re.MULTILINE)


def _drop_blank_lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if line.strip() != "")


def _strip_c_like(source: str) -> str:
    # comments become one space; string literals are matched (so '//' inside them survives) and kept
    return _drop_blank_lines(_C_LIKE_COMMENT.sub(lambda m: " " if m.group(0).startswith("/") else m.group(0), source))


def _strip_python(source: str) -> str:
    # Rebuild the source from its tokens, leaving out comments and docstrings (a string token that
    # follows an INDENT, or follows a NEWLINE at column 0, is taken for a docstring).
    pieces = []
    previous = tokenize.INDENT
    last_row, last_col = -1, 0
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        kind, text, (row, col), (end_row, end_col) = tok[0], tok[1], tok[2], tok[3]
        if row > last_row:
            last_col = 0
        if col > last_col:
            pieces.append(" " * (col - last_col))
        if kind == tokenize.COMMENT:
            pass
        elif kind == tokenize.STRING:
            if previous != tokenize.INDENT and previous != tokenize.NEWLINE and col > 0:
                pieces.append(text)
        else:
            pieces.append(text)
        previous = kind
        last_row, last_col = end_row, end_col
    return _drop_blank_lines("".join(pieces))


_PY_TOKENIZE_SENSITIVE = frozenset("#'\"\\\t\f\r")


def _python_plain_tokenize_ok(source: str) -> bool:
    """True when ``source`` holds no comment, string, tab, form feed, carriage return or backslash
    and ``tokenize`` would not raise on it (brackets balanced at the end, every dedent to a known
    indentation). Then rebuilding it from its tokens gives the text back unchanged."""
    if not _PY_TOKENIZE_SENSITIVE.isdisjoint(source):
        return False
    indents = [0]
    depth = 0
    for line in source.split("\n"):
        if depth == 0:
            body = line.lstrip(" ")
            if body:
                column = len(line) - len(body)
                if column > indents[-1]:
                    indents.append(column)
                while column < indents[-1]:
                    if column not in indents:
                        return False
                    indents.pop()
        depth += line.count("(") + line.count("[") + line.count("{")
        depth -= line.count(")") + line.count("]") + line.count("}")
    return depth == 0


def remove_comments(source: str, lang: str, rule: str) -> str:
    """``rule`` "none": unchanged (AIJ 2021); "java": C-style ``//`` and ``/* */`` comments removed for
    every language (CodeXGLUE applies its Java rule whatever the language); "lang": per language
    (PyPI codebleu: python comments + docstrings via ``tokenize``, ruby unchanged, others C-style).
    Blank lines are dropped. Code that cannot be tokenised is returned unchanged."""
    if rule == "none":
        return source
    try:
        if rule == "lang" and lang == "python":
            if _python_plain_tokenize_ok(source):  # nothing to remove: skip the (slow) tokenizer
                return _drop_blank_lines(source)
            return _strip_python(source)
        if rule == "lang" and lang == "ruby":
            return source
        return _strip_c_like(source)
    except Exception:  # the reference code keeps the original text when its remover fails
        return source


# ----------------------------------------------------------------------------------------------
# Tokens of a tree (the CodeXGLUE "code tokens": leaves, and string literals as one token)
# ----------------------------------------------------------------------------------------------
_STRING_TYPES = frozenset(("string_literal", "string", "character_literal"))


def _span_text(span, lines) -> str:
    # Like the reference: columns are tree-sitter byte columns applied to str lines.
    (r0, c0), (r1, c1) = span
    if r0 == r1:
        return lines[r0][c0:c1]
    return lines[r0][c0:] + "".join(lines[r0 + 1 : r1]) + lines[r1][:c1]


def _dedupe(items) -> list:
    return list(dict.fromkeys(items))


# ----------------------------------------------------------------------------------------------
# Data-flow graphs (CodeXGLUE parser/DFG.py semantics, one rule table per language)
# ----------------------------------------------------------------------------------------------
# if-style: "python" (elif/else clauses use the incoming states), "plain" (ruby: children whose type is
# an if-type use the incoming states), "flag" (from the first if-type child on, incoming states).
# merge_incoming: also merge the incoming states after the branches (go, javascript, php).
_RULES = {
    "python": dict(
        copy_states=True, defs=("default_parameter",), def_style="fields", def_fields=("name", "value"),
        assigns=("assignment", "augmented_assignment", "for_in_clause"), assign_style="python", incs=(),
        ifs=("if_statement",), if_style="python", if_tag=True, merge_incoming=False,
        fors=("for_statement",), for_style="python", for_marker=None,
        efors=(), efor_style=None, whiles=("while_statement",), do_first=("for_in_clause",),
    ),
    "java": dict(
        copy_states=True, defs=("variable_declarator",), def_style="fields", def_fields=("name", "value"),
        assigns=("assignment_expression",), assign_style="simple", incs=("update_expression",),
        ifs=("if_statement", "else"), if_style="flag", if_tag=True, merge_incoming=False,
        fors=("for_statement",), for_style="c", for_marker="local_variable_declaration",
        efors=("enhanced_for_statement",), efor_style=("name", "value", "body"),
        whiles=("while_statement",), do_first=(),
    ),
    "c_sharp": dict(
        copy_states=True, defs=("variable_declarator",), def_style="csharp", def_fields=None,
        assigns=("assignment_expression",), assign_style="simple", incs=("postfix_unary_expression",),
        ifs=("if_statement", "else"), if_style="flag", if_tag=True, merge_incoming=False,
        fors=("for_statement",), for_style="c", for_marker="local_variable_declaration",
        efors=("for_each_statement",), efor_style=("left", "right", "body"),
        whiles=("while_statement",), do_first=(),
    ),
    "ruby": dict(
        copy_states=False, defs=("keyword_parameter",), def_style="fields", def_fields=("name", "value"),
        assigns=("assignment", "operator_assignment"), assign_style="ruby", incs=(),
        ifs=("if", "elsif", "else", "unless", "when"), if_style="plain", if_tag=True, merge_incoming=False,
        fors=("for",), for_style="ruby", for_marker=None, efors=(), efor_style=None,
        whiles=("while_modifier", "until"), do_first=(),
    ),
    "go": dict(
        copy_states=True, defs=("var_spec",), def_style="fields", def_fields=("name", "value"),
        assigns=("assignment_statement",), assign_style="simple", incs=("inc_statement",),
        ifs=("if_statement", "else"), if_style="flag", if_tag=True, merge_incoming=True,
        fors=("for_statement",), for_style="go", for_marker=None, efors=(), efor_style=None,
        whiles=(), do_first=(),
    ),
    "php": dict(
        copy_states=True, defs=("simple_parameter",), def_style="fields", def_fields=("name", "default_value"),
        assigns=("assignment_expression", "augmented_assignment_expression"), assign_style="simple",
        incs=("update_expression",), ifs=("if_statement", "else_clause"), if_style="flag", if_tag=False,
        merge_incoming=True, fors=("for_statement",), for_style="c", for_marker="assignment_expression",
        efors=("foreach_statement",), efor_style="php", whiles=("while_statement",), do_first=(),
    ),
    "javascript": dict(
        copy_states=True, defs=("variable_declarator",), def_style="fields", def_fields=("name", "value"),
        assigns=("assignment_pattern", "augmented_assignment_expression"), assign_style="simple",
        incs=("update_expression",), ifs=("if_statement", "else"), if_style="flag", if_tag=True,
        merge_incoming=True, fors=("for_statement",), for_style="c", for_marker="variable_declaration",
        efors=(), efor_style=None, whiles=("while_statement",), do_first=(),
    ),
    "rust": dict(
        copy_states=True, defs=("function_item",), def_style="rust", def_fields=None,
        assigns=("assignment_expression", "compound_assignment_expr", "let_expression"), assign_style="simple",
        incs=(), ifs=("if_expression", "if_let_expression", "match_expression", "else"), if_style="flag",
        if_tag=True, merge_incoming=False, fors=("for_expression",), for_style="c",
        for_marker="local_variable_declaration", efors=("for_each_statement",),
        efor_style=("left", "right", "body"), whiles=("while_expression", "while_let_expression", "loop_expression"),
        do_first=(),
    ),
}
# C and C++ use the C# rules on their own grammars (XLCoST convention, kept by PyPI codebleu).
_RULES["c"] = _RULES["c_sharp"]
_RULES["cpp"] = _RULES["c_sharp"]


class _Node:
    """A parse-tree node flattened once: type, children (a token child is its int index), token range
    [lo, hi), its token index (-1 if not a token: only a token root is a _Node), whether its subtree
    holds a node with a data-flow rule, and the tree-sitter node."""

    __slots__ = ("type", "kids", "lo", "hi", "tok", "special", "ts")


class _Tree:
    """One cursor walk over a parse: code tokens (leaves, string literals whole, comments left out),
    the s-expressions of the root and of every node with children, and the flattened nodes.

    S-expressions are assembled bottom-up from the children's (named children, ``field: `` prefixes),
    which is what tree-sitter's ``str(node)`` prints for an error-free tree, without re-printing every
    subtree; trees with ERROR/MISSING nodes (and any anonymous node with children) use ``str(node)``.
    """

    def __init__(self, root, text: str, special_types):
        spans, types, sexps = [], [], []
        frames = []  # [node, pieces, field name, is_named, child_count] of the open ancestors
        exact = root.has_error
        top = None
        cursor = root.walk()
        first_child, next_sibling, parent = cursor.goto_first_child, cursor.goto_next_sibling, cursor.goto_parent
        string_types = _STRING_TYPES

        def finish():
            n, pieces, field, named, count = frames.pop()
            n.hi = len(spans)
            if frames:
                up = frames[-1]
                if n.special:
                    up[0].special = True
                if not exact:
                    sexp = "(" + n.type + (" " + " ".join(pieces) + ")" if pieces else ")")
                    if count:
                        sexps.append(sexp)
                    if named:
                        up[1].append(field + ": " + sexp if field else sexp)
                return up
            if not exact and count:
                sexps.append("(" + n.type + (" " + " ".join(pieces) + ")" if pieces else ")"))
            return None

        up = None  # the frame of the parent of the current node
        while True:
            node = cursor.node
            kind = node.type
            count = node.child_count
            if (count == 0 or kind in string_types) and kind != "comment":
                i = len(spans)
                spans.append((node.start_byte, node.end_byte))
                types.append(kind)
                if up is not None:  # a token is its index in the parent's children
                    up[0].kids.append(i)
                    if not exact and node.is_named:
                        if count:  # a string with children: one token, still subtrees for the AST
                            inner = [node]
                            while inner:
                                cur = inner.pop()
                                sexps.append(str(cur))
                                inner.extend(c for c in cur.children if c.child_count)
                            sexp = str(node)
                        else:
                            sexp = "(" + kind + ")"
                        field = cursor.field_name
                        up[1].append(field + ": " + sexp if field else sexp)
                    elif count and not exact:
                        inner = [node]
                        while inner:
                            cur = inner.pop()
                            sexps.append(str(cur))
                            inner.extend(c for c in cur.children if c.child_count)
                else:
                    top = n = _Node()
                    n.type, n.ts, n.kids, n.lo, n.hi, n.tok, n.special = kind, node, (), i, i + 1, i, False
            else:
                n = _Node()
                n.type = kind
                n.ts = node
                if up is not None:
                    up[0].kids.append(n)
                else:
                    top = n
                n.kids = []
                n.lo = len(spans)
                n.tok = -1
                n.special = kind in special_types
                named = node.is_named
                if count and not named:
                    exact = True
                up = [n, [], cursor.field_name if named else None, named, count]
                frames.append(up)
                if first_child():
                    continue
                up = finish()
            while not next_sibling():
                if not parent():
                    break
                up = finish()
            else:
                continue
            break
        while frames:
            finish()
        if exact:  # tree-sitter prints the error-recovery details (ERROR, MISSING, UNEXPECTED) itself
            sexps = [str(root)]
            stack = [c for c in root.children if c.child_count]
            while stack:
                cur = stack.pop()
                sexps.append(str(cur))
                stack.extend(c for c in cur.children if c.child_count)
        elif root.child_count == 0:  # the root is always a subtree
            sexps.append(str(root))
        self.root = top
        self.types = types
        self.sexps = sexps
        self.spans = spans
        self.text = text

    def token_code(self) -> list:
        """(index, text) of every token, keyed by span like the reference's index_to_code (zero-width
        tokens at one place share the last index). The reference slices the text lines with tree-sitter's
        byte columns and drops the newlines inside multi-line tokens; for ASCII text that is the byte
        slice without its newlines."""
        text = self.text
        spans = self.spans
        last = {span: i for i, span in enumerate(spans)}
        if text.isascii():
            code = []
            for span in spans:
                i = last[span]
                a, b = spans[i]
                piece = text[a:b]
                code.append((i, piece.replace("\n", "") if "\n" in piece else piece))
            return code
        # tree-sitter points (row, byte column) from byte offsets, then the reference's slicing
        raw = text.encode("utf8")
        starts = [0] + [i + 1 for i, byte in enumerate(raw) if byte == 10]
        lines = text.split("\n")

        def point(offset):
            row = bisect.bisect_right(starts, offset) - 1
            return row, offset - starts[row]

        return [(last[span], _span_text((point(spans[last[span]][0]), point(spans[last[span]][1])), lines))
                for span in spans]


def _special_types(rules) -> frozenset:
    return frozenset(
        t for key in ("defs", "assigns", "incs", "ifs", "fors", "efors", "whiles") for t in rules[key]
    )


_SPECIAL = {lang: _special_types(rules) for lang, rules in _RULES.items()}


_POS = operator.itemgetter(1)


def _by_pos(entries):
    return sorted(entries, key=_POS)


def _merge_loop(entries):
    """Entries seen on both passes of a loop merged by (name, position, relation)."""
    merged = {}
    for name, pos, rel, par_names, par_pos in entries:
        key = (name, pos, rel)
        if key not in merged:
            merged[key] = [par_names, par_pos]
        else:
            old = merged[key]
            merged[key] = [_dedupe(old[0] + par_names), sorted(set(old[1] + par_pos))]
    return _by_pos([(k[0], k[1], k[2], v[0], v[1]) for k, v in sorted(merged.items(), key=lambda t: t[0][1])])


class _Flow:
    """One data-flow extraction (CodeXGLUE DFG_<lang> semantics) over a flattened tree.

    Subtrees without any node that has a rule are processed as a flat token sequence (what the
    recursive reference does for them, without the recursion)."""

    def __init__(self, rules, tree: _Tree):
        self.r = rules
        self.copy_states = rules["copy_states"]
        # node type -> rule (plain functions, not bound methods: no reference cycle through self)
        self.handlers = _handlers(rules)
        self.code = tree.token_code()
        self.types = tree.types
        self.is_var = [kind != text for kind, (_, text) in zip(tree.types, self.code)]
        self.spans = tree.spans

    def var_tokens(self, node):  # the reference's tree_to_variable_index
        is_var = self.is_var
        if node.__class__ is int:
            return [node] if is_var[node] else []
        return [i for i in range(node.lo, node.hi) if is_var[i]]

    @staticmethod
    def kids(node):
        return () if node.__class__ is int else node.kids

    def kind(self, node) -> str:
        return self.types[node] if node.__class__ is int else node.type

    def field(self, node, name):
        child = node.ts.child_by_field_name(name)
        if child is None:
            return None
        spans, types = self.spans, self.types
        for kid in node.kids:
            if kid.__class__ is int:  # a token: same place and type is the same token for every purpose
                if spans[kid] == (child.start_byte, child.end_byte) and types[kid] == child.type:
                    return kid
            elif kid.ts == child:
                return kid
        raise LookupError(name)

    def _tokens(self, lo, hi, states, out):
        code, types = self.code, self.types
        for i in range(lo, hi):
            idx, text = code[i]
            if types[i] == text:
                continue
            if text in states:
                out.append((text, idx, "comesFrom", [text], states[text].copy()))
            else:
                if types[i] == "identifier":
                    states[text] = [idx]
                out.append((text, idx, "comesFrom", [], []))

    def _cross(self, targets, sources, relation, states, out):
        # every target token comes from / is computed from every source token (one edge each)
        code = self.code
        for t in self.var_tokens(targets):
            idx1, code1 = code[t]
            for s in sources:
                idx2, code2 = code[s]
                out.append((code1, idx1, relation, [code2], [idx2]))
            states[code1] = [idx1]

    def _all_from(self, left_node, right_node, states, out):
        # python/ruby style: one edge per target token whose parents are all the source tokens
        code = self.code
        rights = self.var_tokens(right_node)
        names = [code[x][1] for x in rights]
        poses = [code[x][0] for x in rights]
        for t in self.var_tokens(left_node):
            idx1, code1 = code[t]
            out.append((code1, idx1, "computedFrom", list(names), list(poses)))
            states[code1] = [idx1]

    def _into(self, node, states, out):
        """self.run(node, states) with the edges appended to ``out``; tokens and rule-free subtrees
        inline (same states semantics: they work on a copy)."""
        if node.__class__ is int:
            states = states.copy()
            self._tokens(node, node + 1, states, out)
            return states
        if node.tok >= 0 or not node.special:
            if node.lo == node.hi and node.tok < 0:
                return states.copy() if self.r["copy_states"] else states
            states = states.copy()
            self._tokens(node.lo, node.hi, states, out)
            return states
        sub, states = self.run(node, states)
        out += sub
        return states

    def run(self, node, states):
        if node.__class__ is int:  # a token
            out = []
            states = states.copy()
            self._tokens(node, node + 1, states, out)
            return out, states
        if node.tok >= 0 or not node.special:
            out = []
            if node.lo == node.hi and node.tok < 0:
                return out, (states.copy() if self.copy_states else states)
            states = states.copy()
            self._tokens(node.lo, node.hi, states, out)
            return out, states
        if self.copy_states:
            states = states.copy()
        handler = self.handlers.get(node.type)
        if handler is not None:
            return handler(self, node, states)
        return self._generic(node, states)

    def _def(self, node, states):
        r = self.r
        out = []
        style = r["def_style"]
        kids = node.kids
        if style == "fields":
            name = self.field(node, r["def_fields"][0])
            value = self.field(node, r["def_fields"][1])
        elif style == "csharp":
            name = kids[0]
            value = kids[1] if len(kids) == 2 else None
        else:  # rust: function_item
            name = kids[1]
            value = kids[2] if len(kids) >= 3 else None
        if value is None:
            for i in self.var_tokens(name):
                idx, text = self.code[i]
                out.append((text, idx, "comesFrom", [], []))
                states[text] = [idx]
            return _by_pos(out), states
        sources = self.var_tokens(value)
        states = self._into(value, states, out)
        self._cross(name, sources, "comesFrom", states, out)
        return _by_pos(out), states

    def _assign(self, node, states):
        style = self.r["assign_style"]
        out = []
        if style == "simple":
            left = self.field(node, "left")
            right = self.field(node, "right")
            states = self._into(right, states, out)
            self._cross(left, self.var_tokens(right), "computedFrom", states, out)
            return _by_pos(out), states
        kind = node.type
        if style == "python" and kind == "for_in_clause":
            lefts, rights = [self.field(node, "left")], [node.kids[-1]]
        else:
            if style == "python" and node.ts.child_by_field_name("right") is None:
                return [], states
            lefts, rights = self._pairs(node)
            if style == "ruby" and kind == "operator_assignment":
                lefts, rights = [node.kids[0]], [node.kids[-1]]
        for right in rights:
            states = self._into(right, states, out)
        for left, right in zip(lefts, rights):
            self._all_from(left, right, states, out)
        return _by_pos(out), states

    def _inc(self, node, states):
        out = []
        toks = self.var_tokens(node)
        for t1 in toks:
            idx1, code1 = self.code[t1]
            for t2 in toks:
                idx2, code2 = self.code[t2]
                out.append((code1, idx1, "computedFrom", [code2], [idx2]))
            states[code1] = [idx1]
        return _by_pos(out), states

    def _while(self, node, states):
        out = []
        for _ in range(2):
            for child in node.kids:
                states = self._into(child, states, out)
        return _merge_loop(out), states

    def _generic(self, node, states):
        out = []
        do_first = self.r["do_first"]
        kids = node.kids
        if do_first:
            kids = [k for k in kids if self.kind(k) in do_first] + [k for k in kids if self.kind(k) not in do_first]
        # Children without rules are processed inline as tokens. In the reference every token copies the
        # states first; here one private copy is made before the first in-place update (ruby passes its
        # caller's dict down, the other languages copy on entry, so the dict is already private).
        copy_states = self.copy_states
        private = copy_states
        tokens = self._tokens
        for child in kids:
            if child.__class__ is int:
                if not private:
                    states = states.copy()
                    private = True
                tokens(child, child + 1, states, out)
                continue
            if not child.special:
                if child.lo < child.hi:
                    if not private:
                        states = states.copy()
                        private = True
                    tokens(child.lo, child.hi, states, out)
                continue
            states = self._into(child, states, out)
            private = copy_states
        return _by_pos(out), states

    def _pairs(self, node):
        left_node = self.field(node, "left")
        right_node = self.field(node, "right")
        lefts = [x for x in self.kids(left_node) if self.kind(x) != ","]
        rights = [x for x in self.kids(right_node) if self.kind(x) != ","]
        if len(rights) != len(lefts):
            lefts, rights = [left_node], [right_node]
        if not lefts:
            lefts = [left_node]
        if not rights:
            rights = [right_node]
        return lefts, rights

    def _if(self, node, states):
        r = self.r
        out = []
        current = states.copy()
        branches = []
        tag = "else" in node.type
        flag = False
        style = r["if_style"]
        for child in node.kids:
            kind = self.kind(child)
            if "else" in kind:
                tag = True
            if style == "python":
                own_branch = kind not in ("elif_clause", "else_clause")
            elif style == "plain":
                own_branch = kind not in r["ifs"]
            else:
                own_branch = kind not in r["ifs"] and not flag
            if own_branch:
                current = self._into(child, current, out)
            else:
                flag = True
                sub, other = self.run(child, states)
                out += sub
                branches.append(other)
        branches.append(current)
        if r["if_tag"] and not tag:
            branches.append(states)
        merged = {}
        for branch in branches:
            for key, value in branch.items():
                if key not in merged:
                    merged[key] = value.copy()
                else:
                    merged[key] += value
        if r["merge_incoming"]:
            for key, value in states.items():
                if key not in merged:
                    merged[key] = value
                else:
                    merged[key] += value
        for key in merged:
            merged[key] = sorted(set(merged[key]))
        return _by_pos(out), merged

    def _for(self, node, states):
        r = self.r
        out = []
        style = r["for_style"]
        if style in ("python", "ruby"):
            for _ in range(2):
                if style == "python":
                    lefts, rights = self._pairs(node)
                else:
                    lefts, rights = [self.field(node, "pattern")], [self.field(node, "value")]
                for right in rights:
                    states = self._into(right, states, out)
                for left, right in zip(lefts, rights):
                    self._all_from(left, right, states, out)
                if style == "python":
                    if self.kind(node.kids[-1]) == "block":
                        states = self._into(node.kids[-1], states, out)
                else:
                    states = self._into(self.field(node, "body"), states, out)
            return _merge_loop(out), states
        for child in node.kids:
            states = self._into(child, states, out)
        flag = False
        for child in node.kids:
            if flag:
                states = self._into(child, states, out)
            elif style == "go" and self.kind(child) == "for_clause":
                update = self.field(child, "update")
                if update is not None:
                    states = self._into(update, states, out)
                flag = True
            elif style == "c" and self.kind(child) == r["for_marker"]:
                flag = True
        return _merge_loop(out), states

    def _enhanced_for(self, node, states):
        style = self.r["efor_style"]
        if style == "php":
            name = value = None
            for child in node.kids:
                if self.kind(child) == "variable_name" and value is None:
                    value = child
                elif self.kind(child) == "variable_name" and name is None:
                    name = child
                    break
            body = self.field(node, "body")
        else:
            name = self.field(node, style[0])
            value = self.field(node, style[1])
            body = self.field(node, style[2])
        out = []
        for _ in range(2):
            states = self._into(value, states, out)
            self._cross(name, self.var_tokens(value), "computedFrom", states, out)
            states = self._into(body, states, out)
        return _merge_loop(out), states


_HANDLERS = {}


def _handlers(rules) -> dict:
    """node type -> _Flow rule function, with the reference's precedence (def, assignment, increment,
    if, for, enhanced for, while), cached per rule table."""
    key = id(rules)
    table = _HANDLERS.get(key)
    if table is None:
        table = {}
        for name, func in (("whiles", _Flow._while), ("efors", _Flow._enhanced_for), ("fors", _Flow._for),
                           ("ifs", _Flow._if), ("incs", _Flow._inc), ("assigns", _Flow._assign), ("defs", _Flow._def)):
            for kind in rules[name]:
                table[kind] = func
        _HANDLERS[key] = table
    return table


def data_flow(tree: _Tree, lang: str) -> list:
    """Normalised data-flow items ``(var_i, relation, (var_j, ...))`` of a parsed snippet.

    Edges that neither have parents nor are parents are dropped; edges at the same position are
    merged; names become ``var_0, var_1, ...`` in order of first appearance. Any failure of the
    extraction (e.g. a node without the expected fields in broken code) gives no data flow, as in the
    reference code.
    """
    try:
        flow = _Flow(_RULES[lang], tree)
    except Exception:
        return []
    try:
        entries, _ = flow.run(tree.root, {})
    except Exception:
        entries = []
    entries = _by_pos(entries)
    used = set()
    for entry in entries:
        if entry[4]:
            used.add(entry[1])
        used.update(entry[4])
    merged = {}
    for entry in entries:
        pos = entry[1]
        if pos not in used:
            continue
        if pos not in merged:
            merged[pos] = entry
        else:
            old = merged[pos]
            merged[pos] = (entry[0], pos, entry[2], _dedupe(old[3] + entry[3]), _dedupe(old[4] + entry[4]))
    names = {}
    items = []
    for name, _pos, relation, parents, _ppos in merged.values():
        for parent in parents:
            if parent not in names:
                names[parent] = f"var_{len(names)}"
        if name not in names:
            names[name] = f"var_{len(names)}"
        items.append((names[name], relation, tuple(names[p] for p in parents)))
    return items


class Snippet:
    """Everything CodeBLEU needs from one code string, computed once: one parse, one walk."""

    __slots__ = ("subtrees", "subtree_set", "subtree_counts", "flow", "flow_counts", "parse_error")

    def __init__(self, code: str, lang: str, comment_rule: str, strip: bool, comment_passes: int = 1):
        if strip:
            code = code.strip()
        clean = code
        for _ in range(comment_passes):
            clean = remove_comments(clean, lang, comment_rule)
        root = get_parser(lang).parse(clean.encode("utf8")).root_node
        self.parse_error = root.has_error
        tree = _Tree(root, clean, _SPECIAL[lang])
        self.subtrees = tree.sexps
        self.subtree_set = None
        self.subtree_counts = None
        self.flow = data_flow(tree, lang)
        self.flow_counts = None


# ----------------------------------------------------------------------------------------------
# n-gram components
# ----------------------------------------------------------------------------------------------
def _ngram_counts(tokens, n) -> Counter:
    if len(tokens) < n:
        return Counter()
    return Counter(zip(*(tokens[i:] for i in range(n))))


def _closest_ref_length(ref_lens, hyp_len) -> int:
    return min(ref_lens, key=lambda r: (abs(r - hyp_len), r))


def _brevity_penalty(closest_ref_len, hyp_len) -> float:
    if hyp_len > closest_ref_len:
        return 1
    if hyp_len == 0:
        return 0
    return math.exp(1 - closest_ref_len / hyp_len)


def _combine(numerators, denominators, ref_len, hyp_len, max_n=4) -> float:
    if numerators[0] == 0:
        return 0.0
    bp = _brevity_penalty(ref_len, hyp_len)
    logs = []
    for num, den in zip(numerators, denominators):
        if num == 0:
            num = num + EPSILON
        logs.append((1.0 / max_n) * math.log(num / den))
    return float(bp * math.exp(math.fsum(logs)))


def _overlap(a: Counter, b: Counter) -> int:
    """sum over n-grams of min(count_a, count_b) (symmetric: clipped matches either way)."""
    if len(a) > len(b):
        a, b = b, a
    get = b.get
    return sum(min(c, get(g, 0)) for g, c in a.items())


def ngram_stats(hyp_tokens, refs_tokens, keywords, max_n=4):
    """Sufficient statistics of one example for BLEU and for the weighted n-gram match:
    two tuples (numerators, denominators, ref_len, hyp_len), n-grams counted once."""
    hyp = [_ngram_counts(hyp_tokens, n) for n in range(1, max_n + 1)]
    refs = [[_ngram_counts(ref, n) for n in range(1, max_n + 1)] for ref in refs_tokens]
    hyp_len = len(hyp_tokens)
    single = len(refs) == 1
    # BLEU: modified precision, clipped by the max count over the references
    b_nums, b_dens = [], []
    for k in range(max_n):
        counts = hyp[k]
        if single:
            b_nums.append(_overlap(counts, refs[0][k]))
        else:
            b_nums.append(sum(min(c, max(r[k].get(g, 0) for r in refs)) for g, c in counts.items()))
        b_dens.append(max(1, hyp_len - k))
    bleu = (b_nums, b_dens, _closest_ref_length([len(r) for r in refs_tokens], hyp_len), hyp_len)
    # weighted n-gram match: recall over every reference, unigrams weighted by keyword-ness
    w_nums, w_dens = [0] * max_n, [0] * max_n
    for ref_tokens, ref in zip(refs_tokens, refs):
        weights = {tok: (1 if tok in keywords else OTHER_TOKEN_WEIGHT) for tok in ref_tokens}
        num = den = 0
        h = hyp[0]
        for gram, count in ref[0].items():  # same order and float operations as the reference
            w = weights[gram[0]]
            num += min(count, h.get(gram, 0)) * w
            den += count * w
        w_nums[0] += num
        w_dens[0] += max(1, den)
        for k in range(1, max_n):
            w_nums[k] += b_nums[k] if single else _overlap(hyp[k], ref[k])
            w_dens[k] += max(1, len(ref_tokens) - k)
    # Reference quirk: its brevity penalty measures each [tokens, weights] pair, so every reference
    # has "length" 2 and BP = 1 as soon as the hypothesis has more than 2 tokens.
    weighted = (w_nums, w_dens, 2, hyp_len)
    return bleu, weighted


def _corpus(stats) -> float:
    nums = [0] * 4
    dens = [0] * 4
    ref_len = hyp_len = 0
    for n_, d_, r, h in stats:
        for i in range(4):
            nums[i] += n_[i]
            dens[i] += d_[i]
        ref_len += r
        hyp_len += h
    return _combine(nums, dens, ref_len, hyp_len)


# ----------------------------------------------------------------------------------------------
# AST and data-flow components
# ----------------------------------------------------------------------------------------------
def syntax_stats(hyp: Snippet, ref: Snippet, clipped: bool):
    """(matched reference subtrees, reference subtrees) for one candidate/reference pair."""
    if clipped:
        if hyp.subtree_counts is None:
            hyp.subtree_counts = Counter(hyp.subtrees)
        if ref.subtree_counts is None:
            ref.subtree_counts = Counter(ref.subtrees)
        cand = hyp.subtree_counts
        return sum(min(c, cand.get(s, 0)) for s, c in ref.subtree_counts.items()), len(ref.subtrees)
    if hyp.subtree_set is None:
        hyp.subtree_set = frozenset(hyp.subtrees)
    cand = hyp.subtree_set
    return sum(1 for s in ref.subtrees if s in cand), len(ref.subtrees)


def dataflow_stats(hyp: Snippet, ref: Snippet):
    """(reference data-flow items found in the candidate, clipped; reference items)."""
    if not ref.flow:
        return 0, 0
    if hyp.flow_counts is None:
        hyp.flow_counts = Counter(hyp.flow)
    if ref.flow_counts is None:
        ref.flow_counts = Counter(ref.flow)
    cand = hyp.flow_counts
    return sum(min(c, cand.get(item, 0)) for item, c in ref.flow_counts.items()), len(ref.flow)


def _ratio(pairs):
    match = sum(m for m, _ in pairs)
    total = sum(t for _, t in pairs)
    return (match / total if total else 0.0), total


def combine(components, weights, missing_dataflow: str, dataflow_total: int) -> float:
    """a*ngram + b*weighted + c*syntax + d*dataflow with the ``missing_dataflow`` convention:
    "zero": as measured (0 when the references have no data flow; CodeXGLUE/AIJ);
    "one": 1 when the references have no data flow; "zero_is_one": any data-flow score of 0 counts as 1
    (PyPI codebleu's ``dataflow_match_score or 1``)."""
    ngram, weighted, syntax, dataflow = components
    if missing_dataflow == "one" and dataflow_total == 0:
        dataflow = 1.0
    elif missing_dataflow == "zero_is_one" and dataflow == 0:
        dataflow = 1.0
    a, b, c, d = weights
    return a * ngram + b * weighted + c * syntax + d * dataflow


KEYS = ("codebleu", "ngram_match", "weighted_ngram_match", "syntax_match", "dataflow_match")


def corpus_codebleu(
    predictions,
    references,
    lang="python",
    weights=(0.25, 0.25, 0.25, 0.25),
    keywords="pypi",
    remove_comments="lang",
    strip=True,
    missing_dataflow="zero",
    ast_clipping=False,
    per_example=False,
):
    """CodeBLEU of a corpus: returns (scores dict with KEYS, per-example list of dicts or None, notes).

    ``references[i]`` is a list of reference strings. ``notes`` lists the indices of snippets that did
    not parse cleanly and whether the corpus has no reference data flow (the caller turns them into
    warnings). ``remove_comments``/``strip`` follow the PyPI package when "lang"/True; the candidate is
    cleaned once per reference (as the reference code re-cleans it in its reference loop).
    """
    # The work allocates many small acyclic objects; pausing the cyclic garbage collector avoids
    # repeated full scans of everything else the process holds (nothing here forms a cycle).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _corpus_codebleu(
            predictions, references, lang, weights, keywords, remove_comments, strip, missing_dataflow,
            ast_clipping, per_example,
        )
    finally:
        if gc_was_enabled:
            gc.enable()


def _corpus_codebleu(
    predictions, references, lang, weights, keywords, remove_comments, strip, missing_dataflow, ast_clipping,
    per_example,
):
    kw = keywords_for(lang, keywords)
    cache = {}

    def snippet(code, passes=1):
        key = (code, passes)
        snip = cache.get(key)
        if snip is None:
            snip = Snippet(code, lang, remove_comments, strip, passes)
            cache[key] = snip
        return snip

    rows = []
    bad_predictions, bad_references = [], []
    for i, (pred, refs) in enumerate(zip(predictions, references)):
        hyp_tokens = (pred.strip() if strip else pred).split()
        refs_tokens = [(r.strip() if strip else r).split() for r in refs]
        b, w = ngram_stats(hyp_tokens, refs_tokens, kw)
        syn, df = [], []
        for j, ref in enumerate(refs):
            hyp_snip = snippet(pred, j + 1 if remove_comments != "none" else 1)
            ref_snip = snippet(ref)
            if hyp_snip.parse_error and i not in bad_predictions:
                bad_predictions.append(i)
            if ref_snip.parse_error and i not in bad_references:
                bad_references.append(i)
            syn.append(syntax_stats(hyp_snip, ref_snip, ast_clipping))
            df.append(dataflow_stats(hyp_snip, ref_snip))
        rows.append((b, w, syn, df))

    def score(subset):
        ngram = _corpus([row[0] for row in subset])
        weighted = _corpus([row[1] for row in subset])
        syntax, _ = _ratio([p for row in subset for p in row[2]])
        dataflow, df_total = _ratio([p for row in subset for p in row[3]])
        comps = (ngram, weighted, syntax, dataflow)
        total = combine(comps, weights, missing_dataflow, df_total)
        return dict(zip(KEYS, (float(total), *map(float, comps)))), df_total

    scores, df_total = score(rows)
    per = [score([row])[0] for row in rows] if per_example else None
    notes = {"bad_predictions": bad_predictions, "bad_references": bad_references, "no_dataflow": df_total == 0}
    return scores, per, notes
