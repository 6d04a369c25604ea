"""Published numbers next to ours, and the one table renderer every output uses.

A study declares its published values as :class:`Published` entries that say
where in its summary tables the matching number lives.  :func:`compare` looks
each one up in tables computed from stored rows, together with our Monte Carlo
interval (columns ``<column>_mc_low`` and ``<column>_mc_high``), so nothing
expected is ever copied into the output.

Every table the package prints (comparisons, summaries, the report, bench) goes
through :func:`table_cells`, rendered by :func:`markdown_table` or
:func:`html_table`, so the rules below hold everywhere:

* a missing value (NaN, None) reads ``n/a``;
* a number has at most :data:`DIGITS` significant digits, in plain notation
  from 0.0001 to 1,000,000 and in scientific notation outside; a published value
  is shown as the paper prints it, a difference to the decimals of the two
  numbers it compares (at most 4 significant digits);
* an interval is clipped to the values its quantity can take
  (:func:`possible_range`: shares and probabilities in [0, 1], differences of
  shares in [-1, 1], percentages in [0, 100], normalised replicability in
  [-100, 100], counts in [0, n]);
* a published value *agrees* with ours by the rules of
  :mod:`simstudy.outputs.agreement` (:data:`INSIDE_RULE`): an exact value when
  it matches as printed, a Monte Carlo estimate of known error when the
  interval of the difference holds 0, any other value when it lies inside our
  interval (ends as printed); an interval that cannot tell a difference that
  matters is uninformative (:data:`NO_VERDICT_RULE`);
* a run smaller than the study's published scale gives no verdict at all
  (:data:`REDUCED_RULE`): the comparison is shown for orientation only;
* text is left-aligned and numbers right-aligned, a ``|`` in a Markdown cell is
  escaped and every HTML cell is HTML-escaped.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import InputError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "README_MARKERS",
    "tally_block",
    "replace_block",
    "Published",
    "compare",
    "comparison_view",
    "verdict_line",
    "markdown_table",
    "html_table",
    "table_cells",
    "comparison_markdown",
    "format_number",
    "format_interval",
    "format_difference",
    "possible_range",
    "clip_interval",
    "is_inside",
    "verdict_of",
    "DIGITS",
    "NA",
    "INSIDE_RULE",
    "NO_VERDICT_RULE",
    "REDUCED_RULE",
    "TOO_FEW",
]

#: Significant digits of every number shown.
DIGITS = 4
#: Significant digits a published value may have (it is shown as the paper prints it, up to these).
PUBLISHED_DIGITS = 6
#: How a missing value reads.
NA = "n/a"
#: The agreement rule, as every output states it.
INSIDE_RULE = (
    "A published value agrees with ours in one of three ways: an exact value (ours the same in every "
    "replication) when ours, rounded as the paper prints it, is the published value, any other value being "
    "a miss; a published Monte Carlo estimate of known error (the paper's printed interval, or its number of "
    "replications) when the 95% interval of the difference, with both sides' error, holds 0 (counts out of a "
    "known number of trials as two proportions, Newcombe's interval); any other value when it lies inside our "
    "95% interval, both ends included and taken as printed (4 significant digits), the interval clipped to "
    "the values the quantity can take."
)
NO_VERDICT_RULE = (
    "An interval that covers every possible value, or one reaching farther from the published value than the "
    "smallest difference that matters for the quantity, is uninformative, never counted as agreeing. A value "
    "compared under several conventions is counted once, under the study's primary one; the others are shown "
    "beneath it, marked, and not counted."
)
REDUCED_RULE = (
    "Inside and outside are counted only for a run at the study's published scale (its paper "
    "profile); a smaller run has too few replications for a verdict and its comparison is shown "
    "for orientation only."
)
#: The flag of a run smaller than the published scale.
TOO_FEW = "too few replications for a verdict"


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
    bounds : (float, float), optional
        The values the quantity can take, to which our interval is clipped
        (default: :func:`possible_range` of ``column``).
    note : str, optional
        A short explanation shown beside the value (column ``Note`` of
        :func:`comparison_view`): e.g. the measured cause of a difference, or the
        search that found none.  Plain text; it states what was measured, not
        a verdict, which the interval gives.
    key : str, optional
        The distinct published value this row compares (default: the label).
        Rows of a study that share a key compare one printed number under
        several conventions; it is counted once, under the primary one.
    primary : bool
        False for an alternative convention: shown beneath the primary row,
        never counted (:func:`simstudy.outputs.agreement.tally`).
    replications : int, optional
        The published value is a Monte Carlo estimate over this many
        replications of the study's design (Berrar's 1000 per group): its own
        error then enters the comparison
        (:func:`simstudy.outputs.agreement.difference_interval`).
    half_width : float, optional
        The 95% half-width the paper prints beside the value (Bouckaert's Table 1).
    trials : int, optional
        The published value is a count out of this many trials (Bouckaert's
        Table 2: accepts out of 10 repetitions); ours is a count out of the
        row's ``n``, and the two are compared as proportions
        (:func:`simstudy.outputs.agreement.newcombe`).
    either : tuple of float, optional
        The paper prints one of these values without saying which (Table 2's
        dot: 0 or 10 accepts); the comparison agrees with either.
    resolution : float, optional
        The smallest difference that matters for the quantity: an interval that
        holds the published value but reaches farther than this on either side
        is uninformative.
    cause : str
        For a value that lies outside: ``"found"`` when the note gives a
        measured cause, ``"not found"`` when it says what was tried; empty when
        nothing was investigated.
    counted_in : str
        The value is printed again here but counted where it is named (a
        study's section, for the rows of a summary table that repeats it).
    """

    label: str
    table: str
    column: str
    value: float
    where: tuple = field(default_factory=tuple)
    source: str = ""
    bounds: tuple | None = None
    note: str = ""
    key: str = ""
    primary: bool = True
    replications: int | None = None
    half_width: float | None = None
    trials: int | None = None
    either: tuple = ()
    resolution: float | None = None
    cause: str = ""
    counted_in: str = ""

    def __post_init__(self):
        if self.cause not in ("", "found", "not found"):
            raise InputError(f"Published {self.label!r}: cause must be '', 'found' or 'not found', not {self.cause!r}")
        object.__setattr__(self, "either", tuple(float(v) for v in self.either))


