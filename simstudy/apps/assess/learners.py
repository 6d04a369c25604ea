"""The learners of a comparison: a registered name, a reference, a class or an estimator parsed into a
:class:`LearnerChoice` (its parameters checked, one line naming the option when refused), named for the
tables and figures (``NAME=LEARNER``, ``(name, learner)``, a mapping), and whether it is loaded and fitted in
a worker process of its own (:func:`wants_worker`).
"""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import dataclass, field

import numpy as np

from simstudy.apps.assess.data import Dataset
from simstudy.apps.assess.references import _check_reference, _load_learner
from simstudy.apps.assess.worker import _RefFactory
from simstudy.errors import InputError
from simstudy.errors import option as _option


@dataclass(frozen=True)
class LearnerChoice:
    """A learner of the comparison: a registered name or a scikit-learn estimator.

    Attributes
    ----------
    spec : str
        A registered learner name (``NB``, ``C4.5``, ``e1071.svm``, ...), a
        ``module:Class`` path to an estimator class, or the ``repr`` of an
        estimator instance given in Python.
    params : str
        The estimator's parameters as canonical JSON (``"{}"`` for none).
    name : str
        The name the user gave it (``{"logreg": ...}``, ``("logreg", ...)`` or
        ``logreg=SPEC``), used in the tables and figures; ``""`` when none was
        given.  It does not identify the stored run: renaming refits nothing.
    contained : bool
        Whether the learner is loaded and fitted in a worker process of its
        own, under a time limit (see :func:`assess`); this process then never
        imports a ``module:NAME`` or ``file.py:NAME`` learner.
    """

    spec: str
    params: str = "{}"
    template: object = field(default=None, repr=False, compare=False)
    name: str = field(default="", compare=False)
    contained: bool = field(default=False, compare=False)

    @property
    def shown(self) -> str:
        """What the tables and figures call it: its name, else its :attr:`label`."""
        return self.name or self.label

    @property
    def label(self) -> str:
        """The learner as the reports name it: its spec, with its parameters if any."""
        p = json.loads(self.params)
        return self.spec + (f"({', '.join(f'{k}={v!r}' for k, v in p.items())})" if p else "")

    def factory(self, data: Dataset):
        """A zero-argument factory of unfitted learners for ``data`` (see :func:`simstudy.pipeline.learners.as_learner_factory`)."""
        from simstudy.pipeline.learners import as_learner_factory, learner_class, learner_names

        params = json.loads(self.params)
        if self.template is not None:
            return as_learner_factory(self.template)
        if self.spec in learner_names(aliases=True):
            cls = learner_class(self.spec)
            accepted = inspect.signature(cls.__init__).parameters
            told = {
                "nominal": np.array(data.nominal, dtype=bool),
                "n_categories": data.n_categories,
                "n_classes": len(data.classes),
            }
            extra = {k: v for k, v in told.items() if k in accepted and k not in params}
            return as_learner_factory(self.spec, **params, **extra)
        if self.contained:  # made in its worker process only (see _FitLimit)
            return _RefFactory(self.spec, self.params)
        obj = _load_learner(self.spec)
        return as_learner_factory(obj, **params) if inspect.isclass(obj) else as_learner_factory(obj)

    @property
    def registered(self) -> bool:
        """Whether the learner is a registered name (then it is told the attribute types)."""
        from simstudy.pipeline.learners import learner_names

        return self.template is None and self.spec in learner_names(aliases=True)


def parse_learner(spec, params=None, *, option: str | None = None, contained: bool = False) -> LearnerChoice:
    """A :class:`LearnerChoice` from a name, a ``module:Class`` path, a class or an estimator.

    Parameters
    ----------
    spec : str, estimator class, estimator instance, or (name, any of these)
        A registered name, a ``module:Class`` path, a class or an instance;
        ``("logreg", spec)`` or the text ``"logreg=SPEC"`` also names it for
        the tables and figures (:attr:`LearnerChoice.name`).
    params : dict or str, optional
        Parameters for a name or a class, as a dict or JSON object text (``--a-params``).
    option : str, optional
        The argument the errors name (default ``a``, ``--a`` on the command
        line; see :func:`simstudy.errors.option`).
    contained : bool
        Load and fit a learner that is not a registered one in a worker
        process (:attr:`LearnerChoice.contained`): a ``module:NAME`` or
        ``file.py:NAME`` reference is then only checked for its form here (the
        file exists); it is imported, and its parameters checked, in its
        worker, under the time limit (:func:`assess` does that before anything
        is written).

    Returns
    -------
    LearnerChoice

    Raises
    ------
    ValueError
        One line naming ``option``: an unknown name, a module or class that
        cannot be imported, parameters that are not JSON or that the class refuses.
    """
    import dataclasses

    option = _option("a") if option is None else option
    spec, name = _named(spec, option)
    choice = _parse_learner(spec, params, option, contained)
    return dataclasses.replace(choice, name=name) if name else choice


# "logreg=path/to/file.py:NAME": a name for the tables and figures, then the learner
_NAMED_SPEC = re.compile(r"([A-Za-z_][A-Za-z0-9_.\- ]{0,59})=(.+)")


