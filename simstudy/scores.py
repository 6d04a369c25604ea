"""Paired scores: the accuracy of every learner on every split, each learner fitted once per split.

Every test and every pair of learners of a replication is then computed from
these arrays, so all of them see the same folds and the same fits.
"""

from __future__ import annotations

import numpy as np

from .splits import folds

__all__ = ["split_accuracies", "cv_accuracies"]


def split_accuracies(X, y, train, test, learners) -> np.ndarray:
    """Accuracy of each learner (a factory returning an unfitted estimator) on one split: shape (L,)."""
    return np.array([np.mean(make().fit(X[train], y[train]).predict(X[test]) == y[test]) for make in learners])


def cv_accuracies(X, y, fold_ids, learners) -> np.ndarray:
    """Accuracy of each learner on each fold of each run: shape (n_runs, n_folds, L).

    ``fold_ids`` has shape (n_runs, n) as made by :func:`simstudy.splits.repeated_fold_ids`.
    """
    fold_ids = np.atleast_2d(fold_ids)
    return np.array([[split_accuracies(X, y, train, test, learners) for train, test in folds(ids)]
                     for ids in fold_ids])
