"""Replication probability of a significant result (Berrar).

Given one experiment whose comparison of two classifiers A and B was
significant, how likely is an exact replication (same design, new data from the
same population) to be significant again *in the same direction*?  Berrar
derives point estimates and approximate prediction intervals under four models:

* :func:`binomial_model` -- wins of A over N data sets, success rate
  ``theta_hat = wins / N`` (Lemma 1, Eq. 5-7);
* :func:`bayesian_model` -- the same with a uniform prior on theta (Lemma 2,
  Eq. 8-9);
* :func:`wilcoxon_model` -- the normal approximation ``Z_w`` of the Wilcoxon
  signed-rank statistic with a bootstrapped standard deviation ``s*``
  (Proposition 1, Eq. 11-12; ``s*`` from Algorithm 1, see
  :func:`bootstrap_s_star`);
* :func:`t_model` -- the variance-corrected resampled t statistic of k-fold
  cross-validation and the non-central t distribution (Proposition 2,
  Eq. 13-14).

and the empirical replication probability of a group of replications
(Definition 2, Eq. 16): :func:`empirical_replication_probability` from counts
and :func:`empirical_F_from_decisions` from the decisions themselves.

Conventions shared by every function
------------------------------------
* All tests are two-sided at level ``alpha``.  A result is significant when
  ``p <= alpha`` (the convention of :meth:`simstudy.statistics.significance.SignificanceResult.decision`).
  Berrar writes ``p < 0.05``; the two agree for every published example
  because an exact binomial p-value is a multiple of ``2**(1 - N)`` and never
  equals 0.05, and a continuous statistic hits the boundary with probability 0.
* "Same direction" means A better than B: the statistic (wins of A, ``Z_w``,
  ``T``) is oriented so that large values favour A.  For the other direction,
  pass ``n - wins``, ``-z`` or ``-t``.
* ``level`` is the coverage of the prediction interval (0.95 for 95%);
  Berrar's ``c`` is ``1 - level``.
* Nothing is rounded: Berrar's Example 1 used theta rounded to 0.66 and
  reports 0.5746, the exact ``29/44`` gives 0.5696.
* Functions are vectorised over their main argument (and broadcast the
  others); a scalar input gives scalar fields.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from simstudy._lazy import lazy_module
from simstudy._validation import as_float_array, check_alpha
from simstudy.errors import InputError
from simstudy.statistics import _distributions as _d

special = lazy_module("scipy.special")

__all__ = [
    "ReplicationEstimate",
    "SStarEstimate",
    "min_significant_wins",
    "binomial_pvalue",
    "binomial_model",
    "bayesian_model",
    "beta_hdi",
    "wilcoxon_model",
    "wilcoxon_model_from_p",
    "t_model",
    "t_model_from_p",
    "empirical_replication_probability",
    "empirical_F_from_decisions",
    "bootstrap_s_star",
]

# Relative tolerance for p <= alpha: an exact tie (e.g. p = 1/16 at alpha = 0.0625)
# must not be lost to the last bit of a floating-point tail sum.
_TIE_RTOL = 1e-10


@dataclass(frozen=True)
class ReplicationEstimate:
    """Estimated replication probability with its prediction interval.

    Every numeric field is a float for scalar input and an array (broadcast
    shape of the inputs) otherwise.

    Attributes
    ----------
    estimate : float or ndarray
        Point estimate P of the probability that an exact replication is
        significant in the same direction (A better).
    low, high : float or ndarray
        Limits of the approximate ``level`` prediction interval of P.
    model : str
        ``"binomial"``, ``"bayes"``, ``"wilcoxon"`` or ``"t"``.
    parameter : float or ndarray
        The effect the estimate is computed at: ``theta_hat`` (binomial),
        ``theta_m`` (Bayesian), ``Z_w`` (Wilcoxon) or ``T`` (t).
    parameter_low, parameter_high : float or ndarray
        The plausible extremes of that effect that give ``low`` and ``high``:
        Clopper-Pearson limits, HDI limits, ``Z_w -/+ z_{1-c/2} s*`` or the
        ``c/2`` and ``1 - c/2`` quantiles of the non-central t.
    threshold : float or ndarray
        What a replication must reach to be significant: the smallest number
        of wins ``s`` (binomial and Bayesian; ``n + 1`` when no outcome is
        significant), ``z_{1-alpha/2}`` or ``t_{df,1-alpha/2}``.
    pvalue : float or ndarray
        Two-sided p-value of the initial experiment under the model's test.
    alpha : float
        Significance level.
    level : float
        Level of the prediction interval (Berrar's ``1 - c``).
    """

    estimate: np.ndarray | float
    low: np.ndarray | float
    high: np.ndarray | float
    model: str
    parameter: np.ndarray | float
    parameter_low: np.ndarray | float
    parameter_high: np.ndarray | float
    threshold: np.ndarray | float
    pvalue: np.ndarray | float
    alpha: float
    level: float

    @property
    def interval(self):
        """``(low, high)``."""
        return self.low, self.high


@dataclass(frozen=True)
class SStarEstimate:
    """Bootstrapped standard deviation ``s*`` of ``Z_w`` (Berrar, Algorithm 1).

    Attributes
    ----------
    s_star : float or ndarray
        Sample standard deviation (``ddof=1``) of the bootstrapped statistics.
    low, high : float or ndarray
        Monte Carlo ``level`` interval of ``s*`` from the chi-square
        distribution of ``(b - 1) s*^2 / sigma^2`` with ``b - 1`` df (exact for
        normal statistics, which ``Z_w`` approximately is).
    n_boot : int
        Number ``b`` of bootstrap statistics per estimate.
    level : float
        Level of the interval.
    """

    s_star: np.ndarray | float
    low: np.ndarray | float
    high: np.ndarray | float
    n_boot: int
    level: float


# ---------------------------------------------------------------- helpers


def _out(a):
    a = np.asarray(a, dtype=float)
    return a.item() if a.ndim == 0 else a


def _counts(x, name: str) -> np.ndarray:
    """Whole numbers (as float) without NaN or infinity."""
    arr = as_float_array(x, name)
    if np.isinf(arr).any():
        raise InputError(f"{name}: contains infinite values")
    if (arr != np.round(arr)).any():
        raise InputError(f"{name}: must be whole numbers, got {x!r}")
    return arr


def _wins_and_n(wins, n):
    wins = _counts(wins, "wins")
    n = _counts(n, "n")
    if (n < 1).any():
        raise InputError(f"n: must be >= 1, got {n.min():g}")
    if (wins < 0).any():
        raise InputError(f"wins: must be >= 0, got {wins.min():g}")
    try:
        wins, n = np.broadcast_arrays(wins, n)
    except ValueError as exc:
        raise InputError(f"wins: shape {np.shape(wins)} does not broadcast with n of shape {np.shape(n)}") from exc
    if (wins > n).any():
        raise InputError("wins: must be <= n")
    return wins, n


def _finite(x, name: str) -> np.ndarray:
    arr = as_float_array(x, name)
    if np.isinf(arr).any():
        raise InputError(f"{name}: contains infinite values")
    return arr


def _positive(x, name: str) -> np.ndarray:
    arr = _finite(x, name)
    if (arr <= 0).any():
        raise InputError(f"{name}: must be > 0, got {arr.min():g}")
    return arr


def _pvalues(p) -> np.ndarray:
    arr = as_float_array(p, "p")
    if ((arr <= 0) | (arr > 1)).any():
        raise InputError("p: two-sided p-values must be in (0, 1]")
    return arr


def _on_distinct_counts(wins, n, core):
    """``core(wins, n)`` (a dict of arrays) computed once per distinct ``(wins, n)`` pair.

    Counts repeat a lot (a million simulated groups of 44 data sets have at
    most 45 distinct win counts), and the interval limits are costly
    (quantiles, bisection), so the work is done on the distinct pairs and
    spread back.  The result is identical to evaluating every element.
    """
    shape = wins.shape
    w, m = wins.ravel(), n.ravel()
    if w.size <= 1:
        return {k: np.reshape(v, shape) for k, v in core(w, m).items()}
    key = w * (m.max() + 1.0) + m  # exact: whole numbers far below 2**53
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    if first.size == w.size:
        return {k: np.reshape(v, shape) for k, v in core(w, m).items()}
    fields = core(w[first], m[first])
    return {k: np.reshape(np.asarray(v)[inverse.ravel()], shape) for k, v in fields.items()}


def _upper_tail(s, n, theta):
    """P(X >= s) for X ~ Bin(n, theta); 0 when s > n."""
    return _d.binom_sf(s - 1, n, theta)


# ---------------------------------------------------------------- binomial


def binomial_pvalue(wins, n):
    """Exact two-sided binomial p-value of ``wins`` of ``n`` under H0: theta = 1/2.

    Parameters
    ----------
    wins : array_like of int
        Number of data sets on which A beat B (ties excluded beforehand).
    n : array_like of int
        Number of comparisons, ``n >= 1``.

    Returns
    -------
    float or ndarray
        ``min(1, 2 min(P(X <= wins), P(X >= wins)))`` with ``X ~ Bin(n, 1/2)``;
        under theta = 1/2 the distribution is symmetric, so this equals the
        likelihood-ordering p-value of ``scipy.stats.binomtest``.  Example 1 of
        Berrar: 29 of 44 gives 0.0488.
    """
    wins, n = _wins_and_n(wins, n)
    return _out(_binomial_p(wins, n))


def _binomial_p(wins, n):
    tail = np.minimum(_d.binom_cdf(wins, n, 0.5), _d.binom_sf(wins - 1, n, 0.5))
    return np.minimum(1.0, 2.0 * tail)


def _min_wins(n, alpha):
    # The p-value of s > n/2 wins is 2 P(X >= s), which decreases in s; isf
    # gives the answer up to one step, which the explicit checks settle.
    def significant(s):
        return (s > n / 2) & (s <= n) & (_binomial_p(np.minimum(s, n), n) <= alpha * (1 + _TIE_RTOL))

    s = np.clip(_d.binom_isf(alpha / 2, n, 0.5) + 1, np.floor(n / 2) + 1, n + 1)
    for _ in range(3):
        s = np.where((s - 1 > n / 2) & significant(s - 1), s - 1, s)
    for _ in range(3):
        s = np.where((s <= n) & ~significant(s), s + 1, s)
    return s


def min_significant_wins(n, alpha: float = 0.05):
    """Smallest number of wins ``s`` of ``n`` that is significant in favour of A.

    Parameters
    ----------
    n : array_like of int
        Number of comparisons (data sets without ties), ``n >= 1``.
    alpha : float
        Two-sided significance level.

    Returns
    -------
    float or ndarray
        The smallest ``s > n/2`` whose exact two-sided binomial p-value
        (:func:`binomial_pvalue`) is ``<= alpha``; ``n + 1`` when even ``n``
        wins are not significant (e.g. ``n <= 5`` at ``alpha = 0.05``), so that
        ``sum_{i >= s} Bin(i; n, theta) = 0``.  Returned as float so that it
        broadcasts with the other fields of :class:`ReplicationEstimate`.

    Notes
    -----
    Significant means ``p <= alpha``, with a relative tolerance of 1e-10 so
    that exact ties (possible only for dyadic ``alpha``) are not decided by
    rounding.  For N = 44 and alpha = 0.05, ``s = 29`` (p = 0.0488, while 28
    wins give p = 0.0961), as in Berrar's Example 1; for N = 20, ``s = 15``
    (p = 0.0414).
    """
    alpha = check_alpha(alpha)
    n = _counts(n, "n")
    if (n < 1).any():
        raise InputError(f"n: must be >= 1, got {n.min():g}")
    return _out(_min_wins(n, alpha))


def _cp_limits(wins, n, level):
    c = 1.0 - level
    # safe shape parameters where the limit is 0 or 1 by definition
    lo = _d.beta_ppf(c / 2, np.maximum(wins, 1), n - wins + 1)
    hi = _d.beta_ppf(1 - c / 2, wins + 1, np.maximum(n - wins, 1))
    return np.where(wins > 0, lo, 0.0), np.where(wins < n, hi, 1.0)


def binomial_model(wins, n, *, alpha: float = 0.05, level: float = 0.95) -> ReplicationEstimate:
    """Replication probability under the binomial model (Berrar, Lemma 1).

    ``P_b = sum_{i >= s} Bin(i; n, theta_hat)`` with ``theta_hat = wins / n``
    and ``s = min_significant_wins(n, alpha)``; the prediction interval is
    ``P_b`` evaluated at the exact Clopper-Pearson ``level`` limits of
    theta (Eq. 6-7).

    Parameters
    ----------
    wins : array_like of int
        Data sets on which A beat B.  Ties are the caller's business: the model
        assumes a clear winner on every data set (drop ties, or count them as
        half wins and round, and say so).
    n : array_like of int
        Number of comparisons, ``n >= 1``; broadcast against ``wins``.
    alpha : float
        Two-sided significance level of the exact binomial test (``p <= alpha``).
    level : float
        Level of the prediction interval.

    Returns
    -------
    ReplicationEstimate
        ``parameter`` is ``theta_hat`` (not rounded), ``parameter_low`` and
        ``parameter_high`` the Clopper-Pearson limits (0 for 0 wins, 1 for
        ``n`` wins), ``threshold`` is ``s`` and ``pvalue`` the two-sided
        binomial p-value of ``wins``.

    Notes
    -----
    29 of 44 wins: p = 0.0488, theta_hat = 0.6591, P_b = 0.5696 (Berrar's
    0.5746 used theta rounded to 0.66), Clopper-Pearson [0.501, 0.795] and the
    interval [0.0250, 0.9890].  For ``wins < n/2`` the estimate is still the
    probability that A wins significantly (Berrar's 24 of 44 example, 0.0856).
    """
    alpha = check_alpha(alpha)
    level = check_alpha(level, "level")
    wins, n = _wins_and_n(wins, n)

    def core(w, m):
        s = _min_wins(m, alpha)
        theta = w / m
        lo, hi = _cp_limits(w, m, level)
        return {
            "estimate": _upper_tail(s, m, theta),
            "low": _upper_tail(s, m, lo),
            "high": _upper_tail(s, m, hi),
            "parameter": theta,
            "parameter_low": lo,
            "parameter_high": hi,
            "threshold": s,
            "pvalue": _binomial_p(w, m),
        }

    fields = _on_distinct_counts(wins, n, core)
    return ReplicationEstimate(model="binomial", alpha=alpha, level=level, **{k: _out(v) for k, v in fields.items()})


# ---------------------------------------------------------------- Bayesian


def _hdi(a, b, level):
    """HDI of Beta(a, b) for a, b >= 1 (unimodal, or uniform when a = b = 1).

    The shortest interval with mass ``level`` has equal density at both
    ends.  With ``u`` the mass below it, ``g(u) = pdf(hi(u)) - pdf(lo(u))``
    decreases from ``g(0) >= 0`` to ``g(c) <= 0`` for a unimodal density, so a
    vectorised bisection on ``u`` finds the root; when ``g`` does not change
    sign (a monotone density: ``a = 1`` or ``b = 1``) the HDI touches 0 or 1.
    """
    c = 1.0 - level
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))

    def g(u):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            lo = _d.beta_ppf(u, a, b)
            hi = _d.beta_ppf(np.minimum(u + level, 1.0), a, b)
            return _d.beta_pdf(hi, a, b) - _d.beta_pdf(lo, a, b)

    left = np.zeros(a.shape)
    right = np.full(a.shape, c)
    g_left, g_right = g(left), g(right)
    # 60 halvings of an interval of length <= 1 reach the spacing of doubles
    for _ in range(60):
        mid = 0.5 * (left + right)
        gm = g(mid)
        left = np.where(gm > 0, mid, left)
        right = np.where(gm > 0, right, mid)
    u = 0.5 * (left + right)
    u = np.where(g_left <= 0, 0.0, np.where(g_right >= 0, c, u))
    # uniform density: every interval of the right mass is shortest; take the central one
    u = np.where((a == 1) & (b == 1), c / 2, u)
    lo = np.where(u > 0, _d.beta_ppf(u, a, b), 0.0)
    hi = np.where(u < c, _d.beta_ppf(np.minimum(u + level, 1.0), a, b), 1.0)
    return lo, hi


def beta_hdi(a, b, *, level: float = 0.95):
    """Highest-density interval of Beta(a, b) for ``a, b >= 1``.

    Parameters
    ----------
    a, b : array_like
        Shape parameters, ``>= 1`` (so the density is unimodal or monotone),
        broadcast against each other.
    level : float
        Posterior mass of the interval.

    Returns
    -------
    (low, high)
        Floats or arrays: the shortest interval holding ``level`` of the
        mass, found by bisection on the mass below it (accurate to about 1e-12
        in the limits).  For Beta(30, 16) (29 wins of 44, uniform prior):
        [0.515, 0.785] (Berrar, Example 2).  ``a = 1`` gives ``[0, ...]``,
        ``b = 1`` gives ``[..., 1]``, ``a = b = 1`` the central interval.
    """
    level = check_alpha(level, "level")
    a = _finite(a, "a")
    b = _finite(b, "b")
    if (a < 1).any():
        raise InputError("a: must be >= 1")
    if (b < 1).any():
        raise InputError("b: must be >= 1")
    lo, hi = _hdi(a, b, level)
    return _out(lo), _out(hi)


def bayesian_model(wins, n, *, alpha: float = 0.05, level: float = 0.95) -> ReplicationEstimate:
    """Replication probability under the Bayesian model with a uniform prior (Berrar, Lemma 2).

    The posterior of theta after ``wins`` of ``n`` is Beta(1 + wins, 1 + n - wins)
    with mean ``theta_m = (wins + 1)/(n + 2)``;
    ``P_B = sum_{i >= s} Bin(i; n, theta_m)``, and the prediction interval is
    ``P_B`` at the limits of the ``level`` highest-density interval of the
    posterior (Eq. 8-9).

    Parameters
    ----------
    wins, n, alpha, level
        As in :func:`binomial_model` (same ``s``, same ``p <= alpha`` rule).

    Returns
    -------
    ReplicationEstimate
        ``parameter`` is ``theta_m``, ``parameter_low``/``parameter_high`` the
        HDI limits (see :func:`beta_hdi`), ``threshold`` is ``s`` and
        ``pvalue`` the two-sided binomial p-value.

    Notes
    -----
    The posterior mean need not lie in the HDI (a skewed posterior and a low
    ``level``, e.g. 0 wins of 1 at level 0.5), and then ``estimate`` lies
    outside ``[low, high]``; at 95% and the paper's cases it lies inside.
    29 of 44: theta_m = 0.652, P_B = 0.5311, HDI [0.515, 0.785], interval
    [0.0384, 0.983]; 15 of 20: P_B = 0.5246 (Berrar, Example 2 and study 1).
    """
    alpha = check_alpha(alpha)
    level = check_alpha(level, "level")
    wins, n = _wins_and_n(wins, n)

    def core(w, m):
        s = _min_wins(m, alpha)
        theta_m = (w + 1) / (m + 2)
        lo, hi = _hdi(1 + w, 1 + m - w, level)
        return {
            "estimate": _upper_tail(s, m, theta_m),
            "low": _upper_tail(s, m, lo),
            "high": _upper_tail(s, m, hi),
            "parameter": theta_m,
            "parameter_low": lo,
            "parameter_high": hi,
            "threshold": s,
            "pvalue": _binomial_p(w, m),
        }

    fields = _on_distinct_counts(wins, n, core)
    return ReplicationEstimate(model="bayes", alpha=alpha, level=level, **{k: _out(v) for k, v in fields.items()})


# ---------------------------------------------------------------- Wilcoxon


def wilcoxon_model(z, s_star=1.0, *, alpha: float = 0.05, level: float = 0.95) -> ReplicationEstimate:
    """Replication probability under the Wilcoxon model (Berrar, Proposition 1).

    With the replication's statistic distributed as ``N(Z_w, s*^2)``,
    ``P_w = 1 - Phi((z_{1-alpha/2} - Z_w) / s*)`` (Eq. 11); the prediction
    interval evaluates the same formula at ``Z_w -/+ z_{1-c/2} s*`` (Eq. 12).

    Parameters
    ----------
    z : array_like
        Observed ``Z_w`` of the initial experiment (Eq. 10: the normal
        approximation of the signed-rank statistic, with continuity and tie
        corrections), positive when A is better.  Infinite values are allowed
        (P = 0 or 1).
    s_star : array_like
        Standard deviation of ``Z_w`` under the alternative, ``> 0``:
        bootstrapped by Algorithm 1 (:func:`bootstrap_s_star`); 1 assumes the
        null's spread (Example 3).  Broadcast against ``z``.
    alpha : float
        Two-sided significance level; a replication is significant when its
        statistic is ``>= z_{1-alpha/2}``.
    level : float
        Level of the prediction interval.

    Returns
    -------
    ReplicationEstimate
        ``parameter`` is ``Z_w``, ``parameter_low``/``parameter_high`` are
        ``Z_w -/+ z_{1-c/2} s*``, ``threshold`` is ``z_{1-alpha/2}`` and
        ``pvalue`` is ``2 (1 - Phi(|Z_w|))``.

    Notes
    -----
    ``Z_w = 2.437, s* = 0.779`` gives 0.730 (study 1, group 3);
    ``Z_w = 1.96, s* = 1`` gives 0.5 with interval [0.025, 0.975] (Example 3).
    """
    alpha = check_alpha(alpha)
    level = check_alpha(level, "level")
    z = as_float_array(z, "z")
    s_star = _positive(s_star, "s_star")
    try:
        z, s_star = np.broadcast_arrays(z, s_star)
    except ValueError as exc:
        raise InputError(f"s_star: shape {np.shape(s_star)} does not broadcast with z of shape {np.shape(z)}") from exc
    crit = _d.norm_isf(alpha / 2)
    half = _d.norm_isf((1.0 - level) / 2) * s_star
    with np.errstate(invalid="ignore"):
        lo_z, hi_z = z - half, z + half

    def prob(m):
        with np.errstate(over="ignore"):  # extreme z / s_star saturates to P = 0 or 1
            return _d.norm_sf((crit - m) / s_star)

    return ReplicationEstimate(
        estimate=_out(prob(z)),
        low=_out(prob(lo_z)),
        high=_out(prob(hi_z)),
        model="wilcoxon",
        parameter=_out(z),
        parameter_low=_out(lo_z),
        parameter_high=_out(hi_z),
        threshold=_out(np.broadcast_to(crit, z.shape)),
        pvalue=_out(2 * _d.norm_sf(np.abs(z))),
        alpha=alpha,
        level=level,
    )


def wilcoxon_model_from_p(p, s_star=1.0, *, alpha: float = 0.05, level: float = 0.95) -> ReplicationEstimate:
    """:func:`wilcoxon_model` at ``Z_w = z_{1 - p/2}`` for a two-sided p-value ``p``.

    ``p`` must be in (0, 1]; the direction is taken to be A better
    (``Z_w >= 0``).  ``p = 0.05, s* = 1`` reproduces Example 3.
    """
    z = _d.norm_isf(_pvalues(p) / 2)
    return wilcoxon_model(z, s_star, alpha=alpha, level=level)


# ---------------------------------------------------------------- t


def t_model(t, df, *, alpha: float = 0.05, level: float = 0.95) -> ReplicationEstimate:
    """Replication probability in k-fold cross-validation (Berrar, Proposition 2).

    The replication's t statistic is taken to follow the non-central t with
    ``df`` degrees of freedom and non-centrality ``T`` (the observed statistic):
    ``P_t = P(t' >= t_{df, 1-alpha/2})`` (Eq. 13).  The prediction interval uses
    the ``c/2`` and ``1 - c/2`` quantiles of that non-central t as
    non-centralities (Eq. 14).

    Parameters
    ----------
    t : array_like
        Observed ``T``, e.g. of the variance-corrected resampled t-test (Eq. 15),
        positive when A is better; finite.
    df : array_like
        Degrees of freedom ``> 0`` (``k - 1`` for k folds), broadcast against ``t``.
    alpha : float
        Two-sided significance level.
    level : float
        Level of the prediction interval.

    Returns
    -------
    ReplicationEstimate
        ``parameter`` is ``T``, ``parameter_low``/``parameter_high`` the
        non-central t quantiles, ``threshold`` is ``t_{df, 1-alpha/2}`` and
        ``pvalue`` the two-sided Student p-value of ``T``.

    Notes
    -----
    ``T = 2.262, df = 9``: P_t = 0.5235, quantiles 0.305 and 5.489, interval
    [0.046, 0.998] (Example 4); ``p = 0.00281, df = 9``: 0.95 with interval
    [0.417, 1.000] (Figure 4).

    Speed: scipy's non-central t costs microseconds per value (its quantile
    tens of microseconds).  When 20000 or more statistics share one ``df``,
    every field is a smooth function of ``T`` alone, so it is computed exactly
    on a grid of step 0.01 over the observed range of ``T`` and interpolated
    by a cubic spline (the p-value through its logarithm): the fields agree
    with the element-by-element computation to about 1e-11 (p-values to
    about 1e-10 relative), and a million statistics take well under a
    second.  Smaller inputs are computed element by element.

    Not computable: scipy's non-central t has no quantiles for a very large
    ``|T|`` (above about 1e5; its survival function fails further out), and
    the fields it cannot give are NaN (never a made-up number); the command
    line reports them as not computable.
    """
    alpha = check_alpha(alpha)
    level = check_alpha(level, "level")
    t = _finite(t, "t")
    df = _positive(df, "df")
    try:
        t, df = np.broadcast_arrays(t, df)
    except ValueError as exc:
        raise InputError(f"df: shape {np.shape(df)} does not broadcast with t of shape {np.shape(t)}") from exc
    c = 1.0 - level
    shape = t.shape
    tf, dff = t.ravel(), df.ravel()
    crit = np.empty(tf.shape)
    fields = {k: np.empty(tf.shape) for k in ("estimate", "low", "high", "parameter_low", "parameter_high")}
    # many statistics sharing one df: every field is a smooth function of T alone
    fields["pvalue"] = np.empty(tf.shape)
    if tf.size and (dff == dff[0]).all():
        values, counts = dff[:1], np.array([tf.size])
    else:
        values, counts = np.unique(dff, return_counts=True)
    exact = np.ones(tf.shape, dtype=bool)
    for d in values[counts >= _SMOOTH_MIN_SIZE]:
        sel = dff == d
        exact &= ~sel
        crit[sel] = _d.t_isf(alpha / 2, d)
        for k, v in _t_fields_smooth(tf[sel], float(d), float(crit[sel][0]), c).items():
            fields[k][sel] = v
    if exact.any():
        crit[exact] = _d.t_isf(alpha / 2, dff[exact])
        for k, v in _t_fields(tf[exact], dff[exact], crit[exact], c).items():
            fields[k][exact] = v
    return ReplicationEstimate(
        model="t",
        parameter=_out(t),
        threshold=_out(crit.reshape(shape)),
        alpha=alpha,
        level=level,
        **{k: _out(v.reshape(shape)) for k, v in fields.items()},
    )


# From this many statistics with the same df on, t_model interpolates (see _smooth).
_SMOOTH_MIN_SIZE = 20000
_SMOOTH_STEP = 0.01
_SMOOTH_MAX_POINTS = 8001


def _t_fields(t, df, crit, c):
    """Eq. 13-14 element by element (scipy's non-central t)."""
    q_lo = _d.nct_ppf(c / 2, df, t)
    q_hi = _d.nct_ppf(1 - c / 2, df, t)

    def prob(nc):
        return np.clip(_d.nct_sf(crit, df, nc), 0.0, 1.0)

    return {
        "estimate": prob(t),
        "low": prob(q_lo),
        "high": prob(q_hi),
        "parameter_low": q_lo,
        "parameter_high": q_hi,
        "pvalue": 2 * _d.t_sf(np.abs(t), df),
    }


def _smooth(func, x, *, log: bool = False):
    """``func(x)`` for a smooth, vectorised function of one variable, on many points.

    ``func`` is evaluated exactly on a grid of step ``_SMOOTH_STEP`` over the
    range of ``x`` (or, if that is too wide, its 0.01% to 99.99% quantile
    range) and interpolated by a cubic spline
    inside it (error of the order of step**4 times the fourth derivative:
    about 1e-11 for the non-central t functions here, see the tests).  With
    ``log=True`` the spline interpolates ``log(func)``, which keeps small
    values (p-values) accurate relative to their size.  Points outside the
    range, and every point when the range would need more than
    ``_SMOOTH_MAX_POINTS`` grid points or ``func`` is 0 on the grid, are
    evaluated exactly.
    """
    from scipy.interpolate import CubicSpline

    lo, hi = x.min(), x.max()
    if (hi - lo) / _SMOOTH_STEP >= _SMOOTH_MAX_POINTS:
        lo, hi = np.quantile(x, [0.0001, 0.9999])
    n_grid = int(math.ceil((hi - lo) / _SMOOTH_STEP)) + 1
    if n_grid > _SMOOTH_MAX_POINTS or n_grid < 4:
        return func(x)
    grid = np.linspace(lo, hi, n_grid)
    y = func(grid)
    if log:
        with np.errstate(divide="ignore"):
            y = np.log(y)
    if not np.isfinite(y).all():
        return func(x)
    coef = CubicSpline(grid, y).c  # (4, n_grid - 1): cubic in x - grid[i] on [grid[i], grid[i + 1]]
    h = grid[1] - grid[0]
    inside = (x >= lo) & (x <= hi)
    xi = x[inside]
    # uniform grid: the interval is found by arithmetic instead of a search
    i = np.minimum(((xi - lo) / h).astype(np.intp), n_grid - 2)
    u = xi - grid[i]
    v = ((coef[0, i] * u + coef[1, i]) * u + coef[2, i]) * u + coef[3, i]
    out = np.empty(x.shape)
    out[inside] = np.exp(v) if log else v
    if not inside.all():
        out[~inside] = func(x[~inside])
    return out


def _t_fields_smooth(t, df, crit, c):
    """:func:`_t_fields` for many statistics with one ``df``, interpolated in T."""
    q_lo = _smooth(lambda nc: _d.nct_ppf(c / 2, df, nc), t)
    q_hi = _smooth(lambda nc: _d.nct_ppf(1 - c / 2, df, nc), t)
    p = np.clip(_smooth(lambda nc: _d.nct_sf(crit, df, nc), np.concatenate([t, q_lo, q_hi])), 0.0, 1.0)
    n = t.size
    pvalue = _smooth(lambda a: 2 * _d.t_sf(a, df), np.abs(t), log=True)
    return {
        "estimate": p[:n],
        "low": p[n : 2 * n],
        "high": p[2 * n :],
        "parameter_low": q_lo,
        "parameter_high": q_hi,
        "pvalue": np.minimum(pvalue, 1.0),
    }


def t_model_from_p(p, df, *, alpha: float = 0.05, level: float = 0.95) -> ReplicationEstimate:
    """:func:`t_model` at ``T = t_{df, 1 - p/2}`` for a two-sided p-value ``p``.

    ``p`` must be in (0, 1]; the direction is taken to be A better (``T >= 0``).
    ``p = 0.00281, df = 9`` gives Berrar's Figure 4 point (P_t = 0.95).
    """
    p = _pvalues(p)
    df = _positive(df, "df")
    return t_model(_t_from_pvalue(p, df), df, alpha=alpha, level=level)


def _t_from_pvalue(p, df):
    """``t_{df, 1 - p/2}``, also for p-values so small that scipy's ``t.isf`` fails.

    ``_d.t_isf`` returns ``-inf`` for some tiny ``p`` (e.g. 1e-300 with
    df = 9).  There the quantile is computed from the inverse regularised beta
    function, ``T = sqrt(df (1/x - 1))`` with ``x = I^{-1}_{df/2, 1/2}(p)``, and
    kept only if ``2 P(t > T)`` gives ``p`` back to 1e-6 relative; otherwise
    (``p`` subnormal, or ``T`` beyond the largest float) ``p`` is refused.
    Where ``t.isf`` works its value is used unchanged.
    """
    p, df = np.broadcast_arrays(p, df)
    t = np.asarray(_d.t_isf(p / 2, df), dtype=float)
    bad = ~np.isfinite(t) | (t < 0)
    if bad.any():
        pb, db = p[bad], df[bad]
        x = special.betaincinv(db / 2, 0.5, pb)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            tb = np.sqrt(db) * np.sqrt(1.0 / x - 1.0)
            back = 2 * _d.t_sf(tb, db)
            ok = np.isfinite(tb) & (np.abs(back - pb) <= 1e-6 * pb)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise InputError(
                f"p: {pb[i]:g} is too small to convert to a t statistic with df = {db[i]:g} "
                "(t_(df, 1-p/2) cannot be computed in double precision); give the statistic instead"
            )
        t = np.array(t, dtype=float)
        t[bad] = tb
    return t


# ---------------------------------------------------------------- empirical


def empirical_replication_probability(n_significant, n_total):
    """Empirical replication probability ``F = (s - 1)/(k - 1)`` (Berrar, Definition 2, Eq. 16).

    Parameters
    ----------
    n_significant : array_like of int
        ``s``: experiments of the group significant in the initial
        experiment's direction, **counting the initial experiment itself**
        (it is one of the ``k``), so ``1 <= s <= k``.
    n_total : array_like of int
        ``k``: experiments in the group (initial one included), ``k >= 2``;
        broadcast against ``n_significant``.

    Returns
    -------
    float or ndarray
        ``(s - 1)/(k - 1)``: the share of significant results among the
        ``k - 1`` replications of a significant initial experiment.  Study 1,
        group 3: 537 of 1000 gives 0.5365.

    See Also
    --------
    empirical_F_from_decisions : the same from an array of +1/0/-1 decisions.
    """
    s = _counts(n_significant, "n_significant")
    k = _counts(n_total, "n_total")
    if (k < 2).any():
        raise InputError(f"n_total: must be >= 2, got {k.min():g}")
    if (s < 1).any():
        raise InputError("n_significant: must be >= 1 (the significant initial experiment is one of them)")
    try:
        s, k = np.broadcast_arrays(s, k)
    except ValueError as exc:
        raise InputError(f"n_total: shape {np.shape(k)} does not broadcast with n_significant") from exc
    if (s > k).any():
        raise InputError("n_significant: must be <= n_total")
    return _out((s - 1) / (k - 1))


def empirical_F_from_decisions(decisions, direction: int = 1):
    """Empirical replication probability of groups of experiments given their decisions (Eq. 16).

    Parameters
    ----------
    decisions : array_like, shape (..., k)
        Outcomes of the ``k >= 2`` experiments of each group along the last
        axis: +1 (A significantly better), -1 (B significantly better), 0 (not
        significant), e.g. from ``SignificanceResult.decision(alpha)``.  The
        initial experiment is one of them (any position).
    direction : {+1, -1}
        Direction of the initial experiment's significant result; only
        decisions equal to it count.

    Returns
    -------
    float or ndarray, shape (...)
        ``(s - 1)/(k - 1)`` with ``s`` the number of decisions equal to
        ``direction`` (see :func:`empirical_replication_probability`).  A group
        without any such decision has no significant initial experiment and
        raises ValueError.
    """
    if isinstance(direction, bool) or not isinstance(direction, numbers.Integral) or direction not in (-1, 1):
        raise InputError(f"direction: must be +1 or -1, got {direction!r}")
    d = as_float_array(decisions, "decisions", min_ndim=1)
    if not np.isin(d, (-1.0, 0.0, 1.0)).all():
        raise InputError("decisions: values must be -1, 0 or +1")
    k = d.shape[-1]
    if k < 2:
        raise InputError(f"decisions: the last axis needs at least 2 experiments, got shape {d.shape}")
    s = (d == direction).sum(axis=-1)
    if (s < 1).any():
        raise InputError(
            "decisions: a group has no result significant in the given direction, so no initial experiment"
        )
    return _out((s - 1) / (k - 1))


# ---------------------------------------------------------------- Algorithm 1


def bootstrap_s_star(z_values, *, level: float = 0.95) -> SStarEstimate:
    """``s*`` of Algorithm 1 from bootstrapped statistics, with a Monte Carlo interval.

    The refitting (``b`` bootstrap pairs of training and test sets per data
    set, ``Z_w`` of each) is done by the study code; this only summarises.

    Parameters
    ----------
    z_values : array_like, shape (..., b)
        Bootstrapped ``Z_w`` along the last axis, ``b >= 2``, finite.
    level : float
        Level of the interval.

    Returns
    -------
    SStarEstimate
        ``s* = std(z, ddof=1)`` and the interval
        ``s* sqrt((b - 1)/chi2_{1-c/2, b-1})``, ``s* sqrt((b - 1)/chi2_{c/2, b-1})``.
        Identical values give ``s* = 0`` with interval [0, 0] (then
        :func:`wilcoxon_model` rejects ``s_star``: the bootstrap was degenerate).
    """
    level = check_alpha(level, "level")
    z = as_float_array(z_values, "z_values", min_ndim=1)
    if np.isinf(z).any():
        raise InputError("z_values: contains infinite values")
    b = z.shape[-1]
    if b < 2:
        raise InputError(f"z_values: the last (bootstrap) axis needs at least 2 values, got shape {z.shape}")
    s = z.std(axis=-1, ddof=1)
    s = np.where(np.ptp(z, axis=-1) == 0, 0.0, s)
    c = 1.0 - level
    lo = s * math.sqrt((b - 1) / _d.chi2_isf(c / 2, b - 1))
    hi = s * math.sqrt((b - 1) / _d.chi2_ppf(c / 2, b - 1))
    return SStarEstimate(s_star=_out(s), low=_out(lo), high=_out(hi), n_boot=b, level=level)
