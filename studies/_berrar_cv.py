"""Shared pieces of Berrar's cross-validation studies 3 and 4 (Algorithms 3 and 4).

A replication draws a learning set of ``n_cases`` cases (half positive, positives
N(0.3, 1) in every feature), makes one stratified ``n_folds``-fold partition, and
records per fold the accuracies of classifier A and classifier B on the validation
fold.  The difference A - B per fold is tested with the variance-corrected
resampled t-test (Nadeau and Bengio; Berrar's Equation 15, df = k - 1): a
replication is significant when p < alpha and t > 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from simstudy.hypothesis import corrected_repeated_cv_t_test
from simstudy.replication import t_model
from simstudy.replication_summary import ModelSpec, mad_interval, replication_table

ALPHA = 0.05


def t_test_rows(diffs, n_train: int, n_test: int, extra: list[dict]):
    """Outcome rows for a stack of per-fold differences, shape (n_groups, n_folds)."""
    res = corrected_repeated_cv_t_test(np.asarray(diffs)[:, None, :], n_train=n_train, n_test=n_test)
    stat = np.atleast_1d(res.statistic)
    p = np.atleast_1d(res.pvalue)
    dec = np.atleast_1d(res.decision(ALPHA))
    return [dict(e, test="corrected_t", statistic=float(s), pvalue=float(q), decision=int(d))
            for e, s, q, d in zip(extra, stat, p, dec)]


def summarize_t(run, *, by: str, df: int) -> dict[str, pd.DataFrame]:
    out = run.table("outcomes")
    if "error" in out:
        out = out[out["error"].isna()]

    def p_of(t):
        return 2 * stats.t.sf(np.abs(t), df)

    table = replication_table(out, by=[by], models=[ModelSpec("t", lambda t: t_model(t, df, alpha=ALPHA), p_of)])
    study = {}
    sig = table[table["n_significant"] > 0]
    groups = [(g["statistic"].to_numpy(), g["decision"].to_numpy())
              for key, g in out.groupby(by) if key in set(sig[by])]
    if groups:
        mad, lo, hi, dev = mad_interval(groups, lambda m, j: t_model(m, df, alpha=ALPHA).estimate, rng=0)
        study.update(mad=mad, mad_mc_low=lo, mad_mc_high=hi, mad_min=dev.min(), mad_max=dev.max(),
                     mad_groups=len(groups))
        best = table.loc[(table["F"] - 0.95).abs().idxmin()]
        study.update({f"closest_{by}": best[by], "closest_p": best["t_p"], "closest_P": best["t_P"],
                      "closest_F": best["F"]})
    study["n_failures"] = int(len(run.failures)) if run.failures is not None else 0
    return {"t": table, "study": pd.DataFrame([study])}
