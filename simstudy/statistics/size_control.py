"""Size verdicts from simulated rejection rates, and the size-adjusted level of a test.

A test *controls size* on a null scenario when its Type I error there is at
most a declared tolerance; the tolerance defaults to Bradley's (1978) liberal
bound, 1.5 alpha.  From a Monte Carlo estimate the verdict is three-valued and
rests on an interval, never on the estimate alone:

* ``controls size``: the upper end of the interval is at most the tolerance;
* ``liberal``: otherwise, when the lower end lies above alpha;
* ``unresolved``: neither (more data sets are needed).

Two more labels are not verdicts on an interval but say why there is none:
``never rejects`` for a procedure that rejects on no data set at all, null or
alternative (zero rejections control size trivially: such a procedure is
neither counted as controlling size nor ranked), and ``declined`` for a
plug-in test that declined the design (:mod:`simstudy.pipeline.plugins`).

Only the upper end can make a test pass, so imprecision cannot: widening an
interval can turn "controls size" into "unresolved", never the reverse.  With
the tolerance equal to alpha the three regions are disjoint; with a tolerance
above alpha, a test shown above alpha but within the tolerance controls size
(the tables flag it as above alpha).

The intervals are simultaneous over the scenarios judged (Bonferroni: each at
level ``1 - (1 - level) / m`` for ``m`` scenarios), so a procedure judged on
many scenarios does not pass on the luck of the best one.  A procedure
controls size where every scenario does, is liberal where any scenario is, and
is unresolved otherwise.

The unit of a simulated rejection rate is the data set: a design repeated on
one data set gives correlated decisions.  :func:`rate_intervals` therefore
takes per data set the share of its repeats that reject, and gives a
Clopper-Pearson interval on an effective number of trials (Korn and Graubard
1998): the binomial sample size with the variance of the mean of those shares,
between the number of data sets and the number of decisions, shrunk by
``(z / t_{n-1})^2`` for few data sets.  When no data set (or every one)
rejects, the variance says nothing and the number of data sets is used, so a
handful of quiet data sets gives a wide interval, not a zero-width one.

:func:`critical_value` calibrates a test on null data: the threshold below
which its p-values reject at most the nominal share of the null decisions.
Power at that threshold (size-adjusted power) cannot be bought with excess
size: a test that is a monotone rescaling of another gets the same size-adjusted
power.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import InputError, option

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")
stats = lazy_module("scipy.stats")

__all__ = [
    "SizeRule",
    "VERDICTS",
    "CONTROLS",
    "LIBERAL",
    "UNRESOLVED",
    "NEVER_REJECTS",
    "DECLINED",
    "rate_intervals",
    "judge_scenarios",
    "procedure_verdict",
    "critical_value",
    "verdict_rank",
]

CONTROLS, LIBERAL, UNRESOLVED = "controls size", "liberal", "unresolved"
#: The verdicts, best first.
VERDICTS = (CONTROLS, UNRESOLVED, LIBERAL)
#: A procedure that rejects nowhere, and a plug-in that declined the design: no verdict, never ranked.
NEVER_REJECTS, DECLINED = "never rejects", "declined"


def verdict_rank(verdict: str) -> int:
    """0 for "controls size", 1 for "unresolved", 2 for "liberal", 3 for "never rejects", 4 for "declined"
    (for sorting)."""
    return (*VERDICTS, NEVER_REJECTS, DECLINED).index(verdict)


@dataclass(frozen=True)
class SizeRule:
    """How Type I errors are judged.

    Attributes
    ----------
    alpha : float
        The nominal level.
    tolerance : float or None
        The largest Type I error that still counts as controlling size; None:
        Bradley's liberal bound, 1.5 alpha.
    level : float
        Family-wise confidence of the intervals over the scenarios judged.
    """

    alpha: float = 0.05
    tolerance: float | None = None
    level: float = 0.95

    def __post_init__(self):
        if not 0.0 < self.alpha < 1.0:
            raise InputError(f"alpha: must lie strictly between 0 and 1, got {self.alpha!r}")
        if self.tolerance is not None and not self.alpha <= self.tolerance < 1.0:
            raise InputError(
                f"{option('tolerance')}: must lie in [alpha, 1) = [{self.alpha:g}, 1), got {self.tolerance!r}"
            )
        if not 0.5 <= self.level < 1.0:
            raise InputError(f"level: must lie in [0.5, 1), got {self.level!r}")

    @property
    def bound(self) -> float:
        """The tolerance in force (1.5 alpha unless declared)."""
        return 1.5 * self.alpha if self.tolerance is None else float(self.tolerance)

    def scenario_level(self, m: int) -> float:
        """Confidence of one of ``m`` simultaneous intervals (Bonferroni)."""
        return 1.0 - (1.0 - self.level) / max(int(m), 1)

    def verdict(self, low, high):
        """The verdict of each interval ``[low, high]`` of a Type I error (arrays give an object array)."""
        low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
        out = np.where(high <= self.bound, CONTROLS, np.where(low > self.alpha, LIBERAL, UNRESOLVED))
        out = np.where(np.isnan(low) | np.isnan(high), UNRESOLVED, out).astype(object)
        return out[()] if out.ndim == 0 else out

    def describe(self) -> str:
        """The rule in one sentence."""
        return (
            f"a procedure controls size on a null scenario when the upper end of its Type I error's interval is "
            f"at most {100 * self.bound:g}% (the tolerance"
            + (", Bradley's liberal bound 1.5 alpha" if self.tolerance is None else "")
            + f"), is liberal when the lower end lies above alpha = {100 * self.alpha:g}%, and is unresolved "
            f"otherwise; intervals are {100 * self.level:g}% simultaneous over the scenarios judged "
            "(Bonferroni); a procedure controls size only where every scenario does"
        )


def rate_intervals(shares, groups=None, *, n_repeats: int = 1, level=0.95):
    """Rejection rates with intervals that count data sets, per group.

    Parameters
    ----------
    shares : array_like, shape (n,)
        Per data set, the share of its ``n_repeats`` repeated decisions that reject.
    groups : array_like, shape (n,), optional
        Group label of every data set (e.g. its scenario); None: one group.
    n_repeats : int
        Decisions per data set.
    level : float or array_like
        Confidence of each group's interval (one value, or one per group in the
        order of the sorted group labels).

    Returns
    -------
    DataFrame
        One row per group (sorted by label): ``group``, ``n`` (data sets),
        ``rate``, ``low``, ``high``, ``n_eff`` (effective binomial trials).
    """
    x = np.asarray(shares, dtype=float)
    g = np.zeros(x.size, dtype=np.int64) if groups is None else np.asarray(groups)
    labels, inv = np.unique(g, return_inverse=True)
    n = np.bincount(inv, minlength=labels.size).astype(float)
    s1 = np.bincount(inv, weights=x, minlength=labels.size)
    s2 = np.bincount(inv, weights=x * x, minlength=labels.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = s1 / n
        var_unit = np.where(n > 1, (s2 - n * rate**2) / np.maximum(n - 1, 1), np.nan)
        var_unit = np.maximum(var_unit, 0.0)
        var_mean = var_unit / n
        binom = rate * (1 - rate)
        interior = (rate > 0) & (rate < 1) & (n > 1)
        est = np.where(var_mean > 0, binom / np.where(var_mean > 0, var_mean, 1.0), n * n_repeats)
        n_eff = np.clip(est, n, n * max(int(n_repeats), 1))
        lv = np.broadcast_to(np.asarray(level, dtype=float), labels.shape)
        z = stats.norm.ppf(0.5 + lv / 2)
        t = stats.t.ppf(0.5 + lv / 2, np.maximum(n - 1, 1))
        n_eff = np.where(interior, n_eff * (z / t) ** 2, n)
    k = rate * n_eff
    a = 1.0 - lv
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, stats.beta.ppf(a / 2, k, n_eff - k + 1), 0.0)
        high = np.where(k < n_eff, stats.beta.ppf(1 - a / 2, k + 1, n_eff - k), 1.0)
    return pd.DataFrame(
        {
            "group": labels,
            "n": n.astype(int),
            "rate": rate,
            "low": np.nan_to_num(low, nan=0.0),
            "high": np.nan_to_num(high, nan=1.0),
            "n_eff": n_eff,
        }
    )


def judge_scenarios(shares, scenarios, rule: SizeRule, *, n_repeats: int = 1, m: int | None = None):
    """Per scenario: the Type I error, its simultaneous interval and the verdict.

    Parameters
    ----------
    shares : array_like, shape (n,)
        Per null data set, the share of its repeats that reject.
    scenarios : array_like, shape (n,)
        The scenario of every data set.
    rule : SizeRule
    n_repeats : int
        Decisions per data set.
    m : int, optional
        Number of scenarios the intervals are simultaneous over (default: those given).

    Returns
    -------
    DataFrame
        ``scenario``, ``n`` (data sets), ``type1``, ``low``, ``high`` (fractions),
        ``n_eff``, ``level`` (of each interval) and ``verdict``; ``above_alpha``
        flags a scenario whose lower end exceeds alpha.
    """
    scen = np.asarray(scenarios)
    k = int(np.unique(scen).size) if m is None else int(m)
    lv = rule.scenario_level(k)
    t = rate_intervals(shares, scen, n_repeats=n_repeats, level=lv).rename(
        columns={"group": "scenario", "rate": "type1"}
    )
    t["level"] = lv
    t["verdict"] = rule.verdict(t["low"].to_numpy(), t["high"].to_numpy())
    t["above_alpha"] = t["low"].to_numpy() > rule.alpha
    return t


def procedure_verdict(table) -> dict:
    """A procedure's verdict from its per-scenario table (:func:`judge_scenarios`), with the scenario deciding it.

    Returns
    -------
    dict
        ``verdict``; ``scenario``, ``type1``, ``low``, ``high``, ``n`` of the
        deciding scenario (liberal: the liberal one with the highest lower end;
        otherwise the one with the highest upper end); ``scenarios`` judged and
        how many are in each verdict.
    """
    if table is None or not len(table):
        return {
            "verdict": UNRESOLVED,
            "scenario": "",
            "type1": math.nan,
            "low": math.nan,
            "high": math.nan,
            "n": 0,
            "scenarios": 0,
            "n_controls": 0,
            "n_liberal": 0,
            "n_unresolved": 0,
        }
    v = table["verdict"]
    if (v == NEVER_REJECTS).all():
        verdict = NEVER_REJECTS
        row = table.sort_values("high", ascending=False, kind="stable").iloc[0]
    elif (v == LIBERAL).any():
        verdict = LIBERAL
        row = table[v == LIBERAL].sort_values("low", ascending=False, kind="stable").iloc[0]
    else:
        verdict = CONTROLS if (v == CONTROLS).all() else UNRESOLVED
        row = table.sort_values("high", ascending=False, kind="stable").iloc[0]
    return {
        "verdict": verdict,
        "scenario": row["scenario"],
        "type1": float(row["type1"]),
        "low": float(row["low"]),
        "high": float(row["high"]),
        "n": int(row["n"]),
        "scenarios": int(len(table)),
        "n_controls": int((v == CONTROLS).sum()),
        "n_liberal": int((v == LIBERAL).sum()),
        "n_unresolved": int((v == UNRESOLVED).sum()),
    }


def critical_value(pvalues, target: float) -> float:
    """The size-adjusted threshold: reject when ``p < q``, with ``q`` the largest such that at most ``target`` of
    the null decisions reject.

    Parameters
    ----------
    pvalues : array_like
        Null p-values, every data set with the same number of repeats (so each
        decision weighs the same); NaN (an undefined test) never rejects.
    target : float
        The share of null decisions allowed to reject (the nominal alpha).

    Returns
    -------
    float
        ``q``: the ``(k+1)``-th smallest finite p-value with ``k = floor(target N)``
        (``N`` decisions, NaN included), ``inf`` when fewer than ``k + 1`` are
        finite.  Ties at ``q`` do not reject, so the calibrated rate is at most
        ``target``, below it for a test with discrete p-values.
    """
    p = np.asarray(pvalues, dtype=float).ravel()
    if not 0.0 < target < 1.0:
        raise InputError(f"target: must lie strictly between 0 and 1, got {target!r}")
    if p.size == 0:
        return math.nan
    k = int(math.floor(target * p.size + 1e-9))
    finite = np.sort(p[np.isfinite(p)])
    return float(finite[k]) if k < finite.size else math.inf
