"""Paired scores: the accuracy of every learner on every split, each learner fitted once per split.

Every test and every pair of learners of a replication is then computed from
these arrays, so all of them see the same folds and the same fits.

A learner may offer ``fold_predictions(X, y, fold_ids)``: the predictions of the
models fitted without each fold, for all runs at once, or None when it has no
such shortcut for the data at hand.  J48 and NaiveBayes have one for all-nominal
data (compiled, with the same predictions as fitting fold by fold); every other
case fits one model per fold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import InputError, option

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "PairedScores",
    "ScoreLayout",
    "scores_frame",
    "holdout_accuracies",
    "split_accuracies",
    "resample_accuracies",
    "cv_accuracies",
    "cv_scores",
    "check_metric",
    "cv_paired_scores",
    "fold_predictions",
]


@dataclass(frozen=True)
class PairedScores:
    """What a plug-in test receives: paired per-fold accuracies of many replications.

    Attributes
    ----------
    acc_a, acc_b : ndarray, shape (..., n_runs, n_folds)
        Accuracy of classifier A and B on every fold of every run.
    n_train, n_test : int
        Training and test set sizes of one fold.
    sample : ndarray of shape (..., m) or None
        The sample of the chosen sampling scheme (``--scheme``), else None.
    n01, n10 : ndarray of shape (..., n_runs, n_folds) or None
        Where the per-case results are kept: on every fold, the number of test
        cases B classifies correctly and A wrongly (``n01``) and A correctly
        and B wrongly (``n10``), McNemar's discordant counts; None when only
        accuracies are known.
    """

    acc_a: np.ndarray
    acc_b: np.ndarray
    n_train: int
    n_test: int
    sample: np.ndarray | None = None
    n01: np.ndarray | None = None
    n10: np.ndarray | None = None

    @property
    def diffs(self) -> np.ndarray:
        """A - B per fold, shape (..., n_runs, n_folds)."""
        return self.acc_a - self.acc_b

    @property
    def n_runs(self) -> int:
        """Number of runs (the second axis from the end)."""
        return self.acc_a.shape[-2]

    @property
    def n_folds(self) -> int:
        """Number of folds (the last axis)."""
        return self.acc_a.shape[-1]


@dataclass(frozen=True)
class ScoreLayout:
    """Where a study's stored ``scores`` table keeps its paired scores, so they can be read back.

    With a layout, ``simstudy bench`` runs any test on a study's stored
    replications (no refitting) and sets it beside the study's built-in tests.

    Attributes
    ----------
    groups : tuple of str
        Columns whose values make one block of results (e.g. ``("source",)``).
    unit : str
        Column of the independent units of the Monte Carlo intervals: the
        replication, or the data set when the replications repeat an experiment
        on one fixed data set.
    experiment : str or None
        Column of the repeated experiments on one unit (replicability is about
        their agreement), or None.
    axes : tuple of str
        The one or two sample axes of a replication's scores (e.g. ``("run",
        "fold")``, or ``("fold",)``, or ``("dataset",)`` for one score per data set).
    pairs : mapping of label -> (column of A, column of B), or None
        The pairs of learners.  None: every pair of the ``acc_<name>`` columns in
        column order (A the earlier), labelled ``A-B``, or the single pair
        ``acc_a``/``acc_b`` when those are the columns.
    pair_column : str or None
        Column of the outcome rows that names the pair (None: one pair).
    variants : tuple of str
        Columns of the outcome rows that tell the built-in tests apart (the
        test label, and e.g. the scheme).
    design_column : str or None
        Column naming the design of each score, when a replication stores
        several (Bouckaert and Frank); ``designs`` maps a test's input kind
        (see :data:`simstudy.pipeline.outcomes.INPUTS`) to the design it takes.
    sizes : callable(rows, design) -> (n_train, n_test), or None
        Training and test sizes of one split, from the stored rows of one
        group (condition fields are in every row) and the design name.
    """

    groups: tuple = ()
    unit: str = "replication"
    experiment: str | None = None
    axes: tuple = ("run", "fold")
    pairs: Mapping | None = None
    pair_column: str | None = None
    variants: tuple = ("test", "scheme")
    design_column: str | None = None
    designs: Mapping = field(default_factory=dict)
    sizes: Callable | None = None

    def pairs_of(self, columns) -> dict:
        """The pairs of learners present in a scores table with these columns."""
        if self.pairs is not None:
            return dict(self.pairs)
        acc = [c for c in columns if c.startswith("acc_")]
        if set(acc) == {"acc_a", "acc_b"}:
            return {"A-B": ("acc_a", "acc_b")}
        return {f"{a[4:]}-{b[4:]}": (a, b) for i, a in enumerate(acc) for b in acc[i + 1 :]}


def scores_frame(acc: np.ndarray, columns, axes=("experiment", "run", "fold"), dtype=None) -> pd.DataFrame:
    """Paired scores in long format: one row per cell of the leading ``axes``, one column per learner.

    ``acc`` has shape ``(*axes sizes, L)``; ``columns`` names the L accuracy columns.

    Parameters
    ----------
    acc : ndarray, shape ``(*sizes, L)``
        Accuracies, one per cell of the axes and learner.
    columns : sequence of str
        Names of the L accuracy columns (``acc_a``, ``acc_b`` or ``acc_<learner>``).
    axes : sequence of str
        Names of the leading axes.
    dtype : dtype, optional
        Type of the axis columns (default: int64).

    Returns
    -------
    pandas.DataFrame
        The axis columns, then the accuracy columns, in row-major order.
    """
    grids = np.meshgrid(*[np.arange(s) for s in acc.shape[:-1]], indexing="ij")
    data = {a: (g.ravel() if dtype is None else g.ravel().astype(dtype)) for a, g in zip(axes, grids)}
    data.update({c: acc[..., j].ravel() for j, c in enumerate(columns)})
    return pd.DataFrame(data)


def kfold_sizes(rows, design=None) -> tuple[int, int]:
    """``(n_train, n_test)`` of a k-fold cv from the ``n_cases`` and ``n_folds`` fields of stored rows."""
    from simstudy.pipeline.designs import RepeatedKFold

    return RepeatedKFold(1, int(rows["n_folds"].iloc[0])).sizes(int(rows["n_cases"].iloc[0]))


def split_accuracies(X, y, train, test, learners) -> np.ndarray:
    """Accuracy of each learner (a factory returning an unfitted estimator) on one split: shape (L,).

    Parameters
    ----------
    X, y : ndarray
        The data.
    train, test : ndarray of int
        Indices of the split.
    learners : sequence of callable
        Factories of unfitted learners.

    Returns
    -------
    ndarray, shape (L,)
    """
    return np.array([np.mean(make().fit(X[train], y[train]).predict(X[test]) == y[test]) for make in learners])


def fold_predictions(X, y, fold_ids, make, *, fit_predict=None) -> np.ndarray:
    """Predicted class of every held-out case: shape (runs, n), -1 where ``fold_ids`` is -1.

    ``fold_ids`` (runs, n) gives each case's fold in each run; a case with fold -1
    is always training and never held out (a resampling split is one run with the
    test cases in fold 0 and the rest at -1).  ``make`` returns an unfitted learner.

    Parameters
    ----------
    X, y : ndarray
        The data.
    fold_ids : ndarray of int, shape (runs, n) or (n,)
        Fold of every case in every run.
    make : callable
        Factory of an unfitted learner.
    fit_predict : callable, optional
        ``fit_predict(make, train, test)``: the predictions for the rows
        ``test`` of ``make()`` fitted on the rows ``train``, made elsewhere
        (e.g. in a worker process with a time limit, see :func:`simstudy.apps.assess.assess`);
        every fit then goes through it, and a learner's own ``fold_predictions``
        shortcut is not used.  Default: fitted here.

    Returns
    -------
    ndarray, shape (runs, n)
    """
    fold_ids = np.atleast_2d(np.asarray(fold_ids))
    y = np.asarray(y)
    if fit_predict is None:
        shortcut = getattr(make(), "fold_predictions", None)
        pred = shortcut(X, y, fold_ids) if shortcut is not None else None
        if pred is not None:
            return pred
    pred = np.full(fold_ids.shape, -1, dtype=np.int64)
    for r, ids in enumerate(fold_ids):
        for f in range(int(ids.max()) + 1):
            test = np.flatnonzero(ids == f)
            train = np.flatnonzero(ids != f)
            if fit_predict is None:
                pred[r, test] = make().fit(X[train], y[train]).predict(X[test])
            else:
                pred[r, test] = fit_predict(make, train, test)
    return pred


def _accuracy_per_fold(pred, y, fold_ids):
    """(runs, folds) share of correct predictions in each fold (folds numbered 0..max)."""
    n_folds = int(fold_ids.max()) + 1
    runs = fold_ids.shape[0]
    correct = (pred == np.asarray(y)[None, :]).astype(float)
    held = fold_ids >= 0
    cell = (np.arange(runs)[:, None] * n_folds + fold_ids)[held]
    size = np.bincount(cell, minlength=runs * n_folds)
    with np.errstate(invalid="ignore", divide="ignore"):  # a run with fewer folds: NaN for the missing ones
        out = np.bincount(cell, weights=correct[held], minlength=runs * n_folds) / size
    return out.reshape(runs, n_folds)


def cv_accuracies(X, y, fold_ids, learners, *, fit_predict=None) -> np.ndarray:
    """Accuracy of each learner on each fold of each run: shape (n_runs, n_folds, L).

    ``fold_ids`` has shape (n_runs, n) as made by :func:`simstudy.pipeline.splits.repeated_fold_ids`;
    every run must use the same number of folds.

    Parameters
    ----------
    X, y : ndarray
        The data.
    fold_ids : ndarray of int, shape (n_runs, n)
        Fold of every case in every run.
    learners : sequence of callable
        Factories of unfitted learners (see
        :func:`simstudy.pipeline.learners.as_learner_factory`).
    fit_predict : callable, optional
        Where the fits are made (see :func:`fold_predictions`); default here.

    Returns
    -------
    ndarray, shape (n_runs, n_folds, L)
    """
    fold_ids = np.atleast_2d(np.asarray(fold_ids))
    return np.stack(
        [
            _accuracy_per_fold(fold_predictions(X, y, fold_ids, make, fit_predict=fit_predict), y, fold_ids)
            for make in learners
        ],
        axis=-1,
    )


def check_metric(metric: str) -> str:
    """``metric`` if scikit-learn has a scorer of that name (``accuracy``, ``balanced_accuracy``, ``roc_auc``, ...).

    Raises ValueError on one line naming the argument and a few of the names.
    """
    from sklearn.metrics import get_scorer, get_scorer_names

    if not isinstance(metric, str):
        raise InputError(f"{option('metric')}: a scikit-learn scorer name such as 'balanced_accuracy', got {metric!r}")
    try:
        get_scorer(metric)
    except ValueError:
        close = [n for n in get_scorer_names() if metric.lower() in n or n in metric.lower()][:6]
        hint = ", ".join(close or ["accuracy", "balanced_accuracy", "roc_auc", "f1_macro", "neg_log_loss"])
        raise InputError(
            f"{option('metric')}: {metric!r} is not a scikit-learn scorer name (for instance {hint})"
        ) from None
    return metric


def fold_score(make, X, y, train, test, metric: str) -> float:
    """The scorer ``metric`` of ``make()`` fitted on the rows ``train``, on the rows ``test`` (greater is better)."""
    from sklearn.metrics import get_scorer

    est = make().fit(X[train], y[train])
    return float(get_scorer(metric)(est, X[test], y[test]))


def cv_scores(X, y, fold_ids, learners, metric: str, *, fit_score=None) -> np.ndarray:
    """Score ``metric`` (a scikit-learn scorer name) of each learner on each fold of each run: (n_runs, n_folds, L).

    As :func:`cv_accuracies`, for any scorer: each fold's learner is fitted
    on the other folds and scored on its own by ``sklearn.metrics.get_scorer(metric)``,
    which reads the predictions, probabilities or decision values it needs.
    Scorers are oriented so that greater is better (``neg_log_loss``).

    Parameters
    ----------
    fit_score : callable, optional
        ``fit_score(make, train, test, metric)``: the score made elsewhere (e.g.
        in a worker process with a time limit); default here.
    """
    fold_ids = np.atleast_2d(np.asarray(fold_ids))
    y = np.asarray(y)
    n_folds = int(fold_ids.max()) + 1
    out = np.full((fold_ids.shape[0], n_folds, len(learners)), np.nan)
    for j, make in enumerate(learners):
        for r, ids in enumerate(fold_ids):
            for f in range(int(ids.max()) + 1):
                test = np.flatnonzero(ids == f)
                train = np.flatnonzero(ids != f)
                if fit_score is None:
                    out[r, f, j] = fold_score(make, X, y, train, test, metric)
                else:
                    out[r, f, j] = fit_score(make, train, test, metric)
    return out


def cv_paired_scores(
    X, y, fold_ids, learners, *, fit_predicts=(None, None)
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Accuracies of two learners on every fold, with McNemar's discordant counts.

    The accuracies are those of :func:`cv_accuracies` (the same predictions,
    the same arithmetic); the counts come from the same predictions, case by case.

    Parameters
    ----------
    X, y : ndarray
        The data.
    fold_ids : ndarray of int, shape (n_runs, n)
        Fold of every case in every run.
    learners : pair of callable
        Factories of learner A and learner B.
    fit_predicts : pair of callable or None
        Where each learner's fits are made (see :func:`fold_predictions`).

    Returns
    -------
    acc : ndarray, shape (n_runs, n_folds, 2)
    n01, n10 : ndarray of int, shape (n_runs, n_folds)
        Per fold: test cases B gets right and A wrong, and A right and B wrong.
    """
    fold_ids = np.atleast_2d(np.asarray(fold_ids))
    y = np.asarray(y)
    if len(learners) != 2:
        raise InputError(f"learners: discordant counts need exactly two learners, got {len(learners)}")
    pred = [fold_predictions(X, y, fold_ids, make, fit_predict=fp) for make, fp in zip(learners, fit_predicts)]
    acc = np.stack([_accuracy_per_fold(p, y, fold_ids) for p in pred], axis=-1)
    right_a, right_b = pred[0] == y[None, :], pred[1] == y[None, :]
    n_folds = int(fold_ids.max()) + 1
    runs = fold_ids.shape[0]
    held = fold_ids >= 0
    cell = (np.arange(runs)[:, None] * n_folds + fold_ids)[held]
    size = runs * n_folds
    n01 = np.bincount(cell, weights=(~right_a & right_b)[held], minlength=size).astype(np.int64)
    n10 = np.bincount(cell, weights=(right_a & ~right_b)[held], minlength=size).astype(np.int64)
    return acc, n01.reshape(runs, n_folds), n10.reshape(runs, n_folds)


