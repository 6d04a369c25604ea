"""The proving ground: every significance test, built-in or plug-in, scored the same way on worlds with a known truth.

What it is made of, and why:

* :mod:`.scenarios`: the scenario bank as declared data (frozen dataclasses):
  Bouckaert's four Bayesian-network sources and four of his factor sources
  (C4.5 against naive Bayes), Berrar's Gaussian generators (R's naive Bayes
  against R's SVM), and two-view Gaussian worlds in the style of Dietterich
  (1998) and Nadeau and Bengio (2003) with graded effects, two correlations,
  three sample sizes and four learner pairs of graded stability (:mod:`.worlds`),
  and the classification setting of Nadeau and Bengio (2003).  Each scenario's
  truth (is there a difference on the population, which learner is better) is
  measured once on large test sets and *stored* in ``truth.json``
  (``scripts/make_proving_truth.py`` regenerates it), never recomputed by a run.
  The Gaussian worlds compare the *same* learner on two views of the data, so
  their nulls are exact by symmetry for every training size, which two
  different algorithms never give.
* :mod:`.study`: the proving ground is an ordinary :class:`~simstudy.engine.Study`
  (stored, resumable, identical with any number of workers).  One condition per
  scenario rather than per scenario x design: a replication draws one data set
  and runs *every* design on it, repeated a few times with new partitions (so
  R2 can be measured), each learner fitted once per split and every registered
  test the design allows applied to those fits.  Common random numbers then
  hold across designs too, so the leaderboard's comparisons are paired over
  data sets.  It stores ``scores`` (with a ScoreLayout, so ``simstudy bench``
  and plug-ins use them) and ``outcomes`` with p-values and the direction of a
  rejection, so any level is a re-decision.
* :mod:`.summary`: size verdicts per null scenario (controls size, liberal or
  unresolved, from simultaneous intervals: :mod:`simstudy.statistics.size_control`), Type I
  error over a grid of levels, the null p-value distribution, raw and
  size-adjusted power, R2 and consistency, each with Monte Carlo intervals over
  data sets, and the leaderboard (its rule is stated there).
* :mod:`.diagnostics`: why a test is liberal: the measured correlation of the
  differences of one data set's splits, the variance factor a t-test needs
  against the one it uses, and the training-set share of a split's variance.
* :mod:`.berrar_calibration`: the reliability diagram and Brier score of
  Berrar's replication probability from one experiment, from the stored rows of
  his studies 1-3.
* :mod:`.report`: the Markdown and HTML page with its figures, written into the
  run directory by ``simstudy proving-ground``.
"""

from simstudy.apps.proving.scenarios import BANK, Scenario, scenario, truth, truth_table
from simstudy.apps.proving.study import DEFAULT_DESIGNS, STUDY_NAME, parse_designs, proving_study

__all__ = [
    "BANK",
    "Scenario",
    "scenario",
    "truth",
    "truth_table",
    "DEFAULT_DESIGNS",
    "STUDY_NAME",
    "parse_designs",
    "proving_study",
]
