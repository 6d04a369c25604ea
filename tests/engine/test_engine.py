"""The engine: seeds from identity, identical rows across workers/backends, resume, failures, refusal."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from simstudy.cli import main
from simstudy.engine import ConfigMismatch, Profile, get_study, load_run, replay, replication_seed, run_study
from simstudy.statistics.intervals import rejection_summary

DEMO = get_study("demo")


def rows(run, table="outcomes"):
    return run.table(table).reset_index(drop=True)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted single-worker smoke run of the demo study."""
    return run_study(DEMO, "smoke", out=tmp_path_factory.mktemp("ref") / "run", jobs=1, progress=False)


def test_seed_depends_on_identity_only():
    a = replication_seed(1, "s", "c", 3)
    assert a == replication_seed(1, "s", "c", 3)
    assert (
        len(
            {
                a,
                replication_seed(2, "s", "c", 3),
                replication_seed(1, "t", "c", 3),
                replication_seed(1, "s", "d", 3),
                replication_seed(1, "s", "c", 4),
            }
        )
        == 5
    )
    assert 0 <= a < 2**63


def test_rows_have_identity_and_long_format(reference):
    out = rows(reference)
    for col in ("study", "condition", "mu", "replication", "seed", "scheme", "test", "pvalue", "decision"):
        assert col in out
    # one row per condition x replication x (scheme, test)
    assert out.groupby(["condition", "replication"]).size().nunique() == 1
    assert out["replication"].max() == 19
    assert set(rows(reference, "scores").columns) >= {"run", "fold", "acc_a", "acc_b"}
    assert reference.manifest["status"] == "complete"
    assert len(reference.failures) == 0


def test_two_workers_give_identical_rows(reference, tmp_path):
    run2 = run_study(DEMO, "smoke", out=tmp_path / "j2", jobs=2, progress=False)
    pd.testing.assert_frame_equal(rows(run2), rows(reference))
    pd.testing.assert_frame_equal(rows(run2, "scores"), rows(reference, "scores"))


def test_dask_local_cluster_gives_identical_rows(reference, tmp_path):
    pytest.importorskip("distributed")
    run = run_study(DEMO, "smoke", out=tmp_path / "dask", jobs=2, backend="dask", progress=False)
    pd.testing.assert_frame_equal(rows(run), rows(reference))


def test_corrupt_chunk_is_detected_and_recomputed(reference, tmp_path):
    out = tmp_path / "c"
    run_study(DEMO, "smoke", out=out, progress=False)
    victim = sorted(out.glob("chunks/*/*/outcomes.parquet"))[3]
    victim.write_bytes(victim.read_bytes()[:-40] + b"\0" * 40)
    missing = sorted(out.glob("chunks/*/*/scores.parquet"))[5]
    missing.unlink()
    assert not load_run(DEMO, out=out).complete
    again = run_study(DEMO, "smoke", out=out, progress=False)
    assert again.manifest["runs"][-1]["chunks_computed"] == 2
    pd.testing.assert_frame_equal(rows(again), rows(reference))
    pd.testing.assert_frame_equal(rows(again, "scores"), rows(reference, "scores"))


def test_rerun_of_complete_run_computes_nothing(reference, tmp_path):
    out = tmp_path / "r"
    run_study(DEMO, "smoke", out=out, progress=False)
    again = run_study(DEMO, "smoke", out=out, progress=False)
    assert again.manifest["runs"][-1]["chunks_computed"] == 0
    assert len(again.manifest["runs"]) == 2


def test_different_configuration_is_refused(tmp_path):
    out = tmp_path / "x"
    run_study(DEMO, "smoke", out=out, progress=False)
    before = sorted(p.name for p in out.rglob("*"))
    with pytest.raises(ConfigMismatch, match="different configuration"):
        run_study(DEMO, "smoke", out=out, seed=99, progress=False)
    with pytest.raises(ConfigMismatch, match="different configuration"):
        run_study(DEMO, "quick", out=out, progress=False)
    assert sorted(p.name for p in out.rglob("*")) == before


def test_failures_are_rows_and_replayable(tmp_path):
    study = dataclasses.replace(
        DEMO, profiles={"smoke": Profile("smoke", n_replications=20, settings={"mu": (0.0,), "fail_every": 4})}
    )
    run = run_study(study, "smoke", out=tmp_path / "f", progress=False)
    fails = run.failures
    assert 0 < len(fails) < 20
    assert set(fails.columns) >= {"condition", "replication", "seed", "error", "traceback"}
    assert fails["error"].str.contains("injected failure").all()
    done = set(rows(run)["replication"])
    assert done.isdisjoint(set(fails["replication"])) and len(done) + len(fails) == 20
    r = int(fails["replication"].iloc[0])
    with pytest.raises(RuntimeError, match="injected failure"):
        replay(study, "mu0", r, profile="smoke")
    ok = int(sorted(done)[0])
    replayed = replay(study, "mu0", ok, profile="smoke")["outcomes"]
    stored = rows(run)[rows(run)["replication"] == ok].reset_index(drop=True)
    pd.testing.assert_frame_equal(replayed.reset_index(drop=True), stored)
    assert rejection_summary(rows(run), by=["scheme", "test"])["n"].eq(len(done)).all()