def _named(spec, option: str) -> tuple[object, str]:
    """``(learner, name)`` from ``(name, learner)``, ``"name=SPEC"`` or a bare learner (name ``""``)."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str):
        name, spec = spec
        if not name.strip() or "\n" in name:
            raise InputError(f"{option}: a learner's name must be a non-empty line of text, got {name!r}")
        return spec, name.strip()
    if isinstance(spec, str):
        m = _NAMED_SPEC.fullmatch(spec)
        if m:
            return m.group(2), m.group(1).strip()
    return spec, ""


def named_learners(learners, option: str | None = None) -> list:
    """The learners of a mapping ``{name: learner}``, of ``(name, learner)`` pairs or of a plain sequence, as a
    list that :func:`parse_learner` takes (a name kept with its learner); duplicate names are refused, naming
    ``option`` (default ``learners``)."""
    from collections.abc import Mapping

    option = _option("learners") if option is None else option
    items = list(learners.items()) if isinstance(learners, Mapping) else list(learners)
    names = [_named(x, option)[1] for x in items]
    given = [n for n in names if n]
    dup = sorted({n for n in given if given.count(n) > 1})
    if dup:
        raise InputError(f"{option}: the name(s) {', '.join(map(repr, dup))} are given to more than one learner")
    return items


def _params_option(option: str) -> str:
    """The parameters' argument of the learner argument ``option``: ``a_params`` of ``a``, ``--a-params`` of ``--a``."""
    return f"{option}-params" if option.startswith("--") else f"{option}_params"


def _parse_learner(spec, params, option: str, contained: bool = False) -> LearnerChoice:
    from simstudy.engine.codecheck import evict_stale_modules
    from simstudy.pipeline.learners import as_learner_factory, learner_names

    if isinstance(spec, str):
        evict_stale_modules()  # a learner named by reference runs as its file is now, not as first imported
    if isinstance(params, str):
        try:
            params = json.loads(params) if params.strip() else {}
        except json.JSONDecodeError as exc:
            raise InputError(f"{_params_option(option)}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise InputError(f"{_params_option(option)}: expected a JSON object such as '{{\"C\": 10}}', got {params!r}")
    canonical = json.dumps(params, sort_keys=True)
    if isinstance(spec, str):
        if spec not in learner_names(aliases=True) and ":" not in spec:
            raise InputError(
                f"{option}: unknown learner {spec!r}; use a registered name "
                f"({', '.join(learner_names(aliases=True))}), module:NAME or path/to/file.py:NAME for a "
                "scikit-learn estimator, pipeline or factory"
            )
        if contained and spec not in learner_names(aliases=True):
            _check_reference(spec, option)
            return LearnerChoice(spec, canonical, contained=True)
        try:
            if spec in learner_names(aliases=True):
                as_learner_factory(spec, **params)
            else:
                obj = _load_learner(spec)
                if inspect.isclass(obj):
                    as_learner_factory(obj, **params)
                elif params:
                    raise InputError(
                        f"{_params_option(option)}: not allowed with {spec!r}, which is an estimator or a factory "
                        "(set its parameters in the file)"
                    )
                else:
                    as_learner_factory(obj)
        except ValueError as exc:
            text = str(exc)
            raise InputError(text if text.startswith(option) else f"{option}: {text}") from None
        return LearnerChoice(spec, canonical)
    if inspect.isclass(spec):
        try:
            as_learner_factory(spec, **params)
        except ValueError as exc:
            raise InputError(f"{option}: {exc}") from None
        if contained:  # sent to the worker by value, as an instance with these parameters
            template = spec(**params)
            return LearnerChoice(f"{spec.__module__}:{spec.__qualname__}", canonical, template=template, contained=True)
        return LearnerChoice(f"{spec.__module__}:{spec.__qualname__}", canonical)
    if params:
        raise InputError(f"{_params_option(option)}: not allowed with an estimator instance (set them on the instance)")
    try:
        as_learner_factory(spec)
    except ValueError as exc:
        raise InputError(f"{option}: {exc}") from None
    # one line, however the repr is laid out
    return LearnerChoice(" ".join(repr(spec).split()), "{}", template=spec, contained=contained)


def wants_worker(spec, *, in_process: bool = False, fit_timeout=None) -> bool:
    """Whether the learner ``spec`` is loaded and fitted in a worker process (see :func:`assess`).

    Registered learners never are (simstudy's own code); ``module:NAME`` and
    ``file.py:NAME`` references always are, unless ``in_process``; a class or
    an estimator given in Python is when a ``fit_timeout`` is given.  A name
    given with the learner (``("logreg", spec)``, ``"logreg=SPEC"``) changes
    nothing.
    """
    from simstudy.pipeline.learners import learner_names

    if in_process:
        return False
    try:
        spec = _named(spec, "")[0]
    except ValueError:  # a bad name: parse_learner says so
        pass
    if isinstance(spec, str):
        return spec not in learner_names(aliases=True)
    return fit_timeout is not None
