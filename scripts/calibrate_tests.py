"""Calibrate the t-test of every sampling scheme on Bouckaert's null source and write the shipped table.

Reproduce with::

    python scripts/calibrate_tests.py results/bouckaert1/paper [--out simstudy/pipeline/data/calibrated_df.json]
    python scripts/calibrate_tests.py results/bouckaert1/paper --measure

``--measure`` leaves the table alone and measures the registered calibrated tests
on the run's stored per-fold scores, beside the uncalibrated t-test of the same
scheme: Type I error on the held-out null data sets, power on sources 2-4 (none
of which was used to calibrate) and R2 over the ten experiments of a data set.

It reads the stored outcome rows of a ``bouckaert1`` run (the paired t-test of
each scheme on source 1, where C4.5 and naive Bayes have the same expected
accuracy), calibrates the degrees of freedom on the even-numbered data sets
(:func:`simstudy.pipeline.calibrated.calibration_table`, with a bootstrap interval over
data sets) and measures the calibrated test's Type I error on the odd-numbered
ones, beside the uncalibrated t-test's.  The table records the run it came from.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a stored bouckaert1 run directory")
    parser.add_argument("--out", type=Path, default=Path("simstudy/pipeline/data/calibrated_df.json"))
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--measure", action="store_true", help="measure the shipped calibrated tests instead")
    args = parser.parse_args(argv)
    if args.measure:
        return measure(args.run, args.alpha)

    from simstudy.engine import load_run
    from simstudy.pipeline.calibrated import calibration_table
    from simstudy.statistics.intervals import clopper_pearson as cp

    run = load_run("bouckaert1", out=args.run)
    rows = run.table("outcomes")
    null = rows[(rows["source"] == "bouckaert1") & (rows["test"] == "t")]
    if not len(null):
        print(f"{args.run}: no paired t rows on source bouckaert1", file=sys.stderr)
        return 2
    design = null.iloc[0]
    calib = null[null["replication"] % 2 == 0]
    check = null[null["replication"] % 2 == 1]
    table = calibration_table(calib, alpha=args.alpha)
    schemes = {}
    for _, r in table.iterrows():
        held = check[check["scheme"] == r["scheme"]]["statistic"].to_numpy(float)
        held = held[np.isfinite(held)]
        crit = stats.norm.ppf(1 - args.alpha / 2) if math.isinf(r["df"]) else stats.t.ppf(1 - args.alpha / 2, r["df"])
        k = int((np.abs(held) > crit).sum())
        plain = check[check["scheme"] == r["scheme"]]
        k_plain = int((plain["pvalue"] <= args.alpha).sum())
        lo, hi = cp(k, held.size)
        lo0, hi0 = cp(k_plain, len(plain))
        schemes[r["scheme"]] = {
            "df": r["df"],
            "df_low": r["df_low"],
            "df_high": r["df_high"],
            "calibration_datasets": r["n_datasets"],
            "calibration_statistics": r["n_statistics"],
            "holdout_type1": k / held.size,
            "holdout_type1_interval": [lo, hi],
            "holdout_statistics": int(held.size),
            "uncalibrated_type1": k_plain / len(plain),
            "uncalibrated_type1_interval": [lo0, hi0],
        }
    record = {
        "method": "calibrated degrees of freedom of the paired t statistic of each sampling scheme: "
        "t_{df, 1 - alpha/2} equals the 1 - alpha quantile of |t| on the null source "
        "(even-numbered data sets); Type I error checked on the odd-numbered ones",
        "alpha": args.alpha,
        "design": {
            "shape": [int(design["n_runs"]), int(design["n_folds"])],
            "n_cases": int(design["n_cases"]),
            "learners": "C4.5 (J48) vs naive Bayes",
            "source": "bouckaert1 (independent attributes)",
        },
        "from_run": {
            "directory": str(args.run),
            "profile": run.manifest.get("profile"),
            "config_hash": run.manifest.get("config_hash"),
            "root_seed": run.manifest.get("root_seed"),
        },
        "schemes": schemes,
    }
    args.out.write_text(json.dumps(record, indent=1, default=lambda v: None if v is None else float(v)) + "\n")
    for name, s in schemes.items():
        print(
            f"{name:26s} df {s['df']:8.3g} [{s['df_low']:.3g}, {s['df_high']:.3g}]  held-out Type I "
            f"{100 * s['holdout_type1']:.1f}% [{100 * s['holdout_type1_interval'][0]:.1f}, "
            f"{100 * s['holdout_type1_interval'][1]:.1f}]  uncalibrated {100 * s['uncalibrated_type1']:.1f}%"
        )
    print(f"wrote {args.out}")
    return 0


def measure(run_dir: Path, alpha: float) -> int:
    """Type I error (held-out nulls), power and R2 of the calibrated tests beside the uncalibrated t-tests."""
    import pandas as pd

    from simstudy.engine import load_run
    from simstudy.pipeline.outcomes import get_test
    from simstudy.pipeline.schemes import SCHEMES
    from simstudy.statistics.intervals import clopper_pearson as cp
    from simstudy.statistics.replicability import r2

    run = load_run("bouckaert1", out=run_dir)
    sc = run.table("scores").sort_values(["source", "replication", "experiment", "run", "fold"], kind="stable")
    rows = []
    for source, grp in sc.groupby("source", sort=True):
        if source == "bouckaert1":
            grp = grp[grp["replication"] % 2 == 1]  # the data sets the calibration did not see
        n_sets = grp["replication"].nunique()
        e = int(grp["experiment"].max()) + 1
        r, k = int(grp["run"].max()) + 1, int(grp["fold"].max()) + 1
        d = (grp["acc_a"].to_numpy() - grp["acc_b"].to_numpy()).reshape(n_sets, e, r, k)
        for scheme in SCHEMES:
            for name, label in ((f"calibrated_t_{scheme}", "calibrated"), ("paired_t", "uncalibrated")):
                spec = get_test(name)
                x = d if spec.takes == "cv" else scheme_sample_of(d, scheme)
                dec = np.asarray(spec(x).decision(alpha))
                rate = float((dec != 0).mean())
                lo, hi = cp(int((dec != 0).sum()), dec.size)
                rows.append(
                    {
                        "source": source,
                        "scheme": scheme,
                        "test": label,
                        "rate": rate,
                        "low": lo,
                        "high": hi,
                        "R2": float(np.mean(r2(dec))),
                        "datasets": n_sets,
                    }
                )
    table = pd.DataFrame(rows)
    wide = table.pivot_table(index=["scheme", "test"], columns="source", values=["rate", "R2"])
    pd.set_option("display.width", 200)
    print((wide * 100).round(1).to_string())
    return 0


def scheme_sample_of(d, scheme):
    from simstudy.pipeline.schemes import scheme_sample

    return scheme_sample(d, scheme)


if __name__ == "__main__":
    raise SystemExit(main())
