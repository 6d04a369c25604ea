"""The result store: raw rows in long format, as Parquet chunks with a manifest.

Layout of a run directory (default ``results/STUDY/PROFILE``)::

    .lock                              held (flock) by the one process writing the run
    manifest.json                      study, profile, config and its hash, root seed,
                                       provenance (code fingerprint, package versions),
                                       the history of runs, chunk checksums
    chunks/CONDITION/START-STOP/       one directory per chunk of replications
        TABLE.parquet                  the rows of each table the study returns
        chunk.json                     identity, provenance, SHA-256 of every file,
                                       seconds, failures

A chunk is written into a hidden temporary directory and renamed into place only
when complete, so a chunk directory that exists was written whole.  Its
``chunk.json`` names what the chunk is (study, condition, range, root seed,
configuration hash), what produced it (code fingerprint and package versions)
and the checksum of every table.  Readers read only the tables it lists and only
after checking their checksums; a chunk that fails a check, or whose identity or
provenance is not the run's, is treated as missing and the next run recomputes
it.  The manifest is replaced atomically.

One process at a time writes a run directory: :class:`RunLock` takes an
exclusive ``flock`` on ``.lock`` before anything in the directory is read or
written.  The kernel releases it when its holder exits in any way, so a lock
whose process is gone is never in the way.

A run directory is data, never instructions: it may have been received from
someone else.  Nothing below it is followed through a symbolic link: the lock,
the manifest, ``chunks``, its condition and chunk directories, the files of a
chunk and the temporary files of an interrupted run are opened with
``O_NOFOLLOW`` or checked with ``lstat`` first, and a link is refused with one
line naming it (:class:`StoreError`).  So is a file that is not a regular file
(a pipe or a device), and a lock file with other hard links.  Everything the
store writes or removes lies below the run directory.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import io
import json
import numbers
import os
import platform
import shutil
import stat
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from simstudy._files import DEFAULT_ROOT, write_atomic
from simstudy._lazy import lazy_module
from simstudy.errors import InputError, StoredDataError, option

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["RunStore", "RunData", "RunLock", "ConfigMismatch", "StoreError", "RunLocked", "lock_holder"]

CHUNK_META = "chunk.json"
MANIFEST = "manifest.json"
LOCK = ".lock"
IDENTITY_KEYS = ("study", "condition", "start", "stop", "root_seed", "config_hash")


class StoreError(StoredDataError):
    """The run directory cannot be used as asked (reported on one line, exit code 2)."""


class ConfigMismatch(StoreError):
    """The output directory holds a run with a different configuration or provenance."""


class RunLocked(StoreError):
    """Another process is writing the run directory."""


def os_error(
    exc: OSError, path, *, what: str = "the results", option: str | None = None, resume: bool = True
) -> StoreError:
    """A one-line error for a failed read or write under ``path`` (e.g. read-only, disk full).

    It names the file when the error does (``exc.filename``; a write that fills
    the disk names none), else ``path``.
    """
    reason = exc.strerror or type(exc).__name__
    where = exc.filename or path
    hint = (
        f"; free some space and run the same command again{' to resume' if resume else ''}"
        if exc.errno == errno.ENOSPC
        else ""
    )
    if option is None:  # named as the caller sees it, now (``out``, or ``--out`` on the command line)
        from simstudy.errors import option as named

        option = named("out")
    return StoreError(f"{option}: cannot write {what} in {path}: {reason} ({where}){hint}")


def symlink_error(path) -> StoreError:
    """The one-line refusal of a symbolic link found in a run directory."""
    return StoreError(
        f"{option('out')}: {path} is a symbolic link; a run folder is data and simstudy never reads or "
        f"writes through a link in it (remove the link, or use another {option('out')})"
    )


def _open_regular(path, flags: int = os.O_RDONLY, mode: int = 0o644) -> int:
    """A descriptor of the regular file ``path``, never through a symbolic link (raises StoreError for one).

    ``O_NONBLOCK`` keeps a named pipe planted in a run directory from blocking
    the open; it is then refused, as is any file that is not a regular file.
    Other errors (missing file, permissions) are raised as OSError.
    """
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise symlink_error(path) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise StoreError(
            f"{option('out')}: {path} is not a regular file; a run folder holds only its own files "
            f"(remove it, or use another {option('out')})"
        )
    return fd


def read_regular(path) -> bytes:
    """The bytes of the regular file ``path`` (a symbolic link or a special file raises StoreError)."""
    fd = _open_regular(path)
    with os.fdopen(fd, "rb") as f:
        return f.read()


def sha256_file(path) -> str:
    """SHA-256 of the regular file ``path``, read without following a symbolic link."""
    h = hashlib.sha256()
    with os.fdopen(_open_regular(path), "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def lstat_below(root, path) -> os.stat_result | None:
    """``lstat`` of ``path`` below the folder ``root``, or None when it does not exist.

    Every component below ``root`` is checked on the way: a symbolic link, or
    a ``.`` or ``..`` component, raises StoreError naming it.  ``root`` itself
    may be a link (the user chose it); what lies below it is data.
    """
    root, path = Path(root), Path(path)
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        raise StoreError(f"{option('out')}: {path} lies outside the folder {root}") from None
    p, st = root, None
    for part in parts:
        if part in (".", ".."):
            raise StoreError(f"{option('out')}: {path} leaves the folder {root}")
        p = p / part
        try:
            st = os.lstat(p)
        except (FileNotFoundError, NotADirectoryError):
            return None
        if stat.S_ISLNK(st.st_mode):
            raise symlink_error(p)
    return st


def safe_name(name) -> bool:
    """Whether ``name`` is one path component (not empty, ``.``, ``..``, and without a separator)."""
    return (
        isinstance(name, str)
        and name not in ("", ".", "..")
        and "/" not in name
        and os.sep not in name
        and "\0" not in name
    )


def _atomic_write_text(path: Path, text: str, *, fsync: bool = False):
    """:func:`simstudy._files.write_atomic`, synced only where asked (the final manifest of a run)."""
    write_atomic(path, text, fsync=fsync)


def chunk_name(start: int, stop: int) -> str:
    return f"{start:07d}-{stop:07d}"


def manifest_chunk_key(condition: str, start: int, stop: int) -> str:
    """The key of a stored chunk in the manifest's ``chunks`` (its seconds, files and failures)."""
    return f"{condition}/{start}-{stop}"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# -- the writer's lock ---------------------------------------------------------