def test_summary_from_stored_rows(reference):
    s = rejection_summary(rows(reference), by=["condition", "scheme", "test"])
    assert {"n", "rejections", "rate", "mc_se", "low", "high", "mean_statistic"} <= set(s.columns)
    assert (s["low"] <= s["rate"]).all() and (s["rate"] <= s["high"]).all()
    assert s["n"].eq(20).all()
    # under the alternative naive Bayes beats the majority class far more often than under the null
    alt = s[(s.condition == "mu0.8") & (s.scheme == "use_all_data") & (s.test == "t")]["rate"].item()
    null = s[(s.condition == "mu0") & (s.scheme == "kfold_cv") & (s.test == "t")]["rate"].item()
    assert alt > null


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "simstudy.cli", *args], capture_output=True, text=True)


def test_sigkill_midway_then_resume_gives_uninterrupted_rows(tmp_path):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "simstudy.cli", "run", "demo", "--profile", "quick", "--quiet", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and len(list(out.glob("chunks/*/*/chunk.json"))) < 3:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    n_before = len(list(out.glob("chunks/*/*/chunk.json")))
    partial = load_run(DEMO, profile="quick", out=out)
    assert not partial.complete and n_before >= 3
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    resumed = load_run(DEMO, profile="quick", out=out)
    assert resumed.complete and not list(out.glob("chunks/*/.tmp-*"))
    whole = run_study(DEMO, "quick", out=tmp_path / "whole", jobs=2, progress=False)
    pd.testing.assert_frame_equal(rows(resumed), rows(whole))
    for f in sorted((tmp_path / "whole").glob("chunks/*/*/*.parquet")):
        twin = out / f.relative_to(tmp_path / "whole")
        assert twin.read_bytes() == f.read_bytes()


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "nosuch"], "unknown study"),
        (["run", "demo", "--profile", "huge"], "--profile"),
        (["run", "demo", "--jobs", "0"], "--jobs"),
        (["run", "demo", "--seed", "-1"], "--seed"),
        (["run", "demo", "--backend", "mpi"], "--backend"),
        (["run", "demo", "--scheduler", "tcp://x:1"], "--scheduler"),
        (["run", "demo", "--jobs", "two"], "--jobs"),
    ],
)
def test_bad_arguments_exit_2_and_write_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "never"
    assert main([*args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_bad_study_config_exits_2_and_writes_nothing(tmp_path):
    bad = dataclasses.replace(
        DEMO,
        profiles={"smoke": Profile("smoke", 3, settings={"mu": (0.0,)})},
        conditions=lambda p: [get_study("demo").conditions(p)[0].__class__(0.0, n_folds=50)],
    )
    with pytest.raises(ValueError, match="n_folds"):
        run_study(bad, "smoke", out=tmp_path / "b", progress=False)
    assert not (tmp_path / "b").exists()
    with pytest.raises(ValueError, match="n_replications"):
        Profile("smoke", -1)


def test_cli_run_status_summarize_list(tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["run", "demo", "--profile", "smoke", "--out", str(out), "--quiet"]) == 0
    assert "complete" in capsys.readouterr().out
    assert main(["status", "demo", "--profile", "smoke", "--out", str(out)]) == 0
    assert "40/40 replications" in capsys.readouterr().out
    assert main(["summarize", "demo", "--profile", "smoke", "--out", str(out)]) == 0
    assert "rejections" in capsys.readouterr().out
    assert main(["list"]) == 0
    assert "demo" in capsys.readouterr().out
    assert main(["status", "demo", "--profile", "smoke", "--out", str(tmp_path / "none")]) == 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert {"config_hash", "root_seed", "versions", "runs", "chunks"} <= set(manifest)
    assert all(len(c["files"]) == 2 for c in manifest["chunks"].values())


def test_wall_time_estimate_includes_startup_chunks_and_compilation():
    import dataclasses

    from simstudy.engine import get_study
    from simstudy.engine.study import KERNEL_LOAD_SECONDS, STARTUP_SECONDS, Cost

    demo = dataclasses.replace(
        get_study("demo"), cost=Cost(seconds_per_replication=1.0, compile_seconds=7.0), chunk_size=10
    )
    prof = demo.profile("smoke")
    n = sum(1 for _ in demo.conditions_for(prof)) * prof.n_replications
    load = KERNEL_LOAD_SECONDS  # every run of a study with compiled kernels loads them
    assert demo.cost_seconds(prof) == n
    assert demo.wall_seconds(prof, 1) == STARTUP_SECONDS["serial"] + load + n
    # two workers share the chunks, but a chunk is never split between them
    chunks = demo._chunk_costs(prof)
    assert demo.wall_seconds(prof, 2) == STARTUP_SECONDS["workers"] + load + max(n / min(2, len(chunks)), max(chunks))
    assert demo.wall_seconds(prof, 2, first_run=True) == demo.wall_seconds(prof, 2) + 7.0
    one_chunk = dataclasses.replace(demo, chunk_size=10**6)  # one chunk per condition: 8 workers, 2 busy
    per_condition = one_chunk._chunk_costs(prof)
    assert len(per_condition) == len(demo.conditions_for(prof))
    assert one_chunk.wall_seconds(prof, 8) == STARTUP_SECONDS["workers"] + load + max(per_condition)
    # nothing compiled: nothing to load
    plain = dataclasses.replace(demo, cost=Cost(seconds_per_replication=1.0, compile_seconds=0.0))
    assert plain.wall_seconds(prof, 1) == STARTUP_SECONDS["serial"] + n
