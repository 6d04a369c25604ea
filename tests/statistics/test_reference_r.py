"""The tests of simstudy.statistics.significance against R (base ``stats``), an independent implementation.

The pinned numbers were printed by R 4 with ``options(digits = 17)`` for the
literal inputs below (accuracy differences drawn once from a normal
distribution and rounded, so that some samples have zeros and tied absolute
values).  The R call that produced each number is in the comment next to it.
R is not needed to run these tests, except :func:`test_live_against_rscript`,
which draws fresh random inputs and runs ``Rscript`` when it is installed.

What matches what (the signed-rank test):

* R's ``wilcox.test(x, exact = FALSE, ...)`` drops zero differences and always
  applies the tie correction to the variance.  ``correct = FALSE`` is therefore
  ``signed_rank_test(x, tie_correction=True)`` and ``correct = TRUE`` is
  ``signed_rank_test(x, continuity=True, tie_correction=True)``, Berrar's
  Equation 10.
* Bouckaert's rank-sum test, the default ``signed_rank_test(x)``, has no tie
  correction: it equals R's ``correct = FALSE`` only on samples without tied
  absolute values (``x1``, ``x4`` below) and differs on ``x2`` and ``x3``.
* R's statistic ``V`` is ``W+``, not our standardised Z, so p-values are
  compared (and ``V`` is checked through ``W+ = Z sigma + mean``).
* R applies the continuity correction as ``(W+ - mean) - sign(W+ - mean)/2``;
  ours stops at zero.  They cannot differ: average ranks are multiples of 1/2,
  so ``W+`` and ``mean = n(n+1)/4`` are too, and ``0 < |W+ - mean| < 1/2``
  never happens.

McNemar: R's ``mcnemar.test(matrix(c(a, n01, n10, d), 2, 2))`` uses
``x[1, 2] = n10`` and ``x[2, 1] = n01``; the statistic is symmetric in them.
With ``correct = TRUE`` and equal discordant counts R computes
``(0 - 1)^2 / m > 0``, while ours stops the correction at zero (statistic 0,
p = 1: equal counts are no evidence either way); the pinned and live cases
avoid equal counts.  Counts one apart give 0 in both.
"""

import shutil
import subprocess

import numpy as np
import pytest

from simstudy.statistics.significance import binomial_test, mcnemar_test, paired_t_test, sign_test, signed_rank_test

X1 = [0.007, 0.056, 0.039, 0.017, -0.033, -0.047, 0.046, 0.035, -0.05, 0.029]
X2 = [-0.04, 0.03, 0.02, 0.03, 0, 0.02, 0, -0.02, 0.02, 0.02]
X3 = [
    0,
    0,
    -0.02,
    0,
    -0.01,
    -0.02,
    -0.02,
    -0.01,
    -0.05,
    -0.01,
    0.02,
    0.02,
    0.01,
    0.01,
    -0.01,
    0,
    -0.02,
    0.01,
    -0.02,
    -0.04,
    -0.03,
    -0.02,
    0.02,
    -0.04,
    0.01,
    -0.01,
    -0.02,
    0.01,
    0.04,
    0,
]
X4 = [
    0.0043,
    0.0074,
    -0.0022,
    0.0185,
    -0.0212,
    -0.0173,
    -0.0019,
    0.0142,
    -0.0277,
    -0.0174,
    -0.0333,
    -0.001,
    -0.0122,
    0.0094,
    0.0011,
    -0.0161,
    0.0315,
    0.015,
    -0.0077,
    -0.0184,
    -0.0032,
    0.0302,
    -0.0252,
    -0.0197,
    -0.0143,
    0.003,
    0.0257,
    0.0121,
    0.0062,
    0.0087,
    -0.0158,
    0.0088,
    0.0015,
    -0.0014,
    0.0334,
    -0.0054,
    -0.0001,
    -0.0215,
    -0.0246,
    0.0275,
]

REL = 1e-12  # R and numpy/scipy agree to rounding

