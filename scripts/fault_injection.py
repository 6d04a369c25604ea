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

Usage::

    python scripts/fault_injection.py --runs 5
    python scripts/fault_injection.py --cases sigkill damage --runs 20 --seed 7
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

CASES = ("sigkill", "sigterm", "concurrent", "code-change", "damage", "disk-full")
PROFILE = "smoke"
SEED_A, SEED_B = 11, 22

STUDY_TEMPLATE = '''"""The demo study, with a tag column: editing TAG changes the rows (fault injection)."""
import dataclasses

from simstudy.engine import get_study

TAG = {tag!r}
_DEMO = get_study("demo")


def replicate(condition, rng):
    tables = _DEMO.replicate(condition, rng)
    return {{name: [dict(row, tag=TAG) for row in rows] if isinstance(rows, list) else rows.assign(tag=TAG)
             for name, rows in tables.items()}}


STUDY = dataclasses.replace(_DEMO, name="fault_demo", replicate=replicate)
'''


def write_study(path: Path, tag: str) -> Path:
    path.write_text(STUDY_TEMPLATE.format(tag=tag))
    return path


def simstudy(*args) -> list[str]:
    return [sys.executable, "-m", "simstudy.cli", *map(str, args)]


def run_cmd(study: Path, out: Path, *extra) -> list[str]:
    return simstudy("run", study, "--profile", PROFILE, "--quiet", "--out", out, *extra)


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    _, err = proc.communicate()
    return proc.returncode, err


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
        rc, err = finish(subprocess.Popen(run_cmd(study, out, "--seed", seed), stderr=subprocess.PIPE,
                                          stdout=subprocess.DEVNULL, text=True))
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
        proc = subprocess.Popen(run_cmd(self.v1, out, "--seed", SEED_A, "--jobs", jobs),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        delay = self.rng.uniform(0.3, 1.2 * self.seconds)
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(sig)
        rc, err = finish(proc)
        self.log(f"{sig.name} after {delay:.1f} s (jobs {jobs}): rc {rc}")
        # 130: stopped by the SIGTERM handler; -SIGTERM: the signal came before the handler was set
        # (during start-up) or after it was reset (interpreter shutdown)
        # -SIGINT with the one-line "interrupted" message: the run stopped in order, but the SIGTERM
        # handler's KeyboardInterrupt went through C code that CPython marks as an unhandled
        # interrupt (e.g. during an import), so the interpreter reports it with SIGINT at exit
        stopped = rc == -signal.SIGINT and err.strip().startswith("simstudy: interrupted") \
            and len(err.strip().splitlines()) == 1
        if not stopped and rc not in (0, 130, -signal.SIGKILL, -signal.SIGTERM) or "Traceback" in err:
            self.log(f"unexpected end: rc {rc}: {err.strip()[-2000:]}")
            return "WRONG"
        if (out / "manifest.json").exists() and not self.valid_partial(self.v1, out, "a"):
            self.log("stored rows after the kill are not the uninterrupted run's")
            return "WRONG"
        rc, err = finish(subprocess.Popen(run_cmd(self.v1, out, "--seed", SEED_A), stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True))
        if rc == 0:
            return "identical" if self.matches(self.v1, out, "a") else "WRONG"
        self.log(f"resume: rc {rc}: {err.strip()[-2000:]}")
        return "refused" if clean_refusal(rc, err) else "WRONG"

    def concurrent(self) -> str:
        out = self.fresh_dir("concurrent")
        a = subprocess.Popen(run_cmd(self.v1, out, "--seed", SEED_A), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        time.sleep(self.rng.uniform(0.0, 1.0 * self.seconds))
        b = subprocess.Popen(run_cmd(self.v1, out, "--seed", SEED_B), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
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
        proc = subprocess.Popen(run_cmd(study, out, "--seed", SEED_A), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(self.rng.uniform(0.5, 1.2 * self.seconds))
        if proc.poll() is None:
            proc.send_signal(self.rng.choice([signal.SIGKILL, signal.SIGTERM]))
        finish(proc)
        run = stored_rows(study, out)[0] if (out / "manifest.json").exists() else None
        complete_before = run is not None and run.complete
        stored_before = 0 if run is None else sum(v != "missing" for v in run.chunk_states().values())
        write_study(study, "v2")
        rc, err = finish(subprocess.Popen(run_cmd(study, out, "--seed", SEED_A), stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True))
        self.log(f"code change ({stored_before} chunk(s) stored before): rc {rc} {err.strip()[:120]}")
        if rc == 0:
            # allowed when nothing is mixed: a complete run computes nothing (v1's rows stay), and a
            # run that stored nothing starts with the edited code (v2's rows)
            if not (complete_before and self.matches(study, out, "a")) \
                    and not (stored_before == 0 and self.matches(study, out, "v2")):
                return "WRONG"
            verdict = "identical"
        elif clean_refusal(rc, err) and "changed: code" in err:
            if not self.valid_partial(study, out, "a"):
                return "WRONG"
            verdict = "refused"
        else:
            return "WRONG"
        rc, err = finish(subprocess.Popen(run_cmd(study, out, "--seed", SEED_A, "--fresh"),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
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
            pd.DataFrame({"study": ["fault_demo"], "condition": [chunk.parent.name], "replication": [0],
                          "seed": [1], "error": ["planted"], "traceback": [""]}).to_parquet(
                chunk / "failures.parquet", index=False)
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
        st = subprocess.run(simstudy("status", self.v1, "--profile", PROFILE, "--out", out),
                            capture_output=True, text=True)
        expect = "complete: every chunk verified" if how == "plant" else "damaged"
        self.log(f"damage {how} in {chunk.relative_to(out)}: status says {expect in st.stdout}")
        if st.returncode != 0 or expect not in st.stdout:
            return "WRONG"
        rc, err = finish(subprocess.Popen(run_cmd(self.v1, out, "--seed", SEED_A), stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True))
        if rc != 0:
            self.log(f"rerun after damage: rc {rc}: {err.strip()[-2000:]}")
            return "refused" if clean_refusal(rc, err) else "WRONG"
        return "identical" if self.matches(self.v1, out, "a") else "WRONG"

    def disk_full(self) -> str | None:
        mnt = self.fresh_dir("tmpfs")
        mnt.mkdir()
        size = self.rng.choice([48, 96, 160, 240, 400])
        if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}k", "tmpfs", str(mnt)],
                                               capture_output=True).returncode != 0:
            return None
        try:
            out = mnt / "run"
            rc, err = finish(subprocess.Popen(run_cmd(self.v1, out, "--seed", SEED_A), stdout=subprocess.DEVNULL,
                                              stderr=subprocess.PIPE, text=True))
            self.log(f"tmpfs {size}k: rc {rc} {err.strip()[:120]}")
            if rc != 0 and not clean_refusal(rc, err):
                return "WRONG"
            if rc == 2 and (out / "manifest.json").exists() and not self.valid_partial(self.v1, out, "a"):
                return "WRONG"
            subprocess.run(["mount", "-o", "remount,size=8m", str(mnt)], check=True)
            rc2, err2 = finish(subprocess.Popen(run_cmd(self.v1, out, "--seed", SEED_A),
                                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
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
        shutil.copytree(Path(studies.origin).parent, target / "simstudy" / "studies", ignore=ignore,
                        dirs_exist_ok=True)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(target), *filter(None, [os.environ.get("PYTHONPATH")])])
    for name in [m for m in sys.modules if m == "simstudy" or m.startswith("simstudy.")]:
        del sys.modules[name]
    sys.path.insert(0, str(target))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="trials per case (default 3)")
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--seed", type=int, default=None, help="seed of the fault schedule (default: random)")
    parser.add_argument("--workdir", default=None, help="keep the runs here (default: a removed temporary dir)")
    parser.add_argument("--verbose", action="store_true", help="one line per trial on stderr")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs: must be >= 1")
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    rng = random.Random(seed)
    tmp = None
    if args.workdir:
        root = Path(args.workdir)
        root.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="simstudy-faults-")
        root = Path(tmp.name)
    try:
        freeze_code(root / "code")
        h = Harness(root, rng, args.verbose)
        print(f"fault injection: {args.runs} trial(s) per case, schedule seed {seed}, in {root} "
              "(on a copy of the package taken at the start)")
        h.reference("b", h.v1, SEED_B)
        h.reference("v2", write_study(root / "study_v2.py", "v2"), SEED_A)
        h.reference("a", h.v1, SEED_A)
        print(f"uninterrupted run: {h.seconds:.1f} s")
        trial = {"sigkill": lambda: h.kill(signal.SIGKILL), "sigterm": lambda: h.kill(signal.SIGTERM),
                 "concurrent": h.concurrent, "code-change": h.code_change, "damage": h.damage,
                 "disk-full": h.disk_full}
        print(f"{'case':<12} {'trials':>6} {'identical':>9} {'refused':>8} {'WRONG':>6}")
        wrong = 0
        for case in args.cases:
            counts = {"identical": 0, "refused": 0, "WRONG": 0}
            skipped = False
            for _ in range(args.runs):
                try:
                    verdict = trial[case]()
                except Exception as exc:  # the harness itself, e.g. a row check that cannot read the store
                    h.log(f"{case}: {type(exc).__name__}: {exc}")
                    verdict = "WRONG"
                if verdict == "WRONG":
                    h.log(f"{case}: WRONG (kept in {root})" if args.workdir else f"{case}: WRONG")
                if verdict is None:
                    skipped = True
                    break
                counts[verdict] += 1
            if skipped:
                print(f"{case:<12} skipped (needs root and mount -t tmpfs)")
                continue
            wrong += counts["WRONG"]
            print(f"{case:<12} {args.runs:>6} {counts['identical']:>9} {counts['refused']:>8} {counts['WRONG']:>6}",
                  flush=True)
        return 1 if wrong else 0
    finally:
        if tmp is not None:
            for m in root.glob("tmpfs-*"):
                subprocess.run(["umount", "-l", str(m)], capture_output=True)
            tmp.cleanup()


if __name__ == "__main__":
    sys.exit(main())
