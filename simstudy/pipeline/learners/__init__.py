"""Learners: classifiers fitted on each training set of a resampling design.

* R defaults used by Berrar: :class:`E1071NaiveBayes`, :class:`E1071SVC`, :class:`RandomForestR`.
* Weka 3.6 learners used by Bouckaert: :class:`WekaNaiveBayes`, :class:`J48`, :class:`IB1`,
  :class:`DecisionStump`, :class:`TAN` (BayesNet with the TAN search), :class:`SMO`.

All derive from :class:`Learner` (scikit-learn's estimator API and the per-fold
shortcut ``fold_predictions``).  :mod:`simstudy.pipeline.learners.registry` names them
(``make_learner("weka.J48")``, ``make_learner("C4.5")``) and lets installed
packages add their own through the ``simstudy.pipeline.learners`` entry points.
"""

from simstudy.pipeline.learners.base import Learner
from simstudy.pipeline.learners.j48 import J48
from simstudy.pipeline.learners.rdefaults import E1071SVC, E1071NaiveBayes, RandomForestR, naive_bayes_predict_batch
from simstudy.pipeline.learners.registry import (
    LearnerSpec,
    as_learner_factory,
    learner_class,
    learner_names,
    learner_spec,
    make_learner,
    register_learner,
)
from simstudy.pipeline.learners.smo import SMO
from simstudy.pipeline.learners.tan import TAN
from simstudy.pipeline.learners.weka import IB1, DecisionStump, WekaNaiveBayes

__all__ = [
    "Learner",
    "E1071NaiveBayes",
    "E1071SVC",
    "RandomForestR",
    "naive_bayes_predict_batch",
    "J48",
    "WekaNaiveBayes",
    "IB1",
    "DecisionStump",
    "TAN",
    "SMO",
    "LearnerSpec",
    "register_learner",
    "make_learner",
    "learner_names",
    "learner_spec",
    "learner_class",
    "as_learner_factory",
]
