"""Time Weka 3.6 itself on Bouckaert's Table 2 workload, for comparison with our stored run.

Usage: .venv/bin/python benchmarks/weka/time_table2.py [--runs 10] [--ours]

For every shipped UCI data set and each of NaiveBayes, J48 and IB1, Weka's command
line runs ``--runs`` 10-fold cross-validations (``-x 10 -s SEED -o -v``: one JVM
per cross-validation; Weka also fits one model on all the data each time, 11 fits
instead of 10).  The start-up of the JVM is measured with ZeroR on the same file
and subtracted.  Table 2 at the paper profile is 10 experiments x 10 runs = 100
cross-validations per data set and learner, so the script multiplies by 100 / runs.
Our time for the same workload is the compute time in the stored run's manifest
(``results/bouckaert2/paper/manifest.json``); with ``--ours`` it is also measured
in the same run, data set by data set right after Weka's: one replication of
``bouckaert2`` (the three learners on ``--runs`` 10-fold cross-validations,
sorted-runs tests included) in this process, times 100 / runs.
"""

from __future__ import annotations

import argparse
import subprocess
import time

from simstudy.data.uci import _DIR, uci_datasets, uci_provenance

JAR = "/usr/share/java/weka.jar"
CLASSES = {"NaiveBayes": "weka.classifiers.bayes.NaiveBayes", "J48": "weka.classifiers.trees.J48",
           "IB1": "weka.classifiers.lazy.IB1", "ZeroR": "weka.classifiers.rules.ZeroR"}


def cv_seconds(cls, path, seed):
    t0 = time.perf_counter()
    subprocess.run(["java", "-cp", JAR, cls, "-t", str(path), "-x", "10", "-s", str(seed), "-o", "-v"],
                   capture_output=True, check=True)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--ours", action="store_true", help="also time our replication of each data set")
    args = ap.parse_args()
    total = ours_total = 0.0
    if args.ours:
        import dataclasses

        import numpy as np

        from simstudy.engine import get_study

        study = get_study("bouckaert2")
        conds = {c.dataset: c for c in study.conditions_for(study.profile("paper"))}
        study.replicate(dataclasses.replace(conds["iris"], n_runs=1), np.random.default_rng(0))  # warm-up: imports
    print("| data set | NaiveBayes | J48 | IB1 | (JVM start-up, ZeroR) | per 100 cvs, all three |"
          + (" ours, per 100 cvs | ours / Weka |" if args.ours else ""))
    print("|---|---|---|---|---|---|" + ("---|---|" if args.ours else ""))
    for name in uci_datasets():
        path = _DIR / uci_provenance()[name]["file"]
        startup = min(cv_seconds(CLASSES["ZeroR"], path, s) for s in range(1, 4))
        secs = {}
        for learner in ("NaiveBayes", "J48", "IB1"):
            secs[learner] = sum(max(cv_seconds(CLASSES[learner], path, s) - startup, 0.0)
                                for s in range(1, args.runs + 1)) * 100 / args.runs
        row = sum(secs.values())
        total += row
        extra = ""
        if args.ours:
            cond = dataclasses.replace(conds[name], n_runs=args.runs)
            t0 = time.perf_counter()
            study.replicate(cond, np.random.default_rng(1))
            ours = (time.perf_counter() - t0) * 100 / args.runs
            ours_total += ours
            extra = f" {ours:.1f} s | {ours / row:.2f} |"
        print(f"| {name} | {secs['NaiveBayes']:.1f} s | {secs['J48']:.1f} s | {secs['IB1']:.1f} s | {startup:.2f} s "
              f"| {row:.1f} s |" + extra, flush=True)
    print(f"Weka 3.6, Table 2 at the paper profile ({len(uci_datasets())} data sets x 3 learners x 100 cvs), "
          f"one core: {total:.0f} s")
    if args.ours:
        print(f"ours, the same workload, one core: {ours_total:.0f} s ({ours_total / total:.2f} of Weka's time, "
              f"Weka {ours_total / total:.2f}x faster)" if ours_total > total else
              f"ours, the same workload, one core: {ours_total:.0f} s ({ours_total / total:.2f} of Weka's time, "
              f"{total / ours_total:.2f}x faster than Weka)")


if __name__ == "__main__":
    main()
