"""Comparisons over several data sets, checked on Demsar's (2006) worked example, by hand and against scipy.

Demsar's Table 6: AUC of C4.5 with four settings of its parameters (none, m, cf,
m and cf) on 14 UCI data sets; his Table 2 is its first two columns.  The rows
below are the table as printed.

One discrepancy with the paper, not with the method: the mean ranks Demsar
prints (3.143, 2.000, 2.893, 1.964) differ from the ranks of the printed AUC
values (3.143, 2.000, 2.929, 1.929) by half a rank on one data set, so his
chi2 = 9.28 and F = 3.69 follow from his ranks, and the printed values give
chi2 = 9.857 and F = 3.987.  Both are checked; the conclusions are the same.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from simstudy.statistics.multiple import (
    _friedman_from_mean_ranks,
    binomial_sign_test,
    critical_difference,
    friedman_test,
    holm_adjust,
    holm_test,
    mean_ranks,
    nemenyi_test,
    nonsignificant_groups,
    wilcoxon_test,
)

NAMES = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
# Demsar (2006), Table 6: adult, breast cancer, breast cancer wisconsin, cmc, ionosphere, iris,
# liver disorders, lung cancer, lymphography, mushroom, primary tumor, rheum, voting, wine
AUC = np.array(
    [
        [0.763, 0.768, 0.771, 0.798],
        [0.599, 0.591, 0.590, 0.569],
        [0.954, 0.971, 0.968, 0.967],
        [0.628, 0.661, 0.654, 0.657],
        [0.882, 0.888, 0.886, 0.898],
        [0.936, 0.931, 0.916, 0.931],
        [0.661, 0.668, 0.609, 0.685],
        [0.583, 0.583, 0.563, 0.625],
        [0.775, 0.838, 0.866, 0.875],
        [1.000, 1.000, 1.000, 1.000],
        [0.940, 0.962, 0.965, 0.962],
        [0.619, 0.666, 0.614, 0.669],
        [0.972, 0.981, 0.975, 0.975],
        [0.957, 0.978, 0.946, 0.970],
    ]
)
# C4.5+m minus C4.5, rounded to the table's three decimals (Demsar's Table 2)
DIFF = np.round(AUC[:, 1] - AUC[:, 0], 3)


# ---------------------------------------------------------------------------
# two learners


def test_wilcoxon_demsar_table2():
    # Demsar Sec. 3.1.3: R+ = 93, R- = 12; T = 12 <= 21, the critical value for N = 14 at alpha = 0.05
    res = wilcoxon_test(DIFF)
    assert (res.r_plus, res.r_minus, res.statistic, res.n) == (93.0, 12.0, 12.0, 14)
    # normal approximation by hand: z = (12 - 14*15/4) / sqrt(14*15*29/24) = -2.542, with scipy's tie correction
    assert res.pvalue == pytest.approx(stats.wilcoxon(DIFF, zero_method="zsplit").pvalue, rel=1e-12)
    assert 0.0105 < res.pvalue < 0.0115
    assert res.decision(0.05) == 1


def test_wilcoxon_zero_methods():
    # three zeros: Demsar drops one and splits the other two, zsplit splits all three
    d = np.array([0.0, 0.0, 0.0, 0.1, 0.2, -0.05, 0.3, 0.15])
    demsar = wilcoxon_test(d)
    assert demsar.n == 7
    assert demsar.r_plus + demsar.r_minus == 7 * 8 / 2
    split = wilcoxon_test(d, zero_method="zsplit")
    assert split.n == 8 and split.pvalue == pytest.approx(stats.wilcoxon(d, zero_method="zsplit").pvalue)
    wilcox = wilcoxon_test(d, zero_method="wilcox")
    assert (wilcox.r_plus, wilcox.r_minus, wilcox.n) == (14.0, 1.0, 5)
    assert wilcox.pvalue == pytest.approx(stats.wilcoxon(d, zero_method="wilcox").pvalue)
    pratt = wilcoxon_test(d, zero_method="pratt")
    assert pratt.pvalue == pytest.approx(stats.wilcoxon(d, zero_method="pratt").pvalue)


def test_wilcoxon_without_ties_is_exact_and_symmetric():
    rng = np.random.default_rng(0)
    d = rng.normal(0.01, 0.02, 12)
    ab, ba = wilcoxon_test(d), wilcoxon_test(-d)
    assert ab.pvalue == pytest.approx(stats.wilcoxon(d, method="exact").pvalue)
    assert ab.pvalue == ba.pvalue and ab.direction == -ba.direction


def test_wilcoxon_all_zero_has_no_evidence():
    res = wilcoxon_test([0.0, 0.0, 0.0, 0.0])
    assert res.pvalue == 1.0 and res.decision() == 0


def test_sign_test_demsar_example():
    # Demsar Sec. 3.1.4: C4.5+m better on 10, worse on 2, 2 ties -> 11 wins of 14 with one tie each;
    # his table (normal approximation) needs 11 at alpha = 0.05; the exact binomial test gives p = 0.057
    exact = binomial_sign_test(DIFF)
    assert (exact.wins, exact.losses, exact.ties, exact.n) == (11.0, 3.0, 2, 14)
    assert exact.pvalue == pytest.approx(2 * (364 + 91 + 14 + 1) / 2**14, rel=1e-12)
    assert exact.pvalue == pytest.approx(stats.binomtest(11, 14).pvalue)
    normal = binomial_sign_test(DIFF, method="normal")
    assert normal.pvalue == pytest.approx(2 * stats.norm.sf((11 - 7) / (np.sqrt(14) / 2)))
    assert normal.decision(0.05) == 1 and exact.decision(0.05) == 0


def test_sign_test_odd_ties_and_dropping_them():
    d = np.array([0.0, 0.0, 0.0, 0.1, 0.2, -0.3, 0.4])
    demsar = binomial_sign_test(d)
    assert (demsar.wins, demsar.losses, demsar.n) == (4.0, 2.0, 6)
    dropped = binomial_sign_test(d, zero_method="wilcox")
    assert (dropped.wins, dropped.losses, dropped.n) == (3.0, 1.0, 4)
    assert binomial_sign_test([0.0]).pvalue == 1.0


# ---------------------------------------------------------------------------
# several learners


def test_mean_ranks_of_the_printed_table():
    # ranks of the printed values by hand; ties share their average rank (mushroom: 2.5 each)
    np.testing.assert_allclose(mean_ranks(AUC), [44 / 14, 28 / 14, 41 / 14, 27 / 14], rtol=1e-14)
    np.testing.assert_allclose(mean_ranks(1 - AUC, higher_is_better=False), mean_ranks(AUC), rtol=1e-14)


def test_friedman_from_demsars_mean_ranks():
    # Demsar Sec. 3.2.2: chi2_F = 9.28, F_F = 3.69, F(3, 39) critical value 2.85 at alpha = 0.05
    res = _friedman_from_mean_ranks(np.array([3.143, 2.000, 2.893, 1.964]), 14)
    assert res.chi2 == pytest.approx(9.28, abs=0.005)
    assert res.f == pytest.approx(3.69, abs=0.005)
    assert res.df_f == (3, 39) and res.df_chi2 == 3
    assert stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=0.005)
    assert res.f_pvalue < 0.05


def test_friedman_of_the_printed_table():
    res = friedman_test(AUC)
    r = np.array([44, 28, 41, 27]) / 14
    chi2 = 12 * 14 / (4 * 5) * (np.sum(r**2) - 4 * 25 / 4)  # 9.857
    assert res.chi2 == pytest.approx(chi2, rel=1e-12)
    assert res.f == pytest.approx(13 * chi2 / (14 * 3 - chi2), rel=1e-12)  # 3.987
    assert res.chi2_pvalue == pytest.approx(stats.chi2.sf(chi2, 3), rel=1e-12)
    assert res.f_pvalue == pytest.approx(stats.f.sf(res.f, 3, 39), rel=1e-12)
    # scipy applies the tie correction
    corrected = friedman_test(AUC, tie_correction=True)
    ref = stats.friedmanchisquare(*AUC.T)
    assert (corrected.chi2, corrected.chi2_pvalue) == pytest.approx((ref.statistic, ref.pvalue), rel=1e-12)


def test_friedman_extremes():
    same_order = np.tile([0.9, 0.8, 0.7], (6, 1))
    res = friedman_test(same_order)
    assert res.chi2 == pytest.approx(6 * 2) and res.f == np.inf and res.f_pvalue == 0.0
    all_tied = np.full((5, 3), 0.8)
    tied = friedman_test(all_tied, tie_correction=True)
    assert tied.chi2 == 0.0 and tied.chi2_pvalue == 1.0 and tied.f_pvalue == 1.0


@pytest.mark.parametrize(
    "k, q05, q10",
    [(2, 1.960, 1.645), (3, 2.343, 2.052), (4, 2.569, 2.291), (5, 2.728, 2.459), (10, 3.164, 2.920)],
)
def test_nemenyi_critical_values_demsar_table5(k, q05, q10):
    # Demsar Table 5(a): q_alpha = studentized range quantile / sqrt(2); CD = q sqrt(k(k+1)/(6N))
    se = np.sqrt(k * (k + 1) / 6.0)
    assert critical_difference(k, 1, 0.05) / se == pytest.approx(q05, abs=1e-3)
    assert critical_difference(k, 1, 0.10) / se == pytest.approx(q10, abs=1e-3)


def test_nemenyi_demsar_example():
    # Demsar Sec. 3.2.2: CD = 2.569 sqrt(4*5/(6*14)) = 1.25 at 0.05 (no pair significant: the largest
    # difference of mean ranks is 1.214 < 1.25) and 1.12 at 0.10, where C4.5 is worse than C4.5+m
    # and C4.5+m+cf and C4.5+cf cannot be told from either group (his Figure 1)
    at05 = nemenyi_test(AUC, alpha=0.05)
    assert at05.critical_difference == pytest.approx(1.25, abs=0.005)
    assert not at05.significant()[~np.eye(4, dtype=bool)].any()
    assert at05.groups == ((3, 1, 2, 0),)
    at10 = nemenyi_test(AUC, alpha=0.10)
    assert at10.critical_difference == pytest.approx(1.12, abs=0.005)
    sig = {tuple(sorted(p)) for p in zip(*np.nonzero(np.triu(at10.significant())))}
    assert sig == {(0, 1), (0, 3)}
    assert at10.groups == ((3, 1, 2), (2, 0))


def test_nemenyi_p_values_agree_with_the_critical_difference():
    rng = np.random.default_rng(11)
    scores = rng.normal(np.linspace(0, 1, 6), 0.6, (30, 6))
    res = nemenyi_test(scores, alpha=0.05)
    diff = np.abs(res.mean_ranks[:, None] - res.mean_ranks[None, :])
    np.testing.assert_array_equal(res.significant(), diff >= res.critical_difference)


def test_nemenyi_matches_scikit_posthocs():
    sp = pytest.importorskip("scikit_posthocs")
    np.testing.assert_allclose(nemenyi_test(AUC).pvalues, sp.posthoc_nemenyi_friedman(AUC).to_numpy(), rtol=1e-10)


def test_holm_against_control_demsar_example():
    # Demsar Sec. 3.2.2, C4.5 as control: z = (R_0 - R_j) / sqrt(4*5/(6*14)); his p-values (0.016, 0.019,
    # 0.607 from his mean ranks) lead Holm to reject C4.5+m+cf and C4.5+m, not C4.5+cf
    res = holm_test(AUC, control=0)
    r = np.array([44, 28, 41, 27]) / 14
    z = (r[0] - r[1:]) / np.sqrt(20 / 84)
    np.testing.assert_allclose(res.z, z, rtol=1e-12)
    np.testing.assert_allclose(res.pvalues, 2 * stats.norm.sf(z), rtol=1e-12)
    np.testing.assert_array_equal(res.pairs, [[0, 1], [0, 2], [0, 3]])
    np.testing.assert_array_equal(res.reject, [True, False, True])
    # Holm by hand: sorted p (0.0128, 0.0192, 0.661) against 0.05/3, 0.05/2, 0.05
    p = res.pvalues
    assert p[2] <= 0.05 / 3 and p[0] <= 0.05 / 2 and p[1] > 0.05
    # Demsar's published p-values from his ranks
    demsar_z = (3.143 - np.array([1.964, 2.000, 2.893])) / np.sqrt(20 / 84)
    np.testing.assert_allclose(2 * stats.norm.sf(demsar_z), [0.016, 0.019, 0.607], atol=0.003)


def test_holm_all_pairs_matches_scikit_posthocs():
    sp = pytest.importorskip("scikit_posthocs")
    res = holm_test(AUC)
    ref = sp.posthoc_siegel_friedman(AUC, p_adjust="holm").to_numpy()
    np.testing.assert_allclose(res.adjusted, ref[res.pairs[:, 0], res.pairs[:, 1]], rtol=1e-10)
    assert not res.significant().any()


def test_holm_adjust_is_the_step_down_procedure():
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.2])
    adj = holm_adjust(p)
    # sorted: 0.005*5 = 0.025, 0.01*4 = 0.04, 0.03*3 = 0.09, 0.04*2 = 0.08 -> 0.09 (monotone), 0.2
    np.testing.assert_allclose(adj, [0.04, 0.09, 0.09, 0.025, 0.2])
    for alpha in (0.03, 0.05, 0.1):
        reject, m = np.zeros(5, dtype=bool), 5
        for i, idx in enumerate(np.argsort(p)):
            if p[idx] > alpha / (m - i):
                break
            reject[idx] = True
        np.testing.assert_array_equal(adj <= alpha, reject)


def test_nonsignificant_groups_are_maximal_runs():
    r = np.array([1.0, 1.5, 2.0, 3.5, 4.0])
    sig = np.abs(r[:, None] - r[None, :]) >= 1.2
    assert nonsignificant_groups(r, sig) == ((0, 1, 2), (3, 4))
    assert nonsignificant_groups(r, np.ones((5, 5), bool) & ~np.eye(5, dtype=bool)) == ()
    assert nonsignificant_groups(r, np.zeros((5, 5), bool)) == ((0, 1, 2, 3, 4),)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: friedman_test(np.ones((1, 3))), "^scores:"),
        (lambda: friedman_test(np.ones((3, 3, 3))), "^scores:"),
        (lambda: holm_test(AUC, control=4), "^control:"),
        (lambda: nemenyi_test(AUC, alpha=1.5), "^alpha:"),
        (lambda: wilcoxon_test(DIFF, zero_method="drop"), "^zero_method:"),
        (lambda: binomial_sign_test([[0.1]]), "^x:"),
        (lambda: holm_adjust([0.5, 1.5]), "^pvalues:"),
    ],
)
def test_invalid_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()
