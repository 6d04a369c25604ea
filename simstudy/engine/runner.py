"""Running a study: plan chunks, execute them in parallel, store them, resume.

The unit of work is a *chunk*: consecutive replications of one condition.  A
chunk's rows depend only on (study, condition, replication, root seed) through
:mod:`simstudy.engine.seeds`, so its stored file is the same whether it ran
alone, on a loky worker, on a dask worker, or after a crash.  Workers return
rows; only the calling process writes, so a dask cluster needs no shared disk.

What a stored chunk claims is checked, not assumed: it records its identity
(study, condition, range, root seed, configuration hash) and its provenance
(a fingerprint of the code that makes its rows, module by module, and the
versions of the distributions that code uses, see :func:`code_sources`), one
process at a time writes a run directory, and a resume that would mix rows of
different code or versions is refused, naming what changed.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import os
import platform
import re
import sys
import time
import traceback
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Callable

import numpy as np

from simstudy._files import folder_option
from simstudy._lazy import lazy_module
from simstudy.engine.codecheck import (
    code_differences,
    edited_since,
    evict_stale_modules,
    expected_code,
    helper_code_differences,
)
from simstudy.engine.fingerprint import (
    _versions,
    code_fingerprint,
    code_sources,
    provenance,
    provenance_changes,
    source_commit,
    study_file,
)
from simstudy.engine.processes import (
    ExitCalled,
    _closing,
    _die_with_parent,
    _signals_held,
    _start_resource_trackers,
    exit_refused,
    remove_orphaned_shared_memory,
    stop_resource_trackers,
    stop_workers,
)
from simstudy.engine.seeds import replication_seed, setup_seed
from simstudy.engine.store import (
    ConfigMismatch,
    RunData,
    RunLock,
    RunStore,
    StoreError,
    check_folder_names,
    chunk_identity,
    default_out,
    manifest_chunk_key,
    os_error,
    remove_if_unused,
)
from simstudy.engine.study import Study, condition_fields, condition_key, get_study, n_replications_of
from simstudy.engine.threads import (
    NATIVE_THREADS_PLUGIN,
    native_threads_plugin,
    one_thread_per_kernel,
)
from simstudy.errors import InputError, option

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "run_study",
    "check_jobs",
    "connect_scheduler",
    "replay",
    "plan_run",
    "provenance",
    "provenance_changes",
    "code_fingerprint",
    "code_sources",
    "stop_workers",
    "stop_resource_trackers",
    "DEFAULT_SEED",
    "BACKENDS",
    "MAX_JOBS_PER_CPU",
    "CONNECT_TIMEOUT",
    "WorkerCodeMismatch",
    "WorkerDied",
    "check_workers",
    "describe_worker",
    "run_code_changes",
]

DEFAULT_SEED = 20040707
BACKENDS = ("loky", "dask")
IDENTITY = ("study", "condition", "replication", "seed")
MAX_JOBS_PER_CPU = 4  # --jobs above this many per CPU is refused (local workers only)
CONNECT_TIMEOUT = 5.0  # seconds to reach a dask scheduler before giving up


def _check_int(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InputError(f"{name}: must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_jobs(jobs, local: bool) -> int:
    """``--jobs`` must be >= 1 and, for workers on this machine, at most MAX_JOBS_PER_CPU per CPU."""
    jobs = _check_int(jobs, option("jobs"), 1)
    cap = MAX_JOBS_PER_CPU * (os.cpu_count() or 1)
    if local and jobs > cap:
        raise InputError(
            f"{option('jobs')}: at most {cap} workers on this machine ({MAX_JOBS_PER_CPU} per CPU, "
            f"{os.cpu_count()} CPUs), got {jobs}"
        )
    return jobs


def connect_scheduler(scheduler: str, timeout: float = CONNECT_TIMEOUT):
    """A dask client of ``scheduler``, or ValueError on one line (nothing written yet)."""
    import logging

    try:
        from dask.distributed import Client
    except ImportError:  # pragma: no cover - depends on the extra
        raise InputError(
            f"{option('backend', 'dask')}: needs the distributed extra (pip install 'simstudy[distributed]')"
        ) from None
    loggers = [
        logging.getLogger(n) for n in ("distributed", "distributed.client", "distributed.core", "distributed.comm")
    ]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        return Client(scheduler, timeout=timeout)
    except Exception as exc:  # OSError, TimeoutError, ValueError for a malformed address, ...
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(
            f"{option('scheduler')}: cannot reach the dask scheduler at {scheduler} within {timeout:g} s ({msg})"
        ) from None
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def plan_run(study: Study, profile: str, seed: int, *, adaptive: dict | None = None, counts: dict | None = None):
    """Conditions, chunk plan, configuration and its hash; validates everything, writes nothing.

    ``adaptive`` (an :class:`~simstudy.engine.adaptive.AdaptiveRule` as a dict)
    makes the run adaptive: it enters the configuration (and its hash), and
    ``counts`` (condition -> replications planned so far, not hashed) replaces
    each condition's count; a condition without one starts with the rule's
    first stage.
    """
    prof = study.profile(profile)
    conds = study.conditions_for(prof)
    plan = []
    for c in conds:
        key = condition_key(c)
        n = n_replications_of(c, prof)
        if adaptive is not None:
            # a condition with its own count (a bootstrap of fixed size) keeps it; the others start small
            own = getattr(c, "n_replications", None)
            first = own if own is not None else min(adaptive.get("first", n), adaptive["max_replications"])
            n = (counts or {}).get(key, first)
        for start in range(0, n, study.chunk_size):
            plan.append({"condition": key, "start": start, "stop": min(n, start + study.chunk_size)})
    config = {
        "study": study.name,
        "profile": prof.name,
        "n_replications": prof.n_replications,
        "settings": json.loads(json.dumps(prof.settings, sort_keys=True, default=str)),
        "conditions": [repr(c) for c in conds],
        "root_seed": seed,
        "chunk_size": study.chunk_size,
    }
    if adaptive is not None:
        config["adaptive"] = dict(adaptive)
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()
    return conds, plan, config, digest


def _frame(rows, identity: dict, table: str) -> pd.DataFrame:
    df = rows.copy() if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    clash = [c for c in IDENTITY if c in df.columns]
    if clash:
        raise InputError(f"table {table!r}: rows may not set the identity column(s) {clash}")
    for col in reversed(list(identity)):
        if col not in df.columns:
            df.insert(0, col, identity[col])
    return df


def run_replication(study: Study, condition, replication: int, root_seed: int, state=None):
    """One replication's tables (raises whatever the study raises)."""
    key = condition_key(condition)
    seed = replication_seed(root_seed, study.name, key, replication)
    rng = np.random.default_rng(seed)
    result = study.replicate(condition, rng, state) if study.setup is not None else study.replicate(condition, rng)
    if not isinstance(result, dict):
        raise TypeError(f"study {study.name!r}: replicate must return a dict of tables, got {type(result).__name__}")
    identity = {
        "study": study.name,
        "condition": key,
        **condition_fields(condition),
        "replication": replication,
        "seed": seed,
    }
    return {name: _frame(rows, identity, name) for name, rows in result.items()}, seed, identity


