"""A stored assessment that cannot be used is refused naming its real cause, and a learner's misdeeds are named
for what they are: a damaged or swapped table, replaced data, a closed connection, a changed working directory."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from simstudy.apps.assess import assess, load_assessment
from simstudy.cli import main
from simstudy.errors import StoredDataError

N = 60
ARGS = ("--designs", "cv2x2", "--repeats", "2", "--quiet", "--results", "none")
FIRST, SECOND = "chunks/cv2x2/0000000-0000001", "chunks/cv2x2/0000001-0000002"

LEARNERS = f"""\
import os
from sklearn.naive_bayes import GaussianNB

N_FULL = {N}


class ClosesFiles(GaussianNB):
    \"\"\"Learns from the whole data (the trial fit); on a split closes every file descriptor of its process.\"\"\"

    def fit(self, X, y):
        if len(y) < N_FULL:
            os.closerange(0, 65536)
        return super().fit(X, y)


class Moves(GaussianNB):
    \"\"\"Changes the working directory in every fit.\"\"\"

    def fit(self, X, y):
        os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "elsewhere"))
        return super().fit(X, y)
"""


def _csv(path, shift: float = 0.0):
    rng = np.random.default_rng(0)
    rows = [f"{rng.normal(i % 2, 1) + shift:.4f},{rng.normal():.4f},{'ny'[i % 2]}" for i in range(N)]
    path.write_text("\n".join(["x1,x2,label", *rows]) + "\n")
    return path


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A small data file and a finished assessment of it (NB against C4.5, fitted for accuracy)."""
    root = tmp_path_factory.mktemp("refusals")
    _csv(root / "d.csv")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)  # the data is named as given: "d.csv", the same in every copy
        assess("d.csv", a="NB", b="C4.5", designs=("cv2x2",), n_repeats=2, evidence=None, out=root / "run")
    return root


