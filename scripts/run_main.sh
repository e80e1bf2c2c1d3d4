#!/usr/bin/env bash
# Set up (idempotent) and run the main job: every metric scores its bundled examples
# (examples/*.json), prints a table and writes .build/examples_results.json.
#   bash scripts/run_main.sh            # the scored examples
#   bash scripts/run_main.sh --demo     # then serve the playground Space on http://127.0.0.1:7860
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh all
export HF_HOME="$PWD/.build/hf_home"
export HF_EVALUATE_OFFLINE=1 HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export HF_UPDATE_DOWNLOAD_COUNTS=False GRADIO_ANALYTICS_ENABLED=False
export NLTK_DATA="$PWD/.build/nltk_data"
.venv/bin/python scripts/run_examples.py
if [ "${1:-}" = "--demo" ]; then
  exec .venv/bin/python spaces/playground/app.py
fi
