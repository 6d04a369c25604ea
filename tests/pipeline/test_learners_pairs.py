"""TAN and SMO (Weka 3.6 BayesNet with the TAN search, and SMO), Bouckaert's pairs of algorithms."""

import os
import shutil
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simstudy.pipeline.learners import SMO, TAN
from simstudy.pipeline.learners.tan import weka_ln_gamma

BINARY = np.array(
    [
        [0, 0, 1],
        [0, 0, 1],
        [1, 1, 0],
        [1, 1, 1],
        [0, 1, 0],
        [1, 0, 0],
        [1, 1, 1],
        [0, 0, 0],
        [1, 1, 0],
        [0, 0, 1],
        [1, 0, 1],
        [0, 1, 1],
    ],
    dtype=float,
)
Y = np.array([0, 0, 1, 1, 0, 1, 1, 0, 1, 0, 1, 0])


def _binary_data(seed, n=60, p=5):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, p)).astype(float)
    y = ((X[:, 0] + X[:, 1] + rng.random(n)) > 1.5).astype(int)
    return X, y


# ---------------------------------------------------------------------------- TAN


def test_ln_gamma_as_weka():
    # Weka 3.6.14 weka.core.Statistics.lnGamma(x), printed by java (bits shown as float.hex)
    weka = {
        0.5: "0x1.250d048e7a1bcp-1",
        1.5: "-0x1.eeb95b094c194p-4",
        3.5: "0x1.3373018970a36p+0",
        12.5: "0x1.2bbfe32d3aa80p+4",
        13.5: "0x1.5429459d98a56p+4",
        135.5: "0x1.0810bb989ff3fp+9",
        1000.5: "0x1.714ac96c9d5d3p+12",
    }
    got = weka_ln_gamma(np.array(list(weka)))
    assert got.tolist() == [float.fromhex(v) for v in weka.values()]
    from scipy.special import gammaln

    xs = np.linspace(0.01, 3000.0, 2001)
    np.testing.assert_allclose(weka_ln_gamma(xs), gammaln(xs), rtol=1e-13, atol=1e-13)
    with pytest.raises(ValueError, match="^x"):
        weka_ln_gamma(np.array([0.0]))


def test_tan_probability_tables_by_hand():
    m = TAN(nominal=[True] * 3).fit(BINARY, Y)
    assert np.sum(m.parent_ < 0) == 1  # one root, every other attribute one parent
    # class prior: (n_c + 0.5) / (n + 2 * 0.5)
    np.testing.assert_allclose(np.exp(m.class_log_prior_), [(6 + 0.5) / 13, (6 + 0.5) / 13])
    for a in range(3):
        b = m.parent_[a]
        for c in range(2):
            for vb in range(2):
                rows = (Y == c) & ((BINARY[:, b] == vb) if b >= 0 else True)
                n1 = np.sum(BINARY[rows, a] == 1)
                want = (n1 + 0.5) / (rows.sum() + 1.0)
                np.testing.assert_allclose(np.exp(m.log_tables_[a, c, vb, 1]), want)
    x = np.array([[1.0, 0.0, 1.0]])
    joint = np.exp(m.class_log_prior_).copy()
    for a in range(3):
        vb = int(x[0, m.parent_[a]]) if m.parent_[a] >= 0 else 0
        joint *= np.exp(m.log_tables_[a, :, vb, int(x[0, a])])
    np.testing.assert_allclose(m.predict_proba(x)[0], joint / joint.sum())


