"""Fits per second on 270 x 10 binary data (Bouckaert 2004 Table 1 setting: 300 rows, 10-fold CV).

Run: .venv/bin/python benchmarks/weka/bench_fit.py
Compares WekaNaiveBayes with scikit-learn's CategoricalNB (alpha=1) side by side in one process,
and reports DecisionTreeClassifier as the tree baseline for a later J48.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.naive_bayes import CategoricalNB
from sklearn.tree import DecisionTreeClassifier

from simstudy.pipeline.learners.weka import DecisionStump, WekaNaiveBayes


def rate(make, X, y, seconds=2.0):
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        make().fit(X, y)
        n += 1
    return n / (time.perf_counter() - t0)


def main():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(270, 10)).astype(float)
    y = rng.integers(0, 2, size=270)
    nom = np.ones(10, dtype=bool)
    ours = rate(lambda: WekaNaiveBayes(nominal=nom, n_categories=[2] * 10, n_classes=2), X, y)
    cnb = rate(lambda: CategoricalNB(alpha=1.0, min_categories=2), X, y)
    tree = rate(lambda: DecisionTreeClassifier(random_state=0), X, y)
    stump = rate(lambda: DecisionStump(nominal=nom, n_categories=[2] * 10, n_classes=2), X, y)
    print(f"WekaNaiveBayes fits/s: {ours:.0f}")
    print(f"DecisionStump fits/s: {stump:.0f}")
    print(f"CategoricalNB fits/s:  {cnb:.0f}  (ratio ours/CategoricalNB = {ours / cnb:.2f})")
    print(f"DecisionTreeClassifier fits/s: {tree:.0f}  (ratio WekaNaiveBayes/tree = {ours / tree:.2f})")


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        main()
