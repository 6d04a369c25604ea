"""What is refused before anything is written, on one line naming the option: a learner that is not a
classifier, cannot take the data's attributes or missing values, or fails its trial fit on the whole data (in
its worker when contained: :func:`_check_learnable`, :func:`check_learners`); a plan larger than the machine
can carry out (:func:`check_budget`); a ROPE that is not a number >= 0 (:func:`check_rope`).
"""

from __future__ import annotations

import math

import numpy as np

from simstudy.apps.assess.data import Dataset
from simstudy.apps.assess.errors import FitStopped, _first_line, _LearnerError, _one_line
from simstudy.apps.assess.learners import LearnerChoice, _params_option
from simstudy.apps.assess.limits import _close_fit_workers, _fit_limit
from simstudy.apps.assess.worker import _describe, _trial_fit
from simstudy.engine.capacity import check_capacity
from simstudy.errors import InputError
from simstudy.errors import option as _option


def _profile(data: Dataset, choice: LearnerChoice, option: str, fit_timeout: float | None) -> dict:
    """:func:`_describe` of the learner, made in its worker when contained (loading it there); checked as a
    classifier that takes ``data``.  Every failure is one line naming the learner."""
    try:
        limit = _fit_limit(choice, option, fit_timeout)
        profile = limit.profile if limit is not None else _describe(choice.factory(data)())
    except FitStopped as exc:
        raise InputError(f"{option}: {choice.label}: {exc}") from None
    except _LearnerError as exc:  # loading it failed in its worker
        text = _first_line(str(exc))
        if exc.kind in ("ValueError", "InputError") and text.startswith("learner "):
            raise InputError(f"{option}: {text}") from None
        if exc.kind in ("ValueError", "InputError") and text.startswith("params: "):
            raise InputError(f"{_params_option(option)}: {choice.label}: {text[len('params: ') :]}") from None
        raise InputError(f"{option}: {choice.label}: loading it raised {_one_line(exc)}") from None
    _check_classifier(profile, choice, option)
    if not choice.registered:
        _check_estimator_input(data, choice, option, profile)
    return profile


def _trial(data: Dataset, choice: LearnerChoice, option: str, fit_timeout: float | None, digest=None) -> float:
    """The learner fitted once on all of ``data`` (in its worker when contained) and checked; its seconds."""
    where = f" (on {data.name})" if option == _option("learners") else ""
    try:
        limit = _fit_limit(choice, option, fit_timeout)
        if limit is not None:
            fitted = limit.trial(digest or data.digest, data.X, data.y, choice.factory(data))
        else:
            fitted = _trial_fit(choice.factory(data), data.X, data.y)
    except FitStopped as exc:
        raise InputError(f"{option}: {choice.label}{where}: {exc}") from None
    except Exception as exc:  # whatever the learner raises: one line, before anything is stored
        missing = _missing_refusal(data, choice, option, exc)
        if missing is not None:
            raise missing from None
        raise InputError(f"{option}: {choice.label} cannot learn from {data.name}: {_one_line(exc)}") from None
    _check_classifier(fitted, choice, option, fitted=True, y=data.y)
    return fitted["seconds"]


def _check_learnable(
    data: Dataset, choice: LearnerChoice, option: str, *, fit_timeout: float | None = None, digest: str | None = None
) -> float:
    """Refuse, before anything is written, data the learner cannot take (one line); the seconds of one fit.

    A scikit-learn estimator must be a classifier and get numbers (missing
    values are judged by the fit itself, not by a tag); every learner is
    fitted once on the whole data, so that a learner that cannot learn from it
    fails here, not in every split.  A contained learner is loaded, checked and
    fitted in its worker process (see :func:`assess`), each step stopped hard
    at ``fit_timeout`` (default :data:`DEFAULT_FIT_TIMEOUT`); its failures
    (the limit, the end of its process, an exception) are one line naming it.
    """
    _profile(data, choice, option, fit_timeout)
    return _trial(data, choice, option, fit_timeout, digest)


def check_learners(datasets, choices, option: str | None = None, *, fit_timeout: float | None = None) -> dict:
    """:func:`_check_learnable` for every learner on every data set, before anything is written.

    First what needs no fit (a classifier, numbers, missing values) for every
    pair, then one fit of each learner on each data set; the first failure is
    one line naming the learner and the data set, and the fit workers are
    closed.  Returns the seconds of each fit by (data set position, learner position).  ``option``: the
    argument the messages name (default ``learners``).
    """
    option = _option("learners") if option is None else option
    try:
        for data in datasets:
            for choice in choices:
                _profile(data, choice, option, fit_timeout)
        return {
            (i, j): _trial(data, choice, option, fit_timeout)
            for i, data in enumerate(datasets)
            for j, choice in enumerate(choices)
        }
    except BaseException:
        _close_fit_workers()
        raise


