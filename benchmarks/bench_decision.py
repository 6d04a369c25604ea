"""The assess Conclusion against known truth: false decisions and "not settled", beside the corrected t and
baycomp's correlated t-test on a 10x10 cv.

Every case is a source of data sets whose truth is known, and two learners:

* ``lda-1nn``: LDA against 1-nearest neighbour on two Gaussian classes (5 attributes, positives shifted by
  ``mu`` in each; n = 300 cases): LDA is the Bayes rule there, so A is better; the true gap at the 10x10 cv's
  training size (270 cases) is measured once on ``--truth-cases`` fresh test cases over ``--truth-sets``
  training sets and printed;
* real data with a crippled model: data sets of 300 cases drawn without replacement from the 768 of the
  Pima diabetes data (the population), logistic regression against itself without plasma glucose and body
  mass (A better; the gap on all 768 cases is printed), and logistic regression with C = 1 against C = 1.0001
  (null: the same model); and, null too, the same randomised learner as A and B, each with its own seeds: a
  random forest of 50 trees, a decision tree choosing among a random subset of attributes at every node, and
  ten bagged 1-nearest neighbours (``--cases pima-forest-vs-forest pima-random-tree-vs-random-tree
  pima-bagged-1nn-vs-bagged-1nn``; not in the default list);
* ``lda1-1nn-null`` (not in the default list): a stable learner against an unstable one of the same expected
  accuracy, the null twin of ``lda-1nn``: LDA on the first attribute alone against 1-NN on all five, on the
  lda-1nn source with positives shifted by 0.44, where the two meet at 270 training cases (the gaps at 270 and
  150 training cases are measured and printed);
* the proving ground's two-view Gaussian worlds (``simstudy/apps/proving/truth.json``): the same learner
  on two views, null (``e0``) or with view A more informative (``e0.5``), for a stable learner (LDA), a
  moderately stable one (1-NN) and an unstable one (a decision tree); and its ``mixed-*`` worlds, a stable
  learner on view A against an unstable one on view B or on both (``-ab``), null by measurement or with
  view A more informative (``e0.25``, ``e0.5``).  Their data sets here are new (this
  script's seed), though the scenarios are those the Conclusion's procedures were calibrated on.

On every data set the script runs ``assess`` twice: with its defaults (the Conclusion a practitioner
reads) and on one 10x10 cv, from which it takes the corrected t-test (decides when p <= 0.05) and the
Bayesian correlated t-test as baycomp computes it (decides when a side beyond the ROPE of 0.01 gets 0.95),
and the same corrected t with its correlation term inflated by the factor the proving ground calibrated for
the learners' stability class (the class the default assessment measured; ``simstudy/pipeline/data/
inflation.json``): the 10x10 cv's test brought to size, whose power is the 10x10 cv's size-adjusted power.
Column ``both designs``: the two designs together (one 10x10 cv and the default's five 5x2 cvs, 200 fits),
decided as the Conclusion decides several designs: the design whose calibrated procedure controls size for
the class with the most power on the proving ground decides, the other (if it controls size) may only veto.
A *false decision* is a side (A or B better) on a null case, or the wrong side or "equivalent" on an
alternative.  Per method the table counts ``right`` (the true side; on a null case, no side), ``false``,
and ``not settled`` (on a null case: "equivalent", which is right too).

    .venv/bin/python benchmarks/bench_decision.py --data-sets 40 --jobs 2
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROPE = 0.01
#: a stable learner against an unstable one with the same expected accuracy: LDA on the first attribute alone
#: against 1-NN on all five, on the lda-1nn source with the shift at which their accuracies meet at 270 training
#: cases (:func:`mixed_gap`, printed when the case runs)
MIXED_NULL = "lda1-1nn-null"
MIXED_MU = 0.44


def _lda_1nn_source(mu: float):
    from simstudy.pipeline.sources import GaussianClasses

    return GaussianClasses(5, mu, 1.0)


def _real(case: str):
    """The real data set of a ``pima-*`` case: all 768 cases of the Pima diabetes data (the population a data
    set of 300 is drawn from)."""
    from simstudy.apps.assess import load_data

    return load_data("pima diabetes")


def _logreg(cols=None, C: float = 1.0):
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    steps = [StandardScaler(), LogisticRegression(C=C, max_iter=2000)]
    if cols is not None:
        steps.insert(0, ColumnTransformer([("kept", "passthrough", list(cols))]))
    return make_pipeline(*steps)


#: A crippled model: logistic regression without plasma glucose and body mass (columns 1 and 5 of 8).
CRIPPLED = (0, 2, 3, 4, 6, 7)


def _forest():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=50)


def _random_tree():
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(max_features="sqrt")  # a random subset of attributes at every node


def _bagged_1nn():
    from sklearn.ensemble import BaggingClassifier
    from sklearn.neighbors import KNeighborsClassifier

    return BaggingClassifier(KNeighborsClassifier(1), n_estimators=10)


#: Real-data null cases of unstable learners: the same randomised learner as A and B on Pima.
_SEEDED_NULLS = {
    "pima-forest-vs-forest": _forest,
    "pima-random-tree-vs-random-tree": _random_tree,
    "pima-bagged-1nn-vs-bagged-1nn": _bagged_1nn,
}


def _learners(case: str, n_attributes: int):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.neighbors import KNeighborsClassifier

    if case.startswith("lda-1nn"):
        return ("lda", LinearDiscriminantAnalysis()), ("1nn", KNeighborsClassifier(1))
    if case == MIXED_NULL:  # LDA on the first attribute alone against 1-NN on all five
        from sklearn.compose import ColumnTransformer
        from sklearn.pipeline import make_pipeline

        first = make_pipeline(ColumnTransformer([("first", "passthrough", [0])]), LinearDiscriminantAnalysis())
        return ("lda on 1", first), ("1nn", KNeighborsClassifier(1))
    if case == "pima-logreg-vs-crippled":
        return ("logreg", _logreg()), ("crippled", _logreg(CRIPPLED))
    if case == "pima-logreg-C1-vs-C1.0001":
        return ("C=1", _logreg(C=1.0)), ("C=1.0001", _logreg(C=1.0001))
    if case in _SEEDED_NULLS:  # the same randomised learner twice: each gets its own seeds, the truth is null
        return ("A", _SEEDED_NULLS[case]()), ("B", _SEEDED_NULLS[case]())
    from sklearn.compose import ColumnTransformer
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.tree import DecisionTreeClassifier

    from simstudy.apps.proving.scenarios import scenario

    # the scenario's learner on each view, as scikit-learn estimators (unpruned CART for the tree)
    make = {
        "lda": LinearDiscriminantAnalysis,
        "1nn": lambda: KNeighborsClassifier(1),
        "tree": DecisionTreeClassifier,
        "nb": GaussianNB,
    }
    sc = scenario(case)
    m = sc.world.n_view
    views = (list(range(m)), list(range(m, 2 * m)))
    kinds = (case.split("-")[1],) * 2
    if sc.family == "mixed":  # a stable learner on view A against an unstable one on view B (or on both)
        kinds = tuple(sc.pair.split("-"))
        views = (views[0], list(range(2 * m)) if sc.b_views == "AB" else views[1])
    return tuple(
        (name, make_pipeline(ColumnTransformer([("view", "passthrough", cols)]), make[kind]()))
        for name, cols, kind in zip(("A", "B"), views, kinds)
    )


def _data(case: str, mu: float, rng):
    if case.startswith("lda-1nn"):
        return _lda_1nn_source(mu).sample(300, rng)
    if case == MIXED_NULL:
        return _lda_1nn_source(MIXED_MU).sample(300, rng)
    if case.startswith("pima-"):
        d = _real(case)
        pick = rng.choice(d.y.size, size=300, replace=False)
        return d.X[pick], d.y[pick]
    from simstudy.apps.proving.scenarios import scenario

    return scenario(case).data(rng)


def _truth(case: str) -> str:
    if case.startswith("lda-1nn") or case == "pima-logreg-vs-crippled":
        return "A"
    if case in ("pima-logreg-C1-vs-C1.0001", MIXED_NULL):
        return "null"  # the same model but for a regularisation a ten-thousandth apart
    if case in _SEEDED_NULLS:
        return "null"
    import json

    from simstudy.apps.proving.scenarios import __file__ as here

    truth = json.loads((Path(here).with_name("truth.json")).read_text())["scenarios"]
    return truth[case]["truth"]


def true_gap(mu: float, sets: int, cases: int, seed: int = 1) -> float:
    """LDA's minus 1-NN's expected accuracy when trained on 270 cases of the lda-1nn source."""
    rng = np.random.default_rng(seed)
    src = _lda_1nn_source(mu)
    gaps = []
    for _ in range(sets):
        X, y = src.sample(270, rng)
        Xt, yt = src.sample(cases, rng)
        (_, a), (_, b) = _learners("lda-1nn", 5)
        gaps.append(a.fit(X, y).score(Xt, yt) - b.fit(X, y).score(Xt, yt))
    return float(np.mean(gaps))


def mixed_gap(n_train: int, sets: int, cases: int, seed: int = 1) -> tuple[float, float]:
    """The mixed null's LDA-on-one-attribute minus 1-NN expected accuracy at ``n_train`` training cases, and its
    standard error over the ``sets`` training sets."""
    rng = np.random.default_rng(seed)
    src = _lda_1nn_source(MIXED_MU)
    gaps = []
    for _ in range(sets):
        X, y = src.sample(n_train, rng)
        Xt, yt = src.sample(cases, rng)
        (_, a), (_, b) = _learners(MIXED_NULL, 5)
        gaps.append(a.fit(X, y).score(Xt, yt) - b.fit(X, y).score(Xt, yt))
    return float(np.mean(gaps)), float(np.std(gaps, ddof=1) / np.sqrt(sets))


def crippled_gap() -> float:
    """Logistic regression's accuracy minus the crippled model's over a 10x10 cv of all 768 Pima cases."""
    from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score

    d = _real("pima")
    cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=0)
    a = cross_val_score(_logreg(), d.X, d.y, cv=cv).mean()
    return float(a - cross_val_score(_logreg(CRIPPLED), d.X, d.y, cv=cv).mean())


def one(case: str, mu: float, index: int, seed: int) -> dict:
    """The three verdicts on one data set of ``case``."""
    import warnings

    from simstudy.apps.assess import assess
    from simstudy.pipeline.inflation import inflated_cv_t_test, pooled_evidence
    from simstudy.statistics.bayesian import correlated_t_test
    from simstudy.statistics.significance import corrected_repeated_cv_t_test

    rng = np.random.default_rng([seed, index, zlib.crc32(case.encode())])  # the same data sets in every run
    X, y = _data(case, mu, rng)
    a, b = _learners(case, X.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        default = assess(X, y, a, b, seed=int(rng.integers(2**31)), in_process=True)
        seconds = time.perf_counter() - t0
        cv = assess(X, y, a, b, designs=("cv10x10",), n_repeats=1, seed=int(rng.integers(2**31)), in_process=True)
    scores = cv.run.table("scores").sort_values(["run", "fold"])
    cols = [c for c in scores.columns if c.startswith("acc_") or c in (a[0], b[0])]
    sa, sb = scores[cols[0]].to_numpy(float), scores[cols[1]].to_numpy(float)
    d = (sa - sb).reshape(10, 10)
    n_test = int(round(len(y) / 10))
    t = corrected_repeated_cv_t_test(d, n_train=len(y) - n_test, n_test=n_test)
    bay = correlated_t_test(d.reshape(-1), n_train=len(y) - n_test, n_test=n_test, rope=ROPE)
    corrected = ("A" if t.direction > 0 else "B") if t.pvalue <= 0.05 else "not settled"
    conclusion = {"A better": "A", "B better": "B", "equivalent within the ROPE": "equivalent"}.get(
        default.conclusion.verdict, "not settled"
    )
    # the same corrected t with its correlation term inflated by the factor calibrated for the learners' class (the
    # class the Conclusion measured): the 10x10 cv's test brought to size, as the proving ground calibrated it
    cls = getattr(default.shipped, "name", "all")
    ten = pooled_evidence("cv10x10", 1, cls)
    factor = ten["factor"] if ten else None
    adjusted = "not settled"
    if factor is not None:
        ti = inflated_cv_t_test(d, n_train=len(y) - n_test, n_test=n_test, factor=factor)
        adjusted = ("A" if ti.direction > 0 else "B") if ti.pvalue <= 0.05 else "not settled"
    # both designs (one 10x10 cv and the default's five 5x2 cvs): the one whose calibrated procedure controls size
    # for the class with the most power decides, the other may only veto (a contrary side)
    five = pooled_evidence("5x2cv", 5, cls)
    ten_ok = bool(ten and ten["size"] == "controls size")
    ten_leads = ten_ok and (not five or five["size"] != "controls size" or ten["power"] > five["power"])
    lead, other = (adjusted, conclusion) if ten_leads else (conclusion, adjusted if ten_ok else None)
    both = "not settled" if other in ("A", "B") and lead in ("A", "B") and other != lead else lead
    baycomp = (
        "A"
        if bay.p_a_better >= 0.95
        else "B"
        if bay.p_b_better >= 0.95
        else ("equivalent" if bay.p_rope >= 0.95 else "not settled")
    )
    return {"case": case, "conclusion": conclusion, "corrected 10x10": corrected, "baycomp 10x10": baycomp,
            "inflated 10x10": adjusted, "both designs": both, "class": cls, "factor": factor, "seconds": seconds}  # fmt: skip


def _classes(g) -> str:
    """The stability classes the Conclusion measured on a case's data sets, with their 10x10 factors and counts."""
    counts = g.groupby(["class", "factor"], dropna=False).size()
    return "; ".join(f"{c} ({f:g}): {n}" if f == f else f"{c} (none): {n}" for (c, f), n in counts.items())


