"""What the proving ground measures, from stored rows only: calibration, power, replicability, leaderboard.

A *procedure* is a test applied to a design (and, for a sample test on an
r x k cross-validation, one sampling scheme).  Its decision at any level
``alpha`` is re-made from the stored p-value and sign: reject when ``p <=
alpha``, in the direction of ``sign``.  A NaN p-value (a test undefined on
that sample, e.g. a t-test on equal differences) is a non-rejection.

The independent unit of every Monte Carlo interval is the data set (the
replication): the ``n_experiments`` repeats of a design on one data set share
its cases, so per data set the share of repeats that reject is averaged first
and the interval is Student's t over data sets (Wilson's for the share of
consistent data sets).  All intervals are 95%.

* **Type I error** at ``alpha``: the rejection rate (either direction) on the
  data sets of the null scenarios, pooled; also the worst null scenario.
* **Calibration curve**: the Type I error over a grid of levels; the **p-value
  distribution** under the null is its continuation to [0, 1] (the ECDF of the
  null p-values, uniform for an exact test), summarised by its largest distance
  from the diagonal.
* **Power**: the rate of rejections in the true direction (the scenario's
  truth for the design's training size) on the alternative scenarios; the rate
  of rejections in the wrong direction is reported beside it.
* **Replicability**: per data set, R2 (Bouckaert 2004: the share of pairs of
  repeats with the same outcome, three-valued), averaged over data sets; and
  consistency (Bouckaert and Frank 2004: the share of data sets on which every
  repeat agrees).
* **Leaderboard**: a procedure *controls* its Type I error at ``alpha`` when the
  lower end of the interval of its pooled Type I error is at most ``alpha``
  (it is not shown to exceed it; the rule :func:`simstudy.assess.recommend`
  uses).  Controlled procedures are ranked by power.  Because every procedure
  saw the same data sets and fits, two procedures are compared by the paired
  difference of their per-data-set power: procedure i *beats* j when the 95%
  interval of mean(power_i - power_j) over the alternative data sets lies
  above 0.  A procedure's rank is 1 + the number of procedures that beat it;
  procedures whose paired interval overlaps 0 are tied (they can share a
  rank).  Procedures that do not control alpha are listed unranked.
"""

from __future__ import annotations

import numpy as np

from .scenarios import BANK, truth
from .._lazy import lazy_module

pd = lazy_module("pandas")

__all__ = ["ALPHAS", "P_GRID", "Procedures", "procedures", "calibration", "pvalue_distribution", "power_table",
           "replicability_table", "leaderboard", "summarize", "named_procedures", "procedure_label"]

ALPHAS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2)
P_GRID = tuple(np.round(np.linspace(0.0, 1.0, 21), 3))
HALF_SHARE = 0.7  # a design training on at most this share of the cases is judged by the truth at 50%


def procedure_label(design: str, scheme: str, test: str) -> str:
    """``test [design, scheme]``: the name of a procedure in every table."""
    where = design + (f", {scheme}" if scheme else "")
    return f"{test} [{where}]"


class Procedures:
    """The stored p-values and signs of every procedure as arrays (data sets x repeats), aligned.

    Attributes
    ----------
    units : DataFrame
        One row per data set: ``condition`` (the scenario), ``replication``, and
        ``truth`` / ``truth_half`` (``null``, ``A``, ``B`` or ``unclear``) and ``gap``.
    info : DataFrame
        One row per procedure: ``procedure``, ``design``, ``scheme``, ``test``.
    p, sign : dict of procedure -> ndarray (units, repeats)
    """

    def __init__(self, units, info, p, sign):
        self.units, self.info, self.p, self.sign = units, info, p, sign
        self.n_experiments = next(iter(p.values())).shape[1] if p else 0
        self._design = dict(zip(info["procedure"], info["design"])) if len(info) else {}
        self.half = {}

    def decisions(self, proc: str, alpha: float) -> np.ndarray:
        p = np.nan_to_num(self.p[proc], nan=2.0)
        return np.where(p <= alpha, self.sign[proc], 0).astype(np.int8)

    def truth_of(self, proc: str) -> np.ndarray:
        """The truth of every data set for this procedure's design: +1 (A better), -1, 0 (null), NaN (unclear)."""
        design = self._design[proc]
        col = "truth_half" if self.half.get(design, False) else "truth"
        return self.units[col].map({"A": 1.0, "B": -1.0, "null": 0.0, "unclear": np.nan}).to_numpy(float)


