"""``simstudy bench TARGET --test REF``: a new test beside the published ones, on stored replications."""

from __future__ import annotations


def register(subparsers):
    p = subparsers.add_parser("bench", help="run a plug-in test on the stored replications of a published table",
                              description="Run a user-defined test (module:function or file.py:function) on the "
                                          "replications stored for a published table and print it beside the "
                                          "built-in tests, with paired differences.")
    p.add_argument("target", help="bouckaert-table1, bouckaert-table2 (stored at --profile paper), berrar3 or "
                                   "berrar4; the Bouckaert-Frank tables store no per-fold accuracies")
    p.add_argument("--test", required=True, help="the plug-in test, e.g. examples/permutation_test.py:sign_flip")
    p.add_argument("--scheme", default=None, help="optional plug-in sampling scheme (module:function); its sample "
                                                  "reaches the test as scores.sample")
    p.add_argument("--profile", default="quick", help="stored profile to read (default: quick)")
    p.add_argument("--results", default="results", help="root of the stored results (default: results)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level for the new and the built-in "
                                                             "tests (default: 0.05)")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..bench import bench

    print(bench(args.target, test=args.test, scheme=args.scheme, profile=args.profile, results=args.results,
                alpha=args.alpha))
    return 0
