"""Benchmark a test on a study's stored replications, beside the study's built-in tests (no refitting).

``bench(study, test=...)`` reads the paired scores that the study stored for
every replication (where they are is the study's :class:`~simstudy.pipeline.scores.ScoreLayout`),
runs the test on them, vectorised, and sets its results beside the built-in
tests' stored outcomes on the very same replications.  Because both see the same
data, partitions and fits (common random numbers), the difference between the
new test and each built-in one is estimated from per-unit paired differences,
with its interval.

The test is a registered test (:func:`simstudy.pipeline.outcomes.test_names`, e.g.
``welch_t``), ``all`` (every registered test the stored design allows), or a
plug-in (``module:function`` or ``path/to/file.py:function``, see
:mod:`simstudy.pipeline.plugins`).  The library knows no study by name: anything a study
declares with ``paired_scores`` can be benchmarked.  Nothing is written into the
stored run; the report and the new tests' outcome rows (one per unit and
experiment, as a study stores its own) go to ``RUN/bench/``.
"""

from __future__ import annotations

import contextlib
import io
from typing import TYPE_CHECKING

import numpy as np

from simstudy._files import DEFAULT_ROOT, folder_below, write_atomic
from simstudy._lazy import lazy_module
from simstudy.errors import InputError, option
from simstudy.outputs.tables import markdown_table
from simstudy.pipeline.outcomes import get_test, run_test, test_names
from simstudy.pipeline.scores import PairedScores
from simstudy.statistics.intervals import mean_interval, wilson
from simstudy.statistics.replicability import normalized, r2
from simstudy.statistics.size_control import DECLINED

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["bench"]

# What each kind of test input takes from a study that stores several designs per replication.
_DEFAULT_DESIGNS = {"sample": "cv", "cv": "cv", "splits": "subsample", "5x2": "5x2"}


def _builtin_decisions(out: pd.DataFrame, alpha: float) -> pd.Series:
    """Stored decisions of the built-in tests, re-made at ``alpha`` from the stored p-values.

    The direction is the stored decision's where it rejected, else the sign of the
    statistic (+1 when that is 0 too: some statistics, e.g. counts, carry no sign).
    """
    stored = np.sign(out["decision"].to_numpy())
    direction = np.where(stored != 0, stored, np.sign(out["statistic"].to_numpy()))
    direction = np.where(direction == 0, 1, direction)
    return pd.Series(np.where(out["pvalue"].to_numpy() <= alpha, direction, 0).astype(np.int8), index=out.index)


def _fmt_iv(m, lo, hi, scale=100.0, rate=True, sign=False, bounds=None):
    if rate:  # a rate's interval stays within [0, 1]
        bounds = (0.0, 1.0)
    if bounds is not None:
        lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
    f = "+.1f" if sign else ".1f"
    return f"{scale * m:{f}} [{scale * lo:{f}}, {scale * hi:{f}}]"


class _Block:
    """The paired scores of one group and pair, as arrays (units, experiments, runs, folds)."""

    def __init__(self, rows: pd.DataFrame, layout, a: str, b: str, design: str | None):
        self.layout = layout
        self.design = design
        exp = layout.experiment
        axes = list(layout.axes)
        order = [layout.unit] + ([exp] if exp else []) + axes
        rows = rows.sort_values(order, kind="stable")
        self.units = list(dict.fromkeys(rows[layout.unit]))
        self.experiments = list(dict.fromkeys(rows[exp])) if exp else [None]
        n_u, n_e = len(self.units), len(self.experiments)
        runs = rows[axes[0]].nunique() if len(axes) == 2 else 1
        folds = rows[axes[-1]].nunique()
        shape = (n_u, n_e, runs, folds)
        if len(rows) != int(np.prod(shape)):
            where = rows.iloc[0][list(layout.groups)].to_dict() if layout.groups else "the study"
            raise InputError(
                f"scores: the stored scores of {where} do not form complete "
                f"{n_u} x {n_e} x {runs} x {folds} blocks ({len(rows)} rows)"
            )
        n_train = n_test = None
        self.no_sizes = ""  # why the split sizes are unknown, when they are
        if layout.sizes is not None:
            try:
                n_train, n_test = layout.sizes(rows, design)
            except ValueError as exc:  # the rows do not carry them: the tests that need them do not run here
                self.no_sizes = str(exc)
        counts = {}
        if {"n01", "n10"} <= set(rows.columns) and rows[["n01", "n10"]].notna().all(axis=None):
            counts = {k: rows[k].to_numpy().reshape(shape) for k in ("n01", "n10")}
        self.scores = PairedScores(
            rows[a].to_numpy(float).reshape(shape),
            rows[b].to_numpy(float).reshape(shape),
            n_train=n_train,
            n_test=n_test,
            **counts,
        )

    def decisions_of(self, out: pd.DataFrame) -> np.ndarray:
        """The stored decisions of one built-in variant, arranged (units, experiments)."""
        exp = self.layout.experiment
        keys = [self.layout.unit] + ([exp] if exp else [])
        d = out.set_index(keys)["decision"]
        idx = pd.MultiIndex.from_product([self.units, self.experiments]) if exp else pd.Index(self.units)
        return d.reindex(idx).to_numpy().reshape(len(self.units), len(self.experiments))


def _summary(dec: np.ndarray) -> dict:
    """Rejection share (and A's share) over units with its interval; mean normalised R2 over units."""
    n_u, n_e = dec.shape
    rej = (dec != 0).mean(axis=1)
    if n_e == 1:  # one decision per unit: independent Bernoulli trials
        iv = wilson((dec != 0).sum(), n_u)
        a_iv = wilson((dec > 0).sum(), n_u)
    else:
        iv = mean_interval(rej)
        a_iv = mean_interval((dec > 0).mean(axis=1))
    row = {"% rejecting": _fmt_iv(*map(float, iv)), "% A better": _fmt_iv(*map(float, a_iv))}
    if n_e > 1:
        norm = np.asarray(normalized(r2(dec)), dtype=float)
        row["mean norm. R2"] = _fmt_iv(*map(float, mean_interval(norm)), rate=False, bounds=(-1.0, 1.0))
    return row


