"""Published numbers next to ours: the comparison reports of the reproductions.

A study declares its published values as :class:`Published` entries that say
where in its summary tables the matching number lives.  :func:`compare` looks
each one up in tables computed from stored rows, together with our Monte Carlo
interval (columns ``<column>_mc_low`` and ``<column>_mc_high``), so nothing
expected is ever copied into the output.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["Published", "compare", "markdown_table", "comparison_markdown"]


@dataclass(frozen=True)
class Published:
    """One published number and where its counterpart is in our tables.

    Attributes
    ----------
    label : str
        What the number is, as a reader of the paper would say it.
    table : str
        Name of our summary table.
    column : str
        Column of that table.
    value : float
        The published value.
    where : tuple of (column, value) pairs
        Selects the row (e.g. ``(("g", 3),)``); empty for one-row tables.
    source : str
        Where in the paper the number is printed.
    """

    label: str
    table: str
    column: str
    value: float
    where: tuple = field(default_factory=tuple)
    source: str = ""


def _lookup(tables, item: Published):
    df = tables.get(item.table)
    if df is None or item.column not in df:
        return None
    mask = np.ones(len(df), dtype=bool)
    for col, val in item.where:
        if col not in df:
            return None
        mask &= df[col].to_numpy() == val
    if mask.sum() != 1:
        return None
    return df.loc[mask].iloc[0]


def compare(tables: dict[str, pd.DataFrame], published: list[Published]) -> pd.DataFrame:
    """A table with one row per published number: ours, our interval, the difference, inside or not.

    A published number whose group was not run (e.g. at a reduced profile) is
    listed with ``ours`` missing, so the shortfall stays visible.
    """
    rows = []
    for item in published:
        row = _lookup(tables, item)
        ours = low = high = np.nan
        if row is not None:
            ours = float(row[item.column])
            low = float(row.get(f"{item.column}_mc_low", np.nan))
            high = float(row.get(f"{item.column}_mc_high", np.nan))
        inside = None if np.isnan(low) else bool(low <= item.value <= high)
        rows.append({"quantity": item.label, "published": item.value, "ours": ours,
                     "mc_low": low, "mc_high": high, "difference": ours - item.value,
                     "published_inside": inside, "source": item.source})
    return pd.DataFrame(rows)


def _fmt(v, digits=4):
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "n/a"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "**no**"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        a = abs(float(v))
        if a != 0 and (a < 1e-3 or a >= 1e5):
            return f"{float(v):.3g}"
        return f"{float(v):.{digits}f}"
    return str(v)


def markdown_table(df: pd.DataFrame, digits: int = 4) -> str:
    """Render a DataFrame as a GitHub Markdown table (no extra dependency)."""
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    columns = [df[c].tolist() for c in cols]  # per column, so integer columns stay integers
    for values in zip(*columns):
        lines.append("| " + " | ".join(_fmt(v, digits) for v in values) + " |")
    return "\n".join(lines)


def comparison_markdown(title: str, comparison: pd.DataFrame, *, notes: str = "") -> str:
    """The comparison report: a summary line, the table, and the notes."""
    if comparison.empty:  # a study with nothing published to compare with
        return (f"# {title}\n\nThe paper publishes no numbers for this study that we could compare with; "
                "our tables follow.\n" + ("\n" + notes.strip() + "\n" if notes else ""))
    known = comparison["published_inside"].dropna()
    missing = int(comparison["ours"].isna().sum())
    view = comparison.assign(
        interval=[f"[{_fmt(a)}, {_fmt(b)}]" for a, b in zip(comparison.mc_low, comparison.mc_high)]
    )[["quantity", "published", "ours", "interval", "difference", "published_inside", "source"]]
    head = (f"# {title}\n\n{int(known.sum())} of {len(comparison)} published values lie inside our "
            f"95% Monte Carlo interval; {int((~known.astype(bool)).sum())} lie outside"
            + (f"; {missing} could not be computed at this profile" if missing else "") + ".\n")
    return head + "\n" + markdown_table(view) + ("\n\n" + notes.strip() + "\n" if notes else "\n")
