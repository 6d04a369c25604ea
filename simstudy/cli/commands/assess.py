"""The ``assess`` sub-command: how replicable is "A beats B" on my data, with my learners?"""

from __future__ import annotations

import sys

from simstudy._files import DEFAULT_ROOT
from simstudy.errors import InputError

ASSESS_HELP = """Repeat a design on new random partitions of DATA (by default the 5x2 cv, 5 times; --full: every design
the papers compare, r x k cv with the six sampling schemes, 5x2cv and resampled train/test splits, 10 times each),
fit both learners once per split, and report first a Conclusion that applies the practitioners' decision rules (the
design's corrected test, where it controls size on the nearest evidence, its interval and the Bayesian probabilities
with the ROPE), then per design, scheme and test: how often each verdict is reached, its replicability R2, the first
repeat's p-value with Berrar's replication probability, and how often a significant verdict replicated. The evidence
is the stored simulation runs under --results, or without them the paper-profile proving ground shipped with
simstudy, for learners as stable as yours (measured); only a procedure that controls size on every null scenario
can be recommended. Stored like any run: an interrupted assessment resumes, the same command summarises a finished
one without fitting again, and another --metric scores the stored predictions without fitting."""


def register(subparsers):  # imports nothing heavy: building the parser must stay fast
    p = subparsers.add_parser(
        "assess", help="assess the replicability of a comparison of two learners on your data", description=ASSESS_HELP
    )
    p.add_argument(
        "data",
        metavar="DATA",
        nargs="+",
        help="one or more data sets (several: each is compared, then the learners across them): "
        "a CSV (header line; class column named by --class or last), ARFF or Parquet file, "
        "or the name of a shipped data set; empty cells are missing values, rows without a "
        "class are left out (the output says how many), infinite values are refused",
    )
    p.add_argument(
        "--a",
        default=None,
        metavar="LEARNER",
        help="learner A: a registered name (NB, C4.5, NN, stump, TAN, weka.SMO, e1071.naiveBayes, "
        "e1071.svm, randomForest), module:NAME or path/to/file.py:NAME of a scikit-learn estimator, "
        "pipeline or factory; NAME=LEARNER (e.g. logreg=my_models.py:scaled_logreg) names it in the tables "
        "and figures",
    )
    p.add_argument("--b", default=None, metavar="LEARNER", help="learner B, as --a")
    p.add_argument(
        "--learners",
        nargs="+",
        default=None,
        metavar="LEARNER",
        help="two or more learners, as --a (NAME=LEARNER names them), compared on every DATA on one design "
        "(the first of --designs), then "
        "across data sets (Wilcoxon, sign and Bayesian signed-rank tests per pair; with three or more, Friedman, "
        "Holm and a critical-difference diagram)",
    )
    p.add_argument(
        "--control",
        default=None,
        metavar="NAME",
        help="with --learners: compare every other learner with this one across data sets (Holm over k - 1 "
        "comparisons) instead of every pair; NAME as the tables name it",
    )
    p.add_argument(
        "--rope",
        type=float,
        default=None,
        metavar="R",
        help="half-width of the region of practical equivalence of the Bayesian tests, in score units (default 0.01)",
    )
    p.add_argument(
        "--nominal",
        nargs="+",
        default=(),
        metavar="COLUMN",
        help="columns of a CSV or Parquet file to take as nominal attributes, even where their cells are numbers "
        "(a column of numbers with a few other cells is refused, naming the cells, unless named here)",
    )
    p.add_argument("--a-params", default=None, metavar="JSON", help="parameters of A as a JSON object")
    p.add_argument("--b-params", default=None, metavar="JSON", help="parameters of B as a JSON object")
    p.add_argument(
        "--class",
        dest="class_column",
        default=None,
        metavar="NAME",
        help="name of the class column (default the last column)",
    )
    p.add_argument(
        "--designs",
        nargs="+",
        default=None,
        metavar="DESIGN",
        help="cvRxK (e.g. cv10x10; its first run is a plain k-fold cv), 5x2cv, resampledR "
        "(default 5x2cv) (with --full: cv10x10 5x2cv resampled10)",
    )
    p.add_argument(
        "--full",
        action="store_true",
        help="the full check: every design the papers compare (cv10x10 5x2cv resampled10), 10 repeats each "
        "(2400 fits for two learners, against 100 for the default 5x2cv with 5 repeats)",
    )
    p.add_argument(
        "--tests",
        nargs="+",
        default=None,
        metavar="TEST",
        help="registered tests to apply (or 'all'); default the papers' tests for each design",
    )
    p.add_argument(
        "--repeats",
        type=int,
        default=None,
        metavar="N",
        help="repetitions of every design on new random partitions (default 5; with --full 10; with several "
        "data sets or --learners, 1)",
    )
    p.add_argument(
        "--metric",
        default="accuracy",
        metavar="SCORER",
        help="the per-split score every test compares: accuracy (default) or a scikit-learn scorer name "
        "(balanced_accuracy, roc_auc, f1_macro, neg_log_loss, ...; greater is better)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--jobs", type=int, default=1, help="parallel workers (default 1; the numbers do not depend on it)")
    p.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="run directory (default results/assess/DATA-A-B); rerunning resumes or re-summarises",
    )
    p.add_argument("--seed", type=int, default=None, help="root seed (default the package's fixed seed)")
    p.add_argument(
        "--results",
        default=DEFAULT_ROOT,
        metavar="ROOT",
        help="results root holding stored simulation runs (ROOT/STUDY/PROFILE) of the studies that "
        "provide evidence; their size verdicts and size-adjusted power back the recommendation "
        "(default results)",
    )
    p.add_argument(
        "--local-evidence",
        action="store_true",
        help="use a proving-ground run stored under --results even when it holds fewer data sets than the one "
        "shipped with simstudy (by default the larger is used, and the Conclusion names it)",
    )
    p.add_argument(
        "--bench",
        default=None,
        metavar="TEST",
        help="also run this test (registered name or plug-in module:function / file.py:function) on "
        "the stored paired scores, beside the built-in tests",
    )
    p.add_argument(
        "--timeout",
        default=None,
        metavar="S",
        help="with --bench: seconds a plug-in test may take for one call (default 300; 'none': no "
        "limit); it runs in a worker process that is killed at the limit",
    )
    p.add_argument(
        "--fit-timeout",
        default=None,
        metavar="S",
        help="seconds the loading and each fit of a user learner (module:NAME, file.py:NAME) may take (default "
        "3600); such learners are imported and fitted in a worker process of their own, which is killed with "
        "every process it started at the limit or when it ends abnormally, and the command ends with one line "
        "naming the learner, the rows stored so far kept",
    )
    p.add_argument(
        "--in-process",
        action="store_true",
        help="import and fit user learners inside simstudy's process, with no limit: faster, but a learner that "
        "hangs, ends the process or prints without end takes the command with it",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="start afresh when --out holds an assessment of other data, learners or settings "
        "(it is renamed, never deleted)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_assess)


def _cmd_many(args, fit_timeout=None) -> int:
    from simstudy.apps.assess.many import DEFAULT_ROPE, assess_many, write_many

    if args.learners and (args.a or args.b):
        raise InputError("--learners: give the learners either with --learners or with --a and --b, not both")
    learners = args.learners or [x for x in (args.a, args.b) if x]
    if args.designs and len(args.designs) > 1:
        raise InputError("--designs: several data sets or learners are compared on one design; give one")
    m = assess_many(
        args.data,
        learners,
        design=args.designs[0] if args.designs else "cv10x10",
        n_repeats=args.repeats if args.repeats is not None else 1,
        metric=args.metric,
        rope=DEFAULT_ROPE if args.rope is None else args.rope,
        alpha=args.alpha,
        out=args.out,
        out_root=DEFAULT_ROOT,
        jobs=args.jobs,
        seed=args.seed,
        progress=not args.quiet,
        fresh=args.fresh,
        class_column=args.class_column,
        control=args.control,
        fit_timeout=fit_timeout,
        in_process=args.in_process,
        nominal=args.nominal,
    )
    print(m)
    paths = write_many(m)
    print("\nWrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def cmd_assess(args) -> int:
    from simstudy.apps.assess import LocalEvidence, assess
    from simstudy.apps.assess.limits import check_in_process
    from simstudy.cli.commands.bench import parse_seconds

    if args.control and not (len(args.data) > 1 or args.learners):
        raise InputError("--control: applies to several learners (--learners L1 L2 ...)")
    # the limits are checked before anything is fitted
    fit_timeout = parse_seconds(args.fit_timeout, "--fit-timeout", none=False)
    check_in_process(args.in_process, fit_timeout)
    if len(args.data) > 1 or args.learners:
        for flag in ("bench", "tests", "full"):
            if getattr(args, flag):
                raise InputError(f"--{flag.replace('_', '-')}: applies to one data set and two learners (--a, --b)")
        return _cmd_many(args, fit_timeout)
    if not args.a or not args.b:
        raise InputError("--a/--b: both learners are needed (or --learners L1 L2 ... for several)")
    from simstudy.apps.assess.report import write_assessment

    timeout = parse_seconds(args.timeout, "--timeout")
    a = assess(
        args.data[0],
        None,
        args.a,
        args.b,
        designs=args.designs,
        full=args.full,
        tests=args.tests,
        n_repeats=args.repeats,
        alpha=args.alpha,
        out=args.out,
        jobs=args.jobs,
        seed=args.seed,
        progress=not args.quiet,
        fresh=args.fresh,
        class_column=args.class_column,
        a_params=args.a_params,
        b_params=args.b_params,
        evidence=LocalEvidence(args.results) if args.local_evidence else args.results,
        fit_timeout=fit_timeout,
        metric=args.metric,
        out_root=DEFAULT_ROOT,
        rope=0.01 if args.rope is None else args.rope,
        in_process=args.in_process,
        nominal=args.nominal,
    )
    print(a)
    written = []
    try:
        paths = write_assessment(a, written=written)
    except OSError as exc:  # e.g. a finished assessment re-read in a read-only folder, with other evidence
        print(
            f"simstudy: warning: cannot update the pages in {a.run.path} ({exc.strerror or exc}); the "
            "assessment above is read from its stored rows, the pages there are from an earlier summary",
            file=sys.stderr,
        )
    else:
        if written:
            print("\nWrote " + ", ".join(str(p) for p in written))
        else:
            print("\nPages up to date: " + ", ".join(str(p) for p in paths.values()))
    if args.bench:
        from simstudy.apps.assess import ASSESS_PROFILE
        from simstudy.apps.bench import bench

        print(
            "\n"
            + bench(a.study, test=args.bench, profile=ASSESS_PROFILE, out=a.run.path, alpha=args.alpha, timeout=timeout)
        )
    return 0
