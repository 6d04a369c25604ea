"""Running a study: plan chunks, execute them in parallel, store them, resume.

The unit of work is a *chunk*: consecutive replications of one condition.  A
chunk's rows depend only on (study, condition, replication, root seed) through
:mod:`simstudy.engine.seeds`, so its stored file is the same whether it ran
alone, on a loky worker, on a dask worker, or after a crash.  Workers return
rows; only the calling process writes, so a dask cluster needs no shared disk.

What a stored chunk claims is checked, not assumed: it records its identity
(study, condition, range, root seed, configuration hash) and its provenance
(a fingerprint of the code that makes its rows, module by module, and the
versions of the distributions that code uses, see :func:`code_sources`), one
process at a time writes a run directory, and a resume that would mix rows of
different code or versions is refused, naming what changed.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import numbers
import os
import platform
import re
import signal
import sys
import time
import traceback
import types
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.engine.seeds import replication_seed, setup_seed
from simstudy.engine.store import (
    ConfigMismatch,
    RunData,
    RunLock,
    RunStore,
    chunk_identity,
    default_out,
    manifest_chunk_key,
    os_error,
)
from simstudy.engine.study import Study, condition_fields, condition_key, get_study, n_replications_of
from simstudy.engine.threads import (
    NATIVE_THREADS_PLUGIN,
    native_threads_plugin,
    one_thread_per_kernel,
)

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "run_study",
    "replay",
    "plan_run",
    "provenance",
    "provenance_changes",
    "code_fingerprint",
    "code_sources",
    "stop_workers",
    "stop_resource_trackers",
    "DEFAULT_SEED",
    "BACKENDS",
    "MAX_JOBS_PER_CPU",
    "CONNECT_TIMEOUT",
]

DEFAULT_SEED = 20040707
BACKENDS = ("loky", "dask")
IDENTITY = ("study", "condition", "replication", "seed")
_VERSIONED = (
    "simstudy",
    "numpy",
    "scipy",
    "scikit-learn",
    "pandas",
    "pyarrow",
    "joblib",
    "dask",
    "distributed",
    "numba",
    "pgmpy",
    "scikit-learn-intelex",
)
# Distributions whose versions every provenance records when they are installed: simstudy's numeric
# stack and the compiled back-ends that numba and scikit-learn-intelex load without a Python import
# (llvmlite, daal).  The distributions of the modules a study's code imports are added to these
# (see code_sources).
NUMERIC_PACKAGES = (
    "numpy",
    "scipy",
    "scikit-learn",
    "pandas",
    "numba",
    "llvmlite",
    "pgmpy",
    "scikit-learn-intelex",
    "daal",
)
MAX_JOBS_PER_CPU = 4  # --jobs above this many per CPU is refused (local workers only)
CONNECT_TIMEOUT = 5.0  # seconds to reach a dask scheduler before giving up


def _versions(packages=_VERSIONED) -> dict:
    out = {"python": platform.python_version()}
    for pkg in packages:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def study_file(study: Study) -> Path | None:
    """The source file that defines the study's ``replicate`` function (None if it has none)."""
    func = study.replicate
    while hasattr(func, "func"):  # functools.partial
        func = func.func
    func = getattr(func, "__func__", func)  # bound method
    if not inspect.isfunction(func):
        func = type(func)  # a callable object: its class
    try:
        name = inspect.getsourcefile(func)
    except TypeError:
        name = None
    if name is None:
        module = sys.modules.get(getattr(func, "__module__", None) or "")
        name = getattr(module, "__file__", None)
    return Path(name).resolve() if name and Path(name).is_file() else None


# -- provenance: the code and the distributions that make a study's rows ------------------------
#
# What is covered is decided in one place, code_sources(), from the study object and source files
# on disk alone: never from what else the process has imported, so the parent, its workers and a
# later resume in a fresh process find the same set.

# Distributions whose modules simstudy imports but which cannot change a replication's numbers:
# drawing, progress bars, scheduling and pickling work for the workers, storage of finished rows.
NON_NUMERIC_PACKAGES = frozenset(
    {"matplotlib", "tqdm", "joblib", "loky", "dask", "distributed", "cloudpickle", "pyarrow", "simstudy"}
)
# Top-level modules whose distribution is not named after them.
_DIST_OF_MODULE = {
    "sklearn": "scikit-learn",
    "sklearnex": "scikit-learn-intelex",
    "daal4py": "scikit-learn-intelex",
    "onedal": "scikit-learn-intelex",
    "PIL": "pillow",
    "yaml": "pyyaml",
    "skimage": "scikit-image",
}
_WALK_DEPTH = 8  # levels of references followed from the study object
_WALK_WIDE = 1000  # a container longer than this contributes the types of its items only
_ATOMS = (type(None), bool, int, float, complex, bytes, bytearray, range, slice, type(Ellipsis))
_WHERE: dict[str, str] = {}  # module key -> the file it was read from in this process (for messages)


@functools.lru_cache(maxsize=1)
def _layout() -> tuple[Path, tuple[Path, ...], tuple[Path, ...]]:
    """The simstudy package's directory, the built-in studies' directories, the standard library's."""
    import importlib.util
    import sysconfig

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.find_spec("simstudy.studies")  # where the built-in studies are, without importing them
    studies = tuple(Path(p).resolve() for p in (spec.submodule_search_locations or ())) if spec else ()
    paths = sysconfig.get_paths()
    stdlib = tuple(dict.fromkeys(Path(paths[k]).resolve() for k in ("stdlib", "platstdlib") if paths.get(k)))
    return root, studies, stdlib


def _under(path: Path, dirs) -> bool:
    return any(path == d or d in path.parents for d in dirs)


def _kind(path) -> str:
    """``studies``, ``simstudy``, ``installed``, ``stdlib`` or ``user``: where a module file lives."""
    root, studies, stdlib = _layout()
    p = Path(path).resolve()
    if _under(p, studies):
        return "studies"
    if _under(p, (root,)):
        return "simstudy"
    if "site-packages" in p.parts or "dist-packages" in p.parts:
        return "installed"
    if _under(p, stdlib):
        return "stdlib"
    return "user"


def _find_spec(name: str):
    """The spec of module ``name`` without running any module's code (None if there is none)."""
    import importlib.machinery
    import importlib.util

    module = sys.modules.get(name)
    if module is not None:
        spec = getattr(module, "__spec__", None)
        if spec is None and getattr(module, "__file__", None):  # e.g. __main__ of a script
            spec = importlib.util.spec_from_file_location(name, module.__file__)
        return spec
    parent = name.rpartition(".")[0]
    try:
        if not parent:
            return importlib.util.find_spec(name)  # a top-level name: finders only, nothing runs
        pspec = _find_spec(parent)
        if pspec is None or not pspec.submodule_search_locations:
            return None
        if parent in sys.modules:  # already imported: the finders use its __path__, nothing runs
            return importlib.util.find_spec(name)
        return importlib.machinery.PathFinder.find_spec(name, list(pspec.submodule_search_locations))
    except (ImportError, ValueError, AttributeError):
        return None