def _half_share(design: str) -> bool:
    from .study import parse_designs

    try:
        d = parse_designs([design])[0]
    except ValueError:
        return False
    if d.kind == "resampled":
        return False
    return (d.n_folds - 1) / d.n_folds <= HALF_SHARE


def procedures(outcomes: pd.DataFrame, extra: pd.DataFrame | None = None, *, truth_path=None) -> Procedures:
    """Arrange stored outcome rows (and plug-in rows ``extra`` of the same columns) by procedure.

    ``outcomes`` needs ``condition``, ``replication``, ``experiment``, ``design``,
    ``scheme``, ``test``, ``pvalue`` and ``sign``; failure rows (``error`` set) are left out.
    """
    rows = outcomes
    if "error" in rows:
        rows = rows[rows["error"].isna()]
    if extra is not None and len(extra):
        rows = pd.concat([rows, extra[rows.columns.intersection(extra.columns)]], ignore_index=True)
    rows = rows.assign(scheme=rows["scheme"].fillna("").astype(str))
    units = rows[["condition", "replication"]].drop_duplicates().sort_values(["condition", "replication"],
                                                                             kind="stable").reset_index(drop=True)
    experiments = np.sort(rows["experiment"].unique())
    full = pd.MultiIndex.from_product([range(len(units)), experiments])
    unit_index = pd.MultiIndex.from_frame(units)
    rows = rows.assign(_u=unit_index.get_indexer(pd.MultiIndex.from_frame(rows[["condition", "replication"]])))
    p, sign, info = {}, {}, []
    for (design, scheme, test), g in rows.groupby(["design", "scheme", "test"], sort=False):
        proc = procedure_label(design, scheme, test)
        g = g.set_index(["_u", "experiment"])
        if not g.index.is_unique:
            raise ValueError(f"outcomes: procedure {proc} has more than one row per data set and repeat")
        g = g.reindex(full)
        p[proc] = g["pvalue"].to_numpy(float).reshape(len(units), experiments.size)
        sign[proc] = np.nan_to_num(g["sign"].to_numpy(float)).reshape(len(units), experiments.size).astype(np.int8)
        info.append({"procedure": proc, "design": design, "scheme": scheme, "test": test})
    t = {k: truth(k, truth_path) if k in BANK else {"truth": "unclear", "truth_half": "unclear", "gap": np.nan}
         for k in units["condition"].unique()}
    units = units.assign(truth=units["condition"].map(lambda k: t[k]["truth"]),
                         truth_half=units["condition"].map(lambda k: t[k].get("truth_half", t[k]["truth"])),
                         gap=units["condition"].map(lambda k: t[k]["gap"]))
    out = Procedures(units, pd.DataFrame(info), p, sign)
    out.half = {d: _half_share(d) for d in out.info["design"].unique()} if len(out.info) else {}
    return out


def _mean_iv(x):
    """Mean over the first axis with its 95% t interval, clipped to [0, 1]: (mean, low, high)."""
    from ..summaries import mean_interval

    x = np.asarray(x, dtype=float)
    if x.shape[0] == 0:
        return np.nan, np.nan, np.nan
    m, lo, hi = mean_interval(x)
    return float(m), float(np.clip(lo, 0, 1)), float(np.clip(hi, 0, 1))


def _pct(prefix, m, lo, hi) -> dict:
    return {prefix: 100 * m, f"{prefix}_mc_low": 100 * lo, f"{prefix}_mc_high": 100 * hi}


def _null_mask(pr: Procedures, proc: str) -> np.ndarray:
    return pr.truth_of(proc) == 0


def calibration(pr: Procedures, alphas=ALPHAS) -> pd.DataFrame:
    """Type I error (percent, with interval) of every procedure at every level, on the null data sets pooled."""
    rows = []
    for proc in pr.p:
        null = _null_mask(pr, proc)
        for a in alphas:
            rej = (pr.decisions(proc, a)[null] != 0).mean(axis=1) if null.any() else np.empty(0)
            rows.append({"procedure": proc, "alpha": a, **_pct("type1", *_mean_iv(rej)), "n": int(null.sum())})
    return pd.DataFrame(rows)


