"""Assess one comparison: how replicable is "A beats B" on this data set, with these learners?

Bouckaert's replicability experiment, run on the user's own data: every design
the papers compare is repeated ``n_repeats`` times on fresh random partitions
of the same data, every learner is fitted once per split, and every test (on
every sampling scheme of the repeated cross-validation) is applied to the same
fits.  From the stored rows alone, :func:`assessment_tables` then gives per
design, scheme and test:

* the share of repeats that reject in each direction, with exact intervals;
* R2 (Bouckaert 2004, Eq. 1 with three outcomes) and its standard error
  (Theorem 3.1), and whether all repeats agree (Bouckaert and Frank's
  consistency on one data set);
* the first repeat's statistic and p-value, with Berrar's replication
  probability of its verdict and the prediction interval (non-central t for
  the t-tests, the Wilcoxon model with ``s* = 1`` for the signed-rank tests,
  the binomial model for the sign tests);
* the empirical replication rate ``F`` of a significant verdict: the share of
  the other repeats that reach the same significant verdict.

The assessment is a :class:`~simstudy.engine.Study` built at run time (one
condition per design, one replication per repeat), so it is stored, resumed
and verified like any study and is a deterministic function of the data, the
learners, the designs and the seed.  :func:`recommend` adds the evidence of the
stored simulation studies (:mod:`simstudy.apps.evidence`), judged on the proving
ground's rules: which of these procedures control size on the null scenarios
(:mod:`simstudy.statistics.size_control`), and among those, which has the best
size-adjusted power, ties broken by simulated replicability.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._files import DEFAULT_ROOT
from simstudy._lazy import lazy_module
from simstudy.apps.assess.checks import _check_assess_plan, _check_learnable, check_learners, check_plan, check_rope
from simstudy.apps.assess.data import Dataset, as_dataset, check_metric_for, load_data
from simstudy.apps.assess.designs import (
    DEFAULT_DESIGNS,
    DEFAULT_REPEATS,
    DEFAULT_TESTS,
    FULL_DESIGNS,
    FULL_REPEATS,
    DesignChoice,
    _check_designs,
    _check_tests,
    parse_designs,
)
from simstudy.apps.assess.errors import _first_line
from simstudy.apps.assess.learners import LearnerChoice, named_learners, parse_learner, wants_worker
from simstudy.apps.assess.limits import DEFAULT_FIT_TIMEOUT, _close_fit_workers, check_fit_timeout
from simstudy.apps.assess.study import ASSESS_PROFILE, LearnerFailed, _comparisons, _failed_text, assessment_study
from simstudy.apps.assess.tables import _score_columns, assessment_tables, effect_table, stored_metric, warning_summary

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "Dataset",
    "LearnerChoice",
    "DesignChoice",
    "load_data",
    "parse_learner",
    "parse_designs",
    "assessment_study",
    "assess",
    "assessment_tables",
    "recommend",
    "evidence_table",
    "load_assessment",
    "as_dataset",
    "named_learners",
    "Assessment",
    "LearnerFailed",
    "DEFAULT_DESIGNS",
    "DEFAULT_REPEATS",
    "FULL_DESIGNS",
    "FULL_REPEATS",
    "baycomp_runs",
    "DEFAULT_TESTS",
    "ASSESS_PROFILE",
    "EVIDENCE_COMMAND",
    "SHIPPED",
    "DEFAULT_FIT_TIMEOUT",
    "check_learners",
    "check_metric_for",
    "check_plan",
    "wants_worker",
]

#: ``evidence=SHIPPED``: the evidence shipped with the package, whatever is stored under a results root.
SHIPPED = "shipped"


# ----------------------------------------------------------------------------------------- the study


# ----------------------------------------------------------------------------------------- evidence

#: The command that stores evidence for designs no stored run covers: the proving ground applies every registered
#: test to the designs it is given, on its bank of null and alternative scenarios.
EVIDENCE_COMMAND = "simstudy proving-ground --profile quick --designs {designs}"
_SHOW = 6  # procedures named per list in the recommendation
_LARGER = {"smoke": "quick", "quick": "paper"}


def _text(col) -> pd.Series:
    return col.astype(object).where(col.notna(), "")


def _candidate_rows(ev, wanted: set) -> pd.DataFrame:
    """The evidence rows of the procedures ``wanted`` ((design, scheme, test) triples), text as plain objects."""
    from simstudy.apps.evidence import EVIDENCE_COLUMNS

    r = ev.rows
    r = r[r["test"].isin(sorted({t for _, _, t in wanted}))]
    if not len(r):
        return r[EVIDENCE_COLUMNS].iloc[:0]
    groups = r.groupby(["design", "scheme", "test"], sort=False, observed=True, dropna=False).indices
    keep = [idx for key, idx in groups.items() if tuple("" if pd.isna(k) else str(k) for k in key) in wanted]
    if not keep:
        return r[EVIDENCE_COLUMNS].iloc[:0]
    r = r.iloc[np.sort(np.concatenate(keep))]
    return pd.DataFrame(
        {
            "condition": _text(r["condition"]).to_numpy(),
            "replication": r["replication"].to_numpy(),
            "experiment": r["experiment"].to_numpy(),
            "design": _text(r["design"]).to_numpy(),
            "scheme": _text(r["scheme"]).to_numpy(),
            "test": _text(r["test"]).to_numpy(),
            "pvalue": r["pvalue"].to_numpy(dtype=float),
            "sign": r["sign"].to_numpy(dtype=float),
        }
    )


def _first_experiments(rows: pd.DataFrame, n: int) -> pd.DataFrame:
    """The rows of every data set's first ``n`` repeats (in order of their ``experiment`` value), renumbered 0..n-1."""
    values = np.unique(rows["experiment"].to_numpy())
    if values.size <= n and np.array_equal(values, np.arange(values.size)):
        return rows
    pos = np.searchsorted(values, rows["experiment"].to_numpy())
    keep = pos < n
    return rows[keep].assign(experiment=pos[keep])


def _designs_with_nulls(ev) -> set:
    """The designs ``ev`` has rows of on a null scenario."""
    nulls = set(ev.null_conditions())
    pairs = ev.rows.groupby(["design", "condition"], sort=False, observed=True).size().index
    return {str(d) for d, c in pairs if str(c) in nulls}


def _subset(pr, procs, mask=None):
    """The :class:`~simstudy.apps.proving.summary.Procedures` of ``procs`` on the data sets ``mask`` (all by default)."""
    from simstudy.apps.proving.summary import Procedures

    def sel(a):
        return a if mask is None else a[mask]

    units = pr.units if mask is None else pr.units[mask].reset_index(drop=True)
    info = pr.info[pr.info["procedure"].isin(list(procs))].reset_index(drop=True)
    out = Procedures(units, info, {p: sel(pr.p[p]) for p in procs}, {p: sel(pr.sign[p]) for p in procs})
    out.half = dict(pr.half)
    out.unknown_sign = {p: sel(pr.unknown_sign[p]) for p in procs if p in pr.unknown_sign}
    return out


