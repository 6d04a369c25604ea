"""Two Gaussian classes with independent features: the sources of Berrar's studies.

Berrar (Algorithms 2-4) draws every feature of a positive case from N(mu, sigma^2)
and every feature of a negative case from N(0, 1), half of the cases positive.

* Studies 1 and 2 (Algorithm 2) use N benchmark data sets per experiment; data set
  i (1-based) of a group with start size a has ``n_i = a + 10 i`` cases in its
  training set and as many in its test set, ``d_i = i + 10`` features,
  ``mu_i = 0.3 + (N + 1 - i) / 200`` and ``sigma_i = 1 + (N + 1 - i) / 50``.
* Studies 3 and 4 (Algorithms 3-4) use one learning set of 1000 cases with
  positives N(0.3, 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simstudy._validation import check_positive
from simstudy.errors import InputError

__all__ = ["GaussianClasses", "berrar_benchmark_sources", "berrar_cv_source"]


@dataclass(frozen=True)
class GaussianClasses:
    """Positives ~ N(mu, sigma^2) and negatives ~ N(0, 1) in each of ``n_features`` features.

    Parameters
    ----------
    n_features : int
        Dimension d.
    mu, sigma : float
        Mean and standard deviation of every feature of a positive case.
    """

    n_features: int
    mu: float = 0.3
    sigma: float = 1.0

    def __post_init__(self):
        check_positive(self.n_features, "n_features", integer=True)
        check_positive(self.sigma, "sigma")
        if not np.isfinite(self.mu):
            raise InputError(f"mu: must be finite, got {self.mu!r}")

    def sample(self, n_cases: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``n_cases`` cases, the first ``n_cases // 2`` positive (label 1), the rest negative (0).

        Berrar's algorithms draw exactly half of the cases from each class; for an odd
        count the extra case is negative.  Returns ``(X, y)`` with X of shape
        (n_cases, n_features) and integer labels.
        """
        check_positive(n_cases, "n_cases", integer=True)
        rng = np.random.default_rng(rng)
        n_pos = n_cases // 2
        X = rng.standard_normal((n_cases, self.n_features))
        positives = X[:n_pos]  # mu + sigma * z, in place
        positives *= self.sigma
        positives += self.mu
        y = np.zeros(n_cases, dtype=np.int64)
        y[:n_pos] = 1
        return X, y


def berrar_benchmark_sources(n_datasets: int, start_size: int) -> list[tuple[int, GaussianClasses]]:
    """The N data-set sources of one experimental group of Berrar's studies 1 and 2.

    Parameters
    ----------
    n_datasets : int
        N (20 in study 1, 44 in study 2).
    start_size : int
        The group's start size a: data set i has ``a + 10 i`` training cases and
        as many test cases (Algorithm 2, line 12; for study 1 SPEC corrects the
        group start sizes to ``a_g = 240 + 50 g``).

    Returns
    -------
    list of (n_cases, GaussianClasses)
        For i = 1..N: the size of the training (and test) set and the source with
        ``d_i = i + 10``, ``mu_i = 0.3 + (N + 1 - i)/200``, ``sigma_i = 1 + (N + 1 - i)/50``
        (Algorithm 2, lines 12-15).  The formulas are written in N, so study 2
        (N = 44) follows them unchanged: d runs 11..54, mu 0.305..0.52 and sigma
        1.02..1.88.
    """
    check_positive(n_datasets, "n_datasets", integer=True)
    check_positive(start_size, "start_size", integer=True)
    out = []
    for i in range(1, n_datasets + 1):
        gap = n_datasets + 1 - i
        out.append((start_size + 10 * i, GaussianClasses(i + 10, 0.3 + gap / 200.0, 1.0 + gap / 50.0)))
    return out


def berrar_cv_source(n_features: int = 20) -> GaussianClasses:
    """The learning-set source of studies 3 (d = 20) and 4 (d = 4..30): positives N(0.3, 1)."""
    return GaussianClasses(n_features, 0.3, 1.0)
