import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from simstudy.statistics.replicability import (
    all_agree,
    consistency,
    normalized,
    r1,
    r1_variance,
    r2,
    r2_from_counts,
    r2_variance,
)

# ---------------------------------------------------------------------------
# published and hand-computed values


def test_r2_variance_reproduces_spec_value():
    # SPEC section 2 (Theorem 3.1 with the bracket restored): n = 28, r = 0.8
    assert r2_variance(0.8, 28) == pytest.approx(0.008677, abs=5e-7)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 10, 28])
@pytest.mark.parametrize("r", [0.5, 0.6, 0.8, 0.95, 1.0])
def test_r2_is_unbiased_and_its_variance_matches_exact_enumeration(n, r):
    # one repetition accepts with probability p, so the number of accepts i ~ Bin(n, p)
    p = 0.5 + 0.5 * np.sqrt(2 * r - 1)
    i = np.arange(n + 1)
    w = stats.binom.pmf(i, n, p)
    est = r2_from_counts(i, n)
    assert np.sum(w * est) == pytest.approx(r, abs=1e-12)
    assert r2_variance(r, n) == pytest.approx(np.sum(w * (est - r) ** 2), abs=1e-12)


def test_r2_variance_is_below_r1_variance():
    # Bouckaert 2004, Figure 2: R2's surface lies below R1's except at r = 1
    r = np.linspace(0.5, 0.99, 12)[:, None]
    n = np.arange(4, 30, 2)[None, :]
    assert np.all(r2_variance(r, n) < r1_variance(r, n))
    assert r1_variance(1.0, 10) == 0 and r2_variance(1.0, 10) == 0


def test_r1_variance_by_hand():
    assert r1_variance(0.8, 10) == pytest.approx(0.16 / 5)


# Bouckaert 2004, Table 2: accepts out of 10 where not 0 or 10 (every other of
# the 27 data sets is 0 or 10); published mean normalised R2 in percent
TABLE_2 = {
    "sign NB-C4.5": ([9, 2, 4, 3, 2, 7, 5], 78.2),
    "sign NB-NN": ([9, 6, 9, 1, 9, 9, 6], 84.6),
    "sign C4.5-NN": ([1, 4, 5], 90.4),
    "rank NB-C4.5": ([4, 3, 9, 7], 87.6),
    "rank NB-NN": ([8, 9, 8], 93.2),
    "rank C4.5-NN": ([2, 6, 7], 90.0),
    "t NB-C4.5": ([1, 2, 9, 7], 91.0),
    "t NB-NN": ([9, 9, 7], 93.6),
    "t C4.5-NN": ([2, 6, 6, 9], 88.0),
}


@pytest.mark.parametrize("column", list(TABLE_2))
def test_table_2_mean_normalised_r2(column):
    cells, published = TABLE_2[column]
    accepts = np.r_[cells, np.full(27 - len(cells), 10)]
    got = 100 * np.mean(normalized(r2_from_counts(accepts, 10)))
    assert got == pytest.approx(published, abs=0.1)


def test_r2_from_counts_by_hand():
    # 9 of 10 accept: 9*8 equal accepting pairs, none rejecting, of 90
    assert r2_from_counts(9, 10) == pytest.approx(72 / 90)
    assert r2_from_counts(5, 10) == pytest.approx(40 / 90)
    np.testing.assert_allclose(r2_from_counts([0, 10], 10), [1.0, 1.0])


def test_r1_and_r2_by_hand():
    e = [1, 1, 0, 1, 0, 0]
    # pairs (1,1) (0,1) (0,0): two of three equal
    assert r1(e) == pytest.approx(2 / 3)
    # three +1 and three 0: 3*2 + 3*2 = 12 ordered equal pairs of 30
    assert r2(e) == pytest.approx(12 / 30)


def test_opposite_rejections_are_different_outcomes():
    assert r1([1, -1]) == 0.0
    assert r2([1, -1, 1, -1]) == pytest.approx(4 / 12)
    assert not all_agree([1, -1, 1])
    # with only one direction of rejection, R2 equals the two-valued Equation (1)
    assert r2([1, 1, 1, 0, 0, 0, 0, 0, 0, 0]) == pytest.approx(r2_from_counts(7, 10))


def test_normalized():
    np.testing.assert_allclose(normalized([0.5, 0.75, 1.0]), [0.0, 0.5, 1.0])
    assert normalized(0.8) == pytest.approx(0.6)


def test_consistency_and_all_agree():
    e = np.array([[1, 1, 1, 1], [0, 0, 1, 0], [0, 0, 0, 0], [-1, -1, -1, 1]])
    np.testing.assert_array_equal(all_agree(e), [True, False, True, False])
    assert consistency(e) == 0.5
    # leading axes: two conditions of four data sets each
    both = np.stack([e, np.zeros_like(e)])
    np.testing.assert_allclose(consistency(both), [0.5, 1.0])
    assert all_agree([1]) and consistency([[0]]) == 1.0


# ---------------------------------------------------------------------------
# vectorisation and properties


outcome_rows = st.lists(st.sampled_from([-1, 0, 1]), min_size=2, max_size=24)


def _equal_pairs_share(e):
    pairs = list(itertools.combinations(range(len(e)), 2))
    return sum(e[i] == e[j] for i, j in pairs) / len(pairs)


