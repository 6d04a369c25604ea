"""Learners named by reference, ``module:NAME`` or ``path/to/file.py:NAME``: the form of the reference checked
without importing anything (:func:`_check_reference`), and the object it names imported (:func:`_load_learner`;
a file as a module of its own, compiled from the bytes its fingerprint hashes).  Both simstudy's process and a
fit worker (:mod:`simstudy.apps.assess.worker`) import learners so.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import sys
from pathlib import Path

from simstudy import _codeload
from simstudy.errors import InputError


def _is_file_ref(where: str) -> bool:
    return where.endswith(".py") or "/" in where or os.sep in where


def _load_learner(spec: str):
    """The object ``spec`` names: ``module:NAME`` or ``path/to/file.py:NAME``.

    NAME is an estimator class, an estimator instance (a pipeline, say) or a
    zero-argument factory of estimators.  A file is imported as a module of
    its own and its objects travel to worker processes by value, so the file
    need not be importable there.
    """
    where, _, name = spec.rpartition(":")
    if not where or not name:
        from simstudy.pipeline.learners import learner_names

        raise InputError(
            f"learner {spec!r}: not a registered learner ({', '.join(learner_names(aliases=True))}) "
            "nor a module:NAME or path/to/file.py:NAME reference"
        )
    if _is_file_ref(where):
        mod = _import_file(spec, Path(where))
    else:
        try:
            mod = importlib.import_module(where)
        except ImportError as exc:
            raise InputError(f"learner {spec!r}: cannot import module {where!r} ({exc})") from None
    obj = mod
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise InputError(f"learner {spec!r}: {where} has no {name!r}{_candidates(mod)}")
    if not (inspect.isclass(obj) or callable(obj) or hasattr(obj, "fit")):
        raise InputError(
            f"learner {spec!r}: {name!r} is a {type(obj).__name__}, not an estimator class, an estimator "
            "or a factory of estimators"
        )
    return obj


def _candidates(mod) -> str:
    """``; it has: ...``: the names in ``mod`` that could be a learner (classes, estimators, factories defined or
    made there, not imported modules or private names), or ``""`` when there are none."""
    names = []
    for key, value in vars(mod).items():
        if key.startswith("_") or inspect.ismodule(value):
            continue
        if hasattr(value, "fit") or (callable(value) and getattr(value, "__module__", None) == mod.__name__):
            names.append(key)
    return f"; it has: {', '.join(names[:12])}{' ...' if len(names) > 12 else ''}" if names else ""


# A file reference as given -> the module imported for it in this process: a relative path is resolved once, at
# its first use, so that a learner that changes the working directory does not send the next lookup elsewhere.
_FILE_MODULES: dict[str, str] = {}


def _import_file(spec: str, path: Path):
    """The module of a learner file, imported once per process (the same object on every call)."""
    import importlib.util

    known = _FILE_MODULES.get(str(path))
    if known is not None and known in sys.modules:
        return sys.modules[known]
    if not path.is_file():
        raise InputError(f"learner {spec!r}: no such file {str(path)!r}")
    resolved = path.resolve()
    key = "simstudy_learners_" + hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    _FILE_MODULES[str(path)] = key
    if key in sys.modules:
        return sys.modules[key]
    found = _codeload.file_spec(key, resolved)  # compiled from the bytes its fingerprint hashes
    if found is None or found.loader is None:
        raise InputError(f"learner {spec!r}: {str(path)!r} is not a Python file")
    module = importlib.util.module_from_spec(found)
    sys.modules[key] = module  # registered while it runs, so that its classes can be pickled
    try:
        found.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(key, None)
        raise InputError(f"learner {spec!r}: importing {str(path)!r} failed: {type(exc).__name__}: {exc}") from None
    import cloudpickle

    cloudpickle.register_pickle_by_value(module)  # worker processes cannot import the file by its name
    return module


def _check_reference(spec: str, option: str) -> None:
    """The form of a ``module:NAME`` or ``path/to/file.py:NAME`` reference (nothing is imported); one line."""
    where, _, name = spec.rpartition(":")
    if not where or not name:
        from simstudy.pipeline.learners import learner_names

        raise InputError(
            f"{option}: learner {spec!r}: not a registered learner ({', '.join(learner_names(aliases=True))}) "
            "nor a module:NAME or path/to/file.py:NAME reference"
        )
    if _is_file_ref(where):
        path = Path(where)
        if not path.is_file():
            raise InputError(f"{option}: learner {spec!r}: no such file {where!r}")
    elif not all(part.isidentifier() for part in where.split(".")):
        raise InputError(f"{option}: learner {spec!r}: {where!r} is not a module name (nor a path to a .py file)")
    if not all(part.isidentifier() for part in name.split(".")):
        raise InputError(f"{option}: learner {spec!r}: {name!r} is not a name in a module")