# -- what a quantity can take -------------------------------------------------------------------------

_SHARE = (0.0, 1.0)
_PERCENT = (0.0, 100.0)
#: Possible range of a quantity by the name of its column (exact names first, then suffixes).
RANGES = {
    "F": _SHARE,
    "P": _SHARE,
    "p": _SHARE,
    "share_significant": _SHARE,
    "mad": _SHARE,
    "mad_s1": _SHARE,
    "mad_min": _SHARE,
    "mad_max": _SHARE,
    "mad_s1_min": _SHARE,
    "mad_s1_max": _SHARE,
    "P-F": (-1.0, 1.0),
    "type1": _PERCENT,
    "power2": _PERCENT,
    "power3": _PERCENT,
    "power4": _PERCENT,
    "r2": _PERCENT,
    "consistent": _PERCENT,
    "norm_r2": (-100.0, 100.0),
    "min_norm_r2": (-100.0, 100.0),
    "s_star": (0.0, math.inf),
}
_SUFFIX_RANGES = (("_P", _SHARE), ("_p", _SHARE), ("_norm_r2", (-100.0, 100.0)))
#: Counts whose range is [0, n], n read from the same row.
_COUNTS = ("accepts", "rejections", "a_better", "b_better")


def possible_range(column: str, row=None, bounds=None) -> tuple[float, float]:
    """The values a quantity can take, from its column name (and the row, for counts of ``n``).

    Parameters
    ----------
    column : str
        The summary-table column holding the quantity.
    row : mapping, optional
        The row it comes from (a count's range is ``[0, row["n"]]``).
    bounds : (float, float), optional
        Declared bounds, returned as they are.

    Returns
    -------
    (float, float)
        ``(-inf, inf)`` when nothing is known.
    """
    if bounds is not None:
        return float(bounds[0]), float(bounds[1])
    if column in RANGES:
        return RANGES[column]
    if column in _COUNTS and row is not None and "n" in row and _finite(row["n"]):
        return 0.0, float(row["n"])
    for suffix, rng in _SUFFIX_RANGES:
        if column.endswith(suffix):
            return rng
    return -math.inf, math.inf


def clip_interval(low, high, bounds=(-math.inf, math.inf)) -> tuple[float, float]:
    """``(low, high)`` clipped to ``bounds``; a missing end stays missing."""
    lo, hi = _float(low), _float(high)
    bounds = (float(bounds[0]), float(bounds[1]))
    if not math.isnan(lo):
        lo = min(max(lo, bounds[0]), bounds[1])
    if not math.isnan(hi):
        hi = min(max(hi, bounds[0]), bounds[1])
    return lo, hi


# -- numbers as text --------------------------------------------------------------------------------


def _float(v) -> float:
    if v is None:
        return math.nan
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _finite(v) -> bool:
    return math.isfinite(_float(v))


def _missing(v) -> bool:
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    return isinstance(v, (float, np.floating)) and math.isnan(v)


