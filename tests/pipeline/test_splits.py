import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simstudy.pipeline.splits import folds, repeated_fold_ids, stratified_fold_ids


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=10, max_size=60), st.integers(2, 10), st.integers(0, 2**32 - 1))
def test_stratified_folds_cover_every_case_once_and_balance_classes(labels, n_folds, seed):
    y = np.array(labels)
    n_folds = min(n_folds, len(y))
    ids = stratified_fold_ids(y, n_folds, np.random.default_rng(seed))
    sizes = np.bincount(ids, minlength=n_folds)
    assert sizes.sum() == len(y) and sizes.max() - sizes.min() <= 1
    for label in np.unique(y):
        per_fold = np.bincount(ids[y == label], minlength=n_folds)
        assert per_fold.max() - per_fold.min() <= 1
    seen = np.concatenate([test for _, test in folds(ids)])
    assert np.array_equal(np.sort(seen), np.arange(len(y)))
    for train, test in folds(ids):
        assert np.intersect1d(train, test).size == 0


def test_berrar_cv_folds_have_exactly_100_cases_and_50_positives():
    y = np.repeat([1, 0], 500)
    ids = stratified_fold_ids(y, 10, np.random.default_rng(1))
    assert np.all(np.bincount(ids) == 100)
    assert np.all(np.bincount(ids[y == 1]) == 50)


def test_repeated_runs_are_different_partitions():
    ids = repeated_fold_ids(np.repeat([0, 1], 50), 3, 10, np.random.default_rng(2))
    assert ids.shape == (3, 100)
    assert not np.array_equal(ids[0], ids[1])


def test_more_folds_than_cases_is_refused():
    with pytest.raises(ValueError, match="n_folds"):
        stratified_fold_ids(np.arange(5) % 2, 6, 0)


@pytest.mark.parametrize(
    "labels,k",
    [
        (np.r_[np.zeros(13, int), np.ones(17, int)], 10),
        (np.random.default_rng(1).integers(0, 4, 97), 5),
        (np.array(list("abcab" * 4)), 2),
    ],
)
def test_repeated_runs_are_the_single_partitions_drawn_in_turn(labels, k):
    """One generator, run after run: the same draws as stratified_fold_ids called repeatedly."""
    ids = repeated_fold_ids(labels, 6, k, np.random.default_rng(3))
    rng = np.random.default_rng(3)
    np.testing.assert_array_equal(ids, np.stack([stratified_fold_ids(labels, k, rng) for _ in range(6)]))
