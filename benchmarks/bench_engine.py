"""The engine's parallel speed-up and its overhead per replication.

Reproduce with::

    .venv/bin/python benchmarks/bench_engine.py [--reps 60] [--study berrar3]

* Speed-up: the same study and replications run by the engine with 1 and with 2 loky
  workers (fresh output directories), wall time ratio.
* Overhead: the engine with 1 worker (seeding, row building, Parquet chunks,
  checksums, manifest, progress bar off) against a plain loop that calls the study's
  ``replicate`` with the same seeds and keeps the returned rows in memory.

The demo study (replications of a few milliseconds) is the worst case for the
overhead; a Berrar study is the realistic case.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

import numpy as np

from simstudy.engine import Profile, get_study, run_study
from simstudy.engine.seeds import replication_seed
from simstudy.engine.study import condition_key


def with_reps(study, reps):
    base = study.profiles["smoke"]
    return dataclasses.replace(study, profiles={"bench": Profile("bench", reps, settings=dict(base.settings))})


def plain_loop(study):
    prof = study.profiles["bench"]
    rows = []
    for cond in study.conditions_for(prof):
        key = condition_key(cond)
        for r in range(prof.n_replications):
            rows.append(study.replicate(cond, np.random.default_rng(replication_seed(20040707, study.name, key, r))))
    return rows


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--study", default="berrar3")
    ap.add_argument("--reps", type=int, default=60)
    ap.add_argument("--demo-reps", type=int, default=400)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        study = with_reps(get_study(args.study), args.reps)
        loop = timed(lambda: plain_loop(study))
        one = timed(lambda: run_study(study, "bench", out=tmp / "j1", jobs=1, progress=False))
        two = timed(lambda: run_study(study, "bench", out=tmp / "j2", jobs=2, progress=False))
        print(f"{args.study}, {args.reps} replications per condition:")
        print(
            f"  plain loop {loop:.2f} s (1.000)   engine jobs=1 {one:.2f} s ({one / loop:.3f})   "
            f"engine jobs=2 {two:.2f} s ({two / loop:.3f})"
        )
        print(
            f"  speed-up 2 workers over 1: {one / two:.2f}x;  engine overhead at 1 worker: {100 * (one / loop - 1):+.1f}%"
        )
        if not args.demo_reps:
            return
        demo = with_reps(get_study("demo"), args.demo_reps)
        loop = timed(lambda: plain_loop(demo))
        one = timed(lambda: run_study(demo, "bench", out=tmp / "d1", jobs=1, progress=False))
        print(f"demo, {args.demo_reps} replications per condition (tiny replications, worst case):")
        print(
            f"  plain loop {loop:.2f} s (1.000)   engine jobs=1 {one:.2f} s ({one / loop:.3f});  "
            f"overhead {1000 * (one - loop) / (2 * args.demo_reps):.2f} ms per replication"
        )


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        main()