def _judge(pr, present: dict, rule, alpha: float):
    """Per procedure, on the data sets of the scenarios where it has rows: its size table, its leaderboard row
    (raw and size-adjusted power) and Bouckaert's replicability criterion (the lowest, over the scenarios, of the
    mean R2 of a data set's repeats)."""
    from simstudy.apps.proving.summary import leaderboard, size_table, twins
    from simstudy.statistics.replicability import r2

    cond = pr.units["condition"].to_numpy()
    sizes, stats = [], {}
    for proc in pr.p:
        mask = np.isin(cond, sorted(present[proc]))
        sub = _subset(pr, [proc], mask)
        sz = size_table(sub, rule)
        b = leaderboard(sub, alpha=alpha, rule=rule, sizes=sz).iloc[0]
        t = sub.truth_of(proc)
        calibrated = int((np.isfinite(t) & (t != 0) & (twins(sub) != "")).sum())
        adjusted = {
            "adjusted_power": b["adjusted_power"],
            "adjusted_low": b["adjusted_power_mc_low"],
            "adjusted_high": b["adjusted_power_mc_high"],
            "adjusted_units": int(b["adjusted_units"]),
        }
        if adjusted["adjusted_units"] < calibrated:
            # some alternative data sets have a rejection at the calibrated threshold whose direction the stored rows
            # do not give: the others alone would be a selected subset, so there is no size-adjusted power
            adjusted = {"adjusted_power": np.nan, "adjusted_low": np.nan, "adjusted_high": np.nan, "adjusted_units": 0}
        dec = sub.decisions(proc, alpha)
        per = np.asarray(r2(dec), dtype=float).reshape(-1) if dec.shape[1] >= 2 else np.full(dec.shape[0], np.nan)
        by_cond = pd.Series(per).groupby(cond[mask]).mean().dropna()
        stats[proc] = {
            **adjusted,
            "calibrated_units": calibrated,
            "power": b["power"],
            "alt_units": int(b["alt_units"]),
            "sim_r2": float(by_cond.min()) if len(by_cond) else np.nan,
            "sim_r2_scenario": str(by_cond.idxmin()) if len(by_cond) else "",
            "sources": sorted({str(c).split(": ", 1)[0] for c in present[proc]}),
        }
        if len(sz):
            sizes.append(sz)
    cols = ["procedure", "scenario", "n", "type1", "type1_low", "type1_high", "verdict", "above_alpha"]
    return (pd.concat(sizes, ignore_index=True) if sizes else pd.DataFrame(columns=cols)), stats


def _paired_ranks(pr, procs: list, alpha: float) -> tuple[dict, dict]:
    """The leaderboard's ranking of ``procs`` by size-adjusted power, each pair compared on the alternative data sets
    both were simulated on: i *beats* j when the 95% interval of the mean paired difference of their per-data-set
    size-adjusted power lies above 0; rank = 1 + the number of procedures that beat it; ``tied`` counts those
    neither beating nor beaten (procedures of different stored runs share no data set, so they tie).  With every
    procedure on the same data sets this is :func:`simstudy.apps.proving.summary.leaderboard`'s ranking."""
    from simstudy.apps.proving.summary import adjusted_rejections, critical_values, twins
    from simstudy.statistics.intervals import mean_interval

    sub = _subset(pr, procs)
    thresholds, twin = critical_values(sub, alpha), twins(sub)
    per = []
    for p in procs:
        t = sub.truth_of(p)
        alt = np.isfinite(t) & (t != 0)
        adj = adjusted_rejections(sub, p, thresholds[p], twin)
        with np.errstate(invalid="ignore"):
            per.append(np.where(alt & np.isfinite(adj[:, 0]), (adj == np.nan_to_num(t)[:, None]).mean(axis=1), np.nan))
    n = len(procs)
    beats = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(n):
            common = np.isfinite(per[i]) & np.isfinite(per[j])
            if i != j and common.sum() >= 2:
                _, lo, _ = mean_interval(per[i][common] - per[j][common])
                beats[i, j] = float(lo) > 0
    rank = {p: 1 + int(beats[:, j].sum()) for j, p in enumerate(procs)}
    tied = {
        p: int(sum(1 for i in range(n) if i != j and not beats[i, j] and not beats[j, i])) for j, p in enumerate(procs)
    }
    return rank, tied


def evidence_table(evidence, procedures_wanted, *, alpha: float = 0.05, notes: list | None = None) -> pd.DataFrame:
    """The stored evidence on the procedures ``procedures_wanted`` ((design, scheme, test) triples), on the proving
    ground's rules.

    All evidence is combined into one :func:`~simstudy.apps.proving.summary.procedures`
    call (every data set cut to the fewest repeats any source stores, so that
    each weighs the same).  Each procedure is judged on the data sets of the
    scenarios where it has rows: its size verdict from
    :func:`~simstudy.apps.proving.summary.size_table` / :func:`~simstudy.apps.proving.summary.size_verdicts`
    (``SizeRule(alpha)``), raw and size-adjusted power from
    :func:`~simstudy.apps.proving.summary.leaderboard`, and Bouckaert's replicability
    criterion.  Size-adjusted power is given only when every alternative data
    set with a stored null twin gives it (a study that stores decisions at
    alpha only cannot tell the direction of a rejection at a threshold above
    alpha, and the remaining data sets would be a selected subset).  Those
    that control size and have a size-adjusted power are ranked by it with
    paired ties, each pair compared on the data sets both were simulated on
    (:func:`_paired_ranks`: the leaderboard's rule).

    Returns
    -------
    DataFrame
        One row per procedure with evidence: ``procedure``, ``design``,
        ``scheme``, ``test``, ``size``, ``deciding_scenario``, ``deciding_type1``,
        ``deciding_low``, ``deciding_high`` (percent), ``deciding_n`` (data sets),
        ``null_scenarios``, ``adjusted_power`` (with ``adjusted_low`` /
        ``adjusted_high``, percent; NaN where no twin calibrates it or the rows
        give no direction), ``adjusted_units`` (of ``calibrated_units``, the
        alternative data sets with a stored twin), ``power``, ``sim_r2``,
        ``sim_r2_scenario``, ``rank``, ``tied_with``, ``sources``.
    """
    from simstudy.apps.proving.summary import procedure_label, procedures, size_verdicts
    from simstudy.statistics.size_control import CONTROLS, SizeRule

    notes = notes if notes is not None else []
    rule = SizeRule(alpha=alpha)
    wanted = {tuple(map(str, w)) for w in procedures_wanted}
    parts, truths = [], {}
    for ev in evidence:
        if alpha > ev.alpha * (1 + 1e-9) and ev.rows["sign"].isna().any():
            notes.append(
                f"{ev.source}: its rows give directions only up to alpha = {ev.alpha:g}; not used at alpha = {alpha:g}"
            )
            continue
        rows = _candidate_rows(ev, wanted)
        if len(rows):
            parts.append((ev, rows))
            truths.update(ev.truths)
    empty = pd.DataFrame(columns=["procedure", "design", "scheme", "test", "size"])
    if not parts:
        return empty
    counts = {ev.source: int(np.unique(rows["experiment"].to_numpy()).size) for ev, rows in parts}
    n_exp = min(counts.values())
    if len(set(counts.values())) > 1:
        notes.append(
            f"every data set's first {n_exp} repeats are used (the fewest any source stores: "
            + ", ".join(f"{k} {v}" for k, v in counts.items())
            + "), so that each data set weighs the same"
        )
    rows = pd.concat([_first_experiments(r, n_exp) for _, r in parts], ignore_index=True)
    rows = rows.drop_duplicates(["condition", "replication", "experiment", "design", "scheme", "test"])
    pr = procedures(rows, truths=truths)
    label = {procedure_label(d, s, t): (d, s, t) for d, s, t in wanted}
    present = {
        procedure_label(*map(str, k)): set(g)
        for k, g in rows.groupby(["design", "scheme", "test"], sort=False)["condition"]
    }
    sizes, stats = _judge(pr, present, rule, alpha)
    verdicts = size_verdicts(sizes).set_index("procedure") if len(sizes) else pd.DataFrame()
    controls = [p for p in pr.p if p in verdicts.index and verdicts.loc[p, "size"] == CONTROLS]
    ranked = [p for p in controls if stats[p]["adjusted_units"] > 0]
    rank, tied = _paired_ranks(pr, ranked, alpha) if ranked else ({}, {})
    out = []
    for proc in pr.p:
        d, s, t = label[proc]
        v = verdicts.loc[proc] if proc in verdicts.index else None
        out.append(
            {
                "procedure": proc,
                "design": d,
                "scheme": s,
                "test": t,
                "size": v["size"] if v is not None else "no null scenario",
                "deciding_scenario": v["deciding_scenario"] if v is not None else "",
                "deciding_type1": v["deciding_type1"] if v is not None else np.nan,
                "deciding_low": v["deciding_low"] if v is not None else np.nan,
                "deciding_high": v["deciding_high"] if v is not None else np.nan,
                "deciding_n": int(v["deciding_n"]) if v is not None else 0,
                "null_scenarios": int(v["null_scenarios"]) if v is not None else 0,
                **{
                    k: stats[proc][k]
                    for k in (
                        "adjusted_power",
                        "adjusted_low",
                        "adjusted_high",
                        "adjusted_units",
                        "calibrated_units",
                        "power",
                        "sim_r2",
                        "sim_r2_scenario",
                    )
                },
                "rank": rank.get(proc, np.nan),
                "tied_with": tied.get(proc, np.nan),
                "sources": ", ".join(stats[proc]["sources"]),
            }
        )
    return pd.DataFrame(out)


