"""A child process that runs user code under a hard time limit (plug-ins by reference, user learners).

The parent starts ``python -m simstudy._worker FD`` with one end of a socket
pair as file descriptor ``FD`` and sends it requests, each a pickled
``(function, args)`` whose function is importable by name (a module-level
function of simstudy); the child calls it and sends back ``("ok", value)`` or
``("raised", type name, message)``.  One child serves every call of one user
object during one command (it stays warm), so a call costs a round trip and
the copying of its arrays, not a process start.

The parent waits for each answer at most the call's time limit.  When the
limit passes, the child and everything it started are killed (SIGKILL): a
child that ignores signals, swallows every exception or is stuck in compiled
code is stopped all the same.  When the child ends during a call
(``os._exit``, a crash, a signal), the parent learns it at once (a process
file descriptor where Linux has one, else the closed socket or a poll of its
status) and reaps it.  User code that closes the child's end of the socket
(``os.closerange``, say) cannot be answered for: the child checks after each
call that its connection is still the file it was, and if not ends with
:data:`CONNECTION_CLOSED` (it never writes to a file the user code opened in
its place), which the parent reports as such, not as an exit.  All of these
become :class:`WorkerFailed`, whose message says what happened, for the caller
to name the user object.

Processes the user code starts are not left behind.  The child is the leader
of a process group and session of its own, and on Linux a "child subreaper"
(``prctl(PR_SET_CHILD_SUBREAPER)``): a grandchild whose parent ends is
adopted by the worker instead of by init.  Every worker's environment carries
a tag of its own (:data:`TAG_VARIABLE`), which the processes it starts
inherit.  At a limit, when the child ended during a call, and when the worker
is closed, the parent stops (SIGSTOP) every process it can find that belongs
to the worker (its descendants, the processes carrying its tag, even after a
``setsid`` or the end of the process that started them, and its process
group), looks again until no new one appears (a stopped process cannot fork),
and kills them all.  A process that both leaves the worker's tree and drops
the tag from its environment is out of reach; so is everything on a platform
without ``/proc`` except the process group.

The child's standard output and standard error (file descriptors 1 and 2) are
a pipe that the parent drains while it waits for an answer, so a child that
prints without end never blocks and never grows the parent: of what one call
prints, the last :data:`OUTPUT_CAP` bytes are kept and passed on to the
parent's ``sys.stderr`` after the call, each line prefixed, with one line
saying how much was left out before them.  Standard output thus carries only
simstudy's own output.  The child ignores SIGINT (Ctrl-C stops the parent,
which stops the child) and dies with its parent (``prctl(PR_SET_PDEATHSIG)``
on Linux, elsewhere a thread watching the parent's pid).

POSIX only (the child gets the socket through ``pass_fds``); :func:`available`
says whether this platform has it.
"""

from __future__ import annotations

import atexit
import importlib
import os
import pickle
import selectors
import signal
import socket
import struct
import sys
import time
import uuid
import weakref

#: Seconds to wait for a worker that was told to end (its socket closed) before it is killed.
GRACE = 0.5

#: Bytes of what a worker prints during one call that are passed on: the last part; the rest is counted.
OUTPUT_CAP = 64 * 1024

#: The environment variable that tags a worker and every process it starts (see the module docstring).
TAG_VARIABLE = "SIMSTUDY_WORKER_TAG"

#: The exit status of a worker whose connection to the parent the user code closed (its file descriptor closed
#: or reused, e.g. by ``os.closerange``): the worker can no longer answer, and ends with this status to say why.
CONNECTION_CLOSED = 213

_HEADER = struct.Struct("!Q")
_LIVE: "weakref.WeakSet[Worker]" = weakref.WeakSet()
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36


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


class OutputTail:
    """The last ``cap`` bytes of a stream, and how many came before them (left out)."""

    def __init__(self, cap: int = OUTPUT_CAP):
        self.cap, self.buf, self.dropped = int(cap), bytearray(), 0

    def add(self, chunk: bytes) -> None:
        self.buf += chunk
        extra = len(self.buf) - self.cap
        if extra > 0:
            del self.buf[:extra]
            self.dropped += extra

    def text(self) -> str:
        """What is kept, as text; when something was left out, a first line says how much (and it starts at a
        line's beginning).  Empties the tail."""
        data, dropped = bytes(self.buf), self.dropped
        self.buf, self.dropped = bytearray(), 0
        if dropped:
            cut = data.find(b"\n")
            if 0 <= cut < len(data) - 1:  # keep whole lines when there is a line end to start from
                dropped += cut + 1
                data = data[cut + 1 :]
            note = f"[{dropped:,} bytes of output left out; the last {len(data):,} follow]\n"
            return note + data.decode("utf-8", errors="replace")
        return data.decode("utf-8", errors="replace")


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


class _Ended(Exception):
    """The worker process ended while the parent waited for it."""


