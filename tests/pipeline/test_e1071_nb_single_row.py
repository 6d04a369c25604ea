"""e1071's naiveBayes where a class has one training case: NA posteriors, as R gives them, and a clear refusal.

R (benchmarks/r/nb_single_row_class.R, e1071 1.7.13, R 4.2.2) prints NA for every class of every case with
type = "raw", and the classes x, y, y with type = "class".
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from simstudy.pipeline.learners.rdefaults import E1071NaiveBayes

X = np.array([[1.0, 0.5], [2.0, 0.1], [1.5, 0.3], [5.0, 2.0], [6.0, 2.2], [5.5, 1.9], [9.0, 4.0]])
Y = np.array(["x", "x", "x", "y", "y", "y", "z"])
NEW = np.array([[1.2, 0.2], [5.8, 2.1], [9.1, 3.9]])


def test_posteriors_are_nan_where_r_gives_na_and_classes_agree():
    m = E1071NaiveBayes().fit(X, Y)
    assert np.isnan(m.predict_proba(NEW)).all()
    assert list(m.predict(NEW)) == ["x", "y", "y"]
    # every class with two or more cases: finite posteriors summing to 1
    ok = E1071NaiveBayes().fit(X[:6], Y[:6]).predict_proba(NEW)
    assert np.isfinite(ok).all() and np.allclose(ok.sum(axis=1), 1)


def test_a_probability_metric_is_refused_naming_the_cause():
    from simstudy.pipeline.outputs import fold_outputs, outputs_scores

    rng = np.random.default_rng(0)
    Xs = np.vstack([rng.normal(0, 1, (10, 2)), rng.normal(2, 1, (10, 2)), [[5.0, 5.0]]])
    ys = np.array([0] * 10 + [1] * 10 + [2])
    folds = np.array([[0, 1] * 10 + [0]])  # the single case of class 2 trains fold 1's model
    pred, scores, kind = fold_outputs(Xs, ys, folds, E1071NaiveBayes)
    assert np.isfinite(outputs_scores("accuracy", ys, folds, pred, scores, kind)).all()
    with pytest.raises(ValueError, match=r"'neg_log_loss' needs the learner's probabilities, and it gave none"):
        outputs_scores("neg_log_loss", ys, folds, pred, scores, kind)


@pytest.mark.needs_r
def test_r_itself_gives_na(tmp_path):
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript is not installed")
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "r" / "nb_single_row_class.R"
    out = subprocess.run(["Rscript", str(script)], capture_output=True, text=True, timeout=120)
    if out.returncode != 0 and "e1071" in out.stderr:
        pytest.skip("R's e1071 is not installed")
    lines = out.stdout.splitlines()
    assert [ln.split()[1:] for ln in lines[1:4]] == [["NA", "NA", "NA"]] * 3
    assert lines[4].split()[1:] == ["x", "y", "y"]
