"""Learners by name: the built-in ones, those of installed packages, and any registered later.

Every learner has a stable name under which studies, configuration files and the
command line refer to it:

======================  ==========  ==================================================
name                    aliases     learner
======================  ==========  ==================================================
``weka.NaiveBayes``     ``NB``      :class:`~simstudy.pipeline.learners.weka.WekaNaiveBayes`
``weka.J48``            ``C4.5``    :class:`~simstudy.pipeline.learners.j48.J48`
``weka.IB1``            ``NN``      :class:`~simstudy.pipeline.learners.weka.IB1`
``weka.DecisionStump``  ``stump``   :class:`~simstudy.pipeline.learners.weka.DecisionStump`
``weka.TAN``            ``TAN``     :class:`~simstudy.pipeline.learners.tan.TAN`
``weka.SMO``                        :class:`~simstudy.pipeline.learners.smo.SMO`
``e1071.naiveBayes``                :class:`~simstudy.pipeline.learners.rdefaults.E1071NaiveBayes`
``e1071.svm``                       :class:`~simstudy.pipeline.learners.rdefaults.E1071SVC`
``randomForest``                    :class:`~simstudy.pipeline.learners.rdefaults.RandomForestR`
======================  ==========  ==================================================

The aliases are the labels of Bouckaert's papers.  Names are case-sensitive.

Other packages add learners through the entry-point group ``simstudy.pipeline.learners``;
in their ``pyproject.toml``::

    [project.entry-points."simstudy.pipeline.learners"]
    "mylab.Ripper" = "mylab.learners:Ripper"

The entry points are read the first time a name is looked up that is not
registered, and an entry point is imported only when its name is asked for.  A
built-in or registered name always wins over an entry point of the same name.

:func:`as_learner_factory` turns a scikit-learn estimator (class or instance), a
registered name or a factory into the zero-argument factory that
:mod:`simstudy.pipeline.scores` expects.
"""

from __future__ import annotations

import inspect
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from simstudy.errors import InputError

__all__ = [
    "ENTRY_POINT_GROUP",
    "LearnerSpec",
    "register_learner",
    "make_learner",
    "learner_names",
    "learner_spec",
    "learner_class",
    "as_learner_factory",
]

ENTRY_POINT_GROUP = "simstudy.pipeline.learners"


@dataclass(frozen=True)
class LearnerSpec:
    """A registered learner.

    Attributes
    ----------
    name : str
        The stable name.
    factory : callable
        The learner class, or a callable taking the learner's parameters as keyword
        arguments and returning an unfitted learner.
    description : str
        One line saying what the learner is.
    aliases : tuple of str
        Other names that resolve to this one.
    """

    name: str
    factory: Callable[..., Any]
    description: str = ""
    aliases: tuple[str, ...] = field(default=())

    @property
    def cls(self) -> type | None:
        """The learner class when ``factory`` is a class, else None."""
        return self.factory if inspect.isclass(self.factory) else None

    def make(self, **params):
        """An unfitted learner with ``params`` (see :func:`make_learner`)."""
        return _call_factory(self, params)


_lock = threading.RLock()
_specs: dict[str, LearnerSpec] = {}
_aliases: dict[str, str] = {}
_entry_points: dict[str, Any] | None = None  # name -> not yet loaded entry point; None: not read yet


def _check_name(value, argument):
    if not isinstance(value, str) or not value.strip() or value != value.strip():
        raise InputError(f"{argument}: expected a non-empty name without surrounding spaces, got {value!r}")
    return value


