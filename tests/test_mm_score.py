"""The command line (multimodal_metrics.cli, console script `mm-score`) on small files in each official
format and the contests' integral scores: the values of the library's functional API, no evaluate,
datasets or transformers in the process; its --help, flags and progress report. Bad input is in
test_mm_score_errors.py and test_mm_score_hostile.py, fid-clip in test_mm_score_fid_clip.py."""

import json
import re
import subprocess
import sys

import pytest
from _mm_score_cli import DOCVQA_GT, DOCVQA_SUB, assert_error, run, run_json, write_files, write_json
from helpers import ROOT, load_metric
from test_mm_score_errors import MALFORMED  # the good files of each format, first

from multimodal_metrics.cli import formats, main
from multimodal_metrics.cli.commands import COMMANDS
from multimodal_metrics.cli.integral import INTEGRALS
from multimodal_metrics.cli.main import build_parser
from multimodal_metrics.cli.scoring import CHUNK


# ------------------------------------------------------------------------------------------------
# Official files, one command each
# ------------------------------------------------------------------------------------------------
def test_anls_docvqa_files(tmp_path, capsys):
    gt, sub = (
        write_json(tmp_path, "val_v1.0.json", DOCVQA_GT),
        write_json(tmp_path, "submission.json", DOCVQA_SUB),
    )
    per = tmp_path / "per.jsonl"
    out = run_json(capsys, "anls", "--gt", gt, "--pred", sub, "--per-example", str(per))
    direct = load_metric("anls").compute(
        predictions=["12.5", "T.F. Riehl", "paris"], references=[q["answers"] for q in DOCVQA_GT["data"]],
        return_per_example=True,
    )  # fmt: skip
    assert out["anls"] == direct["anls"] and out["signature"] == direct["signature"] and out["examples"] == 3
    rows = [json.loads(line) for line in per.read_text().splitlines()]
    assert rows == [{"id": q, "anls": s} for q, s in zip((337, 338, 339), direct["per_example"])]
    assert run_json(capsys, "anls", "--gt", gt, "--pred", sub, "--threshold", "0.99")[
        "anls"
    ] == pytest.approx(1 / 3)
    code, text, _ = run(capsys, "anls", "--gt", gt, "--pred", sub, "--preset", "stvqa")
    assert code == 0 and re.search(r"^anls\s+0\.\d{6}$", text, re.M) and "preset:stvqa" in text


def test_vqa_acc_vqa_v2_and_tdiuc_files(tmp_path, capsys):
    refs1 = ["2", "2", "two", "2", "3", "2", "2", "2", "2", "2"]
    refs2 = ["blue"] * 2 + ["navy"] * 8
    questions = write_json(tmp_path, "q.json", {"questions": [
        {"question_id": 1, "image_id": 9, "question": "How many?"},
        {"question_id": 2, "image_id": 9, "question": "What color?"}]})  # fmt: skip
    annotations = write_json(tmp_path, "a.json", {"annotations": [
        {"question_id": 1, "question_type": "how many", "answer_type": "number", "multiple_choice_answer": "2",
         "answers": [{"answer": a, "answer_id": k + 1} for k, a in enumerate(refs1)]},
        {"question_id": 2, "question_type": "what color", "answer_type": "other", "multiple_choice_answer": "navy",
         "answers": [{"answer": a, "answer_id": k + 1} for k, a in enumerate(refs2)]}]})  # fmt: skip
    results = write_json(
        tmp_path, "r.json", [{"question_id": 2, "answer": "blue"}, {"question_id": 1, "answer": "two"}]
    )
    per = tmp_path / "per.jsonl"
    out = run_json(capsys, "vqa-acc", "--annotations", annotations, "--results", results, "--questions", questions,
                   "--per-example", str(per))  # fmt: skip
    direct = load_metric("vqa_acc").compute(
        predictions=["two", "blue"], references=[refs1, refs2], question_types=["how many", "what color"],
        answer_types=["number", "other"],
    )  # fmt: skip
    assert out["accuracy"] == direct["accuracy"] and out[
        "accuracy_question_type/what color"
    ] == pytest.approx(0.6)
    assert [json.loads(line)["id"] for line in per.read_text().splitlines()] == [1, 2]
    tdiuc = run_json(
        capsys, "vqa_acc", "--gt", annotations, "--pred", results, "--preset", "tdiuc"
    )  # alias spelling
    assert tdiuc["accuracy"] == 0.5  # TDIUC scores answers[0]: "2" (pred "two": wrong) and "blue" (right)
    assert (
        run_json(capsys, "vqa-acc", "--gt", annotations, "--pred", results, "--normalize", "never")[
            "accuracy"
        ]
        < 1
    )


