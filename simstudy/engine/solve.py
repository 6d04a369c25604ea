"""The value of a design knob that meets a target: stochastic root finding over a study's condition field.

A study declares its *knobs* (:class:`Knob`): numeric fields of a condition,
such as the start size of a group in Berrar's study 1 or the number of runs r
of Bouckaert's repeated cross-validation.  ``solve(study, knob, target=(Q, v))``
finds the knob value at which the quantity ``Q`` (a rejection rate, F, R2,
a mean p-value, ...) equals ``v``, with a confidence interval.

How it searches
---------------
* An *evaluation* runs the study's base condition with the knob set to one value
  for one *block* of replications (``block`` replications, the profile's count
  by default), through the engine: it is stored, verified and resumed like any
  run, in ``OUT/evals/VALUE/bBLOCK``.
* Common random numbers: the seeds of block ``b`` are the same at every knob
  value (the condition key of an evaluation leaves the value out), so the
  difference between two values is estimated with much less noise than either
  value alone, and the estimated curve is smooth across evaluations.
* Nested knobs: where the design computes every value of the knob from the same
  fits (the runs r of a repeated cv use the first r runs of one 100-run cv), a
  block is run once with every candidate value as a level, and every later
  evaluation only reads rows.  Nothing is fitted twice.
* The search: a first grid of five values over the interval (integers rounded);
  the first pair of neighbours whose estimates lie on either side of the target
  is the bracket; the root is interpolated linearly within it, and its 95%
  interval comes from a bootstrap of the replications (resampled jointly at
  both ends, as their common random numbers pair them).  While the interval is
  wider than ``tolerance``, either a new value is evaluated at the interpolated
  root (narrowing the bracket), or, when the bracket cannot narrow further (an
  integer knob with neighbouring ends), one more block of replications is added
  at both ends.  The search stops at the tolerance or after ``max_evaluations``
  evaluations (blocks at one value).
* No sign change on the grid: the target is *not reached* in the interval; the
  answer names the end that comes closest, with its estimate.

Every decision reads only stored rows, so a repeated or resumed solve makes the
same evaluations and gives the same answer, with 1 or 2 workers.
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

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["Knob", "Evaluation", "SolveResult", "solve", "knob_of", "replication_values"]

GRID_POINTS = 5
N_BOOT = 400

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
        ``"int"`` or ``"float"``.
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
        gives one condition computing every value in ``values``.
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
            raise ValueError(f"knob {self.name!r}: kind must be 'int' or 'float', got {self.kind!r}")
        if not self.low < self.high:
            raise ValueError(f"knob {self.name!r}: its interval must have low < high, got [{self.low}, {self.high}]")
        if self.interval is not None and not (self.low <= self.interval[0] < self.interval[1] <= self.high):
            raise ValueError(
                f"knob {self.name!r}: its default interval {self.interval} must lie in [{self.low}, {self.high}]"
            )
        if self.nested and self.make_all is None:
            raise ValueError(f"knob {self.name!r}: a nested knob needs make_all(condition, values)")

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
    reached : bool
        Whether the target lies between the estimates at two evaluated values.
    value : float or None
        The knob value estimated to meet the target (rounded to an integer for
        an integer knob; ``root`` keeps the interpolated value).
    root : float or None
    low, high : float or None
        95% confidence interval of the root (bootstrap over replications).
    closest : dict or None
        When not reached: the end of the interval that comes closest, with its estimate.
    evaluations : DataFrame
        One row per knob value evaluated: value, replications, estimate, MCSE.
    n_evaluations : int
        Blocks run (an evaluation of a nested knob costs no new block).
    seconds : float
        Compute time of the blocks run by this call.
    out : pathlib.Path
    """

    study: str
    knob: str
    quantity: str
    target: float
    reached: bool
    value: float | None
    root: float | None
    low: float | None
    high: float | None
    closest: dict | None
    evaluations: pd.DataFrame
    n_evaluations: int
    seconds: float
    out: Path

    def describe(self) -> str:
        """The answer in a few lines."""
        head = f"{self.study}: {self.quantity} = {self.target:g} over {self.knob}"
        if not self.reached:
            c = self.closest or {}
            return (
                f"{head}: not reached in the interval; closest at {self.knob} = {c.get('value')}, "
                f"estimate {c.get('estimate', float('nan')):.4g} (MCSE {c.get('mcse', float('nan')):.2g})"
            )
        return (
            f"{head}: {self.knob} = {self.value:g} (interpolated {self.root:.4g}, 95% interval "
            f"[{self.low:.4g}, {self.high:.4g}]), from {len(self.evaluations)} values evaluated "
            f"with {self.n_evaluations} blocks of replications"
        )


