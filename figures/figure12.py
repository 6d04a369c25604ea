"""Berrar, Figure 12: replication probability against the Wilcoxon p-value, N = 44 data sets.

P_w (Equation 11, bootstrapped s*) as squares with 95% prediction intervals
(Equation 12), and the empirical replication probability F (red crosses), one
point per group of study 2.
"""

from _common import parse, plt, save, tables

from simstudy.plots import replication_vs_p


def main():
    args = parse(__doc__.splitlines()[0])
    t = tables("berrar2", args)["wilcoxon"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    model = "wilcoxon" if "wilcoxon_P" in t else "wilcoxon_s1"
    replication_vs_p(t, model, ax=ax, label="$P_w$" + (" (s* = 1: no bootstrap rows)" if model != "wilcoxon" else ""))
    ax.legend(loc="lower left")
    ax.set_title("Study 2: NB vs SVM over 44 data sets (Wilcoxon), profile " + args.profile)
    save(fig, "figure12", args)


if __name__ == "__main__":
    main()
