"""The tree-sitter runtime of 2020 (the C core of py-tree-sitter 0.2.0) through ctypes, for grammar
libraries of language ABI 9 to 12 such as CodeXGLUE's ``parser/my-languages.so`` (ABI 11).

Why: the official CodeBLEU scorers (CodeXGLUE, Fusion Brain 2021) parse with py-tree-sitter 0.2.0 and a
shared library of 2020 grammars that they ship. tree-sitter 0.26 refuses ABI < 13, and re-generated
tables do not help (error recovery differs), so only the old runtime reproduces their trees. The PyPI
package ``tree_sitter==0.2.0`` has the same import name as tree-sitter 0.26 and cannot share their
environment; this binding loads its C core, ``libtree-sitter-0.2.0.so``, beside tree-sitter 0.26 in one
process. ``python -m multimodal_metrics.codebleu.build_runtime`` compiles it from that sdist into the
per-user cache (see :mod:`multimodal_metrics.codebleu.build_runtime`).

Where the runtime is found (``find_runtime``), in this order: the explicit ``runtime_path`` argument
(``open_library``, ``load_runtime``); the environment variable ``CODEBLEU_TS_RUNTIME``; the per-user cache
``${XDG_CACHE_HOME:-~/.cache}/multimodal_metrics/legacy_ts/`` (only an absolute one: a relative
``XDG_CACHE_HOME`` or ``HOME`` is not used); then ``.build/legacy_ts/`` of the checkout this file belongs to
(``<checkout>/src/multimodal_metrics/codebleu/legacy_runtime.py``, where ``bash scripts/setup_env.sh`` builds
it). The current working directory is never searched: a native library is never loaded from wherever the
process happens to run (tests/test_security.py plants one there, with a constructor). A relative
``runtime_path`` or variable is the file under the working directory that was checked (its absolute path is
what is loaded, never a search of the loader's paths by its bare name). A file that is not the runtime is a
ValueError. So the option works from any directory, and
from the copy of the evaluate script that ``evaluate.load`` caches (the script only imports this library).

What it offers (only what CodeBLEU needs): ``open_library(path)`` -> ``GrammarLibrary`` (the languages
the .so exports, a hash of the file, one ``Parser`` per language); ``Parser.parse(bytes)`` ->
``Tree``; ``Node`` with the py-tree-sitter names (``type``, ``is_named``, ``is_missing``,
``has_error``, ``start_byte``/``end_byte``, ``start_point``/``end_point``, ``child_count``,
``children``, ``child_by_field_name``, ``walk()``; ``str(node)``/``sexp()`` is the core's own
``ts_node_string``); ``TreeCursor`` (``node``, ``field_name``, ``goto_first_child``,
``goto_next_sibling``, ``goto_parent``); and ``subtree_sexps(root)``: the s-expressions of the root and
of every node with children, exactly as ``node.sexp()`` of py-tree-sitter 0.2.0 prints them, assembled
bottom-up in one walk and checked once against the core's rendering of the whole tree (any difference:
every node rendered by the core itself).

At module level only the standard library is imported (ctypes, os, threading), and of the library only
its standard-library ``digests``.
"""

import ctypes
import os
import threading
from pathlib import Path

from ..digests import file_sha256

