"""Build the matched sources matched2..4 of Bouckaert (2004) Table 1 and their record (``matched_sources.json``).

The stored sources bouckaert2..4 have the paper's C4.5 - naive Bayes gaps, yet
their power in Table 1 is lower than published on source 2, higher on source 3
and lower on source 4, for every scheme alike.  Besides the mean gap, the power
of a paired test over a 10 x 10 cv is set by the spread of the fold
differences.  On the stored paper-profile run (``results/bouckaert1/paper``,
1000 data sets per source) the fold differences (percentage points) are:

============  ========  ===================  =================  ==========
source        cv gap    sd over data sets    sd over folds      std. gap
============  ========  ===================  =================  ==========
bouckaert2    2.38      3.20                 8.65               0.276
bouckaert3    5.41      2.65                 7.10               0.761
bouckaert4    10.83     3.14                 7.85               1.380
============  ========  ===================  =================  ==========

The spread of a data set's gap over data sets is about the same on every source
(2.7 - 3.2 points), while the sd over folds (within one 10 x 10 cv) differs, and
it is mostly the disagreement of the two learners on 30 test cases (the variance
of a fold difference is about (disagreement - gap^2) / 30).  The property is
the *standardised gap* = (mean over data sets of the mean fold difference) /
(mean over data sets of the sd of the 100 fold differences).  Fitting
probit(power) = a + b * (standardised gap) per scheme and test on sources 2-4
of the stored run and inverting it at the published power gives the
standardised gap of Bouckaert's sources.  The five rows that are neither
saturated nor a test other than the paper's (resampling, k-fold cv, sorted runs
with rank sum, t and the printed sign rule) agree within 0.04:

* source 2: 0.392, 0.396, 0.412, 0.398, 0.386 -> target 0.396 (ours 0.276)
* source 3: 0.673, 0.687, 0.699, 0.723, 0.685 -> target 0.687 (ours 0.761)
* source 4: 1.602, 1.649, 1.665, 1.696, 1.624 -> target 1.649 (ours 1.380)

(``--measure RUN_DIR`` prints this table and the inversion again from a stored run.)

The search draws random augmented naive-Bayes networks (``propose_augmented_nb``),
screens each by its exact gap over 10 training sets of 300 cases, measures the
standardised gap of the promising ones on 8 data sets (one 10 x 10 cv each) and
confirms the 6 closest to both targets (distance = |gap - target| / 0.5 +
|std. gap - target| / 0.05) with 100 training sets and 40 data sets, and keeps
the closest confirmed candidate (the screen alone is too noisy: the standardised
gap of one data set has an sd of about 0.35).  The winner is measured again with
400 training sets (exact gap) and 100 data sets (standardised gap), and the
exact disagreement rate of its two learners is recorded.  Source 1 (no dependence) is the stored
bouckaert1 and is not rebuilt.

Run from the repository root::

    python simstudy/pipeline/sources/networks/make_matched_sources.py [--only matched3] [--candidates N]
    python simstudy/pipeline/sources/networks/make_matched_sources.py --measure results/bouckaert1/paper
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from simstudy.pipeline.sources.bayesnet import NETWORKS_DIR, measure_gap, propose_augmented_nb, write_source

HERE = NETWORKS_DIR  # the package's networks folder
SEED = 20040415
PAPER_GAPS = {"matched2": 2.77, "matched3": 5.83, "matched4": 11.27}
# standardised gaps implied by the published power (see the module docstring)
TARGET_STD_GAP = {"matched2": 0.396, "matched3": 0.687, "matched4": 1.649}
GAP_SCALE, STD_SCALE = 0.5, 0.05
# candidates screened for the stored networks (matched3 needed more: at 300 its best was 6.32 / 0.831)
CANDIDATES = {"matched2": 300, "matched3": 900, "matched4": 300}
INVERSION_ROWS = (
    "rank sum / resampling",
    "rank sum / kfold_cv",
    "rank sum / average_over_sorted_runs",
    "t / average_over_sorted_runs",
    "sign (cdf rule, C4.5 as A) / average_over_sorted_runs",
)


def cv_fold_differences(source, n_sets: int, rng, *, n_cases: int = 300, n_runs: int = 10, n_folds: int = 10):
    """Fold differences C4.5 - NB (points) of one n_runs x n_folds cv on each of ``n_sets`` data sets: (n_sets, runs*folds)."""
    from simstudy.protocols.bouckaert import (
        RepeatedCVCondition,
        experiment_accuracies,
        nominal_learner_factories,
    )

    cond = RepeatedCVCondition("bouckaert1", n_cases=n_cases, n_runs=n_runs, n_folds=n_folds, n_experiments=2)
    cond1 = _OneExperiment(cond)
    out = np.empty((n_sets, n_runs * n_folds))
    for i in range(n_sets):
        X, y = source.sample(n_cases, rng)
        learners = nominal_learner_factories(("weka.J48", "weka.NaiveBayes"), X.shape[1])
        acc = experiment_accuracies(X.astype(float), y, cond1, rng, learners)
        out[i] = 100.0 * (acc[0, ..., 0] - acc[0, ..., 1]).ravel()
    return out


class _OneExperiment:
    """A RepeatedCVCondition seen with a single experiment (the condition itself requires two)."""

    def __init__(self, cond):
        self._cond = cond
        self.n_experiments = 1

    def __getattr__(self, name):
        return getattr(self._cond, name)


def standardised_gap(diffs: np.ndarray) -> dict:
    """The property: mean fold difference / mean within-data-set sd of the fold differences, with its parts."""
    means, sds = diffs.mean(axis=1), diffs.std(axis=1, ddof=1)
    return {
        "std_gap": float(means.mean() / sds.mean()),
        "cv_gap": float(means.mean()),
        "sd_between_sets": float(means.std(ddof=1)),
        "sd_within_set": float(sds.mean()),
        "n_sets": int(diffs.shape[0]),
    }


def disagreement(source, rng, n_train_sets: int = 20, n_train: int = 300) -> float:
    """Probability (over the whole distribution) that C4.5 and NB trained on the same 300 cases predict differently."""
    Xall, p = source.joint_distribution()
    px = p.sum(axis=1)
    tree_f, nb_f = _learners()
    Xtr, ytr = source.sample(n_train, rng, n_sets=n_train_sets)
    rates = []
    for s in range(n_train_sets):
        a = np.asarray(tree_f().fit(Xtr[s], ytr[s]).predict(Xall))
        b = np.asarray(nb_f().fit(Xtr[s], ytr[s]).predict(Xall))
        rates.append(float(px[a != b].sum()))
    return float(np.mean(rates))


def _learners():
    """C4.5 and naive Bayes told the attributes' two categories (as make_sources.py measures the gaps)."""
    from simstudy.pipeline.learners.j48 import J48
    from simstudy.pipeline.learners.weka import WekaNaiveBayes

    kw = {"nominal": np.ones(10, dtype=bool), "n_categories": [2] * 10, "n_classes": 2}
    return (lambda: J48(**kw)), (lambda: WekaNaiveBayes(**kw))


