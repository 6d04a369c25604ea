"""Weka 3.6's tree-augmented naive Bayes (BayesNet with the TAN search).

Bouckaert (2004) compares pairs of learners among naive Bayes, C4.5, nearest
neighbour, tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997), a
decision stump and a support vector machine, all as Weka had them; TAN is
``weka.classifiers.bayes.BayesNet -D -Q weka.classifiers.bayes.net.search.local.TAN
-- -S BAYES -E weka.classifiers.bayes.net.estimate.SimpleEstimator -- -A 0.5``.
The class here follows Weka's algorithm step by step (the local score, the order
and tie rules of the spanning-tree search, the orientation of the arcs, the
replacement of missing values and the order in which log probabilities are added)
so that per-fold predictions agree with Weka run on the same folds; the agreement
is recorded in ``benchmarks/learners_weka.md`` (section "TAN and SMO").

Input conventions are those of :mod:`simstudy.pipeline.learners.weka`: ``X`` float (n, p)
with nominal attributes coded 0..k-1 and NaN for missing; ``nominal`` a boolean
mask (or index list) of the nominal columns; ``y`` integer class codes 0..c-1.
Only nominal attributes are supported (Weka would discretise numeric ones).
"""

from __future__ import annotations

import numpy as np

from simstudy.errors import InputError
from simstudy.pipeline.learners.weka import _Base

__all__ = ["TAN", "weka_ln_gamma"]

_SEARCH_ALPHA = 0.5  # LocalScoreSearchAlgorithm's m_fAlpha: fixed, not the estimator's -A

# Coefficients of Weka's Statistics.lnGamma, as stored in the Weka 3.6.14 jar.
_LG_A = (8.116141674705085e-4, -5.950619042843014e-4, 7.936503404577169e-4, -0.002777777777300997, 0.08333333333333319)
_LG_B = (
    -1378.2515256912086,
    -38801.631513463784,
    -331612.9927388712,
    -1162370.974927623,
    -1721737.0082083966,
    -853555.6642457654,
)
_LG_C = (
    -351.81570143652345,
    -17064.210665188115,
    -220528.59055385445,
    -1139334.4436798252,
    -2532523.0717758294,
    -2018891.4143353277,
)


def _polevl(x, coef):
    out = np.full_like(x, coef[0])
    for c in coef[1:]:
        out = out * x + c
    return out


def _p1evl(x, coef):
    out = x + coef[0]
    for c in coef[1:]:
        out = out * x + c
    return out


def weka_ln_gamma(x):
    """``log Gamma(x)`` computed as Weka's ``Statistics.lnGamma`` does, elementwise.

    Parameters
    ----------
    x : array_like of float
        Positive arguments.

    Returns
    -------
    ndarray of float
        The same floating-point operations as Weka's Java code, in the same order,
        so that scores that tie in Weka tie here too.

    Raises
    ------
    ValueError
        If an argument is not positive (Weka's code covers negative arguments with
        a reflection formula that the network scores never need).
    """
    x = np.asarray(x, dtype=float)
    if np.any(~(x > 0)):
        raise InputError("x: lnGamma arguments must be positive")
    out = np.empty_like(x)
    small = x < 13.0
    if small.any():
        u = x[small]
        z = np.ones_like(u)
        while True:
            m = u >= 3.0
            if not m.any():
                break
            u = np.where(m, u - 1.0, u)
            z = np.where(m, z * u, z)
        while True:
            m = u < 2.0
            if not m.any():
                break
            z = np.where(m, z / u, z)
            u = np.where(m, u + 1.0, u)
        z = np.abs(z)
        two = u == 2.0
        v = u - 2.0
        with np.errstate(invalid="ignore", divide="ignore"):
            r = v * _polevl(v, _LG_B) / _p1evl(v, _LG_C)
        out[small] = np.where(two, np.log(z), np.log(z) + r)
    big = ~small
    if big.any():
        v = x[big]
        q = (v - 0.5) * np.log(v) - v + 0.9189385332046728
        p = 1.0 / (v * v)
        far = ((7.936507936507937e-4 * p - 0.002777777777777778) * p + 0.08333333333333333) / v
        near = _polevl(p, _LG_A) / v
        q_corr = np.where(v >= 1000.0, q + far, q + near)
        out[big] = np.where(v > 1.0e8, q, q_corr)
    return out


_HALF_TABLE = np.empty(0)


