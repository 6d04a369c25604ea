"""Learners that reproduce the R defaults used by Berrar (e1071 and randomForest).

Berrar (2017, Sec. 4; Algorithms 2-4) compares naive Bayes, a support vector
machine and a random forest, all fitted in R with their package defaults:

* e1071 ``naiveBayes``: one Gaussian per class and feature, the mean and the
  standard deviation from R's ``mean`` and ``sd`` (ddof = 1), no smoothing;
  ``predict.naiveBayes`` replaces a standard deviation ``<= eps`` (0) and a
  density ``<= eps`` by ``threshold`` (0.001) and takes the class with the
  largest ``log(count) + sum(log density)``.
* e1071 ``svm``: C-classification with libsvm, radial kernel, cost 1,
  ``gamma = 1/ncol(x)``, tolerance 0.001, shrinking on, and every input column
  centred and divided by its training standard deviation (``scale = TRUE``).
* ``randomForest``: 500 trees grown on bootstrap samples of size n, Gini splits
  on ``mtry = floor(sqrt(p))`` candidate features per node, nodes split down to
  size 1 (``nodesize = 1``), majority vote with ties broken at random.

The classes are scikit-learn estimators through
:class:`simstudy.pipeline.learners.base.Learner` (``fit``/``predict``/``score``,
``get_params``/``set_params``, ``clone``-able).  :class:`E1071SVC` and
:class:`RandomForestR` delegate to scikit-learn's compiled libsvm and tree code;
the agreement with R measured on Berrar's data is recorded in
``benchmarks/learners_r.md``.  :func:`naive_bayes_predict_batch` fits and
applies e1071's naive Bayes to a whole stack of equally shaped problems at once
(e.g. data set i of every replication of Algorithm 2).

References
----------
D. Berrar (2017). Confidence curves: an alternative to null hypothesis
significance testing for the comparison of classifiers. Machine Learning 106,
911-949 (Algorithms 2-4 and Sec. 4).
"""

from __future__ import annotations

import math

import numpy as np

from simstudy.errors import InputError
from simstudy.pipeline.learners.base import Learner

__all__ = ["E1071NaiveBayes", "E1071SVC", "RandomForestR", "naive_bayes_predict_batch"]

_BACKENDS = ("sklearn", "intelex")
# R's M_1_SQRT_2PI, used by dnorm().
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _check_Xy(X, y):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise InputError(f"X: expected a 2-d array (n_cases, n_features), got shape {X.shape}")
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise InputError(f"X: needs at least one case and one feature, got shape {X.shape}")
    if not np.isfinite(X).all():
        raise InputError("X: contains NaN or infinite values")
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise InputError(f"y: expected shape ({X.shape[0]},), got {y.shape}")
    return X, y


def _check_X(estimator, X):
    if not hasattr(estimator, "classes_"):
        raise InputError(f"X: {type(estimator).__name__} is not fitted yet; call fit first")
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != estimator.n_features_in_:
        raise InputError(f"X: expected shape (n, {estimator.n_features_in_}), got {X.shape}")
    if not np.isfinite(X).all():
        raise InputError("X: contains NaN or infinite values")
    return X


def _check_backend(backend):
    if backend not in _BACKENDS:
        raise InputError(f"backend: must be one of {_BACKENDS}, got {backend!r}")


# --------------------------------------------------------------------------- naive Bayes


