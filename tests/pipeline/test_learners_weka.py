import os
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simstudy.pipeline.learners.weka import IB1, WekaNaiveBayes

# weather.nominal (Weka examples): outlook, temperature, humidity, windy -> play (yes=0, no=1)
WEATHER = np.array(
    [
        [0, 0, 0, 0, 1],
        [0, 0, 0, 1, 1],
        [1, 0, 0, 0, 0],
        [2, 1, 0, 0, 0],
        [2, 2, 1, 0, 0],
        [2, 2, 1, 1, 1],
        [1, 2, 1, 1, 0],
        [0, 1, 0, 0, 1],
        [0, 2, 1, 0, 0],
        [2, 1, 1, 0, 0],
        [0, 1, 1, 1, 0],
        [1, 1, 0, 1, 0],
        [1, 0, 1, 0, 0],
        [2, 1, 0, 1, 1],
    ],
    dtype=float,
)


def test_nb_laplace_by_hand():
    X, y = WEATHER[:, :4], WEATHER[:, 4]
    m = WekaNaiveBayes(nominal=[True] * 4).fit(X, y)
    # P(yes) = (9+1)/(14+2); P(outlook=sunny|yes) = (2+1)/(9+3); P(sunny|no) = (3+1)/(5+3)
    np.testing.assert_allclose(np.exp(m.class_log_prior_), [10 / 16, 6 / 16])
    np.testing.assert_allclose(np.exp(m.tables_[0][:, 0]), [3 / 12, 4 / 8])
    x = np.array([[0, 2, 0, 1]])  # sunny, cool, high, true
    py = 10 / 16 * 3 / 12 * 4 / 12 * 4 / 11 * 4 / 11
    pn = 6 / 16 * 4 / 8 * 2 / 8 * 5 / 7 * 4 / 7
    np.testing.assert_allclose(m.predict_proba(x)[0], [py / (py + pn), pn / (py + pn)])
    assert m.predict(x)[0] == 1


def test_nb_missing_values_ignored():
    X, y = WEATHER[:, :4].copy(), WEATHER[:, 4]
    m = WekaNaiveBayes(nominal=[True] * 4).fit(X, y)
    x = np.array([[0, np.nan, np.nan, np.nan]])
    py, pn = 10 / 16 * 3 / 12, 6 / 16 * 4 / 8
    np.testing.assert_allclose(m.predict_proba(x)[0, 0], py / (py + pn))
    X[0, 0] = np.nan  # a missing training value is not counted
    m2 = WekaNaiveBayes(nominal=[True] * 4).fit(X, y)
    np.testing.assert_allclose(np.exp(m2.tables_[0][1, 0]), 3 / 7)


def test_nb_numeric_precision_and_constant_attribute():
    X = np.array([[1.0, 5.0], [2.0, 5.0], [4.0, 5.0], [5.0, 5.0]])
    y = np.array([0, 0, 1, 1])
    m = WekaNaiveBayes().fit(X, y)
    prec, mean, sd = m.normals_[0]
    assert prec == pytest.approx(4 / 3)  # (max - min) / (distinct - 1)
    prec1, _, sd1 = m.normals_[1]
    assert prec1 == 0.01 and np.allclose(sd1, 0.01 / 6)  # constant: default precision, floor sd
    assert m.predict(X).tolist() == [0, 0, 1, 1]
    assert np.all(np.isfinite(m.predict_proba(X)))


def test_single_class():
    X = np.array([[0.0, 1.2], [1.0, 3.4]])
    y = np.array([0, 0])
    for m in (WekaNaiveBayes(nominal=[True, False]), IB1(nominal=[True, False])):
        assert m.fit(X, y).predict(X).tolist() == [0, 0]


