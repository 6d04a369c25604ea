"""The distribution functions of the replication models, computed as scipy.stats computes them, without it.

Importing ``scipy.stats`` takes about half a second (it brings in scipy's
optimisers, spatial and sparse modules); the replication calculator needs a
dozen functions of six distributions.  Each function here evaluates the same
``scipy.special`` kernel that scipy.stats' distribution calls, on the same
elements, with the same handling of the support and of invalid parameters
(``rv_continuous`` / ``rv_discrete`` with ``loc = 0``, ``scale = 1``), so the
numbers are identical to the last bit: ``tests/statistics/test_distributions.py``
compares them with scipy.stats on grids that include the edges of every
support.

Some kernels are private to scipy (``scipy.special._ufuncs``).  When a scipy
release no longer has one of them, every function here falls back to
scipy.stats itself (the same numbers, a slower start).
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = [
    "binom_sf",
    "binom_cdf",
    "binom_isf",
    "beta_ppf",
    "beta_pdf",
    "norm_sf",
    "norm_isf",
    "t_sf",
    "t_isf",
    "nct_ppf",
    "nct_sf",
    "chi2_isf",
    "chi2_ppf",
]

_PRIVATE = ("_binom_sf", "_binom_cdf", "_binom_isf", "_beta_ppf", "_beta_pdf", "_nct_sf")
_kernels: dict | None = None


def _k() -> dict:
    """The scipy.special kernels, or an empty dict when the private ones are missing (use scipy.stats)."""
    global _kernels
    if _kernels is None:
        from scipy import special
        from scipy.special import _ufuncs

        if all(hasattr(_ufuncs, n) for n in _PRIVATE):
            _kernels = {n: getattr(_ufuncs, n) for n in _PRIVATE}
            _kernels.update(
                {
                    n: getattr(special, n)
                    for n in ("ndtr", "ndtri", "stdtr", "stdtrit", "nctdtrit", "chdtri", "gammaincinv")
                }
            )
        else:  # pragma: no cover - depends on the scipy release
            _kernels = {}
    return _kernels


def _scipy_stats_if_missing(dist: str, method: str):
    """Decorate ``f(kern, *args)``: called with the kernels, or ``scipy.stats.DIST.METHOD(*args)`` without them."""

    def wrap(f):
        @functools.wraps(f)
        def call(*args):
            kern = _k()
            if not kern:  # a scipy release without the private kernels
                from scipy import stats

                return getattr(getattr(stats, dist), method)(*args)
            return f(kern, *args)

        del call.__wrapped__  # the signature shown is the distribution's, without the kernels
        return call

    return wrap


# -- the parts of rv_continuous / rv_discrete the models use (loc = 0, scale = 1) -------------------


def _positive(*args):
    """rv_generic's default parameter check: every shape parameter > 0."""
    cond = True
    for a in args:
        cond = np.logical_and(cond, np.asarray(a) > 0)
    return cond


def _reduce(cond, *args):
    """The elements of ``args`` (broadcast to ``cond``) where ``cond`` holds; size-1 arguments stay as they are."""
    args = [np.atleast_1d(a) for a in args]
    if np.all(cond):
        *args, cond = np.broadcast_arrays(*args, cond)
        return [a.ravel() for a in args]
    shape = cond.shape
    return [a if np.size(a) == 1 else np.extract(cond, np.broadcast_to(a, shape)) for a in args]


def _finish(out):
    return out[()] if out.ndim == 0 else out


def _c_sf(x, args, ok, lower, upper, kernel):
    x = np.asarray(x)
    x = np.asarray(x, dtype=np.promote_types(x.dtype, np.float64))
    ok = np.asarray(ok) & True
    inside = (lower < x) & (x < upper)
    cond = ok & inside
    out = np.zeros(np.shape(cond), x.dtype)
    np.place(out, ~ok | np.isnan(x), np.nan)
    np.place(out, ok & (x <= lower), 1.0)
    if np.any(cond):
        np.place(out, cond, kernel(*_reduce(cond, x, *args)))
    return _finish(out)


def _c_pdf(x, args, ok, lower, upper, kernel):
    x = np.asarray(x)
    x = np.asarray(x, dtype=np.promote_types(x.dtype, np.float64))
    ok = np.asarray(ok) & True
    cond = ok & (lower <= x) & (x <= upper)
    out = np.zeros(np.shape(cond), x.dtype)
    np.putmask(out, ~ok | np.isnan(x), np.nan)
    if np.any(cond):
        np.place(out, cond, kernel(*_reduce(cond, x, *args)) / 1)
    return _finish(out)


def _c_quantile(q, args, ok, lower, upper, kernel, *, upper_tail: bool):
    q = np.asarray(q)
    ok = np.asarray(ok) & True
    cond = ok & (0 < q) & (q < 1)
    out = np.full(np.shape(cond), fill_value=np.nan)
    at_zero, at_one = (upper, lower) if upper_tail else (lower, upper)
    np.place(out, ok & (q == 0), at_zero)
    np.place(out, ok & (q == 1), at_one)
    if np.any(cond):
        np.place(out, cond, kernel(*_reduce(cond, q, *args)) * 1 + 0)
    return _finish(out)


def _binom_ok(n, p):
    n, p = np.asarray(n), np.asarray(p)
    return (n >= 0) & (n == np.round(n)) & (p >= 0) & (p <= 1)


