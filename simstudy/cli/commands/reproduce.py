"""``simstudy reproduce``: every built-in study at a profile, then the whole reproduction page from those runs."""

from __future__ import annotations

from simstudy._files import DEFAULT_ROOT
from simstudy.errors import InputError

HELP = """Run (or resume) every built-in study at one profile, cheapest first, under one progress display
whose estimate covers them all (the proving ground with its adaptive rule, as `simstudy proving-ground`
runs it), then write the reproduction page from those runs: every study beside its published numbers,
the proving ground's own page, the compute each study took, and the commit and code fingerprint that
made each section's rows.  A stored run made by other code is computed again (moved aside, never deleted)
unless --keep is given; then its section says which commit made it.  Resumable: the same command
continues where it stopped."""


def register(subparsers):
    from simstudy.cli import add_profile_option

    p = subparsers.add_parser(
        "reproduce", help="every built-in study at a profile, then the whole reproduction page", description=HELP
    )
    add_profile_option(p)
    p.add_argument(
        "--jobs", type=int, default=1, help="parallel workers (default 1; at most 4 per CPU of this machine)"
    )
    p.add_argument("--backend", default="loky", help="loky (default, this machine) or dask")
    p.add_argument("--scheduler", default=None, help="dask scheduler address (default: a local cluster)")
    p.add_argument(
        "--results",
        metavar="ROOT",
        default=str(DEFAULT_ROOT),
        help=f"the root holding the runs as ROOT/STUDY/PROFILE (default {DEFAULT_ROOT})",
    )
    p.add_argument(
        "--out", metavar="DIR", default=None, help="where the page is written (default ROOT/reproduction/PROFILE)"
    )
    p.add_argument(
        "--keep",
        action="store_true",
        help="keep stored runs made by other code (their sections say so) instead of computing them again",
    )
    p.add_argument(
        "--study",
        action="append",
        dest="studies",
        default=None,
        metavar="STUDY",
        help="a built-in study to include (repeatable; default every one)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.set_defaults(func=run)


def run(args) -> int:
    from simstudy.apps.reproduce import reproduce
    from simstudy.engine.runner import BACKENDS, check_jobs

    if args.backend not in BACKENDS:
        raise InputError(f"--backend: must be one of {', '.join(BACKENDS)}, got {args.backend!r}")
    if args.scheduler and args.backend != "dask":
        raise InputError("--scheduler: only meaningful with --backend dask")
    check_jobs(args.jobs, local=not args.scheduler)
    if args.studies:
        from simstudy.apps.reproduce import built_in_studies

        unknown = [s for s in args.studies if s not in built_in_studies()]
        if unknown:
            raise InputError(f"--study: not a built-in study: {', '.join(unknown)}")
    done = reproduce(
        args.profile,
        results=args.results,
        out=args.out,
        jobs=args.jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        keep=args.keep,
        progress=not args.quiet,
        studies=args.studies,
    )
    for name, seconds in done["seconds"].items():
        print(f"  {name}: {seconds:.0f} s")
    print(f"wrote {done['html']} and {done['markdown']}")
    return 0
