"""Evidence and verdicts: the stored simulation evidence on the assessment's procedures judged on the proving
ground's rules (:func:`evidence_table`), the recommendation of a procedure that controls size
(:func:`recommend`), and the verdicts across repeats in words (:func:`verdicts`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


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
    from simstudy.apps.proving.summary import procedures, size_verdicts, verdict_fields
    from simstudy.pipeline.procedures import procedure_id
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
    label = {procedure_id(d, s, t): (d, s, t) for d, s, t in wanted}
    present = {
        procedure_id(*map(str, k)): set(g)
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
                **{
                    k: x for k, x in verdict_fields(v, "no null scenario").items() if k not in ("liberal", "unresolved")
                },
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
    missing = [d.key for d in designs if d.key not in covered]
    parts = []
    if missing:
        folds = {d.key: d.n_folds for d in designs}
        too_many = [k for k in missing if folds[k] > 20]
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
    from simstudy.pipeline.procedures import procedure_id
    from simstudy.statistics.size_control import CONTROLS, LIBERAL, UNRESOLVED, SizeRule

    rule = SizeRule(alpha=alpha)
    evidence = list(evidence or [])
    procs = [procedure_id(r["design"], r["scheme"], r["test"]) for _, r in table.iterrows()]
    ev_table, usable, covered = _usable_evidence(table, procs, evidence, shipped, alpha=alpha, notes=notes)
    table = _with_evidence(table, procs, ev_table)
    coverage = _coverage(designs, table, covered)
    judged = table[table["size"].isin([CONTROLS, LIBERAL, UNRESOLVED])]
    never_text = _never_recommended(judged, usable, shipped)
    if judged.empty:
        why = _nothing_judged(evidence, usable, shipped, alpha)
        return table, " ".join(x for x in (why, coverage) if x)
    ok = table[table["size"] == CONTROLS]
    if ok.empty:
        text = (
            f"No recommendation: none of the {len(judged)} procedures with stored null evidence controls size at "
            f"alpha = {alpha:g} (tolerance {100 * rule.bound:g}%: the upper end of the Type I error's interval, "
            "simultaneous over the procedure's null scenarios, must lie below it on every one). " + never_text
        )
        return table, " ".join(x for x in (text, coverage) if x)
    head = _recommended(judged, ok, alpha=alpha, bound=rule.bound)
    return table, " ".join(x for x in (head, never_text, coverage) if x)


def _usable_evidence(table: pd.DataFrame, procs: list, evidence: list, shipped, *, alpha: float, notes):
    """The judged procedures of the evidence that can speak at ``alpha``, the evidence used and the designs it
    covers: ``(ev_table, usable, covered)``."""
    if shipped is not None:
        same_alpha = abs(alpha - shipped.alpha) <= 1e-12
        if not same_alpha and notes is not None:
            notes.append(
                f"the shipped evidence is judged at alpha = {shipped.alpha:g} only; not used at alpha = {alpha:g}"
            )
        ev_table = shipped.table[shipped.table["procedure"].isin(procs)] if same_alpha else shipped.table.iloc[:0]
        return ev_table, [shipped] if same_alpha else [], set(shipped.designs) if same_alpha else set()
    wanted = set(zip(table["design"], table["scheme"], table["test"]))
    ev_table = evidence_table(evidence, wanted, alpha=alpha, notes=notes)
    usable = [ev for ev in evidence if not (alpha > ev.alpha * (1 + 1e-9) and ev.rows["sign"].isna().any())]
    covered = set().union(*(_designs_with_nulls(ev) for ev in usable)) if usable else set()
    return ev_table, usable, covered


def _with_evidence(table: pd.DataFrame, procs: list, ev_table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with each procedure's verdict and numbers from the evidence (``no evidence`` where it has none)."""
    e = ev_table.set_index("procedure") if len(ev_table) else pd.DataFrame()

    def col(name, default=np.nan):
        return [e.loc[p, name] if p in e.index else default for p in procs]

    return table.assign(
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


def _never_recommended(judged: pd.DataFrame, usable: list, shipped) -> str:
    """The sentence naming the liberal and the unresolved procedures, and what would resolve the latter."""
    from simstudy.statistics.size_control import LIBERAL, UNRESOLVED

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
    return ("Never recommended: " + " — ".join(never) + ".") if never else ""


def _nothing_judged(evidence: list, usable: list, shipped, alpha: float) -> str:
    """Why no procedure has a size verdict: no evidence, none at this alpha, or no null scenario for them."""
    if not evidence and shipped is None:
        from simstudy.apps.evidence import studies_with_evidence

        names = studies_with_evidence()
        return (
            "No recommendation: no stored simulation evidence was found, and replicability on your data "
            "alone favours tests that reject too often (a test that never rejects is perfectly "
            "replicable)." + (f" Studies that provide evidence once stored: {', '.join(names)}." if names else "")
        )
    if not usable:
        return (
            f"No recommendation: the stored evidence gives the direction of a rejection only up to alpha = "
            f"{max(ev.alpha for ev in (evidence or [shipped])):g}, so it cannot judge tests at alpha = {alpha:g}."
        )
    return (
        "No recommendation: the stored evidence has no null scenario for any of these procedures, so no "
        "size verdict can be given."
    )


def _recommended(judged: pd.DataFrame, ok: pd.DataFrame, *, alpha: float, bound: float) -> str:
    """The recommendation among the procedures that control size: the first by size-adjusted power, ties
    broken by simulated replicability, then by R2 on the user's data; with its numbers."""
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
        f"the procedure's null scenarios, at most {100 * bound:g}% on every one)"
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
    return head + (
        f". Its Type I error: {best['Type I error %']:.1f}% [{best['Type I low %']:.1f}, "
        f"{best['Type I high %']:.1f}] on its deciding null scenario {best['deciding null scenario']} "
        f"({int(best['null data sets'])} data sets; {int(best['null scenarios'])} null scenario(s) judged; "
        f"evidence: {best['evidence']}). On your data: R2 {best['R2']:.2f} over {best['repeats']} repeats, A "
        f"better in {best['A better']} and B better in {best['B better']}."
    )


def _name(row) -> str:
    scheme = f", scheme {row['scheme']}" if row["scheme"] else ""
    return f"`{row['test']}` with {row['design']}{scheme}"


def _verdict_text(r, test: str) -> str:
    """How often a significant verdict was reached, in words that claim no more than the test does (a test whose
    statistic has no direction says "the two differ"; its stored decision's sign is the mean's)."""
    from simstudy.pipeline.outcomes import get_test

    n, a_n, b_n = int(r["repeats"]), int(r["A better"]), int(r["B better"])
    if get_test(test).statistic == "no direction":
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
    """Plain-language verdicts across repeats for the procedures the papers name
    (:data:`simstudy.pipeline.procedures.NAMED`), each in its words.

    Returns
    -------
    list of str
        One line per named procedure present, e.g. "A beats B in 4 of 10
        repeats with the corrected 10x10 cv t-test".
    """
    from simstudy.apps.conclusion import test_kind
    from simstudy.pipeline.procedures import NAMED

    by_key = {d.key: d for d in designs}
    lines = []
    for _, r in table.iterrows():
        d = by_key.get(r["design"])
        if d is None or d.spec is None:
            continue
        entry = next(
            (e for e in NAMED if e.words and e.fits(d.spec) and (e.scheme, e.test) == (r["scheme"], r["test"])), None
        )
        if entry is not None:
            name = entry.name(d.spec, "words") + (" (uncorrected)" if test_kind(entry.test) == "uncorrected" else "")
            lines.append(f"{_verdict_text(r, entry.test)} with {name}")
    return lines