def _size_text(e) -> str:
    return (
        f"{e['deciding_type1']:.1f}% [{e['deciding_low']:.1f}, {e['deciding_high']:.1f}] on "
        f"{e['deciding_scenario']}, {int(e['deciding_n'])} data sets"
    )


def _listing(rows: pd.DataFrame) -> str:
    items = [f"{r['procedure']} ({_size_text(r)})" for _, r in rows.head(_SHOW).iterrows()]
    more = len(rows) - len(items)
    return "; ".join(items) + (f"; and {more} more" if more > 0 else "")


def _more_data(rows: pd.DataFrame, evidence) -> str:
    """How to get more data sets on the deciding null scenarios of ``rows``."""
    by_source = {ev.source: ev for ev in evidence}
    steps = []
    for source in dict.fromkeys(str(s).split(": ", 1)[0] for s in rows["deciding_scenario"]):
        ev = by_source.get(source)
        profile = source.rsplit("/", 1)[-1].split("-", 1)[0]
        nxt = _LARGER.get(profile)
        if ev is not None and ev.command and nxt:
            steps.append(f"`{ev.command.format(profile=nxt)}`")
        elif profile == "paper":
            steps.append(f"more null data sets than {source} stores (its largest profile)")
        else:
            steps.append(f"a larger run of {source}")
    return ", ".join(steps)


def _coverage(designs, table: pd.DataFrame, covered: set) -> str:
    """The designs (and procedures) the stored evidence does not cover, with the command that stores it."""
    import re

    missing = [d.key for d in designs if d.key not in covered]
    parts = []
    if missing:
        too_many = [k for k in missing if (m := re.fullmatch(r"cv\d+x(\d+)", k)) and int(m.group(1)) > 20]
        runnable = [k for k in missing if k not in too_many]
        text = (
            f"Not covered by the stored evidence: {', '.join(missing)} (no stored run has null scenarios with "
            f"{'this design' if len(missing) == 1 else 'these designs'})"
        )
        if runnable:
            text += (
                f"; store evidence with `{EVIDENCE_COMMAND.format(designs=' '.join(runnable))}` and run the same "
                "assessment again (it re-summarises without fitting)"
            )
        if too_many:
            text += f"; the proving ground takes 2 to 20 folds, so no study stores evidence for {', '.join(too_many)}"
        parts.append(text + ".")
    lacking = table[(table["size"] == "no evidence") & table["design"].isin(list(covered))]
    if len(lacking):
        names = lacking["procedure"].tolist()
        shown = ", ".join(names[:_SHOW]) + (f" and {len(names) - _SHOW} more" if len(names) > _SHOW else "")
        keys = " ".join(dict.fromkeys(lacking["design"]))
        parts.append(
            f"No stored evidence for {shown}; the proving ground stores every registered test: "
            f"`{EVIDENCE_COMMAND.format(designs=keys)}`."
        )
    return " ".join(parts)


