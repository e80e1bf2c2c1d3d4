"""`mm-score` as a shell user expects it: errors in the words of the command line (flags, not keyword
arguments), `--version`, whole help lines, every preset of the metric's PRESETS in each --help, CodeXGLUE's
text files for codebleu, the AIJ 2022 integral without RuWordNet, and fid-clip's FID without a CLIP model."""

import json
import re

import pytest
from oracles.ru_meteor import make_ruwordnet_db

from multimodal_metrics import codebleu
from multimodal_metrics.cli import formats, integral, main
from multimodal_metrics.cli.commands import COMMANDS
from multimodal_metrics.cli.main import build_parser
from multimodal_metrics.cli.scoring import library
from multimodal_metrics.cli.words import in_flags, locate


def _write(folder, name, obj):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    return str(path)


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def one_error(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and "Traceback" not in err, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def help_text(capsys, *argv) -> str:
    with pytest.raises(SystemExit):
        build_parser().parse_args([*argv, "--help"])
    return capsys.readouterr().out


# ------------------------------------------------------------------------------------------------
# --version, --help
# ------------------------------------------------------------------------------------------------
def test_version(capsys):
    from multimodal_metrics import __version__

    code, out, err = run(capsys, "--version")
    assert code == 0 and out.strip() == f"mm-score {__version__} (multimodal-metrics)" and err == ""


def test_the_command_list_has_whole_lines(capsys):
    """Each command's line in `mm-score --help` is a whole phrase (fusion-brain-2021's ended at "VQA accuracy,")."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for choice in sub._choices_actions:
        text = choice.help
        assert not text.rstrip().endswith((",", ":", "+", "-", "(", "x")), (choice.dest, text)
        assert text.count("(") == text.count(")"), (choice.dest, text)
    top = " ".join(help_text(capsys).split())
    assert (
        "VQA accuracy, fusion-brain-2022" not in top
        and "fusion-brain-2021 AIJ 2021 Fusion Brain integral score" in top
    )


def _listed_presets(line: str) -> list[str]:
    """The preset names of a "Presets (--preset): a (note), b, c (note)" line."""
    return [re.sub(r"\s*\(.*\)$", "", part).strip() for part in re.split(r",\s*(?![^(]*\))", line)]


@pytest.mark.parametrize("name", [*COMMANDS, "fid-clip"])
def test_every_help_lists_the_presets_of_PRESETS(capsys, name):
    """--help and --preset's choices are read from the metric's PRESETS (anls_star, lmms_eval, vlmevalkit,
    k4black were missing when the list was typed by hand)."""
    metric = COMMANDS[name].metric if name in COMMANDS else "fid_clip"
    presets = list(library(metric).PRESETS)
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices[name]
    action = next(a for a in sub._actions if "--preset" in a.option_strings)
    assert list(action.choices) == presets
    assert _listed_presets(action.help.split("one of ", 1)[1].split(" (default: the one")[0]) == presets
    text = help_text(capsys, name)
    if name in COMMANDS:
        line = next(line for line in text.splitlines() if line.startswith("Presets (--preset): "))
        assert _listed_presets(line.removeprefix("Presets (--preset): ")) == presets
    code, _, err = run(capsys, name, "--preset", "no_such_preset")
    assert code == 2 and "--preset" in err and all(p in err for p in presets)


# ------------------------------------------------------------------------------------------------
# Errors in the words of the command line
# ------------------------------------------------------------------------------------------------
@pytest.fixture
def c2c(tmp_path):
    return [_write(tmp_path, "true_C2C.json", {"0": "x = 1", "1": "y = 2"}),
            _write(tmp_path, "prediction_C2C.json", {"0": "x = 1", "1": "y = 3"})]  # fmt: skip


def test_errors_name_flags_not_keyword_arguments(capsys, c2c, tmp_path, monkeypatch):
    line = one_error(capsys, "codebleu", "--gt", c2c[0], "--pred", c2c[1], "--preset", "default")
    assert "--lang is required" in line and "(e.g. --lang python)" in line
    assert "compute(" not in line and "lang=" not in line and "`lang`" not in line
    monkeypatch.delenv("RUWORDNET_DB", raising=False)
    gt = _write(tmp_path, "cap_gt.json", {"0": [{"type": "text", "content": ["две птицы"]}]})
    pred = _write(tmp_path, "cap_pred.json", {"0": [{"type": "text", "content": "две птицы"}]})
    line = one_error(capsys, "ru-meteor", "--gt", gt, "--pred", pred)
    assert "RuWordNet database was not found" in line
    assert "--synonyms none" in line and "--ruwordnet-path" in line
    assert 'synonyms="none"' not in line and "ruwordnet_path" not in line
    line = one_error(capsys, "ru-meteor", "--gt", gt, "--pred", pred, "--synonyms", "nonee")
    assert line.endswith(
        "error: --synonyms must be one of ['ruwordnet_fb', 'ruwordnet_synsets', 'wordnet', 'none'], got 'nonee'"
    )


def test_library_words_become_flags():
    flags = {"letter_fallback": "--letter-fallback", "num_answers": "--num-answers", "lang": "--lang",
             "synonyms": "--synonyms", "weights": "--weights", "ruwordnet_path": "--ruwordnet-path"}  # fmt: skip
    cases = {
        "pass letter_fallback=False to ...": "pass --no-letter-fallback to ...",
        "but num_answers=10 (preset 'vqa_v2'); pass num_answers=0": "but --num-answers 10 (preset 'vqa_v2'); pass --num-answers 0",
        "(e.g. compute(..., lang='python'))": "(e.g. --lang python)",
        'or pass `synonyms="none"` to run': "or pass --synonyms none to run",
        "pass `ruwordnet_path=` its path": "pass --ruwordnet-path its path",
        "`weights[2]` must be": "value 3 of --weights must be",
        "`ruwordnet_path` is not a file": "--ruwordnet-path is not a file",
        "`predictions[3]` and max_num_answers=2 stay": "`predictions[3]` and max_num_answers=2 stay",
    }  # fmt: skip
    for message, expected in cases.items():
        assert in_flags(message, flags) == expected, message


def test_weights_refusals_name_the_flag(capsys, c2c):
    """--weights inf,0,0,0 was blamed on "true_C2C.json: record '0'"; --weights -1,1,1,1 gave argparse's
    "expected one argument"."""
    for value, got in (("inf,0,0,0", "inf"), ("-1,1,1,1", "-1.0"), ("-inf,1,1,1", "-inf")):
        line = one_error(capsys, "codebleu", "--gt", c2c[0], "--pred", c2c[1], "--weights", value)
        assert (
            line
            == f"mm-score codebleu: error: value 1 of --weights must be a finite number >= 0.0, got {got}"
        ), line
    line = one_error(capsys, "codebleu", "--gt", c2c[0], "--pred", c2c[1], "--weights", "1,1,-.5,1")
    assert "value 3 of --weights" in line and "record" not in line
    code, out, err = run(
        capsys, "codebleu", "--gt", c2c[0], "--pred", c2c[1], "--weights", "0.1,0.1,0.4,0.4", "--json"
    )
    assert code == 0 and "|w:0.1,0.1,0.4,0.4|" in json.loads(out)["signature"], err


def test_an_example_is_named_one_way(capsys, tmp_path):
    """9 answers where the preset wants 10: the record id and the file's field, not an id and an index."""
    annotations = {"annotations": [
        {"question_id": q, "question_type": "what", "answer_type": "other",
         "answers": [{"answer": "a", "answer_id": i + 1} for i in range(9 if q == 7 else 10)]} for q in (5, 7)]}  # fmt: skip
    ann = _write(tmp_path, "ann.json", annotations)
    res = _write(tmp_path, "res.json", [{"question_id": 5, "answer": "a"}, {"question_id": 7, "answer": "a"}])
    line = one_error(capsys, "vqa-acc", "--annotations", ann, "--results", res)
    assert line == (f"mm-score vqa-acc: error: {ann}: record 7: field 'answers': has 9 answers but --num-answers 10 "
                    "(preset 'vqa_v2'); pass --num-answers 0 to accept any number")  # fmt: skip


# ------------------------------------------------------------------------------------------------
# codebleu: CodeXGLUE's ref.txt / hyp.txt
# ------------------------------------------------------------------------------------------------
def calc_code_bleu_inputs(ref_paths, hyp_path):
    """CodeXGLUE evaluator/CodeBLEU/calc_code_bleu.py's reading of --refs / --hyp (transcribed)."""
    pre_references = [[x.strip() for x in open(file, encoding="utf-8").readlines()] for file in ref_paths]
    hypothesis = [x.strip() for x in open(hyp_path, encoding="utf-8").readlines()]
    for i in range(len(pre_references)):
        assert len(hypothesis) == len(pre_references[i])
    references = []
    for i in range(len(hypothesis)):
        references.append([pre_references[j][i] for j in range(len(pre_references))])
    return hypothesis, references


def test_codebleu_reads_codexglue_text_files(capsys, tmp_path):
    ref1 = _write(
        tmp_path,
        "ref.txt",
        "public int add ( int a , int b ) { return a + b ; }\r\n  int x = 1 ;  \nreturn ;\n",
    )
    ref2 = _write(
        tmp_path, "ref2.txt", "public int sum ( int x , int y ) { return y + x ; }\nint y = 1 ;\n\treturn ;"
    )
    hyp = _write(
        tmp_path, "hyp.txt", "public int add ( int a , int b ) { return b + a ; }\nint x = 2 ;\nreturn 0 ;\n"
    )
    hypothesis, references = calc_code_bleu_inputs([ref1, ref2], hyp)
    want = codebleu.score(hypothesis, references, "default", lang="java", return_per_example=True)
    out = tmp_path / "per.jsonl"
    code, text, err = run(capsys, "codebleu", "--refs", ref1, ref2, "--hyp", hyp, "--lang", "java", "--json",
                          "--per-example", str(out), "--no-progress")  # fmt: skip
    assert code == 0, err
    got = json.loads(text)
    assert got["codebleu"] == want["codebleu"] and got["signature"] == want.signature and got["examples"] == 3
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [1, 2, 3]  # line numbers
    assert [r["codebleu"] for r in rows] == [p["codebleu"] for p in want.per_example]
    # --gt / --pred and an explicit --format say the same; one reference file is one reference per example
    code, text, err = run(capsys, "codebleu", "--format", "codexglue", "--gt", ref1, "--pred", hyp, "--lang", "java",
                          "--json", "--no-progress")  # fmt: skip
    assert code == 0, err
    assert (
        json.loads(text)["codebleu"]
        == codebleu.score(*calc_code_bleu_inputs([ref1], hyp), "default", lang="java")["codebleu"]
    )


def test_codexglue_files_of_other_lengths_are_one_error(capsys, tmp_path):
    ref = _write(tmp_path, "ref.txt", "a = 1\nb = 2\n")
    hyp = _write(tmp_path, "hyp.txt", "a = 1\n")
    line = one_error(capsys, "codebleu", "--refs", ref, "--hyp", hyp, "--lang", "python")
    assert f"{ref}: has 2 lines but {hyp} has 1" in line
    c2c = _write(tmp_path, "true_C2C.json", {"0": "x = 1"})
    line = one_error(capsys, "codebleu", "--gt", c2c, c2c, "--pred", _write(tmp_path, "p.json", {"0": "x"}))
    assert "--gt: format fusion_brain_2021 reads one ground-truth file, got 2" in line


# ------------------------------------------------------------------------------------------------
# fusion-brain-2022 without RuWordNet
# ------------------------------------------------------------------------------------------------
def test_fusion_brain_2022_without_ruwordnet(capsys, tmp_path, monkeypatch):
    """--partial counts VisualQA as 0 when no RuWordNet is there (it scored the rest, then refused);
    without --partial one error says how to give it; --ruwordnet-path gives it."""
    monkeypatch.delenv("RUWORDNET_DB", raising=False)
    monkeypatch.setattr(integral, "_default_ruwordnet", lambda: None)
    _write(tmp_path, "textqa/textqa_gt.json", {"0": [{"type": "text", "content": ["Сухого"]}]})
    _write(tmp_path, "textqa/textqa_pred.json", {"0": [{"type": "text", "content": "Сухого"}]})
    _write(tmp_path, "vqa/vqa_gt.json", {"0": [{"type": "text", "content": ["кошачий"]}]})
    _write(tmp_path, "vqa/vqa_pred.json", {"0": [{"type": "text", "content": "кошка"}]})
    code, out, err = run(capsys, "fusion-brain-2022", str(tmp_path), "--partial", "--json", "--no-progress")
    assert code == 0, err
    out = json.loads(out)
    assert "vqa" in out["missing"] and out["score"] == pytest.approx(1 / 15) and "vqa" not in out["sub_tasks"]
    line = one_error(capsys, "fusion-brain-2022", str(tmp_path), "--no-progress")
    assert "vqa: no RuWordNet" in line and "--ruwordnet-path" in line and "--partial" in line
    (tmp_path / "rwn").mkdir()
    db = make_ruwordnet_db(tmp_path / "rwn" / "ruwordnet.db")
    code, out, err = run(capsys, "fusion-brain-2022", str(tmp_path), "--partial", "--json", "--no-progress",
                         "--ruwordnet-path", str(db))  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["sub_tasks"]["vqa"]["score"] == 1.0  # кошка -> кошачий through RuWordNet
    line = one_error(
        capsys, "fusion-brain-2022", str(tmp_path), "--partial", "--ruwordnet-path", str(tmp_path / "x.db")
    )
    assert "--ruwordnet-path" in line and "ruwordnet_path" not in line


# ------------------------------------------------------------------------------------------------
# fid-clip without a CLIP model: FID alone
# ------------------------------------------------------------------------------------------------
def test_fid_clip_without_a_clip_model_gives_fid(capsys, tmp_path):
    from _fid_clip_fixtures import generation_split, tiny_inception_weights

    from multimodal_metrics import fid_clip
    from multimodal_metrics.fid_clip import inception

    weights = tiny_inception_weights(inception, tmp_path)
    split = tmp_path / "generation"
    prompts, pred = generation_split(split, ["Кот", "Дом", "Лес"])
    argv = ["fid-clip", "--gt-images", str(split / "gt_images"), "--pred-images", str(split / "images"),
            "--input", _write(split, "in.json", prompts), "--pred", _write(split, "pred.json", pred),
            "--inception-weights", str(weights), "--no-progress"]  # fmt: skip
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    out = json.loads(out)
    images = [str(split / d / f"{i}.png") for d in ("images", "gt_images") for i in range(3)]
    want = fid_clip.score(images[:3], images[3:], "fusion_brain_2022", inception_weights=str(weights))
    assert out == {"fid": want["fid"], "signature_fid": want.signature, "examples": 3}
    assert "no --clip-model: FID alone" in err
    code, out, err = run(capsys, *argv, "--json", "--confidence", "0.9", "--n-resamples", "20")
    assert code == 0, err
    assert set(json.loads(out)) == {"fid", "fid_ci_low", "fid_ci_high", "signature_fid", "examples"}
    line = one_error(capsys, *argv, "--per-example", str(tmp_path / "per.jsonl"))
    assert "--per-example" in line and "--clip-model" in line and not (tmp_path / "per.jsonl").exists()


def test_every_input_of_the_example_is_named_by_its_field():
    loaded = formats.Loaded([337, 338], ["a", "b"], [["x"], ["y", "z"]], gt_path="gt.json", pred_path="sub.json",
                            fields={"references": "answers", "predictions": "answer"})  # fmt: skip
    err = ValueError(
        "`predictions[1]` and `references[1][1]`: 5,000 and 5,000 characters more than 10 edits apart"
    )
    assert locate(err, loaded) == (
        "sub.json: record 338: field 'answer' and field 'answers' item 2: 5,000 and 5,000 characters more than "
        "10 edits apart"
    )
    assert locate(ValueError("`weights[0]` must be a number"), loaded) == "`weights[0]` must be a number"
