"""The comparison object: one replication's learners on each design's splits, every test on the same fits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from simstudy.pipeline.comparison import ComparedLearner, Comparison, FitFailed, seeded
from simstudy.pipeline.designs import RepeatedKFold, parse_design, parse_designs
from simstudy.pipeline.outcomes import outcome_rows
from simstudy.pipeline.schemes import SCHEMES
from simstudy.pipeline.scores import PairedScores, cv_accuracies, scores_frame


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 4)) + 0.6 * y[:, None]
    return X, y


def test_one_grammar_for_every_design():
    specs = parse_designs("cv10x10, 5x2cv resampled10 resampled30-33 holdout33")
    assert [(d.kind, d.n_runs, d.n_folds) for d in specs] == [
        ("cv", 10, 10),
        ("5x2", 5, 2),
        ("resampled", 10, 1),
        ("resampled", 30, 1),
        ("holdout", 1, 1),
    ]
    assert specs[3].test_share == pytest.approx(0.33) and specs[2].test_share == pytest.approx(0.1)
    assert parse_design("cv5x2").kind == "5x2"
    for bad, words in [
        ("cv0x10", "at least 1 run"),
        ("resampled1", "2 splits"),
        ("holdout80", "5 to 50"),
        ("loo", "unknown design"),
    ]:
        with pytest.raises(ValueError, match=words):
            parse_design(bad)
    with pytest.raises(ValueError, match="same design"):
        parse_designs(["5x2cv", "cv5x2"])
    with pytest.raises(ValueError, match="named twice"):
        parse_designs(["cv2x5", "cv2x5"])


def test_the_rows_are_those_of_the_pieces_assembled_by_hand():
    """Draws, fits and tests in the documented order give the same rows as doing each step by hand."""
    X, y = _data()
    learners = (GaussianNB(), DecisionTreeClassifier(max_depth=2, random_state=0))
    tests = {"t": "paired_t", "rank sum": "signed_rank"}
    got = Comparison(learners, designs=("cv3x5",), tests=tests, n_experiments=2, schemes=SCHEMES).run(
        X, y, np.random.default_rng(7)
    )
    rng = np.random.default_rng(7)
    ids = np.concatenate([RepeatedKFold(3, 5).fold_ids(y, rng) for _ in range(2)])
    # the tree takes a random_state: one seed per experiment, drawn after the partitions
    seeds = rng.integers(0, 2**31 - 1, size=(2, 1))
    nb = cv_accuracies(X, y, ids, (GaussianNB,))
    tree = np.concatenate(
        [
            cv_accuracies(X, y, ids[3 * e : 3 * (e + 1)], (seeded(lambda: DecisionTreeClassifier(max_depth=2), s),))
            for e, s in enumerate(seeds[:, 0])
        ]
    )
    acc = np.concatenate([nb, tree], axis=-1).reshape(2, 3, 5, 2)
    scores = PairedScores(acc[..., 0], acc[..., 1], *RepeatedKFold(3, 5).sizes(y))
    want = outcome_rows(scores, tests, alpha=0.05, schemes=SCHEMES, index={"experiment": np.arange(2)})
    pd.testing.assert_frame_equal(got["outcomes"], want)
    pd.testing.assert_frame_equal(got["scores"], scores_frame(acc, ("acc_a", "acc_b")))


def test_same_stream_same_rows_and_seeded_learners_change_between_replications():
    X, y = _data()
    comp = Comparison((GaussianNB(), DecisionTreeClassifier(max_features=1)), designs=("cv2x5",))
    a = comp.run(X, y, np.random.default_rng(1))
    b = comp.run(X, y, np.random.default_rng(1))
    c = comp.run(X, y, np.random.default_rng(2))
    pd.testing.assert_frame_equal(a["outcomes"], b["outcomes"])
    assert not np.array_equal(a["scores"]["acc_b"], c["scores"]["acc_b"])


def test_several_designs_and_learners_name_their_rows():
    X, y = _data()
    comp = Comparison(
        {"nb": GaussianNB(), "tree": DecisionTreeClassifier(max_depth=1), "deep": DecisionTreeClassifier()},
        designs={"cv": "cv2x5", "sub": "resampled4"},
        tests=["paired_t", "corrected_resampled_t"],
        index_dtype=np.int16,
    )
    out = comp.run(X, y, np.random.default_rng(3))
    assert list(out["scores"].columns) == ["design", "run", "fold", "acc_nb", "acc_tree", "acc_deep"]
    assert out["scores"]["run"].dtype == np.int16
    rows = out["outcomes"]
    assert list(rows.columns[:3]) == ["design", "pair", "test"]
    # each test only where the design allows it
    assert set(rows.loc[rows.design == "cv", "test"]) == {"paired_t"}
    assert set(rows.loc[rows.design == "sub", "test"]) == {"paired_t", "corrected_resampled_t"}
    assert set(rows["pair"]) == {"nb-tree", "nb-deep", "tree-deep"}


def test_sign_at_a_larger_level_and_holdout_tests_with_counts():
    X, y = _data()
    # counts are kept for seeded learners too (each experiment's seed, as without counts)
    seeded = Comparison(
        (GaussianNB, DecisionTreeClassifier), designs=("cv2x5", "holdout33"), n_experiments=2, counts=True
    )
    assert set(seeded.run(X, y, np.random.default_rng(0))["outcomes"]["test"]) >= {"mcnemar"}
    comp = Comparison(
        (GaussianNB(), "weka.NaiveBayes"),
        designs=("cv2x5", "holdout33"),
        n_experiments=2,
        sign_alpha=0.5,
        schemes=SCHEMES,
        counts=True,
        split_sizes=True,
        design_column=True,
    )
    out = comp.run(X, y, np.random.default_rng(0))
    rows = out["outcomes"]
    assert set(rows.loc[rows.design == "holdout33", "test"]) == {"mcnemar", "difference_of_proportions"}
    assert (rows.loc[rows.design == "holdout33", "scheme"] == "").all()
    p = rows["pvalue"].to_numpy()
    assert ((rows["decision"] != 0) <= (p <= 0.05)).all() and ((rows["sign"] != 0) <= (p <= 0.5)).all()
    assert {"n_train", "n_test", "n01", "n10"} <= set(out["scores"].columns)


def test_a_failing_learner_is_named():
    class Broken(GaussianNB):
        def fit(self, X, y):
            raise RuntimeError("no")

    X, y = _data()
    with pytest.raises(FitFailed, match="learner 'b': RuntimeError: no") as err:
        Comparison({"a": GaussianNB(), "b": ComparedLearner(Broken)}, designs=("cv1x5",)).run(
            X, y, np.random.default_rng(0)
        )
    assert err.value.learner == "b" and isinstance(err.value.__cause__, RuntimeError)


def test_arguments_are_checked_by_name():
    for kwargs, words in [
        ({"learners": (GaussianNB(),)}, "learners"),
        ({"learners": (GaussianNB(), GaussianNB()), "designs": ("cv1x1",)}, "^designs: "),
        ({"learners": (GaussianNB(), GaussianNB()), "tests": ["nope"]}, "tests: unknown test"),
        ({"learners": (GaussianNB(), GaussianNB()), "tests": ["5x2cv_t"]}, "runs on none"),
        ({"learners": (GaussianNB(), GaussianNB()), "n_experiments": 0}, "n_experiments"),
        ({"learners": (GaussianNB(), GaussianNB()), "alpha": 1.5}, "alpha"),
    ]:
        with pytest.raises(ValueError, match=words):
            Comparison(**kwargs)


def test_the_derived_layout_reads_back_what_run_stored():
    X, y = _data()
    comp = Comparison((GaussianNB(), DecisionTreeClassifier()), designs=("cv2x5",), schemes=SCHEMES)
    layout = comp.layout(groups=("n_cases",))
    assert layout.experiment is None and layout.variants == ("test", "scheme")
    rows = pd.DataFrame({"n_cases": [120], "design": ["cv2x5"]})
    assert layout.sizes(rows) == RepeatedKFold(2, 5).sizes(120)


def test_a_metric_other_than_accuracy_is_stored_under_its_own_columns():
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + rng.normal(size=80) > 0).astype(int)
    c = Comparison((GaussianNB(), LogisticRegression()), designs=("cv1x4",), metric="roc_auc")
    fits = c.fit(X, y, np.random.default_rng(5))
    scores = fits.scores()
    assert list(scores.columns) == ["run", "fold", "score_a", "score_b"]
    assert c.layout().pairs == {"A-B": ("score_a", "score_b")}
    # fold 0 by hand, from the same partition
    ids = c.design("cv1x4").splitter().fold_ids(y, np.random.default_rng(5))
    test = np.atleast_2d(ids)[0] == 0
    auc = roc_auc_score(y[test], GaussianNB().fit(X[~test], y[~test]).predict_proba(X[test])[:, 1])
    assert scores["score_a"].iloc[0] == pytest.approx(auc, abs=1e-12)


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(metric="auc"), "not a scikit-learn scorer name"),
        (dict(metric="f1", designs=("holdout33",)), "need metric='accuracy'"),
    ],
)
def test_metric_refusals(kw, message):
    with pytest.raises(ValueError, match=message):
        Comparison(("NB", "C4.5"), **kw)


def test_every_random_step_of_a_pipeline_is_seeded():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from simstudy.pipeline.comparison import seed_parameters, seeded

    pipe = make_pipeline(StandardScaler(), RandomForestClassifier(n_estimators=3))
    assert seed_parameters(pipe) == ["randomforestclassifier__random_state"]
    est = seeded(lambda: pipe, 11)()
    assert est.get_params()["randomforestclassifier__random_state"] == 11


def test_a_random_state_the_user_set_is_replaced_by_the_experiments_seed():
    # docs/howto/practitioners.rst says so: every repeat trains on its own draw
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from simstudy.pipeline.comparison import seeded

    def make():
        return make_pipeline(StandardScaler(), RandomForestClassifier(n_estimators=3, random_state=7))

    assert seeded(make, 11)().get_params()["randomforestclassifier__random_state"] == 11


def test_the_fits_as_one_array_of_every_learners_scores():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(60, 3)), np.repeat([0, 1], 30)
    c = Comparison({"nb": GaussianNB, "tree": DecisionTreeClassifier}, designs=("cv2x3",), n_experiments=2)
    fits = c.fit(X, y, np.random.default_rng(0))
    acc = fits.array()
    assert acc.shape == (2, 2, 3, 2)
    frame = fits.scores()
    np.testing.assert_array_equal(acc[..., 0].ravel(), frame["acc_nb"])
    np.testing.assert_array_equal(acc[..., 1].ravel(), frame["acc_tree"])


def test_a_shuffled_case_order_changes_only_what_depends_on_the_order():
    # all-nominal data sorted by class, with many cases at the same distance: Weka's IB1 takes the
    # first training case among them, so its accuracy depends on the order the run presents
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(200, 3)).astype(float)
    y = np.sort(rng.integers(0, 2, size=200))
    learners = {"nb": "weka.NaiveBayes", "nn": "weka.IB1", "tree": DecisionTreeClassifier}
    kw = dict(designs=("cv3x5", "resampled5"), n_experiments=2, split_sizes=True, design_column=True)
    given = Comparison(learners, **kw).fit(X, y, np.random.default_rng(0))
    again = Comparison(learners, case_order="given", **kw).fit(X, y, np.random.default_rng(0))
    shuffled = Comparison(learners, case_order="shuffled", **kw).fit(X, y, np.random.default_rng(0))
    for design in ("cv3x5", "resampled5"):
        a, s = given.array(design), shuffled.array(design)
        np.testing.assert_array_equal(a, again.array(design))  # the default is the data's order
        # the same partitions and seeds (drawn before the orders): the same naive Bayes scores ...
        np.testing.assert_allclose(s[..., 0], a[..., 0])
        # ... while IB1 breaks its ties by another first training case
        assert not np.array_equal(s[..., 1], a[..., 1])
    # the orders come from the replication's stream: the same stream, the same scores
    twice = Comparison(learners, case_order="shuffled", **kw).fit(X, y, np.random.default_rng(0))
    np.testing.assert_array_equal(twice.array("cv3x5"), shuffled.array("cv3x5"))
    # kept outputs are put back in the data's order, and the scores computed from them agree
    kept = Comparison(learners, case_order="shuffled", keep_outputs=True, designs=("cv3x5",)).run(
        X, y, np.random.default_rng(0)
    )
    pred = kept["predictions"]
    plain = Comparison(learners, case_order="shuffled", designs=("cv3x5",)).fit(X, y, np.random.default_rng(0))
    np.testing.assert_allclose(
        kept["scores"][["acc_nb", "acc_nn", "acc_tree"]].to_numpy(),
        plain.scores()[["acc_nb", "acc_nn", "acc_tree"]].to_numpy(),
    )
    assert len(pred) > 0
    # the discordant counts of two learners follow the same orders
    pair = {"nb": "weka.NaiveBayes", "nn": "weka.IB1"}
    counted = Comparison(pair, designs=("holdout33",), n_experiments=2, case_order="shuffled")
    a = counted.fit(X, y, np.random.default_rng(0)).array()
    np.testing.assert_allclose(
        a[..., 0],
        Comparison(pair, designs=("holdout33",), n_experiments=2).fit(X, y, np.random.default_rng(0)).array()[..., 0],
    )


def test_a_case_order_is_checked_and_refused_for_fits_made_elsewhere():
    with pytest.raises(ValueError, match="case_order: one of 'given', 'shuffled', got 'random'"):
        Comparison((GaussianNB(), GaussianNB()), case_order="random")
    hooked = ComparedLearner(GaussianNB, fit_predict=lambda make, train, test: np.zeros(len(test), dtype=int))
    with pytest.raises(ValueError, match="case_order: 'shuffled' reorders the data .* b are made elsewhere"):
        Comparison({"a": GaussianNB(), "b": hooked}, case_order="shuffled")
