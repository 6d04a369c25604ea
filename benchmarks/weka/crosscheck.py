"""Cross-check simstudy's Weka learners against Weka 3.6 run through java on the same folds.

Usage: .venv/bin/python benchmarks/weka/crosscheck.py [dataset ...]
Prints, per data set, learner and fold: Weka's accuracy, ours, and the number of differing predictions.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

import numpy as np

from simstudy.pipeline.data import read_arff, write_arff
from simstudy.pipeline.learners.weka import IB1, DecisionStump, WekaNaiveBayes

WEKA_JAR = "/usr/share/java/weka.jar"
EXAMPLES = "/usr/share/doc/weka/examples"
WEKA_CLASSES = {
    "NaiveBayes": "weka.classifiers.bayes.NaiveBayes",
    "IB1": "weka.classifiers.lazy.IB1",
    "DecisionStump": "weka.classifiers.trees.DecisionStump",
}


def weka_predictions(cls, train, test):
    """Predicted class codes from Weka (``-p 0`` output: inst#, actual, predicted, ...)."""
    out = subprocess.run(
        ["java", "-cp", WEKA_JAR, cls, "-t", train, "-T", test, "-p", "0"], capture_output=True, text=True, check=True
    ).stdout
    preds = []
    for line in out.splitlines():
        codes = re.findall(r"\s(\d+):", " " + line)
        if len(codes) >= 2 and line.split()[0].isdigit():
            preds.append(int(codes[1]) - 1)  # inst#, actual, predicted (labels may hold spaces)
    return np.array(preds)


def ours(name, d, Xtr, ytr, Xte, ncat):
    nom = d.nominal
    nc = len(d.class_categories)
    if name == "NaiveBayes":
        m = WekaNaiveBayes(nominal=nom, n_categories=ncat, n_classes=nc)
    elif name == "DecisionStump":
        m = DecisionStump(nominal=nom, n_categories=ncat, n_classes=nc)
    else:
        m = IB1(nominal=nom, n_categories=ncat, n_classes=nc, update_ranges_on_predict=True)
    return m.fit(Xtr, ytr).predict(Xte)


def crosscheck(d, n_folds=10, seed=1, learners=("NaiveBayes", "IB1", "DecisionStump")):
    """Rows (learner, fold, weka_acc, our_acc, n_diff, n_test)."""
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
                write_arff(
                    p,
                    d.X[idx],
                    d.y[idx],
                    names=d.names,
                    categories=d.categories,
                    class_categories=d.class_categories,
                    class_name=d.class_name,
                )
                paths.append(p)
            for name in learners:
                w = weka_predictions(WEKA_CLASSES[name], *paths)
                o = ours(name, d, d.X[tr], d.y[tr], d.X[te], ncat)
                yt = d.y[te]
                rows.append(
                    (name, f, float(np.mean(w == yt)), float(np.mean(o == yt)), int(np.sum(w != o)), int(te.sum()))
                )
    return rows


def random_binary(n=300, p=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, p)).astype(float)
    y = ((X[:, 0] + X[:, 1] + rng.random(n) * 1.5) > 1.5).astype(float)
    from simstudy.pipeline.data.arff import ArffData

    return ArffData(
        "binary", tuple(f"a{j}" for j in range(p)), tuple(("0", "1") for _ in range(p)), X, y, "class", ("0", "1")
    )


def main(argv):
    names = argv or ["vote", "breast-cancer", "soybean", "iris", "diabetes", "glass", "ionosphere", "binary"]
    print("| data | learner | folds | Weka acc | ours acc | differing / tested | max |acc diff| per fold |")
    print("|---|---|---|---|---|---|---|")
    for nm in names:
        d = random_binary() if nm == "binary" else read_arff(os.path.join(EXAMPLES, nm + ".arff"))
        rows = crosscheck(d)
        for learner in ("NaiveBayes", "IB1", "DecisionStump"):
            r = [x for x in rows if x[0] == learner]
            wa = sum(x[2] * x[5] for x in r) / sum(x[5] for x in r)
            oa = sum(x[3] * x[5] for x in r) / sum(x[5] for x in r)
            print(
                f"| {nm} | {learner} | {len(r)} | {wa:.4f} | {oa:.4f} | {sum(x[4] for x in r)} / {sum(x[5] for x in r)} "
                f"| {max(abs(x[2] - x[3]) for x in r):.4f} |",
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])