def format_number(v, digits: int = DIGITS, *, trailing_zeros: bool = True) -> str:
    """A number with at most ``digits`` significant digits; ``n/a`` when missing.

    Plain notation from 0.0001 up to 1,000,000, scientific outside; integers
    and whole floats (0, 1, 100) as integers, booleans as yes/no.  ``trailing_zeros=False``
    drops the zeros a rounded value ends with (how a published value is shown).

    Parameters
    ----------
    v : number, bool, None or str
        A string is returned unchanged.
    digits : int
    trailing_zeros : bool

    Returns
    -------
    str
    """
    if _missing(v):
        return NA
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, str):
        return v
    x = _float(v)
    if math.isnan(x):
        return NA
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    a = abs(x)
    if x == int(x) and a < 1e6:  # an exact whole number (0, 1, 100): no decimals to suggest a rounding
        return str(int(x))
    if a < 1e-4 or a >= 1e6:
        mantissa, exp = f"{x:.{digits - 1}e}".split("e")
        if not trailing_zeros and "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{exp}"
    mag = math.floor(math.log10(a))
    dec = max(0, digits - 1 - mag)
    text = f"{x:.{dec}f}"
    if dec > 0 and abs(float(text)) >= 10 ** (mag + 1):  # rounding carried into a new digit (0.99996 -> 1.000)
        text = f"{x:.{dec - 1}f}"
    if not trailing_zeros and "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _decimals(text: str) -> int | None:
    """Decimals of a number as printed; None for scientific notation or text."""
    if not re.fullmatch(r"[+-]?\d+(\.\d+)?", text):
        return None
    return len(text.split(".")[1]) if "." in text else 0


def format_difference(diff, a_text: str, b_text: str) -> str:
    """``diff`` with a sign, to as many decimals as the finer of the two printed numbers (at most 4 significant digits)."""
    if _missing(diff) or not _finite(diff):
        return NA
    dec = [_decimals(a_text), _decimals(b_text)]
    if None in dec:
        text = format_number(diff)
        return text if text.startswith("-") or text == "0" else "+" + text
    d = abs(float(diff))
    own = DIGITS - 1 - math.floor(math.log10(d)) if d > 0 else 0  # decimals of its own 4 significant digits
    text = f"{float(diff):.{max(0, min(max(dec), own))}f}"
    if float(text) == 0:
        return text.lstrip("-")
    return text if text.startswith("-") else "+" + text


def format_interval(low, high, bounds=(-math.inf, math.inf), digits: int = DIGITS) -> str:
    """``[low, high]`` clipped to ``bounds``, each end with ``digits`` significant digits; ``n/a`` if missing."""
    lo, hi = clip_interval(low, high, bounds)
    if math.isnan(lo) or math.isnan(hi):
        return NA
    return f"[{format_number(lo, digits)}, {format_number(hi, digits)}]"


def _as_printed(v, digits: int = DIGITS) -> float:
    text = format_number(v, digits)
    return float(text) if text not in (NA, "inf", "-inf") else _float(v)


def is_inside(value, low, high, digits: int = DIGITS) -> bool | None:
    """Whether ``low <= value <= high``, both ends included and taken as printed; None without an interval.

    Parameters
    ----------
    value : float
        The published value.
    low, high : float
        Our interval (already clipped to the possible range).
    digits : int
        Significant digits the ends are printed with.

    Returns
    -------
    bool or None
    """
    lo, hi, v = _float(low), _float(high), _float(value)
    if math.isnan(lo) or math.isnan(hi) or math.isnan(v):
        return None
    return bool(_as_printed(lo, digits) <= v <= _as_printed(hi, digits))


