"""The user documentation (README.md, the cards metrics/*/README.md, docs/*.md) says what the code does.

* the preset lists (the README's metrics table, each card's presets table) are exactly each metric's
  ``PRESETS``;
* the README opens with "Install", whose extras table names every extra of setup.cfg, and each of its
  claims holds: the extras it names for a metric and preset are enough to score that metric's example
  with every other optional package blocked, and none of them can be left out;
* every card is a readable metric card: under 250 lines, one speed table with the command that
  measures it, its runnable examples run (``>>>`` lines as doctests; a python block that starts with
  ``import evaluate`` or ``from multimodal_metrics import``, as a script), and nothing a reader cannot follow (issue numbers, internal files, rounds);
* the main job (scripts/run_examples.py) prints no Python warning.
"""

import configparser
import doctest
import importlib
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
from helpers import METRICS, ROOT, metric_names

NAMES = metric_names()
README = (ROOT / "README.md").read_text(encoding="utf-8")
CARD_LINES = 250


def card(name: str) -> str:
    return (METRICS / name / "README.md").read_text(encoding="utf-8")


def section(text: str, title: str) -> str:
    """The body of the first ``#``-heading titled ``title`` (any level), up to the next heading of the
    same or a higher level; code blocks are skipped when looking for headings."""
    lines, out, level = text.splitlines(), [], None
    fenced = False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"(#+) (.*)", line)
        if level is None:
            if heading and heading[2].strip() == title:
                level = len(heading[1])
            continue
        if heading and len(heading[1]) <= level:
            break
        out.append(line)
    assert level is not None, f"no section titled {title!r}"
    return "\n".join(out)


def tables(text: str) -> list[list[list[str]]]:
    """The markdown tables of ``text``: each a list of rows (header first, separator dropped), each a
    list of cell texts."""
    found, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                current.append(cells)
        elif current:
            found.append(current)
            current = []
    return found


