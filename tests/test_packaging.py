"""The library as users install it: the wheel built from this checkout, in a fresh virtual environment.

The wheel is built once (scripts/publish.py `build_wheel`, from a clean copy of src/) into a temporary
folder. A plain venv (no system or test-environment site-packages) outside the checkout gets it with the
tested pins (`-c constraints.txt`) and the extras the functional API of the metrics needs (scipy, ru,
text, code: no torch, no evaluate). From a temporary working directory, without PYTHONPATH:

* every metric's `from multimodal_metrics import <name>; <name>.score(...)` on the first run of
  the metric's example file (shipped in the package, multimodal_metrics/examples/<name>.json, else the
  checkout's examples/<name>.json) gives the golden result recorded through `compute` before the library move
  (tests/data/golden/<name>.json "examples"[0]);
* `mm-score` scores an example shipped in the wheel.

A metric not converted to the library on this branch (no src/multimodal_metrics/<name>/) is expected to
fail (xfail, not strict): the test is ready for it once its conversion is merged.

Without the venv: the wheel's file list against src/, and every Space's requirements.txt against
setup.cfg's extras and constraints.txt (pip parses each one, the CPU index line of torch included).
"""

import configparser
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import golden
import pytest
from helpers import ROOT, metric_names

sys.path.insert(0, str(ROOT / "scripts"))
import publish  # noqa: E402

NAMES = metric_names()
SRC = ROOT / "src" / "multimodal_metrics"
GOLDEN = ROOT / "tests" / "data" / "golden"
# the example files: in the package once they ship with it (multimodal_metrics.examples), else the checkout's
EXAMPLES = SRC / "examples" if (SRC / "examples").is_dir() else ROOT / "examples"
VENV_EXTRAS = "scipy,ru,text,code"  # what the functional API of the metrics imports, torch aside
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def converted(name: str) -> bool:
    return (SRC / name / "__init__.py").is_file()


def unless_converted(name: str):
    """``name`` as a parameter, expected to fail while the metric is not in the library on this branch."""
    if converted(name):
        return name
    reason = f"{name} is not converted to the library on this branch (no src/multimodal_metrics/{name}/)"
    return pytest.param(name, marks=pytest.mark.xfail(strict=False, reason=reason))


# ------------------------------------------------------------------------------------------------
# The wheel and the fresh venv
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    return publish.build_wheel(tmp_path_factory.mktemp("dist"))


def clean_env() -> dict:
    """The environment of a user's shell: no PYTHONPATH or virtualenv of the test run, offline."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    for var in ("HF_EVALUATE_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        env[var] = "1"
    return env


@pytest.fixture(scope="session")
def venv(wheel, tmp_path_factory) -> Path:
    """A plain venv outside the checkout with the wheel[scipy,ru,text,code], pinned by constraints.txt.
    pip is the test environment's (`pip --python`): the venv itself gets no pip (saves ensurepip)."""
    home = tmp_path_factory.mktemp("venv")
    assert ROOT not in home.parents
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(home)], check=True, env=clean_env())
    config = (home / "pyvenv.cfg").read_text(encoding="utf-8")
    assert "include-system-site-packages = false" in config
    python = home / "bin" / "python"
    cmd = [
        sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--retries", "3",
        "-c", str(ROOT / "constraints.txt"), f"{wheel}[{VENV_EXTRAS}]",
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=home, env=clean_env(), timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return home


def run_in_venv(cwd: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """A command of the venv (args[0] is its python or mm-score) run from ``cwd``, as a user would."""
    return subprocess.run(
        list(args), capture_output=True, text=True, cwd=cwd, env=clean_env(), timeout=timeout
    )


# the result as tests/golden.py records it: numpy scalars as Python numbers, NaN as "nan"
PLAIN = """
def plain(value):
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        return value.item()
    if isinstance(value, float) and value != value:
        return "nan"
    return value
"""

SCORE = (
    PLAIN
    + """
import json, sys
from multimodal_metrics import __NAME__
import multimodal_metrics
run = json.load(open(sys.argv[1], encoding="utf-8"))["runs"][0]
inputs = {k: v for k, v in run.items() if k not in ("config_name", "kwargs", "expected", "note")}
result = __NAME__.score(**inputs, **run.get("kwargs", {}), preset=run.get("config_name", "default"),
                      return_per_example=True)
print(json.dumps({"file": multimodal_metrics.__file__, "result": plain(dict(result))}))
"""
)


def test_the_venv_imports_the_installed_wheel(venv, tmp_path):
    """No copy of the checkout leaks in: the package and its mm-score come from the venv."""
    code = "import multimodal_metrics, sys; print(multimodal_metrics.__file__); print(multimodal_metrics.__version__)"
    done = run_in_venv(tmp_path, str(venv / "bin" / "python"), "-c", code)
    assert done.returncode == 0, done.stderr[-3000:]
    where, version = done.stdout.split()
    assert Path(where).is_relative_to(venv / "lib") and version == publish.library_version()
    assert (venv / "bin" / "mm-score").is_file()


@pytest.mark.parametrize("name", [unless_converted(n) for n in NAMES])
def test_functional_api_from_the_wheel_equals_the_golden_result(venv, tmp_path, name):
    example = tmp_path / f"{name}.json"
    example.write_bytes((EXAMPLES / f"{name}.json").read_bytes())
    done = run_in_venv(
        tmp_path, str(venv / "bin" / "python"), "-c", SCORE.replace("__NAME__", name), str(example)
    )
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.splitlines()[-1])
    assert Path(got["file"]).is_relative_to(venv / "lib"), got["file"]
    want = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))["examples"][0]
    # exact, except fid_clip's numbers (through BLAS: golden.BLAS_TOLERANCE says why and how close)
    assert golden.same(name, want, {"result": json.loads(json.dumps(got["result"]))}), (want, got["result"])


