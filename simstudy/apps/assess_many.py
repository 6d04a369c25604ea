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
* across data sets, per pair: the Wilcoxon signed-rank and sign tests on the
  per-data-set mean differences (Demsar 2006) and the Bayesian signed-rank
  test with the ROPE (Benavoli et al. 2017);
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simstudy._lazy import lazy_module

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = ["assess_many", "ManyAssessment", "many_study", "many_tables", "DEFAULT_ROPE"]

MANY_PROFILE = "assess"
#: Half-width of the region of practical equivalence: differences of at most one point of accuracy do not matter.
DEFAULT_ROPE = 0.01
# the corrected test of each kind of design, whose variance the interval uses
_CORRECTED = {"cv": "corrected_cv_t", "5x2cv": "5x2cv_t", "resampled": "corrected_resampled_t"}
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
    labels = [c.label for c in learners]
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
    from simstudy.apps.assess import parse_designs

    choices = {}
    for i, data in enumerate(datasets):
        try:
            (choices[i],) = parse_designs([design], data.y, classes=data.classes)
        except ValueError as exc:
            raise ValueError(f"{data.name}: {exc}") from None
    return choices


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
    from simstudy.apps.assess import _learner
    from simstudy.engine import Cost, Profile, Study
    from simstudy.pipeline.comparison import Comparison

    if isinstance(n_repeats, bool) or not isinstance(n_repeats, (int, np.integer)) or n_repeats < 1:
        raise ValueError(f"--repeats: must be an integer >= 1, got {n_repeats!r}")
    datasets, learners = tuple(datasets), tuple(learners)
    if len(learners) < 2:
        raise ValueError(f"--learners: give at least two learners, got {len(learners)}")
    if len(datasets) < 1:
        raise ValueError("DATA: give at least one data set")
    choices = design_choices(datasets, design)
    conditions = [DataSetCondition(i, d.name) for i, d in enumerate(datasets)]
    names = [f"l{j}" for j in range(len(learners))]

    def replicate(cond: DataSetCondition, rng):
        data = datasets[cond.position]
        d = choices[cond.position]
        comparison = Comparison(
            {n: _learner(c, "--learners", fit_timeout, data) for n, c in zip(names, learners)},
            designs=(d.key,),
            tests=[_CORRECTED[d.design]],
            metric=metric,
            index_dtype=np.int16,
        )
        return comparison.run(data.X, data.y, rng)

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


