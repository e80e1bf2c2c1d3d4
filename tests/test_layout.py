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