def _distance(name, gap, std_gap):
    return abs(gap - PAPER_GAPS[name]) / GAP_SCALE + abs(std_gap - TARGET_STD_GAP[name]) / STD_SCALE


def search(name: str, rng, n_candidates: int, n_keep: int = 6):
    """Screen ``n_candidates`` networks cheaply, confirm the ``n_keep`` closest, return the best confirmed."""
    tree_f, nb_f = _learners()
    screened, tried = [], 0
    for _ in range(n_candidates):
        source, params = propose_augmented_nb(rng)
        tried += 1
        gap = measure_gap(source, tree_f, nb_f, rng, n_train_sets=10, n_test=None).gap
        if abs(gap - PAPER_GAPS[name]) > 1.5:
            continue
        prop = standardised_gap(cv_fold_differences(source, 8, rng))
        screened.append((_distance(name, gap, prop["std_gap"]), source, params, gap, prop["std_gap"]))
    screened.sort(key=lambda c: c[0])
    confirmed = []
    for _, source, params, screen_gap, screen_std in screened[:n_keep]:
        gap = measure_gap(source, tree_f, nb_f, rng, n_train_sets=100, n_test=None).gap
        std_gap = standardised_gap(cv_fold_differences(source, 40, rng))["std_gap"]
        confirmed.append(
            {
                "distance": _distance(name, gap, std_gap),
                "source": source,
                "params": params,
                "screen_gap": screen_gap,
                "screen_std_gap": screen_std,
                "confirm_gap": gap,
                "confirm_std_gap": std_gap,
            }
        )
    best = min(confirmed, key=lambda c: c["distance"]) if confirmed else None
    return best, tried, len(screened)


