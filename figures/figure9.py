"""Berrar, Figure 9: replication probability against the binomial p-value, N = 20 data sets.

Binomial (black) and Bayesian (blue) point estimates with 95% prediction
intervals, and the empirical replication probability F (red crosses), for the
groups of study 1 whose mean success rate rounds to a significant number of wins.
"""

from _common import parse, study_figure


def main():
    args = parse(__doc__.splitlines()[0])
    study_figure("berrar1", "figure9", args)


if __name__ == "__main__":
    main()
