"""Stored rows checked against the code of this process: replications computed again and compared."""

from __future__ import annotations

import dataclasses

import pytest

from simstudy.engine import get_study, load_run, run_study
from simstudy.engine.replaycheck import replay_check


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("replay") / "demo"
    run_study("demo", "smoke", out=out, progress=False)
    return out


def test_the_same_code_gives_the_stored_rows(demo_run):
    st = get_study("demo")
    check = replay_check(st, load_run(st, profile="smoke", out=demo_run))
    assert check.replications == len(st.conditions_for(st.profile("smoke"))) > 0
    assert check.same == check.replications and check.differences == ()
    assert check.text.endswith("computed again by this code give the stored rows value for value")
    two = replay_check(st, load_run(st, profile="smoke", out=demo_run), per_condition=2)
    assert two.replications == 2 * check.replications and "(the first 2 of each condition)" in two.text


def test_other_code_is_caught_and_named(demo_run):
    st = get_study("demo")
    run = load_run(st, profile="smoke", out=demo_run)

    def nudged(cond, rng, replicate=st.replicate):
        tables = replicate(cond, rng)
        scores = tables["scores"].copy()
        column = next(c for c in scores.columns if c.startswith("acc_"))
        scores[column] = scores[column] + 1e-12  # a last-digit change is a change
        return {**tables, "scores": scores}

    check = replay_check(dataclasses.replace(st, replicate=nudged), run)
    assert check.same == 0 and len(check.differences) == min(5, check.replications)
    assert ": scores, column acc_" in check.differences[0] and "replication 0" in check.differences[0]
    assert "differ: " in check.text

    def broken(cond, rng):
        raise RuntimeError("no")

    raised = replay_check(dataclasses.replace(st, replicate=broken), run)
    assert raised.same == 0 and raised.differences[0].endswith("raises RuntimeError")
