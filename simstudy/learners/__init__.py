"""Learners: classifiers fitted on each training set of a resampling design."""

from .rdefaults import E1071NaiveBayes, E1071SVC, RandomForestR, naive_bayes_predict_batch
from .j48 import J48

__all__ = ["E1071NaiveBayes", "E1071SVC", "RandomForestR", "naive_bayes_predict_batch", "J48"]