def _ln_gamma_halves(x):
    """``weka_ln_gamma`` for arguments that are multiples of 0.5, from a cached table."""
    global _HALF_TABLE
    idx = np.rint(2.0 * x).astype(np.intp) - 1
    top = int(idx.max()) + 1 if idx.size else 0
    if top > _HALF_TABLE.size:
        _HALF_TABLE = weka_ln_gamma(0.5 * np.arange(1, max(top, 2 * _HALF_TABLE.size, 1024) + 1))
    return _HALF_TABLE[idx]


def _bayes_scores(counts, cfg_valid, sym_valid, k_head):
    """Weka's BAYES local score (``calcScoreOfCounts``, alpha 0.5), vectorised over nodes.

    ``counts`` (..., J, K): counts per parent configuration ``j`` (in Weka's order)
    and value of the node; ``cfg_valid`` (..., J) and ``sym_valid`` (..., K) mark the
    configurations and values that exist (the arrays are padded to common sizes);
    ``k_head`` (...) the node's number of values.  The running total is accumulated
    in Weka's order, skipping padded cells by adding exact zeros.
    """
    alpha = _SEARCH_ALPHA
    J, K = counts.shape[-2:]
    sym = sym_valid[..., None, :] & cfg_valid[..., :, None]
    cells = np.where(sym, alpha + counts, 0.0)
    sums = cells[..., 0]
    for v in range(1, K):
        sums = sums + cells[..., v]
    lg = np.where(sym, _ln_gamma_halves(alpha + counts), 0.0)
    lg_sums = np.where(cfg_valid, _ln_gamma_halves(np.where(cfg_valid, sums, 1.0)), 0.0)
    lg_alpha = _ln_gamma_halves(np.array([alpha]))[0]
    per_cfg = k_head * lg_alpha
    lg_k_alpha = _ln_gamma_halves(k_head * alpha)
    score = np.zeros(counts.shape[:-2])
    for j in range(J):
        for v in range(K):
            score = score + lg[..., j, v]
        cv = cfg_valid[..., j]
        score = score - lg_sums[..., j]
        score = score - np.where(cv, per_cfg, 0.0)
        score = score + np.where(cv, lg_k_alpha, 0.0)
    return score


#: Largest number of pair-count cells (classes x (attributes x categories)^2 x models) that
#: :meth:`TAN.fold_predictions` holds at once; it scores the training parts in batches of this size
#: and leaves data whose per-case pair counts alone exceed it to the fold-by-fold fit.
_BATCH_CELLS = 4_000_000


def _tan_models(joint, base, class_counts, n_train, k, alpha):
    """Structure and tables of TAN models fitted on ``B`` training parts at once (Weka's arithmetic).

    Parameters
    ----------
    joint : ndarray, shape (B, c, p, K, p, K)
        ``joint[g, c, a, va, b, vb]``: class-``c`` training cases of part ``g`` with ``a = va``, ``b = vb``.
    base : ndarray, shape (B, p, c, K)
        ``base[g, a, c, va]``: class-``c`` training cases with ``a = va``.
    class_counts : ndarray, shape (B, c)
    n_train : ndarray, shape (B,)
    k : ndarray of int, shape (p,)
        Categories of each attribute (``K`` the largest).
    alpha : float
        The estimator's prior count.

    Returns
    -------
    links : ndarray of int, shape (B, p - 1, 2)
        The chosen pairs ``(a, b)`` in the order of the search.
    parent : ndarray of int, shape (B, p)
    log_tables : ndarray, shape (B, p, c, K, K)
        ``log P(a = va | c, parent = vb)`` at ``[g, a, c, vb, va]`` (roots repeat over ``vb``).
    class_log_prior : ndarray, shape (B, c)

    Every step is elementwise over the models or a reduction within one model, so a
    model's numbers do not depend on the others in the batch.
    """
    B, c, p, K = joint.shape[:4]
    rows = np.arange(B)
    sym_valid = np.arange(K)[None, :] < k[:, None]  # [a, v]
    parent = np.full((B, p), -1, dtype=np.intp)
    links = np.empty((B, max(p - 1, 0), 2), dtype=np.intp)
    if p >= 2:
        base_score = _bayes_scores(base, np.ones((p, c), dtype=bool), sym_valid, k)
        pair_counts = joint.transpose(0, 2, 4, 1, 5, 3).reshape(B, p, p, c * K, K)  # [g, a, b, (c, vb), va]
        cfg_valid = np.broadcast_to((np.arange(K)[None, :] < k[:, None])[None, :, None, :], (p, p, c, K)).reshape(
            p, p, c * K
        )
        pair_score = _bayes_scores(
            pair_counts, cfg_valid, np.broadcast_to(sym_valid[:, None, :], (p, p, K)), k[:, None]
        )
        delta = pair_score - base_score[:, :, None]
        delta[:, np.arange(p), np.arange(p)] = -np.inf
        # Weka's greedy search over ordered pairs (a, b): argmax keeps the first maximum
        linked = np.zeros((B, p), dtype=bool)
        cand = delta
        for s in range(p - 1):
            if s:
                cand = np.where(linked[:, :, None] ^ linked[:, None, :], delta, -np.inf)
            a, b = np.divmod(np.argmax(cand.reshape(B, p * p), axis=1), p)
            links[:, s, 0], links[:, s, 1] = a, b
            linked[rows, a] = True
            linked[rows, b] = True
        # orientation: b gets a as parent if it has none yet, otherwise a gets b
        has_parent = np.zeros((B, p), dtype=bool)
        for s in range(p - 1):
            a, b = links[:, s, 0], links[:, s, 1]
            free = ~has_parent[rows, b]
            child = np.where(free, b, a)
            parent[rows, child] = np.where(free, a, b)
            has_parent[rows, child] = True
    # conditional probability tables, padded to T[g, a, c, vb, va]
    attrs = np.arange(p)
    parent_index = np.where(parent >= 0, parent, attrs[None, :])
    from_pair = joint[rows[:, None], :, attrs[None, :], :, parent_index, :].transpose(0, 1, 2, 4, 3)
    cnt = np.where((parent >= 0)[:, :, None, None, None], from_pair, base[:, :, :, None, :])
    tot = np.where(sym_valid[None, :, None, None, :], cnt, 0.0).sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore"):
        tables = np.log((cnt + alpha) / (tot + (k * alpha)[None, :, None, None, None]))
    prior = np.log((class_counts + alpha) / (n_train[:, None] + c * alpha))
    return links, parent, tables, prior


