"""Fault injection for the result store: runs that are killed, raced, edited, damaged or starved.

Every case runs ``simstudy run`` (a real process) on a small study defined in a
file of a temporary directory, injects one fault, lets the engine recover the
way a user would (the same command again), and classifies the trial:

identical
    the stored rows equal, byte for byte as tables, those of an uninterrupted run;
refused
    the engine refused on one line with exit code 2 and left the stored rows
    valid (what was stored is still a subset of the uninterrupted run);
WRONG
    anything else: a traceback, rows that differ, a refusal that damaged the
    store.  The goal is zero.

Cases
-----
sigkill      SIGKILL at a random moment (1 or 2 workers), then resume
sigterm      SIGTERM at a random moment (1 or 2 workers), then resume
concurrent   two runs with different seeds started into one directory
code-change  kill a run, edit the study file (its rows change), resume (must be
             refused), then ``--fresh`` (must equal the edited study's rows)
damage       damage one chunk at random (truncate, flip a byte, delete a table or
             chunk.json, plant an unlisted table, swap in another seed's chunk,
             edit chunk.json's identity); readers must not return wrong rows and
             a rerun must restore the uninterrupted rows
disk-full    run into a small tmpfs (root only: ``mount -t tmpfs -o size=...``),
             then enlarge it and resume
imported-module
             the study imports a helper module of the user's (beside it); kill
             a run, edit the helper (its rows change), resume (must be refused
             on one line naming the module), then ``--fresh`` (must equal the
             edited study's rows)
symlinked-lock
             a run folder whose ``.lock``, ``manifest.json`` or one chunk file
             is a symbolic link to a file outside it: a run must refuse on one
             line, and the file outside must keep its bytes
hostile-plugin
             ``simstudy bench --timeout 2`` with a plug-in test that swallows
             BaseException in an endless loop, ignores SIGALRM and sleeps,
             calls ``os._exit(0)`` or ``os._exit(3)``, or returns p = 7: each
             must end in exit code 2 with one line naming the plug-in, within
             the limit and a few seconds, with no process left running

stale-bytecode
             a study that imports a helper module of the user's (beside it, on
             PYTHONPATH) is killed once it has stored a chunk; then the helper,
             the study file, or the built-in study module demo.py (``ALPHA =
             0.05`` -> ``0.50``) is edited keeping its size and mtime (as ``cp
             -p`` does), the bytecode of the old text left in ``__pycache__``
             stamped as valid for the new one (what Python's import runs).  The
             resume must be refused on one line naming the module (or the study
             file); a run into a new folder and ``--fresh`` must equal a run of
             the edited code made with bytecode off and ``__pycache__`` removed.
             A fourth variant does the same through the Python API, in a script
             that imports the helper before simstudy
shadowed-name
             the same with a helper named ``statistics.py`` first on PYTHONPATH,
             a project under a folder named ``site-packages``, and a package
             installed with ``pip install --no-deps --target DIR`` and
             reinstalled with other code under the same version: kill, change,
             resume must be refused on one line naming the module
dask-cluster
             a long-lived cluster of ``dask scheduler`` and ``dask worker ADDRESS
             --nworkers 2 --nthreads 1`` commands (the study's folder on the
             workers' PYTHONPATH, free ports, killed at the end): the helper
             edited (another size) between two runs into new folders (the second
             must equal the edited code's rows); a run killed, one worker
             restarted, the helper edited, resume (refused naming the module);
             a worker of another environment (a copy of the package whose
             demo.py has ALPHA = 0.50) joins (the run refused on one line, no run
             folder written); a cluster of one single-threaded worker (the run
             must record that its replications ran there, not in the client)
all-failed   every replication fails (``replicate`` returns a list): exit code 1
             naming the first failure, ``summarize`` says so on one line; once
             the file is fixed, the same command must recompute and equal an
             uninterrupted run, and ``summarize`` work
writers      ``--out ""``, a study name or a condition key of 300 characters,
             and a study file that calls ``os._exit(0)`` while it is imported:
             refused on one line, nothing left in the working directory; a
             replication that calls ``os._exit(0)`` (one process, or a loky
             worker): a non-zero exit code and one line; a
             proving-ground run folder (``bench`` run folder) whose
             ``figures/`` (``bench/``) is a link to a folder outside: refused,
             the folder outside keeps its bytes; a ``--jobs 2`` run whose
             process group is SIGKILLed: the next ``--jobs 2`` run (one that
             resumes it, and one that has nothing left to compute) must leave
             nothing named after it in ``/dev/shm``

These last five cases run every process with bytecode writing on (without
PYTHONDONTWRITEBYTECODE) and in the work folder, never the checkout (``python
-m`` puts the working directory first on sys.path).  Cases in ``KNOWN`` are
faults known and not fixed yet: their trials are shown, marked, and not
counted in the exit code.

SIGTERM must always end in exit code 130 with one line on standard error (or
0 when the run finished first): the harness sends it only once the process
handles it (before that, during the interpreter's own start, the default
disposition applies, which no program can change).

Usage::

    python scripts/fault_injection.py --runs 5
    python scripts/fault_injection.py --cases sigkill damage --runs 20 --seed 7
    python scripts/fault_injection.py --small          # every case at a small size (about 6 minutes; CI)

The exit code is 1 when any trial is WRONG, else 0.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pandas as pd

CASES = (
    "sigkill",
    "sigterm",
    "concurrent",
    "code-change",
    "damage",
    "disk-full",
    "imported-module",
    "symlinked-lock",
    "hostile-plugin",
    "stale-bytecode",
    "shadowed-name",
    "dask-cluster",
    "all-failed",
    "writers",
)
STORE_CASES = CASES[:9]  # the cases on the store's own paths (they share three uninterrupted runs)
PROFILE = "smoke"
SEED_A, SEED_B = 11, 22
SMALL_REPLICATIONS = 10  # per condition with --small (the demo's smoke profile has 20)
LINK_TARGETS = (".lock", "manifest.json", "chunk file")
PLUGIN_TIMEOUT = 2.0  # --timeout of the hostile plug-ins
PLUGIN_GRACE = 10.0  # seconds beyond the limit a refusal may take (start-up of a loaded machine included)
PLUGIN_KILL = 60.0  # the harness ends a bench still running after this long (then WRONG)
PLUGINS = {  # behaviour -> the plug-in's name in PLUGIN_FILE
    "swallows BaseException": "swallow",
    "ignores SIGALRM": "ignore_alarm",
    "os._exit(0)": "exit_zero",
    "os._exit(3)": "exit_three",
    "returns p = 7": "p_seven",
}

PLUGIN_FILE = '''"""Plug-in tests that misbehave on purpose (fault injection)."""
import os
import signal
import time

import numpy as np


def swallow(scores):
    while True:
        try:
            time.sleep(0.05)
        except BaseException:
            pass


def ignore_alarm(scores):
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    time.sleep(3600)


def exit_zero(scores):
    os._exit(0)


def exit_three(scores):
    os._exit(3)


def p_seven(scores):
    shape = scores.diffs.shape[:-2]
    return np.zeros(shape), np.full(shape, 7.0)
'''

STUDY_TEMPLATE = '''"""The demo study, with a tag column: editing TAG changes the rows (fault injection)."""
import dataclasses

from simstudy.engine import get_study

TAG = {tag!r}
_DEMO = get_study("demo")


def replicate(condition, rng):
    tables = _DEMO.replicate(condition, rng)
    return {{name: [dict(row, tag=TAG) for row in rows] if isinstance(rows, list) else rows.assign(tag=TAG)
             for name, rows in tables.items()}}


STUDY = dataclasses.replace(_DEMO, name="fault_demo", replicate=replicate{profiles})
'''

# The same study, its tag computed by a helper module of the user's in the same folder.
HELPER_STUDY_TEMPLATE = '''"""The demo study, its tag column computed by the user's module fault_helper."""
import dataclasses

import fault_helper
from simstudy.engine import get_study

_DEMO = get_study("demo")


def replicate(condition, rng):
    tables = _DEMO.replicate(condition, rng)
    tag = fault_helper.tag()
    return {{name: [dict(row, tag=tag) for row in rows] if isinstance(rows, list) else rows.assign(tag=tag)
             for name, rows in tables.items()}}


STUDY = dataclasses.replace(_DEMO, name="fault_demo", replicate=replicate{profiles})
'''

# The edit changes the file's size too: Python's bytecode cache checks a source by its size and its
# modification time in whole seconds, and an edit within the second of the last import would otherwise
# run the cached (old) code, whatever the fingerprint of the source says.
HELPER_TEMPLATE = '''"""A helper module of the user's: the tag of every row (fault injection)."""


def tag():
    return {tag!r}{padding}
