"""Weka 3.6's J48: C4.5 release 8 decision trees (Quinlan 1993, 1996).

Bouckaert (2004, Sec. 4) uses J48 with its defaults beside NaiveBayes and IB1.
The class here follows Weka's algorithm step by step (tolerances, tie rules and
the order of growing, collapsing and pruning included) so that per-fold
predictions agree with Weka run on the same folds; the agreement is recorded in
``benchmarks/learners_weka.md`` (section "J48").

Input conventions are those of :mod:`simstudy.pipeline.learners.weka`: ``X`` float (n, p)
with nominal attributes coded 0..k-1 and NaN for missing; ``nominal`` a boolean
mask (or index list) of the nominal columns; ``y`` integer class codes 0..c-1.
"""

from __future__ import annotations

import math

import numpy as np

from simstudy.errors import InputError
from simstudy.pipeline.learners._c45 import SMALL as _SMALL
from simstudy.pipeline.learners._c45 import add_errs
from simstudy.pipeline.learners._c45 import eq as _eq
from simstudy.pipeline.learners._c45 import gr as _gr
from simstudy.pipeline.learners._c45 import gr_or_eq as _gr_or_eq
from simstudy.pipeline.learners._c45 import sm as _sm
from simstudy.pipeline.learners._c45 import sm_or_eq as _sm_or_eq
from simstudy.pipeline.learners._c45 import xlog2x as _xlog2x
from simstudy.pipeline.learners.weka import _Base

__all__ = ["J48", "add_errs"]


def _old_ent(per_class, total):
    return float(_xlog2x(total) - _xlog2x(per_class).sum(axis=-1))


def _new_ent(bags):
    """Entropy after the split, unnormalised (bits times weight); ``bags`` (..., k, c)."""
    return -(_xlog2x(bags).sum(axis=(-2, -1)) - _xlog2x(bags.sum(axis=-1)).sum(axis=-1))


def _max_class(per_class):
    """Weka's ``Distribution.maxClass``: the first class beating the running maximum by 1e-6."""
    best, idx = 0.0, 0
    for i, v in enumerate(per_class.tolist() if isinstance(per_class, np.ndarray) else per_class):
        if v - best > _SMALL:  # Utils.gr, inlined: this runs for every node and leaf
            best, idx = v, i
    return idx


def _max_bag(per_bag):
    """Weka's ``Distribution.maxBag``: ties go to the last bag (``grOrEq``)."""
    best, idx = 0.0, -1
    for i, v in enumerate(per_bag.tolist() if isinstance(per_bag, np.ndarray) else per_bag):
        if best - v < _SMALL:  # Utils.grOrEq, inlined
            best, idx = v, i
    return idx


def _num_incorrect(dist):
    per_class = dist.sum(axis=0)
    return float(per_class.sum() - per_class[_max_class(per_class)])


def _set_split_point(values, split):
    """Weka's ``C45Split.setSplitPoint``: the threshold becomes a training value.

    Scanning the values in data order, a value replaces the current threshold (initially
    ``-Double.MAX_VALUE``) when it is greater by more than 1e-6 and at most 1e-6 above
    ``split``.  That is the largest such value, unless values within 1e-6 of it exist;
    then the data order decides and the scan is made literally.
    """
    below = values[values - split < _SMALL]
    if below.size == 0:
        return -np.finfo(float).max
    top = below.max()
    near = below[top - below <= _SMALL]
    if (near == top).all():
        return float(top)
    current = -np.finfo(float).max
    for v in below:
        if v - current > _SMALL:
            current = v
    return float(current)


class _Split:
    """A test at a node: attribute, multiway (nominal) or binary (numeric) with its threshold."""

    __slots__ = ("attribute", "nominal", "n_subsets", "threshold")

    def __init__(self, attribute, nominal, n_subsets, threshold):
        self.attribute = attribute
        self.nominal = nominal
        self.n_subsets = n_subsets
        self.threshold = threshold

    def subsets(self, col):
        """Branch of each value; -1 for missing."""
        miss = np.isnan(col)
        if self.nominal:
            s = np.where(miss, 0, col).astype(np.int64)
        else:
            # Weka's C45Split.whichSubset: Utils.smOrEq, within 1e-6 of the threshold goes left
            # (a missing value compares False and is marked below)
            s = (col - self.threshold >= _SMALL).astype(np.int64)
        if miss.any():
            s[miss] = -1
        return s


