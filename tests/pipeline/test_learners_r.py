"""Tests of the learners with R's defaults (simstudy.pipeline.learners.rdefaults).

Layers: reference values from R (e1071 1.7-13, R call pasted next to the
numbers), invariants (shapes, determinism, scaling on training data only,
degenerate inputs), a property test, and a cross-check against Rscript on
Berrar's data sets (``needs_r``; skipped without R, e1071 and randomForest).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from simstudy.pipeline.learners import E1071SVC, E1071NaiveBayes, RandomForestR, naive_bayes_predict_batch
from simstudy.pipeline.sources import berrar_cv_source

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "r"))
import rbridge  # noqa: E402

_HAVE_R = rbridge.r_available()
needs_r = pytest.mark.skipif(not _HAVE_R, reason="Rscript with e1071 and randomForest not available")


def _data(n=200, d=5, seed=0):
    return berrar_cv_source(d).sample(n, seed)


# --------------------------------------------------------------------- reference values


def test_naive_bayes_matches_e1071_with_constant_class_feature():
    # library(e1071); x <- data.frame(a=c(1,2,3,4,5,6), b=c(1,1,1,2,2,3)); y <- factor(c(0,0,0,1,1,1))
    # m <- naiveBayes(x, y); xt <- data.frame(a=c(3.5,2,5), b=c(1,1.5,2))
    # predict(m, xt, type="raw"); predict(m, xt)   -> 0 1 1
    # (b is constant in class 0: sd 0 is replaced by threshold 0.001)
    X = np.array([[1, 1], [2, 1], [3, 1], [4, 2], [5, 2], [6, 3]], dtype=float)
    y = np.array([0, 0, 0, 1, 1, 1])
    Xt = np.array([[3.5, 1], [2, 1.5], [5, 2]])
    nb = E1071NaiveBayes().fit(X, y)
    expected = np.array(
        [
            [9.9987966561430386e-01, 0.00012033438569604974],
            [2.6963874037844615e-01, 0.73036125962155395985],
            [1.8992332441523349e-05, 0.99998100766755848579],
        ]
    )
    np.testing.assert_allclose(nb.predict_proba(Xt), expected, rtol=1e-12)
    np.testing.assert_array_equal(nb.predict(Xt), [0, 1, 1])


def test_svm_exact_tie_falls_as_in_e1071():
    # library(e1071); x <- data.frame(x0=c(-1,-1,-1,1,1,1,1), x1=c(-1,-1,1,-1,-1,-1,1)); y <- factor(c(0,0,0,1,1,1,1))
    # m <- svm(x, y); g <- expand.grid(x1=seq(-2, 2, by=0.5), x0=c(0, -0.25, 0.25))[, c("x0", "x1")]
    # p <- predict(m, g, decision.values=TRUE)   (decision values oriented "0/1": > 0 votes for 0)
    # At (0, -1) the value is exactly 0 in exact arithmetic; libsvm's sum inside R gives -5.55e-17 -> class 1.
    X = np.array([[-1, -1], [-1, -1], [-1, 1], [1, -1], [1, -1], [1, -1], [1, 1]], dtype=float)
    y = np.array([0, 0, 0, 1, 1, 1, 1])
    G = np.array([[a, b] for a in (0, -0.25, 0.25) for b in np.arange(-2, 2.01, 0.5)])
    r_pred = [0, 0, 1, 0, 0, 0, 0, 0, 1] + [0] * 9 + [1] * 9
    r_dec = [4.4235448637408581e-17, 1.6306400674181987e-16, -5.5511151231257827e-17, 1.9428902930940239e-16]
    r_dec += [1.1102230246251565e-16, 2.2204460492503131e-16, 1.1102230246251565e-16, 1.1102230246251565e-16, 0.0]
    m = E1071SVC().fit(X, y)
    np.testing.assert_array_equal(m.predict(G), r_pred)
    np.testing.assert_array_equal(m.predict(np.array([[0.0, -1.0]])), [1])
    # libsvm's first class is 0 here, so e1071's "0/1" value is the negated decision_function
    np.testing.assert_array_equal(-m.decision_function(G[:9]), r_dec)  # to the bit


def test_svm_exact_ties_in_three_features_fall_as_in_e1071():
    # Mirror-symmetric problem (benchmarks/r/svm_ties.py, seed 37, problem 61), test cases on the
    # mirror line x0 = 0; R: m <- svm(x, factor(y)); predict(m, xt, decision.values=TRUE)
    X = np.array(
        [[-1, -2, -2], [-1, 1, 0], [-1, 1, 0], [1, -2, -2], [-1, -2, -2], [1, 2, -1]]
        + [[-1, 2, -1], [1, 1, 0], [1, -2, -2], [-1, -2, -2], [-1, 1, 0]],
        dtype=float,
    )
    y = np.array([0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0])
    Xt = np.array(
        [[0, 1.5, 2], [0, -1.5, 0], [0, -1.5, -1], [0, 2, -1], [0, 0, 1], [0, 1.5, 1.5]]
        + [[0, -1, -1.5], [0, 2, 0], [0, 0.5, 1], [0, 0, 0.5], [0, 0.5, 0.5], [0, 0, 1]]
    )
    r_pred = [0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1]
    r_dec = [9.2157184661267877e-18, 5.5511151231257827e-17, -2.7755575615628914e-16, -2.2204460492503131e-16]
    r_dec += [-1.1449174941446927e-16, -2.688821387764051e-17, -2.2204460492503131e-16, 3.1225022567582528e-17]
    r_dec += [-4.5102810375396984e-17, -6.9388939039072284e-17, -1.0408340855860843e-16, -1.1449174941446927e-16]
    m = E1071SVC().fit(X, y)
    np.testing.assert_array_equal(m.predict(Xt), r_pred)
    np.testing.assert_array_equal(-m.decision_function(Xt), r_dec)


def test_svm_exact_ties_with_three_classes_fall_as_in_e1071():
    # benchmarks/r/svm_ties.py --classes 3 --problems 200, problem 86 (class 2 on the mirror line x0 = 0);
    # R: m <- svm(x, factor(y)); predict(m, xt): the 0-against-1 value is 0 in exact arithmetic on x0 = 0
    X = np.array(
        [[-2, -2], [-2, 2], [2, 0], [2, 2], [2, 1], [2, -2], [0, 0], [2, 1], [-2, 2], [-2, 0], [-2, 1], [-2, -2]],
        dtype=float,
    )
    y = np.array([0, 0, 1, 1, 1, 1, 2, 1, 0, 0, 0, 0])
    Xt = np.column_stack([np.zeros(12), [2, -1.5, 0.5, -1, 1, 2, 1, 2, -2, 1.5, 0, -2]])
    r_pred = [0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0]
    np.testing.assert_array_equal(E1071SVC().fit(X, y).predict(Xt), r_pred)


# --------------------------------------------------------------------- invariants


@pytest.mark.parametrize("est", [E1071NaiveBayes(), E1071SVC(), RandomForestR(n_estimators=20, random_state=1)])
def test_shapes_clone_and_score(est):
    X, y = _data()
    fitted = clone(est).fit(X[:150], y[:150])
    pred = fitted.predict(X[150:])
    assert pred.shape == (50,)
    assert set(np.unique(pred)) <= {0, 1}
    assert 0.0 <= fitted.score(X[150:], y[150:]) <= 1.0
    assert clone(est).get_params() == est.get_params()


def test_forest_is_deterministic_given_random_state():
    X, y = _data()
    a = RandomForestR(n_estimators=30, random_state=7).fit(X[:150], y[:150]).predict(X[150:])
    b = RandomForestR(n_estimators=30, random_state=7).fit(X[:150], y[:150]).predict(X[150:])
    c = RandomForestR(n_estimators=30, random_state=7, n_jobs=2).fit(X[:150], y[:150]).predict(X[150:])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


def test_forest_votes_sum_to_number_of_trees():
    X, y = _data()
    rf = RandomForestR(n_estimators=25, random_state=0).fit(X[:150], y[:150])
    votes = rf.vote_counts(X[150:])
    assert (votes.sum(axis=1) == 25).all()
    np.testing.assert_array_equal(rf.forest_.max_features, int(np.floor(np.sqrt(5))))


def test_forest_on_tiny_imbalanced_sets_matches_r_accuracy():
    # benchmarks/r/rf_tiny.py --sets 5 --ntree 50 --seeds 300: five training sets of 8 rows with classes
    # 7:1, 200 test rows each; R's randomForest(x, y, ntree = 50) with set.seed(1..300): the accuracy of
    # one run (mean over the 5 sets) has mean 0.5964 and sd 0.0115 over the seeds, range [0.567, 0.628].
    # R redraws one-class bootstrap samples and regrows root-only trees; keeping them gave 0.5290 (range
    # [0.513, 0.558] over 10 random states), so this interval alone does not always tell the two apart: the
    # trees are checked too, and the slow test below compares on 10 sets of 100 trees.
    import rf_tiny

    r_mean, r_sd = 0.5964, 0.0115
    sets = rf_tiny.tiny_sets(5)
    fits = [RandomForestR(n_estimators=50, random_state=11).fit(X, y) for X, y, _, _ in sets]
    acc = np.mean([np.mean(m.predict(Xt) == yt) for m, (_, _, Xt, yt) in zip(fits, sets)])
    assert r_mean - 4 * r_sd <= acc <= r_mean + 4 * r_sd
    assert all(m.n_regrown_ > 0 for m in fits)
    assert all(t.tree_.node_count > 1 for m in fits for t in m.forest_.estimators_)


@pytest.mark.slow
def test_forest_on_tiny_imbalanced_sets_matches_r_accuracy_closely():
    # benchmarks/r/rf_tiny.py (--sets 10 --ntree 100 --seeds 200): R's one-run accuracy has mean 0.5996
    # and sd 0.0080 over the seeds, range [0.583, 0.624]; ours 0.5989 (sd 0.0107) over 20 random states.
    # Keeping the root-only trees gave 0.5274, range [0.519, 0.541] over 20 random states: outside.
    import rf_tiny

    r_mean, r_sd = 0.5996, 0.0080
    sets = rf_tiny.tiny_sets(10)
    fits = [RandomForestR(n_estimators=100, random_state=5).fit(X, y) for X, y, _, _ in sets]
    acc = np.mean([np.mean(m.predict(Xt) == yt) for m, (_, _, Xt, yt) in zip(fits, sets)])
    assert r_mean - 4 * r_sd <= acc <= r_mean + 4 * r_sd


def test_forest_regrowth_is_a_function_of_the_random_state():
    X = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, 2.0], [3.0, 1.5], [4.0, 0.0], [5.0, 3.0], [6.0, 1.0], [7.0, 2.5]])
    y = np.array([0, 0, 0, 1, 0, 0, 0, 0])
    a, b = (RandomForestR(n_estimators=40, random_state=3).fit(X, y) for _ in range(2))
    grid = np.column_stack([np.linspace(-1, 8, 50), np.linspace(3, -1, 50)])
    assert a.n_regrown_ == b.n_regrown_ > 0
    np.testing.assert_array_equal(a.vote_counts(grid), b.vote_counts(grid))
    np.testing.assert_array_equal(a.predict(grid), b.predict(grid))


def test_forest_without_root_only_trees_is_scikit_learns_forest():
    from sklearn.ensemble import RandomForestClassifier

    X, y = _data(n=120, d=6, seed=4)
    m = RandomForestR(n_estimators=60, random_state=9).fit(X, y)
    assert m.n_regrown_ == 0
    seed_forest = int(np.random.default_rng(9).integers(0, 2**31 - 1, size=2)[0])
    ref = RandomForestClassifier(
        n_estimators=60, max_features=2, min_samples_split=2, bootstrap=True, random_state=seed_forest
    ).fit(X, y)
    np.testing.assert_array_equal(m.forest_.apply(X), ref.apply(X))


def test_forest_on_inputs_that_cannot_be_split_keeps_the_root_only_trees():
    # R's rf.c would regrow forever; every tree is the root and votes the majority
    X = np.ones((6, 3))
    y = np.array([0, 1, 1, 0, 1, 1])
    m = RandomForestR(n_estimators=10, random_state=0).fit(X, y)
    assert m.n_regrown_ == 0
    np.testing.assert_array_equal(m.predict(X[:2]), [1, 1])


def test_svm_scales_with_training_data_only():
    X, y = _data()
    svm = E1071SVC().fit(X[:150], y[:150])
    np.testing.assert_allclose(svm.center_, X[:150].mean(axis=0))
    np.testing.assert_allclose(svm.scale_, X[:150].std(axis=0, ddof=1))
    assert svm.gamma_ == pytest.approx(1 / 5)
    # Changing the test cases changes nothing learnt from training.
    before = svm.predict(X[150:151])
    svm.predict(X[150:] * 100)
    np.testing.assert_array_equal(svm.predict(X[150:151]), before)


def test_svm_constant_feature_turns_scaling_off_as_e1071():
    X, y = _data()
    X[:, 2] = 4.0
    svm = E1071SVC().fit(X, y)
    assert not svm.scaled_
    np.testing.assert_array_equal(svm.scale_, 1.0)
    assert svm.predict(X).shape == (200,)


@pytest.mark.parametrize("est", [E1071NaiveBayes(), E1071SVC(), RandomForestR(n_estimators=5, random_state=0)])
def test_single_class_training_predicts_that_class(est):
    X, _ = _data(n=20)
    est = clone(est).fit(X, np.full(20, 1))
    np.testing.assert_array_equal(est.predict(X[:4]), [1, 1, 1, 1])


def test_naive_bayes_with_one_training_case_per_class_predicts_nothing_as_e1071():
    # R 4.2.2, e1071 1.7-13:
    # library(e1071); m <- naiveBayes(data.frame(x = c(-1, 1)), factor(c(0, 1)))
    # m$tables$x                                       -> means -1, 1; sds NA, NA
    # predict(m, data.frame(x = c(-2, 0, 2)))          -> factor(0)  Levels: 0 1   (no prediction at all)
    # predict(m, data.frame(x = c(-2, 0, 2)), type = "raw")   -> NA NA in each of the 3 rows
    # m2 <- naiveBayes(data.frame(x = 3), factor(0, levels = c(0, 1))); predict(m2, ...)  -> factor(0)
    r_predictions = []  # R's answer: no class for any of the three cases
    X, y, Xt = np.array([[-1.0], [1.0]]), np.array([0, 1]), np.array([[-2.0], [0.0], [2.0]])
    with pytest.raises(ValueError, match=r"^y: each of the 2 class\(es\) has a single training case.*predicts nothing"):
        E1071NaiveBayes().fit(X, y)
    with pytest.raises(ValueError, match=r"^y: each of the 1 class"):
        E1071NaiveBayes().fit(np.array([[3.0]]), np.array([0]))
    # the batch form has no class to give either: -1 for every case, never the first class
    batch = naive_bayes_predict_batch(X[None], y[None], Xt[None])
    np.testing.assert_array_equal(batch, [[-1, -1, -1]])
    assert [c for c in batch[0] if c >= 0] == r_predictions
    # one class with a single case among others is never picked, as R's which.max skips its NA score:
    # m1 <- naiveBayes(data.frame(x = c(-1, 1, 2)), factor(c(0, 1, 1))); predict(m1, data.frame(x = c(-2, 0, 2)))
    # -> 1 1 1
    m1 = E1071NaiveBayes().fit(np.array([[-1.0], [1.0], [2.0]]), np.array([0, 1, 1]))
    np.testing.assert_array_equal(m1.predict(Xt), [1, 1, 1])


@pytest.mark.parametrize("value", [0.1, 0.7, 2.7, 1.1, 1000.1])
@pytest.mark.parametrize("n", [3, 6, 7, 11])
def test_constant_feature_has_sd_exactly_zero(n, value):
    # n copies of 0.1 summed in double and divided by n is not 0.1 (a "sd" of ~1e-17 would
    # follow); R's two-pass long-double mean gives the value itself and var() exactly 0.
    X = np.column_stack([np.r_[np.full(n, value), np.arange(n) * 1.0], np.arange(2 * n) * 1.0])
    y = np.r_[np.zeros(n), np.ones(n)]
    nb = E1071NaiveBayes().fit(X, y)
    assert nb.sd_[0, 0] == 0.0 and nb.theta_[0, 0] == value
    batch = naive_bayes_predict_batch(X[None], y[None].astype(int), X[None])
    np.testing.assert_array_equal(batch[0], nb.predict(X))
    svm = E1071SVC().fit(np.column_stack([np.full(n, value), np.arange(n) * 1.0]), np.arange(n) % 2)
    assert not svm.scaled_


def _constant_feature_task(seed):
    """Random data with features constant within one class or over the whole training set.

    2-4 classes, 8-120 training cases, 1-7 features on very different scales, each
    made constant (within a class, or overall) with probability 0.4, values such as
    0.1 and 1/3 whose repeated sums are inexact; sometimes rounded to one decimal
    (ties).  Every class has at least two training cases.
    """
    rng = np.random.default_rng(seed)
    n, p, c, m = int(rng.integers(8, 121)), int(rng.integers(1, 8)), int(rng.integers(2, 5)), 40
    X = rng.normal(size=(n + m, p)) * rng.choice([1e-3, 1.0, 7.3, 1e4], size=p) + rng.choice([0.0, 0.1, 1e3], size=p)
    y = rng.integers(0, c, size=n + m)
    y[: 2 * c] = np.tile(rng.permutation(c), 2)  # every class twice, first appearances in random order
    for j in range(p):
        if rng.random() < 0.4:
            if seed % 2 == 0 or rng.random() < 0.5:
                k = int(rng.integers(0, c))
                X[:n][y[:n] == k, j] = rng.choice([0.1, 1 / 3, 2.7, 1000.1, -5.3])
            else:
                X[:n, j] = rng.choice([0.1, 1 / 3, 0.7])
    if rng.random() < 0.3:
        X = np.round(X, 1)
    return rbridge.Task(f"const{seed}", X[:n], y[:n], X[n:], y[n:])


@pytest.mark.needs_r
@needs_r
def test_nb_and_svm_agree_with_r_on_constant_features():
    """0 differing predictions on data with class-wise and overall constant features."""
    tasks = [_constant_feature_task(s) for s in range(40)]
    with tempfile.TemporaryDirectory() as d:
        out, _ = rbridge.run_r(d, tasks)
    for t in tasks:
        nb = E1071NaiveBayes().fit(t.X_train, t.y_train)
        np.testing.assert_array_equal(nb.predict(t.X_test), out[(t.id, "nb")], err_msg=t.id)
        np.testing.assert_allclose(
            nb.predict_proba(t.X_test), out[(t.id, "nb_proba")], rtol=0, atol=1e-12, err_msg=t.id
        )
        svm = E1071SVC().fit(t.X_train, t.y_train)
        np.testing.assert_array_equal(svm.predict(t.X_test), out[(t.id, "svm")], err_msg=t.id)
        if (t.id, "svm_dv") in out:
            np.testing.assert_allclose(svm.decision_function(t.X_test), out[(t.id, "svm_dv")], atol=5e-3, err_msg=t.id)


def test_naive_bayes_constant_feature_has_no_warning():
    X, y = _data()
    X[:, 0] = 0.0
    with np.errstate(all="raise"):
        pred = E1071NaiveBayes().fit(X, y).predict(X)
    assert pred.shape == (200,)


@pytest.mark.parametrize("bad", [dict(threshold=0), dict(eps=-1)])
def test_invalid_parameters_name_the_argument(bad):
    X, y = _data()
    with pytest.raises(ValueError, match=next(iter(bad))):
        E1071NaiveBayes(**bad).fit(X, y)


def test_invalid_inputs_name_the_argument():
    X, y = _data()
    with pytest.raises(ValueError, match="^y"):
        E1071SVC().fit(X, y[:-1])
    with pytest.raises(ValueError, match="^backend"):
        RandomForestR(backend="weka").fit(X, y)
    with pytest.raises(ValueError, match="^mtry"):
        RandomForestR(mtry=99).fit(X, y)
    with pytest.raises(ValueError, match="^X"):
        E1071NaiveBayes().fit(X, y).predict(X[:, :2])


def test_batch_naive_bayes_equals_one_fit_per_problem():
    rng = np.random.default_rng(3)
    src = berrar_cv_source(7)
    problems = [src.sample(80, rng) for _ in range(6)]
    Xtr = np.stack([p[0][:60] for p in problems])
    ytr = np.stack([p[1][:60] for p in problems])
    Xte = np.stack([p[0][60:] for p in problems])
    batch = naive_bayes_predict_batch(Xtr, ytr, Xte)
    for k in range(6):
        np.testing.assert_array_equal(batch[k], E1071NaiveBayes().fit(Xtr[k], ytr[k]).predict(Xte[k]))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.1, 100.0))
def test_property_naive_bayes_invariant_to_feature_scale(seed, factor):
    X, y = _data(n=40, d=3, seed=seed)
    a = E1071NaiveBayes().fit(X, y).predict_proba(X)
    b = E1071NaiveBayes().fit(X * factor, y).predict_proba(X * factor)
    np.testing.assert_allclose(a, b, atol=1e-8)


# --------------------------------------------------------------------- cross-check with R


@pytest.mark.needs_r
@needs_r
def test_nb_and_svm_agree_with_r_on_berrar_data():
    tasks = rbridge.study1_tasks(3, 101, datasets=[1, 20]) + rbridge.cv_tasks(20, 102, learners=("nb", "svm"))[:2]
    with tempfile.TemporaryDirectory() as d:
        out, _ = rbridge.run_r(d, tasks)
    for t in tasks:
        nb = E1071NaiveBayes().fit(t.X_train, t.y_train).predict(t.X_test)
        svm = E1071SVC().fit(t.X_train, t.y_train)
        assert (nb != out[(t.id, "nb")]).sum() == 0, t.id
        assert (svm.predict(t.X_test) != out[(t.id, "svm")]).sum() == 0, t.id
        # libsvm stops at tolerance 0.001; the two builds reach slightly different optima.
        np.testing.assert_allclose(svm.decision_function(t.X_test), out[(t.id, "svm_dv")], atol=5e-3)


@pytest.mark.needs_r
@pytest.mark.slow
@needs_r
def test_forest_accuracy_agrees_with_r_in_mean():
    tasks = rbridge.cv_tasks(20, 103, learners=("rf",), rf_seeds=3)
    with tempfile.TemporaryDirectory() as d:
        out, _ = rbridge.run_r(d, tasks)
    acc_r, acc_py = [], []
    for t in tasks:
        acc_r.append((out[(t.id, "rf")] == t.y_test[:, None]).mean())
        acc_py.append(
            np.mean(
                [RandomForestR(random_state=s).fit(t.X_train, t.y_train).score(t.X_test, t.y_test) for s in range(3)]
            )
        )
    # 10 folds x 3 seeds of 100 test cases: the MC error of a mean accuracy is about 0.01.
    assert abs(np.mean(acc_r) - np.mean(acc_py)) < 0.03


def test_svm_matrix_predict_equals_libsvm_predict():
    """The one-matrix-product decision gives libsvm's own predictions (Berrar's study 1 data)."""
    from simstudy.pipeline.sources import berrar_benchmark_sources

    rng = np.random.default_rng(7)
    for n, src in berrar_benchmark_sources(20, 290)[::5]:
        X, y = src.sample(n, rng)
        Xt, _ = src.sample(n, rng)
        m = E1071SVC().fit(X, y)
        Xs = (Xt - m.center_) / m.scale_
        np.testing.assert_array_equal(m.predict(Xt), m.libsvm_classes_[m.svc_.predict(Xs)])
        np.testing.assert_allclose(-m._pairwise_decisions(Xs)[:, 0], m.svc_.decision_function(Xs), rtol=0, atol=1e-10)


def test_naive_bayes_tables_by_class_equal_the_batched_ones():
    """Class by class, R's order of sums: the batched tables to the last bit (two or more classes)."""
    from simstudy.pipeline.learners.rdefaults import _nb_tables, _nb_tables_by_class

    rng = np.random.default_rng(4)
    for _ in range(300):
        n, p, k = int(rng.integers(2, 300)), int(rng.integers(1, 30)), int(rng.integers(2, 5))
        X = rng.normal(size=(n, p)) * rng.choice([1e-3, 1.0, 1e3]) + rng.choice([0.0, 5.0, -300.0])
        X[:, 0] = np.round(X[:, 0])
        if p > 1:
            X[:, -1] = 2.5  # constant in every class
        codes = rng.integers(0, k, n)
        onehot = (codes[:, None] == np.arange(k)).astype(float)
        for a, b in zip(_nb_tables(X, onehot), _nb_tables_by_class(X, codes, k)):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)


