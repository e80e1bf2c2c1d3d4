#!/usr/bin/env bash
# Set up everything the main job and the tests need, on a fresh machine, idempotently.
#   bash scripts/setup_env.sh [EXTRAS]     EXTRAS defaults to "test" (see setup.cfg); "all" for the demo/job
# Creates .venv/ (ignored by git), installs torch==2.13.0 first (local CPU wheel), then the library
# with the extras of setup.cfg at the versions of constraints.txt, then builds offline resources under .build/ (WordNet 3.0 for NLTK from
# Debian's wordnet-base) and runs the hooks of scripts/setup.d/ (those of scripts/setup.d/test/ only
# for EXTRAS=test: a separate venv for a peer package whose pins clash with ours, Chromium). Re-running is cheap: a stamp records what was installed.
# Where torch comes from (before the extras, so pip does not resolve another build):
#   TORCH_INDEX_URL  an index to install torch==2.13.0 from, e.g. the CPU-only builds on a machine without a GPU:
#                    TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu bash scripts/setup_env.sh
#                    (a CUDA build: https://download.pytorch.org/whl/cuXYZ for your CUDA version); default: pip's index
#   TORCH_WHEEL      a torch 2.13.0 wheel file or URL to install instead (e.g. a local CPU wheel)
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-test}"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null || PY=python3
BUILD="$PWD/.build"
mkdir -p "$BUILD"

# pip's output goes to .build/setup.log (shown only when a step fails).
LOG="$BUILD/setup.log"
pipq() {
  if ! "$@" >>"$LOG" 2>&1; then
    grep -v "is ignored: it is neither a file nor a directory" "$LOG" | tail -40 >&2
    echo "[setup] failed: $* (full log: $LOG)" >&2
    return 1
  fi
}

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
  pipq .venv/bin/python -m pip install -q --upgrade pip
fi
stamp="$BUILD/installed-$EXTRAS.stamp"
want="$( (cat setup.cfg pyproject.toml constraints.txt; echo "torch:${TORCH_WHEEL:-}@${TORCH_INDEX_URL:-}") | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  torch=(torch==2.13.0)
  [ -n "${TORCH_WHEEL:-}" ] && torch=("$TORCH_WHEEL")
  [ -n "${TORCH_INDEX_URL:-}" ] && torch=(--index-url "$TORCH_INDEX_URL" "${torch[@]}")
  echo "[setup] installing ${torch[*]} then .[${EXTRAS}]"
  pipq .venv/bin/python -m pip install -q "${torch[@]}"
  pipq .venv/bin/python -m pip install -q -c constraints.txt -e ".[${EXTRAS}]"
  .venv/bin/python -c "import torch; assert torch.__version__.startswith('2.13.0'), torch.__version__"
  echo "$want" > "$stamp"
fi

# English WordNet 3.0 for NLTK, offline, from Debian (vqa_acc's wups, ru_meteor's nltk preset; the metrics
# also read /usr/share/wordnet itself when NLTK has no copy: tests/test_wordnet.py).
NLTK_HOME="$BUILD/nltk_data"
D="$NLTK_HOME/corpora/wordnet"
if [ ! -s "$D/lexnames" ]; then
  if ! dpkg -s wordnet-base >/dev/null 2>&1 || ! dpkg -s wordnet-sense-index >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    echo "[setup] apt-get install wordnet-base wordnet-sense-index"
    $SUDO apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wordnet-base wordnet-sense-index >/dev/null
  fi
  mkdir -p "$D"
  WN_SRC="$(dirname "$(dpkg -L wordnet-base | grep '/data\.noun$')")"
  cp "$WN_SRC"/{data,index}.{noun,verb,adj,adv} "$WN_SRC"/{noun,verb,adj,adv}.exc "$D"/
  for f in cntlist.rev index.sense cntlist frames.vrb; do [ -f "$WN_SRC/$f" ] && cp "$WN_SRC/$f" "$D"/; done
  zcat "$(dpkg -L wordnet-base | grep 'lexnames\.5WN\.gz$')" | grep -E '^[0-9]{2}\s' \
    | awk '{n=$2; c=(n ~ /^noun/)?1:(n ~ /^verb/)?2:(n ~ /^adj/)?3:4; printf "%s\t%s\t%d\n",$1,n,c}' > "$D/lexnames.tmp"
  mv "$D/lexnames.tmp" "$D/lexnames"
fi

# Hooks: scripts/setup.d/*.sh for every set-up (e.g. codebleu's 2020 runtime, which the main job scores
# with), scripts/setup.d/test/*.sh only for the tests (Chromium for the browser tests, the venv of a peer
# package run as an oracle): the main job's set-up installs only what the main job needs.
hooks=(scripts/setup.d/*.sh)
[ "$EXTRAS" = "test" ] && hooks+=(scripts/setup.d/test/*.sh)
for hook in "${hooks[@]}"; do
  [ -e "$hook" ] || continue
  echo "[setup] $hook"
  bash "$hook"
done
echo "[setup] ready: .venv ($(.venv/bin/python -c 'import evaluate; print("evaluate", evaluate.__version__)'))"