def test_tan_tree_search_and_orientation():
    # column 1 copies column 0 and column 3 copies column 2: the two strongest links
    rng = np.random.default_rng(0)
    a, b, n = rng.integers(0, 2, 80), rng.integers(0, 2, 80), rng.integers(0, 2, 80)
    y = (a ^ (rng.random(80) < 0.3)).astype(int)
    X = np.column_stack([a, a, b, b, n]).astype(float)
    m = TAN(nominal=[True] * 5).fit(X, y)
    # the first pair is the best one in the order (a, b), ties to the first: (0, 1) and (1, 0)
    # tie exactly, and b = 1 gets a = 0 as parent
    assert m.links_[0] in ((0, 1), (2, 3))
    assert m.parent_[1] == 0 or m.parent_[3] == 2
    assert len(m.links_) == 4
    assert np.sum(m.parent_ < 0) == 1
    # edges form a tree over the attributes
    seen = {int(np.flatnonzero(m.parent_ < 0)[0])}
    for _ in range(5):
        seen |= {j for j in range(5) if m.parent_[j] in seen}
    assert seen == set(range(5))


def test_tan_single_attribute_is_naive_bayes():
    X = BINARY[:, :1]
    m = TAN(nominal=[True]).fit(X, Y)
    assert m.parent_.tolist() == [-1] and m.links_ == []
    n1 = [np.sum((Y == c) & (X[:, 0] == 1)) for c in range(2)]
    py = np.array([6.5 / 13 * (n1[0] + 0.5) / 7, 6.5 / 13 * (n1[1] + 0.5) / 7])
    np.testing.assert_allclose(m.predict_proba([[1.0]])[0], py / py.sum())


def test_tan_missing_values_replaced_by_training_mode():
    X = BINARY.copy()
    X[0, 0] = np.nan  # attribute 0 then has five 0s and six 1s: mode 1
    m = TAN(nominal=[True] * 3).fit(X, Y)
    assert m.modes_.tolist() == [1, 0, 1]  # attribute 1: six and six, the lowest code wins
    np.testing.assert_allclose(m.predict_proba([[np.nan, np.nan, 0.0]]), m.predict_proba([[1.0, 0.0, 0.0]]))
    # a missing training value is counted as the mode, as after Weka's ReplaceMissingValues
    X[0, 0] = 1.0
    np.testing.assert_allclose(m.predict_proba(BINARY), TAN(nominal=[True] * 3).fit(X, Y).predict_proba(BINARY))
    # complete training data: missing test values still get the training modes
    full = TAN(nominal=[True] * 3).fit(BINARY, Y)
    np.testing.assert_allclose(
        full.predict_proba([[np.nan, 1.0, np.nan]]), full.predict_proba([[full.modes_[0], 1.0, full.modes_[2]]])
    )


def test_tan_unused_categories_and_absent_class():
    m = TAN(nominal=[True] * 3, n_categories=[3, 2, 2], n_classes=3).fit(BINARY, Y)
    P = m.predict_proba(np.array([[2.0, 1.0, 0.0], [0.0, 0.0, 0.0]]))
    assert P.shape == (2, 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.exp(m.class_log_prior_), np.array([6.5, 6.5, 0.5]) / 13.5)
    # category 2 of attribute 0 was never seen: (0 + 0.5) / (N + 3 * 0.5) in every table row
    b = m.parent_[0]
    for c in range(2):
        for vb in range(2):
            rows = (Y == c) & ((BINARY[:, b] == vb) if b >= 0 else True)
            np.testing.assert_allclose(np.exp(m.log_tables_[0, c, vb, 2]), 0.5 / (rows.sum() + 1.5))


def test_tan_invalid_input():
    with pytest.raises(ValueError, match="^nominal"):
        TAN(nominal=[True, False, True]).fit(BINARY, Y)
    with pytest.raises(ValueError, match="^nominal"):
        TAN().fit(BINARY, Y)  # default: every column numeric
    with pytest.raises(ValueError, match="^X"):
        TAN(nominal=[True]).fit(np.zeros(3), [0, 1, 0])
    with pytest.raises(ValueError, match="^y"):
        TAN(nominal=[True] * 3).fit(BINARY, Y[:-1])
    with pytest.raises(ValueError, match="^alpha"):
        TAN(alpha=0.0, nominal=[True] * 3).fit(BINARY, Y)
    with pytest.raises(ValueError, match="^X"):
        TAN(nominal=[True] * 3, n_categories=[2, 2, 2]).fit(BINARY + 1, Y)
    m = TAN(nominal=[True] * 3).fit(BINARY, Y)
    with pytest.raises(ValueError, match="^X"):
        m.predict([[0.0, 5.0, 0.0]])
    with pytest.raises(ValueError, match="^X"):
        m.predict([[0.0, 1.0]])