'''

#: Set by --small: the profile line that cuts the smoke profile to SMALL_REPLICATIONS per condition.
PROFILES = ""


def small_profiles(n: int) -> str:
    return f", profiles={{**_DEMO.profiles, 'smoke': dataclasses.replace(_DEMO.profiles['smoke'], n_replications={n})}}"


def write_study(path: Path, tag: str) -> Path:
    path.write_text(STUDY_TEMPLATE.format(tag=tag, profiles=PROFILES))
    return path


def write_helper_study(folder: Path, tag: str) -> Path:
    """The helper study in ``folder`` (with its module ``fault_helper.py`` returning ``tag``)."""
    write_helper(folder, tag)
    path = folder / "study.py"
    path.write_text(HELPER_STUDY_TEMPLATE.format(profiles=PROFILES))
    return path


def write_helper(folder: Path, tag: str) -> None:
    padding = "  # edited" if tag != "v1" else ""
    (folder / "fault_helper.py").write_text(HELPER_TEMPLATE.format(tag=tag, padding=padding))


def simstudy(*args) -> list[str]:
    return [sys.executable, "-m", "simstudy.cli", *map(str, args)]


def run_cmd(study: Path, out: Path, *extra) -> list[str]:
    return simstudy("run", study, "--profile", PROFILE, "--quiet", "--out", out, *extra)


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    _, err = proc.communicate()
    return proc.returncode, err


def handles(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (Linux: its SigCgt mask; elsewhere assumed)."""
    status = Path(f"/proc/{pid}/status")
    if not status.parent.exists():
        return True
    try:
        for line in status.read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except OSError:
        pass
    return False


def wait_until_handled(proc: subprocess.Popen, signum: int, seconds: float = 30.0) -> None:
    """Wait until ``proc`` handles ``signum`` (or has ended, or ``seconds`` have passed)."""
    deadline = time.time() + seconds
    while proc.poll() is None and not handles(proc.pid, signum) and time.time() < deadline:
        time.sleep(0.002)


def session_processes(sid: int, tag: str | None = None) -> list[int]:
    """The processes of session ``sid`` still present, and those whose environment carries ``tag`` (in
    ``SIMSTUDY_FAULT_TAG``; simstudy's workers run in sessions of their own); Linux, elsewhere none are seen."""
    found = []
    proc = Path("/proc")
    if not proc.exists():
        return found
    marker = f"SIMSTUDY_FAULT_TAG={tag}".encode() if tag else None
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if fields[0] in ("Z", "X"):
                    continue
                if int(fields[3]) == sid or (marker and marker in (entry / "environ").read_bytes().split(b"\0")):
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                pass
    return found


def left_running(sid: int, seconds: float = 30.0, tag: str | None = None) -> list[int]:
    """The processes of session ``sid`` (and those tagged ``tag``) still there after ``seconds``; then killed."""
    deadline = time.time() + seconds
    left = session_processes(sid, tag)
    while left and time.time() < deadline:
        time.sleep(0.05)
        left = session_processes(sid, tag)
    if left:
        try:
            os.killpg(sid, signal.SIGKILL)
        except OSError:
            pass
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    return left


def one_line(err: str) -> bool:
    return len([ln for ln in err.strip().splitlines() if ln.strip()]) == 1 and "Traceback" not in err


def clean_refusal(rc: int, err: str) -> bool:
    """Exit code 2 with one line on stderr and no traceback."""
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    return rc == 2 and len(lines) == 1 and lines[0].startswith("simstudy: error:") and "Traceback" not in err


def _tables_of(run, tables) -> dict:
    """``{table: rows}`` of a loaded run, None for a table it does not hold."""
    got = {}
    for t in tables:
        try:
            got[t] = run.table(t).reset_index(drop=True)
        except KeyError:
            got[t] = None
    return got


def stored_rows(study: Path, out: Path, tables=("outcomes", "scores")):
    """The verified rows of a run directory, per table (complete or not)."""
    from simstudy.engine import get_study, load_run

    run = load_run(get_study(str(study)), PROFILE, out=out)
    return run, _tables_of(run, tables)


def equal(a: pd.DataFrame | None, b: pd.DataFrame | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    try:
        pd.testing.assert_frame_equal(a, b)
        return True
    except AssertionError:
        return False


def subset_of(part: pd.DataFrame | None, whole: pd.DataFrame) -> bool:
    """Every stored row is a row of the uninterrupted run (a partial run is never wrong, only short)."""
    if part is None or part.empty:
        return True
    keys = ["condition", "replication"]
    merged = whole.merge(part[keys].drop_duplicates(), on=keys)
    merged = merged.sort_values(keys, kind="stable").reset_index(drop=True)
    part = part.sort_values(keys, kind="stable").reset_index(drop=True)
    return equal(part, merged)


class Harness:
    def __init__(self, root: Path, rng: random.Random, verbose: bool):
        self.root, self.rng, self.verbose = root, rng, verbose
        self.v1 = write_study(root / "study_v1.py", "v1")
        self.refs: dict = {}
        self.seconds = 10.0
        self.n = 0

    def reference(self, key, study: Path, seed: int):
        out = self.root / f"ref-{key}"
        t0 = time.time()
        rc, err = finish(
            subprocess.Popen(
                run_cmd(study, out, "--seed", seed), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
            )
        )
        if rc != 0:
            raise SystemExit(f"reference run failed: {err.strip()}")
        self.seconds = max(2.0, time.time() - t0)
        self.refs[key] = (out, stored_rows(study, out)[1])

    def fresh_dir(self, name) -> Path:
        self.n += 1
        return self.root / f"{name}-{self.n}"

    def matches(self, study, out, key) -> bool:
        run, got = stored_rows(study, out)
        return run.complete and all(equal(got[t], self.refs[key][1][t]) for t in got)

    def valid_partial(self, study, out, key) -> bool:
        _, got = stored_rows(study, out)
        return all(subset_of(got[t], self.refs[key][1][t]) for t in got if self.refs[key][1][t] is not None)

    def log(self, *msg):
        if self.verbose:
            print("   ", *msg, file=sys.stderr)

    # -- cases -------------------------------------------------------------------------------
    def kill(self, sig) -> str:
        out = self.fresh_dir(sig.name.lower())
        jobs = self.rng.choice([1, 2])
        proc = subprocess.Popen(
            run_cmd(self.v1, out, "--seed", SEED_A, "--jobs", jobs),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if sig == signal.SIGTERM:  # from the moment the program handles it (see the module docstring)
            wait_until_handled(proc, sig)
        delay = self.rng.uniform(0.0 if sig == signal.SIGTERM else 0.3, 1.2 * self.seconds)
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(sig)
        rc, err = finish(proc)
        self.log(f"{sig.name} after {delay:.1f} s (jobs {jobs}): rc {rc}")
        # SIGTERM: 130 and the one line "interrupted", or 0 (and nothing) when the run finished first
        expected = (0, 130) if sig == signal.SIGTERM else (0, -signal.SIGKILL)
        if rc not in expected or "Traceback" in err or (rc == 130 and not one_line(err)) or (rc == 0 and err.strip()):
            self.log(f"unexpected end: rc {rc}: {err.strip()[-2000:]}")
            return "WRONG"
        if (out / "manifest.json").exists() and not self.valid_partial(self.v1, out, "a"):
            self.log("stored rows after the kill are not the uninterrupted run's")
            return "WRONG"
        rc, err = finish(
            subprocess.Popen(
                run_cmd(self.v1, out, "--seed", SEED_A), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
        )
        if rc == 0:
            return "identical" if self.matches(self.v1, out, "a") else "WRONG"
        self.log(f"resume: rc {rc}: {err.strip()[-2000:]}")
        return "refused" if clean_refusal(rc, err) else "WRONG"

    def concurrent(self) -> str:
        out = self.fresh_dir("concurrent")
        a = subprocess.Popen(
            run_cmd(self.v1, out, "--seed", SEED_A), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        time.sleep(self.rng.uniform(0.0, 1.0 * self.seconds))
        b = subprocess.Popen(
            run_cmd(self.v1, out, "--seed", SEED_B), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        (ra, ea), (rb, eb) = finish(a), finish(b)
        self.log(f"concurrent: rc {ra} and {rb}; {ea.strip()[:90]} | {eb.strip()[:90]}")
        for rc, err in ((ra, ea), (rb, eb)):
            if rc != 0 and not clean_refusal(rc, err):
                return "WRONG"
        if ra != 0 and rb != 0:
            return "WRONG"
        seed = json.loads((out / "manifest.json").read_text())["root_seed"]
        winners = {SEED_A for rc in [ra] if rc == 0} | {SEED_B for rc in [rb] if rc == 0}
        if seed not in winners:
            return "WRONG"
        ok = self.matches(self.v1, out, "a" if seed == SEED_A else "b")
        if not ok:
            return "WRONG"
        return "identical" if ra == 0 and rb == 0 else "refused"

    def code_change(self) -> str:
        d = self.fresh_dir("code")
        d.mkdir()
        study = write_study(d / "study.py", "v1")
        out = d / "run"
        proc = subprocess.Popen(
            run_cmd(study, out, "--seed", SEED_A), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        time.sleep(self.rng.uniform(0.5, 1.2 * self.seconds))
        if proc.poll() is None:
            proc.send_signal(self.rng.choice([signal.SIGKILL, signal.SIGTERM]))
        finish(proc)
        run = stored_rows(study, out)[0] if (out / "manifest.json").exists() else None
        complete_before = run is not None and run.complete
        stored_before = 0 if run is None else sum(v != "missing" for v in run.chunk_states().values())
        write_study(study, "v2")
        rc, err = finish(
            subprocess.Popen(
                run_cmd(study, out, "--seed", SEED_A), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
        )
        self.log(f"code change ({stored_before} chunk(s) stored before): rc {rc} {err.strip()[:120]}")
        if rc == 0:
            # allowed when nothing is mixed: a complete run computes nothing (v1's rows stay), and a
            # run that stored nothing starts with the edited code (v2's rows)
            if not (complete_before and self.matches(study, out, "a")) and not (
                stored_before == 0 and self.matches(study, out, "v2")
            ):
                return "WRONG"
            verdict = "identical"
        elif clean_refusal(rc, err) and "changed: code" in err:
            if not self.valid_partial(study, out, "a"):
                return "WRONG"
            verdict = "refused"
        else:
            return "WRONG"
        rc, err = finish(
            subprocess.Popen(
                run_cmd(study, out, "--seed", SEED_A, "--fresh"),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
        if rc != 0 or not self.matches(study, out, "v2"):
            return "WRONG"
        return verdict

    def damage(self) -> str:
        out = self.fresh_dir("damage")
        shutil.copytree(self.refs["a"][0], out)
        chunk = self.rng.choice(sorted(p for p in out.glob("chunks/*/*") if p.is_dir()))
        how = self.rng.choice(["truncate", "flip", "delete-table", "delete-meta", "plant", "foreign", "identity"])
        table = chunk / self.rng.choice(["outcomes.parquet", "scores.parquet"])
        if how == "truncate":
            table.write_bytes(table.read_bytes()[: self.rng.randrange(table.stat().st_size)])
        elif how == "flip":
            data = bytearray(table.read_bytes())
            i = self.rng.randrange(len(data))
            data[i] ^= 0xFF
            table.write_bytes(bytes(data))
        elif how == "delete-table":
            table.unlink()
        elif how == "delete-meta":
            (chunk / "chunk.json").unlink()
        elif how == "plant":
            pd.DataFrame(
                {
                    "study": ["fault_demo"],
                    "condition": [chunk.parent.name],
                    "replication": [0],
                    "seed": [1],
                    "error": ["planted"],
                    "traceback": [""],
                }
            ).to_parquet(chunk / "failures.parquet", index=False)
        elif how == "foreign":
            shutil.rmtree(chunk)
            shutil.copytree(self.refs["b"][0] / chunk.relative_to(out), chunk)
        else:
            meta = json.loads((chunk / "chunk.json").read_text())
            meta["identity"]["root_seed"] = SEED_B
            (chunk / "chunk.json").write_text(json.dumps(meta))
        # readers: never a wrong row, never a phantom failure
        if not self.valid_partial(self.v1, out, "a"):
            return "WRONG"
        run, _ = stored_rows(self.v1, out)
        if len(run.failures):
            return "WRONG"
        st = subprocess.run(
            simstudy("status", self.v1, "--profile", PROFILE, "--out", out), capture_output=True, text=True
        )
        expect = "complete: every chunk verified" if how == "plant" else "damaged"
        self.log(f"damage {how} in {chunk.relative_to(out)}: status says {expect in st.stdout}")
        if st.returncode != 0 or expect not in st.stdout:
            return "WRONG"
        rc, err = finish(
            subprocess.Popen(
                run_cmd(self.v1, out, "--seed", SEED_A), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
        )
        if rc != 0:
            self.log(f"rerun after damage: rc {rc}: {err.strip()[-2000:]}")
            return "refused" if clean_refusal(rc, err) else "WRONG"
        return "identical" if self.matches(self.v1, out, "a") else "WRONG"

    def imported_module(self) -> str:
        d = self.fresh_dir("helper")
        d.mkdir()
        study = write_helper_study(d, "v1")
        out = d / "run"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(d), os.environ.get("PYTHONPATH", "")]))

        def run(*extra):
            return finish(
                subprocess.Popen(
                    run_cmd(study, out, "--seed", SEED_A, *extra),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                    env=env,
                )
            )

        proc = subprocess.Popen(
            run_cmd(study, out, "--seed", SEED_A, "--jobs", self.rng.choice([1, 2])),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        deadline = time.time() + 10 * self.seconds  # killed once it has stored a chunk: a partial run to resume
        while proc.poll() is None and not any(out.glob("chunks/*/*/chunk.json")) and time.time() < deadline:
            time.sleep(0.01)
        time.sleep(self.rng.uniform(0.0, 0.2 * self.seconds))
        if proc.poll() is None:
            proc.send_signal(self.rng.choice([signal.SIGKILL, signal.SIGTERM]))
        finish(proc)
        sys.path.insert(0, str(d))  # the harness reads the rows through the study file, which imports the helper
        try:
            run_ = stored_rows(study, out)[0] if (out / "manifest.json").exists() else None
            complete_before = run_ is not None and run_.complete
            stored_before = 0 if run_ is None else sum(v != "missing" for v in run_.chunk_states().values())
            write_helper(d, "v2")
            rc, err = run()
            self.log(f"imported module edited ({stored_before} chunk(s) stored before): rc {rc} {err.strip()[:160]}")
            if rc == 0:  # allowed only when nothing is mixed (see code_change)
                if not (complete_before and self.matches(study, out, "a")) and not (
                    stored_before == 0 and self.matches(study, out, "v2")
                ):
                    return "WRONG"
                verdict = "identical"
            elif clean_refusal(rc, err) and "changed: code" in err and "fault_helper" in err:
                if not self.valid_partial(study, out, "a"):
                    return "WRONG"
                verdict = "refused"
            else:
                return "WRONG"
            rc, err = run("--fresh")
            if rc != 0 or not self.matches(study, out, "v2"):
                self.log(f"--fresh after the edit: rc {rc} {err.strip()[:160]}")
                return "WRONG"
            return verdict
        finally:
            sys.path.remove(str(d))

    def symlinked(self, target: str) -> str:
        d = self.fresh_dir("link")
        d.mkdir()
        out, outside = d / "run", d / "mine"
        outside.mkdir()
        shutil.copytree(self.refs["a"][0], out)
        chunks = sorted(p for p in out.glob("chunks/*/*") if p.is_dir())
        if target == ".lock":
            link, kept = out / ".lock", outside / "notes.txt"
            kept.write_text("keep me\n")
            if link.exists() or link.is_symlink():
                link.unlink()
        else:
            if target == "manifest.json":
                link = out / "manifest.json"
            else:
                chunk = self.rng.choice(chunks)
                link = chunk / self.rng.choice(sorted(p.name for p in chunk.iterdir() if p.is_file()))
            kept = outside / link.name
            shutil.move(link, kept)  # the link points to the very bytes that were there
        link.symlink_to(kept)
        for chunk in self.rng.sample(chunks, self.rng.randrange(len(chunks))):  # a resume has work to do
            if chunk not in link.parents:
                shutil.rmtree(chunk)
        before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in outside.iterdir()}
        rc, err = finish(
            subprocess.Popen(
                run_cmd(self.v1, out, "--seed", SEED_A), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
        )
        after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in outside.iterdir()}
        self.log(f"{target} linked ({link.relative_to(out)}): rc {rc} {err.strip()[:160]}")
        if after != before or not link.is_symlink():
            self.log("the file outside the run folder, or the link, was changed")
            return "WRONG"
        return "refused" if clean_refusal(rc, err) and "symbolic link" in err else "WRONG"

    def hostile_plugin(self, behaviour: str) -> str:
        d = self.fresh_dir("plugin")
        d.mkdir()
        plugin = d / "hostile.py"
        plugin.write_text(PLUGIN_FILE)
        out = d / "run"
        shutil.copytree(self.refs["a"][0], out)
        ref = f"{plugin}:{PLUGINS[behaviour]}"
        tag = uuid.uuid4().hex  # the plug-in's worker runs in a session of its own: found by this tag
        t0 = time.time()
        proc = subprocess.Popen(
            simstudy("bench", self.v1, "--out", out, "--test", ref, "--timeout", PLUGIN_TIMEOUT),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            env=dict(os.environ, SIMSTUDY_FAULT_TAG=tag),
        )
        try:
            _, err = proc.communicate(timeout=PLUGIN_KILL)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
            self.log(f"plug-in {behaviour}: still running after {PLUGIN_KILL:g} s, killed")
            return "WRONG"
        seconds, rc = time.time() - t0, proc.returncode
        left = left_running(proc.pid, tag=tag)
        self.log(
            f"plug-in {behaviour}: rc {rc} after {seconds:.1f} s, {len(left)} process(es) left: {err.strip()[-300:]}"
        )
        named = PLUGINS[behaviour] in err and plugin.name in err
        if rc == 2 and one_line(err) and named and not left and seconds <= PLUGIN_TIMEOUT + PLUGIN_GRACE:
            return "refused"
        return "WRONG"

    def disk_full(self) -> str | None:
        mnt = self.fresh_dir("tmpfs")
        mnt.mkdir()
        size = self.rng.choice([48, 96, 160, 240, 400])
        if (
            os.geteuid() != 0
            or subprocess.run(
                ["mount", "-t", "tmpfs", "-o", f"size={size}k", "tmpfs", str(mnt)], capture_output=True
            ).returncode
            != 0
        ):
            return None
        try:
            out = mnt / "run"
            rc, err = finish(
                subprocess.Popen(
                    run_cmd(self.v1, out, "--seed", SEED_A),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
            self.log(f"tmpfs {size}k: rc {rc} {err.strip()[:120]}")
            if rc != 0 and not clean_refusal(rc, err):
                return "WRONG"
            if rc == 2 and (out / "manifest.json").exists() and not self.valid_partial(self.v1, out, "a"):
                return "WRONG"
            subprocess.run(["mount", "-o", "remount,size=8m", str(mnt)], check=True)
            rc2, err2 = finish(
                subprocess.Popen(
                    run_cmd(self.v1, out, "--seed", SEED_A),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
            if rc2 != 0 or not self.matches(self.v1, out, "a"):
                return "WRONG"
            return "identical" if rc == 0 else "refused"
        finally:
            subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


# -- the user's own code, clusters and writers ------------------------------------------------------
#
# Every process of these cases writes bytecode (PYTHONDONTWRITEBYTECODE is removed from its
# environment), and every edit keeps the file's size and modification time (as ``cp -p``, ``tar x``
# or ``rsync -t`` do), with the bytecode of the old text left in ``__pycache__`` stamped as valid
# for the new one: what Python's own import would run, unless simstudy loads the source itself.

USER_STUDY = "fault_user"

# The demo study, its tag column made by the study file (TAG) and by a module of the user's.  ``wrap``
# is ``dict`` (a valid replicate) or ``list`` (every replication fails: not a dict of tables), an edit
# of the same length.
USER_STUDY_TEMPLATE = '''"""The demo study, its tag column made by this file and by the user's module {module}."""
import dataclasses

