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
import itertools
import math
import operator
import re
import sys
import tokenize
import types
from collections import Counter, _count_elements  # the C counting loop of Counter
from itertools import repeat

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
# The reference removes C-style comments with one regular expression,
#     //.*?$ | /\*.*?\*/ | '(?:\\.|[^\\'])*' | "(?:\\.|[^\\"])*"      (DOTALL, MULTILINE)
# replacing a comment by one space and keeping a string literal (so '//' inside it survives). Applied
# by `re`, an unterminated `/*` or quote is rescanned to the end of the text from every later opener
# (quadratic). `_strip_c_like` gives the same result in one pass: a scan that finds no closing `*/`
# (or no unescaped closing quote) fails the same way from every later opener, so it is done once.
_C_OPENER = re.compile(r"//|/\*|'|\"")
_QUOTE_STOP = {"'": re.compile(r"[\\']"), '"': re.compile(r'[\\"]')}


def _drop_blank_lines(text: str) -> str:
    return "\n".join(filter(str.strip, text.split("\n")))  # the lines whose strip() is not empty


def _quoted_end(source: str, start: int, stop) -> int:
    """End of the string literal opened at ``start`` (backslash escapes any character), or -1."""
    j = start + 1
    n = len(source)
    search = stop.search
    while True:
        m = search(source, j)
        if m is None:
            return -1
        k = m.start()
        if source[k] != "\\":
            return k + 1
        if k + 1 >= n:
            return -1
        j = k + 2


def _strip_c_like(source: str) -> str:
    pieces = []
    kept = 0  # source[:kept] is already in pieces
    i = 0
    failed = set()  # openers whose scan found no end: every later one fails too
    find = source.find
    search = _C_OPENER.search
    while True:
        m = search(source, i)
        if m is None:
            break
        start = m.start()
        opener = m.group()
        if opener == "//":
            end = find("\n", start)
            end = len(source) if end < 0 else end
        elif opener == "/*":
            end = -1 if opener in failed else find("*/", start + 2)
            end = end + 2 if end >= 0 else -1
        else:
            end = -1 if opener in failed else _quoted_end(source, start, _QUOTE_STOP[opener])
            if end >= 0:  # a string literal is kept as it is
                i = end
                continue
        if end < 0:
            failed.add(opener)
            i = start + 1
            continue
        pieces.append(source[kept:start])
        pieces.append(" ")
        kept = i = end
    pieces.append(source[kept:])
    return _drop_blank_lines("".join(pieces))


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
# The flat tree: what the metric uses of a parse (the seam between a parser and the metric)
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


class _Node:
    """An internal node of a flat tree: type, children (a token child is its int index), the first
    child with each field name (a dict field name -> child; None when there are none), token range
    [lo, hi), whether its subtree holds a node with a data-flow rule (``special``), and its children
    that are special (``skids``, in order; None when there are none)."""

    __slots__ = ("type", "kids", "fields", "lo", "hi", "special", "skids")


def _new_node(kind, lo):
    """A node without children or rules over no tokens (a comment leaf; a token root, given its hi)."""
    node = _Node()
    node.type, node.kids, node.fields, node.lo, node.hi, node.special = kind, [], None, lo, lo, False
    node.skids = None
    return node


class FlatTree:
    """One parsed snippet as plain Python data, built by one iterative walk (no recursion, no text
    rendering of subtrees):

    * ``types``/``starts``/``ends``: the code tokens (leaves, and string literals as one token; comments
      left out) with their byte spans; ``text`` is the parsed string;
    * ``root``: the flattened nodes (``_Node``; a token is its index);
    * ``subtrees``: one id per subtree (the root and every node with children). Ids come from an
      ``interner`` shared by every snippet of a computation; two ids are equal exactly when
      tree-sitter's ``str(node)`` (the s-expression the reference compares) is equal;
    * ``has_error``: the parse holds ERROR or MISSING nodes;
    * ``first_parents``: the nodes with a child of a ``do_first`` type of the data-flow rules (None: not
      collected).

    ``flatten_tree_sitter`` builds it from a tree-sitter parse; any other parser (e.g. an older
    grammar runtime) only needs to produce the same fields.
    """

    __slots__ = ("root", "types", "starts", "ends", "text", "subtrees", "has_error", "unprinted", "first_parents")

    def token_code(self):
        """(positions, texts): the text of every token and the index it is known by, keyed by span like
        the reference's index_to_code (zero-width tokens at one place share the last index; otherwise a
        token's own index). The reference slices the text lines with tree-sitter's byte columns and
        drops the newlines inside multi-line tokens; for ASCII text that is the byte slice without its
        newlines."""
        text, starts, ends = self.text, self.starts, self.ends
        n = len(starts)
        # strictly increasing starts (the usual case) make distinct spans: every token is known by its
        # own index
        distinct = all(map(operator.lt, starts, itertools.islice(starts, 1, None)))
        if not distinct:
            distinct = len(set(zip(starts, ends))) == n
        if text.isascii():
            texts = list(map(text.__getitem__, map(slice, starts, ends)))
            if "\n" in "\0".join(texts):
                texts = [t.replace("\n", "") if "\n" in t else t for t in texts]
            if distinct:
                return range(n), texts
            spans = list(zip(starts, ends))
            last = {span: i for i, span in enumerate(spans)}
            positions = [last[span] for span in spans]
            return positions, [texts[i] for i in positions]
        spans = list(zip(starts, ends))
        last = {span: i for i, span in enumerate(spans)}
        # tree-sitter points (row, byte column) from byte offsets, then the reference's slicing
        raw = text.encode("utf8")
        line_starts = [0, *itertools.accumulate(len(line) + 1 for line in raw.split(b"\n"))]
        lines = text.split("\n")

        def point(offset):
            row = bisect.bisect_right(line_starts, offset) - 1
            return row, offset - line_starts[row]

        positions = [last[span] for span in spans]
        return positions, [_span_text((point(spans[i][0]), point(spans[i][1])), lines) for i in positions]


# Deepest subtree handed to tree-sitter's printer (its recursion runs on the C stack).
MAX_PRINT_DEPTH = 2000


class Interner(dict):
    """Subtree ids shared by the snippets of one computation: key (a tuple describing a node's printed
    form, its children as ids) -> id. ``interner(key)`` returns the key's id, giving it the next one
    if it is new; the flattening reads and writes the dict directly."""

    __slots__ = ()

    def __call__(self, key) -> int:
        value = self.get(key)
        if value is None:
            value = self[key] = len(self)
        return value


def new_interner() -> Interner:
    """A fresh, empty interner (see ``Interner``)."""
    return Interner()


def _intern(ids: dict, key) -> int:
    value = ids.get(key)
    if value is None:
        value = ids[key] = len(ids)
    return value


_SEXP_TOKEN = re.compile(r"""\(|\)|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s()]+""")