def _locate(name: str, memo: dict) -> tuple[str | None, str | None]:
    """``(kind, file)`` of module ``name`` (kinds as :func:`_kind`); kind None when it is not importable.

    A module of a distribution or of the standard library is recognised by its
    top-level package; the file is given for the study's and the user's
    modules only.  Nothing is imported.
    """
    if name in memo:
        return memo[name]
    top = name.partition(".")[0]
    out: tuple[str | None, str | None]
    if not top:  # code without a module name (exec'd)
        out = (None, None)
    elif top in sys.stdlib_module_names or top in sys.builtin_module_names:
        out = ("stdlib", None)
    elif top == "simstudy" and not (name == "simstudy.studies" or name.startswith("simstudy.studies.")):
        out = ("simstudy", None)
    else:
        out = (None, None)
        spec = _find_spec(top)
        kind = _spec_kind(spec) if spec is not None else None
        if kind in ("installed", "stdlib"):
            out = (kind, None)
        elif spec is not None:
            spec = spec if top == name else _find_spec(name)
            if spec is not None:
                origin = spec.origin if spec.has_location and spec.origin else None
                out = (_spec_kind(spec), str(Path(origin).resolve()) if origin and Path(origin).is_file() else None)
    memo[name] = out
    return out


def _spec_kind(spec) -> str | None:
    if spec.has_location and spec.origin and spec.origin not in ("built-in", "frozen"):
        return _kind(spec.origin)
    locations = list(spec.submodule_search_locations or [])
    return _kind(locations[0]) if locations else None


def _absolute(module: str | None, level: int, package: str | None) -> str | None:
    """The absolute name of ``from <level dots><module> import ...`` in ``package`` (None if it has none)."""
    if not level:
        return module
    if not package:
        return None
    parts = package.split(".")
    if level - 1 >= len(parts):
        return None
    return ".".join(parts[: len(parts) - (level - 1)] + ([module] if module else []))


def _valid(names) -> set[str]:
    return {n for n in names if n and all(p.isidentifier() for p in n.split("."))}


@functools.lru_cache(maxsize=1)
def _import_patterns():
    """Lines that start like ``import ...`` and ``from ... import ...``, and imports by a literal name.

    Compiled on first use, not when the module is imported (``simstudy list`` starts quickly).
    """
    return (
        re.compile(rb"^[ \t]*import[ \t]+([\w. \t,]+)", re.M),
        re.compile(rb"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[\w. \t,*]+)", re.M),
        re.compile(rb"\b(?:import_module|lazy_module|__import__)\(\s*[rbu]?[\"']([\w.]+)[\"']"),
    )


def _scan_imports(source: bytes, package: str | None, *, tops_only: bool = False) -> set[str]:
    """The modules that lines of a source file import, read with regular expressions (fast).

    Lines that start like an import statement, anywhere in the file, and
    ``import_module``, ``__import__`` and ``lazy_module`` calls with a literal
    name.  A docstring's example counts too: the set may hold more than the
    file imports.  Used for the simstudy package, whose imports matter only
    for the distributions they name; see :func:`_imports_of` for the study's code.
    """
    plain, from_, call = _import_patterns()
    names = set()
    for m in plain.finditer(source):
        for part in m.group(1).decode("ascii", "replace").split(","):
            words = part.split()
            if words:
                names.add(words[0])
    for m in from_.finditer(source):
        base = m.group(1).decode("ascii", "replace")
        base = _absolute(base.lstrip(".") or None, len(base) - len(base.lstrip(".")), package)
        if base is None:
            continue
        names.add(base)
        for part in m.group(2).decode("ascii", "replace").strip("()").split(","):
            words = part.split()
            if words and words[0] != "*" and words[0].isidentifier():
                names.add(f"{base}.{words[0]}")
    names.update(m.group(1).decode("ascii", "replace") for m in call.finditer(source))
    if tops_only:
        return {t for t in {n.partition(".")[0] for n in names} if t.isidentifier()}
    return _valid(names)


_IMPORTS_OF: dict = {}  # (SHA-256 of a source, package) -> the modules it imports


def _imports_of(source: bytes, digest: str, package: str | None) -> frozenset:
    """The modules a source file imports: every import statement in it, also inside functions and ``try``.

    ``from a import b`` gives ``a`` and ``a.b`` (``b`` may be a submodule);
    relative imports are resolved against ``package``; calls of
    ``importlib.import_module``, ``__import__`` and
    :func:`simstudy._lazy.lazy_module` with a literal name count too.  Names
    that are computed at run time cannot be seen.  Cached by the source's digest.
    """
    key = (digest, package)
    if key in _IMPORTS_OF:
        return _IMPORTS_OF[key]
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # not Python this interpreter reads: what its lines say
        names = _scan_imports(source, package)
    else:
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node.module, node.level, package)
                if base is not None:
                    names.add(base)
                    names.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
            elif (
                isinstance(node, ast.Call)
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                func = node.func
                called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if called in ("import_module", "lazy_module", "__import__"):
                    names.add(node.args[0].value)
    _IMPORTS_OF[key] = out = frozenset(_valid(names))
    return out


@functools.lru_cache(maxsize=1)
def _package_digest() -> tuple[Path, bytes, frozenset]:
    """The simstudy package's directory, the digest of its ``.py`` sources, the top-level modules they import.

    The built-in studies are left out (each is covered on its own, with what
    it imports, see :func:`code_sources`).  Computed once per process, when
    the first run starts: the code this process has loaded, not later edits
    on disk.
    """
    root, studies, _ = _layout()
    h = hashlib.sha256()
    tops = set()
    for f in sorted(root.rglob("*.py")):
        if "__pycache__" in f.parts or _under(f.resolve(), studies):
            continue
        data = f.read_bytes()
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + data + b"\0")
        tops.update(_scan_imports(data, None, tops_only=True))
    return root, h.digest(), frozenset(tops)


@functools.lru_cache(maxsize=4)
def _entry_point_modules(group: str) -> dict:
    """``{name: module}`` of the entry points of ``group`` (read once per process; nothing is imported)."""
    out: dict[str, str] = {}
    for ep in metadata.entry_points(group=group):
        out.setdefault(ep.name, ep.value.partition(":")[0].strip())
    return out


def _class_file(cls) -> str:
    f = getattr(sys.modules.get(getattr(cls, "__module__", None) or ""), "__file__", None)
    if f:
        return f
    for v in vars(cls).values():
        if isinstance(v, (staticmethod, classmethod)):
            v = v.__func__
        elif isinstance(v, property):
            v = v.fget
        if isinstance(v, types.FunctionType) and Path(v.__code__.co_filename).is_file():
            return v.__code__.co_filename
    return ""


def _instance_refs(obj, cls) -> list:
    out = []
    try:
        out.extend(object.__getattribute__(obj, "__dict__").values())
    except (AttributeError, TypeError):
        pass
    for c in cls.__mro__:
        slots = c.__dict__.get("__slots__", ())
        for s in (slots,) if isinstance(slots, str) else slots:
            if s in ("__dict__", "__weakref__"):
                continue
            if s.startswith("__") and not s.endswith("__"):
                s = f"_{c.__name__.lstrip('_')}{s}"
            try:
                out.append(object.__getattribute__(obj, s))
            except AttributeError:
                pass
    return out


