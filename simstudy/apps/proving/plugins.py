"""Plug-in tests on the proving ground's stored paired scores: their outcome rows, without refitting.

A plug-in sees the same data sets, partitions and fits the built-in tests saw; its rows have the
columns of the stored outcomes, so :mod:`simstudy.apps.proving.summary` counts them like any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.apps.proving.levels import ALPHA, ALPHA_MAX
from simstudy.errors import InputError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["plugin_rows"]


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
    from simstudy.pipeline.plugins import run_plugin
    from simstudy.pipeline.scores import PairedScores

    parts = []
    for (cond, design), g in scores.groupby(["condition", "design"], sort=False):
        g = g.sort_values(["replication", "experiment", "run", "fold"], kind="stable")
        reps = g["replication"].unique()
        E, R, K = g["experiment"].nunique(), g["run"].nunique(), g["fold"].nunique()
        shape = (reps.size, E, R, K)
        if len(g) != int(np.prod(shape)):
            raise InputError(f"scores: the stored scores of {cond} / {design} do not form complete blocks")
        counts = {k: g[k].to_numpy().reshape(shape) for k in ("n01", "n10") if k in g}
        ps = PairedScores(
            g["acc_a"].to_numpy(float).reshape(shape),
            g["acc_b"].to_numpy(float).reshape(shape),
            n_train=int(g["n_train"].iloc[0]),
            n_test=int(g["n_test"].iloc[0]),
            **counts,
        )
        res = run_plugin(fn, ps, ALPHA_MAX, timeout=timeout)
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
