"""Comparisons across several data sets: two learners (signed-rank, sign test) and several (Friedman, post-hoc).

Following Demsar (2006), "Statistical comparisons of classifiers over multiple
data sets", JMLR 7:1-30.  The unit is the data set: each function takes one
score (or one difference of scores) per data set, e.g. the mean accuracy of a
cross-validation, and treats the data sets as independent.

Two learners, on the per-data-set differences ``A - B`` (shape ``(N,)``):

* :func:`wilcoxon_test`: Wilcoxon signed-rank test (Demsar Sec. 3.1.3);
* :func:`binomial_sign_test`: sign test on the counts of wins (Sec. 3.1.4).

Several learners, on a score matrix of shape ``(N, k)`` (data sets x learners):

* :func:`mean_ranks`: rank 1 for the best learner on each data set, ties
  sharing the average of their ranks, averaged over data sets;
* :func:`friedman_test`: Friedman's chi-square and the Iman-Davenport F
  (Sec. 3.2.2);
* :func:`nemenyi_test`: all pairs, with the critical difference
  (:func:`critical_difference`);
* :func:`holm_test`: Holm's step-down procedure against a control or over all
  pairs, on the rank z statistics (:func:`holm_adjust` adjusts any p-values);
* :func:`nonsignificant_groups`: the learners a critical-difference diagram
  joins by a bar.

Zero differences (ties) in the two-learner tests follow Demsar by default:
their ranks (signed-rank test) or counts (sign test) are split evenly between
the two sides, and when their number is odd one of them is dropped first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simstudy._lazy import lazy_module
from simstudy._validation import as_float_array, as_sample, check_alpha
from simstudy.errors import InputError

stats = lazy_module("scipy.stats")

__all__ = [
    "WilcoxonResult",
    "SignTestResult",
    "FriedmanResult",
    "NemenyiResult",
    "HolmResult",
    "wilcoxon_test",
    "binomial_sign_test",
    "mean_ranks",
    "friedman_test",
    "critical_difference",
    "nemenyi_test",
    "holm_adjust",
    "holm_test",
    "nonsignificant_groups",
]

_ZERO_METHODS = ("demsar", "zsplit", "wilcox", "pratt")


# ---------------------------------------------------------------------------
# two learners over data sets


def _differences(x) -> np.ndarray:
    d = as_sample(x, "x", min_n=1)
    if d.ndim != 1:
        raise InputError(f"x: expected one difference per data set (shape (N,)), got shape {d.shape}")
    return d


def _drop_one_zero_if_odd(d: np.ndarray) -> np.ndarray:
    """Demsar (2006, Sec. 3.1.3): with an odd number of zero differences, one of them is ignored."""
    zeros = np.flatnonzero(d == 0)
    return np.delete(d, zeros[0]) if zeros.size % 2 else d


def _decision(pvalue: float, direction: float, alpha: float) -> int:
    return int(np.sign(direction)) if pvalue <= check_alpha(alpha) else 0


@dataclass(frozen=True)
class WilcoxonResult:
    """Wilcoxon signed-rank test over data sets.

    Attributes
    ----------
    statistic : float
        ``T = min(R+, R-)``, the statistic Demsar's tables of critical values use.
    r_plus, r_minus : float
        Rank sums of the data sets where A is better and where B is better
        (zero differences shared as ``zero_method`` says).
    n : int
        Number of differences ranked (after dropping zeros where the method does).
    pvalue : float
        Two-sided p-value from :func:`scipy.stats.wilcoxon`.
    direction : int
        +1 when ``R+ > R-`` (A better), -1 when ``R+ < R-``, else 0.
    """

    statistic: float
    r_plus: float
    r_minus: float
    n: int
    pvalue: float
    direction: int

    def decision(self, alpha: float = 0.05) -> int:
        """+1 / -1 / 0: reject when ``pvalue <= alpha``, in the direction of the larger rank sum."""
        return _decision(self.pvalue, self.direction, alpha)


def _rank_sums(d: np.ndarray, zero_method: str) -> tuple[float, float, int]:
    """``R+``, ``R-`` and the number of ranked values, zeros handled as ``zero_method`` says."""
    if zero_method == "wilcox":
        d = d[d != 0]
    ranks = stats.rankdata(np.abs(d)) if d.size else np.zeros(0)
    r_plus, r_minus = ranks[d > 0].sum(), ranks[d < 0].sum()
    if zero_method in ("zsplit", "demsar"):
        r_zero = ranks[d == 0].sum()
        r_plus, r_minus = r_plus + r_zero / 2, r_minus + r_zero / 2
        return float(r_plus), float(r_minus), int(d.size)
    # pratt: zeros take part in the ranking, then their ranks are dropped
    return float(r_plus), float(r_minus), int((d != 0).sum())


def wilcoxon_test(x, *, zero_method: str = "demsar", method: str = "auto") -> WilcoxonResult:
    """Wilcoxon signed-rank test on the per-data-set differences of two learners (Demsar 2006, Sec. 3.1.3).

    Parameters
    ----------
    x : array_like, shape (N,)
        Difference A - B of the two learners' scores on each data set.
    zero_method : {"demsar", "zsplit", "wilcox", "pratt"}
        Zero differences: ``"demsar"`` (default) drops one zero when their
        number is odd and splits the ranks of the others evenly between
        ``R+`` and ``R-`` (Demsar's rule); ``"zsplit"`` splits all of them;
        ``"wilcox"`` drops them (Wilcoxon 1945); ``"pratt"`` ranks them, then
        drops their ranks (Pratt 1959).  All but ``"demsar"`` are
        :func:`scipy.stats.wilcoxon`'s options of the same name.
    method : {"auto", "exact", "asymptotic"}
        p-value of :func:`scipy.stats.wilcoxon`: ``"auto"`` is exact for up to
        50 differences without zeros or ties, otherwise the normal approximation
        (with tie correction, no continuity correction).

    Returns
    -------
    WilcoxonResult

    Notes
    -----
    All differences zero: no evidence, ``pvalue = 1`` and ``direction = 0``
    (scipy would return NaN).  Demsar's worked example (C4.5 against C4.5+m,
    14 data sets, his Table 2) has ``R+ = 93, R- = 12``.
    """
    if zero_method not in _ZERO_METHODS:
        raise InputError(f"zero_method: expected one of {', '.join(_ZERO_METHODS)}, got {zero_method!r}")
    if method not in ("auto", "exact", "asymptotic"):
        raise InputError(f"method: expected 'auto', 'exact' or 'asymptotic', got {method!r}")
    d = _differences(x)
    if zero_method == "demsar":
        d = _drop_one_zero_if_odd(d)
    r_plus, r_minus, n = _rank_sums(d, zero_method)
    if not (d != 0).any():
        return WilcoxonResult(statistic=r_plus, r_plus=r_plus, r_minus=r_minus, n=n, pvalue=1.0, direction=0)
    scipy_zero = "zsplit" if zero_method == "demsar" else zero_method
    p = float(stats.wilcoxon(d, zero_method=scipy_zero, method=method).pvalue)
    return WilcoxonResult(
        statistic=min(r_plus, r_minus), r_plus=r_plus, r_minus=r_minus, n=n, pvalue=min(p, 1.0),
        direction=int(np.sign(r_plus - r_minus)),
    )  # fmt: skip


@dataclass(frozen=True)
class SignTestResult:
    """Sign test on the counts of wins over data sets.

    Attributes
    ----------
    wins : float
        Data sets won by A (with half the ties under ``zero_method="demsar"``).
    losses : float
        Data sets won by B (likewise).
    ties : int
        Data sets with a zero difference (before any is split or dropped).
    n : int
        ``wins + losses``, the number of trials of the binomial test.
    pvalue : float
        Two-sided p-value.
    direction : int
        ``sign(wins - losses)``.
    """

    wins: float
    losses: float
    ties: int
    n: int
    pvalue: float
    direction: int

    def decision(self, alpha: float = 0.05) -> int:
        """+1 / -1 / 0: reject when ``pvalue <= alpha``, towards the learner with more wins."""
        return _decision(self.pvalue, self.direction, alpha)


def binomial_sign_test(x, *, zero_method: str = "demsar", method: str = "exact") -> SignTestResult:
    """Sign test on the wins of two learners over data sets (Demsar 2006, Sec. 3.1.4).

    Parameters
    ----------
    x : array_like, shape (N,)
        Difference A - B on each data set.
    zero_method : {"demsar", "wilcox"}
        ``"demsar"`` (default): ties are split evenly between wins and losses,
        one tie ignored when their number is odd; ``"wilcox"``: ties are dropped.
    method : {"exact", "normal"}
        ``"exact"``: the two-sided binomial test of :func:`scipy.stats.binomtest`
        with ``p = 1/2``; ``"normal"``: ``z = (wins - n/2) / (sqrt(n)/2)``, the
        approximation Demsar's table of critical values is made from.

    Returns
    -------
    SignTestResult

    Notes
    -----
    The two methods differ at small N: Demsar's example (C4.5+m better on
    11 of 14 data sets counting one of two ties) is significant at 0.05 by
    his normal table (critical value 11) but has an exact two-sided p of 0.057.
    No trials left (every difference zero): ``pvalue = 1``.
    """
    if zero_method not in ("demsar", "wilcox"):
        raise InputError(f"zero_method: expected 'demsar' or 'wilcox', got {zero_method!r}")
    if method not in ("exact", "normal"):
        raise InputError(f"method: expected 'exact' or 'normal', got {method!r}")
    d = _differences(x)
    ties = int((d == 0).sum())
    wins, losses = float((d > 0).sum()), float((d < 0).sum())
    if zero_method == "demsar":
        wins, losses = wins + (ties // 2), losses + (ties // 2)
    n = int(wins + losses)
    if n == 0:
        p = 1.0
    elif method == "exact":
        p = float(stats.binomtest(int(wins), n, 0.5).pvalue)
    else:
        p = float(2.0 * stats.norm.sf(abs(wins - n / 2.0) / (math.sqrt(n) / 2.0)))
    return SignTestResult(
        wins=wins, losses=losses, ties=ties, n=n, pvalue=min(p, 1.0), direction=int(np.sign(wins - losses))
    )


# ---------------------------------------------------------------------------
# several learners over data sets


def _score_matrix(scores, min_learners: int = 2) -> np.ndarray:
    s = as_float_array(scores, "scores", min_ndim=2)
    if s.ndim != 2:
        raise InputError(f"scores: expected shape (n_datasets, n_learners), got shape {s.shape}")
    if np.isinf(s).any():
        raise InputError("scores: contains infinite values")
    if s.shape[0] < 2 or s.shape[1] < min_learners:
        raise InputError(f"scores: needs at least 2 data sets and {min_learners} learners, got shape {s.shape}")
    return s


def _ranks(s: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Rank 1 for the best learner on each data set (row); ties share the average of their ranks."""
    return stats.rankdata(-s if higher_is_better else s, method="average", axis=1)


