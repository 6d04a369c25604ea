"""simstudy.statistics._distributions gives scipy.stats' numbers to the last bit, on every edge the models can reach."""

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

from simstudy.statistics import _distributions as d

Q = np.array([0.0, 1e-300, 1e-12, 0.0025, 0.025, 0.3, 0.5, 0.7, 0.975, 1 - 1e-12, 1.0, 1.5, -0.1, np.nan])
X = np.array([-np.inf, -40.0, -3.0, -1.0, -0.0, 0.0, 1e-300, 0.2, 1.0, 1.96, 2.262, 9.5, 60.0, 1e5, np.inf, np.nan])
DF = np.array([0.5, 1.0, 2.0, 9.0, 19.0, 99.0, 1e6, np.inf, 0.0, -1.0, np.nan])
SHAPES = np.array([0.5, 1.0, 2.0, 3.5, 15.0, 30.0, 0.0, -1.0, np.nan])
NC = np.array([-5.0, -1.0, 0.0, 0.5, 2.437, 4.1, 12.0, 40.0, np.nan])
N = np.array([0, 1, 2, 5, 19, 20, 44, 100])
P = np.array([0.0, 1e-300, 0.05, 0.5, 0.5365, 0.95, 1.0, 1.1, -0.2, np.nan])
K = np.array([-3, -1, 0, 1, 2, 4.5, 10, 14, 15, 19, 20, 28, 29, 44, 45, 99, 100, 101])


def same(ours, theirs):
    """Equal values (NaN equal to NaN, the sign of zero included), the same shape and the same scalar-ness."""
    assert np.shape(ours) == np.shape(theirs)
    assert isinstance(ours, np.ndarray) == isinstance(theirs, np.ndarray)
    a, b = np.asarray(ours, float), np.asarray(theirs, float)
    assert np.array_equal(a, b, equal_nan=True), np.argwhere(~((a == b) | (np.isnan(a) & np.isnan(b))))[:5]
    assert np.array_equal(np.signbit(a), np.signbit(b))


def grid(*axes):
    """The axes as arrays that broadcast to every combination."""
    return [np.asarray(a).reshape((-1,) + (1,) * (len(axes) - 1 - i)) for i, a in enumerate(axes)]


@pytest.mark.parametrize(
    "name, dist, method, axes",
    [
        ("norm_sf", stats.norm, "sf", (X,)),
        ("norm_isf", stats.norm, "isf", (Q,)),
        ("t_sf", stats.t, "sf", (X, DF)),
        ("t_isf", stats.t, "isf", (Q, DF)),
        ("nct_ppf", stats.nct, "ppf", (Q, DF[DF < 1e5], NC)),
        ("nct_sf", stats.nct, "sf", (X, DF[DF < 1e5], NC)),
        ("chi2_isf", stats.chi2, "isf", (Q, DF)),
        ("chi2_ppf", stats.chi2, "ppf", (Q, DF)),
        ("beta_ppf", stats.beta, "ppf", (Q, SHAPES, SHAPES)),
        ("beta_pdf", stats.beta, "pdf", (np.r_[X, 0.5, 0.999, 1 - 1e-16], SHAPES, SHAPES)),
        ("binom_sf", stats.binom, "sf", (K, N, P)),
        ("binom_cdf", stats.binom, "cdf", (K, N, P)),
        ("binom_isf", stats.binom, "isf", (Q, N, P)),
    ],
)
def test_identical_to_scipy_stats(name, dist, method, axes):
    ours, theirs = getattr(d, name), getattr(dist, method)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # boost's kernels warn about the edges, in both paths alike
        same(ours(*grid(*axes)), theirs(*grid(*axes)))
        # scalars stay scalars, and every single combination agrees on its own
        for point in itertools.islice(itertools.product(*axes), 0, None, 7):
            same(ours(*point), theirs(*point))


def test_without_scipys_private_kernels_the_functions_are_scipy_stats(monkeypatch):
    monkeypatch.setattr(d, "_kernels", {})  # as on a scipy release without them
    same(d.nct_sf(2.262, 9.0, np.array([0.5, 2.0])), stats.nct.sf(2.262, 9.0, np.array([0.5, 2.0])))
    same(d.binom_isf(0.025, 20, 0.5), stats.binom.isf(0.025, 20, 0.5))
