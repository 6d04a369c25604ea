"""The proving ground's report: tables, figures and the papers' statements, from stored rows only.

:func:`build_report` reads a stored run of the proving ground, applies any
plug-in tests to its stored paired scores (no refitting: the same data sets,
partitions and fits the built-in tests saw), computes the tables of
:mod:`simstudy.proving.summary` and, when Berrar's studies are stored, the
calibration of his replication probabilities
(:mod:`simstudy.proving.berrar_calibration`), and writes
``proving-ground.md`` and ``proving-ground.html`` with their figures into the
run directory.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np

from .study import ALPHA, ALPHA_MAX
from .summary import (ALPHAS, P_GRID, calibration, leaderboard, named_procedures, power_table, procedures,
                      pvalue_distribution, replicability_table)
from .._lazy import lazy_module

pd = lazy_module("pandas")

__all__ = ["plugin_rows", "build_report", "write_berrar_page", "statements", "REPORT_NAME"]

REPORT_NAME = "proving-ground"


# ------------------------------------------------------------------------------------------ plug-ins


def plugin_rows(scores: pd.DataFrame, fn, ref: str, *, timeout=None) -> pd.DataFrame:
    """Outcome rows of a plug-in test on every stored design and scenario (vectorised per block).

    Columns as the stored outcomes: ``condition``, ``replication``, ``experiment``,
    ``design``, ``scheme`` (empty), ``test`` (the reference), ``statistic``,
    ``pvalue``, ``sign`` (direction of a rejection at any level up to
    :data:`ALPHA_MAX`) and ``decision`` (at 0.05).
    """
    from ..plugins import DEFAULT_TIMEOUT, run_test
    from ..scores import PairedScores

    parts = []
    for (cond, design), g in scores.groupby(["condition", "design"], sort=False):
        g = g.sort_values(["replication", "experiment", "run", "fold"], kind="stable")
        reps = g["replication"].unique()
        E, R, K = g["experiment"].nunique(), g["run"].nunique(), g["fold"].nunique()
        shape = (reps.size, E, R, K)
        if len(g) != int(np.prod(shape)):
            raise ValueError(f"scores: the stored scores of {cond} / {design} do not form complete blocks")
        ps = PairedScores(g["acc_a"].to_numpy(float).reshape(shape), g["acc_b"].to_numpy(float).reshape(shape),
                          n_train=int(g["n_train"].iloc[0]), n_test=int(g["n_test"].iloc[0]))
        res = run_test(fn, ps, ALPHA_MAX, timeout=DEFAULT_TIMEOUT if timeout is None else timeout)
        p = res["pvalue"].ravel()
        sign = res["decision"].ravel().astype(np.int8)
        parts.append(pd.DataFrame({
            "condition": cond, "replication": np.repeat(reps, E), "experiment": np.tile(np.arange(E), reps.size),
            "design": design, "scheme": "", "test": ref, "statistic": res["statistic"].ravel(), "pvalue": p,
            "sign": sign, "decision": np.where(np.nan_to_num(p, nan=2.0) <= ALPHA, sign, 0).astype(np.int8)}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


# ------------------------------------------------------------------------------------------ statements


def _paired_power_difference(pr, a: str, b: str, alpha=ALPHA):
    """Mean over the alternative data sets of power(a) - power(b), with its 95% t interval (percent)."""
    from ..summaries import mean_interval

    ta, tb = pr.truth_of(a), pr.truth_of(b)
    alt = np.isfinite(ta) & (ta != 0) & np.isfinite(tb) & (tb != 0)
    pa = (pr.decisions(a, alpha)[alt] == ta[alt][:, None]).mean(axis=1)
    pb = (pr.decisions(b, alpha)[alt] == tb[alt][:, None]).mean(axis=1)
    m, lo, hi = mean_interval(pa - pb)
    return 100 * float(m), 100 * float(lo), 100 * float(hi)


def _paired_r2_difference(pr, a: str, b: str, alpha=ALPHA):
    """Mean over data sets of known truth of R2(a) - R2(b) (percent), with its 95% t interval."""
    from ..replicability import r2
    from ..summaries import mean_interval

    known = np.isfinite(pr.truth_of(a)) & np.isfinite(pr.truth_of(b))
    ra = np.asarray(r2(pr.decisions(a, alpha)[known]), dtype=float)
    rb = np.asarray(r2(pr.decisions(b, alpha)[known]), dtype=float)
    m, lo, hi = mean_interval(ra - rb)
    return 100 * float(m), 100 * float(lo), 100 * float(hi)


def statements(pr, board: pd.DataFrame, named: dict, alpha=ALPHA) -> pd.DataFrame:
    """The papers' statements that the proving ground can check, each with our numbers and a verdict."""
    from ..summaries import interval_verdict

    b = board.set_index("procedure")
    label_of = {v: k for k, v in named.items()}
    rows = []

    def iv(proc, col):
        r = b.loc[proc]
        return f"{r[col]:.1f}% [{r[col + '_mc_low']:.1f}, {r[col + '_mc_high']:.1f}]"

    def find(prefix):
        return next((named[k] for k in named if k.startswith(prefix)), None)

    for prefix, src in (("resampled t", "Dietterich 1998; Nadeau and Bengio 2003; Bouckaert and Frank 2004 "
                                        "(resampled 100x: about 60% on their null source)"),
                        ("10x10 cv t, uncorrected", "Bouckaert and Frank 2004 (uncorrected 10x10 cv: 59%)"),
                        ("Welch t", "treats overlapping training sets as independent")):
        proc = find(prefix)
        if proc is None or proc not in b.index:
            continue
        lo = b.loc[proc, "type1_mc_low"]
        rows.append({"statement": f"{prefix}: Type I error above alpha = {alpha:g} on the null worlds", "source": src,
                     "ours": iv(proc, "type1"),
                     "verdict": "holds" if lo > 100 * alpha else ("does not hold" if b.loc[proc, "type1_mc_high"]
                                                                  <= 100 * alpha else "not resolved at this scale")})
    for prefix, src in (("corrected resampled t", "Nadeau and Bengio 2003; Bouckaert and Frank 2004 (3.0%)"),
                        ("corrected 10x10 cv t", "Bouckaert and Frank 2004 (3.3%)"),
                        ("5x2cv t", "Dietterich 1998 (acceptable Type I error)"),
                        ("sorted runs t", "Bouckaert 2004 (4.5% on his null source)")):
        proc = find(prefix)
        if proc is None or proc not in b.index:
            continue
        rows.append({"statement": f"{prefix}: Type I error near alpha (not shown to exceed {alpha:g})", "source": src,
                     "ours": iv(proc, "type1") + f"; worst null scenario {b.loc[proc, 'worst_null']:.1f}% "
                             f"({b.loc[proc, 'worst_null_scenario']})",
                     "verdict": "holds" if b.loc[proc, "controlled"] else "does not hold"})
    five, corr = find("5x2cv t"), find("corrected 10x10 cv t")
    for other in (corr, find("corrected resampled t"), find("sorted runs t")):
        if five and other and five in b.index and other in b.index:
            m, lo, hi = _paired_power_difference(pr, other, five, alpha)
            rows.append({"statement": f"5x2cv t has less power than {label_of.get(other, other)}",
                         "source": "Bouckaert and Frank 2004 (5x2cv power 6/16/46% against 16/68/97% for the "
                                   "corrected 10x10 cv test); Dietterich 1998",
                         "ours": f"power {iv(five, 'power')} against {iv(other, 'power')}; paired difference "
                                 f"{m:+.1f} [{lo:+.1f}, {hi:+.1f}] points",
                         "verdict": interval_verdict(lo, hi)})
    if pr.n_experiments >= 2:
        for better, worse, src in (
                (corr, five, "Bouckaert and Frank 2004: the corrected repeated cv test is more replicable than 5x2cv"),
                (find("sorted runs t"), find("10-fold cv t"), "Bouckaert 2004: sorted runs are more replicable than "
                                                              "a single 10-fold cv")):
            if better and worse and better in b.index and worse in b.index:
                m, lo, hi = _paired_r2_difference(pr, better, worse, alpha)
                rows.append({"statement": f"{label_of.get(better, better)} is more replicable (R2) than "
                                          f"{label_of.get(worse, worse)}", "source": src,
                             "ours": f"paired difference of R2 over data sets {m:+.1f} [{lo:+.1f}, {hi:+.1f}] points",
                             "verdict": interval_verdict(lo, hi)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ figures


def _colours(n):
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return [cmap(i % 10) for i in range(n)]


def _style(i):
    return ("-", "--", ":")[(i // 10) % 3]


def _figure_calibration(cal, named, directory):
    from ..plots.output import new_figure, save_figure

    fig = new_figure((7.5, 5))
    ax = fig.subplots()
    ax.plot([min(ALPHAS), max(ALPHAS)], [min(ALPHAS), max(ALPHAS)], color="k", lw=1, ls="--",
            label="Type I error = alpha")
    for i, ((label, proc), c) in enumerate(zip(named.items(), _colours(len(named)))):
        t = cal[cal["procedure"] == proc].sort_values("alpha")
        if t.empty:
            continue
        ax.plot(t["alpha"], t["type1"] / 100, marker="o", ms=3, lw=1.2, color=c, ls=_style(i), label=label)
        ax.fill_between(t["alpha"], t["type1_mc_low"] / 100, t["type1_mc_high"] / 100, color=c, alpha=0.12, lw=0)
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=0.01)
    ax.set_ylim(0, 1)
    ax.set_xlabel("significance level alpha (log scale)")
    ax.set_ylabel("Type I error on the null worlds (symlog scale)")
    ax.set_title("Calibration: Type I error against alpha, 95% Monte Carlo bands", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, frameon=False)
    fig.tight_layout()
    return save_figure(fig, directory, "calibration", formats=("png",))[0]


def _figure_pvalues(pdist, named, directory):
    from ..plots.output import new_figure, save_figure

    fig = new_figure((6.5, 5))
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], color="k", lw=1, ls="--", label="uniform (an exact test)")
    for i, ((label, proc), c) in enumerate(zip(named.items(), _colours(len(named)))):
        t = pdist[pdist["procedure"] == proc]
        if t.empty:
            continue
        ax.plot(P_GRID, t.iloc[0]["ecdf"], lw=1.2, color=c, ls=_style(i), label=label)
    ax.set_xlabel("p")
    ax.set_ylabel("share of null p-values <= p")
    ax.set_title("p-values under the null against the uniform", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, frameon=False)
    fig.tight_layout()
    return save_figure(fig, directory, "pvalues", formats=("png",))[0]


def _gaussian_panels(table, value, named, directory, name, ylabel, title):
    from ..plots.output import new_figure, save_figure
    from .scenarios import BANK

    t = table[table["scenario"].map(lambda k: k in BANK and BANK[k].family == "gaussian")]
    if t.empty:
        return None
    t = t.assign(pair=t["scenario"].map(lambda k: BANK[k].pair), n=t["scenario"].map(lambda k: BANK[k].n_cases),
                 rho=t["scenario"].map(lambda k: BANK[k].rho), effect=t["scenario"].map(lambda k: BANK[k].effect))
    panels = sorted(set(zip(t["pair"], t["n"])), key=lambda x: (x[0] != "nb", x[1]))
    ncol = min(3, len(panels))
    nrow = int(np.ceil(len(panels) / ncol))
    fig = new_figure((4 * ncol, 3.2 * nrow + 1.2))
    axes = np.atleast_1d(fig.subplots(nrow, ncol, squeeze=False)).ravel()
    for ax, (pair, n) in zip(axes, panels):
        for (label, proc), c in zip(named.items(), _colours(len(named))):
            for rho, ls in ((0.0, "-"), (0.6, ":")):  # the correlation by line style, the procedure by colour
                s = t[(t["procedure"] == proc) & (t["pair"] == pair) & (t["n"] == n) & (t["rho"] == rho)]
                if s.empty:
                    continue
                s = s.sort_values("effect")
                ax.errorbar(100 * s["gap"], s[value], yerr=np.clip(np.vstack([s[value] - s[f"{value}_mc_low"],
                                                                                s[f"{value}_mc_high"] - s[value]]),
                                                                      0, None),
                            color=c, ls=ls, lw=1, marker="o", ms=2.5, capsize=1.5,
                            label=label if (rho == 0.0 and (pair, n) == panels[0]) else None)
        ax.set_title(f"{pair} views, n = {n} (solid rho = 0, dotted 0.6)", fontsize=8)
        ax.set_xlabel("true gap, accuracy points (A - B)", fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.grid(alpha=0.3)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=10)
    fig.legend(fontsize=7, loc="lower center", ncol=4, frameon=False)
    fig.tight_layout(rect=(0, 0.12, 1, 0.97))
    return save_figure(fig, directory, name, formats=("png",))[0]


def _figure_leaderboard(board, directory, top=20):
    from ..plots.output import new_figure, save_figure

    b = board[board["controlled"]].head(top)
    if b.empty:
        return None
    fig = new_figure((8, 0.3 * len(b) + 1.6))
    ax1, ax2 = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 2]})
    y = np.arange(len(b))
    ax1.errorbar(b["power"], y, xerr=np.vstack([b["power"] - b["power_mc_low"], b["power_mc_high"] - b["power"]]),
                 fmt="o", ms=3, color="tab:blue", capsize=2)
    ax2.errorbar(b["type1"], y, xerr=np.clip(np.vstack([b["type1"] - b["type1_mc_low"],
                                                        b["type1_mc_high"] - b["type1"]]), 0, None),
                 fmt="o", ms=3, color="tab:red", capsize=2)
    ax2.axvline(100 * ALPHA, color="k", ls="--", lw=1)
    ax1.set_yticks(y, [f"{int(r)}. {p}" for r, p in zip(b["rank"], b["procedure"])], fontsize=7)
    ax1.invert_yaxis()
    ax1.set_xlabel("power, % (alternatives)", fontsize=8)
    ax2.set_xlabel(f"Type I error, % (nulls; dashed {100 * ALPHA:g}%)", fontsize=8)
    ax1.grid(alpha=0.3)
    ax2.grid(alpha=0.3)
    fig.suptitle(f"Leaderboard at alpha = {ALPHA:g}: procedures that keep alpha, by power (equal rank = tied)",
                 fontsize=9)
    fig.tight_layout()
    return save_figure(fig, directory, "leaderboard", formats=("png",))[0]


