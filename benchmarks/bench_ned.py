"""Benchmark: our ned against an nltk.edit_distance transcription of the official AIJ 2022 calculate_NED.

    .venv/bin/python benchmarks/bench_ned.py            # 2,000 pairs of 200-character strings
    .venv/bin/python benchmarks/bench_ned.py --quick    # 200 pairs
    .venv/bin/python benchmarks/bench_ned.py --kernel -n 20000 --length 17   # vs minimal numpy and the kernel

The reference side is the official function (seeds_reference.md 1.6) transcribed with
`nltk.edit_distance`, as the AIJ 2022 kit runs it; ours is the default preset (the same semantics),
so the per-example scores must be identical: the script asserts it, then prints the times and ratios.

`--kernel`: the library's `score` (default preset) against the least a program can do for the same
three numbers with numpy: rapidfuzz `cpdist` over the pairs, the lengths, 1 - NED, exact matches and
the corpus CER (the same per-example values, asserted), and against `cpdist` alone. Timed in turns,
best of `--rounds`.
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


def minimal_numpy(preds: list[str], refs: list[str]) -> tuple:
    """The default preset's three numbers for one reference per example, with nothing but the kernel and
    numpy: (per-example 1 - NED, per-example exact match, corpus CER)."""
    import numpy as np
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cpdist

    n = len(preds)
    dist = np.asarray(cpdist(preds, refs, scorer=Levenshtein.distance, workers=1), dtype=np.int64)
    pred_len = np.fromiter(map(len, preds), dtype=np.int64, count=n)
    ref_len = np.fromiter(map(len, refs), dtype=np.int64, count=n)
    longest = np.maximum(pred_len, ref_len)
    sim = 1.0 - np.divide(dist, longest, out=np.ones(n), where=longest > 0)
    sim[(pred_len == 0) | (ref_len == 0)] = 0.0
    return sim, (dist == 0).astype(np.float64), float(dist.sum() / max(float(ref_len.sum()), 1.0))


def kernel_row(n: int, length: int, rounds: int) -> None:
    """`--kernel`: library `score` (default preset) vs the minimal numpy version vs `cpdist` alone."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cpdist
    from timing import interleaved

    from multimodal_metrics.ned import core, scoring

    preds, nested = make_inputs(n, length)
    refs = [r[0] for r in nested]
    t = interleaved(
        {
            "minimal": lambda: minimal_numpy(preds, refs),
            "kernel": lambda: cpdist(preds, refs, scorer=Levenshtein.distance, workers=1),
            "score": lambda: scoring.score(preds, refs),
            "pure": lambda: core.ned_per_example(preds, nested),
        },
        rounds,
    )
    sim, exact, cer = t["minimal"].out
    got = scoring.score(preds, refs, return_per_example=True)
    assert [r["one_minus_ned"] for r in got.per_example] == sim.tolist(), "1 - NED differs"
    assert [r["string_accuracy"] for r in got.per_example] == exact.tolist(), "string accuracy differs"
    assert got["cer"] == cer, "CER differs"
    print(
        f"ned --kernel: {n:,} pairs of {length}-character lines (Latin + Cyrillic), default preset; "
        f"CPU time, best of {rounds}, in turns"
    )
    minimal, kernel = t["minimal"].cpu, t["kernel"].cpu
    print(f"  minimal numpy version (cpdist, lengths, 1 - NED, exact, CER) {minimal * 1000:8.2f} ms")
    print(f"  kernel alone: rapidfuzz cpdist                                {kernel * 1000:8.2f} ms")
    for name, label in (("pure", "pure function (ned_per_example)"), ("score", "library score")):
        ours = t[name].cpu
        print(
            f"  ours, {label:54s} {ours * 1000:8.2f} ms   "
            f"{ours / minimal:5.2f}x the minimal version   {ours / kernel:5.2f}x the kernel"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 pairs instead of 2,000")
    parser.add_argument("-n", type=int, default=None, help="number of pairs")
    parser.add_argument("--length", type=int, default=200, help="characters per line (default 200)")
    parser.add_argument("--kernel", action="store_true", help="vs a minimal numpy version and cpdist alone")
    parser.add_argument("--rounds", type=int, default=9, help="--kernel: rounds of the timing (best of)")
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
    if args.kernel:
        return kernel_row(n, args.length, args.rounds)
    preds, refs = make_inputs(n, args.length)

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
