"""Stored results are what they claim to be, or the engine says so on one line.

One writer per run directory (a lock), chunks that record their identity and
provenance, readers that read only what a chunk lists and verify it, a status
that tells running from dead and complete from damaged, workers that die with
their parent, and bad input refused before anything is written.
"""

from __future__ import annotations

import dataclasses
import errno
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from simstudy.cli import main
from simstudy.engine import fingerprint as fingerprint_mod
from simstudy.engine import get_study, load_run, run_study
from simstudy.engine import runner as runner_mod
from simstudy.engine.store import ConfigMismatch, RunLock, RunLocked, RunStore, StoreError, lock_holder

DEMO = get_study("demo")


def rows(run, table="outcomes"):
    return run.table(table).reset_index(drop=True)


def snapshot(path: Path) -> dict:
    """Every file under ``path`` with its bytes (to show that nothing changed)."""
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def one_line_error(capsys, *needles):
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    for n in needles:
        assert n in err, err
    return err


def cli(*args, **kw):
    return subprocess.Popen(
        [sys.executable, "-m", "simstudy.cli", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw
    )


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted single-worker smoke run of the demo study."""
    return run_study(DEMO, "smoke", out=tmp_path_factory.mktemp("ref") / "run", jobs=1, progress=False)


@pytest.fixture
def complete_run(reference, tmp_path):
    """A copy of the reference run in a directory of this test's own."""
    out = tmp_path / "run"
    shutil.copytree(reference.path, out)
    return out


def wait_for(predicate, timeout=90.0, step=0.02):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False


# -- 1. one writer per run directory; chunks know whose they are -------------------------------
def test_second_run_into_a_running_directory_is_refused(tmp_path, capsys):
    out = tmp_path / "shared"
    first = cli("run", "demo", "--profile", "smoke", "--quiet", "--seed", "1", "--out", str(out))
    try:
        assert wait_for(lambda: lock_holder(out)[0] or first.poll() is not None)
        alive, holder = lock_holder(out)
        assert alive, "the first run ended before it could be raced"
        assert main(["run", "demo", "--profile", "smoke", "--quiet", "--seed", "2", "--out", str(out)]) == 2
        err = one_line_error(capsys, "in use by another run", f"pid {first.pid}", "since")
        assert main(["status", "demo", "--profile", "smoke", "--out", str(out)]) == 0
        assert f"running (pid {first.pid}" in capsys.readouterr().out
    finally:
        _, stderr = first.communicate(timeout=120)
    assert first.returncode == 0, stderr
    run = load_run(DEMO, "smoke", out=out)
    assert run.complete and run.manifest["root_seed"] == 1 and len(run.manifest["runs"]) == 1
    for meta in out.glob("chunks/*/*/chunk.json"):
        assert json.loads(meta.read_text())["identity"]["root_seed"] == 1
    assert lock_holder(out) == (False, None)  # released, and its record cleared
    assert "pid" in err


def test_lock_is_released_by_a_dead_holder(complete_run):
    # A holder record with no process holding the lock: what SIGKILL leaves behind.
    (complete_run / ".lock").write_text(json.dumps({"pid": 999999999, "host": "elsewhere", "since": "then"}))
    alive, holder = lock_holder(complete_run)
    assert not alive and holder["pid"] == 999999999
    again = run_study(DEMO, "smoke", out=complete_run, progress=False)
    assert again.manifest["runs"][-1]["chunks_computed"] == 0


def test_lock_in_this_process_refuses_a_second_writer(complete_run):
    with RunLock(complete_run).acquire(wait=0):
        with pytest.raises(RunLocked, match=f"pid {os.getpid()}"):
            run_study(DEMO, "smoke", out=complete_run, progress=False)
        assert lock_holder(complete_run)[0]
    assert not lock_holder(complete_run)[0]


def test_foreign_chunk_is_recomputed_not_kept(reference, complete_run, tmp_path):
    other = run_study(DEMO, "smoke", out=tmp_path / "seed2", seed=2, progress=False)
    victim = sorted(complete_run.glob("chunks/*/*"))[1]
    shutil.rmtree(victim)
    shutil.copytree(other.path / victim.relative_to(complete_run), victim)  # valid checksums, wrong seed
    run = load_run(DEMO, "smoke", out=complete_run)
    assert not run.complete and list(run.chunk_states().values()).count("foreign") == 1
    again = run_study(DEMO, "smoke", out=complete_run, progress=False)
    info = again.manifest["runs"][-1]
    assert info["chunks_computed"] == 1 and info["chunks_discarded"] == {"foreign": 1}
    pd.testing.assert_frame_equal(rows(load_run(DEMO, "smoke", out=complete_run)), rows(reference))
    meta = json.loads((victim / "chunk.json").read_text())
    assert meta["identity"] == {
        "study": "demo",
        "condition": victim.parent.name,
        "start": meta["start"],
        "stop": meta["stop"],
        "root_seed": reference.manifest["root_seed"],
        "config_hash": reference.manifest["config_hash"],
    }


# -- 2. provenance -----------------------------------------------------------------------------
STUDY_FILE = """
import dataclasses
from simstudy.studies.demo import STUDY as _DEMO

def replicate(condition, rng):
    return _DEMO.replicate(condition, rng)

STUDY = dataclasses.replace(_DEMO, replicate=replicate)
"""


def load_study_file(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.STUDY


def test_changed_code_refuses_resume_until_fresh(reference, tmp_path, capsys):
    src = tmp_path / "my_study.py"
    src.write_text(STUDY_FILE)
    study = load_study_file(src, "my_study_v1")
    assert fingerprint_mod.study_file(study) == src.resolve()
    out = tmp_path / "run"
    run_study(study, "smoke", out=out, progress=False)
    shutil.rmtree(sorted(out.glob("chunks/*/*"))[0])  # an incomplete run
    src.write_text(STUDY_FILE + "\n# an edit\n")
    edited = load_study_file(src, "my_study_v2")
    before = snapshot(out)
    with pytest.raises(ConfigMismatch, match=r"changed: code\b"):
        run_study(edited, "smoke", out=out, progress=False)
    assert snapshot(out) == before
    fresh = run_study(edited, "smoke", out=out, fresh=True, progress=False)
    assert "moved the earlier run" in capsys.readouterr().err
    aside = list(tmp_path.glob("run.replaced-*"))
    assert (
        len(aside) == 1
        and json.loads((aside[0] / "manifest.json").read_text())["provenance"]["code"]
        != fresh.manifest["provenance"]["code"]
    )
    assert fresh.complete and len(fresh.manifest["runs"]) == 1
    pd.testing.assert_frame_equal(rows(fresh), rows(reference))


def test_changed_versions_named_and_history_kept(complete_run, monkeypatch):
    real = fingerprint_mod.metadata.version
    monkeypatch.setattr(fingerprint_mod.metadata, "version", lambda pkg: "0.0.1" if pkg == "numpy" else real(pkg))
    # a complete run computes nothing: rerunning it with other versions is harmless and recorded
    again = run_study(DEMO, "smoke", out=complete_run, progress=False)
    runs = again.manifest["runs"]
    assert len(runs) == 2 and runs[-1]["versions"]["numpy"] == "0.0.1" and runs[0]["versions"]["numpy"] != "0.0.1"
    assert again.manifest["provenance"]["versions"]["numpy"] != "0.0.1"  # what produced the rows
    shutil.rmtree(sorted(complete_run.glob("chunks/*/*"))[0])
    with pytest.raises(ConfigMismatch, match=r"numpy \S+ -> 0\.0\.1"):
        run_study(DEMO, "smoke", out=complete_run, progress=False)


def test_chunks_record_provenance(reference):
    meta = json.loads(next(reference.path.glob("chunks/*/*/chunk.json")).read_text())
    prov = meta["provenance"]
    assert len(prov["code"]) == 64 and {"python", "numpy", "scipy", "scikit-learn", "pandas"} <= set(prov["versions"])
    assert prov == reference.manifest["provenance"]
    assert reference.manifest["runs"][0]["code"] == prov["code"]


# -- 3. readers read only what chunk.json lists --------------------------------------------------
def test_unlisted_parquet_is_never_read(reference, complete_run, capsys):
    chunk = sorted(complete_run.glob("chunks/*/*"))[0]
    phantom = pd.DataFrame(
        {
            "study": ["demo"],
            "condition": ["mu0"],
            "replication": [0],
            "seed": [1],
            "error": ["phantom"],
            "traceback": ["x"],
        }
    )
    phantom.to_parquet(chunk / "failures.parquet", index=False)
    pd.DataFrame({"x": [1]}).to_parquet(chunk / "extra.parquet", index=False)
    run = load_run(DEMO, "smoke", out=complete_run)
    assert run.complete and len(run.failures) == 0 and "extra" not in run.tables()
    pd.testing.assert_frame_equal(rows(run), rows(reference))
    assert main(["status", "demo", "--profile", "smoke", "--out", str(complete_run)]) == 0
    assert "0 failed" in capsys.readouterr().out
    assert main(["run", "demo", "--profile", "smoke", "--quiet", "--out", str(complete_run)]) == 0
    assert "0 failed" in capsys.readouterr().out


def test_listed_table_changed_after_verification_is_refused(complete_run):
    run = load_run(DEMO, "smoke", out=complete_run)
    assert run.complete
    victim = sorted(complete_run.glob("chunks/*/*/outcomes.parquet"))[0]
    victim.write_bytes(victim.read_bytes()[:-8] + b"\0" * 8)
    with pytest.raises(StoreError, match="checksum"):
        run.table("outcomes")


# -- 4. status ---------------------------------------------------------------------------------
def test_status_tells_complete_damaged_and_dead(complete_run, capsys):
    args = ["status", "demo", "--profile", "smoke", "--out", str(complete_run)]
    assert main(args) == 0
    assert "complete: every chunk verified; not running" in capsys.readouterr().out
    victim = sorted(complete_run.glob("chunks/*/*/scores.parquet"))[2]
    victim.write_bytes(b"x" + victim.read_bytes()[1:])
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "damaged: 1 chunk(s) fail their checksums" in out
    manifest = json.loads((complete_run / "manifest.json").read_text())
    manifest["status"] = "running"
    (complete_run / "manifest.json").write_text(json.dumps(manifest))
    (complete_run / ".lock").write_text(json.dumps({"pid": 424242, "host": "h", "since": "t"}))
    assert main(args) == 0
    assert "not running: the last run (pid 424242 on h, started t) died before finishing" in capsys.readouterr().out


@pytest.mark.parametrize("edit", ["plan", "config", "seed", "profile"])
def test_edited_manifest_is_refused_by_status_summarize_compare(complete_run, capsys, edit):
    path = complete_run / "manifest.json"
    manifest = json.loads(path.read_text())
    if edit == "plan":
        manifest["plan"] = manifest["plan"][:-1]
    elif edit == "config":
        manifest["config"]["n_replications"] = 999
    elif edit == "seed":
        manifest["root_seed"] = 3  # the config (and its hash) still say the original seed
        manifest["config"]["root_seed"] = 3
    else:
        manifest["profile"] = "quick"
    path.write_text(json.dumps(manifest))
    for command in ("status", "summarize", "compare"):
        assert main([command, "demo", "--profile", "smoke", "--out", str(complete_run)]) == 2
        one_line_error(capsys, str(complete_run))


# -- 5. workers die with their parent -------------------------------------------------------------
def _children(pid: int) -> set[int]:
    out = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out.update(int(c) for c in (task / "children").read_text().split())
        except OSError:
            pass
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_sigkill_of_a_two_job_run_leaves_no_worker(tmp_path):
    out = tmp_path / "killed"
    proc = cli("run", "demo", "--profile", "quick", "--jobs", "2", "--quiet", "--out", str(out))
    try:
        assert wait_for(lambda: len(_children(proc.pid)) >= 2 and any(out.glob("chunks/*/*/chunk.json")), timeout=120)
        workers = _children(proc.pid)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
    assert wait_for(lambda: not any(_alive(p) for p in workers), timeout=60, step=0.1), [
        p for p in workers if _alive(p)
    ]


# -- 6. bad input: one line, exit 2, nothing written or changed ------------------------------------
def test_out_is_a_file(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("keep me")
    for out in (f, f / "below"):
        assert main(["run", "demo", "--profile", "smoke", "--quiet", "--out", str(out)]) == 2
        one_line_error(capsys, "is a file")
    assert f.read_text() == "keep me"


@pytest.mark.parametrize("jobs", [str(4 * (os.cpu_count() or 1) + 1), "64", "100000000000"])
def test_too_many_jobs_is_refused(tmp_path, capsys, jobs):
    if int(jobs) <= 4 * (os.cpu_count() or 1):
        pytest.skip("this machine allows that many")
    out = tmp_path / "never"
    assert main(["run", "demo", "--profile", "smoke", "--jobs", jobs, "--out", str(out)]) == 2
    one_line_error(capsys, "--jobs", "per CPU")
    assert not out.exists()


def test_unreachable_scheduler_fails_fast_and_writes_nothing(tmp_path, capsys):
    pytest.importorskip("distributed")
    out = tmp_path / "never"
    t0 = time.time()
    assert (
        main(
            [
                "run",
                "demo",
                "--profile",
                "smoke",
                "--backend",
                "dask",
                "--scheduler",
                "tcp://127.0.0.1:9",
                "--out",
                str(out),
            ]
        )
        == 2
    )
    assert time.time() - t0 < runner_mod.CONNECT_TIMEOUT + 10
    one_line_error(capsys, "--scheduler", "127.0.0.1:9")
    assert not out.exists()


@pytest.mark.parametrize("text", ["[]", "{}", '{"study": "demo"}', "null", "3"])
def test_manifest_of_the_wrong_shape(complete_run, capsys, text):
    (complete_run / "manifest.json").write_text(text)
    before = snapshot(complete_run)
    for command in ("run", "status", "summarize"):
        assert main([command, "demo", "--profile", "smoke", "--out", str(complete_run)]) == 2
        one_line_error(capsys, "not a valid simstudy manifest")
    assert snapshot(complete_run) == before


def test_manifest_with_a_wrong_plan_entry(complete_run, capsys):
    manifest = json.loads((complete_run / "manifest.json").read_text())
    manifest["plan"][0]["start"] = "zero"
    (complete_run / "manifest.json").write_text(json.dumps(manifest))
    assert main(["status", "demo", "--profile", "smoke", "--out", str(complete_run)]) == 2
    one_line_error(capsys, "plan entry")


def _mount_tmpfs(path: Path, size: str) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    return (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True
        ).returncode
        == 0
    )


def _umount(path: Path):
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def test_read_only_results_directory(complete_run, tmp_path, capsys):
    mnt = tmp_path / "ro"
    if _mount_tmpfs(mnt, "4m"):
        shutil.copytree(complete_run, mnt / "run")
        ok = subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True).returncode == 0
        undo = lambda: _umount(mnt)  # noqa: E731
    else:
        shutil.copytree(complete_run, mnt / "run")
        for p in [mnt, *mnt.rglob("*")]:
            p.chmod(0o555 if p.is_dir() else 0o444)
        ok = os.geteuid() != 0
        undo = lambda: [p.chmod(0o755) for p in [mnt, *mnt.rglob("*")] if p.is_dir()]  # noqa: E731
    try:
        if not ok:
            pytest.skip("cannot make a read-only directory here")
        before = snapshot(mnt)
        assert main(["run", "demo", "--profile", "smoke", "--quiet", "--out", str(mnt / "run")]) == 2
        one_line_error(capsys, "cannot write")
        assert main(["run", "demo", "--profile", "smoke", "--quiet", "--out", str(mnt / "new")]) == 2
        one_line_error(capsys, "cannot write")
        assert main(["summarize", "demo", "--profile", "smoke", "--out", str(mnt / "run"), "--csv"]) == 2
        one_line_error(capsys, "--csv", "cannot write")
        assert main(["status", "demo", "--profile", "smoke", "--out", str(mnt / "run")]) == 0
        capsys.readouterr()
        assert snapshot(mnt) == before
    finally:
        undo()


def test_disk_full_while_writing_a_chunk_or_the_manifest(reference, tmp_path, monkeypatch, capsys):
    out = tmp_path / "full"
    real_chunk, real_manifest = RunStore.write_chunk, RunStore.write_manifest
    calls = {"chunk": 0}

    def chunk_fails_third_time(self, *a, **kw):
        calls["chunk"] += 1
        if calls["chunk"] == 3:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.path / "chunks"))
        return real_chunk(self, *a, **kw)

    monkeypatch.setattr(RunStore, "write_chunk", chunk_fails_third_time)
    assert main(["run", "demo", "--profile", "smoke", "--quiet", "--out", str(out)]) == 2
    one_line_error(capsys, "No space left on device", "resume")
    monkeypatch.setattr(RunStore, "write_chunk", real_chunk)

    def manifest_fails(self, manifest, **kw):
        if manifest.get("status") != "running":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_manifest(self, manifest, **kw)

    monkeypatch.setattr(RunStore, "write_manifest", manifest_fails)
    assert main(["run", "demo", "--profile", "smoke", "--quiet", "--out", str(out)]) == 2
    one_line_error(capsys, "No space left on device")
    monkeypatch.setattr(RunStore, "write_manifest", real_manifest)
    assert not list(out.glob("chunks/*/.tmp-*")) and not list(out.glob(".*.tmp"))
    resumed = run_study(DEMO, "smoke", out=out, progress=False)
    assert resumed.complete
    pd.testing.assert_frame_equal(rows(resumed), rows(reference))
    pd.testing.assert_frame_equal(rows(resumed, "scores"), rows(reference, "scores"))


