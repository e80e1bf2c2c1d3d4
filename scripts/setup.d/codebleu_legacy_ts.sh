#!/usr/bin/env bash
# The legacy tree-sitter runtime of 2020 for codebleu's `grammar_library=` option, and its test material.
# Builds under .build/legacy_ts/ (ignored by git), with the machine's cc, from registry packages only:
#   libtree-sitter-0.2.0.so   the C core bundled in the PyPI sdist tree_sitter==0.2.0 (core/lib/src/lib.c;
#                             accepts grammar ABI 9 to 12), loaded by multimodal_metrics.codebleu.legacy_runtime
#                             (ctypes); built by the library's own command (python -m
#                             multimodal_metrics.codebleu.build_runtime: pip download of the pinned sdist, sha256
#                             check, cc), here and into the per-user cache ${XDG_CACHE_HOME:-~/.cache}/
#                             multimodal_metrics/legacy_ts/, where grammar_library= finds it from any directory;
#                             codebleu's C tree walker (src/multimodal_metrics/codebleu/legacy_walk.c) is compiled
#                             in, and a change to it is rebuilt on the next run (the library's stamp holds its hash)
#   libcodebleu-wheels-0.26.1.so  codebleu's C walker for the grammar wheels (the `pypi` preset: wheels_walk.c with
#                             legacy_walk.c) in one unit with the C core of the PyPI sdist tree-sitter==0.26.1 (pinned
#                             sha256, kept in dl/), built by the same library command (--wheels), here and in the
#                             per-user cache
#   languages-npm-2020.so     an ABI-11 grammar library made like CodeXGLUE's parser/my-languages.so (one
#                             shared object exporting tree_sitter_python and tree_sitter_java), from the npm
#                             grammars tree-sitter-python 0.16.1 and tree-sitter-java 0.16.0 (MIT; test
#                             material: close to, but not, the commits inside the official library)
#   ../venv-ts020/            a separate venv with the sdist's own Python binding (same import name as
#                             tree-sitter 0.26, so never in the main venv) and codebleu 0.7.0 without
#                             dependencies: the oracle of tests/test_codebleu_legacy.py (tests/oracles/codebleu_codexglue.py)
# Idempotent and cheap to re-run: a stamp (hash of this file) guards the whole build.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=.build/legacy_ts
V=.build/venv-ts020
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null || PY=python3
CC="${CC:-cc}"
SDIST=tree_sitter-0.2.0.tar.gz  # its pinned sha256 is checked by the library command (build_runtime.SDIST_SHA256)
NPM_PKGS=("tree-sitter-python@0.16.1" "tree-sitter-java@0.16.0")
NPM_SHA=(
  "97b307c0b927d2928eab2ead184d16afe626be4f2feec73425ae00e193efc3a4  tree-sitter-python-0.16.1.tgz"
  "7d8ad9df5bf20173ba3b1998cb99f8ceb27fcac49270f513425d83cd2b8e1c1f  tree-sitter-java-0.16.0.tgz"
)
mkdir -p "$OUT"
LOG="$PWD/$OUT/build.log"
run() { "$@" >>"$LOG" 2>&1 || { tail -30 "$LOG" >&2; echo "[codebleu_legacy_ts] failed: $* (log: $LOG)" >&2; exit 1; }; }
# the library's command, from this checkout's src/ (idempotent: a stamp beside each runtime)
PIP_PY=.venv/bin/python; [ -x "$PIP_PY" ] || PIP_PY="$PY"
build_runtime() { env PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" CC="$CC" "$PIP_PY" -m multimodal_metrics.codebleu.build_runtime "$@"; }
want="$(sha256sum "$0" | cut -d' ' -f1)"
stamp="$OUT/built.stamp"
if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && [ -s "$OUT/libtree-sitter-0.2.0.so" ] \
  && [ -s "$OUT/languages-npm-2020.so" ] && [ -x "$V/bin/python" ]; then
  # the runtime here and in the per-user cache (which may have been cleared since), rebuilt from the sdist kept
  # here when the library's stamp differs (it holds the hash of the C walker compiled in, legacy_walk.c):
  # instant when up to date
  build_runtime --quiet --dest "$OUT" --no-grammars --wheels --sdist "$OUT/dl/$SDIST" >/dev/null 2>>"$LOG" \
    || { tail -30 "$LOG" >&2; echo "[codebleu_legacy_ts] failed: build_runtime (log: $LOG)" >&2; exit 1; }
  build_runtime --quiet --wheels --sdist "$OUT/dl/$SDIST" >/dev/null 2>>"$LOG" \
    || { tail -30 "$LOG" >&2; echo "[codebleu_legacy_ts] failed: build_runtime (log: $LOG)" >&2; exit 1; }
  exit 0
fi
mkdir -p "$OUT/dl" "$OUT/obj"
: > "$LOG"

# 1.+2. the runtime, by the library: the PyPI sdist downloaded into $OUT/dl (kept for step 4), its sha256
#    checked, lib.c (the whole core in one unit) compiled with -Wl,-Bsymbolic (its calls stay inside itself
#    even when tree-sitter 0.26, same symbol names, is loaded in the same process) into
#    $OUT/libtree-sitter-0.2.0.so; then the same into the per-user cache
run build_runtime --dest "$OUT" --no-grammars --wheels
run build_runtime --wheels --sdist "$OUT/dl/$SDIST"  # the runtime and the 2020 grammars, for the library from any directory
rm -rf "$OUT/src" && mkdir -p "$OUT/src"

# 3. the npm grammars of 2020 (npm pack: the registry tarball only, no install scripts, no tree-sitter-cli)
(cd "$OUT/dl" && for i in "${!NPM_PKGS[@]}"; do
  if ! echo "${NPM_SHA[$i]}" | sha256sum -c --status 2>/dev/null; then
    npm pack --silent "${NPM_PKGS[$i]}" >>"$LOG" 2>&1 || { tail -20 "$LOG" >&2; exit 1; }
    echo "${NPM_SHA[$i]}" | sha256sum -c --status || { echo "[codebleu_legacy_ts] ${NPM_PKGS[$i]}: sha256 mismatch" >&2; exit 1; }
  fi
done)
objs=()
for pkg in tree-sitter-python-0.16.1 tree-sitter-java-0.16.0; do
  rm -rf "$OUT/src/$pkg" && mkdir -p "$OUT/src/$pkg" && tar xzf "$OUT/dl/$pkg.tgz" -C "$OUT/src/$pkg"
  src="$OUT/src/$pkg/package/src"
  # like py-tree-sitter 0.2.0's Language.build_library: parser.c (-std=c99) + scanner.cc/.c, one .so
  run "$CC" -O2 -fPIC -std=c99 -I"$src" -c "$src/parser.c" -o "$OUT/obj/$pkg-parser.o"
  objs+=("$OUT/obj/$pkg-parser.o")
  for scanner in "$src/scanner.cc" "$src/scanner.c"; do
    [ -f "$scanner" ] || continue
    run "$CC" -O2 -fPIC -I"$src" -c "$scanner" -o "$OUT/obj/$pkg-scanner.o"
    objs+=("$OUT/obj/$pkg-scanner.o")
  done
done
run "$CC" -shared "${objs[@]}" -lstdc++ -o "$OUT/languages-npm-2020.so.tmp"
mv "$OUT/languages-npm-2020.so.tmp" "$OUT/languages-npm-2020.so"

# 4. the oracle venv: the sdist's own Python binding (builds on Python 3.11 with default pip)
[ -x "$V/bin/python" ] || run "$PY" -m venv "$V"
run "$V/bin/python" -m pip install -q "$OUT/dl/$SDIST"
# PyPI codebleu 0.7.0 without its dependencies: its copies of CodeXGLUE's DFG/utils/bleu modules (pure Python)
run "$V/bin/python" -m pip install -q --no-deps "codebleu==0.7.0"
"$V/bin/python" -I - "$OUT/languages-npm-2020.so" <<'PY'
import sys
from tree_sitter import Language, Parser
for name, code in (("python", b"x = 1\n"), ("java", b"class A { int x = 1; }")):
    parser = Parser()
    parser.set_language(Language(sys.argv[1], name))
    assert not parser.parse(code).root_node.has_error, name
print("[codebleu_legacy_ts] tree_sitter 0.2.0 binding parses python and java with the npm 2020 grammars")
PY
rm -rf "$OUT/obj"
echo "$want" > "$stamp"
