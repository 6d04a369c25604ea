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
  :mod:`simstudy.statistics.significance` result qualifies;
* a tuple ``(statistic, pvalue)``; the direction is then the sign of the
  statistic, so the statistic must be positive when A is better;
* a *decision* array of the leading shape with values in {-1, 0, +1}
  (+1: A significantly better, -1: B, 0: not significant), for tests that do
  not produce p-values; ``alpha`` is then the test's own business;
* ``None``: the test *declines* the design it was given (say, one split, where
  a variance cannot be estimated); nothing is counted for it, and every table
  reads "declined" where its numbers would be.

With p-values, a replication rejects at level ``alpha`` when
``pvalue <= alpha``; its direction is ``direction`` (or the sign of the
statistic).  P-values must lie in [0, 1] and may not be NaN.  A test that
returns decisions is judged by its decisions: its Type I error, size verdict,
power and replicability come from them, at whatever level the application
judges (``bench --alpha``, the proving ground's 0.05), and what needs p-values
(size-adjusted power, calibration curves, a rank by size-adjusted power) reads
"n/a: no p-values".

What a test is called on: one block of replications at a time, of one design.
``bench`` passes, per group of the study (a source, a data set, a pair of
learners), the arrays ``(units, experiments, n_runs, n_folds)`` of the design
the study stored; the proving ground and ``assess --bench`` pass every design
they store, per scenario: ``cvRxK`` as (R, K), ``5x2cv`` as (5, 2),
``resampledR`` and ``resampledR-TT`` as (R, 1) (one test set per split) and
``holdoutTT`` as (1, 1), a single split.  The table of every study's shapes is
in the documentation ("Write a test").

A *scheme* is a function ``scheme(diffs) -> sample`` mapping the
``(..., n_runs, n_folds)`` differences A - B to ``(..., m)`` samples (as in
:mod:`simstudy.pipeline.schemes`); with a scheme, the test finds its sample in
``scores.sample``.

A plug-in is referenced as ``package.module:name`` (importable from the current
environment) or ``path/to/file.py:name``.  Every problem (import error, missing
name, exception inside, ``sys.exit``, exceeding the time limit, the end of
its worker process, wrong return type or shape, NaN or complex p-values)
raises :class:`PluginError`, a
``ValueError`` whose one-line message names the plug-in.  ``KeyboardInterrupt``
(Ctrl-C) is not caught: it stays an interrupt.

Results must have exactly the leading shape: a scalar statistic or p-value is
not spread over every replication (it would give every replication the same
decision).  A statistic that is NaN where the p-value is ``<= alpha`` is
refused when it is the only source of the direction (no ``direction`` given),
because the direction of that rejection is unknown; where the p-value is
above ``alpha`` a NaN statistic is allowed (the replication does not reject).

Running a plug-in
-----------------
A plug-in given by reference runs in a worker process of its own
(:func:`open_plugin`, :mod:`simstudy._worker`), warm for every call of one
command, with a hard time limit per call (``timeout``, default
:data:`DEFAULT_TIMEOUT`); what it prints goes to standard error, prefixed with
its reference.  A plug-in passed as a Python callable runs in the calling
process under an interval timer where the platform has one.  Why, and what
each guard catches, is in the design notes of the documentation ("Plug-ins").
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import math
import numbers
import os
import signal
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simstudy import _codeload
from simstudy._worker import write_prefixed
from simstudy.errors import InputError, command_line, on_command_line, option
from simstudy.pipeline.scores import PairedScores
from simstudy.statistics.significance import SignificanceResult

__all__ = [
    "as_test",
    "check_timeout",
    "PluginResult",
    "DEFAULT_TIMEOUT",
    "PairedScores",
    "PluginError",
    "PluginProcess",
    "load_plugin",
    "open_plugin",
    "run_plugin",
    "run_scheme",
]

#: Time limit in seconds of one plug-in call (import, test or scheme) unless the caller gives another.
DEFAULT_TIMEOUT = 300.0

#: Seconds a plug-in's worker process may take to start (Python and simstudy, before the plug-in is loaded).
START_TIMEOUT = 60.0


class PluginError(InputError):
    """A user plug-in could not be loaded or did not behave as documented."""


#: True in a plug-in's worker process, where the parent collects the output (see :mod:`simstudy._worker`).
_IN_WORKER = False


class _TimeUp(BaseException):
    """Raised inside a plug-in when its time limit is reached (not an ``Exception``: not swallowed)."""


def check_timeout(timeout, name: str = "timeout"):
    """None (no limit) or a positive finite number of seconds, as float; the error names ``name``."""
    if timeout is None:
        return None
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, numbers.Real)
        or not (math.isfinite(float(timeout)) and float(timeout) > 0)
    ):
        raise InputError(f"{name}: must be a positive number of seconds or None, got {timeout!r}")
    return float(timeout)


