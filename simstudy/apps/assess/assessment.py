"""The result of an assessment, :class:`Assessment`: its tables, verdicts, recommendation and Conclusion,
made from a stored run and the evidence (:func:`_assessment`), with the per-split scores, baycomp's input,
the figure and the pages.  An assessment in which a repeat failed is refused on one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.apps.assess.data import Dataset
from simstudy.apps.assess.designs import DesignChoice
from simstudy.apps.assess.errors import _first_line
from simstudy.apps.assess.learners import LearnerChoice
from simstudy.apps.assess.recommendation import recommend, verdicts
from simstudy.apps.assess.study import LearnerFailed, _failed_text
from simstudy.apps.assess.tables import _score_columns, assessment_tables, effect_table, stored_metric, warning_summary
from simstudy.errors import InputError, option

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


#: ``evidence=SHIPPED``: the evidence shipped with the package, whatever is stored under a results root.
SHIPPED = "shipped"


@dataclass(frozen=True)
class LocalEvidence:
    """``evidence=LocalEvidence(root)``: the runs stored under ``root`` whatever their size (``--local-evidence``);
    a plain root uses them only where they are at least as strong as the evidence shipped with the package
    (:func:`simstudy.apps.shipped_evidence.choose_evidence`)."""

    root: str


@dataclass
class Assessment:
    """The result of :func:`assess`: tables from the stored rows, verdicts and a recommendation."""

    study: object
    run: object
    table: pd.DataFrame
    effect: pd.DataFrame
    verdicts: list
    recommendation: str
    evidence_notes: list
    designs: tuple
    data: Dataset
    a: LearnerChoice
    b: LearnerChoice
    alpha: float
    warnings: pd.DataFrame = field(default_factory=pd.DataFrame)
    rope: float = 0.01
    #: the decision rules applied (simstudy.apps.conclusion): the section every page opens with
    conclusion: object = None
    #: the learners' measured instability (simstudy.apps.stability), which chose the nearest evidence
    stability: dict | None = None
    #: the shipped evidence used when no run is stored under --results (simstudy.apps.shipped_evidence)
    shipped: object = None
    # the temporary directory of an assessment made without ``out``: removed with this object
    scratch: object = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        from simstudy.apps.assess.report import assessment_text

        return assessment_text(self)

    @property
    def metric(self) -> str:
        """The per-split score the tests compared (``accuracy`` unless ``metric=`` named another)."""
        return stored_metric(self.run)

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """The summaries as DataFrames: ``assessment`` (per design, scheme and test), ``effect``, ``warnings``."""
        return {"assessment": self.table, "effect": self.effect, "warnings": self.warnings}

    def _design(self, design: str | None) -> DesignChoice:
        keys = [d.key for d in self.designs]
        if design is None:
            return self.designs[0]
        if design not in keys:
            raise InputError(f"design: {design!r} is not one of this assessment's designs ({', '.join(keys)})")
        return self.designs[keys.index(design)]

    def scores(self, design: str | None = None) -> pd.DataFrame:
        """Per split: the two learners' scores, in columns named by the learners.

        Columns ``design``, ``repeat`` (from 0), ``run``, ``fold``,
        ``n_train``, ``n_test``, then A's and B's score under their labels
        (``A: <label>`` and ``B: <label>`` when the two labels are the same).
        One design, or every design when ``design`` is None.
        """
        rows = self.run.table("scores")
        col_a, col_b = _score_columns(rows)
        name_a, name_b = _score_names(self.a.shown, self.b.shown)
        chosen = [self._design(design)] if design is not None else list(self.designs)
        parts = []
        for d in chosen:
            r = rows[rows["condition"] == d.key].sort_values(["replication", "run", "fold"])
            parts.append(
                pd.DataFrame(
                    {
                        "design": d.key,
                        "repeat": r["replication"].to_numpy(),
                        "run": r["run"].to_numpy(),
                        "fold": r["fold"].to_numpy(),
                        "n_train": d.n_train,
                        "n_test": d.n_test,
                        name_a: r[col_a].to_numpy(float),
                        name_b: r[col_b].to_numpy(float),
                    }
                )
            )
        return pd.concat(parts, ignore_index=True)

    def to_baycomp(self, design: str | None = None, repeat: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
        """``x, y, runs`` of one repeat of one design, for ``baycomp.two_on_single(x, y, runs=runs)``.

        baycomp's correlated t-test takes the correlation of two splits'
        differences as ``runs / len(x)`` and wants ``runs`` to be a whole
        number that divides ``len(x)``.  For a cv design it is the number of
        runs (``1/k``, the test share the corrected tests assume); for
        resampled splits it is the divisor of the number of splits whose
        ``runs / len(x)`` is nearest to the test share ``n_test / n`` (10
        resampled 90/10 splits: 1, exactly 0.1; see :func:`baycomp_runs`).
        """
        d = self._design(design)
        s = self.scores(d.key)
        s = s[s["repeat"] == repeat]
        if s.empty:
            raise InputError(
                f"repeat: {repeat!r} is not a stored repeat of {d.key} (0 to {self.table['repeats'].max() - 1})"
            )
        x, y = s.iloc[:, -2].to_numpy(float), s.iloc[:, -1].to_numpy(float)
        return x, y, baycomp_runs(d)

    def plot(self):
        """The figure of the pages: every test's p-value in every repeat, one panel per design (a matplotlib Figure)."""
        from simstudy.apps.assess.report import _pvalue_figure

        return _pvalue_figure(self)

    def save(self, directory) -> dict:
        """Write the pages (Markdown, HTML, PNG, CSV) into ``directory``; returns their paths by kind."""
        from simstudy.apps.assess.report import write_assessment

        return write_assessment(self, directory)


