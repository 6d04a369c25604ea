"""Bad or extreme input to the statistics: a clear ValueError or a documented answer, never a wrong number."""

import math

import numpy as np
import pytest
from scipy import stats

from simstudy.statistics import replication as rp

# ---------------------------------------------------------------- replication probability


def test_t_model_from_tiny_p_converts_where_scipy_isf_fails():
    # stats.t.isf(5e-301, 9) is -inf; the statistic comes from the inverse beta instead
    r = rp.t_model_from_p(1e-300, 9)
    assert math.isfinite(r.parameter) and r.parameter > 1e33
    assert 2 * stats.t.sf(r.parameter, 9) == pytest.approx(1e-300, rel=1e-6)
    assert r.pvalue == pytest.approx(1e-300, rel=1e-6)


def test_t_model_from_p_unchanged_where_scipy_isf_works():
    p = np.array([0.5, 0.05, 0.00281, 1e-10, 1e-200])
    r = rp.t_model_from_p(p, 9)
    np.testing.assert_array_equal(r.parameter, stats.t.isf(p / 2, 9))


def test_t_model_from_subnormal_p_is_refused_naming_p():
    with pytest.raises(ValueError, match=r"^p: .*too small"):
        rp.t_model_from_p(1e-320, 9)


def test_t_model_huge_statistic_gives_nan_not_a_number_made_up():
    r = rp.t_model(1e6, 9)
    assert r.estimate == 1.0
    assert math.isnan(r.low) and math.isnan(r.parameter_low)


# ---------------------------------------------------------------- significance tests

from simstudy import _validation  # noqa: E402
from simstudy.statistics import significance as hy

CV = np.array([[0.01, 0.03, -0.02, 0.04, 0.00], [0.02, 0.01, 0.05, -0.01, 0.03]])


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, np.float64("nan")])
@pytest.mark.parametrize(
    "test", [hy.corrected_repeated_cv_t_test, lambda x, **kw: hy.corrected_resampled_t_test(x.ravel(), **kw)]
)
@pytest.mark.parametrize("which", ["n_train", "n_test"])
def test_non_finite_split_sizes_are_refused_naming_the_argument(test, which, bad):
    sizes = {"n_train": 90, "n_test": 10, which: bad}
    with pytest.raises(ValueError, match=rf"^{which}: must be finite"):
        test(CV, **sizes)


def test_split_size_ratio_that_overflows_is_refused():
    with pytest.raises(ValueError, match=r"^n_train: .*overflows"):
        hy.corrected_repeated_cv_t_test(CV, n_train=1e-300, n_test=1e300)


def test_check_positive_refuses_nan_and_inf_but_takes_big_integers():
    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError, match="^size: must be finite"):
            _validation.check_positive(bad, "size")
    assert _validation.check_positive(10**400, "size", integer=True) == 10**400


@pytest.mark.parametrize(
    "test",
    [
        hy.paired_t_test,
        hy.resampled_t_test,
        lambda x: hy.corrected_resampled_t_test(x, n_train=90, n_test=10),
        lambda x: hy.repeated_cv_t_test(x.reshape(2, 5)),
        lambda x: hy.corrected_repeated_cv_t_test(x.reshape(2, 5), n_train=90, n_test=10),
        lambda x: hy.five_by_two_cv_t_test(x.reshape(5, 2)),
        lambda x: hy.five_by_two_cv_f_test(x.reshape(5, 2)),
    ],
)
@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1e300, 2.0**-1070])
def test_tiny_or_huge_differences_give_the_statistic_of_ordinary_units(test, scale):
    # the statistics are scale-free: 1e-300 times a sample must not underflow to t = inf, p = 0
    x = CV.ravel() * 100
    ref = test(x)
    res = test(x * scale) if scale > 1e-310 else test(np.round(x) * scale)
    if scale < 1e-310:  # subnormal: only a few bits are left, compare with the same rounded sample
        ref = test(np.round(x))
    assert np.isfinite(res.statistic) and res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.direction == ref.direction


def test_rescaling_keeps_every_row_of_a_batch_separate():
    x = np.stack([CV.ravel(), CV.ravel() * 1e-300, CV.ravel() * 1e300, np.zeros(10), np.full(10, 1e-300)])
    res = hy.paired_t_test(x)
    assert res.statistic[:3] == pytest.approx([res.statistic[0]] * 3, rel=1e-12)
    assert res.statistic[3] == 0 and res.pvalue[3] == 1  # all zero: no evidence
    assert res.statistic[4] == np.inf and res.pvalue[4] == 0  # constant non-zero: conclusive


@pytest.mark.parametrize("name", ["_flat_t", "five_by_two"])
def test_fallback_variance_agrees_with_the_ordinary_one(monkeypatch, name):
    # force every test through the rescaled-deviation path and compare with the ordinary path
    rng = np.random.default_rng(1)
    x = rng.normal(0.01, 0.03, size=(50, 10))
    if name == "_flat_t":
        ref = hy.corrected_repeated_cv_t_test(x.reshape(50, 2, 5), n_train=90, n_test=10)
        monkeypatch.setattr(hy, "_VAR_SAFE_LOW", np.inf)
        res = hy.corrected_repeated_cv_t_test(x.reshape(50, 2, 5), n_train=90, n_test=10)
        pairs = [(res, ref)]
    else:
        ref_t, ref_f = hy.five_by_two_cv_t_test(x.reshape(50, 5, 2)), hy.five_by_two_cv_f_test(x.reshape(50, 5, 2))
        monkeypatch.setattr(hy, "_VAR_SAFE_LOW", np.inf)
        pairs = [
            (hy.five_by_two_cv_t_test(x.reshape(50, 5, 2)), ref_t),
            (hy.five_by_two_cv_f_test(x.reshape(50, 5, 2)), ref_f),
        ]
    for res, ref in pairs:
        np.testing.assert_allclose(res.statistic, ref.statistic, rtol=1e-12)
        np.testing.assert_allclose(res.pvalue, ref.pvalue, rtol=1e-10)


def test_mcnemar_huge_counts_do_not_overflow_the_statistic():
    res = hy.mcnemar_test(1e200, 3e200, continuity=False)
    assert res.statistic == pytest.approx(1e200, rel=1e-12) and res.pvalue == 0
    with pytest.raises(ValueError, match="^n01: "):
        hy.mcnemar_test(1.5e308, 1.5e308)


def test_proportions_z_underflowing_variance_gives_the_true_z():
    # variance 3e-400 underflows to 0; z is 1e-200 / sqrt(3e-400) = 0.577
    res = hy.proportions_z_test(1e-200, 1e200, 2e-200, 1e200)
    assert res.statistic == pytest.approx(1 / math.sqrt(3), rel=1e-12)
    # an overflowing variance (tiny sizes) gives z near 0, not exactly 0 by accident
    assert 0 < hy.proportions_z_test(0.2, 1e-320, 0.3, 1e-320).statistic < 1e-150
    # the zero-variance convention stays
    assert hy.proportions_z_test(0, 100, 1, 100).statistic == np.inf
    assert hy.proportions_z_test(1, 100, 1, 100).statistic == 0


@pytest.mark.parametrize(
    "bad,what", [(np.array([1 + 2j, 0.5, 0.1]), "complex"), (["0.1", "0.2", "0.3"], "text"), ("0.1", "text")]
)
def test_complex_or_text_samples_are_refused(bad, what):
    with pytest.raises(ValueError, match=rf"^x: expected .*{what}"):
        hy.paired_t_test(bad)