def _with_time_limit(thunk, timeout):
    """``thunk()`` stopped by :class:`_TimeUp` after ``timeout`` seconds (see the module docstring)."""
    if timeout is None:
        return thunk()
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        warnings.warn(
            "simstudy: a plug-in's time limit can only be enforced in the main thread on a platform "
            "with signal.setitimer; running it without a limit",
            RuntimeWarning,
            stacklevel=4,
        )
        return thunk()
    armed = [True]

    def on_alarm(signum, frame):
        if armed[0]:
            armed[0] = False
            raise _TimeUp

    old_handler = signal.signal(signal.SIGALRM, on_alarm)
    start = time.monotonic()
    old_timer = (0.0, 0.0)
    try:
        old_timer = signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            return thunk()
        finally:
            armed[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        # the alarm is one-shot and disarmed: nothing can interrupt the restoring below
        signal.signal(signal.SIGALRM, old_handler)
        if old_timer[0] > 0:  # someone else's timer was running: give it back what is left
            left = old_timer[0] - (time.monotonic() - start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), old_timer[1])


@contextlib.contextmanager
def _output_to_stderr(ref: str):
    """Collect what runs inside prints and write it to stderr afterwards, each line prefixed ``ref: ``.

    ``sys.stdout`` and ``sys.stderr`` are replaced by one buffer, and the
    standard output file descriptor (1) is pointed at a temporary file, so that
    output written below Python (a C library, ``os.write(1, ...)``) is caught
    too.
    """
    if _IN_WORKER:  # the worker's descriptors 1 and 2 are collected by its parent (see simstudy._worker)
        yield
        return
    buf = io.StringIO()
    saved_fd, tmp = None, None
    try:
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):
        pass
    try:
        saved_fd = os.dup(1)
        tmp = tempfile.TemporaryFile()
        os.dup2(tmp.fileno(), 1)
    except OSError:  # no standard output descriptor: Python-level capture only
        if saved_fd is not None:
            os.close(saved_fd)
        saved_fd = None
        if tmp is not None:
            tmp.close()
            tmp = None
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            yield
    finally:
        text = buf.getvalue()
        if saved_fd is not None:
            os.dup2(saved_fd, 1)
            os.close(saved_fd)
            assert tmp is not None  # saved_fd is kept only when the temporary file was opened too
            tmp.seek(0)
            text += tmp.read().decode("utf-8", errors="replace")
            tmp.close()
        write_prefixed(text, ref)


def _guarded(thunk, what: str, ref: str, timeout):
    """Run plug-in code: output to stderr, time limit, and every failure as a one-line :class:`PluginError`.

    Messages name the plug-in as ``--<what> '<ref>'``, e.g. ``--test 'file.py:t'``.
    """
    label = _label(what, ref)
    with _output_to_stderr(ref):
        try:
            return _with_time_limit(thunk, timeout)
        except _TimeUp:
            raise PluginError(f"{label}: did not finish within the time limit of {timeout:g} s") from None
        except SystemExit as exc:
            raise PluginError(
                f"{label} called sys.exit({exc.code!r}); a plug-in must return, not end the program"
            ) from None
        except PluginError:
            raise
        except Exception as exc:
            raise PluginError(f"{label} raised {type(exc).__name__}: {exc}") from exc


