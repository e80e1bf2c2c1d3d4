"""codebleu's flat trees from the tree-sitter runtime of 2020 in one C call per snippet (``legacy_walk.c``).

The C walker, compiled into the runtime by :mod:`multimodal_metrics.codebleu.build_runtime`, parses a
snippet and walks its tree in C: the code tokens, the flat nodes of the data-flow rules and the subtree ids
come back as arrays (see the top of ``legacy_walk.c``). This module turns them into the ``FlatTree`` that
:func:`multimodal_metrics.codebleu.trees.flatten_tree_sitter` builds with one ctypes call per node attribute:

* tokens, their byte spans and the subtree ids are lists sliced from the arrays;
* the flat nodes are made only when the data-flow walk reaches them (``_LazyNode``: type, token range and
  the "holds a rule" flag at once, children and fields on first use), so a subtree without rules costs no
  Python object at all.

Subtree ids live in a C table shared by the snippets of one computation (``NativeIds``, kept on the
computation's ``Interner``): the walker interns the printout of every subtree as (head, items) there, the
key scheme of ``legacy_runtime.printed_id``. A tree deeper than ``legacy_runtime.MAX_RENDER_DEPTH`` goes
through the Python path (``legacy_runtime.subtree_ids``), whose keys ``NativeIds.intern`` puts in the same
table, so ids stay comparable across snippets whichever path gave them.

Only the standard library is imported (ctypes).
"""

import ctypes
import sys

from .trees import FlatTree, Interner, new_node

# mm_walk's return codes
OK, TOO_DEEP, MISMATCH, NO_TREE, NO_MEMORY = 0, 1, 2, -1, -2
# key tags (legacy_walk.c)
_TAG_NORMAL, _TAG_MISSING, _TAG_UNEXPECTED, _TAG_HIDDEN, _TAG_SEQ, _TAG_ANONYMOUS, _TAG_OTHER = (
    1,
    2,
    3,
    4,
    5,
    6,
    7,
)
# symbol flags (input) and flat node flags (output)
_F_STRING, _F_COMMENT, _F_SPECIAL, _F_DO_FIRST = 1, 2, 4, 8
_N_SPECIAL, _N_FIRST_PARENT = 1, 2
# data flow (legacy_walk.c): flow_status, rule handlers and symbol flags of MMRules
_FLOW_DONE, _FLOW_LIMITED, _FLOW_PYTHON = 0, 1, 2
_HANDLER_KEYS = (
    ("whiles", 7),
    ("efors", 6),
    ("fors", 5),
    ("ifs", 4),
    ("incs", 3),
    ("assigns", 2),
    ("defs", 1),
)
_R_IDENT, _R_ELSE, _R_PY_ELSE, _R_IFS, _R_COMMA, _R_BLOCK, _R_FOR_MARKER, _R_DO_FIRST, _R_FOR_IN = (
    1, 2, 4, 8, 16, 32, 64, 128, 256)  # fmt: skip
_TAG_FLOW = 8
# rule nesting the C data flow handles (it recurses per level); deeper, the Python data flow
_MAX_FLOW_DEPTH = 400
_STRING_TYPES = frozenset(("string_literal", "string", "character_literal"))  # as trees.flatten_tree_sitter
_U32P = ctypes.POINTER(ctypes.c_uint32)


class _Out(ctypes.Structure):
    """``MMOut`` of legacy_walk.c."""

    _fields_ = [
        ("ntok", ctypes.c_uint32), ("nnode", ctypes.c_uint32), ("nkid", ctypes.c_uint32), ("nids", ctypes.c_uint32),
        ("tok_sym", _U32P), ("tok_start", _U32P), ("tok_end", _U32P),
        ("node_sym", _U32P), ("node_lo", _U32P), ("node_hi", _U32P), ("node_flags", _U32P),
        ("kid_ptr", _U32P), ("kid_code", ctypes.POINTER(ctypes.c_int32)), ("kid_field", _U32P),
        ("ids", _U32P),
        ("root_code", ctypes.c_int32), ("has_error", ctypes.c_uint32), ("leaf_root", ctypes.c_uint32),
        ("root_sym", ctypes.c_uint32), ("root_named", ctypes.c_uint32), ("root_start", ctypes.c_uint32),
        ("root_end", ctypes.c_uint32), ("max_depth", ctypes.c_uint32),
        ("flow_status", ctypes.c_uint32), ("nflow", ctypes.c_uint32), ("flow", _U32P), ("flow_left", ctypes.c_int64),
        ("unprinted", ctypes.c_uint32),  # written by wheels_walk.c only (read by wheels_runtime)
    ]  # fmt: skip


