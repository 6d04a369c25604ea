"""Compiled CART classification tree for :class:`simstudy.apps.proving.worlds.ViewTree`.

The proving ground fits the tree hundreds of thousands of times (every fold of
every run of every replication), so the whole cross-validation loop runs here:
:func:`fold_predictions` fits the tree on the training part of every fold of
every run and predicts the fold's held-out cases, in one call.

The tree (Breiman et al.'s CART, unpruned):

* a split is ``x_j <= threshold``, the threshold halfway between two consecutive
  distinct values of feature j among the node's cases (``a / 2 + b / 2``; the
  lower value when the halfway point rounds up to the upper one);
* the best split maximises the decrease in Gini impurity, computed as
  scikit-learn's ``DecisionTreeClassifier`` computes its proxy,
  ``-n_right * gini_right - n_left * gini_left``, from integer class counts;
* ties: among splits with equal values of that proxy the first feature (in
  column order) wins, and within a feature the lowest threshold;
* a node becomes a leaf when it is pure, when all its cases have equal values
  on every feature, or when the best split does not lower the impurity (both
  children have the node's class proportions);
* a leaf predicts the majority class of its training cases, ties to the lower
  class index (a tree grown on no cases predicts class 0).

Every feature is sorted once per data set (``order``).  A fit copies the
training cases' positions out of that order, keeps for each node one segment of
case indices per feature in that feature's sorted order, and splits a node by a
stable partition of each segment, so a fit costs O(n d depth) and sorts nothing.

Most candidate splits score far below the best one found so far.  The scan
therefore first screens each by ``sq_left / n_left + sq_right / n_right`` (the
proxy plus a constant; sq = sum of squared class counts), computed with
tabulated reciprocals instead of divisions, and computes the exact proxy only
for the splits within ``SCREEN_MARGIN`` times the node's size of the best's
screening score.  That margin is orders of magnitude above rounding error, so
the chosen split is the one the exact proxy alone would choose.

Everything here is private; :class:`~simstudy.apps.proving.worlds.ViewTree` is the
entry point.
"""

from __future__ import annotations

import numpy as np
from numba import njit

SCREEN_MARGIN = 1e-9
"""Splits whose screening score falls short of the best's by more than this times the node's size are skipped."""


@njit(cache=True, nogil=True)
def _new_tree(n):
    """Room for a tree grown on at most n cases: ``(feature, threshold, child_left, child_right, label)``."""
    cap = 2 * n + 1
    return (
        np.empty(cap, dtype=np.int64),
        np.empty(cap),
        np.empty(cap, dtype=np.int64),
        np.empty(cap, dtype=np.int64),
        np.empty(cap, dtype=np.int64),
    )


@njit(cache=True, nogil=True)
def _work_space(n, n_classes):
    """Work arrays of :func:`_grow` for at most n cases."""
    reciprocal = np.empty(n + 1)
    reciprocal[0] = 0.0
    for k in range(1, n + 1):
        reciprocal[k] = 1.0 / k
    return (
        reciprocal,
        np.empty((2 * n + 1, n_classes), dtype=np.int64),
        np.empty(n, dtype=np.bool_),
        np.empty(n, dtype=np.int64),
        np.empty(n_classes, dtype=np.int64),
        np.empty(n_classes, dtype=np.int64),
        np.empty((n + 2, 3), dtype=np.int64),
    )


@njit(cache=True, nogil=True)
def _grow(X, y, idx, n_train, n_classes, tree, work):
    """Grow the tree on the cases ``idx[j, :n_train]`` (row j: the cases sorted by feature j) into ``tree``.

    Node 0 is the root.  An inner node splits on ``feature[node]`` at
    ``threshold[node]`` into ``child_left[node]`` (values <= threshold) and
    ``child_right[node]``; a leaf has ``feature[node] == -1``.  Every node's
    ``label`` is the majority class of its training cases.  ``idx`` is reordered
    in place.  Returns the number of nodes.
    """
    feature, threshold, child_left, child_right, label = tree
    reciprocal, class_counts, goes_left, buffer, left_counts, best_left_counts, stack = work
    n_features = X.shape[1]
    for c in range(n_classes):
        class_counts[0, c] = 0
    for p in range(n_train):
        class_counts[0, y[idx[0, p]]] += 1
    n_nodes = 1
    stack[0, 0] = 0
    stack[0, 1] = 0
    stack[0, 2] = n_train
    top = 1
    while top > 0:
        top -= 1
        node = stack[top, 0]
        start = stack[top, 1]
        end = stack[top, 2]
        size = end - start
        counts = class_counts[node]
        feature[node] = -1
        majority = 0
        sq_node = 0
        for c in range(n_classes):
            if counts[c] > counts[majority]:
                majority = c
            sq_node += counts[c] * counts[c]
        label[node] = majority
        if counts[majority] == size:
            continue
        best_proxy = -np.inf
        best_screen = -np.inf
        margin = SCREEN_MARGIN * size
        best_feature = -1
        best_pos = 0
        best_threshold = 0.0
        for j in range(n_features):
            for c in range(n_classes):
                left_counts[c] = 0
            sq_left = 0
            sq_right = sq_node
            for p in range(start, end - 1):
                c = y[idx[j, p]]
                sq_left += 2 * left_counts[c] + 1
                sq_right -= 2 * (counts[c] - left_counts[c]) - 1
                left_counts[c] += 1
                screen = sq_left * reciprocal[p + 1 - start] + sq_right * reciprocal[end - p - 1]
                if screen < best_screen - margin:
                    continue
                value = X[idx[j, p], j]
                following = X[idx[j, p + 1], j]
                if following > value:
                    n_left = float(p + 1 - start)
                    n_right = float(end - p - 1)
                    gini_left = 1.0 - sq_left / (n_left * n_left)
                    gini_right = 1.0 - sq_right / (n_right * n_right)
                    proxy = -n_right * gini_right - n_left * gini_left
                    if proxy > best_proxy:
                        best_proxy = proxy
                        best_screen = screen
                        best_feature = j
                        best_pos = p + 1
                        best_threshold = value / 2.0 + following / 2.0
                        if best_threshold >= following:
                            best_threshold = value
                        for k in range(n_classes):
                            best_left_counts[k] = left_counts[k]
        if best_feature < 0:
            continue
        n_left_cases = best_pos - start
        proportional = True
        for c in range(n_classes):
            if best_left_counts[c] * size != counts[c] * n_left_cases:
                proportional = False
        if proportional:
            continue
        for p in range(start, best_pos):
            goes_left[idx[best_feature, p]] = True
        for p in range(best_pos, end):
            goes_left[idx[best_feature, p]] = False
        for j in range(n_features):
            if j == best_feature:
                continue
            to_left = start
            to_right = 0
            for p in range(start, end):
                i = idx[j, p]
                left = goes_left[i]
                idx[j, to_left] = i
                buffer[to_right] = i
                to_left += left
                to_right += 1 - left
            for q in range(to_right):
                idx[j, to_left + q] = buffer[q]
        feature[node] = best_feature
        threshold[node] = best_threshold
        child_left[node] = n_nodes
        child_right[node] = n_nodes + 1
        for c in range(n_classes):
            class_counts[n_nodes, c] = best_left_counts[c]
            class_counts[n_nodes + 1, c] = counts[c] - best_left_counts[c]
        stack[top, 0] = n_nodes + 1
        stack[top, 1] = best_pos
        stack[top, 2] = end
        stack[top + 1, 0] = n_nodes
        stack[top + 1, 1] = start
        stack[top + 1, 2] = best_pos
        top += 2
        n_nodes += 2
    return n_nodes