def load_plugin(ref: str, what: str = "test", *, timeout=DEFAULT_TIMEOUT):
    """Load the plug-in named by ``module:name`` or ``path/to/file.py:name``.

    Parameters
    ----------
    ref : str
        ``package.module:name`` or a file path ending in ``.py`` (or containing
        a ``/``), a colon, and the name of a function or class in it.  A class
        is instantiated once without arguments.
    what : str
        ``"test"`` or ``"scheme"``; only used in messages (``--test ...``).
    timeout : float or None
        Time limit in seconds for importing the module and creating the
        instance (see the module docstring); None for no limit.

    Returns
    -------
    callable
        The plug-in, with its reference in ``__simstudy_ref__``.

    Raises
    ------
    PluginError
        When the reference is malformed, the module cannot be imported (an
        exception, ``sys.exit`` or the time limit while importing), or the
        name is missing or not callable.
    """
    timeout = check_timeout(timeout)
    if not isinstance(ref, str) or ":" not in ref:
        raise PluginError(f"{_label(what, ref)}: expected 'package.module:function' or 'path/to/file.py:function'")
    where, _, name = ref.rpartition(":")
    if where.endswith(".py") or "/" in where:
        path = Path(where)
        if not path.is_file():
            raise PluginError(f"{_label(what, ref)}: no such file {where}")

        def load():
            spec = _codeload.file_spec(f"simstudy_plugin_{path.stem}", path)  # never from a stale .pyc
            module = importlib.util.module_from_spec(spec)
            # registered while it runs, so dataclasses and pickling inside the plug-in work
            sys.modules[spec.name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(spec.name, None)
                raise
            return module
    else:

        def load():
            return importlib.import_module(where)

    try:
        module = _guarded(load, what, ref, timeout)
    except PluginError as exc:  # the user's module failed to import
        cause = exc.__cause__
        if cause is not None and not isinstance(cause, PluginError):
            raise PluginError(f"{_label(what, ref)}: importing it failed: {type(cause).__name__}: {cause}") from cause
        raise PluginError(f"{exc} (while importing it)") from None
    fn = getattr(module, name, None)
    if isinstance(fn, type):  # a small class: one instance, called like a function
        try:
            fn = _guarded(fn, what, ref, timeout)
        except PluginError as exc:
            cause = exc.__cause__
            if cause is not None and not isinstance(cause, PluginError):
                raise PluginError(
                    f"{_label(what, ref)}: creating an instance failed: {type(cause).__name__}: {cause}"
                ) from cause
            raise PluginError(f"{exc} (while creating an instance)") from None
    if not callable(fn):
        raise PluginError(f"{_label(what, ref)}: {where} has no callable {name!r}")
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


class PluginProcess:
    """A plug-in loaded by reference in a warm worker process of its own, with hard time limits.

    Made by :func:`open_plugin`; :func:`run_plugin` and :func:`run_scheme`
    take it in place of the plug-in itself.  See "Running a plug-in" in the
    module docstring.

    Parameters
    ----------
    ref : str
        The reference, as for :func:`load_plugin`.
    what : str
        ``"test"`` or ``"scheme"``; only used in messages (``--test ...``).
    timeout : float or None
        Time limit in seconds for starting the worker and loading the plug-in.

    Raises
    ------
    PluginError
        As :func:`load_plugin`, and when the worker cannot be started, ends
        while loading, or the loading exceeds the time limit.
    """

    def __init__(self, ref: str, what: str = "test", *, timeout=DEFAULT_TIMEOUT):
        from simstudy._worker import Worker

        self.__simstudy_ref__, self.what = ref, what
        self._worker = Worker(prefix=ref)
        try:
            with self._failures(" (while loading it)"):
                # starting Python and simstudy is not the plug-in's time
                self._worker.start(
                    timeout=None if timeout is None else max(timeout, START_TIMEOUT), preload=(__name__,)
                )
                self._worker.call(_serve_load, ref, what, on_command_line(), timeout=timeout)
        except BaseException:
            self.close()
            raise

    @property
    def label(self) -> str:
        """How messages name the plug-in, e.g. ``--test 'file.py:t'``."""
        return _label(self.what, self.__simstudy_ref__)

    @contextlib.contextmanager
    def _failures(self, during: str = ""):
        """The worker's failures as one-line :class:`PluginError` naming the plug-in."""
        from simstudy._worker import RemoteError, WorkerFailed

        try:
            yield
        except WorkerFailed as exc:
            raise PluginError(f"{self.label}: {exc}{during}") from None
        except RemoteError as exc:
            if exc.kind == "PluginError":  # already one line naming the plug-in
                raise PluginError(exc.message) from None
            raise PluginError(f"{self.label} raised {exc.kind}: {exc.message}{during}") from None

    def _ask(self, function, *args, timeout):
        with self._failures():
            return self._worker.call(function, *args, timeout=timeout)

    def test(self, scores: PairedScores, alpha: float, timeout) -> dict[str, Any]:
        """:func:`run_plugin` in the worker."""
        return self._ask(_serve_test, self.__simstudy_ref__, scores, alpha, on_command_line(), timeout=timeout)

    def scheme(self, diffs: np.ndarray, timeout) -> np.ndarray:
        """:func:`run_scheme` in the worker."""
        return self._ask(_serve_scheme, self.__simstudy_ref__, diffs, on_command_line(), timeout=timeout)

    def close(self) -> None:
        """End the worker process (killed after half a second if it is busy), passing on what it printed."""
        self._worker.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@contextlib.contextmanager
def open_plugin(ref: str, what: str = "test", *, timeout=DEFAULT_TIMEOUT):
    """The plug-in ``ref`` in a worker process for the ``with`` block (see "Running a plug-in").

    Parameters
    ----------
    ref : str
        ``package.module:name`` or ``path/to/file.py:name`` (see :func:`load_plugin`).
    what : str
        ``"test"`` or ``"scheme"``; only used in messages.
    timeout : float or None
        Time limit in seconds for loading the plug-in; None for no limit.

    Yields
    ------
    PluginProcess or callable
        What :func:`run_plugin` or :func:`run_scheme` takes; the plug-in itself
        (loaded in this process) on a platform without worker processes.

    Raises
    ------
    PluginError
        As :func:`load_plugin`, and when the worker ends or exceeds the limit while loading.
    """
    from simstudy._worker import available

    timeout = check_timeout(timeout)
    if not available():
        yield load_plugin(ref, what, timeout=timeout)
        return
    proc = PluginProcess(ref, what, timeout=timeout)
    try:
        yield proc
    finally:
        proc.close()


# the worker's side: the plug-ins it loaded, by (reference, kind)
_LOADED: dict = {}


def _serve_load(ref: str, what: str, cli: bool = False) -> None:
    global _IN_WORKER
    _IN_WORKER = True
    with command_line(cli):
        _LOADED[ref, what] = load_plugin(ref, what, timeout=None)


def _serve_test(ref: str, scores: PairedScores, alpha: float, cli: bool = False) -> dict[str, Any]:
    with command_line(cli):
        return run_plugin(_LOADED[ref, "test"], scores, alpha, timeout=None)


def _serve_scheme(ref: str, diffs: np.ndarray, cli: bool = False) -> np.ndarray:
    with command_line(cli):
        return run_scheme(_LOADED[ref, "scheme"], diffs, timeout=None)


def _label(what: str, ref: str) -> str:
    """How a message names the plug-in ``ref`` given as ``what`` (``"test"`` or ``"scheme"``), e.g.
    ``test 'file.py:t'`` in Python, ``--test 'file.py:t'`` on the command line."""
    return f"{option(what)} {ref!r}"


def _ref(fn) -> str:
    return getattr(fn, "__simstudy_ref__", getattr(fn, "__name__", repr(fn)))


def _real_array(value, what: str, label: str) -> np.ndarray:
    """``value`` as a float array; complex numbers and text are refused, not converted."""
    try:
        raw = np.asarray(value)
        if raw.dtype.kind == "c":
            raise PluginError(f"{label}: {what} must be real numbers, got complex values")
        if raw.dtype.kind in "USV":
            raise PluginError(f"{label}: {what} must be numbers, got {raw.dtype}")
        return np.asarray(raw, dtype=float)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, PluginError):
            raise
        raise PluginError(f"{label}: {what} must be numbers: {exc}") from exc


