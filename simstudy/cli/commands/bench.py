"""``simstudy bench STUDY --test TEST``: a test beside a study's built-in tests, on its stored replications."""

from __future__ import annotations

import argparse

from simstudy._files import DEFAULT_ROOT
from simstudy.cli import add_profile_option, add_run_dir_option
from simstudy.errors import InputError

DESCRIPTION = (
    "Run a registered test, every registered test (--test all) or a user-defined one (module:function or "
    "file.py:function) on the paired scores a study stored, and print it beside the study's built-in tests on "
    "the same replications: in the form of the study's published table, with a size verdict and size-adjusted "
    "power where the study has null conditions, and paired differences. A plug-in returns (statistic, pvalue), "
    "a decision array, or None to decline a design (see the page 'Write a test')."
)


def _width() -> int:
    """The width argparse formats help to (the terminal's, less 2)."""
    import shutil

    return max(shutil.get_terminal_size().columns - 2, 40)


def tests_epilog(width: int | None = None) -> str:
    """The registered tests, one per line with what it takes and its description (for ``--help``)."""
    import textwrap

    from simstudy.pipeline.outcomes import get_test, test_names

    width = width or _width()
    lines = ["registered tests (* = run by --test all):"]
    for n in test_names():
        spec = get_test(n)
        lines += textwrap.wrap(
            f"{n}{'*' if spec.in_all else ''} ({spec.takes}): {spec.description}",
            width=width,
            initial_indent="  ",
            subsequent_indent="      ",
        )
    lines += textwrap.wrap(
        "(sample: run on each sampling scheme the study stores; cv: the whole r x k cv; splits: random "
        "train/test splits; 5x2: Dietterich's design; scores: the paired scores themselves)",
        width=width,
        initial_indent="  ",
        subsequent_indent="   ",
    )
    return "\n".join(lines)


def register(subparsers):
    import textwrap

    p = subparsers.add_parser(
        "bench",
        help="run a test on the stored replications of a study, beside its own tests",
        description=textwrap.fill(DESCRIPTION, width=_width()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    plain = p.format_help

    def format_help():  # the registry is read only when the help is asked for, not for every command
        p.epilog = tests_epilog()
        return plain()

    p.format_help = format_help
    p.add_argument(
        "target",
        metavar="STUDY",
        help="a study that stores paired scores: its name or the path of its .py file",
    )
    p.add_argument(
        "--test",
        required=True,
        help="a registered test (listed below, e.g. corrected_cv_t), 'all', or a plug-in, e.g. "
        "examples/permutation_test.py:sign_flip",
    )
    p.add_argument(
        "--scheme",
        default=None,
        help="optional plug-in sampling scheme (module:function) for a plug-in "
        "test; its sample reaches the test as scores.sample",
    )
    add_profile_option(p, reads_run=True)
    add_run_dir_option(
        p, "the run directory to read, where a copy of the table goes to bench/ (default results/STUDY/PROFILE)"
    )
    # the older spelling of where runs are looked for (ROOT/STUDY/PROFILE); --out names the run itself
    p.add_argument("--results", default=None, help=argparse.SUPPRESS)
    p.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="significance level for the new and the built-in tests (default: 0.05); a plug-in that returns "
        "decisions decides by its own rule",
    )
    p.add_argument(
        "--timeout", default=None, help="seconds a plug-in may take for one call (default 300; 'none': no limit)"
    )
    p.add_argument(
        "--design",
        default=None,
        help="the stored design the new tests run on, for a study that stores several (default: per test, the "
        "design it is made for or its input comes from; the report says which)",
    )
    p.set_defaults(func=run)


def parse_seconds(value, option: str, *, none: bool = True):
    """A command-line time limit: a positive finite number of seconds, or None for ``'none'`` (when allowed).

    Parameters
    ----------
    value : str or None
        The option's text as given (None: not given, returned as is).
    option : str
        The option the errors name, e.g. ``--timeout``.
    none : bool
        Whether ``'none'`` (no limit) is accepted; it is returned as the string ``'none'``.

    Raises
    ------
    ValueError
        One line naming ``option``: not a number, or not a positive finite one.
    """
    if value is None or (none and value == "none"):
        return value
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        what = "a number of seconds or 'none'" if none else "a number of seconds"
        raise InputError(f"{option}: {what}, got {value!r}") from None
    if not (seconds > 0 and seconds < float("inf")):
        raise InputError(f"{option}: must be a positive number of seconds, got {value!r}")
    return seconds


def run(args) -> int:
    from simstudy.apps.bench import bench

    timeout = parse_seconds(args.timeout, "--timeout")
    print(
        bench(
            args.target,
            test=args.test,
            scheme=args.scheme,
            profile=args.profile,
            results=args.results or DEFAULT_ROOT,
            out=args.out,
            alpha=args.alpha,
            timeout=timeout,
            design=args.design,
        )
    )
    return 0
