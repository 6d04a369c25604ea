"""Resampling designs: which cases train and which test in each fold.

Splitting is separate from fitting and testing so that every learner and every
significance test of one replication sees the same folds (common random numbers).
"""

from __future__ import annotations

import numpy as np

from simstudy._validation import check_positive
from simstudy.errors import InputError

__all__ = ["stratified_fold_ids", "repeated_fold_ids", "folds"]


def stratified_fold_ids(y, n_folds: int, rng) -> np.ndarray:
    """Assign each case to one of ``n_folds`` folds, stratified by class.

    Cases of each class are shuffled and dealt to the folds in turn, starting the
    deal of each class where the previous class stopped, so fold sizes differ by
    at most one overall and class counts per fold by at most one.

    Parameters
    ----------
    y : array_like of shape (n,)
        Class labels.
    n_folds : int
        Number of folds, 2 <= n_folds <= n.
    rng : numpy Generator or seed

    Returns
    -------
    ndarray of shape (n,), int
        Fold index of every case.
    """
    y = _checked_labels(y, n_folds)
    rng = np.random.default_rng(rng)
    fold = np.empty(y.shape[0], dtype=np.int64)
    members, deals = _class_deals(y, n_folds)
    _deal(members, deals, rng, fold)
    return fold


def _checked_labels(y, n_folds):
    y = np.asarray(y)
    if y.ndim != 1:
        raise InputError(f"y: expected a 1-d array of labels, got shape {y.shape}")
    check_positive(n_folds, "n_folds", integer=True)
    if n_folds < 2 or n_folds > y.shape[0]:
        raise InputError(f"n_folds: must be between 2 and the number of cases ({y.shape[0]}), got {n_folds}")
    return y


def _class_deals(y, n_folds):
    """Each class's cases (classes in sorted order) and the folds dealt to them, in turn from where the
    previous class stopped."""
    members, deals, start = [], [], 0
    for label in np.unique(y):
        idx = np.flatnonzero(y == label)
        members.append(idx)
        deals.append((start + np.arange(idx.shape[0])) % n_folds)
        start = (start + idx.shape[0]) % n_folds
    return members, deals


def _deal(members, deals, rng, fold):
    """One partition into ``fold``: each class's cases shuffled (one permutation a class, in order), then dealt."""
    for idx, deal in zip(members, deals):
        fold[idx[rng.permutation(idx.shape[0])]] = deal


def repeated_fold_ids(y, n_runs: int, n_folds: int, rng) -> np.ndarray:
    """Fold ids of ``n_runs`` independent stratified partitions: shape (n_runs, n).

    The runs are :func:`stratified_fold_ids` called in turn with one generator
    (the same draws); the classes' cases are found once for all of them.

    Parameters
    ----------
    y : array_like, shape (n,)
        Class labels.
    n_runs, n_folds : int
        Number of partitions and of folds in each.
    rng : numpy.random.Generator or seed
        Source of randomness.

    Returns
    -------
    ndarray of int, shape (n_runs, n)
        Fold id of every case in every run.
    """
    check_positive(n_runs, "n_runs", integer=True)
    y = _checked_labels(y, n_folds)
    rng = np.random.default_rng(rng)
    members, deals = _class_deals(y, n_folds)
    out = np.empty((n_runs, y.shape[0]), dtype=np.int64)
    for r in range(n_runs):
        _deal(members, deals, rng, out[r])
    return out


def folds(fold_ids):
    """Yield ``(train_index, test_index)`` for each fold of one partition.

    Parameters
    ----------
    fold_ids : array_like of int, shape (n,)
        Fold of every case.

    Yields
    ------
    (train_index, test_index) : tuple of ndarray
    """
    fold_ids = np.asarray(fold_ids)
    for f in range(int(fold_ids.max()) + 1):
        yield np.flatnonzero(fold_ids != f), np.flatnonzero(fold_ids == f)