def _reachable(study: Study, memo: dict) -> tuple[set, dict, set]:
    """What the study's replicate, setup, conditions, profiles and settings hold that names code.

    Followed: closures, defaults and attributes of functions, partials, bound
    methods, containers, and the attributes of instances of classes defined
    outside the standard library and installed distributions (and of
    scikit-learn-style estimators, which hold other estimators).  Breadth first
    to :data:`_WALK_DEPTH` levels, each object once: the result does not
    depend on the order in which references are met.

    Returns ``(modules, code, strings)``: ``(module name, file)`` of every
    function, class and module met; ``{(module name, label): code object}``
    of functions without a source file; the strings met (names a registry
    may resolve).
    """
    from simstudy._lazy import _LazyModule

    mods, codes, strings = set(), {}, set()
    seen, keep = set(), []

    known: dict = {}

    def covered(cls) -> bool:
        if cls not in known:
            kind = _locate(getattr(cls, "__module__", None) or "", memo)[0]
            if kind is None:  # e.g. a class of a study file, which is not importable by its name
                f = _class_file(cls)
                kind = _kind(f) if f else None
            known[cls] = kind in ("simstudy", "studies", "user") or (
                callable(getattr(cls, "get_params", None)) and callable(getattr(cls, "fit", None))
            )
        return known[cls]

    level = [study.replicate, study.setup, study.conditions, study.profiles, study.settings]
    for _ in range(_WALK_DEPTH):
        nxt = []
        for obj in level:
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            keep.append(obj)
            cls = type(obj)
            if cls in _ATOMS:
                continue
            if cls is str:
                if len(obj) <= 200:
                    strings.add(obj)
                continue
            if isinstance(obj, _LazyModule):
                mods.add((object.__getattribute__(obj, "_name"), ""))
                continue
            if isinstance(obj, types.ModuleType):
                mods.add((obj.__name__, getattr(obj, "__file__", None) or ""))
                continue
            if isinstance(obj, types.FunctionType):
                code = obj.__code__
                mods.add((obj.__module__ or "", code.co_filename))
                if not Path(code.co_filename).is_file():
                    codes[(obj.__module__ or "", f"{obj.__module__}.{obj.__qualname__}")] = code
                for cell in obj.__closure__ or ():
                    try:
                        nxt.append(cell.cell_contents)
                    except ValueError:  # an empty cell
                        pass
                nxt.extend(obj.__defaults__ or ())
                nxt.extend((obj.__kwdefaults__ or {}).values())
                nxt.extend(vars(obj).values())
                continue
            if isinstance(obj, types.BuiltinFunctionType):
                mods.add((getattr(obj, "__module__", None) or "", ""))
                owner = getattr(obj, "__self__", None)
                if owner is not None and not isinstance(owner, types.ModuleType):
                    nxt.append(owner)
                continue
            if isinstance(obj, types.MethodType):
                nxt += [obj.__func__, obj.__self__]
                continue
            if isinstance(obj, functools.partial):
                nxt += [obj.func, *obj.args, *obj.keywords.values()]
                continue
            if isinstance(obj, type):
                mods.add((obj.__module__ or "", _class_file(obj)))
                continue
            if cls not in (list, tuple, dict, set, frozenset):
                mods.add((cls.__module__ or "", _class_file(cls)))
            if isinstance(obj, (list, tuple, dict, set, frozenset)):
                items = [*obj.keys(), *obj.values()] if isinstance(obj, dict) else list(obj)
                if len(items) > _WALK_WIDE:
                    nxt.extend({type(x) for x in items})
                else:
                    nxt.extend(items)
            if cls in (list, tuple, dict, set, frozenset):
                continue
            if covered(cls):
                nxt.extend(_instance_refs(obj, cls))
            else:  # a wrapper of the standard library or a distribution (functools.wraps): what it wraps
                try:
                    wrapped = object.__getattribute__(obj, "__dict__").get("__wrapped__")
                except (AttributeError, TypeError):
                    wrapped = None
                if wrapped is not None:
                    nxt.append(wrapped)
        level = nxt
        if not level:
            break
    return mods, codes, strings


def _code_digest(code) -> bytes:
    """A digest of a code object that is the same in every process (for functions without a source file)."""
    h = hashlib.sha256(code.co_code)
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)).encode())
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            h.update(_code_digest(c))
        elif isinstance(c, frozenset):
            h.update(repr(sorted(map(repr, c))).encode())
        else:
            h.update(repr(c).encode())
    return h.digest()


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.lru_cache(maxsize=256)
def _distribution_of(top: str) -> str | None:
    """The installed distribution that provides top-level module ``top`` (its normalised name), if any.

    Tried in turn: the distributions simstudy knows by name, a distribution
    named after the module (checked against its ``top_level.txt`` or
    ``RECORD``), then every distribution installed beside the module.
    """

    def provides(dist) -> bool:
        listed = (dist.read_text("top_level.txt") or "").split()
        if listed:
            return top in listed
        record = (dist.read_text("RECORD") or "").encode()
        return re.search(rb"(?m)^" + re.escape(top.encode()) + rb"[/.]", record) is not None

    known = _normalise(_DIST_OF_MODULE.get(top, top))
    if known in NUMERIC_PACKAGES or known in NON_NUMERIC_PACKAGES:
        return known
    for guess in dict.fromkeys((top, _DIST_OF_MODULE.get(top))):
        if not guess:
            continue
        try:
            dist = metadata.distribution(guess)
        except metadata.PackageNotFoundError:
            continue
        if guess == _DIST_OF_MODULE.get(top) or provides(dist):
            return _normalise(guess)
    spec = _find_spec(top)
    origin = spec.origin if spec is not None and spec.has_location else None
    where = Path(origin).resolve().parents[1 if Path(origin).name == "__init__.py" else 0] if origin else None
    if where is None or not where.is_dir():
        return None
    for info in sorted(where.glob("*.dist-info")):  # the distributions installed beside it
        if provides(metadata.PathDistribution(info)):
            return _normalise(info.name.partition("-")[0])  # NAME-VERSION.dist-info
    return None


