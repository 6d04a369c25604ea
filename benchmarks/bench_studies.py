"""Design choices of the study definitions, each timed against its baseline in the same run.

Reproduce with::

    .venv/bin/python benchmarks/bench_studies.py [--reps 2]

1. Study 3 (Algorithm 3): one SVM fit per fold reused for all 20 oracle levels q
   (``studies/berrar3.py``) against the paper's literal design, which fits SVM and
   SVM_o again for every q (2 x 20 fits per fold instead of 1).
2. Study 4 (Algorithm 4): one replication with the oneDAL forest (``forest="intelex"``)
   against scikit-learn's forest (``forest="sklearn"``), both with R's defaults.

Each contender runs the same replications (same seeds); the script prints the
seconds per replication and the ratio to the baseline.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from simstudy.learners import E1071SVC
from simstudy.sources import berrar_cv_source
from simstudy.splits import folds, stratified_fold_ids
from studies import berrar3, berrar4


def study3_refit_per_q(cond, rng):
    """Algorithm 3 as written: for every q, a new SVM and SVM_o are trained on each fold."""
    X, y = berrar_cv_source(cond.n_features).sample(cond.n_cases, rng)
    fold_ids = stratified_fold_ids(y, cond.n_folds, rng)
    for q in cond.q_values:
        for train, test in folds(fold_ids):
            pred_b = E1071SVC().fit(X[train], y[train]).predict(X[test])
            pred_a = E1071SVC().fit(X[train], y[train]).predict(X[test])
            m = int(round(q * test.size / 100.0))
            pred_a[rng.choice(test.size, size=m, replace=False)] = y[test][:m]


def timed(fn, reps):
    t0 = time.perf_counter()
    for r in range(reps):
        fn(np.random.default_rng(r))
    return (time.perf_counter() - t0) / reps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()
    cond3 = berrar3.OracleDesign()
    base = timed(lambda rng: study3_refit_per_q(cond3, rng), args.reps)
    ours = timed(lambda rng: berrar3.replicate(cond3, rng), args.reps)
    print(f"study 3, one replication (20 q):  refit per q {base:.2f} s (1.00)   one fit per fold {ours:.2f} s "
          f"({ours / base:.3f})")
    rows = [("sklearn", berrar4.FeatureGroup(20, forest="sklearn"))]
    try:
        import sklearnex  # noqa: F401
        rows.append(("intelex", berrar4.FeatureGroup(20, forest="intelex")))
    except ImportError:
        print("study 4: sklearnex not installed (pip install 'simstudy[fast]'); intelex row skipped")
    times = {name: timed(lambda rng, c=c: berrar4.replicate(c, rng), args.reps) for name, c in rows}
    line = "study 4, one replication at d = 20:  " + "   ".join(
        f"{name} forest {t:.2f} s ({t / times['sklearn']:.2f})" for name, t in times.items())
    print(line)


if __name__ == "__main__":
    main()
