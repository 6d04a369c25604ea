"""Berrar, Figure 10: replication probability against the Wilcoxon p-value, N = 20 data sets.

P_w (Equation 11, bootstrapped s*) as squares with 95% prediction intervals
(Equation 12), and the empirical replication probability F (red crosses), one
point per group of study 1.
"""

from _common import parse, study_figure


def main():
    args = parse(__doc__.splitlines()[0])
    study_figure("berrar1", "figure10", args)


if __name__ == "__main__":
    main()