RUNTIME_FILE = "libtree-sitter-0.2.0.so"
RUNTIME_VERSION = "0.2.0"  # the py-tree-sitter release whose C core RUNTIME_FILE is (recorded as ts:0.2.0)
# The 2020 grammars that the CodeXGLUE and Fusion Brain 2021 presets score with by default
# (grammar_library="2020"): one ABI-11 library exporting tree_sitter_python and tree_sitter_java, built like
# CodeXGLUE's parser/my-languages.so from the npm grammars below, next to the runtime (build_runtime).
GRAMMAR_FILE = "languages-npm-2020.so"
GRAMMAR_PACKAGES = {"python": "tree-sitter-python@0.16.1", "java": "tree-sitter-java@0.16.0"}
BUILD_COMMAND = "python -m multimodal_metrics.codebleu.build_runtime"
RUNTIME_ENV = "CODEBLEU_TS_RUNTIME"
CACHE_SUBDIR = ("multimodal_metrics", "legacy_ts")  # under ${XDG_CACHE_HOME:-~/.cache}
RUNTIME_HINT = (
    "build it with `python -m multimodal_metrics.codebleu.build_runtime` (compiles the C core of the PyPI sdist "
    "tree_sitter==0.2.0 into the per-user cache ${XDG_CACHE_HOME:-~/.cache}/multimodal_metrics/legacy_ts/; needs pip and cc), or "
    "in a checkout with `bash scripts/setup_env.sh` (hook scripts/setup.d/codebleu_legacy_ts.sh), or set "
    f"{RUNTIME_ENV}=<path to libtree-sitter-0.2.0.so>"
)
MIN_ABI, MAX_ABI = 9, 12  # TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION, TREE_SITTER_LANGUAGE_VERSION of 0.2.0
# Trees deeper than this are not rendered by the C core as a whole (its printer recurses per level).
MAX_RENDER_DEPTH = 2000


class _TSNode(ctypes.Structure):
    _fields_ = [("context", ctypes.c_uint32 * 4), ("id", ctypes.c_void_p), ("tree", ctypes.c_void_p)]


class _TSPoint(ctypes.Structure):
    _fields_ = [("row", ctypes.c_uint32), ("column", ctypes.c_uint32)]


class _TSCursor(ctypes.Structure):
    _fields_ = [("tree", ctypes.c_void_p), ("id", ctypes.c_void_p), ("context", ctypes.c_uint32 * 2)]


_SIGNATURES = {
    # name: (restype, argtypes)
    "ts_parser_new": (ctypes.c_void_p, ()),
    "ts_parser_delete": (None, (ctypes.c_void_p,)),
    "ts_parser_set_language": (ctypes.c_bool, (ctypes.c_void_p, ctypes.c_void_p)),
    "ts_parser_parse_string": (
        ctypes.c_void_p,
        (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32),
    ),
    "ts_tree_delete": (None, (ctypes.c_void_p,)),
    "ts_tree_root_node": (_TSNode, (ctypes.c_void_p,)),
    "ts_tree_language": (ctypes.c_void_p, (ctypes.c_void_p,)),
    "ts_language_version": (ctypes.c_uint32, (ctypes.c_void_p,)),
    "ts_node_type": (ctypes.c_char_p, (_TSNode,)),
    "ts_node_string": (ctypes.c_void_p, (_TSNode,)),
    "ts_node_start_byte": (ctypes.c_uint32, (_TSNode,)),
    "ts_node_end_byte": (ctypes.c_uint32, (_TSNode,)),
    "ts_node_start_point": (_TSPoint, (_TSNode,)),
    "ts_node_end_point": (_TSPoint, (_TSNode,)),
    "ts_node_is_null": (ctypes.c_bool, (_TSNode,)),
    "ts_node_is_named": (ctypes.c_bool, (_TSNode,)),
    "ts_node_is_missing": (ctypes.c_bool, (_TSNode,)),
    "ts_node_has_error": (ctypes.c_bool, (_TSNode,)),
    "ts_node_child_count": (ctypes.c_uint32, (_TSNode,)),
    "ts_node_child_by_field_name": (_TSNode, (_TSNode, ctypes.c_char_p, ctypes.c_uint32)),
    "ts_tree_cursor_new": (_TSCursor, (_TSNode,)),
    "ts_tree_cursor_delete": (None, (ctypes.POINTER(_TSCursor),)),
    "ts_tree_cursor_current_node": (_TSNode, (ctypes.POINTER(_TSCursor),)),
    "ts_tree_cursor_current_field_name": (ctypes.c_char_p, (ctypes.POINTER(_TSCursor),)),
    "ts_tree_cursor_goto_first_child": (ctypes.c_bool, (ctypes.POINTER(_TSCursor),)),
    "ts_tree_cursor_goto_next_sibling": (ctypes.c_bool, (ctypes.POINTER(_TSCursor),)),
    "ts_tree_cursor_goto_parent": (ctypes.c_bool, (ctypes.POINTER(_TSCursor),)),
}