def _holder_text(info: dict | None) -> str:
    if not info:
        return "a process that has not yet recorded itself"
    return f"pid {info.get('pid', '?')} on {info.get('host', '?')}, since {info.get('since', '?')}"


def _read_holder(fd: int) -> dict | None:
    """The holder record in the open lock file ``fd``."""
    try:
        info = json.loads(os.pread(fd, 1 << 16, 0).decode() or "null")
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) else None


def _open_lock(path: Path, flags: int) -> int:
    """Open the lock file: never through a symbolic link, only a regular file with no other hard link.

    The lock is the one file written in place (truncated, then the holder
    record); a hard link would let that write reach another file.
    """
    fd = _open_regular(path, flags)
    if os.fstat(fd).st_nlink > 1:
        os.close(fd)
        raise StoreError(
            f"{option('out')}: {path} has other hard links; a run folder's lock must be its own file "
            f"(remove it, or use another {option('out')})"
        )
    return fd


class RunLock:
    """The exclusive lock of one run directory (``RUN/.lock``, ``fcntl.flock``).

    Taken with :meth:`acquire` before the directory is read or written; it
    records the holder (pid, host, start time, command) in the file, and is
    released by :meth:`release` or, whatever the way the holder ends (even
    SIGKILL), by the kernel when its file descriptor closes.  The file itself is
    never removed (removing it would let two processes lock two different files).

    Parameters
    ----------
    directory : path
        The run directory (created if missing).
    """

    def __init__(self, directory):
        self.directory = Path(directory)
        self.path = self.directory / LOCK
        self._fd = None

    def acquire(self, *, wait: float = 1.0, command: str = "") -> "RunLock":
        """Take the lock or raise :class:`RunLocked` naming the holder.

        ``wait`` seconds of retries cover a ``status`` that is only probing the lock.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = _open_lock(self.path, os.O_RDWR | os.O_CREAT)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _read_holder(fd)
                    os.close(fd)
                    raise RunLocked(
                        f"{option('out')}: {self.directory} is in use by another run "
                        f"({_holder_text(holder)}); wait for it to finish "
                        f"or stop it, or choose another {option('out')}"
                    ) from None
                time.sleep(0.05)
        self._fd = fd
        info = {"pid": os.getpid(), "host": platform.node(), "since": _now(), "command": command}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(info).encode(), 0)
        except OSError:
            self.release()
            raise
        return self

    def release(self):
        """Give the lock up (the holder record is cleared: the run ended in an orderly way)."""
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)
        except OSError:
            pass
        try:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


def lock_holder(directory) -> tuple[bool, dict | None]:
    """Whether a process holds the run directory's lock now, and the last holder's record.

    The record is cleared when a run ends in an orderly way, so ``(False,
    record)`` means the last writer died without releasing the lock (the kernel
    released it).  Probing takes a shared lock for an instant.

    Parameters
    ----------
    directory : str or path
        A run directory.

    Returns
    -------
    (held, record) : (bool, dict or None)
        Whether a process holds the lock now, and the record the last holder
        left (command, process id, host, start time), or None.

    Raises
    ------
    StoreError
        ``.lock`` is a symbolic link, not a regular file, or has other hard links.
    """
    path = Path(directory) / LOCK
    try:
        fd = _open_lock(path, os.O_RDONLY)
    except OSError:
        return False, None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True, _read_holder(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False, _read_holder(fd)
    finally:
        os.close(fd)


# -- the manifest's shape --------------------------------------------------------
_MANIFEST_FIELDS = {
    "study": str,
    "profile": str,
    "config": dict,
    "config_hash": str,
    "root_seed": numbers.Integral,
    "plan": list,
    "chunks": dict,
    "runs": list,
}


def check_manifest_shape(manifest, path) -> dict:
    """Return ``manifest`` if it has the fields and types the engine relies on, else raise StoreError."""

    def bad(what):
        return StoreError(f"{option('out')}: {path} is not a valid simstudy manifest ({what})")

    if not isinstance(manifest, dict):
        raise bad(f"a JSON {type(manifest).__name__}, not an object")
    for key, typ in _MANIFEST_FIELDS.items():
        if key not in manifest:
            raise bad(f"no field {key!r}")
        if not isinstance(manifest[key], typ) or isinstance(manifest[key], bool):
            raise bad(f"field {key!r} is a {type(manifest[key]).__name__}")
    for c in manifest["plan"]:
        if not (
            isinstance(c, dict)
            and safe_name(c.get("condition"))
            and all(isinstance(c.get(k), int) and not isinstance(c.get(k), bool) for k in ("start", "stop"))
            and 0 <= c["start"] < c["stop"]
        ):
            raise bad(f"plan entry {c!r}")
    if not all(isinstance(r, dict) for r in manifest["runs"]):
        raise bad("a run record is not an object")
    if "provenance" in manifest and not isinstance(manifest["provenance"], dict):
        raise bad("field 'provenance' is not an object")
    return manifest


class RunStore:
    """Reads and writes one run directory (never through a symbolic link below it)."""

    def __init__(self, path):
        self.path = Path(path)

    # -- what lies below the run directory --------------------------------------
    def _lstat(self, path: Path) -> os.stat_result | None:
        """``lstat`` of ``path`` below the run directory, no link on the way (see :func:`lstat_below`)."""
        return lstat_below(self.path, path)

    def _check_inside(self, path: Path) -> Path:
        """``path`` if it resolves below the run directory (after :meth:`_lstat` found no link), else StoreError."""
        root = self.path.resolve()
        real = path.resolve()
        if real != root and root not in real.parents:
            raise StoreError(
                f"{option('out')}: {path} resolves to {real}, outside the run folder {root}; "
                "simstudy writes only below the run folder"
            )
        return path

    # -- manifest -------------------------------------------------------------
    @property
    def manifest_path(self) -> Path:
        """Path of the run's ``manifest.json``."""
        return self.path / MANIFEST

    def check_target(self):
        """Refuse an ``--out`` that exists and is not a directory (before anything is written)."""
        for p in (self.path, *self.path.parents):
            if p.exists():
                if not p.is_dir():
                    raise StoreError(f"{option('out')}: {p} is a file, not a directory")
                break

    def read_manifest(self) -> dict | None:
        """The manifest (its shape checked), or None when the directory holds none."""
        try:
            text = read_regular(self.manifest_path)
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            raise StoreError(f"{option('out')}: {self.path} is a file, not a directory") from None
        except OSError as exc:
            raise StoreError(f"{option('out')}: cannot read {self.manifest_path}: {exc.strerror}") from None
        try:
            manifest = json.loads(text)
        except json.JSONDecodeError as exc:
            raise StoreError(f"{option('out')}: {self.manifest_path} is not a valid manifest ({exc})") from None
        return check_manifest_shape(manifest, self.manifest_path)

    def write_manifest(self, manifest: dict, *, fsync: bool = False):
        """Replace the manifest atomically.

        Parameters
        ----------
        manifest : dict
            The manifest to write (JSON).
        fsync : bool
            Sync it to disk before the rename.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        self._lstat(self.manifest_path)  # a link in its place is refused, not replaced
        _atomic_write_text(self.manifest_path, json.dumps(manifest, indent=1, sort_keys=True, default=str), fsync=fsync)

    def check_compatible(self, config_hash: str, config: dict):
        """Refuse to mix runs: the directory must be empty or hold this very configuration."""
        old = self.read_manifest()
        if old is None:
            if self.path.exists() and any(p.name != LOCK for p in self.path.iterdir()):
                raise ConfigMismatch(
                    f"{option('out')}: {self.path} is not empty and holds no simstudy manifest; "
                    "choose another directory"
                )
            return
        if old.get("config_hash") != config_hash:

            def differ(new: dict, was: dict, within: str = "") -> list[str]:  # a field of a mapping by its path
                return [
                    name
                    for k in sorted(set(new) | set(was), key=str)
                    if new.get(k) != was.get(k)
                    for name in (
                        differ(new[k], was[k], f"{within}{k}.")
                        if isinstance(new.get(k), dict) and isinstance(was.get(k), dict)
                        else [f"{within}{k}"]
                    )
                ]

            diffs = differ(config, old.get("config", {}))
            raise ConfigMismatch(
                f"{option('out')}: {self.path} holds a run of {old.get('study')!r} (profile {old.get('profile')!r}) "
                f"with a different configuration (differs in: {', '.join(diffs) or 'hash'}); "
                f"use another {option('out')}, or {option('fresh', True)} to move that run aside"
            )

    def move_aside(self) -> Path | None:
        """Rename the run directory to ``RUN.replaced-STAMP`` (nothing is deleted); its new name.

        Only names change: a run directory that is itself a symbolic link is
        renamed as a link (what it points to stays where it is), and a name
        already taken, even by a dangling link, is never reused.
        """
        if not self.path.exists() or not any(p.name != LOCK for p in self.path.iterdir()):
            return None
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        target = self.path.with_name(f"{self.path.name}.replaced-{stamp}")
        n = 1
        while os.path.lexists(target):
            n += 1
            target = self.path.with_name(f"{self.path.name}.replaced-{stamp}-{n}")
        os.rename(self.path, target)
        return target

    # -- chunks ---------------------------------------------------------------
    def chunk_dir(self, condition: str, start: int, stop: int) -> Path:
        """Directory of one chunk of replications.

        Parameters
        ----------
        condition : str
            The condition's key.
        start, stop : int
            The chunk's replications, ``start`` included, ``stop`` excluded.

        Returns
        -------
        pathlib.Path
            ``RUN/chunks/CONDITION/START-STOP``.

        Raises
        ------
        StoreError
            ``condition`` is not a single path component.
        """
        if not safe_name(condition):
            raise StoreError(f"{option('out')}: condition {condition!r} cannot name a folder of {self.path}")
        return self.path / "chunks" / condition / chunk_name(start, stop)

    def chunk_meta(self, condition: str, start: int, stop: int) -> dict | None:
        """The chunk's ``chunk.json`` (None when absent or unreadable; a symbolic link raises StoreError)."""
        path = self.chunk_dir(condition, start, stop) / CHUNK_META
        self._lstat(path)
        try:
            meta = json.loads(read_regular(path))
        except StoreError:
            raise
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or not isinstance(meta.get("files"), dict):
            return None
        return meta

    def chunk_state(
        self, condition: str, start: int, stop: int, expect: dict | None = None, provenance: dict | None = None
    ) -> str:
        """``"ok"``, ``"missing"``, ``"damaged"`` (a checksum fails) or ``"foreign"``.

        ``foreign``: the chunk's recorded identity differs from ``expect`` (a dict
        of :data:`IDENTITY_KEYS`), or its provenance from ``provenance``: it was
        computed for another run (another seed, configuration or study), or by
        other code or package versions.
        """
        d = self.chunk_dir(condition, start, stop)
        if self._lstat(d) is None:
            return "missing"
        meta = self.chunk_meta(condition, start, stop)
        if meta is None:
            return "damaged"
        if expect is not None:
            ident = meta.get("identity")
            if not isinstance(ident, dict) or any(ident.get(k) != expect.get(k) for k in IDENTITY_KEYS):
                return "foreign"
        if provenance is not None and meta.get("provenance") != provenance:
            return "foreign"
        try:
            for f, digest in meta["files"].items():
                if not safe_name(f) or not f.endswith(".parquet") or sha256_file(d / f) != digest:
                    return "damaged"
        except StoreError:
            raise
        except OSError:
            return "damaged"
        return "ok"

    def chunk_ok(
        self, condition: str, start: int, stop: int, expect: dict | None = None, provenance: dict | None = None
    ) -> bool:
        """True when the chunk exists, is the expected one, and every listed file matches its checksum."""
        return self.chunk_state(condition, start, stop, expect, provenance) == "ok"

    def unlisted_files(self, condition: str, start: int, stop: int) -> list[str]:
        """Files in the chunk directory that its ``chunk.json`` does not list (never read)."""
        d = self.chunk_dir(condition, start, stop)
        meta = self.chunk_meta(condition, start, stop) or {"files": {}}
        self._lstat(d)
        try:
            return sorted(p.name for p in d.iterdir() if p.name != CHUNK_META and p.name not in meta["files"])
        except OSError:
            return []

    def discard_chunk(self, condition: str, start: int, stop: int):
        """Move a bad chunk out of the way (renamed to a hidden temporary, then removed)."""
        d = self.chunk_dir(condition, start, stop)
        st = self._lstat(d)  # a link on the way is refused: nothing outside is renamed or removed
        if st is None:
            return
        trash = d.parent / f".tmp-discard-{chunk_name(start, stop)}-{uuid.uuid4().hex}"
        os.rename(d, trash)
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(trash, ignore_errors=True)  # removes links inside, never what they point to
        else:
            trash.unlink(missing_ok=True)

    def write_chunk(
        self,
        condition: str,
        start: int,
        stop: int,
        tables: dict[str, pd.DataFrame],
        extra: dict | None = None,
        *,
        identity: dict | None = None,
        provenance: dict | None = None,
    ) -> dict:
        """Write a chunk atomically; returns its metadata (checksums).

        On failure (e.g. a full disk) nothing is left behind and an earlier copy,
        if any, is untouched.  A symbolic link on the way (``chunks``, the
        condition's directory, the chunk's) is refused before anything is
        written: the chunk is written only below the run directory.
        """
        final = self.chunk_dir(condition, start, stop)
        self._lstat(final)
        final.parent.mkdir(parents=True, exist_ok=True)
        self._check_inside(final.parent)
        tmp = final.parent / f".tmp-{chunk_name(start, stop)}-{uuid.uuid4().hex}"
        try:
            tmp.mkdir()
            files = {}
            for name, df in sorted(tables.items()):
                fname = f"{name}.parquet"
                df.to_parquet(tmp / fname, index=False)
                files[fname] = sha256_file(tmp / fname)
            meta = {"condition": condition, "start": start, "stop": stop, "files": files, **(extra or {})}
            if identity is not None:
                meta["identity"] = identity
            if provenance is not None:
                meta["provenance"] = provenance
            _atomic_write_text(tmp / CHUNK_META, json.dumps(meta, indent=1, sort_keys=True))
            if self._lstat(final) is not None:  # a damaged or foreign earlier copy
                self.discard_chunk(condition, start, stop)
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return meta

    def clean_temporary(self):
        """Remove what an interrupted run left half-written (``chunks/*/.tmp-*`` and ``RUN/.*.tmp``).

        Nothing is followed through a symbolic link: a link among them, or in
        place of ``chunks`` or of a condition's directory, is refused with
        StoreError before anything is removed, so nothing outside the run
        directory is ever removed.
        """
        root = self.path / "chunks"
        doomed = []
        st = self._lstat(root)
        if st is not None and stat.S_ISDIR(st.st_mode):
            for cond in sorted(os.scandir(root), key=lambda e: e.name):
                if cond.is_symlink():
                    raise symlink_error(cond.path)
                if not cond.is_dir(follow_symlinks=False):
                    continue
                for e in sorted(os.scandir(cond.path), key=lambda e: e.name):
                    if e.name.startswith(".tmp-"):
                        if e.is_symlink():
                            raise symlink_error(e.path)
                        doomed.append(e)
        for f in sorted(self.path.glob(".*.tmp")):
            if f.is_symlink():
                raise symlink_error(f)
            if f.is_file():
                doomed.append(f)
        for e in doomed:
            if isinstance(e, os.DirEntry) and e.is_dir(follow_symlinks=False):
                shutil.rmtree(e.path, ignore_errors=True)  # removes links inside, never what they point to
            else:
                Path(e).unlink(missing_ok=True)

    def read_chunk_table(
        self,
        condition: str,
        start: int,
        stop: int,
        table: str,
        columns: list[str] | None = None,
        *,
        arrow: bool = False,
        dictionary=None,
    ):
        """One table of a chunk (all columns, or ``columns``), if its ``chunk.json`` lists it.

        The checksum is verified on the bytes read.  With ``arrow`` the result is
        a ``pyarrow.Table``, the columns named in ``dictionary`` read as
        dictionary-encoded (they become categories in pandas).
        """
        meta = self.chunk_meta(condition, start, stop)
        fname = f"{table}.parquet"
        if meta is None or fname not in meta["files"]:
            return None
        data = read_regular(self.chunk_dir(condition, start, stop) / fname)
        if hashlib.sha256(data).hexdigest() != meta["files"][fname]:
            raise StoreError(
                f"{self.chunk_dir(condition, start, stop) / fname}: changed since it was "
                "verified (checksum); run the same command again to recompute it"
            )
        if columns is not None:
            import pyarrow.parquet as pq

            have = pq.ParquetFile(io.BytesIO(data)).schema_arrow.names
            missing = [c for c in columns if c not in have]
            if missing:
                raise InputError(
                    f"columns: table {table!r} has no column {', '.join(map(repr, missing))} (it has {', '.join(have)})"
                )
        if arrow:
            import pyarrow.parquet as pq

            return pq.read_table(io.BytesIO(data), columns=columns, read_dictionary=dictionary)
        return pd.read_parquet(io.BytesIO(data), columns=columns)

    def chunk_tables(self, condition: str, start: int, stop: int) -> list[str]:
        """The tables a chunk's ``chunk.json`` lists (other files in its directory are ignored)."""
        meta = self.chunk_meta(condition, start, stop)
        return sorted(f[: -len(".parquet")] for f in (meta or {"files": {}})["files"])


