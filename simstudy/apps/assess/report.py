"""What an assessment shows: the console text, a Markdown page and its HTML twin, and the p-value figure.

Everything here is computed from an :class:`simstudy.apps.assess.Assessment`, i.e.
from stored rows; nothing is simulated again.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "assessment_text",
    "lucky_line",
    "assessment_markdown",
    "assessment_html",
    "draw_pvalues",
    "write_assessment",
    "compact_table",
    "md_text",
]


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
    """The assessment table in the columns a reader needs, formatted (text cells, 'n/a' for missing).

    ``correction`` says how each test treats splits that share training cases
    (:func:`simstudy.apps.conclusion.test_kind`): ``uncorrected`` tests take them
    as independent and must not decide.
    """
    from simstudy.apps.conclusion import test_kind

    t = a.table
    rows = []
    for _, r in t.iterrows():
        n_null = r.get("null data sets", 0)
        type1 = _interval(
            r.get("Type I error %", np.nan), r.get("Type I low %", np.nan), r.get("Type I high %", np.nan)
        )
        rows.append(
            {
                "design": r["design"],
                "scheme": r["scheme"] or "-",
                "test": r["test"],
                "correction": test_kind(r["test"]),
                "A better": f"{r['A better']}/{r['repeats']}",
                "B better": f"{r['B better']}/{r['repeats']}",
                "R2": _num(r["R2"], 2) + (f" ± {r['R2 se']:.2f}" if np.isfinite(r["R2 se"]) and r["R2 se"] > 0 else ""),
                "all agree": "yes" if r["all agree"] else "no",
                "first p": _p(r["first p"]),
                "P_rep of first [95% PI]": (
                    "n/a"
                    if not np.isfinite(r["P_rep"])
                    else f"{_num(r['P_rep'], 2)} [{_num(r['P_rep low'], 2)}, {_num(r['P_rep high'], 2)}]"
                ),
                "F (first as initial)": _num(r["F first"], 2),
                "size": r.get("size", "no evidence") or "no evidence",
                "Type I % [interval] (null data sets)": type1 + (f" ({int(n_null)})" if type1 != "n/a" else ""),
                "deciding null scenario": r.get("deciding null scenario", "") or "-",
                "size-adjusted power %": _interval(
                    r.get("size-adjusted power %", np.nan),
                    r.get("size-adjusted power low %", np.nan),
                    r.get("size-adjusted power high %", np.nan),
                    0,
                ),
                "rank": _rank(r),
                "simulated R2": _num(r.get("simulated R2 (lowest over sources)", np.nan), 2),
            }
        )
    return pd.DataFrame(rows)


def _plain(text) -> str:
    return str(text)


def _header(a, esc=_plain) -> list[str]:
    """The header lines; ``esc`` is applied to every piece that comes from the data or the user's input."""
    designs = ", ".join(f"{d.key} ({d.label}, train {d.n_train:g} / test {d.n_test:g} on average)" for d in a.designs)
    lines = [
        f"Data: {esc(a.data.name)}: {a.data.y.size} cases, {len(a.data.columns)} attributes, classes "
        f"{', '.join(esc(c) for c in a.data.classes)}",
    ]
    dropped = getattr(a.data, "dropped_note", "")
    if dropped:
        lines.append(esc(dropped[0].upper() + dropped[1:]))
    return lines + [
        f"A: {esc(_learner_line(a.a))}",
        f"B: {esc(_learner_line(a.b))}",
        f"Score per split: {_metric(a)}"
        + ("" if _metric(a) == "accuracy" else " (greater is better)")
        + (
            f"; scored from the outputs stored when it was fitted for {a.run.fitted_metric}, nothing fitted again"
            if getattr(a.run, "fitted_metric", None)
            else ""
        ),
        f"Designs: {designs}; each repeated {a.table['repeats'].max()} times on new random partitions; "
        f"alpha {a.alpha}; root seed {a.run.manifest['root_seed']}",
        f"Stored in {esc(a.run.path)}",
    ]


def _learner_line(choice) -> str:
    """A learner as the header states it: ``name = label`` when it was named, else its label."""
    return f"{choice.name} = {choice.label}" if choice.name else choice.label


