"""The papers' analytic figures on the reproduction page, with the worked values of their text beside ours.

Berrar's Figures 2 (binomial and Bayesian replication probability of every
significant outcome of N = 44 data sets) and 4 (P_t against the p-value, 9
degrees of freedom) and Bouckaert's Figure 2 (the variances of R1 and R2) need
no simulation: they are functions of the statistics in
:mod:`simstudy.statistics`.  Their text prints worked values (Berrar's
Examples 1 to 4 and the values read off the figures); each is computed here
and compared by the page's rules, as an exact value: it agrees when ours,
rounded as printed, is the printed number.  Bouckaert's Figure 2 carries a
claim (R2's variance is below R1's except at r = 1, where both are 0), checked
on a grid of the figure's range.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simstudy._lazy import lazy_module

pd = lazy_module("pandas")

__all__ = ["analytic_sections"]

B = "Berrar, Sect. 2"


def _values(rows: list[tuple[str, float, float, str, dict]]):
    """``(label, published, ours, source, options)`` -> the exact-value table and its published entries."""
    from simstudy.outputs.tables import Published

    frame = pd.DataFrame(
        {
            "quantity": [r[0] for r in rows],
            "value": [float(r[2]) for r in rows],
            "value_mc_low": [float(r[2]) for r in rows],
            "value_mc_high": [float(r[2]) for r in rows],
        }
    )
    published = [
        Published(label, "values", "value", value, (("quantity", label),), source, bounds=(-np.inf, np.inf), **opts)
        for label, value, _, source, opts in rows
    ]
    return {"values": frame}, published


def _berrar_figure2_values() -> list:
    from scipy import stats

    from simstudy.statistics.replication import bayesian_model, binomial_model
    from simstudy.statistics.significance import binomial_test

    n = 44
    p29, p24 = float(binomial_test(29, n).pvalue), float(binomial_test(24, n).pvalue)
    b29, bayes29 = binomial_model(29, n), bayesian_model(29, n)
    b24, bayes24 = binomial_model(24, n), bayesian_model(24, n)
    s = int(b29.threshold)  # wins a replication needs to be significant in the same direction
    rounded = float(stats.binom.sf(s - 1, n, 0.66))  # Example 1 rounds theta to 0.66
    wins = np.arange(n // 2, n + 1)
    p = np.asarray(binomial_test(wins, n).pvalue)
    sig = wins[p < 0.05]
    lows = np.asarray(binomial_model(sig, n).low)
    first = int(sig[lows > 0.5].min())
    at_first = float(binomial_test(first, n).pvalue)
    w366 = int(wins[np.argmin(np.abs(p - 0.00366))])
    rounded24 = float(stats.binom.sf(s - 1, n, 0.5455))  # the text rounds theta = 24/44 to 0.5455
    ex1, ex2, fig = B + ", Example 1", B + ", Example 2", B + ", Figure 2"
    found24 = {
        "cause": "found",
        "note": "The text rounds theta = 24/44 to 0.5455; with it (the row beneath) the printed value follows.",
    }
    found = {
        "cause": "found",
        "note": "The example rounds theta = 29/44 to 0.66; Lemma 1's exact theta gives "
        "ours, and 0.66 gives the printed value (the row beneath).",
    }
    return [
        ("29 of 44 wins: two-sided binomial p", 0.0488, p29, ex1, {}),
        ("29 of 44 wins: P_b (Lemma 1, theta = 29/44)", 0.5746, float(b29.estimate), ex1, {"key": "P_b 29", **found}),
        ("29 of 44 wins: P_b with theta rounded to 0.66", 0.5746, rounded, ex1, {"key": "P_b 29", "primary": False}),
        ("29 of 44 wins: Clopper-Pearson lower limit of theta", 0.501, float(b29.parameter_low), ex1, {}),
        ("29 of 44 wins: Clopper-Pearson upper limit of theta", 0.795, float(b29.parameter_high), ex1, {}),
        ("29 of 44 wins: lower limit of P_b", 0.0250, float(b29.low), ex1, {}),
        ("29 of 44 wins: upper limit of P_b", 0.9890, float(b29.high), ex1, {}),
        ("29 of 44 wins: Bayesian posterior mean theta_m", 0.652, float(bayes29.parameter), ex2, {}),
        ("29 of 44 wins: P_B (Lemma 2)", 0.5311, float(bayes29.estimate), ex2, {}),
        ("29 of 44 wins: lower limit of the 95% HDI of theta", 0.515, float(bayes29.parameter_low), ex2, {}),
        ("29 of 44 wins: upper limit of the 95% HDI of theta", 0.785, float(bayes29.parameter_high), ex2, {}),
        ("29 of 44 wins: lower limit of P_B", 0.0384, float(bayes29.low), ex2, {}),
        ("29 of 44 wins: upper limit of P_B", 0.983, float(bayes29.high), ex2, {}),
        ("24 of 44 wins: two-sided binomial p", 0.6516, p24, fig, {}),
        ("24 of 44 wins: P_b (theta = 24/44)", 0.0856, float(b24.estimate), fig, {"key": "P_b 24", **found24}),
        (
            "24 of 44 wins: P_b with theta rounded to 0.5455",
            0.0856,
            rounded24,
            fig,
            {"key": "P_b 24", "primary": False},
        ),
        ("24 of 44 wins: upper Clopper-Pearson limit of theta", 0.6961, float(b24.parameter_high), fig, {}),
        ("24 of 44 wins: upper limit of P_b", 0.7606, float(b24.high), fig, {}),
        ("24 of 44 wins: upper limit of P_B", 0.7057, float(bayes24.high), fig, {}),
        (f"p = 0.00366 ({w366} wins): lower limit of P_b", 0.155, float(binomial_model(w366, n).low), fig, {}),
        ("the first p-value whose lower limit of P_b is above 0.5", 0.000106, at_first, fig, {}),
        ("wins of that p-value", 35, first, fig, {}),
    ]


def _berrar_figure4_values() -> list:
    from scipy import stats

    from simstudy.statistics.replication import t_model, t_model_from_p, wilcoxon_model

    nu = 9
    ex4, fig = B + ", Example 4", B + ", Figure 4"
    t4 = t_model(2.262, nu)
    nct = stats.nct(nu, 2.262)
    f4 = t_model_from_p(0.00281, nu)
    z3 = wilcoxon_model(1.96, 1.0)
    return [
        ("Example 3: P_w at Z_w = 1.96, s* = 1", 0.5, float(z3.estimate), B + ", Example 3", {}),
        ("Example 3: lower limit", 0.025, float(z3.low), B + ", Example 3", {}),
        ("Example 3: upper limit", 0.975, float(z3.high), B + ", Example 3", {}),
        ("Example 4: two-sided p of t = 2.262, 9 df", 0.05, float(2 * stats.t.sf(2.262, nu)), ex4, {}),
        ("Example 4: P_t", 0.5235, float(t4.estimate), ex4, {}),
        ("Example 4: 2.5% quantile of the non-central t", 0.305, float(nct.ppf(0.025)), ex4, {}),
        ("Example 4: 97.5% quantile of the non-central t", 5.489, float(nct.ppf(0.975)), ex4, {}),
        ("Example 4: lower limit of P_t", 0.046, float(t4.low), ex4, {}),
        ("Example 4: upper limit of P_t", 0.998, float(t4.high), ex4, {}),
        ("p = 0.00281: P_t", 0.95, float(f4.estimate), fig, {}),
        ("p = 0.00281: lower limit of P_t", 0.417, float(f4.low), fig, {}),
    ]


def _bouckaert_claims() -> pd.DataFrame:
    from simstudy.statistics.replicability import r1_variance, r2_variance

    r = np.linspace(0.5, 1.0, 101)[1:-1]
    n = np.arange(4, 29, 2)
    rr, nn = np.meshgrid(r, n)
    v1, v2 = r1_variance(rr, nn), r2_variance(rr, nn)
    gap = v1 - v2
    worst = np.unravel_index(np.argmin(gap), gap.shape)
    at_one = (float(r1_variance(1.0, 28)), float(r2_variance(1.0, 28)))
    return pd.DataFrame(
        [
            {
                "claim": "var(R2) is below var(R1) for r in (0.5, 1) and n in 4..28",
                "checked on": f"{rr.size} points (r step 0.005, n = 4, 6, ..., 28)",
                "ours": f"smallest var(R1) - var(R2) {gap[worst]:.3g} at r = {rr[worst]:.3g}, n = {nn[worst]}",
                "verdict": "holds" if (gap > 0).all() else "does not hold",
            },
            {
                "claim": "at r = 1 both variances are 0",
                "checked on": "r = 1, n = 28",
                "ours": f"var(R1) = {at_one[0]:.3g}, var(R2) = {at_one[1]:.3g}",
                "verdict": "holds" if max(abs(at_one[0]), abs(at_one[1])) < 1e-12 else "does not hold",
            },
        ]
    )


def _draw(figdir: Path, stem: str, draw, size) -> str:
    """Draw a figure to ``figdir/stem.png`` (and .pdf) with the sidecar describing its axes; returns the description."""
    import json

    from simstudy.outputs.plots import new_figure, save_figure
    from simstudy.outputs.plots.core import describe_axes
    from simstudy.outputs.published import write_atomic

    fig = new_figure(size, layout=None if stem.startswith("bouckaert") else "constrained")
    draw(fig)
    save_figure(fig, figdir, stem)
    description = describe_axes(fig.axes[0])
    write_atomic(figdir / f"{stem}.json", json.dumps({"description": description}, indent=1) + "\n")
    return description


def analytic_sections(figdir, out) -> list[dict]:
    """The analytic figures of the papers, each a page section with its worked values compared.

    Parameters
    ----------
    figdir : path-like
        Where the figures are drawn (PNG, PDF and a JSON sidecar).
    out : path-like
        The page's folder (figure paths are given relative to it).

    Returns
    -------
    list of dict
        Per figure: ``name``, ``title``, ``intro``, ``figure`` (path relative to
        ``out``, description), ``cmp`` (the comparison of the text's worked values,
        :func:`simstudy.outputs.tables.compare`) and ``claims`` (a table, or None).
    """
    from simstudy.outputs.plots import berrar_figure2, berrar_figure4, bouckaert_figure2
    from simstudy.outputs.tables import compare

    figdir, out = Path(figdir), Path(out)
    sections = []
    for name, title, intro, draw, size, values in (
        (
            "berrar-figure2",
            "Berrar, Figure 2: binomial and Bayesian replication probability of every significant outcome, N = 44",
            "Analytic (Lemmas 1 and 2): for each number of wins of 44 whose two-sided binomial p-value is below "
            "0.05, the point estimates and 95% prediction intervals; Examples 1 and 2 and the values the text "
            "reads off the figure beside ours.",
            lambda fig: berrar_figure2(fig.add_subplot(), n=44),
            (7, 4.5),
            _berrar_figure2_values(),
        ),
        (
            "berrar-figure4",
            "Berrar, Figure 4: P_t against the p-value of the t-test, 9 degrees of freedom",
            "Analytic (Proposition 2, Equations 13 and 14): the point estimate and 95% prediction interval; "
            "Examples 3 and 4 and the value the text reads off the figure beside ours.",
            lambda fig: berrar_figure4(fig.add_subplot(), nu=9),
            (7, 4.5),
            _berrar_figure4_values(),
        ),
    ):
        description = _draw(figdir, name, draw, size)
        tables, published = _values(values)
        sections.append(
            {
                "name": name,
                "title": title,
                "intro": intro,
                "figure": ((figdir / f"{name}.png").relative_to(out).as_posix(), description),
                "cmp": compare(tables, published),
                "claims": None,
            }
        )
    description = _draw(figdir, "bouckaert-figure2", lambda fig: bouckaert_figure2(fig, seed=2004), (12, 5))
    sections.append(
        {
            "name": "bouckaert-figure2",
            "title": "Bouckaert 2004, Figure 2: variance of R1 (upper surface) and R2 (lower) over r and n",
            "intro": "The variances of Lemma 3.1 and Theorem 3.1 (surfaces) with simulated points (red); the text "
            "prints no number for the figure, only the claim checked below on the formulas.",
            "figure": ((figdir / "bouckaert-figure2.png").relative_to(out).as_posix(), description),
            "cmp": None,
            "claims": _bouckaert_claims(),
        }
    )
    return sections
