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

SIGTERM must always end in exit code 130 with one line on standard error (or
0 when the run finished first): the harness sends it only once the process
handles it (before that, during the interpreter's own start, the default
disposition applies, which no program can change).

Usage::

    python scripts/fault_injection.py --runs 5
    python scripts/fault_injection.py --cases sigkill damage --runs 20 --seed 7
    python scripts/fault_injection.py --small          # every case at a small size (about 2 minutes; CI)

The exit code is 1 when any trial is WRONG, else 0.
"""

from __future__ import annotations

import argparse
import functools
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
)
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


def left_running(sid: int, seconds: float = 3.0, tag: str | None = None) -> list[int]:
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


def stored_rows(study: Path, out: Path, tables=("outcomes", "scores")):
    """The verified rows of a run directory, per table (complete or not)."""
    from simstudy.engine import get_study, load_run

    run = load_run(get_study(str(study)), PROFILE, out=out)
    got = {}
    for t in tables:
        try:
            got[t] = run.table(t).reset_index(drop=True)
        except KeyError:
            got[t] = None
    return run, got


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


def freeze_code(target: Path):
    """Run every process of the harness on a copy of the package taken now.

    The code fingerprint is part of what a run checks, so an edit to the
    working tree while the harness runs would be (rightly) refused as a code
    change; the copy keeps the cases about the faults they inject.
    """
    import importlib.util

    pkg = Path(importlib.util.find_spec("simstudy").origin).parent
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(pkg, target / "simstudy", ignore=ignore)
    studies = importlib.util.find_spec("simstudy.studies")
    if studies is not None and Path(studies.origin).parent.parent != pkg:  # installed from another folder
        shutil.copytree(Path(studies.origin).parent, target / "simstudy" / "studies", ignore=ignore, dirs_exist_ok=True)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(target), *filter(None, [os.environ.get("PYTHONPATH")])])
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
        "with variants (symlinked-lock, hostile-plugin); about 2 minutes, what CI runs",
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
    try:
        freeze_code(root / "code")
        h = Harness(root, rng, args.verbose)
        size = f", {SMALL_REPLICATIONS} replications per condition" if args.small else ""
        print(
            f"fault injection: {runs} trial(s) per case{size}, schedule seed {seed}, in {root} "
            "(on a copy of the package taken at the start)"
        )
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
        }
        width = max(len(label) for case in args.cases for label, _ in rows[case])
        print(f"{'case':<{width}} {'trials':>6} {'identical':>9} {'refused':>8} {'WRONG':>6}")
        wrong = 0
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
                    if verdict is None:
                        skipped = True
                        break
                    counts[verdict] += 1
                if skipped:
                    print(f"{label:<{width}} skipped (needs root and mount -t tmpfs)")
                    continue
                wrong += counts["WRONG"]
                print(
                    f"{label:<{width}} {trials:>6} {counts['identical']:>9} {counts['refused']:>8} "
                    f"{counts['WRONG']:>6}",
                    flush=True,
                )
        print(f"{wrong} WRONG trial(s) in {time.time() - started:.0f} s")
        return 1 if wrong else 0
    finally:
        if tmp is not None:
            for m in root.glob("tmpfs-*"):
                subprocess.run(["umount", "-l", str(m)], capture_output=True)
            tmp.cleanup()


if __name__ == "__main__":
    sys.exit(main())