# Markdown that text from the data must not be able to make: HTML (tags, entities), code spans, emphasis,
# strike-through, links, images and link reference definitions (no bracket survives), headings, table cells,
# math, autolinks (scheme:, www., e-mail), mentions and emoji codes.
_MD_ESCAPED = set("\\`*_[]#|~${}:@")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def md_text(text) -> str:
    """``text`` as inline Markdown that renders as exactly this text and nothing else.

    ``&``, ``<`` and ``>`` become HTML entities (no tag or entity can come
    through); the ASCII punctuation that can start Markdown structure (code
    spans, emphasis, links and images, headings, table cells, strike-through,
    math, autolinks) is escaped with a backslash, ``www.`` too, and the ``@``
    of what GitHub would link as an e-mail address is shown as code; line
    breaks become spaces.  An underscore between two letters or digits, which no
    renderer reads as emphasis, is left as it is so names stay readable.
    """
    text = " ".join(str(text).splitlines()) if text is not None else ""
    text = text.replace("\t", " ").replace("\v", " ").replace("\f", " ")
    out = []
    for i, ch in enumerate(text):
        if ch in _HTML:
            out.append(_HTML[ch])
        elif ch == "_" and 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum():
            out.append(ch)
        elif ch == "@" and i > 0 and (text[i - 1].isalnum() or text[i - 1] in ".+-_"):
            out.append("`@`")  # GitHub links name@domain.org whatever the escapes: a code span splits it
        elif ch == ":" and (i + 1 == len(text) or text[i + 1].isspace()):
            out.append(ch)  # "Note: ..." starts no autolink; "scheme:..." (not followed by a space) could
        elif ch in _MD_ESCAPED:
            out.append("\\" + ch)
        elif ch == "." and text[max(0, i - 3) : i].lower() == "www":
            out.append("\\.")
        else:
            out.append(ch)
    return "".join(out)


# A code span of our own prose (a test's name, a command): its content is shown literally, whatever it holds.
_CODE = re.compile(r"`([^`\n]+)`")
# A table cell that can be nothing but a number, with or without an interval: no Markdown can form in it.
_NUMBER_CELL = re.compile(r"n/a|[0-9eE.,%+\- ]*(\[[0-9eE.,+\- ]*\])?[0-9eE.,%+\- ]*")


def _html_prose(text: str) -> str:
    """Our own text as HTML: code spans (names, commands) as ``<code>``, everything escaped."""
    parts = _CODE.split(str(text))
    return "".join(f"<code>{html.escape(p)}</code>" if i % 2 else html.escape(p) for i, p in enumerate(parts))


def _md_prose(text: str) -> str:
    """Our own text with code spans (names, commands): the spans kept as code, everything else :func:`md_text`."""
    parts = _CODE.split(str(text))
    return "".join(f"`{p}`" if i % 2 else md_text(p) for i, p in enumerate(parts))


def _metric(a) -> str:
    return str(a.effect["metric"].iloc[0]) if len(a.effect) else "accuracy"


def _effect_lines(a) -> list[str]:
    lines = []
    for _, r in a.effect.iterrows():
        lines.append(
            f"  {r['design']}: A {r['mean A']:.4f}, B {r['mean B']:.4f} (mean over every split of every repeat)"
        )
        if "first: A - B" in r:
            lines.append(
                f"    first repeat: A - B = {r['first: A - B']:+.4f} [{r['low']:+.4f}, {r['high']:+.4f}] (corrected 95% "
                f"interval); Bayesian correlated t with ROPE ±{getattr(a, 'rope', 0.01):g}: P(A better) "
                f"{r['P(A better)']:.2f}, P(equivalent) {r['P(equivalent)']:.2f}, P(B better) {r['P(B better)']:.2f}; "
                f"interval above 0 in {r['interval above 0']} repeats, below 0 in {r['interval below 0']}"
            )
    return lines


def warning_lines(a) -> list[str]:
    """The learners' warnings, each said once with how often and in how many repeats it came."""
    w = getattr(a, "warnings", None)
    if w is None or w.empty:
        return []
    n = int(a.table["repeats"].max()) * len(a.designs)
    lines = [f"Warnings from the learners' fits (counted, not printed as they came; {n} repeats in all):"]
    for _, r in w.iterrows():
        lines.append(f"  {r['category']}: {r['count']} times in {r['repeats']} repeats: {r['message']}")
    return lines