def resample_accuracies(X, y, splits, learners) -> np.ndarray:
    """Accuracy of each learner on each (train, test) split: shape (n_splits, L).

    The same numbers as :func:`split_accuracies` split by split.  Each split must
    put every case in its training or its test part (a split into training, test and
    unused cases is refused: the unused ones would be counted as training).  Learners
    with ``fold_predictions`` fit all splits in one call.

    Parameters
    ----------
    X, y : ndarray
        The data.
    splits : sequence of (train, test)
        Index arrays of each split.
    learners : sequence of callable
        Factories of unfitted learners.

    Returns
    -------
    ndarray, shape (n_splits, L)
    """
    y = np.asarray(y)
    ids = np.full((len(splits), y.size), -1, dtype=np.int64)
    for r, (train, test) in enumerate(splits):
        if np.setdiff1d(np.arange(y.size), np.union1d(train, test)).size:
            raise InputError(f"splits: split {r} leaves cases out of both its training and its test part")
        ids[r, test] = 0
    return cv_accuracies(X, y, ids, learners)[:, 0, :]


def holdout_accuracies(X, y, X_test, y_test, learners) -> np.ndarray:
    """Accuracy of each learner (a factory) fitted on ``(X, y)`` and tested on a separate test set: shape (L,).

    Parameters
    ----------
    X, y : ndarray
        Training data.
    X_test, y_test : ndarray
        The separate test set.
    learners : sequence of callable
        Factories of unfitted learners.

    Returns
    -------
    ndarray, shape (L,)
    """
    return np.array([float(np.mean(make().fit(X, y).predict(X_test) == y_test)) for make in learners])
