"""Measure the truth of every scenario of the proving ground and store it in simstudy/apps/proving/truth.json.

For each scenario and each training-set size the designs use (90% of the cases:
10-fold cv and 90/10 subsamples; 50%: 5 x 2 cv), ``--train-sets`` training
sets are drawn; learners A and B are fitted on each and scored on the whole
distribution (Bayesian networks: exactly, over every attribute configuration)
or on a fresh test set of ``--test-cases`` cases (the Gaussian generators).  The gap is
the mean of acc(A) - acc(B) over training sets, with its standard error.  A
mixed scenario, whose null holds by measurement only, is measured on at least
1000 training sets of 5000 test cases each.

    .venv/bin/python scripts/make_proving_truth.py              # the whole bank (about 3 core-minutes)
    .venv/bin/python scripts/make_proving_truth.py --check      # compare the stored file with the bank, no fitting
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simstudy.apps.proving.scenarios import BANK, MEASURED_NULL_TOLERANCE, TRUTH_FILE, truth_label  # noqa: E402

SEED = 20240618
#: The least training sets and test cases of a mixed scenario (whose nulls hold by measurement only).
MIXED_TRAIN_SETS, MIXED_TEST_CASES = 1000, 5000


def _accuracies(sc, n_train, train_sets, test_cases, rng):
    """acc(A) and acc(B) of ``train_sets`` training sets of ``n_train`` cases: two arrays."""
    acc = np.empty((train_sets, 2))
    exact = None
    if sc.family == "bouckaert":
        from simstudy.protocols.bouckaert import network_source

        exact = network_source(sc.source)
    for t in range(train_sets):
        X, y = sc.sample(n_train, rng)
        if np.unique(y).size < 2:
            X, y = sc.sample(n_train, rng)
        makes = sc.learners(X.shape[1])
        if exact is not None:
            for j, make in enumerate(makes):
                model = make().fit(X, y)
                acc[t, j] = exact.expected_accuracy(lambda Z, m=model: m.predict(Z))
        else:
            Xt, yt = sc.sample(test_cases, rng)
            for j, make in enumerate(makes):
                acc[t, j] = float(np.mean(make().fit(X, y).predict(Xt) == yt))
    return acc


def measure(key, train_sets, test_cases):
    sc = BANK[key]
    if sc.family == "mixed":  # a null by measurement needs its gap to within a tenth of a point
        train_sets, test_cases = max(train_sets, MIXED_TRAIN_SETS), max(test_cases, MIXED_TEST_CASES)
    rng = np.random.default_rng([SEED, zlib.crc32(key.encode())])
    out = {"null_by_construction": sc.null_by_construction}
    for label, n_train in (("", int(round(0.9 * sc.n_cases))), ("_half", sc.n_cases // 2)):
        acc = _accuracies(sc, n_train, train_sets, test_cases, rng)
        gap = acc[:, 0] - acc[:, 1]
        out[f"gap{label}"] = float(gap.mean())
        out[f"gap{label}_se"] = float(gap.std(ddof=1) / np.sqrt(gap.size))
        out[f"n_train{label}"] = n_train
        if not label:
            out["acc_a"], out["acc_b"] = float(acc[:, 0].mean()), float(acc[:, 1].mean())
    out["truth"] = truth_label(sc.null_by_construction, out["gap"], out["gap_se"], measured_null=sc.measured_null)
    out["truth_half"] = truth_label(
        sc.null_by_construction, out["gap_half"], out["gap_half_se"], measured_null=sc.measured_null
    )
    if sc.measured_null:
        out["measured_null"] = True
    out["train_sets"] = train_sets
    out["test"] = "exact (every attribute configuration)" if sc.family == "bouckaert" else f"{test_cases} fresh cases"
    return key, out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--train-sets", type=int, default=100, help="training sets per scenario and size (default 100)")
    p.add_argument(
        "--test-cases",
        type=int,
        default=2000,
        help="cases of the fresh test set of each training set (Gaussian and Berrar worlds; default 2000)",
    )
    p.add_argument("--jobs", type=int, default=2, help="parallel processes (default 2)")
    p.add_argument(
        "--only",
        nargs="*",
        default=None,
        metavar="KEY",
        help="measure only these scenarios (merged into the stored file)",
    )
    p.add_argument("--out", default=str(TRUTH_FILE), help=f"the truth file (default {TRUTH_FILE})")
    p.add_argument("--check", action="store_true", help="only check that the stored file covers the bank")
    args = p.parse_args(argv)
    out = Path(args.out)
    stored = json.loads(out.read_text(encoding="utf-8"))["scenarios"] if out.exists() else {}
    if args.check:
        missing = [k for k in BANK if k not in stored]
        print(f"{len(stored)} scenarios stored, {len(missing)} of the bank missing: {', '.join(missing) or 'none'}")
        return 1 if missing else 0
    keys = args.only if args.only else list(BANK)
    from joblib import Parallel, delayed

    results = Parallel(n_jobs=args.jobs, verbose=10)(
        delayed(measure)(k, args.train_sets, args.test_cases) for k in keys
    )
    scenarios = dict(stored) if args.only else {}
    scenarios.update(dict(results))
    scenarios = {k: scenarios[k] for k in BANK if k in scenarios}
    command = (
        "python scripts/make_proving_truth.py"
        + (f" --train-sets {args.train_sets}" if args.train_sets != 100 else "")
        + (f" --test-cases {args.test_cases}" if args.test_cases != 2000 else "")
    )
    doc = {
        "made_by": {
            "command": command,
            "seed": SEED,
            "description": "Truth of every scenario of the proving ground (simstudy.apps.proving.scenarios): "
            "gap = mean over training sets of accuracy(A) - accuracy(B) with n_train = 90% "
            "of the cases (gap_half: 50%), in accuracy units; truth = null by "
            "construction, or by measurement for a mixed null (measured_null) at a share where "
            f"|gap| + 3 gap_se <= {MEASURED_NULL_TOLERANCE:g}, else A or B when |gap| > 3 gap_se, else unclear; a mixed scenario "
            f"is measured on at least {MIXED_TRAIN_SETS} training sets of {MIXED_TEST_CASES} test cases.",
        },
        "scenarios": scenarios,
    }
    out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({len(scenarios)} scenarios)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
