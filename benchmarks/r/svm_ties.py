"""e1071 svm against E1071SVC where the decision value is exactly 0 (symmetric training data).

Writes mirror-symmetric two-class problems (a point at x0 = -a of one class has its mirror
image at x0 = +a in the other class; multiplicities and row order random), with test cases on
the mirror line x0 = 0 (``boundary``) and off it (``ordinary``), runs ``svm_ties.R`` on them
and counts the predictions that differ from R's.  R's answers are cached in ``--dir``, so the
counting can be repeated with another checkout (``--no-r``).

Usage: ``python benchmarks/r/svm_ties.py [--problems 64] [--dir /tmp/svm_ties] [--no-r]``
"""

from __future__ import annotations

import argparse
import csv
import subprocess
from pathlib import Path

import numpy as np

from simstudy.pipeline.learners import E1071SVC


def problem(rng: np.random.Generator, classes: int = 2):
    """One mirror-symmetric problem: training rows and labels, boundary and ordinary test cases.

    With ``classes = 3`` the third class lies on the mirror line x0 = 0 (its own mirror image).
    """
    p = int(rng.integers(2, 4))
    base = []
    while len(base) < int(rng.integers(2, 5)):
        pt = rng.integers(-2, 3, size=p).astype(float)
        pt[0] = rng.integers(1, 3)
        if not any((pt == b).all() for b in base):
            base.append(pt)
    rows, labels = [], []
    for pt in base:
        mirror = pt.copy()
        mirror[0] = -pt[0]
        for x, lab in ((pt, 1), (mirror, 0)):
            for _ in range(int(rng.integers(1, 4))):
                rows.append(x)
                labels.append(lab)
    if classes == 3:
        for _ in range(int(rng.integers(1, 4))):
            pt = rng.integers(-2, 3, size=p).astype(float)
            pt[0] = 0.0
            rows.append(pt)
            labels.append(2)
    order = rng.permutation(len(rows))
    X, y = np.array(rows)[order], np.array(labels)[order]
    grid = np.arange(-2.0, 2.5, 0.5)
    boundary = np.zeros((12, p))
    boundary[:, 1:] = rng.choice(grid, size=(12, p - 1))
    ordinary = rng.choice(grid, size=(12, p))
    ordinary[:, 0] = rng.choice([-1.5, -1, -0.5, 0.5, 1, 1.5], size=12)
    return X, y, np.vstack([boundary, ordinary])


def write(dirpath: Path, problems) -> None:
    dirpath.mkdir(parents=True, exist_ok=True)
    for k, (X, y, Xt) in enumerate(problems):
        names = [f"x{j}" for j in range(X.shape[1])]
        with open(dirpath / f"train_{k}.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(names + ["y"])
            w.writerows([[repr(float(v)) for v in row] + [int(lab)] for row, lab in zip(X, y)])
        with open(dirpath / f"test_{k}.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(names)
            w.writerows([[repr(float(v)) for v in row] for row in Xt])


def read_r(dirpath: Path, k: int):
    with open(dirpath / f"r_{k}.csv") as fh:
        rows = list(csv.DictReader(fh))
    return np.array([int(r["pred"]) for r in rows]), np.array([float(r["dec"]) for r in rows]), rows[0]["orient"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--problems", type=int, default=64)
    ap.add_argument("--seed", type=int, default=37)
    ap.add_argument("--classes", type=int, choices=(2, 3), default=2)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/svm_ties"))
    ap.add_argument("--no-r", action="store_true", help="reuse R's answers already in --dir")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    problems = [problem(rng, args.classes) for _ in range(args.problems)]
    if not args.no_r:
        write(args.dir, problems)
        subprocess.run(["Rscript", str(Path(__file__).with_name("svm_ties.R")), str(args.dir)], check=True)
    diff = {"boundary": [0, 0], "ordinary": [0, 0]}
    zero = exact = 0
    worst = 0.0
    for k, (X, y, Xt) in enumerate(problems):
        r_pred, r_dec, orient = read_r(args.dir, k)
        m = E1071SVC().fit(X, y)
        ours = m.predict(Xt)
        if m.classes_.size == 2:  # (with three classes only the predictions are compared)
            # e1071 orients the value as "first/second" class (libsvm's order); ours: > 0 for classes_[1]
            dec = m.decision_function(Xt) * (1 if int(orient.split("/")[0]) == m.classes_[1] else -1)
            tie = np.abs(r_dec[:12]) < 1e-12
            zero += int(tie.sum())
            exact += int((dec[:12][tie] == r_dec[:12][tie]).sum())
            worst = max(worst, float(np.abs(dec - r_dec).max()))
        for name, sl in (("boundary", slice(0, 12)), ("ordinary", slice(12, None))):
            diff[name][0] += int((ours[sl] != r_pred[sl]).sum())
            diff[name][1] += int(ours[sl].size)
    print(f"boundary cases with |R's decision value| < 1e-12: {zero}, of which R's value is ours to the bit: {exact}")
    print(f"largest |decision value difference| to R: {worst:.3g}")
    for name, (d, n) in diff.items():
        print(f"{name}: {d} of {n} predictions differ from R")


if __name__ == "__main__":
    main()
