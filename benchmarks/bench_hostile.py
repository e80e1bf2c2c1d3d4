"""Cost of every metric on its longest reasonable input: time and peak memory per size.

    .venv/bin/python benchmarks/bench_hostile.py                 # 10 KB, 100 KB, 1 MB strings; 1k-10k boxes
    .venv/bin/python benchmarks/bench_hostile.py --sizes 10000,100000 --boxes 1000,3000
    .venv/bin/python benchmarks/bench_hostile.py --only anls,det_f1

Each case runs through ``evaluate.load(...).compute`` (what users run) on one example. Time is the
thread CPU time (steady under a loaded machine), memory the tracemalloc peak (Python and numpy
allocations; rapidfuzz's and pymorphy3's own C buffers are not traced, they are O(length / 64) and
O(1)). codebleu has its own size sweep (benchmarks/bench_codebleu.py --sizes); fid_clip's cost is that of
the networks (benchmarks/bench_fid_clip.py). The figures go into each card's Limitations.
"""

import argparse
import random
import string
import time
import tracemalloc

from timing import ROOT, offline_env


def _random_text(n: int, seed: int, alphabet: str = string.ascii_lowercase + " ") -> str:
    rng = random.Random(seed)
    return "".join(rng.choices(alphabet, k=n))


def _distinct_tokens(n: int, seed: int) -> str:
    """About n characters of distinct 5-letter tokens (166k tokens per MB)."""
    rng = random.Random(seed)
    return " ".join("".join(rng.choices(string.ascii_lowercase, k=5)) for _ in range(n // 6))


def _boxes(n: int, seed: int):
    rng = random.Random(seed)
    gt = [
        [rng.uniform(0, 1000), rng.uniform(0, 1000), rng.uniform(1, 50), rng.uniform(1, 50)] for _ in range(n)
    ]
    pred = [[x + rng.gauss(0, 2), y + rng.gauss(0, 2), w, h] for x, y, w, h in gt]
    return [{"cat": pred}], [{"cat": gt}]


def cases(sizes, boxes):
    """(metric, preset, label, size, kwargs) of every measured case."""
    for n in sizes:
        a, b = _random_text(n, 1), _random_text(n, 2)
        for metric in ("anls", "ned"):
            yield metric, None, "two unrelated strings", n, {"predictions": [a], "references": [b]}
            yield (
                metric,
                None,
                "one string vs itself + 1 edit",
                n,
                {"predictions": [a], "references": [a[:-1] + "#"]},
            )
        tokens = _distinct_tokens(n, 3)
        yield (
            "text_qa",
            None,
            "distinct tokens vs themselves",
            n,
            {"predictions": [tokens], "references": [tokens]},
        )
        yield "vqa_acc", None, "random text, 10 answers", n, {"predictions": [a], "references": [[b] * 10]}
        yield (
            "vqa_acc",
            "fusion_brain_2021",
            "ru, distinct tokens",
            n,
            {"predictions": [tokens], "references": [tokens], "languages": ["ru"]},
        )
        items = ",".join(tokens.split()[: max(1, n // 60)])  # comma-separated items, 1/10 of the size
        yield (
            "vqa_acc",
            "wups",
            "comma items (n/10 chars) vs 'dog'",
            n // 10,
            {"predictions": [items], "references": ["dog"]},
        )
    for n in boxes:
        pred, ref = _boxes(n, 4)
        for preset in ("default", "one_to_one"):
            yield "det_f1", preset, "boxes per image (one class)", n, {"predictions": pred, "references": ref}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000,1000000", help="string lengths (characters)")
    parser.add_argument("--boxes", default="1000,3000,10000", help="boxes per image on each side")
    parser.add_argument("--only", default="", help="comma-separated metric names")
    args = parser.parse_args()
    offline_env()
    import evaluate

    only = set(filter(None, args.only.split(",")))
    sizes = [int(s) for s in args.sizes.split(",") if s]
    boxes = [int(s) for s in args.boxes.split(",") if s]
    loaded, warm_up = {}, {(m, p): kw for m, p, _, _, kw in cases([120], [10])}
    print(f"{'metric':8} {'preset':18} {'input':38} {'size':>9} {'cpu s':>8} {'peak MiB':>9}")
    for metric, preset, label, size, kwargs in cases(sizes, boxes):
        if only and metric not in only:
            continue
        key = (metric, preset)
        if key not in loaded:
            loaded[key] = evaluate.load(str(ROOT / "metrics" / metric), preset)
            loaded[key].compute(**warm_up[key])  # lemmatiser, WordNet, imports: not part of the cost
        tracemalloc.start()
        start = time.thread_time()
        result = loaded[key].compute(**kwargs)
        cpu = time.thread_time() - start
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        primary = next(iter(result.values()))
        print(
            f"{metric:8} {preset or 'default':18} {label:38} {size:>9} {cpu:8.2f} {peak:9.1f}   ({primary:.4f})"
        )


if __name__ == "__main__":
    main()
