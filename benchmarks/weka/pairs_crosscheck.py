"""Cross-check simstudy's TAN and SMO against Weka 3.6 run through java on the same folds.

``compare`` and ``run_weka`` also serve NaiveBayes, J48, IB1 and DecisionStump (keys of
``WEKA``); ``tests/pipeline/test_differential.py`` runs all of them on generated data.

Usage: .venv/bin/python benchmarks/weka/pairs_crosscheck.py [--random=N] [dataset ...]

A data set is ``bouckaert3:SEED`` (300 cases drawn from Bouckaert's third synthetic
source with ``np.random.default_rng(SEED)``) or the name of a UCI set shipped with
simstudy (``simstudy.pipeline.data.load_uci``).  Default: five bouckaert3 samples and the
UCI sets breast-cancer, vote, soybean (TAN and SMO), zoo, iris and German credit
(SMO only: TAN takes nominal attributes only).

Folds: ``np.random.default_rng(1).permutation(n) % 10`` as in ``crosscheck.py``;
each fold is written to ARFF with ``simstudy.pipeline.data.write_arff`` and all folds of a
data set are run in one JVM by ``FoldRunner.java`` (compiled on first use into a
temporary directory; it needs ``javac``), which prints Weka's class distributions
at full precision and, for SMO, the output of every pairwise machine.

Prints per data set and learner: Weka's accuracy, ours, the number of differing
predictions, the largest difference of class probabilities, and for SMO, for each
differing prediction, the smallest |output| of Weka's pairwise machines whose sign
differs from ours.  ``--random=N`` adds N small random nominal problems built to
provoke edge cases (see ``random_small``).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crosscheck import WEKA_JAR  # noqa: E402

from simstudy.pipeline.data import load_uci, write_arff  # noqa: E402
from simstudy.pipeline.data.arff import ArffData  # noqa: E402
from simstudy.pipeline.learners.j48 import J48  # noqa: E402
from simstudy.pipeline.learners.smo import SMO  # noqa: E402
from simstudy.pipeline.learners.tan import TAN  # noqa: E402
from simstudy.pipeline.learners.weka import IB1, DecisionStump, WekaNaiveBayes  # noqa: E402

HERE = Path(__file__).resolve().parent
WEKA = {
    "TAN": (
        "weka.classifiers.bayes.BayesNet",
        [
            "-D",
            "-Q",
            "weka.classifiers.bayes.net.search.local.TAN",
            "--",
            "-S",
            "BAYES",
            "-E",
            "weka.classifiers.bayes.net.estimate.SimpleEstimator",
            "--",
            "-A",
            "0.5",
        ],
    ),
    "SMO": ("weka.classifiers.functions.SMO", []),
    "NaiveBayes": ("weka.classifiers.bayes.NaiveBayes", []),
    "J48": ("weka.classifiers.trees.J48", []),
    "IB1": ("weka.classifiers.lazy.IB1", []),
    "DecisionStump": ("weka.classifiers.trees.DecisionStump", []),
}
DEFAULT_SETS = [
    "bouckaert3:1",
    "bouckaert3:2",
    "bouckaert3:3",
    "bouckaert3:4",
    "bouckaert3:5",
    "breast-cancer",
    "vote",
    "soybean",
    "zoo",
    "iris",
    "German credit",
]


def runner_dir():
    """Directory holding the compiled ``FoldRunner`` class (compiled once per source version)."""
    src = HERE / "FoldRunner.java"
    tag = hashlib.sha1(src.read_bytes()).hexdigest()[:12]
    out = Path(tempfile.gettempdir()) / f"simstudy-foldrunner-{tag}"
    if not (out / "FoldRunner.class").exists():
        tmp = Path(tempfile.mkdtemp(prefix="foldrunner-", dir=tempfile.gettempdir()))
        subprocess.run(["javac", "-nowarn", "-cp", WEKA_JAR, "-d", str(tmp), str(src)], check=True, capture_output=True)
        try:
            tmp.rename(out)
        except OSError:  # another process got there first
            pass
    return out


def run_weka(learner, fold_files):
    """Weka's predictions, distributions and (SMO) pairwise outputs, one list entry per fold."""
    cls, opts = WEKA[learner]
    cmd = ["java", "-cp", f"{WEKA_JAR}{os.pathsep}{runner_dir()}", "FoldRunner", cls, *opts, "---"]
    for tr, te in fold_files:
        cmd += [tr, te]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    folds = [([], [], []) for _ in fold_files]
    for line in out.splitlines():
        head, _, extra = line.partition(" | ")
        f, pred, dist = head.split()
        folds[int(f)][0].append(int(pred))
        folds[int(f)][1].append([float(v) for v in dist.split(",")])
        folds[int(f)][2].append([float(v) for v in extra.split(",")] if extra else [])
    return [(np.array(a), np.array(b), np.array(c)) for a, b, c in folds]


