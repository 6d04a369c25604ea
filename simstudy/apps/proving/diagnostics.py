"""Why a test is liberal: how the paired differences of one data set's splits correlate, from stored scores.

Every t-type test on ``m`` differences of one data set divides their mean by
``sqrt(c S^2)``, with ``S^2`` their sample variance and ``c`` the *variance
factor*: ``1/m`` when the differences are taken as independent, ``1/m +
n_test/n_train`` for the corrected tests of Nadeau and Bengio (2003) and
Bouckaert and Frank (2004), which assume that the differences of two splits
of one data set correlate by ``rho = n_test / n`` (0.1 for 90/10 splits).
The factor a test *needs* is ``Var(mean) / E[S^2]`` over data sets and
partitions, which the stored scores measure directly; a test whose factor is
smaller than the one its data need rejects too often.  With equicorrelated
differences the needed factor is ``(1/m + rho (m - 1)/m) / (1 - rho)``, so the
*effective correlation* ``rho = (c - 1/m) / (c + 1 - 1/m)`` is reported beside it.

Also per scenario and design:

* the correlation of the differences of two splits of one data set, measured
  pair by pair: *between* splits of different runs (independent partitions:
  their covariance is the variance over data sets of a data set's expected
  difference, which the corrected tests posit to be ``n_test / n`` of the
  total) and *within* a run (folds of one partition, whose test sets are
  disjoint).  A stable learner's prediction for a case hardly depends on which
  other cases train it, so disjoint test sets give nearly uncorrelated results
  and the between-partition correlation stays near ``n_test / n``.  An unstable
  learner's prediction for a case depends on the particular cases near it
  (1-NN's neighbours, a tree's last splits), which the other splits of the data
  set train on too: results of *different* cases correlate, within a partition
  and between partitions, beyond what the overlap of test sets explains;
* the *training-set share*: a split's difference is the gap of the two fitted
  models on the population plus the noise of its test set.  The test-set part
  is measured from the split's discordant cases (given the models, the test
  cases are independent draws: ``E[v] / (n_test - 1)`` with ``v`` the variance
  of the case-wise differences of correctness), the rest is the variance of the
  fitted models' gap over training sets: what a test on one test set (McNemar,
  the difference of proportions) cannot see.

Intervals are 95% percentile intervals of a bootstrap over data sets (the
independent unit), with a fixed seed so that a report is reproducible.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import InputError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")
stats = lazy_module("scipy.stats")

__all__ = ["split_diagnostics", "sample_factors", "corrected_with_measured_factor", "explain", "N_BOOT"]

N_BOOT = 400
SEED = 20041


def _blocks(scores: pd.DataFrame):
    """Per (scenario, design): the differences as (data sets, experiments, runs, folds), and the counts if stored."""
    cols = ["condition", "design", "replication", "experiment", "run", "fold"]
    scores = scores.sort_values(cols, kind="stable")
    for (cond, design), g in scores.groupby(["condition", "design"], sort=False):
        shape = (g["replication"].nunique(), g["experiment"].nunique(), g["run"].nunique(), g["fold"].nunique())
        if len(g) != int(np.prod(shape)):
            raise InputError(f"scores: the stored scores of {cond} / {design} do not form complete blocks")
        d = (g["acc_a"].to_numpy(float) - g["acc_b"].to_numpy(float)).reshape(shape)
        disc = None
        if {"n01", "n10"} <= set(g.columns):
            disc = (g["n01"].to_numpy(float) + g["n10"].to_numpy(float)).reshape(shape)
        yield cond, design, d, disc, int(g["n_train"].iloc[0]), int(g["n_test"].iloc[0])


def _weights(n_sets: int, n_boot: int, seed: int) -> np.ndarray:
    """Row 0: every data set once (the estimate); rows 1..n_boot: bootstrap counts."""
    rng = np.random.default_rng([seed, n_sets])
    w = np.ones((n_boot + 1, n_sets))
    if n_boot:
        w[1:] = rng.multinomial(n_sets, np.full(n_sets, 1.0 / n_sets), size=n_boot)
    return w


def _interval(values: np.ndarray) -> tuple[float, float, float]:
    """(estimate, low, high) from row 0 and the bootstrap rows."""
    boot = values[1:][np.isfinite(values[1:])]
    if not boot.size or not np.isfinite(values[0]):
        return float(values[0]), np.nan, np.nan
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return float(values[0]), float(lo), float(hi)


def _block_stats(d: np.ndarray, disc, n_test: int, w: np.ndarray) -> dict:
    """Weighted (bootstrap) estimates of the block's variance components and correlations."""
    S, E, R, K = d.shape
    N = E * R * K  # splits per data set
    flat = d.reshape(S, N)
    T = flat.sum(axis=1)  # per data set: sum, sum of squares, per-run sums
    Q = (flat**2).sum(axis=1)
    run_sums = d.sum(axis=3).reshape(S, E * R)
    C = (run_sums**2).sum(axis=1)
    within_products, between_products = C - Q, T**2 - C
    wsum = w.sum(axis=1)
    mu = (w @ T) / (wsum * N)
    sigma2 = (w @ Q) / (wsum * N) - mu**2
    out = {"sigma2": sigma2}
    between_partners = N - K
    if between_partners > 0:
        cov_b = (w @ between_products) / (wsum * N * between_partners) - mu**2
        out["rho_between"] = cov_b / sigma2
    else:
        out["rho_between"] = np.full(w.shape[0], np.nan)
    if K > 1:
        cov_w = (w @ within_products) / (wsum * N * (K - 1)) - mu**2
        out["rho_within"] = cov_w / sigma2
    else:
        out["rho_within"] = np.full(w.shape[0], np.nan)
    if disc is not None and n_test > 1:
        v = disc / n_test - d**2  # per split: variance of the case-wise differences (divisor n)
        test_var = (w @ v.reshape(S, N).sum(axis=1)) / (wsum * N) / (n_test - 1)
        out["test_share"] = test_var / sigma2
        out["train_share"] = 1.0 - test_var / sigma2
    else:
        out["test_share"] = out["train_share"] = np.full(w.shape[0], np.nan)
    return out


