"""Plots of replication probability against p-value, drawn as Berrar draws them.

Every function takes ``ax=None`` and returns the Axes; none calls ``plt.show()``
or changes global settings.  The p-value axis is logarithmic, the empirical
replication probability F is a red cross, point estimates P are squares and
prediction intervals are vertical lines.
"""

from __future__ import annotations

import numpy as np

__all__ = ["replication_vs_p", "estimate_vs_p"]


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6, 4.5))
    return ax


def estimate_vs_p(p, estimate, low, high, *, ax=None, color="black", label=None, offset=1.0, marker="s"):
    """Point estimates (squares) with prediction intervals (vertical lines) against log p."""
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

    ``table`` has the columns made by :func:`simstudy.replication_summary.replication_table`:
    ``{model}_p``, ``{model}_P``, ``{model}_P_low``, ``{model}_P_high`` and ``F``.
    """
    ax = estimate_vs_p(table[f"{model}_p"], table[f"{model}_P"], table[f"{model}_P_low"],
                       table[f"{model}_P_high"], ax=ax, color=color, label=label, offset=offset)
    if show_f:
        ax.plot(table[f"{model}_p"], table["F"], linestyle="none", marker="x", color="red", ms=8,
                mew=2, label="empirical F")
    ax.axhline(0.95, color="grey", lw=0.6, ls=":")
    ax.axvline(0.05, color="grey", lw=0.6, ls=":")
    return ax
