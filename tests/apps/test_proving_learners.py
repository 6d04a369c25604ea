"""The proving ground's LDA and tree learners: every fold at once equals fitting fold by fold."""

import numpy as np
import pytest

from simstudy.apps.proving.worlds import VIEW_LEARNERS, TwoViewWorld, ViewLDA, ViewTree
from simstudy.pipeline.designs import RepeatedKFold


def _fold_ids(y, rng):
    """Two runs of stratified 10-fold cv, then three train/test splits (test cases in fold 0, the rest -1)."""
    cv = RepeatedKFold(2, 10).fold_ids(y, rng)
    splits = np.full((3, y.size), -1)
    for row in splits:
        row[rng.choice(y.size, y.size // 3, replace=False)] = 0
    return np.vstack([cv, splits])


def _fold_by_fold(X, y, fold_ids, fit_predict):
    """Predictions of ``fit_predict(X_train, y_train, X_test)`` on every fold of every run, -1 where never held out."""
    pred = np.full(fold_ids.shape, -1)
    for r, ids in enumerate(fold_ids):
        for f in range(ids.max() + 1):
            test = ids == f
            pred[r, test] = fit_predict(X[~test], y[~test], X[test])
    return pred


def _reference_lda(X_train, y_train, X_test):
    """Textbook LDA: pooled covariance over n_train - n_classes, solved directly."""
    classes = np.unique(y_train)
    means = np.array([X_train[y_train == c].mean(axis=0) for c in classes])
    centred = X_train - means[np.searchsorted(classes, y_train)]
    cov = centred.T @ centred / (y_train.size - classes.size)
    coef = np.linalg.solve(cov, means.T)
    log_prior = np.log([np.mean(y_train == c) for c in classes])
    return classes[np.argmax(X_test @ coef - 0.5 * (means * coef.T).sum(axis=1) + log_prior, axis=1)]


def _reference_tree(X_train, y_train, X_test, n_classes=2):
    """The tree of :mod:`simstudy.apps.proving._view_tree`, grown node by node with numpy sorts (no presort, no screen)."""
    one_hot = np.eye(n_classes, dtype=np.int64)

    def grow(rows):
        counts = np.bincount(y_train[rows], minlength=n_classes)
        majority = int(np.argmax(counts))
        best = None
        for j in range(X_train.shape[1]):
            ordered = rows[np.argsort(X_train[rows, j], kind="stable")]
            values = X_train[ordered, j]
            left = np.cumsum(one_hot[y_train[ordered]], axis=0)[:-1]
            right = counts - left
            n_left = np.arange(1, rows.size, dtype=float)
            n_right = rows.size - n_left
            proxy = -n_right * (1.0 - (right**2).sum(axis=1) / (n_right * n_right)) - n_left * (
                1.0 - (left**2).sum(axis=1) / (n_left * n_left)
            )
            proxy[values[1:] <= values[:-1]] = -np.inf
            k = int(np.argmax(proxy)) if proxy.size else 0
            if proxy.size and proxy[k] > -np.inf and (best is None or proxy[k] > best[0]):
                threshold = values[k] / 2.0 + values[k + 1] / 2.0
                if threshold >= values[k + 1]:
                    threshold = values[k]
                best = (proxy[k], j, threshold, ordered[: k + 1], ordered[k + 1 :], left[k])
        if counts[majority] == rows.size or best is None:
            return majority
        _, j, threshold, to_left, to_right, left_counts = best
        if np.array_equal(left_counts * rows.size, counts * to_left.size):
            return majority
        return j, threshold, grow(to_left), grow(to_right)

    root = grow(np.arange(y_train.size))
    pred = np.empty(X_test.shape[0], dtype=np.int64)
    for i, x in enumerate(X_test):
        node = root
        while isinstance(node, tuple):
            j, threshold, below, above = node
            node = below if x[j] <= threshold else above
        pred[i] = node
    return pred


def _world(n, rho, seed):
    rng = np.random.default_rng(seed)
    X, y = TwoViewWorld(1.0, 1.0, rho).sample(n, rng)
    return X, y, _fold_ids(y, rng)


def _three_classes(seed):
    """Three Gaussian classes of unequal sizes in two dimensions."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], [40, 30, 50])
    X = np.array([[0.0, 0.0], [1.0, 0.5], [0.3, 1.2]])[y] + rng.standard_normal((y.size, 2))
    return X, y, _fold_ids(y, rng)


@pytest.mark.parametrize("n, rho", [(100, 0.0), (100, 0.6), (300, 0.0), (300, 0.6)])
@pytest.mark.parametrize("cols", [(0,), (0, 1), (0, 1, 2, 3)])
def test_lda_equals_fitting_fold_by_fold(n, rho, cols):
    X, y, ids = _world(n, rho, seed=n + int(10 * rho))
    expected = _fold_by_fold(X[:, cols], y, ids, _reference_lda)
    assert (ViewLDA(cols).fold_predictions(X, y, ids) == expected).all()


@pytest.mark.parametrize("n, rho", [(100, 0.0), (100, 0.6), (300, 0.0), (300, 0.6)])
@pytest.mark.parametrize("cols", [(0,), (0, 1), (0, 1, 2, 3)])
def test_tree_equals_fitting_fold_by_fold(n, rho, cols):
    X, y, ids = _world(n, rho, seed=n + int(10 * rho))
    expected = _fold_by_fold(X[:, cols], y, ids, _reference_tree)
    assert (ViewTree(cols).fold_predictions(X, y, ids) == expected).all()
    plain = _fold_by_fold(X, y, ids[-3:], lambda Xt, yt, Xs: ViewTree(cols).fit(Xt, yt).predict(Xs))
    assert (plain == expected[-3:]).all()


def test_three_classes():
    X, y, ids = _three_classes(seed=5)
    cols = (0, 1)
    assert (ViewLDA(cols).fold_predictions(X, y, ids) == _fold_by_fold(X, y, ids, _reference_lda)).all()
    tree = _fold_by_fold(X, y, ids, lambda Xt, yt, Xs: _reference_tree(Xt, yt, Xs, n_classes=3))
    assert (ViewTree(cols).fold_predictions(X, y, ids) == tree).all()
    assert set(np.unique(tree[ids >= 0])) == {0, 1, 2}


def test_tree_equals_sklearn_on_one_column():
    """Same splits as scikit-learn's tree; it works in float32, so the data are rounded to float32 first.

    With two or more columns the two trees part where several features tie for
    the best split (common in small nodes): scikit-learn draws the order in which
    it tries the features at random, this tree takes the first.
    """
    from sklearn.tree import DecisionTreeClassifier

    X, y, ids = _world(300, 0.6, seed=11)
    X = X.astype(np.float32).astype(float)
    expected = _fold_by_fold(
        X[:, :1], y, ids, lambda Xt, yt, Xs: DecisionTreeClassifier(random_state=0).fit(Xt, yt).predict(Xs)
    )
    assert (ViewTree((0,)).fold_predictions(X, y, ids) == expected).all()


def test_lda_equals_sklearn_when_the_classes_are_balanced():
    """scikit-learn divides the pooled covariance by n_train, not n_train - n_classes: no matter with equal priors."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    X, y, ids = _world(300, 0.6, seed=12)
    ids = ids[:2]  # stratified folds of 150 + 150 cases: equal priors
    expected = _fold_by_fold(
        X[:, :2], y, ids, lambda Xt, yt, Xs: LinearDiscriminantAnalysis(solver="lsqr").fit(Xt, yt).predict(Xs)
    )
    assert (ViewLDA((0, 1)).fold_predictions(X, y, ids) == expected).all()


@pytest.mark.parametrize("learner", [ViewLDA, ViewTree])
def test_constant_columns(learner):
    X, y, ids = _world(100, 0.0, seed=3)
    X[:, 1] = 2.5
    assert (learner((0, 1)).fold_predictions(X, y, ids) == learner((0,)).fold_predictions(X, y, ids)).all()
    y = y.copy()
    y[50:60] = 1  # 60 cases of class 1, 40 of class 0
    pred = learner((1,)).fold_predictions(X, y, ids)
    assert (pred[ids >= 0] == 1).all()


@pytest.mark.parametrize("learner", [ViewLDA, ViewTree])
def test_a_training_part_of_one_class_predicts_that_class(learner):
    X, y, _ = _world(100, 0.0, seed=4)
    ids = np.where(y == 1, 0, 1)[None, :]  # fold 0 trains on class 0 only, fold 1 on class 1
    assert (learner((0, 1)).fold_predictions(X, y, ids) == 1 - y).all()
    assert (learner((0, 1)).fit(X[y == 1], y[y == 1]).predict(X) == 1).all()


def test_registered_after_the_first_pairs():
    assert list(VIEW_LEARNERS) == ["nb", "1nn", "lda", "tree"]
    assert VIEW_LEARNERS["lda"] is ViewLDA and VIEW_LEARNERS["tree"] is ViewTree
