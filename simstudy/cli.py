"""The ``simstudy`` command line.

Each sub-command lives in a module of :mod:`simstudy.commands` with a
``register(subparsers)`` function that adds its parser and sets ``func``.
Errors in the user's input are reported on one line with exit code 2.

Options mean the same in every command:

* ``--profile P``: the study's profile (``smoke``, ``quick``, ``paper``);
  ``quick`` by default, and for a command that reads a run given by ``--out``,
  that run's own profile.
* ``--out DIR``: the run directory of one study at one profile (default
  ``results/STUDY/PROFILE``): where ``run`` stores it and where ``status``,
  ``summarize``, ``compare`` and ``bench`` read it (and put what they write).
  ``report``, which gathers many runs, writes its page to ``--out``.
* ``--results ROOT``: only where a command reads several studies, the root
  that holds them as ``ROOT/STUDY/PROFILE`` (``report``).

:func:`add_profile_option`, :func:`add_run_dir_option` and :func:`locate_run`
give a sub-command these options and their errors.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from . import __version__
from .commands import COMMAND_MODULES


class UsageError(Exception):
    """Bad input from the user: reported on one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse's default prints usage first)
        raise UsageError(message)


DEFAULT_PROFILE = "quick"
DEFAULT_ROOT = Path("results")


def add_profile_option(parser, *, reads_run: bool = False) -> None:
    """``--profile P``; for a command that reads a stored run, the default follows ``--out``."""
    if reads_run:
        parser.add_argument("--profile", metavar="P", default=None,
                            help=f"the study's profile: smoke, quick or paper (default {DEFAULT_PROFILE}; "
                                 "with --out, the stored run's own)")
    else:
        parser.add_argument("--profile", metavar="P", default=DEFAULT_PROFILE,
                            help=f"the study's profile: smoke, quick or paper (default {DEFAULT_PROFILE})")


def add_run_dir_option(parser, help: str | None = None) -> None:
    """``--out DIR``, the run directory of one study at one profile."""
    parser.add_argument("--out", metavar="DIR", default=None,
                        help=help or "the run directory (default results/STUDY/PROFILE)")


def stored_profiles(study, root=DEFAULT_ROOT) -> list[str]:
    """The profiles of ``study`` with a stored run under ``root`` (``ROOT/STUDY/PROFILE``)."""
    root = Path(root)
    return [p for p in study.profiles if (root / study.name / p / "manifest.json").is_file()]


def locate_run(study, profile: str | None, out=None, *, root=DEFAULT_ROOT, spelled: str | None = None):
    """The run directory and profile a command reads; one-line errors for everything the user can get wrong.

    Parameters
    ----------
    study : simstudy.engine.Study
        The study, already resolved.
    profile : str or None
        ``--profile`` as given (None: not given).
    out : path-like, optional
        ``--out`` as given.
    root : path-like
        Where runs are looked for without ``--out`` (``ROOT/STUDY/PROFILE``).
    spelled : str, optional
        The study as the user typed it (a name or a file), for the commands the errors suggest.

    Returns
    -------
    (pathlib.Path, str)
        The run directory and its profile.

    Raises
    ------
    ValueError
        An unknown profile (naming the study's profiles), no stored run there
        (naming the profiles that are stored, or the command that stores one),
        or a run directory holding another profile.
    """
    from .engine.store import RunStore

    spelled = spelled or study.name
    if profile is not None:
        study.profile(profile)  # unknown: one line naming the study's profiles
    if out is not None:
        path = Path(out)
        manifest = RunStore(path).read_manifest()
        if manifest is None:
            raise ValueError(f"--out: no stored run in {path}; store one with `simstudy run {spelled} "
                             f"--profile {profile or DEFAULT_PROFILE} --out {path}`")
        if profile is None:
            profile = manifest.get("profile", DEFAULT_PROFILE)
        elif manifest.get("profile") != profile:
            raise ValueError(f"--out: {path} holds profile {manifest.get('profile')!r}, not {profile!r}; "
                             f"pass --profile {manifest.get('profile')} or another --out")
        return path, profile
    profile = profile or DEFAULT_PROFILE
    path = Path(root) / study.name / profile
    if not (path / "manifest.json").is_file():
        stored = stored_profiles(study, root)
        if stored:
            raise ValueError(f"--profile: study {study.name!r} has no run stored at profile {profile!r} ({path}); "
                             f"stored at: {', '.join(stored)}; pass --profile {stored[0]}, or run "
                             f"`simstudy run {spelled} --profile {profile}` first")
        raise ValueError(f"study {study.name!r}: nothing stored in {path}; run `simstudy run {spelled} "
                         f"--profile {profile}` first")
    return path, profile


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
