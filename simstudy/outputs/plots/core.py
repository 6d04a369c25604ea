"""Building blocks: replication probability against p-value, drawn as Berrar draws it.

Every function draws on a Matplotlib Axes (``ax=None`` makes a new one) and
returns it; none calls ``plt.show()`` or changes global settings.  The p-value
axis is logarithmic, the empirical replication probability F is a red cross,
point estimates P are squares and prediction intervals are vertical lines.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "replication_vs_p",
    "estimate_vs_p",
    "label_points",
    "log_p_axis",
    "reference_line",
    "legend_outside",
    "describe_axes",
]

#: Colour and style of the reference lines (each one is named in the legend).
REFERENCE_STYLE = {"color": "grey", "lw": 0.8, "ls": ":"}


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
    ax.plot(
        x,
        estimate,
        linestyle="none",
        marker=marker,
        color=color,
        ms=6,
        label=None if label is None else f"{label}, line: 95% prediction interval",
    )
    ax.set_xlabel("p-value (log scale)")
    ax.set_ylabel("replication probability")
    ax.set_ylim(-0.02, 1.02)
    log_p_axis(ax)
    return ax


def _p_locator():
    """Major ticks of a log p axis: 1, 2 and 5 x 10^k over at most 3 decades, else every k-th decade (<= 7)."""
    from matplotlib.ticker import Locator

    class PLocator(Locator):
        def __call__(self):
            vmin, vmax = self.axis.get_view_interval()
            return self.tick_values(vmin, vmax)

        def tick_values(self, vmin, vmax):
            return _p_ticks(vmin, vmax)

    return PLocator()


def _p_ticks(vmin, vmax):
    lo, hi = sorted((float(vmin), float(vmax)))
    if not (lo > 0 and np.isfinite(hi)):
        lo, hi = 1e-4, 1.0
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    decades = math.log10(hi) - math.log10(lo)
    if decades <= 3:
        subs, step = (1.0, 2.0, 5.0), 1
    else:
        subs, step = (1.0,), max(1, math.ceil(decades / 6))
    return np.array([s * 10.0**k for k in range(a - 1, b + 2) if k % step == 0 for s in subs])


def _p_label(v, decades: float = 0.0) -> str:
    """A p-value tick label: 0.002, 0.05 ... down to 0.0001, then 10^-k (or m x 10^-k); powers of ten
    throughout on an axis of more than 3 decades."""
    if not v > 0:
        return ""
    if v >= 1e-4 and decades <= 3:
        return f"{v:.10f}".rstrip("0").rstrip(".")
    k = math.floor(math.log10(v) + 1e-9)
    m = v / 10.0**k
    return f"$10^{{{k}}}$" if abs(m - 1) < 1e-6 else f"${m:g}\\times10^{{{k}}}$"


def log_p_axis(ax) -> None:
    """Make the x axis a log p axis whose every end has a labelled tick.

    Over at most 3 decades the ticks are at 1, 2 and 5 x 10^k and the limits
    are widened to the nearest such tick beyond the data (so the leftmost and
    rightmost points always have a labelled tick beside them); over more
    decades a tick at every k-th power of ten is labelled, at most 7.  A
    vertical reference line (:func:`reference_line`) is kept inside the axis.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_xscale("log")
    ax.xaxis.set_major_locator(_p_locator())

    def label(v, pos=None):
        lo, hi = sorted(ax.get_xlim())
        return _p_label(v, math.log10(hi / lo) if lo > 0 else 0.0)

    ax.xaxis.set_major_formatter(FuncFormatter(label))
    ax.xaxis.set_minor_locator(LogLocator(base=10, subs="auto"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    xs = [v for v in ax.dataLim.intervalx if np.isfinite(v) and v > 0]
    xs += [float(line.get_xdata()[0]) for line in ax.get_lines() if line.get_gid() == "reference-x"]
    if not xs:
        return
    lo, hi = min(xs), max(xs)
    if math.log10(hi) - math.log10(lo) <= 3:
        ticks = _p_ticks(lo, hi)
        left = max([t for t in ticks if t <= lo / 1.08] or [lo / 1.5])
        right = min([t for t in ticks if t >= hi * 1.08] or [hi * 1.5])
        ax.set_xlim(left, min(right, 1.0) if hi <= 1.0 else right)  # no p-value beyond 1
    else:
        ax.set_xlim(lo / 2, hi * 2)


def reference_line(ax, *, y=None, x=None, label: str) -> None:
    """A dotted reference line, named in the legend; drawn once per Axes and label.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    y, x : float
        A horizontal line at ``y`` or a vertical one at ``x``.
    label : str
        What the line marks, as the legend shows it.
    """
    if any(line.get_label() == label for line in ax.get_lines()):
        return
    if y is not None:
        ax.axhline(y, label=label, gid="reference-y", **REFERENCE_STYLE)
    else:
        ax.axvline(x, label=label, gid="reference-x", **REFERENCE_STYLE)


def legend_outside(ax) -> None:
    """The legend below the plot, where it hides no point and no label."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=8, frameon=False)


def _plain(text: str) -> str:
    """Matplotlib mathtext as plain words (``$P_b$`` -> ``P_b``, ``$\\nu$`` -> ``nu``)."""
    return text.replace("$", "").replace("\\", "").replace("{", "").replace("}", "").strip()


def describe_axes(ax) -> str:
    """A plain-text description of what an Axes shows: title, axes with their ranges, legend, labelled points.

    Used as the alternative text and caption of a figure in the report.  A 3-D
    Axes is described with its three axes (x across, y in depth, z up).

    Parameters
    ----------
    ax : matplotlib.axes.Axes

    Returns
    -------
    str
    """
    from simstudy.outputs.tables import format_number

    def rng(lo, hi):
        return f"{format_number(min(lo, hi), 2, trailing_zeros=False)} to {format_number(max(lo, hi), 2, trailing_zeros=False)}"

    parts = []
    if ax.get_title():
        parts.append(_plain(ax.get_title()) + ".")
    scale = " (log scale)" if ax.get_xscale() == "log" and "log" not in ax.get_xlabel() else ""
    if hasattr(ax, "get_zlim"):  # a 3-D Axes: x runs across, y into the picture, z up
        parts.append(
            f"Horizontal axis: {_plain(ax.get_xlabel()) or 'x'}{scale}, {rng(*ax.get_xlim())}; "
            f"depth axis: {_plain(ax.get_ylabel()) or 'y'}, {rng(*ax.get_ylim())}; "
            f"vertical axis: {_plain(ax.get_zlabel()) or 'z'}, {rng(*ax.get_zlim())}."
        )
    else:
        parts.append(
            f"Horizontal axis: {_plain(ax.get_xlabel()) or 'x'}{scale}, {rng(*ax.get_xlim())}; "
            f"vertical axis: {_plain(ax.get_ylabel()) or 'y'}, {rng(*ax.get_ylim())}."
        )
    legend = ax.get_legend()
    if legend is not None:
        parts.append("Shown: " + "; ".join(_plain(t.get_text()) for t in legend.get_texts()) + ".")
    notes = [_plain(t.get_text()) for t in ax.texts if t.get_text()]
    if notes:
        parts.append("Labels: " + ", ".join(notes) + ".")
    return " ".join(parts)


def replication_vs_p(table, model: str, *, ax=None, color="black", label=None, offset=1.0, show_f=True):
    """One model of a per-group replication table: P with its interval, and F as red crosses.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns made by :func:`simstudy.statistics.replication_summary.replication_table`:
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
    ax = estimate_vs_p(
        table[f"{model}_p"],
        table[f"{model}_P"],
        table[f"{model}_P_low"],
        table[f"{model}_P_high"],
        ax=ax,
        color=color,
        label=label,
        offset=offset,
    )
    if show_f:
        ax.plot(
            table[f"{model}_p"], table["F"], linestyle="none", marker="x", color="red", ms=8, mew=2, label="empirical F"
        )
    reference_line(ax, y=0.95, label="replication probability 0.95 (dotted)")
    reference_line(ax, x=0.05, label="p = 0.05, the significance level (dotted)")
    log_p_axis(ax)
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
            # right of the point's line and below the top of the plot, where no title or frame cuts it
            ax.annotate(
                text,
                (xi, min(float(yi), 0.9)),
                xytext=(3, 0),
                textcoords="offset points",
                fontsize=7,
                ha="left",
                va="bottom",
            )
            last = pos