def verdict_of(
    value,
    ours,
    low,
    high,
    bounds=(-math.inf, math.inf),
    *,
    reduced: bool = False,
    item: Published | None = None,
    n=None,
    our_replications: int | None = None,
) -> tuple[str, str, float, float]:
    """The verdict on one published value, how it was reached, and the interval of the difference.

    The rules are those of :mod:`simstudy.outputs.agreement`: an exact value
    (our interval of zero width) agrees when it matches as printed; a
    published Monte Carlo estimate of known error agrees when the interval of
    the difference holds 0; any other value when it lies inside our interval.

    Parameters
    ----------
    value, ours : float
        The published value (NaN when ``item.either`` lists the candidates) and ours.
    low, high : float
        Our interval (clipped to ``bounds`` here).
    bounds : (float, float)
        The values the quantity can take.
    reduced : bool
        The run is smaller than the published scale: every row with an
        informative interval reads :data:`TOO_FEW`.
    item : Published, optional
        What is known of the published value's error (its ``replications``,
        ``half_width``, ``trials``, ``either`` and ``resolution``).
    n : float, optional
        The trials behind our count (the row's ``n``), for ``item.trials``.
    our_replications : int, optional
        Replications per condition behind our value.

    Returns
    -------
    (str, str, float, float)
        The verdict (``inside``, ``outside``, ``uninformative: ...``, ``not
        computed`` or :data:`TOO_FEW`), its basis (``exact``, ``difference``,
        ``counts`` or ``our interval``; empty without a verdict), and the
        95% interval of ours minus published (NaN where none is used).
    """
    from simstudy.outputs.agreement import difference_interval, matches_as_printed, newcombe

    nan = math.nan
    candidates = item.either if item is not None and item.either else (_float(value),)
    if _missing(ours) or math.isnan(_float(ours)):
        return "not computed", "", nan, nan
    ours = _float(ours)
    lo, hi = clip_interval(low, high, bounds)
    if math.isnan(lo) or math.isnan(hi):
        return "uninformative: no interval", "", nan, nan
    if format_number(lo) == format_number(hi):  # the same in every replication: an exact value
        verdict = "inside" if any(matches_as_printed(ours, c) for c in candidates) else "outside"
        return verdict, "exact", nan, nan
    if reduced:
        return TOO_FEW, "", nan, nan
    if math.isfinite(bounds[0]) and math.isfinite(bounds[1]) and lo <= bounds[0] and hi >= bounds[1]:
        return "uninformative: our interval covers every possible value", "", nan, nan
    results = []  # (agrees, basis, diff low, diff high, reach) for each candidate value
    for c in candidates:
        if item is not None and item.trials and n is not None and _finite(n) and float(n) > 0:
            _, dlo, dhi = newcombe(ours, float(n), c, item.trials)
            # shown in the units of the published count (accepts of 10)
            k = item.trials
            results.append((dlo <= 0 <= dhi, "counts", dlo * k, dhi * k, max(-dlo, dhi) * k))
            continue
        if item is not None and (item.half_width is not None or item.replications):
            _, dlo, dhi = difference_interval(
                ours,
                _float(low),
                _float(high),
                c,
                half_width=item.half_width,
                replications=item.replications,
                our_replications=our_replications,
            )
            results.append((dlo <= 0 <= dhi, "difference", dlo, dhi, max(-dlo, dhi)))
            continue
        results.append((bool(is_inside(c, lo, hi)), "our interval", nan, nan, max(c - lo, hi - c)))
    agreeing = [r for r in results if r[0]]
    best = agreeing[0] if agreeing else min(results, key=lambda r: abs(r[2] + r[3]) if math.isfinite(r[2]) else 0)
    agrees, basis, dlo, dhi, reach = best
    if agrees and item is not None and item.resolution is not None and reach > item.resolution:
        why = (
            f"uninformative: the interval reaches {format_number(reach)} from the published value, farther than "
            f"the {format_number(item.resolution)} that matters"
        )
        return why, basis, dlo, dhi
    return ("inside" if agrees else "outside"), basis, dlo, dhi


# -- the comparison ---------------------------------------------------------------------------------


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


#: The columns of :func:`compare`.
COMPARISON_COLUMNS = [
    "quantity",
    "published",
    "ours",
    "mc_low",
    "mc_high",
    "low_bound",
    "high_bound",
    "difference",
    "diff_low",
    "diff_high",
    "published_inside",
    "verdict",
    "basis",
    "key",
    "primary",
    "either",
    "cause",
    "counted_in",
    "source",
    "note",
]