def _extended_cases(rng, count):
    """Inputs whose extended sums round: scales from 1e-8 to 1e8 in one table, offsets, constant columns."""
    for _ in range(count):
        n, p, k = int(rng.integers(1, 200)), int(rng.integers(1, 40)), int(rng.integers(1, 4))
        X = rng.standard_normal((n, p)) * 10.0 ** rng.integers(-8, 9, size=p)
        X[:, rng.random(p) < 0.2] = rng.standard_normal()
        X += rng.integers(-3, 4, size=p) * 10.0 ** rng.integers(-3, 6)
        yield X, rng.integers(0, k, n), k


def test_compiled_extended_sums_equal_numpys_longdouble():
    """The compiled x87 loops give the numpy longdouble tables and scales to the last bit."""
    from simstudy.pipeline.learners import _extended
    from simstudy.pipeline.learners.rdefaults import _in_order_sum, _nb_tables_by_class

    if not _extended.AVAILABLE:
        pytest.skip("numpy's longdouble is not the x87 extended format here")
    L = np.longdouble
    for X, codes, k in _extended_cases(np.random.default_rng(5), 1500):
        for a, b in zip(_nb_tables_by_class(X, codes, k), _extended.nb_tables(X, codes, k)):
            np.testing.assert_array_equal(a, b)
        center = (_in_order_sum(X.astype(L)) / L(X.shape[0])).astype(float)
        v = X - center
        scale = np.sqrt(_in_order_sum((v * v).astype(L)).astype(float) / max(1, X.shape[0] - 1))
        got = _extended.r_scale(X)
        np.testing.assert_array_equal(got[0], center)
        np.testing.assert_array_equal(got[1], scale)