_CLOSED_TEXT = (
    "closed its process's connection to simstudy (a file descriptor it did not open, e.g. with os.closerange)"
)


# ------------------------------------------------------------------------------------------ the processes of a worker


def _proc_table() -> dict[int, tuple[int, int, str]]:
    """Every process as ``pid -> (parent pid, process group, state)``, from ``/proc`` (empty without it)."""
    table = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # after "pid (command) "
        try:
            table[int(name)] = (int(fields[1]), int(fields[2]), fields[0].decode())
        except (IndexError, ValueError):
            continue
    return table


def _tagged(pid: int, tag: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return tag in f.read().split(b"\0")
    except OSError:
        return False


def _members(root: int, group: int, tag: str, table: dict) -> set[int]:
    """The processes of a worker: ``root``'s descendants, its process group and the processes carrying ``tag``."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    me = os.getpid()
    marker = f"{TAG_VARIABLE}={tag}".encode()
    for pid, (_, pgid, state) in table.items():
        if pid in found or pid == me or state in ("Z", "X"):
            continue
        if pgid == group or _tagged(pid, marker):
            found.add(pid)
    found.discard(me)
    return {pid for pid in found if table.get(pid, (0, 0, "Z"))[2] not in ("Z", "X")}


def kill_processes(root: int, tag: str, *, rounds: int = 100) -> int:
    """Stop, then kill, the processes of the worker ``root`` (see the module docstring); how many were killed.

    ``root`` itself is killed too when it still runs.  Without ``/proc`` only
    the process group ``root`` is killed.
    """
    if not os.path.isdir("/proc/self"):
        try:
            os.killpg(root, signal.SIGKILL)
        except OSError:
            pass
        return 0
    stopped: set[int] = set()
    for _ in range(rounds):
        new = _members(root, root, tag, _proc_table()) | {root}
        fresh = new - stopped
        for pid in fresh:
            try:
                os.kill(pid, signal.SIGSTOP)
            except OSError:
                pass
        stopped |= fresh
        if not fresh:
            break
    for pid in stopped:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.killpg(root, signal.SIGKILL)
    except OSError:
        pass
    return len(stopped - {root})


# ------------------------------------------------------------------------------------------ parent side


class Worker:
    """A warm worker process in the parent: start it, :meth:`call` functions in it, :meth:`close` it.

    Parameters
    ----------
    prefix : str
        What each line the worker prints is prefixed with on ``sys.stderr``
        (e.g. a plug-in's reference).
    output_cap : int
        Bytes of what one call prints that are passed on (the last ones).
    """

    def __init__(self, prefix: str, output_cap: int = OUTPUT_CAP):
        self.prefix = prefix
        self.tag = uuid.uuid4().hex
        self._proc = None
        self._sock: socket.socket | None = None
        self._out: int | None = None
        self._pidfd: int | None = None
        self._tail = OutputTail(output_cap)
        self._dead: str | None = None

    @property
    def pid(self) -> int | None:
        """The worker's process id (None before :meth:`start`)."""
        return None if self._proc is None else self._proc.pid

    def start(self, timeout: float | None = None, preload: tuple[str, ...] = ()) -> None:
        """Start the process, give it this process's ``sys.path`` and import the modules ``preload``.

        Raises
        ------
        WorkerFailed
            The process did not start or answer within ``timeout`` seconds.
        """
        import subprocess

        mine, theirs = socket.socketpair()
        self._sock = mine
        read_end, write_end = os.pipe()
        os.set_blocking(read_end, False)
        self._out = read_end
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env[TAG_VARIABLE] = self.tag
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = os.pathsep.join([root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "simstudy._worker", str(theirs.fileno()), str(os.getpid())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=write_end,
                stderr=write_end,
                env=env,
                close_fds=True,
                start_new_session=True,  # a process group of its own, killed as one
            )
        except OSError as exc:
            mine.close()
            os.close(read_end)
            self._sock = self._out = None
            raise WorkerFailed(f"its worker process could not be started ({exc.strerror or exc})") from None
        finally:
            theirs.close()
            os.close(write_end)
        try:
            self._pidfd = os.pidfd_open(self._proc.pid)
        except (AttributeError, OSError):
            self._pidfd = None
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
                reply = self._exchange(payload, deadline)
            except socket.timeout:
                self._fail("stopped at the time limit")
                raise WorkerFailed(
                    f"did not finish within the time limit of {timeout:g} s; its process was stopped"
                ) from None
            except (_Ended, EOFError, OSError):
                raise WorkerFailed(self._ended()) from None
            except BaseException:  # e.g. Ctrl-C while waiting: the answer would come late, so the worker goes
                self._fail("interrupted")
                raise
            try:
                answer = pickle.loads(reply)
            except Exception as exc:
                self._fail("unreadable reply")
                raise WorkerFailed(f"its worker process sent an unreadable reply ({type(exc).__name__})") from None
        finally:
            self.forward_output()
        if answer[0] == "ok":
            return answer[1]
        raise RemoteError(answer[1], answer[2])

    def _exchange(self, payload: bytes, deadline: float | None) -> bytes:
        """Send one request and read its reply, draining the worker's output meanwhile.

        Raises ``socket.timeout`` at ``deadline``, :class:`_Ended` when the
        process ends, ``EOFError`` when it closes its end of the socket.
        """
        sock = self._sock
        sock.setblocking(False)
        message = memoryview(_HEADER.pack(len(payload)) + payload)
        sent = 0
        head, body, got = bytearray(), None, 0
        with selectors.DefaultSelector() as sel:
            sel.register(sock, selectors.EVENT_WRITE)
            if self._out is not None:
                sel.register(self._out, selectors.EVENT_READ)
            if self._pidfd is not None:
                sel.register(self._pidfd, selectors.EVENT_READ)
            while True:
                left = _left(deadline)
                # without a process descriptor, a process that ended is noticed by polling
                wait = left if self._pidfd is not None else min(left if left is not None else 0.25, 0.25)
                for key, events in sel.select(wait):
                    if key.fileobj == self._out:
                        if not self._drain():
                            sel.unregister(self._out)
                    elif key.fileobj == self._pidfd:
                        self._drain()
                        raise _Ended
                    elif events & selectors.EVENT_WRITE:
                        try:
                            sent += sock.send(message[sent : sent + (1 << 20)])
                        except (BlockingIOError, InterruptedError):
                            continue
                        if sent == len(message):
                            sel.modify(sock, selectors.EVENT_READ)
                    else:
                        try:
                            if body is None:
                                chunk = sock.recv(_HEADER.size - len(head))
                                if not chunk:
                                    raise EOFError("the worker closed its end")
                                head += chunk
                                if len(head) == _HEADER.size:
                                    (n,) = _HEADER.unpack(head)
                                    body = bytearray(n)
                                    if n == 0:
                                        return b""
                            else:
                                k = sock.recv_into(memoryview(body)[got:], len(body) - got)
                                if k == 0:
                                    raise EOFError("the worker closed its end")
                                got += k
                                if got == len(body):
                                    return bytes(body)
                        except (BlockingIOError, InterruptedError):
                            continue
                if self._pidfd is None and self._proc.poll() is not None:
                    raise _Ended

    def _drain(self) -> bool:
        """Read what the worker printed so far into the tail; False at the end of the stream."""
        if self._out is None:
            return False
        while True:
            try:
                chunk = os.read(self._out, 1 << 16)
            except (BlockingIOError, InterruptedError):
                return True
            except OSError:
                return False
            if not chunk:
                return False
            self._tail.add(chunk)

    def _ended(self) -> str:
        """Why the process stopped answering, once it is reaped (and its processes killed)."""
        import subprocess

        try:
            code = self._proc.wait(GRACE)
        except subprocess.TimeoutExpired:  # only the user code closes the connection of a running worker
            self._fail("closed its connection")
            return f"{_CLOSED_TEXT} and went on running; its process was stopped"
        self._fail(f"exit status {code}")
        if code == CONNECTION_CLOSED:
            return f"{_CLOSED_TEXT}; it must close only the files it opened"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"its process was ended by {name}"
        return f"ended its process with exit status {code} instead of returning; it must return, not end the process"

    def _fail(self, why: str) -> None:
        self._dead = why
        self._stop()

    def _stop(self) -> None:
        """Kill the process and every process it started, reap it and close the socket."""
        proc = self._proc
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if proc is not None:
            kill_processes(proc.pid, self.tag)
            proc.wait()
            self._drain()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        _LIVE.discard(self)

    def forward_output(self) -> None:
        """What the worker printed since the last call (its last :data:`OUTPUT_CAP` bytes), on ``sys.stderr``."""
        self._drain()
        write_prefixed(self._tail.text(), self.prefix)

    def close(self) -> None:
        """End the process and every process it started, and pass on what it printed."""
        if self._proc is None:
            return
        if self._dead is None:
            self._dead = "closed"
        self._stop()
        self.forward_output()
        if self._out is not None:
            os.close(self._out)
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

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
            # orphans of the processes the user code starts are adopted here, not by init (see the module docstring)
            libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
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


def _identity(fd: int) -> tuple[int, int] | None:
    """The device and inode of the open file ``fd`` (None when it is closed): the same only for the same file."""
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def main(argv: list[str]) -> None:
    """The worker's loop: answer requests until the parent closes the socket, then end at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(int(argv[1]))
    fd = int(argv[0])
    os.set_inheritable(fd, False)  # the processes the user code starts do not hold the connection
    sock = socket.socket(fileno=fd)
    connection = _identity(fd)
    while True:
        try:
            request = _recv(sock)
        except (EOFError, OSError):
            break
        reply = _answer(request)
        if _identity(fd) != connection:  # closed by the user code, or another file now: never written to
            os._exit(CONNECTION_CLOSED)
        try:
            _send(sock, reply)
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