def _printed_id(sexp: str, ids: dict) -> int:
    """The id of a subtree printed by tree-sitter (``str(node)``), read back into the same keys as
    ``flatten_tree_sitter`` builds, so a printed and an assembled subtree share an id exactly when
    their s-expressions are equal. Iterative; linear in the length of ``sexp``."""
    stack = []  # [type, pieces, field of this node in its parent]
    field = None
    result = None
    tokens = _SEXP_TOKEN.findall(sexp)
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if tok == "(":
            head = tokens[i + 1]
            if head in ("MISSING", "UNEXPECTED") and i + 3 < n and tokens[i + 3] == ")":
                arg = tokens[i + 2]
                if head == "MISSING":
                    quoted = arg.startswith('"')
                    key = ("MISSING", arg[1:-1] if quoted else arg, not quoted)
                else:
                    key = ("UNEXPECTED", arg)
                ident = _intern(ids, key)
                if stack:
                    stack[-1][1] += (field, ident)
                else:
                    result = ident
                field = None
                i += 4
                continue
            stack.append([head, [], field])
            field = None
            i += 2
            continue
        if tok == ")":
            kind, pieces, own_field = stack.pop()
            ident = _intern(ids, (kind, tuple(pieces)))
            if stack:
                stack[-1][1] += (own_field, ident)
            else:
                result = ident
            i += 1
            continue
        if tok.endswith(":"):
            field = tok[:-1]
        i += 1
    while stack:  # an unclosed s-expression (an anonymous root): close it
        kind, pieces, own_field = stack.pop()
        ident = _intern(ids, ("UNCLOSED", kind, tuple(pieces)))
        if stack:
            stack[-1][1] += (own_field, ident)
        else:
            result = ident
    return result



def flatten_tree_sitter(root, text: str, special_types, intern, names=None, first_types=None) -> FlatTree:
    """Flatten a tree-sitter parse with one cursor walk.

    Subtree ids follow what ``str(node)`` prints: a named node is ``(type child child ...)`` over its
    printed children (named ones, and MISSING ones, each with its ``field: `` prefix); an anonymous node
    with children is not printed itself, its printed children are (inheriting its field); an ERROR leaf
    is ``(UNEXPECTED c)`` (the only node printed, a leaf), a MISSING leaf ``(MISSING type)``. The id of a node is the interned tuple
    (type, field, child id, field, child id, ...), so building all of them costs time linear in the
    size of the tree, whatever its depth, where printing every subtree costs size x depth.
    ``names``: (node type names by kind id, field names by field id, named flag by kind id) of the
    grammar (``_grammar_names``); with them the walk reads ids instead of creating a string per node.
    ``first_types``: the data-flow rules' ``do_first`` types (all of them special types); the nodes with
    a child of such a type are collected in ``first_parents`` (None when not given).
    """
    starts, ends, types, subtrees = [], [], [], []
    string_types = _STRING_TYPES
    ids = intern
    number = ids.setdefault  # number(key, len(ids)): the key's id, the next one if it is new
    leaf_ids = {}  # node type -> id of the named leaf "(type)"
    any_error = root.has_error
    if root.child_count == 0:
        return _flat_leaf_root(root, text, ids, any_error, first_types)
    cursor = root.walk()
    first_child, next_sibling, parent = cursor.goto_first_child, cursor.goto_next_sibling, cursor.goto_parent
    # One frame per open node: [flow node (None inside a token), printed pieces (field, id, field, id,
    # ...), own field, named, type, is a token, field inherited by the children (anonymous nodes only),
    # tree-sitter node (only when it holds an error), a child holds an error, depth below]. The frame
    # below the root's is a stand-in parent that receives the root.
    holder = _Node()
    holder.kids, holder.fields, holder.special, holder.skids = [], {}, False, None
    up = [holder, [], None, True, None, False, None, None, False, 0]
    frames = [up]
    ntok = 0  # tokens so far (len(types))
    in_token = 0  # > 0 inside a string literal with children (one token)
    unprinted = 0
    if names is None:
        kind_names = field_names = None
    else:
        kind_names, field_names, kind_named = names
    first_parents = set() if first_types is not None else None
    first_types = first_types or ()
    while True:
        node = cursor.node
        if kind_names is not None:
            kind = node.kind_id
            try:
                named = kind_named[kind]
                kind = kind_names[kind]
            except IndexError:  # ERROR is 65535
                named = node.is_named
                kind = node.type
            field = cursor.field_id
            if field is not None:
                field = field_names[field]
        else:
            kind = node.type
            named = node.is_named
            field = cursor.field_name
        if not first_child():  # a leaf
            if any_error and (kind == "ERROR" or node.has_error):
                # ERROR and MISSING leaves, and leaves over hidden MISSING children: tree-sitter prints
                # details the node API does not show ((UNEXPECTED c) with the lexer's look-ahead
                # character, hidden children); printing one leaf costs O(1)
                up[8] = True
                pieces = up[1]
                pieces.append(field if field is not None else up[6])
                pieces.append(_printed_id(str(node), ids))
            elif named:
                ident = leaf_ids.get(kind)
                if ident is None:
                    ident = leaf_ids[kind] = number((kind, ()), len(ids))
                pieces = up[1]
                pieces.append(field if field is not None else up[6])
                pieces.append(ident)
            if in_token == 0:
                if kind != "comment":
                    child = ntok
                    ntok += 1
                    starts.append(node.start_byte)
                    ends.append(node.end_byte)
                    types.append(kind)
                else:  # a comment leaf: an empty node (no tokens)
                    child = _new_node(kind, ntok)
                owner = up[0]
                owner.kids.append(child)
                if field is not None:
                    fields = owner.fields
                    if fields is None:
                        owner.fields = {field: child}
                    elif field not in fields:
                        fields[field] = child
        else:  # a node with children; the cursor is on its first child now
            piece_field = field if field is not None else up[6]
            is_token = False
            flow = None
            if in_token == 0:
                if kind in string_types:  # a string literal with children is still one token
                    child = ntok
                    ntok += 1
                    starts.append(node.start_byte)
                    ends.append(node.end_byte)
                    types.append(kind)
                    is_token = True
                    in_token = 1
                else:
                    flow = child = _Node()
                    flow.type = kind
                    flow.kids = []
                    flow.fields = None
                    flow.lo = ntok
                    flow.special = kind in special_types
                    flow.skids = None
                owner = up[0]
                owner.kids.append(child)
                if field is not None:
                    fields = owner.fields
                    if fields is None:
                        owner.fields = {field: child}
                    elif field not in fields:
                        fields[field] = child
            elif kind in string_types:
                in_token += 1
                is_token = True
            if any_error and node.has_error:
                up[8] = True
                up = [flow, [], piece_field, named, kind, is_token, None if named else piece_field, node, False, 0]
            else:
                up = [flow, [], piece_field, named, kind, is_token, None if named else piece_field, None, False, 0]
            frames.append(up)
            continue
        # climb to the next sibling, closing every finished node on the way
        while not next_sibling():
            if not parent():
                break
            flow, pieces, piece_field, named, kind, is_token, _, ts_node, error_below, depth = frames.pop()
            up = frames[-1]
            if flow is not None:
                flow.hi = ntok
                if flow.special:
                    owner = up[0]
                    if owner is not None:
                        owner.special = True
                        skids = owner.skids
                        if skids is None:
                            owner.skids = [flow]
                        else:
                            skids.append(flow)
                        if kind in first_types:
                            first_parents.add(owner)
            if is_token:
                in_token -= 1
            if any_error:
                if up[9] <= depth:
                    up[9] = depth + 1
                if ts_node is not None and not error_below and kind != "ERROR":
                    # The node holds an error but none of its visible children does: a MISSING token of a
                    # hidden rule (e.g. python's `_newline`), which str() prints and the cursor never
                    # shows. Such nodes are disjoint (none contains another), so printing them costs
                    # linear time in all; a subtree deeper than the printer's safe recursion depth is
                    # not printed (and counted in ``unprinted``).
                    if depth <= MAX_PRINT_DEPTH:
                        ident = _printed_id(str(ts_node), ids)
                        subtrees.append(ident)
                        pieces = up[1]
                        pieces.append(piece_field)
                        pieces.append(ident)
                        continue
                    unprinted += 1
            if named:
                ident = number((kind, tuple(pieces)), len(ids))
                subtrees.append(ident)
                pieces = up[1]
                pieces.append(piece_field)
                pieces.append(ident)
            else:  # not printed: its printed children stand in the parent's s-expression
                ident = number(("ANONYMOUS", kind, tuple(pieces)), len(ids))
                subtrees.append(ident)
                up[1] += pieces
        else:
            continue
        break
    top = holder.kids[0]
    if top.__class__ is int:  # a string literal root
        top = _new_node(types[top], top)
        top.hi = top.lo + 1
    if first_parents is not None:
        first_parents.discard(holder)
    tree = FlatTree()
    tree.root, tree.types, tree.starts, tree.ends, tree.text, tree.subtrees = top, types, starts, ends, text, subtrees
    tree.has_error = any_error
    tree.unprinted = unprinted
    tree.first_parents = first_parents
    return tree


