"""Seconds per fold of each shipped UCI data set with NB, J48 and IB1: the cost model of the UCI studies.

Reproduce with (one BLAS thread, as in a study's worker)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_uci_folds.py [--runs 2]

For every shipped data set, one replication of ``bouckaert2`` with ``--runs``
10-fold cross-validations (the three learners fitted once per fold, Weka's IB1
evaluation, the sorted-runs tests) is timed in this process by its CPU time,
which other jobs on the machine change little, and divided by the number of
folds.  It measures one process alone; the UCI studies' wall-time estimates
use the seconds per fold of each set as 2 workers pay them, fitted to stored
runs by ``benchmarks/bench_estimates.py --fit``.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np


def main(argv=None) -> int:
    from simstudy.engine import get_study
    from simstudy.pipeline.data.uci import uci_datasets

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args(argv)
    study = get_study("bouckaert2")
    conds = {c.dataset: c for c in study.conditions_for(study.profile("paper"))}
    for warm in ("iris", "vehicle"):  # imports and compiled kernels loaded before timing
        study.replicate(dataclasses.replace(conds[warm], n_runs=1), np.random.default_rng(0))
    out = {}
    for name in uci_datasets():
        cond = dataclasses.replace(conds[name], n_runs=args.runs)
        t0 = time.process_time()
        study.replicate(cond, np.random.default_rng(1))
        out[name] = (time.process_time() - t0) / (10 * args.runs)
        print(f"{name}: {out[name]:.4f} s per fold", flush=True)
    print("{" + ", ".join(f'"{k}": {v:.4f}' for k, v in out.items()) + "}")
    print(f"Table 2 at the paper profile (100 cvs of 10 folds per set), one core: {sum(out.values()) * 1000:.0f} s")
    return 0


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        raise SystemExit(main())
