"""Fit + predict time of TAN and SMO on Bouckaert-sized data (270 x 10 binary attributes, 30 test rows).

Run: .venv/bin/python benchmarks/weka/bench_pairs.py
Data: ``load_source("bouckaert3").sample(300, np.random.default_rng(0))``, trained on the first 270 rows.
References in the same process: WekaNaiveBayes, and scikit-learn's ``SVC(kernel="linear")`` on the
same (already 0/1) columns.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.svm import SVC

from simstudy.pipeline.learners import SMO, TAN, WekaNaiveBayes
from simstudy.pipeline.sources.bayesnet import load_source


def per_call(make, X, y, seconds=2.0):
    """Milliseconds per fit + predict, repeated for ``seconds``."""
    make().fit(X[:270], y[:270]).predict(X[270:])
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        make().fit(X[:270], y[:270]).predict(X[270:])
        n += 1
    return (time.perf_counter() - t0) / n * 1e3


def main():
    X, y = load_source("bouckaert3").sample(300, np.random.default_rng(0))
    X = X.astype(float)
    kw = {"nominal": np.ones(10, dtype=bool), "n_categories": [2] * 10, "n_classes": 2}
    rows = [
        ("TAN", lambda: TAN(**kw)),
        ("SMO (Weka's solver, the default)", lambda: SMO(**kw)),
        ("SMO (backend='libsvm')", lambda: SMO(backend="libsvm", **kw)),
        ("SMO (backend='sklearn')", lambda: SMO(backend="sklearn", **kw)),
        ("WekaNaiveBayes", lambda: WekaNaiveBayes(**kw)),
        ("sklearn SVC(kernel='linear')", lambda: SVC(kernel="linear", C=1.0, tol=1e-3)),
    ]
    print("| learner | ms per fit + predict |")
    print("|---|---|")
    for name, make in rows:
        print(f"| {name} | {per_call(make, X, y):.2f} |", flush=True)


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        main()