def _nb_tables(X, onehot):
    """Class counts, means and sds (ddof = 1) over the case axis -2; leading axes kept.

    As R computes ``tapply(x, y, mean)`` and ``tapply(x, y, sd)``: the mean in two
    passes with long-double sums (``sum(x) / n``, then that plus ``sum(x - mean) / n``),
    the variance as the long-double sum of ``(x - mean)^2`` over ``n - 1``, rounded to
    double, and ``sd = sqrt(var)``.  A feature whose values within a class are all
    equal gets a mean equal to that value and a standard deviation of exactly 0, so
    that e1071's ``sd == 0 -> threshold`` rule applies whatever the rounding.
    """
    L = np.longdouble
    counts = onehot.sum(axis=-2)  # (..., c)
    oh = onehot.astype(L)
    XL = X.astype(L)
    n = counts.astype(L)[..., :, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        first = np.einsum("...nc,...np->...cp", oh, XL) / n
        resid = np.einsum("...nc,...ncp->...cp", oh, XL[..., :, None, :] - first[..., None, :, :])
        means = (first + resid / n).astype(float)
        centred = XL[..., :, None, :] - means.astype(L)[..., None, :, :]  # (..., n, c, p)
        ss = np.einsum("...nc,...ncp->...cp", oh, centred * centred)
        sds = np.sqrt((ss / (n - 1)).astype(float))
        # Constancy decided exactly: the largest and the smallest value of the class agree.
        member = onehot[..., :, :, None] > 0  # (..., n, c, 1)
        hi = np.where(member, X[..., :, None, :], -np.inf).max(axis=-3)
        lo = np.where(member, X[..., :, None, :], np.inf).min(axis=-3)
    constant = hi == lo
    means = np.where(constant, hi, means)
    sds = np.where(constant, 0.0, sds)
    # R's sd() of one value is NA and of none is NA too.
    sds = np.where(counts[..., :, None] >= 2, sds, np.nan)
    return counts, means, sds


def _in_order_sum(A):
    """Sum over axis 0 term after term, R's order (numpy's ``sum`` adds pairwise), in A's dtype."""
    return np.cumsum(A, axis=0)[-1]


def _nb_tables_by_class(X, codes, n_classes):
    """:func:`_nb_tables` of one problem, class by class: the same values, about half the time.

    Each class's rows, in their order, summed term after term as R does.  For two
    or more classes this is the order of :func:`_nb_tables`'s ``einsum`` too, so
    the tables are equal to the last bit (``tests/pipeline/test_learners_r.py``); with one
    class ``einsum`` takes a faster path whose order differs from R's.
    """
    L = np.longdouble
    p = X.shape[1]
    counts = np.bincount(codes, minlength=n_classes).astype(float)
    means = np.full((n_classes, p), np.nan)
    sds = np.full((n_classes, p), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        for k in range(n_classes):
            Xk = X[codes == k]
            n = Xk.shape[0]
            if n == 0:
                continue
            XL = Xk.astype(L)
            first = _in_order_sum(XL) / L(n)
            mean = (first + _in_order_sum(XL - first) / L(n)).astype(float)
            centred = XL - mean.astype(L)
            sd = np.sqrt((_in_order_sum(centred * centred) / L(n - 1)).astype(float))
            hi, lo = Xk.max(axis=0), Xk.min(axis=0)
            constant = hi == lo
            means[k] = np.where(constant, hi, mean)
            if n >= 2:  # R's sd() of one value is NA
                sds[k] = np.where(constant, 0.0, sd)
    return counts, means, sds


def _floored_sds(sds, threshold, eps):
    """e1071's predict.naiveBayes: a standard deviation ``<= eps`` is replaced by ``threshold``."""
    return np.where(sds <= eps, threshold, sds)


def _nb_log_scores(Xt, counts, means, sds, threshold, eps):
    """e1071's predict.naiveBayes: log(apriori) + sum over features of log(density)."""
    sds = _floored_sds(sds, threshold, eps)[..., None, :, :]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        # in place, each operation as written: z = (x - mean) / sd; dens = INV * exp(-0.5 * z * z) / sd
        z = np.subtract(Xt[..., :, None, :], means[..., None, :, :])  # (..., m, c, p)
        z /= sds
        dens = np.multiply(z, -0.5)
        dens *= z
        np.exp(dens, out=dens)
        dens *= _INV_SQRT_2PI
        dens /= sds
        np.copyto(dens, threshold, where=dens <= eps)
        scores = np.log(counts)[..., None, :] + np.log(dens, out=dens).sum(axis=-1)
    # which.max() skips NA: a class whose score is NaN (one training case, sd = NA) never wins.
    return np.where(np.isnan(scores), -np.inf, scores)


def _nb_predict(Xt, counts, means, sds, threshold, eps):
    """``_nb_log_scores(...).argmax(axis=1)`` for one problem, from three small matrix products.

    With e1071's ``eps = 0`` a score is ``log(count) + sum(log(INV exp(-z^2 / 2) / sd))``
    with ``z = (x - mean) / sd``; as long as every density stays within the normal
    doubles (none is replaced by ``threshold``), it differs from ``log(count) +
    sum(log(INV / sd)) - Q / 2`` only by rounding, where ``Q = sum(x^2 / sd^2) -
    2 sum(x mean / sd^2) + sum(mean^2 / sd^2)`` comes from matrix products.  Both
    are within ``64 u (p + 20)`` times the terms' magnitudes of the exact value (the
    roundings of z, exp and log per feature, of the products and of the sums, with exp
    and log taken as 4 ulp each, add up to less than a thirtieth of that), and where
    a case's largest score leads every other by more than their bounds (about 3e-10
    on Berrar's data) it is the class the scores of :func:`_nb_log_scores` pick.
    The other cases (near ties, densities out of the normal range), and every case
    when ``eps > 0`` or a class has one training case (sd NA), get those scores.
    """
    if eps != 0 or np.isnan(sds).any():
        return _nb_log_scores(Xt, counts, means, sds, threshold, eps).argmax(axis=1)
    from simstudy.pipeline.learners._e1071_nb import choose

    sd = _floored_sds(sds, threshold, eps)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        inv = 1.0 / (sd * sd)  # (c, p)
        scaled = means * inv
        own = (means * scaled).sum(axis=1)
        quad = (Xt * Xt) @ inv.T  # (m, c)
        cross = Xt @ scaled.T
        spread = np.abs(Xt) @ np.abs(scaled).T
        best, sure = choose(quad, cross, spread, own, np.log(_INV_SQRT_2PI / sd), np.log(counts))
    if not sure.all():
        unsure = ~sure
        best[unsure] = _nb_log_scores(Xt[unsure], counts, means, sds, threshold, eps).argmax(axis=1)
    return best


def naive_bayes_predict_batch(X_train, y_train, X_test, *, n_classes=2, threshold=0.001, eps=0.0):
    """Fit e1071's naive Bayes on a stack of problems and predict their test sets.

    Parameters
    ----------
    X_train : array (..., n, p)
        Training inputs; the leading axes index independent problems of equal shape.
    y_train : int array (..., n)
        Class codes 0 .. n_classes - 1.
    X_test : array (..., m, p)
        Test inputs, leading axes as ``X_train``.
    n_classes : int
        Number of classes c.
    threshold, eps : float
        As in e1071's ``predict.naiveBayes``: standard deviations and densities
        ``<= eps`` are replaced by ``threshold``.

    Returns
    -------
    int array (..., m)
        Predicted class codes: the class maximising ``log(count) + sum(log density)``
        (Berrar 2017, Sec. 4, e1071 defaults); ties go to the lowest code (R's
        ``which.max``).  A class absent from a problem's training set is never
        predicted.  A problem where every class present has a single training
        case has no class with a score (R's ``predict`` returns no class; the
        estimator's ``fit`` refuses such data): its predictions are -1.
    """
    X_train = np.asarray(X_train, dtype=float)
    X_test = np.asarray(X_test, dtype=float)
    y_train = np.asarray(y_train)
    if X_train.ndim < 2:
        raise InputError(f"X_train: expected shape (..., n, p), got {X_train.shape}")
    if X_test.ndim != X_train.ndim or X_test.shape[:-2] != X_train.shape[:-2] or X_test.shape[-1] != X_train.shape[-1]:
        raise InputError(f"X_test: expected shape {X_train.shape[:-2]} + (m, {X_train.shape[-1]}), got {X_test.shape}")
    if y_train.shape != X_train.shape[:-1]:
        raise InputError(f"y_train: expected shape {X_train.shape[:-1]}, got {y_train.shape}")
    if not (np.isfinite(X_train).all() and np.isfinite(X_test).all()):
        raise InputError("X_train: X_train and X_test must be finite")
    if y_train.size and (y_train.min() < 0 or y_train.max() >= n_classes):
        raise InputError(f"y_train: class codes must lie in 0..{n_classes - 1}")
    onehot = (y_train[..., None] == np.arange(n_classes)).astype(float)
    counts, means, sds = _nb_tables(X_train, onehot)
    scores = _nb_log_scores(X_test, counts, means, sds, threshold, eps)
    pred = scores.argmax(axis=-1)
    none = ~np.isfinite(scores).any(axis=-1)  # every class score NA (or no class at all)
    return np.where(none, -1, pred) if none.any() else pred


class E1071NaiveBayes(Learner):
    """Gaussian naive Bayes as R's ``e1071::naiveBayes`` with ``predict`` defaults.

    Parameters
    ----------
    threshold : float, default 0.001
        Replaces standard deviations and densities ``<= eps`` (e1071's ``threshold``).
    eps : float, default 0
        e1071's ``eps``.

    Notes
    -----
    Differences from scikit-learn's ``GaussianNB``: the standard deviation has
    ddof = 1 and no variance smoothing; a constant feature within a class has
    sd 0, which e1071 replaces by 0.001, so a test value off that constant gets
    a density of (almost) 0, replaced by 0.001 again.  Class priors are the
    training counts (e1071's ``apriori``).  A class with one training case has
    sd NA in R, so its score is NA and ``which.max`` never picks it; we do the
    same.  When *every* class has a single training case, every score is NA
    and R's ``predict`` returns no class at all (an empty factor): :meth:`fit`
    then refuses the data instead of predicting the first class.  With one
    class of two or more training cases every prediction is that class.
    Berrar (2017, Sec. 4) used these defaults in studies 1 and 2.
    """

    def __init__(self, threshold=0.001, eps=0.0):
        self.threshold = threshold
        self.eps = eps

    def fit(self, X, y):
        X, y = _check_Xy(X, y)
        if not (np.isfinite(self.threshold) and self.threshold > 0):
            raise InputError(f"threshold: must be a positive number, got {self.threshold!r}")
        if not (np.isfinite(self.eps) and self.eps >= 0):
            raise InputError(f"eps: must be a number >= 0, got {self.eps!r}")
        classes, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
        if (counts == 1).all():
            raise InputError(
                f"y: each of the {classes.size} class(es) has a single training case, so no class has a "
                "standard deviation (R's sd() of one value is NA) and e1071's naiveBayes predicts nothing "
                "(R's predict returns no class); it needs two cases of at least one class"
            )
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        from simstudy.pipeline.learners import _extended

        tables = _extended.nb_tables if _extended.AVAILABLE else _nb_tables_by_class
        self.class_count_, self.theta_, self.sd_ = tables(X, codes.ravel(), self.classes_.size)
        return self

    def _log_scores(self, X):
        X = _check_X(self, X)
        return _nb_log_scores(X, self.class_count_, self.theta_, self.sd_, self.threshold, self.eps)

    def predict(self, X):
        """Class with the largest ``log(count) + sum(log density)`` (ties: first class)."""
        X = _check_X(self, X)
        return self.classes_[_nb_predict(X, self.class_count_, self.theta_, self.sd_, self.threshold, self.eps)]

    def predict_proba(self, X):
        """Posterior probabilities as e1071's ``type = "raw"``.

        Where some class has a single training case, its standard deviation
        is NA in R, so its density and every case's normalised posterior are NA:
        R returns NA for every class of every case, and so do we (NaN), while
        :meth:`predict` still picks among the other classes as R's ``type =
        "class"`` does.  A score computed from these probabilities (log loss,
        Brier, AUC) is then refused with the reason
        (:func:`simstudy.pipeline.outputs.outputs_scores`).
        """
        s = self._log_scores(X)
        if np.isnan(self.sd_).any():  # benchmarks/r/nb_single_row_class.R
            return np.full(s.shape, np.nan)
        s = s - s.max(axis=1, keepdims=True)
        p = np.exp(s)
        return p / p.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------- SVM


def _any_constant_column(X):
    """True when some column holds one value only: e1071's ``svm`` then scales no column.

    e1071 tests ``var(column) == 0``; R's two-pass variance of a column of equal
    values is exactly 0 and of any other column positive, so the test is decided on
    the values themselves, not on a floating-point standard deviation (numpy's can
    be about 1e-16 for a constant column).
    """
    from simstudy.pipeline.learners._radial import any_constant_column

    return bool(any_constant_column(X))


def _r_scale(X):
    """Centre and scale of R's ``scale(X)``, as e1071's ``svm`` applies it.

    ``colMeans`` (a long-double sum over n, rounded to double), then the columns
    centred in double, and ``sqrt(sum(v^2) / (n - 1))`` with the sum in long double,
    each sum in R's order.  Compiled where numpy's ``longdouble`` is the x87 format
    (:mod:`._extended`, equal to the last bit), in numpy elsewhere.
    """
    from simstudy.pipeline.learners import _extended

    if _extended.AVAILABLE:
        return _extended.r_scale(np.ascontiguousarray(X))
    L = np.longdouble
    center = (_in_order_sum(X.astype(L)) / L(X.shape[0])).astype(float)
    v = X - center
    ss = _in_order_sum((v * v).astype(L)).astype(float)
    return center, np.sqrt(ss / max(1, X.shape[0] - 1))


def _first_appearance(y):
    """Sorted classes, each case's index into them, and the classes' order of first appearance."""
    classes, first_index, codes = np.unique(y, return_index=True, return_inverse=True)
    return classes, codes.ravel(), np.argsort(first_index, kind="stable")


def _kernel_product(Xs, gamma):
    """The radial kernel matrix from one matrix product (symmetric, diagonal 1), and the rows' squared norms.

    The product is BLAS's ``dsyrk`` (one triangle: 1.1 to 1.8 times as fast as the
    full product on Berrar's shapes); its lower triangle in column order is the
    upper triangle of the C-ordered transpose that the exponents are read from.
    """
    from scipy.linalg.blas import dsyrk

    from simstudy.pipeline.learners._radial import exponents_symmetric

    sq = np.einsum("ij,ij->i", Xs, Xs)
    K = dsyrk(1.0, Xs.T, trans=1, lower=1).T
    exponents_symmetric(K, sq, float(gamma))
    np.exp(K, out=K)
    return K, sq


def _rbf_kernel(Xs, gamma):
    """The radial kernel matrix exp(-gamma |x_i - x_j|^2) of the rows of ``Xs``, as libsvm sees it.

    libsvm evaluates ``exp(-gamma ((|x_i|^2 + |x_j|^2) - 2 x_i.x_j))`` entry by
    entry with BLAS dot products and keeps each entry as a 4-byte float in its
    cache.  Here the matrix comes from one product and one compiled pass in
    libsvm's order of terms, but the product's dot products round differently
    from libsvm's in the last bits of a double.  That reaches the solver only where an
    entry lies so close to the midpoint between two 4-byte floats that the two
    could round to different sides of it; those few entries (a bound on the
    difference, from the dot products' length and the largest squared norm,
    decides which) are computed again exactly as libsvm computes them.  The
    solver thus sees libsvm's own 4-byte values and fits libsvm's model to the
    last bit (``tests/pipeline/test_learners_r.py``).  The diagonal is libsvm's exact 1.
    Returns None when more entries than rows would need computing again (inputs
    of very large norm widen the bound): libsvm then evaluates the kernel itself.
    """
    K, sq = _kernel_product(Xs, gamma)
    # Each dot product of d terms is within gamma_d = d u / (1 - d u) times max |x|^2 of its exact
    # value, so the squared distances differ by at most (4 gamma_d + 12 u) max |x|^2 and the
    # entries relatively by gamma times that, plus exp's rounding: delta, doubled for margin.
    u = np.finfo(float).eps / 2
    gd = Xs.shape[1] * u / (1 - Xs.shape[1] * u)
    delta = 2.0 * (gamma * (4 * gd + 12 * u) * float(sq.max(initial=0.0)) + 4 * u)
    from simstudy.pipeline.learners._radial import near_midpoints

    rows, cols, count = near_midpoints(K, delta, Xs.shape[0])
    if count > Xs.shape[0]:
        return None
    if count:
        from scipy.linalg.blas import ddot  # the BLAS that scikit-learn's libsvm calls

        rows, cols = rows[:count].tolist(), cols[:count].tolist()
        own = {i: ddot(Xs[i], Xs[i]) for i in set(rows) | set(cols)}
        for i, j in zip(rows, cols):
            K[i, j] = K[j, i] = math.exp(-gamma * ((own[i] + own[j]) - 2.0 * ddot(Xs[i], Xs[j])))
    return K


def _libsvm_binary(Xs, y, gamma, cost, tol, shrinking, cache_size):
    """libsvm's C-classification with the radial kernel, for two classes coded 0 and 1.

    libsvm is fitted on the kernel matrix (:func:`_rbf_kernel`), which costs
    about half of libsvm's own evaluation of the kernel entry by entry on
    Berrar's data sets, and its wrapper is called directly: ``sklearn.svm.SVC.fit``
    validates its input and parameters at about 2 ms per call, as much as the
    solver.  Returns the support indices, the support vectors, and the dual
    coefficients and intercept with scikit-learn's signs (``SVC.support_``,
    ``support_vectors_``, ``dual_coef_``, ``intercept_``): the radial-kernel
    ``SVC``'s model.  Should the wrapper's signature change, ``SVC`` fits on the
    same matrix.
    """
    Xs = np.ascontiguousarray(Xs, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    K = _rbf_kernel(Xs, gamma)
    data, kernel = (Xs, "rbf") if K is None else (K, "precomputed")
    try:
        from sklearn.svm import _libsvm

        _libsvm.set_verbosity_wrap(0)  # libsvm prints its progress unless told otherwise
        support, _, _, dual, intercept, _, _, _, _ = _libsvm.fit(
            data,
            y,
            svm_type=0,
            kernel=kernel,
            gamma=float(gamma),
            C=float(cost),
            tol=float(tol),
            shrinking=int(bool(shrinking)),
            cache_size=float(cache_size),
            probability=0,
            max_iter=-1,
        )
        # libsvm's two-class decision is the negative of scikit-learn's
        dual, intercept = -np.asarray(dual), -np.asarray(intercept)
    except (ImportError, AttributeError, TypeError, ValueError):
        from sklearn.svm import SVC

        svc = SVC(C=cost, kernel=kernel, gamma=gamma, tol=tol, shrinking=shrinking, cache_size=cache_size)
        svc.fit(data, y)
        support, dual, intercept = svc.support_, svc.dual_coef_, svc.intercept_
    support = np.asarray(support, dtype=np.intp)
    return support, Xs[support], dual, intercept


class E1071SVC(Learner):
    """Support vector classifier with the defaults of R's ``e1071::svm``.

    Parameters
    ----------
    cost : float, default 1
        C of C-classification.
    gamma : float or None, default None
        Radial kernel parameter; None means ``1 / n_features`` (e1071's default).
    scale : bool, default True
        Centre and scale every input column by its training mean and standard
        deviation (ddof = 1), as e1071's ``scale = TRUE``.  As in e1071, if any
        column is constant in the training data (all its values equal; R's variance
        is then exactly 0), no column is scaled (e1071 warns; we record it in
        ``scaled_`` instead).  Centre and scale are computed as R's ``scale``.
    tol : float, default 0.001
        libsvm stopping tolerance (e1071's ``tolerance``).
    shrinking : bool, default True
    cache_size : float, default 40
        Kernel cache in MB (e1071's ``cachesize``); affects speed only.
    backend : {"sklearn", "intelex"}
        ``"sklearn"``: scikit-learn's bundled libsvm (the same solver as e1071).
        ``"intelex"``: ``sklearnex.svm.SVC`` from scikit-learn-intelex (optional).

    Notes
    -----
    Berrar (2017, Sec. 4) used these defaults in all four studies.  With one
    class in the training data libsvm cannot be fitted; every prediction is then
    that class and ``decision_function`` is 0.  As in e1071, libsvm sees the
    classes in their order of first appearance in the training data
    (``libsvm_classes_``), which orients each pairwise problem and breaks ties: a
    decision value of exactly 0 and equal votes of several classes.

    With two classes and the scikit-learn backend, libsvm is fitted on the kernel
    matrix computed in one product, through its wrapper called directly (the
    same model as ``sklearn.svm.SVC``'s to the last bit, see
    :func:`_libsvm_binary`), and the decision values are computed with one matrix
    product too, except near 0, where they are summed as libsvm sums them inside R
    (:func:`_libsvm_decision_values`), so that exact ties fall as in e1071; ``support_``, ``support_vectors_``, ``dual_coef_`` and
    ``intercept_`` hold the model with scikit-learn's signs, and ``svc_`` (the
    radial-kernel ``SVC``) is fitted on first use.  ``BENCHMARKS.md``: the speed
    of Berrar's studies 1 and 2.
    """

    def __init__(self, cost=1.0, gamma=None, scale=True, tol=0.001, shrinking=True, cache_size=40.0, backend="sklearn"):
        self.cost = cost
        self.gamma = gamma
        self.scale = scale
        self.tol = tol
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.backend = backend

    def _make_svc(self, gamma):
        if self.backend == "intelex":
            from sklearnex.svm import SVC
        else:
            from sklearn.svm import SVC
        return SVC(
            C=self.cost, kernel="rbf", gamma=gamma, tol=self.tol, shrinking=self.shrinking, cache_size=self.cache_size
        )

    def fit(self, X, y):
        X, y = _check_Xy(X, y)
        _check_backend(self.backend)
        if not (np.isfinite(self.cost) and self.cost > 0):
            raise InputError(f"cost: must be a positive number, got {self.cost!r}")
        if self.gamma is not None and not (np.isfinite(self.gamma) and self.gamma > 0):
            raise InputError(f"gamma: must be None or a positive number, got {self.gamma!r}")
        self.classes_, codes, first = _first_appearance(y)
        self.n_features_in_ = X.shape[1]
        self.gamma_ = 1.0 / X.shape[1] if self.gamma is None else float(self.gamma)
        self.center_ = np.zeros(X.shape[1])
        self.scale_ = np.ones(X.shape[1])
        self.scaled_ = False
        if self.scale and X.shape[0] >= 2 and not _any_constant_column(X):
            self.center_, self.scale_ = _r_scale(X)
            self.scaled_ = True
        if self.classes_.size < 2:
            self._svc_model, self._svc_data = None, None
            return self
        # libsvm (in R) orders the classes by their first appearance in the training data; that
        # order decides the pairwise problems' orientation and every tie.  scikit-learn sorts the
        # labels, so it is fitted on codes numbered in order of first appearance.
        self.libsvm_classes_ = self.classes_[first]
        rank = np.empty(first.size, dtype=np.intp)
        rank[first] = np.arange(first.size)
        Xs = (X - self.center_) / self.scale_
        target = rank[codes]
        if self.backend == "sklearn" and self.classes_.size == 2:
            # libsvm on the kernel matrix, called directly (see _libsvm_binary); the SVC of the
            # same model is fitted only if asked for (``svc_``)
            self._svc_data = (Xs, target)
            self._svc_model = None
            self.support_, self.support_vectors_, self.dual_coef_, self.intercept_ = _libsvm_binary(
                Xs, target, self.gamma_, self.cost, self.tol, self.shrinking, self.cache_size
            )
        else:
            self._svc_data = None
            self._svc_model = self._make_svc(self.gamma_).fit(Xs, target)
        return self

    @property
    def svc_(self):
        """The fitted ``sklearn.svm.SVC`` (None with one class).

        The two-class scikit-learn path calls libsvm directly on the kernel matrix;
        the radial-kernel ``SVC`` (the same model to the last bit) is fitted on
        first use.
        """
        if self._svc_model is None and self._svc_data is not None:
            self._svc_model = self._make_svc(self.gamma_).fit(*self._svc_data)
        return self._svc_model

    def _libsvm_model(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The fitted model in libsvm's terms: support vectors, ``sv_coef``, ``rho`` and ``nSV``.

        libsvm (R's and scikit-learn's alike) stores the support vectors grouped by
        class in the classes' order (here: first appearance in the training data),
        each group in the order of the training rows.
        """
        if self.backend == "sklearn" and self.classes_.size == 2:
            # _libsvm_binary returns scikit-learn's signs: dual_coef_ = -sv_coef, intercept_ = rho
            n_sv = np.bincount(self._svc_data[1][self.support_].astype(np.intp), minlength=2)
            return self.support_vectors_, -self.dual_coef_, np.asarray(self.intercept_, dtype=float), n_sv
        svc = self.svc_
        return svc.support_vectors_, svc._dual_coef_, -np.asarray(svc._intercept_, dtype=float), svc.n_support_

    def _pairwise_decisions(self, Xs: np.ndarray) -> np.ndarray:
        """libsvm's decision values, one column per pair of classes (i, j), i < j, libsvm's orientation.

        A value > 0 is a vote for class i, otherwise (0 included) for class j, in
        ``libsvm_classes_`` order.  Computed with one matrix product; values within
        ``1e-9`` of 0, where its rounding may give the other sign than R's libsvm, are
        computed again as libsvm sums them inside R (:func:`_libsvm_decision_values`),
        so that exact ties fall as they do in e1071.
        """
        from simstudy.pipeline.learners._radial import exponents

        sv, sv_coef, rho, n_sv = self._libsvm_model()
        e = Xs @ sv.T
        exponents(e, np.einsum("ij,ij->i", Xs, Xs), np.einsum("ij,ij->i", sv, sv), float(self.gamma_))
        K = np.exp(e, out=e)
        if rho.size == 1:
            dec = (K @ sv_coef[0] - rho[0])[:, None]
        else:
            dec = np.empty((Xs.shape[0], rho.size))
            for p, (i, j, own, other) in enumerate(_pair_blocks(n_sv)):
                dec[:, p] = K[:, own] @ sv_coef[j - 1, own] + K[:, other] @ sv_coef[i, other] - rho[p]
        near = (np.abs(dec) < 1e-9).any(axis=1)
        if near.any():
            dec[near] = _libsvm_decision_values(Xs[near], sv, sv_coef, rho, n_sv, float(self.gamma_))
        return dec

    def decision_function(self, X):
        """Decision values; with two classes positive values vote for ``classes_[1]``.

        With two classes and the scikit-learn backend these are the values e1071's
        ``predict(..., decision.values = TRUE)`` reports, negated when ``classes_[1]``
        is libsvm's first class (e1071 orients them first class against second); near
        0 they are summed as libsvm sums them inside R.  Otherwise scikit-learn's.
        """
        X = _check_X(self, X)
        if self.classes_.size < 2:
            return np.zeros(X.shape[0])
        Xs = (X - self.center_) / self.scale_
        if self.backend == "sklearn" and self.classes_.size == 2:
            dec = self._pairwise_decisions(Xs)[:, 0]
            return dec if self.libsvm_classes_[0] == self.classes_[1] else -dec
        dec = self.svc_.decision_function(Xs)
        if self.classes_.size == 2 and self.libsvm_classes_[0] != self.classes_[0]:
            dec = -dec  # positive values vote for classes_[1], whatever came first in training
        return dec

    def predict(self, X):
        """libsvm's one-against-one vote as in e1071 (ties: the first class in ``libsvm_classes_``)."""
        X = _check_X(self, X)
        if self.classes_.size < 2:
            return np.repeat(self.classes_, X.shape[0])
        Xs = (X - self.center_) / self.scale_
        if self.backend != "sklearn":
            return self.libsvm_classes_[self.svc_.predict(Xs)]
        dec = self._pairwise_decisions(Xs)
        if self.classes_.size == 2:
            # libsvm votes for its first class when the value is > 0, for the second otherwise
            return self.libsvm_classes_[(dec[:, 0] <= 0).astype(np.intp)]
        votes = np.zeros((Xs.shape[0], self.classes_.size), dtype=np.intp)
        for p, (i, j, _, _) in enumerate(_pair_blocks(self._libsvm_model()[3])):
            first = dec[:, p] > 0
            votes[:, i] += first
            votes[:, j] += ~first
        return self.libsvm_classes_[votes.argmax(axis=1)]  # argmax: the first of equal votes, as libsvm


def _pair_blocks(n_sv: np.ndarray) -> list[tuple[int, int, slice, slice]]:
    """libsvm's pairs of classes (i, j), i < j, in its order, with the slices of their support vectors."""
    start = np.concatenate([[0], np.cumsum(n_sv)[:-1]]).astype(np.intp)
    k = len(n_sv)
    return [
        (i, j, slice(start[i], start[i] + n_sv[i]), slice(start[j], start[j] + n_sv[j]))
        for i in range(k)
        for j in range(i + 1, k)
    ]


def _libsvm_decision_values(
    Xs: np.ndarray, sv: np.ndarray, sv_coef: np.ndarray, rho: np.ndarray, n_sv: np.ndarray, gamma: float
) -> np.ndarray:
    """Decision values of libsvm's ``svm_predict_values`` as e1071 computes them inside R.

    Per case and support vector, the kernel is libsvm's ``Kernel::k_function`` for
    the radial kernel: the squared differences ``(x_j - sv_j)^2`` added feature
    after feature (e1071 passes rows sparse, without their zeros, which skips only
    terms that add 0), then ``exp(-gamma * sum)`` from the C library.  For the pair
    (i, j) the terms ``sv_coef[j - 1] * k`` over class i's support vectors, then
    ``sv_coef[i] * k`` over class j's, are added one after another, and ``rho`` is
    subtracted.  scikit-learn's build of libsvm rounds the kernel differently, so
    at a decision value of exactly 0 (symmetric data) its sign can differ from R's.

    Parameters
    ----------
    Xs : array (m, p)
        Scaled cases.
    sv : array (l, p)
        Support vectors, grouped by class in libsvm's order.
    sv_coef : array (k - 1, l)
        libsvm's ``sv_coef``.
    rho : array (k (k - 1) / 2,)
        libsvm's ``rho``.
    n_sv : int array (k,)
        Support vectors per class.
    gamma : float
        Radial kernel parameter.

    Returns
    -------
    array (m, k (k - 1) / 2)
        One column per pair, libsvm's orientation (> 0: a vote for the first class of the pair).
    """
    d2 = np.zeros((Xs.shape[0], sv.shape[0]))
    for j in range(Xs.shape[1]):
        d = Xs[:, j, None] - sv[None, :, j]
        d *= d
        d2 += d
    d2 *= -gamma
    # math.exp is the C library's exp, as libsvm's; numpy's vectorised exp may round differently.
    k = np.fromiter(map(math.exp, d2.ravel().tolist()), dtype=float, count=d2.size).reshape(d2.shape)
    out = np.empty((Xs.shape[0], len(rho)))
    for p, (i, j, own, other) in enumerate(_pair_blocks(n_sv)):
        terms = np.concatenate([sv_coef[j - 1, own] * k[:, own], sv_coef[i, other] * k[:, other]], axis=1)
        total = np.cumsum(terms, axis=1)[:, -1] if terms.shape[1] else np.zeros(Xs.shape[0])  # term after term
        out[:, p] = total - rho[p]
    return out


# --------------------------------------------------------------------------- random forest


# R's rf.c draws a bootstrap sample at most this many times while it holds fewer than two classes.
_R_CLASS_DRAWS = 31
# R regrows a root-only tree without limit; beyond this many attempts the tree is kept.
_MAX_REGROWTH = 1000


def _regrow_root_only_trees(trees: list, X: np.ndarray, codes: np.ndarray, seed: int) -> int:
    """Replace the trees that are a single root node, as R's ``classRF`` (``rf.c``) never keeps one.

    ``classRF`` draws a tree's bootstrap sample again while it holds fewer than two
    classes (at most 31 draws, then it stops with an error), and if the tree
    grown on it is the root alone it starts over with a new sample.  scikit-learn
    keeps such trees; on tiny or very imbalanced training sets (8 rows, 7:1: a third
    of the samples miss the minority class) they vote the majority class unsplit.
    Each such tree ``i`` is grown again here, as scikit-learn's forest grows a tree
    (the same parameters, the bootstrap as case weights), on samples drawn from a
    generator seeded by ``(seed, i)``: the forest stays a function of the learner's
    ``random_state``, and a forest without root-only trees is left as it was.  Each
    new sample gets R's 31 draws (scikit-learn's first, one-class draw not counted).  If no
    split is possible at all (every training row has the same inputs) R would loop
    forever; the trees are then kept, as after ``_MAX_REGROWTH`` attempts for one tree.

    Parameters
    ----------
    trees : list of DecisionTreeClassifier
        The forest's ``estimators_``, changed in place.
    X : array (n, p)
        The training inputs.
    codes : int array (n,)
        The training classes as codes 0 .. k - 1 (at least two present).
    seed : int
        The forest's seed.

    Returns
    -------
    int
        The number of trees grown again.
    """
    root_only = [i for i, tree in enumerate(trees) if tree.tree_.node_count == 1]
    if not root_only or (X == X[0]).all():
        return 0
    from sklearn.base import clone

    n = X.shape[0]
    for i in root_only:
        rng = np.random.default_rng([seed, i])
        for _ in range(_MAX_REGROWTH):
            for _ in range(_R_CLASS_DRAWS):
                counts = np.bincount(rng.integers(0, n, n), minlength=n)
                if np.unique(codes[counts > 0]).size >= 2:
                    break
            else:
                raise InputError(
                    f"y: still fewer than two classes in the bootstrap sample after {_R_CLASS_DRAWS} draws "
                    "(R's randomForest stops with this error too)"
                )
            tree = clone(trees[i]).set_params(random_state=int(rng.integers(0, 2**31 - 1)))
            tree.fit(X, codes, sample_weight=counts.astype(float))
            if tree.tree_.node_count > 1:
                break
        trees[i] = tree
    return len(root_only)


class RandomForestR(Learner):
    """Random forest with the defaults of R's ``randomForest`` (classification).

    Parameters
    ----------
    n_estimators : int, default 500
        ``ntree``.
    mtry : int or None, default None
        Candidate features per split; None means ``floor(sqrt(p))``.
    nodesize : int, default 1
        Nodes with at most ``nodesize`` cases are not split (``min_samples_split
        = nodesize + 1`` in scikit-learn).
    backend : {"sklearn", "intelex"}
        ``"sklearn"``: scikit-learn's exact (best-split) trees.  ``"intelex"``:
        ``sklearnex.ensemble.RandomForestClassifier`` (optional package; its
        split search differs, see ``benchmarks/learners_r.md``).
    n_jobs : int or None
        Threads for fitting and prediction; does not change the result.
    random_state : None, int or numpy Generator
        Seeds the bootstrap samples, the feature draws and the tie-breaking of
        the vote.

    Notes
    -----
    Each tree votes for one class (its leaf's majority class; leaves are pure
    unless the training data have equal inputs with different labels) and the
    forest predicts the majority of the votes; a tie is broken at random, as in
    ``predict.randomForest``.  scikit-learn averages leaf probabilities instead,
    which differs from the vote only when leaves are impure.  Berrar (2017,
    Sec. 4) used these defaults in study 4.  R's and scikit-learn's random
    streams differ, so agreement with R is in distribution (mean accuracy), not
    per prediction.

    As R's ``rf.c``, no tree is a single root node: a bootstrap sample with fewer
    than two classes is drawn again and a root-only tree is grown again (scikit-learn
    backend; ``n_regrown_`` counts them, see :func:`_regrow_root_only_trees`).  This
    matters on tiny or very imbalanced training sets only; a forest that has no
    root-only tree is scikit-learn's as before.  The intelex backend's trees are not
    exposed and are kept as grown.
    """

    def __init__(self, n_estimators=500, mtry=None, nodesize=1, backend="sklearn", n_jobs=None, random_state=None):
        self.n_estimators = n_estimators
        self.mtry = mtry
        self.nodesize = nodesize
        self.backend = backend
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y):
        X, y = _check_Xy(X, y)
        _check_backend(self.backend)
        if (
            isinstance(self.n_estimators, bool)
            or not isinstance(self.n_estimators, (int, np.integer))
            or self.n_estimators < 1
        ):
            raise InputError(f"n_estimators: must be a positive integer, got {self.n_estimators!r}")
        if isinstance(self.nodesize, bool) or not isinstance(self.nodesize, (int, np.integer)) or self.nodesize < 1:
            raise InputError(f"nodesize: must be a positive integer, got {self.nodesize!r}")
        p = X.shape[1]
        mtry = max(1, int(math.floor(math.sqrt(p)))) if self.mtry is None else self.mtry
        if isinstance(mtry, bool) or not isinstance(mtry, (int, np.integer)) or not 1 <= mtry <= p:
            raise InputError(f"mtry: must be None or an integer in 1..{p}, got {self.mtry!r}")
        self.mtry_ = int(mtry)
        rng = np.random.default_rng(self.random_state)
        seed_forest, seed_vote = (int(s) for s in rng.integers(0, 2**31 - 1, size=2))
        self._vote_seed = seed_vote
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_features_in_ = p
        self.n_regrown_ = 0
        if self.classes_.size < 2:
            self.forest_ = None
            return self
        if self.backend == "intelex":
            from sklearnex.ensemble import RandomForestClassifier
        else:
            from sklearn.ensemble import RandomForestClassifier
        self.forest_ = RandomForestClassifier(
            n_estimators=int(self.n_estimators),
            criterion="gini",
            max_features=self.mtry_,
            min_samples_split=int(self.nodesize) + 1,
            min_samples_leaf=1,
            bootstrap=True,
            n_jobs=self.n_jobs,
            random_state=seed_forest,
        ).fit(X, codes)
        if self.backend == "sklearn":
            self.n_regrown_ = _regrow_root_only_trees(self.forest_.estimators_, X, codes.ravel(), seed_forest)
            # The class each leaf votes for, all trees concatenated, for one gather per prediction.
            trees = [est.tree_ for est in self.forest_.estimators_]
            self._leaf_class = np.concatenate([t.value[:, 0, :].argmax(axis=1) for t in trees])
            self._leaf_offset = np.cumsum([0] + [t.node_count for t in trees[:-1]])
        return self

    def vote_counts(self, X):
        """Number of trees voting for each class, shape (n_cases, n_classes)."""
        X = _check_X(self, X)
        if self.forest_ is None:
            return np.full((X.shape[0], 1), self.n_estimators)
        n_classes = self.classes_.size
        counts = np.zeros((X.shape[0], n_classes), dtype=np.int64)
        if self.backend == "sklearn":
            leaves = self.forest_.apply(X)  # (n, n_trees), leaf index within each tree
            votes = self._leaf_class[leaves + self._leaf_offset]
            for k in range(n_classes):
                counts[:, k] = (votes == k).sum(axis=1)
        else:
            # sklearnex trees are not exposed; the averaged leaf probabilities times
            # the number of trees equal the votes when the leaves are pure.
            proba = self.forest_.predict_proba(X)
            counts[:] = np.rint(proba * self.n_estimators).astype(np.int64)
        return counts

    def predict(self, X):
        """Majority vote of the trees, ties broken at random (``predict.randomForest``)."""
        counts = self.vote_counts(X)
        if self.forest_ is None:
            return np.repeat(self.classes_, counts.shape[0])
        rng = np.random.default_rng(self._vote_seed)
        # Random tie-break: add uniform noise below one vote, then take the maximum.
        noisy = counts + rng.random(counts.shape) * 0.5
        return self.classes_[noisy.argmax(axis=1)]

    def predict_proba(self, X):
        """Fraction of trees voting for each class."""
        counts = self.vote_counts(X)
        return counts / counts.sum(axis=1, keepdims=True)