def mean_ranks(scores, *, higher_is_better: bool = True) -> np.ndarray:
    """Average rank of each learner over data sets (Demsar 2006, Sec. 3.2.2).

    Parameters
    ----------
    scores : array_like, shape (N, k)
        Score of each of ``k`` learners (columns) on each of ``N`` data sets (rows).
    higher_is_better : bool
        True for accuracy-like scores, False for errors or losses.

    Returns
    -------
    ndarray, shape (k,)
        Mean ranks; rank 1 is the best, tied learners share the average of their ranks.
    """
    return _ranks(_score_matrix(scores), higher_is_better).mean(axis=0)


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman's test of equal mean ranks, with Iman and Davenport's F.

    Attributes
    ----------
    mean_ranks : ndarray, shape (k,)
        Average rank of each learner (1 = best).
    chi2 : float
        Friedman's statistic ``12N/(k(k+1)) (sum R_j^2 - k(k+1)^2/4)``.
    chi2_pvalue : float
        From chi-square with ``k - 1`` degrees of freedom.
    f : float
        Iman-Davenport ``F = (N-1) chi2 / (N(k-1) - chi2)``.
    f_pvalue : float
        From F with ``(k-1, (k-1)(N-1))`` degrees of freedom; Demsar recommends it
        over the chi-square, which is conservative.
    n_datasets, n_learners : int
        ``N`` and ``k``.
    """

    mean_ranks: np.ndarray
    chi2: float
    chi2_pvalue: float
    f: float
    f_pvalue: float
    n_datasets: int
    n_learners: int

    @property
    def df_chi2(self) -> int:
        """Degrees of freedom of the chi-square, ``k - 1``."""
        return self.n_learners - 1

    @property
    def df_f(self) -> tuple[int, int]:
        """Degrees of freedom of the F, ``(k - 1, (k - 1)(N - 1))``."""
        return self.n_learners - 1, (self.n_learners - 1) * (self.n_datasets - 1)


def friedman_test(scores, *, higher_is_better: bool = True, tie_correction: bool = False) -> FriedmanResult:
    """Friedman's test over data sets with the Iman-Davenport F (Friedman 1937; Iman and Davenport 1980).

    Parameters
    ----------
    scores : array_like, shape (N, k)
        Score of each learner (column) on each data set (row); ``N >= 2``, ``k >= 2``.
    higher_is_better : bool
        True for accuracy-like scores.
    tie_correction : bool
        Divide the chi-square by ``1 - sum(t^3 - t) / (N (k^3 - k))`` over the
        groups of tied scores within data sets, as :func:`scipy.stats.friedmanchisquare`
        does.  Off by default: Demsar's formula (his worked example, with ties,
        gives chi2 = 9.28 and F = 3.69 without it).

    Returns
    -------
    FriedmanResult

    Notes
    -----
    When every data set ranks the learners the same way (and the statistic
    reaches its maximum ``N(k-1)``), F is infinite and its p-value 0.
    When every data set ties all learners, chi2 = F = 0 and both p-values are 1.
    """
    s = _score_matrix(scores)
    n, k = s.shape
    ranks = _ranks(s, higher_is_better)
    correction = 1.0
    if tie_correction:
        ties = sum(float(np.sum(c**3 - c)) for c in (np.unique(row, return_counts=True)[1] for row in ranks))
        correction = 1.0 - ties / (n * (k**3 - k))
    return _friedman_from_mean_ranks(ranks.mean(axis=0), n, correction)


def _friedman_from_mean_ranks(r: np.ndarray, n: int, correction: float = 1.0) -> FriedmanResult:
    """Friedman's chi-square and Iman-Davenport's F from the mean ranks of ``k`` learners on ``n`` data sets.

    ``correction`` divides the chi-square (the tie correction; 0 when every data set ties all learners).
    """
    k = r.size
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(r**2) - k * (k + 1) ** 2 / 4.0)
    chi2 = chi2 / correction if correction > 0 else 0.0
    chi2 = max(float(chi2), 0.0)  # rounding can leave -1e-15 when all ranks are equal
    denom_f = n * (k - 1) - chi2
    f = (n - 1) * chi2 / denom_f if denom_f > 1e-12 * n * k else math.inf
    return FriedmanResult(
        mean_ranks=r,
        chi2=chi2,
        chi2_pvalue=float(stats.chi2.sf(chi2, k - 1)),
        f=float(f),
        f_pvalue=0.0 if math.isinf(f) else float(stats.f.sf(f, k - 1, (k - 1) * (n - 1))),
        n_datasets=n,
        n_learners=k,
    )


def _rank_se(n_learners: int, n_datasets: int) -> float:
    """Standard error of a difference of two mean ranks, ``sqrt(k(k+1)/(6N))`` (Demsar 2006, Sec. 3.2.2)."""
    return math.sqrt(n_learners * (n_learners + 1) / (6.0 * n_datasets))


def critical_difference(n_learners: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of mean ranks, ``q_alpha sqrt(k(k+1)/(6N))`` (Demsar 2006, Sec. 3.2.2).

    ``q_alpha`` is the upper ``alpha`` quantile of the studentized range of
    ``k`` means with infinite degrees of freedom divided by ``sqrt(2)``
    (:func:`scipy.stats.studentized_range`): 2.569 for k = 4 at alpha = 0.05,
    2.291 at alpha = 0.10, as in Demsar's Table 5.

    Parameters
    ----------
    n_learners, n_datasets : int
        ``k >= 2`` and ``N >= 1``.
    alpha : float
        Family-wise significance level.

    Returns
    -------
    float
    """
    alpha = check_alpha(alpha)
    if n_learners < 2 or n_datasets < 1:
        raise InputError(f"n_learners: needs k >= 2 learners and N >= 1 data sets, got {n_learners}, {n_datasets}")
    q = float(stats.studentized_range.ppf(1.0 - alpha, n_learners, np.inf)) / math.sqrt(2.0)
    return q * _rank_se(n_learners, n_datasets)


