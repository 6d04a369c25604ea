"""Time the proving ground's summaries on a stored run: reading the outcomes, arranging them, the per-scenario tables.

Usage::

    .venv/bin/python benchmarks/bench_proving_summary.py RUN_DIR [--designs cv10x10 5x2cv resampled10]

Loads the stored run (``--designs`` names the designs it was run with, when they are not the current
default), then times, in this process, ``load_outcomes`` (or the whole-table read of code that predates
it), ``procedures``, ``power_table`` and ``replicability_table``, and prints one line of seconds per
step.  Run it with two versions of the package on ``PYTHONPATH`` to compare them on the same rows.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run", type=Path)
    p.add_argument("--designs", nargs="+", default=None)
    args = p.parse_args(argv)

    from simstudy.apps.proving import summary as S
    from simstudy.apps.proving.scenarios import BANK
    from simstudy.apps.proving.study import ProvingCondition, proving_study
    from simstudy.engine import Profile, load_run

    manifest = json.loads((args.run / "manifest.json").read_text())
    settings = manifest["config"]["settings"]
    designs = tuple(args.designs or settings.get("designs") or ())
    study = proving_study(designs or None)
    profile = manifest["profile"]
    if designs:  # a run of other designs or an older bank: its own conditions
        n_exp = int(settings.get("n_experiments", 10))
        svm = int(settings.get("svm_replications", 0)) or None
        conds = [
            ProvingCondition(k, n_exp, designs, svm if BANK[k].family == "berrar" else None)
            for k in manifest["conditions"]
        ]
        study = dataclasses.replace(
            study,
            conditions=lambda prof: conds,
            profiles={profile: Profile(profile, manifest["n_replications"], settings)},
        )
    run = load_run(study, profile=profile, out=args.run)
    times = {}
    t = time.perf_counter()
    rows = S.load_outcomes(run) if hasattr(S, "load_outcomes") else run.table("outcomes")
    times["read"] = time.perf_counter() - t
    t = time.perf_counter()
    pr = S.procedures(rows)
    times["procedures"] = time.perf_counter() - t
    for name in ("power_table", "replicability_table"):
        t = time.perf_counter()
        getattr(S, name)(pr)
        times[name] = time.perf_counter() - t
    print(
        f"{len(rows)} outcome rows, {len(pr.p)} procedures: "
        + ", ".join(f"{k} {v:.1f} s" for k, v in times.items())
        + f"; total {sum(times.values()):.1f} s"
    )


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        main()
