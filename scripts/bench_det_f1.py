"""Benchmark det_f1 against a transcription of the AIJ 2021 Fusion Brain zsOD scoring loop.

    .venv/bin/python scripts/bench_det_f1.py            # 5,000 images
    .venv/bin/python scripts/bench_det_f1.py --quick    # 300 images
    .venv/bin/python scripts/bench_det_f1.py --dense    # 0-8 objects per class (more pairs per group)
    .venv/bin/python scripts/bench_det_f1.py --floats   # float coordinates (detector outputs) instead of ints
    .venv/bin/python scripts/bench_det_f1.py --scale    # 5,000 x 1, 10, 100 images, a fresh process each

Times, on the same generated Fusion Brain-style data in the same run: the reference loop
(dict-of-dicts, Python loops, per-pair IoU, itertools.groupby); our pure core from the same dicts
(`from_fusion_brain` + `det_f1`), also with the one_to_one rule; the core on the Arrow columns the
module stores (what `_compute` receives); and `evaluate.load("metrics/det_f1").compute` end to end
(input checks + Arrow write/read included). Asserts identical TP/FP/FN counts and prints the CPU
times (`time.process_time`, best of --repeat runs: the machine is shared) and ratios; then the
reference loop and compute again on the same data as `json.load` returns it from the official
files (Python objects laid out in file order, which walks faster).
`--scale` prints the CPU time per image of the pure function and of compute, and the peak memory,
at 5,000, 50,000 and 500,000 images (or up to the largest size that fits two minutes).
"""

import argparse
import itertools
import json
import random
import sys
import time

import numpy as np
from _bench import ROOT, offline_env, run_scale, scale_child

from multimodal_metrics.det_f1 import columns, core

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


def best_of(fn, repeat):
    """(best CPU time of `repeat` calls, the last result)."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return min(times), out


def make_inputs(n: int):
    """(predictions, references) of `n` generated images, as the module takes them (class dicts)."""
    preds, refs, _ = columns.from_fusion_brain(*generate(n))
    return preds, refs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 images instead of 5,000")
    parser.add_argument("--images", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dense", action="store_true", help="0-8 objects per class instead of 0-3")
    parser.add_argument(
        "--floats", action="store_true", help="float coordinates (2 decimals) instead of ints"
    )
    parser.add_argument("--scale", action="store_true", help="5,000 x 1, 10, 100 images (fresh process each)")
    parser.add_argument("--scale-child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    n = args.images or (300 if args.quick else 5000)

    offline_env()
    if args.scale:
        run_scale(__file__, 5000)
        return 0
    if args.scale_child:
        import evaluate

        metric = evaluate.load(str(ROOT / "metrics" / "det_f1"))
        metric.compute(predictions=[{"cat": [[0, 0, 1, 1]]}], references=[{"cat": []}])  # warm-up
        scale_child(args.scale_child, make_inputs, core.det_f1,
                    lambda p, r: metric.compute(predictions=p, references=r))  # fmt: skip
        return 0
    true_annot, predictions = generate(n, dense=args.dense, floats=args.floats)
    n_groups = sum(len(v) for v in true_annot.values())
    n_boxes = sum(len(b) for v in true_annot.values() for b in v.values())

    t_ref, ref = best_of(lambda: reference_counts(true_annot, predictions), args.repeat)

    def ours():
        preds, refs, _ = columns.from_fusion_brain(true_annot, predictions)
        return core.det_f1(preds, refs)

    t_core, r_core = best_of(ours, args.repeat)

    def ours_o2o():
        preds, refs, _ = columns.from_fusion_brain(true_annot, predictions)
        return core.det_f1(preds, refs, matching="one_to_one")

    t_o2o, _ = best_of(ours_o2o, args.repeat)

    preds, refs, _ = columns.from_fusion_brain(true_annot, predictions)
    import pyarrow as pa

    stored_p, stored_r = (pa.chunked_array([columns.to_arrow(columns.pack(x, "x"))]) for x in (preds, refs))
    t_packed, r_packed = best_of(lambda: core.det_f1(stored_p, stored_r), args.repeat)

    import evaluate

    metric = evaluate.load(str(ROOT / "metrics" / "det_f1"))
    metric.compute(predictions=preds[:5], references=refs[:5])  # warm-up (Arrow writer, imports)
    t_eval, r_eval = best_of(lambda: metric.compute(predictions=preds, references=refs), args.repeat)

    counts = (int(r_core["tp"]), int(r_core["fp"]), int(r_core["fn"]))
    assert counts == ref, (counts, ref)
    assert (int(r_eval["tp"]), int(r_eval["fp"]), int(r_eval["fn"])) == ref
    assert r_core["f1"] == r_eval["f1"] == r_packed["f1"] == reference_f1(*ref)

    n_pred = sum(len(b) for v in predictions.values() for b in v.values())
    print(
        f"det_f1 benchmark: {n} images, {n_groups} (image, class) groups, {n_boxes} GT boxes, "
        f"{n_pred} predicted boxes, CPU time, best of {args.repeat} (2 cores shared with other jobs: noisy)"
    )
    print(f"counts tp/fp/fn = {ref}, f1 = {r_core['f1']:.6f} (identical in all)")
    print(f"reference loop (transcription)  {t_ref * 1000:9.1f} ms")
    print(f"det_f1 core (any)               {t_core * 1000:9.1f} ms   x{t_ref / t_core:6.1f} faster")
    print(f"det_f1 core (one_to_one)        {t_o2o * 1000:9.1f} ms   x{t_ref / t_o2o:6.1f} faster")
    print(
        f"det_f1 core on the Arrow columns{t_packed * 1000:9.1f} ms   x{t_ref / t_packed:6.1f} faster"
        "   (what _compute receives)"
    )
    print(
        f"evaluate.load(...).compute      {t_eval * 1000:9.1f} ms   x{t_ref / t_eval:6.1f} faster"
        "   (validation + Arrow write/read included)"
    )
    print(f"compute / pure function (from the same dicts): {t_eval / t_core:.2f}")

    # the same data as json.load returns it from the official files (objects laid out file order)
    true_json, pred_json = json.loads(json.dumps(true_annot)), json.loads(json.dumps(predictions))
    t_ref_json, ref_json = best_of(lambda: reference_counts(true_json, pred_json), args.repeat)
    preds_json, refs_json, _ = columns.from_fusion_brain(true_json, pred_json)
    t_eval_json, r_json = best_of(
        lambda: metric.compute(predictions=preds_json, references=refs_json), args.repeat
    )
    assert ref_json == ref and r_json["f1"] == r_eval["f1"]
    print(
        f"the same data read from JSON (the official files): reference loop {t_ref_json * 1000:.1f} ms, "
        f"compute {t_eval_json * 1000:.1f} ms, x{t_ref_json / t_eval_json:.1f} faster"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
