"""Tests of simstudy.statistics.significance.

Layers: (a) published numbers and hand calculations, with their source next to
them; (b) agreement with scipy where scipy has the same test; (c) vectorised
call = loop of single calls; (d) degenerate and invalid input; (e) property
tests; (f) a slow size check under the null.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from simstudy.statistics.significance import (
    SignificanceResult,
    binomial_test,
    corrected_repeated_cv_t_test,
    corrected_resampled_t_test,
    difference_of_proportions_test,
    five_by_two_cv_f_test,
    five_by_two_cv_t_test,
    mcnemar_test,
    paired_t_test,
    proportions_z_test,
    repeated_cv_t_test,
    resampled_t_test,
    sign_test,
    signed_rank_test,
)


def _standardised(n, seed=0):
    """n values with mean exactly 0 and sample standard deviation exactly 1."""
    v = np.random.default_rng(seed).normal(size=n)
    v = v - v.mean()
    return v / v.std(ddof=1)


# ---------------------------------------------------------------------------
# (a) published numbers and hand calculations


@pytest.mark.parametrize(
    "wins, n, expected",
    [
        (29, 44, 0.0488),  # Berrar, Example 1 (SPEC section 3)
        (15, 20, 0.0414),  # Berrar, study 1, group 3
        (24, 44, 0.6516),  # Berrar, Example 2
        (32, 44, 0.00366),  # Berrar, Figure 2
        (35, 44, 0.000106),  # Berrar, Figure 2: first count with CP lower limit > 0.5
    ],
)
def test_binomial_test_reproduces_berrar(wins, n, expected):
    res = binomial_test(wins, n)
    assert res.pvalue == pytest.approx(expected, abs=5e-5 if expected > 1e-3 else 5e-7)
    assert res.statistic == pytest.approx(wins / n)
    assert res.direction == 1 and res.df is None


@pytest.mark.parametrize(
    "t, expected",
    [
        (2.262, 0.050),  # Berrar, Example 4: T = 2.262 with 9 df is p = 0.05
        (2.308, 0.046),  # Berrar, study 3, first experiment at q = 3
        (2.493, 0.0343),  # Berrar, study 3, q = 3, mean t
        (1.9364, 0.0848),  # Berrar, study 3, q = 2, mean t
    ],
)
def test_corrected_cv_t_reproduces_berrar_equation_15(t, expected):
    # ten fold differences whose variance-corrected T (1000 cases, 10-fold cv) is t
    v = _standardised(10)
    factor = 1 / 10 + 100 / 900
    x = t * np.sqrt(factor) + v
    res = corrected_repeated_cv_t_test(x[None, :], n_train=900, n_test=100)
    assert res.statistic == pytest.approx(t)
    assert res.df == 9
    assert res.pvalue == pytest.approx(expected, abs=5e-4)


def test_corrected_cv_t_single_run_is_berrar_equation_15_by_hand():
    x = np.array([0.02, 0.01, 0.03, -0.01, 0.00, 0.02, 0.04, 0.01, 0.02, 0.03])
    t = x.mean() / np.sqrt((1 / 10 + 100 / 900) * x.var(ddof=1))
    res = corrected_repeated_cv_t_test(x[None, :], n_train=900, n_test=100)
    assert res.statistic == pytest.approx(t)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 9))


def test_corrected_cv_t_keeps_the_call_used_by_the_berrar_studies():
    # studies/_berrar_cv.py: diffs of shape (n_experiments, k) with a run axis inserted
    diffs = np.random.default_rng(3).normal(0.01, 0.02, size=(7, 10))
    res = corrected_repeated_cv_t_test(diffs[:, None, :], n_train=900, n_test=100)
    assert np.shape(res.statistic) == np.shape(res.pvalue) == (7,)
    assert np.asarray(res.decision(0.05)).shape == (7,)


def test_corrected_repeated_cv_uses_all_r_times_k_values():
    # Bouckaert and Frank: variance factor 1/(k r) + n_test/n_train, df = k r - 1
    x = np.random.default_rng(4).normal(0.01, 0.03, size=(10, 10))
    flat = x.ravel()
    t = flat.mean() / np.sqrt((1 / 100 + 30 / 270) * flat.var(ddof=1))
    res = corrected_repeated_cv_t_test(x, n_train=270, n_test=30)
    assert res.statistic == pytest.approx(t)
    assert res.df == 99
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 99))


def test_corrected_resampled_t_by_hand():
    # Nadeau and Bengio: factor 1/n + n_test/n_train
    x = np.random.default_rng(5).normal(0.01, 0.03, size=15)
    t = x.mean() / np.sqrt((1 / 15 + 100 / 200) * x.var(ddof=1))
    res = corrected_resampled_t_test(x, n_train=200, n_test=100)
    assert res.statistic == pytest.approx(t)
    assert res.df == 14
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 14))


def test_signed_rank_hand_example():
    x = [1, 2, -3, 4, 0, 5, 5, -1]
    # zero dropped; |x| ranks 1.5, 3, 4, 5, 6.5, 6.5, 1.5; W+ = 22.5, n_e = 7
    mean, var = 7 * 8 / 4, 7 * 8 * 15 / 24
    res = signed_rank_test(x)
    assert res.statistic == pytest.approx((22.5 - mean) / np.sqrt(var))
    # Berrar's Eq. 10: continuity 1/2 and two tie groups of size 2 (sum t^3 - t = 12)
    res = signed_rank_test(x, continuity=True, tie_correction=True)
    assert res.statistic == pytest.approx((22.5 - mean - 0.5) / np.sqrt(var - 12 / 48))
    assert res.direction == 1


def test_sign_test_counts_ties_as_half_a_plus():
    res = sign_test([1, 1, 1, 0])
    assert res.statistic == 3.5 and res.direction == 1
    # the continued binomial tail lies between those of k = 3 and k = 4
    p3, p4 = sign_test([1, 1, 1, -1]).pvalue, sign_test([1, 1, 1, 1]).pvalue
    assert p4 < res.pvalue < p3
    assert (p3, p4) == pytest.approx((0.625, 0.125))


def test_sign_test_all_ties_is_no_evidence():
    for n in (1, 4, 5):
        res = sign_test(np.zeros(n))
        assert res.statistic == n / 2 and res.pvalue == 1 and res.direction == 0


def test_five_by_two_cv_t_by_hand():
    # Dietterich (1998), Eq. for t~: p_1^(1) / sqrt(mean of s_i^2)
    d = np.array([[0.03, 0.01], [0.02, 0.04], [-0.01, 0.02], [0.00, 0.03], [0.05, 0.01]])
    pbar = d.mean(axis=1)
    s2 = ((d - pbar[:, None]) ** 2).sum(axis=1)
    t = d[0, 0] / np.sqrt(s2.mean())
    res = five_by_two_cv_t_test(d)
    assert res.statistic == pytest.approx(t)
    assert res.df == 5
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 5))
    assert res.direction == 1


def test_five_by_two_cv_f_by_hand():
    # Alpaydin (1999): F = sum p_ij^2 / (2 sum s_i^2) ~ F(10, 5)
    d = np.array([[0.03, 0.01], [0.02, 0.04], [-0.01, 0.02], [0.00, 0.03], [0.05, 0.01]])
    s2 = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    f = (d**2).sum() / (2 * s2.sum())
    res = five_by_two_cv_f_test(d)
    assert res.statistic == pytest.approx(f)
    assert list(res.df) == [10, 5]
    assert res.pvalue == pytest.approx(stats.f.sf(f, 10, 5))
    assert five_by_two_cv_f_test(-d).direction == -1


@pytest.mark.parametrize("err_b, z", [(0.30, 1.644), (0.25, 0.848)])
def test_proportions_z_reproduces_mooney(err_b, z):
    # Mooney's slides "Sample Z-Score Test 1 and 2": test sets of 100 cases each
    res = proportions_z_test(0.20, 100, err_b, 100)
    assert res.statistic == pytest.approx(z, abs=1e-3)
    assert res.direction == 1
    assert proportions_z_test(err_b, 100, 0.20, 100).statistic == pytest.approx(-res.statistic)


def test_proportions_z_two_tailed_confidence_matches_mooney_table():
    # slide 9: z = 1.644 is the 90% two-tailed confidence level
    assert 1 - proportions_z_test(0.20, 100, 0.30, 100).pvalue == pytest.approx(0.90, abs=1e-3)


def test_mcnemar_by_hand():
    # n01 = 10 (B right, A wrong), n10 = 25 (A right, B wrong)
    res = mcnemar_test(10, 25)
    assert res.statistic == pytest.approx((15 - 1) ** 2 / 35)
    assert res.pvalue == pytest.approx(stats.chi2.sf(14**2 / 35, 1))
    assert res.df == 1 and res.direction == 1
    res = mcnemar_test(10, 25, continuity=False)
    assert res.statistic == pytest.approx(15**2 / 35)
    res = mcnemar_test(10, 25, exact=True)
    assert res.pvalue == pytest.approx(stats.binomtest(25, 35).pvalue)
    assert res.statistic == pytest.approx(25 / 35) and res.df is None
    assert mcnemar_test(25, 10).direction == -1


# ---------------------------------------------------------------------------
# (b) scipy references


def test_paired_and_resampled_t_match_scipy():
    x = np.random.default_rng(6).normal(0.1, 1.0, size=(20, 12))
    ref = stats.ttest_1samp(x, 0.0, axis=-1)
    for res in (paired_t_test(x), resampled_t_test(x)):
        np.testing.assert_allclose(res.statistic, ref.statistic)
        np.testing.assert_allclose(res.pvalue, ref.pvalue)
        np.testing.assert_array_equal(res.df, 11)


def test_repeated_cv_t_matches_scipy_on_the_flattened_matrix():
    x = np.random.default_rng(7).normal(0.1, 1.0, size=(6, 3, 4))
    ref = stats.ttest_1samp(x.reshape(6, 12), 0.0, axis=-1)
    res = repeated_cv_t_test(x)
    np.testing.assert_allclose(res.statistic, ref.statistic)
    np.testing.assert_allclose(res.pvalue, ref.pvalue)
    np.testing.assert_array_equal(res.df, 11)


def test_berrar_signed_rank_matches_scipy_wilcoxon_approx():
    rng = np.random.default_rng(8)
    # rounded values: many ties and zeros, as accuracies on small test sets give
    x = np.round(rng.normal(0.3, 1.0, size=(40, 25)))
    res = signed_rank_test(x, continuity=True, tie_correction=True)
    for i in range(x.shape[0]):
        ref = stats.wilcoxon(x[i], zero_method="wilcox", correction=True, method="approx")
        assert abs(res.statistic[i]) == pytest.approx(abs(ref.zstatistic))
        assert res.pvalue[i] == pytest.approx(ref.pvalue)


def test_default_signed_rank_matches_scipy_without_ties():
    x = np.random.default_rng(9).normal(0.3, 1.0, size=(30, 20))
    res = signed_rank_test(x)
    for i in range(x.shape[0]):
        ref = stats.wilcoxon(x[i], zero_method="wilcox", correction=False, method="approx")
        assert abs(res.statistic[i]) == pytest.approx(abs(ref.zstatistic))
        assert res.pvalue[i] == pytest.approx(ref.pvalue)
        assert np.sign(res.statistic[i]) == np.sign(np.sum(stats.rankdata(np.abs(x[i])) * np.sign(x[i])))


def test_binomial_test_matches_scipy_binomtest():
    for n in (1, 2, 7, 20, 44):
        res = binomial_test(np.arange(n + 1), n)
        ref = [stats.binomtest(w, n).pvalue for w in range(n + 1)]
        np.testing.assert_allclose(res.pvalue, ref, rtol=1e-10)


def test_sign_test_without_ties_matches_scipy_binomtest():
    x = np.sign(np.random.default_rng(10).normal(0.2, 1.0, size=(25, 15)))
    res = sign_test(x)
    ref = [stats.binomtest(int((row > 0).sum()), 15).pvalue for row in x]
    np.testing.assert_allclose(res.pvalue, ref, rtol=1e-10)


def test_mcnemar_matches_scipy_chi2_and_binomtest():
    n01, n10 = np.meshgrid(np.arange(0, 30, 3), np.arange(0, 30, 4))
    chi = mcnemar_test(n01, n10)
    ex = mcnemar_test(n01, n10, exact=True)
    for b, c, p_chi, p_ex in zip(n01.ravel(), n10.ravel(), np.ravel(chi.pvalue), np.ravel(ex.pvalue)):
        m = b + c
        expected = 1.0 if m == 0 else stats.chi2.sf(max(abs(b - c) - 1, 0) ** 2 / m, 1)
        assert p_chi == pytest.approx(expected)
        assert p_ex == pytest.approx(1.0 if m == 0 else stats.binomtest(int(c), int(m)).pvalue)


# ---------------------------------------------------------------------------
# (c) vectorised call = loop of single calls


def _assert_same(vec: SignificanceResult, singles: list[SignificanceResult]):
    np.testing.assert_allclose(np.ravel(vec.statistic), [s.statistic for s in singles])
    np.testing.assert_allclose(np.ravel(vec.pvalue), [s.pvalue for s in singles])
    np.testing.assert_array_equal(np.ravel(vec.direction), [s.direction for s in singles])


SAMPLE_TESTS = [
    paired_t_test,
    resampled_t_test,
    sign_test,
    signed_rank_test,
    lambda x: signed_rank_test(x, continuity=True, tie_correction=True),
    lambda x: corrected_resampled_t_test(x, n_train=90, n_test=10),
]


@pytest.mark.parametrize("test", SAMPLE_TESTS)
def test_sample_tests_vectorise_over_leading_axes(test):
    x = np.round(np.random.default_rng(11).normal(0.2, 1.0, size=(3, 4, 9)), 1)
    x[0, 0] = 0.0  # a degenerate row among the others
    vec = test(x)
    assert np.shape(vec.pvalue) == (3, 4)
    _assert_same(vec, [test(row) for row in x.reshape(12, 9)])


@pytest.mark.parametrize(
    "test",
    [repeated_cv_t_test, lambda x: corrected_repeated_cv_t_test(x, n_train=9, n_test=1)],
)
def test_cv_tests_vectorise_over_leading_axes(test):
    x = np.random.default_rng(12).normal(0.2, 1.0, size=(2, 5, 3, 4))
    vec = test(x)
    assert np.shape(vec.pvalue) == (2, 5)
    _assert_same(vec, [test(m) for m in x.reshape(10, 3, 4)])


@pytest.mark.parametrize("test", [five_by_two_cv_t_test, five_by_two_cv_f_test])
def test_five_by_two_tests_vectorise_over_leading_axes(test):
    x = np.random.default_rng(13).normal(0.2, 1.0, size=(4, 3, 5, 2))
    vec = test(x)
    assert np.shape(vec.pvalue) == (4, 3)
    _assert_same(vec, [test(m) for m in x.reshape(12, 5, 2)])


def test_count_tests_vectorise():
    w = np.array([[0, 5, 10], [3, 7, 9]])
    _assert_same(binomial_test(w, 10), [binomial_test(int(v), 10) for v in w.ravel()])
    n01 = np.array([0, 4, 12, 7])
    n10 = np.array([0, 9, 2, 7])
    for kw in ({}, {"exact": True}, {"continuity": False}):
        _assert_same(mcnemar_test(n01, n10, **kw), [mcnemar_test(int(b), int(c), **kw) for b, c in zip(n01, n10)])
    ea = np.array([0.1, 0.2, 0.0, 0.5])
    _assert_same(proportions_z_test(ea, 50, 0.25, 80), [proportions_z_test(e, 50, 0.25, 80) for e in ea])


def test_binomial_test_broadcasts_n():
    res = binomial_test([29, 15], [44, 20])
    np.testing.assert_allclose(res.pvalue, [0.0488, 0.0414], atol=5e-5)


# ---------------------------------------------------------------------------
# (d) degenerate and invalid input


@pytest.mark.parametrize(
    "test",
    [
        paired_t_test,
        resampled_t_test,
        lambda x: corrected_resampled_t_test(x, n_train=9, n_test=1),
        lambda x: repeated_cv_t_test(x.reshape(2, -1)),
        lambda x: corrected_repeated_cv_t_test(x.reshape(2, -1), n_train=9, n_test=1),
        lambda x: five_by_two_cv_t_test(x.reshape(5, 2)),
    ],
)
def test_t_tests_zero_variance_convention(test):
    zero = test(np.zeros(10))
    assert zero.statistic == 0 and zero.pvalue == 1 and zero.direction == 0
    const = test(np.full(10, 0.1))
    assert const.statistic == np.inf and const.pvalue == 0 and const.direction == 1
    neg = test(np.full(10, -0.1))
    assert neg.statistic == -np.inf and neg.pvalue == 0 and neg.decision(0.05) == -1


def test_five_by_two_f_zero_variance_convention():
    zero = five_by_two_cv_f_test(np.zeros((5, 2)))
    assert zero.statistic == 0 and zero.pvalue == 1 and zero.direction == 0
    const = five_by_two_cv_f_test(np.full((5, 2), -0.1))
    assert const.statistic == np.inf and const.pvalue == 0 and const.decision(0.05) == -1


def test_signed_rank_all_zero_is_no_evidence():
    for kw in ({}, {"continuity": True, "tie_correction": True}):
        res = signed_rank_test(np.zeros((2, 6)), **kw)
        np.testing.assert_array_equal(res.statistic, 0)
        np.testing.assert_array_equal(res.pvalue, 1)


def test_signed_rank_all_tied_is_finite():
    res = signed_rank_test(np.full(8, 0.5), continuity=True, tie_correction=True)
    ref = stats.wilcoxon(np.full(8, 0.5), zero_method="wilcox", correction=True, method="approx")
    assert res.pvalue == pytest.approx(ref.pvalue)


def test_mcnemar_no_discordant_pairs():
    for kw in ({}, {"exact": True}, {"continuity": False}):
        res = mcnemar_test(0, 0, **kw)
        assert res.pvalue == 1 and res.direction == 0
    # the continuity correction never pushes equal counts away from "no difference"
    assert mcnemar_test(5, 5).statistic == 0


def test_proportions_z_zero_variance_convention():
    res = proportions_z_test(0.0, 50, 0.0, 80)
    assert res.statistic == 0 and res.pvalue == 1
    res = proportions_z_test(0.0, 50, 1.0, 80)
    assert res.statistic == np.inf and res.pvalue == 0 and res.direction == 1


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: paired_t_test([1.0]), "x"),
        (lambda: paired_t_test([1.0, np.nan, 2.0]), "x"),
        (lambda: sign_test([]), "x"),
        (lambda: signed_rank_test([[1.0, np.inf]]), "x"),
        (lambda: resampled_t_test(5.0), "x"),
        (lambda: corrected_resampled_t_test([1.0, 2.0], n_train=0, n_test=1), "n_train"),
        (lambda: corrected_resampled_t_test([1.0, 2.0], n_train=9, n_test=-1), "n_test"),
        (lambda: corrected_repeated_cv_t_test(np.ones((2, 2)), n_train="a", n_test=1), "n_train"),
        (lambda: repeated_cv_t_test([1.0, 2.0, 3.0]), "x"),
        (lambda: repeated_cv_t_test([[1.0]]), "x"),
        (lambda: five_by_two_cv_t_test(np.ones((5, 3))), "diffs"),
        (lambda: five_by_two_cv_f_test(np.ones(10)), "diffs"),
        (lambda: binomial_test(5, 4), "wins"),
        (lambda: binomial_test(-1, 4), "wins"),
        (lambda: binomial_test(1.5, 4), "wins"),
        (lambda: binomial_test(1, 0), "n"),
        (lambda: mcnemar_test(-1, 3), "n01"),
        (lambda: mcnemar_test(1, np.nan), "n10"),
        (lambda: proportions_z_test(1.2, 10, 0.1, 10), "err_a"),
        (lambda: proportions_z_test(0.2, 10, 0.1, 0), "n_b"),
        (lambda: paired_t_test(np.ones(4) * [1, 2, 3, 4]).decision(1.0), "alpha"),
    ],
)
def test_invalid_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        call()


# ---------------------------------------------------------------------------
# (e) properties

samples = st.lists(st.floats(-1.0, 1.0, allow_nan=False).map(lambda v: round(v, 2)), min_size=2, max_size=30)


@settings(max_examples=60, deadline=None)
@given(samples)
def test_p_in_unit_interval_and_negation_flips_direction(values):
    x = np.array(values)
    tests = SAMPLE_TESTS + [lambda v: five_by_two_cv_f_test(np.resize(v, 10).reshape(5, 2))]
    for test in tests:
        a, b = test(x), test(-x)
        assert 0.0 <= a.pvalue <= 1.0
        assert b.pvalue == pytest.approx(a.pvalue, abs=1e-12)
        assert b.direction == -a.direction
        assert b.decision(0.05) == -a.decision(0.05)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.data())
def test_binomial_test_is_symmetric(n, data):
    w = data.draw(st.integers(0, n))
    a, b = binomial_test(w, n), binomial_test(n - w, n)
    assert 0.0 <= a.pvalue <= 1.0
    assert a.pvalue == pytest.approx(b.pvalue)
    assert a.direction == -b.direction


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.integers(0, 40), st.booleans(), st.booleans())
def test_mcnemar_is_symmetric(b, c, exact, continuity):
    kw = {"exact": exact, "continuity": continuity}
    r, s = mcnemar_test(b, c, **kw), mcnemar_test(c, b, **kw)
    assert 0.0 <= r.pvalue <= 1.0
    assert r.pvalue == pytest.approx(s.pvalue)
    assert r.direction == -s.direction


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 25), st.data())
def test_sign_test_p_decreases_with_more_plus(n, data):
    # moving one tie to a plus (k up by 1/2) never increases evidence against A
    n_plus = data.draw(st.integers(0, n - 1))
    n_tie = n - n_plus
    x = np.r_[np.ones(n_plus), np.zeros(n_tie)]
    y = x.copy()
    y[n_plus] = 1.0
    if n_plus + 0.5 * n_tie >= n / 2:
        assert sign_test(y).pvalue <= sign_test(x).pvalue + 1e-12


def _same_result(a: SignificanceResult, b: SignificanceResult):
    assert b.pvalue == pytest.approx(a.pvalue, rel=1e-9, abs=1e-12)
    assert b.statistic == pytest.approx(a.statistic, rel=1e-9, abs=1e-12)
    assert b.direction == a.direction


CV_TESTS = [
    repeated_cv_t_test,
    lambda x: corrected_repeated_cv_t_test(x, n_train=90, n_test=10),
]

cv_matrices = st.tuples(st.integers(1, 6), st.integers(2, 10)).flatmap(
    lambda shape: st.lists(
        st.floats(-1.0, 1.0, allow_nan=False).map(lambda v: round(v, 2)),
        min_size=shape[0] * shape[1],
        max_size=shape[0] * shape[1],
    ).map(lambda v, shape=shape: np.array(v).reshape(shape))
)

five_by_two = st.lists(st.floats(-1.0, 1.0, allow_nan=False).map(lambda v: round(v, 2)), min_size=10, max_size=10).map(
    lambda v: np.array(v).reshape(5, 2)
)


@settings(max_examples=60, deadline=None)
@given(cv_matrices)
def test_cv_tests_swapping_a_and_b_flips_the_decision(x):
    for test in CV_TESTS:
        a, b = test(x), test(-x)
        assert 0.0 <= a.pvalue <= 1.0
        assert b.pvalue == pytest.approx(a.pvalue, abs=1e-12)
        assert b.direction == -a.direction
        assert b.decision(0.05) == -a.decision(0.05)


@settings(max_examples=60, deadline=None)
@given(five_by_two)
def test_five_by_two_tests_swapping_a_and_b_flips_the_decision(x):
    for test in (five_by_two_cv_t_test, five_by_two_cv_f_test):
        a, b = test(x), test(-x)
        assert 0.0 <= a.pvalue <= 1.0
        assert b.pvalue == pytest.approx(a.pvalue, abs=1e-12)
        assert b.decision(0.1) == -a.decision(0.1)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.data())
def test_count_tests_swapping_a_and_b_flips_the_decision(n, data):
    w = data.draw(st.integers(0, n))
    a, b = binomial_test(w, n), binomial_test(n - w, n)
    for alpha in (0.01, 0.05, 0.2):
        assert b.decision(alpha) == -a.decision(alpha)
    n01, n10 = data.draw(st.integers(0, 60)), data.draw(st.integers(0, 60))
    for kw in ({}, {"continuity": False}, {"exact": True}):
        r, s = mcnemar_test(n01, n10, **kw), mcnemar_test(n10, n01, **kw)
        assert s.decision(0.05) == -r.decision(0.05)


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1), st.integers(1, 500), st.integers(1, 500))
def test_proportions_z_swapping_a_and_b_flips_the_decision(ea, eb, na, nb):
    a, b = proportions_z_test(ea, na, eb, nb), proportions_z_test(eb, nb, ea, na)
    assert 0.0 <= a.pvalue <= 1.0
    assert b.pvalue == pytest.approx(a.pvalue, abs=1e-12)
    assert b.statistic == -a.statistic
    assert b.decision(0.05) == -a.decision(0.05)


@settings(max_examples=60, deadline=None)
@given(samples.flatmap(lambda v: st.tuples(st.just(v), st.permutations(v))))
def test_sample_tests_are_invariant_to_the_order_of_the_sample(pair):
    # every one-sample test here treats the values as exchangeable
    x, y = (np.array(v) for v in pair)
    for test in SAMPLE_TESTS:
        _same_result(test(x), test(y))


@settings(max_examples=40, deadline=None)
@given(cv_matrices, st.randoms(use_true_random=False))
def test_repeated_cv_tests_are_invariant_to_permuting_the_matrix(x, rnd):
    # the (corrected) repeated-cv t uses the mean and variance of all r * k values
    flat = list(x.ravel())
    rnd.shuffle(flat)
    y = np.array(flat).reshape(x.shape)
    for test in CV_TESTS:
        _same_result(test(x), test(y))


@settings(max_examples=40, deadline=None)
@given(five_by_two, st.permutations(range(5)), st.lists(st.booleans(), min_size=5, max_size=5))
def test_five_by_two_f_is_invariant_to_order_of_replications_and_folds(x, order, swap):
    # Alpaydin's F sums over replications and folds; Dietterich's t uses p_1^(1), so order matters there
    y = x[list(order)]
    y = np.where(np.array(swap)[:, None], y[:, ::-1], y)
    _same_result(five_by_two_cv_f_test(x), five_by_two_cv_f_test(y))


# ---------------------------------------------------------------------------
# (f) size under the null


@pytest.mark.slow
@pytest.mark.parametrize(
    "test",
    [
        paired_t_test,
        sign_test,
        signed_rank_test,
        lambda x: signed_rank_test(x, continuity=True, tie_correction=True),
        lambda x: five_by_two_cv_t_test(x.reshape(-1, 5, 2)),
        lambda x: five_by_two_cv_f_test(x.reshape(-1, 5, 2)),
    ],
)
def test_size_under_the_null_is_at_most_alpha(test):
    n_rep, alpha = 20000, 0.05
    x = np.random.default_rng(14).normal(size=(n_rep, 10))
    rate = np.mean(np.asarray(test(x).pvalue) <= alpha)
    # upper end of a 99.9% binomial interval around alpha
    upper = alpha + 3.29 * np.sqrt(alpha * (1 - alpha) / n_rep)
    assert rate <= upper


def test_direction_of_a_mean_that_cancels_does_not_depend_on_order():
    # the sum of these values is 0 in real arithmetic but rounds to +-1e-17 depending on the order
    a = paired_t_test(np.array([0.01, -0.3, -0.03, 0.96, -0.64]))
    b = paired_t_test(np.array([0.01, -0.3, 0.96, -0.03, -0.64]))
    assert a.direction == b.direction == 0 and a.decision(0.05) == b.decision(0.05) == 0


def test_sign_test_cdf_rule_as_printed_by_bouckaert():
    # 8 pluses of 10: the exact test does not reject at 5%, the printed rule P(K <= 8) > 0.975 does
    x = np.r_[np.ones(8), -np.ones(2)]
    assert sign_test(x).pvalue == pytest.approx(2 * 56 / 1024)
    assert sign_test(x, rule="cdf").pvalue == pytest.approx(2 * 11 / 1024)
    assert sign_test(x, rule="cdf").decision(0.05) == 1
    # B's side keeps the exact tail: 2 pluses of 10 is not significant, 1 is
    assert sign_test(-x, rule="cdf").decision(0.05) == 0
    assert sign_test(np.r_[np.ones(1), -np.ones(9)], rule="cdf").decision(0.05) == -1
    # size at n = 10 without ties: P(K <= 1) + P(K >= 8)
    k = np.arange(11)
    x = np.where(np.arange(10)[None, :] < k[:, None], 1.0, -1.0)
    rejected = sign_test(x, rule="cdf").decision(0.05) != 0
    size = sum(math.comb(10, int(i)) for i in k[rejected]) / 1024
    assert size == pytest.approx((11 + 56) / 1024)
    with pytest.raises(ValueError, match="rule"):
        sign_test(x, rule="exact")


def test_difference_of_proportions_is_dietterichs_pooled_z():
    # Dietterich (1998): p = (pA + pB) / 2, z = (pA - pB) / sqrt(2 p (1 - p) / n); positive when A errs less
    res = difference_of_proportions_test(0.20, 0.30, 100)
    p = 0.25
    z = (0.30 - 0.20) / np.sqrt(2 * p * (1 - p) / 100)
    assert np.isclose(res.statistic, z) and np.isclose(res.pvalue, 2 * stats.norm.sf(z)) and res.direction == 1
    same = difference_of_proportions_test([0.0, 0.4], [0.0, 0.4], 50)
    assert np.all(same.statistic == 0) and np.all(same.pvalue == 1)
    with pytest.raises(ValueError, match="err_a"):
        difference_of_proportions_test(1.2, 0.1, 10)


def test_dietterichs_holdout_tests_read_the_first_split():
    from simstudy.pipeline.outcomes import run_test
    from simstudy.pipeline.scores import PairedScores

    acc_a, acc_b = np.array([[[0.8]]]), np.array([[[0.7]]])
    scores = PairedScores(acc_a, acc_b, 90, 10, n01=np.array([[[1]]]), n10=np.array([[[2]]]))
    m = run_test("mcnemar", scores)
    assert np.isclose(m.pvalue, mcnemar_test(1, 2).pvalue)
    d = run_test("difference_of_proportions", scores)
    assert np.isclose(d.statistic, difference_of_proportions_test(0.2, 0.3, 10).statistic)
    with pytest.raises(ValueError, match="discordant"):
        run_test("mcnemar", PairedScores(acc_a, acc_b, 90, 10))
