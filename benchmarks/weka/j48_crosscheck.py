"""Cross-check simstudy's J48 against Weka 3.6's J48 run through java on the same folds.

Usage: .venv/bin/python benchmarks/weka/j48_crosscheck.py [dataset ...]
Folds, ARFF files and the parsing of Weka's ``-p 0`` output are those of ``crosscheck.py``.
Prints, per data set: Weka's accuracy, ours, and the number of differing predictions.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from crosscheck import EXAMPLES, WEKA_JAR, random_binary  # noqa: E402

from simstudy.data import read_arff, write_arff  # noqa: E402
from simstudy.learners.j48 import J48  # noqa: E402

OPTIONS = {"default": ([], {}), "unpruned": (["-U"], {"unpruned": True}),
           "no-raising": (["-S"], {"subtree_raising": False})}


def weka_j48(train, test, flags):
    """Weka's predicted class codes from its ``-p 0`` rows (inst#, actual, predicted, ...)."""
    cmd = ["java", "-cp", WEKA_JAR, "weka.classifiers.trees.J48", *flags, "-t", train, "-T", test, "-p", "0"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    preds = []
    for line in out.splitlines():
        codes = re.findall(r"\s(\d+):", " " + line)  # inst#, actual, predicted; labels may hold spaces
        if len(codes) >= 2 and line.split()[0].isdigit():
            preds.append(int(codes[1]) - 1)
    return np.array(preds)


def crosscheck_j48(d, n_folds=10, seed=1, variant="default"):
    """Rows (fold, weka_acc, our_acc, n_diff, n_test)."""
    flags, params = OPTIONS[variant]
    rng = np.random.default_rng(seed)
    n = d.X.shape[0]
    fold = rng.permutation(n) % n_folds
    ncat = [len(c) if c is not None else 0 for c in d.categories]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in range(n_folds):
            tr, te = fold != f, fold == f
            paths = []
            for part, idx in (("train", tr), ("test", te)):
                p = os.path.join(tmp, f"{part}.arff")
                write_arff(p, d.X[idx], d.y[idx], names=d.names, categories=d.categories,
                           class_categories=d.class_categories, class_name=d.class_name)
                paths.append(p)
            w = weka_j48(*paths, flags)
            m = J48(nominal=d.nominal, n_categories=ncat, n_classes=len(d.class_categories), **params)
            o = m.fit(d.X[tr], d.y[tr]).predict(d.X[te])
            yt = d.y[te]
            rows.append((f, float(np.mean(w == yt)), float(np.mean(o == yt)), int(np.sum(w != o)), int(te.sum())))
    return rows


def load(name):
    return random_binary() if name == "binary" else read_arff(os.path.join(EXAMPLES, name + ".arff"))


def main(argv):
    variant = "default"
    if argv and argv[0].startswith("--"):
        variant, argv = argv[0][2:], argv[1:]
    names = argv or ["vote", "breast-cancer", "soybean", "binary", "iris", "diabetes", "glass", "ionosphere"]
    print(f"J48 {variant}")
    print("| data | folds | Weka acc | ours acc | differing / tested |")
    print("|---|---|---|---|---|")
    for nm in names:
        r = crosscheck_j48(load(nm), variant=variant)
        tot = sum(x[4] for x in r)
        wa = sum(x[1] * x[4] for x in r) / tot
        oa = sum(x[2] * x[4] for x in r) / tot
        print(f"| {nm} | {len(r)} | {wa:.4f} | {oa:.4f} | {sum(x[3] for x in r)} / {tot} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
