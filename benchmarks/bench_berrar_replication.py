"""CPU seconds of one replication of Berrar's studies 1 and 2, for comparing two versions of the code.

Reproduce with::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_berrar_replication.py [--reps 5]
    OMP_NUM_THREADS=1 PYTHONPATH=/path/to/older/checkout .venv/bin/python benchmarks/bench_berrar_replication.py

Times ``berrar.benchmark_replicate`` (Algorithm 2: NB and SVM fitted and tested on
each data set of a group, both tests) on ``--reps`` seeds after one warm-up
replication, for study 1's group 3 (20 data sets from 350 to 540 cases) and two
groups of study 2's design (44 data sets, a = 200 and a = 560).  Process CPU time,
so that other jobs on the machine disturb it less than wall time; run the versions
in turn, more than once.  The first line printed names the learners' module, to
show which version ran.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="timed replications per group (default 5)")
    args = parser.parse_args(argv)
    if args.reps < 1:
        parser.error("--reps: must be at least 1")

    from simstudy.pipeline.learners import rdefaults
    from simstudy.protocols import berrar

    print(f"learners: {rdefaults.__file__}")
    for label, start, n_datasets in (
        ("study 1, group 3", 340, 20),
        ("study 2 design, a = 200", 200, 44),
        ("study 2 design, a = 560", 560, 44),
    ):
        group = berrar.BenchmarkGroup(3, start, n_datasets)
        berrar.benchmark_replicate(group, np.random.default_rng(10_000))  # warm-up
        t0 = time.process_time()
        for r in range(args.reps):
            berrar.benchmark_replicate(group, np.random.default_rng(r))
        print(f"{label}: {(time.process_time() - t0) / args.reps:.3f} CPU s per replication", flush=True)
    return 0


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        raise SystemExit(main())