def _setup_state(study: Study, condition, root_seed: int):
    if study.setup is None:
        return None
    return study.setup(condition, np.random.default_rng(setup_seed(root_seed, study.name, condition_key(condition))))


def _worker_label(worker=None) -> dict:
    """Where a chunk is computed: the host and process, and the dask worker's address when there is one."""
    info: dict = {"host": platform.node(), "pid": os.getpid()}
    dist = sys.modules.get("distributed")
    if worker is None and dist is not None:
        try:
            worker = dist.get_worker()
        except (ValueError, AttributeError):  # not inside a dask worker's task
            worker = None
    if worker is not None:
        info["address"] = worker.address
    return info


def describe_worker(info: dict) -> str:
    """``tcp://10.0.0.5:40123 (pid 812 on node-3)``, or ``pid 812 on node-3`` for a loky worker."""
    where = f"pid {info.get('pid')} on {info.get('host')}"
    return f"{info['address']} ({where})" if info.get("address") else where


def _run_chunk(
    study: Study, condition, start: int, stop: int, root_seed: int, expect: dict | None = None, catalogue=None
):
    """Worker: the rows of replications start..stop-1 of one condition; failures become rows.

    ``expect`` (:func:`~simstudy.engine.codecheck.expected_code`) is the code
    the rows must come from.  A process other than the one that made it checks
    its own code before and after computing: when one of the user's or the
    studies' modules it holds no longer matches its file it forgets them and
    computes nothing (``stale``: the task is sent again, and imports them
    afresh); when its code differs from ``expect`` it reports how (``differs``)
    and its rows are not used.  ``catalogue`` holds the designs, schemes and tests the user registered in the
    process that planned the run (:func:`simstudy.pipeline.catalogue.user_entries`); they are registered here first.
    """
    t0 = time.perf_counter()
    if catalogue:
        from simstudy.pipeline.catalogue import restore

        restore(catalogue)
    key = condition_key(condition)
    here = expect is None or expect.get("pid") == os.getpid()
    if not here:
        stale = evict_stale_modules()
        if stale:
            return key, start, stop, None, 0.0, 0, {"worker": _worker_label(), "stale": stale}
        differs = code_differences(expect) if expect is not None else []
        if differs:
            return key, start, stop, None, 0.0, 0, {"worker": _worker_label(), "differs": differs}
    parts: dict[str, list[pd.DataFrame]] = {}
    failures = []
    try:
        state = _setup_state(study, condition, root_seed)
        setup_error = None
    except Exception as exc:  # every replication of the chunk fails with the set-up's error
        state, setup_error = None, exc
    for r in range(start, stop):
        seed = replication_seed(root_seed, study.name, key, r)
        try:
            if setup_error is not None:
                raise setup_error
            with exit_refused():  # a replication that ends its process is a failure, not a silent end
                tables, _, _ = run_replication(study, condition, r, root_seed, state)
        except (Exception, ExitCalled) as exc:
            if isinstance(exc, ExitCalled):
                exc = RuntimeError(f"the replication called os._exit({exc.code}) instead of returning its tables")
            failures.append(
                {
                    "study": study.name,
                    "condition": key,
                    **condition_fields(condition),
                    "replication": r,
                    "seed": seed,
                    "error": f"{type(exc).__name__}: {exc}",
                    "traceback": "".join(traceback.format_exception(exc))[-4000:],
                }
            )
            continue
        for name, df in tables.items():
            parts.setdefault(name, []).append(df)
    out = {name: pd.concat(dfs, ignore_index=True) for name, dfs in parts.items()}
    if failures:
        out["failures"] = pd.DataFrame(failures)
    info = {"worker": _worker_label()}
    # modules imported while computing are checked too, and what helper processes (a learner's fit worker) ran
    differs = ([] if here or expect is None else code_differences(expect)) + (
        helper_code_differences(expect) if expect else []
    )
    if differs:
        return key, start, stop, None, 0.0, 0, {**info, "differs": differs}
    return key, start, stop, out, time.perf_counter() - t0, len(failures), info


