"""Calibrated t-tests: degrees of freedom from null statistics, the shipped table, and the registered tests."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from simstudy.pipeline.calibrated import calibrated_df, calibrated_t_test, calibration_table, load_calibration
from simstudy.pipeline.outcomes import get_test, outcome_rows
from simstudy.pipeline.outcomes import test_names as registered_tests
from simstudy.pipeline.schemes import SCHEMES, scheme_sample
from simstudy.pipeline.scores import PairedScores


def test_recovers_the_degrees_of_freedom_of_t_statistics():
    rng = np.random.default_rng(1)
    for nu in (2.0, 5.0, 12.0):
        t = stats.t.rvs(nu, size=200_000, random_state=rng)
        assert calibrated_df(t) == pytest.approx(nu, rel=0.1)


def test_conservative_statistics_give_infinite_degrees_of_freedom():
    t = np.random.default_rng(2).normal(scale=0.8, size=10_000)
    assert math.isinf(calibrated_df(t))
    with pytest.raises(ValueError, match="no finite values"):
        calibrated_df([np.nan, np.inf])


def test_calibration_table_per_scheme():
    import pandas as pd

    rng = np.random.default_rng(3)
    rows = pd.DataFrame(
        {
            "replication": np.repeat(np.arange(300), 10),
            "experiment": np.tile(np.arange(10), 300),
            "scheme": "kfold_cv",
            "statistic": stats.t.rvs(4, size=3000, random_state=rng),
        }
    )
    table = calibration_table(rows, n_boot=50)
    r = table.iloc[0]
    assert r["scheme"] == "kfold_cv" and r["n_datasets"] == 300 and r["n_statistics"] == 3000
    assert r["df_low"] <= r["df"] <= r["df_high"]


def test_shipped_table_covers_every_scheme_and_the_held_out_check():
    cal = load_calibration()
    assert cal["design"]["shape"] == [10, 10]
    assert set(cal["schemes"]) == set(SCHEMES)
    for s in cal["schemes"].values():
        assert s["df_low"] <= s["df"] <= s["df_high"] or math.isinf(s["df"] or math.inf)
        lo, hi = s["holdout_type1_interval"]
        assert lo <= s["holdout_type1"] <= hi


def test_registered_tests_use_the_scheme_statistic_and_the_calibrated_df():
    x = np.random.default_rng(4).normal(0.01, 0.05, size=(7, 10, 10))
    for scheme in SCHEMES:
        spec = get_test(f"calibrated_t_{scheme}")
        assert spec.takes == "cv" and not spec.in_all
        res = spec(x)
        df = load_calibration()["schemes"][scheme]["df"]
        t = stats.ttest_1samp(scheme_sample(x, scheme), 0, axis=-1).statistic
        np.testing.assert_allclose(res.statistic, t, rtol=1e-10)
        ref = 2 * (stats.norm.sf(np.abs(t)) if df is None or math.isinf(df) else stats.t.sf(np.abs(t), df))
        np.testing.assert_allclose(res.pvalue, ref, rtol=1e-10)


def test_refuses_another_design_and_stays_out_of_all():
    with pytest.raises(ValueError, match="calibrated on a 10 x 10 cv, got 5 x 2"):
        calibrated_t_test(np.zeros((5, 2)), scheme="kfold_cv")
    assert not any(n.startswith("calibrated_t") for n in registered_tests(in_all=True))
    assert "calibrated_t_use_all_data" in registered_tests()
    ps = PairedScores(np.full((3, 10, 10), 0.8), np.full((3, 10, 10), 0.7), n_train=270, n_test=30)
    rows = outcome_rows(ps, "all", alpha=0.05)
    assert not rows["test"].str.startswith("calibrated").any()
    named = outcome_rows(ps, {"cal": "calibrated_t_average_over_sorted_runs"}, alpha=0.05)
    assert list(named["test"].unique()) == ["cal"]
