"""Calibrate, per stability class, how much the corrected 10x10 cv t-test's variance term must grow to keep size.

The corrected repeated cv t-test (Nadeau and Bengio 2003; Bouckaert and Frank
2004) divides the mean of the ``k r`` fold differences by
``sqrt((1/(k r) + n_test/n_train) s^2)``.  The term ``n_test/n_train`` is the
correlation of two splits' differences it assumes; the proving ground measures
more for learners whose predictions change with the training partition, and the
test is liberal there (1-nearest neighbour: 11.5% at alpha = 5%).  The
*inflated* test multiplies that term by a factor ``c >= 1`` calibrated on the
null scenarios of the learners' stability class:
``t = mean / sqrt((1/(k r) + c n_test/n_train) s^2)`` (df ``k r - 1``), the
same statistic rescaled, so that its size-adjusted power is the corrected test's.

This script reads the stored rows of a paper-profile proving ground (its paired
scores on the 10x10 cv; nothing is simulated again), and per class
(``simstudy/apps/proving/shipped_evidence.json``: the classes the shipped evidence
already assigns every scenario to):

1. **calibrates** on the data sets with an even replication number: the smallest
   factor of ``GRID`` at which, on every null scenario of the class, the Type I
   error is at most alpha and its interval controls size (``SizeRule(alpha)``,
   simultaneous over the proving ground's null scenarios, as on its page);
2. **validates** on the data sets with an odd replication number, which the
   calibration never saw: every inflated test's size verdict on every class's
   null scenarios (and on all of them), and its power (rejections in the true
   direction) on the class's alternative scenarios, beside the corrected 10x10
   cv t and the corrected 5x2 cv t (the assess default) on the same data sets.

It writes ``simstudy/pipeline/data/inflation.json`` (the factors, the
validation in the columns of the shipped evidence, and the run's provenance) and
``docs/reproduction/proving-ground/inflation.csv`` (the validation table).

    .venv/bin/python scripts/calibrate_inflation.py RUN_DIR     # about a minute and 4 GiB
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "simstudy" / "pipeline" / "data" / "inflation.json"
CSV = ROOT / "docs" / "reproduction" / "proving-ground" / "inflation.csv"
PAGE = CSV.with_suffix(".md")
SHIPPED = ROOT / "simstudy" / "apps" / "proving" / "shipped_evidence.json"
TRUTH = ROOT / "simstudy" / "apps" / "proving" / "truth.json"
GRID = (1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 3.5, 4.0, 5.0)
DESIGN = "cv10x10"  # the design of the registered per-repeat tests
#: the designs calibrated, each with the truth its training share is judged by (the 5x2 cv trains on half)
DESIGNS = {"cv10x10": "truth", "5x2cv": "truth_half"}
ALPHA = 0.05


def _differences(run: Path, design: str) -> dict:
    """Per scenario: the fold differences A - B, shape (data sets, repeats, splits), the test share ratio
    ``n_test/n_train`` and every data set's replication number."""
    import pyarrow.dataset as ds

    files = sorted(glob.glob(str(run / "chunks" / "*" / "*" / "scores.parquet")))
    if not files:
        raise SystemExit(f"{run}: no stored scores (chunks/*/*/scores.parquet)")
    cols = ["condition", "replication", "experiment", "run", "fold", "acc_a", "acc_b", "n_train", "n_test"]
    table = ds.dataset(files, format="parquet").to_table(columns=cols, filter=ds.field("design") == design)
    df = table.to_pandas().sort_values(["condition", "replication", "experiment", "run", "fold"])
    out = {}
    for cond, g in df.groupby("condition", sort=True, observed=True):
        units = g[["replication", "experiment"]].drop_duplicates()
        per = len(g) // len(units)
        n_exp = int(units["experiment"].nunique())
        x = (g["acc_a"].to_numpy(float) - g["acc_b"].to_numpy(float)).reshape(-1, n_exp, per)
        ratio = float(g["n_test"].iloc[0]) / float(g["n_train"].iloc[0])
        out[str(cond)] = {"x": x, "ratio": ratio, "rep": g["replication"].to_numpy()[:: n_exp * per]}
    return out


def _pooled(s: dict, repeats: int) -> dict:
    """Every data set's repeats in pools of ``repeats`` (as many whole pools as it has): per pool the mean and
    variance of its ``repeats x splits`` differences, the number of values, and the pool's data set."""
    x = s["x"]
    pools = x.shape[1] // repeats
    xs = x[:, : pools * repeats].reshape(x.shape[0], pools, repeats * x.shape[2])
    return {"mean": xs.mean(-1), "var": xs.var(-1, ddof=1), "n": xs.shape[-1], "ratio": s["ratio"], "rep": s["rep"]}


