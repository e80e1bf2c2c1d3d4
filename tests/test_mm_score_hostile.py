"""`mm-score` against hostile files and paths: every subcommand, run
as a command in a fresh process, must answer each case with ONE error line on stderr naming the file
(and record, field or flag), exit status 2, no traceback, nothing on stdout, nothing left behind (no
file under HF_HOME, no partial output file), and no hang (a FIFO, /dev/zero).

The cases: for every file a command reads, /dev/zero, a FIFO, a folder, and a JSON object with a repeated
key; for every command, a badly typed flag; for --per-example, a missing folder, a folder, /dev/full,
/proc and /sys paths, a path below a regular file (and a read-only folder when not root); for
fid-clip, a decompression bomb among the generated images and submission paths that leave the
submission's folder (``..``, absolute, a symlink) or enter the ground-truth images."""

import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import pytest

DOCVQA_GT = {
    "dataset_name": "docvqa",
    "data": [{"questionId": 1, "answers": ["a"]}, {"questionId": 2, "answers": ["b"]}],
}
DOCVQA_PRED = [{"questionId": 1, "answer": "a"}, {"questionId": 2, "answer": "c"}]
VQA_ANN = {"annotations": [{"question_id": 1, "question_type": "color", "answers": [{"answer": "red"}] * 10}]}
VQA_RES = [{"question_id": 1, "answer": "red"}]
FB22_GT = {"0": [{"type": "text", "content": ["две птицы"]}]}
FB22_PRED = {"0": [{"type": "text", "content": "две птицы летают"}]}
ZSOD = {"1.jpg": {"cat": [[0, 0, 10, 10]]}}