def code_sources(study: Study) -> dict:
    """Everything whose change can change the study's rows: the one place where that set is decided.

    * **The simstudy package**: every ``.py`` file of it wherever it is
      installed, built-in studies aside, hashed as one.
    * **The study's own code**, module by module: the module that defines it
      (a built-in study's module of :mod:`simstudy.studies`, an entry point's
      module, or the ``.py`` file it was loaded from); the module of every
      function, class and object its ``replicate``, ``setup``, conditions,
      profiles and settings hold (so the ``module:Class`` learners of an
      assessment and the modules of the functions a study is built from); the
      module of a ``module:Class`` reference in a string the study holds, and
      of a learner that a distribution registers through the
      ``simstudy.pipeline.learners`` entry points when such a string names it; and, recursively,
      every module those import (import statements anywhere in the file,
      ``importlib.import_module`` and ``lazy_module`` with a literal name,
      and the packages above each module), that lives outside the standard
      library and outside installed distributions (``site-packages``,
      ``dist-packages``).  A built-in study that imports another built-in
      study, or a helper of :mod:`simstudy.studies`, covers it this way.
    * **Distributions**: the installed distributions that provide the
      top-level modules the covered code imports or the study holds (found
      from the source, as above, so whether the run has imported them yet
      does not matter), except :data:`NON_NUMERIC_PACKAGES`, plus
      :data:`NUMERIC_PACKAGES` (which adds the compiled back-ends numba and
      scikit-learn-intelex load without an import in Python).

    The set depends on the study object and the files on disk only, never on
    what else the process has imported, so the process that runs a study,
    its workers and a later resume in a fresh process find the same.  Reading
    it runs no module's code and imports no distribution.

    Not covered: the contents of compiled extensions and of distributions
    beyond their version, data files read at run time (a study's settings and
    an assessment's data digest are part of the run's configuration instead),
    modules imported under a computed name, and code reached only through
    ``__globals__`` of objects created at run time.

    Returns
    -------
    dict
        ``code`` (SHA-256 over all of it), ``modules`` (``{key: first 16 hex
        digits of its SHA-256}``: ``"simstudy"`` for the package, a module name,
        ``"study file"`` for a study's ``.py`` file, ``"file NAME"`` for another
        file that is not importable by a module name), ``paths`` (``{key: the
        file read}``, not part of the record) and ``distributions`` (sorted
        names).
    """
    from collections import deque

    root, package_digest, package_tops = _package_digest()
    memo: dict = {}
    origin = _study_origin(study, memo)
    mods, codes, strings = _reachable(study, memo)
    todo = deque((name, "") for name in _study_modules(study))  # (module name, file of the code met, or "")
    todo += sorted(mods)
    learner_eps = _entry_point_modules("simstudy.pipeline.learners")
    todo += [(learner_eps[s], "") for s in sorted(strings & set(learner_eps))]
    # "module:Class" references in strings (an assessment's settings name its learners so)
    todo += sorted({(m.group(1), "") for s in strings if (m := re.match(r"([A-Za-z_][\w.]*):[A-Za-z_]", s))})
    if origin:
        todo.append(("", origin))
    files: dict[str, list] = {}  # file -> [key, package its relative imports are resolved in, SHA-256]
    keys: set = set()
    tops = set(package_tops)
    while todo:
        name, hint = todo.popleft()
        kind, path = _locate(name, memo) if name else (None, None)
        if kind == "installed":
            tops.add(name.partition(".")[0])
            continue
        if kind is None:  # not importable by that name: a study file, code run from a path
            if not hint or not Path(hint).is_file() or _kind(hint) not in ("user", "studies"):
                continue
            path, package = str(Path(hint).resolve()), None
        elif kind in ("user", "studies") and path is not None:
            package = name if Path(path).name == "__init__.py" else name.rpartition(".")[0]
            todo += [(".".join(name.split(".")[:i]), "") for i in range(1, name.count(".") + 1)]  # run on import
        else:  # the standard library, the simstudy package, a namespace package
            continue
        if path in files:
            if files[path][1] is not None or package is None:
                continue
            files[path][1] = package  # now known by a module name: read again for its relative imports
        else:
            key = "study file" if path == origin else name if kind is not None else f"file {Path(path).name}"
            while key in keys:
                key += "+"
            keys.add(key)
            files[path] = [key, package, None]
        data = Path(path).read_bytes()
        files[path][2] = digest = hashlib.sha256(data).hexdigest()
        if path.endswith(".py"):
            todo += [(n, "") for n in sorted(_imports_of(data, digest, package))]

    digests = {key: digest for key, _, digest in files.values()}
    for (module, label), code in sorted(codes.items()):
        if _locate(module, memo)[0] in (None, "user", "studies"):
            digests[f"code {label}"] = _code_digest(code).hex()
    h = hashlib.sha256(b"simstudy\0" + package_digest)
    for key in sorted(digests):
        h.update(key.encode() + b"\0" + digests[key].encode() + b"\0")
    dists = {_distribution_of(top) for top in sorted(tops) if _locate(top, memo)[0] == "installed"}
    dists = ((dists - {None}) - NON_NUMERIC_PACKAGES) | set(NUMERIC_PACKAGES)
    paths = {"simstudy": str(root), **{key: path for path, (key, _, _) in files.items()}}
    _WHERE.update(paths)
    return {
        "code": h.hexdigest(),
        "modules": {"simstudy": package_digest.hex()[:16], **{k: d[:16] for k, d in sorted(digests.items())}},
        "paths": paths,
        "distributions": sorted(dists),
    }


def _study_modules(study: Study) -> list[str]:
    """The module that registers the study: a built-in study's, or an entry point's (by the study's name)."""
    from simstudy.engine.study import builtin_modules

    builtin = builtin_modules().get(study.name)
    out = [builtin] if builtin else []
    ep = _entry_point_modules("simstudy.studies").get(study.name)
    return out + ([ep] if ep else [])


def _study_origin(study: Study, memo: dict) -> str | None:
    """The file that defines the study (its key is ``study file``), if it is the user's or a built-in study.

    The ``.py`` file it was loaded from (:func:`~simstudy.engine.study.load_study_file`),
    else its built-in module, else its entry point's module, else the file of
    its ``replicate`` function.
    """
    from simstudy.engine.study import _FILE_STUDIES  # resolved path -> (stamp, Study), for studies loaded from files

    for path, (_, loaded) in sorted(_FILE_STUDIES.items()):
        if loaded is study:
            return str(path)
    for name in _study_modules(study):
        kind, path = _locate(name, memo)
        if kind in ("user", "studies") and path:
            return path
    own = study_file(study)
    return str(own) if own is not None and _kind(own) in ("user", "studies") else None


def code_fingerprint(study: Study) -> str:
    """SHA-256 over the code that makes the study's rows (see :func:`code_sources`).

    Any edit to that code changes it; file names (or module names) are hashed
    with contents, so moving code between files does too.  The package part is
    read once per process; the study's own modules every time (a study loaded
    from an edited file is a new study).
    """
    return code_sources(study)["code"]


def provenance(study: Study) -> dict:
    """What produces a chunk: the code, module by module, and the versions of the distributions it uses.

    Returns
    -------
    dict
        ``{"code": sha256, "modules": {key: digest}, "versions": {distribution:
        version, "python": version}}`` (see :func:`code_sources`).  Every chunk
        and the manifest of a run record it; a resume that would add rows made
        with a different one is refused, naming what differs
        (:func:`provenance_changes`).
    """
    src = code_sources(study)
    return {"code": src["code"], "modules": src["modules"], "versions": _versions(src["distributions"])}


def _describe_module(key: str, old, new) -> str:
    where = _WHERE.get(key)
    at = f" ({where})" if where else ""
    if key == "simstudy":
        what = f"the simstudy package{at}"
    elif key == "study file":
        what = f"the study file{' ' + where if where else ''}"
    elif key.startswith("file "):
        what = f"{key[5:]}{at}"
    elif key.startswith("code "):
        what = f"function {key[5:]}"
    elif key.startswith("simstudy.studies."):
        what = f"built-in study module {key}{at}"
    else:
        what = f"module {key}{at}"
    if old is None:
        return f"code: {what} is now imported"
    if new is None:
        return f"code: {what} is no longer imported"
    return f"code: {what} changed"


