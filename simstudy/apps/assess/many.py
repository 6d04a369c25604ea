"""Several learners on several data sets: each data set compared on one design, then the learners across data sets.

:func:`assess_many` is the multi-data-set form of :func:`simstudy.apps.assess.assess`.
Its study has one condition per data set and one replication per repeat of
the design; each replication fits every learner once per split (the same
partitions for all) and stores their per-split scores, so the run is stored,
resumable and parallel over data sets like any other.  From the stored rows
alone it then gives

* per data set and pair of learners: the mean difference with the interval
  the corrected t-test inverts, that test's p-value, and the Bayesian
  correlated t-test's probabilities of A better, practically equivalent
  (within the ROPE) and B better (Corani and Benavoli 2015);
* across data sets, per pair (or per learner against a control): the Wilcoxon
  signed-rank and sign tests on the per-data-set mean differences (Demsar
  2006), their p-values beside Holm's adjustment for the pairs compared, and
  the Bayesian signed-rank test with the ROPE (Benavoli et al. 2017);
* for three or more learners: the mean ranks, Friedman's test with the
  Iman-Davenport F, Holm's step-down post-hoc over all pairs and Nemenyi's
  critical difference, drawn as a critical-difference diagram.

The across-data-set tests treat each data set's mean score as one
observation; they say nothing about a single data set, and their power grows
with the number of data sets, not with the number of splits.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module
from simstudy.apps.assess.assessment import baycomp_runs
from simstudy.apps.assess.checks import FIT_OVERHEAD, check_budget, check_learners, check_rope
from simstudy.apps.assess.data import as_dataset, check_metric_for
from simstudy.apps.assess.designs import _choose_designs
from simstudy.apps.assess.learners import named_learners, parse_learner, wants_worker
from simstudy.apps.assess.limits import _close_fit_workers, _learner, check_fit_timeout, check_in_process
from simstudy.apps.assess.report import _md_table, conclusion_html, conclusion_markdown, md_text
from simstudy.apps.assess.stored import _absolute, _scratch_folder
from simstudy.errors import InputError, option
from simstudy.pipeline.scores import check_metric

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["assess_many", "as_datasets", "ManyAssessment", "many_study", "many_tables", "DEFAULT_ROPE"]

MANY_PROFILE = "assess"
#: Half-width of the region of practical equivalence: differences of at most one point of accuracy do not matter.
DEFAULT_ROPE = 0.01
# Monte Carlo samples of the Bayesian signed-rank test, and the stream they come from (results are reproducible)
_BSR_SAMPLES = 50_000
_BSR_SEED = 20170101


@dataclass(frozen=True)
class DataSetCondition:
    """One data set of a multi-data-set assessment (a condition of its study)."""

    position: int
    name: str

    @property
    def key(self) -> str:
        """``NN-name``: the position keeps two files of the same name apart."""
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(self.name).stem)[:60] or "data"
        return f"{self.position:02d}-{safe.lstrip('.')}"


def _labels(learners) -> list[str]:
    labels = [c.shown for c in learners]
    if len(set(labels)) != len(labels):
        seen: dict[str, int] = {}
        out = []
        for lab in labels:
            seen[lab] = seen.get(lab, 0) + 1
            out.append(lab if labels.count(lab) == 1 else f"{lab} #{seen[lab]}")
        return out
    return labels


def design_choices(datasets, design: str) -> dict:
    """The design as each data set allows it (its split sizes), by position; one line naming a data set it cannot take."""
    choices = {}
    for i, data in enumerate(datasets):
        try:
            (choices[i],) = _choose_designs([design], data.y, classes=data.classes, argument="design")
        except ValueError as exc:
            raise InputError(f"{data.name}: {exc}") from None
    if choices:  # a design no registered test decides on is refused before anything runs
        _deciding(choices[0])
    return choices


def _deciding(choice) -> str:
    """The registered test a data set's interval and p-value come from: the design's deciding test (the
    corrected t whose variance the interval uses), as the catalogue says (:func:`deciding_test`)."""
    from simstudy.pipeline.outcomes import deciding_test

    found = deciding_test(choice.spec)
    if found is None:
        raise InputError(
            f"{option('design')}: no registered test decides on {choice.key!r}; register one that runs on it "
            "with decides=True (a corrected t-test whose variance the interval uses)"
        )
    return found.name


def many_study(
    datasets,
    learners,
    design: str = "cv10x10",
    *,
    n_repeats: int = 1,
    metric: str = "accuracy",
    fit_timeout: float | None = None,
):
    """The :class:`~simstudy.engine.Study` of a multi-data-set assessment.

    Parameters
    ----------
    datasets : sequence of simstudy.apps.assess.Dataset
        At least two, unless several learners are compared on one.
    learners : sequence of simstudy.apps.assess.LearnerChoice
        At least two.
    design : str
        One design for every data set (``cvRxK``, ``5x2cv``, ``resampledR``).
    n_repeats : int
        Repeats of the design per data set (new partitions each).
    metric : str
        The per-split score (a scikit-learn scorer name; default accuracy).
    fit_timeout : float, optional
        Seconds the loading and each fit of a contained learner may take
        (see :func:`simstudy.apps.assess.assess`).

    Returns
    -------
    simstudy.engine.Study
    """
    from simstudy.apps.assess.tables import warning_rows
    from simstudy.engine import Cost, Profile, Study
    from simstudy.pipeline.comparison import Comparison

    if isinstance(n_repeats, bool) or not isinstance(n_repeats, (int, np.integer)) or n_repeats < 1:
        raise InputError(f"{option('n_repeats', flag='repeats')}: must be an integer >= 1, got {n_repeats!r}")
    datasets, learners = tuple(datasets), tuple(learners)
    named = option("learners")  # fixed here: the fits of a repeat may run in another process
    if len(learners) < 2:
        raise InputError(f"{named}: give at least two learners, got {len(learners)}")
    if len(datasets) < 1:
        raise InputError("DATA: give at least one data set")
    choices = design_choices(datasets, design)
    conditions = [DataSetCondition(i, d.name) for i, d in enumerate(datasets)]
    names = [f"l{j}" for j in range(len(learners))]

    def replicate(cond: DataSetCondition, rng):
        data = datasets[cond.position]
        d = choices[cond.position]
        comparison = Comparison(
            {n: _learner(c, named, fit_timeout, data) for n, c in zip(names, learners)},
            designs=(d.key,),
            tests=[_deciding(d)],
            metric=metric,
            index_dtype=np.int16,
            mean_sizes=True,
        )
        # the learners' warnings are counted per repeat and said once in the pages (warning_summary), not printed
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = comparison.run(data.X, data.y, rng)
        if caught:
            out["warnings"] = warning_rows(caught)
        return out

    settings = {
        "data": [d.name for d in datasets],
        "data_sha256": [d.digest for d in datasets],
        "learners": [c.label for c in learners],
        "design": design,
        "metric": metric,
    }
    per_fit = 1e-3 * max(1.0, max(d.y.size for d in datasets) / 100.0)
    first = choices[0]
    return Study(
        name="assess_many",
        title=f"{len(learners)} learners on {len(datasets)} data sets, {design}, {metric}",
        conditions=conditions,
        replicate=replicate,
        summarize=lambda run: many_tables(run, datasets, learners, choices),
        profiles={MANY_PROFILE: Profile(MANY_PROFILE, n_replications=n_repeats, settings=settings)},
        cost=Cost(seconds_per_replication=len(learners) * first.n_runs * max(first.n_folds, 1) * per_fit),
        chunk_size=1,
    )


def _score_matrix(scores: pd.DataFrame, n_learners: int) -> tuple[str, list[str]]:
    prefix = "acc_" if "acc_l0" in scores.columns else "score_"
    return prefix, [f"{prefix}l{j}" for j in range(n_learners)]


def many_tables(
    run, datasets, learners, choices, *, rope: float = DEFAULT_ROPE, alpha: float = 0.05, control: int | None = None
) -> dict:
    """Every table of a multi-data-set assessment, from its stored rows alone.

    Returns
    -------
    dict of DataFrame
        ``means`` (data set x learner mean score over every split of every
        repeat), ``pairs`` (per data set and pair: the first repeat's mean
        difference, corrected interval, corrected test and Bayesian
        correlated t-test), ``across`` (per pair, or per learner against the
        learner ``control`` (a position): Wilcoxon signed-rank and sign tests
        over data sets, each p beside its Holm adjustment for the pairs
        compared, and the Bayesian signed-rank test), ``ranks`` (mean rank
        per learner), ``holm`` (Holm's post-hoc on mean ranks, over all pairs
        or against ``control``) and
        ``friedman`` (one row: Friedman's and Iman-Davenport's statistics,
        the Nemenyi critical difference), the last two for three or more learners.
    """
    labels = _labels(learners)
    L = len(labels)
    conds = [DataSetCondition(i, d.name) for i, d in enumerate(datasets)]
    pairs = [(i, j) for i in range(L) for j in range(i + 1, L)]
    means, pair_rows = _per_data_set(run, conds, labels, pairs, choices, rope=rope)
    tables = {
        "means": pd.DataFrame(means, columns=labels).assign(**{"data set": [c.name for c in conds]})[
            ["data set", *labels]
        ],
        "pairs": pd.DataFrame(pair_rows),
    }
    m = means[~np.isnan(means).any(axis=1)]  # the data sets completely assessed
    compared = pairs if control is None else [(control, j) for j in range(L) if j != control]
    tables["across"] = _across(m, labels, compared, rope=rope)
    if L >= 3 and m.shape[0] >= 2:
        tables.update(_rank_tables(m, labels, alpha=alpha, control=control))
    return tables


def _per_data_set(run, conds, labels, pairs, choices, *, rope: float):
    """Each data set's mean score per learner (NaN rows for data sets not assessed), and per pair the first
    repeat's mean difference with its corrected interval, the corrected test's p and the Bayesian correlated t."""
    from simstudy.statistics.bayesian import correlated_t_test
    from simstudy.statistics.effect import corrected_difference_interval

    scores = run.table("scores")
    outcomes = run.table("outcomes")
    _, cols = _score_matrix(scores, len(labels))
    means = np.full((len(conds), len(labels)), np.nan)
    rows = []
    for c in conds:
        block = scores[scores["condition"] == c.key]
        if block.empty:
            continue
        means[c.position] = block[cols].mean().to_numpy(float)
        d = choices[c.position]
        first = block[block["replication"] == block["replication"].min()].sort_values(["run", "fold"])
        for i, j in pairs:
            x = first[cols[i]].to_numpy(float) - first[cols[j]].to_numpy(float)
            ci = corrected_difference_interval(x, n_train=d.n_train, n_test=d.n_test)
            bayes = correlated_t_test(x, n_train=d.n_train, n_test=d.n_test, rope=rope)
            chosen = (outcomes["condition"] == c.key) & (outcomes["replication"] == first["replication"].iloc[0])
            if "pair" in outcomes.columns:  # stored only with three or more learners
                chosen &= outcomes["pair"] == f"l{i}-l{j}"
            test = outcomes[chosen]
            rows.append(
                {
                    "data set": c.name,
                    "A": labels[i],
                    "B": labels[j],
                    "mean A - B": float(ci.mean),
                    "low": float(ci.low),
                    "high": float(ci.high),
                    "corrected test": _deciding(d),
                    "p": float(test["pvalue"].iloc[0]) if len(test) else np.nan,
                    "ROPE": f"±{rope:g}",
                    "P(A better)": float(bayes.p_a_better),
                    "P(equivalent)": float(bayes.p_rope),
                    "P(B better)": float(bayes.p_b_better),
                }
            )
    return means, rows


def _across(m: np.ndarray, labels, compared, *, rope: float) -> pd.DataFrame:
    """Per pair compared, the tests over the data sets completely assessed (``m``: data set x learner means):
    Wilcoxon's and the sign test, each p beside its Holm adjustment over the pairs, and the Bayesian
    signed-rank test."""
    from simstudy.statistics.bayesian import bayesian_signed_rank_test
    from simstudy.statistics.multiple import binomial_sign_test, holm_adjust, wilcoxon_test

    rows = []
    rng = np.random.default_rng(_BSR_SEED)
    for i, j in compared:
        diff = m[:, i] - m[:, j]
        row = {"A": labels[i], "B": labels[j], "data sets": int(diff.size)}
        row["mean A - B"] = float(diff.mean()) if diff.size else np.nan
        row["wins A"] = int((diff > 0).sum())
        row["wins B"] = int((diff < 0).sum())
        row["ties"] = int((diff == 0).sum())
        if diff.size >= 2:
            w = wilcoxon_test(diff)
            s = binomial_sign_test(diff)
            b = bayesian_signed_rank_test(diff, rope=rope, rng=rng, n_samples=_BSR_SAMPLES)
            row.update(
                {
                    "Wilcoxon p": float(w.pvalue),
                    "Wilcoxon p (Holm)": np.nan,
                    "sign p": float(s.pvalue),
                    "sign p (Holm)": np.nan,
                    "ROPE": f"±{rope:g}",
                    "P(A better)": float(b.p_a_better),
                    "P(equivalent)": float(b.p_rope),
                    "P(B better)": float(b.p_b_better),
                }
            )
        rows.append(row)
    across = pd.DataFrame(rows)
    for col in ("Wilcoxon p", "sign p"):  # Holm (1979) over the pairs compared: the raw p stays beside it
        if col in across and across[col].notna().all():
            across[f"{col} (Holm)"] = holm_adjust(across[col].to_numpy(float))
    return across


def _rank_tables(m: np.ndarray, labels, *, alpha: float, control: int | None) -> dict:
    """Three or more learners: mean ranks, Friedman's and Iman-Davenport's tests with the Nemenyi critical
    difference, and Holm's post-hoc on mean ranks (over all pairs or against ``control``)."""
    from simstudy.statistics.multiple import critical_difference, friedman_test, holm_test, mean_ranks

    L = len(labels)
    fr = friedman_test(m)
    return {
        "ranks": pd.DataFrame({"learner": labels, "mean rank": np.asarray(mean_ranks(m), float)}).sort_values(
            "mean rank", kind="stable"
        ),
        "friedman": pd.DataFrame(
            [
                {
                    "data sets": int(m.shape[0]),
                    "learners": L,
                    "chi2": float(fr.chi2),
                    "p (chi2)": float(fr.chi2_pvalue),
                    "Iman-Davenport F": float(fr.f),
                    "p (F)": float(fr.f_pvalue),
                    "Nemenyi CD": float(critical_difference(L, m.shape[0], alpha=alpha)),
                }
            ]
        ),
        "holm": _holm_frame(holm_test(m, alpha=alpha, control=control), labels),
    }


