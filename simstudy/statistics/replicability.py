"""Replicability of an experiment's outcome (Bouckaert 2004; Bouckaert and Frank 2004).

An *experiment* is one complete run of a sampling scheme plus a significance
test on one data set; repeating it with new randomisations of the same data
gives outcomes ``e_1, ..., e_n``.  Replicability is the probability that two
such repetitions give the same outcome (Bouckaert 2004, Section 3).

Outcome convention
------------------
An outcome is three-valued, as :meth:`simstudy.statistics.significance.SignificanceResult.decision`
returns it: ``+1`` A significantly better, ``-1`` B significantly better, ``0``
no significant difference.  Two outcomes are *equal* iff they are identical:
a rejection in favour of A and one in favour of B are different outcomes,
although both reject the null hypothesis.  When no experiment ever rejects in
both directions this coincides with the paper's accept/reject comparison.

Shapes
------
Every function on outcomes is vectorised: the repetitions of one experiment lie
on the **last axis**, leading axes index data sets, conditions, etc.
"""

from __future__ import annotations

import numpy as np

from simstudy._validation import as_float_array
from simstudy.errors import InputError

__all__ = [
    "all_agree",
    "consistency",
    "normalized",
    "r1",
    "r1_variance",
    "r2",
    "r2_from_counts",
    "r2_from_tallies",
    "r2_variance",
]


def _outcomes(outcomes, *, min_n: int = 2, min_ndim: int = 1) -> np.ndarray:
    e = as_float_array(outcomes, "outcomes", min_ndim=min_ndim)
    if e.shape[-1] < min_n:
        raise InputError(f"outcomes: the last (repetition) axis needs at least {min_n} outcomes, got shape {e.shape}")
    if not np.isin(e, (-1.0, 0.0, 1.0)).all():
        raise InputError("outcomes: values must be -1 (B better), 0 (no difference) or +1 (A better)")
    return e


def _counts(value, name: str, *, min_value: int) -> np.ndarray:
    arr = as_float_array(value, name)
    if np.isinf(arr).any() or (arr != np.round(arr)).any() or (arr < min_value).any():
        raise InputError(f"{name}: must hold whole numbers >= {min_value}")
    return arr


def _replicability(r, name: str = "r") -> np.ndarray:
    arr = as_float_array(r, name)
    if ((arr < 0.5) | (arr > 1.0)).any():
        raise InputError(f"{name}: replicability must lie in [0.5, 1] (the two-outcome model)")
    return arr


def _scalar(a):
    a = np.asarray(a)
    return a.item() if a.ndim == 0 else a


def r1(outcomes):
    """Replicability estimator R1: the share of equal consecutive pairs.

    ``R1(e) = (1 / (n/2)) sum_{i=1}^{n/2} I(e_{2i} = e_{2i-1})``
    (Bouckaert 2004, Section 3.1).

    Parameters
    ----------
    outcomes : array_like, shape (..., n)
        Outcomes in {-1, 0, +1} of n repetitions, n even and >= 2.

    Returns
    -------
    float or ndarray, shape (...)
        The estimate in [0, 1].
    """
    e = _outcomes(outcomes)
    n = e.shape[-1]
    if n % 2:
        raise InputError(f"outcomes: R1 needs an even number of repetitions on the last axis, got {n}")
    same = e[..., 0::2] == e[..., 1::2]
    return _scalar(same.mean(axis=-1))


def r2(outcomes):
    """Replicability estimator R2: the share of equal pairs among all n(n-1)/2 pairs.

    With ``c_v`` repetitions giving outcome ``v``,
    ``R2 = sum_v c_v (c_v - 1) / (n (n - 1))``; with two outcome values this
    is Bouckaert's Equation (1), see :func:`r2_from_counts`.

    Parameters
    ----------
    outcomes : array_like, shape (..., n)
        Outcomes in {-1, 0, +1} of n >= 2 repetitions.

    Returns
    -------
    float or ndarray, shape (...)
        The estimate in [0, 1] (at least about 1/2 with two outcome values,
        lower when rejections go both ways).
    """
    e = _outcomes(outcomes)
    n = e.shape[-1]
    equal_pairs = sum(c * (c - 1.0) for c in ((e == v).sum(axis=-1) for v in (-1.0, 0.0, 1.0)))
    return _scalar(equal_pairs / (n * (n - 1.0)))


def r2_from_counts(n_accept, n):
    """R2 from the number of accepting repetitions (Bouckaert 2004, Equation 1).

    ``R2(i, n) = [i (i - 1) + (n - i)(n - i - 1)] / [n (n - 1)]``.

    Parameters
    ----------
    n_accept : array_like of int
        ``i``, the number of the n repetitions that accept H0 (0 <= i <= n).
    n : int or array_like of int
        Number of repetitions (>= 2), broadcast against ``n_accept``.

    Returns
    -------
    float or ndarray
        As :func:`r2` for outcomes with only two values, e.g. Table 2 of the
        paper: 9 accepts out of 10 gives 0.8.
    """
    i = _counts(n_accept, "n_accept", min_value=0)
    m = _counts(n, "n", min_value=2)
    if (i > m).any():
        raise InputError("n_accept: must not exceed n")
    return _scalar((i * (i - 1.0) + (m - i) * (m - i - 1.0)) / (m * (m - 1.0)))


