"""Benchmark codebleu's presets against PyPI `codebleu` 0.7.0 and the official CodeXGLUE evaluator, same inputs, one run.

    .venv/bin/python benchmarks/bench_codebleu.py [--quick] [--n 1000] [--langs java,python]
    .venv/bin/python benchmarks/bench_codebleu.py --sizes [--langs ...] [--shapes code,expr,lines,nest]
    .venv/bin/python benchmarks/bench_codebleu.py --hash-seeds 20 [--n 200]   # PyPI codebleu's numbers per hash seed
    .venv/bin/python benchmarks/bench_codebleu.py --per-snippet [--n 300]     # us per snippet, score and parse
    .venv/bin/python benchmarks/bench_codebleu.py --lines 30,45               # the main run on 30-45-line functions

Inputs: N pairs of generated ~20-line functions per language (reference + a mutated copy). Prints pairs
per CPU-second of:
* our presets through the library (`multimodal_metrics.codebleu.score`) and through
  `evaluate.load("metrics/codebleu", preset).compute`: `default` (the 2020 grammars on the tree-sitter
  runtime of 2020, its C walker), `fusion_brain_2021` (python only: the same grammars, no comment removal,
  no stripping) and `pypi` (tree-sitter 0.26 and the grammar wheels);
* PyPI `codebleu` 0.7.0 (`calc_codebleu`, in its venv .build/venv-codebleu,
  scripts/setup.d/test/codebleu_oracle.sh), the package the `pypi` preset follows;
* the official CodeXGLUE evaluator (calc_code_bleu.py's algorithm on py-tree-sitter 0.2.0 and the same 2020
  grammar library, as tests/oracles/codebleu_codexglue.py runs it in .build/venv-ts020,
  scripts/setup.d/codebleu_legacy_ts.sh), with the `default` preset's flags and with Fusion Brain 2021's.
Each side in its steady state: after a full-size warm-up, the best of --repeat consecutive runs, CPU
seconds of the computing thread (time.thread_time; the two references are timed inside their own
interpreters, start-up excluded), so other jobs on a shared machine disturb them less. Asserts identical
results: `default` and `fusion_brain_2021` equal the official evaluator bit for bit; `pypi` equals the
package on java, and its n-gram components on python (the grammar wheels differ).

`--sizes`: how cost grows with the size of the code. For every language, one prediction and one
reference of 1 KB, 10 KB, 100 KB and 1 MB each (`--size-list`), scored by the pure core in a fresh
process per size; prints CPU seconds, seconds per MB and the peak memory the computation added (the
process's maximum resident set size after minus before). Shapes: `code` (generated functions of
tests/oracles/codebleu_pypi.py with their mutations, concatenated), and hostile shapes: `expr`
(`a = b+b+...+b`, one expression as deep as it is long), `lines` (`x = 1` repeated), `nest` (`(` repeated).
"""

import argparse
import functools
import json
import random
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from timing import measure

ROOT = Path(__file__).resolve().parent.parent
ORACLE_PY = ROOT / ".build" / "venv-codebleu" / "bin" / "python"
OFFICIAL_PY = ROOT / ".build" / "venv-ts020" / "bin" / "python"  # py-tree-sitter 0.2.0 (the official binding)
SRC = ROOT / "src"  # the library: our pure core is multimodal_metrics.codebleu.corpus
LANGUAGES = ("python", "java", "javascript", "c_sharp", "php", "c", "cpp", "go", "ruby", "rust")

_PY_STMTS = [
    "{a} = {b} + {c}",
    "{a} = {b} * 2",
    "{a} += {b}",
    "if {a} > {b}:\n        {c} = {a} - {b}",
    "for {a} in range({b}):\n        {c} += {a}",
    "{a} = [{b}, {c}]",
    "{a} = max({b}, {c})",
    "while {a} < {b}:\n        {a} += 1",
    "{a}, {b} = {b}, {a}",
    "{a} = {b} if {c} else {a}",
]
_JAVA_STMTS = [
    "int {a} = {b} + {c};",
    "{a} = {b} * 2;",
    "{a} += {b};",
    "if ({a} > {b}) {{\n        {c} = {a} - {b};\n    }}",
    "for (int {a} = 0; {a} < {b}; {a}++) {{\n        {c} += {a};\n    }}",
    "{a} = Math.max({b}, {c});",
    "while ({a} < {b}) {{\n        {a}++;\n    }}",
    "{a} = {c} > 0 ? {b} : {a};",
]
_NAMES = ["x", "y", "z", "acc", "tmp", "n", "m", "total", "k", "v"]


