"""Build the library's sdist and wheel, stage the collection's Spaces, and publish them on the Hugging Face Hub.

    python scripts/publish.py build [--dist .build/dist]
    python scripts/publish.py stage --org ORG [--only anls,ned] [--out .build/spaces] [--pypi | --wheel WHL]
    python scripts/publish.py push  --org ORG [--only anls,ned] [--private] [--pypi | --wheel WHL]  # HF_TOKEN, network

Release order: every Space installs the library (`multimodal-metrics[<extras>]==<version>` in its
requirements.txt), so the library must be installable before a Space that needs it is pushed:

    1. upload the package to PyPI:
         python scripts/publish.py build      # .build/dist/: the sdist, and the wheel built from it
         python -m twine check .build/dist/multimodal_metrics-<version>*
         python -m twine upload .build/dist/multimodal_metrics-<version>*   # needs a PyPI token
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
Spaces with `--pypi`, after step 1). With `--pypi` the line stays the PyPI pin. The Hub is `HF_ENDPOINT`
when it is set (as huggingface_hub reads it), else https://huggingface.co.

The install command a user meets names the same source: the metric script's `# From:` comment (evaluate's
loader prints `pip install <that>` when the library is missing) and the install line that opens the card's
"How to Use" become `pip install "multimodal-metrics[<extras>] @ <the wheel's URL>"` (with `--pypi`:
`pip install "multimodal-metrics[<extras>]==<version>"`), the extras being those of the Space's library
line without the demo stack (`install_spec`).

`stage` writes one folder per Space under OUT/ORG/: every metrics/<name>/ folder (the thin evaluate
script, card, app.py, requirements.txt, packages.txt where the Space needs Debian packages) with the card
rewritten for the Space (`rewrite_card_text`: `evaluate.load("ORG/<name>")`, commands naming repository
files followed by a link to the source repository), plus the playground Space
(`multimodal-metrics-playground`): its app.py, card, requirements and packages, and under metrics/<name>/
each metric's script, app.py and card (the apps import `multimodal_metrics.demo` from the installed
library). Because OUT/ORG/<name>/<name>.py exists, `evaluate.load("ORG/<name>")` run from OUT resolves to
the staged copy.

`push` stages, then, for each Space, with huggingface_hub's HfApi (evaluate-cli is broken with
huggingface_hub >= 1.0): `create_repo(ORG/<name>, repo_type="space", space_sdk="gradio", exist_ok=True)`,
then `upload_folder(..., delete_patterns="*")`: one commit that makes the Space's files exactly the staged
folder (files the Space has and the stage lacks are deleted; the Hub's .gitattributes stays). Unchanged
files are not sent again, and a Space whose files all match gets no commit. A refusal of the Hub (a bad
token, an organisation the token cannot write to) stops the push with the Hub's message. Rehearse it
against scripts/hub_standin.py (the README's Publishing section).
"""

import argparse
import configparser
import os
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
# the install line of a card and the `# From:` comment of a metric script: `pip install "<spec>"`
INSTALL_LINE = re.compile(r'pip install "multimodal-metrics\[[a-z,]+\](?:==[^"\s]+| @ [^"\s]+)"')
FROM_COMMENT = re.compile(r'^(import multimodal_metrics  # From: )"[^"\n]*"$', re.M)
# the library line of a requirements.txt: `multimodal-metrics[extras]==version`
LIBRARY_LINE = re.compile(
    r"^multimodal[-_.]metrics(?:\[(?P<extras>[^\]]*)\])?\s*==\s*(?P<version>\S+)\s*$", re.I
)


def library_version() -> str:
    """The version of the checkout's library (src/multimodal_metrics/_version.py)."""
    text = (ROOT / "src" / "multimodal_metrics" / "_version.py").read_text(encoding="utf-8")
    return re.search(r"""__version__\s*=\s*["']([^"']+)["']""", text).group(1)


