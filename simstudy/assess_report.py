"""What an assessment shows: the console text, a Markdown page and its HTML twin, and the p-value figure.

Everything here is computed from an :class:`simstudy.assess.Assessment`, i.e.
from stored rows; nothing is simulated again.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
from ._lazy import lazy_module

pd = lazy_module("pandas")

__all__ = ["assessment_text", "lucky_line", "assessment_markdown", "assessment_html", "draw_pvalues", "write_assessment",
           "compact_table"]


def _pct(v) -> str:
    return "n/a" if v is None or not np.isfinite(v) else f"{100 * v:.0f}%"


def _num(v, digits=3) -> str:
    return "n/a" if v is None or not np.isfinite(v) else f"{v:.{digits}f}"


def _p(v) -> str:
    if v is None or not np.isfinite(v):
        return "n/a"
    return f"{v:.2g}" if v < 0.001 else f"{v:.3f}"


def _interval(v, lo, hi, digits=1) -> str:
    if v is None or not np.isfinite(v):
        return "n/a"
    ends = f" [{lo:.{digits}f}, {hi:.{digits}f}]" if np.isfinite(lo) and np.isfinite(hi) else ""
    return f"{v:.{digits}f}{ends}"


def _rank(r) -> str:
    rank, tied = r.get("rank", np.nan), r.get("tied with", np.nan)
    if rank is None or not np.isfinite(rank):
        return "-"
    return f"{int(rank)}" + (f" (ties {int(tied)})" if np.isfinite(tied) and tied > 0 else "")


def compact_table(a) -> pd.DataFrame:
    """The assessment table in the columns a reader needs, formatted (text cells, 'n/a' for missing)."""
    t = a.table
    rows = []
    for _, r in t.iterrows():
        n_null = r.get("null data sets", 0)
        type1 = _interval(r.get("Type I error %", np.nan), r.get("Type I low %", np.nan),
                          r.get("Type I high %", np.nan))
        rows.append({
            "design": r["design"], "scheme": r["scheme"] or "-", "test": r["test"],
            "A better": f"{r['A better']}/{r['repeats']}", "B better": f"{r['B better']}/{r['repeats']}",
            "R2": _num(r["R2"], 2) + (f" ± {r['R2 se']:.2f}" if np.isfinite(r["R2 se"]) and r["R2 se"] > 0 else ""),
            "all agree": "yes" if r["all agree"] else "no",
            "first p": _p(r["first p"]),
            "P_rep of first [95% PI]": ("n/a" if not np.isfinite(r["P_rep"]) else
                                        f"{_num(r['P_rep'], 2)} [{_num(r['P_rep low'], 2)}, {_num(r['P_rep high'], 2)}]"),
            "F (first as initial)": _num(r["F first"], 2),
            "size": r.get("size", "no evidence") or "no evidence",
            "Type I % [interval] (null data sets)": type1 + (f" ({int(n_null)})" if type1 != "n/a" else ""),
            "deciding null scenario": r.get("deciding null scenario", "") or "-",
            "size-adjusted power %": _interval(r.get("size-adjusted power %", np.nan),
                                               r.get("size-adjusted power low %", np.nan),
                                               r.get("size-adjusted power high %", np.nan), 0),
            "rank": _rank(r),
            "simulated R2": _num(r.get("simulated R2 (lowest over sources)", np.nan), 2),
        })
    return pd.DataFrame(rows)


def _header(a) -> list[str]:
    designs = ", ".join(f"{d.key} ({d.label}, train {d.n_train} / test {d.n_test})" for d in a.designs)
    return [
        f"Data: {a.data.name}: {a.data.y.size} cases, {len(a.data.columns)} attributes, classes "
        f"{', '.join(a.data.classes)}",
        f"A: {a.a.label}",
        f"B: {a.b.label}",
        f"Designs: {designs}; each repeated {a.table['repeats'].max()} times on new random partitions; "
        f"alpha {a.alpha}; root seed {a.run.manifest['root_seed']}",
        f"Stored in {a.run.path}",
    ]


def _accuracy_lines(a) -> list[str]:
    return [f"  {r['design']}: A {r['mean accuracy A']:.4f}, B {r['mean accuracy B']:.4f} "
            f"(mean over every split of every repeat)" for _, r in a.accuracy.iterrows()]


def lucky_line(a) -> str:
    """Berrar's question on the user's data: do significant first repeats replicate as often as P_rep says?"""
    t = a.table
    sig = t[(t["first verdict"] != "not significant") & np.isfinite(t["P_rep"]) & np.isfinite(t["F first"])]
    if sig.empty:
        return ("Lucky first experiment: no test with a replication model was significant in the first repeat, "
                "so there is no significant verdict to replicate.")
    return (f"Lucky first experiment: {len(sig)} test(s) were significant in the first repeat; Berrar's "
            f"replication probability averaged {sig['P_rep'].mean():.2f} over them, and the other repeats reached "
            f"the same significant verdict in {sig['F first'].mean():.2f} of cases on average (F).")


def assessment_text(a) -> str:
    """Plain text for the terminal."""
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 40):
        table = compact_table(a).to_string(index=False)
    lines = [*_header(a), "", "Mean accuracy:", *_accuracy_lines(a), "", "Verdicts across repeats:",
             *[f"  {v}" for v in a.verdicts], "", table, "", lucky_line(a), "", a.recommendation]
    if a.evidence_notes:
        lines += ["", "Evidence: " + "; ".join(a.evidence_notes)]
    lines += ["", _legend()]
    return "\n".join(lines)


def _legend() -> str:
    return ("R2: the share of pairs of repeats that reach the same verdict (Bouckaert 2004), ± its standard error "
            "(his Theorem 3.1; not given when repeats reject in both directions). P_rep: Berrar's replication "
            "probability of the first repeat's verdict, with its 95% prediction interval (non-central t for the "
            "t-tests, the Wilcoxon model with s* = 1 for the signed-rank tests, and for the count tests the "
            "binomial model in the test's own tie convention: \"binomial (a tie counts half)\" for sign, sign_cdf "
            "and sign_cdf_reversed, \"binomial (ties are not wins)\" for binomial; the CSV names the model of "
            "every row). F: the share of the other repeats that reach the first repeat's significant verdict (n/a "
            "when the first repeat is not significant). size: the procedure's size verdict from the stored "
            "simulations (controls size: the upper end of its Type I error's interval is at most 1.5 alpha on "
            "every null scenario, the intervals simultaneous over its null scenarios; liberal: the lower end lies "
            "above alpha on some null scenario; unresolved: neither, more null data sets are needed; no evidence: "
            "no stored run has it). Type I: its Type I error on the deciding null scenario (the liberal one, or "
            "the one with the highest upper end), percent, with that interval and the number of data sets. "
            "size-adjusted power: rejections in the true direction on the alternative scenarios at the threshold "
            "that gives the procedure a Type I error of alpha on their null twins (n/a without a twin or without "
            "the direction of non-significant rows). rank: among the procedures that control size, 1 + the number "
            "whose paired size-adjusted power is significantly higher (ties: procedures whose paired difference is "
            "not). simulated R2: the lowest, over the stored scenarios, of the mean R2 of repeated experiments on "
            "one data set (Bouckaert's replicability criterion).")


def _md_table(df: pd.DataFrame) -> str:
    from .compare import markdown_table

    return markdown_table(df)


def assessment_markdown(a, figure: str | None = None) -> str:
    """The Markdown page."""
    parts = [f"# {html.escape(a.a.label)} against {html.escape(a.b.label)} on {html.escape(a.data.name)}", "",
             *[f"- {line}" for line in _header(a)], "", "## Verdicts across repeats", "",
             *[f"- {v}" for v in a.verdicts], "", "## Mean accuracy", "", _md_table(a.accuracy), "",
             "## Per design, scheme and test", "", _md_table(compact_table(a)), "", lucky_line(a), "",
             "## Recommendation", "", a.recommendation, ""]
    if a.evidence_notes:
        parts += ["Evidence: " + "; ".join(a.evidence_notes), ""]
    if figure:
        parts += [f"![p-values of every test in every repeat, one panel per design; the dashed line marks "
                  f"alpha = {a.alpha}]({figure})", ""]
    parts += [_legend(), ""]
    return "\n".join(parts)


def assessment_html(a, figure: str | None = None) -> str:
    """The HTML twin of :func:`assessment_markdown`."""
    from .compare import html_table as table

    e = html.escape
    body = [f"<h1>{e(a.a.label)} against {e(a.b.label)} on {e(a.data.name)}</h1>",
            "<ul>" + "".join(f"<li>{e(x)}</li>" for x in _header(a)) + "</ul>",
            "<h2>Verdicts across repeats</h2>", "<ul>" + "".join(f"<li>{e(v)}</li>" for v in a.verdicts) + "</ul>",
            "<h2>Mean accuracy</h2>", table(a.accuracy),
            "<h2>Per design, scheme and test</h2>", table(compact_table(a)), f"<p>{e(lucky_line(a))}</p>",
            "<h2>Recommendation</h2>", f"<p>{e(a.recommendation).replace('`', '')}</p>"]
    if a.evidence_notes:
        body.append(f"<p>Evidence: {e('; '.join(a.evidence_notes))}</p>")
    if figure:
        body.append(f'<figure><img src="{e(figure)}" alt="p-values of every test in every repeat, one panel per '
                    f'design; the dashed line marks alpha = {a.alpha}" style="max-width:100%">'
                    f"<figcaption>p-values of every test in every repeat (log scale); the dashed line marks "
                    f"alpha = {a.alpha}: points left of it are significant.</figcaption></figure>")
    body.append(f"<p><small>{e(_legend())}</small></p>")
    style = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;padding:2px 6px}"
             "td{text-align:right}td:first-child,td:nth-child(2),td:nth-child(3){text-align:left}")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{e(a.data.name)}: "
            f"{e(a.a.label)} vs {e(a.b.label)}</title><style>{style}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def draw_pvalues(a, directory, name: str = "assessment") -> Path:
    """One panel per design: the p-value of every test (and scheme) in every repeat, on a log axis."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    out = a.run.table("outcomes")
    if "error" in out:
        out = out[out["error"].isna()]
    designs = list(dict.fromkeys(out["condition"]))
    heights = [max(1.5, 0.28 * out[out["condition"] == d].groupby(["scheme", "test"]).ngroups + 0.8) for d in designs]
    fig = Figure(figsize=(8, sum(heights)))
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(designs), 1, squeeze=False, gridspec_kw={"height_ratios": heights})
    positive = out["pvalue"][out["pvalue"] > 0]
    floor = float(np.clip(positive.min() / 3 if len(positive) else 1e-3, 1e-12, 1e-3))
    for ax, design in zip(axes[:, 0], designs):
        rows = out[out["condition"] == design]
        labels = []
        for i, ((scheme, test), g) in enumerate(rows.groupby(["scheme", "test"], sort=False)):
            p = np.clip(g["pvalue"].to_numpy(float), floor, 1.0)
            colour = np.where(g["decision"] > 0, "tab:blue", np.where(g["decision"] < 0, "tab:red", "0.5"))
            jitter = (np.arange(p.size) - (p.size - 1) / 2) * (0.3 / max(p.size, 1))
            ax.scatter(p, np.full(p.size, i) + jitter, s=12, c=colour, alpha=0.8, linewidths=0)
            labels.append(f"{test} ({scheme})" if scheme else test)
        ax.axvline(a.alpha, ls="--", color="k", lw=1)
        ax.set_xscale("log")
        ax.set_xlim(floor, 1.5)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(design, fontsize=9, loc="left")
        ax.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel(f"p-value (log scale; dashed: alpha = {a.alpha}; blue: A significantly better, "
                           "red: B, grey: not significant)", fontsize=8)
    fig.tight_layout()
    from .plots.output import save_figure

    return save_figure(fig, Path(directory), name, formats=("png",))[0]


def write_assessment(a, directory=None) -> dict[str, Path]:
    """Write ``assessment.md``, ``assessment.html``, ``assessment.png`` and ``assessment.csv`` into the run directory.

    Returns the paths written.
    """
    from ._files import write_atomic

    d = Path(directory) if directory is not None else Path(a.run.path)
    d.mkdir(parents=True, exist_ok=True)
    png = draw_pvalues(a, d)
    paths = {"figure": png, "markdown": d / "assessment.md", "html": d / "assessment.html",
             "csv": d / "assessment.csv"}
    write_atomic(paths["markdown"], assessment_markdown(a, figure=png.name))
    write_atomic(paths["html"], assessment_html(a, figure=png.name))
    write_atomic(paths["csv"], a.table.to_csv(index=False))
    return paths