def many_tables(run, datasets, learners, choices, *, rope: float = DEFAULT_ROPE, alpha: float = 0.05) -> dict:
    """Every table of a multi-data-set assessment, from its stored rows alone.

    Returns
    -------
    dict of DataFrame
        ``means`` (data set x learner mean score over every split of every
        repeat), ``pairs`` (per data set and pair: the first repeat's mean
        difference, corrected interval, corrected test and Bayesian
        correlated t-test), ``across`` (per pair: Wilcoxon signed-rank, sign
        and Bayesian signed-rank tests over data sets), ``ranks`` (mean rank
        per learner and Holm's adjusted p-values against the best) and
        ``friedman`` (one row: Friedman's and Iman-Davenport's statistics,
        the Nemenyi critical difference), the last two for three or more learners.
    """
    from simstudy.statistics.bayesian import bayesian_signed_rank_test, correlated_t_test
    from simstudy.statistics.effect import corrected_difference_interval
    from simstudy.statistics.multiple import (
        binomial_sign_test,
        critical_difference,
        friedman_test,
        holm_test,
        mean_ranks,
        wilcoxon_test,
    )

    labels = _labels(learners)
    L = len(labels)
    scores = run.table("scores")
    outcomes = run.table("outcomes")
    prefix, cols = _score_matrix(scores, L)
    conds = [DataSetCondition(i, d.name) for i, d in enumerate(datasets)]
    means = np.full((len(conds), L), np.nan)
    pair_rows = []
    pairs = [(i, j) for i in range(L) for j in range(i + 1, L)]
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
            pair_rows.append(
                {
                    "data set": c.name,
                    "A": labels[i],
                    "B": labels[j],
                    "mean A - B": float(ci.mean),
                    "low": float(ci.low),
                    "high": float(ci.high),
                    "corrected test": _CORRECTED[d.design],
                    "p": float(test["pvalue"].iloc[0]) if len(test) else np.nan,
                    "P(A better)": float(bayes.p_a_better),
                    "P(equivalent)": float(bayes.p_rope),
                    "P(B better)": float(bayes.p_b_better),
                }
            )
    tables = {
        "means": pd.DataFrame(means, columns=labels).assign(**{"data set": [c.name for c in conds]})[
            ["data set", *labels]
        ],
        "pairs": pd.DataFrame(pair_rows),
    }
    done = ~np.isnan(means).any(axis=1)
    m = means[done]
    across = []
    rng = np.random.default_rng(_BSR_SEED)
    for i, j in pairs:
        diff = m[:, i] - m[:, j]
        row = {"A": labels[i], "B": labels[j], "data sets": int(diff.size)}
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
                    "sign p": float(s.pvalue),
                    "P(A better)": float(b.p_a_better),
                    "P(equivalent)": float(b.p_rope),
                    "P(B better)": float(b.p_b_better),
                }
            )
        across.append(row)
    tables["across"] = pd.DataFrame(across)
    if L >= 3 and m.shape[0] >= 2:
        ranks = mean_ranks(m)
        fr = friedman_test(m)
        holm = holm_test(m, alpha=alpha)
        cd = critical_difference(L, m.shape[0], alpha=alpha)
        tables["ranks"] = pd.DataFrame({"learner": labels, "mean rank": np.asarray(ranks, float)}).sort_values(
            "mean rank", kind="stable"
        )
        tables["friedman"] = pd.DataFrame(
            [
                {
                    "data sets": int(m.shape[0]),
                    "learners": L,
                    "chi2": float(fr.chi2),
                    "p (chi2)": float(fr.chi2_pvalue),
                    "Iman-Davenport F": float(fr.f),
                    "p (F)": float(fr.f_pvalue),
                    "Nemenyi CD": float(cd),
                }
            ]
        )
        tables["holm"] = _holm_frame(holm, labels)
    return tables


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

    def __str__(self) -> str:
        return many_text(self)

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
    """Plain text for the terminal."""
    t = a.tables
    fmt = {"float_format": lambda v: f"{v:.4g}"}
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.max_colwidth", 40):
        lines = [
            f"{len(a.labels)} learners on {len(a.datasets)} data sets: {a.design} on each, "
            f"{a.run.table('scores')['replication'].nunique()} repeat(s); score {a.metric}; ROPE ±{a.rope:g}; "
            f"alpha {a.alpha}; root seed {a.run.manifest['root_seed']}",
            f"Learners: {', '.join(a.labels)}",
            f"Stored in {a.run.path}",
            "",
            f"Mean {a.metric} per data set (every split of every repeat):",
            t["means"].to_string(index=False, **fmt),
            "",
            "Per data set and pair (first repeat): mean difference with the corrected 95% interval, the corrected "
            "test's p, and the Bayesian correlated t-test:",
            t["pairs"].to_string(index=False, **fmt),
            "",
            "Across data sets, per pair (each data set's mean is one observation): Wilcoxon signed-rank, sign "
            "test, Bayesian signed-rank:",
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
                "Holm's step-down over all pairs:",
                t["holm"].to_string(index=False, **fmt),
            ]
    lines += ["", _reading()]
    return "\n".join(lines)


