"""Adaptive runs (--target-mcse): deterministic stopping, the same rows resumed or on two workers."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from simstudy.cli import main
from simstudy.engine import load_run, run_study
from simstudy.engine.adaptive import AdaptiveRule, default_targets
from simstudy.errors import StoredDataError

KW = dict(progress=False, target_mcse=0.1, max_replications=60)


def _rows(run):
    return run.table("outcomes").reset_index(drop=True)


def test_adaptive_run_stops_where_an_uninterrupted_one_does(tmp_path):
    one = run_study("demo", "smoke", out=tmp_path / "one", **KW)
    counts = one.manifest["counts"]
    assert one.manifest["adaptive"]["finished"] and set(counts) == {"mu0", "mu0.8"}
    assert all(n > 20 for n in counts.values())  # the first stage (the profile's 20) was not enough
    for st in one.manifest["adaptive"]["conditions"].values():
        assert st["converged"] and st["max_mcse"] <= 0.1

    two = run_study("demo", "smoke", out=tmp_path / "two", jobs=2, **KW)
    assert two.manifest["counts"] == counts
    pd.testing.assert_frame_equal(_rows(one), _rows(two))

    # a crash: the last stage's chunks and the record lost; the same command decides again from stored rows
    manifest = json.loads((tmp_path / "one" / "manifest.json").read_text())
    for key, n in counts.items():
        for d in (tmp_path / "one" / "chunks" / key).iterdir():
            if int(d.name.split("-")[1]) > n - 20:
                shutil.rmtree(d)
    manifest.pop("adaptive")
    manifest["status"] = "running"
    (tmp_path / "one" / "manifest.json").write_text(json.dumps(manifest))
    again = run_study("demo", "smoke", out=tmp_path / "one", **KW)
    assert again.manifest["counts"] == counts
    pd.testing.assert_frame_equal(_rows(again), _rows(one))
    assert load_run("demo", out=tmp_path / "one").complete


@pytest.mark.slow  # a local dask cluster's start-up; the loky case runs in the main suite
def test_dask_stops_at_the_same_counts_with_the_same_rows(tmp_path):
    pytest.importorskip("distributed")
    one = run_study("demo", "smoke", out=tmp_path / "one", **KW)
    dask = run_study("demo", "smoke", out=tmp_path / "dask", jobs=2, backend="dask", **KW)
    assert dask.manifest["counts"] == one.manifest["counts"]
    pd.testing.assert_frame_equal(_rows(dask), _rows(one))


def test_the_rule_is_part_of_the_configuration(tmp_path):
    run_study("demo", "smoke", out=tmp_path / "r", **KW)
    with pytest.raises(StoredDataError, match="fresh=True"):
        run_study("demo", "smoke", out=tmp_path / "r", progress=False, target_mcse=0.05, max_replications=60)
    with pytest.raises(StoredDataError, match="fresh=True"):
        run_study("demo", "smoke", out=tmp_path / "r", progress=False)


def test_a_capped_condition_says_so(tmp_path):
    run = run_study("demo", "smoke", out=tmp_path / "c", progress=False, target_mcse=0.001, max_replications=40)
    assert run.manifest["counts"] == {"mu0": 40, "mu0.8": 40}
    assert all(st["capped"] for st in run.manifest["adaptive"]["conditions"].values())


def test_default_targets_are_rejection_rates_over_replications():
    rows = pd.DataFrame(
        {"replication": [0, 0, 1, 1, 2, 2], "experiment": [0, 1] * 3, "test": "t", "decision": [1, 0, 1, 1, 0, 0]}
    )
    t = default_targets(rows)
    assert t["estimate"].iloc[0] == pytest.approx(0.5)  # per replication 0.5, 1, 0
    assert t["mcse"].iloc[0] == pytest.approx(0.5 / 3**0.5)  # sd 0.5 over 3 replications
    agree = default_targets(rows.assign(decision=0))
    assert agree["mcse"].iloc[0] > 0  # no spread yet is not precision


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--target-mcse", "0"], "--target-mcse: must be a positive number"),
        (["--target-mcse", "-1"], "--target-mcse: must be a positive number"),
        (["--max-replications", "50"], "--max-replications: only meaningful with --target-mcse"),
        (["--target-mcse", "0.1", "--max-replications", "0"], "--max-replications: must be a positive integer"),
    ],
)
def test_bad_targets_exit_2_and_write_nothing(tmp_path, capsys, argv, message):
    out = tmp_path / "run"
    assert main(["run", "demo", "--profile", "smoke", "--out", str(out), "--quiet", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_rule_checks():
    with pytest.raises(ValueError, match="^target_mcse: "):
        AdaptiveRule(float("nan"), 10, 5, 5)


def test_step_sets_the_stages_and_a_fixed_size_condition_keeps_its_count(tmp_path):
    from dataclasses import dataclass

    from simstudy.engine import Profile, Study

    @dataclass(frozen=True)
    class Cond:
        kind: str
        n_replications: int | None = None

    def replicate(cond, rng):
        if cond.kind == "boot":  # no outcome rows: nothing to make precise
            return {"boot": [{"z": float(rng.normal())}]}
        return {"outcomes": [{"test": "t", "decision": int(rng.random() < 0.3)} for _ in range(5)]}

    study = Study(
        name="stepped",
        title="stages",
        conditions=[Cond("exp"), Cond("boot", 7)],
        replicate=replicate,
        profiles={"smoke": Profile("smoke", n_replications=40)},
        chunk_size=5,
    )
    run = run_study(study, "smoke", out=tmp_path / "s", progress=False, target_mcse=0.03, max_replications=200, step=10)
    counts = run.manifest["counts"]
    boot = next(k for k in counts if "boot" in k)
    exp = next(k for k in counts if "exp" in k)
    assert counts[boot] == 7, "a condition of fixed size is neither cut to the first stage nor grown"
    assert counts[exp] % 10 == 0 and 10 < counts[exp] <= 200
    assert run.manifest["adaptive"]["first"] == 10 and run.manifest["adaptive"]["step"] == 10
    with pytest.raises(ValueError, match="^step: only meaningful with target_mcse"):
        run_study(study, "smoke", out=tmp_path / "t", progress=False, step=10)
    with pytest.raises(ValueError, match="^step: must be a positive integer"):
        run_study(study, "smoke", out=tmp_path / "t", progress=False, target_mcse=0.1, step=0)


def test_a_target_marked_done_stops_growing_its_condition(tmp_path):
    from dataclasses import dataclass

    import pandas as pd

    from simstudy.engine import Profile, Study

    @dataclass(frozen=True)
    class Cond:
        kind: str

    def replicate(cond, rng):
        return {"outcomes": [{"test": "t", "decision": int(rng.random() < 0.5)} for _ in range(3)]}

    def targets(rows):
        # a decided question: the rate is imprecise, but nothing more needs to be known about it
        rate = float((rows["decision"] != 0).mean()) if len(rows) else 0.0
        return pd.DataFrame(
            {
                "quantity": ["rate"],
                "estimate": [rate],
                "mcse": [0.2],
                "done": [rows["condition"].iloc[0].endswith("decided") if len(rows) else False],
            }
        )

    study = Study(
        name="decided",
        title="done targets",
        conditions=[Cond("decided"), Cond("open")],
        replicate=replicate,
        profiles={"smoke": Profile("smoke", n_replications=10)},
        chunk_size=5,
        targets=targets,
    )
    run = run_study(study, "smoke", out=tmp_path / "d", progress=False, target_mcse=0.01, max_replications=30)
    counts = run.manifest["counts"]
    decided, still_open = (next(k for k in counts if k.endswith(w)) for w in ("decided", "open"))
    assert counts[decided] == 10 and counts[still_open] == 30
    state = run.manifest["adaptive"]["conditions"]
    assert state[decided]["converged"] and state[decided]["quantity"].startswith("every target decided")
    assert state[still_open]["capped"]