def baycomp_runs(design: DesignChoice) -> int:
    """The whole number ``runs`` that baycomp's correlated t-test needs for ``design``'s splits.

    baycomp sets the correlation of two splits' differences to ``runs / len(x)``
    and requires ``runs`` to be a positive integer dividing ``len(x)``.  For a
    cv design (5x2cv included) that is its number of runs: the correlation is
    ``1/k``, the mean test share.  For ``R`` resampled splits it is the divisor
    of ``R`` whose ``runs / R`` lies nearest to the test share
    ``n_test / (n_train + n_test)`` (the smaller on a tie): exactly the share
    when ``R`` times it is whole (10 splits of 90/10: 1; 30 of 2/3 and 1/3:
    10), otherwise the nearest correlation baycomp can express.
    """
    if design.kind != "resampled":
        return int(design.n_runs)
    n = int(design.n_runs) * max(int(design.n_folds), 1)
    share = design.n_test / (design.n_train + design.n_test)
    divisors = [r for r in range(1, n + 1) if n % r == 0]
    return min(divisors, key=lambda r: (abs(r / n - share), r))


def _assessment(study, run, designs, evidence, alpha, data, a, b, rope: float = 0.01) -> Assessment:
    _check_failures(run, a, b)
    tables = assessment_tables(run)
    from simstudy.apps.conclusion import conclude
    from simstudy.apps.shipped_evidence import EvidenceChoice, choose_evidence, evidence_named, shipped_evidence
    from simstudy.apps.stability import stored_instability

    stability = stored_instability(run.table("predictions")) if "predictions" in run.tables() else None
    shipped = choice = None
    if evidence is None:
        ev, notes = [], ["no evidence root given"]
    elif isinstance(evidence, (list, tuple)):
        ev, notes = list(evidence), []
    elif isinstance(evidence, str) and evidence == SHIPPED:
        ev, notes = [], []
    elif isinstance(evidence, LocalEvidence):
        from simstudy.apps.evidence import collect_evidence

        ev, notes = collect_evidence(evidence.root)
    else:
        from simstudy.apps.evidence import collect_evidence

        ev, notes = collect_evidence(evidence)
        choice = choose_evidence(ev, designs, alpha=alpha)  # the stronger of the stored runs and the shipped one
        ev, notes = list(choice.local), notes + ([choice.passed_over] if choice.passed_over else [])
    choice = choice or EvidenceChoice(tuple(ev))
    if evidence is not None and not ev and not isinstance(evidence, (list, tuple)):
        # no stored run, or none as strong: the published proving ground ships with the package
        shipped = shipped_evidence(stability, passed_over=bool(choice.passed_over))
        notes.append(shipped.provenance)
    table, text = recommend(tables["assessment"], designs, ev, alpha=alpha, notes=notes, shipped=shipped)
    where = evidence_named(choice, shipped)
    klass = shipped.name if shipped is not None else None
    tables["effect"] = effect_table(run, designs, tables["effect"], rope=rope, klass=klass, alpha=alpha)
    conclusion = conclude(
        table, tables["effect"], designs, rope=rope, a=a.shown, b=b.shown, evidence=where, klass=klass
    )
    return Assessment(
        study,
        run,
        table,
        tables["effect"],
        verdicts(table, designs),
        text,
        notes,
        tuple(designs),
        data,
        a,
        b,
        alpha,
        warning_summary(run),
        rope,
        conclusion=conclusion,
        stability=stability,
        shipped=shipped,
    )


def _check_failures(run, a: LearnerChoice, b: LearnerChoice):
    """Refuse, on one line, to summarise an assessment in which any repeat failed.

    Verdicts over the repeats that happened not to fail would answer another
    question than the one asked, so nothing is summarised.  The failure rows
    (with their tracebacks) stay in the run directory; the message names the
    learner and the first failure.
    """
    n_fail = run.n_failures()
    if not n_fail:
        return
    failures = run.failures  # in the run's order: designs as given, then repeats
    planned = sum(c["stop"] - c["start"] for c in run.manifest["plan"])
    first = failures.iloc[0]
    error = str(first["error"])
    where = f"design {first['condition']} repeat {first['replication']}"
    kept = (
        f"no verdict is drawn from the other repeats; the failure rows, with their tracebacks, are kept in "
        f"{run.path} (chunks/*/*/failures.parquet); once fixed, rerun with {option('fresh', True)}"
    )
    for side, choice in (("A", a), ("B", b)):
        prefix = f"{LearnerFailed.__name__}: {_failed_text(side, choice)}"
        if error.startswith(prefix):
            of_learner = int(failures["error"].astype(str).str.startswith(prefix).sum())
            raise InputError(
                f"{option(side.lower())}: {choice.label} failed in {of_learner} of {planned} repeats; "
                f"first: {where}: {_first_line(error[len(prefix) :])}; {kept}"
            )
    raise InputError(f"assess: {n_fail} of {planned} repeats failed; first: {where}: {_first_line(error)}; {kept}")


def _score_names(a: str, b: str) -> tuple[str, str]:
    """The columns of A's and B's scores: their labels, told apart as ``A: ...`` and ``B: ...`` when equal."""
    return (a, b) if a != b else (f"A: {a}", f"B: {b}")
