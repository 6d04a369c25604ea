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

from simstudy._lazy import lazy_module
from simstudy.engine import Cost, Profile, Provides, Publication, Study
from simstudy.engine.study import Figure, settings_of
from simstudy.errors import InputError
from simstudy.outputs.plots import berrar_t_figure
from simstudy.outputs.tables import Published
from simstudy.pipeline.designs import RepeatedKFold
from simstudy.pipeline.scores import PairedScores, ScoreLayout, fold_predictions, kfold_sizes
from simstudy.pipeline.sources import berrar_cv_source
from simstudy.protocols import berrar

from ._table1 import row as table1_row

pd = lazy_module("pandas")
_learners = lazy_module("simstudy.pipeline.learners")


@dataclass(frozen=True)
class Settings:
    """Profile settings: the oracle's percentages q."""

    q_values: tuple = tuple(range(1, 21))


@dataclass(frozen=True)
class OracleDesign:
    n_cases: int = 1000
    n_features: int = 20
    n_folds: int = 10
    q_values: tuple = tuple(range(1, 21))

    def __post_init__(self):
        if not 2 <= self.n_folds <= self.n_cases:
            raise InputError(f"n_folds: must be between 2 and n_cases ({self.n_cases}), got {self.n_folds}")
        if not all(0 <= q <= 100 for q in self.q_values):
            raise InputError(f"q_values: percentages must lie in [0, 100], got {self.q_values}")

    @property
    def key(self) -> str:
        return f"n{self.n_cases}-d{self.n_features}-k{self.n_folds}"

    @property
    def design(self) -> RepeatedKFold:
        return RepeatedKFold(1, self.n_folds)


def conditions(profile: Profile):
    return [OracleDesign(q_values=tuple(settings_of(profile, Settings).q_values))]


def replicate(cond: OracleDesign, rng):
    X, y = berrar_cv_source(cond.n_features).sample(cond.n_cases, rng)
    fold_ids = cond.design.fold_ids(y, rng)
    correct = fold_predictions(X, y, fold_ids, _learners.learner_class("e1071.svm"))[0] == y  # one SVM fit per fold
    correct = [correct[fold_ids[0] == f] for f in range(cond.n_folds)]
    acc_svm = np.array([c.mean() for c in correct])
    acc_o = np.empty((len(cond.q_values), cond.n_folds))
    for i, q in enumerate(cond.q_values):
        for f, c in enumerate(correct):
            m = int(round(q * c.size / 100.0))
            revealed = rng.choice(c.size, size=m, replace=False)
            fixed = c.copy()
            fixed[revealed] = True
            acc_o[i, f] = fixed.mean()
    n_train, n_test = cond.design.sizes(y)
    acc_b = np.broadcast_to(acc_svm, acc_o.shape)
    scores = pd.DataFrame(
        {
            "q": np.repeat(cond.q_values, cond.n_folds),
            "fold": np.tile(np.arange(cond.n_folds), len(cond.q_values)),
            "acc_a": acc_o.ravel(),
            "acc_b": acc_b.ravel(),
        }
    )
    paired = PairedScores(acc_o[:, None, :], acc_b[:, None, :], n_train=n_train, n_test=n_test)
    return {"scores": scores, "outcomes": berrar.cv_outcomes(paired, index={"q": list(cond.q_values)})}


summarize = partial(berrar.cv_summary, by="q", df=9)