def main(argv=None) -> int:
    import pandas as pd
    from joblib import Parallel, delayed

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-sets", type=int, default=40, help="data sets per case (default 40)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--seed", type=int, default=20261205)
    p.add_argument("--mu", type=float, default=0.45, help="shift of the lda-1nn source's positives (default 0.45)")
    p.add_argument("--truth-sets", type=int, default=100)
    p.add_argument("--truth-cases", type=int, default=20000)
    p.add_argument("--cases", nargs="*", default=None)
    args = p.parse_args(argv)
    cases = args.cases or [
        "lda-1nn",
        "gauss-lda-n300-rho0-e0",
        "gauss-1nn-n300-rho0-e0",
        "gauss-tree-n300-rho0-e0",
        "gauss-lda-n300-rho0-e0.5",
        "gauss-1nn-n300-rho0-e0.5",
        "gauss-tree-n300-rho0-e0.5",
        "pima-logreg-vs-crippled",
        "pima-logreg-C1-vs-C1.0001",
    ]
    gap = true_gap(args.mu, args.truth_sets, args.truth_cases)
    print(f"lda-1nn: true gap at 270 training cases {100 * gap:.1f} points (mu = {args.mu:g})", flush=True)
    print(f"pima-logreg-vs-crippled: gap {100 * crippled_gap():.1f} points on the 768 cases (10x10 cv)", flush=True)
    if MIXED_NULL in cases:
        for n_train in (270, 150):  # the 10x10 cv's training size, and the 5x2 cv's
            g, se = mixed_gap(n_train, args.truth_sets, args.truth_cases)
            print(f"{MIXED_NULL}: gap {100 * g:.2f} points (standard error {100 * se:.2f}) at {n_train} training cases")
    t0 = time.perf_counter()
    rows = Parallel(n_jobs=args.jobs)(
        delayed(one)(c, args.mu, i, args.seed) for c in cases for i in range(args.data_sets)
    )
    df = pd.DataFrame(rows)
    out = []
    for case, g in df.groupby("case", sort=False):
        truth = _truth(case)
        row = {"case": case, "truth": truth, "data sets": len(g), "class (factor)": _classes(g)}
        for col in ("conclusion", "corrected 10x10", "baycomp 10x10", "inflated 10x10", "both designs"):
            v = g[col]
            right = int((v == truth).sum()) if truth in ("A", "B") else int((~v.isin(["A", "B"])).sum())
            false = (
                int((v.isin(["A", "B", "equivalent"]) & (v != truth)).sum())
                if truth in ("A", "B")
                else int(v.isin(["A", "B"]).sum())
            )
            row[f"{col}: right"] = right
            row[f"{col}: false"] = false
            row[f"{col}: not settled"] = (
                int((v == "not settled").sum()) if truth in ("A", "B") else int((v == "equivalent").sum())
            )
        out.append(row)
    table = pd.DataFrame(out)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(table.to_string(index=False))
    print(
        f"{len(df)} data sets in {time.perf_counter() - t0:.0f} s; default assess {df['seconds'].median():.1f} s median"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
