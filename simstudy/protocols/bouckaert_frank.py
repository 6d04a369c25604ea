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
"""

from __future__ import annotations

import re

import numpy as np

from ..designs import FIVE_BY_TWO, RepeatedKFold, Subsample
from ..outcomes import outcome_rows
from ..replicability import all_agree, r2
from ..scores import PairedScores, cv_accuracies, resample_accuracies, scores_frame
from ..summaries import normal_interval
from .._lazy import lazy_module

pd = lazy_module("pandas")

__all__ = ["RESAMPLED_RUNS", "experiment", "summarize_by", "largest", "verdict", "check_claims"]

RESAMPLED_RUNS = (10, 20, 30, 40, 50, 60, 70, 80, 90, 100)
TEST_SHARE = 0.1
CV_FOLDS = 10


def experiment(cond, X, y, rng, learners, pairs, *, names=None):
    """All tests of one experiment (one set of new partitions) for every pair.

    ``learners`` are factories fitted once per split; ``pairs`` maps a pair's
    label to the indices (A, B) of its learners.  Returns ``(rows, scores)``:
    the outcome rows (pair, test, statistic, pvalue, decision) and the per-split
    accuracies of every learner in long format (design, run, fold, ``acc_<name>``),
    the paired scores every test was computed from.
    """
    n = y.size
    five_two = cv_accuracies(X, y, FIVE_BY_TWO.fold_ids(y, rng), learners)            # (5, 2, L)
    sub = Subsample(cond.n_resamples, TEST_SHARE)
    splits = sub.splits(y, rng)
    resampled = resample_accuracies(X, y, splits, learners)[:, None, :]                 # (R, 1, L)
    sizes = splits[0][0].size, splits[0][1].size
    cv_design = RepeatedKFold(cond.n_cv_runs, CV_FOLDS)
    cv = cv_accuracies(X, y, cv_design.fold_ids(y, rng), learners)                     # (runs, 10, L)
    cv_sizes = n - n // CV_FOLDS, n // CV_FOLDS
    runs = sorted({r for r in RESAMPLED_RUNS if r <= cond.n_resamples} | {10, cond.n_resamples})
    parts = []
    for pair, (a, b) in pairs.items():
        def paired(acc, n_train=None, n_test=None):
            return PairedScores(acc[..., a], acc[..., b], n_train=n_train, n_test=n_test)

        idx = {"pair": pair}
        parts.append(outcome_rows(paired(five_two), {"5x2cv t": "5x2cv_t", "5x2cv F": "5x2cv_f"},
                                  alpha=cond.alpha, index=idx))
        for r in runs:
            parts.append(outcome_rows(paired(resampled[:r], *sizes),
                                      {f"resampled {r}x": "resampled_t",
                                       f"corrected resampled {r}x": "corrected_resampled_t"},
                                      alpha=cond.alpha, index=idx))
        parts.append(outcome_rows(paired(cv[:1], *cv_sizes),
                                  {"10-fold cv": "paired_t", "corrected 1x10 cv": "corrected_cv_t"},
                                  alpha=cond.alpha, index=idx))
        parts.append(outcome_rows(paired(cv, *cv_sizes),
                                  {f"{cond.n_cv_runs}x10 cv": "cv_t",
                                   f"corrected {cond.n_cv_runs}x10 cv": "corrected_cv_t"},
                                  alpha=cond.alpha, index=idx))
    rows = pd.concat(parts, ignore_index=True)
    names = names or [str(j) for j in range(five_two.shape[-1])]
    scores = pd.concat([_long(five_two, "5x2", names), _long(resampled, "subsample", names),
                        _long(cv, "cv", names)], ignore_index=True)
    return rows, scores


def _long(acc, design: str, names) -> pd.DataFrame:
    df = scores_frame(acc, [f"acc_{n}" for n in names], axes=("run", "fold"), dtype=np.int16)
    df.insert(0, "design", design)
    return df


def summarize_by(out: pd.DataFrame, unit: str) -> dict[str, pd.DataFrame]:
    """Per ``unit`` (source or data set), pair and test: rejections, R2, consistency.

    ``out`` holds one row per replication (a data set drawn from the unit) x
    experiment x pair x test.  The data set is the unit of the Monte Carlo
    intervals (its experiments share its instances).
    """
    if "error" in out:
        out = out[out["error"].isna()]
    rows = []
    for (where, pair, test), grp in out.groupby([unit, "pair", "test"], sort=False):
        dec = grp.sort_values(["replication", "experiment"]).pivot(index="replication", columns="experiment",
                                                                   values="decision").to_numpy()
        r2_sets = r2(dec)
        n_sets = dec.shape[0]
        se = np.std(r2_sets, ddof=1) / np.sqrt(n_sets) if n_sets > 1 else np.nan
        rej = (dec != 0).mean(axis=1)
        rej_se = np.std(rej, ddof=1) / np.sqrt(n_sets) if n_sets > 1 else np.nan
        rej_lo, rej_hi = normal_interval(rej.mean(), rej_se, clip=(0.0, 1.0))
        r2_lo, r2_hi = normal_interval(r2_sets.mean(), se, clip=(0.0, 1.0))
        rows.append({unit: where, "pair": pair, "test": test, "n_datasets": n_sets,
                     "rejections": int((dec != 0).sum()), "experiments": int(dec.size),
                     "rejection_rate": 100 * rej.mean(),
                     "rejection_rate_mc_low": 100 * rej_lo, "rejection_rate_mc_high": 100 * rej_hi,
                     "r2": 100 * r2_sets.mean(), "r2_mc_low": 100 * r2_lo, "r2_mc_high": 100 * r2_hi,
                     "consistent": 100 * all_agree(dec).mean()})
    table = pd.DataFrame(rows)
    wide = table.pivot_table(index="test", columns=[unit, "pair"], values="consistent", sort=False)
    wide.columns = [f"{u} {p}" for u, p in wide.columns]
    runs = table[table["test"].str.contains("resampled")].assign(
        corrected=lambda d: d["test"].str.startswith("corrected"),
        runs=lambda d: d["test"].str.extract(r"(\d+)x", expand=False).astype(int))
    by_runs = runs.groupby(["corrected", "runs"])["r2"].mean().unstack("corrected").rename(
        columns={False: "resampled: mean R2", True: "corrected resampled: mean R2"}).reset_index()
    alpha_rows = []
    for a in (0.01, 0.025, 0.05, 0.10):
        for test, grp in out.groupby("test", sort=False):
            rej = (grp["pvalue"] <= a).astype(int)
            r2s = grp.assign(rej=rej).sort_values("experiment").groupby([unit, "pair", "replication"])["rej"].agg(
                lambda d: float(r2(d.to_numpy())))
            alpha_rows.append({"alpha": a, "test": test, "mean R2": 100 * r2s.mean(),
                               "rejection rate": 100 * rej.mean()})
    return {"tests": table, "consistent": wide.reset_index(), "by_runs": by_runs, "by_alpha": pd.DataFrame(alpha_rows)}


def verdict(ok) -> str:
    """The word for a claim's check.

    Parameters
    ----------
    ok : bool
        Whether the claim holds in our numbers.

    Returns
    -------
    str
        ``"holds"`` or ``"does not hold"``.
    """
    return "holds" if ok else "does not hold"


def largest(tests, pattern):
    """The name among ``tests`` matching ``pattern`` with the largest number of runs (e.g. 'corrected 10x10 cv')."""
    found = [(int(m.group(1)), t) for t in tests if (m := re.fullmatch(pattern, t))]
    return max(found)[1] if found else None


def check_claims(table: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """The claims of Bouckaert and Frank's text about their simulation, checked on ``table`` (per source).

    Their printed numbers were lost, so each statement is tested on our numbers:

    1. 5x2cv, resampling with 10 runs and 10-fold cv have low consistency: each
       is consistent on a smaller share of data sets (minimum over sources) than
       the corrected tests with 100 resamples and with 10 x 10 cv;
    2. consistency "increases dramatically" with 100 resamples and 10 x 10 cv:
       by at least 20 points (minimum over sources) over the 10-run versions;
    3. the 5x2cv t test is conservative: Type I error (source 1) at most alpha,
       and less power than the corrected 10 x 10 cv test on every other source;
    4. without the variance correction, resampling and repeated cv have an
       inflated Type I error (above 2 alpha on source 1), and with it not (at
       most alpha + 1%).
    """
    tests = set(table["test"])
    res100 = largest(tests, r"corrected resampled (\d+)x")
    cv_many = largest(tests, r"corrected (\d+)x10 cv")
    raw_cv = largest(tests, r"(\d+)x10 cv")
    raw_res = largest(tests, r"resampled (\d+)x")
    by = table.groupby("test")
    cons = by["consistent"].min()
    null = table[table["source"] == "bouckaert1"].set_index("test")["rejection_rate"]
    rows = []
    low = ["5x2cv t", "corrected resampled 10x", "10-fold cv"]
    high = [t for t in (res100, cv_many) if t]
    if all(t in cons for t in low) and high:
        ok = max(cons[t] for t in low) < min(cons[t] for t in high)
        rows.append({"claim": "5x2cv, 10x resampling and 10-fold cv have low consistency",
                     "numbers": ", ".join(f"{t} {cons[t]:.0f}%" for t in low + high) + " (min. over sources)",
                     "verdict": verdict(ok)})
        ok = all(cons[h] - cons[l] >= 20 for h, l in ((res100, "corrected resampled 10x"),
                                                      (cv_many, "corrected 1x10 cv")) if h and l in cons)
        rows.append({"claim": "consistency rises dramatically with 100x resampling and 10x10 cv",
                     "numbers": f"{res100} {cons.get(res100, np.nan):.0f}% vs 10x {cons['corrected resampled 10x']:.0f}%; "
                                f"{cv_many} {cons.get(cv_many, np.nan):.0f}% vs 1x10 "
                                f"{cons.get('corrected 1x10 cv', np.nan):.0f}%",
                     "verdict": verdict(ok)})
    if len(null) and "5x2cv t" in null and cv_many:
        power = table[table["source"] != "bouckaert1"].pivot_table(index="source", columns="test",
                                                                   values="rejection_rate")
        ok = null["5x2cv t"] <= 100 * alpha and bool((power["5x2cv t"] < power[cv_many]).all())
        rows.append({"claim": "the 5x2cv t test is conservative (low Type I error, low power)",
                     "numbers": f"Type I {null['5x2cv t']:.1f}%; power "
                                + ", ".join(f"{s[-1]}: {power.loc[s, '5x2cv t']:.0f}% vs {power.loc[s, cv_many]:.0f}%"
                                            for s in power.index) + f" ({cv_many})",
                     "verdict": verdict(ok)})
    if len(null) and raw_cv and raw_res and cv_many and res100:
        ok = (null[raw_cv] > 200 * alpha and null[raw_res] > 200 * alpha
              and null[cv_many] <= 100 * alpha + 1 and null[res100] <= 100 * alpha + 1)
        rows.append({"claim": "uncorrected resampling and repeated cv inflate the Type I error; the corrections fix it",
                     "numbers": ", ".join(f"{t} {null[t]:.1f}%" for t in (raw_res, raw_cv, res100, cv_many)),
                     "verdict": verdict(ok)})
    return pd.DataFrame(rows, columns=["claim", "numbers", "verdict"])