def test_learners_fit_the_same_without_the_compiled_extended_loops(monkeypatch):
    """Where numpy's longdouble is not the x87 format the numpy versions run: the same models here."""
    from simstudy.pipeline.learners import _extended
    from simstudy.pipeline.sources import berrar_benchmark_sources

    rng = np.random.default_rng(13)
    data = [src.sample(n, rng) for n, src in berrar_benchmark_sources(20, 290)[::6]]
    data.append((np.r_[rng.normal(size=(30, 1)), rng.normal(size=(30, 1)) + 2], np.repeat([0, 1], 30)))
    fitted = [(E1071NaiveBayes().fit(X, y), E1071SVC().fit(X, y)) for X, y in data]
    monkeypatch.setattr(_extended, "AVAILABLE", False)
    for (X, y), (nb, svm) in zip(data, fitted):
        nb2, svm2 = E1071NaiveBayes().fit(X, y), E1071SVC().fit(X, y)
        for a, b in (
            (nb.theta_, nb2.theta_),
            (nb.sd_, nb2.sd_),
            (svm.center_, svm2.center_),
            (svm.scale_, svm2.scale_),
            (svm.dual_coef_, svm2.dual_coef_),
        ):
            np.testing.assert_array_equal(a, b)


def test_naive_bayes_predict_from_products_picks_the_exact_scores_class():
    """The bounded shortcut of predict gives the argmax of the exact scores, near ties and underflow included."""
    from simstudy.pipeline.learners.rdefaults import _nb_log_scores, _nb_predict, _nb_tables_by_class
    from simstudy.pipeline.sources import berrar_benchmark_sources

    rng = np.random.default_rng(12)
    problems = []
    for _ in range(400):
        n, p, m, c = (
            int(rng.integers(2, 200)),
            int(rng.integers(1, 40)),
            int(rng.integers(1, 100)),
            int(rng.integers(1, 4)),
        )
        X = rng.standard_normal((n, p)) * rng.choice([1e-3, 1.0, 1e3]) + rng.choice([0.0, 5.0, -300.0])
        Xt = rng.standard_normal((m, p)) * rng.choice([1e-3, 1.0, 1e3, 1e6])
        if rng.random() < 0.3:
            X[:, rng.random(p) < 0.3] = 1.5  # constant within every class: sd 0 -> threshold
        if rng.random() < 0.3:
            X, Xt = np.round(X), np.round(Xt)  # many exact ties
        problems.append((X, rng.integers(0, c, n), c, Xt))
    for n, src in berrar_benchmark_sources(20, 290)[::4]:
        X, y = src.sample(n, rng)
        problems.append((X, y, 2, src.sample(n, rng)[0]))
    X = rng.standard_normal((100, 5))  # two mirrored classes: the origin is an exact tie
    problems.append((np.r_[X, -X], np.repeat([0, 1], 100), 2, np.zeros((3, 5))))
    for X, codes, c, Xt in problems:
        counts, means, sds = _nb_tables_by_class(X, codes, c)
        if (counts == 0).any():
            continue
        np.testing.assert_array_equal(
            _nb_predict(Xt, counts, means, sds, 0.001, 0.0),
            _nb_log_scores(Xt, counts, means, sds, 0.001, 0.0).argmax(axis=1),
        )


