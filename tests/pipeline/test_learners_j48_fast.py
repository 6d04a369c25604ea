"""The per-fold shortcuts of J48, NaiveBayes, IB1, TAN, DecisionStump and SMO give the per-fold fits' predictions.

``fold_predictions`` fits one model per fold in compiled code (J48, NaiveBayes),
in a few array operations (TAN, the stump) or with the filters shared (SMO);
the studies use it on all-nominal data.  These
tests compare it, prediction by prediction, with fitting the Python classes fold
by fold, on Bouckaert's sources and on random nominal data with more categories
and classes, where trees are deep and subtree raising happens often.
"""

import numpy as np
import pytest

from simstudy.pipeline.learners.j48 import J48
from simstudy.pipeline.learners.smo import SMO
from simstudy.pipeline.learners.tan import TAN
from simstudy.pipeline.learners.weka import IB1, DecisionStump, WekaNaiveBayes
from simstudy.pipeline.scores import cv_accuracies
from simstudy.pipeline.sources.bayesnet import load_source, random_augmented_nb
from simstudy.pipeline.splits import folds, repeated_fold_ids


def per_fold(make, X, y, fold_ids):
    out = np.full(fold_ids.shape, -1, dtype=np.int64)
    for r, ids in enumerate(fold_ids):
        for train, test in folds(ids):
            out[r, test] = make().fit(X[train], y[train]).predict(X[test])
    return out


def random_nominal(rng, n, p, k, c):
    """Class-dependent nominal data: every attribute's category drifts with the class."""
    y = rng.integers(0, c, n)
    X = (rng.integers(0, k, (n, p)) + (rng.random((n, p)) < 0.3) * y[:, None]) % k
    return X.astype(float), y


@pytest.mark.parametrize("source", ["bouckaert1", "bouckaert2", "bouckaert3", "bouckaert4"])
def test_same_predictions_on_the_sources(source):
    rng = np.random.default_rng(7)
    X, y = load_source(source).sample(300, rng)
    X = X.astype(float)
    ids = repeated_fold_ids(y, 3, 10, rng)
    nominal = np.ones(X.shape[1], dtype=bool)
    for cls in (J48, WekaNaiveBayes, IB1, TAN, DecisionStump, SMO):
        fast = cls(nominal=nominal).fold_predictions(X, y, ids)
        np.testing.assert_array_equal(fast, per_fold(lambda: cls(nominal=nominal), X, y, ids))


@pytest.mark.parametrize("k,c,seed", [(2, 3, 0), (3, 2, 1), (4, 4, 2), (3, 3, 3), (2, 2, 4)])
def test_same_predictions_on_random_nominal_data(k, c, seed):
    rng = np.random.default_rng(seed)
    X, y = random_nominal(rng, 200, 8, k, c)
    ids = repeated_fold_ids(y, 2, 10, rng)
    nominal = np.ones(X.shape[1], dtype=bool)
    for kwargs in ({}, {"subtree_raising": False}, {"unpruned": True}, {"confidence": 0.1, "min_leaf": 3}):
        fast = J48(nominal=nominal, **kwargs).fold_predictions(X, y, ids)
        np.testing.assert_array_equal(fast, per_fold(lambda: J48(nominal=nominal, **kwargs), X, y, ids))
    for cls in (WekaNaiveBayes, IB1, TAN, DecisionStump, SMO):
        fast = cls(nominal=nominal).fold_predictions(X, y, ids)
        np.testing.assert_array_equal(fast, per_fold(lambda: cls(nominal=nominal), X, y, ids))


@pytest.mark.parametrize("n", [23, 64, 128, 131])
def test_j48_bit_sets_at_word_boundaries(n):
    """The compiled J48 keeps its sets of cases 64 to a machine word: sizes below, at and past a word's end."""
    rng = np.random.default_rng(n)
    X, y = random_nominal(rng, n, 5, 3, 3)
    ids = repeated_fold_ids(y, 3, 5, rng)
    nominal = np.ones(X.shape[1], dtype=bool)
    for kwargs in ({}, {"min_leaf": 1}, {"subtree_raising": False}):
        fast = J48(nominal=nominal, **kwargs).fold_predictions(X, y, ids)
        np.testing.assert_array_equal(fast, per_fold(lambda: J48(nominal=nominal, **kwargs), X, y, ids))


def test_naive_bayes_with_products_below_the_floor():
    """Many attributes drive every class's product under 1e-75, where Weka rescales by 1e75."""
    rng = np.random.default_rng(12)
    X, y = random_nominal(rng, 150, 160, 4, 3)
    ids = repeated_fold_ids(y, 2, 10, rng)
    nominal = np.ones(X.shape[1], dtype=bool)
    fast = WekaNaiveBayes(nominal=nominal).fold_predictions(X, y, ids)
    np.testing.assert_array_equal(fast, per_fold(lambda: WekaNaiveBayes(nominal=nominal), X, y, ids))