def source_url() -> str:
    """The source repository of the collection (setup.cfg's ``url``): the cards link it."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    return config["metadata"]["url"]


def hub_endpoint() -> str:
    """The Hub the Spaces go to: ``HF_ENDPOINT`` when set (huggingface_hub reads the same), else the Hub."""
    return os.environ.get("HF_ENDPOINT", HUB).rstrip("/")


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
        tree = _clean_tree(Path(tmp))
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


def build_release(dist: Path = DIST) -> tuple[Path, Path]:
    """``python -m build`` of the library into ``dist``: the sdist, then the wheel built from that sdist
    alone (what PyPI gets, and what pip builds from the sdist where no wheel fits); returns both paths.
    The build's own environment gets setuptools and wheel from pip's index (``PIP_INDEX_URL``)."""
    dist = Path(dist)
    dist.mkdir(parents=True, exist_ok=True)
    version = library_version()
    with tempfile.TemporaryDirectory(prefix="mm-release-") as tmp:
        tree = _clean_tree(Path(tmp))
        out = Path(tmp) / "dist"
        done = subprocess.run(
            [sys.executable, "-m", "build", "--outdir", str(out), str(tree)], capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(f"building the release failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        built = []
        for name in (f"multimodal_metrics-{version}.tar.gz", wheel_name(version)):
            if not (out / name).is_file():
                raise SystemExit(f"the build wrote {sorted(p.name for p in out.iterdir())}, not {name}")
            shutil.copy2(out / name, dist / name)
            built.append(dist / name)
    return built[0], built[1]


def _clean_tree(tmp: Path) -> Path:
    """A copy of the packaging files and src/ (no build/, egg-info or caches) to build from."""
    tree = tmp / "tree"
    tree.mkdir()
    for name in BUILD_FILES:
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, tree / name)
    shutil.copytree(
        ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    )
    return tree


def metric_names(only: str | None = None) -> list[str]:
    names = sorted(p.name for p in (ROOT / "metrics").iterdir() if (p / f"{p.name}.py").is_file())
    if only:
        wanted = set(only.split(","))
        unknown = wanted - set(names)
        if unknown:
            raise SystemExit(f"unknown metric(s): {sorted(unknown)}; known: {names}")
        names = [n for n in names if n in wanted]
    return names


# Inline code naming a file of the collection's repository (scripts, tests, examples, build outputs): a
# Space holds only the metric folder, so the staged card links the repository where such a command runs.
# (`mm-score`, the package's command line, runs wherever the package is installed.)
REPO_NOTE = f" in the [source repository]({source_url()})"
REPO_ONLY = re.compile(
    r"`([^`\n]*(?:\bscripts/|\bbenchmarks/|\btests/|\bexamples/|\.build/|\bsetup\.cfg)[^`\n]*)`(?!"
    + re.escape(REPO_NOTE)
    + ")"
)


def rewrite_card_text(text: str, org: str, name: str, *, install: str | None = None) -> str:
    """The card as the Space shows it: `evaluate.load("metrics/<name>")` becomes `evaluate.load("<org>/<name>")`
    (the repo-only alternative in a comment is dropped, not turned into the same call twice), the
    placeholder org becomes ORG, a link to another metric's card becomes that metric's Space, commands
    naming repository files link the source repository, and the install line becomes ``install``
    (``install_spec``; None: as it is)."""
    text = re.sub(rf"""[ \t]*# or evaluate\.load\((["'])metrics/{name}\1\) in the repo""", "", text)
    text = re.sub(rf"""(["'])metrics/{name}\1""", rf"\1{org}/{name}\1", text)
    text = re.sub(r"(?<![\w/.-])multimodal-metrics/", f"{org}/", text)  # not inside a URL
    # another metric's card (`../<other>/README.md` in the repo) is that metric's Space on the Hub
    text = re.sub(
        r"\]\(\.\./([A-Za-z0-9_]+)/README\.md\)", rf"](https://huggingface.co/spaces/{org}/\1)", text
    )
    if install is not None:
        text = rewrite_install_line(text, install, "card")
    return REPO_ONLY.sub(lambda m: f"`{m.group(1)}`{REPO_NOTE}", text)


def rewrite_install_line(text: str, spec: str, what: str) -> str:
    """``text`` with its one ``pip install "multimodal-metrics[...]..."`` line installing ``spec`` instead."""
    text, count = INSTALL_LINE.subn(f'pip install "{spec}"', text)
    if count != 1:
        raise SystemExit(
            f'the {what} needs exactly one `pip install "{PIP_NAME}[<extras>]==<version>"`, found {count}'
        )
    return text


def rewrite_from_comment(text: str, spec: str) -> str:
    """A metric script with the ``# From:`` comment of its library import naming ``spec``: evaluate's
    loader prints ``pip install <the comment>`` when the library is missing."""
    text, count = FROM_COMMENT.subn(rf'\1"{spec}"', text)
    if count != 1:
        raise SystemExit(
            f'a metric script needs one `import multimodal_metrics  # From: "<spec>"` line, found {count}'
        )
    return text


