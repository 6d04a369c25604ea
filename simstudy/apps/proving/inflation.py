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

__all__ = ["GRID", "DESIGNS", "SHOWN_REPEATS", "Inflation", "calibrate_inflation", "fold_differences"]

#: the factors tried, smallest first
GRID = (1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 3.5, 4.0, 5.0)
#: the designs calibrated, each with the truth its training share is judged by (the 5x2 cv trains on half)
DESIGNS = {"cv10x10": "truth", "5x2cv": "truth_half"}
#: the design of the registered per-repeat tests (``inflated_cv_t_CLASS``)
PER_REPEAT_DESIGN = "cv10x10"
#: the numbers of repeats pooled that a page shows (every one is in the table)
SHOWN_REPEATS = (1, 5, 10)
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
    """

    table: pd.DataFrame
    procedures: dict
    tests: dict
    evidence: dict
    alpha: float
    null_scenarios: int
    designs: tuple = ()

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
        j = _judge(pools, nulls, f, 0, m, rule)
        if (j["verdict"] == "controls size").all() and (j["type1"] <= rule.alpha).all():
            return f, 1
    return None, None


def _scenarios_of(cls: dict, pools: dict) -> tuple[list, list]:
    """A class's null scenarios and its alternatives, among those stored on the design."""
    nulls = [c for c in cls["null_scenarios"] if c in pools]
    return nulls, [c for c in cls["scenarios"] if c in pools and c not in nulls]


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
    m = max(1, len([c for c in classes["all"]["null_scenarios"] if c in stored]))
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
                nulls, alts = _scenarios_of(cls, pools)
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
                nulls, alts = _scenarios_of(cls, single)
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
    )
