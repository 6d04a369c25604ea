"""Resampling designs: which cases train and which test, drawn from ``(y, rng)``.

A design is a small frozen object.  It draws the partitions of one experiment
from the class labels and a random generator, and it knows the training and
test sizes that the variance-corrected tests need.  Splitting is separate from
fitting and testing: a study draws the folds once, every learner is fitted on
them (:mod:`simstudy.pipeline.scores`), and every test sees the same fits.

Every design describes its splits as *fold ids*, an integer array of shape
``(n_runs, n)``: in run ``r``, case ``i`` is held out in fold ``ids[r, i]`` and
used for training in every other fold of that run; ``-1`` marks a case that is
always training (a train/test split is one run with its test cases in fold 0).
:func:`simstudy.pipeline.scores.cv_accuracies` turns fold ids into per-fold accuracies.

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
from typing import Callable

import numpy as np

from simstudy._validation import check_positive
from simstudy.errors import InputError, option
from simstudy.pipeline.splits import repeated_fold_ids

__all__ = [
    "Design",
    "RepeatedKFold",
    "Subsample",
    "Bootstrap",
    "FIVE_BY_TWO",
    "DesignSpec",
    "DesignFamily",
    "register_design",
    "parse_design",
    "parse_designs",
    "is_design_name",
    "grammar",
    "KINDS",
    "TEST_SHARE",
]


def _labels(y) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1:
        raise InputError(f"y: expected a 1-d array of class labels, got shape {y.shape}")
    return y


class Design:
    """Base of the designs that can be written as fold ids (see the module docstring)."""

    def fold_ids(self, y, rng) -> np.ndarray:  # pragma: no cover - interface
        """Fold id of every case in every run: shape ``(n_runs, n)``, -1 = always training."""
        raise NotImplementedError

    def sizes(self, y) -> tuple[int, int]:  # pragma: no cover - interface
        """``(n_train, n_test)`` of one split, for the variance-corrected tests."""
        raise NotImplementedError

    def mean_sizes(self, y) -> tuple[float, float]:
        """``(n_train, n_test)`` averaged over the splits: Nadeau and Bengio's n1 and n2 of the design."""
        n_train, n_test = self.sizes(y)
        return float(n_train), float(n_test)