def compare(
    tables: dict[str, pd.DataFrame],
    published: list[Published],
    *,
    reduced: bool = False,
    replications: int | None = None,
) -> pd.DataFrame:
    """A table with one row per published number: ours, our interval, the difference, the verdict.

    A published number whose group was not run (e.g. at a reduced profile) is
    listed with ``ours`` missing, so the shortfall stays visible.  Alternative
    conventions (:attr:`Published.primary` False) follow the primary row of
    their key.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The study's summary tables.
    published : list of Published
    reduced : bool
        The run is smaller than the study's published scale (:data:`REDUCED_RULE`).
    replications : int, optional
        Replications per condition behind our values (for a published value's
        own error, :attr:`Published.replications`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COMPARISON_COLUMNS`: ``quantity``, ``published``, ``ours``,
        ``mc_low``, ``mc_high`` (our interval as computed), ``low_bound``,
        ``high_bound`` (the values the quantity can take), ``difference`` (ours
        minus published), ``diff_low``, ``diff_high`` (its 95% interval with
        both sides' error, where used), ``published_inside`` (:func:`is_inside`
        on the clipped interval, None without one), ``verdict`` and ``basis``
        (:func:`verdict_of`), ``key``, ``primary``, ``either``, ``cause``,
        ``source`` and ``note``.
    """
    rows = []
    for item in published:
        row = _lookup(tables, item)
        ours = low = high = np.nan
        n = None
        bounds = possible_range(item.column, None, item.bounds)
        if row is not None:
            ours = float(row[item.column])
            low = float(row.get(f"{item.column}_mc_low", np.nan))
            high = float(row.get(f"{item.column}_mc_high", np.nan))
            bounds = possible_range(item.column, row, item.bounds)
            n = row.get("n")
        lo, hi = clip_interval(low, high, bounds)
        verdict, basis, dlo, dhi = verdict_of(
            item.value, ours, low, high, bounds, reduced=reduced, item=item, n=n, our_replications=replications
        )
        value = item.value if not item.either else np.nan
        rows.append(
            {
                "quantity": item.label,
                "published": value,
                "ours": ours,
                "mc_low": low,
                "mc_high": high,
                "low_bound": bounds[0],
                "high_bound": bounds[1],
                "difference": ours - value,
                "diff_low": dlo,
                "diff_high": dhi,
                "published_inside": is_inside(value, lo, hi) if not item.either else None,
                "verdict": verdict,
                "basis": basis,
                "key": item.key or item.label,
                "primary": bool(item.primary),
                "either": " or ".join(format_number(v) for v in item.either),
                "cause": item.cause,
                "counted_in": item.counted_in,
                "source": item.source,
                "note": item.note,
            }
        )
    out = pd.DataFrame(rows, columns=COMPARISON_COLUMNS)
    _convention_causes(out)
    if len(out):  # each alternative convention right beneath the primary row of its key
        first = {k: i for i, k in reversed(list(enumerate(out["key"])))}
        order = sorted(range(len(out)), key=lambda i: (first[out["key"].iloc[i]], not out["primary"].iloc[i], i))
        out = out.iloc[order].reset_index(drop=True)
    return out


def _convention_causes(cmp: pd.DataFrame) -> None:
    """A primary value outside whose alternative convention agrees has its cause: that convention.

    Where the study declares no cause, or one not found; the note names the
    agreeing row (shown beneath), so the reader sees the evidence.
    """
    if not len(cmp):
        return
    unfound = cmp["cause"].isin(["", "not found"])
    for i in np.flatnonzero((cmp["primary"] & (cmp["verdict"] == "outside") & unfound).to_numpy()):
        alt = cmp[(cmp["key"] == cmp.at[i, "key"]) & ~cmp["primary"] & (cmp["verdict"] == "inside")]
        if len(alt):
            cmp.at[i, "cause"] = "found"
            cmp.at[i, "note"] = (
                f"The published value agrees with another convention, shown beneath ({alt['quantity'].iloc[0]})."
            )


def _agreement_cell(r, reduced: bool):
    """The verdict column of one comparison row as shown."""
    verdict = getattr(r, "verdict", None) or ("inside" if r.published_inside else "outside")
    if verdict == "not computed":
        shown = None
    elif verdict.startswith("uninformative"):
        shown = verdict
    elif reduced or verdict == TOO_FEW:
        shown = NA if r.published_inside is None else ("yes" if r.published_inside else "no")
    else:
        shown = verdict == "inside"
        if getattr(r, "basis", "") == "exact":
            shown = "yes (exact match)" if shown else "**no** (exact value, differs)"
    text = shown if isinstance(shown, str) else (NA if shown is None else ("yes" if shown else "no"))
    if not bool(getattr(r, "primary", True)):
        return f"{text}; alternative convention, not counted"
    if getattr(r, "counted_in", ""):
        return f"{text}; counted in {r.counted_in}"
    return shown


def _difference_cell(r, ours: str, pub: str) -> str:
    diff = format_difference(r.difference, ours, pub)
    lo, hi = getattr(r, "diff_low", math.nan), getattr(r, "diff_high", math.nan)
    if _finite(lo) and _finite(hi) and diff != NA:
        return f"{diff} [{format_difference(lo, ours, pub)}, {format_difference(hi, ours, pub)}]"
    return diff


