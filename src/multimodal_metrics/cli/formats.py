"""Readers for the official file formats scored by `mm-score` (multimodal_metrics.cli.main).

Each reader takes file paths, checks the files the way the official scoring script does (and
more: every record and field), and returns a `Loaded`: the metric's inputs as aligned lists in
the ground truth's order, with the record ids. Any problem is a `FormatError` whose one-line
message names the file, the record and the field:

    true_VQA.json: record '17': field 'answer': expected a string or a non-empty list of strings, got 3

Formats (the minimal examples are in each reader's docstring and in `mm-score <command> --help`):
DocVQA / InfographicVQA (ANLS), VQA v2 / VQA-CP / TDIUC, Fusion Brain 2021 (C2C, HTR, zsOD, VQA),
Fusion Brain 2022 (the common `{id: [{"type", "content"}, ...]}` format of every sub-task); the TDIUC
answer-key CSV of `--answer-key`.
"""

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path


class FormatError(ValueError):
    """A file does not follow its official format; the message names the file, the record and the field."""

    def __init__(self, path, problem: str, record=None, field_name=None):
        where = [str(path)]
        if record is not None:
            where.append(f"record {record}")
        if field_name is not None:
            where.append(f"field {field_name!r}")
        super().__init__(": ".join(where + [problem]))


@dataclass
class Loaded:
    """Aligned metric inputs read from official files (ground-truth order)."""

    ids: list
    predictions: list
    references: list
    columns: dict = field(default_factory=dict)  # extra per-example inputs, e.g. question_types
    gt_path: str = ""
    pred_path: str = ""
    warnings: list = field(default_factory=list)
    # where an error about an example points: the file's field of each input (e.g. references -> "answers"),
    # and what one example is called ("record", or "line" in a text file)
    fields: dict = field(default_factory=dict)
    unit: str = "record"


# ----------------------------------------------------------------------------------------------
# Generic pieces
# ----------------------------------------------------------------------------------------------
MAX_FILE_BYTES = 2 * 1024**3  # an input file larger than this is refused before it is read


def read_bytes(path, what: str = "a JSON file", head=None) -> bytes:
    """The bytes of the input file ``path``. Only a regular file is opened (a folder, FIFO, device or
    socket is refused before opening: nothing hangs on a FIFO or reads /dev/zero forever), and at most
    ``MAX_FILE_BYTES`` are read; every problem is a one-line FormatError naming the file. ``head``:
    ``(size, handle) -> None`` first checks the file's size and what it reads from the open file, before
    the rest is read from the start (a ValueError it raises ends the reading)."""
    import os
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FormatError(path, "file not found") from None
    except OSError as err:
        raise FormatError(path, f"cannot be read ({err.strerror})") from None
    if stat.S_ISDIR(mode):
        raise FormatError(path, f"is a folder, expected {what}")
    if not stat.S_ISREG(mode):
        raise FormatError(path, f"is not a regular file (a FIFO, device or socket), expected {what}: refused")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):  # replaced between the two looks
                raise FormatError(path, f"is not a regular file, expected {what}: refused")
            if head is not None:
                head(info.st_size, f)
                f.seek(0)
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        raise FormatError(path, f"cannot be read ({err.strerror})") from None
    if len(data) > MAX_FILE_BYTES:
        raise FormatError(path, f"is larger than {MAX_FILE_BYTES} bytes: refused")
    return data


