"""assess for practitioners: their own files and pipelines, any scikit-learn score, words that claim no more than the tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simstudy.apps.assess import assess, parse_learner, verdicts
from simstudy.cli import main

SMALL = dict(designs=("cv2x5",), n_repeats=2, evidence=None)

LEARNERS = """
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

scaled = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))


def forest():
    return make_pipeline(StandardScaler(), RandomForestClassifier(n_estimators=8))


NOT_A_LEARNER = 3
"""


@pytest.fixture(scope="module")
def data():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return X[::4], y[::4]


@pytest.fixture
def learner_file(tmp_path):
    path = tmp_path / "my_models.py"
    path.write_text(LEARNERS)
    return path


def test_metric_scores_are_the_scorers_on_each_split(tmp_path, data):
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.naive_bayes import GaussianNB

    X, y = data
    a = assess(X, y, "sklearn.naive_bayes:GaussianNB", "NB", out=tmp_path / "m", metric="balanced_accuracy", **SMALL)
    scores = a.run.table("scores")
    assert {"score_a", "score_b"} <= set(scores.columns) and "acc_a" not in scores.columns
    assert (a.effect["metric"] == "balanced_accuracy").all()
    text = str(a)
    assert "Score per split: balanced_accuracy" in text and "Mean balanced_accuracy and the difference:" in text
    # mean over splits equals the scorer recomputed from nothing but the stored rows' means
    assert np.isclose(a.effect["mean A"].iloc[0], scores["score_a"].mean())
    # one split by hand: GaussianNB scored by balanced accuracy lies in [0, 1] and differs from accuracy somewhere
    acc = assess(X, y, "sklearn.naive_bayes:GaussianNB", "NB", out=tmp_path / "acc", **SMALL).run.table("scores")
    assert not np.allclose(acc["acc_a"], scores["score_a"])
    assert scores["score_a"].between(0, 1).all()
    est = GaussianNB().fit(X[: len(y) // 2], y[: len(y) // 2])
    assert 0 <= balanced_accuracy_score(y[len(y) // 2 :], est.predict(X[len(y) // 2 :])) <= 1


def test_an_unknown_metric_is_one_line_and_exit_2(tmp_path, capsys):
    code = main(["assess", "iris", "--a", "NB", "--b", "C4.5", "--metric", "auc", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--metric: 'auc' is not a scikit-learn scorer name" in err[0]
    assert "roc_auc" in err[0] and not (tmp_path / "x").exists()


def test_learners_from_a_file_are_seeded_and_the_same_with_two_workers(tmp_path, data, learner_file):
    X, y = data
    a, b = f"{learner_file}:scaled", f"{learner_file}:forest"
    one = assess(X, y, a, b, out=tmp_path / "one", jobs=1, **SMALL)
    two = assess(X, y, a, b, out=tmp_path / "two", jobs=2, **SMALL)
    pd.testing.assert_frame_equal(one.run.table("scores"), two.run.table("scores"))
    assert one.a.label == a and one.b.label == b


@pytest.mark.parametrize(
    "ref, params, message",
    [
        ("{file}:NOT_A_LEARNER", None, "is a int, not an estimator class"),
        ("{file}:missing", None, "has no 'missing'"),
        ("{dir}/nothing.py:x", None, "no such file"),
        ("{file}:scaled", '{"C": 2}', "--a-params: not allowed with"),
    ],
)
def test_bad_file_learners_are_one_line(tmp_path, learner_file, ref, params, message):
    with pytest.raises(ValueError, match=message) as err:
        parse_learner(ref.format(file=learner_file, dir=tmp_path), params, option="--a")
    assert "\n" not in str(err.value)


def test_a_bad_parameter_is_named_alone():
    with pytest.raises(ValueError) as err:
        parse_learner("sklearn.svm:SVC", '{"C": 1, "bogus": 3}')
    assert "has no parameter 'bogus'" in str(err.value) and "'C'" not in str(err.value).split(";")[0]


def _row(design, test, a_n, b_n, n=3):
    return {"design": design, "scheme": "", "test": test, "repeats": n, "A better": a_n, "B better": b_n}


def test_verdicts_claim_no_more_than_the_test():
    from simstudy.apps.assess import designs_for_data

    designs = designs_for_data(["5x2cv", "cv2x5"], np.array([0, 1] * 20))
    table = pd.DataFrame(
        [_row("5x2cv", "5x2cv_f", 1, 1), _row("5x2cv", "5x2cv_t", 0, 0), _row("cv2x5", "corrected_cv_t", 0, 2)]
    )
    lines = verdicts(table, designs)
    assert lines[0].startswith("A significant difference (the test has no direction) in 2 of 3 repeats")
    assert lines[1].startswith("Neither is significantly better in any of 3 repeats")
    assert lines[2].startswith("B beats A in 2 of 3 repeats")
    assert not any("A beats B in 0" in line for line in lines)


def test_a_registered_tests_statistic_not_its_name_says_how_its_verdict_reads():
    from simstudy.apps.assess.recommendation import _verdict_text
    from simstudy.pipeline.outcomes import _REGISTRY, register_test
    from simstudy.statistics.significance import five_by_two_cv_f_test

    with pytest.raises(ValueError, match="statistic: must be one of"):
        register_test("my_f_bad", five_by_two_cv_f_test, takes="5x2", statistic="F")
    register_test("my_f", five_by_two_cv_f_test, takes="5x2", statistic="no direction", in_all=False)
    try:
        line = _verdict_text(_row("5x2cv", "my_f", 2, 0), "my_f")
        assert line == "A significant difference (the test has no direction) in 2 of 3 repeats"
    finally:
        _REGISTRY.pop("my_f", None)
    assert "my_f_bad" not in _REGISTRY


def test_pages_keep_code_and_the_figure_names_the_comparison(tmp_path, data):
    from simstudy.apps.assess.report import _html_prose, _pvalue_figure

    assert _html_prose("run `simstudy x --a <b>` now") == "run <code>simstudy x --a &lt;b&gt;</code> now"
    X, y = data
    a = assess(X, y, "NB", "sklearn.naive_bayes:GaussianNB", out=tmp_path / "f", **SMALL)
    title = _pvalue_figure(a)._suptitle.get_text()
    assert "A: NB" in title and "B: sklearn.naive_bayes:GaussianNB" in title and "arrays" in title


def test_the_python_call_writes_nothing_without_out(tmp_path, monkeypatch, data):
    monkeypatch.chdir(tmp_path)
    X, y = data
    a = assess(X, y, "NB", "sklearn.naive_bayes:GaussianNB", **SMALL)
    assert list(tmp_path.iterdir()) == []
    scratch = a.run.path
    assert scratch.exists() and len(a.scores()) == 2 * 2 * 5
    del a
    import gc

    gc.collect()
    assert not scratch.exists()


def test_scores_are_named_by_learner_and_baycomp_gets_the_right_runs(tmp_path, data):
    X, y = data
    a = assess(X, y, "NB", "C4.5", out=tmp_path / "b", designs=("cv2x5", "resampled4"), n_repeats=2, evidence=None)
    s = a.scores("cv2x5")
    assert list(s.columns) == ["design", "repeat", "run", "fold", "n_train", "n_test", "NB", "C4.5"]
    x, y_, runs = a.to_baycomp("cv2x5", repeat=1)
    assert x.size == 10 and runs == 2.0
    np.testing.assert_array_equal(x, s[s["repeat"] == 1]["NB"].to_numpy())
    x, _, runs = a.to_baycomp("resampled4")
    # baycomp wants a whole number of runs that divides len(x): of 1, 2 and 4, the correlation 1/4 is the
    # nearest to the test share 14/143 (see test_assess_decision for every design)
    assert isinstance(runs, int) and runs == 1
    with pytest.raises(ValueError, match="design: 'cv9x9' is not one of"):
        a.scores("cv9x9")
    assert set(a.tables) == {"assessment", "effect", "warnings"}
    assert a.plot()._suptitle is not None


def test_learner_warnings_are_counted_and_said_once(tmp_path, data, recwarn):
    X, y = data
    a = assess(
        X, y, "sklearn.linear_model:LogisticRegression", "NB", out=tmp_path / "w", a_params={"max_iter": 5}, **SMALL
    )
    w = a.warnings
    assert len(w) == 1 and w["category"].iloc[0] == "ConvergenceWarning"
    assert w["count"].iloc[0] == 2 * 2 * 5 and w["repeats"].iloc[0] == 2
    assert not [r for r in recwarn if "converge" in str(r.message)]
    text = str(a)
    assert text.count("ConvergenceWarning") == 1 and "20 times in 2 repeats" in text


def test_scores_by_folder_alone_and_reloaded_with_the_metric(tmp_path, data):
    from simstudy.apps.assess import assessment_scores, load_assessment

    X, y = data
    a = assess(X, y, "NB", "C4.5", out=tmp_path / "s", metric="balanced_accuracy", **SMALL)
    s = assessment_scores(tmp_path / "s")
    assert list(s.columns) == ["design", "repeat", "run", "fold", "NB", "C4.5", "metric"]
    np.testing.assert_array_equal(s["NB"], a.scores()["NB"])
    again = load_assessment(
        tmp_path / "s", a.data, "NB", "C4.5", designs=("cv2x5",), n_repeats=2, metric="balanced_accuracy", evidence=None
    )
    pd.testing.assert_frame_equal(again.effect, a.effect)
    with pytest.raises(ValueError, match="no stored run"):
        assessment_scores(tmp_path / "nothing")


def test_an_estimator_instance_is_named_on_one_line():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    label = parse_learner(make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))).label
    assert "\n" not in label and label.startswith("Pipeline(steps=[('standardscaler', StandardScaler()),")


def test_every_table_of_an_assessment_names_a_design_the_same_way(tmp_path, data):
    X, y = data
    a = assess(X, y, "NB", "stump", designs=("5x2cv", "cv2x5", "resampled10-20"), n_repeats=2, evidence=None)
    assert [d.design for d in a.designs] == ["5x2cv", "cv2x5", "resampled10-20"]
    assert [d.kind for d in a.designs] == ["5x2", "cv", "resampled"]
    for name in a.run.tables():
        rows = a.run.table(name)
        if "design" in rows.columns:
            assert set(rows["design"]) <= {d.design for d in a.designs}, name


def test_a_test_registered_for_a_kind_of_design_runs_in_assess_by_default(data):
    from simstudy.pipeline.outcomes import _REGISTRY, register_test
    from simstudy.statistics.significance import five_by_two_cv_t_test

    with pytest.raises(ValueError, match="default_on: kinds of design are"):
        register_test("my_5x2_bad", five_by_two_cv_t_test, takes="5x2", default_on=("5x2cv",))
    register_test("my_5x2_t", five_by_two_cv_t_test, takes="5x2", in_all=False, default_on=("5x2",))
    try:
        X, y = data
        a = assess(X, y, "NB", "stump", designs=("5x2cv", "cv2x5"), n_repeats=2, evidence=None)
        on = a.table.groupby("design")["test"].agg(set)
        assert "my_5x2_t" in on["5x2cv"] and "my_5x2_t" not in on["cv2x5"]
        assert {"5x2cv_t", "5x2cv_f", "corrected_cv_t"} <= on["5x2cv"]
    finally:
        _REGISTRY.pop("my_5x2_t", None)
    assert "my_5x2_bad" not in _REGISTRY
