"""The corrected t pooled over repeats and inflated per stability class: calibrated and validated on stored rows.

The corrected cv t-test (Nadeau and Bengio 2003; Bouckaert and Frank 2004)
divides the mean of ``m`` split differences by ``sqrt((1/m + n_test/n_train) s^2)``.
The term ``n_test/n_train`` is the correlation of two splits' differences it
assumes; the proving ground measures more for learners whose predictions change
with the training partition, and the test is liberal there.  The *inflated*
test multiplies that term by a factor ``c >= 1``:
``t = mean / sqrt((1/m + c n_test/n_train) s^2)``, df ``m - 1`` — the same
statistic rescaled, so its size-adjusted power is the corrected test's; what
the factor changes is where it rejects at the nominal level.

:func:`calibrate_inflation` reads a stored proving ground's paired scores on
the 10x10 cv and the 5x2 cv (nothing is simulated again) and, per design, number
of repeats pooled into one test and stability class (the classes the shipped
evidence assigns every scenario to):

1. keeps the published test (factor 1) where it controls size on every data
   set of the class's null scenarios;
2. otherwise **calibrates** on the data sets with an even replication number:
   the smallest factor of :data:`GRID` at which every null scenario of the class
   has a Type I error at most alpha and an interval that controls size
   (:class:`~simstudy.statistics.size_control.SizeRule`, simultaneous over the
   run's null scenarios, as on the proving ground's page);
3. **validates** it on the data sets with an odd replication number, which the
   calibration never saw: its size verdict on the class's null scenarios and its
   power (rejections in the true direction) on the class's alternatives.

A **sequential design** is judged the same way (:func:`sequential_design`): five 5x2 cvs pooled (the
default assessment), and, only where that does not decide, one 10x10 cv, each by its class's procedure of
the table.  Its Type I error is that of the whole procedure (a rejection at either stage), on pairs of
stages drawn from the same data set, beside each stage alone on the same data sets.

The proving ground's page shows the result beside the other procedures;
``scripts/calibrate_inflation.py`` writes it, from the paper profile's rows, into
the calibration ``assess`` ships (``simstudy/pipeline/data/inflation.json``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "GRID",
    "DESIGNS",
    "SEQUENTIAL",
    "SHOWN_REPEATS",
    "Inflation",
    "calibrate_inflation",
    "fold_differences",
    "sequential_design",
]

#: the factors tried, smallest first
GRID = (1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 3.5, 4.0, 5.0)
#: the designs calibrated, each with the truth its training share is judged by (the 5x2 cv trains on half)
DESIGNS = {"cv10x10": "truth", "5x2cv": "truth_half"}
#: the design of the registered per-repeat tests (``inflated_cv_t_CLASS``)
PER_REPEAT_DESIGN = "cv10x10"
#: the numbers of repeats pooled that a page shows (every one is in the table)
SHOWN_REPEATS = (1, 5, 10)
#: the stages of the sequential design, (design, repeats pooled, fits of each learner): the default
#: assessment's five 5x2 cvs, then one 10x10 cv while they do not decide
SEQUENTIAL = (("5x2cv", 5, 50), ("cv10x10", 1, 100))
_COLUMNS = ["condition", "replication", "experiment", "run", "fold", "design", "acc_a", "acc_b", "n_train", "n_test"]


@dataclass(frozen=True)
class Inflation:
    """A calibration of the inflated corrected t, and its validation.

    Attributes
    ----------
    table : DataFrame
        One row per design, number of repeats pooled and class that some factor of the grid calibrates:
        the factor, the size verdict and where it was judged (every data set, or the held-out ones), the
        deciding null scenario's Type I error % with its simultaneous interval, and the power % (with its
        interval) beside the uninflated test's on the same data sets.
    procedures : dict
        ``{design: {repeats: {class: row}}}``, each row in the columns of the shipped evidence.
    tests : dict
        ``{registered test name: factor}`` of the per-repeat inflated tests on :data:`PER_REPEAT_DESIGN`.
    evidence : dict
        ``{class: [rows]}``: every per-repeat inflated test judged on every class's held-out data sets.
    alpha : float
    null_scenarios : int
        How many null scenarios the intervals are simultaneous over.
    designs : tuple of str
        The designs of :data:`DESIGNS` the run holds.
    sequential : DataFrame
        :func:`sequential_design` on the same rows (empty without both stages).
    stored_nulls : int
        How many of the classes' null scenarios the run holds (0: none of its scenarios is in a class, so
        nothing could be calibrated, whatever the data sets).
    """

    table: pd.DataFrame
    procedures: dict
    tests: dict
    evidence: dict
    alpha: float
    null_scenarios: int
    designs: tuple = ()
    sequential: pd.DataFrame | None = None
    stored_nulls: int = 0

    def shown(self) -> pd.DataFrame:
        """The rows of :data:`SHOWN_REPEATS` repeats pooled, in the columns a page prints."""
        cols = ["design", "repeats pooled", "class", "factor", "size", "judged on", "Type I %", "low %", "high %",
                "deciding scenario", "power %", "uninflated power %"]  # fmt: skip
        if self.table.empty:
            return self.table
        return self.table[self.table["repeats pooled"].isin(SHOWN_REPEATS)][cols].reset_index(drop=True)


def fold_differences(run, designs, conditions) -> dict:
    """Per design of ``designs`` and condition stored on it: the split differences A - B, shape (data sets,
    repeats, splits), the test share ``n_test/n_train`` and every data set's replication number (each
    condition's rows read once for all the designs)."""
    out: dict = {d: {} for d in designs}
    for cond in conditions:
        parts = [c[c["design"].isin(designs)] for c in run.table_chunks("scores", columns=_COLUMNS, conditions=[cond])]
        parts = [p for p in parts if len(p)]
        if not parts:
            continue
        rows = pd.concat(parts, ignore_index=True)
        for design, g in rows.groupby("design", sort=False, observed=True):
            g = g.sort_values(["replication", "experiment", "run", "fold"])
            n_exp = int(g["experiment"].nunique())
            per = len(g) // int(len(g[["replication", "experiment"]].drop_duplicates()))
            x = (g["acc_a"].to_numpy(float) - g["acc_b"].to_numpy(float)).reshape(-1, n_exp, per)
            ratio = float(g["n_test"].iloc[0]) / float(g["n_train"].iloc[0])
            out[str(design)][str(cond)] = {"x": x, "ratio": ratio, "rep": g["replication"].to_numpy()[:: n_exp * per]}
    return out


