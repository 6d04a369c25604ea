"""A run folder is data, never instructions; names never lead outside the results folder; answers come early.

A folder someone sent you may hold symbolic links (to your files), a study file
may carry a name like ``../../X``: nothing is read or written through them, and
each is refused on one line naming it.  A finished ``solve`` is re-read without
the write lock, a target a quantity can never take is refused before anything
runs, a full disk while a report is written names where, and a report made
while an adaptive run is still adding replications says so.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from simstudy.cli import main
from simstudy.engine import Knob, Profile, Publication, Study, get_study, load_run, run_study
from simstudy.engine.solve import quantity_range, solve
from simstudy.engine.store import RunStore, StoreError, lock_holder

DEMO = get_study("demo")


def one_line_error(capsys, *needles) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    for n in needles:
        assert n in err, err
    return err


def state(path: Path) -> dict:
    """Every file below ``path`` with its bytes and modification time (to show that nothing was touched)."""
    return {
        p.relative_to(path).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


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


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A complete smoke run of the demo study."""
    return run_study(DEMO, "smoke", out=tmp_path_factory.mktemp("ref") / "run", progress=False)


@pytest.fixture
def received(reference, tmp_path):
    """A copy of the reference run (the folder someone sent), and a folder of one's own files outside it."""
    run = tmp_path / "received"
    shutil.copytree(reference.path, run)
    outside = tmp_path / "mine"
    outside.mkdir()
    (outside / "notes.txt").write_text("keep me\n")
    return run, outside


# -- 1. symbolic links in a received run folder ------------------------------------------------------
def _first_chunk(run: Path) -> Path:
    return sorted((run / "chunks" / "mu0").iterdir())[0]


def _plant_lock(run, outside):
    (run / ".lock").unlink()
    (run / ".lock").symlink_to(outside / "notes.txt")
    return run / ".lock"


def _plant_manifest(run, outside):
    shutil.move(run / "manifest.json", outside / "manifest.json")
    (run / "manifest.json").symlink_to(outside / "manifest.json")
    return run / "manifest.json"


def _plant_chunks(run, outside):
    # an interrupted run's leftover in what `chunks` points to: cleaning it must not remove one's own folder
    shutil.move(run / "chunks", outside / "chunks")
    (outside / "chunks" / "mu0" / ".tmp-precious").mkdir()
    (outside / "chunks" / "mu0" / ".tmp-precious" / "thesis.tex").write_text("years of work\n")
    (run / "chunks").symlink_to(outside / "chunks")
    return run / "chunks"


def _plant_condition(run, outside):
    shutil.move(run / "chunks" / "mu0", outside / "mu0")
    (outside / "mu0" / ".tmp-precious").mkdir()
    (outside / "mu0" / ".tmp-precious" / "thesis.tex").write_text("years of work\n")
    (run / "chunks" / "mu0").symlink_to(outside / "mu0")
    return run / "chunks" / "mu0"


def _plant_chunk(run, outside):
    d = _first_chunk(run)
    shutil.move(d, outside / d.name)
    (outside / d.name / "outcomes.parquet").write_bytes(b"damaged: a resume would discard this folder")
    d.symlink_to(outside / d.name)
    return d


def _plant_chunk_file(run, outside):
    f = _first_chunk(run) / "outcomes.parquet"
    shutil.move(f, outside / "outcomes.parquet")
    f.symlink_to(outside / "outcomes.parquet")
    return f


def _plant_temporary(run, outside):
    (outside / "precious").mkdir()
    (outside / "precious" / "thesis.tex").write_text("years of work\n")
    link = run / "chunks" / "mu0" / ".tmp-0000000-0000005-0123456789abcdef"
    link.symlink_to(outside / "precious")
    return link


def _plant_hard_linked_lock(run, outside):
    (run / ".lock").unlink()
    os.link(outside / "notes.txt", run / ".lock")
    return run / ".lock"


PLANTS = {
    "lock": (_plant_lock, "symbolic link"),
    "manifest": (_plant_manifest, "symbolic link"),
    "chunks": (_plant_chunks, "symbolic link"),
    "condition": (_plant_condition, "symbolic link"),
    "chunk": (_plant_chunk, "symbolic link"),
    "chunk file": (_plant_chunk_file, "symbolic link"),
    "temporary": (_plant_temporary, "symbolic link"),
    "hard-linked lock": (_plant_hard_linked_lock, "hard link"),
}


