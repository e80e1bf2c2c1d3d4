"""Every metric gives the outputs recorded before the library move (tests/golden.py): the bundled
examples' results and signatures, the deterministic hostile-value sweep and a seeded fuzz sample,
numbers, signatures and error messages byte-identical."""

import math

import golden
import pytest
from helpers import metric_names


@pytest.mark.parametrize("name", metric_names())
def test_golden_outputs_unchanged(name):
    assert golden.differences(name) == []


@pytest.mark.parametrize("name", metric_names())
def test_library_score_equals_compute_on_the_examples(name):
    """``multimodal_metrics.<name>.score`` returns exactly the dict ``compute`` returned (recorded)."""
    assert golden.library_differences(name) == []


def test_only_blas_numbers_are_compared_at_the_stated_tolerance():
    """fid_clip's numbers (through BLAS / LAPACK) agree within golden.BLAS_TOLERANCE, the rest exactly:
    the last-bit difference between OpenBLAS kernels passes, a real change or a changed signature does not,
    and a pure-Python metric's number one ulp away is a difference."""
    fid = {"result": {"fid": 0.8386289172258632, "signature": "fid_clip|preset:default|feat:given|v:0.1.0"}}
    kernel = {"result": {**fid["result"], "fid": 0.8386289172258627}}  # the Haswell kernel's value
    assert golden.same("fid_clip", fid, kernel)
    assert not golden.same(
        "fid_clip", fid, {"result": {**fid["result"], "fid": 0.8386289172258632 * (1 + 1e-8)}}
    )
    assert not golden.same("fid_clip", fid, {"result": {**fid["result"], "signature": "fid_clip|v:0.1.1"}})
    assert not golden.same("fid_clip", fid, {"error": "ValueError: x"})
    assert not golden.same("fid_clip", {"result": {"n": 2}}, {"result": {"n": 2.0}})
    anls = {"result": {"anls": 0.7142857142857143}}
    assert not golden.same("anls", anls, {"result": {"anls": math.nextafter(0.7142857142857143, 1)}})
    assert set(golden.BLAS_TOLERANCE) == {"fid_clip"}
