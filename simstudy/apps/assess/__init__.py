"""Assess one comparison: how replicable is "A beats B" on this data set, with these learners?

Bouckaert's replicability experiment, run on the user's own data: every design
the papers compare is repeated ``n_repeats`` times on fresh random partitions
of the same data, every learner is fitted once per split, and every test (on
every sampling scheme of the repeated cross-validation) is applied to the same
fits.  From the stored rows alone, :func:`assessment_tables` then gives per
design, scheme and test:

* the share of repeats that reject in each direction, with exact intervals;
* R2 (Bouckaert 2004, Eq. 1 with three outcomes) and its standard error
  (Theorem 3.1), and whether all repeats agree (Bouckaert and Frank's
  consistency on one data set);
* the first repeat's statistic and p-value, with Berrar's replication
  probability of its verdict and the prediction interval (non-central t for
  the t-tests, the Wilcoxon model with ``s* = 1`` for the signed-rank tests,
  the binomial model for the sign tests);
* the empirical replication rate ``F`` of a significant verdict: the share of
  the other repeats that reach the same significant verdict.

The assessment is a :class:`~simstudy.engine.Study` built at run time (one
condition per design, one replication per repeat), so it is stored, resumed
and verified like any study and is a deterministic function of the data, the
learners, the designs and the seed.  :func:`recommend` adds the evidence of the
stored simulation studies (:mod:`simstudy.apps.evidence`), judged on the proving
ground's rules: which of these procedures control size on the null scenarios
(:mod:`simstudy.statistics.size_control`), and among those, which has the best
size-adjusted power, ties broken by simulated replicability.

The package follows the steps of an assessment; each module imports only modules listed above it::

    errors          what a learner raised in its worker, in one line
    data            the data read and checked (Dataset, load_data, as_dataset)
    references      learners named module:NAME or path/to/file.py:NAME
    worker          the fit worker's side: what a contained learner's process runs
    learners        LearnerChoice: parsing, naming, contained or not
    designs         DesignChoice: the designs, their tests and schemes, the defaults
    limits          the fit limit, simstudy's side (_FitLimit, _LimitedFits)
    checks          what is refused before anything is written
    tables          the tables of a stored assessment
    study           the assessment's Study
    recommendation  the evidence judged, the recommendation, the verdicts in words
    report          the console text, the pages and the figure (imports none of these)
    assessment      Assessment, the result
    stored          a finished assessment read back (load_assessment)
    run             assess()
    many            several learners on several data sets (assess_many)
"""

from simstudy.apps.assess.assessment import SHIPPED, Assessment, LocalEvidence, baycomp_runs
from simstudy.apps.assess.checks import check_budget, check_learners
from simstudy.apps.assess.data import Dataset, as_dataset, check_metric_for, load_data
from simstudy.apps.assess.designs import (
    DEFAULT_DESIGNS,
    DEFAULT_REPEATS,
    FULL_DESIGNS,
    FULL_REPEATS,
    DesignChoice,
    designs_for_data,
)
from simstudy.apps.assess.learners import LearnerChoice, named_learners, parse_learner, wants_worker
from simstudy.apps.assess.limits import DEFAULT_FIT_TIMEOUT
from simstudy.apps.assess.recommendation import EVIDENCE_COMMAND, evidence_table, recommend
from simstudy.apps.assess.recommendation import verdicts as verdicts
from simstudy.apps.assess.run import assess
from simstudy.apps.assess.stored import assessment_scores as assessment_scores
from simstudy.apps.assess.stored import load_assessment
from simstudy.apps.assess.study import ASSESS_PROFILE, LearnerFailed, assessment_study
from simstudy.apps.assess.tables import assessment_tables
from simstudy.apps.assess.tables import effect_table as effect_table

__all__ = [
    "Dataset",
    "LearnerChoice",
    "DesignChoice",
    "load_data",
    "parse_learner",
    "designs_for_data",
    "assessment_study",
    "assess",
    "assessment_tables",
    "recommend",
    "evidence_table",
    "load_assessment",
    "as_dataset",
    "named_learners",
    "Assessment",
    "LearnerFailed",
    "DEFAULT_DESIGNS",
    "DEFAULT_REPEATS",
    "FULL_DESIGNS",
    "FULL_REPEATS",
    "baycomp_runs",
    "ASSESS_PROFILE",
    "EVIDENCE_COMMAND",
    "SHIPPED",
    "LocalEvidence",
    "DEFAULT_FIT_TIMEOUT",
    "check_learners",
    "check_metric_for",
    "check_budget",
    "wants_worker",
]
