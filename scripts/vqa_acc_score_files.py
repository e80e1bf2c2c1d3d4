"""Score answer files in the official formats with the `vqa_acc` metric.

    python scripts/vqa_acc_score_files.py vqa_v2 --annotations A.json --results R.json [--questions Q.json]
    python scripts/vqa_acc_score_files.py tdiuc --annotations A.json --results R.json
    python scripts/vqa_acc_score_files.py fusion_brain_2021 --gt true_VQA.json --pred prediction_VQA.json

Formats:
* VQA v2 / VQA-CP / TDIUC (GT-Vision-Lab API): questions ``{"questions": [{question_id, image_id,
  question}]}``; annotations ``{"annotations": [{question_id, answers: [{answer, answer_id}],
  question_type, answer_type, multiple_choice_answer}]}``; results ``[{question_id, answer}]``. As in
  the official ``loadRes``, the results must cover exactly the annotated questions. TDIUC scores the
  first answer of every annotation (``answers[0]``, as Kafle's script) against its question_type.
* Fusion Brain 2021 VQA: GT ``{id: {"answer": str | list, "question_id", "lang"}}``, predictions
  ``{id: str}``; the id sets must be equal (the official ``evaluation.py`` asserts it).

Prints the result dict as JSON (``--per-example`` adds per-question scores keyed by question id).
"""

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
METRIC = ROOT / "metrics" / "vqa_acc"


class FormatError(ValueError):
    """An input file does not follow the official format (the message names the file and the entry)."""


def _read_json(path, what: str):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise FormatError(f"{what}: file not found: {path}") from None
    except json.JSONDecodeError as err:
        raise FormatError(f"{what}: {path} is not valid JSON ({err})") from None


def _field(entry, key: str, what: str, index):
    if not isinstance(entry, dict) or key not in entry:
        raise FormatError(f"{what}[{index}] has no {key!r} field")
    return entry[key]


def load_vqa_v2(annotations_path, results_path, questions_path=None) -> dict:
    """Aligned inputs for the metric from the official VQA v2 files, in annotation order.

    Returns ``{"question_ids", "predictions", "references", "question_types", "answer_types"}``;
    ``references[i]`` is the list of annotator answers (by position).
    """
    annotations = _read_json(annotations_path, "annotations")
    if not isinstance(annotations, dict) or not isinstance(annotations.get("annotations"), list):
        raise FormatError(f"annotations: {annotations_path} must be an object with an 'annotations' list")
    results = _read_json(results_path, "results")
    if not isinstance(results, list):
        raise FormatError(f"results: {results_path} must be a list of {{question_id, answer}}")
    answers_by_qid = {}
    for i, res in enumerate(results):
        qid = _field(res, "question_id", "results", i)
        answer = _field(res, "answer", "results", i)
        if not isinstance(answer, str):
            raise FormatError(f"results[{i}] (question_id {qid}): answer must be a string, got {answer!r}")
        if qid in answers_by_qid:
            raise FormatError(f"results[{i}]: question_id {qid} appears twice")
        answers_by_qid[qid] = answer
    out = {"question_ids": [], "predictions": [], "references": [], "question_types": [], "answer_types": []}
    for i, ann in enumerate(annotations["annotations"]):
        qid = _field(ann, "question_id", "annotations", i)
        answers = _field(ann, "answers", "annotations", i)
        if not isinstance(answers, list) or not answers:
            raise FormatError(f"annotations[{i}] (question_id {qid}): 'answers' must be a non-empty list")
        refs = [_field(a, "answer", f"annotations[{i}].answers", j) for j, a in enumerate(answers)]
        if qid not in answers_by_qid:
            raise FormatError(f"results: no answer for question_id {qid} (annotations[{i}])")
        out["question_ids"].append(qid)
        out["predictions"].append(answers_by_qid.pop(qid))
        out["references"].append(refs)
        out["question_types"].append(str(ann.get("question_type", "")))
        out["answer_types"].append(str(ann.get("answer_type", "")))
    if answers_by_qid:
        extra = sorted(answers_by_qid, key=str)[:5]
        raise FormatError(f"results: question_id(s) {extra} are not in the annotations")
    if questions_path is not None:
        questions = _read_json(questions_path, "questions")
        if not isinstance(questions, dict) or not isinstance(questions.get("questions"), list):
            raise FormatError(f"questions: {questions_path} must be an object with a 'questions' list")
        qids = {_field(q, "question_id", "questions", i) for i, q in enumerate(questions["questions"])}
        missing = [q for q in out["question_ids"] if q not in qids]
        if missing:
            raise FormatError(f"questions: question_id(s) {missing[:5]} of the annotations are missing")
    return out