# ---------------------------------------------------------------------------- SMO


def test_smo_hard_margin_by_hand():
    # two points 0 and 1 after normalisation; with C = 10 the hard-margin solution w = 2, b = 1
    m = SMO(C=10.0).fit(np.array([[3.0], [5.0]]), np.array([0, 1]))
    np.testing.assert_allclose(m.weights_, [[2.0]], atol=1e-3)
    np.testing.assert_allclose(m.offsets_, [1.0], atol=1e-3)
    np.testing.assert_allclose(m.decision_function([[3.0], [4.0], [5.0]])[:, 0], [-1.0, 0.0, 1.0], atol=1e-3)
    assert m.predict([[3.2], [4.8]]).tolist() == [0, 1]


def test_smo_filters_as_weka():
    X = np.array([[0, 1.0, 10.0, 0], [1, 0.0, 20.0, 0], [2, 1.0, 30.0, 0], [1, np.nan, np.nan, 0]])
    y = np.array([0, 1, 0, 1])
    m = SMO(nominal=[True, True, False, True], n_categories=[3, 2, 0, 2]).fit(X, y)
    Z = m.transform(X)
    # 3-valued nominal -> 3 indicators; binary nominal -> one 0/1 column; numeric; constant -> 0
    assert Z.shape == (4, 6)
    np.testing.assert_array_equal(Z[:, :3], [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0]])
    # the missing binary value is the training mode (1: two against one), the numeric one the mean (20)
    np.testing.assert_array_equal(Z[:, 3], [1, 0, 1, 1])
    np.testing.assert_allclose(Z[:, 4], [0.0, 0.5, 1.0, 0.5])
    np.testing.assert_array_equal(Z[:, 5], 0.0)
    # test values outside the training range are not clipped
    np.testing.assert_allclose(m.transform([[0, 1, 40.0, 1]])[0, 4], 1.5)


def test_smo_agrees_with_svc_on_normalised_data():
    from sklearn.svm import SVC

    for seed in range(3):
        X, y = _binary_data(seed)
        m = SMO(nominal=[True] * 5).fit(X, y)
        s = SVC(kernel="linear", C=1.0).fit(X, y)
        assert np.mean(m.predict(X) == s.predict(X)) >= 0.98
        lib = SMO(backend="libsvm", nominal=[True] * 5).fit(X, y)
        assert np.mean(lib.predict(X) == m.predict(X)) >= 0.98
        assert SMO(backend="sklearn", nominal=[True] * 5).fit(X, y).predict(X).tolist() == lib.predict(X).tolist()