# ------------------------------------------------------------------------------------------ the page


def _view_board(board):
    cols = ["rank", "tied_with", "procedure", "power", "power_mc_low", "power_mc_high", "type1", "type1_mc_low",
            "type1_mc_high", "worst_null", "worst_null_scenario", "wrong_direction", "r2", "r2_mc_low", "r2_mc_high"]
    view = board[[c for c in cols if c in board]]
    names = {"power": "power %", "worst_null": "worst null %", "wrong_direction": "wrong direction %", "r2": "R2 %"}
    return view.rename(columns={c: names[c.replace("_mc_low", "").replace("_mc_high", "")]
                                + c[len(c.replace("_mc_low", "").replace("_mc_high", "")):]
                                for c in view.columns if c.replace("_mc_low", "").replace("_mc_high", "") in names})


def _calibration_wide(cal, procs):
    t = cal[cal["procedure"].isin(procs)]
    wide = t.pivot(index="procedure", columns="alpha", values="type1")
    wide = wide.reindex(procs)
    wide.columns = [f"alpha {a:g}" for a in wide.columns]
    return wide.reset_index()

def _berrar_items(berrar, figure):
    items = [("md", "Berrar's replication probability P, computed from one significant experiment, against the "
                    "observed rate F at which an independent replication of the same group is significant too "
                    "(leave-one-out). Brier score of P against that outcome (unbiased), beside the constant "
                    "forecast 'the pooled rate'; mean P - F > 0 is over-confidence.")]
    if berrar["notes"]:
        items.append(("md", "Notes: " + "; ".join(berrar["notes"])))
    if figure:
        items.append(("figure", (figure, "Reliability diagrams of Berrar's estimates, studies 1-3: observed "
                                         "replication rate against P, per model")))
    if len(berrar["brier"]):
        items.append(("table", berrar["brier"]))
    for (study, model), t in berrar["reliability"].items():
        items.append(("md", f"{study}, {model}:"))
        items.append(("table", t))
    return items


