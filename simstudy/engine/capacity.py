"""What this machine can carry out: a plan of stored chunks and hours of work checked before anything is written.

``simstudy assess`` (its repeats of the designs) and ``simstudy solve`` (its
blocks of replications) refuse, on one line with the estimates, a plan that
needs more memory than is available, more disk than is free where it is stored,
or more than a year of work (:func:`check_capacity`).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from simstudy.errors import InputError

__all__ = ["LONGEST_PLAN", "PLAN_BYTES_PER_CHUNK", "STORED_BYTES_PER_CHUNK", "available_memory", "check_capacity"]

#: Memory the engine takes to plan and track one stored chunk (its plan entry, its manifest line), an upper estimate.
PLAN_BYTES_PER_CHUNK = 1024
#: Disk one stored chunk takes at the least (its tables and checksums, file system blocks).
STORED_BYTES_PER_CHUNK = 16 * 1024
#: Seconds of work beyond which a plan is refused whatever the machine (a year).
LONGEST_PLAN = 365 * 24 * 3600.0


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux's MemAvailable; else the physical memory); None
    when unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def bytes_text(n: float) -> str:
    """``n`` bytes as people read them (``1.5 GB``)."""
    for unit in ("bytes", "KB", "MB", "GB", "TB", "PB"):
        if n < 1024 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n:,.1f} PB"


def duration_text(seconds: float) -> str:
    """``seconds`` in the largest unit that fits (``2.0 years``, ``3.5 hours``)."""
    for unit, size in (("years", 365 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:.1f} seconds"


def check_capacity(n_chunks: int, seconds: float, out, *, what: str, option: str, timing: str) -> None:
    """Refuse, before anything is written, a plan the machine cannot carry out (one line, with the estimates).

    ``n_chunks`` stored chunks take about :data:`PLAN_BYTES_PER_CHUNK` of
    memory each to plan and :data:`STORED_BYTES_PER_CHUNK` of disk each to
    store; ``seconds`` is the work the plan needs.  Refused: more memory than is
    available, more disk than is free where ``out`` is, or more than
    :data:`LONGEST_PLAN` of work.  ``timing`` says where the seconds come from
    (``{}``: their duration); ``option`` and ``what`` name the plan.
    """
    memory, disk = n_chunks * PLAN_BYTES_PER_CHUNK, n_chunks * STORED_BYTES_PER_CHUNK
    have = available_memory()
    where = Path(out).absolute()
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        free = None
    short = []
    if have is not None and memory > have:
        short.append(f"planning them needs about {bytes_text(memory)} of memory ({bytes_text(have)} available)")
    if free is not None and disk > free:
        short.append(f"storing them about {bytes_text(disk)} of disk ({bytes_text(free)} free in {where})")
    if short or seconds > LONGEST_PLAN:
        beyond = " (more than the year a plan may take)" if seconds > LONGEST_PLAN else ""
        short.append(timing.format(duration_text(seconds)) + beyond)
        raise InputError(
            f"{option}: {what} make {n_chunks:,} stored chunks, more than this machine can carry out: "
            f"{'; '.join(short)}; use fewer"
        )