def test_real_full_disk_then_resume(reference, tmp_path, capsys):
    mnt = tmp_path / "small"
    if not _mount_tmpfs(mnt, "160k"):
        pytest.skip("cannot mount a small tmpfs here")
    try:
        out = mnt / "run"
        code = main(["run", "demo", "--profile", "smoke", "--quiet", "--out", str(out)])
        if code == 0:
            pytest.skip("the run fitted in the small tmpfs")
        assert code == 2
        one_line_error(capsys, "No space left on device")
        assert not list(out.glob("chunks/*/.tmp-*"))
        subprocess.run(["mount", "-o", "remount,size=4m", str(mnt)], check=True)
        assert main(["run", "demo", "--profile", "smoke", "--quiet", "--out", str(out)]) == 0
        pd.testing.assert_frame_equal(rows(load_run(DEMO, "smoke", out=out)), rows(reference))
    finally:
        _umount(mnt)


def test_fresh_on_an_empty_directory_and_on_a_complete_one(complete_run, tmp_path):
    new = run_study(DEMO, "smoke", out=tmp_path / "empty", fresh=True, progress=False)
    assert new.complete and not list(tmp_path.glob("empty.replaced-*"))
    again = run_study(DEMO, "smoke", out=complete_run, fresh=True, progress=False)
    assert again.manifest["runs"][-1]["chunks_computed"] == len(again.manifest["plan"])
    (aside,) = tmp_path.glob("run.replaced-*")
    assert load_run(DEMO, "smoke", out=aside).complete  # the old rows, intact


def test_dataclass_replace_study_keeps_identity(tmp_path):
    # a study derived in code: its file is where its replicate function lives
    study = dataclasses.replace(DEMO)
    assert fingerprint_mod.study_file(study).name == "demo.py"


def test_run_stored_before_chunks_recorded_identity(reference, complete_run):
    manifest = json.loads((complete_run / "manifest.json").read_text())
    del manifest["provenance"]
    (complete_run / "manifest.json").write_text(json.dumps(manifest))
    for meta_path in complete_run.glob("chunks/*/*/chunk.json"):
        meta = json.loads(meta_path.read_text())
        del meta["identity"], meta["provenance"]
        meta_path.write_text(json.dumps(meta))
    old = load_run(DEMO, "smoke", out=complete_run)  # still readable: checksums hold
    assert old.complete
    pd.testing.assert_frame_equal(rows(old), rows(reference))
    with pytest.raises(ConfigMismatch, match="not recorded"):  # but not resumed into
        run_study(DEMO, "smoke", out=complete_run, progress=False)
