"""Critical-difference diagram of several learners over several data sets (Demsar 2006, Figures 1 and 2).

An axis of mean ranks (1 = best, on the left), each learner marked at its
mean rank and named at the side (the better half on the left, the others on
the right), a scale bar of length CD (Nemenyi's critical difference) above the
axis, and thick bars below it joining the learners that are not significantly
different.  The groups come from :mod:`simstudy.statistics.multiple`
(``NemenyiResult.groups``, or :func:`~simstudy.statistics.multiple.nonsignificant_groups`
for Holm's all-pairs test).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["critical_difference_diagram", "describe_critical_difference", "CD_FIGSIZE"]

#: Width and height (inches) that fit about eight learners with names of twenty characters.
CD_FIGSIZE = (7.0, 3.0)


def _axes(ax, k: int):
    if ax is None:
        from simstudy.outputs.plots.output import new_figure

        ax = new_figure((CD_FIGSIZE[0], CD_FIGSIZE[1] + 0.25 * max(k - 4, 0))).add_subplot()
    return ax


def critical_difference_diagram(
    mean_ranks,
    names: Sequence[str],
    *,
    groups: Sequence[Sequence[int]] = (),
    critical_difference: float | None = None,
    ax=None,
    title: str | None = None,
):
    """Draw Demsar's critical-difference diagram.

    Parameters
    ----------
    mean_ranks : array_like, shape (k,)
        Average rank of each learner over the data sets (1 = best).
    names : sequence of str, length k
        Learner names, in the order of ``mean_ranks``.
    groups : sequence of sequence of int
        Learners (indices into ``mean_ranks``) that are not significantly
        different, one bar each; e.g. ``NemenyiResult.groups``.
    critical_difference : float, optional
        Nemenyi's critical difference, drawn as a scale bar above the axis;
        omitted when None (e.g. for groups from Holm's procedure).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new Agg figure when omitted.
    title : str, optional
        Title of the Axes.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from simstudy.statistics.multiple import nemenyi_test
    >>> res = nemenyi_test(scores, alpha=0.05)  # doctest: +SKIP
    >>> critical_difference_diagram(res.mean_ranks, names, groups=res.groups,
    ...                             critical_difference=res.critical_difference)  # doctest: +SKIP
    """
    r = np.asarray(mean_ranks, dtype=float)
    k = r.size
    if r.ndim != 1 or k < 2 or len(names) != k:
        raise ValueError(f"names: expected one name per mean rank (k >= 2), got {len(names)} names for shape {r.shape}")
    ax = _axes(ax, k)
    order = np.argsort(r, kind="stable")
    lo, hi = 1.0, float(max(k, np.ceil(r.max())))
    span = hi - lo
    # the axis of ranks at y = 0; labels and the CD bar above, groups and learners below
    ax.hlines(0.0, lo, hi, color="black", lw=1.2)
    ticks = np.arange(lo, hi + 0.5)
    ax.vlines(ticks, 0.0, 0.12, color="black", lw=1.0)
    ax.vlines(np.arange(lo + 0.5, hi), 0.0, 0.06, color="black", lw=0.8)
    for t in ticks:
        ax.text(t, 0.18, f"{t:g}", ha="center", va="bottom", fontsize=9)
    if critical_difference is not None:
        y_cd = 0.75
        ax.hlines(y_cd, lo, lo + critical_difference, color="black", lw=1.2)
        ax.vlines([lo, lo + critical_difference], y_cd - 0.06, y_cd + 0.06, color="black", lw=1.2)
        ax.text(lo + critical_difference / 2, y_cd + 0.1, f"CD = {critical_difference:.2f}", ha="center", va="bottom",
                fontsize=9)  # fmt: skip
    n_groups = len(groups)
    for g, members in enumerate(groups):
        y = -0.28 - 0.22 * g
        ends = r[list(members)]
        ax.hlines(y, ends.min() - 0.03 * span / 3, ends.max() + 0.03 * span / 3, color="black", lw=3.5)
    n_left = (k + 1) // 2
    top = -0.45 - 0.22 * n_groups
    left_x, right_x = lo - 0.12 * span - 0.2, hi + 0.12 * span + 0.2
    for pos, i in enumerate(order):
        on_left = pos < n_left
        step = pos if on_left else k - 1 - pos
        y = top - 0.35 * step
        x_end = left_x if on_left else right_x
        ax.plot([r[i], r[i], x_end], [0.0, y, y], color="black", lw=0.9)
        label = f"{names[i]} ({r[i]:.2f})" if on_left else f"({r[i]:.2f}) {names[i]}"
        ax.text(x_end + (-0.05 if on_left else 0.05), y, label, ha="right" if on_left else "left", va="center",
                fontsize=9)  # fmt: skip
    bottom = top - 0.35 * (max(n_left, k - n_left) - 1) - 0.3
    ax.set_xlim(left_x - 0.02 * span, right_x + 0.02 * span)
    ax.set_ylim(bottom, 1.15 if critical_difference is not None else 0.5)
    ax.set_axis_off()
    ax.text(0.5 * (lo + hi), bottom + 0.05, "mean rank over data sets (1 = best)", ha="center", va="bottom",
            fontsize=8, color="dimgrey")  # fmt: skip
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def describe_critical_difference(
    mean_ranks, names: Sequence[str], *, groups: Sequence[Sequence[int]] = (), critical_difference: float | None = None
) -> str:
    """A plain-text account of a critical-difference diagram, for alternative text and captions.

    Parameters
    ----------
    mean_ranks, names, groups, critical_difference
        As for :func:`critical_difference_diagram`.

    Returns
    -------
    str
        The learners from the best mean rank on, the critical difference, and
        each group of learners not significantly different.
    """
    r = np.asarray(mean_ranks, dtype=float)
    order = np.argsort(r, kind="stable")
    parts = ["Mean ranks (1 = best): " + ", ".join(f"{names[i]} {r[i]:.2f}" for i in order) + "."]
    if critical_difference is not None:
        parts.append(f"Critical difference {critical_difference:.2f}.")
    if groups:
        joined = "; ".join(", ".join(names[i] for i in g) for g in groups)
        parts.append(f"Not significantly different: {joined}.")
    else:
        parts.append("No two learners are joined: every pair differs significantly.")
    return " ".join(parts)
