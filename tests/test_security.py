"""Security and concurrency: no native code loaded from where the process happens to run, a
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

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import ROOT, run_python_json

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
    return run_python_json(_PROBE, str(grammar), cwd=cwd, env=environ)


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
    shutil.copytree(
        ROOT / "src" / "multimodal_metrics",
        site / "multimodal_metrics",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
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
    for env in (
        {"HOME": ".", "XDG_CACHE_HOME": "."},
        {"HOME": "."},
        {"HOME": str(home), "XDG_CACHE_HOME": "."},
    ):
        out = _probe(cwd, site, grammar, **env)
        assert out["checkout"] == "None"
        assert "error" in out and out["error"].startswith(
            "RuntimeError: codebleu: `grammar_library` needs the tree-sitter"
        )
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


# ----------------------------------------------------------------------------------------------
# Item 5: compare in evaluate's distributed mode (num_process=2), two real processes
# ----------------------------------------------------------------------------------------------
_PREDS_A = ["hello world", "ac", "12.0", "new york", "reciept", "abc", "x", "Yes"]
_PREDS_B = ["hello", "ab", "12", "york", "receipt", "abd", "y", "no"]
_REFS = [["Hello World"], ["ab"], ["$12.00", "12"], ["new  york"], ["receipt"], ["abc"], ["x"], ["yes"]]


def _compare_rank(rank, exp, cache_dir, queue):
    from helpers import load_rank

    half = len(_REFS) // 2
    part = slice(0, half) if rank == 0 else slice(half, None)
    metric = load_rank("anls", rank, exp, cache_dir, 20)
    out = []
    try:
        for preds_a in (_PREDS_A, _PREDS_A[::-1]):  # two compares in a row, then a compute
            out.append(
                metric.compare(
                    predictions_a=preds_a[part],
                    predictions_b=_PREDS_B[part],
                    references=_REFS[part],
                    n_resamples=200,
                )
            )
        out.append(metric.compute(predictions=_PREDS_B[part], references=_REFS[part]))
    except Exception as err:  # noqa: BLE001 (reported to the test)
        out.append(f"{type(err).__name__}: {err}")
    queue.put((rank, out))


def test_compare_in_distributed_mode_is_gathered_like_compute(tmp_path):
    """Two processes (num_process=2, process ids 0 and 1), each with its half of the examples: process 0
    returns the comparison of the whole data (what one process computes on all of it), process 1 None,
    twice in a row and then a compute, with no barrier in between; nothing is left in the cache. Before:
    process 1 raised "compute did not record its sufficient statistics" and process 0 waited for its lock."""
    import time
    import uuid

    import evaluate
    from helpers import METRICS, run_two_ranks

    single = evaluate.load(str(METRICS / "anls"), cache_dir=str(tmp_path / "single"))
    wanted = [
        single.compare(predictions_a=preds_a, predictions_b=_PREDS_B, references=_REFS, n_resamples=200)
        for preds_a in (_PREDS_A, _PREDS_A[::-1])
    ]
    wanted.append(single.compute(predictions=_PREDS_B, references=_REFS))
    assert wanted[0] != wanted[1]
    start = time.monotonic()
    results = run_two_ranks(_compare_rank, uuid.uuid4().hex, str(tmp_path / "dist"), timeout=120)
    assert results[1] == [None, None, None]
    assert results[0] == wanted
    assert time.monotonic() - start < 60  # no wait for a lock's timeout
    assert [p.name for p in (tmp_path / "dist").rglob("*.arrow")] == []


def test_compare_in_distributed_mode_with_another_evaluate_is_refused_at_once(tmp_path, monkeypatch):
    """The wait between the two scoring runs knows evaluate 0.4.6's lock names: with another evaluate,
    compare in distributed mode is a ValueError on every process before the cache is touched."""
    from helpers import load_rank

    from multimodal_metrics.hf import direct

    monkeypatch.setattr(direct, "DIRECT_PATH_EVALUATE", ())
    for rank in (0, 1):
        metric = load_rank("anls", rank, "refused", str(tmp_path), 5)
        with pytest.raises(ValueError, match="compare in distributed mode"):
            metric.compare(predictions_a=_PREDS_A, predictions_b=_PREDS_B, references=_REFS)
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == []
