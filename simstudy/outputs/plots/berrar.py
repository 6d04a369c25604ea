"""Berrar's figures: Figures 9 to 14 from a study's summary tables, Figures 2 and 4 from the formulas.

The study figures follow the signature of :class:`simstudy.engine.Figure`,
``draw(tables, ax, *, profile)``, plus keyword arguments that a study binds
with :func:`functools.partial` (its title, the group column ...).
"""

from __future__ import annotations

import numpy as np

from simstudy.outputs.plots.core import (
    estimate_vs_p,
    label_points,
    legend_outside,
    log_p_axis,
    reference_line,
    replication_vs_p,
)
from simstudy.outputs.plots.layout import spread_labels

__all__ = ["berrar_binomial_figure", "berrar_wilcoxon_figure", "berrar_t_figure", "berrar_figure2", "berrar_figure4"]


def berrar_binomial_figure(tables, ax, *, profile: str, title: str, table: str = "binomial") -> None:
    """Figures 9 and 11: binomial and Bayesian P (with prediction intervals) and F against the binomial p.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The study's summary tables; ``tables[table]`` has the columns ``binomial_*``,
        ``bayes_*``, ``F`` and the group ``g``.
    ax : matplotlib.axes.Axes
    profile : str
        The stored profile, named in the title.
    title : str
        What the study compares (the figure adds the test and the profile).
    table : str
        Name of the summary table drawn.
    """
    t = tables[table]
    t = t[t["binomial_p"] < 0.05].drop_duplicates("binomial_statistic")
    if len(t):
        replication_vs_p(t, "binomial", ax=ax, color="black", label="binomial model $P_b$", offset=0.95)
        replication_vs_p(t, "bayes", ax=ax, color="tab:blue", label="Bayesian model $P_B$", offset=1.05, show_f=False)
        groups = [
            ax.annotate(
                f"g={int(r['g'])}", (r["binomial_p"], 0.02), xytext=(0, 0), textcoords="offset points", fontsize=7
            )
            for _, r in t.iterrows()
        ]
        legend_outside(ax)
    else:
        groups = []
        ax.text(
            0.5,
            0.5,
            "no group with a significant mean success rate at this profile",
            ha="center",
            transform=ax.transAxes,
        )
    ax.set_title(f"{title} (binomial p-value), profile {profile}")
    # each group's name under its column; names of groups whose p-values are close stacked in rows
    spread_labels(groups, sides=("center",), rows=(1,))


def berrar_wilcoxon_figure(tables, ax, *, profile: str, title: str, table: str = "wilcoxon") -> None:
    """Figures 10 and 12: Wilcoxon P_w (bootstrapped s*) with prediction intervals and F against p.

    Without bootstrap rows (``wilcoxon_P`` missing) the s* = 1 model is drawn and the legend says so.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The study's summary tables; ``tables[table]`` has the ``wilcoxon_*``
        (or ``wilcoxon_s1_*``) columns and ``F``.
    ax : matplotlib.axes.Axes
    profile, title, table :
        As in :func:`berrar_binomial_figure`.
    """
    t = tables[table]
    model = "wilcoxon" if "wilcoxon_P" in t else "wilcoxon_s1"
    replication_vs_p(t, model, ax=ax, label="$P_w$" + ("" if model == "wilcoxon" else " (s* = 1: no bootstrap rows)"))
    legend_outside(ax)
    ax.set_title(f"{title} (Wilcoxon), profile {profile}")


def berrar_t_figure(tables, ax, *, profile: str, title: str, group: str, first: int, table: str = "t") -> None:
    """Figures 13 and 14: P_t with prediction intervals and F against the corrected t-test's p.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The study's summary tables; ``tables[table]`` has the ``t_*`` columns,
        ``F`` and the group column.
    ax : matplotlib.axes.Axes
    profile, title, table :
        As in :func:`berrar_binomial_figure`.
    group : str
        The group column (``q`` or ``d``), also used to label the points.
    first : int
        The smallest group drawn (the paper leaves out the groups below it).
    """
    t = tables[table]
    t = t[t[group] >= first]
    replication_vs_p(t, "t", ax=ax, label="$P_t$")
    label_points(ax, t["t_p"], t["t_P_high"] + 0.01, [f"{group}={int(v)}" for v in t[group]])
    legend_outside(ax)
    ax.set_title(f"{title}, profile {profile}")


def berrar_figure2(ax, *, n: int = 44) -> None:
    """Berrar, Figure 2: binomial and Bayesian replication probability of every significant outcome.

    For each number of wins x out of ``n`` whose two-sided binomial p-value is
    below 0.05, the binomial (Lemma 1) and Bayesian (Lemma 2) estimates with
    their 95% intervals are drawn against the p-value.  Analytic.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    n : int
        Number of data sets.
    """
    from simstudy.statistics.replication import bayesian_model, binomial_model
    from simstudy.statistics.significance import binomial_test

    wins = np.arange(n // 2, n + 1)
    p = np.asarray(binomial_test(wins, n).pvalue)
    keep = p < 0.05
    wins, p = wins[keep], p[keep]
    b, bayes = binomial_model(wins, n), bayesian_model(wins, n)
    estimate_vs_p(p, b.estimate, b.low, b.high, ax=ax, color="black", label="binomial model $P_b$", offset=0.93)
    estimate_vs_p(
        p, bayes.estimate, bayes.low, bayes.high, ax=ax, color="tab:blue", label="Bayesian model $P_B$", offset=1.07
    )
    ax.set_title(f"N = {n}: all {keep.sum()} significant outcomes ({wins.min()}..{wins.max()} wins)")
    reference_line(ax, y=0.5, label="replication probability 0.5 (dotted)")
    legend_outside(ax)


def berrar_figure4(ax, *, nu: int = 9) -> None:
    """Berrar, Figure 4: P_t and its 95% prediction interval against the p-value.

    The observed t-statistic of a two-sided test with p-value p is
    t_{nu, 1 - p/2}; P_t is Equation 13 and the interval Equation 14.  Analytic.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    nu : int
        Degrees of freedom of the t-test.
    """
    from scipy import stats

    from simstudy.statistics.replication import t_model

    p = np.logspace(-4, np.log10(0.05), 200)
    res = t_model(stats.t.isf(p / 2, nu), nu)
    ax.fill_between(p, res.low, res.high, color="tab:blue", alpha=0.2, label="95% prediction interval")
    ax.plot(p, res.estimate, color="black", label="$P_t$")
    reference_line(ax, y=0.95, label="replication probability 0.95 (dotted)")
    log_p_axis(ax)
    ax.set_xlabel("p-value (log scale)")
    ax.set_ylabel("replication probability")
    ax.set_title(rf"$\nu$ = {nu}")
    legend_outside(ax)
