#!/usr/bin/env bash
# Set up (idempotent) and run the whole test suite, offline, with caches inside .build/.
#   bash scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh test
test -x .venv/bin/python || { echo "set-up failed: no .venv" >&2; exit 1; }
export HF_HOME="$PWD/.build/hf_home"
export HF_EVALUATE_OFFLINE=1 HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export HF_UPDATE_DOWNLOAD_COUNTS=False GRADIO_ANALYTICS_ENABLED=False
export NLTK_DATA="$PWD/.build/nltk_data"
exec .venv/bin/python -m pytest "$@"
