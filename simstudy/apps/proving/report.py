"""The proving ground's report: tables, figures and the papers' statements, from stored rows only.

:func:`build_report` reads a stored run of the proving ground, applies any
plug-in tests to its stored paired scores (no refitting: the same data sets,
partitions and fits the built-in tests saw), computes the tables of
:mod:`simstudy.apps.proving.summary` and, when Berrar's studies are stored, the
calibration of his replication probabilities
(:mod:`simstudy.apps.proving.berrar_calibration`), and writes
``proving-ground.md`` and ``proving-ground.html`` with their figures into the
run directory, beside its tables in CSV (the per-scenario power and
replicability of every procedure only there: a page could not hold them).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._files import DEFAULT_ROOT, folder_below
from simstudy._lazy import lazy_module
from simstudy.apps.proving.study import ALPHA, ALPHA_MAX
from simstudy.apps.proving.summary import (
    ALPHAS,
    P_GRID,
    calibration,
    leaderboard,
    load_outcomes,
    named_procedures,
    power_table,
    procedure_label,
    procedures,
    pvalue_distribution,
    replicability_table,
    size_table,
)

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["plugin_rows", "build_report", "write_berrar_page", "statements", "REPORT_NAME"]

REPORT_NAME = "proving-ground"
#: The score columns the diagnostics read.
SCORE_COLUMNS = [
    "condition",
    "replication",
    "design",
    "experiment",
    "run",
    "fold",
    "acc_a",
    "acc_b",
    "n_train",
    "n_test",
    "n01",
    "n10",
]


# ------------------------------------------------------------------------------------------ plug-ins


def plugin_rows(scores: pd.DataFrame, fn, ref: str, *, timeout=None) -> pd.DataFrame:
    """Outcome rows of a plug-in test on every stored design and scenario (vectorised per block).

    Columns as the stored outcomes: ``condition``, ``replication``, ``experiment``,
    ``design``, ``scheme`` (empty), ``test`` (the reference), ``statistic``,
    ``pvalue``, ``sign`` (direction of a rejection at any level up to
    :data:`ALPHA_MAX`) and ``decision`` (at 0.05); and two flags (see
    :func:`~simstudy.apps.proving.summary.procedures`): ``decision_only`` where
    the plug-in returned decisions (its ``sign`` and ``decision`` are those
    decisions, its p-value NaN) and ``declined`` where it returned None for the
    design (placeholder rows that nothing counts).

    ``fn`` is the plug-in (a callable runs in this process), a
    :class:`~simstudy.pipeline.plugins.PluginProcess`, or a reference string, which is
    loaded in a worker process for these rows (see :mod:`simstudy.pipeline.plugins`);
    ``timeout`` limits each call (None: :data:`simstudy.pipeline.plugins.DEFAULT_TIMEOUT`).
    """
    from simstudy.pipeline.plugins import DEFAULT_TIMEOUT, open_plugin

    timeout = DEFAULT_TIMEOUT if timeout is None else timeout
    if isinstance(fn, str):
        with open_plugin(fn, "test", timeout=timeout) as proc:
            return _plugin_rows(scores, proc, ref, timeout)
    return _plugin_rows(scores, fn, ref, timeout)


def _plugin_rows(scores: pd.DataFrame, fn, ref: str, timeout) -> pd.DataFrame:
    from simstudy.pipeline.plugins import run_test
    from simstudy.pipeline.scores import PairedScores

    parts = []
    for (cond, design), g in scores.groupby(["condition", "design"], sort=False):
        g = g.sort_values(["replication", "experiment", "run", "fold"], kind="stable")
        reps = g["replication"].unique()
        E, R, K = g["experiment"].nunique(), g["run"].nunique(), g["fold"].nunique()
        shape = (reps.size, E, R, K)
        if len(g) != int(np.prod(shape)):
            raise ValueError(f"scores: the stored scores of {cond} / {design} do not form complete blocks")
        counts = {k: g[k].to_numpy().reshape(shape) for k in ("n01", "n10") if k in g}
        ps = PairedScores(
            g["acc_a"].to_numpy(float).reshape(shape),
            g["acc_b"].to_numpy(float).reshape(shape),
            n_train=int(g["n_train"].iloc[0]),
            n_test=int(g["n_test"].iloc[0]),
            **counts,
        )
        res = run_test(fn, ps, ALPHA_MAX, timeout=timeout)
        p = res["pvalue"].ravel()
        sign = res["decision"].ravel().astype(np.int8)
        # a decision-only test decides by its own rule: its decisions are its decisions at every level
        decision = sign if res["decision_only"] else np.where(np.nan_to_num(p, nan=2.0) <= ALPHA, sign, 0)
        parts.append(
            pd.DataFrame(
                {
                    "condition": cond,
                    "replication": np.repeat(reps, E),
                    "experiment": np.tile(np.arange(E), reps.size),
                    "design": design,
                    "scheme": "",
                    "test": ref,
                    "statistic": res["statistic"].ravel(),
                    "pvalue": p,
                    "sign": sign,
                    "decision": decision.astype(np.int8),
                    "decision_only": bool(res["decision_only"]),
                    "declined": bool(res["declined"]),
                }
            )
        )
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


# ------------------------------------------------------------------------------------------ statements


def _paired_power_difference(pr, a: str, b: str, alpha=ALPHA, keys=None):
    """Mean over the alternative data sets (of the scenarios ``keys``, default all) of power(a) - power(b), with
    its 95% t interval (percent)."""
    from simstudy.statistics.intervals import mean_interval

    ta, tb = pr.truth_of(a), pr.truth_of(b)
    alt = np.isfinite(ta) & (ta != 0) & np.isfinite(tb) & (tb != 0)
    if keys is not None:
        alt &= pr.units["condition"].isin(list(keys)).to_numpy()
    pa = (pr.decisions(a, alpha)[alt] == ta[alt][:, None]).mean(axis=1)
    pb = (pr.decisions(b, alpha)[alt] == tb[alt][:, None]).mean(axis=1)
    m, lo, hi = mean_interval(pa - pb)
    return 100 * float(m), 100 * float(lo), 100 * float(hi)


def _paired_r2_difference(pr, a: str, b: str, alpha=ALPHA):
    """Mean over data sets of known truth of R2(a) - R2(b) (percent), with its 95% t interval."""
    from simstudy.statistics.intervals import mean_interval
    from simstudy.statistics.replicability import r2

    known = np.isfinite(pr.truth_of(a)) & np.isfinite(pr.truth_of(b))
    ra = np.asarray(r2(pr.decisions(a, alpha)[known]), dtype=float)
    rb = np.asarray(r2(pr.decisions(b, alpha)[known]), dtype=float)
    m, lo, hi = mean_interval(ra - rb)
    return 100 * float(m), 100 * float(lo), 100 * float(hi)


def _size_claim(sizes: pd.DataFrame, proc: str, scenarios=None, *, want: str, every: bool = True) -> tuple[str, str]:
    """(ours, verdict) of a claim about a procedure's size on some null scenarios (default all it was judged on).

    ``want`` is the verdict the claim asserts (``controls size`` or ``liberal``);
    with ``every`` it must hold on every scenario, else on at least one.
    """
    from simstudy.statistics.size_control import CONTROLS, LIBERAL, UNRESOLVED

    t = sizes[sizes["procedure"] == proc]
    if scenarios is not None:
        t = t[t["scenario"].isin(list(scenarios))]
    if t.empty:
        return "not stored", "n/a"
    v = t["verdict"]
    worst = t.sort_values("type1_high", ascending=False).iloc[0]
    ours = (
        f"{len(t)} null scenario(s): {int((v == CONTROLS).sum())} control size, {int((v == LIBERAL).sum())} "
        f"liberal, {int((v == UNRESOLVED).sum())} unresolved; highest {worst['type1']:.1f}% "
        f"[{worst['type1_low']:.1f}, {worst['type1_high']:.1f}] ({worst['scenario']}, {int(worst['n'])} data sets)"
    )
    if want == CONTROLS:
        verdict = "holds" if (v == CONTROLS).all() else "does not hold" if (v == LIBERAL).any() else "unresolved"
    elif every:
        verdict = "holds" if (v == LIBERAL).all() else "does not hold" if (v == CONTROLS).any() else "unresolved"
    else:
        verdict = "holds" if (v == LIBERAL).any() else "does not hold" if (v == CONTROLS).all() else "unresolved"
    return ours, verdict


def _difference_verdict(low, high) -> str:
    """A claim that a paired difference is positive: holds, does not hold, or unresolved (the interval covers 0)."""
    if low > 0:
        return "holds"
    if high < 0:
        return "does not hold"
    return "unresolved"


def _power_claim(pr, better: str, worse: str, alpha=ALPHA, keys=None) -> tuple[str, str, tuple]:
    """(ours, verdict, (m, lo, hi)) of "better has more power than worse", from the paired raw power difference."""
    m, lo, hi = _paired_power_difference(pr, better, worse, alpha, keys)
    return (
        f"paired difference of power {m:+.1f} [{lo:+.1f}, {hi:+.1f}] points",
        _difference_verdict(lo, hi),
        (m, lo, hi),
    )


def _keys(pr, family: str, null: bool | None = None) -> list:
    from simstudy.apps.proving.scenarios import BANK

    return [
        k
        for k in pd.unique(pr.units["condition"])
        if k in BANK and BANK[k].family == family and (null is None or BANK[k].null_by_construction == null)
    ]


def statements(pr, board: pd.DataFrame, named: dict, alpha=ALPHA, sizes: pd.DataFrame | None = None) -> pd.DataFrame:
    """The papers' statements that the proving ground can check, each with our numbers and a verdict.

    Statements about size use the size verdicts (:mod:`simstudy.statistics.size_control`):
    "holds" needs every scenario's interval to decide in the statement's favour,
    "does not hold" one interval deciding against it, otherwise "unresolved".
    Statements about power and replicability use the paired interval of the
    difference over data sets.
    """
    from simstudy.apps.proving.summary import size_table
    from simstudy.statistics.size_control import CONTROLS, LIBERAL

    sizes = size_table(pr) if sizes is None else sizes
    b = board.set_index("procedure")
    label_of = {v: k for k, v in named.items()}
    rows = []

    def iv(proc, col):
        r = b.loc[proc]
        return f"{r[col]:.1f}% [{r[col + '_mc_low']:.1f}, {r[col + '_mc_high']:.1f}]"

    def find(prefix):
        return next((named[k] for k in named if k.startswith(prefix)), None)

    def add(statement, source, proc_or_ours, verdict):
        rows.append({"statement": statement, "source": source, "ours": proc_or_ours, "verdict": verdict})

    for prefix, src in (
        (
            "resampled t (10",
            "Nadeau and Bengio 2003; Bouckaert and Frank 2004 (resampled 100x: about 60% on their null source)",
        ),
        ("10x10 cv t, uncorrected", "Bouckaert and Frank 2004 (uncorrected 10x10 cv: 59%)"),
        ("Welch t", "treats overlapping training sets as independent"),
    ):
        proc = find(prefix)
        if proc is None or proc not in b.index:
            continue
        add(
            f"{prefix.rstrip(' (10')}: Type I error above alpha = {alpha:g} (liberal on some null scenario)",
            src,
            *_size_claim(sizes, proc, want=LIBERAL, every=False),
        )
    for prefix, src in (
        ("corrected resampled t (10", "Nadeau and Bengio 2003; Bouckaert and Frank 2004 (3.0%)"),
        ("corrected 10x10 cv t", "Bouckaert and Frank 2004 (3.3%)"),
        ("5x2cv t", "Dietterich 1998 (acceptable Type I error)"),
        ("sorted runs t", "Bouckaert 2004 (4.5% on his null source)"),
    ):
        proc = find(prefix)
        if proc is None or proc not in b.index:
            continue
        add(
            f"{prefix.rstrip(' (10')}: controls size on every null scenario",
            src,
            *_size_claim(sizes, proc, want=CONTROLS),
        )
    five, corr = find("5x2cv t"), find("corrected 10x10 cv t")
    for other in (corr, find("corrected resampled t (10"), find("sorted runs t")):
        if five and other and five in b.index and other in b.index:
            ours, verdict, _ = _power_claim(pr, other, five, alpha)
            add(
                f"5x2cv t has less power than {label_of.get(other, other)}",
                "Bouckaert and Frank 2004 (5x2cv power 6/16/46% against 16/68/97% for the corrected 10x10 cv test); "
                "Dietterich 1998",
                f"power {iv(five, 'power')} against {iv(other, 'power')}; {ours}",
                verdict,
            )
    if pr.n_experiments >= 2:
        for better, worse, src in (
            (corr, five, "Bouckaert and Frank 2004: the corrected repeated cv test is more replicable than 5x2cv"),
            (
                find("sorted runs t"),
                find("10-fold cv t"),
                "Bouckaert 2004: sorted runs are more replicable than a single 10-fold cv",
            ),
        ):
            if better and worse and better in b.index and worse in b.index:
                m, lo, hi = _paired_r2_difference(pr, better, worse, alpha)
                add(
                    f"{label_of.get(better, better)} is more replicable (R2) than {label_of.get(worse, worse)}",
                    src,
                    f"paired difference of R2 over data sets {m:+.1f} [{lo:+.1f}, {hi:+.1f}] points",
                    _difference_verdict(lo, hi),
                )
    out = pd.DataFrame(rows, columns=["statement", "source", "ours", "verdict"])
    return pd.concat([out, anchors(pr, named, sizes, alpha)], ignore_index=True)


def _origin(run) -> str:
    """Where the page comes from: when and by which code the rows were made, when and where it was written."""
    from datetime import datetime, timezone

    from simstudy.outputs.report import _provenance

    made = str(run.manifest.get("created", "?"))[:10]
    code = str((run.manifest.get("provenance") or {}).get("code", "?"))[:12]
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"Rows stored from {made} (code fingerprint `{code}`); page written {stamp}, {_provenance()}."


def anchors(pr, named: dict, sizes: pd.DataFrame, alpha=ALPHA) -> pd.DataFrame:
    """Nadeau and Bengio's (2003) and Dietterich's (1998) qualitative claims on the worlds built in their style."""
    from simstudy.statistics.size_control import CONTROLS, LIBERAL

    rows = []

    def add(statement, source, ours, verdict):
        rows.append({"statement": statement, "source": source, "ours": ours, "verdict": verdict})

    nb_nulls = _keys(pr, "nadeau_bengio", null=True)
    res, cres = named.get("resampled t (10 splits)"), named.get("corrected resampled t (10 splits)")
    src = "Nadeau and Bengio 2003, classification of two Gaussian classes (Sigma1 = I/2, I/6; n = 200, 2000)"
    if nb_nulls and res:
        add(
            "Nadeau-Bengio setting: the naive resampled t is liberal on every null",
            src,
            *_size_claim(sizes, res, nb_nulls, want=LIBERAL),
        )
    if nb_nulls and cres:
        add(
            "Nadeau-Bengio setting: the corrected resampled t controls size on every null",
            src,
            *_size_claim(sizes, cres, nb_nulls, want=CONTROLS),
        )
    g_nulls, g_alts = _keys(pr, "gaussian", null=True), _keys(pr, "gaussian", null=False)
    d = {
        k: named.get(k)
        for k in (
            "McNemar (holdout)",
            "difference of proportions (holdout)",
            "resampled t (30 splits, a third held out)",
            "10-fold cv t (first run)",
            "5x2cv t",
        )
    }
    src = "Dietterich 1998 (two-view Gaussian worlds in the style of his simulation)"
    if g_nulls:
        for label, want, every, text in (
            ("McNemar (holdout)", CONTROLS, True, "McNemar's test has low Type I error"),
            (
                "difference of proportions (holdout)",
                LIBERAL,
                False,
                "the difference-of-proportions test has high Type I error in some settings",
            ),
            (
                "resampled t (30 splits, a third held out)",
                LIBERAL,
                False,
                "the resampled t-test (30 splits) has high Type I error",
            ),
            ("10-fold cv t (first run)", LIBERAL, False, "the 10-fold cv t-test has somewhat elevated Type I error"),
            ("5x2cv t", CONTROLS, True, "the 5x2cv t-test has acceptable Type I error"),
        ):
            if d.get(label):
                add(text, src, *_size_claim(sizes, d[label], g_nulls, want=want, every=every))
    if g_alts and d.get("10-fold cv t (first run)"):
        cv = d["10-fold cv t (first run)"]
        parts, verdicts = [], []
        # Dietterich rules the resampled t out for its Type I error before comparing power; its raw
        # power, bought with a Type I error of 30% and more, is no rival of the cv t.
        for label in ("McNemar (holdout)", "difference of proportions (holdout)", "5x2cv t"):
            if d.get(label):
                ours, verdict, _ = _power_claim(pr, cv, d[label], alpha, g_alts)
                parts.append(f"against {label}: {ours.replace('paired difference of power ', '')}")
                verdicts.append(verdict)
        if verdicts:
            overall = (
                "holds"
                if all(v == "holds" for v in verdicts)
                else "does not hold"
                if any(v == "does not hold" for v in verdicts)
                else "unresolved"
            )
            add(
                "the 10-fold cv t-test is the most powerful of the five (the resampled t, ruled out for its "
                "Type I error, aside)",
                src,
                "paired differences of power over the alternative data sets: " + "; ".join(parts),
                overall,
            )
    if g_alts and d.get("5x2cv t") and d.get("McNemar (holdout)"):
        ours, verdict, _ = _power_claim(pr, d["5x2cv t"], d["McNemar (holdout)"], alpha, g_alts)
        add("the 5x2cv t-test is slightly more powerful than McNemar's test", src, ours, verdict)
    return pd.DataFrame(rows, columns=["statement", "source", "ours", "verdict"])


# ------------------------------------------------------------------------------------------ figures


def _colours(n):
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return [cmap(i % 10) for i in range(n)]


def _style(i):
    return ("-", "--", ":")[(i // 10) % 3]


def _legend_below(fig, ax=None, *, ncols=3, fontsize=7):
    """The legend below the plot (an Axes' or, without ``ax``, the figure's), in as many columns as fit."""
    from simstudy.outputs.plots.layout import fit_legend

    def make(n):
        if ax is not None:
            return ax.legend(fontsize=fontsize, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=n,
                             frameon=False)  # fmt: skip
        return fig.legend(fontsize=fontsize, loc="outside lower center", ncols=n, frameon=False)

    return fit_legend(make, ncols=ncols)


def calibration_figure(cal, named):
    """Type I error against alpha on the null worlds, one line per named procedure (a Figure)."""
    from simstudy.outputs.plots.output import new_figure

    fig = new_figure((7.5, 5))
    ax = fig.subplots()
    ax.plot(
        [min(ALPHAS), max(ALPHAS)], [min(ALPHAS), max(ALPHAS)], color="k", lw=1, ls="--", label="Type I error = alpha"
    )
    for i, ((label, proc), c) in enumerate(zip(named.items(), _colours(len(named)))):
        t = cal[cal["procedure"] == proc].sort_values("alpha")
        if t.empty:
            continue
        ax.plot(t["alpha"], t["type1"] / 100, marker="o", ms=3, lw=1.2, color=c, ls=_style(i), label=label)
        ax.fill_between(t["alpha"], t["type1_mc_low"] / 100, t["type1_mc_high"] / 100, color=c, alpha=0.12, lw=0)
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=0.01)
    ax.set_ylim(0, 1)
    ax.set_xlabel("significance level alpha (log scale)")
    ax.set_ylabel("Type I error on the null worlds (symlog scale)")
    ax.set_title("Calibration: Type I error against alpha, 95% Monte Carlo bands", fontsize=10)
    ax.grid(alpha=0.3)
    _legend_below(fig, ax)
    return fig


def _figure_calibration(cal, named, directory):
    from simstudy.outputs.plots.output import save_figure

    return save_figure(calibration_figure(cal, named), directory, "calibration", formats=("png",))[0]


def pvalues_figure(pdist, named):
    """The distribution of null p-values against the uniform, one line per named procedure (a Figure)."""
    from simstudy.outputs.plots.output import new_figure

    fig = new_figure((6.5, 5))
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], color="k", lw=1, ls="--", label="uniform (an exact test)")
    for i, ((label, proc), c) in enumerate(zip(named.items(), _colours(len(named)))):
        t = pdist[pdist["procedure"] == proc]
        if t.empty:
            continue
        ax.plot(P_GRID, t.iloc[0]["ecdf"], lw=1.2, color=c, ls=_style(i), label=label)
    ax.set_xlabel("p")
    ax.set_ylabel("share of null p-values <= p")
    ax.set_title("p-values under the null against the uniform", fontsize=10)
    ax.grid(alpha=0.3)
    _legend_below(fig, ax)
    return fig


def _figure_pvalues(pdist, named, directory):
    from simstudy.outputs.plots.output import save_figure

    return save_figure(pvalues_figure(pdist, named), directory, "pvalues", formats=("png",))[0]


def _panel_order(pairs_and_sizes) -> list:
    """The panels of the Gaussian worlds' figures: a row per learner pair, from the most stable, a column per size.

    The order depends on the pairs and sizes only, never on the order a set happens to iterate in.
    """
    from simstudy.apps.proving.scenarios import STABILITY_ORDER

    rank = {pair: i for i, pair in enumerate(STABILITY_ORDER)}
    return sorted(set(pairs_and_sizes), key=lambda x: (rank.get(x[0], len(rank)), x[0], x[1]))


def gaussian_panels_figure(table, value, named, ylabel, title):
    """A panel per learner pair and size of the Gaussian worlds: ``value`` against the true gap (a Figure or None)."""
    from simstudy.apps.proving.scenarios import BANK
    from simstudy.outputs.plots.layout import wrap_text
    from simstudy.outputs.plots.output import new_figure

    t = table[table["scenario"].map(lambda k: k in BANK and BANK[k].family == "gaussian")]
    if t.empty:
        return None
    t = t.assign(
        pair=t["scenario"].map(lambda k: BANK[k].pair),
        n=t["scenario"].map(lambda k: BANK[k].n_cases),
        rho=t["scenario"].map(lambda k: BANK[k].rho),
        effect=t["scenario"].map(lambda k: BANK[k].effect),
    )
    panels = _panel_order(zip(t["pair"], t["n"]))
    ncol = min(3, len(panels))
    nrow = int(np.ceil(len(panels) / ncol))
    fig = new_figure((max(4 * ncol, 8), 3.2 * nrow + 1.2))
    axes = np.atleast_1d(fig.subplots(nrow, ncol, squeeze=False)).ravel()
    for ax, (pair, n) in zip(axes, panels):
        for (label, proc), c in zip(named.items(), _colours(len(named))):
            for rho, ls in ((0.0, "-"), (0.6, ":")):  # the correlation by line style, the procedure by colour
                s = t[(t["procedure"] == proc) & (t["pair"] == pair) & (t["n"] == n) & (t["rho"] == rho)]
                if s.empty:
                    continue
                s = s.sort_values("effect")
                ax.errorbar(
                    100 * s["gap"],
                    s[value],
                    yerr=np.clip(
                        np.vstack([s[value] - s[f"{value}_mc_low"], s[f"{value}_mc_high"] - s[value]]), 0, None
                    ),
                    color=c,
                    ls=ls,
                    lw=1,
                    marker="o",
                    ms=2.5,
                    capsize=1.5,
                    label=label if (rho == 0.0 and (pair, n) == panels[0]) else None,
                )
        ax.set_title(f"{pair} views, n = {n} (solid rho = 0, dotted 0.6)", fontsize=8)
        ax.set_xlabel("true gap, accuracy points (A - B)", fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.grid(alpha=0.3)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    wrap_text(fig.suptitle(title, fontsize=10), 0.95 * fig.bbox.width)
    _legend_below(fig, ncols=4)
    return fig


def _gaussian_panels(table, value, named, directory, name, ylabel, title):
    from simstudy.outputs.plots.output import save_figure

    fig = gaussian_panels_figure(table, value, named, ylabel, title)
    return None if fig is None else save_figure(fig, directory, name, formats=("png",))[0]


#: Characters per line of a procedure's name on the leaderboard figure (a longer one is broken into lines).
NAME_WIDTH = 60


def leaderboard_figure(board, top=20):
    """The size-controlling procedures by size-adjusted power, with their worst null's Type I error (a Figure or None)."""
    import textwrap

    from simstudy.outputs.plots.layout import wrap_text
    from simstudy.outputs.plots.output import new_figure

    b = board[board["controlled"]].head(top)
    if b.empty:
        return None
    names = [
        "\n".join(textwrap.wrap(f"{int(r)}. {p}", NAME_WIDTH, break_on_hyphens=False))
        for r, p in zip(b["rank"], b["procedure"])
    ]
    lines = max(name.count("\n") + 1 for name in names)
    fig = new_figure((8, (0.3 + 0.1 * (lines - 1)) * len(b) + 2.0))
    ax1, ax2 = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 2]})
    y = np.arange(len(b))
    ax1.errorbar(
        b["adjusted_power"],
        y,
        xerr=np.clip(
            np.vstack(
                [b["adjusted_power"] - b["adjusted_power_mc_low"], b["adjusted_power_mc_high"] - b["adjusted_power"]]
            ),
            0,
            None,
        ),
        fmt="o",
        ms=3,
        color="tab:blue",
        capsize=2,
        label="size-adjusted",
    )
    ax1.plot(b["power"], y, "x", ms=4, color="tab:grey", label="raw")
    ax2.errorbar(
        b["worst_null"],
        y,
        xerr=np.clip(
            np.vstack([b["worst_null"] - b["worst_null_low"], b["worst_null_high"] - b["worst_null"]]), 0, None
        ),
        fmt="o",
        ms=3,
        color="tab:red",
        capsize=2,
    )
    ax2.axvline(100 * ALPHA, color="k", ls="--", lw=1)
    ax2.axvline(150 * ALPHA, color="k", ls=":", lw=1)
    ax1.set_yticks(y, names, fontsize=7)
    ax1.invert_yaxis()
    ax1.set_xlabel("power, % (alternatives; dots size-adjusted, crosses raw)", fontsize=8)
    ax2.set_xlabel(
        f"Type I error of the deciding null scenario, % (simultaneous intervals; dashed alpha = "
        f"{100 * ALPHA:g}%, dotted the tolerance {150 * ALPHA:g}%)",
        fontsize=8,
    )
    ax1.legend(fontsize=7, loc="lower right")
    ax1.grid(alpha=0.3)
    ax2.grid(alpha=0.3)
    title = fig.suptitle(
        f"Leaderboard at alpha = {ALPHA:g}: procedures that control size on every null scenario, by "
        "size-adjusted power (equal rank = tied)",
        fontsize=9,
    )
    wrap_text(title, 0.95 * fig.bbox.width)
    # each axis label under its own panel: as wide as the panel at most (the layout sets the panels' widths)
    fig.draw_without_rendering()
    for ax in (ax1, ax2):
        wrap_text(ax.xaxis.label, ax.get_window_extent().width)
    return fig


