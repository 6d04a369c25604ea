"""The papers' analytic figures on the reproduction page, with the worked values of their text beside ours.

Berrar's Figures 2 (binomial and Bayesian replication probability of every
significant outcome of N = 44 data sets) and 4 (P_t against the p-value, 9
degrees of freedom) and Bouckaert's Figure 2 (the variances of R1 and R2) need
no simulation: they are functions of the statistics in
:mod:`simstudy.statistics`.  Their text prints worked values (Berrar's
Examples 1 to 4 and the values read off the figures); each is computed here
from those statistics and compared by the page's rules, as an exact value (our
interval has zero width): it agrees when ours, rounded as printed, is the
printed number.  Each published value is kept as the text prints it (column
``printed`` of the comparison: ``0.0250``, ``1.000``).  Bouckaert's Figure 2
carries claims, not numbers (R2's variance is below R1's except at r = 1,
where both are 0); they are checked on a grid of the figure's range.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simstudy._lazy import lazy_module

pd = lazy_module("pandas")

__all__ = ["analytic_sections"]

EX1 = "Berrar, Sect. 2.1.1, Example 1"
EX2 = "Berrar, Sect. 2.1.2, Example 2"
FIG2 = "Berrar, Sect. 2.1.2, Figure 2"
AFTER2 = "Berrar, Sect. 2.1.2, after Figure 2"
EX3 = "Berrar, Sect. 2.1.3, Example 3"
EX4 = "Berrar, Sect. 2.2, Example 4"
FIG4 = "Berrar, Sect. 2.2, Figure 4"
N_FIGURE2 = 44  # data sets of Berrar's Figure 2 and Examples 1 and 2
NU_FIGURE4 = 9  # degrees of freedom of Berrar's Figure 4 and Example 4 (10-fold cross-validation)
SEED_BOUCKAERT = 2004  # the simulated points on Bouckaert's Figure 2 (figures/bouckaert_figure2.py uses it too)


def _values(rows: list[tuple[str, str, float, str, dict]]):
    """``(label, printed, ours, source, options)`` -> the exact-value table, its published entries and printed texts.

    ``printed`` is the published number as the text prints it; its value is
    ``float(printed)``.  Ours is exact: its interval has zero width.
    """
    from simstudy.outputs.tables import Published

    ours = [float(r[2]) for r in rows]
    frame = pd.DataFrame({"quantity": [r[0] for r in rows], "value": ours, "value_mc_low": ours, "value_mc_high": ours})
    published = [
        Published(
            label, "values", "value", float(printed), (("quantity", label),), source, bounds=(-np.inf, np.inf), **opts
        )
        for label, printed, _, source, opts in rows
    ]
    return {"values": frame}, published, {r[0]: r[1] for r in rows}


def _berrar_figure2_values() -> list:
    from scipy import stats

    from simstudy.statistics.replication import bayesian_model, binomial_model
    from simstudy.statistics.significance import binomial_test

    n = N_FIGURE2
    p29, p24 = float(binomial_test(29, n).pvalue), float(binomial_test(24, n).pvalue)
    b29, bayes29 = binomial_model(29, n), bayesian_model(29, n)
    b24, bayes24 = binomial_model(24, n), bayesian_model(24, n)
    s = int(b29.threshold)  # wins a replication needs to be significant in the same direction
    rounded29 = float(stats.binom.sf(s - 1, n, 0.66))  # Example 1 rounds theta = 29/44 to 0.66
    rounded24 = float(stats.binom.sf(s - 1, n, 0.5455))  # the text rounds theta = 24/44 to 0.5455
    # every significant outcome in A's favour: the points of the figure
    wins = np.arange(n // 2 + 1, n + 1)
    p = np.asarray(binomial_test(wins, n).pvalue, dtype=float)
    sig, p_sig = wins[p < 0.05], p[p < 0.05]
    binom, bayes = binomial_model(sig, n), bayesian_model(sig, n)
    b_low, bayes_low = np.asarray(binom.low), np.asarray(bayes.low)
    first = int(sig[b_low > 0.5].min())  # the first outcome whose binomial lower limit is above 0.5
    both_include = (b_low <= 0.5) & (bayes_low <= 0.5)  # both 95% intervals hold 0.5
    w366 = int(sig[np.argmin(np.abs(p_sig - 0.00366))])  # the outcome whose p-value the text names
    found29 = {
        "cause": "found",
        "note": "The example rounds theta = 29/44 to 0.66; Lemma 1's exact theta gives "
        "ours, and 0.66 gives the printed value (the row beneath).",
    }
    found24 = {
        "cause": "found",
        "note": "The text rounds theta = 24/44 to 0.5455; with it (the row beneath) the printed value follows.",
    }
    return [
        ("29 of 44 wins: two-sided binomial p", "0.0488", p29, EX1, {}),
        ("29 of 44 wins: success rate theta = 29/44", "0.66", float(b29.parameter), EX1, {}),
        (
            "29 of 44 wins: P_b (Lemma 1, theta = 29/44)",
            "0.5746",
            float(b29.estimate),
            EX1,
            {"key": "P_b 29", **found29},
        ),
        (
            "29 of 44 wins: P_b with theta rounded to 0.66",
            "0.5746",
            rounded29,
            EX1,
            {"key": "P_b 29", "primary": False},
        ),
        ("29 of 44 wins: Clopper-Pearson lower limit of theta", "0.501", float(b29.parameter_low), EX1, {}),
        ("29 of 44 wins: Clopper-Pearson upper limit of theta", "0.795", float(b29.parameter_high), EX1, {}),
        ("29 of 44 wins: lower limit of P_b", "0.0250", float(b29.low), EX1, {}),
        ("29 of 44 wins: upper limit of P_b", "0.9890", float(b29.high), EX1, {}),
        ("29 of 44 wins: Bayesian posterior mean theta_m", "0.652", float(bayes29.parameter), EX2, {}),
        ("29 of 44 wins: P_B (Lemma 2)", "0.5311", float(bayes29.estimate), EX2, {}),
        ("29 of 44 wins: lower limit of the 95% HDI of theta", "0.515", float(bayes29.parameter_low), EX2, {}),
        ("29 of 44 wins: upper limit of the 95% HDI of theta", "0.785", float(bayes29.parameter_high), EX2, {}),
        ("29 of 44 wins: lower limit of P_B", "0.0384", float(bayes29.low), EX2, {}),
        ("29 of 44 wins: upper limit of P_B", "0.983", float(bayes29.high), EX2, {}),
        ("significant outcomes in A's favour (p < 0.05) of 44 data sets", "16", len(sig), FIG2, {}),
        (
            "smallest p-value whose binomial and Bayesian 95% intervals both hold 0.5 "
            f"({int(sig[both_include].max())} wins)",
            "0.000388",
            float(p_sig[both_include].min()),
            FIG2,
            {},
        ),
        (
            f"p = 0.00366 (the nearest outcome, {w366} wins): two-sided binomial p",
            "0.00366",
            float(p_sig[sig == w366][0]),
            FIG2,
            {},
        ),
        (f"p = 0.00366 ({w366} wins): lower limit of P_b", "0.155", float(binomial_model(w366, n).low), FIG2, {}),
        (
            "the first p-value whose lower limit of P_b is above 0.5",
            "0.000106",
            float(p_sig[sig == first][0]),
            FIG2,
            {},
        ),
        ("wins of that p-value", "35", first, FIG2, {}),
        ("24 of 44 wins: two-sided binomial p", "0.6516", p24, AFTER2, {}),
        ("24 of 44 wins: success rate theta = 24/44", "0.5455", float(b24.parameter), AFTER2, {}),
        ("24 of 44 wins: P_b (theta = 24/44)", "0.0856", float(b24.estimate), AFTER2, {"key": "P_b 24", **found24}),
        (
            "24 of 44 wins: P_b with theta rounded to 0.5455",
            "0.0856",
            rounded24,
            AFTER2,
            {"key": "P_b 24", "primary": False},
        ),
        ("24 of 44 wins: upper Clopper-Pearson limit of theta", "0.6961", float(b24.parameter_high), AFTER2, {}),
        ("24 of 44 wins: upper limit of P_b", "0.7606", float(b24.high), AFTER2, {}),
        ("24 of 44 wins: upper limit of P_B", "0.7057", float(bayes24.high), AFTER2, {}),
    ]


def _berrar_figure4_values() -> list:
    from scipy import stats

    from simstudy.statistics.replication import t_model, t_model_from_p, wilcoxon_model

    nu = NU_FIGURE4
    t4 = t_model(2.262, nu)
    nct = stats.nct(nu, 2.262)
    f4 = t_model_from_p(0.00281, nu)
    z3 = wilcoxon_model(1.96, 1.0)
    return [
        ("Example 3: P_w at Z_w = 1.96, s* = 1", "0.5", float(z3.estimate), EX3, {}),
        ("Example 3: lower limit", "0.025", float(z3.low), EX3, {}),
        ("Example 3: upper limit", "0.975", float(z3.high), EX3, {}),
        ("Example 4: two-sided p of t = 2.262, 9 df", "0.05", float(2 * stats.t.sf(2.262, nu)), EX4, {}),
        ("Example 4: P_t", "0.5235", float(t4.estimate), EX4, {}),
        ("Example 4: 2.5% quantile of the non-central t", "0.305", float(nct.ppf(0.025)), EX4, {}),
        ("Example 4: 97.5% quantile of the non-central t", "5.489", float(nct.ppf(0.975)), EX4, {}),
        ("Example 4: lower limit of P_t", "0.046", float(t4.low), EX4, {}),
        ("Example 4: upper limit of P_t", "0.998", float(t4.high), EX4, {}),
        ("p = 0.00281: P_t", "0.95", float(f4.estimate), FIG4, {}),
        ("p = 0.00281: lower limit of P_t", "0.417", float(f4.low), FIG4, {}),
        ("p = 0.00281: upper limit of P_t", "1.000", float(f4.high), FIG4, {}),
    ]


def _bouckaert_claims() -> pd.DataFrame:
    """The claims of Bouckaert 2004's text about its Figure 2, checked on the formulas over the figure's range."""
    from simstudy.statistics.replicability import r1_variance, r2_variance

    # r in the open interval (0.5, 1): a step of 0.0025 and points closer to either end; n even (R1 pairs them)
    r = np.unique(np.concatenate([np.linspace(0.5, 1.0, 201)[1:-1], [0.5 + 1e-4, 0.5 + 1e-3, 0.999, 0.9999]]))
    n = np.arange(4, 29, 2)
    rr, nn = np.meshgrid(r, n)
    v1, v2 = r1_variance(rr, nn), r2_variance(rr, nn)
    gap, ratio = v1 - v2, v2 / v1
    worst = np.unravel_index(np.argmax(ratio), ratio.shape)
    at_one = np.concatenate([np.atleast_1d(r1_variance(1.0, n)), np.atleast_1d(r2_variance(1.0, n))])
    grid = f"{rr.size} points: r in (0.5, 1), step 0.0025, with 0.5001, 0.501, 0.999 and 0.9999; n = 4, 6, ..., 28"
    return pd.DataFrame(
        [
            {
                "claim": "var(R2) is below var(R1) for every r in (0.5, 1) and n in 4..28",
                "checked on": grid,
                "worst case": f"largest var(R2)/var(R1) {ratio[worst]:.4g} at r = {rr[worst]:.4g}, n = {nn[worst]} "
                f"(difference {gap[worst]:.3g}); the two approach each other as r -> 1",
                "verdict": "holds" if (gap > 0).all() else "does not hold",
            },
            {
                "claim": "at r = 1 both variances are 0",
                "checked on": "r = 1, n = 4, 6, ..., 28",
                "worst case": f"largest |variance| {np.max(np.abs(at_one)):.3g}",
                "verdict": "holds" if np.max(np.abs(at_one)) < 1e-12 else "does not hold",
            },
        ]
    )


def _describe(axes) -> str:
    """The description of a figure's Axes; two panels side by side are named left and right (more are numbered)."""
    from simstudy.outputs.plots.core import describe_axes

    if len(axes) == 1:
        return describe_axes(axes[0])
    names = ["Left panel", "Right panel"] if len(axes) == 2 else [f"Panel {i + 1}" for i in range(len(axes))]
    return " ".join(f"{name}: {describe_axes(ax)}" for name, ax in zip(names, axes))


