"""Bouckaert and Frank (2004): one experiment with every test of the paper, and its summary.

An experiment on one data set draws three designs (new random partitions each
time): Dietterich's 5 x 2 folds, ``n_resamples`` random 90% / 10% subsamples,
and ``n_cv_runs`` x 10 folds.  Every learner is fitted once per split, and every
test of every pair of learners is made from those fits:

* ``5x2cv t`` and ``5x2cv F`` (Dietterich; Alpaydin);
* ``resampled`` / ``corrected resampled`` (Nadeau-Bengio) on the first 10, 20,
  ..., ``n_resamples`` subsamples (the same fits serve every number of runs);
* ``10-fold cv`` (the paired t-test on the first 10-fold cv) and its corrected
  version ``corrected 1x10 cv``;
* ``Rx10 cv`` and ``corrected Rx10 cv``: all folds of the repeated cv, without
  and with the variance correction.

The claims of the paper's text are checked from intervals with the data set as
the unit (:func:`check_claims`; the UCI study's in ``studies/bouckaert_frank2004/bouckaert_frank_uci.py``),
with the verdicts of :mod:`simstudy.statistics.intervals`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.pipeline.comparison import Comparison
from simstudy.pipeline.outcomes import outcome_rows
from simstudy.statistics.intervals import (
    clopper_pearson,
    combine_verdicts,
    interval_verdict,
    limit_verdict,
    mean_interval,
    normal_interval,
)
from simstudy.statistics.replicability import all_agree, r2, r2_from_tallies

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "RESAMPLED_RUNS",
    "experiment",
    "summarize_by",
    "per_dataset",
    "paired_difference",
    "difference_text",
    "largest",
    "check_claims",
]

RESAMPLED_RUNS = (10, 20, 30, 40, 50, 60, 70, 80, 90, 100)
CV_FOLDS = 10


def experiment(cond, X, y, rng, learners, pairs, *, names=None, case_order="given"):
    """All tests of one experiment (one set of new partitions) for every pair.

    ``learners`` are factories fitted once per split; ``pairs`` maps a pair's
    label to the indices (A, B) of its learners.  Returns ``(rows, scores)``:
    the outcome rows (pair, test, statistic, pvalue, decision) and the per-split
    accuracies of every learner in long format (design, run, fold, ``acc_<name>``),
    the paired scores every test was computed from.  The first 10, 20, ... of
    the ``n_resamples`` subsamples are the smaller resampled designs, and the
    first run of the cv its single 10-fold cv: one set of fits serves them all.
    """
    names = list(names or [str(j) for j in range(len(learners))])
    designs = {"5x2": "5x2cv", "subsample": f"resampled{cond.n_resamples}", "cv": f"cv{cond.n_cv_runs}x{CV_FOLDS}"}
    fits = Comparison(dict(zip(names, learners)), designs=designs, index_dtype=np.int16, case_order=case_order).fit(
        X, y, rng
    )
    runs = sorted({r for r in RESAMPLED_RUNS if r <= cond.n_resamples} | {10, cond.n_resamples})
    parts = []
    for pair, (a, b) in pairs.items():
        ab = (names[a], names[b])
        idx = {"pair": pair}
        parts.append(
            outcome_rows(
                fits.paired("5x2", ab), {"5x2cv t": "5x2cv_t", "5x2cv F": "5x2cv_f"}, alpha=cond.alpha, index=idx
            )
        )
        for r in runs:
            parts.append(
                outcome_rows(
                    fits.paired("subsample", ab, runs=r),
                    {f"resampled {r}x": "resampled_t", f"corrected resampled {r}x": "corrected_resampled_t"},
                    alpha=cond.alpha,
                    index=idx,
                )
            )
        parts.append(
            outcome_rows(
                fits.paired("cv", ab, runs=1),
                {"10-fold cv": "paired_t", "corrected 1x10 cv": "corrected_cv_t"},
                alpha=cond.alpha,
                index=idx,
            )
        )
        parts.append(
            outcome_rows(
                fits.paired("cv", ab),
                {f"{cond.n_cv_runs}x10 cv": "cv_t", f"corrected {cond.n_cv_runs}x10 cv": "corrected_cv_t"},
                alpha=cond.alpha,
                index=idx,
            )
        )
    return pd.concat(parts, ignore_index=True), fits.scores()


def summarize_by(out: pd.DataFrame, unit: str) -> dict[str, pd.DataFrame]:
    """Per ``unit`` (source or data set), pair and test: rejections, R2, consistency.

    ``out`` holds one row per replication (a data set drawn from the unit) x
    experiment x pair x test.  The data set is the unit of the Monte Carlo
    intervals (its experiments share its instances); ``consistent`` (the share
    of data sets on which all experiments agree) has the Clopper-Pearson
    interval of that count of data sets.
    """
    rows = []
    for (where, pair, test), grp in out.groupby([unit, "pair", "test"], sort=False):
        dec = (
            grp.sort_values(["replication", "experiment"])
            .pivot(index="replication", columns="experiment", values="decision")
            .to_numpy()
        )
        r2_sets = r2(dec)
        n_sets = dec.shape[0]
        se = np.std(r2_sets, ddof=1) / np.sqrt(n_sets) if n_sets > 1 else np.nan
        rej = (dec != 0).mean(axis=1)
        rej_se = np.std(rej, ddof=1) / np.sqrt(n_sets) if n_sets > 1 else np.nan
        rej_lo, rej_hi = normal_interval(rej.mean(), rej_se, clip=(0.0, 1.0))
        r2_lo, r2_hi = normal_interval(r2_sets.mean(), se, clip=(0.0, 1.0))
        agree = np.atleast_1d(all_agree(dec))
        cons_lo, cons_hi = clopper_pearson(agree.sum(), n_sets)
        rows.append(
            {
                unit: where,
                "pair": pair,
                "test": test,
                "n_datasets": n_sets,
                "rejections": int((dec != 0).sum()),
                "experiments": int(dec.size),
                "rejection_rate": 100 * rej.mean(),
                "rejection_rate_mc_low": 100 * rej_lo,
                "rejection_rate_mc_high": 100 * rej_hi,
                "r2": 100 * r2_sets.mean(),
                "r2_mc_low": 100 * r2_lo,
                "r2_mc_high": 100 * r2_hi,
                "consistent": 100 * agree.mean(),
                "consistent_mc_low": 100 * float(cons_lo),
                "consistent_mc_high": 100 * float(cons_hi),
            }
        )
    table = pd.DataFrame(rows)
    wide = table.pivot_table(index="test", columns=[unit, "pair"], values="consistent", sort=False)
    wide.columns = [f"{u} {p}" for u, p in wide.columns]
    runs = table[table["test"].str.contains("resampled")].assign(
        corrected=lambda d: d["test"].str.startswith("corrected"),
        runs=lambda d: d["test"].str.extract(r"(\d+)x", expand=False).astype(int),
    )
    by_runs = (
        runs.groupby(["corrected", "runs"])["r2"]
        .mean()
        .unstack("corrected")
        .rename(columns={False: "resampled: mean R2", True: "corrected resampled: mean R2"})
        .reset_index()
    )
    alpha_rows = []
    for a in (0.01, 0.025, 0.05, 0.10):
        for test, grp in out.groupby("test", sort=False):
            rej = (grp["pvalue"] <= a).astype(int)
            r2s = (
                grp.assign(rej=rej)
                .sort_values("experiment")
                .groupby([unit, "pair", "replication"])["rej"]
                .agg(lambda d: float(r2(d.to_numpy())))
            )
            alpha_rows.append(
                {"alpha": a, "test": test, "mean R2": 100 * r2s.mean(), "rejection rate": 100 * rej.mean()}
            )
    return {"tests": table, "consistent": wide.reset_index(), "by_runs": by_runs, "by_alpha": pd.DataFrame(alpha_rows)}


def per_dataset(out: pd.DataFrame, unit: str) -> pd.DataFrame:
    """Per ``unit``, pair, test and data set (``replication``): what its experiments give, in percent.

    Columns ``reject`` (the share of its experiments that reject), ``r2`` (their
    R2, three-valued outcomes) and ``consistent`` (100 when all of them agree,
    else 0): the values whose means are the rows of :func:`summarize_by`'s
    ``tests`` table, kept per data set so that two tests can be compared paired
    by data set (:func:`paired_difference`).
    """
    keys = [unit, "pair", "test", "replication"]
    d = out["decision"].to_numpy()
    df = out[keys].assign(pos=(d > 0).astype(float), neg=(d < 0).astype(float), zero=(d == 0).astype(float))
    g = df.groupby(keys, sort=False)[["pos", "neg", "zero"]].sum()
    n = g.sum(axis=1)
    res = pd.DataFrame(
        {
            "reject": 100 * (g["pos"] + g["neg"]) / n,
            "r2": 100 * np.asarray(r2_from_tallies(g.to_numpy()), dtype=float).reshape(-1),
            "consistent": 100.0 * (g.max(axis=1) == n),
        }
    )
    return res.reset_index()


def paired_difference(values: pd.DataFrame, a: str, b: str, bounds=(-100.0, 100.0)):
    """Mean of column ``a`` minus column ``b`` over the rows (the data sets), with its 95% t interval.

    ``values`` has one row per data set and one column per test (percentages,
    so the interval is clipped to ``bounds``, the values a difference can take).
    Returns ``(estimate, low, high, n)``; with fewer than two data sets the
    interval is NaN (no interval), so no verdict can rest on it.
    """
    d = (values[a] - values[b]).dropna().to_numpy(dtype=float)
    if len(d) < 2:
        return (float(d.mean()) if len(d) else np.nan), np.nan, np.nan, len(d)
    m, lo, hi = mean_interval(d)
    return float(m), float(np.clip(lo, *bounds)), float(np.clip(hi, *bounds)), len(d)


def difference_text(name: str, est, lo, hi) -> str:
    """``name est [lo, hi]`` with signs and one decimal (``(no interval)`` without one)."""
    ends = f"[{lo:+.1f}, {hi:+.1f}]" if np.isfinite(lo) and np.isfinite(hi) else "(no interval)"
    return f"{name} {est:+.1f} {ends}"


def largest(tests, pattern):
    """The name among ``tests`` matching ``pattern`` with the largest number of runs (e.g. 'corrected 10x10 cv')."""
    found = [(int(m.group(1)), t) for t in tests if (m := re.fullmatch(pattern, t))]
    return max(found)[1] if found else None


def check_claims(
    table: pd.DataFrame, per_set: pd.DataFrame, alpha: float = 0.05, *, published_scale: bool = False
) -> pd.DataFrame:
    """The claims of Bouckaert and Frank's text about their simulation, checked on ``table`` (per source).

    ``table`` is :func:`summarize_by`'s ``tests`` table, ``per_set`` the same
    outcomes per data set (:func:`per_dataset`).  Their printed numbers were
    lost, so each statement is tested on our numbers, from 95% intervals with the
    data set as the unit (verdicts of :mod:`simstudy.statistics.intervals`: "holds" only when
    every interval lies on the claimed side, so a wider interval never makes a
    claim hold):

    1. 5x2cv, resampling with 10 runs and 10-fold cv have low consistency: each
       is consistent on a smaller share of data sets (minimum over sources) than
       the corrected tests with 100 resamples and with 10 x 10 cv.  The interval
       of a minimum over sources runs from the least lower end to the least upper
       end of the sources' Clopper-Pearson intervals; each difference (a corrected
       test minus a low one) must have an interval above 0;
    2. consistency "increases dramatically" with 100 resamples and 10 x 10 cv:
       by at least 20 points (minimum over sources) over the 10-run versions, the
       lower end of each difference's interval at or above 20;
    3. the 5x2cv t test is conservative: its Type I error (source 1) at most
       alpha (upper end of the interval), and less power than the corrected
       10 x 10 cv test on every other source (the difference in rejection share,
       paired by data set, with an interval above 0);
    4. without the variance correction, resampling and repeated cv have an
       inflated Type I error (the interval on source 1 at or above 2 alpha), and
       with it not (at most alpha + 1%).

    Neither holding nor failing reads "not resolved at this scale" below the
    published scale (``published_scale``: the run is as large as the paper
    profile); at it, "no effect at the published scale" for a difference whose
    interval covers 0 and "unresolved at the published scale" for a limit.
    """
    tests = set(table["test"])
    named = {
        "res100": largest(tests, r"corrected resampled (\d+)x"),
        "cv_many": largest(tests, r"corrected (\d+)x10 cv"),
        "raw_cv": largest(tests, r"(\d+)x10 cv"),
        "raw_res": largest(tests, r"resampled (\d+)x"),
    }
    null = table[table["source"] == "bouckaert1"].set_index("test")
    scale = {"published_scale": published_scale}
    rows = _consistency_claims(table, named, scale)
    rows += _conservative_claim(null, per_set, named["cv_many"], alpha, scale)
    rows += _inflation_claim(null, named, alpha, scale)
    return pd.DataFrame(rows, columns=["claim", "numbers", "verdict"])


def _consistency_claims(table: pd.DataFrame, named: dict, scale: dict) -> list:
    """Claims 1 and 2 of :func:`check_claims`: low consistency of the 10-run tests, and its rise with 100."""
    res100, cv_many = named["res100"], named["cv_many"]
    by = table.groupby("test")
    cons, cons_lo, cons_hi = by["consistent"].min(), by["consistent_mc_low"].min(), by["consistent_mc_high"].min()
    rows: list = []

    def min_difference(h, low_test):
        # the interval of min(h) - min(low): each minimum from the least ends of its sources' intervals
        return cons[h] - cons[low_test], cons_lo[h] - cons_hi[low_test], cons_hi[h] - cons_lo[low_test]

    low = ["5x2cv t", "corrected resampled 10x", "10-fold cv"]
    high = [t for t in (res100, cv_many) if t]
    if not (all(t in cons for t in low) and high):
        return rows
    diffs = {(h, lt): min_difference(h, lt) for lt in low for h in high if h != lt}
    shown = ", ".join(f"{t} {cons[t]:.0f}% [{cons_lo[t]:.0f}, {cons_hi[t]:.0f}]" for t in dict.fromkeys(low + high))
    if diffs:
        (h, lt), (d, lo, hi) = min(diffs.items(), key=lambda kv: kv[1][1])
        verdict = combine_verdicts([interval_verdict(lo_, hi_, **scale) for _, lo_, hi_ in diffs.values()], **scale)
        shown += f" (min. over sources); weakest: {difference_text(f'{h} - {lt}', d, lo, hi)} points"
    else:
        verdict = "not run (no corrected test with more runs)"
    rows.append(
        {"claim": "5x2cv, 10x resampling and 10-fold cv have low consistency", "numbers": shown, "verdict": verdict}
    )
    rises = [
        (h, lt)
        for h, lt in ((res100, "corrected resampled 10x"), (cv_many, "corrected 1x10 cv"))
        if h and lt in cons and h != lt
    ]
    if rises:
        d = [min_difference(h, lt) for h, lt in rises]
        verdict = limit_verdict([x[1] for x in d], [x[2] for x in d], 20.0, at_most=False, **scale)
        numbers = "; ".join(difference_text(f"{h} - {lt}", *x) for (h, lt), x in zip(rises, d))
    else:
        verdict, numbers = "not run (no corrected test with more runs)", ""
    rows.append(
        {
            "claim": "consistency rises dramatically (by 20 points or more) with 100x resampling and 10x10 cv",
            "numbers": numbers + " points (min. over sources)" if numbers else numbers,
            "verdict": verdict,
        }
    )
    return rows


def _conservative_claim(null: pd.DataFrame, per_set: pd.DataFrame, cv_many, alpha: float, scale: dict) -> list:
    """Claim 3 of :func:`check_claims`: the 5x2cv t test is conservative."""
    if not (len(null) and "5x2cv t" in null.index and cv_many):
        return []
    t5 = null.loc["5x2cv t"]
    parts = [limit_verdict(t5["rejection_rate_mc_low"], t5["rejection_rate_mc_high"], 100 * alpha, **scale)]
    texts = []
    for src, grp in per_set[per_set["source"] != "bouckaert1"].groupby("source", sort=True):
        wide = grp.groupby(["replication", "test"])["reject"].mean().unstack("test")
        d, lo, hi, _ = paired_difference(wide, cv_many, "5x2cv t")
        parts.append(interval_verdict(lo, hi, **scale))
        texts.append(difference_text(f"{src[-1]}:", d, lo, hi))
    return [
        {
            "claim": "the 5x2cv t test is conservative (Type I error at most alpha, less power than the "
            "corrected repeated cv test)",
            "numbers": f"Type I {t5['rejection_rate']:.1f}% [{t5['rejection_rate_mc_low']:.1f}, "
            f"{t5['rejection_rate_mc_high']:.1f}]; power of {cv_many} minus 5x2cv t, paired by "
            f"data set, per source " + ", ".join(texts) + " points",
            "verdict": combine_verdicts(parts, **scale),
        }
    ]


def _inflation_claim(null: pd.DataFrame, named: dict, alpha: float, scale: dict) -> list:
    """Claim 4 of :func:`check_claims`: the uncorrected tests inflate the Type I error, the corrected do not."""
    raw_res, raw_cv, res100, cv_many = (named[k] for k in ("raw_res", "raw_cv", "res100", "cv_many"))
    if not (len(null) and raw_cv and raw_res and cv_many and res100):
        return []
    r = null.loc[[raw_res, raw_cv, res100, cv_many]]
    lo, hi = r["rejection_rate_mc_low"].to_numpy(), r["rejection_rate_mc_high"].to_numpy()
    parts = [
        limit_verdict(lo[:2], hi[:2], 200 * alpha, at_most=False, **scale),
        limit_verdict(lo[2:], hi[2:], 100 * alpha + 1, **scale),
    ]
    return [
        {
            "claim": "uncorrected resampling and repeated cv inflate the Type I error (2 alpha or more); "
            "the corrections fix it (alpha + 1% or less)",
            "numbers": ", ".join(
                f"{t} {x.rejection_rate:.1f}% [{x.rejection_rate_mc_low:.1f}, {x.rejection_rate_mc_high:.1f}]"
                for t, x in r.iterrows()
            ),
            "verdict": combine_verdicts(parts, **scale),
        }
    ]
