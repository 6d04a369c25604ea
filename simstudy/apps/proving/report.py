"""The proving ground's report: tables, figures and the papers' statements, from stored rows only.

:func:`build_proving_report` reads a stored run of the proving ground, applies any
plug-in tests to its stored paired scores (no refitting: the same data sets,
partitions and fits the built-in tests saw), computes the tables of
:mod:`simstudy.apps.proving.summary` and, when Berrar's studies are stored, the
calibration of his replication probabilities
(:mod:`simstudy.apps.proving.berrar_calibration`), and writes
``proving-ground.md`` and ``proving-ground.html`` with their figures into the
run directory, beside its tables in CSV (the per-scenario power and
replicability of every procedure only there: a page could not hold them).

This module assembles the page; its parts are made beside it, each importing none of the others:

    plugins     plug-in tests on the stored scores (plugin_rows)
    statements  the papers' statements checked (statements, anchors)
    figures     the figures, drawn and saved
    sections    the tables as the page prints them

Their public names stay importable from here.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from simstudy._files import DEFAULT_ROOT, folder_below
from simstudy._lazy import lazy_module
from simstudy.apps.proving.figures import (
    NAME_WIDTH,
    _figure_calibration,
    _figure_leaderboard,
    _figure_pvalues,
    _figure_size_power,
    _gaussian_panels,
    calibration_figure,
    gaussian_panels_figure,
    leaderboard_figure,
    pvalues_figure,
    size_power_figure,
)
from simstudy.apps.proving.levels import ALPHA
from simstudy.apps.proving.plugins import plugin_rows
from simstudy.apps.proving.sections import (
    _berrar_items,
    _calibration_wide,
    _diagnosis_view,
    _explanations,
    _scenario_verdicts,
    _view_board,
)
from simstudy.apps.proving.statements import anchors, statements
from simstudy.apps.proving.summary import (
    calibration,
    leaderboard,
    load_outcomes,
    named_procedures,
    power_table,
    procedures,
    pvalue_distribution,
    replicability_table,
    size_table,
)
from simstudy.errors import InputError, option

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "plugin_rows",
    "build_proving_report",
    "write_berrar_page",
    "statements",
    "REPORT_NAME",
    # made in the modules beside this one, importable from here as before the split
    "anchors",
    "calibration_figure",
    "pvalues_figure",
    "gaussian_panels_figure",
    "leaderboard_figure",
    "size_power_figure",
    "NAME_WIDTH",
]

REPORT_NAME = "proving-ground"
#: The score columns the diagnostics read.
SCORE_COLUMNS = [
    "condition",
    "replication",
    "design",
    "experiment",
    "run",
    "fold",
    "acc_a",
    "acc_b",
    "n_train",
    "n_test",
    "n01",
    "n10",
]


def _origin(run) -> str:
    """Where the page comes from: when and by which code the rows were made, when and where it was written."""
    from datetime import datetime, timezone

    from simstudy.outputs.report import provenance_text

    made = str(run.manifest.get("created", "?"))[:10]
    code = str((run.manifest.get("provenance") or {}).get("code", "?"))[:12]
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"Rows stored from {made} (code fingerprint `{code}`); page written {stamp}, {provenance_text()}."


# ------------------------------------------------------------------------------------------ the page


def _render(title, sections, out):
    """Markdown and HTML of ``sections`` [(title, [(kind, payload)])], figures linked relative to ``out``."""
    from simstudy.outputs.tables import html_table, markdown_table

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
                body.append(
                    f'<figure><img src="{html.escape(rel)}" alt="{html.escape(caption)}" '
                    f'style="max-width:100%"><figcaption>{html.escape(caption)}</figcaption></figure>'
                )
    style = (
        "body{font-family:sans-serif;max-width:1300px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0}td,th{border:1px solid #ccc;"
        "padding:2px 6px}td.r,th.r{text-align:right}td.l,th.l{text-align:left}td.no{color:#a00}"
    )
    page = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
    return "\n".join(md), page


def write_berrar_page(results, profile: str, out) -> dict:
    """Only the calibration of Berrar's replication probability: ``berrar-calibration.md`` and ``.html`` in ``out``."""
    from simstudy._files import write_atomic
    from simstudy.apps.proving.berrar_calibration import berrar_calibration, draw_reliability

    out = Path(out)
    cal = berrar_calibration(results, profile)
    if not len(cal["forecasts"]):
        raise InputError(
            f"{option('results')}: none of Berrar's studies 1-3 is stored at profile {profile!r} under "
            f"{results} ({'; '.join(cal['notes'])})"
        )
    out.mkdir(parents=True, exist_ok=True)
    fig = draw_reliability(cal, folder_below(out, "figures", option=option("out")))
    text, page = _render(
        f"Calibration of Berrar's replication probability ({profile})",
        [("Reliability and Brier score", _berrar_items(cal, fig))],
        out,
    )
    paths = {"markdown": out / "berrar-calibration.md", "html": out / "berrar-calibration.html"}
    write_atomic(paths["markdown"], text + "\n")
    write_atomic(paths["html"], page)
    return {**paths, "text": text, "calibration": cal}


