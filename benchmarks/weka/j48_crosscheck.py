"""Cross-check simstudy's J48 against Weka 3.6's J48 run through java on the same folds.

Usage: .venv/bin/python benchmarks/weka/j48_crosscheck.py [--VARIANT] [dataset ...]
with VARIANT one of default, unpruned (-U), no-raising (-S), cf0.1 (-C 0.1), min-leaf5 (-M 5);
the data set ``random:N`` checks N small random data sets (seeds 0..N-1) instead, and a name
ending in ``.arff`` is read from that path.
Folds, ARFF files and the parsing of Weka's ``-p 0`` output are those of ``crosscheck.py``.
Prints, per data set: Weka's accuracy, ours, the number of differing predictions, the largest
difference of class probabilities, and the number of leaves and nodes of the trees fitted to the
whole data set by Weka and by us.
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

from simstudy.pipeline.data import read_arff, write_arff  # noqa: E402
from simstudy.pipeline.learners.j48 import J48  # noqa: E402

OPTIONS = {
    "default": ([], {}),
    "unpruned": (["-U"], {"unpruned": True}),
    "no-raising": (["-S"], {"subtree_raising": False}),
    "cf0.1": (["-C", "0.1"], {"confidence": 0.1}),
    "min-leaf5": (["-M", "5"], {"min_leaf": 5}),
}


def weka_j48(train, test, flags):
    """Weka's predicted class codes and class distributions from ``-p 0 -distribution``.

    Each row reads ``inst# actual predicted [+] p1,p2,...`` with the predicted class's
    probability starred; labels may hold spaces, so the codes are found as ``<digits>:``.
    """
    cmd = [
        "java",
        "-cp",
        WEKA_JAR,
        "weka.classifiers.trees.J48",
        *flags,
        "-t",
        train,
        "-T",
        test,
        "-p",
        "0",
        "-distribution",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    preds, dists = [], []
    for line in out.splitlines():
        codes = re.findall(r"\s(\d+):", " " + line)
        if len(codes) >= 2 and line.split()[0].isdigit():
            preds.append(int(codes[1]) - 1)
            dists.append([float(v) for v in line.split()[-1].replace("*", "").split(",")])
    return np.array(preds), np.array(dists)


def weka_tree_shape(train, flags):
    """(number of leaves, tree size) of Weka's tree fitted to ``train``."""
    cmd = ["java", "-cp", WEKA_JAR, "weka.classifiers.trees.J48", *flags, "-t", train, "-no-cv"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    leaves = int(re.search(r"Number of Leaves\s*:\s*(\d+)", out).group(1))
    size = int(re.search(r"Size of the tree\s*:\s*(\d+)", out).group(1))
    return leaves, size


def shape_check(d, variant="default"):
    """((Weka leaves, size), (our leaves, size)) for the tree fitted to the whole data set."""
    flags, params = OPTIONS[variant]
    ncat = [len(c) if c is not None else 0 for c in d.categories]
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "all.arff")
        write_arff(
            p,
            d.X,
            d.y,
            names=d.names,
            categories=d.categories,
            class_categories=d.class_categories,
            class_name=d.class_name,
        )
        w = weka_tree_shape(p, flags)
    m = J48(nominal=d.nominal, n_categories=ncat, n_classes=len(d.class_categories), **params).fit(d.X, d.y)
    return w, (m.n_leaves(), m.tree_size())


def crosscheck_j48(d, n_folds=10, seed=1, variant="default"):
    """Rows (fold, weka_acc, our_acc, n_diff, n_test, max |probability difference|).

    Weka prints probabilities with 3 decimals, so the last column is at best about 5e-4.
    """
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
            w, wp = weka_j48(*paths, flags)
            m = J48(nominal=d.nominal, n_categories=ncat, n_classes=len(d.class_categories), **params)
            m.fit(d.X[tr], d.y[tr])
            o, op = m.predict(d.X[te]), m.predict_proba(d.X[te])
            yt = d.y[te]
            rows.append(
                (
                    f,
                    float(np.mean(w == yt)),
                    float(np.mean(o == yt)),
                    int(np.sum(w != o)),
                    int(te.sum()),
                    float(np.max(np.abs(wp - op))),
                )
            )
    return rows


def random_mixed(n=400, seed=0):
    """Nominal and numeric attributes, 15 % missing values, 3 classes: stresses the missing-value paths.

    Two nominal attributes have a rarely used or never used category (empty branches); the
    numeric ones are rounded so that many values tie.
    """
    from simstudy.pipeline.data.arff import ArffData

    rng = np.random.default_rng(seed)
    X = np.empty((n, 8))
    X[:, 0] = rng.integers(0, 3, n)
    X[:, 1] = rng.choice(4, n, p=[0.45, 0.45, 0.08, 0.02])
    X[:, 2] = rng.integers(0, 2, n)
    X[:, 3] = rng.choice(3, n, p=[0.5, 0.5, 0.0])
    X[:, 4] = np.round(rng.normal(size=n), 1)
    X[:, 5] = np.round(rng.exponential(size=n), 2)
    X[:, 6] = rng.integers(0, 6, n)
    X[:, 7] = rng.normal(size=n)
    score = X[:, 0] + (X[:, 1] == 1) + X[:, 4] + 0.5 * X[:, 6] / 5 + rng.normal(scale=0.8, size=n)
    y = np.digitize(score, np.quantile(score, [0.4, 0.75])).astype(float)
    X[rng.random(X.shape) < 0.15] = np.nan
    cats = (("a", "b", "c"), ("p", "q", "r", "s"), ("u", "v"), ("x", "y", "z"), None, None, None, None)
    return ArffData("mixed", tuple(f"a{j}" for j in range(8)), cats, X, y, "class", ("lo", "mid", "hi"))