# t.test(x): statistic, parameter (df), p.value
T_TEST = [
    (X1, 0.79391050677971586, 9, 0.44767350482013701),
    (X2, 1.1000381964338535, 9, 0.29986698579816701),
    (X3, -1.8051113445691196, 29, 0.081450510142138347),
    (X4, -0.44283391098735531, 39, 0.66033246134185908),
]

# wilcox.test(x, exact = FALSE, correct = FALSE): statistic V, p.value;
# wilcox.test(x, exact = FALSE, correct = TRUE): p.value; last: whether |x| has ties
WILCOX = [
    (X1, 34, 0.50762434430952363, 0.54081790424261778, False),
    (X2, 25, 0.31420433695387695, 0.35001989544256085, True),
    (X3, 97, 0.073508977889745544, 0.075733566756828047, True),
    (X4, 371, 0.60013207250666711, 0.60481418525276065, False),
]

# binom.test(k, n)$p.value
BINOM = [
    (29, 44, 0.048766765904474652),
    (7, 20, 0.26317596435546875),
    (61, 100, 0.035200200217704848),
    (0, 5, 0.0625),
    (15, 20, 0.041389465332031285),
]

# m <- matrix(c(100, n01, n10, 80), 2, 2)
# mcnemar.test(m, correct = TRUE): statistic, p.value; mcnemar.test(m, correct = FALSE): statistic, p.value
MCNEMAR = [
    (12, 25, 3.8918918918918921, 0.048519738280250545, 4.5675675675675675, 0.032582798385612698),
    (30, 18, 2.5208333333333335, 0.11235119769046355, 3.0, 0.083264516663550558),
    (3, 4, 0.0, 1.0, 0.14285714285714285, 0.7054569861112735),
    (0, 9, 7.1111111111111107, 0.0076607611351794886, 9.0, 0.0026997960632601922),
    (40, 41, 0.0, 1.0, 0.012345679012345678, 0.9115282379093772),
]


@pytest.mark.parametrize("x,t,df,p", T_TEST)
def test_paired_t_matches_r_t_test(x, t, df, p):
    r = paired_t_test(x)
    assert r.statistic == pytest.approx(t, rel=REL)
    assert r.df == df
    assert r.pvalue == pytest.approx(p, rel=1e-10)


def test_paired_t_vectorised_matches_r():
    # X1 and X2 have the same length: one call, two rows
    r = paired_t_test(np.array([X1, X2]))
    assert r.pvalue == pytest.approx([T_TEST[0][3], T_TEST[1][3]], rel=1e-10)


def _w_plus(x, z, continuity=False, tie_correction=True):
    """Recover W+ from our Z (no continuity) to compare with R's V."""
    x = np.asarray(x, dtype=float)
    a = np.abs(x[x != 0])
    n = a.size
    _, counts = np.unique(a, return_counts=True)
    var = n * (n + 1) * (2 * n + 1) / 24 - (tie_correction and (counts**3 - counts).sum() / 48)
    return z * np.sqrt(var) + n * (n + 1) / 4


@pytest.mark.parametrize("x,v,p_plain,p_correct,ties", WILCOX)
def test_signed_rank_variants_match_r_wilcox_test(x, v, p_plain, p_correct, ties):
    # R's correct = FALSE: tie correction, no continuity correction
    plain = signed_rank_test(x, tie_correction=True)
    assert plain.pvalue == pytest.approx(p_plain, rel=1e-10)
    assert _w_plus(x, plain.statistic) == pytest.approx(v, rel=1e-12)
    # R's correct = TRUE: Berrar's Equation 10
    berrar = signed_rank_test(x, continuity=True, tie_correction=True)
    assert berrar.pvalue == pytest.approx(p_correct, rel=1e-10)
    # Bouckaert's default has no tie correction: equal to R only without ties in |x|
    bouckaert = signed_rank_test(x)
    if ties:
        assert bouckaert.pvalue != pytest.approx(p_plain, rel=1e-6)
    else:
        assert bouckaert.pvalue == pytest.approx(p_plain, rel=1e-10)


