"""Shared definition of Berrar's studies 1 and 2: NB vs SVM over N benchmark data sets.

Algorithm 2 of Berrar: in group g, each of N data sets i has a training and a
test set of ``a_g + 10 i`` cases; NB (classifier A) and SVM (B) are trained on
the training set and their accuracies measured on the test set.  A replication
yields N accuracy pairs, from which two tests are made:

* binomial: theta = share of data sets on which NB is strictly more accurate (a
  tie is not a success for either), significant when the exact two-sided binomial
  p-value is below alpha and theta > 1/2 (Algorithm 2, lines 31-34);
* Wilcoxon: Z_w of Equation 10 (continuity and tie corrections), significant when
  p < alpha and Z_w > 0 (lines 35-38).

Algorithm 1 (bootstrapped s*) is a second kind of condition: its replication b
draws a bootstrap training and test set from each data set of one fixed initial
experiment, refits both learners and records Z_w; s* is the standard deviation of
these Z values.  The initial experiment is drawn from the condition's setup
stream, so every bootstrap replication of a group sees the same data sets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import chi2, norm

from simstudy.hypothesis import binomial_test, signed_rank_test
from simstudy.learners import E1071NaiveBayes, E1071SVC
from simstudy.replication import bayesian_model, binomial_model, wilcoxon_model
from simstudy.replication_summary import ModelSpec, mad_interval, replication_table
from simstudy.sources import berrar_benchmark_sources

ALPHA = 0.05


@dataclass(frozen=True)
class BenchmarkGroup:
    """One experimental group (kind "experiment") or its bootstrap for s* (kind "bootstrap")."""

    g: int
    start_size: int
    n_datasets: int
    kind: str = "experiment"
    n_replications: int | None = None

    def __post_init__(self):
        if self.kind not in ("experiment", "bootstrap"):
            raise ValueError(f"kind: must be 'experiment' or 'bootstrap', got {self.kind!r}")
        if self.n_datasets < 2:
            raise ValueError(f"n_datasets: need at least 2 data sets, got {self.n_datasets}")
        if self.start_size < 2:
            raise ValueError(f"start_size: must be >= 2, got {self.start_size}")

    @property
    def key(self) -> str:
        return f"{self.kind}-g{self.g:02d}"


def conditions_for(starts: dict[int, int], n_datasets: int):
    """The ``conditions`` function of a study: the profile's groups, each with its bootstrap for s*."""

    def conditions(profile):
        groups = profile.settings.get("groups", tuple(starts))
        return make_conditions(starts, n_datasets, groups, profile.settings.get("n_boot", 0))

    return conditions


def validate(condition):
    condition.__post_init__()


def make_conditions(starts: dict[int, int], n_datasets: int, groups, n_boot: int) -> list[BenchmarkGroup]:
    out = []
    for g in groups:
        out.append(BenchmarkGroup(g, starts[g], n_datasets))
        if n_boot:
            out.append(BenchmarkGroup(g, starts[g], n_datasets, "bootstrap", n_boot))
    return out


def _draw_datasets(cond: BenchmarkGroup, rng):
    data = []
    for n, src in berrar_benchmark_sources(cond.n_datasets, cond.start_size):
        X, y = src.sample(n, rng)
        Xt, yt = src.sample(n, rng)
        data.append((X, y, Xt, yt))
    return data


def _accuracies(X, y, Xt, yt):
    acc_nb = float(np.mean(E1071NaiveBayes().fit(X, y).predict(Xt) == yt))
    acc_svm = float(np.mean(E1071SVC().fit(X, y).predict(Xt) == yt))
    return acc_nb, acc_svm


def _bootstrap_indices(y, rng):
    """Indices of a bootstrap sample; redrawn if it holds a single class (so both learners can fit)."""
    while True:
        idx = rng.integers(0, y.shape[0], y.shape[0])
        if np.unique(y[idx]).size > 1:
            return idx


def setup(cond: BenchmarkGroup, rng):
    """The initial experiment that Algorithm 1 bootstraps (bootstrap conditions only)."""
    return _draw_datasets(cond, rng) if cond.kind == "bootstrap" else None