def recommend(
    table: pd.DataFrame, designs, evidence, *, alpha: float = 0.05, notes: list | None = None, shipped=None
) -> tuple[pd.DataFrame, str]:
    """Add the stored evidence to the assessment table and choose the test, on the proving ground's rules.

    Every design x scheme x test row is a candidate procedure
    (``test [design, scheme]``).  All evidence (:func:`simstudy.apps.evidence.collect_evidence`)
    is combined and each candidate judged (:func:`evidence_table`): its size
    verdict at ``alpha`` (``controls size``, ``liberal`` or ``unresolved``,
    from intervals simultaneous over its null scenarios; see
    :mod:`simstudy.statistics.size_control`) and its size-adjusted power.  Only a
    candidate that controls size can be recommended: the one with the best
    rank by size-adjusted power (procedures whose paired interval covers 0 tie),
    ties broken by simulated replicability (Bouckaert's criterion: the lowest,
    over the scenarios, of the mean R2 of a data set's repeats), then by R2 on
    the user's data.  R2 on one data set alone cannot choose, since a test that
    never rejects is perfectly replicable.  A liberal or unresolved candidate
    is never recommended: the text names them, what would resolve them, and
    the designs no evidence covers.

    Parameters
    ----------
    table : DataFrame
        :func:`assessment_tables`' ``assessment`` table.
    designs : sequence of DesignChoice
    evidence : list of simstudy.apps.evidence.Evidence
    alpha : float
        The assessment's level (the size rule's alpha).
    notes : list of str, optional
        Appended to: evidence left out, repeats cut.
    shipped : simstudy.apps.shipped_evidence.ShippedEvidence, optional
        The shipped evidence of the comparison's stability class, used in
        place of ``evidence`` (its verdicts are at its own alpha only).

    Returns
    -------
    table : DataFrame
        ``table`` with the columns ``procedure``, ``size``, ``deciding null
        scenario``, ``Type I error %`` with ``Type I low %`` / ``Type I high %``,
        ``null data sets``, ``null scenarios``, ``size-adjusted power %`` with
        its interval, ``power %``, ``rank``, ``tied with``, ``simulated R2
        (lowest over sources)`` and ``evidence``.
    text : str
        The recommendation, or why there is none.
    """
    from simstudy.apps.proving.summary import procedure_label
    from simstudy.statistics.size_control import CONTROLS, LIBERAL, UNRESOLVED, SizeRule

    rule = SizeRule(alpha=alpha)
    evidence = list(evidence or [])
    procs = [procedure_label(r["design"], r["scheme"], r["test"]) for _, r in table.iterrows()]
    wanted = set(zip(table["design"], table["scheme"], table["test"]))
    if shipped is not None:
        same_alpha = abs(alpha - shipped.alpha) <= 1e-12
        if not same_alpha and notes is not None:
            notes.append(
                f"the shipped evidence is judged at alpha = {shipped.alpha:g} only; not used at alpha = {alpha:g}"
            )
        ev_table = shipped.table[shipped.table["procedure"].isin(procs)] if same_alpha else shipped.table.iloc[:0]
        usable = [shipped] if same_alpha else []
        covered = set(shipped.designs) if same_alpha else set()
    else:
        ev_table = evidence_table(evidence, wanted, alpha=alpha, notes=notes)
        usable = [ev for ev in evidence if not (alpha > ev.alpha * (1 + 1e-9) and ev.rows["sign"].isna().any())]
        covered = set().union(*(_designs_with_nulls(ev) for ev in usable)) if usable else set()
    e = ev_table.set_index("procedure") if len(ev_table) else pd.DataFrame()

    def col(name, default=np.nan):
        return [e.loc[p, name] if p in e.index else default for p in procs]

    table = table.assign(
        **{
            "procedure": procs,
            "size": col("size", "no evidence"),
            "deciding null scenario": col("deciding_scenario", ""),
            "Type I error %": col("deciding_type1"),
            "Type I low %": col("deciding_low"),
            "Type I high %": col("deciding_high"),
            "null data sets": col("deciding_n", 0),
            "null scenarios": col("null_scenarios", 0),
            "size-adjusted power %": col("adjusted_power"),
            "size-adjusted power low %": col("adjusted_low"),
            "size-adjusted power high %": col("adjusted_high"),
            "power %": col("power"),
            "rank": col("rank"),
            "tied with": col("tied_with"),
            "simulated R2 (lowest over sources)": col("sim_r2"),
            "evidence": col("sources", ""),
        }
    )
    coverage = _coverage(designs, table, covered)
    judged = table[table["size"].isin([CONTROLS, LIBERAL, UNRESOLVED])]
    view = judged.rename(
        columns={
            "deciding null scenario": "deciding_scenario",
            "Type I error %": "deciding_type1",
            "Type I low %": "deciding_low",
            "Type I high %": "deciding_high",
            "null data sets": "deciding_n",
        }
    )
    liberal = view[view["size"] == LIBERAL].sort_values("deciding_low", ascending=False, kind="stable")
    unresolved = view[view["size"] == UNRESOLVED].sort_values("deciding_high", kind="stable")
    ok = table[table["size"] == CONTROLS]
    never = []
    if len(liberal):
        never.append(f"liberal (Type I error shown above alpha on a null scenario): {_listing(liberal)}")
    if len(unresolved):
        more = (
            "a local proving-ground run with more null data sets (`simstudy proving-ground --profile paper`)"
            if shipped is not None
            else _more_data(unresolved, usable)
        )
        never.append(
            f"unresolved (too few null data sets to tell): {_listing(unresolved)}; more data sets decide them: {more}"
        )
    never_text = ("Never recommended: " + " — ".join(never) + ".") if never else ""
    if judged.empty:
        if not evidence and shipped is None:
            from simstudy.apps.evidence import studies_with_evidence

            names = studies_with_evidence()
            why = (
                "No recommendation: no stored simulation evidence was found, and replicability on your data "
                "alone favours tests that reject too often (a test that never rejects is perfectly "
                "replicable)." + (f" Studies that provide evidence once stored: {', '.join(names)}." if names else "")
            )
        elif not usable:
            why = (
                f"No recommendation: the stored evidence gives the direction of a rejection only up to alpha = "
                f"{max(ev.alpha for ev in (evidence or [shipped])):g}, so it cannot judge tests at alpha = {alpha:g}."
            )
        else:
            why = (
                "No recommendation: the stored evidence has no null scenario for any of these procedures, so no "
                "size verdict can be given."
            )
        return table, " ".join(x for x in (why, coverage) if x)
    if ok.empty:
        text = (
            f"No recommendation: none of the {len(judged)} procedures with stored null evidence controls size at "
            f"alpha = {alpha:g} (tolerance {100 * rule.bound:g}%: the upper end of the Type I error's interval, "
            "simultaneous over the procedure's null scenarios, must lie below it on every one). " + never_text
        )
        return table, " ".join(x for x in (text, coverage) if x)
    with_power = ok[np.isfinite(ok["rank"].astype(float))]
    pool = with_power[with_power["rank"] == with_power["rank"].min()] if len(with_power) else ok
    order = pool.assign(
        _sim=pool["simulated R2 (lowest over sources)"].astype(float).fillna(-1.0),
        _r2=pool["R2"].astype(float).fillna(-1.0),
    )
    order = order.sort_values(["_sim", "_r2"], ascending=[False, False], kind="stable")
    best = order.iloc[0]
    head = (
        f"Recommended: {_name(best)}. Of the {len(judged)} procedures with stored null evidence, {len(ok)} "
        f"control size at alpha = {alpha:g} (the upper end of the Type I error's interval, simultaneous over "
        f"the procedure's null scenarios, at most {100 * rule.bound:g}% on every one)"
    )
    if len(with_power):
        power = (
            f"{best['size-adjusted power %']:.1f}% [{best['size-adjusted power low %']:.1f}, "
            f"{best['size-adjusted power high %']:.1f}]"
        )
        head += (
            f"; among them it ranks first by size-adjusted power ({power}: rejections in the true direction on "
            "the alternative scenarios at the threshold that gives it a Type I error of alpha on their null "
            "twins)"
        )
        others = [p for p in pool["procedure"] if p != best["procedure"]]
        if others:
            head += (
                f", tied with {len(others)} other(s) not shown to differ from it (paired over the data sets "
                "both were simulated on; runs of different studies share none): "
                f"{', '.join(others[:_SHOW])}{' ...' if len(others) > _SHOW else ''}; the tie is broken by "
                f"simulated replicability (Bouckaert's criterion, the lowest mean R2 over the scenarios: "
                f"{best['simulated R2 (lowest over sources)']:.2f}), then by R2 on your data"
            )
        lacking = len(ok) - len(with_power)
        if lacking:
            head += (
                f"; {lacking} other(s) that control size have no size-adjusted power in the evidence and are not ranked"
            )
    else:
        head += (
            "; none of them has a size-adjusted power in the evidence (no null twin calibrates it, or the "
            "stored rows give no direction), so the choice among them rests on simulated replicability "
            f"(Bouckaert's criterion, the lowest mean R2 over the scenarios: "
            f"{best['simulated R2 (lowest over sources)']:.2f}), then on R2 on your data"
        )
    head += (
        f". Its Type I error: {best['Type I error %']:.1f}% [{best['Type I low %']:.1f}, "
        f"{best['Type I high %']:.1f}] on its deciding null scenario {best['deciding null scenario']} "
        f"({int(best['null data sets'])} data sets; {int(best['null scenarios'])} null scenario(s) judged; "
        f"evidence: {best['evidence']}). On your data: R2 {best['R2']:.2f} over {best['repeats']} repeats, A "
        f"better in {best['A better']} and B better in {best['B better']}."
    )
    return table, " ".join(x for x in (head, never_text, coverage) if x)


def _name(row) -> str:
    scheme = f", scheme {row['scheme']}" if row["scheme"] else ""
    return f"`{row['test']}` with {row['design']}{scheme}"


# The procedures the papers name, as (design kind, scheme, test) -> how a reader calls them.
_NAMED = (
    ("cv", "kfold_cv", "paired_t", "the 10-fold cv t-test (first run only)"),
    ("cv", "average_over_sorted_runs", "paired_t", "the sorted-runs t-test"),
    ("cv", "", "cv_t", "the {r}x{k} cv t-test"),
    ("cv", "", "corrected_cv_t", "the corrected {r}x{k} cv t-test"),
    ("5x2cv", "", "5x2cv_t", "the 5x2cv t-test"),
    ("5x2cv", "", "5x2cv_f", "the 5x2cv F-test"),
    ("5x2cv", "", "corrected_cv_t", "the corrected t-test on the 5x2 cv's ten splits"),
    ("resampled", "", "resampled_t", "the resampled t-test ({r} splits)"),
    ("resampled", "", "corrected_resampled_t", "the corrected resampled t-test ({r} splits)"),
)


# tests whose rejection says "the two differ" without a direction (the stored decision's sign is the mean's)
_DIRECTION_FREE = ("5x2cv_f",)


