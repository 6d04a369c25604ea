"""What stored simulation runs tell applications about tests: the evidence of a study's rows.

A study may declare ``evidence(run) -> Evidence`` (:attr:`simstudy.engine.Provides.evidence`):
its stored rows translated into one long format that applications such as
``simstudy assess`` read without knowing the study.  No library module names a
study or parses a study's labels; each study translates its own, most simply by
declaring them (:class:`LabelledOutcomes`: which procedure each of its test
labels is, and which data source is the null).

The rows (:data:`EVIDENCE_COLUMNS`) are those of :func:`simstudy.apps.proving.summary.procedures`:
one per data set (``condition``, ``replication``), repeat (``experiment``) and
procedure (``design``, ``scheme``, ``test``), with the test's ``pvalue`` and
``sign`` (+1: A better, -1: B better, 0: no direction, NaN: the stored rows do
not give it).  Designs are named in the grammar ``cvRxK``, ``5x2cv``,
``resampledR`` (90/10 splits), ``resampledR-TT`` and ``holdoutTT`` (TT percent
held out), tests by their registered name, schemes by name (``""`` for a
whole-design test).  ``truths`` maps every condition to ``{"truth": "null" | "A"
| "B" | "unclear", "twin": <the null condition that calibrates it, or "">}``.

:func:`collect_evidence` reads the evidence of every registered study from a
results root.  It prefixes every condition (and twin) with the run it comes
from (``bouckaert1/paper: bouckaert1``), so that evidence of several studies,
which may share scenario names, can be combined into one
:func:`~simstudy.apps.proving.summary.procedures` call.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np

from simstudy._files import DEFAULT_ROOT
from simstudy._lazy import lazy_module
from simstudy.errors import InputError, StoredDataError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "Evidence",
    "LabelledOutcomes",
    "collect_evidence",
    "EVIDENCE_COLUMNS",
    "TRUTHS",
    "condition_prefix",
    "studies_with_evidence",
]

#: The columns of evidence rows.
EVIDENCE_COLUMNS = ["condition", "replication", "experiment", "design", "scheme", "test", "pvalue", "sign"]
#: The truths a condition may have.
TRUTHS = ("null", "A", "B", "unclear")
_SCALE_ORDER = ("paper", "quick", "smoke")


def condition_prefix(source: str) -> str:
    """What :func:`collect_evidence` puts before every condition of ``source``: ``"SOURCE: "``."""
    return f"{source}: "


@dataclass(frozen=True, eq=False)
class Evidence:
    """The null (and alternative) evidence one stored run provides.

    Attributes
    ----------
    rows : DataFrame
        Columns :data:`EVIDENCE_COLUMNS` (text columns may be categorical).
    truths : dict
        Condition -> ``{"truth": ..., "twin": ...}`` (optionally ``truth_half``,
        the truth when training on half the cases, and ``gap``).
    alpha : float
        The largest level at which decisions can be re-made from the rows:
        ``sign`` holds for every p-value up to it (a study that stores
        decisions at 0.05 only gives 0.05; the proving ground 0.5).
    source : str
        Where the rows come from (``STUDY/PROFILE`` once collected).
    command : str
        The command that stores more of this evidence, with ``{profile}`` for the
        profile (empty: ``simstudy run STUDY --profile {profile}``).
    path : str
        The run directory it was read from (empty: not read from a stored run).
    profile : str
        The profile of that run.
    """

    rows: pd.DataFrame
    truths: dict
    alpha: float
    source: str
    command: str = ""
    path: str = ""
    profile: str = ""

    def __post_init__(self):
        missing = [c for c in EVIDENCE_COLUMNS if c not in self.rows]
        if missing:
            raise InputError(f"evidence {self.source}: rows lack the column(s) {', '.join(missing)}")
        if not 0.0 < float(self.alpha) <= 1.0:
            raise InputError(f"evidence {self.source}: alpha must lie in (0, 1], got {self.alpha!r}")
        bad = {k: v.get("truth") for k, v in self.truths.items() if v.get("truth") not in TRUTHS}
        if bad:
            k = next(iter(bad))
            raise InputError(
                f"evidence {self.source}: condition {k!r} has truth {bad[k]!r}; use one of {', '.join(TRUTHS)}"
            )
        from simstudy.pipeline.designs import grammar, is_design_name

        wrong = [d for d in self.designs if not is_design_name(d)]
        if wrong:
            raise InputError(
                f"evidence {self.source}: design(s) {', '.join(map(repr, wrong))} are not design names: {grammar()}"
            )

    @property
    def designs(self) -> list[str]:
        """The designs the rows hold."""
        return [d for d in _labels(self.rows["design"]) if d]

    @property
    def conditions(self) -> list[str]:
        """The conditions the rows hold."""
        return _labels(self.rows["condition"])

    def null_conditions(self) -> list[str]:
        """The conditions whose truth is ``null``."""
        return [c for c in self.conditions if self.truths.get(c, {}).get("truth") == "null"]

    @property
    def n_experiments(self) -> int:
        """Repeats per data set (the most any data set has)."""
        if not len(self.rows):
            return 0
        return int(
            self.rows.groupby(["condition", "replication"], sort=False, observed=True)["experiment"].nunique().max()
        )

    @property
    def n_data_sets(self) -> int:
        """Data sets (condition x replication) the rows hold."""
        return len(self.rows[["condition", "replication"]].drop_duplicates()) if len(self.rows) else 0

    def null_data_sets(self) -> dict[str, int]:
        """Per design, the data sets of null conditions the rows hold: what its tests' size verdicts rest on."""
        rows = self.rows[self.rows["condition"].isin(self.null_conditions())]
        counts = rows[["design", "condition", "replication"]].drop_duplicates().groupby("design", observed=True).size()
        return {str(d): int(n) for d, n in counts.items() if n}

    def prefixed(self, source: str) -> "Evidence":
        """The same evidence with every condition and twin prefixed by ``"SOURCE: "`` and ``source`` set."""
        p = condition_prefix(source)
        cond = self.rows["condition"]
        if not isinstance(cond.dtype, pd.CategoricalDtype):
            cond = cond.astype(str).astype("category")
        cond = cond.cat.rename_categories([p + str(c) for c in cond.cat.categories])
        truths = {
            p + str(k): {**v, "twin": (p + str(v["twin"])) if v.get("twin") else ""} for k, v in self.truths.items()
        }
        return dataclasses.replace(self, rows=self.rows.assign(condition=cond), truths=truths, source=source)