def lucky_line(a) -> str:
    """Berrar's question on the user's data: do significant first repeats replicate as often as P_rep says?"""
    t = a.table
    sig = t[(t["first verdict"] != "not significant") & np.isfinite(t["P_rep"]) & np.isfinite(t["F first"])]
    if sig.empty:
        return (
            "Lucky first experiment: no test with a replication model was significant in the first repeat, "
            "so there is no significant verdict to replicate."
        )
    return (
        f"Lucky first experiment: {len(sig)} test(s) were significant in the first repeat; Berrar's "
        f"replication probability averaged {sig['P_rep'].mean():.2f} over them, and the other repeats reached "
        f"the same significant verdict in {sig['F first'].mean():.2f} of cases on average (F)."
    )


def conclusion_text(a) -> str:
    """The Conclusion paragraph (code spans as written), or '' for an assessment without one."""
    c = getattr(a, "conclusion", None)
    if c is None:
        return ""
    return f"Conclusion: {c.headline}\n{c.text}" if getattr(c, "headline", "") else f"Conclusion: {c.text}"


def conclusion_markdown(c) -> list[str]:
    """The Conclusion as Markdown lines: its headline in bold, its table of pairs (several data sets), then the
    reasons."""
    head = [f"**{md_text(c.headline)}**", ""] if getattr(c, "headline", "") else []
    pairs = [_md_table(pd.DataFrame(list(c.pairs))), ""] if getattr(c, "pairs", ()) else []
    return ["## Conclusion", "", *head, *pairs, _md_prose(c.text), ""]


def conclusion_html(c) -> str:
    """The HTML twin of :func:`conclusion_markdown`."""
    from simstudy.outputs.tables import html_table

    head = f"<p><strong>{html.escape(c.headline)}</strong></p>" if getattr(c, "headline", "") else ""
    pairs = html_table(pd.DataFrame(list(c.pairs))) if getattr(c, "pairs", ()) else ""
    return f"<h2>Conclusion</h2>{head}{pairs}<p>{_html_prose(c.text)}</p>"


def assessment_text(a) -> str:
    """Plain text for the terminal: the Conclusion first."""
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 40):
        table = compact_table(a).to_string(index=False)
    lines = [
        *([conclusion_text(a), ""] if conclusion_text(a) else []),
        *_header(a),
        "",
        f"Mean {_metric(a)} and the difference:",
        *_effect_lines(a),
        "",
        "Verdicts across repeats:",
        *[f"  {v}" for v in a.verdicts],
        "",
        *[line for line in warning_lines(a)],
        *([""] if warning_lines(a) else []),
        table,
        "",
        lucky_line(a),
        "",
        a.recommendation,
    ]
    if a.evidence_notes:
        lines += ["", "Evidence: " + "; ".join(a.evidence_notes)]
    lines += ["", _legend()]
    return "\n".join(lines)


def _legend() -> str:
    return (
        "R2: the share of pairs of repeats that reach the same verdict (Bouckaert 2004), ± its standard error "
        "(his Theorem 3.1; not given when repeats reject in both directions). P_rep: Berrar's replication "
        "probability of the first repeat's verdict, with its 95% prediction interval (non-central t for the "
        "t-tests, the Wilcoxon model with s* = 1 for the signed-rank tests, and for the count tests the "
        'binomial model in the test\'s own tie convention: "binomial (a tie counts half)" for sign, sign_cdf '
        'and sign_cdf_reversed, "binomial (ties are not wins)" for binomial; the CSV names the model of '
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
        "one data set (Bouckaert's replicability criterion)."
    )