def provenance_changes(old: dict | None, new: dict) -> list[str]:
    """What differs between two provenance records, one item per module or distribution.

    For example ``["code: module mylib (/home/me/mylib.py) changed", "numpy 1.26.4 -> 2.0.0"]``.
    A record written before modules were recorded one by one can only say
    that the code differs.
    """
    if not old:
        return ["code fingerprint and versions (not recorded: written by an older simstudy)"]
    out = []
    if old.get("code") != new.get("code"):
        om, nm = old.get("modules"), new.get("modules")
        if not isinstance(om, dict) or not isinstance(nm, dict):
            out.append("code fingerprint (recorded by an older simstudy, which did not name the modules)")
        else:
            out += [
                _describe_module(k, om.get(k), nm.get(k))
                for k in sorted(set(om) | set(nm), key=_module_order)
                if om.get(k) != nm.get(k)
            ] or ["code"]
    ov, nv = old.get("versions") or {}, new.get("versions") or {}
    out += [
        f"{k} {ov.get(k, 'absent')} -> {nv.get(k, 'absent')}"
        for k in sorted(set(ov) | set(nv))
        if ov.get(k) != nv.get(k)
    ]
    return out


def _module_order(key: str):
    """The study's own code first, then other modules, the simstudy package last."""
    return (key == "simstudy", key != "study file", key)


def _check_int(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name}: must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_jobs(jobs, local: bool) -> int:
    """``--jobs`` must be >= 1 and, for workers on this machine, at most MAX_JOBS_PER_CPU per CPU."""
    jobs = _check_int(jobs, "--jobs", 1)
    cap = MAX_JOBS_PER_CPU * (os.cpu_count() or 1)
    if local and jobs > cap:
        raise ValueError(
            f"--jobs: at most {cap} workers on this machine ({MAX_JOBS_PER_CPU} per CPU, "
            f"{os.cpu_count()} CPUs), got {jobs}"
        )
    return jobs


# Run in each loky worker as it starts (see _die_with_parent).  Source code run by the builtin
# ``exec``, so that the worker need not import simstudy (numpy, pandas, ...) before it is protected.
_DIE_WITH_PARENT = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops its workers (see _die_with_parent)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if hasattr(signal, "pthread_sigmask"):  # held by the parent while it started this worker (see _signals_held)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])
parent = {parent}
armed = False
if sys.platform.startswith("linux"):
    try:
        import ctypes
        armed = ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0) == 0  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        armed = False
if os.getppid() != parent:  # the parent is already gone
    os._exit(1)
if not armed:
    import threading, time

    def _watch_parent():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=_watch_parent, name="simstudy-parent-watch", daemon=True).start()
"""


def _die_with_parent(parent: int | None = None):
    """A loky worker initializer: the worker ends when the process running the study ends, however it ends.

    On Linux the kernel sends the worker SIGKILL when its parent dies
    (``prctl(PR_SET_PDEATHSIG)``); elsewhere a daemon thread polls the parent
    pid once a second.  A worker whose parent is already gone exits at once.

    The worker ignores SIGINT and SIGTERM: Ctrl-C in a terminal, or a kill of
    the whole process group (a batch system, a service manager), reaches the
    workers too, and a worker that died of it before the parent had handled
    its own signal would turn the orderly stop into a broken pool.  The parent
    stops its workers (see :func:`stop_workers`), or they die with it.  Until
    this code runs (the worker's interpreter starts, a few hundred
    milliseconds) the two signals are held: the parent starts its workers
    with them blocked (:func:`_signals_held`), and one that arrived meanwhile
    is discarded when the worker ignores it.

    Returns
    -------
    initializer, initargs
        The builtin ``exec`` and its arguments (the code and a fresh namespace):
        unpickling them in the worker imports nothing, so the protection is in
        place within a fraction of a second of the worker's start.
    """
    parent = os.getpid() if parent is None else int(parent)
    return exec, (_DIE_WITH_PARENT.format(parent=parent), {})


def _connect(scheduler: str, timeout: float = CONNECT_TIMEOUT):
    """A dask client of ``scheduler``, or ValueError on one line (nothing written yet)."""
    import logging

    try:
        from dask.distributed import Client
    except ImportError:  # pragma: no cover - depends on the extra
        raise ValueError("--backend dask: needs the distributed extra (pip install 'simstudy[distributed]')") from None
    loggers = [
        logging.getLogger(n) for n in ("distributed", "distributed.client", "distributed.core", "distributed.comm")
    ]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        return Client(scheduler, timeout=timeout)
    except Exception as exc:  # OSError, TimeoutError, ValueError for a malformed address, ...
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(
            f"--scheduler: cannot reach the dask scheduler at {scheduler} within {timeout:g} s ({msg})"
        ) from None
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def plan_run(study: Study, profile: str, seed: int, *, adaptive: dict | None = None, counts: dict | None = None):
    """Conditions, chunk plan, configuration and its hash; validates everything, writes nothing.

    ``adaptive`` (an :class:`~simstudy.engine.adaptive.AdaptiveRule` as a dict)
    makes the run adaptive: it enters the configuration (and its hash), and
    ``counts`` (condition -> replications planned so far, not hashed) replaces
    each condition's count; a condition without one starts with the rule's
    first stage.
    """
    prof = study.profile(profile)
    conds = study.conditions_for(prof)
    plan = []
    for c in conds:
        key = condition_key(c)
        n = n_replications_of(c, prof)
        if adaptive is not None:
            # a condition with its own count (a bootstrap of fixed size) keeps it; the others start small
            own = getattr(c, "n_replications", None)
            first = own if own is not None else min(adaptive.get("first", n), adaptive["max_replications"])
            n = (counts or {}).get(key, first)
        for start in range(0, n, study.chunk_size):
            plan.append({"condition": key, "start": start, "stop": min(n, start + study.chunk_size)})
    config = {
        "study": study.name,
        "profile": prof.name,
        "n_replications": prof.n_replications,
        "settings": json.loads(json.dumps(prof.settings, sort_keys=True, default=str)),
        "conditions": [repr(c) for c in conds],
        "root_seed": seed,
        "chunk_size": study.chunk_size,
    }
    if adaptive is not None:
        config["adaptive"] = dict(adaptive)
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()
    return conds, plan, config, digest


def _frame(rows, identity: dict, table: str) -> pd.DataFrame:
    df = rows.copy() if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    clash = [c for c in IDENTITY if c in df.columns]
    if clash:
        raise ValueError(f"table {table!r}: rows may not set the identity column(s) {clash}")
    for col in reversed(list(identity)):
        if col not in df.columns:
            df.insert(0, col, identity[col])
    return df


def run_replication(study: Study, condition, replication: int, root_seed: int, state=None):
    """One replication's tables (raises whatever the study raises)."""
    key = condition_key(condition)
    seed = replication_seed(root_seed, study.name, key, replication)
    rng = np.random.default_rng(seed)
    result = study.replicate(condition, rng, state) if study.setup is not None else study.replicate(condition, rng)
    if not isinstance(result, dict):
        raise TypeError(f"study {study.name!r}: replicate must return a dict of tables, got {type(result).__name__}")
    identity = {
        "study": study.name,
        "condition": key,
        **condition_fields(condition),
        "replication": replication,
        "seed": seed,
    }
    return {name: _frame(rows, identity, name) for name, rows in result.items()}, seed, identity


def _setup_state(study: Study, condition, root_seed: int):
    if study.setup is None:
        return None
    return study.setup(condition, np.random.default_rng(setup_seed(root_seed, study.name, condition_key(condition))))


