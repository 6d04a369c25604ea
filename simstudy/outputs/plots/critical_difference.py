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

from simstudy.errors import InputError

__all__ = ["critical_difference_diagram", "describe_critical_difference", "CD_FIGSIZE", "NAME_WIDTH"]

#: Width and height (inches) of the diagram of four learners with short names; more learners and longer
#: names make the figure taller and wider (see :func:`critical_difference_diagram`).
CD_FIGSIZE = (7.0, 3.0)
#: Characters per line of a learner's name at the side of the diagram; a longer name is broken into lines.
NAME_WIDTH = 40
FONTSIZE = 9
#: Rows of learner names: the height of a row of one line, and what each further line adds (data units,
#: about an inch each in a figure the function makes).
ROW, LINE = 0.35, 0.15
_RANK_INCHES = 0.75  # width of one rank on the axis, in a figure the function makes


def _wrap(name: str) -> str:
    import textwrap

    name = " ".join(str(name).split())
    return "\n".join(textwrap.wrap(name, NAME_WIDTH, break_on_hyphens=False)) or name


def _width_inches(labels) -> float:
    """The width of the widest line of ``labels`` at the diagram's font size, in inches."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    prop = FontProperties(size=FONTSIZE)
    lines = [line for label in labels for line in label.split("\n")]
    return (
        max((text_to_path.get_text_width_height_descent(line, prop, ismath=False)[0] for line in lines), default=0) / 72
    )


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
        Learner names, in the order of ``mean_ranks``; a name longer than
        :data:`NAME_WIDTH` characters is broken into lines.
    groups : sequence of sequence of int
        Learners (indices into ``mean_ranks``) that are not significantly
        different, one bar each; e.g. ``NemenyiResult.groups``.
    critical_difference : float, optional
        Nemenyi's critical difference, drawn as a scale bar above the axis;
        omitted when None (e.g. for groups from Holm's procedure).
    ax : matplotlib.axes.Axes, optional
        Where to draw; when omitted, a new Agg figure (constrained layout) as
        tall as the learners' rows and as wide as their names need.
    title : str, optional
        Title of the Axes.

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    The names stand beside the Axes, outside its frame: a figure with
    constrained layout (as :func:`~simstudy.outputs.plots.output.new_figure`
    makes) leaves room for them whatever their length.

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
        raise InputError(f"names: expected one name per mean rank (k >= 2), got {len(names)} names for shape {r.shape}")
    order = np.argsort(r, kind="stable")
    lo, hi = 1.0, float(max(k, np.ceil(r.max())))
    span = hi - lo
    n_left = (k + 1) // 2
    labels = []
    for pos, i in enumerate(order):
        name = _wrap(names[i])
        labels.append(f"{name} ({r[i]:.2f})" if pos < n_left else f"({r[i]:.2f}) {name}")
    heights = [ROW + LINE * label.count("\n") for label in labels]
    n_groups = len(groups)
    top = -0.45 - 0.22 * n_groups
    # the rows of each side from the top: the elbow of the best (or worst) learner is the highest
    ys = np.empty(k)
    for side in (list(range(n_left)), list(range(k - 1, n_left - 1, -1))):
        ys[side[0]] = top
        for above, pos in zip(side, side[1:]):
            ys[pos] = ys[above] - (heights[above] + heights[pos]) / 2
    bottom = float(ys.min()) - max(heights) / 2 - 0.15
    y_top = 1.15 if critical_difference is not None else 0.5
    left_x, right_x = lo - 0.12 * span - 0.2, hi + 0.12 * span + 0.2
    if ax is None:
        from simstudy.outputs.plots.output import new_figure

        sides = _width_inches(labels[:n_left]) + _width_inches(labels[n_left:]) + 0.4
        width = max(CD_FIGSIZE[0], _RANK_INCHES * (right_x - left_x) + sides)
        ax = new_figure((width, max(CD_FIGSIZE[1], (y_top - bottom) + (0.4 if title else 0.15)))).add_subplot()
    from matplotlib.transforms import offset_copy

    # the axis of ranks at y = 0; labels and the CD bar above, groups and learners below
    ax.hlines(0.0, lo, hi, color="black", lw=1.2)
    ticks = np.arange(lo, hi + 0.5)
    ax.vlines(ticks, 0.0, 0.12, color="black", lw=1.0)
    ax.vlines(np.arange(lo + 0.5, hi), 0.0, 0.06, color="black", lw=0.8)
    for t in ticks:
        ax.text(t, 0.18, f"{t:g}", ha="center", va="bottom", fontsize=FONTSIZE)
    if critical_difference is not None:
        y_cd = 0.75
        ax.hlines(y_cd, lo, lo + critical_difference, color="black", lw=1.2)
        ax.vlines([lo, lo + critical_difference], y_cd - 0.06, y_cd + 0.06, color="black", lw=1.2)
        ax.text(lo + critical_difference / 2, y_cd + 0.1, f"CD = {critical_difference:.2f}", ha="center", va="bottom",
                fontsize=FONTSIZE)  # fmt: skip
    for g, members in enumerate(groups):
        y = -0.28 - 0.22 * g
        ends = r[list(members)]
        ax.hlines(y, ends.min() - 0.03 * span / 3, ends.max() + 0.03 * span / 3, color="black", lw=3.5)
    for pos, i in enumerate(order):
        on_left = pos < n_left
        x_end = left_x if on_left else right_x
        ax.plot([r[i], r[i], x_end], [0.0, ys[pos], ys[pos]], color="black", lw=0.9)
        # beside the frame, a fixed distance from the line's end whatever the Axes' size
        shift = offset_copy(ax.transData, fig=ax.figure, x=-3 if on_left else 3, units="points")
        ax.text(x_end, ys[pos], labels[pos], transform=shift, ha="right" if on_left else "left", va="center",
                fontsize=FONTSIZE)  # fmt: skip
    ax.set_xlim(left_x, right_x)
    ax.set_ylim(bottom, y_top)
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
