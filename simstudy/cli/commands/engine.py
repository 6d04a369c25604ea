"""Engine sub-commands: ``list``, ``run``, ``status``, ``summarize`` and ``replay``."""

from __future__ import annotations

import sys
from pathlib import Path

from simstudy.cli import add_profile_option, add_run_dir_option
from simstudy.cli.commands import STUDY_HELP
from simstudy.errors import InputError


def _fmt_seconds(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def register(subparsers):
    p = subparsers.add_parser(
        "list",
        help="list the studies, their profiles and estimated cost",
        description="List the registered studies (or those named: names or .py files), their profiles and "
        "estimated cost.",
    )
    p.add_argument(
        "studies",
        nargs="*",
        metavar="STUDY",
        help="studies to list, each a name or the path of a .py file defining STUDY (default every registered study)",
    )
    p.add_argument("--jobs", type=int, default=2, help="workers assumed for the wall-time estimate (default 2)")
    p.set_defaults(func=cmd_list)

    p = subparsers.add_parser(
        "run",
        help="run (or resume) a study and store its raw rows",
        description="Run STUDY at a profile; rerunning the same command resumes.",
    )
    p.add_argument("study", help=STUDY_HELP)
    add_profile_option(p)
    p.add_argument(
        "--jobs", type=int, default=1, help="parallel workers (default 1; at most 4 per CPU of this machine)"
    )
    p.add_argument("--backend", default="loky", help="loky (default, this machine) or dask")
    p.add_argument("--scheduler", default=None, help="dask scheduler address (default: a local cluster)")
    add_run_dir_option(p, "the run directory to store into (default results/STUDY/PROFILE)")
    p.add_argument("--seed", type=int, default=None, help="root seed (default the package's fixed seed)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--fresh",
        action="store_true",
        help="start afresh when --out holds a run of another configuration, code or package versions: "
        "that run is renamed to OUT.replaced-STAMP (never deleted)",
    )
    p.add_argument(
        "--target-mcse",
        type=float,
        default=None,
        metavar="E",
        help="adaptive run: add replications per condition (the profile's count at a time) until the "
        "Monte Carlo standard error of every target (the rejection rates, unless the study "
        "declares its own) is at most E",
    )
    p.add_argument(
        "--max-replications",
        type=int,
        default=None,
        metavar="N",
        help="with --target-mcse: at most N replications per condition (default 10 x the profile's)",
    )
    p.add_argument(
        "--step",
        type=int,
        default=None,
        metavar="N",
        help="with --target-mcse: replications of the first stage and added at each later one (default the profile's)",
    )
    p.set_defaults(func=cmd_run)

    p = subparsers.add_parser("status", help="progress of a stored run")
    p.add_argument("study", help=STUDY_HELP)
    add_profile_option(p, reads_run=True)
    add_run_dir_option(p, "the run directory to read (default results/STUDY/PROFILE)")
    p.set_defaults(func=cmd_status)

    p = subparsers.add_parser("summarize", help="summary tables recomputed from stored rows")
    p.add_argument("study", help=STUDY_HELP)
    add_profile_option(p, reads_run=True)
    add_run_dir_option(p, "the run directory to read (default results/STUDY/PROFILE)")
    p.add_argument(
        "--csv", action="store_true", help="also write each table as DIR/summary_TABLE.csv (the paths are printed)"
    )
    p.set_defaults(func=cmd_summarize)

    p = subparsers.add_parser("replay", help="re-run one replication (e.g. a stored failure) in this process")
    p.add_argument("study", help=STUDY_HELP)
    p.add_argument(
        "--condition",
        required=True,
        metavar="C",
        help="the condition's key, as in the stored rows and `simstudy status` (e.g. mu0.8)",
    )
    p.add_argument(
        "--replication",
        type=int,
        required=True,
        metavar="R",
        help="the replication's number within the condition, from 0",
    )
    add_profile_option(p)
    p.add_argument(
        "--seed", type=int, default=None, help="root seed the run was made with (default the package's fixed seed)"
    )
    p.set_defaults(func=cmd_replay)


def cmd_list(args) -> int:
    from simstudy.engine import get_study, study_origins

    if args.jobs < 1:
        raise InputError(f"--jobs: must be >= 1, got {args.jobs}")
    origins = study_origins()
    named = {}
    # the studies named are loaded, and their plans made, before anything is printed: a bad one is one line, exit 2
    for study in args.studies:
        st = get_study(study)
        plans = [(pname, prof, st.conditions_for(prof)) for pname, prof in st.profiles.items()]
        named[st.name] = (origins[study] if study in origins else f"file {study}", st, plans)
    print(
        f"{'study':<10} {'from':<11} {'profile':<7} {'conditions':>10} {'replications':>12} "
        f"{'est. wall (' + str(args.jobs) + ' jobs)':>20} {'first run':>9}  title"
    )
    grows = False
    for name, origin in ((n, v[0]) for n, v in named.items()) if args.studies else origins.items():
        # built-in, entry point (the entry point and its package are named after the title), file or clash
        if origin == "built-in" or origin.startswith("file "):
            kind = origin.split()[0]
        else:
            kind = "clash" if origin.startswith("clash") else "entry point"
        where = "" if origin == "built-in" else f" [{origin}]"
        if name in named:
            st, plans = named[name][1:]
        else:
            try:
                st = get_study(name)
                plans = [(pname, prof, st.conditions_for(prof)) for pname, prof in st.profiles.items()]
            except (ImportError, ValueError, OSError) as exc:  # e.g. data or an optional package missing
                print(f"{name:<10} {kind:<11} unavailable here: {exc}")
                continue
        for i, (pname, prof, conds) in enumerate(plans):
            n = sum(getattr(c, "n_replications", None) or prof.n_replications for c in conds)
            low, high = st.wall_range(prof, args.jobs)
            wall = (
                _fmt_seconds(low)
                if _fmt_seconds(high) == _fmt_seconds(low)
                else f"{_fmt_seconds(low)} to {_fmt_seconds(high)}"
            )
            grows = grows or high > low
            first = f"+{_fmt_seconds(st.cost.compile_seconds)}" if st.cost.compile_seconds else ""
            print(
                f"{name:<10} {kind:<11} {pname:<7} {len(conds):>10} {n:>12} {wall:>20} {first:>9}  "
                f"{st.title + where if pname == 'smoke' or (i == 0 and 'smoke' not in st.profiles) else ''}"
            )
    print(
        "est. wall: a fresh run with --jobs workers, start-up included; first run: what the first run after "
        "installing adds to compile the study's kernels (kept for later runs)"
    )
    if grows:
        print(
            "a range: the study adds replications until its targets are precise enough (its adaptive rule); from "
            "a run that stops at its first stage to one whose every growing condition reaches the cap"
        )
    return 0


def cmd_run(args) -> int:
    from simstudy.engine import DEFAULT_SEED, run_study
    from simstudy.engine.runner import run_code_changes

    seed = DEFAULT_SEED if args.seed is None else args.seed
    run = run_study(
        args.study,
        args.profile,
        out=args.out,
        jobs=args.jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        seed=seed,
        progress=not args.quiet,
        fresh=args.fresh,
        target_mcse=args.target_mcse,
        max_replications=args.max_replications,
        step=args.step,
    )
    import os

    mine = [r for r in run.manifest["runs"] if r.get("pid") == os.getpid()] or run.manifest["runs"][-1:]
    info = {
        "replications_computed": sum(r.get("replications_computed", 0) for r in mine),  # every stage of
        "seconds": sum(r.get("seconds", 0.0) for r in mine),  # an adaptive run
        "chunks_discarded": mine[-1].get("chunks_discarded"),
    }
    label = f"{run.manifest.get('study', args.study)}/{args.profile}"  # the study's name, also for a file
    bad = info.get("chunks_discarded") or {}
    if bad:
        print(
            f"{label}: recomputed "
            + " and ".join(f"{n} {state}" for state, n in bad.items())
            + " chunk(s) (damaged: a checksum failed; foreign: computed for another run)",
            file=sys.stderr,
        )
    changed = run_code_changes(run)
    if changed:
        print(
            f"{label}: the stored rows in {run.path} were computed by other code or package versions (changed: "
            f"{', '.join(changed)}); nothing was recomputed: use --fresh to compute them with this code",
            file=sys.stderr,
        )
    n_fail = len(run.failures)
    print(
        f"{label}: {run.manifest['status']}; computed {info['replications_computed']} "
        f"replications in {info['seconds']:.1f} s; {n_fail} failed replication(s); stored in {run.path}"
    )
    _print_adaptive(run.manifest)
    if n_fail:
        f = run.failures.iloc[0]
        print(
            f"  first failure: condition {f['condition']} replication {f['replication']}: {f['error']}\n"
            f"  replay it with: simstudy replay {args.study} --profile {args.profile} "
            f"--condition {f['condition']} --replication {f['replication']}"
            + (f" --seed {seed}" if seed != DEFAULT_SEED else "")
        )
    total = sum(c["stop"] - c["start"] for c in run.manifest["plan"])
    if run.manifest["status"] == "complete" and n_fail and n_fail >= total:
        print(f"{label}: every replication failed; there are no results to read", file=sys.stderr)
        return 1
    if run.manifest["status"] == "complete":
        print(_next_steps(args, run))
    return 0


def _next_steps(args, run) -> str:
    """What to do with a finished run: the commands that read it, with the options that find it."""
    import shlex

    from simstudy.engine import get_study
    from simstudy.engine.runs import DEFAULT_ROOT

    st = get_study(args.study)
    study = shlex.quote(args.study)
    path = Path(run.path)
    where = f" --profile {args.profile}" + (f" --out {shlex.quote(str(path))}" if args.out is not None else "")
    steps = [
        (f"simstudy compare {study}{where}", "the published numbers beside ours (saved as comparison.md)"),
        (f"simstudy summarize {study}{where} --csv", "the summary tables, also as CSV files"),
    ]
    if st.provides.paired_scores is not None:
        steps.append((f"simstudy bench {study}{where} --test all", "every registered test on the same replications"))
    if path.name == args.profile and path.parent.name == st.name:  # a report finds it under ROOT/STUDY/PROFILE
        root = path.parent.parent
        report = f"simstudy report --profile {args.profile}"
        if root != DEFAULT_ROOT:
            report += f" --results {shlex.quote(str(root))}"
        if args.study.endswith(".py") or "/" in args.study:  # a study file: name it, the report lists registered ones
            report += f" --study {study}"
        steps.append((report, "every study stored at this profile on one page"))
    width = max(len(cmd) for cmd, _ in steps)
    return "next:\n" + "\n".join(f"  {cmd:<{width}}  # {what}" for cmd, what in steps)


def _load(args):
    from simstudy.engine import get_study, load_run
    from simstudy.engine.runs import locate_run

    st = get_study(args.study)
    path, profile = locate_run(st, args.profile, args.out, spelled=args.study)
    return st, load_run(st, profile=profile, out=path)


def _state_line(run) -> tuple[str, str]:
    """The run's status in a word, and a line: running or not (who holds its lock), complete or not (checksums).

    The word is ``running`` only while a process holds the lock; a run whose
    manifest still says running is ``interrupted`` once its process is gone.
    """
    from simstudy.engine.store import lock_holder

    states = run.chunk_states()
    counts = {s: sum(v == s for v in states.values()) for s in ("missing", "damaged", "foreign")}
    alive, holder = lock_holder(run.path)
    if alive:
        who = (
            f"pid {holder.get('pid')} on {holder.get('host')}, since {holder.get('since')}"
            if holder
            else "a process that has not recorded itself yet"
        )
        activity = f"running ({who})"
    elif run.manifest.get("status") == "running" or holder:
        who = f" (pid {holder.get('pid')} on {holder.get('host')}, started {holder.get('since')})" if holder else ""
        activity = f"not running: the last run{who} died before finishing; run the same command to resume"
    else:
        activity = "not running"
    if counts["damaged"] or counts["foreign"]:
        health = (
            f"damaged: {counts['damaged']} chunk(s) fail their checksums, {counts['foreign']} belong to "
            "another run or other code; `simstudy run` with the same options recomputes them"
        )
    elif counts["missing"]:
        health = f"incomplete: {counts['missing']} chunk(s) not stored yet"
    else:
        health = "complete: every chunk verified"
    word = run.manifest.get("status")
    if alive:
        word = "running"
    elif word == "running":
        word = "interrupted"
    return word, f"  {health}; {activity}"


def _print_adaptive(manifest) -> None:
    from simstudy.engine.adaptive import adaptive_table

    table = adaptive_table(manifest)
    if table is not None:
        print(f"  adaptive: {manifest['adaptive']['rule']}")
        print("  " + table.to_string(index=False).replace("\n", "\n  "))


def _plain_table(rows: list[dict]) -> str:
    """Rows of equal keys as right-aligned columns (the layout of ``DataFrame.to_string(index=False)``)."""
    columns = list(rows[0]) if rows else []
    cells = [[str(c) for c in columns]] + [[str(r[c]) for c in columns] for r in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    return "\n".join("  ".join(v.rjust(w) for v, w in zip(line, widths)) for line in cells)


def cmd_status(args) -> int:
    st, run = _load(args)
    prog = run.progress_rows()  # plain rows: status reads no table and imports no pandas
    done, planned = sum(r["done"] for r in prog), sum(r["planned"] for r in prog)
    word, line = _state_line(run)
    print(
        f"{st.name}/{run.manifest['profile']} in {run.path}: {done}/{planned} replications stored "
        f"({100 * done / planned:.0f}%), {run.n_failures()} failed; status {word}"
    )
    print(line)
    from simstudy.engine.fingerprint import provenance, provenance_changes

    changed = provenance_changes(run.manifest.get("provenance"), provenance(st))
    if changed:
        print(f"  made by other code or versions than this simstudy's: {', '.join(changed)}")
    secs = sum(r.get("seconds", 0) for r in run.manifest.get("runs", []))
    print(
        f"  runs: {len(run.manifest.get('runs', []))}, compute wall time so far {secs:.1f} s, "
        f"root seed {run.manifest['root_seed']}, config {run.manifest['config_hash'][:12]}"
    )
    print(_plain_table(prog))
    _print_adaptive(run.manifest)
    return 0


def cmd_summarize(args) -> int:
    import pandas as pd

    from simstudy._files import write_atomic
    from simstudy.engine.adaptive import adaptive_table

    st, run = _load(args)
    if run.complete and not [t for t in run.tables() if t != "failures"] and len(run.failures):
        f = run.failures.iloc[0]
        print(
            f"simstudy: {run.path}: no rows to summarise: every replication failed (first: condition "
            f"{f['condition']} replication {f['replication']}: {f['error']})",
            file=sys.stderr,
        )
        return 1
    tables = dict(st.summarize(run))
    adaptive = adaptive_table(run.manifest)
    if adaptive is not None:  # how many replications each condition used, and the precision reached
        tables["adaptive"] = adaptive
    written = []
    with pd.option_context("display.width", 200, "display.max_columns", 40, "display.max_rows", 500):
        for name, df in tables.items():
            print(f"\n== {name} ==")
            print(df.to_string(index=False))
            if args.csv:
                target = Path(run.path) / f"summary_{name}.csv"
                try:
                    write_atomic(target, df.to_csv(index=False))
                except OSError as exc:
                    raise InputError(f"--csv: cannot write {target}: {exc.strerror or exc}") from None
                written.append(target)
    if not run.complete:
        print(
            f"\n(run incomplete: {int(run.progress()['done'].sum())} of "
            f"{int(run.progress()['planned'].sum())} replications stored)"
        )
    if written:
        print(f"\nwrote {len(written)} CSV file(s):")
        for target in written:
            print(f"  {target}")
    return 0


def cmd_replay(args) -> int:
    import pandas as pd

    from simstudy.engine import DEFAULT_SEED, replay

    tables = replay(
        args.study,
        args.condition,
        args.replication,
        profile=args.profile,
        seed=DEFAULT_SEED if args.seed is None else args.seed,
    )
    with pd.option_context("display.width", 200, "display.max_columns", 40):
        for name, df in tables.items():
            print(f"== {name} ==\n{df.to_string(index=False)}")
    return 0
