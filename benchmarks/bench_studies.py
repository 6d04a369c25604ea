"""Design choices of the study definitions, each timed against its baseline in the same run.

Reproduce with::

    .venv/bin/python benchmarks/bench_studies.py [--reps 2] [--studies 1 2 3 4]

Baseline of every row: a plain scikit-learn loop written the obvious way, one fit
per learner per data set or fold, default settings emulating R (StandardScaler +
SVC(gamma=1/d), GaussianNB, RandomForestClassifier(500, max_features=sqrt)).

1. Study 1 (Algorithm 2, group 3): one replication, 20 data sets, NB and SVM; study 2
   (group 5: 44 data sets of 210 to 640 cases) the same way.
2. Study 3 (Algorithm 3): our replication fits one SVM per fold and reuses it for all
   20 oracle levels q (``studies/berrar/berrar3.py``); the plain loop follows the algorithm
   literally and fits SVM and SVM_o again for every q.
3. Study 4 (Algorithm 4, d = 20): our replication with scikit-learn's forest and with
   the oneDAL forest (``forest="intelex"``, R defaults in both).

Each contender runs one untimed warm-up replication and then the same
replications (same seeds), the contenders taking turns; the script prints the
seconds per replication and the ratio to the baseline.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from simstudy.pipeline.sources import berrar_benchmark_sources, berrar_cv_source
from simstudy.pipeline.splits import folds, stratified_fold_ids
from simstudy.protocols import berrar
from simstudy.studies.berrar import berrar3, berrar4


def plain_svm(d):
    return make_pipeline(StandardScaler(), SVC(C=1.0, gamma=1.0 / d))


def plain_study1(rng, start=340, n_datasets=20):
    for n, src in berrar_benchmark_sources(n_datasets, start):
        X, y = src.sample(n, rng)
        Xt, yt = src.sample(n, rng)
        for model in (GaussianNB(), plain_svm(X.shape[1])):
            np.mean(model.fit(X, y).predict(Xt) == yt)


def plain_study4(rng, d=20):
    X, y = berrar_cv_source(d).sample(1000, rng)
    seed = int(rng.integers(2**31 - 1))
    for train, test in folds(stratified_fold_ids(y, 10, rng)):
        for model in (plain_svm(d), RandomForestClassifier(500, max_features="sqrt", random_state=seed)):
            np.mean(model.fit(X[train], y[train]).predict(X[test]) == y[test])


def plain_study3(cond, rng):
    """Algorithm 3 as written, plain scikit-learn: for every q, SVM and SVM_o trained on each fold."""
    X, y = berrar_cv_source(cond.n_features).sample(cond.n_cases, rng)
    fold_ids = stratified_fold_ids(y, cond.n_folds, rng)
    for q in cond.q_values:
        for train, test in folds(fold_ids):
            np.mean(plain_svm(cond.n_features).fit(X[train], y[train]).predict(X[test]) == y[test])
            pred_a = plain_svm(cond.n_features).fit(X[train], y[train]).predict(X[test])
            m = int(round(q * test.size / 100.0))
            pred_a[rng.choice(test.size, size=m, replace=False)] = y[test][:m]


def timed(contenders, reps):
    """Seconds per replication of each contender, the contenders taking turns replication by replication.

    Taking turns spreads any drift of the machine's speed over all contenders alike.
    """
    for _, fn in contenders:
        fn(np.random.default_rng(10_000))  # warm-up, untimed: imports, compiled kernels, caches
    total = {label: 0.0 for label, _ in contenders}
    for r in range(reps):
        for label, fn in contenders:
            t0 = time.perf_counter()
            fn(np.random.default_rng(r))
            total[label] += time.perf_counter() - t0
    return {label: t / reps for label, t in total.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument(
        "--studies",
        type=int,
        nargs="+",
        choices=(1, 2, 3, 4),
        default=(1, 2, 3, 4),
        help="rows to time (default all: 1 2 3 4)",
    )
    args = ap.parse_args()

    def row(name, contenders):
        times = timed(contenders, args.reps)
        base = next(iter(times.values()))
        print(f"{name}:  " + "   ".join(f"{label} {t:.2f} s ({t / base:.3f})" for label, t in times.items()))

    g3 = berrar.BenchmarkGroup(3, 340, 20)
    if 1 in args.studies:
        row(
            "study 1, one replication (group 3)",
            [("plain loop", plain_study1), ("ours", lambda rng: berrar.benchmark_replicate(g3, rng))],
        )
    g5 = berrar.BenchmarkGroup(5, 200, 44)
    if 2 in args.studies:
        row(
            "study 2, one replication (group 5)",
            [
                ("plain loop", lambda rng: plain_study1(rng, 200, 44)),
                ("ours", lambda rng: berrar.benchmark_replicate(g5, rng)),
            ],
        )
    cond3 = berrar3.OracleDesign()
    if 3 in args.studies:
        row(
            "study 3, one replication (20 q)",
            [
                ("plain loop, refit per q", lambda rng: plain_study3(cond3, rng)),
                ("ours, one fit per fold", lambda rng: berrar3.replicate(cond3, rng)),
            ],
        )
    if 4 not in args.studies:
        return
    contenders = [
        ("plain loop", plain_study4),
        ("ours, sklearn forest", lambda rng: berrar4.replicate(berrar4.FeatureGroup(20, forest="sklearn"), rng)),
    ]
    try:
        import sklearnex  # noqa: F401

        contenders.append(
            ("ours, intelex forest", lambda rng: berrar4.replicate(berrar4.FeatureGroup(20, forest="intelex"), rng))
        )
    except ImportError:
        print("sklearnex not installed (pip install 'simstudy[fast]'): intelex row skipped")
    row("study 4, one replication at d = 20", contenders)


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        main()