def _figure_leaderboard(board, directory, top=20):
    from simstudy.outputs.plots.output import save_figure

    fig = leaderboard_figure(board, top)
    return None if fig is None else save_figure(fig, directory, "leaderboard", formats=("png",))[0]


def size_power_figure(board, named):
    """Every procedure: its worst null scenario's Type I error against its power, raw and size-adjusted (a Figure or None)."""
    import textwrap

    from simstudy.outputs.plots.layout import spread_labels, wrap_text
    from simstudy.outputs.plots.output import new_figure
    from simstudy.statistics.size_control import CONTROLS, LIBERAL

    b = board[np.isfinite(board["worst_null"]) & np.isfinite(board["power"])]
    if b.empty:
        return None
    fig = new_figure((10, 5))
    ax1, ax2 = fig.subplots(1, 2, sharey=True)
    colour = {CONTROLS: "tab:green", LIBERAL: "tab:red"}
    label_of = {v: k for k, v in named.items()}
    labels = {ax1: [], ax2: []}
    for ax, col, title in ((ax1, "power", "raw power"), (ax2, "adjusted_power", "size-adjusted power")):
        for verdict in (CONTROLS, "unresolved", LIBERAL):
            t = b[b["size"] == verdict]
            ax.scatter(t[col], t["worst_null"], s=12, color=colour.get(verdict, "tab:orange"), label=verdict, alpha=0.8)
        for proc, r in b.set_index("procedure").iterrows():
            if proc in label_of and np.isfinite(r[col]):
                labels[ax].append(
                    ax.annotate(
                        "\n".join(textwrap.wrap(label_of[proc], 40, break_on_hyphens=False)),
                        (r[col], r["worst_null"]),
                        fontsize=6,
                        xytext=(3, 2),
                        textcoords="offset points",
                        arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "0.5", "shrinkA": 0, "shrinkB": 2},
                    )
                )
        ax.axhline(100 * ALPHA, color="k", ls="--", lw=1)
        ax.axhline(150 * ALPHA, color="k", ls=":", lw=1)
        ax.set_yscale("symlog", linthresh=10)
        ax.set_xlabel(f"{title}, % (alternative data sets)", fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    ax1.set_ylabel("Type I error of the deciding null scenario, % (symlog)", fontsize=8)
    legend = ax1.legend(fontsize=7, title="size verdict", title_fontsize=7, loc="upper left")
    title = fig.suptitle(
        "Size against power: a liberal test gains raw power that size adjustment takes back "
        f"(dashed alpha = {100 * ALPHA:g}%, dotted the tolerance)",
        fontsize=9,
    )
    wrap_text(title, 0.95 * fig.bbox.width)
    spread_labels(labels[ax1] + labels[ax2], avoid=[legend])
    return fig


def _figure_size_power(board, named, directory):
    """Every procedure: its worst null scenario's Type I error against its power, raw and size-adjusted."""
    from simstudy.outputs.plots.output import save_figure

    fig = size_power_figure(board, named)
    return None if fig is None else save_figure(fig, directory, "size-power", formats=("png",))[0]


# ------------------------------------------------------------------------------------------ the page


def _view_board(board):
    """The leaderboard as printed: percentages with their intervals in one cell each."""

    from simstudy.statistics.size_control import DECLINED

    def iv(r, col, low, high):
        if not np.isfinite(r[col]):
            return "n/a"
        return f"{r[col]:.1f} [{r[low]:.1f}, {r[high]:.1f}]"

    rows = []
    for _, r in board.iterrows():
        if r["size"] == DECLINED:  # a plug-in that declined the design everywhere: no number at all
            rows.append({"rank": "", "tied with": "", "procedure": r["procedure"], "size": DECLINED})
            continue
        no_p = bool(r.get("decision_only", False))
        rows.append(
            {
                "rank": "" if not np.isfinite(r["rank"]) else int(r["rank"]),
                "tied with": "" if not np.isfinite(r["tied_with"]) else int(r["tied_with"]),
                "procedure": r["procedure"],
                "size": r["size"],
                "size-adjusted power %": "n/a: no p-values"
                if no_p
                else iv(r, "adjusted_power", "adjusted_power_mc_low", "adjusted_power_mc_high"),
                "raw power %": iv(r, "power", "power_mc_low", "power_mc_high"),
                "deciding null scenario": r["worst_null_scenario"],
                "its Type I error %": iv(r, "worst_null", "worst_null_low", "worst_null_high"),
                "its data sets": r["worst_null_n"],
                "null scenarios (liberal / unresolved)": f"{r['null_scenarios']} ({r['liberal_scenarios']} / "
                f"{r['unresolved_scenarios']})",
                "pooled Type I error %": iv(r, "type1", "type1_mc_low", "type1_mc_high"),
                "wrong direction %": "n/a" if not np.isfinite(r["wrong_direction"]) else f"{r['wrong_direction']:.1f}",
                "R2 %": iv(r, "r2", "r2_mc_low", "r2_mc_high"),
            }
        )
    view = pd.DataFrame(rows)
    if len(view) and (board["size"] == DECLINED).any():
        view = view.astype(object).fillna(DECLINED)
    return view


def _scenario_verdicts(sizes, procs) -> pd.DataFrame:
    """Null scenarios by rows, the procedures ``procs`` (label -> procedure) by columns: verdict, Type I error %
    [simultaneous interval], data sets."""
    t = sizes[sizes["procedure"].isin(list(procs.values()))]
    if t.empty:
        return t
    cell = t.assign(
        cell=[
            f"{v}: {x:.1f} [{lo:.1f}, {hi:.1f}], {n}"
            for v, x, lo, hi, n in zip(t["verdict"], t["type1"], t["type1_low"], t["type1_high"], t["n"])
        ]
    )
    wide = cell.pivot(index="scenario", columns="procedure", values="cell")
    wide = wide[[p for p in procs.values() if p in wide.columns]]
    wide.columns = [k for k, p in procs.items() if p in wide.columns]
    return wide.reset_index()


def _diagnosis_view(diag, factors, measured, sizes, named) -> pd.DataFrame:
    """Per null scenario and design: the measured correlations and factors against the assumed ones."""
    if diag is None or not len(diag):
        return pd.DataFrame()

    def iv(r, name, scale=1.0, fmt=".3f"):
        if not np.isfinite(r[name]):
            return "n/a"
        return f"{scale * r[name]:{fmt}} [{scale * r[name + '_low']:{fmt}}, {scale * r[name + '_high']:{fmt}}]"

    rows = []
    for _, r in diag.iterrows():
        proc = procedure_label(
            r["design"], "", "corrected_cv_t" if r["design"].startswith("cv") else "corrected_resampled_t"
        )
        v = sizes[(sizes["procedure"] == proc) & (sizes["scenario"] == r["scenario"])]
        m = (
            measured[(measured["scenario"] == r["scenario"]) & (measured["design"] == r["design"])]
            if measured is not None and len(measured)
            else pd.DataFrame()
        )
        rows.append(
            {
                "scenario": r["scenario"],
                "design": r["design"],
                "data sets": r["data_sets"],
                "corr. between partitions": iv(r, "rho_between"),
                "corr. within a partition": iv(r, "rho_within"),
                "n_test/n assumed": f"{r['rho_assumed']:.3f}",
                "factor needed": iv(r, "factor_needed"),
                "factor used (corrected t)": f"{r['factor_corrected']:.3f}",
                "training-set share of the variance %": iv(r, "train_share", 100, ".0f"),
                "corrected t": (f"{v.iloc[0]['verdict']}: {v.iloc[0]['type1']:.1f}%" if len(v) else "n/a"),
                "corrected t with the measured factor %": (
                    f"{m.iloc[0]['type1']:.1f} [{m.iloc[0]['type1_low']:.1f}, {m.iloc[0]['type1_high']:.1f}]"
                    if len(m)
                    else "n/a"
                ),
            }
        )
    return pd.DataFrame(rows)


def _explanations(sizes, pr, diag, factors, named) -> pd.DataFrame:
    """For every liberal verdict of a procedure the papers name: what the diagnostics say."""
    from simstudy.apps.proving.diagnostics import explain
    from simstudy.statistics.size_control import LIBERAL

    info = pr.info.set_index("procedure")
    label_of = {v: k for k, v in named.items()}
    t = sizes[(sizes["verdict"] == LIBERAL) & sizes["procedure"].isin(list(named.values()))]
    rows = []
    for _, r in t.iterrows():
        i = info.loc[r["procedure"]]
        split = diag[(diag["scenario"] == r["scenario"]) & (diag["design"] == i["design"])] if len(diag) else diag
        fac = (
            factors[
                (factors["scenario"] == r["scenario"])
                & (factors["design"] == i["design"])
                & (factors["scheme"] == i["scheme"])
            ]
            if len(factors)
            else factors
        )
        rows.append(
            {
                "procedure": label_of[r["procedure"]],
                "scenario": r["scenario"],
                "Type I error %": f"{r['type1']:.1f} [{r['type1_low']:.1f}, {r['type1_high']:.1f}]",
                "what the diagnostics say": explain(
                    dict(i), split.iloc[0] if len(split) else None, fac.iloc[0] if len(fac) else None
                ),
            }
        )
    return pd.DataFrame(rows)


def _calibration_wide(cal, procs):
    t = cal[cal["procedure"].isin(procs)]
    wide = t.pivot(index="procedure", columns="alpha", values="type1")
    wide = wide.reindex(procs)
    wide.columns = [f"alpha {a:g}" for a in wide.columns]
    return wide.reset_index()


def _berrar_items(berrar, figure):
    items = [
        (
            "md",
            "Berrar's replication probability P, computed from one significant experiment, against the "
            "observed rate F at which an independent replication of the same group is significant too "
            "(leave-one-out). Brier score of P against that outcome (unbiased), beside the constant "
            "forecast 'the pooled rate'; mean P - F > 0 is over-confidence.",
        )
    ]
    if berrar["notes"]:
        items.append(("md", "Notes: " + "; ".join(berrar["notes"])))
    if figure:
        items.append(
            (
                "figure",
                (
                    figure,
                    "Reliability diagrams of Berrar's estimates, studies 1-3: observed "
                    "replication rate against P, per model",
                ),
            )
        )
    if len(berrar["brier"]):
        items.append(("table", berrar["brier"]))
    for (study, model), t in berrar["reliability"].items():
        items.append(("md", f"{study}, {model}:"))
        items.append(("table", t))
    return items


def _render(title, sections, out):
    """Markdown and HTML of ``sections`` [(title, [(kind, payload)])], figures linked relative to ``out``."""
    from simstudy.outputs.tables import html_table, markdown_table

    md = [f"# {title}", ""]
    body = [f"<h1>{html.escape(title)}</h1>"]
    for heading, items in sections:
        md += [f"## {heading}", ""]
        body.append(f"<h2>{html.escape(heading)}</h2>")
        for kind, payload in items:
            if kind == "md":
                md += [payload, ""]
                body.append(f"<p>{html.escape(payload).replace('`', '')}</p>")
            elif kind == "table":
                if payload is None or len(payload) == 0:
                    continue
                md += [markdown_table(payload), ""]
                body.append(html_table(payload))
            elif kind == "figure":
                path, caption = payload
                if path is None:
                    continue
                path = Path(path)
                rel = path.relative_to(out).as_posix() if path.is_relative_to(out) else str(path)
                md += [f"![{caption}]({rel})", ""]
                body.append(
                    f'<figure><img src="{html.escape(rel)}" alt="{html.escape(caption)}" '
                    f'style="max-width:100%"><figcaption>{html.escape(caption)}</figcaption></figure>'
                )
    style = (
        "body{font-family:sans-serif;max-width:1300px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0}td,th{border:1px solid #ccc;"
        "padding:2px 6px}td.r,th.r{text-align:right}td.l,th.l{text-align:left}td.no{color:#a00}"
    )
    page = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
    return "\n".join(md), page


def write_berrar_page(results, profile: str, out) -> dict:
    """Only the calibration of Berrar's replication probability: ``berrar-calibration.md`` and ``.html`` in ``out``."""
    from simstudy._files import write_atomic
    from simstudy.apps.proving.berrar_calibration import berrar_calibration, draw_reliability

    out = Path(out)
    cal = berrar_calibration(results, profile)
    if not len(cal["forecasts"]):
        raise ValueError(
            f"--results: none of Berrar's studies 1-3 is stored at profile {profile!r} under "
            f"{results} ({'; '.join(cal['notes'])})"
        )
    out.mkdir(parents=True, exist_ok=True)
    fig = draw_reliability(cal, folder_below(out, "figures", option="--report-dir"))
    text, page = _render(
        f"Calibration of Berrar's replication probability ({profile})",
        [("Reliability and Brier score", _berrar_items(cal, fig))],
        out,
    )
    paths = {"markdown": out / "berrar-calibration.md", "html": out / "berrar-calibration.html"}
    write_atomic(paths["markdown"], text + "\n")
    write_atomic(paths["html"], page)
    return {**paths, "text": text, "calibration": cal}


def _null_scores(run, key) -> pd.DataFrame:
    """One scenario's stored scores, with the discordant counts when the run stored them (older runs did not)."""
    try:
        return pd.concat(run.table_chunks("scores", columns=SCORE_COLUMNS, conditions=[key]), ignore_index=True)
    except ValueError:
        cols = [c for c in SCORE_COLUMNS if c not in ("n01", "n10")]
        return pd.concat(run.table_chunks("scores", columns=cols, conditions=[key]), ignore_index=True)


def build_report(
    run,
    *,
    plugins=(),
    tests=None,
    results=DEFAULT_ROOT,
    berrar_profile: str | None = None,
    out=None,
    timeout=None,
    figures: bool = True,
    rule=None,
) -> dict:
    """Compute every table and figure of the proving ground from ``run`` and write the pages.

    Parameters
    ----------
    run : simstudy.engine.store.RunData
        A stored run of the proving ground.
    plugins : sequence of (ref, callable)
        Plug-in tests, applied to the stored scores.
    tests : sequence of str, optional
        Registered test names to keep (None: all stored).
    results : path
        Results root holding Berrar's studies (``ROOT/berrarN/PROFILE``); None: no Berrar section.
    berrar_profile : str, optional
        The profile of Berrar's runs (default the run's).
    out : path, optional
        Where the pages go (default the run directory).
    figures : bool
        Draw the figures (PNG, under ``out/figures``).
    rule : simstudy.statistics.size_control.SizeRule, optional
        How size is judged (default alpha 0.05, tolerance 1.5 alpha).

    Returns
    -------
    dict
        ``markdown`` and ``html`` paths, the paths of the CSV tables (``*_csv``), ``figures``, ``tables`` and
        ``text`` (the Markdown).
    """
    from simstudy.apps.proving.diagnostics import corrected_with_measured_factor, sample_factors, split_diagnostics
    from simstudy.apps.proving.scenarios import BANK
    from simstudy.statistics.size_control import SizeRule

    rule = rule or SizeRule(alpha=ALPHA)
    out = Path(out) if out is not None else Path(run.path)
    out.mkdir(parents=True, exist_ok=True)
    figdir = folder_below(out, "figures", option="--report-dir")  # never written through a link
    outcomes = load_outcomes(run, tests)
    extra = []
    if plugins:
        scores = run.table("scores")
        for ref, fn in plugins:
            extra.append(plugin_rows(scores, fn, ref, timeout=timeout))
    extra = pd.concat(extra, ignore_index=True) if extra else None
    pr = procedures(outcomes, extra)
    del outcomes
    if not pr.p:
        raise ValueError("--tests: no stored test is left to report")
    sizes = size_table(pr, rule)
    board = leaderboard(pr, rule=rule, sizes=sizes)
    cal = calibration(pr)
    pdist = pvalue_distribution(pr)
    power = power_table(pr)
    repl = replicability_table(pr)
    named = named_procedures(pr.info, extra_tests=[ref for ref, _ in plugins])
    checks = statements(pr, board, named, sizes=sizes)
    nulls = [k for k in pd.unique(pr.units["condition"]) if k in BANK and BANK[k].null_by_construction]
    diag, factors, measured = [], [], []
    for key in nulls:  # one null scenario's scores at a time
        part = _null_scores(run, key)
        diag.append(split_diagnostics(part))
        factors.append(sample_factors(part))
        measured.append(corrected_with_measured_factor(part, [key]))
    diag, factors, measured = (
        pd.concat(x, ignore_index=True) if x else pd.DataFrame() for x in (diag, factors, measured)
    )
    draw = figures
    figures = (
        {}
        if not draw
        else {
            "leaderboard": _figure_leaderboard(board, figdir),
            "size_power": _figure_size_power(board, named, figdir),
            "calibration": _figure_calibration(cal, named, figdir),
            "pvalues": _figure_pvalues(pdist, named, figdir),
            "power": _gaussian_panels(
                power,
                "rejecting",
                named,
                figdir,
                "power",
                "rejections in the true direction, %",
                "Power against the true gap (Gaussian worlds; effect 0 = null: Type I error)",
            ),
            "replicability": _gaussian_panels(
                repl,
                "r2",
                named,
                figdir,
                "replicability",
                "mean R2, %",
                "Replicability R2 of the repeats against the true gap (Gaussian worlds)",
            ),
        }
    )
    berrar = None
    if results is not None:
        from simstudy.apps.proving.berrar_calibration import berrar_calibration, draw_reliability

        berrar = berrar_calibration(results, berrar_profile or run.manifest["profile"])
        figures["berrar"] = draw_reliability(berrar, figdir) if draw and berrar["reliability"] else None

    prof = run.manifest["profile"]
    n_exp = pr.n_experiments
    units = pr.units
    n_null = int((units["truth"] == "null").sum())
    n_alt = int(units["truth"].isin(["A", "B"]).sum())
    n_unclear = int((units["truth"] == "unclear").sum())
    per_null = units[units["truth"] == "null"].groupby("condition").size()
    named_rows = [n for n in named.values()]
    corrected = {
        k: v
        for k, v in named.items()
        if k.startswith("corrected") or k.startswith("5x2cv t") or k.startswith("McNemar")
    }
    sections = []  # (title, [("md"/"table"/"figure", payload)])
    adaptive = run.manifest.get("adaptive")
    sections.append(
        (
            "What was run",
            [
                (
                    "md",
                    (
                        f"Profile `{prof}`: {units['condition'].nunique()} scenarios, {len(units)} data sets ({n_null} from "
                        f"{per_null.size} null scenarios, {per_null.min() if len(per_null) else 0} to "
                        f"{per_null.max() if len(per_null) else 0} each; {n_alt} from alternatives, {n_unclear} from scenarios whose "
                        f"truth is unclear), every design repeated {n_exp} times per data set; {len(pr.p)} procedures (test x design "
                        "x scheme)"
                        + (f", plug-ins: {', '.join(f'`{r}`' for r, _ in plugins)}" if plugins else "")
                        + ". "
                        "Every procedure saw the same data sets, partitions and fits. "
                        + (
                            f"Null scenarios got data sets until every procedure's size verdict was decided or its interval narrow "
                            f"enough ({adaptive['rule']}). "
                            if adaptive
                            else ""
                        )
                        + "Intervals of power and R2 are 95% Monte Carlo intervals over data sets (the repeats on one data set "
                        "averaged first). Truth: `simstudy/apps/proving/truth.json`. " + _origin(run)
                    ),
                )
            ],
        )
    )
    sections.append(
        (
            "The papers' statements, checked",
            [
                (
                    "md",
                    "Statements about size hold only where every null scenario's simultaneous interval decides in "
                    "their favour, and do not hold where one interval decides against them; otherwise they are "
                    "unresolved. Statements about power and replicability rest on the paired interval of the "
                    "difference over data sets (unresolved: it covers 0).",
                ),
                ("table", checks),
            ],
        )
    )
    sections.append(
        (
            "Size: verdicts per null scenario",
            [
                (
                    "md",
                    f"How size is judged: {rule.describe()}. The intervals are Clopper-Pearson intervals on an "
                    "effective number of trials: the data set is the unit, its repeats count only as far as they "
                    "disagree (`simstudy.statistics.size_control`). The deciding scenario is the liberal one with the highest "
                    "lower end, or else the one with the highest upper end.",
                ),
                (
                    "md",
                    "The procedures the papers name, per null scenario: verdict, Type I error % [simultaneous interval], "
                    "data sets.",
                ),
                ("table", _scenario_verdicts(sizes, corrected)),
                ("md", "Every procedure's per-scenario verdicts are in `size.csv`."),
            ],
        )
    )
    sections.append(
        (
            "Leaderboard",
            [
                (
                    "md",
                    f"Ranked at alpha = {ALPHA:g}: only procedures that control size on every null scenario are ranked, "
                    "by *size-adjusted* power: on each alternative data set whose scenario has a null twin (the same "
                    "learners, size and designs without the effect), a rejection in the true direction at the threshold "
                    "that gives the procedure a Type I error of at most alpha on the twin. A liberal test cannot buy "
                    "power there, and a test that is a monotone rescaling of another gets the same number. Procedure i "
                    "beats j when the 95% interval of the paired difference of their per-data-set size-adjusted power "
                    "lies above 0; rank = 1 + the number of procedures that beat it, so procedures whose paired interval "
                    "covers 0 are tied (`tied with` counts them). Raw power is shown beside it; the size-adjusted "
                    "intervals are conditional on the calibrated thresholds. Procedures that are liberal or unresolved "
                    'follow, unranked; then those that reject on no data set at all ("never rejects": zero '
                    "rejections control size trivially and are never ranked), and plug-ins that declined a design "
                    '("declined"). A plug-in that gives decisions only is judged by its decisions (size verdict, '
                    'raw power, R2) and has no size-adjusted power and no rank ("n/a: no p-values").',
                ),
                (
                    "figure",
                    (
                        figures.get("leaderboard"),
                        "Leaderboard: the 20 best-ranked procedures that control size; "
                        "size-adjusted and raw power, and the deciding null scenario's Type I "
                        "error with its simultaneous interval",
                    ),
                ),
                (
                    "figure",
                    (figures.get("size_power"), "Size against power for every procedure, raw and size-adjusted"),
                ),
                ("table", _view_board(board)),
            ],
        )
    )
    diag_view = (
        diag[diag["design"].map(lambda d: d.startswith("cv") or d.startswith("resampled"))] if len(diag) else diag
    )
    sections.append(
        (
            "Why tests are liberal: the correlation of splits",
            [
                (
                    "md",
                    "The corrected t-tests assume that the differences of two splits of one data set correlate by "
                    "n_test/n (0.1 for 90/10 splits) and multiply the variance by 1/m + n_test/n_train; the uncorrected "
                    "ones assume no correlation (1/m). Measured per null scenario from the stored scores: the "
                    "correlation between splits of different partitions (the variance of a data set's expected "
                    "difference, as a share of a split's) and within one partition (disjoint test sets), the variance "
                    "factor the whole design's mean needs (Var(mean) / E[S^2]), the training-set share of a split's "
                    "variance (the fitted models' population gap; the rest is the test set's, measured from the "
                    "discordant cases), and the Type I error of the corrected t with the measured factor (cross-fitted "
                    "over data sets). 95% bootstrap intervals over data sets (`simstudy.apps.proving.diagnostics`). A stable "
                    "learner's results on disjoint test sets hardly correlate; an unstable learner's prediction for a "
                    "case depends on the particular cases near it, which the data set's other splits train on too, so "
                    "results of different cases correlate within and between partitions beyond n_test/n.",
                ),
                ("table", _diagnosis_view(diag_view, factors, measured, sizes, named)),
                ("md", "Every liberal verdict of a named procedure, and what the diagnostics say about it:"),
                ("table", _explanations(sizes, pr, diag, factors, named)),
            ],
        )
    )
    sections.append(
        (
            "Calibration",
            [
                (
                    "md",
                    "Type I error (%) on the null data sets pooled, at each level, for the procedures the papers name; "
                    "every procedure's curve is in `calibration.csv`. Pooling averages over scenarios, so it can hide a "
                    "liberal one: the verdicts above are per scenario.",
                ),
                (
                    "figure",
                    (
                        figures.get("calibration"),
                        "Type I error against alpha, log scales, 95% bands; the dashed line is "
                        "a perfectly calibrated test",
                    ),
                ),
                ("table", _calibration_wide(cal, named_rows)),
                (
                    "figure",
                    (
                        figures.get("pvalues"),
                        "Empirical distribution of the p-values under the null against the uniform's diagonal",
                    ),
                ),
                ("table", pdist[pdist["procedure"].isin(named_rows)].drop(columns="ecdf")),
            ],
        )
    )
    sections.append(
        (
            "Power",
            [
                (
                    "figure",
                    (
                        figures.get("power"),
                        "Rejections in the true direction against the measured gap, per learner pair "
                        "and sample size; solid rho = 0, dotted rho = 0.6",
                    ),
                ),
                (
                    "md",
                    f"Per procedure and scenario, with 95% Monte Carlo intervals: `power.csv` ({len(power)} rows; the "
                    "rejections in the true direction (on a null scenario: every rejection), the same at the "
                    "size-adjusted threshold where the scenario has a null twin, and those in the wrong direction).",
                ),
            ],
        )
    )
    sections.append(
        (
            "Replicability and consistency",
            [
                ("figure", (figures.get("replicability"), "Mean R2 of the repeats against the measured gap")),
                (
                    "md",
                    f"Per procedure and scenario, with 95% Monte Carlo intervals: `replicability.csv` ({len(repl)} rows; "
                    "the mean R2 of a data set's repeats and the share of data sets whose repeats all agree).",
                ),
            ],
        )
    )
    if berrar is not None:
        sections.append(
            ("Calibration of Berrar's replication probability", _berrar_items(berrar, figures.get("berrar")))
        )

    text, page = _render(f"Proving ground ({prof})", sections, out)
    from simstudy._files import write_atomic

    paths = {
        "markdown": out / f"{REPORT_NAME}.md",
        "html": out / f"{REPORT_NAME}.html",
        "leaderboard_csv": out / "leaderboard.csv",
        "calibration_csv": out / "calibration.csv",
        "size_csv": out / "size.csv",
        "diagnostics_csv": out / "diagnostics.csv",
        "power_csv": out / "power.csv",
        "replicability_csv": out / "replicability.csv",
    }
    write_atomic(paths["markdown"], text + "\n")
    write_atomic(paths["html"], page)
    write_atomic(paths["leaderboard_csv"], board.to_csv(index=False))
    write_atomic(paths["calibration_csv"], cal.to_csv(index=False))
    write_atomic(paths["size_csv"], sizes.to_csv(index=False))
    write_atomic(paths["diagnostics_csv"], diag.to_csv(index=False))
    write_atomic(paths["power_csv"], power.to_csv(index=False))
    write_atomic(paths["replicability_csv"], repl.to_csv(index=False))
    return {
        **paths,
        "figures": figures,
        "text": text,
        "tables": {
            "leaderboard": board,
            "size": sizes,
            "calibration": cal,
            "pvalues": pdist,
            "power": power,
            "replicability": repl,
            "statements": checks,
            "diagnostics": diag,
            "factors": factors,
            "measured_factor": measured,
            "berrar": berrar,
        },
    }


def summary_markdown(rep) -> str:
    """The papers' statements checked, the count of size verdicts and the top of the leaderboard, in Markdown."""
    from simstudy.outputs.tables import markdown_table

    board = rep["tables"]["leaderboard"]
    top = _view_board(board[board["controlled"]].head(15))
    cols = [
        "rank",
        "procedure",
        "size-adjusted power %",
        "raw power %",
        "deciding null scenario",
        "its Type I error %",
        "its data sets",
    ]
    counts = board["size"].value_counts()
    return (
        "Statements:\n\n"
        + markdown_table(rep["tables"]["statements"])
        + "\n\nSize verdicts: "
        + ", ".join(
            f"{counts.get(v, 0)} {v}"
            for v in ("controls size", "unresolved", "liberal", "never rejects", "declined")
            if counts.get(v, 0) or v in ("controls size", "unresolved", "liberal")
        )
        + "\n\nLeaderboard (top 15 that control size on every null scenario):\n\n"
        + (markdown_table(top[cols]) if len(top) else "none controls size on every null scenario")
    )


def study_page(run, out, results) -> dict:
    """The proving ground's page for the reproduction page (:attr:`Publication.page`): the whole report in ``out``."""
    rep = build_report(run, results=results, out=out)
    return {"markdown": rep["markdown"], "html": rep["html"], "summary": summary_markdown(rep)}
