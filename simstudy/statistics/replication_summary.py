"""Per-group summaries of replication studies, from stored outcome rows.

A replication study (Berrar) runs k independent replications of the same
experiment per group.  From the stored per-replication statistics and decisions
we compute, per group:

* the mean statistic with its Monte Carlo standard error and the p-value of the
  mean statistic (the paper's "p-value of the group");
* the empirical replication probability F = (s - 1)/(k - 1) (Definition 2), where
  s counts the replications significant in the initial experiment's direction,
  with a Monte Carlo interval from the exact (Clopper-Pearson) interval of s/k;
* the estimated replication probability P of a model at the mean statistic, with
  the model's prediction interval, and a Monte Carlo interval obtained by
  evaluating the model at the ends of the normal interval of the mean statistic
  (P is monotone in the statistic for every model).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from simstudy._lazy import lazy_module

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")
stats = lazy_module("scipy.stats")

__all__ = ["empirical_interval", "ModelSpec", "replication_table", "closest_to"]


def _count_interval(s, k, level):
    """Clopper-Pearson interval of a binomial count s of k, on the count scale."""
    a = 1.0 - level
    lo = stats.beta.ppf(a / 2, s, k - s + 1) if s > 0 else 0.0
    hi = stats.beta.ppf(1 - a / 2, s + 1, k - s) if s < k else 1.0
    return float(lo * k), float(hi * k)


def empirical_interval(s, k, level: float = 0.95):
    """F = (s - 1)/(k - 1) and its Monte Carlo interval from the Clopper-Pearson limits of s/k."""
    s = np.asarray(s, dtype=float)
    k = np.asarray(k, dtype=float)
    a = 1.0 - level
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(s > 0, stats.beta.ppf(a / 2, s, k - s + 1), 0.0)
        hi = np.where(s < k, stats.beta.ppf(1 - a / 2, s + 1, k - s), 1.0)
        f = (s - 1) / (k - 1)

        def to_f(pi):
            return np.clip((k * pi - 1) / (k - 1), 0.0, 1.0)

        return np.clip(f, 0.0, 1.0), to_f(lo), to_f(hi)


@dataclass(frozen=True)
class ModelSpec:
    """How to turn a group's mean statistic into p-values and replication probabilities.

    Attributes
    ----------
    name : str
        Model name used as a column prefix (e.g. "wilcoxon", "binomial", "bayes", "t").
    estimate : callable
        ``estimate(statistic) -> result`` with ``estimate``, ``low`` and ``high``
        (vectorised), e.g. ``lambda z: wilcoxon_model(z, s_star)``.
    pvalue : callable
        ``pvalue(statistic) -> two-sided p-value`` (vectorised).
    transform : callable, optional
        Applied to the mean statistic before ``estimate`` and ``pvalue`` (e.g.
        mean success rate -> rounded number of wins).
    """

    name: str
    estimate: Callable
    pvalue: Callable
    transform: Callable | None = None

    def at(self, statistic):
        """The model at a group's mean statistic.

        Parameters
        ----------
        statistic : float or ndarray
            Mean statistic of a group (before ``transform``).

        Returns
        -------
        (statistic, P, p) : tuple
            The transformed statistic, the model's replication probability and
            the p-value at it.
        """
        stat = statistic if self.transform is None else self.transform(statistic)
        return stat, self.estimate(stat), self.pvalue(stat)


def replication_table(
    outcomes: pd.DataFrame,
    *,
    by: list[str],
    models: list[ModelSpec],
    statistic: str = "statistic",
    decision: str = "decision",
    direction: int = 1,
    level: float = 0.95,
) -> pd.DataFrame:
    """One row per group: mean statistic, F with its Monte Carlo interval, and each model's P.

    Parameters
    ----------
    outcomes : DataFrame
        One row per replication (already filtered to one test), with the group
        columns ``by``, the statistic and the +1/0/-1 decision.
    by : list of str
        Group columns.
    models : list of ModelSpec
        Models evaluated at the group's mean statistic.
    direction : int
        The direction of the initial experiment's significant result: a
        replication counts as significant only in that direction.
    level : float
        Level of the Monte Carlo intervals.
    """
    z = stats.norm.ppf(0.5 + level / 2)
    rows = []
    for key, grp in outcomes.groupby(by, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        x = grp[statistic].to_numpy(dtype=float)
        k = x.size
        mean = x.mean()
        se = x.std(ddof=1) / np.sqrt(k) if k > 1 else np.nan
        s = int((grp[decision].to_numpy() == direction).sum())
        f, f_lo, f_hi = empirical_interval(s, k, level)
        row = dict(zip(by, key))
        s_lo, s_hi = _count_interval(s, k, level)
        row.update(
            k=k,
            mean_statistic=mean,
            se_statistic=se,
            mean_statistic_mc_low=mean - z * se,
            mean_statistic_mc_high=mean + z * se,
            n_significant=s,
            n_significant_mc_low=s_lo,
            n_significant_mc_high=s_hi,
            share_significant=s / k,
            share_significant_mc_low=s_lo / k,
            share_significant_mc_high=s_hi / k,
            F=float(f),
            F_mc_low=float(f_lo),
            F_mc_high=float(f_hi),
        )
        # The Monte Carlo interval of p and P: their range over the mean statistic's interval.
        # The map is not monotone (a two-sided p is largest at 0), so the ends are not enough.
        grid = np.append(np.linspace(mean - z * se, mean + z * se, 201), [mean, 0.0]) if k > 1 else np.array([mean])
        if k > 1 and not (mean - z * se <= 0.0 <= mean + z * se):
            grid = grid[:-1]
        for m in models:
            stat, res, p = m.at(mean)
            _, grid_res, grid_p = m.at(grid)
            ends_p = [float(np.min(grid_p)), float(np.max(grid_p))]
            ends_P = [float(np.min(grid_res.estimate)), float(np.max(grid_res.estimate))]
            row.update(
                {
                    f"{m.name}_statistic": float(stat),
                    f"{m.name}_p": float(p),
                    f"{m.name}_p_mc_low": ends_p[0],
                    f"{m.name}_p_mc_high": ends_p[1],
                    f"{m.name}_P": float(res.estimate),
                    f"{m.name}_P_low": float(res.low),
                    f"{m.name}_P_high": float(res.high),
                    f"{m.name}_P_mc_low": ends_P[0],
                    f"{m.name}_P_mc_high": ends_P[1],
                }
            )
        rows.append(row)
    return pd.DataFrame(rows)


def closest_to(table: pd.DataFrame, column: str = "F", target: float = 0.95) -> pd.Series:
    """The row whose ``column`` is closest to ``target`` (first one on ties)."""
    return table.loc[(table[column] - target).abs().idxmin()]


def mad_interval(
    groups: list[tuple[np.ndarray, np.ndarray]],
    estimate: Callable,
    *,
    direction: int = 1,
    n_boot: int = 500,
    level: float = 0.95,
    rng=None,
    extremes: bool = False,
):
    """Mean absolute deviation |P - F| over groups, with a bootstrap Monte Carlo interval.

    Parameters
    ----------
    groups : list of (statistics, decisions)
        Per group, the replications' statistics and +1/0/-1 decisions.
    estimate : callable
        ``estimate(mean_statistic, group_index) -> P`` (vectorised over the first argument).
    n_boot : int
        Bootstrap resamples of the replications within every group (percentile interval).
    extremes : bool
        Also return the intervals of the smallest and the largest deviation
        over groups, from the same resamples.

    Returns
    -------
    (mad, low, high, deviations), and with ``extremes`` a fifth item
    ``{"min": (low, high), "max": (low, high)}``.
    """
    rng = np.random.default_rng(rng)
    dev = []
    boot = np.zeros((n_boot, len(groups)))
    for j, (x, d) in enumerate(groups):
        x = np.asarray(x, dtype=float)
        sig = (np.asarray(d) == direction).astype(float)
        k = x.size
        f = (sig.sum() - 1) / (k - 1)
        dev.append(abs(float(estimate(x.mean(), j)) - f))
        idx = rng.integers(0, k, size=(n_boot, k))
        fb = (sig[idx].sum(axis=1) - 1) / (k - 1)
        boot[:, j] = np.abs(np.asarray(estimate(x[idx].mean(axis=1), j), dtype=float) - fb)
    a = (1 - level) / 2
    deviations = np.asarray(dev)
    mean = boot.mean(axis=1)
    out = (float(deviations.mean()), float(np.quantile(mean, a)), float(np.quantile(mean, 1 - a)), deviations)
    if not extremes:
        return out
    lo, hi = boot.min(axis=1), boot.max(axis=1)
    return out + (
        {
            "min": (float(np.quantile(lo, a)), float(np.quantile(lo, 1 - a))),
            "max": (float(np.quantile(hi, a)), float(np.quantile(hi, 1 - a))),
        },
    )