S3 = "Berrar, Sect. 3.2.1"
# What was measured on the values outside our paper-scale intervals (benchmarks/berrar_outside.py s3, s3-folds).
NOTE_Q3_T = (
    "Tried (paired replications): the variance divided by k (+0.129) or n_test/n = 0.1 "
    "(+0.065) reach 2.49 but raise the share significant by 0.19 (the published 496 of 1000 lies inside ours); "
    "30 cases revealed anywhere -0.31; with replacement +0.03 [-0.03, 0.10]; a new partition per fold "
    "(Algorithm 3 literally) +0.04 [-0.04, 0.12], not resolved; rounding is moot (folds of 100). "
    "2.6 standard errors of the difference of two runs."
)
NOTE_Q3_FOLLOWS = (
    "Follows from the mean t: with df = 9 the published mean 2.493 gives p 0.0343 and P_t 0.604 as published "
    "(df 8: 0.0373, 0.591; df 18: 0.0226, 0.655)."
)
K = 1000  # replications behind each published Monte Carlo estimate
PUBLISHED = [
    Published("q = 2: mean t", "t", "mean_statistic", 1.9364, (("q", 2),), S3, replications=K),
    Published("q = 2: p-value of mean t", "t", "t_p", 0.0848, (("q", 2),), S3, replications=K),
    Published(
        "q = 2: share of replications significant (200 of 1000)",
        "t",
        "share_significant",
        0.200,
        (("q", 2),),
        S3,
        replications=K,
    ),
    Published(
        "q = 3: mean t",
        "t",
        "mean_statistic",
        2.493,
        (("q", 3),),
        S3,
        note=NOTE_Q3_T,
        replications=K,
        cause="not found",
    ),
    Published(
        "q = 3: p-value of mean t",
        "t",
        "t_p",
        0.0343,
        (("q", 3),),
        S3,
        note=NOTE_Q3_FOLLOWS,
        replications=K,
        cause="found",
    ),
    Published(
        "q = 3: share of replications significant (496 of 1000)",
        "t",
        "share_significant",
        0.496,
        (("q", 3),),
        S3,
        replications=K,
    ),
    Published("q = 3: empirical F", "t", "F", 0.495, (("q", 3),), S3, replications=K),
    Published("q = 3: P_t", "t", "t_P", 0.604, (("q", 3),), S3, note=NOTE_Q3_FOLLOWS, replications=K, cause="found"),
    Published("q = 4: p-value of mean t", "t", "t_p", 0.0205, (("q", 4),), S3, replications=K),
    Published("q = 4: P_t", "t", "t_P", 0.7054, (("q", 4),), S3, replications=K),
    Published("q = 4: empirical F", "t", "F", 0.6967, (("q", 4),), S3, replications=K),
    Published("q = 7: p-value of mean t", "t", "t_p", 0.00427, (("q", 7),), S3 + ", Table 1", replications=K),
    Published("q = 7: empirical F", "t", "F", 0.96597, (("q", 7),), S3 + ", Table 1", replications=K),
    Published("q = 7: P_t", "t", "t_P", 0.91996, (("q", 7),), S3 + ", Table 1", replications=K),
]

STUDY = Study(
    name="berrar3",
    title="Berrar study 3: SVM vs SVM with an oracle, 10-fold CV (Algorithm 3)",
    conditions=conditions,
    replicate=replicate,
    summarize=summarize,
    settings=Settings,
    profiles={
        "smoke": Profile("smoke", n_replications=6, settings={"q_values": (2, 3, 7)}),
        "quick": Profile("quick", n_replications=500),
        "paper": Profile("paper", n_replications=1000),
    },
    chunk_size=10,
    cost=Cost(work=lambda c: {"replication": 1}),
    publication=Publication(
        figures=(
            Figure(
                "figure13",
                partial(berrar_t_figure, title="Study 3: SVM with oracle vs SVM", group="q", first=3),
                "Berrar, Figure 13: replication probability against the p-value of the corrected t-test",
            ),
        ),
        notes="The q = 3 group's p-value and P_t follow from its mean t (see its note).",
        values=PUBLISHED,
        cross_study=(
            table1_row("q = 7", 0.00427, 0.91996, 0.96597, -0.04601, summary="t", models=("t",), group_column="q"),
        ),
    ),
    provides=Provides(
        paired_scores=ScoreLayout(groups=("q",), axes=("fold",), variants=("test",), sizes=kfold_sizes),
        forecasts=berrar.cv_forecasts,
    ),
)
