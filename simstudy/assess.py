"""Assess one comparison: how replicable is "A beats B" on this data set, with these learners?

Bouckaert's replicability experiment, run on the user's own data: every design
the papers compare is repeated ``n_repeats`` times on fresh random partitions
of the same data, every learner is fitted once per split, and every test (on
every sampling scheme of the repeated cross-validation) is applied to the same
fits.  From the stored rows alone, :func:`assessment_tables` then gives per
design, scheme and test:

* the share of repeats that reject in each direction, with exact intervals;
* R2 (Bouckaert 2004, Eq. 1 with three outcomes) and its standard error
  (Theorem 3.1), and whether all repeats agree (Bouckaert and Frank's
  consistency on one data set);
* the first repeat's statistic and p-value, with Berrar's replication
  probability of its verdict and the prediction interval (non-central t for
  the t-tests, the Wilcoxon model with ``s* = 1`` for the signed-rank tests,
  the binomial model for the sign tests);
* the empirical replication rate ``F`` of a significant verdict: the share of
  the other repeats that reach the same significant verdict.

The assessment is a :class:`~simstudy.engine.Study` built at run time (one
condition per design, one replication per repeat), so it is stored, resumed
and verified like any study and is a deterministic function of the data, the
learners, the designs and the seed.  :func:`recommend` adds the evidence of the
stored simulation studies: which of these tests kept its Type I error on
Bouckaert's null source.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from ._lazy import lazy_module

pd = lazy_module("pandas")

__all__ = ["Dataset", "LearnerChoice", "DesignChoice", "load_data", "parse_learner", "parse_designs",
           "assessment_study", "assess", "assessment_tables", "recommend", "type_one_evidence",
           "DEFAULT_DESIGNS", "DEFAULT_TESTS", "ASSESS_PROFILE"]

ASSESS_PROFILE = "assess"
DEFAULT_DESIGNS = ("cv10x10", "5x2cv", "resampled10")
# The tests the papers apply to each design ("sample" tests run on every sampling scheme of the r x k cv).
DEFAULT_TESTS = {"cv": ("paired_t", "sign", "signed_rank", "cv_t", "corrected_cv_t"),
                 "5x2cv": ("5x2cv_t", "5x2cv_f"),
                 "resampled": ("resampled_t", "corrected_resampled_t")}
RESAMPLED_TEST_SHARE = 0.1  # Bouckaert and Frank's 90% / 10% subsamples
# Fewer stored null replications than this give no verdict on a test's Type I error (an interval
# from 20 data sets cannot tell 5% from 15%).
MIN_EVIDENCE = 100


# ----------------------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Dataset:
    """A data set ready for learning.

    Attributes
    ----------
    name : str
        Where it came from (a file path or a shipped data set's name).
    X : ndarray of float, shape (n, p)
        Numeric attributes; nominal ones coded 0..k-1; NaN for missing.
    y : ndarray of int, shape (n,)
        Class codes 0..c-1.
    columns : tuple of str
        Attribute names.
    nominal : tuple of bool
        Which attributes are nominal.
    n_categories : tuple of int
        Categories of each nominal attribute (0 for numeric ones).
    classes : tuple of str
        Class labels, in code order.
    """

    name: str
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    columns: tuple
    nominal: tuple
    n_categories: tuple
    classes: tuple

    @property
    def digest(self) -> str:
        """SHA-256 of the data as learnt from (values, types and labels), to tie stored rows to it."""
        h = hashlib.sha256()
        h.update(np.ascontiguousarray(self.X, dtype=float).tobytes())
        h.update(np.ascontiguousarray(self.y, dtype=np.int64).tobytes())
        h.update(json.dumps([self.columns, self.nominal, self.n_categories, self.classes]).encode())
        return h.hexdigest()

    @property
    def has_missing(self) -> bool:
        """Whether any attribute value is missing (NaN)."""
        return bool(np.isnan(self.X).any())


def _finish(name, X, y_labels, columns, nominal, n_categories, *, where="") -> Dataset:
    y_labels = np.asarray(y_labels)
    keep = pd.notna(y_labels)
    if not keep.all():  # as Weka does: cases without a class are left out
        X, y_labels = X[keep], y_labels[keep]
    classes, y = np.unique(y_labels.astype(str), return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"DATA: {name}: the class{where} has {classes.size} distinct value(s); "
                         "a comparison of classifiers needs at least two classes")
    if y.size < 10:
        raise ValueError(f"DATA: {name}: {y.size} cases with a class; an assessment needs at least 10")
    if X.shape[1] == 0:
        raise ValueError(f"DATA: {name}: no attributes besides the class")
    return Dataset(str(name), np.asarray(X, dtype=float), y.astype(np.int64), tuple(map(str, columns)),
                   tuple(bool(v) for v in nominal), tuple(int(v) for v in n_categories),
                   tuple(str(c) for c in classes))


def _from_frame(df: pd.DataFrame, name: str, class_column) -> Dataset:
    if df.shape[1] < 2:
        raise ValueError(f"DATA: {name}: needs at least two columns (attributes and a class), found {df.shape[1]}")
    if class_column is None:
        class_column = df.columns[-1]
    elif class_column not in df.columns:
        raise ValueError(f"--class: {name} has no column {class_column!r}; its columns: "
                         f"{', '.join(map(str, df.columns))}")
    y = df[class_column].to_numpy(dtype=object)
    y = np.array([None if (v is None or (isinstance(v, float) and math.isnan(v))) else v for v in y], dtype=object)
    X_cols, nominal, n_cat, cols = [], [], [], []
    for c in df.columns:
        if c == class_column:
            continue
        s = df[c]
        if pd.api.types.is_bool_dtype(s):
            s = s.astype(float)
        if pd.api.types.is_numeric_dtype(s):
            X_cols.append(s.to_numpy(dtype=float))
            nominal.append(False)
            n_cat.append(0)
        else:
            values = s.astype("string")
            cats = sorted(values.dropna().unique())
            codes = values.map({v: float(i) for i, v in enumerate(cats)}).astype("Float64").to_numpy(
                dtype=float, na_value=np.nan)
            X_cols.append(codes)
            nominal.append(True)
            n_cat.append(len(cats))
        cols.append(str(c))
    X = np.column_stack(X_cols) if X_cols else np.empty((len(df), 0))
    return _finish(name, X, y, cols, nominal, n_cat, where=f" column {class_column!r}")


def load_data(data, *, class_column: str | None = None) -> Dataset:
    """Read a data set for an assessment.

    Parameters
    ----------
    data : str or os.PathLike
        A CSV file (a header line; the class column named by ``class_column``
        or the last one), an ARFF file (the class attribute named, or the
        last), a Parquet file, or the name of a shipped data set (see
        :func:`simstudy.data.uci_datasets`).  Columns that are not numbers are
        nominal attributes; empty cells (and ``?`` in ARFF) are missing values.
    class_column : str, optional
        Name of the class column.

    Returns
    -------
    Dataset

    Raises
    ------
    ValueError
        One line naming the file (and line or column where known): a file that
        cannot be read or parsed, no such column, a class with fewer than two
        values, fewer than 10 cases.
    """
    from .data import load_uci, uci_datasets
    from .data.arff import read_arff

    text = str(data)
    path = Path(text)
    if not path.exists() and text in uci_datasets():
        arff = load_uci(text)
        return _arff_dataset(arff, text, class_column)
    if not path.exists():
        raise ValueError(f"DATA: {text}: no such file, and not a shipped data set "
                         f"(shipped: {', '.join(uci_datasets())})")
    if path.is_dir():
        raise ValueError(f"DATA: {text}: is a directory, expected a CSV, ARFF or Parquet file")
    suffix = path.suffix.lower()
    try:
        if suffix == ".arff":
            return _arff_dataset(read_arff(path), text, class_column)
        if suffix in (".parquet", ".pq"):
            try:
                df = pd.read_parquet(path)
            except Exception as exc:  # pyarrow raises its own error types
                raise ValueError(f"DATA: {text}: not a readable Parquet file ({type(exc).__name__}: "
                                 f"{str(exc).splitlines()[0] if str(exc) else ''})") from None
            return _from_frame(df, text, class_column)
        if suffix in (".csv", ".txt", ".tsv", ""):
            try:
                df = pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", skipinitialspace=True,
                                 na_values=["?", "NA", "NaN", ""], keep_default_na=True)
            except UnicodeDecodeError as exc:
                raise ValueError(f"DATA: {text}: not a text file ({exc.reason} at byte {exc.start})") from None
            except pd.errors.EmptyDataError:
                raise ValueError(f"DATA: {text}: the file is empty") from None
            except pd.errors.ParserError as exc:
                msg = str(exc).strip().splitlines()[-1]
                raise ValueError(f"DATA: {text}: cannot parse: {msg}") from None
            if df.empty:
                raise ValueError(f"DATA: {text}: a header but no data lines")
            return _from_frame(df, text, class_column)
    except OSError as exc:
        raise ValueError(f"DATA: {text}: cannot read: {exc.strerror or exc}") from None
    raise ValueError(f"DATA: {text}: unknown file type {suffix!r}; expected .csv, .tsv, .arff or .parquet")


def _arff_dataset(arff, name, class_column) -> Dataset:
    X, y, names = arff.X, arff.y, list(arff.names)
    cats = list(arff.categories)
    class_name, class_cats = arff.class_name, arff.class_categories
    if class_column is not None and class_column != class_name:
        if class_column not in names:
            raise ValueError(f"--class: {name} has no attribute {class_column!r}; its attributes: "
                             f"{', '.join([*names, class_name])}")
        j = names.index(class_column)
        # the named attribute becomes the class, the file's last attribute an ordinary one
        new_y = X[:, j]
        y_cats = cats[j]
        X = np.column_stack([np.delete(X, j, axis=1), y])
        names = [*names[:j], *names[j + 1:], class_name]
        cats = [*cats[:j], *cats[j + 1:], class_cats]
        y, class_cats = new_y, y_cats
    labels = np.array([None if np.isnan(v) else (class_cats[int(v)] if class_cats else repr(float(v)))
                       for v in y], dtype=object)
    nominal = [c is not None for c in cats]
    return _finish(name, X, labels, names, nominal, [len(c) if c is not None else 0 for c in cats],
                   where=f" attribute {class_name!r}")


# ----------------------------------------------------------------------------------------- learners


@dataclass(frozen=True)
class LearnerChoice:
    """A learner of the comparison: a registered name or a scikit-learn estimator.

    Attributes
    ----------
    spec : str
        A registered learner name (``NB``, ``C4.5``, ``e1071.svm``, ...), a
        ``module:Class`` path to an estimator class, or the ``repr`` of an
        estimator instance given in Python.
    params : str
        The estimator's parameters as canonical JSON (``"{}"`` for none).
    """

    spec: str
    params: str = "{}"
    template: object = field(default=None, repr=False, compare=False)

    @property
    def label(self) -> str:
        """The learner as the reports name it: its spec, with its parameters if any."""
        p = json.loads(self.params)
        return self.spec + (f"({', '.join(f'{k}={v!r}' for k, v in p.items())})" if p else "")

    def factory(self, data: Dataset):
        """A zero-argument factory of unfitted learners for ``data`` (see :func:`simstudy.learners.as_learner_factory`)."""
        from .learners import as_learner_factory, learner_class, learner_names

        params = json.loads(self.params)
        if self.template is not None:
            return as_learner_factory(self.template)
        if self.spec in learner_names(aliases=True):
            cls = learner_class(self.spec)
            accepted = inspect.signature(cls.__init__).parameters
            told = {"nominal": np.array(data.nominal, dtype=bool), "n_categories": data.n_categories,
                    "n_classes": len(data.classes)}
            extra = {k: v for k, v in told.items() if k in accepted and k not in params}
            return as_learner_factory(self.spec, **params, **extra)
        return as_learner_factory(_import_class(self.spec), **params)

    @property
    def registered(self) -> bool:
        """Whether the learner is a registered name (then it is told the attribute types)."""
        from .learners import learner_names

        return self.template is None and self.spec in learner_names(aliases=True)


def _import_class(spec: str):
    module, _, name = spec.partition(":")
    if not module or not name:
        from .learners import learner_names

        raise ValueError(f"learner {spec!r}: not a registered learner ({', '.join(learner_names(aliases=True))}) "
                         "nor a module:Class path")
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise ValueError(f"learner {spec!r}: cannot import module {module!r} ({exc})") from None
    obj = mod
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise ValueError(f"learner {spec!r}: module {module!r} has no {name!r}")
    if not inspect.isclass(obj):
        raise ValueError(f"learner {spec!r}: {name!r} is not a class")
    return obj


def parse_learner(spec, params=None, *, option: str = "--a") -> LearnerChoice:
    """A :class:`LearnerChoice` from a name, a ``module:Class`` path, a class or an estimator.

    Parameters
    ----------
    spec : str, estimator class or estimator instance
        A registered name, a ``module:Class`` path, a class or an instance.
    params : dict or str, optional
        Parameters for a name or a class, as a dict or JSON object text (``--a-params``).
    option : str
        The option the errors name.

    Returns
    -------
    LearnerChoice

    Raises
    ------
    ValueError
        One line naming ``option``: an unknown name, a module or class that
        cannot be imported, parameters that are not JSON or that the class refuses.
    """
    from .learners import as_learner_factory, learner_names

    if isinstance(params, str):
        try:
            params = json.loads(params) if params.strip() else {}
        except json.JSONDecodeError as exc:
            raise ValueError(f"{option}-params: not valid JSON ({exc.msg} at column {exc.colno})") from None
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ValueError(f"{option}-params: expected a JSON object such as '{{\"C\": 10}}', got {params!r}")
    canonical = json.dumps(params, sort_keys=True)
    if isinstance(spec, str):
        if spec not in learner_names(aliases=True) and ":" not in spec:
            raise ValueError(f"{option}: unknown learner {spec!r}; use a registered name "
                             f"({', '.join(learner_names(aliases=True))}) or module:Class for a scikit-learn "
                             "estimator")
        try:
            if spec in learner_names(aliases=True):
                as_learner_factory(spec, **params)
            else:
                as_learner_factory(_import_class(spec), **params)
        except ValueError as exc:
            raise ValueError(f"{option}: {exc}") from None
        return LearnerChoice(spec, canonical)
    if inspect.isclass(spec):
        try:
            as_learner_factory(spec, **params)
        except ValueError as exc:
            raise ValueError(f"{option}: {exc}") from None
        return LearnerChoice(f"{spec.__module__}:{spec.__qualname__}", canonical)
    if params:
        raise ValueError(f"{option}-params: not allowed with an estimator instance (set them on the instance)")
    try:
        as_learner_factory(spec)
    except ValueError as exc:
        raise ValueError(f"{option}: {exc}") from None
    return LearnerChoice(repr(spec), "{}", template=spec)


class _Seeded:
    """Factory wrapper: a learner with ``random_state`` gets the repeat's seed (picklable)."""

    __slots__ = ("make", "seed")

    def __init__(self, make, seed):
        self.make, self.seed = make, int(seed)

    def __call__(self):
        est = self.make()
        get = getattr(est, "get_params", None)
        if get is not None and "random_state" in get():
            est.set_params(random_state=self.seed)
        return est

    def __getstate__(self):
        return self.make, self.seed

    def __setstate__(self, state):
        self.make, self.seed = state


# ----------------------------------------------------------------------------------------- designs


@dataclass(frozen=True)
class DesignChoice:
    """One design of an assessment (a condition of its study).

    Attributes
    ----------
    design : str
        ``cv`` (r x k repeated stratified cross-validation), ``5x2cv`` or
        ``resampled`` (random stratified 90% / 10% train/test splits).
    n_runs, n_folds : int
        Runs and folds (``n_folds = 1`` for resampled: one test part per split).
    test_share : float
        Share of each class held out per split (resampled only, else 0).
    n_train, n_test : int
        Training and test sizes of one split, for the corrected tests.
    alpha : float
        Significance level.
    """

    design: str
    n_runs: int
    n_folds: int
    test_share: float
    n_train: int
    n_test: int
    alpha: float = 0.05

    @property
    def key(self) -> str:
        """The condition's name in the stored rows: ``cvRxK``, ``5x2cv`` or ``resampledR``."""
        if self.design == "cv":
            return f"cv{self.n_runs}x{self.n_folds}"
        if self.design == "5x2cv":
            return "5x2cv"
        return f"resampled{self.n_runs}"

    def splitter(self):
        """The :mod:`simstudy.designs` object that draws this design's fold ids."""
        from .designs import RepeatedKFold, Subsample

        if self.design == "resampled":
            return Subsample(self.n_runs, self.test_share)
        return RepeatedKFold(self.n_runs, self.n_folds)

    @property
    def label(self) -> str:
        """The design in words, for the reports."""
        if self.design == "cv":
            return f"{self.n_runs}x{self.n_folds} cv"
        if self.design == "5x2cv":
            return "5x2 cv"
        return f"{self.n_runs} resampled 90/10 splits"


def parse_designs(names, y, *, alpha: float = 0.05) -> tuple[DesignChoice, ...]:
    """Designs from names such as ``cv10x10``, ``cv1x10`` (plain 10-fold cv), ``5x2cv``, ``resampled30``.

    Parameters
    ----------
    names : str or sequence of str
        Design names (a string is split at commas and spaces).
    y : array_like of int
        The class codes (for the split sizes and the smallest class).
    alpha : float
        Significance level stored with each design.

    Returns
    -------
    tuple of DesignChoice

    Raises
    ------
    ValueError
        Naming ``--designs``: an unknown or impossible design, or one named twice.
    """
    import re

    from .designs import RepeatedKFold, Subsample

    if isinstance(names, str):
        names = [n for n in names.replace(",", " ").split() if n]
    out = []
    n = int(np.asarray(y).size)
    smallest = int(np.bincount(np.asarray(y)).min())
    for name in names:
        m = re.fullmatch(r"cv(\d+)x(\d+)", name)
        if m:
            r, k = int(m.group(1)), int(m.group(2))
            if r < 1 or k < 2 or k > n:
                raise ValueError(f"--designs: {name}: needs at least 1 run and 2 to {n} folds")
            if k > smallest:
                raise ValueError(f"--designs: {name}: {k} folds but the smallest class has {smallest} cases, "
                                 "so some folds would miss it; choose fewer folds")
            out.append(DesignChoice("cv", r, k, 0.0, *RepeatedKFold(r, k).sizes(n), alpha=alpha))
            continue
        if name == "5x2cv":
            out.append(DesignChoice("5x2cv", 5, 2, 0.0, *RepeatedKFold(5, 2).sizes(n), alpha=alpha))
            continue
        m = re.fullmatch(r"resampled(\d+)", name)
        if m:
            r = int(m.group(1))
            if r < 2:
                raise ValueError(f"--designs: {name}: needs at least 2 splits")
            out.append(DesignChoice("resampled", r, 1, RESAMPLED_TEST_SHARE,
                                    *Subsample(r, RESAMPLED_TEST_SHARE).sizes(y), alpha=alpha))
            continue
        raise ValueError(f"--designs: unknown design {name!r}; use cvRxK (e.g. cv10x10, cv1x10), 5x2cv or "
                         "resampledR (e.g. resampled10)")
    if not out:
        raise ValueError("--designs: no design given")
    keys = [d.key for d in out]
    if len(set(keys)) < len(keys):
        raise ValueError(f"--designs: a design is named twice ({', '.join(keys)})")
    return tuple(out)


def _tests_for(design: DesignChoice, tests) -> dict:
    """``{label: registered name}`` of the tests that apply to ``design``."""
    from .outcomes import get_test

    if tests is None:
        names = DEFAULT_TESTS[design.design]
        if design.n_runs == 1:  # one run: the whole-design cv tests are the paired t-test on its folds
            names = tuple(n for n in names if n not in ("cv_t",))
        return {n: n for n in names}
    kinds = {"cv": {"sample", "cv", "scores"}, "5x2cv": {"sample", "cv", "5x2", "scores"},
             "resampled": {"sample", "splits", "scores"}}[design.design]
    return {n: n for n in tests if get_test(n).takes in kinds}


def _check_tests(tests, designs) -> tuple | None:
    from .outcomes import get_test, test_names

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
            raise ValueError(f"--tests: unknown test {t!r}; registered: {', '.join(test_names())}") from None
    tests = tuple(tests)
    for t in tests:
        if not any(t in _tests_for(d, tests) for d in designs):
            raise ValueError(f"--tests: {t!r} applies to none of the designs {', '.join(d.key for d in designs)}")
    return tests


# ----------------------------------------------------------------------------------------- the study


def _check_learnable(data: Dataset, choice: LearnerChoice, option: str):
    """Refuse, before anything is written, data the learner cannot take (one line).

    A scikit-learn estimator must get numbers and, unless it declares that it
    takes them, no missing values; then every learner is fitted once on the
    whole data, so that a learner that cannot learn from it fails here, not in
    every split.
    """
    if not choice.registered:
        _check_estimator_input(data, choice, option)
    try:
        est = choice.factory(data)()
        est.fit(data.X, data.y)
        est.predict(data.X[:5])
    except Exception as exc:  # whatever the learner raises: one line, before anything is stored
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise ValueError(f"{option}: {choice.label} cannot learn from {data.name}: {type(exc).__name__}: "
                         f"{first[:300]}") from None


def _check_estimator_input(data: Dataset, choice: LearnerChoice, option: str):
    est = choice.factory(data)()
    nominal = [c for c, nom in zip(data.columns, data.nominal) if nom]
    if nominal:
        raise ValueError(f"{option}: {choice.label} needs numbers, but column(s) {', '.join(map(repr, nominal[:5]))} "
                         "of the data are not numeric; encode them first or use a built-in learner")
    if data.has_missing:
        allow = False
        try:
            from sklearn.utils import get_tags

            allow = bool(get_tags(est).input_tags.allow_nan)
        except Exception:
            allow = False
        if not allow:
            cols = [c for c, miss in zip(data.columns, np.isnan(data.X).any(axis=0)) if miss]
            raise ValueError(f"{option}: {choice.label} cannot take missing values, and column(s) "
                             f"{', '.join(map(repr, cols[:5]))} have some; impute them first or use a learner "
                             "that handles them (e.g. NB, C4.5)")


def assessment_study(data: Dataset, a: LearnerChoice, b: LearnerChoice, designs, *, n_repeats: int = 10,
                     tests=None, chunk_size: int = 1):
    """The :class:`~simstudy.engine.Study` of an assessment: one condition per design, one replication per repeat.

    Its single profile, :data:`ASSESS_PROFILE`, records the data's digest, the
    learners and the tests, so a stored assessment is refused when any of them
    changes (``--fresh`` starts again).

    Parameters
    ----------
    data : Dataset
    a, b : LearnerChoice
    designs : sequence of DesignChoice
    n_repeats : int
        Replications per design (>= 2).
    tests : sequence of str, optional
        Registered test names (``["all"]`` for every one); default :data:`DEFAULT_TESTS`.
    chunk_size : int
        Repeats per stored chunk.

    Returns
    -------
    simstudy.engine.Study
    """
    from .engine import Profile, Study
    from .outcomes import outcome_rows
    from .schemes import SCHEMES
    from .scores import PairedScores, ScoreLayout, cv_accuracies, scores_frame

    if isinstance(n_repeats, bool) or not isinstance(n_repeats, (int, np.integer)) or n_repeats < 2:
        raise ValueError(f"--repeats: must be an integer >= 2 (replicability compares repeats), got {n_repeats!r}")
    tests = _check_tests(tests, designs)
    make_a, make_b = a.factory(data), b.factory(data)
    X, y = data.X, data.y

    def replicate(cond: DesignChoice, rng):
        seeds = rng.integers(0, 2**31 - 1, size=2)  # each learner's random_state for this repeat
        ids = cond.splitter().fold_ids(y, rng)
        acc = cv_accuracies(X, y, ids, (_Seeded(make_a, seeds[0]), _Seeded(make_b, seeds[1])))
        scores = PairedScores(acc[..., 0], acc[..., 1], cond.n_train, cond.n_test)
        chosen = _tests_for(cond, tests)
        if cond.design == "cv":
            rows = outcome_rows(scores, chosen, alpha=cond.alpha, schemes=SCHEMES)
        else:
            rows = outcome_rows(scores, chosen, alpha=cond.alpha)
            rows.insert(0, "scheme", "")
        return {"scores": scores_frame(acc, ("acc_a", "acc_b"), axes=("run", "fold"), dtype=np.int16),
                "outcomes": rows}

    def sizes(rows, design=None):
        return int(rows["n_train"].iloc[0]), int(rows["n_test"].iloc[0])

    settings = {"data": data.name, "data_sha256": data.digest, "n_cases": int(y.size),
                "a": a.label, "b": b.label, "tests": list(tests) if tests else "default"}
    per_fit = 1e-3 * max(1.0, y.size / 100.0)
    return Study(
        name="assess",
        title=f"{a.label} against {b.label} on {data.name}",
        conditions=list(designs),
        replicate=replicate,
        summarize=assessment_tables,
        profiles={ASSESS_PROFILE: Profile(ASSESS_PROFILE, n_replications=n_repeats, settings=settings)},
        paired_scores=ScoreLayout(groups=("condition",), sizes=sizes),
        seconds_per_replication=lambda c: 2 * c.n_runs * max(c.n_folds, 1) * per_fit,
        chunk_size=chunk_size,
    )


# ----------------------------------------------------------------------------------------- summary


def _replication_estimate(test: str, block: pd.DataFrame, cond_row, alpha: float, scheme: str):
    """Berrar's replication probability of the first repeat's verdict: (model, estimate, low, high)."""
    from . import replication as rp
    from .outcomes import get_test, run_test
    from .scores import PairedScores

    runs = int(block["run"].max()) + 1
    folds = int(block["fold"].max()) + 1
    block = block.sort_values(["run", "fold"])
    a = block["acc_a"].to_numpy(float).reshape(runs, folds)
    b = block["acc_b"].to_numpy(float).reshape(runs, folds)
    scores = PairedScores(a, b, int(cond_row["n_train"]), int(cond_row["n_test"]))
    spec = get_test(test)
    try:
        res = run_test(spec, scores, scheme=scheme or None)
    except ValueError:
        return "n/a", np.nan, np.nan, np.nan
    stat = float(np.asarray(res.statistic))
    df = np.asarray(res.df, dtype=float) if res.df is not None else np.array(np.nan)
    if not np.isfinite(stat):
        return "n/a", np.nan, np.nan, np.nan
    if test in ("sign", "binomial", "sign_cdf", "sign_cdf_reversed"):
        from .schemes import scheme_sample

        x = scheme_sample(scores.diffs, scheme) if scheme else scores.diffs.ravel()
        x = x[x != 0]
        if x.size < 1:
            return "n/a", np.nan, np.nan, np.nan
        wins = int((x > 0).sum()) if np.mean(x) >= 0 else int((x < 0).sum())
        est = rp.binomial_model(wins, x.size, alpha=alpha)
        return "binomial", float(est.estimate), float(est.low), float(est.high)
    if test.startswith("signed_rank"):
        est = rp.wilcoxon_model(abs(stat), 1.0, alpha=alpha)
        return "Wilcoxon (s* = 1)", float(est.estimate), float(est.low), float(est.high)
    if test == "5x2cv_f" or not np.all(np.isfinite(df)) or float(df) <= 0:
        return "n/a", np.nan, np.nan, np.nan
    est = rp.t_model(abs(stat), float(df), alpha=alpha)
    return "non-central t", float(est.estimate), float(est.low), float(est.high)


def assessment_tables(run) -> dict[str, pd.DataFrame]:
    """Per design, scheme and test: rejections, R2, agreement, the first repeat and its replication estimates.

    Parameters
    ----------
    run : simstudy.engine.store.RunData
        The stored assessment.

    Returns
    -------
    dict of DataFrame
        ``assessment``: one row per design, scheme and test; ``accuracy``: the
        mean accuracy of A and B per design.  Computed from the stored rows alone.
    """
    from .replicability import r2, r2_variance
    from .summaries import clopper_pearson

    out = run.table("outcomes")
    if "error" in out:
        out = out[out["error"].isna()]
    scores = run.table("scores")
    rows = []
    for (cond, scheme, test), grp in out.groupby(["condition", "scheme", "test"], sort=False):
        grp = grp.sort_values("replication")
        dec = grp["decision"].to_numpy(int)
        n = dec.size
        first = grp.iloc[0]
        a_n, b_n = int((dec > 0).sum()), int((dec < 0).sum())
        sig = a_n + b_n
        lo_a, hi_a = clopper_pearson(a_n, n)
        lo_b, hi_b = clopper_pearson(b_n, n)
        rep = float(r2(dec)) if n >= 2 else np.nan
        two_outcome = not (a_n and b_n)
        se = float(np.sqrt(r2_variance(min(max(rep, 0.5), 1.0), n))) if n >= 2 and two_outcome else np.nan
        agree = bool((dec == dec[0]).all())
        first_dec = int(first["decision"])
        same = int((dec == first_dec).sum())
        f_first = (same - 1) / (n - 1) if first_dec != 0 and n >= 2 else np.nan
        f_mean = (sum(c * (c - 1) for c in (a_n, b_n)) / (sig * (n - 1))) if sig and n >= 2 else np.nan
        block = scores[(scores["condition"] == cond) & (scores["replication"] == first["replication"])]
        model, p_rep, p_lo, p_hi = _replication_estimate(test, block, first, float(first["alpha"]), scheme)
        rows.append({
            "design": cond, "scheme": scheme, "test": test, "repeats": n,
            "A better": a_n, "B better": b_n, "not significant": n - sig,
            "share A better": a_n / n, "A low": float(lo_a), "A high": float(hi_a),
            "share B better": b_n / n, "B low": float(lo_b), "B high": float(hi_b),
            "R2": rep, "R2 se": se, "all agree": agree,
            "first statistic": float(first["statistic"]), "first p": float(first["pvalue"]),
            "first verdict": {1: "A better", -1: "B better", 0: "not significant"}[first_dec],
            "P_rep model": model, "P_rep": p_rep, "P_rep low": p_lo, "P_rep high": p_hi,
            "F first": f_first, "F mean": f_mean,
        })
    table = pd.DataFrame(rows)
    acc = (scores.groupby("condition", sort=False)[["acc_a", "acc_b"]].mean().reset_index()
           .rename(columns={"condition": "design", "acc_a": "mean accuracy A", "acc_b": "mean accuracy B"}))
    return {"assessment": table, "accuracy": acc}


# ----------------------------------------------------------------------------------------- evidence


def _min_r2_over_sources(g: pd.DataFrame) -> float:
    """Bouckaert's replicability criterion: per source, the mean R2 of the repeated experiments on a data
    set (three outcomes); the lowest over the sources."""
    counts = (g.groupby(["source", "replication"])["decision"].value_counts().unstack(fill_value=0))
    c = counts.to_numpy(float)
    n = c.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r2 = (c * (c - 1)).sum(axis=1) / (n * (n - 1))
    per_source = pd.Series(r2, index=counts.index.get_level_values("source")).groupby(level=0).mean()
    return float(per_source.min()) if len(per_source) else float("nan")


def _evidence_rows(run, study_name: str) -> list[dict]:
    """Per (design, scheme, test) of one stored run: the Type I error on Bouckaert's null source, and the
    lowest mean R2 over the run's sources (null and alternatives)."""
    import re

    from .summaries import clopper_pearson

    out = run.table("outcomes")
    if "error" in out:
        out = out[out["error"].isna()]
    if "source" not in out or not len(out):
        return []
    found = []
    if study_name == "bouckaert1":
        from .studies import bouckaert1 as b1

        null_source = b1.SOURCES[0]
        runs = int(out["n_runs"].iloc[0]) if "n_runs" in out else 10
        folds = int(out["n_folds"].iloc[0]) if "n_folds" in out else 10
        for (scheme, label), g in out.groupby(["scheme", "test"], sort=False):
            name = b1.TESTS.get(label)
            if name in ("paired_t", "sign", "signed_rank"):
                found.append(({"match": ("cv", runs, folds, scheme, name)}, g))
    else:  # bouckaert_frank: the first pair of learners (C4.5 and naive Bayes)
        null_source = "bouckaert1"
        if "pair" in out:
            out = out[out["pair"] == out["pair"].iloc[0]]
        simple = {"5x2cv t": ("5x2cv", 5, 2, "", "5x2cv_t"), "5x2cv F": ("5x2cv", 5, 2, "", "5x2cv_f"),
                  "10-fold cv": ("cv", None, 10, "kfold_cv", "paired_t")}
        for label, g in out.groupby("test", sort=False):
            m = re.fullmatch(r"(corrected )?resampled (\d+)x", label)
            m2 = re.fullmatch(r"(corrected )?(\d+)x10 cv", label)
            if m:
                match = ("resampled", int(m.group(2)), 1, "", "corrected_resampled_t" if m.group(1) else "resampled_t")
            elif m2:
                match = ("cv", int(m2.group(2)), 10, "", "corrected_cv_t" if m2.group(1) else "cv_t")
            elif label in simple:
                match = simple[label]
            else:
                continue
            found.append(({"match": match}, g))
    rows = []
    for f, g in found:
        null = g[g["source"] == null_source]
        if not len(null):
            continue
        # the rows of one replication share its data set: the interval counts replications, not rows
        units = int(null["replication"].nunique())
        rate = float((null["decision"] != 0).mean())
        lo, hi = clopper_pearson(rate * units, units)
        f.update(k=int((null["decision"] != 0).sum()), n=len(null), rate=rate, low=float(lo), high=float(hi),
                 units=units, min_r2=_min_r2_over_sources(g) if "experiment" in g else float("nan"),
                 sources=int(g["source"].nunique()), source=f"{study_name}/{run.manifest['profile']}")
        rows.append(f)
    return rows


def type_one_evidence(results="results") -> tuple[list[dict], list[str]]:
    """Type I errors measured by the stored Bouckaert studies under ``results``.

    Looks for ``RESULTS/bouckaert1/PROFILE`` and ``RESULTS/bouckaert_frank/PROFILE``
    (the largest profile stored: paper, then quick, then smoke).

    Returns
    -------
    rows : list of dict
        Per matched design, scheme and test: rejections ``k`` of ``n`` rows,
        the rate, its interval over ``units`` data sets and the source run.
    notes : list of str
        What was found, used or not used, and why.
    """
    from .engine import get_study, load_run

    rows, notes = [], []
    for name in ("bouckaert1", "bouckaert_frank"):
        for profile in ("paper", "quick", "smoke"):
            path = Path(results) / name / profile
            if not (path / "manifest.json").exists():
                continue
            try:
                run = load_run(get_study(name), profile=profile, out=path)
                if not run.complete:
                    notes.append(f"{path}: incomplete, used as far as stored")
                rows += _evidence_rows(run, name)
                notes.append(f"{path}: Type I errors on the null source")
            except (ValueError, OSError) as exc:
                notes.append(f"{path}: not used ({str(exc).splitlines()[0]})")
                continue
            break
    return rows, notes


def _evidence_for(design_row, scheme: str, test: str, evidence):
    kind, runs, folds = design_row
    for e in evidence:
        ekind, eruns, efolds, escheme, etest = e["match"]
        if ekind == kind and efolds == folds and (eruns is None or eruns == runs) and escheme == scheme \
                and etest == test:
            return e
    return None


def recommend(table: pd.DataFrame, designs, evidence, *, alpha: float = 0.05) -> tuple[pd.DataFrame, str]:
    """Add the Type I evidence to the assessment table and choose the most replicable test that keeps alpha.

    A test *keeps* alpha when the lower end of the 95% interval of its stored
    Type I error (over at least :data:`MIN_EVIDENCE` data sets) is at most
    alpha.  Among the design x scheme x test rows that keep it, the
    recommendation is the one that was most replicable in the stored
    simulations by Bouckaert's criterion (the lowest, over the sources, of the
    mean R2 of repeated experiments on one data set), ties broken by the R2 on
    the user's data: R2 on one data set alone cannot choose, since a test that
    never rejects is perfectly replicable.  Without evidence the recommendation
    says so and names the studies to run.

    Returns
    -------
    table : DataFrame
        ``table`` with the columns ``Type I error (null source)`` and ``keeps alpha``.
    text : str
        The recommendation, or why there is none.
    """
    by_key = {d.key: (d.design, d.n_runs, d.n_folds) for d in designs}
    keeps, ev_text, min_r2 = [], [], []
    for _, row in table.iterrows():
        e = _evidence_for(by_key[row["design"]], row["scheme"], row["test"], evidence)
        if e is None:
            keeps.append(None)
            ev_text.append("no stored evidence")
            min_r2.append(np.nan)
        elif e["units"] < MIN_EVIDENCE:
            keeps.append(None)
            ev_text.append(f"too few replications for a verdict ({e['units']} data sets, {e['source']})")
            min_r2.append(np.nan)
        else:
            keeps.append(bool(e["low"] <= alpha))
            ev_text.append(f"{100 * e['rate']:.1f}% [{100 * e['low']:.1f}, {100 * e['high']:.1f}] "
                           f"over {e['units']} data sets ({e['source']})")
            min_r2.append(e["min_r2"])
    table = table.assign(**{"Type I error (null source)": ev_text, "keeps alpha": keeps,
                            "simulated R2 (lowest over sources)": min_r2})
    ok = table[(table["keeps alpha"] == True) & np.isfinite(table["simulated R2 (lowest over sources)"])]  # noqa: E712
    if ok.empty:
        text = ("No recommendation: no stored simulation study gives enough evidence on the Type I error of these "
                f"tests (at least {MIN_EVIDENCE} replications of Bouckaert's null source), and replicability alone "
                "favours tests that reject too often. Store the evidence with `simstudy run bouckaert1 --profile "
                "quick` and `simstudy run bouckaert_frank --profile paper` (minutes each) and run the same command "
                "again: it re-summarises without fitting.")
        return table, text
    best = ok.sort_values(["simulated R2 (lowest over sources)", "R2"], ascending=[False, False],
                          kind="stable").iloc[0]
    text = (f"Recommended: {_name(best)}. Among the tests whose stored Type I error on Bouckaert's null source is "
            f"compatible with alpha = {alpha}, it is the most replicable in the stored simulations (Bouckaert's "
            f"criterion: the lowest mean R2 over the sources, {best['simulated R2 (lowest over sources)']:.2f}; "
            f"Type I error {best['Type I error (null source)']}). On your data: R2 {best['R2']:.2f} over "
            f"{best['repeats']} repeats, A better in {best['A better']} and B better in {best['B better']}. A test "
            "that never rejects is trivially replicable on data of any kind, which is why the choice rests on "
            "the simulations, where some sources have a difference to find.")
    return table, text


def _name(row) -> str:
    scheme = f", scheme {row['scheme']}" if row["scheme"] else ""
    return f"`{row['test']}` with {row['design']}{scheme}"


# The procedures the papers name, as (design kind, scheme, test) -> how a reader calls them.
_NAMED = (
    ("cv", "kfold_cv", "paired_t", "the 10-fold cv t-test (first run only)"),
    ("cv", "average_over_sorted_runs", "paired_t", "the sorted-runs t-test"),
    ("cv", "", "cv_t", "the {r}x{k} cv t-test (uncorrected)"),
    ("cv", "", "corrected_cv_t", "the corrected {r}x{k} cv t-test"),
    ("5x2cv", "", "5x2cv_t", "the 5x2cv t-test"),
    ("5x2cv", "", "5x2cv_f", "the 5x2cv F-test"),
    ("resampled", "", "resampled_t", "the resampled t-test ({r} splits)"),
    ("resampled", "", "corrected_resampled_t", "the corrected resampled t-test ({r} splits)"),
)


def verdicts(table: pd.DataFrame, designs) -> list[str]:
    """Plain-language verdicts across repeats for the procedures the papers name.

    Returns
    -------
    list of str
        One line per named procedure present, e.g. "A beats B in 4 of 10
        repeats with the corrected 10x10 cv t-test".
    """
    by_key = {d.key: d for d in designs}
    lines = []
    for _, r in table.iterrows():
        d = by_key.get(r["design"])
        if d is None:
            continue
        for kind, scheme, test, name in _NAMED:
            if d.design == kind and r["scheme"] == scheme and r["test"] == test:
                if d.design == "cv" and scheme == "kfold_cv" and d.n_folds != 10:
                    name = f"the {d.n_folds}-fold cv t-test (first run only)"
                n = r["repeats"]
                if r["A better"] and r["B better"]:
                    text = f"A beats B in {r['A better']} and B beats A in {r['B better']} of {n} repeats"
                elif r["B better"]:
                    text = f"B beats A in {r['B better']} of {n} repeats"
                else:
                    text = f"A beats B in {r['A better']} of {n} repeats"
                lines.append(f"{text} with {name.format(r=d.n_runs, k=d.n_folds)}")
    return lines


# ----------------------------------------------------------------------------------------- run


def assess(X, y=None, a=None, b=None, *, designs=DEFAULT_DESIGNS, tests=None, n_repeats: int = 10,
           alpha: float = 0.05, out=None, jobs: int = 1, seed: int | None = None, progress: bool = False,
           fresh: bool = False, class_column=None, a_params=None, b_params=None, evidence="results"):
    """Assess "A beats B" on one data set: every design repeated on new partitions, every test on the same fits.

    Parameters
    ----------
    X : array_like of shape (n, p), or str or os.PathLike
        The attributes (numbers; NaN for missing), or a data file / shipped
        data set name (see :func:`load_data`, then ``y`` is None).
    y : array_like of shape (n,), optional
        Class labels.
    a, b : str, estimator class or estimator instance
        The two learners: a registered name (``"NB"``, ``"C4.5"``,
        ``"e1071.svm"``, ...), a ``"module:Class"`` path, a class, or a
        scikit-learn estimator (cloned per split; an estimator with
        ``random_state`` gets one drawn from the repeat's random stream).
    designs : sequence of str
        Design names (see :func:`parse_designs`).
    tests : sequence of str, optional
        Registered test names; default the papers' tests for each design.
    n_repeats : int
        Repetitions of every design on new random partitions (>= 2).
    alpha : float
        Significance level.
    out : str or Path, optional
        Run directory (default ``results/assess/<data>-<A>-<B>``); an
        interrupted assessment resumes there.
    jobs : int
        Parallel workers; the numbers do not depend on it.
    seed : int, optional
        Root seed (default the package's fixed seed).
    evidence : str or Path or None
        Results root holding stored runs of ``bouckaert1`` / ``bouckaert_frank``
        for the Type I evidence of the recommendation (None: none).

    Returns
    -------
    Assessment
        The tables, verdict lines and recommendation, with the stored run.
    """
    from ._validation import check_alpha
    from .engine import DEFAULT_SEED, run_study

    alpha = check_alpha(alpha, "--alpha")
    if isinstance(X, (str, Path)) and y is None:
        data = load_data(X, class_column=class_column)
    else:
        data = _array_dataset(X, y)
    if a is None or b is None:
        raise ValueError("--a/--b: both learners are needed")
    ca = parse_learner(a, a_params, option="--a")
    cb = parse_learner(b, b_params, option="--b")
    _check_learnable(data, ca, "--a")
    _check_learnable(data, cb, "--b")
    chosen = parse_designs(designs, data.y, alpha=alpha)
    study = assessment_study(data, ca, cb, chosen, n_repeats=n_repeats, tests=tests)
    if out is None:
        out = Path("results") / "assess" / _slug(f"{Path(data.name).stem}-{ca.spec}-{cb.spec}")
    run = run_study(study, ASSESS_PROFILE, out=out, jobs=jobs, seed=DEFAULT_SEED if seed is None else seed,
                    progress=progress, fresh=fresh)
    return _assessment(study, run, chosen, evidence, alpha, data, ca, cb)


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:100]