def test_svm_direct_libsvm_call_is_scikit_learns_model():
    """The two-class fit on the kernel matrix, libsvm called directly, gives SVC's radial-kernel model to the last bit."""
    from sklearn.svm import SVC

    from simstudy.pipeline.sources import berrar_benchmark_sources, berrar_cv_source

    # A data set of study 2's size (510 cases, d = 32) on which the kernel matrix from the product
    # alone gives libsvm a different model (a dual coefficient off in the eighth digit; found among
    # 3540 fits, BENCHMARKS.md): the entries near a 4-byte midpoint are computed as libsvm does.
    hard = np.random.default_rng()
    hard.bit_generator.state = {
        "bit_generator": "PCG64",
        "has_uint32": 0,
        "uinteger": 0,
        "state": {"state": 271914518689522130497496599634881601347, "inc": 253583831573602660626028118101560951819},
    }
    rng = np.random.default_rng(11)
    sources = [s for _, s in berrar_benchmark_sources(44, 290)[::7]] + [berrar_cv_source(d) for d in (4, 17, 30)]
    draws = [(berrar_benchmark_sources(44, 290)[21][1], 510, hard)] + [(src, 400, rng) for src in sources]
    for src, n, gen in draws:
        X, y = src.sample(n, gen)
        m = E1071SVC().fit(X, y)
        Xs = (X - m.center_) / m.scale_
        code = (y != y[0]).astype(int)  # libsvm sees the first class to appear as 0
        svc = SVC(C=1.0, gamma=m.gamma_, cache_size=40).fit(Xs, code)
        for a, b in (
            (m.support_, svc.support_),
            (m.support_vectors_, svc.support_vectors_),
            (m.dual_coef_, svc.dual_coef_),
            (m.intercept_, svc.intercept_),
        ):
            np.testing.assert_array_equal(a, b)
        # the SVC behind ``svc_`` is fitted on first use, and is the same model
        np.testing.assert_array_equal(m.svc_.dual_coef_, svc.dual_coef_)


