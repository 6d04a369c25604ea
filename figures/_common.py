"""Shared command-line handling of the figure scripts: where to read results, where to write."""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def parse(description: str, *, needs_results: bool = True):
    parser = argparse.ArgumentParser(description=description)
    if needs_results:
        parser.add_argument("--profile", default="quick")
        parser.add_argument("--results", default="results", help="root of stored results (default: results)")
    parser.add_argument("--out", default=None, help="output directory (default: RESULTS/figures/PROFILE)")
    args = parser.parse_args()
    if args.out is None:
        root = Path(getattr(args, "results", "results"))
        args.out = str(root / "figures" / getattr(args, "profile", "analytic"))
    return args


def tables(study: str, args):
    """The study's summary tables, recomputed from its stored rows."""
    from simstudy.reproduce import summary_tables

    return summary_tables(study, profile=args.profile, out=Path(args.results) / study / args.profile)


def save(fig, name: str, args):
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for ext in ("png", "pdf"):
        fig.savefig(out / f"{name}.{ext}", dpi=150, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {out / name}.png and .pdf")


def label_points(ax, x, y, labels, *, min_gap=0.22):
    """Label points along a log-p axis, skipping a label closer than ``min_gap`` decades to the last one."""
    import numpy as np

    last = None
    for xi, yi, text in sorted(zip(x, y, labels), key=lambda t: -t[0]):
        pos = np.log10(xi) if xi > 0 else -np.inf
        if last is None or last - pos >= min_gap:
            ax.annotate(text, (xi, yi), fontsize=7, ha="center")
            last = pos


def binomial_figure(study: str, name: str, title: str, args):
    """Figures 9 and 11: binomial and Bayesian P (with prediction intervals) and F against the binomial p."""
    from simstudy.plots import replication_vs_p

    t = tables(study, args)["binomial"]
    t = t[t["binomial_p"] < 0.05].drop_duplicates("binomial_statistic")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    if len(t):
        replication_vs_p(t, "binomial", ax=ax, color="black", label="binomial model $P_b$", offset=0.95)
        replication_vs_p(t, "bayes", ax=ax, color="tab:blue", label="Bayesian model $P_B$", offset=1.05, show_f=False)
        for _, r in t.iterrows():
            ax.annotate(f"g={int(r['g'])}", (r["binomial_p"], 0.02), fontsize=7, ha="center")
        ax.legend(loc="lower left")
    else:
        ax.text(0.5, 0.5, "no group with a significant mean success rate at this profile", ha="center",
                transform=ax.transAxes)
    ax.set_title(f"{title} (binomial p-value), profile {args.profile}")
    save(fig, name, args)


def wilcoxon_figure(study: str, name: str, title: str, args):
    """Figures 10 and 12: Wilcoxon P_w (bootstrapped s*) with prediction intervals and F against p."""
    from simstudy.plots import replication_vs_p

    t = tables(study, args)["wilcoxon"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    model = "wilcoxon" if "wilcoxon_P" in t else "wilcoxon_s1"
    replication_vs_p(t, model, ax=ax, label="$P_w$" + ("" if model == "wilcoxon" else " (s* = 1: no bootstrap rows)"))
    ax.legend(loc="lower left")
    ax.set_title(f"{title} (Wilcoxon), profile {args.profile}")
    save(fig, name, args)


def t_figure(study: str, name: str, title: str, group: str, first: int, args):
    """Figures 13 and 14: P_t with prediction intervals and F against the corrected t-test's p."""
    from simstudy.plots import replication_vs_p

    t = tables(study, args)["t"]
    t = t[t[group] >= first]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    replication_vs_p(t, "t", ax=ax, label="$P_t$")
    label_points(ax, t["t_p"], t["t_P_high"] + 0.01, [f"{group}={int(v)}" for v in t[group]])
    ax.legend(loc="lower left")
    ax.set_title(f"{title}, profile {args.profile}")
    save(fig, name, args)