@dataclass(frozen=True)
class NemenyiResult:
    """Nemenyi's all-pairs post-hoc test on mean ranks.

    Attributes
    ----------
    mean_ranks : ndarray, shape (k,)
        Average rank of each learner (1 = best).
    critical_difference : float
        Two learners differ significantly when their mean ranks differ by at least this.
    alpha : float
        Family-wise level of ``critical_difference`` and ``groups``.
    pvalues : ndarray, shape (k, k)
        Pairwise p-values, ``P(studentized range of k > |R_i - R_j| sqrt(2) / se)``;
        1 on the diagonal.
    groups : tuple of tuple of int
        Maximal sets of learners (column indices, best rank first) with no two
        significantly different: the bars of a critical-difference diagram.
    n_datasets : int
        ``N``.
    """

    mean_ranks: np.ndarray
    critical_difference: float
    alpha: float
    pvalues: np.ndarray
    groups: tuple[tuple[int, ...], ...]
    n_datasets: int

    def significant(self) -> np.ndarray:
        """(k, k) booleans: the pairs whose mean ranks differ by at least the critical difference."""
        return self.pvalues <= self.alpha


def nemenyi_test(scores, *, alpha: float = 0.05, higher_is_better: bool = True) -> NemenyiResult:
    """Nemenyi's post-hoc test of all pairs of learners (Nemenyi 1963; Demsar 2006, Sec. 3.2.2).

    Parameters
    ----------
    scores : array_like, shape (N, k)
        Score of each learner (column) on each data set (row).
    alpha : float
        Family-wise significance level.
    higher_is_better : bool
        True for accuracy-like scores.

    Returns
    -------
    NemenyiResult

    Notes
    -----
    A pair's p-value is at most ``alpha`` exactly when its mean ranks differ by
    at least :func:`critical_difference`; Demsar advises running it only after
    Friedman's test rejects.
    """
    alpha = check_alpha(alpha)
    s = _score_matrix(scores)
    n, k = s.shape
    r = _ranks(s, higher_is_better).mean(axis=0)
    q = np.abs(r[:, None] - r[None, :]) * math.sqrt(2.0) / _rank_se(k, n)
    p = np.where(q > 0, stats.studentized_range.sf(np.where(q > 0, q, 1.0), k, np.inf), 1.0)
    p = np.clip(p, 0.0, 1.0)
    return NemenyiResult(
        mean_ranks=r,
        critical_difference=critical_difference(k, n, alpha),
        alpha=alpha,
        pvalues=p,
        groups=nonsignificant_groups(r, p <= alpha),
        n_datasets=n,
    )


