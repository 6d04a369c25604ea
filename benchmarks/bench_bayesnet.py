"""Time the vectorised Bayesian-network sampler against pgmpy's forward sampler.

Reproduce with::

    .venv/bin/python benchmarks/bench_bayesnet.py [--sets 200] [--source bouckaert4]

Workload (Bouckaert 2004, Sec. 4): data sets of 300 cases from a stored source
(10 binary attributes and the class).  Contenders:

* ``pgmpy``: ``BayesianModelSampling(model).forward_sample(size=300, n_jobs=1)`` per data set
  (the baseline; it returns a pandas DataFrame, converted to arrays here);
* ``loop``: ``BayesNetSource.sample(300, rng)`` per data set;
* ``batch``: one ``BayesNetSource.sample(300, rng, n_sets=...)`` call for all sets;
* ``test set``: one 10,000-case test set per call (the paper's test-set size).

Prints seconds per data set and the speed-up against pgmpy.  The numbers vary
with the load of the machine; run it on an idle one and compare ratios.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from simstudy.pipeline.sources.bayesnet import load_source


def per_set(fn, n_sets, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best / n_sets


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=200, help="data sets of 300 cases per timing (default 200)")
    ap.add_argument("--pgmpy-sets", type=int, default=10, help="data sets drawn by pgmpy (it is slow; default 10)")
    ap.add_argument("--source", default="bouckaert4")
    args = ap.parse_args(argv)

    src = load_source(args.source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from pgmpy.sampling import BayesianModelSampling

        sampler = BayesianModelSampling(src.to_pgmpy())

    def pgmpy_loop():
        for i in range(args.pgmpy_sets):
            df = sampler.forward_sample(size=300, seed=i, show_progress=False, n_jobs=1)
            df[list(src.attribute_names)].to_numpy(), df[src.class_name].to_numpy()

    def loop():
        rng = np.random.default_rng(0)
        for _ in range(args.sets):
            src.sample(300, rng)

    def batch():
        src.sample(300, np.random.default_rng(0), n_sets=args.sets)

    def test_sets():
        rng = np.random.default_rng(0)
        for _ in range(10):
            src.sample(10_000, rng)

    rows = [
        ("pgmpy forward_sample, 300 cases", per_set(pgmpy_loop, args.pgmpy_sets, repeat=1)),
        ("sample(300) in a loop", per_set(loop, args.sets)),
        (f"sample(300, n_sets={args.sets})", per_set(batch, args.sets)),
        ("sample(10000) in a loop", per_set(test_sets, 10)),
    ]
    base = rows[0][1]
    print(f"source {args.source}: {src.n_attributes} attributes, {src.n_arcs} arcs")
    print(f"{'contender':36s} {'s per data set':>15s} {'speed-up vs pgmpy':>18s}")
    for name, sec in rows:
        print(f"{name:36s} {sec:15.2e} {base / sec:18.1f}")


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        main()
