"""Bayesian verdicts with a ROPE: closed forms, invariants, and agreement with baycomp on the same arrays.

baycomp (Benavoli et al. 2017's package) is a test dependency only; the
comparisons are skipped where it is not installed.  baycomp orders its answer
(left, rope, right) for ``y - x``: called with (A's scores, B's scores) its left
is "A better", as here.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from simstudy.statistics.bayesian import (
    BayesianVerdict,
    bayesian_sign_test,
    bayesian_signed_rank_test,
    correlated_t_test,
)
from simstudy.statistics.significance import corrected_repeated_cv_t_test


def _scores(seed: int, n: int, shift: float, sd: float = 0.02):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.8, 0.05, n)
    return a, a - rng.normal(shift, sd, n)


def _mc_tolerance(p: float, n1: int, n2: int) -> float:
    """Five standard errors of the difference of two independent Monte Carlo shares, plus 0.002 for baycomp's 1e-4."""
    p = min(max(p, 0.01), 0.99)
    return 5.0 * np.sqrt(p * (1 - p) * (1 / n1 + 1 / n2)) + 0.002


# ---------------------------------------------------------------------------
# correlated t-test


def test_correlated_t_closed_form():
    # x = (0.01, 0.03, -0.01, 0.02, 0.05), 5-fold cv: scale^2 = (1/5 + 1/4) s^2, t with 4 df
    x = np.array([0.01, 0.03, -0.01, 0.02, 0.05])
    v = correlated_t_test(x, n_train=4, n_test=1, rope=0.01)
    scale = np.sqrt((1 / 5 + 1 / 4) * x.var(ddof=1))
    assert v.p_a_better == pytest.approx(stats.t.sf(0.01, 4, loc=0.02, scale=scale), rel=1e-12)
    assert v.p_b_better == pytest.approx(stats.t.cdf(-0.01, 4, loc=0.02, scale=scale), rel=1e-12)
    assert v.p_a_better + v.p_rope + v.p_b_better == pytest.approx(1.0, abs=1e-15)
    assert v.n_samples is None and v.rope == 0.01


def test_correlated_t_without_rope_is_half_the_corrected_p_value():
    # the posterior is the corrected test's distribution moved to the mean (Corani and Benavoli 2015)
    rng = np.random.default_rng(7)
    x = rng.normal(rng.normal(0, 0.02, (500, 1, 1)), 0.03, (500, 10, 10))
    v = correlated_t_test(x.reshape(500, 100), n_train=9, n_test=1)
    test = corrected_repeated_cv_t_test(x, n_train=9, n_test=1)
    minority = np.where(test.statistic > 0, v.p_b_better, v.p_a_better)
    np.testing.assert_allclose(minority, test.pvalue / 2, rtol=1e-9, atol=1e-300)
    assert v.p_rope.shape == (500,) and not v.p_rope.any()


def test_correlated_t_zero_spread_is_a_point_mass():
    assert correlated_t_test([0.02] * 4, n_train=3, n_test=1, rope=0.01).verdict() == 1
    assert correlated_t_test([0.005] * 4, n_train=3, n_test=1, rope=0.01).verdict() == 2
    assert correlated_t_test([-0.02] * 4, n_train=3, n_test=1, rope=0.01).verdict() == -1


@pytest.mark.parametrize(
    "n_runs, n_folds, shift, rope",
    [(10, 10, 0.004, 0.01), (1, 10, 0.01, 0.01), (5, 2, -0.01, 0.005), (10, 10, 0.004, 0.0), (3, 5, -0.02, 0.0)],
)
def test_correlated_t_matches_baycomp_two_on_single(n_runs, n_folds, shift, rope):
    baycomp = pytest.importorskip("baycomp")
    a, b = _scores(n_runs * n_folds, n_runs * n_folds, shift)
    ours = correlated_t_test(a - b, n_train=n_folds - 1, n_test=1, rope=rope)
    theirs = baycomp.two_on_single(a, b, rope=rope, runs=n_runs)
    if rope > 0:
        assert (ours.p_a_better, ours.p_rope, ours.p_b_better) == pytest.approx(theirs, abs=1e-12)
    else:  # baycomp answers (left, right) without a ROPE
        assert (ours.p_a_better, ours.p_b_better) == pytest.approx(theirs, abs=1e-12)


# ---------------------------------------------------------------------------
# signed-rank and sign tests over data sets


def test_signed_rank_is_determined_by_its_rng():
    a, b = _scores(1, 12, 0.005)
    first = bayesian_signed_rank_test(a - b, rope=0.01, rng=np.random.default_rng(5), n_samples=4000)
    again = bayesian_signed_rank_test(a - b, rope=0.01, rng=np.random.default_rng(5), n_samples=4000)
    other = bayesian_signed_rank_test(a - b, rope=0.01, rng=np.random.default_rng(6), n_samples=4000)
    assert first == again
    assert first != other
    assert first.p_a_better + first.p_rope + first.p_b_better == pytest.approx(1.0)