# the files of each command: command -> (argv before the files, {flag: (file name, content)})
COMMANDS = {
    "anls": (["anls"], {"--gt": ("docvqa_gt.json", DOCVQA_GT), "--pred": ("docvqa_pred.json", DOCVQA_PRED)}),
    "vqa-acc": (
        ["vqa-acc"],
        {
            "--annotations": ("vqa_ann.json", VQA_ANN),
            "--results": ("vqa_res.json", VQA_RES),
            "--questions": ("vqa_q.json", {"questions": [{"question_id": 1, "image_id": 1}]}),
        },
    ),
    "codebleu": (
        ["codebleu"],
        {"--gt": ("c2c_gt.json", {"0": "x = 1"}), "--pred": ("c2c_pred.json", {"0": "x = 2"})},
    ),
    "ned": (["ned"], {"--gt": ("tr_gt.json", FB22_GT), "--pred": ("tr_pred.json", FB22_PRED)}),
    "det-f1": (["det-f1"], {"--gt": ("zsod_gt.json", ZSOD), "--pred": ("zsod_pred.json", ZSOD)}),
    "text-qa": (["text-qa"], {"--gt": ("qa_gt.json", FB22_GT), "--pred": ("qa_pred.json", FB22_PRED)}),
    "ru-meteor": (
        ["ru-meteor", "--synonyms", "none"],
        {"--gt": ("cap_gt.json", FB22_GT), "--pred": ("cap_pred.json", FB22_PRED)},
    ),
}
# a badly typed flag of each command: (argv after the files, the fragment of the error)
BAD_FLAGS = {
    "anls": (["--threshold", "half"], "argument --threshold: invalid float value: 'half'"),
    "vqa-acc": (["--n-resamples", "1.5"], "argument --n-resamples: invalid int value: '1.5'"),
    "codebleu": (["--weights", "a,b"], "argument --weights"),
    "ned": (["--seed", "x"], "argument --seed: invalid int value: 'x'"),
    "det-f1": (["--iou-threshold", "abc"], "argument --iou-threshold: invalid float value: 'abc'"),
    "text-qa": (["--confidence", "high"], "argument --confidence: invalid float value: 'high'"),
    "ru-meteor": (["--alpha", "0,9"], "argument --alpha: invalid float value: '0,9'"),
    "fid-clip": (["--batch-size", "many"], "argument --batch-size: invalid int value: 'many'"),
    "fusion-brain-2021": (["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
    "fusion-brain-2022": (["--partial=yes"], "argument --partial: ignored explicit argument 'yes'"),
}
# the pairs ({good_json: text}) holding one key twice: json would keep the last silently
DUPLICATE = '{"1.jpg": {"cat": [[0, 0, 10, 10]]}, "1.jpg": {"cat": []}}'


def _png_header(width: int, height: int) -> bytes:
    """A PNG of only its header (IHDR) and end: PIL reads the size, a decompression bomb when large."""

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IEND", b"")
    )


def _write(path: Path, obj) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """Good files of every command, a FIFO, a folder, a JSON object with a repeated key, the fid-clip layout."""
    from PIL import Image

    root = tmp_path_factory.mktemp("hostile")
    for _, files in COMMANDS.values():
        for name, content in files.values():
            _write(root / name, content)
    os.mkfifo(root / "fifo.json")
    (root / "folder.json").mkdir()
    _write(root / "duplicate.json", DUPLICATE)
    (root / "file").write_text("x")
    gen = root / "generation"
    for folder in ("gt_images", "images", "bomb_images", "link_images"):
        (gen / folder).mkdir(parents=True)
        for i in range(2):
            Image.new("RGB", (8, 8), (60 * i, 10, 10)).save(gen / folder / f"{i}.png")
    (gen / "bomb_images" / "1.png").write_bytes(_png_header(20000, 20000))  # 4e8 pixels: PIL's bomb error
    (gen / "link_images" / "out.png").symlink_to(root / "outside.png")  # links out of the submission
    (gen / "link_images" / "1.png").unlink()
    (gen / "link_images" / "1.png").symlink_to(gen / "gt_images" / "1.png")
    (root / "outside.png").write_bytes((gen / "images" / "0.png").read_bytes())
    prompts = {
        k: [{"type": "text", "content": "Сгенерируй."}, {"type": "text", "content": "Кот"}] for k in "01"
    }
    _write(gen / "generation_input.json", prompts)
    _write(gen / "generation_pred.json", _generation_pred("images/0.png"))
    # fusion-brain-2021: a FIFO where a sub-task file is looked up; fusion-brain-2022: ids.json repeats a key
    _write(root / "fb2021" / "true_VQA.json", {"0": {"answer": "yes"}})
    os.mkfifo(root / "fb2021" / "prediction_VQA.json")
    _write(root / "fb2022" / "ids.json", '{"0": 0, "0": 1}')
    _write(root / "fb2022" / "ground_truth.json", {"0": [{"type": "text", "content": ["a"]}]})
    _write(root / "fb2022" / "predictions.json", {"0": [{"type": "text", "content": "a"}]})
    return root


def _generation_pred(first: str) -> dict:
    """generation_pred.json whose record '0' names the image ``first`` (record '1': images/1.png)."""
    return {
        k: [{"type": "text", "content": ""}, {"type": "image", "content": path}]
        for k, path in (("0", first), ("1", "images/1.png"))
    }


def _files(root: Path, command: str, replace: dict | None = None) -> list:
    argv, files = COMMANDS[command]
    out = list(argv)
    for flag, (name, _) in files.items():
        out += [flag, (replace or {}).get(flag, str(root / name))]
    return out


def _fid_clip(root: Path, pred="generation_pred.json", pred_images="images") -> list:
    gen = root / "generation"
    return ["fid-clip", "--gt-images", str(gen / "gt_images"), "--pred-images", str(gen / pred_images),
            "--input", str(gen / "generation_input.json"), "--pred", str(gen / pred)]  # fmt: skip


def _cases() -> list:
    """(case id, argv(root) -> list, fragments(root) -> list of strings the error line must hold)."""
    cases = []
    for command, (_, files) in COMMANDS.items():
        for flag in files:
            for what, name, fragment in (
                ("dev-zero", "/dev/zero", "/dev/zero: is not a regular file"),
                ("fifo", "fifo.json", "fifo.json: is not a regular file"),
                ("folder", "folder.json", "folder.json: is a folder"),
                ("duplicate-key", "duplicate.json", "duplicate.json: key '1.jpg' appears twice"),
            ):

                def argv(root, command=command, flag=flag, name=name):
                    return _files(root, command, {flag: name if name.startswith("/") else str(root / name)})

                cases.append((f"{command}-{flag[2:]}-{what}", argv, lambda root, f=fragment: [f]))
    cases.append(
        (
            "vqa-acc-answer-key-fifo",
            lambda root: (
                _files(root, "vqa-acc") + ["--preset", "tdiuc", "--answer-key", str(root / "fifo.json")]
            ),
            lambda root: ["fifo.json: is not a regular file", "answer-key CSV"],
        )
    )

    def answer_key_without_tdiuc(root):
        key = Path(tempfile.mkdtemp(prefix="mm-key-")) / "key.csv"  # outside root: root must stay as it was
        key.write_text("yes,1\nno,2\n")
        return _files(root, "vqa-acc") + ["--answer-key", str(key)]

    cases.append(
        (
            "vqa-acc-answer-key-without-tdiuc",
            answer_key_without_tdiuc,
            lambda root: ["unknown option 'answer_key'", "preset 'tdiuc' does"],
        )
    )
    cases.append(
        (
            "ru-meteor-ruwordnet-path-fifo",
            lambda root: _files(root, "ru-meteor") + ["--ruwordnet-path", str(root / "fifo.json")],
            lambda root: ["--ruwordnet-path", "fifo.json", "is not a regular file or folder"],
        )
    )
    # --per-example: checked before any scoring starts
    per_example = [
        ("missing-folder", "/nonexistent-mm/per.jsonl", "does not exist"),
        ("folder", "/tmp", "is a folder"),
        ("dev-full", "/dev/full", "is not a regular file"),
        ("proc", "/proc/per.jsonl", "cannot be written"),
        ("proc-file", "/proc/self/status", "cannot be written"),
        ("sys", "/sys/per.jsonl", "cannot be written"),
        ("below-a-file", "file/per.jsonl", "cannot be written"),
    ]
    if os.geteuid() != 0:
        per_example.append(("read-only-folder", "read_only/per.jsonl", "cannot be written"))
    for command in COMMANDS:
        for what, path, fragment in per_example:

            def argv(root, command=command, path=path):
                return _files(root, command) + [
                    "--per-example",
                    path if path.startswith("/") else str(root / path),
                ]

            cases.append(
                (f"{command}-per-example-{what}", argv, lambda root, f=fragment: ["--per-example", f])
            )
    for what, path, fragment in per_example:
        cases.append(
            (
                f"fid-clip-per-example-{what}",
                lambda root, p=path: (
                    _fid_clip(root) + ["--per-example", p if p.startswith("/") else str(root / p)]
                ),
                lambda root, f=fragment: ["--per-example", f],
            )
        )
    cases.append(
        (
            "fid-clip-save-stats-file",
            lambda root: _fid_clip(root) + ["--save-stats", "/dev/null"],
            lambda root: ["--save-stats", "is not a folder"],
        )
    )
    cases.append(
        (
            "fid-clip-inception-weights-dev-zero",
            lambda root: _fid_clip(root) + ["--inception-weights", "/dev/zero"],
            lambda root: ["--inception-weights", "is not a regular file or folder"],
        )
    )
    for command, (extra, fragment) in BAD_FLAGS.items():
        if command in COMMANDS:
            argv = lambda root, c=command, e=extra: _files(root, c) + e  # noqa: E731
        elif command == "fid-clip":
            argv = lambda root, e=extra: _fid_clip(root) + e  # noqa: E731
        else:
            argv = lambda root, c=command, e=extra: [c, str(root / c.replace("fusion-brain-", "fb")), *e]  # noqa: E731
        cases.append((f"{command}-bad-flag", argv, lambda root, f=fragment: [f]))
    # --p-value: a rule outside the library's (stats.P_VALUES), and a rule without a paired test
    for command, (_, files) in COMMANDS.items():
        pred = next(name for flag, (name, _) in files.items() if flag in ("--pred", "--results"))
        for what, extra, fragment in (
            ("unknown", ["--p-value", "≥"], "argument --p-value: invalid choice: '≥'"),
            ("case", ["--p-value", "GE"], "argument --p-value: invalid choice: 'GE'"),
            ("spaced", ["--p-value", "ge "], "argument --p-value: invalid choice: 'ge '"),
        ):

            def argv(root, c=command, e=extra, pred=pred):
                return _files(root, c) + ["--compare-pred", str(root / pred), *e]

            cases.append((f"{command}-p-value-{what}", argv, lambda root, f=fragment: [f]))
        cases.append(
            (
                f"{command}-p-value-without-compare-pred",
                lambda root, c=command: _files(root, c) + ["--p-value", "sacrebleu"],
                lambda root: ["--p-value", "give --compare-pred too"],
            )
        )
    # the integral commands: a FIFO where a sub-task file is looked up, a repeated key in ids.json
    cases.append(
        (
            "fusion-brain-2021-fifo",
            lambda root: ["fusion-brain-2021", str(root / "fb2021"), "--partial"],
            lambda root: ["prediction_VQA.json: is not a regular file"],
        )
    )
    cases.append(
        (
            "fusion-brain-2022-duplicate-key",
            lambda root: ["fusion-brain-2022", str(root / "fb2022"), "--partial"],
            lambda root: ["ids.json: key '0' appears twice"],
        )
    )
    # fid-clip: a decompression bomb among the generated images; submission paths leaving the submission
    cases.append(
        (
            "fid-clip-decompression-bomb",
            lambda root: _fid_clip(root, pred_images="bomb_images"),
            lambda root: [str(root / "generation" / "bomb_images" / "1.png"), "decompression bomb"],
        )
    )
    record = [".json: record '0' element 1", "field 'content'", "refused"]
    for what, path in (
        ("dotdot-gt", "../generation/gt_images/0.png"),
        ("dotdot-outside", "../outside.png"),
        ("absolute", "ABS"),
        ("symlink-out", "link_images/out.png"),
        ("gt-folder", "gt_images/1.png"),
    ):

        def argv(root, what=what, path=path):
            content = str(root / "outside.png") if path == "ABS" else path
            _write(root / "generation" / f"pred_{what}.json", _generation_pred(content))
            return _fid_clip(root, pred=f"pred_{what}.json")

        cases.append((f"fid-clip-path-{what}", argv, lambda root: record))
    cases.append(
        (
            "fid-clip-pred-images-symlink-to-gt",
            lambda root: _fid_clip(root, pred_images="link_images"),
            lambda root: ["link_images", "1.png", "outside the folder", "refused"],
        )
    )
    return cases


CASES = _cases()


def test_the_hostile_suite_covers_every_subcommand():
    from multimodal_metrics.cli.commands import COMMANDS
    from multimodal_metrics.cli.integral import INTEGRALS

    covered = {case_id for case_id, _, _ in CASES}
    names = [*COMMANDS, "fid-clip", *INTEGRALS]
    for name in names:
        assert sum(c.startswith(name + "-") for c in covered) >= 2, name
    assert len(CASES) >= 100, len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_hostile_case_is_one_line_exit_2_nothing_left(work, tmp_path, case):
    case_id, argv, fragments = case
    hf_home = tmp_path / "hf_home"
    hf_home.mkdir()
    env = {**os.environ, "HF_HOME": str(hf_home), "HF_DATASETS_CACHE": str(hf_home / "datasets"),
           "PYTHONPATH": os.pathsep.join(p for p in (str(Path(__file__).parent.parent / "src"),
                                                     os.environ.get("PYTHONPATH")) if p)}  # fmt: skip
    before = set(os.listdir(work))
    done = subprocess.run([sys.executable, "-m", "multimodal_metrics.cli", *argv(work), "--no-progress"],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr and done.stdout == "", done.stderr[-2000:]
    assert len(lines) == 1, done.stderr
    command = argv(work)[0]
    assert lines[0].startswith(f"mm-score {command}: error: "), lines[0]
    for fragment in fragments(work):
        assert fragment in lines[0], (fragment, lines[0])
    assert [str(p) for p in hf_home.rglob("*")] == [], "files left in HF_HOME"
    left = {n for n in set(os.listdir(work)) - before if not n.startswith("pred_")} | {
        n for n in os.listdir(work) if n.endswith(".part")
    }
    assert not left, left
