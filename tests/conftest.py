"""Test set-up shared by every test file: an offline, isolated environment and module loaders.

The environment variables are set here, before anything imports evaluate (it reads its config at
import time): the tests never touch the network or the user's cache.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / ".build"
os.environ.setdefault("HF_HOME", str(BUILD / "hf_home"))
for _var in ("HF_EVALUATE_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[_var] = "1"
os.environ["HF_UPDATE_DOWNLOAD_COUNTS"] = "False"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ.setdefault("NLTK_DATA", str(BUILD / "nltk_data"))
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # helpers, oracles/, the shared fixtures

import pytest  # noqa: E402
from helpers import load_metric  # noqa: E402


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


__all__ = ["load_metric"]