def make_learner(learner, d):
    """Our learner for a key of ``WEKA``, told the attribute types of ``d`` (IB1 widens its ranges
    with each test instance, as Weka's does)."""
    ncat = [len(c) if c is not None else 0 for c in d.categories]
    cls = {
        "TAN": TAN,
        "SMO": SMO,
        "NaiveBayes": WekaNaiveBayes,
        "J48": J48,
        "IB1": IB1,
        "DecisionStump": DecisionStump,
    }[learner]
    extra = {"update_ranges_on_predict": True} if learner == "IB1" else {}
    return cls(nominal=d.nominal, n_categories=ncat, n_classes=len(d.class_categories), **extra)


def bouckaert3(seed, n=300):
    from simstudy.pipeline.sources.bayesnet import load_source

    X, y = load_source("bouckaert3").sample(n, np.random.default_rng(seed))
    p = X.shape[1]
    return ArffData(
        f"bouckaert3:{seed}",
        tuple(f"a{j}" for j in range(p)),
        tuple(("0", "1") for _ in range(p)),
        X.astype(float),
        y.astype(float),
        "class",
        ("0", "1"),
    )


def load(name):
    if name.startswith("bouckaert3:"):
        return bouckaert3(int(name.split(":")[1]))
    return load_uci(name)


def random_small(seed):
    """A small random nominal problem (train, test) built to provoke Weka's edge cases.

    6-40 training rows, 1-6 attributes with 1-4 declared categories (some never used),
    copies of attributes (exact ties in the tree search), 2-4 classes (some possibly
    absent), 0, 10 or 30 % missing values (none in training and some in test, too).
    """
    rng = np.random.default_rng(seed)
    p = int(rng.integers(1, 7))
    c = int(rng.integers(2, 5))
    k = rng.integers(1, 5, size=p)
    n = int(rng.integers(6, 41))
    m = 12
    X = np.column_stack([rng.integers(0, max(1, kk - rng.integers(0, 2)), size=n + m) for kk in k]).astype(float)
    for j in range(1, p):
        if rng.random() < 0.3:
            src = int(rng.integers(0, j))
            X[:, j] = np.minimum(X[:, src], k[j] - 1)
    y = rng.integers(0, c - (rng.random() < 0.2), size=n + m).astype(float)
    rate = (0.0, 0.1, 0.3)[seed % 3]
    X[rng.random(X.shape) < rate] = np.nan
    if seed % 4 == 0:  # complete training data, missing test values
        X[:n] = np.where(np.isnan(X[:n]), 0.0, X[:n])
        X[n:][rng.random((m, p)) < 0.2] = np.nan
    cats = tuple(tuple(str(v) for v in range(kk)) for kk in k)
    names = tuple(f"a{j}" for j in range(p))
    classes = tuple(f"c{v}" for v in range(c))
    make = lambda rows: ArffData(f"random{seed}", names, cats, X[rows], y[rows], "class", classes)  # noqa: E731
    return make(slice(0, n)), make(slice(n, n + m))


def _write_pair(tmp, tag, train, test):
    paths = []
    for part, d in (("train", train), ("test", test)):
        path = os.path.join(tmp, f"{part}{tag}.arff")
        write_arff(
            path,
            d.X,
            d.y,
            names=d.names,
            categories=d.categories,
            class_categories=d.class_categories,
            class_name=d.class_name,
        )
        paths.append(path)
    return tuple(paths)


def _subset(d, rows):
    return ArffData(d.relation, d.names, d.categories, d.X[rows], d.y[rows], d.class_name, d.class_categories)


def compare(problems, learners=("TAN", "SMO")):
    """Run Weka and ours on a list of (train, test) ArffData pairs; one JVM per learner.

    Returns, per learner, one dict per problem: Weka's and our predictions and class
    probabilities, the test classes, and (SMO) both sides' pairwise outputs.
    """
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = [_write_pair(tmp, i, tr, te) for i, (tr, te) in enumerate(problems)]
        for learner in learners:
            rows = []
            for (tr, te), (wp, wd, wout) in zip(problems, run_weka(learner, files)):
                m = make_learner(learner, tr).fit(tr.X, tr.y)
                r = {
                    "weka": wp,
                    "ours": m.predict(te.X),
                    "weka_proba": wd,
                    "ours_proba": m.predict_proba(te.X),
                    "y": te.y,
                }
                if learner == "SMO":
                    r["weka_out"], r["ours_out"] = wout, m.decision_function(te.X)
                rows.append(r)
            out[learner] = rows
    return out


