"""A section of an earlier reproduction page, carried onto a new page when its rows are not stored here.

A paper-profile run can take hours (Berrar's study 4 took 11.6 h on 2 cores);
a page written on a machine that does not hold it would otherwise lose the
section.  :func:`carried_section` reads the section from the earlier page
(its Markdown and ``csv/STUDY.csv``): the run's description line, the commit
that computed its rows, its figures and its compute row are kept as they were
printed, and its comparison is judged again by this page's rules
(:func:`simstudy.outputs.tables.compare`) from the numbers printed there
(ours and our interval, to 4 significant digits).  The section says so in its
first line.  Nothing that needs the rows (summary tables, figures drawn anew)
is made.
"""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

from simstudy._lazy import lazy_module

pd = lazy_module("pandas")

__all__ = ["carried_section", "carried_cross_row", "parse_cell"]

_CELL = re.compile(r"^\s*([^\s\[]+)\s*(?:\[([^,\]]+),\s*([^\]]+)\])?\s*$")


def parse_cell(text) -> tuple[float, float, float]:
    """``"0.1909 [0.1735, 0.2098]"`` -> ``(0.1909, 0.1735, 0.2098)``; a missing part is NaN."""

    def num(s):
        try:
            return float(s)
        except (TypeError, ValueError):
            return math.nan

    m = _CELL.match(str(text))
    if not m:
        return math.nan, math.nan, math.nan
    return num(m.group(1)), num(m.group(2)), num(m.group(3))


def _part(markdown: str, heading: str) -> str | None:
    """The text of the section under ``## heading`` (up to the next ``## ``), or None."""
    start = markdown.find(f"\n## {heading}\n")
    if start < 0:
        return None
    rest = markdown[start + len(heading) + 5 :]
    end = rest.find("\n## ")
    return rest if end < 0 else rest[:end]


def _table_rows(part: str) -> list[list[str]]:
    lines = [ln for ln in part.splitlines() if ln.startswith("|")]
    return [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines[2:]]


def _cells(st, frame: pd.DataFrame) -> dict:
    """Summary tables holding exactly the cells the study's published values point to, from the printed numbers."""
    printed = {}
    for _, r in frame.iterrows():
        label = str(r["Quantity"]).removeprefix("(alternative) ")
        printed[label] = parse_cell(f"{r['Ours']} {r['Our 95% MC interval']}".replace(" n/a", ""))
    rows: dict[tuple, dict] = {}
    for item in st.publication.values:
        if item.label not in printed:
            continue
        ours, low, high = printed[item.label]
        row = rows.setdefault((item.table, item.where), {col: val for col, val in item.where})
        row[item.column], row[f"{item.column}_mc_low"], row[f"{item.column}_mc_high"] = ours, low, high
    tables: dict[str, list] = {}
    for (table, _), row in rows.items():
        tables.setdefault(table, []).append(row)
    return {name: pd.DataFrame(rows) for name, rows in tables.items()}


def carried_section(st, previous: Path, out: Path) -> dict | None:
    """The study's section of the page in ``previous``, judged again; None when that page lacks it.

    Parameters
    ----------
    st : simstudy.engine.Study
    previous : pathlib.Path
        The folder of the earlier page (``report.md``, ``csv/``, ``figures/``).
    out : pathlib.Path
        The folder of the new page (figures are copied there when it differs).

    Returns
    -------
    dict or None
        The parts of a section (``meta``, ``made``, ``figures``, ``compute``,
        ``cmp`` and what :func:`simstudy.outputs.report.build_report` shows), with
        ``carried`` set to the sentence saying where it comes from.
    """
    from simstudy.outputs.published import reduced_scale  # noqa: F401  (the same rule, stated in words below)
    from simstudy.outputs.tables import compare

    page, table = previous / "report.md", previous / "csv" / f"{st.name}.csv"
    if not page.is_file():
        return None
    markdown = page.read_text(encoding="utf-8")
    part = _part(markdown, st.title)
    if part is None:
        return None
    meta = next((ln.strip("*") for ln in part.splitlines() if ln.startswith("*profile ")), None)
    if meta is None:
        return None
    profile = re.match(r"profile (\S+);", meta).group(1)
    commits = re.search(r"rows computed at commit (.+?) \(code fingerprint (\w+)\)", meta)
    stamp = re.search(r"written by commit (\w+)", markdown)
    made = {
        "commits": commits.group(1).split(" and ") if commits else ["unknown"],
        "code": commits.group(2) if commits else "not recorded",
        "changes": [
            "its rows are not stored where this page was written: the section is carried over from the page "
            f"written by commit {stamp.group(1) if stamp else 'unknown'}, its numbers as printed there"
        ],
    }
    figures = []
    for m in re.finditer(r"!\[[^\]]*\]\((figures/[^)]+)\)\n\n\*(.+?)\.\* (.*)", part):
        path, title, description = m.group(1), m.group(2), m.group(3)
        source, target = previous / path, out / path
        if source.is_file():
            if source.resolve() != target.resolve():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
                for side in (source.with_suffix(".json"), source.with_suffix(".pdf")):
                    if side.is_file():
                        shutil.copy2(side, target.with_suffix(side.suffix))
            figures.append((path, title, description))
    compute_part = _part(markdown, next((h for h in _headings(markdown) if h.startswith("Compute (")), "")) or ""
    compute = None
    for cells in _table_rows(compute_part):
        if cells and cells[0] == st.name:
            compute = {
                "study": st.name,
                "profile": cells[1],
                "replications": int(float(cells[2])),
                "compute seconds": int(float(cells[3])),
                "workers": int(float(cells[4])) if cells[4] not in ("", "n/a") else None,
                "commit": cells[5],
            }
    cmp = pd.DataFrame()
    if table.is_file() and st.publication.values:
        cmp = compare(_cells(st, pd.read_csv(table, dtype=str)), st.publication.values, reduced=profile != "paper")
    return {
        "carried": (
            f"Carried over from the page written by commit {stamp.group(1) if stamp else 'unknown'}: this study's "
            "rows are not stored where this page was written. Its numbers are those printed there (4 significant "
            "digits), judged again by this page's rules; its summary tables and figures are not redrawn."
        ),
        "profile": profile,
        "meta": meta,
        "made": made,
        "figures": figures,
        "compute": compute,
        "cmp": cmp,
    }


def _headings(markdown: str) -> list[str]:
    return [ln[3:] for ln in markdown.splitlines() if ln.startswith("## ")]


def carried_cross_row(previous: Path, heading: str, study: str, columns: list[str]) -> dict | None:
    """A study's row of a cross-study table as the earlier page printed it (``value [low, high]`` cells)."""
    page = previous / "report.md"
    if not page.is_file():
        return None
    markdown = page.read_text(encoding="utf-8")
    part = _part(markdown, heading)
    if part is None:
        return None
    lines = [ln for ln in part.splitlines() if ln.startswith("|")]
    # the table of our rows: the last one whose header starts with "Study"
    starts = [i for i, ln in enumerate(lines) if ln.startswith("| Study")]
    if not starts:
        return None
    header = [c.strip() for c in lines[starts[-1]].strip().strip("|").split("|")]
    for ln in lines[starts[-1] + 2 :]:
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        if cells and cells[0] == study:
            row = {"study": study, "group": cells[1]}
            for col in columns:
                name = next((h for h in header if h.split(" [")[0] == col), None)
                if name is None:
                    continue
                row[col], row[f"{col}_mc_low"], row[f"{col}_mc_high"] = parse_cell(cells[header.index(name)])
            if "Replications k" in header:
                row["k"] = int(float(cells[header.index("Replications k")]))
            return row
    return None
