"""Bouckaert 2004, Figure 2: variance of the replicability estimators R1 and R2.

The surfaces are the formulas (var R1 = (r - r^2)/(n/2) and the corrected
Theorem 3.1 for R2) over r in (0.5, 1) and n = 4..28; the points on top are
simulated: n outcomes per experiment drawn independently with P(accept) = p,
where r = p^2 + (1 - p)^2 is the replicability, and the empirical variance of
the estimator over ``n_sim`` simulated experiments.
"""

from __future__ import annotations

import numpy as np

from simstudy.errors import InputError

__all__ = ["simulated_variances", "bouckaert_variance_panel", "bouckaert_figure2", "N_SIM"]

N_SIM = 20_000
ESTIMATORS = ("R1", "R2")


def simulated_variances(r, n, rng, *, n_sim: int = N_SIM) -> tuple[float, float]:
    """Empirical variances of R1 and R2 over ``n_sim`` experiments of ``n`` outcomes with replicability ``r``.

    Parameters
    ----------
    r : float
        Replicability, in [0.5, 1].
    n : int
        Outcomes per experiment.
    rng : numpy.random.Generator
    n_sim : int
        Simulated experiments.

    Returns
    -------
    (float, float)
        The variances of R1 and of R2.
    """
    from simstudy.statistics.replicability import r1, r2

    p = 0.5 + np.sqrt(2 * r - 1) / 2
    outcomes = (rng.random((n_sim, n)) < p).astype(int)
    return float(np.var(r1(outcomes), ddof=1)), float(np.var(r2(outcomes), ddof=1))


def bouckaert_variance_panel(ax, estimator: str, rng, *, n_sim: int = N_SIM) -> float:
    """One panel of the figure: the variance formula of ``estimator`` as a surface, simulated points on top.

    Parameters
    ----------
    ax : mpl_toolkits.mplot3d.axes3d.Axes3D
        A 3-D Axes (``fig.add_subplot(..., projection="3d")``).
    estimator : {"R1", "R2"}
    rng : numpy.random.Generator
        Draws the simulated points (15 points of ``n_sim`` experiments each).
    n_sim : int
        Simulated experiments per point.

    Returns
    -------
    float
        The largest relative gap between simulated and formula variance over the points.
    """
    from simstudy.statistics.replicability import r1_variance, r2_variance

    if estimator not in ESTIMATORS:
        raise InputError(f"estimator: must be one of {', '.join(ESTIMATORS)}, got {estimator!r}")
    formula = r1_variance if estimator == "R1" else r2_variance
    which = ESTIMATORS.index(estimator)
    rs = np.linspace(0.5, 0.999, 60)
    ns = np.arange(4, 29, 2)
    R, N = np.meshgrid(rs, ns)
    ax.plot_surface(R, N, formula(R, N), cmap="viridis", alpha=0.6, linewidth=0)
    pts = [
        (r, n, simulated_variances(r, n, rng, n_sim=n_sim)[which])
        for r in (0.6, 0.8, 0.95)
        for n in (4, 10, 16, 22, 28)
    ]
    pr, pn, pv = map(np.array, zip(*pts))
    ax.scatter(pr, pn, pv, color="red", marker="x", s=30, depthshade=False, label="simulated")
    ax.set_xlabel("replicability r")
    ax.set_ylabel("experiments n")
    ax.set_zlabel(f"var({estimator})")
    ax.set_title(f"variance of {estimator}: formula (surface), simulation (red)")
    ax.legend(loc="upper right")
    return float(np.max(np.abs(pv - formula(pr, pn)) / formula(pr, pn)))


def bouckaert_figure2(fig, *, seed: int = 2004, n_sim: int = N_SIM) -> dict[str, float]:
    """The whole figure: the R1 and R2 panels side by side on ``fig`` (12 x 5 inches in the paper's layout).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Without Axes; its layout engine is switched off.
    seed : int
        Seed of the simulated points (one generator for both panels, R1 first).
    n_sim : int
        Simulated experiments per point.

    Returns
    -------
    dict
        Per estimator, the largest relative gap between simulated and formula variance.
    """
    rng = np.random.default_rng(seed)
    # constrained layout cannot size 3-D Axes (it shrinks them to nothing); the subplot grid fits them
    fig.set_layout_engine("none")
    gaps = {}
    for i, name in enumerate(ESTIMATORS):
        ax = fig.add_subplot(1, 2, i + 1, projection="3d")
        gaps[name] = bouckaert_variance_panel(ax, name, rng, n_sim=n_sim)
    return gaps
