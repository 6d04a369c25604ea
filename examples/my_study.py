"""A study written outside the package: naive Bayes against a decision tree on subsamples of a real data set.

Run it like any built-in study, by its path (every command takes one)::

    simstudy run examples/my_study.py --profile smoke
    simstudy compare examples/my_study.py --profile smoke
    simstudy bench examples/my_study.py --profile smoke --test welch_t
    simstudy report --profile smoke --study examples/my_study.py

Its shape is a simulation design's: the conditions (subsample sizes and the
design), the data of one replication (``n_cases`` cases drawn without
replacement from scikit-learn's breast-cancer data), the comparison (both
learners fitted once per split, every registered test the design allows on the
same fits, every sample test on every sampling scheme; the tree's
``random_state`` drawn from the replication's stream), and the profiles.
A test registered later appears here without a change to this file.
"""

from dataclasses import dataclass

from sklearn.datasets import load_breast_cancer
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from simstudy import SCHEMES, Comparison, Profile, Provides, Study, settings_of


@dataclass(frozen=True)
class Settings:
    sizes: tuple = (100, 300)
    design: str = "cv10x10"


@dataclass(frozen=True)
class Condition:
    n_cases: int
    design: str = "cv10x10"
    alpha: float = 0.05

    @property
    def key(self) -> str:
        return f"n{self.n_cases}"


def conditions(profile):
    s = settings_of(profile, Settings)
    return [Condition(n, s.design) for n in s.sizes]


def comparison(c):
    return Comparison((GaussianNB(), DecisionTreeClassifier()), designs=(c.design,), alpha=c.alpha, schemes=SCHEMES)


def replicate(cond, rng):
    X, y = load_breast_cancer(return_X_y=True)
    rows = rng.choice(y.size, size=cond.n_cases, replace=False)
    return comparison(cond).run(X[rows], y[rows], rng)


STUDY = Study(
    name="my_study",
    title="Naive Bayes vs a decision tree on subsamples of the breast-cancer data (an example study file)",
    conditions=conditions,
    replicate=replicate,
    settings=Settings,
    profiles={
        "smoke": Profile("smoke", n_replications=4, settings={"sizes": (100,), "design": "cv2x5"}),
        "quick": Profile("quick", n_replications=100),
        "paper": Profile("paper", n_replications=1000),
    },
    provides=Provides(paired_scores=comparison(Condition(100)).layout(groups=("n_cases",))),
)