MAX_RESENDS = 2  # a chunk whose worker forgot stale modules is sent again at most this many times


class WorkerCodeMismatch(ConfigMismatch):
    """A worker computes with other code than the run's (reported on one line, exit code 2)."""


def _worker_refusal(info: dict, *, computed: bool = True, edited=()) -> WorkerCodeMismatch:
    """The one line of a worker whose code differs from the run's: ``edited`` (:func:`edited_since`) names code
    whose files changed since the run started, the cause then, rather than the worker's environment."""
    worker = describe_worker(info.get("worker", {}))
    if edited:
        more = f" and {len(edited) - 3} more" if len(edited) > 3 else ""
        return WorkerCodeMismatch(
            f"the code changed during the run: {'; '.join(edited[:3])}{more} edited since it started, and worker "
            f"{worker} ran the edited code; {'its rows were not stored' if computed else 'nothing was computed'}: "
            f"restore the file to finish this run, or start it anew with the edited code ({option('fresh', True)})"
        )
    if info.get("stale"):
        return WorkerCodeMismatch(
            f"worker {worker} keeps an older copy of {', '.join(info['stale'])} after importing it again; "
            "restart the workers (or the scheduler's cluster) and run the same command again"
        )
    differs = info.get("differs", [])
    more = f" and {len(differs) - 3} more" if len(differs) > 3 else ""
    return WorkerCodeMismatch(
        f"worker {worker} runs other code or versions than this run ({'; '.join(differs[:3])}{more} differ); "
        f"{'its rows were not stored' if computed else 'nothing was computed'}: start the workers from this "
        "environment and run the same command again"
    )


class WorkerDied(StoreError):
    """A worker process ended without returning its chunk (reported on one line, exit code 2; the run resumes)."""


def _worker_death(exc: BaseException) -> str | None:
    """What ended a worker, when ``exc`` says a worker process died (loky's or dask's), else None."""
    kinds = []
    loky = sys.modules.get("joblib.externals.loky.process_executor")
    if loky is not None:
        kinds += [getattr(loky, "TerminatedWorkerError", None), getattr(loky, "BrokenProcessPool", None)]
    dist = sys.modules.get("distributed.scheduler") or sys.modules.get("distributed")
    if dist is not None:
        kinds.append(getattr(dist, "KilledWorker", None))
    if not any(k is not None and isinstance(exc, k) for k in kinds):
        return None
    text = " ".join(str(exc).split())
    code = re.search(r"exit codes? of the workers? (?:are|is) (\{[^}]*\}|\S+)", text)
    return f"{type(exc).__name__}, exit code {code.group(1)}" if code else type(exc).__name__


