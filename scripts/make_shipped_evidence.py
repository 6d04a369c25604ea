"""Write the evidence ``simstudy assess`` ships: the paper-profile proving ground, per stability class and procedure.

The proving ground's paper run is published under ``docs/reproduction/proving-ground/``:
``size.csv`` (every procedure's size verdict per null scenario, with its
simultaneous interval and data sets), ``power.csv`` (raw and size-adjusted power
per alternative scenario), ``replicability.csv`` (R2 per scenario), all written
from the stored rows of that run, whose commit and code fingerprint the page
``proving-ground.md`` states.  This script derives, from those files alone and
per *stability class* of the scenarios' learners, what ``assess`` needs for
every procedure (a test on a design and scheme):

* its size verdict over the class's null scenarios (controls size only if it
  does on every one; liberal if it is on one; else unresolved) with the deciding
  scenario, its Type I error, interval and data sets.  The intervals are the
  page's, simultaneous over all its null scenarios (Bonferroni), so over a class's
  fewer scenarios they are conservative;
* its size-adjusted and raw power over the class's alternative scenarios whose
  null twin is in the class: the mean over their data sets (each scenario
  weighted by its data sets), with a 95% interval from the per-scenario Monte
  Carlo intervals (independent data sets);
* its simulated replicability, Bouckaert's criterion: the lowest, over the
  class's scenarios, of the mean R2 of a data set's repeats;
* its rank among the procedures that control size in the class, by size-adjusted
  power: 1 + the number whose interval lies wholly above its own (the page's
  leaderboard pairs the data sets; these pooled numbers cannot, so ties are wider).

The classes come from the learners, measured, not named: the instability of a
scenario's comparison (:mod:`simstudy.apps.stability`: the share of cases whose
predicted class changes between two 10-fold cv runs, the larger of learner A's and
B's; and the same between two 2-fold runs, as the 5x2 cv trains) is measured here
on ``--data-sets`` fresh data sets of every null scenario and of every alternative
without a null twin; an alternative takes its twin's.  A user's comparison then
falls in the class of the scenario whose instability, measured with the same
number of folds, is nearest to its own (on a log scale).
Three classes (stable, moderately stable, unstable) are Jenks' natural breaks of
the measured values on a log scale (the split into three runs of consecutive
values with the least within-class sum of squares, found exhaustively), each
boundary the geometric middle of the gap it cuts; the boundaries are stored with
the values.  A scenario's class is its comparison's band, except that a stable
learner (A's or B's value in the stable band) against one that is not makes a
fourth class, ``stable against unstable``
(:func:`simstudy.apps.stability.comparison_class`); a user's comparison is then
placed by both its learners' values.  An ``all`` class holds the whole proving
ground.

    .venv/bin/python scripts/make_shipped_evidence.py            # about 10 core-minutes (the stability)
    .venv/bin/python scripts/make_shipped_evidence.py --check    # the stored file against the published CSVs
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAGE = ROOT / "docs" / "reproduction" / "proving-ground"
OUT = ROOT / "simstudy" / "apps" / "proving" / "shipped_evidence.json"
SEED = 20261127
ALPHA = 0.05
Z = 1.959963984540054


def measure_stability(n_data_sets: int, jobs: int) -> dict:
    """Per stability group (a null scenario, or an alternative without a twin): A's, B's and the pair's instability."""
    from simstudy.apps.proving.scenarios import BANK

    keys = [k for k, s in BANK.items() if s.null_twin is None]
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as pool:
            values = list(pool.map(_one_group, keys, [n_data_sets] * len(keys)))
    else:
        values = [_one_group(k, n_data_sets) for k in keys]
    return dict(zip(keys, values))


def _one_group(key: str, n_data_sets: int) -> dict:
    from simstudy.apps.proving.scenarios import BANK
    from simstudy.apps.stability import instability
    from simstudy.pipeline.designs import RepeatedKFold
    from simstudy.pipeline.outputs import fold_outputs

    sc = BANK[key]
    rng = np.random.default_rng([SEED, zlib.crc32(key.encode())])
    per = {f"{name}{tail}": [] for name in ("a", "b") for tail in ("", "_2fold")}
    for _ in range(n_data_sets):
        X, y = sc.data(rng)
        for folds, tail in ((10, ""), (2, "_2fold")):  # as a 10-fold cv (or 90/10 splits) and as the 5x2 cv trains
            ids = RepeatedKFold(2, folds).fold_ids(y, rng)
            for name, make in zip(("a", "b"), sc.learners(X.shape[1])):
                pred, _, _ = fold_outputs(X, y, ids, make, scores=False)
                per[name + tail].append(instability(pred))
    out = {k: round(float(np.mean(v)), 5) for k, v in per.items()}
    out["pair"], out["pair_2fold"] = max(out["a"], out["b"]), max(out["a_2fold"], out["b_2fold"])
    print(f"{key}: {out}", flush=True)
    return {**out, "data_sets": n_data_sets}


