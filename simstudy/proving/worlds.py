"""Gaussian two-view worlds with a known truth, and the learners that compare the two views.

A world has two classes of equal size and two *views* of ``n_view`` features
each.  Within a class every feature has unit variance; the class means differ
by ``delta_a`` (Mahalanobis distance) in view A and by ``delta_b`` in view B,
spread equally over the view's features; feature j of view A and feature j of
view B have the within-class correlation ``rho`` (every other pair is
independent).  Learner A is a learner fitted on view A only, learner B the same
kind of learner fitted on view B only.

Why two views: the null hypothesis of a comparison of two *different* learners
is "equal expected accuracy on the population", which is hard to hit with two
different algorithms.  Here ``delta_a = delta_b`` makes A and B exchangeable
(swap the views and the classes' distribution is unchanged), so their expected
accuracies are equal for every training-set size *by symmetry*, while their
predictions still differ case by case, as two real learners' do.  ``delta_a >
delta_b`` graduates the effect (the Bayes accuracy of a view is
``Phi(delta / 2)``) and ``rho`` how strongly the two learners' errors are
correlated, which is what sets the variance of their paired differences (the
role of the correlation in Nadeau and Bengio 2003).  Dietterich (1998)
simulated his null worlds the other way round, by fixing the error rates of
made-up learners; this keeps real learners and an exact null.

Two kinds of learner, both with ``fold_predictions`` (every fold of every run
predicted in one vectorised call, as :func:`simstudy.scores.cv_accuracies`
uses it):

* :class:`ViewNaiveBayes`: Gaussian naive Bayes on one view (a stable learner);
* :class:`ViewNearestNeighbour`: 1-nearest neighbour on one view (an unstable
  learner, Dietterich's IB1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TwoViewWorld", "ViewNaiveBayes", "ViewNearestNeighbour", "VIEW_LEARNERS"]


@dataclass(frozen=True)
class TwoViewWorld:
    """Two Gaussian classes seen through two views (see the module docstring).

    Parameters
    ----------
    delta_a, delta_b : float
        Mahalanobis distance between the class means in view A and in view B.
    rho : float
        Within-class correlation of feature j of view A with feature j of view B, in (-1, 1).
    n_view : int
        Features per view.
    """

    delta_a: float
    delta_b: float
    rho: float = 0.0
    n_view: int = 2

    def __post_init__(self):
        if not (self.delta_a >= 0 and self.delta_b >= 0):
            raise ValueError(f"delta_a, delta_b: must be >= 0, got {self.delta_a}, {self.delta_b}")
        if not -1.0 < self.rho < 1.0:
            raise ValueError(f"rho: must lie strictly between -1 and 1, got {self.rho}")
        if self.n_view < 1:
            raise ValueError(f"n_view: must be >= 1, got {self.n_view}")

    @property
    def n_features(self) -> int:
        return 2 * self.n_view

    def bayes_accuracy(self, view: str) -> float:
        """Accuracy of the Bayes rule that sees one view only (``"a"`` or ``"b"``): Phi(delta / 2)."""
        from scipy import stats

        return float(stats.norm.cdf((self.delta_a if view == "a" else self.delta_b) / 2.0))

    def sample(self, n_cases: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """``n_cases`` cases, the first ``n_cases // 2`` of class 1: X has view A's columns, then view B's."""
        rng = np.random.default_rng(rng)
        m = self.n_view
        n_pos = n_cases // 2
        za = rng.standard_normal((n_cases, m))
        zb = self.rho * za + np.sqrt(1.0 - self.rho ** 2) * rng.standard_normal((n_cases, m))
        y = np.zeros(n_cases, dtype=np.int64)
        y[:n_pos] = 1
        sign = np.where(y == 1, 0.5, -0.5)[:, None]
        X = np.hstack([za + sign * self.delta_a / np.sqrt(m), zb + sign * self.delta_b / np.sqrt(m)])
        return X, y


class _ViewLearner:
    """A learner that sees only the columns ``cols`` of X (fit/predict, and every fold at once)."""

    def __init__(self, cols):
        self.cols = tuple(int(c) for c in cols)

    def get_params(self, deep=True):
        return {"cols": self.cols}

    def fit(self, X, y):
        self.X_, self.y_ = np.asarray(X, dtype=float), np.asarray(y)
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        both = np.vstack([self.X_, X])
        yy = np.concatenate([self.y_, np.zeros(X.shape[0], dtype=self.y_.dtype)])
        ids = np.concatenate([np.full(self.y_.size, -1), np.zeros(X.shape[0], dtype=np.int64)])[None, :]
        return self.fold_predictions(both, yy, ids)[0, self.y_.size:]


