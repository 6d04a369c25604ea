"""SIGTERM and SIGINT at any moment of ``simstudy run``: exit status 130, one line, no worker left, rows valid.

Real processes of the ``simstudy`` program on a tiny study written to a
temporary directory (40 replications of a few milliseconds on two loky
workers), each signal sent at a moment the test can see from outside: while
chunks are stored, just after the last line of output (the command returning,
its workers stopping, the interpreter exiting), as soon as the program has a
handler (a signal before that meets the interpreter's defaults, which no
program can change), and to the whole process group while the workers start
(as Ctrl-C in a terminal or a batch system's kill does).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import weakref
from pathlib import Path

import pandas as pd
import pytest

from simstudy import cli
from simstudy.engine import get_study, load_run, run_study

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and process groups")

STUDY_FILE = textwrap.dedent('''
    """A tiny study for the signal tests: 40 replications of a few milliseconds, in chunks of 4."""
    import time
    from dataclasses import dataclass

    from simstudy.engine import Profile, Study


    @dataclass(frozen=True)
    class Cond:
        n: int = 3


    def replicate(cond, rng):
        time.sleep(0.03)
        return {"outcomes": [{"test": "t", "decision": int(v < 0.05), "pvalue": float(v), "statistic": 0.0}
                             for v in rng.random(cond.n)]}


    STUDY = Study(name="signals", title="Signals at every moment of a command", conditions=[Cond()],
                  replicate=replicate, profiles={"smoke": Profile("smoke", n_replications=40)}, chunk_size=4)
''')

LIMIT = 60.0  # seconds any one process of these tests may take


@pytest.fixture(scope="module")
def study_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("study") / "signals_study.py"
    path.write_text(STUDY_FILE)
    return path


@pytest.fixture(scope="module")
def reference(study_file, tmp_path_factory) -> pd.DataFrame:
    """The rows of an uninterrupted run (one worker, in this process)."""
    run = run_study(
        get_study(str(study_file)), "smoke", out=tmp_path_factory.mktemp("ref") / "run", jobs=1, progress=False
    )
    return run.table("outcomes").reset_index(drop=True)


def start(study_file: Path, out: Path, jobs: int = 2) -> subprocess.Popen:
    """``simstudy run`` as its own session (so that its process group can be signalled and inspected)."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simstudy.cli",
            "run",
            str(study_file),
            "--profile",
            "smoke",
            "--jobs",
            str(jobs),
            "--quiet",
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def session_processes(sid: int) -> list[str]:
    """The processes of session ``sid`` still present (zombies included), as ``pid state name``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        # a process may end (and be reaped) between any two reads of its files: each read is guarded, and a
        # process whose files vanish is simply no longer there
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) != sid:  # after ")": state, ppid, pgrp, session
                continue
            name = (entry / "comm").read_text().strip()
        except (OSError, IndexError, ValueError):  # ended meanwhile
            continue
        found.append(f"{entry.name} {fields[0]} {name}")
    return found


def test_a_process_that_ends_between_two_reads_of_its_files_is_not_an_error(monkeypatch):
    # /proc/PID/stat read, then the process ends and is reaped before /proc/PID/comm is read: under load this
    # happens, and the test looking at processes must not fail for it (the process is simply gone)
    read = Path.read_text

    def ended_meanwhile(self, *args, **kwargs):
        if self.name == "comm":
            raise ProcessLookupError(3, "No such process")
        return read(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", ended_meanwhile)
    assert session_processes(os.getsid(0)) == []


def wait_for_session_end(sid: int, seconds: float = LIMIT) -> list[str]:
    """The processes of the session left after ``seconds`` (the resource trackers end just after the parent)."""
    deadline = time.time() + seconds
    left = session_processes(sid)
    while left and time.time() < deadline:
        time.sleep(0.05)
        left = session_processes(sid)
    return left


def caught(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (its SigCgt mask in /proc)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except OSError:
        pass
    return False


def loky_workers(sid: int) -> list[int]:
    pids = []
    for line in session_processes(sid):
        pid = int(line.split()[0])
        try:
            if b"popen_loky_posix" in Path(f"/proc/{pid}/cmdline").read_bytes():
                pids.append(pid)
        except OSError:
            pass
    return pids


def finish(proc: subprocess.Popen) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=LIMIT)
    return proc.returncode, out, err


def assert_stopped(rc: int, err: str, *, may_have_finished: bool = False) -> None:
    """Exit status 130 and exactly the one line on standard error (0 and nothing: the command won the race)."""
    if may_have_finished and rc == 0:
        assert err.strip() == "", err
        return
    assert rc == cli.EXIT_INTERRUPTED, (rc, err)
    assert err.strip().splitlines() == [cli.INTERRUPTED], err


def assert_resumes_to(study_file: Path, out: Path, reference: pd.DataFrame) -> None:
    """What was stored is part of the uninterrupted run, and the same command again completes it identically."""
    study = get_study(str(study_file))
    partial = None
    if (out / "manifest.json").exists():
        try:
            partial = load_run(study, "smoke", out=out).table("outcomes")
        except KeyError:  # stopped before its first chunk was stored
            partial = None
    if partial is not None:
        keys = ["condition", "replication"]
        expected = reference.merge(partial[keys].drop_duplicates(), on=keys)
        pd.testing.assert_frame_equal(
            partial.sort_values(keys).reset_index(drop=True), expected.sort_values(keys).reset_index(drop=True)
        )
    rc, _, err = finish(start(study_file, out, jobs=1))
    assert rc == 0, err
    resumed = load_run(study, "smoke", out=out)
    assert resumed.complete
    pd.testing.assert_frame_equal(resumed.table("outcomes").reset_index(drop=True), reference)


def test_sigterm_while_chunks_are_stored(study_file, reference, tmp_path):
    out = tmp_path / "run"
    proc = start(study_file, out)
    deadline = time.time() + LIMIT
    while time.time() < deadline and proc.poll() is None and len(list(out.glob("chunks/*/*/chunk.json"))) < 2:
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    rc, _, err = finish(proc)
    assert_stopped(rc, err, may_have_finished=True)
    assert wait_for_session_end(proc.pid) == []
    assert_resumes_to(study_file, out, reference)


@pytest.mark.parametrize("delay", [0.0, 0.03, 0.1])
def test_sigterm_just_after_the_last_output_while_the_command_ends(study_file, tmp_path, delay):
    # the command prints its last line, stops its workers, returns; the interpreter runs its exit handlers
    # (loky's among them) and tears down its modules: a signal at any of these moments ends in 130 and one line
    out = tmp_path / "run"
    proc = start(study_file, out)
    for line in proc.stdout:
        if "complete" in line:
            break
    time.sleep(delay)
    proc.send_signal(signal.SIGTERM)
    rc, _, err = finish(proc)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert_stopped(rc, err, may_have_finished=True)
    assert wait_for_session_end(proc.pid) == []
    assert load_run(get_study(str(study_file)), "smoke", out=out).complete  # the run had finished


def test_a_finalizer_after_the_trackers_stopped_starts_no_new_one(tmp_path):
    # the moment the test above can only hit by chance: the trackers are stopped as the process ends, and a
    # semaphore collected after that releases its name; no new tracker may start (it would outlive the process
    # and print a KeyError traceback for the name, which it never saw registered)
    script = tmp_path / "late_release.py"
    script.write_text(
        textwrap.dedent(
            """
            from multiprocessing import resource_tracker as python_tracker

            from joblib.externals.loky.backend import resource_tracker as loky_tracker
            from simstudy.engine import runner

            loky_tracker.ensure_running()
            python_tracker.ensure_running()
            started = loky_tracker._resource_tracker._pid, python_tracker._resource_tracker._pid
            runner.stop_resource_trackers()
            loky_tracker.unregister("/loky-0-released-late", "semlock")
            python_tracker.unregister("/mp-0-released-late", "semaphore")
            print((loky_tracker._resource_tracker._pid, python_tracker._resource_tracker._pid) == started)
            """
        )
    )
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    rc, out, err = finish(proc)
    assert (rc, out.strip(), err) == (0, "True", "")
    assert wait_for_session_end(proc.pid) == []


def test_a_release_under_way_in_another_thread_as_the_trackers_stop_starts_no_new_one(tmp_path):
    # the same moment when the release has begun, in another thread, before the trackers are stopped: that
    # thread is inside the tracker's ensure_running, waiting for its lock (held here by the script, so that
    # the moment comes every time); it must find a tracker it can write to, not launch a new one
    script = tmp_path / "release_under_way.py"
    script.write_text(
        textwrap.dedent(
            """
            import threading
            import time

            from joblib.externals.loky.backend import resource_tracker as loky_tracker
            from simstudy.engine import runner

            tracker = loky_tracker._resource_tracker
            loky_tracker.ensure_running()
            started = tracker._pid
            tracker._lock.acquire()
            release = threading.Thread(target=loky_tracker.unregister, args=("/loky-0-under-way", "semlock"))
            release.start()
            time.sleep(0.2)
            runner.stop_resource_trackers()
            tracker._lock.release()
            release.join()
            print(tracker._pid == started)
            """
        )
    )
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    rc, out, err = finish(proc)
    assert (rc, out.strip(), err) == (0, "True", "")
    assert wait_for_session_end(proc.pid) == []


def test_sigterm_as_soon_as_the_program_handles_it(study_file, tmp_path):
    # the program's first handler is installed when its command line module is imported, before the
    # other imports; from then on SIGTERM ends it with 130 (before that, the interpreter's default: -15)
    out = tmp_path / "run"
    proc = start(study_file, out)
    deadline = time.time() + LIMIT
    while time.time() < deadline and proc.poll() is None and not caught(proc.pid, signal.SIGTERM):
        time.sleep(0.001)
    proc.send_signal(signal.SIGTERM)
    rc, _, err = finish(proc)
    assert_stopped(rc, err)
    assert wait_for_session_end(proc.pid) == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_the_process_group_while_the_workers_start(study_file, reference, tmp_path, signum):
    # Ctrl-C in a terminal reaches every process of the group: a worker that has not yet set its own
    # handling must neither print a KeyboardInterrupt traceback nor die of it
    out = tmp_path / "run"
    proc = start(study_file, out)
    deadline = time.time() + LIMIT
    while time.time() < deadline and proc.poll() is None and not loky_workers(proc.pid):
        time.sleep(0.002)
    os.killpg(proc.pid, signum)
    rc, _, err = finish(proc)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert_stopped(rc, err, may_have_finished=True)
    assert wait_for_session_end(proc.pid) == []
    assert_resumes_to(study_file, out, reference)


def test_a_second_signal_ends_at_once_with_the_same_line(study_file, tmp_path):
    out = tmp_path / "run"
    proc = start(study_file, out)
    deadline = time.time() + LIMIT
    while time.time() < deadline and proc.poll() is None and not list(out.glob("chunks/*/*/chunk.json")):
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGTERM)
    rc, _, err = finish(proc)
    assert_stopped(rc, err, may_have_finished=True)
    assert wait_for_session_end(proc.pid) == []


# -- in this process --------------------------------------------------------------------------------------
def test_main_called_from_python_restores_the_handlers_and_hooks(capsys):
    before = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT), sys.unraisablehook)
    assert cli.main(["list"]) == 0
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT), sys.unraisablehook) == before


@pytest.mark.parametrize("slow_start", [False, True])
def test_an_interrupt_python_can_only_print_is_delivered_again(capsys, monkeypatch, slow_start):
    # a signal handled inside a weakref callback (or __del__, or an import's clean-up) raises where Python
    # can only print "Exception ignored" and drop the exception; the command must stop all the same; also
    # when, on a busy machine, the main thread is still in the hook (starting the thread that delivers the
    # signal again) when that thread is ready: delivered there, the signal would be dropped for good
    if slow_start:
        start = threading.Thread.start

        def start_then_linger(thread):
            start(thread)
            time.sleep(0.1)

        monkeypatch.setattr(threading.Thread, "start", start_then_linger)
    stop = cli._Stop(program=False)
    try:

        class Thing:
            pass

        def callback(ref):
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(10_000):  # the handler runs here, inside the callback
                pass

        thing = Thing()
        ref = weakref.ref(thing, callback)  # noqa: F841 (kept alive for its callback)
        with pytest.raises(KeyboardInterrupt):
            del thing
            # delivered again here, a moment later, from a timer thread: wait for it rather than for a fixed
            # number of iterations, which a fast or a busy machine finishes before the timer fires
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                time.sleep(0.001)
        assert stop.signals == 1
    finally:
        stop.finish(None)
    assert "Exception ignored" not in capsys.readouterr().err


def test_the_start_guard_is_only_for_the_program():
    # imported by another program (here pytest), the module installs nothing at import
    assert not cli._is_program()
    assert signal.getsignal(signal.SIGTERM) is not cli._stop_before_main
