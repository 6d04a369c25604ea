"""Per-split outputs: what each learner said about each held-out case, so that any score is re-computed unfitted.

For every split of a design, a learner fitted on the training part gives, for
each held-out case, its predicted class and, where it has them, its class
probabilities (``predict_proba``) or else its decision values
(``decision_function``).  :func:`fold_outputs` collects them for all runs of a
design's fold ids; :func:`outputs_scores` turns them into the per-split value
of any scikit-learn scorer, through the scorer itself: a stand-in estimator
replays the stored outputs for the rows it is asked about, so the scorer picks
the response it always picks (a probability column for ``roc_auc`` on two
classes, every column for ``neg_log_loss``, the predictions for
``balanced_accuracy``) and the score is the one the scorer would give the fitted
learner on that split.  A study that stores the outputs can therefore be scored
by another metric without fitting again.

Stored outputs hold class codes: ``classes`` are the sorted labels of the whole
data, and a score column ``j`` is the learner's output for ``classes[j]`` (0
for a class its training part lacked).  Binary decision values are one column
(the positive class's), as scikit-learn gives them.
"""

from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from simstudy.errors import InputError

__all__ = ["KINDS", "score_kind", "split_outputs", "fold_outputs", "outputs_scores", "needs_scores", "on_fit"]

# called with the number of fits just made (see on_fit); None: nobody is counting
_ON_FIT: list = [None]


class on_fit:
    """``with on_fit(callback):`` calls ``callback(n)`` after every ``n`` fits :func:`fold_outputs` makes in this
    process (one per split; a learner's all-folds shortcut counts its folds), e.g. to show progress per fit."""

    def __init__(self, callback):
        self.callback = callback

    def __enter__(self):
        self._before, _ON_FIT[0] = _ON_FIT[0], self.callback
        return self

    def __exit__(self, *exc):
        _ON_FIT[0] = self._before
        return False


def _fitted(n: int) -> None:
    if _ON_FIT[0] is not None:
        _ON_FIT[0](n)


#: What a learner's score columns hold: class probabilities, decision values, or nothing (predictions only).
KINDS = ("proba", "decision", "")


def score_kind(est) -> str:
    """``"proba"`` when ``est`` has ``predict_proba``, else ``"decision"`` with ``decision_function``, else ``""``."""
    if callable(getattr(est, "predict_proba", None)):
        return "proba"
    if callable(getattr(est, "decision_function", None)):
        return "decision"
    return ""


def split_outputs(est, X_test, classes) -> tuple[np.ndarray, np.ndarray | None]:
    """The fitted ``est``'s predictions for ``X_test`` and its score columns in the order of ``classes``.

    Returns
    -------
    pred : ndarray, shape (m,)
    scores : ndarray of float, shape (m, len(classes)) or (m, 1) for binary decision values; None without any
    """
    pred = np.asarray(est.predict(X_test))
    kind = score_kind(est)
    if not kind:
        return pred, None
    raw = np.asarray(est.predict_proba(X_test) if kind == "proba" else est.decision_function(X_test), dtype=float)
    own = np.asarray(getattr(est, "classes_", classes))
    if kind == "decision" and raw.ndim == 1:
        return pred, raw[:, None]
    out = np.zeros((raw.shape[0], len(classes)))
    out[:, np.searchsorted(classes, own)] = raw.reshape(raw.shape[0], -1)
    return pred, out


def fold_outputs(X, y, fold_ids, make, *, scores="auto", fit_outputs: Callable | None = None):
    """Every held-out case's prediction and score columns, for all runs of ``fold_ids``.

    Parameters
    ----------
    X, y : ndarray
        The data.
    fold_ids : ndarray of int, shape (runs, n)
        Fold of every case in every run (-1: always training).
    make : callable
        Factory of an unfitted learner.
    scores : bool or "auto"
        Keep the score columns (probabilities or decision values) where the
        learner has them.  ``"auto"``: keep them unless the learner's own
        ``fold_predictions`` shortcut answers for this data (J48 and
        NaiveBayes on nominal data: all runs in one compiled call, predictions
        only); False: predictions only, by the shortcut where there is one.
    fit_outputs : callable, optional
        ``fit_outputs(make, train, test) -> (pred, scores, kind)``: the
        outputs made elsewhere (the worker process of a contained learner,
        which alone may make the learner), ``kind`` from :func:`score_kind`
        there; default here.

    Returns
    -------
    pred : ndarray, shape (runs, n)
        Predicted class (-1 where a case is not held out).
    scores : ndarray of float, shape (runs, n, m), or None
        Score columns (NaN where a case is not held out).
    kind : str
        One of :data:`KINDS`.
    """
    from simstudy.pipeline.scores import fold_predictions

    fold_ids = np.atleast_2d(np.asarray(fold_ids))
    y = np.asarray(y)
    classes = np.unique(y)
    if fit_outputs is None and scores == "auto":
        shortcut = getattr(make(), "fold_predictions", None)
        pred = shortcut(X, y, fold_ids) if shortcut is not None else None
        if pred is not None:
            _fitted(int((fold_ids.max(axis=1) + 1).sum()))
            return pred, None, ""
    # made elsewhere, the learner says its kind with its outputs
    kind = score_kind(make()) if scores and fit_outputs is None else ""
    if not kind and fit_outputs is None:
        pred = fold_predictions(X, y, fold_ids, make)
        _fitted(int((fold_ids.max(axis=1) + 1).sum()))
        return pred, None, ""
    pred = np.full(fold_ids.shape, -1, dtype=np.int64)
    out = None
    for r, ids in enumerate(fold_ids):
        for f in range(int(ids.max()) + 1):
            test = np.flatnonzero(ids == f)
            train = np.flatnonzero(ids != f)
            if fit_outputs is None:
                p, s = split_outputs(make().fit(X[train], y[train]), X[test], classes)
            else:
                p, s, made = fit_outputs(make, train, test)
                kind = made if scores else ""
            _fitted(1)
            pred[r, test] = p
            if s is not None and kind:
                if out is None:
                    out = np.full(fold_ids.shape + (s.shape[1],), np.nan)
                out[r, test] = s
    return pred, out, kind if out is not None else ""


