"""How often the interval of ``simstudy solve`` holds the true root, on curves whose root is known.

Reproduce with::

    .venv/bin/python benchmarks/solve_coverage.py [--seeds 1000] [--first 1000] [--curve NAME ...]
                                                  [--budget 20] [--tolerance 19]

The studies are those of ``tests/engine/test_solve.py``: the quantity at n is
a known curve plus Gaussian noise of sd 0.002 per replication, target 0.05,
root n = 400, searched on (50, 1000) with blocks of 20 replications, the
default tolerance (19) and budget (20 blocks) unless given.  The curves: ``inverse-sqrt``
(1/sqrt(n)), ``decreasing`` (0.05 (400/n)^2), ``increasing`` (a logistic
0.1 / (1 + exp(-(n - 400)/100))) and ``flat`` (0.05 + 0.05 ((n - 400)/600)^3,
within 0.0005 of the target from n = 290 to 510).

The search is the one ``solve`` makes (:class:`simstudy.engine.solve._Root`,
values validated and stepped by :meth:`simstudy.engine.solve._Search.snap`);
the replications are made in this process, block b and replication r seeded
by (seed, b, r) at every value (common random numbers, as the engine's seeds
give), instead of being stored: a thousand searches take minutes, not hours.
It prints, per curve, the answers, how many intervals miss the root, and the
median and largest width.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _tests():
    spec = importlib.util.spec_from_file_location("solve_tests", ROOT / "tests" / "engine" / "test_solve.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    tests = _tests()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1000, help="searches per curve (default 1000)")
    parser.add_argument("--first", type=int, default=1000, help="the first seed (default 1000)")
    parser.add_argument("--curve", nargs="+", default=list(tests.CURVES), choices=list(tests.CURVES))
    parser.add_argument("--budget", type=int, default=20, help="blocks per search (default 20)")
    parser.add_argument("--tolerance", type=float, default=19, help="interval width aimed at (default 19)")
    args = parser.parse_args(argv)
    print(
        f"{'curve':<13} {'searches':>8} {'solved':>6} {'unresolved':>10} {'misses':>6} {'median width':>12} {'max':>5}"
    )
    for curve in args.curve:
        study = tests.curve_study(curve)
        status, misses, widths = {}, 0, []
        for seed in range(args.first, args.first + args.seeds):
            answer = tests.search_in_memory(study, seed, tolerance=args.tolerance, budget=args.budget)
            status[answer["status"]] = status.get(answer["status"], 0) + 1
            if answer["interval"] is not None:
                lo, hi = answer["interval"]
                widths.append(hi - lo)
                misses += not lo <= tests.ROOT <= hi
        print(
            f"{curve:<13} {args.seeds:>8} {status.get('solved', 0):>6} {status.get('unresolved', 0):>10} "
            f"{misses:>6} {np.median(widths):>12g} {max(widths):>5g}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