def random_many_valued(n=120, seed=0):
    """A nominal attribute with 50 categories (at least 0.3 n, so Weka leaves it out of the
    average gain unless every attribute is like it) beside weaker binary and numeric ones."""
    from simstudy.pipeline.data.arff import ArffData

    rng = np.random.default_rng(seed)
    ids = rng.integers(0, 50, n)
    y = (ids % 2).astype(float)  # the id decides the class: highest gain, low gain ratio
    b = np.where(rng.random(n) < 0.2, 1 - y, y)  # 80 % agreement: moderate gain, higher ratio
    x = np.round(y + rng.normal(scale=1.5, size=n), 1)
    X = np.c_[ids, b, x].astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    cats = (tuple(f"v{i}" for i in range(50)), ("f", "t"), None)
    return ArffData("many", ("id", "b", "x"), cats, X, y, "class", ("n", "y"))


def random_small(seed):
    """A small random data set: 8-79 rows, 1-5 nominal or numeric attributes (rounded to 0-2
    decimals), 2-4 classes, a class partly driven by the first attribute, 0, 10 or 30 % missing."""
    from simstudy.pipeline.data.arff import ArffData

    rng = np.random.default_rng(seed)
    n, p, c = int(rng.integers(8, 80)), int(rng.integers(1, 6)), int(rng.integers(2, 5))
    nom = rng.random(p) < 0.5
    ks = rng.integers(2, 6, p)
    X = np.empty((n, p))
    for j in range(p):
        X[:, j] = rng.integers(0, ks[j], n) if nom[j] else np.round(rng.normal(size=n), int(rng.integers(0, 3)))
    y = rng.integers(0, c, n).astype(float)
    if rng.random() < 0.7:
        y = np.where(rng.random(n) < 0.6, (X[:, 0] > np.median(X[:, 0])).astype(float) % c, y)
    X[rng.random(X.shape) < rng.choice([0, 0.1, 0.3])] = np.nan
    cats = tuple(tuple(f"v{i}" for i in range(ks[j])) if nom[j] else None for j in range(p))
    return ArffData("small", tuple(f"a{j}" for j in range(p)), cats, X, y, "class", tuple(f"c{i}" for i in range(c)))


def random_check(seeds, variant="default"):
    """Fit on the first 70 % of each :func:`random_small` set, test on the rest.

    Returns the seeds where a prediction differs from Weka's or a probability by more than 6e-4.
    """
    flags, params = OPTIONS[variant]
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            d = random_small(seed)
            tr = np.arange(d.X.shape[0]) < int(0.7 * d.X.shape[0])
            paths = []
            for part, idx in (("train", tr), ("test", ~tr)):
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
            w, wp = weka_j48(*paths, flags)
            ncat = [len(c) if c is not None else 0 for c in d.categories]
            m = J48(nominal=d.nominal, n_categories=ncat, n_classes=len(d.class_categories), **params)
            m.fit(d.X[tr], d.y[tr])
            if np.any(m.predict(d.X[~tr]) != w) or np.max(np.abs(m.predict_proba(d.X[~tr]) - wp)) > 6e-4:
                bad.append(seed)
    return bad


def load(name):
    if name == "binary":
        return random_binary()
    if name == "mixed":
        return random_mixed()
    if name == "many-valued":
        return random_many_valued()
    if name.endswith(".arff"):  # a file of one's own, e.g. one of Table 2's sets before it ships
        return read_arff(name)
    return read_arff(os.path.join(EXAMPLES, name + ".arff"))


def main(argv):
    variant = "default"
    if argv and argv[0].startswith("--"):
        variant, argv = argv[0][2:], argv[1:]
    if argv and argv[0].startswith("random"):
        n = int(argv[0].split(":")[1]) if ":" in argv[0] else 100
        bad = random_check(range(n), variant)
        print(f"J48 {variant}: {len(bad)} of {n} small random data sets differ from Weka {bad}")
        return
    names = argv or [
        "vote",
        "breast-cancer",
        "soybean",
        "binary",
        "mixed",
        "many-valued",
        "iris",
        "diabetes",
        "glass",
        "ionosphere",
    ]
    print(f"J48 {variant}")
    print("| data | folds | Weka acc | ours acc | differing / tested | max abs. prob. diff | leaves/size Weka | ours |")
    print("|---|---|---|---|---|---|---|---|")
    for nm in names:
        d = load(nm)
        r = crosscheck_j48(d, variant=variant)
        (wl, ws), (ol, os_) = shape_check(d, variant)
        tot = sum(x[4] for x in r)
        wa = sum(x[1] * x[4] for x in r) / tot
        oa = sum(x[2] * x[4] for x in r) / tot
        print(
            f"| {nm} | {len(r)} | {wa:.4f} | {oa:.4f} | {sum(x[3] for x in r)} / {tot} "
            f"| {max(x[5] for x in r):.4f} | {wl}/{ws} | {ol}/{os_} |",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
