"""Berrar's studies 1-3: what moves the published values that lie outside our paper-scale intervals?

At the paper profile (1000 replications per group) four published values lie
outside our 95% Monte Carlo interval:

* study 1, group 7: Wilcoxon p of the mean Z_w 0.00308 [0.00275, 0.00344] against 0.00274,
  and P_w 0.942 [0.935, 0.948] against 0.9665;
* study 2, group 7: P_w 0.925 [0.917, 0.933] against 0.96742;
* study 3, q = 3: mean t 2.41 [2.36, 2.45] against 2.493 (with its p and P_t).

This script measures the suspects on the one group concerned, on common random
numbers (every variant of a statistic is computed on the same replications, so
the differences between variants are paired and much more precise than the
variants themselves):

``s1`` / ``s2`` (group 7 of study 1 / 2)
    Z_w with and without the continuity and tie corrections, with the zero
    differences (tied accuracies) dropped, ranked (Pratt) or split, and R's
    default of ``wilcox.test`` (exact p when no ties or zeros, then Z from it);
    the spread of Z_w over replications (the sampling standard deviation that
    s* estimates); and s* of Algorithm 1 from several initial experiments
    (refitting on bootstrapped training and test sets, as the paper says, and
    resampling only the test set), to see how much s* varies with the initial
    experiment that is bootstrapped.
``s3`` (study 3, q = 3)
    the corrected t as stated (sample variance, n_test/n_train = 100/900) and
    with the variance divided by k instead of k - 1, with n_test/n = 0.1, and
    without the correction; the oracle revealing 3 cases per fold (stated),
    30 cases anywhere in the learning set, or 3 per fold drawn with replacement;
    the SVM's error rate; and p and P_t of the published mean t with df = 9.

Reproduce (single process, a few CPU minutes each)::

    PYTHONPATH=. .venv/bin/python benchmarks/berrar_outside.py s3 --reps 1000 --seed 1
    PYTHONPATH=. .venv/bin/python benchmarks/berrar_outside.py s3-folds --reps 250 --seed 2
    PYTHONPATH=. .venv/bin/python benchmarks/berrar_outside.py s1 --reps 300 --setups 5 --boot 50 --seed 1
    PYTHONPATH=. .venv/bin/python benchmarks/berrar_outside.py s2 --reps 300 --setups 5 --boot 50 --seed 1

Every figure is printed with its 95% Monte Carlo interval (mean +- 1.96 se).
"""

from __future__ import annotations

import argparse
import importlib
import os
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from simstudy.pipeline.learners import learner_class  # noqa: E402
from simstudy.pipeline.scores import fold_predictions  # noqa: E402
from simstudy.pipeline.sources import berrar_cv_source  # noqa: E402
from simstudy.protocols import berrar  # noqa: E402
from simstudy.statistics.replication import t_model, wilcoxon_model  # noqa: E402
from simstudy.statistics.significance import signed_rank_test  # noqa: E402

Z975 = stats.norm.ppf(0.975)
#: Our paper-profile values (docs/reproduction/report.md) and the published ones, per study.
STORED = {
    "berrar1": {"p": 0.003076, "P": 0.9416, "published_p": 0.00274, "published_P": 0.9665},
    "berrar2": {"p": 0.001540, "P": 0.9253, "published_p": 0.0016, "published_P": 0.96742},
}


def _ci(x) -> str:
    x = np.asarray(x, dtype=float)
    m, se = x.mean(), x.std(ddof=1) / np.sqrt(x.size)
    return f"{m:.4f} [{m - 1.96 * se:.4f}, {m + 1.96 * se:.4f}]"


def _p_of_mean(z) -> str:
    z = np.asarray(z, dtype=float)
    m, se = z.mean(), z.std(ddof=1) / np.sqrt(z.size)
    lo, hi = 2 * stats.norm.sf(m + 1.96 * se), 2 * stats.norm.sf(m - 1.96 * se)
    return f"{2 * stats.norm.sf(m):.5f} [{lo:.5f}, {hi:.5f}]"