def test_java_random_and_weka_order():
    from simstudy.pipeline.learners._smo_weka import JavaRandom, weka_order

    # java.util.Random(1).nextInt(b) for these bounds in turn, and Random(-5).nextInt(2^30), from Java 17
    r = JavaRandom(1)
    bounds = [2, 3, 7, 10, 16, 100, 1000, 1073741825, 2147483647, 5]
    assert [r.next_int(b) for b in bounds] == [1, 1, 1, 3, 3, 4, 434, 13136569, 327998473, 2]
    q = JavaRandom(-5)
    assert [q.next_int(1 << 30) for _ in range(4)] == [289159705, 390233360, 358728976, 368998164]
    # each pair: the rows of its two classes, shuffled (the order itself is checked against Weka by
    # tests/test_differential.py and test_cross_check_against_weka_10_fold)
    y = np.array([2, 0, 1, 0, 2, 1, 0])
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    order = weka_order(y, pairs)
    for (i, j), rows in zip(pairs, order):
        assert sorted(rows.tolist()) == np.flatnonzero((y == i) | (y == j)).tolist()
    # the compiled shuffle draws what JavaRandom draws (Instances.randomize: swap k with nextInt(k + 1))
    rng = np.random.default_rng(0)
    for _ in range(50):
        y = rng.integers(0, 3, size=int(rng.integers(0, 400)))
        seed = int(rng.integers(-(2**40), 2**40))
        gen, expected = JavaRandom(seed), []
        for i, j in pairs:
            rows = np.flatnonzero((y == i) | (y == j))
            rows = np.concatenate([rows[y[rows] == i], rows[y[rows] == j]]).tolist()
            for k in range(len(rows) - 1, 0, -1):
                s = gen.next_int(k + 1)
                rows[k], rows[s] = rows[s], rows[k]
            expected.append(rows)
        assert [r.tolist() for r in weka_order(y, pairs, seed)] == expected


def test_smo_weka_solver_deterministic_and_seeded():
    X, y = _binary_data(1, n=120)
    a = SMO(nominal=[True] * 5).fit(X, y)
    b = SMO(nominal=[True] * 5).fit(X.copy(), y.copy())
    np.testing.assert_array_equal(a.weights_, b.weights_)
    np.testing.assert_array_equal(a.offsets_, b.offsets_)
    # another -W shuffles the examples differently: another approximate solution, nearly the same votes
    c = SMO(nominal=[True] * 5, random_seed=7).fit(X, y)
    assert np.mean(c.predict(X) == a.predict(X)) >= 0.95


def test_smo_pairwise_voting_and_absent_classes():
    rng = np.random.default_rng(1)
    centres = np.array([[0, 0], [4, 0], [0, 4]], dtype=float)
    y = np.repeat([0, 1, 2], 20)
    X = centres[y] + rng.normal(scale=0.5, size=(60, 2))
    m = SMO(n_classes=4).fit(X, y)
    assert m.pairs_.tolist() == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    assert m.active_.all()
    assert np.mean(m.predict(X) == y) > 0.95
    P = m.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    # class 3 never seen: its three machines always vote for the other class
    assert np.all(P[:, 3] == 0)
    np.testing.assert_allclose(P.max(axis=1), 0.5)  # 3 votes of 6 for the winner
    one = SMO(n_classes=3).fit(X[y == 1], y[y == 1])
    assert one.predict(X).tolist() == [1] * 60
    assert one.active_.tolist() == [True, False, True]


def test_smo_invalid_input():
    X, y = _binary_data(0)
    for kw, name in (
        ({"C": 0}, "^C"),
        ({"tol": -1.0}, "^tol"),
        ({"backend": "x"}, "^backend"),
        ({"epsilon": -1.0}, "^epsilon"),
        ({"random_seed": 1.5}, "^random_seed"),
    ):
        with pytest.raises(ValueError, match=name):
            SMO(**kw).fit(X, y)
    with pytest.raises(ValueError, match="^X"):
        SMO().fit(np.zeros(3), [0, 1, 0])
    with pytest.raises(ValueError, match="^y"):
        SMO().fit(X, y[:-1])
    with pytest.raises(ValueError, match="^X"):
        SMO(nominal=[True] * 5, n_categories=[2] * 5).fit(X + 1, y)
    m = SMO(nominal=[True] * 5).fit(X, y)
    with pytest.raises(ValueError, match="^X"):
        m.predict(np.full((1, 5), 3.0))
    with pytest.raises(ValueError, match="^X"):
        m.predict(np.zeros((1, 4)))


# ---------------------------------------------------------------------------- both


