"""Berrar, Figure 11: replication probability against the binomial p-value, N = 44 data sets.

Binomial (black) and Bayesian (blue) point estimates with 95% prediction
intervals, and the empirical replication probability F (red crosses), for the
groups of study 2 whose mean success rate rounds to a significant number of wins.
"""

from _common import parse, plt, save, tables

from simstudy.plots import replication_vs_p


def main():
    args = parse(__doc__.splitlines()[0])
    t = tables("berrar2", args)["binomial"]
    t = t[t["binomial_p"] < 0.05].drop_duplicates("binomial_statistic")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    if len(t):
        replication_vs_p(t, "binomial", ax=ax, color="black", label="binomial model $P_b$", offset=0.95)
        replication_vs_p(t, "bayes", ax=ax, color="tab:blue", label="Bayesian model $P_B$", offset=1.05, show_f=False)
        for _, r in t.iterrows():
            ax.annotate(f"g={int(r['g'])}", (r["binomial_p"], 0.02), fontsize=7, ha="center")
        ax.legend(loc="lower left")
    else:
        ax.text(0.5, 0.5, "no group with a significant mean success rate at this profile", ha="center", transform=ax.transAxes)
    ax.set_title("Study 2: NB vs SVM over 44 data sets (binomial p-value), profile " + args.profile)
    save(fig, "figure11", args)


if __name__ == "__main__":
    main()
