"""Tests with identities, and the one step that turns paired scores into outcome rows.

Every significance test that a study or ``simstudy bench`` can apply to paired
scores is registered here once, under a stable name, with what it needs:

``takes``
    ``"sample"``: a sample of differences of shape ``(..., m)`` (a sampling
    scheme's sample, or the per-data-set differences of Berrar's studies 1 and
    2); ``"cv"``: the ``(..., n_runs, n_folds)`` matrix of a repeated
    cross-validation; ``"splits"``: the ``(..., n_splits)`` differences of
    random train/test splits; ``"5x2"``: the ``(..., 5, 2)`` differences of
    Dietterich's 5 x 2 cv; ``"scores"``: the :class:`~simstudy.pipeline.scores.PairedScores`
    themselves, for a test that needs the accuracies of A and B, not only their
    differences.
``sizes``
    True when the test needs the training and test sizes of one split (the
    variance-corrected tests).

A study asks for its tests by label (the name its paper prints, which is what
its stored rows carry) mapped to a registered name, e.g.
``{"rank sum": "signed_rank"}``; :func:`outcome_rows` runs them, vectorised over
every leading axis, and returns one row per leading index, scheme and test.
Adding a test is one :func:`register_test` call: it is then listed by
:func:`test_names`, offered by ``simstudy bench`` on every study that stores
paired scores, and run by every study declared with ``tests="all"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.errors import InputError
from simstudy.pipeline.schemes import get_scheme, scheme_sample
from simstudy.pipeline.scores import PairedScores
from simstudy.statistics import significance as h

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")
stats = lazy_module("scipy.stats")

__all__ = [
    "TestSpec",
    "register_test",
    "get_test",
    "test_names",
    "deciding_test",
    "all_tests",
    "default_tests",
    "run_test",
    "outcome_rows",
    "INPUTS",
    "CORRECTIONS",
    "STATISTICS",
]

INPUTS = ("sample", "cv", "splits", "5x2", "scores")
#: How a test treats the dependence of splits that share training cases (see :class:`TestSpec`).
CORRECTIONS = ("uncorrected", "corrected", "5x2cv", "calibrated", "one split")
#: What a test's statistic is, which says how a verdict of it is read (see :class:`TestSpec`).
STATISTICS = ("t", "signed rank", "wins, a tie half", "wins", "other", "no direction")


@dataclass(frozen=True)
class TestSpec:
    """A registered significance test.

    Attributes
    ----------
    name : str
        Stable identity (``"paired_t"``, ``"signed_rank"``, ...).
    function : callable
        ``function(x)`` or, with ``sizes``, ``function(x, n_train=..., n_test=...)``,
        returning a :class:`simstudy.statistics.significance.SignificanceResult` vectorised
        over the leading axes of ``x``.
    takes : str
        What ``x`` is: one of :data:`INPUTS` (see the module docstring).
    sizes : bool
        Whether the test needs the training and test sizes of one split.
    description : str
        One line for listings.
    in_all : bool
        Whether ``tests="all"`` includes it.  A test made for one design only
        (the calibrated t-tests) is run when it is named, so the stored rows of
        a study that runs every test do not change when it is registered.
    correction : str
        How it treats the dependence of splits that share training cases (one
        of :data:`CORRECTIONS`): ``corrected`` (the Nadeau-Bengio variance),
        ``5x2cv`` (Dietterich's and Alpaydin's own construction),
        ``calibrated`` (Bouckaert's calibrated degrees of freedom), ``one
        split`` (a test on one holdout split) or ``uncorrected`` (the values
        taken as independent).  What the applications mark and judge by.
    decides : bool
        Whether a Conclusion may rest on it: a design's decision is made by the
        first registered deciding test the design can feed (the corrected
        t-tests of the r x k cv and of the resampled splits), and only where
        the evidence shows it controls size.
    designs : tuple of str, optional
        The kinds of design it runs on (:data:`simstudy.pipeline.designs.KINDS`);
        default every kind that can feed its input.  McNemar's test is made for
        a holdout split, so it runs on holdout designs only.
    citation : str
        Where the test is defined.
    label : str
        How a page names it in words (default: its name).
    statistic : str
        What its statistic is (one of :data:`STATISTICS`), which says how the
        applications read a verdict of it: ``t`` (Student's t with its degrees
        of freedom; Berrar's non-central t model forecasts its replication),
        ``signed rank`` (Wilcoxon's normal z; his Wilcoxon model), ``wins, a
        tie half`` and ``wins`` (a count of the differences A wins, a tie
        counted half a win or not at all; his binomial model), ``other`` (a
        statistic no replication model reads, such as McNemar's chi-square; its
        decision still has a direction) or ``no direction`` (it says that A and
        B differ, not which is better: the 5 x 2 cv F test).
    default_on : tuple of str
        The kinds of design on which the papers apply it, and on which
        ``assess`` therefore runs it when no tests are named
        (:func:`default_tests`); empty for most tests.
    """

    name: str
    function: Callable
    takes: str = "sample"
    sizes: bool = False
    description: str = ""
    in_all: bool = True
    correction: str = ""
    decides: bool = False
    designs: tuple | None = None
    citation: str = ""
    label: str = ""
    statistic: str = "t"
    default_on: tuple = ()

    def __post_init__(self):
        if self.takes not in INPUTS:
            raise InputError(f"takes: must be one of {', '.join(INPUTS)}, got {self.takes!r} (test {self.name!r})")
        if not callable(self.function):
            raise InputError(f"function: test {self.name!r} needs a callable")
        if not self.correction:
            kind = "corrected" if self.sizes else ("5x2cv" if self.takes == "5x2" else "uncorrected")
            object.__setattr__(self, "correction", kind)
        if self.correction not in CORRECTIONS:
            raise InputError(
                f"correction: must be one of {', '.join(CORRECTIONS)}, got {self.correction!r} (test {self.name!r})"
            )
        if self.statistic not in STATISTICS:
            raise InputError(
                f"statistic: must be one of {', '.join(STATISTICS)}, got {self.statistic!r} (test {self.name!r})"
            )
        if self.designs is not None:
            object.__setattr__(self, "designs", tuple(self.designs))
        object.__setattr__(self, "default_on", tuple(self.default_on))
        from simstudy.pipeline.designs import KINDS

        unknown = [k for k in self.default_on if k not in KINDS]
        if unknown:
            raise InputError(
                f"default_on: kinds of design are {', '.join(KINDS)}, got {', '.join(map(repr, unknown))} "
                f"(test {self.name!r})"
            )
        if not self.label:
            object.__setattr__(self, "label", self.name)

    def runs_on(self, design) -> bool:
        """Whether it runs on ``design`` (a :class:`~simstudy.pipeline.designs.DesignSpec`): the design feeds
        its input, and it is one of the kinds the test is made for."""
        return self.takes in design.inputs and (self.designs is None or design.kind in self.designs)

    def __call__(self, x, n_train=None, n_test=None) -> h.SignificanceResult:
        if self.sizes:
            if n_train is None or n_test is None:
                raise InputError(f"test {self.name!r}: needs the training and test sizes (n_train, n_test)")
            return self.function(x, n_train=n_train, n_test=n_test)
        return self.function(x)


_REGISTRY: dict[str, TestSpec] = {}


def register_test(
    name: str,
    function: Callable,
    *,
    takes: str = "sample",
    sizes: bool = False,
    description: str = "",
    replace: bool = False,
    in_all: bool = True,
    correction: str = "",
    decides: bool = False,
    designs=None,
    citation: str = "",
    label: str = "",
    statistic: str = "t",
    default_on=(),
) -> TestSpec:
    """Register a test under ``name`` (a second registration of a name is refused unless ``replace``).

    Parameters
    ----------
    name : str
        The stable name (``"my_t"``).
    function : callable
        The test; see :class:`TestSpec` for its calling convention.
    takes : str
        What it takes: one of :data:`INPUTS`.
    sizes : bool
        Whether it needs the training and test sizes of one split.
    description : str
        One line for listings.
    replace : bool
        Replace a test already registered under ``name``.
    in_all : bool
        Whether ``tests="all"`` (and ``simstudy bench --test all``) includes it.
    correction, decides, designs, citation, label, statistic, default_on
        What the applications know of it (see :class:`TestSpec`): its kind of
        correction (default: ``corrected`` when it takes the split sizes,
        ``5x2cv`` when it takes a 5 x 2 cv, else ``uncorrected``), whether a
        Conclusion may rest on it, the kinds of design it is made for, where it
        is defined, how a page names it, what its statistic is (default a t
        statistic) and the kinds of design ``assess`` runs it on by default.

    Returns
    -------
    TestSpec
        The registered test; passing it instead of its name to
        :func:`outcome_rows` carries the function to every worker.

    Raises
    ------
    ValueError
        An empty or taken name, an unknown ``takes``, or a function that is not callable.
    """
    if not isinstance(name, str) or not name:
        raise InputError(f"name: a test needs a non-empty name, got {name!r}")
    if name in _REGISTRY and not replace:
        raise InputError(f"name: a test called {name!r} is already registered")
    spec = TestSpec(
        name,
        function,
        takes,
        sizes,
        description,
        in_all,
        correction,
        decides,
        designs,
        citation,
        label,
        statistic,
        default_on,
    )
    _REGISTRY[name] = spec
    return spec


def get_test(name) -> TestSpec:
    """The registered test ``name`` (a :class:`TestSpec` is returned unchanged).

    Parameters
    ----------
    name : str or TestSpec
        A registered name.

    Returns
    -------
    TestSpec

    Raises
    ------
    ValueError
        An unknown name (the message lists the registered ones).
    """
    if isinstance(name, TestSpec):
        return name
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise InputError(f"test: unknown test {name!r}; registered: {', '.join(_REGISTRY)}") from None


def test_names(takes: str | None = None, *, in_all: bool = False) -> list[str]:
    """Names of the registered tests (of one input kind if ``takes`` is given), in registration order.

    Parameters
    ----------
    takes : str, optional
        One of :data:`INPUTS`.
    in_all : bool
        Only the tests that ``tests="all"`` includes.

    Returns
    -------
    list of str
    """
    return [n for n, s in _REGISTRY.items() if (takes is None or s.takes == takes) and (s.in_all or not in_all)]


def all_tests(design) -> dict[str, str]:
    """``{name: name}`` of every registered test that runs on ``design`` and belongs in "all" of it: the tests
    in "all" (:attr:`~simstudy.pipeline.outcomes.TestSpec.in_all`), and those made for its kind (McNemar's
    and the difference of proportions on a holdout), in registration order."""
    out = {}
    for n, spec in _REGISTRY.items():
        made_for = spec.designs is not None and design.kind in spec.designs
        if spec.runs_on(design) and (spec.in_all or made_for):
            out[n] = n
    return out


def default_tests(design) -> dict[str, str]:
    """``{name: name}`` of the registered tests the papers apply to ``design``'s kind (:attr:`TestSpec.default_on`)
    that run on it, in registration order: what ``assess`` runs when no tests are named."""
    return {n: n for n, spec in _REGISTRY.items() if design.kind in spec.default_on and spec.runs_on(design)}


def deciding_test(design) -> TestSpec | None:
    """The test a Conclusion decides ``design`` by: the first registered deciding test that runs on it (None: none)."""
    return next((s for s in _REGISTRY.values() if s.decides and s.runs_on(design)), None)


def _input(scores: PairedScores, spec: TestSpec, scheme: str | None) -> np.ndarray | PairedScores:
    d = scores.diffs
    if spec.takes == "sample":
        if scheme is not None:
            return scheme_sample(d, scheme)
        return scores.sample if scores.sample is not None else d.reshape(d.shape[:-2] + (-1,))
    if spec.takes == "scores":
        return scores
    if scheme is not None:
        raise InputError(
            f"test {spec.name!r}: takes the whole design ({spec.takes}), not a scheme's sample (scheme {scheme!r})"
        )
    if spec.takes == "splits":
        if d.shape[-1] != 1:
            raise InputError(f"test {spec.name!r}: needs one test fold per split, got {d.shape[-1]} folds")
        return d[..., 0]
    if spec.takes == "5x2" and d.shape[-2:] != (5, 2):
        raise InputError(f"test {spec.name!r}: needs 5 runs of 2 folds, got {d.shape[-2]} x {d.shape[-1]}")
    return d


def run_test(test, scores: PairedScores, *, scheme: str | None = None) -> h.SignificanceResult:
    """Apply one registered test to paired scores (vectorised over the leading axes).

    Parameters
    ----------
    test : str or TestSpec
        A registered test.
    scores : PairedScores
        Paired accuracies, shape ``(..., n_runs, n_folds)``.
    scheme : str or Scheme, optional
        For a ``"sample"`` test: the registered sampling scheme that makes its
        sample (:func:`simstudy.pipeline.schemes.scheme_names`).

    Returns
    -------
    simstudy.statistics.significance.SignificanceResult
        With the leading shape of the scores.
    """
    spec = get_test(test)
    return spec(_input(scores, spec, scheme), scores.n_train, scores.n_test)


def outcome_rows(
    scores: PairedScores,
    tests: Mapping[str, str] | str,
    *,
    alpha: float,
    schemes=None,
    index: Mapping[str, object] | None = None,
) -> pd.DataFrame:
    """One outcome row per leading index, scheme and test.

    Parameters
    ----------
    scores : PairedScores
        Accuracies of A and B, shape ``(*lead, n_runs, n_folds)``.
    tests : mapping of label -> registered name, or ``"all"``
        The tests to run, keyed by the label stored in the ``test`` column.
        ``"all"`` runs every registered test that applies to ``scores`` (the
        ``"sample"`` tests on every scheme), each labelled with its name.
    alpha : float
        Significance level of the decisions.
    schemes : sequence of str or Scheme, optional
        Registered sampling schemes (:func:`simstudy.pipeline.schemes.scheme_names`); the ``"sample"``
        tests run on each scheme's sample, and a ``scheme`` column is added.
        Without schemes, ``"sample"`` tests take ``scores.sample`` or, if that
        is None, all the differences of a replication as one sample.
    index : mapping of column -> values, optional
        Columns that identify the leading indices, each of the leading shape or
        broadcastable to it (e.g. ``{"experiment": np.arange(10)}``); they come
        first in every row.

    Returns
    -------
    DataFrame
        Columns: the ``index`` columns, ``scheme`` (with schemes), ``test``,
        ``statistic``, ``pvalue`` (float) and ``decision`` (int8: +1 A
        significantly better, -1 B, 0 not significant); rows ordered by scheme,
        then test, then leading index, the whole-design tests last.
    """
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha: must lie strictly between 0 and 1, got {alpha!r}")
    lead = scores.acc_a.shape[:-2]
    n = int(np.prod(lead, dtype=np.int64))
    if isinstance(tests, str):
        if tests != "all":
            raise InputError(f"tests: a mapping of label to test name, or 'all'; got {tests!r}")
        tests = {name: name for name in _applicable_to(scores)}
    specs = {label: get_test(name) for label, name in tests.items()}
    if schemes is not None:
        schemes = [get_scheme(s) for s in schemes]
    idx = {k: _column(v, lead) for k, v in (index or {}).items()}
    blocks = []
    # with schemes: every sample test on every scheme's sample, then each other test once on the whole
    # design (its scheme column left empty)
    runs = [
        (scheme, label, spec)
        for scheme in (schemes if schemes is not None else (None,))
        for label, spec in specs.items()
        if schemes is None or spec.takes == "sample"
    ]
    if schemes is not None:
        runs += [(None, label, spec) for label, spec in specs.items() if spec.takes != "sample"]
    for scheme, label, spec in runs:
        res = run_test(spec, scores, scheme=scheme)
        block = dict(idx)
        if schemes is not None:
            block["scheme"] = np.full(n, scheme.name if scheme is not None else "", dtype=object)
        block["test"] = np.full(n, label, dtype=object)
        block["statistic"] = np.broadcast_to(np.asarray(res.statistic, dtype=float), lead).ravel()
        block["pvalue"] = np.broadcast_to(np.asarray(res.pvalue, dtype=float), lead).ravel()
        block["decision"] = np.broadcast_to(res.decision(alpha), lead).ravel().astype(np.int8)
        blocks.append(block)
    if not blocks:
        return pd.DataFrame(
            columns=[*idx, *(["scheme"] if schemes is not None else []), "test", "statistic", "pvalue", "decision"]
        )
    return pd.DataFrame({k: np.concatenate([b[k] for b in blocks]) for k in blocks[0]})


def _column(values, lead) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind in "US":  # text stays Python strings, as pandas keeps them
        arr = arr.astype(object)
    return np.broadcast_to(arr, lead).ravel()


def _applicable_to(scores: PairedScores) -> list[str]:
    runs, folds = scores.acc_a.shape[-2:]
    ok = ["sample", "scores"]
    if folds >= 2:
        ok.append("cv")
    if folds == 1:
        ok.append("splits")
    if (runs, folds) == (5, 2):
        ok.append("5x2")
    return [
        n for n, s in _REGISTRY.items() if s.in_all and s.takes in ok and (not s.sizes or scores.n_train is not None)
    ]


# -- the built-in tests --------------------------------------------------------------------


def _sign_cdf(x):
    return h.sign_test(x, rule="cdf")


def _sign_cdf_reversed(x):
    # the printed rule with B as the first learner, reported in A's direction: the statistic counts
    # B's pluses and the direction is flipped
    res = h.sign_test(-np.asarray(x), rule="cdf")
    return h.SignificanceResult(res.statistic, res.pvalue, res.df, -np.asarray(res.direction))


def _signed_rank_corrected(x):
    return h.signed_rank_test(x, continuity=True, tie_correction=True)


def _binomial_wins(x):
    x = np.asarray(x, dtype=float)
    return h.binomial_test((x > 0).sum(axis=-1), x.shape[-1])


def _welch_t(scores):
    # A's and B's accuracies on every split as two independent samples with unequal variances
    a = scores.acc_a.reshape(scores.acc_a.shape[:-2] + (-1,))
    b = scores.acc_b.reshape(scores.acc_b.shape[:-2] + (-1,))
    na, nb = a.shape[-1], b.shape[-1]
    diff = a.mean(axis=-1) - b.mean(axis=-1)
    va, vb = a.var(axis=-1, ddof=1) / na, b.var(axis=-1, ddof=1) / nb
    # no spread in either sample (exactly: every value equal): equal means are no evidence, unequal ones certain
    flat = (np.ptp(a, axis=-1) == 0) & (np.ptp(b, axis=-1) == 0)
    with np.errstate(invalid="ignore", divide="ignore"):  # the flat cases are replaced below
        se = np.sqrt(np.where(flat, 1.0, va + vb))
        df = np.where(flat, np.inf, (va + vb) ** 2 / np.where(flat, 1.0, va**2 / (na - 1) + vb**2 / (nb - 1)))
        t = np.where(flat, np.where(diff == 0, 0.0, np.sign(diff) * np.inf), diff / se)
        p = np.where(flat, np.where(diff == 0, 1.0, 0.0), 2 * stats.t.sf(np.abs(t), df))
    return h.SignificanceResult(t, p, df, np.sign(t))


def _first_split(x):
    return np.asarray(x)[..., 0, 0]


def _mcnemar(scores):
    # Dietterich's McNemar test on one holdout: the first split's discordant counts, continuity-corrected
    if scores.n01 is None or scores.n10 is None:
        raise InputError(
            "test 'mcnemar': needs the per-case results of the split (discordant counts n01 and n10), "
            "which these paired scores do not carry"
        )
    return h.mcnemar_test(_first_split(scores.n01), _first_split(scores.n10))


def _difference_of_proportions(scores):
    # Dietterich's difference of two proportions on one holdout: the first split's error rates
    return h.difference_of_proportions_test(
        1.0 - _first_split(scores.acc_a), 1.0 - _first_split(scores.acc_b), scores.n_test
    )


# default_on: the tests the papers apply to each kind of design, which assess runs when none are named
register_test("paired_t", h.paired_t_test, default_on=("cv",), description="paired t-test on the sample")
register_test(
    "sign",
    h.sign_test,
    statistic="wins, a tie half",
    default_on=("cv",),
    description="exact two-sided sign test (ties count half)",
)
register_test(
    "sign_cdf",
    _sign_cdf,
    statistic="wins, a tie half",
    description="sign test with the rule Bouckaert prints: A better when P(K <= Z) > 1 - alpha/2",
)
register_test(
    "sign_cdf_reversed",
    _sign_cdf_reversed,
    statistic="wins, a tie half",
    description="the printed sign rule with B as the first learner, in A's direction",
)
register_test(
    "signed_rank",
    h.signed_rank_test,
    statistic="signed rank",
    default_on=("cv",),
    description="Wilcoxon signed-rank (Bouckaert's rank sum): zeros removed, normal approximation",
)
register_test(
    "signed_rank_corrected",
    _signed_rank_corrected,
    statistic="signed rank",
    description="Wilcoxon signed-rank with continuity and tie corrections (Berrar's Eq. 10)",
)
register_test(
    "binomial",
    _binomial_wins,
    statistic="wins",
    description="exact binomial test of the number of positive differences (wins of A)",
)
register_test(
    "cv_t", h.repeated_cv_t_test, takes="cv", default_on=("cv",), description="t-test on all folds of a repeated cv"
)
register_test(
    "corrected_cv_t",
    h.corrected_repeated_cv_t_test,
    takes="cv",
    sizes=True,
    decides=True,
    # on the 5 x 2 cv's ten splits (n_test/n_train = 1): the test its interval inverts
    default_on=("cv", "5x2"),
    citation="Nadeau and Bengio (2003); Bouckaert and Frank (2004)",
    label="corrected repeated cv t-test",
    description="variance-corrected repeated cv t-test (Bouckaert and Frank; Nadeau and Bengio)",
)
register_test(
    "resampled_t", h.resampled_t_test, takes="splits", default_on=("resampled",), description="resampled t-test"
)
register_test(
    "corrected_resampled_t",
    h.corrected_resampled_t_test,
    takes="splits",
    sizes=True,
    decides=True,
    default_on=("resampled",),
    citation="Nadeau and Bengio (2003)",
    label="corrected resampled t-test",
    description="corrected resampled t-test (Nadeau and Bengio)",
)
register_test(
    "5x2cv_t", h.five_by_two_cv_t_test, takes="5x2", default_on=("5x2",), description="Dietterich's 5 x 2 cv t-test"
)
register_test(
    "5x2cv_f",
    h.five_by_two_cv_f_test,
    takes="5x2",
    statistic="no direction",
    default_on=("5x2",),
    description="Alpaydin's 5 x 2 cv F test",
)
register_test(
    "welch_t",
    _welch_t,
    takes="scores",
    designs=("cv", "5x2", "resampled"),  # two samples of several splits; a holdout has one value per learner
    description="Welch's t-test on the accuracies of A and B as two independent samples",
)
# Dietterich's (1998) two tests on one holdout split (the first split of the design): run when named
register_test(
    "mcnemar",
    _mcnemar,
    takes="scores",
    in_all=False,
    correction="one split",
    designs=("holdout",),
    citation="Dietterich (1998)",
    label="McNemar's test",
    statistic="other",
    description="McNemar's test on the first split's discordant cases (Dietterich 1998)",
)
register_test(
    "difference_of_proportions",
    _difference_of_proportions,
    takes="scores",
    in_all=False,
    correction="one split",
    designs=("holdout",),
    citation="Dietterich (1998)",
    label="difference of two proportions",
    statistic="other",
    description="difference of two proportions on the first split's error rates (Dietterich 1998)",
)

from simstudy.pipeline import calibrated as _calibrated  # noqa: E402 - it registers through register_test, defined above

_calibrated.register(register_test)

from simstudy.pipeline import inflation as _inflation  # noqa: E402 - registers through register_test, as above

_inflation.register(register_test)

#: The built-in tests (the others were registered by a user: :mod:`simstudy.pipeline.catalogue`).
_BUILTIN = frozenset(_REGISTRY)
