"""J48's compiled choice of split grows the trees the numpy choice grows, on the data it was made for.

:meth:`J48._select_compiled` (:mod:`simstudy.pipeline.learners._j48_select`) replaces the
attribute-by-attribute numpy path (``J48._compiled_select = False``) at every node:
missing values with fractional instance weights below them, nominal attributes with
many values (also as many as 0.3 n, where J48 leaves them out of the average gain),
and nominal and numeric attributes together.  The trees must be the same node for
node (attribute, threshold, class weights) and predict the same classes.
"""

import numpy as np
import pytest

from simstudy.pipeline.learners._j48_select import _pairwise
from simstudy.pipeline.learners.j48 import J48


class _Numpy(J48):
    _compiled_select = False


def _same_tree(a, b):
    """Both trees node for node; the class weights to 1e-12 (fractional sums may differ in the last bit)."""
    assert a.is_leaf == b.is_leaf and a.is_empty == b.is_empty
    np.testing.assert_allclose(a.dist, b.dist, rtol=1e-12, atol=1e-12)
    if a.is_leaf:
        return
    assert a.split.attribute == b.split.attribute and a.split.nominal == b.split.nominal
    assert a.split.threshold == b.split.threshold
    for sa, sb in zip(a.sons, b.sons, strict=True):
        _same_tree(sa, sb)


def _data(rng, n, kinds, c, missing):
    """Columns: an int k > 0 is a nominal attribute with k values, 0 a numeric one; classes depend on a few."""
    y = rng.integers(0, c, n)
    cols = []
    for j, k in enumerate(kinds):
        signal = (y + j) % max(k, 2) if j % 2 == 0 else rng.integers(0, max(k, 2), n)
        if k:
            x = np.where(rng.random(n) < 0.7, signal, rng.integers(0, k, n)) % k
        else:
            x = np.round(rng.normal(size=n) + 0.9 * y * (j % 3 == 0), 1)
        cols.append(x.astype(float))
    X = np.column_stack(cols)
    X[rng.random(X.shape) < missing] = np.nan
    return X, y, np.array([k > 0 for k in kinds]), [int(k) for k in kinds]


CASES = [
    # (n, attribute kinds, classes, share missing, seed)
    (150, [3, 0, 4, 0, 2], 2, 0.15, 0),  # mixed, missing values everywhere
    (200, [12, 20, 5, 0], 4, 0.1, 1),  # many-valued nominal attributes with missing values
    (60, [25, 18, 3, 0], 3, 0.05, 2),  # 25 >= 0.3 n: left out of the average gain
    (40, [15, 14, 20], 3, 0.1, 3),  # all nominal, every attribute many-valued
    (120, [0, 0, 0, 0], 5, 0.25, 4),  # numeric only, a quarter missing
    (200, [2] * 6 + [0] * 2, 12, 0.03, 5),  # many classes (numpy's 8-way sums), few missing
]


@pytest.mark.parametrize("n,kinds,c,missing,seed", CASES)
def test_compiled_choice_grows_the_numpy_tree(n, kinds, c, missing, seed):
    rng = np.random.default_rng(seed)
    X, y, nominal, ncat = _data(rng, n, kinds, c, missing)
    train, test = slice(0, int(0.8 * n)), slice(int(0.8 * n), n)
    assert J48(nominal=nominal, n_categories=ncat, n_classes=c, unpruned=True).fit(X, y).tree_size() > 1
    for options in ({}, {"min_leaf": 1}, {"unpruned": True}, {"subtree_raising": False, "confidence": 0.1}):
        kw = dict(nominal=nominal, n_categories=ncat, n_classes=c, **options)
        new = J48(**kw).fit(X[train], y[train])
        old = _Numpy(**kw).fit(X[train], y[train])
        _same_tree(new.tree_, old.tree_)
        np.testing.assert_array_equal(new.predict(X[test]), old.predict(X[test]))
        np.testing.assert_allclose(new.predict_proba(X[test]), old.predict_proba(X[test]), rtol=1e-12, atol=1e-12)


def test_whole_weights_give_the_same_bits():
    """Without missing values every weight is whole and the class weights are equal to the last bit."""
    rng = np.random.default_rng(7)
    X, y, nominal, ncat = _data(rng, 250, [6, 0, 11, 0, 3], 4, 0.0)
    kw = dict(nominal=nominal, n_categories=ncat, n_classes=4)
    a, b = J48(**kw).fit(X, y), _Numpy(**kw).fit(X, y)
    assert a.tree_size() == b.tree_size() > 1
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_fold_predictions_with_missing_values_as_before():
    """Cross-validated predictions on mixed data with missing values, compiled choice against numpy's."""
    from simstudy.pipeline.scores import fold_predictions
    from simstudy.pipeline.splits import repeated_fold_ids

    rng = np.random.default_rng(8)
    X, y, nominal, ncat = _data(rng, 180, [8, 0, 13, 0, 2, 0], 3, 0.12)
    ids = repeated_fold_ids(y, 2, 5, rng)
    kw = dict(nominal=nominal, n_categories=ncat, n_classes=3)
    np.testing.assert_array_equal(
        fold_predictions(X, y, ids, lambda: J48(**kw)), fold_predictions(X, y, ids, lambda: _Numpy(**kw))
    )


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 127, 128, 129, 136, 255, 256, 257, 1000, 1025])
def test_pairwise_sum_is_numpys(n):
    rng = np.random.default_rng(n)
    a = rng.random(n + 3) * rng.choice([1.0, 1e6, 1e-3], n + 3)
    assert _pairwise(a, 3, n) == a[3:].sum()