def _null_scores(run, key) -> pd.DataFrame:
    """One scenario's stored scores, with the discordant counts when the run stored them (older runs did not)."""
    try:
        return pd.concat(run.table_chunks("scores", columns=SCORE_COLUMNS, conditions=[key]), ignore_index=True)
    except ValueError:
        cols = [c for c in SCORE_COLUMNS if c not in ("n01", "n10")]
        return pd.concat(run.table_chunks("scores", columns=cols, conditions=[key]), ignore_index=True)


@dataclass(frozen=True)
class _Tables:
    """Every table of the page, computed from the stored rows (and the plug-ins' rows) before anything is drawn."""

    pr: object  # summary.Procedures
    sizes: pd.DataFrame
    board: pd.DataFrame
    cal: pd.DataFrame
    pdist: pd.DataFrame
    power: pd.DataFrame
    repl: pd.DataFrame
    named: dict
    checks: pd.DataFrame
    diag: pd.DataFrame
    factors: pd.DataFrame
    measured: pd.DataFrame
    inflation: object  # inflation.Inflation

    def controlling_procedures(self) -> dict:
        """The named procedures whose test accounts for the dependence of splits (label -> procedure), as their
        registered kind of correction says (the per-scenario table of the size section)."""
        from simstudy.pipeline.outcomes import get_test

        tests = dict(zip(self.pr.info["procedure"], self.pr.info["test"]))
        out = {}
        for label, proc in self.named.items():
            try:
                kind = get_test(tests[proc]).correction
            except (KeyError, ValueError):  # a plug-in: no registered kind
                continue
            if kind != "uncorrected":
                out[label] = proc
        return out


def _tables(run, plugins, tests, timeout, rule) -> _Tables:
    """The tables of the page (see :class:`_Tables`), the diagnostics one null scenario's scores at a time."""
    from simstudy.apps.proving.diagnostics import corrected_with_measured_factor, sample_factors, split_diagnostics
    from simstudy.apps.proving.inflation import calibrate_inflation
    from simstudy.apps.proving.scenarios import BANK, is_null

    outcomes = load_outcomes(run, tests)
    extra = None
    if plugins:
        scores = run.table("scores")
        extra = pd.concat([plugin_rows(scores, fn, ref, timeout=timeout) for ref, fn in plugins], ignore_index=True)
        del scores
    pr = procedures(outcomes, extra)
    del outcomes
    if not pr.p:
        raise InputError(f"{option('tests')}: no stored test is left to report")
    sizes = size_table(pr, rule)
    board = leaderboard(pr, rule=rule, sizes=sizes)
    named = named_procedures(pr.info, extra_tests=[ref for ref, _ in plugins])
    nulls = [k for k in pd.unique(pr.units["condition"]) if k in BANK and is_null(k)]
    diag, factors, measured = [], [], []
    for key in nulls:
        part = _null_scores(run, key)
        diag.append(split_diagnostics(part))
        factors.append(sample_factors(part))
        measured.append(corrected_with_measured_factor(part, [key]))
    diag, factors, measured = (
        pd.concat(x, ignore_index=True) if x else pd.DataFrame() for x in (diag, factors, measured)
    )
    return _Tables(
        pr=pr,
        sizes=sizes,
        board=board,
        cal=calibration(pr),
        pdist=pvalue_distribution(pr),
        power=power_table(pr),
        repl=replicability_table(pr),
        named=named,
        checks=statements(pr, board, named, sizes=sizes),
        diag=diag,
        factors=factors,
        measured=measured,
        inflation=calibrate_inflation(run, rule=rule),
    )


