"""Build the tree-sitter runtime of 2020 that codebleu's ``grammar_library=`` option loads.

    python -m multimodal_metrics.codebleu.build_runtime             # into the per-user cache
    python -m multimodal_metrics.codebleu.build_runtime --dest DIR  # into DIR (the sdist is kept in DIR/dl)
    python -m multimodal_metrics.codebleu.build_runtime --where     # which runtime would be loaded, and why
    python -m multimodal_metrics.codebleu.build_runtime --no-grammars  # the runtime only
    python -m multimodal_metrics.codebleu.build_runtime --wheels    # also the grammar wheels' walker (`pypi`)

Besides the runtime it builds the 2020 grammars that codebleu's CodeXGLUE and Fusion Brain 2021 presets
score with by default (``grammar_library="2020"``), :func:`build_grammars`: ``npm pack`` of the pinned npm
tarballs tree-sitter-python 0.16.1 and tree-sitter-java 0.16.0 (sha256 checked; the registry tarball only,
no install scripts), whose ``src/parser.c`` and ``src/scanner.cc`` are compiled, like py-tree-sitter
0.2.0's ``Language.build_library``, into one ABI-11 library ``languages-npm-2020.so`` beside the runtime; and
(``--wheels``) codebleu's C walker for the grammar wheels of the `pypi` preset, :func:`build_wheels_walker`: ``wheels_walk.c``
(which includes ``legacy_walk.c``) in one unit with the C core of the PyPI sdist ``tree-sitter==0.26.1`` (the
release of the Python binding, whose parses the walker must reproduce; sha256 pinned), with the binding's own
compiler flags, into ``libcodebleu-wheels-0.26.1.so`` (see :mod:`multimodal_metrics.codebleu.wheels_runtime`).

What it does (:func:`build_runtime`): ``pip download`` of the pinned PyPI sdist ``tree_sitter==0.2.0``
(source only, no dependencies; or a local copy given with ``--sdist``), a check of its sha256 against the
one pinned here (a mismatch is an error; a downloaded file is then removed), then the C compiler (``$CC``, else
``cc``) builds the C core bundled in it (``tree_sitter/core/lib/src/lib.c``, the whole core in one unit) into
``libtree-sitter-0.2.0.so`` (``-Wl,-Bsymbolic`` keeps the core's calls inside itself when tree-sitter 0.26,
with the same symbol names, is loaded in the same process), in one unit with codebleu's tree walker
``legacy_walk.c`` (beside this file; see :mod:`multimodal_metrics.codebleu.legacy_walk`), which includes
``lib.c``. The default destination is
``${XDG_CACHE_HOME:-~/.cache}/multimodal_metrics/legacy_ts/``, where ``grammar_library=`` finds it from any
working directory (see :mod:`multimodal_metrics.codebleu.legacy_runtime` for the lookup order). Re-running
is cheap: a stamp beside the library records the sdist's hash, the walker source's hash and the compiler
command (a changed walker is rebuilt). The library is
written under a temporary name and renamed, so a reader never sees half a file.

Only the standard library is imported (pip and cc are run as commands).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

from ..digests import file_sha256
from .legacy_runtime import GRAMMAR_FILE, RUNTIME_FILE, cache_dir, runtime_candidates
from .wheels_runtime import WALKER_FILE, WALKER_TS_VERSION

SDIST_REQUIREMENT = "tree_sitter==0.2.0"
SDIST_FILE = "tree_sitter-0.2.0.tar.gz"
SDIST_SHA256 = "8dd2e44a335a4bdbeae4a3eb2edd2853db11cff50470248ead0420bbd3ec2018"
CORE = PurePosixPath("tree_sitter-0.2.0/tree_sitter/core/lib")  # inside the sdist
COMPILE_FLAGS = ("-O2", "-fPIC", "-std=c99")
LINK_FLAGS = ("-shared", "-Wl,-Bsymbolic")
STAMP_FILE = "runtime.stamp"
WALKER_SOURCE = Path(__file__).with_name("legacy_walk.c")  # compiled in one unit with lib.c
GRAMMAR_STAMP_FILE = "grammars.stamp"
# codebleu's C walker for the grammar wheels (wheels_walk.c, which includes legacy_walk.c), compiled with the C
# core of the tree-sitter release the Python binding bundles (wheels_runtime.WALKER_TS_VERSION), from its sdist
WHEELS_SDIST_REQUIREMENT = f"tree-sitter=={WALKER_TS_VERSION}"
WHEELS_SDIST_FILE = f"tree_sitter-{WALKER_TS_VERSION}.tar.gz"
WHEELS_SDIST_SHA256 = "9919cbaf02d17fa9a4cd0e6da496aecf901b758e6eacf122eee393e3ef08aacd"
WHEELS_CORE = PurePosixPath(f"tree_sitter-{WALKER_TS_VERSION}/tree_sitter/core/lib")
WHEELS_SOURCE = Path(__file__).with_name("wheels_walk.c")
# the binding's own flags (its setup.py), less its symbol hiding: the walker's functions are called by ctypes
WHEELS_COMPILE_FLAGS = ("-O2", "-fPIC", "-std=c11", "-D_POSIX_C_SOURCE=200112L", "-D_DEFAULT_SOURCE",
                        "-Werror=implicit-function-declaration")  # fmt: skip
WHEELS_STAMP_FILE = "wheels.stamp"
# npm tarballs of the 2020 grammars (file name, npm spec, sha256), as scripts/setup.d/codebleu_legacy_ts.sh pins them
NPM_GRAMMARS = (
    (
        "tree-sitter-python-0.16.1.tgz",
        "tree-sitter-python@0.16.1",
        "97b307c0b927d2928eab2ead184d16afe626be4f2feec73425ae00e193efc3a4",
    ),
    (
        "tree-sitter-java-0.16.0.tgz",
        "tree-sitter-java@0.16.0",
        "7d8ad9df5bf20173ba3b1998cb99f8ceb27fcac49270f513425d83cd2b8e1c1f",
    ),
)


class BuildError(RuntimeError):
    """The runtime could not be built (download, checksum, compiler); the message says which step."""


def _say(quiet: bool, message: str) -> None:
    if not quiet:
        print(f"[build_runtime] {message}", file=sys.stderr, flush=True)


def fetch_sdist(folder, python=None, quiet=False, pinned=None) -> Path:
    """``folder/tree_sitter-0.2.0.tar.gz`` with the pinned sha256: the copy already there, else ``pip
    download`` (``python -m pip``, default this interpreter) of the sdist, checked. ``pinned``: another
    (requirement, file name, sha256), e.g. the wheels walker's tree-sitter sdist."""
    requirement, name, digest = pinned or (SDIST_REQUIREMENT, SDIST_FILE, SDIST_SHA256)
    folder = Path(folder)
    path = folder / name
    if path.is_file() and file_sha256(path) == digest:
        return path
    folder.mkdir(parents=True, exist_ok=True)
    _say(quiet, f"pip download {requirement} (sdist) into {folder}")
    with tempfile.TemporaryDirectory(dir=folder, prefix=".download-") as tmp:
        command = [
            python or sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-binary",
            "tree_sitter",  # the sdist; its metadata is prepared with the setuptools wheel
            "--no-deps",
            requirement,
            "-d",
            tmp,
        ]
        done = subprocess.run(command, capture_output=True, text=True)
        got = Path(tmp) / name
        if done.returncode != 0 or not got.is_file():
            raise BuildError(
                f"`{' '.join(command)}` failed (exit {done.returncode}): {done.stderr.strip()[-1500:]}; "
                "download the sdist yourself and pass it with --sdist"
            )
        checked_sdist(got, pinned)
        os.replace(got, path)
    return path


