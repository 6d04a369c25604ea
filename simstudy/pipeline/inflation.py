"""The corrected 10x10 cv t-test with its correlation term inflated per stability class of the learners.

The corrected repeated cv t-test assumes that two splits' differences correlate
by the test share (variance ``(1/(k r) + n_test/n_train) s^2``); for learners
whose predictions change with the training partition they correlate more, and
the proving ground finds the test liberal there.  The inflated test multiplies
the term ``n_test/n_train`` by a factor ``c`` calibrated on the proving
ground's null scenarios of one stability class (:mod:`simstudy.apps.stability`):

``t = mean / sqrt((1/(k r) + c n_test/n_train) s^2)``, df ``k r - 1``.

It is the corrected statistic rescaled, so it ranks data sets as the corrected
test does (the same size-adjusted power); what changes is where it rejects at
the nominal level.  The factors, their calibration and their validation on data
sets the calibration did not see ship in ``simstudy/pipeline/data/inflation.json``,
made by ``scripts/calibrate_inflation.py`` from a stored paper-profile proving
ground; they were calibrated on a 10 x 10 cv, and the registered tests
``inflated_cv_t_CLASS`` refuse another shape.  Equivalent to the corrected test
with ``n_test`` multiplied by ``c``, which is how an interval or the Bayesian
correlated t-test takes the same correction (``simstudy.apps.assess.tables``).
"""

from __future__ import annotations

import functools
import json
from importlib import resources

import numpy as np

from simstudy.errors import InputError
from simstudy.statistics import significance as h

__all__ = [
    "INFLATION_FILE",
    "load_inflation",
    "inflated_cv_t_test",
    "pooled_evidence",
]

INFLATION_FILE = "inflation.json"
_SHAPE = (10, 10)  # the design the factors were calibrated on: 10 runs of 10-fold cv


@functools.lru_cache(maxsize=1)
def load_inflation() -> dict:
    """The shipped calibration (``simstudy/pipeline/data/inflation.json``) as a dict."""
    return json.loads(resources.files("simstudy.pipeline.data").joinpath(INFLATION_FILE).read_text())


def inflated_cv_t_test(x, *, n_train, n_test, factor: float) -> h.SignificanceResult:
    """The corrected repeated cv t-test with the term ``n_test/n_train`` multiplied by ``factor`` (>= 1).

    Parameters
    ----------
    x : array_like, shape (..., n_runs, n_folds)
        Differences A - B per run and fold.
    n_train, n_test : positive number
        Sizes of each training and test set.
    factor : float
        The inflation; 1 gives :func:`~simstudy.statistics.significance.corrected_repeated_cv_t_test`.
    """
    if not np.isfinite(factor) or factor < 1:
        raise InputError(f"factor: must be a finite number >= 1, got {factor!r}")
    return h.corrected_repeated_cv_t_test(x, n_train=n_train, n_test=float(n_test) * float(factor))


def pooled_evidence(design: str, repeats: int, klass: str) -> dict | None:
    """The shipped evidence on the corrected t over ``repeats`` repeats of ``design`` pooled (one test on all
    their splits), for learners of the stability class ``klass``: its factor, size verdict, deciding null
    scenario, power, and on which data sets it was judged; None where the calibration holds none."""
    entry = load_inflation()["procedures"].get(design, {}).get(str(int(repeats)), {}).get(klass)
    return dict(entry, repeats=int(repeats)) if entry else None


def _registered(name: str, factor: float):
    def test(x, *, n_train, n_test):
        arr = np.asarray(x)
        if arr.ndim < 2 or arr.shape[-2:] != _SHAPE:
            shape = "x".join(map(str, arr.shape[-2:])) if arr.ndim >= 2 else str(arr.shape)
            raise InputError(
                f"x: test {name!r} was calibrated on a {_SHAPE[0]} x {_SHAPE[1]} cv (runs x folds), got {shape}"
            )
        return inflated_cv_t_test(arr, n_train=n_train, n_test=n_test, factor=factor)

    test.__name__ = name
    return test


def register(register_test) -> None:
    """Register ``inflated_cv_t_CLASS`` for every calibrated class (called by :mod:`simstudy.pipeline.outcomes`)."""
    data = load_inflation()
    for name, factor in sorted(data["tests"].items()):
        klass = name[len("inflated_cv_t_") :].replace("_", " ")
        register_test(
            name,
            _registered(name, float(factor)),
            takes="cv",
            sizes=True,
            in_all=False,
            correction="corrected",
            decides=True,
            citation="Nadeau and Bengio (2003), with the correlation term calibrated per stability class",
            label=f"corrected 10x10 cv t-test inflated x{float(factor):g} (calibrated for {klass} learners)",
            description=f"corrected repeated cv t-test with n_test/n_train x{float(factor):g}, calibrated on the "
            f"proving ground's null scenarios of {klass} learners (10 x 10 cv only)",
        )
