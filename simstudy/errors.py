"""The three kinds of failure, each a type of its own.

:class:`InputError`
    What the caller asked for cannot be done as asked: an argument out of its
    range, an unknown name, data a learner cannot take.  The message names the
    argument (``designs: ...``); the command line names its option instead and
    shows it on one line, exit status 2.  It is a :class:`ValueError`, as
    scipy's and scikit-learn's argument errors are.
:class:`StoredDataError`
    Stored results cannot be used as asked, or a run cannot go on: a run
    directory made by other code or another configuration, one locked by
    another writer, a link where data belong, a file that cannot be written, a
    worker process that ended abruptly.  One line, exit status 2 as for an
    input error (the command cannot be done as asked; the line says what to
    do); what is stored stays valid.  It is *not* a :class:`ValueError`: the
    values the caller passed are not at fault, and code that catches a
    :class:`ValueError` to try another value must not swallow it.
:class:`InternalError`
    A failure of simstudy itself, never of the input: the command line shows
    it as such, with the traceback and how to report it, exit status 70.  Any
    other exception that reaches the command line is treated the same way.

Library code raises the first two; an exception of another type that escapes is
a bug (ours, or in code a study runs).

A message names an argument through :func:`option`, so that one message reads
right wherever it is raised: ``designs: ...`` or ``pass fresh=True`` to a
Python caller, ``--designs: ...`` or ``pass --fresh`` on the command line,
which sets :func:`command_line` around each command.
"""

from __future__ import annotations

import contextlib
import contextvars

__all__ = [
    "SimstudyError",
    "InputError",
    "StoredDataError",
    "InternalError",
    "EXIT_INPUT",
    "EXIT_STORED",
    "EXIT_INTERNAL",
    "option",
    "command_line",
    "on_command_line",
]

#: Exit status of the command line for an :class:`InputError` (as argparse's).
EXIT_INPUT = 2
#: Exit status for a :class:`StoredDataError`.
EXIT_STORED = 2
#: Exit status for an internal failure (``EX_SOFTWARE`` of ``sysexits.h``).
EXIT_INTERNAL = 70


class SimstudyError(Exception):
    """Base of the errors simstudy raises on purpose."""

    exit_status = EXIT_INTERNAL


class InputError(SimstudyError, ValueError):
    """The input cannot be used as given; the message starts with the argument's name."""

    exit_status = EXIT_INPUT


class StoredDataError(SimstudyError):
    """Stored results cannot be used as asked, or a run cannot go on (one line; what is stored stays valid)."""

    exit_status = EXIT_STORED


class InternalError(SimstudyError):
    """A failure of simstudy itself."""

    exit_status = EXIT_INTERNAL


_COMMAND_LINE: contextvars.ContextVar[bool] = contextvars.ContextVar("simstudy_command_line", default=False)
_UNSET = object()


def option(name: str, value=_UNSET, *, flag: str | None = None) -> str:
    """How a message names the argument ``name`` (a Python parameter), with ``value`` if given.

    In Python: ``name`` or ``name='quick'``; on the command line (inside
    :func:`command_line`): ``--name`` or ``--name quick``, where the option is
    ``flag`` if given, else ``name`` with ``_`` spelled ``-``.  A value of
    ``True`` is a switch: ``fresh=True`` in Python, ``--fresh`` on the command line.
    """
    if _COMMAND_LINE.get():
        spelled = "--" + (flag if flag is not None else name.replace("_", "-"))
        if value is _UNSET or value is True:
            return spelled
        return f"{spelled} {value}"
    if value is _UNSET:
        return name
    return f"{name}={value!r}"


def on_command_line() -> bool:
    """Whether :func:`option` names arguments as command-line options here and now."""
    return _COMMAND_LINE.get()


@contextlib.contextmanager
def command_line(on: bool = True):
    """Within this block, :func:`option` names arguments as command-line options (as Python's if not ``on``).

    A worker process that serves a command passes ``on_command_line()`` of its caller, so that its messages
    read as the caller's would.
    """
    token = _COMMAND_LINE.set(bool(on))
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)
