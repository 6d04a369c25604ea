"""R's long-double sums in compiled loops, for e1071's naive Bayes tables and ``scale()``.

R adds the terms of ``mean``, ``sd`` and ``colMeans`` one after the other in C's
``long double``, which on x86-64 is the x87 extended format (64-bit significand),
and rounds the result to double.  :mod:`simstudy.pipeline.learners.rdefaults` does the same
with numpy's ``longdouble`` arrays, which costs a full array pass per operation
(a few ns per element: about 0.5 ms for the tables of one naive Bayes fit on
420 cases and 32 features).  Here the same operations run in compiled loops
(about 0.07 ms for those tables), the sums of four columns advancing together so
that their additions overlap.  numba has no extended type, so the loops are
written with llvmlite's IR builder, where LLVM's ``x86_fp80`` is the type numpy's
``longdouble`` is on this platform.  Every operation (extension of a double,
addition, subtraction, multiplication, division by a count, rounding to double)
is the one numpy's loops perform, on the same values in the same order, so the
results are equal to the last bit (``tests/pipeline/test_learners_r.py`` compares them
with the numpy versions).

:data:`AVAILABLE` says whether the compiled loops can be used: an x86-64 machine
whose numpy ``longdouble`` is the x87 format.  Elsewhere the callers keep numpy.
Everything here is private.
"""

from __future__ import annotations

import math
import platform

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

AVAILABLE = (
    platform.machine().lower() in ("x86_64", "amd64")
    and np.finfo(np.longdouble).nmant == 63
    and np.dtype(np.longdouble).itemsize == 16
)


class _X86FP80(ir.types._BaseFloatType):
    """LLVM's x87 extended type; llvmlite's IR builder only names float, double and half."""

    null = "0xK00000000000000000000"
    intrinsic_name = "f80"

    def __str__(self):
        return "x86_fp80"

    def format_constant(self, value):
        raise NotImplementedError("x86_fp80 constants are built with sitofp")


_X86FP80._create_instance()
_F80 = _X86FP80()
_I64 = ir.IntType(64)


def _ext_count(builder, n):
    """An integer count as an extended value (exact), as numpy's ``longdouble(n)``."""
    return builder.sitofp(n, _F80)


def _sum_loops(builder, n, width, term):
    """The extended sums of ``term(i, w)`` over i = 0 .. n-1, in that order from 0, for w < ``width``.

    The ``width`` sums are independent and advance together, one term each per
    step, so that the processor overlaps their additions.
    """
    accs = [cgutils.alloca_once(builder, _F80) for _ in range(width)]
    zero = _ext_count(builder, ir.Constant(_I64, 0))
    for acc in accs:
        builder.store(zero, acc)
    with cgutils.for_range(builder, n) as loop:
        for w, acc in enumerate(accs):
            builder.store(builder.fadd(builder.load(acc), term(loop.index, w)), acc)
    return [builder.load(acc) for acc in accs]


_WIDTH = 4  # columns per call of the intrinsics below


def _moments_codegen(width):
    def codegen(context, builder, sig, args):
        xty, rty, _ = sig.args
        xa = context.make_array(xty)(context, builder, args[0])
        ra = context.make_array(rty)(context, builder, args[1])
        cols = [builder.add(args[2], ir.Constant(_I64, w)) for w in range(width)]
        n = builder.extract_value(ra.shape, 0)
        count = _ext_count(builder, n)

        def value(i, w):
            r = builder.load(cgutils.get_item_pointer(context, builder, rty, ra, [i]))
            x = builder.load(cgutils.get_item_pointer(context, builder, xty, xa, [r, cols[w]]))
            return builder.fpext(x, _F80)

        first = [builder.fdiv(s, count) for s in _sum_loops(builder, n, width, value)]
        resid = _sum_loops(builder, n, width, lambda i, w: builder.fsub(value(i, w), first[w]))
        means = [
            builder.fptrunc(builder.fadd(f, builder.fdiv(r, count)), ir.DoubleType()) for f, r in zip(first, resid)
        ]
        means_ext = [builder.fpext(m, _F80) for m in means]

        def square(i, w):
            c = builder.fsub(value(i, w), means_ext[w])
            return builder.fmul(c, c)

        ss = _sum_loops(builder, n, width, square)
        denom = _ext_count(builder, builder.sub(n, ir.Constant(_I64, 1)))
        variances = [builder.fptrunc(builder.fdiv(q, denom), ir.DoubleType()) for q in ss]
        return context.make_tuple(builder, sig.return_type, means + variances)

    return codegen


