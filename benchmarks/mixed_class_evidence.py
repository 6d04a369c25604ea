"""A stable learner against an unstable one: the size and power of the Conclusion's procedures on the proving
ground's ``mixed`` family, per stability class, from a stored paper-profile run of that family.

The published proving ground (``docs/reproduction/proving-ground/``) was run before the family existed, so the
evidence ``assess`` ships has no class for such pairs.  This script reads a stored run of the family alone
(``simstudy proving-ground --profile paper --scenarios mixed``), nothing simulated again but the stability:

* each null scenario's learners' instability is measured as the shipped evidence measures it
  (``scripts/make_shipped_evidence.py``: two 10-fold and two 2-fold cv runs of 20 fresh data sets), and the
  scenario (with its alternatives) takes its class by :func:`simstudy.apps.stability.comparison_class` with the
  shipped bands;
* per design, repeats pooled and class, :func:`simstudy.apps.proving.inflation.calibrate_inflation` finds the
  factor of the corrected t, its size on the class's nulls and its power, as for the shipped calibration
  (intervals simultaneous over the family's null scenarios, not the bank's), and judges the sequential design;
* the Type I error of the named procedures on every null, with its simultaneous interval and verdict.

    .venv/bin/python benchmarks/mixed_class_evidence.py results/proving_ground/paper-mixed --jobs 2
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

NAMED = ("corrected_cv_t [cv10x10]", "corrected_cv_t [5x2cv]", "corrected_resampled_t [resampled10]")


def classes_of(keys, jobs: int) -> dict:
    """The classes of the scenarios ``keys``, from their nulls' measured instability and the shipped bands."""
    from concurrent.futures import ProcessPoolExecutor

    import make_shipped_evidence as make

    from simstudy.apps.proving.scenarios import BANK
    from simstudy.apps.shipped_evidence import load_shipped
    from simstudy.apps.stability import comparison_class

    groups = sorted({BANK[k].null_twin or k for k in keys})
    with ProcessPoolExecutor(jobs) as pool:
        measured = dict(zip(groups, pool.map(make._one_group, groups, [20] * len(groups))))
    bands = load_shipped()["stability"]["bands"]
    group = {k: measured[BANK[k].null_twin or k] for k in keys}
    return make.class_members({k: comparison_class(g["a"], g["b"], bands) for k, g in group.items()}), measured


def main(argv=None) -> int:
    import pandas as pd

    from simstudy.apps.proving.inflation import calibrate_inflation
    from simstudy.apps.proving.summary import load_outcomes, procedures, size_table
    from simstudy.engine.runs import load_run
    from simstudy.statistics.size_control import SizeRule

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", type=Path, help="a stored paper-profile run of the mixed family")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args(argv)
    run = load_run("proving_ground", out=args.run, verify_plan=False)
    keys = sorted({str(c["condition"]) for c in run.manifest["plan"]})
    classes, measured = classes_of(keys, args.jobs)
    print("instability (a, b at 10 folds; a, b at 2 folds) and class of every null:")
    for k, v in measured.items():
        name = next(n for n, c in classes.items() if n != "all" and k in c["scenarios"])
        print(f"  {k}: {v['a']:.4f}, {v['b']:.4f}; {v['a_2fold']:.4f}, {v['b_2fold']:.4f} -> {name}")
    pr = procedures(load_outcomes(run, tests=sorted({n.split(" [")[0] for n in NAMED})))
    sizes = size_table(pr, SizeRule(alpha=0.05))
    sizes = sizes[sizes["procedure"].isin(NAMED)]
    cal = calibrate_inflation(run, classes=classes)
    with pd.option_context("display.width", 250, "display.max_rows", 500, "display.max_columns", 30):
        print("\nType I error % of the named procedures per null (simultaneous 95% interval), 1000s of data sets:")
        print(sizes.round(2).to_string(index=False))
        t = cal.table
        print("\nthe corrected t per design, repeats pooled and class (as the shipped calibration):")
        print(t[t["repeats pooled"].isin([1, 5])].to_string(index=False))
        print("\nthe sequential design:")
        print(cal.sequential.to_string(index=False))
    print(json.dumps({"null_scenarios": cal.null_scenarios}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