@dataclass(frozen=True)
class LabelledOutcomes:
    """Evidence declared by a study whose outcome rows name tests by the paper's labels.

    An instance is the study's :attr:`~simstudy.engine.Provides.evidence`:
    called with a stored run, it gives the :class:`Evidence` of its outcome
    rows.  Each row whose ``test`` is a label of :attr:`procedures` becomes one
    row per procedure the label stands for; every other row is left out.  Rows
    hold decisions at the study's level only, so a non-significant row's sign
    is NaN.

    Attributes
    ----------
    source : str
        The evidence's source (the study's name).
    procedures : callable
        ``procedures(fields) -> [(label, design, scheme, test), ...]``: the
        procedures of the conditions whose outcome columns :attr:`by` have the
        values ``fields`` (a dict); ``scheme`` None takes the row's own
        ``scheme`` column.  Designs in the grammar of :mod:`simstudy.apps.evidence`,
        tests by registered name.
    by : tuple of str
        The outcome columns the procedures depend on (the design's runs, say).
    source_column, null : str
        The column that names each condition's data source, and the source
        without an effect: its conditions are null; every other is an
        alternative on which A is better, calibrated by the null's condition.
    alpha : float
        The level when the rows store none.
    keep : (column, value), optional
        Only the rows whose ``column`` is ``value`` (or, when no row is, holds
        the first row's value): one pair of learners of several.
    """

    source: str
    procedures: Callable
    null: str
    alpha: float
    by: tuple = ()
    source_column: str = "source"
    keep: tuple | None = None

    def __call__(self, run) -> Evidence:
        out = run.table("outcomes")
        if self.keep is not None and self.keep[0] in out:
            col, value = self.keep
            have = out[col].astype(str)
            out = out[have == (value if (have == value).any() else have.iloc[0])]
        parts, matched = [], []
        for values, g in out.groupby(list(self.by), sort=False) if self.by else [((), out)]:
            values = values if isinstance(values, tuple) else (values,)
            fields = {c: (v.item() if hasattr(v, "item") else v) for c, v in zip(self.by, values)}
            declared = pd.DataFrame(
                list(self.procedures(fields)), columns=["label", "declared_design", "declared_scheme", "declared_test"]
            )
            g = g.assign(label=g["test"].astype(str)).merge(declared, on="label")
            matched.append(g)
            own = g["scheme"].fillna("").astype(str).to_numpy(object) if "scheme" in g else np.full(len(g), "", object)
            scheme = g["declared_scheme"].to_numpy(object)
            decision = g["decision"].to_numpy(dtype=float)
            parts.append(
                pd.DataFrame(
                    {
                        "condition": g["condition"].astype(str).to_numpy(),
                        "replication": g["replication"].to_numpy(),
                        "experiment": g["experiment"].to_numpy(),
                        "design": g["declared_design"].to_numpy(),
                        "scheme": np.where(pd.isna(scheme), own, scheme),
                        "test": g["declared_test"].to_numpy(),
                        "pvalue": g["pvalue"].to_numpy(dtype=float),
                        "sign": np.where(decision != 0, decision, np.nan),
                    }
                )
            )
        key = ["condition", "replication", "experiment", "design", "scheme", "test"]
        rows = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=EVIDENCE_COLUMNS)
        rows = rows.drop_duplicates(key).reset_index(drop=True)
        per = out[["condition", self.source_column]].astype(str).drop_duplicates("condition")
        twin = next((c for c, src in zip(per["condition"], per[self.source_column]) if src == self.null), "")
        truths = {
            c: ({"truth": "null", "twin": ""} if src == self.null else {"truth": "A", "twin": twin})
            for c, src in zip(per["condition"], per[self.source_column])
        }
        used = pd.concat(matched, ignore_index=True) if matched else out.iloc[:0]  # the rows the evidence holds
        alpha = float(used["alpha"].min()) if "alpha" in used and len(used) else self.alpha
        return Evidence(rows, truths, alpha, self.source)


