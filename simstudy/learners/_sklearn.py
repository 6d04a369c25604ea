"""What scikit-learn (>= 1.6) asks of a classifier that does not inherit from its ``BaseEstimator``."""

from __future__ import annotations

import numpy as np


class ClassifierProtocol:
    """Mixin: scikit-learn's estimator tags and the default classifier ``score``."""

    def __sklearn_tags__(self):
        """Tags for scikit-learn >= 1.6 (imported only when scikit-learn asks for them)."""
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(), input_tags=InputTags(allow_nan=True))

    def score(self, X, y):
        """Share of correctly predicted rows.

        Parameters
        ----------
        X : array_like, shape (n, p)
        y : array_like, shape (n,)

        Returns
        -------
        float
        """
        return float(np.mean(self.predict(X) == np.asarray(y)))
