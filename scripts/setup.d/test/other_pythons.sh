#!/usr/bin/env bash
# One venv per other CPython the library supports (3.12, 3.13), for tests/test_other_pythons.py: the same
# scores must come out bit for bit on every interpreter (CPython 3.12 changed the built-in sum() of floats).
#   .build/venv-py3.12, .build/venv-py3.13: the dependencies of the library and of each extra that installs
#   there (install_requires, then text, ru, code, hf, scipy one by one, at the versions of constraints.txt);
#   vision only from wheels already on this machine (pip --no-index: torch has no wheel for these
#   interpreters here, and a download would be gigabytes). The library itself is not installed: the test
#   runs the checkout's src/ (PYTHONPATH). <venv>/extras.txt lists the extras that installed.
# Interpreters: pyenv's ($PYENV_ROOT/versions/3.1x.*), else python3.1x on PATH; one that is missing is
# skipped (the test says so). Idempotent and quiet: a stamp per venv; pip's output goes to
# .build/other_pythons.log, shown when the core dependencies fail to install.
set -euo pipefail
cd "$(dirname "$0")/../../.."
RECIPE="deps of core text ru code hf scipy; vision --no-index"  # change it to rebuild the venvs
mkdir -p .build
LOG="$PWD/.build/other_pythons.log"

find_python() {  # VERSION -> path of a working interpreter, or nothing
  local v="$1" candidate
  for candidate in $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/python"$v" 2>/dev/null | sort -V -r) \
    "$(command -v "python$v" || true)"; do
    if [ -n "$candidate" ] && "$candidate" -c 'import sys, venv' >/dev/null 2>&1; then
      echo "$candidate"
      return 0
    fi
  done
}

requirements() {  # PYTHON GROUP -> the requirements of setup.cfg's install_requires ("core") or of an extra
  "$1" - "$2" <<'PY'
import configparser, sys

cfg = configparser.ConfigParser()
cfg.read("setup.cfg")
group = sys.argv[1]
text = cfg["options"]["install_requires"] if group == "core" else cfg["options.extras_require"][group]
print("\n".join(line.strip() for line in text.splitlines() if line.strip()))
PY
}

for version in 3.12 3.13; do
  python="$(find_python "$version")"
  if [ -z "$python" ]; then
    echo "[other_pythons] no Python $version found: tests/test_other_pythons.py will skip it"
    continue
  fi
  V=".build/venv-py$version"
  want="$( (cat setup.cfg constraints.txt; echo "$RECIPE"; "$python" -VV) | sha256sum | cut -d' ' -f1)"
  if [ -x "$V/bin/python" ] && [ "$(cat "$V/installed.stamp" 2>/dev/null)" = "$want" ]; then
    continue
  fi
  rm -rf "$V"
  "$python" -m venv "$V"
  : >"$V/extras.txt"
  mapfile -t core < <(requirements "$python" core)
  if ! "$V/bin/python" -m pip install -q -c constraints.txt "${core[@]}" >>"$LOG" 2>&1; then
    tail -30 "$LOG" >&2
    echo "[other_pythons] Python $version: the core dependencies did not install (full log: $LOG)" >&2
    exit 1
  fi
  echo core >>"$V/extras.txt"
  for extra in text ru code hf scipy vision; do
    mapfile -t reqs < <(requirements "$python" "$extra")
    local_only=()
    [ "$extra" = vision ] && local_only=(--no-index)
    if "$V/bin/python" -m pip install -q "${local_only[@]}" -c constraints.txt "${reqs[@]}" >>"$LOG" 2>&1; then
      echo "$extra" >>"$V/extras.txt"
    fi
  done
  echo "[other_pythons] Python $version: $(paste -sd, "$V/extras.txt") in $V"
  echo "$want" >"$V/installed.stamp"
done