def test_ib1_scaling_missing_and_ties():
    X = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 100.0]])
    y = np.array([0, 1, 2])
    m = IB1().fit(X, y)
    # scaled: (0,0), (1,0), (0,1); query (0.4, 0.5) scaled -> (0.04, 0.005)
    assert m.predict([[0.4, 0.5]]).tolist() == [0]
    # equidistant from rows 1 and 2 -> the first of them
    assert m.predict([[5.0, 50.0]]).tolist() == [0]
    assert m.predict([[10.0, 100.0]]).tolist() == [1]
    # missing query value: difference max(v, 1 - v) of the other's scaled value
    assert m.predict([[np.nan, 100.0]]).tolist() == [2]
    n = IB1(nominal=[True]).fit(np.array([[0.0], [1.0]]), np.array([1, 0]))
    assert n.predict([[np.nan], [1.0]]).tolist() == [1, 0]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_determinism_and_probabilities(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(30, 4)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 3] = rng.normal(size=30)
    y = rng.integers(0, 2, size=30)
    nom = [True, True, True, False]
    for cls in (WekaNaiveBayes, IB1):
        a = cls(nominal=nom, n_categories=[3, 3, 3, 0]).fit(X, y)
        b = cls(nominal=nom, n_categories=[3, 3, 3, 0]).fit(X.copy(), y.copy())
        pa = a.predict_proba(X)
        np.testing.assert_array_equal(pa, b.predict_proba(X))
        np.testing.assert_allclose(pa.sum(axis=1), 1.0)


def test_ib1_training_points_recovered():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 3, size=40)
    assert IB1().fit(X, y).predict(X).tolist() == y.tolist()


def test_invalid_input():
    with pytest.raises(ValueError, match="^X"):
        WekaNaiveBayes().fit(np.zeros(3), [0, 1, 0])
    with pytest.raises(ValueError, match="^y"):
        WekaNaiveBayes().fit(np.zeros((3, 1)), [0, 1])
    with pytest.raises(ValueError, match="^X"):
        WekaNaiveBayes(nominal=[True]).fit(np.array([[0.5], [1.0]]), [0, 1])


HAVE_WEKA = shutil.which("java") is not None and os.path.exists("/usr/share/java/weka.jar")


@pytest.mark.needs_weka
@pytest.mark.skipif(not HAVE_WEKA, reason="java or /usr/share/java/weka.jar missing")
@pytest.mark.parametrize("name", ["vote", "iris"])
def test_cross_check_against_weka(name):
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "weka"))
    import crosscheck

    path = os.path.join(crosscheck.EXAMPLES, name + ".arff")
    if not os.path.exists(path):
        pytest.skip("weka examples not installed")
    from simstudy.pipeline.data import read_arff

    rows = crosscheck.crosscheck(read_arff(path), n_folds=3)
    assert sum(r[4] for r in rows) == 0


def test_nb_likelihood_floor_breaks_underflow_as_weka():
    # A value far from every class mean: each likelihood is floored at 1e-75 (Weka's
    # NaiveBayes), so the other attribute still decides instead of a uniform posterior.
    X = np.array([[0.0, 0.0], [0.1, 0.0], [1.0, 1.0], [1.1, 1.0], [1.2, 1.0]])
    y = np.array([0, 0, 1, 1, 1])
    m = WekaNaiveBayes(nominal=[False, True]).fit(X, y)
    assert m.predict([[1e6, 0.0]]).tolist() == [0]
    assert m.predict([[1e6, 1.0]]).tolist() == [1]


def test_stump_by_hand_and_missing_branch():
    from simstudy.pipeline.learners.weka import DecisionStump

    # attribute 1 separates the classes perfectly; attribute 0 is noise
    X = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [0, 1], [np.nan, 0]], dtype=float)
    y = np.array([0, 0, 1, 1, 1, 0])
    m = DecisionStump(nominal=[True, True]).fit(X, y)
    assert m.attribute_ == 1 and m.split_point_ == 0.0
    assert m.predict(X).tolist() == y.tolist()
    # no missing values of attribute 1 in training: the missing branch is the class prior
    np.testing.assert_allclose(m.predict_proba([[0, np.nan]])[0], [0.5, 0.5])
    n = DecisionStump().fit(np.array([[1.0], [2.0], [3.0], [4.0]]), np.array([0, 0, 1, 1]))
    assert n.split_point_ == 2.5


def test_stump_constant_attribute_and_single_class():
    from simstudy.pipeline.learners.weka import DecisionStump

    X = np.ones((5, 2))
    m = DecisionStump().fit(X, np.array([0, 1, 1, 0, 1]))
    assert m.predict(X).tolist() == [1] * 5
    assert DecisionStump(nominal=[True, False]).fit(X, np.zeros(5)).predict(X).tolist() == [0] * 5


