"""The tables of a stored assessment, from its rows alone (:func:`assessment_tables`): per design, scheme and
test the share of repeats that reject in each direction with exact intervals, R2 with its standard error, the
first repeat's p-value with Berrar's replication probability and the replication rate F; per design the mean
scores, and the effect with its corrected interval and the Bayesian correlated t-test (:func:`effect_table`);
the warnings the learners raised (:func:`warning_summary`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


def warning_rows(caught) -> pd.DataFrame:
    """The warnings of one repeat, counted by category and first line of the message (a ``warnings`` table)."""
    counts: dict[tuple[str, str], int] = {}
    for w in caught:
        text = str(w.message).strip()
        key = (w.category.__name__, text.splitlines()[0][:200].rstrip(":") if text else "")
        counts[key] = counts.get(key, 0) + 1
    return pd.DataFrame(
        {
            "category": [k[0] for k in counts],
            "message": [k[1] for k in counts],
            "count": np.array(list(counts.values()), dtype=np.int64),
        }
    )


def warning_summary(run) -> pd.DataFrame:
    """Every warning the learners raised over the assessment: category, message, count and repeats it occurred in."""
    if "warnings" not in run.tables():
        return pd.DataFrame(columns=["category", "message", "count", "repeats"])
    w = run.table("warnings")
    return (
        w.groupby(["category", "message"], sort=False)
        .agg(count=("count", "sum"), repeats=("replication", "nunique"))
        .reset_index()
        .sort_values("count", ascending=False, kind="stable")
        .reset_index(drop=True)
    )


def _count_replication(spec, x, alpha: float, level: float = 0.95):
    """Berrar's binomial model (Lemma 1) for a count-based test, in that test's own terms.

    The comparisons are all ``n`` differences of the test's sample, ties
    included.  The count of A is the count the test uses (its registered
    ``statistic``): ``wins + ties / 2`` for ``wins, a tie half`` (the sign
    tests), the positive differences for ``wins`` (``binomial``: a tie is not a
    win); B's count is ``n`` minus A's.  The side
    is the one the test's statistic favours (A's count above or below
    ``n / 2``; the sign of the mean when they are equal), so that a significant
    verdict is estimated in its own direction.  With ``theta_hat = count / n``
    (a half-integer count allowed) a replication has ``K ~ Bin(n, theta_hat)``
    wins of that side, and ``P_rep = P(K >= s)``, where ``s`` is the smallest
    whole number of wins of ``n`` (no ties) that the test itself declares
    significant for that side (``n + 1`` when none is).  The ``level``
    prediction interval is ``P(K >= s)`` at the Clopper-Pearson limits of
    ``theta``, the beta quantiles at the (possibly fractional) count.  Without
    ties, the sign and binomial tests give :func:`simstudy.statistics.replication.binomial_model`
    exactly.

    Returns
    -------
    tuple
        ``(model, estimate, low, high)``; the model names the tie convention.
    """
    from simstudy.statistics import _distributions as _d

    x = np.asarray(x, dtype=float).ravel()
    n = x.size
    pos, ties = int((x > 0).sum()), int((x == 0).sum())
    if spec.statistic == "wins":
        count_a, model = float(pos), "binomial (ties are not wins)"
    else:
        count_a, model = pos + ties / 2.0, "binomial (a tie counts half)"
    side = 1 if count_a > n / 2 else -1 if count_a < n / 2 else (1 if np.mean(x) >= 0 else -1)
    count = count_a if side > 0 else n - count_a
    s = _count_threshold(spec, n, alpha, side)
    c = 1.0 - level
    theta = count / n
    lo = float(_d.beta_ppf(c / 2, count, n - count + 1)) if count > 0 else 0.0
    hi = float(_d.beta_ppf(1 - c / 2, count + 1, n - count)) if count < n else 1.0

    def p_rep(t):
        return float(_d.binom_sf(float(s - 1), float(n), t))

    return model, p_rep(theta), p_rep(lo), p_rep(hi)


def _count_threshold(spec, n: int, alpha: float, side: int) -> int:
    """Smallest number ``s`` of wins of ``side`` among ``n`` comparisons without ties that ``spec`` declares
    significant for that side at ``alpha`` (``n + 1`` when no number is); found by running the test itself on
    the ``n + 1`` samples of ``s`` wins and ``n - s`` losses of that side."""
    s = np.arange(n + 1)
    wins_of_a = s if side > 0 else n - s
    sample = np.where(np.arange(n)[None, :] < wins_of_a[:, None], 1.0, -1.0)
    hit = np.flatnonzero(np.asarray(spec(sample).decision(alpha)) == side)
    return int(hit[0]) if hit.size else n + 1


def _score_columns(scores: pd.DataFrame) -> tuple[str, str]:
    """The stored score columns of A and B: ``acc_a``, ``acc_b`` for accuracy, ``score_a``, ``score_b`` otherwise."""
    return ("acc_a", "acc_b") if "acc_a" in scores.columns else ("score_a", "score_b")


def stored_metric(run) -> str:
    """The per-split score a stored assessment compares (``accuracy`` unless its settings name another)."""
    return str(run.manifest.get("config", {}).get("settings", {}).get("metric", "accuracy"))


def _replication_estimate(test: str, block: pd.DataFrame, cond_row, alpha: float, scheme: str):
    """Berrar's replication probability of the first repeat's verdict: (model, estimate, low, high)."""
    from simstudy.pipeline.outcomes import get_test, run_test
    from simstudy.pipeline.scores import PairedScores
    from simstudy.statistics import replication as rp

    runs = int(block["run"].max()) + 1
    folds = int(block["fold"].max()) + 1
    block = block.sort_values(["run", "fold"])
    col_a, col_b = _score_columns(block)
    a = block[col_a].to_numpy(float).reshape(runs, folds)
    b = block[col_b].to_numpy(float).reshape(runs, folds)
    scores = PairedScores(a, b, float(cond_row["n_train"]), float(cond_row["n_test"]))
    spec = get_test(test)
    try:
        res = run_test(spec, scores, scheme=scheme or None)
    except ValueError:
        return "n/a", np.nan, np.nan, np.nan
    stat = float(np.asarray(res.statistic))
    df = np.asarray(res.df, dtype=float) if res.df is not None else np.array(np.nan)
    if not np.isfinite(stat):
        return "n/a", np.nan, np.nan, np.nan
    if spec.statistic in ("wins", "wins, a tie half"):
        from simstudy.pipeline.schemes import scheme_sample

        x = scheme_sample(scores.diffs, scheme) if scheme else scores.diffs.ravel()
        if x.size < 1:
            return "n/a", np.nan, np.nan, np.nan
        return _count_replication(spec, x, alpha)
    if spec.statistic == "signed rank":
        est = rp.wilcoxon_model(abs(stat), 1.0, alpha=alpha)
        return "Wilcoxon (s* = 1)", float(est.estimate), float(est.low), float(est.high)
    if spec.statistic != "t" or not np.all(np.isfinite(df)) or float(df) <= 0:
        return "n/a", np.nan, np.nan, np.nan
    est = rp.t_model(abs(stat), float(df), alpha=alpha)
    return "non-central t", float(est.estimate), float(est.low), float(est.high)


def assessment_tables(run) -> dict[str, pd.DataFrame]:
    """Per design, scheme and test: rejections, R2, agreement, the first repeat and its replication estimates.

    Parameters
    ----------
    run : simstudy.engine.store.RunData
        The stored assessment.

    Returns
    -------
    dict of DataFrame
        ``assessment``: one row per design, scheme and test; ``effect``: per
        design, the mean score of A and B over every split of every repeat.
        Computed from the stored rows alone.
    """
    from simstudy.statistics.intervals import clopper_pearson
    from simstudy.statistics.replicability import r2, r2_variance

    out = run.table("outcomes")
    scores = run.table("scores")
    rows = []
    for (cond, scheme, test), grp in out.groupby(["condition", "scheme", "test"], sort=False):
        grp = grp.sort_values("replication")
        dec = grp["decision"].to_numpy(int)
        n = dec.size
        first = grp.iloc[0]
        a_n, b_n = int((dec > 0).sum()), int((dec < 0).sum())
        sig = a_n + b_n
        lo_a, hi_a = clopper_pearson(a_n, n)
        lo_b, hi_b = clopper_pearson(b_n, n)
        rep = float(r2(dec)) if n >= 2 else np.nan
        two_outcome = not (a_n and b_n)
        se = float(np.sqrt(r2_variance(min(max(rep, 0.5), 1.0), n))) if n >= 2 and two_outcome else np.nan
        agree = bool((dec == dec[0]).all())
        first_dec = int(first["decision"])
        same = int((dec == first_dec).sum())
        f_first = (same - 1) / (n - 1) if first_dec != 0 and n >= 2 else np.nan
        f_mean = (sum(c * (c - 1) for c in (a_n, b_n)) / (sig * (n - 1))) if sig and n >= 2 else np.nan
        block = scores[(scores["condition"] == cond) & (scores["replication"] == first["replication"])]
        model, p_rep, p_lo, p_hi = _replication_estimate(test, block, first, float(first["alpha"]), scheme)
        rows.append(
            {
                "design": cond,
                "scheme": scheme,
                "test": test,
                "repeats": n,
                "A better": a_n,
                "B better": b_n,
                "not significant": n - sig,
                "share A better": a_n / n,
                "A low": float(lo_a),
                "A high": float(hi_a),
                "share B better": b_n / n,
                "B low": float(lo_b),
                "B high": float(hi_b),
                "R2": rep,
                "R2 se": se,
                "all agree": agree,
                "first statistic": float(first["statistic"]),
                "first p": float(first["pvalue"]),
                "first verdict": {1: "A better", -1: "B better", 0: "not significant"}[first_dec],
                "P_rep model": model,
                "P_rep": p_rep,
                "P_rep low": p_lo,
                "P_rep high": p_hi,
                "F first": f_first,
                "F mean": f_mean,
            }
        )
    table = pd.DataFrame(rows)
    col_a, col_b = _score_columns(scores)
    means = (
        scores.groupby("condition", sort=False)[[col_a, col_b]]
        .mean()
        .reset_index()
        .rename(columns={"condition": "design", col_a: "mean A", col_b: "mean B"})
    )
    means.insert(1, "metric", stored_metric(run))
    return {"assessment": table, "effect": means}


def effect_table(
    run, designs, means: pd.DataFrame, *, rope: float = 0.01, klass: str | None = None, alpha=0.05
) -> pd.DataFrame:
    """``means`` with, per design, the effect of the first repeat and how often the interval excluded 0.

    Per design: the first repeat's mean difference A - B with the 95%
    interval the design's corrected t-test inverts (Nadeau-Bengio variance:
    ``(1/n + n_test/n_train) s^2`` over the n splits; for 5x2cv, whose own
    tests are Dietterich's t and Alpaydin's F, the same variance with
    ``n_test/n_train = 1``, so its interval agrees with neither), the Bayesian correlated
    t-test's probabilities of A better, practically equivalent (within
    ``rope``) and B better, and in how many repeats the interval lay above 0
    (A better) or below it (B better).

    ``klass``, the stability class of the learners on the shipped evidence,
    chooses the procedure the Conclusion decides by where the shipped
    calibration holds one (:func:`simstudy.apps.conclusion.class_procedure`):
    the corrected t over the repeats pooled, or over the first repeat, with
    the class's factor.  Its numbers go in ``decided on``, ``decision: A - B``,
    ``decision low`` / ``decision high`` and ``decision P(A better)``,
    ``decision P(equivalent)``, ``decision P(B better)``.
    """
    from simstudy.apps.conclusion import class_procedure
    from simstudy.statistics.bayesian import correlated_t_test
    from simstudy.statistics.effect import corrected_difference_interval

    scores = run.table("scores")
    col_a, col_b = _score_columns(scores)
    by_key = {d.key: d for d in designs}
    extra = []
    for key in means["design"]:
        d = by_key[key]
        rows = scores[scores["condition"] == key].sort_values(["replication", "run", "fold"])
        reps = rows["replication"].nunique()
        diff = (rows[col_a].to_numpy(float) - rows[col_b].to_numpy(float)).reshape(reps, -1)
        ci = corrected_difference_interval(diff, n_train=d.n_train, n_test=d.n_test)
        side = np.asarray(ci.excludes_zero())
        first = correlated_t_test(diff[0], n_train=d.n_train, n_test=d.n_test, rope=rope)
        extra.append(
            {
                "first: A - B": float(np.asarray(ci.mean)[0]),
                "low": float(np.asarray(ci.low)[0]),
                "high": float(np.asarray(ci.high)[0]),
                "ROPE": f"±{rope:g}",
                "P(A better)": float(first.p_a_better),
                "P(equivalent)": float(first.p_rope),
                "P(B better)": float(first.p_b_better),
                "interval above 0": f"{int((side > 0).sum())}/{reps}",
                "interval below 0": f"{int((side < 0).sum())}/{reps}",
                **_decision_numbers(diff, d, class_procedure(key, reps, klass, alpha=alpha), rope),
            }
        )
    return pd.concat([means.reset_index(drop=True), pd.DataFrame(extra)], axis=1)


def _decision_numbers(diff: np.ndarray, d, proc: dict | None, rope: float) -> dict:
    """The interval and Bayesian probabilities of the procedure ``proc`` decides by (none: no columns):
    the corrected t on the first ``proc["repeats"]`` repeats' splits pooled, its term ``n_test/n_train``
    times ``proc["factor"]``."""
    if proc is None:
        return {}
    from simstudy.statistics.bayesian import correlated_t_test
    from simstudy.statistics.effect import corrected_difference_interval

    values = diff[: proc["repeats"]].reshape(-1)
    n_test = d.n_test * float(proc["factor"])
    ci = corrected_difference_interval(values, n_train=d.n_train, n_test=n_test)
    bay = correlated_t_test(values, n_train=d.n_train, n_test=n_test, rope=rope)
    return {
        "decided on": f"{proc['repeats']} repeats pooled" if proc["repeats"] > 1 else "first repeat",
        "decision: A - B": float(ci.mean),
        "decision low": float(ci.low),
        "decision high": float(ci.high),
        "decision P(A better)": float(bay.p_a_better),
        "decision P(equivalent)": float(bay.p_rope),
        "decision P(B better)": float(bay.p_b_better),
    }
