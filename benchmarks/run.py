"""Run the benchmarks: the README's summary table, or one benchmark with its own options.

    .venv/bin/python benchmarks/run.py                         # README's table: every metric vs its reference
    .venv/bin/python benchmarks/run.py --scale 0.1 --only anls,ned   # the same table, smaller and partial
    .venv/bin/python benchmarks/run.py --list                  # every benchmark and what it measures
    .venv/bin/python benchmarks/run.py anls --scale            # one benchmark (benchmarks/bench_anls.py)

With no benchmark named, runs `bench_compute.py` (the CPU time of every metric's pure function,
`evaluate.load(...).compute` and the library's `score` against the reference, on each benchmark's
workload) and prints its rows as the README's "Against the reference" markdown table. A named
benchmark runs in a fresh process (peak memory is its own), with the arguments that follow its name;
each card's Speed table names the command that measures each of its rows.
"""

import ast
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# the columns of the README table "Against the reference"
HEADER = (
    "| metric | workload | reference | reference time | pure function | `compute` | "
    "reference / `compute` | `compute` / pure |\n|---|---|---|---|---|---|---|---|"
)


def benchmarks() -> dict[str, str]:
    """{name: first line of its docstring} for every benchmarks/bench_<name>.py and the other scripts here."""
    out = {}
    for path in sorted(HERE.glob("*.py")):
        if path.name in ("run.py", "timing.py"):
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        out[path.stem.removeprefix("bench_")] = doc.splitlines()[0] if doc else ""
    return out


def seconds(value: float) -> str:
    """0.0283 -> '28 ms', 2.91 -> '2.91 s' (three significant figures at most, as in the README)."""
    if value >= 1:
        return f"{value:.3g} s"
    ms = value * 1000
    return f"{ms:.3g} ms" if ms < 100 else f"{ms:.0f} ms"


def markdown(rows) -> str:
    """The README's table from bench_compute's rows (name is 'metric preset, workload')."""
    lines = [HEADER]
    for row in rows:
        metric, _, workload = row.name.partition(", ")
        ref = (
            (row.ref_name or "", seconds(row.ref), f"{row.ref / row.compute:,.0f}×")
            if row.ref
            else ("", "", "")
        )
        lines.append(
            f"| {metric} | {workload} | {ref[0]} | {ref[1]} | {seconds(row.pure)} | {seconds(row.compute)} | "
            f"{ref[2]} | {row.compute / row.pure:.2f}× |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    names = benchmarks()
    if argv[:1] == ["--list"]:
        for name, doc in names.items():
            print(f"{name:22s} {doc}")
        return 0
    if argv and not argv[0].startswith("-"):
        name, rest = argv[0], argv[1:]
        if name not in names:
            print(f"unknown benchmark {name!r}; expected one of {sorted(names)}", file=sys.stderr)
            return 2
        script = HERE / (f"bench_{name}.py" if (HERE / f"bench_{name}.py").exists() else f"{name}.py")
        return subprocess.run([sys.executable, str(script), *rest]).returncode
    sys.path.insert(0, str(HERE))
    import bench_compute

    rows = bench_compute.main(argv)
    print()
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
