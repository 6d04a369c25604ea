"""Building blocks: replication probability against p-value, drawn as Berrar draws it.

Every function draws on a Matplotlib Axes (``ax=None`` makes a new one) and
returns it; none calls ``plt.show()`` or changes global settings.  The p-value
axis is logarithmic, the empirical replication probability F is a red cross,
point estimates P are squares and prediction intervals are vertical lines.
"""

from __future__ import annotations

import numpy as np

__all__ = ["replication_vs_p", "estimate_vs_p", "label_points"]


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6, 4.5))
    return ax


def estimate_vs_p(p, estimate, low, high, *, ax=None, color="black", label=None, offset=1.0, marker="s"):
    """Point estimates (squares) with prediction intervals (vertical lines) against log p.

    Parameters
    ----------
    p, estimate, low, high : array-like
        p-values, point estimates and the ends of their intervals.
    ax : matplotlib.axes.Axes, optional
        Where to draw (a new figure when omitted).
    color, label, marker : optional
        Matplotlib styling of the squares and lines.
    offset : float
        Factor applied to ``p``, so two series at the same p-values sit side by side.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax)
    x = np.asarray(p, dtype=float) * offset
    ax.vlines(x, low, high, color=color, lw=1.2)
    ax.plot(x, estimate, linestyle="none", marker=marker, color=color, ms=6, label=label)
    ax.set_xscale("log")
    from matplotlib.ticker import LogFormatterSciNotation, LogLocator, NullFormatter

    # labels at 1, 2 and 5 x 10^k: readable on short ranges, where labelled minor ticks overlap
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(LogFormatterSciNotation(labelOnlyBase=False))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("p-value (log scale)")
    ax.set_ylabel("replication probability")
    ax.set_ylim(-0.02, 1.02)
    return ax


def replication_vs_p(table, model: str, *, ax=None, color="black", label=None, offset=1.0, show_f=True):
    """One model of a per-group replication table: P with its interval, and F as red crosses.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns made by :func:`simstudy.replication_summary.replication_table`:
        ``{model}_p``, ``{model}_P``, ``{model}_P_low``, ``{model}_P_high`` and ``F``.
    model : str
        Column prefix of the model drawn.
    ax, color, label, offset :
        As in :func:`estimate_vs_p`.
    show_f : bool
        Also draw the empirical F of each group (red crosses).

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = estimate_vs_p(table[f"{model}_p"], table[f"{model}_P"], table[f"{model}_P_low"],
                       table[f"{model}_P_high"], ax=ax, color=color, label=label, offset=offset)
    if show_f:
        ax.plot(table[f"{model}_p"], table["F"], linestyle="none", marker="x", color="red", ms=8,
                mew=2, label="empirical F")
    ax.axhline(0.95, color="grey", lw=0.6, ls=":")
    ax.axvline(0.05, color="grey", lw=0.6, ls=":")
    return ax


def label_points(ax, x, y, labels, *, min_gap=0.22):
    """Label points along a log-p axis, skipping a label closer than ``min_gap`` decades to the last one.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    x, y : array-like
        Positions of the labels (x is a p-value).
    labels : sequence of str
    min_gap : float
        Smallest distance, in decades of p, between two labels drawn.
    """
    last = None
    for xi, yi, text in sorted(zip(x, y, labels), key=lambda t: -t[0]):
        pos = np.log10(xi) if xi > 0 else -np.inf
        if last is None or last - pos >= min_gap:
            ax.annotate(text, (xi, yi), fontsize=7, ha="center")
            last = pos