class Runtime:
    """The loaded C core (one per process and path)."""

    def __init__(self, path: Path, where: str = "runtime_path"):
        self.path = path
        try:
            lib = ctypes.CDLL(str(path))
        except OSError as err:
            raise ValueError(
                f"codebleu: {where}={str(path)!r} is not a loadable shared library ({err})"
            ) from None
        for name, (restype, argtypes) in _SIGNATURES.items():
            func = getattr(lib, name, None)
            if func is None:
                raise ValueError(
                    f"codebleu: {where}={str(path)!r} is not the tree-sitter runtime of 2020 (it has no function "
                    f"{name}); {RUNTIME_HINT}"
                )
            func.restype = restype
            func.argtypes = argtypes
            setattr(self, name[3:], func)  # ts_node_type -> self.node_type
        self._lib = lib
        # codebleu's C walker (legacy_walk.c), compiled into the runtime by build_runtime: absent from a
        # runtime built without it, which then takes the Python path (one ctypes call per node attribute)
        from . import legacy_walk

        self.walker = all(hasattr(lib, name) for name in legacy_walk.SIGNATURES)
        if self.walker:
            for name, (restype, argtypes) in legacy_walk.SIGNATURES.items():
                func = getattr(lib, name)
                func.restype = restype
                func.argtypes = argtypes
                setattr(self, name, func)
        libc = ctypes.CDLL(None)
        self.free = libc.free
        self.free.argtypes = (ctypes.c_void_p,)
        self.free.restype = None

    def node_text(self, raw) -> str:
        """``ts_node_string``: the core's s-expression of a node (malloc'ed by the core, freed here)."""
        ptr = self.node_string(raw)
        try:
            return ctypes.string_at(ptr).decode("utf8")
        finally:
            self.free(ptr)


_RUNTIMES = {}
_LIBRARIES = {}
_LOCK = threading.Lock()


def cache_dir() -> Path | None:
    """The per-user cache of the runtime: ``$XDG_CACHE_HOME/multimodal_metrics/legacy_ts`` when that variable
    is an absolute path (the XDG rule), else ``~/.cache/multimodal_metrics/legacy_ts``; None without a home
    or with a relative one (``HOME=.``: a cache there would be a folder of the working directory)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        try:
            base = Path.home() / ".cache"
        except RuntimeError:  # no home directory to expand ~ with
            return None
        if not base.is_absolute():
            return None
    return Path(base).joinpath(*CACHE_SUBDIR)


def checkout_dir() -> Path | None:
    """``.build/legacy_ts`` of the checkout this file belongs to (``<root>/src/multimodal_metrics/codebleu/``
    with ``<root>/setup.cfg``), found from this file's own location; None for an installed library."""
    here = Path(__file__).resolve().parent
    root = here.parents[2]
    if here.parent.parent.name != "src" or not (root / "setup.cfg").is_file():
        return None
    return root / ".build" / "legacy_ts"


def runtime_candidates(explicit=None) -> list:
    """``(where, path)`` of every place ``find_runtime`` looks, in its order (a path may not exist)."""
    out = []
    if explicit is not None:
        out.append(("runtime_path", Path(explicit)))
    env = os.environ.get(RUNTIME_ENV)
    if env:
        out.append((RUNTIME_ENV, Path(env)))
    for where, folder in (("per-user cache", cache_dir()), ("checkout", checkout_dir())):
        if folder is not None:
            out.append((where, folder / RUNTIME_FILE))
    return out


def find_runtime(explicit=None) -> Path:
    """The compiled core: ``explicit`` (a path), else ``$CODEBLEU_TS_RUNTIME``, else the per-user cache
    (``cache_dir()``), else the checkout's ``.build/legacy_ts`` (``checkout_dir()``). An explicit path or the
    variable must name a file (a relative one: under the working directory); the working directory is never
    searched. The path returned is absolute (what the loader opens is the file that was checked)."""
    return _find_runtime(explicit)[1]


