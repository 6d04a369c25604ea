import os
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simstudy.pipeline.learners.j48 import J48, add_errs

# weather.nominal (Weka examples) in ARFF coding: outlook {sunny, overcast, rainy},
# temperature {hot, mild, cool}, humidity {high, normal}, windy {TRUE, FALSE} -> play {yes, no}
WEATHER = np.array(
    [
        [0, 0, 0, 1, 1],
        [0, 0, 0, 0, 1],
        [1, 0, 0, 1, 0],
        [2, 1, 0, 1, 0],
        [2, 2, 1, 1, 0],
        [2, 2, 1, 0, 1],
        [1, 2, 1, 0, 0],
        [0, 1, 0, 1, 1],
        [0, 2, 1, 1, 0],
        [2, 1, 1, 1, 0],
        [0, 1, 1, 0, 0],
        [1, 1, 0, 0, 0],
        [1, 0, 1, 1, 0],
        [2, 1, 0, 0, 1],
    ],
    dtype=float,
)


def _leaves(node, path=()):
    """(path of (attribute, branch), total weight, class weights) for every leaf."""
    if node.is_leaf:
        return [(path, node.dist.sum(), node.dist.sum(axis=0))]
    out = []
    for b, s in enumerate(node.sons):
        out += _leaves(s, path + ((node.split.attribute, b),))
    return out


def test_add_errs_against_weka_and_quinlan():
    # e = 0: N (1 - CF^(1/N)); Quinlan (1993, Sec. 4.2) tabulates U25%(0, 6) = 0.206, U25%(0, 9) = 0.143
    assert add_errs(6, 0) / 6 == pytest.approx(0.206, abs=5e-4)
    assert add_errs(9, 0) / 9 == pytest.approx(0.143, abs=5e-4)
    # Weka 3.6.14 weka.classifiers.trees.j48.Stats.addErrs(N, e, 0.25f) and (..., 0.1f), printed by java
    for n, e, w25, w10 in [
        (16, 1, 1.4757146318372634, 2.651359064163457),
        (20, 10, 1.9783944149792774, 3.213631410744288),
        (2.5, 0.5, 1.00386782945661, 1.3415689251996739),
        (100, 0.3, 1.4336969652751193, 2.498248356666709),
        (1, 0, 0.75, 0.8999999985098839),
        (3, 2.6, 0.4, 0.4),
    ]:
        assert add_errs(n, e) == pytest.approx(w25, rel=1e-13)
        assert add_errs(n, e, 0.1) == pytest.approx(w10, rel=1e-13)
    assert add_errs(10, 3, 0.6) == 0.0


def test_weather_tree_as_weka():
    # Weka 3.6: J48 -t weather.nominal.arff gives outlook = sunny -> humidity (high: no 3, normal: yes 2),
    # overcast: yes (4), rainy -> windy (TRUE: no 2, FALSE: yes 3); 5 leaves, size 8
    X, y = WEATHER[:, :4], WEATHER[:, 4]
    m = J48(nominal=[True] * 4).fit(X, y)
    assert (m.n_leaves(), m.tree_size()) == (5, 8)
    got = {path: (tot, int(np.argmax(pc))) for path, tot, pc in _leaves(m.tree_)}
    assert got == {
        ((0, 0), (2, 0)): (3, 1),
        ((0, 0), (2, 1)): (2, 0),
        ((0, 1),): (4, 0),
        ((0, 2), (3, 0)): (2, 1),
        ((0, 2), (3, 1)): (3, 0),
    }
    assert m.predict(X).tolist() == y.tolist()


def test_pure_split():
    X = np.array([[0, 1], [0, 0], [0, 1], [0, 0], [1, 1], [1, 0], [1, 1], [1, 0]], dtype=float)
    y = X[:, 0].copy()
    m = J48(nominal=[True, True]).fit(X, y)
    assert not m.tree_.is_leaf and m.tree_.split.attribute == 0 and m.n_leaves() == 2
    np.testing.assert_array_equal(m.predict_proba(X), np.eye(2)[y.astype(int)])


def _two_bags(a, b):
    """a0 = 0: a of class 0 and b of class 1; a0 = 1: the reverse."""
    x = np.r_[np.zeros(a + b), np.ones(a + b)][:, None]
    y = np.r_[np.zeros(a), np.ones(b), np.zeros(b), np.ones(a)]
    return x, y


