"""simstudy assess against the obvious loop a user would write, on the same work.

The work: 10 repeats of every design of an assessment (a 10-fold cv t-test, a 10 x 10 cv with its
uncorrected and corrected t-tests and the six sampling schemes x paired t / sign / signed-rank
tests, a 5 x 2 cv t- and F-test, and the resampled and corrected resampled t-tests on ten 90/10
splits), comparing two learners on one data set.

The baseline is the loop a practitioner writes with scikit-learn: per repeat and design, one
``cross_val_score`` per learner on that design's splitter (``StratifiedKFold``,
``RepeatedStratifiedKFold``, five 2-fold splits, ten stratified ``train_test_split``s), then the
tests computed from the two score vectors with scipy, as mlxtend's and correctR's functions do.  It
fits each learner once per split of each design: the 10-fold cv is a design of its own there, while
simstudy reads it from the first run of the 10 x 10 cv, and simstudy runs the repeats on ``--jobs``
workers and takes the learners' shortcuts (a compiled J48 and array NaiveBayes on nominal data).

Both contenders get the same learners (the same factories) and are timed in turn, round by round,
each as a fresh process (interpreter start-up, imports, simstudy's worker start-up and its store
included; the median of the per-round ratios is reported)::

    .venv/bin/python benchmarks/bench_assess.py --case nominal --rounds 3
    .venv/bin/python benchmarks/bench_assess.py --case sklearn --rounds 3

Cases: ``nominal``: Weka's NaiveBayes against J48 on 300 cases drawn from Bouckaert's source 3 (all
attributes nominal, as in his Table 1); ``numeric``: the same learners on the Pima diabetes data
(numeric attributes, where J48 is fitted fold by fold in Python); ``sklearn``: a standardised
logistic regression against a 50-tree random forest on scikit-learn's breast-cancer data.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats


def _case(name: str, tmp: Path):
    """(data argument for assess, learner A, learner B, label)."""
    if name == "nominal":
        from simstudy.protocols.bouckaert import network_source

        X, y = network_source("bouckaert3").sample(300, np.random.default_rng(3))
        path = tmp / "source3.csv"
        cols = [f"a{j}" for j in range(X.shape[1])]
        with open(path, "w") as f:
            f.write(",".join(cols + ["class"]) + "\n")
            for row, label in zip(X.astype(int), y.astype(int)):
                f.write(",".join(f"v{v}" for v in row) + f",c{label}\n")
        return str(path), "NB", "C4.5", "Weka NaiveBayes vs J48, 300 nominal cases from Bouckaert's source 3"
    if name == "numeric":
        return "pima diabetes", "NB", "C4.5", "Weka NaiveBayes vs J48 on Pima diabetes (768 numeric cases)"
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    return (
        (X, y),
        make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
        RandomForestClassifier(n_estimators=50),
        "logistic regression vs 50-tree forest, breast cancer (569)",
    )


def _tests_on(d, n_train, n_test):
    """What the baseline computes from one design's differences (as mlxtend / correctR would)."""
    out = {}
    flat = d.ravel()
    out["t"] = stats.ttest_1samp(flat, 0.0).pvalue
    var = flat.var(ddof=1)
    t = flat.mean() / np.sqrt((1 / flat.size + n_test / n_train) * var) if var > 0 else 0.0
    out["corrected t"] = 2 * stats.t.sf(abs(t), flat.size - 1)
    return out