def _find_runtime(explicit=None) -> tuple:
    """``(where, absolute path)`` of the runtime ``find_runtime`` finds."""
    for where, path in runtime_candidates(explicit):
        if path.is_file():
            return where, path.resolve()
        if where == "runtime_path":
            raise RuntimeError(f"codebleu: runtime_path={str(path)!r} is not a file; {RUNTIME_HINT}")
        if where == RUNTIME_ENV:
            raise RuntimeError(f"codebleu: {RUNTIME_ENV}={str(path)!r} is not a file; {RUNTIME_HINT}")
    raise RuntimeError(
        f"codebleu: `grammar_library` needs the tree-sitter runtime of 2020, not built here; {RUNTIME_HINT}"
    )


def find_grammars() -> Path | None:
    """The 2020 grammar library (``GRAMMAR_FILE``) built beside a runtime: in the folder of the runtime
    ``find_runtime`` finds first, else in any folder it searches (``$CODEBLEU_TS_RUNTIME``'s folder, the per-user
    cache, the checkout's ``.build/legacy_ts``); None when neither the runtime nor the grammars are built."""
    try:
        runtime = find_runtime()
    except RuntimeError:
        return None
    folders = [runtime.parent] + [path.parent for _, path in runtime_candidates()]
    for folder in folders:
        path = folder / GRAMMAR_FILE
        if path.is_file():
            return path
    return None


def load_runtime(path=None) -> Runtime:
    """The runtime (loaded once per process and file): ``path``, or the one ``find_runtime`` finds. A file
    that is not a loadable shared library, or lacks a function of the runtime, is a ValueError naming where
    it came from (``runtime_path``, ``CODEBLEU_TS_RUNTIME``, the per-user cache, the checkout)."""
    where, path = _find_runtime(path)
    key = str(path)
    with _LOCK:
        runtime = _RUNTIMES.get(key)
        if runtime is None:
            runtime = _RUNTIMES[key] = Runtime(path, where)
    return runtime