def space_extras(name: str) -> list[str]:
    """The extras a user of the metric's evaluate module needs: those of its Space's library line
    (metrics/<name>/requirements.txt) without the demo stack."""
    text = (ROOT / "metrics" / name / "requirements.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        match = LIBRARY_LINE.match(line.split("#")[0].strip())
        if match:
            return [
                e.strip() for e in (match["extras"] or "").split(",") if e.strip() and e.strip() != "demo"
            ]
    raise SystemExit(f"metrics/{name}/requirements.txt has no `{PIP_NAME}[...]==<version>` line")


def install_spec(name: str, source: str | None = None) -> str:
    """What ``pip install "<spec>"`` installs for metric ``name``: the library with the extras of
    ``space_extras``, pinned to this version (on PyPI), or from ``source`` (a wheel's URL)."""
    extras = f"{PIP_NAME}[{','.join(space_extras(name))}]"
    return f"{extras} @ {source}" if source else f"{extras}=={library_version()}"


def _rewrite_card(card: Path, org: str, name: str, install: str) -> None:
    if not card.is_file():
        raise SystemExit(f"{card} is missing: every Space needs its card")
    text = card.read_text(encoding="utf-8")
    card.write_text(rewrite_card_text(text, org, name, install=install), encoding="utf-8")


def _rewrite_install(folder: Path, name: str, spec: str) -> None:
    """The install line of a copied metric folder (its script's `# From:` and its card) naming ``spec``."""
    script, card = folder / f"{name}.py", folder / "README.md"
    script.write_text(rewrite_from_comment(script.read_text(encoding="utf-8"), spec), encoding="utf-8")
    card.write_text(
        rewrite_install_line(card.read_text(encoding="utf-8"), spec, f"{name} card"), encoding="utf-8"
    )


def wheel_url(org: str, space: str, wheel: str, endpoint: str | None = None) -> str:
    """Where the Hub (``endpoint``, default ``hub_endpoint()``) serves the wheel uploaded with the Space
    (a public Space)."""
    return f"{(endpoint or hub_endpoint()).rstrip('/')}/spaces/{org}/{space}/resolve/main/{wheel}"


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


def _point_at_wheel(folder: Path, wheel: Path | None, source: str | None) -> None:
    """Check the staged Space's library line; with a wheel, ship it in the Space and point the line at
    ``source``, the wheel's URL."""
    requirements = folder / "requirements.txt"
    if not requirements.is_file():
        raise SystemExit(f"{requirements} is missing: every Space installs the library from it")
    if wheel is not None:
        shutil.copy2(wheel, folder / wheel.name)
    text = requirements.read_text(encoding="utf-8")
    requirements.write_text(rewrite_requirements_text(text, source), encoding="utf-8")


def stage(
    org: str,
    out: Path,
    only: str | None = None,
    *,
    wheel: Path | None = None,
    pypi: bool = False,
    endpoint: str | None = None,
) -> list[Path]:
    """Write the Space folders; returns their paths (metric Spaces first, the playground last).

    ``pypi=True`` keeps the PyPI pin of the library; otherwise the Spaces carry ``wheel`` (built into
    .build/dist when not given) and install it from ``endpoint`` (the Hub's URL, default
    ``hub_endpoint()``; see the module's docstring)."""
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
        source = None if wheel is None else wheel_url(org, name, wheel.name, endpoint)
        _rewrite_card(target / "README.md", org, name, install_spec(name, source))
        script = target / f"{name}.py"
        script.write_text(
            rewrite_from_comment(script.read_text(encoding="utf-8"), install_spec(name, source)),
            encoding="utf-8",
        )
        _point_at_wheel(target, wheel, source)
        staged.append(target)
    playground = base / PLAYGROUND
    if playground.exists():
        shutil.rmtree(playground)
    shutil.copytree(ROOT / "spaces" / "playground", playground, ignore=SKIP)
    source = None if wheel is None else wheel_url(org, PLAYGROUND, wheel.name, endpoint)
    for name in names:
        shutil.copytree(ROOT / "metrics" / name, playground / "metrics" / name, ignore=PLAYGROUND_SKIP)
        _rewrite_install(playground / "metrics" / name, name, install_spec(name, source))
    _point_at_wheel(playground, wheel, source)
    staged.append(playground)
    return staged


def push(org: str, folders: list[Path], private: bool) -> None:
    """Create each Space (exist_ok) and make its files the staged folder in one commit (see the module's
    docstring); a refusal of the Hub ends the push with the Hub's message (SystemExit)."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    api = HfApi()
    for folder in folders:
        repo_id = f"{org}/{folder.name}"
        try:
            api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
            commit = api.upload_folder(
                repo_id=repo_id,
                repo_type="space",
                folder_path=str(folder),
                commit_message=f"Publish {PIP_NAME} {library_version()}",
                delete_patterns="*",
            )
        except (HfHubHTTPError, ValueError) as err:  # ValueError: the Hub refused the card's metadata
            raise SystemExit(f"publish.py push: {api.endpoint} refused {repo_id}:\n{err}") from None
        print(f"pushed {api.endpoint}/spaces/{repo_id} (commit {commit.oid})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Build the library's sdist and wheel, stage or push the collection's Spaces",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Release order:\n"
        "  1. upload the package to PyPI:  publish.py build, then\n"
        "     python -m twine upload .build/dist/multimodal_metrics-<version>*   (the sdist and the wheel)\n"
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
    parser.add_argument(
        "--dist", default=str(DIST), help="build: where the sdist and wheel go (default .build/dist)"
    )
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
        for path in build_release(Path(args.dist)):
            print(f"built {path}")
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