def chunk_identity(manifest: dict, condition: str, start: int, stop: int) -> dict:
    """What a chunk of the run described by ``manifest`` must record as its identity."""
    return {
        "study": manifest["study"],
        "condition": condition,
        "start": start,
        "stop": stop,
        "root_seed": manifest["root_seed"],
        "config_hash": manifest["config_hash"],
    }


@dataclass
class RunData:
    """The stored rows of a run, read lazily; what ``Study.summarize`` receives.

    ``table(name)`` concatenates that table over every complete chunk, in the
    canonical order (conditions as declared, then replication), so the result is
    the same whatever the number of workers, backend or interruptions.  Only
    chunks whose identity and provenance are the run's and whose checksums hold
    are read, and of each only the tables its ``chunk.json`` lists.
    """

    path: Path
    manifest: dict
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def store(self) -> RunStore:
        """The store of the run directory (chunks, manifest, lock)."""
        return RunStore(self.path)

    def chunk_states(self) -> dict:
        """``{(condition, start): state}`` for every chunk of the plan (see :meth:`RunStore.chunk_state`)."""
        if "_states" not in self._cache:
            prov = self.manifest.get("provenance")
            legacy = prov is None  # written before chunks recorded identity: checksums are all there is
            self._cache["_states"] = {
                (c["condition"], c["start"]): self.store.chunk_state(
                    c["condition"],
                    c["start"],
                    c["stop"],
                    None if legacy else chunk_identity(self.manifest, c["condition"], c["start"], c["stop"]),
                    prov,
                )
                for c in self.manifest["plan"]
            }
        return self._cache["_states"]

    def _chunks(self):
        """The complete, verified chunks (verified once per RunData)."""
        if "_ok" not in self._cache:
            states = self.chunk_states()
            self._cache["_ok"] = [c for c in self.manifest["plan"] if states[(c["condition"], c["start"])] == "ok"]
        return self._cache["_ok"]

    def tables(self) -> list[str]:
        """The names of the tables stored in the run's complete chunks.

        Returns
        -------
        list of str
            Sorted table names, e.g. ``["outcomes", "scores"]``.
        """
        if "_names" not in self._cache:
            names = set()
            for c in self._chunks():
                names.update(self.store.chunk_tables(c["condition"], c["start"], c["stop"]))
            self._cache["_names"] = sorted(names)
        return self._cache["_names"]

    def table(self, name: str) -> pd.DataFrame:
        """One table's rows over every complete, verified chunk.

        Parameters
        ----------
        name : str
            The table, e.g. ``"outcomes"``.

        Returns
        -------
        pandas.DataFrame
            The rows in the canonical order (conditions as declared, then
            replication), cached; ``failures`` is an empty frame when nothing failed.

        Raises
        ------
        KeyError
            No stored rows of that table.
        """
        if name not in self._cache:
            parts = [self.store.read_chunk_table(c["condition"], c["start"], c["stop"], name) for c in self._chunks()]
            parts = [p for p in parts if p is not None and len(p)]
            if not parts:
                if name in ("failures",):
                    self._cache[name] = pd.DataFrame(columns=["study", "condition", "replication", "seed", "error"])
                    return self._cache[name]
                raise KeyError(f"table {name!r}: no stored rows in {self.path} (tables: {', '.join(self.tables())})")
            self._cache[name] = pd.concat(parts, ignore_index=True)
        return self._cache[name]

    def table_chunks(
        self, name: str, columns: list[str] | None = None, conditions=None, *, arrow: bool = False, dictionary=None
    ):
        """One table's rows chunk by chunk, for summaries of tables too large to hold at once.

        Yields the same rows as :meth:`table`, in the same canonical order, one
        complete, verified chunk at a time (chunks without rows of the table are
        skipped), each with all columns or only ``columns``; nothing is cached.

        Parameters
        ----------
        name : str
            The table, e.g. ``"scores"``.
        columns : list of str, optional
            The columns to read (Parquet reads no others).  A column the table
            does not have raises ValueError naming it and the table's columns.
        conditions : iterable of str, optional
            Only the chunks of these conditions (keys).
        arrow : bool
            Yield ``pyarrow.Table`` objects instead (cheaper to concatenate in bulk).
        dictionary : list of str, optional
            With ``arrow``: text columns to read dictionary-encoded.

        Yields
        ------
        pandas.DataFrame or pyarrow.Table
        """
        keep = None if conditions is None else set(conditions)
        for c in self._chunks():
            if keep is not None and c["condition"] not in keep:
                continue
            part = self.store.read_chunk_table(
                c["condition"], c["start"], c["stop"], name, columns, arrow=arrow, dictionary=dictionary
            )
            if part is not None and len(part):
                yield part

    @property
    def failures(self) -> pd.DataFrame:
        """The failure rows (condition, replication, seed, error): the ``failures`` table."""
        return self.table("failures")

    def progress(self) -> pd.DataFrame:
        """Per condition: replications planned and stored.

        Returns
        -------
        pandas.DataFrame
            Columns ``condition``, ``planned`` and ``done`` (replications).
        """
        return pd.DataFrame(self.progress_rows())

    def progress_rows(self) -> list[dict]:
        """:meth:`progress` as plain dicts, one per condition (read without pandas, for ``simstudy status``)."""
        rows: dict[str, dict] = {}
        ok = {(c["condition"], c["start"]) for c in self._chunks()}
        for c in self.manifest["plan"]:
            r = rows.setdefault(c["condition"], {"condition": c["condition"], "planned": 0, "done": 0})
            r["planned"] += c["stop"] - c["start"]
            if (c["condition"], c["start"]) in ok:
                r["done"] += c["stop"] - c["start"]
        return list(rows.values())

    def n_failures(self) -> int:
        """How many replications of the verified chunks failed, from their ``chunk.json`` (no table is read).

        Equals ``len(self.failures)``: a chunk records the number of failure rows it stores.
        """
        total = 0
        for c in self._chunks():
            meta = self.store.chunk_meta(c["condition"], c["start"], c["stop"]) or {}
            total += int(meta.get("failures", 0))
        return total

    @property
    def complete(self) -> bool:
        """Whether every chunk of the plan is stored and verified."""
        return len(self._chunks()) == len(self.manifest["plan"])


