"""The code a process runs is the code it fingerprints: source modules loaded from the bytes that are hashed.

Python runs a module from its cached bytecode (``__pycache__/*.pyc``) whenever
the size and the whole-second modification time recorded in it match the
source file's.  An edit that keeps both (``cp -p``, ``tar x``, ``rsync -t``, a
scripted edit of equal length within the same second) leaves the old code
running while the file on disk, which a fingerprint reads, says otherwise.

:func:`install` puts a finder at the front of :data:`sys.meta_path` that gives
every module loaded from a Python source file *outside installed
distributions and the standard library* a loader (:class:`HashedSourceLoader`)
that reads the source once, records the SHA-256 of exactly those bytes
(:func:`loaded_digest`), and runs code compiled from them: cached bytecode is
used only when it is a checked hash-based ``.pyc`` (PEP 552) made from the
same bytes, and bytecode it writes is of that kind.  Which files those are is
decided by the file a module is loaded from, never by its name or the words
in its path (:func:`origin_kind`): a file listed in the ``RECORD`` of a
distribution installed from an index is installed code; a file of the
interpreter's standard library (outside its site directories) is the
standard library; everything else (the user's modules, a study file, this
package in a checkout, a distribution installed from a local folder, editable
or not) is source whose bytes are hashed.

Standard library only: this module is imported first, by ``simstudy`` itself.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import json
import marshal
import os
import site
import sys
import sysconfig
import threading

__all__ = [
    "install",
    "file_spec",
    "loaded_sources",
    "HashedSourceLoader",
    "loaded_digest",
    "loaded_source",
    "source_digest",
    "origin_kind",
    "distribution_of_file",
    "stale_modules",
    "generation",
]

_HASH_CHECKED = 0b11  # PEP 552 flags: hash-based, check the source


class _Record:
    __slots__ = ("digest", "stat", "source")

    def __init__(self, digest: str, stat: tuple, source: bytes):
        self.digest, self.stat, self.source = digest, stat, source


_LOADED: dict[str, _Record] = {}  # real path of a source file -> what this process compiled from it
_LOCK = threading.Lock()
_GENERATION = [0]  # bumped whenever a module is loaded through HashedSourceLoader


def _stat_key(st: os.stat_result) -> tuple:
    """What changes with the file: ctime cannot be set back by ``cp -p``, ``touch -r`` or ``tar x``."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _real(path) -> str:
    return os.path.realpath(os.fspath(path))


@functools.lru_cache(maxsize=16)
def _entries(path: tuple) -> tuple[str, ...]:
    """The folders of :data:`sys.path` ``path``, each as given and as its real path, with a final separator.

    Looked up once per value of :data:`sys.path`: the entries are few, the files
    that are looked up in them many.
    """
    out = []
    for entry in path:
        if entry and isinstance(entry, str) and os.path.isdir(entry):
            out += [os.path.abspath(entry), os.path.realpath(entry)]
    return tuple(dict.fromkeys(d.rstrip(os.sep) + os.sep for d in out))