def _pooled(s: dict, repeats: int) -> dict:
    """Every data set's repeats in pools of ``repeats`` (as many whole pools as it has): per pool the mean and
    variance of its differences, the number of values, the test share and the data sets' replication numbers."""
    x = s["x"]
    pools = x.shape[1] // repeats
    xs = x[:, : pools * repeats].reshape(x.shape[0], pools, repeats * x.shape[2])
    return {"mean": xs.mean(-1), "var": xs.var(-1, ddof=1), "n": xs.shape[-1], "ratio": s["ratio"], "rep": s["rep"]}


def _decisions(p: dict, factor: float, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Rejections at ``alpha`` of the pooled corrected t with its term n_test/n_train times ``factor``, and their
    direction (the zero-variance convention of the project's t-tests: equal values with a nonzero mean are
    certain)."""
    from scipy import stats

    m, v = p["mean"], p["var"]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(v > 0, m / np.sqrt((1 / p["n"] + factor * p["ratio"]) * np.where(v > 0, v, 1.0)), 0.0)
        t = np.where((v == 0) & (m != 0), np.sign(m) * np.inf, t)
    return np.abs(t) > stats.t.ppf(1 - alpha / 2, p["n"] - 1), np.sign(t)


def _keep(rep: np.ndarray, parity: int | None) -> np.ndarray:
    """The data sets of one parity of their replication number (None: all)."""
    return np.ones(rep.shape, dtype=bool) if parity is None else rep % 2 == parity


def _judge(pools: dict, scenarios, factor: float, parity, m: int, rule):
    from simstudy.statistics.size_control import judge_scenarios

    shares, groups, per = [], [], 1
    for c in scenarios:
        rej, _ = _decisions(pools[c], factor, rule.alpha)
        keep = _keep(pools[c]["rep"], parity)
        per = rej.shape[1]
        shares.extend(rej[keep].mean(axis=1))
        groups.extend([c] * int(keep.sum()))
    return judge_scenarios(np.asarray(shares), np.asarray(groups), rule, n_repeats=per, m=m)


def _power(pools: dict, scenarios, truth: dict, factor: float, parity, key: str, alpha: float) -> tuple:
    """Mean rejection rate in the true direction over the data sets of ``scenarios``, with a 95% interval."""
    from simstudy.statistics.intervals import mean_interval

    per = []
    for c in scenarios:
        want = {"A": 1, "B": -1}.get(truth[c][key])
        if want is None:
            continue
        rej, sign = _decisions(pools[c], factor, alpha)
        keep = _keep(pools[c]["rep"], parity)
        per.extend(((rej & (sign == want))[keep]).mean(axis=1))
    if not per:
        return np.nan, np.nan, np.nan, 0
    mean, low, high = mean_interval(np.asarray(per))
    return 100 * float(mean), 100 * float(low), 100 * float(high), len(per)


def _evidence(pools, nulls, alts, truth, key, factor, parity, m, design, test, rule) -> dict:
    """One procedure's size verdict and power on the data sets of ``parity``, in the shipped evidence's columns."""
    from simstudy.statistics.size_control import procedure_verdict

    v = procedure_verdict(_judge(pools, nulls, factor, parity, m, rule))
    p = _power(pools, alts, truth, factor, parity, key, rule.alpha)
    return {
        "procedure": f"{test} [{design}]",
        "design": design,
        "scheme": "",
        "test": test,
        "size": v["verdict"],
        "deciding_scenario": v["scenario"],
        "deciding_type1": round(100 * v["type1"], 4),
        "deciding_low": round(100 * v["low"], 4),
        "deciding_high": round(100 * v["high"], 4),
        "deciding_n": int(v["n"]),
        "null_scenarios": int(v["scenarios"]),
        "controls": int(v["n_controls"]),
        "power": round(p[0], 4),
        "power_low": round(p[1], 4),
        "power_high": round(p[2], 4),
        "power_data_sets": p[3],
        "factor": factor,
    }


def _factor(pools, nulls, m, rule) -> tuple:
    """The factor of one class and the data sets it is judged on: 1 on all of them when the published test
    controls size on every data set; else the smallest factor of the grid that does on the even ones, judged on
    the odd ones; (None, None) when none does."""
    plain = _judge(pools, nulls, 1.0, None, m, rule)
    if (plain["verdict"] == "controls size").all():
        return 1.0, None
    for f in GRID[1:]:
        if _calibrated(_judge(pools, nulls, f, 0, m, rule), rule):
            return f, 1
    return None, None


def _calibrated(judged, rule) -> bool:
    """Whether a factor is chosen: every null scenario in control and at most alpha."""
    return bool((judged["verdict"] == "controls size").all() and (judged["type1"] <= rule.alpha).all())


def _null_at(truth: dict, c: str, keys) -> bool:
    """Whether scenario ``c`` is a null at every training share of ``keys`` (``truth``, ``truth_half``): a null by
    measurement is one only where its measured gap makes it one."""
    t = truth.get(c, {})
    return all(t.get(k, t.get("truth")) == "null" for k in keys)


def _scenarios_of(cls: dict, pools: dict, truth: dict, key: str) -> tuple[list, list]:
    """A class's null scenarios at the design's training share (truth column ``key``) and its alternatives,
    among those stored on the design."""
    nulls = [c for c in cls["null_scenarios"] if c in pools and _null_at(truth, c, (key,))]
    return nulls, [c for c in cls["scenarios"] if c in pools and c not in cls["null_scenarios"]]


def _row(design, repeats, name, held, plain_power) -> dict:
    return {
        "design": design,
        "repeats pooled": repeats,
        "class": name,
        "factor": held["factor"],
        "size": held["size"],
        "judged on": held["judged_on"],
        "null scenarios": held["null_scenarios"],
        "controls": held["controls"],
        "deciding scenario": held["deciding_scenario"],
        "Type I %": round(held["deciding_type1"], 2),
        "low %": round(held["deciding_low"], 2),
        "high %": round(held["deciding_high"], 2),
        "power %": round(held["power"], 1),
        "power low %": round(held["power_low"], 1),
        "power high %": round(held["power_high"], 1),
        "uninflated power %": round(plain_power, 1),
        "alternative data sets": held["power_data_sets"],
    }


def calibrate_inflation(run, *, classes: dict | None = None, truth: dict | None = None, rule=None):
    """Calibrate and validate the inflated corrected t on a stored proving ground (see the module).

    Parameters
    ----------
    run : simstudy.engine.store.RunData
        A stored run of the proving ground with the 10x10 cv or the 5x2 cv among its designs.
    classes : dict, optional
        ``{class: {"scenarios": [...], "null_scenarios": [...]}}`` (default: the shipped evidence's classes).
    truth : dict, optional
        ``{scenario: {"truth": ..., "truth_half": ...}}`` (default: the proving ground's stored truth).
    rule : simstudy.statistics.size_control.SizeRule, optional
        How size is judged (default alpha 0.05, tolerance 1.5 alpha: the rule of the shipped calibration).

    Returns
    -------
    Inflation
        Empty (no row) when the run holds neither design or no class has a null scenario in it.
    """
    from simstudy.apps.proving.scenarios import TRUTH_FILE, _truth_file
    from simstudy.apps.shipped_evidence import load_shipped
    from simstudy.statistics.size_control import SizeRule

    rule = rule or SizeRule(0.05)
    classes = classes if classes is not None else load_shipped()["classes"]
    truth = truth if truth is not None else _truth_file(str(TRUTH_FILE))
    stored = list(dict.fromkeys(str(c["condition"]) for c in run.manifest["plan"]))
    stored_nulls = len([c for c in classes["all"]["null_scenarios"] if c in stored])
    m = max(1, stored_nulls)
    procedures, tests, evidence, rows = {}, {}, {}, []
    every = fold_differences(run, tuple(DESIGNS), [c for c in stored if c in truth])
    for design, key in DESIGNS.items():
        diffs = every[design]
        if not diffs:
            continue
        n_exp = next(iter(diffs.values()))["x"].shape[1]
        procedures[design] = {}
        for repeats in range(1, n_exp + 1):
            pools = {c: _pooled(s, repeats) for c, s in diffs.items()}
            if repeats == 1:
                single = pools  # the per-repeat tests are judged on these below
            procedures[design][str(repeats)] = {}
            for name, cls in classes.items():
                nulls, alts = _scenarios_of(cls, pools, truth, key)
                factor, parity = _factor(pools, nulls, m, rule) if nulls else (None, None)
                if factor is None:
                    continue
                test = "corrected_cv_t" if factor == 1 else f"inflated_cv_t_{name.replace(' ', '_')}"
                held = _evidence(pools, nulls, alts, truth, key, factor, parity, m, design, test, rule)
                held["judged_on"] = "every data set" if parity is None else "held-out data sets"
                plain = _power(pools, alts, truth, 1.0, parity, key, rule.alpha)
                procedures[design][str(repeats)][name] = {**held, "plain_power": round(plain[0], 4)}
                rows.append(_row(design, repeats, name, held, plain[0]))
                if design == PER_REPEAT_DESIGN and repeats == 1 and name != "all" and factor > 1:
                    tests[test] = factor
        if design == PER_REPEAT_DESIGN:  # the registered per-repeat tests, judged on every class's held-out data sets
            for name, cls in classes.items():
                nulls, alts = _scenarios_of(cls, single, truth, key)
                evidence[name] = [
                    _evidence(single, nulls, alts, truth, key, f, 1, m, design, t, rule)
                    for t, f in sorted(tests.items())
                    if nulls
                ]
    return Inflation(
        table=pd.DataFrame(rows),
        procedures=procedures,
        tests=tests,
        evidence=evidence,
        alpha=rule.alpha,
        null_scenarios=m,
        designs=tuple(procedures),
        sequential=sequential_design(every, procedures, classes, truth, m=m, rule=rule),
        stored_nulls=stored_nulls,
    )


def _stage(p: dict, factor: float, alpha: float, trials: int):
    rej, sign = _decisions(p, factor, alpha)
    return rej[:, :trials], sign[:, :trials]


def _paired_stages(every: dict, c: str) -> tuple:
    """Scenario ``c``'s pools at both stages of :data:`SEQUENTIAL`, on the data sets stored at both, in one
    order, and the number of trials (the first stage's pools)."""
    (d1, r1, _), (d2, r2, _) = SEQUENTIAL
    p1, p2 = _pooled(every[d1][c], r1), _pooled(every[d2][c], r2)
    if not np.array_equal(p1["rep"], p2["rep"]):
        common = np.intersect1d(p1["rep"], p2["rep"])
        p1 = {**p1, **{k: p1[k][np.isin(p1["rep"], common)] for k in ("mean", "var", "rep")}}
        p2 = {**p2, **{k: p2[k][np.isin(p2["rep"], common)] for k in ("mean", "var", "rep")}}
    return p1, p2, min(p1["mean"].shape[1], p2["mean"].shape[1])


def _staged(stages: dict, nulls, truth: dict, which: str, f1: float, f2: float, parity, alpha: float) -> dict:
    """One procedure of the sequential design on the data sets of ``parity``: ``which`` is ``first`` or
    ``second`` (that stage alone) or ``sequence`` (the second only where the first does not reject).  Per
    null data set its Type I error, per alternative one its power (the truth the same at both stages'
    training sizes), per data set the share of trials that went on to the second stage."""
    out: dict = {"shares": [], "groups": [], "power": [], "second": [], "trials": 1}
    for c, (p1, p2, trials) in stages.items():
        keep = _keep(p1["rep"], parity)
        rej1, s1 = _stage(p1, f1, alpha, trials)
        rej2, s2 = _stage(p2, f2, alpha, trials)
        rej, sign = {
            "first": (rej1, s1),
            "second": (rej2, s2),
            "sequence": (rej1 | rej2, np.where(rej1, s1, s2)),
        }[which]
        t = truth.get(c, {})
        want = {"A": 1, "B": -1}.get(t.get("truth")) if t.get("truth") == t.get("truth_half") else None
        if c in nulls:
            out["shares"].extend(rej[keep].mean(axis=1))
            out["groups"].extend([c] * int(keep.sum()))
        elif want is not None:
            out["power"].extend((rej & (sign == want))[keep].mean(axis=1))
        out["second"].extend((~rej1)[keep].mean(axis=1))
        out["trials"] = trials
    return out


def _verdict(got: dict, m: int, rule) -> dict:
    from simstudy.statistics.size_control import judge_scenarios

    return judge_scenarios(np.asarray(got["shares"]), np.asarray(got["groups"]), rule, n_repeats=got["trials"], m=m)


def sequential_design(every: dict, procedures: dict, classes: dict, truth: dict, *, m: int, rule) -> pd.DataFrame:
    """The stages of :data:`SEQUENTIAL`, alone and in sequence, judged per class on stored fold differences.

    For each class with a procedure at both stages (``procedures`` of :func:`calibrate_inflation`), each
    data set of the class's scenarios stored on both designs gives as many trials as its first stage has
    pools (two: ten 5x2 cvs make two pools of five); trial ``i`` pairs pool ``i`` of the first stage with
    repeat ``i`` of the second.  In sequence, the second stage is consulted only when the first does not
    reject, and the procedure decides the side of the stage that rejected; a rejection at either stage is a
    Type I error on a null scenario.  Each stage alone is judged with its factor where the table judged it
    (every data set, or the held-out ones).
    The sequence keeps the first stage's factor and takes for the second the smallest factor of
    :data:`GRID`, from the stage's own up, at which the whole procedure controls size: on every data set
    when both factors were judged there and it does, else chosen on the data sets with an even replication
    number and judged on the odd ones.  Power counts the alternatives whose truth is the same at both
    designs' training sizes.

    Parameters
    ----------
    every : dict
        :func:`fold_differences` of both designs.
    procedures : dict
        ``{design: {repeats: {class: row}}}`` as :attr:`Inflation.procedures`.
    classes, truth : dict
        As for :func:`calibrate_inflation`.
    m : int
        Null scenarios the intervals are simultaneous over.
    rule : simstudy.statistics.size_control.SizeRule

    Returns
    -------
    DataFrame
        Per class and procedure (``stage``: ``first`` or ``second`` alone, or ``sequence``): its label with
        the factors, where it was judged,
        the size verdict with the deciding scenario's Type I error % and its simultaneous interval, the
        power % with its 95% interval, and the mean splits fitted per learner.
    """
    from simstudy.statistics.intervals import mean_interval
    from simstudy.statistics.size_control import procedure_verdict

    (d1, r1, fits1), (d2, r2, fits2) = SEQUENTIAL
    rows = []
    for name, cls in classes.items():
        try:
            first, second = procedures[d1][str(r1)][name], procedures[d2][str(r2)][name]
        except KeyError:
            continue
        f1, f2 = float(first["factor"]), float(second["factor"])
        # each stage's data sets as the table judged it: every one (None) or the held-out ones (1)
        own = [1 if "held-out" in str(row.get("judged_on", "")) else None for row in (first, second)]
        parity = 1 if any(own) else None
        stages = {c: _paired_stages(every, c) for c in cls["scenarios"] if c in every[d1] and c in every[d2]}
        nulls = [c for c in cls["null_scenarios"] if c in stages and _null_at(truth, c, ("truth", "truth_half"))]
        if not nulls:
            continue
        seq_f, seq_parity = None, None

        def in_control(f, par):
            return _calibrated(
                _verdict(_staged(stages, nulls, truth, "sequence", f1, f, par, rule.alpha), m, rule), rule
            )

        if parity is None and in_control(f2, None):  # as the table: the stages' own factors, every data set
            seq_f = f2
        else:  # chosen on the even data sets, judged on the odd ones
            seq_f = next((f for f in GRID if f >= f2 and in_control(f, 0)), None)
            seq_parity = 1
        shown = [
            ("first", f"five 5x2 cvs pooled (c = {f1:g})", f1, f2, own[0]),
            ("second", f"one 10x10 cv (c = {f2:g})", f1, f2, own[1]),
        ]
        if seq_f is not None:
            shown.append(
                ("sequence", f"five 5x2 cvs (c = {f1:g}), then one 10x10 cv (c = {seq_f:g}) while they do not decide",
                 f1, seq_f, seq_parity)
            )  # fmt: skip
        for which, label, a, b, par in shown:
            got = _staged(stages, nulls, truth, which, a, b, par, rule.alpha)
            v = procedure_verdict(_verdict(got, m, rule))
            power = got["power"]
            pm, plo, phi = mean_interval(np.asarray(power)) if power else (np.nan, np.nan, np.nan)
            go_on = float(np.mean(got["second"])) if got["second"] else np.nan
            rows.append(
                {
                    "class": name,
                    "stage": which,
                    "procedure": label,
                    "judged on": "every data set" if par is None else "held-out data sets",
                    "size": v["verdict"],
                    "deciding scenario": v["scenario"],
                    "Type I %": round(100 * v["type1"], 2),
                    "low %": round(100 * v["low"], 2),
                    "high %": round(100 * v["high"], 2),
                    "power %": round(100 * float(pm), 1),
                    "power low %": round(100 * float(plo), 1),
                    "power high %": round(100 * float(phi), 1),
                    "alternative data sets": len(power),
                    "splits per learner": round({"first": fits1, "second": fits2}.get(which, fits1 + fits2 * go_on), 1),
                }
            )
    return pd.DataFrame(rows)