def _new_tests(test, scheme, timeout, alpha: float, workers: contextlib.ExitStack) -> list:
    """The tests to bench, each a :class:`~simstudy.pipeline.outcomes.TestSpec`: registered ones by name, a
    plug-in adapted into the same contract (:func:`simstudy.pipeline.plugins.as_test`).

    A plug-in given by reference is loaded in a worker process that ``workers`` closes
    (see :func:`simstudy.pipeline.plugins.open_plugin`); a callable runs in this process.
    """
    from simstudy.pipeline.plugins import as_test, open_plugin

    def plugin_of(ref, what):
        return workers.enter_context(open_plugin(ref, what, timeout=timeout)) if isinstance(ref, str) else ref

    if isinstance(test, str) and test == "all":
        names = test_names(in_all=True)
    elif isinstance(test, str) and ":" not in test:
        names = [get_test(test).name]
    else:
        scheme_fn = None if scheme is None else plugin_of(scheme, "scheme")
        return [as_test(plugin_of(test, "test"), alpha=alpha, timeout=timeout, scheme=scheme_fn)]
    if scheme is not None:
        raise InputError(
            f"{option('scheme')}: a plug-in scheme goes with a plug-in test; registered tests run on the study's own "
            "schemes"
        )
    return [get_test(n) for n in names]


def bench(
    target,
    *,
    test,
    scheme=None,
    profile: str | None = None,
    results=DEFAULT_ROOT,
    alpha: float = 0.05,
    write: bool = True,
    out=None,
    timeout=None,
    design: str | None = None,
) -> str:
    """Run a test on the stored replications of a study, beside its built-in tests.

    Parameters
    ----------
    target : str, path or Study
        A study that declares ``paired_scores``: its name or the path of its file.
    test : str or callable
        A registered test's name, ``"all"``, or a plug-in (``module:name``,
        ``path/to/file.py:name``, or the function itself; see :mod:`simstudy.pipeline.plugins`).
    scheme : str or callable, optional
        A plug-in sampling scheme for a plug-in test; its sample reaches the test
        as ``scores.sample``.
    profile : str, optional
        Stored profile to read (default ``quick``, or with ``out`` the stored run's own).
    results : str or Path
        Root of the stored results (the run is ``RESULTS/STUDY/PROFILE``) ...
    out : str or Path, optional
        ... or the run directory itself.
    alpha : float
        Significance level of the new test; the built-in decisions are re-made
        at this level from their stored p-values.
    timeout : float or None
        Seconds a plug-in may take for one call (default
        :data:`simstudy.pipeline.plugins.DEFAULT_TIMEOUT`; None: no limit).  A plug-in
        given by reference runs in a worker process, started once for the
        bench and killed at the limit; a callable runs in this process under
        the lighter in-process limit (see :mod:`simstudy.pipeline.plugins`).
    design : str, optional
        The stored design the new tests run on (a study that stores several
        names them in its ``design`` column).  Default: for each test, the
        design of the kind it is made for (McNemar's test: the holdout), else
        the one its input comes from (the r x k cv for a sample test, the
        random splits for the resampled t-tests).  The report says which.
    write : bool
        Also write the report to ``RUN/bench/STUDY__TEST.md`` and the new tests'
        outcome rows to ``RUN/bench/STUDY__TEST.parquet`` (the stored chunks and
        manifest are only read; a read-only store skips this).

    Returns
    -------
    str
        Markdown: per group and pair, the new test's rejection rate (and the
        share where A is better, and the mean normalised replicability where the
        study repeats experiments) beside every built-in test's on the same
        replications, with 95% Monte Carlo intervals and the study's published
        numbers for that test; then the paired differences, new minus built-in.

    Raises
    ------
    ValueError
        A study without stored paired scores, no stored run, a bad level, an
        unknown test; :class:`~simstudy.pipeline.plugins.PluginError` for a plug-in that fails.
    """
    from simstudy._validation import check_alpha
    from simstudy.engine import get_study

    alpha = check_alpha(alpha, option("alpha"))
    study = get_study(target)
    layout = study.provides.paired_scores
    if layout is None:
        raise InputError(
            f"STUDY: {study.name!r} stores no paired scores to run a test on "
            "(its declaration has no paired_scores layout)"
        )
    from simstudy.pipeline.plugins import DEFAULT_TIMEOUT

    timeout = DEFAULT_TIMEOUT if timeout is None else (None if timeout == "none" else timeout)
    with contextlib.ExitStack() as workers:  # a plug-in's worker process lives as long as this bench
        tests = _new_tests(test, scheme, timeout, alpha, workers)
        return _bench_text(
            study,
            layout,
            tests,
            target=target,
            test=test,
            scheme=scheme if scheme is None or isinstance(scheme, str) else getattr(scheme, "__name__", "scheme"),
            profile=profile,
            results=results,
            out=out,
            alpha=alpha,
            write=write,
            design=design,
        )


def _run(spec, block: _Block, scheme_name, alpha: float):
    """The test's result on a block's scores and its decisions shaped (units, experiments); None where the stored
    design does not fit a registered test (e.g. 5 x 2 folds, or no split sizes for a corrected test); decisions
    None where a plug-in declined the design (it returned None)."""
    from simstudy.pipeline.plugins import PluginError

    if spec.sizes and block.scores.n_train is None:
        return None
    try:
        res = run_test(spec, block.scores, scheme=scheme_name if spec.takes == "sample" else None)
    except PluginError:
        raise
    except ValueError:
        return None
    if getattr(res, "declined", False):
        return res, None
    shape = block.scores.acc_a.shape[:2]
    return res, np.asarray(res.decision(alpha)).reshape(shape)