def test_fusion_brain_2021_files_each_subtask(tmp_path, capsys):
    vqa = run_json(capsys, "vqa-acc", "--format", "fusion_brain_2021",
                   "--gt", write_json(tmp_path, "true_VQA.json", {
                       "0": {"answer": "2", "question_id": 0, "lang": "en"},
                       "1": {"answer": ["red", "dark red"], "question_id": 1, "lang": "en"},
                       "2": {"answer": "кошка", "question_id": 2, "lang": "ru"}}),
                   "--pred", write_json(tmp_path, "prediction_VQA.json", {"0": "Two.", "1": "Dark-red", "2": "Кошки"}))  # fmt: skip
    assert vqa["accuracy"] == 1.0 and "preset:fusion_brain_2021" in vqa["signature"]
    code_gt = {"0": "def f ( x ) : NEW_LINE INDENT return x + 1 NEW_LINE DEDENT",
               "1": "def g ( a , b ) : NEW_LINE INDENT return a * b NEW_LINE DEDENT"}  # fmt: skip
    code_pred = {
        "1": "def g ( a , b ) : NEW_LINE INDENT return a + b NEW_LINE DEDENT",
        "0": code_gt["0"],
        "9": "x",
    }
    c2c = run_json(capsys, "codebleu", "--gt", write_json(tmp_path, "true_C2C.json", code_gt),
                   "--pred", write_json(tmp_path, "prediction_C2C.json", code_pred))  # fmt: skip
    direct = load_metric("codebleu", "fusion_brain_2021").compute(
        predictions=[code_pred["0"], code_pred["1"]], references=[code_gt["0"], code_gt["1"]]
    )
    assert c2c["codebleu"] == direct["codebleu"] and c2c["examples"] == 2
    code, out, err = run(capsys, "ned", "--format", "fusion_brain_2021",
                         "--gt", write_json(tmp_path, "true_HTR.json", {"0.png": "Become", "1.png": "a", "2.png": ""}),
                         "--pred", write_json(tmp_path, "prediction_HTR.json", {"0.png": "Become", "1.png": "o"}), "--json")  # fmt: skip
    assert code == 0 and "1 image(s)" in err and "scored as ''" in err  # the official '' for a missing image
    assert json.loads(out)["string_accuracy"] == pytest.approx(2 / 3)  # "" == "" counts, as in the script
    zsod = run_json(capsys, "det-f1",
                    "--gt", write_json(tmp_path, "true_zsOD.json", {"9.jpg": {"cat": [[0, 0, 10, 10], [50, 50, 10, 10]],
                                                                          "dog": []}, "22.jpg": {"cat": []}}),
                    "--pred", write_json(tmp_path, "prediction_zsOD.json", {"22.jpg": {"cat": [[1, 1, 2, 2]]},
                                     "9.jpg": {"dog": [], "cat": [[0, 0, 10, 5]], "bird": [[0, 0, 10, 10]]}}))  # fmt: skip
    assert (zsod["tp"], zsod["fp"], zsod["fn"]) == (1.0, 1.0, 1.0)
    strict = run_json(capsys, "det-f1", "--gt", str(tmp_path / "true_zsOD.json"),
                      "--pred", str(tmp_path / "prediction_zsOD.json"), "--iou-boundary", "strict")  # fmt: skip
    assert strict["tp"] == 0.0


