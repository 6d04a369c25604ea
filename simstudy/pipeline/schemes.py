"""Sampling schemes: from an r x k repeated cross-validation matrix to a test sample.

Bouckaert (2004), Section 2.1, compares six ways of turning the accuracy
differences ``x[run, fold]`` of an r-times repeated k-fold cross-validation
into the sample that a significance test sees.  Every function here takes
``diffs`` of shape ``(..., n_runs, n_folds)`` (leading axes are independent
replications) and returns an array whose **last axis is the sample**, ready
for :mod:`simstudy.statistics.significance`.

* ``resampling`` (r values): the first fold of every run, ``x[..., :, 0]``;
* ``kfold_cv`` (k values): the first run, ``x[..., 0, :]``;
* ``use_all_data`` (r k values): all of them, run by run (row-major);
* ``average_over_folds`` (r values): the run means;
* ``average_over_runs`` (k values): the fold means;
* ``average_over_sorted_runs`` (k values): each run's k values sorted
  increasingly, then averaged position-wise over the runs.

"Resampling" stands for r random train/test splits: the first fold of each run
plays that role, as in the paper ("only the first column is required").
"""

from __future__ import annotations

import numpy as np

from simstudy._validation import as_float_array
from simstudy.errors import InputError

__all__ = ["SCHEMES", "scheme_sample", "scheme_samples"]

SCHEMES = (
    "resampling",
    "kfold_cv",
    "use_all_data",
    "average_over_folds",
    "average_over_runs",
    "average_over_sorted_runs",
)


def _check_diffs(diffs) -> np.ndarray:
    x = as_float_array(diffs, "diffs", min_ndim=2)
    if x.shape[-1] < 1 or x.shape[-2] < 1:
        raise InputError(f"diffs: expected shape (..., n_runs, n_folds) with n_runs, n_folds >= 1, got shape {x.shape}")
    return x


def _sample(x: np.ndarray, scheme: str) -> np.ndarray:
    if scheme == "resampling":
        return x[..., :, 0].copy()
    if scheme == "kfold_cv":
        return x[..., 0, :].copy()
    if scheme == "use_all_data":
        return x.reshape(x.shape[:-2] + (-1,)).copy()
    if scheme == "average_over_folds":
        return x.mean(axis=-1)
    if scheme == "average_over_runs":
        return x.mean(axis=-2)
    if scheme == "average_over_sorted_runs":
        # the i-th smallest of each run is averaged with the i-th smallest of the others
        return np.sort(x, axis=-1).mean(axis=-2)
    raise InputError(f"scheme: unknown scheme {scheme!r}; expected one of {', '.join(SCHEMES)}")


def scheme_sample(diffs, scheme: str) -> np.ndarray:
    """The test sample of one sampling scheme (Bouckaert 2004, Section 2.1).

    Parameters
    ----------
    diffs : array_like, shape (..., n_runs, n_folds)
        Accuracy differences A - B per run (second-to-last axis) and fold
        (last axis); leading axes are independent replications.
    scheme : str
        One of :data:`SCHEMES`.

    Returns
    -------
    ndarray, shape (..., n)
        The sample, last axis = sample axis: ``n = n_runs`` for
        ``resampling`` and ``average_over_folds``; ``n = n_folds`` for
        ``kfold_cv``, ``average_over_runs`` and ``average_over_sorted_runs``;
        ``n = n_runs * n_folds`` for ``use_all_data`` (run 1's folds first).
        A new array; ``diffs`` is not modified.

    Raises
    ------
    ValueError
        ``diffs`` has fewer than two dimensions, an empty run or fold axis or
        NaN; ``scheme`` is not one of :data:`SCHEMES`.

    Examples
    --------
    Figure 1 of Bouckaert (2004), in percentage points:

    >>> x = [[10/3, 10, -20/3], [20/3, 10/3, 0], [20/3, -10, -10/3]]
    >>> scheme_sample(x, "average_over_sorted_runs").round(2)
    array([-5.56,  1.11,  7.78])
    """
    if not isinstance(scheme, str):
        raise InputError(f"scheme: expected a string, one of {', '.join(SCHEMES)}; got {scheme!r}")
    if scheme not in SCHEMES:
        raise InputError(f"scheme: unknown scheme {scheme!r}; expected one of {', '.join(SCHEMES)}")
    return _sample(_check_diffs(diffs), scheme)


def scheme_samples(diffs) -> dict[str, np.ndarray]:
    """The samples of all six schemes, keyed by name in the order of :data:`SCHEMES`.

    Parameters
    ----------
    diffs : array_like, shape (..., n_runs, n_folds)
        As for :func:`scheme_sample`.

    Returns
    -------
    dict of str to ndarray
        ``{scheme: scheme_sample(diffs, scheme)}`` for every scheme; all the
        tests of one replication thus see the same fold results.
    """
    x = _check_diffs(diffs)
    return {scheme: _sample(x, scheme) for scheme in SCHEMES}