def checked_sdist(path, pinned=None) -> Path:
    """``path`` when its sha256 is the pinned one (``pinned``: as :func:`fetch_sdist`); otherwise a BuildError
    (a downloaded file is removed by the caller's temporary folder)."""
    requirement, _, pinned_digest = pinned or (SDIST_REQUIREMENT, SDIST_FILE, SDIST_SHA256)
    path = Path(path)
    if not path.is_file():
        raise BuildError(f"no such sdist file: {str(path)!r}")
    digest = file_sha256(path)
    if digest != pinned_digest:
        raise BuildError(f"{path.name}: sha256 {digest} is not the pinned {pinned_digest} of {requirement}")
    return path


def _extract_core(sdist: Path, into: Path, core: PurePosixPath = CORE) -> Path:
    """The sdist's C core (``core``: its ``tree_sitter/core/lib``) extracted under ``into``: regular files and
    folders below that prefix only, no absolute paths, no ``..``, no links."""
    with tarfile.open(sdist, "r:gz") as archive:
        members = []
        for member in archive.getmembers():
            name = PurePosixPath(member.name)
            if name.is_absolute() or ".." in name.parts or not (member.isfile() or member.isdir()):
                continue
            if name == core or core in name.parents:
                members.append(member)
        if not any(PurePosixPath(m.name) == core / "src" / "lib.c" for m in members):
            raise BuildError(f"{sdist.name}: no {core}/src/lib.c inside")
        if hasattr(tarfile, "data_filter"):
            archive.extractall(into, members=members, filter="data")
        else:  # pragma: no cover (Python < 3.11.4; the members are checked above)
            archive.extractall(into, members=members)
    return into / core


