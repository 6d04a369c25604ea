"""Scaling of Berrar's study 4 on a dask cluster of local worker processes.

Reproduce with::

    .venv/bin/python benchmarks/bench_dask_scaling.py [--reps 24] [--workers 1 2 4] [--d 24] [--before 2]

For each number of workers it starts a ``LocalCluster`` (one thread per worker
process and oneDAL limited to one thread per task, as ``simstudy run --backend
dask`` does), lets every worker run one warm-up replication (imports,
compilation, the oneDAL forest's first call), then submits ``--reps``
replications of the paper profile's condition ``d`` and times them until the
last result is back.  Printed per cluster: wall time, replications per second,
speed-up over one worker and scaling efficiency (speed-up / workers).
``--before N`` adds a cluster of N workers without the thread limit (the engine
before it registered one: oneDAL took every core in each worker), timed in the
same run.

The projection divides the paper profile's core-seconds (27 conditions x 1000
replications, the cost per replication measured at ``d`` with one worker, which
is near the average over d = 4..30) by the number of cores and multiplies by the
efficiency measured at the largest cluster that still had a core per worker; it
leaves out the scheduler's start-up and the client's writing of rows.
"""

from __future__ import annotations

import argparse
import os
import time


def _one(args):
    """One replication of study 4 (runs on a worker)."""
    condition, replication = args
    from simstudy.engine import replay

    replay("berrar4", condition, replication, profile="paper")
    return replication


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=24, help="replications timed per cluster (default 24)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4], help="cluster sizes (default 1 2 4)")
    parser.add_argument("--d", type=int, default=24, help="the condition's number of features (default 24)")
    parser.add_argument(
        "--before",
        type=int,
        nargs="*",
        default=[],
        metavar="N",
        help="also time N workers without the engine's oneDAL thread limit",
    )
    args = parser.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    from simstudy.engine import get_study
    from simstudy.engine.study import condition_key
    from simstudy.engine.threads import NATIVE_THREADS_PLUGIN, native_threads_plugin

    study = get_study("berrar4")
    paper = study.profile("paper")
    conds = [c for c in study.conditions_for(paper) if getattr(c, "d", None) == args.d]
    if not conds:
        parser.error(f"--d: no condition with d = {args.d} in berrar4/paper")
    cond = condition_key(conds[0])
    n_conditions = len(study.conditions_for(paper))
    cores = os.cpu_count()
    print(f"berrar4 paper, condition {cond}, {args.reps} replications per cluster, {cores} cores")
    print("| workers | oneDAL threads per worker | wall time (s) | replications / s | speed-up | efficiency |")
    print("|---:|---|---:|---:|---:|---:|")
    base = None
    results = {}
    runs = [(n, True) for n in args.workers] + [(n, False) for n in args.before]
    for n, limited in runs:
        with (
            LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
            Client(cluster) as client,
        ):
            if limited:
                client.register_plugin(native_threads_plugin(), name=NATIVE_THREADS_PLUGIN)
            warm = client.map(_one, [(cond, 999 - i) for i in range(n)], pure=False)
            client.gather(warm)
            t0 = time.perf_counter()
            futs = client.map(_one, [(cond, i) for i in range(args.reps)], pure=False)
            client.gather(futs)
            wall = time.perf_counter() - t0
        rate = args.reps / wall
        base = base or rate
        if limited:
            results[n] = (wall, rate / base)
        threads = "1 (the engine's limit)" if limited else "all (no limit)"
        print(f"| {n} | {threads} | {wall:.1f} | {rate:.3f} | {rate / base:.2f}x | {rate / base / n:.0%} |", flush=True)
    per_rep = results[args.workers[0]][0] / args.reps * args.workers[0]
    usable = [n for n in args.workers if n <= (cores or 1)]
    eff = results[max(usable)][1] / max(usable) if usable else 1.0
    total = per_rep * n_conditions * paper.n_replications
    print(f"core-seconds per replication (1 worker): {per_rep:.2f}; paper profile {total / 3600:.1f} core-hours")
    for c in (2, 32, 256):
        print(f"projected paper-scale wall time on {c} cores at {eff:.0%} efficiency: {total / c / eff / 60:.0f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