def test_fusion_brain_2022_text_files(tmp_path, capsys):
    gt = write_json(
        tmp_path,
        "textqa_gt.json",
        {
            "0": [{"type": "text", "content": ["a", "на 0,3 секунды", "a на 0,3 секунды"]}],
            "1": {"type": "text", "content": ["Авиаконструктора Сухого"]},
        },
    )  # the README's unwrapped form
    pred = write_json(tmp_path, "textqa_pred.json", {
        "0": [{"type": "image", "content": "x.jpg"}, {"type": "text", "content": "a)"}],
        "1": [{"type": "text", "content": "улица Авиаконструктора Сухого"}]})  # fmt: skip
    out = run_json(capsys, "text-qa", "--gt", gt, "--pred", pred)
    direct = load_metric("text_qa").compute(predictions=["a)", "улица Авиаконструктора Сухого"],
                                            references=[["a", "на 0,3 секунды", "a на 0,3 секунды"],
                                                        ["Авиаконструктора Сухого"]])  # fmt: skip
    assert out["f1"] == direct["f1"]
    math = run_json(capsys, "text-qa", "--preset", "mathqa",
                    "--gt", write_json(tmp_path, "mathqa_gt.json", {"0": [{"type": "text", "content": ["b", "-3"]}]}),
                    "--pred", write_json(tmp_path, "mathqa_pred.json", {"0": [{"type": "text", "content": "-3"}]}))  # fmt: skip
    assert math["exact_match"] == 1.0
    ocr = run_json(capsys, "ned",
                   "--gt", write_json(tmp_path, "tr_gt.json", {"0": [{"type": "text", "content": ["СТОП"]}],
                                                           "1": [{"type": "text", "content": ["выход"]}]}),
                   "--pred", write_json(tmp_path, "tr_pred.json", {"0": [{"type": "text", "content": "СТОП"}],
                                                               "1": [{"type": "image", "content": "a.jpg"}]}))  # fmt: skip
    assert ocr["one_minus_ned"] == 0.5  # no text element: the prediction is "" (scores 0)


# ------------------------------------------------------------------------------------------------
# Integral scores from a folder
# ------------------------------------------------------------------------------------------------
def _fb2021_folder(folder):
    write_json(folder, "C2C/true_C2C.json", {"0": "def f ( x ) : NEW_LINE INDENT return x NEW_LINE DEDENT"})
    write_json(
        folder, "C2C/prediction_C2C.json", {"0": "def f ( y ) : NEW_LINE INDENT return y NEW_LINE DEDENT"}
    )
    write_json(folder, "true_HTR.json", {"0.png": "Become", "1.png": "a", "2.png": "success"})
    write_json(folder, "prediction_HTR.json", {"0.png": "Become", "1.png": "a", "2.png": "sucess"})
    write_json(folder, "true_zsOD.json", {"1.jpg": {"cat": [[0, 0, 10, 10]], "dog": []}})
    write_json(folder, "prediction_zsOD.json", {"1.jpg": {"cat": [[0, 0, 10, 10]], "dog": [[5, 5, 2, 2]]}})
    write_json(folder, "true_VQA.json", {"0": {"answer": "yes", "lang": "en"}, "1": {"answer": "2", "lang": "en"},
                                     "2": {"answer": "red", "lang": "en"}})  # fmt: skip
    write_json(folder, "prediction_VQA.json", {"0": "yes", "1": "two", "2": "blue"})