#: The columns of an outcome row that hold a test's result (the rest describe the condition, unit and experiment).
_RESULT_COLUMNS = ("scheme", "test", "statistic", "pvalue", "decision")


def _as_stored(template, block: _Block, base: dict, label: str, scheme_name, res, dec) -> pd.DataFrame:
    """The new test's outcome rows on one block, as the study stores its own: one per unit and experiment, with the
    columns that describe the condition, unit and experiment copied from a built-in test's rows of the same block
    (``template``), and the test's label, statistic, p-value and decision."""
    lay = block.layout
    keys = [lay.unit] + ([lay.experiment] if lay.experiment else [])
    n_u, n_e = len(block.units), len(block.experiments)
    frame = pd.DataFrame({lay.unit: np.repeat(np.asarray(block.units), n_e)})
    if lay.experiment:
        frame[lay.experiment] = np.tile(np.asarray(block.experiments), n_u)
    order = list(frame.columns)
    if template is not None and len(template):
        described = template.drop_duplicates(keys)
        described = described.drop(columns=[c for c in (*_RESULT_COLUMNS, *lay.variants) if c in described])
        frame = frame.merge(described, on=keys, how="left")
        order = [c for c in template.columns if c in frame or c in _RESULT_COLUMNS or c in lay.variants]
    for k, v in base.items():
        frame[k] = v
    for v in lay.variants:  # the test's label in the study's own columns
        frame[v] = label if v == "test" else (block.design if v == lay.design_column else "")
    if scheme_name is not None or "scheme" in order:
        frame["scheme"] = scheme_name or ""
    frame["test"] = label
    frame["statistic"] = np.broadcast_to(np.asarray(res.statistic, dtype=float), dec.shape).ravel()
    frame["pvalue"] = np.broadcast_to(np.asarray(res.pvalue, dtype=float), dec.shape).ravel()
    frame["decision"] = dec.ravel().astype(np.int8)
    return frame[list(dict.fromkeys([*order, *frame.columns]))]


class _Found:
    """What the loop over a study's groups found: the new tests' results and the built-in tests' beside them."""

    def __init__(self):
        self.ran_on = {}  # new test label -> the designs it ran on
        self.not_run = {}  # new test label -> why it gave no result on a design
        self.rows = []  # the per-group table
        self.diffs = []  # paired differences, new minus built-in: one dict per group, pair and built-in variant
        self.new = []  # (label, scheme, rows as stored, direction per row, decision only) per block
        self.declined = []  # (label, scheme, base) of the blocks a plug-in declined
        self.builtin = {}  # built-in label -> its variant fields


def _design_of(spec, layout, design: str | None) -> str | None:
    """The stored design a new test runs on: ``design`` when chosen; else the one the study's layout names for the
    kind of design the test is made for (McNemar's: a holdout), or for its input (the r x k cv for a sample test)."""
    if not layout.design_column:
        return None
    if design is not None:
        return design
    for kind in spec.designs or ():
        if kind in layout.designs:
            return layout.designs[kind]
    kind = spec.takes if spec.takes in _DEFAULT_DESIGNS else "cv"
    return layout.designs.get(kind, _DEFAULT_DESIGNS[kind])


class _Blocks:
    """One pair's stored scores per design, each cut into a :class:`_Block` once, when a test first needs it."""

    def __init__(self, rows, layout, a, b):
        self.rows, self.layout, self.a, self.b = rows, layout, a, b
        self.made: dict = {}

    def of(self, name):
        """The block of design ``name`` (None: the study has no design column), or None when none is stored."""
        if name not in self.made:
            sel = self.rows if name is None else self.rows[self.rows[self.layout.design_column] == name]
            self.made[name] = _Block(sel, self.layout, self.a, self.b, name) if len(sel) else None
        return self.made[name]

    def first(self):
        """The first block made, else the one of the study's cv design: where the built-in tests' units lie."""
        made = next((x for x in self.made.values() if x is not None), None)
        if made is not None:
            return made
        layout = self.layout
        return self.of(layout.designs.get("cv", _DEFAULT_DESIGNS["cv"]) if layout.design_column else None)


def _walk(study, layout, tests, scores, outcomes, alpha: float, design: str | None = None) -> _Found:
    """Run the new tests on every group and pair of the stored scores; set the built-in tests beside them."""
    variants = [c for c in layout.variants if c in outcomes]
    schemes = list(dict.fromkeys(outcomes["scheme"])) if "scheme" in outcomes else [None]
    groups = list(layout.groups)
    found = _Found()
    group_iter = scores.groupby(groups, sort=False) if groups else [((), scores)]
    for gkey, grows in group_iter:
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        gfields = dict(zip(groups, gkey))
        gout = outcomes
        for c, v in gfields.items():
            gout = gout[gout[c] == v]
        pairs = layout.pairs_of([c for c in grows.columns if grows[c].notna().all()])
        for pair, (a, b) in pairs.items():
            pout = gout if layout.pair_column is None else gout[gout[layout.pair_column] == pair]
            stored = list(pout.groupby(variants, sort=False)) if variants else []
            template = stored[0][1] if stored else None
            blocks = _Blocks(grows, layout, a, b)
            base = {**gfields, **({"pair": pair} if len(pairs) > 1 or layout.pair_column else {})}
            new = _run_new(found, tests, blocks, schemes, template, base, layout, alpha, design)
            _set_builtin_beside(found, stored, variants, blocks, new, base, (study, gfields, pair, groups))
    return found


