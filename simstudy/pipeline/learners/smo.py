"""Weka 3.6's SMO with its defaults: a linear support vector machine.

Bouckaert (2004) compares pairs of learners, among them Weka's
``weka.classifiers.functions.SMO`` with its default options
(``-C 1.0 -L 0.001 -P 1.0E-12 -N 0 -V -1 -W 1
-K "weka.classifiers.functions.supportVector.PolyKernel -C 250007 -E 1.0"``).
The class here reproduces Weka's preprocessing exactly (missing values,
nominal-to-binary coding, normalisation to [0, 1], pairwise machines and their
voting) and, by default, Weka's solver itself (:mod:`simstudy.pipeline.learners._smo_weka`:
Platt's SMO with Keerthi's first modification, Weka's order of examples, its
tolerance, epsilon and tie rules), so that the machines' outputs, not only their
signs, agree with Weka's.  Weka's solver stops before the optimum; an exact solver
(libsvm, ``backend="libsvm"``) gives another approximate solution and differs on
instances close to a boundary.  The measured agreement of both is in
``benchmarks/learners_weka.md`` (section "TAN and SMO").

Input conventions are those of :mod:`simstudy.pipeline.learners.weka`: ``X`` float (n, p)
with nominal attributes coded 0..k-1 and NaN for missing; ``nominal`` a boolean
mask (or index list) of the nominal columns; ``y`` integer class codes 0..c-1.
"""

from __future__ import annotations

import numpy as np

from simstudy.errors import InputError
from simstudy.pipeline.learners.weka import _Base

__all__ = ["SMO"]


def _unique_rows(A):
    """Distinct rows of a float array and their counts (rows compared byte-wise)."""
    A = np.ascontiguousarray(A)
    keys = A.view(np.dtype((np.void, A.dtype.itemsize * A.shape[1]))).ravel()
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    return A[first], counts


BACKENDS = ("weka", "libsvm", "sklearn")


def _solve_pair(Z, t, weights, C, tol, backend):
    """Linear SVM on rows ``Z`` with targets ``t`` (0: class i, 1: class j), row ``weights``.

    Returns Weka's ``(w, b)``: output ``w . x - b``, positive for class ``j``.
    ``backend`` "libsvm" calls scikit-learn's libsvm binding directly (the same solver
    as ``SVC``, without its input validation, which costs more than the solve on
    small data); "sklearn" goes through ``sklearn.svm.SVC``.
    """
    if backend == "libsvm":
        try:
            from sklearn.svm import _libsvm
        except ImportError:  # pragma: no cover - a scikit-learn without the private module
            backend = "sklearn"
    if backend == "libsvm":
        _libsvm.set_verbosity_wrap(0)
        out = _libsvm.fit(
            Z,
            t,
            svm_type=0,
            sample_weight=weights,
            class_weight=np.empty(0),
            kernel="linear",
            C=C,
            tol=tol,
            cache_size=200.0,
            shrinking=1,
            max_iter=-1,
        )
        sv, dual, intercept = out[1], out[3], out[4]
        # libsvm's decision dual . K(sv, x) + intercept is positive for the first label (0: class i)
        return -(dual[0] @ sv), float(intercept[0])
    from sklearn.svm import SVC

    svc = SVC(kernel="linear", C=C, tol=tol).fit(Z, t.astype(np.intp), sample_weight=weights)
    # scikit-learn flips libsvm's sign for two classes: positive means classes_[1] (class j)
    return np.asarray(svc.coef_)[0].copy(), -float(svc.intercept_[0])


# a guard against a solver that never stops (Weka has none; none of the data sets tried comes near it)
_MAX_STEPS = 10_000_000


def _binarised(X, expand, k):
    """Weka's ``NominalToBinary``: the columns flagged in ``expand`` become ``k`` indicator columns."""
    if not expand.any():
        return X
    parts = []
    for j in range(X.shape[1]):
        if expand[j]:
            parts.append(X[:, j : j + 1] == np.arange(k[j])[None, :])
        else:
            parts.append(X[:, j : j + 1])
    return np.hstack(parts).astype(float)


def _normalised(Z, lo, span, const):
    """Weka's ``Normalize`` with the training minimum ``lo`` and range ``span``; constant columns 0."""
    return np.where(const[None, :], 0.0, (Z - lo[None, :]) / span[None, :])


def _smo_outputs(Z, W, B):
    """Every machine's output ``w . x - b``, summed attribute by attribute as Weka does (so that
    outputs near 0 keep Weka's sign)."""
    from simstudy.pipeline.learners import _smo_weka  # importing numba takes about 0.5 s: only when a machine is used

    return _smo_weka.outputs(Z, W, B)