def test_mm_score_from_the_wheel_on_a_shipped_example(venv, wheel, tmp_path):
    """`mm-score anls` on DocVQA files made from the anls example that the wheel ships (the checkout's
    example file while the wheel ships none: test_wheel_ships_the_examples)."""
    shipped = "multimodal_metrics/examples/anls.json"
    with zipfile.ZipFile(wheel) as archive:
        has = shipped in archive.namelist()
        spec = json.loads(archive.read(shipped) if has else (EXAMPLES / "anls.json").read_bytes())
    run = spec["runs"][0]
    gt = {
        "dataset_name": "docvqa",
        "data": [
            {"questionId": i, "question": "", "answers": refs} for i, refs in enumerate(run["references"])
        ],
    }
    pred = [{"questionId": i, "answer": answer} for i, answer in enumerate(run["predictions"])]
    (tmp_path / "gt.json").write_text(json.dumps(gt), encoding="utf-8")
    (tmp_path / "pred.json").write_text(json.dumps(pred), encoding="utf-8")
    done = run_in_venv(
        tmp_path, str(venv / "bin" / "mm-score"), "anls", "--gt", "gt.json", "--pred", "pred.json", "--json"
    )
    assert done.returncode == 0, done.stderr[-3000:]
    want = json.loads((GOLDEN / "anls.json").read_text(encoding="utf-8"))["examples"][0]["result"]
    got = json.loads(done.stdout)
    assert (got["anls"], got["signature"], got["examples"]) == (
        want["anls"],
        want["signature"],
        len(run["predictions"]),
    )