def needs_scores(metric: str) -> bool:
    """Whether the scikit-learn scorer ``metric`` reads probabilities or decision values (not only predictions)."""
    if metric == "accuracy":
        return False
    from sklearn.metrics import get_scorer

    method = getattr(get_scorer(metric), "_response_method", None)
    return method != "predict"


@functools.lru_cache(maxsize=None)
def _replay_class(kind: str):
    """The stand-in classifier of :func:`_replay` for one kind of score columns (built once, on first use)."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    class Replay(ClassifierMixin, BaseEstimator):
        def __init__(self):
            pass

        def predict(self, rows):
            return self.pred_[np.asarray(rows).ravel()]

    if kind == "proba":

        def predict_proba(self, rows):
            return self.scores_[np.asarray(rows).ravel()]

        Replay.predict_proba = predict_proba
    elif kind == "decision":

        def decision_function(self, rows):
            s = self.scores_[np.asarray(rows).ravel()]
            return s[:, 0] if s.shape[1] == 1 else s

        Replay.decision_function = decision_function
    Replay.__name__ = Replay.__qualname__ = f"Replay{kind.capitalize()}"
    return Replay


def _replay(classes, pred, scores, kind):
    """A fitted stand-in classifier that answers, for an array of row positions, with the stored outputs."""
    est = _replay_class(kind if scores is not None else "")()
    est.classes_, est.pred_, est.scores_ = np.asarray(classes), pred, scores
    return est


def outputs_scores(metric: str, y, fold_ids, pred, scores=None, kind: str = "") -> np.ndarray:
    """The scorer ``metric`` on every split, from stored outputs: shape (runs, folds).

    Parameters
    ----------
    metric : str
        ``"accuracy"`` or a scikit-learn scorer name (greater is better).
    y : ndarray, shape (n,)
        The true classes.
    fold_ids, pred, scores, kind
        As :func:`fold_outputs` returns them.

    Raises
    ------
    ValueError
        ``metric`` needs probabilities or decision values that were not stored.
    """
    from simstudy.pipeline.scores import _accuracy_per_fold

    fold_ids = np.atleast_2d(np.asarray(fold_ids))
    y = np.asarray(y)
    if metric == "accuracy":
        return _accuracy_per_fold(pred, y, fold_ids)
    from sklearn.metrics import get_scorer

    if scores is None and needs_scores(metric):
        raise InputError(
            f"metric: {metric!r} needs class probabilities or decision values, and only predictions are stored"
        )
    scorer = get_scorer(metric)
    classes = np.unique(y)
    n_folds = int(fold_ids.max()) + 1
    out = np.full((fold_ids.shape[0], n_folds), np.nan)
    needs = scores is not None and needs_scores(metric)
    for r, ids in enumerate(fold_ids):
        est = _replay(classes, pred[r], None if scores is None else scores[r], kind)
        for f in range(n_folds):
            test = np.flatnonzero(ids == f)
            if test.size:
                if needs and np.isnan(scores[r][test]).any():
                    bad = int(np.isnan(scores[r][test]).any(axis=-1).sum())
                    raise InputError(
                        f"metric: {metric!r} needs the learner's probabilities, and it gave none (NaN) for {bad} "
                        f"held-out case(s) of run {r}, fold {f} (R's e1071 naiveBayes does so when a class has a "
                        "single training case); score with a metric of the predictions, such as accuracy"
                    )
                try:
                    out[r, f] = float(scorer(est, test[:, None], y[test]))
                except (AttributeError, ValueError) as exc:  # e.g. log loss of a learner without probabilities
                    text = " ".join(str(exc).split())[:200]
                    raise InputError(f"metric: {metric!r} cannot be computed from the stored outputs: {text}") from None
    return out
