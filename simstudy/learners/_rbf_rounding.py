"""Compiled helper of :func:`simstudy.learners.rdefaults._rbf_kernel`.

Everything here is private.
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
