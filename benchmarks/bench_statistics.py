"""Speed of the vectorised statistics against a Python loop over scipy.stats.

Usage::

    .venv/bin/python benchmarks/bench_statistics.py [--repeat 3] [--loop 400]

For every test in :mod:`simstudy.statistics.significance`: one call on 10^5 samples of size
10 and one on 10^4 samples of size 100 (repeated-cv tests: 1 x 10 and 10 x 10
matrices; 5x2cv tests: size 10 only; count tests: 10^5 / 10^4 count pairs with
n = 10 / 100).  For every model in :mod:`simstudy.statistics.replication`: one call on
10^6 statistics.  Each is compared with a plain Python loop that calls the
corresponding scipy.stats function(s) once per sample; the loop runs on the
first ``--loop`` samples only and its time is extrapolated per call to the
full size (it is linear in the number of calls).

Times are CPU seconds of this process (``time.process_time``; the machines are
shared, so wall time says more about the neighbours than about the code), the
best of ``--repeat`` runs, with numerical libraries held to one thread.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from scipy import optimize, stats  # noqa: E402

from simstudy.statistics import replication as R  # noqa: E402
from simstudy.statistics import significance as H  # noqa: E402


def cpu_best(func, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        func()
        best = min(best, time.process_time() - t0)
    return best


def loop_time(body, items, total, repeat):
    """CPU seconds of ``body`` over ``items``, extrapolated to ``total`` calls."""
    per_call = cpu_best(lambda: [body(it) for it in items], repeat) / len(items)
    return per_call * total


# ---------------------------------------------------------------- references (one sample per call)


def ref_ttest(row):
    return stats.ttest_1samp(row, 0.0).pvalue


def ref_corrected_t(ratio):
    def body(row):
        row = np.ravel(row)
        n = row.size
        t = row.mean() / np.sqrt(row.var(ddof=1) * (1.0 / n + ratio))
        return 2 * stats.t.sf(abs(t), n - 1)

    return body


def ref_sign(row):
    k = int((row > 0).sum())  # continuous data: no ties
    return stats.binomtest(k, row.size).pvalue


def ref_wilcoxon(correction):
    def body(row):
        return stats.wilcoxon(row, method="approx", correction=correction).pvalue

    return body


def ref_5x2_t(d):
    s2 = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    t = d[0, 0] / np.sqrt(s2.mean())
    return 2 * stats.t.sf(abs(t), 5)


def ref_5x2_f(d):
    s2 = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    f = (d**2).sum() / (2 * s2.sum())
    return stats.f.sf(f, 10, 5)


def ref_binom(kn):
    return stats.binomtest(int(kn[0]), int(kn[1])).pvalue


def ref_mcnemar_chi2(bc):
    b, c = bc
    m = b + c
    return stats.chi2.sf(max(abs(b - c) - 1, 0) ** 2 / m, 1) if m else 1.0


def ref_mcnemar_exact(bc):
    b, c = int(bc[0]), int(bc[1])
    return stats.binomtest(c, b + c).pvalue if b + c else 1.0


def ref_prop_z(args):
    ea, eb, n = args
    z = (eb - ea) / np.sqrt(ea * (1 - ea) / n + eb * (1 - eb) / n)
    return 2 * stats.norm.sf(abs(z))


# ---------------------------------------------------------------- the table


def hypothesis_rows(rng, repeat, n_loop):
    rows = []
    for n_samples, size in ((10**5, 10), (10**4, 100)):
        x = rng.normal(0.01, 0.05, size=(n_samples, size))
        runs = 1 if size == 10 else 10
        cv = x.reshape(n_samples, runs, 10)
        cases = [
            ("paired_t_test", lambda: H.paired_t_test(x), ref_ttest, x, "ttest_1samp"),
            ("resampled_t_test", lambda: H.resampled_t_test(x), ref_ttest, x, "ttest_1samp"),
            (
                "corrected_resampled_t_test",
                lambda: H.corrected_resampled_t_test(x, n_train=90, n_test=10),
                ref_corrected_t(10 / 90),
                x,
                "numpy + t.sf",
            ),
            ("sign_test", lambda: H.sign_test(x), ref_sign, x, "binomtest"),
            ("signed_rank_test", lambda: H.signed_rank_test(x), ref_wilcoxon(False), x, "wilcoxon(approx)"),
            (
                "signed_rank_test (Berrar Eq. 10)",
                lambda: H.signed_rank_test(x, continuity=True, tie_correction=True),
                ref_wilcoxon(True),
                x,
                "wilcoxon(approx, correction)",
            ),
            (
                f"repeated_cv_t_test ({runs}x10)",
                lambda: H.repeated_cv_t_test(cv),
                lambda r: ref_ttest(r.ravel()),
                cv,
                "ttest_1samp",
            ),
            (
                f"corrected_repeated_cv_t_test ({runs}x10)",
                lambda: H.corrected_repeated_cv_t_test(cv, n_train=90, n_test=10),
                ref_corrected_t(10 / 90),
                cv,
                "numpy + t.sf",
            ),
        ]
        if size == 10:
            d = x.reshape(n_samples, 5, 2)
            cases += [
                ("five_by_two_cv_t_test", lambda: H.five_by_two_cv_t_test(d), ref_5x2_t, d, "numpy + t.sf"),
                ("five_by_two_cv_f_test", lambda: H.five_by_two_cv_f_test(d), ref_5x2_f, d, "numpy + f.sf"),
            ]
        wins = rng.binomial(size, 0.6, n_samples)
        kn = np.c_[wins, np.full(n_samples, size)]
        bc = rng.integers(0, size, size=(n_samples, 2))
        ea, eb = rng.uniform(0.05, 0.4, n_samples), rng.uniform(0.05, 0.4, n_samples)
        cases += [
            (f"binomial_test (n={size})", lambda: H.binomial_test(wins, size), ref_binom, kn, "binomtest"),
            ("mcnemar_test (chi2)", lambda: H.mcnemar_test(bc[:, 0], bc[:, 1]), ref_mcnemar_chi2, bc, "chi2.sf"),
            (
                "mcnemar_test (exact)",
                lambda: H.mcnemar_test(bc[:, 0], bc[:, 1], exact=True),
                ref_mcnemar_exact,
                bc,
                "binomtest",
            ),
            (
                "proportions_z_test",
                lambda: H.proportions_z_test(ea, size, eb, size),
                ref_prop_z,
                list(zip(ea, eb, [size] * n_samples)),
                "norm.sf",
            ),
        ]
        for name, vec, ref, items, ref_name in cases:
            t_vec = cpu_best(vec, repeat)
            t_loop = loop_time(ref, items[:n_loop], n_samples, repeat)
            rows.append((name, f"{n_samples:.0e} x {size}", t_vec, t_loop, ref_name))
    return rows


def replication_rows(rng, repeat, n_loop):
    m = 10**6
    n = 44
    wins = rng.binomial(n, 0.62, m)
    # the count models work per distinct (wins, n) pair: many different n is their worst realistic case
    n_mixed = rng.integers(1, 201, m)
    wins_mixed = rng.binomial(n_mixed, 0.6)
    z = rng.normal(2.4, 0.8, m)
    t = rng.normal(2.3, 1.0, m)
    alpha, c = 0.05, 0.05
    s = int(R.min_significant_wins(n, alpha))
    crit_z = stats.norm.isf(alpha / 2)
    crit_t = stats.t.isf(alpha / 2, 9)

    def ref_binomial(w):
        lo = stats.beta.ppf(c / 2, max(w, 1), n - w + 1) if w > 0 else 0.0
        hi = stats.beta.ppf(1 - c / 2, w + 1, max(n - w, 1)) if w < n else 1.0
        return [stats.binom.sf(s - 1, n, th) for th in (w / n, lo, hi)]

    def ref_bayes(w):
        a, b = 1 + w, 1 + n - w
        res = optimize.minimize_scalar(
            lambda u: stats.beta.ppf(u + 0.95, a, b) - stats.beta.ppf(u, a, b), bounds=(0, c), method="bounded"
        )
        lo, hi = stats.beta.ppf(res.x, a, b), stats.beta.ppf(res.x + 0.95, a, b)
        return [stats.binom.sf(s - 1, n, th) for th in ((w + 1) / (n + 2), lo, hi)]

    def ref_wilcoxon(zz):
        half = stats.norm.isf(c / 2) * 0.8
        return [stats.norm.sf((crit_z - mm) / 0.8) for mm in (zz, zz - half, zz + half)]

    def ref_t(tt):
        q_lo, q_hi = stats.nct.ppf(c / 2, 9, tt), stats.nct.ppf(1 - c / 2, 9, tt)
        return [stats.nct.sf(crit_t, 9, nc) for nc in (tt, q_lo, q_hi)]

    cases = [
        ("binomial_model (n=44)", lambda: R.binomial_model(wins, n), ref_binomial, wins, "beta.ppf x2, binom.sf x3"),
        (
            "bayesian_model (n=44)",
            lambda: R.bayesian_model(wins, n),
            ref_bayes,
            wins,
            "minimize_scalar(beta.ppf), binom.sf x3",
        ),
        (
            "bayesian_model (n in 1..200, ~20000 distinct pairs)",
            lambda: R.bayesian_model(wins_mixed, n_mixed),
            None,
            None,
            "",
        ),
        ("wilcoxon_model", lambda: R.wilcoxon_model(z, 0.8), ref_wilcoxon, z, "norm.sf x3"),
        ("t_model (df=9)", lambda: R.t_model(t, 9), ref_t, t, "nct.ppf x2, nct.sf x3"),
    ]
    rows = []
    for name, vec, ref, items, ref_name in cases:
        k = max(20, n_loop // 10) if "bayes" in name else n_loop
        t_vec = cpu_best(vec, repeat)
        t_loop = loop_time(ref, list(items[:k]), m, repeat) if ref else float("nan")
        rows.append((name, "1e+06", t_vec, t_loop, ref_name))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing; the best is kept (default 3)")
    ap.add_argument("--loop", type=int, default=400, help="samples timed in the scipy loop (default 400)")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(2004)
    rows = hypothesis_rows(rng, args.repeat, args.loop) + replication_rows(rng, args.repeat, args.loop)
    print("| function | samples | simstudy (s) | scipy loop (s, extrapolated) | ratio | loop body |")
    print("|---|---|---:|---:|---:|---|")
    for name, size, t_vec, t_loop, ref_name in rows:
        loop = "" if np.isnan(t_loop) else f"{t_loop:.1f}"
        ratio = "" if np.isnan(t_loop) else f"{t_loop / max(t_vec, 1e-4):.0f}"
        print(f"| {name} | {size} | {t_vec:.4f} | {loop} | {ratio} | {ref_name} |")


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        main()