def _stamp(cc: str) -> str:
    walker = file_sha256(WALKER_SOURCE) if WALKER_SOURCE.is_file() else "no-walker"
    return f"{SDIST_SHA256} walker:{walker} {cc} {' '.join(COMPILE_FLAGS)} {' '.join(LINK_FLAGS)}\n"


def _run(command, what: str, cwd=None) -> None:
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    if done.returncode != 0:
        raise BuildError(
            f"{what} failed (exit {done.returncode}): `{' '.join(command)}`\n{done.stderr.strip()[-2000:]}"
        )


def build_runtime(dest=None, *, sdist=None, cc=None, python=None, force=False, quiet=False) -> Path:
    """Build ``libtree-sitter-0.2.0.so`` into ``dest`` (default: ``legacy_runtime.cache_dir()``) and return
    its path. ``sdist``: a local ``tree_sitter-0.2.0.tar.gz`` (checked against the pinned sha256) instead
    of downloading one into ``dest/dl``; ``cc``: the C compiler (default ``$CC``, else ``cc``); ``python``:
    the interpreter whose pip downloads; ``force``: rebuild even when the stamp says it is built. Raises
    :class:`BuildError` with the failing step."""
    if dest is None:
        dest = cache_dir()
        if dest is None:
            raise BuildError(
                "no home directory (or a relative one) for the per-user cache: pass a destination (--dest)"
            )
    dest = Path(dest).absolute()  # the compiler runs inside the source folder
    target = dest / RUNTIME_FILE
    stamp_path = dest / STAMP_FILE
    cc = cc or os.environ.get("CC") or "cc"
    stamp = _stamp(cc)
    if not force and target.is_file() and stamp_path.is_file() and stamp_path.read_text() == stamp:
        _say(quiet, f"up to date: {target}")
        return target
    if shutil.which(cc) is None:
        raise BuildError(f"no C compiler {cc!r} on PATH (set CC, or install cc)")
    tarball = checked_sdist(sdist) if sdist is not None else fetch_sdist(dest / "dl", python, quiet)
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest, prefix=".build-") as tmp:
        tmp = Path(tmp)
        core = _extract_core(tarball, tmp / "src")
        obj, out = tmp / "lib.o", tmp / RUNTIME_FILE
        unit = "lib.c"
        if WALKER_SOURCE.is_file():  # the walker includes lib.c: one unit, the core's internals at hand
            unit = WALKER_SOURCE.name
            shutil.copyfile(WALKER_SOURCE, core / "src" / unit)
        _say(quiet, f"compiling the C core of {SDIST_FILE} with {cc}")
        # compiled from inside the source folder with relative paths: the paths the core's assert messages
        # hold do not depend on the destination, so every build of the same compiler is byte-identical
        _run(
            [cc, *COMPILE_FLAGS, "-I../include", "-I.", "-c", unit, "-o", str(obj)],
            f"compiling {unit}",
            cwd=core / "src",
        )
        _run([cc, *LINK_FLAGS, str(obj), "-o", str(out)], "linking the shared library")
        os.replace(out, target)
    stamp_path.write_text(stamp)
    _say(quiet, f"built {target}")
    return target


