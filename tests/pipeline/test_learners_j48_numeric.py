"""J48's compiled choice of numeric cuts gives, at every node, what the one-by-one path gives.

:meth:`J48._numeric_candidates` (compiled, :mod:`simstudy.pipeline.learners._j48_numeric`)
must return for each numeric attribute exactly the gain, gain ratio, class
counts and threshold of :meth:`J48._candidate`, Weka's ``C45Split`` made
attribute by attribute.  These tests grow trees on data built to reach the
corners (ties and near-ties within 1e-5, missing values, duplicated and constant
columns, up to 12 classes, tiny sets, skewed classes) and compare the two at
every node, to the last bit.
"""

import numpy as np
import pytest

from simstudy.pipeline.learners.j48 import J48


class _Checked(J48):
    """J48 that, at every node where the compiled path applies, compares it with the one-by-one path."""

    _compiled_select = False  # the numpy choice of split, whose numeric cuts are compiled when weights are whole
    nodes = 0

    def _numeric_candidates(self, idx, w, total):
        got = super()._numeric_candidates(idx, w, total)
        if got is None:
            return None
        for j, cand in got.items():
            ref = self._candidate(j, idx, w, total)
            assert (cand is None) == (ref is None), (j, cand, ref)
            if cand is not None:
                assert cand[0] == ref[0] and cand[1] == ref[1] and cand[3] == ref[3], (j, cand, ref)
                np.testing.assert_array_equal(cand[2], ref[2])
        type(self).nodes += 1
        return got


def _data(rng, n, p, c, missing=0.0, ties=False):
    y = rng.integers(0, c, n)
    X = rng.normal(size=(n, p)) + 0.8 * (y[:, None] % 3) * (rng.random(p) < 0.5)
    if ties:
        X = np.round(X, 1)
        X[:, 0] += rng.choice([0.0, 4e-6, 2e-5], n)  # values within and just beyond Weka's 1e-5 cut rule
    X[:, -1] = X[:, 0]  # a duplicated column
    if p > 3:
        X[:, 1] = 2.5  # a constant column
    if missing:
        X[rng.random((n, p)) < missing] = np.nan
    return X, y


@pytest.mark.parametrize(
    "n,p,c,missing,ties,seed",
    [
        (200, 6, 2, 0.0, False, 0),
        (300, 5, 3, 0.0, True, 1),
        (150, 8, 5, 0.05, True, 2),
        (400, 4, 12, 0.0, True, 3),  # 2 x 12 counts per cut: numpy's pairwise order of sums
        (60, 3, 2, 0.1, False, 4),
        (25, 4, 4, 0.0, True, 5),
    ],
)
def test_compiled_cuts_equal_one_by_one(n, p, c, missing, ties, seed):
    rng = np.random.default_rng(seed)
    X, y = _data(rng, n, p, c, missing, ties)
    _Checked.nodes = 0
    for options in ({}, {"min_leaf": 1}, {"min_leaf": 5, "unpruned": True}):
        _Checked(nominal=np.zeros(p, dtype=bool), n_classes=c, **options).fit(X, y)
    assert _Checked.nodes > 0


def test_mixed_data_predictions_unchanged():
    """Nominal and numeric attributes together: the tree with the compiled path predicts as without it."""
    rng = np.random.default_rng(11)
    n = 250
    y = rng.integers(0, 3, n)
    X = np.c_[rng.normal(size=(n, 3)) + y[:, None] * 0.7, rng.integers(0, 4, (n, 2))].astype(float)
    X[rng.random(X.shape) < 0.03] = np.nan
    nominal = np.array([False] * 3 + [True] * 2)
    kw = dict(nominal=nominal, n_categories=[0, 0, 0, 4, 4], n_classes=3)

    class OneByOne(J48):
        _compiled_select = False

        def _numeric_candidates(self, idx, w, total):
            return None

    a = J48(**kw).fit(X[:200], y[:200]).predict_proba(X[200:])
    b = OneByOne(**kw).fit(X[:200], y[:200]).predict_proba(X[200:])
    np.testing.assert_array_equal(a, b)
