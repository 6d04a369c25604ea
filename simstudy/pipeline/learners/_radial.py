"""Compiled helpers of the radial kernel of :class:`simstudy.pipeline.learners.rdefaults.E1071SVC`.

The exponents of a kernel matrix in one pass (instead of five array passes), the
search for entries whose rounding to a 4-byte float is not settled (see
``rdefaults._rbf_kernel``), and the test for a constant column that decides
whether the inputs are scaled.  Everything here is private.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def near_midpoints(K, delta, limit):
    """Entries i < j of ``K`` whose rounding to a 4-byte float could change within a relative ``delta``.

    Returns (rows, columns, count); ``count`` is ``limit + 1`` (and the lists are
    cut there) when more than ``limit`` entries qualify.
    """
    n = K.shape[0]
    rows = np.empty(limit + 1, dtype=np.int64)
    cols = np.empty(limit + 1, dtype=np.int64)
    lo = 1.0 - delta
    hi = 1.0 + delta
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            v = K[i, j]
            if np.float32(v * lo) != np.float32(v * hi):
                rows[count] = i
                cols[count] = j
                count += 1
                if count > limit:
                    return rows, cols, count
    return rows, cols, count


@njit(cache=True, nogil=True)
def exponents_symmetric(K, sq, gamma):
    """Turn the Gram matrix ``K`` in place into ``-gamma max(0, (sq_i + sq_j) - 2 K_ij)``, symmetric.

    One pass over the upper triangle, each value written to both halves; the
    diagonal is 0 (exp: libsvm's exact 1).  Summed as libsvm sums it.  The
    triangle is walked in square tiles, so that the writes to the lower half (down
    a column) stay within a few cache lines.
    """
    n = K.shape[0]
    tile = 32
    for top in range(0, n, tile):
        for left in range(top, n, tile):
            for i in range(top, min(top + tile, n)):
                if left == top:
                    K[i, i] = 0.0
                for j in range(max(left, i + 1), min(left + tile, n)):
                    v = (sq[i] + sq[j]) - 2.0 * K[i, j]
                    if v < 0.0:
                        v = 0.0
                    v = -gamma * v
                    K[i, j] = v
                    K[j, i] = v


@njit(cache=True, nogil=True)
def exponents(G, a, b, gamma):
    """Turn the cross products ``G`` (rows x, columns z) in place into ``-gamma max(0, |x|^2 + |z|^2 - 2 G)``."""
    m, n = G.shape
    for i in range(m):
        for j in range(n):
            v = (a[i] + b[j]) - 2.0 * G[i, j]
            if v < 0.0:
                v = 0.0
            G[i, j] = -gamma * v


@njit(cache=True, nogil=True)
def any_constant_column(X):
    """True when some column of ``X`` holds one value only (e1071's ``svm`` then scales no column)."""
    n, p = X.shape
    differs = np.zeros(p, dtype=np.bool_)
    left = p
    for i in range(1, n):
        for j in range(p):
            if not differs[j] and X[i, j] != X[0, j]:
                differs[j] = True
                left -= 1
        if left == 0:
            return False
    return left > 0
