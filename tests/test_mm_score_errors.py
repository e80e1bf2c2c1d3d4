"""`mm-score` on bad input: malformed files in each official format, a badly typed or unknown flag, a
missing optional dependency, hostile output and input paths: one error line naming the file, the record
and the field (or the flag and the path), exit status 2, nothing left behind, nothing hangs."""

import json
import os

import pytest
from _mm_score_cli import DOCVQA_GT, DOCVQA_SUB, assert_error, run, write_files, write_json

from multimodal_metrics.cli import formats

# ------------------------------------------------------------------------------------------------
# Malformed files: one line naming the file, the record and the field; exit status 2
# ------------------------------------------------------------------------------------------------
MALFORMED = {
    # command argv prefix, good gt, good pred, [(which file, broken content, fragments of the message)]
    "anls": (
        ["anls"],
        DOCVQA_GT,
        DOCVQA_SUB,
        [
            (
                "pred",
                [{"questionId": 337}] + DOCVQA_SUB[1:],
                ["pred.json", "record 0 (questionId 337)", "field 'answer'", "missing"],
            ),
            (
                "pred",
                [{"questionId": 337, "answer": 12.5}] + DOCVQA_SUB[1:],
                ["record 0", "field 'answer'", "expected a string"],
            ),
            (
                "gt",
                {**DOCVQA_GT, "data": [{"questionId": 337, "answers": "12.50"}]},
                ["gt.json", "record 0 (questionId 337)", "field 'answers'", "non-empty list of strings"],
            ),
            ("gt", {"data": []}, ["gt.json", "field 'dataset_name'", "missing"]),
            ("pred", DOCVQA_SUB[:2], ["pred.json", "no answer for questionId 338"]),
        ],
    ),
    "vqa_v2": (
        ["vqa-acc"],
        {"annotations": [{"question_id": 1, "answers": [{"answer": "yes"}] * 10}]},
        [{"question_id": 1, "answer": "yes"}],
        [
            (
                "pred",
                [{"question_id": 1, "answer": None}],
                ["pred.json", "record 0 (question_id 1)", "field 'answer'", "null"],
            ),
            (
                "gt",
                {"annotations": [{"question_id": 1, "answers": [{"text": "yes"}]}]},
                ["gt.json", "record 0 (question_id 1) answers[0]", "field 'answer'", "missing"],
            ),
            (
                "gt",
                {"annotations": [{"question_id": 1, "answers": [{"answer": "yes"}]}]},
                ["gt.json", "record 1: field 'answers': has 1 answers but --num-answers 10"],
            ),
        ],
    ),
    "fb2021_vqa": (
        ["vqa-acc", "--format", "fusion_brain_2021"],
        {"0": {"answer": "yes", "lang": "en"}},
        {"0": "yes"},
        [
            ("gt", {"0": {"answers": "yes"}}, ["gt.json", "record '0'", "field 'answer'", "missing"]),
            ("pred", {"0": ["yes"]}, ["pred.json", "record '0'", "expected a string"]),
            (
                "gt",
                {"0": {"answer": "yes", "lang": "de"}},
                ["gt.json", "record '0': field 'lang': must be one of"],
            ),
        ],
    ),
    "c2c": (
        ["codebleu"],
        {"0": "x = 1"},
        {"0": "x = 1"},
        [
            ("pred", {"1": "x = 1"}, ["pred.json", "record '0'", "no prediction for id '0'"]),
            ("gt", {"0": ["x = 1"]}, ["gt.json", "record '0'", "expected a string"]),
        ],
    ),
    "htr": (
        ["ned", "--format", "fusion_brain_2021"],
        {"0.png": "a"},
        {"0.png": "a"},
        [
            ("pred", {"0.png": 5}, ["pred.json", "record '0.png'", "expected a string, got int"]),
        ],
    ),
    "zsod": (
        ["det-f1"],
        {"1.jpg": {"cat": [[0, 0, 1, 1]]}},
        {"1.jpg": {"cat": [[0, 0, 1, 1]]}},
        [
            ("pred", {"1.jpg": {"dog": []}}, ["pred.json", "record '1.jpg'", "field 'cat'", "missing"]),
            (
                "pred",
                {"1.jpg": {"cat": "0,0,1,1"}},
                ["pred.json", "record '1.jpg'", "field 'cat'", "list of [x, y, w, h]"],
            ),
            (
                "pred",
                {"1.jpg": {"cat": [[0, 0, "1", 1]]}},
                ["pred.json", "record '1.jpg'", "class 'cat'", "box 0"],
            ),
            ("gt", {"1.jpg": [[0, 0, 1, 1]]}, ["gt.json", "record '1.jpg'", "expected an object"]),
        ],
    ),
    "fb2022": (
        ["text-qa"],
        {"0": [{"type": "text", "content": ["a"]}]},
        {"0": [{"type": "text", "content": "a"}]},
        [
            (
                "pred",
                {"0": [{"content": "a"}]},
                ["pred.json", "record '0' element 0", "field 'type'", "missing"],
            ),
            (
                "pred",
                {"0": [{"type": "text", "content": ["a"]}]},
                ["pred.json", "record '0' element 0", "field 'content'"],
            ),
            (
                "gt",
                {"0": [{"type": "text", "content": "a"}]},
                ["gt.json", "record '0'", "field 'content'", "list of strings"],
            ),
            ("pred", {"1": [{"type": "text", "content": "a"}]}, ["pred.json", "record '0'", "no prediction"]),
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_files_give_one_line_and_status_2(tmp_path, capsys, case):
    argv, gt, pred, broken = MALFORMED[case]
    gt_path, pred_path = write_files(tmp_path, gt, pred)
    assert run(capsys, *argv, "--gt", gt_path, "--pred", pred_path)[0] == 0
    for which, content, fragments in broken:
        bad = write_json(tmp_path, f"{which}.json", content)
        paths = ["--gt", bad, "--pred", pred_path] if which == "gt" else ["--gt", gt_path, "--pred", bad]
        assert_error(capsys, argv + paths, *fragments)
        write_files(tmp_path, gt, pred)
    # truncated JSON and a missing file, for both sides
    for which in ("gt", "pred"):
        text = (tmp_path / f"{which}.json").read_text(encoding="utf-8")
        (tmp_path / f"{which}.json").write_text(text[: len(text) // 2], encoding="utf-8")
        assert_error(
            capsys,
            argv + ["--gt", gt_path, "--pred", pred_path],
            f"{which}.json",
            "not valid JSON",
            "truncated",
        )
        write_files(tmp_path, gt, pred)
    assert_error(
        capsys, argv + ["--gt", str(tmp_path / "nope.json"), "--pred", pred_path], "nope.json: file not found"
    )


def test_bad_option_names_the_flag(tmp_path, capsys):
    gt, sub = write_json(tmp_path, "gt.json", DOCVQA_GT), write_json(tmp_path, "sub.json", DOCVQA_SUB)
    assert_error(
        capsys, ["anls", "--gt", gt, "--pred", sub, "--boundary", "sideways"], "--boundary must be one of"
    )
    assert_error(
        capsys,
        ["anls", "--gt", gt, "--pred", sub, "--preset", "nope"],
        "argument --preset: invalid choice: 'nope'",
        "anls_star",
    )


# ------------------------------------------------------------------------------------------------
# --help and flag style
# ------------------------------------------------------------------------------------------------
def test_missing_optional_dependency_is_one_line(tmp_path, capsys, monkeypatch):
    """A metric whose optional dependency is not installed (the library imports it when scoring): one
    error line naming the module, exit 2."""
    from multimodal_metrics import anls

    def score(predictions, references, preset="default", **kwargs):
        raise ModuleNotFoundError("No module named 'rapidfuzz'", name="rapidfuzz")

    monkeypatch.setattr(anls, "score", score)
    gt, sub = write_json(tmp_path, "gt.json", DOCVQA_GT), write_json(tmp_path, "sub.json", DOCVQA_SUB)
    line = assert_error(
        capsys, ["anls", "--gt", gt, "--pred", sub], "mm-score anls: error: No module named 'rapidfuzz'"
    )
    assert "pip install" in line


# ------------------------------------------------------------------------------------------------
# Hostile output and input paths (every subcommand in test_mm_score_hostile.py)
# ------------------------------------------------------------------------------------------------
HOSTILE_OUTPUTS = ("missing-folder", "folder", "below-a-file", "device", "fifo", "proc")


def _hostile_output(root, kind: str, name: str) -> str:

    if kind == "missing-folder":
        return str(root / name / "deeper" / "per.jsonl")
    if kind == "folder":
        (root / name).mkdir()
        return str(root / name)
    if kind == "below-a-file":
        (root / name).write_text("x")
        return str(root / name / "per.jsonl")
    if kind == "fifo":
        os.mkfifo(root / name)
        return str(root / name)
    return "/dev/full" if kind == "device" else f"/proc/{name}.jsonl"


def test_per_example_path_is_checked_before_scoring(monkeypatch, capsys):
    """A --per-example path that cannot be written (any of HOSTILE_OUTPUTS, any file name): one error line
    naming the flag and the path, exit 2, and the library's score is never called; nothing left beside."""
    import tempfile
    from pathlib import Path

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from multimodal_metrics import anls

    calls = []
    monkeypatch.setattr(anls, "score", lambda *a, **k: calls.append(1))

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(kind=st.sampled_from(HOSTILE_OUTPUTS),
           name=st.text(st.characters(codec="utf-8", exclude_characters="/\x00", exclude_categories=("Cs",)),
                        min_size=1, max_size=12).filter(lambda n: n not in (".", "..")))  # fmt: skip
    def check(kind, name):
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            gt, sub = write_json(root, "gt.json", DOCVQA_GT), write_json(root, "sub.json", DOCVQA_SUB)
            before = sorted(p.name for p in root.iterdir())
            name = "out-" + name  # never one of the input files
            path = _hostile_output(root, kind, name)
            line = assert_error(capsys, ["anls", "--gt", gt, "--pred", sub, "--per-example", path], "--per-example",
                                repr(path))  # fmt: skip
            assert "mm-score anls: error:" in line and calls == []
            assert [p for p in root.iterdir() if p.name.endswith(".part")] == []
            assert before == sorted(p.name for p in root.iterdir() if p.name != name)

    check()


def test_per_example_write_failure_leaves_the_old_file(tmp_path, capsys, monkeypatch):
    """A full disk while writing --per-example: one line naming the flag, exit 2, the old file untouched and
    no partial file; a good run replaces the file whole."""
    import errno

    from multimodal_metrics.cli import paths

    gt, sub = write_json(tmp_path, "gt.json", DOCVQA_GT), write_json(tmp_path, "sub.json", DOCVQA_SUB)
    per = tmp_path / "per.jsonl"
    per.write_text("old\n")

    def full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(paths.os, "replace", full)
    assert_error(capsys, ["anls", "--gt", gt, "--pred", sub, "--per-example", str(per)], "--per-example",
                 "cannot be written (No space left on device)")  # fmt: skip
    assert per.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == [
        "gt.json",
        "per.jsonl",
        "sub.json",
    ]
    monkeypatch.undo()
    assert run(capsys, "anls", "--gt", gt, "--pred", sub, "--per-example", str(per))[0] == 0
    assert [json.loads(line)["id"] for line in per.read_text().splitlines()] == [337, 338, 339]


def test_hostile_input_files(tmp_path, capsys, monkeypatch):
    """Input files: a repeated key at any depth is refused naming the file and the key; a file larger than
    the cap, /dev/zero and a FIFO are refused before they are read (nothing hangs)."""

    zsod = {"1.jpg": {"cat": [[0, 0, 1, 1]]}}
    gt = write_json(tmp_path, "gt.json", zsod)
    (tmp_path / "dup.json").write_text('{"1.jpg": {"cat": [[0, 0, 1, 1]]}, "1.jpg": {"cat": []}}')
    assert_error(capsys, ["det-f1", "--gt", gt, "--pred", str(tmp_path / "dup.json")],
                 "dup.json: key '1.jpg' appears twice in one JSON object")  # fmt: skip
    (tmp_path / "dup.json").write_text('{"0": {"answer": "a", "lang": "en", "answer": "b"}}')
    assert_error(capsys, ["vqa-acc", "--format", "fusion_brain_2021", "--gt", str(tmp_path / "dup.json"),
                          "--pred", write_json(tmp_path, "p.json", {"0": "a"})], "dup.json: key 'answer' appears twice")  # fmt: skip
    os.mkfifo(tmp_path / "fifo.json")
    for bad in ("/dev/zero", str(tmp_path / "fifo.json")):
        assert_error(capsys, ["det-f1", "--gt", bad, "--pred", gt], f"{bad}: is not a regular file")
    monkeypatch.setattr(formats, "MAX_FILE_BYTES", 10)
    assert_error(capsys, ["det-f1", "--gt", gt, "--pred", gt], "gt.json: is larger than 10 bytes")


def test_typed_flag_error_is_one_line(tmp_path, capsys):
    """A bad value of a typed flag, an unknown flag: one line naming the command and the flag, exit 2
    (argparse printed ten lines of usage)."""
    gt = write_json(tmp_path, "gt.json", {"1.jpg": {"cat": [[0, 0, 1, 1]]}})
    assert_error(capsys, ["det-f1", "--gt", gt, "--pred", gt, "--iou-threshold", "abc"],
                 "mm-score det-f1: error: argument --iou-threshold: invalid float value: 'abc'")  # fmt: skip
    assert_error(capsys, ["det-f1", "--gt", gt, "--pred", gt, "--iou-treshold", "0.5"],
                 "mm-score det-f1: error: unrecognized arguments: --iou-treshold 0.5")  # fmt: skip
    assert_error(capsys, ["det-f1", "--gt", gt], "mm-score det-f1: error:", "required: --pred")
