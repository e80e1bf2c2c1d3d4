"""Benchmark: vqa_acc's vqa_v2 scoring vs a faithful transcription of the official per-question loop.

    python benchmarks/bench_vqa_acc.py            # 200,000 questions x 10 answers
    python benchmarks/bench_vqa_acc.py --quick    # 5,000 questions
    python benchmarks/bench_vqa_acc.py --n 50000 --seed 1
    python benchmarks/bench_vqa_acc.py --wups     # wups preset: 10,000 questions vs calculate_wups.py
    python benchmarks/bench_vqa_acc.py --tdiuc    # tdiuc preset vs Kafle's script, 1,000 .. 1,000,000 questions

Times, on the same generated answers in the same run: (1) `OfficialVQAEval`, a line-by-line Python 3 port
of GT-Vision-Lab vqaEval.py @ a013f00 (its `evaluate` loop, `processPunctuation`, `processDigitArticle`,
answer dicts compared whole, Python 2 `re` semantics); (2) our pure `vqa_v2_per_question`; (3)
`evaluate.load("metrics/vqa_acc").compute(...)` (adds input checks and Arrow storage). Asserts that the
per-question scores are identical (==, not approximately) and prints the CPU times and the ratios.
"""

import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np
from timing import ROOT, max_rss_mib, measure, offline_env, run_scale, scale_child_line

# isort: split
from oracles.vqa import (
    WUPS_WORDS,
    MalinowskiWUPS,
    kafle_tdiuc,
    make_inputs,
    make_wups_inputs,
    official_scores,
)

from multimodal_metrics.vqa_acc import core

METRIC = ROOT / "metrics" / "vqa_acc"


def bench_wups(n: int, seed: int, threshold: float, skip_evaluate: bool) -> int:
    """WUPS preset vs the calculate_wups.py transcription, each on a WordNet reader of its own."""
    offline_env()
    import os

    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    from multimodal_metrics.vqa_acc import wups

    nltk_data = os.environ["NLTK_DATA"]
    predictions, gts = make_wups_inputs(n, seed)
    print(f"wups (threshold {threshold}) on {n:,} questions, {len(WUPS_WORDS)} distinct words (seed {seed})")
    print(f"  WordNet: {nltk_data}; reader construction not timed (both sides build a fresh one)")

    ref_wn = WordNetCorpusReader(str(Path(nltk_data) / "corpora" / "wordnet"), None)
    # a full garbage collection before each timing: a WordNet reader is ~10^6 objects, and where Python's
    # generation-2 collection falls (0.3 s) would otherwise decide which side pays it
    gc.collect()
    t0 = time.process_time()
    ref = MalinowskiWUPS(ref_wn, threshold).scores(gts, predictions)
    t_ref = time.process_time() - t0

    from multimodal_metrics.resources import wordnet

    for cached in (wups._max_wup, wups._senses, wups._taxonomy, wups._noun_synsets, wordnet._reader):
        cached.cache_clear()
    with wordnet.open_wordnet(nltk_data) as reader:  # fresh reader, untimed like the reference's
        gc.collect()
        t0 = time.process_time()
        ours = wups.wups_per_question(predictions, [[g] for g in gts], threshold=threshold, wordnet=reader)
        t_ours = time.process_time() - t0
    assert ours.tolist() == [float(x) for x in ref], "per-question WUPS differ from calculate_wups.py"
    print(f"  calculate_wups.py (transcription): {t_ref:8.3f} s CPU")
    print(f"  wups_per_question (ours)         : {t_ours:8.3f} s CPU   speed-up x{t_ref / t_ours:.1f}")
    if not skip_evaluate:
        import evaluate

        metric = evaluate.load(str(METRIC), "wups")
        t0 = time.process_time()  # the module's own WordNet reader, built untimed like the others
        metric.compute(
            predictions=["xyzzy"], references=["xyzzy"], threshold=threshold, wordnet_path=nltk_data
        )
        print(
            f"  (WordNet reader of the evaluate module: {time.process_time() - t0:.1f} s CPU, once per process)"
        )
        gc.collect()
        t0 = time.process_time()
        result = metric.compute(
            predictions=predictions, references=[[g] for g in gts], threshold=threshold, wordnet_path=nltk_data,
            return_per_example=True,
        )  # fmt: skip
        t_eval = time.process_time() - t0
        assert result["per_example"] == ours.tolist(), "evaluate.compute per-question WUPS differ"
        print(f"  evaluate.load(..., 'wups').compute: {t_eval:7.3f} s CPU   speed-up x{t_ref / t_eval:.1f}")
    print(f"  identical per-question scores: yes (WUPS {float(np.mean(ref)):.6f})")
    return 0