class _Node:
    __slots__ = ("split", "dist", "sons", "is_leaf", "is_empty", "idx", "w")

    def __init__(self):
        self.split = None  # None: a leaf (Weka's NoSplit)
        self.dist = None  # (n_bags, n_classes) weights; one bag for a leaf
        self.sons = None
        self.is_leaf = True
        self.is_empty = False
        self.idx = None  # training rows reaching the node and their weights
        self.w = None


class J48(_Base):
    """Weka 3.6 ``weka.classifiers.trees.J48`` (C4.5 release 8) for a nominal class.

    Parameters
    ----------
    confidence : float, default 0.25
        Confidence factor of the pessimistic error estimate (Weka ``-C``), in (0, 1);
        used, as in Weka, as a single-precision float.  Above 0.5 the estimate adds no
        errors (Weka warns and does the same).
    min_leaf : int, default 2
        Minimum weight of instances in at least two branches of a split (Weka ``-M``).
    subtree_raising : bool, default True
        Consider replacing a node by its largest branch while pruning (off: Weka ``-S``).
    unpruned : bool, default False
        Skip the pruning (Weka ``-U``); the tree is still collapsed, as in Weka 3.6.
    nominal, n_categories, n_classes
        As in :class:`simstudy.pipeline.learners.weka.WekaNaiveBayes`.

    Notes
    -----
    Growing (Weka's ``C45ModelSelection``/``C45Split``):

    * A node becomes a leaf if its weight is below ``2 * min_leaf`` or it is pure.
    * Nominal attributes split multiway, one branch per category (empty branches kept).
      Numeric attributes split binary at ``a <= t``; candidate cuts lie between sorted
      known values differing by more than 1e-5, each side must hold at least
      ``clip(0.1 * W_known / c, min_leaf, 25)`` weight, and the gain of the best cut is
      reduced by ``log2(number of candidate cuts) / W`` (release 8's MDL correction).
      ``t`` is the largest value of the attribute in the whole training set that does
      not exceed the midpoint of the cut by more than 1e-6 (Weka's ``setSplitPoint``,
      which scans in data order with that tolerance), and a value goes left when it
      is at most ``t + 1e-6`` (``Utils.smOrEq``), in training and in prediction.
    * Gain of a split with unknown values: ``(W_known / W) * gain on the known ones``;
      split information counts the unknowns as an extra branch.  A split needs at
      least two branches with ``min_leaf`` known weight and a positive gain ratio.
    * Among the attributes with a usable split, only those with gain at least the
      average gain minus 1e-3 compete; the highest gain ratio wins (first attribute on
      ties, unless a later one is higher by more than 1e-6).  Nominal attributes with at
      least ``0.3 n`` categories (``n`` the number of training rows) are left out of
      the average unless all attributes are such.
    * Instances with a missing value go down every branch with their weight times the
      branch's share of the known weight.

    Then the tree is collapsed (a subtree whose leaves make no fewer training errors
    than its root as a leaf, minus 1e-3, becomes a leaf), and pruned bottom-up: a node
    becomes a leaf if its estimated errors (:func:`add_errs`) are at most those of the
    subtree + 0.1 and of its largest branch + 0.1; otherwise the largest branch
    replaces it if that branch, with all the node's training instances passed down it,
    has at most the subtree's estimated errors + 0.1 (its class distributions are then
    recomputed from those instances, unknowns again spread by the known weight of each
    branch, and the node is pruned again).

    Each node's split is chosen in one compiled call for any data (nominal and numeric
    attributes, missing values, fractional weights: :mod:`simstudy.pipeline.learners._j48_select`);
    the attribute-by-attribute numpy path it replaces is kept as the reference
    (``_compiled_select = False``), and the two grow the same trees.

    Prediction follows Weka's ``getProbs``: a missing value sends the instance down all
    non-empty branches with the branch weights; an empty branch answers with the
    class distribution of its parent's branch (or of the parent when that is empty).
    ``predict`` takes the first class whose probability beats the running maximum by
    more than 1e-6 (Weka's ``classifyInstance``).  Training instances with a missing
    class are dropped.  Error counts use the majority class of a distribution (the
    lowest class code among weights equal within 1e-6); the largest branch is the last
    among equally heavy ones (Weka's ``Distribution.maxBag``).

    Attributes
    ----------
    tree_ : object
        The root node; ``n_leaves()`` and ``tree_size()`` give Weka's "Number of Leaves"
        and "Size of the tree".
    classes_, n_classes_, n_features_in_, nominal_mask_, n_categories_
        As in :class:`simstudy.pipeline.learners.weka.WekaNaiveBayes`.

    Examples
    --------
    Weka's weather data (``weather.nominal.arff``, categories coded in file order):

    >>> import numpy as np
    >>> X = np.array([[0, 0, 0, 1], [0, 0, 0, 0], [1, 0, 0, 1], [2, 1, 0, 1], [2, 2, 1, 1],
    ...               [2, 2, 1, 0], [1, 2, 1, 0], [0, 1, 0, 1], [0, 2, 1, 1], [2, 1, 1, 1],
    ...               [0, 1, 1, 0], [1, 1, 0, 0], [1, 0, 1, 1], [2, 1, 0, 0]], dtype=float)
    >>> y = np.array([1, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1])
    >>> m = J48(nominal=[True] * 4).fit(X, y)
    >>> m.n_leaves(), m.tree_size()
    (5, 8)
    """

    #: Choose each node's split in one compiled call (:meth:`_select_compiled`); False: attribute by
    #: attribute with numpy (:meth:`_candidate`), the reference the compiled choice is checked against.
    _compiled_select = True

    def __init__(
        self,
        confidence=0.25,
        min_leaf=2,
        subtree_raising=True,
        unpruned=False,
        nominal=None,
        n_categories=None,
        n_classes=None,
    ):
        super().__init__(nominal, n_categories, n_classes)
        self.confidence = confidence
        self.min_leaf = min_leaf
        self.subtree_raising = subtree_raising
        self.unpruned = unpruned

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y):
        """Grow, collapse and (unless ``unpruned``) prune the tree.

        Parameters
        ----------
        X : array_like, shape (n, p)
        y : array_like, shape (n,)
            Class codes; NaN rows are ignored except for the split thresholds.

        Returns
        -------
        self
        """
        cf, min_leaf = self._options()
        X, y = self._prepare(X, y)
        self._cf = cf
        self._min = min_leaf
        # Weka's m_allData: the training set before instances with a missing class are dropped.
        self._all_X = X
        n_all = X.shape[0]
        p = X.shape[1]
        self._multi_val = p > 0 and all(
            self.nominal_mask_[j] and not _sm(self.n_categories_[j], 0.3 * n_all) for j in range(p)
        )
        self._many_values = np.array(
            [self.nominal_mask_[j] and not _sm(self.n_categories_[j], 0.3 * n_all) for j in range(p)], dtype=bool
        )
        keep = ~np.isnan(y)
        self._X = X[keep]
        self._y = y[keep].astype(int)
        self._nominal_design()
        self._numeric = None  # the numeric columns, contiguous, made at the first node that needs them
        self._select_args = None  # the compiled selection's arrays, made at the first node that needs them
        idx = np.arange(self._X.shape[0])
        self.tree_ = self._build(idx, np.ones(idx.size))
        self._collapse(self.tree_)
        if not self.unpruned:
            self._prune(self.tree_)
        del self._X, self._y, self._all_X, self._onehot, self._nom_cols, self._nom_slot, self._numeric
        del self._select_args
        self._clear_train(self.tree_)
        return self

    def _options(self):
        """``(confidence, min_leaf)`` as floats, checked."""
        cf = float(self.confidence)
        if not (0.0 < cf < 1.0):
            raise InputError(f"confidence: expected a value in (0, 1), got {self.confidence!r}")
        if float(self.min_leaf) < 0:
            raise InputError(f"min_leaf: expected a non-negative number, got {self.min_leaf!r}")
        return cf, float(self.min_leaf)

    def fold_predictions(self, X, y, fold_ids):
        """Predictions of the tree grown without each fold, for every run at once (compiled).

        ``fold_ids`` (runs, n) gives each case's fold in each run (-1: always
        training, never held out).  Entry (r, i) is the class predicted for case i by
        the tree fitted on the cases outside its fold of run r (-1 where ``fold_ids``
        is -1).  The trees are those :meth:`fit` grows: a compiled copy of the same
        algorithm (:mod:`simstudy.pipeline.learners._j48_nominal`) for all-nominal data
        without missing values, where every weight is an integer count.  Returns
        None when that does not apply (numeric or missing values, ``min_leaf`` below
        1, or training parts of different sizes that would treat many-valued
        attributes differently).
        """
        from simstudy.pipeline.learners import (
            _j48_nominal as fast,  # here, not at the top: importing numba takes about 0.5 s
        )

        cf, min_leaf = self._options()
        if min_leaf < 1:
            return None
        data = self._nominal_codes(X, y, fold_ids)
        if data is None:
            return None
        X, y, ncat, c, fold_ids = data
        n = X.shape[0]
        if fold_ids.max() < 0:
            return np.full(fold_ids.shape, -1, dtype=np.int64)
        n_folds = int(fold_ids.max()) + 1
        held = fold_ids >= 0
        sizes = np.bincount(
            (np.arange(fold_ids.shape[0])[:, None] * n_folds + fold_ids)[held], minlength=fold_ids.shape[0] * n_folds
        ).reshape(-1, n_folds)
        sizes = sizes[np.arange(n_folds)[None, :] <= fold_ids.max(axis=1)[:, None]]  # folds each run has
        n_train = n - sizes
        flags = {tuple(bool(not _sm(k, 0.3 * m)) for k in ncat) for m in (int(n_train.min()), int(n_train.max()))}
        if len(flags) > 1:
            return None
        many = np.array(next(iter(flags)), dtype=np.bool_)
        out = fast.fold_predictions(
            X,
            y,
            fold_ids,
            ncat,
            c,
            min_leaf,
            many,
            bool(many.all()),
            fast.log_table(n),
            fast.error_table(n, cf),
            not self.unpruned,
            bool(self.subtree_raising),
        )
        return np.where(fold_ids >= 0, out, -1)

    def _nominal_design(self):
        """Indicator columns of all nominal categories, so that one product per node counts them."""
        cols = np.flatnonzero(self.nominal_mask_)
        kmax = int(self.n_categories_[cols].max()) if cols.size else 0
        offsets = np.r_[0, np.cumsum(self.n_categories_[cols])].astype(int)
        onehot = np.zeros((self._X.shape[0], int(offsets[-1])))
        # slot[a, v]: column of category v of the a-th nominal attribute; the last column
        # (always zero) pads attributes with fewer than kmax categories
        slot = np.full((cols.size, kmax), onehot.shape[1], dtype=int)
        for a, j in enumerate(cols):
            k = int(self.n_categories_[j])
            col = self._X[:, j]
            obs = ~np.isnan(col)
            onehot[np.flatnonzero(obs), offsets[a] + col[obs].astype(int)] = 1.0
            slot[a, :k] = offsets[a] + np.arange(k)
        self._onehot = np.c_[onehot, np.zeros(self._X.shape[0])]
        self._nom_cols = cols
        self._nom_slot = slot

    def _nominal_candidates(self, idx, w, total):
        """:meth:`_candidate` for every nominal attribute at once: {attribute: candidate}."""
        cols = self._nom_cols
        if cols.size == 0:
            return {}
        yw = np.zeros((idx.size, self.n_classes_))
        yw[np.arange(idx.size), self._y[idx]] = w
        counts = self._onehot[idx].T @ yw
        bags = counts[self._nom_slot]  # (attributes, kmax, classes)
        per_bag = bags.sum(axis=2)
        usable = ((per_bag - self._min) > -_SMALL).sum(axis=1) > 1
        kt = per_bag.sum(axis=1)
        per_class = bags.sum(axis=1)
        # every a log2 a of the node in one call
        parts = (bags, per_bag, per_class, kt, total - kt, np.full(kt.shape, total))
        logs = _xlog2x(np.concatenate([q.ravel() for q in parts]))
        ends = np.cumsum([q.size for q in parts])
        l_bags, l_bag, l_class, l_kt, l_unknown, l_total = (
            logs[a:b].reshape(q.shape) for a, b, q in zip(np.r_[0, ends[:-1]], ends, parts)
        )
        old_ent = l_kt - l_class.sum(axis=1)
        new_ent = -(l_bags.sum(axis=(-2, -1)) - l_bag.sum(axis=-1))
        num = (1 - (total - kt) / total) * (old_ent - new_ent)
        safe_kt = np.where(kt > 0, kt, 1.0)
        gain = np.where(np.abs(num) < _SMALL, 0.0, num / safe_kt)
        split_ent = -l_bag.sum(axis=1) - l_unknown + l_total
        split_ent = np.where(kt - 0.0 > _SMALL, split_ent, 0.0)
        zero = np.abs(split_ent) < _SMALL
        ratio = np.where(zero, 0.0, gain / np.where(zero, 1.0, split_ent / total))
        out = {}
        for a, j in enumerate(cols):
            if usable[a]:
                k = int(self.n_categories_[j])
                out[int(j)] = (float(gain[a]), float(ratio[a]), bags[a, :k].copy(), None)
        return out

    def _numeric_candidates(self, idx, w, total):
        """:meth:`_candidate` for every numeric attribute at once, or None where it must go one by one.

        Only when every weight at the node is a whole number (no instance has
        been split by a missing value above it): then every class count and
        every sum of counts is exact in any order, and the compiled kernel
        (:mod:`simstudy.pipeline.learners._j48_numeric`) makes each remaining
        floating-point step as :meth:`_candidate` makes it, so the result is
        identical to the last bit.  Profiling Table 2 showed the numeric
        candidates at 60-80% of J48's time on numeric data while they were
        computed with numpy, most of it numpy's cost per call.
        """
        cols = np.flatnonzero(~self.nominal_mask_)
        if cols.size == 0:
            return {}
        n = self._X.shape[0]
        if not np.array_equal(w, np.floor(w)) or total > n:
            return None
        from simstudy.pipeline.learners import (
            _j48_numeric as fast,  # here, not at the top: importing numba takes about 0.5 s
        )

        if self._numeric is None:
            self._numeric = np.ascontiguousarray(self._X[:, cols])
        c = self.n_classes_
        q = cols.size
        gain, ratio, mid = np.empty(q), np.empty(q), np.empty(q)
        bags = np.zeros((q, 2, c))
        fast.numeric_candidates(
            self._numeric,
            self._y,
            np.asarray(idx, dtype=np.int64),
            np.asarray(w, dtype=float),
            c,
            float(self._min),
            float(total),
            fast.log_table(n),
            fast.log2_table(n),
            gain,
            ratio,
            bags,
            mid,
        )
        return {
            int(j): None if np.isnan(gain[k]) else (float(gain[k]), float(ratio[k]), bags[k], float(mid[k]))
            for k, j in enumerate(cols)
        }

    def _class_dist(self, idx, w):
        return np.bincount(self._y[idx], weights=w, minlength=self.n_classes_).astype(float)

    def _build(self, idx, w):
        node = _Node()
        node.idx, node.w = idx, w
        model = self._select(idx, w)
        if model is None:
            node.dist = self._class_dist(idx, w)[None, :]
            node.is_empty = _eq(float(w.sum()), 0.0)
            return node
        split, dist = model
        node.split, node.dist, node.is_leaf = split, dist, False
        node.sons = [self._build(i, ww) for i, ww in self._split_data(split, dist, idx, w)]
        return node

    def _select(self, idx, w):
        """Weka's ``C45ModelSelection.selectModel``; None for a leaf."""
        per_class = self._class_dist(idx, w)
        total = float(per_class.sum())
        if _sm(total, 2 * self._min) or _eq(total, float(per_class[_max_class(per_class)])):
            return None
        if self._compiled_select:
            return self._select_compiled(idx, w, total)
        nom = self._nominal_candidates(idx, w, total)
        num = self._numeric_candidates(idx, w, total)
        cands = [
            nom.get(j) if self.nominal_mask_[j] else num[j] if num is not None else self._candidate(j, idx, w, total)
            for j in range(self._X.shape[1])
        ]
        gains = [c[0] for j, c in enumerate(cands) if c is not None and (self._multi_val or not self._many_values[j])]
        if not gains:
            return None
        average = 0.0
        for g in gains:
            average += g
        average /= len(gains)
        best, best_ratio = None, 0.0
        for j, c in enumerate(cands):
            if c is not None and c[0] >= average - 1e-3 and _gr(c[1], best_ratio):
                best, best_ratio = j, c[1]
        if _eq(best_ratio, 0.0):
            return None
        _, _, known, threshold = cands[best]
        miss = np.isnan(self._X[idx, best])
        dist = self._add_unknown(known, idx[miss], w[miss])
        nominal = bool(self.nominal_mask_[best])
        if not nominal:
            allc = self._all_X[:, best]
            threshold = _set_split_point(allc[~np.isnan(allc)], threshold)
        split = _Split(best, nominal, dist.shape[0], threshold)
        return split, dist

    def _select_compiled(self, idx, w, total):
        """:meth:`_select` past its leaf tests, in one compiled call (:mod:`simstudy.pipeline.learners._j48_select`)."""
        from simstudy.pipeline.learners import (
            _j48_select as fast,  # here, not at the top: importing numba takes about 0.5 s
        )
        from simstudy.pipeline.learners._j48_nominal import log_table
        from simstudy.pipeline.learners._j48_numeric import log2_table

        n = self._X.shape[0]
        if self._select_args is None:
            self._select_args = (
                np.ascontiguousarray(self._X),
                np.ascontiguousarray(self._y, dtype=np.int64),
                np.ascontiguousarray(self.nominal_mask_, dtype=np.bool_),
                np.asarray(self.n_categories_, dtype=np.int64),
                np.array([self._multi_val or not m for m in self._many_values], dtype=np.bool_),
                log_table(n),
                log2_table(n),
                # the rows sorted by each column once (stable, missing last; nominal columns unused)
                np.ascontiguousarray(np.argsort(self._X, axis=0, kind="stable").T, dtype=np.int64),
            )
        X, y, nominal, ncat, counted, logtab, log2tab, sorted_rows = self._select_args
        c = self.n_classes_
        bags = np.zeros((max(int(ncat.max(initial=0)), 2), c))
        best, mid = fast.select(
            X,
            y,
            np.asarray(idx, dtype=np.int64),
            np.asarray(w, dtype=float),
            nominal,
            ncat,
            c,
            float(total),
            float(self._min),
            counted,
            logtab,
            log2tab,
            sorted_rows,
            bags,
        )
        if best < 0:
            return None
        is_nominal = bool(nominal[best])
        known = bags[: int(ncat[best])] if is_nominal else bags[:2]
        miss = np.isnan(self._X[idx, best])
        dist = self._add_unknown(known, idx[miss], w[miss])
        threshold = None
        if not is_nominal:
            allc = self._all_X[:, best]
            threshold = _set_split_point(allc[~np.isnan(allc)], float(mid))
        return _Split(int(best), is_nominal, dist.shape[0], threshold), dist

    def _candidate(self, j, idx, w, total):
        """Weka's ``C45Split.buildClassifier``: (gain, gain ratio, known bags, threshold) or None."""
        col = self._X[idx, j]
        known = ~np.isnan(col)
        yk, wk, vk = self._y[idx][known], w[known], col[known]
        c = self.n_classes_
        if self.nominal_mask_[j]:
            k = int(self.n_categories_[j])
            bags = np.zeros((k, c))
            np.add.at(bags, (vk.astype(int), yk), wk)
            per_bag = bags.sum(axis=1)
            if sum(1 for b in per_bag if _gr_or_eq(b, self._min)) <= 1:
                return None
            kt = float(bags.sum())
            gain = self._gain(bags, total, _old_ent(bags.sum(axis=0), kt))
            return gain, self._ratio(bags, total, gain), bags, None
        order = np.argsort(vk, kind="stable")
        vk, yk, wk = vk[order], yk[order], wk[order]
        m = vk.size
        onehot = np.zeros((m, c))
        onehot[np.arange(m), yk] = wk
        kt = float(wk.sum())
        min_split = 0.1 * kt / c
        if _sm_or_eq(min_split, self._min):
            min_split = self._min
        elif _gr(min_split, 25):
            min_split = 25.0
        if _sm(float(m), 2 * min_split):
            return None
        per_class = onehot.sum(axis=0)
        default_ent = _old_ent(per_class, kt)
        cut = np.flatnonzero(vk[:-1] + 1e-5 < vk[1:])  # cut after sorted position i
        if cut.size == 0:
            return None
        left = np.cumsum(onehot, axis=0)[cut]
        right = per_class - left
        lw, rw = left.sum(axis=1), right.sum(axis=1)
        ok = (lw - min_split > -_SMALL) & (rw - min_split > -_SMALL)
        n_cand = int(ok.sum())
        if n_cand == 0:
            return None
        cut, left, right = cut[ok], left[ok], right[ok]
        bags = np.stack([left, right], axis=1)
        unknown_rate = (total - kt) / total
        num = (1 - unknown_rate) * (default_ent - _new_ent(bags))
        gains = np.where(np.abs(num) < _SMALL, 0.0, num / kt)
        # Weka keeps the first cut beating the best so far by 1e-6; only cuts above every
        # earlier gain can do so, so the scan visits those alone
        prior = np.r_[-np.inf, np.maximum.accumulate(gains)[:-1]]
        best_gain, best = 0.0, -1
        for i in np.flatnonzero(gains > prior).tolist():
            if _gr(float(gains[i]), best_gain):
                best_gain, best = float(gains[i]), i
        if best < 0:
            return None
        gain = best_gain - math.log2(n_cand) / total
        if _sm_or_eq(gain, 0.0):
            return None
        i = cut[best]
        mid = (vk[i] + vk[i + 1]) / 2
        if mid == vk[i + 1]:
            mid = vk[i]
        return gain, self._ratio(bags[best], total, gain), bags[best], float(mid)

    @staticmethod
    def _gain(bags, total, old_ent):
        kt = float(bags.sum())
        num = (1 - (total - kt) / total) * (old_ent - float(_new_ent(bags)))
        return 0.0 if _eq(num, 0.0) else num / kt

    @staticmethod
    def _ratio(bags, total, gain):
        kt = float(bags.sum())
        split_ent = 0.0
        if _gr(kt, 0.0):
            split_ent = float(-_xlog2x(bags.sum(axis=1)).sum() - _xlog2x(total - kt) + _xlog2x(total))
        if _eq(split_ent, 0.0):
            return 0.0
        return gain / (split_ent / total)

    def _split_data(self, split, dist, idx, w, sub=None):
        """Weka's ``ClassifierSplitModel.split``: (rows, weights) per branch.

        ``sub``: the rows' branches, if already known.  Without missing values
        every row goes to its own branch whole and ``dist`` is not looked at
        (it may then be None).
        """
        if sub is None:
            sub = split.subsets(self._X[idx, split.attribute])
        if sub.size == 0 or sub.min() >= 0:
            return [(idx[keep], w[keep]) for keep in (sub == b for b in range(split.n_subsets))]
        per_bag = dist.sum(axis=1)
        tot = per_bag.sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            share = per_bag / tot
        miss = sub < 0
        out = []
        for b in range(split.n_subsets):
            keep = sub == b
            wb = w
            if share[b] - 0 > _SMALL:
                keep = keep | miss
                wb = np.where(miss, w * share[b], w)
            out.append((idx[keep], wb[keep]))
        return out

    def _dist_for(self, split, idx, w, sub=None):
        """Class weights per branch for the rows ``idx``, unknowns spread as the known weight.

        Weka's ``C45Split.resetDistribution``; the same rule as when the split was chosen.
        ``sub``: the rows' branches, if already known.
        """
        if split is None:
            return self._class_dist(idx, w)[None, :]
        if sub is None:
            sub = split.subsets(self._X[idx, split.attribute])
        dist = np.zeros((split.n_subsets, self.n_classes_))
        known = sub >= 0
        np.add.at(dist, (sub[known], self._y[idx][known]), w[known])
        return self._add_unknown(dist, idx[~known], w[~known])

    def _add_unknown(self, known, idx, w):
        """Weka's ``Distribution.addInstWithUnknown``: rows ``idx`` join every bag pro rata."""
        if idx.size == 0:
            return known
        per_bag = known.sum(axis=1)
        total = float(per_bag.sum())
        probs = per_bag / total if not _eq(total, 0.0) else np.full(per_bag.size, 1.0 / per_bag.size)
        return known + probs[:, None] * self._class_dist(idx, w)[None, :]

    # ------------------------------------------------------- collapse and prune
    def _training_errors(self, node, memo):
        """Training errors of the leaves below ``node``, stored in ``memo`` for every node."""
        if node.is_leaf:
            e = _num_incorrect(node.dist)
        else:
            e = sum([self._training_errors(s, memo) for s in node.sons])
        memo[id(node)] = e
        return e

    def _collapse(self, node, memo=None):
        if memo is None:
            memo = {}
            self._training_errors(node, memo)
        if node.is_leaf:
            return
        if memo[id(node)] >= _num_incorrect(node.dist) - 1e-3:
            self._make_leaf(node)
        else:
            for s in node.sons:
                self._collapse(s, memo)

    @staticmethod
    def _make_leaf(node):
        node.sons, node.split, node.is_leaf = None, None, True
        node.dist = node.dist.sum(axis=0, keepdims=True)

    def _errors_for_dist(self, dist):
        per_class = dist.sum(axis=0)
        total = float(per_class.sum())
        if _eq(total, 0.0):
            return 0.0
        wrong = total - float(per_class[_max_class(per_class)])
        return wrong + add_errs(total, wrong, self._cf)

    def _errors_for_branch(self, node, idx, w):
        """Estimated errors of the subtree ``node`` on the rows ``idx`` (Weka's ``getEstimatedErrorsForBranch``)."""
        if node.is_leaf:
            return self._errors_for_dist(self._class_dist(idx, w)[None, :])
        sub = node.split.subsets(self._X[idx, node.split.attribute])
        # the distribution only decides how rows with a missing value are shared among the branches
        dist = self._dist_for(node.split, idx, w, sub) if sub.size and sub.min() < 0 else None
        parts = self._split_data(node.split, dist, idx, w, sub)
        return sum(self._errors_for_branch(s, i, ww) for s, (i, ww) in zip(node.sons, parts))

    def _new_distribution(self, node, idx, w):
        sub = None if node.is_leaf else node.split.subsets(self._X[idx, node.split.attribute])
        node.dist = self._dist_for(node.split, idx, w, sub)
        node.idx, node.w = idx, w
        if not node.is_leaf:
            for s, (i, ww) in zip(node.sons, self._split_data(node.split, node.dist, idx, w, sub)):
                self._new_distribution(s, i, ww)
        elif not _eq(float(w.sum()), 0.0):
            node.is_empty = False

    def _prune(self, node):
        """Prune below and at ``node``; returns the estimated errors of what is left there."""
        if node.is_leaf:
            return self._errors_for_dist(node.dist)
        # the sons' estimated errors once they are pruned: the subtree's errors below
        err_tree = sum([self._prune(s) for s in node.sons])
        largest = _max_bag(node.dist.sum(axis=1))
        if self.subtree_raising:
            err_branch = self._errors_for_branch(node.sons[largest], node.idx, node.w)
        else:
            err_branch = np.finfo(float).max
        err_leaf = self._errors_for_dist(node.dist)
        if _sm_or_eq(err_leaf, err_tree + 0.1) and _sm_or_eq(err_leaf, err_branch + 0.1):
            self._make_leaf(node)
            return self._errors_for_dist(node.dist)
        if _sm_or_eq(err_branch, err_tree + 0.1):
            big = node.sons[largest]
            node.sons, node.split, node.is_leaf = big.sons, big.split, big.is_leaf
            node.dist = big.dist
            self._new_distribution(node, node.idx, node.w)
            return self._prune(node)
        return err_tree

    def _clear_train(self, node):
        node.idx = node.w = None
        if not node.is_leaf:
            for s in node.sons:
                self._clear_train(s)

    # ---------------------------------------------------------------- prediction
    def predict_proba(self, X):
        """Class probabilities as Weka's ``distributionForInstance`` (no Laplace correction)."""
        X = self._check_X(X)
        for j in np.flatnonzero(self.nominal_mask_):
            col = X[:, j][~np.isnan(X[:, j])]
            if np.any((col < 0) | (col >= self.n_categories_[j]) | (col != np.round(col))):
                raise InputError(f"X: nominal column {j} must hold codes 0..{self.n_categories_[j] - 1} or NaN")
        out = np.zeros((X.shape[0], self.n_classes_))
        self._probs(self.tree_, X, np.arange(X.shape[0]), np.ones(X.shape[0]), out)
        return out

    @staticmethod
    def _leaf_probs(per_class):
        total = float(per_class.sum())
        return per_class / total if not _eq(total, 0.0) else np.zeros_like(per_class)

    def _probs(self, node, X, rows, weight, out):
        if rows.size == 0:
            return
        if node.is_leaf:
            out[rows] += weight[:, None] * self._leaf_probs(node.dist.sum(axis=0))[None, :]
            return
        sub = node.split.subsets(X[rows, node.split.attribute])
        per_bag = node.dist.sum(axis=1)
        for b, son in enumerate(node.sons):
            sel = sub == b
            if not sel.any():
                continue
            if son.is_empty:
                p = node.dist[b] / per_bag[b] if _gr(per_bag[b], 0.0) else self._leaf_probs(node.dist.sum(axis=0))
                out[rows[sel]] += weight[sel, None] * p[None, :]
            else:
                self._probs(son, X, rows[sel], weight[sel], out)
        miss = sub < 0
        if miss.any():
            with np.errstate(invalid="ignore", divide="ignore"):
                share = per_bag / per_bag.sum()
            for b, son in enumerate(node.sons):
                if not son.is_empty:
                    self._probs(son, X, rows[miss], weight[miss] * share[b], out)

    def predict(self, X):
        """Class codes: the first class beating the running maximum by more than 1e-6."""
        p = self.predict_proba(X)
        best = np.full(p.shape[0], -1.0)
        cls = np.zeros(p.shape[0], dtype=int)
        for j in range(p.shape[1]):
            upd = p[:, j] - best > _SMALL
            cls = np.where(upd, j, cls)
            best = np.where(upd, p[:, j], best)
        return cls

    # ------------------------------------------------------------------ inspection
    def n_leaves(self):
        """Number of leaves of the fitted tree (Weka's ``measureNumLeaves``)."""

        def count(node):
            return 1 if node.is_leaf else sum(count(s) for s in node.sons)

        return count(self.tree_)

    def tree_size(self):
        """Number of nodes of the fitted tree (Weka's ``measureTreeSize``)."""

        def count(node):
            return 1 if node.is_leaf else 1 + sum(count(s) for s in node.sons)

        return count(self.tree_)
