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
Conclusion read them as they read a local run's evidence.

The evidence a Conclusion rests on is chosen by its strength
(:func:`choose_evidence`): the runs stored under ``--results`` take the shipped
evidence's place only when, on every design of the assessment, they hold at
least as many null data sets (the data sets the size verdicts rest on) as the
shipped proving ground, or when the user asks for them (``--local-evidence``,
``evidence=LocalEvidence(root)``).  A smoke-profile run therefore does not
replace it, while a run of a design the shipped evidence does not hold
(``simstudy proving-ground --designs cv5x10``) does.  :func:`evidence_named`
says in the Conclusion which evidence was used, and which local runs were
passed over.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import on_command_line, option

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "SHIPPED_FILE",
    "ShippedEvidence",
    "EvidenceChoice",
    "load_shipped",
    "shipped_evidence",
    "shipped_null_data_sets",
    "choose_evidence",
    "local_runs_named",
    "evidence_named",
]

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


def shipped_evidence(measured: dict | None = None, *, passed_over: bool = False) -> ShippedEvidence:
    """The shipped evidence of the class ``measured`` falls in.

    Parameters
    ----------
    measured : dict, optional
        :func:`simstudy.apps.stability.stored_instability` of the user's
        comparison (``pair``, ``a``, ``b``, ``design``).  None or a NaN
        instability (no design with two runs): the whole proving ground.
    passed_over : bool
        Whether runs stored under ``--results`` were passed over for it
        (:func:`choose_evidence`); the provenance line says why it is used.
    """
    from simstudy.apps.stability import measured_suffix, nearest_group

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
        tail = measured_suffix(int(measured.get("folds", 10)))
        g = stab["groups"][group]
        why = (
            f"your learners' measured instabilities (A {_fmt(measured.get('a'))}, B {_fmt(measured.get('b'))}: the "
            f"share of cases whose predicted class changes between two runs of {measured.get('design', 'the cv')}) "
            f"lie nearest to scenario {group}'s (A {_fmt(g['a' + tail])}, B {_fmt(g['b' + tail])}, measured the same "
            f"way; both learners count), which puts them in its '{name}' class"
        )
    cls = data["classes"][name]
    rows = pd.concat([pd.DataFrame(cls["procedures"]), _held_out(name)], ignore_index=True)
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
    where = option("evidence", flag="results")
    instead = (
        f"the runs stored under {where} hold fewer null data sets for the designs used"
        if passed_over
        else f"no stored run under {where}"
    )
    line = (
        f"shipped with simstudy ({instead}): the proving ground's {prov['profile']} profile "
        f"(commit {prov['commit']}, code fingerprint {prov['code_fingerprint']}, {prov['data_sets']} data sets of "
        f"{prov['scenarios']} scenarios, {prov['null_data_sets']} of them from {prov['null_scenarios']} null "
        f"scenarios), published in docs/reproduction/proving-ground/ and reduced by {prov['made_by']}; {why}: "
        f"{len(cls['null_scenarios'])} null and {len(cls['scenarios']) - len(cls['null_scenarios'])} other scenarios; "
        f"a local run (simstudy proving-ground, stored under {where}) with at least as many null data sets on "
        f"every design used takes its place, and any local run does with {local_option()}"
    )
    return ShippedEvidence(name, rows[_COLUMNS], float(prov["alpha"]), source, line, designs)


def _held_out(name: str) -> pd.DataFrame:
    """The inflated tests' evidence on the class ``name``, judged on the proving ground's data sets their
    calibration did not see (:mod:`simstudy.pipeline.inflation`); the same columns, the source named."""
    from simstudy.pipeline.inflation import load_inflation

    rows = pd.DataFrame(load_inflation()["evidence"].get(name, []))
    if len(rows):
        rows = rows[[c for c in rows.columns if c in _COLUMNS]]
    return rows


# ------------------------------------------------------------------------- which evidence the Conclusion rests on