# ------------------------------------------------------------------------------------------------
# What the wheel holds
# ------------------------------------------------------------------------------------------------
def wheel_files(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_wheel_holds_every_module_of_src(wheel):
    """Every module of src/multimodal_metrics is in the wheel (a folder without __init__.py is not a
    package to setuptools' find: and would be left out)."""
    files = wheel_files(wheel)
    wanted = {
        f"multimodal_metrics/{p.relative_to(SRC).as_posix()}"
        for p in SRC.rglob("*.py")
        if "__pycache__" not in p.parts
    }
    wanted.add("multimodal_metrics/py.typed")
    missing = sorted(wanted - files)
    if missing and all(Path(m).parts[1] in NAMES and not converted(Path(m).parts[1]) for m in missing):
        pytest.xfail(f"modules of metrics not converted on this branch are left out: {missing}")
    assert not missing, f"the wheel lacks {missing}"
    assert not [f for f in files if "__pycache__" in f or f.endswith(".pyc")]


@pytest.mark.xfail(
    condition=not (SRC / "examples").is_dir(),
    strict=True,
    reason="src/multimodal_metrics/examples/ does not exist: setup.cfg's package_data names examples/*.json "
    "under the package, the examples are still at the checkout's examples/",
)
def test_wheel_ships_the_examples(wheel):
    files = wheel_files(wheel)
    assert {f"multimodal_metrics/examples/{name}.json" for name in NAMES} <= files


# ------------------------------------------------------------------------------------------------
# The Spaces' requirements: the library with its extras, the tested pins (no venv)
# ------------------------------------------------------------------------------------------------
SPACE_FILES = {name: ROOT / "metrics" / name / "requirements.txt" for name in NAMES}
SPACE_FILES[publish.PLAYGROUND] = ROOT / "spaces" / "playground" / "requirements.txt"


def setup_extras() -> dict[str, set[str]]:
    """setup.cfg's extras as {extra: {package names} (``%(other)s`` expanded), and "" for install_requires."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")

    def names(text):
        return {
            canonical(re.split(r"[<>=!~;\[ ]", line.strip())[0])
            for line in text.splitlines()
            if line.strip() and not line.strip().startswith("#")
        }

    extras = {key: names(value) for key, value in config["options.extras_require"].items()}
    extras[""] = names(config["options"]["install_requires"])
    return extras


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def constraints() -> dict[str, str]:
    lines = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    return {
        canonical(line.split("==")[0]): line.split("==")[1].strip()
        for line in lines
        if "==" in line and not line.startswith("#")
    }


def parsed_requirements(path: Path):
    """What pip reads from the file: (requirements as pip's InstallRequirement, index URLs of option lines).
    pip's own parser, so a line pip would reject fails here."""
    from types import SimpleNamespace

    from pip._internal.network.session import PipSession
    from pip._internal.req.constructors import install_req_from_parsed_requirement
    from pip._internal.req.req_file import build_parser, parse_requirements

    # a stand-in for pip's PackageFinder: what the option lines (--extra-index-url ...) update
    defaults = build_parser().get_default_values()
    finder = SimpleNamespace(
        find_links=[],
        index_urls=[],
        search_scope=SimpleNamespace(no_index=False),
        format_control=defaults.format_control,
        release_control=getattr(defaults, "release_control", None),
    )
    with PipSession() as session:
        reqs = [
            install_req_from_parsed_requirement(r)
            for r in parse_requirements(str(path), session, finder=finder)
        ]
    return reqs, list(getattr(finder.search_scope, "index_urls", []))


@pytest.mark.parametrize("space", list(SPACE_FILES))
def test_space_installs_the_library_with_its_extras_and_the_tested_pins(space):
    extras, pins = setup_extras(), constraints()
    reqs, index_urls = parsed_requirements(SPACE_FILES[space])
    library = [r for r in reqs if canonical(r.name) == publish.PIP_NAME]
    assert len(library) == 1, f"one {publish.PIP_NAME} line, found {len(library)}"
    library = library[0].req
    assert str(library.specifier) == f"=={publish.library_version()}"
    assert library.extras and library.extras <= set(extras) - {"all", "test"}, library.extras
    others = {canonical(r.name): r.req for r in reqs if canonical(r.name) != publish.PIP_NAME}
    for name, req in others.items():  # every pin is the tested version (torch: its CPU build)
        assert name in pins, f"{name} is not in constraints.txt"
        want = f"=={pins[name]}+cpu" if name == "torch" else f"=={pins[name]}"
        assert str(req.specifier) == want, (name, str(req.specifier), want)
    needed = set().union(extras[""], *(extras[e] for e in library.extras)) & set(pins)
    assert not needed - set(others), f"not pinned: {sorted(needed - set(others))}"
    assert index_urls == ([TORCH_CPU_INDEX] if "torch" in others else []), index_urls


def test_staged_requirements_with_the_wheel_parse(tmp_path):
    """The library line `stage` writes before the release (a direct reference with the extras) parses,
    and the CPU index line of torch comes through."""
    text = SPACE_FILES["fid_clip"].read_text(encoding="utf-8")
    url = publish.wheel_url("mm-test-org", "fid_clip", publish.wheel_name())
    staged = tmp_path / "requirements.txt"
    staged.write_text(publish.rewrite_requirements_text(text, url), encoding="utf-8")
    reqs, index_urls = parsed_requirements(staged)
    library = next(r for r in reqs if canonical(r.name) == publish.PIP_NAME)
    assert library.link.url == url and library.req.extras == {"hf", "demo", "vision"}
    assert index_urls == [TORCH_CPU_INDEX]
    assert next(str(r.req) for r in reqs if r.name == "torch") == f"torch=={constraints()['torch']}+cpu"
