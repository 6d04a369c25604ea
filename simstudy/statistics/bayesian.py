"""Bayesian comparisons of two classifiers with a region of practical equivalence (ROPE).

Each function answers "how probable is it that A is better, that A and B are
practically equivalent, that B is better?" from paired differences:

* one data set, per-split scores of a cross-validation or of random splits:
  :func:`correlated_t_test`, the Bayesian correlated t-test (Corani and
  Benavoli 2015), in closed form;
* several data sets, one mean difference per data set:
  :func:`bayesian_signed_rank_test`, the Bayesian signed-rank test (Benavoli, Corani,
  Mangili, Zaffalon and Ruggeri 2014; Benavoli, Corani, Demsar and Zaffalon
  2017), and :func:`bayesian_sign_test`, the Bayesian sign test (same papers), both by
  Monte Carlo from an explicit :class:`numpy.random.Generator`, so that a result
  is determined by its ``rng``.

Sign convention, as in :mod:`simstudy.statistics.significance`: a value is
"A minus B" (e.g. accuracy of A minus accuracy of B).  The ROPE is the closed
interval ``[-rope, rope]`` on that difference, in the units of the scores
(``rope=0.01`` is one point of accuracy).  A is better when the difference
exceeds ``rope``, B is better when it is below ``-rope``.  Every result holds
all three probabilities, also with ``rope=0``.

baycomp (Benavoli et al. 2017's package) orders its output (left, rope,
right) for ``y - x``; called as ``baycomp.two_on_single(a, b, ...)`` its
(left, rope, right) are this module's (A better, rope, B better).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from simstudy._lazy import lazy_module
from simstudy._validation import as_sample, check_positive
from simstudy.errors import InputError
from simstudy.statistics.effect import _mean_and_se
from simstudy.statistics.significance import _split_sizes

stats = lazy_module("scipy.stats")

__all__ = ["BayesianVerdict", "correlated_t_test", "bayesian_signed_rank_test", "bayesian_sign_test"]

#: Monte Carlo samples of the posterior by default (baycomp's default too).
N_SAMPLES = 50_000
# posterior draws per block of the signed-rank test
_BLOCK = 10_000


@dataclass(frozen=True)
class BayesianVerdict:
    """Posterior probabilities that A is better, that A and B are practically equivalent, that B is better.

    Attributes
    ----------
    p_a_better : ndarray or float
        Posterior probability that the difference A - B exceeds ``rope``.
    p_rope : ndarray or float
        Posterior probability that it lies in ``[-rope, rope]``.
    p_b_better : ndarray or float
        Posterior probability that it is below ``-rope``.
    rope : float
        Half-width of the region of practical equivalence, in score units.
    n_samples : int or None
        Monte Carlo samples behind the probabilities (None when exact); their
        Monte Carlo standard error is at most ``0.5 / sqrt(n_samples)``.
    """

    p_a_better: np.ndarray | float
    p_rope: np.ndarray | float
    p_b_better: np.ndarray | float
    rope: float
    n_samples: int | None

    def verdict(self, threshold: float = 0.95):
        """+1 (A better), -1 (B better), 2 (practically equivalent) or 0 (undecided) per comparison.

        A verdict is given when its posterior probability is at least ``threshold``
        (Benavoli et al. 2017 use 0.95).
        """
        a, r, b = (np.asarray(v) for v in (self.p_a_better, self.p_rope, self.p_b_better))
        out = np.where(a >= threshold, 1, np.where(b >= threshold, -1, np.where(r >= threshold, 2, 0)))
        out = out.astype(np.int8)
        return out if out.ndim else int(out)


def _scalar(a):
    a = np.asarray(a)
    return a.item() if a.ndim == 0 else a


def _check_rope(rope) -> float:
    if isinstance(rope, bool) or not isinstance(rope, numbers.Real) or not math.isfinite(float(rope)) or rope < 0:
        raise InputError(f"rope: must be a finite number >= 0, got {rope!r}")
    return float(rope)


def _rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise InputError(f"rng: expected a numpy.random.Generator (np.random.default_rng(seed)), got {rng!r}")
    return rng


# ---------------------------------------------------------------------------
# one data set


def correlated_t_test(x, *, n_train, n_test, rope: float = 0.0) -> BayesianVerdict:
    """Bayesian correlated t-test on the per-split differences of one data set (Corani and Benavoli 2015).

    The posterior of the mean difference is Student's t with ``n - 1``
    degrees of freedom, location the sample mean and scale
    ``sqrt((1/n + rho/(1 - rho)) s^2)``, where ``rho = n_test / (n_train + n_test)``
    is the correlation between splits that share training cases, so
    ``rho/(1 - rho) = n_test/n_train``: the Nadeau-Bengio factor of the
    corrected t-tests.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Differences A - B on ``n`` splits (all folds of all runs of a
        repeated cv, or the random splits of a resampled design); ``n >= 2``.
    n_train, n_test : positive number
        Sizes of each training and test set (``n_test / n_train = 1/(k-1)``
        for k-fold cv, as baycomp assumes from its ``runs`` argument).
    rope : float
        Half-width of the region of practical equivalence, >= 0.

    Returns
    -------
    BayesianVerdict
        Exact probabilities from the t distribution (``n_samples`` None),
        with the leading shape of ``x``.

    Notes
    -----
    With ``rope = 0``, ``p_b_better`` (for a positive mean) is half the
    two-sided p-value of the corrected t-test: the posterior is the corrected
    test's sampling distribution moved to the mean.  When every difference
    is the same the posterior is a point mass at the mean (as in baycomp),
    which falls in the ROPE when ``|mean| <= rope``; baycomp's two-value answer
    for ``rope = 0`` splits a zero mean as (0.5, 0.5) instead.
    """
    x = as_sample(x, "x", min_n=2)
    rope = _check_rope(rope)
    n = x.shape[-1]
    # Nadeau-Bengio correction: rho / (1 - rho) = n_test / n_train; the scale is the corrected standard
    # error of simstudy.statistics.effect, with its guard for values whose squares under- or overflow
    mean, scale = _mean_and_se(x, 1.0 / n + _split_sizes(n_train, n_test))
    pos = scale > 0
    safe = np.where(pos, scale, 1.0)
    with np.errstate(over="ignore"):  # a ROPE far wider than the scale: +-inf, whose t probabilities are exact
        upper, lower = (rope - mean) / safe, (-rope - mean) / safe
    p_a = np.where(pos, stats.t.sf(upper, n - 1), (mean > rope).astype(float))
    p_b = np.where(pos, stats.t.cdf(lower, n - 1), (mean < -rope).astype(float))
    # the ROPE's mass directly, so that it is exactly 0 for rope = 0
    p_in = np.where(pos, stats.t.cdf(upper, n - 1) - stats.t.cdf(lower, n - 1), 0.0)
    p_in = np.where(pos, np.clip(p_in, 0.0, 1.0), (np.abs(mean) <= rope).astype(float))
    return BayesianVerdict(
        p_a_better=_scalar(p_a), p_rope=_scalar(p_in), p_b_better=_scalar(p_b),
        rope=rope, n_samples=None,
    )  # fmt: skip


# ---------------------------------------------------------------------------
# several data sets


def _heaviside(a: np.ndarray, threshold: float) -> np.ndarray:
    """1 above ``threshold``, 1/2 at it, 0 below (Benavoli et al. 2014, the indicator with ties halved)."""
    return (a > threshold) + 0.5 * (a == threshold)


def _winner_shares(theta: np.ndarray) -> tuple[float, float, float]:
    """Share of posterior samples in which each of (A better, rope, B better) has the largest probability.

    A tie goes to the first in that order (as ``numpy.argmax``, and baycomp).
    """
    counts = np.bincount(np.argmax(theta, axis=1), minlength=3)
    return tuple(float(c) / theta.shape[0] for c in counts)  # type: ignore[return-value]


def _verdict_from_theta(theta: np.ndarray, rope: float) -> BayesianVerdict:
    a, r, b = _winner_shares(theta)
    return BayesianVerdict(p_a_better=a, p_rope=r, p_b_better=b, rope=rope, n_samples=int(theta.shape[0]))


def _check_samples(n_samples) -> int:
    return int(check_positive(n_samples, "n_samples", integer=True))


def _over_data_sets(x, rope, prior, n_samples, rng):
    """The checked arguments of a test over data sets: one difference per data set, ROPE, prior, samples, Generator."""
    z = as_sample(x, "x", min_n=1)
    if z.ndim != 1:
        raise InputError(f"x: expected one difference per data set (shape (q,)), got shape {z.shape}")
    return z, _check_rope(rope), float(check_positive(prior, "prior")), _check_samples(n_samples), _rng(rng)


def bayesian_signed_rank_test(
    x, *, rope: float = 0.0, rng: np.random.Generator, prior: float = 0.5, n_samples: int = N_SAMPLES
) -> BayesianVerdict:
    """Bayesian signed-rank test on per-data-set mean differences (Benavoli et al. 2014, 2017).

    The distribution of the difference over data sets has a Dirichlet
    process posterior, with the observed differences ``z_1..z_q`` (weight 1
    each) and a prior pseudo-observation ``z_0 = 0`` of strength ``prior``.
    For weights ``w ~ Dirichlet(prior, 1, ..., 1)`` the probabilities of the
    three regions are the signed-rank (Walsh average) sums

        ``theta_A = sum_ij w_i w_j I(z_i + z_j > 2 rope)``,
        ``theta_B = sum_ij w_i w_j I(z_i + z_j < -2 rope)``,
        ``theta_rope = 1 - theta_A - theta_B``

    (an indicator at equality counts 1/2).  The reported probabilities are the
    shares of ``n_samples`` posterior draws in which each region has the
    largest theta.  No hierarchical model: the per-data-set differences are
    taken as exact.

    Parameters
    ----------
    x : array_like, shape (q,)
        Mean difference A - B on each of ``q >= 1`` data sets.
    rope : float
        Half-width of the region of practical equivalence, >= 0.
    rng : numpy.random.Generator
        Draws the Dirichlet weights; the result is a function of its state.
    prior : float
        Strength of the pseudo-observation at 0 (0.5 in Benavoli et al. 2017
        and baycomp), > 0.
    n_samples : int
        Monte Carlo draws.

    Returns
    -------
    BayesianVerdict
        Monte Carlo probabilities (standard error at most ``0.5/sqrt(n_samples)``).
    """
    z, rope, prior, n_samples, rng = _over_data_sets(x, rope, prior, n_samples, rng)
    z = np.concatenate([[0.0], z])
    walsh = z[:, None] + z[None, :]
    above, below = _heaviside(walsh, 2 * rope), _heaviside(-walsh, 2 * rope)
    alpha = np.concatenate([[prior], np.ones(z.size - 1)])
    theta = np.empty((n_samples, 3))
    # drawn in blocks of a fixed size: bounded memory for many data sets, the same draws for a given rng
    for start in range(0, n_samples, _BLOCK):
        w = rng.dirichlet(alpha, size=min(_BLOCK, n_samples - start))
        theta[start : start + w.shape[0], 0] = ((w @ above) * w).sum(axis=1)
        theta[start : start + w.shape[0], 2] = ((w @ below) * w).sum(axis=1)
    theta[:, 1] = 0.0 if rope == 0 else 1.0 - theta[:, 0] - theta[:, 2]
    return _verdict_from_theta(theta, rope)


def _dirichlet(alpha: np.ndarray, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    """Dirichlet draws allowing zero parameters (a zero parameter gives a component that is always 0)."""
    g = np.zeros((n_samples, alpha.size))
    pos = alpha > 0
    g[:, pos] = rng.standard_gamma(alpha[pos], size=(n_samples, int(pos.sum())))
    return g / g.sum(axis=1, keepdims=True)


def bayesian_sign_test(
    x, *, rope: float = 0.0, rng: np.random.Generator, prior: float = 1.0, n_samples: int = N_SAMPLES
) -> BayesianVerdict:
    """Bayesian sign test on per-data-set mean differences (Benavoli et al. 2014, 2017).

    The counts of data sets where A is better by more than ``rope``, where the
    difference lies in the ROPE, and where B is better give, with a prior
    pseudo-observation of strength ``prior`` in the ROPE, the posterior
    ``(theta_A, theta_rope, theta_B) ~ Dirichlet(n_A, n_rope + prior, n_B)``.
    The reported probabilities are the shares of ``n_samples`` draws in
    which each region has the largest theta.

    Parameters
    ----------
    x : array_like, shape (q,)
        Mean difference A - B on each of ``q >= 1`` data sets.
    rope : float
        Half-width of the region of practical equivalence, >= 0; with 0 the
        ROPE holds the exact ties and the prior.
    rng : numpy.random.Generator
        Draws the posterior samples.
    prior : float
        Strength of the pseudo-observation in the ROPE (1 in baycomp), > 0.
    n_samples : int
        Monte Carlo draws.

    Returns
    -------
    BayesianVerdict

    Notes
    -----
    baycomp adds 1e-4 to every count so that its Dirichlet sampler never
    sees a zero; here a zero count gives a component that is exactly 0.
    With ``rope = 0`` baycomp reports only A and B, renormalised to sum to 1;
    here ``p_rope`` stays, the share of draws won by the ties and the prior.
    """
    z, rope, prior, n_samples, rng = _over_data_sets(x, rope, prior, n_samples, rng)
    n_a, n_b = float((z > rope).sum()), float((z < -rope).sum())
    alpha = np.array([n_a, z.size - n_a - n_b + prior, n_b])
    return _verdict_from_theta(_dirichlet(alpha, n_samples, rng), rope)