def _flat_leaf_root(root, text, ids, any_error, first_types) -> FlatTree:
    """The flat tree of a parse whose root has no children (e.g. empty code)."""
    kind = root.type
    if any_error and (kind == "ERROR" or root.has_error):
        ident = _printed_id(str(root), ids)
    elif root.is_named:
        ident = _intern(ids, (kind, ()))
    else:
        ident = _intern(ids, ("ROOT", kind))
    tree = FlatTree()
    tree.types, tree.starts, tree.ends = [], [], []
    if kind == "comment":
        tree.root = _new_node(kind, 0)
    else:
        tree.types.append(kind)
        tree.starts.append(root.start_byte)
        tree.ends.append(root.end_byte)
        tree.root = _new_node(kind, 0)
        tree.root.hi = 1
    tree.text, tree.subtrees, tree.has_error, tree.unprinted = text, [ident], any_error, 0
    tree.first_parents = set() if first_types is not None else None
    return tree


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




def _special_types(rules) -> frozenset:
    return frozenset(
        t for key in ("defs", "assigns", "incs", "ifs", "fors", "efors", "whiles") for t in rules[key]
    )


_SPECIAL = {lang: _special_types(rules) for lang, rules in _RULES.items()}
assert all(set(rules["do_first"]) <= _SPECIAL[lang] for lang, rules in _RULES.items())  # see flatten_tree_sitter

# Data-flow cost limit: work units (tokens visited, edges and parent names written, variable-state
# updates) per token of the snippet, plus a floor. The reference's cost is not linear in the size of
# the code: each loop body is processed twice (nested loops: 2^depth), `a = b = c = ... = z` makes
# every target come from every later name, and an increment relates every variable to every other.
# Ordinary code stays far below the limit (measured: at most ~30 units per token on the test corpora);
# past it the snippet's data flow is left out (the reference's outcome when its recursion fails) and
# the caller warns.
DATAFLOW_WORK_PER_TOKEN = 200
DATAFLOW_WORK_FLOOR = 200_000


class DataflowLimit(Exception):
    """Raised inside the extraction when a snippet exceeds its work limit."""


_MISSING = object()
_GENERATOR = types.GeneratorType
_POS = operator.itemgetter(1)
_PARENT_POS = operator.itemgetter(4)
_POSITIVE = (0).__lt__


def _union(values):
    """Union of position sets. A position set is an int (one position), a tuple of position sets, or
    None (empty); unions are built lazily, as a DAG, and only flattened once (``_positions``)."""
    first = values[0]
    if len(values) == 1:
        return first
    ints, objects, unique = set(), set(), []
    for value in values:
        if value.__class__ is int:
            if value not in ints:
                ints.add(value)
                unique.append(value)
        elif id(value) not in objects:
            objects.add(id(value))
            unique.append(value)
    return unique[0] if len(unique) == 1 else tuple(unique)


def _positions(sets, into: set) -> None:
    """Add every position of the position sets ``sets`` to ``into`` (each shared set visited once)."""
    seen = set()
    stack = list(sets)
    while stack:
        item = stack.pop()
        if item.__class__ is int:
            into.add(item)
        elif item is not None and id(item) not in seen:
            seen.add(id(item))
            stack.extend(item)


def _merge_loop(entries):
    """Entries seen on both passes of a loop merged by (name, position, relation): the parent names
    of merged entries concatenated and de-duplicated (first seen order), parent positions united."""
    groups = {}  # key -> its only entry, or the list of its entries
    for entry in entries:
        key = entry[:3]
        group = groups.get(key)
        if group is None:
            groups[key] = entry
        elif group.__class__ is tuple:
            groups[key] = [group, entry]
        else:
            group.append(entry)
    if len(groups) == len(entries):
        return entries
    merged = []
    for group in groups.values():
        if group.__class__ is tuple:
            merged.append(group)
            continue
        names = []
        par_pos = None
        for entry in group:
            names.extend(entry[3])
            other = entry[4]
            par_pos = other if par_pos is None else par_pos if other is None else (par_pos, other)
        first = group[0]
        merged.append((first[0], first[1], first[2], tuple(dict.fromkeys(names)), par_pos))
    return merged


