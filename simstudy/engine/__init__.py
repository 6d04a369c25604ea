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
* finds and opens stored runs, checked against the study's plan (:mod:`.runs`).
"""

from simstudy.engine.runner import BACKENDS, DEFAULT_SEED, plan_run, replay, run_study
from simstudy.engine.runs import load_run, locate_run
from simstudy.engine.seeds import replication_rng, replication_seed, setup_seed
from simstudy.engine.solve import Knob, SolveResult
from simstudy.engine.store import DEFAULT_ROOT, ConfigMismatch, RunData, RunStore
from simstudy.engine.study import (
    Cost,
    Profile,
    Provides,
    Publication,
    Study,
    condition_key,
    get_study,
    list_studies,
    load_study_file,
    study_origins,
)

__all__ = [
    "Study",
    "Profile",
    "Cost",
    "Publication",
    "Provides",
    "get_study",
    "list_studies",
    "study_origins",
    "load_study_file",
    "condition_key",
    "run_study",
    "replay",
    "plan_run",
    "DEFAULT_SEED",
    "BACKENDS",
    "RunData",
    "RunStore",
    "load_run",
    "locate_run",
    "DEFAULT_ROOT",
    "ConfigMismatch",
    "replication_seed",
    "replication_rng",
    "setup_seed",
    "Knob",
    "SolveResult",
]