def test_ib1_ranges_ignore_instances_with_missing_class():
    # Weka drops the instances with a missing class before taking the ranges: here the range
    # of the attribute is 0..1, not 0..100, so the query at 0.6 is nearer to 1 than to 0.
    X = np.array([[0.0, 0.0], [1.0, 1.0], [100.0, 0.5]])
    y = np.array([0, 1, np.nan])
    m = IB1().fit(X, y)
    np.testing.assert_array_equal([m.min_[0], m.max_[0]], [0.0, 1.0])
    assert m.predict([[0.6, 0.5]]).tolist() == [1]


def test_stump_numeric_attribute_without_cut_point_as_weka():
    from simstudy.pipeline.learners.weka import DecisionStump

    # Weka 3.6 (DecisionStump, 4 classes): one observed value, two missing.  No cut point, yet
    # the first attribute is taken with split point 0: x <= 0 goes to the empty branch (the
    # missing branch's distribution), x > 0 to the observed instance's class.
    X = np.array([[np.nan], [-2.2], [np.nan]])
    y = np.array([1, 3, 0])
    m = DecisionStump(n_classes=4).fit(X, y)
    np.testing.assert_allclose(
        m.predict_proba([[0.8], [np.nan], [-0.2]]), [[0, 0, 0, 1], [0.5, 0.5, 0, 0], [0.5, 0.5, 0, 0]]
    )


def test_uci_studies_use_wekas_ib1_evaluation_and_the_shortcut_agrees():
    from simstudy.pipeline.scores import fold_predictions
    from simstudy.protocols.bouckaert import uci_learner_factories

    nb, nn = uci_learner_factories(["weka.NaiveBayes", "weka.IB1"], "vote")
    assert nn().update_ranges_on_predict and "update_ranges_on_predict" not in nb().get_params()
    (plain,) = uci_learner_factories(["weka.IB1"], "vote", weka_evaluation=False)
    assert not plain().update_ranges_on_predict
    # On all-nominal data the ranges play no part: the per-fold shortcut serves both settings.
    X, y = WEATHER[:, :4], WEATHER[:, 4].astype(int)
    ids = np.array([np.arange(14) % 3])
    widened = lambda: IB1(nominal=[True] * 4, update_ranges_on_predict=True)  # noqa: E731

    class PerFold(IB1):
        fold_predictions = None

    slow = fold_predictions(X, y, ids, lambda: PerFold(nominal=[True] * 4, update_ranges_on_predict=True))
    np.testing.assert_array_equal(fold_predictions(X, y, ids, widened), slow)


def _ib1_by_definition(Xtr, ytr, Xte, nominal, widen):
    """IB1 written from its definition, row by row: the reference for the vectorised class."""
    lo = np.array([np.nan if np.isnan(c).all() else np.nanmin(c) for c in Xtr.T])
    hi = np.array([np.nan if np.isnan(c).all() else np.nanmax(c) for c in Xtr.T])
    out = []
    for x in Xte:
        if widen:
            for j in np.flatnonzero(~nominal & ~np.isnan(x)):
                lo[j] = x[j] if np.isnan(lo[j]) else min(lo[j], x[j])
                hi[j] = x[j] if np.isnan(hi[j]) else max(hi[j], x[j])
        best, arg = np.inf, -1
        for i, a in enumerate(Xtr):
            d = 0.0
            for j in range(len(x)):
                if nominal[j]:
                    d += float(np.isnan(a[j]) or np.isnan(x[j]) or a[j] != x[j])
                    continue
                r = hi[j] - lo[j]
                sa = (a[j] - lo[j]) / r if np.isfinite(r) and r != 0 else 0.0
                sb = (x[j] - lo[j]) / r if np.isfinite(r) and r != 0 else 0.0
                if np.isnan(a[j]) and np.isnan(x[j]):
                    diff = 1.0
                elif np.isnan(a[j]) or np.isnan(x[j]):
                    v = sb if np.isnan(a[j]) else sa
                    diff = max(v, 1.0 - v)
                else:
                    diff = sa - sb
                d += diff * diff
            if d < best - 1e-12:
                best, arg = d, i
        out.append(ytr[arg])
    return np.array(out)