class _Rules(ctypes.Structure):
    """``MMRules`` of legacy_walk.c: one language's data-flow rules (``dataflow.RULES``) for the C walk."""

    _fields_ = [
        ("handler", ctypes.c_char_p), ("symflags", ctypes.POINTER(ctypes.c_uint16)), ("nsym", ctypes.c_uint32),
        ("assign_python", ctypes.c_uint32), ("if_python", ctypes.c_uint32), ("for_python", ctypes.c_uint32),
        ("with_incoming_untagged", ctypes.c_uint32), ("merge_incoming", ctypes.c_uint32),
        ("def_name", ctypes.c_uint32), ("def_value", ctypes.c_uint32), ("left", ctypes.c_uint32),
        ("right", ctypes.c_uint32), ("efor_name", ctypes.c_uint32), ("efor_value", ctypes.c_uint32),
        ("efor_body", ctypes.c_uint32), ("work_per_token", ctypes.c_int64), ("work_floor", ctypes.c_int64),
        ("max_depth", ctypes.c_uint32),
    ]  # fmt: skip


# name: (restype, argtypes) of the walker's functions in the runtime (absent from a runtime built without it)
SIGNATURES = {
    "mm_state_new": (ctypes.c_void_p, ()),
    "mm_state_free": (None, (ctypes.c_void_p,)),
    "mm_state_out": (ctypes.POINTER(_Out), (ctypes.c_void_p,)),
    "mm_table_size": (ctypes.c_uint32, (ctypes.c_void_p,)),
    "mm_table_string": (ctypes.c_uint32, (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32)),
    "mm_table_key": (ctypes.c_uint32, (ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, _U32P, ctypes.c_uint32)),
    "mm_walk": (ctypes.c_int, (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_char_p,
                               ctypes.c_uint32, ctypes.c_uint32, ctypes.POINTER(_Rules))),
    "ts_language_symbol_count": (ctypes.c_uint32, (ctypes.c_void_p,)),
    "ts_language_symbol_name": (ctypes.c_char_p, (ctypes.c_void_p, ctypes.c_uint16)),
    "ts_language_field_count": (ctypes.c_uint32, (ctypes.c_void_p,)),
    "ts_language_field_name_for_id": (ctypes.c_char_p, (ctypes.c_void_p, ctypes.c_uint16)),
}  # fmt: skip
_NONE = 0xFFFFFFFF
_ESCAPES = {"'\\0'": 0, "'\\n'": 10, "'\\t'": 9, "'\\r'": 13}


