"""The ``simstudy`` command line.

Each sub-command lives in a module of :mod:`simstudy.cli.commands` with a
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

import os
import signal
import sys

INTERRUPTED = "simstudy: interrupted; the finished chunks are stored, run the same command again to resume"
EXIT_INTERRUPTED = 130  # the shell's code for a command stopped by a signal it handled (128 + SIGINT)
_PROGRAM_SCRIPTS = ("simstudy", "simstudy.exe", "simstudy-script.py")


def _is_program() -> bool:
    """True when this process is the ``simstudy`` command: its console script, or ``python -m simstudy.cli``."""
    argv = list(getattr(sys, "orig_argv", ()))
    if "-m" in argv[:-1] and argv[argv.index("-m") + 1] == __name__:  # python -m simstudy.cli: this package
        return True
    main_module = sys.modules.get("__main__")
    if getattr(main_module, "__name__", None) != "__main__":  # e.g. a worker process that re-ran the script
        return False
    return os.path.basename(getattr(main_module, "__file__", None) or "") in _PROGRAM_SCRIPTS


def _stop_before_main(signum, frame) -> None:
    """SIGTERM or SIGINT before :func:`main` has begun: nothing is written and no worker runs yet.

    The process ends at once with :data:`INTERRUPTED` and
    :data:`EXIT_INTERRUPTED`, as it would a moment later.
    """
    try:
        os.write(2, (INTERRUPTED + "\n").encode())
    except OSError:
        pass
    os._exit(EXIT_INTERRUPTED)


def _guard_start() -> None:
    """Install :func:`_stop_before_main` for SIGTERM and SIGINT, first thing when the program starts.

    The ``simstudy`` program imports this module before anything else of its
    own; until :func:`main` installs its handlers, a signal would otherwise
    meet the default disposition (SIGTERM: the process ends with -SIGTERM)
    or Python's (SIGINT: a KeyboardInterrupt traceback from an import).  A
    handler someone else installed is left alone, and nothing happens when
    this module is imported by another program.
    """
    if not _is_program():
        return
    for signum in (signal.SIGTERM, signal.SIGINT):
        try:
            if signal.getsignal(signum) in (signal.SIG_DFL, signal.default_int_handler):
                signal.signal(signum, _stop_before_main)
        except ValueError:  # not the main thread: signals are not this import's business
            return


_guard_start()

import argparse  # noqa: E402  (after the guard: a signal during these imports ends the program cleanly)
import importlib  # noqa: E402

from simstudy import __version__  # noqa: E402
from simstudy.cli.commands import COMMAND_MODULES  # noqa: E402
from simstudy.errors import (  # noqa: E402
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_STORED,
    InputError,
    StoredDataError,
    command_line,
)


class UsageError(InputError):
    """Bad input from the user on the command line: reported on one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse's default prints usage first)
        raise UsageError(message)


from simstudy._files import DEFAULT_PROFILE  # noqa: E402


def add_profile_option(parser, *, reads_run: bool = False) -> None:
    """``--profile P``; for a command that reads a stored run, the default follows ``--out``."""
    if reads_run:
        parser.add_argument(
            "--profile",
            metavar="P",
            default=None,
            help=f"the study's profile: smoke, quick or paper (default {DEFAULT_PROFILE}; "
            "with --out, the stored run's own)",
        )
    else:
        parser.add_argument(
            "--profile",
            metavar="P",
            default=DEFAULT_PROFILE,
            help=f"the study's profile: smoke, quick or paper (default {DEFAULT_PROFILE})",
        )


def add_run_dir_option(parser, help: str | None = None) -> None:
    """``--out DIR``, the run directory of one study at one profile."""
    parser.add_argument(
        "--out", metavar="DIR", default=None, help=help or "the run directory (default results/STUDY/PROFILE)"
    )


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


