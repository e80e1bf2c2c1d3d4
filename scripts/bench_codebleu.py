"""Benchmark metrics/codebleu against the PyPI `codebleu` 0.7.0 package on the same inputs, same run.

    .venv/bin/python scripts/bench_codebleu.py [--quick] [--n 1000] [--langs java,python]
    .venv/bin/python scripts/bench_codebleu.py --sizes [--langs ...] [--shapes code,expr,lines,nest]

Inputs: N pairs of generated ~20-line functions per language (reference + a mutated copy). Times:
our pure core (`corpus_codebleu`), `evaluate.load("metrics/codebleu", "pypi").compute(...)`, and
`calc_codebleu` timed inside its own venv (.build/venv-codebleu, scripts/setup.d/test/codebleu_oracle.sh)
in a subprocess on the same inputs written to a temp file (interpreter start-up excluded). Times are
CPU seconds of the computing thread (time.thread_time: background threads of other libraries are not
counted), best of --repeat consecutive runs per side after a full-size warm-up, so that other jobs
on a shared machine disturb them less; prints the ratios. Asserts identical results where our pinned
grammar and the oracle's parse alike (java), and identical n-gram components otherwise.

`--sizes`: how cost grows with the size of the code. For every language, one prediction and one
reference of 1 KB, 10 KB, 100 KB and 1 MB each (`--size-list`), scored by the pure core in a fresh
process per size; prints CPU seconds, seconds per MB and the peak memory the computation added (the
process's maximum resident set size after minus before). Shapes: `code` (generated functions of
tests/_codebleu_oracle.py with their mutations, concatenated), and the hostile shapes of issue 9:
`expr` (`a = b+b+...+b`, one expression as deep as it is long), `lines` (`x = 1` repeated), `nest`
(`(` repeated).
"""

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORACLE_PY = ROOT / ".build" / "venv-codebleu" / "bin" / "python"
SRC = ROOT / "src"  # the library: our pure core is multimodal_metrics.codebleu.core
LANGUAGES = ("python", "java", "javascript", "c_sharp", "php", "c", "cpp", "go", "ruby", "rust")

_PY_STMTS = [
    "{a} = {b} + {c}", "{a} = {b} * 2", "{a} += {b}", "if {a} > {b}:\n        {c} = {a} - {b}",
    "for {a} in range({b}):\n        {c} += {a}", "{a} = [{b}, {c}]", "{a} = max({b}, {c})",
    "while {a} < {b}:\n        {a} += 1", "{a}, {b} = {b}, {a}", "{a} = {b} if {c} else {a}",
]
_JAVA_STMTS = [
    "int {a} = {b} + {c};", "{a} = {b} * 2;", "{a} += {b};", "if ({a} > {b}) {{\n        {c} = {a} - {b};\n    }}",
    "for (int {a} = 0; {a} < {b}; {a}++) {{\n        {c} += {a};\n    }}", "{a} = Math.max({b}, {c});",
    "while ({a} < {b}) {{\n        {a}++;\n    }}", "{a} = {c} > 0 ? {b} : {a};",
]
_NAMES = ["x", "y", "z", "acc", "tmp", "n", "m", "total", "k", "v"]


def _function(lang, rng, lines=20):
    names = rng.sample(_NAMES, 5)
    stmts = _PY_STMTS if lang == "python" else _JAVA_STMTS
    body = []
    while sum(s.count("\n") + 1 for s in body) < lines - 3:
        a, b, c = rng.sample(names, 3)
        body.append(rng.choice(stmts).format(a=a, b=b, c=c))
    if lang == "python":
        head = f"def f{rng.randrange(100)}({names[0]}, {names[1]}):\n    " + "\n    ".join(
            f"{n} = 0" for n in names[2:])
        return head + "\n    " + "\n    ".join(body) + f"\n    return {names[2]}\n"
    head = f"public int f{rng.randrange(100)}(int {names[0]}, int {names[1]}) {{\n    " + "\n    ".join(
        f"int {n} = 0;" for n in names[2:])
    return head + "\n    " + "\n    ".join(body) + f"\n    return {names[2]};\n}}"


def _mutate(code, rng):
    lines = code.split("\n")
    for _ in range(rng.randrange(1, 4)):
        kind = rng.randrange(3)
        i = rng.randrange(1, len(lines) - 1)
        if kind == 0:
            del lines[i]
        elif kind == 1:
            lines.insert(i, lines[i])
        else:
            old, new = rng.sample(_NAMES, 2)
            lines[i] = lines[i].replace(f" {old} ", f" {new} ")
    return "\n".join(lines)