class HashedSourceLoader(importlib.machinery.SourceFileLoader):
    """A source loader whose module is compiled from the bytes it hashed (see the module's docstring)."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        st = os.stat(path)  # before reading: a change after this shows as a changed stat later
        source = self.get_data(path)
        digest = hashlib.sha256(source).hexdigest()
        with _LOCK:
            _LOADED[_real(path)] = _Record(digest, _stat_key(st), source)
            _GENERATION[0] += 1
        source_hash = importlib.util.source_hash(source)
        try:
            cached = importlib.util.cache_from_source(path)
        except (NotImplementedError, ValueError):
            cached = None
        if cached is not None:
            try:
                data = self.get_data(cached)
            except OSError:
                data = b""
            if (
                len(data) > 16
                and data[:4] == importlib.util.MAGIC_NUMBER
                and int.from_bytes(data[4:8], "little") == _HASH_CHECKED
                and data[8:16] == source_hash
            ):
                try:
                    return marshal.loads(memoryview(data)[16:])
                except (EOFError, ValueError, TypeError):
                    pass
        code = self.source_to_code(source, path)
        if cached is not None and not sys.dont_write_bytecode:
            data = importlib.util.MAGIC_NUMBER + _HASH_CHECKED.to_bytes(4, "little") + source_hash + marshal.dumps(code)
            try:
                self.set_data(cached, data)
            except (OSError, NotImplementedError):
                pass
        return code


class _Finder:
    """Finds a module with the finders behind it, then swaps in :class:`HashedSourceLoader` where it applies."""

    _simstudy_hashed_finder = True  # a second copy of this module (re-imported) knows its predecessor's finder

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        spec = None
        for finder in list(sys.meta_path):
            if getattr(finder, "_simstudy_hashed_finder", False):
                continue
            find = getattr(finder, "find_spec", None)
            if find is None:  # a finder of the older protocol: let the import system ask them all itself
                return None
            spec = find(fullname, path, target)
            if spec is not None:
                break
        if spec is None:
            return None
        loader = spec.loader
        if (
            type(loader) is importlib.machinery.SourceFileLoader
            and spec.origin
            and origin_kind(spec.origin) == "source"
        ):
            spec.loader = HashedSourceLoader(loader.name, loader.path)
        return spec

    @classmethod
    def invalidate_caches(cls):
        pass


def install() -> None:
    """Put the finder first on :data:`sys.meta_path` (once), and check what was loaded before it.

    The modules of this package loaded before the finder (``simstudy`` and this
    module) are checked: a stale ``.pyc`` they were run from is refused with
    ImportError naming it.
    """
    if _Finder in sys.meta_path:
        return
    # a finder of an earlier copy of this module (the package imported again) gives way to this one
    sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "_simstudy_hashed_finder", False)]
    sys.meta_path.insert(0, _Finder)
    for name in ("simstudy", __name__):
        module = sys.modules.get(name)
        origin = getattr(getattr(module, "__spec__", None), "origin", None)
        if origin and os.path.isfile(origin) and _real(origin) not in _LOADED:
            _adopt(module, origin)
    _adopt_earlier_imports()


def _adopt_earlier_imports() -> None:
    """Record the source modules imported before simstudy (a script's or a notebook's first imports).

    They were compiled by Python's own loader, from their file or from cached
    bytecode, at a moment simstudy did not see.  Each one's code is compared
    with its file compiled now: its cached bytecode when Python would have run
    it, else every function it defines.  A module whose code is its file's is
    recorded with the file's digest; one whose code differs (a stale ``.pyc``,
    or an edit since it was imported) is recorded as holding unknown code, so
    that it counts as stale (:func:`stale_modules`): a study or learner named by
    reference then imports it again, and a fingerprint never records the file
    for code that did not come from it.
    """
    for name, module in list(sys.modules.items()):
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if type(getattr(spec, "loader", None)) is not importlib.machinery.SourceFileLoader:
            continue  # built-in, frozen, extensions, and modules of other loaders (pytest's, say)
        if not origin or not origin.endswith(".py") or not os.path.isfile(origin) or _real(origin) in _LOADED:
            continue
        if origin_kind(origin) != "source":
            continue
        try:
            st = os.stat(origin)
            with open(origin, "rb") as f:
                source = f.read()
            now = compile(source, origin, "exec", dont_inherit=True)
        except (OSError, SyntaxError, ValueError):
            continue
        same = _ran_from(module, st, now)
        digest = hashlib.sha256(source).hexdigest() if same else "unknown:" + hashlib.sha256(source).hexdigest()
        with _LOCK:
            _LOADED[_real(origin)] = _Record(digest, _stat_key(st), source)
            _GENERATION[0] += 1


def _ran_from(module, st: os.stat_result, code) -> bool:
    """Whether ``module`` runs the code ``code`` compiled from its file now (see :func:`_adopt_earlier_imports`)."""
    cached = getattr(module, "__cached__", None)
    if cached and os.path.isfile(cached) and _stamped_pyc_matches(cached, st):
        try:  # Python runs a .pyc whose stamp matches the file: that is the code that ran
            with open(cached, "rb") as f:
                return marshal.loads(memoryview(f.read())[16:]) == code
        except (OSError, EOFError, ValueError, TypeError):
            return False
    compiled: dict = {}

    def walk(c):
        for const in c.co_consts:
            if isinstance(const, type(c)):
                compiled.setdefault((const.co_name, const.co_firstlineno), []).append(const)
                walk(const)

    walk(code)
    for value in list(vars(module).values()):
        func = getattr(value, "__code__", None)
        if func is None or getattr(value, "__module__", None) != module.__name__:
            continue
        if func not in compiled.get((func.co_name, func.co_firstlineno), []):
            return False
    return True


def _adopt(module, origin: str) -> None:
    """Record a module loaded by the standard loader, after checking that its bytecode was its source's."""
    st = os.stat(origin)
    with open(origin, "rb") as f:
        source = f.read()
    cached = getattr(module, "__cached__", None)
    if cached and os.path.isfile(cached) and _stamped_pyc_matches(cached, st):
        with open(cached, "rb") as f:
            data = f.read()
        try:
            ran = marshal.loads(memoryview(data)[16:])
        except (EOFError, ValueError, TypeError):
            ran = None
        if ran is not None and ran != compile(source, origin, "exec", dont_inherit=True):
            raise ImportError(
                f"{origin}: Python ran stale bytecode ({cached}) for this file; remove that .pyc and start again"
            )
    with _LOCK:
        _LOADED[_real(origin)] = _Record(hashlib.sha256(source).hexdigest(), _stat_key(st), source)
        _GENERATION[0] += 1


