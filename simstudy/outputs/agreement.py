"""Whether a published value agrees with ours, counting the error on both sides.

A published number is one of three kinds, and each is compared its own way:

* **exact**: our value is the same in every replication (a p-value or a
  replication probability computed from a rounded count, an analytic value).
  It agrees when ours, rounded to the decimals the paper prints, is the
  published value; any other value is a miss, however small the difference.
* **a Monte Carlo estimate of the paper's own**, whose error is known: the
  paper prints a 95% interval (Bouckaert's Table 1), or the number of
  replications behind it (Berrar's 1000 per group, Bouckaert's 10 repetitions
  per data set).  It agrees when the 95% interval of the difference, ours
  minus published, with both standard errors, holds 0
  (:func:`difference_interval`); a count out of a known number of trials is
  compared as two binomial proportions (:func:`newcombe`).
* **a number of unknown error**: it agrees when it lies inside our 95% Monte
  Carlo interval, the ends taken as printed.

An interval that cannot tell a difference that matters is *uninformative*,
never "inside": one that covers every value the quantity can take, or one
wider on either side than the smallest difference that matters for the
quantity (:attr:`simstudy.outputs.tables.Published.resolution`).  A value
outside is a miss whatever the width.

The counts of a page (:func:`tally`) are of distinct published values: a value
compared under several conventions (ties counted as losses or left out, say)
is counted once, under the convention the study fixes as primary; the others
are shown beneath it and never counted.
"""

from __future__ import annotations

import math
import re

from simstudy._lazy import lazy_module

pd = lazy_module("pandas")

__all__ = [
    "Z95",
    "newcombe",
    "difference_interval",
    "matches_as_printed",
    "printed_decimals",
    "CATEGORIES",
    "category_of",
    "tally",
    "tally_sentence",
    "paper_of",
]

#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054

#: The categories a distinct published value falls in, in the order they are counted.
CATEGORIES = (
    "inside",
    "uninformative",
    "outside, cause found",
    "outside, cause not found",
    "outside, not investigated",
    "not computed",
)


def printed_decimals(value: float, digits: int = 6) -> int:
    """Decimals of a published value as the paper prints it (at most ``digits`` significant digits)."""
    text = f"{float(value):.{digits}g}"
    if "e" in text:
        mantissa, exp = text.split("e")
        dec = len(mantissa.split(".")[1]) if "." in mantissa else 0
        return max(0, dec - int(exp))
    return len(text.split(".")[1]) if "." in text else 0


def matches_as_printed(ours: float, published: float, decimals: int | None = None) -> bool:
    """Whether ``ours`` rounded to the decimals of ``published`` (as printed) is ``published``.

    >>> matches_as_printed(0.041389, 0.0414), matches_as_printed(0.1153, 0.0414)
    (True, False)
    """
    if not (math.isfinite(ours) and math.isfinite(published)):
        return False
    dec = printed_decimals(published) if decimals is None else decimals
    return round(float(ours), dec) == round(float(published), dec)


def _wilson(k: float, n: float, z: float) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(k_ours: float, n_ours: float, k_published: float, n_published: float, z: float = Z95):
    """95% interval of ``k_ours / n_ours - k_published / n_published`` (Newcombe's hybrid score interval).

    Both proportions are binomial counts (rejections out of replications, say);
    the interval is built from the two Wilson intervals, so a count of 0 or n
    still has an error (Newcombe 1998, method 10).

    Returns
    -------
    (float, float, float)
        The difference and its interval.

    >>> d, lo, hi = newcombe(0, 10, 9, 10)
    >>> round(d, 2), hi < 0
    (-0.9, True)
    """
    p1, p2 = k_ours / n_ours, k_published / n_published
    l1, u1 = _wilson(k_ours, n_ours, z)
    l2, u2 = _wilson(k_published, n_published, z)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def difference_interval(
    ours: float,
    low: float,
    high: float,
    published: float,
    *,
    half_width: float | None = None,
    replications: int | None = None,
    our_replications: int | None = None,
) -> tuple[float, float, float]:
    """95% interval of ours minus published, with the error of both.

    Our standard error is read from our 95% interval (its half-width over
    1.96).  The published one is the paper's printed 95% half-width over 1.96
    when given; else, when the published value is a Monte Carlo estimate over
    ``replications`` of the same design as ours (over ``our_replications``), our
    standard error scaled by ``sqrt(our_replications / replications)``.

    Returns
    -------
    (float, float, float)
        The difference and its interval; the interval is NaN when the published
        error is unknown (then only our interval is used, see the module).
    """
    d = float(ours) - float(published)
    se_ours = (float(high) - float(low)) / (2 * Z95)
    if half_width is not None:
        se_pub = float(half_width) / Z95
    elif replications:
        se_pub = se_ours * math.sqrt((our_replications or replications) / replications)
    else:
        return d, math.nan, math.nan
    half = Z95 * math.hypot(se_ours, se_pub)
    return d, d - half, d + half


