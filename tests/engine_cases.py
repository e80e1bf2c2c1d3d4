"""Generated inputs per metric for the engine tests (torch.distributed, Ray Data, ``mm-score merge``).

One row per metric that has a mergeable ``State``: ``make(n, seed)`` returns the per-example inputs (a dict
from the argument names of ``score`` / ``State.update`` to lists of n plain values: strings, lists, dicts
of numbers, so that they travel as Ray Data columns and JSON), ``options`` the preset and options given to
both ``state`` and ``score``. Adding a metric to every engine test is adding its row here.
"""

import importlib
import json
import random
from dataclasses import dataclass, field

from state_checks import StateCase

from multimodal_metrics import METRICS

RESULT_KWARGS = {"return_per_example": True, "confidence": 0.95, "seed": 7, "n_resamples": 200}


@dataclass
class EngineCase:
    make: object  # (n, seed) -> {argument: list of n values}
    options: dict = field(default_factory=dict)
    cli: tuple | None = ()  # (mm-score command, extra flags, write(inputs, gt_path, pred_path)): its official
    # files; None: its mm-score command reads no --gt / --pred records (no --shard / --save-state)
    state_only: tuple = ()  # options given to `state` alone (not options of `score`)


def _answers(words, n, seed, most=3):
    rng = random.Random(seed)
    predictions = [rng.choice(words) + rng.choice(["", "s", " ", "x"]) for _ in range(n)]
    references = [[rng.choice(words) or "x" for _ in range(rng.randint(1, most))] for _ in range(n)]
    return {"predictions": predictions, "references": references}


_EN = ["receipt", "Paris", "total 12", "the bill", "", "N/A", "42", "dr. who"]
_RU = ["сорок два", "Москва", "abc", "ABC", "", "a", "б", "пять", "the cat", "ＡＢ", "кошка сидит на ковре"]
_CODE = [
    "def add(a, b):\n    return a + b",
    "def f(x):\n    y = x * 2\n    return y",
    "for i in range(10):\n    print(i)",
    "x = 1\ny = x + 2",
    "class A:\n    def m(self):\n        return self.v",
    "import os\nprint(os.getcwd())",
]


def _code(n, seed):
    rng = random.Random(seed)
    return {
        "predictions": [rng.choice(_CODE) for _ in range(n)],
        "references": [[rng.choice(_CODE) for _ in range(rng.randint(1, 2))] for _ in range(n)],
    }


_VQA = ["red", "Red.", "two", "2", "yes", "no", "a dog", "the dog", "dog", "1,000", "t-shirt"]


def _vqa(n, seed):
    """VQA v2 questions: 10 answers each, answer variants, question and answer types (text columns)."""
    rng = random.Random(seed)
    references = [[rng.choice(_VQA) for _ in range(10)] for _ in range(n)]
    variant = lambda text: rng.choice([text, text.upper(), text + ".", f" {text}"])  # noqa: E731
    return {
        "predictions": [
            variant(rng.choice(r)) if rng.random() < 0.6 else rng.choice(_VQA) for r in references
        ],
        "references": references,
        "question_types": [rng.choice(["what color", "how many", "is the", ""]) for _ in range(n)],
        "answer_types": [rng.choice(["other", "number", "yes/no"]) for _ in range(n)],
    }


def _detections(n, seed):
    """Images in the record form ({"classes": [...], "boxes": [...]}, one box list per class) on both
    sides (a column of one type in Arrow): boxes near the ground truth, duplicates, extra boxes, classes
    with no ground-truth box."""
    rng = random.Random(seed)
    box = lambda: [rng.randint(0, 50), rng.randint(0, 50), rng.randint(1, 30), rng.randint(1, 30)]  # noqa: E731
    predictions, references = [], []
    for _ in range(n):
        classes = rng.sample(["cat", "dog", "red car", "человек"], rng.randint(1, 3))
        truth = [[box() for _ in range(rng.choice([0, 1, 1, 2, 3]))] for _ in classes]
        found = []
        for boxes in truth:
            near = [[b[0] + rng.choice([0, 1, 3, 8]), *b[1:]] for b in boxes if rng.random() < 0.8]
            near += [box() for _ in range(rng.choice([0, 0, 1]))]
            found.append(near + near[:1] if near and rng.random() < 0.2 else near)
        predictions.append({"classes": classes, "boxes": found})
        references.append({"classes": list(classes), "boxes": truth})
    return {"predictions": predictions, "references": references}


