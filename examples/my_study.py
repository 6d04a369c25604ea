"""A study written outside the package: naive Bayes against a decision tree on subsamples of a real data set.

Run it like any built-in study, by its path (every command takes one)::

    simstudy run examples/my_study.py --profile smoke
    simstudy compare examples/my_study.py --profile smoke
    simstudy bench examples/my_study.py --profile smoke --test welch_t
    simstudy report --profile smoke --study examples/my_study.py

Each replication draws ``n_cases`` cases without replacement from scikit-learn's
breast-cancer data (shipped with scikit-learn), makes one r x k repeated
stratified cross-validation (a design of :mod:`simstudy.designs`), fits both
learners once per fold (:func:`simstudy.scores.cv_accuracies`), and runs every
registered test that the design allows on the paired scores, every sample test
on every sampling scheme (``tests="all"`` of :func:`simstudy.outcomes.outcome_rows`).
A test registered later appears here without a change to this file.

The pieces are the library's: this file only declares the grid, the settings,
what one replication does, and where its paired scores are.
"""

from __future__ import annotations

from dataclasses import dataclass


from simstudy.designs import RepeatedKFold
from simstudy.engine import Profile, Study
from simstudy.engine.study import settings_of
from simstudy.learners import as_learner_factory
from simstudy.outcomes import outcome_rows
from simstudy.schemes import SCHEMES
from simstudy.scores import PairedScores, ScoreLayout, cv_accuracies, kfold_sizes, scores_frame


@dataclass(frozen=True)
class Settings:
    """What a profile may set: the subsample sizes to study and the design."""

    sizes: tuple = (100, 300)
    n_runs: int = 10
    n_folds: int = 10


@dataclass(frozen=True)
class Subsample:
    n_cases: int
    n_runs: int = 10
    n_folds: int = 10
    alpha: float = 0.05

    def __post_init__(self):
        if not 20 <= self.n_cases <= 569:
            raise ValueError(f"n_cases: the data set has 569 cases; choose 20 to 569, got {self.n_cases}")

    @property
    def key(self) -> str:
        return f"n{self.n_cases}"

    @property
    def design(self) -> RepeatedKFold:
        return RepeatedKFold(self.n_runs, self.n_folds)


def conditions(profile: Profile):
    s = settings_of(profile, Settings)
    return [Subsample(n, n_runs=s.n_runs, n_folds=s.n_folds) for n in s.sizes]


def _data():
    from sklearn.datasets import load_breast_cancer

    return load_breast_cancer(return_X_y=True)


def replicate(cond: Subsample, rng):
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    X, y = _data()
    rows = rng.choice(y.size, size=cond.n_cases, replace=False)
    X, y = X[rows], y[rows]
    learners = (as_learner_factory(GaussianNB()), as_learner_factory(DecisionTreeClassifier(random_state=0)))
    acc = cv_accuracies(X, y, cond.design.fold_ids(y, rng), learners)          # (runs, folds, 2)
    scores = PairedScores(acc[..., 0], acc[..., 1], *cond.design.sizes(y))
    return {"scores": scores_frame(acc, ("acc_a", "acc_b"), axes=("run", "fold")),
            "outcomes": outcome_rows(scores, "all", alpha=cond.alpha, schemes=SCHEMES)}


STUDY = Study(
    name="my_study",
    title="Naive Bayes vs a decision tree on subsamples of the breast-cancer data (an example study file)",
    conditions=conditions,
    replicate=replicate,
    settings=Settings,
    profiles={
        "smoke": Profile("smoke", n_replications=4, settings={"sizes": (100,), "n_runs": 2, "n_folds": 5}),
        "quick": Profile("quick", n_replications=100),
        "paper": Profile("paper", n_replications=1000),
    },
    paired_scores=ScoreLayout(groups=("n_cases",), sizes=kfold_sizes),
    seconds_per_replication=lambda c: 0.004 * c.n_runs * c.n_folds,
    chunk_size=2,
)