class _Flow:
    """One data-flow extraction (CodeXGLUE DFG_<lang> semantics) over a flat tree, without recursion.

    The reference is a recursive function f(node, states) -> (edges, states) that copies the
    variable states (name -> positions of the last definitions) on entry, so states behave as values.
    Here one dict ``S`` is updated in place with an undo journal ``J``: an if-statement, the only rule
    that reuses its incoming states after a child has changed them, runs each branch, records what it
    changed, undoes it, and merges the changes; the merged states differ from the incoming ones only
    in the changed names, so no rule copies the whole state. Handlers are generators that yield a
    child with a rule to the driver (``run``) instead of calling it; edges are appended to one list
    ``out`` and sorted by position once at the end (the reference's stable sorts at every level give
    the same order). Position lists are lazy unions (``_union``). Rule-free subtrees are processed as
    a flat token run.
    """

    def __init__(self, rules, tree: FlatTree, budget: int):
        self.r = rules
        self.handlers = _handlers(rules)
        self.pos, self.text = tree.token_code()
        self.types = types = tree.types
        # the reference's variables: tokens whose text differs from their type (identifiers, literals)
        self.is_var = is_var = list(map(operator.ne, types, self.text))
        self.vars = list(itertools.compress(range(len(types)), is_var))  # their indices
        self.before = list(itertools.accumulate(is_var, initial=0))  # variables before each token
        do_first = rules["do_first"]
        if not do_first:
            self.firsts = None
        elif tree.first_parents is not None and frozenset(do_first).isdisjoint(types):
            self.firsts = tree.first_parents
        else:  # not collected by the flattening, or a token of such a type
            self.firsts = _first_parents(tree.root, types, do_first)
        self.S = {}
        self.J = []
        self.out = []
        self.folded = []  # (index in out, edges of the reference it stands for - 1), see add_merged
        self.left = budget

    def spend(self, units):
        self.left -= units
        if self.left < 0:
            raise DataflowLimit

    # -- helpers ---------------------------------------------------------------------------------
    def set(self, name, positions):
        S = self.S
        self.J.append((name, S.get(name, _MISSING)))
        S[name] = positions

    def var_tokens(self, node):  # the reference's tree_to_variable_index
        if node.__class__ is int:
            return [node] if self.is_var[node] else []
        lo, hi = node.lo, node.hi
        self.left -= hi - lo
        if self.left < 0:
            raise DataflowLimit
        before = self.before
        return self.vars[before[lo] : before[hi]]

    @staticmethod
    def kids(node):
        return () if node.__class__ is int else node.kids

    def kind(self, node) -> str:
        return self.types[node] if node.__class__ is int else node.type

    @staticmethod
    def field(node, name):
        fields = node.fields  # the first child with each field name
        return None if fields is None else fields.get(name)

    def flat(self, node) -> bool:
        """Process a token or a rule-free subtree in place and return True; False for a node with a
        rule (the caller yields it to the driver)."""
        if node.__class__ is int:
            self.tokens(node, node + 1)
            return True
        if not node.special:
            if node.lo < node.hi:
                self.tokens(node.lo, node.hi)
            return True
        return False

    def tokens(self, lo, hi):
        """The variables among tokens lo..hi-1, in order: each comes from the last definitions of its
        name, or (a new identifier) is one."""
        self.left -= hi - lo
        if self.left < 0:
            raise DataflowLimit
        before = self.before
        a = before[lo]
        b = before[hi]
        if a == b:
            return
        pos, texts, S, out = self.pos, self.text, self.S, self.out
        for i in self.vars[a:b]:
            text = texts[i]
            positions = S.get(text)
            if positions is not None:
                out.append((text, pos[i], "comesFrom", (text,), positions))
            else:
                idx = pos[i]
                if self.types[i] == "identifier":
                    self.J.append((text, _MISSING))
                    S[text] = idx
                out.append((text, idx, "comesFrom", (), None))

    def edges(self, sources):
        """(parent names, parent positions) of one edge standing for the reference's edges from a
        target to each of ``sources`` (one edge per source, at one position): the merge at the end
        concatenates their parents and de-duplicates them, so the names are de-duplicated here."""
        pos, texts = self.pos, self.text
        if len(sources) == 1:
            s = sources[0]
            return (texts[s],), pos[s]
        if len(sources) == 2:
            s, t = sources
            first, second = texts[s], texts[t]
            return ((first,) if first == second else (first, second)), (pos[s], pos[t])
        return tuple(dict.fromkeys(map(texts.__getitem__, sources))), tuple(map(pos.__getitem__, sources))

    def add_merged(self, edge, count):
        """Append an edge that stands for ``count`` edges of the reference (see ``edges``); the work
        counted for the loop merges stays that of ``count`` edges."""
        out = self.out
        out.append(edge)
        if count > 1:
            self.folded.append((len(out) - 1, count - 1))

    def cross(self, targets, sources, relation):
        # every target token comes from / is computed from every source token (the reference writes
        # one edge per source; they share the target's position and are written as one, see edges())
        pos, texts, S, J, out = self.pos, self.text, self.S, self.J, self.out
        k = len(sources)
        if k:
            names, parent_positions = self.edges(sources)
        for t in self.var_tokens(targets):
            idx1, code1 = pos[t], texts[t]
            self.left -= k + 1
            if self.left < 0:
                raise DataflowLimit
            if k:  # add_merged and set, inlined
                out.append((code1, idx1, relation, names, parent_positions))
                if k > 1:
                    self.folded.append((len(out) - 1, k - 1))
            J.append((code1, S.get(code1, _MISSING)))
            S[code1] = idx1

    def all_from(self, left_node, right_node):
        # python/ruby style: one edge per target token whose parents are all the source tokens
        pos, texts, S, J, out = self.pos, self.text, self.S, self.J, self.out
        rights = self.var_tokens(right_node)
        names = tuple(map(texts.__getitem__, rights))
        poses = tuple(map(pos.__getitem__, rights)) or None
        for t in self.var_tokens(left_node):
            idx1, code1 = pos[t], texts[t]
            self.left -= len(names) + 1
            if self.left < 0:
                raise DataflowLimit
            out.append((code1, idx1, "computedFrom", names, poses))
            J.append((code1, S.get(code1, _MISSING)))  # set, inlined
            S[code1] = idx1

    def capture(self, mark) -> dict:
        """name -> positions for every name changed since journal length ``mark``."""
        S, J = self.S, self.J
        self.spend(len(J) - mark)
        return {J[k][0]: S[J[k][0]] for k in range(mark, len(J))}

    def undo(self, mark):
        S, J = self.S, self.J
        self.spend(len(J) - mark)
        while len(J) > mark:
            name, old = J.pop()
            if old is _MISSING:
                del S[name]
            else:
                S[name] = old

    def merge_loop_since(self, start):
        out, folded = self.out, self.folded
        count = len(out) - start  # the reference's edges since ``start``
        while folded and folded[-1][0] >= start:
            count += folded.pop()[1]
        self.spend(count)
        out[start:] = _merge_loop(out[start:])

    # -- driver ----------------------------------------------------------------------------------
    def run(self, root):
        if self.flat(root):
            return
        handlers, generic = self.handlers, _Flow.generic
        stack = []
        gen = handlers.get(root.type, generic)(self, root)
        while True:
            # rules never yield None; a finished one gives None (no exception), a rule done at once
            # returned None instead of a generator
            item = None if gen is None else next(gen, None)
            if item is None:
                if not stack:
                    return
                gen = stack.pop()
                continue
            stack.append(gen)
            if item.__class__ is _GENERATOR:  # a rule already started (by generic) that waits for a child
                gen = item
            else:
                gen = handlers.get(item.type, generic)(self, item)

    # -- rules: called with a node, they return None when done, or a generator that yields a child to
    # process here (or such a generator of a rule it started) and continues after it ----------------
    def define(self, node):
        """A definition of the "csharp" and "rust" styles (positional children; see define_fields)."""
        kids = node.kids
        if self.r["def_style"] == "csharp":
            name = kids[0]
            value = kids[1] if len(kids) == 2 else None
        else:  # rust: function_item
            name = kids[1]
            value = kids[2] if len(kids) >= 3 else None
        if value is None:
            for i in self.var_tokens(name):
                idx, text = self.pos[i], self.text[i]
                self.out.append((text, idx, "comesFrom", (), None))
                self.set(text, idx)
            return None
        sources = self.var_tokens(value)
        if not self.flat(value):
            return self.cross_after(value, name, sources, "comesFrom")
        self.cross(name, sources, "comesFrom")
        return None

    def define_fields(self, node):
        """A definition of the "fields" style (name and value fields; ``flat`` inlined)."""
        fields = node.fields
        if fields is None:
            name = value = None
        else:
            def_fields = self.r["def_fields"]
            name = fields.get(def_fields[0])
            value = fields.get(def_fields[1])
        if value is None:
            pos, texts, out = self.pos, self.text, self.out
            for i in self.var_tokens(name):
                idx, text = pos[i], texts[i]
                out.append((text, idx, "comesFrom", (), None))
                self.set(text, idx)
            return None
        sources = self.var_tokens(value)
        if value.__class__ is int:
            self.tokens(value, value + 1)
        elif value.special:
            return self.cross_after(value, name, sources, "comesFrom")
        elif value.lo < value.hi:
            self.tokens(value.lo, value.hi)
        self.cross(name, sources, "comesFrom")
        return None

    def assign_simple(self, node):
        """An assignment of the "simple" style (left and right fields; ``flat`` inlined)."""
        fields = node.fields
        if fields is None:
            left = right = None
        else:
            left = fields.get("left")
            right = fields.get("right")
        if right.__class__ is int:
            self.tokens(right, right + 1)
            self.cross(left, [right] if self.is_var[right] else [], "computedFrom")
            return None
        if right.special:
            return self.assign_simple_after(left, right)
        lo, hi = right.lo, right.hi
        if lo < hi:
            self.tokens(lo, hi)
        self.cross(left, self.var_tokens(right), "computedFrom")
        return None

    def cross_after(self, child, targets, sources, relation):
        yield child
        self.cross(targets, sources, relation)

    def assign(self, node):
        """An assignment of the "python" and "ruby" styles (see assign_simple)."""
        style = self.r["assign_style"]
        kind = node.type
        if style == "python" and kind == "for_in_clause":
            lefts, rights = [self.field(node, "left")], [node.kids[-1]]
        else:
            if style == "python" and self.field(node, "right") is None:
                return None
            lefts, rights = self.pairs(node)
            if style == "ruby" and kind == "operator_assignment":
                lefts, rights = [node.kids[0]], [node.kids[-1]]
        for k, right in enumerate(rights):
            if not self.flat(right):
                return self.assign_after(lefts, rights, k)
        for left, right in zip(lefts, rights):
            self.all_from(left, right)
        return None

    def assign_simple_after(self, left, right):
        yield right
        self.cross(left, self.var_tokens(right), "computedFrom")

    def assign_after(self, lefts, rights, k):
        yield rights[k]
        for right in rights[k + 1 :]:
            if not self.flat(right):
                yield right
        for left, right in zip(lefts, rights):
            self.all_from(left, right)

    def increment(self, node):
        pos, texts = self.pos, self.text
        toks = self.var_tokens(node)
        k = len(toks)
        self.spend(k * (k + 1))
        if k:
            names, parent_positions = self.edges(toks)
        for t in toks:  # every variable computed from every one (the reference: one edge per pair)
            idx1, code1 = pos[t], texts[t]
            self.add_merged((code1, idx1, "computedFrom", names, parent_positions), k)
            self.set(code1, idx1)
        return None

    def while_loop(self, node):
        start = len(self.out)
        for _ in range(2):
            for child in node.kids:
                if not self.flat(child):
                    yield child
        self.merge_loop_since(start)

    def generic(self, node):
        """A node without a rule: its children in order (``do_first`` children first)."""
        firsts = self.firsts
        if firsts is not None and node in firsts:
            do_first = self.r["do_first"]
            kids = node.kids
            kids = [k for k in kids if self.kind(k) in do_first] + [k for k in kids if self.kind(k) not in do_first]
            flat = self.flat
            for child in kids:
                if not flat(child):
                    yield child
            return
        # Children in order cover the node's tokens in order: the rule-free runs between children with
        # rules are processed as one token range each (a run without variables only counts its work,
        # unchecked: data_flow checks the total at the end, and every loop spends through checks). A child without a rule of its own is entered
        # here (its children the same way, depth first) rather than handed to the driver.
        tokens = self.tokens
        handlers = self.handlers
        before = self.before
        lo, hi = node.lo, node.hi
        kids = iter(node.skids or ())  # the children with rules in their subtrees (see _Node)
        outer = []  # (children left, next token, end) of the nodes entered
        while True:
            for child in kids:
                if lo < child.lo:
                    if before[lo] == before[child.lo]:  # no variables: only the work is counted
                        self.left -= child.lo - lo
                    else:
                        tokens(lo, child.lo)
                handler = handlers.get(child.type)
                if handler is not None:  # run here; a rule waiting for a child goes to the driver
                    started = handler(self, child)
                    if started is not None:
                        yield started
                    lo = child.hi
                elif firsts is not None and child in firsts:
                    yield child
                    lo = child.hi
                else:
                    outer.append((kids, child.hi, hi))
                    kids, lo, hi = iter(child.skids or ()), child.lo, child.hi
                    break
            else:
                if lo < hi:
                    if before[lo] == before[hi]:
                        self.left -= hi - lo
                    else:
                        tokens(lo, hi)
                if not outer:
                    return
                kids, lo, hi = outer.pop()

    def pairs(self, node):
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

    def if_statement(self, node):
        # Reference: every branch starts from the incoming states (the own branch, i.e. the condition
        # and consequence, threads its children; elif/else-like children each start afresh), and the
        # result maps every name to the union of its positions over the branches (+ the incoming
        # states when there is no else, and always for go/javascript/php).
        r = self.r
        mark = len(self.J)
        own_changes = {}  # own branch: name -> positions, relative to the incoming states
        in_own = False  # S currently holds the own branch (else: the incoming states)
        others = []
        tag = "else" in node.type
        flag = False
        style = r["if_style"]
        ifs = r["ifs"]
        for child in node.kids:
            kind = self.kind(child)
            if "else" in kind:
                tag = True
            if style == "python":
                own_branch = kind not in ("elif_clause", "else_clause")
            elif style == "plain":
                own_branch = kind not in ifs
            else:
                own_branch = kind not in ifs and not flag
            if own_branch:
                if not in_own:
                    for name, positions in own_changes.items():
                        self.set(name, positions)
                    in_own = True
                if not self.flat(child):
                    yield child
            else:
                flag = True
                if in_own:
                    own_changes = self.capture(mark)
                    self.undo(mark)
                    in_own = False
                if not self.flat(child):
                    yield child
                others.append(self.capture(mark))
                self.undo(mark)
        if in_own:
            own_changes = self.capture(mark)
            self.undo(mark)
        branches = others + [own_changes]
        with_incoming = (r["if_tag"] and not tag) or r["merge_incoming"]
        S = self.S
        changed = {}
        for branch in branches:
            changed.update(dict.fromkeys(branch))
        self.spend(len(changed) * (len(branches) + 1))
        for name in changed:
            incoming = S.get(name)
            values = []
            for branch in branches:
                value = branch.get(name, incoming)
                if value is not None:
                    values.append(value)
            if with_incoming and incoming is not None:
                values.append(incoming)
            self.set(name, _union(values))

    def for_loop(self, node):
        r = self.r
        start = len(self.out)
        style = r["for_style"]
        flat = self.flat
        if style in ("python", "ruby"):
            for _ in range(2):
                if style == "python":
                    lefts, rights = self.pairs(node)
                else:
                    lefts, rights = [self.field(node, "pattern")], [self.field(node, "value")]
                for right in rights:
                    if not flat(right):
                        yield right
                for left, right in zip(lefts, rights):
                    self.all_from(left, right)
                if style == "python":
                    if self.kind(node.kids[-1]) == "block":
                        if not flat(node.kids[-1]):
                            yield node.kids[-1]
                else:
                    body = self.field(node, "body")
                    if not flat(body):
                        yield body
            self.merge_loop_since(start)
            return
        for child in node.kids:
            if not flat(child):
                yield child
        found = False
        for child in node.kids:
            if found:
                if not flat(child):
                    yield child
            elif style == "go" and self.kind(child) == "for_clause":
                update = self.field(child, "update")
                if update is not None and not flat(update):
                    yield update
                found = True
            elif style == "c" and self.kind(child) == r["for_marker"]:
                found = True
        self.merge_loop_since(start)

    def enhanced_for(self, node):
        style = self.r["efor_style"]
        start = len(self.out)
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
        for _ in range(2):
            if not self.flat(value):
                yield value
            self.cross(name, self.var_tokens(value), "computedFrom")
            if not self.flat(body):
                yield body
        self.merge_loop_since(start)


