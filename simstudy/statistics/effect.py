"""Effect size of a paired comparison on one data set: the mean difference with its corrected interval.

The interval is the one the corrected t-tests of
:mod:`simstudy.statistics.significance` invert: with ``n`` per-split
differences ``A - B`` (``n = k r`` for ``r`` runs of ``k``-fold cross-validation,
``n`` random splits for the resampled design), sample variance ``s^2``
(ddof 1) and the Nadeau-Bengio (2003) variance factor

    ``f = 1/n + n_test/n_train``,

the ``level`` interval is ``mean -+ t_{n-1, (1+level)/2} sqrt(f s^2)``.  It is
the same standard error and the same degrees of freedom as
:func:`~simstudy.statistics.significance.corrected_resampled_t_test` and
:func:`~simstudy.statistics.significance.corrected_repeated_cv_t_test`
(Bouckaert and Frank 2004), so the interval excludes 0 exactly when the
two-sided corrected test rejects at ``alpha = 1 - level`` (up to the rounding
of a p-value that lies within about 1e-12 of alpha).

Sign convention: a value is "A minus B"; a positive mean favours A.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simstudy._lazy import lazy_module
from simstudy._validation import as_sample, check_alpha
from simstudy.statistics.significance import _cv_matrix, _pow2_scale, _split_sizes

stats = lazy_module("scipy.stats")

__all__ = ["DifferenceInterval", "corrected_difference_interval", "corrected_cv_difference_interval"]


@dataclass(frozen=True)
class DifferenceInterval:
    """Mean paired difference with its corrected two-sided confidence interval.

    Attributes
    ----------
    mean : ndarray or float
        Mean of the differences A - B (positive favours A).
    low, high : ndarray or float
        Ends of the ``level`` interval; both equal ``mean`` when every
        difference is the same.
    se : ndarray or float
        Corrected standard error ``sqrt((1/n + n_test/n_train) s^2)``.
    df : float
        Degrees of freedom of the t quantile, ``n - 1``.
    level : float
        Confidence level.
    """

    mean: np.ndarray | float
    low: np.ndarray | float
    high: np.ndarray | float
    se: np.ndarray | float
    df: float
    level: float

    def excludes_zero(self):
        """+1 when the interval lies above 0 (A better), -1 below 0 (B better), 0 when it covers 0."""
        out = np.where(np.asarray(self.low) > 0, 1, np.where(np.asarray(self.high) < 0, -1, 0)).astype(np.int8)
        return out if out.ndim else int(out)


def _scalar(a):
    a = np.asarray(a)
    return a.item() if a.ndim == 0 else a


def _mean_and_se(x: np.ndarray, factor: float) -> tuple[np.ndarray, np.ndarray]:
    """Mean and ``sqrt(factor s^2)`` over the last axis, in the units of ``x``.

    Values whose squares would under- or overflow are scaled by a power of
    two first (:func:`simstudy.statistics.significance._pow2_scale`, the guard
    the tests use) and the results scaled back; ordinary values take the
    ordinary computation.  Equal values have exactly zero spread.
    """
    xs, e = _pow2_scale(x, -1)
    mean = xs.mean(axis=-1)
    var = np.where(np.ptp(xs, axis=-1) == 0, 0.0, xs.var(axis=-1, ddof=1))
    se = np.sqrt(var * factor)
    e = e[..., 0]
    return np.ldexp(mean, e), np.ldexp(se, e)


def _interval(x: np.ndarray, extra_factor: float, level: float) -> DifferenceInterval:
    n = x.shape[-1]
    mean, se = _mean_and_se(x, 1.0 / n + extra_factor)
    q = stats.t.ppf(0.5 + level / 2.0, n - 1)
    with np.errstate(over="ignore"):
        low, high = mean - q * se, mean + q * se
    return DifferenceInterval(
        mean=_scalar(mean), low=_scalar(low), high=_scalar(high), se=_scalar(se), df=float(n - 1), level=level
    )


def corrected_difference_interval(x, *, n_train, n_test, level: float = 0.95) -> DifferenceInterval:
    """Mean difference over random train/test splits with the Nadeau-Bengio corrected interval.

    The interval inverted by
    :func:`~simstudy.statistics.significance.corrected_resampled_t_test`
    (Nadeau and Bengio 2003): ``mean -+ t_{n-1} sqrt((1/n + n_test/n_train) s^2)``.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Differences A - B (e.g. accuracy of A minus accuracy of B) on ``n``
        splits; ``n >= 2``.  Leading axes are independent comparisons.
    n_train, n_test : positive number
        Sizes of each training and test set.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    DifferenceInterval
        Fields with the leading shape of ``x``.

    Notes
    -----
    The interval excludes 0 exactly when the two-sided corrected resampled
    t-test rejects at ``alpha = 1 - level``: same mean, same standard error,
    same degrees of freedom.  The correction only widens the interval; it
    does not make it exact (Bouckaert and Frank 2004 measured the tests' size).
    """
    level = check_alpha(level, "level")
    x = as_sample(x, "x", min_n=2)
    # Nadeau-Bengio correction for the overlap of the training sets
    return _interval(x, _split_sizes(n_train, n_test), level)


def corrected_cv_difference_interval(x, *, n_train, n_test, level: float = 0.95) -> DifferenceInterval:
    """Mean difference over an r-times repeated k-fold cv with the corrected interval.

    The interval inverted by
    :func:`~simstudy.statistics.significance.corrected_repeated_cv_t_test`
    (Bouckaert and Frank 2004): all ``k r`` values,
    ``mean -+ t_{kr-1} sqrt((1/(k r) + n_test/n_train) s^2)``.

    Parameters
    ----------
    x : array_like, shape (..., n_runs, n_folds)
        Differences A - B per run and fold; ``n_runs * n_folds >= 2``.
    n_train, n_test : positive number
        Sizes of each training and test set (``n_test / n_train = 1/(k-1)`` for k-fold cv).
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    DifferenceInterval
        Fields with the leading shape of ``x`` without its last two axes.
    """
    level = check_alpha(level, "level")
    x = _cv_matrix(x, "x")
    # Nadeau-Bengio correction for the overlap of the training sets
    return _interval(x.reshape(x.shape[:-2] + (-1,)), _split_sizes(n_train, n_test), level)