CLASSES = ("stable", "moderately stable", "unstable")


def boundaries(values) -> list[float]:
    """Jenks' natural breaks into three classes of the log values: the two cuts (geometric middles of their gaps)."""
    v = np.sort(np.log(np.asarray(values, dtype=float)))
    n = v.size

    def sse(part):
        return float(((part - part.mean()) ** 2).sum())

    best = min(
        ((sse(v[:i]) + sse(v[i:j]) + sse(v[j:]), i, j) for i in range(1, n - 1) for j in range(i + 1, n)),
        key=lambda t: t[0],
    )
    return [round(float(np.exp((v[k - 1] + v[k]) / 2)), 4) for k in best[1:]]


def provenance() -> dict:
    """The run the published files were written from, as ``proving-ground.md`` states it."""
    text = (PAGE / "proving-ground.md").read_text()
    what = re.search(r"Profile `(\w+)`: (\d+) scenarios, (\d+) data sets \((\d+) from (\d+) null scenarios", text)
    rows = re.search(r"Rows stored from (\S+) \(code fingerprint `(\w+)`\); page written ([^,]+), commit (\w+)", text)
    if what is None or rows is None:
        raise SystemExit("proving-ground.md: the provenance line is not where it was; update this script")
    return {
        "study": "proving_ground",
        "profile": what.group(1),
        "scenarios": int(what.group(2)),
        "data_sets": int(what.group(3)),
        "null_data_sets": int(what.group(4)),
        "null_scenarios": int(what.group(5)),
        "rows_stored": rows.group(1),
        "code_fingerprint": rows.group(2),
        "page_written": rows.group(3),
        "commit": rows.group(4),
        "files": "docs/reproduction/proving-ground/size.csv, power.csv, replicability.csv",
        "alpha": ALPHA,
        "made_by": "scripts/make_shipped_evidence.py",
    }


def _split_label(label: str) -> tuple[str, str, str]:
    test, _, rest = label.partition(" [")
    parts = rest.rstrip("]").split(", ")
    return parts[0], (parts[1] if len(parts) > 1 else ""), test


def class_rows(keys: set, size, power, repl) -> list[dict]:
    """Every procedure's evidence on the scenarios ``keys`` (nulls and alternatives of one class)."""
    size = size[size["scenario"].isin(keys)]
    power = power[power["scenario"].isin(keys) & power["truth"].isin(["A", "B"])]
    repl = repl[repl["scenario"].isin(keys)]
    rows = []
    for proc in sorted(set(size["procedure"]) | set(power["procedure"])):
        design, scheme, test = _split_label(proc)
        row = {"procedure": proc, "design": design, "scheme": scheme, "test": test}
        s = size[size["procedure"] == proc]
        if len(s):
            liberal = s[s["verdict"] == "liberal"]
            if len(liberal):
                verdict, deciding = "liberal", liberal.loc[liberal["type1_low"].idxmax()]
            else:
                verdict = "controls size" if (s["verdict"] == "controls size").all() else "unresolved"
                deciding = s.loc[s["type1_high"].idxmax()]
            row.update(
                size=verdict,
                deciding_scenario=str(deciding["scenario"]),
                deciding_type1=round(float(deciding["type1"]), 4),
                deciding_low=round(float(deciding["type1_low"]), 4),
                deciding_high=round(float(deciding["type1_high"]), 4),
                deciding_n=int(deciding["n"]),
                null_scenarios=int(len(s)),
            )
        else:
            row.update(size="no null scenario", null_scenarios=0)
        p = power[power["procedure"] == proc]
        cal = p[p["adjusted"].notna()]
        row["calibrated_units"] = int(cal["n"].sum())
        row["adjusted_units"] = int(cal["n"].sum())
        for col, name in (("adjusted", "adjusted"), ("rejecting", "power")):
            part = p if col == "rejecting" else cal
            if len(part) and part["n"].sum() > 0:
                w = part["n"].to_numpy(float) / part["n"].sum()
                mean = float(np.sum(w * part[col]))
                se = float(np.sqrt(np.sum((w * (part[f"{col}_mc_high"] - part[f"{col}_mc_low"]) / (2 * Z)) ** 2)))
                row[name if col == "rejecting" else "adjusted_power"] = round(mean, 4)
                if col == "adjusted":
                    row["adjusted_low"], row["adjusted_high"] = round(mean - Z * se, 4), round(mean + Z * se, 4)
        r = repl[repl["procedure"] == proc]
        if len(r):
            low = r.loc[r["r2"].idxmin()]
            row["sim_r2"] = round(float(low["r2"]) / 100, 4)
            row["sim_r2_scenario"] = str(low["scenario"])
        rows.append(row)
    ranked = [r for r in rows if r["size"] == "controls size" and "adjusted_low" in r]
    for r in ranked:
        r["rank"] = 1 + sum(o["adjusted_low"] > r["adjusted_high"] for o in ranked if o is not r)
        r["tied_with"] = sum(
            not (o["adjusted_low"] > r["adjusted_high"] or r["adjusted_low"] > o["adjusted_high"])
            for o in ranked
            if o is not r
        )
    return rows


