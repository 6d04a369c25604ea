"""Replications to a target precision: add replications per condition until every target is precise enough.

A fixed profile runs ``n`` replications per condition.  An adaptive run
(``simstudy run STUDY --target-mcse E``) runs in *stages*: every condition
starts with the profile's ``n`` replications (at most the cap); after each
stage, the Monte Carlo standard error (MCSE) of every target quantity of a
condition is computed from its stored rows, and a condition whose largest MCSE
is above ``E`` gets ``step`` more replications (up to the cap
``max_replications``), the others stop.

The rule is deterministic.  Replication ``i`` of a condition has the same seed
whatever the stopping point, and a stage's decision reads only the stored rows
of replications ``0 .. n_s - 1``.  A resumed or repeated adaptive run therefore
replays the same decisions and stops at the same counts with the same rows,
whatever the number of workers or the backend.

Targets
-------
A study may declare ``targets(rows) -> DataFrame`` with columns ``quantity``,
``estimate`` and ``mcse``, computed from the ``outcomes`` rows of one condition,
and optionally ``done``: a target whose question is already answered (e.g. a
verdict its interval resolves) does not hold the condition back, whatever its MCSE.
Otherwise the targets are the rejection rates: per replication, the share of
rows of each (pair, scheme, test) that reject (an average over the repeated
experiments of a replication, where a study has them), then the mean over
replications with its standard error.  A rate whose replications all agree has
no spread yet; its MCSE is then taken as that of a binomial share with half a
count added (``sqrt(q (1 - q) / n)``, ``q = (k + 1/2) / (n + 1)``), so a condition
does not stop on a handful of identical replications.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simstudy._lazy import lazy_module
from simstudy.errors import InputError, option

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


__all__ = ["AdaptiveRule", "default_targets", "condition_targets", "stage_decisions", "adaptive_table"]

QUANTITY_COLUMNS = ("pair", "scheme", "test")


@dataclass(frozen=True)
class AdaptiveRule:
    """How an adaptive run grows.

    Attributes
    ----------
    target_mcse : float
        Largest Monte Carlo standard error accepted for any target of a condition.
    max_replications : int
        Cap on the replications of a condition.
    first : int
        Replications of every condition in the first stage.
    step : int
        Replications added to an unfinished condition at each later stage.
    """

    target_mcse: float
    max_replications: int
    first: int
    step: int

    def __post_init__(self):
        if (
            isinstance(self.target_mcse, bool)
            or not isinstance(self.target_mcse, numbers.Real)
            or not (0 < self.target_mcse < math.inf)
        ):
            raise InputError(f"{option('target_mcse')}: must be a positive number, got {self.target_mcse!r}")
        for name, value in (
            (option("max_replications"), self.max_replications),
            ("first", self.first),
            ("step", self.step),
        ):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise InputError(f"{name}: must be a positive integer, got {value!r}")

    def as_config(self) -> dict:
        """The rule as stored in a run's configuration (part of its hash)."""
        return {
            "target_mcse": float(self.target_mcse),
            "max_replications": int(self.max_replications),
            "first": int(self.first),
            "step": int(self.step),
        }

    @classmethod
    def from_config(cls, config: dict) -> "AdaptiveRule":
        """The rule of a stored configuration."""
        return cls(config["target_mcse"], config["max_replications"], config["first"], config["step"])

    def describe(self) -> str:
        """The rule in one line."""
        return (
            f"add {self.step} replications to a condition until every target's MCSE is at most "
            f"{self.target_mcse:g} (first {self.first}, at most {self.max_replications})"
        )