def shipped_null_data_sets(designs, alpha: float) -> dict:
    """Per design key in ``designs``: the null data sets behind the shipped size verdicts of its tests.

    Every design of the proving ground runs on every data set, so a design the
    shipped evidence holds rests on all its null data sets; one it does not hold,
    or any design at an ``alpha`` other than the shipped verdicts', on none.
    """
    data = load_shipped()
    prov = data["provenance"]
    if abs(float(alpha) - float(prov["alpha"])) > 1e-12:
        return {d: 0 for d in designs}
    held = {p["design"] for p in data["classes"]["all"]["procedures"]}
    return {d: int(prov["null_data_sets"]) if d in held else 0 for d in designs}


@dataclass(frozen=True)
class EvidenceChoice:
    """Which evidence a Conclusion rests on (:func:`choose_evidence`).

    Attributes
    ----------
    local : tuple of Evidence
        The stored runs to use; empty: the shipped evidence.
    passed_over : str
        One line naming the stored runs passed over for the shipped evidence and why, or ``""``.
    """

    local: tuple
    passed_over: str = ""


def _count(n: int) -> str:
    return f"{n:,} null data set{'s' if n != 1 else ''}"


def choose_evidence(local, designs, *, alpha: float) -> EvidenceChoice:
    """The stronger of the runs stored under ``--results`` and the shipped evidence, for the designs assessed.

    The strength of evidence for a design is the number of null data sets
    (null scenario x replication) behind its tests' size verdicts: the
    Conclusion decides by the design's corrected test only where that test
    controls size, and too few null data sets leave it unresolved.  The stored
    runs are used when, on every design of the assessment, together they hold
    at least as many as the shipped proving ground (:func:`shipped_null_data_sets`)
    and on one of them at least one; otherwise the shipped evidence is used and
    :attr:`EvidenceChoice.passed_over` says which runs were passed over.

    Parameters
    ----------
    local : list of simstudy.apps.evidence.Evidence
        :func:`simstudy.apps.evidence.collect_evidence` of the results root.
    designs : sequence of DesignChoice or str
        The assessment's designs (their keys, such as ``5x2cv`` or ``cv10x10``).
    alpha : float
        The assessment's level.
    """
    local = tuple(local)
    if not local:
        return EvidenceChoice(())
    keys = [getattr(d, "key", d) for d in designs]
    shipped = shipped_null_data_sets(keys, alpha)
    held = {d: 0 for d in keys}
    for ev in local:
        for d, n in ev.null_data_sets().items():
            if d in held:
                held[d] += n
    if any(held.values()) and all(held[d] >= shipped[d] for d in keys):
        return EvidenceChoice(local)
    short = [d for d in keys if held[d] < shipped[d]] or keys
    line = (
        f"a smaller local run{'s' if len(local) > 1 else ''} passed over ("
        + ", ".join(f"{d}: {_count(held[d])} against the shipped {shipped[d]:,}" for d in short)
        + f"): {local_runs_named(local)}; {local_option()} uses {'them' if len(local) > 1 else 'it'}"
    )
    return EvidenceChoice((), line)


def local_runs_named(local) -> str:
    """The stored runs, each named by where it is, its study, profile and data sets."""
    names = []
    for ev in local:
        study = ev.source.split("/", 1)[0]
        profile = f", profile {ev.profile}" if ev.profile else ""
        where = f"at {ev.path}" if ev.path else ev.source
        names.append(f"{where} ({study}{profile}, {ev.n_data_sets:,} data sets)")
    run = "the local run" if len(names) == 1 else "the local runs"
    return f"{run} " + (names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1])


def evidence_named(choice: EvidenceChoice, shipped: ShippedEvidence | None) -> str:
    """What the Conclusion's ``Evidence:`` names: the shipped proving ground (profile, data sets, class) with any
    local run passed over, the local runs used, or none."""
    if shipped is not None:
        prov = load_shipped()["provenance"]
        text = (
            f"the shipped proving ground ({prov['profile']} profile, {int(prov['data_sets']):,} data sets), class "
            f"'{shipped.name}' (see Evidence below)"
        )
        return text + (f"; {choice.passed_over}" if choice.passed_over else "")
    if choice.local:
        return local_runs_named(choice.local)
    return "none (no stored or shipped simulation runs were used)"


def local_option() -> str:
    """How a message names the choice of the local runs whatever they hold: ``--local-evidence`` on the command
    line, ``evidence=LocalEvidence(root)`` in Python."""
    return option("local_evidence", True) if on_command_line() else "evidence=LocalEvidence(root)"
