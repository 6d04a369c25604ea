"""Compiled J48 for data whose attributes are all nominal and never missing.

Bouckaert's synthetic sources (10 binary attributes, 300 cases) need J48 fitted
hundreds of thousands of times.  On such data every instance weight stays 1 (only
missing values split weights), so every class distribution J48 looks at is a
vector of integer counts.  That makes two shortcuts exact:

* ``a log2 a`` is only ever taken of integers 0..n, and ``errors + addErrs`` only
  of integer pairs (n, e): both are tabulated once per training-set size by the
  very functions :class:`simstudy.learners.j48.J48` calls, so the kernel computes
  no logarithm, power or normal quantile of its own;
* the instances reaching a node are a segment of one permutation of the training
  rows, which its children partition; subtree raising re-partitions the segment.

The kernel follows :class:`~simstudy.learners.j48.J48` step by step: the same
tolerances and tie rules, the same order of growing, collapsing and pruning, and
the same order of every floating-point sum of non-integer terms (numpy's pairwise
order where the Python class sums an array with numpy), so that it gives the same
trees and predictions.  ``tests/test_learners_j48_fast.py`` checks this on
thousands of folds.

Everything here is private; :meth:`J48.fold_predictions` is the entry point.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from ._c45 import SMALL as _SMALL
from ._c45 import add_errs, xlog2x


@lru_cache(maxsize=8)
def log_table(n_max: int) -> np.ndarray:
    """``a log2 a`` for a = 0..n_max, computed as :class:`J48` computes it."""
    return xlog2x(np.arange(n_max + 1, dtype=float))


@lru_cache(maxsize=8)
def error_table(n_max: int, confidence: float) -> np.ndarray:
    """``e + addErrs(n, e)`` for integer 0 <= e <= n <= n_max (J48's estimated errors of a leaf)."""
    out = np.zeros((n_max + 1, n_max + 1))
    for n in range(1, n_max + 1):
        for e in range(n + 1):
            out[n, e] = float(e) + add_errs(float(n), float(e), confidence)
    return out


@njit(cache=True, nogil=True)
def _np_sum(buf, n):
    """Sum of ``buf[:n]`` in numpy's order (plain loop below 8 terms, 8 accumulators up to 128)."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += buf[i]
        return res
    r0, r1, r2, r3 = buf[0], buf[1], buf[2], buf[3]
    r4, r5, r6, r7 = buf[4], buf[5], buf[6], buf[7]
    i = 8
    while i < n - n % 8:
        r0 += buf[i]
        r1 += buf[i + 1]
        r2 += buf[i + 2]
        r3 += buf[i + 3]
        r4 += buf[i + 4]
        r5 += buf[i + 5]
        r6 += buf[i + 6]
        r7 += buf[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += buf[i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def _max_class(v, c):
    best = 0.0
    idx = 0
    for i in range(c):
        if v[i] - best > _SMALL:
            best = v[i]
            idx = i
    return idx


@njit(cache=True, nogil=True)
def _class_counts(X, y, perm, lo, hi, c, out):
    for i in range(c):
        out[i] = 0.0
    for t in range(lo, hi):
        out[y[perm[t]]] += 1.0


@njit(cache=True, nogil=True)
def _errors_for_counts(counts, c, errtab):
    """J48's estimated errors of a leaf holding ``counts`` (0 when empty)."""
    total = 0.0
    for i in range(c):
        total += counts[i]
    if total < _SMALL and total > -_SMALL:
        return 0.0
    wrong = total - counts[_max_class(counts, c)]
    return errtab[int(total), int(wrong)]


@njit(cache=True, nogil=True)
def _node_class_totals(dist, node, nbags, c, out):
    for i in range(c):
        out[i] = 0.0
    for b in range(nbags[node]):
        for i in range(c):
            out[i] += dist[node, b, i]


@njit(cache=True, nogil=True)
def _partition(X, perm, lo, hi, a, k, scratch, starts):
    """Stable partition of ``perm[lo:hi]`` by the value of attribute ``a``; ``starts[b]`` = start of bag b."""
    for b in range(k + 1):
        starts[b] = 0
    for t in range(lo, hi):
        starts[X[perm[t], a] + 1] += 1
    starts[0] = lo
    for b in range(1, k + 1):
        starts[b] += starts[b - 1]
    fill = starts[:k].copy()
    for t in range(lo, hi):
        v = X[perm[t], a]
        scratch[fill[v]] = perm[t]
        fill[v] += 1
    for t in range(lo, hi):
        perm[t] = scratch[t]


@njit(cache=True, nogil=True)
def _count(X, y, perm, lo, hi, out, node):
    """Category-by-class counts of every attribute over ``perm[lo:hi]`` into ``out[node]``."""
    p = X.shape[1]
    for j in range(p):
        for v in range(out.shape[2]):
            for i in range(out.shape[3]):
                out[node, j, v, i] = 0.0
    for t in range(lo, hi):
        r = perm[t]
        yi = y[r]
        for j in range(p):
            out[node, j, X[r, j], yi] += 1.0


@njit(cache=True, nogil=True)
def _build(X, y, ncat, c, min_leaf, many_values, multi_val, logtab, perm, scratch, lo0, hi0,
           attr, child0, nbags, dist, empty, seg_lo, seg_hi, n_nodes, counts):
    """Grow the tree depth first (Weka's ``C45ModelSelection``); returns the number of nodes used.

    ``counts[node]`` holds the node's category-by-class counts of every attribute.
    When a node splits, every branch but the largest is counted and the largest is
    the node's counts minus theirs (integers, so exactly what counting would give).
    """
    p = X.shape[1]
    kmax = dist.shape[1]
    # explicit stack of nodes still to grow
    stack = np.empty(dist.shape[0], dtype=np.int64)
    root = n_nodes
    n_nodes += 1
    seg_lo[root] = lo0
    seg_hi[root] = hi0
    stack[0] = root
    top = 1
    per_class = np.zeros(c)
    gains = np.zeros(p)
    ratios = np.zeros(p)
    usable = np.zeros(p, dtype=np.bool_)
    buf = np.zeros(kmax * c + c + kmax)
    starts = np.zeros(kmax + 1, dtype=np.int64)
    if p > 0:
        _count(X, y, perm, lo0, hi0, counts, root)
    while top > 0:
        top -= 1
        node = stack[top]
        lo = seg_lo[node]
        hi = seg_hi[node]
        if p > 0:
            for i in range(c):
                s = 0.0
                for v in range(kmax):
                    s += counts[node, 0, v, i]
                per_class[i] = s
        else:
            _class_counts(X, y, perm, lo, hi, c, per_class)
        total = 0.0
        for i in range(c):
            total += per_class[i]
        leaf = total - 2 * min_leaf < -_SMALL
        if not leaf:
            mx = per_class[_max_class(per_class, c)]
            leaf = total == mx or (total - mx < _SMALL and mx - total < _SMALL)
        best = -1
        if not leaf:
            bags = counts[node]
            n_gain = 0
            gsum = 0.0
            for j in range(p):
                k = ncat[j]
                n_ok = 0
                kt = 0.0
                for v in range(k):
                    pb = 0.0
                    for i in range(c):
                        pb += bags[j, v, i]
                    if pb - min_leaf > -_SMALL:
                        n_ok += 1
                    kt += pb
                usable[j] = n_ok > 1
                if not usable[j]:
                    continue
                # entropies exactly as J48._nominal_candidates sums them (kmax-padded bags)
                for i in range(c):
                    s = 0.0
                    for v in range(kmax):
                        s += bags[j, v, i]
                    buf[i] = logtab[int(s)]
                old_ent = logtab[int(kt)] - _np_sum(buf, c)
                m = 0
                for v in range(kmax):
                    for i in range(c):
                        buf[m] = logtab[int(bags[j, v, i])]
                        m += 1
                s_bags = _np_sum(buf, m)
                for v in range(kmax):
                    pb = 0.0
                    for i in range(c):
                        pb += bags[j, v, i]
                    buf[v] = logtab[int(pb)]
                s_bag = _np_sum(buf, kmax)
                new_ent = -(s_bags - s_bag)
                num = (1 - (total - kt) / total) * (old_ent - new_ent)
                safe_kt = kt if kt > 0 else 1.0
                g = 0.0 if abs(num) < _SMALL else num / safe_kt
                split_ent = -s_bag - logtab[int(total - kt)] + logtab[int(total)]
                if not (kt - 0.0 > _SMALL):
                    split_ent = 0.0
                if abs(split_ent) < _SMALL:
                    ratios[j] = 0.0
                else:
                    ratios[j] = g / (split_ent / total)
                gains[j] = g
                if multi_val or not many_values[j]:
                    gsum += g
                    n_gain += 1
            if n_gain > 0:
                average = gsum / n_gain
                best_ratio = 0.0
                for j in range(p):
                    if usable[j] and gains[j] >= average - 1e-3 and ratios[j] - best_ratio > _SMALL:
                        best = j
                        best_ratio = ratios[j]
                if best_ratio < _SMALL and best_ratio > -_SMALL:
                    best = -1
        if best < 0:
            attr[node] = -1
            nbags[node] = 1
            for v in range(kmax):
                for i in range(c):
                    dist[node, v, i] = 0.0
            for i in range(c):
                dist[node, 0, i] = per_class[i]
            empty[node] = total < _SMALL and total > -_SMALL
            continue
        k = ncat[best]
        attr[node] = best
        nbags[node] = k
        empty[node] = False
        for v in range(kmax):
            for i in range(c):
                dist[node, v, i] = bags[best, v, i] if v < k else 0.0
        _partition(X, perm, lo, hi, best, k, scratch, starts)
        child0[node] = n_nodes
        largest = 0
        for b in range(k):
            ch = n_nodes + b
            seg_lo[ch] = starts[b]
            seg_hi[ch] = starts[b + 1] if b + 1 < k else hi
            if seg_hi[ch] - seg_lo[ch] > seg_hi[n_nodes + largest] - seg_lo[n_nodes + largest]:
                largest = b
        big = n_nodes + largest
        for j in range(p):
            for v in range(kmax):
                for i in range(c):
                    counts[big, j, v, i] = counts[node, j, v, i]
        for b in range(k):
            if b != largest:
                ch = n_nodes + b
                _count(X, y, perm, seg_lo[ch], seg_hi[ch], counts, ch)
                for j in range(p):
                    for v in range(kmax):
                        for i in range(c):
                            counts[big, j, v, i] -= counts[ch, j, v, i]
        # grow the sons in order (the last pushed is grown first)
        for b in range(k - 1, -1, -1):
            stack[top] = n_nodes + b
            top += 1
        n_nodes += k
    return n_nodes


@njit(cache=True, nogil=True)
def _training_errors(n_nodes, attr, child0, nbags, dist, c, memo, tmp):
    """Training errors of the leaves below every node of a freshly grown tree.

    Sons are always numbered after their parent, so a pass from the last node to
    the first sees every son before its parent; each node adds its sons' errors in
    branch order, as the recursive sum does.
    """
    for node in range(n_nodes - 1, -1, -1):
        if attr[node] < 0:
            _node_class_totals(dist, node, nbags, c, tmp)
            tot = 0.0
            for i in range(c):
                tot += tmp[i]
            memo[node] = tot - tmp[_max_class(tmp, c)]
        else:
            e = 0.0
            for b in range(nbags[node]):
                e += memo[child0[node] + b]
            memo[node] = e


@njit(cache=True, nogil=True)
def _make_leaf(node, attr, nbags, dist, c):
    kmax = dist.shape[1]
    for i in range(c):
        s = 0.0
        for b in range(nbags[node]):
            s += dist[node, b, i]
        dist[node, 0, i] = s
    for b in range(1, kmax):
        for i in range(c):
            dist[node, b, i] = 0.0
    attr[node] = -1
    nbags[node] = 1


@njit(cache=True, nogil=True)
def _collapse(root, attr, child0, nbags, dist, c, memo, tmp):
    stack = np.empty(attr.shape[0], dtype=np.int64)
    stack[0] = root
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        if attr[node] < 0:
            continue
        _node_class_totals(dist, node, nbags, c, tmp)
        tot = 0.0
        for i in range(c):
            tot += tmp[i]
        if memo[node] >= tot - tmp[_max_class(tmp, c)] - 1e-3:
            _make_leaf(node, attr, nbags, dist, c)
        else:
            for b in range(nbags[node] - 1, -1, -1):
                stack[top] = child0[node] + b
                top += 1


@njit(cache=True, nogil=True)
def _subtree(node, attr, child0, nbags, order):
    """Nodes of the subtree at ``node`` (parents before sons); returns their number."""
    order[0] = node
    m = 1
    t = 0
    while t < m:
        v = order[t]
        t += 1
        if attr[v] >= 0:
            for b in range(nbags[v]):
                order[m] = child0[v] + b
                m += 1
    return m


@njit(cache=True, nogil=True)
def _errors_for_branch(node, X, y, perm, lo, hi, attr, child0, nbags, dist, seg_lo, seg_hi, c, errtab, order,
                       counts, value):
    """Estimated errors if the instances ``perm[lo:hi]`` went down the subtree at ``node``.

    ``node`` is a branch of the node whose instances are ``perm[lo:hi]``, so its own
    instances ``perm[seg_lo[node]:seg_hi[node]]`` are among them, and they already
    sit in its leaves: every leaf's distribution counts exactly the instances of
    the subtree that reach it (after growing, collapsing, pruning and raising
    alike).  So each leaf starts from its distribution and only the other
    instances are routed down.  Then every node, sons before parents, adds its
    sons' estimates in branch order, as the recursive sum of Weka's
    ``getEstimatedErrorsForBranch`` does.  All counts are integers, so the
    estimates are those of routing every instance.
    """
    m = _subtree(node, attr, child0, nbags, order)
    for t in range(m):
        v = order[t]
        if attr[v] < 0:
            for i in range(c):
                counts[v, i] = dist[v, 0, i]
    for part in range(2):  # the instances before and after the node's own segment
        start = lo if part == 0 else seg_hi[node]
        stop = seg_lo[node] if part == 0 else hi
        for t in range(start, stop):
            r = perm[t]
            v = node
            while attr[v] >= 0:
                v = child0[v] + X[r, attr[v]]
            counts[v, y[r]] += 1.0
    # ``order`` lists parents before their sons: backwards, every son comes before its parent
    for t in range(m - 1, -1, -1):
        v = order[t]
        if attr[v] < 0:
            value[v] = _errors_for_counts(counts[v], c, errtab)
        else:
            e = 0.0
            for b in range(nbags[v]):
                e += value[child0[v] + b]
            value[v] = e
    return value[node]


@njit(cache=True, nogil=True)
def _new_distribution(node, X, y, perm, lo, hi, attr, child0, nbags, dist, empty, seg_lo, seg_hi, c, scratch,
                      order):
    """Recount the distributions below ``node`` from the instances ``perm[lo:hi]`` (Weka's ``newDistribution``)."""
    kmax = dist.shape[1]
    seg_lo[node] = lo
    seg_hi[node] = hi
    order[0] = node
    m = 1
    while m > 0:
        m -= 1
        v = order[m]
        lo = seg_lo[v]
        hi = seg_hi[v]
        for b in range(kmax):
            for i in range(c):
                dist[v, b, i] = 0.0
        if attr[v] < 0:
            for t in range(lo, hi):
                dist[v, 0, y[perm[t]]] += 1.0
            if hi > lo:
                empty[v] = False
            continue
        a = attr[v]
        for t in range(lo, hi):
            r = perm[t]
            dist[v, X[r, a], y[r]] += 1.0
        k = nbags[v]
        starts = np.zeros(k + 1, dtype=np.int64)
        _partition(X, perm, lo, hi, a, k, scratch, starts)
        starts[k] = hi
        for b in range(k):
            ch = child0[v] + b
            seg_lo[ch] = starts[b]
            seg_hi[ch] = starts[b + 1]
            order[m] = ch
            m += 1


@njit(cache=True, nogil=True)
def _prune(root, X, y, perm, attr, child0, nbags, dist, empty, seg_lo, seg_hi, c, errtab, scratch, tmp,
           subtree_raising, order, counts, value, f_node, f_next, f_acc):
    """Weka's ``C45PruneableClassifierTree.prune`` from ``root``, with an explicit stack of frames.

    A frame is a node whose sons are being pruned (``f_next``: the next son,
    ``f_acc``: the sum of the pruned sons' estimated errors so far).  When a node
    raises its largest branch, its frame starts over on the raised subtree, which
    is the recursive version's ``return prune(node)``.
    """
    top = 0
    f_node[0] = root
    f_next[0] = 0
    f_acc[0] = 0.0
    result = 0.0
    while top >= 0:
        node = f_node[top]
        if attr[node] < 0:
            _node_class_totals(dist, node, nbags, c, tmp)
            result = _errors_for_counts(tmp, c, errtab)
        elif f_next[top] < nbags[node]:
            f_node[top + 1] = child0[node] + f_next[top]
            f_next[top + 1] = 0
            f_acc[top + 1] = 0.0
            top += 1
            continue
        else:
            err_tree = f_acc[top]
            best = 0.0
            largest = -1
            for b in range(nbags[node]):
                w = 0.0
                for i in range(c):
                    w += dist[node, b, i]
                if best - w < _SMALL:
                    best = w
                    largest = b
            lo = seg_lo[node]
            hi = seg_hi[node]
            big = child0[node] + largest
            if subtree_raising:
                err_branch = _errors_for_branch(big, X, y, perm, lo, hi, attr, child0, nbags, dist, seg_lo, seg_hi, c,
                                                errtab, order, counts, value)
            else:
                err_branch = np.finfo(np.float64).max
            _node_class_totals(dist, node, nbags, c, tmp)
            err_leaf = _errors_for_counts(tmp, c, errtab)
            if err_leaf - (err_tree + 0.1) < _SMALL and err_leaf - (err_branch + 0.1) < _SMALL:
                _make_leaf(node, attr, nbags, dist, c)
                _node_class_totals(dist, node, nbags, c, tmp)
                result = _errors_for_counts(tmp, c, errtab)
            elif err_branch - (err_tree + 0.1) < _SMALL:
                attr[node] = attr[big]
                child0[node] = child0[big]
                nbags[node] = nbags[big]
                _new_distribution(node, X, y, perm, lo, hi, attr, child0, nbags, dist, empty, seg_lo, seg_hi, c,
                                  scratch, order)
                f_next[top] = 0
                f_acc[top] = 0.0
                continue
            else:
                result = err_tree
        # the node is done: hand its estimate to its parent's frame
        top -= 1
        if top >= 0:
            f_acc[top] += result
            f_next[top] += 1
    return result


@njit(cache=True, nogil=True)
def _leaf_probs(dist, node, nbags, c, probs, tmp):
    """The node's class distribution as probabilities, all zero when it is empty (J48._leaf_probs)."""
    _node_class_totals(dist, node, nbags, c, tmp)
    tot = 0.0
    for i in range(c):
        tot += tmp[i]
    for i in range(c):
        probs[i] = 0.0 if (tot < _SMALL and tot > -_SMALL) else tmp[i] / tot


@njit(cache=True, nogil=True)
def _predict_one(x, root, attr, child0, nbags, dist, empty, c, probs, tmp):
    node = root
    while True:
        if attr[node] < 0:
            _leaf_probs(dist, node, nbags, c, probs, tmp)
            break
        b = x[attr[node]]
        son = child0[node] + b
        if empty[son]:
            # an empty branch answers with its bag of the parent's distribution, or the parent's
            pb = 0.0
            for i in range(c):
                pb += dist[node, b, i]
            if pb - 0.0 > _SMALL:
                for i in range(c):
                    probs[i] = dist[node, b, i] / pb
            else:
                _leaf_probs(dist, node, nbags, c, probs, tmp)
            break
        node = son
    best = -1.0
    cls = 0
    for i in range(c):
        if probs[i] - best > _SMALL:
            best = probs[i]
            cls = i
    return cls


@njit(cache=True, nogil=True)
def fold_predictions(X, y, fold_ids, ncat, c, min_leaf, many_values, multi_val, logtab, errtab,
                     prune, subtree_raising):
    """Fit J48 on every training part of ``fold_ids`` (runs, n) and predict its held-out cases.

    Returns (runs, n) predicted class codes: entry (r, i) comes from the tree fitted
    without the fold of case i in run r.
    """
    n, p = X.shape
    runs = fold_ids.shape[0]
    kmax = 1
    for j in range(p):
        if ncat[j] > kmax:
            kmax = ncat[j]
    cap = kmax * n + 2
    attr = np.empty(cap, dtype=np.int64)
    child0 = np.zeros(cap, dtype=np.int64)
    nbags = np.zeros(cap, dtype=np.int64)
    dist = np.zeros((cap, kmax, c))
    empty = np.zeros(cap, dtype=np.bool_)
    seg_lo = np.zeros(cap, dtype=np.int64)
    seg_hi = np.zeros(cap, dtype=np.int64)
    memo = np.zeros(cap)
    counts = np.zeros((cap, p, kmax, c))
    order = np.zeros(cap, dtype=np.int64)
    leaf_counts = np.zeros((cap, c))
    value = np.zeros(cap)
    f_node = np.zeros(cap, dtype=np.int64)
    f_next = np.zeros(cap, dtype=np.int64)
    f_acc = np.zeros(cap)
    perm = np.empty(n, dtype=np.int64)
    scratch = np.empty(n, dtype=np.int64)
    tmp = np.zeros(c)
    probs = np.zeros(c)
    out = np.full((runs, n), -1, dtype=np.int64)
    for r in range(runs):
        n_folds = 0
        for i in range(n):
            if fold_ids[r, i] + 1 > n_folds:
                n_folds = fold_ids[r, i] + 1
        for f in range(n_folds):
            m = 0
            for i in range(n):
                if fold_ids[r, i] != f:
                    perm[m] = i
                    m += 1
            if m == n:
                continue
            used = _build(X, y, ncat, c, min_leaf, many_values, multi_val, logtab, perm, scratch, 0, m,
                          attr, child0, nbags, dist, empty, seg_lo, seg_hi, 0, counts)
            _training_errors(used, attr, child0, nbags, dist, c, memo, tmp)
            _collapse(0, attr, child0, nbags, dist, c, memo, tmp)
            if prune:
                _prune(0, X, y, perm, attr, child0, nbags, dist, empty, seg_lo, seg_hi, c, errtab, scratch, tmp,
                       subtree_raising, order, leaf_counts, value, f_node, f_next, f_acc)
            for i in range(n):
                if fold_ids[r, i] == f:
                    out[r, i] = _predict_one(X[i], 0, attr, child0, nbags, dist, empty, c, probs, tmp)
    return out
