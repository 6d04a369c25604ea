"""``simstudy compare STUDY``: the published numbers next to ours, from stored results."""

from __future__ import annotations

from simstudy.cli import add_profile_option, add_run_dir_option
from simstudy.cli.commands import STUDY_HELP


def register(subparsers):
    p = subparsers.add_parser(
        "compare",
        help="compare a stored run with the published numbers",
        description="Print (and save beside the results as comparison.md/.csv) "
        "every published number of STUDY next to ours with its Monte Carlo interval.",
    )
    p.add_argument("study", help=STUDY_HELP)
    add_profile_option(p, reads_run=True)
    add_run_dir_option(p, "the run directory to read, where comparison.md is saved too (default results/STUDY/PROFILE)")
    p.set_defaults(func=run)


def run(args) -> int:
    from simstudy.engine import get_study
    from simstudy.engine.runs import locate_run
    from simstudy.outputs.published import comparison_report

    st = get_study(args.study)  # unknown study or a broken file -> one-line error
    out, profile = locate_run(st, args.profile, args.out, spelled=args.study)
    # the terminal gets the comparison; the saved file also has every summary table
    saved = out / "comparison.md"
    before = saved.stat().st_mtime_ns if saved.exists() else None
    print(comparison_report(st, profile=profile, out=out, with_tables=False).rstrip())
    if saved.exists() and saved.stat().st_mtime_ns != before:  # a read-only store skips the file (note on stderr)
        print(f"\n(saved with the full summary tables to {saved})")
    return 0
