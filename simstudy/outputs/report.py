"""One static page (HTML and a Markdown twin) with every stored study beside the published numbers.

``build_report(profile, results, out)`` reads each study's stored rows at the
profile, recomputes its summaries and its comparison with the published numbers,
draws the figures the study declares (in-process, on Matplotlib's Agg canvas)
and writes ``report.html`` and ``report.md`` into ``out``, figures in
``out/figures``.  What is shown comes from the studies' declarations alone:
their title, publication (published numbers, figures, notes) and the rows they
contribute to cross-study tables.  Studies without stored results are listed as
not run.  Nothing is simulated.

A figure is redrawn only when the stored results it shows have changed (its
sidecar JSON records the key, see :mod:`simstudy.outputs.plots.output`), and every
file is written atomically.
"""

from __future__ import annotations

import html
from datetime import datetime, timezone
from pathlib import Path

from simstudy._files import DEFAULT_ROOT, check_writable, folder_below, folder_option
from simstudy.engine.fingerprint import source_commit
from simstudy.errors import InputError, StoredDataError, option
from simstudy.outputs.published import cross_study_comparison, cross_study_tables, reduced_scale, write_atomic
from simstudy.outputs.tables import (
    INSIDE_RULE,
    NA,
    NO_VERDICT_RULE,
    REDUCED_RULE,
    compare,
    comparison_view,
    html_table,
    markdown_table,
    verdict_line,
)

__all__ = ["build_report", "resolve_studies", "largest_stored_profile", "provenance_text", "LARGEST"]

#: The pseudo-profile of a reproduction page: each study at the largest profile it has stored.
LARGEST = "largest"

#: Preference among stored profiles for :data:`LARGEST` (a profile not listed comes after these).
_SCALE_ORDER = ("paper", "quick", "smoke")

CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:13px;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 6px;
vertical-align:top}th{background:#f0f0f0}.l{text-align:left}.r{text-align:right;white-space:nowrap;
font-variant-numeric:tabular-nums}.no{color:#b00;font-weight:bold}
.meta{color:#555;font-size:13px}figure{margin:0.5em 0 1.5em}img{max-width:720px;width:100%;border:1px solid #ddd}
figcaption{font-size:13px;color:#333;max-width:720px}.rules{font-size:13px;color:#333}
.verdict{background:#f6f6e8;padding:0.5em 1em;border-left:4px solid #cc9}"""

#: How to read the page, stated once at its top.
RULES = (
    "Intervals are our 95% Monte Carlo intervals, clipped to the values the quantity can take (shares "
    "and probabilities in [0, 1], differences of shares in [-1, 1], percentages in [0, 100], normalised "
    f"replicability in [-100, 100], counts in [0, n]). {INSIDE_RULE} {NO_VERDICT_RULE} {REDUCED_RULE} "
    "Numbers have at most 4 significant digits (published values as the paper prints them); "
    f"{NA} marks a value that was not computed. Every dotted line in a figure is named in its legend."
)


def resolve_studies(studies) -> list:
    """Studies given by registered name, by the path of a ``.py`` file defining ``STUDY``, or as Study objects.

    Parameters
    ----------
    studies : iterable of str, path-like or simstudy.engine.Study
        Each is looked up with :func:`simstudy.engine.get_study`.

    Returns
    -------
    list of simstudy.engine.Study
        In the order given, without repeats.

    Raises
    ------
    ValueError
        Naming an entry that is neither a registered study nor a study file.
    """
    from simstudy.engine import get_study

    out = []
    for item in studies:
        st = get_study(item)
        if all(s.name != st.name for s in out):
            out.append(st)
    return out


def largest_stored_profile(study, results) -> str | None:
    """The largest profile of ``study`` stored under ``results``, a finished run before an unfinished one.

    Among finished runs (manifest status ``complete``): paper, else quick, else
    smoke, else another; only when no run is finished, the largest unfinished one.
    Only folders named after one of the study's profiles count: a run that
    ``--fresh`` or ``reproduce`` moved aside (``PROFILE.replaced-STAMP``) is not
    a profile's run.

    Parameters
    ----------
    study : simstudy.engine.Study
    results : path-like
        Root of the stored results (``RESULTS/STUDY/PROFILE``).

    Returns
    -------
    str or None
        The profile's name, or None when nothing is stored.
    """
    import json

    base = Path(results) / study.name
    # a folder named after one of the study's profiles; a run moved aside (PROFILE.replaced-STAMP) is not one
    stored = (
        sorted(p.parent.name for p in base.glob("*/manifest.json") if p.parent.name in study.profiles)
        if base.is_dir()
        else []
    )

    def finished(name):
        try:
            return json.loads((base / name / "manifest.json").read_text()).get("status") == "complete"
        except (OSError, ValueError):
            return False

    for group in ([n for n in stored if finished(n)], stored):
        for name in _SCALE_ORDER:
            if name in group:
                return name
        if group:
            return group[0]
    return None


def provenance_text() -> str:
    """The commit of the source tree (when it is a git checkout) and the machine, for a page's header."""
    import os
    import platform

    commit = source_commit() or "unknown (not run from a git checkout)"
    try:
        memory = f", {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        memory = ""
    return (
        f"commit {commit}; machine: {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} cores{memory}, Python {platform.python_version()}"
    )


def _rows_line(sections) -> str:
    """The page's statement of which code computed its rows: one commit for every section, or which did which."""
    if not sections:
        return "No rows stored."
    by_commit: dict[str, list[str]] = {}
    for s in sections:
        by_commit.setdefault(" and ".join(s["made"]["commits"]), []).append(s["name"])
    other = [s for s in sections if s["made"]["changes"]]
    replayed = [s["made"]["replayed"] for s in other if s["made"].get("replayed") is not None]
    back = sum(r.same == r.replications > 0 for r in replayed)
    again = (
        f" With replications computed again by this page's code, {back} of the {len(replayed)} sections tried "
        "give their stored rows value for value (each section says how many replications)."
        if replayed
        else ""
    )
    tail = (
        f" The code differs from this page's for {len(other)} of {len(sections)} sections; each says what changed."
        + again
        if other
        else " The code is this page's."
    )
    if len(by_commit) == 1:
        return f"**Every section's rows were computed at commit {next(iter(by_commit))}.**{tail}"
    parts = "; ".join(f"commit {c}: {', '.join(names)}" for c, names in by_commit.items())
    return f"**The rows were computed at {len(by_commit)} commits** ({parts}).{tail}"


def _figures(st, run, tables, profile: str, figdir: Path, out: Path) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Draw (or reuse) the study's declared figures; returns ``(relative path, title, description)`` and failures."""
    from simstudy.outputs.plots import figure_description, render_study_figure

    drawn, failed = [], []
    for fig in st.publication.figures:
        stem = f"{st.name}-{fig.name}"
        try:
            png = render_study_figure(st, fig, tables, run, figdir, stem, profile=profile)
        except OSError:
            raise
        except Exception as exc:  # a figure that cannot be drawn is reported, never replaced by an old file
            for ext in ("json", "png", "pdf"):
                (figdir / f"{stem}.{ext}").unlink(missing_ok=True)
            failed.append(f"{fig.name} could not be drawn ({type(exc).__name__}: {exc})")
            continue
        if png.is_file() and png.stat().st_size > 0:
            drawn.append(
                (
                    png.relative_to(out).as_posix(),
                    fig.title or fig.name,
                    figure_description(figdir, stem) or fig.title or fig.name,
                )
            )
        else:
            failed.append(f"{fig.name} could not be drawn (empty file)")
    return drawn, failed


def _stored_line(run, prog) -> str:
    """How many replications are stored, and for an adaptive run whether it has finished adding them."""
    done, planned = int(prog["done"].sum()), int(prog["planned"].sum())
    manifest = run.manifest
    if not (manifest.get("config") or {}).get("adaptive"):
        return f"{done} of {planned} replications stored ({manifest.get('n_replications')} per condition)"
    lo, hi = int(prog["planned"].min()), int(prog["planned"].max())
    per = f"{lo} per condition" if lo == hi else f"{lo} to {hi} per condition"
    if (manifest.get("adaptive") or {}).get("finished"):
        return f"{done} of {planned} replications stored (adaptive run, finished: {per})"
    from simstudy.engine.store import lock_holder

    if lock_holder(run.path)[0]:
        going = f"the adaptive run is still adding replications (its current stage plans {per})"
    else:
        going = (
            f"the adaptive run stopped before it finished (its current stage plans {per}; run the same "
            "command to resume)"
        )
    return f"{done} of {planned} replications stored so far: {going}; the tables show only those stored now"


def _unfinished_larger(st, shown: str, results: Path) -> str | None:
    """A line about a larger profile's run that is stored but unfinished, when a smaller finished one is shown.

    The reproduction page shows each study's largest *finished* run; a run at a
    larger profile that has not finished (still running, or stopped) is named
    with how far it has got, so the shortfall stays on the page.
    """
    from simstudy.engine import load_run
    from simstudy.engine.store import lock_holder

    if shown not in _SCALE_ORDER:
        return None
    for name in _SCALE_ORDER[: _SCALE_ORDER.index(shown)]:
        path = results / st.name / name
        if not (path / "manifest.json").is_file():
            continue
        try:
            larger = load_run(st, profile=name, out=path)
            rows = larger.progress_rows()
            held, record = lock_holder(path)
        except (ValueError, StoredDataError, KeyError, OSError) as exc:
            return f"A {name}-profile run is stored in {path} but cannot be read ({exc}); this section shows the {shown} run."
        done = sum(r["done"] for r in rows)
        planned = sum(r["planned"] for r in rows)
        full = [r["condition"] for r in rows if r["planned"] and r["done"] == r["planned"]]
        state = "was still running when this page was written" if held else "stopped before it finished"
        which = f" ({', '.join(full)})" if 0 < len(full) <= 12 else ""
        words = str((record or {}).get("command") or "").split()
        command = " ".join(["simstudy", *words[1:]]) if len(words) > 1 else ""
        if held:
            resume = f"computed by `{command}`" if command else "computed by another process"
        else:
            resume = f"`{command}` resumes it" if command else "the command that started it resumes it"
        adaptive = bool((larger.manifest.get("config") or {}).get("adaptive"))
        stage = " in its current adaptive stage, which may grow" if adaptive else ""
        return (
            f"A {name}-profile run {state}: {done:,} of {planned:,} replications stored{stage}, {len(full)} of "
            f"{len(rows)} conditions complete{which}; this section shows the finished {shown} run until it "
            f"finishes ({resume})."
        )
    return None


def _computing_runs(manifest: dict) -> list:
    """The runs of a manifest that computed replications: a resume of a finished run, or a page written again,
    computed nothing and made no row, so it counts neither among the runs nor for their workers."""
    return [r for r in manifest.get("runs", []) if r.get("replications_computed", 1) or r.get("chunks_computed")]


def _made_by(st, run) -> dict:
    """Which code computed a run's rows: the commits of its runs, its code fingerprint, and how it differs from now."""
    from simstudy.engine.fingerprint import provenance, provenance_changes

    runs = _computing_runs(run.manifest)
    commits = list(dict.fromkeys(r.get("commit") or "unknown" for r in runs)) or ["unknown"]
    recorded = run.manifest.get("provenance") or {}
    return {
        "commits": commits,
        "code": str(recorded.get("code", ""))[:12] or "not recorded",
        "changes": provenance_changes(recorded, provenance(st)),
    }


def _made_line(made: dict) -> str:
    commits = " and ".join(made["commits"])
    return f"rows computed at commit {commits} (code fingerprint {made['code']})"


def _study_section(st, profile: str, results: Path, out: Path, replay: tuple = (0, False)) -> dict:
    from simstudy.engine import load_run

    run = load_run(st, profile=profile, out=results / st.name / profile)
    made = _made_by(st, run)
    per_condition, progress = replay
    if made["changes"] and per_condition:  # would this page's code give the same rows?
        from simstudy.engine.replaycheck import replay_check

        made["replayed"] = replay_check(st, run, per_condition=per_condition, progress=progress)
    tables = st.summarize(run)
    reduced = reduced_scale(st, run)
    cmp = compare(tables, st.publication.values, reduced=bool(reduced), replications=run.manifest.get("n_replications"))
    alternative = st.publication.alternative_to
    if alternative and len(cmp):  # the same published values under another set-up: shown, counted in their study
        cmp["counted_in"] = f"{alternative}'s section"
    runs = _computing_runs(run.manifest)
    seconds = sum(r.get("seconds", 0) for r in runs)
    prog = run.progress()
    meta = (
        f"profile {profile}; {_stored_line(run, prog)}; compute time {seconds:.0f} s over {len(runs)} "
        f"run(s) with {runs[-1].get('jobs') if runs else '?'} worker(s); root seed {run.manifest['root_seed']}; "
        + _made_line(made)
    )
    if not len(cmp):
        verdict = "Nothing published to compare cell by cell; our tables follow."
    elif alternative:
        verdict = (
            f"The published values of {alternative} under another set-up, counted in its section, not here. "
            + verdict_line(cmp.assign(counted_in=""), reduced=reduced)
        )
    else:
        verdict = verdict_line(cmp, reduced=reduced)
    figs, failed = _figures(st, run, tables, profile, out / "figures", out)
    main_table, collapsed = _listed_comparison(st, cmp, reduced) if len(cmp) else (None, "")
    summary = next(iter(tables.values())) if not len(cmp) and tables else None
    shown = [
        (heading, tables[name]) for name, heading in st.publication.page_tables if name in tables and len(tables[name])
    ]
    page = _own_page(st, run, out, results) if st.publication.page is not None else None
    return {
        "name": st.name,
        "title": st.title,
        "meta": meta,
        "verdict": verdict,
        "note": st.publication.notes or "",
        "cmp": cmp if len(cmp) else None,
        "csv": comparison_view(cmp, reduced=bool(reduced)) if len(cmp) else summary,
        "tables": tables,
        "comparison": main_table,
        "collapsed": collapsed,
        "page_tables": shown,
        "summary": summary,
        "figures": figs,
        "failed": failed,
        "page": page,
        "made": made,
        "compute": {
            "study": st.name,
            "profile": profile,
            "replications": int(prog["done"].sum()),
            "compute seconds": round(seconds),
            "workers": runs[-1].get("jobs") if runs else None,
            "commit": ", ".join(made["commits"]),
        },
    }


def _listed_comparison(st, cmp, reduced) -> tuple:
    """The comparison rows the section lists, and the sentence on the dot cells that agree and are not listed."""
    full = comparison_view(cmp, reduced=bool(reduced))
    quiet = (cmp["either"].astype(str) != "") & (cmp["verdict"] == "inside")
    main_table = full[~quiet.to_numpy()].reset_index(drop=True)
    if not quiet.any():
        return main_table, ""
    n = int(quiet.sum())
    return main_table, (
        f"{n} cell{'s' if n != 1 else ''} the paper prints without a number (e.g. a dot for 0 or 10) "
        f"agree{'s' if n == 1 else ''} with ours and {'is' if n == 1 else 'are'} not listed; "
        f"csv/{st.name}.csv lists every row."
    )


def _own_page(st, run, out: Path, results: Path) -> dict:
    """The study's own page, written in a folder of its own beside this one: its summary and where it is."""
    folder = folder_below(out, st.publication.page_folder or st.name, option=option("out"))
    written = st.publication.page(run, folder, results)
    return {
        "summary": written.get("summary", ""),
        "markdown": Path(written["markdown"]).relative_to(out).as_posix(),
        "html": Path(written["html"]).relative_to(out).as_posix(),
    }


def _write_csvs(out: Path, sections: list, extra: dict) -> None:
    """Every comparison, every summary table and the tally as CSV beside the page (csv/STUDY.csv, csv/STUDY/TABLE.csv)."""
    folder = out / "csv"
    folder.mkdir(exist_ok=True)
    for s in sections:
        if s["csv"] is not None:
            write_atomic(folder / f"{s['name']}.csv", s["csv"].to_csv(index=False))
        mine = folder_below(folder, s["name"], option=option("out"))
        for name, df in s["tables"].items():
            write_atomic(mine / f"{name}.csv", df.to_csv(index=False))
    for name, df in extra.items():
        write_atomic(folder / f"{name}.csv", df.to_csv(index=False))


#: What the tally at the top of the page counts, said once.
TALLY_RULE = (
    "Each distinct value a paper prints is counted once: under the study's primary convention (alternatives are "
    "shown beneath and not counted), in the section that compares it at its published scale (a value a summary "
    "table repeats, or an alternative set-up compares again, is counted where it is named). A miss is counted "
    "with its cause: found (measured), not found (the note says what was tried), or not investigated. A value "
    "compared only at a smaller scale counts as not computed."
)


def _tally_table(comparisons: list):
    from simstudy.outputs.agreement import tally

    table = tally([c for c in comparisons if c is not None])
    return table.rename(columns={"paper": "Paper", "distinct": "Distinct published values"})


def _local(text: str, results: Path) -> str:
    """``text`` without machine-local paths: the results root and the checkout are named, not spelled out."""
    import re

    root = Path(__file__).resolve().parents[2]
    text = text.replace(str(results.resolve()), "the results folder").replace(str(results), "the results folder")
    text = text.replace(f" ({root}/", " (").replace(f"{root}/", "")
    text = re.sub(r" \((/[^)\s]+)\)", "", text)
    # any other absolute path (a study file read from another checkout): from its package folder on
    return re.sub(r"(?<![\w.:/])/(?:[^\s,;()<>\"'/]+/)+[^\s,;()<>\"'/]+", _tail, text)


def _tail(match) -> str:
    """An absolute path shown from its ``studies`` or ``simstudy`` folder, else by its file name."""
    parts = match.group(0).split("/")
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] in ("studies", "simstudy"):
            return "/".join(parts[i:])
    return parts[-1]


def _carried(st, previous: Path, out: Path) -> dict | None:
    """A section carried over from the page in ``previous`` (:mod:`simstudy.outputs.carried`), shaped as ours."""
    from simstudy.outputs.carried import carried_section

    got = carried_section(st, previous, out)
    if got is None:
        return None
    cmp = got["cmp"]
    reduced = None if got["profile"] == "paper" else f"carried over at the {got['profile']} profile"
    summary = None
    table = previous / "csv" / f"{st.name}.csv"
    if not len(cmp) and table.is_file():  # a study with nothing published: its summary table as printed there
        import pandas as pd

        summary = pd.read_csv(table, dtype=str, keep_default_na=False)
    verdict = (
        verdict_line(cmp, reduced=reduced)
        if len(cmp)
        else "Nothing published to compare cell by cell; our tables follow."
    )
    return {
        "name": st.name,
        "title": st.title,
        "meta": got["meta"],
        "verdict": verdict,
        "note": st.publication.notes or "",
        "carried": got["carried"],
        "cmp": cmp if len(cmp) else None,
        "csv": comparison_view(cmp, reduced=bool(reduced)) if len(cmp) else summary,
        "tables": {},
        "comparison": comparison_view(cmp, reduced=bool(reduced)) if len(cmp) else None,
        "collapsed": "",
        "page_tables": [],
        "summary": summary,
        "figures": got["figures"],
        "failed": [],
        "page": None,
        "made": got["made"],
        "compute": got["compute"],
        "profile": got["profile"],
    }


def _finished(run_dir: Path) -> bool:
    """Whether the run stored in ``run_dir`` is complete (its manifest says so)."""
    import json

    try:
        return json.loads((run_dir / "manifest.json").read_text()).get("status") == "complete"
    except (OSError, ValueError):
        return False


def _rank(name: str) -> int:
    """How large a profile is, as a number that grows with it: paper above quick above smoke above any other."""
    return -(_SCALE_ORDER.index(name) if name in _SCALE_ORDER else len(_SCALE_ORDER))


def _smaller_tables(st, prof: str, results: Path) -> list:
    """The study's page tables from its run at ``prof`` stored here, each heading saying which run it is."""
    from simstudy.engine import load_run

    if not st.publication.page_tables:
        return []
    run = load_run(st, profile=prof, out=results / st.name / prof)
    tables = st.summarize(run)
    k = run.manifest.get("n_replications")
    return [
        (f"{heading} (ours from the {prof}-profile run stored here, {k} replications per condition)", tables[name])
        for name, heading in st.publication.page_tables
        if name in tables and len(tables[name])
    ]


def build_report(
    profile: str = "quick",
    results=DEFAULT_ROOT,
    out=None,
    *,
    studies=None,
    carry_from=None,
    replay: int = 0,
    progress: bool = False,
) -> tuple[Path, Path]:
    """Write ``report.html`` and ``report.md`` (and the figures they show); returns their paths.

    Parameters
    ----------
    profile : str
        The stored profile to report, or :data:`LARGEST` (``"largest"``): each
        study at the largest profile it has stored (the reproduction page).
    results : path-like
        Root of the stored results (``RESULTS/STUDY/PROFILE``).
    out : path-like, optional
        Output directory (default ``RESULTS/report/PROFILE``).  Besides the
        page, ``csv/STUDY.csv`` holds each study's comparison table.
    studies : iterable of str, path-like or simstudy.engine.Study, optional
        The studies to report: registered names, paths of study files (a file
        outside the repository that defines ``STUDY``) or Study objects.
        Default: every registered study; those without stored results at
        ``profile`` are listed as not run.
    carry_from : path-like, optional
        The folder of an earlier page: a study with nothing stored under
        ``results`` keeps its section from that page, judged again by this
        page's rules and saying so (:mod:`simstudy.outputs.carried`).
    replay : int
        For a section whose rows were made by other code than this page's,
        compute the first ``replay`` stored replications of each condition
        again and say whether they give the stored rows
        (:func:`simstudy.engine.replaycheck.replay_check`); 0: not checked.
    progress : bool
        A progress bar while replications are computed again.

    Returns
    -------
    (pathlib.Path, pathlib.Path)
        The HTML and Markdown files.

    Raises
    ------
    ValueError
        When ``out`` cannot be written (one line naming the directory) or a
        study cannot be found.
    OSError
        When a write fails later (e.g. a full disk); ``simstudy report`` turns
        it into one line naming the directory.
    """
    from simstudy.engine import list_studies
    from simstudy.outputs.analytic import analytic_sections

    if isinstance(replay, bool) or not isinstance(replay, int) or replay < 0:
        raise InputError(f"{option('replay')}: a number of replications per condition, 0 or more, got {replay!r}")
    results = folder_option(results, option("results"))
    out = folder_option(out, option("out")) if out is not None else results / "report" / profile
    chosen = resolve_studies(studies if studies is not None else list_studies())
    check_writable([(option("out"), out)], what="the report")
    sections, not_run, chosen_profiles, unreadable = _sections(
        chosen, profile, results, out, carry_from, (replay, progress)
    )
    cross = _cross_tables(chosen, sections, profile, chosen_profiles, results, carry_from)
    analytic = analytic_sections(out / "figures", out) if sections else []
    tally = _tally_table([s["cmp"] for s in sections] + [c for _, _, c, _ in cross] + [a["cmp"] for a in analytic])
    _write_csvs(
        out,
        sections,
        {
            "tally": tally,
            **{t.name: comparison_view(c, reduced=bool(r)) for t, _, c, r in cross},
            **{a["name"]: comparison_view(a["cmp"]) if a["cmp"] is not None else a["claims"] for a in analytic},
        },
    )
    md, body = _head(profile, sections, tally)
    for block in (
        *(_study_block(s) for s in sections),
        *(_analytic_block(a) for a in analytic),
        *(_cross_block(*c) for c in cross),
        _tail_block(profile, sections, unreadable, not_run),
    ):
        md += block[0]
        body += block[1]
    md_path, html_path = out / "report.md", out / "report.html"
    md = [_local(line, results) for line in md]
    body = [_local(line, results) for line in body]
    write_atomic(md_path, "\n".join(md) + "\n")
    write_atomic(
        html_path,
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>simstudy report'
        f"</title><style>{CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n",
    )
    return html_path, md_path


def _sections(chosen, profile: str, results: Path, out: Path, carry_from, replay: tuple = (0, False)):
    """Each chosen study's section (from its stored rows, or carried from an earlier page), the studies not
    run, the profile shown of each, and the runs stored but not readable yet."""
    sections, not_run, chosen_profiles, unreadable = [], [], {}, []
    for st in chosen:
        prof = largest_stored_profile(st, results) if profile == LARGEST else profile
        carried = None
        if carry_from is not None and profile == LARGEST:
            carried = _carried(st, Path(carry_from), out)
            if carried is not None and prof is not None and _rank(carried["profile"]) <= _rank(prof):
                if _rank(carried["profile"]) < _rank(prof) or _finished(results / st.name / prof):
                    carried = None  # what is stored here is as large and finished, or larger: it is shown
        if carried is not None:
            if prof is not None and _finished(results / st.name / prof):  # tables that need rows: from it, said so
                carried["page_tables"] = _smaller_tables(st, prof, results)
            carried["pending"] = None
            sections.append(carried)
        elif prof and (results / st.name / prof / "manifest.json").exists():
            try:
                section = _study_section(st, prof, results, out, replay)
            except KeyError as exc:  # a run just started: a manifest, no rows yet
                unreadable.append(f"{st.name} ({prof}): {exc.args[0] if exc.args else exc}")
                continue
            section["pending"] = _unfinished_larger(st, prof, results) if profile == LARGEST else None
            chosen_profiles[st.name] = prof
            sections.append(section)
        elif carry_from is not None and (section := _carried(st, Path(carry_from), out)) is not None:
            section["pending"] = None
            sections.append(section)
        else:
            not_run.append(st.name)
    return sections, not_run, chosen_profiles, unreadable


def _cross_tables(chosen, sections, profile: str, chosen_profiles: dict, results: Path, carry_from) -> list:
    """``(table, our frame, comparison, reduced)`` of every published table that spans several studies."""
    carried_rows = {}
    if carry_from is not None:
        from simstudy.outputs.carried import carried_cross_row
        from simstudy.outputs.published import cross_study_rows

        for table, members in cross_study_rows(chosen).values():
            for st, _ in members:
                s = next((x for x in sections if x["name"] == st.name and x.get("carried")), None)
                if s is not None:
                    row = carried_cross_row(Path(carry_from), table.heading, st.name, [c for c, _ in table.columns])
                    if row is not None:
                        carried_rows[st.name] = (row, s["profile"])
    shown = chosen_profiles if profile == LARGEST else profile
    cross = []
    for table, _, _ in cross_study_tables(chosen, profile=shown, results=results):
        frame, cmp, reduced = cross_study_comparison(
            table, chosen, profile=shown, results=results, carried=carried_rows
        )
        cross.append((table, frame, cmp, reduced))
    return cross


def _head(profile: str, sections, tally) -> tuple[list, list]:
    """The page's title, origin, how to read it, the tally and the list of sections (Markdown, HTML)."""
    from importlib import metadata

    versions = {p: metadata.version(p) for p in ("simstudy", "numpy", "scipy", "scikit-learn", "pandas")}
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    scale = "the largest stored profile of each study" if profile == LARGEST else f"the {profile} profile"
    origin = (
        f"Generated {stamp} from the stored results of each study; page written by {provenance_text()}; versions: "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
        + "."
    )
    rows_line = _rows_line(sections)
    md = [f"# simstudy: reproductions at {scale}", "", origin, "", rows_line, ""]
    md += [f"How to read this page: {RULES}", ""]
    if len(tally):
        md += ["## Tally of distinct published values", "", TALLY_RULE, "", markdown_table(tally), ""]
    body = [
        f"<h1>simstudy: reproductions at {html.escape(scale)}</h1>",
        f'<p class="meta">{html.escape(origin.replace("`", ""))}</p>',
        f'<p class="meta"><b>{html.escape(rows_line.replace("**", ""))}</b></p>',
        f'<p class="rules"><b>How to read this page.</b> {html.escape(RULES)}</p>',
    ]
    if len(tally):
        body += [
            "<h2>Tally of distinct published values</h2>",
            f'<p class="rules">{html.escape(TALLY_RULE)}</p>',
            html_table(tally),
        ]
    if not sections:
        md.append("No study has stored results at this profile.")
        body.append("<p>No study has stored results at this profile.</p>")
    body.append(
        "<ul>"
        + "".join(f'<li><a href="#{html.escape(s["name"])}">{html.escape(s["title"])}</a></li>' for s in sections)
        + "</ul>"
    )
    return md, body


def _study_block(s: dict) -> tuple[list, list]:
    """One study's section of the page (Markdown, HTML)."""
    md = [f"## {s['title']}", "", f"*{s['meta']}*", "", f"**{s['verdict']}** {s['note']}".rstrip(), ""]
    body = [
        f'<h2 id="{html.escape(s["name"])}">{html.escape(s["title"])}</h2>',
        f'<p class="meta">{html.escape(s["meta"])}</p>',
        f'<p class="verdict"><b>{html.escape(s["verdict"])}</b> {html.escape(s["note"])}</p>',
    ]
    if s.get("carried"):  # not computed from rows stored here: the section says where it comes from
        md += [f"*{s['carried']}*", ""]
        body.append(f'<p class="meta"><b>{html.escape(s["carried"])}</b></p>')
    if s.get("pending"):  # a larger run under way or stopped: the page says so beside the smaller one shown
        md += [f"*{s['pending']}*", ""]
        body.append(f'<p class="meta"><b>{html.escape(s["pending"].replace("`", ""))}</b></p>')
    if s["made"]["changes"]:  # never silently: the rows of this section were made by other code
        replayed = s["made"].get("replayed")
        line = (
            f"Made by other code than this page's: {_made_line(s['made'])}; changed since: "
            + ", ".join(s["made"]["changes"])
            + (f"; {replayed.text}" if replayed is not None else "")
            + "."
        )
        md += [f"*{line}*", ""]
        body.append(f'<p class="meta"><b>{html.escape(line)}</b></p>')
    table = s["comparison"] if s["comparison"] is not None else s["summary"]
    if s["page"] is not None:
        md += [s["page"]["summary"], "", f"The whole page: [{s['page']['markdown']}]({s['page']['markdown']})", ""]
        body.append(
            f'<pre>{html.escape(s["page"]["summary"])}</pre><p>The whole page: <a href="'
            f'{html.escape(s["page"]["html"])}">{html.escape(s["page"]["html"])}</a></p>'
        )
    elif table is not None:
        md += [markdown_table(table), ""]
        body.append(html_table(table))
    if s.get("collapsed"):
        md += [f"*{s['collapsed']}*", ""]
        body.append(f'<p class="meta">{html.escape(s["collapsed"])}</p>')
    for heading, frame in s.get("page_tables", ()):
        md += [f"**{heading}**", "", markdown_table(frame), ""]
        body += [f"<p><b>{html.escape(heading)}</b></p>", html_table(frame)]
    for fig, title, description in s["figures"]:
        alt = description.replace("[", "(").replace("]", ")").replace("\n", " ")
        md += [f"![{alt}]({fig})", "", f"*{title}.* {description}", ""]
        body.append(
            f'<figure><img src="{html.escape(fig)}" alt="{html.escape(description)}">'
            f"<figcaption><b>{html.escape(title)}.</b> {html.escape(description)}</figcaption></figure>"
        )
    for text in s["failed"]:
        md += [f"*Figure {text}.*", ""]
        body.append(f'<p class="meta">Figure {html.escape(text)}.</p>')
    return md, body


def _analytic_block(a: dict) -> tuple[list, list]:
    """One of the papers' analytic figures, with the worked values of their text (Markdown, HTML)."""
    fig, description = a["figure"]
    alt = description.replace("[", "(").replace("]", ")").replace("\n", " ")
    md = [f"## {a['title']}", "", a["intro"], ""]
    body = [f"<h2>{html.escape(a['title'])}</h2>", f"<p>{html.escape(a['intro'])}</p>"]
    if a["cmp"] is not None:
        line = verdict_line(a["cmp"])
        view = comparison_view(a["cmp"])
        md += [f"**{line}**", "", markdown_table(view, merge_intervals=False), ""]
        body += [f'<p class="verdict"><b>{html.escape(line)}</b></p>', html_table(view, merge_intervals=False)]
    if a["claims"] is not None:
        md += [markdown_table(a["claims"]), ""]
        body.append(html_table(a["claims"]))
    md += [f"![{alt}]({fig})", "", f"*{a['title']}.* {description}", ""]
    body.append(
        f'<figure><img src="{html.escape(fig)}" alt="{html.escape(description)}">'
        f"<figcaption><b>{html.escape(a['title'])}.</b> {html.escape(description)}</figcaption></figure>"
    )
    return md, body


def _cross_block(table, frame, cmp, reduced) -> tuple[list, list]:
    """A published table that spans several studies, compared (Markdown, HTML)."""
    line = verdict_line(cmp, reduced="; ".join(reduced) or None) if len(cmp) else ""
    view = comparison_view(cmp, reduced=bool(reduced))
    md = [f"## {table.heading}", "", f"**{line}**", "", markdown_table(view, merge_intervals=False), ""]
    md += [f"Our {table.short or table.title}:", "", markdown_table(frame), ""]
    body = [
        f"<h2>{html.escape(table.heading)}</h2>",
        f'<p class="verdict"><b>{html.escape(line)}</b></p>',
        html_table(view, merge_intervals=False),
        f"<p>Our {html.escape(table.short or table.title)}:</p>",
        html_table(frame),
    ]
    return md, body


def _tail_block(profile: str, sections, unreadable, not_run) -> tuple[list, list]:
    """The compute each study took, the runs stored but not summarised and the studies not run."""
    md, body = [], []
    if sections:
        import pandas as pd

        compute = pd.DataFrame([s["compute"] for s in sections if s["compute"] is not None])
        total = int(compute["compute seconds"].sum())
        heading = f"Compute ({total} s in all" + (f", {total / 3600:.1f} h)" if total >= 3600 else ")")
        md += [f"## {heading}", "", markdown_table(compute), ""]
        body += [f"<h2>{html.escape(heading)}</h2>", html_table(compute)]
    if unreadable:
        md += ["## Stored but not summarised", ""] + [f"* {u}" for u in unreadable] + [""]
        body += [
            "<h2>Stored but not summarised</h2>",
            "<ul>" + "".join(f"<li>{html.escape(u)}</li>" for u in unreadable) + "</ul>",
        ]
    if not_run:
        heading = "Not run" if profile == LARGEST else "Not run at this profile"
        md += [f"## {heading}", "", ", ".join(not_run), ""]
        body += [f"<h2>{heading}</h2>", "<p>" + html.escape(", ".join(not_run)) + "</p>"]
    return md, body
