"""Every built-in study at one profile, cheapest first, then the reproduction page written from those runs.

``reproduce(profile)`` runs (or resumes) each built-in study at ``profile``
under ``RESULTS/STUDY/PROFILE``, the proving ground with its own adaptive rule
as every command runs it, under one progress display whose time estimate covers
them all; then it writes the page (:func:`simstudy.outputs.report.build_report`)
with every study, the proving ground's own page included.  Every stored run is
verified as ``simstudy run`` verifies it, a complete one included (a missing or
damaged chunk is computed again).  A stored run made by other code, or with
another root seed, is computed again (moved aside, never deleted), so that the
page's rows all come from this code and seed, unless ``keep`` is given: then a
run by other code is kept, and a complete one of another seed, and their
sections say which commit (and seed) made them.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from simstudy._files import DEFAULT_ROOT, check_writable, folder_option
from simstudy.errors import InputError, option

__all__ = ["reproduce", "reproduction_plan", "built_in_studies", "PlannedStudy"]


@dataclass(frozen=True)
class PlannedStudy:
    """One study of a reproduction: where it is stored, what is there, and what it is expected to cost.

    ``state`` is ``missing``, ``incomplete``, ``complete`` (by this code),
    ``other code`` (complete or not, made by code or versions that differ:
    ``changes`` says how) or ``other seed`` (made with another root seed than
    the reproduction's: ``changes`` names it); ``seconds`` is the estimated wall time of what is
    left to compute, as a range when the study grows adaptively;
    ``replications`` those its profile plans (the first stage of an adaptive
    study), ``stored`` those its manifest lists as stored, and ``complete``
    whether its manifest says it is complete.
    """

    name: str
    out: Path
    state: str
    changes: tuple
    seconds: tuple
    replications: int
    stored: int
    complete: bool = False


def built_in_studies() -> list[str]:
    from simstudy.engine import study_origins

    return [name for name, origin in study_origins().items() if origin == "built-in"]


def reproduction_plan(profile: str, *, results=DEFAULT_ROOT, jobs: int = 1, studies=None) -> list[PlannedStudy]:
    """The built-in studies (or ``studies``) at ``profile``, cheapest first, with what is stored of each.

    Reads the stored manifests and the code's fingerprints; runs nothing.
    """
    import json

    from simstudy.engine import DEFAULT_SEED, get_study
    from simstudy.engine.fingerprint import provenance, provenance_changes
    from simstudy.engine.store import manifest_chunk_key

    names = list(studies) if studies is not None else built_in_studies()
    out = []
    for name in names:
        st = get_study(name)
        prof = st.profile(profile)
        where = Path(results) / st.name / profile
        planned = sum(getattr(c, "n_replications", None) or prof.n_replications for c in st.conditions_for(prof))
        try:
            manifest = json.loads((where / "manifest.json").read_text())
        except FileNotFoundError:
            manifest = None
        except (OSError, ValueError) as exc:
            raise InputError(f"{option('results')}: cannot read {where / 'manifest.json'} ({exc})") from None
        low, high = st.wall_range(prof, jobs)
        complete = False
        if manifest is None:
            state, changes, stored = "missing", (), 0
        else:
            chunks = manifest.get("chunks") or {}
            stored = sum(
                c["stop"] - c["start"]
                for c in manifest.get("plan", [])
                if manifest_chunk_key(c["condition"], c["start"], c["stop"]) in chunks
            )
            complete = manifest.get("status") == "complete"
            if manifest.get("root_seed", DEFAULT_SEED) != DEFAULT_SEED:
                state, changes = "other seed", (f"root seed {manifest.get('root_seed')} instead of {DEFAULT_SEED}",)
            else:
                changes = tuple(provenance_changes(manifest.get("provenance"), provenance(st)))
                state = "other code" if changes else "complete" if complete else "incomplete"
            if state == "complete":
                low = high = 0.0  # nothing to compute when its chunks are intact
            elif state == "incomplete":  # what is left of it
                left = max(0.0, 1.0 - stored / max(1, planned))
                low, high = low * left, high * left
        out.append(PlannedStudy(st.name, where, state, changes, (low, high), planned, stored, complete))
    return sorted(out, key=lambda p: (p.seconds[0], p.name))


def _kept(p: PlannedStudy) -> bool:
    """Whether ``--keep`` keeps a stored run as it is: one by other code, or a complete one of another seed (a
    partial one cannot be completed with this reproduction's seed, so it is computed again)."""
    return p.state == "other code" or (p.state == "other seed" and p.complete)


def _state_words(p: PlannedStudy, keep: bool) -> str:
    """What ``reproduce`` does with one planned study, in words (its line of the plan it prints)."""
    if p.state == "other code":
        return "stored by other code: " + ("kept" if keep else "computed again")
    if p.state == "other seed":
        seed = f" ({p.changes[0]})" if p.changes else ""
        return f"stored with another seed{seed}: " + ("kept" if keep and _kept(p) else "computed again")
    return {
        "missing": "to compute",
        "incomplete": "to resume",
        "complete": "stored, by this code (its chunks verified)",
    }[p.state]


def _fmt(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def reproduce(
    profile: str = "quick",
    *,
    results=DEFAULT_ROOT,
    out=None,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    keep: bool = False,
    progress: bool = True,
    studies=None,
) -> dict:
    """Run every built-in study at ``profile`` (resuming what is stored), then write the reproduction page.

    Parameters
    ----------
    profile : str
        ``smoke``, ``quick`` or ``paper``.
    results : path-like
        Root of the runs (``RESULTS/STUDY/PROFILE``).
    out : path-like, optional
        Where the page goes (default ``RESULTS/reproduction/PROFILE``).
    jobs, backend, scheduler
        As for :func:`simstudy.engine.run_study`.
    keep : bool
        Keep stored runs made by other code instead of computing them again;
        their sections then say which code made them.
    progress : bool
        One progress display for the whole, on standard error.
    studies : list of str, optional
        The studies to run (default every built-in one).

    Returns
    -------
    dict
        ``plan`` (the :class:`PlannedStudy` list as it stood), ``seconds``
        (``{study: wall seconds this call spent on it}``), ``html`` and
        ``markdown`` (the page).
    """
    from simstudy.engine import run_study
    from simstudy.outputs.report import build_report

    results = folder_option(results, option("results"))
    out = folder_option(out, option("out")) if out is not None else results / "reproduction" / profile
    plan = reproduction_plan(profile, results=results, jobs=jobs, studies=studies)
    if backend == "dask" and scheduler:  # an unreachable scheduler is refused before any folder is made
        from simstudy.engine.runner import connect_scheduler

        connect_scheduler(scheduler).close()
    check_writable([(option("results"), results), (option("out"), out)])  # before hours of work, not after
    # every stored run goes through run_study, which verifies its chunks (a complete one computes nothing when
    # they are intact); only what --keep keeps is taken as it is
    todo = [p for p in plan if not (keep and _kept(p))]
    low = sum(p.seconds[0] for p in todo)
    high = sum(p.seconds[1] for p in todo)
    if progress:
        est = _fmt(low) if _fmt(low) == _fmt(high) else f"{_fmt(low)} to {_fmt(high)}"
        print(
            f"reproduce {profile}: {len(todo)} of {len(plan)} studies to compute, estimated {est} with "
            f"{jobs} worker(s); results in {results}, page in {out}",
            file=sys.stderr,
        )
        for p in plan:
            print(f"  {p.name:<20} {_state_words(p, keep)}", file=sys.stderr)
    display = _Display(low, enabled=progress)
    spent: dict[str, float] = {}
    try:
        for p in todo:
            per_rep = p.seconds[0] / max(1, p.replications - (p.stored if p.state == "incomplete" else 0))
            display.start(p.name, per_rep)
            t0 = time.monotonic()
            run = run_study(
                p.name,
                profile,
                out=p.out,
                jobs=jobs,
                backend=backend,
                scheduler=scheduler,
                progress=display.update,
                fresh=p.state in ("other code", "other seed"),
            )
            if p.state != "complete" or run.manifest["runs"][-1].get("chunks_computed"):
                spent[p.name] = round(time.monotonic() - t0, 1)
    finally:
        display.close()
    html_path, md_path = build_report(profile, results=results, out=out, studies=[p.name for p in plan])
    return {"plan": plan, "seconds": spent, "html": html_path, "markdown": md_path}


class _Display:
    """One progress bar for every study, in estimated seconds of work, so that its rate gives the time left."""

    def __init__(self, total: float, *, enabled: bool):
        from tqdm.auto import tqdm

        self.bar = tqdm(
            total=max(total, 1e-9),
            disable=not enabled,
            unit="s",
            unit_scale=False,
            file=sys.stderr,
            dynamic_ncols=True,
            bar_format="{desc}: {percentage:3.0f}% |{bar}| {elapsed} elapsed, {remaining} left",
            mininterval=0.5 if sys.stderr.isatty() else 30.0,
        )
        self.name, self.per_rep, self.planned = "", 0.0, 0

    def start(self, name: str, per_rep: float):
        self.name, self.per_rep, self.planned = name, per_rep, 0
        self.bar.set_description_str(f"reproduce ({name})")

    def update(self, new: int, stored: int, planned: int):
        """The runner's report (see :func:`simstudy.engine.run_study`): a stage that grew adds to the total."""
        if planned > self.planned:
            if self.planned:  # an adaptive stage added replications: they join the estimate
                self.bar.total += (planned - self.planned) * self.per_rep
            self.planned = planned
        if new:
            self.bar.update(new * self.per_rep)

    def close(self):
        self.bar.close()
