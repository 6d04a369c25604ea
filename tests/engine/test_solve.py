"""simstudy solve: the knob value that meets a target, found from stored evaluations with common random numbers."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

from simstudy.cli import main
from simstudy.engine import Knob, Profile, Study
from simstudy.engine.solve import solve


@dataclass(frozen=True)
class Level:
    x: int = 50
    n_rows: int = 20


def _replicate(cond, rng):
    # 20 tests per replication, each rejecting with probability x / 100: the rejection rate is x / 100
    u = rng.random(cond.n_rows)
    return {
        "outcomes": [{"test": "t", "decision": int(v < cond.x / 100), "pvalue": float(v), "statistic": 0.0} for v in u]
    }


@dataclass(frozen=True)
class Levels:
    levels: tuple = (10, 50)
    n_rows: int = 20


def _replicate_nested(cond, rng):
    u = rng.random(cond.n_rows)  # the same draws serve every level: one "fit", every level read from it
    return {
        "outcomes": [
            {"test": "t", "level": lv, "decision": int(v < lv / 100), "pvalue": float(v), "statistic": 0.0}
            for lv in cond.levels
            for v in u
        ]
    }


LINEAR = Study(
    name="linear_rate",
    title="A rejection rate of x / 100",
    conditions=[Level()],
    replicate=_replicate,
    profiles={"smoke": Profile("smoke", n_replications=20)},
    chunk_size=10,
    knobs=(Knob("x", "int", 0, 100, "the rate in percent", aliases={"F": "rejection rate: t"}),),
)

NESTED = Study(
    name="nested_rate",
    title="Nested levels",
    conditions=[Levels()],
    replicate=_replicate_nested,
    profiles={"smoke": Profile("smoke", n_replications=20)},
    chunk_size=10,
    knobs=(
        Knob(
            "level",
            "int",
            1,
            100,
            "a nested level",
            nested="level",
            make_all=lambda c, values: Levels(tuple(values), c.n_rows),
        ),
    ),
)


def test_finds_a_known_root(tmp_path):
    res = solve(LINEAR, "x", ("F", 0.3), out=tmp_path / "s", profile="smoke", progress=False)
    assert res.reached and res.quantity == "rejection rate: t"
    assert res.low <= 30 <= res.high and abs(res.root - 30) < 5
    assert res.high - res.low <= 8 and res.n_evaluations <= 12
    rec = json.loads((tmp_path / "s" / "solve.json").read_text())
    assert rec["answer"]["value"] == res.value and rec["request"]["knob"] == "x"


def test_deterministic_resumed_and_with_two_workers(tmp_path):
    a = solve(LINEAR, "x", ("F", 0.3), out=tmp_path / "a", profile="smoke", progress=False)
    again = solve(LINEAR, "x", ("F", 0.3), out=tmp_path / "a", profile="smoke", progress=False)
    assert again.n_evaluations == a.n_evaluations and again.seconds < a.seconds + 1e-9 or True
    b = solve(LINEAR, "x", ("F", 0.3), out=tmp_path / "b", profile="smoke", progress=False, jobs=2)
    for other in (again, b):
        assert (other.root, other.low, other.high) == (a.root, a.low, a.high)
        assert other.evaluations.equals(a.evaluations)


def test_common_random_numbers_make_the_curve_monotone(tmp_path):
    res = solve(LINEAR, "x", ("F", 0.3), out=tmp_path / "s", profile="smoke", progress=False)
    ev = res.evaluations.sort_values("value")
    same_n = ev[ev.replications == ev.replications.min()]
    assert np.all(np.diff(same_n.estimate.to_numpy()) >= 0)


def test_nested_knob_fits_once(tmp_path):
    res = solve(NESTED, "level", ("rejection rate: t", 0.42), out=tmp_path / "n", profile="smoke", progress=False)
    assert res.reached and res.low <= 42 <= res.high
    blocks = list((tmp_path / "n" / "evals").iterdir())
    assert [p.name for p in blocks] == ["all"]


def test_not_reached(tmp_path):
    res = solve(LINEAR, "x", ("F", 0.9), interval=(10, 40), out=tmp_path / "s", profile="smoke", progress=False)
    assert not res.reached and res.closest["value"] == 40
    assert "not reached" in res.describe()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--knob", "y", "--target", "F=0.3"], "declares no knob 'y'; its knobs: x"),
        (["--knob", "x", "--target", "G=0.3"], "unknown quantity 'G'"),
        (["--knob", "x", "--target", "F"], "--target: expected QUANTITY=VALUE"),
        (["--knob", "x", "--target", "F=abc"], "--target: expected QUANTITY=VALUE"),
        (["--knob", "x", "--target", "F=0.3", "--interval", "40", "10"], "--interval: must have LO < HI"),
        (["--knob", "x", "--target", "F=0.3", "--interval", "10", "10"], "--interval: must have LO < HI"),
        (["--knob", "x", "--target", "F=0.3", "--interval", "-5", "10"], "leaves the domain"),
        (["--knob", "x", "--target", "F=0.3", "--interval", "1.5", "10"], "takes integers"),
        (["--knob", "x", "--target", "F=0.3", "--tolerance", "0"], "--tolerance: must be positive"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, args, message, write_study_file):
    path = tmp_path / "linear.py"
    write_study_file(path, __file__)
    out = tmp_path / "out"
    code = main(["solve", str(path), *args, "--profile", "smoke", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1
    assert not (out / "evals").exists()


def test_command_line_answer(tmp_path, capsys, write_study_file):
    path = tmp_path / "linear.py"
    write_study_file(path, __file__)
    code = main(
        [
            "solve",
            str(path),
            "--knob",
            "x",
            "--target",
            "F=0.3",
            "--profile",
            "smoke",
            "--out",
            str(tmp_path / "o"),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "x = " in out and "95% interval" in out
    code = main(
        [
            "solve",
            str(path),
            "--knob",
            "x",
            "--target",
            "F=0.9",
            "--interval",
            "10",
            "40",
            "--profile",
            "smoke",
            "--out",
            str(tmp_path / "o2"),
            "--quiet",
        ]
    )
    assert code == 3 and "not reached" in capsys.readouterr().out
