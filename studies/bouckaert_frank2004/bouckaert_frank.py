"""Bouckaert and Frank (2004), simulation table: replicability of the tests on the Bayesian-network sources.

One replication is one data set of 300 instances from one of Bouckaert's four
sources (``simstudy/pipeline/sources/networks``), compared with C4.5 (Weka's J48, A) and
naive Bayes (B).  On it, each test is run ``n_experiments`` = 10 times, every time
on a new random partition or subsample, which is what replicability is about:

* ``5x2cv t`` and ``5x2cv F``: 5 runs of 2-fold stratified cv (Dietterich; Alpaydin);
* ``resampled`` / ``corrected resampled`` (Nadeau-Bengio) with 10 and 100 random
  splits of 90% training, 10% test (the 10-split tests use the first 10 of the 100
  splits: the same fits serve both);
* ``10-fold cv``: the paired t-test on one 10-fold cv;
* ``10x10 cv`` and ``corrected 10x10 cv``: all 100 folds of 10 repeated 10-fold cvs,
  without and with the variance correction (the 10-fold cv test uses its first run).

All tests of one experiment therefore share three designs (5 x 2 folds, 100
subsamples, 10 x 10 folds): 210 fits of each learner per experiment instead of
the 330 the tests would need separately.

Summary per source and test: rejection rate, R2 averaged over data sets (Bouckaert
and Frank report it without normalisation), and the share of data sets on which
all 10 experiments agree (their "consistent").  Their printed numbers were lost in
the extraction (SPEC section 4), so there is nothing published to compare with;
the text's claims are checked by the report from 95% intervals with the data set
as the unit (:func:`simstudy.protocols.bouckaert_frank.check_claims`): the
corrected tests and the 5x2cv test have a Type I error near alpha on source 1,
and the corrected tests are more replicable than the uncorrected ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from simstudy._lazy import lazy_module
from simstudy.apps.evidence import LabelledOutcomes
from simstudy.engine import Cost, Profile, Provides, Publication, Study
from simstudy.engine.study import settings_of
from simstudy.errors import InputError
from simstudy.pipeline.designs import FIVE_BY_TWO, RepeatedKFold
from simstudy.pipeline.scores import ScoreLayout
from simstudy.protocols import bouckaert_frank as bf
from simstudy.protocols.bouckaert import SOURCES, network_source, nominal_learner_factories

pd = lazy_module("pandas")

LEARNERS = ("weka.J48", "weka.NaiveBayes")
PAIRS = {"C4.5-NB": (0, 1)}


@dataclass(frozen=True)
class Settings:
    """Profile settings: the sources, the repetitions of an experiment, its subsamples and cv runs."""

    sources: tuple = SOURCES
    n_experiments: int = 10
    n_resamples: int = 100
    n_cv_runs: int = 10


@dataclass(frozen=True)
class FrankCondition:
    source: str
    n_cases: int = 300
    n_experiments: int = 10
    n_resamples: int = 100
    n_cv_runs: int = 10
    alpha: float = 0.05

    def __post_init__(self):
        if not 0.0 < self.alpha < 1.0:
            raise InputError(f"alpha: must be strictly between 0 and 1, got {self.alpha!r}")
        if self.n_resamples < 10 or self.n_cv_runs < 1 or self.n_experiments < 2:
            raise InputError(
                "n_resamples >= 10, n_cv_runs >= 1 and n_experiments >= 2 are needed, got "
                f"{self.n_resamples}, {self.n_cv_runs}, {self.n_experiments}"
            )
        if self.source not in SOURCES:
            raise InputError(f"source: unknown source {self.source!r}; choose from {', '.join(SOURCES)}")

    @property
    def key(self) -> str:
        return self.source


def conditions(profile: Profile):
    s = settings_of(profile, Settings)
    return [
        FrankCondition(src, n_experiments=s.n_experiments, n_resamples=s.n_resamples, n_cv_runs=s.n_cv_runs)
        for src in s.sources
    ]


def replicate(cond: FrankCondition, rng):
    X, y = network_source(cond.source).sample(cond.n_cases, rng)
    X = X.astype(float)
    learners = nominal_learner_factories(LEARNERS, X.shape[1])
    rows, scores = [], []
    for e in range(cond.n_experiments):
        out, sc = bf.experiment(cond, X, y, rng, learners, PAIRS, names=("a", "b"))
        rows.append(out.assign(experiment=e))
        scores.append(sc.assign(experiment=e))
    return {"outcomes": pd.concat(rows, ignore_index=True), "scores": pd.concat(scores, ignore_index=True)}


def _sizes(rows, design):
    # the subsamples hold out about 10% of each class: the stored tests used the exact split sizes of
    # their data set, a bench uses the rounded share of all cases
    n = int(rows["n_cases"].iloc[0])
    if design == "subsample":
        return n - round(0.1 * n), round(0.1 * n)
    return (FIVE_BY_TWO if design == "5x2" else RepeatedKFold(1, 10)).sizes(n)


def summarize(run) -> dict[str, pd.DataFrame]:
    from simstudy.outputs.published import reduced_scale

    out = run.table("outcomes")
    tables = bf.summarize_by(out, "source")
    alpha = float(out["alpha"].iloc[0]) if "alpha" in out else FrankCondition.alpha
    claims = bf.check_claims(
        tables["tests"], bf.per_dataset(out, "source"), alpha, published_scale=reduced_scale(STUDY, run) is None
    )
    return {"claims": claims, **tables}


def _procedures(fields: dict) -> list:
    """The procedures of the paper's test labels (see :data:`evidence`), for a set-up's resamples and cv runs."""
    n_res, n_cv = int(fields["n_resamples"]), int(fields["n_cv_runs"])
    labels = [
        ("5x2cv t", "5x2cv", "", "5x2cv_t"),
        ("5x2cv F", "5x2cv", "", "5x2cv_f"),
        ("10-fold cv", f"cv{n_cv}x10", "kfold_cv", "paired_t"),
        ("10-fold cv", "cv1x10", "kfold_cv", "paired_t"),
        ("corrected 1x10 cv", "cv1x10", "", "corrected_cv_t"),
        (f"{n_cv}x10 cv", f"cv{n_cv}x10", "", "cv_t"),
        (f"corrected {n_cv}x10 cv", f"cv{n_cv}x10", "", "corrected_cv_t"),
    ]
    return labels + [
        (f"{c}resampled {r}x", f"resampled{r}", "", t)
        for r in range(2, n_res + 1)
        for c, t in (("", "resampled_t"), ("corrected ", "corrected_resampled_t"))
    ]


#: The stored rows as evidence for applications such as ``simstudy assess`` (:mod:`simstudy.apps.evidence`).
#: The first pair of learners (C4.5 as A, naive Bayes as B).  Its tests as designs of the grammar: ``5x2cv t`` /
#: ``F`` on ``5x2cv``; ``resampled Rx`` and ``corrected resampled Rx`` on ``resampledR`` (90/10 splits); the
#: ``Rx10 cv`` tests (``cv_t``, ``corrected_cv_t``) on ``cvRx10``; the ``10-fold cv`` t-test is the paired t-test
#: on the first run of that cv, the ``kfold_cv`` scheme of ``cvRx10`` and of ``cv1x10``, and ``corrected 1x10 cv``
#: the corrected cv t-test on ``cv1x10``.  Source 1 is the null (no dependence); on sources 2-4 C4.5 is better,
#: each calibrated by source 1.  Only decisions at alpha are stored: the sign of a non-significant row is NaN.
evidence = LabelledOutcomes(
    "bouckaert_frank",
    _procedures,
    null=SOURCES[0],
    alpha=FrankCondition.alpha,
    by=("n_resamples", "n_cv_runs"),
    keep=("pair", next(iter(PAIRS))),
)


STUDY = Study(
    name="bouckaert_frank",
    title="Bouckaert and Frank 2004: replicability of 5x2cv, resampled and cv t-tests on the Bayesian-network sources",
    conditions=conditions,
    replicate=replicate,
    summarize=summarize,
    settings=Settings,
    profiles={
        "smoke": Profile("smoke", n_replications=2, settings={"n_experiments": 2, "n_resamples": 10, "n_cv_runs": 2}),
        "quick": Profile("quick", n_replications=25),
        "paper": Profile("paper", n_replications=100),
    },
    chunk_size=5,
    # a split: fitting and testing J48 and naive Bayes on it; an experiment: its three designs' tests
    cost=Cost(
        work=lambda c: {
            "experiment": c.n_experiments,
            "split": c.n_experiments * (10 + c.n_resamples + 10 * c.n_cv_runs),
        }
    ),
    publication=Publication(
        notes="The paper's numbers were lost in the extraction: only its claims can be checked.",
        interval_note="Intervals in the tables are 95% Monte Carlo intervals with the data set as the unit.",
    ),
    provides=Provides(
        evidence=evidence,
        paired_scores=ScoreLayout(
            groups=("source",),
            experiment="experiment",
            pairs={"C4.5-NB": ("acc_a", "acc_b")},
            pair_column="pair",
            variants=("test",),
            design_column="design",
            sizes=_sizes,
        ),
    ),
)