def _stamped_pyc_matches(cached: str, st: os.stat_result) -> bool:
    """True when ``cached`` is a timestamp ``.pyc`` that the standard loader would take for the source ``st``."""
    try:
        with open(cached, "rb") as f:
            head = f.read(16)
    except OSError:
        return False
    if len(head) < 16 or head[:4] != importlib.util.MAGIC_NUMBER or int.from_bytes(head[4:8], "little") != 0:
        return False
    mtime = int.from_bytes(head[8:12], "little")
    size = int.from_bytes(head[12:16], "little")
    return mtime == (int(st.st_mtime) & 0xFFFFFFFF) and size == (st.st_size & 0xFFFFFFFF)


def file_spec(name: str, path) -> importlib.machinery.ModuleSpec | None:
    """The spec of the Python file ``path`` imported as module ``name``, loaded from the bytes it hashes.

    For files a user names by path (a study, a learner, a plug-in): like
    :func:`importlib.util.spec_from_file_location`, with :class:`HashedSourceLoader`.
    """
    path = os.fspath(path)
    return importlib.util.spec_from_file_location(name, path, loader=HashedSourceLoader(name, path))


def loaded_sources() -> dict[str, str]:
    """``{real path: SHA-256}`` of every source file this process compiled through :class:`HashedSourceLoader`."""
    return {path: rec.digest for path, rec in list(_LOADED.items())}


def loaded_digest(path) -> str | None:
    """SHA-256 (hex) of the bytes this process compiled the module at ``path`` from; None if it did not."""
    rec = _LOADED.get(_real(path))
    return rec.digest if rec is not None else None


def loaded_source(path) -> bytes | None:
    """The bytes this process compiled the module at ``path`` from (None if it did not)."""
    rec = _LOADED.get(_real(path))
    return rec.source if rec is not None else None


def source_digest(path) -> tuple[str, bytes]:
    """``(SHA-256 hex, bytes)`` of the code at ``path``: what this process ran from it, else the file now."""
    rec = _LOADED.get(_real(path))
    if rec is not None:
        return rec.digest, rec.source
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha256(data).hexdigest(), data


def generation() -> int:
    """A number that changes whenever this process loads a source module through :class:`HashedSourceLoader`."""
    return _GENERATION[0]


def stale_modules() -> list[tuple[str, str]]:
    """``(module name, path)`` of the loaded modules whose file no longer holds the bytes they were compiled from.

    A file whose status (inode, size, times, including the change time that
    no copy can keep) is unchanged is not read again.
    """
    stale = set()
    for path, rec in list(_LOADED.items()):
        if rec.digest.startswith("unknown:"):  # imported before simstudy, from code its file no longer holds
            stale.add(path)
            continue
        try:
            if _stat_key(os.stat(path)) == rec.stat:
                continue
            with open(path, "rb") as f:
                now = hashlib.sha256(f.read()).hexdigest()
        except OSError:
            now = None
        if now != rec.digest:
            stale.add(path)
    if not stale:
        return []
    out = []
    for name, module in list(sys.modules.items()):
        origin = getattr(getattr(module, "__spec__", None), "origin", None)
        if origin and os.path.isfile(origin) and _real(origin) in stale:
            out.append((name, origin))
    return sorted(out)


# -- where a file comes from ----------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _interpreter_dirs() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The standard library's directories and the site directories, as the interpreter names them."""
    paths = sysconfig.get_paths()
    stdlib = [paths[k] for k in ("stdlib", "platstdlib") if paths.get(k)]
    sites = list(getattr(site, "getsitepackages", lambda: [])())
    user = getattr(site, "getusersitepackages", lambda: None)()
    sites += [user] if isinstance(user, str) else []
    sites += [paths[k] for k in ("purelib", "platlib") if paths.get(k)]

    def both(dirs):  # each as given and as its real path: a file is matched without resolving it
        return tuple(dict.fromkeys(p for d in dirs for p in (os.path.abspath(d), _real(d))))

    return both(stdlib), both(sites)