def _md_table(df: pd.DataFrame) -> str:
    """A GitHub Markdown table whose every header and cell is :func:`md_text` (numbers are left as they are)."""
    from simstudy.outputs.tables import table_cells

    headers, aligns, rows = table_cells(df)
    if not headers:
        return ""

    def cell(v):
        if isinstance(v, bool):
            return "yes" if v else "**no**"
        if _NUMBER_CELL.fullmatch(str(v)):  # a number, or "0.13 [0.03, 1.00]": nothing to escape
            return str(v)
        return md_text(v)

    lines = [
        "| " + " | ".join(md_text(h) for h in headers) + " |",
        "|" + "|".join(":---" if al == "left" else "---:" for al in aligns) + "|",
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def assessment_markdown(a, figure: str | None = None) -> str:
    """The Markdown page.

    Everything that comes from the data or the user's input (the file's name,
    class labels, learner labels, paths, the evidence notes) goes through
    :func:`md_text`: it reads as written and can add no HTML or Markdown.
    """
    md = md_text
    c = getattr(a, "conclusion", None)
    parts = [
        f"# {md(a.a.shown)} against {md(a.b.shown)} on {md(a.data.name)}",
        "",
        *(conclusion_markdown(c) if c is not None else []),
        *[f"- {line}" for line in _header(a, md)],
        "",
        "## Verdicts across repeats",
        "",
        *[f"- {v}" for v in a.verdicts],
        "",
        *[(md(line) if i == 0 else f"- {md(line.strip())}") for i, line in enumerate(warning_lines(a))],
        *([""] if warning_lines(a) else []),
        f"## Mean {md(_metric(a))}",
        "",
        _md_table(a.effect),
        "",
        "## Per design, scheme and test",
        "",
        _md_table(compact_table(a)),
        "",
        lucky_line(a),
        "",
        "## Recommendation",
        "",
        _md_prose(a.recommendation),
        "",
    ]
    if a.evidence_notes:
        parts += ["Evidence: " + md("; ".join(a.evidence_notes)), ""]
    if figure:
        parts += [
            f"![p-values of every test in every repeat, one panel per design; the dashed line marks "
            f"alpha = {a.alpha}]({figure})",
            "",
        ]
    parts += [_legend(), ""]
    return "\n".join(parts)


def assessment_html(a, figure: str | None = None) -> str:
    """The HTML twin of :func:`assessment_markdown`."""
    from simstudy.outputs.tables import html_table as table

    e = html.escape
    c = getattr(a, "conclusion", None)
    body = [
        f"<h1>{e(a.a.shown)} against {e(a.b.shown)} on {e(a.data.name)}</h1>",
        *([conclusion_html(c)] if c is not None else []),
        "<ul>" + "".join(f"<li>{e(x)}</li>" for x in _header(a)) + "</ul>",
        "<h2>Verdicts across repeats</h2>",
        "<ul>" + "".join(f"<li>{e(v)}</li>" for v in a.verdicts) + "</ul>",
        *(
            [f"<p>{e(warning_lines(a)[0])}</p><ul>" + "".join(f"<li>{e(x.strip())}</li>" for x in warning_lines(a)[1:])]
            + ["</ul>"]
            if warning_lines(a)
            else []
        ),
        f"<h2>Mean {e(_metric(a))}</h2>",
        table(a.effect),
        "<h2>Per design, scheme and test</h2>",
        table(compact_table(a)),
        f"<p>{e(lucky_line(a))}</p>",
        "<h2>Recommendation</h2>",
        f"<p>{_html_prose(a.recommendation)}</p>",
    ]
    if a.evidence_notes:
        body.append(f"<p>Evidence: {e('; '.join(a.evidence_notes))}</p>")
    if figure:
        body.append(
            f'<figure><img src="{e(figure)}" alt="p-values of every test in every repeat, one panel per '
            f'design; the dashed line marks alpha = {a.alpha}" style="max-width:100%">'
            f"<figcaption>p-values of every test in every repeat (log scale); the dashed line marks "
            f"alpha = {a.alpha}: points left of it are significant.</figcaption></figure>"
        )
    body.append(f"<p><small>{e(_legend())}</small></p>")
    style = (
        "body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;padding:2px 6px}"
        "td{text-align:right}td:first-child,td:nth-child(2),td:nth-child(3){text-align:left}"
    )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{e(a.data.name)}: '
        f"{e(a.a.shown)} vs {e(a.b.shown)}</title><style>{style}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def draw_pvalues(a, directory, name: str = "assessment") -> Path:
    """One panel per design: the p-value of every test (and scheme) in every repeat, on a log axis."""
    from simstudy.outputs.plots.output import save_figure

    return save_figure(_pvalue_figure(a), Path(directory), name, formats=("png",))[0]


def _pvalue_png(a) -> bytes:
    """The figure of :func:`draw_pvalues` as PNG bytes, rendered as :func:`~simstudy.outputs.plots.output.save_figure` does."""
    import io

    from simstudy.outputs.plots.output import DPI

    buf = io.BytesIO()
    _pvalue_figure(a).savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    return buf.getvalue()


def _short(text, limit: int = 60) -> str:
    """A label cut to ``limit`` characters for a figure title (the pages give it whole)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _pvalue_figure(a):
    from simstudy.apps.conclusion import test_kind
    from simstudy.outputs.plots.layout import wrap_text
    from simstudy.outputs.plots.output import new_figure

    out = a.run.table("outcomes")
    designs = list(dict.fromkeys(out["condition"]))
    heights = [max(1.5, 0.28 * out[out["condition"] == d].groupby(["scheme", "test"]).ngroups + 0.8) for d in designs]
    fig = new_figure((8, sum(heights) + 0.7))  # and the title and the three lines under the axes
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
            y = np.full(p.size, i) + jitter
            if test_kind(test) == "uncorrected":  # hollow: not for a decision
                ax.scatter(p, y, s=12, facecolors="none", edgecolors=list(colour), alpha=0.8, linewidths=0.8)
            else:
                ax.scatter(p, y, s=12, c=colour, alpha=0.8, linewidths=0)
            label = f"{test} ({scheme})" if scheme else test
            labels.append(label + (" [uncorrected]" if test_kind(test) == "uncorrected" else ""))
        ax.axvline(a.alpha, ls="--", color="k", lw=1)
        ax.set_xscale("log")
        ax.set_xlim(floor, 1.5)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(design, fontsize=9, loc="left")
        ax.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel(
        f"p-value (log scale; dashed: alpha = {a.alpha});\nblue: A significantly better, red: B, grey: not "
        "significant;\nhollow: uncorrected tests, which take splits that share training cases as independent",
        fontsize=8,
    )
    title = fig.suptitle(
        f"A: {_short(a.a.shown)}  vs  B: {_short(a.b.shown)}\non {_short(a.data.name)}, {_metric(a)}, "
        f"{int(a.table['repeats'].max())} repeats of every design",
        fontsize=9,
        x=0.01,
        ha="left",
    )
    wrap_text(title, 0.97 * fig.bbox.width)
    return fig


def page_stem(metric: str) -> str:
    """The pages' file stem for a metric: ``assessment``, or ``assessment-METRIC`` for any other than accuracy."""
    return "assessment" if metric == "accuracy" else f"assessment-{metric}"


def write_assessment(a, directory=None, *, written: list | None = None) -> dict[str, Path]:
    """Write ``assessment.md``, ``assessment.html``, ``assessment.png`` and ``assessment.csv`` into the run directory.

    Scored by another metric than accuracy, the pages are ``assessment-METRIC.*`` (:func:`page_stem`): scoring
    a finished assessment again with ``--metric`` writes beside the earlier pages, never over them.

    A file that already holds exactly what would be written is left alone, so
    re-summarising a finished assessment writes nothing and also works in a
    read-only folder.

    Parameters
    ----------
    a : Assessment
    directory : path-like, optional
        Default the run directory.
    written : list, optional
        Receives the paths actually (re)written.

    Returns
    -------
    dict of Path
        The pages, by kind (``figure``, ``markdown``, ``html``, ``csv``).

    Raises
    ------
    OSError
        A page that changed cannot be written (e.g. a read-only folder).
    """
    from simstudy._files import write_atomic

    d = Path(directory) if directory is not None else Path(a.run.path)
    stem = page_stem(_metric(a))
    paths = {
        "figure": d / f"{stem}.png",
        "markdown": d / f"{stem}.md",
        "html": d / f"{stem}.html",
        "csv": d / f"{stem}.csv",
    }
    pages = {
        "figure": _pvalue_png(a),
        "markdown": assessment_markdown(a, figure=paths["figure"].name),
        "html": assessment_html(a, figure=paths["figure"].name),
        "csv": a.table.to_csv(index=False),
    }
    for kind, content in pages.items():
        data = content.encode("utf-8") if isinstance(content, str) else content
        try:
            same = paths[kind].read_bytes() == data
        except OSError:
            same = False
        if not same:
            d.mkdir(parents=True, exist_ok=True)
            write_atomic(paths[kind], data)
            if written is not None:
                written.append(paths[kind])
    return paths