def _executor(jobs: int, backend: str, client=None):
    """A context manager yielding a function that maps chunk tasks to an unordered result iterator.

    ``client``: a dask client already connected to a scheduler (else dask
    starts a local cluster).  Loky workers die with this process
    (:func:`_die_with_parent`).  A task whose worker reports stale modules
    (see :func:`_run_chunk`) is sent again, at most :data:`MAX_RESENDS` times;
    the results yielded are final.
    """
    import contextlib

    @contextlib.contextmanager
    def ctx():
        if backend == "dask":
            cluster = None
            own = client
            if own is None:
                try:
                    from dask.distributed import Client, LocalCluster
                except ImportError:  # pragma: no cover - depends on the extra
                    raise InputError(
                        f"{option('backend', 'dask')}: needs the distributed extra "
                        "(pip install 'simstudy[distributed]')"
                    ) from None
                cluster = LocalCluster(
                    n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
                )
                own = Client(cluster)
            own.register_plugin(native_threads_plugin(), name=NATIVE_THREADS_PLUGIN)
            try:
                yield lambda tasks: _dask_results(own, tasks)
            finally:
                if cluster is not None:
                    own.close()
                    cluster.close()
        elif jobs == 1:
            with one_thread_per_kernel():
                yield lambda tasks: (_run_chunk(*t) for t in tasks)
        else:
            from joblib import Parallel, delayed, parallel_config

            initializer, initargs = _die_with_parent()
            with parallel_config(backend="loky", n_jobs=jobs, initializer=initializer, initargs=initargs):
                with _closing() as keep:

                    def one_round(tasks):
                        _start_resource_trackers()  # before holding: starting one releases the signals
                        with _signals_held():  # the workers and loky's threads start with them held
                            return keep(
                                Parallel(n_jobs=jobs, return_as="generator_unordered")(
                                    delayed(_run_chunk)(*t) for t in tasks
                                )
                            )

                    def start(tasks):
                        by_chunk = {(condition_key(t[1]), t[2]): t for t in tasks}
                        for attempt in range(MAX_RESENDS + 1):
                            again = []
                            for result in one_round(tasks):
                                info = result[6]
                                if info.get("stale") and attempt < MAX_RESENDS:
                                    again.append(by_chunk[(result[0], result[1])])
                                    continue
                                yield result
                            if not again:
                                return
                            tasks = again

                    yield start

    return ctx()


def _dask_results(client, tasks):
    """Each task's result as it completes on the scheduler's workers (never computed in this process)."""
    import uuid

    from dask.distributed import as_completed

    run = uuid.uuid4().hex[:12]
    sent = {}

    count = iter(range(1 << 62))

    def send(task, attempt):
        future = client.submit(_run_chunk, *task, pure=False, key=f"simstudy-{run}-{next(count)}")
        sent[future.key] = (future, task, attempt)
        return future

    pending = as_completed([send(t, 0) for t in tasks])
    try:
        for future in pending:
            result = future.result()
            _, task, attempt = sent.pop(future.key)
            if result[6].get("stale") and attempt < MAX_RESENDS:
                pending.add(send(task, attempt + 1))
                continue
            yield result
    finally:
        if sent:  # stopped early: what is queued or running is of no use any more
            client.cancel([f for f, _, _ in sent.values()])


def check_workers(client, study: Study, expect: dict) -> dict:
    """Every worker of a dask cluster checked against ``expect`` before it computes anything.

    Each worker first forgets stale modules of the user's and the studies'
    (:func:`~simstudy.engine.codecheck.evict_stale_modules`), then compares
    its code, loaded or on its disk, and its versions with the run's.  Raises
    :class:`WorkerCodeMismatch` naming the first worker that differs; returns
    ``{address: worker label}`` of the workers found.
    """
    if not client.scheduler_info().get("workers"):
        raise InputError(
            f"{option('scheduler')}: the scheduler has no workers; start some (dask worker ADDRESS) and run the "
            "same command again"
        )
    try:
        client.run(evict_stale_modules)
        found = client.run(_check_here, study, expect)
    except Exception as exc:  # a worker that cannot even run the check (another simstudy, a broken environment)
        raise WorkerCodeMismatch(
            f"{option('scheduler')}: a worker cannot check its code against this run ({type(exc).__name__}: "
            f"{' '.join(str(exc).split())[:200]}); nothing was computed: start the workers from this environment"
        ) from None
    for address, (info, differs) in sorted(found.items()):
        if differs:
            raise _worker_refusal({"worker": {**info, "address": address}, "differs": differs}, computed=False)
    return {address: {**info, "address": address} for address, (info, _) in found.items()}


def _check_here(study, expect, dask_worker=None):
    """On a worker: where it is, and how its code differs from ``expect`` (files on its disk included)."""
    return _worker_label(dask_worker), code_differences(expect, on_disk=True)