class GrammarLibrary:
    """A shared library of tree-sitter grammars (``tree_sitter_<lang>`` functions, ABI 9 to 12)."""

    def __init__(self, path: Path, runtime: Runtime, candidates):
        self.path = path
        self.name = path.name
        self.sha256 = file_sha256(path)
        self.runtime = runtime
        try:
            self._lib = ctypes.CDLL(str(path.resolve()))  # the file checked, not a search by its bare name
        except OSError as err:
            raise ValueError(
                f"`grammar_library`: {str(path)!r} is not a loadable shared library ({err})"
            ) from None
        self.languages = {}
        for lang in candidates:
            func = getattr(self._lib, f"tree_sitter_{lang}", None)
            if func is None:
                continue
            func.restype = ctypes.c_void_p
            func.argtypes = ()
            self.languages[lang] = func()
        self._parsers = {}
        self._grammars = {}
        self._local = threading.local()  # parse's and flatten's parsers, one per thread

    def parser(self, lang: str) -> "Parser":
        parser = self._parsers.get(lang)
        if parser is None:
            if lang not in self.languages:
                raise ValueError(
                    f"`grammar_library` {self.name} has no grammar for lang={lang!r} "
                    f"(it exports: {', '.join(sorted(self.languages)) or 'none of the known languages'})"
                )
            parser = self._parsers[lang] = Parser(self.runtime, self.languages[lang], f"{self.name}:{lang}")
        return parser

    # the tree-source interface of multimodal_metrics.codebleu.corpus (Snippet / corpus_codebleu ``trees=``)
    def parse(self, lang: str, data: bytes) -> "Node":
        return self._thread_parser(lang).parse(data).root_node

    def _thread_parser(self, lang: str) -> "Parser":
        """This thread's parser of ``lang`` (a parser is not thread-safe; computations may run in threads)."""
        parsers = getattr(self._local, "parsers", None)
        if parsers is None:
            parsers = self._local.parsers = {}
        parser = parsers.get(lang)
        if parser is None:
            self.parser(lang)  # the language check and its error
            parser = parsers[lang] = Parser(self.runtime, self.languages[lang], f"{self.name}:{lang}")
        return parser

    def subtree_ids(self, root: "Node", intern):
        """(ids, exact): see the module function ``subtree_ids``; with the walker compiled in, the ids are
        those of its table on ``intern`` (``legacy_walk.NativeIds``), so they compare with the walker's."""
        from . import legacy_walk

        table = legacy_walk.native_ids(intern, self.runtime)
        return subtree_ids(root, intern if table is None else table.intern)

    def flatten(self, lang: str, code: str, intern, full: bool = False):
        """The flat tree of ``code`` (``trees.FlatTree``) with its subtree ids and its data flow (``dataflow``:
        the items as ids, and whether the work limit was passed), from one call of the C walker
        (:mod:`multimodal_metrics.codebleu.legacy_walk`), all ids in its table on ``intern``. A tree deeper
        than ``MAX_RENDER_DEPTH`` is walked in Python (ids from ``subtree_ids``), and the data flow runs in
        Python where the walker leaves it (non-ASCII code, rule styles not ported, deep rule nesting); their
        ids go to the same table. None where the runtime has no walker or ``intern`` is not a
        ``trees.Interner``: the caller then takes the Python path with Python ids. ``full``: the tokens and
        flat nodes too (else left out, None, where the data flow was done in C)."""
        from . import legacy_walk

        table = legacy_walk.native_ids(intern, self.runtime)
        if table is None:
            return None
        parser = self._thread_parser(lang)
        grammar = self._grammars.get(lang)
        if grammar is None:
            grammar = self._grammars[lang] = legacy_walk.Grammar(self.runtime, self.languages[lang], lang)
        tree = legacy_walk.flatten(table, parser._ptr, grammar, code, MAX_RENDER_DEPTH, full)
        if tree is None:  # too deep for the printer's depth: the Python walk, with ids in the table
            from .trees import flatten_tree_sitter, new_interner

            root = self.parse(lang, code.encode("utf8"))
            tree = flatten_tree_sitter(
                root, code, grammar.special_types, new_interner(), first_types=grammar.first_types
            )
            tree.subtrees, exact = subtree_ids(root, table.intern)
            tree.unprinted = 0 if exact else max(1, tree.unprinted)
            tree.dataflow = None
        if tree.dataflow is None:
            from .dataflow import data_flow

            items, limited = data_flow(tree, lang)
            tree.dataflow = (list(map(table.intern_flow, items)), limited)
        return tree

    def label(self) -> str:
        """File name and the first 12 hex digits of its sha256, for the signature."""
        return f"{self.name}@{self.sha256[:12]}"


