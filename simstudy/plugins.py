"""User-defined tests and sampling schemes, loaded by reference.

Calling convention of a test
----------------------------
A *test* is a plain function ``test(scores) -> result`` (or a class with no
required constructor arguments whose instances are callable that way).
``scores`` is a frozen :class:`PairedScores` holding the per-fold accuracies of
classifiers A and B of *every* replication at once: arrays of shape
``(..., n_runs, n_folds)``, leading axes indexing replications (and, for
Bouckaert's Table 1, experiments), sample axes last.  The test must be
vectorised over the leading axes and return one of

* an object with ``statistic`` and ``pvalue`` arrays of the leading shape (and
  optionally ``direction``, +1 when A is better); every
  :mod:`simstudy.hypothesis` result qualifies;
* a tuple ``(statistic, pvalue)``; the direction is then the sign of the
  statistic, so the statistic must be positive when A is better;
* a *decision* array of the leading shape with values in {-1, 0, +1}
  (+1: A significantly better, -1: B, 0: not significant), for tests that do
  not produce p-values; ``alpha`` is then the test's own business.

With p-values, a replication rejects at level ``alpha`` when
``pvalue <= alpha``; its direction is ``direction`` (or the sign of the
statistic).  P-values must lie in [0, 1] and may not be NaN.

A *scheme* is a function ``scheme(diffs) -> sample`` mapping the
``(..., n_runs, n_folds)`` differences A - B to ``(..., m)`` samples (as in
:mod:`simstudy.schemes`); with a scheme, the test finds its sample in
``scores.sample``.

A plug-in is referenced as ``package.module:name`` (importable from the current
environment) or ``path/to/file.py:name``.  Every problem (import error, missing
name, exception inside, wrong return type or shape, NaN p-values) raises
:class:`PluginError`, a ``ValueError`` whose one-line message names the plug-in.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import numpy as np

from .scores import PairedScores

__all__ = ["PairedScores", "PluginError", "load_plugin", "run_test", "run_scheme"]


class PluginError(ValueError):
    """A user plug-in could not be loaded or did not behave as documented."""


def load_plugin(ref: str, what: str = "test"):
    """Load the plug-in named by ``module:name`` or ``path/to/file.py:name``.

    Parameters
    ----------
    ref : str
        ``package.module:name`` or a file path ending in ``.py`` (or containing
        a ``/``), a colon, and the name of a function or class in it.  A class
        is instantiated once without arguments.
    what : str
        ``"test"`` or ``"scheme"``; only used in messages (``--test ...``).

    Returns
    -------
    callable
        The plug-in, with its reference in ``__simstudy_ref__``.

    Raises
    ------
    PluginError
        When the reference is malformed, the module cannot be imported, or the
        name is missing or not callable.
    """
    if not isinstance(ref, str) or ":" not in ref:
        raise PluginError(f"--{what} {ref!r}: expected 'package.module:function' or 'path/to/file.py:function'")
    where, _, name = ref.rpartition(":")
    try:
        if where.endswith(".py") or "/" in where:
            path = Path(where)
            if not path.is_file():
                raise PluginError(f"--{what} {ref!r}: no such file {where}")
            spec = importlib.util.spec_from_file_location(f"simstudy_plugin_{path.stem}", path)
            module = importlib.util.module_from_spec(spec)
            # registered while it runs, so dataclasses and pickling inside the plug-in work
            sys.modules[spec.name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(spec.name, None)
                raise
        else:
            module = importlib.import_module(where)
    except PluginError:
        raise
    except Exception as exc:  # the user's module failed to import
        raise PluginError(f"--{what} {ref!r}: importing it failed: {type(exc).__name__}: {exc}") from exc
    fn = getattr(module, name, None)
    if isinstance(fn, type):  # a small class: one instance, called like a function
        try:
            fn = fn()
        except Exception as exc:
            raise PluginError(f"--{what} {ref!r}: creating an instance failed: {type(exc).__name__}: {exc}") from exc
    if not callable(fn):
        raise PluginError(f"--{what} {ref!r}: {where} has no callable {name!r}")
    try:
        fn.__simstudy_ref__ = ref
    except AttributeError:  # e.g. a builtin or an instance with __slots__
        fn = _Named(fn, ref)
    return fn


class _Named:
    """A callable plug-in that cannot carry its reference as an attribute."""

    def __init__(self, fn, ref):
        self._fn, self.__simstudy_ref__ = fn, ref

    def __call__(self, *args):
        return self._fn(*args)


def _ref(fn) -> str:
    return getattr(fn, "__simstudy_ref__", getattr(fn, "__name__", repr(fn)))


def run_scheme(fn, diffs: np.ndarray) -> np.ndarray:
    """Apply a plug-in scheme to ``(..., n_runs, n_folds)`` differences, checking its ``(..., m)`` output."""
    try:
        sample = np.asarray(fn(diffs), dtype=float)
    except Exception as exc:
        raise PluginError(f"--scheme {_ref(fn)!r} raised {type(exc).__name__}: {exc}") from exc
    if sample.ndim < 1 or sample.shape[:-1] != diffs.shape[:-2]:
        raise PluginError(f"--scheme {_ref(fn)!r}: expected an array of shape {diffs.shape[:-2]} + (m,), "
                          f"got shape {sample.shape}")
    return sample


def run_test(fn, scores: PairedScores, alpha: float) -> dict[str, np.ndarray]:
    """Run a plug-in test on paired scores and check what it returns.

    Parameters
    ----------
    fn : callable
        The plug-in test (see the module docstring for the calling convention).
    scores : PairedScores
        Paired accuracies, shape ``(..., n_runs, n_folds)``.
    alpha : float
        Significance level; a replication rejects when ``pvalue <= alpha``.

    Returns
    -------
    dict
        ``statistic`` and ``pvalue`` (float arrays of the leading shape, NaN when
        the test returned decisions only) and ``decision`` (int8, +1 A better,
        -1 B better, 0 not significant).

    Raises
    ------
    PluginError
        When the test raises, returns something else than documented, returns
        arrays of the wrong shape, NaN p-values, or p-values outside [0, 1].
    """
    lead = scores.acc_a.shape[:-2]
    ref = _ref(fn)
    try:
        with np.errstate(all="ignore"):
            res = fn(scores)
    except Exception as exc:
        raise PluginError(f"--test {ref!r} raised {type(exc).__name__}: {exc}") from exc
    if hasattr(res, "statistic") and hasattr(res, "pvalue"):
        stat, p = res.statistic, res.pvalue
        direction = getattr(res, "direction", None)
    elif isinstance(res, tuple) and len(res) == 2:
        (stat, p), direction = res, None
    elif isinstance(res, (np.ndarray, list, int, np.integer)) and not isinstance(res, bool):
        return {"statistic": np.full(lead, np.nan), "pvalue": np.full(lead, np.nan),
                "decision": _decisions(res, lead, ref)}
    else:
        raise PluginError(f"--test {ref!r}: must return an object with statistic and pvalue, a tuple "
                          f"(statistic, pvalue) or a decision array, got {type(res).__name__}")
    try:
        stat = np.broadcast_to(np.asarray(stat, dtype=float), lead)
        p = np.broadcast_to(np.asarray(p, dtype=float), lead)
        direction = np.sign(stat) if direction is None else \
            np.broadcast_to(np.sign(np.asarray(direction, dtype=float)), lead)
    except (TypeError, ValueError) as exc:
        raise PluginError(f"--test {ref!r}: statistic and pvalue must be numbers of shape {lead}: {exc}") from exc
    if np.isnan(p).any():
        raise PluginError(f"--test {ref!r}: returned NaN p-values for {int(np.isnan(p).sum())} of {p.size} samples")
    if ((p < 0) | (p > 1)).any():
        raise PluginError(f"--test {ref!r}: p-values must lie in [0, 1]")
    decision = np.where(p <= alpha, np.nan_to_num(direction), 0).astype(np.int8)
    return {"statistic": stat, "pvalue": p, "decision": decision}


def _decisions(res, lead, ref) -> np.ndarray:
    d = np.asarray(res)
    if d.shape != lead:
        raise PluginError(f"--test {ref!r}: a decision array must have shape {lead}, got {d.shape}")
    if d.dtype == bool:
        raise PluginError(f"--test {ref!r}: decisions must be -1, 0 or +1 (direction matters), not booleans")
    with np.errstate(invalid="ignore"):
        ok = np.isin(d, (-1, 0, 1))
    if not np.all(ok):
        raise PluginError(f"--test {ref!r}: decisions must be -1, 0 or +1")
    return d.astype(np.int8)