def holm_adjust(pvalues) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values: reject hypothesis i at level alpha when its value <= alpha.

    With the p-values sorted ``p_(1) <= ... <= p_(m)``, the adjusted value of
    ``p_(i)`` is ``max_{j <= i} min(1, (m - j + 1) p_(j))``; comparing it with
    alpha is the same as Holm's procedure (reject while ``p_(i) <= alpha / (m - i + 1)``,
    stop at the first that is not).

    Parameters
    ----------
    pvalues : array_like, shape (m,)

    Returns
    -------
    ndarray, shape (m,)
        Adjusted p-values in the input order.
    """
    p = as_sample(pvalues, "pvalues", min_n=1)
    if p.ndim != 1 or ((p < 0) | (p > 1)).any():
        raise InputError("pvalues: expected a 1-d array of values in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


@dataclass(frozen=True)
class HolmResult:
    """Holm's step-down post-hoc test on mean ranks.

    Attributes
    ----------
    mean_ranks : ndarray, shape (k,)
        Average rank of each learner (1 = best).
    pairs : ndarray of int, shape (m, 2)
        The learners (column indices) of each hypothesis; against a control the
        first column is the control.
    z : ndarray, shape (m,)
        ``(R_i - R_j) / sqrt(k(k+1)/(6N))`` for pair ``(i, j)``; positive when ``j``
        has the better (lower) mean rank.
    pvalues : ndarray, shape (m,)
        Unadjusted two-sided p-values from N(0, 1).
    adjusted : ndarray, shape (m,)
        Holm-adjusted p-values (:func:`holm_adjust`).
    reject : ndarray of bool, shape (m,)
        ``adjusted <= alpha``.
    alpha : float
        Family-wise significance level.
    control : int or None
        The control learner, or None for all pairs.
    """

    mean_ranks: np.ndarray
    pairs: np.ndarray
    z: np.ndarray
    pvalues: np.ndarray
    adjusted: np.ndarray
    reject: np.ndarray
    alpha: float
    control: int | None

    def significant(self) -> np.ndarray:
        """(k, k) booleans, symmetric: the pairs whose hypothesis Holm's procedure rejects."""
        k = self.mean_ranks.size
        out = np.zeros((k, k), dtype=bool)
        i, j = self.pairs[:, 0], self.pairs[:, 1]
        out[i, j] = out[j, i] = self.reject
        return out


