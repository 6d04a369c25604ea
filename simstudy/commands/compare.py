"""``simstudy compare STUDY``: the published numbers next to ours, from stored results."""

from __future__ import annotations

from pathlib import Path

from . import STUDY_HELP


def register(subparsers):
    p = subparsers.add_parser("compare", help="compare a stored run with the published numbers",
                              description="Print (and save beside the results as comparison.md/.csv) "
                                          "every published number of STUDY next to ours with its Monte Carlo interval.")
    p.add_argument("study", help=STUDY_HELP)
    p.add_argument("--profile", default="quick")
    p.add_argument("--out", default=None, help="results directory (default results/STUDY/PROFILE)")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..engine import get_study
    from ..reproduce import comparison_report

    st = get_study(args.study)  # unknown study or a broken file -> one-line error
    out = Path(args.out) if args.out else Path("results") / st.name / args.profile
    if not out.exists():
        raise ValueError(f"study {st.name!r}: no stored results in {out}; run `simstudy run {args.study} --profile {args.profile}` first")
    # the terminal gets the comparison; the saved file also has every summary table
    saved = out / "comparison.md"
    before = saved.stat().st_mtime_ns if saved.exists() else None
    print(comparison_report(st, profile=args.profile, out=out, with_tables=False).rstrip())
    if saved.exists() and saved.stat().st_mtime_ns != before:  # a read-only store skips the file (note on stderr)
        print(f"\n(saved with the full summary tables to {saved})")
    return 0