def _verdict_text(r, test: str) -> str:
    """How often a significant verdict was reached, in words that claim no more than the test does."""
    n, a_n, b_n = int(r["repeats"]), int(r["A better"]), int(r["B better"])
    if test in _DIRECTION_FREE:
        if not a_n + b_n:
            return f"No significant difference in any of {n} repeats"
        return f"A significant difference (the test has no direction) in {a_n + b_n} of {n} repeats"
    if a_n and b_n:
        return f"A beats B in {a_n} and B beats A in {b_n} of {n} repeats"
    if b_n:
        return f"B beats A in {b_n} of {n} repeats"
    if a_n:
        return f"A beats B in {a_n} of {n} repeats"
    return f"Neither is significantly better in any of {n} repeats"


def verdicts(table: pd.DataFrame, designs) -> list[str]:
    """Plain-language verdicts across repeats for the procedures the papers name.

    Returns
    -------
    list of str
        One line per named procedure present, e.g. "A beats B in 4 of 10
        repeats with the corrected 10x10 cv t-test".
    """
    from simstudy.apps.conclusion import test_kind

    by_key = {d.key: d for d in designs}
    lines = []
    for _, r in table.iterrows():
        d = by_key.get(r["design"])
        if d is None:
            continue
        for kind, scheme, test, name in _NAMED:
            if d.design == kind and r["scheme"] == scheme and r["test"] == test:
                if d.design == "cv" and scheme == "kfold_cv" and d.n_folds != 10:
                    name = f"the {d.n_folds}-fold cv t-test (first run only)"
                if test_kind(test) == "uncorrected":
                    name += " (uncorrected)"
                lines.append(f"{_verdict_text(r, test)} with {name.format(r=d.n_runs, k=d.n_folds)}")
    return lines


# ----------------------------------------------------------------------------------------- run


def assess(
    X,
    y=None,
    a=None,
    b=None,
    *,
    learners=None,
    designs=None,
    tests=None,
    n_repeats: int | None = None,
    full: bool = False,
    alpha: float = 0.05,
    out=None,
    jobs: int = 1,
    seed: int | None = None,
    progress: bool = False,
    fresh: bool = False,
    class_column=None,
    a_params=None,
    b_params=None,
    evidence=DEFAULT_ROOT,
    fit_timeout: float | None = None,
    metric: str = "accuracy",
    out_root=None,
    rope: float = 0.01,
    in_process: bool = False,
    nominal=(),
):
    """Assess "A beats B" on one data set: every design repeated on new partitions, every test on the same fits.

    Parameters
    ----------
    X : array_like of shape (n, p), DataFrame, or str or os.PathLike
        The attributes (numbers; NaN for missing), a DataFrame with the class
        in ``class_column`` (else its last column), or a data file / shipped
        data set name (see :func:`load_data`); ``y`` is None but for arrays.
    y : array_like of shape (n,), optional
        Class labels.
    a, b : str, estimator class or estimator instance
        The two learners: a registered name (``"NB"``, ``"C4.5"``,
        ``"e1071.svm"``, ...), a ``"module:Class"`` path, a class, or a
        scikit-learn estimator (cloned per split; an estimator with
        ``random_state`` gets one drawn from the repeat's random stream).
        ``("logreg", learner)`` names it in the tables and figures.
    learners : mapping or sequence of two learners, optional
        Instead of ``a`` and ``b``: ``{"logreg": ..., "forest": ...}`` (A
        first), named in the tables and figures, or two (name, learner) pairs.
    designs : sequence of str, optional
        Design names (see :func:`parse_designs`); default :data:`DEFAULT_DESIGNS`
        (the 5x2 cv alone: fast, and its corrected test controls size for
        learners of every stability class), or :data:`FULL_DESIGNS` with ``full``.
    tests : sequence of str, optional
        Registered test names; default the papers' tests for each design.
    n_repeats : int, optional
        Repetitions of every design on new random partitions (>= 1; R2 and
        the replication rates need two or more); default :data:`DEFAULT_REPEATS`,
        or :data:`FULL_REPEATS` with ``full``.
    full : bool
        The full check (``--full``): every design the papers compare, ten
        repeats each (2,400 fits for one pair, against 100 for the default).
    alpha : float
        Significance level.
    out : str or Path, optional
        Run directory; an interrupted assessment resumes there, a finished one
        is re-read.  Default: ``out_root/assess/<data>-<A>-<B>`` when
        ``out_root`` is given, else a temporary directory that lives as long
        as the returned :class:`Assessment` (nothing is written anywhere else).
    out_root : str or Path, optional
        Results root of the default run directory (the command line gives
        ``results``).
    rope : float
        Half-width of the region of practical equivalence of the Bayesian
        correlated t-test, in score units (``--rope``; default 0.01, one point
        of accuracy).  It changes the summary only, not the stored rows.
    jobs : int
        Parallel workers; the numbers do not depend on it.
    seed : int, optional
        Root seed (default the package's fixed seed).
    evidence : str or Path, list of simstudy.apps.evidence.Evidence, or None
        Results root whose stored runs of the studies that provide evidence
        back the recommendation and the Conclusion
        (:func:`simstudy.apps.evidence.collect_evidence`), or the evidence
        itself (None: none).  When the root holds no such run, the evidence
        shipped with the package is used (:mod:`simstudy.apps.shipped_evidence`:
        the published paper-profile proving ground, the class of scenarios whose
        learners are as stable as these, measured), and the pages say so;
        :data:`SHIPPED` uses it whatever the root holds.
    fit_timeout : float, optional
        Seconds the loading and each fit of a contained learner may take,
        ``--fit-timeout``; default None: :data:`DEFAULT_FIT_TIMEOUT` (an
        hour).  A learner given as ``"module:NAME"`` or ``"path/to/file.py:NAME"``
        (a class, an instance, a pipeline or a factory) is always contained
        unless ``in_process``: it is imported, checked and fitted in a worker
        process of its own, kept for every fit of the command, and simstudy's
        process never runs its code.  A class or an estimator given in Python
        is contained when ``fit_timeout`` is given (it is sent to the worker
        by pickling, so its class must be importable there).  When the
        loading or a fit exceeds the limit, or ends the worker (``os._exit``,
        a crash, a signal), the worker and every process it started are
        killed; that fit and every later one of the learner fail (the failure
        rows are stored, for ``replay``; the numbers of the other fits are the
        same as in this process), and the assessment ends with one line
        naming the learner and the limit.  What the learner prints goes to
        standard error, prefixed with its label, at most
        :data:`simstudy._worker.OUTPUT_CAP` bytes per fit (the last ones).
    in_process : bool
        ``--in-process``: load and fit every learner in this process, with no
        limit, as registered learners always are.  Faster (no copying to a
        worker), but a learner that hangs, ends the process or prints without
        end takes simstudy with it; not allowed with ``fit_timeout``.
    nominal : sequence of str
        ``--nominal``: columns of a CSV or Parquet file taken as nominal
        attributes (see :func:`load_data`).
    metric : str
        The per-split score every test and summary compares: ``"accuracy"``
        (the default, as in the papers) or a scikit-learn scorer name
        (``"balanced_accuracy"``, ``"roc_auc"``, ``"f1_macro"``,
        ``"neg_log_loss"``, ...; greater is better), ``--metric``.

    Returns
    -------
    Assessment
        The tables, verdict lines and recommendation, with the stored run.

    Raises
    ------
    ValueError
        One line, before anything is written: data that cannot be read or
        holds infinite values, a learner that is not a classifier or cannot
        learn from the data, a design some class is too small for (naming the
        ``--designs`` that fit).  After the run: a learner that failed in any
        repeat (naming it and the first failure; the failure rows stay in
        ``out``).

    Notes
    -----
    A finished assessment of the same data, learners, settings and seed in
    ``out`` is read back without taking the run directory's lock, so it can be
    re-summarised from a read-only folder.
    """
    from simstudy._validation import check_alpha
    from simstudy.engine import DEFAULT_SEED, run_study

    alpha = check_alpha(alpha, "--alpha")
    rope = check_rope(rope)
    designs = designs if designs is not None else (FULL_DESIGNS if full else DEFAULT_DESIGNS)
    n_repeats = n_repeats if n_repeats is not None else (FULL_REPEATS if full else DEFAULT_REPEATS)
    data = as_dataset(X, y, class_column=class_column, nominal=nominal)
    if learners is not None:
        if a is not None or b is not None:
            raise ValueError("learners: give the two learners either as learners= or as a and b, not both")
        pair = named_learners(learners, "learners")
        if len(pair) != 2:
            raise ValueError(f"learners: one comparison takes exactly two learners, got {len(pair)}")
        a, b = pair
    elif a is not None and b is not None:
        named_learners([a, b], "--a/--b")
    if a is None or b is None:
        raise ValueError("--a/--b: both learners are needed")
    from simstudy.pipeline.scores import check_metric

    try:
        metric = check_metric(metric)
    except ValueError as exc:
        raise ValueError(f"--{exc}") from None
    check_metric_for(metric, data)
    fit_timeout = check_fit_timeout(fit_timeout)
    if in_process and fit_timeout is not None:
        raise ValueError("--in-process: a learner fitted in simstudy's process cannot be stopped; drop --fit-timeout")
    ca = parse_learner(
        a, a_params, option="--a", contained=wants_worker(a, in_process=in_process, fit_timeout=fit_timeout)
    )
    cb = parse_learner(
        b, b_params, option="--b", contained=wants_worker(b, in_process=in_process, fit_timeout=fit_timeout)
    )
    chosen = parse_designs(designs, data.y, alpha=alpha, classes=data.classes)
    _check_designs(chosen, _check_tests(tests, chosen), data, metric)
    digest = data.digest
    try:
        # to find a stored assessment, read only: a contained learner is loaded (and checked) when it is fitted
        study = assessment_study(
            data,
            ca,
            cb,
            chosen,
            n_repeats=n_repeats,
            tests=tests,
            fit_timeout=fit_timeout,
            metric=metric,
            fitting=False,
        )
        scratch = None
        if out is None and out_root is not None:
            names = [c.name or Path(c.spec).name for c in (ca, cb)]
            out = Path(out_root) / "assess" / _slug(f"{Path(data.name).stem}-{names[0]}-{names[1]}")
        elif out is None:
            import tempfile

            scratch = tempfile.TemporaryDirectory(prefix="simstudy-assess-")
            out = Path(scratch.name) / "run"
        seed = DEFAULT_SEED if seed is None else seed
        run = None if fresh else _finished_run(study, out, seed)
        if run is None and not fresh:  # fitted for another metric: scored again from its stored outputs
            study, run = _other_metric(data, ca, cb, chosen, n_repeats, tests, out, seed, metric) or (study, None)
        if run is None:  # a finished assessment was checked when it was made; a new one is checked now
            seconds = _check_learnable(data, ca, "--a", fit_timeout=fit_timeout, digest=digest)
            seconds += _check_learnable(data, cb, "--b", fit_timeout=fit_timeout, digest=digest)
            study = assessment_study(
                data, ca, cb, chosen, n_repeats=n_repeats, tests=tests, fit_timeout=fit_timeout, metric=metric
            )
            _check_assess_plan(chosen, n_repeats, seconds, data, out)
            with _fit_progress(study, chosen, n_repeats, out, seed, show=progress and jobs == 1, fresh=fresh) as bar:
                run = run_study(
                    study, ASSESS_PROFILE, out=out, jobs=jobs, seed=seed, progress=progress and not bar, fresh=fresh
                )
    finally:
        _close_fit_workers()
    result = _assessment(study, run, chosen, evidence, alpha, data, ca, cb, rope=rope)
    result.scratch = scratch
    return result


