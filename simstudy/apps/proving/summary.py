"""What the proving ground measures, from stored rows only: size, power, replicability, leaderboard.

A *procedure* is a test applied to a design (and, for a sample test on an
r x k cross-validation, one sampling scheme).  Its decision at any level
``alpha`` is re-made from the stored p-value and sign: reject when ``p <=
alpha``, in the direction of ``sign``.  A NaN p-value (a test undefined on
that sample, e.g. a t-test on equal differences) is a non-rejection.  A
plug-in test that gives decisions only (:mod:`simstudy.pipeline.plugins`) is
judged by its decisions, at the level its rows were made for; what needs
p-values (calibration at other levels, size-adjusted power, the rank) is left
out for it.  A plug-in that declined a design has no rows there: the data sets
it declined are not counted, and a procedure declined everywhere is listed as
"declined".  A procedure that rejects on no data set at all is flagged "never
rejects" instead of a size verdict, and never ranked.

The independent unit of every Monte Carlo interval is the data set (the
replication): the ``n_experiments`` repeats of a design on one data set share
its cases, so per data set the share of repeats that reject is averaged first.

* **Size** (:func:`size_table`, :func:`size_verdicts`): per procedure and null
  scenario, the Type I error at alpha with an interval simultaneous over the
  scenarios, and the verdict *controls size*, *liberal* or *unresolved*
  (:mod:`simstudy.statistics.size_control`); a procedure controls size only where every
  null scenario does, and its deciding scenario is shown with its interval.
  The pooled Type I error is kept for reference only: pooling can hide a
  liberal scenario among calm ones.
* **Calibration curve**: the pooled Type I error over a grid of levels; the
  **p-value distribution** under the null is its continuation to [0, 1].
* **Power**: the rate of rejections in the true direction (the scenario's
  truth for the design's training size) on the alternative scenarios, raw and
  *size-adjusted*: at the threshold that gives the procedure a Type I error of
  at most alpha on the alternative's null twin (the same learners, size and
  designs without the effect; :attr:`Scenario.null_twin`), so that a liberal
  test cannot buy power with excess size.  Rejections in the wrong direction
  are reported beside it.
* **Replicability**: per data set, R2 (Bouckaert 2004: the share of pairs of
  repeats with the same outcome, three-valued), averaged over data sets; and
  consistency (Bouckaert and Frank 2004: the share of data sets on which every
  repeat agrees).
* **Leaderboard** (:func:`leaderboard`): the procedures that control size,
  ranked by size-adjusted power with paired ties; the others follow unranked
  with their verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.apps.proving.scenarios import BANK, truth
from simstudy.errors import InputError
from simstudy.pipeline.procedures import procedure_id

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "ALPHAS",
    "P_GRID",
    "Procedures",
    "procedures",
    "calibration",
    "pvalue_distribution",
    "power_table",
    "replicability_table",
    "size_table",
    "size_verdicts",
    "critical_values",
    "adjusted_rejections",
    "twins",
    "leaderboard",
    "summarize",
    "named_procedures",
    "BOARD_COLUMNS",
    "ALPHA",
    "load_outcomes",
    "OUTCOME_COLUMNS",
]

ALPHAS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2)
P_GRID = tuple(np.round(np.linspace(0.0, 1.0, 21), 3))
HALF_SHARE = 0.7  # a design training on at most this share of the cases is judged by the truth at 50%
MEASURED_SHARES = (0.9, 0.5)  # the training shares the stored truth is measured at
ALPHA = 0.05


class Procedures:
    """The stored p-values and signs of every procedure as arrays (data sets x repeats), aligned.

    Attributes
    ----------
    units : DataFrame
        One row per data set: ``condition`` (the scenario), ``replication``, and
        ``truth`` / ``truth_half`` (``null``, ``A``, ``B`` or ``unclear``), ``gap`` and ``measured_null``
        (the condition's null holds by measurement, at the training shares where its truth says ``null``, not by
        construction).
    info : DataFrame
        One row per procedure: ``procedure``, ``design``, ``scheme``, ``test``.
    p, sign : dict of procedure -> ndarray (units, repeats)
    unknown_sign : dict of procedure -> bool ndarray (units, repeats)
        Where the stored rows gave no direction (a NaN sign); only procedures that have such rows.
    own : dict of procedure -> int8 ndarray (units, repeats)
        The decisions of the procedures that gave decisions only (no p-values), at level ``decided_at``.
    decided_at : float
        The level the rows of decision-only procedures were made for.
    absent : dict of procedure -> bool ndarray (units,)
        The data sets where a procedure has no rows (a plug-in declined them); only procedures that have such.
    declined : list of str
        Procedures that a plug-in declined on every data set (they have no arrays).
    """

    def __init__(self, units, info, p, sign):
        self.units, self.info, self.p, self.sign = units, info, p, sign
        self.n_experiments = next(iter(p.values())).shape[1] if p else 0
        self._design = dict(zip(info["procedure"], info["design"])) if len(info) else {}
        self.half = {}
        self.measured_share = {}
        self.unknown_sign = {}  # procedure -> (units, repeats) mask where the stored rows gave no direction
        self.own = {}
        self.decided_at = ALPHA
        self.absent = {}
        self.declined = []

    def has_pvalues(self, proc: str) -> bool:
        """Whether the procedure's decisions can be re-made at any level (False: it gave decisions only)."""
        return proc not in self.own

    def decisions(self, proc: str, alpha: float) -> np.ndarray:
        if proc in self.own:
            if not np.isclose(alpha, self.decided_at):
                raise InputError(
                    f"alpha: {proc} gives decisions only, made for alpha = {self.decided_at:g}, not {alpha:g}"
                )
            return self.own[proc]
        p = np.nan_to_num(self.p[proc], nan=2.0)
        return np.where(p <= alpha, self.sign[proc], 0).astype(np.int8)

    def subset(self, procs) -> "Procedures":
        """The same data sets with only the procedures ``procs`` (their arrays shared, not copied)."""
        procs = [p for p in procs if p in self.p]
        info = self.info[self.info["procedure"].isin(procs)].reset_index(drop=True)
        out = Procedures(self.units, info, {p: self.p[p] for p in procs}, {p: self.sign[p] for p in procs})
        out.half, out.measured_share, out.decided_at = dict(self.half), dict(self.measured_share), self.decided_at
        for name in ("unknown_sign", "own", "absent"):
            setattr(out, name, {p: a for p, a in getattr(self, name).items() if p in procs})
        return out

    def present(self, proc: str) -> np.ndarray:
        """Per data set: whether the procedure has rows there (a plug-in may decline some)."""
        return ~self.absent[proc] if proc in self.absent else np.ones(len(self.units), dtype=bool)

    def truth_of(self, proc: str) -> np.ndarray:
        """The truth of every data set for this procedure's design: +1 (A better), -1, 0 (null), NaN (unclear, or
        the procedure has no rows there)."""
        t = self._design_truth(proc)
        if proc in self.absent:
            t = np.where(self.absent[proc], np.nan, t)
        return t

    def _design_truth(self, proc: str) -> np.ndarray:
        design = self._design[proc]
        col = "truth_half" if self.half.get(design, False) else "truth"
        t = self.units[col].map({"A": 1.0, "B": -1.0, "null": 0.0, "unclear": np.nan}).to_numpy(float)
        if not self.measured_share.get(design, True) and "measured_null" in self.units:
            # a null by measurement holds at the training share it was measured at, not at this design's
            t = np.where(self.units["measured_null"].to_numpy(bool) & (t == 0), np.nan, t)
        return t


