"""Differential tests: our learners against Weka 3.6 and R's e1071 on data generated at random.

Each problem is drawn from ``np.random.default_rng(seed)`` to provoke edge cases:
nominal and numeric attributes, missing values (in training and test, or in test
only), constant columns (overall and within a class), duplicated columns, ties
(numeric values on a coarse grid), tiny training sets, two to four classes (some
absent from training) and, for Weka, a few training instances with a missing class.

* Weka (``needs_weka``): NaiveBayes, J48, IB1, DecisionStump, TAN (BayesNet with
  the TAN search) and SMO (its pairwise machines' outputs compared too), all problems of a learner run in one JVM by
  ``benchmarks/weka/FoldRunner.java`` through ``benchmarks/weka/pairs_crosscheck.py``.
  TAN sees the nominal attributes only (our TAN takes nominal attributes only, as
  its documentation says; Weka would discretise numeric ones).
* R (``needs_r``): e1071's naiveBayes and svm through ``benchmarks/r/rbridge.py``,
  on numeric data without missing values (our e1071 learners take finite numeric
  inputs only).

Required: 0 differing predictions, and class probabilities close.  A failure names
the seed of the problem; ``SIMSTUDY_DIFF_SEED=<base>`` moves the whole range of
seeds, and ``weka_problem(seed)`` / ``r_problem(seed)`` rebuild one problem.  The
fast tests run in ``make test``; the ``slow`` ones sweep many more seeds.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from simstudy.pipeline.data.arff import ArffData
from simstudy.pipeline.learners import E1071SVC, E1071NaiveBayes

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "weka"))
sys.path.insert(0, str(ROOT / "benchmarks" / "r"))
import rbridge  # noqa: E402

BASE_SEED = int(os.environ.get("SIMSTUDY_DIFF_SEED", "15000"))
WEKA_JAR = "/usr/share/java/weka.jar"
HAVE_WEKA = shutil.which("java") is not None and shutil.which("javac") is not None and os.path.exists(WEKA_JAR)
HAVE_R = rbridge.r_available()
needs_weka = pytest.mark.skipif(not HAVE_WEKA, reason="java, javac or /usr/share/java/weka.jar missing")
needs_r = pytest.mark.skipif(not HAVE_R, reason="Rscript with e1071 and randomForest not available")

WEKA_LEARNERS = ("NaiveBayes", "J48", "IB1", "DecisionStump", "TAN", "SMO")
# Largest |Weka's class probability - ours| accepted (FoldRunner prints Weka's at full precision).
# NaiveBayes: Weka sums each class's values and squares in the order its quicksort leaves the
# training instances, and the variance S2 - mean * S1 cancels badly on values far from 0 with a
# small spread (the generator makes such columns); summed in data order, our probabilities
# differ by up to about 1e-7 there (measured: 6e-8 on 1200 problems), and by ~1e-15 elsewhere.
PROBA_ATOL = {"NaiveBayes": 1e-6, "J48": 1e-9, "IB1": 0.0, "DecisionStump": 1e-12, "TAN": 1e-9, "SMO": 0.0}
# Largest |Weka's SMO machine output - ours|: our solver follows Weka's steps in Java's order of
# operations, so the outputs agree to the last bit (measured: 0 on every problem tried).
SMO_OUTPUT_ATOL = 1e-12


# --------------------------------------------------------------------- generators


def _column(rng, kind, n, k, y, c):
    """One attribute column of ``kind`` for ``n`` cases (nominal codes < k)."""
    if kind == "nominal":
        used = max(1, k - int(rng.integers(0, 2)))  # sometimes a declared category never occurs
        return rng.integers(0, used, size=n).astype(float)
    if kind == "numeric":
        scale = rng.choice([1e-3, 1.0, 50.0, 1e4])
        x = rng.normal(size=n) * scale + rng.choice([0.0, 0.1, -7.5])
        # values on a coarse grid make ties between cases and between thresholds
        return np.round(x / scale, int(rng.integers(0, 3))) * scale if rng.random() < 0.5 else x
    if kind == "constant":
        return np.full(n, rng.choice([0.0, 0.1, 1 / 3, 2.7, -5.3]))
    if kind == "class-constant":  # numeric, constant within one class
        x = rng.normal(size=n) * rng.choice([1.0, 20.0])
        x[y == rng.integers(0, c)] = rng.choice([0.1, 1 / 3, 2.7])
        return x
    raise ValueError(kind)


def _classes(rng, n, c):
    y = rng.integers(0, c, size=n)
    if n >= 2 * c and rng.random() < 0.8:  # usually every class at least twice, in random first order
        y[: 2 * c] = np.tile(rng.permutation(c), 2)
        rng.shuffle(y)
    return y


def weka_problem(seed):
    """(train, test) ArffData for the Weka learners; see the module docstring."""
    rng = np.random.default_rng(seed)
    tiny = rng.random() < 0.3
    n = int(rng.integers(2, 9)) if tiny else int(rng.integers(9, 61))
    m = 15
    p = int(rng.integers(1, 9))
    c = int(rng.integers(2, 5))
    y = _classes(rng, n + m, c).astype(float)
    kinds = rng.choice(["nominal", "numeric", "constant", "class-constant"], p=[0.4, 0.4, 0.1, 0.1], size=p)
    nominal = np.zeros(p, dtype=bool)
    ncat = np.zeros(p, dtype=int)
    X = np.empty((n + m, p))
    for j, kind in enumerate(kinds):
        if j > 0 and rng.random() < 0.2:  # duplicate an earlier column (exact ties in every split search)
            src = int(rng.integers(0, j))
            X[:, j], nominal[j], ncat[j] = X[:, src], nominal[src], ncat[src]
            continue
        nominal[j] = kind == "nominal" or (kind == "constant" and rng.random() < 0.5)
        ncat[j] = int(rng.integers(1, 5)) if nominal[j] else 0
        X[:, j] = _column(rng, "nominal" if nominal[j] else kind, n + m, ncat[j], y, c)
    rate = rng.choice([0.0, 0.1, 0.3])
    X[rng.random(X.shape) < rate] = np.nan
    if rng.random() < 0.25:  # complete training data, missing test values
        X[:n] = np.where(np.isnan(X[:n]), np.where(nominal, 0.0, 1.0), X[:n])
        X[n:][rng.random((m, p)) < 0.2] = np.nan
    if n > 4 and rng.random() < 0.15:
        y[rng.integers(0, n)] = np.nan  # a training instance with a missing class (Weka drops it)
    cats = tuple(tuple(f"v{v}" for v in range(ncat[j])) if nominal[j] else None for j in range(p))
    names = tuple(f"a{j}" for j in range(p))
    classes = tuple(f"c{v}" for v in range(c))

    def part(rows):
        return ArffData(f"diff{seed}", names, cats, X[rows], y[rows], "class", classes)

    return part(slice(0, n)), part(slice(n, n + m))


def nominal_only(d):
    """The nominal attributes of ``d`` (None if it has none), for TAN."""
    keep = [j for j, cats in enumerate(d.categories) if cats is not None]
    if not keep:
        return None
    return ArffData(
        d.relation,
        tuple(d.names[j] for j in keep),
        tuple(d.categories[j] for j in keep),
        d.X[:, keep],
        d.y,
        d.class_name,
        d.class_categories,
    )


def r_problem(seed):
    """A numeric problem without missing values for e1071: an ``rbridge.Task``."""
    rng = np.random.default_rng(seed)
    tiny = rng.random() < 0.3
    c = int(rng.integers(2, 5))
    n = int(rng.integers(4, 12)) if tiny else int(rng.integers(12, 81))
    m = 20
    p = int(rng.integers(1, 9))
    y = _classes(rng, n + m, c)
    kinds = rng.choice(["numeric", "constant", "class-constant"], p=[0.6, 0.2, 0.2], size=p)
    X = np.empty((n + m, p))
    for j, kind in enumerate(kinds):
        if j > 0 and rng.random() < 0.2:
            X[:, j] = X[:, int(rng.integers(0, j))]
        else:
            X[:, j] = _column(rng, kind, n + m, 0, y, c)
    # e1071's svm needs two classes; at least one class with two cases gives naiveBayes a score
    if np.unique(y[:n]).size < 2 or np.bincount(y[:n]).max() < 2:
        y[:4] = [0, 1, 0, 1]
    return rbridge.Task(f"diff{seed}", X[:n], y[:n], X[n:], y[n:])


# --------------------------------------------------------------------- Weka


def _weka_differences(seeds, learners=WEKA_LEARNERS):
    import pairs_crosscheck as pc

    problems = {s: weka_problem(s) for s in seeds}
    failures = []
    for learner in learners:
        if learner == "TAN":
            pairs = {s: (nominal_only(tr), nominal_only(te)) for s, (tr, te) in problems.items()}
            pairs = {s: pr for s, pr in pairs.items() if pr[0] is not None}
        else:
            pairs = problems
        order = list(pairs)
        rows = pc.compare([pairs[s] for s in order], (learner,))[learner]
        for s, r in zip(order, rows):
            diff = int(np.sum(r["weka"] != r["ours"]))
            prob = float(np.abs(r["weka_proba"] - r["ours_proba"]).max()) if len(r["y"]) else 0.0
            out = 0.0
            if learner == "SMO" and len(r["y"]) and r["weka_out"].size:
                out = float(np.abs(r["weka_out"] - r["ours_out"]).max())
            if diff or prob > PROBA_ATOL[learner] or out > SMO_OUTPUT_ATOL:
                failures.append(
                    f"{learner}: seed {s}: {diff} differing predictions of {len(r['y'])}, "
                    f"largest probability difference {prob:.3g}"
                    + (f", largest machine-output difference {out:.3g}" if learner == "SMO" else "")
                    + f" (weka_problem({s}))"
                )
    return failures


# Problems that once showed a difference, kept as regression cases: NaiveBayes ties and its
# precision (15056, 16044, 16349, 16488, 16536, 16590), J48's 1e-6 tolerance at the threshold
# (16067), DecisionStump's entropy ties and attributes without a cut point (16142, 16159), IB1's
# ranges taken after dropping instances with a missing class (16213, 16250, 16528).
REGRESSION_SEEDS = (15056, 16044, 16067, 16142, 16159, 16213, 16250, 16349, 16488, 16528, 16536, 16590)


@pytest.mark.needs_weka
@needs_weka
def test_weka_learners_agree_on_random_data():
    failures = _weka_differences([*range(BASE_SEED, BASE_SEED + 60), *REGRESSION_SEEDS])
    assert not failures, "\n".join(failures)


@pytest.mark.needs_weka
@pytest.mark.slow
@needs_weka
def test_weka_learners_agree_on_random_data_sweep():
    failures = _weka_differences(range(BASE_SEED + 1000, BASE_SEED + 1600))
    assert not failures, "\n".join(failures)


# --------------------------------------------------------------------- R


def _r_differences(seeds):
    tasks = [r_problem(s) for s in seeds]
    with tempfile.TemporaryDirectory() as d:
        out, _ = rbridge.run_r(d, tasks)
    failures = []
    for s, t in zip(seeds, tasks):
        nb = E1071NaiveBayes().fit(t.X_train, t.y_train)
        diff_nb = int(np.sum(nb.predict(t.X_test) != out[(t.id, "nb")]))
        r_proba = out[(t.id, "nb_proba")]
        ok = np.isfinite(r_proba).all(axis=1)  # R's posterior is NA when a class has one case
        prob = float(np.abs(nb.predict_proba(t.X_test)[ok] - r_proba[ok]).max()) if ok.any() else 0.0
        svm = E1071SVC().fit(t.X_train, t.y_train)
        diff_svm = int(np.sum(svm.predict(t.X_test) != out[(t.id, "svm")]))
        dv = (
            float(np.abs(svm.decision_function(t.X_test) - out[(t.id, "svm_dv")]).max())
            if (t.id, "svm_dv") in out
            else 0.0
        )
        if diff_nb or prob > 1e-9:
            failures.append(
                f"e1071 naiveBayes: seed {s}: {diff_nb} differing predictions of {len(t.y_test)}, "
                f"largest posterior difference {prob:.3g} (r_problem({s}))"
            )
        # libsvm stops at tolerance 0.001: decision values agree to about that
        if diff_svm or dv > 5e-3:
            failures.append(
                f"e1071 svm: seed {s}: {diff_svm} differing predictions of {len(t.y_test)}, "
                f"largest decision value difference {dv:.3g} (r_problem({s}))"
            )
    return failures


@pytest.mark.needs_r
@needs_r
def test_e1071_learners_agree_on_random_data():
    failures = _r_differences(list(range(BASE_SEED, BASE_SEED + 80)))
    assert not failures, "\n".join(failures)


@pytest.mark.needs_r
@pytest.mark.slow
@needs_r
def test_e1071_learners_agree_on_random_data_sweep():
    failures = _r_differences(list(range(BASE_SEED + 1000, BASE_SEED + 1800)))
    assert not failures, "\n".join(failures)


# --------------------------------------------------------------------- the generators themselves


def test_generators_cover_the_edge_cases():
    probs = [weka_problem(s) for s in range(BASE_SEED, BASE_SEED + 60)]
    assert any(tr.X.shape[0] <= 8 for tr, _ in probs)
    assert any(np.isnan(tr.X).any() for tr, _ in probs) and any(np.isnan(te.X).any() for _, te in probs)
    assert any(np.isnan(tr.y).any() for tr, _ in probs)
    assert any(any(c is None for c in tr.categories) and any(c is not None for c in tr.categories) for tr, _ in probs)
    assert any(len(tr.class_categories) == 4 for tr, _ in probs)
    assert any(
        any(np.array_equal(tr.X[:, i], tr.X[:, j], equal_nan=True) for i in range(tr.X.shape[1]) for j in range(i))
        for tr, _ in probs
    )
    tasks = [r_problem(s) for s in range(BASE_SEED, BASE_SEED + 80)]
    assert any((t.X_train.max(axis=0) == t.X_train.min(axis=0)).any() for t in tasks)
    assert any(np.unique(t.y_train).size == 4 for t in tasks)
    assert all(np.isfinite(t.X_train).all() and np.unique(t.y_train).size >= 2 for t in tasks)
