"""Bouckaert and Frank (2004) on the UCI data sets we ship: NB, C4.5 and NN, every test, 10 repetitions.

For each shipped data set (``simstudy.data.uci``), one replication is one
*repetition* of the whole experiment: new 5 x 2 folds, 100 new subsamples and new
10 x 10 folds (see ``studies/bouckaert_frank.py``), NB, C4.5 and NN fitted once per
split, and every test on the three pairs.  The paper repeats it 10 times per data
set; a test is "consistent" on a data set when all 10 repetitions agree.

Summary (the paper's tables, their numbers lost in the extraction): per data set,
pair and test the number of rejections out of 10; per test the number of data set
x pair combinations on which it is consistent and its mean R2; R2 against the
number of resampling runs (10..100) and against the significance level (from the
stored p-values).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from simstudy.engine import Profile, Study
from simstudy.learners import IB1, J48, WekaNaiveBayes

from . import bouckaert2, bouckaert_frank

PAIRS = {"NB-C4.5": (0, 1), "NB-NN": (0, 2), "C4.5-NN": (1, 2)}


@dataclass(frozen=True)
class UciCondition:
    dataset: str
    n_resamples: int = 100
    n_cv_runs: int = 10
    alpha: float = 0.05

    def __post_init__(self):
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha: must be strictly between 0 and 1, got {self.alpha!r}")
        if self.n_resamples < 10 or self.n_cv_runs < 1:
            raise ValueError(f"n_resamples >= 10 and n_cv_runs >= 1 are needed, got {self.n_resamples}, {self.n_cv_runs}")

    @property
    def key(self) -> str:
        return self.dataset.replace(" ", "_")


def conditions(profile: Profile):
    s = profile.settings
    names = s.get("datasets") or bouckaert2.available_sets()
    return [UciCondition(name, n_resamples=s.get("n_resamples", 100), n_cv_runs=s.get("n_cv_runs", 10))
            for name in names]


def validate(cond: UciCondition):
    cond.__post_init__()
    bouckaert2.validate(bouckaert2.DataSetCondition(cond.dataset))


def replicate(cond: UciCondition, rng):
    X, y, nominal, data = bouckaert2._load(cond.dataset)
    n_cats = tuple(len(c) if c is not None else 0 for c in data.categories)
    n_classes = len(data.class_categories)
    learners = tuple((lambda cls=cls: cls(nominal=nominal, n_categories=n_cats, n_classes=n_classes))
                     for cls in (WekaNaiveBayes, J48, IB1))
    rows = bouckaert_frank.experiment(cond, X, y, rng, learners, PAIRS)
    return {"outcomes": rows}


def summarize(run) -> dict[str, pd.DataFrame]:
    out = run.table("outcomes")
    # here a replication is one repetition of the experiment on the one fixed data set
    out = out.assign(experiment=out["replication"], replication=0)
    tables = bouckaert_frank.summarize_by(out, "dataset")
    t = tables["tests"]
    tables["rejections"] = t.pivot_table(index=["dataset", "pair"], columns="test", values="rejections",
                                         sort=False).reset_index()
    tables["per_test"] = t.groupby("test", sort=False).agg(
        consistent=("consistent", lambda c: int((c == 100).sum())), combinations=("consistent", "size"),
        mean_r2=("r2", "mean")).reset_index()
    return tables


STUDY = Study(
    name="bouckaert_frank_uci",
    title="Bouckaert and Frank 2004 on the shipped UCI data: NB, C4.5, NN; 5x2cv, resampled and cv t-tests, 10 repetitions",
    conditions=conditions,
    replicate=replicate,
    summarize=summarize,
    validate=validate,
    reference={"published": [], "interval_note": "The paper's numbers were lost; our tables follow."},
    profiles={
        "smoke": Profile("smoke", n_replications=2, settings={"datasets": ["iris", "labor"], "n_resamples": 10,
                                                               "n_cv_runs": 2}),
        "quick": Profile("quick", n_replications=10, settings={"n_resamples": 30, "n_cv_runs": 3}),
        "paper": Profile("paper", n_replications=10),
    },
    seconds_per_replication=lambda c: (10 + c.n_resamples + 10 * c.n_cv_runs) * 3 * 0.02,
    chunk_size=1,
)
