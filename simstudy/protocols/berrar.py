"""Berrar's replication studies: the benchmark experiments (Algorithms 1 and 2) and the cv experiments (3 and 4).

Benchmark experiments (studies 1 and 2).  In group g, each of N data sets i has
a training and a test set of ``a_g + 10 i`` cases; classifier A (NB) and B (SVM)
are trained on the training set and their accuracies measured on the test set.
A replication yields N accuracy pairs, from which two tests are made:

* ``binomial``: theta = share of data sets on which A is strictly more accurate
  (a tie is a success for neither), significant when the exact two-sided
  binomial p-value is below alpha and theta > 1/2 (Algorithm 2, lines 31-34);
* ``wilcoxon``: Z_w of Equation 10 (continuity and tie corrections),
  significant when p < alpha and Z_w > 0 (lines 35-38).

Algorithm 1 (bootstrapped s*) is a second kind of condition: its replication b
draws a bootstrap training and test set from each data set of one fixed initial
experiment, refits both learners and records Z_w; s* is the standard deviation
of these Z values.  The initial experiment is drawn from the condition's setup
stream, so every bootstrap replication of a group sees the same data sets.

Cross-validation experiments (studies 3 and 4): per fold of one stratified
``n_folds``-fold cv, the accuracies of A and B; the per-fold differences are
tested with the variance-corrected resampled t-test (Nadeau and Bengio;
Berrar's Equation 15, df = k - 1): significant when p < alpha and t > 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from simstudy.errors import InputError
from simstudy.pipeline.designs import Bootstrap
from simstudy.pipeline.outcomes import outcome_rows, run_test
from simstudy.pipeline.scores import PairedScores, holdout_accuracies
from simstudy.pipeline.sources import berrar_benchmark_sources
from simstudy.statistics.replication import bayesian_model, binomial_model, t_model, wilcoxon_model
from simstudy.statistics.replication_summary import ModelSpec, closest_to, mad_interval, replication_table
from simstudy.statistics.significance import binomial_test

if TYPE_CHECKING:
    from simstudy.engine.solve import Knob
from simstudy._lazy import lazy_module
from simstudy.statistics.intervals import sd_interval

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")
stats = lazy_module("scipy.stats")
_learners = lazy_module("simstudy.pipeline.learners")

__all__ = [
    "ALPHA",
    "BenchmarkGroup",
    "BenchmarkSettings",
    "benchmark_declaration",
    "benchmark_conditions",
    "benchmark_setup",
    "benchmark_replicate",
    "benchmark_summary",
    "cv_outcomes",
    "cv_summary",
]

ALPHA = 0.05
BENCHMARK_TESTS = {"binomial": "binomial", "wilcoxon": "signed_rank_corrected"}
CV_TESTS = {"corrected_t": "corrected_cv_t"}
LEARNERS = ("e1071.naiveBayes", "e1071.svm")  # A, B


# -- benchmark experiments (Algorithms 1 and 2) -------------------------------------------------


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
            raise InputError(f"kind: must be 'experiment' or 'bootstrap', got {self.kind!r}")
        if self.n_datasets < 2:
            raise InputError(f"n_datasets: need at least 2 data sets, got {self.n_datasets}")
        if self.start_size < 2:
            raise InputError(f"start_size: must be >= 2, got {self.start_size}")

    @property
    def key(self) -> str:
        """The condition's name in stored rows, e.g. ``berrar1-g03``."""
        return f"{self.kind}-g{self.g:02d}"


@dataclass(frozen=True)
class BenchmarkSettings:
    """Profile settings of a benchmark study: the groups to run (empty: all) and the bootstrap
    replications for s* per group (0: none)."""

    groups: tuple = ()
    n_boot: int = 0


def benchmark_declaration(starts: dict[int, int], n_datasets: int) -> dict:
    """The parts of a :class:`~simstudy.engine.Study` that Berrar's studies 1 and 2 share.

    ``starts`` maps each group to its start size a_g; ``n_datasets`` is N.  The
    study adds its name, title, profiles and published numbers.
    """
    from functools import partial

    from simstudy.engine.study import Cost, Provides, settings_of
    from simstudy.pipeline.scores import ScoreLayout

    def conditions(profile):
        s = settings_of(profile, BenchmarkSettings)
        return benchmark_conditions(starts, n_datasets, s.groups or tuple(starts), s.n_boot)

    return {
        "conditions": conditions,
        "replicate": benchmark_replicate,
        "setup": benchmark_setup,
        "summarize": partial(benchmark_summary, n_datasets=n_datasets),
        "settings": BenchmarkSettings,
        "provides": Provides(
            paired_scores=ScoreLayout(groups=("g",), axes=("dataset",), variants=("test",)),
            forecasts=partial(benchmark_forecasts, n_datasets=n_datasets),
        ),
        "cost": Cost(work=benchmark_work),
    }


