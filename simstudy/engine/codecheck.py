"""A process's code checked against a run's: the workers, and the helper processes they start, prove their code.

The run's own process computes the fingerprint of the study
(:mod:`simstudy.engine.fingerprint`) and sends, with every chunk, what the code
that computes it must be (:func:`expected_code`).  The process that computes the
chunk compares what it has loaded, and what its helper processes report, with
that (:func:`code_differences`, :func:`helper_code_differences`); a long-lived
worker first forgets modules of the user's that no longer match their files
(:func:`evict_stale_modules`).
"""

from __future__ import annotations

import hashlib
import platform
import sys
from importlib import metadata
from pathlib import Path

from simstudy import _codeload
from simstudy.engine.fingerprint import (
    _find_spec,
    _kind,
    _layout,
    _locate,
    _package_files,
    _study_modules,
    code_sources,
)
from simstudy.engine.study import Study

__all__ = [
    "expected_code",
    "code_differences",
    "helper_code_differences",
    "register_code_reporter",
    "evict_stale_modules",
]


def expected_code(study: Study, prov: dict) -> dict:
    """What a worker's code must be for its rows to carry ``prov`` (the run's provenance of ``study``).

    Returns
    -------
    dict
        ``package`` (``{relative path: SHA-256}`` of the simstudy package's
        files), ``modules`` (``{module name: digest}`` of the study's modules
        that are importable by name), ``versions`` (the recorded versions) and
        ``pid`` (this process: a chunk computed here needs no check).
    """
    import os

    _, package, _ = _package_files()
    src = code_sources(study)
    modules = {
        key: digest
        for key, digest in src["modules"].items()
        if key != "simstudy" and all(part.isidentifier() for part in key.split("."))
    }
    files = {
        str(Path(src["paths"][key]).resolve()): digest
        for key, digest in src["modules"].items()
        if key.startswith("file ") or key == "study file"
    }
    memo: dict = {}
    for name in _study_modules(study):  # a built-in study's or an entry point's module is its "study file"
        if "study file" in src["modules"] and _locate(name, memo)[1] == src["paths"].get("study file"):
            modules[name] = src["modules"]["study file"]
    return {
        "package": dict(package),
        "modules": modules,
        "files": files,
        "versions": dict(prov.get("versions") or {}),
        "pid": os.getpid(),
    }


_VERSION_CACHE: dict[str, str | None] = {}


def _version_here(dist: str, fresh: bool) -> str | None:
    if dist == "python":
        return platform.python_version()
    if fresh or dist not in _VERSION_CACHE:
        try:
            _VERSION_CACHE[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            _VERSION_CACHE[dist] = None
    return _VERSION_CACHE[dist]


def edited_since(expect: dict) -> list[str]:
    """The modules of the study (and files of the simstudy package) whose files on this machine no longer hold
    the code ``expect`` records: edited since the run started, whatever this process has loaded."""
    out = []
    root, _ = _layout()
    for rel, digest in sorted(expect.get("package", {}).items()):
        path = root / rel
        now = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "absent"
        if now != digest:
            out.append(f"simstudy package file {rel} ({path})")
    for name, digest in sorted(expect.get("modules", {}).items()):
        spec = _find_spec(name)
        origin = spec.origin if spec is not None and spec.has_location else None
        if origin and Path(origin).is_file():
            if hashlib.sha256(Path(origin).read_bytes()).hexdigest()[: len(digest)] != digest:
                out.append(f"module {name} ({origin})")
    return out


def code_differences(expect: dict, *, on_disk: bool = False) -> list[str]:
    """How the code of this process differs from ``expect`` (:func:`expected_code`); empty when it does not.

    Compared: every module of the simstudy package and of the study that this
    process has loaded, with the bytes it compiled it from, and the versions of
    the recorded distributions.  With ``on_disk`` (a worker checked before it
    computes anything) the modules it has not loaded are compared as its files
    are now, so a worker started from another environment is found before it
    has run any of them.  One item per difference, naming the module and its file.
    """
    out = []
    root, _ = _layout()
    for rel, digest in sorted(expect.get("package", {}).items()):
        path = root / rel
        ran = _codeload.loaded_digest(path)
        if ran is None and on_disk:
            ran = _codeload.source_digest(path)[0] if path.is_file() else "absent"
        if ran is not None and ran != digest:
            out.append(f"simstudy package file {rel} ({path})")
    for name, digest in sorted(expect.get("modules", {}).items()):
        module = sys.modules.get(name)
        origin = getattr(getattr(module, "__spec__", None), "origin", None) if module is not None else None
        ran = _codeload.loaded_digest(origin) if origin and Path(origin).is_file() else None
        if module is None and on_disk:
            spec = _find_spec(name)
            origin = spec.origin if spec is not None and spec.has_location else None
            ran = _codeload.source_digest(origin)[0] if origin and Path(origin).is_file() else "absent"
        if ran is not None and ran[: len(digest)] != digest:
            out.append(f"module {name} ({origin or 'not found'})")
    for dist, version in sorted(expect.get("versions", {}).items()):
        here = _version_here(dist, fresh=on_disk)
        if here != version:
            out.append(f"{dist} {version} -> {here or 'absent'}")
    return out


_REPORTERS: list = []


def register_code_reporter(reporter) -> None:
    """Have ``reporter() -> {path: SHA-256}`` tell the code that helper processes of this one compiled.

    A process that computes rows may hand work to processes of its own (the
    fit workers of contained learners, say); their code is checked against the
    run's as this process's own is (:func:`helper_code_differences`).
    """
    if reporter not in _REPORTERS:
        _REPORTERS.append(reporter)


def helper_code_differences(expect: dict) -> list[str]:
    """How the code the registered helper processes compiled differs from ``expect`` (its files and modules)."""
    reported: dict[str, str] = {}
    for reporter in _REPORTERS:
        reported.update(reporter() or {})
    if not reported:
        return []
    files = dict(expect.get("files", {}))
    memo: dict = {}
    for name, digest in expect.get("modules", {}).items():  # modules of the user's, by the file they are found at
        path = _locate(name, memo)[1]
        if path:
            files.setdefault(str(Path(path).resolve()), digest)
    out = []
    for path, digest in sorted(reported.items()):
        expected = files.get(str(Path(path).resolve()))
        if expected is not None and digest[: len(expected)] != expected:
            out.append(f"{Path(path).name} ({path}) as a helper process of this one compiled it")
    return out


def evict_stale_modules() -> list[str]:
    """Forget the user's and the studies' modules when one of them no longer matches its file.

    A long-lived worker keeps the modules it imported for an earlier run; when
    one of them was edited since, every module of the user's and of the built-in
    studies is removed from :data:`sys.modules`, so that the next task imports
    them again from their files (those that still hold references to the old
    ones are among them).  The simstudy package itself is never removed: a
    worker whose copy of it is stale is refused instead (:func:`code_differences`).

    Returns the names of the stale modules (empty when nothing was removed).
    """
    stale = [name for name, origin in _codeload.stale_modules() if _kind(origin) in ("user", "studies")]
    if not stale:
        return []
    for name, module in list(sys.modules.items()):
        origin = getattr(getattr(module, "__spec__", None), "origin", None)
        if origin and _codeload.loaded_digest(origin) is not None and _kind(origin) in ("user", "studies"):
            del sys.modules[name]
    import importlib

    importlib.invalidate_caches()
    return stale