def _d_tail(k, n, p, kernel, *, survival: bool):
    k, n, p = np.asarray(k), np.asarray(n), np.asarray(p)
    k = np.asarray(k - 0)
    ok = _binom_ok(n, p)
    cond = ok & (k >= 0) & (k < n) & np.isfinite(k)
    out = np.zeros(np.shape(cond), "d")
    if survival:
        np.place(out, ~ok | np.isnan(k), np.nan)
        np.place(out, ((k < 0) | np.isneginf(k)) & ok, 1.0)
    else:
        np.place(out, (k >= n) * (ok == ok), 1.0)
        np.place(out, np.isneginf(k) * (ok == ok), 0.0)
        np.place(out, ~ok | np.isnan(k), np.nan)
    if np.any(cond):
        kk, nn, pp = _reduce(cond, k, n, p)
        np.place(out, cond, np.clip(kernel(np.floor(kk), nn, pp), 0, 1))
    return _finish(out)


# -- the distributions ------------------------------------------------------------------------------


@_scipy_stats_if_missing("binom", "sf")
def binom_sf(kern, k, n, p):
    """``scipy.stats.binom.sf(k, n, p)``."""
    return _d_tail(k, n, p, kern["_binom_sf"], survival=True)


@_scipy_stats_if_missing("binom", "cdf")
def binom_cdf(kern, k, n, p):
    """``scipy.stats.binom.cdf(k, n, p)``."""
    return _d_tail(k, n, p, kern["_binom_cdf"], survival=False)


@_scipy_stats_if_missing("binom", "isf")
def binom_isf(kern, q, n, p):
    """``scipy.stats.binom.isf(q, n, p)``."""
    q, n, p = np.asarray(q), np.asarray(n), np.asarray(p)
    ok = _binom_ok(n, p)
    cond = ok & (q > 0) & (q < 1)
    out = np.full(np.shape(cond), fill_value=np.nan, dtype="d")
    at_one, at_zero = ok & (q == 1), ok & (q == 0)
    np.place(out, at_one, _reduce(at_one, np.asarray(-1))[0])
    np.place(out, at_zero, _reduce(at_zero, n + 0)[0])
    if np.any(cond):
        np.place(out, cond, kern["_binom_isf"](*_reduce(cond, q, n, p)) + 0)
    return _finish(out)


@_scipy_stats_if_missing("beta", "ppf")
def beta_ppf(kern, q, a, b):
    """``scipy.stats.beta.ppf(q, a, b)``."""
    return _c_quantile(q, (a, b), _positive(a, b), 0.0, 1.0, kern["_beta_ppf"], upper_tail=False)


@_scipy_stats_if_missing("beta", "pdf")
def beta_pdf(kern, x, a, b):
    """``scipy.stats.beta.pdf(x, a, b)``."""

    def kernel(x, a, b):
        with np.errstate(over="ignore"):
            return kern["_beta_pdf"](x, a, b)

    return _c_pdf(x, (a, b), _positive(a, b), 0.0, 1.0, kernel)


@_scipy_stats_if_missing("norm", "sf")
def norm_sf(kern, x):
    """``scipy.stats.norm.sf(x)``."""
    return _c_sf(x, (), True, -np.inf, np.inf, lambda x: kern["ndtr"](-x))


@_scipy_stats_if_missing("norm", "isf")
def norm_isf(kern, q):
    """``scipy.stats.norm.isf(q)``."""
    return _c_quantile(q, (), True, -np.inf, np.inf, lambda q: -kern["ndtri"](q), upper_tail=True)


@_scipy_stats_if_missing("t", "sf")
def t_sf(kern, x, df):
    """``scipy.stats.t.sf(x, df)``."""
    return _c_sf(x, (df,), _positive(df), -np.inf, np.inf, lambda x, df: kern["stdtr"](df, -x))


@_scipy_stats_if_missing("t", "isf")
def t_isf(kern, q, df):
    """``scipy.stats.t.isf(q, df)``."""
    return _c_quantile(q, (df,), _positive(df), -np.inf, np.inf, lambda q, df: -kern["stdtrit"](df, q), upper_tail=True)


def _nct_ok(df, nc):
    df, nc = np.asarray(df), np.asarray(nc)
    return (df > 0) & (nc == nc)


@_scipy_stats_if_missing("nct", "ppf")
def nct_ppf(kern, q, df, nc):
    """``scipy.stats.nct.ppf(q, df, nc)``."""
    return _c_quantile(
        q, (df, nc), _nct_ok(df, nc), -np.inf, np.inf, lambda q, df, nc: kern["nctdtrit"](df, nc, q), upper_tail=False
    )


@_scipy_stats_if_missing("nct", "sf")
def nct_sf(kern, x, df, nc):
    """``scipy.stats.nct.sf(x, df, nc)``."""

    def kernel(x, df, nc):
        with np.errstate(over="ignore"):
            return np.clip(kern["_nct_sf"](x, df, nc), 0, 1)

    return _c_sf(x, (df, nc), _nct_ok(df, nc), -np.inf, np.inf, kernel)


@_scipy_stats_if_missing("chi2", "isf")
def chi2_isf(kern, q, df):
    """``scipy.stats.chi2.isf(q, df)``."""
    return _c_quantile(q, (df,), _positive(df), 0.0, np.inf, lambda q, df: kern["chdtri"](df, q), upper_tail=True)


@_scipy_stats_if_missing("chi2", "ppf")
def chi2_ppf(kern, q, df):
    """``scipy.stats.chi2.ppf(q, df)``."""
    return _c_quantile(
        q, (df,), _positive(df), 0.0, np.inf, lambda q, df: 2 * kern["gammaincinv"](df / 2, q), upper_tail=False
    )
