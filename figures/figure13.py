"""Berrar, Figure 13: replication probability against the p-value of the corrected t-test.

P_t (Equation 13) as squares with 95% prediction intervals (Equation 14) and the
empirical replication probability F (red crosses), for the groups of study
3 with q >= 3, in 10-fold stratified cross-validation.
"""

from _common import label_points, parse, plt, save, tables

from simstudy.plots import replication_vs_p


def main():
    args = parse(__doc__.splitlines()[0])
    t = tables("berrar3", args)["t"]
    t = t[t["q"] >= 3]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    replication_vs_p(t, "t", ax=ax, label="$P_t$")
    label_points(ax, t["t_p"], t["t_P_high"] + 0.01, [f"q={int(v)}" for v in t["q"]])
    ax.legend(loc="lower left")
    ax.set_title("Study 3: SVM with oracle vs SVM, profile " + args.profile)
    save(fig, "figure13", args)


if __name__ == "__main__":
    main()
