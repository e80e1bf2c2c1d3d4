#!/usr/bin/env bash
# The local package index of the release rehearsal tests (tests/test_release_*.py, marker `release`): every
# distribution that their fresh venvs install, downloaded here once, so that the tests install from a local
# pypiserver without the network.
#   .build/wheelhouse/  the library's dependencies with the extras hf, ru, text, code and scipy (setup.cfg) at
#                       the versions of constraints.txt, as wheels for CPython 3.11 and 3.13 on this platform;
#                       setuptools and wheel (a build from the sdist, in pip's isolated build environment);
#                       the sdist tree_sitter==0.2.0 (codebleu's build_runtime downloads it with pip)
# Idempotent: a stamp holds the hash of setup.cfg, constraints.txt and this file.
set -euo pipefail
cd "$(dirname "$0")/../../.."
W=.build/wheelhouse
PIP=(.venv/bin/python -m pip)
[ -x .venv/bin/python ] || PIP=(python3 -m pip)
want="$(cat setup.cfg constraints.txt "$0" | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$W/installed.stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
mkdir -p "$W"
LOG="$W/download.log"
: > "$LOG"
reqs="$W/requirements.txt"
.venv/bin/python - > "$reqs" <<'PY'
import configparser
config = configparser.ConfigParser()
config.read("setup.cfg", encoding="utf-8")
sections = [config["options"]["install_requires"]]
sections += [config["options.extras_require"][extra] for extra in ("hf", "ru", "text", "code", "scipy")]
lines = {line.split("#")[0].strip() for text in sections for line in text.splitlines()}
print("\n".join(sorted(line for line in lines if line)))
print("setuptools>=68\nwheel")
PY
get() { "${PIP[@]}" download -q -d "$W" "$@" >>"$LOG" 2>&1 \
  || { grep -v "is ignored" "$LOG" | tail -20 >&2; echo "[wheelhouse] failed: pip download $*" >&2; exit 1; }; }
for version in 3.11 3.13; do
  get -c constraints.txt --only-binary=:all: --python-version "$version" -r "$reqs"
done
get --no-deps --no-binary tree_sitter "tree_sitter==0.2.0"  # not -c: the constraints pin tree-sitter 0.26
echo "[wheelhouse] $(ls "$W" | grep -c -E '\.(whl|tar\.gz)$') files in $W"
echo "$want" > "$W/installed.stamp"
