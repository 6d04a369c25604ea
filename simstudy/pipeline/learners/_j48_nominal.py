"""Compiled J48 for data whose attributes are all nominal and never missing.

Bouckaert's synthetic sources (10 binary attributes, 300 cases) need J48 fitted
hundreds of thousands of times.  On such data every instance weight stays 1 (only
missing values split weights), so every class distribution J48 looks at is a
vector of integer counts.  That makes three shortcuts exact:

* ``a log2 a`` is only ever taken of integers 0..n, and ``errors + addErrs`` only
  of integer pairs (n, e): both are tabulated once per training-set size by the
  very functions :class:`simstudy.pipeline.learners.j48.J48` calls, so the kernel computes
  no logarithm, power or normal quantile of its own;
* a set of cases is a bit set over the n cases (one bit a case, 64 to a word):
  the cases reaching a node are its parent's AND the cases with the node's
  category of the parent's attribute, and a count is the number of bits set in
  such a set AND a class's cases (AND a category's), whichever rows they are;
* so the instances that would reach any node of a subtree from any set of cases
  (pruning's estimated errors of the largest branch, the recount after subtree
  raising) are the set AND the categories on the path to the node.

The kernel follows :class:`~simstudy.pipeline.learners.j48.J48` step by step: the same
tolerances and tie rules, the same order of growing, collapsing and pruning, and
the same order of every floating-point sum of non-integer terms (numpy's pairwise
order where the Python class sums an array with numpy), so that it gives the same
trees and predictions.  ``tests/pipeline/test_learners_j48_fast.py`` checks this on
thousands of folds.

Everything here is private; :meth:`J48.fold_predictions` is the entry point.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from simstudy.pipeline.learners._c45 import SMALL as _SMALL
from simstudy.pipeline.learners._c45 import add_errs, xlog2x

_HUGE = np.finfo(np.float64).max


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


@intrinsic
def _popcount(typingctx, word):
    """Number of bits set in a 64-bit word (LLVM's ``ctpop``: one instruction on x86-64)."""
    if word != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@njit(cache=True, nogil=True, inline="always")
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


@njit(cache=True, nogil=True, inline="always")
def _max_class(v, c):
    best = 0.0
    idx = 0
    for i in range(c):
        if v[i] - best > _SMALL:
            best = v[i]
            idx = i
    return idx


@njit(cache=True, nogil=True, inline="always")
def _node_class_totals(dist, node, nbags, c, out):
    for i in range(c):
        out[i] = 0.0
    for b in range(nbags[node]):
        for i in range(c):
            out[i] += dist[node, b, i]


@njit(cache=True, nogil=True, inline="always")
def _class_split(sets, s, classes, c, words, out):
    """Class counts of the cases in ``sets[s]`` into ``out`` (floats holding integers)."""
    for i in range(c):
        total = np.uint64(0)
        for w in range(words):
            total += _popcount(sets[s, w] & classes[i, w])
        out[i] = float(total)


@njit(cache=True, nogil=True, inline="always")
def _choose(
    node,
    sets,
    cats,
    by_class,
    ncat,
    c,
    per_class,
    total,
    min_leaf,
    many_values,
    multi_val,
    logtab,
    bags,
    gains,
    ratios,
    usable,
    buf,
):
    """Gains and gain ratios of splitting the node's cases ``sets[node]`` on each attribute, any category counts.

    ``by_class[i]`` holds the node's cases of class i and ``per_class`` their numbers.
    Every attribute's category-by-class counts go into ``bags``, the last category
    and the last class as the totals minus the others (integers, so exactly what
    counting gives); then ``usable``, ``gains`` and ``ratios`` as in
    J48._nominal_candidates.  Returns the number of gains the average takes and their sum.
    """
    p = cats.shape[0]
    words = sets.shape[1]
    kmax = bags.shape[1]
    for j in range(p):
        k = ncat[j]
        for v in range(k - 1):
            rest = 0.0
            for i in range(c - 1):
                cnt = np.uint64(0)
                for w in range(words):
                    cnt += _popcount(by_class[i, w] & cats[j, v, w])
                bags[j, v, i] = float(cnt)
                rest += bags[j, v, i]
            cnt = np.uint64(0)
            for w in range(words):
                cnt += _popcount(sets[node, w] & cats[j, v, w])
            bags[j, v, c - 1] = float(cnt) - rest
        for i in range(c):
            rest = per_class[i]
            for v in range(k - 1):
                rest -= bags[j, v, i]
            bags[j, k - 1, i] = rest
        for v in range(k, kmax):
            for i in range(c):
                bags[j, v, i] = 0.0
    # the class entropy term is the same for every attribute (no value is missing)
    for i in range(c):
        buf[i] = logtab[int(per_class[i])]
    class_terms = _np_sum(buf, c)
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
        old_ent = logtab[int(kt)] - class_terms
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
        gains[j], ratios[j] = _gain_ratio(
            total, kt, old_ent, s_bags, s_bag, logtab[int(total - kt)], logtab[int(total)]
        )
        if multi_val or not many_values[j]:
            gsum += gains[j]
            n_gain += 1
    return n_gain, gsum


@njit(cache=True, nogil=True, inline="always")
def _gain_ratio(total, kt, old_ent, s_bags, s_bag, log_rest, log_total):
    """Gain and gain ratio from the entropy sums (J48._nominal_candidates); ``log_rest`` and
    ``log_total`` are ``a log2 a`` of the unknown weight ``total - kt`` and of ``total``."""
    new_ent = -(s_bags - s_bag)
    num = (1 - (total - kt) / total) * (old_ent - new_ent)
    safe_kt = kt if kt > 0 else 1.0
    g = 0.0 if abs(num) < _SMALL else num / safe_kt
    split_ent = -s_bag - log_rest + log_total
    if not (kt - 0.0 > _SMALL):
        split_ent = 0.0
    if abs(split_ent) < _SMALL:
        return g, 0.0
    return g, g / (split_ent / total)


@njit(cache=True, nogil=True)
def _build(
    cats,
    classes,
    ncat,
    c,
    binary,
    min_leaf,
    many_values,
    multi_val,
    logtab,
    sets,
    attr,
    child0,
    nbags,
    dist,
    empty,
    bags,
    by_class,
    stack,
    per_class,
    gains,
    ratios,
    usable,
    buf,
):
    """Grow the tree from the cases ``sets[0]`` depth first (Weka's ``C45ModelSelection``).

    ``cats[j, v]`` holds the cases with category v of attribute j and ``classes[i]``
    those of class i; ``binary``: every attribute and the class have two values.
    Returns the number of nodes.
    """
    p = cats.shape[0]
    words = sets.shape[1]
    kmax = dist.shape[1]
    stack[0] = 0
    top = 1
    n_nodes = 1
    while top > 0:
        top -= 1
        node = stack[top]
        # the node's cases of each class, and how many
        for i in range(c):
            total_i = np.uint64(0)
            for w in range(words):
                x = sets[node, w] & classes[i, w]
                by_class[i, w] = x
                total_i += _popcount(x)
            per_class[i] = float(total_i)
        total = 0.0
        for i in range(c):
            total += per_class[i]
        leaf = total - 2 * min_leaf < -_SMALL
        if not leaf:
            mx = 0.0  # the largest class count (J48's maxClass)
            for i in range(c):
                if per_class[i] - mx > _SMALL:
                    mx = per_class[i]
            leaf = total == mx or (total - mx < _SMALL and mx - total < _SMALL)
        best = -1
        if not leaf:
            if binary:
                # _choose where every attribute and the class are binary: two counts per attribute (category
                # 0 and class 0, category 0) and the same sums written out, in the order _choose adds them;
                # here, not in a function, because numba counts references to every array a call is given
                n0 = int(per_class[0])
                n1 = int(per_class[1])
                class_terms = 0.0
                class_terms += logtab[n0]
                class_terms += logtab[n1]
                n_gain = 0
                gsum = 0.0
                for j in range(p):
                    both = np.uint64(0)
                    cat0 = np.uint64(0)
                    for w in range(words):
                        both += _popcount(by_class[0, w] & cats[j, 0, w])
                        cat0 += _popcount(sets[node, w] & cats[j, 0, w])
                    c00 = int(both)
                    c01 = int(cat0) - c00
                    c10 = n0 - c00
                    c11 = n1 - c01
                    bags[j, 0, 0] = float(c00)
                    bags[j, 0, 1] = float(c01)
                    bags[j, 1, 0] = float(c10)
                    bags[j, 1, 1] = float(c11)
                    pb0 = float(c00 + c01)
                    pb1 = float(c10 + c11)
                    usable[j] = pb0 - min_leaf > -_SMALL and pb1 - min_leaf > -_SMALL
                    if not usable[j]:
                        continue
                    kt = 0.0
                    kt += pb0
                    kt += pb1
                    old_ent = logtab[int(kt)] - class_terms
                    s_bags = 0.0
                    s_bags += logtab[c00]
                    s_bags += logtab[c01]
                    s_bags += logtab[c10]
                    s_bags += logtab[c11]
                    s_bag = 0.0
                    s_bag += logtab[c00 + c01]
                    s_bag += logtab[c10 + c11]
                    gains[j], ratios[j] = _gain_ratio(
                        total, kt, old_ent, s_bags, s_bag, logtab[int(total - kt)], logtab[int(total)]
                    )
                    if multi_val or not many_values[j]:
                        gsum += gains[j]
                        n_gain += 1
            else:
                n_gain, gsum = _choose(
                    node,
                    sets,
                    cats,
                    by_class,
                    ncat,
                    c,
                    per_class,
                    total,
                    min_leaf,
                    many_values,
                    multi_val,
                    logtab,
                    bags,
                    gains,
                    ratios,
                    usable,
                    buf,
                )
            # the usable attribute of largest gain ratio among those of at least average gain
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
        child0[node] = n_nodes
        for b in range(k):
            for w in range(words):
                sets[n_nodes + b, w] = sets[node, w] & cats[best, b, w]
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


@njit(cache=True, nogil=True, inline="always")
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
def _collapse(root, attr, child0, nbags, dist, c, memo, tmp, stack):
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


@njit(cache=True, nogil=True, inline="always")
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


@njit(cache=True, nogil=True, inline="always")
def _reach(node, cats, attr, child0, nbags, order, m, reach, words):
    """For the subtree ``order[:m]`` at ``node``: ``reach[v]`` = ``reach[node]`` AND the path to v."""
    for t in range(m):
        v = order[t]
        a = attr[v]
        if a >= 0:
            for b in range(nbags[v]):
                ch = child0[v] + b
                for w in range(words):
                    reach[ch, w] = reach[v, w] & cats[a, b, w]


@njit(cache=True, nogil=True)
def _new_distribution(node, sets, cats, classes, attr, child0, nbags, dist, empty, c, order, tmp):
    """Recount the distributions below ``node`` from its cases ``sets[node]`` (Weka's ``newDistribution``)."""
    kmax = dist.shape[1]
    words = sets.shape[1]
    m = _subtree(node, attr, child0, nbags, order)
    _reach(node, cats, attr, child0, nbags, order, m, sets, words)
    for t in range(m):
        v = order[t]
        for b in range(kmax):
            for i in range(c):
                dist[v, b, i] = 0.0
        if attr[v] < 0:
            _class_split(sets, v, classes, c, words, tmp)
            any_case = False
            for i in range(c):
                dist[v, 0, i] = tmp[i]
                any_case = any_case or tmp[i] > 0
            if any_case:
                empty[v] = False
            continue
        for b in range(nbags[v]):
            _class_split(sets, child0[v] + b, classes, c, words, tmp)
            for i in range(c):
                dist[v, b, i] = tmp[i]


@njit(cache=True, nogil=True)
def _prune(
    root,
    sets,
    cats,
    classes,
    attr,
    child0,
    nbags,
    dist,
    empty,
    c,
    errtab,
    tmp,
    subtree_raising,
    order,
    reach,
    value,
    f_node,
    f_next,
    f_acc,
):
    """Weka's ``C45PruneableClassifierTree.prune`` from ``root``, with an explicit stack of frames.

    A frame is a node whose sons are being pruned (``f_next``: the next son,
    ``f_acc``: the sum of the pruned sons' estimated errors so far).  When a node
    raises its largest branch, its frame starts over on the raised subtree, which
    is the recursive version's ``return prune(node)``.

    The estimated errors of a leaf (of a node's class totals) and of the largest
    branch are computed here rather than by helpers: numba counts references to
    every array a call is given, and this loop runs once per node.
    """
    words = sets.shape[1]
    top = 0
    f_node[0] = root
    f_next[0] = 0
    f_acc[0] = 0.0
    result = 0.0
    while top >= 0:
        node = f_node[top]
        if attr[node] >= 0 and f_next[top] < nbags[node]:
            f_node[top + 1] = child0[node] + f_next[top]
            f_next[top + 1] = 0
            f_acc[top + 1] = 0.0
            top += 1
            continue
        # the estimated errors of the node as a leaf (J48's errors of its class totals)
        total = 0.0
        mx = 0.0
        for i in range(c):
            s = 0.0
            for b in range(nbags[node]):
                s += dist[node, b, i]
            total += s
            if s - mx > _SMALL:
                mx = s
        err_leaf = 0.0 if (total < _SMALL and total > -_SMALL) else errtab[int(total), int(total - mx)]
        if attr[node] < 0:
            result = err_leaf
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
            big = child0[node] + largest
            err_branch = _HUGE
            if subtree_raising:
                # the estimated errors if all the node's cases went down the largest branch (Weka's
                # getEstimatedErrorsForBranch): the cases reaching each node below are the node's AND the
                # categories on the path; every leaf counts them, then every node, sons before parents,
                # adds its sons' estimates in branch order, as the recursive sum does
                order[0] = big
                m = 1
                t = 0
                for w in range(words):
                    reach[big, w] = sets[node, w]
                while t < m:
                    v = order[t]
                    t += 1
                    a = attr[v]
                    if a >= 0:
                        for b in range(nbags[v]):
                            ch = child0[v] + b
                            order[m] = ch
                            m += 1
                            for w in range(words):
                                reach[ch, w] = reach[v, w] & cats[a, b, w]
                for t in range(m - 1, -1, -1):
                    v = order[t]
                    if attr[v] < 0:
                        total_v = 0.0
                        mx_v = 0.0
                        for i in range(c):
                            cnt = np.uint64(0)
                            for w in range(words):
                                cnt += _popcount(reach[v, w] & classes[i, w])
                            s = float(cnt)
                            total_v += s
                            if s - mx_v > _SMALL:
                                mx_v = s
                        value[v] = (
                            0.0
                            if (total_v < _SMALL and total_v > -_SMALL)
                            else errtab[int(total_v), int(total_v - mx_v)]
                        )
                    else:
                        e = 0.0
                        for b in range(nbags[v]):
                            e += value[child0[v] + b]
                        value[v] = e
                err_branch = value[big]
            if err_leaf - (err_tree + 0.1) < _SMALL and err_leaf - (err_branch + 0.1) < _SMALL:
                _make_leaf(node, attr, nbags, dist, c)
                result = err_leaf
            elif err_branch - (err_tree + 0.1) < _SMALL:
                attr[node] = attr[big]
                child0[node] = child0[big]
                nbags[node] = nbags[big]
                _new_distribution(node, sets, cats, classes, attr, child0, nbags, dist, empty, c, order, tmp)
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


@njit(cache=True, nogil=True, inline="always")
def _leaf_probs(dist, node, nbags, c, probs, tmp):
    """The node's class distribution as probabilities, all zero when it is empty (J48._leaf_probs)."""
    _node_class_totals(dist, node, nbags, c, tmp)
    tot = 0.0
    for i in range(c):
        tot += tmp[i]
    for i in range(c):
        probs[i] = 0.0 if (tot < _SMALL and tot > -_SMALL) else tmp[i] / tot


@njit(cache=True, nogil=True)
def _predict_fold(X, fold_ids, r, f, out, attr, child0, nbags, dist, empty, c, probs, tmp):
    """Classes the tree predicts for the held-out cases of fold f of run r, into ``out[r]``."""
    for row in range(X.shape[0]):
        if fold_ids[r, row] != f:
            continue
        node = 0
        while True:
            if attr[node] < 0:
                _leaf_probs(dist, node, nbags, c, probs, tmp)
                break
            b = X[row, attr[node]]
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
        out[r, row] = cls


@njit(cache=True, nogil=True)
def _bit_sets(X, y, c, kmax, words):
    """``cats[j, v]``: the cases with category v of attribute j; ``classes[i]``: those of class i."""
    n, p = X.shape
    cats = np.zeros((p, kmax, words), dtype=np.uint64)
    classes = np.zeros((c, words), dtype=np.uint64)
    for r in range(n):
        w = r >> 6
        bit = np.uint64(1) << np.uint64(r & 63)
        classes[y[r], w] |= bit
        for j in range(p):
            cats[j, X[r, j], w] |= bit
    return cats, classes


@njit(cache=True, nogil=True)
def fold_predictions(X, y, fold_ids, ncat, c, min_leaf, many_values, multi_val, logtab, errtab, prune, subtree_raising):
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
    binary = c == 2 and kmax == 2
    for j in range(p):
        binary = binary and ncat[j] == 2
    words = (n + 63) // 64
    cats, classes = _bit_sets(X, y, c, kmax, words)
    cap = kmax * n + 2
    attr = np.empty(cap, dtype=np.int64)
    child0 = np.zeros(cap, dtype=np.int64)
    nbags = np.zeros(cap, dtype=np.int64)
    dist = np.zeros((cap, kmax, c))
    empty = np.zeros(cap, dtype=np.bool_)
    sets = np.zeros((cap, words), dtype=np.uint64)
    reach = np.zeros((cap, words), dtype=np.uint64)
    memo = np.zeros(cap)
    bags = np.zeros((p, kmax, c))
    by_class = np.zeros((c, words), dtype=np.uint64)
    order = np.zeros(cap, dtype=np.int64)
    value = np.zeros(cap)
    f_node = np.zeros(cap, dtype=np.int64)
    f_next = np.zeros(cap, dtype=np.int64)
    f_acc = np.zeros(cap)
    held = np.zeros(words, dtype=np.uint64)
    stack = np.empty(cap, dtype=np.int64)
    per_class = np.zeros(c)
    gains = np.zeros(p)
    ratios = np.zeros(p)
    usable = np.zeros(p, dtype=np.bool_)
    buf = np.zeros(kmax * c + c + kmax)
    tmp = np.zeros(c)
    probs = np.zeros(c)
    out = np.full((runs, n), -1, dtype=np.int64)
    for r in range(runs):
        n_folds = 0
        for i in range(n):
            if fold_ids[r, i] + 1 > n_folds:
                n_folds = fold_ids[r, i] + 1
        for f in range(n_folds):
            held[:] = 0
            m = 0
            for i in range(n):
                if fold_ids[r, i] == f:
                    held[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
                    m += 1
            if m == 0:
                continue
            for w in range(words):
                sets[0, w] = ~held[w]
            if n & 63:  # no case beyond the last
                sets[0, words - 1] &= (np.uint64(1) << np.uint64(n & 63)) - np.uint64(1)
            used = _build(
                cats,
                classes,
                ncat,
                c,
                binary,
                min_leaf,
                many_values,
                multi_val,
                logtab,
                sets,
                attr,
                child0,
                nbags,
                dist,
                empty,
                bags,
                by_class,
                stack,
                per_class,
                gains,
                ratios,
                usable,
                buf,
            )
            _training_errors(used, attr, child0, nbags, dist, c, memo, tmp)
            _collapse(0, attr, child0, nbags, dist, c, memo, tmp, stack)
            if prune:
                _prune(
                    0,
                    sets,
                    cats,
                    classes,
                    attr,
                    child0,
                    nbags,
                    dist,
                    empty,
                    c,
                    errtab,
                    tmp,
                    subtree_raising,
                    order,
                    reach,
                    value,
                    f_node,
                    f_next,
                    f_acc,
                )
            _predict_fold(X, fold_ids, r, f, out, attr, child0, nbags, dist, empty, c, probs, tmp)
    return out
