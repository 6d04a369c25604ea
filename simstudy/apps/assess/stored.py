"""A finished assessment read back without fitting: the stored run found without taking its lock
(:func:`_finished_run`), the same run seen through another metric, scored from its stored outputs
(:class:`RescoredRun`), :func:`load_assessment`, and the per-split scores of a folder alone
(:func:`assessment_scores`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from simstudy._files import DEFAULT_ROOT
from simstudy._lazy import lazy_module
from simstudy.apps.assess.assessment import Assessment, _assessment, _score_names
from simstudy.apps.assess.checks import check_rope
from simstudy.apps.assess.data import as_dataset, check_metric_for
from simstudy.apps.assess.designs import DEFAULT_DESIGNS, DEFAULT_REPEATS, designs_for_data
from simstudy.apps.assess.errors import _first_line
from simstudy.apps.assess.learners import named_learners, parse_learner, wants_worker
from simstudy.apps.assess.study import ASSESS_PROFILE, _comparisons, assessment_study
from simstudy.apps.assess.tables import _score_columns, stored_metric
from simstudy.errors import InputError, StoredDataError, option
from simstudy.pipeline.scores import check_metric

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


def _absolute(path):
    """``path`` made absolute against the working directory now (None stays None).

    Every path an assessment writes or reads is fixed so before any user code
    runs: a learner may change the working directory (``os.chdir`` in its
    import or its ``fit``), and the assessment must still be stored, and said
    to be stored, where it was asked to be.
    """
    return None if path is None else Path(path).absolute()


def _scratch_folder():
    """A run folder in a new temporary directory, and the directory (removed when it is no longer referenced):
    where an assessment asked for no folder is stored while its result lives."""
    import tempfile

    scratch = tempfile.TemporaryDirectory(prefix="simstudy-assess-")
    return Path(scratch.name) / "run", scratch


def _finished_run(study, out, seed):
    """The stored run in ``out`` when it is this very assessment and complete, read without taking the lock.

    Re-reading a finished assessment writes nothing, so it also works in a
    read-only folder.  None when there is no such run (nothing stored, another
    configuration or seed, or chunks missing or damaged): then
    :func:`~simstudy.engine.run_study` takes over, with its lock, to resume,
    recompute or refuse.
    """
    from simstudy.engine import load_run
    from simstudy.engine.runner import plan_run
    from simstudy.engine.store import RunStore, StoreError

    try:
        manifest = RunStore(Path(out)).read_manifest()
    except (StoreError, OSError):
        return None
    if (
        manifest is None
        or manifest.get("study") != study.name
        or manifest.get("profile") != ASSESS_PROFILE
        or manifest.get("root_seed") != seed
        or manifest.get("status") != "complete"
    ):
        return None
    _, _, _, digest = plan_run(study, ASSESS_PROFILE, seed)
    if manifest.get("config_hash") != digest:
        return None
    try:
        run = load_run(study, profile=ASSESS_PROFILE, out=out)
        return run if run.complete else None
    except (
        ValueError,
        StoredDataError,
        OSError,
    ):  # the plan does not match, or a chunk cannot be read: let run_study decide
        return None


def _refuse_other_data(study, out, seed) -> None:
    """Refuse, naming the cause, an ``out`` that holds an assessment of other data, before anything is fitted.

    :func:`~simstudy.engine.run_study` refuses every other configuration, but
    can only say which setting differs; a data file replaced under the same
    name (same ``data``, another content hash) or other data is said so here.
    Nothing when ``out`` holds no assessment, or one of this very data.
    """
    from simstudy.engine.runner import plan_run
    from simstudy.engine.store import ConfigMismatch, RunStore, StoreError

    try:
        manifest = RunStore(Path(out)).read_manifest()
    except (StoreError, OSError):
        return  # run_study says what is wrong with the folder
    if manifest is None or manifest.get("study") != study.name:
        return
    _, _, config, digest = plan_run(study, ASSESS_PROFILE, seed)
    old, new = manifest.get("config", {}).get("settings", {}), config["settings"]
    if manifest.get("config_hash") == digest or old.get("data_sha256") in (None, new.get("data_sha256")):
        return
    then, now = str(old["data_sha256"])[:12], str(new.get("data_sha256"))[:12]
    if old.get("data") == new.get("data"):
        what = (
            f"replaced data: it holds an assessment of {new.get('data')} as its content was then "
            f"(sha256 {then}...), and that content has changed since (now {now}...); use another {option('out')}, or "
            f"assess again with {option('fresh', True)} to move that assessment aside and assess the data as it is"
        )
    else:
        what = (
            f"other data: it holds an assessment of {old.get('data')} (sha256 {then}...), not of {new.get('data')}; "
            f"use another {option('out')}, or assess again with {option('fresh', True)} to move that assessment aside"
        )
    raise ConfigMismatch(f"{option('out')}: {out}: {what}")


def _unreadable(study, out, manifest: dict) -> str:
    """Why the stored run in ``out`` of ``study`` (its manifest ``manifest``, of this very configuration and seed)
    cannot be read as a finished assessment: unfinished, a chunk missing, computed for another run or chunk, or
    a damaged table (failing its checksum, or another chunk's), named."""
    from simstudy.engine import load_run
    from simstudy.engine.store import CHUNK_META, manifest_chunk_key, sha256_file

    plan = manifest.get("plan", [])
    if manifest.get("status") != "complete":
        return f"it is unfinished ({len(_stored_chunks(manifest))} of {len(plan)} chunks stored)"
    try:
        run = load_run(study, profile=ASSESS_PROFILE, out=out)
    except (ValueError, StoredDataError, OSError) as exc:
        return _first_line(exc)
    recorded = manifest.get("chunks") or {}
    for c in plan:
        cond, start, stop = c["condition"], c["start"], c["stop"]
        key = manifest_chunk_key(cond, start, stop)
        state = run.chunk_states()[(cond, start)]
        if state == "missing":
            return f"chunk {key} is missing"
        meta = run.store.chunk_meta(cond, start, stop)
        if state == "foreign":
            ident = (meta or {}).get("identity") or {}
            other = manifest_chunk_key(ident.get("condition"), ident.get("start"), ident.get("stop"))
            if ident.get("config_hash") == manifest.get("config_hash") and other != key:
                return f"chunk {key} holds chunk {other}'s rows (the chunks were swapped or copied)"
            return f"chunk {key} was computed for another run (another seed, configuration or code)"
        if state != "damaged":
            continue
        if meta is None:
            return f"damaged table: chunk {key} has no readable {CHUNK_META}"
        for fname, digest in sorted(meta["files"].items()):
            try:
                actual = sha256_file(run.store.chunk_dir(cond, start, stop) / fname)
            except OSError:
                return f"damaged table: the {fname[: -len('.parquet')]} table of chunk {key} cannot be read"
            if actual == digest:
                continue
            table = fname[: -len(".parquet")]
            owner = [k for k, v in recorded.items() if k != key and (v.get("files") or {}).get(fname) == actual]
            if owner:
                return f"damaged table: the {table} table of chunk {key} is chunk {owner[0]}'s (swapped or copied)"
            return (
                f"damaged table: the {table} table of chunk {key} fails its checksum (truncated or changed since it "
                "was stored)"
            )
        return f"damaged table: a table of chunk {key} fails its checksum"
    return "it cannot be read as a finished assessment"


def _stored_chunks(manifest: dict) -> list[dict]:
    """The chunks a manifest records as stored: ``condition``, ``start``, ``stop`` (from its plan)."""
    from simstudy.engine.store import manifest_chunk_key

    stored = manifest.get("chunks") or {}
    return [c for c in manifest.get("plan", []) if manifest_chunk_key(c["condition"], c["start"], c["stop"]) in stored]


def _other_metric(data, a, b, designs, n_repeats, tests, out, seed, metric):
    """``(study, run)`` of the finished assessment in ``out`` of the same data, learners, designs, tests and seed
    fitted for another metric, seen through ``metric`` (:class:`RescoredRun`); None when there is none."""
    from simstudy.engine.store import RunStore, StoreError

    try:
        manifest = RunStore(Path(out)).read_manifest()
    except (StoreError, OSError):
        return None
    if manifest is None:
        return None
    from simstudy.engine.runner import plan_run

    stored = str(manifest.get("config", {}).get("settings", {}).get("metric", "accuracy"))
    if stored == metric:
        return None
    # nothing is fitted: a contained learner is not even loaded
    study = assessment_study(data, a, b, designs, n_repeats=n_repeats, tests=tests, metric=stored, fitting=False)
    if (manifest.get("study"), manifest.get("profile"), manifest.get("config_hash")) != (
        study.name,
        ASSESS_PROFILE,
        plan_run(study, ASSESS_PROFILE, seed)[3],
    ):
        return None  # not this assessment fitted for another metric: run_study refuses it, saying what differs
    run = _finished_run(study, out, seed)
    if run is None or "predictions" not in run.tables():
        why = _unreadable(study, out, manifest) if run is None else "it holds no predictions table"
        raise InputError(
            f"{option('metric')}: the assessment in {out} was fitted for {stored} and cannot be scored by {metric} "
            f"from its stored outputs: {why}; the same assessment with {option('metric', stored)} recomputes what is "
            f"missing or damaged (then {metric} scores it without fitting), or {option('fresh', True)} fits it again "
            f"for {metric}"
        )
    try:
        comparisons = _comparisons(data, a, b, designs, tests, metric, fitting=False)
        return study, RescoredRun(run, comparisons, data.y.size, metric)
    except ValueError as exc:
        raise InputError(
            f"{option('metric')}: the assessment in {out} was fitted for {stored} and cannot be scored by {metric} "
            f"from its stored outputs ({_first_line(exc)}); {option('fresh', True)} fits it again for {metric}"
        ) from None


class RescoredRun:
    """A stored assessment seen through another metric: its ``scores`` and ``outcomes`` computed again from its
    stored ``predictions`` (:func:`simstudy.pipeline.comparison.rescore`), everything else as stored.

    The manifest's settings name the metric the tables now hold; ``fitted_metric`` the one it was fitted for.
    """

    def __init__(self, run, comparisons: dict, n_cases: int, metric: str):
        import copy

        from simstudy.pipeline.comparison import rescore

        self._run = run
        self.fitted_metric = stored_metric(run)
        self.manifest = copy.deepcopy(run.manifest)
        self.manifest.setdefault("config", {}).setdefault("settings", {})["metric"] = metric
        pred = run.table("predictions")
        first = run.table("scores")
        ident = list(first.columns[: list(first.columns).index("seed") + 1])
        parts = {"scores": [], "outcomes": []}
        for (cond, _), rows in pred.groupby(["condition", "replication"], sort=False, observed=True):
            comp = comparisons[str(cond)]
            fits = rescore(dataclasses.replace(comp, metric=metric), rows, n_cases)
            head = rows.iloc[0][ident]
            for name, table in (("scores", fits.scores()), ("outcomes", fits.outcomes())):
                parts[name].append(table.assign(**head.to_dict())[ident + list(table.columns)])
        self._tables = {k: pd.concat(v, ignore_index=True) for k, v in parts.items()}

    def table(self, name: str):
        return self._tables[name] if name in self._tables else self._run.table(name)

    def __getattr__(self, name):
        return getattr(self._run, name)


def assessment_scores(folder) -> pd.DataFrame:
    """The per-split scores of a stored assessment, from its folder alone (no data, no learners needed).

    Columns: ``design``, ``repeat``, ``run``, ``fold``, then the two learners'
    scores under their labels as the assessment recorded them (``A: <label>``,
    ``B: <label>`` when they are the same), and ``metric``.  Only chunks that
    pass their checksums are read.

    Raises
    ------
    ValueError
        ``folder`` holds no stored assessment.
    """
    from simstudy.engine import load_run

    run = load_run("assess", out=folder, verify_plan=False)
    settings = run.manifest.get("config", {}).get("settings", {})
    name_a, name_b = _score_names(str(settings.get("a", "A")), str(settings.get("b", "B")))
    rows = run.table("scores")
    col_a, col_b = _score_columns(rows)
    return pd.DataFrame(
        {
            "design": rows["condition"].to_numpy(),
            "repeat": rows["replication"].to_numpy(),
            "run": rows["run"].to_numpy(),
            "fold": rows["fold"].to_numpy(),
            name_a: rows[col_a].to_numpy(float),
            name_b: rows[col_b].to_numpy(float),
            "metric": stored_metric(run),
        }
    )


def load_assessment(
    out,
    data,
    a,
    b,
    *,
    designs=DEFAULT_DESIGNS,
    tests=None,
    n_repeats=DEFAULT_REPEATS,
    alpha=0.05,
    evidence=DEFAULT_ROOT,
    class_column=None,
    a_params=None,
    b_params=None,
    metric: str = "accuracy",
    rope: float = 0.01,
    seed: int | None = None,
) -> Assessment:
    """The assessment stored in ``out``, re-summarised without fitting anything.

    Takes the arguments :func:`assess` was given (they identify the stored run);
    ``metric`` may differ from the one it was fitted for: the stored outputs are
    then scored by it (:class:`RescoredRun`).

    Returns
    -------
    Assessment
    """
    from simstudy.engine import DEFAULT_SEED, load_run

    data = as_dataset(data, class_column=class_column)
    metric = check_metric(metric)
    check_metric_for(metric, data)  # a metric it is scored again by: checked as a new one would be
    if isinstance(a, dict) and b is None:  # the learners= mapping of assess
        a, b = named_learners(a, "learners")
    # nothing is fitted: a learner given by reference is not even imported
    ca = parse_learner(a, a_params, option=option("a"), contained=wants_worker(a))
    cb = parse_learner(b, b_params, option=option("b"), contained=wants_worker(b))
    chosen = designs_for_data(designs, data.y, alpha=alpha, classes=data.classes)
    study = assessment_study(data, ca, cb, chosen, n_repeats=n_repeats, tests=tests, metric=metric, fitting=False)
    seed = DEFAULT_SEED if seed is None else seed
    _refuse_other_data(study, out, seed)
    other = _other_metric(data, ca, cb, chosen, n_repeats, tests, out, seed, metric)
    if other is not None:  # fitted for another metric: scored again from its stored outputs
        study, run = other
    else:
        run = load_run(study, profile=ASSESS_PROFILE, out=out)
    return _assessment(study, run, chosen, evidence, alpha, data, ca, cb, rope=check_rope(rope))
