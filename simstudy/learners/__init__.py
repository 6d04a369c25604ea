"""Learners: classifiers fitted on each training set of a resampling design.

* R defaults used by Berrar: :class:`E1071NaiveBayes`, :class:`E1071SVC`, :class:`RandomForestR`.
* Weka 3.6 learners used by Bouckaert: :class:`WekaNaiveBayes`, :class:`J48`, :class:`IB1`,
  :class:`DecisionStump`, :class:`TAN` (BayesNet with the TAN search), :class:`SMO`.
"""

from .j48 import J48
from .rdefaults import E1071NaiveBayes, E1071SVC, RandomForestR, naive_bayes_predict_batch
from .smo import SMO
from .tan import TAN
from .weka import IB1, DecisionStump, WekaNaiveBayes

__all__ = ["E1071NaiveBayes", "E1071SVC", "RandomForestR", "naive_bayes_predict_batch",
           "J48", "WekaNaiveBayes", "IB1", "DecisionStump", "TAN", "SMO"]
