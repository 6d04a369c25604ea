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

import numpy as np

from simstudy.engine import Profile, Study
from simstudy.hypothesis import corrected_repeated_cv_t_test, paired_t_test, sign_test, signed_rank_test
from simstudy.schemes import SCHEMES, scheme_sample
from simstudy.sources import GaussianClasses
from simstudy.splits import folds, repeated_fold_ids

ALPHA = 0.05
TESTS = {"t": paired_t_test, "sign": sign_test, "rank": signed_rank_test}


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
            raise ValueError(f"n_cases: need at least 4 cases, got {self.n_cases}")
        if not 2 <= self.n_folds <= self.n_cases // 2:
            raise ValueError(f"n_folds: must be between 2 and n_cases / 2 ({self.n_cases // 2}), got {self.n_folds}")
        if self.n_runs < 1:
            raise ValueError(f"n_runs: must be >= 1, got {self.n_runs}")

    @property
    def key(self) -> str:
        return f"mu{self.mu:g}"


class _Majority:
    def fit(self, X, y):
        values, counts = np.unique(y, return_counts=True)
        self.label_ = values[np.argmax(counts)]
        return self

    def predict(self, X):
        return np.full(X.shape[0], self.label_)


def conditions(profile: Profile):
    s = profile.settings
    return [DemoCondition(mu, fail_every=s.get("fail_every", 0)) for mu in s.get("mu", (0.0, 0.8))]


def validate(condition):
    condition.__post_init__()


def replicate(cond: DemoCondition, rng):
    from sklearn.naive_bayes import GaussianNB

    if cond.fail_every and rng is not None and _should_fail(cond, rng):
        raise RuntimeError("injected failure")
    X, y = GaussianClasses(cond.n_features, mu=cond.mu).sample(cond.n_cases, rng)
    ids = repeated_fold_ids(y, cond.n_runs, cond.n_folds, rng)
    acc = np.empty((cond.n_runs, cond.n_folds, 2))
    for r in range(cond.n_runs):
        for f, (train, test) in enumerate(folds(ids[r])):
            for j, model in enumerate((GaussianNB(), _Majority())):
                acc[r, f, j] = np.mean(model.fit(X[train], y[train]).predict(X[test]) == y[test])
    diffs = acc[..., 0] - acc[..., 1]
    scores = [{"run": r, "fold": f, "acc_a": acc[r, f, 0], "acc_b": acc[r, f, 1]}
              for r in range(cond.n_runs) for f in range(cond.n_folds)]
    outcomes = []
    for scheme in SCHEMES:
        sample = scheme_sample(diffs, scheme)
        for test, fn in TESTS.items():
            res = fn(sample)
            outcomes.append({"scheme": scheme, "test": test, "statistic": float(res.statistic),
                             "pvalue": float(res.pvalue), "decision": int(res.decision(ALPHA))})
    n_test = cond.n_cases // cond.n_folds
    res = corrected_repeated_cv_t_test(diffs, n_train=cond.n_cases - n_test, n_test=n_test)
    outcomes.append({"scheme": "use_all_data", "test": "corrected_t", "statistic": float(res.statistic),
                     "pvalue": float(res.pvalue), "decision": int(res.decision(ALPHA))})
    return {"scores": scores, "outcomes": outcomes}


def _should_fail(cond, rng) -> bool:
    # decided from the stream itself so that the failure is a property of the replication's seed
    return int(rng.integers(cond.fail_every)) == 0


STUDY = Study(
    name="demo",
    title="Demonstration: naive Bayes vs majority class on Gaussian classes, toy repeated CV",
    conditions=conditions,
    replicate=replicate,
    validate=validate,
    profiles={
        "smoke": Profile("smoke", n_replications=20),
        "quick": Profile("quick", n_replications=200),
        "paper": Profile("paper", n_replications=2000),
    },
    seconds_per_replication=0.02,
    chunk_size=5,
)
