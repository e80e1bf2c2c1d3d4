"""Copy scripts/common/_mm_*.py into the metrics/<name>/ folders (byte for byte).

Each metric folder is a standalone Hub Space, so it carries its own copy of the shared conventions;
tests/test_conventions.py checks that no copy drifts from the canonical one.
`_mm_common.py`, `_mm_demo.py` and `_mm_stats.py` go into every folder; any other shared helper (e.g.
`_mm_wordnet.py`) only into the folders whose main script `<name>.py` imports it
(`from ._mm_wordnet import ...`), and a copy left in a folder that no longer imports it is removed.
    python scripts/sync_common.py          # write (and remove) the copies
    python scripts/sync_common.py --check  # exit 1 if a copy differs, is missing or is not used
"""

import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CANONICAL = sorted((ROOT / "scripts" / "common").glob("_mm_*.py"))
EVERY_FOLDER = ("_mm_common.py", "_mm_demo.py", "_mm_stats.py")


def metric_dirs() -> list[Path]:
    return sorted(p for p in (ROOT / "metrics").iterdir() if (p / f"{p.name}.py").is_file())


def wanted(folder: Path) -> list[Path]:
    """The canonical helpers ``folder`` must hold: those of every folder, and those its main script imports."""
    script = (folder / f"{folder.name}.py").read_text(encoding="utf-8")
    imported = set(re.findall(r"^from \.(_mm_\w+) import", script, re.M))
    return [c for c in CANONICAL if c.name in EVERY_FOLDER or c.stem in imported]


def main() -> int:
    check = "--check" in sys.argv
    stale, unused = [], []
    for folder in metric_dirs():
        needed = wanted(folder)
        for canonical in needed:
            copy = folder / canonical.name
            if copy.exists() and copy.read_bytes() == canonical.read_bytes():
                continue
            stale.append(copy)
            if not check:
                shutil.copyfile(canonical, copy)
        for canonical in CANONICAL:
            copy = folder / canonical.name
            if canonical not in needed and copy.exists():
                unused.append(copy)
                if not check:
                    copy.unlink()
    for path in stale:
        print(("stale: " if check else "updated: ") + str(path.relative_to(ROOT)))
    for path in unused:
        print(("not imported by the main script: " if check else "removed: ") + str(path.relative_to(ROOT)))
    return 1 if (check and (stale or unused)) else 0


if __name__ == "__main__":
    sys.exit(main())
