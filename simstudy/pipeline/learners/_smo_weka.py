"""Weka 3.6's binary SMO solver for the linear kernel, compiled.

Weka's ``SMO`` trains one ``BinarySMO`` per pair of classes with Platt's sequential
minimal optimisation and the first of Keerthi et al.'s (2001) modifications: two
thresholds ``b_up`` and ``b_low`` replace Platt's single one, the index sets
``I0 .. I4`` decide which conditions an example must meet, and the solver stops as
soon as ``b_up > b_low - 2 tol`` holds over the unbound examples and no example
changes in a full pass.  That stopping point is not the optimum (the dual objective
is within the tolerance, the weight vector is not), so a different solver gives a
different ``w`` and ``b`` and, for instances near the boundary, a different vote.
Reproducing Weka's votes means following its path step by step:

* the examples of a pair are class ``i``'s training rows then class ``j``'s, in
  training order, shuffled by ``Instances.randomize`` with one ``java.util.Random(1)``
  shared by all pairs in the order (0, 1), (0, 2), ..., (1, 2), ...;
  :func:`weka_order` reproduces both;
* the passes alternate between all examples and the unbound ones, as Weka's loop
  does, and ``examineExample`` / ``takeStep`` make the same choices with the same
  strict comparisons (so ties between equal errors, frequent with duplicated rows,
  are broken the same way);
* the index set ``I0`` is iterated as Weka's ``SMOset`` iterates it: most recently
  inserted first;
* every floating-point expression is evaluated in Java's order (left to right, no
  fused multiply-add), dot products are summed over the attributes in index order,
  and the weight vector is updated as Weka updates it, so that the outputs agree to
  the last bit.

Everything here is private; :class:`simstudy.pipeline.learners.smo.SMO` is the entry point.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["weka_order", "binary_smo", "outputs"]

_MASK = (1 << 48) - 1
_MULT = 0x5DEECE66D
# Weka's "precision constant for updating sets": 1000 * Double.MIN_VALUE
_DEL = 1000 * 5e-324


class JavaRandom:
    """``java.util.Random``: the 48-bit linear congruential generator and ``nextInt(bound)``."""

    def __init__(self, seed: int):
        self.seed = (seed ^ _MULT) & _MASK

    def _next31(self) -> int:
        self.seed = (self.seed * _MULT + 0xB) & _MASK
        return self.seed >> 17

    def next_int(self, bound: int) -> int:
        r = self._next31()
        m = bound - 1
        if bound & m == 0:  # a power of two: the high bits
            return (bound * r) >> 31
        u = r
        r = u % bound
        while u - r + m >= 2**31:  # Java's int overflow: the candidate is rejected
            u = self._next31()
            r = u % bound
        return r


@njit(cache=True, nogil=True)
def _shuffle(rows, seed):
    """``Instances.randomize`` on ``rows`` with the ``java.util.Random`` state ``seed``; returns the state.

    The 48-bit state lives in a uint64: products wrap modulo 2**64, and the state is
    kept modulo 2**48, which divides it, so the arithmetic is Java's.
    """
    mask = np.uint64(_MASK)
    mult = np.uint64(_MULT)
    for k in range(rows.size - 1, 0, -1):
        bound = k + 1
        m = bound - 1
        seed = (seed * mult + np.uint64(0xB)) & mask
        r = np.int64(seed >> np.uint64(17))
        if bound & m == 0:
            r = (bound * r) >> 31
        else:
            u = r
            r = u % bound
            while u - r + m >= 2147483648:
                seed = (seed * mult + np.uint64(0xB)) & mask
                u = np.int64(seed >> np.uint64(17))
                r = u % bound
        tmp = rows[k]
        rows[k] = rows[r]
        rows[r] = tmp
    return seed


def weka_order(y: np.ndarray, pairs: np.ndarray, seed: int = 1) -> list[np.ndarray]:
    """Row indices of every pairwise problem in the order Weka's ``SMO`` presents them.

    Parameters
    ----------
    y : ndarray of int, shape (n,)
        Class codes of the training rows (in training order).
    pairs : ndarray of int, shape (n_pairs, 2)
        The pairs ``(i, j)``, ``i < j``, in Weka's order (lexicographic).
    seed : int, default 1
        Weka's ``-W`` (random seed of the shuffles).

    Returns
    -------
    list of ndarray of int
        For each pair, the rows of classes ``i`` and ``j`` after
        ``Instances.randomize``.  One generator serves all pairs in turn, as in
        Weka, so every pair sees the draws Weka's does.
    """
    state = np.uint64(JavaRandom(seed).seed)
    out = []
    for i, j in pairs:
        rows = np.concatenate([np.flatnonzero(y == i), np.flatnonzero(y == j)]).astype(np.int64)
        state = _shuffle(rows, state)
        out.append(rows.astype(np.intp))
    return out


@njit(cache=True, nogil=True)
def _dot(Z, a, b):
    s = 0.0
    for k in range(Z.shape[1]):
        s += Z[a, k] * Z[b, k]
    return s


@njit(cache=True, nogil=True)
def _zero_one(Z):
    """True when every entry of ``Z`` is 0 or 1 (nominal attributes after Weka's filters)."""
    for i in range(Z.shape[0]):
        for k in range(Z.shape[1]):
            v = Z[i, k]
            if v != 0.0 and v != 1.0:
                return False
    return True


@njit(cache=True, nogil=True)
def _output(w, Z, i):
    s = 0.0
    for k in range(Z.shape[1]):
        s += w[k] * Z[i, k]
    return s


@njit(cache=True, nogil=True)
def _set_insert(members, pos, in0, size, index):
    """``SMOset.insert``: a new member goes to the front.  Returns the new size.

    The set is kept as an array in the order of insertion, so its front (Weka's
    first member, the most recently inserted) is the last entry.
    """
    if not in0[index]:
        members[size] = index
        pos[index] = size
        in0[index] = True
        size += 1
    return size


@njit(cache=True, nogil=True)
def _set_delete(members, pos, in0, size, index):
    """``SMOset.delete``: the others keep their order.  Returns the new size."""
    if in0[index]:
        for u in range(pos[index], size - 1):
            members[u] = members[u + 1]
            pos[members[u]] = u
        in0[index] = False
        size -= 1
    return size


@njit(cache=True, nogil=True)
def binary_smo(Z, t, C, tol, eps, max_steps):
    """One of Weka's pairwise machines on the rows ``Z`` (in Weka's order) with targets ``t``.

    ``t`` is +1 for the pair's second class, -1 for its first; both occur.  Returns
    ``(w, b, steps)``: Weka's output is ``w . x - b``; ``steps`` is the number of
    successful joint optimisations, or -1 when ``max_steps`` was reached first.
    """
    # On rows of 0s and 1s every dot product is a whole number, exact in any order of summation, so
    # the Gram matrix from one product holds the very values the solver's loop would sum.
    gram = _zero_one(Z)
    G = Z @ Z.T if gram else np.empty((0, 0))
    return _solve(Z, t, C, tol, eps, max_steps, G, np.arange(Z.shape[0]), gram)


@njit(cache=True, nogil=True)
def _solve(Z, t, C, tol, eps, max_steps, G, gi, gram):
    """:func:`binary_smo` with the dot products of rows i and j read from ``G[gi[i], gi[j]]`` when ``gram``."""
    n, d = Z.shape
    alpha = np.zeros(n)
    errors = np.zeros(n)
    w = np.zeros(d)
    diag = np.empty(n)
    for i in range(n):
        diag[i] = _dot(Z, i, i)
    # the five index sets as flags; I0 also as the array of its members, iterated from the last,
    # which is the order of Weka's linked list (most recently inserted first)
    in1 = np.zeros(n, dtype=np.bool_)
    in2 = np.zeros(n, dtype=np.bool_)
    in3 = np.zeros(n, dtype=np.bool_)
    in4 = np.zeros(n, dtype=np.bool_)
    in0 = np.zeros(n, dtype=np.bool_)
    members = np.empty(n, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    count0 = 0
    i_up = -1
    i_low = -1
    for i in range(n):
        if t[i] == 1.0:
            i_up = i
            in1[i] = True
        else:
            i_low = i
            in4[i] = True
    b_up = -1.0
    b_low = 1.0
    errors[i_low] = 1.0
    errors[i_up] = -1.0
    steps = 0

    num_changed = 0
    examine_all = True
    while num_changed > 0 or examine_all:
        num_changed = 0
        for i2 in range(n):
            if not examine_all:
                # Keerthi's modification 1: only the unbound examples
                if not (alpha[i2] > 0 and alpha[i2] < C):
                    continue
            # ---------------------------------------------------------- examineExample(i2)
            y2 = t[i2]
            if in0[i2]:
                F2 = errors[i2]
            else:
                F2 = _output(w, Z, i2) - 0.0 + 0.0 - y2  # SVMOutput + b - y2, with b = 0 in training
                errors[i2] = F2
                if (in1[i2] or in2[i2]) and F2 < b_up:
                    b_up = F2
                    i_up = i2
                elif (in3[i2] or in4[i2]) and F2 > b_low:
                    b_low = F2
                    i_low = i2
            optimal = True
            i1 = -1
            if in0[i2] or in1[i2] or in2[i2]:
                if b_low - F2 > 2 * tol:
                    optimal = False
                    i1 = i_low
            if in0[i2] or in3[i2] or in4[i2]:
                if F2 - b_up > 2 * tol:
                    optimal = False
                    i1 = i_up
            changed = False
            if not optimal:
                if in0[i2]:
                    if b_low - F2 > F2 - b_up:
                        i1 = i_low
                    else:
                        i1 = i_up
                # -------------------------------------------------------- takeStep(i1, i2, F2)
                while True:  # a block to leave with break (Weka's early returns)
                    if i1 == i2:
                        break
                    C1 = C
                    C2 = C
                    alph1 = alpha[i1]
                    alph2 = alpha[i2]
                    y1 = t[i1]
                    F1 = errors[i1]
                    s = y1 * y2
                    if y1 != y2:
                        L = max(0.0, alph2 - alph1)
                        H = min(C2, C1 + alph2 - alph1)
                    else:
                        L = max(0.0, alph1 + alph2 - C1)
                        H = min(C2, alph1 + alph2)
                    if L >= H:
                        break
                    k11 = diag[i1]
                    k12 = G[gi[i1], gi[i2]] if gram else _dot(Z, i1, i2)
                    k22 = diag[i2]
                    eta = 2 * k12 - k11 - k22
                    if eta < 0:
                        a2 = alph2 - y2 * (F1 - F2) / eta
                        if a2 < L:
                            a2 = L
                        elif a2 > H:
                            a2 = H
                    else:
                        f1 = _output(w, Z, i1) - 0.0
                        f2 = _output(w, Z, i2) - 0.0
                        v1 = f1 + 0.0 - y1 * alph1 * k11 - y2 * alph2 * k12
                        v2 = f2 + 0.0 - y1 * alph1 * k12 - y2 * alph2 * k22
                        gamma = alph1 + s * alph2
                        gL = gamma - s * L
                        gH = gamma - s * H
                        Lobj = (
                            gL
                            + L
                            - 0.5 * k11 * gL * gL
                            - 0.5 * k22 * L * L
                            - s * k12 * gL * L
                            - y1 * gL * v1
                            - y2 * L * v2
                        )
                        Hobj = (
                            gH
                            + H
                            - 0.5 * k11 * gH * gH
                            - 0.5 * k22 * H * H
                            - s * k12 * gH * H
                            - y1 * gH * v1
                            - y2 * H * v2
                        )
                        if Lobj > Hobj + eps:
                            a2 = L
                        elif Lobj < Hobj - eps:
                            a2 = H
                        else:
                            a2 = alph2
                    if abs(a2 - alph2) < eps * (a2 + alph2 + eps):
                        break
                    if a2 > C2 - _DEL * C2:
                        a2 = C2
                    elif a2 <= _DEL * C2:
                        a2 = 0.0
                    a1 = alph1 + s * (alph2 - a2)
                    if a1 > C1 - _DEL * C1:
                        a1 = C1
                    elif a1 <= _DEL * C1:
                        a1 = 0.0
                    # the sets, i1 first, as Weka updates them
                    if a1 > 0 and a1 < C1:
                        count0 = _set_insert(members, pos, in0, count0, i1)
                    else:
                        count0 = _set_delete(members, pos, in0, count0, i1)
                    in1[i1] = y1 == 1 and a1 == 0
                    in2[i1] = y1 == -1 and a1 == C1
                    in3[i1] = y1 == 1 and a1 == C1
                    in4[i1] = y1 == -1 and a1 == 0
                    if a2 > 0 and a2 < C2:
                        count0 = _set_insert(members, pos, in0, count0, i2)
                    else:
                        count0 = _set_delete(members, pos, in0, count0, i2)
                    in1[i2] = y2 == 1 and a2 == 0
                    in2[i2] = y2 == -1 and a2 == C2
                    in3[i2] = y2 == 1 and a2 == C2
                    in4[i2] = y2 == -1 and a2 == 0
                    c1 = y1 * (a1 - alph1)
                    c2 = y2 * (a2 - alph2)
                    for k in range(d):
                        w[k] += c1 * Z[i1, k]
                    for k in range(d):
                        w[k] += c2 * Z[i2, k]
                    alpha[i1] = a1
                    alpha[i2] = a2
                    # the errors of I0 and the thresholds over I0 in one pass, in Weka's order: i1's and
                    # i2's errors are updated before any comparison reads them, as in Weka's second pass
                    g1 = gi[i1]
                    g2 = gi[i2]
                    b_low = -np.inf
                    b_up = np.inf
                    i_low = -1
                    i_up = -1
                    # on 0/1 rows G[g1, g1] is k11, G[g2, g1] and G[g1, g2] are k12, G[g2, g2] is k22 (whole
                    # numbers, exactly), so one expression updates every member, i1 and i2 included
                    if not (gram and in0[i1]):
                        errors[i1] += c1 * k11 + c2 * k12
                    if not (gram and in0[i2]):
                        errors[i2] += c1 * k12 + c2 * k22
                    for u in range(count0 - 1, -1, -1):
                        j = members[u]
                        if gram:
                            gj = gi[j]
                            errors[j] += c1 * G[g1, gj] + c2 * G[g2, gj]
                        elif j != i1 and j != i2:
                            errors[j] += c1 * _dot(Z, i1, j) + c2 * _dot(Z, i2, j)
                        e = errors[j]
                        if e < b_up:
                            b_up = e
                            i_up = j
                        if e > b_low:
                            b_low = e
                            i_low = j
                    for i in (i1, i2):
                        if not in0[i]:
                            if in3[i] or in4[i]:
                                if errors[i] > b_low:
                                    b_low = errors[i]
                                    i_low = i
                            else:
                                if errors[i] < b_up:
                                    b_up = errors[i]
                                    i_up = i
                    changed = True
                    steps += 1
                    break
            if changed:
                num_changed += 1
                if steps >= max_steps:
                    return w, (b_low + b_up) / 2.0, -1
            if not examine_all and b_up > b_low - 2 * tol:
                # optimality on the unbound examples: end of this pass
                num_changed = 0
                break
        if examine_all:
            examine_all = False
        elif num_changed == 0:
            examine_all = True
    return w, (b_low + b_up) / 2.0, steps


@njit(cache=True, nogil=True)
def outputs(Z, W, B):
    """Weka's ``SVMOutput`` of every machine on every row: ``sum_k x_k w_k - b``.

    The sum runs over the attributes with a nonzero weight, in index order, as
    Weka's sparse weight vector is read.
    """
    m, d = Z.shape
    r = W.shape[0]
    out = np.empty((m, r))
    for i in range(m):
        for p in range(r):
            s = 0.0
            for k in range(d):
                if W[p, k] != 0.0:
                    s += Z[i, k] * W[p, k]
            out[i, p] = s - B[p]
    return out


@njit(cache=True, nogil=True)
def fold_predictions(Z_all, y, fold_ids, pairs, c, C, tol, eps, max_steps, state0):
    """Every fold's machines (``SMO.fit`` on its training part) and their votes on its held-out cases.

    ``Z_all`` (n, q): the expanded columns of all cases; ``y`` (n,) class codes;
    ``fold_ids`` (runs, n); ``pairs`` (n_pairs, 2) in Weka's order; ``state0``
    the ``java.util.Random`` state of Weka's seed.  Each training part is
    normalised by its own minimum and maximum, each pair's rows are put in
    Weka's order (:func:`weka_order`, one generator per fit, every pair in turn)
    and solved by :func:`binary_smo` (reading the dot products from all cases'
    Gram matrix where the part's normalised rows are its rows as they are); a
    held-out case is normalised with its part's ranges and gets the class with
    the most pairwise votes (the first of equals), as ``SMO.predict`` decides.
    Returns (predictions (runs, n), -1 where never held out; ok), ``ok`` False
    when a machine did not converge.
    """
    n, q = Z_all.shape
    runs = fold_ids.shape[0]
    n_pairs = pairs.shape[0]
    n_folds = max(fold_ids.max() + 1, 0) if fold_ids.size else 0
    pred = np.full((runs, n), -1, dtype=np.int64)
    train = np.empty(n, dtype=np.int64)
    lo = np.empty(q)
    span = np.empty(q)
    const = np.empty(q, dtype=np.bool_)
    present = np.zeros(c, dtype=np.int64)
    W = np.zeros((n_pairs, q))
    B = np.zeros(n_pairs)
    active = np.zeros(n_pairs, dtype=np.bool_)
    votes = np.zeros(c)
    cases = np.empty(n, dtype=np.int64)  # a fold's held-out cases, and their rows normalised
    Zh = np.empty((n, q))
    # On 0/1 columns a part whose every column holds both values is normalised to its own rows, so
    # its dot products are entries of all cases' Gram matrix (whole numbers): computed once here.
    shared = _zero_one(Z_all)
    G_all = Z_all @ Z_all.T if shared else np.empty((0, 0))
    for r in range(runs):
        for f in range(n_folds):
            m = 0
            held = 0
            for i in range(n):
                if fold_ids[r, i] == f:
                    held += 1
                else:
                    train[m] = i
                    m += 1
            if held == 0:
                continue
            # Weka's Normalize with the part's own minimum and maximum
            for k in range(q):
                a = Z_all[train[0], k]
                b = a
                for t in range(1, m):
                    v = Z_all[train[t], k]
                    if v < a:
                        a = v
                    if v > b:
                        b = v
                lo[k] = a
                const[k] = b == a
                span[k] = 1.0 if b == a else b - a
            as_is = shared
            for k in range(q):
                if const[k] or lo[k] != 0.0 or span[k] != 1.0:
                    as_is = False
            Z = np.empty((m, q))
            for t in range(m):
                for k in range(q):
                    Z[t, k] = 0.0 if const[k] else (Z_all[train[t], k] - lo[k]) / span[k]
            yt = np.empty(m, dtype=np.int64)
            for k in range(c):
                present[k] = 0
            for t in range(m):
                yt[t] = y[train[t]]
                present[yt[t]] += 1
            # the machines of every pair, with one generator shuffling every pair's rows in turn
            state = state0
            for p in range(n_pairs):
                i, j = pairs[p, 0], pairs[p, 1]
                size = 0
                for t in range(m):
                    if yt[t] == i or yt[t] == j:
                        size += 1
                rows = np.empty(size, dtype=np.int64)
                s = 0
                for t in range(m):
                    if yt[t] == i:
                        rows[s] = t
                        s += 1
                for t in range(m):
                    if yt[t] == j:
                        rows[s] = t
                        s += 1
                state = _shuffle(rows, state)
                for k in range(q):
                    W[p, k] = 0.0
                B[p] = 0.0
                active[p] = present[i] > 0 or present[j] > 0
                if present[i] > 0 and present[j] > 0:
                    Zp = np.empty((size, q))
                    tp = np.empty(size)
                    for s in range(size):
                        for k in range(q):
                            Zp[s, k] = Z[rows[s], k]
                        tp[s] = 1.0 if yt[rows[s]] == j else -1.0
                    if as_is:
                        gi = np.empty(size, dtype=np.int64)
                        for s in range(size):
                            gi[s] = train[rows[s]]
                        w, b, steps = _solve(Zp, tp, C, tol, eps, max_steps, G_all, gi, True)
                    else:
                        w, b, steps = binary_smo(Zp, tp, C, tol, eps, max_steps)
                    if steps < 0:
                        return pred, False
                    for k in range(q):
                        W[p, k] = w[k]
                    B[p] = b
                elif present[i] > 0:
                    B[p] = 1.0
                elif present[j] > 0:
                    B[p] = -1.0
            # the held-out cases, normalised with the part's ranges, and their votes
            h = 0
            for i in range(n):
                if fold_ids[r, i] == f:
                    cases[h] = i
                    for k in range(q):
                        Zh[h, k] = 0.0 if const[k] else (Z_all[i, k] - lo[k]) / span[k]
                    h += 1
            out = outputs(Zh[:held], W, B)
            for h in range(held):
                for k in range(c):
                    votes[k] = 0.0
                for p in range(n_pairs):
                    if active[p]:
                        if out[h, p] > 0:
                            votes[pairs[p, 1]] += 1.0
                        else:
                            votes[pairs[p, 0]] += 1.0
                best = 0
                for k in range(1, c):
                    if votes[k] > votes[best]:
                        best = k
                pred[r, cases[h]] = best
    return pred, True
