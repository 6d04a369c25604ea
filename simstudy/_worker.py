"""A child process that runs user code under a hard time limit (plug-ins by reference, user learners).

The parent starts ``python -m simstudy._worker FD`` with one end of a socket
pair as file descriptor ``FD`` and sends it requests, each a pickled
``(function, args)`` whose function is importable by name (a module-level
function of simstudy); the child calls it and sends back ``("ok", value)`` or
``("raised", type name, message)``.  One child serves every call of one user
object during one command (it stays warm), so a call costs a round trip and
the copying of its arrays, not a process start.

The parent waits for each answer at most the call's time limit.  When the
limit passes, the child is sent SIGTERM and, :data:`GRACE` seconds later,
SIGKILL: a child that ignores signals, swallows every exception or is stuck in
compiled code is stopped all the same.  When the child ends during a call
(``os._exit``, a crash, a signal), the parent learns it from the closed
socket and its exit status.  Both become :class:`WorkerFailed`, whose message
says what happened, for the caller to name the user object.

The child's standard output and standard error (file descriptors 1 and 2) are
an anonymous temporary file: after every call the parent passes what was
written there on to its own ``sys.stderr``, each line prefixed, so that
standard output carries only simstudy's own output.  The child ignores SIGINT
(Ctrl-C stops the parent, which stops the child) and dies with its parent
(``prctl(PR_SET_PDEATHSIG)`` on Linux, elsewhere a thread watching the
parent's pid).

POSIX only (the child gets the socket through ``pass_fds``); :func:`available`
says whether this platform has it.
"""

from __future__ import annotations

import atexit
import importlib
import os
import pickle
import signal
import socket
import struct
import sys
import time
import weakref

#: Seconds between SIGTERM and SIGKILL for a worker that is stopped, and the wait for one that was told to end.
GRACE = 0.5

_HEADER = struct.Struct("!Q")
_LIVE: "weakref.WeakSet[Worker]" = weakref.WeakSet()


class WorkerFailed(Exception):
    """The worker did not answer: the time limit passed or its process ended (the message says which)."""


class RemoteError(Exception):
    """The function called in the worker raised; ``kind`` is the exception's type name, ``message`` its text."""

    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind, self.message = kind, message


def write_prefixed(text: str, prefix: str) -> None:
    """What user code printed, on ``sys.stderr``, each line prefixed ``prefix: `` (nothing for no text)."""
    if not text:
        return
    err = sys.stderr
    for line in text.splitlines():
        err.write(f"{prefix}: {line}\n")
    try:
        err.flush()
    except (AttributeError, OSError, ValueError):
        pass


def available() -> bool:
    """Whether user code can run in a worker process on this platform (POSIX)."""
    return os.name == "posix"


# ------------------------------------------------------------------------------------------ framing


