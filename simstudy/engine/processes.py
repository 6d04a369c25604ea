"""The processes of a run: workers that die with it, signals held while they start, and their ending.

A run's loky workers must not outlive the command that started them, must not
be ended half-way by a Ctrl-C meant for the command, and must leave nothing
behind (zombies, resource trackers) once the command has returned.
"""

from __future__ import annotations

import os
import signal
import sys
import time

__all__ = ["stop_workers", "stop_resource_trackers", "remove_orphaned_shared_memory", "exit_refused", "ExitCalled"]

# Run in each loky worker as it starts (see _die_with_parent).  Source code run by the builtin
# ``exec``, so that the worker need not import simstudy (numpy, pandas, ...) before it is protected.
_DIE_WITH_PARENT = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops its workers (see _die_with_parent)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if hasattr(signal, "pthread_sigmask"):  # held by the parent while it started this worker (see _signals_held)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])
parent = {parent}
armed = False
if sys.platform.startswith("linux"):
    try:
        import ctypes
        armed = ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0) == 0  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        armed = False
if os.getppid() != parent:  # the parent is already gone
    os._exit(1)
if not armed:
    import threading, time

    def _watch_parent():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=_watch_parent, name="simstudy-parent-watch", daemon=True).start()
"""


def _die_with_parent(parent: int | None = None):
    """A loky worker initializer: the worker ends when the process running the study ends, however it ends.

    On Linux the kernel sends the worker SIGKILL when its parent dies
    (``prctl(PR_SET_PDEATHSIG)``); elsewhere a daemon thread polls the parent
    pid once a second.  A worker whose parent is already gone exits at once.

    The worker ignores SIGINT and SIGTERM: Ctrl-C in a terminal, or a kill of
    the whole process group (a batch system, a service manager), reaches the
    workers too, and a worker that died of it before the parent had handled
    its own signal would turn the orderly stop into a broken pool.  The parent
    stops its workers (see :func:`stop_workers`), or they die with it.  Until
    this code runs (the worker's interpreter starts, a few hundred
    milliseconds) the two signals are held: the parent starts its workers
    with them blocked (:func:`_signals_held`), and one that arrived meanwhile
    is discarded when the worker ignores it.

    Returns
    -------
    initializer, initargs
        The builtin ``exec`` and its arguments (the code and a fresh namespace):
        unpickling them in the worker imports nothing, so the protection is in
        place within a fraction of a second of the worker's start.
    """
    parent = os.getpid() if parent is None else int(parent)
    return exec, (_DIE_WITH_PARENT.format(parent=parent), {})


def _start_resource_trackers() -> None:
    """Start the resource tracker processes of multiprocessing and loky now, quiet, if they are not running.

    Python's own tracker (up to 3.11 at least) unblocks SIGINT and SIGTERM in
    the thread that starts it, whatever that thread had blocked; started here,
    before :func:`_signals_held`, it cannot undo the holding while loky starts
    its workers.  Their standard error is the null device: after a stop that
    could not wait for the workers (a second signal), a tracker removes what
    they left and would say so in several lines of warnings, which are not
    the user's business (the command's own line says what happened).
    """
    started = []
    for name in ("multiprocessing.resource_tracker", "joblib.externals.loky.backend.resource_tracker"):
        try:
            module = __import__(name, fromlist=["ensure_running"])
        except ImportError:  # pragma: no cover - a platform without one
            continue
        tracker = getattr(module, "_resource_tracker", None)
        if getattr(tracker, "_fd", None) is None:
            started.append(module)
    if not started:
        return
    _flush_std()
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)  # inherited by the trackers only: nothing else writes during the start
        for module in started:
            try:
                module.ensure_running()
            except Exception:  # pragma: no cover - the workers start unprotected then
                pass
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass


def _signals_held():
    """A context manager holding (blocking) SIGINT and SIGTERM in this thread while it is open.

    A process or thread started meanwhile inherits the held signals: loky's
    workers (and its manager thread, which starts replacements) begin with
    them held, so that Ctrl-C in a terminal or a kill of the process group
    cannot end a worker, or print a KeyboardInterrupt traceback from one,
    before :func:`_die_with_parent` has made it ignore them.  A signal that
    arrives for this process meanwhile stays pending and is handled as soon as
    the context exits.  Nothing is held where ``signal.pthread_sigmask`` is
    missing (Windows).
    """
    import contextlib

    @contextlib.contextmanager
    def ctx():
        if not hasattr(signal, "pthread_sigmask"):
            yield
            return
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT, signal.SIGTERM])
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    return ctx()


# joblib's warning when a generator of results is closed before its end: the tasks it cancelled
_EARLY_EXIT = r"\d+ tasks (have been successfully executed|which were still being processed)"


def _closing():
    """A context manager giving ``keep(generator)``; the kept generators are closed when it exits.

    A run stopped between two results (KeyboardInterrupt while a chunk is
    stored) leaves joblib's generator unfinished; closing it here stops its
    workers at once, in the stopping thread, and without joblib's warning
    about the cancelled tasks (cancelling them is the point of the stop).
    """
    import contextlib
    import warnings

    @contextlib.contextmanager
    def ctx():
        kept = []
        try:
            yield lambda gen: kept.append(gen) or gen
        finally:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=_EARLY_EXIT, category=UserWarning)
                for gen in kept:
                    gen.close()

    return ctx()


def stop_workers(*, kill: bool = False) -> None:
    """End the loky worker processes this process started, and wait until they are gone.

    joblib keeps its loky workers for the next call (and ends them when the
    interpreter exits); the command line ends them when a command is done, so
    that nothing of the command is left once it has returned, and the
    interpreter's own shutdown has no worker left to wait for.  Nothing
    happens when loky was never used.

    Parameters
    ----------
    kill : bool
        An interrupted command kills its workers instead of letting them
        finish their task.

    Notes
    -----
    loky sends a killed worker SIGKILL without waiting for it; each worker is
    waited for here (and killed if it is still alive after a shutdown that an
    interruption left half done), so that none is left as a zombie for the
    process that inherits it when this one has ended.  The resource
    trackers, helper processes that hold no work, stay until the end (see
    :func:`stop_resource_trackers`): stopped earlier they would release
    semaphores this process still holds.
    """
    reusable = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(reusable, "_executor", None)
    if executor is None:
        return
    workers = list((getattr(executor, "_processes", None) or {}).values())
    stop = getattr(executor, "terminate", None) or executor.shutdown  # joblib's also removes its temporary files
    try:
        stop(kill_workers=kill)
    except Exception:  # a pool an interruption left half stopped: its workers are ended below
        kill = True
    for worker in workers:
        _reap(worker, kill)


def stop_resource_trackers(timeout: float = 2.0) -> None:
    """End the resource tracker processes (Python's and loky's) this process started, and wait for them.

    A tracker ends by itself when the process that started it has ended (its
    pipe closes), but then nobody waits for it but the system's first
    process.  The ``simstudy`` program calls this last, when nothing of the
    command is left that a tracker could still be asked to release; each one
    gets ``timeout`` seconds, after which it is left to end by itself.

    A stopped tracker is not started again: a finalizer that still runs
    before the process ends (a semaphore collected while the command's last
    line is written, in any thread) would otherwise launch a new one, which
    outlives the process and prints a traceback for a name it was never told
    about.  Replacing the tracker's methods covers a call that comes later; a
    call already under way in another thread (waiting for the tracker's lock
    inside ``ensure_running``) finds the tracker's descriptor pointing at the
    null device rather than unset, so it writes there instead of launching a
    tracker.  So this is only for a process about to end.
    """
    for name in ("joblib.externals.loky.backend.resource_tracker", "multiprocessing.resource_tracker"):
        tracker = getattr(sys.modules.get(name), "_resource_tracker", None)
        fd, pid = getattr(tracker, "_fd", None), getattr(tracker, "_pid", None)
        if tracker is None or fd is None or pid is None or getattr(tracker, "_send", None) is _ignore:
            continue  # no tracker (fd and pid are None too), or one stopped already
        lock = getattr(tracker, "_lock", None)
        held = lock is not None and lock.acquire(timeout=timeout)  # a start or a probe under way ends first
        try:
            if tracker._fd is not None and tracker._pid is not None:  # as the start under way left them
                fd, pid = tracker._fd, tracker._pid
            for method in ("ensure_running", "_ensure_running_and_write", "_send", "_stop"):
                setattr(tracker, method, _ignore)  # the module's functions call these
            tracker._fd = os.open(os.devnull, os.O_WRONLY)  # left open: the process ends
            os.close(fd)  # the tracker reads until this end closes, then ends
        except (OSError, AttributeError):  # already gone
            continue
        finally:
            if held and lock is not None:
                lock.release()
        try:
            deadline = time.monotonic() + timeout
            while os.waitpid(pid, os.WNOHANG) == (0, 0) and time.monotonic() < deadline:
                time.sleep(0.005)
        except (OSError, ChildProcessError):  # already reaped
            pass


def _ignore(*args, **kwargs) -> None:
    """What a stopped resource tracker does when it is asked to start, register, release or stop: nothing."""


def _reap(worker, kill: bool, timeout: float = 10.0) -> None:
    """Wait for one loky worker process (killed first with ``kill``, or if it outlives ``timeout``)."""
    try:
        if kill and worker.is_alive():
            worker.kill()
        worker.join(timeout)
        if worker.is_alive():
            worker.kill()
            worker.join(timeout)
    except (OSError, ValueError, AssertionError):  # already reaped, closed, or never started
        pass


def remove_orphaned_shared_memory() -> list[str]:
    """Remove what killed runs left in shared memory: loky's semaphores and joblib's memory-mapping folders.

    A process killed with SIGKILL (its whole process group: the workers and
    the resource trackers that would have cleaned up die with it) leaves
    ``/dev/shm/sem.loky-PID-*`` and ``joblib_memmapping_folder_PID_*``
    behind, named after the process that made them.  Those of a process that
    no longer exists, and belong to this user, are removed; nothing of a
    living process is touched.  Returns the names removed.
    """
    import re
    import shutil
    import tempfile

    pattern = re.compile(r"^(?:sem\.loky-(\d+)-|joblib_memmapping_folder_(\d+)_)")
    removed = []
    for where in dict.fromkeys(("/dev/shm", tempfile.gettempdir())):
        try:
            names = os.listdir(where)
        except OSError:
            continue
        for name in names:
            m = pattern.match(name)
            if m is None:
                continue
            pid = int(m.group(1) or m.group(2))
            path = os.path.join(where, name)
            try:
                if os.lstat(path).st_uid != os.getuid() or _alive(pid):
                    continue
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.unlink(path)
                removed.append(name)
            except OSError:
                continue
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


class ExitCalled(BaseException):
    """``os._exit`` called by user code under :func:`exit_refused` (raised instead of ending the process)."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


def exit_refused():
    """A context manager in which user code calling ``os._exit`` in this thread raises :class:`ExitCalled`.

    A study file that ends the process while it loads, or a replication that
    does while it runs, would otherwise end the command (or its worker) with no
    word.  Calls from other threads (a worker's watch of its parent, say) and
    from simstudy's own modules still end the process.
    """
    import contextlib
    import threading

    real = os._exit
    native = sys.modules.get("posix") or sys.modules.get("nt")  # the module os._exit comes from
    here = threading.get_ident()

    def refuse(code):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        ours = caller.startswith("simstudy.") and not caller.startswith("simstudy.studies")
        if ours or threading.get_ident() != here:
            real(code)
        raise ExitCalled(code)

    @contextlib.contextmanager
    def ctx():
        if getattr(real, "_simstudy_refusal", False):  # already guarded further out
            yield
            return
        refuse._simstudy_refusal = True
        os._exit = refuse
        if native is not None:
            native._exit = refuse
        try:
            yield
        finally:
            os._exit = real
            if native is not None:
                native._exit = real

    return ctx()