class NativeIds:
    """The C table of subtree ids of one computation (an ``MMState`` of legacy_walk.c), freed with it."""

    __slots__ = ("rt", "ptr", "out", "_strings")

    def __init__(self, runtime):
        self.rt = runtime
        self.ptr = None
        ptr = runtime.mm_state_new()
        if not ptr:
            raise MemoryError("codebleu: no memory for the subtree table")
        self.ptr = ptr
        self.out = runtime.mm_state_out(ptr).contents
        self._strings = {}

    def __del__(self):
        if self.ptr:
            self.rt.mm_state_free(self.ptr)
            self.ptr = None

    def _sid(self, text: str) -> int:
        sid = self._strings.get(text)
        if sid is None:
            raw = text.encode("utf8")
            sid = self._strings[text] = self._check(self.rt.mm_table_string(self.ptr, raw, len(raw)))
        return sid

    @staticmethod
    def _check(value: int) -> int:
        if value == _NONE:
            raise MemoryError("codebleu: no memory for the subtree table")
        return value

    def intern(self, key) -> int:
        """The id of a key of ``legacy_runtime.printed_id`` / ``subtree_ids`` (the Python path) in the table:
        the same id the walker gives the same printout."""
        items = ()
        if len(key) == 2 and isinstance(key[1], tuple):
            head, items = key
            if head.__class__ is str:
                tag, value = (_TAG_SEQ, 0) if head == "SEQ" else (_TAG_NORMAL, self._sid(head))
            elif head[0] == "MISSING":
                tag, value = _TAG_MISSING, self._sid(head[1]) * 2 + bool(head[2])
            elif head[0] == "UNEXPECTED":
                tag, value = _TAG_UNEXPECTED, _lookahead_code(head[1])
            elif head[0] == "HIDDEN":
                tag, value = _TAG_HIDDEN, self._sid(head[1])
            elif head[0] == "ANONYMOUS":
                tag, value = _TAG_ANONYMOUS, self._sid(head[1])
            else:
                tag, value, items = _TAG_OTHER, self._sid(repr(key)), ()
        else:  # ("UNCLOSED", head, items): not expected from the core
            tag, value = _TAG_OTHER, self._sid(repr(key))
        n = len(items) // 2
        words = (ctypes.c_uint32 * (2 * n))()
        for k in range(n):
            field = items[2 * k]
            words[2 * k] = 0 if field is None else self._sid(field) + 1
            words[2 * k + 1] = items[2 * k + 1]
        return self._check(self.rt.mm_table_key(self.ptr, tag, value, words, n))

    def intern_flow(self, item) -> int:
        """The id of a normalised data-flow item ``(name, relation, parents)`` (``dataflow._items``): the id the C
        data flow gives the same item."""
        name, relation, parents = item
        words = (ctypes.c_uint32 * (2 * len(parents)))()
        words[0::2] = parents
        head = name * 2 + (relation == "computedFrom")
        return self._check(self.rt.mm_table_key(self.ptr, _TAG_FLOW, head, words, len(parents)))


def _lookahead_code(text: str) -> int:
    """The look-ahead character the core printed as ``text`` in ``(UNEXPECTED text)`` (as uint32)."""
    if text == "INVALID":
        return _NONE  # -1
    code = _ESCAPES.get(text)
    if code is not None:
        return code
    if len(text) == 3 and text[0] == text[2] == "'":
        return ord(text[1])
    return int(text) & _NONE


def native_ids(intern, runtime):
    """The C table kept on the computation's ``Interner`` (made on first use); None when the runtime has no
    walker or ``intern`` is not an ``Interner``."""
    if not runtime.walker or not isinstance(intern, Interner):
        return None
    table = getattr(intern, "native", None)
    if table is None:
        table = intern.native = NativeIds(runtime)
    elif table.rt is not runtime:
        raise RuntimeError("codebleu: one computation parsed with two tree-sitter runtimes")
    return table