def _first_parents(root, types, do_first) -> set:
    """The nodes of a flat tree with a child of a ``do_first`` type (when the flattening did not collect
    them)."""
    found = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.__class__ is int:
            continue
        if any((types[k] if k.__class__ is int else k.type) in do_first for k in node.kids):
            found.add(node)
        stack.extend(node.kids)
    return found


_HANDLERS = {}


def _handlers(rules) -> dict:
    """node type -> _Flow rule (a generator function), with the reference's precedence (def,
    assignment, increment, if, for, enhanced for, while), cached per rule table."""
    key = id(rules)
    table = _HANDLERS.get(key)
    if table is None:
        table = {}
        assign = _Flow.assign_simple if rules["assign_style"] == "simple" else _Flow.assign
        define = _Flow.define_fields if rules["def_style"] == "fields" else _Flow.define
        for name, func in (("whiles", _Flow.while_loop), ("efors", _Flow.enhanced_for), ("fors", _Flow.for_loop),
                           ("ifs", _Flow.if_statement), ("incs", _Flow.increment), ("assigns", assign),
                           ("defs", define)):
            for kind in rules[name]:
                table[kind] = func
        _HANDLERS[key] = table
    return table


def data_flow(tree: FlatTree, lang: str, budget: int | None = None):
    """(normalised data-flow items ``(i, relation, (j, ...))``, limited) of a parsed snippet.

    Edges that neither have parents nor are parents are dropped; edges at the same position are
    merged; names become 0, 1, ... in order of first appearance (the reference's ``var_0, var_1, ...``:
    the numbers match exactly where those names do). Any failure of the
    extraction (e.g. a node without the expected fields in broken code) gives no data flow, as in the
    reference code. ``budget``: work units allowed (default: DATAFLOW_WORK_PER_TOKEN per token + the
    floor); past it, no data flow and ``limited`` is True.
    """
    if budget is None:
        budget = DATAFLOW_WORK_PER_TOKEN * len(tree.types) + DATAFLOW_WORK_FLOOR
    try:
        flow = _Flow(_RULES[lang], tree, budget)
    except Exception:
        return [], False
    try:
        flow.run(tree.root)
        entries = flow.out
    except DataflowLimit:
        return [], True
    except Exception:
        entries = []
    if flow.left < 0:  # past the limit in work counted without a check (see _Flow.generic)
        return [], True
    return _items(entries), False


