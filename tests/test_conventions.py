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

from multimodal_metrics.examples import FOLDER as EXAMPLES

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
FRONT_MATTER_KEYS = [
    "title",
    "emoji",
    "colorFrom",
    "colorTo",
    "sdk",
    "sdk_version",
    "app_file",
    "tags",
    "description",
]


def test_there_are_metrics():
    assert "anls" in NAMES


SPACE_FILES = {"README.md", "app.py", "requirements.txt", "packages.txt"}


@pytest.mark.parametrize("name", NAMES)
def test_folder_holds_only_the_space_files(name):
    """A metric folder is exactly what goes to the Hub: the thin script, its card, demo and requirements
    (no helper copies: the code lives once, in the library)."""
    folder = METRICS / name
    for file in (f"{name}.py", "README.md", "app.py", "requirements.txt"):
        assert (folder / file).is_file(), f"metrics/{name}/{file} is missing"
    extra = {p.name for p in folder.iterdir() if p.name != "__pycache__"} - SPACE_FILES - {f"{name}.py"}
    assert not extra, f"metrics/{name} holds {sorted(extra)}: shared code belongs in src/multimodal_metrics"
    for path in (
        ROOT / "tests" / f"test_{name}.py",
        ROOT / "benchmarks" / f"bench_{name}.py",
        EXAMPLES / f"{name}.json",
    ):
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
        assert re.search(rf"^#+ .*{re.escape(section)}", text, re.M | re.I), (
            f"card lacks a '{section}' section"
        )


@pytest.mark.parametrize("name", NAMES)
def test_requirements_are_pinned(name):
    lines = [ln.strip() for ln in (METRICS / name / "requirements.txt").read_text().splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    options = [ln for ln in lines if ln.startswith("--")]  # pip options: only the index of torch's CPU build
    assert options in ([], ["--extra-index-url https://download.pytorch.org/whl/cpu"]), options
    lines = [ln for ln in lines if not ln.startswith("--")]
    assert any(re.match(r"multimodal-metrics\[[a-z,]+\]==", ln) for ln in lines), (
        "the library, with its extras"
    )
    assert any(ln.startswith("evaluate==") for ln in lines)
    assert any(ln.startswith("gradio==") for ln in lines)
    assert all("==" in ln for ln in lines), "pin every requirement"


def _imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]


def _code_lines(path) -> int:
    """Lines of a script outside its docstrings and string constants (what it does, not what it says)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    text_lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) or isinstance(node, ast.JoinedStr):
            text_lines.update(range(node.lineno, node.end_lineno + 1))
    lines = path.read_text(encoding="utf-8").splitlines()
    return sum(
        1
        for i, line in enumerate(lines, 1)
        if line.strip() and not line.strip().startswith("#") and i not in text_lines
    )


@pytest.mark.parametrize("name", NAMES)
def test_main_script_is_a_thin_wrapper_over_the_library(name):
    """The script imports evaluate and the library (one top-level import with the `# From:` pin and the
    extras the module needs, quoted, so evaluate's loader names a pip command that works when pasted in
    any shell when the library is missing; tests/test_release_hub.py runs it), pins the library version it was
    written for, and holds no scoring or option logic: tens of lines of code besides its docs."""
    import multimodal_metrics

    script = METRICS / name / f"{name}.py"
    source = script.read_text(encoding="utf-8")
    imported = sorted(alias.name for node in _imports(script) for alias in node.names)
    assert imported == ["evaluate", "multimodal_metrics"], f"{name}.py imports {imported}"
    pins = re.findall(
        r'^import multimodal_metrics  # From: "multimodal-metrics\[[a-z,]+\]==(\S+)"$', source, re.M
    )
    assert pins == [multimodal_metrics.__version__], (
        f'{name}.py: pin the library with `# From: "multimodal-metrics[<extras>]==<version>"`'
    )
    assert all(f'require("{pins[0]}"' in line for line in source.splitlines() if "require(" in line)
    assert "from ." not in source and "import ." not in source, (
        "no relative imports: helpers live in the library"
    )
    assert _code_lines(script) <= 60, (
        f"{name}.py has {_code_lines(script)} lines of code: move logic into the library"
    )
    assert "library = " in source


def test_a_script_refuses_a_library_that_does_not_fit():
    """``multimodal_metrics.require`` names the exact pip command when the installed version does not fit."""
    import multimodal_metrics

    assert (
        multimodal_metrics.require(multimodal_metrics.__version__, "anls").__name__
        == "multimodal_metrics.anls"
    )
    for other in ("0.2.0", "9.9.9", "0.1.99"):
        with pytest.raises(ImportError, match=rf"pip install multimodal-metrics=={re.escape(other)}"):
            multimodal_metrics.require(other, "anls")


def test_no_source_file_is_over_800_lines():
    files = [
        *(ROOT / "src").rglob("*.py"),
        *METRICS.rglob("*.py"),
        *(ROOT / "scripts").glob("*.py"),
        *(ROOT / "benchmarks").glob("*.py"),
        *(ROOT / "tests").rglob("*.py"),
    ]
    long = {
        str(p.relative_to(ROOT)): n
        for p in files
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800
    }
    assert not long, f"split these files by concern: {long}"


@pytest.mark.parametrize("name", NAMES)
def test_module_loads_with_evaluate_and_is_named_after_its_folder(name):
    metric = load_metric(name)
    assert metric.name == name
    # an unknown option is refused by compute itself (options checked first), never passed on silently
    with pytest.raises(ValueError, match="unknown option 'no_such_option'"):
        metric.compute(predictions=[], references=[], no_such_option=1)


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
    assert out.stdout.strip() == "", (
        f"evaluate.load imported {out.stdout.strip()} (import it inside functions)"
    )


@pytest.mark.parametrize("name", NAMES)
def test_module_offers_the_trainer_result_shape(name):
    """Every module inherits multimodal_metrics.hf.TrainerResults: compute(..., for_trainer=True) for Trainer."""
    metric = load_metric(name)
    assert "TrainerResults" in [cls.__name__ for cls in type(metric).__mro__], (
        f"{name}: inherit TrainerResults first (class X(TrainerResults, evaluate.Metric)) or TextPairInputs"
    )