def comparison_view(comparison: pd.DataFrame, *, reduced: bool = False) -> pd.DataFrame:
    """The comparison as it is shown: formatted numbers, clipped intervals, the verdict in words.

    At full scale a row's verdict is yes, **no** (a miss), ``n/a`` (not
    computed) or says why it is uninformative; an exact value says so; an
    alternative convention says it is not counted.  The difference carries
    its 95% interval where the published value's own error is known.  At a
    reduced profile the column only says where the published value falls (for
    orientation, not a verdict).  When any published value has a note
    (:attr:`Published.note`), a column ``Note`` beside the verdict shows it,
    opened by "Cause:" or "Cause not found:" where the study declares one.
    """
    inside_header = "Agrees? (orientation only)" if reduced else "Agrees?"
    notes = [str(n) if isinstance(n, str) else "" for n in comparison.get("note", pd.Series([""] * len(comparison)))]
    with_notes = any(notes)
    with_diff_iv = "diff_low" in comparison and bool(np.isfinite(comparison["diff_low"].astype(float)).any())
    diff_header = "Ours - published [95% interval, both errors]" if with_diff_iv else "Ours - published"
    out = []
    said: dict[str, int] = {}  # a note already shown, and the row that shows it
    for r, note in zip(comparison.itertuples(index=False), notes):
        either = getattr(r, "either", "")
        pub = either if either else format_number(r.published, PUBLISHED_DIGITS, trailing_zeros=False)
        ours = format_number(r.ours)
        bounds = (getattr(r, "low_bound", -math.inf), getattr(r, "high_bound", math.inf))
        row = {
            "Quantity": r.quantity if bool(getattr(r, "primary", True)) else f"(alternative) {r.quantity}",
            "Published": pub,
            "Ours": ours,
            "Our 95% MC interval": format_interval(r.mc_low, r.mc_high, bounds),
            diff_header: NA if either else _difference_cell(r, ours, pub),
            inside_header: _agreement_cell(r, reduced),
        }
        if with_notes:
            cause = getattr(r, "cause", "")
            lead = {"found": "Cause: ", "not found": "Cause not found: "}.get(cause, "")
            verdict = str(getattr(r, "verdict", ""))
            if cause and (verdict == "inside" or verdict.startswith("uninformative")):
                note = ""  # a cause explains a miss: beside a value that agrees it says nothing
            elif note and note in said:
                note = f"{lead.strip() + ' ' if lead else ''}as in row {said[note]} above."
            elif note:
                said[note] = len(out) + 1
                note = lead + note if lead and not note.startswith(lead.strip()) else note
            row["Note"] = note
        row["Source"] = r.source
        out.append(row)
    columns = ["Quantity", "Published", "Ours", "Our 95% MC interval", diff_header, inside_header]
    return pd.DataFrame(out, columns=columns + (["Note"] if with_notes else []) + ["Source"])


def verdict_line(comparison: pd.DataFrame, *, reduced: str | None = None) -> str:
    """One sentence: the distinct published values in each category, or the flag of a reduced run.

    Parameters
    ----------
    comparison : pandas.DataFrame
        Made by :func:`compare`.
    reduced : str, optional
        Why the run is smaller than the published scale (e.g. "16 replications
        stored, 27300 at the paper profile"); then nothing is counted.
    """
    from simstudy.outputs.agreement import tally, tally_sentence

    cmp = comparison.copy()
    for col, default in (("primary", True), ("key", None), ("cause", ""), ("source", "")):
        if col not in cmp:
            cmp[col] = cmp["quantity"] if col == "key" else default
    if "verdict" not in cmp:
        cmp["verdict"] = [
            ("inside" if v else "outside") if v is not None else "not computed" for v in cmp["published_inside"]
        ]
    primary = cmp[cmp["primary"].astype(bool)].drop_duplicates("key")
    n = len(primary)
    alternatives = int((~cmp["primary"].astype(bool)).sum())
    also = (
        f" ({alternatives} row{'s' if alternatives != 1 else ''} beneath compare{'s' if alternatives == 1 else ''} an "
        "alternative convention and {} not counted)".format("is" if alternatives == 1 else "are")
        if alternatives
        else ""
    )
    if reduced:
        computed = int((primary["verdict"] != "not computed").sum())
        return (
            f"{TOO_FEW[0].upper()}{TOO_FEW[1:]} ({reduced}): agreement with the published values is judged "
            f"only at the published scale; {computed} of {n} distinct published values are computed at this "
            "profile and shown for orientation."
        )
    cmp["source"] = "all"  # one tally for the section
    row = tally(cmp).iloc[0]
    return tally_sentence(row)[0].upper() + tally_sentence(row)[1:] + also + "."


# -- the renderer -----------------------------------------------------------------------------------