def load_fusion_brain_2021(gt_path, pred_path) -> dict:
    """Aligned inputs from the AIJ 2021 Fusion Brain VQA files, in GT order.

    Returns ``{"ids", "predictions", "references", "languages"}``; a GT answer that is a string becomes a
    list of one.
    """
    gt = _read_json(gt_path, "gt")
    pred = _read_json(pred_path, "pred")
    if not isinstance(gt, dict) or not isinstance(pred, dict):
        raise FormatError("gt and pred must both be JSON objects keyed by id")
    if set(gt) != set(pred):
        missing = sorted(set(gt) - set(pred))[:5]
        extra = sorted(set(pred) - set(gt))[:5]
        raise FormatError(f"Not all questions have predicted answers: missing {missing}, unknown {extra}")
    out = {"ids": [], "predictions": [], "references": [], "languages": []}
    for key, entry in gt.items():
        answer = _field(entry, "answer", "gt", key)
        refs = [answer] if isinstance(answer, str) else answer
        if not isinstance(refs, list) or not refs or not all(isinstance(a, str) for a in refs):
            raise FormatError(f"gt[{key!r}]: 'answer' must be a string or a non-empty list of strings")
        if not isinstance(pred[key], str):
            raise FormatError(f"pred[{key!r}] must be a string, got {pred[key]!r}")
        out["ids"].append(key)
        out["predictions"].append(pred[key])
        out["references"].append(refs)
        out["languages"].append(str(entry.get("lang", "en")))
    return out


def score(preset: str, inputs: dict, **options) -> dict:
    """evaluate.load the module folder with ``preset`` and compute on the loaded inputs."""
    import evaluate

    metric = evaluate.load(str(METRIC), preset)
    names = {
        "vqa_v2": ("question_types", "answer_types"),
        "tdiuc": ("question_types",),
        "fusion_brain_2021": ("languages",),
    }[preset]
    return metric.compute(
        predictions=inputs["predictions"],
        references=inputs["references"],
        **{name: inputs[name] for name in names},
        **{k: v for k, v in options.items() if v is not None},
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="preset", required=True)
    for name in ("vqa_v2", "tdiuc"):
        p = sub.add_parser(name)
        p.add_argument("--annotations", required=True)
        p.add_argument("--results", required=True)
        p.add_argument("--questions")
        if name == "vqa_v2":
            p.add_argument("--normalize", choices=["official", "always", "never"])
            p.add_argument("--num-answers", type=int, help="expected answers per question (0 = any)")
    p = sub.add_parser("fusion_brain_2021")
    p.add_argument("--gt", required=True)
    p.add_argument("--pred", required=True)
    for p in sub.choices.values():
        p.add_argument("--per-example", action="store_true", help="add per-question scores")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
    try:
        if args.preset == "fusion_brain_2021":
            inputs = load_fusion_brain_2021(args.gt, args.pred)
            ids, options = inputs["ids"], {}
        else:
            inputs = load_vqa_v2(args.annotations, args.results, args.questions)
            ids = inputs["question_ids"]
            if args.preset == "tdiuc":
                inputs["references"] = [refs[0] for refs in inputs["references"]]
                options = {}
            else:
                options = {"normalize": args.normalize, "num_answers": args.num_answers}
        result = score(args.preset, inputs, return_per_example=args.per_example, **options)
    except (ValueError, TypeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.per_example:
        result["per_example"] = dict(zip(map(str, ids), result["per_example"]))
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
