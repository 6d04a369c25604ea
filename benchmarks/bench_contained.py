"""What containing user learners costs: ``simstudy assess`` with its learners in worker processes (the
default) against ``--in-process``, on the same work.

The work: the designs of ``--full`` (cv10x10, 5x2cv and resampled10; the default when this was first
measured) repeated ``--repeats`` times for two fast scikit-learn learners given as ``module:NAME``
(Gaussian naive Bayes against a decision tree) on scikit-learn's breast-cancer data (569 cases, 30
attributes): 480 fits per repeat, each a millisecond or two, so the worker's round trip per fit weighs
as much as it ever does.  Both contenders run in
turn, round by round, each as a fresh process (start-up included); the ratio is the median of the
per-round ratios::

    .venv/bin/python benchmarks/bench_contained.py --rounds 3 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args(argv)
    from sklearn.datasets import load_breast_cancer

    with tempfile.TemporaryDirectory(prefix="bench-contained-") as tmp:
        frame = load_breast_cancer(as_frame=True).frame
        data = Path(tmp) / "breast_cancer.csv"
        frame.to_csv(data, index=False)
        base = [sys.executable, "-m", "simstudy.cli", "assess", str(data), "--quiet", "--results", "none"]
        base += ["--a", "sklearn.naive_bayes:GaussianNB", "--b", "sklearn.tree:DecisionTreeClassifier"]
        base += ["--designs", "cv10x10", "5x2cv", "resampled10", "--repeats", str(args.repeats)]
        ratios, times = [], {"contained": [], "in-process": []}
        for r in range(args.rounds):
            for name, extra in (("contained", []), ("in-process", ["--in-process"])):
                out = Path(tmp) / f"{name}-{r}"
                start = time.perf_counter()
                subprocess.run([*base, "--out", str(out), *extra], check=True, capture_output=True)
                times[name].append(time.perf_counter() - start)
            ratios.append(times["contained"][-1] / times["in-process"][-1])
            print(f"round {r + 1}: contained {times['contained'][-1]:.1f} s, in-process "
                  f"{times['in-process'][-1]:.1f} s, ratio {ratios[-1]:.2f}", flush=True)  # fmt: skip
    print(
        f"median: contained {statistics.median(times['contained']):.1f} s, in-process "
        f"{statistics.median(times['in-process']):.1f} s; contained / in-process {statistics.median(ratios):.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
