"""Benchmark: our anls against the PyPI `anls` package (same inputs, same run, same convention).

    .venv/bin/python benchmarks/bench_anls.py                  # 20,000 questions x 2 references, 10-30 characters
    .venv/bin/python benchmarks/bench_anls.py --length 3,13    # the same with answers of 3-13 characters
    .venv/bin/python benchmarks/bench_anls.py --quick          # 2,000 questions
    .venv/bin/python benchmarks/bench_anls.py --kernel --length 8,26   # vs a minimal loop and the kernel

Both sides use the `anls` package's convention (our preset `stvqa`) so the per-question scores must
be identical; the script asserts it, then prints the times and the ratios. PyPI `anls` computes each
edit distance in Python (length x length steps), so the ratio grows with the length of the answers.

`--kernel`: the library's `score` with the default preset (the official RRC convention) against the
least a Python program can do for the same number: a loop that normalises each string, measures the
pair with rapidfuzz, thresholds and averages exactly as the preset does (the same value bit for bit,
asserted), and against the kernel alone (rapidfuzz `cpdist` over the normalised pairs). Timed in
turns, best of `--rounds`.
"""

import argparse
import random
import sys

from timing import ROOT, measure, offline_env, run_scale, scale_child

offline_env()


def make_inputs(n: int, seed: int = 0, length: tuple[int, int] = (10, 30)):
    """DocVQA-like answers of ``length`` characters (uniform, both ends included; default about 20),
    predictions with OCR-style edits."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz0123456789 .,$-ABCDEFGHIJ"

    def answer():
        return "".join(rng.choice(letters) for _ in range(rng.randint(*length)))

    def corrupt(text):
        chars = list(text)
        for _ in range(rng.randint(0, 6)):
            pos = rng.randrange(len(chars) + 1)
            op = rng.random()
            if op < 0.4 and pos < len(chars):
                chars[pos] = rng.choice(letters)
            elif op < 0.7:
                chars.insert(pos, rng.choice(letters))
            elif pos < len(chars):
                del chars[pos]
        return "".join(chars)

    refs = [[answer(), answer()] for _ in range(n)]
    preds = [corrupt(r[0]) if rng.random() < 0.7 else answer() for r in refs]
    return preds, refs


def minimal_loop(preds, refs, threshold: float = 0.5) -> float:
    """The official RRC ANLS (our default preset) as a plain loop: strip, lower-case and collapse the
    whitespace of both strings, rapidfuzz's Levenshtein distance over max(len(a.upper()), len(o.upper()))
    of the raw strings, s >= threshold kept, the best reference per question, the mean (left to right)."""
    from rapidfuzz.distance import Levenshtein

    distance = Levenshtein.distance
    total = 0.0
    for pred, answers in zip(preds, refs):
        p = " ".join(pred.strip().lower().split())
        best = 0.0
        for answer in answers:
            length = max(len(pred.upper()), len(answer.upper()))
            s = 1.0 - distance(p, " ".join(answer.strip().lower().split())) / length if length else 1.0
            if s >= threshold and s > best:
                best = s
        total += best
    return total / len(preds)


def kernel_row(n: int, length: tuple[int, int], rounds: int) -> None:
    """`--kernel`: library `score` (default preset) vs the minimal loop vs rapidfuzz `cpdist` alone."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cpdist
    from timing import interleaved

    from multimodal_metrics.anls import core, scoring

    preds, refs = make_inputs(n, length=length)
    flat = [r for rs in refs for r in rs]
    pairs_p = [core.normalize_text(p) for p, rs in zip(preds, refs) for _ in rs]
    pairs_r = [core.normalize_text(r) for r in flat]
    t = interleaved(
        {
            "loop": lambda: minimal_loop(preds, refs),
            "kernel": lambda: cpdist(pairs_p, pairs_r, scorer=Levenshtein.distance, workers=1),
            "score": lambda: scoring.score(preds, refs)["anls"],
            "pure": lambda: core.anls_per_question(preds, refs),
        },
        rounds,
    )
    assert t["score"].out == t["loop"].out, "score differs from the minimal loop"
    chars = sum(map(len, preds + flat)) / (len(preds) + len(flat))
    print(
        f"anls --kernel: {n:,} questions x 2 references of {length[0]}-{length[1]} characters (mean {chars:.1f}), "
        f"default preset; CPU time, best of {rounds}, in turns"
    )
    loop, kernel = t["loop"].cpu, t["kernel"].cpu
    print(f"  minimal Python loop (normalise, rapidfuzz, threshold, mean) {loop * 1000:8.1f} ms")
    print(f"  kernel alone: rapidfuzz cpdist over the {len(flat):,} normalised pairs {kernel * 1000:8.1f} ms")
    for name, label in (("pure", "pure function (anls_per_question)"), ("score", "library score")):
        c = t[name].cpu
        print(
            f"  ours, {label:34s} {c * 1000:8.1f} ms   {c / loop:5.2f}x the loop   {c / kernel:5.2f}x the kernel"
        )
    print(f"  ANLS = {t['score'].out!r} from both score and the loop (bit for bit)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 questions instead of 20,000")
    parser.add_argument("-n", type=int, default=None, help="number of questions")
    parser.add_argument(
        "--length", default="10,30", help="answer lengths LO,HI in characters (default 10,30)"
    )
    parser.add_argument(
        "--kernel", action="store_true", help="vs a minimal loop and rapidfuzz's cpdist alone"
    )
    parser.add_argument("--rounds", type=int, default=7, help="--kernel: rounds of the timing (best of)")
    parser.add_argument("--scale", action="store_true", help="20,000 x 1, 10, 100 (fresh process each)")
    parser.add_argument("--scale-child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scale:
        return run_scale(__file__, 20000)
    if args.scale_child:
        import evaluate

        from multimodal_metrics.anls import core

        metric = evaluate.load(str(ROOT / "metrics" / "anls"), "stvqa")
        return scale_child(args.scale_child, make_inputs, lambda p, r: core.anls_per_question(p, r, threshold=0.5, boundary="strict", text_norm="ws+lower", length_norm="normalized_upper"),
                           lambda p, r: metric.compute(predictions=p, references=r))  # fmt: skip
    n = args.n or (2_000 if args.quick else 20_000)
    length = tuple(int(x) for x in args.length.split(","))
    if args.kernel:
        return kernel_row(n, length, args.rounds)
    preds, refs = make_inputs(n, length=length)

    import evaluate
    from anls import anls_score

    from multimodal_metrics.anls import core

    options = dict(threshold=0.5, boundary="strict", text_norm="ws+lower", length_norm="normalized_upper")
    metric = evaluate.load(str(ROOT / "metrics" / "anls"), "stvqa")
    metric.compute(predictions=preds[:10], references=refs[:10])  # warm-up (Arrow writer, imports)

    peer, t_peer, _ = measure(lambda: [anls_score(p, r, threshold=0.5) for p, r in zip(preds, refs)])
    ours, t_ours, _ = measure(lambda: core.anls_per_question(preds, refs, **options))
    module, t_module, _ = measure(
        lambda: metric.compute(predictions=preds, references=refs, return_per_example=True)
    )

    assert ours.tolist() == peer, "per-question scores differ from the PyPI anls package"
    assert module["per_example"] == peer, "module scores differ from the PyPI anls package"
    chars = sum(len(r) for rs in refs for r in rs) / (2 * n)
    print(
        f"anls benchmark: {n} questions x 2 references of {length[0]}-{length[1]} characters (mean {chars:.1f}), "
        "preset stvqa = PyPI anls convention"
    )
    print(f"  PyPI anls 0.0.2 (pure Python)          {t_peer * 1000:9.1f} ms")
    print(
        f"  ours, pure function (anls_per_question) {t_ours * 1000:9.1f} ms   {t_peer / t_ours:7.1f}x faster"
    )
    print(
        f"  ours, evaluate.load(...).compute       {t_module * 1000:9.1f} ms   {t_peer / t_module:7.1f}x faster"
    )
    print(f"  ANLS = {sum(peer) / n:.6f} on both sides (identical per-question scores)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
