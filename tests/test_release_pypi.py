"""The release on PyPI, rehearsed against a local package index (marker ``release``; tests/_release.py).

``scripts/publish.py build`` writes the sdist and then the wheel built from that sdist alone; ``twine check``
passes both and ``twine upload`` puts them on a local pypiserver. From that index, fresh venvs of Python 3.11
and 3.13 (pyenv's; skipped where the machine has none) install ``multimodal-metrics`` as a user would, with
the venv's own pip: the core first (codebleu then raises one error naming the ``[code]`` extra, with no
warning before it), then ``[ru,text]``, then ``[code,scipy]`` (scipy: fid_clip's example is feature
vectors). Every run of every metric's example (the files the wheel ships) then scores there exactly as the
checkout's library scores it (codebleu on the grammar wheels: a fresh venv has no runtime of 2020; fid_clip
within golden.BLAS_TOLERANCE), and ``python -m multimodal_metrics.codebleu.build_runtime`` builds the
runtime of 2020 from the installed package (its legacy_walk.c; the tree_sitter 0.2.0 sdist from the index).
"""

import functools
import hashlib
import json
import os
import sys
import tarfile
import urllib.request
import zipfile

import golden
import pytest
from _release import (
    SCORE_EXAMPLES,
    index,
    job,
    make_venv,
    ok,
    prefetch,
    publish,
    python,
    register,
    release,
    run,
    run_json,
    user_env,
    venv_python,
    wheelhouse_ready,
)
from helpers import ROOT, metric_names

pytestmark = [
    pytest.mark.release,
    pytest.mark.skipif(not wheelhouse_ready(), reason="no .build/wheelhouse: run bash scripts/setup_env.sh"),
]

NAMES = metric_names()
SRC = ROOT / "src" / "multimodal_metrics"
VERSION = publish.library_version()
PROJECT = "multimodal-metrics"


# ------------------------------------------------------------------------------------------------
# The release: built, checked, uploaded
# ------------------------------------------------------------------------------------------------
def test_build_writes_the_sdist_and_the_wheel_built_from_it():
    built = release()
    assert built.sdist.is_file() and built.wheel.is_file(), built.build_output
    assert f"built {built.sdist}" in built.build_output and f"built {built.wheel}" in built.build_output


def test_twine_check_passes_both():
    check = release().check
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("PASSED") == 2, check.stdout


def _package_files() -> set[str]:
    """What the package must hold: every module of src/multimodal_metrics, the C walker codebleu compiles
    into the runtime of 2020, the example files and the py.typed marker."""
    wanted = {p.relative_to(SRC.parent).as_posix() for p in SRC.rglob("*.py") if "__pycache__" not in p.parts}
    wanted |= {f"multimodal_metrics/examples/{name}.json" for name in NAMES}
    wanted |= {"multimodal_metrics/codebleu/legacy_walk.c", "multimodal_metrics/py.typed"}
    return wanted


def test_the_wheel_built_from_the_sdist_alone_holds_everything_the_package_needs():
    """The wheel was built from the unpacked sdist (``python -m build``), so the sdist carries every file
    the package needs; both hold the licence."""
    built = release()
    with tarfile.open(built.sdist) as archive:
        root = f"multimodal_metrics-{VERSION}/"
        in_sdist = {n[len(root) + len("src/") :] for n in archive.getnames() if n.startswith(f"{root}src/")}
        assert f"{root}LICENSE" in archive.getnames() and f"{root}setup.cfg" in archive.getnames()
    with zipfile.ZipFile(built.wheel) as archive:
        in_wheel = set(archive.namelist())
    missing = {"sdist": sorted(_package_files() - in_sdist), "wheel": sorted(_package_files() - in_wheel)}
    assert missing == {"sdist": [], "wheel": []}, missing
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in in_wheel)
    assert not [n for n in in_wheel if "__pycache__" in n or n.endswith(".pyc")]


def test_twine_uploads_both_to_the_index():
    built = release()
    assert built.upload.returncode == 0, built.upload.stdout + built.upload.stderr
    assert index().files(PROJECT) == sorted([built.sdist.name, built.wheel.name])
    for path in (built.sdist, built.wheel):  # what pip downloads is what was built
        with urllib.request.urlopen(f"{index().url}/packages/{path.name}", timeout=30) as answer:
            assert hashlib.sha256(answer.read()).hexdigest() == hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------------------------------------------
# Installed from the index into fresh venvs, as a user does
# ------------------------------------------------------------------------------------------------
CODEBLEU_ON_THE_CORE = r"""
import json, warnings
from multimodal_metrics import codebleu, examples
run = examples.load("codebleu")["runs"][0]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        codebleu.score(run["predictions"], run["references"], **run["kwargs"])
        error = None
    except Exception as err:
        error = f"{type(err).__name__}: {err}"
print(json.dumps({"error": error, "warnings": [str(w.message) for w in caught]}))
"""


