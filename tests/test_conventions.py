"""Cross-cutting checks: every metric folder follows shared/CONVENTIONS.md and docs/module_pattern.md."""

import ast
import doctest
import inspect
import os
import re
import subprocess
import sys

import pytest
from helpers import METRICS, ROOT, load_metric, metric_names

NAMES = metric_names()
CARD_SECTIONS = [
    "Metric Description",
    "How to Use",
    "Inputs",
    "Output Values",
    "Presets",
    "Examples",
    "Differences from the reference",
    "Limitations and Bias",
    "Citation",
]
FRONT_MATTER_KEYS = ["title", "emoji", "colorFrom", "colorTo", "sdk", "sdk_version", "app_file", "tags", "description"]


def test_there_are_metrics():
    assert "anls" in NAMES


def test_shared_helpers_are_identical_copies():
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "sync_common.py"), "--check"], capture_output=True, text=True
    )
    assert out.returncode == 0, f"copies drifted from scripts/common (run scripts/sync_common.py):\n{out.stdout}"


@pytest.mark.parametrize("name", NAMES)
def test_optional_shared_helpers_are_where_the_main_script_imports_them(name):
    """_mm_common/_mm_demo/_mm_stats go everywhere; another scripts/common/_mm_*.py (e.g. _mm_wordnet)
    only into the folders whose main script imports it (scripts/sync_common.py)."""
    folder = METRICS / name
    source = (folder / f"{name}.py").read_text(encoding="utf-8")
    for canonical in sorted((ROOT / "scripts" / "common").glob("_mm_*.py")):
        imported = f"from .{canonical.stem} import" in source
        every = canonical.name in ("_mm_common.py", "_mm_demo.py", "_mm_stats.py")
        assert (folder / canonical.name).is_file() == (every or imported), f"{name}: {canonical.name}"


@pytest.mark.parametrize("name", NAMES)
def test_folder_has_the_space_files(name):
    folder = METRICS / name
    for file in (f"{name}.py", "README.md", "app.py", "requirements.txt", "_mm_common.py", "_mm_demo.py"):
        assert (folder / file).is_file(), f"metrics/{name}/{file} is missing"
    for path in (ROOT / "tests" / f"test_{name}.py", ROOT / "scripts" / f"bench_{name}.py", ROOT / "examples" / f"{name}.json"):
        assert path.is_file(), f"{path.relative_to(ROOT)} is missing"


@pytest.mark.parametrize("name", NAMES)
def test_card_front_matter_and_sections(name):
    text = (METRICS / name / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n"), "the card needs YAML front matter"
    front = text[4 : text.index("\n---", 4)]
    for key in FRONT_MATTER_KEYS:
        assert re.search(rf"^{key}:", front, re.M), f"front matter lacks {key}"
    assert "sdk_version: 6.31.0" in front
    for section in CARD_SECTIONS:
        assert re.search(rf"^#+ .*{re.escape(section)}", text, re.M | re.I), f"card lacks a '{section}' section"


@pytest.mark.parametrize("name", NAMES)
def test_requirements_are_pinned(name):
    lines = [ln.strip() for ln in (METRICS / name / "requirements.txt").read_text().splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    options = [ln for ln in lines if ln.startswith("--")]  # pip options: only the index of torch's CPU build
    assert options in ([], ["--extra-index-url https://download.pytorch.org/whl/cpu"]), options
    lines = [ln for ln in lines if not ln.startswith("--")]
    assert any(re.match(r"multimodal-metrics\[[a-z,]+\]==", ln) for ln in lines), "the library, with its extras"
    assert any(ln.startswith("evaluate==") for ln in lines)
    assert any(ln.startswith("gradio==") for ln in lines)
    assert all("==" in ln for ln in lines), "pin every requirement"


def _imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]


@pytest.mark.parametrize("name", NAMES)
def test_main_script_follows_the_loader_rules_and_the_shared_conventions(name):
    script = METRICS / name / f"{name}.py"
    source = script.read_text(encoding="utf-8")
    # relative imports: column 0, `from ._x import ...`, no trailing comment (evaluate's loader)
    for line in source.splitlines():
        if line.startswith("from .") or line.startswith("import ."):
            assert re.match(r"^from \._\w+ import [\w, (]+$", line), f"bad relative import line: {line!r}"
        assert not re.match(r"^import \w+\s*,", line), f"one import per line: {line!r}"
    relative = {node.module for node in _imports(script) if isinstance(node, ast.ImportFrom) and node.level == 1}
    assert "_mm_common" in relative
    for helper in relative:
        assert (METRICS / name / f"{helper}.py").is_file()
    # the shared conventions are used, not re-implemented
    for fn in ("check_preset(", "resolve_options(", "build_signature(", "make_result("):
        assert fn in source, f"{name}.py does not call {fn[:-1]}"
    assert "PRESETS" in source and '"default"' in source


@pytest.mark.parametrize("name", NAMES)
def test_helpers_do_not_import_helpers(name):
    for helper in (METRICS / name).glob("_*.py"):
        for node in _imports(helper):
            assert not (isinstance(node, ast.ImportFrom) and node.level), f"{helper.name} imports a sibling"
        text = helper.read_text(encoding="utf-8")
        assert "from ." not in text, f"{helper.name} has a relative import"


@pytest.mark.parametrize("name", NAMES)
def test_module_loads_with_evaluate_and_is_named_after_its_folder(name):
    metric = load_metric(name)
    assert metric.name == name
    assert "kwargs" not in str(inspect.signature(metric._compute)).replace("return_per_example", "")
    assert "return_per_example" in inspect.signature(metric._compute).parameters


@pytest.mark.parametrize("name", NAMES)
def test_docstring_examples_pass(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    module = inspect.getmodule(type(load_metric(name)))
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    attempted = 0
    for test in finder.find(module, globs={"evaluate": __import__("evaluate")}):
        runner.run(test)
        attempted += len(test.examples)
    assert attempted >= 2, "the kwargs description needs runnable examples"
    assert runner.failures == 0


@pytest.mark.parametrize("name", NAMES)
def test_loading_imports_no_optional_heavy_library(name):
    code = (
        "import sys, evaluate\n"
        f"evaluate.load({str(METRICS / name)!r})\n"
        "heavy = [m for m in ('tree_sitter', 'pymorphy3', 'nltk', 'gradio') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy())
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "", f"evaluate.load imported {out.stdout.strip()} (import it inside functions)"


@pytest.mark.parametrize("name", NAMES)
def test_module_offers_the_trainer_result_shape(name):
    """Every module inherits _mm_common.TrainerResults: compute(..., for_trainer=True) for Trainer."""
    metric = load_metric(name)
    assert "TrainerResults" in [cls.__name__ for cls in type(metric).__mro__], (
        f"{name}: inherit TrainerResults first (class X(TrainerResults, evaluate.Metric)) or TextPairInputs"
    )