def _run_new(found: _Found, tests, blocks: _Blocks, schemes, template, base, layout, alpha, design) -> dict:
    """Run the new tests on one pair's blocks, recording their rows in ``found``; ``{(test, scheme): (decisions,
    block)}`` of those that decided."""
    new = {}
    for spec in tests:
        label = spec.name
        where = _design_of(spec, layout, design)
        blk = blocks.of(where)
        if blk is None:
            found.not_run.setdefault(label, f"no stored scores of design {where}")
            continue
        if spec.sizes and blk.scores.n_train is None:
            found.not_run.setdefault(label, blk.no_sizes or "the study's layout gives no split sizes")
            continue
        # a registered sample test runs on each scheme the study uses; a plug-in makes its own sample
        for sch in schemes if spec.takes == "sample" else [None]:
            got = _run(spec, blk, sch, alpha)
            if got is None:
                found.not_run.setdefault(label, f"its input does not fit design {where or 'of the study'}")
                continue
            found.ran_on.setdefault(label, [])
            if (where or "") not in found.ran_on[label]:
                found.ran_on[label].append(where or "")
            res, dec = got
            sch_label = sch if spec.takes == "sample" else None
            if dec is None:  # the plug-in declined this design
                found.declined.append((label, sch_label, base))
                found.rows.append({**base, "test": f"**{label}**", "scheme": sch_label or "", **_DECLINED_ROW})
                continue
            new[(label, sch_label)] = (dec, blk)
            rows = _as_stored(template, blk, base, label, sch_label, res, dec)
            direction = np.broadcast_to(np.asarray(res.direction, dtype=float), dec.shape).ravel()
            found.new.append((label, sch_label, rows, direction, bool(getattr(res, "decision_only", False))))
            found.rows.append(
                {**base, "test": f"**{label}**", "scheme": sch_label or "", **_summary(dec), "published": ""}
            )
    return new


def _set_builtin_beside(found: _Found, stored, variants, blocks: _Blocks, new: dict, base, where) -> None:
    """The built-in tests stored for one pair (``where``: the study, the group's fields, the pair and the group
    columns), each with its published value, and the paired difference of every new test's rejection rate from
    it on the same units."""
    study, gfields, pair, groups = where
    for vkey, vout in stored:
        vkey = vkey if isinstance(vkey, tuple) else (vkey,)
        vfields = dict(zip(variants, vkey))
        blk = blocks.first()
        if blk is None:
            continue
        old = blk.decisions_of(vout)
        if np.isnan(old.astype(float)).any():
            continue  # this built-in test was not stored for every unit (e.g. another level)
        label = " / ".join(str(v) for v in vkey)
        found.builtin[label] = vfields
        found.rows.append(
            {
                **base,
                "test": label,
                "scheme": "",
                **_summary(old),
                "published": _published(study, {**gfields, **vfields, "pair": pair}, specific=groups),
            }
        )
        for (nlabel, nsch), (dec, _) in new.items():
            if dec.shape != old.shape:
                continue
            if nsch is not None and "scheme" in vfields and vfields["scheme"] != nsch:
                continue
            m, lo, hi = map(float, mean_interval((dec != 0).mean(axis=1) - (old != 0).mean(axis=1)))
            found.diffs.append(
                {
                    **base,
                    "new test": nlabel + (f" / {nsch}" if nsch else ""),
                    "built-in": label,
                    "difference": m,
                    "low": lo,
                    "high": hi,
                }
            )


_DECLINED_ROW = {"% rejecting": DECLINED, "% A better": DECLINED, "published": ""}


def _published(study, fields: dict, specific=()) -> str:
    """The study's published numbers whose location matches these fields (test, scheme, group, pair) and names one
    of the ``specific`` fields (a group), so that a number published once for a test is not repeated in every
    group's block (the published table's form shows it once)."""
    found = []
    for p in study.publication.values:
        where = dict(p.where)
        if not where or (specific and not any(k in where for k in specific)):
            continue
        if all(k in fields and str(fields[k]) == str(v) for k, v in where.items()):
            found.append(f"{p.column} {p.value:g}")
    return "; ".join(found)


# -- the published table in its own form -------------------------------------------------------------------------


class _WithRows:
    """A stored run whose outcome rows are replaced (the study's ``summarize`` reads them through ``table``)."""

    def __init__(self, run, outcomes: pd.DataFrame):
        self._run, self._outcomes = run, outcomes

    def table(self, name, *args, **kwargs):
        if name == "outcomes":
            return self._outcomes.copy()
        return self._run.table(name, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._run, name)


def _published_variants(study, layout) -> list[tuple]:
    """The variants of the built-in tests the study publishes numbers for, as ((column, value), ...) in the
    order of the published values; empty when its published numbers name no test."""
    out = []
    for p in study.publication.values:
        key = tuple((k, str(v)) for k, v in p.where if k in layout.variants)
        if key and key not in out:
            out.append(key)
    return out


def _joined(frame: pd.DataFrame, cols) -> np.ndarray:
    """Per row, the values of ``cols`` joined by " / " (the label of a built-in test in every table)."""
    if not cols:
        return np.full(len(frame), "", dtype=object)
    out = frame[cols[0]].astype(str)
    for c in cols[1:]:
        out = out + " / " + frame[c].astype(str)
    return out.to_numpy(dtype=object)


def _matches(frame: pd.DataFrame, key) -> np.ndarray:
    ok = np.ones(len(frame), dtype=bool)
    for k, v in key:
        if k not in frame:
            return np.zeros(len(frame), dtype=bool)
        ok &= frame[k].astype(str).to_numpy() == str(v)
    return ok


def _cell(row, col) -> str:
    v = row.get(col, np.nan)
    if isinstance(v, str):
        return v
    if v is None or not np.isfinite(v):
        return "n/a"
    lo, hi = row.get(f"{col}_mc_low", np.nan), row.get(f"{col}_mc_high", np.nan)
    if lo is not None and hi is not None and np.isfinite(lo) and np.isfinite(hi):
        return f"{v:.1f} [{lo:.1f}, {hi:.1f}]"
    return f"{v:.1f}"