def benchmark_work(cond: BenchmarkGroup) -> dict:
    """One replication's work (:class:`simstudy.engine.Cost`): the cases of its N data sets.

    NB and the SVM are fitted and tested on each of the N data sets, whose mean
    size is a_g + 5 (N + 1) cases; the cost grows about in proportion to the
    cases.  A bootstrap replication refits on all N data sets too.
    """
    return {"case": cond.n_datasets * (cond.start_size + 5 * (cond.n_datasets + 1))}


def start_size_knob(*, low: int, high: int, interval: tuple) -> Knob:
    """The knob of ``simstudy solve`` over a benchmark study's start size a (data set i has a + 10 i cases).

    The quantities are those of :func:`simstudy.engine.solve.replication_values`
    with short names: ``F`` is the share of replications in which the Wilcoxon
    test is significant (s/k; Berrar's F = (s - 1)/(k - 1) differs from it by
    less than 1/k), ``F_binomial`` the same for the binomial test, ``p_wilcoxon``
    the mean Wilcoxon p-value.
    """
    from simstudy.engine.solve import Knob

    return Knob(
        "start_size",
        "int",
        low,
        high,
        "the start size a of a group (data set i has a + 10 i cases)",
        base=lambda conds: next(c for c in conds if c.kind == "experiment"),
        interval=interval,
        aliases={
            "F": "rejection rate: wilcoxon",
            "F_binomial": "rejection rate: binomial",
            "p_wilcoxon": "mean p-value: wilcoxon",
            "p_binomial": "mean p-value: binomial",
        },
        notes="F is estimated as the share s/k of significant replications",
    )


def benchmark_conditions(starts: dict[int, int], n_datasets: int, groups, n_boot: int) -> list[BenchmarkGroup]:
    """The profile's groups, each followed by its bootstrap for s* when ``n_boot`` > 0."""
    unknown = [g for g in groups if g not in starts]
    if unknown:
        raise InputError(f"groups: no group(s) {unknown}; the study has groups {sorted(starts)}")
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


def benchmark_setup(cond: BenchmarkGroup, rng):
    """The initial experiment that Algorithm 1 bootstraps (bootstrap conditions only)."""
    return _draw_datasets(cond, rng) if cond.kind == "bootstrap" else None


def _paired(acc: np.ndarray) -> PairedScores:
    # the N data sets are the sample: one "run" of N cells (no training sizes: independent test sets)
    return PairedScores(acc[None, :, 0], acc[None, :, 1], n_train=None, n_test=None)


def benchmark_replicate(cond: BenchmarkGroup, rng, state=None):
    """One replication of Algorithm 2 (accuracy pairs and both tests) or of Algorithm 1 (one Z_w)."""
    if cond.kind == "bootstrap":
        boot = Bootstrap()
        acc = []
        for X, y, Xt, yt in state:
            i, j = boot.indices(y, rng), boot.indices(yt, rng)
            acc.append(holdout_accuracies(X[i], y[i], Xt[j], yt[j], _factories()))
        z = run_test("signed_rank_corrected", _paired(np.asarray(acc)))
        return {"bootstrap": [{"z": float(z.statistic)}]}

    learners = _factories()
    acc = np.asarray([holdout_accuracies(*d, learners) for d in _draw_datasets(cond, rng)])
    diff = acc[:, 0] - acc[:, 1]
    scores = pd.DataFrame({"dataset": np.arange(1, cond.n_datasets + 1), "acc_a": acc[:, 0], "acc_b": acc[:, 1]})
    outcomes = outcome_rows(_paired(acc), BENCHMARK_TESTS, alpha=ALPHA)
    outcomes.insert(2, "wins", int((diff > 0).sum()))
    outcomes.insert(3, "ties", int((diff == 0).sum()))
    return {"scores": scores, "outcomes": outcomes}


def _factories():
    return tuple(_learners.learner_class(name) for name in LEARNERS)


