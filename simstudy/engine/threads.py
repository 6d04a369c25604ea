"""How many threads the compiled kernels of a replication may use.

A replication runs on one core.  Its kernels (BLAS calls in scipy and
scikit-learn, OpenMP loops in scikit-learn's trees, oneDAL when the ``fast``
extra is installed) are small: started with a thread per core, they spend more
time waking and joining threads than computing, and in a process that runs
replications one after another they compete with nothing useful.  Parallelism
belongs to the engine, one replication per worker.

* loky workers get one thread each from joblib;
* dask workers get one from the nanny's environment, and oneDAL from
  :func:`native_threads_plugin`;
* a run in this process (``--jobs 1``, :func:`~simstudy.engine.run_study` with
  ``jobs=1``, ``assess``) is held to one thread by :func:`one_thread_per_kernel`.

The number of threads changes the speed only: the learners give the same fits
with any number of threads (``tests/engine/test_threads.py``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

NATIVE_THREADS_PLUGIN = "simstudy-native-threads"


def limit_native_threads(n: int) -> bool:
    """Let oneDAL (the intelex forest and SVM) use ``n`` threads in this process; False when it is not installed.

    A dask worker runs its tasks in a thread of its own, where oneDAL's
    scikit-learn extension ignores the OpenMP limit and takes every core of the
    machine, so that two workers on two cores ran no faster than one.  oneDAL's
    forest gives the same trees with any number of threads
    (``tests/pipeline/test_learners_r.py``).
    """
    from importlib.util import find_spec

    if find_spec("daal4py") is None:
        return False
    import daal4py

    daal4py.daalinit(max(1, int(n)))
    return True


def _native_threads() -> int | None:
    """oneDAL's current thread count, or None when it is not installed."""
    from importlib.util import find_spec

    if find_spec("daal4py") is None:
        return None
    import daal4py

    return int(daal4py.num_threads())


def native_threads_plugin():
    """A dask worker plugin that gives oneDAL one thread per task, as a loky worker has.

    Each of a worker's task threads runs one replication at a time, and the
    thread count of oneDAL is global to the process, so one thread per task
    means one for the process.
    """
    from dask.distributed import WorkerPlugin

    class NativeThreads(WorkerPlugin):
        def setup(self, worker):
            limit_native_threads(1)

    return NativeThreads()


@contextlib.contextmanager
def one_thread_per_kernel() -> Iterator[None]:
    """Hold BLAS, OpenMP and oneDAL to one thread in this process for the duration; restore them after.

    Entering costs a few milliseconds (the loaded libraries are inspected), so
    it wraps a run, not a replication.  A limit set by the user (for instance
    ``OMP_NUM_THREADS``) is lowered to one as well, never raised.
    """
    from threadpoolctl import threadpool_limits

    before = _native_threads()
    with threadpool_limits(limits=1):
        if before is not None and before != 1:
            limit_native_threads(1)
        try:
            yield
        finally:
            if before is not None and before != 1:
                limit_native_threads(before)