def read_text(path, what: str = "a JSON file") -> str:
    """``read_bytes`` decoded as UTF-8 (a non-UTF-8 file is a FormatError naming the byte)."""
    data = read_bytes(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise FormatError(path, f"not UTF-8 text (byte {err.start})") from None


class DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list) -> dict:
    """object_pairs_hook of read_json: a JSON object that repeats a key is refused (json keeps the last
    value silently: a second record of one image or question would replace the first)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return obj


def read_json(path):
    """The parsed JSON of ``path``; a missing, non-regular, too large, non-UTF-8 or truncated file, or an
    object with a repeated key, is a FormatError."""
    text = read_text(path)
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except DuplicateKey as err:
        raise FormatError(path, f"key {err.args[0]!r} appears twice in one JSON object: refused") from None
    except json.JSONDecodeError as err:
        truncated = err.msg.startswith("Unterminated") or err.pos >= len(err.doc.rstrip())
        hint = " (the file looks truncated)" if truncated else ""
        raise FormatError(
            path, f"not valid JSON: {err.msg} (line {err.lineno}, column {err.colno}){hint}"
        ) from None
    except RecursionError:
        raise FormatError(path, "JSON nested too deeply") from None


def _type(value) -> str:
    return "null" if value is None else type(value).__name__


def _show(value, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def expect_object(data, path, what: str) -> dict:
    if not isinstance(data, dict):
        raise FormatError(path, f"expected a JSON object {what}, got {_type(data)}")
    return data


def expect_list(data, path, what: str) -> list:
    if not isinstance(data, list):
        raise FormatError(path, f"expected a JSON list {what}, got {_type(data)}")
    return data


def get_field(record, key: str, path, where):
    """``record[key]``; a record that is not an object, or lacks the key, is a FormatError."""
    if not isinstance(record, dict):
        raise FormatError(path, f"expected an object, got {_type(record)} {_show(record)}", where)
    if key not in record:
        raise FormatError(path, "missing", where, key)
    return record[key]


def expect_string(value, path, where, field_name=None) -> str:
    if not isinstance(value, str):
        raise FormatError(path, f"expected a string, got {_type(value)} {_show(value)}", where, field_name)
    return value


def answers_by_id(entries: list, path, id_field: str, key=None) -> dict:
    """A submission's ``answer`` strings by id: ``key(id, path, where)`` of each entry's ``id_field`` (the id
    itself when ``key`` is None); an id answered twice is refused, and so is a list answer when ``key`` is
    given (``"must be a single string"``, the RRC script's wording)."""
    answer_of = {}
    for i, entry in enumerate(entries):
        qid = get_field(entry, id_field, path, i)
        where = f"{i} ({id_field} {qid!r})"
        answer = get_field(entry, "answer", path, where)
        if key is not None and isinstance(answer, list):
            raise FormatError(path, "must be a single string, got a list", where, "answer")
        expect_string(answer, path, where, "answer")
        qid_key = qid if key is None else key(qid, path, where)
        if qid_key in answer_of:
            raise FormatError(path, f"{id_field} {qid!r} is answered twice", where, id_field)
        answer_of[qid_key] = answer
    return answer_of


def expect_answers(value, path, where, field_name, allow_string: bool = False) -> list:
    """A non-empty list of strings (or one string when ``allow_string``) as a list of strings."""
    if allow_string and isinstance(value, str):
        return [value]
    kind = "a string or a non-empty list of strings" if allow_string else "a non-empty list of strings"
    if not isinstance(value, list) or not value or not all(isinstance(a, str) for a in value):
        raise FormatError(path, f"expected {kind}, got {_show(value)}", where, field_name)
    return value


def same_keys(gt: dict, pred: dict, gt_path, pred_path) -> None:
    """Both files must hold the same ids (the official drivers assert it)."""
    if gt.keys() != pred.keys():
        missing = [k for k in gt if k not in pred]
        extra = [k for k in pred if k not in gt]
        if missing:
            raise FormatError(
                pred_path,
                f"no prediction for {len(missing)} id(s) of {gt_path}, e.g. {missing[:3]}",
                repr(missing[0]),
            )
        raise FormatError(
            pred_path, f"{len(extra)} id(s) are not in {gt_path}, e.g. {extra[:3]}", repr(extra[0])
        )


def record(key) -> str:
    return repr(key)


# ----------------------------------------------------------------------------------------------
# DocVQA / InfographicVQA (anls)
# ----------------------------------------------------------------------------------------------
def docvqa(gt_path, pred_path) -> Loaded:
    """RRC DocVQA / InfographicVQA files (validation rules of the official scoring script).

    Ground truth: ``{"dataset_name": "docvqa", "data": [{"questionId": 1, "answers": ["a", "b"], ...}]}``.
    Submission: ``[{"questionId": 1, "answer": "a"}, ...]``: a list with exactly one answer (a
    single string) per ground-truth question id, in any order.
    """
    gt = expect_object(read_json(gt_path), gt_path, '{"dataset_name": ..., "data": [...]}')
    for key in ("data", "dataset_name"):
        get_field(gt, key, gt_path, None)
    data = gt["data"]
    if not isinstance(data, list):
        raise FormatError(gt_path, f"expected a list of questions, got {_type(data)}", None, "data")
    sub = expect_list(read_json(pred_path), pred_path, '[{"questionId": ..., "answer": ...}]')
    answer_of = answers_by_id(sub, pred_path, "questionId", _qid)
    out = Loaded(
        [],
        [],
        [],
        gt_path=str(gt_path),
        pred_path=str(pred_path),
        fields={"references": "answers", "predictions": "answer"},
    )
    for i, question in enumerate(data):
        qid = get_field(question, "questionId", gt_path, i)
        where = f"{i} (questionId {qid!r})"
        refs = expect_answers(get_field(question, "answers", gt_path, where), gt_path, where, "answers")
        key = _qid(qid, gt_path, where)
        if key not in answer_of:
            raise FormatError(pred_path, f"no answer for questionId {qid!r} of {gt_path}")
        out.ids.append(qid)
        out.predictions.append(answer_of.pop(key))
        out.references.append(refs)
    if answer_of:
        extra = list(answer_of)[:3]
        raise FormatError(pred_path, f"{len(answer_of)} questionId(s) are not in {gt_path}, e.g. {extra}")
    return out


def _qid(qid, path, where) -> int:
    """The official script compares ``int(questionId)``."""
    if isinstance(qid, bool) or not isinstance(qid, int | str):
        raise FormatError(path, f"expected an integer id, got {_type(qid)} {_show(qid)}", where, "questionId")
    try:
        return int(qid)
    except ValueError:
        raise FormatError(path, f"expected an integer id, got {qid!r}", where, "questionId") from None


# ----------------------------------------------------------------------------------------------
# VQA v2 / VQA-CP / TDIUC (vqa_acc)
# ----------------------------------------------------------------------------------------------
def vqa_v2(annotations_path, results_path, questions_path=None) -> Loaded:
    """GT-Vision-Lab VQA API files (VQA v2, VQA-CP; TDIUC uses the same layout).

    Annotations: ``{"annotations": [{"question_id": 1, "answers": [{"answer": "yes", "answer_id": 1}, ...],
    "question_type": "is the", "answer_type": "yes/no"}]}``. Results: ``[{"question_id": 1, "answer": "yes"}]``,
    covering exactly the annotated questions (the official ``loadRes`` asserts it). Questions (optional):
    ``{"questions": [{"question_id": 1, "image_id": 9, "question": "Is it?"}]}``: every annotated
    question must be there. Columns: ``question_types``, ``answer_types``.
    """
    ann = expect_object(read_json(annotations_path), annotations_path, '{"annotations": [...]}')
    annotations = get_field(ann, "annotations", annotations_path, None)
    if not isinstance(annotations, list):
        raise FormatError(annotations_path, f"expected a list, got {_type(annotations)}", None, "annotations")
    results = expect_list(read_json(results_path), results_path, '[{"question_id": ..., "answer": ...}]')
    answer_of = answers_by_id(results, results_path, "question_id")
    out = Loaded(
        [],
        [],
        [],
        {"question_types": [], "answer_types": []},
        str(annotations_path),
        str(results_path),
        fields={
            "references": "answers",
            "predictions": "answer",
            "question_types": "question_type",
            "answer_types": "answer_type",
        },
    )
    for i, a in enumerate(annotations):
        qid = get_field(a, "question_id", annotations_path, i)
        where = f"{i} (question_id {qid!r})"
        answers = get_field(a, "answers", annotations_path, where)
        if not isinstance(answers, list) or not answers:
            raise FormatError(
                annotations_path, f"expected a non-empty list, got {_show(answers)}", where, "answers"
            )
        refs = [
            expect_string(
                get_field(x, "answer", annotations_path, f"{where} answers[{j}]"),
                annotations_path,
                f"{where} answers[{j}]",
                "answer",
            )
            for j, x in enumerate(answers)
        ]
        if qid not in answer_of:
            raise FormatError(results_path, f"no answer for question_id {qid!r} of {annotations_path}")
        out.ids.append(qid)
        out.predictions.append(answer_of.pop(qid))
        out.references.append(refs)
        for column, key in (("question_types", "question_type"), ("answer_types", "answer_type")):
            value = a.get(key, "")
            out.columns[column].append(expect_string(value, annotations_path, where, key))
    if answer_of:
        extra = list(answer_of)[:3]
        raise FormatError(
            results_path, f"{len(answer_of)} question_id(s) are not in {annotations_path}, e.g. {extra}"
        )
    if questions_path is not None:
        qs = expect_object(read_json(questions_path), questions_path, '{"questions": [...]}')
        questions = get_field(qs, "questions", questions_path, None)
        if not isinstance(questions, list):
            raise FormatError(questions_path, f"expected a list, got {_type(questions)}", None, "questions")
        known = {get_field(q, "question_id", questions_path, i) for i, q in enumerate(questions)}
        missing = [q for q in out.ids if q not in known]
        if missing:
            raise FormatError(
                questions_path, f"{len(missing)} annotated question_id(s) are missing, e.g. {missing[:3]}"
            )
    return out


def answer_key_csv(path) -> list:
    """TDIUC's answer key: a CSV of ``answer,id`` rows, as Kafle's script reads it (``rows[0]`` the answer,
    ``rows[1]`` its id; no header, blank lines skipped). Returns the answers in file order (vqa_acc's
    ``answer_key`` option)."""
    try:
        rows = list(csv.reader(io.StringIO(read_text(path, "an answer-key CSV file"), newline="")))
    except csv.Error as err:
        raise FormatError(path, f"not a valid CSV file ({err})") from None
    answers = []
    for number, row in enumerate(rows, 1):
        if not row:
            continue
        if len(row) < 2:
            raise FormatError(path, f"row {number}: expected an answer,id row, got {_show(row)}")
        answers.append(row[0])
    if not answers:
        raise FormatError(path, "holds no answer,id row")
    return answers


# ----------------------------------------------------------------------------------------------
# Fusion Brain 2021 (AIJ 2021): {id: value} files
# ----------------------------------------------------------------------------------------------
def fb2021_vqa(gt_path, pred_path) -> Loaded:
    """AIJ 2021 VQA: GT ``{"0": {"answer": "yes" | ["yes", ...], "question_id": 0, "lang": "en"}}``,
    predictions ``{"0": "yes"}``; the id sets must be equal (the official script asserts it).
    Column: ``languages`` (``lang``, default "en")."""
    gt = expect_object(read_json(gt_path), gt_path, '{id: {"answer": ..., "lang": ...}}')
    pred = expect_object(read_json(pred_path), pred_path, "{id: answer}")
    same_keys(gt, pred, gt_path, pred_path)
    out = Loaded(
        [],
        [],
        [],
        {"languages": []},
        str(gt_path),
        str(pred_path),
        fields={"references": "answer", "languages": "lang"},
    )
    for key, entry in gt.items():
        where = record(key)
        refs = expect_answers(
            get_field(entry, "answer", gt_path, where), gt_path, where, "answer", allow_string=True
        )
        out.ids.append(key)
        out.references.append(refs)
        out.predictions.append(expect_string(pred[key], pred_path, where))
        out.columns["languages"].append(expect_string(entry.get("lang", "en"), gt_path, where, "lang"))
    return out


def fb2021_code(gt_path, pred_path) -> Loaded:
    """AIJ 2021 C2C (code translation): ``{"0": "def f ( x ) : NEW_LINE INDENT return x NEW_LINE DEDENT"}``
    in both files. Every ground-truth id needs a prediction (the official loop stops at the first
    missing one, then fails); extra prediction ids are ignored, as there."""
    gt = expect_object(read_json(gt_path), gt_path, "{id: code}")
    pred = expect_object(read_json(pred_path), pred_path, "{id: code}")
    out = Loaded([], [], [], gt_path=str(gt_path), pred_path=str(pred_path))
    for key, code in gt.items():
        if key not in pred:
            raise FormatError(pred_path, f"missing: no prediction for id {key!r} of {gt_path}", record(key))
        out.ids.append(key)
        out.references.append(expect_string(code, gt_path, record(key)))
        out.predictions.append(expect_string(pred[key], pred_path, record(key)))
    _note_ignored(out, gt, pred, pred_path)
    return out


def codexglue(ref_paths, hyp_path) -> Loaded:
    """CodeXGLUE's CodeBLEU files (``evaluator/CodeBLEU/calc_code_bleu.py``: ``--refs`` / ``--hyp``): text files
    of one example per line, read as that script reads them (``open(...).readlines()`` in UTF-8, universal
    newlines, each line ``strip()``-ed). Several reference files give several references per example (line i
    of every file); every file has as many lines as the predictions (the script asserts it). Ids: line numbers."""
    ref_paths = [ref_paths] if isinstance(ref_paths, str | Path) else list(ref_paths)

    def lines(path) -> list:
        return [
            line.strip() for line in io.StringIO(read_text(path, "a text file"), newline=None).readlines()
        ]

    hypotheses = lines(hyp_path)
    columns = []
    for path in ref_paths:
        refs = lines(path)
        if len(refs) != len(hypotheses):
            raise FormatError(
                path,
                f"has {len(refs)} lines but {hyp_path} has {len(hypotheses)}: one example "
                "per line in every file (as calc_code_bleu.py asserts)",
            )
        columns.append(refs)
    references = [list(refs) for refs in zip(*columns)] if hypotheses else []
    return Loaded(
        list(range(1, len(hypotheses) + 1)),
        hypotheses,
        references,
        gt_path=str(ref_paths[0]),
        pred_path=str(hyp_path),
        unit="line",
    )


def fb2021_htr(gt_path, pred_path) -> Loaded:
    """AIJ 2021 HTR: ``{"0.png": "Become"}`` in both files. As in the official script, an id
    missing from the predictions counts as the prediction "" (a warning says how many) and extra
    prediction ids are ignored."""
    gt = expect_object(read_json(gt_path), gt_path, "{image: text}")
    pred = expect_object(read_json(pred_path), pred_path, "{image: text}")
    out = Loaded([], [], [], gt_path=str(gt_path), pred_path=str(pred_path))
    missing = 0
    for key, text in gt.items():
        out.ids.append(key)
        out.references.append(expect_string(text, gt_path, record(key)))
        if key in pred:
            out.predictions.append(expect_string(pred[key], pred_path, record(key)))
        else:
            missing += 1
            out.predictions.append("")
    if missing:
        out.warnings.append(
            f"{pred_path}: {missing} image(s) of {gt_path} have no prediction: scored as '' (official)"
        )
    _note_ignored(out, gt, pred, pred_path)
    return out


def fb2021_zsod(gt_path, pred_path) -> Loaded:
    """AIJ 2021 zero-shot detection: ``{"img.jpg": {"cat": [[x, y, w, h], ...], "dog": []}}`` in both
    files. Same images in both; every requested (ground-truth) class of an image must be in its
    predictions (``[]`` or ``[[]]`` for no box); other predicted classes are ignored."""
    gt = expect_object(read_json(gt_path), gt_path, "{image: {class: boxes}}")
    pred = expect_object(read_json(pred_path), pred_path, "{image: {class: boxes}}")
    same_keys(gt, pred, gt_path, pred_path)
    for path, data in ((gt_path, gt), (pred_path, pred)):
        for key, classes in data.items():
            if not isinstance(classes, dict):
                raise FormatError(
                    path,
                    f"expected an object {{class: boxes}}, got {_type(classes)} {_show(classes)}",
                    record(key),
                )
            for name, boxes in classes.items():
                if not isinstance(boxes, list):
                    raise FormatError(
                        path, f"expected a list of [x, y, w, h] boxes, got {_show(boxes)}", record(key), name
                    )
    for key, classes in gt.items():
        absent = [c for c in classes if c not in pred[key]]
        if absent:
            raise FormatError(
                pred_path,
                f"missing: every requested class needs an entry ([] for no box), as in {gt_path}",
                record(key),
                absent[0],
            )
    preds, refs, images = _det_f1_core().from_fusion_brain(gt, pred)
    return Loaded(images, preds, refs, gt_path=str(gt_path), pred_path=str(pred_path))


def _note_ignored(out: Loaded, gt: dict, pred: dict, pred_path) -> None:
    extra = len(pred.keys() - gt.keys())
    if extra:
        out.warnings.append(f"{pred_path}: {extra} id(s) are not in the ground truth: ignored (official)")


def _det_f1_core():
    from ..det_f1 import core

    return core


# ----------------------------------------------------------------------------------------------
# Fusion Brain 2022 (AIJ 2022): {id: [{"type": "text" | "image", "content": ...}, ...]}
# ----------------------------------------------------------------------------------------------
def fb2022_text(gt_path, pred_path) -> Loaded:
    """AIJ 2022 text sub-tasks (TextQA, MathQA, text recognition): the common format.

    Ground truth ``{"0": [{"type": "text", "content": ["answer", "other accepted answer"]}]}`` (the
    README's unwrapped ``{"0": {"type": "text", "content": [...]}}`` is accepted too);
    predictions ``{"0": [{"type": "text", "content": "answer"}, {"type": "image", "content": "x.jpg"}]}``:
    the first element of type "text" is the answer ("" when there is none, as in the official
    loop). The id sets must be equal (the official drivers assert it).
    """
    gt = expect_object(read_json(gt_path), gt_path, '{id: [{"type": "text", "content": [...]}]}')
    pred = expect_object(read_json(pred_path), pred_path, '{id: [{"type": "text", "content": ...}]}')
    same_keys(gt, pred, gt_path, pred_path)
    out = Loaded(
        [],
        [],
        [],
        gt_path=str(gt_path),
        pred_path=str(pred_path),
        fields={"references": "content", "predictions": "content"},
    )
    for key, entry in gt.items():
        where = record(key)
        first = entry[0] if isinstance(entry, list) and entry else entry
        if isinstance(entry, list) and not entry:
            raise FormatError(gt_path, 'expected [{"type": "text", "content": [...]}], got []', where)
        answers = get_field(first, "content", gt_path, where)
        out.ids.append(key)
        out.references.append(expect_answers(answers, gt_path, where, "content"))
        out.predictions.append(first_text(pred[key], pred_path, where))
    return out


def first_text(elements, path, where) -> str:
    """The content of the first element of type "text" of a prediction list ("" if there is none)."""
    if not isinstance(elements, list):
        raise FormatError(
            path,
            f'expected a list [{{"type": ..., "content": ...}}], got {_type(elements)} {_show(elements)}',
            where,
        )
    for j, element in enumerate(elements):
        kind = get_field(element, "type", path, f"{where} element {j}")
        if kind == "text":
            return expect_string(
                get_field(element, "content", path, f"{where} element {j}"),
                path,
                f"{where} element {j}",
                "content",
            )
    return ""


FB2022_TASK_IDS = {
    "0": "textqa",
    "1": "mathqa",
    "2": "generation",
    "3": "captioning",
    "4": "vqa",
    "5": "text_recognition",
}


def split_fb2022(ids_path, gt_path, pred_path, out_dir) -> list:
    """Split the unsplit AIJ 2022 files into the per-sub-task layout of the official ``split_tasks.py``.

    ``ids.json`` maps every example id to its sub-task number (``{"0": 0, "1": 4}``: 0 textqa,
    1 mathqa, 2 generation, 3 captioning, 4 vqa, 5 text_recognition); the ground truth
    (``ground_truth.json`` / ``output.json``) and ``predictions.json`` hold every id. Writes
    ``out_dir/<task>/<task>_gt.json`` and ``<task>_pred.json`` and returns the sub-tasks present.
    """
    ids = expect_object(read_json(ids_path), ids_path, "{id: sub-task number}")
    gt = expect_object(read_json(gt_path), gt_path, '{id: [{"type": ..., "content": ...}]}')
    pred = expect_object(read_json(pred_path), pred_path, '{id: [{"type": ..., "content": ...}]}')
    split = {}
    for key, number in ids.items():
        task = (
            FB2022_TASK_IDS.get(str(number))
            if isinstance(number, int | str) and not isinstance(number, bool)
            else None
        )
        if task is None:
            raise FormatError(ids_path, f"expected a sub-task number 0-5, got {_show(number)}", record(key))
        for path, data in ((gt_path, gt), (pred_path, pred)):
            if key not in data:
                raise FormatError(path, f"missing: id {key!r} of {ids_path} is not in this file", record(key))
        parts = split.setdefault(task, ({}, {}))
        parts[0][key], parts[1][key] = gt[key], pred[key]
    for task, (task_gt, task_pred) in split.items():
        folder = Path(out_dir) / task
        folder.mkdir(parents=True, exist_ok=True)
        for suffix, data in (("gt", task_gt), ("pred", task_pred)):
            with open(folder / f"{task}_{suffix}.json", "w", encoding="utf-8") as f:
                json.dump(data, f, ensure_ascii=False)
    return sorted(split)


FID_IMAGE_SUFFIXES = {"bmp", "jpg", "JPG", "jpeg", "JPEG", "pgm", "png", "ppm", "tif", "tiff", "webp"}


def image_folder(path, contained: bool = False) -> list:
    """Every image file of a folder, sorted (the official FID reads ``*.{bmp,jpg,JPG,jpeg,JPEG,pgm,png,ppm,tif,tiff,webp}``).
    ``contained`` (a submission's folder): a file whose real path (symlinks resolved) leaves the folder is refused."""
    import os

    folder = Path(path)
    if not folder.is_dir():
        raise FormatError(path, "folder not found")
    files = sorted(str(p) for p in folder.iterdir() if p.is_file() and p.suffix[1:] in FID_IMAGE_SUFFIXES)
    real_folder = os.path.realpath(folder)
    for file in files if contained else ():
        real = os.path.realpath(file)
        if os.path.dirname(real) != real_folder:
            raise FormatError(
                path,
                f"{os.path.basename(file)!r} links to {real!r}, outside the folder: refused "
                "(a submission's images must be its own files)",
            )
    if not files:
        raise FormatError(path, "holds no image file (bmp, jpg, jpeg, pgm, png, ppm, tif, tiff, webp)")
    return files


def submission_path(content: str, base: Path, pred_path, where, exclude=()) -> Path:
    """The image path ``content`` of a submission, resolved in the submission's folder ``base``: an absolute
    path, or one whose real path (``..`` and symlinks resolved) leaves ``base`` or enters a folder of
    ``exclude`` (the ground-truth images), is refused: a submission reads only its own images."""
    import os

    if not content:  # no image named: the example scores 0 (official loop)
        return base
    if os.path.isabs(content) or "\0" in content:
        raise FormatError(
            pred_path,
            f"image path {content!r} must be a relative path inside the submission's "
            f"folder {str(base)!r}: refused",
            where,
            "content",
        )
    real_base = os.path.realpath(base)
    real = os.path.realpath(os.path.join(real_base, content))
    if os.path.commonpath([real_base, real]) != real_base:
        raise FormatError(
            pred_path,
            f"image path {content!r} resolves to {real!r}, outside the submission's folder "
            f"{str(base)!r}: refused",
            where,
            "content",
        )
    for folder in map(os.path.realpath, exclude):
        if os.path.commonpath([folder, real]) == folder:
            raise FormatError(
                pred_path,
                f"image path {content!r} resolves to {real!r}, inside the ground-truth "
                f"images {folder!r}: refused",
                where,
                "content",
            )
    return Path(real)


def fb2022_generation(input_path, pred_path, exclude=()) -> Loaded:
    """AIJ 2022 image generation, the CLIP pairs: prompts from the sub-task's input file, generated
    images from the predictions (the official ``calc_ruclip_metric`` rules).

    Input ``{"0": [{"type": "text", "content": "Сгенерируй изображение."}, {"type": "text", "content": "Кот"}]}``:
    the prompt is element 1's content when the list has 2 elements, else element 0's content without
    its first sentence. Predictions ``{"0": [{"type": "text", "content": "..."}, {"type": "image",
    "content": "images/0.jpg"}]}``: the image is element 1 (a path relative to the predictions file's
    folder). As in the official loop, an example whose element 1 is not an existing image scores 0
    (``predictions[i]`` is None, with a warning). Same ids in both files. An image path that is absolute
    or resolves (``..``, symlinks) outside the predictions file's folder, or into a folder of ``exclude``
    (``mm-score fid-clip`` passes ``--gt-images``), is refused (``submission_path``).
    """
    inputs = expect_object(read_json(input_path), input_path, '{id: [{"type": "text", "content": ...}, ...]}')
    pred = expect_object(read_json(pred_path), pred_path, '{id: [..., {"type": "image", "content": ...}]}')
    same_keys(inputs, pred, input_path, pred_path)
    base = Path(pred_path).parent
    out = Loaded([], [], [], {"texts": []}, str(input_path), str(pred_path))
    unusable = []
    for key, elements in inputs.items():
        where = record(key)
        if not isinstance(elements, list) or not elements:
            raise FormatError(
                input_path, f"expected a non-empty list of elements, got {_show(elements)}", where
            )
        if len(elements) == 2:
            text = get_field(elements[1], "content", input_path, f"{where} element 1")
        else:
            text = get_field(elements[0], "content", input_path, f"{where} element 0")
            text = ". ".join(expect_string(text, input_path, where, "content").split(". ")[1:])
        out.columns["texts"].append(expect_string(text, input_path, where, "content"))
        image = None
        elems = pred[key]
        if not isinstance(elems, list):
            raise FormatError(
                pred_path, f"expected a list of elements, got {_type(elems)} {_show(elems)}", where
            )
        if len(elems) > 1 and isinstance(elems[1], dict) and elems[1].get("type") == "image":
            content = expect_string(
                get_field(elems[1], "content", pred_path, f"{where} element 1"),
                pred_path,
                f"{where} element 1",
                "content",
            )
            path = submission_path(content, base, pred_path, f"{where} element 1", exclude)
            image = str(path) if path.is_file() else None
        if image is None:
            unusable.append(key)
        out.ids.append(key)
        out.predictions.append(image)
    if unusable:
        out.warnings.append(
            f"{pred_path}: {len(unusable)} example(s) have no existing image at element 1 "
            f"(e.g. {unusable[:3]}): their CLIP score is 0, as in the official loop"
        )
    return out