def _features(n, seed, d=16):
    """fid_clip: generated and reference feature vectors (paired rows; plain floats)."""
    rng = random.Random(seed)
    rows = [[abs(rng.gauss(0, 1)) for _ in range(2 * d)] for _ in range(n)]
    return {"predictions": [r[:d] for r in rows], "references": [[v + 0.05 for v in r[d:]] for r in rows]}


def _json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False)


def _docvqa(inputs, gt, pred):
    pairs = list(zip(inputs["predictions"], inputs["references"], strict=True))
    _json(
        gt,
        {
            "dataset_name": "docvqa",
            "data": [{"questionId": i, "answers": r} for i, (_, r) in enumerate(pairs)],
        },
    )
    _json(pred, [{"questionId": i, "answer": p} for i, (p, _) in enumerate(pairs)])


def _fb2022(inputs, gt, pred):
    pairs = list(zip(inputs["predictions"], inputs["references"], strict=True))
    _json(gt, {str(i): [{"type": "text", "content": r}] for i, (_, r) in enumerate(pairs)})
    _json(pred, {str(i): [{"type": "text", "content": p}] for i, (p, _) in enumerate(pairs)})


def _fb2021_code(inputs, gt, pred):
    _json(gt, {str(i): refs[0] for i, refs in enumerate(inputs["references"])})
    _json(pred, {str(i): p for i, p in enumerate(inputs["predictions"])})


def _vqa_v2(inputs, gt, pred):
    annotations = [
        {"question_id": i, "question_type": q, "answer_type": a, "answers": [{"answer": x, "answer_id": k} for k, x in enumerate(r)]}
        for i, (r, q, a) in enumerate(zip(inputs["references"], inputs["question_types"], inputs["answer_types"], strict=True))
    ]  # fmt: skip
    _json(gt, {"annotations": annotations})
    _json(pred, [{"question_id": i, "answer": p} for i, p in enumerate(inputs["predictions"])])


def _zsod(inputs, gt, pred):
    for path, side in ((gt, "references"), (pred, "predictions")):
        _json(
            path,
            {
                f"{i}.jpg": dict(zip(x["classes"], x["boxes"], strict=True))
                for i, x in enumerate(inputs[side])
            },
        )


CASES = {
    "anls": EngineCase(
        lambda n, seed: _answers(_EN, n, seed), {"preset": "stvqa", "threshold": 0.4}, ("anls", [], _docvqa)
    ),
    "ned": EngineCase(
        lambda n, seed: _answers(_RU, n, seed, most=1), {"preset": "default"}, ("ned", [], _fb2022)
    ),
    "text_qa": EngineCase(
        lambda n, seed: _answers(_RU, n, seed), {"preset": "default"}, ("text-qa", [], _fb2022)
    ),
    "codebleu": EngineCase(_code, {"preset": "default", "lang": "python"}, ("codebleu", [], _fb2021_code)),
    "ru_meteor": EngineCase(
        lambda n, seed: _answers(_RU, n, seed),
        {"preset": "captioning", "synonyms": "none"},
        ("ru-meteor", ["--synonyms", "none"], _fb2022),
    ),
    "vqa_acc": EngineCase(_vqa, {"preset": "vqa_v2"}, ("vqa-acc", [], _vqa_v2)),
    "det_f1": EngineCase(_detections, {"preset": "default"}, ("det-f1", [], _zsod)),
    # the vectors kept: FID and its interval bit for bit however the ranks split the examples
    "fid_clip": EngineCase(_features, {"preset": "default", "keep_features": True}, None, ("keep_features",)),
}


def module(metric: str):
    return importlib.import_module(f"multimodal_metrics.{metric}")


# Metrics whose state does not take one row per example and are left out of this table, with the reason
# (fid_clip's two sets go through the engines as paired rows: a row's reference takes the row's index).
NOT_ROW_METRICS = {}


def stateful_metrics() -> list[str]:
    """The metrics of the collection that have a mergeable ``State`` with one row per example."""
    return [m for m in METRICS if hasattr(module(m), "State") and m not in NOT_ROW_METRICS]


def case(metric: str, n: int, seed: int = 0) -> StateCase:
    row = CASES[metric]
    return StateCase(
        module(metric), row.make(n, seed), dict(row.options), dict(RESULT_KWARGS), row.state_only
    )


def as_json(result) -> dict:
    """A Result as plain JSON data (value keys, signature, per-example list): floats keep every bit."""
    out = dict(result)
    out["signature"] = result.signature
    out["per_example"] = result.per_example
    return out
