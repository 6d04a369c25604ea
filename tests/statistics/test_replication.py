"""Berrar's replication-probability models.

Reference values are Berrar's published examples (SPEC section 3); tolerances
are half a unit of the last published digit unless a comment says otherwise.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from simstudy.statistics.replication import (
    ReplicationEstimate,
    SStarEstimate,
    bayesian_model,
    beta_hdi,
    binomial_model,
    binomial_pvalue,
    bootstrap_s_star,
    empirical_F_from_decisions,
    empirical_replication_probability,
    min_significant_wins,
    t_model,
    t_model_from_p,
    wilcoxon_model,
    wilcoxon_model_from_p,
)


def half_unit(digits):
    return 0.5 * 10.0**-digits + 1e-12


# ----------------------------------------------------------------- threshold s


def test_min_significant_wins_matches_the_papers_examples():
    # Example 1 / Figure 1: N = 44, significant outcomes {29..44}; study 1: N = 20, 15 wins
    assert min_significant_wins(44) == 29
    assert min_significant_wins(20) == 15
    assert binomial_pvalue(29, 44) == pytest.approx(0.0488, abs=half_unit(4))
    assert binomial_pvalue(28, 44) > 0.05
    assert binomial_pvalue(15, 20) == pytest.approx(0.0414, abs=half_unit(4))
    assert binomial_pvalue(24, 44) == pytest.approx(0.6516, abs=half_unit(4))


def test_min_significant_wins_is_the_smallest_significant_count_by_brute_force():
    for alpha in (0.01, 0.05, 0.1, 0.3):
        for n in list(range(1, 80)) + [200, 1001, 5000]:
            s = np.arange(n + 1)
            sig = s[(s > n / 2) & (binomial_pvalue(s, n) <= alpha)]
            expected = sig[0] if sig.size else n + 1
            assert min_significant_wins(n, alpha) == expected, (n, alpha)


def test_exact_tie_p_equal_alpha_is_significant():
    # 6 wins of 6: p = 2 / 2**6 = 0.03125 exactly
    assert binomial_pvalue(6, 6) == 0.03125
    assert min_significant_wins(6, 0.03125) == 6
    assert min_significant_wins(6, 0.0312) == 7


def test_no_significant_outcome_gives_n_plus_one_and_probability_zero():
    assert min_significant_wins(5) == 6  # 5 of 5: p = 0.0625 > 0.05
    r = binomial_model(5, 5)
    assert r.threshold == 6 and r.estimate == 0.0 and r.high == 0.0


def test_binomial_pvalue_agrees_with_scipy_binomtest():
    for n in (1, 7, 20, 44):
        for w in range(n + 1):
            assert binomial_pvalue(w, n) == pytest.approx(stats.binomtest(w, n, 0.5).pvalue, rel=1e-9)


# ----------------------------------------------------------------- binomial


def test_binomial_model_example_1():
    r = binomial_model(29, 44)
    assert isinstance(r, ReplicationEstimate) and r.model == "binomial"
    # exact theta = 29/44; the paper's 0.5746 used theta rounded to 0.66
    assert r.estimate == pytest.approx(0.5696, abs=half_unit(4))
    assert stats.binom.sf(28, 44, 0.66) == pytest.approx(0.5746, abs=half_unit(4))
    assert r.parameter_low == pytest.approx(0.501, abs=half_unit(3))
    assert r.parameter_high == pytest.approx(0.795, abs=half_unit(3))
    assert r.low == pytest.approx(0.0250, abs=half_unit(4))
    assert r.high == pytest.approx(0.9890, abs=half_unit(4))
    assert r.threshold == 29
    assert r.pvalue == pytest.approx(0.0488, abs=half_unit(4))


def test_binomial_model_24_of_44_is_not_significant_but_could_replicate():
    r = binomial_model(24, 44)
    # the paper's 0.0856 used theta rounded to 0.5455; the exact 24/44 gives 0.08554
    assert stats.binom.sf(28, 44, 0.5455) == pytest.approx(0.0856, abs=half_unit(4))
    assert r.estimate == pytest.approx(0.0855, abs=half_unit(4))
    assert r.parameter_high == pytest.approx(0.6961, abs=half_unit(4))
    assert r.high == pytest.approx(0.7606, abs=half_unit(4))


def test_binomial_model_study_1_group_3():
    assert binomial_model(15, 20).estimate == pytest.approx(0.6172, abs=half_unit(4))


def test_binomial_model_figure_2():
    # p = 0.00366 (32 wins): lower limit 0.155; 35 wins (p = 0.000106) is the first with lower limit > 0.5
    r = binomial_model(np.arange(29, 45), 44)
    assert r.pvalue[32 - 29] == pytest.approx(0.00366, abs=half_unit(5))
    assert r.low[32 - 29] == pytest.approx(0.155, abs=half_unit(3))
    assert r.pvalue[35 - 29] == pytest.approx(0.000106, abs=half_unit(6))
    assert np.flatnonzero(r.low > 0.5)[0] == 35 - 29


def test_clopper_pearson_limits_at_the_edges():
    r = binomial_model([0, 44], 44)
    assert r.parameter_low[0] == 0.0 and r.parameter_high[1] == 1.0
    assert r.parameter_high[0] == pytest.approx(1 - 0.025 ** (1 / 44))
    assert r.parameter_low[1] == pytest.approx(0.025 ** (1 / 44))


# ----------------------------------------------------------------- Bayesian


def test_bayesian_model_example_2():
    r = bayesian_model(29, 44)
    assert r.model == "bayes"
    assert r.parameter == pytest.approx(0.652, abs=half_unit(3))
    assert r.estimate == pytest.approx(0.5311, abs=half_unit(4))
    assert r.parameter_low == pytest.approx(0.515, abs=half_unit(3))
    assert r.parameter_high == pytest.approx(0.785, abs=half_unit(3))
    assert r.low == pytest.approx(0.0384, abs=half_unit(4))
    assert r.high == pytest.approx(0.983, abs=half_unit(3))


def test_bayesian_model_24_of_44_and_study_1():
    assert bayesian_model(24, 44).high == pytest.approx(0.7057, abs=half_unit(4))
    assert bayesian_model(15, 20).estimate == pytest.approx(0.5246, abs=half_unit(4))


def _hdi_by_optimiser(a, b, conf):
    """Independent HDI: minimise the width over the lower tail mass with a bounded scalar optimiser."""
    dist = stats.beta(a, b)
    res = optimize.minimize_scalar(
        lambda u: dist.ppf(u + conf) - dist.ppf(u), bounds=(0, 1 - conf), method="bounded", options={"xatol": 1e-13}
    )
    return dist.ppf(res.x), dist.ppf(res.x + conf)


@pytest.mark.parametrize("a,b", [(30, 16), (2, 2), (3, 40), (101, 2), (1.5, 7.25), (500, 480)])
@pytest.mark.parametrize("conf", [0.5, 0.9, 0.95, 0.99])
def test_hdi_is_accurate_to_1e6(a, b, conf):
    lo, hi = beta_hdi(a, b, level=conf)
    ref_lo, ref_hi = _hdi_by_optimiser(a, b, conf)
    assert lo == pytest.approx(ref_lo, abs=1e-6) and hi == pytest.approx(ref_hi, abs=1e-6)
    assert stats.beta.cdf(hi, a, b) - stats.beta.cdf(lo, a, b) == pytest.approx(conf, abs=1e-9)
    assert stats.beta.pdf(lo, a, b) == pytest.approx(stats.beta.pdf(hi, a, b), rel=1e-6)


def test_hdi_of_monotone_and_flat_densities():
    lo, hi = beta_hdi([1, 5, 1], [5, 1, 1], level=0.9)
    assert lo[0] == 0.0 and hi[0] == pytest.approx(stats.beta.ppf(0.9, 1, 5))
    assert hi[1] == 1.0 and lo[1] == pytest.approx(stats.beta.ppf(0.1, 5, 1))
    assert (lo[2], hi[2]) == pytest.approx((0.05, 0.95))


def test_bayesian_model_all_wins_and_no_wins():
    r = bayesian_model([0, 20], 20)
    assert r.parameter_low[0] == 0.0 and r.parameter_high[1] == 1.0
    assert 0 <= r.low[1] <= r.estimate[1] <= r.high[1] == 1.0


# ----------------------------------------------------------------- Wilcoxon


def test_wilcoxon_model_study_1_group_3():
    assert wilcoxon_model(2.437, 0.779).estimate == pytest.approx(0.730, abs=half_unit(3))


def test_wilcoxon_model_example_3():
    r = wilcoxon_model(1.96, 1.0)
    assert r.estimate == pytest.approx(0.5, abs=1e-4)
    assert (r.low, r.high) == pytest.approx((0.025, 0.975), abs=1e-4)
    assert (r.parameter_low, r.parameter_high) == pytest.approx((0.0, 3.92), abs=1e-3)
    e = wilcoxon_model_from_p(0.05)
    assert e.estimate == pytest.approx(0.5, abs=1e-12)
    assert (e.low, e.high) == pytest.approx((0.025, 0.975), abs=1e-12)
    assert e.pvalue == pytest.approx(0.05)


def test_wilcoxon_model_broadcasts_s_star_and_handles_extreme_z():
    r = wilcoxon_model([[np.inf], [-np.inf], [1e308]], [1.0, 1e-300])
    assert r.estimate.shape == (3, 2)
    assert (r.estimate[0] == 1).all() and (r.estimate[1] == 0).all() and (r.estimate[2] == 1).all()


def test_t_model_at_extreme_non_centralities():
    r = t_model([-50.0, 0.0, 50.0], 1)
    assert r.estimate[0] == 0.0 and r.estimate[2] > 0.999
    assert r.estimate[1] == pytest.approx(0.025)  # T = 0: the size alpha/2 of one tail


# ----------------------------------------------------------------- t


def test_t_model_example_4():
    r = t_model(2.262, 9)
    assert r.model == "t"
    assert r.estimate == pytest.approx(0.5235, abs=half_unit(4))
    assert r.parameter_low == pytest.approx(0.305, abs=half_unit(3))
    assert r.parameter_high == pytest.approx(5.489, abs=half_unit(3))
    assert (r.low, r.high) == pytest.approx((0.046, 0.998), abs=half_unit(3))
    assert r.pvalue == pytest.approx(0.05, abs=half_unit(4))


def test_t_model_figure_4():
    r = t_model_from_p(0.00281, 9)
    assert r.estimate == pytest.approx(0.95, abs=half_unit(2))
    assert (r.low, r.high) == pytest.approx((0.417, 1.000), abs=half_unit(3))
    assert r.pvalue == pytest.approx(0.00281, rel=1e-9)


def test_t_model_study_3():
    # mean t 2.493 with nu = 9: p 0.0343, P_t 0.604; mean t 1.9364: p 0.0848
    r = t_model([2.493, 1.9364], 9)
    assert r.pvalue[0] == pytest.approx(0.0343, abs=half_unit(4))
    assert r.estimate[0] == pytest.approx(0.604, abs=half_unit(3))
    assert r.pvalue[1] == pytest.approx(0.0848, abs=half_unit(4))


def test_t_model_matches_simulated_replications():
    # P_t is the probability that an independent replication, whose statistic follows the
    # non-central t with non-centrality T, is significant: t' = (Z + T) / sqrt(V / df).
    rng = np.random.default_rng(20240613)
    T, df, n_sim = 2.5, 9, 200_000
    t_rep = (rng.standard_normal(n_sim) + T) / np.sqrt(rng.chisquare(df, n_sim) / df)
    hit = np.mean(t_rep >= stats.t.isf(0.025, df))
    P = t_model(T, df).estimate
    assert abs(hit - P) < 4 * np.sqrt(P * (1 - P) / n_sim)


def test_t_model_matches_replicated_one_sample_t_tests():
    # The same from data: n = 10 normal differences with mean delta = T / sqrt(n) have a t
    # statistic with non-centrality T, so P_t is the rate of significant replications.
    rng = np.random.default_rng(7)
    n, T, n_sim = 10, 2.262, 100_000
    x = rng.normal(T / np.sqrt(n), 1.0, size=(n_sim, n))
    t = x.mean(axis=1) / (x.std(axis=1, ddof=1) / np.sqrt(n))
    hit = np.mean(t >= stats.t.isf(0.025, n - 1))
    P = t_model(T, n - 1).estimate
    assert abs(hit - P) < 4 * np.sqrt(P * (1 - P) / n_sim)


def test_binomial_model_matches_replicated_binomial_tests():
    # P_b is the rate at which Bin(N, wins/N) replications are significant in A's favour
    rng = np.random.default_rng(11)
    n_sim = 200_000
    w = rng.binomial(44, 29 / 44, n_sim)
    hit = np.mean((w > 22) & (binomial_pvalue(w, 44) <= 0.05))
    P = binomial_model(29, 44).estimate
    assert abs(hit - P) < 4 * np.sqrt(P * (1 - P) / n_sim)


# ----------------------------------------------------------------- vectorisation


@pytest.mark.parametrize("model", [binomial_model, bayesian_model])
def test_count_models_vectorised_equals_elementwise(model):
    wins = np.array([[0, 5, 13], [15, 20, 7]])
    n = np.array([20, 20, 13])
    r = model(wins, n, alpha=0.1, level=0.9)
    assert r.estimate.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            e = model(int(wins[i, j]), int(n[j]), alpha=0.1, level=0.9)
            for field in (
                "estimate",
                "low",
                "high",
                "parameter",
                "parameter_low",
                "parameter_high",
                "threshold",
                "pvalue",
            ):
                assert getattr(r, field)[i, j] == pytest.approx(getattr(e, field), rel=1e-12, abs=1e-15), field


@pytest.mark.parametrize("model,second", [(wilcoxon_model, [0.5, 1.0, 1.7]), (t_model, [4, 9, 29])])
def test_continuous_models_vectorised_equals_elementwise(model, second):
    stat = np.array([[-1.0], [0.3], [2.2], [3.9]])
    r = model(stat, second, alpha=0.01, level=0.8)
    assert r.estimate.shape == (4, 3)
    for i in range(4):
        for j in range(3):
            e = model(float(stat[i, 0]), second[j], alpha=0.01, level=0.8)
            for field in ("estimate", "low", "high", "parameter_low", "parameter_high", "threshold", "pvalue"):
                assert getattr(r, field)[i, j] == pytest.approx(getattr(e, field), rel=1e-12, abs=1e-15), field


@pytest.mark.parametrize("model", [binomial_model, bayesian_model])
def test_count_models_repeated_counts_equal_elementwise(model):
    # repeated (wins, n) pairs are computed once and spread back
    rng = np.random.default_rng(5)
    n = rng.choice([20, 44], size=(300, 2))
    wins = rng.integers(0, 21, size=(300, 2))
    r = model(wins, n)
    for i, j in [(0, 0), (17, 1), (299, 0), (123, 1)]:
        e = model(int(wins[i, j]), int(n[i, j]))
        for field in ("estimate", "low", "high", "parameter_low", "parameter_high", "threshold", "pvalue"):
            assert getattr(r, field)[i, j] == getattr(e, field), field


@pytest.mark.parametrize("df", [4, 9, 60])
def test_t_model_on_many_statistics_agrees_with_the_exact_path(df):
    # from 20000 statistics with one df on, the non-central t functions are interpolated
    rng = np.random.default_rng(df)
    t = rng.normal(2.0, 2.0, 25000)
    t[:3] = [-40.0, 0.0, 60.0]  # far outside the bulk
    big = t_model(t, df)
    idx = np.r_[0, 1, 2, rng.choice(t.size, 300, replace=False)]
    exact = t_model(t[idx], df)
    for field in ("estimate", "low", "high", "parameter_low", "parameter_high"):
        np.testing.assert_allclose(getattr(big, field)[idx], getattr(exact, field), rtol=0, atol=1e-9, err_msg=field)
    np.testing.assert_allclose(big.pvalue[idx], exact.pvalue, rtol=1e-8)
    assert np.all((0 <= big.low) & (big.high <= 1))


def test_t_model_mixed_df_groups():
    # one df with many statistics (interpolated) next to df values with few (exact)
    rng = np.random.default_rng(3)
    df = np.r_[np.full(21000, 9.0), [4.0, 29.0, 29.0]]
    t = rng.normal(1.5, 1.5, df.size)
    r = t_model(t, df)
    for i in (0, 20999, 21000, 21001, 21002):
        e = t_model(t[i], df[i])
        assert r.estimate[i] == pytest.approx(e.estimate, abs=1e-9)
        assert r.threshold[i] == pytest.approx(e.threshold, rel=1e-14)


def test_scalar_input_gives_float_fields():
    for r in (binomial_model(29, 44), bayesian_model(29, 44), wilcoxon_model(2.0), t_model(2.0, 9)):
        assert all(isinstance(getattr(r, f), float) for f in ("estimate", "low", "high", "parameter", "pvalue"))


def test_results_are_frozen():
    r = t_model(2.0, 9)
    with pytest.raises(AttributeError):
        r.estimate = 0.0


# ----------------------------------------------------------------- properties


@settings(max_examples=60, deadline=None)
@given(st.floats(-3, 8), st.floats(0.01, 4), st.integers(1, 60))
def test_t_model_increases_in_t(t, dt, df):
    a, b = t_model(t, df), t_model(t + dt, df)
    assert b.estimate >= a.estimate - 1e-12


@settings(max_examples=60, deadline=None)
@given(st.floats(-4, 8), st.floats(0.05, 3), st.floats(0.001, 0.5), st.floats(0.5, 0.999))
def test_wilcoxon_interval_contains_estimate(z, s, alpha, conf):
    r = wilcoxon_model(z, s, alpha=alpha, level=conf)
    assert 0 <= r.low <= r.estimate <= r.high <= 1
    assert wilcoxon_model(z + 0.1, s, alpha=alpha).estimate >= r.estimate


@settings(max_examples=60, deadline=None)
@given(st.floats(-3, 8), st.integers(2, 60), st.floats(0.001, 0.5), st.floats(0.5, 0.999))
def test_t_interval_contains_estimate(t, df, alpha, conf):
    r = t_model(t, df, alpha=alpha, level=conf)
    assert 0 <= r.low <= r.estimate + 1e-12 and r.estimate <= r.high + 1e-12 and r.high <= 1


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 120).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.sampled_from([0.01, 0.05, 0.1]),
    st.floats(0.5, 0.99),
)
def test_count_models_intervals_contain_estimates_and_increase_in_wins(wn, alpha, conf):
    wins, n = wn
    for model in (binomial_model, bayesian_model):
        r = model(wins, n, alpha=alpha, level=conf)
        assert 0 <= r.low <= r.high <= 1
        assert r.parameter_low <= r.parameter_high
        # the Clopper-Pearson interval always holds wins/n; the HDI need not hold the posterior
        # mean (skewed posterior, low confidence), but P follows theta monotonically either way
        if model is binomial_model or r.parameter_low <= r.parameter <= r.parameter_high:
            assert r.parameter_low <= r.parameter <= r.parameter_high
            assert r.low <= r.estimate + 1e-12 and r.estimate <= r.high + 1e-12
        if wins < n:
            assert model(wins + 1, n, alpha=alpha).estimate >= r.estimate - 1e-12


# ----------------------------------------------------------------- empirical and s*


def test_empirical_replication_probability_study_1_group_3():
    # 537 of 1000 significant (initial experiment included): (537 - 1)/(1000 - 1)
    assert empirical_replication_probability(537, 1000) == pytest.approx(0.5365, abs=half_unit(4))
    assert empirical_replication_probability([1, 1000], 1000) == pytest.approx([0.0, 1.0])


def test_empirical_F_from_decisions_counts_the_direction():
    d = np.array([[1, 1, 0, -1, 1], [-1, -1, 1, 0, 0]])
    assert empirical_F_from_decisions(d) == pytest.approx([2 / 4, 0 / 4])
    assert empirical_F_from_decisions(d[1], direction=-1) == pytest.approx(1 / 4)
    assert empirical_F_from_decisions(d) == pytest.approx(empirical_replication_probability([3, 1], 5))


def test_bootstrap_s_star():
    rng = np.random.default_rng(1)
    z = rng.normal(2.4, 0.78, size=(4, 300))
    r = bootstrap_s_star(z)
    assert isinstance(r, SStarEstimate) and r.n_boot == 300
    assert r.s_star == pytest.approx(z.std(axis=-1, ddof=1))
    assert (r.low < r.s_star).all() and (r.s_star < r.high).all()
    # b = 300: chi-square limits sqrt(299 / chi2) around s*
    assert r.high[0] / r.s_star[0] == pytest.approx(np.sqrt(299 / stats.chi2.ppf(0.025, 299)))
    flat = bootstrap_s_star([1.0, 1.0, 1.0])
    assert (flat.s_star, flat.low, flat.high) == (0.0, 0.0, 0.0)


# ----------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: binomial_model(-1, 44), "wins"),
        (lambda: binomial_model(45, 44), "wins"),
        (lambda: binomial_model(2.5, 44), "wins"),
        (lambda: binomial_model(np.nan, 44), "wins"),
        (lambda: binomial_model(0, 0), "n"),
        (lambda: bayesian_model(3, 0), "n"),
        (lambda: binomial_model(3, 10, alpha=0.0), "alpha"),
        (lambda: binomial_model(3, 10, alpha=1.0), "alpha"),
        (lambda: bayesian_model(3, 10, level=1.0), "level"),
        (lambda: min_significant_wins(0), "n"),
        (lambda: wilcoxon_model(2.0, 0.0), "s_star"),
        (lambda: wilcoxon_model(2.0, -1.0), "s_star"),
        (lambda: wilcoxon_model(np.nan), "z"),
        (lambda: wilcoxon_model(2.0, level=0.0), "level"),
        (lambda: wilcoxon_model_from_p(0.0), "p"),
        (lambda: wilcoxon_model_from_p(1.5), "p"),
        (lambda: t_model(2.0, 0), "df"),
        (lambda: t_model(2.0, -3), "df"),
        (lambda: t_model(np.inf, 9), "t"),
        (lambda: t_model(np.nan, 9), "t"),
        (lambda: t_model(2.0, 9, alpha=-0.1), "alpha"),
        (lambda: t_model_from_p(np.nan, 9), "p"),
        (lambda: empirical_replication_probability(0, 10), "n_significant"),
        (lambda: empirical_replication_probability(11, 10), "n_significant"),
        (lambda: empirical_replication_probability(1, 1), "n_total"),
        (lambda: empirical_F_from_decisions([0, 0, 0]), "decisions"),
        (lambda: empirical_F_from_decisions([1, 2, 0]), "decisions"),
        (lambda: empirical_F_from_decisions([1, 0], direction=0), "direction"),
        (lambda: bootstrap_s_star([1.0]), "z_values"),
        (lambda: beta_hdi(0.5, 2), "a"),
    ],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name}:"):
        call()
