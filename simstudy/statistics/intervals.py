"""Summaries of stored rows: Monte Carlo intervals, rejection rates, replicability, verdicts of claims.

Studies compute none of these themselves; they call the functions here, so
every interval of every study is made one way per kind of quantity:

* a share of independent replications (a rejection rate, a share of
  significant replications): :func:`clopper_pearson` (exact) or :func:`wilson`;
* a mean over independent units (data sets whose experiments share their
  instances): :func:`mean_interval` and :func:`grouped_mean_interval`, with
  the t quantile (``method="t"``) or a fixed normal quantile (``method="normal"``);
* a standard deviation from ``b`` values: :func:`sd_interval` (chi-square);
* a claim checked from intervals: :func:`interval_verdict` (a difference is
  positive), :func:`limit_verdict` (every row within, or beyond, a limit) and
  :func:`combine_verdicts` (a claim made of several such parts).

Verdicts rest on interval ends, never on estimates alone, so a wider interval
never makes a claim hold: "holds" when every interval lies on the claimed
side, "does not hold" when one lies wholly on the other side, and otherwise
:data:`NOT_RESOLVED` below the study's published scale; at it (the run is as
large as the paper profile, see :func:`simstudy.outputs.published.reduced_scale`) an
interval that covers 0 means no effect was found (:data:`NO_EFFECT`) and one
that covers a limit means the data cannot tell (:data:`UNRESOLVED`).

Replication-probability summaries (per-group F, P and their intervals) are in
:mod:`simstudy.statistics.replication_summary`; the comparison with published numbers is in
:mod:`simstudy.outputs.tables`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import InputError
from simstudy.statistics.replicability import normalized, r2

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")
stats = lazy_module("scipy.stats")

__all__ = [
    "clopper_pearson",
    "wilson",
    "mean_interval",
    "grouped_mean_interval",
    "normal_interval",
    "grouped_half_width",
    "interval_quantile",
    "sd_interval",
    "interval_verdict",
    "limit_verdict",
    "combine_verdicts",
    "rejection_summary",
    "replicability_by_unit",
    "Z95",
    "HOLDS",
    "FAILS",
    "NOT_RESOLVED",
    "NO_EFFECT",
    "UNRESOLVED",
]

#: The normal quantile the Bouckaert summaries have always printed their intervals with.
Z95 = 1.96

#: A claim whose every interval lies on the claimed side.
HOLDS = "holds"
#: A claim with an interval wholly on the other side.
FAILS = "does not hold"
#: Neither, in a run smaller than the study's published scale: more replications may settle it.
NOT_RESOLVED = "not resolved at this scale"
#: Neither, at the published scale, for a claimed difference whose interval covers 0: no effect found.
NO_EFFECT = "no effect at the published scale"
#: Neither, at the published scale, for a claimed limit that an interval covers.
UNRESOLVED = "unresolved at the published scale"


def clopper_pearson(k, n, level: float = 0.95):
    """Exact binomial interval for k successes of n (vectorised); n = 0 gives (0, 1).

    The package's one Clopper-Pearson interval: the beta quantiles it is
    defined by, the same limits as ``scipy.stats.binomtest(k, n).proportion_ci(level, method="exact")``
    for a single count, on arrays.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    a = (1 - level) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(k > 0, stats.beta.ppf(a, k, n - k + 1), 0.0)
        hi = np.where(k < n, stats.beta.ppf(1 - a, k + 1, n - k), 1.0)
    return np.nan_to_num(lo, nan=0.0), np.nan_to_num(hi, nan=1.0)


