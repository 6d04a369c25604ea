"""Bad or extreme input to the statistics: a clear ValueError or a documented answer, never a wrong number."""

import math

import numpy as np
import pytest
from scipy import stats

from simstudy import replication as rp


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