def holm_test(scores, *, control: int | None = None, alpha: float = 0.05, higher_is_better: bool = True) -> HolmResult:
    """Holm's step-down post-hoc test on mean ranks, against a control or over all pairs (Demsar 2006, Sec. 3.2.2).

    Each hypothesis "learners i and j have the same mean rank" is tested by
    ``z = (R_i - R_j) / sqrt(k(k+1)/(6N))`` against N(0, 1); Holm's (1979)
    procedure keeps the family-wise error at ``alpha``.

    Parameters
    ----------
    scores : array_like, shape (N, k)
        Score of each learner (column) on each data set (row).
    control : int or None
        Column of the control learner: its ``k - 1`` comparisons (Demsar's
        recommended use); None for all ``k(k-1)/2`` pairs.
    alpha : float
        Family-wise significance level.
    higher_is_better : bool
        True for accuracy-like scores.

    Returns
    -------
    HolmResult
    """
    alpha = check_alpha(alpha)
    s = _score_matrix(scores)
    n, k = s.shape
    if control is not None and (isinstance(control, bool) or not isinstance(control, (int, np.integer))):
        raise InputError(f"control: expected a column index or None, got {control!r}")
    if control is not None and not 0 <= control < k:
        raise InputError(f"control: expected a column index in [0, {k}), got {control}")
    r = _ranks(s, higher_is_better).mean(axis=0)
    if control is None:
        pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)], dtype=int)
    else:
        pairs = np.array([(int(control), j) for j in range(k) if j != control], dtype=int)
    z = (r[pairs[:, 0]] - r[pairs[:, 1]]) / _rank_se(k, n)
    p = 2.0 * stats.norm.sf(np.abs(z))
    adj = holm_adjust(p)
    return HolmResult(
        mean_ranks=r, pairs=pairs, z=z, pvalues=p, adjusted=adj, reject=adj <= alpha, alpha=alpha,
        control=None if control is None else int(control),
    )  # fmt: skip


