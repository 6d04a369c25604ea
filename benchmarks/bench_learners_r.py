"""Time the R-default learners against a plain scikit-learn loop and against R.

Reproduce with::

    .venv/bin/python benchmarks/bench_learners_r.py [--no-r] [--intelex] [--profile]

Workloads (Berrar 2017):
* Algorithm 4, one replication at d = 20: 10 stratified folds of 1000 cases, SVM and RF per fold.
* Algorithm 2, one replication of study 1 group 3: 20 data sets of 400..590 cases, NB and SVM.

Prints the seconds of each contender side by side and the ratios to the plain
scikit-learn loop.  R's time is the fit + predict time measured inside R (no
start-up, no CSV reading).  Also prints the accuracy of each contender.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

sys.path.insert(0, str(Path(__file__).resolve().parent / "r"))
import rbridge  # noqa: E402

from simstudy.pipeline.learners import E1071SVC, E1071NaiveBayes, RandomForestR, naive_bayes_predict_batch  # noqa: E402


def plain(tasks, learners):
    acc = []
    for t in tasks:
        for name in learners:
            est = {
                "nb": lambda: GaussianNB(),
                "svm": lambda: make_pipeline(StandardScaler(), SVC()),
                "rf": lambda: RandomForestClassifier(500, random_state=0),
            }[name]()
            acc.append(est.fit(t.X_train, t.y_train).score(t.X_test, t.y_test))
    return np.mean(acc)


def ours(tasks, learners, backend="sklearn"):
    acc = []
    for t in tasks:
        for name in learners:
            est = {
                "nb": lambda: E1071NaiveBayes(),
                "svm": lambda: E1071SVC(backend=backend),
                "rf": lambda: RandomForestR(random_state=0, backend=backend),
            }[name]()
            acc.append(est.fit(t.X_train, t.y_train).score(t.X_test, t.y_test))
    return np.mean(acc)


def timed(f, *a, **k):
    t = time.perf_counter()
    r = f(*a, **k)
    return time.perf_counter() - t, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-r", action="store_true")
    ap.add_argument("--intelex", action="store_true")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    workloads = {
        "alg4 d=20 (10 folds, SVM+RF)": (rbridge.cv_tasks(20, 1, learners=("svm", "rf"), rf_seeds=1), ("svm", "rf")),
        "alg2 s1 g3 (20 sets, NB+SVM)": (rbridge.study1_tasks(3, 1, learners=("nb", "svm")), ("nb", "svm")),
    }
    use_r = not args.no_r and rbridge.r_available()
    for label, (tasks, learners) in workloads.items():
        print(f"== {label}")
        t_plain, a_plain = timed(plain, tasks, learners)
        print(f"  plain sklearn loop      {t_plain:8.3f} s   acc {a_plain:.4f}   ratio 1.00")
        t_ours, a_ours = timed(ours, tasks, learners)
        print(f"  simstudy learners       {t_ours:8.3f} s   acc {a_ours:.4f}   ratio {t_ours / t_plain:.2f}")
        if args.intelex:
            t_x, a_x = timed(ours, tasks, learners, backend="intelex")
            print(f"  simstudy, intelex       {t_x:8.3f} s   acc {a_x:.4f}   ratio {t_x / t_plain:.2f}")
        for name in learners:
            t_one, _ = timed(ours, tasks, (name,))
            print(f"    of which {name:4s}          {t_one:8.3f} s")
        if "nb" in learners:
            t_loop, _ = timed(ours, tasks, ("nb",))
            # Batch fast path: data set i of 50 replications at once (equal shapes across replications).
            reps = [rbridge.study1_tasks(3, 1000 + r, datasets=[10])[0] for r in range(50)]
            Xtr = np.stack([t.X_train for t in reps])
            ytr = np.stack([t.y_train for t in reps])
            Xte = np.stack([t.X_test for t in reps])
            t_b, _ = timed(naive_bayes_predict_batch, Xtr, ytr, Xte)
            t_l, _ = timed(lambda: [E1071NaiveBayes().fit(t.X_train, t.y_train).predict(t.X_test) for t in reps])
            print(f"  NB batch (50 problems)  {t_b:8.3f} s vs one fit each {t_l:8.3f} s   ratio {t_b / t_l:.2f}")
        if use_r:
            with tempfile.TemporaryDirectory() as d:
                out, timing = rbridge.run_r(d, tasks)
            t_r = sum(timing.values())
            acc_r = np.mean(
                [
                    (out[(t.id, n)].reshape(len(t.y_test), -1) == t.y_test[:, None]).mean()
                    for t in tasks
                    for n in learners
                ]
            )
            print(f"  R (fit+predict in R)    {t_r:8.3f} s   acc {acc_r:.4f}   ratio {t_r / t_plain:.2f}")
            for name in learners:
                print(f"    of which {name:4s}          {sum(v for k, v in timing.items() if k[1] == name):8.3f} s")
        if args.profile:
            prof = cProfile.Profile()
            prof.runcall(ours, tasks, learners)
            pstats.Stats(prof).sort_stats("cumulative").print_stats(12)


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        main()