class _Stop:
    """SIGTERM and SIGINT during one command: it stops like Ctrl-C, with one line and exit status 130.

    A polite kill (SIGTERM) and Ctrl-C (SIGINT) are the same request: stop,
    keep what is finished.  Whenever one arrives, the command ends with
    :data:`INTERRUPTED` on standard error (once) and exit status
    :data:`EXIT_INTERRUPTED`, no traceback, and no worker process left:

    ``run``
        while the command runs, the first signal raises KeyboardInterrupt
        where the command is (finished chunks stay stored; a chunk being
        written is discarded on resume).
    ``finish``
        when the command is done (or already interrupted), its local worker
        processes are stopped and waited for; a signal then is only recorded,
        so that the shutdown completes, and the command reports it.
    ``exit``
        after :func:`main` has returned, while the interpreter shuts down
        (``program`` only): a signal ends the process at once, since nothing
        is left to clean up.

    A second signal in ``run`` or ``finish`` ends the process at once too
    (one line, 130): the store is safe at any moment, the orderly way is
    only faster to resume.  Worker processes die with this process whatever
    the way it ends (see ``_die_with_parent`` in :mod:`simstudy.engine.runner`).

    ``program``: :func:`main` is the process (the ``simstudy`` command).  It
    then also owns the process's end: the last exit handler flushes the
    standard streams and ends the process with the command's status.  Without
    it, a signal arriving after the interpreter has reset its handlers (while
    it tears down its modules, a few hundred milliseconds with numpy and
    pandas loaded) would end the process with -SIGTERM, and a KeyboardInterrupt
    that passed through C code during the command (an import, a compiled
    extension) would make CPython end it with -SIGINT whatever the status.
    Otherwise (``main`` called from Python, e.g. a test) the previous
    handlers are restored when the command returns.

    Before :func:`main` begins, the program is already guarded (see
    :func:`_guard_start`); a KeyboardInterrupt that Python could only print
    and drop is delivered again (see :meth:`_unraisable_interrupt`).
    """

    SIGNALS = ("SIGTERM", "SIGINT")

    def __init__(self, program: bool):
        import signal

        self.program = program
        self.phase = "run"
        self.signals = 0
        self.last: int | None = None
        self.said = False
        self.status: int | None = None
        self._previous = {}
        for name in self.SIGNALS:
            signum = getattr(signal, name)
            self._previous[signum] = signal.signal(signum, self._handle)
        self._unraisable = sys.unraisablehook
        sys.unraisablehook = self._unraisable_interrupt
        if program:
            import atexit

            atexit.register(self._end_process)  # registered first, so it runs last

    def _handle(self, signum, frame):
        self.signals += 1
        self.last = signum
        if self.phase == "run" and self.signals == 1:
            raise KeyboardInterrupt
        if self.phase == "finish" and self.signals == 1:
            return  # recorded: the shutdown completes, then the command reports the interruption
        self._exit_now()

    def _unraisable_interrupt(self, unraisable) -> None:
        """The KeyboardInterrupt of a signal raised where Python cannot raise it: delivered again.

        The handler raises where the main thread is; in a weakref callback, a
        ``__del__`` method or an import lock's clean-up (all frequent while
        modules are imported) Python can only print the exception as
        "Exception ignored in ..." and drop it, so the command would go on.
        Such a KeyboardInterrupt is not printed; the signal is sent to the
        main thread once more a moment later, once it has left this hook
        (from a helper thread, so that it is not handled inside this hook,
        and wakes the main thread from a blocking call).  Anything else goes
        to the previous hook.
        """
        if (
            issubclass(unraisable.exc_type, KeyboardInterrupt)
            and self.phase == "run"
            and self.signals == 1
            and self.last is not None
        ):
            import threading
            import time

            self.signals = 0
            main_thread = threading.main_thread().ident
            hook = type(self)._unraisable_interrupt.__code__

            def in_hook() -> bool:
                frame = sys._current_frames().get(main_thread)
                while frame is not None and frame.f_code is not hook:
                    frame = frame.f_back
                return frame is not None

            def again():
                # not while the main thread is still in this hook (starting this thread waits for it to start,
                # which on a busy machine can outlast a fixed delay): raised there, the interrupt would be
                # dropped once more, for good
                time.sleep(0.01)
                while in_hook():
                    time.sleep(0.001)
                if self.phase == "run" and self.signals == 0:
                    if hasattr(signal, "pthread_kill"):
                        signal.pthread_kill(main_thread, self.last)
                    else:  # pragma: no cover - Windows
                        import _thread

                        _thread.interrupt_main(self.last)

            threading.Thread(target=again, name="simstudy-interrupt-again", daemon=True).start()
            return
        self._unraisable(unraisable)

    def say(self, *, in_handler: bool = False) -> None:
        """:data:`INTERRUPTED` on standard error, once per process.

        From a signal handler the line goes to the file descriptor: the main
        thread may be inside a write to ``sys.stderr`` (whose buffer refuses a
        reentrant call).
        """
        if self.said:
            return
        self.said = True
        if not in_handler:
            print(INTERRUPTED, file=sys.stderr)
            _flush(sys.stderr)
            return
        _flush(sys.stdout, sys.stderr)
        try:
            os.write(2, (INTERRUPTED + "\n").encode())
        except OSError:
            pass

    def interrupted(self) -> int:
        self.say()
        return EXIT_INTERRUPTED

    def _exit_now(self):
        if self.phase == "exit":  # the workers are gone: the resource trackers can be waited for too
            _stop_resource_trackers()
        self.say(in_handler=True)
        _flush(sys.stdout, sys.stderr)
        os._exit(EXIT_INTERRUPTED)

    def finish(self, status: int | None) -> int | None:
        """Stop the command's local workers (signals recorded meanwhile); the status to exit with."""
        self.phase = "finish"
        interrupted = status == EXIT_INTERRUPTED or self.signals > 0
        runner = sys.modules.get("simstudy.engine.runner")
        if runner is not None:
            try:
                runner.stop_workers(kill=interrupted)
            except Exception:  # pragma: no cover - the workers die with this process (see _die_with_parent)
                pass
        if self.signals and status is not None:
            status = self.interrupted()
        self.status = status
        if self.program:
            self.phase = "exit"
        else:
            import signal

            for signum, handler in self._previous.items():
                signal.signal(signum, handler)
            if sys.unraisablehook == self._unraisable_interrupt:
                sys.unraisablehook = self._unraisable
        return status

    def _end_process(self):
        """The last exit handler of the ``simstudy`` process: flush and end it with the command's status."""
        import signal

        if self.status is None:  # main did not return (an unexpected exception): the interpreter's way
            return
        signal.pthread_sigmask(signal.SIG_BLOCK, [getattr(signal, n) for n in self.SIGNALS])
        _stop_resource_trackers()  # no process of the command outlives it, not even a helper
        if self.signals:
            self.say(in_handler=True)
            self.status = EXIT_INTERRUPTED
        _flush(sys.stdout, sys.stderr)
        os._exit(self.status)


