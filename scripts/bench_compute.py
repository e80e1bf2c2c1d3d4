"""CPU time of `evaluate.load(...).compute` against each metric's pure function (issue 11).

    .venv/bin/python scripts/bench_compute.py            # anls 20k, vqa_acc 200k, det_f1 5k
    .venv/bin/python scripts/bench_compute.py --scale 0.1

CPU time (`time.process_time`, best of 3) because the machine is shared: wall time there measures
the neighbours. Inputs come from the per-metric bench scripts; the reference loops are timed on the
same inputs (the VQA one on a tenth, scaled up, as it is linear and slow).
"""

import argparse
import sys
import time

from _bench import ROOT, load_core, offline_env

offline_env()


def cpu(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def line(name, pure, compute, ref=None):
    out = f"{name:34s} pure {pure * 1000:8.1f} ms   compute {compute * 1000:8.1f} ms   compute/pure {compute / pure:4.1f}x"
    if ref is not None:
        out += f"   reference {ref * 1000:9.1f} ms   reference/compute {ref / compute:5.1f}x"
    print(out)
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every workload size")
    args = parser.parse_args()
    import bench_anls
    import bench_det_f1
    import bench_vqa_acc
    import evaluate

    n = int(20_000 * args.scale)
    preds, refs = bench_anls.make_inputs(n)
    core = load_core("anls", "_anls_core")
    metric = evaluate.load(str(ROOT / "metrics" / "anls"), "stvqa")
    metric.compute(predictions=preds[:5], references=refs[:5])
    opts = dict(threshold=0.5, boundary="strict", text_norm="ws+lower", length_norm="normalized_upper")
    line(f"anls, {n} questions x 2 refs", cpu(lambda: core.anls_per_question(preds, refs, **opts)),
         cpu(lambda: metric.compute(predictions=preds, references=refs)))

    n = int(200_000 * args.scale)
    preds, refs = bench_vqa_acc.make_inputs(n)
    metric = evaluate.load(str(bench_vqa_acc.METRIC))
    metric.compute(predictions=preds[:5], references=refs[:5])
    tenth = max(n // 10, 1)
    ref = cpu(lambda: bench_vqa_acc.official_scores(preds[:tenth], refs[:tenth]), 1) * n / tenth
    line(f"vqa_acc vqa_v2, {n} questions", cpu(lambda: bench_vqa_acc.core.vqa_v2_per_question(preds, refs)),
         cpu(lambda: metric.compute(predictions=preds, references=refs)), ref)

    n = int(5_000 * args.scale)
    core = load_core("det_f1", "_det_f1_core")
    true_annot, predictions = bench_det_f1.generate(n)
    preds, refs, _ = core.from_fusion_brain(true_annot, predictions)
    metric = evaluate.load(str(ROOT / "metrics" / "det_f1"))
    metric.compute(predictions=preds[:5], references=refs[:5])
    line(f"det_f1, {n} images (from dicts)", cpu(lambda: core.det_f1(preds, refs)),
         cpu(lambda: metric.compute(predictions=preds, references=refs)),
         cpu(lambda: bench_det_f1.reference_counts(true_annot, predictions)))


if __name__ == "__main__":
    main()
