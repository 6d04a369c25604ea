"""The pipeline's own pieces: designs, the test registry and outcome rows, typed settings, summaries."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from simstudy.engine import Profile, Study
from simstudy.engine.study import settings_of
from simstudy.pipeline.designs import FIVE_BY_TWO, Bootstrap, RepeatedKFold, Subsample
from simstudy.pipeline.outcomes import get_test, outcome_rows, register_test, run_test
from simstudy.pipeline.outcomes import test_names as registered_tests
from simstudy.pipeline.schemes import SCHEMES, scheme_sample
from simstudy.pipeline.scores import PairedScores
from simstudy.pipeline.splits import repeated_fold_ids
from simstudy.statistics.intervals import clopper_pearson, mean_interval, normal_interval, wilson
from simstudy.statistics.significance import corrected_repeated_cv_t_test, paired_t_test


def test_repeated_kfold_draws_what_the_studies_always_drew():
    y = np.repeat([0, 1], [37, 63])
    ids = RepeatedKFold(3, 10).fold_ids(y, np.random.default_rng(5))
    assert np.array_equal(ids, repeated_fold_ids(y, 3, 10, np.random.default_rng(5)))
    assert RepeatedKFold(3, 10).sizes(y) == (90, 10) and RepeatedKFold(1, 10).sizes(57) == (52, 5)
    assert FIVE_BY_TWO == RepeatedKFold(5, 2)
    with pytest.raises(ValueError, match="n_folds"):
        RepeatedKFold(2, 1)


def test_subsample_and_bootstrap():
    y = np.repeat([0, 1], [40, 60])
    sub = Subsample(4, 0.1)
    ids = sub.fold_ids(y, np.random.default_rng(1))
    assert ids.shape == (4, 100) and set(np.unique(ids)) == {-1, 0}
    assert ((ids == 0).sum(axis=1) == 10).all() and sub.sizes(y) == (90, 10)
    for train, test in sub.splits(y, np.random.default_rng(2)):
        assert np.intersect1d(train, test).size == 0 and train.size + test.size == 100
    idx = Bootstrap().indices(y, np.random.default_rng(3))
    assert idx.shape == (100,) and np.unique(y[idx]).size == 2
    with pytest.raises(ValueError, match="test_share"):
        Subsample(3, 1.5)


def test_outcome_rows_match_the_tests_called_one_by_one():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.6, 0.9, (4, 3, 5)), rng.uniform(0.6, 0.9, (4, 3, 5))
    scores = PairedScores(a, b, n_train=80, n_test=20)
    rows = outcome_rows(scores, {"t": "paired_t"}, alpha=0.05, schemes=SCHEMES, index={"experiment": np.arange(4)})
    assert list(rows.columns) == ["experiment", "scheme", "test", "statistic", "pvalue", "decision"]
    assert len(rows) == 4 * len(SCHEMES) and rows["decision"].dtype == np.int8
    for scheme in SCHEMES:
        res = paired_t_test(scheme_sample(a - b, scheme))
        got = rows[rows.scheme == scheme]
        assert np.array_equal(got["statistic"].to_numpy(), res.statistic)
    cv = outcome_rows(scores, {"c": "corrected_cv_t"}, alpha=0.05)
    ref = corrected_repeated_cv_t_test(a - b, n_train=80, n_test=20)
    assert np.array_equal(cv["pvalue"].to_numpy(), ref.pvalue)
    with pytest.raises(ValueError, match="sizes"):
        run_test("corrected_cv_t", PairedScores(a, b, None, None))


def test_registry_names_inputs_and_all():
    assert {"paired_t", "sign", "signed_rank", "corrected_cv_t", "5x2cv_t", "welch_t"} <= set(registered_tests())
    assert get_test("5x2cv_t").takes == "5x2" and get_test("corrected_resampled_t").sizes
    with pytest.raises(ValueError, match="unknown test"):
        get_test("no such test")
    with pytest.raises(ValueError, match="already registered"):
        register_test("paired_t", paired_t_test)
    scores = PairedScores(np.full((2, 5, 2), 0.8), np.full((2, 5, 2), 0.7), n_train=50, n_test=50)
    rows = outcome_rows(scores, "all", alpha=0.05)
    assert {"5x2cv_t", "cv_t", "paired_t", "welch_t"} <= set(rows["test"]) and "resampled_t" not in set(rows["test"])


def test_welch_matches_scipy_on_two_independent_samples():
    rng = np.random.default_rng(4)
    a, b = rng.normal(0.8, 0.05, (3, 2, 10)), rng.normal(0.75, 0.02, (3, 2, 10))
    res = run_test("welch_t", PairedScores(a, b, None, None))
    ref = stats.ttest_ind(a.reshape(3, -1), b.reshape(3, -1), axis=-1, equal_var=False)
    assert np.allclose(res.statistic, ref.statistic) and np.allclose(res.pvalue, ref.pvalue)
    flat = run_test("welch_t", PairedScores(np.full((1, 4), 0.9), np.full((1, 4), 0.8), None, None))
    assert flat.pvalue == 0.0 and flat.decision(0.05) == 1


@dataclass(frozen=True)
class _Settings:
    n_runs: int = 10
    sources: tuple = ("a",)


def test_typed_settings_refuse_misspelt_keys():
    assert settings_of(Profile("p", 1, {"n_runs": 3}), _Settings).n_runs == 3
    with pytest.raises(ValueError, match="unknown setting.*'n_run'.*known settings: n_runs, sources"):
        settings_of(Profile("p", 1, {"n_run": 3}), _Settings)
    with pytest.raises(ValueError, match="study 'x', profile 'smoke'.*'nruns'"):
        Study(
            "x",
            "x",
            conditions=[1],
            replicate=lambda c, r: {},
            settings=_Settings,
            profiles={"smoke": Profile("smoke", 1, {"nruns": 2})},
        )


def test_intervals():
    lo, hi = clopper_pearson(3, 10)
    assert lo == pytest.approx(stats.beta.ppf(0.025, 3, 8)) and hi == pytest.approx(stats.beta.ppf(0.975, 4, 7))
    m, lo, hi = wilson(0, 20)
    assert m == 0 and lo == 0 and 0 < hi < 0.2
    m, lo, hi = mean_interval(np.array([1.0, 2.0, 3.0]))
    assert m == 2 and hi - m == pytest.approx(stats.t.ppf(0.975, 2) / np.sqrt(3))
    assert normal_interval(0.5, np.nan, clip=(0.0, 1.0)) == (0.0, 1.0)
    lo, hi = normal_interval(pd.Series([0.5, 0.9]), pd.Series([0.1, 0.1]), clip=(0.0, 1.0))
    assert np.allclose(lo, [0.304, 0.704]) and np.allclose(hi, [0.696, 1.0])


def test_an_os_error_in_any_command_is_one_line_and_exit_2(monkeypatch, capsys):
    from simstudy import cli

    def boom(args):
        raise PermissionError(13, "Permission denied", "/results/x/comparison.md")

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    parser._subparsers._group_actions[0].choices["list"].set_defaults(func=boom)
    assert cli.main(["list"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["simstudy: error: Permission denied (/results/x/comparison.md)"]
