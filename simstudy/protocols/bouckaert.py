"""Bouckaert (2004): sources, repeated cross-validation experiments, UCI data, the significance-level table.

An *experiment* on one data set is an ``n_runs`` x ``n_folds`` repeated
stratified cross-validation; it is made ``n_experiments`` times with new
partitions, which is what replicability is about.  The partitions of all
experiments are drawn first, then every learner is fitted once per fold of all
of them (:func:`experiment_accuracies`), so every test and every pair of
learners sees the same fits.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import InputError
from simstudy.pipeline.designs import RepeatedKFold
from simstudy.pipeline.scores import cv_accuracies, scores_frame
from simstudy.pipeline.sources.bayesnet import NETWORKS_DIR, load_source, read_source, stored_sources
from simstudy.statistics.replicability import normalized, r2

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")
_learners = lazy_module("simstudy.pipeline.learners")

__all__ = [
    "SOURCES",
    "RepeatedCVCondition",
    "network_source",
    "source_info",
    "experiment_accuracies",
    "scores_frame",
    "alpha_factor",
    "ALPHAS",
    "UCI_SETS",
    "available_sets",
    "load_uci_for_learning",
    "uci_learner_factories",
    "nominal_learner_factories",
]

SOURCES = ("bouckaert1", "bouckaert2", "bouckaert3", "bouckaert4")
FACTOR_JSON = "factor_sources.json"
ALPHAS = (0.01, 0.025, 0.05, 0.10)


@dataclass(frozen=True)
class RepeatedCVCondition:
    """A data set of ``n_cases`` from ``source`` per replication; ``n_experiments`` repetitions of an
    ``n_runs`` x ``n_folds`` stratified cv on it; tests at ``alpha``."""

    source: str
    n_cases: int = 300
    n_runs: int = 10
    n_folds: int = 10
    n_experiments: int = 10
    alpha: float = 0.05

    def __post_init__(self):
        if not 0.0 < self.alpha < 1.0:
            raise InputError(f"alpha: must be strictly between 0 and 1, got {self.alpha!r}")
        if not 2 <= self.n_folds <= self.n_cases // 2:
            raise InputError(
                f"n_folds: must be between 2 and half the number of cases ({self.n_cases // 2}), got {self.n_folds}"
            )
        for name in ("n_runs", "n_experiments"):
            if getattr(self, name) < 1:
                raise InputError(f"{name}: must be >= 1, got {getattr(self, name)}")
        if self.n_experiments < 2:
            raise InputError(f"n_experiments: replicability needs at least 2 experiments, got {self.n_experiments}")

    @property
    def key(self) -> str:
        return self.source

    @property
    def design(self) -> RepeatedKFold:
        return RepeatedKFold(self.n_runs, self.n_folds)


# -- sources --------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _factor_meta() -> dict:
    path = NETWORKS_DIR / FACTOR_JSON
    if not path.exists():
        return {}
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)["sources"]


def source_info(name: str) -> dict:
    """What a study needs to know about a shipped network: prior, classes, whether it is a true null, its gap."""
    stored = stored_sources()
    if name in stored:
        m = stored[name]
        independent = m["made_by"]["generator"] == "independent_source"
        return {
            "source": name,
            "file": m["file"],
            "n_classes": 2,
            "prior": 0.5,
            "independent": independent,
            "true_null": independent,
            "gap": m["gap"],
            "gap_se": m["gap_se"],
        }
    meta = _factor_meta()
    if name not in meta:
        known = sorted(set(stored) | set(meta))
        raise InputError(
            f"source: unknown source {name!r}; stored: {', '.join(known)} "
            f"(factor sources are made by scripts/networks/make_factor_sources.py)"
        )
    m = meta[name]
    prior = m["class_prior"][1] if m["n_classes"] == 2 else 1.0 / m["n_classes"]
    return {
        "source": name,
        "file": m["file"],
        "n_classes": m["n_classes"],
        "prior": float(prior),
        "independent": m["independent"],
        "true_null": m["true_null"],
        "gap": m["gap"],
        "gap_se": m["gap_se"],
    }


@lru_cache(maxsize=None)
def network_source(name: str):
    """A shipped Bayesian-network source, parsed once per process (reading XMLBIF imports pgmpy)."""
    if name in stored_sources():
        return load_source(name)
    return read_source(NETWORKS_DIR / source_info(name)["file"])


# -- experiments ----------------------------------------------------------------------------


def experiment_accuracies(X, y, cond, rng, learners) -> np.ndarray:
    """Per-fold accuracies of every learner in every experiment: (experiments, runs, folds, L).

    The partitions of all experiments are drawn first (in experiment order, from
    ``cond.design``), then each learner is fitted once per fold of all of them in one call.
    """
    ids = np.concatenate([cond.design.fold_ids(y, rng) for _ in range(cond.n_experiments)])
    acc = cv_accuracies(X, y, ids, learners)
    return acc.reshape(cond.n_experiments, cond.n_runs, cond.n_folds, -1)


def _classes(learners):
    return tuple(_learners.learner_class(c) if isinstance(c, str) else c for c in learners)


def nominal_learner_factories(learners, n_attributes: int):
    """Factories of the Weka learners (registered names or classes) told that all ``n_attributes`` are nominal."""
    nominal = np.ones(n_attributes, dtype=bool)
    return tuple((lambda c=c: c(nominal=nominal)) for c in _classes(learners))


def alpha_factor(out: pd.DataFrame, alphas=ALPHAS, *, published_scale: bool = False) -> pd.DataFrame:
    """The paper's "significance level" experiment, recomputed from the stored p-values.

    For each level: the rejection rate per source (Type I error on source 1, power
    on 2-4) and the mean normalised replicability of accept/reject outcomes
    (two-valued here: the direction is not needed to re-threshold a p-value),
    with the paper's claim checked for sorted runs: Type I error <= alpha + 1%.

    The Type I error has a 95% Monte Carlo interval with the data set
    (``replication``) as the unit, as the rates of Table 1: the rate +- t quantile
    x the standard error of the data sets' rejection shares (``type1_mc_low``,
    ``type1_mc_high``; none from a single data set).  ``type1_within_alpha_plus_1``
    is the claim's verdict from that interval
    (:func:`simstudy.statistics.intervals.limit_verdict`): "holds" when its upper end is at
    or below alpha + 1%, "does not hold" when its lower end is above it, else
    not resolved (``published_scale``: whether the run is at the study's
    published scale, which sets the wording).
    """
    from simstudy.statistics.intervals import interval_quantile, limit_verdict

    keys = ["scheme", "test", "source"]
    rows = []
    for a in alphas:
        rej = (out["pvalue"] <= a).astype(int)
        df = out.assign(reject=rej)
        rate = df.groupby(keys, sort=False)["reject"].mean().mul(100).unstack("source")
        share = df.groupby([*keys, "replication"], sort=False)["reject"].mean().groupby(keys, sort=False)
        n, sd = share.size(), share.std(ddof=1)  # sd is NaN for one data set: no interval, not one of zero width
        half = pd.Series(
            100 * interval_quantile(n.to_numpy()) * sd.to_numpy() / np.sqrt(n.to_numpy()), index=sd.index
        ).unstack("source")
        per_set = df.groupby([*keys, "replication"], sort=False)["reject"].agg(lambda d: float(r2(d.to_numpy())))
        norm = per_set.groupby(keys, sort=False).mean().map(lambda v: 100 * float(normalized(v))).unstack("source")
        for (scheme, test), r in rate.iterrows():
            row = {"alpha": a, "scheme": scheme, "test": test}
            for src in r.index:
                row["type1" if src == "bouckaert1" else f"power{src[-1]}"] = r[src]
            row["min_norm_r2"] = norm.loc[(scheme, test)].min()
            if "type1" in row:
                h = half.loc[(scheme, test), "bouckaert1"]
                row["type1_mc_low"] = float(np.clip(row["type1"] - h, 0, 100)) if np.isfinite(h) else np.nan
                row["type1_mc_high"] = float(np.clip(row["type1"] + h, 0, 100)) if np.isfinite(h) else np.nan
                row["type1_within_alpha_plus_1"] = limit_verdict(
                    row["type1_mc_low"], row["type1_mc_high"], 100 * a + 1.0, published_scale=published_scale
                )
            rows.append(row)
    table = pd.DataFrame(rows)
    if "type1_mc_low" in table:  # the interval next to its rate
        cols = [c for c in table.columns if c not in ("type1_mc_low", "type1_mc_high")]
        at = cols.index("type1") + 1
        table = table[cols[:at] + ["type1_mc_low", "type1_mc_high"] + cols[at:]]
    return table


# -- UCI data sets --------------------------------------------------------------------------

# The 27 UCI data sets of Bouckaert's Table 2 (also those of Bouckaert and Frank), as the paper
# numbers and names them.
UCI_SETS = {
    1: "anneal",
    2: "arrhythmia",
    3: "audiology",
    4: "autos",
    5: "balance-scale",
    6: "breast-cancer",
    7: "credit-rating",
    8: "ecoli",
    9: "German credit",
    10: "glass",
    11: "heart-statlog",
    12: "hepatitis",
    13: "horse-colic",
    14: "Hungarian heart",
    15: "ionosphere",
    16: "iris",
    17: "labor",
    18: "lymphography",
    19: "pima diabetes",
    20: "primary-tumor",
    21: "sonar",
    22: "soybean",
    23: "vehicle",
    24: "vote",
    25: "vowel",
    26: "Wisconsin breast cancer",
    27: "zoo",
}


def _uci():
    from simstudy.pipeline.data import uci

    return uci


def available_sets() -> list[str]:
    """The data sets of :data:`UCI_SETS` shipped with the package, in the paper's order."""
    shipped = set(_uci().uci_datasets())
    return [name for name in UCI_SETS.values() if name in shipped]


