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

Four kinds of learner, from stable to unstable (how much the fitted model
changes when a few training cases change), all with ``fold_predictions``
(every fold of every run predicted in one call, as
:func:`simstudy.pipeline.scores.cv_accuracies` uses it):

* :class:`ViewNaiveBayes`: Gaussian naive Bayes on one view (stable);
* :class:`ViewLDA`: linear discriminant analysis on one view, one pooled
  covariance matrix (stable);
* :class:`ViewTree`: an unpruned CART classification tree on one view
  (unstable; compiled, :mod:`simstudy.apps.proving._view_tree`);
* :class:`ViewNearestNeighbour`: 1-nearest neighbour on one view (unstable,
  Dietterich's IB1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simstudy.errors import InputError

__all__ = [
    "TwoViewWorld",
    "NadeauBengioWorld",
    "ViewNaiveBayes",
    "ViewLDA",
    "ViewTree",
    "ViewNearestNeighbour",
    "VIEW_LEARNERS",
]


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
            raise InputError(f"delta_a, delta_b: must be >= 0, got {self.delta_a}, {self.delta_b}")
        if not -1.0 < self.rho < 1.0:
            raise InputError(f"rho: must lie strictly between -1 and 1, got {self.rho}")
        if self.n_view < 1:
            raise InputError(f"n_view: must be >= 1, got {self.n_view}")

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
        zb = self.rho * za + np.sqrt(1.0 - self.rho**2) * rng.standard_normal((n_cases, m))
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
        return self.fold_predictions(both, yy, ids)[0, self.y_.size :]


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
            var = np.maximum((s2 - cnt[..., None] * mean**2) / np.maximum(cnt[..., None] - 1, 1), 1e-9)
            logprior = np.log(cnt / cnt.sum(axis=-1, keepdims=True))
        f = np.where(held, ids, 0)
        m_i = mean[r_idx, f]  # (runs, n, classes, d)
        v_i = var[r_idx, f]
        ll = logprior[r_idx, f] - 0.5 * (np.log(v_i) + (X[None, :, None, :] - m_i) ** 2 / v_i).sum(axis=-1)
        ll = np.where(np.isfinite(ll), ll, -np.inf)
        pred = np.argmax(ll, axis=-1).astype(np.int64)
        return np.where(held, pred, -1)


class ViewLDA(_ViewLearner):
    """Linear discriminant analysis on the columns ``cols``, with one pooled within-class covariance matrix.

    Fitted on a training part: the class priors are the class shares, the class
    means the class averages, and S the pooled within-class covariance (the
    within-class sums of squares and products divided by n_train - n_classes,
    counting the classes present).  A case x goes to the class with the largest
    ``x' S^-1 mu_c - mu_c' S^-1 mu_c / 2 + log prior_c``, ties to the lower class
    index; a class absent from the training part is never predicted.

    S^-1 is the pseudo-inverse: directions in which the classes do not vary
    (eigenvalues of S at most ``RTOL`` times the largest), such as a constant
    column, are left out of the discriminant, so a singular S (one case per
    class, one class only) still gives predictions, from the priors if nothing
    else.  ``fold_predictions`` fits every fold of every run at once: the
    training part's counts, sums and cross products are the data set's totals
    minus the fold's.
    """

    RTOL = 1e-10

    def fold_predictions(self, X, y, fold_ids):
        X = np.asarray(X, dtype=float)[:, self.cols]
        X = X - np.median(X, axis=0)  # a constant column becomes exactly 0
        y = np.asarray(y, dtype=np.int64)
        ids = np.atleast_2d(np.asarray(fold_ids))
        runs, n = ids.shape
        d = X.shape[1]
        n_folds = int(ids.max()) + 1
        n_cls = int(y.max()) + 1
        held = ids >= 0
        r_idx = np.broadcast_to(np.arange(runs)[:, None], ids.shape)
        f = np.where(held, ids, 0)
        fold_cell = (r_idx * n_folds + f)[held]
        cell = fold_cell * n_cls + np.broadcast_to(y, ids.shape)[held]
        n_cells = runs * n_folds
        shape = (runs, n_folds, n_cls)
        cnt = np.bincount(y, minlength=n_cls) - np.bincount(cell, minlength=n_cells * n_cls).reshape(shape)
        held_X = np.broadcast_to(X, (runs, n, d))[held]
        sums = np.empty(shape + (d,))
        cross = np.empty((runs, n_folds, d, d))
        for j in range(d):
            sums[..., j] = np.bincount(y, weights=X[:, j], minlength=n_cls) - np.bincount(
                cell, weights=held_X[:, j], minlength=n_cells * n_cls
            ).reshape(shape)
            for k in range(j + 1):
                held_cross = np.bincount(fold_cell, weights=held_X[:, j] * held_X[:, k], minlength=n_cells)
                cross[..., j, k] = cross[..., k, j] = (X[:, j] @ X[:, k] - held_cross).reshape(runs, n_folds)
        present = cnt > 0
        means = sums / np.maximum(cnt, 1)[..., None]  # 0 for a class absent from the training part
        n_train = cnt.sum(axis=-1)
        scatter = cross - np.einsum("rfc,rfcj,rfck->rfjk", cnt, means, means)
        cov = scatter / np.maximum(n_train - present.sum(axis=-1), 1)[..., None, None]
        eigval, eigvec = np.linalg.eigh(cov)
        keep = eigval > self.RTOL * np.maximum(eigval[..., -1:], 0.0)
        inv_val = np.where(keep, 1.0 / np.where(keep, eigval, 1.0), 0.0)
        cov_inv = (eigvec * inv_val[..., None, :]) @ np.swapaxes(eigvec, -1, -2)
        coef = means @ cov_inv  # S^-1 mu_c, shape (runs, folds, classes, d)
        with np.errstate(divide="ignore"):
            log_prior = np.log(cnt / np.maximum(n_train, 1)[..., None])
        const = np.where(present, log_prior - 0.5 * (coef * means).sum(axis=-1), -np.inf)
        run_h, fold_h = r_idx[held], f[held]
        score = np.einsum("mcj,mj->mc", coef[run_h, fold_h], held_X) + const[run_h, fold_h]
        pred = np.full(ids.shape, -1, dtype=np.int64)
        pred[held] = np.argmax(score, axis=-1)
        return pred


class ViewTree(_ViewLearner):
    """Unpruned CART classification tree on the columns ``cols`` (Gini impurity, binary splits at midpoints).

    The rules (candidate splits, ties, when a node stays a leaf) are listed in
    :mod:`simstudy.apps.proving._view_tree`, which grows the tree in compiled code:
    every feature is sorted once per data set, and ``fold_predictions`` fits
    every fold of every run in one call.  Class labels are codes 0, 1, ...
    """

    def fit(self, X, y):
        from simstudy.apps.proving import _view_tree  # here, not at the top: importing numba takes about 0.5 s

        X = self._view(X)
        y = np.asarray(y, dtype=np.int64)
        self.tree_ = _view_tree.fit(X, y, self._sorted_cases(X), int(y.max()) + 1)
        return self

    def predict(self, X):
        """The class of the leaf every row of ``X`` reaches."""
        from simstudy.apps.proving import _view_tree

        return _view_tree.predict(self._view(X), *self.tree_)

    def fold_predictions(self, X, y, fold_ids):
        from simstudy.apps.proving import _view_tree

        X = self._view(X)
        y = np.asarray(y, dtype=np.int64)
        ids = np.ascontiguousarray(np.atleast_2d(fold_ids), dtype=np.int64)
        return _view_tree.fold_predictions(X, y, self._sorted_cases(X), ids, int(y.max()) + 1)

    def _view(self, X):
        """The columns ``cols`` of X as a C-ordered float array."""
        return np.ascontiguousarray(np.asarray(X, dtype=float)[:, self.cols])

    @staticmethod
    def _sorted_cases(X):
        """Row j: the cases sorted by column j of X (equal values in case order)."""
        return np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T)


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
        sq = (T**2).sum(axis=1)
        out = np.empty(X.shape[0], dtype=self.y_.dtype)
        for start in range(0, X.shape[0], self.BLOCK):
            q = X[start : start + self.BLOCK]
            out[start : start + self.BLOCK] = self.y_[np.argmin(sq[None, :] - 2.0 * q @ T.T, axis=1)]
        return out

    def fold_predictions(self, X, y, fold_ids):
        X = np.asarray(X, dtype=float)[:, self.cols]
        y = np.asarray(y)
        ids = np.atleast_2d(np.asarray(fold_ids))
        n = X.shape[0]
        pred = np.full(ids.shape, -1, dtype=np.int64)
        sq = (X**2).sum(axis=1)
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
                q = rows[start : start + self.BLOCK]
                dq = sq[q][:, None] + sq[None, :] - 2.0 * X[q] @ X.T
                dq[row[q][:, None] == row[None, :]] = np.inf  # neither itself nor its own fold
                pred[r, q] = y[np.argmin(dq, axis=1)]
        return pred