#: Column headers for the names the summary tables use.
HEADERS = {
    "quantity": "Quantity",
    "published": "Published",
    "ours": "Ours",
    "interval": "Our 95% MC interval",
    "difference": "Ours - published",
    "published_inside": "Published inside?",
    "source": "Source",
    "study": "Study",
    "group": "Group",
    "k": "Replications k",
    "n": "n",
    "rejections": "Rejections",
    "a_better": "A better",
    "b_better": "B better",
    "rate": "Rejection rate",
    "mc_se": "MC s.e.",
    "mean_statistic": "Mean statistic",
    "condition": "Condition",
    "P-F": "P - F",
    "share_significant": "Share significant",
    "n_significant": "Significant",
    "s_star": "s*",
    "type1": "Type I error (%)",
    "power2": "Power, source 2 (%)",
    "power3": "Power, source 3 (%)",
    "power4": "Power, source 4 (%)",
    "min_norm_r2": "Min. normalised R2 (%)",
    "norm_r2": "Normalised R2 (%)",
    "n_datasets": "Data sets",
    "min_norm_r2_source": "Source of the min.",
    "mad": "Mean |P - F|",
}
#: Value columns shown with their interval in one cell: (value, low, high).
_INTERVAL_SUFFIXES = (("_mc_low", "_mc_high"),)
_PAIRED = (("rate", "low", "high"),)
_NUMERIC_TEXT = re.compile(r"(n/a|[+-]?(\d[\d.]*(e[+-]?\d+)?|inf))?( ?\[[^\]]*\])?%?")


def _header(name) -> str:
    """A column header in words: known names from :data:`HEADERS`, ``_`` as spaces, a leading word capitalised
    (a symbol such as ``q``, ``p`` or ``s*`` is left as it is)."""
    name = str(name)
    if name in HEADERS:
        return HEADERS[name]
    if "_" in name and " " not in name:
        name = name.replace("_", " ")
    first = re.match(r"[a-z]{2,}\b", name)
    return name[0].upper() + name[1:] if first else name


def _merge_intervals(df: pd.DataFrame) -> pd.DataFrame:
    """Each value column with ``<col>_mc_low``/``<col>_mc_high`` becomes one cell ``value [low, high]``."""
    cols = list(df.columns)
    triples = [
        (c, f"{c}{lo}", f"{c}{hi}")
        for c in cols
        for lo, hi in _INTERVAL_SUFFIXES
        if f"{c}{lo}" in df and f"{c}{hi}" in df
    ]
    triples += [t for t in _PAIRED if all(x in df for x in t)]
    if not triples:
        return df
    out = {}
    drop = {x for _, lo, hi in triples for x in (lo, hi)}
    merged = {c: (lo, hi) for c, lo, hi in triples}
    for c in cols:
        if c in drop:
            continue
        if c in merged:
            lo, hi = merged[c]
            vals = df[c].tolist()
            integral = _integral(df[c])
            cells = []
            for i, v in enumerate(vals):
                row = df.iloc[i]
                bounds = possible_range(str(c), row)
                text = str(int(v)) if integral and _finite(v) else format_number(v)
                iv = format_interval(row[lo], row[hi], bounds)
                cells.append(text if iv == NA else f"{text} {iv}")
            out[f"{_header(c)} [95% MC interval]"] = cells
        else:
            out[c] = df[c].tolist()
    return pd.DataFrame(out)


def _integral(series: pd.Series) -> bool:
    """A float column whose values are all whole numbers (or missing): shown as integers."""
    if not pd.api.types.is_float_dtype(series):
        return False
    vals = series.dropna().to_numpy()
    return len(vals) > 0 and bool(
        np.all(np.isfinite(vals)) and np.all(vals == np.round(vals)) and np.all(np.abs(vals) < 1e15)
    )


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def table_cells(df: pd.DataFrame, digits: int = DIGITS, *, merge_intervals: bool = True):
    """The cells of a table as every output shows them.

    Parameters
    ----------
    df : pandas.DataFrame
    digits : int
        Significant digits of the numbers.
    merge_intervals : bool
        Show ``<col>_mc_low`` and ``<col>_mc_high`` in the cell of ``<col>``,
        as ``value [low, high]`` clipped to the possible range.

    Returns
    -------
    (list of str, list of str, list of list)
        The headers, the alignment of each column (``"left"`` or ``"right"``)
        and the rows; a cell is a string, or a boolean (yes/no, "no" emphasised).
    """
    if merge_intervals:
        df = _merge_intervals(df)
    headers, aligns, columns = [], [], []
    for c in df.columns:
        series = df[c]
        values = series.tolist()
        present = [v for v in values if not _missing(v)]
        integral = _integral(series)
        cells = []
        for v in values:
            if isinstance(v, (bool, np.bool_)):
                cells.append(bool(v))
            elif integral and _finite(v):
                cells.append(str(int(v)))
            else:
                cells.append(format_number(v, digits) if not isinstance(v, str) else v)
        numeric = bool(present) and all(
            _is_number(v) or (isinstance(v, str) and _NUMERIC_TEXT.fullmatch(v)) for v in present
        )
        headers.append(_header(c))
        aligns.append("right" if numeric else "left")
        columns.append(cells)
    rows = [list(r) for r in zip(*columns)] if columns else []
    return headers, aligns, rows


