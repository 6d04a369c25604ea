"""A small demonstration study that exercises the whole pipeline in seconds.

Two learners on Gaussian classes: A is Gaussian naive Bayes, B always predicts
the majority class of its training set.  With ``mu = 0`` the features carry no
information, both learners have expected accuracy 1/2 and every rejection is a
Type I error; with ``mu > 0`` naive Bayes is better and rejections measure
power.  Each replication runs r x k repeated stratified cross-validation once and
tests the per-fold differences with every sampling scheme and three tests (the
design of Bouckaert 2004, at toy scale), plus the corrected repeated-cv t-test.
The engine's tests use this study.
"""

from __future__ import annotations

from dataclasses import dataclass

from simstudy._lazy import lazy_module
from simstudy.engine import Cost, Profile, Provides, Study
from simstudy.engine.study import settings_of
from simstudy.errors import InputError
from simstudy.pipeline.comparison import Comparison
from simstudy.pipeline.designs import RepeatedKFold
from simstudy.pipeline.outcomes import outcome_rows
from simstudy.pipeline.schemes import SCHEMES
from simstudy.pipeline.scores import ScoreLayout, kfold_sizes
from simstudy.pipeline.sources import GaussianClasses

pd = lazy_module("pandas")

ALPHA = 0.05
TESTS = {"t": "paired_t", "sign": "sign", "rank": "signed_rank"}


@dataclass(frozen=True)
class Settings:
    """Profile settings: the mean shifts to simulate, and a failure rate for testing the engine."""

    mu: tuple = (0.0, 0.8)
    fail_every: int = 0


@dataclass(frozen=True)
class DemoCondition:
    mu: float
    n_cases: int = 60
    n_features: int = 2
    n_runs: int = 5
    n_folds: int = 5
    fail_every: int = 0  # > 0: about one replication in fail_every raises (to exercise failure rows)

    def __post_init__(self):
        if self.n_cases < 4:
            raise InputError(f"n_cases: need at least 4 cases, got {self.n_cases}")
        if not 2 <= self.n_folds <= self.n_cases // 2:
            raise InputError(f"n_folds: must be between 2 and n_cases / 2 ({self.n_cases // 2}), got {self.n_folds}")
        if self.n_runs < 1:
            raise InputError(f"n_runs: must be >= 1, got {self.n_runs}")

    @property
    def key(self) -> str:
        return f"mu{self.mu:g}"

    @property
    def design(self) -> RepeatedKFold:
        return RepeatedKFold(self.n_runs, self.n_folds)


def conditions(profile: Profile):
    s = settings_of(profile, Settings)
    return [DemoCondition(mu, fail_every=s.fail_every) for mu in s.mu]


def replicate(cond: DemoCondition, rng):
    from sklearn.dummy import DummyClassifier
    from sklearn.naive_bayes import GaussianNB

    if cond.fail_every and rng is not None and _should_fail(cond, rng):
        raise RuntimeError("injected failure")
    X, y = GaussianClasses(cond.n_features, mu=cond.mu).sample(cond.n_cases, rng)
    majority = DummyClassifier(strategy="most_frequent")  # B: the majority class of its training set
    fits = Comparison((GaussianNB, majority), designs=(f"cv{cond.n_runs}x{cond.n_folds}",)).fit(X, y, rng)
    scores = fits.paired()  # (runs, folds) of A and B, with one split's sizes
    outcomes = pd.concat(
        [
            outcome_rows(scores, TESTS, alpha=ALPHA, schemes=SCHEMES),
            outcome_rows(scores, {"corrected_t": "corrected_cv_t"}, alpha=ALPHA, index={"scheme": "use_all_data"}),
        ],
        ignore_index=True,
    )
    return {"scores": fits.scores(), "outcomes": outcomes}


def _should_fail(cond, rng) -> bool:
    # decided from the stream itself so that the failure is a property of the replication's seed
    return int(rng.integers(cond.fail_every)) == 0


STUDY = Study(
    name="demo",
    title="Demonstration: naive Bayes vs majority class on Gaussian classes, toy repeated CV",
    conditions=conditions,
    replicate=replicate,
    settings=Settings,
    profiles={
        "smoke": Profile("smoke", n_replications=20),
        "quick": Profile("quick", n_replications=200),
        "paper": Profile("paper", n_replications=2000),
    },
    chunk_size=5,
    cost=Cost(seconds_per_replication=0.02),
    provides=Provides(paired_scores=ScoreLayout(groups=("mu",), sizes=kfold_sizes)),
)