def _run_chunk(study: Study, condition, start: int, stop: int, root_seed: int):
    """Worker: the rows of replications start..stop-1 of one condition; failures become rows."""
    t0 = time.perf_counter()
    key = condition_key(condition)
    parts: dict[str, list[pd.DataFrame]] = {}
    failures = []
    try:
        state = _setup_state(study, condition, root_seed)
        setup_error = None
    except Exception as exc:  # every replication of the chunk fails with the set-up's error
        state, setup_error = None, exc
    for r in range(start, stop):
        seed = replication_seed(root_seed, study.name, key, r)
        try:
            if setup_error is not None:
                raise setup_error
            tables, _, _ = run_replication(study, condition, r, root_seed, state)
        except Exception as exc:
            failures.append(
                {
                    "study": study.name,
                    "condition": key,
                    **condition_fields(condition),
                    "replication": r,
                    "seed": seed,
                    "error": f"{type(exc).__name__}: {exc}",
                    "traceback": "".join(traceback.format_exception(exc))[-4000:],
                }
            )
            continue
        for name, df in tables.items():
            parts.setdefault(name, []).append(df)
    out = {name: pd.concat(dfs, ignore_index=True) for name, dfs in parts.items()}
    if failures:
        out["failures"] = pd.DataFrame(failures)
    return key, start, stop, out, time.perf_counter() - t0, len(failures)


def _executor(jobs: int, backend: str, client=None):
    """A context manager yielding a function that maps chunk tasks to an unordered result iterator.

    ``client``: a dask client already connected to a scheduler (else dask
    starts a local cluster).  Loky workers die with this process
    (:func:`_die_with_parent`).
    """
    import contextlib

    from joblib import Parallel, delayed, parallel_config

    @contextlib.contextmanager
    def ctx():
        if backend == "dask":
            cluster = None
            own = client
            if own is None:
                try:
                    from dask.distributed import Client, LocalCluster
                except ImportError:  # pragma: no cover - depends on the extra
                    raise ValueError(
                        "--backend dask: needs the distributed extra (pip install 'simstudy[distributed]')"
                    ) from None
                cluster = LocalCluster(
                    n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
                )
                own = Client(cluster)
            own.register_plugin(native_threads_plugin(), name=NATIVE_THREADS_PLUGIN)
            try:
                with parallel_config(backend="dask"):
                    yield lambda tasks: Parallel(n_jobs=-1, return_as="generator_unordered")(
                        delayed(_run_chunk)(*t) for t in tasks
                    )
            finally:
                if cluster is not None:
                    own.close()
                    cluster.close()
        elif jobs == 1:
            with one_thread_per_kernel():
                yield lambda tasks: (_run_chunk(*t) for t in tasks)
        else:
            initializer, initargs = _die_with_parent()
            with parallel_config(backend="loky", n_jobs=jobs, initializer=initializer, initargs=initargs):
                with _closing() as keep:

                    def start(tasks):
                        _start_resource_trackers()  # before holding: starting one releases the signals
                        with _signals_held():  # the workers and loky's threads start with them held
                            return keep(
                                Parallel(n_jobs=jobs, return_as="generator_unordered")(
                                    delayed(_run_chunk)(*t) for t in tasks
                                )
                            )

                    yield start

    return ctx()


def _start_resource_trackers() -> None:
    """Start the resource tracker processes of multiprocessing and loky now, quiet, if they are not running.

    Python's own tracker (up to 3.11 at least) unblocks SIGINT and SIGTERM in
    the thread that starts it, whatever that thread had blocked; started here,
    before :func:`_signals_held`, it cannot undo the holding while loky starts
    its workers.  Their standard error is the null device: after a stop that
    could not wait for the workers (a second signal), a tracker removes what
    they left and would say so in several lines of warnings, which are not
    the user's business (the command's own line says what happened).
    """
    started = []
    for name in ("multiprocessing.resource_tracker", "joblib.externals.loky.backend.resource_tracker"):
        try:
            module = __import__(name, fromlist=["ensure_running"])
        except ImportError:  # pragma: no cover - a platform without one
            continue
        tracker = getattr(module, "_resource_tracker", None)
        if getattr(tracker, "_fd", None) is None:
            started.append(module)
    if not started:
        return
    _flush_std()
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)  # inherited by the trackers only: nothing else writes during the start
        for module in started:
            try:
                module.ensure_running()
            except Exception:  # pragma: no cover - the workers start unprotected then
                pass
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass


def _signals_held():
    """A context manager holding (blocking) SIGINT and SIGTERM in this thread while it is open.

    A process or thread started meanwhile inherits the held signals: loky's
    workers (and its manager thread, which starts replacements) begin with
    them held, so that Ctrl-C in a terminal or a kill of the process group
    cannot end a worker, or print a KeyboardInterrupt traceback from one,
    before :func:`_die_with_parent` has made it ignore them.  A signal that
    arrives for this process meanwhile stays pending and is handled as soon as
    the context exits.  Nothing is held where ``signal.pthread_sigmask`` is
    missing (Windows).
    """
    import contextlib

    @contextlib.contextmanager
    def ctx():
        if not hasattr(signal, "pthread_sigmask"):
            yield
            return
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT, signal.SIGTERM])
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    return ctx()


# joblib's warning when a generator of results is closed before its end: the tasks it cancelled
_EARLY_EXIT = r"\d+ tasks (have been successfully executed|which were still being processed)"


def _closing():
    """A context manager giving ``keep(generator)``; the kept generators are closed when it exits.

    A run stopped between two results (KeyboardInterrupt while a chunk is
    stored) leaves joblib's generator unfinished; closing it here stops its
    workers at once, in the stopping thread, and without joblib's warning
    about the cancelled tasks (cancelling them is the point of the stop).
    """
    import contextlib
    import warnings

    @contextlib.contextmanager
    def ctx():
        kept = []
        try:
            yield lambda gen: kept.append(gen) or gen
        finally:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=_EARLY_EXIT, category=UserWarning)
                for gen in kept:
                    gen.close()

    return ctx()


def stop_workers(*, kill: bool = False) -> None:
    """End the loky worker processes this process started, and wait until they are gone.

    joblib keeps its loky workers for the next call (and ends them when the
    interpreter exits); the command line ends them when a command is done, so
    that nothing of the command is left once it has returned, and the
    interpreter's own shutdown has no worker left to wait for.  Nothing
    happens when loky was never used.

    Parameters
    ----------
    kill : bool
        An interrupted command kills its workers instead of letting them
        finish their task.

    Notes
    -----
    loky sends a killed worker SIGKILL without waiting for it; each worker is
    waited for here (and killed if it is still alive after a shutdown that an
    interruption left half done), so that none is left as a zombie for the
    process that inherits it when this one has ended.  The resource
    trackers, helper processes that hold no work, stay until the end (see
    :func:`stop_resource_trackers`): stopped earlier they would release
    semaphores this process still holds.
    """
    reusable = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(reusable, "_executor", None)
    if executor is None:
        return
    workers = list((getattr(executor, "_processes", None) or {}).values())
    stop = getattr(executor, "terminate", None) or executor.shutdown  # joblib's also removes its temporary files
    try:
        stop(kill_workers=kill)
    except Exception:  # a pool an interruption left half stopped: its workers are ended below
        kill = True
    for worker in workers:
        _reap(worker, kill)