def bench_tdiuc(sizes, seed: int, skip_evaluate: bool) -> int:
    """tdiuc_scores and compute vs the Kafle transcription at every size (CPU time), same summary numbers."""
    import scipy.stats  # noqa: F401  (imported by both sides: not timed)

    from multimodal_metrics.vqa_acc import tdiuc

    metric = None
    rng = np.random.default_rng(seed)
    answers = [f"answer{k}" for k in range(1_000)]
    key = answers[:950]  # 5% of GT answers fall outside the answer key (id -1)
    ans_to_aid = {a: k for k, a in enumerate(key)}  # the answer key; predictions stay inside it
    if not skip_evaluate:
        offline_env()
        import evaluate

        metric = evaluate.load(str(METRIC), "tdiuc")
        # module loaded and the answer key's signature digest cached (Kafle's ans_to_aid is built untimed too)
        metric.compute(predictions=["a"], references=["a"], question_types=["t"], answer_key=key)
    types = ["object_presence", "counting", "color", "sport_recognition", "positional_reasoning", "scene_recognition",
             "attribute", "activity_recognition", "object_recognition", "utility_affordance", "sentiment_understanding",
             "absurd"]  # fmt: skip
    print(
        "tdiuc: Kafle's script (transcription) vs tdiuc_scores and compute, CPU milliseconds (time.process_time,"
    )
    print(
        "       best of 50 at 1,000 and 10,000 questions, 5 at 100,000, 3 at 1,000,000; compute includes the input"
    )
    print(
        "       checks, evaluate's add_batch and its Arrow columns; nothing is written to evaluate's cache)"
    )
    for n in sizes:
        gt = [answers[k] for k in rng.zipf(1.5, size=n) % len(answers)]
        pred = [g if g in ans_to_aid and rng.random() < 0.5 else key[int(rng.integers(len(key)))] for g in gt]
        qt = [types[k] for k in rng.integers(len(types), size=n)]
        repeat = 50 if n <= 10_000 else 5 if n <= 100_000 else 3
        ref, _, t_ref = measure(lambda p=pred, g=gt, q=qt: kafle_tdiuc(p, g, q, ans_to_aid), repeat)
        ours, _, t_ours = measure(
            lambda p=pred, g=gt, q=qt: tdiuc.tdiuc_scores(p, g, q, answer_key=key), repeat
        )
        ours = ours[0]
        for name, value in ref.items():  # ours: fractions (script / 100, MPTs clipped at 1.0)
            assert abs(ours[name] - min(value / 100, 1.0)) <= 1e-12, (name, ours[name], value)
        line = f"  {n:>9,} questions: Kafle {t_ref * 1e3:9.2f} ms   ours {t_ours * 1e3:9.2f} ms   x{t_ref / t_ours:.2f}"
        if metric is not None:
            result, _, t_eval = measure(
                lambda p=pred, g=gt, q=qt: metric.compute(
                    predictions=p, references=g, question_types=q, answer_key=key
                ),
                repeat,
            )
            assert all(result[name] == value for name, value in ours.items()), (
                "compute differs from tdiuc_scores"
            )
            line += f"   compute {t_eval * 1e3:9.2f} ms   Kafle/compute x{t_ref / t_eval:.2f}"
        print(line, flush=True)
    return 0


def scale_child(n: int) -> int:
    """One size of `--scale`: CPU time of vqa_v2_per_question and of compute, peak RSS."""
    offline_env()
    import evaluate

    metric = evaluate.load(str(METRIC))
    predictions, references = make_inputs(n)
    rss_inputs = max_rss_mib()
    t0 = time.process_time()
    core.vqa_v2_per_question(predictions, references)
    pure = time.process_time() - t0
    t0 = time.process_time()
    metric.compute(predictions=predictions, references=references)
    print(scale_child_line(n, rss_inputs, pure, time.process_time() - t0))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="5,000 questions")
    parser.add_argument("--n", type=int, default=None, help="number of questions (default 200,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-evaluate", action="store_true", help="do not time evaluate.load(...).compute")
    parser.add_argument("--wups", action="store_true", help="the wups preset vs calculate_wups.py (10,000)")
    parser.add_argument("--threshold", type=float, default=0.9, help="--wups: WUPS threshold (0.9, 0.0, -1)")
    parser.add_argument("--tdiuc", action="store_true", help="the tdiuc preset vs Kafle's script, 1e3..1e6")
    parser.add_argument(
        "--scale", action="store_true", help="vqa_v2 at 20,000 x 1, 10, 100 (fresh process each)"
    )
    parser.add_argument("--scale-child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.scale:
        run_scale(__file__, 20_000)
        return 0
    if args.scale_child:
        return scale_child(args.scale_child)
    if args.tdiuc:
        return bench_tdiuc([1_000, 10_000, 100_000, 1_000_000], args.seed, args.skip_evaluate)
    if args.wups:
        return bench_wups(
            args.n or (1_000 if args.quick else 10_000), args.seed, args.threshold, args.skip_evaluate
        )
    n = args.n or (5_000 if args.quick else 200_000)
    predictions, references = make_inputs(n, args.seed)
    print(f"vqa_v2 on {n:,} questions x 10 answers (seed {args.seed})")

    print("  CPU seconds (time.process_time; the pure function and compute: best of 3)")
    ref, _, t_ref = measure(lambda: official_scores(predictions, references))
    ours, _, t_ours = measure(lambda: core.vqa_v2_per_question(predictions, references), 3)
    assert ours.tolist() == ref, "per-question scores differ from the official transcription"

    print(f"  official loop (transcription) : {t_ref:8.3f} s")
    print(f"  vqa_v2_per_question (ours)    : {t_ours:8.3f} s   speed-up x{t_ref / t_ours:.1f}")
    if not args.skip_evaluate:
        offline_env()
        import evaluate

        metric = evaluate.load(str(METRIC))
        metric.compute(predictions=predictions[:5], references=references[:5])  # module loaded, untimed
        result, _, t_eval = measure(
            lambda: metric.compute(predictions=predictions, references=references, return_per_example=True), 3
        )
        assert result["per_example"] == ref, "evaluate.compute per-question scores differ"
        print(
            f"  evaluate.load(...).compute     : {t_eval:8.3f} s   speed-up x{t_ref / t_eval:.1f}"
            f"   compute / pure function {t_eval / t_ours:.2f}"
        )
    print(f"  identical per-question scores: yes (accuracy {float(np.mean(ref)):.6f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
