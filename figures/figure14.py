"""Berrar, Figure 14: replication probability against the p-value of the corrected t-test.

P_t (Equation 13) as squares with 95% prediction intervals (Equation 14) and the
empirical replication probability F (red crosses), for the groups of study
4 with d >= 11, in 10-fold stratified cross-validation.
"""

from _common import label_points, parse, plt, save, tables

from simstudy.plots import replication_vs_p


def main():
    args = parse(__doc__.splitlines()[0])
    t = tables("berrar4", args)["t"]
    t = t[t["d"] >= 11]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    replication_vs_p(t, "t", ax=ax, label="$P_t$")
    label_points(ax, t["t_p"], t["t_P_high"] + 0.01, [f"d={int(v)}" for v in t["d"]])
    ax.legend(loc="lower left")
    ax.set_title("Study 4: SVM vs RF, profile " + args.profile)
    save(fig, "figure14", args)


if __name__ == "__main__":
    main()
