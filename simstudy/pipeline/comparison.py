"""The comparison: one replication's learners fitted on each design's splits, and every test on the same fits.

A study's replication is "sample the source, run the comparison"::

    X, y = source.sample(n, rng)
    return Comparison({"nb": GaussianNB(), "tree": DecisionTreeClassifier()}, designs=("cv10x10",)).run(X, y, rng)

For every design, in the order given, :meth:`Comparison.fit` draws the
partitions of ``n_experiments`` repeated experiments (:mod:`simstudy.pipeline.designs`),
then one seed per experiment for each learner that takes a ``random_state``.
After all designs (with ``case_order="shuffled"``) it draws an order of the
cases for each run of each design.  Then it fits every learner once per split
(:mod:`simstudy.pipeline.scores`); the fits draw nothing from the stream.
:meth:`Fits.outcomes` applies the tests to those fits
(:func:`simstudy.pipeline.outcomes.outcome_rows`): the sample tests on each
sampling scheme of an r x k cv design, the whole-design tests once.  Every test
and every pair of learners sees the same partitions and the same fits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import InputError
from simstudy.pipeline.designs import DesignSpec, parse_designs
from simstudy.pipeline.scores import (
    PairedScores,
    ScoreLayout,
    check_metric,
    cv_accuracies,
    cv_paired_scores,
    cv_scores,
)

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["Comparison", "Fits", "ComparedLearner", "FitFailed", "seeded", "rescore"]


_SEED_HIGH = 2**31 - 1

#: The orders in which a run may present the cases (see ``Comparison.case_order``).
CASE_ORDERS = ("given", "shuffled")


class FitFailed(RuntimeError):
    """A learner raised while it was fitted or predicted; ``learner`` names it, the cause is chained."""

    def __init__(self, learner: str, message: str):
        super().__init__(f"learner {learner!r}: {message}")
        self.learner, self.message = learner, message

    def __reduce__(self):  # picklable, so that it crosses process boundaries as it is
        return type(self), (self.learner, self.message)


@dataclass(frozen=True)
class ComparedLearner:
    """A learner as a comparison holds it: how to make it and where its fits are made (a learner itself derives
    from :class:`simstudy.pipeline.learners.Learner` or is any scikit-learn classifier).

    Attributes
    ----------
    make : callable
        Zero-argument factory of an unfitted learner (see
        :func:`simstudy.pipeline.learners.as_learner_factory`).
    fit_predict : callable, optional
        Where its fits are made (``fit_predict(make, train, test)``, see
        :func:`simstudy.pipeline.scores.fold_predictions`), e.g. a worker
        process with a time limit; default: in this process.
    fit_score : callable, optional
        The same for a metric other than accuracy (``fit_score(make, train,
        test, metric)``, see :func:`simstudy.pipeline.scores.cv_scores`).
    fit_outputs : callable, optional
        The same when the outputs are kept (``fit_outputs(make, train, test)``,
        see :func:`simstudy.pipeline.outputs.fold_outputs`).
    """

    make: Callable
    fit_predict: Callable | None = None
    fit_score: Callable | None = None
    fit_outputs: Callable | None = None


def seed_parameters(est) -> list[str]:
    """The parameters of ``est`` that take its seed: ``random_state``, and those of the steps of a pipeline or
    meta-estimator (``clf__random_state``, ...), so that every random step of a composite learner is seeded."""
    get = getattr(est, "get_params", None)
    if get is None:
        return []
    return sorted(k for k in get(deep=True) if k == "random_state" or k.endswith("__random_state"))


class seeded:
    """A factory whose learners get ``random_state=seed``, in every step that has one (picklable)."""

    __slots__ = ("make", "seed")

    def __init__(self, make: Callable, seed: int):
        self.make, self.seed = make, int(seed)

    def __call__(self):
        est = self.make()
        est.set_params(**dict.fromkeys(seed_parameters(est), self.seed))
        return est

    def __getstate__(self):
        return self.make, self.seed

    def __setstate__(self, state):
        self.make, self.seed = state


def _takes_seed(make: Callable) -> bool:
    """Whether the learners ``make`` returns have a ``random_state`` parameter, or a step that has one.

    A factory that knows it without making a learner says so in ``takes_seed``
    (one that makes its learners in another process, e.g. a contained user learner).
    """
    known = getattr(make, "takes_seed", None)
    if known is not None:
        return bool(known)
    return bool(seed_parameters(make()))


def _learners(learners) -> tuple[tuple[str, ComparedLearner], ...]:
    from simstudy.pipeline.learners import as_learner_factory

    if isinstance(learners, Mapping):
        items = [(str(k), v) for k, v in learners.items()]
    else:
        items = list(learners)
        if len(items) != 2:
            raise InputError(f"learners: give two learners (A, B) or a mapping of names to learners, got {len(items)}")
        items = list(zip(("a", "b"), items))
    if len(items) < 2:
        raise InputError(f"learners: a comparison needs at least two learners, got {len(items)}")
    out = []
    for name, obj in items:
        if not isinstance(obj, ComparedLearner):
            try:
                obj = ComparedLearner(as_learner_factory(obj))
            except ValueError as exc:
                raise InputError(f"learners: {name!r}: {exc}") from None
        out.append((name, obj))
    return tuple(out)


@dataclass(frozen=True)
class Comparison:
    """Learners compared on designs by tests: what one replication does with its data.

    Parameters
    ----------
    learners : pair or mapping
        Learner A and learner B (their scores are ``acc_a``, ``acc_b``), or a
        mapping of names to learners (``acc_<name>``, every pair in order, A
        the earlier).  Each is a registered name, an estimator class or
        instance, a zero-argument factory or a :class:`ComparedLearner`.  A learner
        with a ``random_state`` parameter receives one drawn from the
        replication's stream, per design and experiment (see the module docstring).
    designs : sequence of str or DesignSpec, or mapping of label -> str or DesignSpec
        Design names (:func:`simstudy.pipeline.designs.parse_designs`), or the
        designs themselves; with a mapping, the labels name the designs in the
        stored rows.
    tests : ``"all"``, sequence of str, mapping of label -> str, or mapping of design -> tests
        ``"all"``: every registered test that runs on a design
        (:func:`~simstudy.pipeline.outcomes.all_tests`);
        names: each on the designs it runs on (:meth:`~simstudy.pipeline.outcomes.TestSpec.runs_on`:
        the design feeds its input and is of a kind it is made for; McNemar's
        test runs on holdout designs only), labelled by their names; a mapping:
        registered tests under the labels stored.  Keyed by design labels
        instead, each design runs the tests given for it and no other (a
        design left out runs none); :meth:`of` builds that from procedures.
    n_experiments : int
        Repetitions of every design with new partitions on the same data
        (replicability compares them); the rows get an ``experiment`` column when > 1.
    alpha : float
        Level of the stored decisions.
    schemes : sequence of str or None
        Bouckaert's sampling schemes (:data:`simstudy.pipeline.schemes.SCHEMES`)
        for the sample tests of an r x k cv design; the outcome rows then have a
        ``scheme`` column ("" for the other tests and designs).  None: the
        sample tests take all differences of a design as one sample.
    sign_alpha : float, optional
        Also store ``sign``, the decision at this larger level, so that a
        decision at any level up to it can be re-made from the stored p-value.
    counts : bool
        Keep McNemar's discordant counts per split (``n01``, ``n10``; two
        learners); a holdout design's tests need them.
    split_sizes : bool
        Store every split's training and test size in the scores.
    design_column : bool, optional
        Whether the rows name the design (default: when there are several).
    index_dtype : dtype
        Type of the ``experiment``, ``run`` and ``fold`` columns.
    metric : str
        The per-split score: ``"accuracy"`` (stored as ``acc_<name>``) or any
        scikit-learn scorer name (``"balanced_accuracy"``, ``"roc_auc"``,
        ``"neg_log_loss"``, ...; stored as ``score_<name>``, greater is
        better).  The tests that count cases (McNemar, the difference of
        proportions) need accuracy.
    mean_sizes : bool
        Give the corrected tests the design's mean training and test sizes
        (Nadeau and Bengio's ``n1`` and ``n2``; ``n / k`` held out per fold of
        a k-fold cv) instead of one split's, the smaller folds' (the default,
        with which the built-in studies were run; the two agree when ``k``
        divides ``n``).
    keep_outputs : bool
        Keep every held-out case's predicted class and, where the learner has
        them, its class probabilities or decision values
        (:mod:`simstudy.pipeline.outputs`), returned by :meth:`run` as a
        ``predictions`` table, from which any scorer is computed again without
        fitting (:func:`rescore`).  The scores are then computed from those
        outputs too, so the two agree exactly.
    case_order : ``"given"`` or ``"shuffled"``
        The order in which each run presents the cases to the learners.
        ``"given"`` (the default): the data's order, in training and test parts
        alike.  ``"shuffled"``: every run (of every experiment) in an order of
        its own, drawn from the replication's stream after every design's
        partitions and seeds (which are thus the same as with ``"given"``), as
        Weka's cross-validation randomises the data before each run.
        It matters to a learner that breaks ties by the first training case
        (Weka's IB1) on data stored in a sorted order; the partitions, and a
        learner that ignores the order, give the same scores either way.
        Learners whose fits are made elsewhere (``ComparedLearner.fit_predict`` and
        the like) index the data as given and are refused with it.
    """

    learners: Any
    designs: Any = ("cv10x10",)
    tests: Any = "all"
    n_experiments: int = 1
    alpha: float = 0.05
    schemes: tuple | None = None
    sign_alpha: float | None = None
    counts: bool = False
    split_sizes: bool = False
    design_column: bool | None = None
    index_dtype: Any = np.int64
    metric: str = "accuracy"
    mean_sizes: bool = False
    keep_outputs: bool = False
    case_order: str = "given"
    _learners: tuple = field(init=False, repr=False, compare=False)
    _designs: tuple = field(init=False, repr=False, compare=False)
    _seeded: tuple = field(init=False, repr=False, compare=False)
    _counts: bool = field(init=False, repr=False, compare=False)
    _schemes: tuple | None = field(init=False, repr=False, compare=False)
    _tests: dict = field(init=False, repr=False, compare=False)

    @classmethod
    def of(cls, learners, procedures, **kwargs) -> "Comparison":
        """The comparison that runs exactly ``procedures`` (:class:`~simstudy.pipeline.procedures.Procedure`,
        or ``(design, test)`` / ``(design, test, scheme)`` tuples): each test on its design, under the test's
        name; the designs in the order first named; sample tests on the schemes named (all of a design's
        sample tests then run on every scheme named)."""
        from simstudy.pipeline.procedures import as_procedure

        procs = [as_procedure(p) for p in procedures]
        if not procs:
            raise InputError("procedures: give at least one (design, test)")
        per_design: dict[str, dict[str, str]] = {}
        schemes: list[str] = []
        for p in procs:
            per_design.setdefault(p.design, {})[p.test] = p.test
            if p.scheme and p.scheme not in schemes:
                schemes.append(p.scheme)
        return cls(learners, designs=tuple(per_design), tests=per_design, schemes=tuple(schemes) or None, **kwargs)

    def __post_init__(self):
        from simstudy.pipeline.schemes import get_scheme

        learners = _learners(self.learners)
        labels = list(self.designs) if isinstance(self.designs, Mapping) else None
        specs = parse_designs(list(self.designs.values()) if labels is not None else self.designs)
        designs = tuple(zip(labels or [d.key for d in specs], specs))
        if (
            isinstance(self.n_experiments, bool)
            or int(self.n_experiments) != self.n_experiments
            or self.n_experiments < 1
        ):
            raise InputError(f"n_experiments: must be an integer >= 1, got {self.n_experiments!r}")
        if not 0.0 < self.alpha < 1.0:
            raise InputError(f"alpha: must lie strictly between 0 and 1, got {self.alpha!r}")
        if self.sign_alpha is not None and not self.alpha <= self.sign_alpha < 1.0:
            raise InputError(f"sign_alpha: must lie in [alpha, 1), got {self.sign_alpha!r}")
        seeded = tuple(_takes_seed(lr.make) for _, lr in learners)
        if self.case_order not in CASE_ORDERS:
            raise InputError(f"case_order: one of {', '.join(map(repr, CASE_ORDERS))}, got {self.case_order!r}")
        if self.case_order != "given":
            hooked = [n for n, lr in learners if lr.fit_predict or lr.fit_score or lr.fit_outputs]
            if hooked:
                raise InputError(
                    f"case_order: {self.case_order!r} reorders the data in this process, and the fits of "
                    f"{', '.join(hooked)} are made elsewhere on the data as given; use case_order='given'"
                )
        counts = self.counts or any(d.kind == "holdout" for _, d in designs)
        if counts and len(learners) != 2:
            raise InputError("counts: discordant counts (and a holdout design's tests) need exactly two learners")
        if self.metric != "accuracy":
            check_metric(self.metric)
            if counts:
                raise InputError(
                    f"metric: {self.metric!r}: discordant counts (and a holdout design's tests) count correct cases, "
                    "so they need metric='accuracy'"
                )
        object.__setattr__(self, "_tests", _tests_by_design(self.tests, designs))
        object.__setattr__(self, "_learners", learners)
        object.__setattr__(self, "_designs", designs)
        object.__setattr__(self, "_seeded", seeded)
        object.__setattr__(self, "_counts", counts)
        # the schemes themselves, not their names: a scheme a user registered reaches every worker with them
        object.__setattr__(
            self, "_schemes", None if self.schemes is None else tuple(get_scheme(x) for x in self.schemes)
        )

    # -- what the rows hold ----------------------------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        """The learners' names (``a``, ``b`` for a pair given without names)."""
        return tuple(n for n, _ in self._learners)

    @property
    def columns(self) -> dict[str, str]:
        """Each learner's score column: ``acc_<name>`` for accuracy, ``score_<name>`` for another metric."""
        prefix = "acc_" if self.metric == "accuracy" else "score_"
        return {n: prefix + n for n in self.names}

    @property
    def pairs(self) -> dict[str, tuple[str, str]]:
        """Every pair of learners, ``A-B`` -> (A, B) in order (the single pair of two learners: ``A-B``)."""
        names = self.names
        if names == ("a", "b"):
            return {"A-B": ("a", "b")}
        return {f"{a}-{b}": (a, b) for i, a in enumerate(names) for b in names[i + 1 :]}

    @property
    def design_keys(self) -> tuple[str, ...]:
        """The designs' labels, in order."""
        return tuple(k for k, _ in self._designs)

    def design(self, key: str) -> DesignSpec:
        """The design labelled ``key``."""
        return dict(self._designs)[key]

    def _named_designs(self) -> bool:
        return len(self._designs) > 1 if self.design_column is None else bool(self.design_column)

    def tests_for(self, key: str) -> dict[str, str]:
        """The tests run on the design labelled ``key``: ``{label: registered name}`` (resolved once, when the
        comparison is made)."""
        return dict(self._tests[key])

    def layout(self, groups=(), *, unit: str = "replication", sizes: Callable | None = None) -> ScoreLayout:
        """Where the stored scores of this comparison are (for ``simstudy bench`` and plug-in tests).

        ``sizes(rows, design)`` gives a split's training and test sizes from
        stored rows; default: the stored ``n_train`` and ``n_test`` (of the
        scores with ``split_sizes``, or of the condition's fields).
        """
        by_kind: dict[str, str] = {}
        for key, d in self._designs:
            by_kind.setdefault(d.kind, key)
        first = self._designs[0][0]
        whole = by_kind.get("cv") or by_kind.get("5x2") or first
        designs = {
            "sample": whole,
            "cv": whole,
            "splits": by_kind.get("resampled", whole),
            "5x2": by_kind.get("5x2", whole),
        }
        if "holdout" in by_kind:  # the design of the tests made for one split (McNemar's)
            designs["holdout"] = by_kind["holdout"]
        named = self._named_designs()
        several = len(self.names) > 2
        return ScoreLayout(
            groups=tuple(groups),
            unit=unit,
            experiment="experiment" if self.n_experiments > 1 else None,
            axes=("run", "fold"),
            pairs={p: (self.columns[a], self.columns[b]) for p, (a, b) in self.pairs.items()},
            pair_column="pair" if several else None,
            variants=(("design",) if named else ()) + ("test",) + (("scheme",) if self.schemes is not None else ()),
            design_column="design" if named else None,
            designs=designs if named else {},
            sizes=sizes or stored_sizes,
        )

    # -- one replication -------------------------------------------------------------------------

    def fit(self, X, y, rng) -> "Fits":
        """Draw every design's partitions and fit every learner once per split (see the module docstring)."""
        y = np.asarray(y)
        E = int(self.n_experiments)
        n_seeded = sum(self._seeded)
        draws = []
        for _, d in self._designs:
            split = d.splitter()
            ids = np.concatenate([split.fold_ids(y, rng) for _ in range(E)])
            draws.append((ids, rng.integers(0, _SEED_HIGH, size=(E, n_seeded)) if n_seeded else None))
        # the orders after every design's partitions and seeds, which are thus those of the data's order
        orders: list = [None] * len(draws)
        if self.case_order == "shuffled":
            orders = [np.stack([rng.permutation(y.size) for _ in range(ids.shape[0])]) for ids, _ in draws]
        per_design, outputs = {}, {}
        for (key, d), (ids, seeds), order in zip(self._designs, draws, orders):
            if self.keep_outputs and not self._counts:
                acc, outputs[key] = self._fit_outputs(X, y, ids, E, seeds, order)
                n01 = n10 = None
            else:
                acc, n01, n10 = self._fit_design(X, y, ids, E, seeds, order)
            shape = (E, d.n_runs, d.n_folds)
            acc = acc.reshape(shape + (len(self._learners),))
            if n01 is not None and n10 is not None:
                n01, n10 = n01.reshape(shape), n10.reshape(shape)
            per_design[key] = (acc, n01, n10, d.mean_sizes(y) if self.mean_sizes else d.sizes(y))
        return Fits(self, per_design, outputs)

    def _make(self, j: int, e: int, seeds) -> Callable:
        """Learner ``j``'s factory in experiment ``e``: seeded with the experiment's seed of it if it takes one."""
        lr = self._learners[j][1]
        if not self._seeded[j]:
            return lr.make
        return seeded(lr.make, seeds[e, sum(self._seeded[:j])])

    def _fit_outputs(self, X, y, ids, E: int, seeds, orders=None):
        """Scores ``(E * runs, folds, L)`` computed from every learner's outputs, and ``(ids, outputs)``."""
        from simstudy.pipeline.outputs import fold_outputs, needs_scores, outputs_scores

        runs = ids.shape[0] // E
        keep = True if needs_scores(self.metric) else "auto"
        parts, outputs = [], []
        for j, (name, lr) in enumerate(self._learners):

            def one(fold_ids, make, order, lr=lr):
                def outputs_of(X, y, fold_ids):
                    return fold_outputs(X, y, fold_ids, make, scores=keep, fit_outputs=lr.fit_outputs)

                return _by_run(outputs_of, X, y, fold_ids, order, cases=(0, 1))

            try:
                if not self._seeded[j]:
                    pred, sc, kind = one(ids, lr.make, orders)
                else:
                    pieces = [
                        one(ids[e * runs : (e + 1) * runs], self._make(j, e, seeds), _rows(orders, e, runs))
                        for e in range(E)
                    ]
                    pred = np.concatenate([p for p, _, _ in pieces])
                    kinds = {k for _, _, k in pieces}
                    sc, kind = None, ""
                    if len(kinds) == 1 and "" not in kinds:
                        sc, kind = np.concatenate([s for _, s, _ in pieces]), kinds.pop()
                score = outputs_scores(self.metric, y, ids, pred, sc, kind)
            except Exception as exc:
                raise FitFailed(name, f"{type(exc).__name__}: {exc}") from exc
            parts.append(score[..., None])
            outputs.append((pred, sc, kind))
        return np.concatenate(parts, axis=-1), (ids, outputs)

    def _fit_design(self, X, y, ids, E: int, seeds, orders=None):
        """Accuracies ``(E * runs, folds, L)`` of every learner, and the discordant counts when kept."""
        runs = ids.shape[0] // E
        if self._counts:
            fps = tuple(lr.fit_predict for _, lr in self._learners)

            def counted(fold_ids, makes, order):
                def counts_of(X, y, fold_ids):
                    return cv_paired_scores(X, y, fold_ids, makes, fit_predicts=fps)

                return _by_run(counts_of, X, y, fold_ids, order)

            if not any(self._seeded):
                return counted(ids, tuple(lr.make for _, lr in self._learners), orders)
            # learners that take a seed get the experiment's, as without counts: one experiment at a time
            parts = [
                counted(
                    ids[e * runs : (e + 1) * runs],
                    tuple(self._make(j, e, seeds) for j in range(len(self._learners))),
                    _rows(orders, e, runs),
                )
                for e in range(E)
            ]
            acc, n01, n10 = (np.concatenate([part[i] for part in parts]) for i in range(3))
            return acc, n01, n10
        from simstudy.pipeline.outputs import _fitted

        parts = []
        for j, (name, lr) in enumerate(self._learners):

            def score(fold_ids, make, order, lr=lr):
                def scores_of(X, y, fold_ids):
                    if self.metric == "accuracy":
                        return (cv_accuracies(X, y, fold_ids, (make,), fit_predict=lr.fit_predict),)
                    return (cv_scores(X, y, fold_ids, (make,), self.metric, fit_score=lr.fit_score),)

                (out,) = _by_run(scores_of, X, y, fold_ids, order)
                _fitted(int(out.shape[0]) * int(out.shape[1]))  # a progress bar per fit counts them (on_fit)
                return out

            try:
                if not self._seeded[j]:
                    parts.append(score(ids, lr.make, orders))
                else:
                    parts.append(
                        np.concatenate(
                            [
                                score(ids[e * runs : (e + 1) * runs], self._make(j, e, seeds), _rows(orders, e, runs))
                                for e in range(E)
                            ]
                        )
                    )
            except Exception as exc:
                raise FitFailed(name, f"{type(exc).__name__}: {exc}") from exc
        return np.concatenate(parts, axis=-1), None, None

    def run(self, X, y, rng) -> dict[str, pd.DataFrame]:
        """One replication: ``{"scores": ..., "outcomes": ...}`` in long format (see :class:`Fits`), and
        ``"predictions"`` when the outputs are kept."""
        fits = self.fit(X, y, rng)
        out = {"scores": fits.scores(), "outcomes": fits.outcomes()}
        if self.keep_outputs:
            out["predictions"] = fits.predictions(y)
        return out


def _rows(orders, e: int, runs: int):
    """Experiment ``e``'s rows of ``orders`` (None stays None)."""
    return None if orders is None else orders[e * runs : (e + 1) * runs]


def _by_run(fn, X, y, fold_ids, orders, cases=()):
    """``fn(X, y, fold_ids)``, a tuple of per-run results, with each run's cases in its row of ``orders``.

    ``orders`` None: one call on the data as given.  Otherwise one call per run on that run's
    order of the cases (``X[o]``, ``y[o]`` and its fold ids alike); the runs' arrays are
    concatenated, and the elements numbered in ``cases`` (arrays over the cases on axis 1)
    are put back in the data's order.  An element that is not an array (a kind, None) is the
    first run's.
    """
    if orders is None:
        return fn(X, y, fold_ids)
    parts = [fn(X[o], y[o], fold_ids[r : r + 1, o]) for r, o in enumerate(orders)]
    out = []
    for i, first in enumerate(parts[0]):
        if not isinstance(first, np.ndarray):
            out.append(first)
            continue
        pieces = []
        for o, part in zip(orders, parts):
            piece = part[i]
            if i in cases:
                back = np.empty_like(piece)
                back[:, o] = piece
                piece = back
            pieces.append(piece)
        out.append(np.concatenate(pieces))
    return tuple(out)


def _tests_by_design(tests, designs) -> dict[str, dict[str, str]]:
    """``{design label: {test label: registered name}}``: what each design runs (see :class:`Comparison`),
    every named test checked to exist and to run on at least one of the designs it is given for."""
    from simstudy.pipeline.outcomes import all_tests, get_test, test_names

    if isinstance(tests, str):
        if tests != "all":
            raise InputError(
                f"tests: 'all', a list of test names, a mapping of label to name or of design to tests; got {tests!r}"
            )
        return {k: all_tests(d) for k, d in designs}
    keys = [k for k, _ in designs]
    per_design = _per_design(tests)
    if per_design is not None:
        unknown = [k for k in per_design if k not in keys]
        if unknown:
            raise InputError(f"tests: {unknown[0]!r} is not one of the designs {', '.join(keys)}")
        given = {k: _as_mapping(per_design.get(k, {})) for k in keys}
    else:
        given = {k: _as_mapping(tests) for k in keys}
    for n in dict.fromkeys(n for chosen in given.values() for n in chosen.values()):
        try:
            spec = get_test(n)
        except ValueError:
            raise InputError(f"tests: unknown test {n!r}; registered: {', '.join(test_names())}") from None
        where = [d for k, d in designs if n in given[k].values()]
        if not any(spec.runs_on(d) for d in where):
            made = f" (it is made for {', '.join(spec.designs)} designs)" if spec.designs is not None else ""
            raise InputError(f"tests: {n!r} runs on none of the designs {', '.join(d.key for d in where)}{made}")
    return {k: {label: n for label, n in given[k].items() if get_test(n).runs_on(d)} for k, d in designs}


def _per_design(tests) -> Mapping | None:
    """``tests`` when it maps design labels to groups of tests (no value a single name), else None."""
    if isinstance(tests, Mapping) and tests and all(not isinstance(v, str) for v in tests.values()):
        return tests
    return None


def _as_mapping(tests) -> dict[str, str]:
    """``{label: name}`` from a mapping of labels to names, a sequence of names or one name."""
    if isinstance(tests, str):
        return {tests: tests}
    if isinstance(tests, Mapping):
        return dict(tests)
    return {n: n for n in tests}


def stored_sizes(rows, design=None) -> tuple[int | float, int | float]:
    """``(n_train, n_test)`` of one split, from stored rows.

    From their ``n_train`` and ``n_test`` fields; else, for an r x k cv, from
    ``n_cases`` and the design (the rows' ``design`` field, or ``design``).
    """
    if "n_train" in rows and "n_test" in rows:
        return _size(rows["n_train"].iloc[0]), _size(rows["n_test"].iloc[0])
    name = str(rows["design"].iloc[0]) if "design" in rows else design
    spec = parse_designs([name])[0] if name is not None else None
    if spec is None or spec.kind not in ("cv", "5x2") or "n_cases" not in rows:
        raise InputError(f"sizes: the stored rows hold neither n_train and n_test nor n_cases of a cv design ({name})")
    return spec.sizes(int(rows["n_cases"].iloc[0]))


def _size(value) -> int | float:
    """A stored size as an int, or as a float when it is a design's mean size that is not whole."""
    v = float(value)
    return int(v) if v.is_integer() else v


@dataclass(frozen=True)
class Fits:
    """The fitted scores of one replication of a :class:`Comparison`, per design."""

    comparison: Comparison
    per_design: dict
    outputs: dict = field(default_factory=dict)

    def paired(self, design: str | None = None, pair=None, *, runs: int | None = None) -> PairedScores:
        """The paired scores of one design and pair, shape ``(experiments, runs, folds)``.

        ``pair``: a label of :attr:`Comparison.pairs` or a tuple of two learner
        names (default: the first pair).

        ``runs``: only the first so many runs (a design's first splits are a
        smaller design of the same kind, fitted once).  The experiment axis is
        dropped when there is one experiment.
        """
        c = self.comparison
        design = design if design is not None else c.design_keys[0]
        pair = pair if pair is not None else next(iter(c.pairs))
        a, b = (c.names.index(n) for n in (pair if isinstance(pair, tuple) else c.pairs[pair]))
        acc, n01, n10, (n_train, n_test) = self.per_design[design]
        # (experiments, runs, folds[, learners]): the first ``runs`` runs; no experiment axis for one experiment
        cut = (0 if c.n_experiments == 1 else slice(None), slice(runs))
        n01, n10 = (None if x is None else x[cut] for x in (n01, n10))
        acc = acc[cut]
        return PairedScores(acc[..., a], acc[..., b], n_train=n_train, n_test=n_test, n01=n01, n10=n10)

    def array(self, design: str | None = None) -> np.ndarray:
        """Every learner's score per split of one design (default the first): shape ``(experiments, runs,
        folds, learners)``, the learners in the comparison's order."""
        return self.per_design[design if design is not None else self.comparison.design_keys[0]][0]

    def scores(self) -> pd.DataFrame:
        """Per design, experiment, run and fold: every learner's score (and the sizes and counts kept)."""
        c = self.comparison
        dt = c.index_dtype
        frames = []
        for key, (acc, n01, n10, (n_train, n_test)) in self.per_design.items():
            E, R, K = acc.shape[:3]
            grid = np.meshgrid(np.arange(E), np.arange(R), np.arange(K), indexing="ij")
            data = {}
            if c._named_designs():
                data["design"] = key
            if c.n_experiments > 1:
                data["experiment"] = grid[0].ravel().astype(dt)
            data["run"], data["fold"] = grid[1].ravel().astype(dt), grid[2].ravel().astype(dt)
            for j, column in enumerate(c.columns.values()):
                data[column] = acc[..., j].ravel()
            if c.split_sizes:
                kind = np.float64 if c.mean_sizes else np.int32
                data["n_train"], data["n_test"] = kind(n_train), kind(n_test)
            if c.counts:
                data["n01"], data["n10"] = n01.ravel().astype(np.int32), n10.ravel().astype(np.int32)
            frames.append(pd.DataFrame(data))
        return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]

    def predictions(self, y) -> pd.DataFrame:
        """Per design, experiment, run and held-out case: its ``fold``, ``case`` (row of the data), true class
        ``y``, every learner's prediction ``pred_<name>`` and score columns ``proba_<name>_<j>`` or
        ``decision_<name>_<j>`` (see :mod:`simstudy.pipeline.outputs`); the outputs must have been kept."""
        c = self.comparison
        dt = c.index_dtype
        y = np.asarray(y)
        frames = []
        for key, (ids, outs) in self.outputs.items():
            E = int(c.n_experiments)
            runs = ids.shape[0] // E
            r_idx, case = np.nonzero(ids >= 0)
            data = {}
            if c._named_designs():
                data["design"] = key
            if E > 1:
                data["experiment"] = (r_idx // runs).astype(dt)
            data["run"] = (r_idx % runs).astype(dt)
            data["fold"] = ids[r_idx, case].astype(dt)
            data["case"] = case.astype(np.int32)
            data["y"] = y[case]
            for name, (pred, _, _) in zip(c.names, outs):
                data[f"pred_{name}"] = pred[r_idx, case]
            for name, (_, sc, kind) in zip(c.names, outs):
                if sc is not None:
                    for j in range(sc.shape[-1]):
                        data[f"{kind}_{name}_{j}"] = sc[r_idx, case, j]
            frames.append(pd.DataFrame(data))
        return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]

    def outcomes(self) -> pd.DataFrame:
        """One row per design, pair, experiment, scheme and test: statistic, p-value, decision (and ``sign``)."""
        from simstudy.pipeline.outcomes import outcome_rows

        c = self.comparison
        level = c.sign_alpha if c.sign_alpha is not None else c.alpha
        several = len(c.names) > 2
        blocks = []
        for key, d in c._designs:
            for pair in c.pairs:
                index: dict[str, Any] = {"pair": pair} if several else {}
                if c.n_experiments > 1:
                    index["experiment"] = np.arange(c.n_experiments, dtype=c.index_dtype)
                schemes = c._schemes if d.kind == "cv" else None
                with np.errstate(all="ignore"):
                    rows = outcome_rows(
                        self.paired(key, pair), c.tests_for(key), alpha=level, schemes=schemes, index=index
                    )
                if c.schemes is not None and schemes is None:
                    rows.insert(len(index), "scheme", "")
                if c.sign_alpha is not None:
                    rows = rows.rename(columns={"decision": "sign"})
                    p = rows["pvalue"].to_numpy()
                    rows["decision"] = np.where(np.nan_to_num(p, nan=2.0) <= c.alpha, rows["sign"], 0).astype(np.int8)
                if c._named_designs():
                    rows.insert(0, "design", key)
                blocks.append(rows)
        return pd.concat(blocks, ignore_index=True) if len(blocks) > 1 else blocks[0]


