"""Berrar, Figure 2: replication probability for every significant outcome of N = 44 data sets.

For each number of wins x whose two-sided binomial p-value is significant, the
binomial (Lemma 1) and Bayesian (Lemma 2) estimates with their 95% intervals are
drawn against the p-value.  Analytic: no stored results needed.
"""

import numpy as np
from _common import parse, plt, save

from simstudy.hypothesis import binomial_test
from simstudy.plots import estimate_vs_p
from simstudy.replication import bayesian_model, binomial_model

N = 44


def main():
    args = parse(__doc__.splitlines()[0], needs_results=False)
    wins = np.arange(N // 2, N + 1)
    p = np.asarray(binomial_test(wins, N).pvalue)
    keep = p < 0.05
    wins, p = wins[keep], p[keep]
    b, bayes = binomial_model(wins, N), bayesian_model(wins, N)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    estimate_vs_p(p, b.estimate, b.low, b.high, ax=ax, color="black", label="binomial model $P_b$", offset=0.93)
    estimate_vs_p(p, bayes.estimate, bayes.low, bayes.high, ax=ax, color="tab:blue", label="Bayesian model $P_B$", offset=1.07)
    ax.set_title(f"N = {N}: all {keep.sum()} significant outcomes ({wins.min()}..{wins.max()} wins)")
    ax.axhline(0.5, color="grey", lw=0.6, ls=":")
    ax.legend(loc="lower left")
    save(fig, "figure2", args)


if __name__ == "__main__":
    main()
