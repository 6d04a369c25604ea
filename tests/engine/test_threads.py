"""Runs in this process hold their kernels to one thread, and the number of threads never changes a result."""

import numpy as np
from threadpoolctl import threadpool_info

from simstudy.engine.threads import one_thread_per_kernel
from simstudy.pipeline.learners.rdefaults import E1071SVC, RandomForestR


def _threads():
    return {(pool["internal_api"], pool["filepath"]): pool["num_threads"] for pool in threadpool_info()}


def test_one_thread_inside_and_restored_after():
    before = _threads()
    with one_thread_per_kernel():
        assert set(_threads().values()) <= {1}
    assert _threads() == before


def test_restored_after_an_error():
    before = _threads()
    try:
        with one_thread_per_kernel():
            raise RuntimeError("a replication failed")
    except RuntimeError:
        pass
    assert _threads() == before


def test_same_fits_with_one_thread_or_many():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 6))
    y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
    Xt = rng.normal(size=(200, 6))
    free = [
        E1071SVC().fit(X, y).predict(Xt),
        RandomForestR(n_estimators=50, random_state=7).fit(X, y).predict(Xt),
    ]
    with one_thread_per_kernel():
        held = [
            E1071SVC().fit(X, y).predict(Xt),
            RandomForestR(n_estimators=50, random_state=7).fit(X, y).predict(Xt),
        ]
    for a, b in zip(free, held):
        np.testing.assert_array_equal(a, b)
