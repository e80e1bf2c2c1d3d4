"""Benchmark: ru_meteor against NLTK's meteor_score (preset nltk) and against a transcription of the
official Fusion Brain 2022 scoring loops (presets captioning and vqa), same inputs, same run.

    .venv/bin/python benchmarks/bench_ru_meteor.py            # 10,000 caption pairs x 5 references, then 10x / 100x
    .venv/bin/python benchmarks/bench_ru_meteor.py --quick    # 1,000 pairs, then 10x

* nltk: ``nltk.translate.meteor_score.meteor_score`` on ``word_tokenize(..., preserve_line=True)`` tokens
  (punkt cannot be had offline; the captions are single sentences) with the WordNet that the set-up
  builds, against our pure function (cold caches) and ``evaluate.load(...).compute``. Scores must be
  identical (asserted); the ratios are printed. Then our pure function and ``compute`` at 10x and 100x
  (or the largest size that fits in about 2 minutes), each in a fresh process: time per example and
  peak memory (ru_maxrss growth over the process after imports).
* captioning / vqa: the official loops of ``ai-forever/fbc2_aij2022`` transcribed below
  (``rumeteor.py`` = NLTK 3.6-era METEOR with in-place pops and the RuWordNet stage, ``calc_meteor.py``,
  ``utils.postprocess``), run with a small RuWordNet-schema database built here (the real one is not on
  PyPI), ``word_tokenize`` with sent_tokenize = identity and, for VQA, a POS stand-in that tags
  ``-?\\d+(\\.\\d+)?`` as CD (the perceptron tagger cannot be had offline). Scores must be identical.

CPU times (``time.process_time``) are printed; the machine is shared, so expect +-30 %.
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path

from timing import ROOT, measure, offline_env

# isort: split
from oracles.ru_meteor import (
    EN_WORDS,
    RU_WORDS,
    SqliteRuWordNet,
    core_presets,
    fb_captioning_scores,
    fb_vqa_scores,
    make_captions,
    make_ruwordnet_db,
    make_vqa,
    nltk_options,
    nltk_peer,
)

offline_env()

# the metric's pure functions and WordNet finder: the library's (shared with evaluate.load's module, so
# the caches are cleared before every timed run of either)
from multimodal_metrics.resources import wordnet as mm_wordnet  # noqa: E402
from multimodal_metrics.ru_meteor import core as meteor_core  # noqa: E402
from multimodal_metrics.ru_meteor import stemmers as ru_meteor_stemmers  # noqa: E402
from multimodal_metrics.ru_meteor import synonyms as ru_meteor_synonyms  # noqa: E402
from multimodal_metrics.ru_meteor import text as ru_meteor_text  # noqa: E402


def clear_caches(core):
    ru_meteor_stemmers.STEM_CACHES.clear()
    ru_meteor_text.fb_vqa_normalize.cache_clear()
    ru_meteor_synonyms.ruwordnet_source.cache_clear()
    ru_meteor_synonyms.wordnet_source.cache_clear()
    mm_wordnet._reader.cache_clear()


def warm_wordnet(core):
    """Load both WordNet readers outside the timings (NLTK's lazy corpus and ours)."""
    from nltk.corpus import wordnet

    wordnet.synsets("dog")
    nltk_options()["wordnet"].synsets("dog")


def rewarm(core):
    """Empty the caches, then load WordNet again: the next timing starts from cold caches, warm readers."""
    clear_caches(core)
    warm_wordnet(core)


def time_pure_nltk(core, preds, refs):
    """(per-example scores, CPU seconds) of the pure function with NLTK's options, from cold caches."""
    rewarm(core)
    opts = nltk_options()
    ours, _, seconds = measure(lambda: core.meteor_per_example(preds, refs, **opts), collect=True)
    rewarm(core)
    return ours, seconds


def scale_child(n: int) -> None:
    """Run in a fresh process: our pure function and compute on n examples; print JSON."""
    import evaluate

    core = meteor_core
    preds, refs = make_captions(n, EN_WORDS, seed=1)
    metric = evaluate.load(str(ROOT / "metrics" / "ru_meteor"), "nltk")
    metric.compute(predictions=preds[:20], references=refs[:20])
    warm_wordnet(core)
    ours, t_pure = time_pure_nltk(core, preds, refs)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result, _, t_compute = measure(lambda: metric.compute(predictions=preds, references=refs), collect=True)
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rewarm(core)
    opts = nltk_options()
    tracemalloc.start()
    core.meteor_per_example(preds, refs, **opts)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(
        json.dumps(
            {
                "n": n,
                "pure": t_pure,
                "compute": t_compute,
                "mem_pure": peak / 2**20,
                "mem_compute": (rss1 - rss0) / 1024,
                "meteor": result["meteor"],
            }
        )
    )


def bench_nltk(n: int, core, metric) -> float:
    preds, refs = make_captions(n, EN_WORDS)
    warm_wordnet(core)
    peer, _, t_peer = measure(lambda: nltk_peer(preds, refs), collect=True)
    ours, t_ours = time_pure_nltk(core, preds, refs)
    module, _, t_module = measure(
        lambda: metric.compute(predictions=preds, references=refs, return_per_example=True), collect=True
    )
    assert ours == peer, "per-example scores differ from NLTK's meteor_score"
    assert module["per_example"] == peer, "compute() scores differ from NLTK's meteor_score"
    print(f"[nltk] {n:,} English caption pairs x 5 references (5-14 words), identical per-example scores")
    print(f"  NLTK meteor_score + word_tokenize        {t_peer:8.2f} s   {t_peer / n * 1e6:8.1f} us/example")
    print(f"  ours, pure function (cold caches)        {t_ours:8.2f} s   {t_peer / t_ours:6.1f}x faster")
    print(f"  ours, evaluate.load(...).compute         {t_module:8.2f} s   {t_peer / t_module:6.1f}x faster")
    print(f"  METEOR = {sum(peer) / n:.6f} on both sides")
    sys.stdout.flush()
    return t_ours / n


def bench_scales(sizes: list[int], budget_s: float, per_example_s: float) -> None:
    print("[nltk] scaling, each size in a fresh process: time per example; memory = tracemalloc peak of the")
    print("       pure function (caches included) and the growth of the process's peak RSS during compute")
    for n in sizes:
        estimate = n * per_example_s * 6  # pure, compute, a traced pure run, generating the inputs
        if estimate > budget_s:
            n = int(budget_s / (per_example_s * 6)) // 1000 * 1000
            print(f"  (the next size would take ~{estimate:.0f} s: running {n:,} examples instead)")
        out = (
            subprocess.run(
                [sys.executable, __file__, "--child", str(n)], capture_output=True, text=True, check=True
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        row = json.loads(out)
        print(
            f"  {n:>9,} examples: pure {row['pure']:7.2f} s ({row['pure'] / n * 1e6:5.1f} us/ex, +{row['mem_pure']:6.0f} MiB)"
            f"   compute {row['compute']:7.2f} s ({row['compute'] / n * 1e6:5.1f} us/ex, +{row['mem_compute']:6.0f} MiB)"
        )
        sys.stdout.flush()
        if n < sizes[-1] and estimate > budget_s:
            break


def bench_official(n: int, core, db_path: str) -> None:
    import evaluate

    wordnet = SqliteRuWordNet(db_path)
    for preset, make, official in (
        ("captioning", lambda: make_captions(n, RU_WORDS, seed=2), fb_captioning_scores),
        ("vqa", lambda: make_vqa(n, seed=3), fb_vqa_scores),
    ):
        preds, refs = make()
        metric = evaluate.load(str(ROOT / "metrics" / "ru_meteor"), preset)
        metric.compute(predictions=preds[:5], references=refs[:5], ruwordnet_path=db_path)
        official(preds[:5], refs[:5], wordnet)  # imports and analyzers outside the timings
        peer, _, t_peer = measure(
            lambda official=official, preds=preds, refs=refs: official(preds, refs, wordnet), collect=True
        )
        clear_caches(core)
        opts = {k: v for k, v in core_presets()[preset].items() if k != "corpus_score"}
        ours, _, t_ours = measure(
            lambda opts=opts, preds=preds, refs=refs: core.meteor_per_example(
                preds, refs, ruwordnet_path=db_path, **opts
            ),
            collect=True,
        )
        clear_caches(core)
        module, _, t_module = measure(
            lambda metric=metric, preds=preds, refs=refs: metric.compute(
                predictions=preds, references=refs, ruwordnet_path=db_path, return_per_example=True
            ),
            collect=True,
        )
        assert ours == peer, f"{preset}: per-example scores differ from the official transcription"
        assert module["per_example"] == peer, f"{preset}: compute() differs from the official transcription"
        print(
            f"[{preset}] {n:,} examples x {sum(map(len, refs)) / n:.1f} references, official loop transcription"
        )
        print(f"  official loop (fixture RuWordNet)        {t_peer:8.2f} s")
        print(f"  ours, pure function (cold caches)        {t_ours:8.2f} s   {t_peer / t_ours:6.1f}x faster")
        print(
            f"  ours, evaluate.load(...).compute         {t_module:8.2f} s   {t_peer / t_module:6.1f}x faster"
        )
        print(f"  METEOR = {sum(peer) / n:.6f} on both sides")
        sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 pairs, then 10x")
    parser.add_argument("-n", type=int, default=None, help="number of caption pairs (default 10,000)")
    parser.add_argument("--budget", type=float, default=120.0, help="seconds allowed per scaling size")
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        scale_child(args.child)
        return
    n = args.n or (1_000 if args.quick else 10_000)

    import evaluate

    core = meteor_core
    metric = evaluate.load(str(ROOT / "metrics" / "ru_meteor"), "nltk")
    metric.compute(predictions=["a dog"], references=[["the dog"]])  # warm-up (Arrow writer, imports)
    per_example = bench_nltk(n, core, metric)
    sizes = [n * 10] if args.quick else [n * 10, n * 100]
    bench_scales(sizes, args.budget, per_example)
    with tempfile.TemporaryDirectory() as tmp:
        bench_official(n // 2 if not args.quick else n, core, make_ruwordnet_db(Path(tmp) / "ruwordnet.db"))


if __name__ == "__main__":
    main()
