"""The assessment as a :class:`~simstudy.engine.Study` (:func:`assessment_study`): one condition per design,
one replication per repeat, both learners fitted once per split and every test of the design applied to the
same fits; a learner that raises makes a failure row that names it (:class:`LearnerFailed`).
"""

from __future__ import annotations

import warnings

import numpy as np

from simstudy.apps.assess.data import Dataset
from simstudy.apps.assess.designs import DesignChoice, _check_tests, _schemes_for, _tests_for
from simstudy.apps.assess.errors import _error_text
from simstudy.apps.assess.learners import LearnerChoice
from simstudy.apps.assess.limits import _learner
from simstudy.apps.assess.tables import assessment_tables, warning_rows
from simstudy.errors import InputError, option

ASSESS_PROFILE = "assess"


def assessment_study(
    data: Dataset,
    a: LearnerChoice,
    b: LearnerChoice,
    designs,
    *,
    n_repeats: int = 10,
    tests=None,
    chunk_size: int = 1,
    fit_timeout: float | None = None,
    metric: str = "accuracy",
    fitting: bool = True,
):
    """The :class:`~simstudy.engine.Study` of an assessment: one condition per design, one replication per repeat.

    Its single profile, :data:`ASSESS_PROFILE`, records the data's digest, the
    learners and the tests, so a stored assessment is refused when any of them
    changes (``--fresh`` starts again).

    Parameters
    ----------
    data : Dataset
    a, b : LearnerChoice
    designs : sequence of DesignChoice
    n_repeats : int
        Replications per design (>= 1; replicability needs two or more).
    tests : sequence of str, optional
        Registered test names (``["all"]`` for every one); default the tests the papers apply to each design
        (:func:`simstudy.pipeline.outcomes.default_tests`).
    chunk_size : int
        Repeats per stored chunk.
    fit_timeout : float, optional
        Seconds one fit of a contained learner may take (see :func:`assess`;
        default :data:`DEFAULT_FIT_TIMEOUT`); not part of the stored settings,
        since it changes no number.
    metric : str
        The per-split score the tests compare (a scikit-learn scorer name).
    fitting : bool
        False for a study that is only read (:func:`load_assessment`): its
        contained learners are then not loaded.

    Returns
    -------
    simstudy.engine.Study
    """
    from simstudy.engine import Cost, Profile, Provides, Study
    from simstudy.pipeline.comparison import FitFailed

    if isinstance(n_repeats, bool) or not isinstance(n_repeats, (int, np.integer)) or n_repeats < 1:
        raise InputError(
            f"{option('n_repeats', flag='repeats')}: must be an integer >= 1 (replicability compares two or more), "
            f"got {n_repeats!r}"
        )
    tests = _check_tests(tests, designs)
    X, y = data.X, data.y
    sides = {"a": ("A", a), "b": ("B", b)}
    comparisons = _comparisons(data, a, b, designs, tests, metric, fit_timeout, fitting=fitting)

    def replicate(cond: DesignChoice, rng):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = comparisons[cond.key].run(X, y, rng)
            if caught:
                out["warnings"] = warning_rows(caught)
            return out
        except FitFailed as exc:  # the failure row names the learner that raised
            side, choice = sides[exc.learner]
            raise LearnerFailed(f"{_failed_text(side, choice)}{_error_text(exc.__cause__)}") from exc.__cause__

    settings = {
        "data": data.name,
        "data_sha256": data.digest,
        "n_cases": int(y.size),
        "a": a.label,
        "b": b.label,
        "tests": list(tests) if tests else "default",
    }
    if metric != "accuracy":  # the settings of an accuracy assessment stay those its stored runs were made with
        settings["metric"] = metric
    per_fit = 1e-3 * max(1.0, y.size / 100.0)
    return Study(
        name="assess",
        title=f"{a.label} against {b.label} on {data.name}" + ("" if metric == "accuracy" else f" ({metric})"),
        conditions=list(designs),
        replicate=replicate,
        summarize=assessment_tables,
        profiles={ASSESS_PROFILE: Profile(ASSESS_PROFILE, n_replications=n_repeats, settings=settings)},
        provides=Provides(paired_scores=comparisons[designs[0].key].layout(groups=("condition",))),
        cost=Cost(seconds_per_replication=lambda c: 2 * c.n_runs * max(c.n_folds, 1) * per_fit),
        chunk_size=chunk_size,
    )


def _comparisons(
    data: Dataset, a: LearnerChoice, b: LearnerChoice, designs, tests, metric: str, fit_timeout=None, *, fitting=True
):
    """The :class:`~simstudy.pipeline.comparison.Comparison` of every design of an assessment, by design key.

    Every held-out case's outputs are kept (the ``predictions`` table), so
    the stored assessment is scored again by another metric without fitting;
    a contained learner makes them in its worker (:func:`_learner`).
    ``fitting=False``: comparisons that are only read or scored again, whose
    learners are never loaded.
    """
    from simstudy.pipeline.comparison import Comparison

    learners = {
        k: _learner(choice, option(k), fit_timeout, data, fitting=fitting) for k, choice in (("a", a), ("b", b))
    }
    return {
        cond.key: Comparison(
            learners,
            designs={cond.key: cond.spec},
            tests=_tests_for(cond, tests),
            alpha=cond.alpha,
            schemes=_schemes_for(cond),
            index_dtype=np.int16,
            metric=metric,
            mean_sizes=True,
            keep_outputs=True,
        )
        for cond in designs
    }


class LearnerFailed(RuntimeError):
    """A learner raised while it was fitted or asked to predict in one split (the failure row names it)."""


def _failed_text(side: str, choice: LearnerChoice) -> str:
    """How a failure row of learner ``side`` begins, after the exception's name."""
    return f"learner {side} ({choice.label}) failed: "
