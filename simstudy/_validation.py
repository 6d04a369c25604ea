"""Input checks shared by the public functions.

Each helper raises :class:`ValueError` whose message starts with the name of the
offending argument, so that a user (or the command line) sees exactly what to fix.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from simstudy.errors import InputError


def as_float_array(x, name: str, *, min_ndim: int = 0) -> np.ndarray:
    """Return ``x`` as a float array, rejecting NaN, complex values, text and too few dimensions.

    Infinity is let through (some callers allow it); :func:`as_sample` and the
    callers that need finite values refuse it themselves.
    """
    try:
        raw = np.asarray(x)
        if raw.dtype.kind == "c":  # numpy would drop the imaginary part with only a warning
            raise InputError(f"{name}: expected real numbers, got complex values")
        if raw.dtype.kind in "US":  # numpy would parse "1.5" as a number
            raise InputError(f"{name}: expected numbers, got text")
        arr = np.asarray(raw, dtype=float)
    except (TypeError, ValueError) as exc:
        if str(exc).startswith(f"{name}: "):
            raise
        raise InputError(f"{name}: expected numbers, got {type(x).__name__}") from exc
    if arr.ndim < min_ndim:
        raise InputError(f"{name}: expected at least {min_ndim} dimension(s), got shape {arr.shape}")
    if np.isnan(arr).any():
        raise InputError(f"{name}: contains NaN")
    return arr


def as_sample(x, name: str = "x", *, min_n: int = 1) -> np.ndarray:
    """A sample array whose last axis is the sample axis, with at least ``min_n`` values."""
    arr = as_float_array(x, name, min_ndim=1)
    if arr.shape[-1] < min_n:
        raise InputError(f"{name}: the last (sample) axis needs at least {min_n} value(s), got shape {arr.shape}")
    if np.isinf(arr).any():
        raise InputError(f"{name}: contains infinite values")
    return arr


def check_alpha(alpha, name: str = "alpha") -> float:
    """A significance level strictly inside (0, 1)."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0.0 < float(alpha) < 1.0:
        raise InputError(f"{name}: must be a number strictly between 0 and 1, got {alpha!r}")
    return float(alpha)


def check_positive(value, name: str, *, integer: bool = False, allow_zero: bool = False):
    """A positive (or non-negative) finite scalar, optionally an integer.

    NaN and infinity are refused (NaN compares false with every bound, so
    without the explicit check it would pass as "positive").
    """
    ok_type = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, ok_type):
        kind = "an integer" if integer else "a number"
        raise InputError(f"{name}: must be {kind}, got {value!r}")
    # NaN fails every comparison and would slip through the bound below; inf is no size
    if not isinstance(value, numbers.Integral) and not math.isfinite(float(value)):
        raise InputError(f"{name}: must be finite, got {value!r}")
    if (value < 0) if allow_zero else (value <= 0):
        bound = ">= 0" if allow_zero else "> 0"
        raise InputError(f"{name}: must be {bound}, got {value!r}")
    return value
