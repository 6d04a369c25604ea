"""Bouckaert 2004, Figure 2: variance of the replicability estimators R1 and R2.

The surfaces are the formulas (var R1 = (r - r^2)/(n/2) and the corrected
Theorem 3.1 for R2) over r in (0.5, 1) and n = 4..28; the points on top are
simulated: n outcomes per experiment drawn independently with P(accept) = p,
where r = p^2 + (1 - p)^2 is the replicability, and the empirical variance of
R1 and R2 over 20,000 simulated experiments.  Analytic plus a seconds-long
simulation (fixed seed).
"""

import numpy as np
from _common import parse, plt, save

from simstudy.replicability import r1, r1_variance, r2, r2_variance

N_SIM = 20_000


def simulated_variances(r, n, rng):
    p = 0.5 + np.sqrt(2 * r - 1) / 2
    outcomes = (rng.random((N_SIM, n)) < p).astype(int)
    return float(np.var(r1(outcomes), ddof=1)), float(np.var(r2(outcomes), ddof=1))


def main():
    args = parse(__doc__.splitlines()[0], needs_results=False)
    rng = np.random.default_rng(2004)
    rs = np.linspace(0.5, 0.999, 60)
    ns = np.arange(4, 29, 2)
    R, N = np.meshgrid(rs, ns)
    fig = plt.figure(figsize=(12, 5))
    for i, (name, formula, which) in enumerate((("R1", r1_variance, 0), ("R2", r2_variance, 1))):
        ax = fig.add_subplot(1, 2, i + 1, projection="3d")
        ax.plot_surface(R, N, formula(R, N), cmap="viridis", alpha=0.6, linewidth=0)
        pts = [(r, n, simulated_variances(r, n, rng)[which]) for r in (0.6, 0.8, 0.95) for n in (4, 10, 16, 22, 28)]
        pr, pn, pv = map(np.array, zip(*pts))
        ax.scatter(pr, pn, pv, color="red", marker="x", s=30, depthshade=False, label="simulated")
        ax.set_xlabel("replicability r")
        ax.set_ylabel("experiments n")
        ax.set_zlabel(f"var({name})")
        ax.set_title(f"variance of {name}: formula (surface), simulation (red)")
        ax.legend(loc="upper right")
        worst = np.max(np.abs(pv - formula(pr, pn)) / formula(pr, pn))
        print(f"{name}: largest relative gap between simulated and formula variance {worst:.3f} "
              f"({N_SIM} simulated experiments per point)")
    save(fig, "bouckaert_figure2", args)


if __name__ == "__main__":
    main()