def _decisions(p: dict, factor: float) -> tuple[np.ndarray, np.ndarray]:
    """Rejections at ALPHA of the pooled corrected t with the term n_test/n_train times ``factor``, and the
    direction (the zero-variance convention of the project's t-tests: equal values with a nonzero mean are
    certain)."""
    from scipy import stats

    m, v = p["mean"], p["var"]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(v > 0, m / np.sqrt((1 / p["n"] + factor * p["ratio"]) * np.where(v > 0, v, 1.0)), 0.0)
        t = np.where((v == 0) & (m != 0), np.sign(m) * np.inf, t)
    return np.abs(t) > stats.t.ppf(1 - ALPHA / 2, p["n"] - 1), np.sign(t)


def _keep(rep: np.ndarray, parity: int | None) -> np.ndarray:
    """The data sets of one parity of their replication number (None: all)."""
    return np.ones(rep.shape, dtype=bool) if parity is None else rep % 2 == parity


def _judge(pools: dict, scenarios, factor: float, parity: int, m: int):
    from simstudy.statistics.size_control import SizeRule, judge_scenarios

    shares, groups, per = [], [], 1
    for c in scenarios:
        rej, _ = _decisions(pools[c], factor)
        keep = _keep(pools[c]["rep"], parity)
        per = rej.shape[1]
        shares.extend(rej[keep].mean(axis=1))
        groups.extend([c] * int(keep.sum()))
    return judge_scenarios(np.asarray(shares), np.asarray(groups), SizeRule(ALPHA), n_repeats=per, m=m)


def _power(pools: dict, scenarios, truth: dict, factor: float, parity: int, key: str) -> tuple:
    """Mean rejection rate in the true direction over the data sets of ``scenarios``, with a 95% interval."""
    from simstudy.statistics.intervals import mean_interval

    per = []
    for c in scenarios:
        want = {"A": 1, "B": -1}.get(truth[c][key])
        if want is None:
            continue
        rej, sign = _decisions(pools[c], factor)
        keep = _keep(pools[c]["rep"], parity)
        per.extend(((rej & (sign == want))[keep]).mean(axis=1))
    if not per:
        return np.nan, np.nan, np.nan, 0
    mean, low, high = mean_interval(np.asarray(per))
    return 100 * float(mean), 100 * float(low), 100 * float(high), len(per)


def _evidence(pools, nulls, alts, truth, key, factor, parity, m, design, test) -> dict:
    """One procedure's size verdict and power on the data sets of ``parity``, in the shipped evidence's columns."""
    from simstudy.statistics.size_control import procedure_verdict

    v = procedure_verdict(_judge(pools, nulls, factor, parity, m))
    p = _power(pools, alts, truth, factor, parity, key)
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