def _wheels_stamp(cc: str) -> str:
    sources = " ".join(file_sha256(p) for p in (WHEELS_SOURCE, WALKER_SOURCE))
    return f"{WHEELS_SDIST_SHA256} walker:{sources} {cc} {' '.join(WHEELS_COMPILE_FLAGS)} {' '.join(LINK_FLAGS)}\n"


def build_wheels_walker(dest=None, *, sdist=None, cc=None, python=None, force=False, quiet=False) -> Path:
    """Build codebleu's C walker for the grammar wheels, ``WALKER_FILE`` (``wheels_walk.c`` with ``legacy_walk.c``,
    compiled in one unit with the C core of the PyPI sdist tree-sitter==``WALKER_TS_VERSION``, sha256 pinned) into
    ``dest`` (default: the per-user cache), where :mod:`multimodal_metrics.codebleu.wheels_runtime` finds it; the
    `pypi` preset then walks in C (the same numbers as its Python path). Arguments as :func:`build_runtime`
    (``sdist``: a local ``tree_sitter-0.26.1.tar.gz``)."""
    if dest is None:
        dest = cache_dir()
        if dest is None:
            raise BuildError("no home directory for the per-user cache: pass a destination (--dest)")
    dest = Path(dest).absolute()
    target, stamp_path = dest / WALKER_FILE, dest / WHEELS_STAMP_FILE
    cc = cc or os.environ.get("CC") or "cc"
    stamp = _wheels_stamp(cc)
    if not force and target.is_file() and stamp_path.is_file() and stamp_path.read_text() == stamp:
        _say(quiet, f"up to date: {target}")
        return target
    if shutil.which(cc) is None:
        raise BuildError(f"no C compiler {cc!r} on PATH (set CC, or install cc)")
    pinned = (WHEELS_SDIST_REQUIREMENT, WHEELS_SDIST_FILE, WHEELS_SDIST_SHA256)
    tarball = (
        checked_sdist(sdist, pinned) if sdist is not None else fetch_sdist(dest / "dl", python, quiet, pinned)
    )
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest, prefix=".wheels-") as tmp:
        tmp = Path(tmp)
        src = _extract_core(tarball, tmp / "src", WHEELS_CORE) / "src"
        for source in (
            WHEELS_SOURCE,
            WALKER_SOURCE,
        ):  # wheels_walk.c includes legacy_walk.c, which includes lib.c
            shutil.copyfile(source, src / source.name)
        obj, out = tmp / "wheels.o", tmp / WALKER_FILE
        _say(quiet, f"compiling codebleu's walker with the C core of {WHEELS_SDIST_FILE} ({cc})")
        _run(
            [cc, *WHEELS_COMPILE_FLAGS, "-I../include", "-I.", "-c", WHEELS_SOURCE.name, "-o", str(obj)],
            f"compiling {WHEELS_SOURCE.name}",
            cwd=src,
        )
        _run([cc, *LINK_FLAGS, str(obj), "-o", str(out)], "linking the walker")
        os.replace(out, target)
    stamp_path.write_text(stamp)
    _say(quiet, f"built {target}")
    return target