VIEW_LEARNERS = {"nb": ViewNaiveBayes, "1nn": ViewNearestNeighbour, "lda": ViewLDA, "tree": ViewTree}


@dataclass(frozen=True)
class NadeauBengioWorld:
    """The classification setting of Nadeau and Bengio (2003): two bivariate Gaussian classes.

    Class 0 is N((0, 0), I), class 1 is N((1, 1), I / scale); half the cases of
    a sample (the first ``n // 2``) are of class 1, as in :class:`TwoViewWorld`.
    The two features are exchangeable (the class means and covariances are
    symmetric in them), so one learner fitted on the first feature and the same
    learner fitted on the second have equal expected accuracy: an exact null.

    Parameters
    ----------
    scale : float
        ``Sigma1 = I / scale`` (Nadeau and Bengio used 2 and 6).
    """

    scale: float = 2.0

    def __post_init__(self):
        if not self.scale > 0:
            raise InputError(f"scale: must be > 0, got {self.scale!r}")

    n_features = 2

    def sample(self, n_cases: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """``n_cases`` cases, the first ``n_cases // 2`` of class 1: X has the two features."""
        rng = np.random.default_rng(rng)
        n_pos = n_cases // 2
        X = rng.standard_normal((n_cases, 2))
        X[:n_pos] = X[:n_pos] / np.sqrt(self.scale) + 1.0
        y = np.zeros(n_cases, dtype=np.int64)
        y[:n_pos] = 1
        return X, y
