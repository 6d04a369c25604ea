"""Calibrated t-tests: the degrees of freedom that give the nominal Type I error on a null source.

Bouckaert (ICML 2003) proposed to repair a t-test whose samples are dependent
(the folds and runs of a repeated cross-validation share their training data) by
*calibration*: keep the t statistic of a sampling scheme, and choose the degrees
of freedom of its reference distribution so that the test rejects a true null
hypothesis at the nominal rate.  The effective degrees of freedom are found by
simulation on a source where both learners have the same expected accuracy.

Here the statistic of scheme S is the paired t statistic of S's sample
(:func:`simstudy.pipeline.schemes.scheme_sample`) and the calibrated degrees of freedom
``nu_S`` solve ``t_{nu, 1 - alpha/2} = q``, with ``q`` the empirical
``1 - alpha`` quantile of ``|t|`` over the null data sets and experiments.  When
``q`` is below the normal quantile no ``nu`` makes the test reject often enough
(the scheme is conservative even with infinitely many degrees of freedom) and
``nu`` is infinite.

The shipped table (``simstudy/pipeline/data/calibrated_df.json``) is made by
``scripts/calibrate_tests.py`` from stored runs of ``bouckaert1``: it calibrates
on the even-numbered null data sets and reports the Type I error on the odd ones,
with a bootstrap interval of each ``nu`` over data sets.  It holds for the design
it was calibrated on (a 10 x 10 cv of 300 cases, C4.5 against naive Bayes); the
registered tests ``calibrated_t_SCHEME`` (they take the cv matrix) refuse
another shape.
"""

from __future__ import annotations

import functools
import json
import math
from importlib import resources

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import InputError
from simstudy.pipeline.schemes import SCHEMES, scheme_sample
from simstudy.statistics import significance as h

optimize = lazy_module("scipy.optimize")
stats = lazy_module("scipy.stats")

__all__ = ["calibrated_df", "calibration_table", "calibrated_t_test", "load_calibration", "CALIBRATION_FILE"]

CALIBRATION_FILE = "calibrated_df.json"
MAX_DF = 1e6


def calibrated_df(statistics, alpha: float = 0.05) -> float:
    """The degrees of freedom at which the two-sided t-test on ``statistics`` rejects at rate ``alpha``.

    Parameters
    ----------
    statistics : array_like
        t statistics computed on data where the null hypothesis holds.
    alpha : float

    Returns
    -------
    float
        ``nu`` with ``t_{nu, 1 - alpha/2}`` equal to the ``1 - alpha`` quantile of
        ``|statistics|``; ``inf`` when that quantile is at most the normal one.
    """
    t = np.abs(np.asarray(statistics, dtype=float))
    t = t[np.isfinite(t)]
    if t.size == 0:
        raise InputError("statistics: no finite values to calibrate on")
    q = float(np.quantile(t, 1 - alpha))
    z = float(stats.norm.ppf(1 - alpha / 2))
    if q <= z:
        return math.inf
    f = lambda nu: stats.t.ppf(1 - alpha / 2, nu) - q  # noqa: E731 - decreasing in nu
    if f(MAX_DF) > 0:
        return math.inf
    low = 0.05
    if f(low) < 0:
        return low
    return float(optimize.brentq(f, low, MAX_DF, xtol=1e-6, rtol=1e-10))


def calibration_table(rows, *, alpha: float = 0.05, n_boot: int = 200, seed: int = 0):
    """Calibrated degrees of freedom per scheme, from the paired-t rows of a null source.

    Parameters
    ----------
    rows : DataFrame
        Outcome rows (``replication``, ``experiment``, ``scheme``, ``statistic``)
        of the paired t-test on null data sets.
    alpha : float
    n_boot : int
        Bootstrap samples of the data sets (replications) for the interval of ``nu``.
    seed : int
        Seed of the bootstrap.

    Returns
    -------
    DataFrame
        Per scheme: ``df``, ``df_low``, ``df_high`` (95% bootstrap interval),
        ``n_datasets`` and ``n_statistics``.
    """
    import pandas as pd

    rng = np.random.default_rng(seed)
    out = []
    for scheme, grp in rows.groupby("scheme", sort=False):
        wide = grp.pivot_table(index="replication", columns="experiment", values="statistic", aggfunc="first")
        t = wide.to_numpy(float)
        nu = calibrated_df(t.ravel(), alpha)
        boots = []
        for _ in range(n_boot):
            pick = rng.integers(0, t.shape[0], t.shape[0])
            boots.append(calibrated_df(t[pick].ravel(), alpha))
        lo, hi = np.quantile(np.asarray(boots), [0.025, 0.975])
        out.append(
            {
                "scheme": scheme,
                "df": nu,
                "df_low": float(lo),
                "df_high": float(hi),
                "n_datasets": int(t.shape[0]),
                "n_statistics": int(np.isfinite(t).sum()),
            }
        )
    return pd.DataFrame(out)


@functools.lru_cache(maxsize=1)
def load_calibration() -> dict:
    """The shipped calibration (``simstudy/pipeline/data/calibrated_df.json``) as a dict."""
    text = resources.files("simstudy.pipeline.data").joinpath(CALIBRATION_FILE).read_text()
    return json.loads(text)


def calibrated_t_test(x, *, scheme: str, df: float | None = None) -> h.SignificanceResult:
    """The t-test of a scheme's sample with the scheme's calibrated degrees of freedom.

    Parameters
    ----------
    x : array_like, shape (..., n_runs, n_folds)
        Differences A - B of a repeated cross-validation.
    scheme : str
        One of :data:`simstudy.pipeline.schemes.SCHEMES`.
    df : float, optional
        The degrees of freedom (default: the shipped calibration for ``scheme``,
        which requires the calibrated design's shape).

    Returns
    -------
    SignificanceResult
        The paired t statistic of the scheme's sample, its two-sided p-value
        with ``df`` degrees of freedom (the normal distribution for infinite
        ``df``), ``df`` and the direction.
    """
    x = np.asarray(x, dtype=float)
    if df is None:
        cal = load_calibration()
        shape = tuple(cal["design"]["shape"])
        if x.shape[-2:] != shape:
            raise InputError(
                f"x: the calibrated t-test of scheme {scheme!r} was calibrated on a "
                f"{shape[0]} x {shape[1]} cv, got {x.shape[-2]} x {x.shape[-1]}"
            )
        df = float(cal["schemes"][scheme]["df"])
    base = h.paired_t_test(scheme_sample(x, scheme))
    t = np.asarray(base.statistic, dtype=float)
    if math.isinf(df):
        p = 2 * stats.norm.sf(np.abs(t))
    else:
        p = 2 * stats.t.sf(np.abs(t), df)
    p = np.where(np.isnan(t), np.nan, p)
    return h.SignificanceResult(
        statistic=base.statistic, pvalue=p if p.ndim else float(p), df=df, direction=base.direction
    )


def _registered(scheme):
    def test(x):
        return calibrated_t_test(x, scheme=scheme)

    test.__name__ = f"calibrated_t_{scheme}"
    return test


def register(register_test) -> None:
    """Register ``calibrated_t_SCHEME`` for every scheme (called by :mod:`simstudy.pipeline.outcomes`)."""
    for scheme in SCHEMES:
        register_test(
            f"calibrated_t_{scheme}",
            _registered(scheme),
            takes="cv",
            in_all=False,
            correction="calibrated",
            citation="Bouckaert (2003)",
            description=f"t-test of the {scheme} sample with calibrated degrees of freedom "
            "(Bouckaert 2003; calibrated for a 10 x 10 cv)",
        )
