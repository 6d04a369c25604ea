"""Berrar, Figure 12: replication probability against the Wilcoxon p-value, N = 44 data sets.

P_w (Equation 11, bootstrapped s*) as squares with 95% prediction intervals
(Equation 12), and the empirical replication probability F (red crosses), one
point per group of study 2.
"""

from _common import parse, wilcoxon_figure


def main():
    args = parse(__doc__.splitlines()[0])
    wilcoxon_figure("berrar2", "figure12", "Study 2: NB vs SVM over 44 data sets", args)


if __name__ == "__main__":
    main()