def _function(lang, rng, lines=20):
    if isinstance(lines, tuple):  # a range of sizes
        lines = rng.randint(*lines)
    names = rng.sample(_NAMES, 5)
    stmts = _PY_STMTS if lang == "python" else _JAVA_STMTS
    body = []
    while sum(s.count("\n") + 1 for s in body) < lines - 3:
        a, b, c = rng.sample(names, 3)
        body.append(rng.choice(stmts).format(a=a, b=b, c=c))
    if lang == "python":
        head = f"def f{rng.randrange(100)}({names[0]}, {names[1]}):\n    " + "\n    ".join(
            f"{n} = 0" for n in names[2:]
        )
        return head + "\n    " + "\n    ".join(body) + f"\n    return {names[2]}\n"
    head = f"public int f{rng.randrange(100)}(int {names[0]}, int {names[1]}) {{\n    " + "\n    ".join(
        f"int {n} = 0;" for n in names[2:]
    )
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


def make_pairs(lang, n, seed=0, lines=20):
    """n (mutated copy, function) pairs of ``lines``-line functions (a number, or a (lo, hi) range)."""
    rng = random.Random(f"{lang}-{seed}" if lines == 20 else f"{lang}-{seed}-{lines}")
    refs = [_function(lang, rng, lines) for _ in range(n)]
    return [_mutate(r, rng) for r in refs], refs


def run_per_snippet(langs, n, repeat):
    """`--per-snippet`: CPU microseconds per snippet (each prediction and reference distinct) of the library's
    `score`, and of the parse alone (the same tree-sitter parse each preset's walk starts from), for ~20-line and
    30-45-line functions."""
    sys.path.insert(0, str(SRC))
    from multimodal_metrics import codebleu
    from multimodal_metrics.codebleu import trees as wheels
    from multimodal_metrics.codebleu.scoring import tree_source

    print(
        f"{n} pairs per language and size ({2 * n} distinct snippets); CPU microseconds per snippet, best of {repeat}"
    )
    print(f"{'lang':8} {'lines':>6} {'chars':>6} {'preset':8} {'score':>8} {'parse':>8}  score / parse")
    for lang in langs:
        for lines in (20, (30, 45)):
            preds, refs = make_pairs(lang, n, lines=lines)
            chars = sum(map(len, preds + refs)) / (2 * n)
            data = [x.strip().encode() for x in preds + refs]
            for preset in ("default", "pypi"):
                parser = (
                    tree_source("2020", lang)[0].parser(lang)
                    if preset == "default"
                    else wheels.get_parser(lang)
                )
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t_score = measure(
                        functools.partial(codebleu.score, preds, refs, preset, lang=lang),
                        repeat,
                        warmup=True,
                        thread=True,
                    ).cpu
                t_parse = measure(
                    lambda parse=parser.parse, data=data: list(map(parse, data)),
                    repeat,
                    warmup=True,
                    thread=True,
                ).cpu
                size = f"{lines}" if lines == 20 else f"{lines[0]}-{lines[1]}"
                per = 1e6 / (2 * n)
                print(
                    f"{lang:8} {size:>6} {chars:6.0f} {preset:8} {t_score * per:8.0f} {t_parse * per:8.0f}  "
                    f"{t_score / t_parse:5.1f}x",
                    flush=True,
                )


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