import {module}
from simstudy.engine import get_study

TAG = 'v1'
_DEMO = get_study("demo")


def replicate(condition, rng):
    tables = _DEMO.replicate(condition, rng)
    tag = TAG + "/" + {module}.tag()
    return {wrap}({{name: [dict(row, tag=tag) for row in rows] if isinstance(rows, list) else rows.assign(tag=tag)
                    for name, rows in tables.items()}})


STUDY = dataclasses.replace(_DEMO, name={name!r}, replicate=replicate{profiles})
'''

USER_HELPER = '''"""A module of the user's: the second half of every row's tag (fault injection)."""


def tag():
    return 'v1'
'''

# A condition key of 300 characters (it names a folder of the run).
LONG_KEY_STUDY = '''"""The demo study with condition keys too long to name a folder."""
import dataclasses

from simstudy.engine import get_study
from simstudy.studies.demo import DemoCondition

_DEMO = get_study("demo")


@dataclasses.dataclass(frozen=True)
class LongKey(DemoCondition):
    @property
    def key(self):
        return "c" * 300 + f"{{self.mu:g}}"


def conditions(profile):
    return [LongKey(c.mu) for c in _DEMO.conditions(profile)]


STUDY = dataclasses.replace(_DEMO, name="fault_long_key", conditions=conditions{profiles})
'''

EXIT_STUDY = '''"""A study file that ends the process while it is imported."""
import os

