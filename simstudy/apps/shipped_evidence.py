"""The evidence ``simstudy assess`` ships: the published paper-profile proving ground, per stability class.

On a fresh install there is no stored simulation run under ``results/``, yet the
project has run the proving ground at the paper profile and published its
per-procedure results (``docs/reproduction/proving-ground/``).  Those results,
reduced per *stability class* of the scenarios' learners by
``scripts/make_shipped_evidence.py``, ship as ``proving/shipped_evidence.json``
beside the proving ground, with their provenance (the run's commit, code
fingerprint, profile and data sets).  Per class and procedure: the size verdict
over the class's null scenarios with the deciding scenario's Type I error,
interval and data sets; size-adjusted and raw power over its alternatives;
simulated replicability (Bouckaert's criterion); a rank among the procedures
that control size.

A user's comparison is matched to a class by a measured quantity, never by the
learners' names: the instability of its learners on the user's data
(:mod:`simstudy.apps.stability`), measured exactly as the script measured it on
every scenario.  :func:`shipped_table` gives the rows in the columns of
:func:`simstudy.apps.assess.evidence_table`, so the recommendation and the
Conclusion read them as they read a local run's evidence; a local evidence run
under ``--results`` takes precedence, a proving-ground run only when it holds at
least as many data sets (or ``--local-evidence`` asks for it).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["SHIPPED_FILE", "ShippedEvidence", "load_shipped", "shipped_evidence"]

SHIPPED_FILE = Path(__file__).with_name("proving") / "shipped_evidence.json"
_COLUMNS = [
    "procedure", "design", "scheme", "test", "size", "deciding_scenario", "deciding_type1", "deciding_low",
    "deciding_high", "deciding_n", "null_scenarios", "adjusted_power", "adjusted_low", "adjusted_high",
    "adjusted_units", "calibrated_units", "power", "sim_r2", "sim_r2_scenario", "rank", "tied_with", "sources",
]  # fmt: skip


@functools.lru_cache(maxsize=1)
def load_shipped() -> dict:
    """The shipped file as written by ``scripts/make_shipped_evidence.py`` (read once)."""
    return json.loads(SHIPPED_FILE.read_text())


@dataclass(frozen=True)
class ShippedEvidence:
    """The shipped evidence of one stability class, and why the comparison was matched to it.

    Attributes
    ----------
    name : str
        The class (``stable``, ``moderately stable``, ``unstable``, or ``all``: the whole proving ground).
    table : DataFrame
        One row per procedure, in the columns of :func:`simstudy.apps.assess.evidence_table`.
    alpha : float
        The level the verdicts were judged at.
    source : str
        How the tables name it.
    provenance : str
        One line: where the numbers come from and how the class was chosen.
    designs : tuple of str
        The designs it holds null scenarios of.
    """

    name: str
    table: pd.DataFrame
    alpha: float
    source: str
    provenance: str
    designs: tuple


def _fmt(v) -> str:
    return "n/a" if v is None or not np.isfinite(v) else f"{v:.3f}"


def shipped_evidence(measured: dict | None = None) -> ShippedEvidence:
    """The shipped evidence of the class ``measured`` falls in.

    Parameters
    ----------
    measured : dict, optional
        :func:`simstudy.apps.stability.stored_instability` of the user's
        comparison (``pair``, ``a``, ``b``, ``design``).  None or a NaN
        instability (no design with two runs): the whole proving ground.
    """
    from simstudy.apps.stability import nearest_group

    data = load_shipped()
    prov, stab = data["provenance"], data["stability"]
    value = None if measured is None else measured.get("pair")
    if value is None or not np.isfinite(value):
        name = "all"
        why = (
            "your learners' instability could not be measured (no design with two runs of stored predictions), "
            "so the whole proving ground is used"
        )
    else:
        group = nearest_group(measured, stab["groups"])
        name = stab["groups"][group]["class"]
        folds = int(measured.get("folds", 10))
        column = "pair" if folds == 1 or folds >= 4 else "pair_2fold"
        why = (
            f"your learners' measured instability {_fmt(value)} (A {_fmt(measured.get('a'))}, B "
            f"{_fmt(measured.get('b'))}: the share of cases whose predicted class changes between two runs of "
            f"{measured.get('design', 'the cv')}, the larger of the two) lies nearest to scenario {group}'s "
            f"({_fmt(stab['groups'][group][column])}, measured the same way), which puts them in its '{name}' class"
        )
    cls = data["classes"][name]
    rows = pd.DataFrame(cls["procedures"])
    for col in _COLUMNS:
        if col not in rows:
            rows[col] = np.nan
    source = f"proving_ground/{prov['profile']} (shipped, {name})"
    rows["sources"] = source
    rows["scheme"] = rows["scheme"].fillna("")
    rows["deciding_n"] = rows["deciding_n"].fillna(0).astype(int)
    for col in ("deciding_scenario", "sim_r2_scenario"):
        rows[col] = rows[col].fillna("")
    designs = tuple(sorted({p.split(" [", 1)[1].split(",")[0].rstrip("]") for p in rows["procedure"]}))
    line = (
        f"shipped with simstudy (no stored run under --results): the proving ground's {prov['profile']} profile "
        f"(commit {prov['commit']}, code fingerprint {prov['code_fingerprint']}, {prov['data_sets']} data sets of "
        f"{prov['scenarios']} scenarios, {prov['null_data_sets']} of them from {prov['null_scenarios']} null "
        f"scenarios), published in docs/reproduction/proving-ground/ and reduced by {prov['made_by']}; {why}: "
        f"{len(cls['null_scenarios'])} null and {len(cls['scenarios']) - len(cls['null_scenarios'])} other scenarios; "
        "a local proving-ground run (simstudy proving-ground, stored under --results) of at least as many data sets "
        "takes its place"
    )
    return ShippedEvidence(name, rows[_COLUMNS], float(prov["alpha"]), source, line, designs)