# -- Wilcoxon variants ----------------------------------------------------------------------------


def _z_pratt(d: np.ndarray) -> np.ndarray:
    """Pratt's signed-rank Z: zeros ranked with the rest, their ranks then dropped; continuity and ties corrected."""
    out = np.empty(d.shape[0])
    for r, x in enumerate(d):
        n, n0 = x.size, int((x == 0).sum())
        ranks = stats.rankdata(np.abs(x))
        w = ranks[x > 0].sum()
        mean = (n * (n + 1) - n0 * (n0 + 1)) / 4
        var = (n * (n + 1) * (2 * n + 1) - n0 * (n0 + 1) * (2 * n0 + 1)) / 24
        _, t = np.unique(np.abs(x[x != 0]), return_counts=True)
        var -= (t**3 - t).sum() / 48
        dev = w - mean
        out[r] = np.sign(dev) * max(abs(dev) - 0.5, 0.0) / np.sqrt(var)
    return out


def _z_zsplit(d: np.ndarray) -> np.ndarray:
    """Zeros kept, each zero's rank split half to either sign; continuity and ties corrected."""
    out = np.empty(d.shape[0])
    for r, x in enumerate(d):
        n = x.size
        ranks = stats.rankdata(np.abs(x))
        w = ranks[x > 0].sum() + ranks[x == 0].sum() / 2
        mean = n * (n + 1) / 4
        _, t = np.unique(np.abs(x), return_counts=True)
        var = n * (n + 1) * (2 * n + 1) / 24 - (t**3 - t).sum() / 48
        dev = w - mean
        out[r] = np.sign(dev) * max(abs(dev) - 0.5, 0.0) / np.sqrt(var)
    return out


def _z_r_default(d: np.ndarray, z_corrected: np.ndarray) -> tuple[np.ndarray, int]:
    """R's ``wilcox.test`` default: the exact p when n < 50 and there are no ties or zeros, Z = z_(1 - p/2) from it;
    otherwise the corrected normal approximation (what R then falls back to)."""
    out = z_corrected.copy()
    n_exact = 0
    for r, x in enumerate(d):
        a = np.abs(x)
        if (x == 0).any() or np.unique(a).size < a.size or x.size >= 50:
            continue
        p = stats.wilcoxon(x, method="exact").pvalue
        out[r] = np.sign(np.sum(np.sign(x) * stats.rankdata(a))) * stats.norm.isf(p / 2)
        n_exact += 1
    return out, n_exact