def nonsignificant_groups(mean_ranks, significant) -> tuple[tuple[int, ...], ...]:
    """Maximal runs of learners, in rank order, with no two significantly different (Demsar 2006, Fig. 1).

    Parameters
    ----------
    mean_ranks : array_like, shape (k,)
        Average ranks (1 = best).
    significant : array_like of bool, shape (k, k)
        Which pairs differ significantly (e.g. ``NemenyiResult.significant()``).

    Returns
    -------
    tuple of tuple of int
        Each group lists learner indices from the best mean rank on, has at
        least two members and is not contained in another group; the bars of
        a critical-difference diagram.
    """
    r = as_sample(mean_ranks, "mean_ranks", min_n=1)
    sig = np.asarray(significant, dtype=bool)
    k = r.size
    if sig.shape != (k, k):
        raise InputError(f"significant: expected shape ({k}, {k}), got {sig.shape}")
    order = np.argsort(r, kind="stable")
    groups: list[tuple[int, ...]] = []
    last_end = -1
    for a in range(k):
        b = a
        while b + 1 < k and not sig[order[a : b + 2]][:, order[a : b + 2]].any():
            b += 1
        if b > a and b > last_end:
            groups.append(tuple(int(i) for i in order[a : b + 1]))
            last_end = b
    return tuple(groups)
