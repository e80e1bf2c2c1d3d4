#!/usr/bin/env bash
# Separate venv for the PyPI `codebleu` 0.7.0 package, used as an oracle by tests/test_codebleu.py and
# benchmarks/bench_codebleu.py (its pins clash with ours: it needs tree-sitter<0.23 and ABI-14 grammars).
# Idempotent: a stamp records what was installed. Never import it from the main venv.
set -euo pipefail
cd "$(dirname "$0")/../../.."
V=.build/venv-codebleu
PY="${PYTHON:-python3}"
PKGS=(
  "codebleu==0.7.0" "tree-sitter==0.22.3"
  "tree-sitter-python==0.21.0" "tree-sitter-java==0.21.0" "tree-sitter-javascript==0.21.4"
  "tree-sitter-c-sharp==0.21.3" "tree-sitter-php==0.22.8" "tree-sitter-c==0.21.4"
  "tree-sitter-cpp==0.22.3" "tree-sitter-go==0.21.1" "tree-sitter-ruby==0.21.0"
  "tree-sitter-rust==0.21.2"
)
want="$(printf '%s\n' "${PKGS[@]}" | sha256sum | cut -d' ' -f1)"
stamp="$V/installed.stamp"
if [ -x "$V/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
mkdir -p .build
[ -x "$V/bin/python" ] || "$PY" -m venv "$V"
"$V/bin/python" -m pip install -q "${PKGS[@]}"
"$V/bin/python" - <<'PY'
from codebleu import calc_codebleu
for lang in ["python", "java", "javascript", "c_sharp", "php", "c", "cpp", "go", "ruby", "rust"]:
    calc_codebleu(["x = 1;"], ["x = 1;"], lang)
print("[codebleu_oracle] codebleu 0.7.0 works for all 10 languages")
PY
echo "$want" > "$stamp"