def _finished_run(study, out, seed):
    """The stored run in ``out`` when it is this very assessment and complete, read without taking the lock.

    Re-reading a finished assessment writes nothing, so it also works in a
    read-only folder.  None when there is no such run (nothing stored, another
    configuration or seed, or chunks missing or damaged): then
    :func:`~simstudy.engine.run_study` takes over, with its lock, to resume,
    recompute or refuse.
    """
    from simstudy.engine import load_run
    from simstudy.engine.runner import plan_run
    from simstudy.engine.store import RunStore, StoreError

    try:
        manifest = RunStore(Path(out)).read_manifest()
    except (StoreError, OSError):
        return None
    if (
        manifest is None
        or manifest.get("study") != study.name
        or manifest.get("profile") != ASSESS_PROFILE
        or manifest.get("root_seed") != seed
        or manifest.get("status") != "complete"
    ):
        return None
    _, _, _, digest = plan_run(study, ASSESS_PROFILE, seed)
    if manifest.get("config_hash") != digest:
        return None
    try:
        run = load_run(study, profile=ASSESS_PROFILE, out=out)
        return run if run.complete else None
    except (ValueError, OSError):  # the plan does not match, or a chunk cannot be read: let run_study decide
        return None


class _fit_progress:
    """A progress bar per fit for an assessment run in this process (``--jobs 1``): its estimate of the time left
    is steady however the designs' costs differ, where a bar per repeat jumps (a 10x10 cv repeat is ten times a
    5x2 cv's).  Fits of repeats already stored count as done.  Entered as False when not shown."""

    def __init__(self, study, designs, n_repeats: int, out, seed: int, *, show: bool, fresh: bool = False):
        self.show, self.fresh, self.args = show, fresh, (study, designs, n_repeats, out, seed)
        self.bar = self.hook = None

    def __enter__(self):
        if not self.show:
            return False
        import sys

        from tqdm.auto import tqdm

        from simstudy.pipeline.outputs import on_fit

        study, designs, n_repeats, out, seed = self.args
        per = {d.key: 2 * d.n_runs * max(d.n_folds, 1) for d in designs}
        done = 0
        try:
            from simstudy.engine.runner import plan_run
            from simstudy.engine.store import RunStore

            manifest = None if self.fresh else RunStore(Path(out)).read_manifest()
            if manifest is not None and manifest.get("config_hash") == plan_run(study, ASSESS_PROFILE, seed)[3]:
                done = sum(
                    per.get(str(v.get("condition", "")), 0) * (int(v["stop"]) - int(v["start"]))
                    for v in _stored_chunks(manifest)
                )
        except Exception:  # no readable run: nothing stored yet
            done = 0
        self.bar = tqdm(
            total=sum(per.values()) * n_repeats,
            initial=min(done, sum(per.values()) * n_repeats),
            unit="fit",
            desc=f"assess {', '.join(per)}",
            dynamic_ncols=True,
            file=sys.stderr,
            mininterval=0.5 if sys.stderr.isatty() else 15.0,
        )
        self.hook = on_fit(self.bar.update)
        self.hook.__enter__()
        return True

    def __exit__(self, *exc):
        if self.hook is not None:
            self.hook.__exit__(*exc)
            self.bar.close()
        return False


def _stored_chunks(manifest: dict) -> list[dict]:
    """The chunks a manifest records as stored: ``condition``, ``start``, ``stop`` (from its plan)."""
    from simstudy.engine.store import manifest_chunk_key

    stored = manifest.get("chunks") or {}
    return [c for c in manifest.get("plan", []) if manifest_chunk_key(c["condition"], c["start"], c["stop"]) in stored]