def check_shipped(name: str):
    """Raise ValueError naming ``name`` unless it is a shipped data set."""
    if name not in set(_uci().uci_datasets()):
        raise InputError(f"dataset: {name!r} is not shipped; available: {', '.join(available_sets())}")


@lru_cache(maxsize=None)
def load_uci_for_learning(name: str):
    """``(X, y, nominal, data)`` of a shipped data set, without the rows whose class is missing (as Weka)."""
    data = _uci().load_uci(name)
    keep = ~np.isnan(data.y)
    return data.X[keep], data.y[keep].astype(np.int64), data.nominal, data


def uci_sizes(rows, design=None) -> tuple[int, int]:
    """``(n_train, n_test)`` of one split of the stored scores of one shipped data set.

    ``design`` is ``"subsample"`` (Bouckaert and Frank's 90% / 10% stratified
    subsamples), ``"5x2"``, or a k-fold cv (``"cv"`` or None) with k the number of
    folds in ``rows``.
    """
    from simstudy.pipeline.designs import Subsample

    _, y, _, _ = load_uci_for_learning(str(rows["dataset"].iloc[0]))
    if design == "subsample":
        return Subsample(1, 0.1).sizes(y)
    k = 2 if design == "5x2" else int(rows["fold"].nunique())
    return RepeatedKFold(1, k).sizes(y)


def uci_learner_factories(learners, name: str, n_classes=None, *, weka_evaluation=True):
    """Factories of the Weka learners (registered names or classes) told the attribute types and category
    counts of the data set ``name``.

    ``weka_evaluation``: the learners behave as in Weka's evaluation of a test fold, which classifies
    the test instances one after the other; for IB1 this widens the numeric attributes' ranges with
    every instance classified (``IB1(update_ranges_on_predict=True)``), as Weka 3.6's
    ``IB1.classifyInstance`` does (IB1's default).  False: ranges from the training part only (asked for
    explicitly, since it is not IB1's default).
    """
    X, y, nominal, data = load_uci_for_learning(name)
    n_cats = tuple(len(c) if c is not None else 0 for c in data.categories)
    if n_classes is None:
        n_classes = len(data.class_categories) if data.class_categories else int(y.max()) + 1

    def options(c):
        return (
            {"update_ranges_on_predict": bool(weka_evaluation)}
            if "update_ranges_on_predict" in c().get_params()
            else {}
        )

    return tuple(
        (lambda c=c, o=options(c): c(nominal=nominal, n_categories=n_cats, n_classes=n_classes, **o))
        for c in _classes(learners)
    )
