#!/usr/bin/env bash
# Separate venv for PyPI `anls_star` 1.0.1 (ANLS*), the oracle of tests/test_anls_star.py: the peer's own code runs in a subprocess on the test's generated inputs
# (never imported by the library or the main venv). Idempotent: a stamp records what was installed.
set -euo pipefail
cd "$(dirname "$0")/../../.."
V=.build/venv-anls_star
PY="${PYTHON:-python3}"
PKGS=("anls_star==1.0.1")
want="$(printf '%s\n' "${PKGS[@]}" | sha256sum | cut -d' ' -f1)"
stamp="$V/installed.stamp"
if [ -x "$V/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
mkdir -p .build
[ -x "$V/bin/python" ] || "$PY" -m venv "$V"
"$V/bin/python" -m pip install -q "${PKGS[@]}"
"$V/bin/python" - <<'PY'
from anls_star import anls_score
assert anls_score(("hello",), "hello") == 1.0
print("[anls_star_oracle] anls_star 1.0.1 works")
PY
echo "$want" > "$stamp"
