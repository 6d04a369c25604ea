"""How close ``simstudy list``'s wall-time estimates are to fresh runs.

Reproduce with::

    .venv/bin/python benchmarks/bench_estimates.py [--profile smoke] [--jobs 2] [--study NAME ...] [--cold]

Each study is run as ``simstudy run STUDY --profile P --jobs J --quiet`` into a
new temporary directory, a fresh process timed from its start to its exit
(start-up, imports, workers, compilation and writing included), and the time
is printed beside the estimate ``simstudy list --jobs J`` gives for it
(:meth:`simstudy.engine.Study.wall_seconds`; for a study with an adaptive rule,
the range of :meth:`~simstudy.engine.Study.wall_range`, from its first stage to
its cap: a run inside it counts as on target).  ``--cold`` also runs each study
with an empty compilation cache (``NUMBA_CACHE_DIR`` pointing to a new
directory), as the first run after installing does, beside the estimate of a
first run.  The goal is a ratio within 1/1.5 .. 1.5.  With ``--cold --write`` the
measured compilation time of every study that compiles kernels (the first run
minus the warm one, whole seconds, 1 s at least) replaces its entry in
``simstudy/engine/timings.json``, which the estimates read.

The seconds per unit of the studies' declared work come from stored runs::

    .venv/bin/python benchmarks/bench_estimates.py --fit RUN [RUN ...] [--write]

fits them to the chunk times of the runs (each a run directory made with
``--jobs 2`` on an idle machine; several runs of one study are fitted
together, :func:`simstudy.engine.costs.fit_seconds_per_unit`), prints them
beside the ones in use, and with ``--write`` replaces those studies' entries of
``timings.json``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _run(study: str, profile: str, jobs: int, out: Path, env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "simstudy.cli",
            "run",
            study,
            "--profile",
            profile,
            "--jobs",
            str(jobs),
            "--quiet",
            "--out",
            str(out),
        ],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=out.parent,
    )
    return time.perf_counter() - t0


def main(argv=None) -> int:
    from simstudy.engine import get_study, list_studies

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="smoke")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--study", nargs="*", default=None, help="studies (default: every registered one)")
    parser.add_argument("--cold", action="store_true", help="also time a first run (empty compilation cache)")
    parser.add_argument("--fit", nargs="+", metavar="RUN", help="fit the seconds per unit of work to stored runs")
    parser.add_argument(
        "--write",
        action="store_true",
        help="store what was measured in timings.json: the compile seconds (--cold) or the seconds per unit (--fit)",
    )
    args = parser.parse_args(argv)
    if args.fit:
        return _fit(args.fit, args.write)
    if args.write and not args.cold:
        parser.error("--write: needs --cold or --fit (the compile seconds are a cold run minus a warm one)")
    measured = {}
    names = args.study or list_studies()
    print(f"profile {args.profile}, --jobs {args.jobs}")
    print(
        "| study | estimate | fresh run | ratio (run / estimate) |"
        + (" first-run estimate | first run (empty cache) | ratio |" if args.cold else "")
    )
    print("|---|---:|---:|---:|" + ("---:|---:|---:|" if args.cold else ""))
    worst = 1.0
    for name in names:
        st = get_study(name)
        prof = st.profile(args.profile)
        est, high = st.wall_range(prof, args.jobs)  # a study that grows adaptively: from its first stage to its cap
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            cells = []
            if args.cold:
                env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp / "numba-cache"))
                cold = _run(name, args.profile, args.jobs, tmp / "cold", env)
                est_cold = st.wall_seconds(prof, args.jobs, first_run=True)
                cells = [f"{est_cold:.1f} s", f"{cold:.1f} s", f"{cold / est_cold:.2f}"]
                worst = max(worst, cold / est_cold, est_cold / cold)
            warm = _run(name, args.profile, args.jobs, tmp / "warm", dict(os.environ))
        if args.cold and st.cost.compile_seconds > 0:
            measured[name] = float(max(1, round(cold - warm)))
        if high > est:  # inside the range is no error; outside it, the factor to its nearer end
            factor = est / warm if warm < est else warm / high if warm > high else 1.0
            shown, ratio = f"{est:.1f} to {high:.1f} s", f"{warm / est:.2f} to {warm / high:.2f}"
        else:
            factor, shown, ratio = max(warm / est, est / warm), f"{est:.1f} s", f"{warm / est:.2f}"
        worst = max(worst, factor)
        print(f"| {name} | {shown} | {warm:.1f} s | {ratio} |" + "".join(f" {c} |" for c in cells), flush=True)
    print(f"largest factor between estimate and run: {worst:.2f}")
    if args.write and measured:
        _write_timings("compile_seconds", measured)
    return 0


def _fit(runs: list, write: bool) -> int:
    from simstudy.engine import get_study
    from simstudy.engine.costs import fit_seconds_per_unit
    from simstudy.engine.store import RunStore

    by_study: dict = {}
    for run in runs:
        manifest = RunStore(run).read_manifest()
        if manifest is None:
            raise SystemExit(f"--fit: {run} holds no run (no manifest.json)")
        by_study.setdefault(manifest["study"], []).append(run)
    fitted = {}
    for name, dirs in by_study.items():
        fit = fit_seconds_per_unit(get_study(name), dirs)
        before = "no estimate" if fit.previous_seconds is None else f"{fit.previous_seconds:.0f} s"
        print(
            f"\n{name}: {fit.chunks} chunks of {len(dirs)} run(s), {fit.seconds:.0f} worker seconds"
            f" ({fit.left_out} slow chunk(s) left out)"
        )
        print(f"  predicted by the seconds per unit in use: {before}; by the fit: {fit.fitted_seconds:.0f} s")
        print("  | unit | in use | fitted |")
        print("  |---|---:|---:|")
        for unit, rate in fit.rates.items():
            print(f"  | {unit} | {fit.previous.get(unit, float('nan')):.4g} | {rate:.4g} |")
        fitted[name] = {**fit.previous, **fit.rates}  # a unit these runs lack keeps its value
    if write:
        _write_timings("seconds_per_unit", fitted)
    return 0


def _write_timings(entry: str, measured: dict) -> None:
    """Replace the measured studies' values under ``entry`` of ``timings.json`` (the others are kept), atomically."""
    import json

    from simstudy._files import write_atomic
    from simstudy.engine import study

    path = Path(study.__file__).with_name("timings.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data[entry] = dict(sorted({**data[entry], **measured}.items()))
    write_atomic(path, json.dumps(data, indent=2) + "\n")
    print(f"wrote the {entry.replace('_', ' ')} of {', '.join(sorted(measured))} to {path}")


if __name__ == "__main__":
    raise SystemExit(main())
