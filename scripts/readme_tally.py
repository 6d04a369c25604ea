"""Write (or check) the README's tally of distinct published values from the reproduction page's CSV.

Usage: .venv/bin/python scripts/readme_tally.py [--check]

Reads docs/reproduction/csv/tally.csv (written with the page by `simstudy reproduce`) and replaces the
block of README.md between its tally markers; --check exits 1 when the README differs instead.
"""

from __future__ import annotations

import sys
from pathlib import Path

from simstudy.outputs.tables import replace_block, tally_block

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    readme = ROOT / "README.md"
    text = readme.read_text()
    new = replace_block(text, tally_block(ROOT / "docs" / "reproduction" / "csv" / "tally.csv"))
    if "--check" in argv:
        if new != text:
            print("README.md: its tally differs from docs/reproduction/csv/tally.csv; run scripts/readme_tally.py")
            return 1
        return 0
    readme.write_text(new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
