"""Berrar, Figure 4: P_t and its 95% prediction interval against the p-value, nu = 9.

The observed t-statistic T of a two-sided test with p-value p is t_{nu, 1 - p/2};
P_t is Equation 13 and the interval Equation 14.  Analytic.
"""

import numpy as np
from _common import parse, plt, save
from scipy import stats

from simstudy.replication import t_model

NU = 9


def main():
    args = parse(__doc__.splitlines()[0], needs_results=False)
    p = np.logspace(-4, np.log10(0.05), 200)
    t = stats.t.isf(p / 2, NU)
    res = t_model(t, NU)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.fill_between(p, res.low, res.high, color="tab:blue", alpha=0.2, label="95% prediction interval")
    ax.plot(p, res.estimate, color="black", label="$P_t$")
    ax.axhline(0.95, color="grey", lw=0.6, ls=":")
    ax.set_xscale("log")
    ax.set_xlabel("p-value (log scale)")
    ax.set_ylabel("replication probability")
    ax.set_title(r"$\nu$ = 9")
    ax.legend(loc="lower left")
    save(fig, "figure4", args)


if __name__ == "__main__":
    main()