def open_library(path, candidates, runtime_path=None) -> GrammarLibrary:
    """Open (once per file content) a grammar library, loading the runtime first (``runtime_path``, else
    the one ``find_runtime`` finds); ``candidates`` are the language names looked up as
    ``tree_sitter_<name>``. A missing file is a ValueError naming ``grammar_library``; a missing runtime a
    RuntimeError saying how to build it."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"`grammar_library` must be a path to a tree-sitter shared library, got {path!r}")
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"`grammar_library`: no such file {str(path)!r}")
    runtime = load_runtime(runtime_path)
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns, tuple(candidates), str(runtime.path))
    with _LOCK:
        library = _LIBRARIES.get(key)
        if library is None:
            library = _LIBRARIES[key] = GrammarLibrary(path, runtime, candidates)
    return library


class Parser:
    """One language of a grammar library on the legacy runtime (not thread-safe, like tree-sitter's)."""

    def __init__(self, runtime: Runtime, language_ptr: int, label: str):
        self.rt = runtime
        version = runtime.language_version(language_ptr)
        if not MIN_ABI <= version <= MAX_ABI:
            raise ValueError(
                f"`grammar_library`: {label} has language ABI {version}; the runtime of 2020 reads {MIN_ABI} to "
                f"{MAX_ABI} (use the grammar wheels, without `grammar_library`, for newer grammars)"
            )
        self._ptr = runtime.parser_new()
        if not runtime.parser_set_language(self._ptr, language_ptr):
            raise ValueError(f"`grammar_library`: the runtime refused {label}")
        self._delete = runtime.parser_delete

    def parse(self, data: bytes) -> "Tree":
        if not isinstance(data, bytes):
            raise TypeError("Parser.parse takes bytes")
        tree = self.rt.parser_parse_string(self._ptr, None, data, len(data))
        if not tree:
            raise RuntimeError("tree-sitter 0.2.0 returned no tree")
        return Tree(self.rt, tree)

    def __del__(self):
        if getattr(self, "_ptr", None):
            self._delete(self._ptr)
            self._ptr = None


class Tree:
    __slots__ = ("rt", "_ptr", "_delete")

    def __init__(self, runtime: Runtime, ptr: int):
        self.rt = runtime
        self._ptr = ptr
        self._delete = runtime.tree_delete

    @property
    def root_node(self) -> "Node":
        return Node(self.rt.tree_root_node(self._ptr), self)

    def __del__(self):
        if self._ptr:
            self._delete(self._ptr)
            self._ptr = None


class Node:
    """A node of a legacy tree (keeps its tree alive). Attribute names follow py-tree-sitter."""

    __slots__ = ("raw", "owner")

    def __init__(self, raw: _TSNode, owner: Tree):
        self.raw = raw
        self.owner = owner

    type = property(lambda self: self.owner.rt.node_type(self.raw).decode("utf8"))
    is_named = property(lambda self: self.owner.rt.node_is_named(self.raw))
    is_missing = property(lambda self: self.owner.rt.node_is_missing(self.raw))
    has_error = property(lambda self: self.owner.rt.node_has_error(self.raw))
    start_byte = property(lambda self: self.raw.context[0])
    end_byte = property(lambda self: self.owner.rt.node_end_byte(self.raw))
    byte_range = property(lambda self: (self.raw.context[0], self.owner.rt.node_end_byte(self.raw)))
    start_point = property(lambda self: (self.raw.context[1], self.raw.context[2]))
    child_count = property(lambda self: self.owner.rt.node_child_count(self.raw))

    @property
    def end_point(self):
        p = self.owner.rt.node_end_point(self.raw)
        return p.row, p.column

    @property
    def children(self) -> list:
        cursor = self.walk()
        out = []
        if cursor.goto_first_child():
            out.append(cursor.node)
            while cursor.goto_next_sibling():
                out.append(cursor.node)
        return out

    def child_by_field_name(self, name: str):
        raw_name = name.encode("utf8")
        child = self.owner.rt.node_child_by_field_name(self.raw, raw_name, len(raw_name))
        if self.owner.rt.node_is_null(child):
            return None
        return Node(child, self.owner)

    def walk(self) -> "TreeCursor":
        return TreeCursor(self)

    def sexp(self) -> str:
        return self.owner.rt.node_text(self.raw)

    __str__ = sexp

    def __eq__(self, other):
        return isinstance(other, Node) and self.raw.id == other.raw.id and self.raw.tree == other.raw.tree

    def __hash__(self):
        return hash((self.raw.id, self.raw.tree))

    def __repr__(self):
        return f"<legacy Node type={self.type} start={self.start_point} end={self.end_point}>"


class TreeCursor:
    __slots__ = ("_cur", "_ref", "owner", "rt")

    def __init__(self, node: Node):
        self.owner = node.owner
        self.rt = node.owner.rt
        self._cur = self.rt.tree_cursor_new(node.raw)
        self._ref = ctypes.byref(self._cur)

    @property
    def node(self) -> Node:
        return Node(self.rt.tree_cursor_current_node(self._ref), self.owner)

    @property
    def field_name(self):
        name = self.rt.tree_cursor_current_field_name(self._ref)
        return None if name is None else name.decode("utf8")

    def goto_first_child(self) -> bool:
        return self.rt.tree_cursor_goto_first_child(self._ref)

    def goto_next_sibling(self) -> bool:
        return self.rt.tree_cursor_goto_next_sibling(self._ref)

    def goto_parent(self) -> bool:
        return self.rt.tree_cursor_goto_parent(self._ref)

    def __del__(self):
        if getattr(self, "_ref", None) is not None:
            self.rt.tree_cursor_delete(self._ref)
            self._ref = None


def printed_id(text: str, intern, groups=None) -> int:
    """The id of a printout of the core (``ts_node_string``): every parenthesised group becomes
    ``intern((head, (field, child id, field, child id, ...)))``, bottom-up, in one left-to-right pass
    (no recursion); a printout of several top-level items (the core's printout of an anonymous node)
    becomes ``intern(("SEQ", items))``. Two printouts get the same id exactly when they are the same
    string. Heads: the node type; ``("MISSING", name, named)`` for ``(MISSING name)`` /
    ``(MISSING "name")``; ``("UNEXPECTED", arg)`` for ``(UNEXPECTED 'c')``; ``("HIDDEN", name)`` for
    ``("name")``. ``groups``, when given, receives (head, id) of every group in pre-order."""
    n = len(text)
    stack = []  # [head, items, field, slot in groups]
    top = []
    field = None
    i = 0
    while i < n:
        c = text[i]
        if c == " ":
            i += 1
            continue
        if c == "(":
            leaf = True
            if text.startswith("(MISSING ", i):
                j = i + 9
                if text.startswith('"', j):
                    k = text.index('")', j + 2)  # the quoted name is not empty; it may hold quotes or parens
                    head, i = ("MISSING", text[j + 1 : k], False), k + 2
                else:
                    k = text.index(")", j)
                    head, i = ("MISSING", text[j:k], True), k + 1
            elif text.startswith("(UNEXPECTED ", i):
                j = i + 12
                if text.startswith("'", j):  # 'c' or an escape such as '\n' (a backslash itself is '\')
                    k = j + 3 if text[j + 1] == "\\" and text[j + 2] != "'" else j + 2
                    head, i = ("UNEXPECTED", text[j : k + 1]), k + 2
                else:  # a code point number, or INVALID
                    k = text.index(")", j)
                    head, i = ("UNEXPECTED", text[j:k]), k + 1
            elif text.startswith('("', i):
                k = text.index('")', i + 3)
                head, i = ("HIDDEN", text[i + 2 : k]), k + 2
            else:
                k = i + 1
                while k < n and text[k] not in " ()":
                    k += 1
                head, i, leaf = text[i + 1 : k], k, False
            if leaf:
                ident = intern((head, ()))
                if groups is not None:
                    groups.append((head, ident))
                (stack[-1][1] if stack else top).extend((field, ident))
                field = None
                continue
            slot = -1
            if groups is not None:
                slot = len(groups)
                groups.append(None)
            stack.append([head, [], field, slot])
            field = None
            continue
        if c == ")":
            head, items, own_field, slot = stack.pop()
            ident = intern((head, tuple(items)))
            if slot >= 0:
                groups[slot] = (head, ident)
            (stack[-1][1] if stack else top).extend((own_field, ident))
            i += 1
            continue
        k = text.index(":", i)  # a field name
        field = text[i:k]
        i = k + 1
    while stack:  # not expected from the core; closed so that no input raises
        head, items, own_field, slot = stack.pop()
        ident = intern(("UNCLOSED", head, tuple(items)))
        (stack[-1][1] if stack else top).extend((own_field, ident))
    if len(top) == 2 and top[0] is None:
        return top[1]
    return intern(("SEQ", tuple(top)))


def subtree_ids(root: Node, intern):
    """Ids (``printed_id``'s scheme) of the root and of every node with children, pre-order: the list
    that CodeXGLUE's ``get_all_sub_trees`` compares as ``node.sexp()`` strings, in linear time.

    The core prints the whole tree once; that printout is read back group by group and its groups are
    matched, in pre-order, with the nodes of one cursor walk (the node API does not show hidden tokens
    such as python's ``(MISSING _newline)``, which the printout holds). A node printed differently on its
    own than inside its parent (an aliased node: the core then prints its own symbol; an anonymous node
    with children) is printed on its own. Returns (ids, exact): trees deeper than ``MAX_RENDER_DEPTH``
    are not printed (the core's printer recurses once per level), their ids are assembled from the node
    API alone and ``exact`` is False.
    """
    rt = root.owner.rt
    node_type, is_named, is_missing, child_count = (
        rt.node_type,
        rt.node_is_named,
        rt.node_is_missing,
        rt.node_child_count,
    )
    cursor = root.walk()
    ref = cursor._ref
    current, field_of = rt.tree_cursor_current_node, rt.tree_cursor_current_field_name
    first_child, next_sibling, parent = (
        rt.tree_cursor_goto_first_child,
        rt.tree_cursor_goto_next_sibling,
        rt.tree_cursor_goto_parent,
    )
    printed = []  # (type, missing) of the printed nodes (named or missing), pre-order
    wanted = []  # per node with children, pre-order: index into `printed`, or the raw node to print alone
    # API-only assembly, used when the tree is too deep to print: frames [head, items, field, slot]
    api_ids = []
    frames = []
    depth = max_depth = 0
    while True:
        raw = current(ref)
        kind = node_type(raw).decode("utf8")
        count = child_count(raw)
        named = is_named(raw)
        missing = is_missing(raw)
        field = field_of(ref)
        field = field.decode("utf8") if field is not None else None
        if named or missing:
            printed.append((kind, missing))
        if count:
            wanted.append(len(printed) - 1 if named and raw.context[3] == 0 else raw)
            api_ids.append(None)
            frames.append([kind if named else ("ANONYMOUS", kind), [], field, len(api_ids) - 1, named])
            depth += 1
            max_depth = max(max_depth, depth)
            first_child(ref)
            continue
        if frames and (named or missing):
            if kind == "ERROR" or missing:
                ident = printed_id(rt.node_text(raw), intern)  # (UNEXPECTED 'c'), (ERROR), (MISSING ";")
            else:
                ident = intern((kind, ()))
            frames[-1][1].extend((field, ident))
        done = not frames
        while not done and not next_sibling(ref):
            head, items, own_field, slot, own_named = frames.pop()
            depth -= 1
            ident = intern((head, tuple(items)))
            api_ids[slot] = ident
            parent(ref)
            if frames:
                if own_named:
                    frames[-1][1].extend((own_field, ident))
                else:  # an anonymous node's children are printed in its parent
                    frames[-1][1].extend(items)
            else:
                done = True
        if done:
            break
    if max_depth > MAX_RENDER_DEPTH:
        return api_ids, False
    groups = []
    whole = printed_id(rt.node_text(root.raw), intern, groups)
    if not wanted:  # a root without children is a subtree all the same
        return [whole], True
    # match the printed nodes with the printout's groups (extra groups: hidden MISSING tokens)
    at = []
    g = 0
    try:
        for kind, missing in printed:
            while True:
                head = groups[g][0]
                if missing:
                    ok = isinstance(head, tuple) and head[0] == "MISSING" and head[1] == kind
                elif kind == "ERROR":
                    ok = head == "ERROR" or (isinstance(head, tuple) and head[0] == "UNEXPECTED")
                else:
                    ok = head == kind
                if ok:
                    break
                if not (isinstance(head, tuple) and head[0] == "MISSING"):
                    raise LookupError(head)
                g += 1
            at.append(groups[g][1])
            g += 1
    except (IndexError, LookupError):  # not expected: every subtree printed by the core on its own
        return [printed_id(text, intern) for text in _core_rendered(root)], True
    ids = [at[w] if w.__class__ is int else printed_id(rt.node_text(w), intern) for w in wanted]
    ids[0] = whole
    return ids, True


def _core_rendered(root: Node) -> list:
    """Every subtree printed by the core itself (py-tree-sitter 0.2.0's ``node.sexp()``), pre-order;
    the root is always one (with or without children)."""
    rt = root.owner.rt
    cursor = root.walk()
    ref = cursor._ref
    out = []
    while True:
        raw = rt.tree_cursor_current_node(ref)
        if rt.node_child_count(raw):
            out.append(rt.node_text(raw))
            rt.tree_cursor_goto_first_child(ref)
            continue
        while not rt.tree_cursor_goto_next_sibling(ref):
            if not rt.tree_cursor_goto_parent(ref):
                return out or [rt.node_text(root.raw)]