def test_signed_rank_swapping_learners_swaps_the_verdict():
    a, b = _scores(2, 15, 0.01)
    ab = bayesian_signed_rank_test(a - b, rope=0.005, rng=np.random.default_rng(0), n_samples=20_000)
    ba = bayesian_signed_rank_test(b - a, rope=0.005, rng=np.random.default_rng(0), n_samples=20_000)
    # the same Dirichlet draws: the theta of A becomes that of B exactly
    assert (ab.p_a_better, ab.p_rope, ab.p_b_better) == (ba.p_b_better, ba.p_rope, ba.p_a_better)


def test_signed_rank_one_data_set_by_hand():
    # q = 1, z_1 = 0.1, rope 0: with weights (w0, w1), theta_A = w1^2 + w0 w1 (the pair (0, z) counts 1, (0, 0) 1/2)
    # so theta_A > 1/2 iff w1^2 + w1 (1 - w1) + (1 - w1)^2 / 2 > 1/2, i.e. always when w1 > 0: P(A) = 1
    v = bayesian_signed_rank_test([0.1], rng=np.random.default_rng(0), n_samples=1000)
    assert v.p_a_better == 1.0


@pytest.mark.parametrize("shift, rope", [(0.004, 0.01), (0.012, 0.01), (0.01, 0.0)])
def test_signed_rank_matches_baycomp_two_on_multiple(shift, rope):
    baycomp = pytest.importorskip("baycomp")
    a, b = _scores(int(1000 * shift) + 3, 20, shift, sd=0.015)
    n = 20_000
    ours = bayesian_signed_rank_test(a - b, rope=rope, rng=np.random.default_rng(0), n_samples=n)
    theirs = baycomp.SignedRankTest(a, b, rope=rope, nsamples=n, random_state=0).probs(with_rope=True)
    for p, q in zip((ours.p_a_better, ours.p_rope, ours.p_b_better), theirs):
        assert abs(p - q) <= _mc_tolerance(q, n, n)


@pytest.mark.parametrize("shift, rope", [(0.004, 0.01), (0.012, 0.005)])
def test_sign_test_matches_baycomp(shift, rope):
    baycomp = pytest.importorskip("baycomp")
    a, b = _scores(17, 25, shift)
    n = 50_000
    ours = bayesian_sign_test(a - b, rope=rope, rng=np.random.default_rng(0), n_samples=n)
    theirs = baycomp.SignTest.probs(a, b, rope=rope, nsamples=n, random_state=0)
    for p, q in zip((ours.p_a_better, ours.p_rope, ours.p_b_better), theirs):
        assert abs(p - q) <= _mc_tolerance(q, n, n)


def test_sign_test_against_the_dirichlet_marginal():
    # with no data in the ROPE and none for B, theta = Dirichlet(n_A, prior, 0): A wins when theta_A > 1/2,
    # i.e. when a Beta(n_A, prior) draw exceeds 1/2
    x = np.full(3, 0.05)
    n = 200_000
    v = bayesian_sign_test(x, rope=0.01, rng=np.random.default_rng(1), n_samples=n)
    exact = stats.beta.sf(0.5, 3, 1)
    assert v.p_b_better == 0.0
    assert abs(v.p_a_better - exact) <= 5 * np.sqrt(exact * (1 - exact) / n)


def test_verdict_thresholds():
    v = BayesianVerdict(p_a_better=np.array([0.96, 0.1, 0.0, 0.5]), p_rope=np.array([0.04, 0.0, 0.97, 0.3]),
                        p_b_better=np.array([0.0, 0.9, 0.03, 0.2]), rope=0.01, n_samples=None)  # fmt: skip
    np.testing.assert_array_equal(v.verdict(0.95), [1, 0, 2, 0])
    np.testing.assert_array_equal(v.verdict(0.9), [1, -1, 2, 0])


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: correlated_t_test([0.1, 0.2], n_train=9, n_test=1, rope=-0.1), "^rope:"),
        (lambda: correlated_t_test([0.1], n_train=9, n_test=1), "^x:"),
        (lambda: bayesian_signed_rank_test([0.1, 0.2], rng=np.random.default_rng(0), prior=0), "^prior:"),
        (lambda: bayesian_signed_rank_test([0.1, 0.2], rng=0), "^rng:"),
        (lambda: bayesian_signed_rank_test([[0.1, 0.2]], rng=np.random.default_rng(0)), "^x:"),
        (lambda: bayesian_sign_test([0.1], rng=np.random.default_rng(0), n_samples=0), "^n_samples:"),
    ],
)
def test_invalid_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_correlated_t_does_not_depend_on_the_unit(scale):
    x = np.array([0.01, 0.03, -0.01, 0.02, 0.05])
    ref = correlated_t_test(x, n_train=4, n_test=1, rope=0.01)
    res = correlated_t_test(x * scale, n_train=4, n_test=1, rope=0.01 * scale)
    assert (res.p_a_better, res.p_rope, res.p_b_better) == pytest.approx(
        (ref.p_a_better, ref.p_rope, ref.p_b_better), rel=1e-9
    )


def test_correlated_t_with_a_rope_far_wider_than_its_scale_has_no_overflow():
    # (rope - mean) / scale overflowed to inf with a RuntimeWarning; its probabilities are exact at the limit
    from simstudy.statistics.bayesian import correlated_t_test

    v = correlated_t_test([0.01, 0.02, -0.01, 0.03], n_train=90, n_test=10, rope=1e308)
    assert (v.p_a_better, v.p_rope, v.p_b_better) == (0.0, 1.0, 0.0)