def _labels(col) -> list[str]:
    """The distinct values of a text column (categorical or not; a missing value as ``""``): a category's codes are
    read, not its rows, since a paper-scale run stores tens of millions of them."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        cats = col.cat.categories
        return ["" if c < 0 else str(cats[c]) for c in np.unique(col.cat.codes.to_numpy())]
    return ["" if pd.isna(v) else str(v) for v in pd.unique(col)]


# ----------------------------------------------------------------------------------------- collecting


def _order(name: str) -> int:
    return _SCALE_ORDER.index(name) if name in _SCALE_ORDER else len(_SCALE_ORDER)


def _stored_runs(base: Path, notes: list) -> dict:
    """Per group of run directories of one study (``""``: ``STUDY/PROFILE``; ``"-X"``: ``STUDY/PROFILE-X``, a run of
    the study with other settings, as ``simstudy proving-ground --designs`` stores it): the directory to use, the
    largest profile, a finished run before an unfinished one."""
    found = {}
    for manifest in sorted(base.glob("*/manifest.json")):
        d = manifest.parent
        if "." in d.name:  # RUN.replaced-STAMP: a run moved aside by --fresh
            continue
        try:
            m = json.loads(manifest.read_text())
            profile, status = str(m["profile"]), m.get("status")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            notes.append(f"{d}: not used (unreadable manifest: {type(exc).__name__})")
            continue
        if d.name == profile:
            group = ""
        elif d.name.startswith(profile + "-"):
            group = d.name[len(profile) :]
        else:
            continue
        found.setdefault(group, []).append((status != "complete", _order(profile), profile, d))
    return {g: min(v)[2:] for g, v in found.items()}


def _with_settings(study, manifest: dict):
    """``study`` with the manifest's profile settings (a run stored with other settings, e.g. other designs)."""
    from simstudy.engine import Profile

    cfg = manifest.get("config") or {}
    name = manifest["profile"]
    n = int(cfg.get("n_replications", manifest.get("n_replications")))
    prof = Profile(name, n, dict(cfg.get("settings") or {}))
    return dataclasses.replace(study, profiles={**study.profiles, name: prof})


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _load(study, path: Path, profile: str, variant: bool, notes: list):
    """The evidence of one stored run (prefixed), or None; one note either way."""
    from simstudy.engine import load_run
    from simstudy.engine.store import RunStore

    where = str(path)
    try:
        manifest = RunStore(path).read_manifest()
        st = _with_settings(study, manifest) if variant else study
        run = load_run(st, profile=profile, out=path)
    except (ValueError, StoredDataError, OSError, KeyError, TypeError) as exc:
        notes.append(f"{where}: not used ({_one_line(exc)})")
        return None
    try:
        prog = run.progress()
        done, planned = int(prog["done"].sum()), int(prog["planned"].sum())
    except Exception:  # a damaged plan: the evidence call below says what is wrong
        done = planned = 0
    if planned and not done:
        notes.append(f"{where}: no rows stored yet (the run has just started); not used")
        return None
    try:
        ev = study.provides.evidence(run)
        if not isinstance(ev, Evidence):
            raise TypeError(f"the study's evidence function returned a {type(ev).__name__}, not an Evidence")
        if len(ev.rows):
            ev = ev.prefixed(f"{study.name}/{path.name}")
    except KeyError as exc:  # a run with a manifest but no rows of the table read
        notes.append(f"{where}: no rows stored yet ({_one_line(exc)}); not used")
        return None
    except Exception as exc:  # whatever a study's own function raises: one line, never a traceback
        notes.append(f"{where}: not used ({type(exc).__name__}: {_one_line(exc)})")
        return None
    if not len(ev.rows):
        notes.append(f"{where}: no evidence rows; not used")
        return None
    if not ev.command:
        ev = dataclasses.replace(ev, command=f"simstudy run {study.name} --profile {{profile}}")
    ev = dataclasses.replace(ev, path=where, profile=profile)
    what = []
    states = run.chunk_states()
    bad = {s: sum(1 for v in states.values() if v == s) for s in ("damaged", "foreign")}
    if done < planned:
        what.append(f"incomplete ({done} of {planned} replications stored), used as far as stored")
    if any(bad.values()):
        what.append(", ".join(f"{n} {s} chunk(s)" for s, n in bad.items() if n) + " left out")
    changed = _provenance_changes(study, run.manifest)
    if changed:
        what.append(f"computed by other code or package versions (changed: {', '.join(changed[:3])}), used as stored")
    nulls = ev.null_conditions()
    what.append(
        f"{len(nulls)} null and {len(ev.conditions) - len(nulls)} other scenario(s), designs {', '.join(ev.designs)}"
    )
    notes.append(f"{where}: " + "; ".join(what))
    return ev


