"""Stored rows checked against the code of this process: chosen replications computed again and compared.

A run's rows are tied to the code that made them (its fingerprint).  When that
code has changed since, what a reader wants to know is whether the code of now
would give the same rows.  :func:`replay_check` answers it for the first
replications of every condition: each is computed again in this process, from
the run's own root seed (the engine's seeds: study, condition, replication),
and its tables are compared with the stored rows of that replication, value
for value, NaN equal to NaN (the storage types aside: Parquet may keep a column
narrower or as categories).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["ReplayCheck", "replay_check"]


@dataclass(frozen=True)
class ReplayCheck:
    """What computing stored replications again gave.

    Attributes
    ----------
    replications : int
        Replications computed again (the first ``per_condition`` stored of each condition).
    same : int
        Those whose every table equals its stored rows.
    differences : tuple of str
        For each of the others (the first five), where: condition, replication, table and first column.
    per_condition : int
        How many were asked for per condition, from the first.
    """

    replications: int
    same: int
    differences: tuple = ()
    per_condition: int = 1

    @property
    def text(self) -> str:
        """One clause: how many replications, computed again by the code of this process, give the stored rows."""
        if not self.replications:
            return "no stored replication could be computed again"
        which = "the first" if self.per_condition == 1 else f"the first {self.per_condition}"
        head = (
            f"{self.same} of {self.replications} replications ({which} of each condition) computed again by this code"
        )
        if self.same == self.replications:
            return head + " give the stored rows value for value"
        return head + " give the stored rows value for value; differ: " + "; ".join(self.differences)


def _values(df: pd.DataFrame) -> pd.DataFrame:
    """The rows as values: categories as their labels, one index, columns in name order."""
    out = df.reset_index(drop=True)
    for c in out.columns:
        if isinstance(out[c].dtype, pd.CategoricalDtype):
            out[c] = out[c].astype(object)
    return out[sorted(out.columns)]


def _first_difference(stored: pd.DataFrame, again: pd.DataFrame) -> str | None:
    """None when the two tables hold the same values, else the first column (or the shape) that differs."""
    if set(stored.columns) != set(again.columns):
        missing = sorted(set(again.columns) ^ set(stored.columns))
        return f"columns {', '.join(missing[:3])}"
    if len(stored) != len(again):
        return f"{len(again)} rows against {len(stored)} stored"
    a, b = _values(stored), _values(again)
    for c in a.columns:
        x, y = a[c].to_numpy(), b[c].to_numpy()
        if x.dtype.kind in "fc" or y.dtype.kind in "fc":
            try:
                if np.array_equal(x.astype(float), y.astype(float), equal_nan=True):
                    continue
            except (TypeError, ValueError):
                pass
        elif (pd.Series(x).astype(str).to_numpy() == pd.Series(y).astype(str).to_numpy()).all():
            continue
        return f"column {c}"
    return None


def _stored(run, table: str, key: str, replication: int) -> pd.DataFrame:
    """The stored rows of one replication of one table (reading that condition's chunks until they are passed)."""
    parts = []
    for chunk in run.table_chunks(table, conditions=[key]):
        rows = chunk[chunk["replication"] == replication]
        if len(rows):
            parts.append(rows)
        elif parts:
            break
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def replay_check(study, run, *, per_condition: int = 1, progress: bool = False) -> ReplayCheck:
    """Compute the first ``per_condition`` stored replications of every condition of ``run`` again and compare.

    Parameters
    ----------
    study : simstudy.engine.Study
        The run's study, as this process has it (its code is the one checked).
    run : simstudy.engine.store.RunData
        A stored run of it.
    per_condition : int
        Replications per condition, from the first (those that failed when the run was made are left out).
    progress : bool
        A progress bar (with ETA) on standard error.

    Returns
    -------
    ReplayCheck
    """
    from tqdm.auto import tqdm

    from simstudy.engine.runner import _setup_state, run_replication
    from simstudy.engine.study import condition_key, n_replications_of

    profile = study.profile(run.manifest["profile"])
    seed = int(run.manifest["root_seed"])
    failed = set()
    if run.n_failures():
        f = run.failures
        failed = set(zip(f["condition"].astype(str), f["replication"].astype(int)))
    chosen = [
        (cond, r)
        for cond in study.conditions_for(profile)
        for r in range(min(per_condition, n_replications_of(cond, profile)))
        if (condition_key(cond), r) not in failed
    ]
    same, differences, states = 0, [], {}
    bar = tqdm(chosen, desc=f"{study.name}: computing stored rows again", unit="rep", disable=not progress,
               dynamic_ncols=True, file=sys.stderr, mininterval=0.5 if sys.stderr.isatty() else 15.0)  # fmt: skip
    for cond, r in bar:
        key = condition_key(cond)
        try:
            if key not in states:
                states[key] = _setup_state(study, cond, seed)
            tables, _, _ = run_replication(study, cond, r, seed, states[key])
        except Exception as exc:  # a replication that raises now: its rows cannot be given again
            differences.append(f"{key} replication {r}: raises {type(exc).__name__}")
            continue
        where = next(
            (f"{key} replication {r}: {name}, {diff}" for name, again in tables.items()
             if (diff := _first_difference(_stored(run, name, key, r), again)) is not None),
            None,
        )  # fmt: skip
        if where is None:
            same += 1
        else:
            differences.append(where)
    return ReplayCheck(len(chosen), same, tuple(differences[:5]), per_condition)
