"""Running a study: plan chunks, execute them in parallel, store them, resume.

The unit of work is a *chunk*: consecutive replications of one condition.  A
chunk's rows depend only on (study, condition, replication, root seed) through
:mod:`simstudy.engine.seeds`, so its stored file is the same whether it ran
alone, on a loky worker, on a dask worker, or after a crash.  Workers return
rows; only the calling process writes, so a dask cluster needs no shared disk.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import platform
import sys
import time
import traceback
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from .seeds import replication_seed, setup_seed
from .store import RunData, RunStore, default_out
from .study import Study, condition_fields, condition_key, get_study, n_replications_of

__all__ = ["run_study", "replay", "plan_run", "DEFAULT_SEED", "BACKENDS"]

DEFAULT_SEED = 20040707
BACKENDS = ("loky", "dask")
IDENTITY = ("study", "condition", "replication", "seed")
_VERSIONED = ("simstudy", "numpy", "scipy", "scikit-learn", "pandas", "pyarrow", "joblib", "dask", "distributed",
              "scikit-learn-intelex")


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for pkg in _VERSIONED:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def _check_int(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name}: must be an integer >= {minimum}, got {value!r}")
    return int(value)


def plan_run(study: Study, profile: str, seed: int):
    """Conditions, chunk plan, configuration and its hash; validates everything, writes nothing."""
    prof = study.profile(profile)
    conds = study.conditions_for(prof)
    plan = []
    for c in conds:
        key = condition_key(c)
        n = n_replications_of(c, prof)
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
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()
    return conds, plan, config, digest


def _frame(rows, identity: dict, table: str) -> pd.DataFrame:
    df = rows.copy() if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    clash = [c for c in IDENTITY if c in df.columns]
    if clash:
        raise ValueError(f"table {table!r}: rows may not set the identity column(s) {clash}")
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
    identity = {"study": study.name, "condition": key, **condition_fields(condition),
                "replication": replication, "seed": seed}
    return {name: _frame(rows, identity, name) for name, rows in result.items()}, seed, identity


def _setup_state(study: Study, condition, root_seed: int):
    if study.setup is None:
        return None
    return study.setup(condition, np.random.default_rng(setup_seed(root_seed, study.name, condition_key(condition))))


def _run_chunk(study: Study, condition, start: int, stop: int, root_seed: int):
    """Worker: the rows of replications start..stop-1 of one condition; failures become rows."""
    t0 = time.perf_counter()
    key = condition_key(condition)
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
            tables, _, _ = run_replication(study, condition, r, root_seed, state)
        except Exception as exc:
            failures.append({"study": study.name, "condition": key, **condition_fields(condition),
                             "replication": r, "seed": seed, "error": f"{type(exc).__name__}: {exc}",
                             "traceback": "".join(traceback.format_exception(exc))[-4000:]})
            continue
        for name, df in tables.items():
            parts.setdefault(name, []).append(df)
    out = {name: pd.concat(dfs, ignore_index=True) for name, dfs in parts.items()}
    if failures:
        out["failures"] = pd.DataFrame(failures)
    return key, start, stop, out, time.perf_counter() - t0, len(failures)


def _executor(jobs: int, backend: str, scheduler: str | None):
    """A context manager yielding a function that maps chunk tasks to an unordered result iterator."""
    import contextlib

    from joblib import Parallel, delayed, parallel_config

    @contextlib.contextmanager
    def ctx():
        if backend == "dask":
            try:
                from dask.distributed import Client, LocalCluster
            except ImportError:  # pragma: no cover - depends on the extra
                raise ValueError("--backend dask: needs the distributed extra (pip install 'simstudy[distributed]')") from None
            if scheduler:
                client = Client(scheduler)
                cluster = None
            else:
                cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
                client = Client(cluster)
            try:
                with parallel_config(backend="dask"):
                    yield lambda tasks: Parallel(n_jobs=-1, return_as="generator_unordered")(
                        delayed(_run_chunk)(*t) for t in tasks)
            finally:
                client.close()
                if cluster is not None:
                    cluster.close()
        elif jobs == 1:
            yield lambda tasks: (_run_chunk(*t) for t in tasks)
        else:
            with parallel_config(backend="loky", n_jobs=jobs):
                yield lambda tasks: Parallel(n_jobs=jobs, return_as="generator_unordered")(
                    delayed(_run_chunk)(*t) for t in tasks)

    return ctx()


def run_study(study, profile: str = "quick", *, out=None, jobs: int = 1, backend: str = "loky",
              scheduler: str | None = None, seed: int = DEFAULT_SEED, progress: bool = True) -> RunData:
    """Run (or resume) ``study`` at ``profile`` and return its stored rows.

    Everything is validated before anything is written.  An existing run
    directory is resumed when it holds the same configuration (its complete
    chunks are kept, missing or damaged ones recomputed) and refused otherwise.
    """
    study = get_study(study)
    jobs = _check_int(jobs, "--jobs", 1)
    seed = _check_int(seed, "--seed", 0)
    if backend not in BACKENDS:
        raise ValueError(f"--backend: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler and backend != "dask":
        raise ValueError("--scheduler: only meaningful with --backend dask")
    conds, plan, config, digest = plan_run(study, profile, seed)
    path = Path(out) if out is not None else default_out(study.name, profile)
    store = RunStore(path)
    store.check_compatible(digest, config)
    if backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise ValueError("--backend dask: needs the distributed extra (pip install 'simstudy[distributed]')") from None

    old = store.read_manifest() or {}
    manifest = {
        "study": study.name, "title": study.title, "profile": profile, "config": config, "config_hash": digest,
        "root_seed": seed, "n_replications": config["n_replications"], "plan": plan,
        "conditions": [condition_key(c) for c in conds], "versions": _versions(),
        "created": old.get("created", datetime.now(timezone.utc).isoformat(timespec="seconds")),
        "chunks": old.get("chunks", {}), "runs": old.get("runs", []), "status": "running",
    }
    store.write_manifest(manifest)
    store.clean_temporary()

    by_key = {condition_key(c): c for c in conds}
    todo, done = [], set()  # done: chunks verified or written in this call (no second hashing pass)
    for c in plan:
        if store.chunk_ok(c["condition"], c["start"], c["stop"]):
            done.add((c["condition"], c["start"]))
            continue
        store.discard_chunk(c["condition"], c["start"], c["stop"])
        manifest["chunks"].pop(f"{c['condition']}/{c['start']}-{c['stop']}", None)
        todo.append(c)
    total = sum(c["stop"] - c["start"] for c in plan)
    pending = sum(c["stop"] - c["start"] for c in todo)
    run_info = {"started": datetime.now(timezone.utc).isoformat(timespec="seconds"), "jobs": jobs,
                "backend": backend, "chunks_computed": 0, "replications_computed": 0, "host": platform.node(),
                "python": sys.version.split()[0]}
    manifest["runs"].append(run_info)
    t0 = time.perf_counter()

    from tqdm.auto import tqdm

    bar = tqdm(total=total, initial=total - pending, unit="rep", desc=f"{study.name}/{profile}",
               disable=not progress, dynamic_ncols=True, file=sys.stderr,
               mininterval=0.5 if sys.stderr.isatty() else 15.0)  # a log file gets a line every 15 s
    tasks = [(study, by_key[c["condition"]], c["start"], c["stop"], seed) for c in todo]
    n_fail = 0
    last_manifest = time.perf_counter()
    try:
        with _executor(jobs, backend, scheduler) as run_all:
            for key, start, stop, tables, seconds, failed in run_all(tasks):
                meta = store.write_chunk(key, start, stop, tables, {"seconds": round(seconds, 4), "failures": failed})
                manifest["chunks"][f"{key}/{start}-{stop}"] = {"files": meta["files"], "seconds": meta["seconds"],
                                                               "failures": failed}
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
                if failed:
                    bar.set_postfix(failures=n_fail)
    finally:
        bar.close()
        run_info["seconds"] = round(time.perf_counter() - t0, 3)
        run_info["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        manifest["status"] = "complete" if len(done) == len(plan) else "incomplete"
        store.write_manifest(manifest, fsync=True)
    data = RunData(path, manifest)
    data._cache["_ok"] = [c for c in plan if (c["condition"], c["start"]) in done]
    return data


def replay(study, condition: str, replication: int, *, profile: str = "quick", seed: int = DEFAULT_SEED):
    """Re-run one replication in this process, exceptions and all (for debugging a failure row)."""
    study = get_study(study)
    prof = study.profile(profile)
    conds = {condition_key(c): c for c in study.conditions_for(prof)}
    if condition not in conds:
        raise ValueError(f"--condition: {condition!r} is not a condition of {study.name}/{profile}; "
                         f"choose one of {', '.join(conds)}")
    replication = _check_int(replication, "--replication", 0)
    cond = conds[condition]
    tables, _, _ = run_replication(study, cond, replication, seed, _setup_state(study, cond, seed))
    return tables
