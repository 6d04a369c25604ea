"""Time Weka 3.6 itself on the workload of a UCI study, side by side with ours.

Usage::

    .venv/bin/python benchmarks/weka/time_uci.py [--study bouckaert2] [--runs 10] [--ours]
    .venv/bin/python benchmarks/weka/time_uci.py --study bouckaert_frank_uci --runs 2 --two-fold 2 --ours

For every shipped UCI data set and each of NaiveBayes, J48 and IB1, Weka's command
line runs ``--runs`` 10-fold cross-validations (``-x 10 -s SEED -o -v``: one JVM
per cross-validation; Weka also fits one model on all the data each time, 11 fits
instead of 10).  The start-up of the JVM is measured with ZeroR on the same file
and subtracted.  The times are scaled to the study's paper profile:

* ``bouckaert2`` (Table 2): 10 experiments x 10 runs = 100 ten-fold
  cross-validations per data set and learner, so Weka's time is multiplied by
  100 / runs.  Ours (``--ours``): one replication of ``bouckaert2`` with ``--runs``
  runs of 10-fold cv (the three learners, the sorted-runs tests included), times
  100 / runs.
* ``bouckaert_frank_uci``: 10 repetitions, each of 5 x 2 folds, 100 subsamples
  (90% for training, 10% for testing) and 10 x 10 folds.  The 100 subsamples are
  the same number of fits on the same share of the data as 10 ten-fold
  cross-validations, so Weka's ten-fold time is multiplied by 200 / runs; Weka
  also runs ``--two-fold`` 2-fold cross-validations (``-x 2``), multiplied by
  50 / two-fold.  Ours: one replication of ``bouckaert_frank_uci`` at the paper
  profile (one repetition: all three designs and every test), times 10.

Our side runs in this process, data set by data set right after Weka's, after a
warm-up replication that pays for the imports.
"""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import time

from simstudy.pipeline.data.uci import _DIR, uci_datasets, uci_provenance

JAR = "/usr/share/java/weka.jar"
CLASSES = {
    "NaiveBayes": "weka.classifiers.bayes.NaiveBayes",
    "J48": "weka.classifiers.trees.J48",
    "IB1": "weka.classifiers.lazy.IB1",
    "ZeroR": "weka.classifiers.rules.ZeroR",
}
STUDIES = ("bouckaert2", "bouckaert_frank_uci")


def cv_seconds(cls, path, seed, folds=10):
    t0 = time.perf_counter()
    subprocess.run(
        ["java", "-cp", JAR, cls, "-t", str(path), "-x", str(folds), "-s", str(seed), "-o", "-v"],
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - t0


def weka_seconds(learner, path, startup, args):
    """Weka's time for one learner on one data set, scaled to the study's paper profile."""
    ten = sum(max(cv_seconds(CLASSES[learner], path, s) - startup, 0.0) for s in range(1, args.runs + 1))
    if args.study == "bouckaert2":
        return ten * 100 / args.runs
    two = sum(max(cv_seconds(CLASSES[learner], path, s, folds=2) - startup, 0.0) for s in range(1, args.two_fold + 1))
    return ten * 200 / args.runs + two * 50 / args.two_fold


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--study", choices=STUDIES, default="bouckaert2")
    ap.add_argument("--runs", type=int, default=10, help="10-fold cross-validations Weka runs per data set and learner")
    ap.add_argument(
        "--two-fold",
        type=int,
        default=5,
        help="2-fold cross-validations Weka runs per data set and learner (bouckaert_frank_uci)",
    )
    ap.add_argument("--ours", action="store_true", help="also time our replication of each data set")
    args = ap.parse_args()
    if args.runs < 1 or args.two_fold < 1:
        ap.error("--runs and --two-fold must be at least 1")
    total = ours_total = 0.0
    if args.ours:
        import numpy as np

        from simstudy.engine import get_study

        study = get_study(args.study)
        conds = {c.dataset: c for c in study.conditions_for(study.profile("paper"))}
        warm = (
            dataclasses.replace(conds["iris"], n_runs=1)
            if args.study == "bouckaert2"
            else dataclasses.replace(conds["iris"], n_resamples=10, n_cv_runs=1)
        )
        study.replicate(warm, np.random.default_rng(0))  # warm-up: imports and compilation
    print(
        "| data set | NaiveBayes | J48 | IB1 | (JVM start-up, ZeroR) | Weka, all three |"
        + (" ours | ours / Weka |" if args.ours else "")
    )
    print("|---|---|---|---|---|---|" + ("---|---|" if args.ours else ""))
    for name in uci_datasets():
        path = _DIR / uci_provenance()[name]["file"]
        startup = min(cv_seconds(CLASSES["ZeroR"], path, s) for s in range(1, 4))
        secs = {learner: weka_seconds(learner, path, startup, args) for learner in ("NaiveBayes", "J48", "IB1")}
        row = sum(secs.values())
        total += row
        extra = ""
        if args.ours:
            if args.study == "bouckaert2":
                cond, scale = dataclasses.replace(conds[name], n_runs=args.runs), 100 / args.runs
            else:
                cond, scale = conds[name], 10
            t0 = time.perf_counter()
            study.replicate(cond, np.random.default_rng(1))
            ours = (time.perf_counter() - t0) * scale
            ours_total += ours
            extra = f" {ours:.1f} s | {ours / row:.2f} |"
        print(
            f"| {name} | {secs['NaiveBayes']:.1f} s | {secs['J48']:.1f} s | {secs['IB1']:.1f} s | {startup:.2f} s "
            f"| {row:.1f} s |" + extra,
            flush=True,
        )
    print(
        f"Weka 3.6, {args.study} at the paper profile ({len(uci_datasets())} data sets x 3 learners), "
        f"one core: {total:.0f} s"
    )
    if args.ours:
        faster = (
            f"Weka {ours_total / total:.2f}x faster"
            if ours_total > total
            else f"{total / ours_total:.2f}x faster than Weka"
        )
        print(
            f"ours, the same workload, one core: {ours_total:.0f} s ({ours_total / total:.2f} of Weka's time, {faster})"
        )


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        main()