def test_multiclass_source_and_held_out_only_cases():
    rng = np.random.default_rng(11)
    src = random_augmented_nb(10, 8, rng, n_classes=4)
    X, y = src.sample(240, rng)
    X = X.astype(float)
    nominal = np.ones(X.shape[1], dtype=bool)
    # a resampling split: -1 marks cases that are always training
    ids = np.full((3, y.size), -1)
    for r in range(3):
        ids[r, rng.choice(y.size, 80, replace=False)] = 0
    for cls in (J48, WekaNaiveBayes, IB1, TAN, DecisionStump, SMO):
        fast = cls(nominal=nominal).fold_predictions(X, y, ids)
        assert (fast[ids < 0] == -1).all()
        np.testing.assert_array_equal(fast, per_fold(lambda: cls(nominal=nominal), X, y, ids))


def test_not_applicable_returns_none():
    rng = np.random.default_rng(3)
    X, y = random_nominal(rng, 60, 3, 2, 2)
    ids = repeated_fold_ids(y, 1, 5, rng)
    assert J48(nominal=[True, True, False]).fold_predictions(X, y, ids) is None
    Xm = X.copy()
    Xm[0, 0] = np.nan
    assert J48(nominal=[True] * 3).fold_predictions(Xm, y, ids) is None
    assert WekaNaiveBayes(nominal=[True] * 3).fold_predictions(Xm, y, ids) is None
    assert TAN(nominal=[True] * 3).fold_predictions(Xm, y, ids) is None
    assert TAN(nominal=[True, True, False]).fold_predictions(X, y, ids) is None
    assert DecisionStump(nominal=[True] * 3).fold_predictions(Xm, y, ids) is None
    assert DecisionStump(nominal=[True, True, False]).fold_predictions(X, y, ids) is None
    assert SMO(nominal=[True] * 3).fold_predictions(Xm, y, ids) is None
    assert SMO(nominal=[True] * 3, backend="libsvm").fold_predictions(X, y, ids) is None
    with pytest.raises(ValueError, match="^C"):
        SMO(nominal=[True] * 3, C=0).fold_predictions(X, y, ids)
    assert J48(nominal=[True] * 3, min_leaf=0).fold_predictions(X, y, ids) is None
    with pytest.raises(ValueError, match="fold_ids"):
        J48(nominal=[True] * 3).fold_predictions(X, y, ids[:, :10])


def test_cv_accuracies_same_with_and_without_the_compiled_path():
    rng = np.random.default_rng(5)
    X, y = load_source("bouckaert3").sample(300, rng)
    X = X.astype(float)
    ids = repeated_fold_ids(y, 2, 10, rng)
    nominal = np.ones(X.shape[1], dtype=bool)

    class Plain(J48):  # the same learner without its per-fold shortcut
        fold_predictions = None

    class PlainNB(WekaNaiveBayes):
        fold_predictions = None

    class PlainIB1(IB1):
        fold_predictions = None

    fast = cv_accuracies(
        X, y, ids, [lambda: J48(nominal=nominal), lambda: WekaNaiveBayes(nominal=nominal), lambda: IB1(nominal=nominal)]
    )
    slow = cv_accuracies(
        X, y, ids, [lambda: Plain(nominal=nominal), lambda: PlainNB(nominal=nominal), lambda: PlainIB1(nominal=nominal)]
    )
    np.testing.assert_array_equal(fast, slow)


def test_resample_accuracies_equal_split_by_split_and_refuse_partial_splits():
    from simstudy.pipeline.scores import resample_accuracies, split_accuracies

    rng = np.random.default_rng(8)
    X, y = load_source("bouckaert2").sample(120, rng)
    X = X.astype(float)
    nominal = np.ones(X.shape[1], dtype=bool)
    learners = [lambda: J48(nominal=nominal), lambda: WekaNaiveBayes(nominal=nominal)]
    splits = []
    for _ in range(4):
        test = np.sort(rng.choice(y.size, 12, replace=False))
        splits.append((np.setdiff1d(np.arange(y.size), test), test))
    expected = np.array([split_accuracies(X, y, tr, te, learners) for tr, te in splits])
    np.testing.assert_array_equal(resample_accuracies(X, y, splits, learners), expected)
    with pytest.raises(ValueError, match="splits"):
        resample_accuracies(X, y, [(splits[0][0][:-5], splits[0][1])], learners)