def folds(d, n_folds=10, seed=1):
    """The (train, test) pairs of ``crosscheck.py``'s folds."""
    fold = np.random.default_rng(seed).permutation(d.X.shape[0]) % n_folds
    return [(_subset(d, fold != f), _subset(d, fold == f)) for f in range(n_folds)]


def summarise(rows):
    """Accuracies, differing predictions, largest probability difference and, for SMO, the
    smallest |output| of Weka's machines that disagree with ours in sign, per differing prediction."""
    r = {"weka_correct": 0, "ours_correct": 0, "differ": 0, "tested": 0, "max_prob_diff": 0.0, "margins": []}
    for x in rows:
        r["weka_correct"] += int(np.sum(x["weka"] == x["y"]))
        r["ours_correct"] += int(np.sum(x["ours"] == x["y"]))
        r["differ"] += int(np.sum(x["weka"] != x["ours"]))
        r["tested"] += len(x["y"])
        if len(x["y"]):
            r["max_prob_diff"] = max(r["max_prob_diff"], float(np.abs(x["weka_proba"] - x["ours_proba"]).max()))
        if "weka_out" in x:
            for i in np.flatnonzero(x["weka"] != x["ours"]):
                w, o = x["weka_out"][i], x["ours_out"][i]
                flips = (w > 0) != (o > 0)
                r["margins"].append(float(np.abs(w[flips]).min()) if flips.any() else float("nan"))
    return r


def crosscheck_pairs(datasets, learners=("TAN", "SMO"), n_folds=10, seed=1):
    """10-fold cross-check of several data sets at once: one dict {learner: summary} per data set."""
    problems, owner = [], []
    for k, d in enumerate(datasets):
        for pair in folds(d, n_folds, seed):
            problems.append(pair)
            owner.append(k)
    results = [{} for _ in datasets]
    for learner, rows in compare(problems, learners).items():
        for k in range(len(datasets)):
            results[k][learner] = summarise([r for r, o in zip(rows, owner) if o == k])
    return results


def _row(name, learner, r):
    t = r["tested"]
    marg = ", ".join(f"{v:.2g}" for v in sorted(r["margins"])) or "-"
    return (
        f"| {name} | {learner} | {r['weka_correct'] / t:.4f} | {r['ours_correct'] / t:.4f} "
        f"| {r['differ']} / {t} | {r['max_prob_diff']:.2g} | {marg} |"
    )


def main(argv):
    n_random = 0
    if argv and argv[0].startswith("--random="):
        n_random = int(argv[0].split("=")[1])
        argv = argv[1:]
    names = argv or DEFAULT_SETS
    print(
        "| data | learner | Weka acc | ours acc | differing / tested | max prob diff | Weka |output| at differences |"
    )
    print("|---|---|---|---|---|---|---|")
    totals = {}
    data = [load(name) for name in names]
    nominal = [k for k, d in enumerate(data) if d.nominal.all()]
    res = crosscheck_pairs(data, ("SMO",))
    for k, r in zip(nominal, crosscheck_pairs([data[k] for k in nominal], ("TAN",))):
        res[k].update(r)
    for name, r in zip(names, res):
        for learner in ("TAN", "SMO"):
            if learner in r:
                print(_row(name, learner, r[learner]), flush=True)
                tot = totals.setdefault(learner, [0, 0])
                tot[0] += r[learner]["differ"]
                tot[1] += r[learner]["tested"]
    for learner, (diff, t) in totals.items():
        print(f"{learner}: {diff} differing predictions of {t} ({1 - diff / t:.4%} agreement)")
    if n_random:
        for learner, rows in compare([random_small(s) for s in range(n_random)]).items():
            r = summarise(rows)
            bad = sum(1 for x in rows if np.any(x["weka"] != x["ours"]))
            print(
                f"random small sets ({n_random}), {learner}: {r['differ']} differing predictions of {r['tested']} "
                f"in {bad} sets; Weka |output| at differences: "
                + (", ".join(f"{v:.2g}" for v in sorted(r["margins"])) or "-")
            )


if __name__ == "__main__":
    main(sys.argv[1:])