def _reply(proc, who: str) -> dict:
    """The JSON line a reference's interpreter printed last; its error output if it failed."""
    if proc.returncode != 0:
        raise RuntimeError(f"{who} failed (exit {proc.returncode}):\n{proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_oracle(lang, preds, refs, repeat, ordered_sets=True, hash_seed=None):
    """PyPI codebleu on the pairs in its venv: ``{"seconds", "scores"}``; ``ordered_sets``: its data-flow
    ``set`` replaced by an insertion-ordered one; ``hash_seed``: the interpreter's PYTHONHASHSEED."""
    import os

    env = None if hash_seed is None else {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "inputs.json"
        path.write_text(json.dumps({"lang": lang, "predictions": preds, "references": refs}))
        proc = subprocess.run(
            [str(ORACLE_PY), "-I", "-c", _ORACLE_SNIPPET, str(path), str(repeat)]
            + (["--ordered-sets"] if ordered_sets else []),
            capture_output=True,
            text=True,
            cwd=tmp,
            env=env,
        )
    return _reply(proc, "PyPI codebleu")


def run_hash_seeds(langs, n, seeds):
    """`--hash-seeds`: PyPI codebleu as it is (``list(set(names))`` in its data flow) under PYTHONHASHSEED
    0 .. seeds - 1, against the package with insertion-ordered sets and our `pypi` preset, on n pairs."""
    sys.path.insert(0, str(SRC))
    from multimodal_metrics import codebleu

    print(
        f"PyPI codebleu 0.7.0 under PYTHONHASHSEED 0..{seeds - 1}, {n} pairs of ~20-line functions per language"
    )
    for lang in langs:
        preds, refs = make_pairs(lang, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = codebleu.score(preds, refs, "pypi", lang=lang)
        ordered = run_oracle(lang, preds, refs, 1)["scores"]
        values = [
            run_oracle(lang, preds, refs, 1, ordered_sets=False, hash_seed=k)["scores"] for k in range(seeds)
        ]
        keys = ("codebleu", "dataflow_match_score", "syntax_match_score")
        same_ordered = [k for k, v in enumerate(values) if all(v[x] == ordered[x] for x in ordered)]
        same_ours = [k for k, v in enumerate(values) if abs(v["codebleu"] - ours["codebleu"]) == 0]
        print(
            f"{lang}: ours (pypi preset) codebleu {ours['codebleu']:.7f}, dataflow {ours['dataflow_match']:.7f}"
        )
        print(
            f"  package, insertion-ordered sets: codebleu {ordered['codebleu']:.7f}, dataflow {ordered['dataflow_match_score']:.7f}"
        )
        distinct = sorted({round(v["codebleu"], 7) for v in values})
        print(
            f"  package as it is, {seeds} seeds: {len(distinct)} distinct corpus scores, {distinct[0]:.7f} to {distinct[-1]:.7f}"
        )
        for k, v in enumerate(values[:3]):
            print(f"    PYTHONHASHSEED={k}: " + ", ".join(f"{x} {v[x]:.7f}" for x in keys))
        print(f"  seeds giving the ordered-set numbers (every component): {same_ordered or 'none'}")
        print(f"  seeds giving our corpus CodeBLEU exactly: {same_ours or 'none'}", flush=True)


# The official CodeXGLUE evaluator (tests/oracles/codebleu_codexglue._codexglue: calc_code_bleu.py's algorithm with
# the PyPI package's copies of its modules) on py-tree-sitter 0.2.0, timed inside .build/venv-ts020.
_OFFICIAL_SNIPPET = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from oracles import codebleu_codexglue as oracle
from tree_sitter import Language, Parser
from codebleu import bleu, weighted_ngram_match
from codebleu.parser import DFG as dfg_module, utils
dfg_module.set = oracle.OrderedSet  # first-seen order where it builds list(set(...)), as ours
job = json.load(open(sys.argv[2]))
parser = Parser()
parser.set_language(Language(job["library"], job["lang"]))
modules = (bleu, weighted_ngram_match, utils, dfg_module)
oracle._codexglue(dict(job, predictions=job["predictions"][:2], references=job["references"][:2]), parser, modules)
oracle._codexglue(job, parser, modules)  # warm-up at full size
best = float("inf")
for _ in range(int(sys.argv[3])):
    t0 = time.thread_time()
    scores = oracle._codexglue(job, parser, modules)
    best = min(best, time.thread_time() - t0)
print(json.dumps({"seconds": best, "scores": scores}))
"""


def run_official(lang, preds, refs, repeat, fusion_brain=False):
    """The official evaluator on the same pairs: (best CPU seconds, scores), with the flags of the `default`
    preset (comments removed as CodeXGLUE's java rule, inputs stripped) or of `fusion_brain_2021`."""
    sys.path.insert(0, str(ROOT / "tests"))
    from oracles import codebleu_codexglue as legacy

    job = {
        "library": str(legacy.NPM_LIBRARY),
        "lang": lang,
        "predictions": preds,
        "references": [[r] for r in refs],
        "keywords": legacy.PY_KEYWORDS_2020 if lang == "python" else None,
        "remove_comments": "none" if fusion_brain else "java",
        "strip": not fusion_brain,
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "job.json"
        path.write_text(json.dumps(job))
        proc = subprocess.run(
            [str(OFFICIAL_PY), "-I", "-c", _OFFICIAL_SNIPPET, str(ROOT / "tests"), str(path), str(repeat)],
            capture_output=True,
            text=True,
            cwd=tmp,
            env={"PYTHONHASHSEED": "0"},
        )
    out = _reply(proc, "the official evaluator")
    return out["seconds"], out["scores"]


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
    from oracles import codebleu_pypi as oracle

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
core = bench.import_corpus(pure=True)
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


def import_corpus(pure=False):
    """Our pure core, ``multimodal_metrics.codebleu.corpus`` of this checkout; ``pure``: with the standard library
    only (tests/oracles/codebleu_pypi.load_pure_core: the packages' __init__ files do not run, so the library is
    then unusable for evaluate in that process)."""
    if pure:
        sys.path.insert(0, str(ROOT / "tests"))
        from oracles import codebleu_pypi as oracle

        return oracle.load_pure_core(SRC)
    sys.path.insert(0, str(SRC))
    from multimodal_metrics.codebleu import corpus

    return corpus


def run_sizes(langs, shapes, sizes, timeout):
    print(
        "cost per size: one prediction + one reference of the given size each, pure core, fresh process per row;"
    )
    print("CPU seconds of the computing thread; peak = max resident memory added by the computation")
    print(f"{'lang':10} {'shape':6} {'size':>8} {'seconds':>9} {'s per MB':>9} {'peak MB':>8}  note")
    for lang in langs:
        for shape in shapes:
            for size in sizes:
                try:
                    proc = subprocess.run(
                        [sys.executable, "-c", _ONE_SIZE, str(ROOT / "benchmarks"), lang, shape, str(size)],
                        capture_output=True,
                        text=True,
                        timeout=timeout,
                    )
                except subprocess.TimeoutExpired:
                    print(f"{lang:10} {shape:6} {size:>8} {'>' + str(timeout):>9}")
                    continue
                if proc.returncode != 0:
                    print(
                        f"{lang:10} {shape:6} {size:>8} FAILED rc={proc.returncode}: {proc.stderr.strip()[-300:]}"
                    )
                    continue
                r = json.loads(proc.stdout.strip().splitlines()[-1])
                per_mb = r["seconds"] / (r["chars"] / 1e6)  # per MB of code scored (prediction + reference)
                note = "data flow over the work limit" if r["limited"] else ""
                print(
                    f"{lang:10} {shape:6} {size:>8} {r['seconds']:9.3f} {per_mb:9.2f} {r['peak_mb']:8.1f}  {note}",
                    flush=True,
                )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="100 pairs instead of 1000")
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--langs", default="java,python")
    ap.add_argument(
        "--repeat", type=int, default=3, help="best of R runs for every timing (shared CPUs are noisy)"
    )
    ap.add_argument(
        "--sizes", action="store_true", help="cost per size of the code (1 KB to 1 MB), every language"
    )
    ap.add_argument("--size-list", default="1000,10000,100000,1000000")
    ap.add_argument("--shapes", default="code", help=f"with --sizes: some of {','.join(SHAPES)} or 'all'")
    ap.add_argument("--timeout", type=int, default=300, help="with --sizes: seconds per row")
    ap.add_argument(
        "--hash-seeds", type=int, default=0, metavar="K", help="only: PyPI codebleu under K hash seeds"
    )
    ap.add_argument(
        "--per-snippet", action="store_true", help="only: microseconds per snippet, score and parse"
    )
    ap.add_argument("--lines", default="20", help="lines per generated function: N or LO,HI (default 20)")
    args = ap.parse_args()
    lines = tuple(int(x) for x in args.lines.split(","))
    lines = lines[0] if len(lines) == 1 else lines
    if args.per_snippet:
        return run_per_snippet(args.langs.split(","), args.n or 300, args.repeat)
    if args.hash_seeds:
        return run_hash_seeds(args.langs.split(","), args.n or 200, args.hash_seeds)
    if args.sizes:
        langs = args.langs.split(",") if args.langs != "java,python" else list(LANGUAGES)
        shapes = SHAPES if args.shapes == "all" else args.shapes.split(",")
        run_sizes(langs, shapes, [int(x) for x in args.size_list.split(",")], args.timeout)
        return
    n = args.n or (100 if args.quick else 1000)
    for venv, how in (
        (ORACLE_PY, "scripts/setup.d/test/codebleu_oracle.sh"),
        (OFFICIAL_PY, "scripts/setup.d/codebleu_legacy_ts.sh"),
    ):
        if not venv.is_file():
            sys.exit(f"missing {venv.parent.parent.relative_to(ROOT)}: run bash {how}")
    sys.path.insert(0, str(SRC))
    sys.path.insert(0, str(ROOT / "tests"))
    import conftest  # noqa: F401  (offline evaluate settings)
    import evaluate

    from multimodal_metrics import codebleu
    from multimodal_metrics.codebleu import legacy_runtime

    if legacy_runtime.find_grammars() is None or not legacy_runtime.load_runtime().walker:
        sys.exit(
            "the runtime of 2020 with its walker is not built: python -m multimodal_metrics.codebleu.build_runtime"
        )
    keymap = dict(
        zip(
            codebleu.KEYS,
            [
                "codebleu",
                "ngram_match_score",
                "weighted_ngram_match_score",
                "syntax_match_score",
                "dataflow_match_score",
            ],
        )
    )
    metrics = {}
    print(
        f"{n} pairs of {lines if lines == 20 else f'{lines[0]}-{lines[1]}'}-line functions per language; pairs per CPU-second of the computing thread, best of "
        f"{args.repeat} after a full-size warm-up (higher is faster)"
    )
    print(f"{'':38} {'library score':>14} {'evaluate compute':>17}   ratios (library score)")
    for lang in args.langs.split(","):
        preds, refs = make_pairs(lang, n, lines=lines)
        presets = ["default", "fusion_brain_2021", "pypi"] if lang == "python" else ["default", "pypi"]
        ours = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the generated java methods parse with ERROR nodes (no class)
            for preset in presets:
                opts = {} if preset == "fusion_brain_2021" else {"lang": lang}
                if preset not in metrics:
                    metrics[preset] = evaluate.load(str(ROOT / "metrics" / "codebleu"), preset)
                metric = metrics[preset]
                result = codebleu.score(preds, refs, preset, **opts)
                t_score = measure(
                    lambda p=preds, r=refs, s=preset, o=opts: codebleu.score(p, r, s, **o),
                    args.repeat,
                    warmup=True,
                    thread=True,
                ).cpu
                t_compute = measure(
                    lambda p=preds, r=refs, m=metric, o=opts: m.compute(predictions=p, references=r, **o),
                    args.repeat,
                    warmup=True,
                    thread=True,
                ).cpu
                ours[preset] = (result, t_score, t_compute)
        t_pypi, pypi_scores = (lambda r: (r["seconds"], r["scores"]))(
            run_oracle(lang, preds, refs, args.repeat + 1)
        )
        t_official, official_scores = run_official(lang, preds, refs, args.repeat)
        # identical results
        for key in codebleu.KEYS:
            assert ours["default"][0][key] == official_scores[key], ("default", lang, key)
            assert abs(ours["pypi"][0][key] - pypi_scores[keymap[key]]) < 1e-12 or (
                lang != "java" and key not in ("ngram_match", "weighted_ngram_match")
            ), ("pypi", lang, key)
        if "fusion_brain_2021" in ours:
            t_official_fb, official_fb = run_official(lang, preds, refs, args.repeat, fusion_brain=True)
            assert all(ours["fusion_brain_2021"][0][k] == official_fb[k] for k in codebleu.KEYS), (
                "fusion_brain_2021",
                lang,
            )

        def rate(seconds):
            return n / seconds

        print(f"{lang}:")
        for preset in presets:
            _, t_score, t_compute = ours[preset]
            if preset == "pypi":
                versus = f"{t_pypi / t_score:5.1f}x PyPI codebleu"
            else:
                official = t_official_fb if preset == "fusion_brain_2021" else t_official
                versus = (
                    f"{official / t_score:5.1f}x official CodeXGLUE, {t_pypi / t_score:5.1f}x PyPI codebleu"
                )
            label = {
                "default": "ours, default (2020 grammars)",
                "fusion_brain_2021": "ours, fusion_brain_2021",
                "pypi": "ours, pypi (grammar wheels)",
            }[preset]
            print(f"  {label:36} {rate(t_score):14,.0f} {rate(t_compute):17,.0f}   {versus}")
        print(
            f"  {'official CodeXGLUE evaluator':36} {rate(t_official):14,.0f}   (py-tree-sitter 0.2.0, 2020 grammars)"
        )
        if "fusion_brain_2021" in ours:
            print(f"  {'official, Fusion Brain 2021 flags':36} {rate(t_official_fb):14,.0f}")
        print(f"  {'PyPI codebleu 0.7.0':36} {rate(t_pypi):14,.0f}   (calc_codebleu, in its venv)")
        same = "default and fusion_brain_2021 = official evaluator (all components, bit for bit); pypi = PyPI codebleu"
        print(
            f"  identical results: {same}"
            + (" (all components)" if lang == "java" else " (n-gram components)"),
            flush=True,
        )


if __name__ == "__main__":
    main()
