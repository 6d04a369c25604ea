"""Resampling designs: which cases train and which test, drawn from ``(y, rng)``.

A design is a small frozen object.  It draws the partitions of one experiment
from the class labels and a random generator, and it knows the training and
test sizes that the variance-corrected tests need.  Splitting is separate from
fitting and testing: a study draws the folds once, every learner is fitted on
them (:mod:`simstudy.scores`), and every test sees the same fits.

Every design describes its splits as *fold ids*, an integer array of shape
``(n_runs, n)``: in run ``r``, case ``i`` is held out in fold ``ids[r, i]`` and
used for training in every other fold of that run; ``-1`` marks a case that is
always training (a train/test split is one run with its test cases in fold 0).
:func:`simstudy.scores.cv_accuracies` turns fold ids into per-fold accuracies.

Designs
-------
:class:`RepeatedKFold`
    ``n_runs`` independent stratified ``n_folds``-fold partitions (Bouckaert's
    r x k cv; Dietterich's 5 x 2 cv is ``RepeatedKFold(5, 2)``).
:class:`Subsample`
    ``n_splits`` random stratified train/test splits with a test share
    (Nadeau and Bengio's resampled design).
:class:`Bootstrap`
    A bootstrap sample of the cases (Berrar's Algorithm 1), as indices: a
    bootstrap sample repeats cases, so it has no fold ids.

The random draws are those the studies have always made, in the same order, so
stored replications are reproduced exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import check_positive
from .splits import repeated_fold_ids

__all__ = ["Design", "RepeatedKFold", "Subsample", "Bootstrap", "FIVE_BY_TWO"]


def _labels(y) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y: expected a 1-d array of class labels, got shape {y.shape}")
    return y


class Design:
    """Base of the designs that can be written as fold ids (see the module docstring)."""

    def fold_ids(self, y, rng) -> np.ndarray:  # pragma: no cover - interface
        """Fold id of every case in every run: shape ``(n_runs, n)``, -1 = always training."""
        raise NotImplementedError

    def sizes(self, y) -> tuple[int, int]:  # pragma: no cover - interface
        """``(n_train, n_test)`` of one split, for the variance-corrected tests."""
        raise NotImplementedError


@dataclass(frozen=True)
class RepeatedKFold(Design):
    """``n_runs`` independent stratified ``n_folds``-fold partitions.

    Cases of each class are shuffled and dealt to the folds in turn
    (:func:`simstudy.splits.stratified_fold_ids`), a new partition per run.

    Parameters
    ----------
    n_runs : int
        Number of partitions (>= 1).
    n_folds : int
        Folds per partition (>= 2, at most the number of cases).
    """

    n_runs: int
    n_folds: int

    def __post_init__(self):
        check_positive(self.n_runs, "n_runs", integer=True)
        check_positive(self.n_folds, "n_folds", integer=True)
        if self.n_folds < 2:
            raise ValueError(f"n_folds: must be >= 2, got {self.n_folds}")

    def fold_ids(self, y, rng) -> np.ndarray:
        """Stratified fold of every case in every run.

        Parameters
        ----------
        y : array_like, shape (n,)
            Class labels (the folds keep their proportions).
        rng : numpy.random.Generator
            The replication's generator.

        Returns
        -------
        ndarray of int, shape (n_runs, n)
            Fold id 0..n_folds-1 of every case in every run.
        """
        return repeated_fold_ids(_labels(y), self.n_runs, self.n_folds, rng)

    def sizes(self, y) -> tuple[int, int]:
        """``(n - n // k, n // k)``: the test size is the smaller fold size, ``n // k``.

        With ``n`` divisible by ``k`` every fold has that size; otherwise some
        folds hold one case more, and the ratio n_test / n_train that the
        corrected tests use is taken from the smaller folds.
        """
        n = _labels(y).shape[0] if np.ndim(y) else int(y)
        return n - n // self.n_folds, n // self.n_folds


FIVE_BY_TWO = RepeatedKFold(5, 2)


@dataclass(frozen=True)
class Subsample(Design):
    """``n_splits`` random stratified splits into a training and a test part.

    Each class contributes ``max(1, round(test_share * n_class))`` cases to the
    test part, drawn without replacement; the rest train.

    Parameters
    ----------
    n_splits : int
        Number of independent splits (>= 1).
    test_share : float
        Share of each class held out for testing, in (0, 1).
    """

    n_splits: int
    test_share: float = 0.1

    def __post_init__(self):
        check_positive(self.n_splits, "n_splits", integer=True)
        if not (isinstance(self.test_share, (int, float)) and 0.0 < self.test_share < 1.0):
            raise ValueError(f"test_share: must lie strictly between 0 and 1, got {self.test_share!r}")

    def split(self, y, rng) -> tuple[np.ndarray, np.ndarray]:
        """One split: sorted ``(train, test)`` indices."""
        y = _labels(y)
        test = self._test_cases(self._classes(y), rng)
        train = np.ones(y.size, dtype=bool)
        train[test] = False
        return np.flatnonzero(train), test

    def splits(self, y, rng) -> list[tuple[np.ndarray, np.ndarray]]:
        """All ``n_splits`` splits, drawn in order."""
        return [self.split(y, rng) for _ in range(self.n_splits)]

    def _classes(self, y) -> list[tuple[np.ndarray, int]]:
        """Each class's cases (in the order of the sorted labels) and how many of them a split holds out."""
        out = []
        for label in np.unique(y):
            idx = np.flatnonzero(y == label)
            out.append((idx, max(1, int(round(self.test_share * idx.size)))))
        return out

    @staticmethod
    def _test_cases(classes, rng) -> np.ndarray:
        """The sorted test cases of one split: each class's share drawn without replacement, class by class."""
        return np.sort(np.concatenate([rng.choice(idx, size=k, replace=False) for idx, k in classes]))

    def fold_ids(self, y, rng) -> np.ndarray:
        """Each random split as one run with its test cases in fold 0.

        Parameters
        ----------
        y : array_like, shape (n,)
            Class labels.
        rng : numpy.random.Generator
            The replication's generator.

        Returns
        -------
        ndarray of int, shape (n_splits, n)
            0 for the test cases of each split, -1 for its training cases.
        """
        y = _labels(y)
        ids = np.full((self.n_splits, y.size), -1, dtype=np.int64)
        classes = self._classes(y)
        for r in range(self.n_splits):
            ids[r, self._test_cases(classes, rng)] = 0
        return ids

    def sizes(self, y) -> tuple[int, int]:
        """Training and test size of every split (the same for all: each class rounds alike)."""
        y = _labels(y)
        n_test = sum(max(1, int(round(self.test_share * int((y == c).sum())))) for c in np.unique(y))
        return y.size - n_test, n_test


@dataclass(frozen=True)
class Bootstrap:
    """A bootstrap sample of ``n`` cases drawn with replacement from ``n``.

    Parameters
    ----------
    min_classes : int
        A sample with fewer distinct classes is drawn again (default 2, so a
        classifier can be fitted on it).
    """

    min_classes: int = 2

    def __post_init__(self):
        check_positive(self.min_classes, "min_classes", integer=True)

    def indices(self, y, rng) -> np.ndarray:
        """Indices of one bootstrap sample of ``y``."""
        y = _labels(y)
        if np.unique(y).size < self.min_classes:
            raise ValueError(f"y: has {np.unique(y).size} classes, a bootstrap sample needs {self.min_classes}")
        while True:
            idx = rng.integers(0, y.shape[0], y.shape[0])
            if np.unique(y[idx]).size >= self.min_classes:
                return idx
