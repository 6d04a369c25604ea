"""Where runs live by default, and writing files so that a reader sees the old content or the new, never part of one."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from simstudy.errors import InputError, StoredDataError

__all__ = ["write_atomic", "folder_below", "check_writable", "LinkRefused", "DEFAULT_ROOT", "DEFAULT_PROFILE"]

#: Where runs are stored and looked for when no directory is given: ``results/STUDY/PROFILE``.
DEFAULT_ROOT = Path("results")
#: The profile a command uses when none is given.
DEFAULT_PROFILE = "quick"


class LinkRefused(StoredDataError):
    """A symbolic link where a folder's own files or subfolders belong (reported on one line, exit code 2)."""


def folder_option(value, option: str) -> Path:
    """``value`` as a folder path, refusing an empty one on one line naming ``option`` (``Path("")`` is the
    working directory, where nothing was asked to go)."""
    if not str(value).strip():
        raise InputError(f"{option}: must name a folder, got an empty string")
    return Path(value)


def folder_below(root, *parts, option: str | None = None) -> Path:
    """``root/parts...``, created where missing; never reached through a symbolic link below ``root``.

    ``root`` itself may be a link (the user chose it); what lies below it is
    data, as in a run folder: a component that is a symbolic link (or not a
    folder) raises :class:`LinkRefused` naming it, before anything is written.  Messages start with
    ``option``, the argument ``root`` came from (default ``out``, ``--out`` on the command line).
    """
    import stat

    if option is None:  # named as the caller sees it, now
        from simstudy.errors import option as named

        option = named("out")

    path = Path(root)
    for part in parts:
        if part in ("", ".", "..") or os.sep in part:
            raise LinkRefused(f"{option}: {part!r} does not name a folder below {root}")
        path = path / part
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            try:
                os.mkdir(path)
            except FileExistsError:
                pass
            st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            raise LinkRefused(
                f"{option}: {path} is a symbolic link; simstudy writes a run's files only into its own folders "
                "(remove the link, or use another folder)"
            )
        if not stat.S_ISDIR(st.st_mode):
            raise LinkRefused(f"{option}: {path} is not a folder")
    return path


def check_writable(folders, *, what: str = "") -> None:
    """Fail on one line naming the option when one of ``folders`` cannot be written; before any work is done.

    ``folders`` is ``[(option, path), ...]``.  Each folder is created where
    missing and a file is written into it and removed.  When one fails, the
    folders created for the probe (and left empty) are removed again, so a
    refused command leaves nothing behind.

    Raises
    ------
    ValueError
        ``"OPTION: cannot write WHAT to PATH (reason); choose a writable directory with OPTION"``.
    """
    import shutil

    made: list[Path] = []
    try:
        for option, path in folders:
            path = Path(path)
            missing = [p for p in (path, *path.parents) if not (p.exists() or p.is_symlink())]
            made.extend(reversed(missing))  # the shallowest first; only those that exist are taken away
            try:
                path.mkdir(parents=True, exist_ok=True)
                probe = path / f".write-test-{uuid.uuid4().hex}"
                probe.write_bytes(b"")
                probe.unlink()
            except OSError as exc:
                raise InputError(
                    f"{option}: cannot write {what + ' ' if what else ''}to {path} ({exc.strerror or exc}); "
                    f"choose a writable directory for {option}"
                ) from None
    except ValueError:
        for p in reversed(made):  # the deepest first
            if p.is_dir() and not os.listdir(p):
                shutil.rmtree(p, ignore_errors=True)
        raise


def write_atomic(path, data, *, fsync: bool = True) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    Parameters
    ----------
    path : path-like
    data : str or bytes
        Text is encoded as UTF-8.
    fsync : bool
        Sync the file to disk before the rename, so the new content also
        survives a power cut (milliseconds per call); without it a killed
        process still leaves the old file or the new one.

    Returns
    -------
    pathlib.Path
        ``path``.  On any failure (e.g. a full disk) the temporary file is
        removed and ``path`` is left as it was.
    """
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
