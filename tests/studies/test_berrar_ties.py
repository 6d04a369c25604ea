"""Berrar's success rate with tied data sets left out, computed from the stored wins and ties."""

import numpy as np
import pandas as pd
from scipy import stats

from simstudy.protocols.berrar import _ties_left_out
from simstudy.statistics.replication import binomial_model


def test_ties_left_out_rate_and_significance():
    rows = pd.DataFrame({"g": [3, 3, 3, 3], "wins": [15, 14, 14, 10], "ties": [0, 1, 2, 0]})
    t = _ties_left_out(rows, 20).set_index("g").loc[3]
    theta = np.array([15 / 20, 14 / 19, 14 / 18, 10 / 20])
    assert np.isclose(t["success_ties_left_out"], theta.mean())
    assert np.isclose(t["mean_ties"], 0.75)
    sig = [stats.binomtest(w, n).pvalue < 0.05 and w / n > 0.5 for w, n in [(15, 20), (14, 19), (14, 18), (10, 20)]]
    assert np.isclose(t["share_significant_ties_left_out"], np.mean(sig))
    lo, hi = t["share_significant_ties_left_out_mc_low"], t["share_significant_ties_left_out_mc_high"]
    assert lo <= t["share_significant_ties_left_out"] <= hi
    # the group-level p and P_b at the mean rate's wins of 20
    w = int(round(theta.mean() * 20))
    assert np.isclose(t["binomial_p_ties_left_out"], stats.binomtest(w, 20).pvalue)
    assert np.isclose(t["binomial_P_ties_left_out"], binomial_model(w, 20, alpha=0.05).estimate)
    assert (
        t["binomial_p_ties_left_out_mc_low"] <= t["binomial_p_ties_left_out"] <= t["binomial_p_ties_left_out_mc_high"]
    )


def test_without_ties_both_conventions_agree():
    rows = pd.DataFrame({"g": [1, 1, 2], "wins": [12, 16, 9], "ties": [0, 0, 0]})
    t = _ties_left_out(rows, 20).set_index("g")
    assert np.isclose(t.loc[1, "success_ties_left_out"], 0.7)
    assert np.isclose(t.loc[2, "success_ties_left_out"], 0.45)
    assert np.isnan(t.loc[2, "success_ties_left_out_mc_low"])  # one replication: no interval
