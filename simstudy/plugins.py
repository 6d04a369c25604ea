"""User-defined tests and sampling schemes, loaded by reference.

A *test* is a plain function ``test(scores) -> result`` where ``scores`` is a
:class:`PairedScores`: the per-fold accuracies of classifiers A and B of many
replications at once (leading axes), their run x fold shape, and the training
and test sizes.  It returns, vectorised over the leading axes, either

* an object with ``statistic`` and ``pvalue`` (and optionally ``direction``;
  every :mod:`simstudy.hypothesis` result qualifies), or
* a tuple ``(statistic, pvalue)``; the direction is then the sign of the statistic.

A rejection at level alpha is ``pvalue <= alpha`` in the direction of the
statistic (+1: A better).  A *scheme* is a function ``scheme(diffs) -> sample``
mapping (..., n_runs, n_folds) differences to (..., m) samples (see
:mod:`simstudy.schemes`); with a scheme, the test finds its sample in
``scores.sample``.

A plug-in is referenced as ``package.module:name`` or ``path/to/file.py:name``.
Every problem (import error, missing name, exception inside, wrong return type,
NaN p-values) raises :class:`PluginError` naming the plug-in.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["PairedScores", "PluginError", "load_plugin", "run_test", "run_scheme"]


class PluginError(ValueError):
    """A user plug-in could not be loaded or did not behave as documented."""


@dataclass(frozen=True)
class PairedScores:
    """What a plug-in test receives: paired per-fold accuracies of many replications.

    Attributes
    ----------
    acc_a, acc_b : ndarray, shape (..., n_runs, n_folds)
        Accuracy of classifier A and B on every fold of every run.
    n_train, n_test : int
        Training and test set sizes of one fold.
    sample : ndarray of shape (..., m) or None
        The sample of the chosen sampling scheme (``--scheme``), else None.
    """

    acc_a: np.ndarray
    acc_b: np.ndarray
    n_train: int
    n_test: int
    sample: np.ndarray | None = None

    @property
    def diffs(self) -> np.ndarray:
        """A - B per fold, shape (..., n_runs, n_folds)."""
        return self.acc_a - self.acc_b

    @property
    def n_runs(self) -> int:
        return self.acc_a.shape[-2]

    @property
    def n_folds(self) -> int:
        return self.acc_a.shape[-1]


def load_plugin(ref: str, what: str = "test"):
    """The function named by ``module:name`` or ``file.py:name``."""
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
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except PluginError:
        raise
    except Exception as exc:  # the user's module failed to import
        raise PluginError(f"--{what} {ref!r}: importing it failed: {type(exc).__name__}: {exc}") from exc
    fn = getattr(module, name, None)
    if not callable(fn):
        raise PluginError(f"--{what} {ref!r}: {where} has no callable {name!r}")
    fn.__simstudy_ref__ = ref
    return fn


def _ref(fn) -> str:
    return getattr(fn, "__simstudy_ref__", getattr(fn, "__name__", repr(fn)))


def run_scheme(fn, diffs: np.ndarray) -> np.ndarray:
    try:
        sample = np.asarray(fn(diffs), dtype=float)
    except Exception as exc:
        raise PluginError(f"--scheme {_ref(fn)!r} raised {type(exc).__name__}: {exc}") from exc
    if sample.ndim < 1 or sample.shape[:-1] != diffs.shape[:-2]:
        raise PluginError(f"--scheme {_ref(fn)!r}: expected an array of shape {diffs.shape[:-2]} + (m,), "
                          f"got shape {sample.shape}")
    return sample


def run_test(fn, scores: PairedScores, alpha: float) -> dict[str, np.ndarray]:
    """Statistic, p-value and +1/0/-1 decision of a plug-in test, checked."""
    lead = scores.acc_a.shape[:-2]
    try:
        res = fn(scores)
    except Exception as exc:
        raise PluginError(f"--test {_ref(fn)!r} raised {type(exc).__name__}: {exc}") from exc
    if hasattr(res, "statistic") and hasattr(res, "pvalue"):
        stat, p = res.statistic, res.pvalue
        direction = getattr(res, "direction", None)
    elif isinstance(res, tuple) and len(res) == 2:
        (stat, p), direction = res, None
    else:
        raise PluginError(f"--test {_ref(fn)!r}: must return an object with statistic and pvalue or a tuple "
                          f"(statistic, pvalue), got {type(res).__name__}")
    try:
        stat = np.broadcast_to(np.asarray(stat, dtype=float), lead)
        p = np.broadcast_to(np.asarray(p, dtype=float), lead)
        direction = np.sign(stat) if direction is None else np.broadcast_to(np.sign(np.asarray(direction, float)), lead)
    except (TypeError, ValueError) as exc:
        raise PluginError(f"--test {_ref(fn)!r}: statistic and pvalue must be numbers of shape {lead}: {exc}") from exc
    if np.isnan(p).any():
        raise PluginError(f"--test {_ref(fn)!r}: returned NaN p-values for {int(np.isnan(p).sum())} of {p.size} samples")
    if ((p < 0) | (p > 1)).any():
        raise PluginError(f"--test {_ref(fn)!r}: p-values must lie in [0, 1]")
    decision = np.where(p <= alpha, direction, 0).astype(np.int8)
    return {"statistic": stat, "pvalue": p, "decision": decision}