@njit(cache=True, nogil=True)
def _leaf_label(X, i, tree):
    """The class the tree predicts for row i of X."""
    feature, threshold, child_left, child_right, label = tree
    node = 0
    while feature[node] >= 0:
        if X[i, feature[node]] <= threshold[node]:
            node = child_left[node]
        else:
            node = child_right[node]
    return label[node]


@njit(cache=True, nogil=True)
def fold_predictions(X, y, order, fold_ids, n_classes):
    """Fit the tree on every training part of ``fold_ids`` (runs, n) and predict its held-out cases.

    Parameters
    ----------
    X : ndarray of float64, shape (n, d)
        The features the tree sees.
    y : ndarray of int64, shape (n,)
        Class codes 0 .. n_classes - 1.
    order : ndarray of int64, shape (d, n)
        Row j: the cases sorted by feature j.
    fold_ids : ndarray of int64, shape (runs, n)
        Fold of every case in every run, -1 = always training.
    n_classes : int
        Number of classes.

    Returns
    -------
    ndarray of int64, shape (runs, n)
        Entry (r, i): the class predicted by the tree fitted without the fold of
        case i in run r; -1 where ``fold_ids`` is -1.
    """
    n, n_features = X.shape
    runs = fold_ids.shape[0]
    tree = _new_tree(n)
    work = _work_space(n, n_classes)
    idx = np.empty((n_features, n), dtype=np.int64)
    out = np.empty((runs, n), dtype=np.int64)
    for r in range(runs):
        n_folds = 0
        for i in range(n):
            out[r, i] = -1
            if fold_ids[r, i] + 1 > n_folds:
                n_folds = fold_ids[r, i] + 1
        for f in range(n_folds):
            n_train = 0
            for i in range(n):
                if fold_ids[r, i] != f:
                    n_train += 1
            if n_train == n:
                continue
            for j in range(n_features):
                m = 0
                for p in range(n):
                    i = order[j, p]
                    if fold_ids[r, i] != f:
                        idx[j, m] = i
                        m += 1
            _grow(X, y, idx, n_train, n_classes, tree, work)
            for i in range(n):
                if fold_ids[r, i] == f:
                    out[r, i] = _leaf_label(X, i, tree)
    return out


@njit(cache=True, nogil=True)
def fit(X, y, order, n_classes):
    """The tree grown on all rows of ``X``: ``(feature, threshold, child_left, child_right, label)`` per node.

    ``X``, ``y``, ``order`` and ``n_classes`` are as in :func:`fold_predictions`.
    """
    n = X.shape[0]
    feature, threshold, child_left, child_right, label = tree = _new_tree(n)
    n_nodes = _grow(X, y, order.copy(), n, n_classes, tree, _work_space(n, n_classes))
    return (
        feature[:n_nodes].copy(),
        threshold[:n_nodes].copy(),
        child_left[:n_nodes].copy(),
        child_right[:n_nodes].copy(),
        label[:n_nodes].copy(),
    )


@njit(cache=True, nogil=True)
def predict(X, feature, threshold, child_left, child_right, label):
    """The class the tree (as returned by :func:`fit`) predicts for every row of ``X``."""
    tree = (feature, threshold, child_left, child_right, label)
    out = np.empty(X.shape[0], dtype=np.int64)
    for i in range(X.shape[0]):
        out[i] = _leaf_label(X, i, tree)
    return out