def replicate(cond: BenchmarkGroup, rng, state=None):
    if cond.kind == "bootstrap":
        acc = []
        for X, y, Xt, yt in state:
            i, j = _bootstrap_indices(y, rng), _bootstrap_indices(yt, rng)
            acc.append(_accuracies(X[i], y[i], Xt[j], yt[j]))
        acc = np.asarray(acc)
        z = signed_rank_test(acc[:, 0] - acc[:, 1], continuity=True, tie_correction=True)
        return {"bootstrap": [{"z": float(z.statistic)}]}

    acc = np.asarray([_accuracies(*d) for d in _draw_datasets(cond, rng)])
    diff = acc[:, 0] - acc[:, 1]
    wins = int((diff > 0).sum())
    n = cond.n_datasets
    binom = binomial_test(wins, n)
    wil = signed_rank_test(diff, continuity=True, tie_correction=True)
    scores = [{"dataset": i + 1, "acc_a": a, "acc_b": b} for i, (a, b) in enumerate(acc)]
    outcomes = [
        {"test": "binomial", "statistic": wins / n, "wins": wins, "ties": int((diff == 0).sum()),
         "pvalue": float(binom.pvalue), "decision": int(binom.decision(ALPHA))},
        {"test": "wilcoxon", "statistic": float(wil.statistic), "wins": wins, "ties": int((diff == 0).sum()),
         "pvalue": float(wil.pvalue), "decision": int(wil.decision(ALPHA))},
    ]
    return {"scores": scores, "outcomes": outcomes}


def _wilcoxon_p(z):
    return 2 * norm.sf(np.abs(z))


def summarize(run, *, n_datasets: int) -> dict[str, pd.DataFrame]:
    """Per-group tables for the binomial, Bayesian and Wilcoxon models, and the study-level MAD."""
    out = run.table("outcomes")
    out = out[out["error"].isna()] if "error" in out else out
    boot = run.table("bootstrap") if "bootstrap" in run.tables() else pd.DataFrame(columns=["g", "z"])
    s_star = boot.groupby("g")["z"].agg(lambda z: float(np.std(z, ddof=1)) if len(z) > 1 else np.nan)
    n_boot = boot.groupby("g")["z"].size()

    def wins_of(theta):
        return np.clip(np.round(np.asarray(theta) * n_datasets), 0, n_datasets).astype(int)

    binom_rows = out[out.test == "binomial"]
    binom = replication_table(binom_rows, by=["g"], models=[
        ModelSpec("binomial", lambda w: binomial_model(w, n_datasets, alpha=ALPHA), lambda w: binomial_test(w, n_datasets).pvalue, wins_of),
        ModelSpec("bayes", lambda w: bayesian_model(w, n_datasets, alpha=ALPHA), lambda w: binomial_test(w, n_datasets).pvalue, wins_of),
    ])

    wil_rows = out[out.test == "wilcoxon"]
    tables = []
    for g, grp in wil_rows.groupby("g"):
        s = float(s_star.get(g, np.nan))
        models = [ModelSpec("wilcoxon_s1", lambda z: wilcoxon_model(z, 1.0, alpha=ALPHA), _wilcoxon_p)]
        if np.isfinite(s):
            models.insert(0, ModelSpec("wilcoxon", lambda z, s=s: wilcoxon_model(z, s, alpha=ALPHA), _wilcoxon_p))
        t = replication_table(grp, by=["g"], models=models)
        b = int(n_boot.get(g, 0))
        t["s_star"] = s
        t["n_boot"] = b
        # Monte Carlo interval of a standard deviation from b values (chi-square, normal Z)
        t["s_star_mc_low"] = s * np.sqrt((b - 1) / chi2.ppf(0.975, b - 1)) if b > 1 else np.nan
        t["s_star_mc_high"] = s * np.sqrt((b - 1) / chi2.ppf(0.025, b - 1)) if b > 1 else np.nan
        tables.append(t)
    wil = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()

    study = {}
    groups = [(grp["statistic"].to_numpy(), grp["decision"].to_numpy()) for _, grp in wil_rows.groupby("g")]
    gs = sorted(wil_rows["g"].unique())
    if groups:
        s_of = [float(s_star.get(g, np.nan)) for g in gs]
        if all(np.isfinite(s_of)):
            mad, lo, hi, dev = mad_interval(groups, lambda m, j: wilcoxon_model(m, s_of[j], alpha=ALPHA).estimate, rng=0)
            study.update(mad=mad, mad_mc_low=lo, mad_mc_high=hi, mad_min=dev.min(), mad_max=dev.max())
        mad1, lo1, hi1, dev1 = mad_interval(groups, lambda m, j: wilcoxon_model(m, 1.0, alpha=ALPHA).estimate, rng=0)
        study.update(mad_s1=mad1, mad_s1_mc_low=lo1, mad_s1_mc_high=hi1, mad_s1_min=dev1.min(), mad_s1_max=dev1.max())
        if "wilcoxon_P" in wil:
            best = wil.loc[(wil["F"] - 0.95).abs().idxmin()]
            study.update(closest_g=int(best["g"]), closest_p=best["wilcoxon_p"], closest_P=best["wilcoxon_P"],
                         closest_F=best["F"])
    study["n_failures"] = int(len(run.failures)) if run.failures is not None else 0
    return {"binomial": binom, "wilcoxon": wil, "study": pd.DataFrame([study])}