def _train_share(design: str) -> float | None:
    from simstudy.pipeline.designs import parse_designs

    try:
        return float(parse_designs([design])[0].train_share)
    except ValueError:
        return None


def _half_share(design: str) -> bool:
    share = _train_share(design)
    return share is not None and share <= HALF_SHARE


def _at_measured_share(design: str) -> bool:
    """Whether the design trains on a share the truth is measured at (90% or 50% of the cases)."""
    share = _train_share(design)
    return share is not None and any(abs(share - m) < 0.01 for m in MEASURED_SHARES)


#: The outcome columns the summaries read.
OUTCOME_COLUMNS = ["condition", "replication", "experiment", "design", "scheme", "test", "pvalue", "sign"]


def _codes(col) -> tuple[np.ndarray, np.ndarray]:
    """(labels, codes) of a text column (categorical or not; a missing value is ``""``)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        labels = np.asarray(col.cat.categories, dtype=object)
        codes = col.cat.codes.to_numpy()
        if (codes < 0).any():
            labels = np.append(labels, "")
            codes = np.where(codes < 0, labels.size - 1, codes)
        return labels.astype(str).astype(object), codes
    codes, labels = pd.factorize(col.fillna("").astype(str), sort=False)
    return np.asarray(labels, dtype=object), codes


def load_outcomes(run, tests=None) -> pd.DataFrame:
    """The stored outcome rows the summaries need, read chunk by chunk with their text as categories.

    A paper-scale run stores tens of millions of outcome rows; read whole, their
    text columns alone would take several GiB.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    text = ["condition", "design", "scheme", "test"]
    parts = []
    for part in run.table_chunks("outcomes", columns=OUTCOME_COLUMNS, arrow=True, dictionary=text):
        if tests is not None:
            part = part.filter(pc.is_in(pc.cast(part["test"], pa.string()), value_set=pa.array(list(tests))))
        parts.append(part)
    if not parts:
        raise KeyError(f"table 'outcomes': no stored rows in {run.path}")
    frame = pa.concat_tables(parts).to_pandas()
    for c in text:
        if not isinstance(frame[c].dtype, pd.CategoricalDtype):
            frame[c] = frame[c].astype("category")
    return frame


