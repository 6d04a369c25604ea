"""The proving ground's tables as the page prints them: the leaderboard with its intervals, the verdicts per
null scenario, the measured correlations and factors, what the diagnostics say of each liberal verdict,
the calibration and Berrar's section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.pipeline.procedures import procedure_id

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


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
        proc = procedure_id(r["design"], "", _deciding(r["design"]))
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


def _deciding(design: str) -> str:
    """The registered deciding test of a design (its corrected t-test, built in)."""
    from simstudy.pipeline.designs import parse_design
    from simstudy.pipeline.outcomes import deciding_test

    spec = deciding_test(parse_design(design))
    return spec.name if spec is not None else ""
