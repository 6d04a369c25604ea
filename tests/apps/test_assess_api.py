"""The practitioner's Python API: one import, data as arrays or DataFrames, learners named in tables and figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


@pytest.fixture(scope="module")
def small():
    from sklearn.datasets import load_breast_cancer, load_iris, load_wine

    out = {}
    for name, load in (("cancer", load_breast_cancer), ("iris", load_iris), ("wine", load_wine)):
        X, y = load(return_X_y=True)
        out[name] = (X[::3], y[::3])
    return out


def test_one_import_gives_assess_assess_many_and_results():
    from simstudy import assess, assess_many, results
    from simstudy.apps.assess import assess as assess_fn
    from simstudy.apps.assess.many import assess_many as many_fn
    from simstudy.outputs import runs

    assert assess is assess_fn and assess_many is many_fn and results is runs
    assert callable(results.load) and callable(results.baycomp_arrays)


def test_each_module_has_one_name():
    """No module stands in for another: the unreleased package keeps one path per thing."""
    import importlib

    for gone in ("simstudy.apps.assess_many", "simstudy.apps.assess_report"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(gone)


def test_named_learners_name_the_scores_header_and_figure(tmp_path, small):
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    from simstudy import assess

    X, y = small["cancer"]
    a = assess(
        X, y, learners={"bayes": GaussianNB(), "tree": DecisionTreeClassifier()}, designs=("cv2x3",), n_repeats=2,
        evidence=None,
    )  # fmt: skip
    assert a.a.name == "bayes" and a.b.name == "tree"
    assert list(a.scores().columns[-2:]) == ["bayes", "tree"]
    text = str(a)
    assert "A: bayes = GaussianNB()" in text and "B: tree = DecisionTreeClassifier()" in text
    assert a.plot()._suptitle.get_text().startswith("A: bayes  vs  B: tree")
    # the name does not identify the run: the same learners under other names read the same rows
    b = assess(X, y, ("nb", GaussianNB()), ("dt", DecisionTreeClassifier()), designs=("cv2x3",), n_repeats=2,
               evidence=None, out=tmp_path / "r")  # fmt: skip
    again = assess(X, y, ("x", GaussianNB()), ("z", DecisionTreeClassifier()), designs=("cv2x3",), n_repeats=2,
                   evidence=None, out=tmp_path / "r")  # fmt: skip
    pd.testing.assert_frame_equal(b.run.table("scores"), again.run.table("scores"))
    np.testing.assert_array_equal(a.scores()["bayes"], b.scores()["nb"])


def test_names_in_text_and_refusals():
    from simstudy.apps.assess import named_learners, parse_learner

    c = parse_learner("bayes=NB", option="--a")
    assert (c.spec, c.name, c.shown) == ("NB", "bayes", "bayes")
    assert parse_learner("sklearn.naive_bayes:GaussianNB").name == ""
    with pytest.raises(ValueError, match="^learners: the name\\(s\\) 'x' are given to more than one learner"):
        named_learners([("x", "NB"), ("x", "C4.5")])
    with pytest.raises(ValueError, match="--a: a learner's name must be a non-empty line"):
        parse_learner(("  ", "NB"), option="--a")
    from simstudy import assess

    with pytest.raises(ValueError, match="learners: one comparison takes exactly two learners, got 3"):
        assess(np.zeros((20, 2)), np.arange(20) % 2, learners={"a": "NB", "b": "NB", "c": "NB"})


def test_assess_many_takes_arrays_frames_and_named_learners(small):
    from simstudy import assess_many

    X, y = small["wine"]
    frame = pd.DataFrame(X[:, :5], columns=[f"f{j}" for j in range(5)]).assign(kind=y.astype(str))
    m = assess_many(
        {"cancer": small["cancer"], "iris": small["iris"], "wine": frame},
        {"bayes": "NB", "stump": "stump", "tree": "C4.5"},
        design="cv1x3",
        class_column="kind",
    )
    assert m.labels == ["bayes", "stump", "tree"]
    assert list(m.tables["means"]["data set"]) == ["cancer", "iris", "wine"]
    assert list(m.tables["means"].columns) == ["data set", "bayes", "stump", "tree"]
    assert m.datasets[2].columns == ("f0", "f1", "f2", "f3", "f4")
    # unnamed: positions name them
    un = assess_many([small["cancer"], small["iris"]], ["NB", "stump"], design="cv1x3")
    assert [d.name for d in un.datasets] == ["arrays 1", "arrays 2"]
    with pytest.raises(ValueError, match="DATA: data set 2 is a int"):
        assess_many([small["cancer"], 3], ["NB", "stump"], design="cv1x3")
