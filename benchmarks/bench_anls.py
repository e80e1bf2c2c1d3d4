"""Benchmark: our anls against the PyPI `anls` package (same inputs, same run, same convention).

    .venv/bin/python benchmarks/bench_anls.py            # 20,000 questions x 2 references
    .venv/bin/python benchmarks/bench_anls.py --quick    # 2,000 questions

Both sides use the `anls` package's convention (our preset `stvqa`) so the per-question scores must
be identical; the script asserts it, then prints the times and the ratios.
"""

import argparse
import random
import sys

from timing import ROOT, measure, offline_env, run_scale, scale_child

offline_env()


def make_inputs(n: int, seed: int = 0):
    """DocVQA-like answers of about 20 characters, predictions with OCR-style edits."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz0123456789 .,$-ABCDEFGHIJ"

    def answer():
        return "".join(rng.choice(letters) for _ in range(rng.randint(10, 30)))

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 questions instead of 20,000")
    parser.add_argument("-n", type=int, default=None, help="number of questions")
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
    preds, refs = make_inputs(n)

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
    print(
        f"anls benchmark: {n} questions x 2 references, ~20-character answers (preset stvqa = PyPI anls convention)"
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
