"""The fit worker's side: what runs in the worker process of a contained learner.

:class:`~simstudy.apps.assess.limits._FitLimit` (this process's side) sends the worker the ``_serve_*``
functions and :class:`_RefFactory` factories pickled by reference, by their module path: the worker imports
this module (it is among the modules :data:`~simstudy.apps.assess.limits._PRELOAD` loads before the
learner's clock starts), makes the learner from its reference there (:func:`_maker`), keeps the data it is
sent once, and fits.  :func:`_describe` and :func:`_trial_fit` describe a learner as the checks need it,
the same whether made there or in simstudy's process.
"""

from __future__ import annotations

import inspect
import json
import warnings

import numpy as np

from simstudy import _codeload
from simstudy.apps.assess.references import _load_learner
from simstudy.errors import InputError


class _RefFactory:
    """The factory of a ``module:NAME`` or ``file.py:NAME`` learner, which makes learners in its worker only.

    It travels to the worker by reference (this class) with the reference and
    parameters; there the module is imported once and the learner made as
    :func:`simstudy.pipeline.learners.as_learner_factory` would.  ``takes_seed``
    (found in the worker) tells :class:`simstudy.pipeline.comparison.Comparison`
    whether the learners get a ``random_state``; None: not known.
    """

    __slots__ = ("spec", "params", "takes_seed")

    def __init__(self, spec: str, params: str = "{}", takes_seed: bool | None = None):
        self.spec, self.params, self.takes_seed = spec, params, takes_seed

    def __call__(self):
        if not _IN_FIT_WORKER:
            raise RuntimeError(f"learner {self.spec!r}: made in its worker process only, not in simstudy's")
        return _maker(self.spec, self.params)()

    def __getstate__(self):
        return self.spec, self.params, self.takes_seed

    def __setstate__(self, state):
        self.spec, self.params, self.takes_seed = state


# the worker's side (see simstudy._worker): the learner's factory, made there, and the data, sent once
_IN_FIT_WORKER = False
_MAKERS: dict = {}
_FIT_DATA: dict = {}


def _maker(spec: str, params: str):
    """The factory of the learner ``spec`` with ``params`` (JSON), its module imported here once."""
    from simstudy.pipeline.learners import as_learner_factory

    key = (spec, params)
    if key not in _MAKERS:
        obj = _load_learner(spec)
        kwargs = json.loads(params)
        if inspect.isclass(obj):
            make = as_learner_factory(obj, **kwargs)
        elif kwargs:
            raise InputError(
                f"learner {spec!r}: parameters are not allowed with an estimator or a factory (set them in the file)"
            )
        else:
            make = as_learner_factory(obj)
        _MAKERS[key] = make
    return _MAKERS[key]


def _serve_load(source: tuple) -> dict:
    global _IN_FIT_WORKER
    _IN_FIT_WORKER = True
    make = _maker(source[1], source[2]) if source[0] == "ref" else source[1]
    # the code this worker fits with, for the run to compare with its own fingerprint (see _fit_worker_code)
    return {**_describe(make()), "code": _codeload.loaded_sources()}


def _serve_fit_data(digest: str, X, y) -> None:
    _FIT_DATA[digest] = (X, y)


def _recording(thunk):
    """``thunk()`` and the warnings it issued, as ``(value, [(category name, message), ...])``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = thunk()
    return value, [(w.category.__name__, str(w.message)[:2000]) for w in caught]


def _serve_fit(digest, make, train, test):
    X, y = _FIT_DATA[digest]
    return _recording(lambda: make().fit(X[train], y[train]).predict(X[test]))


def _serve_fit_outputs(digest, make, train, test):
    """``(pred, scores, kind)`` of ``make()`` fitted on ``train``, for ``test`` (see :func:`fold_outputs`)."""
    from simstudy.pipeline.outputs import score_kind, split_outputs

    X, y = _FIT_DATA[digest]

    def outputs():
        est = make().fit(X[train], y[train])
        pred, scores = split_outputs(est, X[test], np.unique(y))
        return pred, scores, score_kind(est)

    return _recording(outputs)


def _serve_fit_score(digest, make, train, test, metric):
    from simstudy.pipeline.scores import fold_score

    X, y = _FIT_DATA[digest]
    return _recording(lambda: fold_score(make, X, y, train, test, metric))


def _serve_trial_fit(digest, make) -> dict:
    X, y = _FIT_DATA[digest]
    return _trial_fit(make, X, y)


def _describe(est) -> dict:
    """What the checks need to know of an unfitted learner, without the learner itself (which may not be
    importable where the checks run): whether it is a scikit-learn estimator, a classifier by its tags, of
    which kind, whether it takes missing values, and whether it takes a seed."""
    from sklearn.base import BaseEstimator, is_classifier

    from simstudy.pipeline.comparison import seed_parameters

    out = {
        "estimator": isinstance(est, BaseEstimator),
        "classifier": None,
        "kind": None,
        "allow_nan": False,
        "takes_seed": bool(seed_parameters(est)),
    }
    if out["estimator"]:
        out["classifier"] = bool(is_classifier(est))
    try:
        from sklearn.utils import get_tags

        tags = get_tags(est)
        out["kind"] = tags.estimator_type
        out["allow_nan"] = bool(tags.input_tags.allow_nan)
    except Exception:
        pass
    return out


def _trial_fit(make, X, y) -> dict:
    """``make()`` fitted on all of ``X``: described as :func:`_check_classifier` needs it, with its
    predictions of the first five rows and the seconds the fit took."""
    import time

    from sklearn.base import BaseEstimator

    est = make()
    start = time.perf_counter()
    with warnings.catch_warnings():  # the repeats count them (see warning_rows); said once, in the report
        warnings.simplefilter("ignore")
        est.fit(X, y)
        seconds = time.perf_counter() - start
        pred = est.predict(X[:5])
    return {
        "estimator": isinstance(est, BaseEstimator),
        "classes": hasattr(est, "classes_"),
        "proba": callable(getattr(est, "predict_proba", None)),
        "predictions": np.asarray(pred),
        "seconds": float(seconds),
    }
