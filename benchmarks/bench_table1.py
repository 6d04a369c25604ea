"""Bouckaert's Table 1 workload: our replication against a plain scikit-learn loop, side by side.

Reproduce with::

    .venv/bin/python benchmarks/bench_table1.py [--sets 2] [--python-sets 1]

One replication of ``studies/bouckaert2004/bouckaert1.py`` is one data set of 300 instances and
10 experiments of 10 x 10 cross-validation with two learners (2000 fits), followed by
the six sampling schemes and the three tests.  Contenders, on the same data sets,
folds and seeds:

* plain loop: scikit-learn's ``DecisionTreeClassifier()`` and ``CategoricalNB()``
  (Laplace counts, as Weka's NaiveBayes) fitted and asked to predict fold by fold,
  then the same schemes and tests;
* ours: ``studies.bouckaert2004.bouckaert1.replicate`` (J48 and NaiveBayes as Weka 3.6 has them,
  every fold of every experiment in one compiled call per learner);
* ours fold by fold: the same learners through their Python ``fit``/``predict``
  (the implementation before the compiled path; same predictions), on fewer sets
  because it is slow.

Prints seconds per replication and the ratios, and the paper-scale extrapolation
(4 sources x 1000 data sets on 2 worker processes).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.naive_bayes import CategoricalNB
from sklearn.tree import DecisionTreeClassifier

from simstudy.pipeline.learners.j48 import J48
from simstudy.pipeline.learners.weka import WekaNaiveBayes
from simstudy.pipeline.outcomes import outcome_rows
from simstudy.pipeline.schemes import SCHEMES
from simstudy.pipeline.scores import PairedScores, cv_accuracies
from simstudy.protocols.bouckaert import SOURCES, RepeatedCVCondition, experiment_accuracies, network_source
from simstudy.studies.bouckaert2004 import bouckaert1 as b1


class _PerFold:
    """Hides a learner's compiled per-fold path, so that it is fitted fold by fold."""

    fold_predictions = None


class J48PerFold(_PerFold, J48):
    pass


class NaiveBayesPerFold(_PerFold, WekaNaiveBayes):
    pass


def _outcomes(acc, y, cond):
    """Table 1's outcome rows, as the study makes them, from (experiments, runs, folds, 2) accuracies."""
    scores = PairedScores(acc[..., 0], acc[..., 1], *cond.design.sizes(y))
    return outcome_rows(
        scores, b1.TESTS, alpha=cond.alpha, schemes=SCHEMES, index={"experiment": np.arange(cond.n_experiments)}
    )


def plain_replicate(cond, rng):
    X, y = network_source(cond.source).sample(cond.n_cases, rng)
    learners = (DecisionTreeClassifier, lambda: CategoricalNB(min_categories=2))
    return _outcomes(experiment_accuracies(X, y, cond, rng, learners), y, cond)


def per_fold_replicate(cond, rng):
    X, y = network_source(cond.source).sample(cond.n_cases, rng)
    X = X.astype(float)
    nominal = np.ones(X.shape[1], dtype=bool)
    acc = experiment_accuracies(
        X, y, cond, rng, (lambda: J48PerFold(nominal=nominal), lambda: NaiveBayesPerFold(nominal=nominal))
    )
    return _outcomes(acc, y, cond)


def timed(contenders, conds, seeds):
    """Seconds per replication of each contender, timed data set by data set in turn (fair under changing load)."""
    total = dict.fromkeys(contenders, 0.0)
    for cond in conds:
        for s in seeds:
            for name, fn in contenders.items():
                t0 = time.perf_counter()
                fn(cond, np.random.default_rng(s))
                total[name] += time.perf_counter() - t0
    return {name: t / (len(conds) * len(seeds)) for name, t in total.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=2, help="data sets per source for the fast contenders")
    ap.add_argument("--python-sets", type=int, default=1, help="data sets per source for the fold-by-fold run")
    args = ap.parse_args(argv)
    conds = [RepeatedCVCondition(s) for s in SOURCES]
    b1.replicate(conds[0], np.random.default_rng(0))  # load the compiled kernel once
    cv_accuracies(np.zeros((4, 2)), np.array([0, 1, 0, 1]), np.array([[0, 0, 1, 1]]), [DecisionTreeClassifier])
    plain_name = "plain scikit-learn loop (DecisionTree + CategoricalNB per fold)"
    ours_name = "ours: compiled J48 + compiled NaiveBayes (studies.bouckaert2004.bouckaert1.replicate)"
    sec = timed({plain_name: plain_replicate, ours_name: b1.replicate}, conds, list(range(args.sets)))
    if args.python_sets:
        sec.update(
            timed(
                {"ours fold by fold (Python J48 + NaiveBayes fit/predict)": per_fold_replicate},
                conds,
                list(range(args.python_sets)),
            )
        )
    plain = sec[plain_name]
    rows = list(sec.items())
    print(
        f"Bouckaert Table 1 workload: seconds per replication (10 experiments x 10 x 10 cv x 2 learners), "
        f"{args.sets} data set(s) per source"
    )
    print("| contender | s / replication | relative to plain loop | paper scale (4000 replications, 2 workers) |")
    print("|---|---:|---:|---:|")
    for name, sec in rows:
        print(f"| {name} | {sec:.4f} | {sec / plain:.4f} ({plain / sec:.1f}x faster) | {4000 * sec / 2 / 60:.1f} min |")


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        main()
