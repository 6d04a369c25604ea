"""What an assessment costs: another metric on a stored assessment is scored from its stored outputs, unfitted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simstudy import assess
from simstudy.cli import main


@pytest.fixture(scope="module")
def data():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return X[::3], y[::3]


KW = dict(designs=("cv2x5", "resampled4"), n_repeats=2, evidence=None)
LEARNERS = {"nb": "sklearn.naive_bayes:GaussianNB", "tree": "sklearn.tree:DecisionTreeClassifier"}


def _same(a, b):
    for name in ("scores", "outcomes"):
        x, y = a.run.table(name), b.run.table(name)
        keys = ["condition", "replication", *[c for c in ("run", "fold", "scheme", "test") if c in y]]
        x = x[list(y.columns)].sort_values(keys).reset_index(drop=True)
        pd.testing.assert_frame_equal(x, y.sort_values(keys).reset_index(drop=True), check_categorical=False)


def test_another_metric_is_scored_from_the_stored_outputs_without_fitting(tmp_path, data, monkeypatch):
    import simstudy.apps.assess.run as assess_module
    import simstudy.pipeline.outputs as outputs

    X, y = data
    assess(X, y, learners=LEARNERS, out=tmp_path / "run", **KW)
    fitted = assess(X, y, learners=LEARNERS, out=tmp_path / "auc", metric="roc_auc", **KW)

    def no_fit(*args, **kwargs):
        raise AssertionError("fitted again")

    monkeypatch.setattr(outputs, "fold_outputs", no_fit)
    monkeypatch.setattr(outputs, "split_outputs", no_fit)
    monkeypatch.setattr(assess_module, "_check_learnable", no_fit)
    again = assess(X, y, learners=LEARNERS, out=tmp_path / "run", metric="roc_auc", **KW)
    assert again.metric == "roc_auc" and again.run.fitted_metric == "accuracy"
    _same(again, fitted)  # the numbers a fit for roc_auc gives
    pd.testing.assert_frame_equal(again.effect, fitted.effect)
    assert "scored from the outputs stored when it was fitted for accuracy, nothing fitted again" in str(again)
    # and back: accuracy is what was stored
    back = assess(X, y, learners=LEARNERS, out=tmp_path / "run", **KW)
    assert back.metric == "accuracy" and "acc_a" in back.run.table("scores")


def test_predictions_only_are_refused_for_a_probability_metric_naming_fresh(tmp_path, capsys):
    # NB and C4.5 on nominal data without missing values fit all folds in one compiled call: predictions only
    rng = np.random.default_rng(3)
    values = rng.choice(list("xyz"), size=(120, 4))
    label = np.where((values[:, 0] == "x") ^ (rng.random(120) < 0.2), "yes", "no")
    path = tmp_path / "nominal.csv"
    pd.DataFrame(values, columns=list("abcd")).assign(label=label).to_csv(path, index=False)
    argv = ["assess", str(path), "--a", "NB", "--b", "C4.5", "--designs", "cv2x5", "--repeats", "2", "--quiet"]
    assert main([*argv, "--out", str(tmp_path / "v")]) == 0
    capsys.readouterr()
    assert main([*argv, "--out", str(tmp_path / "v"), "--metric", "roc_auc"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "was fitted for accuracy and cannot be scored by roc_auc" in err[0]
    assert "--fresh fits it again for roc_auc" in err[0]
    # balanced accuracy needs predictions only: scored again
    assert main([*argv, "--out", str(tmp_path / "v"), "--metric", "balanced_accuracy"]) == 0
    assert "Score per split: balanced_accuracy" in capsys.readouterr().out


def test_the_default_is_one_design_and_few_repeats_and_one_repeat_is_allowed(tmp_path, data, capsys):
    from simstudy.apps.assess import DEFAULT_DESIGNS, DEFAULT_REPEATS, FULL_DESIGNS, FULL_REPEATS

    assert DEFAULT_DESIGNS == ("5x2cv",) and DEFAULT_REPEATS == 5
    assert FULL_DESIGNS == ("cv10x10", "5x2cv", "resampled10") and FULL_REPEATS == 10
    X, y = data
    a = assess(X, y, learners=LEARNERS, evidence=None)
    assert [d.key for d in a.designs] == ["5x2cv"] and a.table["repeats"].max() == 5
    assert len(a.run.table("scores")) == 5 * 10  # 100 fits for two learners
    one = assess(X, y, learners=LEARNERS, designs=("cv2x5",), n_repeats=1, evidence=None)
    assert one.table["repeats"].max() == 1 and one.conclusion is not None
    assert np.isnan(one.table["R2"]).all()
    with pytest.raises(ValueError, match="^n_repeats: must be an integer >= 1"):
        assess(X, y, learners=LEARNERS, n_repeats=0, evidence=None)


def test_progress_is_shown_per_fit_in_this_process(tmp_path, data, capsys):
    X, y = data
    assess(X, y, learners=LEARNERS, designs=("cv2x5",), n_repeats=2, evidence=None, progress=True, out=tmp_path / "p")
    err = capsys.readouterr().err
    assert "assess cv2x5" in err and "40/40" in err and "fit" in err


LEARNER_FILE = """
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