os._exit(0)
'''

EXIT_REPLICATE_STUDY = '''"""A study whose replications end the process that computes them."""
import dataclasses
import os

from simstudy.engine import get_study

_DEMO = get_study("demo")


def replicate(condition, rng):
    os._exit(0)


STUDY = dataclasses.replace(_DEMO, name="fault_exit", replicate=replicate{profiles})
'''

# A package of the user's, installed with pip from its folder: a build backend of its own (in the
# folder), so that pip needs nothing from an index.
PACKAGE_PYPROJECT = """[build-system]
requires = []
build-backend = "fault_backend"
backend-path = ["."]

[project]
name = "faultpkg"
version = "1.0"
"""

PACKAGE_BACKEND = '''"""A PEP 517 backend that packs faultpkg/ into a wheel (fault injection)."""
import base64
import hashlib
import os
import zipfile

NAME, VERSION = "faultpkg", "1.0"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist = f"{NAME}-{VERSION}"
    files = {}
    for root, _, names in os.walk(NAME):
        for n in sorted(names):
            if n.endswith(".py"):
                with open(os.path.join(root, n), "rb") as f:
                    files[os.path.join(root, n).replace(os.sep, "/")] = f.read()
    files[f"{dist}.dist-info/METADATA"] = f"Metadata-Version: 2.1\\nName: {NAME}\\nVersion: {VERSION}\\n".encode()
    files[f"{dist}.dist-info/WHEEL"] = b"Wheel-Version: 1.0\\nGenerator: fault_backend\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    files[f"{dist}.dist-info/RECORD"] = ("\\n".join(record + [f"{dist}.dist-info/RECORD,,"]) + "\\n").encode()
    filename = f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return filename