def stop_resource_trackers(timeout: float = 2.0) -> None:
    """End the resource tracker processes (Python's and loky's) this process started, and wait for them.

    A tracker ends by itself when the process that started it has ended (its
    pipe closes), but then nobody waits for it but the system's first
    process.  The ``simstudy`` program calls this last, when nothing of the
    command is left that a tracker could still be asked to release; each one
    gets ``timeout`` seconds, after which it is left to end by itself.

    A stopped tracker is not started again: a finalizer that still runs
    before the process ends (a semaphore collected while the command's last
    line is written) would otherwise launch a new one, which outlives the
    process and prints a traceback for a name it was never told about.  So
    this is only for a process about to end.
    """
    for name in ("joblib.externals.loky.backend.resource_tracker", "multiprocessing.resource_tracker"):
        tracker = getattr(sys.modules.get(name), "_resource_tracker", None)
        fd, pid = getattr(tracker, "_fd", None), getattr(tracker, "_pid", None)
        if tracker is None or fd is None or pid is None:  # no tracker: fd and pid are None too
            continue
        for method in ("ensure_running", "_ensure_running_and_write", "_send"):  # the module's functions call these
            setattr(tracker, method, _ignore)
        try:
            tracker._fd = None
            os.close(fd)  # the tracker reads until this end closes, then ends
            deadline = time.monotonic() + timeout
            while os.waitpid(pid, os.WNOHANG) == (0, 0) and time.monotonic() < deadline:
                time.sleep(0.005)
        except (OSError, ChildProcessError, AttributeError):  # already gone
            pass


def _ignore(*args, **kwargs) -> None:
    """What a stopped resource tracker does when it is asked to start, register or release: nothing."""


def _reap(worker, kill: bool, timeout: float = 10.0) -> None:
    """Wait for one loky worker process (killed first with ``kill``, or if it outlives ``timeout``)."""
    try:
        if kill and worker.is_alive():
            worker.kill()
        worker.join(timeout)
        if worker.is_alive():
            worker.kill()
            worker.join(timeout)
    except (OSError, ValueError, AssertionError):  # already reaped, closed, or never started
        pass