def baseline(X, y, make_a, make_b, repeats: int, seed: int) -> list:
    """The practitioner's loop: cross_val_score per learner, design and repeat, then scipy's tests."""
    from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold, cross_val_score, train_test_split

    rng = np.random.RandomState(seed)
    results = []
    n = y.size
    for _ in range(repeats):

        def scores(cv):
            return (cross_val_score(make_a(), X, y, cv=cv), cross_val_score(make_b(), X, y, cv=cv))

        a, b = scores(StratifiedKFold(10, shuffle=True, random_state=rng.randint(2**31 - 1)))  # 10-fold cv
        results.append(_tests_on(a - b, n - n // 10, n // 10))
        a, b = scores(RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=rng.randint(2**31 - 1)))
        d = (a - b).reshape(10, 10)
        results.append(_tests_on(d, n - n // 10, n // 10))
        samples = [d[:, 0], d[0], d.ravel(), d.mean(1), d.mean(0), np.sort(d, axis=1).mean(0)]  # six schemes
        for s in samples:
            nz = s[s != 0]
            results.append(
                (
                    stats.ttest_1samp(s, 0.0).pvalue,
                    stats.binomtest(int((nz > 0).sum()), nz.size).pvalue if nz.size else 1.0,
                    stats.wilcoxon(nz).pvalue if nz.size else 1.0,
                )
            )
        five = []
        for _ in range(5):  # 5 x 2 cv: Dietterich's t and Alpaydin's F from the ten differences
            a, b = scores(StratifiedKFold(2, shuffle=True, random_state=rng.randint(2**31 - 1)))
            five.append(a - b)
        five = np.array(five)
        s2 = ((five - five.mean(1, keepdims=True)) ** 2).sum(1)
        results.append(
            (
                five[0, 0] / np.sqrt(s2.mean()) if s2.mean() > 0 else 0.0,
                (five**2).sum() / (2 * s2.sum()) if s2.sum() > 0 else 0.0,
            )
        )
        diffs = []
        for _ in range(10):  # ten 90/10 resampled splits
            tr, te = train_test_split(np.arange(n), test_size=0.1, stratify=y, random_state=rng.randint(2**31 - 1))
            diffs.append(
                np.mean(make_a().fit(X[tr], y[tr]).predict(X[te]) == y[te])
                - np.mean(make_b().fit(X[tr], y[tr]).predict(X[te]) == y[te])
            )
        results.append(_tests_on(np.array(diffs), n - te.size, te.size))
    return results


def _run_one(contender: str, case: str, repeats: int, jobs: int, seed: int, tmp: Path):
    """One contender's whole work in this process (the subprocess of a round)."""
    from simstudy.apps.assess import assess, load_data, parse_learner
    from simstudy.apps.assess.data import _array_dataset

    data_arg, a, b, _ = _case(case, tmp)
    if contender == "baseline":
        data = _array_dataset(*data_arg) if isinstance(data_arg, tuple) else load_data(data_arg)
        baseline(
            data.X,
            data.y,
            parse_learner(a, option="--a").factory(data),
            parse_learner(b, option="--b").factory(data),
            repeats,
            seed=seed,
        )
    else:
        X_or_path, y = data_arg if isinstance(data_arg, tuple) else (data_arg, None)
        assess(X_or_path, y, a, b, full=True, n_repeats=repeats, jobs=jobs, out=tmp / "run", seed=seed, evidence=None)


def main(argv=None):
    import subprocess

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=("nominal", "numeric", "sklearn"), default="nominal")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each timing both contenders in turn")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2, help="simstudy's workers (default 2)")
    parser.add_argument(
        "--contender",
        choices=("baseline", "simstudy"),
        default=None,
        help="run one contender once in this process (what each round starts)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="bench_assess_"))
    try:
        if args.contender:
            _run_one(args.contender, args.case, args.repeats, args.jobs, args.seed, tmp)
            return
        label = _case(args.case, tmp)[3]
        times = {"baseline": [], "simstudy": []}
        for r in range(args.rounds):  # each contender a fresh process, start-up and imports included
            for contender in ("baseline", "simstudy"):
                t0 = time.perf_counter()
                subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--contender",
                        contender,
                        "--case",
                        args.case,
                        "--repeats",
                        str(args.repeats),
                        "--jobs",
                        str(args.jobs),
                        "--seed",
                        str(r),
                    ],
                    check=True,
                )
                times[contender].append(time.perf_counter() - t0)
            print(
                f"round {r}: baseline {times['baseline'][-1]:.1f} s, simstudy {times['simstudy'][-1]:.1f} s",
                file=sys.stderr,
            )
        med = {k: statistics.median(v) for k, v in times.items()}
        ratios = [x / y for x, y in zip(times["baseline"], times["simstudy"])]
        print(
            f"| {label} | {args.repeats} repeats | {med['baseline']:.1f} s | {med['simstudy']:.1f} s "
            f"(--jobs {args.jobs}) | {statistics.median(ratios):.1f}x (rounds: "
            + ", ".join(f"{x:.1f}x" for x in ratios)
            + ") |"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        main()