'''

# A script of the user's that imports its helper first, then runs the study through the Python API
# (as a notebook whose first cell imports the helper would): errors on one line, exit code 2.
API_RUN = """import sys

import fault_helper  # noqa: F401  (imported before simstudy)
from simstudy.engine import run_study
from simstudy.errors import SimstudyError

try:
    run_study(sys.argv[1], {profile!r}, out=sys.argv[2], seed={seed}, fresh="--fresh" in sys.argv, progress=False)
except SimstudyError as exc:
    print(f"simstudy: error: {{exc}}", file=sys.stderr)
    sys.exit(2)
"""

STALE_VARIANTS = ("helper module", "study file", "built-in study", "helper imported first")
SHADOW_VARIANTS = ("statistics.py", "site-packages", "pip --target")
DASK_VARIANTS = ("edit between runs", "worker restarted", "other environment", "one worker")
WRITER_VARIANTS = (
    "--out ''",
    "long study name",
    "long condition key",
    "os._exit at import",
    "os._exit in replicate, --jobs 1",
    "os._exit in replicate, --jobs 2",
    "figures link",
    "/dev/shm",
    "/dev/shm, nothing to compute",
    "bench link",
)
#: Cases known to give WRONG today, with why: reported, not counted in the exit code; each says so
#: once it passes, and is then taken out of here.
KNOWN: dict[str, str] = {}  # trial label -> the fault it shows, while it is not fixed
ALPHA_EDIT = ("ALPHA = 0.05", "ALPHA = 0.50")  # in the built-in study module simstudy/studies/demo.py
DASK_START = 120.0  # seconds a dask scheduler and its workers may take to come up
SHM_PATTERN = r"^(?:sem\.loky-(\d+)-|joblib_memmapping_folder_(\d+)_)"


def plant_stale_pyc(path: Path, old: bytes) -> Path:
    """Bytecode of ``old`` in ``path``'s ``__pycache__``, stamped with the file's size and mtime as they are now.

    Python's import runs it for ``path`` (a timestamp ``.pyc`` whose recorded
    size and whole-second mtime match the source), as it would after having
    imported the old text once before an edit that kept both.
    """
    import importlib.util
    import marshal

    st = path.stat()
    code = compile(old, str(path), "exec", dont_inherit=True)
    cached = Path(importlib.util.cache_from_source(str(path)))
    cached.parent.mkdir(exist_ok=True)
    cached.write_bytes(
        importlib.util.MAGIC_NUMBER
        + (0).to_bytes(4, "little")
        + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
        + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
        + marshal.dumps(code)
    )
    return cached


class SameSizeEdit:
    """Replace the one ``old`` in ``path`` by ``new`` of the same length, keeping the file's mtime.

    :meth:`plant` leaves the bytecode of the text before the edit, stamped as
    valid for the file now; :meth:`restore` puts the old bytes and mtime back.
    """

    def __init__(self, path: Path, old: str, new: str):
        self.path, self.before = path, path.read_bytes()
        if len(old.encode()) != len(new.encode()) or self.before.count(old.encode()) != 1:
            raise ValueError(f"{path}: {old!r} -> {new!r} is not an edit of the same size of one place")
        self.after = self.before.replace(old.encode(), new.encode())
        self.stat = path.stat()

    def apply(self) -> "SameSizeEdit":
        self._write(self.after)
        return self

    def plant(self) -> Path:
        return plant_stale_pyc(self.path, self.before)

    def restore(self) -> None:
        self._write(self.before)
        import importlib.util

        Path(importlib.util.cache_from_source(str(self.path))).unlink(missing_ok=True)

    def _write(self, data: bytes) -> None:
        self.path.write_bytes(data)
        os.utime(self.path, ns=(self.stat.st_atime_ns, self.stat.st_mtime_ns))
        if self.path.stat().st_size != self.stat.st_size:
            raise AssertionError(f"{self.path}: the edit changed the file's size")


def plain_rows(out: Path, tables=("outcomes", "scores")):
    """``(run, {table: rows})`` of the verified chunks of a run folder, read without importing its study."""
    from simstudy.engine.store import RunData, RunStore

    manifest = RunStore(out).read_manifest()
    if manifest is None:
        return None, {t: None for t in tables}
    run = RunData(Path(out), manifest)
    return run, _tables_of(run, tables)


def shm_entries(pids) -> list[str]:
    """The loky semaphores and joblib folders in shared memory (and the temporary folder) named after ``pids``."""
    import re

    pattern, found = re.compile(SHM_PATTERN), []
    for where in dict.fromkeys(("/dev/shm", tempfile.gettempdir())):
        try:
            names = os.listdir(where)
        except OSError:
            continue
        for name in names:
            m = pattern.match(name)
            if m and int(m.group(1) or m.group(2)) in pids:
                found.append(os.path.join(where, name))
    return sorted(found)


def folder_state(folder: Path) -> dict:
    """``{relative path: (bytes, mtime)}`` of every file below ``folder`` (links not followed)."""
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns) if p.is_file() else None
        for p in sorted(folder.rglob("*"))
    }


class DaskCluster:
    """A long-lived dask cluster of ``dask scheduler`` and ``dask worker`` commands (the venv's), on free ports.

    Each command runs in a process group of its own; :meth:`close` kills them
    all, and is safe to call more than once.
    """

    def __init__(self, root: Path, env: dict, log):
        self.root, self.env, self.log = root, env, log
        self.procs: list[subprocess.Popen] = []
        self.client = None
        self.address = ""
        self.bin = Path(sys.executable).parent

    def _start(self, args, env, name) -> subprocess.Popen:
        out = open(self.root / f"{name}.log", "ab")
        try:
            proc = subprocess.Popen(
                [str(self.bin / "dask"), *args],
                env=env,
                cwd=self.root,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            out.close()
        self.procs.append(proc)
        return proc

    def start(self, nworkers: int) -> "DaskCluster":
        self.root.mkdir(parents=True, exist_ok=True)
        info = self.root / "scheduler.json"
        self._start(
            ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(info)],
            self.env,
            "scheduler",
        )
        deadline = time.time() + DASK_START
        while not info.is_file() or not info.read_text().strip():
            if time.time() > deadline or self.procs[0].poll() is not None:
                raise RuntimeError(f"dask scheduler did not start (see {self.root / 'scheduler.log'})")
            time.sleep(0.1)
        time.sleep(0.1)  # the file is written whole before the scheduler listens
        self.address = json.loads(info.read_text())["address"]
        from distributed import Client

        self.client = Client(self.address, timeout=DASK_START, set_as_default=False)
        self.add_workers(nworkers, self.env)
        return self

    def add_workers(self, n: int, env: dict, name: str = "workers") -> subprocess.Popen:
        """``dask worker ADDRESS --nworkers n --nthreads 1`` with ``env``; returns once they have joined."""
        want = len(self.client.nthreads()) + n
        proc = self._start(
            [
                "worker",
                self.address,
                "--nworkers",
                str(n),
                "--nthreads",
                "1",
                "--host",
                "127.0.0.1",
                "--no-dashboard",
                "--local-directory",
                str(self.root / "space"),
            ],
            env,
            name,
        )
        self.wait_for(want)
        return proc

    def wait_for(self, n: int) -> None:
        deadline = time.time() + DASK_START
        while len(self.client.nthreads()) != n:
            if time.time() > deadline:
                raise RuntimeError(f"dask cluster: {len(self.client.nthreads())} worker(s), waited for {n}")
            time.sleep(0.1)

    def stop(self, proc: subprocess.Popen) -> None:
        """Kill one command's process group."""
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()

    def close(self) -> None:
        if self.client is not None:
            try:
                self.client.close(timeout=10)
            except Exception:  # the scheduler may already be gone
                pass
            self.client = None
        for proc in self.procs:
            self.stop(proc)
        self.procs = []


class UserCode:
    """Cases where the user's own code, a cluster or a writer outside the store comes in.

    Each method is one trial and returns ``identical``, ``refused`` or ``WRONG``
    (see the module's docstring); ``tests/engine/test_user_code.py`` runs the
    same trials.  ``code`` is the copy of the package every process runs
    (put first on its PYTHONPATH); the built-in study ``demo`` of that copy is
    edited, and restored, by the trials that say so.
    """

    def __init__(self, root: Path, rng: random.Random, code: Path, verbose: bool = False):
        self.root, self.rng, self.code, self.verbose = Path(root), rng, Path(code), verbose
        self.refs: dict = {}  # key -> (run folder, rows)
        self.messages: list[str] = []
        self.n = 0
        self.cluster: DaskCluster | None = None
        self.cluster_study: Path | None = None
        self.proving: Path | None = None

    def log(self, *msg) -> None:
        line = " ".join(map(str, msg))
        self.messages.append(line)
        if self.verbose:
            print("   ", line, file=sys.stderr)

    def fresh_dir(self, name: str) -> Path:
        self.n += 1
        d = self.root / f"{name}-{self.n}"
        d.mkdir(parents=True)
        return d

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None

    # -- what every trial uses ----------------------------------------------------------------
    def env(self, *paths, bytecode: bool = True) -> dict:
        """The environment of a process: ``paths``, then the package's copy, first on PYTHONPATH."""
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if not bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([*map(str, paths), str(self.code), *rest]))
        return env

    def user_folder(self, d: Path, *, module: str = "fault_helper", wrap: str = "dict", name=USER_STUDY) -> Path:
        """The user's study in ``d`` (``study.py``) and its module ``module``; returns the study file."""
        d.mkdir(parents=True, exist_ok=True)
        if module != "faultpkg":  # installed with pip (see shadowed)
            (d / f"{module}.py").write_text(USER_HELPER)
        study = d / "study.py"
        study.write_text(USER_STUDY_TEMPLATE.format(module=module, wrap=wrap, name=name, profiles=PROFILES))
        return study

    def run(self, study: Path, out, env: dict, *extra, cwd=None) -> tuple[int, str, str]:
        """``simstudy run`` to its end: exit code, standard output and standard error."""
        cmd = simstudy("run", study, "--profile", PROFILE, "--quiet", "--seed", SEED_A, *extra)
        if out is not None:
            cmd += ["--out", str(out)]
        p = subprocess.run(cmd, env=env, cwd=cwd or self.root, capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def reference(self, key: str, *, edit=None, remove=()) -> dict:
        """Rows of the user's study at ``key``, computed once, with bytecode off, in a folder of its own.

        ``edit``: ``(file name, old, new)`` applied to the study's folder first;
        ``remove``: ``__pycache__`` folders removed first (those of a file
        edited in the package's copy).
        """
        if key not in self.refs:
            d = self.fresh_dir(f"ref-{key}")
            study = self.user_folder(d)
            if edit is not None:
                f = d / edit[0]
                f.write_text(f.read_text().replace(edit[1], edit[2]))
            shutil.rmtree(d / "__pycache__", ignore_errors=True)
            for folder in remove:
                shutil.rmtree(folder, ignore_errors=True)
            rc, _, err = self.run(study, d / "run", self.env(d, bytecode=False))
            if rc != 0:
                raise RuntimeError(f"reference run {key} failed: {err.strip()[-500:]}")
            self.refs[key] = (d / "run", plain_rows(d / "run")[1])
        return self.refs[key][1]

    def matches(self, out: Path, key: str) -> bool:
        run, got = plain_rows(out)
        return run is not None and run.complete and all(equal(got[t], self.refs[key][1][t]) for t in got)

    def valid_partial(self, out: Path, key: str) -> bool:
        _, got = plain_rows(out)
        ref = self.refs[key][1]
        return all(subset_of(got[t], ref[t]) for t in got if ref[t] is not None)

    def run_killed(self, study: Path, out: Path, env: dict, *extra) -> tuple[bool, int]:
        """Start a run and kill it (SIGKILL or SIGTERM) once it has stored a chunk.

        Returns ``(complete, chunks stored)`` as the folder holds them after the kill.
        """
        jobs = () if "--scheduler" in extra else ("--jobs", self.rng.choice([1, 2]))
        proc = subprocess.Popen(
            simstudy("run", study, "--profile", PROFILE, "--quiet", "--seed", SEED_A, "--out", out, *jobs, *extra),
            env=env,
            cwd=self.root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.time() + 600
        while proc.poll() is None and not any(out.glob("chunks/*/*/chunk.json")) and time.time() < deadline:
            time.sleep(0.01)
        sig = self.rng.choice([signal.SIGKILL, signal.SIGTERM])
        if proc.poll() is None:
            proc.send_signal(sig)
        rc, err = finish(proc)
        if rc not in (0, 130, -signal.SIGKILL) or "Traceback" in err:
            raise RuntimeError(f"the run to kill ended with {rc}: {err.strip()[-500:]}")
        run = plain_rows(out)[0] if (out / "manifest.json").exists() else None
        stored = 0 if run is None else sum(v != "missing" for v in run.chunk_states().values())
        self.log(f"{sig.name} after {stored} chunk(s) stored ({' '.join(map(str, jobs + extra)) or 'jobs 1'})")
        return run is not None and run.complete, stored

    def run_killed_partway(self, study: Path, out: Path, env: dict, attempts: int = 3) -> tuple[bool, int]:
        """:meth:`run_killed`, again in an empty folder while the run finished before the signal reached it (a
        fast run): a case about resuming needs something to resume.  When it finished every time, its last chunk
        is taken away, which is what a kill just before that chunk was written leaves."""
        for attempt in range(attempts):
            before = self.run_killed(study, out, env)
            if not before[0]:
                return before
            if attempt < attempts - 1:
                self.log("the run finished before the signal: started again")
                shutil.rmtree(out)
        last = sorted(p for p in (out / "chunks").glob("*/*") if p.is_dir())[-1]
        shutil.rmtree(last)
        self.log(f"the run finished before the signal every time: its chunk {last.relative_to(out)} taken away")
        return False, before[1] - 1

    def judge_resume(self, rc: int, err: str, out: Path, named: str, before: tuple, new_key: str) -> str:
        """A resume after an edit: refused on one line naming ``named``, or nothing mixed."""
        complete_before, stored_before = before
        self.log(f"resume after the edit: rc {rc}: {err.strip()[:300]}")
        if rc == 0:
            # nothing mixed: a complete run computes nothing (v1's rows stay, and it says so), and a run
            # that stored nothing starts with the edited code
            if complete_before and self.matches(out, "v1") and "--fresh" in err and named in err:
                return "identical"
            if stored_before == 0 and self.matches(out, new_key):
                return "identical"
            return "WRONG"
        if clean_refusal(rc, err) and "changed: code" in err and named in err:
            return "refused" if self.valid_partial(out, "v1") else "WRONG"
        return "WRONG"

    # -- stale bytecode ---------------------------------------------------------------------------
    def stale_bytecode(self, variant: str) -> str:
        """Kill a run, edit (same size, mtime kept, old bytecode left), resume; a new folder and --fresh."""
        d = self.fresh_dir("stale")
        study = self.user_folder(d)
        env = self.env(d)
        self.reference("v1")
        if variant in ("helper module", "helper imported first"):
            edit, named, key = SameSizeEdit(d / "fault_helper.py", "'v1'", "'v2'"), "module fault_helper", "helper"
        elif variant == "study file":
            edit, named, key = SameSizeEdit(study, "TAG = 'v1'", "TAG = 'v2'"), "the study file", "study"
        else:
            demo = self.code / "simstudy" / "studies" / "demo.py"
            edit, named, key = SameSizeEdit(demo, *ALPHA_EDIT), "simstudy.studies.demo", "alpha"
        out = d / "run"
        run = self.run
        if variant == "helper imported first":  # through the Python API, the helper imported before simstudy
            (d / "api_run.py").write_text(API_RUN.format(profile=PROFILE, seed=SEED_A))
            run = functools.partial(self.api_run, d / "api_run.py")
        before = self.run_killed_partway(study, out, env)
        edit.apply()
        try:
            if key == "helper":
                self.reference(key, edit=("fault_helper.py", "'v1'", "'v2'"))
            elif key == "study":
                self.reference(key, edit=("study.py", "TAG = 'v1'", "TAG = 'v2'"))
            else:
                self.reference(key, remove=[edit.path.parent / "__pycache__"])
                ran = json.loads((self.refs[key][0] / "manifest.json").read_text())["provenance"]["modules"]
                if ran.get("simstudy.studies.demo") != hashlib.sha256(edit.after).hexdigest()[:16]:
                    raise RuntimeError(f"the runs do not run the package's copy in {self.code}")
            edit.plant()
            if key == "helper":  # what plain Python runs now: the old code
                probe = subprocess.run(
                    [sys.executable, "-c", "import fault_helper; print(fault_helper.tag())"],
                    env=env,
                    cwd=self.root,
                    capture_output=True,
                    text=True,
                )
                self.log(f"plain Python imports fault_helper.tag() -> {probe.stdout.strip()} (the file says 'v2')")
            rc, _, err = run(study, out, env)
            verdict = self.judge_resume(rc, err, out, named, before, key)
            if verdict == "WRONG":
                return verdict
            edit.plant()
            rc, _, err = run(study, d / "new", env)
            if rc != 0 or not self.matches(d / "new", key):
                self.log(f"a new folder after the edit: rc {rc}: {err.strip()[:300]}")
                return "WRONG"
            edit.plant()
            rc, _, err = run(study, out, env, "--fresh")
            if rc != 0 or not self.matches(out, key):
                self.log(f"--fresh after the edit: rc {rc}: {err.strip()[:300]}")
                return "WRONG"
            return verdict
        finally:
            edit.restore()

    def api_run(self, script: Path, study: Path, out: Path, env: dict, *extra) -> tuple[int, str, str]:
        """``run_study`` through the Python API (``script``: API_RUN), as a run of the command line would be."""
        p = subprocess.run(
            [sys.executable, str(script), str(study), str(out), *extra],
            env=env,
            cwd=self.root,
            capture_output=True,
            text=True,
        )
        return p.returncode, p.stdout, p.stderr

    # -- modules named like the standard library's or installed code -------------------------------
    def shadowed(self, variant: str) -> str:
        """A user module that looks like the standard library or installed code: kill, change, resume."""
        self.reference("v1")
        if variant == "statistics.py":
            d = self.fresh_dir("shadow")
            study = self.user_folder(d, module="statistics")
            target, named, paths = d / "statistics.py", "module statistics", [d]
        elif variant == "site-packages":
            d = self.fresh_dir("shadow") / "site-packages" / "project"
            study = self.user_folder(d)
            target, named, paths = d / "fault_helper.py", "module fault_helper", [d]
        else:
            d = self.fresh_dir("shadow")
            study = self.user_folder(d, module="faultpkg")
            pkg, lib = d / "pkg", d / "lib"
            (pkg / "faultpkg").mkdir(parents=True)
            (pkg / "pyproject.toml").write_text(PACKAGE_PYPROJECT)
            (pkg / "fault_backend.py").write_text(PACKAGE_BACKEND)
            (pkg / "faultpkg" / "__init__.py").write_text(USER_HELPER)
            self.pip_install(pkg, lib)
            target, named, paths = lib / "faultpkg" / "__init__.py", "module faultpkg", [lib, d]
        env = self.env(*paths)
        out = d / "run"
        self.reference("helper", edit=("fault_helper.py", "'v1'", "'v2'"))  # the rows of the changed module
        before = self.run_killed_partway(study, out, env)
        if variant == "pip --target":  # other code under the same version, the installed file's mtime kept
            old, st = target.read_bytes(), target.stat()
            src = pkg / "faultpkg" / "__init__.py"
            src.write_text(src.read_text().replace("'v1'", "'v2'"))
            self.pip_install(pkg, lib)
            os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
            if target.stat().st_size != len(old):
                raise AssertionError("the reinstalled module changed size")
            plant_stale_pyc(target, old)
        else:
            SameSizeEdit(target, "'v1'", "'v2'").apply().plant()
        rc, _, err = self.run(study, out, env)
        return self.judge_resume(rc, err, out, named, before, "helper")

    def pip_install(self, pkg: Path, lib: Path) -> None:
        p = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
            + ["--disable-pip-version-check", "--upgrade", "--target", str(lib), str(pkg)],
            env=self.env(),
            cwd=self.root,
            capture_output=True,
            text=True,
        )
        if p.returncode != 0:
            raise RuntimeError(f"pip install {pkg} failed: {p.stderr.strip()[-500:]}")

    # -- a long-lived dask cluster ----------------------------------------------------------------
    def start_cluster(self) -> DaskCluster:
        """The cluster of two single-threaded workers that the dask trials share (started once)."""
        if self.cluster is None:
            d = self.fresh_dir("dask")
            self.cluster_study = self.user_folder(d / "study")
            self.cluster = DaskCluster(d, self.env(d / "study"), self.log).start(2)
            self.log(f"dask cluster at {self.cluster.address}, 2 workers")
        return self.cluster

    def dask(self, variant: str) -> str:
        self.reference("v1")
        self.reference("helper", edit=("fault_helper.py", "'v1'", "'v2'"))
        if variant == "one worker":
            return self.dask_one_worker()
        cluster = self.start_cluster()
        study = self.cluster_study
        helper = study.parent / "fault_helper.py"
        helper.write_text(USER_HELPER)  # as the cluster started
        env = self.env(study.parent)
        where = ("--backend", "dask", "--scheduler", cluster.address)
        d = self.fresh_dir("dask-run")
        try:
            if variant == "edit between runs":
                rc, _, err = self.run(study, d / "first", env, *where)
                if rc != 0 or not self.matches(d / "first", "v1"):
                    self.log(f"first run: rc {rc}: {err.strip()[:300]}")
                    return "WRONG"
                helper.write_text(USER_HELPER.replace("'v1'", "'v2'  # edited"))  # another size
                rc, _, err = self.run(study, d / "second", env, *where)
                self.log(f"run after the edit: rc {rc}: {err.strip()[:300]}")
                return "identical" if rc == 0 and self.matches(d / "second", "helper") else "WRONG"
            if variant == "worker restarted":
                out = d / "run"
                before = self.run_killed(study, out, env, *where)
                restarted = sorted(cluster.client.nthreads())[0]
                cluster.client.restart_workers([restarted], timeout=DASK_START)
                cluster.wait_for(2)
                SameSizeEdit(helper, "'v1'", "'v2'").apply().plant()
                rc, _, err = self.run(study, out, env, *where)
                verdict = self.judge_resume(rc, err, out, "module fault_helper", before, "helper")
                if verdict == "WRONG":
                    return verdict
                rc, _, err = self.run(study, out, env, *where, "--fresh")  # every worker with the edited module
                if rc != 0 or not self.matches(out, "helper"):
                    self.log(f"--fresh on the cluster after the edit: rc {rc}: {err.strip()[:300]}")
                    return "WRONG"
                return verdict
            # other environment: a worker whose copy of the package has another built-in demo study
            other = self.other_code()
            alien_env = dict(self.env(study.parent), PYTHONPATH=os.pathsep.join([str(study.parent), str(other)]))
            alien = cluster.add_workers(1, alien_env, "alien")
            try:
                out = d / "run"
                rc, _, err = self.run(study, out, env, *where)
                self.log(f"a worker of another environment joined: rc {rc}: {err.strip()[:300]}")
                if clean_refusal(rc, err) and "worker" in err and not out.exists():
                    return "refused"
                return "WRONG"
            finally:
                cluster.stop(alien)
                cluster.wait_for(2)
        finally:
            helper.write_text(USER_HELPER)

    def other_code(self) -> Path:
        """A second copy of the package whose built-in demo study has ALPHA = 0.50 (made once)."""
        other = self.root / "code-other"
        if not other.exists():
            shutil.copytree(self.code, other, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            demo = other / "simstudy" / "studies" / "demo.py"
            demo.write_text(demo.read_text().replace(*ALPHA_EDIT))
        return other

    def dask_one_worker(self) -> str:
        """A cluster of one single-threaded worker: the replications run there, never in the client."""
        d = self.fresh_dir("dask-one")
        study = self.user_folder(d / "study")
        cluster = DaskCluster(d, self.env(study.parent), self.log)
        try:
            cluster.start(1)
            proc = subprocess.Popen(
                simstudy(
                    "run", study, "--profile", PROFILE, "--quiet", "--seed", SEED_A, "--out", d / "run",
                    "--backend", "dask", "--scheduler", cluster.address,
                ),
                env=self.env(study.parent),
                cwd=self.root,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )  # fmt: skip
            rc, err = finish(proc)
            if rc != 0 or not self.matches(d / "run", "v1"):
                self.log(f"one worker: rc {rc}: {err.strip()[:300]}")
                return "WRONG"
            workers = json.loads((d / "run" / "manifest.json").read_text())["runs"][-1].get("workers") or {}
            self.log(f"one worker: the run says it ran on {workers} (the client was pid {proc.pid})")
            ok = workers and all(w.startswith("tcp://") and f"(pid {proc.pid} on" not in w for w in workers)
            return "identical" if ok else "WRONG"
        finally:
            cluster.close()

    # -- a run where every replication fails, then fixed ---------------------------------------------
    def all_failed(self) -> str:
        self.reference("v1")
        d = self.fresh_dir("failed")
        study = self.user_folder(d, wrap="list")
        env, out = self.env(d), d / "run"
        rc, stdout, err = self.run(study, out, env)
        self.log(f"every replication fails: rc {rc}: {' | '.join((stdout + err).strip().splitlines())[-400:]}")
        if rc != 1 or "first failure" not in stdout + err or "Traceback" in stdout + err:
            return "WRONG"
        summarize = simstudy("summarize", study, "--profile", PROFILE, "--out", out)
        p = subprocess.run(summarize, env=env, cwd=self.root, capture_output=True, text=True)
        if p.returncode == 0 or not one_line(p.stderr):  # says there is nothing to summarise, on one line
            self.log(f"summarize of the failed run: rc {p.returncode}: {p.stderr.strip()[-300:]}")
            return "WRONG"
        SameSizeEdit(study, "return list(", "return dict(").apply().plant()
        rc, _, err = self.run(study, out, env)
        if rc != 0 or not self.matches(out, "v1"):
            self.log(f"the same command after the fix: rc {rc}: {err.strip()[:300]}")
            return "WRONG"
        p = subprocess.run(summarize, env=env, cwd=self.root, capture_output=True, text=True)
        self.log(f"summarize after the fix: rc {p.returncode} {p.stderr.strip()[-300:]}")
        return "identical" if p.returncode == 0 and "Traceback" not in p.stderr else "WRONG"

    # -- writers outside the store ------------------------------------------------------------------
    def writer(self, variant: str) -> str:
        d = self.fresh_dir("writer")
        here = d / "cwd"  # where the command runs: must stay empty when it refuses
        here.mkdir()
        if variant == "--out ''":
            study = self.user_folder(d / "study")
            rc, _, err = self.run(study, "", self.env(study.parent), cwd=here)
        elif variant == "long study name":
            study = self.user_folder(d / "study", name="n" * 300)
            rc, _, err = self.run(study, None, self.env(study.parent), cwd=here)
        elif variant == "long condition key":
            study = d / "study.py"
            study.write_text(LONG_KEY_STUDY.format(profiles=PROFILES))
            rc, _, err = self.run(study, here / "run", self.env(), cwd=here)
        elif variant == "os._exit at import":
            study = d / "study.py"
            study.write_text(EXIT_STUDY)
            rc, _, err = self.run(study, here / "run", self.env(), cwd=here)
        elif variant.startswith("os._exit in replicate"):
            study = d / "study.py"
            study.write_text(EXIT_REPLICATE_STUDY.format(profiles=PROFILES))
            rc, _, err = self.run(study, here / "run", self.env(), "--jobs", variant[-1], cwd=here)
            self.log(f"{variant}: rc {rc}: {' | '.join(err.strip().splitlines())[-300:]}")
            return "refused" if rc != 0 and one_line(err) else "WRONG"  # a run folder stays: the manifest
        elif variant == "figures link":
            return self.link_refused(d, "figures")
        elif variant == "bench link":
            return self.link_refused(d, "bench")
        else:
            return self.shm_orphans(d, nothing_to_compute=variant != "/dev/shm")
        left = sorted(p.name for p in here.iterdir())
        self.log(f"{variant}: rc {rc}, left {left}: {err.strip()[:300]}")
        return "refused" if clean_refusal(rc, err) and not left else "WRONG"

    def link_refused(self, d: Path, folder: str) -> str:
        """A run folder whose ``figures/`` (proving ground) or ``bench/`` is a link to a folder outside."""
        outside = d / "mine"
        outside.mkdir()
        (outside / "notes.txt").write_text("keep me\n")
        out = d / "run"
        if folder == "figures":
            shutil.copytree(self.proving_ground(), out, symlinks=True)
            cmd = simstudy("proving-ground", "--profile", PROFILE, "--out", out, "--quiet")
            env = self.env()
        else:
            self.reference("v1")
            shutil.copytree(self.refs["v1"][0], out, symlinks=True)
            study = self.user_folder(d / "study")
            cmd = simstudy("bench", study, "--out", out, "--test", "corrected_cv_t")
            env = self.env(study.parent)
        shutil.rmtree(out / folder, ignore_errors=True)
        (out / folder).symlink_to(outside, target_is_directory=True)
        before = folder_state(outside)
        p = subprocess.run(cmd, env=env, cwd=self.root, capture_output=True, text=True)
        after = folder_state(outside)
        self.log(f"{folder}/ linked: rc {p.returncode}, outside {'kept' if after == before else 'CHANGED'}: "
                 f"{p.stderr.strip()[:300]}")  # fmt: skip
        if after != before or not (out / folder).is_symlink():
            return "WRONG"
        return "refused" if clean_refusal(p.returncode, p.stderr) and "symbolic link" in p.stderr else "WRONG"

    def proving_ground(self) -> Path:
        """A complete proving-ground run folder at the smoke profile (made once, copied by each trial)."""
        if self.proving is None:
            out = self.root / "proving-ground"
            p = subprocess.run(
                simstudy("proving-ground", "--profile", PROFILE, "--out", out, "--quiet"),
                env=self.env(),
                cwd=self.root,
                capture_output=True,
                text=True,
            )
            if p.returncode != 0:
                raise RuntimeError(f"proving ground: {p.stderr.strip()[-500:]}")
            self.proving = out
        return self.proving

    def shm_orphans(self, d: Path, *, nothing_to_compute: bool = False) -> str:
        """SIGKILL a --jobs 2 run's process group; the next --jobs 2 run removes what it left in /dev/shm.

        Killed as soon as its workers' semaphores exist (it has work left).
        ``nothing_to_compute``: the run is first completed with ``--jobs 1``,
        so that the next ``--jobs 2`` run has nothing to compute.
        """
        self.reference("v1")
        study = self.user_folder(d / "study")
        env, out = self.env(study.parent), d / "run"
        unnamed = {n for n in os.listdir("/dev/shm") if n.startswith("sem.mp-")} if Path("/dev/shm").is_dir() else set()
        proc = subprocess.Popen(
            simstudy("run", study, "--profile", PROFILE, "--quiet", "--seed", SEED_A, "--out", out, "--jobs", 2),
            env=env,
            cwd=self.root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline, pids = time.time() + 600, {proc.pid}
        while proc.poll() is None and not shm_entries(pids) and time.time() < deadline:
            time.sleep(0.01)
        pids |= set(session_processes(proc.pid))
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        left_running(proc.pid)  # its orphaned workers reaped
        orphans = shm_entries(pids)
        if nothing_to_compute:
            rc, _, err = self.run(study, out, env, "--jobs", 1)
            self.log(f"completed with --jobs 1: rc {rc}, {len(shm_entries(pids))} entries left: {err.strip()[:300]}")
            if rc != 0:
                return "WRONG"
        rc, _, err = self.run(study, out, env, "--jobs", 2)
        still = shm_entries(pids)
        if unnamed:
            now = {n for n in os.listdir("/dev/shm") if n.startswith("sem.mp-")}
            self.log(f"sem.mp-* entries (not named after a process): {len(now - unnamed)} more than before the trial")
        self.log(f"SIGKILL of the group left {len(orphans)} entries; after the next run: {still}; rc {rc}")
        if rc != 0 or not self.matches(out, "v1") or still:
            if err.strip():
                self.log(err.strip()[-300:])
            return "WRONG"
        return "identical"


def copy_package(target: Path) -> Path:
    """A copy of the simstudy package as imported now, built-in studies included, in ``target/simstudy``."""
    import importlib.util

    pkg = Path(importlib.util.find_spec("simstudy").origin).parent
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(pkg, target / "simstudy", ignore=ignore)
    studies = importlib.util.find_spec("simstudy.studies")
    if studies is not None and Path(studies.origin).parent.parent != pkg:  # installed from another folder
        shutil.copytree(Path(studies.origin).parent, target / "simstudy" / "studies", ignore=ignore, dirs_exist_ok=True)
    return target


def freeze_code(target: Path):
    """Run every process of the harness on a copy of the package taken now.

    The code fingerprint is part of what a run checks, so an edit to the
    working tree while the harness runs would be (rightly) refused as a code
    change; the copy keeps the cases about the faults they inject.
    """
    copy_package(target)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(target), *filter(None, [os.environ.get("PYTHONPATH")])])
    # the import finder of the copy replaces the working tree's (two of them would ask each other forever)
    sys.meta_path[:] = [f for f in sys.meta_path if getattr(f, "__module__", None) != "simstudy._codeload"]
    for name in [m for m in sys.modules if m == "simstudy" or m.startswith("simstudy.")]:
        del sys.modules[name]
    sys.path.insert(0, str(target))


def main(argv=None) -> int:
    global PROFILES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=None, help="trials per case (default 3; 2 with --small)")
    parser.add_argument(
        "--small",
        action="store_true",
        help=f"every case at a small size: {SMALL_REPLICATIONS} replications per condition, "
        "2 trials per case unless --runs says otherwise, one per variant of the cases "
        "with variants; about 6 minutes, what CI runs",
    )
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--seed", type=int, default=None, help="seed of the fault schedule (default: random)")
    parser.add_argument("--workdir", default=None, help="keep the runs here (default: a removed temporary dir)")
    parser.add_argument("--verbose", action="store_true", help="one line per trial on stderr")
    args = parser.parse_args(argv)
    runs = args.runs if args.runs is not None else (2 if args.small else 3)
    if runs < 1:
        parser.error("--runs: must be >= 1")
    if args.small:
        PROFILES = small_profiles(SMALL_REPLICATIONS)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    rng = random.Random(seed)
    tmp = None
    if args.workdir:
        root = Path(args.workdir)
        root.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="simstudy-faults-")
        root = Path(tmp.name)
    started = time.time()
    u = None
    root, cwd = root.resolve(), os.getcwd()
    os.chdir(root)  # `python -m` puts the working directory first on sys.path: never the checkout's package
    try:
        freeze_code(root / "code")
        h = Harness(root, rng, args.verbose)
        u = UserCode(root / "user", rng, root / "code", args.verbose)
        size = f", {SMALL_REPLICATIONS} replications per condition" if args.small else ""
        print(
            f"fault injection: {runs} trial(s) per case{size}, schedule seed {seed}, in {root} "
            "(on a copy of the package taken at the start)"
        )
        if set(args.cases) & set(STORE_CASES):
            h.reference("b", h.v1, SEED_B)
            h.reference("v2", write_study(root / "study_v2.py", "v2"), SEED_A)
            h.reference("a", h.v1, SEED_A)
            print(f"uninterrupted run: {h.seconds:.1f} s")
        rows = {
            "sigkill": [("sigkill", lambda: h.kill(signal.SIGKILL))],
            "sigterm": [("sigterm", lambda: h.kill(signal.SIGTERM))],
            "concurrent": [("concurrent", h.concurrent)],
            "code-change": [("code-change", h.code_change)],
            "damage": [("damage", h.damage)],
            "disk-full": [("disk-full", h.disk_full)],
            "imported-module": [("imported-module", h.imported_module)],
            "symlinked-lock": [(f"symlinked {t}", functools.partial(h.symlinked, t)) for t in LINK_TARGETS],
            "hostile-plugin": [(f"plugin {b}", functools.partial(h.hostile_plugin, b)) for b in PLUGINS],
            "stale-bytecode": [(f"stale-bytecode {v}", functools.partial(u.stale_bytecode, v)) for v in STALE_VARIANTS],
            "shadowed-name": [(f"shadowed {v}", functools.partial(u.shadowed, v)) for v in SHADOW_VARIANTS],
            "dask-cluster": [(f"dask {v}", functools.partial(u.dask, v)) for v in DASK_VARIANTS],
            "all-failed": [("all-failed", u.all_failed)],
            "writers": [(f"writer {v}", functools.partial(u.writer, v)) for v in WRITER_VARIANTS],
        }
        width = max(len(label) for case in args.cases for label, _ in rows[case])
        print(f"{'case':<{width}} {'trials':>6} {'identical':>9} {'refused':>8} {'WRONG':>6}")
        wrong, known = 0, []
        for case in args.cases:
            trials = 1 if args.small and len(rows[case]) > 1 else runs
            for label, trial in rows[case]:
                counts = {"identical": 0, "refused": 0, "WRONG": 0}
                skipped = False
                for _ in range(trials):
                    try:
                        verdict = trial()
                    except Exception as exc:  # the harness itself, e.g. a row check that cannot read the store
                        h.log(f"{label}: {type(exc).__name__}: {exc}")
                        verdict = "WRONG"
                    if verdict == "WRONG":
                        h.log(f"{label}: WRONG (kept in {root})" if args.workdir else f"{label}: WRONG")
                    u.messages.clear()
                    if verdict is None:
                        skipped = True
                        break
                    counts[verdict] += 1
                if skipped:
                    print(f"{label:<{width}} skipped (needs root and mount -t tmpfs)")
                    continue
                note = ""
                if label in KNOWN:  # reported, not counted: see KNOWN
                    known.append((label, counts["WRONG"]))
                    note = "  (known, see below)"
                else:
                    wrong += counts["WRONG"]
                print(
                    f"{label:<{width}} {trials:>6} {counts['identical']:>9} {counts['refused']:>8} "
                    f"{counts['WRONG']:>6}{note}",
                    flush=True,
                )
        for label, n in known:
            if n:
                print(f"known, not counted: {label}: {KNOWN[label]}")
            else:
                print(f"known: {label}: no WRONG trial this time; once fixed, take it out of KNOWN")
        print(f"{wrong} WRONG trial(s) in {time.time() - started:.0f} s")
        return 1 if wrong else 0
    finally:
        os.chdir(cwd)
        if u is not None:
            u.close()  # the dask cluster's processes
        if tmp is not None:
            for m in root.glob("tmpfs-*"):
                subprocess.run(["umount", "-l", str(m)], capture_output=True)
            tmp.cleanup()


if __name__ == "__main__":
    sys.exit(main())