def _page(table, out: dict) -> str:
    """The Markdown page of the calibration: what was done, and the procedures of 1, 5 and 10 repeats pooled."""
    prov = out["provenance"]
    shown = table[table["repeats pooled"].isin([1, 5, 10])]
    cols = ["design", "repeats pooled", "class", "factor", "size", "judged on", "Type I %", "low %", "high %",
            "deciding scenario", "power %", "uninflated power %"]  # fmt: skip
    lines = [
        "# The corrected t pooled over repeats, and inflated per stability class",
        "",
        f"Made by `{out['made_by']}` from the stored rows of the proving ground's {prov['profile']} profile (root "
        f"seed {prov['root_seed']}, code fingerprint `{prov['code_fingerprint']}`, rows stored {prov['rows_stored']}); "
        "nothing was simulated again. Per design, number of repeats pooled into one corrected t-test and stability "
        "class of the learners: the published corrected test (factor 1) where it controls size on every data set "
        "of the class's null scenarios; otherwise the smallest factor of the grid that keeps every null scenario's "
        "Type I error at most alpha and in control on the data sets with an even replication number, judged on "
        "those with an odd one"
        + ". Power: rejections in the true direction on the class's alternative scenarios (the same data sets as "
        "the Type I error). An inflated test is the corrected statistic rescaled, so its size-adjusted power is the "
        "corrected test's on the same design (`power.csv`); what the factor changes is where it rejects at "
        f"alpha = {out['alpha']:g}. `assess` decides a design by the most powerful of these that controls size for "
        "the learners' class. Every row, all numbers of repeats: `inflation.csv`.",
        "",
        "| " + " | ".join(cols) + " |",
        "|" + "---|" * len(cols),
    ]
    for _, r in shown.iterrows():
        lines.append("| " + " | ".join(str(r[c]) for c in cols) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    import pandas as pd

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a stored paper-profile proving ground (its run directory)")
    args = parser.parse_args(argv)
    manifest = json.loads((args.run / "manifest.json").read_text())
    classes = json.loads(SHIPPED.read_text())["classes"]
    truth = json.loads(TRUTH.read_text())["scenarios"]
    m = len(classes["all"]["null_scenarios"])
    procedures, tests, evidence, rows = {}, {}, {}, []
    for design, key in DESIGNS.items():
        diffs = _differences(args.run, design)
        n_exp = next(iter(diffs.values()))["x"].shape[1]
        procedures[design] = {}
        for repeats in range(1, n_exp + 1):
            pools = {c: _pooled(s, repeats) for c, s in diffs.items()}
            procedures[design][str(repeats)] = {}
            for name, cls in classes.items():
                nulls = [c for c in cls["null_scenarios"] if c in pools]
                alts = [c for c in cls["scenarios"] if c in pools and c not in nulls]
                # the corrected test as published needs no calibration: judged on every data set, as the proving
                # ground judges any fixed procedure; only a factor chosen from the data is judged on held-out ones
                plain = _judge(pools, nulls, 1.0, None, m)
                factor, parity = (1.0, None) if (plain["verdict"] == "controls size").all() else (None, 1)
                for f in GRID[1:] if factor is None else ():
                    j = _judge(pools, nulls, f, 0, m)
                    if (j["verdict"] == "controls size").all() and (j["type1"] <= ALPHA).all():
                        factor = f
                        break
                if factor is None:
                    continue
                test = "corrected_cv_t" if factor == 1 else f"inflated_cv_t_{name.replace(' ', '_')}"
                held = _evidence(pools, nulls, alts, truth, key, factor, parity, m, design, test)
                held["judged_on"] = "every data set" if parity is None else "held-out data sets"
                plain = _power(pools, alts, truth, 1.0, parity, key)
                procedures[design][str(repeats)][name] = {**held, "plain_power": round(plain[0], 4)}
                rows.append(
                    {
                        "design": design,
                        "repeats pooled": repeats,
                        "class": name,
                        "factor": factor,
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
                        "uninflated power %": round(plain[0], 1),
                        "alternative data sets": held["power_data_sets"],
                    }
                )
                if design == DESIGN and repeats == 1 and name != "all" and factor > 1:
                    tests[test] = factor
        if design == DESIGN:  # the registered per-repeat tests, judged on every class's held-out data sets
            pools = {c: _pooled(s, 1) for c, s in diffs.items()}
            for name, cls in classes.items():
                nulls = [c for c in cls["null_scenarios"] if c in pools]
                alts = [c for c in cls["scenarios"] if c in pools and c not in nulls]
                evidence[name] = [
                    _evidence(pools, nulls, alts, truth, key, f, 1, m, design, t) for t, f in sorted(tests.items())
                ]
    prov = manifest.get("provenance", {})
    out = {
        "made_by": "scripts/calibrate_inflation.py",
        "alpha": ALPHA,
        "grid": list(GRID),
        "rule": (
            "per design, number of repeats pooled and stability class, the smallest factor of the grid at which "
            "every null scenario of the class has a Type I error at most alpha and controls size (intervals "
            f"simultaneous over the proving ground's {m} null scenarios) on the data sets with an even "
            "replication number; judged again, with its power, on those with an odd one"
        ),
        "procedures": procedures,
        "tests": tests,
        "evidence": evidence,
        "provenance": {
            "study": manifest.get("study"),
            "profile": manifest.get("profile"),
            "root_seed": manifest.get("root_seed"),
            "code_fingerprint": str(prov.get("code", ""))[:12],
            "rows_stored": str(manifest.get("created", ""))[:10],
            "held_out": "data sets with an odd replication number",
        },
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    table = pd.DataFrame(rows)
    table.to_csv(CSV, index=False)
    PAGE.write_text(_page(table, out))
    with pd.option_context("display.width", 250, "display.max_rows", 500):
        print(table[table["repeats pooled"].isin([1, 5, 10])].to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