def _posterior(f):
    """Posterior class probabilities from unnormalised log scores ``f`` (m, c)."""
    e = np.exp(f - f.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _log_scores(log_tables, parent_index, class_log_prior, model, Xi):
    """Weka's unnormalised log scores ``1 + log P(x, c)`` of rows ``Xi`` under models ``model``.

    The attributes' log probabilities are added in attribute order, the class prior's last.
    ``log_tables`` (B, p, c, K, K), ``parent_index`` (B, p), ``class_log_prior`` (B, c),
    ``model`` (m,) the model of each row of ``Xi`` (m, p) of integer codes; returns (m, c).
    """
    m, p = Xi.shape
    pv = Xi[np.arange(m)[:, None], parent_index[model]]
    # g[i, a, :] = log P(x_a | class, x_parent(a)) for every class
    g = log_tables[model[:, None], np.arange(p)[None, :], :, pv, Xi]
    out = np.zeros((m, class_log_prior.shape[1]))
    for a in range(p):
        out = out + g[:, a, :]
    out = out + class_log_prior[model]
    return 1.0 + out


class TAN(_Base):
    """Weka 3.6 ``BayesNet`` with the ``TAN`` search and ``SimpleEstimator``.

    Parameters
    ----------
    alpha : float, default 0.5
        Prior count of the ``SimpleEstimator`` (Weka ``-E ... -- -A``): every cell of
        every conditional probability table starts at ``alpha``.
    nominal, n_categories, n_classes
        As in :class:`simstudy.pipeline.learners.weka.WekaNaiveBayes`; every attribute must be
        nominal.

    Notes
    -----
    Fitting, as Weka does it:

    * Training instances with a missing class are dropped.  If any attribute value
      is missing, every missing value is replaced by the attribute's mode in the
      training data (Weka's ``ReplaceMissingValues``; ties to the lowest code).
    * Every attribute gets the class as parent.  With ``s(a | P)`` Weka's BAYES score
      (Dirichlet prior 0.5 per cell: ``sum_j [sum_v lnG(0.5 + n_jv) - lnG(sum_v (0.5
      + n_jv))] - J k lnG(0.5) + J lnG(0.5 k)`` over the ``J`` parent configurations),
      the weight of the ordered pair ``(a, b)`` is the gain of giving ``a`` the extra
      parent ``b``: ``s(a | C, b) - s(a | C)``.  The tree is grown as in Prim's
      algorithm: first the pair with the largest weight, then repeatedly the
      largest-weight pair with exactly one node already in the tree.  Ties go to the
      first pair in the order ``(a, b)`` with ``a`` the slower index.  (For large
      samples the weight is ``n`` times the conditional mutual information
      ``I(a; b | C)`` minus a penalty, so this is Chow and Liu's maximum spanning tree,
      with Weka's Bayesian score in place of the mutual information.)
    * Orientation (Weka's ``TAN.buildStructure``): the pairs are visited in the
      order they were chosen; ``b`` gets ``a`` as parent if ``b`` has no parent yet,
      otherwise ``a`` gets ``b``.  So the arc of the first pair points from ``a`` to
      ``b`` and ``a`` is the root unless a later pair gives it a parent.
    * Conditional probability tables: ``(n + alpha) / (N + k alpha)`` for each
      configuration of the parents, the class prior likewise.

    Prediction: missing values are replaced by the training modes (also when the
    training data had none: Weka then builds the replacement filter when it first
    meets a missing value); the log probabilities of the attributes are added in
    attribute order, the class prior's last, plus 1 (as in Weka's
    ``SimpleEstimator``), and turned into posterior probabilities.  ``predict``
    returns the first most probable class.

    Attributes
    ----------
    parent_ : ndarray of int, shape (p,)
        Tree parent of each attribute (besides the class), -1 for the root.
    links_ : list of (int, int)
        The chosen pairs ``(a, b)`` in the order of the search.
    modes_ : ndarray of int, shape (p,)
        Replacement for missing values at prediction time.
    """

    def __init__(self, alpha=0.5, nominal=None, n_categories=None, n_classes=None):
        super().__init__(nominal, n_categories, n_classes)
        self.alpha = alpha

    def fit(self, X, y):
        """Learn the tree and the probability tables.

        Parameters
        ----------
        X : array_like of float, shape (n, p)
            Nominal codes 0..k-1, NaN for missing.
        y : array_like, shape (n,)
            Class codes 0..c-1 (NaN rows are dropped).

        Returns
        -------
        self
        """
        alpha = float(self.alpha)
        if not alpha > 0:
            raise InputError(f"alpha: must be positive, got {self.alpha!r}")
        X, y = self._prepare(X, y)
        p = X.shape[1]
        numeric = np.flatnonzero(~self.nominal_mask_)
        if numeric.size:
            raise InputError(
                f"nominal: TAN supports nominal attributes only; column {numeric[0]} is numeric (discretise it first)"
            )
        keep = ~np.isnan(y)
        X, y = X[keep], y[keep].astype(np.intp)
        k = self.n_categories_
        c = self.n_classes_
        bad = np.flatnonzero((X >= k[None, :]).any(axis=0))
        if bad.size:
            raise InputError(f"X: column {bad[0]} has a category code outside 0..{k[bad[0]] - 1}")
        n = y.size
        K = int(k.max()) if p else 1
        miss = np.isnan(X)
        offs = np.arange(p) * K
        if n:
            codes = np.where(miss, 0.0, X).astype(np.intp)
            onehot = np.zeros((n, p * K))
            np.put_along_axis(onehot, codes + offs, np.where(miss, 0.0, 1.0), axis=1)
            ymat = np.zeros((n, c))
            ymat[np.arange(n), y] = 1.0
            counts_all = onehot.sum(axis=0).reshape(p, K)
        else:
            counts_all = np.zeros((p, K))
        # ReplaceMissingValues: mode of the training data (lowest code on ties)
        self.modes_ = np.argmax(counts_all, axis=1)
        if miss.any():
            fill = self.modes_[np.nonzero(miss)[1]]
            onehot[np.nonzero(miss)[0], offs[np.nonzero(miss)[1]] + fill] = 1.0
        if n:
            # joint[c, a, va, b, vb] = number of class-c rows with a = va and b = vb
            z = (ymat[:, :, None] * onehot[:, None, :]).reshape(n, c * p * K)
            joint = (z.T @ onehot).reshape(c, p, K, p, K)
            base = (ymat.T @ onehot).reshape(c, p, K).transpose(1, 0, 2)  # [a, c, va]
        else:
            joint = np.zeros((c, p, K, p, K))
            base = np.zeros((p, c, K))
        class_counts = np.bincount(y, minlength=c).astype(float)
        links, parent, tables, prior = _tan_models(joint[None], base[None], class_counts[None], np.array([n]), k, alpha)
        self.links_ = [(int(a), int(b)) for a, b in links[0]]
        self.parent_ = parent[0]
        self.log_tables_ = tables[0]
        self.class_log_prior_ = prior[0]
        self.parent_index_ = np.where(self.parent_ >= 0, self.parent_, np.arange(p))
        return self

    def fold_predictions(self, X, y, fold_ids):
        """Predictions of the model fitted without each fold, for every run at once.

        Entry (r, i) of the result is the class that TAN fitted on the cases outside
        case i's fold of run r predicts for case i (-1 where ``fold_ids`` is -1).  The
        counts of every training part are all cases' counts minus the fold's (whole
        numbers, so exact), and the scores, trees, tables and predictions of all parts
        are computed together with the same arithmetic as :meth:`fit` and
        :meth:`predict`: the predictions are those of one fit per fold.  Returns None
        (fit fold by fold) unless every attribute is nominal and no value is missing,
        where a training part would make a fit infer fewer classes or categories than
        all the data have (``n_classes``/``n_categories`` not given) or be empty, and
        where one case's pair counts alone exceed ``_BATCH_CELLS`` (very wide data).
        Arguments and result as :meth:`~simstudy.pipeline.learners.base.Learner.fold_predictions`.
        """
        alpha = float(self.alpha)
        if not alpha > 0:
            raise InputError(f"alpha: must be positive, got {self.alpha!r}")
        parts = self._training_parts(X, y, fold_ids)
        if parts is None:
            return None
        X, k, c, group, held, member = parts.X, parts.k, parts.c, parts.group, parts.held, parts.member
        n, p = X.shape
        groups = member.shape[0]
        if groups == 0:
            return np.full(held.shape, -1, dtype=np.int64)
        K = int(k.max())
        width = c * (p * K) ** 2
        if n * width > _BATCH_CELLS:
            return None
        onehot = np.zeros((n, p * K))
        np.put_along_axis(onehot, X + np.arange(p) * K, 1.0, axis=1)
        z = (parts.onehot_y[:, :, None] * onehot[:, None, :]).reshape(n, c * p * K)
        base = (z.sum(axis=0)[None, :] - member @ z).reshape(groups, c, p, K)
        pair = (z[:, :, None] * onehot[:, None, :]).reshape(n, width)
        total = pair.sum(axis=0)
        links = np.empty((groups, max(p - 1, 0), 2), dtype=np.intp)
        parent = np.empty((groups, p), dtype=np.intp)
        tables = np.empty((groups, p, c, K, K))
        prior = np.empty((groups, c))
        step = max(1, _BATCH_CELLS // width)
        for g0 in range(0, groups, step):
            g = slice(g0, g0 + step)
            joint = (total[None, :] - member[g] @ pair).reshape(-1, c, p, K, p, K)
            links[g], parent[g], tables[g], prior[g] = _tan_models(
                joint, base[g].transpose(0, 2, 1, 3), parts.class_counts[g], parts.n_train[g], k, alpha
            )
        parent_index = np.where(parent >= 0, parent, np.arange(p)[None, :])
        model = group[held]
        cases = X[np.nonzero(held)[1]]
        pred = np.full(held.shape, -1, dtype=np.int64)
        pred[held] = np.argmax(_posterior(_log_scores(tables, parent_index, prior, model, cases)), axis=1)
        return pred

    def _codes(self, X):
        X = self._check_X(X)
        miss = np.isnan(X)
        if miss.any():
            X = np.where(miss, self.modes_[None, :], X)
        bad = np.flatnonzero(((X < 0) | (X >= self.n_categories_[None, :]) | (X != np.round(X))).any(axis=0))
        if bad.size:
            raise InputError(
                f"X: column {bad[0]} holds a value that is not a category code 0..{self.n_categories_[bad[0]] - 1}"
            )
        return X.astype(np.intp)

    def _log_scores(self, X):
        """Weka's unnormalised log scores: 1 + log P(x, c), summed in Weka's order.

        Parameters
        ----------
        X : array_like of float, shape (m, p)

        Returns
        -------
        ndarray of float, shape (m, c)
        """
        Xi = self._codes(X)
        one = np.zeros(Xi.shape[0], dtype=np.intp)
        return _log_scores(self.log_tables_[None], self.parent_index_[None], self.class_log_prior_[None], one, Xi)

    def predict_proba(self, X):
        """Posterior class probabilities (Weka's ``SimpleEstimator.distributionForInstance``).

        Parameters
        ----------
        X : array_like of float, shape (m, p)

        Returns
        -------
        ndarray of float, shape (m, c)
        """
        return _posterior(self._log_scores(X))