class ViewNaiveBayes(_ViewLearner):
    """Gaussian naive Bayes on the columns ``cols`` (class priors, means and variances from the training part)."""

    def fold_predictions(self, X, y, fold_ids):
        X = np.asarray(X, dtype=float)[:, self.cols]
        y = np.asarray(y, dtype=np.int64)
        ids = np.atleast_2d(np.asarray(fold_ids))
        runs, n = ids.shape
        n_folds = int(ids.max()) + 1
        n_cls = int(y.max()) + 1
        held = ids >= 0
        r_idx = np.broadcast_to(np.arange(runs)[:, None], ids.shape)
        cell = ((r_idx * n_folds + np.where(held, ids, 0)) * n_cls + y[None, :])[held]
        size = runs * n_folds * n_cls
        shape = (runs, n_folds, n_cls)
        tot_n = np.bincount(y, minlength=n_cls).astype(float)
        cnt = tot_n - np.bincount(cell, minlength=size).reshape(shape)
        d = X.shape[1]
        s1 = np.empty(shape + (d,))
        s2 = np.empty(shape + (d,))
        Xh = np.broadcast_to(X[None], (runs, n, d))[held]
        for j in range(d):
            t1 = np.bincount(y, weights=X[:, j], minlength=n_cls)
            t2 = np.bincount(y, weights=X[:, j] ** 2, minlength=n_cls)
            s1[..., j] = t1 - np.bincount(cell, weights=Xh[:, j], minlength=size).reshape(shape)
            s2[..., j] = t2 - np.bincount(cell, weights=Xh[:, j] ** 2, minlength=size).reshape(shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = s1 / cnt[..., None]
            var = np.maximum((s2 - cnt[..., None] * mean ** 2) / np.maximum(cnt[..., None] - 1, 1), 1e-9)
            logprior = np.log(cnt / cnt.sum(axis=-1, keepdims=True))
        f = np.where(held, ids, 0)
        m_i = mean[r_idx, f]                                        # (runs, n, classes, d)
        v_i = var[r_idx, f]
        ll = logprior[r_idx, f] - 0.5 * (np.log(v_i) + (X[None, :, None, :] - m_i) ** 2 / v_i).sum(axis=-1)
        ll = np.where(np.isfinite(ll), ll, -np.inf)
        pred = np.argmax(ll, axis=-1).astype(np.int64)
        return np.where(held, pred, -1)


class ViewNearestNeighbour(_ViewLearner):
    """1-nearest neighbour (Euclidean) on the columns ``cols``.

    Every fold of every run at once: the ``NEAR`` nearest cases of every case
    are found once per data set, and a held-out case takes the label of the
    first of them outside its own fold (a case is its own nearest and always
    in its own fold); the rare case whose ``NEAR`` nearest all share its fold
    is searched among all cases.
    """

    NEAR = 32
    BLOCK = 2048
    LIST_LIMIT = 5000  # above this many cases, distances are computed block by block per run

    def predict(self, X):
        """The label of the nearest training case of every row of ``X``."""
        X = np.asarray(X, dtype=float)[:, self.cols]
        T = self.X_[:, self.cols]
        sq = (T ** 2).sum(axis=1)
        out = np.empty(X.shape[0], dtype=self.y_.dtype)
        for start in range(0, X.shape[0], self.BLOCK):
            q = X[start:start + self.BLOCK]
            out[start:start + self.BLOCK] = self.y_[np.argmin(sq[None, :] - 2.0 * q @ T.T, axis=1)]
        return out

    def fold_predictions(self, X, y, fold_ids):
        X = np.asarray(X, dtype=float)[:, self.cols]
        y = np.asarray(y)
        ids = np.atleast_2d(np.asarray(fold_ids))
        n = X.shape[0]
        pred = np.full(ids.shape, -1, dtype=np.int64)
        sq = (X ** 2).sum(axis=1)
        near = None
        if n <= self.LIST_LIMIT:
            d = sq[:, None] + sq[None, :] - 2.0 * X @ X.T
            k = min(self.NEAR, n)
            near = np.argpartition(d, k - 1, axis=1)[:, :k]
            near = np.take_along_axis(near, np.argsort(np.take_along_axis(d, near, axis=1), axis=1), axis=1)
        for r, row in enumerate(ids):
            rows = np.flatnonzero(row >= 0)
            if near is not None:
                other = row[near[rows]] != row[rows][:, None]
                found = other.any(axis=1)
                first = near[rows, np.argmax(other, axis=1)]
                pred[r, rows[found]] = y[first[found]]
                rows = rows[~found]
            for start in range(0, rows.size, self.BLOCK):
                q = rows[start:start + self.BLOCK]
                dq = sq[q][:, None] + sq[None, :] - 2.0 * X[q] @ X.T
                dq[row[q][:, None] == row[None, :]] = np.inf         # neither itself nor its own fold
                pred[r, q] = y[np.argmin(dq, axis=1)]
        return pred


VIEW_LEARNERS = {"nb": ViewNaiveBayes, "1nn": ViewNearestNeighbour}