@pytest.mark.parametrize("cls", [TAN, SMO])
def test_scikit_learn_compatibility(cls):
    pytest.importorskip("sklearn")
    import sklearn.base
    from sklearn.model_selection import KFold, cross_val_score

    m = cls(nominal=[True] * 5, n_categories=[2] * 5, n_classes=2)
    params = m.get_params()
    c = sklearn.base.clone(m)
    assert c.get_params() == params
    assert cls().set_params(**params).get_params() == params
    X, y = _binary_data(4, n=80)
    scores = cross_val_score(m, X, y, cv=KFold(4), scoring="accuracy")
    assert scores.shape == (4,) and np.all(scores > 0.5)
    fitted = cls(nominal=[True] * 5).fit(X, y)
    assert sklearn.base.is_classifier(fitted) and 0.5 < fitted.score(X, y) <= 1.0


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_shapes_probabilities_and_determinism(seed):
    rng = np.random.default_rng(seed)
    n, p, c = int(rng.integers(5, 40)), int(rng.integers(1, 5)), int(rng.integers(2, 4))
    k = rng.integers(1, 4, size=p)
    X = np.column_stack([rng.integers(0, kk, size=n) for kk in k]).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, c, size=n)
    for cls in (TAN, SMO):
        a = cls(nominal=[True] * p, n_categories=k, n_classes=c).fit(X, y)
        b = cls(nominal=[True] * p, n_categories=k, n_classes=c).fit(X.copy(), y.copy())
        P = a.predict_proba(X)
        assert P.shape == (n, c)
        np.testing.assert_array_equal(P, b.predict_proba(X))
        np.testing.assert_allclose(P.sum(axis=1), 1.0)
        assert a.predict(X).shape == (n,)
        assert np.array_equal(a.predict(X), np.argmax(P, axis=1))


# ---------------------------------------------------------------------------- Weka 3.6

HAVE_WEKA = (
    shutil.which("java") is not None
    and shutil.which("javac") is not None
    and os.path.exists("/usr/share/java/weka.jar")
)


def _pairs_crosscheck():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "weka"))
    import pairs_crosscheck

    return pairs_crosscheck


@pytest.mark.needs_weka
@pytest.mark.skipif(not HAVE_WEKA, reason="java, javac or /usr/share/java/weka.jar missing")
def test_cross_check_against_weka_10_fold():
    pc = _pairs_crosscheck()
    from simstudy.pipeline.data import load_uci

    data = [pc.bouckaert3(1), pc.bouckaert3(2), load_uci("vote"), load_uci("breast-cancer")]
    tan = [r["TAN"] for r in pc.crosscheck_pairs(data, ("TAN",))]
    assert sum(r["tested"] for r in tan) == 300 + 300 + 435 + 286
    # TAN: identical predictions, probabilities equal to rounding
    assert sum(r["differ"] for r in tan) == 0
    assert max(r["max_prob_diff"] for r in tan) < 1e-9
    # SMO (Weka's SMO is the slow part, so two sets): Weka's solver reproduced step by step, so
    # identical predictions (libsvm, the former solver, differed on 1 of these 586)
    smo = [r["SMO"] for r in pc.crosscheck_pairs([data[1], data[3]], ("SMO",))]
    assert sum(r["differ"] for r in smo) == 0
    assert all(m < 1e-2 for r in smo for m in r["margins"])
    assert all(abs(r["weka_correct"] - r["ours_correct"]) <= 2 for r in smo)


@pytest.mark.needs_weka
@pytest.mark.skipif(not HAVE_WEKA, reason="java, javac or /usr/share/java/weka.jar missing")
def test_tan_small_random_problems_against_weka():
    # ties in the tree search (copied attributes), unused categories, absent classes, missing values
    pc = _pairs_crosscheck()
    rows = pc.compare([pc.random_small(s) for s in range(120)], ("TAN",))["TAN"]
    assert sum(int(np.sum(r["weka"] != r["ours"])) for r in rows) == 0
    assert max(float(np.abs(r["weka_proba"] - r["ours_proba"]).max()) for r in rows) < 1e-9