def _wilcoxon_p(z):
    return 2 * stats.norm.sf(np.abs(z))


def _ties_left_out(rows: pd.DataFrame, n_datasets: int) -> pd.DataFrame:
    """The success rate and binomial significance with tied data sets left out, per group.

    Our binomial test counts a data set on which NB and SVM have the same test
    accuracy as a loss of NB (theta = wins / N).  The sign-test convention
    leaves ties out: theta = wins / (N - ties), tested against Bin(N - ties, 1/2).
    The same replication table as the stored convention's, on that theta, with
    its columns suffixed ``_ties_left_out``, so the comparison can show which one
    the published numbers follow.
    """
    wins = rows["wins"].to_numpy(dtype=int)
    trials = n_datasets - rows["ties"].to_numpy(dtype=int)
    theta = np.where(trials > 0, wins / np.maximum(trials, 1), 0.5)
    # exact two-sided p-values, once per distinct (wins, trials) pair
    pairs = {(w, t): binomial_test(w, t).pvalue if t > 0 else 1.0 for w, t in set(zip(wins, trials))}
    p = np.array([pairs[(w, t)] for w, t in zip(wins, trials)])
    frame = pd.DataFrame(
        {"g": rows["g"].to_numpy(), "statistic": theta, "decision": ((p < ALPHA) & (theta > 0.5)).astype(int)}
    )
    table = replication_table(frame, by=["g"], models=[_binomial_spec(n_datasets)])
    keep = [
        c for c in table.columns if c.startswith(("mean_statistic", "share_significant", "binomial_p", "binomial_P"))
    ]
    out = table[["g"] + keep].rename(columns={c: _suffixed(c.replace("mean_statistic", "success")) for c in keep})
    out.insert(1, "mean_ties", rows.groupby("g", sort=True)["ties"].mean().to_numpy())
    return out


def _suffixed(column: str) -> str:
    """``success_mc_low`` -> ``success_ties_left_out_mc_low`` (the interval suffix stays last)."""
    for end in ("_mc_low", "_mc_high"):
        if column.endswith(end):
            return column[: -len(end)] + "_ties_left_out" + end
    return column + "_ties_left_out"


def _wins_of(theta, n_datasets):
    return np.clip(np.round(np.asarray(theta) * n_datasets), 0, n_datasets).astype(int)


def _binomial_spec(n_datasets) -> ModelSpec:
    return ModelSpec(
        "binomial",
        lambda w: binomial_model(w, n_datasets, alpha=ALPHA),
        lambda w: binomial_test(w, n_datasets).pvalue,
        lambda t: _wins_of(t, n_datasets),
    )


def _extremes(name: str, dev, ext: dict) -> dict:
    """The smallest and largest deviation over groups with their bootstrap intervals, as study-table columns."""
    return {
        f"{name}_min": float(dev.min()),
        f"{name}_min_mc_low": ext["min"][0],
        f"{name}_min_mc_high": ext["min"][1],
        f"{name}_max": float(dev.max()),
        f"{name}_max_mc_low": ext["max"][0],
        f"{name}_max_mc_high": ext["max"][1],
    }


def _widen_by_s_star(t: pd.DataFrame) -> None:
    """P_w's Monte Carlo interval over both of its inputs' intervals: the mean Z_w's and s*'s.

    P_w = 1 - Phi((z - Z_w) / s*) rises with Z_w and, at a fixed Z_w, moves
    monotonically with s*; so its extremes over the rectangle of the two
    intervals lie at its corners.  s*'s interval is the error of a standard
    deviation of ``n_boot`` bootstrap values (one initial experiment); how s*
    varies between initial experiments is not in it.
    """
    need = ("wilcoxon_P", "mean_statistic_mc_low", "mean_statistic_mc_high", "s_star_mc_low", "s_star_mc_high")
    if not all(c in t for c in need) or not np.isfinite(t["s_star_mc_low"]).all():
        return
    corners = [
        wilcoxon_model(t[z].to_numpy(dtype=float), t[s].to_numpy(dtype=float), alpha=ALPHA).estimate
        for z in ("mean_statistic_mc_low", "mean_statistic_mc_high")
        for s in ("s_star_mc_low", "s_star_mc_high")
    ]
    t["wilcoxon_P_mc_low"] = np.minimum.reduce(corners)
    t["wilcoxon_P_mc_high"] = np.maximum.reduce(corners)