def test_fusion_brain_2021_integral(tmp_path, capsys):
    _fb2021_folder(tmp_path)
    out = run_json(capsys, "fusion-brain-2021", str(tmp_path))
    subs = out["sub_tasks"]
    assert subs["HTR"]["score"] == pytest.approx(2 / 3) and subs["HTR"]["contribution"] == 0.667
    assert subs["zsOD"]["score"] == pytest.approx(2 / 3) and subs["VQA"]["contribution"] == 0.667
    c2c = load_metric("codebleu", "fusion_brain_2021").compute(
        predictions=["def f ( y ) : NEW_LINE INDENT return y NEW_LINE DEDENT"],
        references=["def f ( x ) : NEW_LINE INDENT return x NEW_LINE DEDENT"],
    )["codebleu"]
    assert subs["C2C"]["score"] == c2c
    assert out["score"] == pytest.approx(round(c2c, 3) + 0.667 * 3) and out["missing"] == []
    (tmp_path / "true_VQA.json").unlink()
    assert_error(capsys, ["fusion-brain-2021", str(tmp_path)], "VQA: not found: true_VQA.json", "--partial")
    out = run_json(capsys, "fusion-brain-2021", str(tmp_path), "--partial")
    assert out["missing"] == ["VQA"] and out["score"] == pytest.approx(round(c2c, 3) + 0.667 * 2)
    code, text, _ = run(capsys, "fusion-brain-2021", str(tmp_path), "--partial")
    assert code == 0 and "integral score" in text and "VQA" in text and "missing" in text


def test_fusion_brain_2022_integral_split_layout(tmp_path, capsys):
    split = tmp_path / "split"
    write_json(split, "textqa/textqa_gt.json", {"0": [{"type": "text", "content": ["Сухого"]}]})
    write_json(split, "textqa/textqa_pred.json", {"0": [{"type": "text", "content": "Сухого"}]})
    write_json(split, "mathqa/mathqa_gt.json", {"0": [{"type": "text", "content": ["a", "5"]}],
                                            "1": [{"type": "text", "content": ["b"]}]})  # fmt: skip
    write_json(
        split,
        "mathqa/mathqa_pred.json",
        {"0": [{"type": "text", "content": "5"}], "1": [{"type": "text", "content": "c"}]},
    )
    write_json(
        split, "text_recognition/text_recognition_gt.json", {"0": [{"type": "text", "content": ["abcd"]}]}
    )
    write_json(
        split, "text_recognition/text_recognition_pred.json", {"0": [{"type": "text", "content": "abce"}]}
    )
    line = assert_error(capsys, ["fusion-brain-2022", str(tmp_path)], "generation", "--partial")
    assert "mm-score fid-clip" in line
    out = run_json(capsys, "fusion-brain-2022", str(tmp_path), "--partial")
    assert out["missing"] == ["captioning", "generation", "vqa"]
    assert (
        out["sub_tasks"]["mathqa"]["score"] == 0.5 and out["sub_tasks"]["text_recognition"]["score"] == 0.75
    )
    assert out["score"] == pytest.approx((1 + 0.5 + 0.75) / 15)


def test_help_describes_every_format_with_an_example(capsys):
    parser = build_parser()
    commands = list(COMMANDS) + list(INTEGRALS)
    with pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    top = capsys.readouterr().out
    for name in commands:
        assert name in top
    for name, cmd in COMMANDS.items():
        with pytest.raises(SystemExit):
            parser.parse_args([name, "--help"])
        text = capsys.readouterr().out
        for fmt in cmd.formats.values():
            assert fmt.doc.split("\n")[0] in text
            assert "--gt" in fmt.doc and "--pred" in fmt.doc  # a minimal example of each file
            assert "{" in fmt.doc or fmt.suffix == ".txt" and "one prediction per line" in fmt.doc
        assert "--per-example" in text and "--json" in text and "--preset" in text and "exit status 2" in text
    for name in INTEGRALS:
        with pytest.raises(SystemExit):
            parser.parse_args([name, "--help"])
        assert "--partial" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        parser.parse_args(["fid-clip", "--help"])
    text = capsys.readouterr().out
    assert "generation_input.json" in text and '{"type": "image", "content": "images/0.jpg"}' in text


def test_flags_are_kebab_case_everywhere():
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, sub in subparsers.choices.items():
        for action in sub._actions:
            for flag in action.option_strings:
                assert re.fullmatch(r"-h|--[a-z0-9]+(-[a-z0-9]+)*", flag), (name, flag)


