"""The cost a study declares: seconds per replication, or work whose seconds per unit are measured."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pytest

from simstudy.engine import Cost, Profile, Study, get_study, list_studies
from simstudy.engine import study as study_module
from simstudy.engine.costs import fit_seconds_per_unit
from simstudy.engine.study import condition_key


@dataclass(frozen=True)
class Size:
    n: int


def _study(**cost) -> Study:
    return Study(
        name="costly",
        title="t",
        conditions=lambda p: [Size(10), Size(40), Size(90)],
        replicate=lambda c, rng: {},
        profiles={"smoke": Profile("smoke", 6)},
        chunk_size=2,
        cost=Cost(**cost),
    )


def test_work_costs_its_units_times_their_seconds():
    st = _study(work=lambda c: {"replication": 1, "case": c.n}, seconds_per_unit={"replication": 0.5, "case": 0.01})
    assert st.cost.seconds(Size(40)) == pytest.approx(0.5 + 0.4)
    assert st.cost_seconds(st.profile("smoke")) == pytest.approx(6 * (3 * 0.5 + 1.4))


def test_a_unit_without_measured_seconds_is_named():
    st = _study(work=lambda c: {"replication": 1, "case": c.n}, seconds_per_unit={"replication": 0.5})
    with pytest.raises(ValueError, match="no seconds per unit measured for case .*bench_estimates.py --fit"):
        st.cost_seconds(st.profile("smoke"))


def test_work_without_measured_seconds_is_refused_when_declared():
    with pytest.raises(ValueError, match="declares its work but no seconds_per_unit"):
        _study(work=lambda c: {"case": c.n})


def test_a_cost_is_given_one_way():
    with pytest.raises(ValueError, match="seconds_per_replication or work, not both"):
        Cost(seconds_per_replication=1.0, work=lambda c: {})
    with pytest.raises(ValueError, match="work: expected a function"):
        Cost(work={"case": 1})
    assert Cost().seconds(None) == 1.0  # nothing declared: a second per replication


def test_built_in_studies_read_their_seconds_per_unit_from_the_timings_file():
    timings = json.loads(Path(study_module.__file__).with_name("timings.json").read_text(encoding="utf-8"))
    st = get_study("bouckaert1")
    assert st.cost.seconds_per_unit == timings["seconds_per_unit"]["bouckaert1"]


@pytest.mark.parametrize("name", list_studies())
def test_every_profile_of_every_built_in_study_has_measured_seconds_for_its_work(name):
    st = get_study(name)
    for key in st.profiles:
        seconds = st.wall_seconds(st.profile(key), 2)
        assert math.isfinite(seconds) and seconds > 0


def _manifest(run: Path, st: Study, rates: dict, profile: str = "smoke") -> None:
    """A run directory whose manifest has the study's chunks, each taking the seconds ``rates`` give it."""
    plan, chunks = [], {}
    for c in st.conditions_for(st.profile(profile)):
        for start in (0, 2, 4):
            units = st.cost.work(c)
            plan.append({"condition": condition_key(c), "start": start, "stop": start + 2})
            chunks[f"{condition_key(c)}/{start}-{start + 2}"] = {
                "seconds": 2 * sum(units[u] * rates[u] for u in units),
                "files": {},
                "failures": 0,
            }
    run.mkdir(parents=True)
    manifest = {
        "study": st.name,
        "profile": profile,
        "config": {},
        "config_hash": "0",
        "root_seed": 0,
        "plan": plan,
        "chunks": chunks,
        "runs": [],
    }
    (run / "manifest.json").write_text(json.dumps(manifest))


def test_the_fit_recovers_the_seconds_per_unit_of_stored_chunks(tmp_path):
    st = _study(work=lambda c: {"replication": 1, "case": c.n}, seconds_per_unit={"replication": 1.0, "case": 1.0})
    _manifest(tmp_path / "run", st, {"replication": 0.02, "case": 0.003})
    fit = fit_seconds_per_unit(st, [tmp_path / "run"])
    assert fit.rates == pytest.approx({"replication": 0.02, "case": 0.003}, rel=1e-3)
    assert fit.chunks == 9 and fit.left_out == 0
    assert fit.fitted_seconds == pytest.approx(fit.seconds, rel=1e-3)
    assert fit.previous_seconds == pytest.approx(2 * 9 * 1 + 2 * 3 * 140)  # the rates in use, on the same chunks


def test_the_fit_refuses_a_run_of_another_study_and_a_study_without_work(tmp_path):
    st = _study(work=lambda c: {"case": c.n}, seconds_per_unit={"case": 1.0})
    _manifest(tmp_path / "run", st, {"case": 0.001})
    other = Study(
        name="other",
        title="t",
        conditions=lambda p: [Size(1)],
        replicate=lambda c, rng: {},
        profiles={"smoke": Profile("smoke", 2)},
        cost=Cost(work=lambda c: {"case": c.n}, seconds_per_unit={"case": 1.0}),
    )
    with pytest.raises(ValueError, match="holds a run of 'costly', not of 'other'"):
        fit_seconds_per_unit(other, [tmp_path / "run"])
    with pytest.raises(ValueError, match="declares no work"):
        fit_seconds_per_unit(_study(seconds_per_replication=0.1), [tmp_path / "run"])


def test_a_workers_first_chunk_that_also_loads_the_modules_is_left_out(tmp_path):
    st = _study(work=lambda c: {"replication": 1, "case": c.n}, seconds_per_unit={"replication": 1.0, "case": 1.0})
    _manifest(tmp_path / "run", st, {"replication": 0.02, "case": 0.003})
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    first = next(iter(manifest["chunks"]))
    manifest["chunks"][first]["seconds"] += 5.0  # imports and kernels
    (tmp_path / "run" / "manifest.json").write_text(json.dumps(manifest))
    fit = fit_seconds_per_unit(st, [tmp_path / "run"])
    assert fit.left_out == 1 and fit.chunks == 8
    assert fit.rates == pytest.approx({"replication": 0.02, "case": 0.003}, rel=1e-3)