def _vote_shares(out, pairs, active, c):
    """Normalised pairwise votes from the machines' outputs ``out`` (m, n_pairs)."""
    votes = np.zeros((out.shape[0], c))
    win_j = out[:, active] > 0
    i_idx, j_idx = pairs[active, 0], pairs[active, 1]
    votes += win_j.astype(float) @ np.eye(c)[j_idx]
    votes += (~win_j).astype(float) @ np.eye(c)[i_idx]
    tot = votes.sum(axis=1, keepdims=True)
    return np.where(tot > 0, votes / np.where(tot > 0, tot, 1.0), 1.0 / c)


class SMO(_Base):
    """Weka 3.6 ``weka.classifiers.functions.SMO`` with a linear kernel.

    Parameters
    ----------
    C : float, default 1.0
        Complexity constant (Weka ``-C``): the upper bound of every Lagrange
        multiplier.
    tol : float, default 1e-3
        Stopping tolerance (Weka ``-L``): Weka's solver stops when ``b_up > b_low -
        2 tol``; libsvm (the other backends) when the largest violation of the
        optimality conditions, in Weka's terms ``b_low - b_up``, is below ``tol``.
    epsilon : float, default 1e-12
        Weka's round-off epsilon (``-P``), used by the "weka" backend; libsvm has
        its own.
    random_seed : int, default 1
        Weka's ``-W``: the seed of the ``java.util.Random`` that shuffles the
        examples of each pairwise problem ("weka" backend).
    backend : {"weka", "libsvm", "sklearn"}, default "weka"
        "weka" runs Weka's own solver on Weka's order of examples (the same
        outputs as Weka 3.6 to rounding); "libsvm" solves each pairwise problem with
        scikit-learn's libsvm binding called directly (identical rows merged,
        weighted by their count), "sklearn" the same through ``sklearn.svm.SVC``.
        The libsvm solutions are closer to the optimum and differ from Weka's votes
        on a few instances near a boundary.
    nominal, n_categories, n_classes
        As in :class:`simstudy.pipeline.learners.weka.WekaNaiveBayes`.

    Notes
    -----
    Preprocessing, fitted on the training data as Weka's filters are:

    1. Training instances with a missing class are dropped.  Missing values are
       replaced by the mode (nominal; lowest code on ties) or the mean (numeric) of
       the observed training values (``ReplaceMissingValues``; 0 when none).
    2. ``NominalToBinary``: a nominal attribute with at most two categories stays
       one 0/1 column (its code); one with ``k > 2`` becomes ``k`` indicator columns.
    3. ``Normalize``: every column is mapped to ``(v - min) / (max - min)`` with the
       training minimum and maximum; a constant column becomes 0.  Test values are
       not clipped.

    Then one machine per pair of classes ``i < j`` is trained on the instances of
    those two classes (class ``i`` labelled -1, ``j`` +1), with the kernel
    ``K(x, z) = x . z`` (PolyKernel, exponent 1, no lower-order term).  Its output is
    ``w . x - b``; a positive output votes for ``j``, zero or negative for ``i``.  A
    pair with only one class in the training data always votes for that class; a
    pair with neither casts no vote.  ``predict_proba`` returns the normalised
    votes (Weka without ``-M``), ``predict`` the first class with most votes.

    Attributes
    ----------
    weights_ : ndarray, shape (n_pairs, n_columns)
        ``w`` of each pairwise machine on the normalised columns.
    offsets_ : ndarray, shape (n_pairs,)
        ``b`` of each machine (Weka's sign: output ``w . x - b``).
    pairs_ : ndarray of int, shape (n_pairs, 2)
        The classes ``(i, j)`` of each machine, ``i < j`` in lexicographic order.
    active_ : ndarray of bool, shape (n_pairs,)
        Whether the machine votes (at least one of its classes was seen).
    """

    def __init__(
        self,
        C=1.0,
        tol=1e-3,
        epsilon=1e-12,
        random_seed=1,
        backend="weka",
        nominal=None,
        n_categories=None,
        n_classes=None,
    ):
        super().__init__(nominal, n_categories, n_classes)
        self.C = C
        self.tol = tol
        self.epsilon = epsilon
        self.random_seed = random_seed
        self.backend = backend

    def _expand(self, X):
        """Replace missing values, code nominal attributes as Weka's NominalToBinary does."""
        miss = np.isnan(X)
        if miss.any():
            X = np.where(miss, self.fill_[None, :], X)
        return _binarised(X, self.expand_, self.n_categories_)

    def fit(self, X, y):
        """Fit the pairwise linear machines.

        Parameters
        ----------
        X : array_like of float, shape (n, p)
            Nominal codes 0..k-1 or numeric values, NaN for missing.
        y : array_like, shape (n,)
            Class codes 0..c-1 (NaN rows are dropped).

        Returns
        -------
        self
        """
        self._check_options()
        X, y = self._prepare(X, y)
        keep = ~np.isnan(y)
        X, y = X[keep], y[keep].astype(np.intp)
        nom = self.nominal_mask_
        k = self.n_categories_
        p = X.shape[1]
        bad = np.flatnonzero(nom & (X >= k[None, :]).any(axis=0))
        if bad.size:
            raise InputError(f"X: column {bad[0]} has a category code outside 0..{k[bad[0]] - 1}")
        obs = ~np.isnan(X)
        n_obs = obs.sum(axis=0)
        fill = np.zeros(p)
        # summed one instance after another, as Weka's ReplaceMissingValues does (numpy's pairwise
        # sum rounds differently, and a mean off in the last bit changes the solver's path)
        sums = np.cumsum(np.where(obs, X, 0.0), axis=0)[-1] if X.shape[0] else np.zeros(p)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums / np.where(n_obs > 0, n_obs, 1)
        fill[~nom] = np.where(n_obs > 0, means, 0.0)[~nom]
        nj = np.flatnonzero(nom)
        if nj.size:
            K = int(k[nj].max())
            codes = np.where(obs[:, nj], X[:, nj], 0.0).astype(np.intp) + K * np.arange(nj.size)[None, :]
            counts = np.bincount(codes.ravel(), weights=obs[:, nj].ravel().astype(float), minlength=nj.size * K)
            fill[nj] = np.argmax(counts.reshape(nj.size, K), axis=1)  # lowest code on ties; 0 if none seen
        self.fill_ = fill
        self.expand_ = nom & (k > 2)
        Z = self._expand(X)
        if Z.shape[0]:
            lo, hi = Z.min(axis=0), Z.max(axis=0)
        else:
            lo, hi = np.zeros(Z.shape[1]), np.zeros(Z.shape[1])
        const = hi == lo
        self.min_ = lo
        self.scale_ = np.where(const, 0.0, 1.0 / np.where(const, 1.0, hi - lo))
        self.range_ = np.where(const, 1.0, hi - lo)
        self.constant_ = const
        Z = self._normalise(Z)

        self.pairs_, self.weights_, self.offsets_, self.active_ = self._machines(Z, y)
        return self

    def _check_options(self):
        for name in ("C", "tol"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float, np.floating, np.integer)) and v > 0):
                raise InputError(f"{name}: must be a positive number, got {v!r}")
        if not (isinstance(self.epsilon, (int, float, np.floating, np.integer)) and self.epsilon >= 0):
            raise InputError(f"epsilon: must be a number >= 0, got {self.epsilon!r}")
        if not isinstance(self.random_seed, (int, np.integer)) or isinstance(self.random_seed, bool):
            raise InputError(f"random_seed: must be an integer (Weka's -W), got {self.random_seed!r}")
        if self.backend not in BACKENDS:
            raise InputError(f"backend: expected one of {', '.join(map(repr, BACKENDS))}, got {self.backend!r}")

    def _machines(self, Z, y):
        """The pairwise machines on normalised rows ``Z`` with classes ``y``: (pairs, W, B, active)."""
        c = self.n_classes_
        pairs = np.array([(i, j) for i in range(c) for j in range(i + 1, c)], dtype=np.intp).reshape(-1, 2)
        present = np.bincount(y, minlength=c) > 0
        W = np.zeros((len(pairs), Z.shape[1]))
        B = np.zeros(len(pairs))
        both = present[pairs[:, 0]] & present[pairs[:, 1]]
        if both.any() and self.backend == "weka":
            from simstudy.pipeline.learners import _smo_weka  # here, not at the top: importing numba takes about 0.5 s

            order = _smo_weka.weka_order(y, pairs, int(self.random_seed))
            for r in np.flatnonzero(both):
                rows = order[r]
                t = np.where(y[rows] == pairs[r, 1], 1.0, -1.0)
                W[r], B[r], steps = _smo_weka.binary_smo(
                    np.ascontiguousarray(Z[rows]), t, float(self.C), float(self.tol), float(self.epsilon), _MAX_STEPS
                )
                if steps < 0:
                    raise RuntimeError(
                        f"SMO: the pairwise machine {tuple(pairs[r])} did not converge within {_MAX_STEPS} steps"
                    )
        elif both.any():
            # identical rows of the same class merged: the same problem with C scaled by the count
            rows, counts = _unique_rows(np.column_stack([y, Z]))
            ry, rz, rw = rows[:, 0].astype(np.intp), np.ascontiguousarray(rows[:, 1:]), counts.astype(float)
            for r in np.flatnonzero(both):
                i, j = pairs[r]
                sel = (ry == i) | (ry == j)
                W[r], B[r] = _solve_pair(
                    rz[sel], (ry[sel] == j).astype(float), rw[sel], float(self.C), float(self.tol), self.backend
                )
        only_i = present[pairs[:, 0]] & ~present[pairs[:, 1]]
        only_j = ~present[pairs[:, 0]] & present[pairs[:, 1]]
        B[only_i] = 1.0
        B[only_j] = -1.0
        return pairs, W, B, both | only_i | only_j

    def _normalise(self, Z):
        return _normalised(Z, self.min_, self.range_, self.constant_)

    def transform(self, X):
        """The normalised columns the machines see (after Weka's three filters).

        Parameters
        ----------
        X : array_like of float, shape (m, p)

        Returns
        -------
        ndarray of float, shape (m, n_columns)
        """
        X = self._check_X(X)
        for j in np.flatnonzero(self.nominal_mask_):
            col = X[:, j]
            if np.any((col < 0) | (col >= self.n_categories_[j])):
                raise InputError(f"X: column {j} has a category code outside 0..{self.n_categories_[j] - 1}")
        return self._normalise(self._expand(X))

    def decision_function(self, X):
        """Output ``w . x - b`` of every pairwise machine (positive: the pair's second class).

        Parameters
        ----------
        X : array_like of float, shape (m, p)

        Returns
        -------
        ndarray of float, shape (m, n_pairs)
        """
        return _smo_outputs(
            np.ascontiguousarray(self.transform(X), dtype=float),
            np.ascontiguousarray(self.weights_),
            np.ascontiguousarray(self.offsets_),
        )

    def predict_proba(self, X):
        """Normalised pairwise votes (Weka's SMO without logistic models).

        Parameters
        ----------
        X : array_like of float, shape (m, p)

        Returns
        -------
        ndarray of float, shape (m, c)
        """
        return _vote_shares(self.decision_function(X), self.pairs_, self.active_, self.n_classes_)

    def fold_predictions(self, X, y, fold_ids):
        """Predictions of the machines fitted without each fold, for every run at once ("weka" backend).

        On all-nominal data without missing values (:meth:`_training_parts`) the
        filters' work is shared: the columns are expanded once for all cases, and one
        compiled loop (:func:`simstudy.pipeline.learners._smo_weka.fold_predictions`)
        normalises each training part by its own minimum and maximum, runs Weka's
        solver on it in Weka's order as :meth:`fit` does, normalises the held-out
        cases with the part's ranges and votes as :meth:`predict` does.  The
        predictions are those of one fit per fold.  Returns None (fit fold by fold)
        for the libsvm backends and where :meth:`_training_parts` does.
        Arguments and result as :meth:`~simstudy.pipeline.learners.base.Learner.fold_predictions`.
        """
        self._check_options()
        if self.backend != "weka":
            return None
        parts = self._training_parts(X, y, fold_ids)
        if parts is None:
            return None
        from simstudy.pipeline.learners import _smo_weka  # here, not at the top: importing numba takes about 0.5 s

        X, y, k, c = parts.X, parts.y, parts.k, parts.c
        Z_all = np.ascontiguousarray(_binarised(X.astype(float), k > 2, k), dtype=float)
        pairs = np.array([(i, j) for i in range(c) for j in range(i + 1, c)], dtype=np.int64).reshape(-1, 2)
        fold_ids = np.atleast_2d(np.asarray(fold_ids)).astype(np.int64)
        pred, ok = _smo_weka.fold_predictions(
            Z_all,
            y.astype(np.int64),
            fold_ids,
            pairs,
            c,
            float(self.C),
            float(self.tol),
            float(self.epsilon),
            _MAX_STEPS,
            np.uint64(_smo_weka.JavaRandom(int(self.random_seed)).seed),
        )
        if not ok:
            raise RuntimeError(f"SMO: a pairwise machine did not converge within {_MAX_STEPS} steps")
        return pred
