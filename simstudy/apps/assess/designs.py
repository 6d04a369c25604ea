"""The designs of an assessment: names such as ``cv10x10``, ``5x2cv`` or ``resampled10`` parsed into the
:class:`DesignChoice` conditions the data's classes allow, the tests and sampling schemes each design takes,
and the designs and tests refused before anything is written.  The fast default (:data:`DEFAULT_DESIGNS`,
:data:`DEFAULT_REPEATS`) and the full check (:data:`FULL_DESIGNS`, :data:`FULL_REPEATS`) are named here.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from simstudy.apps.assess.data import Dataset
from simstudy.apps.assess.errors import _listed, _one_line
from simstudy.errors import InputError, option
from simstudy.pipeline.designs import TEST_SHARE, DesignSpec

#: The fast default: one design, whose corrected test controls size for learners of every stability class of
#: the shipped proving ground (and ranks first by size-adjusted power over all of it), five repeats.
DEFAULT_DESIGNS = ("5x2cv",)
DEFAULT_REPEATS = 5
#: The full check (``full=True``, ``--full``): every design the papers compare, ten repeats each.
FULL_DESIGNS = ("cv10x10", "5x2cv", "resampled10")
FULL_REPEATS = 10


@dataclass(frozen=True)
class DesignChoice:
    """One design of an assessment (a condition of its study).

    Attributes
    ----------
    design : str
        The design's name in the stored rows, the same in every table of the
        run: ``cv10x10``, ``5x2cv``, ``resampled10`` (``cv5x2`` is written
        ``5x2cv`` and ``resampledR-10`` ``resampledR``: the same designs).
    n_runs, n_folds : int
        Runs and folds (``n_folds = 1`` for resampled: one test part per split).
    test_share : float
        Share of each class held out per split (resampled only, else 0).
    n_train, n_test : float
        The design's mean training and test sizes (Nadeau and Bengio's n1
        and n2: ``n - n/k`` and ``n/k`` for a k-fold cv, whatever ``n``), for
        the corrected tests.
    alpha : float
        Significance level.
    spec : DesignSpec
        The design as the pipeline holds it (its kind, splits and the tests it
        feeds); the fields above are its scalars, copied into the stored rows.
    """

    design: str
    n_runs: int
    n_folds: int
    test_share: float
    n_train: float
    n_test: float
    alpha: float = 0.05
    spec: DesignSpec | None = field(default=None, repr=False, compare=False)

    @property
    def key(self) -> str:
        """The condition's name in the stored rows: :attr:`design`."""
        return self.design

    @property
    def kind(self) -> str:
        """The kind of design (:data:`simstudy.pipeline.designs.KINDS`): ``cv``, ``5x2`` or ``resampled``."""
        return self.spec.kind if self.spec is not None else ""

    @property
    def label(self) -> str:
        """The design in words, for the reports."""
        return self.spec.label if self.spec is not None else self.key


def _stored_name(spec: DesignSpec) -> str:
    """The name a design is stored under: its own, but ``cv5x2`` written ``5x2cv`` and ``resampledR-10`` written
    ``resampledR`` (the same designs) for the built-in families."""
    if spec.make_splitter is not None:
        return spec.key
    if spec.kind == "5x2":
        return "5x2cv"
    if spec.kind == "resampled" and round(spec.test_share, 6) == TEST_SHARE:
        return f"resampled{spec.n_runs}"
    return spec.key


def designs_for_data(names, y, *, alpha: float = 0.05, classes=None) -> tuple[DesignChoice, ...]:
    """Designs from names such as ``cv10x10``, ``cv1x10`` (plain 10-fold cv), ``5x2cv``, ``resampled30``.

    Parameters
    ----------
    names : str or sequence of str
        Design names (a string is split at commas and spaces).
    y : array_like of int
        The class codes (for the split sizes and the smallest class).
    alpha : float
        Significance level stored with each design.
    classes : sequence of str, optional
        The class labels in code order, for the messages.

    Returns
    -------
    tuple of DesignChoice

    Raises
    ------
    ValueError
        Naming ``--designs``: an unknown or impossible design, or one named
        twice.  Every design must train on and test every class in every
        split: a class needs at least as many cases as a cv design has folds
        (2 for 5x2cv), and at least 2 for a resampled design (one held out,
        one to train on); the message names the class and the ``--designs``
        that fit the data.
    """
    return _choose_designs(names, y, alpha=alpha, classes=classes)


def _choose_designs(names, y, *, alpha: float = 0.05, classes=None, argument: str = "designs"):
    """:func:`designs_for_data`, its messages naming ``argument``: ``designs`` (of :func:`assess`) or ``design``
    (one design, of :func:`assess_many`); ``--designs`` on the command line."""
    from simstudy.pipeline.designs import parse_designs as grammar

    named = option(argument, flag="designs")

    specs = grammar(names)
    names = [d.key for d in specs]
    out = []
    n = int(np.asarray(y).size)
    counts = np.bincount(np.asarray(y))
    smallest = int(counts.min())
    label = (lambda c: repr(str(classes[c]))) if classes is not None else (lambda c: f"code {c}")
    small = label(int(np.argmin(counts)))
    if smallest < 2:
        single = np.flatnonzero(counts < 2)
        shown = ", ".join(label(int(c)) for c in single[:5]) + (
            f" and {single.size - 5} more" if single.size > 5 else ""
        )
        raise InputError(
            f"{named}: {single.size} class(es) have a single case ({shown}); every design must "
            "train on each class and test it in every split, which takes at least 2 cases of each: "
            "remove or merge these classes first"
        )
    for d in specs:
        if d.kind == "holdout":
            raise InputError(
                f"{named}: {d.key}: assess compares learners over repeated splits; use resampledR-TT "
                f"(e.g. resampled30-{round(100 * d.test_share)}) for splits that hold out the same share"
            )
        if d.kind in ("cv", "5x2"):
            if d.n_folds > n:
                raise InputError(f"{named}: {d.key}: needs at least 1 run and 2 to {n} folds")
            if d.n_folds > smallest:
                raise InputError(
                    f"{named}: {d.key}: {d.n_folds} folds but the smallest class has {smallest} cases "
                    f"({small}), so some folds would miss it; use at most {smallest} folds: "
                    f"{_fitting_designs(names, smallest, argument)}"
                )
        out.append(
            DesignChoice(
                _stored_name(d),
                d.n_runs,
                d.n_folds,
                d.test_share if d.kind == "resampled" else 0.0,
                *d.mean_sizes(y),
                alpha=alpha,
                spec=d,
            )
        )
    return tuple(out)