def test_console_script_and_module_run_as_commands(tmp_path):
    gt, sub = write_json(tmp_path, "gt.json", DOCVQA_GT), write_json(tmp_path, "sub.json", [DOCVQA_SUB[0]])
    exe = ROOT / ".venv" / "bin" / "mm-score"
    assert exe.exists(), (
        "setup.cfg's console_scripts entry point mm-score is not installed (bash scripts/setup_env.sh)"
    )
    for command in ([sys.executable, "-m", "multimodal_metrics.cli"], [str(exe)]):
        done = subprocess.run([*command, "anls", "--gt", gt, "--pred", sub], capture_output=True, text=True)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr.strip() == f"mm-score anls: error: {sub}: no answer for questionId 337 of {gt}"


def test_console_script_from_a_directory_outside_the_checkout(tmp_path):
    """`mm-score` run from a temporary working directory with relative paths: nothing is looked up in
    the checkout (no evaluate.load of metrics/<name>/, no .build), the result is the library's."""
    exe = ROOT / ".venv" / "bin" / "mm-score"
    assert exe.exists(), (
        "setup.cfg's console_scripts entry point mm-score is not installed (bash scripts/setup_env.sh)"
    )
    assert ROOT not in tmp_path.parents
    write_json(tmp_path, "val.json", DOCVQA_GT)
    write_json(tmp_path, "submission.json", DOCVQA_SUB)
    done = subprocess.run([str(exe), "anls", "--gt", "val.json", "--pred", "submission.json", "--json",
                           "--per-example", "per.jsonl"], capture_output=True, text=True, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    from multimodal_metrics import anls

    want = anls.score(
        ["12.5", "T.F. Riehl", "paris"], [q["answers"] for q in DOCVQA_GT["data"]], return_per_example=True
    )
    out = json.loads(done.stdout)
    assert (out["anls"], out["signature"], out["examples"]) == (want["anls"], want.signature, 3)
    rows = [json.loads(line) for line in (tmp_path / "per.jsonl").read_text().splitlines()]
    assert [r["anls"] for r in rows] == want.per_example


# what main() of each command may not import: the evaluate stack (and torch for the text metrics)
HEAVY = ("evaluate", "datasets", "transformers", "torch", "gradio")
LIGHT_RUN = f"""
import json, sys
from multimodal_metrics.cli import main
code = main(sys.argv[1:])
heavy = sorted({{m.split(".")[0] for m in sys.modules}} & set({HEAVY!r}))
print(json.dumps({{"code": code, "heavy": heavy}}))
"""


LIGHT_CASES = {name: MALFORMED[name][:3] for name in ("anls", "vqa_v2", "c2c", "htr", "zsod", "fb2022")}
LIGHT_CASES["ru_meteor"] = (["ru-meteor", "--synonyms", "none"], {"0": [{"type": "text", "content": ["две птицы"]}]},
                            {"0": [{"type": "text", "content": "две птицы летают"}]})  # fmt: skip


@pytest.mark.parametrize("case", sorted(LIGHT_CASES))
def test_main_imports_no_evaluate_stack(tmp_path, case):
    """main() of each text metric's command, in a fresh process: the library scores, evaluate, datasets,
    transformers, torch and gradio stay out of sys.modules (vqa_acc reads its answers through pyarrow), and
    nothing is written under HF_HOME."""
    import os

    argv, gt, pred = LIGHT_CASES[case]
    gt_path, pred_path = write_files(tmp_path, gt, pred)
    hf_home = tmp_path / "hf_home"
    hf_home.mkdir()
    env = {**os.environ, "HF_HOME": str(hf_home), "HF_DATASETS_CACHE": str(hf_home / "datasets")}
    done = subprocess.run([sys.executable, "-c", LIGHT_RUN, *argv, "--gt", gt_path, "--pred", pred_path, "--json",
                           "--no-progress"], capture_output=True, text=True, cwd=tmp_path, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {"code": 0, "heavy": []}, report
    assert list(hf_home.rglob("*")) == []  # no evaluate, no Arrow cache file: nothing under HF_HOME


def test_vqa_acc_tdiuc_answer_key_csv(tmp_path, capsys):
    """--answer-key FILE: the TDIUC answer-key CSV (answer,id rows), read as the official script reads it."""
    from multimodal_metrics import vqa_acc

    annotations = write_json(tmp_path, "a.json", {"annotations": [
        {"question_id": 1, "question_type": "color", "answers": [{"answer": "red"}]},
        {"question_id": 2, "question_type": "counting", "answers": [{"answer": "7"}]},
        {"question_id": 3, "question_type": "color", "answers": [{"answer": "blue"}]}]})  # fmt: skip
    results = write_json(
        tmp_path, "r.json", [{"question_id": q, "answer": a} for q, a in ((1, "red"), (2, "7"), (3, "red"))]
    )
    key = tmp_path / "answer_key.csv"
    key.write_text("red,0\nblue,1\n\n2,2\n", encoding="utf-8")  # "7" is outside the key: always wrong
    out = run_json(capsys, "vqa-acc", "--gt", annotations, "--pred", results, "--preset", "tdiuc",
                   "--answer-key", str(key))  # fmt: skip
    want = vqa_acc.score(["red", "7", "red"], ["red", "7", "blue"], preset="tdiuc",
                         question_types=["color", "counting", "color"], answer_key=["red", "blue", "2"])  # fmt: skip
    assert {k: out[k] for k in want} == dict(want) and out["accuracy"] == pytest.approx(1 / 3)
    assert "|key:" in out["signature"] and "|key:none|" not in out["signature"]
    key.write_text("red,0\nblue\n", encoding="utf-8")
    assert_error(capsys, ["vqa-acc", "--gt", annotations, "--pred", results, "--preset", "tdiuc", "--answer-key",
                          str(key)], "answer_key.csv: row 2: expected an answer,id row")  # fmt: skip
    assert_error(capsys, ["vqa-acc", "--gt", annotations, "--pred", results, "--preset", "tdiuc", "--answer-key",
                          str(tmp_path / "none.csv")], "none.csv: file not found")  # fmt: skip


def test_option_flags_come_from_the_option_tables():
    """Every command's option flags are its metric's option table (Option.cli=False: no flag), typed as the
    table says; fid-clip leaves out `progress` (its own --progress) and `meteor`."""
    import importlib

    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    commands = {name: cmd.metric for name, cmd in COMMANDS.items()} | {"fid-clip": "fid_clip"}
    for name, metric in commands.items():
        table = importlib.import_module(f"multimodal_metrics.{metric}").OPTIONS
        actions = {a.dest: a for a in subparsers.choices[name]._actions}
        skip = {"progress", "meteor"} if metric == "fid_clip" else set()
        for option in table:
            if option.cli is False or option.name in skip:
                assert option.name not in actions or option.name == "progress", (name, option.name)
                continue
            action = actions[option.name]
            assert action.option_strings[0] == "--" + option.name.replace("_", "-"), (name, option.name)
            assert action.default is None, (name, option.name)
            if option.kind == "number" and not callable(option.cli):
                assert action.type is float, (name, option.name)
            if option.kind == "integer":
                assert action.type is int, (name, option.name)
            if option.kind == "bool":
                assert "--no-" + option.name.replace("_", "-") in action.option_strings, (name, option.name)
    vqa = {a.dest: a for a in subparsers.choices["vqa-acc"]._actions}
    assert (
        vqa["answer_key"].metavar == "FILE" and vqa["answer_key"].type is None
    )  # read by formats.answer_key_csv
    args = parser.parse_args(["codebleu", "--gt", "g", "--pred", "p", "--weights", "0.25,0.25,0.25,0.25"])
    assert args.weights == [0.25] * 4


def test_formats_module_reports_the_reader_results(tmp_path):
    gt, sub = write_json(tmp_path, "gt.json", DOCVQA_GT), write_json(tmp_path, "sub.json", DOCVQA_SUB)
    loaded = formats.docvqa(gt, sub)
    assert loaded.ids == [337, 338, 339] and loaded.predictions == ["12.5", "T.F. Riehl", "paris"]
    with pytest.raises(
        formats.FormatError, match=r"sub\.json: record 0 \(questionId '9x'\): field 'questionId'"
    ):
        formats.docvqa(gt, write_json(tmp_path, "sub.json", [{"questionId": "9x", "answer": "a"}]))


def test_progress_bar_on_long_inputs(tmp_path, capsys):
    n = 2 * CHUNK + 5
    gt = write_json(tmp_path, "gt.json", {"dataset_name": "docvqa",
                                      "data": [{"questionId": i, "answers": ["yes"]} for i in range(n)]})  # fmt: skip
    sub = write_json(
        tmp_path, "sub.json", [{"questionId": i, "answer": "yes" if i % 2 else "no"} for i in range(n)]
    )
    code = main(["anls", "--gt", gt, "--pred", sub, "--progress"])
    out = capsys.readouterr()
    assert code == 0 and f"{n}/{n}" in out.err and "anls: scoring" in out.err
    assert re.search(r"^anls\s+0\.4997", out.out, re.M)
    assert main(["anls", "--gt", gt, "--pred", sub]) == 0  # default: no bar when stderr is not a terminal
    assert capsys.readouterr().err == ""


def test_fusion_brain_2022_integral_unsplit_files(tmp_path, capsys):
    """ids.json + ground_truth.json + predictions.json, split as the official split_tasks.py does."""
    gt = {
        "0": [{"type": "text", "content": ["Сухого"]}],
        "1": [{"type": "text", "content": ["5"]}],
        "2": [{"type": "text", "content": ["abcd"]}],
        "3": [{"type": "image", "content": "gt_images/3.jpg"}],
    }
    pred = {
        "0": [{"type": "text", "content": "Сухого"}],
        "1": [{"type": "text", "content": "6"}],
        "2": [{"type": "text", "content": "abce"}],
        "3": [{"type": "image", "content": "images/3.jpg"}],
    }
    write_json(tmp_path, "ids.json", {"0": 0, "1": 1, "2": 5, "3": 2})
    write_json(tmp_path, "ground_truth.json", gt)
    write_json(tmp_path, "predictions.json", pred)
    out = run_json(capsys, "fusion-brain-2022", str(tmp_path), "--partial")
    assert {k: v["score"] for k, v in out["sub_tasks"].items()} == {
        "textqa": 1.0,
        "mathqa": 0.0,
        "text_recognition": 0.75,
    }
    assert out["missing"] == ["captioning", "generation", "vqa"] and out["score"] == pytest.approx(1.75 / 15)
    write_json(tmp_path, "ids.json", {"0": 0, "1": 7})
    assert_error(
        capsys,
        ["fusion-brain-2022", str(tmp_path), "--partial"],
        "ids.json: record '1'",
        "sub-task number 0-5",
    )
    write_json(tmp_path, "ids.json", {"0": 0, "9": 1})
    assert_error(
        capsys, ["fusion-brain-2022", str(tmp_path), "--partial"], "ground_truth.json: record '9'", "missing"
    )


# ------------------------------------------------------------------------------------------------
# Official files through the console script; paired comparison
# ------------------------------------------------------------------------------------------------
def test_tdiuc_files_through_the_console_script(tmp_path):
    """Kafle's TDIUC files as distributed: annotations with answer_confidence / ans_source and no
    answer_type, an answer key written by csv (quoted answers with commas, CRLF rows): `mm-score vqa-acc
    --preset tdiuc --answer-key` scores them as the library does (the issue: it refused the key)."""
    import csv

    from multimodal_metrics import vqa_acc

    rows = [(1, "color", "red, white", "red, white"), (2, "counting", "2", "3"), (3, "absurd", "doesnotapply",
            "doesnotapply"), (4, "object_presence", "yes", "yes"), (5, "color", "blue", "red, white")]  # fmt: skip
    annotations = write_json(tmp_path, "mscoco_val2014_annotations.json", {"annotations": [
        {"question_id": q, "image_id": 100 + q, "question_type": t, "ans_source": "generation",
         "answers": [{"answer": gt, "answer_confidence": "yes", "answer_id": 1}]} for q, t, gt, _ in rows]})  # fmt: skip
    results = write_json(tmp_path, "results.json", [{"question_id": q, "answer": p} for q, _, _, p in rows])
    key = tmp_path / "answerkey.csv"
    with open(key, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(
            [(a, i) for i, a in enumerate(["red, white", "2", "3", "doesnotapply", "yes"])]
        )
    assert b'"red, white",0\r\n' in key.read_bytes()
    exe = ROOT / ".venv" / "bin" / "mm-score"
    done = subprocess.run([str(exe), "vqa-acc", "--annotations", annotations, "--results", results, "--preset", "tdiuc",
                           "--answer-key", str(key), "--json"], capture_output=True, text=True, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    want = vqa_acc.score([p for *_, p in rows], [gt for _, _, gt, _ in rows], preset="tdiuc",
                         question_types=[t for _, t, _, _ in rows],
                         answer_key=["red, white", "2", "3", "doesnotapply", "yes"])  # fmt: skip
    out = json.loads(done.stdout)
    assert {k: out[k] for k in want} == dict(want) and out["accuracy"] == pytest.approx(3 / 5)


def test_compare_pred_p_value_rule(tmp_path, capsys, monkeypatch):
    """--p-value chooses the paired test's p-value rule from the library's declaration (stats.P_VALUES:
    "ge", ties counted, the default; "sacrebleu"); the printed signature records it as the library does
    (p:ge / p:sacrebleu) and the numbers are the library's compare with that rule."""
    from multimodal_metrics import anls, stats

    answers = [f"answer{i}" for i in range(8)]
    gt = write_json(
        tmp_path,
        "gt.json",
        {
            "dataset_name": "docvqa",
            "data": [{"questionId": i, "answers": [a]} for i, a in enumerate(answers)],
        },
    )
    a_preds = [a if i != 0 else "zzz" for i, a in enumerate(answers)]  # 7/8 right
    b_preds = [a if i not in (1, 2) else "zzz" for i, a in enumerate(answers)]  # 6/8: they differ on 3
    pred_a = write_json(tmp_path, "a.json", [{"questionId": i, "answer": p} for i, p in enumerate(a_preds)])
    pred_b = write_json(tmp_path, "b.json", [{"questionId": i, "answer": p} for i, p in enumerate(b_preds)])
    argv = ["anls", "--gt", gt, "--pred", pred_a, "--compare-pred", pred_b, "--n-resamples", "2000"]
    for flags, rule in (([], "ge"), (["--p-value", "ge"], "ge"), (["--p-value", "sacrebleu"], "sacrebleu")):
        out = run_json(capsys, *argv, *flags)
        direct = anls.compare(a_preds, b_preds, [[a] for a in answers], n_resamples=2000, p_value=rule)
        assert {k: out[k] for k in direct} == direct and out["examples"] == 8
        assert f"|p:{rule}|" in out["signature"]
    # every swap of the 3 discordant questions is at least as far apart as A and B (1/8): p = 1 when ties
    # count; sacrebleu's strict count keeps only the swaps 3/8 apart (1 in 4)
    assert run_json(capsys, *argv)["anls_p_value"] == 1.0
    assert 0.2 < run_json(capsys, *argv, "--p-value", "sacrebleu")["anls_p_value"] < 0.3
    assert_error(
        capsys, [*argv, "--p-value", "GE"], "mm-score anls: error: argument --p-value: invalid choice: 'GE'"
    )
    assert_error(capsys, ["anls", "--gt", gt, "--pred", pred_a, "--p-value", "sacrebleu"],
                 "--p-value", "--compare-pred")  # fmt: skip
    # one declaration: the flag's choices and default are the library's
    monkeypatch.setattr(stats, "P_VALUES", (*stats.P_VALUES, "hypothetical"))
    action = next(a for a in build_parser()._subparsers._group_actions[0].choices["anls"]._actions
                  if a.dest == "p_value")  # fmt: skip
    assert list(action.choices) == list(stats.P_VALUES) and stats.DEFAULT_P_VALUE in action.help