def ticked(cell: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", cell))


def presets_of(name: str) -> set[str]:
    return set(importlib.import_module(f"multimodal_metrics.{name}").PRESETS)


# ------------------------------------------------------------------------------------------------
# preset lists come from PRESETS
# ------------------------------------------------------------------------------------------------
def test_readme_metrics_table_lists_exactly_each_metrics_presets():
    table = tables(section(README, "The metrics"))[0]
    header, rows = table[0], table[1:]
    column = next(i for i, h in enumerate(header) if h.startswith("presets"))
    listed = {}
    for row in rows:
        (name,) = re.findall(r"\[`(\w+)`\]\(metrics/\w+/README\.md\)", row[0])
        listed[name] = ticked(row[column])
    assert sorted(listed) == NAMES
    for name in NAMES:
        assert listed[name] == presets_of(name), name


@pytest.mark.parametrize("name", NAMES)
def test_card_presets_table_lists_exactly_the_presets(name):
    table = tables(section(card(name), "Presets"))[0]
    assert table[0][0].startswith("preset"), table[0]
    assert set().union(*(ticked(row[0]) for row in table[1:])) == presets_of(name)


# ------------------------------------------------------------------------------------------------
# the cards read as documentation
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_card_is_a_readable_length(name):
    assert len(card(name).splitlines()) < CARD_LINES


@pytest.mark.parametrize("name", NAMES)
def test_card_speed_section_is_one_table_with_its_command(name):
    speed = section(card(name), "Speed")
    assert len(tables(speed)) == 1, "one table of the current figures"
    assert re.search(r"benchmarks/bench_\w+\.py", speed), "the command that measures them"


# What a reader cannot follow: this project's issue numbers, internal files and rounds of work. Public
# sources are named by repository and file (a public repository's own issue is `owner/repo#N`).
UNFOLLOWABLE = [
    r"\bissues? \d+",
    r"seeds?_reference",
    r"\bseeds? 0\d\d\b",
    r"\bshared/",
    r"\b(?:first|second|third|last) round\b",
    r"\bcommit [0-9a-f]{7,40}\b",
    r"\bmain at [0-9a-f]{7}",
]
DOCS = [ROOT / "README.md", *sorted(METRICS.glob("*/README.md")), *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", DOCS, ids=[str(p.relative_to(ROOT)) for p in DOCS])
def test_documentation_names_only_what_a_reader_can_follow(path):
    text = path.read_text(encoding="utf-8")
    found = [m.group(0) for pattern in UNFOLLOWABLE for m in re.finditer(pattern, text, re.I)]
    assert not found, found


def _code_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, re.S)


def _runnable(name: str) -> list[str]:
    """The card's python blocks that run as written, with the Hub ids turned into the repository folders."""
    blocks = [re.sub(r"multimodal-metrics/(\w+)", r"metrics/\1", b) for b in _code_blocks(card(name))]
    return [
        b
        for b in blocks
        if ">>> " in b or re.match(r"(?:import evaluate|from multimodal_metrics import)\b", b)
    ]


@pytest.mark.parametrize("name", NAMES)
def test_card_examples_run(name, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    blocks = _runnable(name)
    assert any(">>> " in b for b in blocks), "the Examples section needs a runnable >>> example"
    assert any(">>> " not in b for b in blocks), "How to Use needs a block that runs as written"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for i, block in enumerate(blocks):
        if ">>> " in block:
            test = doctest.DocTestParser().get_doctest(block, {}, f"{name}[{i}]", str(METRICS / name), 0)
            runner.run(test)
        else:
            exec(compile(block, f"<{name} card, block {i}>", "exec"), {"__name__": "__card__"})
    assert runner.failures == 0, capsys.readouterr().out[-3000:]


# ------------------------------------------------------------------------------------------------
# Install: first, complete, and true
# ------------------------------------------------------------------------------------------------
def _extras_of_setup_cfg() -> set[str]:
    config = configparser.ConfigParser(interpolation=None)
    config.read(ROOT / "setup.cfg")
    return set(config["options.extras_require"]) - {"test"}


def test_install_is_the_first_section_and_names_every_extra():
    assert re.findall(r"^## (.*)", README, re.M)[0] == "Install"
    install = section(README, "Install")
    for extra in _extras_of_setup_cfg():
        assert f"[{extra}]" in install or f"{extra}]" in install, extra
    assert "TORCH_INDEX_URL" in install and "download.pytorch.org/whl/cpu" in install
    assert "PyPI" in install and "multimodal-metrics/<name>" in install
    metrics = {m for row in tables(install)[0][1:] for m in ticked(row[0])}
    assert set(NAMES) <= metrics


def _install_rows() -> list[tuple[str, set[str], set[str]]]:
    """(metric, presets named in the row, extras) of the README's extras table."""
    rows = []
    for row in tables(section(README, "Install"))[0][1:]:
        for name in ticked(row[0]) & set(NAMES):
            extras = set(re.findall(r"\[([a-z,]+)\]", row[2]))
            presets = presets_of(name) if "every preset" in row[1] else ticked(row[1])
            rows.append((name, presets, {e for group in extras for e in group.split(",")}))
    return rows


# Each check: the metric, its preset, the inputs of a run of its bundled example (or given here), and
# the extras the README must name for it. The optional packages of each extra:
EXTRA_MODULES = {
    "ru": ["pymorphy3", "pymorphy3_dicts_ru", "snowballstemmer", "razdel", "wordtodigits"],
    "text": ["nltk"],
    "code": ["tree_sitter", "tree_sitter_python", "tree_sitter_java", "tree_sitter_rust"],
    "scipy": ["scipy"],
    "vision": ["torch", "PIL", "transformers", "tokenizers", "safetensors", "torchmetrics"],
    "hf": ["evaluate", "datasets", "huggingface_hub", "pandas"],
}
CHECKS = [
    ("anls", "default", {}, ""),
    ("ned", "default", {}, ""),
    ("det_f1", "one_to_one", {}, ""),
    ("vqa_acc", "tdiuc", {}, ""),
    ("vqa_acc", "fusion_brain_2021", {"predictions": ["Two."], "references": [["2"]]}, ""),
    ("vqa_acc", "fusion_brain_2021", {}, "ru"),
    ("vqa_acc", "wups", {}, "text"),
    ("text_qa", "mathqa", {}, "ru"),
    ("ru_meteor", "default", {}, "ru,text"),
    ("ru_meteor", "vqa", {}, "ru,text"),
    ("ru_meteor", "nltk", {}, "text"),
    ("ru_meteor", "ru", {}, "ru"),
    ("codebleu", "fusion_brain_2021", {}, ""),
    ("codebleu", "pypi", {}, "code"),
    ("fid_clip", "default", {}, "scipy"),
]
_RUN = textwrap.dedent(
    """
    import importlib, importlib.abc, json, sys, warnings
    blocked = set(json.loads(sys.argv[1]))

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in blocked:
                raise ImportError(f"No module named {name!r} (blocked)")

    sys.meta_path.insert(0, Block())
    warnings.simplefilter("ignore")
    from multimodal_metrics.examples import FOLDER
    for name, preset, inputs in json.loads(sys.argv[2]):
        if not inputs:
            spec = json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))
            run = next(r for r in spec["runs"] if r.get("config_name", "default") == preset)
            inputs = {k: v for k, v in run.items() if k not in ("config_name", "kwargs", "expected", "note")}
            inputs.update(run.get("kwargs", {}))
        inputs = dict(inputs)
        library = importlib.import_module(f"multimodal_metrics.{name}")
        try:
            library.score(inputs.pop("predictions"), inputs.pop("references"), preset=preset, **inputs)
            print(json.dumps([name, preset, "ok"]))
        except Exception as err:  # ImportError, or an error of the library that names what to install
            print(json.dumps([name, preset, f"{type(err).__name__}: {err}"]))
    """
)


def _run_with(allowed: set[str], checks: list) -> dict:
    blocked = [m for extra, modules in EXTRA_MODULES.items() if extra not in allowed for m in modules]
    cases = [[name, preset, inputs] for name, preset, inputs, _ in checks]
    out = subprocess.run([sys.executable, "-c", _RUN, json.dumps(blocked), json.dumps(cases)], capture_output=True,
                         text=True, env=os.environ.copy(), timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    return {
        (n, p, i): status
        for i, (n, p, status) in enumerate(json.loads(line) for line in out.stdout.splitlines())
    }


def test_install_table_names_the_extras_each_check_needs():
    rows = _install_rows()
    for name, preset, _inputs, extras in CHECKS:
        want = set(extras.split(",")) - {""}
        assert any(name == n and preset in presets and have == want for n, presets, have in rows), (
            f"the README's extras table has no row for {name} {preset} naming exactly {sorted(want) or 'no extra'}"
        )


def test_the_extras_named_are_enough_and_each_is_needed():
    """Enough: every check scores with only its extras importable. Needed: without any one of them, the
    check fails (an ImportError, or the library's error naming what to install)."""
    from multimodal_metrics.codebleu import legacy_runtime

    checks = [
        c
        for c in CHECKS
        if not (c[0] == "codebleu" and c[3] == "" and legacy_runtime.find_grammars() is None)
    ]
    groups = {}
    for check in checks:
        groups.setdefault(check[3], []).append(check)
    for extras, group in groups.items():
        allowed = set(extras.split(",")) - {""}
        status = _run_with(allowed, group)
        assert list(status.values()) == ["ok"] * len(group), {k: v for k, v in status.items() if v != "ok"}
        for leave_out in allowed:
            status = _run_with(allowed - {leave_out}, group)
            assert "ok" not in status.values(), (leave_out, status)


# ------------------------------------------------------------------------------------------------
# the main job
# ------------------------------------------------------------------------------------------------
def test_main_job_prints_no_python_warning(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "run_examples.py"), "--out", str(tmp_path / "r.json")],
                         capture_output=True, text=True, cwd=ROOT, env=os.environ.copy(), timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert not re.search(r"\w*Warning\b", out.stdout + out.stderr), out.stderr[-3000:]
    rows = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert all(not row["warnings"] for row in rows), [(r["metric"], r["preset"], r["warnings"]) for r in rows]
