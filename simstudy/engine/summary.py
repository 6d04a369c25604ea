"""Summaries computed from stored rows: rejection rates and mean statistics.

Every rate comes with its Monte Carlo standard error sqrt(p(1-p)/n) and the
exact (Clopper-Pearson) 95% binomial interval, so a difference from a published
value can be judged against simulation noise.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["clopper_pearson", "rejection_summary"]


def clopper_pearson(k, n, level: float = 0.95):
    """Exact binomial interval for k successes of n (vectorised); n = 0 gives (0, 1)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    a = (1 - level) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(k > 0, stats.beta.ppf(a, k, n - k + 1), 0.0)
        hi = np.where(k < n, stats.beta.ppf(1 - a, k + 1, n - k), 1.0)
    return np.nan_to_num(lo, nan=0.0), np.nan_to_num(hi, nan=1.0)


def rejection_summary(rows: pd.DataFrame, by: list[str], *, decision: str = "decision",
                      statistic: str | None = "statistic", level: float = 0.95) -> pd.DataFrame:
    """Per group: n, rejections (either direction, and each direction), rate, MC SE, interval.

    ``decision`` holds +1 / -1 / 0 per row (rows with an ``error`` are left out).
    """
    if "error" in rows:
        rows = rows[rows["error"].isna()]
    g = rows.groupby(by, sort=False, dropna=False)
    dec = rows[decision]
    out = pd.DataFrame({
        "n": g.size(),
        "rejections": (dec != 0).groupby([rows[b] for b in by], sort=False, dropna=False).sum(),
        "a_better": (dec > 0).groupby([rows[b] for b in by], sort=False, dropna=False).sum(),
        "b_better": (dec < 0).groupby([rows[b] for b in by], sort=False, dropna=False).sum(),
    })
    out["rate"] = out["rejections"] / out["n"]
    out["mc_se"] = np.sqrt(out["rate"] * (1 - out["rate"]) / out["n"])
    out["low"], out["high"] = clopper_pearson(out["rejections"], out["n"], level)
    if statistic and statistic in rows:
        finite = rows[statistic].where(np.isfinite(rows[statistic]))
        out["mean_statistic"] = finite.groupby([rows[b] for b in by], sort=False, dropna=False).mean()
    return out.reset_index()
