"""assess from numbers to a decision: the corrected tests' sizes, what baycomp is given, the Conclusion."""

from __future__ import annotations

import numpy as np
import pytest

from simstudy.apps.assess import assess, parse_designs

SMALL = dict(designs=("cv2x5",), n_repeats=2, evidence=None)


@pytest.fixture(scope="module")
def data():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return X[::4], y[::4]  # 143 cases: 5 folds of 28.6 on average


# -- the correction with the design's mean sizes (Nadeau and Bengio's n1 and n2) ---------------


def test_the_designs_carry_their_mean_training_and_test_sizes():
    y = np.repeat([0, 1], [89, 89])  # 178 cases, as the wine data: folds of 17 and 18
    cv, two, res = parse_designs(["cv10x10", "5x2cv", "resampled10"], y)
    assert (cv.n_train, cv.n_test) == pytest.approx((160.2, 17.8))
    assert cv.n_test / cv.n_train == pytest.approx(1 / 9)  # not 17/161, the smallest fold
    assert (two.n_train, two.n_test) == (89.0, 89.0)
    assert (res.n_train, res.n_test) == (160.0, 18.0)  # every resampled split has the same sizes


def test_corrected_p_uses_mean_sizes_and_is_larger_than_with_the_smallest_fold(tmp_path, data):
    from simstudy.statistics.significance import corrected_repeated_cv_t_test

    X, y = data
    a = assess(X, y, "NB", "C4.5", out=tmp_path / "c", **SMALL)
    d = a.designs[0]
    assert (d.n_train, d.n_test) == pytest.approx((143 - 28.6, 28.6))
    out = a.run.table("outcomes")
    s = a.scores("cv2x5")
    for repeat in range(2):
        diff = s[s["repeat"] == repeat][["NB", "C4.5"]].to_numpy(float)
        diff = (diff[:, 0] - diff[:, 1]).reshape(2, 5)
        stored = out[(out["test"] == "corrected_cv_t") & (out["replication"] == repeat)]["pvalue"].iloc[0]
        new = corrected_repeated_cv_t_test(diff, n_train=114.4, n_test=28.6).pvalue
        old = corrected_repeated_cv_t_test(diff, n_train=115, n_test=28).pvalue  # before: the smallest fold
        assert stored == pytest.approx(float(new), rel=1e-12)
        assert float(old) < float(new)  # the smaller fold's ratio 28/115 < 1/4 gave a liberal p


# -- what baycomp is given ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "design, runs",
    [("cv10x10", 10), ("cv1x10", 1), ("5x2cv", 5), ("resampled10", 1), ("resampled30-33", 10), ("resampled25", 1)],
)
def test_baycomp_runs_is_a_whole_divisor_nearest_to_the_test_share(design, runs):
    from simstudy.apps.assess import baycomp_runs

    (d,) = parse_designs([design], np.repeat([0, 1], [61, 62]))  # 123 cases: no share is exactly whole
    r = baycomp_runs(d)
    n = d.n_runs * d.n_folds
    assert isinstance(r, int) and r == runs and n % r == 0


def test_baycomp_accepts_what_to_baycomp_returns_for_every_design(tmp_path, data):
    baycomp = pytest.importorskip("baycomp")
    from simstudy.statistics.bayesian import correlated_t_test

    X, y = data
    a = assess(X, y, "NB", "C4.5", out=tmp_path / "b", designs=("cv2x5", "5x2cv", "resampled10"), n_repeats=2)
    for d in a.designs:
        x, y_, runs = a.to_baycomp(d.key)
        assert isinstance(runs, int)
        p = baycomp.two_on_single(x, y_, rope=0.01, runs=runs)  # refused a non-integer before
        assert len(p) == 3
        if d.design != "resampled":  # the same correlation as ours: the same probabilities
            ours = correlated_t_test(x - y_, n_train=d.n_train, n_test=d.n_test, rope=0.01)
            assert (ours.p_a_better, ours.p_rope, ours.p_b_better) == pytest.approx(p, abs=1e-9)
