"""Study declarations and the registry of studies.

The registry knows the built-in studies (modules of :mod:`simstudy.studies`),
the studies other packages register through the ``simstudy.studies`` entry
points, and loads a study from any ``.py`` file that defines ``STUDY``.

A study declares *what* is simulated; :mod:`simstudy.engine.runner` decides *how*
(chunks, workers, storage).  The same declaration runs at every profile: a
profile changes counts and the grid, never the code path.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import numbers
import os
import pkgutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from simstudy._codeload import HashedSourceLoader
from simstudy.engine.processes import ExitCalled as _ExitCalled
from simstudy.engine.processes import exit_refused as _exit_refused
from simstudy.errors import InputError, option

__all__ = [
    "Profile",
    "Study",
    "Cost",
    "Publication",
    "Provides",
    "Figure",
    "settings_of",
    "get_study",
    "list_studies",
    "study_origins",
    "load_study_file",
    "condition_key",
    "condition_fields",
]

PROFILE_NAMES = ("smoke", "quick", "paper")

#: The measured costs behind the wall-time estimates (``timings.json`` beside this module, written by
#: ``benchmarks/bench_estimates.py``): start-up, loading compiled kernels, each study's compilation and
#: the seconds per unit of work of the built-in studies' replications (:class:`Cost`).
_TIMINGS = json.loads((Path(__file__).with_name("timings.json")).read_text(encoding="utf-8"))

#: Seconds a fresh ``simstudy run`` spends before its first replication: the
#: process and its imports ("serial", ``--jobs 1``), and also starting the
#: worker processes and their imports ("workers").
STARTUP_SECONDS = dict(_TIMINGS["startup_seconds"])

#: Seconds every run of a study with compiled kernels (``compile_seconds > 0``) adds to
#: :data:`STARTUP_SECONDS`: importing numba and loading the kernels from its cache in each process.
KERNEL_LOAD_SECONDS = float(_TIMINGS["kernel_load_seconds"])


@dataclass(frozen=True)
class Profile:
    """The scale of a run.

    Attributes
    ----------
    name : str
        ``smoke`` (seconds, CI), ``quick`` (minutes on a laptop, the default) or
        ``paper`` (the published scale); studies may add others.
    n_replications : int
        Replications per condition (a condition may override it with its own
        ``n_replications`` attribute, e.g. a bootstrap of a different size).
    settings : dict
        Study-specific knobs read by the study's ``conditions`` function (which
        groups, how many bootstrap samples, ...).
    """

    name: str
    n_replications: int
    settings: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise InputError(f"profile name: must be a non-empty string, got {self.name!r}")
        check_name(self.name, "profile name", "a profile name, which names the folder results/STUDY/PROFILE")
        if (
            isinstance(self.n_replications, bool)
            or not isinstance(self.n_replications, numbers.Integral)
            or self.n_replications < 1
        ):
            raise InputError(
                f"n_replications: must be a positive integer, got {self.n_replications!r} (profile {self.name!r})"
            )


@dataclass(frozen=True)
class Figure:
    """A figure drawn from a study's summary tables (never from a new simulation).

    Attributes
    ----------
    name : str
        File stem of the figure (``figure9`` gives ``figure9.png`` and ``.pdf``).
    draw : callable ``(tables, ax, *, profile) -> None``
        Draws on the Matplotlib Axes ``ax`` from the study's summary tables
        (the dict its ``summarize`` returns); ``profile`` names the stored profile.
    title : str
        What the figure shows, for listings and the report.
    """

    name: str
    draw: Callable
    title: str = ""


@dataclass(frozen=True)
class Cost:
    """What a study costs to run, for the wall-time estimates of ``simstudy list`` and ``simstudy run``.

    A study gives its cost in one of two ways.  Directly, as
    ``seconds_per_replication``; or as the ``work`` one replication does, in named
    units (fits of a learner, folds of a data set, cases, ...), whose measured
    seconds per unit a benchmark stores: ``benchmarks/bench_estimates.py --fit
    RUN ... --write`` fits them to the chunk times of stored runs and writes them
    to ``timings.json`` under the study's name, where the built-in studies read
    them.

    Attributes
    ----------
    seconds_per_replication : float or callable(condition) -> float, optional
        Rough cost of one replication in seconds of one worker, as a run with 2
        workers on 2 cores pays it (a worker sharing the machine is slower than a
        process alone).  Default 1 s, unless ``work`` is given.
    work : callable(condition) -> dict of str to float, optional
        The units of work of one replication of a condition.  Its seconds are the
        units times ``seconds_per_unit``, summed.
    seconds_per_unit : dict of str to float, optional
        Worker seconds of one unit of ``work``.  Default: the values measured for
        the study's name in ``timings.json``, filled in when the study is
        declared.
    compile_seconds : float, optional
        Seconds the first run after installation spends compiling the study's
        kernels (numba caches them; later runs do not pay it).  Default: the
        value measured for the study's name in ``timings.json`` (0 for a study
        that compiles nothing), filled in when the study is declared.
    """

    seconds_per_replication: Any = None
    work: Callable | None = None
    seconds_per_unit: Any = None
    compile_seconds: float | None = None

    def __post_init__(self):
        if self.work is not None and self.seconds_per_replication is not None:
            raise InputError("Cost: give seconds_per_replication or work, not both")
        if self.work is not None and not callable(self.work):
            raise InputError(f"work: expected a function of the condition, got {type(self.work).__name__}")

    def seconds(self, condition) -> float:
        """Worker seconds of one replication of ``condition``.

        Parameters
        ----------
        condition : object
            One of the study's conditions.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            Naming a unit of ``work`` that has no measured seconds.
        """
        if self.work is None:
            per = 1.0 if self.seconds_per_replication is None else self.seconds_per_replication
            return float(per(condition) if callable(per) else per)
        rates, work = self.seconds_per_unit or {}, self.work(condition)
        missing = sorted(set(work) - set(rates))
        if missing:
            raise InputError(
                f"Cost: no seconds per unit measured for {', '.join(missing)} (condition {condition_key(condition)}); "
                "measure them with `benchmarks/bench_estimates.py --fit RUN ... --write`"
            )
        return float(sum(units * rates[unit] for unit, units in work.items()))

    @property
    def per_condition(self) -> bool:
        """Whether the cost of a replication depends on the condition (a function, or ``work``)."""
        return self.work is not None or callable(self.seconds_per_replication)


@dataclass(frozen=True)
class Publication:
    """What a study reproduces: the published numbers and figures, and what it does not reproduce.

    Attributes
    ----------
    values : tuple of simstudy.outputs.tables.Published
        The published numbers, each naming the summary table, column and row
        of its counterpart; ``simstudy compare`` and the report set them beside
        ours.
    figures : tuple of Figure
        The published figures the study reproduces, drawn from its summary tables.
    notes : str
        What is not reproduced, and why (shown beside the comparison in the report).
    interval_note : str, optional
        What our intervals are, when they are not the default binomial intervals
        of a rejection rate (said under the comparison).
    cross_study : tuple
        Rows of a table that gathers several studies (Berrar's Table 1), read by
        :func:`simstudy.outputs.published.cross_study_table`.
    page : callable(run, out, results) -> dict, optional
        A page of the study's own, written from its stored run into the folder
        ``out`` (``results`` is the root of the other stored studies it may
        read); returns the paths of its ``markdown`` and ``html`` files and a
        ``summary`` in Markdown.  The reproduction page shows the summary and
        links the page (the proving ground's report, say).
    page_folder : str
        The folder of that page beside the reproduction page (default: the
        study's name); the one place the page lives, which other files cite.
    alternative_to : str
        The study whose published values these are, compared here under
        another set-up (Table 1 on sources matched to the paper's power, say):
        shown, and never counted in the tally of distinct published values.
    page_tables : tuple of (str, str)
        Summary tables shown on the reproduction page under the comparison,
        each as ``(table name, heading)``: the paper's table in its own
        layout, the claims it carries, evidence for a miss.
    """

    values: tuple = ()
    figures: tuple = ()
    notes: str = ""
    interval_note: str | None = None
    cross_study: tuple = ()
    page: Callable | None = None
    page_folder: str = ""
    alternative_to: str = ""
    page_tables: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "values", tuple(self.values))
        object.__setattr__(self, "page_tables", tuple(self.page_tables))
        object.__setattr__(self, "figures", tuple(self.figures))
        object.__setattr__(self, "cross_study", tuple(self.cross_study))


@dataclass(frozen=True)
class Provides:
    """What applications may ask of a study's stored rows; a study that declares nothing here offers nothing.

    Attributes
    ----------
    paired_scores : simstudy.pipeline.scores.ScoreLayout, optional
        Where the study's ``scores`` table keeps its paired scores; with it,
        ``simstudy bench`` runs any test on the stored replications and
        :func:`simstudy.outputs.runs.paired_scores` reads them back.
    evidence : callable(RunData) -> simstudy.apps.evidence.Evidence, optional
        The null (and alternative) evidence the study's stored rows provide to
        applications such as ``simstudy assess``: its rows translated into
        designs, schemes and registered test names, with the truth of every
        condition and the null condition that calibrates each alternative (see
        :mod:`simstudy.apps.evidence`).  Applications never read a study's own
        labels: a study without it provides no evidence.
    forecasts : callable(RunData, str) -> (DataFrame, list of str), optional
        The replication probabilities the study's models forecast, per
        replication (columns ``study``, ``model``, ``group``, ``replication``,
        ``significant``, ``P``: NaN where not significant), and notes on what is
        missing; the proving ground's calibration of those models reads every
        study that declares them (Berrar's studies 1 to 3).  The second argument
        is the study's name, for the rows and notes.
    """

    paired_scores: Any = None
    evidence: Callable | None = None
    forecasts: Callable | None = None


_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def check_name(value, option: str, what: str) -> str:
    """``value`` if it can name a file or folder: letters, digits, ``_``, ``-`` and ``.`` (not first).

    No path separator, no ``..``, not empty: a name read from a study file or a
    received run never leads outside the folder it names a part of.  Otherwise
    ValueError on one line, starting with ``option``.
    """
    if not isinstance(value, str) or not value or value[0] == "." or not set(value) <= _NAME_CHARACTERS:
        raise InputError(
            f"{option}: {value!r} is not valid as {what}; use letters, digits, '_', '-' and '.' "
            "(not first), without path separators"
        )
    return value


def _default_summarize(run):
    from simstudy.statistics.intervals import rejection_summary

    out = {}
    if "outcomes" in run.tables():
        rows = run.table("outcomes")
        if "decision" not in rows:
            raise InputError(
                f"study {run.manifest.get('study')!r}: its outcome rows have no 'decision' column "
                "(+1 A better, -1 B better, 0 not significant), so the default summary cannot count "
                "rejections; give the study a summarize function or store decisions"
            )
        by = [c for c in ("condition", "scheme", "test") if c in rows]
        out["rejections"] = rejection_summary(rows, by=by)
    return out


@dataclass(frozen=True)
class Study:
    """A Monte Carlo study: a grid of conditions, each replicated independently.

    Attributes
    ----------
    name, title : str
    conditions : callable(Profile) -> list, or a list
        The conditions (groups) of the grid.  A condition is a frozen dataclass;
        its ``key`` attribute (if any) names it, else its field values do.  Its
        scalar fields are copied into every stored row.
    replicate : callable(condition, rng[, state]) -> dict[str, rows]
        One replication: draw data with ``rng`` (a ``numpy.random.Generator``
        seeded from the replication's identity), fit, score and test, and return
        named tables of rows (list of dicts or a DataFrame), e.g.
        ``{"scores": [...], "outcomes": [...]}``.
    summarize : callable(RunData) -> dict[str, DataFrame]
        Tables computed from the stored rows alone (no simulation).
    profiles : dict[str, Profile]
    setup : callable(condition, rng) -> state, optional
        Work shared by all replications of a condition (e.g. the initial
        experiment that a bootstrap resamples); its ``rng`` comes from the
        condition's own seed, so every chunk and worker rebuilds the same state.
    validate : callable(condition), optional
        Raises ValueError naming the problem; called on every condition before
        anything is written.
    chunk_size : int
        Replications per stored chunk (the unit of work, storage and resumption).
    settings : type, optional
        A frozen dataclass of the study's profile settings, every field with a
        default.  Each profile's ``settings`` dict is checked against it when
        the study is declared: an unknown or misspelt setting is an error naming
        it.  The study reads them with :func:`settings_of`.
    targets : callable(rows) -> DataFrame, optional
        The quantities an adaptive run (``--target-mcse``) makes precise, from
        the ``outcomes`` rows of one condition: columns ``quantity``,
        ``estimate`` and ``mcse``.  Default: the rejection rates (see
        :mod:`simstudy.engine.adaptive`).
    adaptive : callable(Profile) -> dict or None, optional
        The study's own adaptive rule at a profile: ``{"target_mcse": E,
        "max_replications": N}`` (the arguments of :func:`run_study`), or None
        for a fixed count.  ``simstudy run`` applies it when no
        ``--target-mcse`` is given, so the study is run the same way by every
        command, and the wall-time estimates give a range up to its cap.
    knobs : tuple of simstudy.engine.solve.Knob
        The numeric condition fields ``simstudy solve`` may set to meet a
        target (see :mod:`simstudy.engine.solve`).
    cost : Cost
        What a replication costs, for the wall-time estimates.
    publication : Publication
        For a reproduction: the published numbers and figures, and what is not
        reproduced.
    provides : Provides
        What applications may ask of the stored rows: the layout of the paired
        scores (``simstudy bench``) and the null evidence (``simstudy assess``).

    The fields above ``cost`` are what the engine needs to run the study and
    summarise its rows; the last three are what the estimates, the comparison
    with a paper and the applications read, each in a declaration of its own.
    """

    name: str
    title: str
    conditions: Any
    replicate: Callable
    summarize: Callable = _default_summarize
    profiles: dict = field(default_factory=dict)
    setup: Callable | None = None
    validate: Callable | None = None
    chunk_size: int = 10
    settings: Any = None
    targets: Callable | None = None
    adaptive: Callable | None = None
    knobs: tuple = ()
    cost: Cost = field(default_factory=Cost)
    publication: Publication = field(default_factory=Publication)
    provides: Provides = field(default_factory=Provides)

    def __post_init__(self):
        check_name(self.name, "name", "a study name, which names the folder results/NAME")
        for attr, cls in (("cost", Cost), ("publication", Publication), ("provides", Provides)):
            if not isinstance(getattr(self, attr), cls):
                raise InputError(
                    f"{attr}: expected a simstudy.engine.{cls.__name__}, got {type(getattr(self, attr)).__name__} "
                    f"(study {self.name!r})"
                )
        if self.cost.compile_seconds is None:
            measured = float(_TIMINGS["compile_seconds"].get(self.name, 0.0))
            object.__setattr__(self, "cost", dataclasses.replace(self.cost, compile_seconds=measured))
        if self.cost.work is not None and self.cost.seconds_per_unit is None:
            rates = dict(_TIMINGS["seconds_per_unit"].get(self.name, {}))
            if not rates:
                raise InputError(
                    f"cost: study {self.name!r} declares its work but no seconds_per_unit, and timings.json "
                    "measures none for it; give Cost(work=..., seconds_per_unit={unit: seconds, ...})"
                )
            object.__setattr__(self, "cost", dataclasses.replace(self.cost, seconds_per_unit=rates))
        for key in self.profiles:
            check_name(
                key,
                "profiles",
                f"a profile name of study {self.name!r}, which names the folder results/{self.name}/PROFILE",
            )
        for fig in self.publication.figures:
            check_name(
                getattr(fig, "name", None), "figures", f"a figure name of study {self.name!r}, which names its files"
            )
        if (
            isinstance(self.chunk_size, bool)
            or not isinstance(self.chunk_size, numbers.Integral)
            or self.chunk_size < 1
        ):
            raise InputError(f"chunk_size: must be a positive integer, got {self.chunk_size!r} (study {self.name!r})")
        if self.settings is not None:
            for prof in self.profiles.values():
                settings_of(prof, self.settings, study=self.name)

    def profile(self, name: str) -> Profile:
        """The profile called ``name``.

        Parameters
        ----------
        name : str
            ``smoke``, ``quick``, ``paper`` or another profile the study declares.

        Returns
        -------
        Profile

        Raises
        ------
        ValueError
            The study has no such profile (the message lists those it has).
        """
        try:
            return self.profiles[name]
        except KeyError:
            raise InputError(
                f"{option('profile')}: study {self.name!r} has no profile {name!r}; "
                f"choose one of {', '.join(self.profiles)}"
            ) from None

    def conditions_for(self, profile: Profile) -> list:
        """The conditions of the grid at ``profile``, validated.

        Parameters
        ----------
        profile : Profile
            The profile whose settings the study's ``conditions`` function reads.

        Returns
        -------
        list
            The conditions (frozen dataclasses), in declared order.

        Raises
        ------
        ValueError
            No conditions, duplicate condition keys, a condition the study's
            ``validate`` refuses, or a bad number of replications.
        """
        conds = self.conditions(profile) if callable(self.conditions) else self.conditions
        conds = list(conds)
        if not conds:
            raise InputError(f"study {self.name!r}, profile {profile.name!r}: no conditions")
        keys = [condition_key(c) for c in conds]
        dup = {k for k in keys if keys.count(k) > 1}
        if dup:
            raise InputError(f"study {self.name!r}: duplicate condition keys {sorted(dup)}")
        for c in conds:
            if self.validate is not None:
                self.validate(c)
            n = n_replications_of(c, profile)
            if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
                raise InputError(
                    f"n_replications: must be a positive integer, got {n!r} (condition {condition_key(c)})"
                )
        return conds

    def cost_seconds(self, profile: Profile) -> float:
        """Estimated worker seconds of the whole profile.

        Parameters
        ----------
        profile : Profile
            The profile to estimate.

        Returns
        -------
        float
            Replications times the declared seconds per replication, summed over
            the conditions.
        """
        return float(sum(self._chunk_costs(profile)))

    def _chunk_costs(self, profile: Profile, cap: int | None = None) -> list[float]:
        """Worker seconds of each chunk of the run's plan (the cost's seconds per replication times its size).

        ``cap``: every condition without a count of its own runs that many
        replications (an adaptive run grown to its cap).
        """
        costs = []
        for c in self.conditions_for(profile):
            n, s = n_replications_of(c, profile), self.cost.seconds(c)
            if cap is not None and getattr(c, "n_replications", None) is None:
                n = max(n, cap)
            full, rest = divmod(n, self.chunk_size)
            costs += [self.chunk_size * s] * full + ([rest * s] if rest else [])
        return costs

    def wall_seconds(self, profile: Profile, jobs: int = 1, *, first_run: bool = False) -> float:
        """Estimated wall time of ``simstudy run`` of a fresh profile with ``jobs`` workers, start-up included.

        Start-up (the process, its imports and, with ``jobs >= 2``, starting
        the workers: :data:`STARTUP_SECONDS`, and :data:`KERNEL_LOAD_SECONDS`
        for a study with compiled kernels) plus the chunks' cost spread over
        the workers (never less than the dearest chunk; no more workers than
        chunks), plus the cost's ``compile_seconds`` when ``first_run``.
        ``benchmarks/bench_estimates.py`` compares it with fresh runs.

        Parameters
        ----------
        profile : Profile
        jobs : int
            Workers (``--jobs``).
        first_run : bool
            Add the compilation a first run after installation pays.

        Returns
        -------
        float
            Seconds.
        """
        return self._wall(self._chunk_costs(profile), jobs, first_run)

    def wall_range(self, profile: Profile, jobs: int = 1, *, first_run: bool = False) -> tuple[float, float]:
        """The wall time of :meth:`wall_seconds`, and of the same run when its adaptive rule grows to its cap.

        For a study without an adaptive rule (:attr:`adaptive`) both are the
        same.  With one, the first is a run that stops at its first stage and the
        second one in which every condition without a count of its own grows to
        ``max_replications``: the true time lies between, as far as the cost
        model holds.
        """
        low = self.wall_seconds(profile, jobs, first_run=first_run)
        rule = self.adaptive(profile) if self.adaptive is not None else None
        if not rule:
            return low, low
        return low, max(low, self._wall(self._chunk_costs(profile, int(rule["max_replications"])), jobs, first_run))

    def _wall(self, costs: list[float], jobs: int, first_run: bool) -> float:
        workers = max(1, min(int(jobs), len(costs)))
        compute = max(sum(costs) / workers, max(costs, default=0.0))
        start = STARTUP_SECONDS["serial" if jobs <= 1 else "workers"]
        compile_seconds = float(self.cost.compile_seconds or 0.0)  # from timings.json when the study was declared
        if compile_seconds > 0:
            start += KERNEL_LOAD_SECONDS
        return float(start + compute + (compile_seconds if first_run else 0.0))


def settings_of(profile: Profile, cls, *, study: str = ""):
    """The profile's settings as an instance of the dataclass ``cls`` (defaults for what it omits).

    Raises ValueError naming an unknown setting (and the known ones) or a value
    the dataclass refuses.

    Parameters
    ----------
    profile : Profile
        The profile whose ``settings`` dict is read.
    cls : type
        A frozen dataclass with a default for every field.
    study : str
        The study's name, for messages.

    Returns
    -------
    object
        An instance of ``cls``.
    """
    known = {f.name for f in dataclasses.fields(cls)}
    where = f"study {study!r}, profile {profile.name!r}" if study else f"profile {profile.name!r}"
    unknown = sorted(set(profile.settings) - known)
    if unknown:
        raise InputError(
            f"settings: {where} has unknown setting(s) {', '.join(map(repr, unknown))}; "
            f"known settings: {', '.join(sorted(known))}"
        )
    try:
        return cls(**profile.settings)
    except (TypeError, ValueError) as exc:
        raise InputError(f"settings: {where}: {exc}") from None


def n_replications_of(condition, profile: Profile) -> int:
    own = getattr(condition, "n_replications", None)
    return profile.n_replications if own is None else own


def condition_fields(condition) -> dict:
    """The scalar fields of a condition, copied into every stored row.

    Parameters
    ----------
    condition : object
        A condition (frozen dataclass).

    Returns
    -------
    dict
        Field name to value, for fields holding a number, string or bool.
    """
    if dataclasses.is_dataclass(condition) and not isinstance(condition, type):
        items = dataclasses.asdict(condition).items()
    elif isinstance(condition, dict):
        items = condition.items()
    else:
        return {}
    return {
        k: v for k, v in items if isinstance(v, (str, bool, numbers.Integral, numbers.Real)) and k != "n_replications"
    }


def condition_key(condition) -> str:
    """A stable, file-name-safe name of a condition.

    Parameters
    ----------
    condition : object
        A condition (frozen dataclass); its ``key`` attribute if it has one.

    Returns
    -------
    str
        The key, or the condition's field values joined into a name.
    """
    key = getattr(condition, "key", None)
    if key is None:
        fields = condition_fields(condition) if not isinstance(condition, (str, int)) else {"c": condition}
        key = "-".join(f"{k}{v}" for k, v in fields.items()) or repr(condition)
    key = str(key)
    bad = set(key) - set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.=+")
    if bad:
        raise InputError(f"condition key {key!r}: contains characters not allowed in file names {sorted(bad)}")
    if not key or key[0] == ".":  # "", "." and ".." would name no folder of its own
        raise InputError(f"condition key {key!r}: must not be empty or start with '.' (it names a folder of the run)")
    return key


BUILTIN_PACKAGE = "simstudy.studies"
ENTRY_POINT_GROUP = "simstudy.studies"
_FILE_MODULE_PREFIX = "_simstudy_study_file_"
_FILE_STUDIES: dict = {}  # resolved path -> (file status, Study)


def builtin_modules() -> dict[str, str]:
    """The built-in studies: name to module, for the modules of :mod:`simstudy.studies` and of its folders.

    A folder holds the studies of one paper (``simstudy.studies.berrar.berrar1``); a
    study is named by its module's name alone.  Helpers (named ``_...``) are left
    out and no study module is imported.  Two modules of one name are refused, as
    the name could not say which one is meant.
    """
    package = importlib.import_module(BUILTIN_PACKAGE)
    found: dict[str, list[str]] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        if not info.ispkg:
            found.setdefault(info.name, []).append(f"{BUILTIN_PACKAGE}.{info.name}")
            continue
        folder = [os.path.join(p, info.name) for p in package.__path__]
        for inner in pkgutil.iter_modules(folder):
            if not inner.name.startswith("_") and not inner.ispkg:
                found.setdefault(inner.name, []).append(f"{BUILTIN_PACKAGE}.{info.name}.{inner.name}")
    clash = {name: mods for name, mods in found.items() if len(mods) > 1}
    if clash:
        name, mods = sorted(clash.items())[0]
        raise InputError(f"study {name!r}: several built-in modules carry that name: {', '.join(mods)}")
    return {name: mods[0] for name, mods in sorted(found.items())}


def _builtin_names() -> list[str]:
    """Names of the built-in studies (see :func:`builtin_modules`)."""
    return list(builtin_modules())


def _entry_points() -> dict:
    """The ``simstudy.studies`` entry points by name (a list per name); nothing is imported."""
    from importlib import metadata

    found: dict = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        same = [e for e in found.get(ep.name, []) if e.value == ep.value]
        if not same:  # one distribution seen twice on sys.path is not a clash
            found.setdefault(ep.name, []).append(ep)
    return found


def _describe(ep) -> str:
    dist = getattr(ep, "dist", None)
    where = f" of {dist.name}" if dist is not None and getattr(dist, "name", None) else ""
    return f"entry point {ep.name} = {ep.value}{where}"


def list_studies() -> list[str]:
    """Names of the registered studies, sorted.

    The built-in studies are the modules of :mod:`simstudy.studies` (each
    defines ``STUDY``); other packages register theirs through the entry-point
    group ``simstudy.studies``, whose values are ``package.module:STUDY`` or
    ``package.module`` (a module with a ``STUDY`` attribute).  Nothing is
    imported here: a study is loaded when :func:`get_study` asks for it.
    A study in a ``.py`` file needs no registration (see :func:`get_study`).

    Returns
    -------
    list of str
    """
    return sorted(set(_builtin_names()) | set(_entry_points()))


def study_origins() -> dict[str, str]:
    """Where each registered study comes from, by name.

    Returns
    -------
    dict of str to str
        ``"built-in"`` for a module of :mod:`simstudy.studies`, ``"entry point
        NAME = VALUE of DISTRIBUTION"`` for a study of another package, and a
        sentence naming both when an entry point clashes with a built-in study
        (:func:`get_study` refuses such a name).
    """
    builtin = set(_builtin_names())
    eps = _entry_points()
    out = {}
    for name in sorted(builtin | set(eps)):
        parts = (["built-in"] if name in builtin else []) + [_describe(ep) for ep in eps.get(name, [])]
        out[name] = parts[0] if len(parts) == 1 else "clash: " + "; ".join(parts)
    return out


def _check_study(obj, where: str) -> Study:
    if not isinstance(obj, Study):
        raise InputError(f"study: STUDY in {where} is a {type(obj).__name__}, not a simstudy.engine.Study")
    return obj


def _load_entry_point(name: str, ep) -> Study:
    try:
        obj = ep.load()
    except Exception as exc:  # whatever the package's import raises, on one line
        raise InputError(
            f"study {name!r}: cannot load the {_describe(ep)}: {type(exc).__name__}: {_one_line(exc)}"
        ) from None
    if inspect.ismodule(obj):
        if not hasattr(obj, "STUDY"):
            raise InputError(f"study {name!r}: module {obj.__name__} ({_describe(ep)}) defines no STUDY")
        obj = obj.STUDY
    study = _check_study(obj, _describe(ep))
    if study.name != name:
        raise InputError(
            f"study {name!r}: the {_describe(ep)} loads a study named {study.name!r}; "
            "the entry point must carry the study's name"
        )
    return study


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


def _is_path(x) -> bool:
    if isinstance(x, os.PathLike):
        return True
    return isinstance(x, str) and (x.endswith(".py") or "/" in x or os.sep in x)


def _register_by_value(module) -> None:
    """Have the pickles of loky and dask carry the module's functions and classes, not its name.

    Workers cannot import a study file by its private module name, so its
    replicate function and condition classes travel by value.  joblib before
    1.5 pickles with its own copy of cloudpickle, which keeps its own register.
    """
    import cloudpickle

    copies = [cloudpickle]
    try:
        from joblib.externals import cloudpickle as vendored
    except ImportError:
        vendored = None
    if vendored is not None and vendored is not cloudpickle:
        copies.append(vendored)
    for cp in copies:
        register = getattr(cp, "register_pickle_by_value", None)
        if register is not None:
            register(module)


def load_study_file(path) -> Study:
    """The ``STUDY`` of a Python file, imported under a private module name.

    The file is run as a module named after a hash of its resolved path (so
    two files of the same name do not collide and no importable name is
    shadowed), registered in ``sys.modules`` while it runs (dataclasses need
    it) and marked for pickling by value with cloudpickle.  Loky and dask
    workers cannot import it by that name, so it leaves ``sys.modules``
    afterwards: every pickler then sends its functions and condition classes
    by value (plain :mod:`pickle` refuses them, and dask falls back to
    cloudpickle).  The file is read again only when it changed.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.py`` file defining ``STUDY = Study(...)``; it may import
        :mod:`simstudy` and installed packages, not modules beside it.

    Returns
    -------
    Study

    Raises
    ------
    ValueError
        On one line: no such file, not a ``.py`` file, the import failed
        (with the exception), no ``STUDY``, or ``STUDY`` is not a Study.
    """
    import hashlib
    import importlib.util

    given = os.fspath(path)
    p = Path(given).expanduser()
    if not p.exists():
        raise InputError(f"study: no such file {given!r}")
    if not p.is_file() or p.suffix != ".py":
        raise InputError(f"study: {given!r} is not a Python file (.py)")
    resolved = p.resolve()
    try:
        st = resolved.stat()
    except OSError as exc:
        raise InputError(f"study: cannot read {given!r}: {exc.strerror or exc}") from None
    stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)  # no copy keeps the change time
    cached = _FILE_STUDIES.get(resolved)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    name = _FILE_MODULE_PREFIX + hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
    # compiled from the bytes its fingerprint hashes, never from a stale .pyc beside it
    spec = importlib.util.spec_from_file_location(name, resolved, loader=HashedSourceLoader(name, str(resolved)))
    if spec is None or spec.loader is None:
        raise InputError(f"study: cannot import {given}: not a Python source file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        try:
            with _exit_refused():
                spec.loader.exec_module(module)
        except _ExitCalled as exc:
            raise InputError(
                f"study: cannot import {given}: it called os._exit({exc.code}) while loading (a study file must "
                "only define STUDY)"
            ) from None
        except (Exception, SystemExit) as exc:  # the file's own error, on one line
            raise InputError(f"study: cannot import {given}: {type(exc).__name__}: {_one_line(exc)}") from None
        if not hasattr(module, "STUDY"):
            raise InputError(f"study: {given} defines no STUDY (a simstudy.engine.Study)")
        study = _check_study(module.STUDY, given)
        _register_by_value(module)
    finally:
        # In sys.modules only while it runs: plain pickle (which dask tries first) would then send
        # its functions by reference, to workers that cannot import that name.  Out of it, every
        # pickler has to send them by value.
        sys.modules.pop(name, None)
    _FILE_STUDIES[resolved] = (stamp, study)
    return study


def forget_study_files() -> None:
    """Have :func:`load_study_file` read every study file again (its modules' imports were forgotten)."""
    _FILE_STUDIES.clear()


def get_study(study) -> Study:
    """The study named, or defined in the file given, by ``study``.

    Parameters
    ----------
    study : Study, str or os.PathLike
        A :class:`Study` (returned unchanged); a path to a ``.py`` file
        defining ``STUDY`` (anything ending in ``.py`` or containing a path
        separator; see :func:`load_study_file`); or the name of a registered
        study (see :func:`list_studies`).

    Returns
    -------
    Study

    Raises
    ------
    ValueError
        On one line: an unknown name (listing the known ones), a name that
        both a built-in study and an entry point claim, an entry point or
        file that cannot be loaded, or one whose ``STUDY`` is not a Study.
    """
    if isinstance(study, Study):
        return study
    if _is_path(study):
        return load_study_file(study)
    if not isinstance(study, str):
        raise InputError(f"study: expected a study name, a .py file or a Study, got {type(study).__name__}")
    builtin = builtin_modules()
    eps = _entry_points().get(study, [])
    if study in builtin and eps:
        raise InputError(
            f"study {study!r}: the {_describe(eps[0])} clashes with the built-in study of that "
            "name; that package must register its study under another name"
        )
    if len(eps) > 1:
        raise InputError(
            f"study {study!r}: registered by several entry points: {'; '.join(_describe(ep) for ep in eps)}"
        )
    if eps:
        return _load_entry_point(study, eps[0])
    if study not in builtin:
        known = list_studies()
        raise InputError(
            f"study: unknown study {study!r}; known studies: {', '.join(known)} "
            "(or give the path of a .py file defining STUDY)"
        )
    where = builtin[study]
    module = importlib.import_module(where)
    if not hasattr(module, "STUDY"):
        raise InputError(f"study: module {where} defines no STUDY")
    return _check_study(module.STUDY, where)
