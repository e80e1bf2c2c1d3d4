"""The numbers that go through BLAS / LAPACK hold on any x86-64 CPU: the golden outcomes of fid_clip and the
FID / paired-test parity tests, re-run in subprocesses under two OpenBLAS kernels (``OPENBLAS_CORETYPE``).

OpenBLAS picks its kernels for the CPU it runs on (SkylakeX with AVX-512, Haswell on AVX2-only machines such as
many AMD EPYC, a generic one elsewhere) and each kernel sums in its own order: a value recorded on one machine
and compared bit for bit fails on another. tests/golden.py declares the tolerance of those numbers
(``BLAS_TOLERANCE``, with the reason); this test makes sure it is enough under kernels other than the one of
the machine at hand. The kernels are two of SkylakeX, Haswell and Prescott (the generic one) that the CPU can
run; a probe process checks that numpy's and scipy's OpenBLAS really load the kernel asked for.
"""

import os
import platform
import re
import subprocess
import sys

import pytest
from helpers import ROOT

# the tests re-run under each kernel: the recorded fid_clip outcomes (examples, hostile sweep, fuzz sample),
# the library's score against them, and the parity tests of the Frechet distance and the paired tests
TESTS = [
    "tests/test_golden.py::test_golden_outputs_unchanged[fid_clip]",
    "tests/test_golden.py::test_library_score_equals_compute_on_the_examples[fid_clip]",
    "tests/test_fid_clip.py::test_frechet_distance_equals_the_sqrtm_formula",
    "tests/test_card_claims.py::test_frechet_distance_equals_pytorch_fids_formula_on_200_generated_full_rank_sets",
    "tests/test_stats.py::test_sacrebleu_paired_tests_as_oracle",
]
# OpenBLAS core type -> the CPU flag it needs (Prescott: SSE3, any x86-64 CPU of the last 20 years)
KERNELS = {"SkylakeX": "avx512f", "Haswell": "avx2", "Prescott": "sse3"}
# the name OpenBLAS reports ("Core: ...", OPENBLAS_VERBOSE=2) for each core type
REPORTED = {"SkylakeX": "SkylakeX", "Haswell": "Haswell", "Prescott": "Katmai"}


def cpu_flags() -> set[str]:
    """The CPU's flags from /proc/cpuinfo (Linux calls SSE3 "pni"); empty elsewhere."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            line = next((line for line in f if line.startswith("flags")), "flags:")
    except OSError:
        return set()
    flags = set(line.split(":", 1)[1].split())
    return flags | {"sse3"} if "pni" in flags else flags


def kernels() -> list[str]:
    flags = cpu_flags()
    return [kernel for kernel, flag in KERNELS.items() if flag in flags][:2]


pytestmark = pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64") or len(kernels()) < 2,
    reason="OPENBLAS_CORETYPE names x86-64 kernels; this CPU runs fewer than two of SkylakeX, Haswell, Prescott",
)


def env_with(kernel: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBLAS_")}
    env["OPENBLAS_CORETYPE"] = kernel
    return env


@pytest.mark.parametrize("kernel", kernels() or ["none"])
def test_blas_numbers_hold_under_another_openblas_kernel(kernel):
    probe = subprocess.run(
        [sys.executable, "-c", "import numpy, scipy.linalg"],
        env={**env_with(kernel), "OPENBLAS_VERBOSE": "2"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    cores = re.findall(r"Core: (\w+)", probe.stderr)
    assert cores and set(cores) == {REPORTED[kernel]}, (kernel, probe.stderr[-2000:])
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *TESTS],
        cwd=ROOT,
        env=env_with(kernel),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"OPENBLAS_CORETYPE={kernel}:\n{done.stdout[-4000:]}"
    assert re.search(r"(\d+) passed", done.stdout) and " failed" not in done.stdout