def run_study(
    study,
    profile: str = "quick",
    *,
    out=None,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    seed: int = DEFAULT_SEED,
    progress: bool | Callable = True,
    fresh: bool = False,
    target_mcse: float | None = None,
    max_replications: int | None = None,
    step: int | None = None,
) -> RunData:
    """Run (or resume) ``study`` at ``profile`` and return its stored rows.

    Everything is validated, and a dask scheduler reached, before anything is
    written.  Then the run directory is locked (one writer at a time: a second
    run into it is refused with :class:`~simstudy.engine.store.RunLocked`).  An
    existing run directory is resumed when it holds the same configuration and
    was produced by the same code and package versions (see :func:`provenance`):
    its verified chunks are kept; missing, damaged or foreign chunks (whose
    recorded identity is not this run's) are recomputed.  Otherwise the run is
    refused with :class:`~simstudy.engine.store.ConfigMismatch` naming what
    differs, unless ``fresh``: then the existing directory is renamed to
    ``OUT.replaced-STAMP`` (never deleted) and the run starts afresh.  A rerun
    of a complete run with changed code computes nothing and is allowed.

    Failures to write (read-only directory, full disk) raise
    :class:`~simstudy.engine.store.StoreError` with one line; what was stored
    before stays valid and the same command resumes.

    With ``target_mcse`` the run is adaptive (see :mod:`simstudy.engine.adaptive`):
    each condition starts with the profile's replications and grows by as many
    again until the Monte Carlo standard error of every target is at most
    ``target_mcse``, or it reaches ``max_replications`` (default ten times the
    profile's); ``step`` replaces the profile's count as the size of the first
    stage and of every later one.  A condition with its own count (a bootstrap
    of fixed size) and no targets keeps its count.  The rule is part of the configuration; the replications used and
    the MCSE reached per condition are recorded in the manifest (``adaptive``).
    A study that declares its own rule (:attr:`Study.adaptive
    <simstudy.engine.study.Study.adaptive>`) runs with it when none is given.

    ``progress`` is True (a progress bar on standard error), False, or a
    callable ``progress(new, stored, planned)`` called when the run starts
    (``new`` 0) and after every chunk stored (``new`` its replications), with
    the replications stored before it and those planned in the current stage;
    the caller then draws its own display.
    """
    study = _current_study(study)
    if target_mcse is None and max_replications is None and step is None and study.adaptive is not None:
        own = study.adaptive(study.profile(profile))
        if own:
            target_mcse, max_replications = own["target_mcse"], own["max_replications"]
    if backend not in BACKENDS:
        raise InputError(f"{option('backend')}: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler and backend != "dask":
        raise InputError(f"{option('scheduler')}: only meaningful with {option('backend', 'dask')}")
    jobs = check_jobs(jobs, local=not scheduler)
    seed = _check_int(seed, option("seed"), 0)
    rule = _adaptive_rule(study, profile, target_mcse, max_replications, step)
    conds, plan, config, digest = plan_run(
        study, profile, seed, adaptive=rule.as_config() if rule is not None else None
    )
    path = folder_option(out, option("out")) if out is not None else default_out(study.name, profile)
    store = RunStore(path)
    store.check_target()
    check_folder_names(path, sorted({c["condition"] for c in plan}))
    created = next((p for p in reversed((path, *path.parents)) if not p.exists()), None)  # first folder this makes
    if backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise InputError(
                f"{option('backend', 'dask')}: needs the distributed extra (pip install 'simstudy[distributed]')"
            ) from None
    prov = provenance(study)
    remove_orphaned_shared_memory()  # what runs killed with their workers left behind (nothing of a live one)
    client = connect_scheduler(scheduler) if scheduler else None
    try:
        if client is not None:  # a worker of another environment, or holding older code, computes nothing
            check_workers(client, study, expected_code(study, prov))
        lock = RunLock(path)
        try:
            lock.acquire(command=" ".join(sys.argv))
        except OSError as exc:
            raise os_error(exc, path) from None
        try:
            if fresh:
                try:
                    moved = store.move_aside()
                except OSError as exc:
                    raise os_error(exc, path) from None
                if moved is not None:
                    print(f"simstudy: moved the earlier run in {path} to {moved}", file=sys.stderr)
                    lock.release()  # the lock moved with it; lock the new directory
                    lock = RunLock(path)
                    lock.acquire(command=" ".join(sys.argv))
            if rule is not None:
                return _run_adaptive(
                    study,
                    profile,
                    store,
                    rule,
                    seed,
                    prov,
                    jobs=jobs,
                    backend=backend,
                    client=client,
                    progress=progress,
                )
            return _run_locked(
                study,
                profile,
                store,
                conds,
                plan,
                config,
                digest,
                seed,
                prov,
                jobs=jobs,
                backend=backend,
                client=client,
                progress=progress,
            )
        except OSError as exc:
            raise os_error(exc, path) from None
        finally:
            lock.release()
    except (ValueError, OSError):
        if created is not None:
            remove_if_unused(created, path)  # a refusal before anything was stored leaves nothing behind
        raise
    finally:
        if client is not None:
            client.close()


def _adaptive_rule(study, profile: str, target_mcse, max_replications, step):
    """The adaptive rule of :func:`run_study`'s ``target_mcse``, ``max_replications`` and ``step`` (None: a run of
    the profile's replications), each checked."""
    if target_mcse is None and max_replications is None:
        if step is not None:
            raise InputError(f"{option('step')}: only meaningful with {option('target_mcse')}")
        return None
    from simstudy.engine.adaptive import AdaptiveRule

    if target_mcse is None:
        raise InputError(f"{option('max_replications')}: only meaningful with {option('target_mcse')}")
    n0 = study.profile(profile).n_replications
    cap = max_replications if max_replications is not None else 10 * n0
    if step is not None:
        if isinstance(step, bool) or not isinstance(step, numbers.Integral) or step < 1:
            raise InputError(f"{option('step')}: must be a positive integer, got {step!r}")
        n0 = step
    return AdaptiveRule(target_mcse, cap, min(n0, cap) if isinstance(cap, numbers.Integral) else n0, n0)


def _run_adaptive(study, profile, store, rule, seed, prov, *, jobs, backend, client, progress) -> RunData:
    """Stages of :func:`_run_locked`, each condition grown until its targets are precise enough.

    Every stage starts from the first: on a resumed run the stored stages are
    re-read (nothing is recomputed) and decided again from the same rows, so the
    run stops where an uninterrupted one would.
    """
    from simstudy.engine.adaptive import stage_decisions

    counts = None
    while True:
        conds, plan, config, digest = plan_run(study, profile, seed, adaptive=rule.as_config(), counts=counts)
        if counts is None:
            counts = {c["condition"]: 0 for c in plan}
            for c in plan:
                counts[c["condition"]] = max(counts[c["condition"]], c["stop"])
        data = _run_locked(
            study,
            profile,
            store,
            conds,
            plan,
            config,
            digest,
            seed,
            prov,
            jobs=jobs,
            backend=backend,
            client=client,
            progress=progress,
            extra={"counts": dict(counts)},
        )
        if not data.complete:
            return data
        state = stage_decisions(study, data, counts, rule)
        grow = {
            k: min(rule.max_replications, counts[k] + rule.step)
            for k, s in state.items()
            if not s["converged"] and counts[k] < rule.max_replications
        }
        # the decision of this stage, for `simstudy status` while the next one runs, and the final record
        data.manifest["adaptive"] = {
            "rule": rule.describe(),
            **rule.as_config(),
            "finished": not grow,
            "conditions": state,
        }
        store.write_manifest(data.manifest, fsync=True)
        if not grow:
            return data
        counts.update(grow)


def _run_locked(
    study, profile, store, conds, plan, config, digest, seed, prov, *, jobs, backend, client, progress, extra=None
) -> RunData:
    """The body of :func:`run_study`, with the run directory locked: the manifest, what is stored, whether this
    code may add to it, then the missing chunks computed and stored."""
    old = store.read_manifest()
    store.check_compatible(digest, config)
    store.clean_temporary()
    versions = _versions()
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    old = old or {}
    # The provenance every chunk of this directory must carry: the first run's.
    run_prov = old.get("provenance") if old else prov
    manifest = _manifest(study, profile, conds, plan, config, digest, seed, old, versions, run_prov, now, extra)
    todo, done, discarded = _stored_chunks(store, manifest, plan, run_prov)
    todo, run_prov, changes = _may_add(store, manifest, plan, todo, done, discarded, run_prov, prov)
    manifest["provenance"] = run_prov
    for c in todo:
        store.discard_chunk(c["condition"], c["start"], c["stop"])
        manifest["chunks"].pop(manifest_chunk_key(c["condition"], c["start"], c["stop"]), None)
    run_info = {
        "started": now,
        "jobs": jobs,
        "backend": backend,
        "chunks_computed": 0,
        "replications_computed": 0,
        "chunks_discarded": discarded,
        "host": platform.node(),
        "pid": os.getpid(),
        "python": sys.version.split()[0],
        "versions": versions,
        "code": prov["code"],
        "commit": source_commit(),  # of simstudy's source tree, when it is a git checkout
        "study_file": str(study_file(study) or ""),
    }
    if changes:  # a complete run read with other code: it is what it is, and says so (see run_code_changes)
        run_info["code_changed"] = changes
    manifest["runs"].append(run_info)
    manifest["status"] = "running"
    store.write_manifest(manifest)
    expect = expected_code(study, prov) if todo else None
    from simstudy.pipeline.catalogue import user_entries

    catalogue = user_entries()  # a design, scheme or test the user registered, for the workers
    by_key = {condition_key(c): c for c in conds}
    tasks = [(study, by_key[c["condition"]], c["start"], c["stop"], seed, expect, catalogue) for c in todo]
    desc = f"{study.name}/{profile}"
    _compute(tasks, store, manifest, done, run_info, prov, expect, desc=desc, progress=progress, client=client)
    data = RunData(store.path, manifest)
    data._cache["_ok"] = [c for c in plan if (c["condition"], c["start"]) in done]
    return data


def _manifest(study, profile, conds, plan, config, digest, seed, old, versions, run_prov, now, extra) -> dict:
    """The run's manifest: this configuration and plan, with what the stored one recorded (versions, creation,
    chunks, earlier runs)."""
    manifest = {
        "study": study.name,
        "title": study.title,
        "profile": profile,
        "config": config,
        "config_hash": digest,
        "root_seed": seed,
        "n_replications": config["n_replications"],
        "plan": plan,
        "conditions": [condition_key(c) for c in conds],
        "versions": old.get("versions", versions),
        "provenance": run_prov,
        "created": old.get("created", now),
        "chunks": old.get("chunks", {}),
        "runs": old.get("runs", []),
        "status": old.get("status", "running"),
        **(extra or {}),
    }
    if "adaptive" in old and "adaptive" not in manifest:  # a finished adaptive run re-read: keep its record
        manifest["adaptive"] = old["adaptive"]
    return manifest


def _stored_chunks(store, manifest, plan, run_prov) -> tuple[list, set, dict]:
    """The chunks of ``plan`` to compute, those stored and verified (no second hashing pass later), and how
    many stored ones were discarded, by state."""
    todo, done = [], set()
    discarded: dict[str, int] = {}
    for c in plan:
        state = store.chunk_state(
            c["condition"],
            c["start"],
            c["stop"],
            chunk_identity(manifest, c["condition"], c["start"], c["stop"]),
            run_prov,
        )
        if state == "ok":
            done.add((c["condition"], c["start"]))
            continue
        if state != "missing":
            discarded[state] = discarded.get(state, 0) + 1
        todo.append(c)
    return todo, done, discarded


def _may_add(store, manifest, plan, todo, done, discarded, run_prov, prov) -> tuple[list, dict, list]:
    """Whether this code may add to the stored rows: ``(todo, provenance, changes)``.

    Rows made by other code or package versions are never mixed with this code's: a run whose stored chunks
    hold only failures is computed again whole with this code; one with rows to add to is refused
    (ConfigMismatch); a complete one is read as it is, its changes recorded."""
    changes = provenance_changes(run_prov, prov)
    failed = {}  # stored chunks with failure rows: replications that failed under the stored run's code
    if changes:
        for c in plan:
            if (c["condition"], c["start"]) in done:
                n = _chunk_failures(store, manifest, c)
                if n:
                    failed[(c["condition"], c["start"])] = (n, c["stop"] - c["start"])
    if changes and not discarded and all(n == size for n, size in failed.values()) and len(failed) == len(done):
        # nothing stored but failures (or nothing at all): no rows to mix, so the failed chunks are computed
        # again with this code
        done.clear()
        return list(plan), prov, []
    if changes and (todo or failed):
        n_failed = sum(n for n, _ in failed.values())
        why = (
            f"; {n_failed} of its replications failed with that code and computing them again with this code"
            if n_failed
            else "; resuming"
        )
        raise ConfigMismatch(
            f"{option('out')}: {store.path} holds rows computed by other code or package versions (changed: "
            f"{', '.join(changes)}){why} would mix them: use {option('fresh', True)} to move that run aside and "
            f"start again, or another {option('out')}"
        )
    return todo, run_prov, changes


def _progress_bar(desc: str, total: int, pending: int, progress):
    """The progress bar (ETA) over the whole plan, starting at what is stored; a caller with its own display
    (``progress`` callable) is told what is stored and what this stage plans instead."""
    from tqdm.auto import tqdm

    bar = tqdm(
        total=total,
        initial=total - pending,
        unit="rep",
        desc=desc,
        disable=not progress or callable(progress),
        dynamic_ncols=True,
        file=sys.stderr,
        mininterval=0.5 if sys.stderr.isatty() else 15.0,
    )  # a log file gets a line every 15 s
    if callable(progress):
        progress(0, total - pending, total)
    return bar


def _compute(tasks, store, manifest, done, run_info, prov, expect, *, desc, progress, client) -> None:
    """Compute ``tasks`` (one per chunk to compute: study, condition, start, stop, ...) and store each chunk as it
    arrives, adding it to ``done``; the manifest is written at most once a second and always at the end, complete
    or not, even when a worker dies."""
    plan = manifest["plan"]
    total = sum(c["stop"] - c["start"] for c in plan)
    pending = sum(stop - start for _, _, start, stop, *_ in tasks)
    t0 = time.perf_counter()
    bar = _progress_bar(desc, total, pending, progress)
    n_fail = 0
    workers: dict[str, int] = run_info.setdefault("workers", {})  # where the replications were computed
    last_manifest = time.perf_counter()
    ok = False
    try:
        if tasks:
            with _executor(run_info["jobs"], run_info["backend"], client) as run_all:
                for key, start, stop, tables, seconds, failed, info in run_all(tasks):
                    if info.get("stale") or info.get("differs"):
                        raise _worker_refusal(
                            info, edited=edited_since(expect) if expect and info.get("differs") else ()
                        )
                    where = describe_worker(info["worker"])
                    workers[where] = workers.get(where, 0) + stop - start
                    meta = store.write_chunk(
                        key,
                        start,
                        stop,
                        tables,
                        {"seconds": round(seconds, 4), "failures": failed, "worker": info["worker"]},
                        identity=chunk_identity(manifest, key, start, stop),
                        provenance=prov,
                    )
                    manifest["chunks"][manifest_chunk_key(key, start, stop)] = {
                        "files": meta["files"],
                        "seconds": meta["seconds"],
                        "failures": failed,
                    }
                    run_info["chunks_computed"] += 1
                    run_info["replications_computed"] += stop - start
                    run_info["seconds"] = round(time.perf_counter() - t0, 3)
                    n_fail += failed
                    done.add((key, start))
                    # The chunk directories are the record of what is done; the manifest's copy of their
                    # checksums is refreshed at most once a second, and always at the end.
                    if time.perf_counter() - last_manifest > 1.0:
                        store.write_manifest(manifest)
                        last_manifest = time.perf_counter()
                    bar.update(stop - start)
                    if callable(progress):
                        progress(stop - start, total - pending, total)
                    if failed:
                        bar.set_postfix(failures=n_fail)
        ok = True
    except Exception as exc:
        died = _worker_death(exc)
        if died is None:
            raise
        raise WorkerDied(
            f"a worker process ended abruptly ({died}): a replication that ends its process, crashes or is "
            "killed for memory; the chunks stored so far are kept and the same command resumes; `simstudy "
            "replay STUDY --condition C --replication R` runs one replication in the calling process"
        ) from None
    finally:
        bar.close()
        run_info["seconds"] = round(time.perf_counter() - t0, 3)
        run_info["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        manifest["status"] = "complete" if len(done) == len(plan) else "incomplete"
        try:
            store.write_manifest(manifest, fsync=True)
        except OSError:
            if ok:
                raise
            # already failing (e.g. the disk is full): keep that error; the chunks are the record


def _current_study(study) -> Study:
    """The study named or given by path, loaded from its files as they are now.

    In a long-lived process (a notebook, a test session) a module of the
    user's or of the built-in studies may have been edited since it was
    imported: those modules are forgotten and the study file is read again,
    so that the code that runs is the code on disk, and the fingerprint says
    so.  A :class:`Study` object is taken as it is: it holds the code it was
    made with, and its fingerprint is of that code.
    """
    from simstudy.engine.study import forget_study_files

    if not isinstance(study, Study) and evict_stale_modules():
        forget_study_files()
    return get_study(study)


def _chunk_failures(store: RunStore, manifest: dict, c: dict) -> int:
    """How many replications of a stored chunk failed (from the manifest, else from its ``chunk.json``)."""
    entry = manifest["chunks"].get(manifest_chunk_key(c["condition"], c["start"], c["stop"]))
    if isinstance(entry, dict) and isinstance(entry.get("failures"), int):
        return entry["failures"]
    meta = store.chunk_meta(c["condition"], c["start"], c["stop"]) or {}
    return int(meta.get("failures") or 0)


def run_code_changes(run: RunData) -> list[str]:
    """What differs between the code that made a complete run's rows and the code that last read it (empty if none)."""
    last = (run.manifest.get("runs") or [{}])[-1]
    return list(last.get("code_changed") or [])


def replay(study, condition: str, replication: int, *, profile: str = "quick", seed: int = DEFAULT_SEED):
    """Re-run one replication in this process, exceptions and all (for debugging a failure row)."""
    study = _current_study(study)
    prof = study.profile(profile)
    conds = {condition_key(c): c for c in study.conditions_for(prof)}
    if condition not in conds:
        raise InputError(
            f"{option('condition')}: {condition!r} is not a condition of {study.name}/{profile}; "
            f"choose one of {', '.join(conds)}"
        )
    cond = conds[condition]
    n = n_replications_of(cond, prof)
    if isinstance(replication, numbers.Integral) and not isinstance(replication, bool) and not 0 <= replication < n:
        raise InputError(
            f"{option('replication')}: {replication} is out of range; condition {condition} of "
            f"{study.name}/{profile} has replications 0 to {n - 1}"
        )
    replication = _check_int(replication, option("replication"), 0)
    tables, _, _ = run_replication(study, cond, replication, seed, _setup_state(study, cond, seed))
    return tables
