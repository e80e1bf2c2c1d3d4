"""Benchmark det_f1 against a transcription of the AIJ 2021 Fusion Brain zsOD scoring loop.

    .venv/bin/python benchmarks/bench_det_f1.py            # 5,000 images
    .venv/bin/python benchmarks/bench_det_f1.py --quick    # 300 images
    .venv/bin/python benchmarks/bench_det_f1.py --dense    # 0-8 objects per class (more pairs per group)
    .venv/bin/python benchmarks/bench_det_f1.py --floats   # float coordinates (detector outputs) instead of ints
    .venv/bin/python benchmarks/bench_det_f1.py --shape sparse --images 2000 --repeat 5   # other shapes of data
    .venv/bin/python benchmarks/bench_det_f1.py --scale    # 5,000 x 1, 10, 100 images, a fresh process each

Times, on the same generated Fusion Brain-style data in the same run: the reference loop
(dict-of-dicts, Python loops, per-pair IoU, itertools.groupby); our pure core from the same dicts
(`from_fusion_brain` + `det_f1`), also with the one_to_one rule; the core on the Arrow columns the
module stores (what `_compute` receives); and `evaluate.load("metrics/det_f1").compute` end to end
(input checks + Arrow write/read included). Asserts identical TP/FP/FN counts and prints the CPU
times (`time.process_time`, best of --repeat runs: the machine is shared) and ratios; then the
reference loop and compute again on the same data as `json.load` returns it from the official
files (Python objects laid out in file order, which walks faster).
`--shape`: other shapes of data than Fusion Brain's 5 classes of 0-3 boxes per image (integer
coordinates unless --floats): `few` (1 class per image, 0-1 box), `many` (30 of 600 classes per
image, 0-2 boxes each), `sparse` (20 of 500 classes per image, 15 % of them with one box: mostly
negative requests).
`--scale` prints the CPU time per image of the pure function and of compute, and the peak memory,
at 5,000, 50,000 and 500,000 images (or up to the largest size that fits two minutes).
"""

import argparse
import json
import sys

from timing import ROOT, measure, offline_env, run_scale, scale_child

# isort: split
from oracles.det_f1 import generate, reference_counts, reference_f1

from multimodal_metrics.det_f1 import columns, core


def make_inputs(n: int):
    """(predictions, references) of `n` generated images, as the module takes them (class dicts)."""
    preds, refs, _ = columns.from_fusion_brain(*generate(n))
    return preds, refs


SHAPES = {  # classes per image, vocabulary, box count choices per class (None: `sparse`, 15 % with one box)
    "few": (1, 20, [0, 1]),
    "many": (30, 600, [0, 0, 1, 2]),
    "sparse": (20, 500, None),
}


def generate_shape(n: int, shape: str, floats: bool = False, seed: int = 0):
    """Fusion Brain-style (true_annot, predictions) dicts of another shape (SHAPES): predictions are
    jittered copies (60 %), duplicates (10 %), misses, plus a false alarm in 25 % of the classes."""
    import random

    per_image, vocabulary, choices = SHAPES[shape]
    rng = random.Random(seed)
    names = [f"class {k}" for k in range(vocabulary)]

    def num(lo, hi):
        return round(rng.uniform(lo, hi), 2) if floats else rng.randint(lo, hi)

    def box():
        return [num(0, 900), num(0, 900), num(1, 300), num(1, 300)]

    true_annot, predictions = {}, {}
    for i in range(n):
        gt, pr = {}, {}
        for c in rng.sample(names, per_image):
            k = (rng.random() < 0.15) if choices is None else rng.choice(choices)
            gt[c] = boxes = [box() for _ in range(k)]
            preds = []
            for b in boxes:
                r = rng.random()
                if r < 0.6:
                    preds.append([b[0] + num(-20, 20), b[1] + num(-20, 20), b[2], b[3]])
                elif r < 0.7:
                    preds += [list(b), list(b)]
            if rng.random() < 0.25:
                preds.append(box())
            pr[c] = preds
        true_annot[f"{i}.jpg"], predictions[f"{i}.jpg"] = gt, pr
    return true_annot, predictions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 images instead of 5,000")
    parser.add_argument("--images", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dense", action="store_true", help="0-8 objects per class instead of 0-3")
    parser.add_argument(
        "--floats", action="store_true", help="float coordinates (2 decimals) instead of ints"
    )
    parser.add_argument(
        "--shape", choices=sorted(SHAPES), default=None, help="another shape of data (see above)"
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
    if args.shape:
        true_annot, predictions = generate_shape(n, args.shape, floats=args.floats)
    else:
        true_annot, predictions = generate(n, dense=args.dense, floats=args.floats)
    n_groups = sum(len(v) for v in true_annot.values())
    n_boxes = sum(len(b) for v in true_annot.values() for b in v.values())

    ref, _, t_ref = measure(lambda: reference_counts(true_annot, predictions), args.repeat)

    def ours():
        preds, refs, _ = columns.from_fusion_brain(true_annot, predictions)
        return core.det_f1(preds, refs)

    r_core, _, t_core = measure(ours, args.repeat)

    def ours_o2o():
        preds, refs, _ = columns.from_fusion_brain(true_annot, predictions)
        return core.det_f1(preds, refs, matching="one_to_one")

    _, _, t_o2o = measure(ours_o2o, args.repeat)

    preds, refs, _ = columns.from_fusion_brain(true_annot, predictions)
    import pyarrow as pa

    stored_p, stored_r = (pa.chunked_array([columns.to_arrow(columns.pack(x, "x"))]) for x in (preds, refs))
    r_packed, _, t_packed = measure(lambda: core.det_f1(stored_p, stored_r), args.repeat)

    import evaluate

    metric = evaluate.load(str(ROOT / "metrics" / "det_f1"))
    metric.compute(predictions=preds[:5], references=refs[:5])  # warm-up (Arrow writer, imports)
    r_eval, _, t_eval = measure(lambda: metric.compute(predictions=preds, references=refs), args.repeat)

    counts = (int(r_core["tp"]), int(r_core["fp"]), int(r_core["fn"]))
    assert counts == ref, (counts, ref)
    assert (int(r_eval["tp"]), int(r_eval["fp"]), int(r_eval["fn"])) == ref
    assert r_core["f1"] == r_eval["f1"] == r_packed["f1"] == reference_f1(*ref)

    n_pred = sum(len(b) for v in predictions.values() for b in v.values())
    shape = f"shape {args.shape}" if args.shape else "Fusion Brain shape" + (", dense" if args.dense else "")
    print(
        f"det_f1 benchmark ({shape}, {'float' if args.floats else 'integer'} coordinates): "
        f"{n} images, {n_groups} (image, class) groups, {n_boxes} GT boxes, "
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
    ref_json, _, t_ref_json = measure(lambda: reference_counts(true_json, pred_json), args.repeat)
    preds_json, refs_json, _ = columns.from_fusion_brain(true_json, pred_json)
    r_json, _, t_eval_json = measure(
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
