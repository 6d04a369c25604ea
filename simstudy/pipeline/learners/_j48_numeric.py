"""Compiled choice of J48's cut on every numeric attribute of a node.

Growing a tree on numeric data, J48 spends most of its time at each node sorting
every numeric attribute and weighing every cut between two distinct values
(``C45Split.handleNumericAttribute``); the numpy version in
:meth:`simstudy.pipeline.learners.j48.J48._numeric_candidates` pays numpy's cost per call
some twenty times per node.  This kernel does the same work in one compiled call.

It is used only where every weight at the node is a whole number (no instance
split by a missing value above it), as the numpy version was: then every class
count and sum of counts is an exact integer in any order, ``a log2 a`` is looked
up in the table :func:`simstudy.pipeline.learners._j48_nominal.log_table` computes with
J48's own function, ``log2`` of the number of cuts in a table computed with
Python's ``math.log2``, and each remaining floating-point sum is made in numpy's
order (:func:`~simstudy.pipeline.learners._j48_nominal._np_sum`), so gains, gain ratios
and thresholds are those of :meth:`J48._candidate` to the last bit
(``tests/pipeline/test_learners_j48_numeric.py``).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numba import njit

from simstudy.pipeline.learners._c45 import SMALL as _SMALL
from simstudy.pipeline.learners._j48_nominal import _np_sum, log_table

__all__ = ["log_table", "log2_table", "numeric_candidates"]


@lru_cache(maxsize=8)
def log2_table(n_max: int) -> np.ndarray:
    """``math.log2(k)`` for k = 0..n_max (entry 0 unused), as J48's MDL correction takes it."""
    return np.array([0.0] + [math.log2(k) for k in range(1, n_max + 1)])


@njit(cache=True, nogil=True)
def numeric_candidates(Xn, y, idx, w, c, min_leaf, total, logtab, log2tab, gain_out, ratio_out, bags_out, mid_out):
    """The best cut of each numeric column of ``Xn`` for the rows ``idx`` (weights ``w``, all whole).

    Writes, per column ``a``: ``gain_out[a]`` (NaN when the column offers no
    split), ``ratio_out[a]``, ``bags_out[a]`` (2, c: class counts left and right
    of the cut) and ``mid_out[a]`` (the threshold before Weka moves it onto a
    training value).  ``total`` is the node's weight, known and missing.
    """
    n = idx.size
    q = Xn.shape[1]
    vals = np.empty(n)
    rows = np.empty(n, dtype=np.int64)
    counts = np.zeros((n, c))
    per_class = np.zeros(c)
    buf = np.zeros(2 * c)
    for a in range(q):
        gain_out[a] = np.nan
        # known values in node order; a stable sort keeps that order among equal values
        m = 0
        for t in range(n):
            v = Xn[idx[t], a]
            if not np.isnan(v):
                vals[m] = v
                rows[m] = t
                m += 1
        if m == 0:
            continue
        order = np.argsort(vals[:m], kind="mergesort")
        for i in range(c):
            per_class[i] = 0.0
        for s in range(m):
            t = rows[order[s]]
            per_class[y[idx[t]]] += w[t]
            for i in range(c):
                counts[s, i] = per_class[i]
        kt = 0.0
        for i in range(c):
            kt += per_class[i]
        min_split = 0.1 * kt / c
        if min_split - min_leaf < _SMALL:
            min_split = min_leaf
        elif min_split - 25 > _SMALL:
            min_split = 25.0
        if m - 2 * min_split < -_SMALL:
            continue
        for i in range(c):
            buf[i] = logtab[int(per_class[i])]
        default_ent = logtab[int(kt)] - _np_sum(buf, c)
        unknown_rate = (total - kt) / total
        n_cand = 0
        best_gain = 0.0
        best = -1
        for s in range(m - 1):
            lo = vals[order[s]]
            hi = vals[order[s + 1]]
            if not lo + 1e-5 < hi:
                continue
            lw = 0.0
            for i in range(c):
                lw += counts[s, i]
            rw = kt - lw
            if not (lw - min_split > -_SMALL and rw - min_split > -_SMALL):
                continue
            n_cand += 1
            for i in range(c):
                buf[i] = logtab[int(counts[s, i])]
                buf[c + i] = logtab[int(per_class[i] - counts[s, i])]
            new_ent = -(_np_sum(buf, 2 * c) - (logtab[int(lw)] + logtab[int(rw)]))
            num = (1 - unknown_rate) * (default_ent - new_ent)
            g = 0.0 if abs(num) < _SMALL else num / kt
            if g - best_gain > _SMALL:
                best_gain = g
                best = s
        if best < 0:
            continue
        gain = best_gain - log2tab[n_cand] / total
        if gain - 0.0 < _SMALL:
            continue
        lw = 0.0
        for i in range(c):
            bags_out[a, 0, i] = counts[best, i]
            bags_out[a, 1, i] = per_class[i] - counts[best, i]
            lw += counts[best, i]
        rw = kt - lw
        split_ent = -(logtab[int(lw)] + logtab[int(rw)]) - logtab[int(total - kt)] + logtab[int(total)]
        if not kt - 0.0 > _SMALL:
            split_ent = 0.0
        if split_ent == 0.0 or (split_ent < _SMALL and -split_ent < _SMALL):
            ratio = 0.0
        else:
            ratio = gain / (split_ent / total)
        lo = vals[order[best]]
        hi = vals[order[best + 1]]
        mid = (lo + hi) / 2
        if mid == hi:
            mid = lo
        gain_out[a] = gain
        ratio_out[a] = ratio
        mid_out[a] = mid
