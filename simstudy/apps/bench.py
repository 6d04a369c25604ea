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
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._files import DEFAULT_ROOT, write_atomic
from simstudy._lazy import lazy_module
from simstudy.outputs.tables import markdown_table
from simstudy.pipeline.outcomes import get_test, run_test, test_names
from simstudy.pipeline.scores import PairedScores
from simstudy.statistics.intervals import mean_interval, wilson
from simstudy.statistics.replicability import normalized, r2

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["TARGETS", "bench"]

# Names the command line accepted before every study could be benchmarked; kept as aliases.
TARGETS = {
    "bouckaert-table1": "bouckaert1",
    "bouckaert-table2": "bouckaert2",
    "berrar3": "berrar3",
    "berrar4": "berrar4",
    "bouckaert-frank": "bouckaert_frank",
}

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
            raise ValueError(
                f"scores: the stored scores of {where} do not form complete "
                f"{n_u} x {n_e} x {runs} x {folds} blocks ({len(rows)} rows)"
            )
        n_train = n_test = None
        if layout.sizes is not None:
            n_train, n_test = layout.sizes(rows, design)
        self.scores = PairedScores(
            rows[a].to_numpy(float).reshape(shape),
            rows[b].to_numpy(float).reshape(shape),
            n_train=n_train,
            n_test=n_test,
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


def _published(study, fields: dict) -> str:
    """The study's published numbers whose location matches these fields (test, scheme, group, pair)."""
    found = []
    for p in study.publication.values:
        where = dict(p.where)
        if where and all(k in fields and str(fields[k]) == str(v) for k, v in where.items()):
            found.append(f"{p.column} {p.value:g}")
    return "; ".join(found)


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
        raise ValueError(
            "--scheme: a plug-in scheme goes with a plug-in test; registered tests run on the study's own schemes"
        )
    return [get_test(n) for n in names]


def _run(spec, block: _Block, scheme_name, alpha: float):
    """The test's result on a block's scores, its decisions shaped (units, experiments); None where the stored
    design does not fit it (e.g. 5 x 2 folds, or no split sizes for a corrected test)."""
    from simstudy.pipeline.plugins import PluginError

    if spec.sizes and block.scores.n_train is None:
        return None
    try:
        res = run_test(spec, block.scores, scheme=scheme_name if spec.takes == "sample" else None)
    except PluginError:
        raise
    except ValueError:
        return None
    shape = block.scores.acc_a.shape[:2]
    return res, np.asarray(res.decision(alpha)).reshape(shape)


def _outcome_rows(base: dict, block: _Block, label: str, scheme_name, res, dec) -> pd.DataFrame:
    """The new test's outcome rows on one block: one per unit and experiment, as a study stores them."""
    shape = dec.shape
    units = np.repeat(np.asarray(block.units, dtype=object), shape[1])
    cols = {**base, block.layout.unit: units}
    if block.layout.experiment:
        cols[block.layout.experiment] = np.tile(np.asarray(block.experiments, dtype=object), shape[0])
    cols.update(
        {
            "scheme": scheme_name or "",
            "test": label,
            "statistic": np.broadcast_to(np.asarray(res.statistic, dtype=float), shape).ravel(),
            "pvalue": np.broadcast_to(np.asarray(res.pvalue, dtype=float), shape).ravel(),
            "decision": dec.ravel().astype(np.int8),
        }
    )
    return pd.DataFrame(cols)


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
) -> str:
    """Run a test on the stored replications of a study, beside its built-in tests.

    Parameters
    ----------
    target : str, path or Study
        A study that declares ``paired_scores`` (name, path to a study file, or
        one of the older target names in :data:`TARGETS`).
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

    alpha = check_alpha(alpha, "--alpha")
    study = get_study(TARGETS.get(target, target) if isinstance(target, str) else target)
    layout = study.provides.paired_scores
    if layout is None:
        raise ValueError(
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
            profile=profile,
            results=results,
            out=out,
            alpha=alpha,
            write=write,
        )


def _bench_text(study, layout, tests, *, target, test, profile, results, out, alpha: float, write: bool) -> str:
    """The report of :func:`bench` once the tests are ready (see there)."""
    from simstudy.engine import load_run
    from simstudy.engine.runs import locate_run

    path, profile = locate_run(
        study, profile, out, root=results, spelled=target if isinstance(target, str) and target not in TARGETS else None
    )
    run = load_run(study, profile=profile, out=path)
    if "scores" not in run.tables():
        raise ValueError(f"STUDY: the run in {path} has no stored scores")
    scores = run.table("scores")
    outcomes = run.table("outcomes")
    outcomes = outcomes.assign(decision=_builtin_decisions(outcomes, alpha))
    variants = [c for c in layout.variants if c in outcomes]
    schemes = list(dict.fromkeys(outcomes["scheme"])) if "scheme" in outcomes else [None]
    groups = list(layout.groups)

    rows, diffs, outcome_parts = [], [], []
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
            blocks = {}

            def block_for(kind):
                design = layout.designs.get(kind, _DEFAULT_DESIGNS[kind]) if layout.design_column else None
                if design not in blocks:
                    sel = grows if design is None else grows[grows[layout.design_column] == design]
                    blocks[design] = _Block(sel, layout, a, b, design) if len(sel) else None
                return blocks[design]

            base = {**gfields, **({"pair": pair} if len(pairs) > 1 or layout.pair_column else {})}
            new = {}
            for spec in tests:
                label = spec.name
                kind = spec.takes
                blk = block_for(kind if kind in _DEFAULT_DESIGNS else "cv")
                if blk is None:
                    continue
                # a registered sample test runs on each scheme the study uses; a plug-in makes its own sample
                for sch in schemes if spec.takes == "sample" else [None]:
                    got = _run(spec, blk, sch, alpha)
                    if got is None:
                        continue
                    res, dec = got
                    sch_label = sch if spec.takes == "sample" else None
                    new[(label, sch_label)] = (dec, blk)
                    outcome_parts.append(_outcome_rows(base, blk, label, sch_label, res, dec))
                    rows.append(
                        {**base, "test": f"**{label}**", "scheme": sch_label or "", **_summary(dec), "published": ""}
                    )
            for vkey, vout in pout.groupby(variants, sort=False):
                vkey = vkey if isinstance(vkey, tuple) else (vkey,)
                vfields = dict(zip(variants, vkey))
                blk = next((x for x in blocks.values() if x is not None), None) or block_for("cv")
                if blk is None:
                    continue
                old = blk.decisions_of(vout)
                if np.isnan(old.astype(float)).any():
                    continue  # this built-in test was not stored for every unit (e.g. another level)
                label = " / ".join(str(v) for v in vkey)
                rows.append(
                    {
                        **base,
                        "test": label,
                        "scheme": "",
                        **_summary(old),
                        "published": _published(study, {**gfields, **vfields, "pair": pair}),
                    }
                )
                for (nlabel, nsch), (dec, nblk) in new.items():
                    if dec.shape != old.shape:
                        continue
                    if nsch is not None and "scheme" in vfields and vfields["scheme"] != nsch:
                        continue
                    d = (dec != 0).mean(axis=1) - (old != 0).mean(axis=1)
                    diffs.append(
                        {
                            **base,
                            "new test": nlabel + (f" / {nsch}" if nsch else ""),
                            "built-in": label,
                            "% rejecting, new - built-in": _fmt_iv(
                                *map(float, mean_interval(d)), rate=False, sign=True, bounds=(-1.0, 1.0)
                            ),
                        }
                    )
    if not rows:
        raise ValueError(f"--test: {test!r} does not apply to the designs {study.name!r} stores")
    table = pd.DataFrame(rows)
    if not table["scheme"].astype(bool).any():
        table = table.drop(columns="scheme")
    if not table["published"].astype(bool).any():
        table = table.drop(columns="published")
    names = ", ".join(spec.name for spec in tests)
    unit = layout.unit if layout.unit != "replication" else "replications"
    head = (
        f"# {study.title}: `{names}` on the stored replications\n\nProfile `{profile}`, alpha {alpha}; the "
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
    text = head + markdown_table(table)
    if diffs:
        text += "\n\nPaired differences, new minus built-in, per unit:\n\n" + markdown_table(pd.DataFrame(diffs))
    if write:  # beside the run, never into its chunks or manifest; a read-only store just skips this
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in names)[:80]
        try:
            outdir = Path(run.path) / "bench"
            outdir.mkdir(exist_ok=True)
            write_atomic(outdir / f"{study.name}__{safe}.md", text + "\n")
            if outcome_parts:  # the new tests' outcome rows, as the study's own are stored
                buf = io.BytesIO()
                pd.concat(outcome_parts, ignore_index=True).to_parquet(buf, index=False)
                write_atomic(outdir / f"{study.name}__{safe}.parquet", buf.getvalue())
        except OSError:
            pass
    return text