def _items(entries) -> list:
    """The normalised items of the extracted edges ``(name, position, relation, parent names, parent
    positions)`` (see ``data_flow``): sorted by position (stably), edges kept when they have parents or
    their position is a parent's, edges at one position merged, names numbered by first appearance."""
    entries.sort(key=_POS)
    parented = [entry for entry in entries if entry[4] is not None]
    if not parented:
        return []
    used = set(map(_POS, parented))
    _positions(map(_PARENT_POS, parented), used)
    kept = [entry for entry in entries if entry[1] in used]
    if len(set(map(_POS, kept))) < len(kept):
        kept = _merge_positions(kept)
    # names become 0, 1, ... (the reference's var_0, var_1, ...) in order of first appearance: an edge's
    # parents, then its own name
    names = {}
    number = names.setdefault
    items = []
    append = items.append
    for name, _, relation, parents, _ in kept:
        if parents:
            if len(parents) == 1:  # the usual case
                parents = (number(parents[0], len(names)),)
            else:
                parents = tuple([number(parent, len(names)) for parent in parents])
        append((number(name, len(names)), relation, parents))
    return items


def _merge_positions(entries) -> list:
    """Edges at one position (adjacent in ``entries``) merged into one: the last one's name and
    relation, the parents of all (de-duplicated, first seen order)."""
    merged = []
    at = None
    for entry in entries:
        if entry[1] != at:
            merged.append(entry)
            at = entry[1]
            continue
        last = merged[-1]
        parents = last[3] if len(last) == 6 else list(last[3])
        parents.extend(entry[3])
        merged[-1] = (entry[0], at, entry[2], parents, None, True)
    return [(e[0], e[1], e[2], tuple(_dedupe(e[3])), None) if len(e) == 6 else e for e in merged]


