"""Berrar, Figure 2: replication probability for every significant outcome of N = 44 data sets.

For each number of wins x whose two-sided binomial p-value is significant, the
binomial (Lemma 1) and Bayesian (Lemma 2) estimates with their 95% intervals are
drawn against the p-value.  Analytic: no stored results needed.
"""

from _common import parse, save

from simstudy.outputs.plots import berrar_figure2, new_figure

N = 44


def main():
    args = parse(__doc__.splitlines()[0], needs_results=False)
    fig = new_figure((7, 4.5))
    berrar_figure2(fig.add_subplot(), n=N)
    save(fig, "figure2", args)


if __name__ == "__main__":
    main()