def test_pruning_of_a_noisy_split():
    # 8/7 against 7/8: as a leaf 15 + add_errs(30, 15) = 17.32, as a subtree
    # 2 * (7 + add_errs(15, 7)) = 17.57, so the leaf wins (Weka prunes when leaf <= subtree + 0.1)
    x, y = _two_bags(8, 7)
    assert 15 + add_errs(30, 15) <= 2 * (7 + add_errs(15, 7)) + 0.1
    assert J48(nominal=[True], unpruned=True).fit(x, y).n_leaves() == 2
    pruned = J48(nominal=[True]).fit(x, y)
    assert pruned.n_leaves() == 1
    # a 15/15 leaf: the first class wins the tie
    assert pruned.predict(x).tolist() == [0] * 30
    # 6/4 against 4/6: 11.98 as a leaf, 11.12 as a subtree, the split stays
    x, y = _two_bags(6, 4)
    assert J48(nominal=[True]).fit(x, y).n_leaves() == 2


def test_average_gain_condition():
    # class 10/10.  a0: value 1 on two class-1 rows, 0 on (10, 8): gain 0.108, gain ratio 0.230.
    # a1: (7, 3) against (3, 7): gain 0.119, gain ratio 0.119.  a0 has the higher ratio but a gain
    # below the average (0.113) - 1e-3, so a1 is chosen.
    y = np.r_[np.zeros(10), np.ones(10)]
    a0 = np.r_[np.zeros(18), np.ones(2)]
    a1 = np.r_[np.zeros(7), np.ones(3), np.zeros(3), np.ones(7)]
    m = J48(nominal=[True, True], unpruned=True).fit(np.c_[a0, a1], y)
    assert m.tree_.split.attribute == 1
    # alone, a0 is split on
    assert J48(nominal=[True], unpruned=True).fit(a0[:, None], y).tree_.split.attribute == 0


def test_numeric_threshold_is_a_training_value():
    X = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]])
    y = np.array([0, 0, 0, 1, 1, 1])
    m = J48().fit(X, y)
    # cut between 3 and 10: the midpoint 6.5 is replaced by the largest training value below it
    assert m.tree_.split.threshold == 3.0
    assert m.predict([[3.0], [5.0], [6.6], [9.0]]).tolist() == [0, 1, 1, 1]


def test_numeric_mdl_correction_removes_a_weak_split():
    # 20 distinct values, class alternating except one pair: the best cut's gain is smaller than
    # log2(number of candidate cuts) / n, so the root stays a leaf even unpruned
    X = np.arange(20.0)[:, None]
    y = np.array([0, 1] * 10)
    assert J48(unpruned=True).fit(X, y).n_leaves() == 1


def test_missing_values_fractional():
    # a0 missing on one class-0 row: it goes down both branches with weight 4/8 each
    X = np.array([[0], [0], [0], [0], [1], [1], [1], [1], [np.nan]])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1, 0])
    m = J48(nominal=[True]).fit(X, y)
    leaves = {path: pc for path, _, pc in _leaves(m.tree_)}
    np.testing.assert_allclose(leaves[((0, 0),)], [4.5, 0.0])
    np.testing.assert_allclose(leaves[((0, 1),)], [0.5, 4.0])
    np.testing.assert_allclose(m.predict_proba([[1.0]])[0], [1 / 9, 8 / 9])
    # a missing test value: the leaves' distributions mixed with the branch weights 1/2, 1/2
    np.testing.assert_allclose(m.predict_proba([[np.nan]])[0], [0.5 + 0.5 / 9, 0.5 * 8 / 9])


def test_empty_branch_answers_with_parent_distribution():
    X = np.array([[0], [0], [0], [1], [1], [1], [1]], dtype=float)
    y = np.array([0, 0, 0, 1, 1, 1, 1])
    m = J48(nominal=[True], n_categories=[3]).fit(X, y)
    assert m.tree_.sons[2].is_empty
    np.testing.assert_allclose(m.predict_proba([[2.0]])[0], [3 / 7, 4 / 7])


def test_leaf_when_too_few_or_pure():
    X = np.array([[0.0], [1.0], [2.0]])
    assert J48().fit(X, np.array([0, 1, 1])).n_leaves() == 1  # weight 3 < 2 * min_leaf
    assert J48(min_leaf=1).fit(X, np.array([0, 1, 1])).n_leaves() == 2
    assert J48().fit(np.ones((5, 2)), np.zeros(5)).predict(np.ones((2, 2))).tolist() == [0, 0]


