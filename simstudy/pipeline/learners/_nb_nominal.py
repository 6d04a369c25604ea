"""Compiled per-fold predictions of Weka's NaiveBayes on all-nominal data without missing values.

Each training part's counts are all cases' counts minus its held-out part's
(integers, so exactly the counts a fit would make).  A held-out case's class
products are then formed as :meth:`WekaNaiveBayes.predict_proba` forms them:
the Laplace prior, then attribute by attribute the product with each class's
likelihood floored at 1e-75, all classes multiplied by 1e75 whenever their
largest product falls below 1e-75, then each divided by their sum added left to
right; the prediction is the first largest.  Every operation is the one the
array version makes, in the same order, so the predictions are the same
(``tests/pipeline/test_learners_weka.py`` compares them).

Everything here is private; :meth:`WekaNaiveBayes.fold_predictions` is the entry point.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_FLOOR = 1e-75


@njit(cache=True, nogil=True)
def fold_predictions(X, y, fold_ids, offsets, c, need_last):
    """Predicted class codes (runs, n) of the model fitted without each case's fold (-1 where never held out).

    ``X`` (n, p) category codes, ``y`` (n,) class codes, ``fold_ids`` (runs, n),
    ``offsets`` (p + 1,) the start of each attribute's categories in a row of
    counts, ``c`` the number of classes.  Returns (predictions, ok); with
    ``need_last`` it stops as soon as a training part lacks the last class, with
    ``ok`` False.
    """
    n, p = X.shape
    runs = fold_ids.shape[0]
    width = offsets[p]
    total = np.zeros((c, width))
    total_class = np.zeros(c, dtype=np.int64)
    for i in range(n):
        total_class[y[i]] += 1
        for j in range(p):
            total[y[i], offsets[j] + X[i, j]] += 1.0
    n_folds = max(fold_ids.max() + 1, 0) if fold_ids.size else 0
    out = np.full((runs, n), -1, dtype=np.int64)
    counts = np.empty((c, width))
    denom = np.empty((c, p))
    per_class = np.empty(c, dtype=np.int64)
    prior = np.empty(c)
    joint = np.empty(c)
    for r in range(runs):
        for f in range(n_folds):
            for k in range(c):
                per_class[k] = total_class[k]
                for w in range(width):
                    counts[k, w] = total[k, w]
            held = 0
            for i in range(n):
                if fold_ids[r, i] == f:
                    held += 1
                    per_class[y[i]] -= 1
                    for j in range(p):
                        counts[y[i], offsets[j] + X[i, j]] -= 1.0
            if held == 0:
                continue
            if need_last and per_class[c - 1] <= 0:
                return out, False
            n_train = n - held
            for k in range(c):
                prior[k] = (per_class[k] + 1.0) / float(n_train + c)
                for j in range(p):
                    s = 0.0
                    for w in range(offsets[j], offsets[j + 1]):
                        s += counts[k, w] + 1.0
                    denom[k, j] = s
            for i in range(n):
                if fold_ids[r, i] != f:
                    continue
                for k in range(c):
                    joint[k] = prior[k]
                for j in range(p):
                    w = offsets[j] + X[i, j]
                    top = 0.0
                    for k in range(c):
                        like = (counts[k, w] + 1.0) / denom[k, j]
                        if like < _FLOOR:
                            like = _FLOOR
                        joint[k] = joint[k] * like
                        if k == 0 or joint[k] > top:
                            top = joint[k]
                    if top > 0.0 and top < _FLOOR:
                        for k in range(c):
                            joint[k] = joint[k] * 1e75
                s = 0.0
                for k in range(c):
                    s = s + joint[k]
                best = 0
                if s > 0.0:
                    best_v = joint[0] / s
                    for k in range(1, c):
                        v = joint[k] / s
                        if v > best_v:
                            best_v = v
                            best = k
                out[r, i] = best
    return out, True
