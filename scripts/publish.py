"""Build the library's wheel, stage the collection's Spaces, and publish them on the Hugging Face Hub.

    python scripts/publish.py build [--dist .build/dist]
    python scripts/publish.py stage --org ORG [--only anls,ned] [--out .build/spaces] [--pypi | --wheel WHL]
    python scripts/publish.py push  --org ORG [--only anls,ned] [--private] [--pypi | --wheel WHL]  # HF_TOKEN, network

Release order: every Space installs the library (`multimodal-metrics[<extras>]==<version>` in its
requirements.txt), so the library must be installable before a Space that needs it is pushed:

    1. upload the package to PyPI:
         python scripts/publish.py build                   # .build/dist/multimodal_metrics-<version>-py3-none-any.whl
         python -m twine upload .build/dist/multimodal_metrics-<version>-py3-none-any.whl   # needs a PyPI token
    2. push the Spaces, pinned to that release:
         python scripts/publish.py push --org ORG --pypi

Until step 1 is done, `stage` / `push` without `--pypi` ship the wheel inside each Space: they build it
(or take `--wheel`), copy it into every staged Space and the playground, and turn the library line of
the Space's requirements.txt into a direct reference with the same extras,

    multimodal-metrics[hf,demo] @ https://huggingface.co/spaces/ORG/<space>/resolve/main/multimodal_metrics-0.1.0-py3-none-any.whl

a URL, not `./multimodal_metrics-...whl`: the Hub's Gradio builder installs requirements.txt (mounted alone
as /tmp/requirements.txt) before it copies the Space's files, and pip reads a relative path from its
working directory, so a relative wheel path is not there when pip runs. The URL is the wheel uploaded with
the Space in the same commit; it needs a public Space (a private Space's files need a token: push private
Spaces with `--pypi`, after step 1). With `--pypi` the line stays the PyPI pin.

`stage` writes one folder per Space under OUT/ORG/: every metrics/<name>/ folder (the thin evaluate
script, card, app.py, requirements.txt, packages.txt where the Space needs Debian packages) with the card
rewritten for the Space (`rewrite_card_text`: `evaluate.load("ORG/<name>")`, commands naming repository
files marked as such), plus the playground Space (`multimodal-metrics-playground`): its app.py, card,
requirements and packages, and under metrics/<name>/ each metric's script, app.py and card (the apps
import `multimodal_metrics.demo` from the installed library; a metric folder not yet converted to the
library still carries its copied helpers, and they go along). Because OUT/ORG/<name>/<name>.py exists,
`evaluate.load("ORG/<name>")` run from OUT resolves to the staged copy: the tests load the staged Spaces
exactly that way.

`push` stages, then creates each Space (sdk gradio) and uploads the folder with huggingface_hub's HfApi
(evaluate-cli is broken with huggingface_hub >= 1.0).
"""

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / ".build" / "dist"
PLAYGROUND = "multimodal-metrics-playground"
PIP_NAME = "multimodal-metrics"
HUB = "https://huggingface.co"
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")
# what the playground takes from a metric folder: not the Space's own requirements / Debian packages
# (the playground's cover them)
PLAYGROUND_SKIP = shutil.ignore_patterns(
    "__pycache__", "*.pyc", ".ipynb_checkpoints", "requirements.txt", "packages.txt"
)
# the files of the checkout a wheel is built from (copied to a clean folder: no build/ or egg-info left
# in the checkout, no stale build/lib file in the wheel)
BUILD_FILES = ("setup.cfg", "pyproject.toml", "README.md", "LICENSE", "MANIFEST.in")
# the library line of a requirements.txt: `multimodal-metrics[extras]==version`
LIBRARY_LINE = re.compile(
    r"^multimodal[-_.]metrics(?:\[(?P<extras>[^\]]*)\])?\s*==\s*(?P<version>\S+)\s*$", re.I
)


def library_version() -> str:
    """The version of the checkout's library (src/multimodal_metrics/_version.py)."""
    text = (ROOT / "src" / "multimodal_metrics" / "_version.py").read_text(encoding="utf-8")
    return re.search(r"""__version__\s*=\s*["']([^"']+)["']""", text).group(1)


def wheel_name(version: str | None = None) -> str:
    return f"multimodal_metrics-{version or library_version()}-py3-none-any.whl"


