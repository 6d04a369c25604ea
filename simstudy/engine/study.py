"""Study declarations and the registry of studies in the top-level ``studies`` package.

A study declares *what* is simulated; :mod:`simstudy.engine.runner` decides *how*
(chunks, workers, storage).  The same declaration runs at every profile: a
profile changes counts and the grid, never the code path.
"""

from __future__ import annotations

import dataclasses
import importlib
import numbers
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["Profile", "Study", "Figure", "settings_of", "get_study", "list_studies", "condition_key", "condition_fields"]

PROFILE_NAMES = ("smoke", "quick", "paper")


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
            raise ValueError(f"profile name: must be a non-empty string, got {self.name!r}")
        if isinstance(self.n_replications, bool) or not isinstance(self.n_replications, numbers.Integral) \
                or self.n_replications < 1:
            raise ValueError(f"n_replications: must be a positive integer, got {self.n_replications!r} "
                             f"(profile {self.name!r})")


@dataclass(frozen=True)
class Figure:
    """A figure drawn from a study's summary tables (never from a new simulation).

    Attributes
    ----------
    name : str
        File stem of the figure (``figure9`` gives ``figure9.png`` and ``.pdf``).
    draw : callable(tables, ax, *, profile) -> None
        Draws on the Matplotlib Axes ``ax`` from the study's summary tables
        (the dict its ``summarize`` returns); ``profile`` names the stored profile.
    title : str
        What the figure shows, for listings and the report.
    """

    name: str
    draw: Callable
    title: str = ""


def _default_summarize(run):
    from .summary import rejection_summary

    out = {}
    if "outcomes" in run.tables():
        rows = run.table("outcomes")
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
    reference : dict
        Published values (``{"published": [simstudy.compare.Published, ...]}``).
    setup : callable(condition, rng) -> state, optional
        Work shared by all replications of a condition (e.g. the initial
        experiment that a bootstrap resamples); its ``rng`` comes from the
        condition's own seed, so every chunk and worker rebuilds the same state.
    validate : callable(condition), optional
        Raises ValueError naming the problem; called on every condition before
        anything is written.
    seconds_per_replication : float or callable(condition) -> float
        Rough single-core cost of one replication, for ``simstudy list``.
    chunk_size : int
        Replications per stored chunk (the unit of work, storage and resumption).
    settings : type, optional
        A frozen dataclass of the study's profile settings, every field with a
        default.  Each profile's ``settings`` dict is checked against it when
        the study is declared: an unknown or misspelt setting is an error naming
        it.  The study reads them with :func:`settings_of`.
    paired_scores : simstudy.scores.ScoreLayout, optional
        Where the study's ``scores`` table keeps its paired scores; with it,
        ``simstudy bench`` runs any test on the stored replications.
    figures : tuple of Figure
        The published figures this study reproduces, drawn from its summary tables.
    notes : str
        What is not reproduced, and why (shown beside the comparison in the report).
    """

    name: str
    title: str
    conditions: Any
    replicate: Callable
    summarize: Callable = _default_summarize
    profiles: dict = field(default_factory=dict)
    reference: dict = field(default_factory=dict)
    setup: Callable | None = None
    validate: Callable | None = None
    seconds_per_replication: Any = 1.0
    chunk_size: int = 10
    settings: Any = None
    paired_scores: Any = None
    figures: tuple = ()
    notes: str = ""

    def __post_init__(self):
        if isinstance(self.chunk_size, bool) or not isinstance(self.chunk_size, numbers.Integral) or self.chunk_size < 1:
            raise ValueError(f"chunk_size: must be a positive integer, got {self.chunk_size!r} (study {self.name!r})")
        if self.settings is not None:
            for prof in self.profiles.values():
                settings_of(prof, self.settings, study=self.name)

    def profile(self, name: str) -> Profile:
        try:
            return self.profiles[name]
        except KeyError:
            raise ValueError(f"--profile: study {self.name!r} has no profile {name!r}; "
                             f"choose one of {', '.join(self.profiles)}") from None

    def conditions_for(self, profile: Profile) -> list:
        conds = self.conditions(profile) if callable(self.conditions) else self.conditions
        conds = list(conds)
        if not conds:
            raise ValueError(f"study {self.name!r}, profile {profile.name!r}: no conditions")
        keys = [condition_key(c) for c in conds]
        dup = {k for k in keys if keys.count(k) > 1}
        if dup:
            raise ValueError(f"study {self.name!r}: duplicate condition keys {sorted(dup)}")
        for c in conds:
            if self.validate is not None:
                self.validate(c)
            n = n_replications_of(c, profile)
            if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
                raise ValueError(f"n_replications: must be a positive integer, got {n!r} "
                                 f"(condition {condition_key(c)})")
        return conds

    def cost_seconds(self, profile: Profile) -> float:
        """Estimated single-core seconds of the whole profile."""
        conds = self.conditions_for(profile)
        per = self.seconds_per_replication
        return float(sum(n_replications_of(c, profile) * (per(c) if callable(per) else per) for c in conds))


def settings_of(profile: Profile, cls, *, study: str = ""):
    """The profile's settings as an instance of the dataclass ``cls`` (defaults for what it omits).

    Raises ValueError naming an unknown setting (and the known ones) or a value
    the dataclass refuses.
    """
    known = {f.name for f in dataclasses.fields(cls)}
    where = f"study {study!r}, profile {profile.name!r}" if study else f"profile {profile.name!r}"
    unknown = sorted(set(profile.settings) - known)
    if unknown:
        raise ValueError(f"settings: {where} has unknown setting(s) {', '.join(map(repr, unknown))}; "
                         f"known settings: {', '.join(sorted(known))}")
    try:
        return cls(**profile.settings)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"settings: {where}: {exc}") from None


def n_replications_of(condition, profile: Profile) -> int:
    own = getattr(condition, "n_replications", None)
    return profile.n_replications if own is None else own


def condition_fields(condition) -> dict:
    """The scalar fields of a condition, copied into every stored row."""
    if dataclasses.is_dataclass(condition):
        items = dataclasses.asdict(condition).items()
    elif isinstance(condition, dict):
        items = condition.items()
    else:
        return {}
    return {k: v for k, v in items
            if isinstance(v, (str, bool, numbers.Integral, numbers.Real)) and k != "n_replications"}


def condition_key(condition) -> str:
    """A stable, file-name-safe name of a condition."""
    key = getattr(condition, "key", None)
    if key is None:
        fields = condition_fields(condition) if not isinstance(condition, (str, int)) else {"c": condition}
        key = "-".join(f"{k}{v}" for k, v in fields.items()) or repr(condition)
    key = str(key)
    bad = set(key) - set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.=+")
    if bad:
        raise ValueError(f"condition key {key!r}: contains characters not allowed in file names {sorted(bad)}")
    return key


def list_studies() -> list[str]:
    """Names of the studies in the ``studies`` package (modules defining ``STUDY``)."""
    import studies

    names = []
    for info in pkgutil.iter_modules(studies.__path__):
        if not info.name.startswith("_"):
            names.append(info.name)
    return sorted(names)


def get_study(name) -> Study:
    """The study called ``name`` (a :class:`Study` is returned unchanged)."""
    if isinstance(name, Study):
        return name
    known = list_studies()
    if name not in known:
        raise ValueError(f"study: unknown study {name!r}; known studies: {', '.join(known)}")
    module = importlib.import_module(f"studies.{name}")
    study = getattr(module, "STUDY", None)
    if not isinstance(study, Study):
        raise ValueError(f"study: module studies.{name} defines no STUDY")
    return study
