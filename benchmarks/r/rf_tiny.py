"""randomForest on tiny, very imbalanced training sets: R's accuracy against RandomForestR's.

Training sets of 8 rows, 7 of class 0 (N(0, I), 4 features) and 1 of class 1 (N(1, I)),
test sets of 100 + 100 cases.  A bootstrap sample misses the one minority row with
probability (7/8)^8 = 0.34; R's rf.c then draws again and regrows root-only trees, so the
accuracy depends on doing the same.  R's accuracy over ``--seeds`` seeds per set (the mean over
the sets for each seed) gives the mean and the spread of one run; ours is computed over
``--ours`` random states.  R's numbers are embedded in ``tests/pipeline/test_learners_r.py``.

Usage: ``python benchmarks/r/rf_tiny.py [--sets 10] [--seeds 200] [--ntree 100] [--ours 20] [--no-r]``
"""

from __future__ import annotations

import argparse
import csv
import subprocess
from pathlib import Path

import numpy as np


def tiny_sets(count: int, seed: int = 37):
    """``count`` (X, y, X_test, y_test) problems: 8 training rows with classes 7:1, 200 test rows."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        X = np.vstack([rng.normal(size=(7, 4)), rng.normal(size=(1, 4)) + 1.0])
        y = np.array([0] * 7 + [1])
        order = rng.permutation(8)
        Xt = np.vstack([rng.normal(size=(100, 4)), rng.normal(size=(100, 4)) + 1.0])
        yt = np.array([0] * 100 + [1] * 100)
        out.append((X[order], y[order], Xt, yt))
    return out


def write(dirpath: Path, sets) -> None:
    dirpath.mkdir(parents=True, exist_ok=True)
    for k, (X, y, Xt, yt) in enumerate(sets):
        for name, A, b in (("train", X, y), ("test", Xt, yt)):
            with open(dirpath / f"{name}_{k}.csv", "w", newline="") as fh:
                w = csv.writer(fh)
                w.writerow([f"x{j}" for j in range(A.shape[1])] + ["y"])
                w.writerows([[repr(float(v)) for v in row] + [int(lab)] for row, lab in zip(A, b)])


def main() -> None:
    from simstudy.pipeline.learners import RandomForestR

    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=10)
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--ntree", type=int, default=100)
    ap.add_argument("--ours", type=int, default=20)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/rf_tiny"))
    ap.add_argument("--no-r", action="store_true", help="reuse R's answers already in --dir")
    args = ap.parse_args()
    sets = tiny_sets(args.sets)
    if not args.no_r:
        write(args.dir, sets)
        cmd = ["Rscript", str(Path(__file__).with_name("rf_tiny.R")), str(args.dir), str(args.seeds), str(args.ntree)]
        subprocess.run(cmd, check=True)
    with open(args.dir / "r_acc.csv") as fh:
        rows = list(csv.DictReader(fh))
    acc = np.zeros((args.sets, args.seeds))
    for r in rows:
        acc[int(r["set"]), int(r["seed"]) - 1] = float(r["acc"])
    per_seed = acc.mean(axis=0)
    print(
        f"R: mean accuracy {per_seed.mean():.4f}, sd of one run (mean over the {args.sets} sets) {per_seed.std(ddof=1):.4f}"
    )
    print(f"   range of one run over {args.seeds} seeds: [{per_seed.min():.4f}, {per_seed.max():.4f}]")
    ours = []
    for s in range(args.ours):
        fits = [RandomForestR(n_estimators=args.ntree, random_state=1000 + s).fit(X, y) for X, y, _, _ in sets]
        ours.append(np.mean([np.mean(m.predict(Xt) == yt) for m, (_, _, Xt, yt) in zip(fits, sets)]))
    ours = np.array(ours)
    print(
        f"ours: mean accuracy {ours.mean():.4f}, sd of one run {ours.std(ddof=1):.4f}, range [{ours.min():.4f}, {ours.max():.4f}]"
    )


if __name__ == "__main__":
    main()