class Grammar:
    """What the walker needs of one language: its node type names and field names by id, the flags of every
    symbol for its data-flow rules (``dataflow.RULES``), and those rules for the C data flow (None where
    their styles are not ported: the Python data flow then runs on the flat nodes)."""

    __slots__ = (
        "lang",
        "special_types",
        "first_types",
        "names",
        "field_names",
        "flags",
        "nflags",
        "rules",
        "_keep",
    )

    def __init__(self, runtime, language_ptr, lang):
        from .dataflow import DATAFLOW_WORK_FLOOR, DATAFLOW_WORK_PER_TOKEN, RULES, SPECIAL_TYPES

        rules = RULES[lang]
        self.lang = lang
        self.special_types = special_types = SPECIAL_TYPES[lang]
        self.first_types = first_types = rules["do_first"]
        count = runtime.ts_language_symbol_count(language_ptr)
        symbols = [*range(count), 0xFFFF, 0xFFFE]  # ERROR and _ERROR after the grammar's own symbols
        self.names = [sys.intern((runtime.ts_language_symbol_name(language_ptr, s) or b"").decode("utf8"))
                      for s in symbols]  # fmt: skip
        self.field_names = [None] + [
            sys.intern((runtime.ts_language_field_name_for_id(language_ptr, f) or b"").decode("utf8"))
            for f in range(1, runtime.ts_language_field_count(language_ptr) + 1)
        ]
        flags = bytearray(len(self.names))
        for i, name in enumerate(self.names):
            flags[i] = (
                (_F_STRING if name in _STRING_TYPES else 0) | (_F_COMMENT if name == "comment" else 0)
                | (_F_SPECIAL if name in special_types else 0) | (_F_DO_FIRST if name in first_types else 0)
            )  # fmt: skip
        self.flags = bytes(flags)
        self.nflags = len(flags)
        self.rules = None
        efor = rules["efor_style"]
        if (
            rules["def_style"] == "fields" and rules["assign_style"] in ("python", "simple")
            and rules["if_style"] in ("python", "flag") and rules["for_style"] in ("python", "c")
            and (efor is None or isinstance(efor, tuple))
        ):  # fmt: skip
            self.rules = self._c_rules(rules, DATAFLOW_WORK_PER_TOKEN, DATAFLOW_WORK_FLOOR)

    def _c_rules(self, rules, per_token, floor):
        handlers = {}
        for (
            key,
            code,
        ) in _HANDLER_KEYS:  # the reference's precedence: a later key wins (dataflow_walk._handlers)
            for kind in rules[key]:
                handlers[kind] = code
        ifs, first_types = frozenset(rules["ifs"]), frozenset(rules["do_first"])
        handler = bytes(handlers.get(name, 0) for name in self.names)
        symflags = (ctypes.c_uint16 * len(self.names))()
        for i, name in enumerate(self.names):
            symflags[i] = (
                (_R_IDENT if name == "identifier" else 0) | (_R_ELSE if "else" in name else 0)
                | (_R_PY_ELSE if name in ("elif_clause", "else_clause") else 0) | (_R_IFS if name in ifs else 0)
                | (_R_COMMA if name == "," else 0) | (_R_BLOCK if name == "block" else 0)
                | (_R_FOR_MARKER if name == rules["for_marker"] else 0)
                | (_R_DO_FIRST if name in first_types else 0) | (_R_FOR_IN if name == "for_in_clause" else 0)
            )  # fmt: skip
        field_ids = {name: i for i, name in enumerate(self.field_names) if name}

        def field(name):
            return field_ids.get(name, _NONE)

        def_fields = rules["def_fields"]
        efor = rules["efor_style"] or (None, None, None)
        self._keep = (handler, symflags)
        return _Rules(
            handler, symflags, len(self.names), rules["assign_style"] == "python", rules["if_style"] == "python",
            rules["for_style"] == "python", bool(rules["if_tag"]), bool(rules["merge_incoming"]),
            field(def_fields[0]), field(def_fields[1]), field("left"), field("right"), field(efor[0]),
            field(efor[1]), field(efor[2]), per_token, floor, _MAX_FLOW_DEPTH,
        )  # fmt: skip


class _LazyNode:
    """A flat node (the interface of ``trees._Node``) whose children, fields and children with rules are
    read from the walker's arrays on first use."""

    __slots__ = ("type", "lo", "hi", "special", "kids", "fields", "skids", "_arrays", "_i")

    def __getattr__(self, name):  # only reached for an unset slot
        if name in ("kids", "fields", "skids"):
            self._arrays.expand(self)
            return object.__getattribute__(self, name)
        raise AttributeError(name)


