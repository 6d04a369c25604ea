"""Write Berrar-style data sets to CSV, run ``learners_r.R`` on them and read R's answers.

Used by ``tests/pipeline/test_learners_r.py`` (cross-check, marked ``needs_r``) and by
``benchmarks/bench_learners_r.py`` (timings).  R is never needed at run time of
simstudy itself.

Data sets follow Berrar (2017): Algorithm 2 (study 1, group g: data set i has
``n_i = 240 + 50 g + 10 i`` training and as many test cases, ``d_i = i + 10``
features) and Algorithm 4 (1000 cases, d features, positives N(0.3, 1),
stratified 10-fold cross-validation).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simstudy.pipeline.sources import berrar_benchmark_sources, berrar_cv_source
from simstudy.pipeline.splits import folds, stratified_fold_ids

R_SCRIPT = Path(__file__).with_name("learners_r.R")


@dataclass(frozen=True)
class Task:
    """One training/test problem and the learners R should fit on it."""

    id: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    learners: tuple = ("nb", "svm")
    rf_seeds: int = 0


def r_available() -> bool:
    """True when Rscript runs and loads e1071 and randomForest."""
    if shutil.which("Rscript") is None:
        return False
    res = subprocess.run(["Rscript", "-e", "library(e1071); library(randomForest)"], capture_output=True, timeout=60)
    return res.returncode == 0


def study1_tasks(group: int, replication_seed: int, *, datasets=None, learners=("nb", "svm"), rf_seeds=0):
    """The data sets of one Algorithm 2 replication of study 1, group ``group``."""
    rng = np.random.default_rng(replication_seed)
    tasks = []
    for i, (n, src) in enumerate(berrar_benchmark_sources(20, 240 + 50 * group), start=1):
        X, y = src.sample(n, rng)
        Xt, yt = src.sample(n, rng)
        if datasets is None or i in datasets:
            tasks.append(Task(f"s1g{group}r{replication_seed}d{i}", X, y, Xt, yt, tuple(learners), rf_seeds))
    return tasks


def cv_tasks(n_features: int, replication_seed: int, *, learners=("svm", "rf"), rf_seeds=1, n_cases=1000, n_folds=10):
    """The folds of one Algorithm 4 replication (stratified 10-fold cv on 1000 cases)."""
    rng = np.random.default_rng(replication_seed)
    X, y = berrar_cv_source(n_features).sample(n_cases, rng)
    ids = stratified_fold_ids(y, n_folds, rng)
    return [
        Task(f"cv{n_features}r{replication_seed}f{f}", X[tr], y[tr], X[te], y[te], tuple(learners), rf_seeds)
        for f, (tr, te) in enumerate(folds(ids))
    ]


def _write_csv(path, X, y):
    header = ",".join([f"x{j + 1}" for j in range(X.shape[1])] + ["y"])
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header, comments="", fmt="%.17g")


def write_tasks(directory, tasks):
    directory = Path(directory)
    lines = ["id,learners,rf_seeds"]
    for t in tasks:
        _write_csv(directory / f"{t.id}_train.csv", t.X_train, t.y_train)
        _write_csv(directory / f"{t.id}_test.csv", t.X_test, t.y_test)
        lines.append(f"{t.id},{';'.join(t.learners)},{t.rf_seeds}")
    (directory / "tasks.csv").write_text("\n".join(lines) + "\n")


def _floats(column):
    """A CSV column as floats, R's NA as NaN (a posterior is NA when a class has one training case)."""
    return np.array([np.nan if str(v).strip() == "NA" else float(v) for v in np.atleast_1d(column)])


def run_r(directory, tasks):
    """Run the R script on ``tasks``; return ({(id, learner): array}, {(id, learner): seconds})."""
    directory = Path(directory)
    write_tasks(directory, tasks)
    subprocess.run(["Rscript", str(R_SCRIPT), str(directory)], check=True, capture_output=True, timeout=3600)
    out = {}
    for t in tasks:
        for learner in t.learners:
            data = np.genfromtxt(
                directory / f"{t.id}_{learner}.csv", delimiter=",", names=True, dtype=None, encoding="utf-8"
            )
            if learner == "rf":
                out[(t.id, "rf")] = np.column_stack(
                    [np.asarray(data[name], dtype=np.int64) for name in data.dtype.names]
                )
            else:
                out[(t.id, learner)] = np.atleast_1d(np.asarray(data["pred"], dtype=np.int64))
                if learner == "nb":
                    cols = [name for name in data.dtype.names if name.startswith("p") and name != "pred"]
                    out[(t.id, "nb_proba")] = np.column_stack([_floats(data[c]) for c in cols])
                if learner == "svm" and "dv" in data.dtype.names:
                    out[(t.id, "svm_dv")] = np.atleast_1d(np.asarray(data["dv"], dtype=float))
    timing = {}
    tdata = np.genfromtxt(directory / "timing.csv", delimiter=",", names=True, dtype=None, encoding="utf-8")
    for row in np.atleast_1d(tdata):
        key = (str(row["id"]).strip('"'), str(row["learner"]).strip('"'))
        timing[key] = timing.get(key, 0.0) + float(row["seconds"])
    return out, timing