def fetch_npm_grammar(folder, name: str, spec: str, digest: str, quiet=False) -> Path:
    """``folder/<name>`` with the pinned sha256: the copy already there, else ``npm pack <spec>`` (the
    registry tarball, no install scripts), checked."""
    folder = Path(folder)
    path = folder / name
    if path.is_file() and file_sha256(path) == digest:
        return path
    if shutil.which("npm") is None:
        raise BuildError(f"no npm on PATH to fetch {spec} (install npm, or put {name} in {folder})")
    folder.mkdir(parents=True, exist_ok=True)
    _say(quiet, f"npm pack {spec} into {folder}")
    with tempfile.TemporaryDirectory(dir=folder, prefix=".npm-") as tmp:
        _run(["npm", "pack", "--silent", spec], f"npm pack {spec}", cwd=tmp)
        got = Path(tmp) / name
        if not got.is_file():
            raise BuildError(f"npm pack {spec} did not write {name}")
        if file_sha256(got) != digest:
            raise BuildError(f"{name}: sha256 {file_sha256(got)} is not the pinned {digest}")
        os.replace(got, path)
    return path


def _extract_grammar_sources(tarball: Path, into: Path) -> list:
    """``package/src/parser.c`` (and ``scanner.c``/``scanner.cc``) of an npm grammar tarball, with the headers
    of ``package/src/tree_sitter``: regular files only, no absolute paths, no ``..``."""
    with tarfile.open(tarball, "r:gz") as archive:
        members = []
        for member in archive.getmembers():
            name = PurePosixPath(member.name)
            if name.is_absolute() or ".." in name.parts or not (member.isfile() or member.isdir()):
                continue
            if name.parts[:2] == ("package", "src"):
                members.append(member)
        if hasattr(tarfile, "data_filter"):
            archive.extractall(into, members=members, filter="data")
        else:  # pragma: no cover
            archive.extractall(into, members=members)
    src = into / "package" / "src"
    if not (src / "parser.c").is_file():
        raise BuildError(f"{tarball.name}: no package/src/parser.c inside")
    return [src / "parser.c"] + [src / n for n in ("scanner.c", "scanner.cc") if (src / n).is_file()]


def build_grammars(dest=None, *, cc=None, force=False, quiet=False) -> Path:
    """Build the 2020 grammar library ``languages-npm-2020.so`` (python and java, language ABI 11) into
    ``dest`` (default: the per-user cache) from the pinned npm tarballs (kept in ``dest/dl``)."""
    if dest is None:
        dest = cache_dir()
        if dest is None:
            raise BuildError("no home directory for the per-user cache: pass a destination (--dest)")
    dest = Path(dest).absolute()
    target = dest / GRAMMAR_FILE
    stamp_path = dest / GRAMMAR_STAMP_FILE
    cc = cc or os.environ.get("CC") or "cc"
    stamp = " ".join(d for _, _, d in NPM_GRAMMARS) + f" {cc}\n"
    if not force and target.is_file() and stamp_path.is_file() and stamp_path.read_text() == stamp:
        _say(quiet, f"up to date: {target}")
        return target
    if shutil.which(cc) is None:
        raise BuildError(f"no C compiler {cc!r} on PATH (set CC, or install cc)")
    tarballs = [fetch_npm_grammar(dest / "dl", *entry, quiet=quiet) for entry in NPM_GRAMMARS]
    with tempfile.TemporaryDirectory(dir=dest, prefix=".grammars-") as tmp:
        tmp = Path(tmp)
        objects = []
        for tarball in tarballs:
            folder = tmp / tarball.name.removesuffix(".tgz")
            for source in _extract_grammar_sources(tarball, folder):
                obj = folder / f"{source.name}.o"
                flags = ["-std=c99"] if source.suffix == ".c" else []
                _say(quiet, f"compiling {tarball.name}: {source.name}")
                _run(
                    [cc, "-O2", "-fPIC", *flags, "-I.", "-c", source.name, "-o", str(obj)],
                    f"compiling {source.name} of {tarball.name}",
                    cwd=source.parent,
                )
                objects.append(str(obj))
        out = tmp / GRAMMAR_FILE
        _run([cc, "-shared", *objects, "-lstdc++", "-o", str(out)], "linking the grammar library")
        os.replace(out, target)
    stamp_path.write_text(stamp)
    _say(quiet, f"built {target}")
    return target


