"""The fit limit, simstudy's side: a contained learner is loaded and fitted in a warm worker process of its
own (:class:`_FitLimit`), each call stopped at ``--fit-timeout``, and its fits reach the comparison through
:class:`_LimitedFits` (:func:`_learner`).  What the worker runs is in :mod:`simstudy.apps.assess.worker`.

Importing this module registers the code the fit workers compiled (:func:`_fit_worker_code`) with
:func:`simstudy.engine.codecheck.register_code_reporter`, so that a run's code check covers it.
"""

from __future__ import annotations

import functools
import os
import warnings

from simstudy.apps.assess.data import Dataset
from simstudy.apps.assess.errors import FitStopped, _LearnerError
from simstudy.apps.assess.learners import LearnerChoice
from simstudy.apps.assess.worker import (
    _RefFactory,
    _serve_fit,
    _serve_fit_data,
    _serve_fit_outputs,
    _serve_fit_score,
    _serve_load,
    _serve_trial_fit,
)
from simstudy.errors import InputError, command_line, on_command_line
from simstudy.errors import option as _option

#: Seconds one fit (or the loading) of a contained learner may take unless ``--fit-timeout`` says otherwise.
DEFAULT_FIT_TIMEOUT = 3600.0

#: Seconds a fit worker may take to start (Python and simstudy, before any of the learner's code runs).
START_TIMEOUT = 60.0


def check_fit_timeout(seconds, option: str | None = None) -> float | None:
    """None (the default limit) or a positive finite number of seconds, as float; one line naming ``option``
    (default ``fit_timeout``)."""
    from simstudy.pipeline.plugins import check_timeout

    return check_timeout(seconds, _option("fit_timeout") if option is None else option)


def check_in_process(in_process: bool, fit_timeout: float | None) -> None:
    """Refuse a time limit for learners fitted in simstudy's own process, which nothing can stop (one line)."""
    if in_process and fit_timeout is not None:
        raise InputError(
            f"{_option('in_process')}: a learner fitted in simstudy's process cannot be stopped; "
            f"drop {_option('fit_timeout')}"
        )


#: What a fit worker imports before it loads a learner (their time is not the learner's); the last, the module of
#: the functions it is sent (which imports the whole package, as the one module it replaces did).
_PRELOAD = (
    "sklearn.base",
    "sklearn.utils",
    "simstudy.pipeline.comparison",
    "simstudy.pipeline.scores",
    _serve_load.__module__,
)

# the fit workers of this process, by (process id, option, learner label)
_FIT_WORKERS: dict = {}


class _FitLimit:
    """One contained learner in a warm worker process: loaded there, fitted there, each call stopped at ``seconds``.

    The worker imports the learner's module or file itself (under the limit),
    so this process never runs the learner's code; it holds the data sets it
    is sent (once each, by digest) and fits a learner made by the factory it
    is sent on the training rows it is told, exactly as
    :func:`simstudy.pipeline.scores.fold_predictions` would in this process.
    When a call exceeds the limit, or the worker ends during one, the worker
    and every process it started are killed, and every later call fails at
    once with the same reason (:class:`FitStopped`), so that a hanging
    learner costs the limit once, not once per repeat.

    Attributes
    ----------
    profile : dict
        What the parent needs to know of the learner, found in the worker
        (see :func:`_describe`).
    """

    def __init__(self, label: str, seconds: float, source: tuple):
        from simstudy._worker import Worker

        self.seconds = seconds
        self.stopped: str | None = None
        self._sent: set = set()
        self._worker = Worker(prefix=label)
        try:
            # scikit-learn and simstudy are imported before the clock of the learner's own code starts
            start = functools.partial(self._worker.start, preload=_PRELOAD)
            self._call(start, timeout=START_TIMEOUT, what="starting its worker")
            self.profile = self._call(self._worker.call, _serve_load, source, timeout=seconds, what="loading it")
        except BaseException:
            self._worker.close()
            raise

    def _call(self, method, *args, timeout, what: str = "a fit"):
        from simstudy._worker import RemoteError, WorkerFailed

        if self.stopped is not None:
            raise FitStopped(f"not fitted: an earlier call of this learner {self.stopped}")
        try:
            return method(*args, timeout=timeout)
        except WorkerFailed as exc:
            self.stopped = f"{exc} ({_option('fit_timeout', _seconds(self.seconds))} s)"
            raise FitStopped(f"{what} {self.stopped}") from None
        except RemoteError as exc:  # the learner raised, as it would have in this process
            raise _LearnerError(exc.kind, exc.message) from None

    def _data(self, digest: str, X, y) -> None:
        if digest not in self._sent:
            self._call(
                self._worker.call, _serve_fit_data, digest, X, y, timeout=self.seconds, what="receiving the data"
            )
            self._sent.add(digest)

    def fit_predict(self, digest, X, y, make, train, test):
        """Predictions for the rows ``test`` of ``make()`` fitted on the rows ``train`` (see :func:`fold_predictions`)."""
        self._data(digest, X, y)
        return _warn_again(self._call(self._worker.call, _serve_fit, digest, make, train, test, timeout=self.seconds))

    def fit_outputs(self, digest, X, y, make, train, test):
        """Predictions, score columns and their kind of ``make()`` fitted on ``train``, for ``test`` (see
        :func:`fold_outputs`)."""
        self._data(digest, X, y)
        return _warn_again(
            self._call(self._worker.call, _serve_fit_outputs, digest, make, train, test, timeout=self.seconds)
        )

    def fit_score(self, digest, X, y, make, train, test, metric):
        """The score ``metric`` of ``make()`` fitted on the rows ``train``, on the rows ``test`` (see :func:`cv_scores`)."""
        self._data(digest, X, y)
        answer = self._call(
            self._worker.call, _serve_fit_score, digest, make, train, test, metric, timeout=self.seconds
        )
        return _warn_again(answer)

    def trial(self, digest, X, y, make) -> dict:
        """``make()`` fitted on all the data, described (see :func:`_describe_fitted`; :func:`_check_learnable`)."""
        self._data(digest, X, y)
        return self._call(self._worker.call, _serve_trial_fit, digest, make, timeout=self.seconds)

    def close(self) -> None:
        self._worker.close()