def _stop_resource_trackers() -> None:
    """The resource trackers of the command's worker pools, ended and waited for (when the engine was used)."""
    runner = sys.modules.get("simstudy.engine.runner")
    if runner is not None:
        try:
            runner.stop_resource_trackers()
        except Exception:  # pragma: no cover - they end by themselves when this process has ended
            pass


def _flush(*streams) -> None:
    for stream in streams:
        try:
            stream.flush()
        except (OSError, ValueError, RuntimeError):  # a closed pipe or file, or a write under way
            pass


def main(argv=None) -> int:
    """Run the command ``argv`` (default: the process's arguments); its exit status.

    Called without ``argv`` it is the ``simstudy`` program and also ends the
    process (see :class:`_Stop`).
    """
    import threading

    stop = None
    if threading.current_thread() is threading.main_thread():
        stop = _Stop(program=argv is None)
    status = None
    try:
        status = _command(argv)
    except KeyboardInterrupt:
        status = stop.interrupted() if stop is not None else _interrupted()
    except Exception:
        if stop is None or not stop.signals:
            raise
        status = stop.interrupted()  # whatever the command ended with, it was stopped: that is what it reports
    finally:
        if stop is not None:
            status = stop.finish(status)
    return status


def _interrupted() -> int:
    print(INTERRUPTED, file=sys.stderr)
    return EXIT_INTERRUPTED


#: The options of every command that name a folder: an empty one would mean the working directory, which
#: nobody asks for that way (``--out ""`` from an unset shell variable), so it is refused before anything runs.
FOLDER_OPTIONS = ("out", "results", "report_dir")


def _refuse_empty_folders(args) -> None:
    from simstudy._files import folder_option

    for dest in FOLDER_OPTIONS:
        value = getattr(args, dest, None)
        if isinstance(value, str):
            folder_option(value, "--" + dest.replace("_", "-"))


def _command(argv) -> int:
    with command_line():
        return _run_command(argv)


def _run_command(argv) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        _refuse_empty_folders(args)
        return int(args.func(args) or 0)
    except (UsageError, InputError) as exc:
        print(f"simstudy: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except StoredDataError as exc:
        print(f"simstudy: error: {exc}", file=sys.stderr)
        return EXIT_STORED
    except BrokenPipeError:  # output piped into e.g. `head`: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a file the command needs cannot be read or written (permissions, full disk)
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        print(f"simstudy: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    except Exception as exc:  # not the input, not the stored data: a failure of simstudy or of code it ran
        return _internal_failure(exc)


def _internal_failure(exc: BaseException) -> int:
    """Print an exception no one raised on purpose as what it is, with its traceback; :data:`EXIT_INTERNAL`."""
    import traceback

    traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    print(
        f"simstudy: internal error: {type(exc).__name__}: {' '.join(str(exc).split())}\n"
        "This is a failure of simstudy or of code it ran (a study's or a learner's), not of the command's input. "
        f"Please report it with the command, `simstudy --version` ({__version__}) and the traceback above.",
        file=sys.stderr,
    )
    return EXIT_INTERNAL
