"""Cost of the factors study (``bouckaert_factors``) per replication, by factor, and its projected paper-scale time.

Reproduce with::

    .venv/bin/python benchmarks/bench_factors.py [--reps 2]

For the first condition of each factor (runs, prior, classes, pairs) it replays
``--reps`` replications in this process (the engine's own seeds, after one
warm-up replication that pays any compilation) and prints the seconds per
replication.  The projection multiplies each factor's cost by its number of
conditions and the paper profile's replications and divides by two workers; it
leaves out start-up and assumes every condition of a factor costs what its
first does (sources of one factor differ a little).

To compare two versions of the code, run the script under each in turn (for
example with ``PYTHONPATH`` pointing at an exported copy of the older commit);
the printed ``total`` line is the figure to compare.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2, help="replications timed per factor (default 2)")
    parser.add_argument("--workers", type=int, default=2, help="workers assumed by the projection (default 2)")
    args = parser.parse_args(argv)

    from simstudy.engine import get_study, replay
    from simstudy.engine.study import condition_key

    study = get_study("bouckaert_factors")
    paper = study.profile("paper")
    conditions = study.conditions_for(paper)
    kinds = Counter(c.factor for c in conditions)
    total = 0.0
    for factor, count in kinds.items():
        first = condition_key(next(c for c in conditions if c.factor == factor))
        replay(study, first, 0, profile="paper")  # warm-up: compilation, caches
        t0 = time.perf_counter()
        for i in range(1, args.reps + 1):
            replay(study, first, i, profile="paper")
        per = (time.perf_counter() - t0) / args.reps
        part = per * count * paper.n_replications / args.workers
        total += part
        print(f"{factor:8s} {per:7.3f} s per replication x {count:2d} conditions -> {part / 60:6.1f} min")
    print(f"total    projected paper-scale wall time on {args.workers} workers: {total / 60:.1f} min")
    return 0


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        raise SystemExit(main())
