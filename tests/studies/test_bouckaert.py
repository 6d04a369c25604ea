"""Bouckaert 2004 Table 1 study at the smoke profile: rows, summary, comparison with the paper."""

from __future__ import annotations

import numpy as np
import pytest

from simstudy.engine import get_study, run_study
from simstudy.outputs.published import comparison_report
from simstudy.studies.bouckaert2004 import bouckaert1


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return run_study("bouckaert1", "smoke", out=tmp_path_factory.mktemp("b1") / "smoke", progress=False)


def test_rows_per_data_set(run):
    cond = get_study("bouckaert1").conditions_for(get_study("bouckaert1").profiles["smoke"])[0]
    out = run.table("outcomes")
    per_set = out.groupby(["source", "replication"]).size()
    assert per_set.eq(cond.n_experiments * 6 * len(bouckaert1.TESTS)).all()  # experiments x schemes x tests
    scores = run.table("scores")
    assert scores.groupby(["source", "replication"]).size().eq(cond.n_experiments * cond.n_runs * cond.n_folds).all()
    assert set(out["source"]) == set(bouckaert1.SOURCES)


def test_schemes_share_one_matrix(run):
    """use_all_data's t statistic is recomputable from the stored per-fold accuracies."""
    from simstudy.statistics.significance import paired_t_test

    scores = run.table("scores")
    out = run.table("outcomes")
    one = scores[(scores.source == "bouckaert3") & (scores.replication == 0) & (scores.experiment == 0)]
    t = paired_t_test((one.acc_a - one.acc_b).to_numpy()).statistic
    stored = out[
        (out.source == "bouckaert3")
        & (out.replication == 0)
        & (out.experiment == 0)
        & (out.scheme == "use_all_data")
        & (out.test == "t")
    ]["statistic"].item()
    assert np.isclose(t, stored) or (np.isinf(t) and np.isinf(stored))


def test_table1_and_comparison(run, tmp_path):
    tables = get_study("bouckaert1").summarize(run)
    t1 = tables["table1"]
    assert len(t1) == 6 * len(bouckaert1.TESTS)  # schemes x tests
    for col in ("type1", "power2", "power3", "power4", "min_norm_r2"):
        assert col in t1 and f"{col}_mc_low" in t1
    assert (t1["type1"].between(0, 100)).all()
    alpha = tables["alpha"]
    assert (alpha["type1_mc_low"] <= alpha["type1"] + 1e-9).all()
    assert (alpha["type1"] <= alpha["type1_mc_high"] + 1e-9).all()
    assert alpha["type1_within_alpha_plus_1"].isin(["holds", "does not hold", "not resolved at this scale"]).all()
    text = comparison_report("bouckaert1", profile="smoke", out=run.path)
    assert "rank sum / average_over_sorted_runs: Type I error (%)" in text


def test_bad_condition_is_refused():
    from simstudy.protocols.bouckaert import RepeatedCVCondition

    with pytest.raises(ValueError, match="n_folds"):
        RepeatedCVCondition("bouckaert1", n_folds=200)
    with pytest.raises(ValueError, match="alpha"):
        RepeatedCVCondition("bouckaert1", alpha=1.5)


def test_bouckaert_frank_smoke(tmp_path):
    from simstudy.studies.bouckaert_frank2004 import bouckaert_frank

    run = run_study("bouckaert_frank", "smoke", out=tmp_path / "bf", progress=False)
    out = run.table("outcomes")
    assert out.groupby(["source", "replication", "experiment"]).size().nunique() == 1
    tables = bouckaert_frank.summarize(run)
    t = tables["tests"]
    assert set(t["source"]) == set(bouckaert_frank.SOURCES)
    assert t["consistent"].between(0, 100).all() and (t["r2_mc_low"] <= t["r2"]).all()
    assert {"5x2cv t", "5x2cv F", "10-fold cv", "corrected 2x10 cv"} <= set(t["test"])
    claims = tables["claims"]
    # a smoke run is below the published scale: an unsettled claim is not resolved at this scale
    assert len(claims) == 4 and set(claims["verdict"]) <= {"holds", "does not hold", "not resolved at this scale"}


def test_table2_smoke(tmp_path):
    from simstudy.studies.bouckaert2004 import bouckaert2

    run = run_study("bouckaert2", "smoke", out=tmp_path / "t2", progress=False)
    assert len(run.failures) == 0
    tables = bouckaert2.summarize(run)
    assert set(tables["cells"]["dataset"]) == {"iris", "labor"}
    assert len(tables["means"]) == 3 * len(bouckaert2.TESTS)  # pairs x tests
    scores = run.table("scores")
    assert {"acc_NB", "acc_C4.5", "acc_NN"} <= set(scores.columns)
    text = comparison_report("bouckaert2", profile="smoke", out=run.path)
    assert "labor: sign NB-C4.5, accepts of 10" in text and "sign NB-C4.5, over the 27 data sets" in text
    assert "| 78.2 |" in text  # the printed row mean, now that all 27 sets ship
    assert "labor: sign (cdf rule) NB-C4.5, accepts of 10" in text


def test_bouckaert_frank_uci_smoke(tmp_path):
    from simstudy.studies.bouckaert_frank2004 import bouckaert_frank_uci

    run = run_study("bouckaert_frank_uci", "smoke", out=tmp_path / "bfu", progress=False)
    tables = bouckaert_frank_uci.summarize(run)
    assert set(tables["rejections"]["pair"]) == {"NB-C4.5", "NB-NN", "C4.5-NN"}
    per_test = tables["per_test"]
    assert (per_test["combinations"] == 6).all() and per_test["consistent"].between(0, 6).all()
    assert {"resampled: mean R2", "corrected resampled: mean R2"} <= set(tables["by_runs"].columns)
    assert set(tables["by_alpha"]["alpha"]) == {0.01, 0.025, 0.05, 0.10}
    claims = tables["claims"]
    assert len(claims) >= 3 and set(claims["verdict"]) <= {
        "holds",
        "does not hold",  # runs need >1 level
        "not resolved at this scale",
    }
    assert "no true null" in claims["claim"].iloc[-1]  # the size of the tests is not measured on UCI data


def test_table2_causes_are_the_measured_numbers():
    """Every miss cause of Table 2 quotes benchmarks/weka/table2_misses.csv, the measurement it names."""
    import csv
    from pathlib import Path

    from simstudy.studies.bouckaert2004 import bouckaert2

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "weka" / "table2_misses.csv"
    rows = {(r["dataset"], r["test"], r["pair"]): r for r in csv.DictReader(path.open())}
    assert set(bouckaert2.MEASURED_CELLS) == set(rows)
    for cell, (accepts, p, printed, p_printed) in bouckaert2.MEASURED_CELLS.items():
        r = rows[cell]
        assert int(r["rerun_experiments"]) == bouckaert2.T2_REPEATS
        measured = [r["rerun_accepts_shuffled"], r["p_shuffled"], r["rerun_cdf_accepts_shuffled"], r["p_cdf_shuffled"]]
        np.testing.assert_allclose([accepts, p, printed, p_printed], [float(x) for x in measured], rtol=1e-3)
        status, note = bouckaert2.CELL_CAUSES[cell]
        assert status == ("found" if float(r["p_shuffled"]) < 0.05 <= float(r["p_cdf_shuffled"]) else "not found")
        assert bouckaert2._T2 in note
