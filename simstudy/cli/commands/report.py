"""``simstudy report``: every stored study beside the published numbers, as HTML and Markdown."""

from __future__ import annotations

from pathlib import Path

from simstudy._files import DEFAULT_PROFILE, DEFAULT_ROOT
from simstudy.errors import InputError


def register(subparsers):
    p = subparsers.add_parser("report", help="one HTML page (and Markdown) of every study stored at a profile")
    p.add_argument(
        "--profile",
        metavar="P",
        default=DEFAULT_PROFILE,
        help=f"the profile to report: smoke, quick or paper, or 'largest' for each study at the "
        f"largest profile it has stored (default {DEFAULT_PROFILE})",
    )
    p.add_argument(
        "--results",
        metavar="ROOT",
        default=str(DEFAULT_ROOT),
        help=f"the root holding the runs as ROOT/STUDY/PROFILE (default {DEFAULT_ROOT})",
    )
    p.add_argument(
        "--out", metavar="DIR", default=None, help="the directory the page is written to (default ROOT/report/PROFILE)"
    )
    p.add_argument(
        "--study",
        action="append",
        dest="studies",
        default=None,
        metavar="STUDY",
        help="a study to include: registered name or path of a .py file defining STUDY "
        "(repeatable; default every registered study)",
    )
    p.add_argument(
        "--carry-from",
        metavar="DIR",
        default=None,
        help="the folder of an earlier page: a study with nothing stored under --results keeps its section "
        "from that page, judged again by this page's rules and saying so",
    )
    p.add_argument(
        "--replay",
        metavar="N",
        type=int,
        default=0,
        help="for a section whose rows were made by other code than this page's, compute the first N stored "
        "replications of each condition again and say whether they give the stored rows (default 0: not checked)",
    )
    p.set_defaults(func=run)


def _check_stored(studies, profile: str, root: Path) -> None:
    """Refuse an unknown profile, and a report of nothing (before anything is written)."""
    known = list(dict.fromkeys(p for st in studies for p in st.profiles))
    if profile == "largest":
        if not any((root / st.name).glob("*/manifest.json") for st in studies if (root / st.name).is_dir()):
            raise InputError(
                f"nothing stored in {root} for {'study ' + studies[0].name if len(studies) == 1 else 'any study'}"
                "; store a run with `simstudy run STUDY` first (see `simstudy list`), or pass "
                "--results ROOT where the runs are"
            )
        return
    if profile not in known:
        if len(studies) == 1:
            studies[0].profile(profile)  # the study's own message, naming its profiles
        raise InputError(f"--profile: no study has a profile {profile!r}; the profiles are {', '.join(known)}")

    def stored(p):
        return [st.name for st in studies if (root / st.name / p / "manifest.json").is_file()]

    if stored(profile):
        return
    one = studies[0].name if len(studies) == 1 else None
    elsewhere = [p for p in known if p != profile and stored(p)]
    if elsewhere:
        hint = f"stored at {', '.join(elsewhere)}: pass --profile {elsewhere[0]}"
    else:
        hint = f"store a run with `simstudy run {one or 'STUDY'} --profile {profile}`" + (
            "" if one else " (see `simstudy list`)"
        )
        if root == DEFAULT_ROOT:
            hint += ", or pass --results ROOT where the runs are"
    looked = f"{root / (one or 'STUDY') / profile / 'manifest.json'}" + ("" if one else f", {len(studies)} studies")
    raise InputError(f"nothing stored at profile {profile!r} in {root} (looked for {looked}); {hint}")


def run(args) -> int:
    from simstudy.engine import list_studies
    from simstudy.outputs.report import build_report, resolve_studies

    studies = resolve_studies(args.studies if args.studies is not None else list_studies())
    _check_stored(studies, args.profile, Path(args.results))
    out = Path(args.out) if args.out is not None else Path(args.results) / "report" / args.profile
    carry = Path(args.carry_from) if args.carry_from is not None else None
    if carry is not None and not (carry / "report.md").is_file():
        raise InputError(f"--carry-from: {carry} holds no report.md of an earlier page")
    try:
        html_path, md_path = build_report(
            args.profile, args.results, out, studies=studies, carry_from=carry, replay=args.replay, progress=True
        )
    except OSError as exc:  # e.g. a full disk while the page is written: one line naming where
        from simstudy.engine.store import os_error

        raise os_error(exc, out, what="the report", resume=False) from None
    print(f"wrote {html_path} and {md_path}")
    return 0
