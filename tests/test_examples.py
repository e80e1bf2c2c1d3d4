"""The main job's bundled examples score what they claim (scripts/run_examples.py)."""

import sys

import pytest
from helpers import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import run_examples  # noqa: E402

FILES = run_examples.example_files(None)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_example_file_scores_as_expected(path):
    rows = run_examples.score_file(path)
    assert rows
    for row in rows:
        assert row["ok"], f"{row['metric']}[{row['preset']}]: {row['result']} != expected {row['expected']}"
        assert row["result"]["signature"].startswith(f"{row['metric']}|preset:{row['preset']}|")