def build_wheel(dist: Path = DIST) -> Path:
    """`python -m build --wheel` of the library into ``dist``; returns the wheel's path.

    Built from a clean copy of src/ and the packaging files, so the checkout gets no build/ folder and
    the wheel holds exactly the files of src/ (setuptools' build/lib would keep a deleted module)."""
    dist = Path(dist)
    dist.mkdir(parents=True, exist_ok=True)
    target = dist / wheel_name()
    with tempfile.TemporaryDirectory(prefix="mm-build-") as tmp:
        tree = Path(tmp) / "tree"
        tree.mkdir()
        for name in BUILD_FILES:
            if (ROOT / name).is_file():
                shutil.copy2(ROOT / name, tree / name)
        shutil.copytree(
            ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
        )
        out = Path(tmp) / "dist"
        cmd = [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(tree)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"building the wheel failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        built = out / target.name
        if not built.is_file():
            raise SystemExit(f"the build wrote {sorted(p.name for p in out.iterdir())}, not {target.name}")
        shutil.copy2(built, target)
    return target


def metric_names(only: str | None = None) -> list[str]:
    names = sorted(p.name for p in (ROOT / "metrics").iterdir() if (p / f"{p.name}.py").is_file())
    if only:
        wanted = set(only.split(","))
        unknown = wanted - set(names)
        if unknown:
            raise SystemExit(f"unknown metric(s): {sorted(unknown)}; known: {names}")
        names = [n for n in names if n in wanted]
    return names


# Inline code naming a file or command of the collection's repository (scripts, tests, examples, build
# outputs, the mm-score command line): a Space holds only the metric folder, so the staged card says
# where such a command runs.
REPO_NOTE = " in the collection's repository"
REPO_ONLY = re.compile(
    r"`([^`\n]*(?:\bscripts/|\bbenchmarks/|\btests/|\bexamples/|\.build/|\bsetup\.cfg|\bmm-score\b)[^`\n]*)`(?!"
    + REPO_NOTE
    + ")"
)


def rewrite_card_text(text: str, org: str, name: str) -> str:
    """The card as the Space shows it: `evaluate.load("metrics/<name>")` becomes `evaluate.load("<org>/<name>")`
    (the repo-only alternative in a comment is dropped, not turned into the same call twice), the
    placeholder org becomes ORG, a link to another metric's card becomes that metric's Space, and
    commands naming repository files say they run in the repository."""
    text = re.sub(rf"""[ \t]*# or evaluate\.load\((["'])metrics/{name}\1\) in the repo""", "", text)
    text = re.sub(rf"""(["'])metrics/{name}\1""", rf"\1{org}/{name}\1", text)
    text = text.replace("multimodal-metrics/", f"{org}/")
    # another metric's card (`../<other>/README.md` in the repo) is that metric's Space on the Hub
    text = re.sub(
        r"\]\(\.\./([A-Za-z0-9_]+)/README\.md\)", rf"](https://huggingface.co/spaces/{org}/\1)", text
    )
    return REPO_ONLY.sub(lambda m: f"`{m.group(1)}`{REPO_NOTE}", text)


def _rewrite_card(card: Path, org: str, name: str) -> None:
    if not card.is_file():
        raise SystemExit(f"{card} is missing: every Space needs its card")
    card.write_text(rewrite_card_text(card.read_text(encoding="utf-8"), org, name), encoding="utf-8")


def wheel_url(org: str, space: str, wheel: str) -> str:
    """Where the Hub serves the wheel uploaded with the Space (a public Space)."""
    return f"{HUB}/spaces/{org}/{space}/resolve/main/{wheel}"


def rewrite_requirements_text(text: str, source: str | None = None, *, version: str | None = None) -> str:
    """requirements.txt with its library line checked against the library's version and, given
    ``source`` (the wheel's URL or path), turned into ``multimodal-metrics[<extras>] @ <source>``
    (extras kept). Comments and the other lines are left as they are."""
    version = version or library_version()
    out, found = [], 0
    for line in text.splitlines(keepends=True):
        match = LIBRARY_LINE.match(line.split("#")[0].strip())
        if match:
            found += 1
            if match["version"] != version:
                raise SystemExit(f"requirements pin {PIP_NAME}=={match['version']}, the library is {version}")
            if source is not None:
                extras = match["extras"]
                line = f"{PIP_NAME}{f'[{extras}]' if extras else ''} @ {source}\n"
        out.append(line)
    if found != 1:
        raise SystemExit(
            f"requirements.txt needs exactly one `{PIP_NAME}[...]=={version}` line, found {found}"
        )
    return "".join(out)


def _point_at_wheel(folder: Path, org: str, wheel: Path | None) -> None:
    """Check the staged Space's library line; with a wheel, ship it in the Space and point the line at it."""
    requirements = folder / "requirements.txt"
    if not requirements.is_file():
        raise SystemExit(f"{requirements} is missing: every Space installs the library from it")
    source = None
    if wheel is not None:
        shutil.copy2(wheel, folder / wheel.name)
        source = wheel_url(org, folder.name, wheel.name)
    text = requirements.read_text(encoding="utf-8")
    requirements.write_text(rewrite_requirements_text(text, source), encoding="utf-8")


def stage(
    org: str, out: Path, only: str | None = None, *, wheel: Path | None = None, pypi: bool = False
) -> list[Path]:
    """Write the Space folders; returns their paths (metric Spaces first, the playground last).

    ``pypi=True`` keeps the PyPI pin of the library; otherwise the Spaces carry ``wheel`` (built into
    .build/dist when not given) and install it (see the module's docstring)."""
    if pypi and wheel is not None:
        raise SystemExit("--pypi and --wheel exclude each other")
    if not pypi:
        wheel = Path(wheel) if wheel is not None else build_wheel()
        if wheel.name != wheel_name():
            raise SystemExit(f"{wheel.name} is not the wheel of this checkout ({wheel_name()})")
        if not wheel.is_file():
            raise SystemExit(f"{wheel} does not exist: run `python scripts/publish.py build` first")
    base = Path(out) / org
    staged = []
    names = metric_names(only)
    for name in names:
        target = base / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / "metrics" / name, target, ignore=SKIP)
        _rewrite_card(target / "README.md", org, name)
        _point_at_wheel(target, org, wheel)
        staged.append(target)
    playground = base / PLAYGROUND
    if playground.exists():
        shutil.rmtree(playground)
    shutil.copytree(ROOT / "spaces" / "playground", playground, ignore=SKIP)
    for name in names:
        shutil.copytree(ROOT / "metrics" / name, playground / "metrics" / name, ignore=PLAYGROUND_SKIP)
    _point_at_wheel(playground, org, wheel)
    staged.append(playground)
    return staged


