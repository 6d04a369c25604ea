"""Several learners on several data sets: stored and resumable, the same with two workers, the tests across data sets."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

from simstudy.apps.assess.many import assess_many
from simstudy.cli import main

SETS = ["iris", "labor", "vote", "breast-cancer", "Wisconsin breast cancer"]
LEARNERS = ["NB", "C4.5", "stump"]
SMALL = dict(design="cv1x3")


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    return assess_many(SETS, LEARNERS, out=tmp_path_factory.mktemp("many") / "run", jobs=1, **SMALL)


def test_tables_from_stored_rows(three):
    t = three.tables
    assert list(t["means"].columns) == ["data set", *LEARNERS] and len(t["means"]) == 5
    assert len(t["pairs"]) == 5 * 3 and len(t["across"]) == 3
    row = t["across"].iloc[0]
    assert row["wins A"] + row["wins B"] + row["ties"] == 5
    probs = t["across"][["P(A better)", "P(equivalent)", "P(B better)"]].sum(axis=1)
    np.testing.assert_allclose(probs, 1.0, atol=1e-9)
    assert {"friedman", "ranks", "holm"} <= set(t)
    assert t["ranks"]["mean rank"].sum() == pytest.approx(1 + 2 + 3)
    # the per-data-set interval and the corrected test agree on significance
    pairs = t["pairs"]
    excludes = (pairs["low"] > 0) | (pairs["high"] < 0)
    assert (excludes == (pairs["p"] <= 0.05)).all()


def test_the_5x2cv_p_value_is_the_test_its_interval_inverts(tmp_path):
    # the p-value came from the 5x2cv t-test, whose verdict can differ from the corrected t's interval beside it
    a = assess_many(["iris", "labor"], ["NB", "stump"], design="5x2cv", out=tmp_path / "o")
    pairs = a.tables["pairs"]
    assert set(pairs["corrected test"]) == {"corrected_cv_t"}
    assert (((pairs["low"] > 0) | (pairs["high"] < 0)) == (pairs["p"] <= 0.05)).all()


def test_a_design_no_registered_test_decides_on_is_refused_before_anything_runs(tmp_path, monkeypatch):
    import simstudy.pipeline.outcomes as outcomes

    monkeypatch.setattr(outcomes, "deciding_test", lambda design: None)  # as for a user's design of its own kind
    with pytest.raises(ValueError, match=r"^design: no registered test decides on 'cv1x3'; register one"):
        assess_many(["iris", "labor"], ["NB", "stump"], design="cv1x3", out=tmp_path / "o")
    assert not (tmp_path / "o").exists()


def test_same_rows_with_two_workers_and_resumed(tmp_path, three):
    two = assess_many(SETS, LEARNERS, out=tmp_path / "two", jobs=2, **SMALL)
    pd.testing.assert_frame_equal(three.run.table("scores"), two.run.table("scores"))
    again = assess_many(SETS, LEARNERS, out=tmp_path / "two", jobs=1, **SMALL)
    pd.testing.assert_frame_equal(two.tables["across"], again.tables["across"])


def test_the_diagram_and_pages(tmp_path, three):
    from simstudy.apps.assess.many import write_many

    fig = three.plot()
    assert fig is not None
    paths = write_many(three, tmp_path / "pages")
    assert paths["figure"].stat().st_size > 1000
    text = paths["markdown"].read_text()
    assert "Friedman" in text and "critical-difference diagram" in text


def test_command_line_many(tmp_path, capsys):
    out = tmp_path / "cli"
    code = main(
        [
            "assess",
            "iris",
            "labor",
            "vote",
            "--learners",
            "NB",
            "stump",
            "--designs",
            "cv1x3",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    text = capsys.readouterr().out
    assert code == 0 and "Across data sets, per pair" in text and (out / "assessment.md").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["iris", "labor", "--learners", "NB"], "--learners: give at least two learners"),
        (["iris", "labor", "--learners", "NB", "C4.5", "--a", "NB"], "not both"),
        (["iris", "labor", "--learners", "NB", "C4.5", "--designs", "cv1x3", "5x2cv"], "give one"),
        (["iris", "labor", "--learners", "NB", "C4.5", "--rope", "-1"], "--rope: must be a number >= 0"),
        (["iris", "--a", "NB"], "--a/--b: both learners are needed"),
        (["iris", "labor", "--learners", "NB", "C4.5", "--tests", "sign"], "--tests: applies to one data set"),
        (["iris", "--a", "NB", "--b", "C4.5", "--control", "NB"], "--control: applies to several learners"),
        (["iris", "labor", "--learners", "NB", "C4.5", "--control", "knn"], "--control: 'knn' is not one of"),
    ],
)
def test_command_line_refusals(tmp_path, capsys, argv, message):
    out = tmp_path / "x"
    code = main(["assess", *argv, "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message in err[0] and not out.exists()


def test_pairs_are_holm_adjusted_raw_beside_adjusted_and_a_control_compares_k_minus_1(three):
    from simstudy.statistics.multiple import holm_adjust

    across = three.tables["across"]
    assert {"Wilcoxon p", "Wilcoxon p (Holm)", "sign p", "sign p (Holm)", "ROPE"} <= set(across.columns)
    np.testing.assert_allclose(across["Wilcoxon p (Holm)"], holm_adjust(across["Wilcoxon p"].to_numpy()))
    assert (across["Wilcoxon p (Holm)"] >= across["Wilcoxon p"]).all()
    assert (three.tables["pairs"]["ROPE"] == "±0.01").all()
    text = str(three)
    assert text.startswith("Conclusion: ") and "Holm-adjusted" in text
    assert "Not for the decision: the pairwise p-values before Holm's adjustment for the 3 comparisons" in text or (
        "Friedman's test does not reject" in text
    )


def test_control_learner_and_per_split_export_for_the_hierarchical_model(tmp_path, three):
    baycomp = pytest.importorskip("baycomp")
    from simstudy.statistics.multiple import holm_adjust

    m = assess_many(SETS, LEARNERS, out=three.run.path, control="NB", **SMALL)  # the same run, re-summarised
    across = m.tables["across"]
    assert list(zip(across["A"], across["B"])) == [("NB", "C4.5"), ("NB", "stump")]
    np.testing.assert_allclose(across["Wilcoxon p (Holm)"], holm_adjust(across["Wilcoxon p"].to_numpy()))
    assert list(m.tables["holm"]["A"]) == ["NB", "NB"]
    assert "against the control NB" in str(m)
    s = m.scores()
    assert list(s.columns) == ["data set", "repeat", "run", "fold", "n_train", "n_test", *LEARNERS]
    assert len(s) == 5 * 3
    x, y, runs = m.to_baycomp("NB", "C4.5")
    assert x.shape == (5, 3) and runs == 1
    np.testing.assert_array_equal(x[0], s[s["data set"] == "iris"]["NB"].to_numpy())
    if importlib.util.find_spec("stan") is not None:  # baycomp's hierarchical model runs on pystan
        assert len(baycomp.two_on_multiple(x, y, rope=0.01, runs=runs, nsamples=200)) == 3
    assert len(baycomp.two_on_multiple(x.mean(axis=1), y.mean(axis=1), rope=0.01)) == 3  # the signed-rank test
    with pytest.raises(ValueError, match="^control: 'knn' is not one of the learners"):
        assess_many(SETS, LEARNERS, out=three.run.path, control="knn", **SMALL)
    paths = __import__("simstudy.apps.assess.many", fromlist=["write_many"]).write_many(m, tmp_path / "pages")
    assert {"html", "scores", "markdown", "across"} <= set(paths)
    page = paths["html"].read_text()
    assert page.startswith("<!DOCTYPE html>") and "<h2>Conclusion</h2>" in page and "Wilcoxon p (Holm)" in page


def test_the_same_data_set_twice_is_refused_naming_both(tmp_path, capsys):
    # the same file twice (or a copy under another name) was counted as two independent data sets by the
    # Wilcoxon and Friedman tests across them
    import shutil

    rng = np.random.default_rng(3)
    for name in ("a.csv", "b.csv"):
        rows = "".join(f"{rng.normal(i % 2):.3f},{'ny'[i % 2]}\n" for i in range(40))
        (tmp_path / name).write_text("x,label\n" + rows)
    shutil.copy(tmp_path / "a.csv", tmp_path / "copy.csv")
    a, b, copy = (str(tmp_path / f) for f in ("a.csv", "b.csv", "copy.csv"))
    for files, named in (([a, b, a], f"1 ({a}) and 3 ({a})"), ([a, copy], f"1 ({a}) and 2 ({copy})")):
        argv = ["assess", *files, "--learners", "NB", "C4.5", "--quiet", "--out", str(tmp_path / "o")]
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"DATA: data sets {named} are the same data" in err[0], err
        assert not (tmp_path / "o").exists()


def test_several_learners_on_one_data_set_conclude_without_a_test_across_data_sets(tmp_path):
    # a KeyError ('Wilcoxon p') and a traceback: no test across data sets exists for one data set
    rng = np.random.default_rng(5)
    rows = "".join(f"{rng.normal(i % 2):.3f},{'ny'[i % 2]}\n" for i in range(40))
    (tmp_path / "one.csv").write_text("x,label\n" + rows)
    m = assess_many([tmp_path / "one.csv"], ["NB", "C4.5"], design="cv2x2", out=tmp_path / "o")
    assert m.conclusion.verdict == "not settled"
    assert "1 data set completely assessed" in m.conclusion.text and "from 6 data sets on" in m.conclusion.text


def test_seven_data_sets_and_four_learners_decide_as_the_pages_holm_table():
    # the case the pairwise Wilcoxon tests after Holm could never decide (6 pairs, 7 data sets: p >= 0.094)
    import warnings

    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    from simstudy.apps.assess.many import assess_many

    sets = ["iris", "pima diabetes", "sonar", "ionosphere", "heart-statlog", "glass", "ecoli"]
    learners = {
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "stump": DecisionTreeClassifier(max_depth=1),
        "tree": DecisionTreeClassifier(),
        "nb": GaussianNB(),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = assess_many(sets, learners, design="cv5x2")
    holm = a.tables["holm"]
    significant = {frozenset((r["A"], r["B"])) for _, r in holm.iterrows() if r["significant"]}
    decided = {frozenset(p["pair"].split(" vs ")) for p in a.conclusion.pairs if p["verdict"] != "not settled"}
    assert decided and decided <= significant  # never a side the page's post-hoc does not give
    assert frozenset(("logreg", "stump")) in decided