@pytest.mark.parametrize("widen", [False, True])
@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_ib1_agrees_with_its_definition_while_ranges_widen(widen, missing):
    """Test rows beyond the training ranges (so that ranges widen mid-way), missing values, mixed attributes."""
    rng = np.random.default_rng(3)
    n = 80
    X = np.c_[rng.normal(size=(n, 3)), rng.integers(0, 3, (n, 2))].astype(float)
    X[40:, 0] *= 3.0  # the test half reaches past the training ranges
    X[:, 2] = 1.0  # a constant numeric attribute
    X[rng.random(X.shape) < missing] = np.nan
    y = rng.integers(0, 2, n)
    nominal = np.array([False] * 3 + [True] * 2)
    got = (
        IB1(nominal=nominal, n_categories=[0, 0, 0, 3, 3], update_ranges_on_predict=widen)
        .fit(X[:40], y[:40])
        .predict(X[40:])
    )
    np.testing.assert_array_equal(got, _ib1_by_definition(X[:40], y[:40], X[40:], nominal, widen))


# Two numeric attributes; the test rows lie outside the training ranges, so Weka's IB1 widens them as it
# classifies.  WEKA_IB1_PREDICTIONS is what Weka 3.6.14 printed for them (class codes, a = 0, b = 1), from
#   java -cp /usr/share/java/weka.jar weka.classifiers.lazy.IB1 -t train.arff -T test.arff -p 0
# on these rows written by write_arff (attributes a0, a1 numeric, class {a, b}).
IB1_TRAIN_X = [
    [4.2, 1.8],
    [3.5, 4.3],
    [3.2, 2.7],
    [3.8, 3.6],
    [2.3, 2.9],
    [3.7, 0.3],
    [3.2, 3.7],
    [2.0, 2.5],
    [1.1, 3.3],
    [4.9, 1.5],
    [2.3, 4.5],
    [2.8, 2.1],
]
IB1_TRAIN_Y = [0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0]
IB1_TEST_X = [[5.0, -2.6], [-1.2, 7.5], [-1.1, -2.6], [8.1, 6.0], [8.7, 6.1], [8.1, 1.1], [6.1, -1.0], [6.9, 5.8]]
WEKA_IB1_PREDICTIONS = [0, 0, 0, 0, 0, 1, 0, 1]
TRAINING_RANGES_PREDICTIONS = [0, 1, 0, 0, 0, 1, 1, 1]  # differs from Weka on rows 2 and 7


@pytest.mark.parametrize("name", ["weka.IB1", "NN"])
def test_ib1_by_its_registered_name_predicts_as_weka(name):
    from simstudy.pipeline.learners import make_learner

    X, y, T = np.array(IB1_TRAIN_X), np.array(IB1_TRAIN_Y), np.array(IB1_TEST_X)
    m = make_learner(name, nominal=[False, False], n_classes=2)
    assert m.update_ranges_on_predict
    assert m.fit(X, y).predict(T).tolist() == WEKA_IB1_PREDICTIONS
    # the training part's ranges stay an explicit option, and differ from Weka here
    plain = make_learner(name, nominal=[False, False], n_classes=2, update_ranges_on_predict=False)
    assert plain.fit(X, y).predict(T).tolist() == TRAINING_RANGES_PREDICTIONS


@pytest.mark.needs_weka
@pytest.mark.skipif(
    not os.path.exists("/usr/share/java/weka.jar") or shutil.which("java") is None,
    reason="java or Debian's weka.jar missing",
)
def test_embedded_ib1_predictions_are_wekas(tmp_path):
    """The embedded predictions, recomputed with Weka 3.6 where it is installed."""
    import subprocess

    from simstudy.pipeline.data import write_arff

    paths = []
    for part, X, y in (("train", IB1_TRAIN_X, IB1_TRAIN_Y), ("test", IB1_TEST_X, WEKA_IB1_PREDICTIONS)):
        paths += [str(tmp_path / f"{part}.arff")]
        write_arff(paths[-1], np.array(X), np.array(y, dtype=float), class_categories=["a", "b"])
    out = subprocess.run(
        ["java", "-cp", "/usr/share/java/weka.jar", "weka.classifiers.lazy.IB1", "-t", paths[0], "-T", paths[1]]
        + ["-p", "0"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = [line.split() for line in out.splitlines() if line.split() and line.split()[0].isdigit()]
    assert [int(r[2].split(":")[0]) - 1 for r in rows] == WEKA_IB1_PREDICTIONS