@settings(max_examples=100, deadline=None)
@given(outcome_rows)
def test_r2_is_the_share_of_equal_pairs(e):
    assert r2(e) == pytest.approx(_equal_pairs_share(e))
    # R2 is the mean of R1 over orderings, hence invariant to them
    assert r2(e[::-1]) == pytest.approx(r2(e))
    # flipping every direction keeps all agreements
    assert r2([-v for v in e]) == pytest.approx(r2(e))
    assert 0.0 <= r2(e) <= 1.0


@settings(max_examples=100, deadline=None)
@given(outcome_rows.filter(lambda e: len(e) % 2 == 0))
def test_r1_bounds_and_two_value_consistency(e):
    assert 0.0 <= r1(e) <= 1.0
    two = [abs(v) for v in e]  # accept (0) / reject (1)
    i = two.count(0)
    assert r2(two) == pytest.approx(r2_from_counts(i, len(two)))


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 5), st.integers(1, 6), st.data())
def test_vectorised_equals_loop(n_rows, half, data):
    n = 2 * half
    e = np.array(
        data.draw(
            st.lists(st.lists(st.sampled_from([-1, 0, 1]), min_size=n, max_size=n), min_size=n_rows, max_size=n_rows)
        )
    )
    for f in (r1, r2, all_agree):
        vec = np.atleast_1d(f(e))
        assert vec.shape == (n_rows,)
        np.testing.assert_allclose(vec, [f(row) for row in e])
    assert consistency(e) == pytest.approx(np.mean([all_agree(row) for row in e]))


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 80), st.floats(0.5, 1.0))
def test_r2_variance_equals_exact_enumeration_for_any_n_and_r(n, r):
    # E[(R2(i, n) - r)^2] over i ~ Bin(n, p) with r = p^2 + (1 - p)^2
    p = 0.5 + 0.5 * np.sqrt(2 * r - 1)
    i = np.arange(n + 1)
    w = stats.binom.pmf(i, n, p)
    est = np.asarray(r2_from_counts(i, n))
    assert np.sum(w * est) == pytest.approx(r, abs=1e-12)
    assert r2_variance(r, n) == pytest.approx(np.sum(w * (est - r) ** 2), abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(outcome_rows, st.randoms(use_true_random=False))
def test_r2_is_invariant_to_permuting_the_repetitions(e, rnd):
    shuffled = list(e)
    rnd.shuffle(shuffled)
    assert r2(shuffled) == pytest.approx(r2(e), abs=1e-12)


@pytest.mark.parametrize("n", [2, 10, 28])
@pytest.mark.parametrize("r", [0.5, 0.7, 0.9, 0.99])
def test_r1_and_r2_are_unbiased_in_simulation(n, r):
    # each of n repetitions accepts independently with probability p (Bouckaert's model);
    # the mean over m simulated experiments must be within 4 standard errors of r, the
    # standard error taken from the variance formulas, and the sample variances must agree
    # with them (chi-square-like spread: 10% at m = 40000)
    m = 40000
    p = 0.5 + 0.5 * np.sqrt(2 * r - 1)
    rng = np.random.default_rng(int(1000 * r) + n)
    e = (rng.random((m, n)) >= p).astype(float)  # 0 = accept, 1 = reject
    for estimator, variance in ((r1, r1_variance), (r2, r2_variance)):
        est = np.asarray(estimator(e))
        v = variance(r, n)
        assert abs(est.mean() - r) <= 4 * np.sqrt(v / m) + 1e-12
        if v > 0:
            assert est.var(ddof=1) == pytest.approx(v, rel=0.1)


def test_variances_vectorise_over_r_and_n():
    r = np.array([0.6, 0.8, 0.9])
    n = np.array([[10], [28]])
    got = r2_variance(r, n)
    assert got.shape == (2, 3)
    assert got[1, 1] == pytest.approx(r2_variance(0.8, 28))
    assert r1_variance(r, 10).shape == (3,)


# ---------------------------------------------------------------------------
# invalid input names the argument


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: r1([1, 0, 1]), "outcomes"),
        (lambda: r1([1]), "outcomes"),
        (lambda: r2([1]), "outcomes"),
        (lambda: r2([1, 2]), "outcomes"),
        (lambda: r2([0.5, 0]), "outcomes"),
        (lambda: r2([np.nan, 0]), "outcomes"),
        (lambda: all_agree(5), "outcomes"),
        (lambda: consistency([1, 1, 0]), "outcomes"),
        (lambda: r2_from_counts(11, 10), "n_accept"),
        (lambda: r2_from_counts(-1, 10), "n_accept"),
        (lambda: r2_from_counts(1, 1), "n"),
        (lambda: r2_from_counts(1.5, 10), "n_accept"),
        (lambda: r1_variance(0.8, 7), "n"),
        (lambda: r1_variance(0.4, 10), "r"),
        (lambda: r2_variance(1.1, 10), "r"),
        (lambda: r2_variance(0.8, 1), "n"),
        (lambda: normalized("x"), "r"),
    ],
)
def test_invalid_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        call()


def test_r2_from_tallies_equals_r2_of_any_outcomes_with_those_tallies():
    from simstudy.statistics.replicability import r2_from_tallies

    outcomes = np.array([1, 1, 1, -1, -1, 0, 0, 0, 0, 0])
    assert r2_from_tallies([3, 2, 5]) == pytest.approx(r2(outcomes))
    assert np.allclose(r2_from_tallies([[9, 1], [5, 5]]), r2_from_counts(np.array([9, 5]), 10))
    with pytest.raises(ValueError, match="tallies"):
        r2_from_tallies([1, 0])