@pytest.mark.parametrize("k,n,p", BINOM)
def test_binomial_test_matches_r_binom_test(k, n, p):
    assert binomial_test(k, n).pvalue == pytest.approx(p, rel=1e-10)
    # without ties the sign test is the same binomial test on the signs
    signs = [1.0] * k + [-1.0] * (n - k)
    assert sign_test(signs).pvalue == pytest.approx(p, rel=1e-10)


def test_binomial_test_vectorised_matches_r():
    k, n, p = (np.array(c) for c in zip(*BINOM))
    assert binomial_test(k, n).pvalue == pytest.approx(p, rel=1e-10)


@pytest.mark.parametrize("n01,n10,stat_c,p_c,stat,p", MCNEMAR)
def test_mcnemar_matches_r_mcnemar_test(n01, n10, stat_c, p_c, stat, p):
    corrected = mcnemar_test(n01, n10, continuity=True)
    assert corrected.statistic == pytest.approx(stat_c, rel=REL, abs=1e-15)
    assert corrected.pvalue == pytest.approx(p_c, rel=1e-10)
    plain = mcnemar_test(n01, n10, continuity=False)
    assert plain.statistic == pytest.approx(stat, rel=REL)
    assert plain.pvalue == pytest.approx(p, rel=1e-10)
    # swapping the two discordant counts changes only the direction
    assert mcnemar_test(n10, n01).pvalue == corrected.pvalue


# ----------------------------------------------------------------- live


_R_SCRIPT = r"""
options(digits = 17)
args <- commandArgs(trailingOnly = TRUE)
x <- as.numeric(strsplit(args[1], ",")[[1]])
k <- as.integer(args[2]); n <- as.integer(args[3])
b <- as.integer(args[4]); c <- as.integer(args[5])
m <- matrix(c(50, b, c, 50), 2, 2)
cat(t.test(x)$p.value,
    suppressWarnings(wilcox.test(x, exact = FALSE, correct = FALSE))$p.value,
    suppressWarnings(wilcox.test(x, exact = FALSE, correct = TRUE))$p.value,
    binom.test(k, n)$p.value,
    mcnemar.test(m, correct = TRUE)$p.value,
    mcnemar.test(m, correct = FALSE)$p.value, "\n")
"""


@pytest.mark.needs_r
@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_live_against_rscript(seed, tmp_path):
    rng = np.random.default_rng(seed)
    n_x = int(rng.integers(8, 40))
    # two decimals: zeros and ties in |x| are common, as with accuracies on small test sets
    x = np.round(rng.normal(0.01, 0.03, n_x), 2)
    n = int(rng.integers(5, 80))
    k = int(rng.integers(0, n + 1))
    n01, n10 = (int(v) for v in rng.integers(0, 40, 2))
    if n01 == n10:
        n10 += 2  # R's corrected statistic differs from ours only at equal counts (see module notes)
    script = tmp_path / "ref.R"
    script.write_text(_R_SCRIPT)
    out = subprocess.run(
        ["Rscript", str(script), ",".join(repr(float(v)) for v in x), str(k), str(n), str(n01), str(n10)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    p_t, p_w0, p_w1, p_b, p_mc, p_m = (float(v) for v in out.stdout.split())
    assert paired_t_test(x).pvalue == pytest.approx(p_t, rel=1e-9)
    assert signed_rank_test(x, tie_correction=True).pvalue == pytest.approx(p_w0, rel=1e-9)
    assert signed_rank_test(x, continuity=True, tie_correction=True).pvalue == pytest.approx(p_w1, rel=1e-9)
    assert binomial_test(k, n).pvalue == pytest.approx(p_b, rel=1e-9)
    assert mcnemar_test(n01, n10).pvalue == pytest.approx(p_mc, rel=1e-9)
    assert mcnemar_test(n01, n10, continuity=False).pvalue == pytest.approx(p_m, rel=1e-9)
