"""simstudy reproduce: every built-in study at a profile, then one page naming the code that made each section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simstudy.apps.reproduce import reproduce, reproduction_plan
from simstudy.cli import main
from simstudy.engine import run_study

STUDIES = ["demo", "berrar3"]  # two cheap built-in studies stand for all of them


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory):
    root = tmp_path_factory.mktemp("reproduce")
    done = reproduce("smoke", results=root / "results", out=root / "page", studies=STUDIES, progress=False)
    return root, done


def test_runs_every_study_then_writes_the_page(reproduced):
    root, done = reproduced
    assert set(done["seconds"]) == set(STUDIES)
    for name in STUDIES:
        manifest = json.loads((root / "results" / name / "smoke" / "manifest.json").read_text())
        assert manifest["status"] == "complete"
    text = done["markdown"].read_text()
    assert "**Every section's rows were computed at commit " in text
    assert "The code is this page's." in text
    assert text.count("rows computed at commit") == len(STUDIES)  # each section names its code
    assert "## Compute (" in text and "| demo | smoke | 40 |" in text


def test_a_second_call_computes_nothing(reproduced):
    root, _ = reproduced
    plan = reproduction_plan("smoke", results=root / "results", studies=STUDIES)
    assert [p.state for p in plan] == ["complete", "complete"]
    assert all(p.seconds == (0.0, 0.0) for p in plan)
    again = reproduce("smoke", results=root / "results", out=root / "page2", studies=STUDIES, progress=False)
    assert again["seconds"] == {}


def test_cheapest_first(tmp_path):
    plan = reproduction_plan("smoke", results=tmp_path, studies=["berrar4", "demo", "berrar3"])
    assert [p.state for p in plan] == ["missing"] * 3
    lows = [p.seconds[0] for p in plan]
    assert lows == sorted(lows) and plan[-1].name == "berrar4"


def _as_if_other_code(path):
    """Make a stored run look as if another version of the code had computed it (its recorded fingerprint)."""
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["provenance"]["modules"]["simstudy"] = "0" * 16
    manifest["provenance"]["code"] = "0" * 64
    for run in manifest["runs"]:
        run["commit"] = "abcdef123456"
    (path / "manifest.json").write_text(json.dumps(manifest))


def test_a_run_of_other_code_is_kept_with_its_own_line_or_computed_again(tmp_path):
    results = tmp_path / "results"
    run_study("demo", "smoke", out=results / "demo" / "smoke", progress=False)
    _as_if_other_code(results / "demo" / "smoke")
    # a later run that computed nothing (the finished run resumed from another checkout) made no row
    manifest_path = results / "demo" / "smoke" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    jobs = manifest["runs"][-1]["jobs"]
    idle = dict(manifest["runs"][-1], commit="fedcba654321", replications_computed=0, chunks_computed=0, jobs=jobs + 3)
    manifest["runs"].append(idle)
    manifest_path.write_text(json.dumps(manifest))
    [planned] = reproduction_plan("smoke", results=results, studies=["demo"])
    assert planned.state == "other code" and any("simstudy package" in c for c in planned.changes)

    kept = reproduce("smoke", results=results, out=tmp_path / "kept", studies=["demo"], keep=True, progress=False)
    text = kept["markdown"].read_text()
    assert kept["seconds"] == {}
    assert "**Every section's rows were computed at commit abcdef123456.**" in text
    assert "*Made by other code than this page's: rows computed at commit abcdef123456" in text
    assert "changed since: code: the simstudy package" in text
    # nor does it count among the runs, or for their workers
    assert f"over {len(manifest['runs']) - 1} run(s) with {jobs} worker(s)" in text

    again = reproduce("smoke", results=results, out=tmp_path / "again", studies=["demo"], progress=False)
    assert set(again["seconds"]) == {"demo"}
    assert "Made by other code" not in again["markdown"].read_text()
    assert list(results.glob("demo/smoke.replaced-*"))  # moved aside, never deleted


def test_a_section_of_other_code_says_whether_this_code_gives_its_rows(tmp_path, monkeypatch):
    """report --replay: the first replication of each condition computed again and compared with the rows."""
    from simstudy.outputs import report

    results = tmp_path / "results"
    run_study("demo", "smoke", out=results / "demo" / "smoke", progress=False)
    made_by = report._made_by

    def other_code(st, run):  # as if the package had changed since the rows were stored
        return {**made_by(st, run), "changes": ["code: the simstudy package (simstudy) changed"]}

    monkeypatch.setattr(report, "_made_by", other_code)
    _, md = report.build_report("smoke", results, tmp_path / "replayed", studies=["demo"], replay=1)
    text = md.read_text()
    assert "(the first of each condition) computed again by this code give the stored rows value for value" in text
    assert "computed again by this page's code, 1 of the 1 sections tried give their stored rows" in text
    _, md = report.build_report("smoke", results, tmp_path / "not", studies=["demo"])
    assert "computed again" not in md.read_text().lower()  # not asked: not checked
    with pytest.raises(ValueError, match="^replay: a number of replications per condition"):
        report.build_report("smoke", results, tmp_path / "bad", studies=["demo"], replay=-1)
    assert not (tmp_path / "bad").exists()  # refused before anything is written


def test_progress_is_reported_to_a_callable(tmp_path):
    calls = []
    run_study("demo", "smoke", out=tmp_path / "run", progress=lambda *a: calls.append(a))
    assert calls[0] == (0, 0, 40)
    assert sum(new for new, _, _ in calls) == 40
    assert all(planned == 40 for _, _, planned in calls)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--backend", "spark"], "--backend: must be one of"),
        (["--scheduler", "tcp://x:1"], "--scheduler: only meaningful with --backend dask"),
        (["--study", "nosuch"], "--study: not a built-in study: nosuch"),
        (["--jobs", "0"], "--jobs: must be an integer >= 1"),
    ],
)
def test_bad_arguments_are_refused_before_anything_runs(tmp_path, capsys, argv, message):
    code = main(["reproduce", "--profile", "smoke", "--results", str(tmp_path / "r"), *argv])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_folders_that_cannot_be_written_are_refused_before_anything_runs(tmp_path, capsys):
    """--results and --out are probed first: a page folder that cannot be written is not found after hours of work."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = main(["reproduce", "--profile", "smoke", "--results", str(tmp_path / "r"), "--out", str(blocker / "page")])
    assert code == 2
    err = capsys.readouterr().err
    assert f"--out: cannot write to {blocker / 'page'}" in err and "reproduce smoke:" not in err
    assert not (tmp_path / "r").exists()  # the results folder made for the probe is taken away again
    code = main(["reproduce", "--profile", "smoke", "--results", str(blocker / "r")])
    assert code == 2
    assert "--results: " in capsys.readouterr().err


