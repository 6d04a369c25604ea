"""assess_many's numbers side by side with autorank, baycomp, scikit-posthocs and scipy, on the same scores.

Four of the registered learners (Weka's NaiveBayes, J48, IB1 and a decision stump) on ten shipped UCI
data sets and scikit-learn's breast-cancer data, 2 x 10 cv each; every other package is given the very
same per-data-set means (and per-split scores, for baycomp's correlated t-test), so any difference is in
the statistics::

    .venv/bin/pip install autorank          # for this comparison only; not a dependency of simstudy
    .venv/bin/python benchmarks/compare_assess_many.py

It prints, per quantity, the largest absolute difference between simstudy and each package, and the
Conclusion of the assessment.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import warnings

import numpy as np
import pandas as pd

SETS = [
    "iris", "labor", "vote", "breast-cancer", "Wisconsin breast cancer", "heart-statlog", "ionosphere", "sonar",
    "pima diabetes", "credit-rating",
]  # fmt: skip
LEARNERS = {"bayes": "NB", "tree": "C4.5", "1nn": "NN", "stump": "stump"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--design", default="cv2x10")
    args = parser.parse_args(argv)

    import baycomp
    import scikit_posthocs as sp
    from autorank import autorank
    from scipy import stats
    from sklearn.datasets import load_breast_cancer

    from simstudy import assess_many

    data = {name: name for name in SETS}
    data["breast cancer (scikit-learn)"] = load_breast_cancer(return_X_y=True)
    m = assess_many(data, LEARNERS, design=args.design, jobs=args.jobs)
    labels = m.labels
    means = m.tables["means"].set_index("data set")[labels]
    print(m.conclusion.text, "\n")
    show = ["A", "B", "mean A - B", "Wilcoxon p", "Wilcoxon p (Holm)", "sign p", "sign p (Holm)", "P(A better)",
            "P(equivalent)", "P(B better)"]  # fmt: skip
    with pd.option_context("display.width", 200):
        print(m.tables["across"][show].to_string(index=False, float_format=lambda v: f"{v:.3g}"), "\n")
    rows = []

    def row(what, ours, theirs, package):
        ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
        rows.append(
            {"quantity": what, "package": package, "largest |difference|": float(np.max(np.abs(ours - theirs)))}
        )

    # Friedman, mean ranks and Nemenyi's critical difference
    fr = m.tables["friedman"].iloc[0]
    chi2, p = stats.friedmanchisquare(*[means[c].to_numpy() for c in labels])
    row("Friedman chi2", fr["chi2"], chi2, "scipy")
    row("Friedman p", fr["p (chi2)"], p, "scipy")
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):  # autorank prints its choices
        warnings.simplefilter("ignore")
        ar = autorank(means, alpha=0.05, verbose=False, force_mode="nonparametric")
    ranks = m.tables["ranks"].set_index("learner")["mean rank"]
    # autorank ranks in descending order of the score (rank 1 the best), as Demsar does
    row("mean ranks", ranks[ar.rankdf.index].to_numpy(), ar.rankdf["meanrank"].to_numpy(), "autorank")
    row("Friedman p", fr["p (chi2)"], ar.pvalue, "autorank")
    row("Nemenyi critical difference", fr["Nemenyi CD"], ar.cd, "autorank")
    nem = sp.posthoc_nemenyi_friedman(means.to_numpy())
    from simstudy.statistics.multiple import nemenyi_test

    ours_nem = nemenyi_test(means.to_numpy()).pvalues
    row("Nemenyi pairwise p", ours_nem, nem.to_numpy(), "scikit-posthocs")

    # pairwise Wilcoxon over data sets, raw and Holm-adjusted
    across = m.tables["across"]
    wil = sp.posthoc_wilcoxon(means.to_numpy().T.tolist(), p_adjust="holm", zero_method="wilcox", correction=False)
    raw = sp.posthoc_wilcoxon(means.to_numpy().T.tolist(), zero_method="wilcox", correction=False)
    idx = {n: i + 1 for i, n in enumerate(labels)}
    theirs_holm = [wil.loc[idx[a], idx[b]] for a, b in zip(across["A"], across["B"])]
    theirs_raw = [raw.loc[idx[a], idx[b]] for a, b in zip(across["A"], across["B"])]
    row("Wilcoxon p over data sets", across["Wilcoxon p"], theirs_raw, "scikit-posthocs")
    row("Wilcoxon p, Holm-adjusted", across["Wilcoxon p (Holm)"], theirs_holm, "scikit-posthocs")
    scipy_w = [stats.wilcoxon(means[a] - means[b]).pvalue for a, b in zip(across["A"], across["B"])]
    row("Wilcoxon p over data sets", across["Wilcoxon p"], scipy_w, "scipy")

    # Bayesian signed-rank over data sets (Monte Carlo on both sides: 50,000 samples each)
    bsr = []
    for a, b in zip(across["A"], across["B"]):
        bsr.append(baycomp.two_on_multiple(means[a].to_numpy(), means[b].to_numpy(), rope=m.rope, nsamples=50_000))
    row("Bayesian signed-rank P(A), P(rope), P(B)", across[["P(A better)", "P(equivalent)", "P(B better)"]], bsr,
        "baycomp")  # fmt: skip

    # the correlated t-test on every data set and pair: baycomp's runs from to_baycomp
    pairs = m.tables["pairs"]
    ours, theirs = [], []
    for (a, b), _ in pairs.groupby(["A", "B"], sort=False):
        x, y, runs = m.to_baycomp(a, b)
        for k in range(x.shape[0]):
            theirs.append(baycomp.two_on_single(x[k], y[k], rope=m.rope, runs=runs))
            r = pairs[(pairs["A"] == a) & (pairs["B"] == b)].iloc[k]
            ours.append((r["P(A better)"], r["P(equivalent)"], r["P(B better)"]))
    row("correlated t-test P(A), P(rope), P(B), every data set and pair", ours, theirs, "baycomp")
    with pd.option_context("display.width", 200, "display.max_colwidth", 80):
        print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.2g}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