def wilson(k, n, level: float = 0.95):
    """Share k/n with its Wilson score interval (sensible also at 0 and at n): (share, low, high)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    z = stats.norm.ppf(0.5 + level / 2)
    m = k / n
    centre = (m + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(m * (1 - m) / n + z * z / (4 * n * n))
    return m, np.maximum(centre - half, 0.0), np.minimum(centre + half, 1.0)


def mean_interval(x, axis: int = 0, *, level: float = 0.95, method: str = "t", z: float | None = None):
    """Mean over ``axis`` (the independent units) with its Monte Carlo interval: (mean, low, high).

    ``method="t"`` uses the t quantile with n - 1 degrees of freedom;
    ``"normal"`` uses ``z`` (default the normal quantile of ``level``).  With
    fewer than two units the interval is the mean itself.
    """
    x = np.asarray(x, dtype=float)
    n = x.shape[axis]
    m = x.mean(axis=axis)
    if n < 2:
        return m, m, m
    se = x.std(axis=axis, ddof=1) / np.sqrt(n)
    q = interval_quantile(n, level, method, z)
    return m, m - q * se, m + q * se


def interval_quantile(n, level: float = 0.95, method: str = "t", z: float | None = None):
    """The quantile that multiplies a standard error: t with max(n - 1, 1) degrees of freedom, or normal."""
    if method == "t":
        return stats.t.ppf(0.5 + level / 2, np.maximum(np.asarray(n) - 1, 1))
    if method == "normal":
        return stats.norm.ppf(0.5 + level / 2) if z is None else z
    raise InputError(f"method: 't' or 'normal', got {method!r}")


def grouped_half_width(grouped, *, level: float = 0.95, method: str = "t", z: float | None = None):
    """Per group of a pandas ``SeriesGroupBy``: the half-width of the mean's interval, and the number of units.

    A group of one unit has a zero-width interval; the t quantile has at least
    one degree of freedom.
    """
    sd, n = grouped.std(ddof=1), grouped.size()
    return interval_quantile(n, level, method, z) * sd.fillna(0.0) / np.sqrt(n), n


def grouped_mean_interval(grouped, *, level: float = 0.95, method: str = "t", z: float | None = None):
    """Per group of a pandas ``SeriesGroupBy``: mean, low, high and the number of units."""
    m = grouped.mean()
    half, n = grouped_half_width(grouped, level=level, method=method, z=z)
    return m, m - half, m + half, n


def normal_interval(mean, se, *, z: float = Z95, clip=(-np.inf, np.inf)):
    """``mean -+ z se``, clipped to ``clip``: (low, high).

    An undefined standard error (NaN, e.g. from a single unit) gives the widest
    interval ``clip`` allows.
    """
    lo, hi = np.asarray(mean - z * se, dtype=float), np.asarray(mean + z * se, dtype=float)
    lo = np.where(np.isnan(lo), clip[0], lo)
    hi = np.where(np.isnan(hi), clip[1], hi)
    lo, hi = np.clip(lo, *clip), np.clip(hi, *clip)
    return (lo[()], hi[()]) if lo.ndim == 0 else (lo, hi)


def sd_interval(s, b, level: float = 0.95):
    """Interval of a standard deviation ``s`` estimated from ``b`` normal values (chi-square): (low, high)."""
    if b < 2 or not np.isfinite(s):
        return np.nan, np.nan
    a = (1 - level) / 2
    return s * np.sqrt((b - 1) / stats.chi2.ppf(1 - a, b - 1)), s * np.sqrt((b - 1) / stats.chi2.ppf(a, b - 1))


def interval_verdict(low, high, *, published_scale: bool = False) -> str:
    """The verdict on a claim that a difference is positive, from its interval.

    Parameters
    ----------
    low, high : float
        The difference's interval (a missing end, NaN, is taken as unbounded).
    published_scale : bool
        Whether the run is at its study's published scale
        (``reduced_scale(study, run) is None``, :func:`simstudy.outputs.published.reduced_scale`).

    Returns
    -------
    str
        ``"holds"`` when ``low > 0``, ``"does not hold"`` when ``high < 0``;
        otherwise the interval covers 0: ``"no effect at the published scale"``
        at the published scale, ``"not resolved at this scale"`` below it.
    """
    if low > 0:
        return HOLDS
    if high < 0:
        return FAILS
    return NO_EFFECT if published_scale else NOT_RESOLVED


def limit_verdict(low, high, limit, *, at_most: bool = True, published_scale: bool = False) -> str:
    """The verdict on a claim that every row's value is at most (or at least) its limit, from the rows' intervals.

    With ``at_most`` (e.g. "the Type I error stays within alpha + 1%") the
    claim holds when every row's upper end is at or below its limit and does
    not hold when some row's lower end lies above it; with ``at_most=False``
    ("at least"), when every lower end is at or above the limit, and not when
    some upper end lies below it.  Only interval ends count, so an estimate
    on the right side with an interval reaching across the limit never makes
    the claim hold; a row without an interval (a NaN end) cannot hold.

    Parameters
    ----------
    low, high : float or array-like
        One interval per row.
    limit : float or array-like
        The limit, one for all rows or one per row.
    at_most : bool
        The claimed side: values at most the limit (True) or at least it (False).
    published_scale : bool
        Whether the run is at its study's published scale.

    Returns
    -------
    str
        ``"holds"``, ``"does not hold"``, or, when neither, ``"unresolved at
        the published scale"`` at the published scale and ``"not resolved at
        this scale"`` below it.
    """
    low, high, limit = np.broadcast_arrays(
        np.asarray(low, dtype=float), np.asarray(high, dtype=float), np.asarray(limit, dtype=float)
    )
    if low.size == 0:
        raise InputError("limit_verdict: no rows to judge")
    with np.errstate(invalid="ignore"):
        inside = high <= limit if at_most else low >= limit
        beyond = low > limit if at_most else high < limit
    if inside.all():
        return HOLDS
    if beyond.any():
        return FAILS
    return UNRESOLVED if published_scale else NOT_RESOLVED


def combine_verdicts(verdicts, *, published_scale: bool = False) -> str:
    """The verdict on a claim made of parts (every part must hold), from the parts' verdicts.

    ``"does not hold"`` when some part does not hold, ``"holds"`` when every
    part holds; otherwise not resolved at this scale below the published scale,
    and at it ``"no effect at the published scale"`` when every unsettled part
    is a difference without an effect, else ``"unresolved at the published scale"``.
    """
    verdicts = list(verdicts)
    if not verdicts:
        raise InputError("combine_verdicts: no verdicts to combine")
    if FAILS in verdicts:
        return FAILS
    if all(v == HOLDS for v in verdicts):
        return HOLDS
    if not published_scale:
        return NOT_RESOLVED
    return NO_EFFECT if all(v in (HOLDS, NO_EFFECT) for v in verdicts) else UNRESOLVED


def rejection_summary(
    rows: pd.DataFrame,
    by: list[str],
    *,
    decision: str = "decision",
    statistic: str | None = "statistic",
    level: float = 0.95,
) -> pd.DataFrame:
    """Per group: n, rejections (either direction, and each direction), rate, MC SE, interval.

    ``decision`` holds +1 / -1 / 0 per row (rows with an ``error`` are left out);
    the interval is Clopper-Pearson's (replications are independent).
    """
    g = rows.groupby(by, sort=False, dropna=False)
    dec = rows[decision]
    out = pd.DataFrame(
        {
            "n": g.size(),
            "rejections": (dec != 0).groupby([rows[b] for b in by], sort=False, dropna=False).sum(),
            "a_better": (dec > 0).groupby([rows[b] for b in by], sort=False, dropna=False).sum(),
            "b_better": (dec < 0).groupby([rows[b] for b in by], sort=False, dropna=False).sum(),
        }
    )
    out["rate"] = out["rejections"] / out["n"]
    out["mc_se"] = np.sqrt(out["rate"] * (1 - out["rate"]) / out["n"])
    out["low"], out["high"] = clopper_pearson(out["rejections"], out["n"], level)
    if statistic and statistic in rows:
        finite = rows[statistic].where(np.isfinite(rows[statistic]))
        out["mean_statistic"] = finite.groupby([rows[b] for b in by], sort=False, dropna=False).mean()
    return out.reset_index()


def replicability_by_unit(
    rows: pd.DataFrame,
    by: list[str],
    unit: str = "replication",
    *,
    order: str = "experiment",
    decision: str = "decision",
) -> pd.DataFrame:
    """R2 of the repeated experiments of each unit (data set): one row per group and unit.

    Columns: the ``by`` columns, ``unit``, ``r2`` and ``norm`` (normalised
    replicability 2 (R2 - 1/2), in percent).  Outcomes are three-valued (see
    :mod:`simstudy.statistics.replicability`).
    """
    per = (
        rows.sort_values(order)
        .groupby([*by, unit], sort=False)[decision]
        .agg(lambda d: float(r2(d.to_numpy())))
        .rename("r2")
        .reset_index()
    )
    per["norm"] = 100.0 * np.asarray(normalized(per["r2"]), dtype=float)
    return per
