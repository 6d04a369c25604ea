"""``simstudy report``: every stored study beside the published numbers, as HTML and Markdown."""

from __future__ import annotations


def register(subparsers):
    p = subparsers.add_parser("report", help="one HTML page (and Markdown) of every study stored at a profile")
    p.add_argument("--profile", default="quick")
    p.add_argument("--results", default="results", help="root of the stored results (default: results)")
    p.add_argument("--out", default=None, help="output directory (default RESULTS/report/PROFILE)")
    p.add_argument("--study", action="append", dest="studies", default=None, metavar="STUDY",
                   help="a study to include: registered name or path of a .py file defining STUDY "
                        "(repeatable; default every registered study)")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..report import build_report

    html_path, md_path = build_report(args.profile, args.results, args.out, studies=args.studies)
    print(f"wrote {html_path} and {md_path}")
    return 0
