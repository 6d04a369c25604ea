"""Shared command-line handling of the figure scripts: where to read results, where to write.

The figures themselves are drawn by :mod:`simstudy.outputs.plots`; a study's figures
are the ones its declaration lists (``Study.publication.figures``).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def parse(description: str, *, needs_results: bool = True):
    """Parse ``--profile``, ``--results`` (when ``needs_results``) and ``--out``.

    ``--out`` defaults to ``RESULTS/figures/PROFILE`` (``results/figures/analytic``
    for the analytic figures).
    """
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


def save(fig, name: str, args):
    """Write ``fig`` as ``OUT/name.png`` and ``.pdf`` (atomically) and say so."""
    from simstudy.outputs.plots import save_figure

    save_figure(fig, args.out, name)
    print(f"wrote {Path(args.out) / name}.png and .pdf")


def study_figure(study: str, name: str, args):
    """Draw the figure ``name`` that ``study`` declares, from its rows stored at ``--profile``."""
    from simstudy.engine import get_study, load_run
    from simstudy.outputs.plots import render_study_figure

    st = get_study(study)
    figure = next((f for f in st.publication.figures if f.name == name), None)
    if figure is None:
        raise SystemExit(
            f"{name}: study {study!r} declares no such figure "
            f"(its figures: {', '.join(f.name for f in st.publication.figures) or 'none'})"
        )
    run = load_run(st, profile=args.profile, out=Path(args.results) / study / args.profile)
    render_study_figure(st, figure, st.summarize(run), run, args.out, profile=args.profile, force=True)
    print(f"wrote {Path(args.out) / name}.png and .pdf")
