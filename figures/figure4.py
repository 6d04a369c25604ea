"""Berrar, Figure 4: P_t and its 95% prediction interval against the p-value, nu = 9.

The observed t-statistic T of a two-sided test with p-value p is t_{nu, 1 - p/2};
P_t is Equation 13 and the interval Equation 14.  Analytic.
"""

from _common import parse, save

from simstudy.outputs.plots import berrar_figure4, new_figure

NU = 9


def main():
    args = parse(__doc__.splitlines()[0], needs_results=False)
    fig = new_figure((7, 4.5))
    berrar_figure4(fig.add_subplot(), nu=NU)
    save(fig, "figure4", args)


if __name__ == "__main__":
    main()
