"""The base class of every learner: scikit-learn's estimator API and the per-fold shortcut.

A learner is a scikit-learn classifier: its constructor takes every option as a
keyword argument and stores it unchanged under the same name, so that
``get_params``, ``set_params`` and ``sklearn.base.clone`` round-trip it (inherited
from ``sklearn.base.BaseEstimator``); ``fit`` returns the learner, ``predict`` gives
class codes and ``score`` the share of correct predictions.

The studies fit each learner on every training part of many cross-validation
runs.  A learner that can produce all those predictions faster than fold by fold
overrides :meth:`Learner.fold_predictions`; the default returns None, which tells
:mod:`simstudy.pipeline.scores` to fit one model per fold.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from simstudy.errors import InputError

__all__ = ["Learner"]


class Learner(ClassifierMixin, BaseEstimator):
    """Base class of the learners: a scikit-learn classifier with an optional per-fold shortcut.

    Subclasses define ``__init__`` (keyword options stored unchanged as attributes of
    the same name), ``fit(X, y)`` returning ``self``, and ``predict(X)``; usually
    also ``predict_proba(X)``.  They inherit ``get_params``/``set_params`` (from the
    ``__init__`` signature), ``clone`` support, scikit-learn >= 1.6 tags and
    :meth:`score`.

    Attributes
    ----------
    accepts_missing : bool
        Class attribute: whether ``fit`` and ``predict`` take NaN for a missing value (scikit-learn's
        ``allow_nan`` input tag).  False here; the Weka learners set it.
    """

    accepts_missing = False

    def __sklearn_tags__(self):
        """Tags for scikit-learn >= 1.6: a classifier, NaN allowed where :attr:`accepts_missing`."""
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = bool(self.accepts_missing)
        return tags

    def score(self, X, y, sample_weight=None):
        """Share of correctly predicted rows (scikit-learn's default classifier score).

        Parameters
        ----------
        X : array_like, shape (n, p)
        y : array_like, shape (n,)
            True classes.
        sample_weight : array_like, shape (n,), optional
            Row weights of the average.

        Returns
        -------
        float
        """
        y = np.asarray(y)
        pred = self.predict(X)
        if y.shape != pred.shape:
            raise InputError(f"y: expected shape {pred.shape}, got {y.shape}")
        return float(np.average(pred == y, weights=sample_weight))

    def fold_predictions(self, X, y, fold_ids):
        """Predictions of the model fitted without each fold, for every run at once; None here.

        Parameters
        ----------
        X : array_like, shape (n, p)
        y : array_like, shape (n,)
        fold_ids : array_like of int, shape (runs, n)
            Each case's fold in each run; -1 marks a case that is always training
            and never held out.

        Returns
        -------
        ndarray of int, shape (runs, n), or None
            Entry (r, i) is the class predicted for case i by the learner (with
            these parameters) fitted on the cases outside case i's fold of run r,
            -1 where ``fold_ids`` is -1: exactly what fitting one model per fold
            would predict.  None means there is no shortcut for these data, and the
            caller fits fold by fold.  This default always returns None; learners
            with a faster exact path override it.
        """
        return None