def _table_form(study, layout, run, outcomes, found: _Found, notes: list) -> tuple[str, list]:
    """The study's published tables with the new tests in them, computed as the study computes its own rows.

    The study's ``summarize`` runs on the stored rows of the tests it publishes numbers for, re-decided at this
    alpha, plus the new tests' rows (:func:`_as_stored`); each table the published numbers name is shown with the
    new tests' rows, then every published test's row, ours and the paper's.  Returns the Markdown ("" when the
    study publishes no number about a test) and the labels of the published built-in tests.
    """
    keys = _published_variants(study, layout)
    if not keys:
        return "", []
    labels = []
    for label, vfields in found.builtin.items():
        if any(all(str(vfields.get(k)) == v for k, v in key) for key in keys):
            labels.append(label)
    new_labels = list(dict.fromkeys((lab, sch) for lab, sch, *_ in found.new))
    declined = list(dict.fromkeys((lab, sch) for lab, sch, _ in found.declined if (lab, sch) not in new_labels))
    if not new_labels and not declined:
        return "", labels
    mask = np.zeros(len(outcomes), dtype=bool)
    for key in keys:
        mask |= _matches(outcomes, key)
    parts = [outcomes[mask]] + [rows for *_, rows, _, _ in found.new]
    try:
        with np.errstate(all="ignore"):
            tables = study.summarize(_WithRows(run, pd.concat(parts, ignore_index=True)))
    except Exception as exc:  # a study's own summary that cannot take a new test: said, never a traceback
        notes.append(
            f"The study's own tables could not take the new test ({type(exc).__name__}: {exc}); its rates are below."
        )
        return "", labels
    sections = []
    by_table: dict = {}
    for p in study.publication.values:
        by_table.setdefault(p.table, []).append(p)
    for name, pubs in by_table.items():
        t = tables.get(name) if isinstance(tables, dict) else None
        if t is None or not any(k in layout.variants for p in pubs for k, _ in p.where):
            continue
        columns = list(dict.fromkeys(p.column for p in pubs))
        tails = {c: {p.label.rsplit(": ", 1)[-1] for p in pubs if p.column == c} for c in columns}
        heading = {c: next(iter(t)) if len(t) == 1 else c for c, t in tails.items()}
        where_cols = list(dict.fromkeys(k for p in pubs for k, _ in p.where))
        t = t.reset_index(drop=True)
        rows = []
        for lab, sch in new_labels + declined:
            key = [("test", lab)] + ([("scheme", sch or "")] if "scheme" in where_cols and "scheme" in t else [])
            hit = t[_matches(t, key)]
            if (lab, sch) in declined or not len(hit):
                rows.append({**{c: "" for c in where_cols}, "test": f"**{lab}**", "row": "ours"})
                rows[-1].update({heading[c]: DECLINED if (lab, sch) in declined else "n/a" for c in columns})
                continue
            for _, r in hit.iterrows():
                row = {c: (f"**{lab}**" if c == "test" else str(r.get(c, ""))) for c in where_cols}
                rows.append({**row, "row": "ours", **{heading[c]: _cell(r, c) for c in columns}})
        seen = []
        for p in pubs:
            if p.where not in seen:
                seen.append(p.where)
        for where in seen:
            ours = t[_matches(t, where)]
            if not len(ours):  # e.g. a data set this run does not store
                continue
            fields = {c: "" for c in where_cols} | {k: str(v) for k, v in where}
            if len(ours) == 1:
                rows.append({**fields, "row": "ours", **{heading[c]: _cell(ours.iloc[0], c) for c in columns}})
            paper = {p.column: p.value for p in pubs if p.where == where}
            rows.append(
                {**fields, "row": "paper", **{heading[c]: f"{paper[c]:g}" if c in paper else "" for c in columns}}
            )
        sources = ", ".join(dict.fromkeys(p.source for p in pubs if p.source))
        sections.append(
            f"### {sources or name} in its own form\n\nThe study's table `{name}`, the new test's row computed as "
            "the study computes its own from the same replications; ours with 95% Monte Carlo intervals, the "
            "paper's as published.\n\n" + markdown_table(pd.DataFrame(rows))
        )
    return "\n\n".join(sections), labels


# -- size verdicts where the study has null conditions -------------------------------------------------------------


def _size_and_power(study, layout, run, outcomes, stored_decision, found: _Found, alpha: float, notes: list):
    """The new tests and the built-in ones judged as the proving ground judges them, on the study's conditions whose
    truth its evidence declares (:mod:`simstudy.apps.evidence`): size verdict from the null conditions (intervals
    simultaneous over them), raw and size-adjusted power on the alternatives calibrated by a null twin, the rank.

    Returns the leaderboard (:func:`simstudy.apps.proving.summary.leaderboard`, procedures named by their labels in
    the other tables), or None when the study declares no null condition or its rows do not say which it is.
    """
    from simstudy.apps.proving.summary import leaderboard, procedures, size_table
    from simstudy.statistics.size_control import SizeRule

    truths = _declared_truths(study, run, outcomes, notes)
    if truths is None:
        return None
    frames = _procedure_rows(layout, outcomes, stored_decision, found, alpha, notes)
    pr = procedures(frames, truths=truths, decided_at=alpha)
    if not pr.p and not pr.declined:
        return None
    rule = SizeRule(alpha=alpha)
    board = _rank_complete_only(leaderboard(pr, alpha=alpha, rule=rule, sizes=size_table(pr, rule)), pr, alpha, rule)
    board["procedure"] = board["procedure"].str.replace(r" \[\]$", "", regex=True)
    return board