def _array_dataset(X, y) -> Dataset:
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X: expected a 2-d array (cases x attributes), got shape {X.shape}")
    try:
        Xf = X.astype(float)
    except (TypeError, ValueError):
        raise ValueError("X: must hold numbers (encode nominal attributes first, or pass a data file)") from None
    if y is None:
        raise ValueError("y: the class labels are needed with an array X")
    y = np.asarray(y)
    if y.ndim != 1 or y.size != Xf.shape[0]:
        raise ValueError(f"y: expected {Xf.shape[0]} labels (one per row of X), got shape {y.shape}")
    return _finish("arrays", Xf, y.astype(object), [f"x{j}" for j in range(Xf.shape[1])],
                   [False] * Xf.shape[1], [0] * Xf.shape[1])


@dataclass
class Assessment:
    """The result of :func:`assess`: tables from the stored rows, verdicts and a recommendation."""

    study: object
    run: object
    table: pd.DataFrame
    accuracy: pd.DataFrame
    verdicts: list
    recommendation: str
    evidence_notes: list
    designs: tuple
    data: Dataset
    a: LearnerChoice
    b: LearnerChoice
    alpha: float

    def __str__(self) -> str:
        from .assess_report import assessment_text

        return assessment_text(self)


def _assessment(study, run, designs, evidence, alpha, data, a, b) -> Assessment:
    tables = assessment_tables(run)
    ev, notes = type_one_evidence(evidence) if evidence is not None else ([], ["no evidence root given"])
    table, text = recommend(tables["assessment"], designs, ev, alpha=alpha)
    return Assessment(study, run, table, tables["accuracy"], verdicts(table, designs), text, notes, tuple(designs), data, a, b,
                      alpha)


def load_assessment(out, data, a, b, *, designs=DEFAULT_DESIGNS, tests=None, n_repeats=10, alpha=0.05,
                    evidence="results", class_column=None, a_params=None, b_params=None) -> Assessment:
    """The assessment stored in ``out``, re-summarised without fitting anything.

    Takes the arguments :func:`assess` was given (they identify the stored run).

    Returns
    -------
    Assessment
    """
    from .engine import load_run

    data = load_data(data, class_column=class_column) if isinstance(data, (str, Path)) else data
    ca, cb = parse_learner(a, a_params, option="--a"), parse_learner(b, b_params, option="--b")
    chosen = parse_designs(designs, data.y, alpha=alpha)
    study = assessment_study(data, ca, cb, chosen, n_repeats=n_repeats, tests=tests)
    run = load_run(study, profile=ASSESS_PROFILE, out=out)
    return _assessment(study, run, chosen, evidence, alpha, data, ca, cb)