def _seconds(seconds: float):
    """``seconds`` as a message names the limit: a number printed as ``:g`` prints it (an int when whole)."""
    return int(seconds) if float(seconds).is_integer() else float(f"{seconds:g}")


def _limits(choice: LearnerChoice) -> bool:
    """Whether ``choice`` is loaded and fitted in a worker process (see :func:`_fit_limit`)."""
    from simstudy._worker import available

    return choice.contained and not choice.registered and available()


def _fit_limit(choice: LearnerChoice, option: str, seconds: float | None):
    """The :class:`_FitLimit` of a contained learner in this process (started, and the learner loaded, on first
    use); None for a learner that is not contained or on a platform without worker processes.

    Raises
    ------
    FitStopped
        Starting the worker or loading the learner exceeded the limit, or the worker ended.
    _LearnerError
        Loading the learner raised (the module cannot be imported, no such name, parameters refused, ...).
    """
    if not _limits(choice):
        return None
    key = (os.getpid(), option, choice.label)
    if key not in _FIT_WORKERS:
        seconds = DEFAULT_FIT_TIMEOUT if seconds is None else seconds
        source = (
            ("object", choice.factory(None)) if choice.template is not None else ("ref", choice.spec, choice.params)
        )
        _FIT_WORKERS[key] = _FitLimit(choice.label, seconds, source)
    return _FIT_WORKERS[key]


class _LimitedFits:
    """``fit_predict``, ``fit_score`` and ``fit_outputs`` of a contained learner (see :class:`_FitLimit`),
    picklable."""

    def __init__(self, choice: LearnerChoice, option: str, seconds: float | None, data: Dataset):
        self.args = (choice, option, seconds)
        self.digest, self.X, self.y = data.digest, data.X, data.y
        # its messages name options as the process that made it does, in whichever process it fits
        self.cli = on_command_line()

    def __call__(self, make, train, test):
        with command_line(self.cli):
            return _fit_limit(*self.args).fit_predict(self.digest, self.X, self.y, make, train, test)

    def score(self, make, train, test, metric):
        with command_line(self.cli):
            return _fit_limit(*self.args).fit_score(self.digest, self.X, self.y, make, train, test, metric)

    def outputs(self, make, train, test):
        with command_line(self.cli):
            return _fit_limit(*self.args).fit_outputs(self.digest, self.X, self.y, make, train, test)


def _learner(choice: LearnerChoice, option: str, seconds: float | None, data: Dataset, *, fitting: bool = True):
    """The :class:`~simstudy.pipeline.comparison.ComparedLearner` of ``choice`` on ``data``: fitted in its worker when
    contained (``fitting=False``: a study that is only read, whose learners are never loaded)."""
    from simstudy.pipeline.comparison import ComparedLearner

    if not _limits(choice):
        return ComparedLearner(choice.factory(data))
    limited = _LimitedFits(choice, option, seconds, data)
    if choice.template is not None:
        make = choice.factory(data)
    else:
        takes_seed = bool(_fit_limit(choice, option, seconds).profile["takes_seed"]) if fitting else False
        make = _RefFactory(choice.spec, choice.params, takes_seed)
    return ComparedLearner(make, limited, limited.score, limited.outputs)


def _fit_worker_code() -> dict[str, str]:
    """``{path: SHA-256}`` of the source this process's fit workers compiled (their learners and helpers).

    Registered with :func:`simstudy.engine.codecheck.register_code_reporter`: the
    process that computes a chunk checks it against the run's code, as it checks
    its own.
    """
    pid = os.getpid()
    out: dict[str, str] = {}
    for key, limit in list(_FIT_WORKERS.items()):
        profile = getattr(limit, "profile", None) if key[0] == pid else None
        out.update((profile or {}).get("code") or {})
    return out


def _register_fit_worker_code() -> None:
    from simstudy.engine.codecheck import register_code_reporter

    register_code_reporter(_fit_worker_code)


_register_fit_worker_code()


def _close_fit_workers() -> None:
    """End this process's fit workers (the command is done), and every process they started."""
    pid = os.getpid()
    for key in [k for k in _FIT_WORKERS if k[0] == pid]:
        _FIT_WORKERS.pop(key).close()


_WARNING_CLASSES: dict = {}


def _warn_again(answer):
    """The value of a worker's answer, its warnings issued again here (so a repeat counts them as it would
    count the warnings of a fit in this process: by category name and message)."""
    import builtins

    value, caught = answer
    for name, message in caught:
        category = getattr(builtins, name, None)
        if not (isinstance(category, type) and issubclass(category, Warning)):
            if name not in _WARNING_CLASSES:  # a class of the learner's own: one of the same name
                _WARNING_CLASSES[name] = type(name, (UserWarning,), {"__module__": "simstudy.learner"})
            category = _WARNING_CLASSES[name]
        warnings.warn(message, category, stacklevel=2)
    return value