def _check_classifier(desc: dict, choice: LearnerChoice, option: str, *, fitted: bool = False, y=None):
    """Refuse a learner that is not a classifier (a regressor's "accuracy" would be printed as if it were one).

    ``desc`` describes the learner (:func:`_describe` before a fit,
    :func:`_trial_fit` after one).  A scikit-learn estimator must be a
    classifier by its own tags (:func:`sklearn.base.is_classifier`).  Any
    other object is judged after a trial fit: it must have ``classes_`` or
    ``predict_proba``.  Every learner's predictions on its training data must
    be classes of the data.
    """
    advice = "an assessment compares classifiers by their accuracy; choose a classifier"
    if not fitted:
        if desc["estimator"] and not desc["classifier"]:
            what = f"a {desc['kind']}" if desc["kind"] else "not a classifier"
            raise InputError(
                f"{option}: {choice.label} is {what}, not a classifier (scikit-learn's is_classifier says no); {advice}"
            )
        return
    if not desc["estimator"] and not (desc["classes"] or desc["proba"]):
        raise InputError(
            f"{option}: {choice.label} does not look like a classifier: after a fit it has neither "
            f"classes_ nor predict_proba; {advice}"
        )
    if y is not None:
        pred = np.asarray(desc["predictions"]).ravel()
        try:
            inside = pred.size == 0 or bool(np.isin(pred, np.unique(y)).all())
        except TypeError:
            inside = False
        if not inside:
            shown = ", ".join(map(repr, pred[:3].tolist()))
            raise InputError(
                f"{option}: {choice.label} predicts values that are not classes of the data (e.g. "
                f"{shown}), so it is not a classifier; {advice}"
            )


def _check_estimator_input(data: Dataset, choice: LearnerChoice, option: str, desc: dict):
    nominal = [c for c, nom in zip(data.columns, data.nominal) if nom]
    if nominal:
        raise InputError(
            f"{option}: {choice.label} needs numbers, but column(s) {', '.join(map(repr, nominal[:5]))} "
            f"of {data.name} are not numeric; encode them first or use a built-in learner"
        )
    # missing values: judged by the trial fit (_trial), not by the estimator's allow_nan tag, which a pipeline
    # whose first step imputes leaves False


def _missing_refusal(data: Dataset, choice: LearnerChoice, option: str, exc: BaseException) -> InputError | None:
    """The one line for a learner whose trial fit failed on missing values (None: it failed for another reason)."""
    text = str(exc)
    if not data.has_missing or not ("NaN" in text or "missing value" in text.lower()):
        return None
    cols = [c for c, miss in zip(data.columns, np.isnan(data.X).any(axis=0)) if miss]
    return InputError(
        f"{option}: {choice.label} cannot take missing values (its trial fit says: {_one_line(exc)}), and column(s) "
        f"{', '.join(map(repr, cols[:5]))} of {data.name} have some; impute them in the learner (e.g. "
        "make_pipeline(SimpleImputer(), ...)) or use a learner that handles them (e.g. NB, C4.5)"
    )


#: Seconds one fit costs beyond the learner's own time (a worker's round trip, the splitting), an estimate.
FIT_OVERHEAD = 2e-3


def check_budget(n_chunks: int, fit_seconds: float, out, *, what: str, option: str | None = None) -> None:
    """Refuse, before anything is written, a plan the machine cannot carry out (one line, with the estimates):
    :func:`simstudy.engine.capacity.check_capacity` with ``fit_seconds`` estimated from the trial fits;
    ``option``: the argument the message names (default ``n_repeats``)."""
    option = _option("n_repeats", flag="repeats") if option is None else option
    timing = "fitting them would take about {} at the speed of the trial fits"
    check_capacity(n_chunks, fit_seconds, out, what=what, option=option, timing=timing)


def _check_assess_plan(designs, n_repeats: int, seconds: float, data: Dataset, out) -> None:
    """:func:`check_budget` of an assessment: one chunk per design and repeat, each split fitted by both learners
    (``seconds``: both trial fits on all the data; a split's fit takes its share of the rows)."""
    n = data.y.size
    per_repeat = sum(d.n_runs * max(d.n_folds, 1) * (seconds * d.n_train / n + 2 * FIT_OVERHEAD) for d in designs)
    keys = ", ".join(d.key for d in designs)
    what = f"{n_repeats:,} repeats of {len(designs)} design(s) ({keys})"
    check_budget(len(designs) * n_repeats, n_repeats * per_repeat, out, what=what)


#: Scorers whose differences between two classifiers can exceed 1 in size: the widest difference (inf: unbounded).
#: Every other classification scorer of scikit-learn scores in [0, 1] (or [-1, 0]), so a difference is at most 1.
_DIFFERENCE_SPAN = {
    "matthews_corrcoef": 2.0,
    "neg_brier_score": 2.0,  # the multi-class Brier score lies in [0, 2]
    "neg_log_loss": math.inf,
    "positive_likelihood_ratio": math.inf,
    "neg_negative_likelihood_ratio": math.inf,
}


def check_rope(rope, metric: str | None = None) -> float:
    """``rope`` as a float >= 0, or one line naming ``--rope``.

    With ``metric``, a ROPE at least as wide as the largest difference the
    metric's scores allow is refused too: every comparison would fall inside it.
    """
    if isinstance(rope, bool) or not isinstance(rope, (int, float, np.floating)) or not np.isfinite(rope) or rope < 0:
        raise InputError(
            f"{_option('rope')}: must be a number >= 0 in score units (0.01: one point of accuracy), got {rope!r}"
        )
    span = _DIFFERENCE_SPAN.get(metric, 1.0) if metric is not None else math.inf
    if rope >= span:
        raise InputError(
            f"{_option('rope')}: {rope:g} is at least the largest difference of {metric} scores ({span:g}), so every comparison "
            "would be called equivalent; a ROPE is a small margin in score units (0.01: one point of accuracy)"
        )
    return float(rope)
