import numpy as np
import pandas as pd
import pytest
from scipy import stats

from simstudy.outputs.tables import Published, compare, comparison_markdown
from simstudy.statistics.replication_summary import ModelSpec, empirical_interval, mad_interval, replication_table


class _Res:
    def __init__(self, est):
        self.estimate = np.asarray(est, dtype=float)
        self.low = self.estimate / 2
        self.high = (1 + self.estimate) / 2


def _norm_model(z):
    return _Res(stats.norm.sf(1.96 - np.asarray(z, dtype=float)))


def test_empirical_F_follows_definition_2():
    # Berrar, Sect. 3.1.1: 537 of 1000 significant -> F = 536/999 = 0.5365; 778 -> 0.778
    f, lo, hi = empirical_interval(537, 1000)
    assert f == pytest.approx(0.5365, abs=5e-5) and lo < f < hi
    assert empirical_interval(778, 1000)[0] == pytest.approx(0.778, abs=5e-4)
    assert empirical_interval(0, 10)[0] == 0.0  # no significant replication: F is 0, not negative


def test_replication_table_counts_only_the_initial_direction():
    rng = np.random.default_rng(0)
    z = rng.normal(2.0, 1.0, 400)
    dec = np.where(np.abs(z) > 1.96, np.sign(z), 0).astype(int)
    df = pd.DataFrame({"g": np.repeat([1, 2], 200), "statistic": z, "decision": dec})
    t = replication_table(df, by=["g"], models=[ModelSpec("w", _norm_model, lambda s: 2 * stats.norm.sf(np.abs(s)))])
    assert list(t["g"]) == [1, 2] and list(t["k"]) == [200, 200]
    s1 = int((dec[:200] == 1).sum())
    assert t.loc[0, "n_significant"] == s1
    assert t.loc[0, "F"] == pytest.approx((s1 - 1) / 199)
    assert t.loc[0, "mean_statistic_mc_low"] < t.loc[0, "mean_statistic"] < t.loc[0, "mean_statistic_mc_high"]
    assert t.loc[0, "w_P_mc_low"] <= t.loc[0, "w_P"] <= t.loc[0, "w_P_mc_high"]
    assert t.loc[0, "w_p_mc_low"] <= t.loc[0, "w_p"] <= t.loc[0, "w_p_mc_high"]


def test_mad_interval_contains_its_estimate():
    rng = np.random.default_rng(1)
    groups = []
    for mu in (1.5, 2.5, 3.5):
        z = rng.normal(mu, 1.0, 300)
        groups.append((z, np.where(z > 1.96, 1, 0)))
    mad, lo, hi, dev = mad_interval(groups, lambda m, j: _norm_model(m).estimate, n_boot=200, rng=2)
    assert dev.shape == (3,) and mad == pytest.approx(dev.mean())
    assert lo <= mad <= hi or abs(mad - lo) < 0.02


def test_compare_looks_up_values_and_reports_missing_groups():
    table = pd.DataFrame({"g": [3, 7], "F": [0.5, 0.95], "F_mc_low": [0.4, 0.9], "F_mc_high": [0.6, 0.99]})
    pub = [
        Published("g3 F", "t", "F", 0.5365, (("g", 3),)),
        Published("g7 F", "t", "F", 0.80, (("g", 7),)),
        Published("g9 F", "t", "F", 0.99, (("g", 9),)),
    ]
    cmp = compare({"t": table}, pub)
    assert list(cmp["published_inside"]) == [True, False, None]
    assert np.isnan(cmp.loc[2, "ours"])
    text = comparison_markdown("demo", cmp)
    assert "3 distinct published values: 1 inside, 1 outside, not investigated, 1 not computed" in text


def test_p_w_interval_spans_the_intervals_of_the_mean_z_and_of_s_star():
    from simstudy.protocols.berrar import _widen_by_s_star
    from simstudy.statistics.replication import wilcoxon_model

    t = pd.DataFrame(
        {
            "wilcoxon_P": [0.74],
            "mean_statistic_mc_low": [2.40],
            "mean_statistic_mc_high": [2.48],
            "s_star_mc_low": [0.68],
            "s_star_mc_high": [0.80],
        }
    )
    _widen_by_s_star(t)
    corners = [wilcoxon_model(z, s).estimate for z in (2.40, 2.48) for s in (0.68, 0.80)]
    assert t["wilcoxon_P_mc_low"][0] == pytest.approx(min(corners))
    assert t["wilcoxon_P_mc_high"][0] == pytest.approx(max(corners))
    # wider than the mean Z_w's interval alone at the point estimate of s*
    alone = [wilcoxon_model(z, 0.74).estimate for z in (2.40, 2.48)]
    assert t["wilcoxon_P_mc_low"][0] < min(alone) and t["wilcoxon_P_mc_high"][0] > max(alone)
