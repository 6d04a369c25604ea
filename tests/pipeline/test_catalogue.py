"""The catalogue: a design family, a scheme and a test are each registered once, and a procedure names them."""

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from simstudy.errors import InputError
from simstudy.pipeline.comparison import Comparison
from simstudy.pipeline.designs import KINDS, DesignSpec, is_design_name, parse_design
from simstudy.pipeline.outcomes import all_tests, deciding_test, get_test
from simstudy.pipeline.outcomes import test_names as registered_tests
from simstudy.pipeline.procedures import Procedure, procedures_for
from simstudy.pipeline.schemes import SCHEMES, get_scheme, scheme_names


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    return rng.normal(size=(n, 3)) + y[:, None], y


def test_every_test_carries_what_the_applications_judge_it_by():
    for name in registered_tests():
        spec = get_test(name)
        assert spec.correction in ("uncorrected", "corrected", "5x2cv", "calibrated", "one split"), name
        assert spec.label
    assert get_test("corrected_cv_t").decides and get_test("corrected_resampled_t").decides
    assert [n for n in registered_tests() if get_test(n).decides] == [
        "corrected_cv_t",
        "corrected_resampled_t",
        "inflated_cv_t_moderately_stable",  # the corrected 10x10 cv t calibrated per stability class
        "inflated_cv_t_stable_against_unstable",
        "inflated_cv_t_unstable",
    ]
    assert get_test("calibrated_t_average_over_sorted_runs").correction == "calibrated"
    assert get_test("mcnemar").correction == "one split" and get_test("mcnemar").designs == ("holdout",)
    for name, decider in (
        ("cv10x10", "corrected_cv_t"),
        ("5x2cv", "corrected_cv_t"),
        ("resampled10", "corrected_resampled_t"),
    ):
        assert deciding_test(parse_design(name)).name == decider
    assert deciding_test(parse_design("holdout33")) is None


def test_a_design_feeds_the_inputs_of_its_kind_and_the_grammar_is_one():
    assert set(KINDS) == {"cv", "5x2", "resampled", "holdout"}
    assert parse_design("cv5x2").kind == "5x2" and parse_design("holdout33").inputs == frozenset({"scores"})
    assert is_design_name("resampled30-33") and not is_design_name("10x10 cv")
    with pytest.raises(InputError, match="unknown design 'loo'; use cvRxK"):
        parse_design("loo")
    assert list(all_tests(parse_design("holdout33"))) == ["mcnemar", "difference_of_proportions"]
    assert "mcnemar" not in all_tests(parse_design("resampled10")) and "welch_t" in all_tests(parse_design("cv2x5"))


def test_the_schemes_are_registered_with_their_sample_sizes():
    assert scheme_names()[:6] == SCHEMES
    sizes = {s: get_scheme(s).size(10, 5) for s in SCHEMES}
    assert sizes == {
        "resampling": 10,
        "kfold_cv": 5,
        "use_all_data": 50,
        "average_over_folds": 10,
        "average_over_runs": 5,
        "average_over_sorted_runs": 5,
    }
    assert all(get_scheme(s).citation.startswith("Bouckaert (2004)") for s in SCHEMES)


def test_tests_given_for_a_design_run_on_that_design():
    X, y = _data()
    learners = (GaussianNB(), GaussianNB(var_smoothing=1e-3))
    # the newcomer's Dietterich study: McNemar is made for a holdout, the 5x2cv t takes a 5 x 2 cv
    flat = Comparison(learners, designs=("holdout33", "5x2cv"), tests={"McNemar": "mcnemar", "5x2cv t": "5x2cv_t"})
    rows = flat.run(X, y, np.random.default_rng(1))["outcomes"]
    assert list(zip(rows["design"], rows["test"])) == [("holdout33", "McNemar"), ("5x2cv", "5x2cv t")]
    # or each design's tests by name, or the procedures themselves
    keyed = Comparison(learners, designs=("holdout33", "5x2cv"), tests={"holdout33": ["mcnemar"], "5x2cv": ["5x2cv_t"]})
    procs = Comparison.of(learners, [Procedure("holdout33", "mcnemar"), ("5x2cv", "5x2cv_t")])
    for c in (keyed, procs):
        again = c.run(X, y, np.random.default_rng(1))["outcomes"]
        assert list(again["test"]) == ["mcnemar", "5x2cv_t"]
        np.testing.assert_array_equal(again["pvalue"], rows["pvalue"])
    with pytest.raises(InputError, match="runs on none of the designs 5x2cv .it is made for holdout designs"):
        Comparison(learners, designs=("5x2cv",), tests=["mcnemar"])
    with pytest.raises(InputError, match="'cv3x3' is not one of the designs"):
        Comparison(learners, designs=("5x2cv",), tests={"cv3x3": ["paired_t"]})


