"""What an assessment costs: the fast default against the full check, and another --metric re-scored against refitted.

The case of ``examples/assess_breast_cancer.py``: a standardised logistic regression against a 50-tree
forest on scikit-learn's breast-cancer data (569 cases), from the command line, each command a fresh
process (start-up, imports, workers and store included)::

    .venv/bin/python benchmarks/bench_assess_cost.py --jobs 2

Timed in turn, in this order:

1. ``default``: ``simstudy assess DATA --a ...:logreg --b ...:forest`` (the 5x2 cv, 5 repeats: 100 fits);
2. ``default, --metric``: the same with ``--metric balanced_accuracy`` on the stored run (re-scored);
3. ``full``: the same with ``--full`` (every design, 10 repeats: 2,400 fits; the default before);
4. ``full, --metric``: ``--full --metric balanced_accuracy`` on the stored full run (re-scored);
5. ``full, --metric, refitted``: the same in a new folder (what changing the metric cost before).

The ratios are full / default and refitted / re-scored.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "assess_breast_cancer.py"


def _data(path: Path) -> Path:
    from sklearn.datasets import load_breast_cancer

    frame = load_breast_cancer(as_frame=True).frame
    frame["target"] = frame["target"].map({0: "malignant", 1: "benign"})
    frame.to_csv(path, index=False)
    return path


def _timed(argv) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    simstudy = [sys.executable, "-m", "simstudy.cli"]
    with tempfile.TemporaryDirectory(prefix="bench-assess-cost-") as tmp:
        tmp = Path(tmp)
        data = _data(tmp / "breast_cancer.csv")
        base = [*simstudy, "assess", str(data), "--a", f"{EXAMPLE}:logreg", "--b", f"{EXAMPLE}:forest"]
        base += ["--jobs", str(args.jobs), "--quiet", "--results", str(tmp / "no-results")]
        runs = [
            ("default", ["--out", str(tmp / "default")]),
            ("default, --metric (re-scored)", ["--out", str(tmp / "default"), "--metric", "balanced_accuracy"]),
            ("full", ["--full", "--out", str(tmp / "full")]),
            ("full, --metric (re-scored)", ["--full", "--out", str(tmp / "full"), "--metric", "balanced_accuracy"]),
            ("full, --metric, refitted", ["--full", "--out", str(tmp / "refit"), "--metric", "balanced_accuracy"]),
        ]
        seconds = {}
        for label, extra in runs:
            seconds[label] = _timed(base + extra)
            print(f"{label}: {seconds[label]:.1f} s", flush=True)
    print(f"full / default: {seconds['full'] / seconds['default']:.1f}x")
    print(
        "refitted / re-scored (full): "
        f"{seconds['full, --metric, refitted'] / seconds['full, --metric (re-scored)']:.1f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