def benchmark_group(study: str, reps: int, setups: int, boot: int, seed: int) -> None:
    """Group 7 of study 1 or 2: the Wilcoxon variants, the spread of Z_w and s* over initial experiments."""
    mod = importlib.import_module(f"studies.{study}")
    n = mod.N_DATASETS
    cond = berrar.BenchmarkGroup(7, mod.STARTS[7], n)
    rng = np.random.default_rng(seed)
    t0 = time.process_time()
    diffs = []
    for _ in range(reps):
        s = berrar.benchmark_replicate(cond, rng)["scores"]
        diffs.append(s["acc_a"].to_numpy() - s["acc_b"].to_numpy())
    d = np.asarray(diffs)
    print(
        f"{study} group 7 (a = {cond.start_size}, N = {n}): {reps} replications, {time.process_time() - t0:.0f} s CPU"
    )
    print(f"  data sets with tied accuracies per replication: {_ci((d == 0).sum(axis=1))}")
    base = signed_rank_test(d, continuity=True, tie_correction=True).statistic
    variants = {
        "ours: Eq. 10, zeros dropped, continuity and tie corrections": base,
        "no continuity correction": signed_rank_test(d, continuity=False, tie_correction=True).statistic,
        "no tie correction": signed_rank_test(d, continuity=True, tie_correction=False).statistic,
        "zeros ranked (Pratt)": _z_pratt(d),
        "zeros split between the signs": _z_zsplit(d),
    }
    z_r, n_exact = _z_r_default(d, base)
    variants[f"R wilcox.test default (exact p in {n_exact} of {reps})"] = z_r
    stored_z = stats.norm.isf(STORED[study]["p"] / 2)
    published_z = stats.norm.isf(STORED[study]["published_p"] / 2)
    print(
        f"  stored paper-profile mean Z_w {stored_z:.4f} (p {STORED[study]['p']}); "
        f"published p {STORED[study]['published_p']} is Z_w {published_z:.4f} (needs {published_z - stored_z:+.4f})"
    )
    print("  variant: mean Z_w | p of mean Z_w | shift of mean Z_w vs ours (paired) | stored mean + shift -> p")
    for name, z in variants.items():
        shift = z - base
        m = shift.mean()
        se = shift.std(ddof=1) / np.sqrt(reps)
        moved = 2 * stats.norm.sf(stored_z + m)
        print(
            f"    {name}: {_ci(z)} | {_p_of_mean(z)} | {m:+.4f} [{m - 1.96 * se:+.4f}, {m + 1.96 * se:+.4f}] | {moved:.5f}"
        )
    p_each = 2 * stats.norm.sf(np.abs(base))
    print(f"  mean of the replications' p-values (not p of the mean Z_w): {_ci(p_each)}")
    sd = base.std(ddof=1)
    # chi-square interval of a standard deviation from `reps` values
    lo = sd * np.sqrt((reps - 1) / stats.chi2.isf(0.025, reps - 1))
    hi = sd * np.sqrt((reps - 1) / stats.chi2.ppf(0.025, reps - 1))
    print(f"  SD of Z_w over the replications (what s* estimates): {sd:.4f} [{lo:.4f}, {hi:.4f}]")

    def p_w(s_star: float) -> float:
        return float(wilcoxon_model(stored_z, s_star).estimate)

    needed = (stored_z - Z975) / stats.norm.isf(1 - STORED[study]["published_P"])
    needed_pub = (published_z - Z975) / stats.norm.isf(1 - STORED[study]["published_P"])
    implied = (stored_z - Z975) / stats.norm.isf(1 - STORED[study]["P"])
    print(
        f"  s* of our stored P_w {STORED[study]['P']}: {implied:.4f}; published P_w {STORED[study]['published_P']} "
        f"needs s* {needed:.4f} at our mean Z_w ({needed_pub:.4f} at the published one)"
    )
    print(f"  P_w at our mean Z_w with s* = SD over replications: {p_w(sd):.4f}")

    # s* (Algorithm 1) from several initial experiments
    bcond = berrar.BenchmarkGroup(7, mod.STARTS[7], n, "bootstrap", boot)
    nb, svm = berrar._factories()
    refit, test_only = [], []
    t0 = time.process_time()
    for _ in range(setups):
        state = berrar.benchmark_setup(bcond, rng)
        z = [berrar.benchmark_replicate(bcond, rng, state)["bootstrap"][0]["z"] for _ in range(boot)]
        refit.append(np.std(z, ddof=1))
        # the test sets resampled, the learners fitted once on the initial training sets
        hits = [(nb().fit(X, y).predict(Xt) == yt, svm().fit(X, y).predict(Xt) == yt) for X, y, Xt, yt in state]
        zt = []
        for _ in range(300):
            acc = np.array([[a[j].mean(), b[j].mean()] for a, b in hits for j in [rng.integers(0, a.size, a.size)]])
            zt.append(signed_rank_test(acc[:, 0] - acc[:, 1], continuity=True, tie_correction=True).statistic)
        test_only.append(np.std(zt, ddof=1))
    refit, test_only = np.array(refit), np.array(test_only)
    print(
        f"  s* over {setups} initial experiments ({boot} bootstrap refits each; {time.process_time() - t0:.0f} s CPU): "
        + ", ".join(f"{s:.3f}" for s in refit)
        + f"; mean {refit.mean():.4f}, min {refit.min():.4f}, max {refit.max():.4f}"
    )
    half = np.sqrt((boot - 1) / stats.chi2.isf(0.025, boot - 1)), np.sqrt((boot - 1) / stats.chi2.ppf(0.025, boot - 1))
    print(
        f"    (one s* from {boot} bootstrap values alone has a relative 95% interval of [{half[0]:.3f}, {half[1]:.3f}])"
    )
    print("    P_w at our mean Z_w with these s*: " + ", ".join(f"{p_w(s):.4f}" for s in refit))
    print(
        "  s* resampling the test sets only (300 each, no refit): "
        + ", ".join(f"{s:.3f}" for s in test_only)
        + f"; mean {test_only.mean():.4f} -> P_w {p_w(test_only.mean()):.4f}"
    )


