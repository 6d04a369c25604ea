"""Benchmark a new test on the published tables, on stored replications (no refitting).

``bench(target, test=...)`` rebuilds the paired per-fold accuracies that the
study stored for every replication, runs the user's test on them (vectorised),
and sets its results beside the built-in tests' stored outcomes on the very same
replications.  Because both see the same data (common random numbers), the
difference between the new test and each built-in one is estimated from
per-replication (or per-data-set) paired differences, with its interval.

Targets: ``bouckaert-table1`` (Bouckaert 2004 Table 1), ``berrar3`` and
``berrar4`` (Berrar's cross-validation studies).  Nothing is written into the
stored run; the report goes to ``RUN/bench/``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from .compare import markdown_table
from .plugins import PairedScores, run_scheme, run_test
from .replicability import normalized, r2

__all__ = ["TARGETS", "bench"]

TARGETS = {"bouckaert-table1": "bouckaert1", "berrar3": "berrar3", "berrar4": "berrar4"}
NOT_YET = {"bouckaert-table2": "bouckaert2", "bouckaert-frank": "bouckaert_frank"}


def _mean_interval(x, axis=0):
    """Mean and 95% t interval over ``axis`` (the independent units)."""
    x = np.asarray(x, dtype=float)
    n = x.shape[axis]
    m = x.mean(axis=axis)
    if n < 2:
        return m, m, m
    half = stats.t.ppf(0.975, n - 1) * x.std(axis=axis, ddof=1) / np.sqrt(n)
    return m, m - half, m + half


def _fmt_iv(m, lo, hi, scale=1.0, rate=False):
    if rate:  # a rate's interval stays within [0, 1]
        lo, hi = max(lo, 0.0), min(hi, 1.0)
    return f"{scale * m:.1f} [{scale * lo:.1f}, {scale * hi:.1f}]"


def _berrar(study, run, test_fn, scheme_fn, alpha, name):
    group = "q" if study.name == "berrar3" else "d"
    scores = run.table("scores")
    out = run.table("outcomes")
    builtin = out[out["test"] == "corrected_t"].set_index([group, "replication"])["decision"]
    rows = []
    published = {dict(p.where).get(group): p.value for p in study.reference.get("published", [])
                 if p.column == "F" and p.where}
    for g, grp in scores.groupby(group):
        grp = grp.sort_values(["replication", "fold"])
        reps = grp["replication"].unique()
        a = grp["acc_a"].to_numpy().reshape(len(reps), 1, -1)
        b = grp["acc_b"].to_numpy().reshape(len(reps), 1, -1)
        n_folds = a.shape[-1]
        n_test = 1000 // n_folds
        ps = PairedScores(a, b, n_train=1000 - n_test, n_test=n_test,
                          sample=None if scheme_fn is None else run_scheme(scheme_fn, a - b))
        new = run_test(test_fn, ps, alpha)["decision"] == 1
        old = builtin.loc[g].reindex(reps).to_numpy() == 1
        k = len(reps)
        f_new = (new.sum() - 1) / (k - 1) if new.any() and k > 1 else np.nan
        f_old = (old.sum() - 1) / (k - 1) if old.any() and k > 1 else np.nan
        d, lo, hi = _mean_interval(new.astype(float) - old.astype(float))
        rows.append({group: g, "k": k, "published F": published.get(g, np.nan), "corrected t: F": f_old,
                     f"{name}: F": f_new, f"{name} - corrected t (share significant)": _fmt_iv(d, lo, hi, 100)})
    return pd.DataFrame(rows)


def _bouckaert1(study, run, test_fn, scheme_fn, alpha, name):
    scores = run.table("scores").sort_values(["source", "replication", "experiment", "run", "fold"])
    out = run.table("outcomes")
    sources = sorted(scores["source"].unique())
    new_dec = {}
    for src in sources:
        s = scores[scores["source"] == src]
        n_sets, n_exp = s["replication"].nunique(), s["experiment"].nunique()
        r, k = s["run"].nunique(), s["fold"].nunique()
        a = s["acc_a"].to_numpy().reshape(n_sets, n_exp, r, k)
        b = s["acc_b"].to_numpy().reshape(n_sets, n_exp, r, k)
        n_test = 300 // k
        ps = PairedScores(a, b, n_train=300 - n_test, n_test=n_test,
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


def bench(target: str, *, test, scheme=None, profile: str = "quick", results="results", alpha: float = 0.05,
          write: bool = True) -> str:
    """Markdown report of a plug-in test on a published target, from stored replications."""
    from ._validation import check_alpha
    from .engine import get_study, load_run
    from .plugins import load_plugin

    alpha = check_alpha(alpha, "--alpha")
    if target in NOT_YET:
        raise ValueError(f"TARGET: {target!r} cannot be benchmarked yet: its study stores the scores, but the "
                         f"bench table is not built; choose one of {', '.join(TARGETS)}")
    if target not in TARGETS:
        raise ValueError(f"TARGET: unknown target {target!r}; choose one of {', '.join(TARGETS)}")
    test_fn = load_plugin(test, "test") if isinstance(test, str) else test
    scheme_fn = None if scheme is None else (load_plugin(scheme, "scheme") if isinstance(scheme, str) else scheme)
    study = get_study(TARGETS[target])
    run = load_run(study, profile=profile, out=Path(results) / study.name / profile)
    name = getattr(test_fn, "__simstudy_ref__", getattr(test_fn, "__name__", "new test"))
    head = (f"# {study.title}: `{name}` on the stored replications\n\nProfile `{profile}`, alpha {alpha}; "
            "the new test sees exactly the replications (data, partitions and fits) the built-in tests saw. "
            "Intervals are 95% over the independent units (replications, or data sets for Table 1).\n\n")
    if target == "bouckaert-table1":
        table, diffs = _bouckaert1(study, run, test_fn, scheme_fn, alpha, name)
        text = head + markdown_table(table) + "\n\nPaired differences, new minus built-in:\n\n" + markdown_table(diffs)
    else:
        text = head + markdown_table(_berrar(study, run, test_fn, scheme_fn, alpha, name))
    if write:
        outdir = Path(run.path) / "bench"
        outdir.mkdir(exist_ok=True)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
        (outdir / f"{target}__{safe}.md").write_text(text + "\n")
    return text