logreg = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))
tree = DecisionTreeClassifier(max_depth=3)
"""


def test_a_contained_learner_stores_its_outputs_and_is_rescored_without_its_worker(tmp_path, data, monkeypatch):
    """A file.py:NAME learner fitted in its worker (the default) keeps the outputs an in-process fit keeps;
    re-scoring them for another metric starts no worker and fits nothing."""
    import simstudy.apps.assess.limits as limits
    import simstudy.apps.assess.run as assess_module
    import simstudy.pipeline.outputs as outputs

    X, y = data
    path = tmp_path / "mine.py"
    path.write_text(LEARNER_FILE)
    learners = {"logreg": f"{path}:logreg", "tree": f"{path}:tree"}
    contained = assess(X, y, learners=learners, out=tmp_path / "run", **KW)
    assert contained.a.contained and contained.b.contained
    inside = assess(X, y, learners=learners, out=tmp_path / "inside", in_process=True, **KW)
    pred = contained.run.table("predictions")
    assert {"proba_a_0", "proba_a_1", "proba_b_0", "proba_b_1"} <= set(pred.columns)  # made in the workers
    cols = [c for c in pred.columns if c != "study"]
    pd.testing.assert_frame_equal(pred[cols], inside.run.table("predictions")[cols], check_categorical=False)
    _same(contained, inside)
    refitted = assess(X, y, learners=learners, out=tmp_path / "bal", metric="balanced_accuracy", **KW)

    def no_fit(*args, **kwargs):
        raise AssertionError("fitted or loaded again")

    monkeypatch.setattr(outputs, "fold_outputs", no_fit)
    monkeypatch.setattr(assess_module, "_check_learnable", no_fit)
    monkeypatch.setattr(limits, "_FitLimit", no_fit)  # no worker started, no learner loaded
    again = assess(X, y, learners=learners, out=tmp_path / "run", metric="balanced_accuracy", **KW)
    assert again.run.fitted_metric == "accuracy" and again.metric == "balanced_accuracy"
    _same(again, refitted)
    assert again.conclusion is not None


def test_the_checks_before_work_run_before_a_stored_assessment_is_rescored(tmp_path, data):
    X, y = data
    out = tmp_path / "run"
    assess(X, y, learners=LEARNERS, out=out, designs=("cv2x5",), n_repeats=2, evidence=None)
    before = sorted((p.relative_to(out), p.stat().st_mtime_ns) for p in out.rglob("*"))
    with pytest.raises(ValueError, match=r"^metric: 'r2' is a regression scorer"):
        assess(X, y, learners=LEARNERS, out=out, designs=("cv2x5",), n_repeats=2, evidence=None, metric="r2")
    from simstudy.apps.assess import as_dataset, load_assessment

    kw = dict(designs=("cv2x5",), n_repeats=2, evidence=None)
    assert load_assessment(out, as_dataset(X, y), LEARNERS, None, metric="balanced_accuracy", **kw).conclusion
    with pytest.raises(ValueError, match=r"^metric: 'r2' is a regression scorer"):
        load_assessment(out, as_dataset(X, y), LEARNERS, None, metric="r2", **kw)
    assert sorted((p.relative_to(out), p.stat().st_mtime_ns) for p in out.rglob("*")) == before


def test_several_data_sets_show_progress_per_fit_too(tmp_path, data, capsys):
    # the bar moves with every learner's fits, not only when a data set's whole repeat is stored
    from simstudy.apps.assess.many import assess_many

    X, y = data
    assess_many({"one": (X, y), "two": (X[::-1], y[::-1])}, LEARNERS, design="cv2x5", progress=True, out=tmp_path / "m")
    err = capsys.readouterr().err
    assert "assess 00-one, 01-two" in err and "40/40" in err and "fit" in err