def make_pairs(lang, n, seed=0):
    rng = random.Random(f"{lang}-{seed}")
    refs = [_function(lang, rng) for _ in range(n)]
    return [_mutate(r, rng) for r in refs], refs


_ORACLE_SNIPPET = """
import json, logging, sys, time
logging.disable(logging.WARNING)
from codebleu import calc_codebleu
if "--ordered-sets" in sys.argv:  # same first-seen order as ours where it builds list(set(names))
    import codebleu.dataflow_match as dm, codebleu.parser.DFG as dfg
    class OrderedSet(dict):
        def __init__(self, items=()):
            super().__init__(dict.fromkeys(items))
        def add(self, item):
            self[item] = None
    dm.set = dfg.set = OrderedSet
data = json.load(open(sys.argv[1]))
calc_codebleu(data["references"][:2], data["predictions"][:2], data["lang"])  # warm-up (grammar load)
best = float("inf")
for _ in range(int(sys.argv[2])):  # runs after the first find a grown heap, like ours after its warm-up
    t0 = time.thread_time()
    res = calc_codebleu(data["references"], data["predictions"], data["lang"])
    best = min(best, time.thread_time() - t0)
print(json.dumps({"seconds": best, "scores": res}))
"""


def run_oracle(lang, preds, refs, repeat, ordered_sets=True):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "inputs.json"
        path.write_text(json.dumps({"lang": lang, "predictions": preds, "references": refs}))
        proc = subprocess.run([str(ORACLE_PY), "-I", "-c", _ORACLE_SNIPPET, str(path), str(repeat)] + (["--ordered-sets"] if ordered_sets else []),
                              capture_output=True,
                              text=True, cwd=tmp, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


SHAPES = ("code", "expr", "lines", "nest")


def sized_code(lang, shape, size, seed):
    """A snippet of about ``size`` characters of the given shape (see the module docstring)."""
    if shape == "expr":
        return "a = " + "+".join(["b"] * max(1, (size - 4) // 2))
    if shape == "lines":
        return "x = 1\n" * max(1, size // 6)
    if shape == "nest":
        return "(" * size
    sys.path.insert(0, str(ROOT / "tests"))
    import _codebleu_oracle as oracle

    preds, refs = oracle.mutated_pairs(lang, 400, seed)
    pool = [p if seed == 0 else (r if isinstance(r, str) else r[0]) for p, r in zip(preds, refs)]
    parts, total, i = [], 0, 0
    while total < size:
        parts.append(pool[i % len(pool)])
        total += len(parts[-1]) + 1
        i += 1
    return "\n".join(parts)


_ONE_SIZE = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
import bench_codebleu as bench
core = bench.load_core(pure=True)
lang, shape, size = sys.argv[2], sys.argv[3], int(sys.argv[4])
pred, ref = bench.sized_code(lang, shape, size, 0), bench.sized_code(lang, shape, size, 1)
core.corpus_codebleu([pred[:2000]], [[ref[:2000]]], lang)  # grammar load
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.thread_time()
scores, per, notes = core.corpus_codebleu([pred], [[ref]], lang, per_example=True)
seconds = time.thread_time() - t0
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "peak_mb": (after - before) / 1024, "chars": len(pred) + len(ref),
                  "limited": per[0]["dataflow_limited"], "codebleu": scores["codebleu"]}))
"""


def load_core(pure=False):
    """Our pure core, ``multimodal_metrics.codebleu.core`` of this checkout; ``pure``: with the standard library
    only (tests/_codebleu_oracle.load_pure_core: the packages' __init__ files do not run, so the library is
    then unusable for evaluate in that process)."""
    if pure:
        sys.path.insert(0, str(ROOT / "tests"))
        import _codebleu_oracle as oracle

        return oracle.load_pure_core(SRC)
    sys.path.insert(0, str(SRC))
    from multimodal_metrics.codebleu import core

    return core


def run_sizes(langs, shapes, sizes, timeout):
    print("cost per size: one prediction + one reference of the given size each, pure core, fresh process per row;")
    print("CPU seconds of the computing thread; peak = max resident memory added by the computation")
    print(f"{'lang':10} {'shape':6} {'size':>8} {'seconds':>9} {'s per MB':>9} {'peak MB':>8}  note")
    for lang in langs:
        for shape in shapes:
            for size in sizes:
                try:
                    proc = subprocess.run([sys.executable, "-c", _ONE_SIZE, str(ROOT / "scripts"), lang, shape, str(size)],
                                          capture_output=True, text=True, timeout=timeout)
                except subprocess.TimeoutExpired:
                    print(f"{lang:10} {shape:6} {size:>8} {'>' + str(timeout):>9}")
                    continue
                if proc.returncode != 0:
                    print(f"{lang:10} {shape:6} {size:>8} FAILED rc={proc.returncode}: {proc.stderr.strip()[-300:]}")
                    continue
                r = json.loads(proc.stdout.strip().splitlines()[-1])
                per_mb = r["seconds"] / (r["chars"] / 1e6)  # per MB of code scored (prediction + reference)
                note = "data flow over the work limit" if r["limited"] else ""
                print(f"{lang:10} {shape:6} {size:>8} {r['seconds']:9.3f} {per_mb:9.2f} {r['peak_mb']:8.1f}  {note}",
                      flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="100 pairs instead of 1000")
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--langs", default="java,python")
    ap.add_argument("--verbose", action="store_true", help="print every round")
    ap.add_argument("--repeat", type=int, default=3, help="best of R runs for every timing (shared CPUs are noisy)")
    ap.add_argument("--sizes", action="store_true", help="cost per size of the code (1 KB to 1 MB), every language")
    ap.add_argument("--size-list", default="1000,10000,100000,1000000")
    ap.add_argument("--shapes", default="code", help=f"with --sizes: some of {','.join(SHAPES)} or 'all'")
    ap.add_argument("--timeout", type=int, default=300, help="with --sizes: seconds per row")
    args = ap.parse_args()
    if args.sizes:
        langs = args.langs.split(",") if args.langs != "java,python" else list(LANGUAGES)
        shapes = SHAPES if args.shapes == "all" else args.shapes.split(",")
        run_sizes(langs, shapes, [int(x) for x in args.size_list.split(",")], args.timeout)
        return
    n = args.n or (100 if args.quick else 1000)
    if not ORACLE_PY.is_file():
        sys.exit("missing .build/venv-codebleu: run bash scripts/setup.d/test/codebleu_oracle.sh")
    core = load_core()
    sys.path.insert(0, str(ROOT / "tests"))
    import conftest  # noqa: F401  (offline evaluate settings)
    import evaluate

    metric = evaluate.load(str(ROOT / "metrics" / "codebleu"), "pypi")
    keymap = dict(zip(core.KEYS, ["codebleu", "ngram_match_score", "weighted_ngram_match_score",
                                  "syntax_match_score", "dataflow_match_score"]))
    opts = dict(keywords="pypi", remove_comments="lang", strip=True, missing_dataflow="zero_is_one")
    for lang in args.langs.split(","):
        preds, refs = make_pairs(lang, n)
        # warm-up at full size (grammar load, and a heap already grown to the working size); the oracle
        # gets the same: every round below runs it twice in one process and keeps the second run
        core.corpus_codebleu(preds, [[r] for r in refs], lang, **opts)
        # Each side in its steady state: R consecutive runs of ours, then R consecutive runs of the oracle
        # in one process (after its own warm-up); the best run of each side is kept.
        t_core, t_module = [], []
        for _ in range(args.repeat):
            t0 = time.thread_time()
            ours, _, _ = core.corpus_codebleu(preds, [[r] for r in refs], lang, **opts)
            t_core.append(time.thread_time() - t0)
            print("  round", lang, round(t_core[-1], 3), flush=True) if args.verbose else None
        theirs = run_oracle(lang, preds, refs, args.repeat + 1)
        t_oracle = [theirs["seconds"]]
        for _ in range(args.repeat):  # the evaluate path (its Arrow round trip leaves a bigger heap behind)
            t0 = time.thread_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mod = metric.compute(predictions=preds, references=refs, lang=lang)
            t_module.append(time.thread_time() - t0)
        diffs = {k: (ours[k], theirs["scores"][keymap[k]]) for k in core.KEYS
                 if abs(ours[k] - theirs["scores"][keymap[k]]) > 1e-9}
        assert all(abs(mod[k] - ours[k]) < 1e-12 for k in core.KEYS)
        assert "ngram_match" not in diffs and "weighted_ngram_match" not in diffs, diffs
        if lang == "java":
            assert not diffs, diffs
        print(f"{lang}: {n} pairs of ~20-line functions (CPU seconds of the computing thread, best of {args.repeat})")
        print(f"  ours core      {min(t_core):7.3f} s   ratio vs PyPI codebleu {min(t_oracle) / min(t_core):5.2f}x")
        print(f"  ours evaluate  {min(t_module):7.3f} s   ratio vs PyPI codebleu {min(t_oracle) / min(t_module):5.2f}x")
        print(f"  PyPI codebleu  {min(t_oracle):7.3f} s   (calc_codebleu 0.7.0, in its venv)")
        print(f"  identical results: {'yes' if not diffs else 'no (grammar versions differ: ' + str(diffs) + ')'}")


if __name__ == "__main__":
    main()