@pytest.mark.parametrize("where", list(PLANTS))
def test_a_link_in_a_received_run_folder_is_refused_and_nothing_outside_changes(received, capsys, where):
    run, outside = received
    plant, what = PLANTS[where]
    link = plant(run, outside)
    before = state(outside)
    with pytest.raises(StoreError) as exc:
        run_study(DEMO, "smoke", out=run, progress=False)
    message = str(exc.value)
    assert len(message.splitlines()) == 1 and str(link) in message and what in message, message
    assert main(["run", "demo", "--profile", "smoke", "--quiet", "--out", str(run)]) == 2
    one_line_error(capsys, str(link), what)
    if where != "temporary":  # readers refuse what they would read through (status never reads leftovers)
        assert main(["status", "demo", "--profile", "smoke", "--out", str(run)]) == 2
        one_line_error(capsys, str(link))
    assert state(outside) == before, "a file outside the run folder was changed"
    assert os.path.islink(link) or where == "hard-linked lock"
    assert (outside / "notes.txt").read_text() == "keep me\n"


def test_resuming_a_folder_whose_lock_points_outside_in_a_real_process(received):
    run, outside = received
    _plant_lock(run, outside)
    before = state(outside)
    proc = subprocess.run(
        [sys.executable, "-m", "simstudy.cli", "run", "demo", "--profile", "smoke", "--quiet", "--out", str(run)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and f"{run / '.lock'} is a symbolic link" in proc.stderr
    assert state(outside) == before
    assert (outside / "notes.txt").read_text() == "keep me\n"


def test_a_pipe_in_place_of_the_lock_is_refused_without_hanging(received):
    run, _ = received
    (run / ".lock").unlink()
    os.mkfifo(run / ".lock")
    for command in ("status", "run"):
        proc = subprocess.run(
            [sys.executable, "-m", "simstudy.cli", command, "demo", "--profile", "smoke", "--out", str(run)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 2 and "is not a regular file" in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_a_valid_checksum_does_not_make_a_linked_chunk_file_readable(received):
    # the link points to the very bytes chunk.json lists: still refused, the folder must hold its own files
    run, outside = received
    link = _plant_chunk_file(run, outside)
    with pytest.raises(StoreError, match="symbolic link"):
        load_run(DEMO, "smoke", out=run).table("outcomes")
    with pytest.raises(StoreError, match=str(link)):
        RunStore(run).read_chunk_table("mu0", 0, 5, "outcomes")


def test_fresh_moves_a_linked_run_folder_aside_as_a_link(reference, tmp_path):
    # --out itself may be a link (the user's choice): --fresh renames the link, the run it points to stays
    real = tmp_path / "disk" / "run"
    shutil.copytree(reference.path, real)
    before = {k: v[0] for k, v in state(real).items()}
    link = tmp_path / "run"
    link.symlink_to(real)
    new = run_study(DEMO, "smoke", out=link, fresh=True, progress=False)
    (aside,) = tmp_path.glob("run.replaced-*")
    assert aside.is_symlink() and aside.resolve() == real.resolve()
    assert {k: v[0] for k, v in state(real).items()} == before
    assert new.complete and not link.is_symlink() and link.is_dir()


def test_store_never_names_a_folder_outside_the_run(tmp_path):
    store = RunStore(tmp_path / "run")
    for bad in ("..", ".", "", "a/b"):
        with pytest.raises(StoreError, match="cannot name a folder"):
            store.chunk_dir(bad, 0, 5)


def test_a_manifest_whose_plan_names_a_folder_outside_is_refused(received, capsys):
    run, _ = received
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["plan"][0]["condition"] = "../../escape"
    (run / "manifest.json").write_text(json.dumps(manifest))
    assert main(["status", "demo", "--profile", "smoke", "--out", str(run)]) == 2
    one_line_error(capsys, "plan entry", "../../escape")


# -- 2. names that form paths ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Level:
    x: int = 50
    n_rows: int = 20


def _replicate(cond, rng):
    u = rng.random(cond.n_rows)  # each row rejects with probability x / 100
    return {
        "outcomes": [{"test": "t", "decision": int(v < cond.x / 100), "pvalue": float(v), "statistic": 0.0} for v in u]
    }


def _study(name="linear", **kw):
    base = dict(
        name=name,
        title="A rejection rate of x / 100",
        conditions=[Level()],
        replicate=_replicate,
        profiles={"smoke": Profile("smoke", n_replications=20)},
        chunk_size=10,
        knobs=(Knob("x", "int", 0, 100, "the rate in percent", aliases={"F": "rejection rate: t"}),),
    )
    return Study(**{**base, **kw})


LINEAR = _study()

BAD_NAMES = ["../../X", "../X", "..", ".", ".hidden", "", "a/b", "/abs", "a\\b", "a b", "x\0y", 7, None]


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_a_study_name_that_is_not_a_safe_identifier_is_refused(bad):
    with pytest.raises(ValueError) as exc:
        _study(name=bad)
    assert str(exc.value).startswith("name: ") and len(str(exc.value).splitlines()) == 1


@pytest.mark.parametrize("good", ["demo", "my_study-2", "v1.5", "a.b.c"])
def test_safe_study_names_are_accepted(good):
    assert _study(name=good).name == good


def test_a_study_file_named_to_escape_writes_nothing_when_run_without_out(tmp_path, monkeypatch, capsys):
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    study_file = tmp_path / "escape.py"
    study_file.write_text(
        textwrap.dedent("""
        from simstudy.engine import Profile, Study

        STUDY = Study(name="../../X", title="escapes", conditions=[1],
                      replicate=lambda c, rng: {"outcomes": [{"test": "t", "decision": 0}]},
                      profiles={"smoke": Profile("smoke", 2)})
    """)
    )
    monkeypatch.chdir(work)
    assert main(["run", str(study_file), "--profile", "smoke", "--quiet"]) == 2
    one_line_error(capsys, "name: '../../X'", "without path separators")
    assert not (tmp_path / "X").exists() and not (work / "results").exists()
    assert sorted(p.name for p in tmp_path.rglob("*") if "__pycache__" not in p.parts) == ["a", "b", "escape.py"]


@pytest.mark.parametrize(
    "make, option",
    [
        (lambda: Profile("../smoke", 2), "profile name"),
        (lambda: Profile("a/b", 2), "profile name"),
        (lambda: _study(profiles={"../up": Profile("smoke", 2)}), "profiles"),
        (lambda: _study(publication=Publication(figures=(SimpleNamespace(name="../../fig"),))), "figures"),
        (lambda: Knob("../x", "int", 0, 10), "knob"),
    ],
)
def test_other_names_that_form_paths_are_refused(make, option):
    with pytest.raises(ValueError) as exc:
        make()
    assert str(exc.value).startswith(f"{option}: ") and "without path separators" in str(exc.value)


def test_a_condition_key_that_names_no_folder_of_its_own_is_refused_before_anything_is_written(tmp_path):
    @dataclass(frozen=True)
    class Dots:
        key: str = ".."

    study = _study(name="dots", conditions=[Dots()])
    for key in ("..", ".", ".hidden", ""):
        with pytest.raises(ValueError, match="condition key"):
            run_study(_study(name="dots", conditions=[Dots(key)]), "smoke", out=tmp_path / "o", progress=False)
    with pytest.raises(ValueError, match="condition key '..'"):
        run_study(study, "smoke", out=tmp_path / "o", progress=False)
    assert not (tmp_path / "o").exists()


# -- 3. solve: targets out of range, re-reading without the write lock --------------------------------------------
def test_quantity_ranges():
    assert quantity_range("rejection rate: wilcoxon") == (0.0, 1.0)
    assert quantity_range("mean p-value: t") == (0.0, 1.0)
    assert quantity_range("R2: t") == (0.0, 1.0)
    assert quantity_range("mean statistic: t") is None and quantity_range("F") is None


@pytest.mark.parametrize(
    "target, shown",
    [
        (("F", 1.5), "F (rejection rate: t) takes values in [0, 1]"),
        (("F", -0.01), "so -0.01 can never be reached"),
        (("mean p-value: t", 2.0), "mean p-value: t takes values in [0, 1]"),
    ],
)
def test_a_target_the_quantity_can_never_take_is_refused_before_anything_runs(tmp_path, target, shown):
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="^target: ") as exc:
        solve(LINEAR, "x", target, out=tmp_path / "s", profile="smoke", progress=False)
    assert shown in str(exc.value) and time.perf_counter() - t0 < 2.0
    assert not (tmp_path / "s").exists()


def test_solve_refuses_an_impossible_target_on_the_command_line(tmp_path, capsys, write_study_file):
    study_file = tmp_path / "linear.py"
    write_study_file(study_file, __file__)
    code = main(
        [
            "solve",
            str(study_file),
            "--knob",
            "x",
            "--target",
            "F=1.5",
            "--profile",
            "smoke",
            "--out",
            str(tmp_path / "s"),
            "--quiet",
        ]
    )
    assert code == 2
    one_line_error(capsys, "--target: F (rejection rate: t) takes values in [0, 1], so 1.5 can never be reached")
    assert not (tmp_path / "s").exists()


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    out = tmp_path_factory.mktemp("solve") / "s"
    return solve(LINEAR, "x", ("F", 0.3), tolerance=12, out=out, profile="smoke", progress=False)


def _same_answer(a, b):
    assert (a.reached, a.value, a.root, a.low, a.high) == (b.reached, b.value, b.root, b.low, b.high)
    assert a.evaluations.equals(b.evaluations)


def test_a_finished_solve_is_re_read_while_another_process_holds_every_write_lock(solved, tmp_path):
    out = tmp_path / "s"
    shutil.copytree(solved.out, out)
    evals = sorted(p.parent for p in out.glob("evals/*/*/manifest.json"))
    assert evals
    before = state(out)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent("""
        import sys, time
        from simstudy.engine.store import RunLock
        locks = [RunLock(d).acquire(wait=0) for d in sys.argv[1:]]
        print("held", flush=True)
        time.sleep(120)
    """),
            *map(str, evals),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert all(lock_holder(d)[0] for d in evals)
        again = solve(LINEAR, "x", ("F", 0.3), tolerance=12, out=out, profile="smoke", progress=False)
    finally:
        holder.kill()
        holder.wait()
    _same_answer(again, solved)
    assert again.seconds == 0.0
    after = state(out)
    # the holder wrote its record into the locks; nothing else changed, solve.json included
    assert {k: v for k, v in after.items() if not k.endswith(".lock")} == {
        k: v for k, v in before.items() if not k.endswith(".lock")
    }


def test_a_link_in_a_received_solve_folder_is_refused(solved, tmp_path):
    out = tmp_path / "s"
    shutil.copytree(solved.out, out)
    mine = tmp_path / "mine"
    value = sorted((out / "evals").iterdir())[0]
    shutil.move(value, mine)
    shutil.rmtree(mine / "b0" / "chunks")  # an evaluation to redo: its writes would land in the linked folder
    value.symlink_to(mine)
    before = state(mine)
    with pytest.raises(StoreError) as exc:
        solve(LINEAR, "x", ("F", 0.3), tolerance=12, out=out, profile="smoke", progress=False)
    assert str(exc.value).startswith(f"out: {value} is a symbolic link") and len(str(exc.value).splitlines()) == 1
    assert state(mine) == before


def test_a_finished_solve_is_re_read_from_a_read_only_folder(solved, tmp_path, capsys, write_study_file):
    mnt = tmp_path / "ro"
    if not _mount_tmpfs(mnt, "8m"):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        shutil.copytree(solved.out, mnt / "s")
        if subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True).returncode:
            pytest.skip("cannot remount read-only")
        before = state(mnt)
        again = solve(LINEAR, "x", ("F", 0.3), tolerance=12, out=mnt / "s", profile="smoke", progress=False)
        _same_answer(again, solved)
        study_file = tmp_path / "linear.py"
        write_study_file(study_file, __file__)
        assert (
            main(
                [
                    "solve",
                    str(study_file),
                    "--knob",
                    "x",
                    "--target",
                    "F=0.3",
                    "--tolerance",
                    "12",
                    "--profile",
                    "smoke",
                    "--out",
                    str(mnt / "s"),
                    "--quiet",
                ]
            )
            == 0
        )
        assert f"x = {solved.value:g}" in capsys.readouterr().out
        # a different question needs writing: one line, not a traceback
        assert (
            main(
                [
                    "solve",
                    str(study_file),
                    "--knob",
                    "x",
                    "--target",
                    "F=0.2",
                    "--profile",
                    "smoke",
                    "--out",
                    str(mnt / "s"),
                    "--quiet",
                ]
            )
            == 2
        )
        one_line_error(capsys, "Read-only file system")
        assert state(mnt) == before
    finally:
        _umount(mnt)


# -- 3. full disks name where; a report during an adaptive run says it is still going ------------------
def _results_with_demo(reference, tmp_path) -> Path:
    root = tmp_path / "results"
    shutil.copytree(reference.path, root / "demo" / "smoke")
    return root


def test_report_on_a_full_disk_names_the_path(reference, tmp_path, monkeypatch, capsys):
    import simstudy.outputs.report as report_mod

    root = _results_with_demo(reference, tmp_path)
    out = tmp_path / "page"

    def full(path, data, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")  # a write that fills the disk names no file

    monkeypatch.setattr(report_mod, "write_atomic", full)
    assert main(["report", "--profile", "smoke", "--results", str(root), "--study", "demo", "--out", str(out)]) == 2
    one_line_error(capsys, f"--out: cannot write the report in {out}", "No space left on device", "free some space")


def test_report_on_a_really_full_disk_names_the_path(reference, tmp_path, capsys):
    root = _results_with_demo(reference, tmp_path)
    mnt = tmp_path / "small"
    if not _mount_tmpfs(mnt, "8k"):
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        code = main(["report", "--profile", "smoke", "--results", str(root), "--study", "demo", "--out", str(mnt)])
        if code == 0:
            pytest.skip("the report fitted in the small tmpfs")
        assert code == 2
        one_line_error(capsys, "cannot write the report in", str(mnt), "No space left on device")
    finally:
        _umount(mnt)


@pytest.mark.parametrize("calibration", [False, True])
def test_proving_ground_on_a_full_disk_names_the_path(tmp_path, monkeypatch, capsys, calibration):
    import simstudy.apps.proving.report as proving_report
    import simstudy.engine as engine_mod

    def full(*a, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    out = tmp_path / "pg"
    stored = SimpleNamespace(
        manifest={"status": "complete", "runs": [{"replications_computed": 0, "seconds": 0.0}]},
        failures=pd.DataFrame(),
        path=out,
    )
    monkeypatch.setattr(engine_mod, "run_study", lambda *a, **kw: stored)  # the run is not what is tested here
    monkeypatch.setattr(proving_report, "build_proving_report", full)
    monkeypatch.setattr(proving_report, "write_berrar_page", full)
    args = ["proving-ground", "--profile", "smoke", "--quiet", "--out", str(out)]
    assert main(args + (["--berrar-calibration"] if calibration else [])) == 2
    one_line_error(capsys, f"--out: cannot write the report in {out}", "No space left on device")
    report_dir = tmp_path / "elsewhere"
    if not calibration:
        assert main(args + ["--report-dir", str(report_dir)]) == 2
        one_line_error(capsys, f"--report-dir: cannot write the report in {report_dir}", "No space left on device")


GATED_STUDY = '''
"""An adaptive study whose second stage waits for a gate file."""
import time
from dataclasses import dataclass
from pathlib import Path

from simstudy.engine import Cost, Profile, Study

GATE = Path(GATE_PATH)
CALLS = [0]


@dataclass(frozen=True)
class Cond:
    kind: str = "a"


def replicate(cond, rng):
    CALLS[0] += 1
    if CALLS[0] > 10:  # the first stage is 10 replications; the second waits
        deadline = time.time() + 120
        while not GATE.exists() and time.time() < deadline:
            time.sleep(0.05)
    return {"outcomes": [{"test": "t", "decision": int(rng.random() < 0.5)} for _ in range(3)]}


STUDY = Study(name="gated", title="Gated adaptive study", conditions=[Cond()], replicate=replicate,
              profiles={"smoke": Profile("smoke", n_replications=10)}, chunk_size=5,
              cost=Cost(seconds_per_replication=0.001))
'''


def _report_meta(root: Path, study_file: Path, out: Path) -> str:
    assert (
        main(["report", "--profile", "smoke", "--results", str(root), "--study", str(study_file), "--out", str(out)])
        == 0
    )
    md = (out / "report.md").read_text()
    (line,) = [x for x in md.splitlines() if x.startswith("*profile smoke;")]
    return line


def test_report_during_an_adaptive_run_says_it_is_still_going(tmp_path, capsys):
    gate = tmp_path / "gate"
    study_file = tmp_path / "gated.py"
    study_file.write_text(GATED_STUDY.replace("GATE_PATH", repr(str(gate))))
    root = tmp_path / "results"
    run_dir = root / "gated" / "smoke"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simstudy.cli",
            "run",
            str(study_file),
            "--profile",
            "smoke",
            "--quiet",
            "--target-mcse",
            "0.0001",
            "--max-replications",
            "20",
            "--out",
            str(run_dir),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.time() + 90
        while time.time() < deadline and proc.poll() is None:  # the second stage has started
            try:
                manifest = json.loads((run_dir / "manifest.json").read_text())
                if "adaptive" in manifest and max(c["stop"] for c in manifest["plan"]) == 20:
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        assert proc.poll() is None and lock_holder(run_dir)[0]
        line = _report_meta(root, study_file, tmp_path / "page")
        assert (
            "10 of 20 replications stored so far: the adaptive run is still adding replications (its "
            "current stage plans 20 per condition); the tables show only those stored now" in line
        ), line
    finally:
        gate.touch()
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    line = _report_meta(root, study_file, tmp_path / "page")
    assert "20 of 20 replications stored (adaptive run, finished: 20 per condition)" in line, line
    # stopped part-way (no process holds the lock): says so, and how to go on
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest["adaptive"]["finished"] = False
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    line = _report_meta(root, study_file, tmp_path / "page")
    assert "stored so far: the adaptive run stopped before it finished" in line, line
    assert "run the same command to resume" in line, line
    capsys.readouterr()
