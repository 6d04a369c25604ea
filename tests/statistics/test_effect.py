"""The mean difference with its corrected interval: the interval the corrected t-tests invert."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from simstudy.statistics.effect import corrected_cv_difference_interval, corrected_difference_interval
from simstudy.statistics.significance import corrected_repeated_cv_t_test, corrected_resampled_t_test


def test_hand_computed_interval():
    # x = (0.01, 0.03, -0.01, 0.02, 0.05): mean 0.02, s^2 = 0.00050, factor 1/5 + 1/9
    x = np.array([0.01, 0.03, -0.01, 0.02, 0.05])
    res = corrected_difference_interval(x, n_train=90, n_test=10, level=0.95)
    se = np.sqrt((1 / 5 + 10 / 90) * 0.0005)
    q = stats.t.ppf(0.975, 4)  # 2.776445
    assert res.mean == pytest.approx(0.02, abs=1e-15)
    assert res.se == pytest.approx(se, rel=1e-13)
    assert (res.low, res.high) == pytest.approx((0.02 - q * se, 0.02 + q * se), rel=1e-13)
    assert res.df == 4.0 and res.level == 0.95


@pytest.mark.parametrize("level", [0.90, 0.95, 0.99])
def test_interval_excludes_zero_exactly_when_the_corrected_resampled_test_rejects(level):
    rng = np.random.default_rng(38)
    # effects spread so that about half of the 4000 samples reject
    x = rng.normal(rng.normal(0, 0.06, (4000, 1)), 0.03, (4000, 10))
    res = corrected_difference_interval(x, n_train=600, n_test=400, level=level)
    test = corrected_resampled_t_test(x, n_train=600, n_test=400)
    decided = test.decision(1 - level)
    # a p-value within 1e-12 of alpha could round either way; none is that close here
    assert np.min(np.abs(test.pvalue - (1 - level))) > 1e-12
    np.testing.assert_array_equal(res.excludes_zero(), decided)
    assert 0.1 < np.mean(decided != 0) < 0.9


def test_interval_excludes_zero_exactly_when_the_corrected_repeated_cv_test_rejects():
    rng = np.random.default_rng(2004)
    x = rng.normal(rng.normal(0, 0.01, (3000, 1, 1)), 0.04, (3000, 10, 10))
    res = corrected_cv_difference_interval(x, n_train=900, n_test=100, level=0.95)
    test = corrected_repeated_cv_t_test(x, n_train=900, n_test=100)
    np.testing.assert_array_equal(res.excludes_zero(), test.decision(0.05))
    # the same standard error: the test's t is mean / se
    np.testing.assert_allclose(test.statistic, res.mean / res.se, rtol=1e-12)
    assert res.df == 99.0


def test_cv_interval_is_the_flat_interval_of_all_values():
    rng = np.random.default_rng(1)
    x = rng.normal(0.01, 0.02, (3, 10))
    a = corrected_cv_difference_interval(x, n_train=180, n_test=20)
    b = corrected_difference_interval(x.ravel(), n_train=180, n_test=20)
    assert (a.mean, a.low, a.high) == pytest.approx((b.mean, b.low, b.high), rel=1e-14)


def test_zero_spread_gives_a_point_interval_and_matches_the_test_convention():
    res = corrected_difference_interval([0.02] * 5, n_train=9, n_test=1)
    assert res.low == res.high == pytest.approx(0.02)
    assert res.excludes_zero() == 1 == corrected_resampled_t_test([0.02] * 5, n_train=9, n_test=1).decision()
    zero = corrected_difference_interval([0.0] * 5, n_train=9, n_test=1)
    assert zero.excludes_zero() == 0 == corrected_resampled_t_test([0.0] * 5, n_train=9, n_test=1).decision()


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_extreme_scales_give_the_interval_of_ordinary_units(scale):
    x = np.array([0.01, 0.03, -0.01, 0.02, 0.05])
    ref = corrected_difference_interval(x, n_train=90, n_test=10)
    res = corrected_difference_interval(x * scale, n_train=90, n_test=10)
    assert res.low / scale == pytest.approx(ref.low, rel=1e-12)
    assert res.high / scale == pytest.approx(ref.high, rel=1e-12)


def test_correction_only_widens_the_interval():
    rng = np.random.default_rng(3)
    x = rng.normal(0, 1, 30)
    narrow = corrected_difference_interval(x, n_train=1e12, n_test=1e-12)
    wide = corrected_difference_interval(x, n_train=2, n_test=1)
    assert wide.high - wide.low > narrow.high - narrow.low
    # without the correction it is the ordinary t interval of the mean
    lo, hi = stats.t.interval(0.95, 29, loc=x.mean(), scale=stats.sem(x))
    assert (narrow.low, narrow.high) == pytest.approx((lo, hi), rel=1e-9)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"x": [0.1], "n_train": 9, "n_test": 1}, "^x:"),
        ({"x": [0.1, np.nan], "n_train": 9, "n_test": 1}, "^x:"),
        ({"x": [0.1, 0.2], "n_train": 0, "n_test": 1}, "^n_train:"),
        ({"x": [0.1, 0.2], "n_train": 9, "n_test": 1, "level": 1.0}, "^level:"),
    ],
)
def test_invalid_input_names_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        corrected_difference_interval(**kwargs)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(-1.0, 1.0, allow_subnormal=False), min_size=2, max_size=30),
    st.sampled_from([(9, 1), (4, 1), (2, 1), (600, 400)]),
    st.sampled_from([0.9, 0.95, 0.99]),
)
def test_interval_and_test_agree_on_any_sample(values, sizes, level):
    x = np.array(values)
    res = corrected_difference_interval(x, n_train=sizes[0], n_test=sizes[1], level=level)
    test = corrected_resampled_t_test(x, n_train=sizes[0], n_test=sizes[1])
    assume(abs(test.pvalue - (1 - level)) > 1e-9)  # a tie with alpha may round either way
    assert res.excludes_zero() == test.decision(1 - level)


def test_resampled_design_stored_as_runs_of_one_fold():
    # assess stores the resampled design as r runs of one fold: the cv form gives the resampled interval
    rng = np.random.default_rng(10)
    x = rng.normal(0.01, 0.02, (10, 1))
    cv = corrected_cv_difference_interval(x, n_train=120, n_test=60)
    flat = corrected_difference_interval(x[:, 0], n_train=120, n_test=60)
    assert (cv.low, cv.high) == pytest.approx((flat.low, flat.high), rel=1e-14)
    test = corrected_resampled_t_test(x[:, 0], n_train=120, n_test=60)
    assert cv.excludes_zero() == test.decision(0.05)
