"""A paired sign-flip permutation test as a simstudy plug-in.

Under H0 (no difference between A and B) each difference in the sample is as
likely positive as negative, so flipping signs gives the null distribution of
the mean difference.  With at most 12 values all 2**m sign patterns are used (an
exact test); otherwise 2000 random patterns, shared by every replication, with
the usual +1 correction so that the p-value is never 0.  Vectorised over every
replication at once: the sample axis is last.

Two variants for ``simstudy bench``:

``sign_flip``
    all r x k per-fold differences of a replication (ignores that the folds
    share training data, so it is expected to reject too often, like the
    uncorrected resampled t-test);
``sign_flip_sorted_runs``
    Bouckaert's "average over sorted runs" sample (k values), the sample his
    paper recommends.

Try it on the stored quick runs (a few seconds each)::

    simstudy bench berrar4 --test examples/permutation_test.py:sign_flip
    simstudy bench bouckaert1 --test examples/permutation_test.py:sign_flip_sorted_runs
"""

import itertools

import numpy as np

N_PERMUTATIONS = 2000
MAX_EXACT = 12


def _sign_flip(sample, rng):
    """Mean of ``sample`` (..., m) and its two-sided sign-flip p-value."""
    m = sample.shape[-1]
    observed = sample.mean(axis=-1)
    if m <= MAX_EXACT:
        signs = np.array(list(itertools.product((-1.0, 1.0), repeat=m)))
        extra = 0
    else:
        signs = rng.choice([-1.0, 1.0], size=(N_PERMUTATIONS, m))
        extra = 1
    null = np.einsum("...m,pm->...p", sample, signs) / m  # (..., patterns)
    # a small tolerance so that ties with the observed mean count as extreme despite rounding
    extreme = (np.abs(null) >= np.abs(observed)[..., None] - 1e-12).sum(axis=-1)
    pvalue = (extreme + extra) / (signs.shape[0] + extra)
    return observed, pvalue


def sign_flip(scores):
    """All r x k per-fold differences of a replication, sign-flipped together."""
    diffs = scores.diffs.reshape(scores.diffs.shape[:-2] + (-1,))
    return _sign_flip(diffs, np.random.default_rng(2004))


def sign_flip_sorted_runs(scores):
    """The same test on Bouckaert's "average over sorted runs" sample."""
    sorted_runs = np.sort(scores.diffs, axis=-1).mean(axis=-2)
    return _sign_flip(sorted_runs, np.random.default_rng(2004))
