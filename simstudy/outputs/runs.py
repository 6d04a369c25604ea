"""Stored results as pandas DataFrames, and paired scores for other packages.

A finished (or partly finished) run of ``simstudy run`` lives in a run directory
(``results/STUDY/PROFILE`` unless ``--out`` named another).  This module reads
it without simulating again:

:func:`load`
    the stored rows of one table (``outcomes``, ``scores``, ``failures`` or
    whatever the study returns) as one tidy DataFrame: one row per condition x
    replication x observation, the condition's fields in every row.
:func:`paired_scores`
    the per-split accuracies of the two learners of every pair, in one long
    table with the training and test sizes of a split, for any study that
    declares where they are (its ``paired_scores``
    :class:`~simstudy.pipeline.scores.ScoreLayout`).
:func:`baycomp_arrays`
    one block of those scores as the two arrays (one data set) or the two
    matrices (several data sets) that the ``baycomp`` package compares.
:func:`correctr_frame`
    the same scores in the long layout of the R package ``correctR``
    (columns ``model``, ``values``, ``k``, ``r``, with ``n1`` and ``n2``).
:func:`export`
    writes all of these to CSV or Parquet files.

Example
-------
>>> from simstudy.outputs import runs as results
>>> outcomes = results.load("demo", "smoke")                     # doctest: +SKIP
>>> outcomes.groupby(["mu", "scheme", "test"])["decision"].apply(lambda d: (d != 0).mean())  # doctest: +SKIP
>>> scores = results.paired_scores("demo", "smoke")              # doctest: +SKIP
>>> x, y = results.baycomp_arrays(scores[scores.mu == 0.8])      # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import InputError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["load", "tables", "paired_scores", "baycomp_arrays", "correctr_frame", "export", "FORMATS"]

FORMATS = ("csv", "parquet")

# Columns of paired_scores() that say which block a score belongs to, beside the study's group columns.
_BLOCK = ("pair", "design", "experiment")


def _run(study, profile, out):
    from simstudy.engine import get_study, load_run

    study = get_study(study)
    return study, load_run(study, profile=profile, out=out)


def load(study, profile: str = "quick", *, out=None, table: str = "outcomes") -> pd.DataFrame:
    """The stored rows of one table of a run, as a tidy DataFrame.

    Parameters
    ----------
    study : str, path or Study
        A study name (``"berrar1"``), the path of a study file, or a
        :class:`~simstudy.engine.Study`.
    profile : str
        The stored profile to read (``smoke``, ``quick`` or ``paper``).
    out : str or path, optional
        The run directory, when it is not ``results/STUDY/PROFILE``.
    table : str
        Which table: ``"outcomes"`` (one row per replication, test and
        scheme, with ``statistic``, ``pvalue`` and ``decision``), ``"scores"``
        (the paired per-split accuracies), ``"failures"`` or any other table the
        study stores (see :func:`tables`).

    Returns
    -------
    pandas.DataFrame
        One row per stored observation, in the canonical order (conditions as
        declared, then replications), the same whatever the number of workers or
        interruptions.  Every row carries ``study``, ``condition``, the
        condition's fields and ``replication``; ``profile`` is added.  Only
        chunks that pass their checksums are read, so a run still in progress
        gives the replications finished so far.

    Raises
    ------
    ValueError
        No stored run of that study and profile, or a run directory holding
        another study or another configuration.
    KeyError
        The run stores no rows of ``table`` (the message lists those it has).
    """
    _, run = _run(study, profile, out)
    frame = run.table(table).copy()
    if "profile" not in frame:
        frame.insert(min(1, frame.shape[1]), "profile", run.manifest["profile"])
    return frame


def tables(study, profile: str = "quick", *, out=None) -> list[str]:
    """The names of the tables a stored run holds.

    Parameters
    ----------
    study : str, path or Study
        As for :func:`load`.
    profile : str
        The stored profile.
    out : str or path, optional
        The run directory, when it is not ``results/STUDY/PROFILE``.

    Returns
    -------
    list of str
        Sorted table names, e.g. ``["outcomes", "scores"]``.
    """
    return _run(study, profile, out)[1].tables()


def _axes_of(rows: pd.DataFrame, layout) -> tuple[pd.Series, pd.Series]:
    """The run and fold index of every stored score (a layout with one axis has run 0)."""
    axes = list(layout.axes)
    fold = rows[axes[-1]]
    if len(axes) == 2:
        run = rows[axes[0]]
    else:
        run = pd.Series(0, index=rows.index)
    # positions 0..n-1 even if the stored labels are names (e.g. a data set)
    return (
        run.groupby(run, sort=False).ngroup() if not np.issubdtype(run.dtype, np.integer) else run,
        fold.groupby(fold, sort=False).ngroup() if not np.issubdtype(fold.dtype, np.integer) else fold,
    )


def paired_scores(study, profile: str = "quick", *, out=None) -> pd.DataFrame:
    """The paired per-split accuracies of a run, one row per split of every pair of learners.

    Parameters
    ----------
    study : str, path or Study
        A study that declares ``paired_scores`` (see
        :class:`~simstudy.pipeline.scores.ScoreLayout`); all built-in studies with
        per-split scores do (``demo``, ``berrar3``, ``berrar4``, ``bouckaert1``,
        ``bouckaert2``, ``bouckaert_factors``, ``bouckaert_frank``,
        ``bouckaert_frank_uci``).
    profile : str
        The stored profile.
    out : str or path, optional
        The run directory, when it is not ``results/STUDY/PROFILE``.

    Returns
    -------
    pandas.DataFrame
        Columns: the study's group columns (e.g. ``source`` or ``q``), then

        ``pair``
            label of the pair of learners, ``"A-B"`` style;
        ``design``
            the resampling design of the split (studies that store several
            per replication; otherwise missing);
        ``unit``
            the independent unit of the Monte Carlo intervals (the replication,
            or the data set where replications repeat an experiment on fixed
            data);
        ``experiment``
            the repetition of the experiment on one unit (0 where the study
            does not repeat experiments);
        ``run``, ``fold``
            position of the split in the unit's r x k design (run 0 for a
            single cross-validation or a set of random splits);
        ``score_a``, ``score_b``
            accuracy of the pair's first and second learner on that split;
        ``n_train``, ``n_test``
            training and test size of one split (what the variance-corrected
            tests need).

    Raises
    ------
    ValueError
        The study declares no ``paired_scores``, or its run has no ``scores`` table.
    """
    study, run = _run(study, profile, out)
    layout = study.provides.paired_scores
    if layout is None:
        raise InputError(
            f"study {study.name!r} declares no paired_scores layout, so its per-split scores cannot be read back"
        )
    if "scores" not in run.tables():
        raise InputError(f"study {study.name!r}: the run in {run.path} has no stored scores table")
    rows = run.table("scores")
    groups = list(layout.groups)
    parts = []
    group_iter = rows.groupby(groups, sort=False) if groups else [((), rows)]
    for gkey, grows in group_iter:
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        complete = [c for c in grows.columns if grows[c].notna().all()]
        designs = list(dict.fromkeys(grows[layout.design_column])) if layout.design_column else [None]
        for design in designs:
            drows = grows if design is None else grows[grows[layout.design_column] == design]
            n_train = n_test = np.nan
            if layout.sizes is not None:
                n_train, n_test = layout.sizes(drows, design)
            run_ix, fold_ix = _axes_of(drows, layout)
            for pair, (a, b) in layout.pairs_of(complete).items():
                part = {g: drows[g].to_numpy() for g in groups}
                part.update(
                    {
                        "pair": pair,
                        "design": design,
                        "unit": drows[layout.unit].to_numpy(),
                        "experiment": drows[layout.experiment].to_numpy() if layout.experiment else 0,
                        "run": run_ix.to_numpy(),
                        "fold": fold_ix.to_numpy(),
                        "score_a": drows[a].to_numpy(float),
                        "score_b": drows[b].to_numpy(float),
                        "n_train": n_train,
                        "n_test": n_test,
                    }
                )
                parts.append(pd.DataFrame(part, index=drows.index))
    frame = pd.concat(parts, ignore_index=True)
    order = groups + ["pair", "design", "unit", "experiment", "run", "fold"]
    return frame.sort_values(order, kind="stable", na_position="first").reset_index(drop=True)


def _one_block(scores: pd.DataFrame, what: str) -> pd.DataFrame:
    """Refuse a paired-scores frame that mixes pairs, designs, groups or experiments."""
    required = {"unit", "run", "fold", "score_a", "score_b"}
    missing = required - set(scores.columns)
    if missing:
        raise InputError(
            f"scores: expected the frame of simstudy.outputs.runs.paired_scores, missing columns "
            f"{', '.join(sorted(missing))}"
        )
    if scores.empty:
        raise InputError("scores: no rows (did the selection match nothing?)")
    skip = {"unit", "run", "fold", "score_a", "score_b", "n_train", "n_test"}
    mixed = [c for c in scores.columns if c not in skip and scores[c].nunique(dropna=False) > 1]
    if mixed:
        raise InputError(
            f"scores: {what} takes one block of paired scores; select one value of "
            f"{', '.join(mixed)} first (e.g. scores[scores.{mixed[0]} == ...])"
        )
    return scores.sort_values(["unit", "run", "fold"], kind="stable")


def baycomp_arrays(scores: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """One block of paired scores as the arrays ``baycomp`` compares.

    Parameters
    ----------
    scores : pandas.DataFrame
        Rows of :func:`paired_scores` for one group, pair, design and
        experiment (every other column constant); they may cover one unit or
        several.

    Returns
    -------
    x, y : ndarray of shape (n_units, n_runs * n_folds)
        Accuracy of the first and second learner, one row per unit (data set),
        the splits of a unit in run-major order (run 0's folds first).  For one
        data set pass ``x[0], y[0]`` to ``baycomp.two_on_single(..., runs=n_runs)``
        (the correlated Bayesian t-test; baycomp takes ``runs / len(x)`` as the
        correlation of two splits, so for resampled splits, stored as runs of
        one fold, pass ``runs = len(x) * n_test / (n_train + n_test)`` instead:
        about 1 for ten 90/10 splits); for several, pass the matrices to
        ``baycomp.two_on_multiple(..., runs=n_runs)`` (the hierarchical model), or
        their row means for the signed-rank test on data-set means.

    Raises
    ------
    ValueError
        The frame mixes blocks, or its units do not all have the same splits.
    """
    block = _one_block(scores, "baycomp_arrays")
    units = list(dict.fromkeys(block["unit"]))
    sizes = block.groupby("unit", sort=False).size()
    if sizes.nunique() != 1:
        raise InputError(f"scores: the units have different numbers of splits ({sorted(set(sizes))})")
    shape = (len(units), int(sizes.iloc[0]))
    return block["score_a"].to_numpy(float).reshape(shape), block["score_b"].to_numpy(float).reshape(shape)


def correctr_frame(scores: pd.DataFrame, *, models: tuple[str, str] | None = None) -> pd.DataFrame:
    """Paired scores in the long layout of the R package ``correctR``.

    ``correctR::repkfold_ttest(data, n1, n2, k, r)`` takes a data frame with the
    columns ``model``, ``values``, ``k`` (fold, from 1) and ``r`` (run, from 1);
    ``kfold_ttest`` and ``resampled_ttest`` take the two models' ``values`` as
    vectors.  The training and test sizes ``n1`` and ``n2`` are columns too.

    Parameters
    ----------
    scores : pandas.DataFrame
        Rows of :func:`paired_scores`, any number of blocks.
    models : (str, str), optional
        Labels of the first and second learner in ``model``; by default the
        two halves of the ``pair`` label (``"NB-C4.5"`` gives ``NB`` and
        ``C4.5``).

    Returns
    -------
    pandas.DataFrame
        Two rows per split (one per model): the block columns of ``scores``
        (groups, ``pair``, ``design``, ``unit``, ``experiment``), then
        ``model``, ``values``, ``k``, ``r``, ``n1`` (training size) and ``n2``
        (test size).  Select one block (and one unit) before calling
        ``repkfold_ttest`` on it with ``k = max(k)`` and ``r = max(r)``.
    """
    missing = {"pair", "run", "fold", "score_a", "score_b"} - set(scores.columns)
    if missing:
        raise InputError(
            f"scores: expected the frame of simstudy.outputs.runs.paired_scores, missing columns "
            f"{', '.join(sorted(missing))}"
        )
    keys = [c for c in scores.columns if c not in ("run", "fold", "score_a", "score_b", "n_train", "n_test")]
    out = []
    for which, column in ((0, "score_a"), (1, "score_b")):
        if models is not None:
            label = pd.Series(models[which], index=scores.index)
        else:
            label = scores["pair"].astype(str).str.split("-", n=1).str[which].fillna("AB"[which])
        out.append(
            scores[keys].assign(
                model=label.to_numpy(),
                values=scores[column].to_numpy(float),
                k=scores["fold"].to_numpy() + 1,
                r=scores["run"].to_numpy() + 1,
                n1=scores.get("n_train", np.nan),
                n2=scores.get("n_test", np.nan),
                _order=which,
            )
        )
    frame = pd.concat(out, ignore_index=True)
    return (
        frame.sort_values(keys + ["_order", "r", "k"], kind="stable", na_position="first")
        .drop(columns="_order")
        .reset_index(drop=True)
    )


def _write(frame: pd.DataFrame, path: Path, fmt: str) -> Path:
    from simstudy._files import write_atomic

    if fmt == "csv":
        return write_atomic(path, frame.to_csv(index=False), fsync=False)
    import io

    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return write_atomic(path, buf.getvalue(), fsync=False)


def export(
    study, profile: str = "quick", *, to, out=None, format: str = "csv", which: tuple[str, ...] | None = None
) -> list[Path]:
    """Write a run's stored tables and its paired scores to files.

    Parameters
    ----------
    study : str, path or Study
        As for :func:`load`.
    profile : str
        The stored profile.
    to : str or path
        Directory to write into (created if needed); existing files of the same
        names are replaced, each atomically.
    out : str or path, optional
        The run directory, when it is not ``results/STUDY/PROFILE``.
    format : {"csv", "parquet"}
        File format.
    which : tuple of str, optional
        What to write: names of stored tables, ``"paired_scores"`` and
        ``"correctr"``.  By default every stored table, and the two
        paired-score layouts when the study declares ``paired_scores``.

    Returns
    -------
    list of pathlib.Path
        The files written, ``TO/STUDY__PROFILE__NAME.csv`` (or ``.parquet``).

    Raises
    ------
    ValueError
        An unknown format or name, or no stored run.
    """
    if format not in FORMATS:
        raise InputError(f"format: must be one of {', '.join(FORMATS)}, got {format!r}")
    study_obj, run = _run(study, profile, out)
    stored = run.tables()
    extra = ["paired_scores", "correctr"] if study_obj.provides.paired_scores is not None and "scores" in stored else []
    names = list(which) if which is not None else stored + extra
    unknown = [n for n in names if n not in stored and n not in ("paired_scores", "correctr")]
    if unknown:
        raise InputError(
            f"which: the run holds no {', '.join(map(repr, unknown))} "
            f"(tables: {', '.join(stored)}; also paired_scores, correctr)"
        )
    target = Path(to)
    target.mkdir(parents=True, exist_ok=True)
    written, scores = [], None
    for name in names:
        if name in ("paired_scores", "correctr"):
            if scores is None:
                scores = paired_scores(study_obj, run.manifest["profile"], out=run.path)
            frame = scores if name == "paired_scores" else correctr_frame(scores)
        else:
            frame = load(study_obj, run.manifest["profile"], out=run.path, table=name)
        written.append(_write(frame, target / f"{study_obj.name}__{run.manifest['profile']}__{name}.{format}", format))
    return written
