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

from dataclasses import dataclass
from typing import Callable

import numpy as np

from simstudy._validation import as_float_array
from simstudy.errors import InputError

__all__ = ["SCHEMES", "Scheme", "register_scheme", "get_scheme", "scheme_names", "scheme_sample", "scheme_samples"]


@dataclass(frozen=True)
class Scheme:
    """A registered sampling scheme: how the ``(..., n_runs, n_folds)`` differences become a test's sample.

    Attributes
    ----------
    name : str
        Stable identity, stored in the ``scheme`` column of the rows.
    sample : callable
        ``sample(x)`` for ``x`` of shape ``(..., n_runs, n_folds)``: the sample,
        last axis the sample axis (a new array).
    size : callable
        ``size(n_runs, n_folds)``: the number of values of the sample.
    citation : str
        Where the scheme is defined.
    description : str
        One line for listings.
    """

    name: str
    sample: Callable
    size: Callable
    citation: str = ""
    description: str = ""

    def __post_init__(self):
        if not callable(self.sample) or not callable(self.size):
            raise InputError(f"scheme {self.name!r}: sample and size must be callables")

    def __call__(self, diffs) -> np.ndarray:
        return self.sample(_check_diffs(diffs))


_REGISTRY: dict[str, Scheme] = {}


def register_scheme(
    name: str, sample: Callable, size: Callable, *, citation: str = "", description: str = "", replace: bool = False
) -> Scheme:
    """Register a sampling scheme under ``name``; it is then offered wherever the schemes are.

    Every application that runs a sample test on an r x k cv design runs it on
    each registered scheme whose sample has at least two values there (``assess``,
    the proving ground); a study names the schemes it runs.  Passing the
    returned :class:`Scheme` instead of its name (to :class:`~simstudy.pipeline.comparison.Comparison`
    or :func:`~simstudy.pipeline.outcomes.outcome_rows`) carries its function
    to every worker.

    Raises
    ------
    InputError
        An empty or taken name (unless ``replace``), or a function that is not callable.
    """
    if not isinstance(name, str) or not name:
        raise InputError(f"name: a scheme needs a non-empty name, got {name!r}")
    if name in _REGISTRY and not replace:
        raise InputError(f"name: a scheme called {name!r} is already registered")
    spec = Scheme(name, sample, size, citation, description)
    _REGISTRY[name] = spec
    return spec


def get_scheme(scheme) -> Scheme:
    """The registered scheme ``scheme`` (a :class:`Scheme` is returned unchanged); an unknown name is an InputError."""
    if isinstance(scheme, Scheme):
        return scheme
    if not isinstance(scheme, str):
        raise InputError(f"scheme: expected a string, one of {', '.join(_REGISTRY)}; got {scheme!r}")
    try:
        return _REGISTRY[scheme]
    except KeyError:
        raise InputError(f"scheme: unknown scheme {scheme!r}; expected one of {', '.join(_REGISTRY)}") from None


def scheme_names() -> tuple[str, ...]:
    """Every registered scheme, Bouckaert's six first (:data:`SCHEMES`), then the others in registration order."""
    return tuple(_REGISTRY)


def _check_diffs(diffs) -> np.ndarray:
    x = as_float_array(diffs, "diffs", min_ndim=2)
    if x.shape[-1] < 1 or x.shape[-2] < 1:
        raise InputError(f"diffs: expected shape (..., n_runs, n_folds) with n_runs, n_folds >= 1, got shape {x.shape}")
    return x


_BOUCKAERT = "Bouckaert (2004), Section 2.1"


def _first_fold(x):
    return x[..., :, 0].copy()


def _first_run(x):
    return x[..., 0, :].copy()


def _all_folds(x):
    return x.reshape(x.shape[:-2] + (-1,)).copy()


def _run_means(x):
    return x.mean(axis=-1)


def _fold_means(x):
    return x.mean(axis=-2)


def _sorted_run_means(x):
    # the i-th smallest of each run is averaged with the i-th smallest of the others
    return np.sort(x, axis=-1).mean(axis=-2)


def _runs(r, k):
    return r


def _folds(r, k):
    return k


def _cells(r, k):
    return r * k


for _name, _sample, _size, _text in (
    ("resampling", _first_fold, _runs, "the first fold of every run"),
    ("kfold_cv", _first_run, _folds, "the folds of the first run"),
    ("use_all_data", _all_folds, _cells, "every fold of every run, run by run"),
    ("average_over_folds", _run_means, _runs, "the run means"),
    ("average_over_runs", _fold_means, _folds, "the fold means"),
    ("average_over_sorted_runs", _sorted_run_means, _folds, "each run sorted, then averaged position by position"),
):
    register_scheme(_name, _sample, _size, citation=_BOUCKAERT, description=_text)

#: Bouckaert's six schemes, in the paper's order (the ones the built-in studies run).
SCHEMES = scheme_names()
#: The built-in schemes (the others were registered by a user: :mod:`simstudy.pipeline.catalogue`).
_BUILTIN = frozenset(SCHEMES)


def scheme_sample(diffs, scheme: str) -> np.ndarray:
    """The test sample of one sampling scheme (Bouckaert 2004, Section 2.1).

    Parameters
    ----------
    diffs : array_like, shape (..., n_runs, n_folds)
        Accuracy differences A - B per run (second-to-last axis) and fold
        (last axis); leading axes are independent replications.
    scheme : str or Scheme
        A registered scheme (:func:`scheme_names`; Bouckaert's six are :data:`SCHEMES`).

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
    InputError
        ``diffs`` has fewer than two dimensions, an empty run or fold axis or
        NaN; ``scheme`` is not registered.

    Examples
    --------
    Figure 1 of Bouckaert (2004), in percentage points:

    >>> x = [[10/3, 10, -20/3], [20/3, 10/3, 0], [20/3, -10, -10/3]]
    >>> scheme_sample(x, "average_over_sorted_runs").round(2)
    array([-5.56,  1.11,  7.78])
    """
    return get_scheme(scheme)(diffs)


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
    return {scheme: _REGISTRY[scheme].sample(x) for scheme in SCHEMES}