def r2_from_tallies(tallies):
    """R2 from how many repetitions gave each outcome: ``sum_c t_c (t_c - 1) / (n (n - 1))``.

    Parameters
    ----------
    tallies : array_like, shape (..., n_outcomes)
        Per group, the number of repetitions with each outcome (e.g. A better,
        B better, no difference); ``n`` is their sum (>= 2).

    Returns
    -------
    float or ndarray
        :func:`r2` of any outcomes with these tallies; with two outcomes
        (accept, reject) it is :func:`r2_from_counts`.
    """
    t = np.asarray(tallies, dtype=float)
    if t.ndim < 1 or (t < 0).any() or (t != np.round(t)).any():
        raise InputError("tallies: expected non-negative whole counts, outcomes along the last axis")
    n = t.sum(axis=-1)
    if (n < 2).any():
        raise InputError("tallies: R2 needs at least 2 repetitions per group")
    return _scalar((t * (t - 1.0)).sum(axis=-1) / (n * (n - 1.0)))


def r1_variance(r, n):
    """Variance of R1 (Bouckaert 2004, Lemma 3.1): ``(r - r^2) / (n/2)``.

    Parameters
    ----------
    r : array_like
        True replicability in [0.5, 1].
    n : int or array_like of int
        Number of repetitions, even and >= 2; broadcast against ``r``.
    """
    r = _replicability(r)
    m = _counts(n, "n", min_value=2)
    if (m % 2 != 0).any():
        raise InputError("n: R1 needs an even number of repetitions")
    return _scalar((r - r * r) / (m / 2.0))


def r2_variance(r, n):
    """Variance of R2 under the two-outcome model (Bouckaert 2004, Theorem 3.1).

    ``[2(n-2)(n-3) F(p,4) + (4 - 2(n-3))(n-2) F(p,3) + ((n-2)(n-3) + 2) F(p,2)]
    / [n (n-1)] - r^2`` with ``F(p, x) = p^x + (1-p)^x`` and
    ``p = 1/2 + sqrt(2r - 1)/2``, the probability that one repetition accepts
    (``r = p^2 + (1-p)^2``).

    Parameters
    ----------
    r : array_like
        True replicability in [0.5, 1].
    n : int or array_like of int
        Number of repetitions (>= 2); broadcast against ``r``.

    Notes
    -----
    The text extraction of the paper loses the bracket around
    ``(n-2)(n-3) + 2``; the form above is the one that agrees with the exact
    variance of ``R2(i, n)`` for ``i ~ Bin(n, p)``.  Example: n = 28,
    r = 0.8 gives 0.008677.  Outcomes that reject in both directions are
    outside this model.
    """
    r = _replicability(r)
    m = _counts(n, "n", min_value=2)
    p = 0.5 + 0.5 * np.sqrt(2.0 * r - 1.0)

    def f(x):
        return p**x + (1.0 - p) ** x

    num = (
        2.0 * (m - 2.0) * (m - 3.0) * f(4)
        + (4.0 - 2.0 * (m - 3.0)) * (m - 2.0) * f(3)
        + ((m - 2.0) * (m - 3.0) + 2.0) * f(2)
    )
    # cancellation near r = 1 can leave a tiny negative number
    return _scalar(np.maximum(num / (m * (m - 1.0)) - r * r, 0.0))


def normalized(r):
    """Normalised replicability ``2 (r - 1/2)`` (Bouckaert 2004, Section 3).

    Maps the range [0.5, 1] of replicability under the two-outcome model to
    [0, 1].  Any real ``r`` is accepted (an estimate with outcomes in both
    directions can fall below 1/2 and then maps below 0).
    """
    return _scalar(2.0 * (as_float_array(r, "r") - 0.5))


def all_agree(outcomes):
    """Whether all repetitions give the same outcome, per row.

    Parameters
    ----------
    outcomes : array_like, shape (..., n)
        Outcomes in {-1, 0, +1} of n >= 1 repetitions.

    Returns
    -------
    bool or ndarray of bool, shape (...)
    """
    e = _outcomes(outcomes, min_n=1)
    return _scalar((e == e[..., :1]).all(axis=-1))


def consistency(outcomes):
    """Share of data sets on which all repetitions agree (Bouckaert and Frank 2004).

    Bouckaert and Frank call an experiment *consistent* on a data set when all
    its (ten) repetitions give the same outcome.

    Parameters
    ----------
    outcomes : array_like, shape (..., n_datasets, n)
        Outcomes in {-1, 0, +1}; the second-to-last axis indexes data sets,
        the last the n >= 1 repetitions on each.

    Returns
    -------
    float or ndarray, shape (...)
        The fraction of data sets with ``all_agree``.
    """
    e = _outcomes(outcomes, min_n=1, min_ndim=2)
    if e.shape[-2] < 1:
        raise InputError(f"outcomes: needs at least one data set on the second-to-last axis, got shape {e.shape}")
    return _scalar((e == e[..., :1]).all(axis=-1).mean(axis=-1))
