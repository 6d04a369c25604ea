"""Size verdicts: imprecision never passes a test, a test rejecting 20% never controls size, calibrated levels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simstudy.statistics.size_control import (
    CONTROLS,
    LIBERAL,
    UNRESOLVED,
    SizeRule,
    critical_value,
    judge_scenarios,
    procedure_verdict,
    rate_intervals,
)


@given(
    low=st.floats(0, 1),
    width=st.floats(0, 1),
    wider_low=st.floats(0, 1),
    wider_high=st.floats(0, 1),
    tolerance=st.sampled_from([None, 0.05, 0.06, 0.1]),
)
def test_widening_an_interval_never_makes_a_test_control_size(low, width, wider_low, wider_high, tolerance):
    rule = SizeRule(alpha=0.05, tolerance=tolerance)
    high = min(1.0, low + width)
    lo2, hi2 = low * wider_low, high + (1 - high) * wider_high  # contains [low, high]
    if rule.verdict(lo2, hi2) == CONTROLS:
        assert rule.verdict(low, high) == CONTROLS
    # a wider interval is "liberal" only where the narrower one already decided (liberal, or within the tolerance)
    if rule.verdict(lo2, hi2) == LIBERAL:
        assert rule.verdict(low, high) != UNRESOLVED


def test_the_verdicts_of_the_reported_cases():
    rule = SizeRule()
    assert rule.bound == pytest.approx(0.075)
    # the corrected 10x10 cv t on the quick profile: 6.35% [4.4, 8.3] passed the old rule and ranked first
    assert rule.verdict(0.044, 0.083) == UNRESOLVED
    # the 5x2cv t, 6.7% [5.5, 7.9], and the corrected resampled t, 6.65% [5.4, 7.9]: shown above alpha
    assert rule.verdict(0.055, 0.079) == LIBERAL and rule.verdict(0.054, 0.079) == LIBERAL
    # a smoke-profile 50% [0, 100] is no verdict at all
    assert rule.verdict(0.0, 1.0) == UNRESOLVED
    # within the tolerance although above alpha: controls size (the tables flag it as above alpha)
    assert rule.verdict(0.052, 0.07) == CONTROLS
    strict = SizeRule(tolerance=0.05)
    assert strict.verdict(0.052, 0.07) == LIBERAL and strict.verdict(0.03, 0.049) == CONTROLS
    with pytest.raises(ValueError, match="^tolerance: "):
        SizeRule(tolerance=0.01)


def test_more_scenarios_judged_never_pass_more():
    rng = np.random.default_rng(3)
    shares = rng.binomial(10, 0.06, size=(6, 300)) / 10
    scen = np.repeat(np.arange(6), 300)
    rule = SizeRule()
    few = judge_scenarios(shares.ravel(), scen, rule, n_repeats=10, m=6)
    many = judge_scenarios(shares.ravel(), scen, rule, n_repeats=10, m=60)
    assert (many["high"] >= few["high"] - 1e-12).all() and (many["low"] <= few["low"] + 1e-12).all()
    assert not ((many["verdict"] == CONTROLS) & (few["verdict"] != CONTROLS)).any()


# (null scenarios, data sets per scenario, repeats) of the proving ground's profiles, smoke to paper, and beyond
PROFILES = [(2, 3, 2), (14, 50, 4), (14, 200, 4), (30, 200, 10), (30, 1000, 10), (30, 5000, 10)]


@pytest.mark.parametrize("m, n, repeats", PROFILES)
def test_a_test_rejecting_20_percent_never_controls_size(m, n, repeats):
    rng = np.random.default_rng([m, n, repeats])
    rule = SizeRule()
    for _ in range(20):
        # repeats of a data set agree more often than chance: a data-set effect on top of the 20% rejection rate
        base = rng.uniform(size=(m, n, 1)) < 0.2
        flip = rng.uniform(size=(m, n, repeats)) < 0.3
        reject = np.where(flip, rng.uniform(size=(m, n, repeats)) < 0.2, base)
        shares = reject.mean(axis=2).ravel()
        table = judge_scenarios(shares, np.repeat(np.arange(m), n), rule, n_repeats=repeats)
        assert (table["verdict"] != CONTROLS).all()
        assert procedure_verdict(table)["verdict"] in (LIBERAL, UNRESOLVED)


def test_no_rejection_on_few_data_sets_is_not_a_verdict():
    t = rate_intervals(np.zeros(3), n_repeats=10).iloc[0]
    assert t["rate"] == 0 and t["low"] == 0 and t["high"] > 0.5  # three data sets count as three, not thirty
    t = rate_intervals(np.zeros(200), n_repeats=10).iloc[0]
    assert t["high"] < 0.02


def test_the_interval_covers_the_truth_with_correlated_repeats():
    rng = np.random.default_rng(11)
    covered, trials = 0, 300
    for _ in range(trials):
        p_set = rng.beta(0.5, 9.5, size=100)  # data sets differ; mean 5%
        shares = rng.binomial(10, p_set) / 10
        t = rate_intervals(shares, n_repeats=10).iloc[0]
        covered += t["low"] <= 0.05 <= t["high"]
    assert covered / trials >= 0.92


def test_procedure_verdict_is_decided_by_its_worst_scenario():
    rule = SizeRule()
    rng = np.random.default_rng(5)
    shares = np.concatenate([rng.binomial(10, 0.03, 400) / 10, rng.binomial(10, 0.2, 400) / 10])
    table = judge_scenarios(shares, np.repeat(["calm", "wild"], 400), rule, n_repeats=10)
    v = procedure_verdict(table)
    assert v["verdict"] == LIBERAL and v["scenario"] == "wild" and v["n"] == 400
    calm = procedure_verdict(table[table["scenario"] == "calm"])
    assert calm["verdict"] == CONTROLS


def test_critical_value_rejects_at_most_the_target_share():
    p = np.linspace(0.001, 1, 1000)
    q = critical_value(p, 0.05)
    assert (p < q).mean() <= 0.05 and (p <= q).mean() > 0.05
    # ties and undefined p-values
    p = np.array([0.01] * 10 + [0.5] * 29 + [np.nan])
    assert (p < critical_value(p, 0.05)).mean() <= 0.05
    assert critical_value([np.nan, np.nan], 0.05) == np.inf


def test_a_rescaled_statistic_has_the_same_size_adjusted_decisions():
    from scipy import stats

    rng = np.random.default_rng(2)
    t_null, t_alt = rng.standard_t(9, size=2000) * 1.4, rng.standard_t(9, size=2000) * 1.4 + 2
    p_raw = lambda t: 2 * stats.t.sf(np.abs(t), 9)  # noqa: E731
    p_corr = lambda t: 2 * stats.t.sf(np.abs(t) / 1.7, 9)  # the same statistic, divided by a constant # noqa: E731
    q_raw, q_corr = critical_value(p_raw(t_null), 0.05), critical_value(p_corr(t_null), 0.05)
    assert ((p_raw(t_alt) < q_raw) == (p_corr(t_alt) < q_corr)).all()