def knob_of(study, name: str) -> Knob:
    """The knob ``name`` that ``study`` declares (the message lists those it declares)."""
    knobs = {k.name: k for k in getattr(study, "knobs", ()) or ()}
    if name not in knobs:
        have = ", ".join(f"{k} ({v.description})" if v.description else k for k, v in knobs.items())
        raise ValueError(
            f"--knob: study {study.name!r} declares no knob {name!r}; "
            + (f"its knobs: {have}" if knobs else "it declares none")
        )
    return knobs[name]


def _check_number(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name}: must be a finite number, got {value!r}")
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
        profiles={"solve": Profile("solve", n_replications=n)},
        chunk_size=min(st.chunk_size, n),
        # the evaluation is not one of the study's conditions: a cost that depends on the condition counts 1 s
        cost=Cost(seconds_per_replication=1.0 if st.cost.per_condition else st.cost.seconds(ev)),
    )


class _Search:
    """The stored evaluations of one solve and the engine runs that make them."""

    def __init__(self, study, knob, profile, out, block, seed, jobs, backend, progress, condition=None):
        from simstudy.engine.study import condition_key

        self.study, self.knob, self.out = study, knob, Path(out)
        self.block, self.seed, self.jobs, self.backend, self.progress = block, seed, jobs, backend, progress
        prof = study.profile(profile)
        conds = study.conditions_for(prof)
        if condition is not None:
            keys = {condition_key(c): c for c in conds}
            if condition not in keys:
                raise ValueError(
                    f"--condition: {condition!r} is not a condition of {study.name}/{profile}; "
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
        """Per-replication values at knob value ``x`` from its first ``blocks`` blocks (running the missing ones)."""
        k = self.knob
        if k.nested:
            have = self.rows.setdefault("all", [])
            while len(have) < blocks:
                cond = k.make_all(self.base, self.nested_values)
                have.append(self._run(cond, "all", len(have)))
                self.blocks_run += 1
            rows = pd.concat(have, ignore_index=True)  # every stored block: reading them costs no fit
            rows = rows[rows[k.nested].astype(float) == float(x)]
            return k.values_of(rows)
        have = self.rows.setdefault(x, [])
        while len(have) < blocks:
            value = int(round(x)) if k.kind == "int" else float(x)
            have.append(self._run(k.condition_at(self.base, value), _label(value), len(have)))
            self.blocks_run += 1
        return k.values_of(pd.concat(have[:blocks], ignore_index=True))


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
        raise ValueError(
            f"--target: unknown quantity {name!r}; the quantities are: {', '.join(known)}"
            + (f"; short names: {aliases}" if aliases else "")
        )
    return name


def _check_target_range(knob: Knob, name: str, goal: float) -> None:
    """Refuse a target the quantity can never take (a share above 1), before anything is run."""
    quantity = knob.aliases.get(name, name)
    bounds = quantity_range(quantity)
    if bounds is not None and not bounds[0] <= goal <= bounds[1]:
        shown = quantity if quantity == name else f"{name} ({quantity})"
        raise ValueError(
            f"--target: {shown} takes values in [{bounds[0]:g}, {bounds[1]:g}], so {goal:g} can never be reached"
        )


def _series(table: pd.DataFrame, quantity: str) -> pd.Series:
    t = table[table["quantity"] == quantity]
    return t.set_index("replication")["value"].sort_index()


def _line_root(x, y, w, goal):
    """Root of the weighted least-squares line through (x, y) (the middle of x when it is flat)."""
    xm = np.sum(w * x) / np.sum(w)
    ym = np.sum(w * y) / np.sum(w)
    sxx = np.sum(w * (x - xm) ** 2)
    slope = np.sum(w * (x - xm) * (y - ym)) / sxx if sxx > 0 else 0.0
    if slope == 0:
        return xm
    return xm + (goal - ym) / slope


def _local_root(xs, values, goal, lo, hi, rng):
    """The root of a line fitted near the bracket, and its 95% bootstrap interval.

    The line is fitted by weighted least squares (weights: the inverse squared
    MCSE of each estimate) to the bracket's ends and their neighbours.  The
    bootstrap resamples replication numbers jointly at every value (common
    random numbers pair them), among the replications all values share.
    """
    x = np.asarray(xs, dtype=float)
    n = np.array([len(v) for v in values], dtype=float)
    var = np.array([v.var(ddof=1) if len(v) > 1 else np.nan for v in values])
    # an estimate whose replications all agree has no spread yet: give it the largest spread seen
    # (not a tiny one, which would let it pin the line)
    floor = np.nanmax(var) if np.isfinite(var).any() and np.nanmax(var) > 0 else 1.0
    var = np.where(np.isfinite(var) & (var > 0), var, floor)
    w = n / var
    y = np.array([v.mean() for v in values])
    root = _line_root(x, y, w, goal)
    # replication r has the same seed at every value: draw replication numbers once per bootstrap sample
    # and let each value use those it has (its first n_j), so the pairing is kept
    top = max(len(v) for v in values)
    full = [v.reindex(range(top)).to_numpy(float) for v in values]
    idx = rng.integers(0, top, (N_BOOT, top))
    boot = np.empty(N_BOOT)
    for b in range(N_BOOT):
        means = np.array([np.nanmean(f[idx[b]]) if np.isfinite(f[idx[b]]).any() else m for f, m in zip(full, y)])
        boot[b] = _line_root(x, means, w, goal)
    boot = np.clip(boot, lo, hi)
    low, high = (float(v) for v in np.quantile(boot, [0.025, 0.975]))
    return float(np.clip(root, lo, hi)), low, high


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
    max_evaluations: int = 12,
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
        Width of the root's confidence interval at which to stop (default 2% of
        the interval's width, at least 1 for an integer knob).
    profile : str
        The profile whose base condition (and, by default, replications per
        block) is used.
    out : path-like, optional
        Where evaluations are stored (default ``results/STUDY/solve-KNOB``).
    block : int, optional
        Replications per block (default the profile's).
    max_evaluations : int
        Blocks run at most (one block at one value is one evaluation).
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
        empty or reversed interval, an interval outside the knob's domain, or a
        bad tolerance, block or budget.  All before anything is run or written.

    Notes
    -----
    A repeated solve re-reads its stored evaluations without taking their
    write lock and leaves ``solve.json`` untouched when nothing changed, so a
    finished solve can be re-read from a read-only folder.
    """
    from simstudy.engine.runner import DEFAULT_SEED
    from simstudy.engine.study import get_study, n_replications_of

    study = get_study(study)
    k = knob_of(study, knob)
    if not (isinstance(target, tuple) and len(target) == 2 and isinstance(target[0], str)):
        raise ValueError(f"--target: expected QUANTITY=VALUE, got {target!r}")
    quantity_name, goal = target[0].strip(), _check_number(target[1], "--target")
    _check_target_range(k, quantity_name, goal)
    lo, hi = (
        (k.interval or (k.low, k.high))
        if interval is None
        else (_check_number(interval[0], "--interval"), _check_number(interval[1], "--interval"))
    )
    if not lo < hi:
        raise ValueError(f"--interval: must have LO < HI, got [{lo:g}, {hi:g}]")
    if k.kind == "int":
        if not (float(lo).is_integer() and float(hi).is_integer()):
            raise ValueError(f"--interval: knob {k.name!r} takes integers, got [{lo:g}, {hi:g}]")
        if hi - lo < 1:
            raise ValueError(f"--interval: [{lo:g}, {hi:g}] holds fewer than two integers")
    if lo < k.low or hi > k.high:
        raise ValueError(f"--interval: [{lo:g}, {hi:g}] leaves the domain of knob {k.name!r}, [{k.low:g}, {k.high:g}]")
    tol = (
        (max(1.0, 0.02 * (hi - lo)) if k.kind == "int" else 0.02 * (hi - lo))
        if tolerance is None
        else _check_number(tolerance, "--tolerance")
    )
    if not tol > 0:
        raise ValueError(f"--tolerance: must be positive, got {tol:g}")
    if isinstance(max_evaluations, bool) or not isinstance(max_evaluations, numbers.Integral) or max_evaluations < 1:
        raise ValueError(f"--max-evaluations: must be a positive integer, got {max_evaluations!r}")
    seed = DEFAULT_SEED if seed is None else seed
    prof = study.profile(profile)
    search_out = Path(out) if out is not None else DEFAULT_ROOT / study.name / f"solve-{k.name}"
    search = _Search(study, k, profile, search_out, 0, seed, jobs, backend, progress, condition)
    n_block = n_replications_of(search.base, prof) if block is None else block
    if isinstance(n_block, bool) or not isinstance(n_block, numbers.Integral) or n_block < 2:
        raise ValueError(f"--block: needs at least 2 replications per block, got {n_block!r}")
    search.block = int(n_block)
    if k.kind == "int":
        grid = sorted({int(round(v)) for v in np.linspace(lo, hi, GRID_POINTS)})
    else:
        grid = list(np.linspace(lo, hi, GRID_POINTS))
    if k.nested:
        search.nested_values = tuple(range(int(lo), int(hi) + 1)) if k.kind == "int" else tuple(grid)
    quantity = _resolve_quantity(k, quantity_name, _trial_values(search, grid[0]))
    _check_target_range(k, quantity, goal)
    _write_request(
        search_out, study, k, quantity, goal, lo, hi, tol, search.block, max_evaluations, seed, profile, search.base_key
    )
    blocks = {x: 1 for x in grid}

    def estimate(x):
        s = _series(search.values(x, blocks[x]), quantity)
        return s

    series = {x: estimate(x) for x in grid}
    rng = np.random.default_rng(0)
    answer = None
    while True:
        xs = sorted(series)
        means = np.array([series[x].mean() for x in xs])
        side = np.sign(means - goal)
        bracket = next((i for i in range(len(xs) - 1) if side[i] == 0 or side[i] * side[i + 1] <= 0), None)
        if bracket is None:
            far = int(np.argmin(np.abs(means - goal)))
            s = series[xs[far]]
            answer = {
                "reached": False,
                "closest": {
                    "value": xs[far],
                    "estimate": float(s.mean()),
                    "mcse": float(s.std(ddof=1) / math.sqrt(len(s))),
                },
            }
            break
        xl, xr = xs[bracket], xs[bracket + 1]
        window = xs[max(0, bracket - 1) : bracket + 3]  # the bracket and one neighbour on either side
        root, low, high = _local_root(window, [series[x] for x in window], goal, lo, hi, rng)
        root = float(np.clip(root, xl, xr))
        answer = {"reached": True, "root": root, "low": low, "high": high, "bracket": (xl, xr)}
        if high - low <= tol or search.blocks_run >= max_evaluations:
            break
        inner = int(round(root)) if k.kind == "int" else root
        if k.kind == "int":
            inner = min(max(inner, xl + 1), xr - 1) if xr - xl >= 2 else None
        elif not xl < inner < xr or min(inner - xl, xr - inner) < 1e-9 * (hi - lo):
            inner = None
        if inner is not None and inner not in series and (xr - xl) > tol:
            blocks[inner] = max(blocks[xl], blocks[xr])
            series[inner] = estimate(inner)
        else:
            if search.blocks_run + (0 if k.nested else 2) > max_evaluations:
                break
            for x in (xl, xr):
                blocks[x] += 1
                series[x] = estimate(x)
    evals = pd.DataFrame(
        [
            {
                "value": x,
                "replications": len(series[x]),
                "estimate": float(series[x].mean()),
                "mcse": float(series[x].std(ddof=1) / math.sqrt(len(series[x]))) if len(series[x]) > 1 else math.nan,
            }
            for x in sorted(series)
        ]
    )
    if answer["reached"]:
        value = float(int(round(answer["root"]))) if k.kind == "int" else answer["root"]
        result = SolveResult(
            study.name,
            k.name,
            quantity,
            goal,
            True,
            value,
            answer["root"],
            answer["low"],
            answer["high"],
            None,
            evals,
            search.blocks_run,
            search.seconds,
            search_out,
        )
    else:
        result = SolveResult(
            study.name,
            k.name,
            quantity,
            goal,
            False,
            None,
            None,
            None,
            None,
            answer["closest"],
            evals,
            search.blocks_run,
            search.seconds,
            search_out,
        )
    _write_answer(search_out, result)
    return result


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
            raise ValueError(f"--out: {out} holds a solve of another set-up ({differ}); choose another --out")
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
        raise StoreError(f"--out: cannot read {path}: {exc.strerror or exc}") from None
    except StoreError:
        raise
    except ValueError as exc:
        raise StoreError(f"--out: {path} is not a valid solve record ({exc})") from None
    if not isinstance(record, dict):
        raise StoreError(f"--out: {path} is not a valid solve record (a JSON {type(record).__name__})")
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
    record["answer"] = {
        "reached": result.reached,
        "value": result.value,
        "root": result.root,
        "low": result.low,
        "high": result.high,
        "closest": result.closest,
        "quantity": result.quantity,
        "evaluations": result.evaluations.to_dict("records"),
        "blocks": result.n_evaluations,
        "text": result.describe(),
    }
    _write_json(path, record)