def _under(path: str, dirs) -> bool:
    return any(path == d or path.startswith(d.rstrip(os.sep) + os.sep) for d in dirs)


class _Dist:
    __slots__ = ("name", "version", "local", "info")

    def __init__(self, name: str, version: str, local: bool, info: str):
        self.name, self.version, self.local, self.info = name, version, local, info


def _read_dist(info: str) -> _Dist | None:
    """Name, version and whether ``NAME-VERSION.dist-info`` was installed from a local file or folder (PEP 610)."""
    base = os.path.basename(info)[: -len(".dist-info")]
    name, _, version = base.partition("-")
    local = False
    try:
        with open(os.path.join(info, "direct_url.json"), encoding="utf-8") as f:
            url = json.load(f).get("url", "")
        local = isinstance(url, str) and url.startswith("file:")
    except (OSError, ValueError, AttributeError):
        pass
    return _Dist(name, version, local, info)


def _record_files(info: str) -> list[str]:
    """The paths a ``RECORD`` lists, relative to the directory the distribution is installed in."""
    try:
        with open(os.path.join(info, "RECORD"), encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return []
    # "path,sha256=...,size": the path is what comes before the last two fields (a path may hold commas)
    return [rel for line in text.splitlines() if (rel := line.rsplit(",", 2)[0])]


class _DirIndex:
    """The distributions installed in one directory and the files their ``RECORD`` lists, read as needed."""

    def __init__(self, where: str):
        self.where = where
        try:
            names = os.listdir(where)
        except OSError:
            names = []
        self.infos = sorted(os.path.join(where, n) for n in names if n.endswith(".dist-info"))
        self.files: dict[str, _Dist] = {}
        self.read: set[str] = set()

    def owner(self, path: str) -> _Dist | None:
        rel = path[len(self.where) + 1 :].replace(os.sep, "/")  # as RECORD writes it (path lies below where)
        if rel in self.files or len(self.read) == len(self.infos):
            return self.files.get(rel)
        top = rel.split("/", 1)[0]
        stem = top[:-3] if top.endswith(".py") else top
        key = _normalise(stem)
        # the distribution named after the top-level module first, then every other one
        ordered = sorted(self.infos, key=lambda i: _normalise(os.path.basename(i).partition("-")[0]) != key)
        for info in ordered:
            if info in self.read:
                continue
            self.read.add(info)
            dist = _read_dist(info)
            if dist is None:
                continue
            for f in _record_files(info):
                self.files.setdefault(f, dist)
            if rel in self.files:
                return self.files[rel]
        return None


def _normalise(name: str) -> str:
    return "".join("-" if c in "-_." else c for c in name).lower()


_DIR_INDEX: dict[str, _DirIndex] = {}


def distribution_of_file(path) -> tuple[str, str, bool] | None:
    """``(name, version, installed from a local folder)`` of the distribution whose ``RECORD`` lists ``path``.

    Looked up among the distributions installed in the directories of
    :data:`sys.path` that hold the file; None when no ``RECORD`` lists it (a
    user's file, an editable install's source, a file copied in by hand).
    """
    p = os.path.abspath(path)
    for where in _entries(tuple(sys.path)):
        if not p.startswith(where):
            continue
        where = where[:-1]
        with _LOCK:
            index = _DIR_INDEX.get(where)
            if index is None:
                index = _DIR_INDEX[where] = _DirIndex(where)
            dist = index.owner(p) if index.infos else None
        if dist is not None:
            return dist.name, dist.version, dist.local
    return None


@functools.lru_cache(maxsize=4096)
def origin_kind(path) -> str:
    """``"installed"``, ``"stdlib"`` or ``"source"``: where the module file at ``path`` comes from.

    ``installed``: listed in the ``RECORD`` of a distribution installed from
    an index or a remote archive (its version stands for it); ``stdlib``: a
    file of the interpreter's standard library, outside its site directories;
    ``source``: anything else, a distribution installed from a local file or
    folder included (its bytes stand for it).
    """
    p = os.path.abspath(path)  # the path the import system found; resolved only when that does not tell
    dist = distribution_of_file(p)
    if dist is not None:
        return "source" if dist[2] else "installed"
    stdlib, sites = _interpreter_dirs()
    if _under(p, stdlib) and not _under(p, sites):
        return "stdlib"
    real = _real(p)
    return origin_kind(real) if real != p else "source"
