"""``simstudy solve``: the value of a study's knob at which a quantity meets a target."""

from __future__ import annotations

from simstudy.cli import add_profile_option, add_run_dir_option
from simstudy.cli.commands import STUDY_HELP
from simstudy.errors import InputError

#: Exit status of a solve whose target no value in the interval reaches, or meets within error where the quantity
#: jumps across it between two values (an answer, not an error).
NOT_REACHED = 3

#: Exit status of a solve whose budget ran out before it could answer (see ``--max-evaluations``).
UNRESOLVED = 4


def register(subparsers):
    p = subparsers.add_parser(
        "solve",
        help="find the knob value at which a quantity meets a target (stochastic root finding)",
        description="Find the value of STUDY's knob at which QUANTITY equals VALUE, with a 95% interval whose "
        "ends were evaluated on either side of the target; the value reported was evaluated and agrees with the "
        "target within its error. Evaluations are stored under --out and reused when the command is repeated. "
        f"Exit 0 with an answer, {NOT_REACHED} when no value in the interval reaches the target (or the quantity "
        f"jumps across it between two values: the answer gives both), {UNRESOLVED} when the budget runs out first "
        "(unresolved), 2 on bad input or a budget larger than the machine can carry out.",
    )
    p.add_argument("study", help=STUDY_HELP)
    p.add_argument(
        "--knob",
        required=True,
        metavar="NAME",
        help="a knob the study declares (`simstudy list` does not show them; a wrong name lists them)",
    )
    p.add_argument(
        "--target",
        required=True,
        metavar="QUANTITY=VALUE",
        help="e.g. F=0.95 or 'R2: paired_t=0.9'; a wrong quantity lists the known ones",
    )
    p.add_argument(
        "--interval",
        nargs=2,
        type=float,
        default=None,
        metavar=("LO", "HI"),
        help="where to search (default the knob's own interval)",
    )
    p.add_argument(
        "--tolerance",
        type=float,
        default=None,
        metavar="T",
        help="stop when the root's 95%% interval is at most T wide (default 2%% of the interval)",
    )
    p.add_argument(
        "--block",
        type=int,
        default=None,
        metavar="N",
        help="replications per block at one value, at least 2 (default the profile's replications)",
    )
    p.add_argument(
        "--max-evaluations",
        type=int,
        default=20,
        metavar="N",
        help="blocks of replications used at most, one per value of the first grid of five included (default 20); "
        "refused when they need more memory, disk or time than this machine has",
    )
    p.add_argument(
        "--condition",
        default=None,
        metavar="KEY",
        help="the profile's condition whose knob is set (default the knob's choice; a wrong key lists them)",
    )
    add_profile_option(p)
    p.add_argument("--jobs", type=int, default=1, help="parallel workers (default 1)")
    add_run_dir_option(p, "the directory holding the evaluations (default results/STUDY/solve-KNOB)")
    p.add_argument("--seed", type=int, default=None, help="root seed (default the package's fixed seed)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_solve)


def _target(text: str):
    name, sep, value = text.rpartition("=")
    try:
        number = float(value)
    except ValueError:
        number = None
    if not sep or not name.strip() or number is None:
        raise InputError(f"--target: expected QUANTITY=VALUE (e.g. F=0.95), got {text!r}")
    return name.strip(), number


def cmd_solve(args) -> int:
    from simstudy.engine.solve import solve

    result = solve(
        args.study,
        args.knob,
        _target(args.target),
        interval=args.interval,
        tolerance=args.tolerance,
        profile=args.profile,
        out=args.out,
        block=args.block,
        max_evaluations=args.max_evaluations,
        jobs=args.jobs,
        seed=args.seed,
        progress=not args.quiet,
        condition=args.condition,
    )
    print(result.describe())
    print(result.evaluations.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"stored in {result.out} (solve.json); the same command re-reads it")
    return {"solved": 0, "not reached": NOT_REACHED}.get(result.status, UNRESOLVED)
