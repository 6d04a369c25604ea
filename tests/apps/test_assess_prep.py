"""simstudy assess: the replication probability beside a count-based test follows that test's tie convention."""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
import pytest

from simstudy.apps.assess.tables import _count_replication, _replication_estimate
from simstudy.pipeline.outcomes import get_test, run_test
from simstudy.pipeline.scores import PairedScores
from simstudy.statistics import replication as rp

ALPHA = 0.05
HALF = "binomial (a tie counts half)"
NOT_WINS = "binomial (ties are not wins)"


def _upper(s, n, theta):
    """P(K >= s) for K ~ Bin(n, theta), summed directly."""
    return sum(comb(n, i) * theta**i * (1 - theta) ** (n - i) for i in range(s, n + 1))


def _block(diffs):
    """The stored score rows of one repeat of a 1 x n design whose differences A - B are ``diffs``."""
    d = np.asarray(diffs, dtype=int)
    return pd.DataFrame({"run": 0, "fold": np.arange(d.size), "acc_a": 50 + d, "acc_b": np.full(d.size, 50)})


def _prep(test, diffs):
    """(model, P_rep, low, high) as the assessment table gets them, and the p of the test beside them."""
    block = _block(diffs)
    row = {"n_train": 90, "n_test": 10}
    scores = PairedScores(block["acc_a"].to_numpy(float)[None], block["acc_b"].to_numpy(float)[None], 90, 10)
    p = float(run_test(test, scores).pvalue)
    return _replication_estimate(test, block, row, ALPHA, ""), p


LOSSES_AND_TIES = [-1] * 6 + [0] * 4


def test_six_losses_and_four_ties_count_the_ties_as_half_wins():
    (model, p_rep, lo, hi), p = _prep("sign", LOSSES_AND_TIES)
    assert p == pytest.approx(0.109375)
    # B's count 6 + 4/2 = 8 of 10; the sign test needs 9 of 10 for B: P(Bin(10, 0.8) >= 9), not 1.00
    assert model == HALF
    assert p_rep == pytest.approx(_upper(9, 10, 0.8), rel=1e-12)
    assert p_rep == pytest.approx(0.3758, abs=1e-4) and lo < p_rep < hi < 1
    # the printed rule: B's threshold is the exact one; with B as the first learner it is one win lower
    assert _prep("sign_cdf", LOSSES_AND_TIES)[0][1] == pytest.approx(p_rep, rel=1e-12)
    (model, p_rep_rev, _, _), p_rev = _prep("sign_cdf_reversed", LOSSES_AND_TIES)
    assert p_rev == pytest.approx(0.021484375) and p_rep_rev == pytest.approx(_upper(8, 10, 0.8), rel=1e-12)


def test_all_ties():
    ties = [0] * 10
    (model, p_rep, lo, hi), p = _prep("sign", ties)
    assert model == HALF and p == 1.0
    assert p_rep == pytest.approx(_upper(9, 10, 0.5), rel=1e-12)  # theta = 1/2: 11/1024
    assert 0 < lo < p_rep < hi < 0.5
    # binomial: 0 positives of 10, so B better (p = 2/1024) and every replication of theta = 1 says so again
    (model, p_rep, lo, hi), p = _prep("binomial", ties)
    assert model == NOT_WINS and p == pytest.approx(2 / 1024) and p_rep == 1.0 and hi == 1.0


def test_binomial_counts_positive_differences_among_all():
    diffs = [1] * 7 + [0] * 3
    (model, p_rep, _, _), p = _prep("binomial", diffs)
    assert model == NOT_WINS and p == pytest.approx(0.34375)
    assert p_rep == pytest.approx(_upper(9, 10, 0.7), rel=1e-12)  # 7 of 10, not 7 of 7 (which gave 1.00)
    (model, p_rep, _, _), p = _prep("sign", diffs)
    assert model == HALF and p_rep == pytest.approx(_upper(9, 10, 0.85), rel=1e-12)  # 8.5 of 10


@pytest.mark.parametrize("wins, losses", [(8, 2), (2, 8), (29, 15), (10, 0), (3, 2), (5, 5)])
@pytest.mark.parametrize("test", ["sign", "binomial"])
def test_without_ties_the_numbers_are_berrars_binomial_model(test, wins, losses):
    diffs = [3] * wins + [-2] * losses
    (model, p_rep, lo, hi), _ = _prep(test, diffs)
    est = rp.binomial_model(max(wins, losses), wins + losses, alpha=ALPHA)
    assert (p_rep, lo, hi) == (est.estimate, est.low, est.high)
    assert model == (HALF if test == "sign" else NOT_WINS)


def test_the_printed_sign_rule_uses_its_own_threshold():
    # 8 of 10 is "A better" under the printed rule (p = 2 P(K >= 9) = 0.0215): a replication needs 8, not 9
    (_, p_rep, _, _), p = _prep("sign_cdf", [1] * 8 + [-1] * 2)
    assert p <= ALPHA and p_rep == pytest.approx(_upper(8, 10, 0.8), rel=1e-12)


@pytest.mark.parametrize("test", ["sign", "sign_cdf", "sign_cdf_reversed", "binomial"])
def test_p_rep_agrees_with_the_p_beside_it(test):
    spec = get_test(test)
    for n in range(1, 15):
        for pos in range(n + 1):
            for ties in range(n - pos + 1):
                x = np.array([1.0] * pos + [0.0] * ties + [-1.0] * (n - pos - ties))
                p = float(spec(x).pvalue)
                p_rep = _count_replication(spec, x, ALPHA)[1]
                if p <= ALPHA / 5:
                    assert p_rep >= 0.5, (n, pos, ties, p, p_rep)
                if p >= 0.5:
                    assert p_rep <= 0.3, (n, pos, ties, p, p_rep)
