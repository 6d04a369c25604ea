"""Significance tests for paired comparisons of two classifiers.

Every test takes samples whose **last axis** is the sample axis and is vectorised
over all leading axes, so ``paired_t_test(x)`` with ``x.shape == (10000, 10)``
runs 10000 tests in one call.  Each returns a :class:`SignificanceResult`.

Sign convention: a sample value is "A minus B" (e.g. accuracy of A minus
accuracy of B).  ``decision(alpha)`` is +1 when A is significantly better, -1
when B is, 0 otherwise.

Tests
-----
On one sample of differences ``(..., n)``:
:func:`paired_t_test`, :func:`resampled_t_test`,
:func:`corrected_resampled_t_test` (Nadeau and Bengio 2003),
:func:`sign_test` and :func:`signed_rank_test` (Bouckaert 2004; Berrar's Eq. 10).
On a repeated-cv matrix ``(..., n_runs, n_folds)``: :func:`repeated_cv_t_test`,
:func:`corrected_repeated_cv_t_test` (Bouckaert and Frank 2004; Berrar's Eq. 15).
On 5x2 cv ``(..., 5, 2)``: :func:`five_by_two_cv_t_test` (Dietterich 1998),
:func:`five_by_two_cv_f_test` (Alpaydin 1999).
On counts or rates: :func:`binomial_test`, :func:`mcnemar_test`,
:func:`proportions_z_test`, :func:`difference_of_proportions_test`.

All p-values are two-sided.  Degenerate samples never raise or warn: a
t statistic with zero variance is 0 (p = 1) when the mean is 0 and +-inf
(p = 0) otherwise; each function documents its own case.  Invalid input
(NaN, infinity, complex numbers or text, a sample that is too small, a wrong
shape, a size that is not a finite positive number) raises :class:`ValueError`
whose message starts with the argument's name.

Scale: the statistics do not depend on the unit of the differences, and
neither do the results: a sample of values around 1e-300 or 1e300, whose
squares under- or overflow, is rescaled by a power of two before the
variance is taken (see :func:`_pow2_scale`), so it gives the same t as the
sample in ordinary units instead of +-inf or 0.  Samples of ordinary size
take exactly the ordinary computation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simstudy._lazy import lazy_module
from simstudy._validation import as_float_array, as_sample, check_alpha, check_positive
from simstudy.errors import InputError

special = lazy_module("scipy.special")
stats = lazy_module("scipy.stats")

__all__ = [
    "SignificanceResult",
    "binomial_test",
    "corrected_repeated_cv_t_test",
    "corrected_resampled_t_test",
    "difference_of_proportions_test",
    "five_by_two_cv_f_test",
    "five_by_two_cv_t_test",
    "mcnemar_test",
    "paired_t_test",
    "proportions_z_test",
    "repeated_cv_t_test",
    "resampled_t_test",
    "sign_test",
    "signed_rank_test",
]


@dataclass(frozen=True)
class SignificanceResult:
    """Outcome of a (vectorised) two-sided significance test.

    Attributes
    ----------
    statistic : ndarray or float
        The test statistic, oriented so that positive means "A better" where
        it has a sign (the McNemar chi-square and the 5x2cv F are
        non-negative: their direction is in ``direction``).
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

    Returns
    -------
    SignificanceResult
        ``statistic`` (t), ``pvalue`` (two-sided), ``df`` and ``direction``
        (+1 when the mean favours A), each with the leading shape of ``x``.
    """
    x = as_sample(x, "x", min_n=2)
    return _flat_t(x, 0.0)


# ---------------------------------------------------------------------------
# helpers shared by the tests below


def _normal_two_sided(z):
    """Two-sided p-value of a standard normal statistic (exact 0 at +-inf)."""
    return 2.0 * special.ndtr(-np.abs(np.asarray(z, dtype=float)))


# A variance outside (_VAR_SAFE_LOW, _VAR_SAFE_HIGH) may have lost its value to underflow or
# overflow; such tests are recomputed from rescaled values (see _flat_t and _five_by_two_parts).
_VAR_SAFE_LOW = 1e-280
_VAR_SAFE_HIGH = 1e280
# Tests whose largest |value| lies outside (2**-_EXP_SAFE, 2**_EXP_SAFE) are rescaled first.
_EXP_SAFE = 400


def _pow2_scale(x, axes, only_extreme: bool = True):
    """``x`` times a power of two per test, and the exponents ``e`` with ``x = scaled * 2**e``.

    The power of two brings each test's largest ``|value|`` (over ``axes``,
    kept as length-1 axes in ``e``) into [0.5, 1).  Multiplying by a power of two
    is exact (barring subnormal results), and every statistic here is a ratio
    in which the scale cancels, so the rescaled values give the same statistic
    without the squares underflowing to 0 or overflowing to inf.  With
    ``only_extreme`` (the default) only tests whose largest value is below
    ``2**-400`` or above ``2**400`` are rescaled; the others are returned as
    they are (``e = 0``), so ordinary input takes exactly the ordinary path.
    """
    m = np.max(np.abs(x), axis=axes, keepdims=True)
    _, e = np.frexp(m)
    if only_extreme:
        e = np.where((m > 0) & ((m < 2.0**-_EXP_SAFE) | (m > 2.0**_EXP_SAFE)), e, 0)
    else:
        e = np.where(m > 0, e, 0)
    if not e.any():
        return x, e
    return np.ldexp(x, -e), e


def _flat_t(x, extra_factor: float) -> SignificanceResult:
    """One-sample t on the last axis with variance factor ``1/n + extra_factor``.

    Tiny or huge values: a sample whose values are all around 1e-300 has a
    variance (around 1e-600) that underflows to 0, which would make ``t``
    infinite although the values differ; values around 1e300 overflow it to
    inf (t = 0).  Such tests are computed from rescaled values and, where the
    variance is still outside the safe range, from deviations rescaled on
    their own, ``t = (mean / s) / sqrt(sum((d / s)**2) / (n - 1) * factor)``
    with ``d`` the deviations from the mean and ``s`` a power of two near
    ``max |d|``: no square under- or overflows, and ``t`` is finite unless the
    mean is more than about 1e308 spreads from 0.  Other tests are computed
    as before, bit for bit.
    """
    n = x.shape[-1]
    x, _ = _pow2_scale(x, -1)
    mean = x.mean(axis=-1)
    var = x.var(axis=-1, ddof=1)
    # variance of exactly-equal values can round to a tiny positive number
    constant = np.ptp(x, axis=-1) == 0
    var = np.where(constant, 0.0, var)
    factor = 1.0 / n + extra_factor
    t, p = _t_from_mean_var(mean, var, factor, n - 1)
    unsafe = ~constant & ~((var > _VAR_SAFE_LOW) & (var < _VAR_SAFE_HIGH))
    if unsafe.any():
        xs = x[unsafe]
        m = xs.mean(axis=-1)
        d, e = _pow2_scale(xs - m[..., None], -1, only_extreme=False)
        with np.errstate(over="ignore"):
            ts = np.ldexp(m, -e[..., 0]) / np.sqrt((d * d).sum(axis=-1) / (n - 1) * factor)
        t = np.array(t, dtype=float)
        p = np.array(p, dtype=float)
        t[unsafe] = ts
        p[unsafe] = _t_two_sided(ts, n - 1)
    # the direction ignores a mean that is zero up to rounding (it would depend on the order of the values)
    return _result(t, p, np.full(np.shape(t), n - 1.0), _sign_of_mean(x))


def _binom_cdf_continuous(k, n):
    """``P(K <= k)`` for K ~ Bin(n, 1/2), continued to real k in [0, n] by the beta function."""
    k = np.asarray(k, dtype=float)
    below = k < n
    a = np.where(below, n - k, 1.0)
    return np.where(below, special.betainc(a, k + 1.0, 0.5), 1.0)


def _split_sizes(n_train, n_test) -> float:
    """The Nadeau-Bengio ratio ``n_test / n_train`` after checking both sizes."""
    n_train = check_positive(n_train, "n_train")
    n_test = check_positive(n_test, "n_test")
    ratio = float(n_test) / float(n_train)
    if not math.isfinite(ratio):
        raise InputError(f"n_train: n_test / n_train = {n_test!r} / {n_train!r} overflows")
    return ratio


def _as_counts(value, name: str) -> np.ndarray:
    """Non-negative whole numbers (any shape) as a float array."""
    arr = as_float_array(value, name)
    if np.isinf(arr).any() or (arr < 0).any() or (arr != np.round(arr)).any():
        raise InputError(f"{name}: must hold non-negative whole numbers")
    return arr


def _cv_matrix(x, name: str) -> np.ndarray:
    """An array of shape (..., n_runs, n_folds) with at least two values per test."""
    x = as_sample(x, name, min_n=1)
    if x.ndim < 2:
        raise InputError(f"{name}: expected shape (..., n_runs, n_folds), got shape {x.shape}")
    if x.shape[-1] * x.shape[-2] < 2:
        raise InputError(f"{name}: needs at least 2 values per test (n_runs * n_folds >= 2), got shape {x.shape}")
    return x


# ---------------------------------------------------------------------------
# tests on one sample of paired differences


def sign_test(x, *, rule: str = "two-sided") -> SignificanceResult:
    """Sign test of H0: P(A better) = 1/2, ties counted as half a win (Bouckaert 2004).

    Parameters
    ----------
    x : array_like, shape (..., n)
        Paired differences A - B; n >= 1.
    rule : {"two-sided", "cdf"}
        ``"two-sided"`` (default): the exact two-sided binomial test below.
        ``"cdf"``: the rule as Bouckaert (2004, Sec. 2.2) prints it: with
        ``F(k) = P(K <= k)``, B is better if ``F(k) < alpha / 2`` and A is better
        if ``F(k) > 1 - alpha / 2``; the p-value is ``min(1, 2 min(F(k), 1 - F(k)))``
        so that ``decision(alpha)`` applies that rule.  Its upper tail
        ``1 - F(k) = P(K > k)`` leaves out ``P(K = k)``, so A is declared better
        one plus earlier than with the exact test: at n = 10 and alpha = 5% the
        exact test rejects for k <= 1 or k >= 9 (size 2.1%), this rule for k <= 1
        or k >= 8 (size 6.5%).  Bouckaert's published sign-test rates (5.0% Type I
        error on his Table 1) fit this rule, not the exact test.

    Returns
    -------
    SignificanceResult
        ``statistic`` is the plus count ``k = #(x > 0) + #(x == 0) / 2`` (not
        divided by n); ``df`` is None; ``direction`` is ``sign(k - n/2)``.

    Notes
    -----
    With ties ``k`` can be a half-integer, so the binomial tail is extended to
    non-integer ``k`` through the regularised incomplete beta function,
    ``F(k) = I_{1/2}(n - k, k + 1)``, which equals ``P(K <= k)`` for
    ``K ~ Bin(n, 1/2)`` at every integer ``k`` and is continuous and
    increasing in between.  The two-sided p-value is
    ``min(1, 2 min(F(k), F(n - k)))``; ``F(n - k)`` is the upper tail
    ``P(K >= k)`` by the symmetry of Bin(n, 1/2).  Without ties this is the
    exact two-sided binomial test (``scipy.stats.binomtest(k, n)``).
    """
    if rule not in ("two-sided", "cdf"):
        raise InputError(f"rule: expected 'two-sided' or 'cdf', got {rule!r}")
    x = as_sample(x, "x", min_n=1)
    n = float(x.shape[-1])
    k = (x > 0).sum(axis=-1) + 0.5 * (x == 0).sum(axis=-1)
    if rule == "cdf":
        cdf = _binom_cdf_continuous(k, n)
        tail = np.minimum(cdf, 1.0 - cdf)
    else:
        tail = np.minimum(_binom_cdf_continuous(k, n), _binom_cdf_continuous(n - k, n))
    p = np.minimum(1.0, 2.0 * tail)
    return _result(k.astype(float), p, None, k - n / 2.0)


def signed_rank_test(x, *, continuity: bool = False, tie_correction: bool = False) -> SignificanceResult:
    """Wilcoxon signed-rank test with the normal approximation (Wilcoxon 1945).

    Zero differences are removed before ranking (Wilcoxon's convention);
    tied absolute differences get their average rank.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Paired differences A - B; n >= 1.
    continuity : bool, default False
        Move ``W+`` half a unit towards its null mean before standardising.
    tie_correction : bool, default False
        Subtract ``sum(t^3 - t) / 48`` from the null variance, ``t`` running
        over the sizes of the groups of tied absolute differences.

    Returns
    -------
    SignificanceResult
        ``statistic`` is ``Z = (W+ - n_e(n_e+1)/4 [- c]) / sigma`` with ``W+``
        the rank sum of the positive differences and ``n_e`` the number of
        non-zero differences, so ``Z > 0`` means A better; ``pvalue`` is
        two-sided from N(0, 1); ``df`` is None; ``direction`` is the sign of
        ``W+ - n_e(n_e+1)/4``.

    Notes
    -----
    The defaults are the "rank sum test" of Bouckaert (2004): no continuity
    and no tie correction, ``sigma^2 = n_e(n_e+1)(2n_e+1)/24``.

    ``continuity=True, tie_correction=True`` is Berrar's Equation 10.  The
    paper writes the continuity term as ``-1/2``, which is right for ``W+``
    above its mean; here it always shrinks ``|W+ - mean|`` by 1/2 (never past
    0), so that swapping A and B only flips the sign of Z.  This variant
    agrees in ``|Z|`` and p with ``scipy.stats.wilcoxon(x, zero_method="wilcox",
    correction=True, method="approx")``.

    When every difference is zero (``n_e = 0``) there is no evidence:
    ``statistic = 0``, ``pvalue = 1``.  ``sigma`` is positive whenever
    ``n_e >= 1``, even with all differences tied.
    """
    x = as_sample(x, "x", min_n=1)
    nonzero = x != 0
    n_e = nonzero.sum(axis=-1).astype(float)
    # zeros ranked above every non-zero value leave the ranks 1..n_e of the
    # non-zero differences exactly as if the zeros had been dropped
    a = np.where(nonzero, np.abs(x), np.inf)
    ranks = stats.rankdata(a, method="average", axis=-1)
    w_plus = np.where(x > 0, ranks, 0.0).sum(axis=-1)
    mean = n_e * (n_e + 1.0) / 4.0
    var = n_e * (n_e + 1.0) * (2.0 * n_e + 1.0) / 24.0
    if tie_correction:
        # each member of a tie group of size t contributes t^2 - 1, the group t^3 - t
        t = stats.rankdata(a, method="max", axis=-1) - stats.rankdata(a, method="min", axis=-1) + 1.0
        var = var - np.where(nonzero, t * t - 1.0, 0.0).sum(axis=-1) / 48.0
    d = w_plus - mean
    if continuity:
        d_used = np.sign(d) * np.maximum(np.abs(d) - 0.5, 0.0)
    else:
        d_used = d
    safe = np.where(var > 0, var, 1.0)
    z = np.where(n_e > 0, d_used / np.sqrt(safe), 0.0)
    p = np.where(n_e > 0, _normal_two_sided(z), 1.0)
    return _result(z, p, None, d)


def binomial_test(wins, n) -> SignificanceResult:
    """Exact two-sided binomial test of H0: theta = 1/2 (e.g. wins of A over n data sets).

    Parameters
    ----------
    wins : array_like of int
        Number of successes of A, ``0 <= wins <= n``; any shape.
    n : int or array_like of int
        Number of trials (>= 1), broadcast against ``wins``.

    Returns
    -------
    SignificanceResult
        ``statistic = wins / n``; ``pvalue = min(1, 2 P(K <= min(wins, n - wins)))``
        for K ~ Bin(n, 1/2), which for theta = 1/2 equals the two-sided p of
        ``scipy.stats.binomtest``; ``df`` is None; ``direction = sign(wins - n/2)``.

    Examples
    --------
    Berrar's examples: 29 wins of 44 gives p = 0.0488, 15 of 20 gives 0.0414.
    """
    w = _as_counts(wins, "wins")
    n_arr = _as_counts(n, "n")
    if (n_arr < 1).any():
        raise InputError("n: must be >= 1")
    try:
        w, n_arr = np.broadcast_arrays(w, n_arr)
    except ValueError as exc:
        raise InputError(f"wins: shape {np.shape(w)} does not broadcast with n of shape {np.shape(n_arr)}") from exc
    if (w > n_arr).any():
        raise InputError("wins: must not exceed n")
    tail = _binom_cdf_continuous(np.minimum(w, n_arr - w), n_arr)
    p = np.minimum(1.0, 2.0 * tail)
    return _result(w / n_arr, p, None, w - n_arr / 2.0)


def resampled_t_test(x) -> SignificanceResult:
    """Resampled paired t-test (Dietterich 1998): Student's t on n train/test splits.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Differences A - B on n random train/test splits; n >= 2.

    Notes
    -----
    Numerically the paired t-test (variance factor 1/n, df = n - 1); kept
    under its own name because the splits overlap, which makes the test
    liberal (Nadeau and Bengio 2003).  Zero-variance convention as in
    :func:`paired_t_test`.

    Returns
    -------
    SignificanceResult
        ``statistic`` (t), ``pvalue`` (two-sided), ``df`` and ``direction``
        (+1 when the mean favours A), each with the leading shape of ``x``.
    """
    x = as_sample(x, "x", min_n=2)
    return _flat_t(x, 0.0)


def corrected_resampled_t_test(x, *, n_train, n_test) -> SignificanceResult:
    """Corrected resampled t-test of Nadeau and Bengio (2003).

    ``t = mean / sqrt((1/n + n_test/n_train) s^2)`` with ``s^2`` the sample
    variance (ddof 1), df = n - 1.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Differences A - B on n random train/test splits; n >= 2.
    n_train, n_test : positive number
        Sizes of each training and test set.

    Notes
    -----
    Zero-variance convention as in :func:`paired_t_test`.

    Returns
    -------
    SignificanceResult
        ``statistic`` (t), ``pvalue`` (two-sided), ``df`` and ``direction``
        (+1 when the mean favours A), each with the leading shape of ``x``.
    """
    x = as_sample(x, "x", min_n=2)
    # Nadeau-Bengio correction for the overlap of the training sets
    return _flat_t(x, _split_sizes(n_train, n_test))


def repeated_cv_t_test(x) -> SignificanceResult:
    """Uncorrected t-test on all r * k values of an r-times repeated k-fold cv.

    Parameters
    ----------
    x : array_like, shape (..., n_runs, n_folds)
        Differences A - B per run and fold; ``n_runs * n_folds >= 2``.

    Notes
    -----
    Variance factor ``1/(k r)``, df = ``k r - 1`` (the "use all data" scheme
    with a t-test, Bouckaert and Frank 2004).  Zero-variance convention as in
    :func:`paired_t_test`.

    Returns
    -------
    SignificanceResult
        ``statistic`` (t), ``pvalue`` (two-sided), ``df`` and ``direction``
        (+1 when the mean favours A), each with the leading shape of ``x``.
    """
    x = _cv_matrix(x, "x")
    return _flat_t(x.reshape(x.shape[:-2] + (-1,)), 0.0)


def corrected_repeated_cv_t_test(x, *, n_train, n_test) -> SignificanceResult:
    """Corrected repeated k-fold cv t-test (Bouckaert and Frank 2004).

    ``t = mean / sqrt((1/(k r) + n_test/n_train) s^2)`` over all ``k r``
    values, df = ``k r - 1``.

    Parameters
    ----------
    x : array_like, shape (..., n_runs, n_folds)
        Differences A - B per run and fold; ``n_runs * n_folds >= 2``.
    n_train, n_test : positive number
        Sizes of each training and test set (e.g. 900 and 100 for 10-fold cv
        on 1000 cases).

    Notes
    -----
    With one run (``x[..., None, :]``) this is Berrar's variance-corrected
    t (Equation 15, after Nadeau and Bengio 2003) with df = k - 1.
    Zero-variance convention as in :func:`paired_t_test`.

    Returns
    -------
    SignificanceResult
        ``statistic`` (t), ``pvalue`` (two-sided), ``df`` and ``direction``
        (+1 when the mean favours A), each with the leading shape of ``x``.
    """
    x = _cv_matrix(x, "x")
    # Nadeau-Bengio correction for the overlap of the training sets
    return _flat_t(x.reshape(x.shape[:-2] + (-1,)), _split_sizes(n_train, n_test))


def _five_by_two(diffs) -> np.ndarray:
    diffs = as_sample(diffs, "diffs", min_n=2)
    if diffs.ndim < 2 or diffs.shape[-1] != 2:
        raise InputError(f"diffs: expected shape (..., 5, 2) (replications x the two folds), got shape {diffs.shape}")
    return diffs


def five_by_two_cv_t_test(diffs) -> SignificanceResult:
    """5x2cv paired t-test of Dietterich (1998).

    ``t = p_1^(1) / sqrt(mean_i s_i^2)`` with
    ``s_i^2 = (p_i1 - pbar_i)^2 + (p_i2 - pbar_i)^2``, df = 5.

    Parameters
    ----------
    diffs : array_like, shape (..., 5, 2)
        Differences A - B for each of 5 replications of 2-fold cv (the second
        axis from the end) and each of its two folds.  Other numbers of
        replications r are accepted; df is then r.

    Returns
    -------
    SignificanceResult
        ``direction`` is the sign of ``p_1^(1)``, the numerator, so that a
        rejection points where the statistic does.

    Notes
    -----
    All ``s_i^2 = 0``: ``t = 0, p = 1`` if ``p_1^(1) = 0``, else ``t = +-inf, p = 0``.
    """
    diffs, gaps, den_ok, e_gap = _five_by_two_parts(diffs)
    r = diffs.shape[-2]
    # s_i^2 of two values is half their squared difference
    s2 = 0.5 * gaps**2
    t, p = _t_from_mean_var(diffs[..., 0, 0], s2.mean(axis=-1), 1.0, r)
    if not den_ok.all():
        # the variance under- or overflowed: the gaps rescaled on their own (see _five_by_two_parts)
        bad = ~den_ok
        gs = np.ldexp(gaps[bad], -e_gap[bad])
        with np.errstate(over="ignore"):
            tb = np.ldexp(diffs[..., 0, 0][bad], -e_gap[bad][..., 0]) / np.sqrt((0.5 * gs * gs).mean(axis=-1))
        t, p = np.array(t, dtype=float), np.array(p, dtype=float)
        t[bad] = tb
        p[bad] = _t_two_sided(tb, r)
    return _result(t, p, np.full(np.shape(t), float(r)), diffs[..., 0, 0])


def _five_by_two_parts(diffs):
    """Checked 5x2 differences, the gaps between each replication's two folds, and the scale guards.

    Returns ``(diffs, gaps, den_ok, e_gap)``.  ``diffs`` is rescaled by a
    power of two where its values are tiny or huge (see :func:`_pow2_scale`;
    the 5x2 statistics do not depend on the scale).  ``den_ok`` is False for
    the tests whose sum of squared gaps left the safe range although some gap
    is non-zero (an underflow to 0 would make t or F infinite, an overflow
    would make them 0); for those, ``gaps * 2**-e_gap`` has its largest value
    in [0.5, 1) and the statistics are computed from it.
    """
    diffs = _five_by_two(diffs)
    diffs, _ = _pow2_scale(diffs, (-2, -1))
    gaps = diffs[..., 0] - diffs[..., 1]
    with np.errstate(over="ignore", under="ignore"):
        den = (gaps**2).sum(axis=-1)
    den_ok = (den > _VAR_SAFE_LOW) & (den < _VAR_SAFE_HIGH) | ~(gaps != 0).any(axis=-1)
    e_gap = np.zeros(gaps.shape[:-1] + (1,), dtype=int)
    if not den_ok.all():
        _, e_gap = _pow2_scale(gaps, -1, only_extreme=False)
    return diffs, gaps, den_ok, e_gap


def _sign_of_mean(x):
    """Sign of the mean over the last axis, 0 when the mean is zero up to rounding.

    A sum of values that cancel exactly in real arithmetic can round to +-1e-17
    depending on the order of addition; the direction must not depend on it.
    """
    mean = x.mean(axis=-1)
    tol = 64 * np.finfo(float).eps * np.abs(x).sum(axis=-1)
    return np.where(np.abs(mean) * x.shape[-1] <= tol, 0.0, np.sign(mean))


def five_by_two_cv_f_test(diffs) -> SignificanceResult:
    """Combined 5x2cv F test of Alpaydin (1999).

    ``F = sum_ij p_ij^2 / (2 sum_i s_i^2)``, referred to F(10, 5).

    Parameters
    ----------
    diffs : array_like, shape (..., 5, 2)
        As for :func:`five_by_two_cv_t_test`; with r replications the
        reference is F(2r, r).

    Returns
    -------
    SignificanceResult
        ``statistic`` is F (non-negative, it carries no direction); ``df`` is
        the pair ``(2r, r)`` as an array of shape (2,); ``direction`` is the
        sign of the mean of all differences.

    Notes
    -----
    All ``s_i^2 = 0``: ``F = 0, p = 1`` if every difference is 0, else
    ``F = inf, p = 0``.
    """
    diffs, gaps, den_ok, e_gap = _five_by_two_parts(diffs)
    r = diffs.shape[-2]
    num = (diffs**2).sum(axis=(-2, -1))
    den = 2.0 * (0.5 * gaps**2).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.where(num > 0, np.inf, 0.0))
    if not den_ok.all():
        # F = sum p^2 / sum g^2 = (sum p^2 / sum (g 2^-e)^2) 2^(-2e); see _five_by_two_parts
        bad = ~den_ok
        gs = np.ldexp(gaps[bad], -e_gap[bad])
        with np.errstate(over="ignore"):
            fb = np.ldexp(num[bad] / (gs * gs).sum(axis=-1), -2 * e_gap[bad][..., 0])
        f = np.array(f, dtype=float)
        f[bad] = fb
    p = np.where(np.isinf(f), 0.0, special.fdtrc(2.0 * r, float(r), np.where(np.isinf(f), 0.0, f)))
    return SignificanceResult(
        statistic=_scalar(f),
        pvalue=_scalar(np.clip(p, 0.0, 1.0)),
        df=np.array([2.0 * r, float(r)]),
        direction=_scalar(_sign_of_mean(diffs.reshape(diffs.shape[:-2] + (-1,)))),
    )


# ---------------------------------------------------------------------------
# tests on counts and proportions


def mcnemar_test(n01, n10, *, exact: bool = False, continuity: bool = True) -> SignificanceResult:
    """McNemar's test on one shared test set (McNemar 1947; Dietterich 1998).

    Parameters
    ----------
    n01 : array_like of int
        Number of test cases B classifies correctly and A wrongly.
    n10 : array_like of int
        Number of test cases A classifies correctly and B wrongly; broadcast
        against ``n01``.
    exact : bool, default False
        Use the exact two-sided binomial test of ``n10`` successes in
        ``n01 + n10`` trials with theta = 1/2 instead of the chi-square
        approximation.
    continuity : bool, default True
        Edwards' continuity correction of the chi-square statistic (ignored
        when ``exact``).

    Returns
    -------
    SignificanceResult
        Chi-square version: ``statistic = (|n01 - n10| - 1)^2 / (n01 + n10)``
        (without the ``- 1`` when ``continuity=False``), ``df = 1``.  Exact
        version: ``statistic = n10 / (n01 + n10)`` (1/2 when there are no
        discordant cases), ``df`` None.  ``direction = sign(n10 - n01)``.

    Notes
    -----
    The correction never takes ``|n01 - n10|`` below 0, so equal counts give
    ``statistic = 0`` and ``pvalue = 1``.  No discordant cases
    (``n01 + n10 = 0``): ``statistic = 0`` (1/2 exact), ``pvalue = 1``.
    """
    b = _as_counts(n01, "n01")
    c = _as_counts(n10, "n10")
    try:
        b, c = np.broadcast_arrays(b, c)
    except ValueError as exc:
        raise InputError(f"n01: shape {np.shape(b)} does not broadcast with n10 of shape {np.shape(c)}") from exc
    with np.errstate(over="ignore"):
        m = b + c
    if np.isinf(m).any():
        raise InputError("n01: n01 + n10 is too large to represent")
    if exact:
        tail = _binom_cdf_continuous(np.minimum(b, c), m)
        p = np.where(m > 0, np.minimum(1.0, 2.0 * tail), 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = np.where(m > 0, c / np.where(m > 0, m, 1.0), 0.5)
        return _result(stat, p, None, c - b)
    d = np.abs(c - b)
    if continuity:
        d = np.maximum(d - 1.0, 0.0)
    with np.errstate(over="ignore"):
        d2 = d * d
    # a count above about 1e154 overflows d^2; d (d / m) is the same number without the overflow
    d2_over_m = np.where(np.isinf(d2), d * (d / np.where(m > 0, m, 1.0)), d2 / np.where(m > 0, m, 1.0))
    stat = np.where(m > 0, d2_over_m, 0.0)
    p = special.chdtrc(1.0, stat)
    return _result(stat, p, np.ones(np.shape(stat)), c - b)


def proportions_z_test(err_a, n_a, err_b, n_b) -> SignificanceResult:
    """z test for two error rates measured on different test sets (Mooney's slides).

    ``z = (e_b - e_a) / sqrt(e_a (1 - e_a) / n_a + e_b (1 - e_b) / n_b)``.

    Parameters
    ----------
    err_a, err_b : array_like
        Error rates of A and B in [0, 1] (fractions, not percentages).
    n_a, n_b : array_like
        Sizes (> 0) of the test sets they were measured on.  All four
        arguments broadcast together.

    Returns
    -------
    SignificanceResult
        ``statistic = z``, positive when A has the lower error; two-sided p
        from N(0, 1); ``df`` None; ``direction = sign(e_b - e_a)``.

    Notes
    -----
    Zero estimated variance (each error rate 0 or 1): equal rates give
    ``z = 0, p = 1``; different rates give ``z = +-inf, p = 0``, as for the
    t-tests.  Mooney's example: 0.20 vs 0.30 on 100 cases each gives
    ``|z| = 1.644``.
    """
    ea = as_float_array(err_a, "err_a")
    eb = as_float_array(err_b, "err_b")
    na = as_float_array(n_a, "n_a")
    nb = as_float_array(n_b, "n_b")
    for name, e in (("err_a", ea), ("err_b", eb)):
        if ((e < 0) | (e > 1)).any():
            raise InputError(f"{name}: error rates must lie in [0, 1]")
    for name, m in (("n_a", na), ("n_b", nb)):
        if np.isinf(m).any() or (m <= 0).any():
            raise InputError(f"{name}: test-set sizes must be finite and > 0")
    try:
        ea, na, eb, nb = np.broadcast_arrays(ea, na, eb, nb)
    except ValueError as exc:
        raise InputError("err_a: err_a, n_a, err_b and n_b do not broadcast together") from exc
    diff = eb - ea
    with np.errstate(over="ignore", under="ignore"):
        var = ea * (1.0 - ea) / na + eb * (1.0 - eb) / nb
    # mathematically zero only when each rate is 0 or 1; otherwise an underflow to 0 or an
    # overflow to inf would give z = +-inf or 0: there the standard error is taken by hypot
    nonzero = ((ea > 0) & (ea < 1)) | ((eb > 0) & (eb < 1))
    unsafe = nonzero & ~((var > _VAR_SAFE_LOW) & (var < _VAR_SAFE_HIGH))
    if unsafe.any():
        with np.errstate(over="ignore", under="ignore"):
            se = np.hypot(np.sqrt(ea) * np.sqrt(1.0 - ea) / np.sqrt(na), np.sqrt(eb) * np.sqrt(1.0 - eb) / np.sqrt(nb))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, diff / np.sqrt(np.where(var > 0, var, 1.0)), np.sign(diff) * np.inf)
        if unsafe.any():
            z = np.where(unsafe, diff / np.where(unsafe, se, 1.0), z)
    z = np.where(~nonzero & (diff == 0), 0.0, z)
    return _result(z, _normal_two_sided(z), None, diff)


def difference_of_proportions_test(err_a, err_b, n) -> SignificanceResult:
    """Dietterich's (1998) test for the difference of two error rates on one test set of ``n`` cases.

    ``z = (p_A - p_B) / sqrt(2 p (1 - p) / n)`` with ``p = (p_A + p_B) / 2``: the
    two rates are treated as independent binomial proportions, which they are
    not when measured on the same cases (Dietterich's reason to advise against it).

    Parameters
    ----------
    err_a, err_b : array_like
        Error rates of A and B in [0, 1], broadcast together.
    n : array_like
        Size (> 0) of the test set.

    Returns
    -------
    SignificanceResult
        ``statistic = z``, positive when A has the lower error; two-sided p
        from N(0, 1); ``df`` None; ``direction = sign(p_B - p_A)``.  Equal rates
        give ``z = 0, p = 1``; different rates with ``p (1 - p) = 0`` cannot
        happen (p is then 0 or 1 only when both rates are).
    """
    ea = as_float_array(err_a, "err_a")
    eb = as_float_array(err_b, "err_b")
    m = as_float_array(n, "n")
    for name, e in (("err_a", ea), ("err_b", eb)):
        if ((e < 0) | (e > 1)).any():
            raise InputError(f"{name}: error rates must lie in [0, 1]")
    if np.isinf(m).any() or (m <= 0).any():
        raise InputError("n: the test-set size must be finite and > 0")
    try:
        ea, eb, m = np.broadcast_arrays(ea, eb, m)
    except ValueError as exc:
        raise InputError("err_a: err_a, err_b and n do not broadcast together") from exc
    pooled = (ea + eb) / 2.0
    var = 2.0 * pooled * (1.0 - pooled) / m
    diff = eb - ea
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, diff / np.sqrt(np.where(var > 0, var, 1.0)), 0.0)
    return _result(z, _normal_two_sided(z), None, diff)
