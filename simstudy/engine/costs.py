"""The seconds per unit of a study's declared work, fitted to the chunk times of stored runs.

A study that declares its replications' ``work`` (:class:`simstudy.engine.Cost`)
gets its wall-time estimates from seconds per unit.  Every stored chunk records
the seconds its worker spent on it, so the rates are the non-negative
least-squares solution of (chunk's units) x rates = chunk's seconds over the
chunks of the runs given, refitted without the chunks that took more than twice
their fitted time (a worker's first, which also loads the modules and kernels).
``benchmarks/bench_estimates.py --fit`` prints the fit and with ``--write``
stores it in ``timings.json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simstudy.engine.store import RunStore, manifest_chunk_key
from simstudy.engine.study import Study, condition_key
from simstudy.errors import InputError

__all__ = ["CostFit", "fit_seconds_per_unit"]


@dataclass(frozen=True)
class CostFit:
    """Seconds per unit of a study's work, fitted to stored chunks.

    Attributes
    ----------
    study : str
    rates : dict of str to float
        The fitted seconds of each unit the chunks contain.
    previous : dict of str to float
        The study's seconds per unit before the fit.
    chunks : int
        Chunks fitted.
    left_out : int
        Chunks left out for taking more than twice their fitted time (a
        worker's first chunk, which loads the modules and kernels).
    seconds : float
        The fitted chunks' measured worker seconds, summed.
    fitted_seconds : float
        What the fitted rates give for them.
    previous_seconds : float or None
        What the previous rates give for them (None when a unit had none).
    """

    study: str
    rates: dict
    previous: dict
    chunks: int
    left_out: int
    seconds: float
    fitted_seconds: float
    previous_seconds: float | None


def _chunk_units(study: Study, run: Path) -> tuple[list[dict], list[float]]:
    manifest = RunStore(run).read_manifest()
    if manifest is None:
        raise InputError(f"runs: {run} holds no run (no manifest.json)")
    if manifest["study"] != study.name:
        raise InputError(f"runs: {run} holds a run of {manifest['study']!r}, not of {study.name!r}")
    by_key = {condition_key(c): c for c in study.conditions_for(study.profile(manifest["profile"]))}
    work = study.cost.work
    assert work is not None  # checked by the caller
    units, seconds = [], []
    for c in manifest["plan"]:  # the chunks stored so far, each with its worker seconds
        meta = manifest["chunks"].get(manifest_chunk_key(c["condition"], c["start"], c["stop"]))
        if meta is None:
            continue
        if c["condition"] not in by_key:
            raise InputError(
                f"runs: {run} has a chunk of condition {c['condition']!r}, which the study's profile lacks"
            )
        n = c["stop"] - c["start"]
        units.append({u: float(v) * n for u, v in work(by_key[c["condition"]]).items()})
        seconds.append(float(meta["seconds"]))
    return units, seconds


def fit_seconds_per_unit(study: Study, runs) -> CostFit:
    """Fit the seconds per unit of ``study``'s work to the chunks of stored runs.

    Parameters
    ----------
    study : Study
        A study whose cost declares ``work``.
    runs : iterable of path
        Run directories of ``study`` (each with its ``manifest.json``), made
        with the workers the estimates assume (2 on 2 cores).

    Returns
    -------
    CostFit

    Raises
    ------
    ValueError
        When the study declares no work, a run is of another study, or the
        runs hold no chunk.
    """
    from scipy.optimize import nnls

    if study.cost.work is None:
        raise InputError(f"study: {study.name!r} declares no work (its cost is given as seconds per replication)")
    units, seconds = [], []
    for run in runs:
        u, s = _chunk_units(study, Path(run))
        units += u
        seconds += s
    if not units:
        raise InputError(f"runs: no stored chunk of {study.name!r} to fit")
    names = sorted(set().union(*units))
    a = np.array([[u.get(n, 0.0) for n in names] for u in units])
    b = np.array(seconds)
    scale = np.linalg.norm(a, axis=0)  # units of very different sizes (a replication, a fit) solved alike
    scale[scale == 0] = 1.0
    keep = np.ones(len(b), bool)
    x, _ = nnls(a / scale, b)
    # a worker's first chunk also imports the modules and loads the compiled kernels, which the start-up
    # seconds count: a chunk that took more than twice its fitted time is left out and the rest refitted
    slow = b > 2 * ((a / scale) @ x)
    if slow.any() and not slow.all():
        keep = ~slow
        x, _ = nnls(a[keep] / scale, b[keep])
    rates = {n: float(f"{v:.4g}") for n, v in zip(names, x / scale)}
    previous = dict(study.cost.seconds_per_unit or {})
    a, b = a[keep], b[keep]
    before = float((a @ [previous[n] for n in names]).sum()) if all(n in previous for n in names) else None
    return CostFit(
        study=study.name,
        rates=rates,
        previous=previous,
        chunks=int(keep.sum()),
        left_out=int((~keep).sum()),
        seconds=float(b.sum()),
        fitted_seconds=float((a @ np.array([rates[n] for n in names])).sum()),
        previous_seconds=before,
    )
