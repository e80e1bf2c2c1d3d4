"""PyPI `codebleu` 0.7.0 as an oracle for metrics/codebleu, plus the generated inputs it is run on.

Two roles:
* imported by tests/test_codebleu.py and benchmarks/bench_codebleu.py (main venv): `seed_snippets`,
  `mutated_pairs(lang, n, seed)` and `run_oracle(...)`, which runs THIS file with the separate venv
  .build/venv-codebleu (scripts/setup.d/test/codebleu_oracle.sh) in a subprocess;
* run as a script by that venv's python (`-I`, so neither tests/ nor metrics/codebleu is on sys.path
  and `import codebleu` is the PyPI package, never our `codebleu.py`): reads a JSON job on stdin,
  writes the results (and timings) on stdout.

`ordered_sets=True` replaces `set` inside the package's two data-flow modules by an insertion-ordered
set, so the oracle uses the same first-seen order as our module where it builds `list(set(names))`
(its own order depends on PYTHONHASHSEED).
"""

import json
import random
import re
import sys
from pathlib import Path

if __package__:
    from .isolated import OrderedSet, run
else:  # run as a script by the oracle's venv (-I: this folder is not on sys.path)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from isolated import OrderedSet, run

ROOT = Path(__file__).resolve().parent.parent.parent
ORACLE_PYTHON = ROOT / ".build" / "venv-codebleu" / "bin" / "python"
SRC = ROOT / "src"


def load_pure_core(src=SRC):
    """``multimodal_metrics.codebleu.corpus`` (the formula) from ``src`` with the standard library only: the two
    packages are registered as bare namespaces, so their ``__init__`` files (which import numpy and the
    library's shared modules) do not run; the formula's modules (keywords, trees, dataflow, ngrams, corpus)
    import nothing else, and can be imported by name afterwards. What the oracle's venv and the
    memory-limited subprocesses load."""
    import importlib
    import types

    for name in ("multimodal_metrics", "multimodal_metrics.codebleu"):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = [str(Path(src, *name.split(".")))]
            sys.modules[name] = package
    return importlib.import_module("multimodal_metrics.codebleu.corpus")


