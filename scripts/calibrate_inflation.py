"""Write the calibration of the inflated corrected t that ``assess`` ships, from a stored paper-profile proving ground.

The calibration itself (per design, number of repeats pooled and stability
class: the factor, calibrated on the data sets with an even replication number
and validated on the odd ones) is :func:`simstudy.apps.proving.inflation.calibrate_inflation`;
the proving ground's page shows the same table, computed from the same rows.
This script writes it, with the run's provenance, to
``simstudy/pipeline/data/inflation.json``, and prints the rows of 1, 5 and 10
repeats pooled.  Nothing is simulated again.

    .venv/bin/python scripts/calibrate_inflation.py RUN_DIR     # about a minute on the paper profile
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "simstudy" / "pipeline" / "data" / "inflation.json"


def main(argv=None) -> int:
    import pandas as pd

    from simstudy.apps.proving.inflation import GRID, calibrate_inflation
    from simstudy.engine.runs import load_run

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a stored paper-profile proving ground (its run directory)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"where the calibration goes (default {OUT})")
    args = parser.parse_args(argv)
    run = load_run("proving_ground", out=args.run, verify_plan=False)
    cal = calibrate_inflation(run)
    prov = run.manifest.get("provenance", {})
    out = {
        "made_by": "scripts/calibrate_inflation.py",
        "alpha": cal.alpha,
        "grid": list(GRID),
        "rule": (
            "per design, number of repeats pooled and stability class, the smallest factor of the grid at which "
            "every null scenario of the class has a Type I error at most alpha and controls size (intervals "
            f"simultaneous over the proving ground's {cal.null_scenarios} null scenarios) on the data sets with an "
            "even replication number; judged again, with its power, on those with an odd one"
        ),
        "procedures": cal.procedures,
        "tests": cal.tests,
        "evidence": cal.evidence,
        "provenance": {
            "study": run.manifest.get("study"),
            "profile": run.manifest.get("profile"),
            "root_seed": run.manifest.get("root_seed"),
            "code_fingerprint": str(prov.get("code", ""))[:12],
            "rows_stored": str(run.manifest.get("created", ""))[:10],
            "held_out": "data sets with an odd replication number",
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    with pd.option_context("display.width", 250, "display.max_rows", 500):
        print(cal.shown().to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
