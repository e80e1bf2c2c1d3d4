"""Benchmark: our ned against an nltk.edit_distance transcription of the official AIJ 2022 calculate_NED.

    .venv/bin/python benchmarks/bench_ned.py            # 2,000 pairs of 200-character strings
    .venv/bin/python benchmarks/bench_ned.py --quick    # 200 pairs

The reference side is the official function (seeds_reference.md 1.6) transcribed with
`nltk.edit_distance`, as the AIJ 2022 kit runs it; ours is the default preset (the same semantics),
so the per-example scores must be identical: the script asserts it, then prints the times and ratios.
"""

import argparse
import random
import sys

from timing import ROOT, measure, offline_env, run_scale, scale_child

# isort: split
from oracles.ned import official_calculate_ned

offline_env()


def make_inputs(n: int, length: int = 200, seed: int = 0):
    """Text lines of `length` characters (Latin + Cyrillic), predictions with OCR-style edits."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyzабвгдеёжзийклмнопрстуфхцчшщъыьэюя0123456789 .,-ABCDEFХОР"

    def line():
        return "".join(rng.choice(letters) for _ in range(length))

    def corrupt(text):
        chars = list(text)
        for _ in range(rng.randint(0, 20)):
            pos = rng.randrange(len(chars))
            op = rng.random()
            if op < 0.5:
                chars[pos] = rng.choice(letters)
            elif op < 0.75:
                chars.insert(pos, rng.choice(letters))
            else:
                del chars[pos]
        return "".join(chars)

    refs = [[line()] for _ in range(n)]
    preds = [corrupt(r[0]) if rng.random() < 0.9 else line() for r in refs]
    return preds, refs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 pairs instead of 2,000")
    parser.add_argument("-n", type=int, default=None, help="number of pairs")
    parser.add_argument("--scale", action="store_true", help="2,000 x 1, 10, 100 (fresh process each)")
    parser.add_argument("--scale-child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scale:
        return run_scale(__file__, 2000)
    if args.scale_child:
        import evaluate

        from multimodal_metrics.ned import core

        metric = evaluate.load(str(ROOT / "metrics" / "ned"))
        return scale_child(args.scale_child, make_inputs, lambda p, r: core.ned_per_example(p, r),
                           lambda p, r: metric.compute(predictions=p, references=r))  # fmt: skip
    n = args.n or (200 if args.quick else 2_000)
    preds, refs = make_inputs(n)

    import evaluate

    from multimodal_metrics.ned import core

    metric = evaluate.load(str(ROOT / "metrics" / "ned"))
    metric.compute(predictions=preds[:10], references=refs[:10])  # warm-up (Arrow writer, imports)
    core.ned_per_example(preds[:10], refs[:10])

    peer, t_peer, _ = measure(lambda: official_calculate_ned(preds, refs))
    ours, t_ours, _ = measure(lambda: core.ned_per_example(preds, refs)["one_minus_ned"])
    module, t_module, _ = measure(
        lambda: metric.compute(predictions=preds, references=refs, return_per_example=True)
    )

    assert ours.tolist() == peer, "per-example scores differ from the nltk transcription"
    assert [p["one_minus_ned"] for p in module["per_example"]] == peer, (
        "module scores differ from the nltk transcription"
    )
    print(
        f"ned benchmark: {n} pairs of {len(refs[0][0])}-character strings (default preset = official AIJ 2022)"
    )
    print(f"  official function, nltk.edit_distance   {t_peer * 1000:10.1f} ms")
    print(
        f"  ours, pure function (ned_per_example)   {t_ours * 1000:10.1f} ms   {t_peer / t_ours:8.1f}x faster"
    )
    print(
        f"  ours, evaluate.load(...).compute        {t_module * 1000:10.1f} ms   {t_peer / t_module:8.1f}x faster"
    )
    print(f"  1 - NED = {sum(peer) / n:.6f} on both sides (identical per-example scores)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