def _other_metric(data, a, b, designs, n_repeats, tests, out, seed, metric):
    """``(study, run)`` of the finished assessment in ``out`` of the same data, learners, designs, tests and seed
    fitted for another metric, seen through ``metric`` (:class:`RescoredRun`); None when there is none."""
    from simstudy.engine.store import RunStore, StoreError

    try:
        manifest = RunStore(Path(out)).read_manifest()
    except (StoreError, OSError):
        return None
    if manifest is None:
        return None
    stored = str(manifest.get("config", {}).get("settings", {}).get("metric", "accuracy"))
    if stored == metric:
        return None
    # nothing is fitted: a contained learner is not even loaded
    study = assessment_study(data, a, b, designs, n_repeats=n_repeats, tests=tests, metric=stored, fitting=False)
    run = _finished_run(study, out, seed)
    if run is None or "predictions" not in run.tables():
        return None
    try:
        comparisons = _comparisons(data, a, b, designs, tests, metric, fitting=False)
        return study, RescoredRun(run, comparisons, data.y.size, metric)
    except ValueError as exc:
        raise ValueError(
            f"--metric: the assessment in {out} was fitted for {stored} and cannot be scored by {metric} from its "
            f"stored outputs ({_first_line(exc)}); --fresh fits it again for {metric}"
        ) from None


class RescoredRun:
    """A stored assessment seen through another metric: its ``scores`` and ``outcomes`` computed again from its
    stored ``predictions`` (:func:`simstudy.pipeline.comparison.rescore`), everything else as stored.

    The manifest's settings name the metric the tables now hold; ``fitted_metric`` the one it was fitted for.
    """

    def __init__(self, run, comparisons: dict, n_cases: int, metric: str):
        import copy

        from simstudy.pipeline.comparison import rescore

        self._run = run
        self.fitted_metric = stored_metric(run)
        self.manifest = copy.deepcopy(run.manifest)
        self.manifest.setdefault("config", {}).setdefault("settings", {})["metric"] = metric
        pred = run.table("predictions")
        first = run.table("scores")
        ident = list(first.columns[: list(first.columns).index("seed") + 1])
        parts = {"scores": [], "outcomes": []}
        for (cond, _), rows in pred.groupby(["condition", "replication"], sort=False, observed=True):
            comp = comparisons[str(cond)]
            fits = rescore(dataclasses.replace(comp, metric=metric), rows, n_cases)
            head = rows.iloc[0][ident]
            for name, table in (("scores", fits.scores()), ("outcomes", fits.outcomes())):
                parts[name].append(table.assign(**head.to_dict())[ident + list(table.columns)])
        self._tables = {k: pd.concat(v, ignore_index=True) for k, v in parts.items()}

    def table(self, name: str):
        return self._tables[name] if name in self._tables else self._run.table(name)

    def __getattr__(self, name):
        return getattr(self._run, name)


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:100]


