"""Reproductions: summary tables, comparison reports and cross-study tables from stored results.

Everything here reads the rows stored by :mod:`simstudy.engine`; nothing is
simulated, so a report can be regenerated at any time.  Every file written
here is written atomically (:func:`write_atomic`).

A *cross-study table* gathers one row from each of several studies (Berrar's
Table 1 takes, from each of his four studies, the group whose empirical F is
closest to 0.95).  The table is declared once (:class:`CrossStudyTable`) and
each study declares its own row (:class:`CrossStudyRow`) under
``publication.cross_study``; :func:`cross_study_table` assembles the rows of
whichever studies are stored.
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._files import DEFAULT_ROOT, write_atomic
from simstudy._lazy import lazy_module
from simstudy.errors import InputError
from simstudy.outputs.tables import Published, compare, comparison_markdown, markdown_table

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "summary_tables",
    "comparison_report",
    "reduced_scale",
    "write_atomic",
    "CrossStudyTable",
    "CrossStudyRow",
    "cross_study_rows",
    "cross_study_tables",
    "cross_study_table",
    "berrar_table1",
    "cross_study_comparison",
]


BERRAR_INTERVALS = (
    "Our interval is the 95% Monte Carlo interval of our estimate (Clopper-Pearson for counts and F, "
    "normal for mean statistics, the model evaluated over the mean statistic's interval for p and P "
    "(for P_w over the intervals of the mean Z_w and of the bootstrapped s*), "
    "a bootstrap over replications for the mean absolute deviation)."
)


def _study_and_run(study, profile: str, out):
    from simstudy.engine import get_study, load_run

    st = get_study(study)
    return st, load_run(st, profile=profile, out=out)


def reduced_scale(study, run) -> str | None:
    """Why a stored run is smaller than the study's published scale; None when it is not.

    A run is at the published scale when it stores at least as many
    replications, over at least as many conditions, as the study's ``paper``
    profile plans (Bouckaert's Table 2 at the quick profile is).  Only then are
    published values counted inside or outside our intervals
    (:data:`simstudy.outputs.tables.REDUCED_RULE`); a smaller run, an unfinished one or
    a study without a paper profile is flagged instead.

    Parameters
    ----------
    study : simstudy.engine.Study
    run : simstudy.engine.RunData

    Returns
    -------
    str or None
        E.g. ``"16 replications stored, 27300 at the paper profile"``.
    """
    from simstudy.engine.study import n_replications_of

    prog = run.progress()
    done = int(prog["done"].sum()) if len(prog) else 0
    conds = int((prog["done"] > 0).sum()) if len(prog) else 0
    paper = study.profiles.get("paper")
    if paper is None:
        return f"{done} replications stored; the study declares no paper profile"
    planned = study.conditions_for(paper)
    total = sum(n_replications_of(c, paper) for c in planned)
    if done < total or conds < len(planned):
        return (
            f"{done} replications stored in {conds} condition{'s' if conds != 1 else ''}, {total} in "
            f"{len(planned)} at the paper profile"
        )
    return None


def summary_tables(study, *, profile: str = "quick", out=None) -> dict[str, pd.DataFrame]:
    """The study's summary tables, recomputed from its stored rows.

    Parameters
    ----------
    study : str or simstudy.engine.Study
    profile : str
    out : path-like, optional
        The run directory (default ``results/STUDY/PROFILE``).
    """
    st, run = _study_and_run(study, profile, out)
    return st.summarize(run)


def comparison_report(study, *, profile: str = "quick", out=None, write: bool = True, with_tables: bool = True) -> str:
    """Markdown report: every published number of the study next to ours, saved beside the results.

    The saved file (``comparison.md`` and ``comparison.csv`` in the run
    directory, each written atomically) always holds every summary table too;
    ``with_tables=False`` returns only the comparison (what the command line
    prints).  When the run directory cannot be written (read-only results) the
    files are skipped with a one-line note on stderr and the text is returned
    all the same.

    Parameters
    ----------
    study : str or simstudy.engine.Study
    profile : str
    out : path-like, optional
        The run directory (default ``results/STUDY/PROFILE``).
    write : bool
        Save ``comparison.md`` and ``comparison.csv``.
    with_tables : bool
        Append every summary table to the returned text.

    Returns
    -------
    str
    """
    st, run = _study_and_run(study, profile, out)
    tables = st.summarize(run)
    published = st.publication.values
    reduced = reduced_scale(st, run)
    cmp = compare(tables, published, reduced=bool(reduced))
    k = run.manifest.get("n_replications") if hasattr(run, "manifest") else None
    notes = (
        f"Profile `{profile}`"
        + (f", {k} replications per group" if k else "")
        + ". "
        + (st.publication.interval_note or BERRAR_INTERVALS)
        + " At reduced profiles the intervals are wide and some groups are not run (n/a).\n\n"
    )
    appendix = "".join(
        f"\n## Table `{name}` (from stored rows)\n\n{markdown_table(df)}\n" for name, df in tables.items()
    )
    text = comparison_markdown(st.title, cmp, notes=notes + appendix, reduced=reduced)
    if write:
        path = Path(run.path) / "comparison.md"
        try:
            write_atomic(path, text)
            buf = io.StringIO()
            cmp.to_csv(buf, index=False)
            write_atomic(path.with_suffix(".csv"), buf.getvalue())
        except OSError as exc:
            print(
                f"simstudy: note: comparison not saved, {Path(run.path)} is not writable ({exc.strerror or exc})",
                file=sys.stderr,
            )
    return text if with_tables else comparison_markdown(st.title, cmp, notes=notes, reduced=reduced)


# -- cross-study tables ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CrossStudyTable:
    """A table to which several studies contribute one row each (declared once, next to the studies).

    Attributes
    ----------
    name : str
        Identifier of the table (rows name their table by this object; the
        identifier selects it by name).
    title : str
        Title of the table, e.g. ``"Berrar, Table 1"``.
    caption : str
        What the rows are, shown after the title in the report.
    short : str
        How the paper names the table on its own (e.g. ``"Table 1"``; default the title).
    columns : tuple of (str, str)
        Output column and the summary-table column it is read from; ``{model}``
        in the latter stands for the model prefix chosen for the row.  Each
        output column also gets ``_mc_low`` and ``_mc_high`` (the Monte Carlo
        interval columns of the source), and is compared with the published value.
    closest : (str, float)
        An output column and a target: each study contributes the group of its
        summary table whose value in that column is closest to the target.
    differences : tuple of (str, str, str)
        Extra columns ``(name, a, b)`` holding ``a - b``.
    count : str or None
        A summary-table column copied as an integer (e.g. the replications ``k``).
    average : bool
        Append a row with the mean of each column over the studies computed.
    source : str
        Where the published values are printed.
    published_average : dict of str to float
        The published values of the average row, by output column (differences included).
    replications : int, optional
        Replications behind each published value, when they are Monte Carlo
        estimates (their own error then enters the comparison).
    counted_in : str
        Where the published value columns are counted, when each study's
        section repeats them (``"{study}"`` stands for the study's name): they
        are shown and compared here, and only the differences and the average
        row are counted.
    """

    name: str
    title: str
    caption: str = ""
    short: str = ""
    columns: tuple = ()
    closest: tuple = ()
    differences: tuple = ()
    count: str | None = None
    average: bool = True
    source: str = ""
    published_average: dict = field(default_factory=dict)
    replications: int | None = None
    counted_in: str = ""

    @property
    def heading(self) -> str:
        """The title with its caption, as the report shows it."""
        return f"{self.title} ({self.caption})" if self.caption else self.title


@dataclass(frozen=True)
class CrossStudyRow:
    """One study's row of a :class:`CrossStudyTable`: the published values and where ours live.

    Declared by the study under ``publication.cross_study`` (a tuple of rows).

    Attributes
    ----------
    table : CrossStudyTable
        The table the row belongs to.
    group : str
        The group the paper reports, as it names it (e.g. ``"a = 7"``).
    published : dict of str to float
        Published value of each output column of the table.
    summary : str
        The summary table of the study our numbers come from.
    models : tuple of str
        Candidate model prefixes, the first whose columns are all in the summary table is used.
    group_column : str
        The summary-table column identifying a group.
    group_label : str
        How our group is named in the table (default ``group_column``).
    """

    table: CrossStudyTable
    group: str
    published: dict = field(default_factory=dict)
    summary: str = ""
    models: tuple = ("",)
    group_column: str = "g"
    group_label: str = ""


def _studies(studies):
    from simstudy.engine import get_study, list_studies

    if studies is None:
        studies = list_studies()
    return [get_study(s) for s in studies]


def cross_study_rows(studies=None) -> dict[str, tuple[CrossStudyTable, list]]:
    """The cross-study tables the studies contribute to, with each table's ``(study, row)`` pairs.

    Parameters
    ----------
    studies : iterable of str or Study, optional
        Default: every registered study.

    Returns
    -------
    dict
        ``{table name: (table, [(study, row), ...])}`` in the order the studies are given.
    """
    found: dict[str, tuple[CrossStudyTable, list]] = {}
    for st in _studies(studies):
        for row in st.publication.cross_study:
            table, rows = found.setdefault(row.table.name, (row.table, []))
            if row.table != table:
                raise InputError(
                    f"study {st.name!r}: cross-study table {row.table.name!r} is declared differently by another study"
                )
            rows.append((st, row))
    return found


def _our_row(table: CrossStudyTable, row: CrossStudyRow, tables: dict[str, pd.DataFrame], study: str) -> dict:
    main = tables.get(row.summary)
    if main is None:
        raise InputError(
            f"study {study!r}: cross-study row of {table.name!r} reads summary table "
            f"{row.summary!r}, which the study does not make (tables: {', '.join(tables)})"
        )
    model = next((m for m in row.models if all(src.format(model=m) in main for _, src in table.columns)), None)
    if model is None:
        raise InputError(
            f"study {study!r}: summary table {row.summary!r} has the columns of none of the "
            f"models {', '.join(map(repr, row.models))}"
        )
    source = {col: src.format(model=model) for col, src in table.columns}
    if table.closest:
        col, target = table.closest
        best = main.loc[(main[source[col]] - target).abs().idxmin()]
    else:
        best = main.iloc[0]
    out = {"study": study, "group": f"{row.group_label or row.group_column} = {int(best[row.group_column])}"}
    for col, src in source.items():
        out[col] = best[src]
        out[f"{col}_mc_low"] = best.get(f"{src}_mc_low", np.nan)
        out[f"{col}_mc_high"] = best.get(f"{src}_mc_high", np.nan)
    for name, a, b in table.differences:  # the interval of a difference from both intervals (as independent)
        out[name] = out[a] - out[b]
        out[f"{name}_mc_low"], out[f"{name}_mc_high"] = _combined(out[name], [_se(out, a), _se(out, b)], 1.0)
    if table.count:
        out[table.count] = int(best[table.count])
    return out


def _se(row: dict, col: str) -> float:
    """A standard error read back from a 95% interval of ``row`` (its half-width over 1.96)."""
    from simstudy.outputs.agreement import Z95

    return (float(row.get(f"{col}_mc_high", np.nan)) - float(row.get(f"{col}_mc_low", np.nan))) / (2 * Z95)


def _combined(value: float, ses: list, scale: float) -> tuple[float, float]:
    """``value -+ 1.96 * scale * sqrt(sum of ses squared)``."""
    from simstudy.outputs.agreement import Z95

    half = Z95 * scale * float(np.sqrt(np.sum(np.square(ses))))
    return value - half, value + half


def _other_group(published: str, ours: str, study: str) -> dict:
    """A row whose group is not the paper's has a found cause for its misses: the study's own."""
    if published.replace(" ", "") == str(ours).replace(" ", ""):
        return {}
    return {
        "cause": "found",
        "note": f"Our group closest to the target is {ours}, the paper's {published}: see {study}'s section.",
    }


def _average_cause(frame, members) -> dict:
    """The average row's misses follow from a study whose row is another group than the paper's."""
    other = [
        st.name
        for st, row in members
        if not frame[frame["study"] == st.name].empty
        and _other_group(row.group, frame[frame["study"] == st.name]["group"].iloc[0], st.name)
    ]
    if not other:
        return {}
    return {
        "cause": "found",
        "note": f"The average holds the row of {', '.join(other)}, another group than the paper's.",
    }


def _profile_of(profile, name: str) -> str | None:
    """The profile to read for study ``name``: ``profile`` itself, or its entry when it maps study names."""
    if isinstance(profile, str):
        return profile
    return profile.get(name)


def cross_study_table(table, studies=None, *, profile="quick", results=DEFAULT_ROOT) -> tuple[pd.DataFrame, str]:
    """Assemble a cross-study table from the stored results of the studies that contribute to it.

    A contributing study without stored results at ``profile`` gets a row
    marked ``not run``.

    Parameters
    ----------
    table : CrossStudyTable or str
        The table, or its name.
    studies : iterable of str or Study, optional
        Where to look for rows (default: every registered study).
    profile : str or dict
        The stored profile to read, or a mapping from study name to its profile
        (a study missing from the mapping counts as not run).
    results : path-like
        Root of the stored results (``RESULTS/STUDY/PROFILE``).

    Returns
    -------
    (pandas.DataFrame, str)
        The table, and a Markdown report comparing it with the published values.
    """
    name = table.name if isinstance(table, CrossStudyTable) else table
    found = cross_study_rows(studies)
    if name not in found:
        raise InputError(
            f"cross-study table {name!r}: no study declares a row of it"
            + (f" (tables declared: {', '.join(found)})" if found else "")
        )
    table, members = found[name]
    frame, cmp, reduced = _assemble(table, members, profile, results)
    shown = profile if isinstance(profile, str) else "per study, as marked"
    text = comparison_markdown(
        f"{table.title} (profile {shown})",
        cmp,
        reduced="; ".join(reduced) or None,
        notes=f"## Our {table.short or table.title} (from stored rows)\n\n" + markdown_table(frame),
    )
    return frame, text


def cross_study_comparison(table, studies=None, *, profile="quick", results=DEFAULT_ROOT, carried=None):
    """A cross-study table, its comparison with the published values, and why it is reduced (if it is).

    As :func:`cross_study_table`, returning ``(frame, comparison, reduced)``:
    the comparison is :func:`simstudy.outputs.tables.compare`'s, and
    ``reduced`` lists the contributing runs smaller than their published scale.
    ``carried`` maps a study whose rows are not stored to its row as an
    earlier page printed it, with the profile it was made at
    (:func:`simstudy.outputs.carried.carried_cross_row`).
    """
    name = table.name if isinstance(table, CrossStudyTable) else table
    table, members = cross_study_rows(studies)[name]
    return _assemble(table, members, profile, results, carried or {})


def _assemble(table: CrossStudyTable, members: list, profile, results, carried=None):
    carried = carried or {}
    name = table.name
    rows, published, reduced = [], [], []
    value_columns = [col for col, _ in table.columns]
    differences = [d[0] for d in table.differences]
    for st, row in members:
        prof = _profile_of(profile, st.name)
        out = Path(results) / st.name / prof if prof else None
        if (out is None or not out.exists()) and st.name in carried:
            mine, prof = carried[st.name]
            if prof != "paper":
                reduced.append(f"{st.name}: carried over at the {prof} profile")
            rows.append(dict(mine, profile=f"{prof} (carried over)"))
            for name, a, b in table.differences:
                rows[-1][name] = rows[-1][a] - rows[-1][b]
                rows[-1][f"{name}_mc_low"], rows[-1][f"{name}_mc_high"] = _combined(
                    rows[-1][name], [_se(rows[-1], a), _se(rows[-1], b)], 1.0
                )
        elif out is None or not out.exists():
            rows.append({"study": st.name, "group": "not run"})
            continue
        else:
            st, run = _study_and_run(st, prof, out)
            why = reduced_scale(st, run)
            if why:
                reduced.append(f"{st.name}: {why}")
            rows.append(_our_row(table, row, st.summarize(run), st.name))
            if not isinstance(profile, str):
                rows[-1]["profile"] = prof
        for col in value_columns + differences:
            if col in row.published:
                published.append(
                    Published(
                        f"{st.name} ({row.group} published, ours {rows[-1]['group']}): {col}",
                        name,
                        col,
                        row.published[col],
                        (("study", st.name),),
                        table.source,
                        key=f"{name}: {st.name}: {col}",
                        replications=table.replications,
                        counted_in=table.counted_in.format(study=st.name) if col in value_columns else "",
                        **_other_group(row.group, rows[-1]["group"], st.name),
                    )
                )
    frame = pd.DataFrame(rows)
    done = frame.dropna(subset=value_columns) if set(value_columns) <= set(frame) else frame.iloc[0:0]
    if table.average and len(done):
        avg = {"study": "average", "group": ""}
        for col in value_columns + differences:
            avg[col] = done[col].mean()
            ses = [_se(r, col) for r in done.to_dict("records")]
            avg[f"{col}_mc_low"], avg[f"{col}_mc_high"] = _combined(avg[col], ses, 1.0 / len(done))
        frame = pd.concat([frame, pd.DataFrame([avg])], ignore_index=True)
        if len(done) == len(members):  # the published average is of every study's row
            for col, value in table.published_average.items():
                published.append(
                    Published(
                        f"average over the studies: {col}",
                        name,
                        col,
                        value,
                        (("study", "average"),),
                        table.source,
                        key=f"{name}: average: {col}",
                        replications=table.replications,
                        **_average_cause(frame, members),
                    )
                )
    cmp = compare({name: frame}, published, reduced=bool(reduced), replications=table.replications)
    return frame, cmp, reduced


def cross_study_tables(studies=None, *, profile="quick", results=DEFAULT_ROOT) -> list:
    """Every cross-study table the studies contribute to, with stored results for at least one row.

    Parameters
    ----------
    studies : iterable of str or Study, optional
        Default: every registered study.
    profile : str or dict
        As in :func:`cross_study_table`.
    results : path-like

    Returns
    -------
    list of (CrossStudyTable, pandas.DataFrame, str)
        Each table's declaration, its rows and its comparison report.
    """
    studies = _studies(studies)
    out = []
    for table, members in cross_study_rows(studies).values():
        if any(
            _profile_of(profile, st.name) and (Path(results) / st.name / _profile_of(profile, st.name)).exists()
            for st, _ in members
        ):
            frame, text = cross_study_table(table, studies, profile=profile, results=results)
            out.append((table, frame, text))
    return out


def berrar_table1(*, profile: str = "quick", results=DEFAULT_ROOT) -> tuple[pd.DataFrame, str]:
    """Berrar's Table 1 from the stored results of the studies that declare its rows.

    The same as ``cross_study_table("berrar_table1", profile=profile, results=results)``.
    """
    return cross_study_table("berrar_table1", profile=profile, results=results)
