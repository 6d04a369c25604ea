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
