"""codebleu's C walker for the grammar wheels (``wheels_walk.c``): the `pypi` preset's trees in one C call per
snippet, as the 2020 grammars' are (:mod:`multimodal_metrics.codebleu.legacy_walk`).

The walker is compiled by :mod:`multimodal_metrics.codebleu.build_runtime` in one unit with the C core of the
tree-sitter release the Python binding bundles (``WALKER_TS_VERSION``, from the PyPI sdist, sha256 pinned) into
``WALKER_FILE``, beside the runtime of 2020 (the per-user cache or the checkout's ``.build/legacy_ts``). It
parses with the grammar wheels' own languages (their ``language()`` capsules) and walks in C: the tokens and
flat nodes of :func:`multimodal_metrics.codebleu.trees.flatten_tree_sitter`, its subtree ids (interned in the
computation's C table, ``legacy_walk.NativeIds``) and the data flow (python and java rules, ASCII code; else
the Python data flow on the flat nodes, its items interned in the same table): the numbers of the Python path,
bit for bit (tests/test_codebleu_wheels_walk.py). Where the walker is not built, or the installed binding is
another tree-sitter release, the Python path runs (:func:`walker`: None).

Only the standard library is imported here (ctypes); the grammar wheels when a language is first used.
"""

import ctypes
import threading
from pathlib import Path

WALKER_TS_VERSION = "0.26.1"  # the core compiled in: the binding's own release (the same parses)
WALKER_FILE = f"libcodebleu-wheels-{WALKER_TS_VERSION}.so"
_EXTRA = {
    "ts_parser_new": (ctypes.c_void_p, ()),
    "ts_parser_delete": (None, (ctypes.c_void_p,)),
    "ts_parser_set_language": (ctypes.c_bool, (ctypes.c_void_p, ctypes.c_void_p)),
}
_NO_LIMIT = 0xFFFFFFFF  # mm_walk's depth limit, unused by this walker (its walks are iterative)
_WALKERS = {}
_LOCK = threading.Lock()


def candidates() -> list:
    """Where the walker is looked for, in order: beside the runtime of 2020 in the per-user cache, then in the
    checkout's ``.build/legacy_ts`` (the working directory is never searched)."""
    from .legacy_runtime import cache_dir, checkout_dir

    return [folder / WALKER_FILE for folder in (cache_dir(), checkout_dir()) if folder is not None]


def _binding_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tree-sitter")
    except PackageNotFoundError:
        return None


def walker() -> "WheelsWalker | None":
    """The walker (loaded once per process), or None: not built, not loadable, or the installed tree-sitter
    binding is not ``WALKER_TS_VERSION`` (its parses could differ from the compiled core's)."""
    with _LOCK:
        if "walker" not in _WALKERS:
            found = None
            if _binding_version() == WALKER_TS_VERSION:
                for path in candidates():
                    if path.is_file():
                        try:
                            found = WheelsWalker(path.resolve())
                        except OSError:
                            found = None
                        break
            _WALKERS["walker"] = found
        return _WALKERS["walker"]


class WheelsWalker:
    """The loaded ``WALKER_FILE``: legacy_walk's functions (``mm_walk`` parses with the grammar wheels) and the
    parser functions of the core compiled in. ``walker`` is True (what ``legacy_walk.native_ids`` asks)."""

    def __init__(self, path: Path):
        from . import legacy_walk

        lib = ctypes.CDLL(str(path))
        for name, (restype, argtypes) in {**legacy_walk.SIGNATURES, **_EXTRA}.items():
            func = getattr(lib, name)
            func.restype, func.argtypes = restype, argtypes
            setattr(self, name, func)
        self._lib = lib
        self.path = path
        self.walker = True
        self._grammars = {}
        self._local = threading.local()

    def language(self, lang: str) -> int:
        """The ``TSLanguage *`` of the grammar wheel of ``lang`` (its capsule, kept alive by its module)."""
        import importlib

        from .trees import GRAMMAR_MODULES

        module_name, attr = GRAMMAR_MODULES[lang]
        capsule = getattr(importlib.import_module(module_name), attr)()
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, (ctypes.py_object, ctypes.c_char_p)
        return get(capsule, b"tree_sitter.Language")

    def _parser(self, lang: str) -> int:
        """This thread's parser of ``lang`` (a parser is not thread-safe), with the grammar's data."""
        parsers = getattr(self._local, "parsers", None)
        if parsers is None:
            parsers = self._local.parsers = {}
        parser = parsers.get(lang)
        if parser is None:
            from . import legacy_walk

            language = self.language(lang)
            grammar = self._grammars.get(lang)
            if grammar is None:
                grammar = self._grammars[lang] = legacy_walk.Grammar(self, language, lang)
            ptr = self.ts_parser_new()
            if not ptr or not self.ts_parser_set_language(ptr, language):
                raise RuntimeError(
                    f"codebleu: the {lang} grammar wheel does not load into tree-sitter {WALKER_TS_VERSION}"
                )
            parser = parsers[lang] = _Parser(self, ptr, grammar)
        return parser

    # the tree-source interface of multimodal_metrics.codebleu.corpus (Snippet / corpus_codebleu ``trees=``)
    def flatten(self, lang: str, code: str, intern, full: bool = False):
        """The flat tree of ``code`` (``trees.FlatTree``) with its subtree ids and data flow (``dataflow``: ids of
        the C table on ``intern``) from one call of the walker; the data flow in Python where the walker leaves
        it, its items interned in the same table. None where ``intern`` is not a ``trees.Interner`` (the
        caller then takes the Python path with Python ids)."""
        from . import legacy_walk

        table = legacy_walk.native_ids(intern, self)
        if table is None:
            return None
        parser = self._parser(lang)
        tree = legacy_walk.flatten(table, parser.ptr, parser.grammar, code, _NO_LIMIT, full)
        if tree is None:  # not expected: this walker declines no tree
            raise RuntimeError("codebleu: the grammar wheels' walker declined a tree")
        tree.unprinted = table.out.unprinted
        if tree.dataflow is None:
            from .dataflow import data_flow

            items, limited = data_flow(tree, lang)
            tree.dataflow = (list(map(table.intern_flow, items)), limited)
        return tree


class _Parser:
    __slots__ = ("walker", "ptr", "grammar")

    def __init__(self, walker, ptr, grammar):
        self.walker, self.ptr, self.grammar = walker, ptr, grammar

    def __del__(self):
        if self.ptr:
            self.walker.ts_parser_delete(self.ptr)
            self.ptr = None
