"""The proving ground's figures: calibration, p-value distributions, the Gaussian panels, the leaderboard
and size against power, each as a matplotlib Figure and (the ``_figure_*`` functions) saved as PNG.
"""

from __future__ import annotations

import numpy as np

from simstudy.apps.proving.levels import ALPHA
from simstudy.apps.proving.summary import ALPHAS, P_GRID

__all__ = [
    "calibration_figure",
    "pvalues_figure",
    "gaussian_panels_figure",
    "leaderboard_figure",
    "size_power_figure",
    "NAME_WIDTH",
]


def _colours(n):
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return [cmap(i % 10) for i in range(n)]


def _style(i):
    return ("-", "--", ":")[(i // 10) % 3]


def _legend_below(fig, ax=None, *, ncols=3, fontsize=7):
    """The legend below the plot (an Axes' or, without ``ax``, the figure's), in as many columns as fit."""
    from simstudy.outputs.plots.layout import fit_legend

    def make(n):
        if ax is not None:
            return ax.legend(fontsize=fontsize, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=n,
                             frameon=False)  # fmt: skip
        return fig.legend(fontsize=fontsize, loc="outside lower center", ncols=n, frameon=False)

    return fit_legend(make, ncols=ncols)


def calibration_figure(cal, named):
    """Type I error against alpha on the null worlds, one line per named procedure (a Figure)."""
    from simstudy.outputs.plots.output import new_figure

    fig = new_figure((7.5, 5))
    ax = fig.subplots()
    ax.plot(
        [min(ALPHAS), max(ALPHAS)], [min(ALPHAS), max(ALPHAS)], color="k", lw=1, ls="--", label="Type I error = alpha"
    )
    for i, ((label, proc), c) in enumerate(zip(named.items(), _colours(len(named)))):
        t = cal[cal["procedure"] == proc].sort_values("alpha")
        if t.empty:
            continue
        ax.plot(t["alpha"], t["type1"] / 100, marker="o", ms=3, lw=1.2, color=c, ls=_style(i), label=label)
        ax.fill_between(t["alpha"], t["type1_mc_low"] / 100, t["type1_mc_high"] / 100, color=c, alpha=0.12, lw=0)
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=0.01)
    ax.set_ylim(0, 1)
    ax.set_xlabel("significance level alpha (log scale)")
    ax.set_ylabel("Type I error on the null worlds (symlog scale)")
    ax.set_title("Calibration: Type I error against alpha, 95% Monte Carlo bands", fontsize=10)
    ax.grid(alpha=0.3)
    _legend_below(fig, ax)
    return fig


def _figure_calibration(cal, named, directory):
    from simstudy.outputs.plots.output import save_figure

    return save_figure(calibration_figure(cal, named), directory, "calibration", formats=("png",))[0]


def pvalues_figure(pdist, named):
    """The distribution of null p-values against the uniform, one line per named procedure (a Figure)."""
    from simstudy.outputs.plots.output import new_figure

    fig = new_figure((6.5, 5))
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], color="k", lw=1, ls="--", label="uniform (an exact test)")
    for i, ((label, proc), c) in enumerate(zip(named.items(), _colours(len(named)))):
        t = pdist[pdist["procedure"] == proc]
        if t.empty:
            continue
        ax.plot(P_GRID, t.iloc[0]["ecdf"], lw=1.2, color=c, ls=_style(i), label=label)
    ax.set_xlabel("p")
    ax.set_ylabel("share of null p-values <= p")
    ax.set_title("p-values under the null against the uniform", fontsize=10)
    ax.grid(alpha=0.3)
    _legend_below(fig, ax)
    return fig


def _figure_pvalues(pdist, named, directory):
    from simstudy.outputs.plots.output import save_figure

    return save_figure(pvalues_figure(pdist, named), directory, "pvalues", formats=("png",))[0]


def _panel_order(pairs_and_sizes) -> list:
    """The panels of the Gaussian worlds' figures: a row per learner pair, from the most stable, a column per size.

    The order depends on the pairs and sizes only, never on the order a set happens to iterate in.
    """
    from simstudy.apps.proving.scenarios import STABILITY_ORDER

    rank = {pair: i for i, pair in enumerate(STABILITY_ORDER)}
    return sorted(set(pairs_and_sizes), key=lambda x: (rank.get(x[0], len(rank)), x[0], x[1]))


