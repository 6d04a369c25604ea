"""The fingerprint of the code that makes a study's rows, and the versions it runs with.

A stored chunk records its provenance: a digest of the code that made its rows,
module by module, and the versions of the distributions that code uses.  This
module decides what that code is (:func:`code_sources`) and how two records
differ (:func:`provenance_changes`); the runner compares them before it resumes
a run and for every chunk a worker returns.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import marshal
import os
import platform
import re
import sys
import types
from importlib import metadata
from pathlib import Path

from simstudy import _codeload
from simstudy.engine.study import Study
from simstudy.errors import InputError

__all__ = [
    "provenance",
    "provenance_changes",
    "code_fingerprint",
    "code_sources",
    "study_file",
    "NUMERIC_PACKAGES",
    "NON_NUMERIC_PACKAGES",
]

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
    "scikit-learn-intelex",
    "daal",
)


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
def _layout() -> tuple[Path, tuple[Path, ...]]:
    """The simstudy package's directory and the built-in studies' directories (as the import system has them)."""
    import importlib.util

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.find_spec("simstudy.studies")  # where the built-in studies are, without importing them
    studies = tuple(Path(p).resolve() for p in (spec.submodule_search_locations or ())) if spec else ()
    return root, studies


def _under(path: Path, dirs) -> bool:
    return any(path == d or d in path.parents for d in dirs)


def _kind(path) -> str:
    """``studies``, ``simstudy``, ``installed``, ``stdlib`` or ``user``: where a module file comes from.

    Decided by the file, never by a module's name or the words of its path:
    the built-in studies' and the package's own directories as the import
    system found them, then :func:`simstudy._codeload.origin_kind` (a file an
    installed distribution's ``RECORD`` lists, a file of the interpreter's
    standard library, or source whose bytes are hashed: the user's, or a
    distribution installed from a local folder).
    """
    root, studies = _layout()
    p = Path(path).resolve()
    if _under(p, studies):
        return "studies"
    if _under(p, (root,)):
        return "simstudy"
    kind = _codeload.origin_kind(str(p))
    return "user" if kind == "source" else kind


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
    if spec.origin in ("built-in", "frozen"):
        return "stdlib"
    if spec.has_location and spec.origin and spec.origin not in ("built-in", "frozen"):
        return _kind(spec.origin)
    locations = list(spec.submodule_search_locations or [])
    if locations:
        return _kind(locations[0])
    if spec.loader is None:
        return None
    # a module no file holds, made by the loader of an import hook: whose code it is follows from where the
    # loader's class is defined (the user's hook; a distribution's shim, such as setuptools' for distutils,
    # counts as that distribution; the interpreter's own machinery as the standard library)
    owner = sys.modules.get(getattr(type(spec.loader), "__module__", "") or "")
    where = getattr(owner, "__file__", None)
    return _kind(where) if where else "stdlib"


def _loader_code(name: str) -> tuple[str, bytes, bool]:
    """``(label, bytes, is_source)`` of a module that no regular file holds, from its loader: a zip archive's
    member, a module an import hook of the user's makes.

    The loader's source (``get_source``) when it gives one, else its compiled code
    (``get_code``, marshalled); a module whose loader gives neither is refused, never
    left out of the fingerprint.
    """
    spec = _find_spec(name)
    loader = getattr(spec, "loader", None)
    where = getattr(loader, "archive", None) or getattr(spec, "origin", None) or type(loader).__name__
    for method in ("get_source", "get_code"):
        get = getattr(loader, method, None)
        if get is None:
            continue
        try:
            got = get(name)
        except Exception:  # the loader cannot give it this way (ImportError, OSError, ...)
            continue
        if isinstance(got, str):
            return f"{where} (source of {name})", got.encode(), True
        if got is not None:
            return f"{where} (code of {name})", marshal.dumps(got), False
    raise InputError(
        f"module {name} (loaded by {type(loader).__name__} from {where}) gives neither its source nor its compiled "
        "code, so the rows it makes cannot be tied to its code; import it from a .py file or a zip archive instead"
    )


def _is_namespace(name: str) -> bool:
    """Whether module ``name`` is a namespace package (directories only, no code of its own)."""
    spec = _find_spec(name)
    return spec is not None and spec.origin in (None, "namespace") and bool(spec.submodule_search_locations)


def _bytecode_imports(data: bytes, package: str | None) -> set[str]:
    """The modules a sourceless ``.pyc`` file imports (see :func:`_code_imports`)."""
    try:
        code = marshal.loads(data[16:])  # after the header: magic, flags, and the source's date and size or hash
    except (ValueError, EOFError, TypeError):
        return set()
    return _code_imports(code, package)


def _code_imports(code, package: str | None) -> set[str]:
    """The modules compiled code imports, read from its instructions (every nested function too)."""
    import dis

    names, todo = set(), [code]
    while todo:
        c = todo.pop()
        todo += [k for k in c.co_consts if hasattr(k, "co_code")]
        consts = []
        for ins in dis.get_instructions(c):
            if ins.opname == "LOAD_CONST":
                consts.append(ins.argval)
            elif ins.opname == "IMPORT_NAME":
                level = consts[-2] if len(consts) >= 2 and isinstance(consts[-2], int) else 0
                names.add(_absolute(ins.argval or None, level, package))
                if len(consts) >= 1 and isinstance(consts[-1], tuple):  # from X import a, b: a and b may be modules
                    base = _absolute(ins.argval or None, level, package)
                    names.update(f"{base}.{a}" for a in consts[-1] if base and a != "*")
    return _valid(names)


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


_PACKAGE: dict = {}  # the last _package_files() result, by the _codeload generation it was read at
_TOPS: dict = {}  # SHA-256 of a source -> the top-level modules it imports


def _package_files() -> tuple[Path, dict, frozenset]:
    """The simstudy package's directory, ``{relative path: SHA-256}`` of its ``.py`` files, the modules they import.

    The built-in studies are left out (each is covered on its own, with what
    it imports, see :func:`code_sources`).  A module this process has loaded
    counts with the bytes it was compiled from (:mod:`simstudy._codeload`),
    any other with the file on disk; read again only after this process has
    loaded another module.
    """
    gen = _codeload.generation()
    if _PACKAGE.get("generation") == gen:
        return _PACKAGE["value"]
    root, studies = _layout()
    files, tops = {}, set()
    for f in sorted(root.rglob("*.py")):
        if "__pycache__" in f.parts or _under(f.resolve(), studies):
            continue
        digest, data = _codeload.source_digest(f)
        files[f.relative_to(root).as_posix()] = digest
        if digest not in _TOPS:
            _TOPS[digest] = frozenset(_scan_imports(data, None, tops_only=True))
        tops.update(_TOPS[digest])
    value = (root, files, frozenset(tops))
    _PACKAGE.update(generation=gen, value=value)
    return value


def _package_digest() -> tuple[Path, bytes, frozenset]:
    """The simstudy package's directory, the digest of its ``.py`` sources, the top-level modules they import."""
    root, files, tops = _package_files()
    h = hashlib.sha256()
    for rel, digest in files.items():
        h.update(rel.encode() + b"\0" + digest.encode() + b"\0")
    return root, h.digest(), tops


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

    The distribution whose ``RECORD`` lists the file the module is found at;
    for a module without one file (a namespace package), the distributions
    simstudy knows by name, a distribution named after the module (checked
    against its ``top_level.txt`` or ``RECORD``), then every distribution
    installed beside the module.
    """
    spec = _find_spec(top)
    origin = spec.origin if spec is not None and spec.has_location else None
    if origin and Path(origin).is_file():
        owner = _codeload.distribution_of_file(origin)
        if owner is not None:
            return _normalise(owner[0])

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
    # and "path/to/file.py:NAME" ones: a learner loaded in a worker process only is covered by its file
    todo += sorted(
        {
            ("", str(Path(m.group(1)).resolve()))
            for s in strings
            if (m := re.fullmatch(r"(.+\.py):[A-Za-z_][\w.]*", s)) and Path(m.group(1)).is_file()
        }
    )
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
        elif kind in ("user", "studies") and not _is_namespace(name):
            # no regular file holds it (a zip archive's member, an import hook's module): hashed from its loader
            label, data, is_source = _loader_code(name)
            digest = hashlib.sha256(data).hexdigest()
            key = name
            while key in keys:
                key += "+"
            keys.add(key)
            files[label] = [key, None, digest]
            spec = _find_spec(name)
            package = name if getattr(spec, "submodule_search_locations", None) else name.rpartition(".")[0]
            todo += [(".".join(name.split(".")[:i]), "") for i in range(1, name.count(".") + 1)]
            if is_source:
                todo += [(n, "") for n in sorted(_imports_of(data, digest, package))]
            else:
                todo += [(n, "") for n in sorted(_code_imports(marshal.loads(data), package))]
            continue
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
        digest, data = _codeload.source_digest(path)  # what this process ran from the file, else the file
        files[path][2] = digest
        if path.endswith(".py"):
            todo += [(n, "") for n in sorted(_imports_of(data, digest, package))]
        elif path.endswith(".pyc"):  # a module found as bytecode alone: the imports its code makes
            todo += [(n, "") for n in sorted(_bytecode_imports(data, package))]

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


def git_commit(tree: Path) -> str | None:
    """The commit checked out in ``tree`` (read from its ``.git`` files, no process started), or None.

    ``tree/.git`` is the repository, or, in a linked worktree (``git worktree add``),
    a file naming the worktree's own directory (``gitdir: PATH``), whose
    ``commondir`` names the repository that holds the branches.
    """
    git = tree / ".git"
    try:
        if git.is_file():
            line = git.read_text().strip()
            if not line.startswith("gitdir: "):
                return None
            git = (tree / line[len("gitdir: ") :]).resolve()
        common = git
        if (git / "commondir").is_file():
            common = (git / (git / "commondir").read_text().strip()).resolve()
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head[:12] or None
        ref = head[5:]
        for where in dict.fromkeys((git, common)):
            if (where / ref).is_file():
                return (where / ref).read_text().strip()[:12] or None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text().splitlines():
                if line.endswith(" " + ref):
                    return line.split()[0][:12]
    except OSError:
        pass
    return None


#: The parts of a checkout that make up the installed package (studies/ is simstudy.studies).
_PACKAGE_PARTS = ("simstudy", "studies", "pyproject.toml")


def tree_modified(tree: Path) -> bool | None:
    """Whether the package's files in the checkout ``tree`` differ from its commit (edited, added or removed
    files under :data:`_PACKAGE_PARTS`); None when git cannot tell (no git program, not a checkout)."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=normal", "--", *_PACKAGE_PARTS],
            capture_output=True,
            text=True,
            timeout=30,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},  # reading the status must not lock the index
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return bool(done.stdout.strip()) if done.returncode == 0 else None


def source_commit() -> str | None:
    """The commit checked out in the source tree simstudy runs from (None outside a git checkout), with
    ``" with uncommitted changes"`` when the package's files there differ from it: the code that ran is then
    not that commit's, and the record says so."""
    tree = Path(__file__).resolve().parents[2]
    commit = git_commit(tree)
    if commit is not None and tree_modified(tree):
        commit += " with uncommitted changes"
    return commit


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