def run_scheme(fn, diffs: np.ndarray, *, timeout=DEFAULT_TIMEOUT) -> np.ndarray:
    """Apply a plug-in scheme to ``(..., n_runs, n_folds)`` differences, checking its ``(..., m)`` output.

    Parameters
    ----------
    fn : callable or PluginProcess
        The plug-in scheme (a :class:`PluginProcess` runs it in its worker).
    diffs : ndarray, shape (..., n_runs, n_folds)
        Differences A - B.
    timeout : float or None
        Time limit in seconds (see the module docstring); None for no limit.

    Raises
    ------
    PluginError
        When the scheme raises, calls ``sys.exit``, exceeds the time limit, or
        returns complex numbers or an array of the wrong shape.
    """
    timeout = check_timeout(timeout)
    if isinstance(fn, PluginProcess):
        return fn.scheme(diffs, timeout)
    label = _label("scheme", _ref(fn))
    out = _guarded(lambda: fn(diffs), "scheme", _ref(fn), timeout)
    sample = _real_array(out, "the sample", label)
    if sample.ndim < 1 or sample.shape[:-1] != diffs.shape[:-2]:
        raise PluginError(f"{label}: expected an array of shape {diffs.shape[:-2]} + (m,), got shape {sample.shape}")
    return sample