def _factor_stats(sample: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Needed variance factor Var(mean) / E[S^2] of samples (data sets, experiments, m), per weight row."""
    S, E, m = sample.shape
    if m < 2:
        return np.full(w.shape[0], np.nan)
    xbar = sample.mean(axis=2)
    s2 = sample.var(axis=2, ddof=1)
    wsum = w.sum(axis=1) * E
    mu = (w @ xbar.sum(axis=1)) / wsum
    var_mean = (w @ (xbar**2).sum(axis=1)) / wsum - mu**2
    return var_mean / ((w @ s2.sum(axis=1)) / wsum)


def _design_kind(design: str) -> str:
    """``cv``, ``5x2``, ``resampled`` or ``holdout`` for a design of the proving ground's grammar ("" otherwise)."""
    from simstudy.pipeline.designs import parse_designs

    try:
        return parse_designs([design])[0].kind
    except ValueError:
        return ""


def _samples(d: np.ndarray, kind: str) -> dict:
    """The samples the tests of a design read: the whole design, and for an r x k cv each scheme's."""
    from simstudy.pipeline.schemes import SCHEMES, scheme_sample

    S, E, R, K = d.shape
    out = {"": d.reshape(S, E, R * K)}
    if kind == "cv":
        for scheme in SCHEMES:
            out[scheme] = scheme_sample(d, scheme)
    return out


def split_diagnostics(scores: pd.DataFrame, *, n_boot: int = N_BOOT, seed: int = SEED) -> pd.DataFrame:
    """Per scenario and design: variance components and correlations of the paired differences, with intervals.

    Parameters
    ----------
    scores : DataFrame
        Stored proving-ground scores: ``condition``, ``replication``, ``design``,
        ``experiment``, ``run``, ``fold``, ``acc_a``, ``acc_b``, ``n_train``,
        ``n_test`` and, for the training-set component, ``n01`` and ``n10``.
    n_boot : int
        Bootstrap samples of data sets for the intervals (0: none).
    seed : int

    Returns
    -------
    DataFrame
        ``scenario``, ``design``, ``data_sets``, ``sd`` (of a split's
        difference, accuracy points), and each of ``rho_between``,
        ``rho_within``, ``train_share``, ``factor_needed`` (the whole design's
        mean) with ``_low``/``_high``; ``rho_assumed`` (n_test / n),
        ``factor_corrected`` and ``factor_independent`` (what the corrected and
        the uncorrected t-tests use), ``rho_effective`` (from the needed factor).
    """
    rows = []
    for cond, design, d, disc, n_train, n_test in _blocks(scores):
        w = _weights(d.shape[0], n_boot, seed)
        st = _block_stats(d, disc, n_test, w)
        S, E, R, K = d.shape
        m = R * K
        factor = _factor_stats(d.reshape(S, E, m), w)
        row = {
            "scenario": cond,
            "design": design,
            "data_sets": S,
            "splits": m,
            "sd": 100 * float(np.sqrt(max(st["sigma2"][0], 0.0))),
        }
        for name, values in (
            ("rho_between", st["rho_between"]),
            ("rho_within", st["rho_within"]),
            ("train_share", st["train_share"]),
            ("factor_needed", factor),
        ):
            est, lo, hi = _interval(values)
            row.update({name: est, f"{name}_low": lo, f"{name}_high": hi})
        row["rho_assumed"] = n_test / (n_train + n_test)
        row["factor_corrected"] = 1.0 / m + n_test / n_train if m > 1 else np.nan
        row["factor_independent"] = 1.0 / m if m > 1 else np.nan
        c = row["factor_needed"]
        row["rho_effective"] = (c - 1.0 / m) / (c + 1.0 - 1.0 / m) if m > 1 and np.isfinite(c) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def sample_factors(scores: pd.DataFrame, *, n_boot: int = N_BOOT, seed: int = SEED) -> pd.DataFrame:
    """Per scenario, design and scheme (``""``: every difference of the design): the needed variance factor.

    Returns
    -------
    DataFrame
        ``scenario``, ``design``, ``scheme``, ``m`` (sample size),
        ``factor_needed`` with ``_low``/``_high``, and ``factor_independent`` (1/m).
    """
    rows = []
    for cond, design, d, _, _, _ in _blocks(scores):
        w = _weights(d.shape[0], n_boot, seed)
        for scheme, sample in _samples(d, _design_kind(design)).items():
            m = sample.shape[-1]
            est, lo, hi = _interval(_factor_stats(sample, w))
            rows.append(
                {
                    "scenario": cond,
                    "design": design,
                    "scheme": scheme,
                    "m": m,
                    "factor_needed": est,
                    "factor_needed_low": lo,
                    "factor_needed_high": hi,
                    "factor_independent": 1.0 / m if m > 1 else np.nan,
                }
            )
    return pd.DataFrame(rows)


def corrected_with_measured_factor(scores: pd.DataFrame, nulls, *, alpha: float = 0.05) -> pd.DataFrame:
    """Type I error of the corrected t-tests with the variance factor measured instead of assumed.

    Cross-fitted: the factor applied to the data sets of even replication
    number is measured on the odd ones, and the other way round, so no data
    set's own differences set its factor.

    Parameters
    ----------
    scores : DataFrame
        Stored scores (as for :func:`split_diagnostics`).
    nulls : iterable of str
        The null scenarios.
    alpha : float

    Returns
    -------
    DataFrame
        ``scenario``, ``design``, ``factor_used`` (mean of the two halves'),
        ``type1`` with ``type1_low``/``type1_high`` (percent; 95% intervals over data sets).
    """
    from simstudy.statistics.size_control import rate_intervals

    nulls = set(nulls)
    rows = []
    for cond, design, d, _, _, _ in _blocks(scores[scores["condition"].isin(nulls)]):
        S, E, R, K = d.shape
        m = R * K
        if m < 2 or S < 4:
            continue
        x = d.reshape(S, E, m)
        xbar, s2 = x.mean(axis=2), x.var(axis=2, ddof=1)
        half = np.arange(S) % 2
        one = np.ones((1, S))
        factors = {h: float(_factor_stats(x[half != h], one[:, half != h])[0]) for h in (0, 1)}
        c = np.where(half == 0, factors[0], factors[1])[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = xbar / np.sqrt(c * s2)
            p = np.where(s2 > 0, 2 * stats.t.sf(np.abs(t), m - 1), np.where(xbar == 0, 1.0, 0.0))
        shares = (p <= alpha).mean(axis=1)
        iv = rate_intervals(shares, n_repeats=E).iloc[0]
        rows.append(
            {
                "scenario": cond,
                "design": design,
                "factor_used": (factors[0] + factors[1]) / 2,
                "type1": 100 * iv["rate"],
                "type1_low": 100 * iv["low"],
                "type1_high": 100 * iv["high"],
            }
        )
    return pd.DataFrame(rows)


#: The variance factor each test assumes for the sample it reads: "independent" (1/m), "corrected"
#: (1/m + n_test/n_train), or the assumption it makes instead.
_ASSUMES = {"uncorrected": "independent", "corrected": "corrected", "5x2cv": "runs", "one split": "test set"}


def _assumes(test: str) -> str | None:
    """What a registered test assumes, from its registered correction (None: a plug-in, or calibrated)."""
    from simstudy.pipeline.outcomes import get_test

    try:
        return _ASSUMES.get(get_test(test).correction)
    except ValueError:
        return None


def explain(procedure_info: dict, split_row, factor_row) -> str:
    """One sentence: what the diagnostics say about a liberal verdict of a procedure on one scenario.

    Parameters
    ----------
    procedure_info : dict
        ``design``, ``scheme``, ``test`` of the procedure.
    split_row : mapping or None
        The procedure's design on the scenario in :func:`split_diagnostics`.
    factor_row : mapping or None
        The procedure's sample (design and scheme) in :func:`sample_factors`.

    Returns
    -------
    str
        The measured quantity against the test's assumption, and whether it explains the verdict.
    """
    test = procedure_info["test"]
    assumes = _assumes(test)

    def iv(row, name, scale=1.0, fmt=".3f"):
        return f"{scale * row[name]:{fmt}} [{scale * row[name + '_low']:{fmt}}, {scale * row[name + '_high']:{fmt}}]"

    if assumes in ("independent", "corrected") and factor_row is not None and np.isfinite(factor_row["factor_needed"]):
        used = factor_row["factor_independent"]
        if assumes == "corrected" and split_row is not None:
            used = split_row["factor_corrected"]
        text = f"variance factor needed {iv(factor_row, 'factor_needed')} against {used:.3f} used"
        if factor_row["factor_needed_low"] > used:
            within = (
                f"; within a partition {iv(split_row, 'rho_within')}"
                if split_row is not None and np.isfinite(split_row["rho_within"])
                else ""
            )
            why = "the differences of one data set's splits correlate more than the test assumes" + (
                f" (between partitions {iv(split_row, 'rho_between')} against n_test/n = "
                f"{split_row['rho_assumed']:.3f}{within})"
                if assumes == "corrected" and split_row is not None
                else ""
            )
            return f"explained: {text}; {why}"
        return f"not explained by the variance factor: {text}"
    if assumes == "runs" and split_row is not None and np.isfinite(split_row["rho_between"]):
        text = f"correlation between runs {iv(split_row, 'rho_between')}, which the test takes as 0"
        return ("explained: " if split_row["rho_between_low"] > 0 else "not explained: ") + text
    if assumes == "test set" and split_row is not None and np.isfinite(split_row["train_share"]):
        text = (
            f"training-set share of a split's variance {iv(split_row, 'train_share', 100, '.0f')}%, which a test on "
            "one test set cannot see"
        )
        return ("explained: " if split_row["train_share_low"] > 0 else "not explained: ") + text
    return "not explained by these diagnostics"
