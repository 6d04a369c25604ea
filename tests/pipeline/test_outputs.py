"""Per-split outputs: any scikit-learn scorer computed again from stored predictions and probabilities, unfitted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import get_scorer

from simstudy.pipeline.comparison import Comparison, rescore
from simstudy.pipeline.designs import RepeatedKFold
from simstudy.pipeline.outputs import fold_outputs, needs_scores, outputs_scores


@pytest.fixture(scope="module")
def binary():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return X[::4], y[::4]


@pytest.fixture(scope="module")
def three():
    from sklearn.datasets import load_iris

    return load_iris(return_X_y=True)


def _by_hand(metric, make, X, y, ids):
    """The scorer on the fitted learner of every split: the reference the replay must give."""
    folds = int(ids.max()) + 1
    return np.array(
        [
            [get_scorer(metric)(make().fit(X[r != f], y[r != f]), X[r == f], y[r == f]) for f in range(folds)]
            for r in ids
        ]
    )


@pytest.mark.parametrize("learner", ["GaussianNB", "SVC"])
@pytest.mark.parametrize("data, metrics", [("binary", ["roc_auc", "f1", "average_precision", "balanced_accuracy"]),
                                           ("three", ["f1_macro", "balanced_accuracy", "roc_auc_ovr"])])  # fmt: skip
def test_scores_from_stored_outputs_are_the_scorers_on_the_fitted_learners(request, learner, data, metrics):
    from sklearn.naive_bayes import GaussianNB
    from sklearn.svm import SVC

    X, y = request.getfixturevalue(data)
    make = {"GaussianNB": GaussianNB, "SVC": SVC}[learner]
    ids = RepeatedKFold(2, 3).fold_ids(y, np.random.default_rng(1))
    pred, sc, kind = fold_outputs(X, y, ids, make)
    assert kind == ("proba" if learner == "GaussianNB" else "decision")
    for metric in metrics:
        if metric == "roc_auc_ovr" and kind == "decision":  # the scorer itself needs predict_proba here
            with pytest.raises(ValueError, match="metric: 'roc_auc_ovr' cannot be computed from the stored outputs"):
                outputs_scores(metric, y, ids, pred, sc, kind)
            continue
        np.testing.assert_array_equal(outputs_scores(metric, y, ids, pred, sc, kind), _by_hand(metric, make, X, y, ids))
    np.testing.assert_array_equal(
        outputs_scores("accuracy", y, ids, pred, sc, kind), _by_hand("accuracy", make, X, y, ids)
    )


def test_predictions_only_refuse_a_metric_that_needs_probabilities(binary):
    X, y = binary
    ids = RepeatedKFold(1, 3).fold_ids(y, np.random.default_rng(1))
    from sklearn.naive_bayes import GaussianNB

    pred, sc, kind = fold_outputs(X, y, ids, GaussianNB, scores=False)
    assert sc is None and kind == ""
    assert needs_scores("roc_auc") and needs_scores("neg_log_loss") and not needs_scores("balanced_accuracy")
    with pytest.raises(ValueError, match="needs class probabilities or decision values, and only predictions"):
        outputs_scores("roc_auc", y, ids, pred, sc, kind)


def test_kept_outputs_change_no_score_and_rescore_gives_them_back(binary):
    X, y = binary
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    learners = {"nb": GaussianNB(), "tree": DecisionTreeClassifier()}  # the tree is seeded from the stream
    kw = dict(designs=("cv2x3", "resampled3"), schemes=None)
    plain = Comparison(learners, **kw).run(X, y, np.random.default_rng(7))
    kept = Comparison(learners, keep_outputs=True, **kw).run(X, y, np.random.default_rng(7))
    pd.testing.assert_frame_equal(plain["scores"], kept["scores"])
    pd.testing.assert_frame_equal(plain["outcomes"], kept["outcomes"])
    p = kept["predictions"]
    assert {"run", "fold", "case", "y", "pred_nb", "pred_tree", "proba_nb_0", "proba_nb_1"} <= set(p.columns)
    # each case held out once per cv run; each resampled split holds out its test cases only
    cv = p[p["design"] == "cv2x3"]
    assert len(cv) == 2 * y.size and (cv.groupby("run")["case"].nunique() == y.size).all()
    again = rescore(Comparison(learners, keep_outputs=True, **kw), p, y.size)
    pd.testing.assert_frame_equal(again.scores(), kept["scores"])
    pd.testing.assert_frame_equal(again.outcomes(), kept["outcomes"])
    auc = rescore(Comparison(learners, keep_outputs=True, metric="roc_auc", **kw), p, y.size).scores()
    fitted = Comparison(learners, metric="roc_auc", **kw).run(X, y, np.random.default_rng(7))["scores"]
    pd.testing.assert_frame_equal(auc, fitted)