def run_plugin(fn, scores: PairedScores, alpha: float, *, timeout=DEFAULT_TIMEOUT) -> dict[str, Any]:
    """Run a plug-in test on paired scores and check what it returns.

    Parameters
    ----------
    fn : callable or PluginProcess
        The plug-in test (see the module docstring for the calling convention);
        a :class:`PluginProcess` runs it in its worker.
    scores : PairedScores
        Paired accuracies, shape ``(..., n_runs, n_folds)``.
    alpha : float
        Significance level; a replication rejects when ``pvalue <= alpha``.
    timeout : float or None
        Time limit in seconds for the call (see the module docstring); None
        for no limit.  Default :data:`DEFAULT_TIMEOUT`.

    Returns
    -------
    dict
        ``statistic`` and ``pvalue`` (float arrays of the leading shape, NaN when
        the test returned decisions only or declined), ``decision`` (int8, +1 A
        better, -1 B better, 0 not significant; 0 when declined),
        ``direction`` (float: the direction a rejection at any level would
        point to, NaN where unknown; a decision-only test's decisions),
        ``decision_only`` (bool: the test gave decisions, no p-values) and
        ``declined`` (bool: the test returned None for this design; nothing of
        it may be counted).

    Raises
    ------
    PluginError
        When the test raises, calls ``sys.exit``, exceeds the time limit,
        returns something else than documented, arrays whose shape is not the
        leading shape (a scalar is not spread over the replications), complex
        numbers, NaN p-values, p-values outside [0, 1], or a NaN statistic
        (without ``direction``) or NaN direction where the p-value is
        ``<= alpha``.
    """
    timeout = check_timeout(timeout)
    if isinstance(fn, PluginProcess):
        return fn.test(scores, alpha, timeout)
    lead = scores.acc_a.shape[:-2]
    ref = _ref(fn)
    label = _label("test", ref)

    def call():
        with np.errstate(all="ignore"):
            return fn(scores)

    res = _guarded(call, "test", ref, timeout)
    if res is None:  # the test declines this design
        return {
            "statistic": np.full(lead, np.nan),
            "pvalue": np.full(lead, np.nan),
            "decision": np.zeros(lead, dtype=np.int8),
            "direction": np.full(lead, np.nan),
            "decision_only": False,
            "declined": True,
        }
    if hasattr(res, "statistic") and hasattr(res, "pvalue"):
        stat, p = res.statistic, res.pvalue
        direction = getattr(res, "direction", None)
    elif isinstance(res, tuple) and len(res) == 2:
        (stat, p), direction = res, None
    elif isinstance(res, (np.ndarray, list, int, np.integer)) and not isinstance(res, bool):
        decision = _decisions(res, lead, ref)
        return {
            "statistic": np.full(lead, np.nan),
            "pvalue": np.full(lead, np.nan),
            "decision": decision,
            "direction": decision.astype(float),
            "decision_only": True,
            "declined": False,
        }
    else:
        raise PluginError(
            f"{label}: must return an object with statistic and pvalue, a tuple "
            f"(statistic, pvalue), a decision array, or None to decline the design, got {type(res).__name__}"
        )
    stat = _real_array(stat, "the statistic", label)
    p = _real_array(p, "the p-values", label)
    given_direction = direction is not None
    direction = np.sign(stat) if direction is None else np.sign(_real_array(direction, "the direction", label))
    for what, arr in (("statistic", stat), ("pvalue", p), ("direction", direction)):
        if arr.shape != lead:
            raise PluginError(
                f"{label}: statistic and pvalue must be numbers of shape {lead} "
                f"(one per replication), got {what} of shape {arr.shape}"
            )
    if np.isnan(p).any():
        raise PluginError(f"{label}: returned NaN p-values for {int(np.isnan(p).sum())} of {p.size} samples")
    if ((p < 0) | (p > 1)).any():
        raise PluginError(f"{label}: p-values must lie in [0, 1]")
    unknown = (p <= alpha) & np.isnan(direction)
    if unknown.any():
        what = "direction" if given_direction else "statistic (which gives the direction)"
        raise PluginError(
            f"{label}: the {what} is NaN where the p-value is <= alpha "
            f"({int(unknown.sum())} of {p.size} samples): the direction of the rejection is unknown"
        )
    decision = np.where(p <= alpha, np.nan_to_num(direction), 0).astype(np.int8)
    return {
        "statistic": stat,
        "pvalue": p,
        "decision": decision,
        "direction": direction,
        "decision_only": False,
        "declined": False,
    }


