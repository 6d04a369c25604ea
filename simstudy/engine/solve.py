"""The value of a design knob that meets a target: stochastic root finding over a study's condition field.

A study declares its *knobs* (:class:`Knob`): numeric fields of a condition,
such as the start size of a group in Berrar's study 1 or the number of runs r
of Bouckaert's repeated cross-validation.  ``solve(study, knob, target=(Q, v))``
finds the knob value at which the quantity ``Q`` (a rejection rate, F, R2,
a mean p-value, ...) equals ``v``, with a 95% interval.

How it searches
---------------
* An *evaluation* runs the study's base condition with the knob set to one value
  for one *block* of replications (``block`` replications, the profile's count
  by default), through the engine: it is stored, verified and resumed like any
  run, in ``OUT/evals/VALUE/bBLOCK``.  Every value is one the study accepts: an
  integer knob is rounded, then stepped to the nearest integer that the study's
  ``validate`` accepts (a float knob's value is validated as it is).
* Common random numbers: the seeds of block ``b`` are the same at every knob
  value (the condition key of an evaluation leaves the value out), so the
  difference between two values is estimated with much less noise than either
  value alone, and the estimated curve is smooth across evaluations.
* Nested knobs: where the design computes every value of the knob from the same
  fits (the runs r of a repeated cv use the first r runs of one 100-run cv), a
  block is run once with every candidate value as a level, and every later
  evaluation only reads rows.  Nothing is fitted twice.
* Each evaluated value is *above* or *below* the target when its estimate
  differs from it by more than about 2.5 Monte Carlo standard errors (Student's
  t quantile of the one-sided level :data:`SIDE_LEVEL`), else *within error*.  The interval is the pair of evaluated values, one above and
  one below, with only values within error between them: a continuous curve
  crosses the target between them, so the interval holds the root whatever the
  curve's shape (it covers the error of interpolation as well as the Monte
  Carlo error, and needs no model to be right).  The reported value is the
  evaluated value in the interval whose estimate is nearest the target, and
  agrees with it within its error; a value that was not evaluated is never
  reported.  A value where fewer than two replications give a finite value has
  no estimate: the quantity is *undefined* there, and such a value is never
  reported nor taken as agreeing with the target; where the line proposes one
  already evaluated, the search looks on either side of it instead.
* The search: a first grid of five values over the interval; a line fitted
  to the evaluations between the ends of the interval (on both sides of the
  root) proposes where to evaluate next: at its root while no evaluation there
  agrees with the target, then on either side of it, far enough to differ from
  the target beyond error, while the interval is wider than ``tolerance``; when
  the ends are as near as the Monte Carlo error allows, one more block of
  replications is added at the reported value (new values then get as many).
  The search stops at the tolerance or when the next step would exceed
  ``max_evaluations`` blocks; an interval still wider than the tolerance is
  reported as such.  Every step spends a block or (a nested knob) reads a value
  not read before, so the search ends.
* The answers: *solved* (a value and its interval); *not reached* (every value
  evaluated lies on the same side of the target beyond error: the answer names
  the one that comes closest; or the quantity jumps across the target between
  two values with no value between them, or none where it is defined: the
  answer gives the two and their estimates); *unresolved* (the budget ran out
  before an interval with an agreeing value inside was found; the answer says
  what is known).

Every decision reads only stored rows, so a repeated or resumed solve makes the
same evaluations and gives the same answer, with 1 or 2 workers.

The module stays whole (about 1,100 lines): the knob, the evaluations it stores,
the search over them and the record of the answer are one algorithm whose parts
each read the others' state; apart, each would only be read through the others.
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from simstudy._files import DEFAULT_ROOT
from simstudy._lazy import lazy_module
from simstudy.engine.capacity import check_capacity
from simstudy.errors import InputError, command_line, option

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["Knob", "Evaluation", "SolveResult", "solve", "knob_of", "replication_values"]

GRID_POINTS = 5

#: One-sided level at which an estimate lies above or below the target: 0.62%, the normal's 2.5 standard errors,
#: not 2.5%, because the search judges values again as blocks are added; the threshold is Student's t quantile of
#: this level with the replications' degrees of freedom (2.86 standard errors with 20), as values sharing a block
#: share its estimated spread too.  On a curve flat near its root (``benchmarks/solve_coverage.py``) the interval
#: held the root in 93.7% of 1000 searches at the normal's 2.5% level, in 95.0% of 600 at 1.25% (budget 60).
SIDE_LEVEL = 0.0062

#: Proposed values lie ``(threshold + MARGIN)`` standard errors (by the local line's slope) from its root, so that they
#: differ from the target beyond error with high probability.
MARGIN = 1.5

#: A nested knob reads every value between the interval's ends once they are at most this many values apart.
NESTED_FILL = 32

#: The values a quantity can take, by the kind named before its ``": "``: shares and probabilities lie in
#: [0, 1] (rejection rates and mean p-values of :func:`replication_values`, and Bouckaert's replicability
#: R2 of :func:`simstudy.statistics.replicability.r2`, which studies such as ``bouckaert_factors`` report); a mean
#: statistic, or a kind not listed, may take any value.
QUANTITY_RANGES = {"rejection rate": (0.0, 1.0), "mean p-value": (0.0, 1.0), "R2": (0.0, 1.0)}


def quantity_range(quantity: str) -> tuple[float, float] | None:
    """The values ``quantity`` (e.g. ``"rejection rate: wilcoxon"``) can take, or None when unbounded or unknown."""
    kind, sep, _ = quantity.partition(": ")
    return QUANTITY_RANGES.get(kind) if sep else None


def replication_values(rows: pd.DataFrame) -> pd.DataFrame:
    """Per replication, the default quantities of a study's outcome rows.

    For every test (and scheme and pair, where the rows have them):
    ``rejection rate: TEST`` (the share of the replication's rows that reject),
    ``mean p-value: TEST`` and ``mean statistic: TEST``.

    Parameters
    ----------
    rows : DataFrame
        Outcome rows with ``replication`` and ``decision`` (and ``pvalue``, ``statistic``).

    Returns
    -------
    DataFrame
        Columns ``quantity``, ``replication`` and ``value``.
    """
    if not len(rows) or "decision" not in rows:
        return pd.DataFrame(columns=["quantity", "replication", "value"])
    by = [c for c in ("pair", "scheme", "test") if c in rows]
    label = rows[by].astype(str).agg(" / ".join, axis=1) if by else pd.Series("", index=rows.index)
    parts = []
    for name, column in (("rejection rate", None), ("mean p-value", "pvalue"), ("mean statistic", "statistic")):
        if column is None:
            value = (rows["decision"] != 0).astype(float)
        elif column in rows:
            value = rows[column].astype(float)
        else:
            continue
        frame = pd.DataFrame({"label": label, "replication": rows["replication"], "value": value})
        agg = frame.groupby(["label", "replication"], sort=True)["value"].mean().reset_index()
        agg["quantity"] = name + ": " + agg["label"]
        parts.append(agg[["quantity", "replication", "value"]])
    return pd.concat(parts, ignore_index=True)


@dataclass(frozen=True)
class Knob:
    """A numeric field of a study's condition that ``simstudy solve`` may set.

    Attributes
    ----------
    name : str
        The knob's name (``--knob NAME``), usually the condition field it sets.
    kind : str
        ``"int"`` or ``"float"``.  Every value evaluated goes through the
        study's ``validate``: an integer value it refuses is stepped to the
        nearest integer it accepts (``n_cases`` a multiple of the folds K, say);
        a float value it refuses is an error.
    low, high : float
        The knob's domain: every value searched lies in it.
    description : str
        One line for listings and errors.
    base : callable(list of conditions) -> condition, optional
        Picks the condition whose field is set (default: the profile's first).
    make : callable(condition, value) -> condition, optional
        The condition at a knob value (default: ``dataclasses.replace`` of the
        field ``name``).
    nested : str, optional
        For a knob whose every value comes from the same fits: the column of the
        outcome rows that holds the value.  ``make_all(condition, values)`` then
        gives one condition computing every value in ``values`` (the one the
        study's ``validate`` checks).  A nested knob takes integers.
    make_all : callable(condition, values) -> condition, optional
        See ``nested``.
    quantities : callable(rows) -> DataFrame, optional
        Per-replication values (columns ``quantity``, ``replication``, ``value``)
        from the outcome rows of one evaluation; default :func:`replication_values`.
    aliases : dict, optional
        Short names of quantities (``{"F": "rejection rate: wilcoxon"}``).
    notes : str
        How an estimate relates to the published quantity, where it matters.
    interval : (float, float), optional
        The interval searched by default (default the whole domain).
    """

    name: str
    kind: str = "int"
    low: float = 0
    high: float = 1
    description: str = ""
    base: Callable | None = None
    make: Callable | None = None
    nested: str | None = None
    make_all: Callable | None = None
    quantities: Callable | None = None
    aliases: dict = field(default_factory=dict)
    notes: str = ""
    interval: tuple | None = None

    def __post_init__(self):
        from simstudy.engine.study import check_name

        check_name(self.name, "knob", "a knob name, which names the folder results/STUDY/solve-KNOB")
        if self.kind not in ("int", "float"):
            raise InputError(f"knob {self.name!r}: kind must be 'int' or 'float', got {self.kind!r}")
        if not self.low < self.high:
            raise InputError(f"knob {self.name!r}: its interval must have low < high, got [{self.low}, {self.high}]")
        if self.interval is not None and not (self.low <= self.interval[0] < self.interval[1] <= self.high):
            raise InputError(
                f"knob {self.name!r}: its default interval {self.interval} must lie in [{self.low}, {self.high}]"
            )
        if self.nested and self.make_all is None:
            raise InputError(f"knob {self.name!r}: a nested knob needs make_all(condition, values)")
        if self.nested and self.kind != "int":
            raise InputError(f"knob {self.name!r}: a nested knob takes integers (kind 'int'), got {self.kind!r}")

    def condition_at(self, condition, value):
        """The condition with the knob set to ``value``."""
        if self.make is not None:
            return self.make(condition, value)
        return dataclasses.replace(condition, **{self.name: value})

    def values_of(self, rows: pd.DataFrame) -> pd.DataFrame:
        """Per-replication values of the quantities (see ``quantities``)."""
        return (self.quantities or replication_values)(rows)


@dataclass(frozen=True)
class Evaluation:
    """The condition of one evaluation: the study's condition at a knob value, in one block of replications.

    Its key leaves the value out, so block ``b`` draws the same random numbers at
    every value (common random numbers).
    """

    value: float
    block: int
    base_key: str
    condition: Any

    @property
    def key(self) -> str:
        return f"{self.base_key}-solve-b{self.block}"


def _wrap_replicate(replicate, has_setup):
    if has_setup:

        def run_with_state(ev, rng, state):
            return replicate(ev.condition, rng, state)

        return run_with_state

    def run(ev, rng):
        return replicate(ev.condition, rng)

    return run


def _wrap_validate(validate):
    def check(ev):
        return validate(ev.condition)

    return check


def _wrap_setup(setup):
    def run(ev, rng):
        return setup(ev.condition, rng)

    return run


@dataclass(frozen=True)
class SolveResult:
    """The answer of :func:`solve`.

    Attributes
    ----------
    study, knob, quantity : str
    target : float
    status : str
        ``"solved"`` (a value and its interval), ``"not reached"`` (every value
        evaluated lies on one side of the target beyond error, or the quantity
        jumps across it between two values with none between them where it is
        defined: ``low`` and ``high``) or ``"unresolved"`` (the budget ran out
        first; ``note`` says what is known).
    value : float or None
        When solved: the evaluated knob value whose estimate is nearest the
        target and agrees with it within its error (:data:`SIDE_LEVEL`); None
        otherwise (never a value beyond error of the target).
    root : float or None
        Where the line fitted between the interval's ends crosses the target
        (for information: it was not evaluated).
    low, high : float or None
        The 95% interval of the root: evaluated values whose estimates lie
        beyond error on either side of the target, with only values within
        error between them (when unresolved, the interval found so far, if any;
        when not reached across a jump, the two values it jumps between).
    closest : dict or None
        When not reached or unresolved: the evaluated value nearest the target,
        with its estimate and MCSE.
    evaluations : DataFrame
        One row per knob value evaluated: value, replications (those with a
        finite value), estimate, MCSE and whether the estimate lies above,
        below or within error of the target, or is undefined.
    n_evaluations : int
        Blocks used (an evaluation of a nested knob costs no new block).
    seconds : float
        Compute time of the blocks run by this call.
    out : pathlib.Path
    tolerance : float
        The width of interval the search aimed at.
    note : str
        Why the answer is not reached or unresolved, in a few words, and the
        values where the quantity is undefined, if any.
    """

    study: str
    knob: str
    quantity: str
    target: float
    status: str
    value: float | None
    root: float | None
    low: float | None
    high: float | None
    closest: dict | None
    evaluations: pd.DataFrame
    n_evaluations: int
    seconds: float
    out: Path
    tolerance: float = math.nan
    note: str = ""

    @property
    def reached(self) -> bool:
        """Whether the answer is a value with its interval (``status == "solved"``)."""
        return self.status == "solved"

    @property
    def within_tolerance(self) -> bool:
        """Whether the interval is at most ``tolerance`` wide (False when there is none)."""
        return self.low is not None and self.high is not None and self.high - self.low <= self.tolerance

    def _at(self, value) -> str:
        row = self.evaluations[self.evaluations["value"] == value]
        if not len(row):
            return ""
        r = row.iloc[0]
        return f"estimate {r['estimate']:.4g}, MCSE {r['mcse']:.2g}"

    def describe(self) -> str:
        """The answer in a few lines."""
        head = f"{self.study}: {self.quantity} = {self.target:g} over {self.knob}"
        tail = f"from {len(self.evaluations)} values evaluated with {self.n_evaluations} blocks of replications"
        if self.status == "not reached":
            c = self.closest or {}
            return (
                f"{head}: not reached in the interval ({self.note}); closest at {self.knob} = {c.get('value'):g}, "
                f"estimate {c.get('estimate', float('nan')):.4g} (MCSE {c.get('mcse', float('nan')):.2g}); {tail}"
            )
        if self.status == "unresolved":
            return (
                f"{head}: unresolved: {self.note}; {tail}. A larger {option('max_evaluations')} "
                f"(or {option('block')}) may resolve it"
            )
        text = (
            f"{head}: {self.knob} = {self.value:g} (evaluated: {self._at(self.value)}), 95% interval "
            f"[{self.low:.6g}, {self.high:.6g}] (its ends evaluated on either side of the target beyond error), "
            + (f"{self.note}; " if self.note else "")
            + tail
        )
        if not self.within_tolerance:
            text += (
                f". The interval is wider than the tolerance {self.tolerance:g}: a larger {option('max_evaluations')} "
                f"(or {option('block')}) narrows it"
            )
        return text


def knob_of(study, name: str) -> Knob:
    """The knob ``name`` that ``study`` declares (the message lists those it declares)."""
    knobs = {k.name: k for k in getattr(study, "knobs", ()) or ()}
    if name not in knobs:
        have = ", ".join(f"{k} ({v.description})" if v.description else k for k, v in knobs.items())
        raise InputError(
            f"{option('knob')}: study {study.name!r} declares no knob {name!r}; "
            + (f"its knobs: {have}" if knobs else "it declares none")
        )
    return knobs[name]


def _check_number(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise InputError(f"{name}: must be a finite number, got {value!r}")
    return float(value)


def _derived(st, knob: Knob, ev: Evaluation, n: int):
    """The one-condition study that runs evaluation ``ev`` with ``n`` replications."""
    from simstudy.engine.study import Cost, Profile, Study

    return Study(
        name=f"{st.name}-solve-{knob.name}",
        title=f"{st.title} (solve over {knob.name})",
        conditions=[ev],
        replicate=_wrap_replicate(st.replicate, st.setup is not None),
        setup=_wrap_setup(st.setup) if st.setup is not None else None,
        validate=_wrap_validate(st.validate) if st.validate is not None else None,
        profiles={"solve": Profile("solve", n_replications=n)},
        chunk_size=min(st.chunk_size, n),
        # the evaluation is not one of the study's conditions: a cost that depends on the condition counts 1 s
        cost=Cost(seconds_per_replication=1.0 if st.cost.per_condition else st.cost.seconds(ev)),
    )


class _Search:
    """The stored evaluations of one solve and the engine runs that make them."""

    def __init__(self, study, knob, profile, out, block, seed, jobs, backend, progress, condition=None) -> None:
        from simstudy.engine.study import condition_key

        self.study, self.knob, self.out = study, knob, Path(out)
        self.block, self.seed, self.jobs, self.backend, self.progress = block, seed, jobs, backend, progress
        prof = study.profile(profile)
        conds = study.conditions_for(prof)
        if condition is not None:
            keys = {condition_key(c): c for c in conds}
            if condition not in keys:
                raise InputError(
                    f"{option('condition')}: {condition!r} is not a condition of {study.name}/{profile}; "
                    f"choose one of {', '.join(keys)}"
                )
            self.base = keys[condition]
        else:
            self.base = knob.base(conds) if knob.base else conds[0]
        self.base_key = condition_key(self.base)
        self.rows: dict[float | str, list[pd.DataFrame]] = {}  # per knob value; "all" for a nested knob
        self.blocks_run = 0
        self.seconds = 0.0
        self.nested_values = None
        self._accepted: dict = {}
        self._values: dict = {}
        self._refusal: dict = {}

    def accepts(self, value) -> bool:
        """Whether the study's ``validate`` accepts the base condition with the knob at ``value`` (cached)."""
        if value not in self._accepted:
            try:
                if self.study.validate is not None and not self.knob.nested:
                    self.study.validate(self.knob.condition_at(self.base, value))
                self._accepted[value] = True
            except ValueError as exc:
                self._accepted[value] = False
                self._refusal.setdefault("first", str(exc))
        return self._accepted[value]

    def snap(self, x: float, a: float, b: float, *, strict: bool = False):
        """The valid value nearest ``x`` in [a, b] (the open interval when ``strict``), or None.

        An integer knob rounds ``x``, then steps outwards (nearest first, the
        lower on a tie) to the first integer the study accepts; a float value
        is taken as it is, if accepted.
        """
        if self.knob.kind != "int":
            if strict and not a < x < b:
                return None
            v = float(min(max(x, a), b))
            return v if self.accepts(v) else None
        first = math.floor(a) + 1 if strict and float(a).is_integer() else math.ceil(a)
        last = math.ceil(b) - 1 if strict and float(b).is_integer() else math.floor(b)
        if first > last:
            return None
        start = min(max(int(round(x)), first), last)
        for step in range(0, last - first + 1):
            for v in (start - step, start + step) if step else (start,):
                if first <= v <= last and self.accepts(v):
                    return v
            if start - step < first and start + step > last:
                break
        return None

    def eval_dir(self, label, block: int) -> Path:
        """``OUT/evals/LABEL/bBLOCK``, refused (StoreError) when a symbolic link lies on the way below ``OUT``.

        The run directory of an evaluation is written by the engine, which
        follows no link inside it; a link above it, inside a solve folder
        someone sent, would lead its writes elsewhere.
        """
        from simstudy.engine.store import lstat_below

        path = self.out / "evals" / str(label) / f"b{block}"
        lstat_below(self.out, path)
        return path

    def _stored(self, derived, path):
        """The evaluation stored complete in ``path`` for this seed, read without the write lock; else None.

        A finished solve is re-read from a folder it cannot write (read-only,
        or another user's): only an evaluation that still needs replications
        goes through :func:`~simstudy.engine.run_study`, which locks and writes.
        """
        from simstudy.engine.runs import load_run
        from simstudy.engine.store import ConfigMismatch, RunStore

        manifest = RunStore(path).read_manifest()
        if manifest is None or manifest.get("root_seed") != self.seed:
            return None
        try:
            run = load_run(derived, "solve", out=path)
        except ConfigMismatch:
            return None  # run_study names what differs
        return run if run.complete else None

    def _run(self, condition, value_label, block):
        from simstudy.engine.runner import run_study

        ev = Evaluation(float(value_label) if value_label != "all" else math.nan, block, self.base_key, condition)
        derived = _derived(self.study, self.knob, ev, self.block)
        path = self.eval_dir(value_label, block)
        run = self._stored(derived, path)
        if run is None:
            run = run_study(
                derived, "solve", out=path, jobs=self.jobs, backend=self.backend, seed=self.seed, progress=self.progress
            )
            self.seconds += sum(r.get("seconds", 0) for r in run.manifest.get("runs", [])[-1:])
        out = run.table("outcomes")
        out = out.copy()
        out["replication"] = out["replication"] + block * self.block
        return out

    def values(self, x: float, blocks: int) -> pd.DataFrame:
        """Per-replication values at knob value ``x`` from its first ``blocks`` blocks (running the missing ones).

        The values of each block are computed once from its rows (the quantities are per replication).
        """
        k = self.knob
        if k.nested:
            have = self.rows.setdefault("all", [])
            while len(have) < blocks:
                cond = k.make_all(self.base, self.nested_values)
                have.append(self._run(cond, "all", len(have)))
                self.blocks_run += 1
            # every stored block: reading them costs no fit
            parts = [self._block_values("all", b, x, rows) for b, rows in enumerate(have)]
        else:
            have = self.rows.setdefault(x, [])
            while len(have) < blocks:
                value = int(round(x)) if k.kind == "int" else float(x)
                have.append(self._run(k.condition_at(self.base, value), _label(value), len(have)))
                self.blocks_run += 1
            parts = [self._block_values(x, b, None, rows) for b, rows in enumerate(have[:blocks])]
        return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]

    def _block_values(self, label, block: int, level, rows: pd.DataFrame) -> pd.DataFrame:
        key = (label, block, level)
        if key not in self._values:
            if level is not None:
                rows = rows[rows[self.knob.nested].astype(float) == float(level)]
            self._values[key] = self.knob.values_of(rows)
        return self._values[key]


def _label(value) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _trial_values(search: _Search, x) -> pd.DataFrame:
    """The quantities of one replication at ``x``, computed in this process and not stored.

    It names the quantities before anything is written, so an unknown one is refused
    with nothing on disk.  When the evaluation is already stored, its rows are used.
    """
    from simstudy.engine.runner import run_replication

    k = search.knob
    value = int(round(x)) if k.kind == "int" else float(x)
    label = "all" if k.nested else _label(value)
    if (search.eval_dir(label, 0) / "manifest.json").is_file():
        return search.values(x, 1)
    cond = k.make_all(search.base, search.nested_values) if k.nested else k.condition_at(search.base, value)
    ev = Evaluation(math.nan if k.nested else float(value), 0, search.base_key, cond)
    st = search.study
    state = None
    if st.setup is not None:
        from simstudy.engine.seeds import setup_seed
        from simstudy.engine.study import condition_key

        name = _derived(st, k, ev, 1).name
        state = st.setup(cond, np.random.default_rng(setup_seed(search.seed, name, condition_key(ev))))
    tables, _, _ = run_replication(_derived(st, k, ev, 1), ev, 0, search.seed, state)
    rows = tables.get("outcomes", pd.DataFrame())
    if k.nested:
        rows = rows[rows[k.nested].astype(float) == float(x)]
    return k.values_of(rows)


def _resolve_quantity(knob: Knob, name: str, table: pd.DataFrame) -> str:
    name = knob.aliases.get(name, name)
    known = sorted(table["quantity"].unique())
    if name not in known:
        aliases = ", ".join(f"{a} (= {q})" for a, q in knob.aliases.items())
        raise InputError(
            f"{option('target')}: unknown quantity {name!r}; the quantities are: {', '.join(known)}"
            + (f"; short names: {aliases}" if aliases else "")
        )
    return name


def _check_target_range(knob: Knob, name: str, goal: float) -> None:
    """Refuse a target the quantity can never take (a share above 1), before anything is run."""
    quantity = knob.aliases.get(name, name)
    bounds = quantity_range(quantity)
    if bounds is not None and not bounds[0] <= goal <= bounds[1]:
        shown = quantity if quantity == name else f"{name} ({quantity})"
        raise InputError(
            f"{option('target')}: {shown} takes values in [{bounds[0]:g}, {bounds[1]:g}], "
            f"so {goal:g} can never be reached"
        )


def _series(table: pd.DataFrame, quantity: str) -> pd.Series:
    t = table[table["quantity"] == quantity]
    return t.set_index("replication")["value"].sort_index()


_CRITICAL: dict = {}


def _critical(n: int) -> float:
    """Standard errors beyond which a mean of ``n`` replications lies above or below the target (see SIDE_LEVEL)."""
    if n < 2:
        return math.inf
    if n not in _CRITICAL:
        from scipy import stats

        _CRITICAL[n] = float(stats.t.ppf(1 - SIDE_LEVEL, n - 1))
    return _CRITICAL[n]


def _line(xs, ys, ws):
    """Slope and intercept of the weighted least-squares line through (xs, ys), or None when it has no slope."""
    x, y, w = (np.asarray(v, dtype=float) for v in (xs, ys, ws))
    xm, ym = np.sum(w * x) / np.sum(w), np.sum(w * y) / np.sum(w)
    sxx = np.sum(w * (x - xm) ** 2)
    if not sxx > 0:
        return None
    slope = np.sum(w * (x - xm) * (y - ym)) / sxx
    return (float(slope), float(ym - slope * xm)) if np.isfinite(slope) and slope != 0 else None


class _Root:
    """The search for a value where the quantity meets ``goal``, over evaluations made by ``evaluate``.

    ``evaluate(x, blocks)`` returns the per-replication values at ``x`` from its
    first ``blocks`` blocks (for a nested knob, from every block run so far,
    which it runs up to ``blocks``); ``snap(x, a, b, strict=)`` gives the valid
    value nearest ``x`` (see :meth:`_Search.snap`).  It decides from the values
    alone, so the same values give the same evaluations and answer.
    """

    def __init__(self, evaluate, snap, goal, tol, budget, *, bounded, nested, kind, scale) -> None:
        self.evaluate, self.snap, self.goal, self.tol, self.budget = evaluate, snap, goal, tol, budget
        self.bounded, self.nested, self.kind, self.scale = bounded, nested, kind, scale
        self.blocks: dict = {}
        self.series: dict = {}
        self.spent = 0  # blocks used
        self.shared = 0  # blocks of a nested knob (every value has them all)

    # -- evaluations and their cost ---------------------------------------------------------------
    def cost(self, x, blocks: int) -> int:
        if self.nested:
            return max(0, blocks - self.shared)
        return max(0, blocks - self.blocks.get(x, 0))

    def affordable(self, x, blocks: int) -> bool:
        return self.spent + self.cost(x, blocks) <= self.budget

    def put(self, x, blocks: int):
        """Evaluate ``x`` with ``blocks`` blocks (a nested knob: every value gets them)."""
        self.spent += self.cost(x, blocks)
        if self.nested:
            self.shared = max(self.shared, blocks)
            self.blocks[x] = self.shared
            self.series[x] = self.evaluate(x, self.shared)
            for y in self.series:
                if self.blocks[y] < self.shared:
                    self.blocks[y] = self.shared
                    self.series[y] = self.evaluate(y, self.shared)
        else:
            self.blocks[x] = max(blocks, self.blocks.get(x, 0))
            self.series[x] = self.evaluate(x, self.blocks[x])

    def stat(self, x):
        """Estimate, its MCSE, the side of the target it lies on (+1 above, -1 below, 0 within error) and the
        threshold in standard errors.  Only finite values count: with fewer than two, the quantity is undefined at
        ``x`` (its MCSE is infinite) and ``x`` is never reported nor taken as agreeing with the target."""
        s = self.series[x]
        s = s[np.isfinite(s.to_numpy(dtype=float))]
        n = len(s)
        if n < 2:
            return (float(s.mean()) if n else math.nan), math.inf, 0, math.inf
        m, var = float(s.mean()), float(s.var(ddof=1))
        if self.bounded:
            # a value in [0, 1] whose mean is the target has a variance of at most goal (1 - goal); its spread is
            # judged at the target, as a score test does (a share of 79 of 80 is not 0.95 "beyond error" because
            # its own spread is small), in proportion to the spread seen (a share of many rows varies less)
            ratio = min(1.0, var / (m * (1 - m))) if 0 < m < 1 else 1.0
            var = max(var, ratio * self.goal * (1 - self.goal))
        e = math.sqrt(var / n)
        crit = _critical(n)
        side = 1 if m - self.goal > crit * e else -1 if m - self.goal < -crit * e else 0
        return m, e, side, crit

    # -- the search ----------------------------------------------------------------------------
    def bracket(self, xs, sides):
        """Indices of the first pair of values on opposite sides of the target with only agreeing values between."""
        off = [i for i, v in enumerate(sides) if v != 0]
        return next(((i, j) for i, j in zip(off, off[1:]) if sides[i] != sides[j]), None)

    def line_root(self, pts, stats, up: bool, lo, hi):
        """Root and slope of the weighted line through ``pts`` (between lo and hi), or the middle without one."""
        es = [stats[x][1] for x in pts]
        positive = [e for e in es if 0 < e < math.inf]
        floor = min(positive) if positive else 1.0
        ws = [1.0 / max(e, floor) ** 2 if e < math.inf else 0.0 for e in es]
        fit = _line(pts, [stats[x][0] for x in pts], ws) if sum(w > 0 for w in ws) >= 2 else None
        if fit is None or (fit[0] > 0) != up:
            return (lo + hi) / 2, None
        slope, icpt = fit
        return float(min(max((self.goal - icpt) / slope, lo), hi)), slope

    def around(self, lo, hi):
        """A valid value not evaluated yet in the widest gap between the values evaluated in [lo, hi], or None.

        Where the line proposes a value already evaluated (one whose quantity is undefined), the search
        looks on either side of it instead, widest gap first, so it never proposes the same value twice.
        """
        pts = [x for x in sorted(self.series) if lo <= x <= hi]
        for a, b in sorted(zip(pts, pts[1:]), key=lambda g: (-(g[1] - g[0]), g[0])):
            if self.kind != "int" and b - a <= 1e-9 * self.scale:
                continue
            x = self.snap((a + b) / 2, a, b, strict=True)
            if x is not None:
                return x
        return None

    def run(self, grid):
        for x in grid:
            self.put(x, 1)
        # every step spends a block, or (a nested knob) reads a value it has not read: at most this many steps
        steps = self.budget + (int(self.scale) + 1 if self.nested else 0) + 1
        before = None
        for _ in range(steps):
            xs = sorted(self.series)
            stats = {x: self.stat(x) for x in xs}
            if (self.spent, len(xs)) == before:
                return self.answer("unresolved", stats, note="the search proposed no new evaluation; it stopped")
            before = (self.spent, len(xs))
            known = [x for x in xs if stats[x][1] < math.inf]  # an estimate with its error: a defined quantity
            sides = [stats[x][2] for x in known]
            br = self.bracket(known, sides)
            if br is None:
                agreeing = [x for x in known if stats[x][2] == 0]
                if not known:
                    return self.answer("unresolved", stats)
                if not agreeing:
                    return self.answer("not reached", stats)
                # the value most likely to leave the target's error: one more block there
                x = max(agreeing, key=lambda v: abs(stats[v][0] - self.goal) / max(stats[v][1], 1e-300))
                if not self.affordable(x, self.blocks[x] + 1):
                    return self.answer("unresolved", stats)
                self.put(x, self.blocks[x] + 1)
                continue
            i, j = br
            lo, hi = known[i], known[j]
            if self.nested and 0 < hi - lo - 1 <= NESTED_FILL:
                # a nested knob's values cost no block: read every one between the ends (any may narrow them)
                fill = [v for v in range(int(lo) + 1, int(hi)) if v not in self.series]
                if fill:
                    for v in fill:
                        self.put(v, self.shared)
                    continue
            inside = known[i + 1 : j]  # every one within error of the target
            up = sides[j] > 0  # the quantity rises across the interval
            root, slope = self.line_root(known[i : j + 1], stats, up, lo, hi)
            if not inside:
                width = hi - lo
                x = self.snap(min(max(root, lo + 0.1 * width), hi - 0.1 * width), lo, hi, strict=True)
                if x is not None and x in self.series:
                    x = self.around(lo, hi)  # the quantity is undefined there: look on either side
                if x is None or (self.kind != "int" and width <= 1e-9 * self.scale):
                    # the quantity jumps across the target: no value between the ends, or none where it is defined
                    return self.answer("not reached", stats, (lo, hi), None, root)
                # as many blocks as the ends have, or as many as the budget allows (a larger error, judged as such)
                nb = next((n for n in range(max(self.blocks[lo], self.blocks[hi]), 0, -1) if self.affordable(x, n)), 0)
                if not nb:
                    return self.answer("unresolved", stats, (lo, hi), None, root)
                self.put(x, nb)
                continue
            p = min(inside, key=lambda v: (abs(stats[v][0] - self.goal), v))
            if hi - lo <= self.tol:
                return self.answer("solved", stats, (lo, hi), p, root)
            e_p = stats[p][1]
            d = (stats[p][3] + MARGIN) * e_p / abs(slope) if slope is not None and e_p < math.inf else (hi - lo) / 4
            want = self.blocks[p]
            step = None
            centre = self.snap(root, lo, hi, strict=True)
            if min(abs(x - root) for x in inside) > self.tol / 2 and centre is not None and centre not in self.blocks:
                step = centre  # nothing evaluated near where the line crosses the target: look there first
            for end in [] if step is not None else sorted((lo, hi), key=lambda v: -abs(v - root)):
                if abs(end - root) <= 1.25 * d:
                    continue  # near enough: only a smaller error brings it nearer
                # the agreeing value farthest towards this end: first give it the reported value's blocks, then
                # evaluate beyond it (at the distance the line proposes, else halfway to the end)
                beyond = [x for x in inside if (x - p) * (end - p) > 0]
                inner = max(beyond, key=lambda v: abs(v - p)) if beyond else p
                if inner != p and self.blocks[inner] < want and abs(inner - root) > d:
                    step = inner
                    break
                a, b = sorted((end, inner))
                span = b - a
                if self.kind != "int" and span <= 1e-9 * self.scale:
                    continue
                toward = root + math.copysign(d, end - p)
                if not a < toward < b:
                    toward = (a + b) / 2
                x = self.snap(min(max(toward, a + 0.1 * span), b - 0.1 * span), a, b, strict=True)
                if x is None or (x in self.blocks and self.blocks[x] >= want):
                    continue
                step = x
                break
            if step is not None:
                if not self.affordable(step, want):
                    return self.answer("solved", stats, (lo, hi), p, root)
                self.put(step, want)
                continue
            if not self.affordable(p, want + 1):
                return self.answer("solved", stats, (lo, hi), p, root)
            self.put(p, want + 1)
        xs = sorted(self.series)
        return self.answer("unresolved", {x: self.stat(x) for x in xs}, note=f"the search stopped after {steps} steps")

    def _at(self, x, stats) -> str:
        m, e, side, _ = stats[x]
        return f"{x:g} (estimate {m:.4g}, MCSE {e:.2g}, {'above' if side > 0 else 'below'} it beyond error)"

    def answer(self, status, stats, interval=None, value=None, root=None, note=None) -> dict:
        known = [x for x in stats if stats[x][1] < math.inf]
        undefined = [x for x in sorted(stats) if stats[x][1] == math.inf]
        near = min(known, key=lambda v: (abs(stats[v][0] - self.goal), v)) if known else None
        closest = {"value": near, "estimate": stats[near][0], "mcse": stats[near][1]} if near is not None else None
        out = {"status": status, "closest": closest, "interval": interval, "value": value, "root": root, "note": ""}
        if note is not None:
            out["note"] = note
        elif status == "not reached" and interval is not None:
            # the ends lie on either side of the target beyond error, and no value between them has an estimate
            lo, hi = interval
            between = [x for x in undefined if lo < x < hi]
            if between:
                how = "the quantity is undefined at every value between them that the study accepts"
            elif self.kind == "int":
                how = "no value between them that the study accepts" if hi - lo > 1 else "adjacent integers"
            else:
                how = f"{hi - lo:.2g} apart, no farther than the search resolves"
            out["note"] = (
                f"the quantity jumps across the target between {self._at(lo, stats)} and {self._at(hi, stats)}, "
                f"{how}: no value meets the target within error"
            )
        elif status == "not reached":
            side = {stats[x][2] for x in known}
            out["note"] = "every value evaluated lies " + (
                "above the target beyond error"
                if side == {1}
                else "below the target beyond error"
                if side == {-1}
                else "on one side of the target beyond error"
            )
        elif status == "unresolved" and interval is not None:
            out["note"] = (
                f"the target is crossed within [{interval[0]:.6g}, {interval[1]:.6g}] (its ends evaluated on either "
                "side of it beyond error), but no value evaluated there agrees with it yet"
            )
        elif status == "unresolved" and closest is None:
            out["note"] = "no value evaluated gave an estimate of the quantity (every replication's value is missing)"
        elif status == "unresolved":
            c = closest or {}
            out["note"] = (
                "no two values evaluated lie on opposite sides of the target beyond error; the nearest, "
                f"at {c.get('value', math.nan):g}, has estimate {c.get('estimate', math.nan):.4g} "
                f"(MCSE {c.get('mcse', math.nan):.2g})"
            )
        if undefined and closest is not None:
            shown = ", ".join(f"{x:g}" for x in undefined[:8])
            shown += f" and {len(undefined) - 8} more" if len(undefined) > 8 else ""
            where = f"the quantity is undefined (fewer than two replications gave a finite value) at {shown}"
            out["note"] = f"{out['note']}; {where}" if out["note"] else where
        out["table"] = pd.DataFrame(
            [
                {
                    "value": x,
                    "replications": int(np.isfinite(self.series[x].to_numpy(dtype=float)).sum()),
                    "estimate": stats[x][0],
                    "mcse": stats[x][1] if stats[x][1] < math.inf else math.nan,
                    "versus target": "undefined"
                    if stats[x][1] == math.inf
                    else {1: "above", -1: "below", 0: "within error"}[stats[x][2]],
                }
                for x in sorted(stats)
            ]
        )
        return out


def solve(
    study,
    knob: str,
    target: tuple,
    *,
    interval=None,
    tolerance=None,
    profile: str = "quick",
    out=None,
    block: int | None = None,
    max_evaluations: int = 20,
    jobs: int = 1,
    backend: str = "loky",
    seed: int | None = None,
    progress: bool = True,
    condition: str | None = None,
) -> SolveResult:
    """Find the knob value at which a quantity of ``study`` meets ``target``.

    Parameters
    ----------
    study : str or Study
    knob : str
        A knob the study declares (:class:`Knob`).
    target : (str, float)
        The quantity (a name from :func:`replication_values` or the knob's
        aliases, e.g. ``"F"``) and the value it should take.
    interval : (float, float), optional
        Where to search (default the knob's).
    tolerance : float, optional
        Width of the root's 95% interval at which to stop (default 2% of the
        interval's width, at least 1 for an integer knob).
    profile : str
        The profile whose base condition (and, by default, replications per
        block) is used.
    out : path-like, optional
        Where evaluations are stored (default ``results/STUDY/solve-KNOB``).
    block : int, optional
        Replications per block (default the profile's), at least 2.
    max_evaluations : int
        Blocks used at most (one block at one value is one evaluation; the
        first grid takes one per value, or one in all for a nested knob).
        One block, and the blocks of the whole budget, are checked against the
        machine as ``assess`` checks its plan (memory, disk, a year of the
        study's estimated seconds per replication).
    jobs, backend, seed, progress
        As for :func:`simstudy.engine.run_study`.
    condition : str, optional
        The key of the profile's condition whose knob is set (default the
        knob's choice, else the first).

    Returns
    -------
    SolveResult

    Raises
    ------
    ValueError
        An undeclared knob, an unknown quantity, a target outside the values
        the quantity can take (a share above 1: :data:`QUANTITY_RANGES`), an
        empty or reversed interval, an interval outside the knob's domain or
        holding fewer than two values the study's ``validate`` accepts, a
        tolerance that is not positive (below 1 for an integer knob), a block
        or budget that is not a positive integer or that the machine cannot
        carry out, or bad ``jobs``, ``backend`` or ``seed``.  All before
        anything is run or written, on one line naming the option.

    Notes
    -----
    A repeated solve re-reads its stored evaluations without taking their
    write lock and leaves ``solve.json`` untouched when nothing changed, so a
    finished solve can be re-read from a read-only folder.
    """
    from simstudy.engine.runner import BACKENDS, DEFAULT_SEED, _check_int, check_jobs
    from simstudy.engine.study import get_study, n_replications_of

    study = get_study(study)
    k = knob_of(study, knob)
    if not (isinstance(target, tuple) and len(target) == 2 and isinstance(target[0], str)):
        raise InputError(f"{option('target')}: expected a tuple (QUANTITY, VALUE), got {target!r}")
    quantity_name, goal = target[0].strip(), _check_number(target[1], option("target"))
    _check_target_range(k, quantity_name, goal)
    lo, hi, tol = _search_range(k, interval, tolerance)
    if isinstance(max_evaluations, bool) or not isinstance(max_evaluations, numbers.Integral) or max_evaluations < 1:
        raise InputError(f"{option('max_evaluations')}: must be a positive integer, got {max_evaluations!r}")
    if backend not in BACKENDS:
        raise InputError(f"{option('backend')}: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    check_jobs(jobs, local=True)
    seed = DEFAULT_SEED if seed is None else _check_int(seed, option("seed"), 0)
    prof = study.profile(profile)
    search_out = Path(out) if out is not None else DEFAULT_ROOT / study.name / f"solve-{k.name}"
    search = _Search(study, k, profile, search_out, 0, seed, jobs, backend, progress, condition)
    n_block = n_replications_of(search.base, prof) if block is None else block
    if isinstance(n_block, bool) or not isinstance(n_block, numbers.Integral) or n_block < 2:
        raise InputError(f"{option('block')}: needs at least 2 replications per block, got {n_block!r}")
    search.block = int(n_block)
    if k.nested:
        search.nested_values = tuple(range(int(lo), int(hi) + 1))
        # the one condition that computes every value: the study's validate checks it before anything runs
        if study.validate is not None:
            study.validate(k.make_all(search.base, search.nested_values))
    grid = sorted({v for v in (search.snap(x, lo, hi) for x in np.linspace(lo, hi, GRID_POINTS)) if v is not None})
    if len(grid) < 2:
        why = search._refusal.get("first")
        raise InputError(
            f"{option('interval')}: the study accepts fewer than two values of knob {k.name!r} in [{lo:g}, {hi:g}]"
            + (f" (its validate: {why})" if why else "")
        )
    first_cost = 1 if k.nested else len(grid)
    if max_evaluations < first_cost:
        raise InputError(
            f"{option('max_evaluations')}: the first grid alone takes {first_cost} blocks "
            f"({', '.join(map(_label, grid))}), "
            f"got {max_evaluations}"
        )
    work = (
        [k.make_all(search.base, search.nested_values)] if k.nested else [k.condition_at(search.base, g) for g in grid]
    )
    _check_budget(study, work, search.block, max_evaluations, search_out)
    quantity = _resolve_quantity(k, quantity_name, _trial_values(search, grid[0]))
    _check_target_range(k, quantity, goal)
    _write_request(
        search_out, study, k, quantity, goal, lo, hi, tol, search.block, max_evaluations, seed, profile, search.base_key
    )
    root = _Root(
        lambda x, b: _series(search.values(x, b), quantity),
        search.snap,
        goal,
        tol,
        max_evaluations,
        bounded=quantity_range(quantity) is not None,
        nested=bool(k.nested),
        kind=k.kind,
        scale=hi - lo,
    )
    answer = root.run(grid)
    interval_found = answer["interval"]
    result = SolveResult(
        study=study.name,
        knob=k.name,
        quantity=quantity,
        target=goal,
        status=answer["status"],
        value=answer["value"],
        root=answer["root"],
        low=interval_found[0] if interval_found else None,
        high=interval_found[1] if interval_found else None,
        closest=None if answer["status"] == "solved" else answer["closest"],
        evaluations=answer["table"],
        n_evaluations=search.blocks_run,
        seconds=search.seconds,
        out=search_out,
        tolerance=tol,
        note=answer["note"],
    )
    _write_answer(search_out, result)
    return result


def _search_range(k, interval, tolerance) -> tuple:
    """``(lo, hi, tolerance)`` of a search over knob ``k``, each checked against the knob's kind and domain."""
    lo, hi = (
        (k.interval or (k.low, k.high))
        if interval is None
        else (_check_number(interval[0], option("interval")), _check_number(interval[1], option("interval")))
    )
    if not lo < hi:
        raise InputError(f"{option('interval')}: must have LO < HI, got [{lo:g}, {hi:g}]")
    if k.kind == "int":
        if not (float(lo).is_integer() and float(hi).is_integer()):
            raise InputError(f"{option('interval')}: knob {k.name!r} takes integers, got [{lo:g}, {hi:g}]")
        if hi - lo < 1:
            raise InputError(f"{option('interval')}: [{lo:g}, {hi:g}] holds fewer than two integers")
    if lo < k.low or hi > k.high:
        raise InputError(
            f"{option('interval')}: [{lo:g}, {hi:g}] leaves the domain of knob {k.name!r}, [{k.low:g}, {k.high:g}]"
        )
    tol = (
        (max(1.0, 0.02 * (hi - lo)) if k.kind == "int" else 0.02 * (hi - lo))
        if tolerance is None
        else _check_number(tolerance, option("tolerance"))
    )
    if not tol > 0:
        raise InputError(f"{option('tolerance')}: must be positive, got {tol:g}")
    if k.kind == "int" and tol < 1:
        raise InputError(
            f"{option('tolerance')}: knob {k.name!r} takes integers, so no interval is narrower than 1; got {tol:g}"
        )
    return lo, hi, tol


def _check_budget(study, conditions, block: int, budget: int, out) -> None:
    """Refuse, before anything runs, a block or a budget this machine cannot carry out, as ``assess`` refuses its
    plans (:func:`simstudy.engine.capacity.check_capacity`): one block of ``block`` replications (its stored chunks,
    their memory, disk and seconds), then the ``budget`` blocks the search may run.  The seconds are the study's
    estimate for the costliest of ``conditions`` (the first grid's)."""
    try:
        per = max(study.cost.seconds(c) for c in conditions)
    except ValueError:  # a unit of work with no measured seconds: memory and disk are still checked
        per = 0.0
    chunks = -(-block // min(study.chunk_size, block))
    timing = "running them would take about {} at the study's estimated seconds per replication"
    check_capacity(
        chunks, block * per, out, what=f"{block:,} replications per block", option=option("block"), timing=timing
    )
    check_capacity(
        budget * chunks,
        budget * block * per,
        out,
        what=f"{budget:,} blocks of {block:,} replications",
        option=option("max_evaluations"),
        timing=timing,
    )


def _write_request(out: Path, study, knob, quantity, goal, lo, hi, tol, block, budget, seed, profile, base_key):
    """Record the request; a directory holding another request is refused (before anything runs)."""
    request = {
        "study": study.name,
        "knob": knob.name,
        "condition": base_key,
        "quantity": quantity,
        "target": goal,
        "interval": [lo, hi],
        "tolerance": tol,
        "block": block,
        "max_evaluations": budget,
        "seed": seed,
        "profile": profile,
    }
    path = out / "solve.json"
    previous = _read_record(path)
    if previous is not None:
        old = previous.get("request", {}) if isinstance(previous.get("request"), dict) else {}
        same = {k: old.get(k) for k in ("study", "knob", "condition", "seed", "profile", "block")}
        if same != {k: request[k] for k in same}:
            differ = ", ".join(f"{k} {old.get(k)!r} -> {request[k]!r}" for k in same if old.get(k) != request[k])
            raise InputError(
                f"{option('out')}: {out} holds a solve of another set-up ({differ}); choose another {option('out')}"
            )
    else:
        out.mkdir(parents=True, exist_ok=True)
        previous = {}
    previous["request"] = request
    _write_json(path, previous)


def _read_record(path: Path) -> dict | None:
    """The stored ``solve.json`` (None when absent), never through a symbolic link; one line when unreadable."""
    from simstudy.engine.store import StoreError, read_regular

    try:
        record = json.loads(read_regular(path))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"{option('out')}: cannot read {path}: {exc.strerror or exc}") from None
    except StoreError:
        raise
    except ValueError as exc:
        raise StoreError(f"{option('out')}: {path} is not a valid solve record ({exc})") from None
    if not isinstance(record, dict):
        raise StoreError(f"{option('out')}: {path} is not a valid solve record (a JSON {type(record).__name__})")
    return record


def _write_json(path: Path, record: dict):
    """Write ``record`` atomically, unless the file already holds exactly it (a re-read writes nothing)."""
    from simstudy.engine.store import StoreError, _atomic_write_text, read_regular

    text = json.dumps(record, indent=1, default=_plain) + "\n"
    try:
        if read_regular(path).decode() == text:
            return
    except StoreError:
        raise
    except (OSError, ValueError):
        pass
    _atomic_write_text(path, text)


def _plain(value):
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    raise TypeError(f"not JSON: {type(value).__name__}")


def _write_answer(out: Path, result: SolveResult):
    path = out / "solve.json"
    record = _read_record(path) or {}
    with command_line():  # the record's text is the same whoever solves (a re-read writes nothing)
        text = result.describe()
    record["answer"] = {
        "status": result.status,
        "reached": result.reached,
        "value": result.value,
        "root": result.root,
        "low": result.low,
        "high": result.high,
        "closest": result.closest,
        "within_tolerance": result.within_tolerance,
        "note": result.note,
        "quantity": result.quantity,
        "evaluations": result.evaluations.to_dict("records"),
        "blocks": result.n_evaluations,
        "text": text,
    }
    _write_json(path, record)