@dataclass(frozen=True)
class RepeatedKFold(Design):
    """``n_runs`` independent stratified ``n_folds``-fold partitions.

    Cases of each class are shuffled and dealt to the folds in turn
    (:func:`simstudy.pipeline.splits.stratified_fold_ids`), a new partition per run.

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
            raise InputError(f"n_folds: must be >= 2, got {self.n_folds}")

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

    def mean_sizes(self, y) -> tuple[float, float]:
        """``(n - n / k, n / k)``: every case is held out once per run, so a fold holds ``n / k`` cases on average.

        This is the ratio ``n_test / n_train = 1 / (k - 1)`` of Nadeau and
        Bengio's correction whatever ``n``; :meth:`sizes` takes the smaller
        folds instead, whose ratio is lower when ``k`` does not divide ``n``.
        """
        n = _labels(y).shape[0] if np.ndim(y) else int(y)
        return n - n / self.n_folds, n / self.n_folds


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
            raise InputError(f"test_share: must lie strictly between 0 and 1, got {self.test_share!r}")

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
            raise InputError(f"y: has {np.unique(y).size} classes, a bootstrap sample needs {self.min_classes}")
        while True:
            idx = rng.integers(0, y.shape[0], y.shape[0])
            if np.unique(y[idx]).size >= self.min_classes:
                return idx


# -- the design grammar ---------------------------------------------------------------------

#: The test share of Nadeau and Bengio's and Bouckaert and Frank's 90% / 10% subsamples.
TEST_SHARE = 0.1

#: What each kind of design can give a test (see :data:`simstudy.pipeline.outcomes.INPUTS`): an r x k cv
#: its scheme samples and its matrix, a 5 x 2 cv also Dietterich's input, random splits their differences,
#: a holdout (one split) only the paired scores of that split.
KINDS = {
    "cv": frozenset({"sample", "cv", "scores"}),
    "5x2": frozenset({"sample", "cv", "5x2", "scores"}),
    "resampled": frozenset({"sample", "splits", "scores"}),
    "holdout": frozenset({"scores"}),
}


@dataclass(frozen=True)
class DesignSpec:
    """A named design, as the command line and the studies write it.

    Attributes
    ----------
    key : str
        The name as written (``cv10x10``, ``5x2cv``, ``resampled10``, ``resampled30-33``, ``holdout33``).
    kind : str
        One of :data:`KINDS`: ``cv`` (r x k cv, whose differences the sampling
        schemes sample), ``5x2`` (Dietterich's 5 x 2 cv), ``resampled``
        (``n_runs`` random train/test splits) or ``holdout`` (one such split);
        it says which test inputs the design can feed (:attr:`inputs`).
    n_runs, n_folds : int
        Runs and folds per run (1 fold per split for the last two kinds).
    test_share : float
        Share of each class a split holds out (``resampled`` and ``holdout``).
    make_splitter : callable, optional
        ``make_splitter(spec)`` -> the object that draws the fold ids (with
        ``fold_ids(y, rng)``, ``sizes(y)`` and ``mean_sizes(y)``, as
        :class:`Design`); default the stratified design of the kind.  A design
        registered by a user (:func:`register_design`) brings its own.
    words : str
        The design in words, for pages (default from the kind).
    """

    key: str
    kind: str
    n_runs: int
    n_folds: int
    test_share: float = TEST_SHARE
    make_splitter: Callable | None = None
    words: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InputError(f"kind: design {self.key!r}: must be one of {', '.join(KINDS)}, got {self.kind!r}")

    @property
    def inputs(self) -> frozenset:
        """The test inputs this design can feed (:data:`KINDS`)."""
        return KINDS[self.kind]

    def splitter(self) -> Design:
        """The design object that draws this design's fold ids."""
        if self.make_splitter is not None:
            return self.make_splitter(self)
        if self.kind in ("resampled", "holdout"):
            return Subsample(self.n_runs, self.test_share)
        return RepeatedKFold(self.n_runs, self.n_folds)

    def sizes(self, y) -> tuple[int, int]:
        """``(n_train, n_test)`` of one split of ``y``."""
        return self.splitter().sizes(y)

    def mean_sizes(self, y) -> tuple[float, float]:
        """``(n_train, n_test)`` averaged over the design's splits of ``y`` (see :meth:`RepeatedKFold.mean_sizes`)."""
        return self.splitter().mean_sizes(y)

    @property
    def train_share(self) -> float:
        """The share of the cases a split trains on."""
        if self.kind in ("resampled", "holdout"):
            return 1.0 - self.test_share
        return (self.n_folds - 1) / self.n_folds

    @property
    def label(self) -> str:
        """The design in words, for the reports (``10x10 cv``, ``5x2 cv``, ``10 resampled 90/10 splits``)."""
        if self.words:
            return self.words
        if self.kind == "cv":
            return f"{self.n_runs}x{self.n_folds} cv"
        if self.kind == "5x2":
            return "5x2 cv"
        held = round(100 * self.test_share)
        if self.kind == "holdout":
            return f"one {100 - held}/{held} holdout split"
        return f"{self.n_runs} resampled {100 - held}/{held} splits"


@dataclass(frozen=True)
class DesignFamily:
    """A registered family of designs: names that match ``pattern``, built by ``build(match)``."""

    pattern: str
    build: Callable
    text: str


_FAMILIES: list[DesignFamily] = []


def register_design(pattern: str, build: Callable, *, text: str, replace: bool = False) -> DesignFamily:
    """Register a family of designs by the names it answers to.

    A name that matches ``pattern`` in full (a regular expression) is built by
    ``build(match)`` into a :class:`DesignSpec`; the family is then accepted
    wherever a design is named: a study's :class:`~simstudy.pipeline.comparison.Comparison`,
    ``assess --designs``, ``simstudy proving-ground --designs``, ``bench``.  The
    built-in families are registered the same way; the first family that matches
    a name builds it.

    Parameters
    ----------
    pattern : str
        Regular expression for the names (``r"ucv(\\d+)x(\\d+)"``).
    build : callable
        ``build(match)`` -> :class:`DesignSpec` (raise :class:`~simstudy.errors.InputError`
        naming ``designs`` for an impossible one).
    text : str
        The family in the grammar's words, for messages (``ucvRxK (unstratified r x k cv)``).
    replace : bool
        Replace a family registered with the same pattern.
    """
    import re

    re.compile(pattern)
    if not callable(build):
        raise InputError(f"build: design family {pattern!r} needs a callable")
    same = [i for i, f in enumerate(_FAMILIES) if f.pattern == pattern]
    if same and not replace:
        raise InputError(f"pattern: a design family {pattern!r} is already registered")
    family = DesignFamily(pattern, build, text)
    if same:
        _FAMILIES[same[0]] = family
    else:
        _FAMILIES.append(family)
    return family


def grammar() -> str:
    """Every registered family of design names, in words (for messages)."""
    texts = [f.text for f in _FAMILIES]
    return "use " + (", ".join(texts[:-1]) + " or " + texts[-1] if len(texts) > 1 else texts[0])


def is_design_name(name) -> bool:
    """Whether ``name`` is a design name some registered family answers to (the design may still be impossible)."""
    import re

    return any(re.fullmatch(f.pattern, str(name)) for f in _FAMILIES)


def _percent(name: str, text: str) -> float:
    share = int(text) / 100.0
    if not 0.05 <= share <= 0.5:
        raise InputError(f"{option('designs')}: {name}: the test share must be 5 to 50 percent, got {text}")
    return share


def _cv(m) -> DesignSpec:
    r, k = int(m.group(1)), int(m.group(2))
    if r < 1 or k < 2:
        raise InputError(f"{option('designs')}: {m.group(0)}: needs at least 1 run and 2 folds")
    return DesignSpec(m.group(0), "5x2" if (r, k) == (5, 2) else "cv", r, k)


def _five_by_two(m) -> DesignSpec:
    return DesignSpec(m.group(0), "5x2", 5, 2)


def _resampled(m) -> DesignSpec:
    name, r = m.group(0), int(m.group(1))
    if r < 2:
        raise InputError(f"{option('designs')}: {name}: needs at least 2 splits")
    return DesignSpec(name, "resampled", r, 1, TEST_SHARE if m.group(2) is None else _percent(name, m.group(2)))


def _holdout(m) -> DesignSpec:
    return DesignSpec(m.group(0), "holdout", 1, 1, _percent(m.group(0), m.group(1)))


register_design(r"cv(\d+)x(\d+)", _cv, text="cvRxK (e.g. cv10x10, cv1x10)")
register_design(r"5x2cv", _five_by_two, text="5x2cv")
register_design(
    r"resampled(\d+)(?:-(\d+))?",
    _resampled,
    text="resampledR (e.g. resampled10: 90/10 splits), resampledR-TT (TT percent held out, e.g. resampled30-33)",
)
register_design(r"holdout(\d+)", _holdout, text="holdoutTT (e.g. holdout33)")
#: The built-in families' patterns (the others were registered by a user: :mod:`simstudy.pipeline.catalogue`).
_BUILTIN = frozenset(f.pattern for f in _FAMILIES)


def parse_design(name) -> DesignSpec:
    """One design from its name (see :func:`parse_designs`); a :class:`DesignSpec` is returned unchanged."""
    import re

    if isinstance(name, DesignSpec):
        return name
    name = str(name)
    for family in _FAMILIES:
        m = re.fullmatch(family.pattern, name)
        if m:
            spec = family.build(m)
            if not isinstance(spec, DesignSpec):
                raise InputError(
                    f"{option('designs')}: {name}: its family built {type(spec).__name__}, not a DesignSpec"
                )
            return spec
    raise InputError(f"{option('designs')}: unknown design {name!r}; {grammar()}")


def parse_designs(names) -> tuple[DesignSpec, ...]:
    """Designs from names: the one grammar of every command and study.

    ``cvRxK`` is R runs of stratified K-fold cv (``cv5x2`` is Dietterich's
    ``5x2cv``); ``resampledR`` is R random stratified 90/10 splits (Nadeau and
    Bengio's), ``resampledR-TT`` and ``holdoutTT`` hold out TT percent
    (Dietterich's resampled t and his holdout tests used a third:
    ``resampled30-33``, ``holdout33``); a family a user registered
    (:func:`register_design`) is read the same way.  Whether a design fits a
    data set (its folds against the classes' sizes) is checked where the data
    are known.

    Parameters
    ----------
    names : str or sequence of str
        Design names (a string is split at commas and spaces).

    Returns
    -------
    tuple of DesignSpec

    Raises
    ------
    InputError
        Starting with ``--designs``: an unknown or impossible design, or one named twice.
    """
    if isinstance(names, str):
        names = [n for n in names.replace(",", " ").split() if n]
    out = tuple(parse_design(n) for n in names)
    if not out:
        raise InputError(f"{option('designs')}: no design given")
    keys = [d.key for d in out]
    if len(set(keys)) < len(keys):
        raise InputError(f"{option('designs')}: a design is named twice ({', '.join(keys)})")
    if sum(d.kind == "5x2" and d.make_splitter is None for d in out) > 1:
        raise InputError(f"{option('designs')}: 5x2cv and cv5x2 are the same design; name it once")
    return out