def default_targets(rows: pd.DataFrame) -> pd.DataFrame:
    """Rejection rates per (pair, scheme, test) with their MCSE over replications (see the module docstring).

    Parameters
    ----------
    rows : DataFrame
        Outcome rows of one condition, with ``replication`` and ``decision``.

    Returns
    -------
    DataFrame
        Columns ``quantity``, ``estimate``, ``mcse`` and ``n`` (replications).
    """
    if "decision" not in rows or not len(rows):
        return pd.DataFrame(columns=["quantity", "estimate", "mcse", "n"])
    by = [c for c in QUANTITY_COLUMNS if c in rows]
    reject = (rows["decision"] != 0).astype(float)
    per_rep = reject.groupby([rows[c] for c in by] + [rows["replication"]], sort=False).mean()
    out = []
    groups = per_rep.groupby(level=list(range(len(by))), sort=False) if by else [((), per_rep)]
    for key, values in groups:
        key = key if isinstance(key, tuple) else (key,)
        v = values.to_numpy(float)
        n = v.size
        mean = float(v.mean())
        var = float(v.var(ddof=1)) if n > 1 else math.inf
        if n > 1 and var == 0.0:  # all replications agree: a binomial share with half a count added
            q = (mean * n + 0.5) / (n + 1)
            var = q * (1 - q)
        label = " / ".join(str(k) for k in key if str(k)) or "rejection rate"
        out.append({"quantity": f"rejection rate: {label}", "estimate": mean, "mcse": math.sqrt(var / n), "n": n})
    return pd.DataFrame(out)


def condition_targets(study, rows: pd.DataFrame) -> pd.DataFrame:
    """The study's targets of one condition's outcome rows (its own ``targets`` or :func:`default_targets`)."""
    func = getattr(study, "targets", None) or default_targets
    table = func(rows)
    missing = {"quantity", "estimate", "mcse"} - set(table.columns)
    if missing:
        raise InputError(f"study {study.name!r}: its targets function returned no {sorted(missing)} column(s)")
    return table


def stage_decisions(study, run, counts: dict, rule: AdaptiveRule) -> dict:
    """After a stage: per condition, its replications, largest MCSE, worst quantity and whether it stops.

    Reads only the stored rows of replications ``0 .. counts[condition] - 1``.

    Returns
    -------
    dict
        ``{condition: {"replications", "max_mcse", "quantity", "converged", "capped"}}``.
    """
    if "outcomes" not in run.tables():
        raise InputError(
            f"{option('target_mcse')}: study {study.name!r} stores no outcome rows to measure precision on"
        )
    state = {}
    for key, n in counts.items():
        # one condition's rows at a time: a large run's whole table need not fit in memory
        parts = list(run.table_chunks("outcomes", conditions=[key]))
        rows = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["condition", "replication"])
        rows = rows[rows["replication"] < n]
        table = condition_targets(study, rows)
        if len(table):
            # a target marked done (its verdict is decided) no longer holds the condition back
            open_ = table[~table["done"].astype(bool)] if "done" in table else table
            worst = (open_ if len(open_) else table).loc[lambda t: t["mcse"].astype(float).idxmax()]
            max_mcse, quantity = float(worst["mcse"]), str(worst["quantity"])
            converged = (not len(open_)) or max_mcse <= rule.target_mcse
            if not len(open_):
                quantity = f"every target decided (last: {quantity})"
        else:  # no outcome rows (e.g. a bootstrap of fixed size): nothing to make precise, it keeps its count
            max_mcse, quantity, converged = math.nan, "no targets (fixed count)", True
        state[key] = {
            "replications": int(n),
            "max_mcse": max_mcse if math.isfinite(max_mcse) else None,
            "quantity": quantity,
            "converged": bool(converged),
            "capped": bool(not converged and n >= rule.max_replications),
        }
    return state


def adaptive_table(manifest: dict) -> pd.DataFrame | None:
    """Per condition of an adaptive run: replications used, the largest MCSE reached, and whether it stopped.

    Returns None for a run with a fixed number of replications.
    """
    record = manifest.get("adaptive")
    if not record:
        return None
    rows = []
    for key, st in record["conditions"].items():
        verdict = (
            "fixed count"
            if str(st.get("quantity", "")).startswith("no targets")
            else "target met"
            if st["converged"]
            else "cap reached"
            if st.get("capped")
            else "running"
            if not record.get("finished")
            else "stopped"
        )
        rows.append(
            {
                "condition": key,
                "replications": st["replications"],
                "largest MCSE": st["max_mcse"] if st["max_mcse"] is not None else float("nan"),
                "target MCSE": record["target_mcse"],
                "state": verdict,
                "least precise quantity": st["quantity"],
            }
        )
    return pd.DataFrame(rows)
