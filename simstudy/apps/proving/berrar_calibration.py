"""How well does Berrar's replication probability, computed from one experiment, predict replication?

Berrar's studies 1-3 store, for every replication of every group, the test's
statistic and its decision.  For every replication whose result is significant
(in the direction the studies test: A better), each model gives a replication
probability ``P_i`` from that replication's statistic alone:

* study 1 and 2, binomial rows: the binomial and the Bayesian model of the
  number of wins of N data sets;
* study 1 and 2, Wilcoxon rows: the Wilcoxon model with the group's
  bootstrapped s* (the study's ``bootstrap`` table) and with s* = 1;
* study 3: the non-central t model with k - 1 = 9 degrees of freedom.

The observed outcome is whether an independent replication of the same
experiment (another replication of the group) is significant in the same
direction.  Its rate for replication i is ``F_i = (s - 1)/(k - 1)``, with s the
group's significant replications and k its replications: Berrar's empirical F
(Definition 2), left one out, which is an unbiased estimate of that
probability.  From these pairs:

* a **reliability diagram**: the replications binned by ``P_i`` (tenths), the
  mean ``P_i`` of a bin against its mean ``F_i``;
* the **Brier score** ``mean_i (P_i - Y_i)^2`` of the forecasts against an
  independent replication's outcome ``Y_i``, estimated without bias by
  ``mean_i (P_i^2 - 2 P_i F_i + F_i)`` (the square is linear in the 0/1 outcome),
  beside the Brier score of the constant forecast "the pooled replication rate";
* the mean of ``P_i - F_i`` (over-confidence when positive).

Intervals (95%) come from a bootstrap of the replications within every group
(200 resamples), which keeps the groups' own sizes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._files import DEFAULT_ROOT
from simstudy._lazy import lazy_module
from simstudy.errors import StoredDataError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "forecasting_studies",
    "reliability",
    "brier_table",
    "berrar_calibration",
    "draw_reliability",
    "reliability_figure",
]

BINS = np.linspace(0.0, 1.0, 11)
N_BOOT = 200


def _loo_rate(sig_by_group):
    """F_i for the significant replications of each group: (s - 1)/(k - 1)."""
    out = []
    for sig in sig_by_group:
        k, s = sig.size, int(sig.sum())
        out.append(np.full(s, (s - 1) / (k - 1) if k > 1 else np.nan))
    return out


def _groups(rows):
    """Per group: (significant flags, P of the significant ones), in a fixed order."""
    return [
        (g["significant"].to_numpy(), g["P"].to_numpy(float)[g["significant"].to_numpy()])
        for _, g in rows.groupby("group", sort=True)
    ]


def _stats(groups):
    """Pooled (P, F) of the significant replications of every group."""
    F = _loo_rate([sig for sig, _ in groups])
    P = [p for _, p in groups]
    P = np.concatenate(P) if P else np.empty(0)
    F = np.concatenate(F) if F else np.empty(0)
    ok = np.isfinite(P) & np.isfinite(F)
    return P[ok], F[ok]


def _bootstrap(groups, fn, rng, n_boot=N_BOOT):
    vals = []
    for _ in range(n_boot):
        res = []
        for sig, p in groups:
            k = sig.size
            idx = rng.integers(0, k, k)
            # the significant replications keep their own P; resampling picks them with the rest
            pos = np.cumsum(sig) - 1
            s_idx = idx[sig[idx]]
            res.append((sig[idx], p[pos[s_idx]]))
        vals.append(fn(res))
    return np.asarray(vals, dtype=float)


def reliability(rows: pd.DataFrame, *, seed: int = 0) -> pd.DataFrame:
    """The reliability diagram of one study and model: per bin of P, mean P, mean F, n, and F's interval."""
    groups = _groups(rows)
    P, F = _stats(groups)
    rng = np.random.default_rng(seed)
    out = []
    idx = np.clip(np.digitize(P, BINS) - 1, 0, len(BINS) - 2)

    def bin_means(res):
        Pb, Fb = _stats(res)
        ib = np.clip(np.digitize(Pb, BINS) - 1, 0, len(BINS) - 2)
        return [Fb[ib == b].mean() if (ib == b).any() else np.nan for b in range(len(BINS) - 1)]

    boot = _bootstrap(groups, bin_means, rng) if P.size else np.empty((0, len(BINS) - 1))
    for b in range(len(BINS) - 1):
        m = idx == b
        if not m.any():
            continue
        col = boot[:, b] if boot.size else np.array([np.nan])
        col = col[np.isfinite(col)]
        out.append(
            {
                "bin": f"{BINS[b]:.1f}-{BINS[b + 1]:.1f}",
                "n": int(m.sum()),
                "mean_P": float(P[m].mean()),
                "observed": float(F[m].mean()),
                "observed_mc_low": float(np.quantile(col, 0.025)) if col.size else np.nan,
                "observed_mc_high": float(np.quantile(col, 0.975)) if col.size else np.nan,
            }
        )
    return pd.DataFrame(out)


def _brier(P, F):
    return float(np.mean(P**2 - 2 * P * F + F)) if P.size else np.nan


