"""The library's module layout: no private name crosses a module, and ``core.py`` means the formula.

A name that another module of the library imports is public (no leading underscore); a module keeps
its private helpers to itself (its own tests may read them). Where a metric has a ``core.py``, it holds
the metric's formula as code of its own, not re-exports of the modules beside it.
"""

import ast
from pathlib import Path

import pytest
from helpers import ROOT

from multimodal_metrics import METRICS

SRC = ROOT / "src" / "multimodal_metrics"
PACKAGE = "multimodal_metrics"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _library_import(node: ast.ImportFrom) -> bool:
    return node.level > 0 or (node.module or "").split(".")[0] == PACKAGE


def private_imports(path: Path) -> list[str]:
    """``file:line name`` of every private name ``path`` imports from the library, or reads as an attribute
    of a library module it imported (``from . import trees`` then ``trees._helper``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _library_import(node):
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"{where}:{node.lineno} {alias.name}")
                modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    modules.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            if _private(node.attr):
                found.append(f"{where}:{node.lineno} {node.value.id}.{node.attr}")
    return found


def test_no_private_name_is_imported_across_modules():
    found = [hit for path in sorted(SRC.rglob("*.py")) for hit in private_imports(path)]
    assert found == [], "make these names public, or move the code that needs them:\n" + "\n".join(found)


def test_the_check_finds_a_private_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from .options import _hidden\nfrom . import stats\nstats._chunks(1, 2)\n", encoding="utf-8"
    )
    assert [hit.split(" ")[1] for hit in private_imports(sample)] == ["_hidden", "stats._chunks"]


@pytest.mark.parametrize("metric", [m for m in METRICS if (SRC / m / "core.py").exists()])
def test_core_holds_the_formula(metric):
    """``core.py`` defines the metric's functions itself: it is not a module of re-exports."""
    tree = ast.parse((SRC / metric / "core.py").read_text(encoding="utf-8"))
    defined = [node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)]
    assert len(defined) >= 3, f"{metric}/core.py defines {defined}"
    assert not any(
        isinstance(node, ast.Assign) and node.targets[0].id == "__all__"
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    )


def test_no_module_of_the_old_layout_is_named():
    """Tests and benchmarks import the library's modules by their names, not the folder files they once were."""
    old = ("_det_f1_core", "_codebleu_core", "codebleu.core", "codebleu import core")
    hits = [
        f"{path.relative_to(ROOT)}: {name}"
        for folder in ("tests", "benchmarks", "scripts")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for name in old
        if name in path.read_text(encoding="utf-8") and path.name != "test_layout.py"
    ]
    assert hits == []


def library_imports(path: Path, module: str, modules: set[str]) -> set[str]:
    """The library modules that ``path`` (the module ``module``) imports anywhere in its code, at its top or
    inside a function (an import made late to dodge a circle still counts)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                name = f"{base}.{alias.name}"
                found.add(name if name in modules else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return (found & modules) - {module}


def import_circles(root: Path) -> list[list[str]]:
    """The circles of imports among the modules under ``root`` (a package): each strongly connected set of
    two or more modules, sorted."""
    paths = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {m: library_imports(p, m, set(paths)) for m, p in paths.items()}
    reach = {}
    for start in graph:  # every module reachable from `start`
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        reach[start] = seen
    circles = {tuple(sorted(m for m in graph if m == s or (m in reach[s] and s in reach[m]))) for s in graph}
    return sorted(list(c) for c in circles if len(c) > 1)


def test_the_layers_read_top_to_bottom():
    """No two modules of the library import each other, directly or through others: each layer imports only
    those below it (options < inputs < stats < state; fid_clip's moments < core)."""
    assert import_circles(SRC) == []


def test_the_check_finds_an_import_circle(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import X\n")
    (package / "b.py").write_text("def f():\n    from .sub.c import Y\n")  # a late import counts
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "c.py").write_text("from .. import a\n")
    (package / "d.py").write_text("from .a import Z\n")  # imports the circle, is not in it
    assert import_circles(package) == [["pkg.a", "pkg.b", "pkg.sub.c"]]
