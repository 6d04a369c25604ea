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
