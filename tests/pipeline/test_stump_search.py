"""DecisionStump's split search over all candidates at once picks what the attribute-by-attribute search picks."""

from __future__ import annotations

import numpy as np
import pytest

from simstudy.pipeline.learners._stump import stump_search
from simstudy.pipeline.learners.weka import DecisionStump, _cond_entropy


def _one_by_one(X, onehot, nominal_mask, n_categories):
    """The search attribute by attribute, one entropy evaluation per attribute (the reference)."""
    c = onehot.shape[1]
    best = None
    for j in range(X.shape[1]):
        col = X[:, j]
        miss = np.isnan(col)
        mdist = onehot[miss].sum(axis=0)
        if nominal_mask[j]:
            counts = np.zeros((n_categories[j], c))
            np.add.at(counts, col[~miss].astype(int), onehot[~miss])
            tot = counts.sum(axis=0)
            tables = np.stack([counts, tot - counts, np.broadcast_to(mdist, counts.shape)], axis=1)
            ent = _cond_entropy(tables)
            i = int(np.argmin(ent))
            val, split, dist = ent[i], float(i), tables[i].copy()
        else:
            order = np.argsort(col[~miss], kind="stable")
            v, oh = col[~miss][order], onehot[~miss][order]
            tot = oh.sum(axis=0)
            ok = v[:-1] < v[1:]
            if not ok.any():
                val, split, dist = np.inf, 0.0, np.stack([np.zeros(c), tot, mdist])
            else:
                left = np.cumsum(oh, axis=0)[:-1]
                tables = np.stack([left, tot - left, np.broadcast_to(mdist, left.shape)], axis=1)[ok]
                ent = _cond_entropy(tables)
                i = int(np.argmin(ent))
                val, split, dist = ent[i], float(((v[:-1] + v[1:]) / 2.0)[ok][i]), tables[i].copy()
        if not miss.any():
            dist[2] = dist[0] + dist[1]
        if best is None or val < best[0]:
            best = (val, j, split, dist)
    return best[1], best[2], best[3]


def _data(rng):
    n, p, c = int(rng.integers(1, 60)), int(rng.integers(1, 8)), int(rng.integers(2, 5))
    nominal = rng.random(p) < 0.5
    X = np.empty((n, p))
    for j in range(p):
        X[:, j] = (
            rng.integers(0, int(rng.integers(1, 5)), n)
            if nominal[j]
            else np.round(rng.normal(size=n), int(rng.integers(0, 3)))
        )  # rounding makes ties
        if rng.random() < 0.3:
            X[rng.random(n) < 0.2, j] = np.nan
        if rng.random() < 0.1:
            X[:, j] = 0.0  # constant
    y = rng.integers(0, c, n)
    return X, y, nominal, c


@pytest.mark.parametrize("seed", range(4))
def test_batched_search_equals_one_by_one(seed):
    rng = np.random.default_rng(seed)
    for trial in range(250):
        X, y, nominal, c = _data(rng)
        stump = DecisionStump(nominal=nominal, n_classes=c)
        Xp, _ = stump._prepare(X, y.astype(float))
        onehot = np.eye(c)[y]
        got = stump_search(Xp, onehot, stump.nominal_mask_, stump.n_categories_, _cond_entropy)
        want = _one_by_one(Xp, onehot, stump.nominal_mask_, stump.n_categories_)
        assert got[0] == want[0] and got[1] == want[1], f"seed {seed}, trial {trial}"
        assert np.array_equal(got[2], want[2]), f"seed {seed}, trial {trial}"


def test_no_attributes():
    assert (
        stump_search(np.zeros((5, 0)), np.eye(2)[[0, 1, 0, 1, 1]], np.zeros(0, bool), np.zeros(0, int), _cond_entropy)
        is None
    )
    m = DecisionStump().fit(np.zeros((5, 0)), np.array([0, 1, 0, 1, 1]))
    assert m.attribute_ == -1 and np.allclose(m.predict_proba(np.zeros((2, 0))), [[0.4, 0.6], [0.4, 0.6]])