def rescore(comparison: Comparison, predictions: pd.DataFrame, n_cases: int) -> Fits:
    """The :class:`Fits` of one replication rebuilt from its stored ``predictions`` table, without fitting.

    Every split's score is :func:`simstudy.pipeline.outputs.outputs_scores`
    of ``comparison.metric`` on the stored outputs, as :meth:`Comparison.fit`
    computes it when it keeps them, so a stored replication scored again by
    its own metric gives the stored scores exactly, and by another metric the
    scores a fit would have given.  The split sizes are those of the stored
    folds (their mean with ``mean_sizes``, else the smallest).

    Parameters
    ----------
    comparison : Comparison
        The comparison that stored the rows, with the metric wanted.
    predictions : DataFrame
        The ``predictions`` rows of one replication (:meth:`Fits.predictions`).
    n_cases : int
        The number of cases of the data.

    Raises
    ------
    ValueError
        The metric needs probabilities or decision values a learner did not store.
    """
    from simstudy.pipeline.outputs import outputs_scores

    c = comparison
    E = int(c.n_experiments)
    per_design = {}
    for key, d in c._designs:
        rows = predictions[predictions["design"] == key] if c._named_designs() else predictions
        exp = rows["experiment"].to_numpy(int) if E > 1 else np.zeros(len(rows), dtype=int)
        r = exp * d.n_runs + rows["run"].to_numpy(int)
        case = rows["case"].to_numpy(int)
        ids = np.full((E * d.n_runs, n_cases), -1, dtype=np.int64)
        ids[r, case] = rows["fold"].to_numpy(int)
        y = np.zeros(n_cases, dtype=rows["y"].dtype)
        y[case] = rows["y"].to_numpy()
        scores = []
        for name in c.names:
            pred = np.full(ids.shape, -1, dtype=np.int64)
            pred[r, case] = rows[f"pred_{name}"].to_numpy()
            sc, kind = None, ""
            for k in ("proba", "decision"):
                cols = [col for col in rows.columns if col.startswith(f"{k}_{name}_")]
                if cols and rows[cols].notna().all(axis=None):
                    cols.sort(key=lambda col: int(col.rsplit("_", 1)[1]))
                    sc = np.full(ids.shape + (len(cols),), np.nan)
                    sc[r, case] = rows[cols].to_numpy(float)
                    kind = k
            try:
                scores.append(outputs_scores(c.metric, y, ids, pred, sc, kind))
            except ValueError as exc:
                raise InputError(f"{exc} (learner {name!r})") from None
        acc = np.stack(scores, axis=-1).reshape(E, d.n_runs, d.n_folds, len(c.names))
        counts = np.bincount(r * d.n_folds + ids[r, case], minlength=E * d.n_runs * d.n_folds)
        n_test = float(counts.mean()) if c.mean_sizes else int(counts.min())
        n_train = n_cases - n_test
        per_design[key] = (acc, None, None, (n_train, n_test))
    return Fits(c, per_design)
