"""The diagnostics that explain a liberal verdict, on scores whose correlations are known by construction."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simstudy.apps.proving.diagnostics import corrected_with_measured_factor, explain, sample_factors, split_diagnostics


def _frame(d, n01=None, n10=None, n_train=90, n_test=10, design="cv5x4", condition="world"):
    S, E, R, K = d.shape
    grid = np.meshgrid(np.arange(S), np.arange(E), np.arange(R), np.arange(K), indexing="ij")
    acc_b = np.full(d.shape, 0.7)
    out = pd.DataFrame(
        {
            "condition": condition,
            "replication": grid[0].ravel(),
            "design": design,
            "experiment": grid[1].ravel(),
            "run": grid[2].ravel(),
            "fold": grid[3].ravel(),
            "acc_a": (acc_b + d).ravel(),
            "acc_b": acc_b.ravel(),
            "n_train": n_train,
            "n_test": n_test,
        }
    )
    if n01 is not None:
        out["n01"], out["n10"] = n01.ravel(), n10.ravel()
    return out


def test_correlations_and_the_needed_factor_of_a_known_structure():
    # a data-set effect (variance 0.3), a run effect (0.2) and split noise (0.5): correlation 0.3 between runs,
    # 0.5 within a run, and the factor the mean of 5 x 4 differences needs is (1/m + (m-1)/m c) / (1 - c)
    rng = np.random.default_rng(0)
    S, E, R, K = 3000, 2, 5, 4
    d = (
        np.sqrt(0.3) * rng.standard_normal((S, 1, 1, 1))
        + np.sqrt(0.2) * rng.standard_normal((S, E, R, 1))
        + np.sqrt(0.5) * rng.standard_normal((S, E, R, K))
    ) * 0.01
    diag = split_diagnostics(_frame(d), n_boot=100).iloc[0]
    assert abs(diag["rho_between"] - 0.3) < 0.03 and abs(diag["rho_within"] - 0.5) < 0.03
    assert diag["rho_between_low"] < 0.3 < diag["rho_between_high"]
    m = R * K
    c_bar = ((K - 1) * 0.5 + (R - 1) * K * 0.3) / (m - 1)
    expected = (1 / m + (m - 1) / m * c_bar) / (1 - c_bar)
    assert abs(diag["factor_needed"] - expected) < 0.05 * expected
    assert diag["factor_needed_low"] < expected < diag["factor_needed_high"]
    assert np.isclose(diag["factor_corrected"], 1 / m + 10 / 90) and np.isclose(diag["factor_independent"], 1 / m)
    schemes = sample_factors(_frame(d), n_boot=0).set_index("scheme")
    assert np.isclose(schemes.loc["", "factor_needed"], diag["factor_needed"])
    assert schemes.loc["kfold_cv", "m"] == K and schemes.loc["average_over_sorted_runs", "m"] == K


def test_training_set_share_from_the_discordant_cases():
    # a split's difference: the gap of the two models (sd 0.03 over training sets) plus the noise of 30 test
    # cases, each a win (+1), loss (-1) or tie of A, discordant with probability 0.2
    rng = np.random.default_rng(1)
    S, E, R, K, n2, q, tau = 2000, 2, 4, 1, 30, 0.2, 0.03
    gap = tau * rng.standard_normal((S, E, R, K))
    win = rng.binomial(n2, q / 2 + gap / 2)
    loss = rng.binomial(n2 - win, (q / 2 - gap / 2) / (1 - q / 2 - gap / 2))
    d = (win - loss) / n2
    diag = split_diagnostics(
        _frame(d, n01=loss, n10=win, n_test=n2, n_train=270, design="resampled4"), n_boot=100
    ).iloc[0]
    expected = tau**2 / (tau**2 + q / n2)
    assert abs(diag["train_share"] - expected) < 0.05
    assert np.isnan(diag["rho_within"])


def test_a_measured_factor_brings_the_type_one_error_back():
    # 90/10 differences that correlate by 0.3, not the 0.1 the corrected test assumes
    rng = np.random.default_rng(2)
    S, E, R = 600, 4, 10
    d = (np.sqrt(0.3) * rng.standard_normal((S, E, 1, 1)) + np.sqrt(0.7) * rng.standard_normal((S, E, R, 1))) * 0.02
    frame = _frame(d, design="resampled10")
    diag = split_diagnostics(frame, n_boot=50).iloc[0]
    assert diag["factor_needed_low"] > diag["factor_corrected"]
    fixed = corrected_with_measured_factor(frame, ["world"]).iloc[0]
    assert fixed["type1_low"] <= 5 <= fixed["type1_high"] + 1.0
    text = explain(
        {"design": "resampled10", "scheme": "", "test": "corrected_resampled_t"},
        diag,
        {
            "factor_needed": diag["factor_needed"],
            "factor_needed_low": diag["factor_needed_low"],
            "factor_needed_high": diag["factor_needed_high"],
            "factor_independent": 0.1,
        },
    )
    assert text.startswith("explained") and "n_test/n" in text
    assert explain({"design": "x", "scheme": "", "test": "plugin"}, None, None).startswith("not explained")