def pvalue_distribution(pr: Procedures, grid=P_GRID) -> pd.DataFrame:
    """Per procedure: the ECDF of its null p-values on ``grid`` (share of p <= x), and its largest distance
    from the uniform's diagonal."""
    rows = []
    for proc in pr.p:
        null = _null_mask(pr, proc)
        if not null.any():
            continue
        p = np.nan_to_num(pr.p[proc][null], nan=1.0)
        ecdf = np.array([(p <= x).mean() for x in grid])
        rows.append({"procedure": proc, "ecdf": ecdf, "max_distance": float(np.max(np.abs(ecdf - np.asarray(grid)))),
                     "share_p_at_most_0.5": float((p <= 0.5).mean()), "undefined": float(np.isnan(
                         pr.p[proc][null]).mean())})
    return pd.DataFrame(rows)


def power_table(pr: Procedures, alpha: float = 0.05) -> pd.DataFrame:
    """Per procedure and scenario: rejections in the true direction (power; Type I error on a null) and in the
    wrong direction, percent with intervals over the scenario's data sets."""
    rows = []
    cond = pr.units["condition"].to_numpy()
    for proc in pr.p:
        dec = pr.decisions(proc, alpha)
        t = pr.truth_of(proc)
        for k in pd.unique(cond):
            m = cond == k
            tk = t[m][0]
            if np.isnan(tk):
                label, right, wrong = "unclear", (dec[m] != 0), np.zeros_like(dec[m], dtype=bool)
            elif tk == 0:
                label, right, wrong = "null", (dec[m] != 0), np.zeros_like(dec[m], dtype=bool)
            else:
                label, right, wrong = ("A" if tk > 0 else "B"), dec[m] == tk, dec[m] == -tk
            rows.append({"procedure": proc, "scenario": k, "truth": label, "gap": float(pr.units["gap"][m].iloc[0]),
                         **_pct("rejecting", *_mean_iv(right.mean(axis=1))),
                         **_pct("wrong_direction", *_mean_iv(wrong.mean(axis=1))), "n": int(m.sum())})
    return pd.DataFrame(rows)


def replicability_table(pr: Procedures, alpha: float = 0.05) -> pd.DataFrame:
    """Per procedure and scenario: mean R2 of the repeats (percent) and the share of consistent data sets."""
    from ..replicability import r2
    from ..summaries import wilson

    rows = []
    cond = pr.units["condition"].to_numpy()
    for proc in pr.p:
        dec = pr.decisions(proc, alpha)
        t = pr.truth_of(proc)
        per = np.asarray(r2(dec), dtype=float) if dec.shape[1] >= 2 else np.full(dec.shape[0], np.nan)
        agree = (dec == dec[:, :1]).all(axis=1)
        for k in pd.unique(cond):
            m = cond == k
            tk = t[m][0]
            c, lo, hi = wilson(int(agree[m].sum()), int(m.sum()))
            rows.append({"procedure": proc, "scenario": k,
                         "truth": "unclear" if np.isnan(tk) else ("null" if tk == 0 else ("A" if tk > 0 else "B")),
                         "gap": float(pr.units["gap"][m].iloc[0]), **_pct("r2", *_mean_iv(per[m])),
                         "consistent": 100 * float(c), "consistent_mc_low": 100 * float(lo),
                         "consistent_mc_high": 100 * float(hi), "n": int(m.sum())})
    return pd.DataFrame(rows)