def test_tan_shortcut_bitwise_and_where_a_fit_would_see_less():
    """Each part's tree and tables equal a fit's to the bit; parts lacking a class or category are refused."""
    from simstudy.pipeline.learners.tan import _tan_models

    rng = np.random.default_rng(12)
    for p, k, c in [(1, 3, 2), (2, 2, 3), (6, 4, 4), (9, 2, 2)]:
        X, y = random_nominal(rng, 90, p, k, c)
        nominal = np.ones(p, dtype=bool)
        ids = repeated_fold_ids(y, 2, 6, rng)
        np.testing.assert_array_equal(
            TAN(nominal=nominal).fold_predictions(X, y, ids), per_fold(lambda: TAN(nominal=nominal), X, y, ids)
        )
        # one part through the batched path equals the fitted attributes exactly
        m = TAN(nominal=nominal).fit(X, y)
        oh = np.eye(k)[X.astype(int)].reshape(y.size, p * k)
        ym = np.eye(c)[y]
        joint = ((ym[:, :, None] * oh[:, None, :]).reshape(y.size, -1).T @ oh).reshape(1, c, p, k, p, k)
        base = (ym.T @ oh).reshape(1, c, p, k).transpose(0, 2, 1, 3)
        links, parent, tables, prior = _tan_models(
            joint, base, ym.sum(axis=0)[None], np.array([y.size]), m.n_categories_, 0.5
        )
        assert [tuple(map(int, t)) for t in links[0]] == m.links_
        assert parent[0].tolist() == m.parent_.tolist()
        assert np.array_equal(tables[0], m.log_tables_) and np.array_equal(prior[0], m.class_log_prior_)
    X, y = random_nominal(rng, 60, 3, 3, 3)
    ids = repeated_fold_ids(y, 1, 5, rng)
    only = np.flatnonzero(ids[0] == 0)[:2]
    y2 = np.where(np.isin(np.arange(y.size), only), 3, y)  # class 3 only in fold 0: its fit sees 3 classes
    assert TAN(nominal=[True] * 3).fold_predictions(X, y2, ids) is None
    assert TAN(nominal=[True] * 3, n_classes=4).fold_predictions(X, y2, ids) is not None
    X2 = X.copy()
    X2[only, 1] = 3.0  # category 3 only in fold 0
    assert TAN(nominal=[True] * 3).fold_predictions(X2, y, ids) is None
    one = np.zeros_like(ids)
    assert TAN(nominal=[True] * 3).fold_predictions(X, y, one) is None  # a part with no training cases
    for learner in (DecisionStump(nominal=[True] * 3), DecisionStump(nominal=[True] * 3, n_classes=4)):
        assert learner.fold_predictions(X, y, one) is None
    assert DecisionStump(nominal=[True] * 3).fold_predictions(X, y2, ids) is None
    assert DecisionStump(nominal=[True] * 3).fold_predictions(X2, y, ids) is None
    assert SMO(nominal=[True] * 3).fold_predictions(X2, y, ids) is None


def test_stump_shortcut_with_tied_attributes_and_one_category_columns():
    """Duplicated columns tie exactly: the first attribute and first value win, as in a fit."""
    rng = np.random.default_rng(21)
    for trial in range(40):
        n, p, c = int(rng.integers(12, 90)), int(rng.integers(1, 7)), int(rng.integers(2, 5))
        k = rng.integers(1, 5, p)
        X, y = random_nominal(rng, n, p, 5, c)
        X = X % k
        if trial % 3 == 0:
            X = np.repeat(X[:, :1], p, axis=1)
        ids = repeated_fold_ids(y, 2, 3, rng)
        fast = DecisionStump(nominal=np.ones(p, dtype=bool)).fold_predictions(X, y, ids)
        if fast is not None:
            np.testing.assert_array_equal(
                fast, per_fold(lambda: DecisionStump(nominal=np.ones(p, dtype=bool)), X, y, ids)
            )


def test_naive_bayes_shortcut_declines_where_a_part_lacks_the_last_class():
    """A class held out entirely would change a fold's fit (fewer classes, another prior): fit fold by fold."""
    rng = np.random.default_rng(4)
    X, y = random_nominal(rng, 40, 3, 2, 2)
    ids = repeated_fold_ids(y, 1, 5, rng)
    y = y.copy()
    y[np.flatnonzero(ids[0] == 0)[:3]] = 2
    assert WekaNaiveBayes(nominal=[True] * 3).fold_predictions(X, y, ids) is None
    fast = WekaNaiveBayes(nominal=[True] * 3, n_classes=3).fold_predictions(X, y, ids)
    np.testing.assert_array_equal(fast, per_fold(lambda: WekaNaiveBayes(nominal=[True] * 3, n_classes=3), X, y, ids))
