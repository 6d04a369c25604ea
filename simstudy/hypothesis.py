"""Significance tests for paired comparisons of two classifiers.

Every test takes samples whose **last axis** is the sample axis and is vectorised
over all leading axes, so ``paired_t_test(x)`` with ``x.shape == (10000, 10)``
runs 10000 tests in one call.  Each returns a :class:`SignificanceResult`.

Sign convention: a sample value is "A minus B" (e.g. accuracy of A minus
accuracy of B).  ``decision(alpha)`` is +1 when A is significantly better, -1
when B is, 0 otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from ._validation import as_sample, check_alpha

__all__ = ["SignificanceResult", "paired_t_test"]


@dataclass(frozen=True)
class SignificanceResult:
    """Outcome of a (vectorised) two-sided significance test.

    Attributes
    ----------
    statistic : ndarray or float
        The test statistic, oriented so that positive means "A better".
    pvalue : ndarray or float
        Two-sided p-value in [0, 1].
    df : ndarray, float or None
        Degrees of freedom where the reference distribution has them.
    direction : ndarray or float
        Sign of the estimated effect (+1 A better, -1 B better, 0 none): the
        direction a rejection points to.
    """

    statistic: np.ndarray | float
    pvalue: np.ndarray | float
    df: np.ndarray | float | None
    direction: np.ndarray | float

    def decision(self, alpha: float = 0.05):
        """+1 / -1 / 0 per test: reject when ``pvalue <= alpha``, in the effect's direction.

        ``<=`` makes a discrete test's size at most ``alpha`` (the usual
        Neyman-Pearson convention); for continuous tests the tie has probability 0.
        """
        alpha = check_alpha(alpha)
        out = np.where(np.asarray(self.pvalue) <= alpha, np.sign(self.direction), 0).astype(np.int8)
        return out if out.ndim else int(out)


def _scalar(a):
    a = np.asarray(a)
    return a.item() if a.ndim == 0 else a


def _result(statistic, pvalue, df, direction) -> SignificanceResult:
    return SignificanceResult(
        statistic=_scalar(statistic),
        pvalue=_scalar(np.clip(pvalue, 0.0, 1.0)),
        df=None if df is None else _scalar(df),
        direction=_scalar(np.sign(direction)),
    )


def _t_two_sided(t, df):
    """Two-sided p-value of Student's t, exact in the tails (via the regularised beta)."""
    t = np.asarray(t, dtype=float)
    df = np.broadcast_to(np.asarray(df, dtype=float), t.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = special.betainc(df / 2.0, 0.5, df / (df + t * t))
    return np.where(np.isinf(t), 0.0, p)


def _t_from_mean_var(mean, var, n_eff_factor, df):
    """t = mean / sqrt(var * factor), with the zero-variance convention.

    Zero variance: if the mean is also 0 the test has no evidence (t = 0,
    p = 1); otherwise every difference is the same non-zero value, the
    evidence is conclusive (t = +-inf, p = 0).
    """
    scale = np.sqrt(var * n_eff_factor)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(scale > 0, mean / np.where(scale > 0, scale, 1.0), np.sign(mean) * np.inf)
    t = np.where((scale == 0) & (mean == 0), 0.0, t)
    return t, _t_two_sided(t, df)


def paired_t_test(x) -> SignificanceResult:
    """Paired t-test of H0: mean difference 0 (Student 1908), df = n - 1.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Paired differences A - B; n >= 2.

    Notes
    -----
    Zero variance with non-zero mean gives ``statistic = +-inf`` and ``pvalue = 0``;
    all differences zero gives ``statistic = 0`` and ``pvalue = 1``.
    Matches ``scipy.stats.ttest_1samp(x, 0, axis=-1)`` elsewhere.
    """
    x = as_sample(x, "x", min_n=2)
    n = x.shape[-1]
    mean = x.mean(axis=-1)
    var = x.var(axis=-1, ddof=1)
    # variance of exactly-equal values can round to a tiny positive number
    var = np.where(np.ptp(x, axis=-1) == 0, 0.0, var)
    t, p = _t_from_mean_var(mean, var, 1.0 / n, n - 1)
    return _result(t, p, np.full(np.shape(t), n - 1.0), mean)