def _render(title, sections, out):
    """Markdown and HTML of ``sections`` [(title, [(kind, payload)])], figures linked relative to ``out``."""
    from ..compare import html_table, markdown_table

    md = [f"# {title}", ""]
    body = [f"<h1>{html.escape(title)}</h1>"]
    for heading, items in sections:
        md += [f"## {heading}", ""]
        body.append(f"<h2>{html.escape(heading)}</h2>")
        for kind, payload in items:
            if kind == "md":
                md += [payload, ""]
                body.append(f"<p>{html.escape(payload).replace('`', '')}</p>")
            elif kind == "table":
                if payload is None or len(payload) == 0:
                    continue
                md += [markdown_table(payload), ""]
                body.append(html_table(payload))
            elif kind == "figure":
                path, caption = payload
                if path is None:
                    continue
                path = Path(path)
                rel = path.relative_to(out).as_posix() if path.is_relative_to(out) else str(path)
                md += [f"![{caption}]({rel})", ""]
                body.append(f'<figure><img src="{html.escape(rel)}" alt="{html.escape(caption)}" '
                            f'style="max-width:100%"><figcaption>{html.escape(caption)}</figcaption></figure>')
    style = ("body{font-family:sans-serif;max-width:1300px;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0}td,th{border:1px solid #ccc;"
             "padding:2px 6px}td.r,th.r{text-align:right}td.l,th.l{text-align:left}td.no{color:#a00}")
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
    return "\n".join(md), page