def _declared_truths(study, run, outcomes, notes: list) -> dict | None:
    """The truth of each condition as the study's evidence declares it, or None (and a note saying why) when the
    study declares none, its rows lack the columns, its evidence fails or declares no null condition."""
    if study.provides.evidence is None:
        notes.append(
            f"No size verdicts: {study.name!r} does not say which of its conditions are null (equally good learners). "
            "Declare it with `Provides(evidence=...)` in the study (docs: Write a study, 'provides'), and the "
            "new test gets a size verdict, power and a rank beside the built-in ones."
        )
        return None
    if not {"condition", "replication"} <= set(outcomes.columns):
        notes.append("No size verdicts: the stored outcome rows carry no condition and replication columns.")
        return None
    try:
        truths = study.provides.evidence(run).truths
    except Exception as exc:  # a study's own function: one line, never a traceback
        notes.append(f"No size verdicts: the study's evidence could not be read ({type(exc).__name__}: {exc}).")
        return None
    if not any(v.get("truth") == "null" for v in truths.values()):
        notes.append("No size verdicts: the study's evidence declares no null condition.")
        return None
    return truths


def _procedure_rows(layout, outcomes, stored_decision, found: _Found, alpha: float, notes: list) -> pd.DataFrame:
    """The built-in and the new tests' rows in the proving ground's columns (one procedure per test label), with
    placeholders for the procedures a new test declined."""
    exp = layout.experiment
    variants = [c for c in layout.variants if c in outcomes]

    def frame(rows, test, pvalue, sign, decision_only=False, declined=False):
        return pd.DataFrame(
            {
                "condition": rows["condition"].astype(str).to_numpy(),
                "replication": rows["replication"].to_numpy(),
                "experiment": rows[exp].to_numpy() if exp and exp in rows else 0,
                "design": "",
                "scheme": "",
                "test": test,
                "pvalue": pvalue,
                "sign": sign,
                "decision_only": decision_only,
                "declined": declined,
            }
        )

    parts = []
    p = outcomes["pvalue"].to_numpy(float)
    stored = np.sign(stored_decision.to_numpy(float))
    # the stored p-values re-decide a built-in test at this alpha only where every rejection there was one at the
    # stored level too (whose direction is stored); otherwise its decisions at this alpha are taken as they are
    by_p = not ((np.nan_to_num(p, nan=2.0) <= alpha) & (stored == 0)).any()
    if not by_p:
        notes.append(
            f"alpha {alpha:g} is above the level the built-in tests' directions were stored at: they are judged by "
            "their decisions, without size-adjusted power."
        )
    labels = _joined(outcomes, variants)
    for label in found.builtin:
        sel = labels == label
        rows = outcomes[sel]
        if by_p:
            parts.append(frame(rows, label, p[sel], np.where(stored[sel] != 0, stored[sel], np.nan)))
        else:
            parts.append(frame(rows, label, np.nan, rows["decision"].to_numpy(float), decision_only=True))
    for lab, sch, rows, direction, decision_only in found.new:
        name = lab + (f" / {sch}" if sch else "")
        sign = rows["decision"].to_numpy(float) if decision_only else direction
        parts.append(frame(rows, name, rows["pvalue"].to_numpy(float), sign, decision_only=decision_only))
    frames = pd.concat(parts, ignore_index=True)
    for lab, sch, base in found.declined:  # placeholders: the procedure is listed as declined
        name = lab + (f" / {sch}" if sch else "")
        sel = np.ones(len(outcomes), dtype=bool)
        for k, v in base.items():
            if k in outcomes:
                sel &= outcomes[k].astype(str).to_numpy() == str(v)
        first = outcomes[sel].drop_duplicates(["condition", "replication"])
        frames = pd.concat([frames, frame(first, name, np.nan, np.nan, declined=True)], ignore_index=True)
    return frames.drop_duplicates(["condition", "replication", "experiment", "design", "scheme", "test"])


def _rank_complete_only(board: pd.DataFrame, pr, alpha: float, rule) -> pd.DataFrame:
    """Size-adjusted power and rank only where every calibrated alternative data set gives it: where the stored
    rows do not give the direction of a rejection at the calibrated threshold, the rest would be a selected subset;
    the others are ranked among themselves."""
    from simstudy.apps.proving.summary import leaderboard, twins

    twin = twins(pr)
    incomplete = []
    for proc in pr.p:
        t = pr.truth_of(proc)
        calibrated = int((np.isfinite(t) & (t != 0) & (twin != "")).sum())
        row = board["procedure"] == proc
        if pr.has_pvalues(proc) and int(board.loc[row, "adjusted_units"].iloc[0]) < calibrated:
            incomplete.append(proc)
    if incomplete:
        board.loc[board["procedure"].isin(incomplete), ["adjusted_power", "rank", "tied_with"]] = np.nan
        keep = [q for q in pr.p if q not in incomplete]
        ranked = leaderboard(pr.subset(keep), alpha=alpha, rule=rule).set_index("procedure")
        for col in ("rank", "tied_with"):
            board[col] = board["procedure"].map(ranked[col]).where(~board["procedure"].isin(incomplete))
        board["_incomplete"] = board["procedure"].isin(incomplete)
    return board


def _size_view(board: pd.DataFrame, new_names: list) -> tuple[pd.DataFrame, str]:
    """The rows of the size table as printed: the new tests, then the built-in tests that control size (ranked);
    and a sentence counting the others."""
    from simstudy.apps.proving.sections import _view_board
    from simstudy.statistics.size_control import CONTROLS

    new = board["procedure"].isin(new_names)
    shown = pd.concat([board[new], board[~new & (board["size"] == CONTROLS)].sort_values("rank", kind="stable")])
    cols = [
        "rank",
        "procedure",
        "size",
        "its Type I error %",
        "its data sets",
        "raw power %",
        "size-adjusted power %",
    ]
    view = _view_board(shown).reindex(columns=cols).astype(object)
    if "_incomplete" in shown:
        gap = shown["_incomplete"].fillna(False).to_numpy(bool)
        view.loc[gap, "size-adjusted power %"] = "n/a: directions not stored"
    gone = (shown["size"] == DECLINED).to_numpy()
    view.loc[gone, cols[2:]] = DECLINED
    view["rank"] = view["rank"].fillna("")
    view["procedure"] = [f"**{p}**" if p in new_names else p for p in view["procedure"]]
    others = board[~new & (board["size"] != CONTROLS)]["size"].value_counts()
    rest = (
        "Built-in tests not shown: "
        + ", ".join(f"{n} {v}" for v, n in others.items())
        + " (every row in the saved CSV)."
        if len(others)
        else ""
    )
    return view, rest