def test_svm_far_from_the_origin_leaves_the_kernel_to_libsvm():
    """Unscaled inputs far from the origin (a constant column: e1071 scales nothing) widen the bound
    on the product's rounding so much that libsvm evaluates the kernel itself: the same model."""
    from sklearn.svm import SVC

    from simstudy.pipeline.learners.rdefaults import _rbf_kernel

    rng = np.random.default_rng(5)
    X = 1e4 + rng.normal(size=(200, 5))
    X[:, 0] = 3.0
    y = (X[:, 1] + 0.5 * rng.normal(size=200) > 1e4).astype(int)
    m = E1071SVC().fit(X, y)
    assert not m.scaled_ and _rbf_kernel(X, 0.2) is None
    svc = SVC(C=1.0, gamma=0.2, cache_size=40).fit(X, (y != y[0]).astype(int))
    np.testing.assert_array_equal(m.dual_coef_, svc.dual_coef_)
    np.testing.assert_array_equal(m.predict(X), m.libsvm_classes_[svc.predict(X)])


def test_svm_fit_prints_nothing(capfd):
    """libsvm's progress output stays off, whichever fit ran before in the process."""
    from sklearn.svm import _libsvm

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] > 0).astype(int)
    _libsvm.set_verbosity_wrap(1)
    E1071SVC().fit(X, y).predict(X)
    assert capfd.readouterr().out == ""


def test_intelex_forest_gives_the_same_votes_with_one_thread_or_all():
    """The dask engine limits oneDAL to one thread per task (simstudy.engine.threads.limit_native_threads):
    that must change the speed only."""
    daal4py = pytest.importorskip("daal4py")
    pytest.importorskip("sklearnex")
    from simstudy.engine.threads import limit_native_threads
    from simstudy.pipeline.learners import make_learner

    rng = np.random.default_rng(7)
    before = daal4py.num_threads()
    try:
        for seed in range(3):
            X = rng.normal(size=(300, 12))
            y = (X[:, :3].sum(axis=1) + rng.normal(size=300) > 0).astype(int)
            Xt = rng.normal(size=(80, 12))
            votes = []
            for threads in (1, 2):
                assert limit_native_threads(threads)
                assert daal4py.num_threads() == threads
                forest = make_learner("randomForest", backend="intelex", n_estimators=100, random_state=seed)
                votes.append(forest.fit(X, y).vote_counts(Xt))
            np.testing.assert_array_equal(votes[0], votes[1])
    finally:
        daal4py.daalinit(before)
