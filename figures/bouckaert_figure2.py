"""Bouckaert 2004, Figure 2: variance of the replicability estimators R1 and R2.

The surfaces are the formulas (var R1 = (r - r^2)/(n/2) and the corrected
Theorem 3.1 for R2) over r in (0.5, 1) and n = 4..28; the points on top are
simulated: n outcomes per experiment drawn independently with P(accept) = p,
where r = p^2 + (1 - p)^2 is the replicability, and the empirical variance of
R1 and R2 over 20,000 simulated experiments.  Analytic plus a seconds-long
simulation (fixed seed).
"""

from _common import parse, save

from simstudy.outputs.plots import bouckaert_figure2, new_figure
from simstudy.outputs.plots.bouckaert import N_SIM


def main():
    args = parse(__doc__.splitlines()[0], needs_results=False)
    fig = new_figure((12, 5))
    for name, worst in bouckaert_figure2(fig, seed=2004, n_sim=N_SIM).items():
        print(
            f"{name}: largest relative gap between simulated and formula variance {worst:.3f} "
            f"({N_SIM} simulated experiments per point)"
        )
    save(fig, "bouckaert_figure2", args)


if __name__ == "__main__":
    main()
