""":func:`assess`: one comparison end to end.  The data, learners, designs, metric and plan are checked before
anything is written; a finished assessment of the same settings is read back (or scored again for another
metric) without fitting; otherwise the study is run, with a progress bar per fit; then the result is made
with the evidence.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from simstudy._files import DEFAULT_ROOT
from simstudy.apps.assess.assessment import SHIPPED, LocalEvidence, _assessment
from simstudy.apps.assess.checks import _check_assess_plan, _check_learnable, check_rope
from simstudy.apps.assess.data import as_dataset, check_metric_for
from simstudy.apps.assess.designs import (
    DEFAULT_DESIGNS,
    DEFAULT_REPEATS,
    FULL_DESIGNS,
    FULL_REPEATS,
    _check_designs,
    _check_tests,
    designs_for_data,
)
from simstudy.apps.assess.learners import named_learners, parse_learner, wants_worker
from simstudy.apps.assess.limits import _close_fit_workers, check_fit_timeout, check_in_process
from simstudy.apps.assess.stored import (
    _absolute,
    _finished_run,
    _other_metric,
    _refuse_other_data,
    _scratch_folder,
    _stored_chunks,
)
from simstudy.apps.assess.study import ASSESS_PROFILE, assessment_study
from simstudy.errors import InputError, option
from simstudy.pipeline.scores import check_metric


def assess(
    X,
    y=None,
    a=None,
    b=None,
    *,
    learners=None,
    designs=None,
    tests=None,
    n_repeats: int | None = None,
    full: bool = False,
    alpha: float = 0.05,
    out=None,
    jobs: int = 1,
    seed: int | None = None,
    progress: bool = False,
    fresh: bool = False,
    class_column=None,
    a_params=None,
    b_params=None,
    evidence=DEFAULT_ROOT,
    fit_timeout: float | None = None,
    metric: str = "accuracy",
    out_root=None,
    rope: float = 0.01,
    in_process: bool = False,
    nominal=(),
):
    """Assess "A beats B" on one data set: every design repeated on new partitions, every test on the same fits.

    Parameters
    ----------
    X : array_like of shape (n, p), DataFrame, or str or os.PathLike
        The attributes (numbers; NaN for missing), a DataFrame with the class
        in ``class_column`` (else its last column), or a data file / shipped
        data set name (see :func:`load_data`); ``y`` is None but for arrays.
    y : array_like of shape (n,), optional
        Class labels.
    a, b : str, estimator class or estimator instance
        The two learners: a registered name (``"NB"``, ``"C4.5"``,
        ``"e1071.svm"``, ...), a ``"module:Class"`` path, a class, or a
        scikit-learn estimator (cloned per split; an estimator with
        ``random_state`` gets one drawn from the repeat's random stream).
        ``("logreg", learner)`` names it in the tables and figures.
    learners : mapping or sequence of two learners, optional
        Instead of ``a`` and ``b``: ``{"logreg": ..., "forest": ...}`` (A
        first), named in the tables and figures, or two (name, learner) pairs.
    designs : sequence of str, optional
        Design names (see :func:`designs_for_data`); default :data:`DEFAULT_DESIGNS`
        (the 5x2 cv alone: fast, and its corrected test controls size for
        learners of every stability class), or :data:`FULL_DESIGNS` with ``full``.
    tests : sequence of str, optional
        Registered test names; default the papers' tests for each design.
    n_repeats : int, optional
        Repetitions of every design on new random partitions (>= 1; R2 and
        the replication rates need two or more); default :data:`DEFAULT_REPEATS`,
        or :data:`FULL_REPEATS` with ``full``.
    full : bool
        The full check (``--full``): every design the papers compare, ten
        repeats each (2,400 fits for one pair, against 100 for the default).
    alpha : float
        Significance level.
    out : str or Path, optional
        Run directory; an interrupted assessment resumes there, a finished one
        is re-read.  Default: ``out_root/assess/<data>-<A>-<B>`` when
        ``out_root`` is given, else a temporary directory that lives as long
        as the returned :class:`Assessment` (nothing is written anywhere else).
    out_root : str or Path, optional
        Results root of the default run directory (the command line gives
        ``results``).
    rope : float
        Half-width of the region of practical equivalence of the Bayesian
        correlated t-test, in score units (``--rope``; default 0.01, one point
        of accuracy).  It changes the summary only, not the stored rows.
    jobs : int
        Parallel workers; the numbers do not depend on it.
    seed : int, optional
        Root seed (default the package's fixed seed).
    evidence : str or Path, list of simstudy.apps.evidence.Evidence, or None
        Results root whose stored runs of the studies that provide evidence
        back the recommendation and the Conclusion
        (:func:`simstudy.apps.evidence.collect_evidence`), or the evidence
        itself (None: none).  When the root holds no such run, the evidence
        shipped with the package is used (:mod:`simstudy.apps.shipped_evidence`:
        the published paper-profile proving ground, the class of scenarios whose
        learners are as stable as these, measured), and the pages say so;
        :data:`SHIPPED` uses it whatever the root holds.
    fit_timeout : float, optional
        Seconds the loading and each fit of a contained learner may take,
        ``--fit-timeout``; default None: :data:`DEFAULT_FIT_TIMEOUT` (an
        hour).  A learner given as ``"module:NAME"`` or ``"path/to/file.py:NAME"``
        (a class, an instance, a pipeline or a factory) is always contained
        unless ``in_process``: it is imported, checked and fitted in a worker
        process of its own, kept for every fit of the command, and simstudy's
        process never runs its code.  A class or an estimator given in Python
        is contained when ``fit_timeout`` is given (it is sent to the worker
        by pickling, so its class must be importable there).  When the
        loading or a fit exceeds the limit, or ends the worker (``os._exit``,
        a crash, a signal), the worker and every process it started are
        killed; that fit and every later one of the learner fail (the failure
        rows are stored, for ``replay``; the numbers of the other fits are the
        same as in this process), and the assessment ends with one line
        naming the learner and the limit.  What the learner prints goes to
        standard error, prefixed with its label, at most
        :data:`simstudy._worker.OUTPUT_CAP` bytes per fit (the last ones).
    in_process : bool
        ``--in-process``: load and fit every learner in this process, with no
        limit, as registered learners always are.  Faster (no copying to a
        worker), but a learner that hangs, ends the process or prints without
        end takes simstudy with it; not allowed with ``fit_timeout``.
    nominal : sequence of str
        ``--nominal``: columns of a CSV or Parquet file taken as nominal
        attributes (see :func:`load_data`).
    metric : str
        The per-split score every test and summary compares: ``"accuracy"``
        (the default, as in the papers) or a scikit-learn scorer name
        (``"balanced_accuracy"``, ``"roc_auc"``, ``"f1_macro"``,
        ``"neg_log_loss"``, ...; greater is better), ``--metric``.

    Returns
    -------
    Assessment
        The tables, verdict lines and recommendation, with the stored run.

    Raises
    ------
    ValueError
        One line, before anything is written: data that cannot be read or
        holds infinite values, a learner that is not a classifier or cannot
        learn from the data, a design some class is too small for (naming the
        ``--designs`` that fit).  After the run: a learner that failed in any
        repeat (naming it and the first failure; the failure rows stay in
        ``out``).

    Notes
    -----
    A finished assessment of the same data, learners, settings and seed in
    ``out`` is read back without taking the run directory's lock, so it can be
    re-summarised from a read-only folder.
    """
    from simstudy.engine import DEFAULT_SEED

    # where it is stored, fixed before a learner can change the working directory
    out, out_root = _absolute(out), _absolute(out_root)
    q = _request(
        X, y, a, b, learners=learners, designs=designs, tests=tests, n_repeats=n_repeats, full=full, alpha=alpha,
        class_column=class_column, a_params=a_params, b_params=b_params, evidence=evidence, fit_timeout=fit_timeout,
        metric=metric, rope=rope, in_process=in_process, nominal=nominal,
    )  # fmt: skip
    seed = DEFAULT_SEED if seed is None else seed
    try:
        out, scratch = _run_folder(q, out, out_root)
        study, run = _stored(q, out, seed, fresh)
        if run is None:
            study, run = _run(q, out, seed, jobs=jobs, progress=progress, fresh=fresh)
    finally:
        _close_fit_workers()
    result = _assessment(study, run, q.chosen, q.evidence, q.alpha, q.data, q.a, q.b, rope=q.rope)
    result.scratch = scratch
    return result


@dataclass(frozen=True)
class _Request:
    """What :func:`assess` was asked, checked: the data, the two learners, the designs and the settings."""

    data: object  # Dataset
    a: object  # LearnerChoice
    b: object
    chosen: tuple
    n_repeats: int
    tests: object
    alpha: float
    rope: float
    metric: str
    fit_timeout: float | None
    evidence: object


def _request(
    X, y, a, b, *, learners, designs, tests, n_repeats, full, alpha, class_column, a_params, b_params,
    evidence, fit_timeout, metric, rope, in_process, nominal,
) -> _Request:  # fmt: skip
    """Check every argument of :func:`assess` before anything is fitted or written (one line naming it)."""
    from simstudy._validation import check_alpha

    alpha = check_alpha(alpha, option("alpha"))
    rope = check_rope(rope)
    if isinstance(evidence, (str, os.PathLike)) and evidence != SHIPPED:
        evidence = _absolute(evidence)
    elif isinstance(evidence, LocalEvidence):
        evidence = LocalEvidence(str(_absolute(evidence.root)))
    designs = designs if designs is not None else (FULL_DESIGNS if full else DEFAULT_DESIGNS)
    n_repeats = n_repeats if n_repeats is not None else (FULL_REPEATS if full else DEFAULT_REPEATS)
    data = as_dataset(X, y, class_column=class_column, nominal=nominal)
    a, b = _two_learners(a, b, learners)
    metric = check_metric(metric)
    check_metric_for(metric, data)
    rope = check_rope(rope, metric)
    fit_timeout = check_fit_timeout(fit_timeout)
    check_in_process(in_process, fit_timeout)
    ca, cb = (
        parse_learner(
            learner,
            params,
            option=option(name),
            contained=wants_worker(learner, in_process=in_process, fit_timeout=fit_timeout),
        )
        for learner, params, name in ((a, a_params, "a"), (b, b_params, "b"))
    )
    chosen = designs_for_data(designs, data.y, alpha=alpha, classes=data.classes)
    _check_designs(chosen, _check_tests(tests, chosen), data, metric)
    return _Request(data, ca, cb, chosen, n_repeats, tests, alpha, rope, metric, fit_timeout, evidence)


def _two_learners(a, b, learners):
    """The two learners, given as ``a`` and ``b`` or as ``learners``."""
    if learners is not None:
        if a is not None or b is not None:
            raise InputError("learners: give the two learners either as learners= or as a and b, not both")
        pair = named_learners(learners, "learners")
        if len(pair) != 2:
            raise InputError(f"learners: one comparison takes exactly two learners, got {len(pair)}")
        return pair
    if a is not None and b is not None:
        named_learners([a, b], f"{option('a')}/{option('b')}")
    if a is None or b is None:
        raise InputError(f"{option('a')}/{option('b')}: both learners are needed")
    return a, b


def _run_folder(q: _Request, out, out_root):
    """The run folder (given, under ``out_root``, or a temporary one) and the temporary folder to keep alive."""
    if out is not None:
        return out, None
    if out_root is not None:
        names = [c.name or Path(c.spec).name for c in (q.a, q.b)]
        return Path(out_root) / "assess" / _slug(f"{Path(q.data.name).stem}-{names[0]}-{names[1]}"), None
    return _scratch_folder()


def _study(q: _Request, *, fitting: bool = True):
    return assessment_study(
        q.data, q.a, q.b, q.chosen, n_repeats=q.n_repeats, tests=q.tests, fit_timeout=q.fit_timeout,
        metric=q.metric, fitting=fitting,
    )  # fmt: skip


def _stored(q: _Request, out, seed: int, fresh: bool):
    """``(study, run)`` of the finished assessment stored in ``out`` (run None: nothing to re-read).

    Read only: a contained learner is loaded (and checked) when it is fitted.  An assessment of the same
    learners on the same data fitted for another metric is scored again from its stored outputs.
    """
    study = _study(q, fitting=False)
    if fresh:
        return study, None
    run = _finished_run(study, out, seed)
    if run is None:
        _refuse_other_data(study, out, seed)  # named here: run_study would say only that a setting differs
        found = _other_metric(q.data, q.a, q.b, q.chosen, q.n_repeats, q.tests, out, seed, q.metric)
        if found is not None:
            return found
    return study, run


def _run(q: _Request, out, seed: int, *, jobs: int, progress: bool, fresh: bool):
    """Check that both learners learn from the data and the plan fits, then run the assessment's study."""
    from simstudy.engine import run_study

    seconds = _check_learnable(q.data, q.a, option("a"), fit_timeout=q.fit_timeout, digest=q.data.digest)
    seconds += _check_learnable(q.data, q.b, option("b"), fit_timeout=q.fit_timeout, digest=q.data.digest)
    study = _study(q)
    _check_assess_plan(q.chosen, q.n_repeats, seconds, q.data, out)
    per = {d.key: 2 * d.n_runs * max(d.n_folds, 1) for d in q.chosen}
    with _fit_progress(study, per, q.n_repeats, out, seed, show=progress and jobs == 1, fresh=fresh) as bar:
        run = run_study(
            study, ASSESS_PROFILE, out=out, jobs=jobs, seed=seed, progress=progress and not bar, fresh=fresh
        )
    return study, run


class _fit_progress:
    """A progress bar per fit for an assessment run in this process (``--jobs 1``): it moves from the first fit
    on, and its estimate of the time left is steady however the conditions' costs differ, where a bar per repeat
    waits for a whole repeat and then jumps (a 10x10 cv repeat is ten times a 5x2 cv's; a repeat of several
    learners on one data set can take minutes).  ``per`` is the fits of one repeat of each condition, by its key.
    Fits of repeats already stored count as done.  Entered as False when not shown."""

    def __init__(
        self, study, per: dict, n_repeats: int, out, seed: int, *, show: bool, fresh: bool = False, profile=None
    ):
        self.show, self.fresh, self.args = show, fresh, (study, per, n_repeats, out, seed)
        self.profile = profile or ASSESS_PROFILE
        self.bar = self.hook = None

    def __enter__(self):
        if not self.show:
            return False
        import sys

        from tqdm.auto import tqdm

        from simstudy.pipeline.outputs import on_fit

        study, per, n_repeats, out, seed = self.args
        done = 0
        try:
            from simstudy.engine.runner import plan_run
            from simstudy.engine.store import RunStore

            manifest = None if self.fresh else RunStore(Path(out)).read_manifest()
            if manifest is not None and manifest.get("config_hash") == plan_run(study, self.profile, seed)[3]:
                done = sum(
                    per.get(str(v.get("condition", "")), 0) * (int(v["stop"]) - int(v["start"]))
                    for v in _stored_chunks(manifest)
                )
        except Exception:  # no readable run: nothing stored yet
            done = 0
        self.bar = tqdm(
            total=sum(per.values()) * n_repeats,
            initial=min(done, sum(per.values()) * n_repeats),
            unit="fit",
            desc=f"assess {', '.join(per)}" if len(per) <= 3 else f"assess {len(per)} data sets",
            dynamic_ncols=True,
            file=sys.stderr,
            mininterval=0.5 if sys.stderr.isatty() else 15.0,
        )
        self.hook = on_fit(self.bar.update)
        self.hook.__enter__()
        return True

    def __exit__(self, *exc):
        if self.hook is not None:
            self.hook.__exit__(*exc)
            self.bar.close()
        return False


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:100]