# -- study 3 -------------------------------------------------------------------------------------


def _t(d: np.ndarray, ratio: float, ddof: int = 1) -> np.ndarray:
    """Variance-corrected t over the last axis (k folds): mean / sqrt((1/k + ratio) var)."""
    k = d.shape[-1]
    var = d.var(axis=-1, ddof=ddof)
    with np.errstate(divide="ignore", invalid="ignore"):
        return d.mean(axis=-1) / np.sqrt((1 / k + ratio) * var)


def benchmark_oracle(reps: int, seed: int, q: int = 3) -> None:
    """Study 3 at one q: the t variants and the oracle variants on the same learning sets and SVM fits."""
    from simstudy.studies.berrar import berrar3 as b3

    cond = b3.OracleDesign(q_values=(q,))
    rng = np.random.default_rng(seed)
    svm = learner_class("e1071.svm")
    t0 = time.process_time()
    rows = {k: [] for k in ("per_fold", "whole_set", "with_replacement")}
    error = []
    for _ in range(reps):
        X, y = berrar_cv_source(cond.n_features).sample(cond.n_cases, rng)
        fold_ids = cond.design.fold_ids(y, rng)[0]
        correct = fold_predictions(X, y, fold_ids, svm)[0] == y
        error.append(1 - correct.mean())
        per_fold, repl = [], []
        for f in range(cond.n_folds):
            c = correct[fold_ids == f]
            m = int(round(q * c.size / 100))
            per_fold.append((~c[rng.choice(c.size, m, replace=False)]).sum() / c.size)
            idx = rng.integers(0, c.size, m)  # with replacement: a case drawn twice is fixed once
            repl.append((~c[np.unique(idx)]).sum() / c.size)
        revealed = rng.choice(correct.size, int(round(q * correct.size / 100)), replace=False)
        gained = np.zeros(correct.size, dtype=bool)
        gained[revealed] = ~correct[revealed]
        whole = [gained[fold_ids == f].sum() / (fold_ids == f).sum() for f in range(cond.n_folds)]
        rows["per_fold"].append(per_fold)
        rows["whole_set"].append(whole)
        rows["with_replacement"].append(repl)
    d = {k: np.asarray(v) for k, v in rows.items()}
    n = cond.n_cases
    k = cond.n_folds
    n_test = n // k
    ratio = n_test / (n - n_test)
    print(f"berrar3 q = {q}: {reps} replications, {time.process_time() - t0:.0f} s CPU")
    print(f"  SVM error rate in cv: {_ci(error)}")
    base = _t(d["per_fold"], ratio)
    variants = {
        "ours: 3 per fold, sample variance, n_test/n_train = 100/900": base,
        "variance divided by k (ddof 0)": _t(d["per_fold"], ratio, ddof=0),
        "n_test/n = 100/1000": _t(d["per_fold"], n_test / n),
        "no correction (1/k only)": _t(d["per_fold"], 0.0),
        "30 cases revealed anywhere in the learning set": _t(d["whole_set"], ratio),
        "3 per fold drawn with replacement": _t(d["with_replacement"], ratio),
    }
    print("  variant: mean t | share significant | shift of mean t vs ours (paired) | 95% MC interval of mean t")
    for name, t in variants.items():
        finite = np.isfinite(t) & np.isfinite(base)
        shift = (t - base)[finite]
        m, se = shift.mean(), shift.std(ddof=1) / np.sqrt(finite.sum())
        sig = ((2 * stats.t.sf(np.abs(t), k - 1) < 0.05) & (t > 0)).mean()
        note = "" if finite.all() else f" ({(~finite).sum()} replications with zero variance left out)"
        print(f"    {name}: {_ci(t[finite])} | {sig:.3f} | {m:+.4f} [{m - 1.96 * se:+.4f}, {m + 1.96 * se:+.4f}]{note}")
    for t in (2.493, float(np.mean(base[np.isfinite(base)]))):
        res = t_model(t, k - 1)
        print(f"  at mean t {t:.3f}, df 9: p {res.pvalue:.4f}, P_t {res.estimate:.4f}")
    for df in (8, 18, 99):
        print(f"  at mean t 2.493, df {df}: p {2 * stats.t.sf(2.493, df):.4f}, P_t {t_model(2.493, df).estimate:.4f}")