# -- a stored run is verified before it is trusted ------------------------------------------------------
def test_a_complete_run_with_a_chunk_missing_is_completed_before_the_page(tmp_path):
    # the manifest said complete, a chunk was gone: the page was written from 35 of 40 replications
    import shutil

    results = tmp_path / "results"
    reproduce("smoke", results=results, out=tmp_path / "page", studies=["demo"], progress=False)
    run = results / "demo" / "smoke"
    before = run_study("demo", "smoke", out=run, progress=False).table("outcomes")
    shutil.rmtree(sorted(run.glob("chunks/*/*"))[0])
    done = reproduce("smoke", results=results, out=tmp_path / "page2", studies=["demo"], progress=False)
    assert "demo" in done["seconds"]  # it computed the missing chunk
    after = run_study("demo", "smoke", out=run, progress=False)
    assert after.manifest["runs"][-1]["chunks_computed"] == 0
    assert after.table("outcomes").equals(before)
    assert "| demo | smoke | 40 |" in done["markdown"].read_text()


def test_a_run_of_another_seed_is_not_taken_for_this_reproductions(tmp_path, capsys):
    results = tmp_path / "results"
    run_study("demo", "smoke", out=results / "demo" / "smoke", seed=7, progress=False)
    plan = reproduction_plan("smoke", results=results, studies=["demo"])
    assert plan[0].state == "other seed" and "root seed 7" in plan[0].changes[0]
    # kept with --keep (complete), computed again without it; the other seed's run moved aside, never deleted
    assert main(["reproduce", "--profile", "smoke", "--study", "demo", "--keep", "--results", str(results)]) == 0
    assert "stored with another seed (root seed 7 instead of" in capsys.readouterr().err
    assert main(["reproduce", "--profile", "smoke", "--study", "demo", "--results", str(results)]) == 0
    manifest = json.loads((results / "demo" / "smoke" / "manifest.json").read_text())
    assert manifest["root_seed"] != 7 and manifest["status"] == "complete"
    aside = [p for p in (results / "demo").iterdir() if p.name != "smoke"]
    assert aside and json.loads((aside[0] / "manifest.json").read_text())["root_seed"] == 7


def test_a_partial_run_of_another_seed_does_not_stop_the_studies_after_it(tmp_path):
    results = tmp_path / "results"
    run_study("demo", "smoke", out=results / "demo" / "smoke", seed=7, progress=False)
    manifest_path = results / "demo" / "smoke" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["status"] = "running"  # as if stopped before it finished
    manifest_path.write_text(json.dumps(manifest))
    done = reproduce("smoke", results=results, out=tmp_path / "page", studies=STUDIES, keep=True, progress=False)
    assert set(done["seconds"]) == set(STUDIES)


@pytest.mark.parametrize("option", ["--out", "--results"])
def test_an_empty_path_is_refused_before_anything_is_made(tmp_path, capsys, monkeypatch, option):
    monkeypatch.chdir(tmp_path)
    argv = ["reproduce", "--profile", "smoke", "--study", "demo", "--quiet"]
    argv += ["--results", str(tmp_path / "r")] if option == "--out" else []
    assert main([*argv, option, ""]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"simstudy: error: {option}: must name a folder, got an empty string"], err
    assert list(tmp_path.iterdir()) == []
    assert main(["report", "--profile", "smoke", option, "", *(["--results", "r"] if option == "--out" else [])]) == 2
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_scheduler_is_one_line_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.chdir(tmp_path)
    argv = ["reproduce", "--profile", "smoke", "--study", "demo", "--backend", "dask", "--results", "RES"]
    assert main([*argv, "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--scheduler: cannot reach the dask scheduler at tcp://127.0.0.1:1" in err[0], err
    assert list(tmp_path.iterdir()) == []


def test_the_printed_plan_names_every_state_without_a_recorded_change():
    # the plan's lines are printed before anything runs; a missing run has no changes to quote
    from simstudy.apps.reproduce import PlannedStudy, _state_words

    for state in ("missing", "incomplete", "complete", "other code", "other seed"):
        p = PlannedStudy("demo", Path("x"), state, (), (1.0, 2.0), 10, 0, False)
        assert _state_words(p, keep=False) and _state_words(p, keep=True)
    p = PlannedStudy("demo", Path("x"), "other seed", ("seed 7",), (1.0, 2.0), 10, 10, True)
    assert _state_words(p, keep=True) == "stored with another seed (seed 7): kept"