def _left(deadline: float | None) -> float | None:
    """Seconds until ``deadline`` (None: no deadline); ``socket.timeout`` once it has passed."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise socket.timeout("the time limit has passed")
    return left


def _send(sock: socket.socket, payload: bytes, deadline: float | None = None) -> None:
    sock.settimeout(_left(deadline))
    sock.sendall(_HEADER.pack(len(payload)) + payload)


def _recv_exactly(sock: socket.socket, n: int, deadline: float | None) -> bytes:
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        sock.settimeout(_left(deadline))
        k = sock.recv_into(view[got:], n - got)
        if k == 0:
            raise EOFError("the worker closed its end")
        got += k
    return bytes(buf)


def _recv(sock: socket.socket, deadline: float | None = None) -> bytes:
    (n,) = _HEADER.unpack(_recv_exactly(sock, _HEADER.size, deadline))
    return _recv_exactly(sock, n, deadline)


# ------------------------------------------------------------------------------------------ parent side


class Worker:
    """A warm worker process in the parent: start it, :meth:`call` functions in it, :meth:`close` it.

    Parameters
    ----------
    prefix : str
        What each line the worker prints is prefixed with on ``sys.stderr``
        (e.g. a plug-in's reference).
    """

    def __init__(self, prefix: str):
        self.prefix = prefix
        self._proc = None
        self._sock: socket.socket | None = None
        self._out = None
        self._read = 0
        self._dead: str | None = None

    def start(self, timeout: float | None = None, preload: tuple[str, ...] = ()) -> None:
        """Start the process, give it this process's ``sys.path`` and import the modules ``preload``.

        Raises
        ------
        WorkerFailed
            The process did not start or answer within ``timeout`` seconds.
        """
        import subprocess
        import tempfile

        mine, theirs = socket.socketpair()
        self._sock = mine
        self._out = tempfile.TemporaryFile()
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = os.pathsep.join([root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "simstudy._worker", str(theirs.fileno()), str(os.getpid())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=self._out,
                stderr=self._out,
                env=env,
                close_fds=True,
            )
        except OSError as exc:
            mine.close()
            self._out.close()
            raise WorkerFailed(f"its worker process could not be started ({exc.strerror or exc})") from None
        finally:
            theirs.close()
        _LIVE.add(self)
        self.call(_set_path, list(sys.path), tuple(preload), timeout=timeout)

    @property
    def alive(self) -> bool:
        """Whether the process runs and can take calls."""
        return self._proc is not None and self._dead is None and self._proc.poll() is None

    def call(self, function, *args, timeout: float | None = None):
        """``function(*args)`` in the worker, waiting at most ``timeout`` seconds (None: no limit).

        Raises
        ------
        RemoteError
            The function raised in the worker.
        WorkerFailed
            The limit passed (the process is then stopped), or the process
            ended or sent something unreadable; the worker is unusable after it.
        """
        if self._dead is not None:
            raise WorkerFailed(f"its worker process is gone ({self._dead})")
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            payload = pickle.dumps((function, args), protocol=pickle.HIGHEST_PROTOCOL)
            try:
                _send(self._sock, payload, deadline)
                reply = _recv(self._sock, deadline)
            except socket.timeout:
                self._fail("stopped at the time limit", hard=True)
                raise WorkerFailed(
                    f"did not finish within the time limit of {timeout:g} s; its process was stopped"
                ) from None
            except (EOFError, OSError):
                raise WorkerFailed(self._ended()) from None
            except BaseException:  # e.g. Ctrl-C while waiting: the answer would come late, so the worker goes
                self._fail("interrupted", hard=True)
                raise
            try:
                answer = pickle.loads(reply)
            except Exception as exc:
                self._fail("unreadable reply", hard=True)
                raise WorkerFailed(f"its worker process sent an unreadable reply ({type(exc).__name__})") from None
        finally:
            self.forward_output()
        if answer[0] == "ok":
            return answer[1]
        raise RemoteError(answer[1], answer[2])

    def _ended(self) -> str:
        """Why the process stopped answering, once it is reaped (stopped hard if it lingers)."""
        import subprocess

        try:
            code = self._proc.wait(GRACE)
        except subprocess.TimeoutExpired:
            self._fail("closed its connection", hard=True)
            return "closed its connection to simstudy without ending; its process was stopped"
        self._fail(f"exit status {code}", hard=False)
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"its process was ended by {name}"
        return f"ended its process with exit status {code} instead of returning; it must return, not end the process"

    def _fail(self, why: str, *, hard: bool) -> None:
        self._dead = why
        self._stop(hard=hard)

    def _stop(self, *, hard: bool) -> None:
        """End the process (SIGTERM, then SIGKILL after :data:`GRACE`) and reap it; close the socket."""
        import subprocess

        proc = self._proc
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if proc is not None and proc.poll() is None:
            try:
                if hard:
                    proc.terminate()
                proc.wait(GRACE)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        _LIVE.discard(self)

    def forward_output(self) -> None:
        """What the worker wrote since the last call, on ``sys.stderr``, each line prefixed."""
        if self._out is None:
            return
        chunks = []
        while True:
            chunk = os.pread(self._out.fileno(), 1 << 16, self._read)
            if not chunk:
                break
            self._read += len(chunk)
            chunks.append(chunk)
        if not chunks:
            return
        write_prefixed(b"".join(chunks).decode("utf-8", errors="replace"), self.prefix)

    def close(self) -> None:
        """Let the process end (it exits when its socket closes), stop it if it lingers, pass on its output."""
        if self._proc is None:
            return
        if self._dead is None:
            self._dead = "closed"
        self._stop(hard=False)
        self.forward_output()
        if self._out is not None:
            self._out.close()
            self._out = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def stop_all() -> None:
    """Close every worker of this process that is still running (also run when the interpreter exits)."""
    for worker in list(_LIVE):
        worker.close()


atexit.register(stop_all)


# ------------------------------------------------------------------------------------------ child side


def _set_path(path: list, preload: tuple) -> None:
    """The parent's ``sys.path``, so that module references resolve as they would in the parent; then imports."""
    sys.path[:] = list(dict.fromkeys(list(path) + sys.path))
    for name in preload:
        importlib.import_module(name)


def _die_with_parent(parent: int) -> None:
    """End this process when the parent ends, however it ends (see :mod:`simstudy.engine.runner`)."""
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            armed = ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:
        os._exit(1)
    if not armed:
        import threading

        def watch():
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, name="simstudy-parent-watch", daemon=True).start()


def _answer(request: bytes) -> bytes:
    """The pickled reply to one pickled request; whatever the call raises is part of the reply."""
    try:
        function, args = pickle.loads(request)
        reply = ("ok", function(*args))
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too: reported, not obeyed
        reply = ("raised", type(exc).__name__, str(exc))
    try:
        return pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        return pickle.dumps(("raised", type(exc).__name__, f"the result cannot be sent back: {exc}"))


def main(argv: list[str]) -> None:
    """The worker's loop: answer requests until the parent closes the socket, then end at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(int(argv[1]))
    sock = socket.socket(fileno=int(argv[0]))
    while True:
        try:
            request = _recv(sock)
        except (EOFError, OSError):
            break
        try:
            _send(sock, _answer(request))
        except OSError:
            break
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    os._exit(0)  # no atexit handlers or threads of the user's code to wait for


if __name__ == "__main__":
    main(sys.argv[1:])