class Snippet:
    """Everything CodeBLEU needs from one code string, computed once: one parse, one walk.

    ``subtrees``: subtree ids (see FlatTree); ``flow``: normalised data-flow items; ``parse_error``:
    the parse holds ERROR/MISSING nodes; ``dataflow_limited``: the data-flow extraction exceeded its
    work limit and ``flow`` is empty; ``unprinted``: subtrees over a hidden MISSING token nested too
    deep for tree-sitter's printer, compared without that token."""

    __slots__ = ("subtrees", "subtree_set", "subtree_counts", "flow", "flow_counts", "parse_error",
                 "dataflow_limited", "unprinted")

    def __init__(
        self, code: str, lang: str, comment_rule: str, strip: bool, intern, comment_passes: int = 1, trees=None
    ):
        if strip:
            code = code.strip()
        clean = code
        for _ in range(comment_passes):
            clean = remove_comments(clean, lang, comment_rule)
        tree = parse_flat(clean, lang, intern, trees)
        self.parse_error = tree.has_error
        self.unprinted = tree.unprinted
        self.subtrees = tree.subtrees
        self.subtree_set = None
        self.subtree_counts = None
        self.flow, self.dataflow_limited = data_flow(tree, lang)
        self.flow_counts = None


def parse_flat(code: str, lang: str, intern, trees=None) -> FlatTree:
    """Parse ``code`` with the pinned tree-sitter grammar of ``lang`` and flatten it.

    ``trees``: another tree source (codebleu's ``grammar_library``: the tree-sitter runtime of 2020), an
    object with ``parse(lang, data: bytes) -> root node`` (py-tree-sitter's node and cursor attributes)
    and ``subtree_ids(root, intern) -> (ids, exact)``: one id per subtree (the root and every node with
    children), equal exactly when the reference's ``node.sexp()`` strings are; ``exact`` False when
    some could not be printed (counted like ``unprinted``). Tokens and data flow come from the same
    flattening as for the wheels."""
    if trees is None:
        parser = get_parser(lang)
        root = parser.parse(code.encode("utf8")).root_node
        return flatten_tree_sitter(root, code, _SPECIAL[lang], intern, _grammar_names(lang, parser.language),
                                   _RULES[lang]["do_first"])
    root = trees.parse(lang, code.encode("utf8"))
    tree = flatten_tree_sitter(root, code, _SPECIAL[lang], intern, first_types=_RULES[lang]["do_first"])
    tree.subtrees, exact = trees.subtree_ids(root, intern)
    tree.unprinted = 0 if exact else max(1, tree.unprinted)
    return tree


_NAMES = {}


def _grammar_names(lang, language):
    """(node type name by kind id, field name by field id, named flag by kind id) of a grammar, one
    shared string each."""
    names = _NAMES.get(lang)
    if names is None:
        kinds = [sys.intern(language.node_kind_for_id(i) or "") for i in range(language.node_kind_count)]
        fields = [None] + [sys.intern(language.field_name_for_id(i) or "") for i in range(1, language.field_count + 1)]
        named = [language.node_kind_is_named(i) for i in range(language.node_kind_count)]
        names = _NAMES[lang] = (kinds, fields, named)
    return names



# ----------------------------------------------------------------------------------------------
# n-gram components
# ----------------------------------------------------------------------------------------------
def ngram_counts(tokens, max_n=4) -> list:
    """[counts of the unigrams (keyed by the token), of the bigrams (keyed by token tuples), ...,
    of the max_n-grams]: plain dicts, filled by the C counting loop of ``collections.Counter``."""
    out = [{}]
    _count_elements(out[0], tokens)
    shifted = [tokens]
    for n in range(2, max_n + 1):
        shifted.append(tokens[n - 1 :])
        counts = {}
        _count_elements(counts, zip(*shifted))
        out.append(counts)
    return out


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


def _overlap(a: dict, b: dict, a_total: int = -1, b_total: int = -1) -> int:
    """sum over keys of min(count_a, count_b) (symmetric: clipped matches either way). ``a_total``,
    ``b_total``: the sums of the counts, when known. A side whose every count is 1 (as many keys as
    its total, the usual case for longer n-grams) makes it the number of common keys; otherwise it is
    total_a - sum of the positive (count_a - count_b), with C-level passes only."""
    if len(a) == a_total or len(b) == b_total:
        return len(a.keys() & b.keys())
    if len(a) > len(b):
        a, b, a_total = b, a, b_total
    if a_total < 0:
        a_total = sum(a.values())
    return a_total - sum(filter(_POSITIVE, map(operator.sub, a.values(), map(b.get, a, repeat(0)))))


def ngram_stats(hyp, refs, hyp_len, ref_lens, keywords, max_n=4):
    """Sufficient statistics of one example for BLEU and for the weighted n-gram match:
    two tuples (numerators, denominators, ref_len, hyp_len). ``hyp`` and each of ``refs``: the
    ``ngram_counts`` of a token list (counted once per distinct code string); ``hyp_len``, ``ref_lens``:
    the token counts; unigrams in ``keywords`` weigh 1, others OTHER_TOKEN_WEIGHT."""
    single = len(refs) == 1
    # BLEU: modified precision, clipped by the max count over the references
    b_nums, b_dens = [], []
    for k in range(max_n):
        counts = hyp[k]
        if single:
            b_nums.append(_overlap(counts, refs[0][k], max(0, hyp_len - k), max(0, ref_lens[0] - k)))
        else:
            b_nums.append(sum(min(c, max(r[k].get(g, 0) for r in refs)) for g, c in counts.items()))
        b_dens.append(max(1, hyp_len - k))
    bleu = (b_nums, b_dens, _closest_ref_length(ref_lens, hyp_len), hyp_len)
    # weighted n-gram match: recall over every reference, unigrams weighted by keyword-ness
    w_nums, w_dens = [0] * max_n, [0] * max_n
    h = hyp[0].get
    for ref_len, ref in zip(ref_lens, refs):
        num = den = 0
        for gram, count in ref[0].items():  # same order and float operations as the reference
            w = 1 if gram in keywords else OTHER_TOKEN_WEIGHT
            num += min(count, h(gram, 0)) * w
            den += count * w
        w_nums[0] += num
        w_dens[0] += max(1, den)
        for k in range(1, max_n):
            w_nums[k] += b_nums[k] if single else _overlap(hyp[k], ref[k], max(0, hyp_len - k), max(0, ref_len - k))
            w_dens[k] += max(1, ref_len - k)
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
        return _overlap(ref.subtree_counts, hyp.subtree_counts, len(ref.subtrees), len(hyp.subtrees)), len(ref.subtrees)
    if hyp.subtree_set is None:
        hyp.subtree_set = frozenset(hyp.subtrees)
    return sum(map(hyp.subtree_set.__contains__, ref.subtrees)), len(ref.subtrees)