def benchmark_literal_folds(reps: int, seed: int, q: int = 3) -> None:
    """Study 3 at one q with Algorithm 3 read literally: a new stratified partition for every fold (line 21 stands
    inside the fold loop), against one partition (ours), on the same learning sets."""
    from simstudy.studies.berrar import berrar3 as b3

    cond = b3.OracleDesign(q_values=(q,))
    rng = np.random.default_rng(seed)
    svm = learner_class("e1071.svm")
    n_test = cond.n_cases // cond.n_folds
    ratio = n_test / (cond.n_cases - n_test)
    t0 = time.process_time()
    one, fresh = [], []
    for _ in range(reps):
        X, y = berrar_cv_source(cond.n_features).sample(cond.n_cases, rng)
        for out, partitions in ((one, 1), (fresh, cond.n_folds)):
            d = []
            fold_ids = None
            for f in range(cond.n_folds):
                if partitions == 1 and fold_ids is None:
                    fold_ids = cond.design.fold_ids(y, rng)[0]
                    correct = fold_predictions(X, y, fold_ids, svm)[0] == y
                elif partitions > 1:  # a new partition; only its fold f is held out and fitted
                    fold_ids = cond.design.fold_ids(y, rng)[0]
                    held = np.where(fold_ids == f, 0, -1)
                    correct = fold_predictions(X, y, held, svm)[0] == y
                c = correct[fold_ids == f]
                m = int(round(q * c.size / 100))
                d.append((~c[rng.choice(c.size, m, replace=False)]).sum() / c.size)
            out.append(d)
    t_one, t_fresh = _t(np.asarray(one), ratio), _t(np.asarray(fresh), ratio)
    ok = np.isfinite(t_one) & np.isfinite(t_fresh)
    shift = (t_fresh - t_one)[ok]
    m, se = shift.mean(), shift.std(ddof=1) / np.sqrt(ok.sum())
    print(f"berrar3 q = {q}, literal folds: {reps} replications, {time.process_time() - t0:.0f} s CPU")
    print(f"  one partition (ours): mean t {_ci(t_one[ok])}; a new partition per fold: {_ci(t_fresh[ok])}")
    print(f"  shift (paired learning sets): {m:+.4f} [{m - 1.96 * se:+.4f}, {m + 1.96 * se:+.4f}]")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("s1", "s2", "s3", "s3-folds"))
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--setups", type=int, default=5)
    parser.add_argument("--boot", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.what == "s3":
        benchmark_oracle(args.reps, args.seed)
    elif args.what == "s3-folds":
        benchmark_literal_folds(args.reps, args.seed)
    else:
        benchmark_group({"s1": "berrar1", "s2": "berrar2"}[args.what], args.reps, args.setups, args.boot, args.seed)


if __name__ == "__main__":
    main()
