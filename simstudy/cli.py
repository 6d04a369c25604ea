"""The ``simstudy`` command line.

Each sub-command lives in a module of :mod:`simstudy.commands` with a
``register(subparsers)`` function that adds its parser and sets ``func``.
Errors in the user's input are reported on one line with exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .commands import COMMAND_MODULES


class UsageError(Exception):
    """Bad input from the user: reported on one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse's default prints usage first)
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="simstudy", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"simstudy {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # sub-command not built yet
                continue
            raise
        module.register(sub)
    return parser


def _terminate(signum, frame):  # a polite kill (SIGTERM) stops like Ctrl-C: finished chunks stay stored
    raise KeyboardInterrupt


def main(argv=None) -> int:
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return int(args.func(args) or 0)
    except (UsageError, ValueError) as exc:
        print(f"simstudy: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`: not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a file the command needs cannot be read or written (permissions, full disk)
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        print(f"simstudy: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("simstudy: interrupted; the finished chunks are stored, run the same command again to resume",
              file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