SEEDS = {
    "python": [
        "def add(a, b):\n    c = a + b\n    return c\n",
        "def total(items):\n    s = 0\n    for x in items:\n        if x > 0:\n            s += x\n        else:\n            s -= x\n    return s\n",
        "def fib(n):\n    a, b = 0, 1\n    i = 0\n    while i < n:\n        a, b = b, a + b\n        i += 1\n    return a\n",
        "def clean(words, stop=None):\n    # drop stop words\n    out = [w.lower() for w in words if w not in stop]\n    n = len(out)\n    return out, n\n",
        'def greet(name):\n    """Grüße."""\n    msg = "héllo " + name\n    if len(msg) > 9:\n        msg = msg[:9]\n    return msg\n',
    ],
    "java": [
        "public int add(int a, int b) {\n    int c = a + b;\n    return c;\n}",
        "public int total(int[] items) {\n    int s = 0;\n    for (int i = 0; i < items.length; i++) {\n        if (items[i] > 0) {\n            s += items[i];\n        } else {\n            s = s - items[i];\n        }\n    }\n    return s;\n}",
        "public int fib(int n) {\n    int a = 0, b = 1;\n    while (n > 0) {\n        int t = a + b;\n        a = b;\n        b = t;\n        n--;\n    }\n    return a;\n}",
        "// sum of a list\npublic int sum(List<Integer> xs) {\n    int s = 0;\n    for (int x : xs) {\n        s = s + x;\n    }\n    return s;\n}",
        '/* ümlaut\n   block */\npublic String tag(String s) {\n    String t = "ß" + s;\n    t = t + "é";\n    return t;\n}',
    ],
    "javascript": [
        "function add(a, b) {\n  let c = a + b;\n  return c;\n}",
        "function total(items) {\n  let s = 0;\n  for (let i = 0; i < items.length; i++) {\n    if (items[i] > 0) {\n      s += items[i];\n    } else {\n      s = s - items[i];\n    }\n  }\n  return s;\n}",
        "function fib(n) {\n  var a = 0, b = 1;\n  while (n > 0) {\n    var t = a + b;\n    a = b;\n    b = t;\n    n--;\n  }\n  return a;\n}",
        "/* join words */\nfunction join(words, sep = ',') {\n  const out = words.map(w => w.trim());\n  return out.join(sep);\n}",
    ],
    "c_sharp": [
        "public int Add(int a, int b) {\n    int c = a + b;\n    return c;\n}",
        "public int Total(int[] items) {\n    int s = 0;\n    for (int i = 0; i < items.Length; i++) {\n        if (items[i] > 0) {\n            s += items[i];\n        } else {\n            s = s - items[i];\n        }\n    }\n    return s;\n}",
        "public int Sum(List<int> xs) {\n    int s = 0;\n    foreach (var x in xs) {\n        s = s + x;\n        x++;\n    }\n    return s;\n}",
        "public int Fib(int n) {\n    int a = 0, b = 1;\n    while (n > 0) {\n        int t = a + b;\n        a = b;\n        b = t;\n        n--;\n    }\n    return a;\n}",
    ],
    "php": [
        "<?php\nfunction add($a, $b) {\n    $c = $a + $b;\n    return $c;\n}",
        "<?php\nfunction total($items) {\n    $s = 0;\n    for ($i = 0; $i < count($items); $i++) {\n        if ($items[$i] > 0) {\n            $s += $items[$i];\n        } else {\n            $s = $s - $items[$i];\n        }\n    }\n    return $s;\n}",
        "<?php\nfunction sum($xs, $start = 0) {\n    $s = $start;\n    foreach ($xs as $x) {\n        $s = $s + $x;\n    }\n    return $s;\n}",
        "<?php\nfunction fib($n) {\n    $a = 0; $b = 1;\n    while ($n > 0) {\n        $t = $a + $b;\n        $a = $b;\n        $b = $t;\n        $n--;\n    }\n    return $a;\n}",
    ],
    "c": [
        "int add(int a, int b) {\n    int c = a + b;\n    return c;\n}",
        "int total(int *items, int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) {\n        if (items[i] > 0) {\n            s += items[i];\n        } else {\n            s = s - items[i];\n        }\n    }\n    return s;\n}",
        "int fib(int n) {\n    int a = 0, b = 1;\n    while (n > 0) {\n        int t = a + b;\n        a = b;\n        b = t;\n        n--;\n    }\n    return a;\n}",
        "/* max */\nint max(int x, int y) {\n    int m = x;\n    if (y > x) m = y;\n    return m;\n}",
    ],
    "cpp": [
        "int add(int a, int b) {\n    int c = a + b;\n    return c;\n}",
        "int total(std::vector<int>& items) {\n    int s = 0;\n    for (int i = 0; i < items.size(); i++) {\n        if (items[i] > 0) {\n            s += items[i];\n        } else {\n            s = s - items[i];\n        }\n    }\n    return s;\n}",
        "int sum(const std::vector<int>& xs) {\n    int s = 0;\n    for (int x : xs) {\n        s = s + x;\n    }\n    return s;\n}",
        "int fib(int n) {\n    int a = 0, b = 1;\n    while (n > 0) {\n        int t = a + b;\n        a = b;\n        b = t;\n        n--;\n    }\n    return a;\n}",
    ],
    "go": [
        "func add(a int, b int) int {\n\tvar c = a + b\n\treturn c\n}",
        "func total(items []int) int {\n\ts := 0\n\tfor i := 0; i < len(items); i++ {\n\t\tif items[i] > 0 {\n\t\t\ts += items[i]\n\t\t} else {\n\t\t\ts = s - items[i]\n\t\t}\n\t}\n\treturn s\n}",
        "func fib(n int) int {\n\ta, b := 0, 1\n\tfor n > 0 {\n\t\tt := a + b\n\t\ta = b\n\t\tb = t\n\t\tn--\n\t}\n\treturn a\n}",
        "// sum\nfunc sum(xs []int) int {\n\tvar s int\n\tfor _, x := range xs {\n\t\ts = s + x\n\t}\n\treturn s\n}",
    ],
    "ruby": [
        "def add(a, b)\n  c = a + b\n  return c\nend",
        "def total(items)\n  s = 0\n  for x in items\n    if x > 0\n      s += x\n    else\n      s = s - x\n    end\n  end\n  s\nend",
        "def fib(n, a: 0)\n  b = 1\n  until n == 0\n    a, b = b, a + b\n    n -= 1\n  end\n  a\nend",
        "# words\ndef clean(words)\n  out = words.map { |w| w.downcase }\n  n = out.size\n  return out, n\nend",
    ],
    "rust": [
        "fn add(a: i32, b: i32) -> i32 {\n    let c = a + b;\n    return c;\n}",
        "fn total(items: &Vec<i32>) -> i32 {\n    let mut s = 0;\n    for x in items.iter() {\n        if *x > 0 {\n            s += x;\n        } else {\n            s = s - x;\n        }\n    }\n    s\n}",
        "fn fib(n: u32) -> u64 {\n    let mut a = 0;\n    let mut b = 1;\n    let mut i = 0;\n    while i < n {\n        let t = a + b;\n        a = b;\n        b = t;\n        i += 1;\n    }\n    a\n}",
        "// max\nfn max(x: i32, y: i32) -> i32 {\n    let mut m = x;\n    if y > x {\n        m = y;\n    }\n    m\n}",
    ],
}

