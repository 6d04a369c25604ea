"""The split search of Weka's DecisionStump, every candidate of every attribute in one entropy evaluation.

:class:`simstudy.pipeline.learners.weka.DecisionStump` minimises the class entropy
conditioned on three branches (``a == v`` / ``a != v`` or ``a <= t`` / ``a > t``,
and missing).  Evaluating the candidates attribute by attribute spends most of a
fit in the per-call overhead of small array operations (the entropy sums run
cell by cell, in Weka's order).  Here the contingency tables of all candidates
of all attributes are built first and their entropies computed in one call of
the same element-wise function, so every candidate gets exactly the value it
got before; the choice (first attribute whatever its criterion, a later one
only if strictly better, the first candidate within an attribute) is unchanged.
"""

from __future__ import annotations

import numpy as np

__all__ = ["stump_search"]


def stump_search(X, onehot, nominal_mask, n_categories, cond_entropy):
    """The best split of a decision stump.

    Parameters
    ----------
    X : ndarray (n, p)
        Training attributes (nominal ones coded 0..k-1), NaN for missing.
    onehot : ndarray (n, c)
        One-hot class indicators of the training instances.
    nominal_mask : ndarray of bool (p,)
    n_categories : ndarray of int (p,)
        Categories of each nominal attribute.
    cond_entropy : callable
        Conditional entropy over the last two axes of an array of (3, c) tables.

    Returns
    -------
    (int, float, ndarray (3, c)) or None
        The attribute, its split point (category code or threshold) and the class
        counts of the three branches (the missing branch filled as the stump
        needs it); None when there are no attributes.
    """
    n, p = X.shape
    c = onehot.shape[1]
    if p == 0:
        return None
    miss_all = np.isnan(X)
    mdists = miss_all.T.astype(float) @ onehot  # (p, c): class counts of the instances missing each attribute
    blocks, splits = [], []  # candidate tables and split points, block by block
    spans = {}  # attribute -> (first, end) of its candidates in the concatenated blocks
    fixed = {}  # numeric attribute without a cut point -> (criterion, split, dist)
    start = 0
    nominal = np.flatnonzero(nominal_mask)
    if nominal.size:
        ks = np.asarray(n_categories)[nominal].astype(np.int64)
        offsets = np.concatenate([[0], np.cumsum(ks)[:-1]]).astype(np.int64)
        cols = X[:, nominal]
        seen = ~miss_all[:, nominal]
        codes = np.where(seen, cols, 0).astype(np.int64) + offsets
        cls = np.broadcast_to(np.argmax(onehot, axis=1)[:, None], cols.shape)
        counts = np.bincount((codes * c + cls)[seen], minlength=int(ks.sum()) * c).reshape(-1, c).astype(float)
        owner = np.repeat(np.arange(nominal.size), ks)
        tot = np.add.reduceat(counts, offsets, axis=0) if counts.shape[0] else np.zeros((0, c))
        blocks.append(np.stack([counts, tot[owner] - counts, mdists[nominal][owner]], axis=1))
        splits.append((np.arange(counts.shape[0]) - offsets[owner]).astype(float))
        for t, j in enumerate(nominal):
            spans[j] = (int(offsets[t]), int(offsets[t] + ks[t]))
        start = counts.shape[0]
    for j in np.flatnonzero(~np.asarray(nominal_mask, dtype=bool)):
        col = X[:, j]
        miss = miss_all[:, j]
        order = np.argsort(col[~miss], kind="stable")
        v = col[~miss][order]
        oh = onehot[~miss][order]
        tot = oh.sum(axis=0)
        ok = v[:-1] < v[1:]
        if not ok.any():
            # No cut point: Weka's criterion stays at Double.MAX_VALUE with split point 0.
            fixed[j] = (np.inf, 0.0, np.stack([np.zeros(c), tot, mdists[j]]))
            continue
        left = np.cumsum(oh, axis=0)[:-1]
        tab = np.stack([left, tot - left, np.broadcast_to(mdists[j], left.shape)], axis=1)[ok]
        blocks.append(tab)
        splits.append(((v[:-1] + v[1:]) / 2.0)[ok])
        spans[j] = (start, start + tab.shape[0])
        start += tab.shape[0]
    tables = np.concatenate(blocks) if blocks else np.zeros((0, 3, c))
    split_points = np.concatenate(splits) if splits else np.zeros(0)
    ent = cond_entropy(tables) if tables.shape[0] else np.zeros(0)
    best = None
    for j in range(p):
        if j in fixed:
            val, split, dist = fixed[j]
        else:
            a, b = spans[j]
            i = a + int(np.argmin(ent[a:b]))
            val, split, dist = ent[i], float(split_points[i]), tables[i].copy()
        if not miss_all[:, j].any():
            dist[2] = dist[0] + dist[1]
        # Weka takes the first attribute whatever its criterion, a later one only if strictly better.
        if best is None or val < best[0]:
            best = (val, j, split, dist)
    return best[1], best[2], best[3]
