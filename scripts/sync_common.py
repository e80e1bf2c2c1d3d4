"""Copy scripts/common/_mm_*.py into every metrics/<name>/ folder (byte for byte).

Each metric folder is a standalone Hub Space, so it carries its own copy of the shared conventions;
tests/test_conventions.py checks that no copy drifts from the canonical one.
    python scripts/sync_common.py          # write the copies
    python scripts/sync_common.py --check  # exit 1 if a copy differs
"""

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CANONICAL = sorted((ROOT / "scripts" / "common").glob("_mm_*.py"))


def metric_dirs() -> list[Path]:
    return sorted(p for p in (ROOT / "metrics").iterdir() if (p / f"{p.name}.py").is_file())


def main() -> int:
    check = "--check" in sys.argv
    stale = []
    for folder in metric_dirs():
        for canonical in CANONICAL:
            copy = folder / canonical.name
            if copy.exists() and copy.read_bytes() == canonical.read_bytes():
                continue
            stale.append(copy)
            if not check:
                shutil.copyfile(canonical, copy)
    for path in stale:
        print(("stale: " if check else "updated: ") + str(path.relative_to(ROOT)))
    return 1 if (check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
