"""The README's tally of distinct published values is the reproduction page's, never typed by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from simstudy.outputs.tables import README_MARKERS, replace_block, tally_block

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reproduction"


def test_the_readme_tally_is_the_pages():
    text = (ROOT / "README.md").read_text()
    assert README_MARKERS[0] in text and README_MARKERS[1] in text
    block = tally_block(PAGE / "csv" / "tally.csv")
    assert replace_block(text, block) == text, "README.md's tally differs from the page's: run scripts/readme_tally.py"


def test_the_page_tally_is_the_one_in_its_csv():
    page = (PAGE / "report.md").read_text()
    section = page.split("## Tally of distinct published values", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| Paper")]
    csv = pd.read_csv(PAGE / "csv" / "tally.csv")
    assert [r.split("|")[1].strip() for r in rows] == csv["Paper"].astype(str).tolist()
    for line, (_, want) in zip(rows, csv.iterrows()):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert [int(c) for c in cells[1:]] == [int(v) for v in want.iloc[1:]]


def test_the_page_names_no_machine_local_path():
    for path in [PAGE / "report.md", *PAGE.glob("proving*/*.md")]:
        text = path.read_text()
        assert not re.search(r"(?<![\w.])/(work|home|tmp|root|Users)/", text), path


def _section(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[1].split(end, 1)[0]


def _decimals(text: str) -> set[str]:
    """The decimal numbers of a text (0.13, 45.6, 8.7), signs dropped: what a reader would check."""
    return set(re.findall(r"(?<![\w.])\d+\.\d+(?![\w.])", text))


def _unfound(quoted: set[str], page: str) -> list[str]:
    """The numbers of ``quoted`` that no number of ``page`` gives when rounded to as many decimals."""
    shown = _decimals(page)
    by = {}
    for n in shown:
        for d in range(0, len(n.split(".")[1]) + 1):
            by.setdefault(d, set()).add(f"{float(n):.{d}f}")
    return sorted(q for q in quoted if q not in by.get(len(q.split(".")[1]), set()))


def test_readme_numbers_about_results_are_on_the_pages():
    text = (ROOT / "README.md").read_text()
    status = _section(text, "## Status of the reproductions", "\n## ")
    assert not _unfound(_decimals(status), (PAGE / "report.md").read_text())
    proving = _section(text, "### A proving ground for tests", "\n### ")
    ground = (PAGE / "proving-ground" / "proving-ground.md").read_text()
    assert not _unfound(_decimals(proving), ground), "README's proving-ground numbers must be on its page"


def test_what_the_readme_says_of_table_2_is_the_pages():
    """README: with each run's own order of the cases no rank or t cell of Table 2 misses, and the printed sign
    rule explains all but one of the sign cells that miss."""
    text = " ".join((ROOT / "README.md").read_text().split())
    assert "no rank or t cell misses" in text and "explains all but one" in text
    rows = pd.read_csv(PAGE / "csv" / "bouckaert2.csv", dtype=str, keep_default_na=False)
    cells = rows[rows["Quantity"].str.contains("accepts of 10") & ~rows["Quantity"].str.startswith("(alternative)")]
    test = cells["Quantity"].str.extract(r": (sign|rank|t) ")[0]
    missed = cells[cells["Agrees?"] == "False"]
    assert not missed["Quantity"].str.contains(r": (?:rank|t) ").any()
    sign_missed = missed[test[missed.index] == "sign"]
    not_found = sign_missed["Note"].str.startswith("Cause not found")
    assert len(sign_missed) > 1 and int(not_found.sum()) == 1