def benchmark_summary(run, *, n_datasets: int) -> dict[str, pd.DataFrame]:
    """Per-group tables for the binomial, Bayesian and Wilcoxon models, and the study-level MAD."""
    out = run.table("outcomes")
    boot = run.table("bootstrap") if "bootstrap" in run.tables() else pd.DataFrame(columns=["g", "z"])
    s_star = boot.groupby("g")["z"].agg(lambda z: float(np.std(z, ddof=1)) if len(z) > 1 else np.nan)
    n_boot = boot.groupby("g")["z"].size()

    def wins_of(theta):
        return _wins_of(theta, n_datasets)

    binom_rows = out[out.test == "binomial"]
    binom = replication_table(
        binom_rows,
        by=["g"],
        models=[
            _binomial_spec(n_datasets),
            ModelSpec(
                "bayes",
                lambda w: bayesian_model(w, n_datasets, alpha=ALPHA),
                lambda w: binomial_test(w, n_datasets).pvalue,
                wins_of,
            ),
        ],
    )
    if "ties" in binom_rows and len(binom):
        binom = binom.merge(_ties_left_out(binom_rows, n_datasets), on="g", how="left")

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
        t["s_star_mc_low"], t["s_star_mc_high"] = sd_interval(s, b)
        _widen_by_s_star(t)
        tables.append(t)
    wil = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()

    study = {}
    groups = [(grp["statistic"].to_numpy(), grp["decision"].to_numpy()) for _, grp in wil_rows.groupby("g")]
    gs = sorted(wil_rows["g"].unique())
    if groups:
        s_of = [float(s_star.get(g, np.nan)) for g in gs]
        if all(np.isfinite(s_of)):
            mad, lo, hi, dev, ext = mad_interval(
                groups, lambda m, j: wilcoxon_model(m, s_of[j], alpha=ALPHA).estimate, rng=0, extremes=True
            )
            study.update(mad=mad, mad_mc_low=lo, mad_mc_high=hi, **_extremes("mad", dev, ext))
        mad1, lo1, hi1, dev1, ext1 = mad_interval(
            groups, lambda m, j: wilcoxon_model(m, 1.0, alpha=ALPHA).estimate, rng=0, extremes=True
        )
        study.update(mad_s1=mad1, mad_s1_mc_low=lo1, mad_s1_mc_high=hi1, **_extremes("mad_s1", dev1, ext1))
        if "wilcoxon_P" in wil:
            best = closest_to(wil, "F", 0.95)
            study.update(
                closest_g=int(best["g"]),
                closest_p=best["wilcoxon_p"],
                closest_P=best["wilcoxon_P"],
                closest_F=best["F"],
            )
    study["n_failures"] = int(len(run.failures)) if run.failures is not None else 0
    return {"binomial": binom, "wilcoxon": wil, "study": pd.DataFrame([study])}


# -- cross-validation experiments (Algorithms 3 and 4) ------------------------------------------


def cv_outcomes(scores: PairedScores, index=None) -> pd.DataFrame:
    """Outcome rows of the corrected t-test on per-fold accuracies of shape ``(*groups, 1, n_folds)``."""
    return outcome_rows(scores, CV_TESTS, alpha=ALPHA, index=index)


def cv_summary(run, *, by: str, df: int) -> dict[str, pd.DataFrame]:
    """Per-group replication table of the t model (P_t against F), and the study-level MAD."""
    out = run.table("outcomes")

    def p_of(t):
        return 2 * stats.t.sf(np.abs(t), df)

    table = replication_table(out, by=[by], models=[ModelSpec("t", lambda t: t_model(t, df, alpha=ALPHA), p_of)])
    study = {}
    sig = table[table["n_significant"] > 0]
    groups = [
        (g["statistic"].to_numpy(), g["decision"].to_numpy()) for key, g in out.groupby(by) if key in set(sig[by])
    ]
    if groups:
        mad, lo, hi, dev = mad_interval(groups, lambda m, j: t_model(m, df, alpha=ALPHA).estimate, rng=0)
        study.update(
            mad=mad, mad_mc_low=lo, mad_mc_high=hi, mad_min=dev.min(), mad_max=dev.max(), mad_groups=len(groups)
        )
        best = closest_to(table, "F", 0.95)
        study.update(
            {f"closest_{by}": best[by], "closest_p": best["t_p"], "closest_P": best["t_P"], "closest_F": best["F"]}
        )
    study["n_failures"] = int(len(run.failures)) if run.failures is not None else 0
    return {"t": table, "study": pd.DataFrame([study])}


