"""Berrar, study 3: SVM vs the same SVM with an oracle, 10-fold cross-validation (Algorithm 3).

SVM_o (classifier A) is an identical copy of SVM (B) except that an oracle
replaces its predictions for q% of every validation fold by the true labels.
Because SVM_o *is* SVM, one SVM fit per fold serves every q: a replication draws
one learning set and one partition, fits the SVM once per fold, and then applies
the oracle for each q in turn with its own random choice of revealed cases.
Each q-group therefore still consists of k independent replications (different
learning sets); the groups share their learning sets, which only makes the
comparison across q paired.  This cuts the fits of the paper's design by a factor
of len(Q) = 20.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from simstudy.compare import Published
from simstudy.engine import Profile, Study
from simstudy.learners import E1071SVC
from simstudy.sources import berrar_cv_source
from simstudy.splits import folds, stratified_fold_ids

from . import _berrar_cv as cv


@dataclass(frozen=True)
class OracleDesign:
    n_cases: int = 1000
    n_features: int = 20
    n_folds: int = 10
    q_values: tuple = tuple(range(1, 21))

    def __post_init__(self):
        if not 2 <= self.n_folds <= self.n_cases:
            raise ValueError(f"n_folds: must be between 2 and n_cases ({self.n_cases}), got {self.n_folds}")
        if not all(0 <= q <= 100 for q in self.q_values):
            raise ValueError(f"q_values: percentages must lie in [0, 100], got {self.q_values}")

    @property
    def key(self) -> str:
        return f"n{self.n_cases}-d{self.n_features}-k{self.n_folds}"


def conditions(profile: Profile):
    return [OracleDesign(q_values=tuple(profile.settings.get("q_values", range(1, 21))))]


def validate(condition):
    condition.__post_init__()


def replicate(cond: OracleDesign, rng):
    X, y = berrar_cv_source(cond.n_features).sample(cond.n_cases, rng)
    fold_ids = stratified_fold_ids(y, cond.n_folds, rng)
    correct, sizes = [], []
    for train, test in folds(fold_ids):
        pred = E1071SVC().fit(X[train], y[train]).predict(X[test])
        correct.append(pred == y[test])
        sizes.append((train.size, test.size))
    acc_svm = np.array([c.mean() for c in correct])
    diffs, scores = [], []
    for q in cond.q_values:
        acc_o = np.empty(cond.n_folds)
        for f, c in enumerate(correct):
            m = int(round(q * c.size / 100.0))
            revealed = rng.choice(c.size, size=m, replace=False)
            fixed = c.copy()
            fixed[revealed] = True
            acc_o[f] = fixed.mean()
        diffs.append(acc_o - acc_svm)
        scores += [{"q": q, "fold": f, "acc_a": float(a), "acc_b": float(b)} for f, (a, b) in enumerate(zip(acc_o, acc_svm))]
    n_train, n_test = sizes[0]
    outcomes = cv.t_test_rows(np.array(diffs), n_train, n_test, [{"q": q} for q in cond.q_values])
    return {"scores": scores, "outcomes": outcomes}


summarize = partial(cv.summarize_t, by="q", df=9)

S3 = "Berrar, Sect. 3.2.1"
PUBLISHED = [
    Published("q = 2: mean t", "t", "mean_statistic", 1.9364, (("q", 2),), S3),
    Published("q = 2: p-value of mean t", "t", "t_p", 0.0848, (("q", 2),), S3),
    Published("q = 2: share of replications significant (200 of 1000)", "t", "share_significant", 0.200, (("q", 2),), S3),
    Published("q = 3: mean t", "t", "mean_statistic", 2.493, (("q", 3),), S3),
    Published("q = 3: p-value of mean t", "t", "t_p", 0.0343, (("q", 3),), S3),
    Published("q = 3: share of replications significant (496 of 1000)", "t", "share_significant", 0.496, (("q", 3),), S3),
    Published("q = 3: empirical F", "t", "F", 0.495, (("q", 3),), S3),
    Published("q = 3: P_t", "t", "t_P", 0.604, (("q", 3),), S3),
    Published("q = 4: p-value of mean t", "t", "t_p", 0.0205, (("q", 4),), S3),
    Published("q = 4: P_t", "t", "t_P", 0.7054, (("q", 4),), S3),
    Published("q = 4: empirical F", "t", "F", 0.6967, (("q", 4),), S3),
    Published("q = 7: p-value of mean t", "t", "t_p", 0.00427, (("q", 7),), S3 + ", Table 1"),
    Published("q = 7: empirical F", "t", "F", 0.96597, (("q", 7),), S3 + ", Table 1"),
    Published("q = 7: P_t", "t", "t_P", 0.91996, (("q", 7),), S3 + ", Table 1"),
]

STUDY = Study(
    name="berrar3",
    title="Berrar study 3: SVM vs SVM with an oracle, 10-fold CV (Algorithm 3)",
    conditions=conditions,
    replicate=replicate,
    summarize=summarize,
    validate=validate,
    profiles={
        "smoke": Profile("smoke", n_replications=6, settings={"q_values": (2, 3, 7)}),
        "quick": Profile("quick", n_replications=500),
        "paper": Profile("paper", n_replications=1000),
    },
    reference={"published": PUBLISHED},
    seconds_per_replication=0.18,  # measured: 300 replications (all 20 q each) in 27 s on 2 workers
    chunk_size=10,
)
