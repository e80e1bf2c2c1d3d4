#!/usr/bin/env bash
# One separate venv per small peer package run as a test oracle: the peer's own code runs in a subprocess
# on the test's generated inputs (tests/oracles/peers.py), never imported by the library or the main venv.
#   .build/venv-anls_star: PyPI anls_star 1.0.1 (ANLS*), oracle of tests/test_anls_star.py
#   .build/venv-jiwer:     PyPI jiwer 4.0.0 (its default `cer`), oracle of tests/test_ned_jiwer.py
# Idempotent: a stamp per venv records what was installed.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY="${PYTHON:-python3}"
mkdir -p .build

oracle() {  # NAME PACKAGE==VERSION SMOKE-TEST
  local V=".build/venv-$1" want
  want="$(printf '%s\n' "$2" | sha256sum | cut -d' ' -f1)"
  if [ -x "$V/bin/python" ] && [ "$(cat "$V/installed.stamp" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  [ -x "$V/bin/python" ] || "$PY" -m venv "$V"
  "$V/bin/python" -m pip install -q "$2"
  "$V/bin/python" -c "$3"
  echo "[peer_oracles] $2 works"
  echo "$want" > "$V/installed.stamp"
}

oracle anls_star "anls_star==1.0.1" 'from anls_star import anls_score; assert anls_score(("hello",), "hello") == 1.0'
oracle jiwer "jiwer==4.0.0" 'import jiwer; assert jiwer.cer("ab", "ab") == 0.0'
