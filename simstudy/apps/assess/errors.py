"""What a learner raised, in one line: the errors of a learner fitted in its worker process (stopped at its
limit, or raising there) and the one-line texts every check prints of an exception.
"""

from __future__ import annotations

import shlex

from simstudy.errors import on_command_line, option


class FitStopped(RuntimeError):
    """A contained learner was stopped at its time limit, or its worker process ended (while loading or fitting)."""


class _LearnerError(Exception):
    """What a learner raised in its worker process: the exception's type name and message."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _error_text(exc) -> str:
    """``Type: message`` of an exception raised here or, by a learner, in its worker process."""
    return f"{exc.kind if isinstance(exc, _LearnerError) else type(exc).__name__}: {exc}"


def _one_line(exc, limit: int = 300) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    kind = exc.kind if isinstance(exc, _LearnerError) else type(exc).__name__
    return f"{kind}: {first[:limit]}" if first else kind


def _first_line(text: str, limit: int = 300) -> str:
    text = str(text).strip()
    return (text.splitlines()[0] if text else "")[:limit]


def _listed(name: str, values, *, flag: str | None = None) -> str:
    """:func:`~simstudy.errors.option` with a list of values: ``name=['a', 'b']`` in Python, ``--name a b`` (each
    value quoted for the shell as needed) on the command line."""
    values = list(values)
    if on_command_line():
        return option(name, " ".join(shlex.quote(str(v)) for v in values), flag=flag)
    return option(name, values, flag=flag)
