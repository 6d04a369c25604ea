"""Adaptive runs against the fixed paper profile: replications and wall time saved, and resumption.

Reproduce with::

    .venv/bin/python benchmarks/bench_adaptive.py savings [--study table1|study1] [--jobs 2] [--out DIR]
    .venv/bin/python benchmarks/bench_adaptive.py resume  [--study table1|study1] [--jobs 2] [--out DIR]

``savings`` runs the study at the paper profile twice, in turn, on the same
machine: with the fixed replications of the paper, and adaptively with a target
Monte Carlo standard error equal to the paper's precision, ``0.5 / sqrt(n)``
for the paper's n replications (the largest MCSE a rate can have with n
replications: every rate of the adaptive run is then at least as precise as the
paper's least precise one), first stage and step ``n / 10``, capped at n.  It
prints the replications and seconds of both and the largest difference between
their rejection rates, in units of the fixed run's MCSE.

``study1`` is Berrar's study 1 restricted to groups 3, 7 and 12 (the two groups
the paper reports on and one far group), with the paper's 1000 replications
and 300 bootstrap replications of s*: the whole study (21 groups) does not run
twice in an hour on two cores.

``resume`` runs the study adaptively at the quick profile (target 0.03, step a
quarter of the profile's n, capped at four times n) once without interruption
and once interrupted (SIGTERM after half of the uninterrupted run's time) and
resumed by the same command, and checks that the stored rows and counts are
identical.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

STUDY1_GROUPS = (3, 7, 12)
STUDY1_FILE = '''
"""Berrar's study 1 at the paper's scale, restricted to groups {groups}."""
import dataclasses
from simstudy.engine import Profile, get_study

_base = get_study("berrar1")
STUDY = dataclasses.replace(_base, name="berrar1_groups", profiles={{
    "paper": Profile("paper", n_replications=1000, settings={{"groups": {groups}, "n_boot": 300}}),
    "quick": Profile("quick", n_replications=80, settings={{"groups": {groups}, "n_boot": 40}})}})
'''


def _study(name: str, workdir: Path) -> str:
    if name == "table1":
        return "bouckaert1"
    path = workdir / "berrar1_groups.py"
    path.write_text(STUDY1_FILE.format(groups=STUDY1_GROUPS))
    return str(path)


def _run(args, out: Path, extra=()) -> tuple[float, subprocess.Popen]:
    cmd = [
        sys.executable,
        "-c",
        "import sys; from simstudy.cli import main; sys.exit(main())",
        "run",
        *args,
        "--out",
        str(out),
        "--quiet",
        *extra,
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr}")
    return time.perf_counter() - t0, proc


def _rates(study, out: Path) -> pd.DataFrame:
    from simstudy.engine import get_study, load_run
    from simstudy.engine.adaptive import default_targets

    run = load_run(get_study(study), out=out)
    rows = run.table("outcomes")
    parts = []
    for cond, grp in rows.groupby("condition"):
        t = default_targets(grp)
        t.insert(0, "condition", cond)
        parts.append(t)
    return pd.concat(parts, ignore_index=True), run.manifest


def savings(study_name: str, jobs: int, workdir: Path) -> None:
    from simstudy.engine import get_study

    study = _study(study_name, workdir)
    n = get_study(study).profile("paper").n_replications
    target = 0.5 / math.sqrt(n)
    step = max(1, n // 10)
    fixed_dir, adaptive_dir = workdir / "fixed", workdir / "adaptive"
    base = [study, "--profile", "paper", "--jobs", str(jobs)]
    t_fixed, _ = _run(base, fixed_dir)
    t_adaptive, _ = _run(
        base, adaptive_dir, ["--target-mcse", f"{target:.6g}", "--step", str(step), "--max-replications", str(n)]
    )
    fixed, _ = _rates(study, fixed_dir)
    adaptive, ma = _rates(study, adaptive_dir)
    counts = ma["counts"]
    both = fixed.merge(adaptive, on=["condition", "quantity"], suffixes=("_fixed", "_adaptive"))
    z = (both["estimate_adaptive"] - both["estimate_fixed"]).abs() / both["mcse_fixed"].where(both["mcse_fixed"] > 0)
    # replications of the conditions the rule adapts (those with outcome rows); a condition of fixed
    # size (Berrar's bootstrap of s*) runs its own count in both runs and is listed, not counted
    reps_fixed = int(fixed.groupby("condition")["n"].max().sum())
    reps_adaptive = int(sum(c for cond, c in counts.items() if cond in set(adaptive["condition"])))
    print(f"study {study_name}: target MCSE {target:.4f} (0.5/sqrt({n})), step {step}, cap {n}")
    fixed_size = {cond: c for cond, c in counts.items() if cond not in set(adaptive["condition"])}
    if fixed_size:
        print(f"  conditions of fixed size, the same in both runs: {sum(fixed_size.values())} replications")
    print(f"  fixed     {reps_fixed:6d} replications  {t_fixed:7.1f} s")
    print(f"  adaptive  {reps_adaptive:6d} replications  {t_adaptive:7.1f} s")
    print(
        f"  replications saved {1 - reps_adaptive / reps_fixed:.0%}; time ratio fixed/adaptive "
        f"{t_fixed / t_adaptive:.2f}x"
    )
    print(
        f"  largest MCSE of the adaptive run: {adaptive['mcse'].max():.4f}; largest |adaptive - fixed| "
        f"{z.max():.2f} fixed MCSEs"
    )
    for cond, c in counts.items():
        print(f"    {cond:24s} {c:5d}")


def resume(study_name: str, jobs: int, workdir: Path) -> None:
    from simstudy.engine import get_study

    study = _study(study_name, workdir)
    n = get_study(study).profile("quick").n_replications
    extra = ["--target-mcse", "0.03", "--step", str(max(1, n // 4)), "--max-replications", str(4 * n)]
    base = [study, "--profile", "quick", "--jobs", str(jobs)]
    t_one, _ = _run(base, workdir / "one", extra)
    cmd = [
        sys.executable,
        "-c",
        "import sys; from simstudy.cli import main; sys.exit(main())",
        "run",
        *base,
        "--out",
        str(workdir / "two"),
        "--quiet",
        *extra,
    ]
    proc = subprocess.Popen(cmd, start_new_session=True)
    time.sleep(t_one / 2)
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait()
    interrupted = proc.returncode
    _run(base, workdir / "two", extra)
    from simstudy.engine import load_run

    a = load_run(get_study(study), out=workdir / "one")
    b = load_run(get_study(study), out=workdir / "two")
    same = True
    for table in a.tables():
        x = a.table(table).sort_values(["condition", "replication"], kind="stable").reset_index(drop=True)
        y = b.table(table).sort_values(["condition", "replication"], kind="stable").reset_index(drop=True)
        ok = x.equals(y)
        same &= ok
        print(f"  {table}: {len(x)} rows, {'identical' if ok else 'DIFFERENT'}")
    print(
        f"study {study_name}: uninterrupted {t_one:.1f} s; interrupted at {t_one / 2:.1f} s (exit {interrupted}) "
        f"and resumed; counts {'identical' if a.manifest['counts'] == b.manifest['counts'] else 'DIFFERENT'} "
        f"({sum(a.manifest['counts'].values())} replications); rows {'identical' if same else 'DIFFERENT'}"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("savings", "resume"))
    parser.add_argument("--study", choices=("table1", "study1"), default="table1")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="work directory (default a temporary one)")
    args = parser.parse_args(argv)
    workdir = args.out or Path(tempfile.mkdtemp(prefix="bench_adaptive_"))
    workdir.mkdir(parents=True, exist_ok=True)
    (savings if args.what == "savings" else resume)(args.study, args.jobs, workdir)
    return 0


if __name__ == "__main__":
    from simstudy.engine.threads import one_thread_per_kernel

    with one_thread_per_kernel():  # one thread per kernel, as a run in one process has
        raise SystemExit(main())
