"""The Monte Carlo engine: seeded, parallel, distributed, resumable, stored.

A study (:class:`Study`: a built-in one of :mod:`simstudy.studies`, one that
another package registers through the ``simstudy.studies`` entry points, or one
in any ``.py`` file, see :func:`get_study`) names its conditions, what one
replication does, and its profiles.  The engine

* derives every replication's random stream from (root seed, study, condition,
  replication) (:mod:`.seeds`), so results do not depend on workers or order;
* runs chunks of replications with joblib (loky) or dask.distributed
  (:mod:`.runner`), with a progress bar;
* stores raw rows as Parquet chunks with a manifest, atomically, resuming and
  refusing to mix configurations (:mod:`.store`);
* keeps failures as rows that can be replayed alone;
* summarises stored rows without simulating again (:mod:`.summary`).
"""

from .runner import BACKENDS, DEFAULT_SEED, plan_run, replay, run_study
from .seeds import replication_rng, replication_seed, setup_seed
from .solve import Knob, SolveResult
from .store import ConfigMismatch, RunData, RunStore, load_run
from .study import Profile, Study, condition_key, get_study, list_studies, load_study_file, study_origins
from .summary import clopper_pearson, rejection_summary

__all__ = [
    "Study", "Profile", "get_study", "list_studies", "study_origins", "load_study_file", "condition_key",
    "run_study", "replay", "plan_run", "DEFAULT_SEED", "BACKENDS",
    "RunData", "RunStore", "load_run", "ConfigMismatch",
    "replication_seed", "replication_rng", "setup_seed",
    "rejection_summary", "clopper_pearson",
    "Knob", "SolveResult",
]