def leaderboard(pr: Procedures, alpha: float = 0.05) -> pd.DataFrame:
    """Every procedure: Type I error, worst null scenario, power, wrong directions, R2; ranked (see the module
    docstring for the rule).  Sorted by rank, then power."""
    from ..replicability import r2
    from ..summaries import mean_interval

    cond = pr.units["condition"].to_numpy()
    rows, power_units = [], {}
    for proc in pr.p:
        dec = pr.decisions(proc, alpha)
        t = pr.truth_of(proc)
        null = t == 0
        alt = np.isfinite(t) & (t != 0)
        rej = (dec != 0).mean(axis=1)
        right = (dec == np.nan_to_num(t)[:, None]).mean(axis=1)
        wrong = (dec == -np.nan_to_num(t)[:, None]).mean(axis=1)
        type1 = _mean_iv(rej[null])
        worst, worst_k = np.nan, ""
        for k in pd.unique(cond[null]):
            v = float(rej[null & (cond == k)].mean())
            if not v <= worst:
                worst, worst_k = v, k
        power_units[proc] = np.where(alt, right, np.nan)
        per_r2 = np.asarray(r2(dec), dtype=float) if dec.shape[1] >= 2 else np.full(dec.shape[0], np.nan)
        rows.append({"procedure": proc, **_pct("type1", *type1),
                     "worst_null": 100 * worst, "worst_null_scenario": worst_k,
                     "controlled": bool(type1[1] <= alpha) if np.isfinite(type1[1]) else False,
                     **_pct("power", *_mean_iv(right[alt])), "wrong_direction": 100 * float(wrong[alt].mean())
                     if alt.any() else np.nan,
                     **_pct("r2", *_mean_iv(per_r2[alt])), "null_units": int(null.sum()), "alt_units": int(alt.sum())})
    board = pd.DataFrame(rows)
    if board.empty:
        return board
    ranked = board[board["controlled"]]["procedure"].tolist()
    rank, ties = {}, {}
    if ranked:
        alt_mask = np.isfinite(power_units[ranked[0]])
        M = np.stack([power_units[p][alt_mask] for p in ranked])     # procedures x alternative data sets
        beats = np.zeros((len(ranked), len(ranked)), dtype=bool)
        if M.shape[1] >= 2:
            for i in range(len(ranked)):
                _, lo, _ = mean_interval(M[i][None, :] - M, axis=1)
                beats[i] = np.asarray(lo) > 0
        for j, p in enumerate(ranked):
            rank[p] = 1 + int(beats[:, j].sum())
            ties[p] = int(sum(1 for i in range(len(ranked)) if i != j and not beats[i, j] and not beats[j, i]))
    board["rank"] = board["procedure"].map(rank)
    board["tied_with"] = board["procedure"].map(ties)
    board = board.sort_values(["controlled", "rank", "power"], ascending=[False, True, False], kind="stable")
    return board.reset_index(drop=True)


def named_procedures(info: pd.DataFrame, extra_tests=()) -> dict:
    """The procedures the papers name (and plug-ins), label -> procedure, among those stored."""
    designs = list(dict.fromkeys(info["design"]))
    from .study import parse_designs

    specs = {d.key: d for d in parse_designs(designs)} if designs else {}
    cv = next((k for k, d in specs.items() if d.kind == "cv" and d.n_runs > 1), None)
    cv1 = next((k for k, d in specs.items() if d.kind == "cv"), None)
    five = next((k for k, d in specs.items() if d.kind == "5x2"), None)
    res = next((k for k, d in specs.items() if d.kind == "resampled"), None)
    wanted = []
    if cv1:
        wanted.append(("10-fold cv t (first run)", cv1, "kfold_cv", "paired_t"))
    if cv:
        r, k = specs[cv].n_runs, specs[cv].n_folds
        wanted += [(f"{r}x{k} cv t, uncorrected", cv, "", "cv_t"), (f"corrected {r}x{k} cv t", cv, "", "corrected_cv_t"),
                   ("sorted runs t", cv, "average_over_sorted_runs", "paired_t"),
                   ("sorted runs rank sum", cv, "average_over_sorted_runs", "signed_rank")]
    if five:
        wanted += [("5x2cv t", five, "", "5x2cv_t"), ("5x2cv F", five, "", "5x2cv_f")]
    if res:
        n = specs[res].n_runs
        wanted += [(f"resampled t ({n} splits)", res, "", "resampled_t"),
                   (f"corrected resampled t ({n} splits)", res, "", "corrected_resampled_t")]
    if cv1:
        wanted.append(("Welch t", cv or cv1, "", "welch_t"))
    stored = set(info["procedure"])
    out = {label: procedure_label(d, s, t) for label, d, s, t in wanted if procedure_label(d, s, t) in stored}
    for t in extra_tests:
        for d in designs:
            proc = procedure_label(d, "", t)
            if proc in stored:
                out[f"{t} ({d})"] = proc
    return out


def summarize(run) -> dict[str, pd.DataFrame]:
    """The proving ground's tables from its stored rows (built-in tests only; plug-ins are added by the report)."""
    pr = procedures(run.table("outcomes"))
    board = leaderboard(pr)
    cal = calibration(pr, alphas=(0.01, 0.05, 0.1))
    wide = cal.pivot(index="procedure", columns="alpha", values="type1")
    wide.columns = [f"type1_at_{a:g}" for a in wide.columns]
    cols = ["rank", "tied_with", "procedure", "power", "power_mc_low", "power_mc_high", "type1", "type1_mc_low",
            "type1_mc_high", "controlled"]
    return {"leaderboard": board[cols], "leaderboard_all_columns": board, "calibration": wide.reset_index(),
            "power": power_table(pr), "replicability": replicability_table(pr)}
