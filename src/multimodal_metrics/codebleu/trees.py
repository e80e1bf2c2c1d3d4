"""CodeBLEU's trees: tree-sitter parsers of the grammar wheels, and the flat tree the metric uses of a parse.

* ``get_parser``: a cached ``tree_sitter.Parser`` per language (tree-sitter imported on first use);
* ``FlatTree`` / ``flatten_tree_sitter``: one iterative walk gives the code tokens, the nodes the
  data-flow rules read and one id per subtree (``Interner``), equal exactly when tree-sitter's
  ``str(node)`` s-expressions are equal (``_printed_id`` reads a printed subtree back into the same ids).

Pure standard-library code at import (a component of :mod:`multimodal_metrics.codebleu.corpus`).
"""

import bisect
import itertools
import operator
import re
import sys

# ----------------------------------------------------------------------------------------------
# tree-sitter languages and parsers (imported lazily, cached per language)
# ----------------------------------------------------------------------------------------------
GRAMMAR_MODULES = {
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


def require_wheels(lang: str, what: str | None = None) -> None:
    """One ``MissingExtra`` (the ``[code]`` extra) when tree-sitter or the grammar wheel of ``lang`` is not
    installed; ``what`` names what needs them (default: codebleu with that language)."""
    from ..extras import require

    require(what or f"codebleu with lang={lang!r}", ["tree_sitter", GRAMMAR_MODULES[lang][0]], ["code"])


def get_parser(lang: str):
    """A cached ``tree_sitter.Parser`` for ``lang`` built from the individual grammar wheel."""
    parser = _PARSERS.get(lang)
    if parser is None:
        import importlib

        module_name, attr = GRAMMAR_MODULES[lang]
        require_wheels(lang)
        import tree_sitter

        module = importlib.import_module(module_name)
        language = tree_sitter.Language(getattr(module, attr)())
        parser = tree_sitter.Parser(language)
        _PARSERS[lang] = parser
    return parser


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


def dedupe(items) -> list:
    return list(dict.fromkeys(items))


class _Node:
    """An internal node of a flat tree: type, children (a token child is its int index), the first
    child with each field name (a dict field name -> child; None when there are none), token range
    [lo, hi), whether its subtree holds a node with a data-flow rule (``special``), and its children
    that are special (``skids``, in order; None when there are none)."""

    __slots__ = ("type", "kids", "fields", "lo", "hi", "special", "skids")


def new_node(kind, lo):
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
      collected);
    * ``dataflow``: (items, limited) of ``dataflow.data_flow`` where the parser computed them with the tree
      (the runtime of 2020's C walker: items as ids of its table); unset otherwise.

    ``flatten_tree_sitter`` builds it from a tree-sitter parse; any other parser (e.g. an older
    grammar runtime) only needs to produce the same fields.
    """

    __slots__ = (
        "root",
        "types",
        "starts",
        "ends",
        "text",
        "subtrees",
        "has_error",
        "unprinted",
        "first_parents",
        "dataflow",
    )

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
    if it is new; the flattening reads and writes the dict directly. ``native``: the C table of the
    runtime of 2020's walker, where that source keeps its ids (``legacy_walk.NativeIds``), once used."""

    __slots__ = ("native",)

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
    grammar (``grammar_names``); with them the walk reads ids instead of creating a string per node.
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
        leaf = not first_child()  # on a node with children, the cursor is on its first child now
        if in_token == 0:  # the node belongs to the flow tree: a token, or a node over tokens
            if (kind != "comment") if leaf else (kind in string_types):  # a string literal: one token
                child = ntok
                ntok += 1
                starts.append(node.start_byte)
                ends.append(node.end_byte)
                types.append(kind)
                if not leaf:
                    flow = None
                    is_token = True
                    in_token = 1
            elif leaf:  # a comment leaf: an empty node (no tokens)
                child = new_node(kind, ntok)
            else:
                is_token = False
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
        elif not leaf:  # inside a string literal's token
            flow = None
            is_token = kind in string_types
            if is_token:
                in_token += 1
        if leaf:
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
        else:
            piece_field = field if field is not None else up[6]
            error_here = any_error and node.has_error
            if error_here:
                up[8] = True
            up = [
                flow,
                [],
                piece_field,
                named,
                kind,
                is_token,
                None if named else piece_field,
                node if error_here else None,
                False,
                0,
            ]
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
        top = new_node(types[top], top)
        top.hi = top.lo + 1
    if first_parents is not None:
        first_parents.discard(holder)
    tree = FlatTree()
    tree.root, tree.types, tree.starts, tree.ends, tree.text, tree.subtrees = (
        top,
        types,
        starts,
        ends,
        text,
        subtrees,
    )
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
        tree.root = new_node(kind, 0)
    else:
        tree.types.append(kind)
        tree.starts.append(root.start_byte)
        tree.ends.append(root.end_byte)
        tree.root = new_node(kind, 0)
        tree.root.hi = 1
    tree.text, tree.subtrees, tree.has_error, tree.unprinted = text, [ident], any_error, 0
    tree.first_parents = set() if first_types is not None else None
    return tree


_NAMES = {}


def grammar_names(lang, language):
    """(node type name by kind id, field name by field id, named flag by kind id) of a grammar, one
    shared string each."""
    names = _NAMES.get(lang)
    if names is None:
        kinds = [sys.intern(language.node_kind_for_id(i) or "") for i in range(language.node_kind_count)]
        fields = [None] + [
            sys.intern(language.field_name_for_id(i) or "") for i in range(1, language.field_count + 1)
        ]
        named = [language.node_kind_is_named(i) for i in range(language.node_kind_count)]
        names = _NAMES[lang] = (kinds, fields, named)
    return names
