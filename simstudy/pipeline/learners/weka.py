"""Learners that reproduce Weka 3.6's NaiveBayes and IB1 (Bouckaert 2004).

Bouckaert (2004, Sec. 4) compares Weka's NaiveBayes, J48 and IB1.  The classes
here follow Weka's algorithms, including its handling of missing values, so that
per-fold predictions agree with Weka run on the same folds (see
``benchmarks/learners_weka.md``).  Inputs: ``X`` float (n, p) with nominal
attributes coded 0..k-1 and NaN for missing; ``nominal`` a boolean mask (or index
list) of the nominal columns; ``y`` integer class codes 0..c-1.

All are scikit-learn classifiers through :class:`simstudy.pipeline.learners.base.Learner`
(``fit``/``predict``/``predict_proba``/``score``, ``get_params``/``set_params``,
``clone``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import ndtr

from simstudy.errors import InputError
from simstudy.pipeline.learners._stump import stump_search
from simstudy.pipeline.learners.base import Learner

__all__ = ["WekaNaiveBayes", "IB1", "DecisionStump"]

_DEFAULT_PRECISION = 0.01
_LIKELIHOOD_FLOOR = 1e-75  # Weka's NaiveBayes floors each attribute's likelihood here


class _Parts(NamedTuple):
    """All-nominal data split into held-out parts, as :meth:`_Base._training_parts` returns it."""

    X: np.ndarray  #: (n, p) category codes
    y: np.ndarray  #: (n,) class codes
    k: np.ndarray  #: (p,) categories of each attribute
    c: int  #: classes
    group: np.ndarray  #: (runs, n) held-out part ``run * folds + fold`` of each entry
    held: np.ndarray  #: (runs, n) whether the entry is held out
    member: np.ndarray  #: (parts, n) 1 where a case is held out of a part
    onehot_y: np.ndarray  #: (n, c) class indicators of the cases
    class_counts: np.ndarray  #: (parts, c) class counts of each training part
    n_train: np.ndarray  #: (parts,) size of each training part


class _Base(Learner):
    """Weka's input conventions, shared by the Weka learners (this module, J48, TAN, SMO).

    Parameters
    ----------
    nominal : array_like of bool or of int, optional
        Mask (or indices) of the nominal columns, coded 0..k-1; None: all numeric.
    n_categories : array_like of int, optional
        Number of categories of each column (entries of numeric columns ignored);
        None: one more than the largest code seen in training.
    n_classes : int, optional
        Number of classes; None: one more than the largest class code seen.
    """

    accepts_missing = True

    def __init__(self, nominal=None, n_categories=None, n_classes=None):
        self.nominal = nominal
        self.n_categories = n_categories
        self.n_classes = n_classes

    def _prepare(self, X, y):
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise InputError(f"X: expected a 2-d array, got shape {X.shape}")
        y = np.asarray(y, dtype=float)
        if y.shape != (X.shape[0],):
            raise InputError(f"y: expected shape ({X.shape[0]},), got {y.shape}")
        p = X.shape[1]
        if self.nominal is None:
            mask = np.zeros(p, dtype=bool)
        else:
            nom = np.asarray(self.nominal)
            if nom.dtype == bool:
                if nom.shape != (p,):
                    raise InputError(f"nominal: expected {p} flags, got shape {nom.shape}")
                mask = nom.copy()
            else:
                mask = np.zeros(p, dtype=bool)
                mask[nom.astype(int)] = True
        ok = ~np.isnan(y)
        if np.any((y[ok] < 0) | (y[ok] != np.round(y[ok]))):
            raise InputError("y: class values must be integer codes 0..c-1")
        c = int(self.n_classes) if self.n_classes is not None else (int(y[ok].max()) + 1 if ok.any() else 1)
        if ok.any() and y[ok].max() >= c:
            raise InputError(f"n_classes: {c} is smaller than the largest class code + 1")
        ncat = np.zeros(p, dtype=int)
        nominal = np.flatnonzero(mask)
        if nominal.size:  # all nominal columns checked at once (a fit is often a few hundred microseconds)
            sub = X[:, nominal]
            seen = ~np.isnan(sub)
            codes = np.where(seen, sub, 0.0)
            bad = ((codes < 0) | (codes != np.round(codes))).any(axis=0)
            if bad.any():
                raise InputError(
                    f"X: nominal column {nominal[int(np.argmax(bad))]} must hold integer codes 0..k-1 or NaN"
                )
            if self.n_categories is None:
                top = np.where(seen, sub, -1.0).max(axis=0) if sub.shape[0] else np.full(nominal.size, -1.0)
                ncat[nominal] = np.where(seen.any(axis=0), top.astype(int) + 1, 1)
            else:
                given = np.asarray(self.n_categories)
                ncat[nominal] = [int(given[j]) for j in nominal]
        self.nominal_mask_ = mask
        self.n_categories_ = ncat
        self.n_classes_ = c
        self.classes_ = np.arange(c)
        self.n_features_in_ = p
        return X, y

    def _nominal_codes(self, X, y, fold_ids):
        """Integer views for the compiled per-fold paths, or None when they do not apply.

        They apply when every attribute is nominal and no attribute or class value is
        missing.  Category and class counts are taken from all of ``X`` and ``y`` (or
        from ``n_categories`` and ``n_classes``); where a per-fold fit would infer fewer
        categories from its training part, a held-out case carries a category that fit
        never saw and :meth:`predict` would refuse it, so the two agree wherever the
        per-fold fit works.  Returns ``(X codes, y codes, categories, classes, fold ids)``.
        """
        X, y = self._prepare(X, y)
        if X.shape[1] == 0 or not self.nominal_mask_.all() or np.isnan(X).any() or np.isnan(y).any():
            return None
        fold_ids = np.atleast_2d(np.asarray(fold_ids))
        if fold_ids.ndim != 2 or fold_ids.shape[1] != X.shape[0]:
            raise InputError(f"fold_ids: expected shape (runs, {X.shape[0]}), got {fold_ids.shape}")
        return (
            X.astype(np.int64),
            y.astype(np.int64),
            self.n_categories_.astype(np.int64),
            int(self.n_classes_),
            fold_ids.astype(np.int64),
        )

    def _training_parts(self, X, y, fold_ids) -> "_Parts | None":
        """:meth:`_nominal_codes` with each held-out part's cases, for shortcuts built on count subtraction.

        Returns None where :meth:`_nominal_codes` does, and where a training part
        (all cases outside one held-out part) is empty or would make a fit of its own
        infer fewer classes or categories than all the data have (``n_classes`` or
        ``n_categories`` not given): there a shortcut that counts from all the data
        would not be that fit.  Otherwise the parts (:class:`_Parts`).
        """
        data = self._nominal_codes(X, y, fold_ids)
        if data is None:
            return None
        X, y, k, c, fold_ids = data
        runs, n = fold_ids.shape
        n_folds = max(int(fold_ids.max()) + 1, 0)
        held = fold_ids >= 0
        group = np.where(held, np.arange(runs)[:, None] * n_folds + fold_ids, 0)
        member = np.zeros((runs * n_folds, n))
        member[group[held], np.nonzero(held)[1]] = 1.0
        onehot_y = np.zeros((n, c))
        onehot_y[np.arange(n), y] = 1.0
        class_counts = onehot_y.sum(axis=0)[None, :] - member @ onehot_y
        n_train = class_counts.sum(axis=1)
        if not (n_train > 0).all():
            return None
        if self.n_classes is None and not (class_counts[:, c - 1] > 0).all():
            return None
        if self.n_categories is None:
            top = (X == (k - 1)[None, :]).astype(float)
            if not ((top.sum(axis=0)[None, :] - member @ top) > 0).all():
                return None
        return _Parts(X, y, k, c, group, held, member, onehot_y, class_counts, n_train)

    def _check_X(self, X):
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise InputError(f"X: expected shape (n, {self.n_features_in_}), got {X.shape}")
        return X

    def predict(self, X):
        """Class codes; ties go to the lowest class code (Weka's ``Utils.maxIndex``)."""
        return np.argmax(self.predict_proba(X), axis=1)


class WekaNaiveBayes(_Base):
    """Weka 3.6 ``weka.classifiers.bayes.NaiveBayes`` with default options.

    * Class prior and nominal attributes: counts start at 1 (Laplace, Weka's
      ``DiscreteEstimator(k, true)``), so P(a=v | c) = (n_cv + 1) / (n_c + k)
      where n_c counts the class-c instances with ``a`` observed.
    * Numeric attributes: Weka's ``NormalEstimator`` with precision
      ``delta = (max - min) / (number of distinct values - 1)`` computed on all
      training values of the attribute (0.01 if it has a single value), as Weka
      computes it: the gaps between consecutive distinct values added in order.  Values are
      rounded to multiples of ``delta``; per class the mean and the standard
      deviation ``sqrt(|S2 - m S1| / W)`` are taken from the rounded values, the
      deviation floored at ``delta / 6`` (and equal to ``delta / 6`` when the
      estimate is below 1e-10 or the class has no values); the likelihood is the
      normal probability of the interval ``x +- delta / 2`` around the rounded ``x``,
      floored at 1e-75 as in Weka's ``distributionForInstance``.
    * Posterior: Weka's products (prior times each likelihood, attribute by attribute,
      rescaled by 1e75 when all classes fall below 1e-75), so that ties between
      classes fall as in Weka (the first class wins).  Weka sums each class's values
      in the order its quicksort leaves the training instances; we sum in data order,
      which changes the probabilities by ~1e-15, and by up to ~1e-7 on values far
      from 0 with a tiny spread, where the variance cancels (see
      ``tests/pipeline/test_differential.py``).
    * Missing attribute values are skipped in training and prediction; training
      instances with a missing class are dropped.
    """

    def fit(self, X, y):
        X, y = self._prepare(X, y)
        keep = ~np.isnan(y)
        X, y = X[keep], y[keep].astype(int)
        c = self.n_classes_
        self._prior = (np.bincount(y, minlength=c) + 1.0) / (y.size + c)
        self.class_log_prior_ = np.log(self._prior)
        onehot = np.zeros((y.size, c))
        onehot[np.arange(y.size), y] = 1.0
        self.tables_ = {}
        self._probability_tables = {}
        self.normals_ = {}
        for j in range(X.shape[1]):
            col = X[:, j]
            obs = ~np.isnan(col)
            if self.nominal_mask_[j]:
                k = self.n_categories_[j]
                counts = np.zeros((c, k)) + 1.0
                np.add.at(counts, (y[obs], col[obs].astype(int)), 1.0)
                self._probability_tables[j] = counts / counts.sum(axis=1, keepdims=True)
                self.tables_[j] = np.log(self._probability_tables[j])
            else:
                vals = np.unique(col[obs])
                # Weka: the sum of the gaps between consecutive distinct values, added in order,
                # over their number (not (max - min) / (distinct - 1), which may round differently)
                prec = np.cumsum(np.diff(vals))[-1] / (vals.size - 1) if vals.size > 1 else _DEFAULT_PRECISION
                r = np.rint(col[obs] / prec) * prec
                oh = onehot[obs]
                w = oh.sum(axis=0)
                s1 = r @ oh
                s2 = (r * r) @ oh
                with np.errstate(invalid="ignore", divide="ignore"):
                    mean = np.where(w > 0, s1 / np.where(w > 0, w, 1), 0.0)
                    sd = np.sqrt(np.abs(s2 - mean * s1) / np.where(w > 0, w, 1))
                floor = prec / 6.0
                sd = np.where((w > 0) & (sd > 1e-10), np.maximum(floor, sd), floor)
                self.normals_[j] = (prec, mean, sd)
        return self

    def fold_predictions(self, X, y, fold_ids):
        """Predictions of the model fitted without each fold, for every run at once.

        ``fold_ids`` (runs, n) gives each case's fold in each run (-1: always
        training, never held out).  Entry (r, i) of the result is the class that the
        model fitted on the cases outside case i's fold of run r predicts for case i
        (-1 where ``fold_ids`` is -1): the same as fitting one model per fold, for all
        folds in one compiled pass (:mod:`simstudy.pipeline.learners._nb_nominal`).  Only for
        all-nominal data without missing values (see :meth:`_nominal_codes`), and
        unless a training part lacks the largest class code (its own fit would infer
        fewer classes; ``n_classes`` not given); returns None otherwise.
        """
        data = self._nominal_codes(X, y, fold_ids)
        if data is None:
            return None
        from simstudy.pipeline.learners import _nb_nominal  # here, not at the top: importing numba takes about 0.5 s

        X, y, ncat, c, fold_ids = data
        offsets = np.r_[0, np.cumsum(ncat)].astype(np.int64)
        pred, ok = _nb_nominal.fold_predictions(X, y, fold_ids, offsets, c, self.n_classes is None)
        if not ok:
            return None  # a fit on that part would infer fewer classes (and another prior)
        return pred

    def _likelihoods(self, X):
        """Per attribute (in order): the rows observed and each class's likelihood, floored at 1e-75."""
        X = self._check_X(X)
        for j in range(X.shape[1]):
            col = X[:, j]
            obs = ~np.isnan(col)
            if j in self._probability_tables:
                table = self._probability_tables[j]
                v = col[obs].astype(int)
                if np.any((v < 0) | (v >= table.shape[1])):
                    raise InputError(f"X: column {j} has a category code outside the training range")
                p = table[:, v].T
            else:
                prec, mean, sd = self.normals_[j]
                r = (np.rint(col[obs] / prec) * prec)[:, None]
                p = ndtr((r - mean + prec / 2) / sd) - ndtr((r - mean - prec / 2) / sd)
            yield obs, np.maximum(p, _LIKELIHOOD_FLOOR)

    def _joint_log(self, X):
        X = self._check_X(X)
        out = np.tile(self.class_log_prior_, (X.shape[0], 1))
        for obs, p in self._likelihoods(X):
            out[obs] += np.log(p)
        return out

    def predict_proba(self, X):
        """Posterior class probabilities, computed as Weka's ``distributionForInstance``.

        The prior times each observed attribute's likelihood, attribute by attribute,
        all classes multiplied by 1e75 whenever their largest product falls below 1e-75,
        then divided by their sum; the same products in the same order as Weka, so that
        classes tie (the first one wins) exactly where they tie in Weka.
        """
        X = self._check_X(X)
        probs = np.tile(self._prior, (X.shape[0], 1))
        for obs, p in self._likelihoods(X):
            probs[obs] *= p
            top = probs.max(axis=1)
            low = obs & (top > 0) & (top < _LIKELIHOOD_FLOOR)
            probs[low] *= 1e75
        return _weka_normalize(probs)


def _weka_normalize(probs):
    """Rows divided by their sum added left to right (Weka's ``Utils.normalize``); uniform where it is 0."""
    total = np.zeros(probs.shape[:-1])
    for k in range(probs.shape[-1]):
        total = total + probs[..., k]
    bad = ~(total > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = probs / np.where(bad, 1.0, total)[..., None]
    out[bad] = 1.0 / probs.shape[-1]
    return out


class IB1(_Base):
    """Weka 3.6 ``weka.classifiers.lazy.IB1``: one nearest neighbour.

    Squared distance summed over attributes: nominal 0 if equal else 1 (1 if either
    is missing); numeric on values scaled by the training range,
    ``(x - min) / (max - min)`` (0 when the range is zero or the attribute was never
    observed); if both values are missing the difference is 1, if one is missing it
    is ``max(v, 1 - v)`` for the scaled other value ``v``.  Ties: the first
    training instance.  Training instances with a missing class are dropped before
    the ranges are taken, as in Weka.

    Weka's IB1 also widens the ranges with every instance it classifies
    (``updateMinMax`` in ``classifyInstance``), so its predictions depend on the
    order of the test instances; ``update_ranges_on_predict=True`` (the default)
    reproduces that, the test rows processed in order.  ``False`` keeps the ranges
    of the training part, so that a prediction does not depend on the other test
    rows (on nominal attributes the two are the same).
    """

    def __init__(self, nominal=None, n_categories=None, n_classes=None, update_ranges_on_predict=True):
        super().__init__(nominal, n_categories, n_classes)
        self.update_ranges_on_predict = update_ranges_on_predict

    def fit(self, X, y):
        X, y = self._prepare(X, y)
        keep = ~np.isnan(y)
        X = X[keep]  # Weka drops the instances with a missing class before taking the ranges
        self.X_ = X
        self.y_ = y[keep].astype(int)
        with np.errstate(all="ignore"):
            self.min_ = np.where(np.isnan(X).all(axis=0), np.nan, np.nanmin(np.where(np.isnan(X), np.inf, X), axis=0))
            self.max_ = np.where(np.isnan(X).all(axis=0), np.nan, np.nanmax(np.where(np.isnan(X), -np.inf, X), axis=0))
        return self

    def fold_predictions(self, X, y, fold_ids):
        """Nearest-neighbour predictions for the held-out cases of every fold of every run.

        As :meth:`WekaNaiveBayes.fold_predictions`.  On all-nominal data without
        missing values the distance is the number of differing attributes, an
        integer, so one matrix of distances serves every fold: a held-out case
        takes the class of the first training case (in data order) at the least
        distance, as :meth:`predict` does with the training part in data order.
        """
        data = self._nominal_codes(X, y, fold_ids)
        if data is None:
            return None
        X, y, _, _, fold_ids = data
        dist = (X[:, None, :] != X[None, :, :]).sum(axis=2)
        out = np.full(fold_ids.shape, -1, dtype=np.int64)
        for r, ids in enumerate(fold_ids):
            held = ids >= 0
            masked = np.where(ids[:, None] == ids[None, :], np.iinfo(dist.dtype).max, dist)[held]
            out[r, held] = y[np.argmin(masked, axis=1)]
        return out

    def _training_part(self, lo, hi):
        """What :meth:`_distances` needs of the training rows for the ranges ``lo``, ``hi``.

        The scaled training values change only when a test instance widens a range,
        which is rare, so :meth:`predict_proba` keeps this until then.
        """
        A = self.X_
        nom = self.nominal_mask_
        num = ~nom
        part = {"nom": A[:, nom] if nom.any() else None, "nom_missing": np.isnan(A[:, nom]) if nom.any() else None}
        if num.any():
            rng = hi[num] - lo[num]
            ok = np.isfinite(rng) & (rng != 0)
            safe = np.where(ok, rng, 1.0)
            ma = np.isnan(A[:, num])
            sa = np.where(ok, (A[:, num] - lo[num]) / safe, 0.0)
            part.update(ok=ok, safe=safe, lo=lo[num], ma=ma, any_ma=bool(ma.any()), sa=np.where(ma, np.nan, sa))
        return part

    def _distances(self, x, part):
        """Squared distances of ``x`` to every training row (``part``: :meth:`_training_part` of the current ranges)."""
        nom = self.nominal_mask_
        d = np.zeros(self.X_.shape[0])
        if part["nom"] is not None:
            b = x[nom]
            diff = (part["nom"] != b) | part["nom_missing"] | np.isnan(b)
            d += diff.sum(axis=1)
        if "sa" in part:
            xn = x[~nom]
            ok, sa, ma = part["ok"], part["sa"], part["ma"]
            mb = np.isnan(xn)
            sb = np.where(ok, (xn - part["lo"]) / part["safe"], 0.0)
            if not part["any_ma"] and not mb.any():
                diff = sa - sb  # what the general rule below gives when no value is missing
            else:
                sb = np.where(mb, np.nan, sb)
                one = np.where(ma, sb, sa)
                one = np.maximum(one, 1.0 - one)
                diff = np.where(ma & mb, 1.0, np.where(ma | mb, one, sa - sb))
            d += (diff * diff).sum(axis=1)
        return d

    def predict_proba(self, X):
        """One-hot rows for the nearest training instance's class."""
        X = self._check_X(X)
        out = np.zeros((X.shape[0], self.n_classes_))
        lo, hi = self.min_.copy(), self.max_.copy()
        num = ~self.nominal_mask_
        part = None
        for i, x in enumerate(X):
            if self.update_ranges_on_predict:
                obs = num & ~np.isnan(x)
                new_lo = np.where(np.isnan(lo[obs]), x[obs], np.minimum(lo[obs], x[obs]))
                new_hi = np.where(np.isnan(hi[obs]), x[obs], np.maximum(hi[obs], x[obs]))
                if not (
                    np.array_equal(new_lo, lo[obs], equal_nan=True) and np.array_equal(new_hi, hi[obs], equal_nan=True)
                ):
                    lo[obs], hi[obs] = new_lo, new_hi
                    part = None
            if self.y_.size == 0:
                out[i] = 1.0 / self.n_classes_
                continue
            if part is None:
                part = self._training_part(lo, hi)
            out[i, self.y_[int(np.argmin(self._distances(x, part)))]] = 1.0
        return out


def _ln_func(x):
    """Weka's ``ContingencyTables.lnFunc``: ``x ln x``, 0 below 1e-6."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x < 1e-6, 0.0, x * np.log(np.where(x < 1e-6, 1.0, x)))


def _cond_entropy(rows):
    """Weka's ``ContingencyTables.entropyConditionedOnRows`` over the last two axes (bits).

    The sums run in Weka's order (row by row: the cells' ``x ln x``, then minus the
    row total's), so that criteria equal in exact arithmetic compare as they do in
    Weka, where the first attribute or cut point wins a tie.
    """
    rows = np.asarray(rows, dtype=float)
    value = np.zeros(rows.shape[:-2])
    total = np.zeros(rows.shape[:-2])
    for i in range(rows.shape[-2]):
        row_sum = np.zeros(rows.shape[:-2])
        for j in range(rows.shape[-1]):
            value = value + _ln_func(rows[..., i, j])
            row_sum = row_sum + rows[..., i, j]
        value = value - _ln_func(row_sum)
        total = total + row_sum
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -value / (total * np.log(2.0))
    return np.where(np.abs(total) < 1e-6, 0.0, out)


class DecisionStump(_Base):
    """Weka 3.6 ``weka.classifiers.trees.DecisionStump`` for a nominal class.

    One binary test: ``a == v`` against ``a != v`` for a nominal attribute, ``a <= t``
    against ``a > t`` for a numeric one (``t`` the midpoint between consecutive distinct
    training values), plus a third branch for a missing value.  The test minimises the
    class entropy conditioned on the three branches (missing-value instances form the
    third row, the entropy summed in Weka's order); ties go to the first attribute and
    the first value/threshold.  A numeric attribute with fewer than two distinct observed
    values has no threshold: as in Weka its criterion is ``Double.MAX_VALUE``, so it is
    chosen only as the first attribute, with split point 0 and the branches "nothing",
    "every observed instance" and "the missing ones".  Each branch predicts its majority
    class; an empty branch takes the missing branch's distribution, and the missing
    branch uses the training instances with the attribute missing, or all training
    instances when there were none.
    """

    def fit(self, X, y):
        X, y = self._prepare(X, y)
        keep = ~np.isnan(y)
        X, y = X[keep], y[keep].astype(int)
        c = self.n_classes_
        onehot = np.zeros((y.size, c))
        onehot[np.arange(y.size), y] = 1.0
        found = stump_search(X, onehot, self.nominal_mask_, self.n_categories_, _cond_entropy)
        if found is None:  # no attributes
            best = (0.0, -1, 0.0, np.tile(onehot.sum(axis=0), (3, 1)))
        else:
            best = (None, *found)
        _, self.attribute_, self.split_point_, dist = best
        for i in range(3):
            if dist[i].sum() == 0:
                dist[i] = dist[2]
        s = dist.sum(axis=1, keepdims=True)
        self.distribution_ = np.where(s > 0, dist / np.where(s > 0, s, 1.0), 1.0 / c)
        return self

    def fold_predictions(self, X, y, fold_ids):
        """Predictions of the stump fitted without each fold, for every run at once.

        On all-nominal data without missing values every training part's candidate
        tables are all cases' counts minus the part's held-out counts (whole numbers,
        so exact); their entropies come from the same element-wise function as
        :meth:`fit`'s, and the first minimum over all candidates in attribute order is
        the stump's choice (the first attribute, a later one only if strictly better,
        the first value within it).  The predictions are those of one fit per fold.
        Returns None (fit fold by fold) where :meth:`_training_parts` does.
        Arguments and result as :meth:`~simstudy.pipeline.learners.base.Learner.fold_predictions`.
        """
        parts = self._training_parts(X, y, fold_ids)
        if parts is None:
            return None
        X, k, c, group, held, member = parts.X, parts.k, parts.c, parts.group, parts.held, parts.member
        n = X.shape[0]
        groups = member.shape[0]
        offsets = np.r_[0, np.cumsum(k)].astype(np.int64)
        width = int(offsets[-1])
        cats = np.zeros((n, width))
        np.put_along_axis(cats, X + offsets[:-1], 1.0, axis=1)
        z = (cats[:, :, None] * parts.onehot_y[:, None, :]).reshape(n, width * c)
        counts = (z.sum(axis=0)[None, :] - member @ z).reshape(groups, width, c)  # [part, (a, v), class]
        owner = np.repeat(np.arange(k.size), k)
        tot = np.add.reduceat(counts, offsets[:-1], axis=1)
        tables = np.stack([counts, tot[:, owner] - counts, np.zeros_like(counts)], axis=2)
        best = np.argmin(_cond_entropy(tables), axis=1)
        attribute = owner[best]
        split = best - offsets[attribute]
        dist = tables[np.arange(groups), best]
        dist[:, 2] = dist[:, 0] + dist[:, 1]  # no value missing: the missing branch is every case
        for i in range(3):
            empty = dist[:, i].sum(axis=1) == 0
            dist[empty, i] = dist[empty, 2]
        s = dist.sum(axis=2, keepdims=True)
        distribution = np.where(s > 0, dist / np.where(s > 0, s, 1.0), 1.0 / c)
        part = group[held]
        rows = np.nonzero(held)[1]
        branch = np.where(X[rows, attribute[part]] == split[part], 0, 1)
        pred = np.full(held.shape, -1, dtype=np.int64)
        pred[held] = np.argmax(distribution[part, branch], axis=1)
        return pred

    def predict_proba(self, X):
        """Class distribution of the branch each row falls into."""
        X = self._check_X(X)
        if self.attribute_ < 0:
            return np.tile(self.distribution_[2], (X.shape[0], 1))
        col = X[:, self.attribute_]
        if self.nominal_mask_[self.attribute_]:
            branch = np.where(col == self.split_point_, 0, 1)
        else:
            branch = np.where(col <= self.split_point_, 0, 1)
        branch = np.where(np.isnan(col), 2, branch)
        return self.distribution_[branch]
