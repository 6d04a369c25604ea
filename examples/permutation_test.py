"""A paired sign-flip permutation test as a simstudy plug-in.

Under H0 (no difference between A and B) each per-fold difference is as likely
positive as negative, so flipping signs at random gives the null distribution of
the mean difference.  Vectorised over every replication at once.

Try it on the stored quick runs (a minute each at most)::

    simstudy bench berrar4 --test examples/permutation_test.py:sign_flip
    simstudy bench bouckaert-table1 --test examples/permutation_test.py:sign_flip_sorted_runs
"""

import numpy as np

N_PERMUTATIONS = 2000


def _sign_flip(sample, rng):
    observed = sample.mean(axis=-1)
    signs = rng.choice([-1.0, 1.0], size=(N_PERMUTATIONS, sample.shape[-1]))
    null = np.einsum("...m,pm->...p", sample, signs) / sample.shape[-1]           # (..., permutations)
    extreme = (np.abs(null) >= np.abs(observed)[..., None] - 1e-12).sum(axis=-1)
    pvalue = (extreme + 1) / (N_PERMUTATIONS + 1)
    return observed, pvalue


def sign_flip(scores):
    """All r x k per-fold differences of a replication, sign-flipped together."""
    diffs = scores.diffs.reshape(scores.diffs.shape[:-2] + (-1,))
    return _sign_flip(diffs, np.random.default_rng(2004))


def sign_flip_sorted_runs(scores):
    """The same test on Bouckaert's "average over sorted runs" sample."""
    sorted_runs = np.sort(scores.diffs, axis=-1).mean(axis=-2)
    return _sign_flip(sorted_runs, np.random.default_rng(2004))
