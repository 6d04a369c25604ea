"""Compiled helper of e1071's naive Bayes predictions (:func:`simstudy.pipeline.learners.rdefaults._nb_predict`).

Everything here is private.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def choose(quad, cross, spread, own, lognorm, logcount):
    """Each case's class from the products of ``_nb_predict``, and whether the bounds settle it.

    ``quad``, ``cross`` and ``spread`` (m, c) are ``x^2 @ (1/sd^2)``, ``x @ (mean/sd^2)``
    and ``|x| @ |mean/sd^2|``; ``own`` (c) is ``sum(mean^2/sd^2)``, ``lognorm`` (c, p)
    is ``log(INV/sd)`` and ``logcount`` (c) ``log(count)``.  A case's score for class k
    is ``logcount + sum(lognorm) - Q/2``, its bound ``64 u (p + 20)`` times the
    magnitudes of its terms.  Returns the first class with the largest score and
    True where it leads every other class by more than both bounds, every score and
    bound is finite, and no density can have left the normal doubles.
    """
    m, c = quad.shape
    p = lognorm.shape[1]
    factor = 64.0 * 2.0**-53 * (p + 20)
    const = np.empty(c)
    size = np.empty(c)
    lowest = np.empty(c)
    for k in range(c):
        total = 0.0
        magnitude = 0.0
        low = np.inf
        for j in range(p):
            total += lognorm[k, j]
            magnitude += abs(lognorm[k, j])
            low = min(low, lognorm[k, j])
        const[k] = logcount[k] + total
        size[k] = magnitude + abs(logcount[k]) + 20.0 * p + 1.0
        lowest[k] = low
    best = np.empty(m, dtype=np.int64)
    sure = np.empty(m, dtype=np.bool_)
    score = np.empty(c)
    bound = np.empty(c)
    for i in range(m):
        ok = True
        for k in range(c):
            half = max(0.5 * ((quad[i, k] - 2.0 * cross[i, k]) + own[k]), 0.0)  # sum of z^2 / 2
            score[k] = const[k] - half
            bound[k] = factor * (0.5 * ((quad[i, k] + 2.0 * spread[i, k]) + own[k]) + size[k])
            # each z^2 / 2 is at most the sum: every density stays above exp(-700)
            if not (lowest[k] - (half + bound[k]) > -700.0):
                ok = False
            if not (np.isfinite(score[k]) and np.isfinite(bound[k])):
                ok = False
        top = 0
        for k in range(1, c):
            if score[k] > score[top]:
                top = k
        for k in range(c):
            if k != top and not (score[top] - bound[top] > score[k] + bound[k]):
                ok = False
        best[i] = top
        sure[i] = ok
    return best, sure