@intrinsic
def _class_moments(typingctx, X, rows, j):
    """(mean, variance) of column ``j`` over the rows ``rows`` of ``X``, as R's ``mean`` and ``var``.

    The mean in two passes, ``first = sum(x) / n`` and ``first + sum(x - first) / n``
    in extended precision, rounded to double; the variance as the extended sum of
    ``(x - mean)^2`` (the double mean extended) over ``n - 1``, rounded to double.
    """
    return types.UniTuple(types.float64, 2)(X, rows, j), _moments_codegen(1)


@intrinsic
def _class_moments_wide(typingctx, X, rows, j):
    """:func:`_class_moments` of the columns ``j .. j + _WIDTH - 1``: their means, then their variances."""
    return types.UniTuple(types.float64, 2 * _WIDTH)(X, rows, j), _moments_codegen(_WIDTH)


def _scale_codegen(width):
    def codegen(context, builder, sig, args):
        xty, _ = sig.args
        xa = context.make_array(xty)(context, builder, args[0])
        cols = [builder.add(args[1], ir.Constant(_I64, w)) for w in range(width)]
        n = builder.extract_value(xa.shape, 0)

        def load(i, w):
            return builder.load(cgutils.get_item_pointer(context, builder, xty, xa, [i, cols[w]]))

        totals = _sum_loops(builder, n, width, lambda i, w: builder.fpext(load(i, w), _F80))
        count = _ext_count(builder, n)
        centres = [builder.fptrunc(builder.fdiv(t, count), ir.DoubleType()) for t in totals]

        def square(i, w):
            v = builder.fsub(load(i, w), centres[w])
            return builder.fpext(builder.fmul(v, v), _F80)

        ss = [builder.fptrunc(q, ir.DoubleType()) for q in _sum_loops(builder, n, width, square)]
        return context.make_tuple(builder, sig.return_type, centres + ss)

    return codegen


@intrinsic
def _column_scale(typingctx, X, j):
    """(centre, sum of squares) of column ``j``, as R's ``scale()`` in e1071's ``svm``.

    The centre is ``colMeans``: the extended sum of the column over n, rounded to
    double; the sum of squares adds the doubles ``(x - centre)^2`` in extended
    precision and is rounded to double.
    """
    return types.UniTuple(types.float64, 2)(X, j), _scale_codegen(1)


@intrinsic
def _column_scale_wide(typingctx, X, j):
    """:func:`_column_scale` of the columns ``j .. j + _WIDTH - 1``: their centres, then their sums of squares."""
    return types.UniTuple(types.float64, 2 * _WIDTH)(X, j), _scale_codegen(_WIDTH)


@njit(cache=True, nogil=True)
def nb_tables(X, codes, n_classes):
    """Class counts, means and standard deviations of e1071's ``naiveBayes`` (see ``rdefaults``).

    A column whose values within a class are all equal gets that value as its mean
    and a standard deviation of 0; a class with one case has sd NaN (R's NA), a
    class with none NaN mean and sd.
    """
    n, p = X.shape
    wide = p - p % _WIDTH
    counts = np.zeros(n_classes)
    for i in range(n):
        counts[codes[i]] += 1.0
    means = np.full((n_classes, p), np.nan)
    sds = np.full((n_classes, p), np.nan)
    for k in range(n_classes):
        rows = np.flatnonzero(codes == k)
        if rows.size == 0:
            continue
        for j in range(0, wide, _WIDTH):
            moments = _class_moments_wide(X, rows, j)
            for w in range(_WIDTH):
                means[k, j + w] = moments[w]
                sds[k, j + w] = math.sqrt(moments[_WIDTH + w])
        for j in range(wide, p):
            means[k, j], var = _class_moments(X, rows, j)
            sds[k, j] = math.sqrt(var)
        # constant columns: the value itself and sd 0 (NA with one case)
        hi = X[rows[0]].copy()
        lo = X[rows[0]].copy()
        for r in rows:
            for j in range(p):
                hi[j] = max(hi[j], X[r, j])
                lo[j] = min(lo[j], X[r, j])
        for j in range(p):
            if hi[j] == lo[j]:
                means[k, j] = hi[j]
                sds[k, j] = 0.0 if rows.size >= 2 else np.nan
    return counts, means, sds


@njit(cache=True, nogil=True)
def r_scale(X):
    """Centre and scale of R's ``scale(X)``: ``colMeans`` and ``sqrt(sum((x - centre)^2) / (n - 1))``."""
    n, p = X.shape
    centre = np.empty(p)
    scale = np.empty(p)
    wide = p - p % _WIDTH
    denom = float(max(1, n - 1))
    for j in range(0, wide, _WIDTH):
        sums = _column_scale_wide(X, j)
        for w in range(_WIDTH):
            centre[j + w] = sums[w]
            scale[j + w] = math.sqrt(sums[_WIDTH + w] / denom)
    for j in range(wide, p):
        centre[j], ss = _column_scale(X, j)
        scale[j] = math.sqrt(ss / denom)
    return centre, scale