def brier_table(fc: pd.DataFrame, *, seed: int = 0) -> pd.DataFrame:
    """Per study and model: significant replications, Brier score, the constant forecast's, mean P - F."""
    rows = []
    for (study, model), g in fc.groupby(["study", "model"], sort=False):
        groups = _groups(g)
        P, F = _stats(groups)
        if not P.size:
            rows.append({"study": study, "model": model, "significant": 0})
            continue
        rng = np.random.default_rng(seed)
        fbar = float(F.mean())

        def stats(res):
            Pb, Fb = _stats(res)
            return [
                _brier(Pb, Fb),
                _brier(np.full(Pb.size, Fb.mean()), Fb) if Pb.size else np.nan,
                float(np.mean(Pb - Fb)) if Pb.size else np.nan,
            ]

        boot = _bootstrap(groups, stats, rng)
        q = np.nanquantile(boot, [0.025, 0.975], axis=0)
        rows.append(
            {
                "study": study,
                "model": model,
                "groups": len(groups),
                "significant": int(P.size),
                "brier": _brier(P, F),
                "brier_mc_low": q[0, 0],
                "brier_mc_high": q[1, 0],
                "brier_constant": _brier(np.full(P.size, fbar), F),
                "brier_constant_mc_low": q[0, 1],
                "brier_constant_mc_high": q[1, 1],
                "mean_P_minus_F": float(np.mean(P - F)),
                "mean_P_minus_F_mc_low": q[0, 2],
                "mean_P_minus_F_mc_high": q[1, 2],
            }
        )
    return pd.DataFrame(rows)


def forecasting_studies() -> list[str]:
    """The registered studies that declare the replication probabilities their models forecast
    (:attr:`simstudy.engine.Provides.forecasts`), in the order :func:`simstudy.engine.list_studies` gives."""
    from simstudy.engine import get_study, list_studies

    return [n for n in list_studies() if get_study(n).provides.forecasts is not None]


def berrar_calibration(results=DEFAULT_ROOT, profile: str = "quick") -> dict:
    """Forecasts, reliability diagrams and Brier scores from the stored runs of Berrar's studies 1-3.

    Returns a dict with ``forecasts`` (DataFrame), ``reliability`` (dict
    (study, model) -> DataFrame), ``brier`` (DataFrame) and ``notes`` (what was
    found or missing, with the command that stores it).
    """
    from simstudy.engine import get_study, load_run

    notes, parts = [], []
    for name in forecasting_studies():
        path = Path(results) / name / profile
        if not (path / "manifest.json").is_file():
            notes.append(f"{name}: no stored run in {path} (store it with `simstudy run {name} --profile {profile}`)")
            continue
        try:
            run = load_run(get_study(name), profile=profile, out=path)
        except (ValueError, StoredDataError, OSError) as exc:
            notes.append(f"{name}: {path} not read ({str(exc).splitlines()[0]})")
            continue
        if not run.complete:
            notes.append(f"{name}: {path} is incomplete; used as far as stored")
        try:
            fc, more = get_study(name).provides.forecasts(run, name)
        except KeyError:  # a run stopped before its first chunk was stored: nothing to read yet
            notes.append(
                f"{name}: {path} holds no rows yet (resume it with `simstudy run {name} --profile {profile} --out "
                f"{path}`)"
            )
            continue
        notes += more
        parts.append(fc)
    fc = (
        pd.concat(parts, ignore_index=True)
        if parts
        else pd.DataFrame(columns=["study", "model", "group", "replication", "significant", "P"])
    )
    rel = {key: reliability(g) for key, g in fc.groupby(["study", "model"], sort=False)}
    return {
        "forecasts": fc,
        "reliability": rel,
        "brier": brier_table(fc) if len(fc) else pd.DataFrame(),
        "notes": notes,
    }


def draw_reliability(cal: dict, directory, name: str = "berrar-reliability") -> Path | None:
    """One panel per study: observed replication rate against the forecast P, per model, with the diagonal."""
    from simstudy.outputs.plots.output import save_figure

    fig = reliability_figure(cal)
    return None if fig is None else save_figure(fig, directory, name, formats=("png",))[0]


def reliability_figure(cal: dict):
    """The figure of :func:`draw_reliability` (a matplotlib Figure), None when no study has forecasts."""
    from simstudy.outputs.plots.output import new_figure

    studies = list(dict.fromkeys(k[0] for k in cal["reliability"]))
    if not studies:
        return None
    fig = new_figure((4.2 * len(studies), 4.2))
    axes = fig.subplots(1, len(studies), squeeze=False)[0]
    markers = {"binomial": "o", "Bayesian": "s", "Wilcoxon (s*)": "^", "Wilcoxon (s* = 1)": "v", "t": "D"}
    for ax, study in zip(axes, studies):
        ax.plot([0, 1], [0, 1], color="0.5", lw=1, ls="--", label="perfect calibration")
        for (st, model), t in cal["reliability"].items():
            if st != study or t.empty:
                continue
            err = np.vstack([t["observed"] - t["observed_mc_low"], t["observed_mc_high"] - t["observed"]])
            ax.errorbar(
                t["mean_P"],
                t["observed"],
                yerr=np.clip(err, 0, None),
                marker=markers.get(model, "o"),
                ms=4,
                lw=1,
                capsize=2,
                label=model,
            )
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_title(study, fontsize=10)
        ax.set_xlabel("replication probability P of one experiment (bin mean)", fontsize=8)
        ax.set_ylabel("observed replication rate F (bin mean)", fontsize=8)
        ax.legend(fontsize=7, loc="upper left")
        ax.grid(alpha=0.3)
    return fig
