"""simstudy.outputs.runs: stored rows as DataFrames, paired scores for baycomp and correctR, export."""

import numpy as np
import pandas as pd
import pytest

from simstudy.engine import load_run, run_study
from simstudy.outputs import runs as results
from simstudy.statistics.significance import corrected_repeated_cv_t_test


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("results_api") / "demo"
    run_study("demo", "smoke", out=out, jobs=1, progress=False)
    return out


def test_load_gives_the_stored_rows_with_the_profile(demo_run):
    rows = results.load("demo", "smoke", out=demo_run)
    stored = load_run("demo", "smoke", out=demo_run).table("outcomes")
    assert len(rows) == len(stored) == 2 * 20 * 19  # 2 conditions x 20 replications x (6 schemes x 3 tests + 1)
    assert (rows["profile"] == "smoke").all()
    pd.testing.assert_frame_equal(rows.drop(columns="profile"), stored)
    assert set(results.tables("demo", "smoke", out=demo_run)) == {"outcomes", "scores"}
    assert len(results.load("demo", "smoke", out=demo_run, table="scores")) == 2 * 20 * 25


def test_table_chunks_stream_the_same_rows_with_chosen_columns(demo_run):
    run = load_run("demo", "smoke", out=demo_run)
    parts = list(run.table_chunks("scores"))
    assert len(parts) > 1
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), run.table("scores"))
    cols = ["condition", "replication"]
    narrow = pd.concat(run.table_chunks("scores", columns=cols), ignore_index=True)
    pd.testing.assert_frame_equal(narrow, run.table("scores")[cols])
    assert list(run.table_chunks("nothing")) == []
    with pytest.raises(ValueError, match=r"columns: table 'scores' has no column 'acc_z' \(it has .*condition"):
        next(run.table_chunks("scores", columns=["condition", "acc_z"]))


def test_load_refuses_an_unknown_table_and_a_missing_run(demo_run, tmp_path):
    with pytest.raises(KeyError, match="no stored rows"):
        results.load("demo", "smoke", out=demo_run, table="nothing")
    with pytest.raises(ValueError, match="no stored run"):
        results.load("demo", "smoke", out=tmp_path / "empty")


def test_paired_scores_match_the_stored_tests(demo_run):
    scores = results.paired_scores("demo", "smoke", out=demo_run)
    assert list(scores.columns) == [
        "mu",
        "pair",
        "design",
        "unit",
        "experiment",
        "run",
        "fold",
        "score_a",
        "score_b",
        "n_train",
        "n_test",
    ]
    assert len(scores) == 2 * 20 * 5 * 5
    assert (scores["n_train"] == 48).all() and (scores["n_test"] == 12).all()
    outcomes = results.load("demo", "smoke", out=demo_run)
    corrected = outcomes[outcomes["test"] == "corrected_t"].set_index(["mu", "replication"])["pvalue"]
    for (mu, unit), block in scores.groupby(["mu", "unit"]):
        diffs = (block["score_a"] - block["score_b"]).to_numpy().reshape(5, 5)
        p = corrected_repeated_cv_t_test(diffs, n_train=48, n_test=12).pvalue
        assert p == pytest.approx(corrected[(mu, unit)], abs=1e-12)


def test_baycomp_arrays_one_row_per_data_set(demo_run):
    scores = results.paired_scores("demo", "smoke", out=demo_run)
    block = scores[scores["mu"] == 0.8]
    x, y = results.baycomp_arrays(block)
    assert x.shape == y.shape == (20, 25)
    first = block[block["unit"] == 0]
    np.testing.assert_array_equal(x[0], first["score_a"].to_numpy())
    np.testing.assert_array_equal(y[0], first["score_b"].to_numpy())
    with pytest.raises(ValueError, match="select one value of mu"):
        results.baycomp_arrays(scores)


def test_correctr_frame_layout(demo_run):
    scores = results.paired_scores("demo", "smoke", out=demo_run)
    frame = results.correctr_frame(scores)
    assert len(frame) == 2 * len(scores)
    assert {"model", "values", "k", "r", "n1", "n2"} <= set(frame.columns)
    one = frame[(frame["mu"] == 0.0) & (frame["unit"] == 3)]
    assert sorted(one["model"].unique()) == ["A", "B"]
    assert one["k"].min() == 1 and one["k"].max() == 5 and one["r"].max() == 5
    a = one[one["model"] == "A"].sort_values(["r", "k"])["values"].to_numpy()
    b = one[one["model"] == "B"].sort_values(["r", "k"])["values"].to_numpy()
    block = scores[(scores["mu"] == 0.0) & (scores["unit"] == 3)]
    np.testing.assert_array_equal(a, block["score_a"].to_numpy())
    np.testing.assert_array_equal(b, block["score_b"].to_numpy())
    named = results.correctr_frame(scores, models=("NB", "majority"))
    assert set(named["model"]) == {"NB", "majority"}


@pytest.mark.parametrize("fmt", results.FORMATS)
def test_export_writes_every_table(demo_run, tmp_path, fmt):
    paths = results.export("demo", "smoke", out=demo_run, to=tmp_path / "export", format=fmt)
    names = sorted(p.name for p in paths)
    assert names == sorted(f"demo__smoke__{n}.{fmt}" for n in ("outcomes", "scores", "paired_scores", "correctr"))
    read = pd.read_csv if fmt == "csv" else pd.read_parquet
    back = read(tmp_path / "export" / f"demo__smoke__paired_scores.{fmt}")
    assert len(back) == 2 * 20 * 25
    with pytest.raises(ValueError, match="format"):
        results.export("demo", "smoke", out=demo_run, to=tmp_path, format="xlsx")
    with pytest.raises(ValueError, match="holds no"):
        results.export("demo", "smoke", out=demo_run, to=tmp_path, which=("nothing",))