class Installed:
    """A venv of one Python with the package installed from the index step by step, as a user does with
    the venv's own pip (``steps``: pip's outcome for the core, ``[ru,text]``, ``[code,scipy]``), what the
    core install gives codebleu, every example scored at the end, and (on 3.11) the runtime of 2020 built
    by ``build_runtime`` from the installed package. Filled by a background job; a failed step stops it."""

    def __init__(self, version: str):
        assert release().upload.returncode == 0, release().upload.stderr
        self.version = version
        self.home = make_venv(version, f"pypi-{version}")
        self.env = user_env()
        self.core_codebleu = self.scores = self.runtime = None
        pip = [venv_python(self.home), "-m", "pip", "install", "--quiet"]
        self.steps = {"core": run([*pip, PROJECT], env=self.env, timeout=600)}
        if self.steps["core"].returncode != 0:
            return
        self.core_codebleu = run_json(self.home, CODEBLEU_ON_THE_CORE, env=self.env)
        for extras in ("ru,text", "code,scipy"):
            self.steps[extras] = run([*pip, f"{PROJECT}[{extras}]"], env=self.env, timeout=600)
            if self.steps[extras].returncode != 0:
                return
        self.scores = run(
            [venv_python(self.home), "-c", SCORE_EXAMPLES, json.dumps(NAMES)], env=self.env, timeout=600
        )
        if version == "3.11":
            self.dest = self.home.parent / "legacy_ts"
            command = [venv_python(self.home), "-m", "multimodal_metrics.codebleu.build_runtime", "--dest",
                       str(self.dest), "--no-grammars", "--quiet"]  # fmt: skip
            self.runtime = run(command, env=self.env, timeout=300)


def _installed(version: str):
    return None if python(version) is None else Installed(version)


def reference_results() -> dict:
    """Every example run scored by the checkout's library, in a process of the test environment; codebleu on
    the grammar wheels (what a venv without the runtime of 2020 falls back to, with its warning)."""
    extra = {"codebleu": {"grammar_library": "wheels"}}
    command = [sys.executable, "-c", SCORE_EXAMPLES, json.dumps(NAMES), json.dumps(extra)]
    done = ok(run(command, env=dict(os.environ)))
    return json.loads(done.stdout.strip().splitlines()[-1])["results"]


for _version in ("3.11", "3.13"):
    register(f"pypi-{_version}", functools.partial(_installed, _version),
             lambda nodeid, v=_version: "test_release_pypi.py" in nodeid and f"[{v}]" in nodeid)  # fmt: skip
register("reference", reference_results, lambda nodeid: "test_release_pypi.py::test_every_example" in nodeid)


@pytest.fixture(scope="module", autouse=True)
def _prefetch(request):
    prefetch(request.session)


@pytest.fixture(scope="module", params=["3.11", "3.13"])
def installed(request):
    got = job(f"pypi-{request.param}")
    if got is None:
        pytest.skip(f"no Python {request.param} on this machine (pyenv's versions or PATH)")
    return got


def test_pip_installs_the_core_then_the_extras_from_the_index(installed):
    for step, done in installed.steps.items():
        assert done.returncode == 0, (step, done.stderr[-3000:])
    version = run_json(installed.home, "import json, multimodal_metrics as m; print(json.dumps(m.__version__))",
                       env=installed.env)  # fmt: skip
    assert version == VERSION


def test_codebleu_on_the_core_install_is_one_error_naming_the_extra(installed):
    """Without the [code] extra and without the runtime of 2020: one MissingExtra that says both ways out,
    and no warning that it falls back to the grammar wheels first (it cannot)."""
    got = installed.core_codebleu
    assert got is not None, installed.steps["core"].stderr[-3000:]
    assert got["warnings"] == [], got
    assert got["error"].startswith("MissingExtra: codebleu without the 2020 grammars (not built here: "), got
    assert got["error"].endswith("(not installed): pip install 'multimodal-metrics[code]'"), got
    assert got["error"].count("pip install") == 1


def test_every_example_scores_from_the_installed_package_as_from_the_checkout(installed):
    got = json.loads(ok(installed.scores).stdout.strip().splitlines()[-1])
    assert got["file"].startswith(str(installed.home)), got["file"]  # the venv's copy, not the checkout
    want = job("reference")
    for name in NAMES:
        assert len(got["results"][name]) == len(want[name]) > 0, name
        for i, (w, g) in enumerate(zip(want[name], got["results"][name])):
            assert golden.same(name, w, g), (name, i, w, g)


def test_build_runtime_builds_from_the_installed_package(installed):
    """``python -m multimodal_metrics.codebleu.build_runtime`` in the venv: pip downloads the pinned sdist
    (from the index), cc compiles it with the installed package's legacy_walk.c, and the library loads it."""
    if installed.version != "3.11":
        pytest.skip("the build does not depend on the Python version: run once, on 3.11")
    done = ok(installed.runtime)
    assert done.stdout.strip() == str(installed.dest / "libtree-sitter-0.2.0.so"), done.stdout
    check = (
        "import hashlib, json, sys\n"
        "from multimodal_metrics.codebleu import build_runtime, legacy_runtime\n"
        "legacy_runtime.load_runtime(sys.argv[1])\n"
        "walker = build_runtime.WALKER_SOURCE\n"
        "print(json.dumps([str(walker), hashlib.sha256(walker.read_bytes()).hexdigest()]))"
    )
    library = str(installed.dest / "libtree-sitter-0.2.0.so")
    walker, digest = run_json(installed.home, check, library, env=installed.env)
    assert walker.startswith(str(installed.home))
    assert digest in (installed.dest / "runtime.stamp").read_text(encoding="utf-8")
