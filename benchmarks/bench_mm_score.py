"""CPU time and peak memory of one `mm-score anls` call on generated DocVQA files.

    .venv/bin/python benchmarks/bench_mm_score.py [--n 5349] [--runs 3]

Writes a DocVQA ground-truth file and a submission of `--n` questions (bench_anls.make_inputs: two
accepted answers per question, OCR-style edits) to a temporary folder and runs the installed
`mm-score anls --gt ... --pred ...` there `--runs` times, each as its own process; prints the best
CPU time (user + system of the child) and its peak resident memory.
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import bench_anls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5349, help="questions (5,349: DocVQA's validation set)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    preds, refs = bench_anls.make_inputs(args.n)
    exe = Path(sys.executable).with_name("mm-score")
    with tempfile.TemporaryDirectory() as tmp:
        gt = {
            "dataset_name": "docvqa",
            "data": [{"questionId": i, "question": "?", "answers": r} for i, r in enumerate(refs)],
        }
        (Path(tmp) / "gt.json").write_text(json.dumps(gt), encoding="utf-8")
        sub = [{"questionId": i, "answer": p} for i, p in enumerate(preds)]
        (Path(tmp) / "pred.json").write_text(json.dumps(sub), encoding="utf-8")
        best = None
        for _ in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run(
                [str(exe), "anls", "--gt", "gt.json", "--pred", "pred.json"],
                cwd=tmp,
                capture_output=True,
                text=True,
                check=True,
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            best = cpu if best is None else min(best, cpu)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(done.stdout.strip())
    print(
        f"mm-score anls, {args.n:,} questions: best CPU {best:.2f} s of {args.runs} runs; peak RSS {peak:.0f} MiB"
    )


if __name__ == "__main__":
    main()