def register_learner(name, cls_or_factory, *, description="", aliases=(), replace=False):
    """Register a learner under a stable name.

    Parameters
    ----------
    name : str
        The name, e.g. ``"mylab.Ripper"``.  Registering the same object again under
        the same name (with the same aliases) is allowed and changes nothing.
    cls_or_factory : class or callable
        A learner class (a scikit-learn classifier: ``fit``, ``predict``,
        ``get_params``), or a callable that takes keyword parameters and returns an
        unfitted learner.
    description : str, optional
        One line saying what the learner is (default: the first line of the
        docstring of ``cls_or_factory``).
    aliases : iterable of str, optional
        Other names for it.
    replace : bool, default False
        Allow ``name`` and ``aliases`` to take over names already in use.

    Returns
    -------
    LearnerSpec

    Raises
    ------
    ValueError
        If the name or an alias is empty or already taken by another learner (and
        ``replace`` is False), or ``cls_or_factory`` is not callable.
    """
    _check_name(name, "name")
    if isinstance(aliases, str):
        aliases = (aliases,)
    aliases = tuple(_check_name(a, "aliases") for a in aliases)
    if name in aliases:
        raise InputError(f"aliases: {name!r} is the learner's own name")
    if not callable(cls_or_factory):
        raise InputError(
            f"cls_or_factory: expected a learner class or a factory for {name!r}, got {type(cls_or_factory).__name__}"
        )
    if inspect.isclass(cls_or_factory):
        _check_estimator_class(cls_or_factory, "cls_or_factory")
    if not isinstance(description, str):
        raise InputError(f"description: expected a string, got {type(description).__name__}")
    if not description:
        description = _first_line(cls_or_factory)
    spec = LearnerSpec(name, cls_or_factory, description, aliases)
    with _lock:
        old = _specs.get(name)
        if old is not None and old.factory is cls_or_factory and old.aliases == aliases and not replace:
            return old
        if not replace:
            for n in (name, *aliases):
                owner = _aliases.get(n, n if n in _specs else None)
                if owner is not None:
                    raise InputError(
                        f"name: {n!r} is already registered (for {owner!r}); pass replace=True to take it over"
                    )
        for n in (name, *aliases):
            _forget(n)
        _specs[name] = spec
        for a in aliases:
            _aliases[a] = name
    return spec


def _forget(n):
    """Free the name ``n``: drop the learner or alias it denotes (caller holds the lock)."""
    if n in _aliases:
        owner = _specs[_aliases.pop(n)]
        _specs[owner.name] = LearnerSpec(
            owner.name, owner.factory, owner.description, tuple(a for a in owner.aliases if a != n)
        )
    elif n in _specs:
        for a in _specs.pop(n).aliases:
            _aliases.pop(a, None)


def _first_line(obj):
    doc = inspect.getdoc(obj) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def _check_estimator_class(cls, argument):
    missing = [m for m in ("fit", "predict", "get_params") if not callable(getattr(cls, m, None))]
    if missing:
        raise InputError(
            f"{argument}: {cls.__module__}.{cls.__qualname__} is not a scikit-learn classifier "
            f"(no {', '.join(missing)})"
        )


def _discover():
    """Read the entry points of ``simstudy.pipeline.learners`` once (not importing them)."""
    global _entry_points
    if _entry_points is not None:
        return _entry_points
    from importlib.metadata import entry_points

    found = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep)  # the first installed distribution wins a duplicate name
    with _lock:
        if _entry_points is None:
            _entry_points = found
    return _entry_points


def _load_entry_point(name, ep):
    """Import entry point ``ep`` and register what it names under ``name``."""
    try:
        obj = ep.load()
    except Exception as err:  # an installed package that fails to import: say which, in one line
        msg = str(err).strip().splitlines()[0] if str(err).strip() else ""
        raise InputError(
            f"name: entry point {name!r} = {ep.value!r} (group {ENTRY_POINT_GROUP!r}) cannot be "
            f"loaded: {type(err).__name__}: {msg}"
        ) from err
    if not inspect.isclass(obj) and hasattr(obj, "get_params") and hasattr(obj, "fit"):
        obj = as_learner_factory(obj)  # an estimator instance: fresh clones of it
    try:
        return register_learner(name, obj)
    except ValueError as err:
        raise InputError(
            f"name: entry point {name!r} = {ep.value!r} (group {ENTRY_POINT_GROUP!r}) does not name a learner: {err}"
        ) from err