@dataclass
class Assessment:
    """The result of :func:`assess`: tables from the stored rows, verdicts and a recommendation."""

    study: object
    run: object
    table: pd.DataFrame
    effect: pd.DataFrame
    verdicts: list
    recommendation: str
    evidence_notes: list
    designs: tuple
    data: Dataset
    a: LearnerChoice
    b: LearnerChoice
    alpha: float
    warnings: pd.DataFrame = field(default_factory=pd.DataFrame)
    rope: float = 0.01
    #: the decision rules applied (simstudy.apps.conclusion): the section every page opens with
    conclusion: object = None
    #: the learners' measured instability (simstudy.apps.stability), which chose the nearest evidence
    stability: dict | None = None
    #: the shipped evidence used when no run is stored under --results (simstudy.apps.shipped_evidence)
    shipped: object = None
    # the temporary directory of an assessment made without ``out``: removed with this object
    scratch: object = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        from simstudy.apps.assess_report import assessment_text

        return assessment_text(self)

    @property
    def metric(self) -> str:
        """The per-split score the tests compared (``accuracy`` unless ``metric=`` named another)."""
        return stored_metric(self.run)

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """The summaries as DataFrames: ``assessment`` (per design, scheme and test), ``effect``, ``warnings``."""
        return {"assessment": self.table, "effect": self.effect, "warnings": self.warnings}

    def _design(self, design: str | None) -> DesignChoice:
        keys = [d.key for d in self.designs]
        if design is None:
            return self.designs[0]
        if design not in keys:
            raise ValueError(f"design: {design!r} is not one of this assessment's designs ({', '.join(keys)})")
        return self.designs[keys.index(design)]

    def scores(self, design: str | None = None) -> pd.DataFrame:
        """Per split: the two learners' scores, in columns named by the learners.

        Columns ``design``, ``repeat`` (from 0), ``run``, ``fold``,
        ``n_train``, ``n_test``, then A's and B's score under their labels
        (``A: <label>`` and ``B: <label>`` when the two labels are the same).
        One design, or every design when ``design`` is None.
        """
        rows = self.run.table("scores")
        col_a, col_b = _score_columns(rows)
        name_a, name_b = _score_names(self.a.shown, self.b.shown)
        chosen = [self._design(design)] if design is not None else list(self.designs)
        parts = []
        for d in chosen:
            r = rows[rows["condition"] == d.key].sort_values(["replication", "run", "fold"])
            parts.append(
                pd.DataFrame(
                    {
                        "design": d.key,
                        "repeat": r["replication"].to_numpy(),
                        "run": r["run"].to_numpy(),
                        "fold": r["fold"].to_numpy(),
                        "n_train": d.n_train,
                        "n_test": d.n_test,
                        name_a: r[col_a].to_numpy(float),
                        name_b: r[col_b].to_numpy(float),
                    }
                )
            )
        return pd.concat(parts, ignore_index=True)

    def to_baycomp(self, design: str | None = None, repeat: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
        """``x, y, runs`` of one repeat of one design, for ``baycomp.two_on_single(x, y, runs=runs)``.

        baycomp's correlated t-test takes the correlation of two splits'
        differences as ``runs / len(x)`` and wants ``runs`` to be a whole
        number that divides ``len(x)``.  For a cv design it is the number of
        runs (``1/k``, the test share the corrected tests assume); for
        resampled splits it is the divisor of the number of splits whose
        ``runs / len(x)`` is nearest to the test share ``n_test / n`` (10
        resampled 90/10 splits: 1, exactly 0.1; see :func:`baycomp_runs`).
        """
        d = self._design(design)
        s = self.scores(d.key)
        s = s[s["repeat"] == repeat]
        if s.empty:
            raise ValueError(
                f"repeat: {repeat!r} is not a stored repeat of {d.key} (0 to {self.table['repeats'].max() - 1})"
            )
        x, y = s.iloc[:, -2].to_numpy(float), s.iloc[:, -1].to_numpy(float)
        return x, y, baycomp_runs(d)

    def plot(self):
        """The figure of the pages: every test's p-value in every repeat, one panel per design (a matplotlib Figure)."""
        from simstudy.apps.assess_report import _pvalue_figure

        return _pvalue_figure(self)

    def save(self, directory) -> dict:
        """Write the pages (Markdown, HTML, PNG, CSV) into ``directory``; returns their paths by kind."""
        from simstudy.apps.assess_report import write_assessment

        return write_assessment(self, directory)


def baycomp_runs(design: DesignChoice) -> int:
    """The whole number ``runs`` that baycomp's correlated t-test needs for ``design``'s splits.

    baycomp sets the correlation of two splits' differences to ``runs / len(x)``
    and requires ``runs`` to be a positive integer dividing ``len(x)``.  For a
    cv design (5x2cv included) that is its number of runs: the correlation is
    ``1/k``, the mean test share.  For ``R`` resampled splits it is the divisor
    of ``R`` whose ``runs / R`` lies nearest to the test share
    ``n_test / (n_train + n_test)`` (the smaller on a tie): exactly the share
    when ``R`` times it is whole (10 splits of 90/10: 1; 30 of 2/3 and 1/3:
    10), otherwise the nearest correlation baycomp can express.
    """
    if design.design != "resampled":
        return int(design.n_runs)
    n = int(design.n_runs) * max(int(design.n_folds), 1)
    share = design.n_test / (design.n_train + design.n_test)
    divisors = [r for r in range(1, n + 1) if n % r == 0]
    return min(divisors, key=lambda r: (abs(r / n - share), r))


def _assessment(study, run, designs, evidence, alpha, data, a, b, rope: float = 0.01) -> Assessment:
    _check_failures(run, a, b)
    tables = assessment_tables(run)
    tables["effect"] = effect_table(run, designs, tables["effect"], rope=rope)
    from simstudy.apps.conclusion import conclude
    from simstudy.apps.shipped_evidence import shipped_evidence
    from simstudy.apps.stability import stored_instability

    stability = stored_instability(run.table("predictions")) if "predictions" in run.tables() else None
    shipped = None
    if evidence is None:
        ev, notes = [], ["no evidence root given"]
    elif isinstance(evidence, (list, tuple)):
        ev, notes = list(evidence), []
    elif isinstance(evidence, str) and evidence == SHIPPED:
        ev, notes = [], []
    else:
        from simstudy.apps.evidence import collect_evidence

        ev, notes = collect_evidence(evidence)
    if evidence is not None and not ev and not isinstance(evidence, (list, tuple)):
        shipped = shipped_evidence(stability)  # no stored run: the published proving ground ships with the package
        notes.append(shipped.provenance)
    table, text = recommend(tables["assessment"], designs, ev, alpha=alpha, notes=notes, shipped=shipped)
    if shipped is not None:
        where = f"the shipped proving ground, class '{shipped.name}' (see Evidence below)"
    elif ev:
        where = "the stored simulation runs under --results (see Evidence below)"
    else:
        where = "none (no stored or shipped simulation runs were used)"
    conclusion = conclude(table, tables["effect"], designs, rope=rope, a=a.shown, b=b.shown, evidence=where)
    return Assessment(
        study,
        run,
        table,
        tables["effect"],
        verdicts(table, designs),
        text,
        notes,
        tuple(designs),
        data,
        a,
        b,
        alpha,
        warning_summary(run),
        rope,
        conclusion=conclusion,
        stability=stability,
        shipped=shipped,
    )


def _check_failures(run, a: LearnerChoice, b: LearnerChoice):
    """Refuse, on one line, to summarise an assessment in which any repeat failed.

    Verdicts over the repeats that happened not to fail would answer another
    question than the one asked, so nothing is summarised.  The failure rows
    (with their tracebacks) stay in the run directory; the message names the
    learner and the first failure.
    """
    n_fail = run.n_failures()
    if not n_fail:
        return
    failures = run.failures  # in the run's order: designs as given, then repeats
    planned = sum(c["stop"] - c["start"] for c in run.manifest["plan"])
    first = failures.iloc[0]
    error = str(first["error"])
    where = f"design {first['condition']} repeat {first['replication']}"
    kept = (
        f"no verdict is drawn from the other repeats; the failure rows, with their tracebacks, are kept in "
        f"{run.path} (chunks/*/*/failures.parquet); once fixed, rerun with --fresh"
    )
    for side, choice in (("A", a), ("B", b)):
        prefix = f"{LearnerFailed.__name__}: {_failed_text(side, choice)}"
        if error.startswith(prefix):
            of_learner = int(failures["error"].astype(str).str.startswith(prefix).sum())
            raise ValueError(
                f"--{side.lower()}: {choice.label} failed in {of_learner} of {planned} repeats; "
                f"first: {where}: {_first_line(error[len(prefix) :])}; {kept}"
            )
    raise ValueError(f"assess: {n_fail} of {planned} repeats failed; first: {where}: {_first_line(error)}; {kept}")


def _score_names(a: str, b: str) -> tuple[str, str]:
    """The columns of A's and B's scores: their labels, told apart as ``A: ...`` and ``B: ...`` when equal."""
    return (a, b) if a != b else (f"A: {a}", f"B: {b}")


def assessment_scores(folder) -> pd.DataFrame:
    """The per-split scores of a stored assessment, from its folder alone (no data, no learners needed).

    Columns: ``design``, ``repeat``, ``run``, ``fold``, then the two learners'
    scores under their labels as the assessment recorded them (``A: <label>``,
    ``B: <label>`` when they are the same), and ``metric``.  Only chunks that
    pass their checksums are read.

    Raises
    ------
    ValueError
        ``folder`` holds no stored assessment.
    """
    from simstudy.engine import load_run

    run = load_run("assess", out=folder, verify_plan=False)
    settings = run.manifest.get("config", {}).get("settings", {})
    name_a, name_b = _score_names(str(settings.get("a", "A")), str(settings.get("b", "B")))
    rows = run.table("scores")
    col_a, col_b = _score_columns(rows)
    return pd.DataFrame(
        {
            "design": rows["condition"].to_numpy(),
            "repeat": rows["replication"].to_numpy(),
            "run": rows["run"].to_numpy(),
            "fold": rows["fold"].to_numpy(),
            name_a: rows[col_a].to_numpy(float),
            name_b: rows[col_b].to_numpy(float),
            "metric": stored_metric(run),
        }
    )


def load_assessment(
    out,
    data,
    a,
    b,
    *,
    designs=DEFAULT_DESIGNS,
    tests=None,
    n_repeats=DEFAULT_REPEATS,
    alpha=0.05,
    evidence=DEFAULT_ROOT,
    class_column=None,
    a_params=None,
    b_params=None,
    metric: str = "accuracy",
    rope: float = 0.01,
    seed: int | None = None,
) -> Assessment:
    """The assessment stored in ``out``, re-summarised without fitting anything.

    Takes the arguments :func:`assess` was given (they identify the stored run);
    ``metric`` may differ from the one it was fitted for: the stored outputs are
    then scored by it (:class:`RescoredRun`).

    Returns
    -------
    Assessment
    """
    from simstudy.engine import DEFAULT_SEED, load_run
    from simstudy.pipeline.scores import check_metric

    data = as_dataset(data, class_column=class_column)
    try:
        metric = check_metric(metric)
    except ValueError as exc:
        raise ValueError(f"--{exc}") from None
    check_metric_for(metric, data)  # a metric it is scored again by: checked as a new one would be
    if isinstance(a, dict) and b is None:  # the learners= mapping of assess
        a, b = named_learners(a, "learners")
    # nothing is fitted: a learner given by reference is not even imported
    ca = parse_learner(a, a_params, option="--a", contained=wants_worker(a))
    cb = parse_learner(b, b_params, option="--b", contained=wants_worker(b))
    chosen = parse_designs(designs, data.y, alpha=alpha, classes=data.classes)
    study = assessment_study(data, ca, cb, chosen, n_repeats=n_repeats, tests=tests, metric=metric, fitting=False)
    other = _other_metric(data, ca, cb, chosen, n_repeats, tests, out, DEFAULT_SEED if seed is None else seed, metric)
    if other is not None:  # fitted for another metric: scored again from its stored outputs
        study, run = other
    else:
        run = load_run(study, profile=ASSESS_PROFILE, out=out)
    return _assessment(study, run, chosen, evidence, alpha, data, ca, cb, rope=check_rope(rope))