def _provenance_changes(study, manifest: dict) -> list[str]:
    from simstudy.engine.fingerprint import provenance, provenance_changes

    try:
        return provenance_changes(manifest.get("provenance"), provenance(study))
    except Exception:  # the code cannot be fingerprinted here (a study file gone): say nothing
        return []


def collect_evidence(results=DEFAULT_ROOT, *, studies=None) -> tuple[list[Evidence], list[str]]:
    """The evidence every registered study that declares it has stored under ``results``.

    For every study (:func:`simstudy.engine.list_studies`, or ``studies``) whose
    :attr:`~simstudy.engine.Provides.evidence` is set: the largest stored profile
    under ``RESULTS/STUDY/PROFILE`` (paper, then quick, then smoke; a finished run
    before an unfinished one), loaded with :func:`simstudy.engine.load_run`, and
    likewise the largest of every ``RESULTS/STUDY/PROFILE-X`` (a run of the study
    with other profile settings, such as ``simstudy proving-ground --designs``
    stores).  A run with a manifest but no rows yet, an incomplete run, a run of
    other code or a damaged one is skipped or used as far as stored, with a
    one-line note; nothing raises.

    Parameters
    ----------
    results : path-like
        The results root.
    studies : iterable of str or Study, optional
        The studies to read (default every registered one).

    Returns
    -------
    evidence : list of Evidence
        One per run used, its conditions and twins prefixed with its source
        ``STUDY/DIRECTORY`` (see :meth:`Evidence.prefixed`).
    notes : list of str
        One line per run found: used (and how), or not used and why.
    """
    from simstudy.engine import get_study, list_studies

    root = Path(results)
    notes: list[str] = []
    if not root.is_dir():
        return [], [f"{root}: no such results directory"]
    out = []
    for entry in list_studies() if studies is None else studies:
        name = getattr(entry, "name", entry)
        base = root / str(name)
        if not base.is_dir():
            continue
        try:
            st = get_study(entry)
        except ValueError as exc:
            notes.append(f"{base}: not used ({_one_line(exc)})")
            continue
        if st.provides.evidence is None:
            continue
        for group, (profile, path) in sorted(_stored_runs(base, notes).items()):
            ev = _load(st, path, profile, bool(group), notes)
            if ev is not None:
                out.append(ev)
    return out, notes


def studies_with_evidence() -> list[str]:
    """The registered studies that declare evidence (their modules are imported)."""
    from simstudy.engine import get_study, list_studies

    names = []
    for name in list_studies():
        try:
            if get_study(name).provides.evidence is not None:
                names.append(name)
        except (ValueError, AttributeError):
            continue
    return names