def procedures(
    outcomes: pd.DataFrame,
    extra: pd.DataFrame | None = None,
    *,
    truth_path=None,
    truths: dict | None = None,
    decided_at: float = ALPHA,
) -> Procedures:
    """Arrange stored outcome rows (and plug-in rows ``extra`` of the same columns) by procedure.

    ``outcomes`` needs ``condition``, ``replication``, ``experiment``, ``design``,
    ``scheme``, ``test``, ``pvalue`` and ``sign`` (text columns may be categorical).
    The truth of each condition comes from ``truths`` (condition -> dict with
    ``truth``, optionally ``truth_half``, ``gap`` and ``twin``, the null
    condition that calibrates it) or, by default, from the scenario bank.

    Rows (of either table) may carry two flags, as :func:`~simstudy.apps.proving.report.plugin_rows`
    gives them: ``decision_only`` (the test gave a decision, its ``sign``, made
    for level ``decided_at``, and no p-value) and ``declined`` (the test declined
    the design on this data set: the row is a placeholder, nothing of it counts).
    """
    rows, flags = _with_plugin_rows(outcomes, extra)
    flag = {c: rows[c].fillna(False).to_numpy(bool) for c in flags if c in rows}
    cond_labels, cond_codes = _codes(rows["condition"])
    order = np.argsort(cond_labels.astype(str), kind="stable")  # data sets sorted by scenario, then replication
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    rep = rows["replication"].to_numpy(np.int64)
    unit_key = rank[cond_codes] * (int(rep.max()) + 1 if rep.size else 1) + rep
    keys, unit = np.unique(unit_key, return_inverse=True)
    base = int(rep.max()) + 1 if rep.size else 1
    units = pd.DataFrame({"condition": cond_labels[order][keys // base], "replication": keys % base})
    exp_values, exp_index = np.unique(rows["experiment"].to_numpy(), return_inverse=True)
    n_units, n_exp = len(units), exp_values.size
    parts = [_codes(rows[c]) for c in ("design", "scheme", "test")]
    proc_key = (parts[0][1].astype(np.int64) * len(parts[1][0]) + parts[1][1]) * len(parts[2][0]) + parts[2][1]
    proc_values, first, proc_index = np.unique(proc_key, return_index=True, return_inverse=True)
    pvals = rows["pvalue"].to_numpy(float)
    raw_signs = rows["sign"].to_numpy(float)
    unknown_sign = np.isnan(raw_signs)
    signs = np.nan_to_num(raw_signs)
    cell = unit.astype(np.int64) * n_exp + exp_index
    by_proc = np.argsort(proc_index, kind="stable")
    bounds = np.searchsorted(proc_index[by_proc], np.arange(proc_values.size + 1))
    p, sign, info, unknown = {}, {}, [], {}
    own, absent, declined = {}, {}, []
    for j in np.argsort(first, kind="stable"):  # procedures in the order of their first row
        idx = by_proc[bounds[j] : bounds[j + 1]]
        design, scheme, test = (parts[i][0][parts[i][1][idx[0]]] for i in range(3))
        proc = procedure_id(design, scheme, test)
        if "declined" in flag:
            idx = idx[~flag["declined"][idx]]
            if not idx.size:
                declined.append(proc)
                continue
        c = cell[idx]
        if np.unique(c).size != c.size:
            raise InputError(f"outcomes: procedure {proc} has more than one row per data set and repeat")
        pa = np.full(n_units * n_exp, np.nan)
        sa = np.zeros(n_units * n_exp, dtype=np.int8)
        pa[c] = pvals[idx]
        sa[c] = signs[idx].astype(np.int8)
        p[proc], sign[proc] = pa.reshape(n_units, n_exp), sa.reshape(n_units, n_exp)
        if unknown_sign[idx].any():
            ua = np.zeros(n_units * n_exp, dtype=bool)
            ua[c] = unknown_sign[idx]
            unknown[proc] = ua.reshape(n_units, n_exp)
        if "decision_only" in flag and flag["decision_only"][idx].any():
            # its decisions: the test's own where it gave decisions, else its p-value at the level they were made for
            by_p = np.where(np.nan_to_num(pvals[idx], nan=2.0) <= decided_at, signs[idx], 0)
            oa = np.zeros(n_units * n_exp, dtype=np.int8)
            oa[c] = np.where(flag["decision_only"][idx], signs[idx], by_p).astype(np.int8)
            own[proc] = oa.reshape(n_units, n_exp)
        if flags:
            there = np.zeros(n_units, dtype=bool)
            there[unit[idx]] = True
            if not there.all():
                absent[proc] = ~there
        info.append({"procedure": proc, "design": design, "scheme": scheme, "test": test})
    t = _condition_truths(units["condition"].unique(), truths, truth_path)
    units = units.assign(
        truth=units["condition"].map(lambda k: t[k]["truth"]),
        truth_half=units["condition"].map(lambda k: t[k].get("truth_half", t[k]["truth"])),
        gap=units["condition"].map(lambda k: t[k].get("gap", np.nan)),
        twin=units["condition"].map(lambda k: t[k].get("twin") or ""),
        measured_null=units["condition"].map(lambda k: bool(t[k].get("measured_null"))).astype(bool),
    )
    out = Procedures(units, pd.DataFrame(info, columns=["procedure", "design", "scheme", "test"]), p, sign)
    designs = out.info["design"].unique() if len(out.info) else []
    out.half = {d: _half_share(d) for d in designs}
    out.measured_share = {d: _at_measured_share(d) for d in designs}
    out.unknown_sign = unknown
    out.own, out.decided_at, out.absent, out.declined = own, decided_at, absent, declined
    return out


def _with_plugin_rows(outcomes: pd.DataFrame, extra: pd.DataFrame | None) -> tuple[pd.DataFrame, list]:
    """The stored outcome rows with the plug-in rows ``extra`` after them, and the flags either carries."""
    flags = [c for c in ("decision_only", "declined") if c in outcomes or (extra is not None and c in extra)]
    if extra is None or not len(extra):
        return outcomes, flags
    cols = [c for c in OUTCOME_COLUMNS if c in extra]
    rows = pd.concat(
        [
            outcomes[cols + [c for c in flags if c in outcomes]].astype(
                {c: object for c in ("condition", "design", "scheme", "test")}
            ),
            extra[cols + [c for c in flags if c in extra]],
        ],
        ignore_index=True,
    )
    return rows, flags


def _condition_truths(conditions, truths: dict | None, truth_path) -> dict:
    """Each condition's truth: from ``truths`` when given, else the scenario bank's (unclear off the bank)."""
    if truths is not None:
        return {k: truths.get(k, {"truth": "unclear"}) for k in conditions}
    return {
        k: (
            {**truth(k, truth_path), "twin": BANK[k].null_twin or ""}
            if k in BANK
            else {"truth": "unclear", "truth_half": "unclear", "gap": np.nan, "twin": ""}
        )
        for k in conditions
    }


def _mean_iv(x):
    """Mean over the first axis with its 95% t interval, clipped to [0, 1]: (mean, low, high)."""
    from simstudy.statistics.intervals import mean_interval

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
            if not pr.has_pvalues(proc) and not np.isclose(a, pr.decided_at):
                continue  # decisions only: no curve, its one point where it was judged
            rej = (pr.decisions(proc, a)[null] != 0).mean(axis=1) if null.any() else np.empty(0)
            rows.append({"procedure": proc, "alpha": a, **_pct("type1", *_mean_iv(rej)), "n": int(null.sum())})
    return pd.DataFrame(rows)


def pvalue_distribution(pr: Procedures, grid=P_GRID) -> pd.DataFrame:
    """Per procedure: the ECDF of its null p-values on ``grid`` (share of p <= x), and its largest distance
    from the uniform's diagonal."""
    rows = []
    for proc in pr.p:
        null = _null_mask(pr, proc)
        if not null.any() or not pr.has_pvalues(proc):
            continue
        p = np.nan_to_num(pr.p[proc][null], nan=1.0)
        ecdf = np.array([(p <= x).mean() for x in grid])
        rows.append(
            {
                "procedure": proc,
                "ecdf": ecdf,
                "max_distance": float(np.max(np.abs(ecdf - np.asarray(grid)))),
                "share_p_at_most_0.5": float((p <= 0.5).mean()),
                "undefined": float(np.isnan(pr.p[proc][null]).mean()),
            }
        )
    return pd.DataFrame(rows)


def _grouped_iv(values: np.ndarray, codes: np.ndarray, n_groups: int):
    """Per group: mean over its units with the 95% t interval, clipped to [0, 1], as :func:`_mean_iv` gives it one
    group at a time; NaN units are left out, and a group without units is NaN."""
    from simstudy.statistics.intervals import interval_quantile

    ok = np.isfinite(values)
    v = np.where(ok, values, 0.0)
    n = np.bincount(codes, weights=ok.astype(float), minlength=n_groups)
    s1 = np.bincount(codes, weights=v, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = s1 / n
        dev = np.where(ok, values - m[codes], 0.0)
        var = np.bincount(codes, weights=dev * dev, minlength=n_groups) / np.maximum(n - 1, 1)
        half = np.where(n >= 2, interval_quantile(np.maximum(n, 2)) * np.sqrt(var / n), 0.0)
    m = np.where(n > 0, m, np.nan)
    return m, np.clip(m - half, 0, 1), np.clip(m + half, 0, 1)


def _truth_label(tk) -> str:
    return "unclear" if np.isnan(tk) else ("null" if tk == 0 else ("A" if tk > 0 else "B"))


def power_table(pr: Procedures, alpha: float = 0.05) -> pd.DataFrame:
    """Per procedure and scenario: rejections in the true direction (power; Type I error on a null), the same at the
    size-adjusted threshold (``adjusted``; alternatives with a stored null twin) and in the wrong direction,
    percent with intervals over the scenario's data sets."""
    cond = pr.units["condition"].to_numpy()
    keys, first, codes = np.unique(cond, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # scenarios in the order of their first data set
    gap = pr.units["gap"].to_numpy(float)[first]
    thresholds = critical_values(pr, alpha)
    twin = twins(pr)
    parts = []
    for proc in pr.p:
        dec = pr.decisions(proc, alpha)
        t = pr.truth_of(proc)
        tz = np.nan_to_num(t)
        alt = np.isfinite(t) & (t != 0)
        right = np.where(alt[:, None], dec == tz[:, None], dec != 0).mean(axis=1)
        wrong = np.where(alt[:, None], dec == -tz[:, None], False).mean(axis=1)
        there = pr.present(proc)
        n = np.bincount(codes, weights=there.astype(float), minlength=keys.size).astype(np.int64)
        right, wrong = np.where(there, right, np.nan), np.where(there, wrong, np.nan)
        adj = adjusted_rejections(pr, proc, thresholds[proc], twin)
        adj_right = np.where(alt, (adj == tz[:, None]).mean(axis=1), np.nan)
        adj_right[~np.isfinite(adj[:, 0])] = np.nan
        complete = np.bincount(codes, weights=np.isfinite(adj_right).astype(float), minlength=keys.size) == n
        r, a, w = (
            _grouped_iv(right, codes, keys.size),
            _grouped_iv(adj_right, codes, keys.size),
            _grouped_iv(wrong, codes, keys.size),
        )
        a = tuple(np.where(complete, x, np.nan) for x in a)
        tk = pr._design_truth(proc)[first]
        alt_k = np.isfinite(tk) & (tk != 0)
        parts.append(
            pd.DataFrame(
                {
                    "procedure": proc,
                    "scenario": keys,
                    "truth": [_truth_label(x) for x in tk],
                    "gap": gap,
                    **_pct("rejecting", *r),
                    **_pct("adjusted", *a),
                    **_pct("wrong_direction", *(np.where(alt_k, x, 0.0) for x in w)),
                    "n": n,
                }
            ).iloc[order]
        )
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def replicability_table(pr: Procedures, alpha: float = 0.05) -> pd.DataFrame:
    """Per procedure and scenario: mean R2 of the repeats (percent) and the share of consistent data sets."""
    from simstudy.statistics.intervals import wilson
    from simstudy.statistics.replicability import r2

    cond = pr.units["condition"].to_numpy()
    keys, first, codes = np.unique(cond, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    gap = pr.units["gap"].to_numpy(float)[first]
    parts = []
    for proc in pr.p:
        dec = pr.decisions(proc, alpha)
        t = pr._design_truth(proc)
        there = pr.present(proc)
        per = np.asarray(r2(dec), dtype=float) if dec.shape[1] >= 2 else np.full(dec.shape[0], np.nan)
        per = np.where(there, per, np.nan)
        agree = (dec == dec[:, :1]).all(axis=1) & there
        n_there = np.bincount(codes, weights=there.astype(float), minlength=keys.size).astype(np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):  # a scenario the procedure declined: NaN
            c, lo, hi = wilson(np.bincount(codes, weights=agree.astype(float), minlength=keys.size), n_there)
        parts.append(
            pd.DataFrame(
                {
                    "procedure": proc,
                    "scenario": keys,
                    "truth": [_truth_label(x) for x in t[first]],
                    "gap": gap,
                    **_pct("r2", *_grouped_iv(per, codes, keys.size)),
                    "consistent": 100 * c,
                    "consistent_mc_low": 100 * lo,
                    "consistent_mc_high": 100 * hi,
                    "n": n_there,
                }
            ).iloc[order]
        )
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def size_table(pr: Procedures, rule=None) -> pd.DataFrame:
    """Per procedure and null scenario: Type I error at ``rule.alpha`` with its simultaneous interval and verdict.

    The intervals of one procedure are simultaneous over the null scenarios it
    was judged on (:mod:`simstudy.statistics.size_control`); percentages.  A
    procedure that rejects on no data set at all (null or not) gets the verdict
    "never rejects" on every scenario: zero rejections say nothing of its size.

    Returns
    -------
    DataFrame
        ``procedure``, ``scenario``, ``n`` (data sets), ``type1``, ``type1_low``,
        ``type1_high``, ``verdict``, ``above_alpha``.
    """
    from simstudy.statistics.size_control import NEVER_REJECTS, SizeRule, judge_scenarios

    rule = rule or SizeRule(alpha=ALPHA)
    cond = pr.units["condition"].to_numpy()
    parts = []
    for proc in pr.p:
        null = _null_mask(pr, proc)
        if not null.any():
            continue
        dec = pr.decisions(proc, rule.alpha)
        shares = (dec[null] != 0).mean(axis=1)
        t = judge_scenarios(shares, cond[null], rule, n_repeats=pr.n_experiments)
        if not (dec[pr.present(proc)] != 0).any():
            t["verdict"] = NEVER_REJECTS
        parts.append(
            pd.DataFrame(
                {
                    "procedure": proc,
                    "scenario": t["scenario"],
                    "n": t["n"],
                    "type1": 100 * t["type1"],
                    "type1_low": 100 * t["low"],
                    "type1_high": 100 * t["high"],
                    "verdict": t["verdict"],
                    "above_alpha": t["above_alpha"],
                }
            )
        )
    cols = ["procedure", "scenario", "n", "type1", "type1_low", "type1_high", "verdict", "above_alpha"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)


def size_verdicts(sizes: pd.DataFrame) -> pd.DataFrame:
    """One row per procedure: its size verdict and the scenario deciding it (from :func:`size_table`)."""
    from simstudy.statistics.size_control import procedure_verdict

    rows = []
    for proc, g in sizes.groupby("procedure", sort=False):
        v = procedure_verdict(g.rename(columns={"type1_low": "low", "type1_high": "high"}))
        rows.append(
            {
                "procedure": proc,
                "size": v["verdict"],
                "deciding_scenario": v["scenario"],
                "deciding_type1": v["type1"],
                "deciding_low": v["low"],
                "deciding_high": v["high"],
                "deciding_n": v["n"],
                "null_scenarios": v["scenarios"],
                "controls": v["n_controls"],
                "liberal": v["n_liberal"],
                "unresolved": v["n_unresolved"],
            }
        )
    return pd.DataFrame(rows)


def verdict_fields(v, size: str) -> dict:
    """A procedure's row of :func:`size_verdicts` as table fields; ``v`` None (no null scenario judged it):
    ``size``, no scenario, NaN Type I error and zero counts."""
    if v is None:
        return {"size": size, "deciding_scenario": "", "deciding_type1": np.nan, "deciding_low": np.nan,
                "deciding_high": np.nan, "deciding_n": 0, "null_scenarios": 0, "liberal": 0, "unresolved": 0}  # fmt: skip
    return {
        "size": v["size"],
        "deciding_scenario": v["deciding_scenario"],
        "deciding_type1": v["deciding_type1"],
        "deciding_low": v["deciding_low"],
        "deciding_high": v["deciding_high"],
        "deciding_n": int(v["deciding_n"]),
        "null_scenarios": int(v["null_scenarios"]),
        "liberal": int(v["liberal"]),
        "unresolved": int(v["unresolved"]),
    }


def critical_values(pr: Procedures, alpha: float = ALPHA) -> dict:
    """Per procedure, per null scenario: the size-adjusted threshold (:func:`simstudy.statistics.size_control.critical_value`);
    none for a procedure that gives decisions only."""
    from simstudy.statistics.size_control import critical_value

    cond = pr.units["condition"].to_numpy()
    out = {}
    for proc in pr.p:
        if not pr.has_pvalues(proc):
            out[proc] = {}
            continue
        null = _null_mask(pr, proc)
        out[proc] = {k: critical_value(pr.p[proc][null & (cond == k)], alpha) for k in pd.unique(cond[null])}
    return out


def twins(pr: Procedures) -> np.ndarray:
    """The null twin of every data set's scenario (:attr:`Scenario.null_twin`) when it is stored, else ''."""
    stored = set(pr.units["condition"])
    return np.array([t if t in stored else "" for t in pr.units["twin"]], dtype=object)


def adjusted_rejections(pr: Procedures, proc: str, thresholds: dict, twin: np.ndarray) -> np.ndarray:
    """Per data set and repeat: the size-adjusted decision (+1, -1, 0), rejecting when p is below the threshold
    calibrated on the data set's null twin; NaN rows where the scenario has no stored twin (every row for a
    procedure that gives decisions only: without p-values there is no threshold)."""
    p = pr.p[proc]
    q = np.array([thresholds.get(t, np.nan) if t else np.nan for t in twin])
    with np.errstate(invalid="ignore"):
        hit = np.isfinite(p) & (p < q[:, None])
        rej = np.where(hit, pr.sign[proc], 0).astype(float)
    rej[~np.isfinite(q)] = np.nan
    if proc in pr.unknown_sign:  # a rejection whose direction the stored rows do not give
        rej[(hit & pr.unknown_sign[proc]).any(axis=1)] = np.nan
    return rej


def leaderboard(pr: Procedures, alpha: float = ALPHA, rule=None, sizes: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every procedure: its size verdict, Type I error, raw and size-adjusted power, wrong directions, R2; ranked.

    A procedure is ranked only when it controls size on every null scenario
    (:mod:`simstudy.statistics.size_control`).  Ranked procedures are ordered by
    size-adjusted power: on every alternative data set whose scenario has a
    stored null twin, a rejection in the true direction at the threshold that
    gives the procedure a Type I error of at most ``alpha`` on the twin.  Every
    procedure saw the same data sets, so i *beats* j when the 95% interval of
    the mean paired difference of their per-data-set size-adjusted power lies
    above 0; rank = 1 + the number of procedures that beat it, and procedures
    whose paired interval covers 0 are tied.  Sorted by rank, then size-adjusted power.

    Not ranked, whatever their Type I error: a procedure that gives decisions
    only (no size-adjusted power: ``decision_only``), one that rejects on no
    data set at all (size "never rejects") and one a plug-in declined on every
    data set (size "declined", every number NaN).

    Parameters
    ----------
    pr : Procedures
    alpha : float
    rule : simstudy.statistics.size_control.SizeRule, optional
        How size is judged (default: tolerance 1.5 alpha).
    sizes : DataFrame, optional
        :func:`size_table` of ``pr`` (computed when not given).
    """
    from simstudy.statistics.size_control import CONTROLS, DECLINED, SizeRule, verdict_rank

    rule = rule or SizeRule(alpha=alpha)
    sizes = size_table(pr, rule) if sizes is None else sizes
    verdicts = size_verdicts(sizes).set_index("procedure") if len(sizes) else pd.DataFrame()
    thresholds = critical_values(pr, alpha)
    twin = twins(pr)
    rows, adjusted_units = [], {}
    for proc in pr.p:
        adjusted_units[proc] = _adjusted_right(pr, proc, thresholds[proc], twin)
        v = verdicts.loc[proc] if proc in verdicts.index else None
        rows.append(_board_row(pr, proc, alpha, v, adjusted_units[proc]))
    for proc in pr.declined:
        rows.append({"procedure": proc, "size": DECLINED, "worst_null_scenario": "", "decision_only": False})
    board = pd.DataFrame(rows)
    if board.empty:
        return board
    for col in (
        "worst_null_n",
        "null_scenarios",
        "liberal_scenarios",
        "unresolved_scenarios",
        "null_units",
        "alt_units",
        "adjusted_units",
    ):
        board[col] = board[col].fillna(0).astype(np.int64)
    board["controlled"] = board["size"] == CONTROLS
    ranked = board[board["controlled"] & ~board["decision_only"]]["procedure"].tolist()
    rank, ties = _ranks(ranked, adjusted_units)
    board["rank"] = board["procedure"].map(rank)
    board["tied_with"] = board["procedure"].map(ties)
    board["_order"] = board["size"].map(verdict_rank)
    board = board.sort_values(
        ["_order", "rank", "adjusted_power", "power"],
        ascending=[True, True, False, False],
        kind="stable",
        na_position="last",
    ).drop(columns="_order")
    return board.reset_index(drop=True)


def _adjusted_right(pr: Procedures, proc: str, threshold, twin) -> np.ndarray:
    """Per data set, the share of repeats rejecting in the true direction at the size-adjusted threshold (NaN
    where the data set is not an alternative or its scenario has no null twin)."""
    t = pr.truth_of(proc)
    alt = np.isfinite(t) & (t != 0)
    adj = adjusted_rejections(pr, proc, threshold, twin)
    return np.where(alt & np.isfinite(adj[:, 0]), (adj == np.nan_to_num(t)[:, None]).mean(axis=1), np.nan)


def _board_row(pr: Procedures, proc: str, alpha: float, v, adj_right: np.ndarray) -> dict:
    """One procedure's row of the leaderboard: its size verdict ``v`` (None: not judged) and its numbers."""
    from simstudy.statistics.replicability import r2
    from simstudy.statistics.size_control import NEVER_REJECTS

    dec = pr.decisions(proc, alpha)
    t = pr.truth_of(proc)
    null = t == 0
    alt = np.isfinite(t) & (t != 0)
    rej = (dec != 0).mean(axis=1)
    right = (dec == np.nan_to_num(t)[:, None]).mean(axis=1)
    wrong = (dec == -np.nan_to_num(t)[:, None]).mean(axis=1)
    per_r2 = np.asarray(r2(dec), dtype=float) if dec.shape[1] >= 2 else np.full(dec.shape[0], np.nan)
    has_adj = np.isfinite(adj_right)
    f = verdict_fields(v, "unresolved")
    return {
        "procedure": proc,
        "size": NEVER_REJECTS if not (dec[pr.present(proc)] != 0).any() else f["size"],
        "worst_null_scenario": f["deciding_scenario"],
        "worst_null": f["deciding_type1"],
        "worst_null_low": f["deciding_low"],
        "worst_null_high": f["deciding_high"],
        "worst_null_n": f["deciding_n"],
        "null_scenarios": f["null_scenarios"],
        "liberal_scenarios": f["liberal"],
        "unresolved_scenarios": f["unresolved"],
        **_pct("type1", *_mean_iv(rej[null])),
        **_pct("power", *_mean_iv(right[alt])),
        **_pct("adjusted_power", *_mean_iv(adj_right[has_adj])),
        "wrong_direction": 100 * float(wrong[alt].mean()) if alt.any() else np.nan,
        **_pct("r2", *_mean_iv(per_r2[alt])),
        "null_units": int(null.sum()),
        "alt_units": int(alt.sum()),
        "adjusted_units": int(has_adj.sum()),
        "decision_only": not pr.has_pvalues(proc),
    }


def _ranks(ranked: list, adjusted_units: dict) -> tuple[dict, dict]:
    """Rank and ties of the procedures that control size: i beats j when the 95% interval of their paired
    difference in size-adjusted power, over the alternative data sets both have, lies above 0."""
    from simstudy.statistics.intervals import mean_interval

    rank, ties = {}, {}
    if not ranked:
        return rank, ties
    mask = np.logical_and.reduce([np.isfinite(adjusted_units[p]) for p in ranked])
    M = np.stack([adjusted_units[p][mask] for p in ranked])  # procedures x alternative data sets
    beats = np.zeros((len(ranked), len(ranked)), dtype=bool)
    if M.shape[1] >= 2:
        for i in range(len(ranked)):
            _, lo, _ = mean_interval(M[i][None, :] - M, axis=1)
            beats[i] = np.asarray(lo) > 0
    for j, p in enumerate(ranked):
        rank[p] = 1 + int(beats[:, j].sum())
        ties[p] = int(sum(1 for i in range(len(ranked)) if i != j and not beats[i, j] and not beats[j, i]))
    return rank, ties


def named_procedures(info: pd.DataFrame, extra_tests=()) -> dict:
    """The procedures the papers name (:data:`simstudy.pipeline.procedures.NAMED`) and plug-ins, label ->
    procedure, among those stored.

    Each named procedure is listed on the first stored design that fits it (one of several runs where there is
    one) for each name it takes there (a resampled design of another size or share is named apart); the
    procedures of one kind of design are listed design by design, in the order of :data:`NAMED`.
    """
    from itertools import groupby

    from simstudy.pipeline.designs import parse_designs
    from simstudy.pipeline.procedures import NAMED

    designs = list(dict.fromkeys(info["design"]))
    specs = list(parse_designs(designs)) if designs else []
    stored = set(info["procedure"])
    out = {}
    for _, block in groupby((e for e in NAMED if e.short), key=lambda e: e.kind):
        block = list(block)
        chosen = {e: _named_designs(e, specs) for e in block}
        for d in [d for d in specs if any(d in ds for ds in chosen.values())]:
            for e in block:
                proc = procedure_id(d.key, e.scheme, e.test)
                if d in chosen[e] and proc in stored:
                    out[e.name(d)] = proc
    for t in extra_tests:
        for d in designs:
            proc = procedure_id(d, "", t)
            if proc in stored:
                out[f"{t} ({d})"] = proc
    return out


def _named_designs(entry, specs) -> list:
    """The designs a named procedure is listed on: of those it fits, those of several runs first, the first for
    each name it takes."""
    fitting = sorted((d for d in specs if entry.fits(d)), key=lambda d: d.n_runs <= 1)
    names: dict = {}
    for d in fitting:
        names.setdefault(entry.name(d), d)
    return list(names.values())


#: The leaderboard's main columns, in order.
BOARD_COLUMNS = [
    "rank",
    "tied_with",
    "procedure",
    "size",
    "adjusted_power",
    "adjusted_power_mc_low",
    "adjusted_power_mc_high",
    "power",
    "power_mc_low",
    "power_mc_high",
    "worst_null",
    "worst_null_low",
    "worst_null_high",
    "worst_null_scenario",
    "worst_null_n",
]


def summarize(run) -> dict[str, pd.DataFrame]:
    """The proving ground's tables from its stored rows (built-in tests only; plug-ins are added by the report)."""
    pr = procedures(load_outcomes(run))
    sizes = size_table(pr)
    board = leaderboard(pr, sizes=sizes)
    cal = calibration(pr, alphas=(0.01, 0.05, 0.1))
    wide = cal.pivot(index="procedure", columns="alpha", values="type1")
    wide.columns = [f"type1_at_{a:g}" for a in wide.columns]
    return {
        "leaderboard": board[BOARD_COLUMNS],
        "leaderboard_all_columns": board,
        "size": sizes,
        "calibration": wide.reset_index(),
        "power": power_table(pr),
        "replicability": replicability_table(pr),
    }
