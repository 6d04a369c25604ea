"""Compiled choice of J48's split at a node, for any data: nominal and numeric, missing values, any weights.

:meth:`simstudy.pipeline.learners.j48.J48._select` weighs every attribute at every
node (Weka's ``C45ModelSelection.selectModel``).  Done with numpy, each node pays
numpy's cost per call for every numeric attribute, and on data with missing
values every node below the first split of an instance with a missing value has
fractional weights, where :mod:`simstudy.pipeline.learners._j48_numeric` (whole
weights only) does not apply.  This kernel weighs all the attributes of a node in
one call, whatever the weights, and picks the split as ``_select`` does.

Every floating-point sum is made in numpy's order (pairwise where the numpy
version reduces a contiguous axis, in row order where it reduces another), so
with whole weights, where ``a log2 a`` is looked up in the table J48's own
function fills (:func:`simstudy.pipeline.learners._j48_nominal.log_table`), the
gains and gain ratios are those of the numpy version to the last bit.  With
fractional weights ``a log2 a`` is computed here with the C library's logarithm,
which may differ from numpy's vectorised one in the last bit; the choices J48
makes with those numbers compare them with a tolerance of 1e-6, so they are the
same, as the checks in ``tests/pipeline/test_learners_j48_select.py`` and on the
27 UCI data sets of Bouckaert's Table 2 (``BENCHMARKS.md``) show.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from simstudy.pipeline.learners._c45 import SMALL as _SMALL

__all__ = ["select"]

_LOG2 = math.log(2.0)


@njit(cache=True, nogil=True)
def _block(buf, lo, n):
    """numpy's pairwise sum of at most 128 terms ``buf[lo:lo + n]`` (8 accumulators from 8 terms on)."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += buf[i]
        return res
    r0, r1, r2, r3 = buf[lo], buf[lo + 1], buf[lo + 2], buf[lo + 3]
    r4, r5, r6, r7 = buf[lo + 4], buf[lo + 5], buf[lo + 6], buf[lo + 7]
    i = 8
    while i < n - n % 8:
        r0 += buf[lo + i]
        r1 += buf[lo + i + 1]
        r2 += buf[lo + i + 2]
        r3 += buf[lo + i + 3]
        r4 += buf[lo + i + 4]
        r5 += buf[lo + i + 5]
        r6 += buf[lo + i + 6]
        r7 += buf[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += buf[lo + i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def _pairwise(buf, lo, n):
    """Sum of ``buf[lo:lo + n]`` in numpy's pairwise order: halves (the first a multiple of 8) down to 128.

    The halving is walked with an explicit stack (a recursive kernel would not load
    from numba's cache reliably).
    """
    if n <= 128:
        return _block(buf, lo, n)
    f_lo = np.empty(128, dtype=np.int64)
    f_n = np.empty(128, dtype=np.int64)
    f_join = np.empty(128, dtype=np.bool_)
    vals = np.empty(128)
    top = 0
    nv = 0
    f_lo[0], f_n[0], f_join[0] = lo, n, False
    top = 1
    while top > 0:
        top -= 1
        a, m, join = f_lo[top], f_n[top], f_join[top]
        if join:  # both halves summed: left below right
            nv -= 1
            vals[nv - 1] = vals[nv - 1] + vals[nv]
        elif m <= 128:
            vals[nv] = _block(buf, a, m)
            nv += 1
        else:
            m2 = m // 2
            m2 -= m2 % 8
            f_lo[top], f_n[top], f_join[top] = a, m, True
            f_lo[top + 1], f_n[top + 1], f_join[top + 1] = a + m2, m - m2, False
            f_lo[top + 2], f_n[top + 2], f_join[top + 2] = a, m2, False
            top += 3
    return vals[0]


@njit(cache=True, nogil=True, inline="always")
def _xl(a, logtab):
    """J48's ``a log2 a`` (0 below 1e-6); whole numbers from the table, as the numpy version computes them."""
    if not a >= 1e-6:
        return 0.0
    if a < logtab.size and a == math.floor(a):
        return logtab[int(a)]
    return a * math.log(a) / _LOG2


@njit(cache=True, nogil=True)
def _nominal(X, y, idx, w, j, k, c, kmax, total, min_leaf, logtab, bags, buf, out):
    """Gain and gain ratio of the multiway split on nominal column ``j`` (J48._nominal_candidates).

    Fills ``bags[:kmax]`` (category by class weights, zero past ``k``); ``out``
    receives (gain, ratio).  Returns whether the split is usable (two branches
    with ``min_leaf`` known weight).
    """
    for v in range(kmax):
        for i in range(c):
            bags[v, i] = 0.0
    for t in range(idx.size):
        x = X[idx[t], j]
        if not np.isnan(x):
            bags[int(x), y[idx[t]]] += w[t]
    n_ok = 0
    per_bag = np.empty(kmax)
    for v in range(kmax):
        for i in range(c):
            buf[i] = bags[v, i]
        per_bag[v] = _pairwise(buf, 0, c)
        if per_bag[v] - min_leaf > -_SMALL:
            n_ok += 1
    if n_ok <= 1:
        return False
    kt = _pairwise(per_bag, 0, kmax)
    # class totals over the categories, in category order
    for i in range(c):
        s = 0.0
        for v in range(kmax):
            s += bags[v, i]
        buf[i] = _xl(s, logtab)
    old_ent = _xl(kt, logtab) - _pairwise(buf, 0, c)
    m = 0
    for v in range(kmax):
        for i in range(c):
            buf[m] = _xl(bags[v, i], logtab)
            m += 1
    s_bags = _pairwise(buf, 0, m)
    for v in range(kmax):
        buf[v] = _xl(per_bag[v], logtab)
    s_bag = _pairwise(buf, 0, kmax)
    new_ent = -(s_bags - s_bag)
    num = (1 - (total - kt) / total) * (old_ent - new_ent)
    safe_kt = kt if kt > 0 else 1.0
    g = 0.0 if abs(num) < _SMALL else num / safe_kt
    split_ent = -s_bag - _xl(total - kt, logtab) + _xl(total, logtab)
    if not (kt - 0.0 > _SMALL):
        split_ent = 0.0
    out[0] = g
    out[1] = 0.0 if abs(split_ent) < _SMALL else g / (split_ent / total)
    return True


@njit(cache=True, nogil=True)
def _numeric(X, y, idx, w, j, c, total, min_leaf, logtab, log2tab, rows, pos, sv, sw, sc, scratch, bags, buf, out):
    """The best cut on numeric column ``j`` (J48._candidate): returns whether there is one.

    ``bags`` (2, c) receives the class weights left and right of the cut, ``out``
    (gain, ratio, midpoint before Weka moves it onto a training value).  The known
    values are taken in J48's order (sorted, ties in node order): from ``rows``, the
    training rows sorted once by the column, when ``pos`` (each row's place in
    ``idx``, -1 if absent) is given (``pos.size > 0``), else sorted here.
    """
    m = 0
    if pos.size > 0:
        for r in rows:
            v = X[r, j]
            if np.isnan(v):
                break  # missing values sort last
            t = pos[r]
            if t >= 0:
                sv[m] = v
                sw[m] = w[t]
                sc[m] = y[r]
                m += 1
    else:
        for t in range(idx.size):
            v = X[idx[t], j]
            if not np.isnan(v):
                sv[m] = v
                sw[m] = w[t]
                sc[m] = y[idx[t]]
                m += 1
        if m > 1:
            order = np.argsort(sv[:m], kind="mergesort")
            v0 = sv[:m].copy()
            w0 = sw[:m].copy()
            c0 = sc[:m].copy()
            for s in range(m):
                sv[s] = v0[order[s]]
                sw[s] = w0[order[s]]
                sc[s] = c0[order[s]]
    if m == 0:
        return False
    kt = _pairwise(sw, 0, m)
    # class weights in sorted order, as numpy's column sums add them
    per_class = np.zeros(c)
    for s in range(m):
        per_class[sc[s]] += sw[s]
    min_split = 0.1 * kt / c
    if min_split - min_leaf < _SMALL:
        min_split = min_leaf
    elif min_split - 25 > _SMALL:
        min_split = 25.0
    if m - 2 * min_split < -_SMALL:
        return False
    for i in range(c):
        buf[i] = _xl(per_class[i], logtab)
    default_ent = _xl(kt, logtab) - _pairwise(buf, 0, c)
    unknown_rate = (total - kt) / total
    # left[i]: class i's weight up to the cut (numpy's cumulative sum); lx, rx: a log2 a of it and of
    # the rest, updated for the one class whose weight moves at each row
    left = scratch[0]
    lx = scratch[1]
    rx = scratch[2]
    best_left = scratch[3]
    for i in range(c):
        left[i] = 0.0
        lx[i] = 0.0
        rx[i] = _xl(per_class[i], logtab)
    # with whole weights every sum of them is exact in any order: the weight left of the cut is a running sum
    whole = True
    for s in range(m):
        if sw[s] != math.floor(sw[s]):
            whole = False
            break
    n_cand = 0
    best_gain = 0.0
    best = -1
    best_lw = 0.0
    best_rw = 0.0
    run = 0.0
    for s in range(m - 1):
        k = sc[s]
        left[k] += sw[s]
        run += sw[s]
        lx[k] = _xl(left[k], logtab)
        rx[k] = _xl(per_class[k] - left[k], logtab)
        if not sv[s] + 1e-5 < sv[s + 1]:
            continue
        if whole:
            lw = run
            rw = kt - run
        else:
            for i in range(c):
                buf[i] = left[i]
                buf[c + i] = per_class[i] - left[i]
            lw = _pairwise(buf, 0, c)
            rw = _pairwise(buf, c, c)
        if not (lw - min_split > -_SMALL and rw - min_split > -_SMALL):
            continue
        n_cand += 1
        for i in range(c):
            buf[i] = lx[i]
            buf[c + i] = rx[i]
        new_ent = -(_pairwise(buf, 0, 2 * c) - (_xl(lw, logtab) + _xl(rw, logtab)))
        num = (1 - unknown_rate) * (default_ent - new_ent)
        g = 0.0 if abs(num) < _SMALL else num / kt
        if g - best_gain > _SMALL:
            best_gain = g
            best = s
            best_lw = lw
            best_rw = rw
            for i in range(c):
                best_left[i] = left[i]
    if best < 0:
        return False
    gain = best_gain - log2tab[n_cand] / total
    if gain - 0.0 < _SMALL:
        return False
    for i in range(c):
        bags[0, i] = best_left[i]
        bags[1, i] = per_class[i] - best_left[i]
        buf[i] = bags[0, i]
        buf[c + i] = bags[1, i]
    kt2 = _pairwise(buf, 0, 2 * c)  # J48._ratio sums the bags again
    split_ent = 0.0
    if kt2 - 0.0 > _SMALL:
        split_ent = -(_xl(best_lw, logtab) + _xl(best_rw, logtab)) - _xl(total - kt2, logtab) + _xl(total, logtab)
    ratio = 0.0 if (split_ent == 0.0 or abs(split_ent) < _SMALL) else gain / (split_ent / total)
    lo = sv[best]
    hi = sv[best + 1]
    mid = (lo + hi) / 2
    if mid == hi:
        mid = lo
    out[0] = gain
    out[1] = ratio
    out[2] = mid
    return True


@njit(cache=True, nogil=True)
def select(X, y, idx, w, nominal, ncat, c, total, min_leaf, counted, logtab, log2tab, sorted_rows, bags_out):
    """The attribute J48 splits the node's rows ``idx`` (weights ``w``) on, or -1 for a leaf.

    ``X`` (n, p) with NaN for missing, ``nominal`` the nominal columns, ``ncat`` their
    category counts, ``total`` the node's weight, ``counted[j]`` whether attribute
    ``j``'s gain enters the average (J48's rule for many-valued attributes);
    ``sorted_rows[j]`` the rows of ``X`` sorted by numeric column ``j`` (stable, missing last).  The
    chosen attribute's known class weights per branch go into ``bags_out`` (first
    ``ncat`` rows for a nominal one, 2 for a numeric one).  Returns (attribute,
    midpoint of the numeric cut or NaN).
    """
    n, p = X.shape
    kmax = 2
    for j in range(p):
        if nominal[j] and ncat[j] > kmax:
            kmax = ncat[j]
    m = idx.size
    size = 2 * c + kmax * c + kmax + 8
    if m > size:
        size = m
    buf = np.empty(size)
    gains = np.zeros(p)
    ratios = np.zeros(p)
    mids = np.full(p, np.nan)
    ok = np.zeros(p, dtype=np.bool_)
    bags = np.zeros((kmax, c))
    sv = np.empty(m)
    sw = np.empty(m)
    sc = np.empty(m, dtype=np.int64)
    # large nodes whose rows are in data order filter the rows sorted once; the others sort their own
    ascending = True
    for t in range(1, m):
        if idx[t] <= idx[t - 1]:
            ascending = False
            break
    if ascending and 8 * m > n:
        pos = np.full(n, -1, dtype=np.int64)
        for t in range(m):
            pos[idx[t]] = t
    else:
        pos = np.empty(0, dtype=np.int64)
    scratch = np.empty((4, c))
    res = np.zeros(3)
    n_gain = 0
    average = 0.0
    for j in range(p):
        if nominal[j]:
            ok[j] = _nominal(X, y, idx, w, j, ncat[j], c, kmax, total, min_leaf, logtab, bags, buf, res)
        else:
            ok[j] = _numeric(
                X,
                y,
                idx,
                w,
                j,
                c,
                total,
                min_leaf,
                logtab,
                log2tab,
                sorted_rows[j],
                pos,
                sv,
                sw,
                sc,
                scratch,
                bags,
                buf,
                res,
            )
            mids[j] = res[2]
        if ok[j]:
            gains[j] = res[0]
            ratios[j] = res[1]
            if counted[j]:
                average += res[0]
                n_gain += 1
    if n_gain == 0:
        return -1, np.nan
    average /= n_gain
    best = -1
    best_ratio = 0.0
    for j in range(p):
        if ok[j] and gains[j] >= average - 1e-3 and ratios[j] - best_ratio > _SMALL:
            best = j
            best_ratio = ratios[j]
    if best < 0 or (best_ratio < _SMALL and best_ratio > -_SMALL):
        return -1, np.nan
    # the chosen attribute's bags again (the scratch holds the last attribute's)
    if nominal[best]:
        _nominal(X, y, idx, w, best, ncat[best], c, kmax, total, min_leaf, logtab, bags, buf, res)
        for v in range(ncat[best]):
            for i in range(c):
                bags_out[v, i] = bags[v, i]
    else:
        _numeric(
            X,
            y,
            idx,
            w,
            best,
            c,
            total,
            min_leaf,
            logtab,
            log2tab,
            sorted_rows[best],
            pos,
            sv,
            sw,
            sc,
            scratch,
            bags,
            buf,
            res,
        )
        for v in range(2):
            for i in range(c):
                bags_out[v, i] = bags[v, i]
    return best, mids[best]