def test_scikit_learn_compatibility():
    pytest.importorskip("sklearn")
    import sklearn.base
    from sklearn.base import clone
    from sklearn.model_selection import KFold, cross_val_score

    m = J48(confidence=0.1, min_leaf=3, subtree_raising=False, nominal=[True] * 4)
    params = m.get_params()
    assert params["confidence"] == 0.1 and params["min_leaf"] == 3 and params["subtree_raising"] is False
    c = clone(m)
    assert c.get_params() == params and c is not m
    assert m.set_params(unpruned=True).unpruned is True
    X, y = WEATHER[:, :4], WEATHER[:, 4]
    scores = cross_val_score(
        J48(nominal=[True] * 4, n_categories=[3, 3, 2, 2], n_classes=2), X, y, cv=KFold(7), scoring="accuracy"
    )
    assert scores.shape == (7,) and np.all((scores >= 0) & (scores <= 1))
    fitted = J48(nominal=[True] * 4).fit(X, y)
    assert fitted.score(X, y) == 1.0 and sklearn.base.is_classifier(fitted)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_probabilities_and_determinism(seed):
    rng = np.random.default_rng(seed)
    n = 40
    X = np.c_[rng.integers(0, 3, size=(n, 2)), np.round(rng.normal(size=(n, 2)), 1)]
    X[rng.random(X.shape) < 0.15] = np.nan
    y = rng.integers(0, 3, size=n)
    kw = dict(nominal=[True, True, False, False], n_categories=[3, 3, 0, 0], n_classes=3)
    a = J48(**kw).fit(X, y)
    b = J48(**kw).fit(X.copy(), y.copy())
    pa = a.predict_proba(X)
    np.testing.assert_array_equal(pa, b.predict_proba(X))
    np.testing.assert_allclose(pa.sum(axis=1), 1.0)
    assert np.array_equal(a.predict(X), np.argmax(pa, axis=1)) or np.allclose(
        pa[np.arange(n), a.predict(X)], pa.max(axis=1), atol=1e-6
    )


def test_vectorised_nominal_candidates_match_the_one_attribute_rule():
    # all nominal attributes are scored at once per node; each must equal the scalar computation
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(80, 5)).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    y = rng.integers(0, 3, size=80)
    m = J48(nominal=[True] * 5, n_categories=[4, 4, 5, 4, 4])
    m._prepare(X, y)
    m._X, m._y, m._min = X, y, 2.0
    m._nominal_design()
    for _ in range(10):
        idx = np.sort(rng.choice(80, 40, replace=False))
        w = rng.random(40) + 0.1
        vec = m._nominal_candidates(idx, w, w.sum())
        for j in range(5):
            one = m._candidate(j, idx, w, w.sum())
            assert (one is None) == (j not in vec)
            if one is not None:
                np.testing.assert_allclose(vec[j][:2], one[:2], rtol=1e-12)
                np.testing.assert_allclose(vec[j][2], one[2], rtol=1e-12)


def test_invalid_input():
    with pytest.raises(ValueError, match="^confidence"):
        J48(confidence=0.0).fit(np.zeros((4, 1)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="^min_leaf"):
        J48(min_leaf=-1).fit(np.zeros((4, 1)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="^X"):
        J48().fit(np.zeros(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="^X"):
        J48().fit(np.zeros((4, 2)), [0, 1, 0, 1]).predict(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="^X: nominal column 0"):
        J48(nominal=[True]).fit(np.array([[0.0], [1.0]]), [0, 1]).predict([[2.0]])


HAVE_WEKA = shutil.which("java") is not None and os.path.exists("/usr/share/java/weka.jar")


@pytest.mark.needs_weka
@pytest.mark.skipif(not HAVE_WEKA, reason="java or /usr/share/java/weka.jar missing")
@pytest.mark.parametrize("name", ["vote", "iris", "mixed"])
def test_cross_check_against_weka(name):
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "weka"))
    import j48_crosscheck

    if name != "mixed" and not os.path.exists(os.path.join(j48_crosscheck.EXAMPLES, name + ".arff")):
        pytest.skip("weka examples not installed")
    rows = j48_crosscheck.crosscheck_j48(j48_crosscheck.load(name), n_folds=3)
    assert sum(r[3] for r in rows) == 0
    assert max(r[5] for r in rows) <= 5e-4 + 1e-9  # Weka prints 3 decimals


@pytest.mark.needs_weka
@pytest.mark.skipif(not HAVE_WEKA, reason="java or /usr/share/java/weka.jar missing")
def test_small_random_data_sets_against_weka():
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "weka"))
    import j48_crosscheck

    assert j48_crosscheck.random_check(range(6)) == []
    assert j48_crosscheck.random_check(range(6, 10), "unpruned") == []


def test_j48_and_its_kernel_do_not_import_each_other_for_shared_helpers():
    import ast
    import pathlib

    import simstudy.pipeline.learners._j48_nominal as kernel

    tree = ast.parse(pathlib.Path(kernel.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "simstudy.pipeline.learners.j48" not in imported and "simstudy.pipeline.learners._c45" in imported
    from simstudy.pipeline.learners import _c45

    assert add_errs is _c45.add_errs
    np.testing.assert_array_equal(kernel.log_table(5), _c45.xlog2x(np.arange(6.0)))