def push(org: str, folders: list[Path], private: bool) -> None:
    from huggingface_hub import HfApi

    api = HfApi()
    for folder in folders:
        repo_id = f"{org}/{folder.name}"
        api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
        api.upload_folder(
            repo_id=repo_id,
            repo_type="space",
            folder_path=str(folder),
            commit_message="Publish from multimodal-metrics",
        )
        print(f"pushed https://huggingface.co/spaces/{repo_id}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Build the library's wheel, stage or push the collection's Spaces",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Release order:\n"
        "  1. upload the package to PyPI:  publish.py build, then\n"
        "     python -m twine upload .build/dist/multimodal_metrics-<version>-py3-none-any.whl\n"
        "  2. push the Spaces:             publish.py push --org ORG --pypi\n"
        "Before 1., stage/push without --pypi ship the wheel inside each Space (public Spaces only):\n"
        "its requirements.txt installs it from the Space's own files on the Hub.",
    )
    parser.add_argument("command", choices=["build", "stage", "push"])
    parser.add_argument("--org", help="Hub user or organisation that owns the Spaces (stage, push)")
    parser.add_argument("--only", default=None, help="comma-separated metric names (default: all)")
    parser.add_argument(
        "--out", default=str(ROOT / ".build" / "spaces"), help="stage: where the Space folders go"
    )
    parser.add_argument("--dist", default=str(DIST), help="build: where the wheel goes (default .build/dist)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--pypi",
        action="store_true",
        help="keep the PyPI pin of the library (after step 1 of the release order)",
    )
    source.add_argument("--wheel", default=None, help="ship this built wheel instead of building one")
    parser.add_argument("--private", action="store_true", help="push: private Spaces (need --pypi)")
    args = parser.parse_args(argv)
    if args.command == "build":
        print(f"built {build_wheel(Path(args.dist))}")
        return 0
    if not args.org:
        parser.error(f"{args.command} needs --org")
    if args.private and not args.pypi:
        parser.error(
            "a private Space cannot download the wheel from its own files: publish the package (step 1), then --pypi"
        )
    wheel = Path(args.wheel) if args.wheel else (None if args.pypi else build_wheel(Path(args.dist)))
    folders = stage(args.org, Path(args.out), args.only, wheel=wheel, pypi=args.pypi)
    for folder in folders:
        print(f"staged {folder}")
    if args.command == "push":
        push(args.org, folders, args.private)
    return 0


if __name__ == "__main__":
    sys.exit(main())
