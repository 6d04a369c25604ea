"""Stored runs found and opened: where they live, which one a command reads, and the check against the plan.

A run of a study at a profile lives in ``results/STUDY/PROFILE`` unless
``--out`` puts it elsewhere (:data:`DEFAULT_ROOT`, :func:`default_out`);
:func:`locate_run` is the one lookup every command and application uses, with
one-line errors; :func:`load_run` opens a run and refuses one whose manifest
is not what its study plans at that profile (:func:`check_plan`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from simstudy._files import DEFAULT_PROFILE, DEFAULT_ROOT
from simstudy.engine.runner import plan_run
from simstudy.engine.store import ConfigMismatch, RunData, RunStore, default_out
from simstudy.errors import InputError, on_command_line, option

__all__ = [
    "DEFAULT_ROOT",
    "DEFAULT_PROFILE",
    "default_out",
    "stored_profiles",
    "locate_run",
    "check_plan",
    "load_run",
    "how_to_run",
]


def check_plan(manifest: dict, study, profile: str, path) -> None:
    """Refuse a manifest that is not what ``study`` plans at ``profile`` with its root seed.

    Catches a manifest edited by hand (its config no longer hashes to its
    recorded hash, or its plan or config differ from the study's) and a study
    whose conditions changed since the run.
    """
    where = f"{option('out')}: {path}"
    recorded = hashlib.sha256(json.dumps(manifest["config"], sort_keys=True).encode()).hexdigest()
    if recorded != manifest["config_hash"]:
        raise ConfigMismatch(f"{where}: the manifest's config does not match its own hash (edited by hand?)")
    if manifest["profile"] != profile:
        raise ConfigMismatch(f"{where} holds profile {manifest['profile']!r}, not {profile!r}")
    _, plan, config, digest = plan_run(
        study,
        profile,
        manifest["root_seed"],
        adaptive=manifest["config"].get("adaptive"),
        counts=manifest.get("counts"),
    )
    if digest != manifest["config_hash"] or plan != manifest["plan"]:
        diffs = [
            k for k in sorted(set(config) | set(manifest["config"])) if config.get(k) != manifest["config"].get(k)
        ] or ["plan"]
        raise ConfigMismatch(
            f"{where}: the manifest does not match study {study.name!r} at profile {profile!r} "
            f"(differs in: {', '.join(diffs)}); the manifest was edited or the study changed "
            "since the run"
        )


def how_to_run(study: str, profile: str, out=None) -> str:
    """The call that stores a run, in the caller's form: ``simstudy run STUDY --profile P`` on the command line,
    ``run_study('STUDY', profile='P')`` from Python (with the run directory when ``out`` is given)."""
    if on_command_line():
        return f"`simstudy run {study} --profile {profile}" + (f" --out {out}`" if out is not None else "`")
    return f"`run_study({study!r}, profile={profile!r}" + (f", out={str(out)!r})`" if out is not None else ")`")


def load_run(study, profile: str | None = None, out=None, *, verify_plan: bool = True) -> RunData:
    """The stored run of ``study`` at ``profile`` (from ``out`` or ``results/STUDY/PROFILE``).

    ``profile`` defaults to ``quick`` for the default directory and to the
    stored run's profile when ``out`` is given.  With ``verify_plan``, the
    manifest must match the plan of ``study`` (a
    :class:`~simstudy.engine.study.Study` or the name of one) at that profile
    (see :func:`check_plan`).

    Parameters
    ----------
    study : str, path or Study
        The study (its name, a study file, or the declaration).
    profile : str, optional
        The stored profile.
    out : str or path, optional
        The run directory, when it is not ``results/STUDY/PROFILE``.
    verify_plan : bool
        Check the manifest against the study's plan.

    Returns
    -------
    RunData
        The run's stored rows, read lazily.

    Raises
    ------
    ValueError
        No stored run there, or one of another study.
    ConfigMismatch
        The manifest does not match the study's plan at that profile.
    """
    from simstudy.engine.study import Study, get_study  # the study layer imports this module

    name = getattr(study, "name", study)
    if out is not None:
        path = Path(out)
    else:
        if profile is None:
            profile = DEFAULT_PROFILE
        path = default_out(name, profile)
    manifest = RunStore(path).read_manifest()
    if manifest is None:
        raise InputError(
            f"study {name!r}: no stored run in {path}; run {how_to_run(name, profile or DEFAULT_PROFILE, out)} first"
        )
    if profile is None:
        profile = manifest["profile"]
    if manifest.get("study") != name:
        raise InputError(f"{option('out')}: {path} holds study {manifest.get('study')!r}, not {name!r}")
    if verify_plan:
        check_plan(manifest, study if isinstance(study, Study) else get_study(study), profile, path)
    return RunData(path, manifest)


def stored_profiles(study, root=DEFAULT_ROOT) -> list[str]:
    """The profiles of ``study`` with a stored run under ``root`` (``ROOT/STUDY/PROFILE``)."""
    root = Path(root)
    return [p for p in study.profiles if (root / study.name / p / "manifest.json").is_file()]


def locate_run(study, profile: str | None, out=None, *, root=DEFAULT_ROOT, spelled: str | None = None):
    """The run directory and profile a command reads; one-line errors for everything the user can get wrong.

    Parameters
    ----------
    study : simstudy.engine.Study
        The study, already resolved.
    profile : str or None
        ``--profile`` as given (None: not given).
    out : path-like, optional
        ``--out`` as given.
    root : path-like
        Where runs are looked for without ``--out`` (``ROOT/STUDY/PROFILE``).
    spelled : str, optional
        The study as the user typed it (a name or a file), for the commands the errors suggest.

    Returns
    -------
    (pathlib.Path, str)
        The run directory and its profile.

    Raises
    ------
    ValueError
        An unknown profile (naming the study's profiles), no stored run there
        (naming the profiles that are stored, or the command that stores one),
        or a run directory holding another profile.
    """
    spelled = spelled or study.name
    if profile is not None:
        study.profile(profile)  # unknown: one line naming the study's profiles
    if out is not None:
        path = Path(out)
        manifest = RunStore(path).read_manifest()
        if manifest is None:
            raise InputError(
                f"{option('out')}: no stored run in {path}; store one with "
                f"{how_to_run(spelled, profile or DEFAULT_PROFILE, path)}"
            )
        if profile is None:
            profile = manifest.get("profile", DEFAULT_PROFILE)
        elif manifest.get("profile") != profile:
            raise InputError(
                f"{option('out')}: {path} holds profile {manifest.get('profile')!r}, not {profile!r}; "
                f"pass {option('profile', manifest.get('profile'))} or another {option('out')}"
            )
        return path, profile
    profile = profile or DEFAULT_PROFILE
    path = Path(root) / study.name / profile
    if not (path / "manifest.json").is_file():
        stored = stored_profiles(study, root)
        if stored:
            raise InputError(
                f"{option('profile')}: study {study.name!r} has no run stored at profile {profile!r} ({path}); "
                f"stored at: {', '.join(stored)}; pass {option('profile', stored[0])}, or run "
                f"{how_to_run(spelled, profile)} first"
            )
        raise InputError(f"study {study.name!r}: nothing stored in {path}; run {how_to_run(spelled, profile)} first")
    return path, profile
