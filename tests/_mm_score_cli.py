"""Helpers of the `mm-score` tests: write a JSON file, run the command in-process, check one error line."""

import json

from multimodal_metrics.cli import main


def write_json(folder, name, obj):
    """``obj`` as JSON at ``folder / name``; the path as a string."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    return str(path)


def write_files(tmp_path, gt, pred):
    """``gt`` and ``pred`` as gt.json and pred.json in ``tmp_path``: their paths."""
    return write_json(tmp_path, "gt.json", gt), write_json(tmp_path, "pred.json", pred)


def run(capsys, *argv):
    """main() in-process, without a progress bar: (exit status, stdout, stderr)."""
    code = main([*argv, "--no-progress"] if argv[0] not in ("--help", "merge") else list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def assert_error(capsys, argv, *fragments):
    """``argv`` fails with one error line (exit status 2, nothing on stdout) holding every fragment."""
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


# A DocVQA ground truth and a submission of three questions (the RRC layout)
DOCVQA_GT = {
    "dataset_name": "docvqa",
    "dataset_version": "1.0",
    "dataset_split": "val",
    "data": [
        {"questionId": 337, "question": "What is the total?", "answers": ["$ 12.50", "12.50"], "docId": 1},
        {"questionId": 338, "question": "To whom?", "answers": ["T. F. Riehl"], "docId": 1},
        {"questionId": 339, "question": "Which city?", "answers": ["Paris"], "docId": 2},
    ],
}
DOCVQA_SUB = [
    {"questionId": 339, "answer": "paris"},
    {"questionId": 337, "answer": "12.5"},
    {"questionId": 338, "answer": "T.F. Riehl"},
]
