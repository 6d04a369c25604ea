"""Numeric helpers of C4.5 as Weka 3.6 computes them.

Shared by :class:`simstudy.pipeline.learners.j48.J48` and its compiled kernel
(:mod:`simstudy.pipeline.learners._j48_nominal`), which tabulates :func:`xlog2x` and
:func:`add_errs` once per training-set size: both must compute exactly the same
numbers, so both take them from here.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri

__all__ = ["SMALL", "add_errs", "xlog2x", "gr", "sm", "eq", "sm_or_eq", "gr_or_eq"]

SMALL = 1e-6  # Weka's Utils.SMALL: J48 makes every comparison with this tolerance
_LOG2 = math.log(2.0)


def gr(a, b):
    """Weka's ``Utils.gr``: ``a`` greater than ``b`` by more than :data:`SMALL`."""
    return a - b > SMALL


def sm(a, b):
    """Weka's ``Utils.sm``: ``a`` smaller than ``b`` by more than :data:`SMALL`."""
    return a - b < -SMALL


def eq(a, b):
    """Weka's ``Utils.eq``: ``a`` and ``b`` within :data:`SMALL` of each other."""
    return a == b or (a - b < SMALL and b - a < SMALL)


def sm_or_eq(a, b):
    """Weka's ``Utils.smOrEq``."""
    return a - b < SMALL


def gr_or_eq(a, b):
    """Weka's ``Utils.grOrEq``."""
    return b - a < SMALL


def add_errs(n, e, confidence=0.25):
    """Extra errors of C4.5's pessimistic estimate (Weka's ``Stats.addErrs``).

    Parameters
    ----------
    n : float
        Weight of the instances at a leaf.
    e : float
        Weight of the misclassified ones.
    confidence : float
        The confidence factor ``CF``, rounded to single precision as in Weka; the
        upper limit of the one-sided binomial confidence interval at level ``1 - CF``
        is used as the error rate.

    Returns
    -------
    float
        ``n * U_CF(e, n) - e``.  For ``e == 0`` the exact limit
        ``n * (1 - CF ** (1 / n))``; for ``0 < e < 1`` linear interpolation between
        ``e = 0`` and ``e = 1``; for ``e + 0.5 >= n`` the remainder ``n - e``;
        otherwise the normal approximation with continuity correction
        (``f = (e + 0.5) / n``) and ``z`` the ``1 - CF`` quantile.  Confidence
        factors above 0.5 give 0, as in Weka.
    """
    cf = np.float32(confidence)  # Weka keeps CF as a Java float, and 1 - CF is a float subtraction
    if cf > 0.5:
        return 0.0
    if e < 1:
        base = n * (1.0 - math.pow(float(cf), 1.0 / n))
        if e == 0:
            return base
        return base + e * (add_errs(n, 1.0, cf) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = float(ndtri(float(np.float32(1.0) - cf)))
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
    return r * n - e


def xlog2x(a):
    """Weka's ``EntropyBasedSplitCrit.logFunc`` elementwise: ``a log2 a``, 0 below 1e-6.

    Parameters
    ----------
    a : array_like of float

    Returns
    -------
    ndarray of float
    """
    a = np.asarray(a, dtype=float)
    big = a >= 1e-6
    out = np.log(a, out=np.zeros_like(a), where=big)
    return np.multiply(a, out, out=out) / _LOG2
