"""How far codebleu's numbers move between grammars: today's wheels (tree-sitter 0.26 with
tree-sitter-python 0.25 / tree-sitter-java 0.23) vs the grammars of 2020 through `grammar_library=`
(the legacy runtime; by default the npm tree-sitter-python 0.16.1 / tree-sitter-java 0.16.0 library
that scripts/setup.d/codebleu_legacy_ts.sh builds, or the official my-languages.so with --library).

    .venv/bin/python benchmarks/bench_codebleu_grammars.py [--n 300] [--library PATH]

Inputs (tests/oracles/codebleu_codexglue.preset_pairs): N mutated python/java functions (Java methods
without a class, as in CodeXGLUE) for `default` and `pypi`, N TransCoder pseudo-code pairs for
`fusion_brain_2021`. Prints a markdown table: corpus CodeBLEU with each grammar, the difference of the
corpus CodeBLEU, syntax_match and dataflow_match, the share of examples whose own CodeBLEU differs,
and the compute time of each (CPU seconds of this thread, noisy on a shared machine).
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from timing import offline_env  # noqa: E402

CASES = [
    ("default", "python"),
    ("default", "java"),
    ("pypi", "python"),
    ("pypi", "java"),
    ("fusion_brain_2021", "python"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--library", default=None, help="grammar library (default: the npm 2020 one)")
    args = ap.parse_args()
    offline_env()
    import evaluate
    from oracles import codebleu_codexglue as legacy_oracle

    library = args.library or str(legacy_oracle.NPM_LIBRARY)
    print(f"grammar library: {library}; N = {args.n} pairs per row")
    print(
        "| preset | lang | CodeBLEU wheels | CodeBLEU 2020 | diff CodeBLEU | diff syntax_match | "
        "diff dataflow_match | examples that differ | time wheels / 2020 (s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for preset, lang in CASES:
        preds, refs = legacy_oracle.preset_pairs(preset, lang, args.n)
        metric = evaluate.load(str(ROOT / "metrics" / "codebleu"), preset)
        runs = {}
        for name, extra in (
            ("wheels", {"grammar_library": "wheels"}),
            ("2020", {"grammar_library": library}),
        ):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.thread_time()
                res = metric.compute(
                    predictions=preds, references=refs, lang=lang, return_per_example=True, **extra
                )
                runs[name] = (res, time.thread_time() - t0)
        (a, ta), (b, tb) = runs["wheels"], runs["2020"]
        differ = sum(
            abs(x["codebleu"] - y["codebleu"]) > 1e-12 for x, y in zip(a["per_example"], b["per_example"])
        )
        print(
            f"| {preset} | {lang} | {a['codebleu']:.4f} | {b['codebleu']:.4f} | "
            f"{b['codebleu'] - a['codebleu']:+.4f} | {b['syntax_match'] - a['syntax_match']:+.4f} | "
            f"{b['dataflow_match'] - a['dataflow_match']:+.4f} | {differ}/{len(preds)} | {ta:.2f} / {tb:.2f} |"
        )


if __name__ == "__main__":
    main()