# -- what the proving ground's calibration of the models reads (Provides.forecasts) -----------------------------------


_FORECAST_COLUMNS = ["study", "model", "group", "replication", "significant", "P"]


def _forecast_rows(study: str, model: str, rows: pd.DataFrame, P, group: str) -> pd.DataFrame:
    """One model's forecasts on outcome ``rows``: ``P`` where the result is significant, NaN elsewhere."""
    significant = rows["decision"].to_numpy() == 1
    return pd.DataFrame(
        {
            "study": study,
            "model": model,
            "group": rows[group].to_numpy(),
            "replication": rows["replication"].to_numpy(),
            "significant": significant,
            "P": np.where(significant, P, np.nan),
        }
    )


def _forecasts_frame(parts) -> pd.DataFrame:
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=_FORECAST_COLUMNS)


def benchmark_forecasts(run, study: str, *, n_datasets: int) -> tuple[pd.DataFrame, list[str]]:
    """Studies 1 and 2: per replication and model (binomial, Bayesian, Wilcoxon with s* and with s* = 1), the
    group and the replication probability ``P`` forecast where the result is significant; and notes on what is
    missing (see :attr:`simstudy.engine.Provides.forecasts`)."""
    from simstudy.statistics.replication import bayesian_model, binomial_model, wilcoxon_model

    out = run.table("outcomes")
    notes, parts = [], []

    def add(rows, model, P, group):
        parts.append(_forecast_rows(study, model, rows, P, group))

    n = n_datasets
    b = out[out["test"] == "binomial"]
    if len(b):
        wins = b["wins"].to_numpy(int) if "wins" in b else np.rint(b["statistic"].to_numpy(float) * n).astype(int)
        add(b, "binomial", np.asarray(binomial_model(wins, n, alpha=ALPHA).estimate, float), "g")
        add(b, "Bayesian", np.asarray(bayesian_model(wins, n, alpha=ALPHA).estimate, float), "g")
    else:
        notes.append(f"{study}: no binomial rows")
    w = out[out["test"] == "wilcoxon"]
    if len(w):
        z = w["statistic"].to_numpy(float)
        boot = run.table("bootstrap") if "bootstrap" in run.tables() else None
        if boot is not None and len(boot):
            s_star = boot.groupby("g")["z"].std(ddof=1)
            s = w["g"].map(s_star).to_numpy(float)
            have = np.isfinite(s)
            if not have.all():
                notes.append(
                    f"{study}: no bootstrapped s* for groups "
                    f"{sorted(set(w['g'][~have]))}; the Wilcoxon model with s* left them out"
                )
            P = np.full(z.size, np.nan)
            for g in np.unique(w["g"][have]):
                m = w["g"].to_numpy() == g
                P[m] = np.asarray(wilcoxon_model(z[m], float(s_star[g]), alpha=ALPHA).estimate, float)
            add(w, "Wilcoxon (s*)", P, "g")
        else:
            notes.append(
                f"{study}: no stored bootstrap table (profile without n_boot), so no s*: "
                "only the Wilcoxon model with s* = 1"
            )
        add(w, "Wilcoxon (s* = 1)", np.asarray(wilcoxon_model(z, 1.0, alpha=ALPHA).estimate, float), "g")
    else:
        notes.append(f"{study}: no Wilcoxon rows")
    return _forecasts_frame(parts), notes


def cv_forecasts(run, study: str, *, df: int = 9) -> tuple[pd.DataFrame, list[str]]:
    """Study 3: per replication, the non-central t model's replication probability of a significant corrected
    t-test (``df`` degrees of freedom: 9 for a 10-fold cv), and notes on what is missing."""
    from simstudy.statistics.replication import t_model

    out = run.table("outcomes")
    notes, parts = [], []

    def add(rows, model, P, group):
        parts.append(_forecast_rows(study, model, rows, P, group))

    t = out[out["test"] == "corrected_t"]
    if len(t):
        add(t, "t", np.asarray(t_model(t["statistic"].to_numpy(float), df, alpha=ALPHA).estimate, float), "q")
    else:
        notes.append(f"{study}: no corrected t rows")
    return _forecasts_frame(parts), notes