# -- paired differences ---------------------------------------------------------------------------------------


def _differences_view(diffs: pd.DataFrame, keep: list, base_cols: list) -> pd.DataFrame:
    """The paired differences against the built-in tests ``keep`` (all when empty), one row per new and built-in
    test and a column per group when there are few groups."""
    d = diffs if not keep else diffs[diffs["built-in"].isin(keep)]
    cell = [
        _fmt_iv(m, lo, hi, rate=False, sign=True, bounds=(-1.0, 1.0))
        for m, lo, hi in zip(d["difference"], d["low"], d["high"])
    ]
    d = d.assign(cell=cell)
    where = pd.Series(_joined(d, base_cols), index=d.index)
    if base_cols and where.nunique() <= 8:
        wide = d.assign(_where=where).pivot_table(
            index=["new test", "built-in"], columns="_where", values="cell", aggfunc="first", sort=False
        )
        wide = wide[list(dict.fromkeys(where))]
        wide.columns = [str(c) for c in wide.columns]
        return wide.reset_index()
    return d[[*base_cols, "new test", "built-in"]].assign(**{"% rejecting, new - built-in": d["cell"]})


def _saved_name(study, names: str, scheme, alpha: float) -> str:
    """The saved copy's name: the study, the tests, the plug-in scheme and alpha (every option that changes it)."""
    import hashlib

    key = f"{study.name}__{names}" + (f"__scheme-{scheme}" if scheme else "") + f"__alpha{alpha:g}"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in key)
    if len(safe) > 120:
        safe = safe[:100] + "_" + hashlib.sha256(key.encode()).hexdigest()[:12]
    return safe


def _bench_text(
    study, layout, tests, *, target, test, scheme, profile, results, out, alpha: float, write: bool, design=None
) -> str:
    """The report of :func:`bench` once the tests are ready (see there)."""
    from simstudy.engine import load_run
    from simstudy.engine.runs import locate_run

    path, profile = locate_run(study, profile, out, root=results, spelled=target if isinstance(target, str) else None)
    run = load_run(study, profile=profile, out=path)
    if "scores" not in run.tables():
        raise InputError(f"STUDY: the run in {path} has no stored scores")
    scores = run.table("scores")
    outcomes = run.table("outcomes")
    stored_decision = outcomes["decision"]
    outcomes = outcomes.assign(decision=_builtin_decisions(outcomes, alpha))
    if design is not None:
        stored = sorted(map(str, scores[layout.design_column].unique())) if layout.design_column else []
        if design not in stored:
            raise InputError(
                f"design: {study.name!r} stores "
                + (f"the designs {', '.join(stored)}" if stored else "one design, named in no column")
                + f", not {design!r}"
            )
    found = _walk(study, layout, tests, scores, outcomes, alpha, design)
    if not found.rows:
        why = "; ".join(f"{k}: {v}" for k, v in found.not_run.items())
        raise InputError(
            f"{option('test')}: {test!r} does not apply to the designs {study.name!r} stores"
            + (f" ({why})" if why else "")
        )
    names = ", ".join(spec.name for spec in tests)
    notes = _design_notes(found, layout, design)
    form, published_labels = _table_form(study, layout, run, outcomes, found, notes)
    board = _size_and_power(study, layout, run, outcomes, stored_decision, found, alpha, notes)
    new_names, declined = _new_test_notes(found, notes)
    text = _bench_head(study, layout, names, profile, alpha) + (
        "".join(f"- {n}\n" for n in notes) + "\n" if notes else ""
    )
    if form:
        text += form + "\n\n"
    if board is not None:
        text += _size_text(board, new_names + declined, alpha)
    text += _per_group_section(found, layout, form)
    if found.diffs:
        text += _differences_section(found, board, published_labels)
    if write:
        _save_bench(run, study, names, scheme, alpha, text, found, board)
    return text


def _design_notes(found, layout, design) -> list[str]:
    """The notes on which stored design each test ran on, and why a test gave no result."""
    notes: list[str] = []
    ran = "; ".join(f"`{k}` on {', '.join(v)}" for k, v in found.ran_on.items())
    if layout.design_column and ran:  # a test that gave no result is said so below, with why
        notes.append(
            f"Designs: {ran} (the stored design each test's input comes from"
            + ("" if design is not None else f"; choose another with {option('design')}")
            + ")."
        )
    for label, why in found.not_run.items():
        if label not in found.ran_on:
            notes.append(f"`{label}` gave no result: {why}.")
    return notes


