"""Security and concurrency (issue 24): no native code loaded from where the process happens to run, a
demo serving parallel requests answers each with its own result, ``compare`` in evaluate's distributed
mode.

Item 1: codebleu's ``grammar_library`` needs the tree-sitter runtime of 2020 (a native library loaded with
ctypes). It is looked up only in the explicit ``runtime_path``, ``$CODEBLEU_TS_RUNTIME``, the per-user cache
and the library's own checkout. The tests plant a ``libtree-sitter-0.2.0.so`` whose constructor
(``__attribute__((constructor))``, run by the loader as the library is opened) appends to a marker file,
in every place a search of the working directory, its parents or a relative cache directory would find it,
and check that the marker never appears; the same library given explicitly does run its constructor (the
probe works) and is refused with a ValueError (it lacks the runtime's functions).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from multimodal_metrics.codebleu import legacy_runtime

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")
CHECKOUT_RUNTIME = ROOT / ".build" / "legacy_ts" / legacy_runtime.RUNTIME_FILE
NPM_LIBRARY = ROOT / ".build" / "legacy_ts" / "languages-npm-2020.so"  # scripts/setup.d/codebleu_legacy_ts.sh
needs_legacy = pytest.mark.skipif(
    not (CHECKOUT_RUNTIME.is_file() and NPM_LIBRARY.is_file()),
    reason="run scripts/setup.d/codebleu_legacy_ts.sh (builds .build/legacy_ts)",
)

PLANTED_C = r"""
#include <stdio.h>
__attribute__((constructor)) static void planted(void) {
    FILE *f = fopen(MARKER, "a");
    if (f) { fputs(WHERE "\n", f); fclose(f); }
}
int planted_function(void) { return 42; }
"""


def _compile(source: str, out: Path, *defines: str) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    src = out.parent / "planted.c"
    src.write_text(source)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(out), str(src), *defines], check=True, timeout=120)
    src.unlink()
    return out


def _planted(out: Path, marker: Path, where: str) -> Path:
    """A shared object named like the runtime whose constructor appends ``where`` to ``marker``."""
    return _compile(PLANTED_C, out, f'-DMARKER="{marker}"', f'-DWHERE="{where}"')


_PROBE = r"""
import json, sys
from multimodal_metrics import codebleu
from multimodal_metrics.codebleu import legacy_runtime
grammar = sys.argv[1]
out = {"checkout": str(legacy_runtime.checkout_dir()), "cache": str(legacy_runtime.cache_dir())}
try:
    out["score"] = codebleu.score(["x = 1\n"], ["x = 1\n"], lang="python", grammar_library=grammar)["codebleu"]
except Exception as err:
    out["error"] = f"{type(err).__name__}: {err}"