class _Arrays:
    """The flat nodes of one snippet as lists, and the node objects made from them so far."""

    __slots__ = (
        "syms",
        "lo",
        "hi",
        "flags",
        "kid_ptr",
        "kid_code",
        "kid_field",
        "names",
        "field_names",
        "made",
    )

    def node(self, i: int) -> _LazyNode:
        node = self.made[i]
        if node is None:
            node = self.made[i] = _LazyNode()
            node.type = self.names[self.syms[i]]
            node.lo = self.lo[i]
            node.hi = self.hi[i]
            node.special = self.flags[i] & _N_SPECIAL != 0
            node._arrays = self
            node._i = i
        return node

    def expand(self, node: _LazyNode) -> None:
        i = node._i
        kids = []
        fields = skids = None
        codes, field_ids = self.kid_code, self.kid_field
        for k in range(self.kid_ptr[i], self.kid_ptr[i + 1]):
            code = codes[k]
            if code >= 0:
                child = code
            else:
                child = self.node(~code)
                if child.special:
                    if skids is None:
                        skids = [child]
                    else:
                        skids.append(child)
            kids.append(child)
            field = field_ids[k]
            if field:
                name = self.field_names[field]
                if fields is None:
                    fields = {name: child}
                elif name not in fields:
                    fields[name] = child
        node.kids, node.fields, node.skids = kids, fields, skids


def flatten(table: NativeIds, parser_ptr, grammar: Grammar, code: str, depth_limit: int, full: bool = False):
    """The ``FlatTree`` of ``code`` (see the module docstring) with its data flow (``dataflow``: ids of the
    table, and whether it was over the work limit; None where the Python data flow is to run), or None when
    the tree is deeper than ``depth_limit`` or the walker declines it (the caller then takes the Python path).
    With the data flow done in C, the tokens and flat nodes are left out (None) unless ``full``."""
    rt = table.rt
    data = code.encode("utf8")
    rc = rt.mm_walk(
        table.ptr, parser_ptr, data, len(data), grammar.flags, grammar.nflags, depth_limit, grammar.rules
    )
    if rc == NO_MEMORY:
        raise MemoryError("codebleu: no memory for the tree walk")
    if rc == NO_TREE:
        raise RuntimeError("tree-sitter 0.2.0 returned no tree")
    if rc != OK:
        return None
    out = table.out
    names = grammar.names
    first_types = grammar.first_types
    tree = FlatTree()
    tree.text = code
    tree.has_error = out.has_error != 0
    tree.unprinted = 0
    tree.subtrees = out.ids[: out.nids]
    tree.dataflow = None
    if out.flow_status != _FLOW_PYTHON:
        tree.dataflow = (out.flow[: out.nflow], out.flow_status == _FLOW_LIMITED)
        if not full:
            tree.types = tree.starts = tree.ends = tree.root = tree.first_parents = None
            return tree
    tree.first_parents = set()
    if out.leaf_root:  # as trees._flat_leaf_root
        kind = names[out.root_sym]
        tree.root = new_node(kind, 0)
        if kind == "comment":
            tree.types, tree.starts, tree.ends = [], [], []
        else:
            tree.types, tree.starts, tree.ends = [kind], [out.root_start], [out.root_end]
            tree.root.hi = 1
        return tree
    ntok, nnode = out.ntok, out.nnode
    tree.types = list(map(names.__getitem__, out.tok_sym[:ntok]))
    tree.starts = out.tok_start[:ntok]
    tree.ends = out.tok_end[:ntok]
    arrays = _Arrays()
    arrays.syms = out.node_sym[:nnode]
    arrays.lo = out.node_lo[:nnode]
    arrays.hi = out.node_hi[:nnode]
    arrays.flags = flags = out.node_flags[:nnode]
    arrays.kid_ptr = out.kid_ptr[: nnode + 1]
    arrays.kid_code = out.kid_code[: out.nkid]
    arrays.kid_field = out.kid_field[: out.nkid]
    arrays.names = names
    arrays.field_names = grammar.field_names
    arrays.made = [None] * nnode
    top = out.root_code
    if top >= 0:  # a string literal root
        root = new_node(tree.types[top], top)
        root.hi = top + 1
    else:
        root = arrays.node(~top)
    tree.root = root
    if first_types and _N_FIRST_PARENT in map(_N_FIRST_PARENT.__and__, flags):
        tree.first_parents = {arrays.node(i) for i, f in enumerate(flags) if f & _N_FIRST_PARENT}
    return tree