def category_of(verdict: str, cause: str = "") -> str:
    """The tally category of one comparison row (:data:`CATEGORIES`)."""
    if verdict == "inside":
        return "inside"
    if verdict == "outside":
        return {"found": "outside, cause found", "not found": "outside, cause not found"}.get(
            cause, "outside, not investigated"
        )
    if verdict.startswith("uninformative"):
        return "uninformative"
    return "not computed"


_PAPER = re.compile(r"^(Berrar|Bouckaert and Frank 2004|Bouckaert 2004)")


def paper_of(source: str) -> str:
    """The paper a source names (``"Berrar, Sect. 3.1.1"`` -> ``"Berrar"``); the source itself when unknown."""
    m = _PAPER.match(str(source))
    return m.group(1) if m else str(source).split(",")[0].strip()


def tally(comparisons, *, by: str = "paper") -> pd.DataFrame:
    """How many distinct published values fall in each category (:data:`CATEGORIES`).

    Parameters
    ----------
    comparisons : pandas.DataFrame or list of pandas.DataFrame
        Made by :func:`simstudy.outputs.tables.compare`: rows of one or more
        studies (a column ``study`` when several).  Only primary rows are
        counted, each distinct ``key`` of a paper once (a value compared in two
        studies is counted in the first that fixes it as primary).
    by : str
        ``"paper"`` (one row per paper) or ``"study"``.

    Returns
    -------
    pandas.DataFrame
        One row per paper (or study): its name, ``distinct`` values and a column
        per category, and a last row ``all``.
    """
    frames = comparisons if isinstance(comparisons, list) else [comparisons]
    frames = [f for f in frames if f is not None and len(f)]
    columns = [by, "distinct", *CATEGORIES]
    if not frames:
        return pd.DataFrame(columns=columns)
    df = pd.concat(frames, ignore_index=True)
    df = df[df["primary"].astype(bool)].copy()
    if "counted_in" in df:
        df = df[df["counted_in"].fillna("").astype(str) == ""]
    df["paper"] = [paper_of(s) for s in df["source"]]
    df = df.drop_duplicates(subset=["paper", "key"], keep="first")
    df["category"] = [category_of(v, c) for v, c in zip(df["verdict"], df["cause"])]
    rows = []
    for name, part in df.groupby(by, sort=False):
        counts = part["category"].value_counts()
        rows.append({by: name, "distinct": len(part), **{c: int(counts.get(c, 0)) for c in CATEGORIES}})
    out = pd.DataFrame(rows, columns=columns)
    total = {by: "all", "distinct": int(out["distinct"].sum()), **{c: int(out[c].sum()) for c in CATEGORIES}}
    return pd.concat([out, pd.DataFrame([total])], ignore_index=True)


def tally_sentence(row) -> str:
    """One row of :func:`tally` in words: "16 distinct published values: 9 inside, ..."."""
    parts = [f"{int(row[c])} {c}" for c in CATEGORIES if int(row[c])]
    n = int(row["distinct"])
    return f"{n} distinct published value{'s' if n != 1 else ''}: " + (", ".join(parts) if parts else "none")