def gaussian_panels_figure(table, value, named, ylabel, title):
    """A panel per learner pair and size of the Gaussian worlds: ``value`` against the true gap (a Figure or None)."""
    from simstudy.apps.proving.scenarios import BANK
    from simstudy.outputs.plots.layout import wrap_text
    from simstudy.outputs.plots.output import new_figure

    t = table[table["scenario"].map(lambda k: k in BANK and BANK[k].family == "gaussian")]
    if t.empty:
        return None
    t = t.assign(
        pair=t["scenario"].map(lambda k: BANK[k].pair),
        n=t["scenario"].map(lambda k: BANK[k].n_cases),
        rho=t["scenario"].map(lambda k: BANK[k].rho),
        effect=t["scenario"].map(lambda k: BANK[k].effect),
    )
    panels = _panel_order(zip(t["pair"], t["n"]))
    ncol = min(3, len(panels))
    nrow = int(np.ceil(len(panels) / ncol))
    fig = new_figure((max(4 * ncol, 8), 3.2 * nrow + 1.2))
    axes = np.atleast_1d(fig.subplots(nrow, ncol, squeeze=False)).ravel()
    for ax, (pair, n) in zip(axes, panels):
        for (label, proc), c in zip(named.items(), _colours(len(named))):
            for rho, ls in ((0.0, "-"), (0.6, ":")):  # the correlation by line style, the procedure by colour
                s = t[(t["procedure"] == proc) & (t["pair"] == pair) & (t["n"] == n) & (t["rho"] == rho)]
                if s.empty:
                    continue
                s = s.sort_values("effect")
                ax.errorbar(
                    100 * s["gap"],
                    s[value],
                    yerr=np.clip(
                        np.vstack([s[value] - s[f"{value}_mc_low"], s[f"{value}_mc_high"] - s[value]]), 0, None
                    ),
                    color=c,
                    ls=ls,
                    lw=1,
                    marker="o",
                    ms=2.5,
                    capsize=1.5,
                    label=label if (rho == 0.0 and (pair, n) == panels[0]) else None,
                )
        ax.set_title(f"{pair} views, n = {n} (solid rho = 0, dotted 0.6)", fontsize=8)
        ax.set_xlabel("true gap, accuracy points (A - B)", fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.grid(alpha=0.3)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    wrap_text(fig.suptitle(title, fontsize=10), 0.95 * fig.bbox.width)
    _legend_below(fig, ncols=4)
    return fig


def _gaussian_panels(table, value, named, directory, name, ylabel, title):
    from simstudy.outputs.plots.output import save_figure

    fig = gaussian_panels_figure(table, value, named, ylabel, title)
    return None if fig is None else save_figure(fig, directory, name, formats=("png",))[0]


#: Characters per line of a procedure's name on the leaderboard figure (a longer one is broken into lines).
NAME_WIDTH = 60


def leaderboard_figure(board, top=20):
    """The size-controlling procedures by size-adjusted power, with their worst null's Type I error (a Figure or None)."""
    import textwrap

    from simstudy.outputs.plots.layout import wrap_text
    from simstudy.outputs.plots.output import new_figure

    b = board[board["controlled"]].head(top)
    if b.empty:
        return None
    names = [
        "\n".join(textwrap.wrap(f"{int(r)}. {p}", NAME_WIDTH, break_on_hyphens=False))
        for r, p in zip(b["rank"], b["procedure"])
    ]
    lines = max(name.count("\n") + 1 for name in names)
    fig = new_figure((8, (0.3 + 0.1 * (lines - 1)) * len(b) + 2.0))
    ax1, ax2 = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 2]})
    y = np.arange(len(b))
    ax1.errorbar(
        b["adjusted_power"],
        y,
        xerr=np.clip(
            np.vstack(
                [b["adjusted_power"] - b["adjusted_power_mc_low"], b["adjusted_power_mc_high"] - b["adjusted_power"]]
            ),
            0,
            None,
        ),
        fmt="o",
        ms=3,
        color="tab:blue",
        capsize=2,
        label="size-adjusted",
    )
    ax1.plot(b["power"], y, "x", ms=4, color="tab:grey", label="raw")
    ax2.errorbar(
        b["worst_null"],
        y,
        xerr=np.clip(
            np.vstack([b["worst_null"] - b["worst_null_low"], b["worst_null_high"] - b["worst_null"]]), 0, None
        ),
        fmt="o",
        ms=3,
        color="tab:red",
        capsize=2,
    )
    ax2.axvline(100 * ALPHA, color="k", ls="--", lw=1)
    ax2.axvline(150 * ALPHA, color="k", ls=":", lw=1)
    ax1.set_yticks(y, names, fontsize=7)
    ax1.invert_yaxis()
    ax1.set_xlabel("power, % (alternatives; dots size-adjusted, crosses raw)", fontsize=8)
    ax2.set_xlabel(
        f"Type I error of the deciding null scenario, % (simultaneous intervals; dashed alpha = "
        f"{100 * ALPHA:g}%, dotted the tolerance {150 * ALPHA:g}%)",
        fontsize=8,
    )
    ax1.legend(fontsize=7, loc="lower right")
    ax1.grid(alpha=0.3)
    ax2.grid(alpha=0.3)
    title = fig.suptitle(
        f"Leaderboard at alpha = {ALPHA:g}: procedures that control size on every null scenario, by "
        "size-adjusted power (equal rank = tied)",
        fontsize=9,
    )
    wrap_text(title, 0.95 * fig.bbox.width)
    # each axis label under its own panel: as wide as the panel at most (the layout sets the panels' widths)
    fig.draw_without_rendering()
    for ax in (ax1, ax2):
        wrap_text(ax.xaxis.label, ax.get_window_extent().width)
    return fig