def where() -> str:
    """The places ``grammar_library=`` looks for the runtime, in order, and which one it would load."""
    from .legacy_runtime import find_grammars, find_runtime

    lines = []
    for label, path in runtime_candidates():
        lines.append(f"{label:15} {path}  ({'found' if path.is_file() else 'missing'})")
    try:
        lines.append(f"loads: {find_runtime()}")
    except RuntimeError as err:
        lines.append(f"loads nothing: {err}")
    grammars = find_grammars()
    lines.append(
        f"2020 grammars (grammar_library='2020'): {grammars or 'not built: the presets fall back to the wheels'}"
    )
    from .wheels_runtime import candidates, walker

    found = walker()
    lines.append(
        "grammar wheels' walker: "
        + (
            str(found.path)
            if found
            else f"not used (looked for {', '.join(map(str, candidates()))}): the Python walk"
        )
    )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m multimodal_metrics.codebleu.build_runtime",
        description="Build the tree-sitter runtime of 2020 (the C core of the PyPI sdist tree_sitter==0.2.0) that "
        "codebleu's grammar_library= option loads; print its path.",
    )
    parser.add_argument(
        "--dest",
        metavar="DIR",
        help="destination folder (default: the per-user cache "
        f"{cache_dir() or '${XDG_CACHE_HOME:-~/.cache}/multimodal_metrics/legacy_ts'})",
    )
    parser.add_argument(
        "--sdist", metavar="FILE", help=f"a local {SDIST_FILE} instead of pip download (sha256 checked)"
    )
    parser.add_argument("--cc", help="C compiler (default: $CC, else cc)")
    parser.add_argument("--force", action="store_true", help="rebuild even if up to date")
    parser.add_argument("--quiet", action="store_true", help="print only the path")
    parser.add_argument(
        "--where", action="store_true", help="show where grammar_library= looks and what it loads"
    )
    parser.add_argument(
        "--no-grammars",
        action="store_true",
        help="build the runtime only, not the 2020 grammar "
        f"library {GRAMMAR_FILE} (npm tarballs; needs npm when they are not in DEST/dl)",
    )
    parser.add_argument(
        "--wheels",
        action="store_true",
        help=f"also build codebleu's C walker for the grammar wheels ({WALKER_FILE}: the `pypi` preset walks in C; "
        f"pip download of the {WHEELS_SDIST_REQUIREMENT} sdist when it is not in DEST/dl)",
    )
    parser.add_argument(
        "--wheels-sdist", metavar="FILE", help=f"a local {WHEELS_SDIST_FILE} (sha256 checked)"
    )
    args = parser.parse_args(argv)
    if args.where:
        print(where())
        return 0
    try:
        path = build_runtime(args.dest, sdist=args.sdist, cc=args.cc, force=args.force, quiet=args.quiet)
        grammars = (
            None
            if args.no_grammars
            else build_grammars(args.dest, cc=args.cc, force=args.force, quiet=args.quiet)
        )
        walker = (
            None
            if not args.wheels
            else build_wheels_walker(
                args.dest, sdist=args.wheels_sdist, cc=args.cc, force=args.force, quiet=args.quiet
            )
        )
    except BuildError as err:
        print(f"build_runtime: error: {err}", file=sys.stderr)
        return 1
    print(path)
    for built in (grammars, walker):
        if built is not None:
            print(built)
    return 0


if __name__ == "__main__":
    sys.exit(main())
