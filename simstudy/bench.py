"""Benchmark a new test on the published tables, on stored replications (no refitting).

``bench(target, test=...)`` rebuilds the paired per-fold accuracies that the
study stored for every replication, runs the user's test on them (vectorised),
and sets its results beside the built-in tests' stored outcomes on the very same
replications.  Because both see the same data (common random numbers), the
difference between the new test and each built-in one is estimated from
per-replication (or per-data-set) paired differences, with its interval.

Targets: ``bouckaert-table1`` and ``bouckaert-table2`` (Bouckaert 2004 Tables 1
and 2, the latter on the shipped UCI data sets, sorted-runs sample), ``berrar3``
and ``berrar4`` (Berrar's cross-validation studies).  Bouckaert and Frank's
tables store no per-fold accuracies and cannot be benchmarked without refitting.  Nothing is written into the
stored run; the report goes to ``RUN/bench/``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from .compare import markdown_table
from .plugins import PairedScores, run_scheme, run_test
from .replicability import normalized, r2, r2_from_counts

__all__ = ["TARGETS", "bench"]

TARGETS = {"bouckaert-table1": "bouckaert1", "bouckaert-table2": "bouckaert2", "berrar3": "berrar3",
           "berrar4": "berrar4"}
NOT_YET = {"bouckaert-frank": "Bouckaert and Frank's tables store only the outcomes of the built-in tests, "
                              "not the per-fold accuracies, so a new test cannot run on their replications"}


def _mean_interval(x, axis=0):
    """Mean and 95% t interval over ``axis`` (the independent units)."""
    x = np.asarray(x, dtype=float)
    n = x.shape[axis]
    m = x.mean(axis=axis)
    if n < 2:
        return m, m, m
    half = stats.t.ppf(0.975, n - 1) * x.std(axis=axis, ddof=1) / np.sqrt(n)
    return m, m - half, m + half


def _wilson(x):
    """Share of True in ``x`` with its 95% Wilson score interval (sensible also at 0 or all)."""
    x = np.asarray(x, dtype=bool)
    n, z = x.size, stats.norm.ppf(0.975)
    m = x.mean()
    centre = (m + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(m * (1 - m) / n + z * z / (4 * n * n))
    return m, max(centre - half, 0.0), min(centre + half, 1.0)


def _fmt_iv(m, lo, hi, scale=1.0, rate=False):
    if rate:  # a rate's interval stays within [0, 1]
        lo, hi = max(lo, 0.0), min(hi, 1.0)
    return f"{scale * m:.1f} [{scale * lo:.1f}, {scale * hi:.1f}]"


def _builtin_decisions(out: pd.DataFrame, alpha: float) -> pd.Series:
    """Stored decisions of the built-in tests, re-made at ``alpha`` from the stored p-values.

    The direction is the stored decision's where it rejected, else the sign of the
    statistic (+1 when that is 0 too: some statistics, e.g. counts, carry no sign).
    """
    stored = np.sign(out["decision"].to_numpy())
    direction = np.where(stored != 0, stored, np.sign(out["statistic"].to_numpy()))
    direction = np.where(direction == 0, 1, direction)
    return pd.Series(np.where(out["pvalue"].to_numpy() <= alpha, direction, 0).astype(np.int8), index=out.index)


def _fold_sizes(grp: pd.DataFrame) -> tuple[int, int]:
    """Training and test size of one fold (the largest fold, as the studies use)."""
    n_cases, n_folds = int(grp["n_cases"].iloc[0]), int(grp["n_folds"].iloc[0])
    n_test = -(-n_cases // n_folds)
    return n_cases - n_test, n_test


def _berrar(study, run, test_fn, scheme_fn, alpha, name):
    group = "q" if study.name == "berrar3" else "d"
    scores = run.table("scores")
    out = run.table("outcomes")
    out = out[out["test"] == "corrected_t"]
    builtin = _builtin_decisions(out, alpha).set_axis(pd.MultiIndex.from_frame(out[[group, "replication"]]))
    rows = []
    published = {dict(p.where).get(group): p.value for p in study.reference.get("published", [])
                 if p.column == "F" and p.where}
    for g, grp in scores.groupby(group):
        grp = grp.sort_values(["replication", "fold"])
        reps = grp["replication"].unique()
        a = grp["acc_a"].to_numpy().reshape(len(reps), 1, -1)
        b = grp["acc_b"].to_numpy().reshape(len(reps), 1, -1)
        n_train, n_test = _fold_sizes(grp)
        ps = PairedScores(a, b, n_train=n_train, n_test=n_test,
                          sample=None if scheme_fn is None else run_scheme(scheme_fn, a - b))
        new = run_test(test_fn, ps, alpha)["decision"] == 1       # Berrar: significant and A better
        old = builtin.loc[g].reindex(reps).to_numpy() == 1
        k = len(reps)

        def f_of(sig):
            return f"{(sig.sum() - 1) / (k - 1):.3f}" if sig.any() and k > 1 else "n/a"

        # F = (m - 1) / (k - 1) with m significant of k, so F_new - F_old = k / (k - 1) * mean(new - old)
        scale = k / (k - 1) if k > 1 else 1.0
        d, lo, hi = _mean_interval(new.astype(float) - old.astype(float))
        rows.append({group: g, "k": k, "published F": published.get(g, "n/a"),
                     "corrected t: F": f_of(old),
                     "corrected t: % significant": _fmt_iv(*_wilson(old), 100),
                     f"{name}: F": f_of(new),
                     f"{name}: % significant": _fmt_iv(*_wilson(new), 100),
                     "F new - corrected t (paired)": f"{scale * d:+.3f} [{scale * lo:+.3f}, {scale * hi:+.3f}]"})
    return pd.DataFrame(rows)


def _bouckaert1(study, run, test_fn, scheme_fn, alpha, name):
    scores = run.table("scores").sort_values(["source", "replication", "experiment", "run", "fold"])
    out = run.table("outcomes")
    out = out.assign(decision=_builtin_decisions(out, alpha))
    sources = sorted(scores["source"].unique())
    new_dec = {}
    for src in sources:
        s = scores[scores["source"] == src]
        n_sets, n_exp = s["replication"].nunique(), s["experiment"].nunique()
        r, k = s["run"].nunique(), s["fold"].nunique()
        a = s["acc_a"].to_numpy().reshape(n_sets, n_exp, r, k)
        b = s["acc_b"].to_numpy().reshape(n_sets, n_exp, r, k)
        n_train, n_test = _fold_sizes(s)
        ps = PairedScores(a, b, n_train=n_train, n_test=n_test,
                          sample=None if scheme_fn is None else run_scheme(scheme_fn, a - b))
        new_dec[src] = run_test(test_fn, ps, alpha)["decision"]            # (n_sets, n_exp)

    def row_of(label, decisions):
        row = {"test / scheme": label}
        norms = []
        for src in sources:
            rej = (decisions[src] != 0).mean(axis=1)
            col = "Type I" if src.endswith("1") else f"power {src[-1]}"
            row[col] = _fmt_iv(*_mean_interval(rej), 100, rate=True)
            norms.append(np.mean(normalized(r2(decisions[src]))))
        row["min. norm. repl."] = f"{100 * min(norms):.1f}"
        return row

    published = {}
    for p in study.reference.get("published", []):
        key = dict(p.where)
        published.setdefault((key.get("test"), key.get("scheme")), {})[p.column] = p.value

    def with_published(row, test, scheme):
        pub = published.get((test, scheme))
        row["published (Type I / power 2, 3, 4 / repl.)"] = (
            " / ".join(f"{pub[c]:g}" for c in ("type1", "power2", "power3", "power4", "min_norm_r2")) if pub else "")
        return row

    rows = [with_published(row_of(f"**{name}**", new_dec), None, None)]
    diffs = []
    for (scheme, test), grp in out.groupby(["scheme", "test"], sort=False):
        old = {src: grp[grp["source"] == src].sort_values(["replication", "experiment"])["decision"].to_numpy()
               .reshape(new_dec[src].shape) for src in sources}
        rows.append(with_published(row_of(f"{test} / {scheme}", old), test, scheme))
        drow = {"built-in test / scheme": f"{test} / {scheme}"}
        for src in sources:
            d = (new_dec[src] != 0).mean(axis=1) - (old[src] != 0).mean(axis=1)
            drow[("Type I" if src.endswith("1") else f"power {src[-1]}") + " (new - built-in)"] = \
                _fmt_iv(*_mean_interval(d), 100)
        diffs.append(drow)
    return pd.DataFrame(rows), pd.DataFrame(diffs)


def _bouckaert2(study, run, test_fn, scheme_fn, alpha, name):
    from .data.uci import load_uci

    scores = run.table("scores").sort_values(["dataset", "replication", "run", "fold"])
    out = run.table("outcomes")
    out = out.assign(reject=_builtin_decisions(out, alpha) != 0).sort_values(["dataset", "replication"])
    pairs = list(dict.fromkeys(out["pair"]))
    tests = list(dict.fromkeys(out["test"]))
    sets = list(dict.fromkeys(scores["dataset"]))
    published = {(dict(p.where).get("test"), dict(p.where).get("pair")): p.value
                 for p in study.reference.get("published", []) if p.column == "norm_r2"}
    summary, diffs, cells = [], [], {}
    for pair in pairs:
        a_name, b_name = pair.split("-")
        new_rej, old_rej = [], {t: [] for t in tests}
        for ds in sets:
            s = scores[scores["dataset"] == ds]
            n_rep, r, k = s["replication"].nunique(), s["run"].nunique(), s["fold"].nunique()
            a = s[f"acc_{a_name}"].to_numpy().reshape(n_rep, r, k)
            b = s[f"acc_{b_name}"].to_numpy().reshape(n_rep, r, k)
            n_cases = int(np.sum(~np.isnan(load_uci(ds).y)))  # Weka drops cases without a class
            n_test = -(-n_cases // k)
            ps = PairedScores(a, b, n_train=n_cases - n_test, n_test=n_test,
                              sample=None if scheme_fn is None else run_scheme(scheme_fn, a - b))
            new_rej.append(run_test(test_fn, ps, alpha)["decision"] != 0)
            for t in tests:
                sel = out[(out["dataset"] == ds) & (out["pair"] == pair) & (out["test"] == t)]
                old_rej[t].append(sel["reject"].to_numpy())
            cells.setdefault(ds, {"data set": ds})[f"{pair}: accepts (t)"] = int((~old_rej["t"][-1]).sum()) \
                if "t" in old_rej else ""
            cells[ds][f"{pair}: accepts (new)"] = int((~new_rej[-1]).sum())

        def row(label, rej, test=None):
            accepts = np.array([(~x).sum() for x in rej])
            n = np.array([x.size for x in rej])
            norm = 100 * normalized(r2_from_counts(accepts, n))
            pub = published.get((test, pair))
            return {"pair": pair, "test": label,
                    "mean norm. R2": _fmt_iv(*_mean_interval(norm / 100), 100, rate=True),
                    "% rejecting": _fmt_iv(*_mean_interval(1 - accepts / n), 100, rate=True),
                    "published mean norm. R2 (these data sets)": "" if pub is None else f"{pub:.1f}"}

        summary.append(row(f"**{name}**", new_rej))
        for t in tests:
            summary.append(row(f"{t} / sorted runs", old_rej[t], t))
            d = [x.mean() - y.mean() for x, y in zip(new_rej, old_rej[t])]
            diffs.append({"pair": pair, "built-in test": f"{t} / sorted runs",
                          "% rejecting, new - built-in": _fmt_iv(*_mean_interval(d), 100)})
    return pd.DataFrame(summary), pd.DataFrame(diffs), pd.DataFrame(list(cells.values()))


def bench(target: str, *, test, scheme=None, profile: str = "quick", results="results", alpha: float = 0.05,
          write: bool = True) -> str:
    """Run a plug-in test on the stored replications of a published table.

    Parameters
    ----------
    target : str
        ``"bouckaert-table1"``, ``"bouckaert-table2"``, ``"berrar3"`` or ``"berrar4"``.
    test : str or callable
        The plug-in test, ``module:name`` or ``path/to/file.py:name``, or the
        function itself (see :mod:`simstudy.plugins` for the calling convention).
    scheme : str or callable, optional
        A plug-in sampling scheme; its sample reaches the test as ``scores.sample``.
    profile : str
        Stored profile to read (``RESULTS/STUDY/PROFILE``).
    results : str or Path
        Root of the stored results.
    alpha : float
        Significance level of the new test; the built-in decisions are re-made
        at this level from their stored p-values.
    write : bool
        Also write the report to ``RESULTS/STUDY/PROFILE/bench/TARGET__TEST.md``
        (the stored chunks and manifest are only read).

    Returns
    -------
    str
        Markdown: the published table with the new test's row beside the
        built-in rows, 95% Monte Carlo intervals, and per built-in row the
        paired difference (new minus built-in) with its interval.

    Raises
    ------
    ValueError
        ``TARGET``/``--alpha`` for a bad target or level, no stored run, and
        :class:`~simstudy.plugins.PluginError` for a plug-in that fails.
    """
    from ._validation import check_alpha
    from .engine import get_study, load_run
    from .plugins import load_plugin

    alpha = check_alpha(alpha, "--alpha")
    if target in NOT_YET:
        raise ValueError(f"TARGET: {target!r} cannot be benchmarked yet: {NOT_YET[target]}; "
                         f"choose one of {', '.join(TARGETS)}")
    if target not in TARGETS:
        raise ValueError(f"TARGET: unknown target {target!r}; choose one of {', '.join(TARGETS)}")
    test_fn = load_plugin(test, "test") if isinstance(test, str) else test
    scheme_fn = None if scheme is None else (load_plugin(scheme, "scheme") if isinstance(scheme, str) else scheme)
    study = get_study(TARGETS[target])
    run = load_run(study, profile=profile, out=Path(results) / study.name / profile)
    name = getattr(test_fn, "__simstudy_ref__", getattr(test_fn, "__name__", "new test"))
    head = (f"# {study.title}: `{name}` on the stored replications\n\nProfile `{profile}`, alpha {alpha}; "
            "the new test sees exactly the replications (data, partitions and fits) the built-in tests saw. "
            "All intervals are 95%. Berrar: % significant (p <= alpha and A better) with its Wilson interval over "
            "replications; F = (m - 1) / (k - 1) for m significant of k; the F difference is k / (k - 1) times the "
            "mean of the per-replication differences of decisions, with its t interval. Tables 1 and 2: rates "
            "per data set, intervals over data sets (Table 2: the shipped UCI data sets). Built-in decisions are re-made at this alpha from the stored "
            "p-values.\n\n")
    if target == "bouckaert-table1":
        table, diffs = _bouckaert1(study, run, test_fn, scheme_fn, alpha, name)
        text = head + markdown_table(table) + "\n\nPaired differences, new minus built-in:\n\n" + markdown_table(diffs)
    elif target == "bouckaert-table2":
        table, diffs, cells = _bouckaert2(study, run, test_fn, scheme_fn, alpha, name)
        text = (head + markdown_table(table) + "\n\nPaired differences, new minus built-in (intervals over data "
                "sets):\n\n" + markdown_table(diffs) + "\n\nAccepts of H0 per data set (of the stored "
                "experiments), the t-test beside the new test:\n\n" + markdown_table(cells))
    else:
        text = head + markdown_table(_berrar(study, run, test_fn, scheme_fn, alpha, name))
    if write:  # beside the run, never into its chunks or manifest; a read-only store just skips this
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
        try:
            outdir = Path(run.path) / "bench"
            outdir.mkdir(exist_ok=True)
            (outdir / f"{target}__{safe}.md").write_text(text + "\n")
        except OSError:
            pass
    return text