def _figure_leaderboard(board, directory, top=20):
    from simstudy.outputs.plots.output import save_figure

    fig = leaderboard_figure(board, top)
    return None if fig is None else save_figure(fig, directory, "leaderboard", formats=("png",))[0]


def size_power_figure(board, named):
    """Every procedure: its worst null scenario's Type I error against its power, raw and size-adjusted (a Figure or None)."""
    import textwrap

    from simstudy.outputs.plots.layout import spread_labels, wrap_text
    from simstudy.outputs.plots.output import new_figure
    from simstudy.statistics.size_control import CONTROLS, LIBERAL

    b = board[np.isfinite(board["worst_null"]) & np.isfinite(board["power"])]
    if b.empty:
        return None
    fig = new_figure((10, 5))
    ax1, ax2 = fig.subplots(1, 2, sharey=True)
    colour = {CONTROLS: "tab:green", LIBERAL: "tab:red"}
    label_of = {v: k for k, v in named.items()}
    labels = {ax1: [], ax2: []}
    for ax, col, title in ((ax1, "power", "raw power"), (ax2, "adjusted_power", "size-adjusted power")):
        for verdict in (CONTROLS, "unresolved", LIBERAL):
            t = b[b["size"] == verdict]
            ax.scatter(t[col], t["worst_null"], s=12, color=colour.get(verdict, "tab:orange"), label=verdict, alpha=0.8)
        for proc, r in b.set_index("procedure").iterrows():
            if proc in label_of and np.isfinite(r[col]):
                labels[ax].append(
                    ax.annotate(
                        "\n".join(textwrap.wrap(label_of[proc], 40, break_on_hyphens=False)),
                        (r[col], r["worst_null"]),
                        fontsize=6,
                        xytext=(3, 2),
                        textcoords="offset points",
                        arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "0.5", "shrinkA": 0, "shrinkB": 2},
                    )
                )
        ax.axhline(100 * ALPHA, color="k", ls="--", lw=1)
        ax.axhline(150 * ALPHA, color="k", ls=":", lw=1)
        ax.set_yscale("symlog", linthresh=10)
        ax.set_xlabel(f"{title}, % (alternative data sets)", fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    ax1.set_ylabel("Type I error of the deciding null scenario, % (symlog)", fontsize=8)
    legend = ax1.legend(fontsize=7, title="size verdict", title_fontsize=7, loc="upper left")
    title = fig.suptitle(
        "Size against power: a liberal test gains raw power that size adjustment takes back "
        f"(dashed alpha = {100 * ALPHA:g}%, dotted the tolerance)",
        fontsize=9,
    )
    wrap_text(title, 0.95 * fig.bbox.width)
    spread_labels(labels[ax1] + labels[ax2], avoid=[legend])
    return fig


def _figure_size_power(board, named, directory):
    """Every procedure: its worst null scenario's Type I error against its power, raw and size-adjusted."""
    from simstudy.outputs.plots.output import save_figure

    fig = size_power_figure(board, named)
    return None if fig is None else save_figure(fig, directory, "size-power", formats=("png",))[0]
