"""Corani and Benavoli's (2015) correlated Bayesian t-test as a simstudy plug-in, in two forms.

The posterior of the mean difference A - B over the n = r k differences of an
r x k cross-validation is Student's t with n - 1 degrees of freedom, with the
correlation of differences that share training cases, rho = n_test / n, in its
scale (:func:`simstudy.statistics.bayesian.correlated_t_test`).

``decide``
    a decision rule, no p-value: +1 if P(A better) > 0.95, -1 if
    P(B better) > 0.95, else 0;
``posterior``
    the same test as (statistic, p-value) with p = 1 - max(P(A better),
    P(B better)): at alpha = 0.05 it rejects exactly where ``decide`` does.

Both decline (return None) a design with one difference per replication (a
holdout: runs = folds = 1), where the variance is undefined, and one whose
split sizes are not known::

    simstudy bench bouckaert1 --test examples/bayes_correlated_t.py:decide
"""

import numpy as np

from simstudy.statistics.bayesian import correlated_t_test


def _posterior(scores):
    d = scores.diffs.reshape(scores.diffs.shape[:-2] + (-1,))
    if d.shape[-1] < 2 or scores.n_train is None:
        return None
    return correlated_t_test(d, n_train=scores.n_train, n_test=scores.n_test)


def decide(scores):
    post = _posterior(scores)
    if post is None:
        return None
    return np.where(post.p_a_better > 0.95, 1, np.where(post.p_b_better > 0.95, -1, 0))


def posterior(scores):
    post = _posterior(scores)
    if post is None:
        return None
    mean = scores.diffs.mean(axis=(-2, -1))
    return mean, 1 - np.maximum(post.p_a_better, post.p_b_better)
