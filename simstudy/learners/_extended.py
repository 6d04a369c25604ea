"""R's long-double sums in compiled loops, for e1071's naive Bayes tables and ``scale()``.

R adds the terms of ``mean``, ``sd`` and ``colMeans`` one after the other in C's
``long double``, which on x86-64 is the x87 extended format (64-bit significand),
and rounds the result to double.  :mod:`simstudy.learners.rdefaults` does the same
with numpy's ``longdouble`` arrays, which costs a full array pass per operation
(a few ns per element: about 0.5 ms for the tables of one naive Bayes fit on
420 cases and 32 features).  Here the same operations run in one compiled loop:
numba has no extended type, so the loops are written with llvmlite's IR builder,
where LLVM's ``x86_fp80`` is the type numpy's ``longdouble`` is on this platform.
Every operation (extension of a double, addition, subtraction, multiplication,
division by a count, rounding to double) is the one numpy's loops perform, on the
same values in the same order, so the results are equal to the last bit
(``tests/test_learners_r.py`` compares them with the numpy versions).

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

AVAILABLE = (platform.machine().lower() in ("x86_64", "amd64")
             and np.finfo(np.longdouble).nmant == 63 and np.dtype(np.longdouble).itemsize == 16)


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


def _sum_loop(context, builder, n, term):
    """The extended sum of ``term(i)`` for i = 0 .. n-1, added in that order from 0."""
    acc = cgutils.alloca_once(builder, _F80)
    builder.store(_ext_count(builder, ir.Constant(_I64, 0)), acc)
    with cgutils.for_range(builder, n) as loop:
        builder.store(builder.fadd(builder.load(acc), term(loop.index)), acc)
    return builder.load(acc)


@intrinsic
def _class_moments(typingctx, X, rows, j):
    """(mean, variance) of column ``j`` over the rows ``rows`` of ``X``, as R's ``mean`` and ``var``.

    The mean in two passes, ``first = sum(x) / n`` and ``first + sum(x - first) / n``
    in extended precision, rounded to double; the variance as the extended sum of
    ``(x - mean)^2`` (the double mean extended) over ``n - 1``, rounded to double.
    """
    sig = types.UniTuple(types.float64, 2)(X, rows, j)

    def codegen(context, builder, sig, args):
        xty, rty, _ = sig.args
        xa = context.make_array(xty)(context, builder, args[0])
        ra = context.make_array(rty)(context, builder, args[1])
        col = args[2]
        n = builder.extract_value(ra.shape, 0)
        count = _ext_count(builder, n)

        def value(i):
            r = builder.load(cgutils.get_item_pointer(context, builder, rty, ra, [i]))
            x = builder.load(cgutils.get_item_pointer(context, builder, xty, xa, [r, col]))
            return builder.fpext(x, _F80)

        first = builder.fdiv(_sum_loop(context, builder, n, value), count)
        resid = _sum_loop(context, builder, n, lambda i: builder.fsub(value(i), first))
        mean = builder.fptrunc(builder.fadd(first, builder.fdiv(resid, count)), ir.DoubleType())
        mean_ext = builder.fpext(mean, _F80)

        def square(i):
            c = builder.fsub(value(i), mean_ext)
            return builder.fmul(c, c)

        ss = _sum_loop(context, builder, n, square)
        denom = _ext_count(builder, builder.sub(n, ir.Constant(_I64, 1)))
        var = builder.fptrunc(builder.fdiv(ss, denom), ir.DoubleType())
        return context.make_tuple(builder, sig.return_type, [mean, var])

    return sig, codegen


@intrinsic
def _column_scale(typingctx, X, j):
    """(centre, sum of squares) of column ``j``, as R's ``scale()`` in e1071's ``svm``.

    The centre is ``colMeans``: the extended sum of the column over n, rounded to
    double; the sum of squares adds the doubles ``(x - centre)^2`` in extended
    precision and is rounded to double.
    """
    sig = types.UniTuple(types.float64, 2)(X, j)

    def codegen(context, builder, sig, args):
        xty, _ = sig.args
        xa = context.make_array(xty)(context, builder, args[0])
        col = args[1]
        n = builder.extract_value(xa.shape, 0)

        def load(i):
            return builder.load(cgutils.get_item_pointer(context, builder, xty, xa, [i, col]))

        total = _sum_loop(context, builder, n, lambda i: builder.fpext(load(i), _F80))
        centre = builder.fptrunc(builder.fdiv(total, _ext_count(builder, n)), ir.DoubleType())

        def square(i):
            v = builder.fsub(load(i), centre)
            return builder.fpext(builder.fmul(v, v), _F80)

        ss = builder.fptrunc(_sum_loop(context, builder, n, square), ir.DoubleType())
        return context.make_tuple(builder, sig.return_type, [centre, ss])

    return sig, codegen


@njit(cache=True, nogil=True)
def nb_tables(X, codes, n_classes):
    """Class counts, means and standard deviations of e1071's ``naiveBayes`` (see ``rdefaults``).

    A column whose values within a class are all equal gets that value as its mean
    and a standard deviation of 0; a class with one case has sd NaN (R's NA), a
    class with none NaN mean and sd.
    """
    n, p = X.shape
    counts = np.zeros(n_classes)
    for i in range(n):
        counts[codes[i]] += 1.0
    means = np.full((n_classes, p), np.nan)
    sds = np.full((n_classes, p), np.nan)
    for k in range(n_classes):
        rows = np.flatnonzero(codes == k)
        if rows.size == 0:
            continue
        for j in range(p):
            hi = X[rows[0], j]
            lo = hi
            for r in rows:
                hi = max(hi, X[r, j])
                lo = min(lo, X[r, j])
            if hi == lo:
                means[k, j] = hi
                if rows.size >= 2:
                    sds[k, j] = 0.0
                continue
            mean, var = _class_moments(X, rows, j)
            means[k, j] = mean
            sds[k, j] = math.sqrt(var)
    return counts, means, sds


@njit(cache=True, nogil=True)
def r_scale(X):
    """Centre and scale of R's ``scale(X)``: ``colMeans`` and ``sqrt(sum((x - centre)^2) / (n - 1))``."""
    n, p = X.shape
    centre = np.empty(p)
    scale = np.empty(p)
    denom = float(max(1, n - 1))
    for j in range(p):
        c, ss = _column_scale(X, j)
        centre[j] = c
        scale[j] = math.sqrt(ss / denom)
    return centre, scale