def _holm_frame(holm, labels) -> pd.DataFrame:
    rows = []
    for k, (i, j) in enumerate(holm.pairs):
        rows.append(
            {
                "A": labels[i],
                "B": labels[j],
                "p": float(holm.pvalues[k]),
                "Holm p": float(holm.adjusted[k]),
                "significant": bool(holm.reject[k]),
            }
        )
    return pd.DataFrame(rows)


@dataclass
class ManyAssessment:
    """The result of :func:`assess_many`: the stored run and its tables."""

    study: object
    run: object
    tables: dict
    datasets: tuple
    learners: tuple
    labels: list
    design: str
    metric: str
    rope: float
    alpha: float
    scratch: object = field(default=None, repr=False, compare=False)
    #: the learner every other one is compared with across data sets (None: every pair)
    control: str | None = None
    #: the decision rules applied (simstudy.apps.conclusion.conclude_many)
    conclusion: object = None

    def __str__(self) -> str:
        return many_text(self)

    def scores(self) -> pd.DataFrame:
        """Per data set and split: every learner's score, in columns named by the learners.

        Columns ``data set``, ``repeat`` (from 0), ``run``, ``fold``,
        ``n_train``, ``n_test`` (the design's mean sizes on that data set),
        then one per learner.  Written as ``scores.csv`` by :func:`write_many`.
        """
        rows = self.run.table("scores")
        _, cols = _score_matrix(rows, len(self.labels))
        choices = design_choices(self.datasets, self.design)
        parts = []
        for i, data in enumerate(self.datasets):
            key = DataSetCondition(i, data.name).key
            r = rows[rows["condition"] == key].sort_values(["replication", "run", "fold"])
            d = choices[i]
            frame = pd.DataFrame(
                {
                    "data set": data.name,
                    "repeat": r["replication"].to_numpy(),
                    "run": r["run"].to_numpy(),
                    "fold": r["fold"].to_numpy(),
                    "n_train": d.n_train,
                    "n_test": d.n_test,
                }
            )
            for label, col in zip(self.labels, cols):
                frame[label] = r[col].to_numpy(float)
            parts.append(frame)
        return pd.concat(parts, ignore_index=True)

    def to_baycomp(self, a: str, b: str, repeat: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
        """``x, y, runs`` for baycomp's hierarchical model: ``baycomp.two_on_multiple(x, y, rope=..., runs=runs)``.

        ``x`` and ``y`` have one row per data set and one column per split of
        the design (the repeat ``repeat``), the scores of learners ``a`` and
        ``b`` (their names in the tables); with two-dimensional arrays baycomp
        fits its hierarchical model (Corani et al. 2017), whose per-data-set
        correlation is ``runs / len(x[0])``: the design's test share, as
        :func:`simstudy.apps.assess.baycomp_runs` chooses it.
        """
        for name, argument in ((a, "a"), (b, "b")):
            if name not in self.labels:
                raise InputError(f"{argument}: {name!r} is not one of the learners ({', '.join(self.labels)})")
        s = self.scores()
        s = s[s["repeat"] == repeat]
        if s.empty:
            raise InputError(f"repeat: {repeat!r} is not a stored repeat")
        sets = [d.name for d in self.datasets]
        x = np.stack([s[s["data set"] == n][a].to_numpy(float) for n in sets])
        y = np.stack([s[s["data set"] == n][b].to_numpy(float) for n in sets])
        return x, y, baycomp_runs(design_choices(self.datasets, self.design)[0])

    def plot(self):
        """The critical-difference diagram (three or more learners), a matplotlib Figure; None for two learners."""
        if "ranks" not in self.tables:
            return None
        from simstudy.outputs.plots.critical_difference import critical_difference_diagram
        from simstudy.statistics.multiple import nemenyi_test

        means = self.tables["means"][self.labels].to_numpy(float)
        res = nemenyi_test(means[~np.isnan(means).any(axis=1)], alpha=self.alpha)
        ax = critical_difference_diagram(
            res.mean_ranks,
            self.labels,
            groups=res.groups,
            critical_difference=res.critical_difference,
            title=f"{self.metric}, {self.design}, {res.n_datasets} data sets: Nemenyi at alpha = {self.alpha}",
        )
        return ax.figure


def many_text(a: ManyAssessment) -> str:
    """Plain text for the terminal: the Conclusion first."""
    t = a.tables
    fmt = {"float_format": lambda v: f"{v:.4g}"}
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.max_colwidth", 40):
        lines = [
            *(_conclusion_lines(a.conclusion) if a.conclusion is not None else []),
            f"{len(a.labels)} learners on {len(a.datasets)} data sets: {a.design} on each, "
            f"{a.run.table('scores')['replication'].nunique()} repeat(s); score {a.metric}; ROPE ±{a.rope:g}; "
            f"alpha {a.alpha}; root seed {a.run.manifest['root_seed']}",
            f"Learners: {', '.join(a.labels)}",
            f"Stored in {a.run.path}",
            *_warning_lines(a),
            "",
            f"Mean {a.metric} per data set (every split of every repeat):",
            t["means"].to_string(index=False, **fmt),
            "",
            "Per data set and pair (first repeat): mean difference with the corrected 95% interval, the corrected "
            "test's p, and the Bayesian correlated t-test:",
            t["pairs"].to_string(index=False, **fmt),
            "",
            f"Across data sets, per pair{_against(a)} (each data set's mean is one observation): Wilcoxon "
            "signed-rank and sign tests, raw and Holm-adjusted for the pairs compared, Bayesian signed-rank:",
            t["across"].to_string(index=False, **fmt),
        ]
        if "friedman" in t:
            f = t["friedman"].iloc[0]
            lines += [
                "",
                f"Friedman: chi2 = {f['chi2']:.3f}, p = {f['p (chi2)']:.3g}; Iman-Davenport F = "
                f"{f['Iman-Davenport F']:.3f}, p = {f['p (F)']:.3g}; Nemenyi critical difference "
                f"{f['Nemenyi CD']:.3f} in mean rank",
                t["ranks"].to_string(index=False, **fmt),
                "",
                f"Holm's step-down on mean ranks{_against(a) or ' over all pairs'}:",
                t["holm"].to_string(index=False, **fmt),
            ]
    lines += ["", _reading()]
    return "\n".join(lines)


def _against(a: ManyAssessment) -> str:
    return f" against the control {a.control}" if a.control else ""


def _reading() -> str:
    return (
        "Reading: an interval that excludes 0 and a corrected p below alpha say the same thing for one data set. "
        "P(A better), P(equivalent), P(B better): posterior probabilities that the difference lies above the "
        "ROPE, within it, below it; a verdict is usually taken when one of them reaches 0.95. The tests across "
        "data sets ask whether one learner is better on data sets like these, not on any one of them."
    )


def as_datasets(data, *, class_column=None, nominal=()) -> tuple:
    """The data sets of :func:`assess_many`: files or shipped names, DataFrames, ``(X, y)`` pairs, or a mapping
    ``{name: any of these}``; one line naming the data set that cannot be read.  ``nominal``: columns taken as
    nominal in every file or DataFrame (see :func:`simstudy.apps.assess.load_data`)."""
    from collections.abc import Mapping

    def pair(d) -> bool:
        return isinstance(d, tuple) and len(d) == 2 and not isinstance(d[0], (str, Path))

    if isinstance(data, Mapping):
        items = [(str(k), v) for k, v in data.items()]
    elif isinstance(data, (str, Path, pd.DataFrame)) or pair(data):
        items = [(None, data)]
    else:
        items = [(None, d) for d in data]
    out = []
    for i, (name, d) in enumerate(items, start=1):
        if pair(d):
            out.append(as_dataset(d[0], d[1], name=name or f"arrays {i}"))
        elif isinstance(d, pd.DataFrame):
            out.append(as_dataset(d, class_column=class_column, name=name or f"data frame {i}", nominal=nominal))
        elif isinstance(d, (str, Path)):
            out.append(as_dataset(d, class_column=class_column, name=name, nominal=nominal))
        else:
            raise InputError(
                f"DATA: data set {i} is a {type(d).__name__}; give a file or shipped name, a DataFrame or (X, y)"
            )
    first: dict[str, int] = {}
    for i, d in enumerate(out):
        j = first.setdefault(d.digest, i)
        if j != i:  # the same file named twice, or a copy of it: one data set counted as two by the tests across them
            raise InputError(
                f"DATA: data sets {j + 1} ({out[j].name}) and {i + 1} ({d.name}) are the same data (the same values "
                "and classes); the tests across data sets take each as independent evidence, so give each data set once"
            )
    return tuple(out)


def assess_many(
    data,
    learners,
    *,
    design: str = "cv10x10",
    n_repeats: int = 1,
    metric: str = "accuracy",
    rope: float = DEFAULT_ROPE,
    alpha: float = 0.05,
    out=None,
    out_root=None,
    jobs: int = 1,
    seed: int | None = None,
    progress: bool = False,
    fresh: bool = False,
    class_column=None,
    control=None,
    fit_timeout: float | None = None,
    in_process: bool = False,
    nominal=(),
) -> ManyAssessment:
    """Compare several learners on several data sets: per data set, then across them.

    Parameters
    ----------
    data : sequence, or mapping of name to data set
        Data sets, each a file or shipped data set name (see
        :func:`simstudy.apps.assess.load_data`), a DataFrame (the class in
        ``class_column``, else its last column) or a pair ``(X, y)`` of
        arrays; a mapping ``{name: data set}`` names them in the tables.
    learners : sequence, or mapping of name to learner
        Learners as :func:`simstudy.apps.assess.parse_learner` takes them
        (registered names, ``module:NAME``, ``path/to/file.py:NAME``, classes,
        estimators); ``{"logreg": ..., "forest": ...}`` or ``(name, learner)``
        pairs name them in the tables and figures.
    design : str
        The design applied to every data set.
    n_repeats : int
        Repeats of the design per data set.
    metric : str
        A scikit-learn scorer name; default accuracy.
    rope : float
        Half-width of the region of practical equivalence, in score units.
    alpha : float
        Significance level.
    out, out_root : path, optional
        Run directory, or the results root of the default one
        (``out_root/assess/many-<digest>``); with neither, a temporary
        directory that lives as long as the result.
    jobs, seed, progress, fresh
        As for :func:`simstudy.engine.run_study`; the numbers do not depend on ``jobs``.
    control : str, optional
        A learner's name in the tables (``--control``): the tests across data
        sets then compare every other learner with it (Holm over ``k - 1``
        comparisons, Demsar's recommended use) instead of every pair.
    fit_timeout, in_process
        Where user learners are loaded and fitted, and the limit of each fit
        (see :func:`simstudy.apps.assess.assess`).  Before anything is
        written, every learner is checked against every data set (one line
        naming both when one cannot take the other).
    nominal : sequence of str
        Columns taken as nominal attributes in every CSV or Parquet file or
        DataFrame (see :func:`simstudy.apps.assess.load_data`).

    Returns
    -------
    ManyAssessment
    """
    from simstudy._validation import check_alpha
    from simstudy.engine import DEFAULT_SEED, run_study

    alpha = check_alpha(alpha, option("alpha"))
    out, out_root = _absolute(out), _absolute(out_root)  # before a learner can change the working directory
    fit_timeout = check_fit_timeout(fit_timeout)
    check_in_process(in_process, fit_timeout)
    metric = check_metric(metric)
    rope = check_rope(rope, metric)
    datasets = as_datasets(data, class_column=class_column, nominal=nominal)
    for d in datasets:
        check_metric_for(metric, d)
    learners = named_learners(learners)
    choices = _many_learners(learners, in_process=in_process, fit_timeout=fit_timeout)
    labels = _labels(choices)
    position = None
    if control is not None:
        if control not in labels:
            raise InputError(f"{option('control')}: {control!r} is not one of the learners ({', '.join(labels)})")
        position = labels.index(control)
    # before anything is written
    seconds = check_learners(datasets, choices, option("learners"), fit_timeout=fit_timeout)
    try:
        study = many_study(datasets, choices, design, n_repeats=n_repeats, metric=metric, fit_timeout=fit_timeout)
    except BaseException:
        _close_fit_workers()
        raise
    out, scratch = _many_directory(out, out_root, datasets, choices, design, metric)
    seed = DEFAULT_SEED if seed is None else seed
    splits = design_choices(datasets, design)
    try:
        _check_many_budget(datasets, splits, seconds, n_repeats, out)
        from simstudy.apps.assess.run import _fit_progress

        per = {
            c.key: len(learners) * splits[c.position].n_runs * max(splits[c.position].n_folds, 1)
            for c in study.conditions
        }
        show = progress and jobs == 1
        with _fit_progress(study, per, n_repeats, out, seed, show=show, fresh=fresh, profile=MANY_PROFILE) as bar:
            run = run_study(
                study, MANY_PROFILE, out=out, jobs=jobs, seed=seed, progress=progress and not bar, fresh=fresh
            )
    finally:
        _close_fit_workers()
    failures = run.table("failures")
    if len(failures):
        first = failures.iloc[0]
        raise RuntimeError(
            f"{len(failures)} repeat(s) failed, the first on {first['condition']}: "
            f"{str(first['error']).strip().splitlines()[-1]} (rows kept in {run.path})"
        )
    from simstudy.apps.conclusion import conclude_many

    tables = many_tables(
        run, datasets, choices, design_choices(datasets, design), rope=float(rope), alpha=alpha, control=position
    )
    return ManyAssessment(
        study, run, tables, datasets, choices, labels, design, metric, float(rope), alpha, scratch,
        control=control, conclusion=conclude_many(tables, alpha=alpha, rope=float(rope), control=control),
    )  # fmt: skip


def _many_learners(learners, *, in_process: bool, fit_timeout) -> tuple:
    """The learners parsed, at least two of them (each loaded in a worker where it must be)."""
    if len(learners) < 2:
        raise InputError(f"{option('learners')}: give at least two learners, got {len(learners)}")
    return tuple(
        parse_learner(
            spec,
            option=option("learners"),
            contained=wants_worker(spec, in_process=in_process, fit_timeout=fit_timeout),
        )
        for spec in learners
    )


def _many_directory(out, out_root, datasets, choices, design: str, metric: str):
    """The run directory: ``out``; else one under ``out_root`` named by the data, learners, design and metric;
    else a temporary one, returned second so that it lives as long as the result."""
    if out is not None:
        return out, None
    if out_root is not None:
        digest = hashlib.sha256(
            json.dumps([[d.digest for d in datasets], [c.label for c in choices], design, metric]).encode()
        ).hexdigest()[:10]
        return Path(out_root) / "assess" / f"many-{digest}", None
    return _scratch_folder()


def _check_many_budget(datasets, splits, seconds: dict, n_repeats: int, out) -> None:
    """Refuse a run whose fits, timed on each learner and data set, would take longer than the budget."""
    fitting = n_repeats * sum(
        splits[i].n_runs * max(splits[i].n_folds, 1) * (t * splits[i].n_train / d.y.size + FIT_OVERHEAD)
        for (i, _), t in seconds.items()
        for d in (datasets[i],)
    )
    check_budget(len(datasets) * n_repeats, fitting, out, what=f"{n_repeats:,} repeats on {len(datasets)} data set(s)")


def many_markdown(a: ManyAssessment, figure: str | None = None) -> str:
    """The Markdown page: every table, the diagram, how to read them."""
    t = a.tables
    parts = [
        f"# {len(a.labels)} learners on {len(a.datasets)} data sets",
        "",
        *(conclusion_markdown(a.conclusion) if a.conclusion is not None else []),
        f"- Learners: {', '.join(md_text(x) for x in a.labels)}",
        f"- Data sets: {', '.join(md_text(d.name) for d in a.datasets)}",
        f"- Design {md_text(a.design)}; score {md_text(a.metric)}; ROPE ±{a.rope:g}; alpha {a.alpha}; root seed "
        f"{a.run.manifest['root_seed']}",
        "",
        f"## Mean {md_text(a.metric)} per data set",
        "",
        _md_table(t["means"]),
        "",
        "## Per data set and pair (first repeat)",
        "",
        _md_table(t["pairs"]),
        "",
        f"## Across data sets, per pair{md_text(_against(a))}",
        "",
        _md_table(t["across"]),
        "",
    ]
    if "friedman" in t:
        parts += [
            "## Ranks, Friedman, Holm",
            "",
            _md_table(t["friedman"]),
            "",
            _md_table(t["ranks"]),
            "",
            _md_table(t["holm"]),
            "",
        ]
    if figure:
        parts += [f"![critical-difference diagram: mean ranks, Nemenyi at alpha = {a.alpha}]({figure})", ""]
    parts += [_reading(), ""]
    return "\n".join(parts)


def many_html(a: ManyAssessment, figure: str | None = None) -> str:
    """The HTML twin of :func:`many_markdown`."""
    import html

    from simstudy.outputs.tables import html_table as table

    e = html.escape
    t = a.tables
    body = [
        f"<h1>{len(a.labels)} learners on {len(a.datasets)} data sets</h1>",
        *([conclusion_html(a.conclusion)] if a.conclusion is not None else []),
        "<ul>",
        f"<li>Learners: {e(', '.join(a.labels))}</li>",
        f"<li>Data sets: {e(', '.join(d.name for d in a.datasets))}</li>",
        f"<li>Design {e(a.design)}; score {e(a.metric)}; ROPE ±{a.rope:g}; alpha {a.alpha}; root seed "
        f"{a.run.manifest['root_seed']}</li>",
        "</ul>",
        f"<h2>Mean {e(a.metric)} per data set</h2>",
        table(t["means"]),
        "<h2>Per data set and pair (first repeat)</h2>",
        table(t["pairs"]),
        f"<h2>Across data sets, per pair{e(_against(a))}</h2>",
        table(t["across"]),
    ]
    if "friedman" in t:
        body += ["<h2>Ranks, Friedman, Holm</h2>", table(t["friedman"]), table(t["ranks"]), table(t["holm"])]
    if figure:
        body.append(
            f'<figure><img src="{e(figure)}" alt="critical-difference diagram" style="max-width:100%">'
            f"<figcaption>Mean ranks; learners joined by a bar are not significantly different by Nemenyi's test "
            f"at alpha = {a.alpha}.</figcaption></figure>"
        )
    body.append(f"<p><small>{e(_reading())}</small></p>")
    style = (
        "body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;font-size:0.9em;margin:0.5em 0}td,th{border:1px solid #ccc;padding:2px 6px}"
        "td.r{text-align:right}"
    )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{len(a.labels)} learners on '
        f"{len(a.datasets)} data sets</title><style>{style}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def write_many(a: ManyAssessment, directory=None) -> dict:
    """Write ``assessment.md`` and ``assessment.html``, the tables as CSV, the per-split ``scores.csv`` (for
    baycomp's hierarchical model and other packages) and (three or more learners) ``critical_difference.png``;
    scored by another metric than accuracy, every name carries it (``assessment-METRIC.md``, ``scores-METRIC.csv``),
    so scoring again with ``--metric`` writes beside the earlier files."""
    import io

    from simstudy._files import write_atomic
    from simstudy.apps.assess.report import page_stem

    d = Path(directory) if directory is not None else Path(a.run.path)
    d.mkdir(parents=True, exist_ok=True)
    paths = {}
    # scored by another metric: every file named for it, beside the pages of the first scoring, never over them
    stem = page_stem(a.metric)
    tag = "" if stem == "assessment" else f"-{a.metric}"
    fig = a.plot()
    if fig is not None:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=150, bbox_inches="tight")
        paths["figure"] = d / f"critical_difference{tag}.png"
        write_atomic(paths["figure"], buf.getvalue())
    figure = paths["figure"].name if fig is not None else None
    paths["markdown"] = d / f"{stem}.md"
    write_atomic(paths["markdown"], many_markdown(a, figure).encode())
    paths["html"] = d / f"{stem}.html"
    write_atomic(paths["html"], many_html(a, figure).encode())
    for name, table in a.tables.items():
        paths[name] = d / f"{name}{tag}.csv"
        write_atomic(paths[name], table.to_csv(index=False).encode())
    paths["scores"] = d / f"scores{tag}.csv"
    write_atomic(paths["scores"], a.scores().to_csv(index=False).encode())
    return paths


def _conclusion_lines(c) -> list[str]:
    """The Conclusion for the terminal: the headline, one line per pair, then the reasons."""
    lines = [f"Conclusion: {c.headline}"]
    for p in c.pairs:
        lines.append(f"  {p['pair']}: {p['verdict']} (mean A - B {p['mean A - B']:+.4f}, wins {p['wins A/B']})")
    return [*lines, c.text, ""]


def _warning_lines(a: ManyAssessment) -> list[str]:
    """The learners' warnings over every data set and repeat, each said once with its count."""
    from simstudy.apps.assess.tables import warning_summary

    w = warning_summary(a.run)
    if w.empty:
        return []
    lines = ["Warnings from the learners' fits (counted, not printed as they came):"]
    lines += [
        f"  {r['category']}: {r['count']} times in {r['repeats']} repeat(s): {r['message']}" for _, r in w.iterrows()
    ]
    return lines