def test_a_procedure_has_a_stable_id_and_is_checked():
    assert (
        Procedure("cv10x10", "paired_t", "average_over_sorted_runs").id
        == "paired_t [cv10x10, average_over_sorted_runs]"
    )
    assert Procedure("5x2cv", "5x2cv_t").id == "5x2cv_t [5x2cv]"
    with pytest.raises(InputError, match="does not run on design 'cv10x10'"):
        Procedure("cv10x10", "mcnemar")
    with pytest.raises(InputError, match="a scheme is for a sample test"):
        Procedure("5x2cv", "5x2cv_t", "kfold_cv")
    ids = [p.id for p in procedures_for("cv1x5", tests=["paired_t", "corrected_cv_t"])]
    assert ids == [
        "paired_t [cv1x5, kfold_cv]",
        "paired_t [cv1x5, use_all_data]",
        "paired_t [cv1x5, average_over_runs]",
        "paired_t [cv1x5, average_over_sorted_runs]",
        "corrected_cv_t [cv1x5]",
    ]


def test_a_design_object_can_be_given_instead_of_its_name():
    X, y = _data()
    spec = DesignSpec("mine", "cv", 2, 3)
    got = Comparison((GaussianNB(), DecisionTreeClassifier(random_state=0)), designs=(spec,), tests=["paired_t"])
    same = Comparison((GaussianNB(), DecisionTreeClassifier(random_state=0)), designs=("cv2x3",), tests=["paired_t"])
    a = got.run(X, y, np.random.default_rng(3))
    b = same.run(X, y, np.random.default_rng(3))
    np.testing.assert_array_equal(a["scores"].to_numpy(), b["scores"].to_numpy())


def test_mcnemar_takes_learners_that_take_a_seed():
    # Dietterich's own comparisons were of decision trees: a learner with a random_state gets the experiment's seed
    X, y = _data(90, seed=4)
    learners = (DecisionTreeClassifier(max_features=1), GaussianNB())
    counted = Comparison(learners, designs=("cv2x3",), tests="all", n_experiments=2, counts=True)
    plain = Comparison(learners, designs=("cv2x3",), tests="all", n_experiments=2)
    # the same seeds, the same fits: the counts come with the accuracies the learners get without them
    np.testing.assert_array_equal(
        counted.run(X, y, np.random.default_rng(5))["scores"]["acc_a"],
        plain.run(X, y, np.random.default_rng(5))["scores"]["acc_a"],
    )
    dietterich = Comparison(learners, designs=("holdout33", "cv2x3"), tests="all", n_experiments=2, counts=True)
    a = dietterich.run(X, y, np.random.default_rng(5))
    hold = a["scores"][a["scores"]["design"] == "holdout33"]
    assert ((hold["n01"] + hold["n10"]) > 0).all()
    tests = a["outcomes"][a["outcomes"]["design"] == "holdout33"]["test"]
    assert list(dict.fromkeys(tests)) == ["mcnemar", "difference_of_proportions"]


def test_the_papers_named_procedures_are_named_from_one_table_for_tables_and_sentences():
    import pandas as pd

    from simstudy.apps.assess import designs_for_data, verdicts
    from simstudy.apps.proving.summary import named_procedures
    from simstudy.pipeline.designs import parse_design
    from simstudy.pipeline.procedures import NAMED, procedures_for

    kfold = next(e for e in NAMED if e.scheme == "kfold_cv")
    assert kfold.name(parse_design("cv2x5")) == "5-fold cv t (first run)"
    res = next(e for e in NAMED if e.test == "resampled_t")
    assert res.name(parse_design("resampled30-33"), "words") == "the resampled t-test (30 splits, a third held out)"
    assert res.name(parse_design("resampled10")) == "resampled t (10 splits)"
    # the proving ground's table names, for its designs, in the order its statements and figures read them
    designs = ["cv10x10", "5x2cv", "resampled10", "resampled30-33", "holdout33"]
    info = pd.DataFrame([(p.design, p.id) for d in designs for p in procedures_for(d)], columns=["design", "procedure"])
    assert list(named_procedures(info)) == [
        "10-fold cv t (first run)",
        "10x10 cv t, uncorrected",
        "corrected 10x10 cv t",
        "sorted runs t",
        "sorted runs rank sum",
        "5x2cv t",
        "5x2cv F",
        "resampled t (10 splits)",
        "corrected resampled t (10 splits)",
        "resampled t (30 splits, a third held out)",
        "corrected resampled t (30 splits, a third held out)",
        "McNemar (holdout)",
        "difference of proportions (holdout)",
        "Welch t",
    ]
    # assess words the same procedures from the same table
    row = {"scheme": "", "repeats": 3, "A better": 2, "B better": 0}
    table = pd.DataFrame(
        [
            {**row, "design": "resampled30-33", "test": "corrected_resampled_t"},
            {**row, "design": "cv1x5", "test": "corrected_cv_t"},
        ]
    )
    lines = verdicts(table, designs_for_data(["resampled30-33", "cv1x5"], np.array([0, 1] * 20)))
    assert lines == [
        "A beats B in 2 of 3 repeats with the corrected resampled t-test (30 splits, a third held out)",
        "A beats B in 2 of 3 repeats with the corrected 1x5 cv t-test",
    ]
