"""The ``proving-ground`` sub-command: every test on a bank of scenarios with a known truth, and its report."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from simstudy._files import DEFAULT_ROOT
from simstudy.errors import InputError

HELP = """Run (or resume) the proving ground, a study that applies every registered test the designs allow to the
same fits on a bank of null and alternative scenarios with a stored truth, then write its report into the run
directory: the papers' statements checked, size verdicts per null scenario (controls size, liberal or unresolved,
from simultaneous intervals; null scenarios get data sets until their verdicts are decided, up to a cap), a
leaderboard of the procedures that control size, by size-adjusted power (ties where paired intervals overlap), why
tests are liberal (the measured correlation of splits against the one the tests assume), calibration curves and
null p-value distributions, power and replicability curves, and the
calibration of Berrar's replication probability from his stored studies 1-3. Plug-in tests are applied to the stored
paired scores, without refitting."""


def register(subparsers):
    from simstudy.apps.proving.study import DEFAULT_DESIGNS
    from simstudy.cli import add_profile_option

    p = subparsers.add_parser(
        "proving-ground",
        help="every test on a bank of scenarios: calibration, power, replicability and a leaderboard",
        description=HELP,
    )
    p.add_argument(
        "--tests",
        nargs="+",
        default=["all"],
        metavar="TEST",
        help="what the report shows: 'all' (every stored built-in test), registered test names, and "
        "plug-ins as module:function or path/to/file.py:function (default all)",
    )
    p.add_argument(
        "--designs",
        nargs="+",
        default=None,
        metavar="DESIGN",
        help="cvRxK, 5x2cv, resampledR (90/10 splits), resampledR-TT and holdoutTT (TT percent held out) "
        f"(default {' '.join(DEFAULT_DESIGNS)}); other designs are another run, stored in its own "
        "directory",
    )
    p.add_argument(
        "--scenarios",
        nargs="+",
        default=None,
        metavar="SCENARIO",
        help="only these scenarios of the bank: keys (gauss-nb-n100-rho0-e0, ...) or whole families (gaussian, "
        "mixed, nadeau_bengio, bouckaert, berrar) (default the profile's); another set is another run, stored in "
        "its own directory",
    )
    add_profile_option(p)
    p.add_argument("--jobs", type=int, default=1, help="parallel workers (default 1; the numbers do not depend on it)")
    p.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="the run directory (default results/proving_ground/PROFILE, with the designs appended when "
        "they are not the default); the report is written there",
    )
    p.add_argument(
        "--report-dir",
        default=None,
        metavar="DIR",
        help="where the report goes (default the run directory); the reproduction page uses "
        "docs/reproduction/proving-ground",
    )
    p.add_argument(
        "--results",
        default=DEFAULT_ROOT,
        metavar="ROOT",
        help="results root holding Berrar's studies 1-3 at the same profile (ROOT/berrarN/PROFILE), for "
        "the calibration of his replication probability (default results)",
    )
    p.add_argument(
        "--berrar-calibration",
        action="store_true",
        help="only the calibration of Berrar's replication probability from his stored studies: no proving-ground run",
    )
    p.add_argument("--seed", type=int, default=None, help="root seed (default the package's fixed seed)")
    p.add_argument(
        "--fresh",
        action="store_true",
        help="move a run of another configuration or code in --out aside (renamed, never deleted) and start again",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds a plug-in test may take for one call (default 300)",
    )
    p.add_argument(
        "--tolerance",
        type=float,
        default=None,
        metavar="T",
        help="the largest Type I error that still counts as controlling size at alpha = 0.05, as a share "
        "(default 0.075, Bradley's liberal bound 1.5 alpha); the report states it",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_proving_ground)


def _split_tests(tests, designs, workers: contextlib.ExitStack, timeout=None):
    """(registered names or None for all, [(ref, plug-in)]) with one-line errors naming --tests.

    Each plug-in is loaded in a worker process of its own (see
    :func:`simstudy.pipeline.plugins.open_plugin`) that ``workers`` closes; ``timeout``
    limits the loading (None: :data:`simstudy.pipeline.plugins.DEFAULT_TIMEOUT`).
    """
    from simstudy.pipeline.outcomes import get_test, test_names
    from simstudy.pipeline.plugins import DEFAULT_TIMEOUT, PluginError, open_plugin

    names, plugins, everything = [], [], False
    kinds = {d.kind for d in designs}
    allowed = (
        {"sample", "scores"}
        | ({"cv"} if kinds & {"cv", "5x2"} else set())
        | ({"5x2"} if "5x2" in kinds else set())
        | ({"splits"} if "resampled" in kinds else set())
    )
    for t in tests:
        if t == "all":
            everything = True
        elif ":" in t:
            plugins.append(t)
        else:
            try:
                spec = get_test(t)
            except ValueError:
                raise InputError(
                    f"--tests: unknown test {t!r}; registered: {', '.join(test_names())}, or 'all', "
                    "or a plug-in module:function"
                ) from None
            if spec.takes not in allowed:
                raise InputError(f"--tests: {t!r} applies to none of the designs {', '.join(d.key for d in designs)}")
            names.append(t)
    loaded = []
    for ref in plugins:
        try:
            loaded.append(
                (
                    ref,
                    workers.enter_context(
                        open_plugin(ref, "test", timeout=DEFAULT_TIMEOUT if timeout is None else timeout)
                    ),
                )
            )
        except PluginError as exc:
            msg = str(exc)
            prefix = f"--test {ref!r}"
            raise InputError(
                f"--tests: {ref!r}{msg[len(prefix) :] if msg.startswith(prefix) else ': ' + msg}"
            ) from None
    return (None if everything or not names else names), loaded


def _scenarios(given) -> tuple | None:
    """The bank's keys named by ``--scenarios`` (keys or family names), in the bank's order; None: not given."""
    from simstudy.apps.proving.scenarios import BANK, scenario_keys

    if given is None:
        return None
    families = {s.family for s in BANK.values()}
    chosen = set()
    for name in given:
        if name in families:
            chosen.update(scenario_keys(name))
        elif name in BANK:
            chosen.add(name)
        else:
            raise InputError(
                f"--scenarios: {name!r} is neither a scenario of the bank nor a family ({', '.join(sorted(families))}); "
                f"scenarios look like {', '.join(list(BANK)[:3])}"
            )
    return tuple(k for k in BANK if k in chosen)


def cmd_proving_ground(args) -> int:
    from simstudy.apps.proving.study import DEFAULT_DESIGNS, STUDY_NAME, parse_designs, proving_study

    designs = parse_designs(args.designs if args.designs is not None else DEFAULT_DESIGNS)
    keys = tuple(d.key for d in designs)
    chosen = _scenarios(args.scenarios)
    study = proving_study(None if keys == DEFAULT_DESIGNS else keys, chosen)
    study.profile(args.profile)
    if args.timeout is not None and not 0 < args.timeout < float("inf"):
        raise InputError(f"--timeout: must be a positive number of seconds, got {args.timeout}")
    suffix = "" if keys == DEFAULT_DESIGNS else "-" + "-".join(keys)
    if chosen is not None:
        suffix += "-" + ("-".join(args.scenarios) if len(args.scenarios) <= 3 else f"{len(chosen)}-scenarios")
    out = Path(args.out) if args.out is not None else DEFAULT_ROOT / STUDY_NAME / f"{args.profile}{suffix}"
    if args.berrar_calibration:
        from simstudy.apps.proving.report import write_berrar_page

        try:
            paths = write_berrar_page(args.results, args.profile, out)
        except OSError as exc:  # e.g. a full disk: one line naming where
            raise _write_error(exc, out, "--out") from None
        print(paths["text"])
        print("\nWrote " + ", ".join(str(paths[k]) for k in ("markdown", "html")))
        return 0
    from simstudy.apps.proving.study import ALPHA
    from simstudy.statistics.size_control import SizeRule

    rule = SizeRule(alpha=ALPHA, tolerance=args.tolerance)
    with contextlib.ExitStack() as workers:  # the plug-ins' worker processes, ended when the command is done
        tests, plugins = _split_tests(args.tests, designs, workers, timeout=args.timeout)
        return _run_and_report(args, study, out, rule, tests, plugins)


def _run_and_report(args, study, out: Path, rule, tests, plugins) -> int:
    """Run (or resume) the proving ground, then write its report with the plug-ins' rows."""
    from simstudy.apps.proving.study import STUDY_NAME, adaptive_rule
    from simstudy.engine import DEFAULT_SEED, run_study

    if args.report_dir is not None:
        try:
            Path(args.report_dir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--report-dir: cannot create {args.report_dir} ({exc.strerror or exc})") from None
    grow = adaptive_rule(study.profile(args.profile)) or {}
    run = run_study(
        study,
        args.profile,
        out=out,
        jobs=args.jobs,
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        progress=not args.quiet,
        fresh=args.fresh,
        **grow,
    )
    info = run.manifest["runs"][-1]
    print(
        f"{STUDY_NAME}/{args.profile}: {run.manifest['status']}; computed {info['replications_computed']} "
        f"replications in {info['seconds']:.1f} s; {len(run.failures)} failed replication(s); stored in {run.path}"
    )
    if len(run.failures):
        f = run.failures.iloc[0]
        print(
            f"  first failure: scenario {f['condition']} replication {f['replication']}: {f['error']}", file=sys.stderr
        )
    if run.manifest["status"] != "complete":
        print("the run is not complete; run the same command again to resume", file=sys.stderr)
        return 1
    from simstudy.apps.proving.report import build_proving_report

    report_dir = run.path if args.report_dir is None else Path(args.report_dir)
    try:
        rep = build_proving_report(
            run, plugins=plugins, tests=tests, results=args.results, out=report_dir, timeout=args.timeout, rule=rule
        )
    except OSError as exc:  # e.g. a full disk while the report is written: one line naming where
        raise _write_error(exc, report_dir, "--out" if args.report_dir is None else "--report-dir") from None
    from simstudy.apps.proving.report import summary_markdown

    print(summary_markdown(rep))
    print(
        "\nWrote "
        + ", ".join(str(rep[k]) for k in ("markdown", "html"))
        + " and tables "
        + ", ".join(str(path) for key, path in rep.items() if key.endswith("_csv"))
    )
    return 0


def _write_error(exc: OSError, where: Path, option: str) -> ValueError:
    """The report could not be written (read-only, full disk): one line naming where (see ``os_error``)."""
    from simstudy.engine.store import os_error

    return os_error(exc, where, what="the report", option=option, resume=False)