def _new_test_notes(found, notes: list) -> tuple[list, list]:
    """Add the notes on new tests that never reject, declined or give decisions only; their names and those
    of the declined ones."""

    def name_of(lab, sch):
        return lab + (f" / {sch}" if sch else "")

    new_names = list(dict.fromkeys(name_of(lab, sch) for lab, sch, *_ in found.new))
    rejected = {}
    for lab, sch, rows, _, _ in found.new:
        rejected[name_of(lab, sch)] = rejected.get(name_of(lab, sch), False) or bool((rows["decision"] != 0).any())
    declined = [n for n in dict.fromkeys(name_of(lab, sch) for lab, sch, _ in found.declined)]
    decision_only = list(dict.fromkeys(name_of(lab, sch) for lab, sch, _, _, only in found.new if only))
    silent = [n for n in new_names if not rejected[n]]
    if len(silent) == 1:
        notes.append(
            f"`{silent[0]}` never rejects: it rejected on no replication of any group, so its zero Type I error "
            "says nothing about its size (it is never counted as controlling size, nor ranked)."
        )
    elif silent:  # one line for them all, so that the notes that matter are not lost among them
        notes.append(
            f"{len(silent)} new tests never reject ({', '.join(f'`{n}`' for n in silent)}): they rejected on no "
            "replication of any group, so their zero Type I error says nothing about their size (they are never "
            "counted as controlling size, nor ranked)."
        )
    for n in declined:
        where = "every design" if n not in new_names else "some groups"
        notes.append(f'`{n}` declined {where} (it returned None): its cells read "declined".')
    for n in decision_only:
        notes.append(
            f"`{n}` gives decisions only: it is judged by them, by its own rule at any alpha; what needs p-values "
            '(size-adjusted power, a rank by it) reads "n/a: no p-values".'
        )
    return new_names, declined


def _bench_head(study, layout, names: str, profile: str, alpha: float) -> str:
    unit = layout.unit if layout.unit != "replication" else "replications"
    return (
        f"# {study.title}: `{names}` on the stored replications\n\nProfile `{profile}`, alpha {alpha:g}; the "
        "new test sees exactly the replications (data, partitions and fits) the built-in tests saw, whose "
        "decisions are re-made at this alpha from their stored p-values. Intervals are 95% Monte Carlo "
        f"intervals over the independent units ({unit})"
        + (
            f", the repeated experiments ({layout.experiment}) of a unit averaged first"
            if layout.experiment
            else ", Wilson's for a share of units"
        )
        + "; the mean normalised replicability 2 (R2 - 1/2) is over "
        "the experiments of a unit.\n\n"
    )


def _size_text(board, shown: list, alpha: float) -> str:
    from simstudy.statistics.size_control import SizeRule

    view, rest = _size_view(board, shown)
    text = (
        "### Size and power\n\nJudged as `simstudy proving-ground` judges: the size verdict from the study's "
        f"null conditions ({SizeRule(alpha=alpha).describe()}), raw power on its alternatives, and "
        "size-adjusted power on those a null condition calibrates (a rejection at the threshold that gives "
        "the test a Type I error of at most alpha there); rank among the tests that control size, by "
        "size-adjusted power, ties where the paired interval covers 0.\n\n" + markdown_table(view)
    )
    return text + ("\n\n" + rest if rest else "") + "\n\n"


def _per_group_section(found, layout, form) -> str:
    table = pd.DataFrame(found.rows)
    if form:  # the built-in tests are in the published table's form above
        table = table[table["test"].str.startswith("**")]
    for col in ("% rejecting", "% A better", "mean norm. R2"):
        if col in table:
            table[col] = table[col].where(table[col].notna(), DECLINED)
    if not table["scheme"].astype(bool).any():
        table = table.drop(columns="scheme")
    if "published" in table and not table["published"].astype(bool).any():
        table = table.drop(columns="published")
    groups = ", ".join(layout.groups) or "the study"
    return f"### Per {groups}\n\n" + markdown_table(table)


def _differences_section(found, board, published_labels) -> str:
    """The paired differences of the rejection rate, new minus the built-in tests worth comparing with."""
    diffs = pd.DataFrame(found.diffs)
    base_cols = [c for c in diffs.columns if c not in ("new test", "built-in", "difference", "low", "high")]
    keep, against = [], "every built-in test"
    if published_labels:
        keep, against = published_labels, "the tests the study publishes numbers for"
    elif board is not None:
        from simstudy.statistics.size_control import CONTROLS

        controls = [p for p in board.loc[board["size"] == CONTROLS, "procedure"] if p in found.builtin]
        if controls:
            keep, against = controls, "the built-in tests that control size"
    if keep:  # and, for every new test, the built-in test whose decisions are nearest to its own
        nearest = diffs.assign(gap=diffs["difference"].abs()).groupby(["new test", "built-in"], sort=False)["gap"]
        near = nearest.mean().reset_index().sort_values("gap", kind="stable").groupby("new test", sort=False)
        extra = [b for b in near["built-in"].first() if b not in keep]
        keep = keep + list(dict.fromkeys(extra))
        against += " and the built-in test nearest to each new one"
    view = _differences_view(diffs, keep, base_cols)
    total = diffs["built-in"].nunique()
    return (
        f"\n\nPaired differences of the rejection rate, new minus built-in, per unit, against {against}"
        + (f" ({len(keep)} of {total} built-in tests; all in the saved CSV)" if keep and len(keep) < total else "")
        + ":\n\n"
        + markdown_table(view)
    )


def _save_bench(run, study, names: str, scheme, alpha: float, text: str, found, board) -> None:
    """The report and its rows beside the run, never into its chunks or manifest; a read-only store just skips
    this."""
    stem = _saved_name(study, names, scheme, alpha)
    try:
        # a link there is refused, never written through
        outdir = folder_below(run.path, "bench", option=option("out"))
        write_atomic(outdir / f"{stem}.md", text + "\n")
        if found.new:  # the new tests' outcome rows, as the study's own are stored
            buf = io.BytesIO()
            pd.concat([rows for *_, rows, _, _ in found.new], ignore_index=True).to_parquet(buf, index=False)
            write_atomic(outdir / f"{stem}.parquet", buf.getvalue())
        if found.diffs:
            write_atomic(outdir / f"{stem}__differences.csv", pd.DataFrame(found.diffs).to_csv(index=False))
        if board is not None:
            write_atomic(outdir / f"{stem}__size.csv", board.to_csv(index=False))
    except OSError:
        pass