def _draw(figdir: Path, stem: str, draw, size, *, layout: str | None = "constrained") -> str:
    """Draw a figure to ``figdir/stem.png`` and ``.pdf`` with the JSON sidecar describing it; returns the description.

    Like the studies' figures (:func:`simstudy.outputs.plots.render_study_figure`),
    every file is written atomically and the sidecar last, with the SHA-256 of
    each file and the description of every Axes
    (:func:`simstudy.outputs.plots.core.describe_axes`), read back by
    :func:`simstudy.outputs.plots.figure_description` as the page reads a
    study figure's.  A figure that cannot be written leaves the files there
    were as they were.
    """
    import hashlib
    import json

    from simstudy.outputs.plots import figure_description, new_figure, save_figure
    from simstudy.outputs.published import write_atomic

    fig = new_figure(size, layout=layout)
    draw(fig)
    paths = save_figure(fig, figdir, stem)
    meta = {
        "figure": stem,
        "analytic": True,
        "files": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths},
        "description": _describe(fig.axes),
    }
    write_atomic(figdir / f"{stem}.json", json.dumps(meta, indent=1, sort_keys=True) + "\n")
    return figure_description(figdir, stem) or stem


def analytic_sections(figdir: Path, out: Path) -> list[dict]:
    """The analytic figures of the papers, each a page section with its worked values compared.

    Parameters
    ----------
    figdir : path-like
        Where the figures are drawn (PNG, PDF and a JSON sidecar with the description).
    out : path-like
        The page's folder (figure paths are given relative to it; ``figdir`` lies inside it).

    Returns
    -------
    list of dict
        Per figure (``berrar-figure2``, ``berrar-figure4``, ``bouckaert-figure2``):
        ``name``, ``title``, ``intro``, ``figure`` (PNG path relative to ``out``,
        description), ``comparison``, ``cmp`` and ``claims``.  For Berrar's
        figures ``comparison`` and ``cmp`` are the comparison of the text's worked
        values (:func:`simstudy.outputs.tables.compare`, exact values, with the
        column ``printed``: each published value as the text prints it) and
        ``claims`` is None.  Bouckaert's text prints no number for its Figure 2:
        ``cmp`` is None and ``comparison`` and ``claims`` are the table of its
        claims checked on the formulas (``claim``, ``checked on``,
        ``worst case``, ``verdict``: "holds" or "does not hold").
    """
    from simstudy.outputs.plots import berrar_figure2, berrar_figure4, bouckaert_figure2
    from simstudy.outputs.tables import compare

    figdir, out = Path(figdir), Path(out)
    sections = []
    for name, title, intro, draw, values in (
        (
            "berrar-figure2",
            "Berrar, Figure 2: binomial and Bayesian replication probability of every significant outcome, N = 44",
            "Analytic, no simulation (Lemmas 1 and 2): for each number of wins of 44 whose two-sided binomial "
            "p-value is below 0.05, P_b and P_B with their 95% prediction intervals against the p-value. "
            "The worked values of Examples 1 and 2 and of the text around the figure are set beside ours.",
            lambda fig: berrar_figure2(fig.add_subplot(), n=N_FIGURE2),
            _berrar_figure2_values(),
        ),
        (
            "berrar-figure4",
            "Berrar, Figure 4: P_t against the p-value of the t-test, 9 degrees of freedom",
            "Analytic, no simulation (Proposition 2, Equations 13 and 14): the point estimate P_t and its 95% "
            "prediction interval against the two-sided p-value. The worked values of Examples 3 and 4 and the "
            "point the caption reads off the figure are set beside ours.",
            lambda fig: berrar_figure4(fig.add_subplot(), nu=NU_FIGURE4),
            _berrar_figure4_values(),
        ),
    ):
        description = _draw(figdir, name, draw, (7, 4.5))
        tables, published, printed = _values(values)
        cmp = compare(tables, published)
        cmp["printed"] = cmp["quantity"].map(printed)
        sections.append(
            {
                "name": name,
                "title": title,
                "intro": intro,
                "figure": ((figdir / f"{name}.png").relative_to(out).as_posix(), description),
                "comparison": cmp,
                "cmp": cmp,
                "claims": None,
            }
        )
    # constrained layout cannot size 3-D Axes: bouckaert_figure2 switches it off, so none is asked for
    description = _draw(
        figdir,
        "bouckaert-figure2",
        lambda fig: bouckaert_figure2(fig, seed=SEED_BOUCKAERT),
        (12, 5),
        layout=None,
    )
    claims = _bouckaert_claims()
    sections.append(
        {
            "name": "bouckaert-figure2",
            "title": "Bouckaert 2004, Figure 2: variance of R1 and R2 over r in (0.5, 1) and n = 4..28",
            "intro": "Analytic: the variances of Lemma 3.1 and Theorem 3.1 as surfaces, R1 and R2 side by side "
            "(the paper draws both in one plot, R1 the upper surface), with simulated points in red (fixed "
            "seed). The text prints no number for the figure, only the claims checked below on the formulas.",
            "figure": ((figdir / "bouckaert-figure2.png").relative_to(out).as_posix(), description),
            "comparison": claims,
            "cmp": None,
            "claims": claims,
        }
    )
    return sections