def run_study(
    study,
    profile: str = "quick",
    *,
    out=None,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    seed: int = DEFAULT_SEED,
    progress: bool = True,
    fresh: bool = False,
    target_mcse: float | None = None,
    max_replications: int | None = None,
    step: int | None = None,
) -> RunData:
    """Run (or resume) ``study`` at ``profile`` and return its stored rows.

    Everything is validated, and a dask scheduler reached, before anything is
    written.  Then the run directory is locked (one writer at a time: a second
    run into it is refused with :class:`~simstudy.engine.store.RunLocked`).  An
    existing run directory is resumed when it holds the same configuration and
    was produced by the same code and package versions (see :func:`provenance`):
    its verified chunks are kept; missing, damaged or foreign chunks (whose
    recorded identity is not this run's) are recomputed.  Otherwise the run is
    refused with :class:`~simstudy.engine.store.ConfigMismatch` naming what
    differs, unless ``fresh``: then the existing directory is renamed to
    ``OUT.replaced-STAMP`` (never deleted) and the run starts afresh.  A rerun
    of a complete run with changed code computes nothing and is allowed.

    Failures to write (read-only directory, full disk) raise
    :class:`~simstudy.engine.store.StoreError` with one line; what was stored
    before stays valid and the same command resumes.

    With ``target_mcse`` the run is adaptive (see :mod:`simstudy.engine.adaptive`):
    each condition starts with the profile's replications and grows by as many
    again until the Monte Carlo standard error of every target is at most
    ``target_mcse``, or it reaches ``max_replications`` (default ten times the
    profile's); ``step`` replaces the profile's count as the size of the first
    stage and of every later one.  A condition with its own count (a bootstrap
    of fixed size) and no targets keeps its count.  The rule is part of the configuration; the replications used and
    the MCSE reached per condition are recorded in the manifest (``adaptive``).
    """
    study = get_study(study)
    if backend not in BACKENDS:
        raise ValueError(f"--backend: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler and backend != "dask":
        raise ValueError("--scheduler: only meaningful with --backend dask")
    jobs = _check_jobs(jobs, local=not scheduler)
    seed = _check_int(seed, "--seed", 0)
    rule = None
    if target_mcse is not None or max_replications is not None:
        from simstudy.engine.adaptive import AdaptiveRule

        if target_mcse is None:
            raise ValueError("--max-replications: only meaningful with --target-mcse")
        n0 = study.profile(profile).n_replications
        cap = max_replications if max_replications is not None else 10 * n0
        if step is not None:
            if isinstance(step, bool) or not isinstance(step, numbers.Integral) or step < 1:
                raise ValueError(f"--step: must be a positive integer, got {step!r}")
            n0 = step
        rule = AdaptiveRule(target_mcse, cap, min(n0, cap) if isinstance(cap, numbers.Integral) else n0, n0)
    elif step is not None:
        raise ValueError("--step: only meaningful with --target-mcse")
    conds, plan, config, digest = plan_run(
        study, profile, seed, adaptive=rule.as_config() if rule is not None else None
    )
    path = Path(out) if out is not None else default_out(study.name, profile)
    store = RunStore(path)
    store.check_target()
    if backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise ValueError(
                "--backend dask: needs the distributed extra (pip install 'simstudy[distributed]')"
            ) from None
    prov = provenance(study)
    client = _connect(scheduler) if scheduler else None
    try:
        lock = RunLock(path)
        try:
            lock.acquire(command=" ".join(sys.argv))
        except OSError as exc:
            raise os_error(exc, path) from None
        try:
            if fresh:
                try:
                    moved = store.move_aside()
                except OSError as exc:
                    raise os_error(exc, path) from None
                if moved is not None:
                    print(f"simstudy: moved the earlier run in {path} to {moved}", file=sys.stderr)
                    lock.release()  # the lock moved with it; lock the new directory
                    lock = RunLock(path)
                    lock.acquire(command=" ".join(sys.argv))
            if rule is not None:
                return _run_adaptive(
                    study,
                    profile,
                    store,
                    rule,
                    seed,
                    prov,
                    jobs=jobs,
                    backend=backend,
                    client=client,
                    progress=progress,
                )
            return _run_locked(
                study,
                profile,
                store,
                conds,
                plan,
                config,
                digest,
                seed,
                prov,
                jobs=jobs,
                backend=backend,
                client=client,
                progress=progress,
            )
        except OSError as exc:
            raise os_error(exc, path) from None
        finally:
            lock.release()
    finally:
        if client is not None:
            client.close()


def _run_adaptive(study, profile, store, rule, seed, prov, *, jobs, backend, client, progress) -> RunData:
    """Stages of :func:`_run_locked`, each condition grown until its targets are precise enough.

    Every stage starts from the first: on a resumed run the stored stages are
    re-read (nothing is recomputed) and decided again from the same rows, so the
    run stops where an uninterrupted one would.
    """
    from simstudy.engine.adaptive import stage_decisions

    counts = None
    while True:
        conds, plan, config, digest = plan_run(study, profile, seed, adaptive=rule.as_config(), counts=counts)
        if counts is None:
            counts = {c["condition"]: 0 for c in plan}
            for c in plan:
                counts[c["condition"]] = max(counts[c["condition"]], c["stop"])
        data = _run_locked(
            study,
            profile,
            store,
            conds,
            plan,
            config,
            digest,
            seed,
            prov,
            jobs=jobs,
            backend=backend,
            client=client,
            progress=progress,
            extra={"counts": dict(counts)},
        )
        if not data.complete:
            return data
        state = stage_decisions(study, data, counts, rule)
        grow = {
            k: min(rule.max_replications, counts[k] + rule.step)
            for k, s in state.items()
            if not s["converged"] and counts[k] < rule.max_replications
        }
        # the decision of this stage, for `simstudy status` while the next one runs, and the final record
        data.manifest["adaptive"] = {
            "rule": rule.describe(),
            **rule.as_config(),
            "finished": not grow,
            "conditions": state,
        }
        store.write_manifest(data.manifest, fsync=True)
        if not grow:
            return data
        counts.update(grow)


def _run_locked(
    study, profile, store, conds, plan, config, digest, seed, prov, *, jobs, backend, client, progress, extra=None
) -> RunData:
    """The body of :func:`run_study`, with the run directory locked."""
    path = store.path
    old = store.read_manifest()
    store.check_compatible(digest, config)
    store.clean_temporary()
    versions = _versions()
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    old = old or {}
    # The provenance every chunk of this directory must carry: the first run's.
    run_prov = old.get("provenance") if old else prov
    manifest = {
        "study": study.name,
        "title": study.title,
        "profile": profile,
        "config": config,
        "config_hash": digest,
        "root_seed": seed,
        "n_replications": config["n_replications"],
        "plan": plan,
        "conditions": [condition_key(c) for c in conds],
        "versions": old.get("versions", versions),
        "provenance": run_prov,
        "created": old.get("created", now),
        "chunks": old.get("chunks", {}),
        "runs": old.get("runs", []),
        "status": old.get("status", "running"),
        **(extra or {}),
    }
    if "adaptive" in old and "adaptive" not in manifest:  # a finished adaptive run re-read: keep its record
        manifest["adaptive"] = old["adaptive"]
    by_key = {condition_key(c): c for c in conds}
    todo, done = [], set()  # done: chunks verified or written in this call (no second hashing pass)
    discarded: dict[str, int] = {}
    for c in plan:
        state = store.chunk_state(
            c["condition"],
            c["start"],
            c["stop"],
            chunk_identity(manifest, c["condition"], c["start"], c["stop"]),
            run_prov,
        )
        if state == "ok":
            done.add((c["condition"], c["start"]))
            continue
        if state != "missing":
            discarded[state] = discarded.get(state, 0) + 1
        todo.append(c)
    changes = provenance_changes(run_prov, prov)
    if changes and not done and not discarded:  # nothing stored: nothing to mix, start with this code
        run_prov = prov
        changes = []
    if changes and todo:
        raise ConfigMismatch(
            f"--out: {path} holds rows computed by other code or package versions (changed: "
            f"{', '.join(changes)}); resuming would mix them: use --fresh to move that run aside and "
            "start again, or another --out"
        )
    manifest["provenance"] = run_prov
    for c in todo:
        store.discard_chunk(c["condition"], c["start"], c["stop"])
        manifest["chunks"].pop(manifest_chunk_key(c["condition"], c["start"], c["stop"]), None)
    total = sum(c["stop"] - c["start"] for c in plan)
    pending = sum(c["stop"] - c["start"] for c in todo)
    run_info = {
        "started": now,
        "jobs": jobs,
        "backend": backend,
        "chunks_computed": 0,
        "replications_computed": 0,
        "chunks_discarded": discarded,
        "host": platform.node(),
        "pid": os.getpid(),
        "python": sys.version.split()[0],
        "versions": versions,
        "code": prov["code"],
        "study_file": str(study_file(study) or ""),
    }
    manifest["runs"].append(run_info)
    manifest["status"] = "running"
    store.write_manifest(manifest)
    t0 = time.perf_counter()

    from tqdm.auto import tqdm

    bar = tqdm(
        total=total,
        initial=total - pending,
        unit="rep",
        desc=f"{study.name}/{profile}",
        disable=not progress,
        dynamic_ncols=True,
        file=sys.stderr,
        mininterval=0.5 if sys.stderr.isatty() else 15.0,
    )  # a log file gets a line every 15 s
    tasks = [(study, by_key[c["condition"]], c["start"], c["stop"], seed) for c in todo]
    n_fail = 0
    last_manifest = time.perf_counter()
    ok = False
    try:
        if tasks:
            with _executor(jobs, backend, client) as run_all:
                for key, start, stop, tables, seconds, failed in run_all(tasks):
                    meta = store.write_chunk(
                        key,
                        start,
                        stop,
                        tables,
                        {"seconds": round(seconds, 4), "failures": failed},
                        identity=chunk_identity(manifest, key, start, stop),
                        provenance=prov,
                    )
                    manifest["chunks"][manifest_chunk_key(key, start, stop)] = {
                        "files": meta["files"],
                        "seconds": meta["seconds"],
                        "failures": failed,
                    }
                    run_info["chunks_computed"] += 1
                    run_info["replications_computed"] += stop - start
                    run_info["seconds"] = round(time.perf_counter() - t0, 3)
                    n_fail += failed
                    done.add((key, start))
                    # The chunk directories are the record of what is done; the manifest's copy of their
                    # checksums is refreshed at most once a second, and always at the end.
                    if time.perf_counter() - last_manifest > 1.0:
                        store.write_manifest(manifest)
                        last_manifest = time.perf_counter()
                    bar.update(stop - start)
                    if failed:
                        bar.set_postfix(failures=n_fail)
        ok = True
    finally:
        bar.close()
        run_info["seconds"] = round(time.perf_counter() - t0, 3)
        run_info["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        manifest["status"] = "complete" if len(done) == len(plan) else "incomplete"
        try:
            store.write_manifest(manifest, fsync=True)
        except OSError:
            if ok:
                raise
            # already failing (e.g. the disk is full): keep that error; the chunks are the record
    data = RunData(path, manifest)
    data._cache["_ok"] = [c for c in plan if (c["condition"], c["start"]) in done]
    return data


def replay(study, condition: str, replication: int, *, profile: str = "quick", seed: int = DEFAULT_SEED):
    """Re-run one replication in this process, exceptions and all (for debugging a failure row)."""
    study = get_study(study)
    prof = study.profile(profile)
    conds = {condition_key(c): c for c in study.conditions_for(prof)}
    if condition not in conds:
        raise ValueError(
            f"--condition: {condition!r} is not a condition of {study.name}/{profile}; choose one of {', '.join(conds)}"
        )
    cond = conds[condition]
    n = n_replications_of(cond, prof)
    if isinstance(replication, numbers.Integral) and not isinstance(replication, bool) and not 0 <= replication < n:
        raise ValueError(
            f"--replication: {replication} is out of range; condition {condition} of "
            f"{study.name}/{profile} has replications 0 to {n - 1}"
        )
    replication = _check_int(replication, "--replication", 0)
    tables, _, _ = run_replication(study, cond, replication, seed, _setup_state(study, cond, seed))
    return tables