out["runtimes"] = sorted(legacy_runtime._RUNTIMES)
print(json.dumps(out))
"""


def _probe(cwd: Path, pythonpath: Path, grammar, **env) -> dict:
    environ = {k: v for k, v in os.environ.items() if k not in (legacy_runtime.RUNTIME_ENV, "XDG_CACHE_HOME")}
    environ.update(PYTHONPATH=str(pythonpath), **env)
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(grammar)], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _plant_everywhere(top: Path, cwd: Path, marker: Path) -> list:
    """A planted runtime in ``.build/legacy_ts`` of ``cwd`` and each of its parents up to ``top``, and in
    ``.cache/multimodal_metrics/legacy_ts`` and ``multimodal_metrics/legacy_ts`` of ``cwd`` (where a relative
    ``$HOME`` or ``$XDG_CACHE_HOME`` would put the per-user cache)."""
    folders = [d / ".build" / "legacy_ts" for d in [cwd, *cwd.parents] if d == top or top in d.parents]
    folders += [cwd / ".cache" / "multimodal_metrics" / "legacy_ts", cwd / "multimodal_metrics" / "legacy_ts"]
    first = _planted(folders[0] / legacy_runtime.RUNTIME_FILE, marker, str(folders[0]))
    for folder in folders[1:]:
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(first, folder / legacy_runtime.RUNTIME_FILE)
    return folders


@needs_cc
def test_planted_runtime_runs_its_constructor_when_given_and_is_refused(tmp_path, monkeypatch):
    """The probe itself: the planted library, named explicitly, is loaded (its constructor writes the
    marker) and refused with a ValueError naming where it came from (it has none of the runtime's
    functions); never an AttributeError or OSError."""
    marker = tmp_path / "marker.txt"
    planted = _planted(tmp_path / "explicit" / legacy_runtime.RUNTIME_FILE, marker, "explicit")
    with pytest.raises(ValueError, match=r"runtime_path.*ts_parser_new"):
        legacy_runtime.load_runtime(planted)
    assert marker.read_text().split() == ["explicit"]
    monkeypatch.setenv(legacy_runtime.RUNTIME_ENV, str(planted))
    with pytest.raises(ValueError, match=rf"{legacy_runtime.RUNTIME_ENV}.*not the tree-sitter runtime"):
        legacy_runtime.load_runtime()
    assert str(planted.resolve()) not in legacy_runtime._RUNTIMES


def test_runtime_that_is_not_a_shared_object_is_a_value_error(tmp_path, monkeypatch):
    junk = tmp_path / legacy_runtime.RUNTIME_FILE
    junk.write_bytes(b"\x7fELF but not really a shared object")
    with pytest.raises(ValueError, match=r"runtime_path.*not a loadable shared library"):
        legacy_runtime.load_runtime(junk)
    monkeypatch.setenv(legacy_runtime.RUNTIME_ENV, str(junk))
    with pytest.raises(ValueError, match=rf"{legacy_runtime.RUNTIME_ENV}.*not a loadable shared library"):
        legacy_runtime.open_library(junk, ["python"])  # the runtime is loaded first


@needs_cc
def test_installed_library_never_loads_a_runtime_from_the_working_directory(tmp_path):
    """The library installed outside a checkout (a copy of the package in a site folder), scoring with
    ``grammar_library`` from a directory where a runtime is planted in ``.build/legacy_ts`` of the directory
    and of all its parents, and where a relative ``$HOME``/``$XDG_CACHE_HOME`` would find one: nothing is
    loaded (the marker stays absent), the error says the runtime is not built."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "src" / "multimodal_metrics", site / "multimodal_metrics",
                    ignore=shutil.ignore_patterns("__pycache__"))
    top = tmp_path / "work"
    cwd = top / "a" / "b"
    cwd.mkdir(parents=True)
    marker = tmp_path / "marker.txt"
    folders = _plant_everywhere(top, cwd, marker)
    assert len(folders) == 5
    grammar = NPM_LIBRARY if NPM_LIBRARY.is_file() else cwd / "grammar.so"
    grammar.touch()
    home = tmp_path / "home"  # an absolute home without a cache
    home.mkdir()
    for env in ({"HOME": ".", "XDG_CACHE_HOME": "."}, {"HOME": "."}, {"HOME": str(home), "XDG_CACHE_HOME": "."}):
        out = _probe(cwd, site, grammar, **env)
        assert out["checkout"] == "None"
        assert "error" in out and out["error"].startswith("RuntimeError: codebleu: `grammar_library` needs the tree-sitter")
        assert out["runtimes"] == []
        assert not marker.exists(), marker.read_text()


@needs_cc
@needs_legacy
def test_checkout_runtime_is_used_whatever_is_planted_in_the_working_directory(tmp_path):
    """The checkout's library from a planted working directory: its own ``.build/legacy_ts`` runtime scores
    (the contest's grammar library) and the planted one is never opened."""
    top = tmp_path / "work"
    cwd = top / "a" / "b"
    cwd.mkdir(parents=True)
    marker = tmp_path / "marker.txt"
    _plant_everywhere(top, cwd, marker)
    out = _probe(cwd, ROOT / "src", NPM_LIBRARY, HOME=".", XDG_CACHE_HOME=".")
    assert "error" not in out, out["error"]
    assert 0.0 < out["score"] <= 1.0
    assert out["runtimes"] == [str(CHECKOUT_RUNTIME.resolve())]
    assert not marker.exists(), marker.read_text()


@needs_legacy
def test_relative_paths_are_the_files_they_name(tmp_path, monkeypatch):
    """A relative ``grammar_library`` or ``$CODEBLEU_TS_RUNTIME`` is the file of that name under the working
    directory, the one that was checked, not whatever the dynamic loader's search (LD_LIBRARY_PATH, system
    folders) finds under that bare name."""
    shutil.copy(NPM_LIBRARY, tmp_path / "langs.so")
    shutil.copy(CHECKOUT_RUNTIME, tmp_path / legacy_runtime.RUNTIME_FILE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(legacy_runtime.RUNTIME_ENV, legacy_runtime.RUNTIME_FILE)
    library = legacy_runtime.open_library("langs.so", ["python", "java"])
    assert sorted(library.languages) == ["java", "python"]
    assert library.runtime.path == tmp_path / legacy_runtime.RUNTIME_FILE
    assert library.parse("python", b"x = 1\n").type == "module"