def class_members(cls: dict) -> dict:
    """``{class: {"scenarios": [...], "null_scenarios": [...]}}`` from each scenario's class (``{key: class}``), the
    classes in the order of :data:`CLASSES` and the stable-against-unstable one, then ``all`` (every scenario); a
    class without a scenario is left out.  A null scenario is one by construction or by measurement
    (:func:`simstudy.apps.proving.scenarios.is_null`)."""
    from simstudy.apps.proving.scenarios import is_null
    from simstudy.apps.stability import STABLE_AGAINST_UNSTABLE

    out = {}
    for name in (*CLASSES, STABLE_AGAINST_UNSTABLE):
        keys = sorted(k for k, c in cls.items() if c == name)
        if keys:
            out[name] = {"scenarios": keys, "null_scenarios": [k for k in keys if is_null(k)]}
    out["all"] = {"scenarios": sorted(cls), "null_scenarios": sorted(k for k in cls if is_null(k))}
    return out


def build(stability: dict) -> dict:
    import pandas as pd

    from simstudy.apps.proving.scenarios import BANK

    size = pd.read_csv(PAGE / "size.csv")
    power = pd.read_csv(PAGE / "power.csv")
    repl = pd.read_csv(PAGE / "replicability.csv")
    from simstudy.apps.stability import comparison_class

    # the scenarios of the published run (the bank may have grown since it was written)
    published = set(size["scenario"]) | set(power["scenario"]) | set(repl["scenario"])
    bank = [k for k in BANK if k in published]
    stability = {k: v for k, v in stability.items() if k in published}
    cuts = boundaries([v["pair"] for v in stability.values()])
    edges = [None, *cuts, None]
    bands = {name: [edges[i], edges[i + 1]] for i, name in enumerate(CLASSES)}
    stability = {k: {**v, "class": comparison_class(v["a"], v["b"], bands)} for k, v in stability.items()}
    classes = class_members({k: stability[BANK[k].null_twin or k]["class"] for k in bank})
    for members in classes.values():
        members["procedures"] = class_rows(set(members["scenarios"]), size, power, repl)
    return {
        "provenance": provenance(),
        "stability": {
            "measure": (
                "instability of a learner: over two stratified 10-fold cv runs of a data set, the share of "
                "cases whose predicted class differs between the runs (a, b; a_2fold, b_2fold: over two 2-fold "
                "runs); of a comparison: the larger of learner A's and B's (pair, pair_2fold); its class: the "
                "band of pair, or 'stable against unstable' when the more stable learner's value is in the "
                "stable band and pair is not (simstudy.apps.stability)"
            ),
            "bands": bands,
            "seed": SEED,
            "groups": stability,
        },
        "classes": classes,
    }


def _stored_stability() -> dict:
    """The measured stability of every group the stored file holds (its classes taken out: they are derived)."""
    stored = json.loads(OUT.read_text())
    return {k: {c: x for c, x in v.items() if c != "class"} for k, v in stored["stability"]["groups"].items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-sets", type=int, default=20, help="data sets per scenario for the stability (20)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1)")
    parser.add_argument("--stability", default=None, help="read the measured stability from this JSON instead")
    parser.add_argument("--check", action="store_true", help="rebuild from the stored stability and compare")
    parser.add_argument(
        "--stored-stability",
        action="store_true",
        help="rebuild from the stability the stored file measured (after the published page was written again)",
    )
    args = parser.parse_args(argv)
    if args.check:
        stored = json.loads(OUT.read_text())
        same = json.dumps(build(_stored_stability()), sort_keys=True) == json.dumps(stored, sort_keys=True)
        print("the stored file is what the published CSVs give" if same else "the stored file differs: run again")
        return 0 if same else 1
    if args.stored_stability:
        stability = _stored_stability()
    elif args.stability:
        stability = json.loads(Path(args.stability).read_text())
    else:
        stability = measure_stability(args.data_sets, args.jobs)
    OUT.write_text(json.dumps(build(stability), indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
