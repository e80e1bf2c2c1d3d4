"""Benchmark: our text_qa against a transcription of the official AIJ 2022 calculate_f1 / calculate_exact_score.

    .venv/bin/python benchmarks/bench_text_qa.py            # 10,000 questions x 2 accepted answers
    .venv/bin/python benchmarks/bench_text_qa.py --quick    # 1,000 questions
    .venv/bin/python benchmarks/bench_text_qa.py --scale    # 10,000 x 1, 10, 100: CPU time per question, peak RSS
    .venv/bin/python benchmarks/bench_text_qa.py --mathqa   # 1,500 MathQA-style questions, one compute call each

The reference side follows seeds_reference.md 1.1 / 1.2 as the AIJ 2022 kit runs it: one pymorphy
parse per token occurrence, no cache (pymorphy3 here: pymorphy2 does not import on Python >= 3.11).
Ours caches the lemma of every distinct token. The per-question scores must be identical (asserted).

`--mathqa`: 1,500 questions shaped like MathQA's (a letter a-e and a number as the accepted answers,
predictions such as "d) -3", "ответ: b" or a number with a unit; most numbers distinct), preset
`mathqa`, each side's analyzer built before the timings; `compute` is one call on all of them with a
cold lemma cache (cleared before each run) and again warm, against the official transcription, in
turns, best of 5.
"""

import argparse
import random
import sys

from timing import ROOT, measure, offline_env, run_scale, scale_child

# isort: split
from oracles.fb2022_text import official_scores

offline_env()

WORDS = (
    "кот кота коты кошки собака собаки три два один одного пять десять улица улицы Москва Москвы "
    "на в по с секунды секунда год года жёлтого желтый красный красного дом дома a b c d e ответ: "
    "0,3 0.3 -3 12 «да» нет город города река реки"
).split()


def make_inputs(n: int, seed: int = 0):
    rng = random.Random(seed)

    def answer():
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))

    refs = [[answer(), answer()] for _ in range(n)]
    preds = [(r[0] + " " + rng.choice(WORDS)) if rng.random() < 0.5 else answer() for r in refs]
    return preds, refs


def make_mathqa_inputs(n: int, seed: int = 2):
    """MathQA-like questions: accepted answers [letter, number, "letter number"], predictions "d) -3",
    "ответ: b" or a number with a Russian unit (mostly distinct numbers: few repeated tokens)."""
    rng = random.Random(seed)

    def number():
        return rng.choice(["", "-"]) + str(rng.randint(0, 500)) + rng.choice(["", ",5", ".25"])

    refs, preds = [], []
    for _ in range(n):
        letter, value = rng.choice("abcde"), number()
        refs.append([letter, value, f"{letter} {value}"])
        r = rng.random()
        if r < 0.4:
            preds.append(f"{letter}) {value}")
        elif r < 0.7:
            preds.append(f"ответ: {rng.choice('abcde')}")
        else:
            preds.append(f"{number()} {rng.choice(['рублей', 'метров', 'секунды', 'кота'])}")
    return preds, refs


def mathqa_row(n: int) -> None:
    """`--mathqa`: one compute call on n MathQA-style questions (cold and warm lemma cache) vs the official
    transcription, in turns, best of 5."""
    import evaluate
    from timing import interleaved

    from multimodal_metrics.text_qa import core

    preds, refs = make_mathqa_inputs(n)
    metric = evaluate.load(str(ROOT / "metrics" / "text_qa"), "mathqa")
    metric.compute(predictions=["кот"], references=["кот"])  # the analyzer, the Arrow writer
    official_scores(preds[:2], refs[:2], exact=True)  # its analyzer

    def cold():
        core.lemmatize.cache_clear()
        return metric.compute(predictions=preds, references=refs, return_per_example=True)

    t = interleaved(
        {
            "official": lambda: official_scores(preds, refs, exact=True),
            "cold": cold,
            "warm": lambda: metric.compute(predictions=preds, references=refs, return_per_example=True),
        },
        5,
    )
    assert t["cold"].out["per_example"] == t["official"].out == t["warm"].out["per_example"]
    official = t["official"].cpu
    print(
        f"text_qa --mathqa: {n:,} MathQA-style questions, preset mathqa, one compute call; best of 5, in turns"
    )
    print(f"  official transcription (parse per token)     {official * 1000:8.1f} ms")
    for name, label in (("cold", "cold lemma cache"), ("warm", "warm lemma cache")):
        c = t[name].cpu
        print(f"  compute, {label:35s} {c * 1000:8.1f} ms   {official / c:6.1f}x faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 questions instead of 10,000")
    parser.add_argument("-n", type=int, default=None, help="number of questions")
    parser.add_argument("--scale", action="store_true", help="10,000 x 1, 10, 100 (fresh process each)")
    parser.add_argument(
        "--mathqa", action="store_true", help="1,500 MathQA-style questions, one compute call"
    )
    parser.add_argument("--scale-child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scale:
        return run_scale(__file__, 10_000)
    if args.scale_child:  # preset textqa; each side with its own cold lemma cache
        import evaluate

        from multimodal_metrics.text_qa import core

        metric = evaluate.load(str(ROOT / "metrics" / "text_qa"))
        return scale_child(args.scale_child, make_inputs, lambda p, r: core.text_qa_per_example(p, r),
                           lambda p, r: metric.compute(predictions=p, references=r))  # fmt: skip
    if args.mathqa:
        return mathqa_row(args.n or 1_500)
    n = args.n or (1_000 if args.quick else 10_000)
    preds, refs = make_inputs(n)

    import evaluate

    from multimodal_metrics.text_qa import core

    core.normalize_answer("прогрев")  # create the analyzer outside the timings (both sides)
    official_scores(preds[:2], refs[:2], exact=False)
    metric = evaluate.load(str(ROOT / "metrics" / "text_qa"))
    metric.compute(predictions=["кот"], references=["кот"])  # warm-up (Arrow writer)

    print(f"text_qa benchmark: {n} questions x 2 accepted answers, 1-5 Russian/Latin tokens each")
    for preset, exact, opts in (
        ("textqa", False, {"measure": "f1", "keep_hyphen": False}),
        ("mathqa", True, {"measure": "exact_match", "keep_hyphen": True}),
    ):
        core.lemmatize.cache_clear()  # cold cache: ours pays its own lemmatisation
        peer, t_peer, _ = measure(lambda exact=exact: official_scores(preds, refs, exact))
        ours, t_ours, _ = measure(lambda opts=opts: core.text_qa_per_example(preds, refs, **opts))
        assert ours == peer, f"{preset}: per-question scores differ from the official transcription"
        print(f"  [{preset}] official transcription (parse per token) {t_peer * 1000:9.1f} ms")
        print(
            f"  [{preset}] ours, cold lemma cache                  {t_ours * 1000:9.1f} ms   {t_peer / t_ours:6.1f}x faster"
        )
    module, t_module, _ = measure(
        lambda: metric.compute(predictions=preds, references=refs, return_per_example=True)
    )
    assert module["per_example"] == official_scores(preds, refs, exact=False)
    print(f"  [textqa] evaluate.load(...).compute (cold cache)   {t_module * 1000:9.1f} ms")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
