"""Stage and publish the collection's Spaces on the Hugging Face Hub.

    python scripts/publish.py stage --org ORG [--only anls,ned] [--out .build/spaces]
    python scripts/publish.py push  --org ORG [--only anls,ned] [--private]     # needs HF_TOKEN and network

`stage` writes one folder per Space under OUT/ORG/: every metrics/<name>/ folder (the metric script,
its helpers, card, app.py, requirements.txt, packages.txt where the Space needs Debian packages) with
the card rewritten for the Space (`rewrite_card_text`: `evaluate.load("ORG/<name>")`, commands naming
repository files marked as such), plus the playground Space (`multimodal-metrics-playground`)
holding app.py and a copy of every metric folder under metrics/. Because OUT/ORG/<name>/<name>.py
exists, `evaluate.load("ORG/<name>")` run from OUT resolves to the staged copy: the tests load the
staged Spaces exactly that way.

`push` stages, then creates each Space (sdk gradio) and uploads the folder with huggingface_hub's
HfApi (evaluate-cli is broken with huggingface_hub >= 1.0).
"""

import argparse
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAYGROUND = "multimodal-metrics-playground"
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")


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
    r"`([^`\n]*(?:\bscripts/|\btests/|\bexamples/|\.build/|\bsetup\.cfg|\bmm-score\b)[^`\n]*)`(?!" + REPO_NOTE + ")"
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
    text = re.sub(r"\]\(\.\./([A-Za-z0-9_]+)/README\.md\)", rf"](https://huggingface.co/spaces/{org}/\1)", text)
    return REPO_ONLY.sub(lambda m: f"`{m.group(1)}`{REPO_NOTE}", text)


def _rewrite_card(card: Path, org: str, name: str) -> None:
    if not card.is_file():
        raise SystemExit(f"{card} is missing: every Space needs its card")
    card.write_text(rewrite_card_text(card.read_text(encoding="utf-8"), org, name), encoding="utf-8")


def stage(org: str, out: Path, only: str | None = None) -> list[Path]:
    """Write the Space folders; returns their paths (metric Spaces first, the playground last)."""
    base = out / org
    staged = []
    names = metric_names(only)
    for name in names:
        target = base / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / "metrics" / name, target, ignore=SKIP)
        _rewrite_card(target / "README.md", org, name)
        staged.append(target)
    playground = base / PLAYGROUND
    if playground.exists():
        shutil.rmtree(playground)
    shutil.copytree(ROOT / "spaces" / "playground", playground, ignore=SKIP)
    for name in names:
        shutil.copytree(ROOT / "metrics" / name, playground / "metrics" / name, ignore=SKIP)
    staged.append(playground)
    return staged


def push(org: str, folders: list[Path], private: bool) -> None:
    from huggingface_hub import HfApi

    api = HfApi()
    for folder in folders:
        repo_id = f"{org}/{folder.name}"
        api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
        api.upload_folder(repo_id=repo_id, repo_type="space", folder_path=str(folder), commit_message="Publish from multimodal-metrics")
        print(f"pushed https://huggingface.co/spaces/{repo_id}")


def main() -> int:
    parser = argparse.ArgumentParser(description="Stage or push the collection's Spaces")
    parser.add_argument("command", choices=["stage", "push"])
    parser.add_argument("--org", required=True, help="Hub user or organisation that owns the Spaces")
    parser.add_argument("--only", default=None, help="comma-separated metric names (default: all)")
    parser.add_argument("--out", default=str(ROOT / ".build" / "spaces"))
    parser.add_argument("--private", action="store_true")
    args = parser.parse_args()
    folders = stage(args.org, Path(args.out), args.only)
    for folder in folders:
        print(f"staged {folder}")
    if args.command == "push":
        push(args.org, folders, args.private)
    return 0


if __name__ == "__main__":
    sys.exit(main())