def _name_max(path: Path) -> int:
    """The longest file name (in bytes) the file system of ``path`` (or of its nearest existing folder) takes."""
    for p in (path, *path.parents):
        if p.exists():
            try:
                return int(os.pathconf(p, "PC_NAME_MAX"))
            except (OSError, ValueError, AttributeError):
                break
    return 255


def check_folder_names(path, conditions) -> None:
    """Refuse, before anything is written, a run folder or condition key too long to be a folder's name.

    The folders of ``path`` that do not exist yet (the study's name and the
    profile, by default) and every condition key (each names the folder of its
    chunks) must fit the file system's limit on a name.
    """
    path = Path(path)
    limit = _name_max(path)
    for part in path.parts:
        if len(os.fsencode(part)) > limit:
            raise StoreError(
                f"{option('out')}: the folder name {part[:40]}... is {len(os.fsencode(part))} bytes long; this "
                f"file system takes at most {limit} (a study's name names its folder under results/: shorten it, "
                f"or give {option('out')})"
            )
    for key in conditions:
        if len(os.fsencode(key)) > limit:
            raise StoreError(
                f"condition key {key[:40]}...: {len(os.fsencode(key))} bytes long; it names the folder of the "
                f"condition's chunks and this file system takes at most {limit}: give the condition a shorter key"
            )


def remove_if_unused(top, path) -> None:
    """Remove the folders a refused run made, from ``top`` down to its run folder ``path``, if they hold no rows.

    Only a lock, a manifest and empty folders are removed; anything else (a
    chunk, a file of the user's) keeps the whole tree where it is.
    """
    top, path = Path(top), Path(path)
    keep = {LOCK, MANIFEST}
    fd = None
    try:
        if os.path.lexists(path / LOCK):  # a run that took the folder meanwhile keeps it
            fd = _open_lock(path / LOCK, os.O_RDWR)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        for root, dirs, files in os.walk(top):
            if any(f not in keep or Path(root) != path for f in files):
                return
            if any(os.path.islink(os.path.join(root, d)) for d in dirs):
                return
        shutil.rmtree(top)
    except (OSError, StoreError):
        pass
    finally:
        if fd is not None:
            os.close(fd)


def default_out(study: str, profile: str, root=DEFAULT_ROOT) -> Path:
    """Where a run of ``study`` at ``profile`` is stored by default: ``ROOT/STUDY/PROFILE``."""
    return Path(root) / study / profile