def _figures(t: _Tables, figdir) -> dict:
    """The page's figures, drawn into ``figdir``."""
    return {
        "leaderboard": _figure_leaderboard(t.board, figdir),
        "size_power": _figure_size_power(t.board, t.named, figdir),
        "calibration": _figure_calibration(t.cal, t.named, figdir),
        "pvalues": _figure_pvalues(t.pdist, t.named, figdir),
        "power": _gaussian_panels(
            t.power,
            "rejecting",
            t.named,
            figdir,
            "power",
            "rejections in the true direction, %",
            "Power against the true gap (Gaussian worlds; effect 0 = null: Type I error)",
        ),
        "replicability": _gaussian_panels(
            t.repl,
            "r2",
            t.named,
            figdir,
            "replicability",
            "mean R2, %",
            "Replicability R2 of the repeats against the true gap (Gaussian worlds)",
        ),
    }


def build_proving_report(
    run,
    *,
    plugins=(),
    tests=None,
    results=DEFAULT_ROOT,
    berrar_profile: str | None = None,
    out=None,
    timeout=None,
    figures: bool = True,
    rule=None,
) -> dict:
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
    rule : simstudy.statistics.size_control.SizeRule, optional
        How size is judged (default alpha 0.05, tolerance 1.5 alpha).

    Returns
    -------
    dict
        ``markdown`` and ``html`` paths, the paths of the CSV tables (``*_csv``), ``figures``, ``tables`` and
        ``text`` (the Markdown).
    """
    from simstudy.statistics.size_control import SizeRule

    rule = rule or SizeRule(alpha=ALPHA)
    out = Path(out) if out is not None else Path(run.path)
    out.mkdir(parents=True, exist_ok=True)
    figdir = folder_below(out, "figures", option=option("out", flag="report-dir"))  # never written through a link
    t = _tables(run, plugins, tests, timeout, rule)
    drawn = _figures(t, figdir) if figures else {}
    berrar = None
    if results is not None:
        from simstudy.apps.proving.berrar_calibration import berrar_calibration, draw_reliability

        berrar = berrar_calibration(results, berrar_profile or run.manifest["profile"])
        drawn["berrar"] = draw_reliability(berrar, figdir) if figures and berrar["reliability"] else None
    sections = [
        _what_was_run(run, t, plugins),
        ("The papers' statements, checked", [("md", _STATEMENTS_TEXT), ("table", t.checks)]),
        _size_section(t, rule),
        _leaderboard_section(t, drawn),
        _diagnosis_section(t),
        _inflation_section(t),
        _calibration_section(t, drawn),
        _power_section(t, drawn),
        _replicability_section(t, drawn),
    ]
    if berrar is not None:
        sections.append(("Calibration of Berrar's replication probability", _berrar_items(berrar, drawn.get("berrar"))))
    text, page = _render(f"Proving ground ({run.manifest['profile']})", sections, out)
    paths = _write_pages(out, text, page, t)
    return {
        **paths,
        "figures": drawn,
        "text": text,
        "tables": {
            "leaderboard": t.board,
            "size": t.sizes,
            "calibration": t.cal,
            "pvalues": t.pdist,
            "power": t.power,
            "replicability": t.repl,
            "statements": t.checks,
            "diagnostics": t.diag,
            "factors": t.factors,
            "measured_factor": t.measured,
            "inflation": t.inflation.table,
            "sequential": t.inflation.sequential,
            "berrar": berrar,
        },
    }


def _write_pages(out: Path, text: str, page: str, t: _Tables) -> dict:
    """Write the Markdown and HTML pages and the CSV tables beside them; their paths."""
    from simstudy._files import write_atomic

    paths = {"markdown": out / f"{REPORT_NAME}.md", "html": out / f"{REPORT_NAME}.html"}
    write_atomic(paths["markdown"], text + "\n")
    write_atomic(paths["html"], page)
    for name, table in (
        ("leaderboard", t.board),
        ("calibration", t.cal),
        ("size", t.sizes),
        ("diagnostics", t.diag),
        ("power", t.power),
        ("replicability", t.repl),
        ("inflation", t.inflation.table),
        ("sequential", t.inflation.sequential if t.inflation.sequential is not None else pd.DataFrame()),
    ):
        paths[f"{name}_csv"] = out / f"{name}.csv"
        write_atomic(paths[f"{name}_csv"], table.to_csv(index=False))
    return paths


# ------------------------------------------------------------------------------------------ the sections


def _what_was_run(run, t: _Tables, plugins):
    units = t.pr.units
    n_null = int((units["truth"] == "null").sum())
    n_alt = int(units["truth"].isin(["A", "B"]).sum())
    n_unclear = int((units["truth"] == "unclear").sum())
    per_null = units[units["truth"] == "null"].groupby("condition").size()
    adaptive = run.manifest.get("adaptive")
    text = (
        f"Profile `{run.manifest['profile']}`: {units['condition'].nunique()} scenarios, {len(units)} data sets "
        f"({n_null} from {per_null.size} null scenarios, {per_null.min() if len(per_null) else 0} to "
        f"{per_null.max() if len(per_null) else 0} each; {n_alt} from alternatives, {n_unclear} from scenarios whose "
        f"truth is unclear), every design repeated {t.pr.n_experiments} times per data set; {len(t.pr.p)} procedures "
        "(test x design x scheme)"
        + (f", plug-ins: {', '.join(f'`{r}`' for r, _ in plugins)}" if plugins else "")
        + ". Every procedure saw the same data sets, partitions and fits. "
        + (
            f"Null scenarios got data sets until every procedure's size verdict was decided or its interval narrow "
            f"enough ({adaptive['rule']}). "
            if adaptive
            else ""
        )
        + "Intervals of power and R2 are 95% Monte Carlo intervals over data sets (the repeats on one data set "
        "averaged first). Truth: `simstudy/apps/proving/truth.json`. " + _origin(run)
    )
    return ("What was run", [("md", text)])


_STATEMENTS_TEXT = (
    "Statements about size hold only where every null scenario's simultaneous interval decides in "
    "their favour, and do not hold where one interval decides against them; otherwise they are "
    "unresolved. Statements about power and replicability rest on the paired interval of the "
    "difference over data sets (unresolved: it covers 0)."
)


def _size_section(t: _Tables, rule):
    return (
        "Size: verdicts per null scenario",
        [
            (
                "md",
                f"How size is judged: {rule.describe()}. The intervals are Clopper-Pearson intervals on an "
                "effective number of trials: the data set is the unit, its repeats count only as far as they "
                "disagree (`simstudy.statistics.size_control`). The deciding scenario is the liberal one with the highest "
                "lower end, or else the one with the highest upper end.",
            ),
            (
                "md",
                "The procedures the papers name whose test accounts for the dependence of splits, per null scenario: "
                "verdict, Type I error % [simultaneous interval], data sets.",
            ),
            ("table", _scenario_verdicts(t.sizes, t.controlling_procedures())),
            ("md", "Every procedure's per-scenario verdicts are in `size.csv`."),
        ],
    )


def _leaderboard_section(t: _Tables, drawn: dict):
    return (
        "Leaderboard",
        [
            (
                "md",
                f"Ranked at alpha = {ALPHA:g}: only procedures that control size on every null scenario are ranked, "
                "by *size-adjusted* power: on each alternative data set whose scenario has a null twin (the same "
                "learners, size and designs without the effect), a rejection in the true direction at the threshold "
                "that gives the procedure a Type I error of at most alpha on the twin. A liberal test cannot buy "
                "power there, and a test that is a monotone rescaling of another gets the same number. Procedure i "
                "beats j when the 95% interval of the paired difference of their per-data-set size-adjusted power "
                "lies above 0; rank = 1 + the number of procedures that beat it, so procedures whose paired interval "
                "covers 0 are tied (`tied with` counts them). Raw power is shown beside it; the size-adjusted "
                "intervals are conditional on the calibrated thresholds. Procedures that are liberal or unresolved "
                'follow, unranked; then those that reject on no data set at all ("never rejects": zero '
                "rejections control size trivially and are never ranked), and plug-ins that declined a design "
                '("declined"). A plug-in that gives decisions only is judged by its decisions (size verdict, '
                'raw power, R2) and has no size-adjusted power and no rank ("n/a: no p-values").',
            ),
            (
                "figure",
                (
                    drawn.get("leaderboard"),
                    "Leaderboard: the 20 best-ranked procedures that control size; "
                    "size-adjusted and raw power, and the deciding null scenario's Type I "
                    "error with its simultaneous interval",
                ),
            ),
            ("figure", (drawn.get("size_power"), "Size against power for every procedure, raw and size-adjusted")),
            *([("md", empty)] if (empty := why_no_rank(t.board)) else []),
            ("table", _view_board(t.board)),
        ],
    )


def _kind(design: str) -> str:
    """The kind of a stored design by its registered grammar ("" for a name no registered family answers to)."""
    from simstudy.pipeline.designs import parse_design

    try:
        return parse_design(design).kind
    except ValueError:
        return ""


def _diagnosis_section(t: _Tables):
    diag = t.diag
    view = diag[diag["design"].map(lambda d: _kind(d) in ("cv", "resampled"))] if len(diag) else diag
    return (
        "Why tests are liberal: the correlation of splits",
        [
            (
                "md",
                "The corrected t-tests assume that the differences of two splits of one data set correlate by "
                "n_test/n (0.1 for 90/10 splits) and multiply the variance by 1/m + n_test/n_train; the uncorrected "
                "ones assume no correlation (1/m). Measured per null scenario from the stored scores: the "
                "correlation between splits of different partitions (the variance of a data set's expected "
                "difference, as a share of a split's) and within one partition (disjoint test sets), the variance "
                "factor the whole design's mean needs (Var(mean) / E[S^2]), the training-set share of a split's "
                "variance (the fitted models' population gap; the rest is the test set's, measured from the "
                "discordant cases), and the Type I error of the corrected t with the measured factor (cross-fitted "
                "over data sets). 95% bootstrap intervals over data sets (`simstudy.apps.proving.diagnostics`). A stable "
                "learner's results on disjoint test sets hardly correlate; an unstable learner's prediction for a "
                "case depends on the particular cases near it, which the data set's other splits train on too, so "
                "results of different cases correlate within and between partitions beyond n_test/n.",
            ),
            ("table", _diagnosis_view(view, t.factors, t.measured, t.sizes, t.named)),
            ("md", "Every liberal verdict of a named procedure, and what the diagnostics say about it:"),
            ("table", _explanations(t.sizes, t.pr, diag, t.factors, t.named)),
        ],
    )


def _inflation_section(t: _Tables):
    from simstudy.apps.proving.inflation import GRID

    infl = t.inflation
    title = "The corrected t pooled over repeats, and inflated per stability class"
    if infl.table.empty:
        if not infl.designs:
            why = "Not computed: the run holds neither the 10x10 cv nor the 5x2 cv."
        elif not infl.stored_nulls:
            why = (
                "Not computed: none of this run's scenarios is a null scenario of a stability class of the shipped "
                "evidence, whose classes are those of the published run's scenarios "
                "(`scripts/make_shipped_evidence.py`); a run of scenarios the published one does not hold has no "
                "class to calibrate (`benchmarks/mixed_class_evidence.py` measures the classes of the mixed family "
                "and calibrates on them)."
            )
        else:
            why = (
                f"On the stored data sets of {' and '.join(infl.designs)}, no factor of the grid (up to "
                f"{GRID[-1]:g}) controls size on every null scenario of any class; more data sets per null "
                "scenario narrow the intervals that decide it."
            )
        return (title, [("md", why)])
    return (
        title,
        [
            (
                "md",
                "The corrected t-test with the term n_test/n_train multiplied by a factor c >= 1, "
                "t = mean / sqrt((1/m + c n_test/n_train) s^2), applied to the differences of one or more repeats of "
                "a design pooled into one test, per stability class of the learners (the shipped evidence's "
                "classes; `simstudy.apps.proving.inflation`). Where the published test (c = 1) controls size on "
                "every data set of the class's null scenarios it is kept and judged there; otherwise c is the "
                "smallest factor of the grid that keeps every null scenario's Type I error at most alpha and in "
                "control on the data sets with an even replication number, and the row is judged on those with an "
                f"odd one, which the calibration never saw (intervals simultaneous over {infl.null_scenarios} null "
                "scenarios). Power: rejections in the true direction on the class's alternative scenarios, beside "
                "the uninflated test's on the same data sets. The inflated statistic is the corrected one "
                "rescaled: its size-adjusted power is the corrected test's (`power.csv`); the factor moves where "
                "it rejects at the nominal level, and the difference between the two power columns is what the "
                "uninflated test's excess Type I error buys. A class missing from a design found no factor in the "
                "grid. " + _shipped_agreement(infl),
            ),
            ("table", _inflation_view(infl.shown())),
            ("md", "Every number of repeats pooled, with the power intervals: `inflation.csv`."),
            *_sequential_parts(infl),
        ],
    )


def _sequential_parts(infl) -> list:
    """The sequential design (five 5x2 cvs, then one 10x10 cv while unsettled), judged as one procedure."""
    seq = infl.sequential
    if seq is None or seq.empty:
        return []
    lines = []
    for name, g in seq.groupby("class", sort=False):
        rows = {r["stage"]: r for r in g.to_dict("records")}
        both = rows.get("sequence")
        if both is None:
            lines.append(f"{name}: no factor of the grid brings the sequence to size")
            continue
        stages = [r for k, r in rows.items() if k != "sequence" and r["size"] == "controls size"]
        best = max(stages, key=lambda r: r["power %"], default=None)
        than = (
            f"; the better stage alone that controls size, {best['procedure']}, {best['power %']:.1f}% at "
            f"{best['splits per learner']:g} splits"
            if best is not None
            else "; neither stage alone controls size"
        )
        lines.append(
            f"{name}: {both['size']}, power {both['power %']:.1f}% at {both['splits per learner']:g} splits per "
            f"learner on average{than}"
        )
    return [
        (
            "md",
            "**A sequential design, judged as one procedure.** The default assessment's five 5x2 cvs pooled and, "
            "only where they do not decide, one 10x10 cv, each with its class's factor "
            "(`simstudy.apps.proving.inflation.sequential_design`). A rejection at either stage counts against "
            "size, so the second stage's factor is raised (chosen on the data sets with an even replication "
            "number, judged on the odd ones) until the whole procedure controls size; each trial pairs five "
            "5x2 cvs with one 10x10 cv of the same data set, and each stage alone is shown on the same trials. "
            "Per class: " + "; ".join(lines) + ".",
        ),
        ("table", _sequential_view(seq)),
        ("md", "With the power intervals: `sequential.csv`."),
    ]


def _sequential_view(seq):
    cols = ["class", "procedure", "judged on", "size", "deciding scenario", "Type I %", "low %", "high %",
            "power %", "splits per learner"]  # fmt: skip
    view = seq[cols].copy()
    for col in ("Type I %", "low %", "high %"):
        view[col] = view[col].map(lambda v: f"{v:.2f}")
    view["power %"] = view["power %"].map(lambda v: f"{v:.1f}")
    view["splits per learner"] = view["splits per learner"].map(lambda v: f"{v:g}")
    return view


def _inflation_view(shown):
    """The inflation table as printed: factors as given, percentages with the digits their intervals carry."""
    view = shown.copy()
    view["factor"] = view["factor"].map(lambda f: f"{f:g}")
    for col in ("Type I %", "low %", "high %"):
        view[col] = view[col].map(lambda v: f"{v:.2f}")
    for col in ("power %", "uninflated power %"):
        view[col] = view[col].map(lambda v: f"{v:.1f}")
    return view


def _shipped_agreement(infl) -> str:
    """Whether the factors ``assess`` ships are the ones computed on this page."""
    from simstudy.pipeline.inflation import load_inflation

    shipped = load_inflation()
    prov = shipped.get("provenance", {})
    ours = {(r["design"], str(r["repeats pooled"]), r["class"]): float(r["factor"]) for _, r in infl.table.iterrows()}
    theirs = {
        (d, k, c): float(row["factor"])
        for d, per in shipped.get("procedures", {}).items()
        for k, by in per.items()
        for c, row in by.items()
    }
    where = (
        f"The factors `assess` ships (`simstudy/pipeline/data/inflation.json`, from the {prov.get('profile')} "
        f"profile's rows stored {prov.get('rows_stored')}, code fingerprint `{prov.get('code_fingerprint')}`)"
    )
    if ours == theirs:
        return where + " are this table's."
    differ = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
    shown = ", ".join(f"{d} {k} pooled, {c}" for d, k, c in differ[:4])
    return (
        where + f" differ from this table's in {len(differ)} of its rows ({shown}{', ...' if len(differ) > 4 else ''})."
    )


def _calibration_section(t: _Tables, drawn: dict):
    named_rows = list(t.named.values())
    return (
        "Calibration",
        [
            (
                "md",
                "Type I error (%) on the null data sets pooled, at each level, for the procedures the papers name; "
                "every procedure's curve is in `calibration.csv`. Pooling averages over scenarios, so it can hide a "
                "liberal one: the verdicts above are per scenario.",
            ),
            (
                "figure",
                (
                    drawn.get("calibration"),
                    "Type I error against alpha, log scales, 95% bands; the dashed line is a perfectly calibrated test",
                ),
            ),
            ("table", _calibration_wide(t.cal, named_rows)),
            (
                "figure",
                (
                    drawn.get("pvalues"),
                    "Empirical distribution of the p-values under the null against the uniform's diagonal",
                ),
            ),
            ("table", t.pdist[t.pdist["procedure"].isin(named_rows)].drop(columns="ecdf")),
        ],
    )


def _power_section(t: _Tables, drawn: dict):
    return (
        "Power",
        [
            (
                "figure",
                (
                    drawn.get("power"),
                    "Rejections in the true direction against the measured gap, per learner pair "
                    "and sample size; solid rho = 0, dotted rho = 0.6",
                ),
            ),
            (
                "md",
                f"Per procedure and scenario, with 95% Monte Carlo intervals: `power.csv` ({len(t.power)} rows; the "
                "rejections in the true direction (on a null scenario: every rejection), the same at the "
                "size-adjusted threshold where the scenario has a null twin, and those in the wrong direction).",
            ),
        ],
    )


def _replicability_section(t: _Tables, drawn: dict):
    return (
        "Replicability and consistency",
        [
            ("figure", (drawn.get("replicability"), "Mean R2 of the repeats against the measured gap")),
            (
                "md",
                f"Per procedure and scenario, with 95% Monte Carlo intervals: `replicability.csv` ({len(t.repl)} rows; "
                "the mean R2 of a data set's repeats and the share of data sets whose repeats all agree).",
            ),
        ],
    )


def summary_markdown(rep) -> str:
    """The papers' statements checked, the count of size verdicts and the top of the leaderboard, in Markdown."""
    from simstudy.outputs.tables import markdown_table

    board = rep["tables"]["leaderboard"]
    top = _view_board(board[board["controlled"]].head(15))
    cols = [
        "rank",
        "procedure",
        "size-adjusted power %",
        "raw power %",
        "deciding null scenario",
        "its Type I error %",
        "its data sets",
    ]
    counts = board["size"].value_counts()
    return (
        "Statements:\n\n"
        + markdown_table(rep["tables"]["statements"])
        + "\n\nSize verdicts: "
        + ", ".join(
            f"{counts.get(v, 0)} {v}"
            for v in ("controls size", "unresolved", "liberal", "never rejects", "declined")
            if counts.get(v, 0) or v in ("controls size", "unresolved", "liberal")
        )
        + "\n\nLeaderboard (top 15 that control size on every null scenario):\n\n"
        + (markdown_table(top[cols]) if len(top) else why_no_rank(board))
    )


def why_no_rank(board: pd.DataFrame) -> str:
    """The sentence an empty leaderboard needs: why no procedure is ranked, and what would rank some ("" when one is)."""
    from simstudy.statistics.size_control import CONTROLS, LIBERAL, UNRESOLVED

    counts = board["size"].value_counts()
    if counts.get(CONTROLS, 0):
        return ""
    unresolved, liberal = int(counts.get(UNRESOLVED, 0)), int(counts.get(LIBERAL, 0))
    text = (
        "**No procedure is ranked**: none controls size on every null scenario of this run "
        f"({unresolved} unresolved, {liberal} liberal, of {len(board)})."
    )
    if unresolved:
        text += (
            " An unresolved verdict means the null scenarios' data sets are too few for the interval of its Type I "
            "error to lie below the level or above it: a larger profile (`--profile paper`, whose null scenarios "
            "grow until their verdicts are decided) or more data sets resolve them."
        )
    return text


def study_page(run, out, results) -> dict:
    """The proving ground's page for the reproduction page (:attr:`Publication.page`): the whole report in ``out``."""
    rep = build_proving_report(run, results=results, out=out)
    return {"markdown": rep["markdown"], "html": rep["html"], "summary": summary_markdown(rep)}