def _decisions(res, lead, ref) -> np.ndarray:
    label = _label("test", ref)
    d = np.asarray(res)
    if d.dtype.kind == "c":
        raise PluginError(f"{label}: decisions must be -1, 0 or +1, got complex values")
    if d.shape != lead:
        raise PluginError(f"{label}: a decision array must have shape {lead}, got {d.shape}")
    if d.dtype == bool:
        raise PluginError(f"{label}: decisions must be -1, 0 or +1 (direction matters), not booleans")
    with np.errstate(invalid="ignore"):
        ok = np.isin(d, (-1, 0, 1))
    if not np.all(ok):
        raise PluginError(f"{label}: decisions must be -1, 0 or +1")
    return d.astype(np.int8)


# -- one test contract ----------------------------------------------------------------------


@dataclass(frozen=True)
class PluginResult(SignificanceResult):
    """A plug-in's checked result: statistic and p-value (NaN for a test that gives decisions only), and
    its decisions at the level it was run at (:func:`run_plugin` checks them at that level).

    ``decision_only``: the test gave decisions, no p-values; ``declined``: it
    returned None for this design, and nothing of this result may be counted.
    """

    decisions: np.ndarray | None = None
    alpha: float = 0.05
    decision_only: bool = False
    declined: bool = False

    def decision(self, alpha: float = 0.05):
        if not math.isclose(alpha, self.alpha):
            raise PluginError(f"a plug-in test run at alpha {self.alpha:g} is asked for its decisions at {alpha:g}")
        return self.decisions


class _PluginTest:
    """``function(scores)`` of the :class:`~simstudy.pipeline.outcomes.TestSpec` of a plug-in test."""

    def __init__(self, fn, alpha: float, timeout, scheme=None):
        self.fn, self.alpha, self.timeout, self.scheme = fn, alpha, timeout, scheme

    def __call__(self, scores: PairedScores) -> PluginResult:
        if self.scheme is not None:
            sample = run_scheme(self.scheme, scores.diffs, timeout=self.timeout)
            scores = PairedScores(scores.acc_a, scores.acc_b, scores.n_train, scores.n_test, sample)
        out = run_plugin(self.fn, scores, self.alpha, timeout=self.timeout)
        return PluginResult(
            out["statistic"],
            out["pvalue"],
            None,
            out["direction"],
            out["decision"],
            self.alpha,
            decision_only=bool(out["decision_only"]),
            declined=bool(out["declined"]),
        )


def as_test(fn, *, alpha: float, timeout=DEFAULT_TIMEOUT, scheme=None):
    """A plug-in test (and optionally its scheme) as a :class:`~simstudy.pipeline.outcomes.TestSpec`.

    The spec takes the paired scores (``takes="scores"``), so anything that
    runs registered tests runs it: :func:`simstudy.pipeline.outcomes.outcome_rows`
    gives its outcome rows, with the statistic and p-value it returned and its
    decisions at ``alpha`` (checked as :func:`run_plugin` checks them).

    Parameters
    ----------
    fn : callable or PluginProcess
        The plug-in test (see the module docstring).
    alpha : float
        The level its decisions are made and checked at.
    timeout : float or None
        Time limit of one call.
    scheme : callable or PluginProcess, optional
        A plug-in scheme whose sample the test finds in ``scores.sample``.
    """
    from simstudy.pipeline.outcomes import TestSpec

    name = getattr(fn, "__simstudy_ref__", getattr(fn, "__name__", "new test"))
    return TestSpec(name, _PluginTest(fn, alpha, timeout, scheme), takes="scores", description=f"plug-in {name}")
