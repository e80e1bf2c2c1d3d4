"""The main job: every metric of the collection scores its bundled example predictions.

    .venv/bin/python scripts/run_examples.py [--out results.json] [--only anls,ned]

Reads examples/<metric>.json (runs of predictions/references/options with the expected primary
score), loads each metric with `evaluate.load` on its folder (offline), computes, prints a table
and writes every result (scores + signature) as JSON. Exits 1 if a score differs from the expected one.
A warning a run raises is printed once under the table as a note naming the run (and the example's
own note), not as Python's warning line with its source.
"""

import argparse
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path

from multimodal_metrics.examples import FOLDER as EXAMPLES

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("HF_HOME", str(ROOT / ".build" / "hf_home"))
for var in ("HF_EVALUATE_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("NLTK_DATA", str(ROOT / ".build" / "nltk_data"))


def example_files(only: set[str] | None) -> list[Path]:
    files = sorted(EXAMPLES.glob("*.json"))
    return [f for f in files if only is None or f.stem in only]


def score_file(path: Path) -> list[dict]:
    import evaluate

    spec = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for run in spec["runs"]:
        preset = run.get("config_name", "default")
        inputs = {k: v for k, v in run.items() if k not in ("config_name", "kwargs", "expected", "note")}
        with warnings.catch_warnings(record=True) as caught:
            metric = evaluate.load(str(ROOT / "metrics" / spec["metric"]), preset)
            start = time.perf_counter()
            result = metric.compute(**inputs, **run.get("kwargs", {}))
            elapsed = time.perf_counter() - start
        primary = next(iter(result))
        expected = run.get("expected", {})
        ok = all(math.isclose(result[k], v, rel_tol=1e-9, abs_tol=1e-9) for k, v in expected.items())
        rows.append(
            {
                "metric": spec["metric"],
                "preset": preset,
                "n": len(run["predictions"]),
                "primary": primary,
                "value": result[primary],
                "expected": expected.get(primary),
                "ok": ok,
                "seconds": round(elapsed, 4),
                "result": result,
                "warnings": list(dict.fromkeys(str(w.message) for w in caught)),
                "note": run.get("note"),
            }
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / ".build" / "examples_results.json"))
    parser.add_argument("--only", default=None, help="comma-separated metric names")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None

    rows = []
    for path in example_files(only):
        rows.extend(score_file(path))

    header = f"{'metric':<10} {'preset':<18} {'n':>4}  {'score':<22} {'expected':>10}  ok  signature"
    print(header)
    print("-" * len(header))
    for r in rows:
        score = f"{r['primary']}={r['value']:.6f}"
        exp = "" if r["expected"] is None else f"{r['expected']:.6f}"
        print(
            f"{r['metric']:<10} {r['preset']:<18} {r['n']:>4}  {score:<22} {exp:>10}  {'yes' if r['ok'] else 'NO':<3} {r['result']['signature']}"
        )
    for r in rows:
        for message in r["warnings"]:
            about = f" (example: {r['note']})" if r["note"] else ""
            print(f"note: {r['metric']} [{r['preset']}] warned{about}: {message}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=2, ensure_ascii=False), encoding="utf-8")
    print(
        f"\n{len(rows)} runs over {len({r['metric'] for r in rows})} metrics; results written to {args.out}"
    )
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
