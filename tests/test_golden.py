"""Every metric gives the outputs recorded before the library move (tests/golden.py): the bundled
examples' results and signatures, the deterministic hostile-value sweep and a seeded fuzz sample,
numbers, signatures and error messages byte-identical."""

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