def _reading() -> str:
    return (
        "Reading: an interval that excludes 0 and a corrected p below alpha say the same thing for one data set. "
        "P(A better), P(equivalent), P(B better): posterior probabilities that the difference lies above the "
        "ROPE, within it, below it; a verdict is usually taken when one of them reaches 0.95. The tests across "
        "data sets ask whether one learner is better on data sets like these, not on any one of them."
    )


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
    fit_timeout: float | None = None,
    in_process: bool = False,
    nominal=(),
) -> ManyAssessment:
    """Compare several learners on several data sets: per data set, then across them.

    Parameters
    ----------
    data : sequence of str or os.PathLike
        Data files or shipped data set names (see :func:`simstudy.apps.assess.load_data`).
    learners : sequence
        Learners as :func:`simstudy.apps.assess.parse_learner` takes them
        (registered names, ``module:NAME``, ``path/to/file.py:NAME``, classes, estimators).
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
    fit_timeout, in_process
        Where user learners are loaded and fitted, and the limit of each fit
        (see :func:`simstudy.apps.assess.assess`).  Before anything is
        written, every learner is checked against every data set (one line
        naming both when one cannot take the other).
    nominal : sequence of str
        Columns taken as nominal attributes in every CSV or Parquet file (see
        :func:`simstudy.apps.assess.load_data`).

    Returns
    -------
    ManyAssessment
    """
    from simstudy._validation import check_alpha
    from simstudy.apps.assess import (
        FIT_OVERHEAD,
        _close_fit_workers,
        check_fit_timeout,
        check_learners,
        check_metric_for,
        check_plan,
        check_rope,
        load_data,
        parse_learner,
        wants_worker,
    )
    from simstudy.engine import DEFAULT_SEED, run_study
    from simstudy.pipeline.scores import check_metric

    alpha = check_alpha(alpha, "--alpha")
    fit_timeout = check_fit_timeout(fit_timeout)
    if in_process and fit_timeout is not None:
        raise ValueError("--in-process: a learner fitted in simstudy's process cannot be stopped; drop --fit-timeout")
    try:
        metric = check_metric(metric)
    except ValueError as exc:
        raise ValueError(f"--{exc}") from None
    rope = check_rope(rope)
    if isinstance(data, (str, Path)):
        data = [data]
    datasets = tuple(load_data(d, class_column=class_column, nominal=nominal) for d in data)
    for d in datasets:
        check_metric_for(metric, d)
    if len(learners) < 2:
        raise ValueError(f"--learners: give at least two learners, got {len(learners)}")
    choices = tuple(
        parse_learner(
            spec, option="--learners", contained=wants_worker(spec, in_process=in_process, fit_timeout=fit_timeout)
        )
        for spec in learners
    )
    study = many_study(datasets, choices, design, n_repeats=n_repeats, metric=metric, fit_timeout=fit_timeout)
    seconds = check_learners(datasets, choices, "--learners", fit_timeout=fit_timeout)  # before anything is written
    scratch = None
    if out is None and out_root is not None:
        digest = hashlib.sha256(
            json.dumps([[d.digest for d in datasets], [c.label for c in choices], design, metric]).encode()
        ).hexdigest()[:10]
        out = Path(out_root) / "assess" / f"many-{digest}"
    elif out is None:
        import tempfile

        scratch = tempfile.TemporaryDirectory(prefix="simstudy-assess-")
        out = Path(scratch.name) / "run"
    seed = DEFAULT_SEED if seed is None else seed
    splits = design_choices(datasets, design)
    fitting = n_repeats * sum(
        splits[i].n_runs * max(splits[i].n_folds, 1) * (t * splits[i].n_train / d.y.size + FIT_OVERHEAD)
        for (i, _), t in seconds.items()
        for d in (datasets[i],)
    )
    try:
        check_plan(
            len(datasets) * n_repeats, fitting, out, what=f"{n_repeats:,} repeats on {len(datasets)} data set(s)"
        )
    except BaseException:
        _close_fit_workers()
        raise
    try:
        run = run_study(study, MANY_PROFILE, out=out, jobs=jobs, seed=seed, progress=progress, fresh=fresh)
    finally:
        _close_fit_workers()
    failures = run.table("failures")
    if len(failures):
        first = failures.iloc[0]
        raise RuntimeError(
            f"{len(failures)} repeat(s) failed, the first on {first['condition']}: "
            f"{str(first['error']).strip().splitlines()[-1]} (rows kept in {run.path})"
        )
    tables = many_tables(run, datasets, choices, design_choices(datasets, design), rope=float(rope), alpha=alpha)
    return ManyAssessment(
        study, run, tables, datasets, choices, _labels(choices), design, metric, float(rope), alpha, scratch
    )


def many_markdown(a: ManyAssessment, figure: str | None = None) -> str:
    """The Markdown page: every table, the diagram, how to read them."""
    from simstudy.apps.assess_report import _md_table, md_text

    t = a.tables
    parts = [
        f"# {len(a.labels)} learners on {len(a.datasets)} data sets",
        "",
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
        "## Across data sets, per pair",
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


def write_many(a: ManyAssessment, directory=None) -> dict:
    """Write ``assessment.md``, the tables as CSV and (three or more learners) ``critical_difference.png``."""
    import io

    from simstudy._files import write_atomic

    d = Path(directory) if directory is not None else Path(a.run.path)
    d.mkdir(parents=True, exist_ok=True)
    paths = {}
    fig = a.plot()
    if fig is not None:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=150, bbox_inches="tight")
        paths["figure"] = d / "critical_difference.png"
        write_atomic(paths["figure"], buf.getvalue())
    paths["markdown"] = d / "assessment.md"
    write_atomic(paths["markdown"], many_markdown(a, paths["figure"].name if fig is not None else None).encode())
    for name, table in a.tables.items():
        paths[name] = d / f"{name}.csv"
        write_atomic(paths[name], table.to_csv(index=False).encode())
    return paths