def dataflow_stats(hyp: Snippet, ref: Snippet):
    """(reference data-flow items found in the candidate, clipped; reference items)."""
    if not ref.flow:
        return 0, 0
    if hyp.flow_counts is None:
        hyp.flow_counts = Counter(hyp.flow)
    if ref.flow_counts is None:
        ref.flow_counts = Counter(ref.flow)
    return _overlap(ref.flow_counts, hyp.flow_counts, len(ref.flow), len(hyp.flow)), len(ref.flow)


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
    trees=None,
):
    """CodeBLEU of a corpus: returns (scores dict with KEYS, per-example list of dicts or None, notes).

    ``references[i]`` is a list of reference strings. ``notes`` lists the indices of snippets that did
    not parse cleanly and whether the corpus has no reference data flow (the caller turns them into
    warnings). ``remove_comments``/``strip`` follow the PyPI package when "lang"/True; the candidate is
    cleaned once per reference (as the reference code re-cleans it in its reference loop). ``trees``: an
    optional tree source replacing the grammar wheels (see ``parse_flat``).
    """
    # The work allocates many small acyclic objects; pausing the cyclic garbage collector avoids
    # repeated full scans of everything else the process holds (nothing here forms a cycle).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _corpus_codebleu(
            predictions, references, lang, weights, keywords, remove_comments, strip, missing_dataflow,
            ast_clipping, per_example, trees,
        )
    finally:
        if gc_was_enabled:
            gc.enable()


def _corpus_codebleu(
    predictions, references, lang, weights, keywords, remove_comments, strip, missing_dataflow, ast_clipping,
    per_example, trees=None,
):
    kw = keywords_for(lang, keywords)
    predictions = list(predictions)
    references = [list(refs) for refs in references]  # each iterated twice below
    # Each code string is tokenised and parsed once, and its entry kept only while a later example
    # still uses it (uses counted up front): memory is then reused while it is warm, and a corpus of
    # distinct strings never holds more than one example's entries.
    token_uses = Counter(predictions)
    token_uses.update(itertools.chain.from_iterable(references))
    token_cache = {}
    snippet_uses = Counter(zip(itertools.chain.from_iterable(references), repeat(1)))
    for pred, refs in zip(predictions, references):
        for j in range(len(refs)):
            snippet_uses[(pred, j + 1 if remove_comments != "none" else 1)] += 1
    cache = {}

    def tokens(code):  # (token count, n-gram counts) of a code string
        entry = token_cache.pop(code, None)
        if entry is None:
            toks = code.split()  # (stripping first, when ``strip``, gives the same tokens)
            entry = (len(toks), ngram_counts(toks))
        token_uses[code] -= 1
        if token_uses[code]:
            token_cache[code] = entry
        return entry
    intern = new_interner()

    def snippet(code, passes=1):
        key = (code, passes)
        snip = cache.pop(key, None)
        if snip is None:
            snip = Snippet(code, lang, remove_comments, strip, intern, passes, trees)
        snippet_uses[key] -= 1
        if snippet_uses[key]:
            cache[key] = snip
        return snip

    rows = []
    bad_predictions, bad_references = [], []
    limited_predictions, limited_references = [], []
    unprinted = []
    for i, (pred, refs) in enumerate(zip(predictions, references)):
        hyp_len, hyp_counts = tokens(pred)
        ref_lens, ref_counts = zip(*map(tokens, refs)) if refs else ((), ())
        b, w = ngram_stats(hyp_counts, ref_counts, hyp_len, ref_lens, kw)
        del hyp_counts, ref_counts  # freed now (when not cached), their memory reused by the parse
        syn, df = [], []
        limited = False
        for j, ref in enumerate(refs):
            hyp_snip = snippet(pred, j + 1 if remove_comments != "none" else 1)
            ref_snip = snippet(ref)
            if hyp_snip.parse_error and i not in bad_predictions[-1:]:
                bad_predictions.append(i)
            if ref_snip.parse_error and i not in bad_references[-1:]:
                bad_references.append(i)
            if (hyp_snip.unprinted or ref_snip.unprinted) and i not in unprinted[-1:]:
                unprinted.append(i)
            if hyp_snip.dataflow_limited or ref_snip.dataflow_limited:
                if hyp_snip.dataflow_limited and i not in limited_predictions[-1:]:
                    limited_predictions.append(i)
                if ref_snip.dataflow_limited and i not in limited_references[-1:]:
                    limited_references.append(i)
                limited = True
            syn.append(syntax_stats(hyp_snip, ref_snip, ast_clipping))
            df.append(dataflow_stats(hyp_snip, ref_snip))
        rows.append((b, w, syn, df, limited))
        hyp_snip = ref_snip = None  # freed now (when not cached), before the next example's work

    def score(subset):
        ngram = _corpus([row[0] for row in subset])
        weighted = _corpus([row[1] for row in subset])
        syntax, _ = _ratio([p for row in subset for p in row[2]])
        dataflow, df_total = _ratio([p for row in subset for p in row[3]])
        comps = (ngram, weighted, syntax, dataflow)
        total = combine(comps, weights, missing_dataflow, df_total)
        return dict(zip(KEYS, (float(total), *map(float, comps)))), df_total

    scores, df_total = score(rows)
    per = [dict(score([row])[0], dataflow_limited=row[4]) for row in rows] if per_example else None
    notes = {"bad_predictions": bad_predictions, "bad_references": bad_references, "no_dataflow": df_total == 0,
             "limited_predictions": limited_predictions, "limited_references": limited_references,
             "unprinted": unprinted}
    notes["stats"] = sufficient_stats(rows)
    return scores, per, notes


STATS_COLUMNS = (
    *(f"ngram_num{k}" for k in range(1, 5)), *(f"ngram_den{k}" for k in range(1, 5)), "ngram_ref_len", "hyp_len",
    *(f"weighted_num{k}" for k in range(1, 5)), *(f"weighted_den{k}" for k in range(1, 5)), "weighted_ref_len",
    "weighted_hyp_len", "syntax_match", "syntax_total", "dataflow_match", "dataflow_total",
)  # fmt: skip


def sufficient_stats(rows) -> list[list[float]]:
    """One row of :data:`STATS_COLUMNS` per example: the counts whose column sums give the corpus
    scores (BLEU and weighted n-gram counts and lengths, syntax and data-flow matches over the
    example's references), for recomputing the scores on resampled examples."""
    out = []
    for bleu, weighted, syntax, dataflow, *_ in rows:
        row = []
        for nums, dens, ref_len, hyp_len in (bleu, weighted):
            row += [*nums, *dens, ref_len, hyp_len]
        row += [sum(m for m, _ in syntax), sum(t for _, t in syntax)]
        row += [sum(m for m, _ in dataflow), sum(t for _, t in dataflow)]
        out.append(row)
    return out