def learner_spec(name) -> LearnerSpec:
    """The registered learner called ``name`` (or one of its aliases).

    Parameters
    ----------
    name : str

    Returns
    -------
    LearnerSpec

    Raises
    ------
    ValueError
        If no learner has that name (the message lists the known names), or its
        entry point cannot be loaded.
    """
    if not isinstance(name, str):
        raise InputError(f"name: expected a learner name (str), got {type(name).__name__}")
    with _lock:
        spec = _specs.get(_aliases.get(name, name))
    if spec is not None:
        return spec
    ep = _discover().get(name)
    if ep is not None:
        with _lock:
            spec = _specs.get(_aliases.get(name, name))
            if spec is None:
                spec = _load_entry_point(name, ep)
        return spec
    known = ", ".join(learner_names(aliases=True))
    raise InputError(f"name: unknown learner {name!r}; known learners: {known}")


def learner_class(name) -> type:
    """The class of the learner called ``name``.

    Parameters
    ----------
    name : str
        A registered name or alias.

    Returns
    -------
    type
        The registered class; for a learner registered through a factory, the class
        of the learner the factory makes with its defaults.
    """
    spec = learner_spec(name)
    return spec.cls if spec.cls is not None else type(spec.make())


def make_learner(name, **params):
    """An unfitted learner by name.

    Parameters
    ----------
    name : str
        A registered name or alias (``"weka.J48"``, ``"C4.5"``, ...).
    **params
        Constructor parameters, e.g. ``nominal=mask`` or ``confidence=0.1``.

    Returns
    -------
    object
        A new, unfitted learner.

    Raises
    ------
    ValueError
        If the name is unknown (the message lists the known names) or the learner
        does not take the given parameters (the message names the learner).

    Examples
    --------
    >>> make_learner("C4.5", confidence=0.1)
    J48(confidence=0.1)
    """
    return _call_factory(learner_spec(name), params)


def _refuse_unknown(cls, params, name: str) -> None:
    """One line naming the parameters a scikit-learn estimator class does not have, and those it has."""
    if not hasattr(cls, "_get_param_names"):
        return
    known = cls._get_param_names()
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise InputError(
            f"params: {name} has no parameter {', '.join(map(repr, unknown))}; "
            f"its parameters are: {', '.join(known) or '(none)'}"
        )


def _call_factory(spec, params):
    if spec.cls is not None:
        _refuse_unknown(spec.cls, params, f"learner {spec.name!r}")
    try:
        return spec.factory(**params)
    except (TypeError, ValueError) as err:
        msg = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InputError(f"params: learner {spec.name!r} refused {sorted(params)}: {msg}") from err


def learner_names(*, aliases=False) -> list[str]:
    """Names of the learners: built-in, registered, and offered by installed packages.

    Parameters
    ----------
    aliases : bool, default False
        Also list the aliases.

    Returns
    -------
    list of str
        Sorted (case-insensitively).  Entry points are listed by name without being
        imported.
    """
    with _lock:
        names = set(_specs)
        if aliases:
            names |= set(_aliases)
    names |= set(_discover())
    return sorted(names, key=lambda n: (n.lower(), n))


class _CloneFactory:
    """Zero-argument factory returning fresh clones of an estimator (picklable if the estimator is)."""

    __slots__ = ("template",)

    def __init__(self, template):
        self.template = template

    def __call__(self):
        from sklearn.base import clone

        return clone(self.template)

    def __repr__(self):
        return f"as_learner_factory({self.template!r})"

    def __getstate__(self):
        return self.template

    def __setstate__(self, template):
        self.template = template


class _NamedFactory:
    """Zero-argument factory making a registered learner with fixed parameters (picklable)."""

    __slots__ = ("name", "params")

    def __init__(self, name, params):
        self.name = name
        self.params = params

    def __call__(self):
        return make_learner(self.name, **self.params)

    def __repr__(self):
        args = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"as_learner_factory({self.name!r}{args})"

    def __getstate__(self):
        return self.name, self.params

    def __setstate__(self, state):
        self.name, self.params = state