def write_berrar_page(results, profile: str, out) -> dict:
    """Only the calibration of Berrar's replication probability: ``berrar-calibration.md`` and ``.html`` in ``out``."""
    from .._files import write_atomic
    from .berrar_calibration import berrar_calibration, draw_reliability

    out = Path(out)
    cal = berrar_calibration(results, profile)
    if not len(cal["forecasts"]):
        raise ValueError(f"--results: none of Berrar's studies 1-3 is stored at profile {profile!r} under "
                         f"{results} ({'; '.join(cal['notes'])})")
    out.mkdir(parents=True, exist_ok=True)
    fig = draw_reliability(cal, out / "figures")
    text, page = _render(f"Calibration of Berrar's replication probability ({profile})",
                         [("Reliability and Brier score", _berrar_items(cal, fig))], out)
    paths = {"markdown": out / "berrar-calibration.md", "html": out / "berrar-calibration.html"}
    write_atomic(paths["markdown"], text + "\n")
    write_atomic(paths["html"], page)
    return {**paths, "text": text, "calibration": cal}


def build_report(run, *, plugins=(), tests=None, results="results", berrar_profile: str | None = None,
                 out=None, timeout=None, figures: bool = True) -> dict:
    """Compute every table and figure of the proving ground from ``run`` and write the pages.

    Parameters
    ----------
    run : simstudy.engine.store.RunData
        A stored run of the proving ground.
    plugins : sequence of (ref, callable)
        Plug-in tests, applied to the stored scores.
    tests : sequence of str, optional
        Registered test names to keep (None: all stored).
    results : path
        Results root holding Berrar's studies (``ROOT/berrarN/PROFILE``); None: no Berrar section.
    berrar_profile : str, optional
        The profile of Berrar's runs (default the run's).
    out : path, optional
        Where the pages go (default the run directory).
    figures : bool
        Draw the figures (PNG, under ``out/figures``).

    Returns
    -------
    dict
        ``markdown`` and ``html`` paths, ``tables`` and ``text`` (the Markdown).
    """
    from ..compare import html_table, markdown_table
    out = Path(out) if out is not None else Path(run.path)
    out.mkdir(parents=True, exist_ok=True)
    figdir = out / "figures"
    outcomes = run.table("outcomes")
    if tests is not None:
        outcomes = outcomes[outcomes["test"].isin(list(tests))]
    extra = []
    if plugins:
        scores = run.table("scores")
        if "error" in scores:
            scores = scores[scores["error"].isna()]
        for ref, fn in plugins:
            extra.append(plugin_rows(scores, fn, ref, timeout=timeout))
    extra = pd.concat(extra, ignore_index=True) if extra else None
    pr = procedures(outcomes, extra)
    if not pr.p:
        raise ValueError("--tests: no stored test is left to report")
    board = leaderboard(pr)
    cal = calibration(pr)
    pdist = pvalue_distribution(pr)
    power = power_table(pr)
    repl = replicability_table(pr)
    named = named_procedures(pr.info, extra_tests=[ref for ref, _ in plugins])
    checks = statements(pr, board, named)
    draw = figures
    figures = {} if not draw else {"leaderboard": _figure_leaderboard(board, figdir),
               "calibration": _figure_calibration(cal, named, figdir),
               "pvalues": _figure_pvalues(pdist, named, figdir),
               "power": _gaussian_panels(power, "rejecting", named, figdir, "power",
                                         "rejections in the true direction, %",
                                         "Power against the true gap (Gaussian worlds; effect 0 = null: Type I error)"),
               "replicability": _gaussian_panels(repl, "r2", named, figdir, "replicability", "mean R2, %",
                                                 "Replicability R2 of the repeats against the true gap (Gaussian worlds)")}
    berrar = None
    if results is not None:
        from .berrar_calibration import berrar_calibration, draw_reliability

        berrar = berrar_calibration(results, berrar_profile or run.manifest["profile"])
        figures["berrar"] = draw_reliability(berrar, figdir) if draw and berrar["reliability"] else None

    prof = run.manifest["profile"]
    n_exp = pr.n_experiments
    units = pr.units
    n_null = int((units["truth"] == "null").sum())
    n_alt = int(units["truth"].isin(["A", "B"]).sum())
    n_unclear = int((units["truth"] == "unclear").sum())
    named_rows = [n for n in named.values()]
    sections = []  # (title, [("md"/"table"/"figure", payload)])
    sections.append(("What was run", [("md", (
        f"Profile `{prof}`: {units['condition'].nunique()} scenarios, {len(units)} data sets ({n_null} from null "
        f"scenarios, {n_alt} from alternatives, {n_unclear} from scenarios whose truth is unclear), every design "
        f"repeated {n_exp} times per data set; {len(pr.p)} procedures (test x design x scheme)"
        + (f", plug-ins: {', '.join(f'`{r}`' for r, _ in plugins)}" if plugins else "") + ". "
        "Every procedure saw the same data sets, partitions and fits. Intervals are 95% Monte Carlo intervals over "
        "data sets (the repeats on one data set averaged first). Truth: `simstudy/proving/truth.json`."))]))
    sections.append(("The papers' statements, checked", [("table", checks)]))
    sections.append(("Leaderboard", [
        ("md", f"Ranked at alpha = {ALPHA:g}: a procedure *keeps alpha* when the lower end of the 95% interval of its "
               "Type I error on the null data sets is at most alpha; those are ranked by power (rejections in the true "
               "direction on the alternative data sets). Procedure i beats j when the 95% interval of the paired "
               "difference of their per-data-set power lies above 0; rank = 1 + the number of procedures that beat "
               "it, so procedures whose paired interval overlaps 0 are tied (`tied with` counts them). Procedures "
               "that do not keep alpha follow, unranked."),
        ("figure", (figures.get("leaderboard"), "Leaderboard: the 20 best-ranked procedures that keep alpha; power and "
                                            "Type I error with 95% intervals")),
        ("table", _view_board(board))]))
    sections.append(("Calibration", [
        ("md", "Type I error (%) on the null data sets at each level, for the procedures the papers name; every "
               "procedure's curve is in `calibration.csv`."),
        ("figure", (figures.get("calibration"), "Type I error against alpha, log scales, 95% bands; the dashed line is "
                                            "a perfectly calibrated test")),
        ("table", _calibration_wide(cal, named_rows)),
        ("figure", (figures.get("pvalues"), "Empirical distribution of the p-values under the null against the "
                                        "uniform's diagonal")),
        ("table", pdist[pdist["procedure"].isin(named_rows)].drop(columns="ecdf"))]))
    sections.append(("Power", [
        ("figure", (figures.get("power"), "Rejections in the true direction against the measured gap, per learner pair "
                                      "and sample size; solid rho = 0, dotted rho = 0.6")),
        ("table", power[power["procedure"].isin(named_rows)].drop(columns=["n"]))]))
    sections.append(("Replicability and consistency", [
        ("figure", (figures.get("replicability"), "Mean R2 of the repeats against the measured gap")),
        ("table", repl[repl["procedure"].isin(named_rows)].drop(columns=["n"]))]))
    if berrar is not None:
        sections.append(("Calibration of Berrar's replication probability", _berrar_items(berrar, figures.get("berrar"))))

    text, page = _render(f"Proving ground ({prof})", sections, out)
    from .._files import write_atomic

    paths = {"markdown": out / f"{REPORT_NAME}.md", "html": out / f"{REPORT_NAME}.html",
             "leaderboard_csv": out / "leaderboard.csv", "calibration_csv": out / "calibration.csv"}
    write_atomic(paths["markdown"], text + "\n")
    write_atomic(paths["html"], page)
    write_atomic(paths["leaderboard_csv"], board.to_csv(index=False))
    write_atomic(paths["calibration_csv"], cal.to_csv(index=False))
    return {**paths, "figures": figures, "text": text,
            "tables": {"leaderboard": board, "calibration": cal, "pvalues": pdist, "power": power,
                       "replicability": repl, "statements": checks, "berrar": berrar}}