def build(n_candidates: dict, only=None, keep=None):
    out = dict(keep or {})
    streams = np.random.SeedSequence(SEED).spawn(len(PAPER_GAPS))
    tree_f, nb_f = _learners()
    for (name, target), ss in zip(PAPER_GAPS.items(), streams):
        if only and name not in only:
            continue
        t0 = time.perf_counter()
        search_rng, final_rng = (np.random.default_rng(s) for s in ss.spawn(2))
        best, tried, measured = search(name, search_rng, n_candidates[name])
        if best is None:
            raise SystemExit(f"{name}: no candidate within 1.5 points of the gap {target}; raise --candidates")
        source, params = best.pop("source"), best.pop("params")
        exact = measure_gap(source, tree_f, nb_f, final_rng, n_train_sets=400, n_test=None)
        prop = standardised_gap(cv_fold_differences(source, 100, final_rng))
        dis = disagreement(source, final_rng)
        write_source(source, HERE / f"{name}.xml")
        out[name] = {
            "file": f"{name}.xml",
            "paper_gap": target,
            "target_std_gap": TARGET_STD_GAP[name],
            "gap": exact.gap,
            "gap_se": exact.se,
            "accuracy_a": exact.accuracy_a,
            "accuracy_b": exact.accuracy_b,
            "n_gap_train_sets": exact.n_train_sets,
            **prop,
            "disagreement": dis,
            "bayes_accuracy": source.bayes_accuracy(),
            "n_arcs": source.n_arcs,
            "made_by": params,
            "search": {
                "n_tried": tried,
                "n_cv_screened": measured,
                "n_confirmed": 6,
                "confirm_train_sets": 100,
                "confirm_data_sets": 40,
                **best,
            },
        }
        print(
            f"{name}: gap {exact.gap:.2f} (target {target}), std gap {prop['std_gap']:.3f} "
            f"(target {TARGET_STD_GAP[name]}), disagreement {dis:.3f}, {tried} tried, "
            f"{time.perf_counter() - t0:.0f} s",
            flush=True,
        )
    return out


def measure_stored(run_dir: str):
    """The property on a stored bouckaert1 run, and the standardised gap its power implies for the paper's sources."""
    import pandas as pd
    from scipy.stats import norm

    from simstudy.outputs.runs import paired_scores

    d = paired_scores("bouckaert1", out=run_dir)
    d["x"] = 100.0 * (d.score_a - d.score_b)
    std = {}
    for src, g in d.groupby("source"):
        diffs = g.sort_values(["unit", "experiment", "run", "fold"])["x"].to_numpy().reshape(-1, 100)
        std[src] = standardised_gap(diffs)
        print(src, {k: round(v, 3) for k, v in std[src].items()})
    comp = pd.read_csv(Path(run_dir) / "comparison.csv")
    for row in INVERSION_ROWS:
        ours, pub = [], []
        for k in "234":
            r = comp[comp.quantity == f"{row}: power, source {k} (%)"].iloc[0]
            ours.append(r.ours / 100)
            pub.append(r.published / 100)
        x = np.array([std[f"bouckaert{k}"]["std_gap"] for k in "234"])
        b, a = np.polyfit(x, norm.ppf(np.clip(ours, 0.001, 0.999)), 1)
        implied = (norm.ppf(np.clip(pub, 0.001, 0.995)) - a) / b
        print(f"{row}: implied standardised gap of the paper's sources 2-4: {np.round(implied, 3)}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--candidates", type=int, help="candidates screened per source (default: CANDIDATES, as stored)")
    ap.add_argument("--only", nargs="+", choices=list(PAPER_GAPS), help="rebuild these sources, keep the others")
    ap.add_argument("--measure", metavar="RUN_DIR", help="only measure the property on a stored bouckaert1 run")
    args = ap.parse_args(argv)
    if args.measure:
        measure_stored(args.measure)
        return
    keep = None
    if args.only:
        with open(HERE / "matched_sources.json", encoding="utf-8") as fh:
            keep = json.load(fh)["sources"]
    counts = CANDIDATES if args.candidates is None else dict.fromkeys(PAPER_GAPS, args.candidates)
    sources = build(counts, args.only, keep)
    doc = {
        "description": (
            "Sources for Bouckaert (2004) Table 1 matched on the C4.5 - naive Bayes gap (300 training cases, "
            "exact accuracies, points) AND on the standardised gap (mean fold difference / mean sd of the 100 fold "
            "differences of a 10 x 10 cv of 300 cases) implied by the published power. Source 1 is the stored "
            "bouckaert1. Built by make_matched_sources.py (its docstring gives the targets' derivation)."
        ),
        "seed": SEED,
        "sources": sources,
    }
    with open(HERE / "matched_sources.json", "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")


if __name__ == "__main__":
    main()