def as_learner_factory(obj, **params):
    """A zero-argument callable that returns a new, unfitted learner at every call.

    Parameters
    ----------
    obj : str, estimator class, estimator instance or callable
        * a registered name or alias: ``make_learner(obj, **params)`` at every call
          (checked now);
        * a scikit-learn estimator class: ``obj(**params)`` at every call, via clone;
        * a scikit-learn estimator instance (anything with ``fit``, ``predict`` and
          ``get_params``): a clone of it at every call, taken from a clone made now,
          so later changes to ``obj`` do not leak in;
        * any other callable: taken to be a zero-argument factory already and
          returned as it is.
    **params
        Parameters for a name or a class; not allowed with an instance or a factory.

    Returns
    -------
    callable
        ``factory()`` gives a fresh learner, as :mod:`simstudy.pipeline.scores` expects.

    Raises
    ------
    ValueError
        If ``obj`` is none of the above, cannot be cloned, or ``params`` do not fit it.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> make = as_learner_factory(DecisionTreeClassifier(max_depth=3))
    >>> make() is make()
    False
    """
    from sklearn.base import clone

    if isinstance(obj, str):
        learner_spec(obj).make(**params)  # unknown name or bad parameters: refuse now, not in a worker
        return _NamedFactory(obj, dict(params))
    if inspect.isclass(obj):
        _check_estimator_class(obj, "obj")
        _refuse_unknown(obj, params, obj.__qualname__)
        try:
            template = obj(**params)
        except TypeError as err:
            raise InputError(f"params: {obj.__qualname__} refused {sorted(params)}: {err}") from err
    elif all(callable(getattr(obj, m, None)) for m in ("fit", "predict", "get_params")):
        if params:
            raise InputError(f"params: not allowed with an estimator instance, got {sorted(params)}")
        template = obj
    elif callable(obj):
        if params:
            raise InputError(f"params: not allowed with a factory, got {sorted(params)}")
        return obj
    else:
        raise InputError(
            f"obj: expected a learner name, a scikit-learn estimator (class or instance) or a "
            f"factory, got {type(obj).__name__}"
        )
    try:
        template = clone(template)
    except Exception as err:
        raise InputError(f"obj: {type(template).__qualname__} cannot be cloned: {err}") from err
    return _CloneFactory(template)


def _register_builtins():
    from simstudy.pipeline.learners.j48 import J48
    from simstudy.pipeline.learners.rdefaults import E1071SVC, E1071NaiveBayes, RandomForestR
    from simstudy.pipeline.learners.smo import SMO
    from simstudy.pipeline.learners.tan import TAN
    from simstudy.pipeline.learners.weka import IB1, DecisionStump, WekaNaiveBayes

    for name, cls, aliases, description in (
        ("weka.NaiveBayes", WekaNaiveBayes, ("NB",), "Weka 3.6 NaiveBayes (Laplace counts, normal estimators)"),
        ("weka.J48", J48, ("C4.5",), "Weka 3.6 J48: C4.5 release 8 decision tree"),
        (
            "weka.IB1",
            IB1,
            ("NN",),
            "Weka 3.6 IB1: one nearest neighbour, widening its ranges with each instance classified",
        ),
        ("weka.DecisionStump", DecisionStump, ("stump",), "Weka 3.6 DecisionStump: one binary test"),
        ("weka.TAN", TAN, ("TAN",), "Weka 3.6 BayesNet with the TAN search: tree-augmented naive Bayes"),
        ("weka.SMO", SMO, (), "Weka 3.6 SMO: linear support vector machine, pairwise"),
        ("e1071.naiveBayes", E1071NaiveBayes, (), "R e1071 naiveBayes: Gaussian naive Bayes, R defaults"),
        ("e1071.svm", E1071SVC, (), "R e1071 svm: C-classification, radial kernel, R defaults"),
        ("randomForest", RandomForestR, (), "R randomForest: 500 trees, mtry = floor(sqrt(p)), R defaults"),
    ):
        register_learner(name, cls, description=description, aliases=aliases)


_register_builtins()