_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_BINOP = re.compile(r"(\$?[A-Za-z_][A-Za-z_0-9\[\]]*) ([+\-*]) (\$?[A-Za-z_][A-Za-z_0-9\[\]]*)")
_NAMES = ["x", "y", "tmp", "acc", "val", "k", "foo", "bar", "res", "n2"]


def _mutate(code: str, rng: random.Random, keywords) -> str:
    lines = code.split("\n")
    kind = rng.randrange(6)
    if kind == 0:  # rename one identifier everywhere
        words = sorted({w for w in _WORD.findall(code) if w not in keywords and len(w) <= 6})
        if words:
            old = rng.choice(words)
            code = re.sub(rf"\b{re.escape(old)}\b", rng.choice(_NAMES), code)
        return code
    if kind == 1 and len(lines) > 2:  # drop a line
        del lines[rng.randrange(1, len(lines) - 1)]
    elif kind == 2 and len(lines) > 2:  # duplicate a line
        i = rng.randrange(1, len(lines) - 1)
        lines.insert(i, lines[i])
    elif kind == 3:  # swap the operands of one binary operation
        matches = list(_BINOP.finditer(code))
        if matches:
            m = rng.choice(matches)
            return code[: m.start()] + f"{m.group(3)} {m.group(2)} {m.group(1)}" + code[m.end() :]
    elif kind == 4 and len(lines) > 2:  # swap two lines
        i = rng.randrange(1, len(lines) - 2) if len(lines) > 3 else 1
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    else:  # truncate
        lines = lines[: max(1, len(lines) - rng.randrange(1, 3))]
    return "\n".join(lines)


def mutated_pairs(lang: str, n: int, seed: int = 0, keywords=()):
    """n (prediction, references) pairs: a seed snippet as reference, 1-3 mutations as prediction;
    every 7th example has two references (the second one also mutated)."""
    rng = random.Random(f"{lang}-{seed}")
    seeds = SEEDS[lang]
    preds, refs = [], []
    for i in range(n):
        ref = rng.choice(seeds)
        pred = ref
        for _ in range(rng.randrange(1, 4)):
            pred = _mutate(pred, rng, keywords)
        if i % 7 == 3:
            refs.append([ref, _mutate(ref, rng, keywords)])
        else:
            refs.append(ref)
        preds.append(pred)
    return preds, refs


def oracle_available() -> bool:
    return ORACLE_PYTHON.is_file()


def run_oracle(jobs, ordered_sets=True, hash_seed="0", timeout=600):
    """Run PyPI codebleu on each job {lang, predictions, references, weights?, per_example?} in ONE
    subprocess; returns a list of {"scores": {...}, "per_example": [...]?, "seconds": float}."""
    return run(ORACLE_PYTHON, __file__, {"jobs": jobs, "ordered_sets": ordered_sets}, hash_seed, timeout)


def _oracle_main():  # runs inside .build/venv-codebleu
    import logging
    import time

    logging.disable(logging.WARNING)
    job = json.loads(sys.stdin.read())
    import codebleu
    import codebleu.dataflow_match as dm
    import codebleu.parser.DFG as dfg
    from codebleu import calc_codebleu

    assert "site-packages" in codebleu.__file__, codebleu.__file__
    if job["ordered_sets"]:
        dm.set = OrderedSet
        dfg.set = OrderedSet
    out = []
    for j in job["jobs"]:
        kw = {"weights": tuple(j["weights"])} if j.get("weights") else {}
        t0 = time.perf_counter()
        res = calc_codebleu(j["references"], j["predictions"], j["lang"], **kw)
        seconds = time.perf_counter() - t0
        item = {"scores": {k: float(v) for k, v in res.items()}, "seconds": seconds}
        if j.get("per_example"):
            item["per_example"] = [
                {k: float(v) for k, v in calc_codebleu([r], [p], j["lang"], **kw).items()}
                for p, r in zip(j["predictions"], j["references"])
            ]
        if j.get("ours_src"):  # our pure core on the oracle's own grammars (separates logic from grammar)
            core = load_pure_core(j["ours_src"])
            refs = [[r] if isinstance(r, str) else r for r in j["references"]]
            opts = dict(keywords="pypi", remove_comments="lang", strip=True, missing_dataflow="zero_is_one")
            if j.get("weights"):
                opts["weights"] = tuple(j["weights"])
            ours, per, _ = core.corpus_codebleu(j["predictions"], refs, j["lang"], per_example=True, **opts)
            item["ours"] = ours
            item["ours_per_example"] = per
        out.append(item)
    print(json.dumps(out))


if __name__ == "__main__":
    _oracle_main()
