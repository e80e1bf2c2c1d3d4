"""`mm-score --save-state` / `--per-example` stopped by a signal while it writes (SIGTERM: how Slurm,
Kubernetes and `timeout` stop a job; SIGKILL): nothing partial or temporary stays in the folder, and a
target that existed is either the old file or the new one, whole.

Each case runs the command in a subprocess (tests/_stop_writer.py) that stops at a chosen point of the
write and prints "ready"; the test then sends the signal. About 1 s per case.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from _mm_score_cli import DOCVQA_GT, DOCVQA_SUB

from multimodal_metrics.cli import paths

WORKER = Path(__file__).with_name("_stop_writer.py")
SRC = str(Path(__file__).parents[1] / "src")


@pytest.fixture
def inputs(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "gt.json").write_text(json.dumps(DOCVQA_GT))
    (folder / "sub.json").write_text(json.dumps(DOCVQA_SUB))
    out = tmp_path / "out"
    out.mkdir()
    return folder, out


def command(inputs, *outputs) -> list[str]:
    """mm-score anls on the inputs, ``outputs``: (flag, path) pairs."""
    folder, _ = inputs
    argv = ["anls", "--gt", str(folder / "gt.json"), "--pred", str(folder / "sub.json"), "--no-progress"]
    return argv + [str(x) for output in outputs for x in output]


def env() -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")]))}


def stopped(point: str, mode: str, argv: list[str], signum: int) -> int:
    """Run the command until it reaches ``point``, send ``signum``: its exit status."""
    proc = subprocess.Popen([sys.executable, str(WORKER), point, mode, *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())  # fmt: skip
    try:
        line = proc.stdout.readline()
        assert line == "ready\n", (line, proc.stderr.read()[-3000:] if proc.poll() is not None else "")
        proc.send_signal(signum)
        proc.stdin.close()
        return proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()


def write_again(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "multimodal_metrics.cli", *argv], env=env(), capture_output=True
    )
    assert done.returncode == 0, done.stderr[-3000:]


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


POINTS = [("scoring", "unnamed"), ("content", "unnamed"), ("scoring", "fallback"), ("named", "fallback")]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
@pytest.mark.parametrize(("point", "mode"), POINTS, ids=[f"{p}-{m}" for p, m in POINTS])
def test_a_stopped_write_leaves_nothing(inputs, signum, point, mode):
    """Stopped while it writes the state (the first of its two files; --per-example's comes next)."""
    _, out = inputs
    argv = command(inputs, ("--save-state", out / "s.state"), ("--per-example", out / "per.jsonl"))
    assert stopped(point, mode, argv, signum) == -signum  # ended by the signal, as without the writer
    if (point, signum) == ("named", signal.SIGKILL):
        # without unnamed files, SIGKILL (which no process can catch) leaves the hidden temporary file of a
        # write under way: the next write of the same target removes it (its process is gone)
        assert len(names(out)) == 1 and names(out)[0].startswith(f".s.state.{paths._HOST}.")
        write_again(argv)
        assert names(out) == ["per.jsonl", "s.state"]
        return
    assert names(out) == []


@pytest.mark.parametrize("mode", ["unnamed", "fallback"])
def test_a_target_replaced_under_a_signal_is_old_or_new_never_partial(inputs, mode):
    """Stopped just before the complete file's hidden name is renamed over the old file: SIGTERM waits for
    the rename (the new file, whole); SIGKILL leaves the old file and the hidden one, which the next write
    of the target removes."""
    _, out = inputs
    target = out / "result"
    argv = command(inputs, ("--per-example", target))
    write_again(argv)
    new = target.read_text()
    target.write_text("old\n")
    assert stopped("rename", mode, argv, signal.SIGTERM) == -signal.SIGTERM
    assert names(out) == ["result"] and target.read_text() == new
    target.write_text("old\n")
    assert stopped("rename", mode, argv, signal.SIGKILL) == -signal.SIGKILL
    assert target.read_text() == "old\n"
    hidden = [n for n in names(out) if n != "result"]
    assert (
        len(hidden) == 1 and hidden[0].startswith(f".result.{paths._HOST}.") and hidden[0].endswith(".part")
    )
    assert (out / hidden[0]).read_text() == new  # complete: only its rename was missing
    write_again(argv)
    assert names(out) == ["result"] and target.read_text() == new


def test_the_linux_writer_names_no_file_before_it_is_complete(tmp_path, monkeypatch):
    """On Linux the file is written without a name (O_TMPFILE) and linked once complete: the named
    fallback is never used, over a new target and over an existing one."""
    if not hasattr(os, "O_TMPFILE"):
        pytest.skip("no O_TMPFILE on this system")

    def refused(*args):
        raise AssertionError("the named fallback was used")

    monkeypatch.setattr(paths, "_publish_named", refused)
    out = paths.Output(tmp_path / "a.jsonl", "--per-example")
    assert names(tmp_path) == []  # checked, nothing created
    out.write("one\n")
    out.write("two\n")
    assert names(tmp_path) == ["a.jsonl"] and (tmp_path / "a.jsonl").read_text() == "two\n"


def test_a_write_removes_hidden_files_of_gone_processes_of_this_machine_only(tmp_path):
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    pid = int(gone.stdout)
    stale = f".a.jsonl.{paths._HOST}.{pid}.0123abcd.part"
    others = [f".a.jsonl.elsewhere.{pid}.0123abcd.part", f".a.jsonl.{paths._HOST}.{os.getpid()}.0123abcd.part",
              f".b.jsonl.{paths._HOST}.{pid}.0123abcd.part"]  # fmt: skip
    for name in [stale, *others]:
        (tmp_path / name).write_text("x")
    paths.Output(tmp_path / "a.jsonl", "--per-example").write("a\n")
    assert names(tmp_path) == sorted(["a.jsonl", *others])
