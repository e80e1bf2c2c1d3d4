"""The AIJ 2021 Fusion Brain zsOD scoring loop (ai-forever/fusion_brain_aij2021
evaluation/zsOD_F1/evaluate.py), transcribed, and the Fusion Brain-style data it is run on."""

import itertools
import random

import numpy as np

CLASSES = [
    "a cat on a sofa",
    "two green eyes",
    "a red basket",
    "plush ostrich",
    "it's raining hard",
    "a lamp",
]


# ------------------------------------------------------------------------------------------------
# Transcription of the official loop (ai-forever/fusion_brain_aij2021 evaluation/zsOD_F1/evaluate.py,
# semantics in shared/reference/seeds_reference.md 2.3), extended with `strict` / `threshold`.
# ------------------------------------------------------------------------------------------------
def reference_iou(box1, box2):
    """Scalar IoU of two xyxy boxes, with the script's operations (numpy pairs, NaN -> 0)."""
    lt = np.zeros(2)
    rb = np.zeros(2)
    for i in range(2):
        lt[i] = box1[i] if box1[i] > box2[i] else box2[i]
        rb[i] = box1[i + 2] if box1[i + 2] < box2[i + 2] else box2[i + 2]
    wh = rb - lt
    wh[wh < 0] = 0
    inter = wh[0] * wh[1]
    area1 = (box1[2] - box1[0]) * (box1[3] - box1[1])
    area2 = (box2[2] - box2[0]) * (box2[3] - box2[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        value = inter / (area1 + area2 - inter)
    return 0 if np.isnan(value) else value


def reference_counts(true_annot, predictions, threshold=0.5, strict=False):
    """(tp, fp, fn) of the Fusion Brain 2021 zsOD loop on `{img: {class: [[x, y, w, h], ...]}}` dicts."""
    assert set(true_annot) == set(predictions), "Not all images have predictions!"

    def xyxy(b):
        x, y, w, h = b
        return [x, y, x + w, y + h]

    tp = fp = fn = 0
    for img in true_annot:
        for label in true_annot[img]:
            true = true_annot[img][label]
            assert label in predictions[img], f"no prediction for {label!r} in {img!r}"
            pred = predictions[img][label]
            if pred == [[]]:
                pred = []
            if len(pred) == 0 and len(true) == 0:
                continue
            if len(pred) > 0 and len(true) == 0:
                fp += len(pred)
            elif len(pred) == 0 and len(true) > 0:
                fn += len(true)
            else:
                fn += max(0, len(true) - len(pred))
                triples = [(p, t, reference_iou(xyxy(p), xyxy(t))) for p, t in itertools.product(pred, true)]
                for _, group in itertools.groupby(triples, key=lambda x: x[0]):
                    ious = np.array([v for _, _, v in group])
                    miss = np.all(ious <= threshold) if strict else np.all(ious < threshold)
                    if miss:
                        fp += 1
                    else:
                        tp += 1
    return tp, fp, fn


def reference_f1(tp, fp, fn):
    recall = tp / (tp + fn) if (tp + fn) > 0 else 0
    precision = tp / (tp + fp) if (tp + fp) > 0 else 0
    return 2 * precision * recall / (precision + recall) if (precision > 0 or recall > 0) else 0


# ------------------------------------------------------------------------------------------------
def generate(n_images: int, seed: int = 0, dense: bool = False, floats: bool = False):
    """Fusion Brain-style GT and predictions: 5 requested classes per image, 0-3 GT boxes each
    (``dense``: 0-8), predictions = jittered copies, duplicates, misses and false alarms (integer
    coordinates, ``floats``: floats with 2 decimals; ``dense`` adds 0-3 extra false alarms per class)."""
    rng = random.Random(seed)

    def num(lo, hi):
        return round(rng.uniform(lo, hi), 2) if floats else rng.randint(lo, hi)

    n_gt_choices = list(range(9)) if dense else [0, 0, 1, 1, 1, 2, 3]
    n_extra = 3 if dense else 1
    true_annot, predictions = {}, {}
    for i in range(n_images):
        img = f"{i}.jpg"
        gt, pr = {}, {}
        for c in rng.sample(CLASSES, 5):
            boxes = [
                [num(0, 900), num(0, 900), num(1, 300), num(1, 300)] for _ in range(rng.choice(n_gt_choices))
            ]
            gt[c] = boxes
            preds = []
            for b in boxes:
                r = rng.random()
                if r < 0.6:
                    preds.append([b[0] + num(-20, 20), b[1] + num(-20, 20), b[2], b[3]])
                elif r < 0.7:
                    preds += [list(b), list(b)]
            for _ in range(n_extra):
                if rng.random() < 0.25:
                    preds.append([num(0, 900), num(0, 900), num(1, 300), num(1, 300)])
            pr[c] = preds if preds or rng.random() < 0.8 else [[]]
        true_annot[img] = gt
        predictions[img] = pr
    return true_annot, predictions


# The seed vectors: (id, references, predictions, F1 of the official script, F1 of one_to_one (derived by
# hand)); the images are lists of {class: boxes} with B a 10 x 10 box at the origin.
B = [0, 0, 10, 10]
VECTORS = [
    ("Z1", [{"cat": [B], "dog": []}], [{"cat": [B], "dog": []}], 1.0, 1.0),
    ("Z2", [{"cat": [B], "dog": []}], [{"cat": [B], "dog": [[5, 5, 5, 5]]}], 2 / 3, 2 / 3),
    ("Z3", [{"cat": [B]}], [{"cat": [[0, 0, 10, 5]]}], 1.0, 1.0),  # IoU exactly 0.5
    ("Z4", [{"cat": [B]}], [{"cat": [[0, 0, 10, 4]]}], 0.0, 0.0),  # IoU 0.4: FP, and FN only for one_to_one
    # second prediction overlaps GT 1 again (IoU 0.68), GT 2 is never found: one_to_one TP 1, FP 1, FN 1
    ("Z5", [{"cat": [B, [50, 50, 10, 10]]}], [{"cat": [B, [1, 1, 10, 10]]}], 1.0, 0.5),
    ("Z6", [{"cat": [B, [50, 50, 10, 10], [100, 100, 10, 10]]}], [{"cat": [B]}], 0.5, 0.5),
    ("Z7", [{"cat": [B]}], [{"cat": [[]]}], 0.0, 0.0),
    ("Z8", [{"cat": []}], [{"cat": []}], 0.0, 0.0),
    ("Z9", [{"cat": [B]}], [{"cat": [B, B]}], 1.0, 2 / 3),  # duplicate collapses (groupby) vs FP
    (
        "Z10",
        [{"cat": [B]}, {"cat": [], "dog": [[0, 0, 4, 4]]}],
        [{"cat": [B]}, {"cat": [[1, 1, 2, 2]], "dog": []}],
        0.5,
        0.5,
    ),
    # the reference flaw (anchors.md 0): three predictions on one of three objects
    (
        "flaw",
        [{"cat": [B, [50, 0, 10, 10], [100, 0, 10, 10]]}],
        [{"cat": [B, [0, 0, 10, 9], [1, 0, 10, 10]]}],
        1.0,
        1 / 3,
    ),
]