@pytest.fixture
def copy(stored, tmp_path, monkeypatch):
    """The stored assessment and its data, copied for one test to spoil (the working directory)."""
    shutil.copy(stored / "d.csv", tmp_path / "d.csv")
    shutil.copytree(stored / "run", tmp_path / "run")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _refused(capsys, place, *extra) -> str:
    """The one line a refused ``simstudy assess`` of the stored assessment prints; nothing in it changed."""
    out = place / "run"
    before = sorted((p.relative_to(out), p.stat().st_mtime_ns) for p in out.rglob("*") if p.name != ".lock")
    argv = ["assess", "d.csv", "--a", "NB", "--b", "C4.5", *ARGS, "--out", str(out), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "differs in" not in err[0] and "different configuration" not in err[0], err[0]
    assert sorted((p.relative_to(out), p.stat().st_mtime_ns) for p in out.rglob("*") if p.name != ".lock") == before
    return err[0]


def test_a_truncated_predictions_table_is_a_damaged_table(copy, capsys):
    table = copy / "run" / FIRST / "predictions.parquet"
    table.write_bytes(table.read_bytes()[:100])
    err = _refused(capsys, copy, "--metric", "balanced_accuracy")
    assert "damaged table: the predictions table of chunk cv2x2/0-1 fails its checksum" in err, err
    assert "--metric accuracy recomputes" in err and "--fresh" in err


def test_a_predictions_table_swapped_with_another_chunks_is_named(copy, capsys):
    one, two = (copy / "run" / c / "predictions.parquet" for c in (FIRST, SECOND))
    first = one.read_bytes()
    one.write_bytes(two.read_bytes())
    two.write_bytes(first)
    err = _refused(capsys, copy, "--metric", "balanced_accuracy")
    assert "damaged table: the predictions table of chunk cv2x2/0-1 is chunk cv2x2/1-2's" in err, err


def test_whole_chunks_swapped_are_named(copy, capsys):
    run = copy / "run"
    (run / FIRST).rename(run / "aside")
    (run / SECOND).rename(run / FIRST)
    (run / "aside").rename(run / SECOND)
    err = _refused(capsys, copy, "--metric", "balanced_accuracy")
    assert "chunk cv2x2/0-1 holds chunk cv2x2/1-2's rows" in err, err


@pytest.mark.parametrize("extra", [(), ("--metric", "balanced_accuracy")], ids=["same metric", "another metric"])
def test_a_data_file_replaced_under_the_same_name_is_replaced_data(copy, capsys, extra):
    _csv(copy / "d.csv", shift=0.5)
    err = _refused(capsys, copy, *extra)
    assert err.startswith(f"simstudy: error: --out: {copy / 'run'}: replaced data: ") and "d.csv" in err, err
    assert "--fresh" in err
    # and re-read without fitting, from Python
    with pytest.raises(StoredDataError, match="replaced data"):
        load_assessment(copy / "run", "d.csv", "NB", "C4.5", designs=("cv2x2",), n_repeats=2, evidence=None)


def test_other_data_is_named_and_other_settings_by_their_field(copy, capsys):
    _csv(copy / "other.csv", shift=0.5)
    argv = ["assess", "other.csv", "--a", "NB", "--b", "C4.5", *ARGS, "--out", str(copy / "run")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "other data: it holds an assessment of" in err and "not of" in err, err
    argv = ["assess", "d.csv", "--a", "C4.5", "--b", "C4.5", *ARGS, "--out", str(copy / "run")]
    assert main(argv) == 2
    assert "(differs in: settings.a)" in capsys.readouterr().err


@pytest.fixture
def learners(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "work").mkdir()
    _csv(tmp_path / "work" / "d.csv")
    (tmp_path / "tricks.py").write_text(LEARNERS)
    return tmp_path


def test_a_learner_that_closes_every_file_descriptor_is_named_not_an_exit(learners):
    with pytest.raises(ValueError) as caught:
        assess(
            learners / "work" / "d.csv",
            a="NB",
            b=f"{learners / 'tricks.py'}:ClosesFiles",
            designs=("cv2x2",),
            n_repeats=2,
            evidence=None,
            out=learners / "closes",
        )
    text = str(caught.value)
    assert "closed its process's connection to simstudy" in text and "os.closerange" in text, text
    assert "exit status" not in text


def test_a_learner_that_changes_directory_in_process_leaves_the_assessment_where_asked(learners, monkeypatch, capsys):
    monkeypatch.chdir(learners / "work")  # restored afterwards, wherever the learner went
    argv = ["assess", "d.csv", "--a", "NB", "--b", f"{learners / 'tricks.py'}:Moves", *ARGS, "--in-process"]
    assert main([*argv, "--out", "relrun"]) == 0
    out = capsys.readouterr().out
    where = learners / "work" / "relrun"
    assert (where / "manifest.json").is_file() and (where / "assessment.md").is_file()
    assert not (learners / "elsewhere" / "relrun").exists()
    assert f"Stored in {where}" in out and f"Wrote {where / 'assessment.png'}" in out, out
    # the same command finds it again, from where it was started
    monkeypatch.chdir(learners / "work")
    assert main([*argv, "--out", "relrun"]) == 0
    assert f"Stored in {where}" in capsys.readouterr().out
    assert not (learners / "elsewhere" / "relrun").exists()


def test_a_learner_file_named_relative_to_the_working_directory_is_found_after_the_learner_moved(learners, monkeypatch):
    # "--b tricks.py:Moves": the file is found where the command started, on every repeat, although the
    # learner changed the working directory during its first fit
    shutil.copy(learners / "tricks.py", learners / "work" / "tricks.py")
    (learners / "work" / "elsewhere").mkdir()
    monkeypatch.chdir(learners / "work")
    argv = ["assess", "d.csv", "--a", "NB", "--b", "tricks.py:Moves", *ARGS, "--in-process", "--out", "relfile"]
    assert main(argv) == 0
    assert (learners / "work" / "relfile" / "manifest.json").is_file()


def test_a_learner_that_changes_directory_leaves_several_learners_assessment_where_asked(learners, monkeypatch):
    from simstudy.apps.assess.many import assess_many

    monkeypatch.chdir(learners / "work")
    _csv(learners / "work" / "d2.csv", shift=0.5)
    a = assess_many(["d.csv", "d2.csv"], ["NB", f"{learners / 'tricks.py'}:Moves"], design="cv2x2", out="manyrun",
                    in_process=True)  # fmt: skip
    assert a.run.path == learners / "work" / "manyrun" and (a.run.path / "manifest.json").is_file()
    assert not (learners / "elsewhere" / "manyrun").exists()
