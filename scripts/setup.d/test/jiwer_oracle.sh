#!/usr/bin/env bash
# Separate venv for PyPI `jiwer` 4.0.0 (its default `cer`), the oracle of tests/test_ned_jiwer.py: the peer's own code runs in a subprocess on the test's generated inputs
# (never imported by the library or the main venv). Idempotent: a stamp records what was installed.
set -euo pipefail
cd "$(dirname "$0")/../../.."
V=.build/venv-jiwer
PY="${PYTHON:-python3}"
PKGS=("jiwer==4.0.0")
want="$(printf '%s\n' "${PKGS[@]}" | sha256sum | cut -d' ' -f1)"
stamp="$V/installed.stamp"
if [ -x "$V/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
mkdir -p .build
[ -x "$V/bin/python" ] || "$PY" -m venv "$V"
"$V/bin/python" -m pip install -q "${PKGS[@]}"
"$V/bin/python" - <<'PY'
import jiwer
assert jiwer.cer("ab", "ab") == 0.0
print("[jiwer_oracle] jiwer 4.0.0 works")
PY
echo "$want" > "$stamp"