def _md_escape(text: str) -> str:
    return str(text).replace("\r", " ").replace("\n", " ").replace("|", "\\|")


def markdown_table(df: pd.DataFrame, digits: int = DIGITS, *, merge_intervals: bool = True) -> str:
    """Render a DataFrame as a GitHub Markdown table (:func:`table_cells`; ``|`` in a cell escaped).

    Text columns are left-aligned, numbers right-aligned; a boolean reads yes
    or **no**.
    """
    headers, aligns, rows = table_cells(df, digits, merge_intervals=merge_intervals)
    if not headers:
        return ""
    lines = [
        "| " + " | ".join(_md_escape(h) for h in headers) + " |",
        "|" + "|".join(":---" if a == "left" else "---:" for a in aligns) + "|",
    ]
    for row in rows:
        cells = [("yes" if c else "**no**") if isinstance(c, bool) else _md_escape(c) for c in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def html_table(df: pd.DataFrame, digits: int = DIGITS, *, merge_intervals: bool = True) -> str:
    """Render a DataFrame as an HTML table (:func:`table_cells`; every cell HTML-escaped).

    Cells carry the class ``l`` (text, left) or ``r`` (numbers, right); a
    boolean reads yes or no, the latter with the class ``no``.
    """
    headers, aligns, rows = table_cells(df, digits, merge_intervals=merge_intervals)
    cls = ["l" if a == "left" else "r" for a in aligns]
    head = "".join(f'<th class="{c}">{html.escape(h)}</th>' for h, c in zip(headers, cls))
    body = []
    for row in rows:
        cells = []
        for v, c in zip(row, cls):
            if isinstance(v, bool):
                cells.append(f'<td class="{c}">yes</td>' if v else f'<td class="{c} no">no</td>')
            else:
                cells.append(f'<td class="{c}">{html.escape(str(v))}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>" + "\n".join(body) + "</tbody></table>"


def comparison_markdown(title: str, comparison: pd.DataFrame, *, notes: str = "", reduced: str | None = None) -> str:
    """The comparison report: a summary line, the table, the rules, and the notes.

    Parameters
    ----------
    title : str
    comparison : pandas.DataFrame
        Made by :func:`compare`.
    notes : str
        Markdown appended after the table.
    reduced : str, optional
        Why the run is smaller than the published scale (see :func:`verdict_line`).

    Returns
    -------
    str
    """
    if comparison.empty:  # a study with nothing published to compare with
        return (
            f"# {title}\n\nThe paper publishes no numbers for this study that we could compare with; "
            "our tables follow.\n" + ("\n" + notes.strip() + "\n" if notes else "")
        )
    head = f"# {title}\n\n{verdict_line(comparison, reduced=reduced)}\n"
    rules = f"\n\n{INSIDE_RULE} {NO_VERDICT_RULE} {REDUCED_RULE} Missing values read {NA}.\n"
    table = markdown_table(comparison_view(comparison, reduced=bool(reduced)), merge_intervals=False)
    return head + "\n" + table + rules + ("\n" + notes.strip() + "\n" if notes else "")


# -- the README's tally (written from the reproduction page's csv/tally.csv by scripts/readme_tally.py) ------

#: The markers between which the README carries the tally of the reproduction page.
README_MARKERS = ("<!-- tally of the reproduction page: begin -->", "<!-- tally of the reproduction page: end -->")


def tally_block(tally_csv) -> str:
    """The README's block between :data:`README_MARKERS`, made from the page's ``csv/tally.csv``.

    One Markdown table: per paper, its distinct published values and how many
    fall in each category (a category that no paper has is left out).
    """
    from simstudy.outputs.agreement import CATEGORIES

    frame = pd.read_csv(tally_csv)
    keep = [c for c in frame.columns if c not in CATEGORIES or frame[c].sum() > 0]
    return "\n".join([README_MARKERS[0], "", markdown_table(frame[keep]), "", README_MARKERS[1]])


def replace_block(text: str, block: str) -> str:
    """``text`` with the part between :data:`README_MARKERS` (markers included) replaced by ``block``."""
    start, end = text.index(README_MARKERS[0]), text.index(README_MARKERS[1]) + len(README_MARKERS[1])
    return text[:start] + block + text[end:]