def _fitting_designs(names, smallest: int, argument: str = "designs") -> str:
    """``names`` with every cv design's folds cut to ``smallest`` (a duplicate dropped): the designs to use, as
    the argument ``argument`` (see :func:`_choose_designs`) takes them."""
    from simstudy.pipeline.designs import parse_design

    fitted = []
    for name in names:
        d = parse_design(name)
        if d.kind == "cv" and d.make_splitter is None and d.n_folds > smallest:
            name = f"cv{d.n_runs}x{smallest}"
        if name not in fitted:
            fitted.append(name)
    if argument == "design" and len(fitted) == 1:
        return option(argument, fitted[0], flag="designs")
    return _listed(argument, fitted, flag="designs")


def _tests_for(design: DesignChoice, tests) -> dict:
    """``{label: registered name}`` of the tests that run on ``design``: ``tests``, or by default those the papers
    apply to its kind (:func:`simstudy.pipeline.outcomes.default_tests`; "sample" tests on every sampling scheme of
    an r x k cv), or every test in "all" of it when none is registered for its kind."""
    from simstudy.pipeline.outcomes import all_tests, default_tests, get_test

    spec = design.spec
    if tests is None:
        names = tuple(default_tests(spec)) or tuple(all_tests(spec))
        if design.n_runs == 1:  # one run: the whole-design cv tests are the paired t-test on its folds
            names = tuple(n for n in names if n not in ("cv_t",))
        return {n: n for n in names}
    return {n: n for n in tests if get_test(n).runs_on(spec)}


def _schemes_for(design: DesignChoice) -> tuple:
    """The sampling schemes whose sample has at least two values on ``design`` (a test needs two), each once.

    With one run (``cv1x10``, plain k-fold cv) the resampling and
    average-over-folds schemes have one value per repeat, and the other four
    are the same sample: the k-fold cv scheme stands for them.  With one test
    part per split (resampled) the resampling scheme stands likewise.
    """
    from simstudy.pipeline.schemes import get_scheme, scheme_names

    r, k = design.n_runs, max(design.n_folds, 1)
    if r == 1 and k >= 2:
        return ("kfold_cv",)
    if k == 1 and r >= 2:
        return ("resampling",)
    return tuple(s for s in scheme_names() if get_scheme(s).size(r, k) >= 2)


def _check_designs(designs, tests, data: Dataset, metric: str = "accuracy") -> None:
    """Refuse, before anything is written, a design on which a test cannot give a result (one line).

    Each design is run once, with its tests and schemes, on two stand-in
    learners (scikit-learn's dummy classifiers) fitted on no attribute: what
    fails there fails in every repeat whatever the learners.
    """
    from sklearn.dummy import DummyClassifier

    from simstudy.pipeline.comparison import Comparison

    X = np.zeros((data.y.size, 1))
    stand_ins = {"a": DummyClassifier(strategy="prior"), "b": DummyClassifier(strategy="stratified")}
    for cond in designs:
        chosen = _tests_for(cond, tests)

        def run(which):
            comparison = Comparison(
                stand_ins,
                designs={cond.key: cond.spec},
                tests=which,
                alpha=cond.alpha,
                schemes=_schemes_for(cond),
                index_dtype=np.int16,
                metric=metric,
            )
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                comparison.run(X, data.y, np.random.default_rng(0))

        try:
            run(chosen)
        except Exception as exc:
            culprit = ""
            for label, name in chosen.items():
                try:
                    run({label: name})
                except Exception:
                    culprit = f" test {label!r}"
                    break
            raise InputError(
                f"{option('designs')}: {cond.key} cannot give a result on {data.name}:{culprit} {_one_line(exc)}; "
                f"choose another design or other {option('tests')}"
            ) from None


def _check_tests(tests, designs) -> tuple | None:
    from simstudy.pipeline.outcomes import get_test, test_names

    if tests is None:
        return None
    if isinstance(tests, str):
        tests = [t for t in tests.replace(",", " ").split() if t]
    if list(tests) == ["all"]:
        tests = test_names(in_all=True)
    for t in tests:
        try:
            get_test(t)
        except ValueError:
            raise InputError(f"{option('tests')}: unknown test {t!r}; registered: {', '.join(test_names())}") from None
    tests = tuple(tests)
    for t in tests:
        if not any(t in _tests_for(d, tests) for d in designs):
            raise InputError(
                f"{option('tests')}: {t!r} applies to none of the designs {', '.join(d.key for d in designs)}"
            )
    return tests
